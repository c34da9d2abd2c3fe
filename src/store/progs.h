/* SPDX-License-Identifier: GPL-2.0 */
/*
 * progs.h - this build's loaded programs, kept pinned for the next start
 * (progs.c).
 */
#ifndef REVOKE_STORE_PROGS_H
#define REVOKE_STORE_PROGS_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/types.h>

/* the folders under the pin directory each object's programs are kept in */
#define PROGS_PREFIX "programs_"
#define ITERS_PREFIX "iterators_"

struct bpf_object;
struct bpf_prog_info;
struct btf;
struct store;
struct revoke_bpf_skel;

int progs_folder(const char *pin_dir, const char *prefix, const void *elf,
		 size_t sz, const void *extra, size_t extra_len, char *buf,
		 size_t len);
void progs_folder_clear(const char *path);
int progs_pinned(const char *dir, const char *name, __u32 type,
		 const __u32 *ids, int n, struct bpf_prog_info *info);
void progs_remove_kept(const char *pin_dir, const char *prefix,
		       const char *spare);
int progs_object_map_ids(struct bpf_object *obj, __u32 *ids, int *n);
int progs_map_ids(struct store *rb, struct revoke_bpf_skel *skel);
bool progs_uses_our_maps(const struct store *rb, int prog_fd);
int progs_adopt(struct store *rb, struct revoke_bpf_skel *skel,
		const struct btf *btf);
int progs_keep(struct store *rb, struct revoke_bpf_skel *skel);
int progs_remove(const char *pin_dir);
void progs_close(struct store *rb);

#endif /* REVOKE_STORE_PROGS_H */
