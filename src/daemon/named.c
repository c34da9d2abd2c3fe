// SPDX-License-Identifier: GPL-2.0
/*
 * named.c - the keys of a file a client named.
 *
 * revoke-bpf opens the PATH it is given with O_PATH and sends the
 * descriptor with its request (SCM_RIGHTS).  What the daemon revokes is
 * what the kernel says that descriptor refers to, read by a BPF iterator
 * over the daemon's own descriptors (revoke_ident in bpf/holders.bpf.c)
 * with the very inode_key() the hooks use, never what stat(2) says: on
 * btrfs st_dev is a subvolume's device, not s_dev, and on overlayfs
 * st_dev and st_ino may be another layer's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "named.h"

static void add_key(struct named_file *nf, const struct revoke_key *key)
{
	size_t i;

	for (i = 0; i < nf->nkeys; i++)
		if (nf->keys[i].dev == key->dev && nf->keys[i].ino == key->ino)
			return;
	nf->keys[nf->nkeys++] = *key;
}

/*
 * An overlayfs file is revoked through the real files beneath it: the
 * hooks check an overlayfs file's real file, and the real files are what
 * mappings, the layers' own paths and other overlay mounts reach.  The
 * upper file comes first: it is the one the overlay reads once it exists.
 */
static int overlay_keys(struct named_file *nf, char *why, size_t whylen)
{
	if (nf->id.flags & REVOKE_IDENT_STACKED) {
		snprintf(why, whylen, "it is on an overlayfs stacked on another "
			 "overlayfs; revoke it by its path in the overlay below");
		return -EOPNOTSUPP;
	}
	if (nf->id.flags & REVOKE_IDENT_UPPER)
		add_key(nf, &nf->id.upper);
	if (nf->id.flags & REVOKE_IDENT_LOWER)
		add_key(nf, &nf->id.lower);
	if (nf->nkeys)
		return 0;
	snprintf(why, whylen, "cannot find the files beneath this overlayfs "
		 "file (is overlay's BTF in /sys/kernel/btf?)");
	return -ENOENT;
}

/**
 * named_file() - the keys of the file a client's descriptor refers to
 * @h: the loaded iterators (their revoke_layout brought up to date)
 * @fd: the descriptor (in this process)
 * @nf: the result
 * @why: on failure, a one-line reason
 * @whylen: size of @why
 *
 * Return: 0, -EISDIR for a directory, -ENOENT if an overlayfs file's real
 * files cannot be found, or another negative errno.
 */
int named_file(struct holders *h, int fd, struct named_file *nf, char *why,
	       size_t whylen)
{
	int ret;

	memset(nf, 0, sizeof(*nf));
	ret = holders_ident(h, fd, &nf->id);
	if (ret) {
		snprintf(why, whylen, "cannot read what the descriptor refers "
			 "to: %s", strerror(-ret));
		return ret;
	}
	nf->id.fstype[sizeof(nf->id.fstype) - 1] = '\0';
	if (S_ISDIR(nf->id.mode)) {
		snprintf(why, whylen, "it is a directory; revoke-bpf revokes "
			 "files and devices, not directories");
		return -EISDIR;
	}
	if (S_ISSOCK(nf->id.mode)) {
		snprintf(why, whylen, "it is a socket; connecting to it is not "
			 "a file operation and cannot be revoked");
		return -EINVAL;
	}
	if (!strcmp(nf->id.fstype, "overlay"))
		return overlay_keys(nf, why, whylen);
	add_key(nf, &nf->id.key);
	return 0;
}
