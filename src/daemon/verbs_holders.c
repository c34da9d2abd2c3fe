// SPDX-License-Identifier: GPL-2.0
/*
 * verbs_holders.c - holders: who holds a file, or a whole filesystem, and
 * how, without revoking anything, for the handler table in verbs.c.
 *
 * Everything comes from the BPF iterators (bpf/holders.bpf.c): the
 * descriptors, mappings and io_uring resources of the file or of any
 * inode of the filesystem, and the threads whose current or root
 * directory, or executable, is on it.  Nothing on the filesystem is ever
 * stat()ed or opened, so that holders answers when the server or the
 * device behind it is gone; a holder's uid and name come from the same
 * walk as the current directories (or from /proc, for a process that
 * walk missed).
 *
 * The answer:
 *
 *	ok holders
 *	fs=MAJ:MIN [fstype=NAME]		(fs=) or dev=MAJ:MIN ino=N
 *	holder pid=N uid=N comm=PCT fd=3,4|- mappings=N io_uring=N
 *		cwd=yes|no root=yes|no exe=yes|no	(one per process)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "daemon.h"
#include "inject/inject.h"
#include "named.h"

/**
 * struct holders_entry - one process holding the file or filesystem
 * @pid: the process
 * @fds: its descriptors of it (from one holder_proc, not owned)
 * @nfds: their number
 * @nvmas: its mappings of it
 * @nrings: its io_uring resources of it
 * @refs: REVOKE_HOLDER_CWD, _ROOT and _EXE as bits (1 << kind)
 */
struct holders_entry {
	pid_t pid;
	const int *fds;
	size_t nfds;
	size_t nvmas;
	size_t nrings;
	unsigned int refs;
};

/**
 * struct holders_table - every process found, by pid
 * @e: the entries
 * @nr: their number
 * @refs: the walk of every thread: cwd, root and exe records, and each
 *	process's name and uid
 */
struct holders_table {
	struct holders_entry *e;
	size_t nr;
	struct holder_fsrefs refs;
};

/* @pid's entry, made if need be; @new: it has none yet. */
static struct holders_entry *verbs_holders_entry(struct holders_table *t,
						 pid_t pid, bool new)
{
	struct holders_entry *e;
	size_t i;

	for (i = 0; !new && i < t->nr; i++)
		if (t->e[i].pid == pid)
			return &t->e[i];
	e = realloc(t->e, (t->nr + 1) * sizeof(*e));
	if (!e)
		return NULL;
	t->e = e;
	e += t->nr++;
	memset(e, 0, sizeof(*e));
	e->pid = pid;
	return e;
}

/* The descriptors, mappings and rings of @set, into @t. */
static int verbs_holders_add_set(struct holders_table *t,
				 const struct holder_set *set)
{
	bool first = !t->nr;	/* a set names each process once */
	struct holders_entry *e;
	size_t i, j;

	for (i = 0; i < set->nr; i++) {
		const struct holder_proc *p = &set->procs[i];

		e = verbs_holders_entry(t, p->tgid, first);
		if (!e)
			return -ENOMEM;
		/* an overlayfs file's second key: the first set's fds stand */
		if (!e->fds) {
			e->fds = p->fds;
			e->nfds = p->nfds;
		}
		e->nvmas += p->nvmas;
		for (j = 0; j < p->nrings; j++)
			e->nrings += p->rings[j].found;
	}
	return 0;
}

/* The threads of @refs whose reference is one of @keys (NULL: any). */
static int verbs_holders_add_refs(struct holders_table *t,
				  const struct holder_fsrefs *refs,
				  const struct revoke_key *keys, size_t nkeys,
				  pid_t peer)
{
	struct holders_entry *e;
	size_t i, k;

	for (i = 0; i < refs->nr; i++) {
		const struct holder_fsref *r = &refs->ref[i];

		if (r->tgid == peer)
			continue;
		for (k = 0; k < nkeys; k++)
			if (r->key.dev == keys[k].dev &&
			    r->key.ino == keys[k].ino)
				break;
		if (keys && k == nkeys)
			continue;
		e = verbs_holders_entry(t, r->tgid, false);
		if (!e)
			return -ENOMEM;
		e->refs |= 1u << r->kind;
	}
	return 0;
}

