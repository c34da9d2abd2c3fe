// SPDX-License-Identifier: GPL-2.0
/*
 * holders.c - run the holder iterators (bpf/holders.bpf.c) and group
 * their records by process.
 *
 * The iterators are loaded once, when the daemon starts; each search puts
 * the target in "holder_targets", reads both iterators to the end, and
 * takes the target out again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "holders.h"
#include "procfs.h"
#include "holders.skel.h"

/**
 * holders_open() - load the holder iterators
 * @h: result
 * @err: on failure, a one-line reason
 * @errlen: size of @err
 *
 * Return: 0 or a negative errno.
 */
int holders_open(struct holders *h, char *err, size_t errlen)
{
	int ret;

	memset(h, 0, sizeof(*h));
	h->skel = holders_bpf_skel__open_and_load();
	if (!h->skel) {
		ret = -errno;
		snprintf(err, errlen, "cannot load the holder iterators "
			 "(iter/task_file, iter/task_vma; Linux 5.12 or later): %s",
			 strerror(-ret));
		return ret;
	}
	h->fds_link = bpf_program__attach_iter(h->skel->progs.revoke_holder_fds,
					       NULL);
	h->vmas_link = bpf_program__attach_iter(h->skel->progs.revoke_holder_vmas,
						NULL);
	if (!h->fds_link || !h->vmas_link) {
		ret = -errno;
		snprintf(err, errlen, "cannot attach the holder iterators: %s",
			 strerror(-ret));
		holders_close(h);
		return ret;
	}
	return 0;
}

void holders_close(struct holders *h)
{
	bpf_link__destroy(h->fds_link);
	bpf_link__destroy(h->vmas_link);
	holders_bpf_skel__destroy(h->skel);
	memset(h, 0, sizeof(*h));
}

static struct holder_proc *proc_of(struct holder_set *set,
				   const struct revoke_holder *rec)
{
	pid_t tgid = (pid_t)rec->tgid;
	struct holder_proc *p;

	/* records come task by task: the last one is the likely match */
	if (set->nr && set->procs[set->nr - 1].tgid == tgid)
		return &set->procs[set->nr - 1];
	for (p = set->procs; p < set->procs + set->nr; p++)
		if (p->tgid == tgid)
			return p;
	p = realloc(set->procs, (set->nr + 1) * sizeof(*p));
	if (!p)
		return NULL;
	set->procs = p;
	p += set->nr++;
	memset(p, 0, sizeof(*p));
	p->tgid = tgid;
	p->start_boottime = rec->start_boottime;
	return p;
}

/* Remember the inode of @rec, once. */
static int add_inode(struct holder_set *set, const struct revoke_holder *rec)
{
	struct revoke_key *k;
	size_t i;

	for (i = 0; i < set->ninodes; i++)
		if (set->inodes[i].dev == rec->dev && set->inodes[i].ino == rec->ino)
			return 0;
	k = realloc(set->inodes, (set->ninodes + 1) * sizeof(*k));
	if (!k)
		return -ENOMEM;
	set->inodes = k;
	k[set->ninodes++] = (struct revoke_key){ .dev = rec->dev, .ino = rec->ino };
	return 0;
}

