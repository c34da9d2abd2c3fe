// SPDX-License-Identifier: GPL-2.0
/*
 * cli_fs.c - what --fs FS names, the same in add, del, umount and
 * holders: FS is a mount point, any file on the filesystem, or a block
 * device node, meaning the filesystem mounted from it (as umount(8) and
 * fuser -m read it), found in /proc/self/mountinfo.
 *
 * A mount point is found by its text alone (made absolute, "." and ".."
 * undone) before anything is opened: the server or the device behind it
 * may be gone, and stat() would hang.  Only an FS that is no mount point
 * is opened (O_PATH), and its type read with statx(AT_STATX_DONT_SYNC),
 * to tell a block device from a file.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli.h"

/* A line of /proc/self/mountinfo. */
struct cli_mount {
	int id;
	unsigned int major;
	unsigned int minor;
	char *point;
	char *type;
	char *source;
};

/**
 * cli_fs_lexical() - @path made absolute by its text
 * @path: the path
 * @out: the result
 * @len: size of @out
 *
 * The working directory goes before a relative @path, "." and empty
 * components are dropped, ".." takes one away; nothing is looked up.
 *
 * Return: 0, or -1 if it does not fit @out.
 */
int cli_fs_lexical(const char *path, char *out, size_t len)
{
	char buf[2 * PATH_MAX], *save, *c;
	size_t n = 0;

	if (path[0] == '/') {
		snprintf(buf, sizeof(buf), "%s", path);
	} else {
		if (!getcwd(buf, PATH_MAX))
			return -1;
		strcat(buf, "/");
		strncat(buf, path, sizeof(buf) - strlen(buf) - 1);
	}
	out[0] = '\0';
	for (c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (!strcmp(c, "."))
			continue;
		if (!strcmp(c, "..")) {
			while (n > 0 && out[--n] != '/')
				;
			out[n] = '\0';
			continue;
		}
		if (n + 1 + strlen(c) + 1 > len)
			return -1;
		n += sprintf(out + n, "/%s", c);
	}
	if (!n)
		snprintf(out, len, "/");
	return 0;
}

/* A mountinfo field's octal escapes (\040 for a space...) undone in place. */
static void cli_fs_unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

/* Split a mountinfo @line into @m (pointing into it): 0, or -1. */
static int cli_fs_split(char *line, struct cli_mount *m)
{
	char *save, *f[5], *t;
	int i;

	f[0] = strtok_r(line, " \n", &save);
	for (i = 1; i < 5 && f[i - 1]; i++)
		f[i] = strtok_r(NULL, " \n", &save);
	if (!f[0] || !f[4] || sscanf(f[0], "%d", &m->id) != 1 ||
	    sscanf(f[2], "%u:%u", &m->major, &m->minor) != 2)
		return -1;
	/* optional fields, then "-", the type and the source */
	while ((t = strtok_r(NULL, " \n", &save)) && strcmp(t, "-"))
		;
	m->type = t ? strtok_r(NULL, " \n", &save) : NULL;
	m->source = m->type ? strtok_r(NULL, " \n", &save) : NULL;
	m->point = f[4];
	cli_fs_unescape(m->point);
	if (m->source)
		cli_fs_unescape(m->source);
	return 0;
}

/*
 * Filesystems whose s_dev is not their block device's number (btrfs
 * numbers each subvolume anew): only for these is the source looked at.
 * Any other source is text its mounter chose: a user of fusermount3
 * writes -o fsname=/dev/sdb1 (stat() would then take the user's FUSE
 * filesystem for sdb1's), or names a node on a hung server (stat() would
 * hang).
 */
static const char *const cli_fs_by_source[] = { "btrfs", "bcachefs" };

/* Is @m mounted from block device @rdev (its s_dev, or its source)? */
static bool cli_fs_from(const struct cli_mount *m, dev_t rdev)
{
	struct stat st;
	size_t i;

	if (makedev(m->major, m->minor) == rdev)
		return true;
	if (!m->type || !m->source || m->source[0] != '/')
		return false;
	for (i = 0; i < sizeof(cli_fs_by_source) / sizeof(*cli_fs_by_source); i++)
		if (!strcmp(m->type, cli_fs_by_source[i]))
			return !stat(m->source, &st) && S_ISBLK(st.st_mode) &&
			       st.st_rdev == rdev;
	return false;
}

/*
 * The mount at @abs (the topmost), or the first one mounted from block
 * device @rdev whose mount point, opened, is that mount (a mount over it
 * would hide it): 0 with @m's MAJ:MIN and, for @rdev, *@fd; -ENOENT if
 * none; another negative errno.  @point gets the mount point.
 */
