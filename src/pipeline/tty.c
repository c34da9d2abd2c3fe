// SPDX-License-Identifier: GPL-2.0
/*
 * tty.c - hang up a revoked tty after the deny.
 *
 * The kernel's hangup (TIOCVHANGUP, what a modem hangup does) clears the
 * controlling terminal of every process of the tty's session, sends
 * SIGHUP and SIGCONT to its leader, and gives every file open on the tty,
 * /dev/tty files included, the hung-up operations.  One file of the tty
 * is enough: it is taken before the deny, which would refuse the
 * daemon's own open and pidfd_getfd(), and the ioctl is made after the
 * deny and the pipeline (the hooks let revoke-bpfd's own TIOCVHANGUP
 * through, see bpf/reach.bpf.h).  A file is taken, in this order:
 *
 *  - a pty slave: opened by its name in each devpts instance mounted in
 *    the daemon's mount namespace (the slave cannot be opened through a
 *    node made with mknod elsewhere);
 *  - else a holder's /dev/tty, /dev/console or /dev/tty0 file that
 *    reaches the tty (TIOCGDEV), taken with pidfd_getfd().
 *
 * A tty held by its own name is also hung up before the deny, with the
 * other holders' devices, by kernel_revoke.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>

#include "common/common.h"
#include "tty.h"

#define PTY_SLAVE_MAJOR 136

/* The nodes whose files reach another tty (bpf/reach.bpf.h). */
static const unsigned int aliases[][2] = { { 5, 0 }, { 5, 1 }, { 4, 0 } };

static void keep(struct tty_hangup *th, int fd)
{
	if (th->nfds < TTY_HANGUP_FDS)
		th->fds[th->nfds++] = fd;
	else
		close(fd);
}

/* Undo mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
					(s[3] - '0'));
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

typedef bool (*devpts_fn)(const char *dir, uint32_t kdev, void *ctx);

/*
 * Call @fn with the mount point and s_dev of each devpts instance, once
 * per instance, until it returns true.
 */
static void for_each_devpts(devpts_fn fn, void *ctx)
{
	uint32_t seen[32], kdev;
	size_t nseen = 0, i;
	char *line = NULL, *dash, mnt[4096], type[64];
	unsigned int ma, mi;
	size_t cap = 0;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		dash = strstr(line, " - ");
		if (!dash || sscanf(dash, " - %63s", type) != 1 ||
		    strcmp(type, "devpts") ||
		    sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi, mnt) != 3 ||
		    revoke_kdev(ma, mi, &kdev))
			continue;
		for (i = 0; i < nseen && seen[i] != kdev; i++)
			;
		if (i < nseen)
			continue;
		if (nseen < sizeof(seen) / sizeof(seen[0]))
			seen[nseen++] = kdev;
		unescape(mnt);
		if (fn(mnt, kdev, ctx))
			break;
	}
	free(line);
	fclose(f);
}

/* Open @path as a tty, never as the daemon's controlling terminal. */
static int open_tty(const char *path)
{
	return open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
}

struct by_inode {
	struct tty_hangup *th;
	const struct revoke_key *key;
};

/* The devpts instance of @key: find its entry, and open it. */
static bool open_by_inode(const char *dir, uint32_t kdev, void *ctx)
{
	struct by_inode *bi = ctx;
	char path[4096 + 256];
	struct dirent *de;
	struct stat st;
	uint32_t rdev;
	DIR *d;
	int fd;

	if (kdev != bi->key->dev)
		return false;
	d = opendir(dir);
	if (!d)
		return true;
	while ((de = readdir(d))) {
		if (de->d_ino != bi->key->ino)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (lstat(path, &st) || !S_ISCHR(st.st_mode) ||
		    st.st_ino != bi->key->ino ||
		    revoke_kdev_from_stdev(st.st_rdev, &rdev))
			break;
		bi->th->is_tty = true;
		bi->th->tty.rdev = rdev;
		bi->th->tty.type = REVOKE_RDEV_CHAR;
		fd = open_tty(path);
		if (fd >= 0)
			keep(bi->th, fd);
		break;
	}
	closedir(d);
	return true;
}

/* Pty slave @th->tty in every devpts instance: open it by its name. */
static bool open_by_number(const char *dir, uint32_t kdev, void *ctx)
{
	struct tty_hangup *th = ctx;
	char path[4096 + 32];
	struct stat st;
	uint32_t rdev;
	int fd;

	(void)kdev;
	snprintf(path, sizeof(path), "%s/%u", dir,
		 revoke_kdev_minor(th->tty.rdev));
	fd = open_tty(path);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode) ||
	    revoke_kdev_from_stdev(st.st_rdev, &rdev) || rdev != th->tty.rdev) {
		close(fd);
		return false;
	}
	keep(th, fd);
	return false;
}

/* Does /proc/tty/drivers list @key as a tty (other than an alias)? */
static bool listed_tty(const struct revoke_rdev_key *key)
{
	unsigned int major = revoke_kdev_major(key->rdev);
	unsigned int minor = revoke_kdev_minor(key->rdev), ma, lo, hi;
	char line[256], range[64];
	bool found = false;
	size_t i;
	FILE *f;

	if (key->type != REVOKE_RDEV_CHAR)
		return false;
	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (major == aliases[i][0] && minor == aliases[i][1])
			return false;
	f = fopen("/proc/tty/drivers", "re");
	if (!f)
		return major == PTY_SLAVE_MAJOR;
	while (!found && fgets(line, sizeof(line), f)) {
		/* NAME /dev/NODE MAJOR MINOR[-MINOR] TYPE */
		if (sscanf(line, "%*s %*s %u %63s", &ma, range) != 2 || ma != major)
			continue;
		if (sscanf(range, "%u-%u", &lo, &hi) != 2) {
			if (sscanf(range, "%u", &lo) != 1)
				continue;
			hi = lo;
		}
		found = minor >= lo && minor <= hi;
	}
	fclose(f);
	return found;
}

