// SPDX-License-Identifier: GPL-2.0
/*
 * cli_target.c - what add and del name: an inode (INODE [--dev MAJ:MIN]),
 * a file (PATH, sent as a descriptor) or a device (--rdev MAJ:MIN
 * --char|--block), and add's options.
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

/* The operands of add/del --rdev MAJ:MIN --char|--block. */
static int device_target(const char *operand, const char *devspec,
			 const char *rdevspec, struct revoke_req *req)
{
	if (operand || devspec) {
		p_err("--rdev names a device by number; it takes no INODE, PATH "
		      "or --dev");
		return -1;
	}
	if (!rdevspec) {
		p_err("--char, --block, --removed and --cause go with --rdev MAJ:MIN");
		return -1;
	}
	if (revoke_parse_devspec(rdevspec, &req->rdev_major, &req->rdev_minor)) {
		p_err("invalid --rdev '%s': expected MAJ:MIN with major < 4096 "
		      "and minor < 1048576", rdevspec);
		return -1;
	}
	if (!req->rdev_type) {
		p_err("--rdev needs --char or --block: the same numbers name "
		      "different devices of each kind");
		return -1;
	}
	req->has_rdev = true;
	return 0;
}

/* add's own options: 1 if argv[*@i] is one, 0 if not, -1 after a message */
static int add_option(int argc, char **argv, int *i, struct revoke_req *req)
{
	const char *a = argv[*i];

	if (req->verb != REVOKE_VERB_ADD && req->verb != REVOKE_VERB_UMOUNT)
		return 0;
	if (req->verb == REVOKE_VERB_UMOUNT &&
	    (!strcmp(a, "--removed") || !strcmp(a, "--release") ||
	     !strcmp(a, "--no-release"))) {
		p_err("umount takes no %s: it releases every descriptor of the "
		      "filesystem", a);
		return -1;
	}
	if (!strcmp(a, "--removed")) {
		req->removed = true;
	} else if (!strcmp(a, "--cause")) {
		if (++*i == argc || revoke_parse_cause(argv[*i], req->cause,
						       sizeof(req->cause))) {
			p_err("--cause needs one word of 1 to 31 letters, "
			      "digits or _.:-");
			return -1;
		}
	} else if (!strcmp(a, "--release") || !strcmp(a, "--no-release")) {
		req->has_release = true;
		req->release = a[2] == 'r' ? REVOKE_RELEASE_YES :
					     REVOKE_RELEASE_NO;
	} else if (!strcmp(a, "--spare")) {
		req->spare = true;
	} else if (!strcmp(a, "--timeout")) {
		if (++*i == argc ||
		    revoke_parse_timeout_ms(argv[*i], &req->timeout_ms)) {
			p_err("--timeout needs a number of milliseconds from 1 "
			      "to %d", REVOKE_TIMEOUT_MAX_MS);
			return -1;
		}
	} else {
		return 0;
	}
	return 1;
}

/*
 * The operand of --fs: a PATH on the filesystem (sent as a descriptor),
 * or, for del, the filesystem's MAJ:MIN as /proc/self/mountinfo shows it.  0, or -1 after a message.
 */
static int fs_target(const char *operand, const char *devspec,
		     const char *rdevspec, struct revoke_req *req,
		     const char **path)
{
	if (devspec || rdevspec || req->rdev_type || req->removed) {
		p_err("--fs names a filesystem; it takes no --dev, --rdev, "
		      "--char, --block or --removed");
		return -1;
	}
	if (!operand) {
		p_err("--fs needs the PATH of a mount point (or of any file on "
		      "the filesystem)");
		return -1;
	}
	if (req->verb == REVOKE_VERB_DEL &&
	    !revoke_parse_devspec(operand, &req->fs_major, &req->fs_minor)) {
		req->fs = REVOKE_FS_DEV;
		return 0;
	}
	req->fs = REVOKE_FS_PATH;
	*path = operand;
	return 0;
}

/* The operand INODE [--dev MAJ:MIN] or PATH: 0, or -1 after a message. */
static int inode_target(const char *operand, const char *devspec,
			struct revoke_req *req, const char **path)
{
	int err;

