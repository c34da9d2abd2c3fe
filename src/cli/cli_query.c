// SPDX-License-Identifier: GPL-2.0
/*
 * cli_query.c - the commands that name nothing: list, status and
 * unload (reload: cli_reload.c), and how their answers are shown.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/*
 * list's table: every column but the last fits 80 columns; the path (or
 * the cause of a device or filesystem) comes last, escaped.  The holder
 * counts are those the add found; nothing counts them again.
 */
#define LIST_ROW "%-5s %-9s %-10s %7s %-19s %-14s %s"

/* One row of LIST_ROW's columns, without spaces at its end. */
static void __attribute__((format(printf, 1, 2))) list_row(const char *fmt, ...)
{
	char row[8192];
	size_t n;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(row, sizeof(row), fmt, ap);
	va_end(ap);
	n = strlen(row);
	while (n && row[n - 1] == ' ')
		row[--n] = '\0';
	puts(row);
}

/* An optional field @key of @line, "-" when it is not there. */
static void list_get(const char *line, const char *key, char *v, size_t len)
{
	if (!revoke_kv_get(line, key, v, len))
		snprintf(v, len, "-");
}

/* revoked_at as local time, or "-" */
static void list_when(const char *line, char *out, size_t len)
{
	char at[32];

	list_get(line, REVOKE_FIELD_REVOKED_AT, at, sizeof(at));
	if (strcmp(at, "-") && strcmp(at, "0"))
		cli_output_time(out, len, strtoll(at, NULL, 10), -1, false);
	else
		snprintf(out, len, "-");
}

/* " [declared FILE:LINE]" after @last (of @len) if a declared line added it */
static void list_from(const char *line, char *last, size_t len)
{
	char from[3 * 300], esc[4 * 300];
	size_t n = strlen(last);

	if (revoke_kv_get(line, REVOKE_FIELD_FROM, from, sizeof(from)))
		snprintf(last + n, len - n, "%s[declared %s]", n ? " " : "",
			 cli_esc_name(from, esc, sizeof(esc)));
}

/* A revoked device: its type, its number, and why (a cause). */
static void list_device(const char *line)
{
	char type[16], rdev[32], rm[32], den[32], cause[64], when[40];
	char esc[256], last[1600];

	list_get(line, REVOKE_FIELD_TYPE, type, sizeof(type));
	list_get(line, REVOKE_FIELD_RDEV, rdev, sizeof(rdev));
	list_get(line, REVOKE_FIELD_REMOVED_AT, rm, sizeof(rm));
	list_get(line, REVOKE_FIELD_DENIALS, den, sizeof(den));
	list_get(line, REVOKE_FIELD_CAUSE, cause, sizeof(cause));
	list_when(line, when, sizeof(when));
	snprintf(last, sizeof(last), "%s%s%s", strcmp(rm, "0") ?
		 "(removed) " : "", strcmp(cause, "-") ? "cause=" : "",
		 strcmp(cause, "-") ? cli_esc(cause, esc, sizeof(esc)) : "");
	list_from(line, last, sizeof(last));
	list_row(LIST_ROW, type, rdev, "-", den, when, "-", last);
}

/* A revoked filesystem: every inode of it, "*". */
static void list_filesystem(const char *line)
{
	char fs[32], den[32], cause[64], when[40], esc[256], last[1600];

	list_get(line, REVOKE_FIELD_FS, fs, sizeof(fs));
	list_get(line, REVOKE_FIELD_DENIALS, den, sizeof(den));
	list_get(line, REVOKE_FIELD_CAUSE, cause, sizeof(cause));
	list_when(line, when, sizeof(when));
	snprintf(last, sizeof(last), "%s%s", strcmp(cause, "-") ? "cause=" :
		 "", strcmp(cause, "-") ? cli_esc(cause, esc, sizeof(esc)) : "");
	list_from(line, last, sizeof(last));
	list_row(LIST_ROW, "fs", fs, "*", den, when, "-", last);
}

