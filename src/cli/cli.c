// SPDX-License-Identifier: GPL-2.0
/*
 * cli.c - revoke-bpf, the administrator's command: turns arguments into
 * one control-socket request and prints the daemon's answer, as text or
 * with --json.
 *
 * Commands are a table of do_* functions, as in bpftool.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "cli_holders.h"
#include "ctl_client.h"
#include "common/key.h"

#ifndef REVOKE_VERSION
#define REVOKE_VERSION "0.0.0"
#endif

static const char *socket_path = REVOKE_SOCKET_PATH;
static bool json;
static const char *cmd_name = "";

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* How many bytes at @s make one UTF-8 character: 0 if malformed. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;

	if (*s < 0x80)
		return 1;
	if (*s >= 0xc2 && *s <= 0xdf)
		n = 2;
	else if (*s >= 0xe0 && *s <= 0xef)
		n = 3;
	else if (*s >= 0xf0 && *s <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/*
 * How many bytes at @s make one printable UTF-8 character: 0 for a
 * control character (C0, DEL, C1) or a malformed sequence.
 */
static size_t printable_len(const unsigned char *s)
{
	if (*s < 0x20 || *s == 0x7f || (s[0] == 0xc2 && s[1] < 0xa0))
		return 0;	/* C0, DEL, C1 (U+0080-U+009F) */
	return utf8_len(s);
}

/*
 * Print @msg on stderr as one line of text whatever the arguments held:
 * control characters and bytes that are not UTF-8 as \xNN, so that a
 * file name cannot move the cursor or break the line.
 */
static void put_escaped(const char *msg)
{
	const unsigned char *s = (const unsigned char *)msg;
	size_t n;

	while (*s) {
		n = printable_len(s);
		if (n) {
			fwrite(s, 1, n, stderr);
			s += n;
		} else {
			fprintf(stderr, "\\x%02x", *s++);
		}
	}
}

/* A one-line error: "revoke-bpf: CMD: what is wrong", at most 1 KiB. */
static void fail(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(msg))
		memcpy(msg + sizeof(msg) - 4, "...", 4);
	fprintf(stderr, "revoke-bpf: %s%s", cmd_name, *cmd_name ? ": " : "");
	put_escaped(msg);
	fputc('\n', stderr);
}

/* ---- output ---------------------------------------------------------- */

/*
 * A JSON string.  JSON is UTF-8: a byte that is not (a file name may hold
 * any) becomes U+FFFD, as jq and most decoders do.
 */
static void json_string(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	putchar('"');
	while (*s) {
		if (*s == '"' || *s == '\\') {
			printf("\\%c", *s++);
		} else if (*s < 0x20) {
			printf("\\u%04x", *s++);
		} else if ((n = utf8_len(s))) {
			fwrite(s, 1, n, stdout);
			s += n;
		} else {
			printf("\\ufffd");
			s++;
		}
	}
	putchar('"');
}

static bool is_number(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s) &&
	       (s[0] != '0' || !s[1]);
}

/* Print the key=value fields of @line as JSON members. */
static void json_fields(char *line, bool *first)
{
	char *cursor = line, *key, *val;

	while ((val = revoke_kv_next(&cursor, &key))) {
		printf("%s", *first ? "" : ",");
		*first = false;
		json_string(key);
		putchar(':');
		/* a name travels percent-encoded; it is shown as it is */
		if ((!strcmp(key, "path") || !strcmp(key, "comm")) &&
		    !revoke_pct_decode(val, val))
			json_string(val);
		else if (is_number(val))
			printf("%s", val);
		else
			json_string(val);
	}
}

/*
 * Split the response into its first line and the data lines.  An "err"
 * answer is printed as one line to stderr and returns -1.
 */
static int split_response(char *resp, char **word, char **body)
{
	char *nl = strchr(resp, '\n');

	if (!nl) {
		fail("malformed answer from revoke-bpfd");
		return -1;
	}
	*nl = '\0';
	*body = nl + 1;
	if (!strncmp(resp, "err ", 4)) {
		char *msg = strchr(resp + 4, ' ');

		fail("%s", msg ? msg + 1 : resp + 4);
		return -1;
	}
	if (strncmp(resp, "ok ", 3)) {
		fail("malformed answer from revoke-bpfd");
		return -1;
	}
	*word = resp + 3;
	return 0;
}

