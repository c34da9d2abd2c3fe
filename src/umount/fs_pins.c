// SPDX-License-Identifier: GPL-2.0
/*
 * fs_pins.c - find and release what pins a filesystem without a
 * descriptor: its mounts in every mount namespace and the mounts below
 * them, swap files on it, loop devices backed by files on it.
 *
 * Nothing on the filesystem is stat()ed or opened (its server or device
 * may be dead): each namespace's mountinfo, /proc/swaps and the loop
 * devices' backing_file are read from inside that namespace (paths there
 * are relative to its root), files are placed on a mount by the longest
 * mount point that is a prefix of their path, and a loop device's
 * LOOP_GET_STATUS64 lo_device is a second signal.
 *
 * Release order: swapoff (a swap file holds its file open), LOOP_CLR_FD
 * of the loop devices with nothing mounted from them (a bound loop device
 * holds its backing file open: the mount would stay busy), then in each
 * namespace umount2(UMOUNT_NOFOLLOW), never MNT_DETACH, innermost first,
 * each mount looked up again by its id just before (propagation may have
 * taken it already): fs_release.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "umount.h"

/* What one namespace's child read: mountinfo, swaps, each backing_file. */
struct ns_read {
	struct fs_mount_table t;
	struct fs_swap_entry *swap;
	size_t nr_swap;
	char **backing;		/* per loop, or NULL */
};

static void ns_read_free(struct ns_read *r, size_t nr_loops)
{
	size_t i;

	fs_mounts_table_free(&r->t);
	fs_swap_free(r->swap, r->nr_swap);
	for (i = 0; r->backing && i < nr_loops; i++)
		free(r->backing[i]);
	free(r->backing);
}

/* The NUL-separated section @i of @buf (length @len), or NULL. */
static char *section(char *buf, size_t len, size_t i)
{
	char *s = buf, *end = buf + len, *z;

	for (; s < end; s = z + 1) {
		z = memchr(s, '\0', (size_t)(end - s));
		if (!z)
			return NULL;
		if (i-- == 0)
			return s;
	}
	return NULL;
}

