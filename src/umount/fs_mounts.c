// SPDX-License-Identifier: GPL-2.0
/*
 * fs_mounts.c - a mountinfo (read inside its namespace by fs_ns.c, so
 * that its paths are relative to the namespace's root rather than to some
 * process's chroot), parsed, and matched to paths by longest prefix,
 * never by stat().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "umount.h"

static int odigit(char c)
{
	return c >= '0' && c <= '7' ? c - '0' : -1;
}

/**
 * fs_mounts_unescape() - undo the kernel's octal escapes (\040 for a
 *	space, \011, \012, \134) in place, as mountinfo and /proc/swaps
 *	write a path
 * @s: the text
 */
void fs_mounts_unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && odigit(s[1]) >= 0 && odigit(s[2]) >= 0 &&
		    odigit(s[3]) >= 0) {
			*w++ = (char)(odigit(s[1]) << 6 | odigit(s[2]) << 3 |
				      odigit(s[3]));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

/* The next space-separated field of *@cur, NUL-terminated, or NULL. */
static char *field(char **cur)
{
	char *s = *cur, *e;

	if (!s || !*s)
		return NULL;
	e = strchr(s, ' ');
	if (e) {
		*e = '\0';
		*cur = e + 1;
	} else {
		*cur = s + strlen(s);
	}
	return s;
}

static int parse_line(char *line, struct fs_mount *m)
{
	char *cur = line, *f[5], *opt, *fstype, *source;
	unsigned int maj, min;
	int i;

	for (i = 0; i < 5; i++) {
		f[i] = field(&cur);
		if (!f[i])
			return -EINVAL;
	}
	/* mount options, then optional fields up to "-" */
	if (!field(&cur))
		return -EINVAL;
	do {
		opt = field(&cur);
		if (!opt)
			return -EINVAL;
	} while (strcmp(opt, "-"));
	fstype = field(&cur);
	source = field(&cur);
	if (!fstype || !source)
		return -EINVAL;
	if (sscanf(f[0], "%d", &m->id) != 1 ||
	    sscanf(f[1], "%d", &m->parent) != 1 ||
	    sscanf(f[2], "%u:%u", &maj, &min) != 2)
		return -EINVAL;
	m->dev = makedev(maj, min);
	fs_mounts_unescape(f[3]);
	fs_mounts_unescape(f[4]);
	fs_mounts_unescape(source);
	m->root = strdup(f[3]);
	m->path = strdup(f[4]);
	m->fstype = strdup(fstype);
	m->source = strdup(source);
	if (!m->root || !m->path || !m->fstype || !m->source)
		return -ENOMEM;
	return 0;
}

static const struct fs_mount *by_id(const struct fs_mount_table *t, int id)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (t->m[i].id == id)
			return &t->m[i];
	return NULL;
}

/* Each mount's depth: how many parents it has in the table. */
static void set_depths(struct fs_mount_table *t)
{
	const struct fs_mount *p;
	size_t i, hops;

	for (i = 0; i < t->nr; i++) {
		hops = 0;
		p = &t->m[i];
		while ((p = by_id(t, p->parent)) && hops < t->nr)
			hops++;
		t->m[i].depth = hops;
	}
}

static void mount_free(struct fs_mount *m)
{
	free(m->root);
	free(m->path);
	free(m->fstype);
	free(m->source);
}

/**
 * fs_mounts_parse() - parse a mountinfo
 * @text: its text (need not be NUL-terminated)
 * @len: its length
 * @t: the result (fs_mounts_table_free() it)
 *
 * Return: 0, -EINVAL for a line that is not a mountinfo line, -ENOMEM.
 */
int fs_mounts_parse(const char *text, size_t len, struct fs_mount_table *t)
{
	char *copy, *line, *save = NULL;
	struct fs_mount *m;
	int err = 0;

	t->m = NULL;
	t->nr = 0;
	copy = strndup(text, len);
	if (!copy)
		return -ENOMEM;
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		m = realloc(t->m, (t->nr + 1) * sizeof(*m));
		if (!m) {
			err = -ENOMEM;
			break;
		}
		t->m = m;
		memset(&m[t->nr], 0, sizeof(*m));
		err = parse_line(line, &m[t->nr]);
		t->nr++;
		if (err)
			break;
	}
	free(copy);
	if (err) {
		fs_mounts_table_free(t);
		return err;
	}
	set_depths(t);
	return 0;
}