/* A revoked open file (add --fd), while it lives: whose descriptor it was. */
static void list_fd(const char *line)
{
	char fd[40], dev[32], ino[32], den[32], when[40], pid[24], last[80];

	list_get(line, REVOKE_FIELD_OPEN_FD, fd, sizeof(fd));
	list_get(line, REVOKE_FIELD_DEV, dev, sizeof(dev));
	list_get(line, REVOKE_FIELD_INO, ino, sizeof(ino));
	list_get(line, REVOKE_FIELD_DENIALS, den, sizeof(den));
	list_when(line, when, sizeof(when));
	snprintf(pid, sizeof(pid), "%.*s", (int)strcspn(fd, ":"), fd);
	snprintf(last, sizeof(last), "(descriptor %s of pid %s)",
		 fd + strcspn(fd, ":") + (fd[strcspn(fd, ":")] ? 1 : 0), pid);
	list_row(LIST_ROW, "fd", dev, ino, den, when, "-", last);
}

/* A revoked inode (or a dead file): its holders at add, and its path. */
static void list_inode(const char *line)
{
	char dev[32], ino[32], kind[16], den[32], when[40], counts[80];
	char h[16], f[16], m[16], w[16], fl[16];
	char name[3 * REVOKE_NAME_MAX], esc[4 * REVOKE_NAME_MAX + 1400];

	list_get(line, REVOKE_FIELD_DEV, dev, sizeof(dev));
	list_get(line, REVOKE_FIELD_INO, ino, sizeof(ino));
	list_get(line, REVOKE_FIELD_KIND, kind, sizeof(kind));
	list_get(line, REVOKE_FIELD_DENIALS, den, sizeof(den));
	list_when(line, when, sizeof(when));
	list_get(line, REVOKE_FIELD_HOLDERS, h, sizeof(h));
	list_get(line, REVOKE_FIELD_FDS, f, sizeof(f));
	list_get(line, REVOKE_FIELD_MAPPINGS, m, sizeof(m));
	list_get(line, REVOKE_FIELD_WAITERS, w, sizeof(w));
	list_get(line, REVOKE_FIELD_FAILED, fl, sizeof(fl));
	if (strcmp(h, "-"))
		snprintf(counts, sizeof(counts), "%s/%s/%s/%s", h, f, m, w);
	else
		snprintf(counts, sizeof(counts), "-");
	if (revoke_kv_get(line, REVOKE_FIELD_PATH, name, sizeof(name)))
		cli_esc_name(name, esc, sizeof(esc) - 64);
	else
		snprintf(esc, sizeof(esc), "-");
	if (strcmp(fl, "-") && strcmp(fl, "0"))
		snprintf(esc + strlen(esc), 64, " (%s holders not handled)",
			 fl);
	list_from(line, esc, sizeof(esc));
	list_row(LIST_ROW, strcmp(kind, "dead") ? "inode" : "dead", dev, ino,
	       den, when, counts, esc);
}

/* The pauses' table: for whom, what, with which errno, since when. */
#define PAUSE_ROW "%-16s %-18s %-6s %7s %-19s %s"

/* Is @line a pause of a device, or of a class? */
static bool list_is_pause(const char *line)
{
	char kind[16];

	return revoke_kv_get(line, REVOKE_FIELD_KIND, kind, sizeof(kind)) &&
	       !strncmp(kind, "pause", 5);
}

/* A pause's class, "sound" or "uaccess seat0" (a tag), or "-"; true if a tag */
static bool list_pause_class(const char *line, char *out, size_t len)
{
	char tag[24], seat[40];

	if (revoke_kv_get(line, REVOKE_FIELD_TAG, tag, sizeof(tag)) &&
	    revoke_kv_get(line, REVOKE_FIELD_SEAT, seat, sizeof(seat))) {
		snprintf(out, len, "%s %s", tag, seat);
		return true;
	}
	list_get(line, REVOKE_FIELD_SUBSYSTEM, out, len);
	return false;
}