/* Take a holder's alias file (/dev/tty ...) that reaches @th->tty. */
static void take_alias_fds(struct tty_hangup *th, struct holders *h)
{
	struct revoke_rdev_key alias = { .type = REVOKE_RDEV_CHAR };
	struct holder_set set;
	unsigned int dev;
	uint32_t kdev;
	size_t a, i, j;
	int pidfd, fd;

	for (a = 0; a < sizeof(aliases) / sizeof(aliases[0]) && !th->nfds; a++) {
		revoke_kdev(aliases[a][0], aliases[a][1], &alias.rdev);
		if (holders_find_rdev(h, &alias, &set))
			continue;
		for (i = 0; i < set.nr && !th->nfds; i++) {
			pidfd = holder_pidfd(&set.procs[i]);
			for (j = 0; pidfd >= 0 && j < set.procs[i].nfds; j++) {
				fd = (int)syscall(SYS_pidfd_getfd, pidfd,
						  set.procs[i].fds[j], 0);
				if (fd < 0)
					continue;
				if (!ioctl(fd, TIOCGDEV, &dev) &&
				    !revoke_kdev_from_stdev(dev, &kdev) &&
				    kdev == th->tty.rdev) {
					keep(th, fd);
					break;
				}
				close(fd);
			}
			if (pidfd >= 0)
				close(pidfd);
		}
		holder_set_free(&set);
	}
}

/**
 * tty_prepare_inode() - before the deny of an inode, take a file of it
 *	if it is a pty slave
 * @th: the result; nothing to do unless @th->is_tty
 * @h: the holder iterators, or NULL
 * @key: the inode
 */
void tty_prepare_inode(struct tty_hangup *th, struct holders *h,
		       const struct revoke_key *key)
{
	struct by_inode bi = { th, key };

	memset(th, 0, sizeof(*th));
	if (revoke_kdev_major(key->dev) != 0)
		return;		/* devpts has an anonymous device */
	for_each_devpts(open_by_inode, &bi);
	if (th->is_tty && !th->nfds && h)
		take_alias_fds(th, h);
}

/**
 * tty_prepare_rdev() - before the deny of a device, take a file of it if
 *	it is a tty
 * @th: the result; nothing to do unless @th->is_tty
 * @h: the holder iterators, or NULL
 * @key: the device
 */
void tty_prepare_rdev(struct tty_hangup *th, struct holders *h,
		      const struct revoke_rdev_key *key)
{
	memset(th, 0, sizeof(*th));
	if (!listed_tty(key))
		return;
	th->is_tty = true;
	th->tty = *key;
	if (revoke_kdev_major(key->rdev) == PTY_SLAVE_MAJOR)
		for_each_devpts(open_by_number, th);
	if (!th->nfds && h)
		take_alias_fds(th, h);
}

/*
 * Was the tty of @fd hung up already, e.g. by the kernel when its pty
 * master closed (the pipeline released it)?  A hung-up file refuses every
 * ioctl with EIO and polls POLLHUP.
 */
static bool hung_up(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return errno == EIO && poll(&p, 1, 0) == 1 && (p.revents & POLLHUP);
}

/**
 * tty_hangup_finish() - after the deny and the pipeline, hang the tty up
 *	and close the files taken
 * @th: from tty_prepare_inode() or tty_prepare_rdev(); @th->hungup may
 *	be set already (hung up before the deny through a holder's file)
 */
void tty_hangup_finish(struct tty_hangup *th)
{
	const char *name;
	size_t i;

	if (!th->is_tty)
		return;
	if (!th->nfds && !th->hungup)
		snprintf(th->why, sizeof(th->why), "no_file_of_it");
	for (i = 0; i < th->nfds; i++) {
		if (!ioctl(th->fds[i], TIOCVHANGUP) || hung_up(th->fds[i])) {
			th->hungup = true;
		} else if (!th->hungup) {
			name = strerrorname_np(errno);
			snprintf(th->why, sizeof(th->why), "%s", name ? name : "EIO");
		}
		close(th->fds[i]);
	}
	th->nfds = 0;
	if (th->hungup)
		th->why[0] = '\0';
	else
		log_err("tty %u:%u not hung up: %s\n",
			revoke_kdev_major(th->tty.rdev),
			revoke_kdev_minor(th->tty.rdev), th->why);
}

/* Close the files taken, without hanging up: the add failed. */
void tty_hangup_cancel(struct tty_hangup *th)
{
	size_t i;

	for (i = 0; i < th->nfds; i++)
		close(th->fds[i]);
	th->nfds = 0;
	th->is_tty = false;
}

/**
 * tty_hangup_report() - add's line for the tty: "tty rdev=M:N hungup=yes"
 *	or "tty rdev=M:N hungup=no reason=WORD"
 * @resp: the answer
 * @th: after tty_hangup_finish()
 */
void tty_hangup_report(struct rbuf *resp, const struct tty_hangup *th)
{
	if (!th->is_tty)
		return;
	rbuf_printf(resp, REVOKE_LINE_TTY " " REVOKE_FIELD_RDEV "=%u:%u "
		    REVOKE_FIELD_HUNGUP "=%s%s%s\n",
		    revoke_kdev_major(th->tty.rdev),
		    revoke_kdev_minor(th->tty.rdev), th->hungup ? "yes" : "no",
		    th->hungup ? "" : " " REVOKE_FIELD_REASON "=",
		    th->hungup ? "" : th->why);
}
