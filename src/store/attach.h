/* SPDX-License-Identifier: GPL-2.0 */
/*
 * attach.h - attaching the enforcing programs while something is
 * revoked, and only then (internal to src/store; see attach.c).
 */
#ifndef REVOKE_STORE_ATTACH_H
#define REVOKE_STORE_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/bpf.h>

struct store;

int attach_prog_tag(int prog_fd, __u8 tag[BPF_TAG_SIZE]);
int attach_ensure(struct store *rb);
void attach_release(struct store *rb);
int attach_idle_tick(struct store *rb, uint64_t now_ms, uint32_t grace_ms);
void attach_close(struct store *rb);
int attach_start(struct store *rb, bool fresh_map, char *err, size_t errlen);

#endif /* REVOKE_STORE_ATTACH_H */
