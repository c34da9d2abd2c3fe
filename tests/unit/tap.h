/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - the smallest TAP producer: one "ok N - name" line per check,
 * and a non-zero exit if any failed.  Output is tallied by tests/check.sh.
 */
#ifndef REVOKE_TAP_H
#define REVOKE_TAP_H

#include <stdio.h>

static int tap_n, tap_failed;

static inline void tap_check(int cond, const char *name, const char *expr,
			     int line)
{
	tap_n++;
	if (cond) {
		printf("ok %d - %s\n", tap_n, name);
		return;
	}
	tap_failed++;
	printf("not ok %d - %s\n#   failed: %s (line %d)\n", tap_n, name, expr,
	       line);
}

#define CHECK(name, cond) tap_check(!!(cond), (name), #cond, __LINE__)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* REVOKE_TAP_H */
