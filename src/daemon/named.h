/* SPDX-License-Identifier: GPL-2.0 */
/*
 * named.h - the keys of a file a client named by sending a descriptor.
 */
#ifndef REVOKE_NAMED_H
#define REVOKE_NAMED_H

#include <stddef.h>

#include "pipeline/pipeline.h"
#include "revoke_bpf.h"

#define NAMED_MAX_KEYS 2

/**
 * struct named_file - what a client's descriptor names, as the kernel says
 * @id: the iterator's record of it
 * @keys: what to revoke: the file's own key, or for an overlayfs file its
 *	upper (if copied up) and lower files, the real files beneath it
 * @nkeys: their number, 1 or 2
 */
struct named_file {
	struct revoke_ident id;
	struct revoke_key keys[NAMED_MAX_KEYS];
	size_t nkeys;
};

int named_file(struct holders *h, int fd, struct named_file *nf, char *why,
	       size_t whylen);

#endif /* REVOKE_NAMED_H */
