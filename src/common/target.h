/* SPDX-License-Identifier: GPL-2.0 */
/*
 * target.h - the one grammar of what add, del and umount name (a PATH,
 * --inode N [--dev MAJ:MIN], --fs FS [--force], --rdev MAJ:MIN
 * --char|--block) and of add's options, shared by revoke-bpf's command
 * line (cli_target.c) and revoke-bpfd's declared files (declared.c); a
 * line of a declared file split into words, and a request written back
 * as the line that makes it (add --persist, the declared set's hash).
 */
#ifndef REVOKE_TARGET_H
#define REVOKE_TARGET_H

#include <stdbool.h>
#include <stddef.h>

#include "ctl_proto.h"

/* what revoke_target_parse() accepts besides the grammar */
#define REVOKE_TARGET_CLI	0x1	/* --json, add --persist: the CLI's */

/**
 * struct revoke_target - what revoke_target_parse() found besides @req
 * @operand: the PATH, or FS with --fs (REVOKE_FS_PATH), or NULL
 * @json: --json was given (REVOKE_TARGET_CLI)
 * @persist: add --persist was given (REVOKE_TARGET_CLI)
 */
struct revoke_target {
	const char *operand;
	bool json;
	bool persist;
};

int revoke_target_parse(int argc, char **argv, unsigned int flags,
			struct revoke_req *req, struct revoke_target *t,
			char *err, size_t errlen);
int revoke_target_split(char *line, char **argv, int max, const char **why);
int revoke_target_format(const struct revoke_req *req, const char *operand,
			 char *out, size_t len);

#endif /* REVOKE_TARGET_H */