static char *next_line(char **body)
{
	char *line = *body, *nl;

	if (!*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*body = nl + 1;
	} else {
		*body = line + strlen(line);
	}
	return line;
}

static int call(const struct revoke_req *req, int send_fd, char **word,
		char **body, struct rbuf *resp)
{
	char err[512];

	if (ctl_call(socket_path, req, send_fd, resp, err, sizeof(err))) {
		fail("%s", err);
		return -1;
	}
	return split_response(resp->data, word, body);
}

/* ---- operands -------------------------------------------------------- */

/* The operands of add/del --rdev MAJ:MIN --char|--block. */
static int device_target(const char *operand, const char *devspec,
			 const char *rdevspec, struct revoke_req *req)
{
	if (operand || devspec) {
		fail("--rdev names a device by number; it takes no INODE, PATH "
		     "or --dev");
		return -1;
	}
	if (!rdevspec) {
		fail("--char, --block, --removed and --cause go with --rdev MAJ:MIN");
		return -1;
	}
	if (revoke_parse_devspec(rdevspec, &req->rdev_major, &req->rdev_minor)) {
		fail("invalid --rdev '%s': expected MAJ:MIN with major < 4096 "
		     "and minor < 1048576", rdevspec);
		return -1;
	}
	if (!req->rdev_type) {
		fail("--rdev needs --char or --block: the same numbers name "
		     "different devices of each kind");
		return -1;
	}
	req->has_rdev = true;
	return 0;
}

/*
 * add and del take INODE [--dev MAJ:MIN] or PATH.  Options are parsed by
 * hand so that "-5" is reported as a bad inode, not as an unknown option.
 */
static int parse_target(int argc, char **argv, struct revoke_req *req,
			const char **path)
{
	const char *operand = NULL, *devspec = NULL, *rdevspec = NULL;
	int i, err;

	*path = NULL;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--rdev")) {
			if (++i == argc) {
				fail("--rdev needs a value MAJ:MIN");
				return -1;
			}
			rdevspec = argv[i];
		} else if (!strcmp(a, "--char") || !strcmp(a, "--block")) {
			if (req->rdev_type) {
				fail("give one of --char and --block");
				return -1;
			}
			req->rdev_type = a[2] == 'c' ? REVOKE_RDEV_CHAR :
						       REVOKE_RDEV_BLOCK;
		} else if (req->verb == REVOKE_VERB_ADD && !strcmp(a, "--removed")) {
			req->removed = true;
		} else if (req->verb == REVOKE_VERB_ADD && !strcmp(a, "--cause")) {
			if (++i == argc || revoke_parse_cause(argv[i], req->cause,
							      sizeof(req->cause))) {
				fail("--cause needs one word of 1 to 31 letters, "
				     "digits or _.:-");
				return -1;
			}
		} else if (!strcmp(a, "--dev")) {
			if (++i == argc) {
				fail("--dev needs a value MAJ:MIN");
				return -1;
			}
			devspec = argv[i];
		} else if (!strncmp(a, "--dev=", 6)) {
			devspec = a + 6;
		} else if (req->verb == REVOKE_VERB_ADD &&
			   (!strcmp(a, "--release") || !strcmp(a, "--no-release"))) {
			req->has_release = true;
			req->release = a[2] == 'r' ? REVOKE_RELEASE_YES :
						     REVOKE_RELEASE_NO;
		} else if (req->verb == REVOKE_VERB_ADD && !strcmp(a, "--spare")) {
			req->spare = true;
		} else if (req->verb == REVOKE_VERB_ADD && !strcmp(a, "--timeout")) {
			if (++i == argc ||
			    revoke_parse_timeout_ms(argv[i], &req->timeout_ms)) {
				fail("--timeout needs a number of milliseconds from 1 "
				     "to %d", REVOKE_TIMEOUT_MAX_MS);
				return -1;
			}
		} else if (!strcmp(a, "--") && i + 1 < argc && !operand) {
			operand = argv[++i];
		} else if (a[0] == '-' && !revoke_looks_numeric(a)) {
			fail("unknown option '%s'; try 'revoke-bpf help'", a);
			return -1;
		} else if (operand) {
			fail("unexpected extra operand '%s'", a);
			return -1;
		} else {
			operand = a;
		}
	}
	if (rdevspec || req->rdev_type || req->removed || req->cause[0])
		return device_target(operand, devspec, rdevspec, req);
	if (!operand) {
		fail("missing INODE or PATH; try 'revoke-bpf help'");
		return -1;
	}
	if (devspec) {
		err = revoke_parse_devspec(devspec, &req->major, &req->minor);
		if (err) {
			fail("invalid --dev '%s': expected MAJ:MIN with major < 4096 "
			     "and minor < 1048576", devspec);
			return -1;
		}
		req->has_dev = true;
	}
	if (!revoke_looks_numeric(operand)) {
		if (devspec) {
			fail("--dev names the filesystem of an INODE; it cannot be "
			     "used with a PATH");
			return -1;
		}
		*path = operand;
		return 0;
	}
	err = revoke_parse_ino(operand, &req->ino);
	if (err) {
		fail("invalid inode '%s': %s", operand,
		     err == -ERANGE ? "out of range (at most 18446744073709551615)"
				    : "not a positive integer");
		return -1;
	}
	req->has_ino = true;
	return 0;
}

