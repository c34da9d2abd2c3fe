// SPDX-License-Identifier: GPL-2.0
/*
 * fusefile - a FUSE filesystem with one file, for the tests: a real FUSE
 * server (libfuse 3, /dev/fuse), so that revoke-bpf is tried on a file
 * whose inode number the server chose.
 *
 *	fusefile MOUNTPOINT [INO]
 *
 * Mounts at MOUNTPOINT, in the foreground, one thread, a directory with
 * the file "f" ("fuse content\n", mode 0644), which the server numbers
 * INO (default 42: FUSE's use_ino). Prints "ready" once the mount is
 * there; unmount it to stop it.
 *
 * A second file, "hang", is never answered: its first read says
 * "hanging" and the server, single-threaded, sleeps for good, so every
 * later request to it stays queued (a FUSE wait that only SIGKILL ends).
 * Kill the server to end it; the kernel then fails what is queued.
 *
 * FUSEFILE_NLINK=N in the environment makes the server say "f" has N
 * links (default 1): a hostile server's 0.
 *
 * FUSEFILE_FSNAME=TEXT mounts with -o fsname=TEXT: the mount's source in
 * mountinfo, which any user of fusermount3 chooses (/dev/sdb1 too).
 */
#include <unistd.h>
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char content[] = "fuse content\n";
static ino_t file_ino = 42;
static nlink_t file_nlink = 1;

static int ff_getattr(const char *path, struct stat *st,
		      struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (!strcmp(path, "/")) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		st->st_ino = 1;
		return 0;
	}
	if (strcmp(path, "/f") && strcmp(path, "/hang"))
		return -ENOENT;
	st->st_mode = S_IFREG | 0644;
	st->st_nlink = file_nlink;
	st->st_ino = file_ino;
	st->st_size = sizeof(content) - 1;
	return 0;
}

static int ff_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		      off_t off, struct fuse_file_info *fi,
		      enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/"))
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "f", NULL, 0, 0);
	fill(buf, "hang", NULL, 0, 0);
	return 0;
}

static int ff_open(const char *path, struct fuse_file_info *fi)
{
	(void)fi;
	return strcmp(path, "/f") && strcmp(path, "/hang") ? -ENOENT : 0;
}

static int ff_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	size_t len = sizeof(content) - 1;

	(void)fi;
	if (!strcmp(path, "/hang")) {
		printf("hanging\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	if (strcmp(path, "/f"))
		return -ENOENT;
	if ((size_t)off >= len)
		return 0;
	if (size > len - (size_t)off)
		size = len - (size_t)off;
	memcpy(buf, content + off, size);
	return (int)size;
}

static void *ff_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	cfg->use_ino = 1;
	/* every read reaches the server: no page cache to hide behind */
	cfg->direct_io = 0;
	printf("ready\n");
	fflush(stdout);
	return NULL;
}

static const struct fuse_operations ops = {
	.init = ff_init,
	.getattr = ff_getattr,
	.readdir = ff_readdir,
	.open = ff_open,
	.read = ff_read,
};

int main(int argc, char **argv)
{
	static char fsname[4096];
	char *args[] = { argv[0], "-f", "-s", "-o", "allow_other",
			 argc > 1 ? argv[1] : NULL, NULL, NULL, NULL };
	int nargs = 6;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: fusefile MOUNTPOINT [INO]\n");
		return 2;
	}
	if (getenv("FUSEFILE_NLINK"))
		file_nlink = (nlink_t)strtoul(getenv("FUSEFILE_NLINK"), NULL, 10);
	if (argc == 3)
		file_ino = (ino_t)strtoull(argv[2], NULL, 10);
	if (getenv("FUSEFILE_FSNAME")) {
		snprintf(fsname, sizeof(fsname), "fsname=%s",
			 getenv("FUSEFILE_FSNAME"));
		args[nargs++] = "-o";
		args[nargs++] = fsname;
	}
	return fuse_main(nargs, args, &ops, NULL);
}