/* One pause: the user's name (or uid), the device or class, ... */
static void list_pause(const char *line)
{
	char who[3 * 64], esc[4 * 64], what[80], a[32], b[32], err[16];
	char den[32], at[32], when[40], cause[64], sub[72], last[160], rev[8];
	bool tag;

	if (revoke_kv_get(line, REVOKE_FIELD_USER, who, sizeof(who)))
		cli_esc_name(who, esc, sizeof(esc));
	else
		list_get(line, REVOKE_FIELD_UID, esc, sizeof(esc));
	list_get(line, REVOKE_FIELD_ERRNO, err, sizeof(err));
	list_get(line, REVOKE_FIELD_DENIALS, den, sizeof(den));
	list_get(line, REVOKE_FIELD_CAUSE, cause, sizeof(cause));
	list_get(line, REVOKE_FIELD_PAUSED_AT, at, sizeof(at));
	list_get(line, REVOKE_FIELD_REVOKED, rev, sizeof(rev));
	if (strcmp(at, "-") && strcmp(at, "0"))
		cli_output_time(when, sizeof(when), strtoll(at, NULL, 10), -1,
				false);
	else
		snprintf(when, sizeof(when), "-");
	tag = list_pause_class(line, sub, sizeof(sub));
	if (revoke_kv_get(line, REVOKE_FIELD_RDEV, b, sizeof(b))) {
		list_get(line, REVOKE_FIELD_TYPE, a, sizeof(a));
		snprintf(what, sizeof(what), "%s %s", a, b);
		snprintf(last, sizeof(last), "cause=%s%s%s%s", cause,
			 strcmp(sub, "-") ? (tag ? " tag=" : " class=") : "",
			 strcmp(sub, "-") ? sub : "",
			 strcmp(rev, "yes") ? "" : ", revoked");
	} else {
		snprintf(what, sizeof(what), "%s %s", tag ? "tag" : "class",
			 sub);
		snprintf(last, sizeof(last), "cause=%s%s, new devices too",
			 cause, strcmp(rev, "yes") ? "" : ", revoked");
		snprintf(den, sizeof(den), "-");
	}
	list_row(PAUSE_ROW, esc, what, err, den, when, last);
}

/* The second table: what is paused, and for whom. */
static void list_pauses(char *body)
{
	char *line;
	int n = 0;

	while ((line = cli_output_next_line(&body))) {
		if (!list_is_pause(line))
			continue;
		if (!n++)
			list_row(PAUSE_ROW, "PAUSED FOR", "DEVICE", "ERRNO",
				 "DENIALS", "PAUSED_AT", "");
		list_pause(line);
	}
}

/* --all: also the dead files; 0, or -1 after a message */
static int list_parse(int *argc, char **argv, bool *all)
{
	int i, n = 0;

	*all = false;
	for (i = 0; i < *argc; i++) {
		if (!strcmp(argv[i], "--all") || !strcmp(argv[i], "-a"))
			*all = true;
		else
			argv[n++] = argv[i];
	}
	*argc = n;
	return 0;
}

/* list --json: an array of the entries, every field typed */
static void list_json(char *body, bool all)
{
	char *line, kind[16];

	json_open(NULL, '[');
	while ((line = cli_output_next_line(&body))) {
		if (!all && revoke_kv_get(line, REVOKE_FIELD_KIND, kind,
					  sizeof(kind)) && !strcmp(kind, "dead"))
			continue;
		json_open(NULL, '{');
		json_fields(NULL, line);
		json_close('}');
	}
	json_close(']');
}

/**
 * do_list() - revoke-bpf list [--all]: what is revoked, as a table or JSON
 * @argc: number of arguments after the command
 * @argv: the arguments
 *
 * Dead files (the empty files add puts in a holder's place of a revoked
 * file's descriptors and mappings, revoked themselves, gone once the
 * holder closes them) are counted, and shown with --all.
 *
 * Return: 0; 1 on an error; 2 if given an operand.
 */