/*
 * The request names @path by a descriptor of it, which the daemon asks
 * the kernel about (never stat(2)'s st_dev and st_ino: on btrfs and
 * overlayfs they are not what the kernel's hooks see).  O_PATH: nothing
 * is opened for reading, no device's open routine runs.  @path travels
 * too, made absolute, for list.
 *
 * Return: the descriptor, or -1 after a message.
 */
static int target_from_path(const char *path, struct revoke_req *req)
{
	char cwd[PATH_MAX];
	struct stat st;
	int fd, n;

	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		fail("cannot open '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode)) {
		fail(S_ISDIR(st.st_mode) ?
		     "'%s' is a directory; revoke-bpf revokes files and devices, "
		     "not directories" :
		     "'%s' is a socket; connecting to it is not a file operation "
		     "and cannot be revoked", path);
		close(fd);
		return -1;
	}
	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		n = snprintf(req->path, sizeof(req->path), "%s", path);
	else
		n = snprintf(req->path, sizeof(req->path), "%s/%s",
			     strcmp(cwd, "/") ? cwd : "", path);
	/* too long to show whole: its end says more than its start */
	if (n >= (int)sizeof(req->path))
		snprintf(req->path, sizeof(req->path), "...%s",
			 path + strlen(path) - (sizeof(req->path) - 4));
	req->has_path = true;
	return fd;
}

/* ---- commands -------------------------------------------------------- */

static const char *const change_text[][2] = {
	{ "added", "revoked" },
	{ "already", "already revoked" },
	{ "deleted", "no longer revoked" },
	{ "absent", "was not revoked" },
};

/* The lines of @body that begin with @prefix, as a JSON array of objects. */
static void json_lines(const char *name, const char *body, const char *prefix)
{
	char *copy = strdup(body), *cursor = copy, *line;
	bool first = true;

	printf(",\"%s\":[", name);
	while (copy && (line = next_line(&cursor))) {
		bool f = true;

		if (strncmp(line, prefix, strlen(prefix)))
			continue;
		printf("%s{", first ? "" : ",");
		json_fields(line + strlen(prefix), &f);
		putchar('}');
		first = false;
	}
	putchar(']');
	free(copy);
}

/* A tty or loop line that says something was not done. */
static bool not_done(const char *line)
{
	char v[48];

	return (!strncmp(line, "tty ", 4) &&
		revoke_kv_get(line, "hungup", v, sizeof(v)) && strcmp(v, "yes")) ||
	       (!strncmp(line, "loop ", 5) &&
		revoke_kv_get(line, "reason", v, sizeof(v)));
}

