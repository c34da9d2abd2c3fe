/* SPDX-License-Identifier: GPL-2.0 */
/*
 * store.h - the one owner of the BPF maps and programs: loading,
 * attaching and pinning them (or adopting the ones an earlier revoke-bpfd
 * left pinned), the armed word, the inode set, the device set, reports
 * and names.  The one header of src/store that the other layers include;
 * nothing outside src/store touches a map descriptor.
 */
#ifndef REVOKE_STORE_H
#define REVOKE_STORE_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bpf/libbpf.h>

#include "inode_table.h"

struct revoke_bpf_skel;
struct release_batch;

#define REVOKE_NR_PROGS 30
/* more than the object has: revoke.bpf.c's maps and its .bss */
#define STORE_MAX_MAPS 64

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
 * @supers_fd: the "revoked_supers" hash map (revoked filesystems)
 * @files_fd: the "revoked_files" hash map (revoked open files, add --fd)
 * @filter: that array, mapped (REVOKE_FILTER_WORDS words)
 * @table: "revoke_table", mapped (inode_table.c)
 * @max_entries: capacity of the revoked set
 * @adopted: true if every map and link was pinned already, running this
 *	build's programs, and was kept as it was
 * @replaced: pinned links of another build replaced by this build's
 * @skipped: per revoke_prog_names entry, true if the running kernel
 *	cannot attach that program (features.c), which is not loaded
 * @nr_skipped: how many are
 * @pin_dir: where the objects are pinned
 * @skel: the object: its maps, and its programs unless adopted
 * @prog_fd: per revoke_prog_names entry, the loaded program, or -1 if
 *	skipped; attached while something is revoked
 * @progs_adopted: the programs were taken from this build's pins
 *	(progs.c), not loaded and verified at this start
 * @load_us: how long loading the object and its programs took
 * @map_ids: the ids of the object's maps, @nr_map_ids of them: the only
 *	maps a program adopted or kept attached may use (progs.c)
 * @fresh_map: a map was made anew at start: pinned links use another
 * @attached: every program's link is pinned (attach.c); true whenever
 *	some set holds an entry
 * @idle_since_ms: when every set was first seen empty while attached
 * @freed_seen: revoke_state's freed count when last folded in
 * @attaches: how many times the programs were attached
 * @detaches: how many times they were detached
 * @last_attach_us: how long the last attach took
 * @attach_taken_us: that, until store_attach_take() reads it
 * @attach_err: why the last attach failed
 * @last_kept: how many links of a detach under way the last attach
 *	kept (pinned again) instead of attaching anew
 * @release_thread: the thread closing the links of a detach, while
 *	@release is set
 * @release: what it closes (attach.c), or NULL
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
	int supers_fd;
	int paused_fd;
	int pause_devs_fd;
	int pause_majors_fd;
	int pause_slices_fd;
	int pause_classes_fd;
	int files_fd;
	uint64_t *filter;
	struct inode_table table;
	uint32_t max_entries;
	bool adopted;
	int replaced;
	bool skipped[REVOKE_NR_PROGS];
	int nr_skipped;
	char pin_dir[256];
	struct revoke_bpf_skel *skel;
	int prog_fd[REVOKE_NR_PROGS];
	bool progs_adopted;
	uint64_t load_us;
	__u32 map_ids[STORE_MAX_MAPS];
	int nr_map_ids;
	bool fresh_map;
	bool attached;
	uint64_t idle_since_ms;
	uint64_t freed_seen;
	unsigned int attaches;
	unsigned int detaches;
	uint64_t last_attach_us;
	uint64_t attach_taken_us;
	char attach_err[PATH_MAX + 256];
	int last_kept;
	pthread_t release_thread;
	struct release_batch *release;
};

extern const char *const revoke_prog_names[REVOKE_NR_PROGS];

int store_open(struct store *rb, const char *pin_dir,
		    uint32_t max_entries, bool verbose, char *err, size_t errlen);
void store_close(struct store *rb);
int store_count_attached(const char *pin_dir);
int store_disarm(struct store *rb);
const char *store_prog_state(const struct store *rb, int i);
int store_unload(const char *pin_dir);
struct ring_buffer *store_events_ring(const struct store *rb,
				      ring_buffer_sample_fn fn, void *ctx);
int store_layout_update(struct store *rb, bool builtin);
int store_layout_share(const struct store *rb, struct bpf_map *map);
int store_reach_daemon(struct store *rb, uint32_t tgid);
int store_idle_tick(struct store *rb, uint64_t now_ms, uint32_t grace_ms);
uint64_t store_attach_take(struct store *rb);
const char *store_attach_error(const struct store *rb);
const char *store_enforcement(struct store *rb);

/*
 * What the other layers do with the sets: inode_set.c, device_set.c,
 * super_set.c.
 */
#include "inode_set.h"
#include "device_set.h"
#include "pause_set.h"
#include "super_set.h"
#include "file_set.h"

#endif /* REVOKE_STORE_H */
