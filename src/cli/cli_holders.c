// SPDX-License-Identifier: GPL-2.0
/*
 * cli_holders.c - how revoke-bpf shows a holder that add could not
 * handle, or that the daemon's policy killed (pipeline_report.c).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/*
 * A process name from the daemon (percent-decoded), for a terminal: any
 * byte that is not printable ASCII becomes '?'.
 */
static void print_comm(const char *line)
{
	char comm[64] = "";
	size_t i;

	if (!revoke_kv_get(line, REVOKE_FIELD_COMM, comm, sizeof(comm)) ||
	    revoke_pct_decode(comm, comm))
		return;
	for (i = 0; comm[i]; i++)
		if (comm[i] < 0x20 || comm[i] > 0x7e)
			comm[i] = '?';
	printf(" (%s)", comm);
}

/**
 * cli_holders_print() - one line of add's report about a holder
 * @line: a "failure ..." or "killed ..." line of the answer
 * @killed: it is a "killed" line
 *
 * Prints "  failed: pid N (comm) uid U[ thread T]: step: reason" or
 * "  killed: ...", with "; still alive" for a holder SIGKILL has not
 * ended yet.
 */
void cli_holders_print(const char *line, bool killed)
{
	char pid[24] = "?", tid[24] = "0", step[24] = "?", why[64] = "?";
	char uid[24], gone[8] = "yes";

	revoke_kv_get(line, REVOKE_FIELD_PID, pid, sizeof(pid));
	revoke_kv_get(line, REVOKE_FIELD_TID, tid, sizeof(tid));
	revoke_kv_get(line, REVOKE_FIELD_STEP, step, sizeof(step));
	revoke_kv_get(line, REVOKE_FIELD_REASON, why, sizeof(why));
	revoke_kv_get(line, REVOKE_FIELD_GONE, gone, sizeof(gone));
	printf("  %s: pid %s", killed ? "killed" : "failed", pid);
	print_comm(line);
	if (revoke_kv_get(line, REVOKE_FIELD_UID, uid, sizeof(uid)))
		printf(" uid %s", uid);
	if (strcmp(tid, "0"))
		printf(" thread %s", tid);
	printf(": %s: %s%s\n", step, why, strcmp(gone, "no") ? "" :
	       "; still alive");
}
