// SPDX-License-Identifier: GPL-2.0
/*
 * cli_target.c - what add, del and umount name: a file (PATH, sent as a
 * descriptor), an inode (--inode N [--dev MAJ:MIN]), a filesystem (--fs
 * FS, see cli_fs.c; del --fs-dev MAJ:MIN), a device (--rdev MAJ:MIN
 * --char|--block) or, for add, one open file (--fd PID:FD), and add's
 * options, parsed by src/common/target.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/**
 * cli_target_parse() - the operands of add, del and umount
 * @argc: their number
 * @argv: the operands, after the command
 * @req: the request, with its verb; the target and add's options are set
 * @t: the PATH or FS operand (FS when @req->fs is REVOKE_FS_PATH: see
 *	cli_fs_target()), or NULL; and whether add --persist was given
 *
 * The grammar is revoke_target_parse()'s (src/common/target.c), the one
 * the daemon's declared files are read with; --json here is the global
 * option's.
 *
 * Return: 0, or -1 after a message (a usage error: CLI_EXIT_USAGE).
 */
int cli_target_parse(int argc, char **argv, struct revoke_req *req,
		     struct revoke_target *t)
{
	char err[512];
	int ret;

	ret = revoke_target_parse(argc, argv, REVOKE_TARGET_CLI, req, t, err,
				  sizeof(err));
	if (t->json)
		json_output = true;
	if (ret)
		p_err("%s", err);
	return ret;
}

/**
 * cli_target_open() - a descriptor of @path, to send with the request
 * @path: the PATH operand
 * @req: the request; its path is set to @path, made absolute, for list
 *
 * The request names @path by a descriptor of it, which the daemon asks
 * the kernel about (never stat(2)'s st_dev and st_ino: on btrfs and
 * overlayfs they are not what the kernel's hooks see).  O_PATH: nothing
 * is opened for reading, no device's open routine runs.  A file naming a
 * filesystem (--fs) may be a directory, and is not even stat()ed.
 *
 * Return: the descriptor, or -1 after a message.
 */
int cli_target_open(const char *path, struct revoke_req *req)
{
	char cwd[PATH_MAX], full[2 * PATH_MAX + 2];
	struct stat st;
	int fd;

	fd = open(path, O_PATH | O_CLOEXEC);
	/* a filesystem's file is never stat()ed: its server may be gone */
	if (fd < 0 || (!req->fs && fstat(fd, &st))) {
		p_err("cannot open '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* holders of a directory: those whose current or root directory it is */
	if (!req->fs && req->verb != REVOKE_VERB_HOLDERS &&
	    (S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode))) {
		p_err(S_ISDIR(st.st_mode) ?
		      "'%s' is a directory; revoke-bpf revokes files and devices, "
		      "not directories" :
		      "'%s' is a socket; connecting to it is not a file operation "
		      "and cannot be revoked", path);
		close(fd);
		return -1;
	}
	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		snprintf(full, sizeof(full), "%s", path);
	else
		snprintf(full, sizeof(full), "%s/%s",
			 strcmp(cwd, "/") ? cwd : "", path);
	/* too long to show whole: its end says more than its start */
	revoke_name_shorten(full, req->path, sizeof(req->path));
	req->has_path = true;
	return fd;
}

/*
 * The filesystem (MAJ:MIN, /proc/self/mountinfo's third field) of mount
 * @id, into @dev; false if it is not one of this namespace's.
 */
static bool mount_dev(int id, char *dev, size_t len)
{
	char line[4096], d[32];
	bool found = false;
	int mid;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%d %*d %31s", &mid, d) == 2 && mid == id;
	fclose(f);
	if (found)
		snprintf(dev, len, "%s", d);
	return found;
}

/* Is descriptor @n on the filesystem @dev (MAJ:MIN)? */
static bool fd_on(int n, const char *dev)
{
	char d[32];

	return mount_dev(cli_fs_mnt_id(n), d, sizeof(d)) && !strcmp(d, dev);
}

/* Is this program's executable on the filesystem @dev (MAJ:MIN)? */
static bool runs_from(const char *dev)
{
	int exe = open("/proc/self/exe", O_PATH | O_CLOEXEC);
	bool on;

	if (exe < 0)
		return false;
	on = fd_on(exe, dev);
	close(exe);
	return on;
}

/**
 * cli_target_leave() - stand on nothing of the filesystem to unmount
 * @fd: the descriptor of its mount point, to be sent (kept)
 *
 * revoke-bpfd never handles its client, which would otherwise keep the
 * filesystem busy: this process leaves its current directory for "/", and
 * every other descriptor it inherited of that filesystem (a shell's
 * "exec 7<FILE"), through any of its mounts, is made /dev/null.  Standard
 * input, output or error on it is an error, not silently lost, and so is
 * this program running from it (the daemon would end it).  Nothing
 * is stat()ed: a FUSE server that no longer answers would hang it; the
 * mount each descriptor is on is read from /proc.
 *
 * Return: 0, or -1 after saying why.
 */
int cli_target_leave(int fd)
{
	char dev[32];
	struct dirent *e;
	int null, n, err = 0;
	DIR *dir;

	if (chdir("/")) {
		p_err("cannot leave the current directory: %s", strerror(errno));
		return -1;
	}
	if (!mount_dev(cli_fs_mnt_id(fd), dev, sizeof(dev)))
		return 0;	/* the daemon says what is wrong with it */
	if (runs_from(dev)) {
		p_err("this command runs from the filesystem to unmount (its "
		      "executable is on it); run a copy from elsewhere");
		return -1;
	}
	dir = opendir("/proc/self/fd");
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (!dir || null < 0) {
		p_err("cannot look at this command's descriptors: %s",
		      strerror(errno));
		err = -1;
		goto out;
	}
	while (!err && (e = readdir(dir))) {
		n = atoi(e->d_name);
		if (e->d_name[0] == '.' || n == fd || n == dirfd(dir) ||
		    n == null || !fd_on(n, dev))
			continue;
		if (n <= 2) {
			p_err("standard %s is a file on the filesystem to "
			      "unmount; redirect it elsewhere",
			      n == 0 ? "input" : n == 1 ? "output" : "error");
			err = -1;
		} else if (dup3(null, n, O_CLOEXEC) < 0) {
			p_err("cannot let go of descriptor %d: %s", n,
			      strerror(errno));
			err = -1;
		}
	}
out:
	if (dir)
		closedir(dir);
	if (null >= 0)
		close(null);
	return err;
}
