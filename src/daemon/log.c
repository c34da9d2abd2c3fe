// SPDX-License-Identifier: GPL-2.0
/*
 * log.c - revoke-bpfd's errors and notices, each on stderr after the
 * "revoke-bpfd: " prefix.  The caller's format ends the line, so that a
 * line it already holds (a denial) is written as it is.  The notice of
 * a pipeline run is here too, as verbs.c and devices.c both give it.
 */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"
#include "pipeline/pipeline.h"

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

/**
 * log_pipeline() - report what a pipeline run found and did
 * @what: what it ran over ("dev=MAJ:MIN ino=N" or "rdev=MAJ:MIN")
 * @res: its result
 */
void log_pipeline(const char *what, const struct pipeline_result *res)
{
	log_info("pipeline %s: holders=%u fds=%u mappings=%u waiters=%u "
		 "woken=%u unmapped=%u released=%u failed=%u in %llu us, "
		 "%u passes, %zu killed\n", what, res->rep.holders,
		 res->rep.fds, res->rep.mappings, res->rep.waiters,
		 res->rep.woken, res->rep.unmapped, res->rep.released,
		 res->rep.failed, (unsigned long long)res->total_us,
		 res->passes, res->nkill);
}
