/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pins.h - names and paths under the pin directory.
 */
#ifndef REVOKE_STORE_PINS_H
#define REVOKE_STORE_PINS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct bpf_map;

/*
 * What builds before revoke_table pinned the revoked set as: a hash map
 * whose entries move into the table on the first start of this build.
 */
#define LEGACY_SET "revoked"

/* The temporary name of a link pin being replaced (bpffs refuses dots). */
#define TMP_SUFFIX "__new"

int revoke_pin_path(char *buf, size_t len, const char *dir, const char *name);
int revoke_pin_get(const char *dir, const char *name);
void revoke_map_pin_name(const struct bpf_map *map, char name[NAME_MAX + 1]);
bool revoke_pinned(const char *dir, const char *name);
struct stat;
bool revoke_dir_root_only(const struct stat *st);

#endif /* REVOKE_STORE_PINS_H */
