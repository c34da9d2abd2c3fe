// SPDX-License-Identifier: GPL-2.0
/*
 * log.c - revoke-bpfd's errors and notices, each on stderr after the
 * "revoke-bpfd: " prefix.  The caller's format ends the line, so that a
 * line it already holds (a denial) is written as it is.  Every layer of
 * the daemon (daemon/, pipeline/, store/) says things through it.
 */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

static void log_vprint(const char *fmt, va_list ap)
{
	flockfile(stderr);
	fputs("revoke-bpfd: ", stderr);
	vfprintf(stderr, fmt, ap);
	funlockfile(stderr);
}

/**
 * log_err() - report what went wrong
 * @fmt: printf format of the rest of the line, its newline included
 */
void log_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(fmt, ap);
	va_end(ap);
}

/**
 * log_info() - report what was done
 * @fmt: printf format of the rest of the line, its newline included
 */
void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(fmt, ap);
	va_end(ap);
}
