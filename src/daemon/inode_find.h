/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inode_find.h - which filesystems have an inode of a given number in use.
 * Used to resolve "revoke-bpf add INODE" when no --dev is given.
 */
#ifndef REVOKE_INODE_FIND_H
#define REVOKE_INODE_FIND_H

#include <stddef.h>
#include <stdint.h>

#define REVOKE_FIND_MAX 16

/**
 * struct inode_site - one filesystem on which the inode is in use
 * @kdev: the filesystem's device, kernel encoding
 * @example: a path by which some process holds it
 */
struct inode_site {
	uint32_t kdev;
	char example[128];
};

int inode_find_sites(const char *proc, uint64_t ino, struct inode_site *sites,
		     size_t max, size_t *nr);

#endif /* REVOKE_INODE_FIND_H */
