// SPDX-License-Identifier: GPL-2.0
/*
 * cli_change.c - revoke-bpf add and del, and how their answer is shown:
 * what was revoked or lifted, then add's report (counts, holders, loop
 * devices, ttys and io_uring instances), as text or JSON.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char *const change_text[][2] = {
	{ REVOKE_OK_ADDED, "revoked" },
	{ REVOKE_OK_ALREADY, "already revoked" },
	{ REVOKE_OK_DELETED, "no longer revoked" },
	{ REVOKE_OK_ABSENT, "was not revoked" },
	{ REVOKE_OK_UMOUNTED, "revoked" },
};


/* A tty, loop or filesystem line that says something was not done. */
static bool not_done(const char *line)
{
	char v[48];

	/*
	 * umount: a filesystem not gone (a release step that failed is
	 * reported by its unpin line, and counts only if it left it there)
	 */
	return (cli_output_line_is(line, REVOKE_LINE_GONE) &&
		revoke_kv_get(line, REVOKE_FIELD_GONE, v, sizeof(v)) &&
		strcmp(v, "yes")) ||
	       (cli_output_line_is(line, REVOKE_LINE_TTY) &&
		revoke_kv_get(line, REVOKE_FIELD_HUNGUP, v, sizeof(v)) && strcmp(v, "yes")) ||
	       ((cli_output_line_is(line, REVOKE_LINE_LOOP) ||
		 cli_output_line_is(line, REVOKE_LINE_MOUNTED)) &&
		revoke_kv_get(line, REVOKE_FIELD_REASON, v, sizeof(v)));
}

/* A filesystem mounted from a revoked image's loop device, as text. */
static void print_mounted(const char *line)
{
	char fs[32] = "?", type[REVOKE_FSTYPE_LEN] = "?", why[64] = "";
	char hold[16] = "?", rel[16] = "?", failed[16] = "?";

	revoke_kv_get(line, REVOKE_FIELD_FS, fs, sizeof(fs));
	revoke_kv_get(line, REVOKE_FIELD_FSTYPE, type, sizeof(type));
	revoke_kv_get(line, REVOKE_FIELD_REASON, why, sizeof(why));
	if (revoke_kv_get(line, REVOKE_FIELD_SCAN, fs, sizeof(fs))) {
		printf("  mounted filesystems: not looked for: %s\n", why);
		return;
	}
	revoke_kv_get(line, REVOKE_FIELD_HOLDERS, hold, sizeof(hold));
	revoke_kv_get(line, REVOKE_FIELD_RELEASED, rel, sizeof(rel));
	revoke_kv_get(line, REVOKE_FIELD_FAILED, failed, sizeof(failed));
	if (strstr(line, " " REVOKE_FIELD_REVOKED "=no"))
		printf("  filesystem %s (%s) mounted from it: not revoked: %s\n",
		       fs, type, why);
	else if (why[0])
		printf("  filesystem %s (%s) mounted from it: revoked; "
		       "holders not handled: %s\n", fs, type, why);
	else
		printf("  filesystem %s (%s) mounted from it: revoked; "
		       "holders %s, released %s, failed %s\n", fs, type, hold,
		       rel, failed);
}

/* @us microseconds as "850 us", "8 ms" or "14.0 s" into @out */
static const char *human_us(const char *us, char *out, size_t len)
{
	unsigned long long t;

	if (!us[0] || strspn(us, "0123456789") != strlen(us)) {
		snprintf(out, len, "?");
		return out;
	}
	t = strtoull(us, NULL, 10);
	if (t < 1000)
		snprintf(out, len, "%llu us", t);
	else if (t < 1000000)
		snprintf(out, len, "%llu ms", t / 1000);
	else
		snprintf(out, len, "%.1f s", (double)t / 1e6);
	return out;
}

