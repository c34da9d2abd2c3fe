/* SPDX-License-Identifier: GPL-2.0 */
/*
 * holders.h - who holds an inode: every process with a descriptor or a
 * mapping of it, found by the BPF iterators of bpf/holders.bpf.c.
 */
#ifndef REVOKE_HOLDERS_H
#define REVOKE_HOLDERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "revoke_bpf.h"

struct holders_bpf_skel;
struct store;

/*
 * The iterator programs, in struct holders' @prog_fd[] and @link[]: the
 * files of every task (iter/task_file), their mappings (iter/task_vma),
 * every thread and its system call (iter/task), the io_uring instances
 * threads registered (IORING_REGISTER_RING_FDS), threads' current and
 * root directories and executables (holders_fs.c), and one descriptor
 * of revoke-bpfd's own (holders_ident(): linked per call, not in @link[])
 */
enum holders_prog {
	HOLDERS_FDS,
	HOLDERS_VMAS,
	HOLDERS_THREADS,
	HOLDERS_REGRINGS,
	HOLDERS_FSREFS,
	HOLDERS_IDENT,
	HOLDERS_NR_PROGS
};

/**
 * struct holders - the loaded iterators (holders_load.c)
 * @skel: their skeleton: their maps (with the programs, unless adopted)
 * @prog_fd: the programs, loaded or taken from their pins
 * @adopted: taken from their pins, not loaded
 * @kept_fd: the folder they are kept in, locked for this daemon, or -1
 * @link: each program's link over every task, read by every search, or
 *	-1 (HOLDERS_IDENT's always)
 */
struct holders {
	struct holders_bpf_skel *skel;
	int prog_fd[HOLDERS_NR_PROGS];
	bool adopted;
	int kept_fd;
	int link[HOLDERS_NR_PROGS];
};

/**
 * struct holder_cred - whose a descriptor or a mapping is: the uids its
 *	file was opened with (f_cred)
 * @uid: the real uid
 * @euid: the effective uid
 */
struct holder_cred {
	uint32_t uid;
	uint32_t euid;
};

struct holder_vma {
	uint64_t start;
	uint64_t end;
	int prot;
	struct holder_cred cred;
};

/**
 * struct holder_ring - what one of a process's io_uring instances holds
 *	of the inode (bpf/uring.bpf.h)
 * @fd: the ring's descriptor in that process; with REVOKE_URING_REGISTERED
 *	in @flags, the index @tid registered it under
 * @tid: the thread the record was found through
 * @kind: REVOKE_HOLDER_RING_FILE, _BUF or _UNKNOWN
 * @index: the fixed-file slot or buffer index; for a REVOKE_URING_PARTIAL
 *	record with no inode, the one the walk stopped at
 * @flags: REVOKE_URING_*
 * @ring: the ring's kernel address
 * @found: a slot or buffer of the inode (false: only @flags says something)
 */
struct holder_ring {
	int fd;
	pid_t tid;
	uint32_t kind;
	uint32_t index;
	uint32_t flags;
	uint64_t ring;
	bool found;
};

/**
 * struct holder_proc - one process holding a target inode
 * @tgid: the process
 * @start_boottime: when it started (ns since boot): tells it from a later
 *	process given the same pid
 * @fds: its descriptors of the inode
 * @cloexec: for each of @fds, whether it is close-on-exec
 * @cred: for each of @fds, whose its file is
 * @nfds: their number
 * @vmas: its mappings of the inode
 * @nvmas: their number
 * @rings: what its io_uring instances hold of the inode
 * @nrings: their number
 */
struct holder_proc {
	pid_t tgid;
	uint64_t start_boottime;
	int *fds;
	bool *cloexec;
	struct holder_cred *cred;
	size_t nfds;
	struct holder_vma *vmas;
	size_t nvmas;
	struct holder_ring *rings;
	size_t nrings;
};

/**
 * struct holder_set - the holders of one inode, or of one device's nodes
 * @procs: the processes
 * @nr: their number
 * @nfds: descriptors in all
 * @nvmas: mappings in all
 * @nrings: io_uring records in all
 * @inodes: the distinct inodes held (one, unless searched by device)
 * @ninodes: their number
 */
