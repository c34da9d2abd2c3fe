// SPDX-License-Identifier: GPL-2.0
/*
 * hookbench - what the enforcement hooks cost ordinary I/O, measured in
 * one boot with A/B runs interleaved (TCG timings drift; pairs do not).
 *
 * It loads the enforcement object (build/revoke.skel.h, the very programs
 * revoke-bpfd attaches) and the empty programs (bench/empty_hook.bpf.c)
 * itself, unpinned, so that it can attach and detach them between runs
 * while the revoked set keeps its contents.  For each size of the revoked
 * set in --levels, it runs --rounds rounds of three cases, in this order:
 *
 *	none		no program attached
 *	empty_hook	the empty programs on the same hooks
 *	armed_N		our programs, with N entries in the revoked set
 *	padded_hook	with --pad N only: the empty programs, file_permission
 *			running N more iterations of a few instructions; a
 *			slowdown of known size, to show the instrument sees it
 *	armed_same_fs	(level "s", after the others) one entry more, on the
 *			filesystem of dd's own files (devtmpfs): the hooks
 *			can no longer let them pass on their filesystem's
 *			filter bit and make their keys
 *	armed_paused	our programs, nothing revoked, one device paused for
 *			one user (level "p"): what a pause costs everybody
 *			else's I/O (dd's /dev/zero and /dev/null are devices
 *			of another major: pause_majors lets them pass)
 *
 * and in each case four workloads: the seed's dd experiment with bs=1 and
 * with bs=4096 (the real dd, spawned), an open/close loop (file_open) and
 * an mmap/munmap loop (mmap_file) on a tmpfs file.  The entries are keys
 * of a filesystem that does not exist, with their filter bits set as the
 * daemon sets them, so the files the workloads use are not revoked, as
 * almost every file on a real machine is not.
 *
 * Afterwards one more dd bs=1 per case runs with kernel.bpf_stats_enabled
 * to read run_time_ns / run_cnt of the file_permission program (stats
 * cost time of their own, so they are kept out of the timed rounds).
 *
 * Output: one JSON object on stdout (see bench/run).
 *
 *	hookbench [--rounds R] [--dd-count N] [--loops N]
 *		  [--levels N|p|s,...] [--file PATH] [--pad N]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "common/key.h"
#include "store/features.h"
#include "store/store.h"
#include "revoke_bpf.h"
#include "store/inode_table.h"
#include "revoke.skel.h"
#include "empty_hook.skel.h"

#define MAX_LEVELS 8
#define MAX_ROUNDS 101
/* room for every program of either object; attach() refuses more */
#define MAX_LINKS 32
/* a filesystem device no kernel hands out: every lookup misses */
#define FAKE_DEV ((REVOKE_KDEV_MAJORMAX << REVOKE_KDEV_MINORBITS) | 0xabcde)
/* the level of the armed_paused case (--levels p) */
#define LEVEL_PAUSED -1
/* the level of the armed_same_fs case (--levels s) */
#define LEVEL_SAME_FS -2

enum workload { W_DD1, W_DD4K, W_OPEN, W_MMAP, NR_WORKLOADS };

static const char *const workload_name[NR_WORKLOADS] = {
	"dd_bs1", "dd_bs4096", "open_close", "mmap"
};

enum kase { C_NONE, C_EMPTY, C_PADDED, C_ARMED, NR_CASES };

struct opts {
	int rounds;
	long dd_count;
	long loops;
	long levels[MAX_LEVELS];
	int nlevels;
	const char *file;
	long pad;
};

/* t[level][case][workload][round], seconds */
static double t[MAX_LEVELS][NR_CASES][NR_WORKLOADS][MAX_ROUNDS];
/* file_permission run_time_ns / run_cnt, per level */
static double ns_empty[MAX_LEVELS], ns_armed[MAX_LEVELS];