/* umount's time per step: "took 14.0 s: sync 8 ms, holders 14.0 s, ..." */
static void print_umount_times(const char *line)
{
	static const char *const keys[5] = {
		REVOKE_FIELD_TOTAL_US, REVOKE_FIELD_SYNC_US,
		REVOKE_FIELD_PIPELINE_US, REVOKE_FIELD_RELEASE_US,
		REVOKE_FIELD_GONE_US,
	};
	char v[5][24], h[5][24];
	int i;

	for (i = 0; i < 5; i++) {
		if (!revoke_kv_get(line, keys[i], v[i], sizeof(v[i])))
			v[i][0] = '\0';
		human_us(v[i], h[i], sizeof(h[i]));
	}
	printf("  took %s: sync %s, holders %s, release %s, gone %s\n", h[0],
	       h[1], h[2], h[3], h[4]);
}

/* umount's lines: its sync, each step of the release, each filesystem. */
static void print_umount(const char *line)
{
	char a[64] = "?", b[64] = "?", c[4096] = "?", why[64] = "";

	revoke_kv_get(line, REVOKE_FIELD_REASON, why, sizeof(why));
	if (cli_output_line_is(line, REVOKE_LINE_SYNC)) {
		revoke_kv_get(line, REVOKE_FIELD_RESULT, a, sizeof(a));
		printf("  sync: %s\n", a);
	} else if (cli_output_line_is(line, REVOKE_LINE_UNPIN)) {
		char esc[4 * sizeof(c)];

		revoke_kv_get(line, REVOKE_FIELD_STEP, a, sizeof(a));
		revoke_kv_get(line, REVOKE_FIELD_RESULT, b, sizeof(b));
		if (!revoke_kv_get(line, REVOKE_FIELD_PATH, c, sizeof(c)))
			strcpy(c, "%3f");	/* "?" */
		printf("  %s %s: %s%s%s\n", a, cli_esc_name(c, esc, sizeof(esc)),
		       b, why[0] ? ": " : "", why);
	} else if (cli_output_line_is(line, REVOKE_LINE_UMOUNT)) {
		print_umount_times(line);
	} else if (cli_output_line_is(line, REVOKE_LINE_GONE)) {
		revoke_kv_get(line, REVOKE_FIELD_FS, a, sizeof(a));
		revoke_kv_get(line, REVOKE_FIELD_GONE, b, sizeof(b));
		printf("  filesystem %s: %s%s\n", a, strcmp(b, "yes") ?
		       "NOT gone: " : "gone", why);
	}
}

/* A loop device, a tty or an io_uring instance, as text. */
static void print_reach(const char *line)
{
	char rdev[32] = "?", rel[16] = "0", why[64] = "";
	char pid[24] = "?", fd[24] = "?", files[24] = "0", bufs[24] = "0";

	if (cli_output_line_is(line, REVOKE_LINE_SYNC) ||
	    cli_output_line_is(line, REVOKE_LINE_UMOUNT) ||
	    cli_output_line_is(line, REVOKE_LINE_UNPIN) ||
	    cli_output_line_is(line, REVOKE_LINE_GONE)) {
		print_umount(line);
		return;
	}
	if (cli_output_line_is(line, REVOKE_LINE_PIN))
		return;		/* what the unpin lines act on */
	if (cli_output_line_is(line, REVOKE_LINE_MOUNTED)) {
		print_mounted(line);
		return;
	}
	if (cli_output_line_is(line, REVOKE_LINE_IO_URING)) {
		revoke_kv_get(line, REVOKE_FIELD_PID, pid, sizeof(pid));
		revoke_kv_get(line, REVOKE_FIELD_FD, fd, sizeof(fd));
		revoke_kv_get(line, REVOKE_FIELD_FILES, files, sizeof(files));
		revoke_kv_get(line, REVOKE_FIELD_BUFFERS, bufs, sizeof(bufs));
		printf("  io_uring of pid %s (fd %s): fixed files %s, buffers "
		       "%s taken away\n", pid, fd, files, bufs);
		return;
	}

	revoke_kv_get(line, REVOKE_FIELD_RDEV, rdev, sizeof(rdev));
	revoke_kv_get(line, REVOKE_FIELD_RELEASED, rel, sizeof(rel));
	revoke_kv_get(line, REVOKE_FIELD_REASON, why, sizeof(why));
	if (cli_output_line_is(line, REVOKE_LINE_TTY))
		printf("  tty %s: %s%s\n", rdev, why[0] ? "not hung up: " :
		       "hung up", why);
	else if (revoke_kv_get(line, REVOKE_FIELD_SCAN, rel, sizeof(rel)))
		printf("  loop devices: not all looked at: %s\n", why);
	else
		printf("  loop device %s: %s, %s, released %s%s%s\n", rdev,
		       not_done(line) && strstr(line, REVOKE_FIELD_DENIED "=no") ?
		       "not denied" : "denied",
		       strstr(line, REVOKE_FIELD_DETACHED "=yes") ? "detached" :
		       "still bound", rel, why[0] ? "; failed: " : "", why);
}