/**
 * fs_mounts_table_free() - free a parsed mountinfo
 * @t: from fs_mounts_parse()
 */
void fs_mounts_table_free(struct fs_mount_table *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		mount_free(&t->m[i]);
	free(t->m);
	t->m = NULL;
	t->nr = 0;
}

/**
 * fs_mounts_is_prefix() - is @path at or under the mount point @mnt,
 *	component by component ("/mnt" is not a prefix of "/mnt2")
 * @mnt: an absolute mount point
 * @path: an absolute path
 *
 * Return: true if it is.
 */
bool fs_mounts_is_prefix(const char *mnt, const char *path)
{
	size_t n = strlen(mnt);

	if (n == 1 && mnt[0] == '/')
		return path[0] == '/';
	return !strncmp(mnt, path, n) && (path[n] == '/' || path[n] == '\0');
}

/**
 * fs_mounts_lookup() - the mount a path is on: the longest mount point
 *	that is a prefix of it, and of mounts on the same point the top one
 * @t: a namespace's mounts, read by a process at its root
 * @path: an absolute path in that namespace
 *
 * The path is not resolved: a symbolic link or ".." in it is taken as
 * written, as the kernel writes them (d_path) in /proc/swaps and a loop
 * device's backing_file.
 *
 * Return: the mount, or NULL if none is a prefix.
 */
const struct fs_mount *fs_mounts_lookup(const struct fs_mount_table *t,
					const char *path)
{
	const struct fs_mount *best = NULL;
	size_t i, n, best_n = 0;

	for (i = 0; i < t->nr; i++) {
		if (!fs_mounts_is_prefix(t->m[i].path, path))
			continue;
		n = strlen(t->m[i].path);
		if (!best || n > best_n ||
		    (n == best_n && t->m[i].depth > best->depth)) {
			best = &t->m[i];
			best_n = n;
		}
	}
	return best;
}

/**
 * fs_mounts_below() - is mount @i below a mount of @s_dev (its parent,
 *	or its parent's parent..., is one)?
 * @t: a namespace's mounts
 * @i: index in @t
 * @s_dev: the superblock
 *
 * Return: true if it is.
 */
bool fs_mounts_below(const struct fs_mount_table *t, size_t i, dev_t s_dev)
{
	const struct fs_mount *p = &t->m[i];
	size_t hops = 0;

	while ((p = by_id(t, p->parent)) && hops++ < t->nr)
		if (p->dev == s_dev)
			return true;
	return false;
}

static int cmp_mount(const void *a, const void *b)
{
	const struct fs_pins_mount *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth > y->depth ? -1 : 1;
	return x->id < y->id ? 1 : x->id > y->id ? -1 : 0;
}

/**
 * fs_mounts_sort() - order mounts to unmount: by namespace, and in each
 *	innermost first (deepest in the mount tree, so that a mount comes
 *	before its parent and the top of a stack before what it covers)
 * @m: the mounts
 * @nr: their number
 */
void fs_mounts_sort(struct fs_pins_mount *m, size_t nr)
{
	qsort(m, nr, sizeof(*m), cmp_mount);
}

/* The whole of /proc/self/mountinfo, NUL-terminated, or NULL. */
static char *read_self(void)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap), *more;
	ssize_t n;
	int fd;

	fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !buf)
		goto fail;
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len > 1)
			continue;
		more = realloc(buf, cap * 2);
		if (!more)
			goto fail;
		buf = more;
		cap *= 2;
	}
	if (n < 0)
		goto fail;
	close(fd);
	buf[len] = '\0';
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/**
 * fs_mounts_read_self() - revoke-bpfd's own mountinfo, parsed
 * @t: the result; fs_mounts_table_free() it
 *
 * Return: 0, -EIO if it cannot be read, or fs_mounts_parse()'s error.
 */
int fs_mounts_read_self(struct fs_mount_table *t)
{
	char *text = read_self();
	int err;

	if (!text)
		return -EIO;
	err = fs_mounts_parse(text, strlen(text), t);
	free(text);
	return err;
}