/* A loop device, a tty or an io_uring instance, as text. */
static void print_reach(const char *line)
{
	char rdev[32] = "?", rel[16] = "0", why[64] = "";
	char pid[24] = "?", fd[24] = "?", files[24] = "0", bufs[24] = "0";

	if (!strncmp(line, "io_uring ", 9)) {
		revoke_kv_get(line, "pid", pid, sizeof(pid));
		revoke_kv_get(line, "fd", fd, sizeof(fd));
		revoke_kv_get(line, "files", files, sizeof(files));
		revoke_kv_get(line, "buffers", bufs, sizeof(bufs));
		printf("  io_uring of pid %s (fd %s): fixed files %s, buffers "
		       "%s taken away\n", pid, fd, files, bufs);
		return;
	}

	revoke_kv_get(line, "rdev", rdev, sizeof(rdev));
	revoke_kv_get(line, "released", rel, sizeof(rel));
	revoke_kv_get(line, "reason", why, sizeof(why));
	if (!strncmp(line, "tty ", 4))
		printf("  tty %s: %s%s\n", rdev, why[0] ? "not hung up: " :
		       "hung up", why);
	else if (revoke_kv_get(line, "scan", rel, sizeof(rel)))
		printf("  loop devices: not all looked at: %s\n", why);
	else
		printf("  loop device %s: %s, %s, released %s%s%s\n", rdev,
		       not_done(line) && strstr(line, "denied=no") ?
		       "not denied" : "denied",
		       strstr(line, "detached=yes") ? "detached" :
		       "still bound", rel, why[0] ? "; failed: " : "", why);
}

/* Exit statuses of add (documented in revoke-bpf(8) and its --help). */
#define EXIT_REACH_LEFT 3	/* a loop device or tty was not handled */
#define EXIT_HOLDERS_LEFT 4	/* some holder may keep its access */

/* What the lines after the counts leave undone: 0 or an exit status. */
static int left_undone(const char *line, int status)
{
	if (!strncmp(line, "failure ", 8))
		return EXIT_HOLDERS_LEFT;
	if (not_done(line) && status != EXIT_HOLDERS_LEFT)
		return EXIT_REACH_LEFT;
	return status;
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
	char *line = next_line(&body);
	bool first = true;
	char v[9][24];
	static const char *const keys[9] = { "holders", "fds", "mappings",
		"waiters", "woken", "unmapped", "released", "failed", "killed" };
	int i, status = 0;

	if (!line)
		return 0;
	if (json) {
		printf(",\"report\":{");
		json_fields(line, &first);
		putchar('}');
		json_lines("failures", body, "failure ");
		json_lines("killed", body, "killed ");
		json_lines("loops", body, "loop ");
		json_lines("ttys", body, "tty ");
		json_lines("io_uring", body, "io_uring ");
		while ((line = next_line(&body)))
			status = left_undone(line, status);
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
	while ((line = next_line(&body))) {
		status = left_undone(line, status);
		if (!strncmp(line, "failure ", 8))
			cli_holders_print(line, false);
		else if (!strncmp(line, "killed ", 7))
			cli_holders_print(line, true);
		else
			print_reach(line);
	}
	return status;
}

/* Return 0, or what print_report() says was left undone. */
static int print_change(const char *word, char *body, const char *path)
{
	char *line = next_line(&body);
	char dev[32] = "?", ino[32] = "?", also[64];
	const char *text = word;
	bool first = false;
	size_t i;
	int done;

	if (json) {
		printf("{\"result\":");
		json_string(word);
		if (path) {
			printf(",\"path\":");
			json_string(path);
		}
		if (line)
			json_fields(line, &first);
		done = print_report(body);
		printf("}\n");
		return done;
	}
	for (i = 0; i < sizeof(change_text) / sizeof(change_text[0]); i++)
		if (!strcmp(word, change_text[i][0]))
			text = change_text[i][1];
	if (line) {
		revoke_kv_get(line, "dev", dev, sizeof(dev));
		revoke_kv_get(line, "ino", ino, sizeof(ino));
	}
	if (line && revoke_kv_get(line, "rdev", dev, sizeof(dev))) {
		char type[16] = "?", hung[16] = "";

		revoke_kv_get(line, "type", type, sizeof(type));
		revoke_kv_get(line, "kernel_revoked", hung, sizeof(hung));
		printf("%s device %s: %s", type, dev, text);
		if (hung[0] && strcmp(hung, "0"))
			printf(" (%s hung up or revoked by the kernel)", hung);
		putchar('\n');
	} else if (path) {
		printf("%s: %s (dev %s ino %s", path, text, dev, ino);
		/* an overlayfs file's other real file */
		if (line && revoke_kv_get(line, "also", also, sizeof(also)))
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
	struct rbuf resp = {};
	const char *path;
	char *word, *body;
	int fd = -1, ret = 1;

	if (parse_target(argc, argv, &req, &path))
		return 1;
	if (path && (fd = target_from_path(path, &req)) < 0)
		return 1;
	/* closes @fd */
	if (call(&req, fd, &word, &body, &resp))
		goto out;
	/* 3 or 4: revoked, but something could not be handled */
	ret = print_change(word, body, path);
out:
	rbuf_free(&resp);
	return ret;
}

static int do_add(int argc, char **argv)
{
	return do_change(REVOKE_VERB_ADD, argc, argv);
}

static int do_del(int argc, char **argv)
{
	return do_change(REVOKE_VERB_DEL, argc, argv);
}

static int no_operands(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
			continue;
		}
		fail("unexpected argument '%s'", argv[i]);
		return -1;
	}
	return 0;
}