/* Exit statuses of add and umount (revoke-bpf(8) and its --help). */
#define EXIT_REACH_LEFT 3	/* a loop device, tty, mount, swap or a
				 * filesystem on a revoked image was not */
#define EXIT_HOLDERS_LEFT 4	/* some holder may keep its access */

/* What the lines after the counts leave undone: 0 or an exit status. */
static int left_undone(const char *line, int status)
{
	if (cli_output_line_is(line, REVOKE_LINE_FAILURE))
		return EXIT_HOLDERS_LEFT;
	if (not_done(line) && status != EXIT_HOLDERS_LEFT)
		return EXIT_REACH_LEFT;
	return status;
}

/* The report's lines of each kind, as the array members of its JSON. */
static const struct {
	const char *member;
	const char *word;
} report_arrays[] = {
	{ "failures", REVOKE_LINE_FAILURE },
	{ "killed", REVOKE_LINE_KILLED },
	{ "loops", REVOKE_LINE_LOOP },
	{ "mounted", REVOKE_LINE_MOUNTED },
	{ "ttys", REVOKE_LINE_TTY },
	{ "io_uring", REVOKE_LINE_IO_URING },
	{ "slowest", REVOKE_LINE_SLOW },
	{ "sync", REVOKE_LINE_SYNC },
	{ "pins", REVOKE_LINE_PIN },
	{ "unpins", REVOKE_LINE_UNPIN },
	{ "filesystems", REVOKE_LINE_GONE },
	{ "umount", REVOKE_LINE_UMOUNT },
};

/* add --persist's line was not written (print_report() saw it say so) */
static bool persist_failed;

/* add --persist: where the line went, or why it did not */
static void print_persisted(const char *line)
{
	char v[3 * 4096], esc[4 * sizeof(v)], no[24] = "?";

	if (revoke_kv_get(line, REVOKE_FIELD_REASON, v, sizeof(v))) {
		persist_failed = true;
		printf("  not written to the declared files: %s\n",
		       cli_esc_name(v, esc, sizeof(esc)));
		return;
	}
	if (!revoke_kv_get(line, REVOKE_FIELD_FILE, v, sizeof(v)))
		strcpy(v, "%3F");
	revoke_kv_get(line, REVOKE_FIELD_LINE, no, sizeof(no));
	printf("  declared in %s:%s\n", cli_esc_name(v, esc, sizeof(esc)), no);
}

/*
 * add's report: a line of counts, one line per failure and per holder
 * killed, then one per loop device and tty revoked with it.  Return 0,
 * EXIT_HOLDERS_LEFT if some holder could not be handled (a failure),
 * else EXIT_REACH_LEFT if some loop device or tty could not be revoked,
 * hung up or looked at.
 */
