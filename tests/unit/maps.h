/* SPDX-License-Identifier: GPL-2.0 */
/*
 * maps.h - the daemon's maps, made in memory for a unit test (hash and
 * array maps load on the host), without the BPF programs.
 */
#ifndef REVOKE_TESTS_MAPS_H
#define REVOKE_TESTS_MAPS_H

#include <sys/mman.h>

#include <bpf/bpf.h>

#include "store/store.h"
#include "revoke_bpf.h"

/*
 * Make revoke_table (mapped), revoke_state, revoke_reports, the mapped revoke_filter,
 * the revoked device maps, the armed word, revoke_layout, revoke_names and
 * the pause maps in @rb, with room for @entries revocations.  Return 0
 * or -1.
 */
static inline int test_maps_create(struct store *rb, uint32_t entries)
{
	LIBBPF_OPTS(bpf_map_create_opts, mmapable, .map_flags = BPF_F_MMAPABLE);

	rb->events_fd = -1;
	uint32_t elements = inode_table_elements(entries);

	rb->table_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "revoke_table", 4,
				      sizeof(struct revoke_bucket), elements,
				      &mmapable);
	rb->state_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "revoke_state", 4,
				      sizeof(struct revoke_state), 1, NULL);
	rb->reports_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "revoke_reports",
					sizeof(struct revoke_key),
					sizeof(struct revoke_report), entries,
					NULL);
	rb->filter_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "revoke_filter", 4,
				       sizeof(uint64_t), REVOKE_FILTER_WORDS,
				       &mmapable);
	rb->rdev_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "revoked_rdev",
				     sizeof(struct revoke_rdev_key),
				     sizeof(struct revoke_rdev_val),
				     REVOKE_RDEV_ENTRIES, NULL);
	rb->rdev_state_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY,
					   "revoke_rdev_state", 4,
					   sizeof(struct revoke_rdev_state), 1,
					   NULL);
	rb->rdev_files_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "rdev_files",
					   sizeof(uint64_t), sizeof(uint64_t),
					   REVOKE_RDEV_FILES, NULL);
	rb->armed_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "revoke.bss", 4,
				      sizeof(uint32_t), 1, NULL);
	rb->layout_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "revoke_layout", 4,
				       sizeof(struct revoke_fs_layout), 1, NULL);
	rb->names_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "revoke_names",
				      sizeof(struct revoke_key),
				      sizeof(struct revoke_name), entries, NULL);
	rb->paused_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "paused",
				       sizeof(struct revoke_pause_key),
				       sizeof(struct revoke_pause_val),
				       REVOKE_PAUSE_ENTRIES, NULL);
	rb->pause_devs_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "pause_devs",
					   sizeof(struct revoke_rdev_key), 4,
					   REVOKE_PAUSE_ENTRIES, NULL);
	rb->pause_majors_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "pause_majors",
					     4, sizeof(struct revoke_pause_majors),
					     1, NULL);
	rb->pause_slices_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "pause_slices",
					     8, sizeof(struct revoke_pause_slice),
					     REVOKE_PAUSE_SLICES, NULL);
	rb->pause_classes_fd = bpf_map_create(BPF_MAP_TYPE_HASH,
					      "pause_classes",
					      sizeof(struct revoke_pause_class),
					      sizeof(struct revoke_pause_val),
					      REVOKE_PAUSE_CLASSES, NULL);
	if (rb->paused_fd < 0 || rb->pause_devs_fd < 0 || rb->pause_majors_fd < 0 ||
	    rb->pause_slices_fd < 0 || rb->pause_classes_fd < 0)
		return -1;
	if (rb->table_fd < 0 || rb->state_fd < 0 || rb->reports_fd < 0 ||
	    rb->filter_fd < 0 || rb->rdev_fd < 0 || rb->rdev_state_fd < 0 ||
	    rb->rdev_files_fd < 0 || rb->armed_fd < 0 || rb->layout_fd < 0 ||
	    rb->names_fd < 0)
		return -1;
	rb->filter = mmap(NULL, REVOKE_FILTER_WORDS * sizeof(uint64_t),
			  PROT_READ | PROT_WRITE, MAP_SHARED, rb->filter_fd, 0);
	if (rb->filter == MAP_FAILED ||
	    inode_table_map(&rb->table, rb->table_fd, elements))
		return -1;
	rb->max_entries = inode_table_capacity(&rb->table);
	return 0;
}

/* The hooks' revoke_armed, as the daemon last wrote it. */
static inline uint32_t test_armed(const struct store *rb)
{
	uint32_t zero = 0, armed = ~0u;

	bpf_map_lookup_elem(rb->armed_fd, &zero, &armed);
	return armed;
}

#endif