static int query(enum revoke_verb verb, int argc, char **argv,
		 struct rbuf *resp, char **body)
{
	struct revoke_req req = { .verb = verb };
	char *word;

	if (no_operands(argc, argv))
		return -1;
	return call(&req, -1, &word, body, resp);
}

/* A revoked device in list: its type and removal stand in the INODE column. */
static void print_device(const char *line, const char *rdev)
{
	char type[16] = "", at[32] = "", den[32] = "", rm[32] = "0";
	char cause[40] = "", what[40];

	revoke_kv_get(line, "type", type, sizeof(type));
	revoke_kv_get(line, "revoked_at", at, sizeof(at));
	revoke_kv_get(line, "removed_at", rm, sizeof(rm));
	revoke_kv_get(line, "denials", den, sizeof(den));
	revoke_kv_get(line, "cause", cause, sizeof(cause));
	snprintf(what, sizeof(what), "%s%s", type, strcmp(rm, "0") ?
		 ",removed" : "");
	printf("%-12s %-20s %-8s %-12s %-10s cause=%s\n", rdev, what, "device",
	       den, at, cause);
}

static int do_list(int argc, char **argv)
{
	struct rbuf resp = {};
	char *body, *line;
	bool first = true;
	int n = 0;

	if (query(REVOKE_VERB_LIST, argc, argv, &resp, &body)) {
		rbuf_free(&resp);
		return 1;
	}
	if (json)
		putchar('[');
	while ((line = next_line(&body))) {
		char dev[32] = "", ino[32] = "", at[32] = "", den[32] = "";
		char kind[16] = "", h[16], f[16] = "", m[16] = "", w[16] = "";
		char fl[16] = "", counts[80], name[3 * REVOKE_NAME_MAX] = "-";
		bool fj = true;

		if (json) {
			printf("%s{", first ? "" : ",");
			json_fields(line, &fj);
			putchar('}');
			first = false;
			continue;
		}
		if (!n++)
			printf("%-12s %-20s %-8s %-12s %-10s %-30s %-6s %s\n",
			       "DEV", "INODE", "KIND", "DENIALS", "REVOKED_AT",
			       "HOLDERS/FDS/MAPS/WAITERS", "FAILED", "PATH");
		if (revoke_kv_get(line, "rdev", dev, sizeof(dev))) {
			print_device(line, dev);
			continue;
		}
		revoke_kv_get(line, "dev", dev, sizeof(dev));
		revoke_kv_get(line, "ino", ino, sizeof(ino));
		revoke_kv_get(line, "kind", kind, sizeof(kind));
		revoke_kv_get(line, "revoked_at", at, sizeof(at));
		revoke_kv_get(line, "denials", den, sizeof(den));
		if (revoke_kv_get(line, "holders", h, sizeof(h))) {
			revoke_kv_get(line, "fds", f, sizeof(f));
			revoke_kv_get(line, "mappings", m, sizeof(m));
			revoke_kv_get(line, "waiters", w, sizeof(w));
			revoke_kv_get(line, "failed", fl, sizeof(fl));
			snprintf(counts, sizeof(counts), "%s/%s/%s/%s", h, f, m, w);
		} else {
			strcpy(counts, "-");
			strcpy(fl, "-");
		}
		if (revoke_kv_get(line, "path", name, sizeof(name)) &&
		    revoke_pct_decode(name, name))
			strcpy(name, "?");
		printf("%-12s %-20s %-8s %-12s %-10s %-30s %-6s %s\n", dev, ino,
		       kind, den, at, counts, fl, name);
	}
	if (json)
		printf("]\n");
	else if (!n)
		printf("nothing is revoked\n");
	rbuf_free(&resp);
	return 0;
}

