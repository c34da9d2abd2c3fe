/* SPDX-License-Identifier: GPL-2.0 */
/*
 * helper.h - what the test helpers (the .c files in tests/helpers) share, as static
 * inline functions: each helper is one .c built on its own (probe32 with
 * -m32 -static), so there is nothing to link.
 *
 *	struct helper_op, helper_run_op()	an OP... table and its runner
 *	say()					one event line on stdout
 */
#ifndef REVOKE_TESTS_HELPER_H
#define REVOKE_TESTS_HELPER_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* One operation a probe helper can try: fn returns 0, or -1 with errno. */
struct helper_op {
	const char *name;
	int (*fn)(void);
};

/*
 * Runs the op called NAME from OPS (N of them) and prints "NAME: ok",
 * "NAME: ERRNAME", or "NAME: VERDICT" if VERDICT is given and the op set
 * *VERDICT to something else than NULL.  Returns 0, or -1 (with "PROG:
 * unknown operation 'NAME'" on stderr) if there is no such op.
 */
static inline int helper_run_op(const char *prog, const struct helper_op *ops,
				size_t n, const char *name, const char **verdict)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(name, ops[i].name))
			continue;
		errno = 0;
		if (verdict)
			*verdict = NULL;
		if (ops[i].fn())
			printf("%s: %s\n", name, strerrorname_np(errno));
		else
			printf("%s: %s\n", name,
			       verdict && *verdict ? *verdict : "ok");
		fflush(stdout);
		return 0;
	}
	fprintf(stderr, "%s: unknown operation '%s'\n", prog, name);
	return -1;
}

#define HELPER_RUN_OP(prog, ops, name, verdict) \
	helper_run_op(prog, ops, sizeof(ops) / sizeof((ops)[0]), name, verdict)

/*
 * Says one line, FMT and a newline, on stdout in a single write(2), so
 * that a test reading the helper's output never sees half a line; exits 3
 * if stdout is gone.  Safe in a signal handler (no stdio buffer).
 */
static inline void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline void say(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	line[n++] = '\n';
	if (write(1, line, (size_t)n) < 0)
		_exit(3);
}

#endif
