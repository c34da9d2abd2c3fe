// SPDX-License-Identifier: GPL-2.0
/*
 * cli_holders.c - how revoke-bpf shows a holder that add could not
 * handle, that the daemon's policy killed, or that took long
 * (pipeline_report.c).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* A process name from the daemon (percent-encoded), escaped: " (comm)" */
/**
 * cli_holders_print_comm() - " (NAME)" if the line has comm=
 * @line: a line of the answer
 */
void cli_holders_print_comm(const char *line)
{
	char comm[64], esc[256];

	if (revoke_kv_get(line, REVOKE_FIELD_COMM, comm, sizeof(comm)))
		printf(" (%s)", cli_esc_name(comm, esc, sizeof(esc)));
}

/**
 * cli_holders_print_user() - " user NAME" if the daemon named the uid,
 *	else " uid N"; nothing if the line has neither
 * @line: a line of the answer with uid= and maybe user=
 */
void cli_holders_print_user(const char *line)
{
	char v[3 * 256 + 1], esc[4 * 256 + 8];

	if (revoke_kv_get(line, REVOKE_FIELD_USER, v, sizeof(v)))
		printf(" user %s", cli_esc_name(v, esc, sizeof(esc)));
	else if (revoke_kv_get(line, REVOKE_FIELD_UID, v, sizeof(v)))
		printf(" uid %s", v);
}

/**
 * cli_holders_print() - one line of add's report about a holder
 * @line: a "failure ..." or "killed ..." line of the answer
 * @killed: it is a "killed" line
 *
 * Prints "  failed: pid N (comm) user NAME[ thread T]: step: reason" (uid
 * U when the uid has no name) or "  killed: ...", with "; still alive" for a holder SIGKILL has not
 * ended yet.
 */
void cli_holders_print(const char *line, bool killed)
{
	char pid[24] = "?", tid[24] = "0", step[24] = "?", why[112] = "?";
	char gone[8] = "yes";

	revoke_kv_get(line, REVOKE_FIELD_PID, pid, sizeof(pid));
	revoke_kv_get(line, REVOKE_FIELD_TID, tid, sizeof(tid));
	revoke_kv_get(line, REVOKE_FIELD_STEP, step, sizeof(step));
	revoke_kv_get(line, REVOKE_FIELD_REASON, why, sizeof(why));
	revoke_kv_get(line, REVOKE_FIELD_GONE, gone, sizeof(gone));
	printf("  %s: pid %s", killed ? "killed" : "failed", pid);
	cli_holders_print_comm(line);
	cli_holders_print_user(line);
	if (strcmp(tid, "0"))
		printf(" thread %s", tid);
	printf(": %s: %s%s\n", step, why, strcmp(gone, "no") ? "" :
	       "; still alive");
}

/* A holder shown as slow when it took this long (all are in --json) */
#define SLOW_SHOWN_US 1000000ull

/**
 * cli_holders_print_slow() - one of the holders that took longest
 * @line: a "slow ..." line of the answer
 *
 * Prints "  slow: pid N (comm) took M ms" if it took SLOW_SHOWN_US or
 * more, else nothing.
 */
void cli_holders_print_slow(const char *line)
{
	char pid[24] = "?", us[24] = "0";
	unsigned long long t;

	revoke_kv_get(line, REVOKE_FIELD_US, us, sizeof(us));
	t = strtoull(us, NULL, 10);
	if (t < SLOW_SHOWN_US)
		return;
	revoke_kv_get(line, REVOKE_FIELD_PID, pid, sizeof(pid));
	printf("  slow: pid %s", pid);
	cli_holders_print_comm(line);
	printf(" took %llu ms\n", t / 1000);
}