static int check_attached(const char *attached);

static int do_status(int argc, char **argv)
{
	struct rbuf resp = {};
	char *body, *line, attached[32] = "";
	bool first = true;

	if (query(REVOKE_VERB_STATUS, argc, argv, &resp, &body)) {
		rbuf_free(&resp);
		return 1;
	}
	if (json)
		putchar('{');
	while ((line = next_line(&body))) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		if (!strncmp(line, "programs_attached=", 18))
			snprintf(attached, sizeof(attached), "%s", eq + 1);
		if (json) {
			json_fields(line, &first);
			continue;
		}
		*eq = '\0';
		printf("%-18s %s\n", line, eq + 1);
	}
	if (json)
		printf("}\n");
	rbuf_free(&resp);
	return check_attached(attached);
}

/* "N/M" programs attached: anything but all of them is a problem. */
static int check_attached(const char *attached)
{
	const char *slash = strchr(attached, '/');

	if (!slash || (size_t)(slash - attached) != strlen(slash + 1) ||
	    strncmp(attached, slash + 1, strlen(slash + 1))) {
		fail("only %s programs are attached, so some operations are not "
		     "denied; restart revoke-bpfd to attach the rest", attached);
		return 1;
	}
	return 0;
}

static volatile sig_atomic_t stop_events;

static void on_stop(int sig)
{
	(void)sig;
	stop_events = 1;
}

static void print_event(char *line)
{
	bool first = true;

	if (json) {
		putchar('{');
		json_fields(line, &first);
		printf("}\n");
	} else {
		printf("%s\n", line);
	}
	fflush(stdout);
}

/*
 * Stream denials until interrupted, or until --count N have been shown.
 * The connection is read line by line as the daemon writes it.
 */
static int do_events(int argc, char **argv)
{
	struct revoke_req req = { .verb = REVOKE_VERB_EVENTS };
	uint64_t count = 0, seen = 0;
	char err[512], *line = NULL;
	size_t cap = 0;
	int fd, i, ret = 1;
	FILE *fp;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--count") && i + 1 < argc) {
			if (revoke_parse_u64(argv[++i], &count) || !count) {
				fail("--count '%s' is not a positive number", argv[i]);
				return 1;
			}
		} else {
			fail("unexpected argument '%s'", argv[i]);
			return 1;
		}
	}
	fd = ctl_open(socket_path, &req, -1, err, sizeof(err));
	if (fd < 0) {
		fail("%s", err);
		return 1;
	}
	if (ctl_wait_reply(fd, req.verb, err, sizeof(err))) {
		fail("%s", err);
		close(fd);
		return 1;
	}
	fp = fdopen(fd, "r");
	if (!fp) {
		fail("fdopen: %s", strerror(errno));
		close(fd);
		return 1;
	}
	if (getline(&line, &cap, fp) < 0) {
		fail("revoke-bpfd closed the connection");
		goto out;
	}
	line[strcspn(line, "\n")] = '\0';
	if (strcmp(line, "ok events")) {
		char *msg = strncmp(line, "err ", 4) ? NULL : strchr(line + 4, ' ');

		fail("%s", msg ? msg + 1 : "malformed answer from revoke-bpfd");
		goto out;
	}
	ret = 0;
	/* no SA_RESTART: a signal must end the blocking read */
	sigaction(SIGINT, &(struct sigaction){ .sa_handler = on_stop }, NULL);
	sigaction(SIGTERM, &(struct sigaction){ .sa_handler = on_stop }, NULL);
	while (!stop_events && getline(&line, &cap, fp) > 0) {
		line[strcspn(line, "\n")] = '\0';
		print_event(line);
		if (count && ++seen == count)
			break;
	}
