/* SPDX-License-Identifier: GPL-2.0 */
/*
 * log.h - revoke-bpfd's one way to say something: every error and notice
 * of the daemon and of the layers below it goes to stderr (the journal, under systemd) as a line
 * starting "revoke-bpfd: ", as bpftool's p_err() and p_info() do for it.
 */
#ifndef REVOKE_COMMON_LOG_H
#define REVOKE_COMMON_LOG_H

void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* REVOKE_COMMON_LOG_H */
