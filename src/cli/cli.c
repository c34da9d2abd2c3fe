// SPDX-License-Identifier: GPL-2.0
/*
 * cli.c - revoke-bpf, the administrator's command: its options, the
 * table of commands and its help (from the verb list, ctl_verbs.c).
 * Each command turns its arguments into one control-socket request
 * (cli_call.c) and prints the daemon's answer, as text or with --json.
 *
 * Commands are a table of do_* functions, as in bpftool.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>

#include "cli.h"

#ifndef REVOKE_VERSION
#define REVOKE_VERSION "0.0.0"
#endif

/* ---- commands --------------------------------------------------------- */

static int do_help(int argc, char **argv);

/* help is revoke-bpf's own: it sends nothing */
static const struct revoke_verb_info help_verb = {
	.name = "help",
	.usage = "",
	.help = "show this help",
};

/**
 * struct cmd - a command of revoke-bpf
 * @verb: its name, usage and help
 * @fn: what it does, with the arguments after its name
 */
struct cmd {
	const struct revoke_verb_info *verb;
	int (*fn)(int argc, char **argv);
};

/* in the order of the help */
static const struct cmd cmds[] = {
	{ &revoke_verbs[REVOKE_VERB_ADD], do_add },
	{ &revoke_verbs[REVOKE_VERB_DEL], do_del },
	{ &revoke_verbs[REVOKE_VERB_UMOUNT], do_umount },
	{ &revoke_verbs[REVOKE_VERB_LIST], do_list },
	{ &revoke_verbs[REVOKE_VERB_STATUS], do_status },
	{ &revoke_verbs[REVOKE_VERB_HOLDERS], do_holders },
	{ &revoke_verbs[REVOKE_VERB_EVENTS], do_events },
	{ &revoke_verbs[REVOKE_VERB_UEVENT], do_uevent },
	{ &revoke_verbs[REVOKE_VERB_RELOAD], do_reload },
	{ &revoke_verbs[REVOKE_VERB_UNLOAD], do_unload },
	{ &help_verb, do_help },
};

static int cmd_help(const struct cmd *c)
{
	printf("Usage: revoke-bpf [--socket PATH] [--reply-timeout S] %s %s\n\n%s.\n",
	       c->verb->name, c->verb->usage, c->verb->help);
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
		printf("  revoke-bpf %-7s %-30s %s\n", cmds[i].verb->name,
		       cmds[i].verb->usage, cmds[i].verb->help);
	printf("\nAn INODE without --dev must be open or mapped by some process on\n"
	       "exactly one filesystem.  A file whose name is all digits is named\n"
	       "./NAME.  Talks to revoke-bpfd on %s.\n"
	       "--reply-timeout S (default %d; 0: no limit) bounds each wait for\n"
	       "revoke-bpfd: connecting, its reading the request, and its reply,\n"
	       "except the replies to add and umount, which take as long as the\n"
	       "holders do;\n"
	       "a wait that times out is named, and the command exits 1.\n",
	       REVOKE_SOCKET_PATH, CTL_CLIENT_TIMEOUT_DEFAULT_MS / 1000);
	return 0;
}

/* Run the command at @argv[0]; 2 if there is none of that name. */
static int run_cmd(int argc, char **argv)
{
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[0], cmds[i].verb->name))
			continue;
		cli_output_set_cmd(cmds[i].verb->name);
		if (argc > 1 && !strcmp(argv[1], "--help"))
			return cmd_help(&cmds[i]);
		return cmds[i].fn(argc - 1, argv + 1);
	}
	fprintf(stderr, "revoke-bpf: unknown command '%s'; try 'revoke-bpf help'\n",
		argv[0]);
	return 2;
}

/* --socket PATH: 0, or 2 after a message */
static int set_socket(const char *path)
{
	struct sockaddr_un sun;

	if (!*path || strlen(path) >= sizeof(sun.sun_path)) {
		p_err("--socket needs the path of revoke-bpfd's control socket, "
		      "1 to %zu bytes", sizeof(sun.sun_path) - 1);
		return 2;
	}
	cli_socket_path = path;
	return 0;
}

/* --reply-timeout S: 0, or 2 after a message */
static int set_reply_timeout(const char *arg)
{
	uint64_t secs;

	if (revoke_parse_u64(arg, &secs) || secs > 86400) {
		p_err("--reply-timeout needs a number of seconds from 0 (no "
		      "limit) to 86400");
		return 2;
	}
	ctl_client_set_timeout((unsigned int)secs * 1000);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "reply-timeout", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	int c, err = 0;

	while (!err && (c = getopt_long(argc, argv, "+jphV", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			err = set_socket(optarg);
			break;
		case 't':
			err = set_reply_timeout(optarg);
			break;
		case 'j':
			json_output = true;
			break;
		case 'p':	/* the help part parses it anywhere on the line */
			json_output = json_pretty = true;
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
	if (err)
		return err;
	if (optind == argc) {
		do_help(0, NULL);
		return 2;
	}
	return run_cmd(argc - optind, argv + optind);
}
