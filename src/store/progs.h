/* SPDX-License-Identifier: GPL-2.0 */
/*
 * progs.h - this build's loaded programs, kept pinned for the next start
 * (progs.c).
 */
#ifndef REVOKE_STORE_PROGS_H
#define REVOKE_STORE_PROGS_H

#include <stdbool.h>

struct btf;
struct store;
struct revoke_bpf_skel;

int progs_map_ids(struct store *rb, struct revoke_bpf_skel *skel);
bool progs_uses_our_maps(const struct store *rb, int prog_fd);
int progs_adopt(struct store *rb, struct revoke_bpf_skel *skel,
		const struct btf *btf);
int progs_keep(struct store *rb, struct revoke_bpf_skel *skel);
int progs_remove(const char *pin_dir);
void progs_close(struct store *rb);

#endif /* REVOKE_STORE_PROGS_H */
