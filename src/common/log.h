/* SPDX-License-Identifier: GPL-2.0 */
/*
 * log.h - revoke-bpfd's one way to say something: every error, warning
 * and notice of the daemon and of the layers below it goes to stderr, as
 * bpftool's p_err() and p_info() do for it.  On a terminal or in a file
 * a message is a line starting "revoke-bpfd: "; when stderr is the
 * journal, each line starts with its syslog priority instead (log.c).
 */
#ifndef REVOKE_COMMON_LOG_H
#define REVOKE_COMMON_LOG_H

#include <stdarg.h>
#include <stdbool.h>

/* what starts every message outside the journal */
#define LOG_NAME_PREFIX "revoke-bpfd: "

void log_init(void);
bool log_to_journal(void);
void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_vraw(int prio, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif /* REVOKE_COMMON_LOG_H */
