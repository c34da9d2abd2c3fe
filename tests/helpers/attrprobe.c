// SPDX-License-Identifier: GPL-2.0
/*
 * attrprobe - try what a file has besides its bytes, by descriptor and
 * by path: extended attributes, POSIX ACLs, mode, owner, times, inode
 * flags.
 *
 *   attrprobe [--before CMD] PATH OP...
 *
 * Opens PATH read-only (read-write would copy an overlayfs file up), runs CMD with system(3) if
 * given, then runs each OP and prints "OP: ok" or "OP: ERRNAME".  An OP
 * the running kernel has no system call for prints "OP: ENOSYS".  If
 * PATH cannot be opened (it is revoked already), the ops by path still
 * run, and those by descriptor print "OP: EBADF".
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "helper.h"

#define XATTR "user.revoke"
#define ACL_XATTR "system.posix_acl_access"
/* a name of overlayfs's own, which revoke-bpf lets overlayfs read */
#define OVL_XATTR "user.overlay.revoke"

/* file_getattr(2) and file_setattr(2), Linux 6.17, x86-64 */
#define NR_FILE_GETATTR 468
#define NR_FILE_SETATTR 469

/* struct file_attr of <linux/fs.h> in 6.17, its first version */
struct attrprobe_file_attr {
	uint64_t fa_xflags;
	uint32_t fa_extsize;
	uint32_t fa_nextents;
	uint32_t fa_projid;
	uint32_t fa_cowextsize;
};

static const char *path;
static int fd = -1;

static int op_getxattr(void)
{
	char buf[64];

	return getxattr(path, XATTR, buf, sizeof(buf)) < 0 ? -1 : 0;
}

static int op_fgetxattr(void)
{
	char buf[64];

	return fgetxattr(fd, XATTR, buf, sizeof(buf)) < 0 ? -1 : 0;
}

static int op_set_ovl_xattr(void)
{
	return setxattr(path, OVL_XATTR, "kept", 4, 0);
}

static int op_get_ovl_xattr(void)
{
	char buf[64];

	return getxattr(path, OVL_XATTR, buf, sizeof(buf)) < 0 ? -1 : 0;
}

static int op_fget_ovl_xattr(void)
{
	char buf[64];

	return fgetxattr(fd, OVL_XATTR, buf, sizeof(buf)) < 0 ? -1 : 0;
}

static int op_listxattr(void)
{
	char buf[256];

	return listxattr(path, buf, sizeof(buf)) < 0 ? -1 : 0;
}

static int op_flistxattr(void)
{
	char buf[256];

	return flistxattr(fd, buf, sizeof(buf)) < 0 ? -1 : 0;
}

static int op_setxattr(void)
{
	return setxattr(path, XATTR, "new", 3, 0);
}

static int op_fsetxattr(void)
{
	return fsetxattr(fd, XATTR, "new", 3, 0);
}

static int op_removexattr(void)
{
	return removexattr(path, XATTR);
}

static int op_fremovexattr(void)
{
	return fremovexattr(fd, XATTR);
}

/*
 * An access ACL as the kernel takes it, with an entry for uid 65534 so
 * that it is kept as an ACL (one the mode bits say is folded into them):
 * owner rw, user 65534 r, group r, mask rw, other r.
 */
static size_t acl_blob(unsigned char *buf)
{
	static const uint16_t tags[] = { 0x01, 0x02, 0x04, 0x10, 0x20 };
	static const uint16_t perms[] = { 6, 4, 4, 6, 4 };
	static const uint32_t ids[] = { UINT32_MAX, 65534, UINT32_MAX,
					UINT32_MAX, UINT32_MAX };
	uint32_t version = 2;
	size_t n = 4, i;

	memcpy(buf, &version, 4);
	for (i = 0; i < 5; i++, n += 8) {
		memcpy(buf + n, &tags[i], 2);
		memcpy(buf + n + 2, &perms[i], 2);
		memcpy(buf + n + 4, &ids[i], 4);
	}
	return n;
}

static int op_get_acl(void)
{
	char buf[64];

	return getxattr(path, ACL_XATTR, buf, sizeof(buf)) < 0 ? -1 : 0;
}

static int op_set_acl(void)
{
	unsigned char buf[64];

	return setxattr(path, ACL_XATTR, buf, acl_blob(buf), 0);
}

static int op_remove_acl(void)
{
	return removexattr(path, ACL_XATTR);
}

static int op_chmod(void)
{
	return chmod(path, 0640);
}

static int op_fchmod(void)
{
	return fchmod(fd, 0640);
}

static int op_chown(void)
{
	return chown(path, getuid(), getgid());
}

static int op_fchown(void)
{
	return fchown(fd, getuid(), getgid());
}

static int op_utimes(void)
{
	return utimensat(AT_FDCWD, path, NULL, 0);
}

static int op_futimens(void)
{
	return futimens(fd, NULL);
}

static int op_fsgetxattr(void)
{
	struct fsxattr fa;

	return ioctl(fd, FS_IOC_FSGETXATTR, &fa);
}

static int op_file_getattr(void)
{
	struct attrprobe_file_attr fa = { 0 };

	return syscall(NR_FILE_GETATTR, AT_FDCWD, path, &fa, sizeof(fa), 0) < 0 ?
	       -1 : 0;
}

static int op_file_setattr(void)
{
	struct attrprobe_file_attr fa = { 0 };

	return syscall(NR_FILE_SETATTR, AT_FDCWD, path, &fa, sizeof(fa), 0) < 0 ?
	       -1 : 0;
}

static int op_stat(void)
{
	struct stat st;

	return stat(path, &st);
}

static int op_fstat(void)
{
	struct stat st;

	return fstat(fd, &st);
}

static const struct helper_op ops[] = {
	{ "getxattr", op_getxattr },
	{ "fgetxattr", op_fgetxattr },
	{ "set_ovl_xattr", op_set_ovl_xattr },
	{ "get_ovl_xattr", op_get_ovl_xattr },
	{ "fget_ovl_xattr", op_fget_ovl_xattr },
	{ "listxattr", op_listxattr },
	{ "flistxattr", op_flistxattr },
	{ "setxattr", op_setxattr },
	{ "fsetxattr", op_fsetxattr },
	{ "removexattr", op_removexattr },
	{ "fremovexattr", op_fremovexattr },
	{ "get_acl", op_get_acl },
	{ "set_acl", op_set_acl },
	{ "remove_acl", op_remove_acl },
	{ "chmod", op_chmod },
	{ "fchmod", op_fchmod },
	{ "chown", op_chown },
	{ "fchown", op_fchown },
	{ "utimes", op_utimes },
	{ "futimens", op_futimens },
	{ "fsgetxattr", op_fsgetxattr },
	{ "file_getattr", op_file_getattr },
	{ "file_setattr", op_file_setattr },
	{ "stat", op_stat },
	{ "fstat", op_fstat },
};

static int run_op(const char *name)
{
	return HELPER_RUN_OP("attrprobe", ops, name, NULL);
}

int main(int argc, char **argv)
{
	const char *before = NULL;
	int i = 1;

	if (argc > 2 && !strcmp(argv[1], "--before")) {
		before = argv[2];
		i = 3;
	}
	if (argc - i < 2) {
		fprintf(stderr, "usage: attrprobe [--before CMD] PATH OP...\n");
		return 2;
	}
	path = argv[i++];
	fd = open(path, O_RDONLY);
	if (before && system(before) != 0) {
		fprintf(stderr, "attrprobe: '%s' failed\n", before);
		return 1;
	}
	for (; i < argc; i++)
		if (run_op(argv[i]))
			return 2;
	return 0;
}