static int print_report(char *body)
{
	char *line = cli_output_next_line(&body);
	char v[9][24];
	static const char *const keys[9] = {
		REVOKE_FIELD_HOLDERS, REVOKE_FIELD_FDS, REVOKE_FIELD_MAPPINGS,
		REVOKE_FIELD_WAITERS, REVOKE_FIELD_WOKEN, REVOKE_FIELD_UNMAPPED,
		REVOKE_FIELD_RELEASED, REVOKE_FIELD_FAILED, REVOKE_FIELD_KILLED,
	};
	int i, status = 0;

	if (!line)
		return 0;
	if (json_output) {
		json_open("report", '{');
		json_fields(NULL, line);
		json_close('}');
		for (i = 0; i < (int)(sizeof(report_arrays) /
				      sizeof(report_arrays[0])); i++)
			json_lines(report_arrays[i].member, body,
				   report_arrays[i].word);
		/* add --persist's, there only if asked for */
		if (strstr(body, REVOKE_LINE_PERSISTED " "))
			json_lines("persisted", body, REVOKE_LINE_PERSISTED);
		while ((line = cli_output_next_line(&body))) {
			status = left_undone(line, status);
			if (cli_output_line_is(line, REVOKE_LINE_PERSISTED) &&
			    strstr(line, " " REVOKE_FIELD_REASON "="))
				persist_failed = true;
		}
		return status;
	}
	for (i = 0; i < 9; i++)
		if (!revoke_kv_get(line, keys[i], v[i], sizeof(v[i])))
			strcpy(v[i], i == 8 ? "0" : "?");
	printf("  holders %s: fds %s, mappings %s, waiters %s; woken %s, "
	       "unmapped %s, released %s; failed %s", v[0], v[1], v[2], v[3],
	       v[4], v[5], v[6], v[7]);
	if (strcmp(v[8], "0"))
		printf(", killed %s", v[8]);
	putchar('\n');
	while ((line = cli_output_next_line(&body))) {
		status = left_undone(line, status);
		if (cli_output_line_is(line, REVOKE_LINE_FAILURE))
			cli_holders_print(line, false);
		else if (cli_output_line_is(line, REVOKE_LINE_KILLED))
			cli_holders_print(line, true);
		else if (cli_output_line_is(line, REVOKE_LINE_SLOW))
			cli_holders_print_slow(line);
		else if (cli_output_line_is(line, REVOKE_LINE_PERSISTED))
			print_persisted(line);
		else
			print_reach(line);
	}
	return status;
}

/* Return 0, or what print_report() says was left undone. */
static int print_change(const char *word, char *body, const char *path)
{
	char *line = cli_output_next_line(&body);
	char dev[32] = "?", ino[32] = "?", also[64];
	const char *text = word;
	char esc[4 * 4096] = "";
	size_t i;
	int done;

	if (json_output) {
		json_open(NULL, '{');
		json_str("result", word);
		if (path)
			json_str(REVOKE_FIELD_PATH, path);
		if (line)
			json_fields(NULL, line);
		done = print_report(body);
		json_close('}');
		return done;
	}
	if (path)
		cli_esc(path, esc, sizeof(esc));
	for (i = 0; i < sizeof(change_text) / sizeof(change_text[0]); i++)
		if (!strcmp(word, change_text[i][0]))
			text = change_text[i][1];
	if (line) {
		revoke_kv_get(line, REVOKE_FIELD_DEV, dev, sizeof(dev));
		revoke_kv_get(line, REVOKE_FIELD_INO, ino, sizeof(ino));
	}
	if (line && revoke_kv_get(line, REVOKE_FIELD_OPEN_FD, also, sizeof(also))) {
		size_t c = strcspn(also, ":");

		printf("open file of pid %.*s, descriptor %s (dev %s ino %s): "
		       "%s\n", (int)c, also, also[c] ? also + c + 1 : "?", dev,
		       ino, text);
	} else if (line && revoke_kv_get(line, REVOKE_FIELD_FS, dev, sizeof(dev))) {
		char type[REVOKE_FSTYPE_LEN + 3] = "";

		if (revoke_kv_get(line, REVOKE_FIELD_FSTYPE, type + 2,
				  sizeof(type) - 3)) {
			type[0] = ' ';
			type[1] = '(';
			strcat(type, ")");
		}
		printf("filesystem %s%s%s%s: %s\n", dev, type,
		       path ? " of " : "", esc, text);
	} else if (line && revoke_kv_get(line, REVOKE_FIELD_RDEV, dev, sizeof(dev))) {
		char type[16] = "?", hung[16] = "";

		revoke_kv_get(line, REVOKE_FIELD_TYPE, type, sizeof(type));
		revoke_kv_get(line, REVOKE_FIELD_KERNEL_REVOKED, hung, sizeof(hung));
		printf("%s device %s: %s", type, dev, text);
		if (hung[0] && strcmp(hung, "0"))
			printf(" (%s hung up or revoked by the kernel)", hung);
		putchar('\n');
	} else if (path) {
		printf("%s: %s (dev %s ino %s", esc, text, dev, ino);
		/* an overlayfs file's other real file */
		if (line && revoke_kv_get(line, REVOKE_FIELD_ALSO, also, sizeof(also)))
			printf("; also %s", also);
		printf(")\n");
	}
	else if (strcmp(dev, "?"))
		printf("inode %s on %s: %s\n", ino, dev, text);
	else
		printf("inode %s: %s\n", ino, text);
	return print_report(body);
}