static int verbs_holders_by_pid(const void *a, const void *b)
{
	const struct holders_entry *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/*
 * The real uid and the name of @pid, as the walk read them, or else from
 * @proc; -1 and "" if it is gone.
 */
static void verbs_holders_describe(const char *proc,
				   const struct holder_fsrefs *refs, pid_t pid,
				   long *uid, char comm[16])
{
	const struct holder_task *t = holder_fsrefs_task(refs, pid);

	if (t) {
		*uid = (long)t->uid;
		snprintf(comm, 16, "%s", t->comm);
		return;
	}
	*uid = -1;
	comm[0] = '\0';
	procfs_describe(proc, pid, uid, comm);
}

static const char *verbs_holders_yes(const struct holders_entry *e,
				     uint32_t kind)
{
	return e->refs & (1u << kind) ? "yes" : "no";
}

/* One "holder" line. */
static void verbs_holders_line(struct rbuf *resp, const char *proc,
			       const struct holder_fsrefs *refs,
			       const struct holders_entry *e)
{
	char comm[16], enc[3 * 16 + 1];
	long uid;
	size_t i;

	verbs_holders_describe(proc, refs, e->pid, &uid, comm);
	if (revoke_pct_encode(comm, enc, sizeof(enc)) < 0 || !comm[0])
		snprintf(enc, sizeof(enc), "?");
	rbuf_printf(resp, REVOKE_LINE_HOLDER " " REVOKE_FIELD_PID "=%d "
		    REVOKE_FIELD_UID "=%ld", (int)e->pid, uid);
	revoke_user_field(resp, uid);
	rbuf_printf(resp, " " REVOKE_FIELD_COMM "=%s " REVOKE_FIELD_FD "=", enc);
	for (i = 0; i < e->nfds; i++)
		rbuf_printf(resp, "%s%d", i ? "," : "", e->fds[i]);
	rbuf_printf(resp, "%s " REVOKE_FIELD_MAPPINGS "=%zu "
		    REVOKE_FIELD_IO_URING "=%zu " REVOKE_FIELD_CWD "=%s "
		    REVOKE_FIELD_ROOT "=%s " REVOKE_FIELD_EXE "=%s\n",
		    e->nfds ? "" : "-", e->nvmas, e->nrings,
		    verbs_holders_yes(e, REVOKE_HOLDER_CWD),
		    verbs_holders_yes(e, REVOKE_HOLDER_ROOT),
		    verbs_holders_yes(e, REVOKE_HOLDER_EXE));
}

static void verbs_holders_lines(struct rbuf *resp, const char *proc,
				struct holders_table *t)
{
	size_t i;

	qsort(t->e, t->nr, sizeof(*t->e), verbs_holders_by_pid);
	for (i = 0; i < t->nr; i++)
		verbs_holders_line(resp, proc, &t->refs, &t->e[i]);
}

/*
 * Find what holds filesystem @s_dev, or, with @keys, those of its inodes
 * only, into @t; @sets (one per key, or one) keep the descriptor lists.
 */
static int verbs_holders_find(struct daemon *d, pid_t peer, uint32_t s_dev,
			      const struct revoke_key *keys, size_t nkeys,
			      struct holder_set *sets, struct holders_table *t)
{
	struct holders *h = &d->pipeline.holders;
	size_t i;
	int err = 0;

	holders_skip(h, getpid(), peer);
	if (!keys)
		err = holders_find_fs(h, s_dev, &sets[0]);
	holders_walk_buffers(h, s_dev);		/* its files' filesystem */
	for (i = 0; keys && i < nkeys && !err; i++)
		err = holders_find(h, &keys[i], &sets[i]);
	holders_walk_buffers(h, 0);
	if (!err)
		err = holders_fsrefs_tasks(h, s_dev, &t->refs);
	holders_skip(h, getpid(), 0);
	if (err)
		return err;
	for (i = 0; i < (keys ? nkeys : 1) && !err; i++)
		err = verbs_holders_add_set(t, &sets[i]);
	if (!err)
		err = verbs_holders_add_refs(t, &t->refs, keys, nkeys, peer);
	return err;
}

/* The file a path= request sent: its keys, and its filesystem's s_dev. */
static int verbs_holders_file(struct daemon *d, const struct ctl_peer *peer,
			      const struct revoke_req *req,
			      struct named_file *nf, struct rbuf *resp)
{
	char why[256];
	int err;

	if (peer->sent_fd < 0) {
		answer_err(resp, EINVAL, "bad request: path comes with a "
			   "descriptor of the file, and none came");
		return -1;
	}
	err = store_layout_update(&d->rb, false);
	if (err < 0) {
		answer_err(resp, -err, "cannot update revoke_layout: %s",
			   strerror(-err));
		return -1;
	}
	err = named_file(&d->pipeline.holders, peer->sent_fd, nf, why,
			 sizeof(why));
	/* a directory is held as a current or root directory */
	if (err == -EISDIR) {
		nf->keys[0] = nf->id.key;
		nf->nkeys = 1;
		err = 0;
	}
	if (err) {
		answer_err(resp, -err, "'%s': %s", req->path, why);
		return -1;
	}
	return 0;
}

/* Answer @t, or the error that stopped the search. */
static int verbs_holders_answer(struct daemon *d, int err,
				struct holders_table *t, struct rbuf *head,
				struct rbuf *resp)
{
	if (err) {
		answer_err(resp, -err, "cannot walk the holders: %s",
			   strerror(-err));
		return -1;
	}
	rbuf_printf(resp, "ok " REVOKE_OK_HOLDERS "\n%s",
		    head->data ? head->data : "\n");
	verbs_holders_lines(resp, d->proc, t);
	return 0;
}

/**
 * verbs_holders() - holders: every process holding a file (path=, with
 *	its descriptor sent) or a filesystem (fs=MAJ:MIN, or fs=yes with
 *	a file of it sent), and how
 * @d: the daemon
 * @peer: who asks; never reported itself
 * @req: the request
 * @resp: the answer (see the top of this file)
 *
 * Return: 0, or -1 once an error is answered.
 */
int verbs_holders(struct daemon *d, const struct ctl_peer *peer,
		  const struct revoke_req *req, struct rbuf *resp)
{
	struct holder_set sets[NAMED_MAX_KEYS] = {};
	struct holders_table t = {};
	struct rbuf head = {};
	struct named_file nf;
	struct fs_target ft;
	char why[512];
	size_t i;
	int err;

	if (!req->fs && !req->has_path) {
		answer_err(resp, EINVAL, "bad request: holders needs path "
			   "(with the file sent) or fs");
		return -1;
	}
	if (!d->pipeline.ready) {
		answer_err(resp, ENOSYS, "cannot walk the holders: %s",
			   d->pipeline.why);
		return -1;
	}
	if (req->fs) {
		err = filesystems_named(d, peer, req, &ft, why, sizeof(why));
		if (err) {
			answer_err(resp, -err, "%s", why);
			return -1;
		}
		filesystems_answer_target(&head, &ft);
		rbuf_printf(&head, "\n");
		err = verbs_holders_find(d, peer->pid, ft.s_dev, NULL, 0, sets,
					 &t);
	} else {
		if (verbs_holders_file(d, peer, req, &nf, resp))
			return -1;
		rbuf_printf(&head, REVOKE_FIELD_DEV "=%u:%u " REVOKE_FIELD_INO
			    "=%llu\n", revoke_kdev_major(nf.keys[0].dev),
			    revoke_kdev_minor(nf.keys[0].dev),
			    (unsigned long long)nf.keys[0].ino);
		err = verbs_holders_find(d, peer->pid, nf.id.s_dev, nf.keys,
					 nf.nkeys, sets, &t);
	}
	err = verbs_holders_answer(d, err, &t, &head, resp);
	for (i = 0; i < NAMED_MAX_KEYS; i++)
		holder_set_free(&sets[i]);
	free(t.e);
	holder_fsrefs_free(&t.refs);
	rbuf_free(&head);
	return err;
}