struct holder_set {
	struct holder_proc *procs;
	size_t nr;
	size_t nfds;
	size_t nvmas;
	size_t nrings;
	struct revoke_key *inodes;
	size_t ninodes;
};

/**
 * struct holder_threads - every user thread, sorted by process and thread
 * @th: the threads
 * @nr: their number
 * @cap: room in @th
 */
struct holder_threads {
	struct revoke_thread *th;
	size_t nr;
	size_t cap;
};

int holders_open(struct holders *h, const struct store *store, char *err,
		 size_t errlen);
int holders_ident(struct holders *h, int fd, struct revoke_ident *id);
void holders_skip(struct holders *h, pid_t self, pid_t peer);
void *holders_state_save(struct holders *h);
void holders_state_restore(struct holders *h, void *copy);
void holders_close(struct holders *h);
int holders_find(struct holders *h, const struct revoke_key *key,
		 struct holder_set *set);
int holders_find_rdev(struct holders *h, const struct revoke_rdev_key *key,
		      struct holder_set *set);
int holders_scan(struct holders *h, const struct revoke_key *key, pid_t tgid,
		 bool with_fds, struct holder_set *set);
int holders_threads(struct holders *h, struct holder_threads *ts);
const struct revoke_thread *holder_threads_of(const struct holder_threads *ts,
					      const struct holder_proc *p,
					      size_t *n);
void holder_threads_free(struct holder_threads *ts);
int holders_pidfds(struct holders *h, const struct holder_proc *const *procs,
		   int *pidfds, size_t n);
int holder_pidfd(const struct holder_proc *p);
void holder_proc_free(struct holder_proc *p);
void holder_set_free(struct holder_set *set);

/**
 * struct holder_fsref - a thread whose current or root directory, or
 *	whose process's executable, is on a filesystem looked for
 * @tgid: the process
 * @tid: the thread
 * @start_boottime: when the process started (see struct holder_proc)
 * @kind: REVOKE_HOLDER_CWD, _ROOT or _EXE
 * @key: the inode
 */
struct holder_fsref {
	pid_t tgid;
	pid_t tid;
	uint64_t start_boottime;
	uint32_t kind;
	struct revoke_key key;
};

/**
 * struct holder_task - a process's name and real uid, from the walk
 * @tgid: the process
 * @uid: its real uid
 * @comm: its name, NUL-terminated
 */
struct holder_task {
	pid_t tgid;
	uid_t uid;
	char comm[16];
};

/**
 * struct holder_fsrefs - what holds a filesystem besides its files
 * @ref: the records, in the order the threads were walked
 * @nr: their number
 * @task: with holders_fsrefs_tasks(), every process, by tgid
 * @ntasks: their number
 */
struct holder_fsrefs {
	struct holder_fsref *ref;
	size_t nr;
	struct holder_task *task;
	size_t ntasks;
};

int holders_find_fs(struct holders *h, uint32_t s_dev, struct holder_set *set);
void holders_walk_buffers(struct holders *h, uint32_t kdev);
int holders_fsrefs(struct holders *h, uint32_t s_dev,
		   struct holder_fsrefs *refs);
int holders_fsrefs_tasks(struct holders *h, uint32_t s_dev,
			 struct holder_fsrefs *refs);
const struct holder_task *holder_fsrefs_task(const struct holder_fsrefs *refs,
					     pid_t tgid);
void holder_fsrefs_free(struct holder_fsrefs *refs);
const char *holder_fsref_name(uint32_t kind);

/* Between the holders*.c files only. */
int holders_search(struct holders *h, int map, const void *key,
		   int fds, int regrings, int vmas, bool may_skip_vmas,
		   struct holder_set *set);
int holders_iter_link(int prog_fd, pid_t tgid);
int holders_run_iter(int link, size_t size,
		     int (*add)(void *ctx, const void *rec), void *ctx);

#endif /* REVOKE_HOLDERS_H */
