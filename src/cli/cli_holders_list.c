// SPDX-License-Identifier: GPL-2.0
/*
 * cli_holders_list.c - revoke-bpf holders PATH | --fs MOUNTPOINT: who
 * holds a file or a filesystem, and how, as a table like fuser -v's or
 * as a JSON array.
 *
 * --fs never touches the filesystem: MOUNTPOINT is made absolute by its
 * text alone and looked up in /proc/self/mountinfo, whose MAJ:MIN is sent
 * (fs=MAJ:MIN); no stat(), open() or realpath() on it, so that it answers
 * when the server or the device behind it is gone.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Room for the access letters "fmucre" and a NUL. */
#define HOLDERS_ACCESS_LEN 7

/*
 * @path made absolute by its text: the working directory before a
 * relative one, "." and empty components dropped, ".." taking one
 * away.  0, or -1 if it does not fit @out.
 */
static int holders_lexical(const char *path, char *out, size_t len)
{
	char buf[2 * PATH_MAX], *save, *c;
	size_t n = 0;

	if (path[0] == '/') {
		snprintf(buf, sizeof(buf), "%s", path);
	} else {
		if (!getcwd(buf, PATH_MAX))
			return -1;
		strcat(buf, "/");
		strncat(buf, path, sizeof(buf) - strlen(buf) - 1);
	}
	out[0] = '\0';
	for (c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			while (n > 0 && out[--n] != '/')
				;
			out[n] = '\0';
			continue;
		}
		if (n + 1 + strlen(c) + 1 > len)
			return -1;
		n += sprintf(out + n, "/%s", c);
	}
	if (!n)
		snprintf(out, len, "/");
	return 0;
}

/* A mountinfo field's octal escapes (\040 for a space...) undone in place. */
static void holders_unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

/*
 * The MAJ:MIN of the topmost mount at exactly @abs, from @mountinfo:
 * 0, or -ENOENT if nothing is mounted there, or another negative errno.
 */
static int holders_mount_dev(const char *mountinfo, const char *abs,
			     unsigned int *major, unsigned int *minor)
{
	char *line = NULL, *save, *f[5];
	size_t cap = 0;
	int i, found = -ENOENT;
	FILE *m;

	m = fopen(mountinfo, "re");
	if (!m)
		return -errno;
	while (getline(&line, &cap, m) > 0) {
		f[0] = strtok_r(line, " \n", &save);
		for (i = 1; i < 5 && f[i - 1]; i++)
			f[i] = strtok_r(NULL, " \n", &save);
		if (!f[0] || !f[4])
			continue;
		holders_unescape(f[4]);
		if (strcmp(f[4], abs) ||
		    sscanf(f[2], "%u:%u", major, minor) != 2)
			continue;
		found = 0;	/* a later one is mounted over it */
	}
	free(line);
	fclose(m);
	return found;
}

/* --fs MOUNTPOINT: its MAJ:MIN in @req; 0, or -1 after a message */
static int holders_fs_target(const char *mountpoint, struct revoke_req *req)
{
	char abs[PATH_MAX];
	int err;

	if (holders_lexical(mountpoint, abs, sizeof(abs))) {
		p_err("'%s': cannot make it an absolute path: %s", mountpoint,
		      errno ? strerror(errno) : "too long");
		return -1;
	}
	err = holders_mount_dev("/proc/self/mountinfo", abs, &req->fs_major,
				&req->fs_minor);
	if (err == -ENOENT) {
		p_err("%s is not a mount point", mountpoint);
		return -1;
	}
	if (err) {
		p_err("cannot read /proc/self/mountinfo: %s", strerror(-err));
		return -1;
	}
	req->fs = REVOKE_FS_DEV;
	return 0;
}

/* The operands: PATH or --fs MOUNTPOINT, and --json; 0 or -1 after a message */
static int holders_parse(int argc, char **argv, const char **operand,
			 bool *fs)
{
	int i;

	*operand = NULL;
	*fs = false;
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json_output = true;
		} else if (!strcmp(argv[i], "--fs")) {
			*fs = true;
		} else if (!strcmp(argv[i], "--") && i + 1 < argc &&
			   !*operand) {
			*operand = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			p_err("unknown option '%s'; try 'revoke-bpf holders "
			      "--help'", argv[i]);
			return -1;
		} else if (*operand) {
			p_err("unexpected extra operand '%s'", argv[i]);
			return -1;
		} else {
			*operand = argv[i];
		}
	}
	if (!*operand) {
		p_err(*fs ? "--fs needs a MOUNTPOINT" :
		      "missing PATH or --fs MOUNTPOINT");
		return -1;
	}
	return 0;
}

