// SPDX-License-Identifier: GPL-2.0
/*
 * cli_call.c - the one request a command sends: to the socket --socket
 * names, through ctl_client.c, with the answer split into its "ok WORD"
 * and its data lines, or an "err" answer printed as one line.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* --socket: revoke-bpfd's control socket */
const char *cli_socket_path = REVOKE_SOCKET_PATH;

/*
 * Split the response into its first line and the data lines.  An "err"
 * answer is printed as one line to stderr and returns -1.
 */
static int split_response(char *resp, char **word, char **body)
{
	char *nl = strchr(resp, '\n');

	if (!nl) {
		p_err("malformed answer from revoke-bpfd");
		return -1;
	}
	*nl = '\0';
	*body = nl + 1;
	if (!strncmp(resp, "err ", 4)) {
		char *msg = strchr(resp + 4, ' ');

		p_err("%s", msg ? msg + 1 : resp + 4);
		return -1;
	}
	if (strncmp(resp, "ok ", 3)) {
		p_err("malformed answer from revoke-bpfd");
		return -1;
	}
	*word = resp + 3;
	return 0;
}

/**
 * cli_call() - send @req to revoke-bpfd and split its answer
 * @req: the request
 * @send_fd: a descriptor to send with it, or -1; closed in any case
 * @word: the answer's ok word
 * @body: the answer's data lines
 * @resp: where the answer is kept; the caller frees it
 *
 * Return: 0 for an "ok" answer, or -1 after a message.
 */
int cli_call(const struct revoke_req *req, int send_fd, char **word,
	     char **body, struct rbuf *resp)
{
	char err[512];

	if (ctl_call(cli_socket_path, req, send_fd, resp, err, sizeof(err))) {
		p_err("%s", err);
		return -1;
	}
	return split_response(resp->data, word, body);
}


/**
 * cli_no_operands() - check that a command got no operand
 * @argc: number of arguments after the command (global options and the
 *	command's own options are taken out by cli.c)
 * @argv: the arguments
 *
 * Return: 0, or CLI_EXIT_USAGE after a message.
 */
int cli_no_operands(int argc, char **argv)
{
	if (!argc)
		return 0;
	p_err("takes no operand, and '%s' is one; try 'revoke-bpf help'",
	      argv[0]);
	return CLI_EXIT_USAGE;
}

/**
 * cli_query() - a request without fields (list, status, reload)
 * @verb: the request's verb
 * @argc: number of arguments after the command: none
 * @argv: the arguments
 * @resp: where the answer is kept; the caller frees it
 * @body: the answer's data lines
 *
 * Return: 0 for an "ok" answer; CLI_EXIT_USAGE if there is an operand,
 * CLI_EXIT_FAIL on an error, after a message.
 */
int cli_query(enum revoke_verb verb, int argc, char **argv,
	      struct rbuf *resp, char **body)
{
	struct revoke_req req = { .verb = verb };
	char *word;

	if (cli_no_operands(argc, argv))
		return CLI_EXIT_USAGE;
	return cli_call(&req, -1, &word, body, resp) ? CLI_EXIT_FAIL : 0;
}