int do_list(int argc, char **argv)
{
	struct rbuf resp = {};
	char *body, *line, kind[16], *copy;
	int n = 0, dead = 0, paused = 0, ret;
	bool all;

	list_parse(&argc, argv, &all);
	ret = cli_query(REVOKE_VERB_LIST, argc, argv, &resp, &body);
	if (ret) {
		rbuf_free(&resp);
		return ret;
	}
	if (json_output) {
		list_json(body, all);
		rbuf_free(&resp);
		return 0;
	}
	copy = strdup(body);
	while ((line = cli_output_next_line(&body))) {
		list_get(line, REVOKE_FIELD_KIND, kind, sizeof(kind));
		if (list_is_pause(line)) {
			paused++;
			continue;
		}
		if (!strcmp(kind, "dead") && !all) {
			dead++;
			continue;
		}
		if (!n++)
			list_row(LIST_ROW, "KIND", "DEV", "INODE", "DENIALS",
			       "REVOKED_AT", "AT ADD:H/F/M/W", "PATH");
		if (revoke_kv_get(line, REVOKE_FIELD_RDEV, kind, sizeof(kind)))
			list_device(line);
		else if (revoke_kv_get(line, REVOKE_FIELD_FS, kind, sizeof(kind)))
			list_filesystem(line);
		else if (revoke_kv_get(line, REVOKE_FIELD_OPEN_FD, kind, sizeof(kind)))
			list_fd(line);
		else
			list_inode(line);
	}
	if (!n)
		printf("nothing is revoked\n");
	if (dead)
		printf("(%d dead file%s not shown: what holders' descriptors "
		       "and mappings of a revoked file now refer to, gone once "
		       "closed; 'list --all' shows them)\n", dead,
		       dead == 1 ? "" : "s");
	if (paused && copy) {
		putchar('\n');
		list_pauses(copy);
	}
	free(copy);
	rbuf_free(&resp);
	return 0;
}

/*
 * "N/M" programs attached: while something is revoked (enforcement
 * "attached"), anything but all of them is a problem; while nothing is,
 * none need be.
 */
static int check_attached(const char *attached, const char *enforcement)
{
	const char *slash = strchr(attached, '/');

	if (!strcmp(enforcement, "idle"))
		return 0;
	if (!strcmp(enforcement, "missing")) {
		p_err("something is revoked but the programs are not attached, "
		      "so nothing is denied; restart revoke-bpfd to attach them");
		return 1;
	}
	if (!slash || (size_t)(slash - attached) != strlen(slash + 1) ||
	    strncmp(attached, slash + 1, strlen(slash + 1))) {
		p_err("only %s programs are attached, so some operations are not "
		      "denied; restart revoke-bpfd to attach the rest", attached);
		return 1;
	}
	return 0;
}

/* status's answer, one field a line, and what of it the summary shows */
struct status_view {
	char *body;
	char enforcement[16], attached[32], skipped[16], entries[24];
	char capacity[24], devices[24], filesystems[24], bpf_lsm[16];
	char pauses[24], seats[256], open_files[24];
	char declared[24], applied[24], failed[24], hash[24];
	char kernel[128], pid[24], version[32], uptime[24], lost[24];
};