static int read_ns(const struct fs_ns *ns, const unsigned int *loops,
		   size_t nr_loops, struct ns_read *r)
{
	size_t i, nr = 2 + nr_loops, len;
	const char **name = calloc(nr, sizeof(*name));
	char **names = calloc(nr, sizeof(*names));
	int *dirfd = calloc(nr, sizeof(*dirfd));
	char **sec = calloc(nr, sizeof(*sec));
	int procfd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
	int sysfd = open("/sys/block", O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct fs_ns_files f = { dirfd, name, nr };
	char *buf = NULL, *s;
	int err = -ENOMEM;

	memset(r, 0, sizeof(*r));
	r->backing = calloc(nr_loops + 1, sizeof(*r->backing));
	if (!name || !names || !dirfd || !sec || !r->backing)
		goto out;
	err = procfd < 0 || sysfd < 0 ? -errno : 0;
	for (i = 0; !err && i < nr; i++) {
		dirfd[i] = i < 2 ? procfd : sysfd;
		if (i < 2)
			name[i] = i ? "swaps" : "self/mountinfo";
		else if (asprintf(&names[i], "loop%u/loop/backing_file",
				  loops[i - 2]) < 0)
			err = -ENOMEM;
		else
			name[i] = names[i];
	}
	if (!err)
		err = fs_ns_run(ns, fs_ns_cat, &f, &buf, &len);
	/* every section found before any is parsed (which cuts it up) */
	for (i = 0; !err && i < nr; i++)
		sec[i] = section(buf, len, i);
	if (!err && !sec[0])
		err = -EIO;
	if (!err)
		err = fs_mounts_parse(sec[0], strlen(sec[0]), &r->t);
	if (!err && sec[1])
		err = fs_swap_parse(sec[1], &r->swap, &r->nr_swap);
	for (i = 0; !err && i < nr_loops; i++) {
		s = sec[2 + i];
		if (!s || !*s)
			continue;
		fs_loops_backing_trim(s);
		r->backing[i] = strdup(s);
		if (!r->backing[i])
			err = -ENOMEM;
	}
out:
	for (i = 0; names && i < nr; i++)
		free(names[i]);
	free(names);
	free(name);
	free(dirfd);
	free(sec);
	free(buf);
	if (procfd >= 0)
		close(procfd);
	if (sysfd >= 0)
		close(sysfd);
	return err;
}

static int add_mounts(struct fs_pins *p, unsigned int ns,
		      const struct fs_mount_table *t)
{
	const struct fs_mount *m;
	struct fs_pins_mount *pm;
	size_t i;

	for (i = 0; i < t->nr; i++) {
		m = &t->m[i];
		if (m->dev != p->s_dev && !fs_mounts_below(t, i, p->s_dev))
			continue;
		pm = realloc(p->mnt, (p->nr_mnt + 1) * sizeof(*pm));
		if (!pm)
			return -ENOMEM;
		p->mnt = pm;
		pm = &pm[p->nr_mnt];
		*pm = (struct fs_pins_mount){
			.ns = ns, .id = m->id, .dev = m->dev,
			.path = strdup(m->path), .depth = m->depth,
			.submount = m->dev != p->s_dev,
		};
		if (!pm->path)
			return -ENOMEM;
		p->nr_mnt++;
		if (!p->source && m->dev == p->s_dev &&
		    !(p->source = strdup(m->source)))
			return -ENOMEM;
	}
	return 0;
}

/* Is @path, in the namespace whose mounts are @t, on the filesystem? */
static bool on_fs(const struct fs_pins *p, const struct fs_mount_table *t,
		  const char *path)
{
	const struct fs_mount *m = fs_mounts_lookup(t, path);

	return m && m->dev == p->s_dev;
}

static int add_swaps(struct fs_pins *p, unsigned int ns,
		     const struct ns_read *r)
{
	const struct fs_swap_entry *e;
	struct fs_pins_swap *ps;
	size_t i, j;

	for (i = 0; i < r->nr_swap; i++) {
		e = &r->swap[i];
		if (!e->is_file || !on_fs(p, &r->t, e->path))
			continue;
		for (j = 0; j < p->nr_swap; j++)
			if (p->swap[j].index == e->index)
				break;
		if (j < p->nr_swap)
			continue;	/* found in an earlier namespace */
		ps = realloc(p->swap, (p->nr_swap + 1) * sizeof(*ps));
		if (!ps)
			return -ENOMEM;
		p->swap = ps;
		ps[p->nr_swap] = (struct fs_pins_swap){
			.ns = ns, .path = strdup(e->path), .index = e->index,
		};
		if (!ps[p->nr_swap].path)
			return -ENOMEM;
		p->nr_swap++;
	}
	return 0;
}

/* Is a filesystem mounted from loop device @l, in any namespace? */
static void loop_mounted(struct fs_pins_loop *l, const struct ns_read *r,
			 size_t nr_ns)
{
	char node[32];
	size_t i, j;

	snprintf(node, sizeof(node), "/dev/loop%u", l->n);
	for (i = 0; i < nr_ns; i++)
		for (j = 0; j < r[i].t.nr; j++)
			if (r[i].t.m[j].dev == l->rdev ||
			    !strcmp(r[i].t.m[j].source, node)) {
				l->mounted = true;
				l->mounted_dev = r[i].t.m[j].dev;
				return;
			}
}

/*
 * Loop device @n (index @k of the list): on the filesystem if its
 * lo_device is s_dev, or if its backing_file path is under a mount of it
 * and lo_device does not say otherwise: unreadable, or an anonymous
 * device (major 0) while s_dev is one too (on btrfs, lo_device is the
 * subvolume's anonymous device, s_dev the filesystem's).
 */
static int add_loop(struct fs_pins *p, unsigned int n, size_t k,
		    const struct ns_read *r)
{
	struct fs_pins_loop l = { .n = n, .ns = -1 };
	struct fs_pins_loop *pl;
	bool status_ok;
	dev_t lo_dev = 0;
	size_t i;

	for (i = 0; i < p->nr_ns && !l.by_path; i++)
		if (r[i].backing[k] && on_fs(p, &r[i].t, r[i].backing[k])) {
			l.by_path = true;
			l.ns = (int)i;
		}
	status_ok = !fs_loops_status(n, &lo_dev);
	l.by_status = status_ok && lo_dev == p->s_dev;
	if (!l.by_status &&
	    !(l.by_path && (!status_ok ||
			    (major(lo_dev) == 0 && major(p->s_dev) == 0))))
		return 0;
	if (fs_loops_rdev(n, &l.rdev))
		return 0;	/* gone meanwhile */
	l.backing = strdup(r[l.ns < 0 ? 0 : l.ns].backing[k] ?: "");
	if (!l.backing)
		return -ENOMEM;
	loop_mounted(&l, r, p->nr_ns);
	pl = realloc(p->loop, (p->nr_loop + 1) * sizeof(*pl));
	if (!pl) {
		free(l.backing);
		return -ENOMEM;
	}
	p->loop = pl;
	pl[p->nr_loop++] = l;
	return 0;
}

static int find_all(struct fs_pins *p, struct ns_read *r,
		    const unsigned int *loops, size_t nr_loops, char *msg,
		    size_t msglen)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < p->nr_ns; i++) {
		err = read_ns(&p->ns[i], loops, nr_loops, &r[i]);
		if (err) {
			snprintf(msg, msglen,
				 "cannot read mount namespace %lu (pid %d): %s",
				 (unsigned long)p->ns[i].ino, p->ns[i].pid,
				 strerrorname_np(-err) ?: "EIO");
			return err;
		}
		err = add_mounts(p, (unsigned int)i, &r[i].t);
		if (!err)
			err = add_swaps(p, (unsigned int)i, &r[i]);
	}
	for (i = 0; !err && i < nr_loops; i++)
		err = add_loop(p, loops[i], i, r);
	if (err)
		snprintf(msg, msglen, "%s", strerror(-err));
	return err;
}

