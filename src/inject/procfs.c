// SPDX-License-Identifier: GPL-2.0
/*
 * procfs.c - one field of a /proc/PID/stat or /proc/PID/task/TID/stat
 * file, found past the command name, which may hold spaces and
 * parentheses; and the mappings of /proc/PID/maps, one at a time.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "procfs.h"

/**
 * procfs_stat_field() - the text of one field of a stat file
 * @path: /proc/PID/stat or /proc/PID/task/TID/stat
 * @field: its number as proc(5) counts them, 3 (the state) or later
 * @out: the field's text, NUL-terminated
 * @len: size of @out
 *
 * Return: 0, -ESRCH if the task is gone, or -EIO if the file has no such
 * field or it does not fit in @out.
 */
int procfs_stat_field(const char *path, int field, char *out, size_t len)
{
	char buf[1024], *p;
	size_t n;
	ssize_t r;
	int fd, i;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ESRCH;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return -ESRCH;
	buf[r] = '\0';
	/* "PID (COMM) STATE ...": the last ')' ends COMM */
	p = strrchr(buf, ')');
	for (i = 2; p && i < field; i++)
		p = strchr(p + 1, ' ');
	if (!p || field < 3)
		return -EIO;
	p++;
	n = strcspn(p, " \n");
	if (n >= len)
		return -EIO;
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}

/* Parse one line of a maps file into @m; false if it is no mapping. */
static bool maps_line(char *line, struct procfs_mapping *m)
{
	int name = 0;

	if (sscanf(line, "%lx-%lx %4s %lx %x:%x %lu %n", &m->start, &m->end,
		   m->perms, &m->offset, &m->dev_major, &m->dev_minor,
		   &m->inode, &name) < 7 || !name)
		return false;
	line[strcspn(line, "\n")] = '\0';
	m->name = line + name;
	return true;
}

/**
 * procfs_maps() - call @fn on every mapping of a process
 * @pid: the process
 * @fn: called per mapping, in address order; non-zero stops the walk
 * @arg: passed to @fn
 *
 * Lines that do not parse are skipped.
 *
 * Return: what @fn returned to stop the walk, 0 if it went to the end,
 * or a negative errno if the file cannot be read.
 */
int procfs_maps(pid_t pid, procfs_maps_fn fn, void *arg)
{
	struct procfs_mapping m;
	char path[64], *line = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!ret && getline(&line, &cap, f) > 0)
		if (maps_line(line, &m))
			ret = fn(&m, arg);
	free(line);
	fclose(f);
	return ret;
}

/**
 * procfs_status_long() - the first number of one field of a status file
 * @path: the file, /proc/PID/status or /proc/self/status
 * @name: the field's name, without its colon ("Uid", "TracerPid")
 * @val: the number; left as it is if the field cannot be read
 *
 * Return: 0, or -ENOENT if the file or the field cannot be read.
 */
int procfs_status_long(const char *path, const char *name, long *val)
{
	size_t n = strlen(name);
	char line[256];
	int ret = -ENOENT;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':' &&
		    sscanf(line + n + 1, "%ld", val) == 1) {
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

/**
 * procfs_under_seccomp() - is process @pid confined by a seccomp filter?
 * @pid: the process, 0 for revoke-bpfd itself
 *
 * Return: true if its status says "Seccomp: 1" or "2"; false if not, or
 * if it cannot be read.
 */
bool procfs_under_seccomp(pid_t pid)
{
	char path[64];
	long mode = 0;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/status");
	procfs_status_long(path, "Seccomp", &mode);
	return mode > 0;
}

/**
 * procfs_describe() - a process's real uid and name, from /proc
 * @proc: where procfs is mounted ("/proc")
 * @pid: the process
 * @uid: its real uid; left as it is if it cannot be read
 * @comm: its name (15 characters at most); left as it is if it cannot be
 *	read
 */
void procfs_describe(const char *proc, pid_t pid, long *uid, char comm[16])
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/comm", proc, (int)pid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(line, sizeof(line), f))
			snprintf(comm, 16, "%.*s", (int)strcspn(line, "\n"), line);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/%d/status", proc, (int)pid);
	procfs_status_long(path, "Uid", uid);
}

/* Is system call @nr, first argument @a0, of process @tgid a vfork? */
static bool vfork_call(pid_t tgid, long nr, unsigned long a0)
{
	struct iovec local, remote;
	uint64_t flags = 0;

#ifdef SYS_vfork
	if (nr == SYS_vfork)
		return true;
#endif
	if (nr == SYS_clone)
		return a0 & CLONE_VFORK;
#ifdef SYS_clone3
	if (nr == SYS_clone3) {	/* struct clone_args, flags first */
		local = (struct iovec){ &flags, sizeof(flags) };
		remote = (struct iovec){ (void *)a0, sizeof(flags) };
		return process_vm_readv(tgid, &local, 1, &remote, 1, 0) ==
		       sizeof(flags) && (flags & CLONE_VFORK);
	}
#endif
	return false;
}

/**
 * procfs_in_vfork() - is a thread asleep in vfork() until its child
 *	execs or exits?
 * @tgid: its process
 * @tid: the thread
 *
 * Such a thread stops for no signal but SIGKILL, and for as long as the
 * child likes: /proc/TID/syscall names vfork(), or clone() or clone3()
 * with CLONE_VFORK (glibc's posix_spawn(), system() and popen()), and the
 * thread sleeps in kernel_clone(), where wait_for_vfork_done() waits
 * (6.1, 6.12, 7.2).  A 32-bit process's calls are not told (their
 * numbers differ): it waits out the stop's whole timeout.
 */
bool procfs_in_vfork(pid_t tgid, pid_t tid)
{
	char path[64], buf[128];
	unsigned long a0 = 0;
	long nr = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)tgid,
		 (int)tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%ld %lx", &nr, &a0) < 1)
		nr = -1;
	fclose(f);
	if (!vfork_call(tgid, nr, a0))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/wchan", (int)tgid,
		 (int)tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return !strcmp(buf, "kernel_clone");
}
