// SPDX-License-Identifier: GPL-2.0
/*
 * request_keys.c - the inodes an add or del names: those of the file it
 * sent (path=), or the inode it numbers, on the filesystem it names or
 * the one filesystem where that inode is in use (add) or revoked (del).
 *
 * Nothing here answers the peer: what went wrong is said in @why, and
 * verbs.c writes it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/common.h"
#include "daemon.h"
#include "inode_find.h"
#include "store/store.h"

/* "MAJ:MIN (example), ..." for each of @sites. */
static void request_keys_list_sites(struct rbuf *out,
				    const struct inode_site *sites, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		rbuf_printf(out, "%s%u:%u (%s)", i ? ", " : "",
			    revoke_kdev_major(sites[i].kdev),
			    revoke_kdev_minor(sites[i].kdev), sites[i].example);
}

/*
 * The filesystem of an "add INODE" without --dev: the one filesystem on
 * which some process holds an inode of that number.
 */
static int request_keys_in_use(struct daemon *d, uint64_t ino, uint32_t *kdev,
			       char *why, size_t whylen)
{
	struct inode_site sites[REVOKE_FIND_MAX];
	struct rbuf names = {};
	size_t nr;
	int err;

	err = inode_find_sites(d->proc, ino, sites, REVOKE_FIND_MAX, &nr);
	if (err) {
		snprintf(why, whylen, "cannot walk %s to find inode %llu: %s",
			 d->proc, (unsigned long long)ino, strerror(-err));
		return err;
	}
	if (nr == 0) {
		snprintf(why, whylen,
			 "inode %llu is not open or mapped by any process, so its "
			 "filesystem is unknown; name it with --dev MAJ:MIN or "
			 "revoke it by PATH", (unsigned long long)ino);
		return -ENOENT;
	}
	if (nr > 1) {
		request_keys_list_sites(&names, sites, nr);
		snprintf(why, whylen,
			 "inode %llu is in use on %zu filesystems: %s; choose one "
			 "with --dev MAJ:MIN", (unsigned long long)ino, nr,
			 names.failed ? "?" : names.data);
		rbuf_free(&names);
		return -ENOTUNIQ;
	}
	*kdev = sites[0].kdev;
	return 0;
}

struct request_keys_match {
	uint64_t ino;
	struct revoke_key keys[REVOKE_FIND_MAX];
	size_t nr;
};

static int request_keys_match_ino(const struct revoke_key *key,
				  const struct revoke_val *val, void *ctx)
{
	struct request_keys_match *m = ctx;

	(void)val;
	if (key->ino == m->ino && m->nr < REVOKE_FIND_MAX)
		m->keys[m->nr++] = *key;
	return 0;
}

/*
 * The filesystem of a "del INODE" without --dev: the revoked entry's;
 * -ENOENT, @why untouched, if it is revoked nowhere.
 */
static int request_keys_revoked(struct daemon *d, uint64_t ino, uint32_t *kdev,
				char *why, size_t whylen)
{
	struct request_keys_match m = { .ino = ino };
	struct inode_site sites[REVOKE_FIND_MAX];
	struct rbuf names = {};
	size_t i;
	int err;

	err = inode_set_for_each(&d->rb, request_keys_match_ino, &m);
	if (err) {
		snprintf(why, whylen, "cannot read the revoked set: %s",
			 strerror(-err));
		return err;
	}
	if (m.nr == 0)
		return -ENOENT;
	if (m.nr > 1) {
		for (i = 0; i < m.nr; i++) {
			sites[i].kdev = m.keys[i].dev;
			snprintf(sites[i].example, sizeof(sites[i].example),
				 "revoked");
		}
		request_keys_list_sites(&names, sites, m.nr);
		snprintf(why, whylen,
			 "inode %llu is revoked on %zu filesystems: %s; choose one "
			 "with --dev MAJ:MIN", (unsigned long long)ino, m.nr,
			 names.failed ? "?" : names.data);
		rbuf_free(&names);
		return -ENOTUNIQ;
	}
	*kdev = m.keys[0].dev;
	return 0;
}

/* The keys of the file the peer sent with path=. */
static int request_keys_of_fd(struct daemon *d, const struct ctl_peer *peer,
			      const struct revoke_req *req,
			      struct named_file *nf, char *why, size_t whylen)
{
	char named_why[256];
	int err;

	if (peer->sent_fd < 0) {
		snprintf(why, whylen, "bad request: path comes with a "
			 "descriptor of the file, and none came");
		return -EINVAL;
	}
	if (!d->pipeline.ready) {
		snprintf(why, whylen, "cannot read what '%s' is from the "
			 "kernel: %s", req->path, d->pipeline.why);
		return -ENOSYS;
	}
	err = named_file(&d->pipeline.holders, peer->sent_fd, nf, named_why,
			 sizeof(named_why));
	if (err)
		snprintf(why, whylen, "'%s': %s", req->path, named_why);
	return err;
}

/**
 * request_keys_find() - the keys an add or del request names
 * @d: the daemon
 * @peer: who sent it (and the descriptor of a path=)
 * @req: the request
 * @nf: the keys
 * @why: what went wrong, on error
 * @whylen: its size
 *
 * Return: 0; 1 if a del named an inode revoked nowhere; or a negative
 * errno with @why filled.
 */
int request_keys_find(struct daemon *d, const struct ctl_peer *peer,
		      const struct revoke_req *req, struct named_file *nf,
		      char *why, size_t whylen)
{
	int err;

	memset(nf, 0, sizeof(*nf));
	/* a btrfs or overlay module loaded since: its files can be named now */
	err = store_layout_update(&d->rb, false);
	if (err < 0) {
		snprintf(why, whylen, "cannot update revoke_layout: %s",
			 strerror(-err));
		return err;
	}
	if (req->has_path)
		return request_keys_of_fd(d, peer, req, nf, why, whylen);
	nf->keys[0].ino = req->ino;
	nf->nkeys = 1;
	if (req->has_dev) {
		revoke_kdev(req->major, req->minor, &nf->keys[0].dev);
		return 0;
	}
	if (req->verb == REVOKE_VERB_ADD)
		return request_keys_in_use(d, req->ino, &nf->keys[0].dev, why,
					   whylen);
	err = request_keys_revoked(d, req->ino, &nf->keys[0].dev, why, whylen);
	return err == -ENOENT ? 1 : err;
}
