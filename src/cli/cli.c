// SPDX-License-Identifier: GPL-2.0
/*
 * cli.c - revoke-bpf, the administrator's command: its global options,
 * taken anywhere on the line before "--", and the table of commands (their
 * help and their options are cli_help.c's).
 * Each command turns its arguments into one control-socket request
 * (cli_call.c) and prints the daemon's answer, as text or with --json.
 *
 * Commands are a table of do_* functions, as in bpftool.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "cli.h"

#ifndef REVOKE_VERSION
#define REVOKE_VERSION "0.0.0"
#endif

/* ---- commands --------------------------------------------------------- */

static int do_help(int argc, char **argv);

/**
 * struct cmd - a command of revoke-bpf
 * @name: its name (its help: cli_help.c)
 * @fn: what it does, with the arguments after its name
 */
struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
};

static const struct cmd cmds[] = {
	{ "add", do_add },
	{ "del", do_del },
	{ "umount", do_umount },
	{ "list", do_list },
	{ "status", do_status },
	{ "metrics", do_metrics },
	{ "holders", do_holders },
	{ "pause", do_pause },
	{ "resume", do_resume },
	{ "events", do_events },
	{ "uevent", do_uevent },
	{ "reload", do_reload },
	{ "unload", do_unload },
	{ "help", do_help },
};

static const struct cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(name, cmds[i].name))
			return &cmds[i];
	return NULL;
}

/* revoke-bpf help [COMMAND] */
static int do_help(int argc, char **argv)
{
	const struct cli_help *h;

	if (!argc) {
		cli_help_print_all(stdout);
		return CLI_EXIT_OK;
	}
	if (argc > 1) {
		p_err("unexpected argument '%s'; try 'revoke-bpf help'", argv[1]);
		return CLI_EXIT_USAGE;
	}
	h = cli_help_find(argv[0]);
	if (!h) {
		p_err("unknown command '%s'; try 'revoke-bpf help'", argv[0]);
		return CLI_EXIT_USAGE;
	}
	cli_help_print_verb(stdout, h);
	return CLI_EXIT_OK;
}

/* --socket PATH: 0, or 2 after a message */
static int set_socket(const char *path)
{
	struct sockaddr_un sun;

	if (!*path || strlen(path) >= sizeof(sun.sun_path)) {
		p_err("--socket needs the path of revoke-bpfd's control socket, "
		      "1 to %zu bytes", sizeof(sun.sun_path) - 1);
		return CLI_EXIT_USAGE;
	}
	cli_socket_path = path;
	return 0;
}

/* --reply-timeout DURATION: 0, or 2 after a message */
static int set_reply_timeout(const char *arg)
{
	uint64_t ms;

	if (revoke_parse_duration_ms(arg, 86400 * 1000ULL, &ms)) {
		p_err("--reply-timeout '%s' is not a duration from 0 (no limit) "
		      "to 1 day: a number of seconds, or 500ms, 2s, 1min", arg);
		return CLI_EXIT_USAGE;
	}
	ctl_client_set_timeout((unsigned int)ms);
	return 0;
}

/**
 * struct line - the command line, global options taken out
 * @cmd: the command, or NULL if none was named
 * @help: the command's help, or NULL
 * @argv: the command's arguments, in their order, "--" among them
 * @argc: their number
 * @want_help: -h or --help was given
 * @want_version: -V or --version was given
 * @bad: the first argument that is no option of the command, or NULL
 */
struct line {
	const struct cmd *cmd;
	const struct cli_help *help;
	char **argv;
	int argc;
	bool want_help;
	bool want_version;
	const char *bad;
};