static void status_read(struct status_view *v)
{
	cli_output_field(v->body, REVOKE_FIELD_ENFORCEMENT, v->enforcement,
		   sizeof(v->enforcement));
	cli_output_field(v->body, REVOKE_FIELD_PROGRAMS_ATTACHED, v->attached,
		   sizeof(v->attached));
	cli_output_field(v->body, REVOKE_FIELD_PROGRAMS_SKIPPED, v->skipped,
		   sizeof(v->skipped));
	cli_output_field(v->body, REVOKE_FIELD_ENTRIES, v->entries, sizeof(v->entries));
	cli_output_field(v->body, REVOKE_FIELD_CAPACITY, v->capacity,
		   sizeof(v->capacity));
	cli_output_field(v->body, REVOKE_FIELD_DEVICES, v->devices, sizeof(v->devices));
	cli_output_field(v->body, REVOKE_FIELD_FILESYSTEMS, v->filesystems,
		   sizeof(v->filesystems));
	cli_output_field(v->body, REVOKE_FIELD_PAUSES, v->pauses, sizeof(v->pauses));
	cli_output_field(v->body, REVOKE_FIELD_OPEN_FILES, v->open_files,
			 sizeof(v->open_files));
	cli_output_field(v->body, REVOKE_FIELD_SEATS, v->seats, sizeof(v->seats));
	cli_output_field(v->body, REVOKE_FIELD_BPF_LSM, v->bpf_lsm, sizeof(v->bpf_lsm));
	cli_output_field(v->body, REVOKE_FIELD_KERNEL, v->kernel, sizeof(v->kernel));
	cli_output_field(v->body, REVOKE_FIELD_DAEMON_PID, v->pid, sizeof(v->pid));
	cli_output_field(v->body, REVOKE_FIELD_VERSION, v->version, sizeof(v->version));
	cli_output_field(v->body, REVOKE_FIELD_UPTIME_S, v->uptime, sizeof(v->uptime));
	cli_output_field(v->body, REVOKE_FIELD_EVENTS_LOST, v->lost, sizeof(v->lost));
	cli_output_field(v->body, REVOKE_FIELD_DECLARED, v->declared,
			 sizeof(v->declared));
	cli_output_field(v->body, REVOKE_FIELD_DECLARED_APPLIED, v->applied,
			 sizeof(v->applied));
	cli_output_field(v->body, REVOKE_FIELD_DECLARED_FAILED, v->failed,
			 sizeof(v->failed));
	cli_output_field(v->body, REVOKE_FIELD_DECLARED_HASH, v->hash,
			 sizeof(v->hash));
}

/* "s" after a count of @n things, but 1 */
static const char *plural(const char *n)
{
	return strcmp(n, "1") ? "s" : "";
}

/* seconds as "3 s", "4 min", "2 h", "5 d" */
static void status_uptime(const char *s, char *out, size_t len)
{
	unsigned long long t = strtoull(s, NULL, 10);

	if (t < 120)
		snprintf(out, len, "%llu s", t);
	else if (t < 7200)
		snprintf(out, len, "%llu min", t / 60);
	else if (t < 172800)
		snprintf(out, len, "%llu h", t / 3600);
	else
		snprintf(out, len, "%llu d", t / 86400);
}

/* The summary: six lines, one for the seats followed, one per problem. */
static void status_summary(const struct status_view *v)
{
	unsigned long long n = strtoull(v->entries, NULL, 10);
	unsigned long long cap = strtoull(v->capacity, NULL, 10);
	char up[32], esc[256];

	if (!strcmp(v->enforcement, "attached"))
		printf("%-12s attached: every revoked file, device and "
		       "filesystem is denied\n", "enforcement");
	else if (!strcmp(v->enforcement, "idle"))
		printf("%-12s idle: nothing is revoked, the programs are "
		       "detached\n", "enforcement");
	else
		printf("%-12s %s\n", "enforcement", cli_esc(v->enforcement, esc,
							      sizeof(esc)));
	printf("%-12s %s attached", "programs", v->attached);
	if (strcmp(v->skipped, "0") && strcmp(v->skipped, "?"))
		printf(", %s skipped (this kernel lacks their hook)", v->skipped);
	printf("\n%-12s %s inode%s, %s device%s, %s filesystem%s", "entries",
	       v->entries, plural(v->entries), v->devices, plural(v->devices),
	       v->filesystems, plural(v->filesystems));
	if (strcmp(v->open_files, "0") && strcmp(v->open_files, "?"))
		printf(", %s open file%s", v->open_files, plural(v->open_files));
	if (strcmp(v->pauses, "0") && strcmp(v->pauses, "?"))
		printf(", %s pause%s", v->pauses, plural(v->pauses));
	printf(" (room for %s inodes)\n", v->capacity);
	printf("%-12s %s\n", "BPF LSM", v->bpf_lsm);
	printf("%-12s %s\n", "kernel", cli_esc(v->kernel, esc, sizeof(esc)));
	status_uptime(v->uptime, up, sizeof(up));
	printf("%-12s pid %s, version %s, up %s\n", "revoke-bpfd", v->pid,
	       v->version, up);
	if (strcmp(v->seats, "-") && strcmp(v->seats, "?"))
		printf("%-12s %s: who has a session there but not the active "
		       "one is paused on its uaccess devices\n", "seats",
		       cli_esc(v->seats, esc, sizeof(esc)));
	if (strcmp(v->declared, "?"))
		cli_status_declared(v->declared, v->applied, v->failed, v->hash);
	if (strcmp(v->bpf_lsm, "active"))
		printf("%-12s BPF LSM is not active: nothing can be denied; "
		       "boot with bpf in lsm=\n", "problem");
	if (cap && n * 10 >= cap * 9)
		printf("%-12s the inode set is %llu%% full\n", "problem",
		       n * 100 / cap);
	if (strcmp(v->lost, "0") && strcmp(v->lost, "?"))
		printf("%-12s %s denial events were lost (the ring buffer was "
		       "full)\n", "problem", v->lost);
}