struct hooks {
	struct revoke_bpf_skel *ours;
	__u64 *filter;			/* revoke_filter, mapped */
	struct inode_table table;	/* revoke_table, mapped */
	struct empty_hook_bpf_skel *empty;
	struct empty_hook_bpf_skel *padded;	/* --pad only */
	struct bpf_link *links[MAX_LINKS];
	int nlinks;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "hookbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void detach(struct hooks *h)
{
	while (h->nlinks)
		bpf_link__destroy(h->links[--h->nlinks]);
}

/* Attach every LSM program of @obj (inode_free_security included). */
static void attach(struct hooks *h, struct bpf_object *obj)
{
	struct bpf_program *prog;

	detach(h);
	bpf_object__for_each_program(prog, obj) {
		struct bpf_link *l;

		if (!bpf_program__autoload(prog))
			continue;	/* the kernel lacks its hook */
		if (h->nlinks == MAX_LINKS) {
			errno = E2BIG;
			die("more programs than MAX_LINKS");
		}
		l = bpf_program__attach(prog);
		if (!l)
			die(bpf_program__name(prog));
		h->links[h->nlinks++] = l;
	}
}

/* Leave out the programs whose hooks this kernel lacks, as revoke-bpfd does. */
static void select_progs(struct bpf_object *obj)
{
	bool skipped[REVOKE_NR_PROGS];
	struct btf *btf;
	char err[256];

	btf = btf__load_vmlinux_btf();
	if (!btf)
		die("reading the kernel's BTF");
	if (store_select(obj, btf, skipped, err, sizeof(err)) < 0) {
		fprintf(stderr, "hookbench: %s\n", err);
		exit(1);
	}
	btf__free(btf);
}

static void set_case(struct hooks *h, enum kase c)
{
	if (c == C_NONE)
		detach(h);
	else if (c == C_EMPTY)
		attach(h, h->empty->obj);
	else if (c == C_PADDED)
		attach(h, h->padded->obj);
	else
		attach(h, h->ours->obj);
}

/* A device no kernel hands out, paused for uid 65534: armed for pauses only. */
static void pause_one(struct hooks *h)
{
	struct revoke_pause_key key = { .rdev = FAKE_DEV,
					.type = REVOKE_RDEV_CHAR, .uid = 65534 };
	struct revoke_rdev_key dev = { .rdev = FAKE_DEV,
				       .type = REVOKE_RDEV_CHAR };
	struct revoke_pause_val val = { .err = ENODEV, .paused_at = 1 };
	struct revoke_pause_majors majors = {};
	__u32 one = 1, zero = 0;

	/* its major's bit first, as revoke-bpfd sets it (pause_set.c) */
	majors.bits[REVOKE_KDEV_MAJORMAX / 64] =
		1ULL << (REVOKE_KDEV_MAJORMAX % 64);
	if (bpf_map_update_elem(bpf_map__fd(h->ours->maps.pause_majors), &zero,
				&majors, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(h->ours->maps.paused), &key, &val,
				BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(h->ours->maps.pause_devs), &dev,
				&one, BPF_ANY))
		die("pausing a device");
	h->ours->bss->revoke_armed = REVOKE_ARMED_PAUSES;
}

/* Put @key in the revoked set with its filter bits, as revoke-bpfd does. */
static void insert_key(struct hooks *h, const struct revoke_key *key)
{
	struct revoke_val val = { .revoked_at = 1 };
	__u32 bits[2] = { revoke_filter_bit(key->dev, key->ino),
			  revoke_filter_dev_bit(key->dev) };
	int i;

	if (inode_table_insert(&h->table, key, &val))
		die("filling revoke_table");
	for (i = 0; i < 2; i++)
		h->filter[revoke_filter_word(bits[i])] |=
			revoke_filter_mask(bits[i]);
}

/* Say in revoke_state and revoke_armed that the set holds @n entries. */
static void set_count(struct hooks *h, long n)
{
	struct revoke_state st = { .nr_revoked = (__u64)n };
	__u32 zero = 0;

	if (bpf_map_update_elem(bpf_map__fd(h->ours->maps.revoke_state), &zero,
				&st, BPF_ANY))
		die("revoke_state");
	h->ours->bss->revoke_armed = n ? REVOKE_ARMED_INODES : 0;
}

/* One more entry, on the filesystem of /dev/null: dd's files' own. */
static void same_fs_one(struct hooks *h, long *have)
{
	struct revoke_key key = { .ino = 0xfffffff0 };
	struct stat sb;

	if (stat("/dev/null", &sb))
		die("/dev/null");
	if (revoke_kdev_from_stdev(sb.st_dev, &key.dev))
		die("the device of /dev/null");
	insert_key(h, &key);
	set_count(h, ++*have);
}

/*
 * Grow the revoked set to @n fake entries, set their filter bits as
 * revoke-bpfd does, and say so in revoke_state and revoke_armed.
 */
static void fill(struct hooks *h, long *have, long n)
{
	struct revoke_key key;

	if (n == LEVEL_PAUSED) {
		pause_one(h);
		return;
	}
	if (n == LEVEL_SAME_FS) {
		same_fs_one(h, have);
		return;
	}

	for (; *have < n; (*have)++) {
		key = (struct revoke_key){ .dev = FAKE_DEV, .ino = (__u64)*have + 1 };
		insert_key(h, &key);
	}
	set_count(h, n);
}

/* "armed_N", or "armed_paused" for LEVEL_PAUSED */
static const char *level_name(long level)
{
	static char name[32];

	if (level == LEVEL_PAUSED)
		return "armed_paused";
	if (level == LEVEL_SAME_FS)
		return "armed_same_fs";
	snprintf(name, sizeof(name), "armed_%ld", level);
	return name;
}

static double run_dd(long bs, long count)
{
	char bsarg[32], countarg[32];
	char *argv[] = { "dd", "if=/dev/zero", "of=/dev/null", bsarg, countarg,
			 NULL };
	posix_spawn_file_actions_t fa;
	double t0;
	pid_t pid;
	int status;

	snprintf(bsarg, sizeof(bsarg), "bs=%ld", bs);
	snprintf(countarg, sizeof(countarg), "count=%ld", count);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	t0 = now();
	if (posix_spawnp(&pid, "dd", &fa, NULL, argv, NULL))
		die("dd");
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("dd failed");
	posix_spawn_file_actions_destroy(&fa);
	return now() - t0;
}

static double run_open(const char *file, long loops)
{
	double t0 = now();
	long i;

	for (i = 0; i < loops; i++) {
		int fd = open(file, O_RDONLY);

		if (fd < 0)
			die(file);
		close(fd);
	}
	return now() - t0;
}

static double run_mmap(int fd, long loops)
{
	double t0 = now();
	long i;

	for (i = 0; i < loops; i++) {
		void *p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);

		if (p == MAP_FAILED)
			die("mmap");
		munmap(p, 4096);
	}
	return now() - t0;
}

