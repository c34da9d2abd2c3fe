// SPDX-License-Identifier: GPL-2.0
/*
 * fs_ns.c - every mount namespace on the machine (one per distinct
 * /proc/PID/ns/mnt), and work done inside one: a forked child enters it
 * with setns(CLONE_NEWNS), which also sets its root and cwd to the
 * namespace's root, and writes its answer through a pipe.  Files of
 * /proc and /sys are opened through directories opened before the
 * child enters, so that a namespace without them mounted is read too:
 * /proc/self/mountinfo and /proc/swaps then speak of the child's new
 * namespace and root.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "umount.h"

static int add_ns(struct fs_ns **ns, size_t *nr, pid_t pid, ino_t ino)
{
	struct fs_ns *n;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? 0 : -errno;
	n = realloc(*ns, (*nr + 1) * sizeof(*n));
	if (!n) {
		close(fd);
		return -ENOMEM;
	}
	n[*nr] = (struct fs_ns){ .ino = ino, .pid = pid, .fd = fd };
	*ns = n;
	(*nr)++;
	return 0;
}

static bool known(const struct fs_ns *ns, size_t nr, ino_t ino)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (ns[i].ino == ino)
			return true;
	return false;
}

/**
 * fs_ns_list() - every mount namespace that a process is in,
 *	one per distinct /proc/PID/ns/mnt, each with an open descriptor of it
 * @ns: the result (fs_ns_free() it)
 * @nr: their number
 *
 * Each is found through its lowest pid (pid 1 for the init namespace),
 * in the order of /proc.  A namespace that no process is in (kept only
 * by a bind mount of it or a descriptor) is not found.
 *
 * Return: 0, or a negative errno.
 */
int fs_ns_list(struct fs_ns **ns, size_t *nr)
{
	struct dirent *de;
	struct stat st;
	char path[64];
	DIR *d;
	int err = 0;

	*ns = NULL;
	*nr = 0;
	d = opendir("/proc");
	if (!d) {
		err = -errno;
		goto fail;
	}
	while ((de = readdir(d))) {
		pid_t pid = (pid_t)strtol(de->d_name, NULL, 10);

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", pid);
		if (stat(path, &st) || known(*ns, *nr, st.st_ino))
			continue;	/* gone, a kernel thread, or known */
		err = add_ns(ns, nr, pid, st.st_ino);
		if (err)
			break;
	}
	closedir(d);
	if (!err)
		return 0;
fail:
	fs_ns_free(*ns, *nr);
	*ns = NULL;
	*nr = 0;
	return err;
}

/**
 * fs_ns_free() - close and free what fs_ns_list()
 *	found
 * @ns: the namespaces
 * @nr: their number
 */
void fs_ns_free(struct fs_ns *ns, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		close(ns[i].fd);
	free(ns);
}

static int write_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/**
 * fs_ns_cat() - an fs_ns_fn: write files, each followed by a NUL
 * @arg: a &struct fs_ns_files
 * @out: the pipe
 *
 * Return: 0, or the errno of a failed write.
 */
int fs_ns_cat(void *arg, int out)
{
	const struct fs_ns_files *f = arg;
	char buf[4096];
	ssize_t n;
	size_t i;
	int fd, err;

	for (i = 0; i < f->nr; i++) {
		fd = openat(f->dirfd[i], f->name[i], O_RDONLY | O_CLOEXEC);
		while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				break;
			err = write_all(out, buf, (size_t)n);
			if (err)
				return err;
		}
		if (fd >= 0)
			close(fd);
		err = write_all(out, "", 1);
		if (err)
			return err;
	}
	return 0;
}

static void child(const struct fs_ns *ns, fs_ns_fn fn, void *arg, int out)
{
	int err = 0;

	signal(SIGPIPE, SIG_DFL);
	if (setns(ns->fd, CLONE_NEWNS))
		err = errno;
	else
		err = fn(arg, out);
	_exit(err & 0xff);
}

static int read_all(int fd, char **out, size_t *len)
{
	size_t cap = 0;
	char *buf = NULL, *nb;
	ssize_t n;

	*len = 0;
	for (;;) {
		if (*len + 4096 > cap) {
			cap = cap ? cap * 2 : 16384;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		n = read(fd, buf + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return -errno;
		}
		if (n == 0)
			break;
		*len += (size_t)n;
	}
	buf[*len] = '\0';
	*out = buf;
	return 0;
}

/**
 * fs_ns_run() - run @fn in a forked child inside the namespace
 *	@ns, and collect what it writes
 * @ns: the namespace
 * @fn: the work (see &typedef fs_ns_fn)
 * @arg: its argument
 * @out: what it wrote, NUL-terminated (free() it), on success
 * @len: its length
 *
 * Return: 0, the child's failure as a negative errno, or -EIO if it was
 * killed.
 */
int fs_ns_run(const struct fs_ns *ns, fs_ns_fn fn, void *arg,
		     char **out, size_t *len)
{
	int pfd[2], status, err;
	pid_t pid;

	*out = NULL;
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return err;
	}
	if (pid == 0) {
		close(pfd[0]);
		child(ns, fn, arg, pfd[1]);
	}
	close(pfd[1]);
	err = read_all(pfd[0], out, len);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!err && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		err = WIFEXITED(status) ? -WEXITSTATUS(status) : -EIO;
	if (err) {
		free(*out);
		*out = NULL;
	}
	return err;
}