/* A global option at argv[*@i] (its value after it, or after '='). */
static int take_global(const struct cli_opt *o, int argc, char **argv,
		       int *i, struct line *l)
{
	const char *eq = strchr(argv[*i], '='), *val = NULL;

	if (o->arg) {
		if (eq && !strncmp(argv[*i], "--", 2)) {
			val = eq + 1;
		} else if (*i + 1 < argc) {
			val = argv[++*i];
		} else {
			p_err("%s needs a value %s; try 'revoke-bpf help'",
			      o->name, o->arg);
			return CLI_EXIT_USAGE;
		}
	}
	switch (o->name[2]) {
	case 'j':
		json_output = true;
		return 0;
	case 'p':
		json_output = json_pretty = true;
		return 0;
	case 'h':
		l->want_help = true;
		return 0;
	case 'v':
		l->want_version = true;
		return 0;
	case 's':
		return set_socket(val);
	case '\0':	/* "--": parse_line()'s */
		return 0;
	default:
		return set_reply_timeout(val);
	}
}

/* The command named @word, or 2 after a message */
static int take_cmd(const char *word, struct line *l)
{
	l->cmd = find_cmd(word);
	if (!l->cmd) {
		p_err("unknown command '%s'; try 'revoke-bpf help'", word);
		return CLI_EXIT_USAGE;
	}
	cli_output_set_cmd(l->cmd->name);
	l->help = cli_help_find(word);
	return 0;
}

/*
 * An argument after the command that is an option: the command's own
 * (kept, with its value), or global (taken), or unknown (@l->bad).
 */
static int take_option(int argc, char **argv, int *i, struct line *l)
{
	const char *a = argv[*i];
	const struct cli_opt *o = cli_help_opt(cli_global_opts, a);

	if (o)
		return take_global(o, argc, argv, i, l);
	o = l->help ? cli_help_verb_opt(l->help, a) : NULL;
	if (o) {
		l->argv[l->argc++] = argv[*i];
		if (o && o->arg && !strchr(a, '=') && *i + 1 < argc)
			l->argv[l->argc++] = argv[++*i];
	} else if (!l->bad) {
		l->bad = a;
	}
	return 0;
}

/*
 * Split the command line: global options anywhere before "--", the
 * command, and its arguments.  0, or 2 after a message.
 */
static int parse_line(int argc, char **argv, struct line *l)
{
	bool ended = false;
	int i, err;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!ended && !strcmp(a, "--")) {
			ended = true;
			if (l->cmd)
				l->argv[l->argc++] = argv[i];
		} else if (!ended && a[0] == '-' && a[1]) {
			err = take_option(argc, argv, &i, l);
			if (err)
				return err;
		} else if (!l->cmd) {
			err = take_cmd(a, l);
			if (err)
				return err;
		} else {
			l->argv[l->argc++] = argv[i];
		}
	}
	return 0;
}

/* A bad line: one line on stderr (no command: a short usage); exit 2 */
static int usage_error(const struct line *l)
{
	if (!l->cmd && l->bad) {
		p_err("unknown option '%s'; try 'revoke-bpf help'", l->bad);
		return CLI_EXIT_USAGE;
	}
	if (!l->cmd) {
		fprintf(stderr, "Usage: revoke-bpf [OPTIONS] COMMAND [ARGS]\n"
			"Try 'revoke-bpf help' for the commands.\n");
		return CLI_EXIT_USAGE;
	}
	p_err("unknown option '%s'; try 'revoke-bpf help %s'", l->bad,
	      l->cmd->name);
	return CLI_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	struct line l = { .argv = calloc((size_t)argc + 1, sizeof(char *)) };
	int err;

	if (!l.argv) {
		p_err("out of memory");
		return CLI_EXIT_FAIL;
	}
	err = parse_line(argc, argv, &l);
	if (err)
		return err;
	if (l.want_version) {
		printf("revoke-bpf %s\n", REVOKE_VERSION);
		return CLI_EXIT_OK;
	}
	if (l.want_help) {
		/* help add --help: add's; help --help: help's */
		if (l.cmd && l.cmd->fn == do_help && l.argc)
			return do_help(l.argc, l.argv);
		if (l.help)
			cli_help_print_verb(stdout, l.help);
		else
			cli_help_print_all(stdout);
		return CLI_EXIT_OK;
	}
	if (!l.cmd || l.bad)
		return usage_error(&l);
	return l.cmd->fn(l.argc, l.argv);
}