	if (!operand) {
		p_err("missing INODE or PATH; try 'revoke-bpf help'");
		return -1;
	}
	if (devspec) {
		err = revoke_parse_devspec(devspec, &req->major, &req->minor);
		if (err) {
			p_err("invalid --dev '%s': expected MAJ:MIN with major < 4096 "
			      "and minor < 1048576", devspec);
			return -1;
		}
		req->has_dev = true;
	}
	if (!revoke_looks_numeric(operand)) {
		if (devspec) {
			p_err("--dev names the filesystem of an INODE; it cannot be "
			      "used with a PATH");
			return -1;
		}
		*path = operand;
		return 0;
	}
	err = revoke_parse_ino(operand, &req->ino);
	if (err) {
		p_err("invalid inode '%s': %s", operand,
		      err == -ERANGE ? "out of range (at most 18446744073709551615)"
				     : "not a positive integer");
		return -1;
	}
	req->has_ino = true;
	return 0;
}

/**
 * cli_target_parse() - the operands of add and del
 * @argc: their number
 * @argv: the operands, after the command
 * @req: the request, with its verb; the target and add's options are set
 * @path: set to the PATH operand, or NULL for an inode or a device
 *
 * add and del take INODE [--dev MAJ:MIN] or PATH, --fs PATH (del: or
 * --fs MAJ:MIN), or --rdev MAJ:MIN --char|--block.  Options are parsed by hand so that "-5" is reported as
 * a bad inode, not as an unknown option.
 *
 * Return: 0, or -1 after a message.
 */
int cli_target_parse(int argc, char **argv, struct revoke_req *req,
		     const char **path)
{
	const char *operand = NULL, *devspec = NULL, *rdevspec = NULL;
	bool fs = false;
	int i, ret;

	*path = NULL;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		ret = add_option(argc, argv, &i, req);
		if (ret < 0)
			return -1;
		if (ret)
			continue;
		if (!strcmp(a, "--fs")) {
			fs = true;
		} else if (!strcmp(a, "--rdev") || !strcmp(a, "--dev")) {
			if (++i == argc) {
				p_err("%s needs a value MAJ:MIN", a);
				return -1;
			}
			if (a[2] == 'r')
				rdevspec = argv[i];
			else
				devspec = argv[i];
		} else if (!strcmp(a, "--char") || !strcmp(a, "--block")) {
			if (req->rdev_type) {
				p_err("give one of --char and --block");
				return -1;
			}
			req->rdev_type = a[2] == 'c' ? REVOKE_RDEV_CHAR :
						       REVOKE_RDEV_BLOCK;
		} else if (!strncmp(a, "--dev=", 6)) {
			devspec = a + 6;
		} else if (!strcmp(a, "--") && i + 1 < argc && !operand) {
			operand = argv[++i];
		} else if (a[0] == '-' && !revoke_looks_numeric(a)) {
			p_err("unknown option '%s'; try 'revoke-bpf help'", a);
			return -1;
		} else if (operand) {
			p_err("unexpected extra operand '%s'", a);
			return -1;
		} else {
			operand = a;
		}
	}
	if (fs || req->verb == REVOKE_VERB_UMOUNT)
		return fs_target(operand, devspec, rdevspec, req, path);
	if (rdevspec || req->rdev_type || req->removed || req->cause[0])
		return device_target(operand, devspec, rdevspec, req);
	return inode_target(operand, devspec, req, path);
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
	char cwd[PATH_MAX];
	struct stat st;
	int fd, n;

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
		n = snprintf(req->path, sizeof(req->path), "%s", path);
	else
		n = snprintf(req->path, sizeof(req->path), "%s/%s",
			     strcmp(cwd, "/") ? cwd : "", path);
	/* too long to show whole: its end says more than its start */
	if (n >= (int)sizeof(req->path))
		snprintf(req->path, sizeof(req->path), "...%s",
			 path + strlen(path) - (sizeof(req->path) - 4));
	req->has_path = true;
	return fd;
}

/* The mount @fd is on, from /proc/self/fdinfo (no stat: see below), or -1 */
static int fd_mnt_id(int fd)
{
	char path[64], line[128];
	int id = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "mnt_id: %d", &id) == 1)
			break;
	fclose(f);
	return id;
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

	return mount_dev(fd_mnt_id(n), d, sizeof(d)) && !strcmp(d, dev);
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
	if (!mount_dev(fd_mnt_id(fd), dev, sizeof(dev)))
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
