// SPDX-License-Identifier: GPL-2.0
/*
 * cli_holders_list.c - revoke-bpf holders PATH | --fs FS: who holds a
 * file or a filesystem, and how, as a table like fuser -v's or as a JSON
 * array.
 *
 * --fs of a mount point never touches the filesystem: it is made
 * absolute by its text alone and looked up in /proc/self/mountinfo, whose
 * MAJ:MIN is sent (fs=MAJ:MIN); no stat(), open() or realpath() on it, so
 * that it answers when the server or the device behind it is gone.  A
 * block device names the filesystem mounted from it, the same way; any
 * other file is sent as a descriptor (fs=yes), as add sends it
 * (cli_fs.c).
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

/* -s, --quiet: nothing printed, the exit status says (fuser -s) */
static bool holders_quiet;

/* The operands: PATH or --fs FS, and -s; 0 or -1 after a message */
static int holders_parse(int argc, char **argv, const char **operand,
			 bool *fs)
{
	int i;

	*operand = NULL;
	*fs = false;
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-s") || !strcmp(argv[i], "--quiet")) {
			holders_quiet = true;
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
		p_err(*fs ? "--fs needs FS: a mount point, a file on the "
		      "filesystem or the block device it is mounted from" :
		      "missing PATH or --fs FS");
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

/* How many holder lines @body has, left as it is. */
static int holders_count(const char *body)
{
	size_t n = strlen(REVOKE_LINE_HOLDER);
	int count = 0;

	for (; *body; body += strcspn(body, "\n"), body += !!*body)
		count += !strncmp(body, REVOKE_LINE_HOLDER, n) &&
			 (body[n] == ' ' || body[n] == '\n' || !body[n]);
	return count;
}

/**
 * do_holders() - revoke-bpf holders PATH | --fs FS [--json]
 * @argc: number of arguments after the command
 * @argv: the arguments
 *
 * PATH is sent as an O_PATH descriptor, as add sends it; --fs FS sends
 * the MAJ:MIN of the filesystem mounted at FS (or from block device FS),
 * found without touching it, or a descriptor of FS, a file on it.  Prints one row per holding process: PID, USER, COMMAND, ACCESS
 * (f descriptor, m mapping, u io_uring, c current directory, r root
 * directory, e executable) and its descriptors; with --json an array of
 * objects.
 *
 * Return: 0 if something holds it; 1 if nothing does (as fuser(1)), or on
 * an error; 2 if the command line is wrong.
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
		return CLI_EXIT_USAGE;
	if (fs && cli_fs_target(operand, &req, true, &fd))
		return CLI_EXIT_FAIL;
	if (!fs && (fd = cli_target_open(operand, &req)) < 0)
		return CLI_EXIT_FAIL;
	/* closes @fd */
	if (cli_call(&req, fd, &word, &body, &resp))
		goto out;
	if (strcmp(word, REVOKE_OK_HOLDERS)) {
		p_err("unexpected answer 'ok %s' from revoke-bpfd", word);
		goto out;
	}
	/* the line naming the file or filesystem, then the holders */
	cli_output_next_line(&body);
	ret = holders_count(body) ? CLI_EXIT_OK : CLI_EXIT_FAIL;
	if (holders_quiet)
		goto out;
	if (json_output)
		holders_print_json(body);
	else
		holders_print_text(body);
out:
	rbuf_free(&resp);
	return ret;
}