static int cli_fs_find(const char *abs, dev_t rdev, struct cli_mount *out,
		       char *point, size_t len, int *fd)
{
	char *line = NULL;
	struct cli_mount m;
	size_t cap = 0;
	int found = -ENOENT;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		if (cli_fs_split(line, &m))
			continue;
		if (abs && strcmp(m.point, abs))
			continue;
		if (!abs && !cli_fs_from(&m, rdev))
			continue;
		if (!abs && fd) {
			*fd = open(m.point, O_PATH | O_CLOEXEC);
			if (*fd < 0)
				continue;
			if (cli_fs_mnt_id(*fd) != m.id) {
				close(*fd);
				*fd = -1;
				continue;
			}
		}
		*out = m;
		snprintf(point, len, "%s", m.point);
		found = 0;
		if (!abs)
			break;	/* at @abs, a later one is mounted over it */
	}
	free(line);
	fclose(f);
	return found;
}

/**
 * cli_fs_mnt_id() - the mount @fd is on, from /proc/self/fdinfo
 * @fd: the descriptor; nothing is stat()ed
 *
 * Return: the mount's id, or -1.
 */
int cli_fs_mnt_id(int fd)
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

/* FS is block device @rdev: the filesystem mounted from it, in @req. */
static int cli_fs_device(const char *operand, dev_t rdev,
			 struct revoke_req *req, bool by_number, int *fd)
{
	char point[PATH_MAX];
	struct cli_mount m;
	int err;

	err = cli_fs_find(NULL, rdev, &m, point, sizeof(point),
			  by_number ? NULL : fd);
	if (err == -ENOENT) {
		p_err("'%s' is block device %u:%u, and no filesystem is "
		      "mounted from it here%s", operand, major(rdev),
		      minor(rdev), req->verb == REVOKE_VERB_DEL ?
		      "; del --fs-dev MAJ:MIN lifts a filesystem that is gone" :
		      "");
		return -1;
	}
	if (err) {
		p_err("cannot read /proc/self/mountinfo: %s", strerror(-err));
		return -1;
	}
	if (by_number) {
		req->has_path = false;	/* fs=MAJ:MIN goes alone */
		req->fs = REVOKE_FS_DEV;
		req->fs_major = m.major;
		req->fs_minor = m.minor;
		return 0;
	}
	revoke_name_shorten(point, req->path, sizeof(req->path));
	req->has_path = true;
	req->fs = REVOKE_FS_PATH;
	return 0;
}

/**
 * cli_fs_target() - what --fs FS names
 * @operand: FS: a mount point, a file on the filesystem, or a block
 *	device node (the filesystem mounted from it)
 * @req: the request; its fs, and path or fs_major and fs_minor, are set
 * @by_number: name a mount point, or a block device's filesystem, by its
 *	MAJ:MIN (fs=MAJ:MIN: holders, which must answer without touching
 *	it), not by a descriptor
 * @fd: the descriptor to send (O_PATH), or -1 when named by number
 *
 * Return: 0, or -1 after a message.
 */
int cli_fs_target(const char *operand, struct revoke_req *req,
		  bool by_number, int *fd)
{
	char abs[PATH_MAX], point[PATH_MAX];
	struct cli_mount m;
	struct statx stx;

	*fd = -1;
	if (cli_fs_lexical(operand, abs, sizeof(abs))) {
		p_err("'%s': cannot make it an absolute path: %s", operand,
		      errno ? strerror(errno) : "too long");
		return -1;
	}
	/* a mount point, by its text: nothing of it is touched */
	if (!cli_fs_find(abs, 0, &m, point, sizeof(point), NULL)) {
		if (!by_number) {
			req->fs = REVOKE_FS_PATH;
			*fd = cli_target_open(operand, req);
			return *fd < 0 ? -1 : 0;
		}
		req->fs = REVOKE_FS_DEV;
		req->fs_major = m.major;
		req->fs_minor = m.minor;
		return 0;
	}
	req->fs = REVOKE_FS_PATH;
	*fd = cli_target_open(operand, req);
	if (*fd < 0)
		return -1;
	/* its type only, from what the kernel has: a server is not asked */
	if (statx(*fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE,
		  &stx)) {
		p_err("cannot look at '%s': %s", operand, strerror(errno));
		goto fail;
	}
	if (!S_ISBLK(stx.stx_mode))
		return 0;
	close(*fd);
	*fd = -1;
	return cli_fs_device(operand, makedev(stx.stx_rdev_major,
					      stx.stx_rdev_minor),
			     req, by_number, fd);
fail:
	close(*fd);
	*fd = -1;
	return -1;
}