/* The access letters of a holder line: f m u c r e, as far as they apply. */
static void holders_access(const char *line, char out[HOLDERS_ACCESS_LEN])
{
	char v[24];
	size_t n = 0;

	if (revoke_kv_get(line, REVOKE_FIELD_FD, v, sizeof(v)) &&
	    strcmp(v, "-"))
		out[n++] = 'f';
	if (revoke_kv_get(line, REVOKE_FIELD_MAPPINGS, v, sizeof(v)) &&
	    strcmp(v, "0"))
		out[n++] = 'm';
	if (revoke_kv_get(line, REVOKE_FIELD_IO_URING, v, sizeof(v)) &&
	    strcmp(v, "0"))
		out[n++] = 'u';
	if (revoke_kv_get(line, REVOKE_FIELD_CWD, v, sizeof(v)) &&
	    !strcmp(v, "yes"))
		out[n++] = 'c';
	if (revoke_kv_get(line, REVOKE_FIELD_ROOT, v, sizeof(v)) &&
	    !strcmp(v, "yes"))
		out[n++] = 'r';
	if (revoke_kv_get(line, REVOKE_FIELD_EXE, v, sizeof(v)) &&
	    !strcmp(v, "yes"))
		out[n++] = 'e';
	out[n] = '\0';
}

/* The USER column: the name the daemon found through NSS, else the uid. */
static void holders_user(const char *line, char *out, size_t len)
{
	char v[3 * 256 + 1];

	if (revoke_kv_get(line, REVOKE_FIELD_USER, v, sizeof(v)))
		cli_esc_name(v, out, len);
	else if (!revoke_kv_get(line, REVOKE_FIELD_UID, out, len))
		snprintf(out, len, "?");
}

static void holders_print_text(char *body)
{
	char pid[24], user[64], comm[3 * 16 + 1], esc[4 * 16 + 8];
	char fds[4096], access[HOLDERS_ACCESS_LEN];
	char *line;

	printf("%-8s %-10s %-16s %-6s %s\n", "PID", "USER", "COMMAND",
	       "ACCESS", "FD");
	while ((line = cli_output_next_line(&body))) {
		if (!cli_output_line_is(line, REVOKE_LINE_HOLDER))
			continue;
		if (!revoke_kv_get(line, REVOKE_FIELD_PID, pid, sizeof(pid)))
			strcpy(pid, "?");
		if (!revoke_kv_get(line, REVOKE_FIELD_FD, fds, sizeof(fds)))
			strcpy(fds, "-");
		if (!revoke_kv_get(line, REVOKE_FIELD_COMM, comm, sizeof(comm)))
			strcpy(comm, "%3f");
		holders_user(line, user, sizeof(user));
		holders_access(line, access);
		printf("%-8s %-10s %-16s %-6s %s\n", pid, user,
		       cli_esc_name(comm, esc, sizeof(esc)), access, fds);
	}
}

/* holders --json: an array of the holders, every field typed, and access */
static void holders_print_json(char *body)
{
	char access[HOLDERS_ACCESS_LEN], *line;

	json_open(NULL, '[');
	while ((line = cli_output_next_line(&body))) {
		if (!cli_output_line_is(line, REVOKE_LINE_HOLDER))
			continue;
		holders_access(line, access);
		json_open(NULL, '{');
		json_fields(REVOKE_LINE_HOLDER,
			    line + strlen(REVOKE_LINE_HOLDER) + 1);
		json_str("access", access);
		json_close('}');
	}
	json_close(']');
}

/**
 * do_holders() - revoke-bpf holders PATH | --fs MOUNTPOINT [--json]
 * @argc: number of arguments after the command
 * @argv: the arguments
 *
 * PATH is sent as an O_PATH descriptor, as add sends it; --fs sends the
 * MAJ:MIN of the filesystem mounted at MOUNTPOINT, found without touching
 * it.  Prints one row per holding process: PID, USER, COMMAND, ACCESS
 * (f descriptor, m mapping, u io_uring, c current directory, r root
 * directory, e executable) and its descriptors; with --json an array of
 * objects.
 *
 * Return: 0, also when nothing holds it; 1 on an error.
 */
int do_holders(int argc, char **argv)
{
	struct revoke_req req = { .verb = REVOKE_VERB_HOLDERS };
	struct rbuf resp = {};
	const char *operand;
	char *word, *body;
	int fd = -1, ret = 1;
	bool fs;

	if (holders_parse(argc, argv, &operand, &fs))
		return 1;
	if (fs && holders_fs_target(operand, &req))
		return 1;
	if (!fs && (fd = cli_target_open(operand, &req)) < 0)
		return 1;
	/* closes @fd */
	if (cli_call(&req, fd, &word, &body, &resp))
		goto out;
	if (strcmp(word, REVOKE_OK_HOLDERS)) {
		p_err("unexpected answer 'ok %s' from revoke-bpfd", word);
		goto out;
	}
	/* the line naming the file or filesystem, then the holders */
	cli_output_next_line(&body);
	if (json_output)
		holders_print_json(body);
	else
		holders_print_text(body);
	ret = 0;
out:
	rbuf_free(&resp);
	return ret;
}