/* status -v: every field, "key value", as revoke-bpfd sends them */
static void status_verbose(char *body)
{
	char *line, *eq;

	while ((line = cli_output_next_line(&body))) {
		eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		printf("%-18s %s\n", line, eq + 1);
	}
}

/*
 * status --json: one object; a dotted key (program.NAME) is a member of
 * a nested object ("program": {"NAME": ...}), whose keys follow one
 * another in the answer.
 */
static void status_json(char *body)
{
	char *line, *eq, *dot, prefix[64] = "";

	json_open(NULL, '{');
	while ((line = cli_output_next_line(&body))) {
		eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		dot = strchr(line, '.');
		if (prefix[0] && (!dot || strncmp(line, prefix, strlen(prefix)) ||
				  dot - line != (long)strlen(prefix))) {
			json_close('}');
			prefix[0] = '\0';
		}
		if (dot && !prefix[0]) {
			snprintf(prefix, sizeof(prefix), "%.*s",
				 (int)(dot - line), line);
			json_open(prefix, '{');
		}
		json_field(NULL, dot ? dot + 1 : line, eq + 1);
	}
	if (prefix[0])
		json_close('}');
	json_close('}');
}

/**
 * do_status() - revoke-bpf status [-v|--verbose]: the daemon's state, a
 *	summary (at most 12 lines), every field (-v), or JSON
 * @argc: number of arguments after the command
 * @argv: the arguments
 *
 * Return: 0; 1 on an error or if some program is not attached; 2 if given
 * an operand.
 */
int do_status(int argc, char **argv)
{
	struct rbuf resp = {};
	struct status_view v = {};
	bool verbose = false;
	int i, n = 0, ret;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose"))
			verbose = true;
		else
			argv[n++] = argv[i];
	}
	ret = cli_query(REVOKE_VERB_STATUS, n, argv, &resp, &v.body);
	if (ret) {
		rbuf_free(&resp);
		return ret;
	}
	status_read(&v);
	if (json_output)
		status_json(v.body);
	else if (verbose)
		status_verbose(v.body);
	else
		status_summary(&v);
	rbuf_free(&resp);
	return check_attached(v.attached, v.enforcement);
}

/**
 * do_unload() - revoke-bpf unload --yes: detach everything; revoke-bpfd exits
 * @argc: number of arguments after the command
 * @argv: the arguments
 *
 * Return: 0; 1 on an error; 2 without --yes.
 */
int do_unload(int argc, char **argv)
{
	struct revoke_req req = { .verb = REVOKE_VERB_UNLOAD };
	struct rbuf resp = {};
	char *word, *body;
	int ret = 1;

	if (argc != 1 || strcmp(argv[0], "--yes")) {
		p_err("this detaches every program and lifts every revocation; "
		      "run 'revoke-bpf unload --yes' to do it");
		return CLI_EXIT_USAGE;
	}
	if (cli_call(&req, -1, &word, &body, &resp)) {
		ret = 1;
	} else if (json_output) {
		json_open(NULL, '{');
		json_str("result", REVOKE_OK_UNLOADED);
		json_close('}');
		ret = 0;
	} else {
		printf("unloaded: nothing is revoked or enforced any more, and "
		       "revoke-bpfd has exited\n");
		ret = 0;
	}
	rbuf_free(&resp);
	return ret;
}
