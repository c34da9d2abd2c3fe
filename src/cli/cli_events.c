// SPDX-License-Identifier: GPL-2.0
/*
 * cli_events.c - the commands that hold or hand over a stream of events:
 * events (denials, as the daemon sends them) and uevent (the udev rule's
 * program).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static volatile sig_atomic_t stop_events;

static void on_stop(int sig)
{
	(void)sig;
	stop_events = 1;
}

/* An event's time_ns as local time with milliseconds, or "?" */
static void event_time(const char *line, char *out, size_t len)
{
	char ns[32];
	unsigned long long t;

	if (!revoke_kv_get(line, REVOKE_FIELD_TIME_NS, ns, sizeof(ns)) ||
	    !(t = strtoull(ns, NULL, 10))) {
		snprintf(out, len, "?");
		return;
	}
	cli_output_time(out, len, (long long)(t / 1000000000ull),
			(long)(t % 1000000000ull), false);
}

/*
 * One denial as text: its wall-clock time, then its fields as the daemon
 * sends them but for the clocks, the name decoded and escaped (a space
 * too, so that every field stays one word).
 */
static void print_event_text(char *line)
{
	char when[48], *cursor = line, *key, *val, esc[4 * 64], *sp;

	event_time(line, when, sizeof(when));
	printf("%s", when);
	while ((val = revoke_kv_next(&cursor, &key))) {
		if (!strcmp(key, REVOKE_FIELD_TS_NS) ||
		    !strcmp(key, REVOKE_FIELD_TIME_NS))
			continue;
		if (revoke_field_type(NULL, key) == REVOKE_FT_NAME) {
			cli_esc_name(val, esc, sizeof(esc) - 32);
			while ((sp = strchr(esc, ' '))) {
				memmove(sp + 4, sp + 1, strlen(sp + 1) + 1);
				memcpy(sp, "\\x20", 4);
			}
			val = esc;
		}
		printf(" %s=%s", key, val);
	}
	putchar('\n');
}

/* One denial as a JSON object: the fields, and time_ns in RFC 3339. */
static void print_event_json(char *line)
{
	char ns[32] = "";
	unsigned long long t;

	revoke_kv_get(line, REVOKE_FIELD_TIME_NS, ns, sizeof(ns));
	t = strtoull(ns, NULL, 10);
	json_open(NULL, '{');
	json_fields(NULL, line);
	json_time("time", (long long)(t / 1000000000ull),
		  (long)(t % 1000000000ull));
	json_close('}');
}

static void print_event(char *line)
{
	if (json_output)
		print_event_json(line);
	else
		print_event_text(line);
	fflush(stdout);
}

/**
 * do_events() - revoke-bpf events: stream denials as they happen
 * @argc: number of arguments after the command
 * @argv: the arguments
 *
 * Stream denials until interrupted, or until --count N have been shown.
 * The connection is read line by line as the daemon writes it.
 *
 * Return: 0; 1 on an error; 2 if the command line is wrong.
 */
int do_events(int argc, char **argv)
{
	struct revoke_req req = { .verb = REVOKE_VERB_EVENTS };
	uint64_t count = 0, seen = 0;
	char err[512], *line = NULL;
	size_t cap = 0;
	int fd, i, ret = 1;
	FILE *fp;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--count") && i + 1 < argc) {
			if (revoke_parse_u64(argv[++i], &count) || !count) {
				p_err("--count '%s' is not a positive number",
				      argv[i]);
				return CLI_EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "--count")) {
			p_err("--count needs a number N; try 'revoke-bpf help "
			      "events'");
			return CLI_EXIT_USAGE;
		} else {
			return cli_no_operands(argc - i, argv + i);
		}
	}
	fd = ctl_open(cli_socket_path, &req, -1, err, sizeof(err));
	if (fd < 0) {
		p_err("%s", err);
		return 1;
	}
	if (ctl_wait_reply(fd, req.verb, err, sizeof(err))) {
		p_err("%s", err);
		close(fd);
		return 1;
	}
	fp = fdopen(fd, "r");
	if (!fp) {
		p_err("fdopen: %s", strerror(errno));
		close(fd);
		return 1;
	}
	if (getline(&line, &cap, fp) < 0) {
		p_err("revoke-bpfd closed the connection");
		goto out;
	}
	line[strcspn(line, "\n")] = '\0';
	if (strcmp(line, "ok " REVOKE_OK_EVENTS)) {
		char *msg = strncmp(line, "err ", 4) ? NULL : strchr(line + 4, ' ');

		p_err("%s", msg ? msg + 1 : "malformed answer from revoke-bpfd");
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

/**
 * do_uevent() - revoke-bpf uevent: hand a udev event to revoke-bpfd
 * @argc: number of arguments after the command
 * @argv: the arguments
 *
 * The udev rule's RUN program: hand the event in the environment to
 * revoke-bpfd and return at once, without waiting for the revocation
 * (udev kills RUN programs that take long; the daemon does the work).
 *
 * No daemon (no socket, or nobody listening on it: a stopped daemon
 * leaves its socket behind only when killed) is no error: the event is
 * nobody's to act on, the pinned programs keep enforcing what was
 * revoked, and udev would log a failure for every removed device.
 *
 * Return: 0, also when no daemon is there; 1 on a malformed event or if
 * the daemon did not take it; 2 if given an operand.
 */
int do_uevent(int argc, char **argv)
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
		p_err("takes no operand: udev passes the event in the "
		      "environment");
		return CLI_EXIT_USAGE;
	}
	if (!action || !sub || !maj || !min) {
		p_err("ACTION, SUBSYSTEM, MAJOR and MINOR must be set, as udev's "
		      "RUN+= sets them for a device node");
		return 1;
	}
	if (revoke_req_uevent(&req, action, sub, maj, min)) {
		snprintf(spec, sizeof(spec), "%s:%s", maj, min);
		p_err("ACTION '%.32s' or MAJOR:MINOR '%.40s' is malformed", action,
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
	while ((fd = ctl_open(cli_socket_path, &req, -1, err,
			      sizeof(err))) == -ENOSPC && req.nprops)
		req.nprops /= 2;
	if (fd == -ENOENT || fd == -ECONNREFUSED)
		return 0;
	if (fd < 0) {
		p_err("%s", err);
		return 1;
	}
	close(fd);
	return 0;
}
