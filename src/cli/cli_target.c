// SPDX-License-Identifier: GPL-2.0
/*
 * cli_target.c - what add, del and umount name: a file (PATH, sent as a
 * descriptor), an inode (--inode N [--dev MAJ:MIN]), a filesystem (--fs
 * FS, see cli_fs.c; del --fs-dev MAJ:MIN), a device (--rdev MAJ:MIN
 * --char|--block) or, for add, one open file (--fd PID:FD), and add's
 * options.
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

/* What the command line of add, del or umount names, before it is sent. */
struct target_args {
	const char *operand;	/* PATH, or FS with --fs */
	const char *devspec;	/* --dev MAJ:MIN */
	const char *rdevspec;	/* --rdev MAJ:MIN */
	const char *inode;	/* --inode N */
	const char *fsdev;	/* --fs-dev MAJ:MIN (del) */
	const char *fdspec;	/* --fd PID:FD (add) */
	bool fs;		/* --fs */
	bool force;		/* --force */
};

/* The operands of add/del --rdev MAJ:MIN --char|--block. */
static int device_target(const struct target_args *t, struct revoke_req *req)
{
	if (t->operand || t->devspec || t->inode) {
		p_err("--rdev names a device by number; it takes no PATH, "
		      "--inode or --dev");
		return -1;
	}
	if (!t->rdevspec) {
		p_err("--char, --block, --removed and --cause go with --rdev MAJ:MIN");
		return -1;
	}
	if (revoke_parse_devspec(t->rdevspec, &req->rdev_major,
				 &req->rdev_minor)) {
		p_err("invalid --rdev '%s': expected MAJ:MIN with major < 4096 "
		      "and minor < 1048576", t->rdevspec);
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

/* add --fd PID:FD: one open file description; 0, or -1 after a message. */
static int fd_target(const struct target_args *t, struct revoke_req *req)
{
	int err;

	if (t->operand || t->devspec || t->inode || t->rdevspec || t->fs ||
	    t->force || req->rdev_type || req->removed || req->cause[0]) {
		p_err("--fd names one open file by a process's descriptor; it "
		      "takes no PATH, --inode, --dev, --rdev, --fs or --cause");
		return -1;
	}
	err = revoke_parse_fdspec(t->fdspec, &req->fd_pid, &req->fd_num);
	if (err) {
		p_err("invalid --fd '%s': expected PID:FD, two numbers (pid 1 "
		      "to %d, fd 0 to 2147483647)", t->fdspec, REVOKE_PID_MAX);
		return -1;
	}
	req->has_fd = true;
	return 0;
}

/* --timeout DURATION: 0, or -1 after a message */
static int timeout_option(const char *arg, struct revoke_req *req)
{
	uint64_t ms;

	if (!arg || revoke_parse_duration_ms(arg, REVOKE_TIMEOUT_MAX_MS, &ms) ||
	    !ms) {
		p_err("--timeout needs a duration from 1ms to %ds: seconds, or "
		      "a number with ms, s or min (100ms, 2s, 1min)",
		      REVOKE_TIMEOUT_MAX_MS / 1000);
		return -1;
	}
	req->timeout_ms = (unsigned int)ms;
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
		return timeout_option(++*i < argc ? argv[*i] : NULL, req) ? -1 : 1;
	} else if (!strncmp(a, "--timeout=", 10)) {
		return timeout_option(a + 10, req) ? -1 : 1;
	} else {
		return 0;
	}
	return 1;
}

/*
 * The operand of --fs: FS, resolved later (cli_fs_target()); or, for
 * del, --fs-dev MAJ:MIN, a filesystem that may be gone, as
 * /proc/self/mountinfo showed it.  0, or -1 after a message.
 */
static int fs_target(const struct target_args *t, struct revoke_req *req,
		     const char **path)
{
	if (t->devspec || t->rdevspec || t->inode || req->rdev_type ||
	    req->removed) {
		p_err("--fs names a filesystem; it takes no --inode, --dev, "
		      "--rdev, --char, --block or --removed");
		return -1;
	}
	if (t->fsdev) {
		if (t->operand || t->fs) {
			p_err("--fs-dev names a filesystem by number; it takes "
			      "no --fs or FS");
			return -1;
		}
		if (revoke_parse_devspec(t->fsdev, &req->fs_major,
					 &req->fs_minor)) {
			p_err("invalid --fs-dev '%s': expected MAJ:MIN with "
			      "major < 4096 and minor < 1048576", t->fsdev);
			return -1;
		}
		req->fs = REVOKE_FS_DEV;
		return 0;
	}
	if (!t->operand) {
		p_err(req->verb == REVOKE_VERB_UMOUNT ?
		      "missing MOUNTPOINT (or the block device mounted there)" :
		      "--fs needs FS: a mount point, a file on the filesystem "
		      "or the block device it is mounted from");
		return -1;
	}
	req->fs = REVOKE_FS_PATH;
	req->force = t->force;
	*path = t->operand;
	return 0;
}

/* --inode N [--dev MAJ:MIN], or PATH: 0, or -1 after a message. */
static int inode_target(const struct target_args *t, struct revoke_req *req,
			const char **path)
{
	int err;

	if (t->devspec && !t->inode) {
		p_err("--dev names the filesystem of an --inode; a PATH needs "
		      "none");
		return -1;
	}
	if (!t->inode) {
		if (!t->operand) {
			p_err("missing PATH (or --inode N, --fs FS, --rdev "
			      "MAJ:MIN); try 'revoke-bpf help'");
			return -1;
		}
		if (t->operand[0] &&
		    strspn(t->operand, "0123456789") == strlen(t->operand)) {
			p_err("'%s' could be the file ./%s or inode %s: write "
			      "./%s for the file, --inode %s for the inode",
			      t->operand, t->operand, t->operand, t->operand,
			      t->operand);
			return -1;
		}
		*path = t->operand;
		return 0;
	}
	if (t->operand) {
		p_err("--inode names the file by number; it takes no PATH "
		      "('%s')", t->operand);
		return -1;
	}
	err = revoke_parse_ino(t->inode, &req->ino);
	if (err) {
		p_err("invalid --inode '%s': %s", t->inode,
		      err == -ERANGE ? "out of range (at most 18446744073709551615)"
				     : "not a positive integer");
		return -1;
	}
	req->has_ino = true;
	if (!t->devspec)
		return 0;
	if (revoke_parse_devspec(t->devspec, &req->major, &req->minor)) {
		p_err("invalid --dev '%s': expected MAJ:MIN with major < 4096 "
		      "and minor < 1048576", t->devspec);
		return -1;
	}
	req->has_dev = true;
	return 0;
}

/* An option taking a value: where it goes in @t, or NULL if not one. */
static const char **value_option(const char *a, struct target_args *t,
				 enum revoke_verb verb)
{
	if (!strcmp(a, "--inode") && verb != REVOKE_VERB_UMOUNT)
		return &t->inode;
	if (!strcmp(a, "--dev") && verb != REVOKE_VERB_UMOUNT)
		return &t->devspec;
	if (!strcmp(a, "--rdev") && verb != REVOKE_VERB_UMOUNT)
		return &t->rdevspec;
	if (!strcmp(a, "--fs-dev") && verb == REVOKE_VERB_DEL)
		return &t->fsdev;
	if (!strcmp(a, "--fd") && verb == REVOKE_VERB_ADD)
		return &t->fdspec;
	return NULL;
}

/* One word of the command line: 0, or -1 after a message. */
static int target_word(int argc, char **argv, int *i, struct target_args *t,
		       struct revoke_req *req)
{
	const char *a = argv[*i], **val;

	if ((val = value_option(a, t, req->verb))) {
		if (++*i == argc) {
			p_err("%s needs a value", a);
			return -1;
		}
		*val = argv[*i];
	} else if (!strcmp(a, "--json")) {
		json_output = true;
	} else if (!strcmp(a, "--fs")) {	/* umount: FS all the same */
		t->fs = true;
	} else if (!strcmp(a, "--force") && req->verb != REVOKE_VERB_DEL) {
		t->force = true;
	} else if ((!strcmp(a, "--char") || !strcmp(a, "--block")) &&
		   req->verb != REVOKE_VERB_UMOUNT) {
		if (req->rdev_type) {
			p_err("give one of --char and --block");
			return -1;
		}
		req->rdev_type = a[2] == 'c' ? REVOKE_RDEV_CHAR :
					       REVOKE_RDEV_BLOCK;
	} else if (!strcmp(a, "--") && *i + 1 < argc && !t->operand) {
		t->operand = argv[++*i];
	} else if (a[0] == '-' && a[1]) {
		p_err("unknown option '%s'; try 'revoke-bpf help %s'", a,
		      revoke_verb_name(req->verb));
		return -1;
	} else if (t->operand) {
		p_err("unexpected extra operand '%s'", a);
		return -1;
	} else {
		t->operand = a;
	}
	return 0;
}

/**
 * cli_target_parse() - the operands of add, del and umount
 * @argc: their number
 * @argv: the operands, after the command
 * @req: the request, with its verb; the target and add's options are set
 * @path: set to the PATH or FS operand (FS when @req->fs is
 *	REVOKE_FS_PATH: see cli_fs_target()), or NULL
 *
 * add and del take PATH, --inode N [--dev MAJ:MIN], --fs FS (del: or
 * --fs-dev MAJ:MIN), or --rdev MAJ:MIN --char|--block; add also --fd
 * PID:FD; umount takes FS.
 * A PATH is never read as a number: an operand of digits only, which
 * could be either, is refused.  Nothing is looked up here.
 *
 * Return: 0, or -1 after a message (a usage error: CLI_EXIT_USAGE).
 */
int cli_target_parse(int argc, char **argv, struct revoke_req *req,
		     const char **path)
{
	struct target_args t = {};
	int i, ret;

	*path = NULL;
	for (i = 0; i < argc; i++) {
		ret = add_option(argc, argv, &i, req);
		if (ret < 0 || (!ret && target_word(argc, argv, &i, &t, req)))
			return -1;
	}
	if (t.force && !t.fs && req->verb != REVOKE_VERB_UMOUNT) {
		p_err("--force goes with --fs: it revokes a filesystem the "
		      "system cannot do without");
		return -1;
	}
	if (t.fdspec)
		return fd_target(&t, req);
	if (t.fs || t.fsdev || req->verb == REVOKE_VERB_UMOUNT)
		return fs_target(&t, req, path);
	if (t.rdevspec || req->rdev_type || req->removed || req->cause[0])
		return device_target(&t, req);
	return inode_target(&t, req, path);
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
