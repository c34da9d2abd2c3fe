// SPDX-License-Identifier: GPL-2.0
/*
 * cli_query.c - the commands that name nothing: list, status, reload and
 * unload, and how their answers are shown.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* A revoked device in list: its type and removal stand in the INODE column. */
static void print_device(const char *line, const char *rdev)
{
	char type[16] = "", at[32] = "", den[32] = "", rm[32] = "0";
	char cause[40] = "", what[40];

	revoke_kv_get(line, REVOKE_FIELD_TYPE, type, sizeof(type));
	revoke_kv_get(line, REVOKE_FIELD_REVOKED_AT, at, sizeof(at));
	revoke_kv_get(line, REVOKE_FIELD_REMOVED_AT, rm, sizeof(rm));
	revoke_kv_get(line, REVOKE_FIELD_DENIALS, den, sizeof(den));
	revoke_kv_get(line, REVOKE_FIELD_CAUSE, cause, sizeof(cause));
	snprintf(what, sizeof(what), "%s%s", type, strcmp(rm, "0") ?
		 ",removed" : "");
	printf("%-12s %-20s %-8s %-12s %-10s cause=%s\n", rdev, what, "device",
	       den, at, cause);
}

/* A revoked filesystem in list: every inode of it, "*". */
static void print_filesystem(const char *line, const char *fs)
{
	char at[32] = "", den[32] = "", cause[40] = "";

	revoke_kv_get(line, REVOKE_FIELD_REVOKED_AT, at, sizeof(at));
	revoke_kv_get(line, REVOKE_FIELD_DENIALS, den, sizeof(den));
	revoke_kv_get(line, REVOKE_FIELD_CAUSE, cause, sizeof(cause));
	printf("%-12s %-20s %-8s %-12s %-10s cause=%s\n", fs, "*",
	       "filesystem", den, at, cause);
}

/**
 * do_list() - revoke-bpf list: what is revoked, as a table or JSON
 * @argc: number of arguments after the command
 * @argv: the arguments
 *
 * Return: 0; 1 on an error; 2 if given an operand.
 */
int do_list(int argc, char **argv)
{
	struct rbuf resp = {};
	char *body, *line;
	bool first = true;
	int n = 0, ret;

	ret = cli_query(REVOKE_VERB_LIST, argc, argv, &resp, &body);
	if (ret) {
		rbuf_free(&resp);
		return ret;
	}
	if (json_output)
		putchar('[');
	while ((line = cli_output_next_line(&body))) {
		char dev[32] = "", ino[32] = "", at[32] = "", den[32] = "";
		char kind[16] = "", h[16], f[16] = "", m[16] = "", w[16] = "";
		char fl[16] = "", counts[80], name[3 * REVOKE_NAME_MAX] = "-";
		bool fj = true;

		if (json_output) {
			printf("%s{", first ? "" : ",");
			cli_output_json_fields(line, &fj);
			putchar('}');
			first = false;
			continue;
		}
		if (!n++)
			printf("%-12s %-20s %-8s %-12s %-10s %-30s %-6s %s\n",
			       "DEV", "INODE", "KIND", "DENIALS", "REVOKED_AT",
			       "HOLDERS/FDS/MAPS/WAITERS", "FAILED", "PATH");
		if (revoke_kv_get(line, REVOKE_FIELD_RDEV, dev, sizeof(dev))) {
			print_device(line, dev);
			continue;
		}
		if (revoke_kv_get(line, REVOKE_FIELD_FS, dev, sizeof(dev))) {
			print_filesystem(line, dev);
			continue;
		}
		revoke_kv_get(line, REVOKE_FIELD_DEV, dev, sizeof(dev));
		revoke_kv_get(line, REVOKE_FIELD_INO, ino, sizeof(ino));
		revoke_kv_get(line, REVOKE_FIELD_KIND, kind, sizeof(kind));
		revoke_kv_get(line, REVOKE_FIELD_REVOKED_AT, at, sizeof(at));
		revoke_kv_get(line, REVOKE_FIELD_DENIALS, den, sizeof(den));
		if (revoke_kv_get(line, REVOKE_FIELD_HOLDERS, h, sizeof(h))) {
			revoke_kv_get(line, REVOKE_FIELD_FDS, f, sizeof(f));
			revoke_kv_get(line, REVOKE_FIELD_MAPPINGS, m, sizeof(m));
			revoke_kv_get(line, REVOKE_FIELD_WAITERS, w, sizeof(w));
			revoke_kv_get(line, REVOKE_FIELD_FAILED, fl, sizeof(fl));
			snprintf(counts, sizeof(counts), "%s/%s/%s/%s", h, f, m, w);
		} else {
			strcpy(counts, "-");
			strcpy(fl, "-");
		}
		if (revoke_kv_get(line, REVOKE_FIELD_PATH, name, sizeof(name)) &&
		    revoke_pct_decode(name, name))
			strcpy(name, "?");
		printf("%-12s %-20s %-8s %-12s %-10s %-30s %-6s %s\n", dev, ino,
		       kind, den, at, counts, fl, name);
	}
	if (json_output)
		printf("]\n");
	else if (!n)
		printf("nothing is revoked\n");
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

/**
 * do_status() - revoke-bpf status: the daemon's state, one field a line or JSON
 * @argc: number of arguments after the command
 * @argv: the arguments
 *
 * Return: 0; 1 on an error or if some program is not attached; 2 if given
 * an operand.
 */
int do_status(int argc, char **argv)
{
	struct rbuf resp = {};
	char *body, *line, attached[32] = "", enforcement[16] = "";
	bool first = true;
	int ret;

	ret = cli_query(REVOKE_VERB_STATUS, argc, argv, &resp, &body);
	if (ret) {
		rbuf_free(&resp);
		return ret;
	}
	if (json_output)
		putchar('{');
	while ((line = cli_output_next_line(&body))) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		if (!strncmp(line, REVOKE_FIELD_PROGRAMS_ATTACHED "=",
			      strlen(REVOKE_FIELD_PROGRAMS_ATTACHED "=")))
			snprintf(attached, sizeof(attached), "%s", eq + 1);
		if (!strncmp(line, REVOKE_FIELD_ENFORCEMENT "=",
			      strlen(REVOKE_FIELD_ENFORCEMENT "=")))
			snprintf(enforcement, sizeof(enforcement), "%s", eq + 1);
		if (json_output) {
			cli_output_json_fields(line, &first);
			continue;
		}
		*eq = '\0';
		printf("%-18s %s\n", line, eq + 1);
	}
	if (json_output)
		printf("}\n");
	rbuf_free(&resp);
	return check_attached(attached, enforcement);
}

/**
 * do_reload() - revoke-bpf reload: revoke-bpfd rereads its policy
 * @argc: number of arguments after the command
 * @argv: the arguments
 *
 * Return: 0; 1 on an error; 2 if given an operand.
 */
int do_reload(int argc, char **argv)
{
	struct rbuf resp = {};
	char *body, *line;
	int ret;

	ret = cli_query(REVOKE_VERB_RELOAD, argc, argv, &resp, &body);
	if (ret)
		goto out;
	line = cli_output_next_line(&body);
	printf("%s\n", line ? line : "reloaded");
	ret = 0;
out:
	rbuf_free(&resp);
	return ret;
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
	if (!cli_call(&req, -1, &word, &body, &resp)) {
		printf("unloaded: nothing is revoked or enforced any more, and "
		       "revoke-bpfd has exited\n");
		ret = 0;
	}
	rbuf_free(&resp);
	return ret;
}
