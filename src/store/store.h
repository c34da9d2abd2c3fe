/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store.h - loading, attaching and pinning the enforcement programs,
 * or adopting the ones an earlier revoke-bpfd left pinned.
 */
#ifndef REVOKE_BPF_LOAD_H
#define REVOKE_BPF_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inode_table.h"

#define REVOKE_NR_PROGS 29

/**
 * struct store - the daemon's handles on the enforcement objects
 * @table_fd: the "revoke_table" array (the revoked set, see revoke_bpf.h)
 * @state_fd: the "revoke_state" array map
 * @events_fd: the "revoke_events" ring buffer
 * @reports_fd: the "revoke_reports" hash map
 * @filter_fd: the "revoke_filter" array
 * @rdev_fd: the "revoked_rdev" hash map (revoked devices)
 * @rdev_state_fd: the "revoke_rdev_state" array map
 * @rdev_files_fd: the "rdev_files" hash map
 * @armed_fd: the programs' .bss map, whose one value is revoke_armed
 * @layout_fd: the "revoke_layout" array (see struct revoke_fs_layout),
 *	shared with the holder iterators
 * @names_fd: the "revoke_names" hash map (what each entry was added as)
 * @filter: that array, mapped (REVOKE_FILTER_WORDS words)
 * @table: "revoke_table", mapped
 * @max_entries: capacity of the revoked set
 * @adopted: true if every map and link was pinned already, running this
 *	build's programs, and was kept as it was
 * @replaced: pinned links of another build replaced by this build's
 * @skipped: per revoke_prog_names entry, true if the running kernel
 *	cannot attach that program (features.c), which is not loaded
 * @nr_skipped: how many are
 * @pin_dir: where the objects are pinned
 */
struct store {
	int table_fd;
	int state_fd;
	int events_fd;
	int reports_fd;
	int filter_fd;
	int rdev_fd;
	int rdev_state_fd;
	int rdev_files_fd;
	int armed_fd;
	int layout_fd;
	int names_fd;
	uint64_t *filter;
	struct revoke_table table;
	uint32_t max_entries;
	bool adopted;
	int replaced;
	bool skipped[REVOKE_NR_PROGS];
	int nr_skipped;
	char pin_dir[256];
};

extern const char *const revoke_prog_names[REVOKE_NR_PROGS];

int store_open(struct store *rb, const char *pin_dir,
		    uint32_t max_entries, bool verbose, char *err, size_t errlen);
void store_close(struct store *rb);
int store_count_attached(const char *pin_dir);
int store_disarm(struct store *rb);
const char *store_prog_state(const struct store *rb, int i);
int store_unload(const char *pin_dir);

#endif /* REVOKE_BPF_LOAD_H */
