/* SPDX-License-Identifier: GPL-2.0 */
/*
 * procfs.h - reading the fields of /proc/PID/stat that the pipeline
 * needs (a thread's state, a process's start time).
 */
#ifndef REVOKE_PROCFS_H
#define REVOKE_PROCFS_H

#include <stddef.h>

int procfs_stat_field(const char *path, int field, char *out, size_t len);

#endif /* REVOKE_PROCFS_H */
