/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli_pause.h - revoke-bpf pause and resume: the command line as read
 * (cli_pause_args.c), which cli_pause.c sends and whose answers it shows.
 */
#ifndef REVOKE_CLI_PAUSE_H
#define REVOKE_CLI_PAUSE_H

#include "cli.h"

#define PAUSE_MAX_DEVICES 64	/* DEVICE operands in one command */

/* The command line: the user, the errno and cause, and the devices. */
struct pause_cmd {
	enum revoke_verb verb;
	struct revoke_req base;		/* uid, errno, cause */
	struct revoke_req dev[PAUSE_MAX_DEVICES];
	size_t ndev;
};

int pause_parse(struct pause_cmd *c, int argc, char **argv);

#endif /* REVOKE_CLI_PAUSE_H */