static void run_workloads(const struct opts *o, int fd, int l, int c, int r)
{
	t[l][c][W_DD1][r] = run_dd(1, o->dd_count);
	t[l][c][W_DD4K][r] = run_dd(4096, o->dd_count / 4);
	t[l][c][W_OPEN][r] = run_open(o->file, o->loops);
	t[l][c][W_MMAP][r] = run_mmap(fd, o->loops);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct stat3 {
	double median, min, max;
};

static struct stat3 stats(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return (struct stat3){ n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2,
			       v[0], v[n - 1] };
}

/* Gather the samples of @c (all levels for none/empty, one for armed). */
static int samples(const struct opts *o, enum kase c, int level,
		   enum workload w, double *v)
{
	int n = 0, l, r;

	for (l = 0; l < o->nlevels; l++)
		if (c == C_ARMED ? l == level : 1)
			for (r = 0; r < o->rounds; r++)
				v[n++] = t[l][c][w][r];
	return n;
}

/* Per-round ratios of case @a over case @b, same level, same round. */
static int ratios(const struct opts *o, enum kase a, enum kase b, int level,
		  enum workload w, double *v)
{
	int n = 0, l, r;

	for (l = 0; l < o->nlevels; l++)
		if (a == C_ARMED ? l == level : 1)
			for (r = 0; r < o->rounds; r++)
				v[n++] = t[l][a][w][r] / t[l][b][w][r];
	return n;
}

static void print_stat3(const char *name, struct stat3 s, bool last)
{
	printf("\"%s\": {\"median\": %.4f, \"min\": %.4f, \"max\": %.4f}%s", name,
	       s.median, s.min, s.max, last ? "" : ", ");
}

static void print_times(const struct opts *o)
{
	static double v[MAX_LEVELS * MAX_ROUNDS];
	char name[64];
	int w, l;

	for (w = 0; w < NR_WORKLOADS; w++) {
		printf("  \"%s\": {\"none\": %.6f, \"empty_hook\": %.6f",
		       workload_name[w],
		       stats(v, samples(o, C_NONE, 0, w, v)).median,
		       stats(v, samples(o, C_EMPTY, 0, w, v)).median);
		if (o->pad)
			printf(", \"padded_hook\": %.6f",
			       stats(v, samples(o, C_PADDED, 0, w, v)).median);
		for (l = 0; l < o->nlevels; l++)
			printf(", \"%s\": %.6f", level_name(o->levels[l]),
			       stats(v, samples(o, C_ARMED, l, w, v)).median);
		printf("},\n");
	}
	printf("  \"ratios\": {\n");
	for (w = 0; w < NR_WORKLOADS; w++) {
		printf("    \"%s\": {", workload_name[w]);
		print_stat3("empty_hook/none",
			    stats(v, ratios(o, C_EMPTY, C_NONE, 0, w, v)), false);
		if (o->pad)
			print_stat3("padded_hook/empty_hook",
				    stats(v, ratios(o, C_PADDED, C_EMPTY, 0, w, v)),
				    false);
		for (l = 0; l < o->nlevels; l++) {
			snprintf(name, sizeof(name), "%s/none",
				 level_name(o->levels[l]));
			print_stat3(name, stats(v, ratios(o, C_ARMED, C_NONE, l, w, v)),
				    false);
			snprintf(name, sizeof(name), "%s/empty_hook",
				 level_name(o->levels[l]));
			print_stat3(name, stats(v, ratios(o, C_ARMED, C_EMPTY, l, w, v)),
				    l == o->nlevels - 1);
		}
		printf("}%s\n", w == NR_WORKLOADS - 1 ? "" : ",");
	}
	printf("  },\n");
}

/* run_time_ns / run_cnt of the file_permission program over one dd bs=1. */
static double ns_per_run(const struct opts *o, struct bpf_program *prog)
{
	struct bpf_prog_info a = {}, b = {};
	__u32 len = sizeof(a);
	int fd = bpf_program__fd(prog);

	if (bpf_obj_get_info_by_fd(fd, &a, &len))
		die("bpf_obj_get_info_by_fd");
	run_dd(1, o->dd_count);
	len = sizeof(b);
	if (bpf_obj_get_info_by_fd(fd, &b, &len))
		die("bpf_obj_get_info_by_fd");
	if (b.run_cnt == a.run_cnt)
		return 0;
	return (double)(b.run_time_ns - a.run_time_ns) /
	       (double)(b.run_cnt - a.run_cnt);
}

/*
 * With stats on (they cost time of their own, so after the timed rounds):
 * the empty program and ours at revoked-set size @l.
 */
static void measure_ns_per_run(const struct opts *o, struct hooks *h, int l)
{
	int sfd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	if (sfd < 0)
		die("bpf_enable_stats");
	set_case(h, C_EMPTY);
	ns_empty[l] = ns_per_run(o, h->empty->progs.empty_file_permission);
	set_case(h, C_ARMED);
	ns_armed[l] = ns_per_run(o, h->ours->progs.revoke_file_permission);
	detach(h);
	close(sfd);
}

static void print_ns_per_run(const struct opts *o)
{
	static double v[MAX_LEVELS];
	int l;

	memcpy(v, ns_empty, sizeof(v));
	printf("  \"bpf_stats_ns_per_run\": {\"empty_hook\": %.1f",
	       stats(v, o->nlevels).median);
	for (l = 0; l < o->nlevels; l++)
		printf(", \"%s\": %.1f", level_name(o->levels[l]),
		       ns_armed[l]);
	printf("},\n");
}

static long mem_kb(const char *field)
{
	char line[128];
	long kb = -1;
	size_t n = strlen(field);
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			kb = atol(line + n + 1);
	fclose(f);
	return kb;
}

/* Kernel memory a BPF map can use: slab, per-cpu and vmalloc, in KiB. */
static long kernel_kb(void)
{
	return mem_kb("Slab") + mem_kb("Percpu") + mem_kb("VmallocUsed");
}

static void parse_levels(struct opts *o, char *s)
{
	char *tok;

	o->nlevels = 0;
	for (tok = strtok(s, ","); tok && o->nlevels < MAX_LEVELS;
	     tok = strtok(NULL, ","))
		o->levels[o->nlevels++] = !strcmp(tok, "p") ? LEVEL_PAUSED :
					  !strcmp(tok, "s") ? LEVEL_SAME_FS :
					  atol(tok);
}

static void usage(void)
{
	fprintf(stderr, "usage: hookbench [--rounds R] [--dd-count N] [--loops N] "
		"[--levels N|p|s,...] [--file PATH] [--pad N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "rounds", required_argument, NULL, 'r' },
		{ "dd-count", required_argument, NULL, 'c' },
		{ "loops", required_argument, NULL, 'l' },
		{ "levels", required_argument, NULL, 'L' },
		{ "file", required_argument, NULL, 'f' },
		{ "pad", required_argument, NULL, 'P' },
		{}
	};
	struct opts o = { .rounds = 9, .dd_count = 200000, .loops = 5000,
			  .levels = { 0, 1, 1000, 1000000 }, .nlevels = 4,
			  .file = "/tmp/hookbench.file" };
	long have = 0, max_level = 0, kmem0, kmem1;
	struct hooks h = {};
	__u32 elements;
	int opt, l, r, c, fd;

	while ((opt = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (opt) {
		case 'r': o.rounds = atoi(optarg); break;
		case 'c': o.dd_count = atol(optarg); break;
		case 'l': o.loops = atol(optarg); break;
		case 'L': parse_levels(&o, optarg); break;
		case 'f': o.file = optarg; break;
		case 'P': o.pad = atol(optarg); break;
		default: usage();
		}
	}
	if (o.rounds < 1 || o.rounds > MAX_ROUNDS || o.dd_count < 4 ||
	    o.loops < 1 || o.nlevels < 1 || o.pad < 0 || o.pad > 4096)
		usage();
	for (l = 0; l < o.nlevels; l++)
		if (o.levels[l] > max_level)
			max_level = o.levels[l];

	fd = open(o.file, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 4096))
		die(o.file);
	h.ours = revoke_bpf_skel__open();
	h.empty = empty_hook_bpf_skel__open_and_load();
	if (!h.ours || !h.empty)
		die("opening the BPF objects");
	if (o.pad) {
		h.padded = empty_hook_bpf_skel__open();
		if (!h.padded)
			die("opening the padded programs");
		h.padded->rodata->pad_loops = (__u32)o.pad;
		if (empty_hook_bpf_skel__load(h.padded))
			die("loading the padded programs");
	}
	elements = inode_table_elements((__u32)max_level + 1);
	bpf_map__set_max_entries(h.ours->maps.revoke_table, elements);
	select_progs(h.ours->obj);
	kmem0 = kernel_kb();
	if (revoke_bpf_skel__load(h.ours))
		die("loading revoke.bpf.o");
	h.filter = mmap(NULL, REVOKE_FILTER_WORDS * sizeof(__u64),
			PROT_READ | PROT_WRITE, MAP_SHARED,
			bpf_map__fd(h.ours->maps.revoke_filter), 0);
	if (h.filter == MAP_FAILED)
		die("mapping revoke_filter");
	if (inode_table_map(&h.table, bpf_map__fd(h.ours->maps.revoke_table),
			     elements))
		die("mapping revoke_table");

	printf("{\n");
	for (l = 0; l < o.nlevels; l++) {
		fill(&h, &have, o.levels[l]);
		if (o.levels[l] == max_level) {
			kmem1 = kernel_kb();
			printf("  \"map\": {\"max_entries\": %ld, \"entries\": %ld, "
			       "\"kernel_bytes_per_entry\": %.1f},\n", max_level + 1,
			       have, have ? (double)(kmem1 - kmem0) * 1024 / (double)have : 0);
		}
		for (r = 0; r < o.rounds; r++)
			for (c = 0; c < NR_CASES; c++) {
				if (c == C_PADDED && !h.padded)
					continue;
				set_case(&h, c);
				run_workloads(&o, fd, l, c, r);
			}
		measure_ns_per_run(&o, &h, l);
	}
	detach(&h);
	print_times(&o);
	print_ns_per_run(&o);
	printf("  \"rounds\": %d, \"dd_count\": %ld, \"loops\": %ld, "
	       "\"pad_loops\": %ld\n}\n", o.rounds, o.dd_count, o.loops, o.pad);
	revoke_bpf_skel__destroy(h.ours);
	empty_hook_bpf_skel__destroy(h.empty);
	empty_hook_bpf_skel__destroy(h.padded);
	close(fd);
	unlink(o.file);
	return 0;
}