static int do_change(enum revoke_verb verb, int argc, char **argv)
{
	struct revoke_req req = { .verb = verb };
	struct revoke_target t;
	struct rbuf resp = {};
	const char *path;
	char *word, *body;
	int fd = -1, ret = 1;

	if (cli_target_parse(argc, argv, &req, &t))
		return CLI_EXIT_USAGE;
	path = t.operand;
	req.persist = t.persist;
	if (req.fs == REVOKE_FS_PATH) {
		if (cli_fs_target(path, &req, false, &fd))
			return CLI_EXIT_FAIL;
		path = req.path;
	} else if (path && (fd = cli_target_open(path, &req)) < 0) {
		return CLI_EXIT_FAIL;
	}
	/* this process standing on the filesystem would keep it mounted */
	if (verb == REVOKE_VERB_UMOUNT && cli_target_leave(fd)) {
		close(fd);
		return 1;
	}
	/* closes @fd */
	if (cli_call(&req, fd, &word, &body, &resp))
		goto out;
	/* 3 or 4: revoked, but something could not be handled */
	ret = print_change(word, body, path);
	/* add --persist: revoked, but not declared as asked */
	if (!ret && persist_failed)
		ret = 1;
out:
	rbuf_free(&resp);
	return ret;
}

/**
 * do_add() - revoke-bpf add: revoke an inode, a file or a device
 * @argc: number of arguments after the command
 * @argv: the arguments
 *
 * Return: 0, EXIT_REACH_LEFT or EXIT_HOLDERS_LEFT (see print_report()),
 * 1 if nothing was revoked, 2 on a usage error (nothing sent).
 */
int do_add(int argc, char **argv)
{
	return do_change(REVOKE_VERB_ADD, argc, argv);
}

/**
 * do_del() - revoke-bpf del: lift a revocation
 * @argc: number of arguments after the command
 * @argv: the arguments
 *
 * Return: 0, 1 on an error, 2 on a usage error (nothing sent).
 */
int do_del(int argc, char **argv)
{
	return do_change(REVOKE_VERB_DEL, argc, argv);
}

/**
 * do_umount() - revoke-bpf umount: forced unmount
 * @argc: number of arguments after the command
 * @argv: the arguments: FS (a mount point or the block device mounted
 *	there), --force and add's --timeout, --spare, --cause
 *
 * Return: 0 once the filesystem is gone; EXIT_REACH_LEFT if a mount, swap
 * file or loop device still holds it, EXIT_HOLDERS_LEFT if some holder
 * could not be handled; 1 if nothing was done; 2 on a usage error.
 */
int do_umount(int argc, char **argv)
{
	return do_change(REVOKE_VERB_UMOUNT, argc, argv);
}