/**
 * fs_pins_find() - find what pins the superblock @s_dev without a
 *	descriptor: its mounts in every mount namespace, the mounts below
 *	them, swap files and loop devices' backing files on it
 * @s_dev: the superblock (mountinfo's MAJ:MIN, as a user-space dev_t)
 * @p: the result (fs_pins_free() it, whatever the return)
 * @err: a one-line reason on failure
 * @errlen: its size
 *
 * Return: 0; -ENOENT if no namespace has a mount of it (@p still holds
 * the rest); another negative errno if something could not be read.
 */
int fs_pins_find(dev_t s_dev, struct fs_pins *p, char *err, size_t errlen)
{
	unsigned int *loops = NULL;
	struct ns_read *r = NULL;
	size_t nr_loops = 0, i;
	int ret;

	memset(p, 0, sizeof(*p));
	p->s_dev = s_dev;
	err[0] = '\0';
	ret = fs_ns_list(&p->ns, &p->nr_ns);
	if (ret) {
		snprintf(err, errlen, "cannot list mount namespaces: %s",
			 strerror(-ret));
		return ret;
	}
	ret = fs_loops_list(&loops, &nr_loops);
	if (ret) {
		snprintf(err, errlen, "cannot list loop devices: %s",
			 strerror(-ret));
		return ret;
	}
	r = calloc(p->nr_ns, sizeof(*r));
	ret = r ? find_all(p, r, loops, nr_loops, err, errlen) : -ENOMEM;
	for (i = 0; r && i < p->nr_ns; i++)
		ns_read_free(&r[i], nr_loops);
	free(r);
	free(loops);
	if (ret == -ENOMEM && !err[0])
		snprintf(err, errlen, "%s", strerror(ENOMEM));
	if (ret)
		return ret;
	fs_mounts_sort(p->mnt, p->nr_mnt);
	for (i = 0; i < p->nr_mnt && p->mnt[i].submount; i++)
		;
	if (i == p->nr_mnt) {
		snprintf(err, errlen, "no mount of %u:%u in %zu mount namespaces",
			 major(s_dev), minor(s_dev), p->nr_ns);
		return -ENOENT;
	}
	return 0;
}

