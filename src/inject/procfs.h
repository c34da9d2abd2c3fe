/* SPDX-License-Identifier: GPL-2.0 */
/*
 * procfs.h - reading what the injector and the pipeline need from /proc:
 * the fields of /proc/PID/stat (a thread's state, a process's start
 * time), the mappings of /proc/PID/maps, and whether a thread sleeps in
 * vfork().
 */
#ifndef REVOKE_PROCFS_H
#define REVOKE_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/**
 * struct procfs_mapping - one line of /proc/PID/maps
 * @start: first address
 * @end: address past the last
 * @perms: "rwxp" with '-' for what it lacks ('s' for shared)
 * @offset: offset in the file
 * @dev_major: the file's device
 * @dev_minor: the file's device
 * @inode: the file's inode, 0 for anonymous memory
 * @name: its path or pseudo-name ([vdso], [stack], ...), or ""
 */
struct procfs_mapping {
	unsigned long start;
	unsigned long end;
	char perms[5];
	unsigned long offset;
	unsigned int dev_major;
	unsigned int dev_minor;
	unsigned long inode;
	const char *name;
};

/* Called per mapping; non-zero stops the walk and is its result. */
typedef int (*procfs_maps_fn)(const struct procfs_mapping *m, void *arg);

int procfs_stat_field(const char *path, int field, char *out, size_t len);
int procfs_maps(pid_t pid, procfs_maps_fn fn, void *arg);
bool procfs_in_vfork(pid_t tgid, pid_t tid);
void procfs_describe(const char *proc, pid_t pid, long *uid, char comm[16]);
int procfs_status_long(const char *path, const char *name, long *val);
bool procfs_under_seccomp(pid_t pid);

#endif /* REVOKE_PROCFS_H */