out:
	free(line);
	fclose(fp);
	return ret;
}

static int do_unload(int argc, char **argv)
{
	struct revoke_req req = { .verb = REVOKE_VERB_UNLOAD };
	struct rbuf resp = {};
	char *word, *body;
	int ret = 1;

	if (argc != 1 || strcmp(argv[0], "--yes")) {
		fail("this detaches every program and lifts every revocation; "
		     "run 'revoke-bpf unload --yes' to do it");
		return 1;
	}
	if (!call(&req, -1, &word, &body, &resp)) {
		printf("unloaded: nothing is revoked or enforced any more, and "
		       "revoke-bpfd has exited\n");
		ret = 0;
	}
	rbuf_free(&resp);
	return ret;
}

/*
 * The udev rule's RUN program: hand the event in the environment to
 * revoke-bpfd and return at once, without waiting for the revocation
 * (udev kills RUN programs that take long; the daemon does the work).
 */
static int do_uevent(int argc, char **argv)
{
	extern char **environ;
	struct revoke_req req = { .verb = REVOKE_VERB_UEVENT };
	const char *action = getenv("ACTION"), *sub = getenv("SUBSYSTEM");
	const char *maj = getenv("MAJOR"), *min = getenv("MINOR");
	char spec[64], err[512];
	char **e;
	int fd;

	(void)argv;
	if (argc) {
		fail("takes no arguments: udev passes the event in the "
		     "environment");
		return 1;
	}
	if (!action || !sub || !maj || !min) {
		fail("ACTION, SUBSYSTEM, MAJOR and MINOR must be set, as udev's "
		     "RUN+= sets them for a device node");
		return 1;
	}
	if (revoke_req_uevent(&req, action, sub, maj, min)) {
		snprintf(spec, sizeof(spec), "%s:%s", maj, min);
		fail("ACTION '%.32s' or MAJOR:MINOR '%.40s' is malformed", action,
		     spec);
		return 1;
	}
	for (e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');

		/* what cannot be a udev property (a lower-case name, a
		 * newline in the value) is skipped; when full, the first
		 * properties are kept */
		if (eq && revoke_req_add_prop(&req, *e, (size_t)(eq - *e),
					      eq + 1) == -ENOSPC)
			break;
	}
	/* a request too long for the socket keeps the first properties */
	while ((fd = ctl_open(socket_path, &req, -1, err, sizeof(err))) == -ENOSPC &&
	       req.nprops)
		req.nprops /= 2;
	if (fd < 0) {
		fail("%s", err);
		return 1;
	}
	close(fd);
	return 0;
}

static int do_reload(int argc, char **argv)
{
	struct rbuf resp = {};
	char *body, *line;
	int ret = 1;

	if (query(REVOKE_VERB_RELOAD, argc, argv, &resp, &body))
		goto out;
	line = next_line(&body);
	printf("%s\n", line ? line : "reloaded");
	ret = 0;
out:
	rbuf_free(&resp);
	return ret;
}

static int do_help(int argc, char **argv);

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *args;
	const char *help;
};