/**
 * fs_pins_free() - free what fs_pins_find() found
 * @p: the pins
 */
void fs_pins_free(struct fs_pins *p)
{
	size_t i;

	for (i = 0; i < p->nr_mnt; i++)
		free(p->mnt[i].path);
	for (i = 0; i < p->nr_swap; i++)
		free(p->swap[i].path);
	for (i = 0; i < p->nr_loop; i++)
		free(p->loop[i].backing);
	free(p->mnt);
	free(p->swap);
	free(p->loop);
	free(p->source);
	fs_ns_free(p->ns, p->nr_ns);
	memset(p, 0, sizeof(*p));
}

static const char *enc(const char *in, char *out, size_t len)
{
	return revoke_pct_encode(in, out, len) < 0 ? "%3F" : out;
}

/**
 * fs_pins_print() - what fs_pins_find() found, one line each:
 *	"pin kind=mount ns=INO pid=PID dev=M:N path=P submount=yes|no",
 *	"pin kind=swap ns=INO pid=PID path=P" and
 *	"pin kind=loop rdev=M:N backing=P [ns=INO] match=path|status|path,status
 *	mounted=M:N|no" (paths percent-encoded)
 * @resp: the answer
 * @p: the pins
 */
void fs_pins_print(struct rbuf *resp, const struct fs_pins *p)
{
	const struct fs_ns *ns;
	char path[3 * 4096];
	size_t i;

	for (i = 0; i < p->nr_mnt; i++) {
		ns = &p->ns[p->mnt[i].ns];
		rbuf_printf(resp, REVOKE_LINE_PIN " " REVOKE_FIELD_KIND "=mount "
			    REVOKE_FIELD_NS "=%lu " REVOKE_FIELD_PID "=%d "
			    REVOKE_FIELD_DEV "=%u:%u " REVOKE_FIELD_PATH "=%s "
			    REVOKE_FIELD_SUBMOUNT "=%s\n",
			    (unsigned long)ns->ino, ns->pid,
			    major(p->mnt[i].dev), minor(p->mnt[i].dev),
			    enc(p->mnt[i].path, path, sizeof(path)),
			    p->mnt[i].submount ? "yes" : "no");
	}
	for (i = 0; i < p->nr_swap; i++) {
		ns = &p->ns[p->swap[i].ns];
		rbuf_printf(resp, REVOKE_LINE_PIN " " REVOKE_FIELD_KIND "=swap "
			    REVOKE_FIELD_NS "=%lu " REVOKE_FIELD_PID "=%d "
			    REVOKE_FIELD_PATH "=%s\n",
			    (unsigned long)ns->ino, ns->pid,
			    enc(p->swap[i].path, path, sizeof(path)));
	}
	for (i = 0; i < p->nr_loop; i++) {
		const struct fs_pins_loop *l = &p->loop[i];
		char nsw[32] = "", mnt[32] = "no";

		if (l->ns >= 0)
			snprintf(nsw, sizeof(nsw), REVOKE_FIELD_NS "=%lu ",
				 (unsigned long)p->ns[l->ns].ino);
		if (l->mounted)
			snprintf(mnt, sizeof(mnt), "%u:%u",
				 major(l->mounted_dev), minor(l->mounted_dev));
		rbuf_printf(resp, REVOKE_LINE_PIN " " REVOKE_FIELD_KIND "=loop "
			    REVOKE_FIELD_RDEV "=%u:%u " REVOKE_FIELD_BACKING "=%s "
			    "%s" REVOKE_FIELD_MATCH "=%s%s%s "
			    REVOKE_FIELD_MOUNTED "=%s\n",
			    major(l->rdev), minor(l->rdev),
			    enc(l->backing, path, sizeof(path)), nsw,
			    l->by_path ? "path" : "",
			    l->by_path && l->by_status ? "," : "",
			    l->by_status ? "status" : "", mnt);
	}
}