static int add_record(struct holder_set *set, const struct revoke_holder *rec)
{
	struct holder_proc *p = proc_of(set, rec);

	if (!p || add_inode(set, rec))
		return -ENOMEM;
	if (rec->kind == REVOKE_HOLDER_FD) {
		int *fds = realloc(p->fds, (p->nfds + 1) * sizeof(*fds));

		if (!fds)
			return -ENOMEM;
		p->fds = fds;
		fds[p->nfds++] = (int)rec->fd;
		set->nfds++;
	} else {
		struct holder_vma *v = realloc(p->vmas, (p->nvmas + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->vmas = v;
		v[p->nvmas].start = rec->start;
		v[p->nvmas].end = rec->end;
		p->nvmas++;
		set->nvmas++;
	}
	return 0;
}

/* Read one iterator to its end, adding its records to @set. */
static int run_iter(struct bpf_link *link, struct holder_set *set)
{
	struct revoke_holder recs[256];
	size_t have = 0, i;
	ssize_t n;
	int fd, err = 0;

	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		return -errno;
	for (;;) {
		n = read(fd, (char *)recs + have, sizeof(recs) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				err = -errno;
			break;
		}
		have += (size_t)n;
		for (i = 0; i + 1 <= have / sizeof(recs[0]) && !err; i++)
			err = add_record(set, &recs[i]);
		if (err)
			break;
		/* keep a partial record for the next read */
		memmove(recs, (char *)recs + i * sizeof(recs[0]),
			have - i * sizeof(recs[0]));
		have -= i * sizeof(recs[0]);
	}
	close(fd);
	return err;
}

/* Put @key in @map, read both iterators into @set, take @key out again. */
static int find(struct holders *h, int map, const void *key,
		struct holder_set *set)
{
	__u32 one = 1;
	int err;

	memset(set, 0, sizeof(*set));
	if (bpf_map_update_elem(map, key, &one, BPF_ANY))
		return -errno;
	err = run_iter(h->fds_link, set);
	if (!err)
		err = run_iter(h->vmas_link, set);
	bpf_map_delete_elem(map, key);
	if (err)
		holder_set_free(set);
	return err;
}

/**
 * holders_find() - every descriptor and mapping of an inode
 * @h: the loaded iterators
 * @key: the inode
 * @set: the result, grouped by process; free it with holder_set_free()
 *
 * Threads that share a descriptor table or an address space are reported
 * once, under their process.
 *
 * Return: 0 or a negative errno.
 */
int holders_find(struct holders *h, const struct revoke_key *key,
		 struct holder_set *set)
{
	return find(h, bpf_map__fd(h->skel->maps.holder_targets), key, set);
}

/**
 * holders_find_rdev() - every descriptor and mapping of a device's nodes
 * @h: the loaded iterators
 * @key: the device
 * @set: the result, as for holders_find(); @set->inodes lists the nodes
 *
 * Return: 0 or a negative errno.
 */
int holders_find_rdev(struct holders *h, const struct revoke_rdev_key *key,
		      struct holder_set *set)
{
	return find(h, bpf_map__fd(h->skel->maps.holder_rdev_targets), key, set);
}

/**
 * holder_pidfd() - a pidfd on a holder, if it is still the process that
 *	was found
 * @p: the holder, as holders_find() found it
 *
 * The pid may have been given to another process since: the start time
 * tells.  Once the pidfd is open, that process is named for good (a
 * later ptrace or signal by pid number should still check the pidfd:
 * pidfd_send_signal(pidfd, 0) fails once the process has exited).
 *
 * Return: the pidfd, or -ESRCH if the holder has exited.
 */
int holder_pidfd(const struct holder_proc *p)
{
	long tck = sysconf(_SC_CLK_TCK);
	char path[64], start[32];
	int pidfd;

	pidfd = (int)syscall(SYS_pidfd_open, p->tgid, 0);
	if (pidfd < 0)
		return -ESRCH;
	/* field 22, starttime: clock ticks since boot */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)p->tgid);
	if (tck <= 0 || procfs_stat_field(path, 22, start, sizeof(start)) ||
	    strtoull(start, NULL, 10) !=
	    p->start_boottime / (1000000000ull / (uint64_t)tck)) {
		close(pidfd);
		return -ESRCH;
	}
	return pidfd;
}

void holder_set_free(struct holder_set *set)
{
	size_t i;

	for (i = 0; i < set->nr; i++) {
		free(set->procs[i].fds);
		free(set->procs[i].vmas);
	}
	free(set->procs);
	free(set->inodes);
	memset(set, 0, sizeof(*set));
}