static const struct cmd cmds[] = {
	{ "add", do_add,
	  "INODE [--dev MAJ:MIN] | PATH | --rdev MAJ:MIN --char|--block "
	  "[--removed] [--cause WORD] [--release|--no-release] [--timeout MS] "
	  "[--spare]",
	  "revoke an inode: every open, read, write, mmap, ioctl, lock, fcntl and "
	  "truncate on it fails with EIO, blocked callers are woken, mappings "
	  "fault with SIGBUS, and (--release; the default for devices, FIFOs and "
	  "sockets) descriptors are replaced by a dead file.  With --rdev, revoke "
	  "a device through every node of that number (ttys are hung up and "
	  "evdev nodes revoked by the kernel too); --removed says the device "
	  "instance is gone, so that a new device with the same number works "
	  "while every file of the old one stays revoked.  A holder whose access "
	  "cannot be taken away (traced by another process, never stopping, "
	  "forking faster than it is stopped) is killed and named, unless "
	  "--spare (or the policy's 'holders spare') leaves it alive as a "
	  "failure.  Exit status: 0 every access is gone; 3 a loop device or "
	  "tty could not be handled; 4 some holder could not be handled (it is "
	  "named); 1 nothing was revoked" },
	{ "del", do_del, "INODE [--dev MAJ:MIN] | PATH | --rdev MAJ:MIN --char|--block",
	  "lift a revocation" },
	{ "list", do_list, "[--json]", "show the revoked inodes" },
	{ "status", do_status, "[--json]",
	  "show whether enforcement is active and the daemon is running" },
	{ "events", do_events, "[--json] [--count N]",
	  "stream every denied operation as it happens" },
	{ "uevent", do_uevent, "",
	  "for the udev rule: hand the device event in the environment "
	  "(ACTION, SUBSYSTEM, MAJOR, MINOR and the properties) to revoke-bpfd, "
	  "which revokes a removed device if its policy says so, and return at "
	  "once" },
	{ "reload", do_reload, "",
	  "reread revoke-bpfd's policy file; a bad one is refused with its line "
	  "number, and the policy in force is kept" },
	{ "unload", do_unload, "--yes",
	  "detach everything and lift every revocation; revoke-bpfd exits" },
	{ "help", do_help, "", "show this help" },
};

static int cmd_help(const struct cmd *c)
{
	printf("Usage: revoke-bpf [--socket PATH] [--reply-timeout S] %s %s\n\n%s.\n", c->name,
	       c->args, c->help);
	return 0;
}

static int do_help(int argc, char **argv)
{
	size_t i;

	(void)argc;
	(void)argv;
	printf("Usage: revoke-bpf [--socket PATH] [--reply-timeout S] [--json] "
	       "COMMAND [ARGS]\n\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		printf("  revoke-bpf %-7s %-30s %s\n", cmds[i].name, cmds[i].args,
		       cmds[i].help);
	printf("\nAn INODE without --dev must be open or mapped by some process on\n"
	       "exactly one filesystem.  A file whose name is all digits is named\n"
	       "./NAME.  Talks to revoke-bpfd on %s.\n"
	       "--reply-timeout S (default %d; 0: no limit) bounds each wait for\n"
	       "revoke-bpfd: connecting, its reading the request, and its reply,\n"
	       "except the reply to add, which takes as long as the holders do;\n"
	       "a wait that times out is named, and the command exits 1.\n",
	       REVOKE_SOCKET_PATH, CTL_CLIENT_TIMEOUT_DEFAULT_MS / 1000);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "reply-timeout", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	struct sockaddr_un sun;
	uint64_t secs;
	size_t i;
	int c;

	while ((c = getopt_long(argc, argv, "+jhV", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (!*optarg || strlen(optarg) >= sizeof(sun.sun_path)) {
				fail("--socket needs the path of revoke-bpfd's "
				     "control socket, 1 to %zu bytes",
				     sizeof(sun.sun_path) - 1);
				return 2;
			}
			socket_path = optarg;
			break;
		case 't':
			if (revoke_parse_u64(optarg, &secs) || secs > 86400) {
				fail("--reply-timeout needs a number of seconds from "
				     "0 (no limit) to 86400");
				return 2;
			}
			ctl_client_set_timeout((unsigned int)secs * 1000);
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			return do_help(0, NULL);
		case 'V':
			printf("revoke-bpf %s\n", REVOKE_VERSION);
			return 0;
		default:
			fprintf(stderr, "Try 'revoke-bpf help'.\n");
			return 2;
		}
	}
	if (optind == argc) {
		do_help(0, NULL);
		return 2;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (!strcmp(argv[optind], cmds[i].name)) {
			cmd_name = cmds[i].name;
			if (optind + 1 < argc && !strcmp(argv[optind + 1], "--help"))
				return cmd_help(&cmds[i]);
			return cmds[i].fn(argc - optind - 1, argv + optind + 1);
		}
	}
	fprintf(stderr, "revoke-bpf: unknown command '%s'; try 'revoke-bpf help'\n",
		argv[optind]);
	return 2;
}
