// SPDX-License-Identifier: GPL-2.0
/*
 * cli_call.c - the one request a command sends: to the socket --socket
 * names, through ctl_client.c, with the answer split into its "ok WORD"
 * and its data lines, or an "err" answer printed as one line.
 *
 * add and umount, whose answer comes once every holder is handled, ask
 * for progress lines when stderr is a terminal, and show each step on
 * a line of its own there, the holders counted in place.  SIGINT or
 * SIGTERM while they wait says what was done so far and that
 * revoke-bpfd goes on with the rest, and exits CLI_EXIT_INTERRUPTED.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/**
 * struct cli_progress - what the progress lines said so far
 * @verb: the request's
 * @step: the last step, "" before the first
 * @counted: @step counts holders: @done of @total
 * @done: holders handled
 * @total: holders found
 * @open: a line is on stderr without its newline yet
 * @show: stderr is a terminal: show them
 */
struct cli_progress {
	enum revoke_verb verb;
	char step[24];
	bool counted;
	unsigned long long done;
	unsigned long long total;
	bool open;
	bool show;
};

/* What each step the daemon names is, for people; others as they are. */
static const char *step_text(const char *step)
{
	static const struct {
		const char *step;
		const char *text;
	} steps[] = {
		{ "sync", "writing out its data (syncfs)" },
		{ "swap", "turning off swap files on it" },
		{ "revoke", "revoking the filesystem" },
		{ "loops", "unmounting filesystems on its loop devices" },
		{ "attach", "revoking (attaching the programs)" },
		{ "holders", "releasing holders" },
		{ "unmount", "unmounting every mount" },
		{ "wait-gone", "waiting for the filesystem to go" },
	};
	size_t i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (!strcmp(step, steps[i].step))
			return steps[i].text;
	return step;
}

/* Is @s one step word: lower-case letters and '-'? */
static bool step_word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if ((*s < 'a' || *s > 'z') && *s != '-')
			return false;
	return true;
}

/* End the line left open on stderr. */
static void progress_close(struct cli_progress *p)
{
	if (p->open)
		fputc('\n', stderr);
	p->open = false;
}

/* One "progress step=WORD [done=N total=N]" line: record it, show it. */
static void progress_line(const char *line, void *arg)
{
	struct cli_progress *p = arg;
	char step[sizeof(p->step)], done[24], total[24];
	bool fresh;

	if (!revoke_kv_get(line, "step", step, sizeof(step)) || !step_word(step))
		return;
	p->counted = revoke_kv_get(line, "done", done, sizeof(done)) &&
		     revoke_kv_get(line, "total", total, sizeof(total));
	if (p->counted) {
		p->done = strtoull(done, NULL, 10);
		p->total = strtoull(total, NULL, 10);
	}
	fresh = strcmp(step, p->step);
	strcpy(p->step, step);
	if (!p->show)
		return;
	if (fresh)
		progress_close(p);
	/* the line of the step, rewritten in place as holders are counted */
	fprintf(stderr, "\rrevoke-bpf: %s: %s", revoke_verb_name(p->verb),
		step_text(step));
	if (p->counted)
		fprintf(stderr, " %llu/%llu", p->done, p->total);
	p->open = true;
}

static void on_interrupt(int sig)
{
	ctl_client_interrupted = sig;
}

/*
 * Interrupted while revoke-bpfd works: what it did so far, and that it
 * goes on; then exit.
 */
static void interrupted(struct cli_progress *p)
{
	const char *verb = revoke_verb_name(p->verb);
	const char *what = p->verb == REVOKE_VERB_UMOUNT ? "filesystem" :
			   "file";
	char at[160] = "";

	progress_close(p);
	if (p->step[0] && p->counted)
		snprintf(at, sizeof(at), " at step '%s' (%llu of %llu holders "
			 "done)", p->step, p->done, p->total);
	else if (p->step[0])
		snprintf(at, sizeof(at), " at step '%s'", p->step);
	p_err("interrupted%s; revoke-bpfd goes on with the %s and the %s "
	      "stays revoked: see 'revoke-bpf list' and its journal "
	      "(journalctl -u revoke-bpfd)", at, verb, what);
	fflush(stdout);
	exit(CLI_EXIT_INTERRUPTED);
}

/*
 * Send @req and read its answer into @resp; for add and umount, with
 * progress lines on a terminal and Ctrl-C said.  Return 0 once an
 * answer came, or -1 after a message.
 *
 * Progress is for a person at a terminal: only when both standard output
 * and standard error are terminals, and never with --json.  A script
 * that captures or redirects either (or a console that is a tty but
 * collects both, as a serial one does) sees nothing but the report.
 */
static int call(const struct revoke_req *req, int send_fd, struct rbuf *resp)
{
	struct cli_progress p = {
		.verb = req->verb,
		.show = isatty(1) && isatty(2) && !json_output,
	};
	struct revoke_req r = *req;
	bool slow = req->verb == REVOKE_VERB_ADD ||
		    req->verb == REVOKE_VERB_UMOUNT;
	struct sigaction sa = { .sa_handler = on_interrupt };
	char err[512];
	int fd, ret;

	r.progress = slow && p.show;
	fd = ctl_open(cli_socket_path, &r, send_fd, err, sizeof(err));
	if (fd < 0) {
		p_err("%s", err);
		return -1;
	}
	/* sent and taken: from here on a signal is said, not fatal */
	if (slow) {
		sigaction(SIGINT, &sa, NULL);	/* no SA_RESTART */
		sigaction(SIGTERM, &sa, NULL);
	}
	ret = ctl_read_answer(fd, cli_socket_path, &r, progress_line, &p, resp,
			      err, sizeof(err));
	if (ret == -EINTR)
		interrupted(&p);
	progress_close(&p);
	if (ret) {
		p_err("%s", err);
		return -1;
	}
	return 0;
}

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
	if (call(req, send_fd, resp))
		return -1;
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
