// SPDX-License-Identifier: GPL-2.0
/*
 * linearize - is revocation a single instant?  No operation that starts
 * after "revoke-bpf add" returned may ever succeed.
 *
 *	linearize [-v] [--pause US] PATH TRIALS PROCS THREADS
 *
 * PROCS processes of THREADS threads each open PATH (a regular file) and
 * loop over it: thread i does read, write, mmap (map, read a byte,
 * unmap) or ioctl (FIONREAD), by i % 4, sleeping US microseconds (default
 * 100) between two operations so that, under an emulator with few CPUs,
 * the workers leave time to the daemon they race against.  Each thread records, in memory
 * shared by all processes, the CLOCK_MONOTONIC time at which its latest
 * successful operation started.  Each trial: "revoke-bpf del PATH", wait
 * until every thread has succeeded again, sleep a random 0-5 ms, run
 * "revoke-bpf add PATH" and note when it returned (T), let the threads go
 * on for 5 ms, then count every thread whose latest success started
 * after T: a violation.  The workers then rest (sleep 1 ms at a time, no
 * operation) until the next trial's del has returned: the denials between
 * two trials would only keep the guest's one CPU from the daemon.  Prints
 *
 *	trials N violations V operations_ok K operations_denied D
 *
 * and exits 0 when V is 0.  -v says on stderr how long each trial's add
 * took.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORKERS 256

struct worker_log {
	_Atomic uint64_t last_ok_start;	/* ns, CLOCK_MONOTONIC */
	_Atomic uint64_t ok;
	_Atomic uint64_t denied;
} __attribute__((aligned(64)));

static struct worker_log *logs;
static _Atomic int *go;		/* shared: 0 while the workers rest */
static const char *path;
static int fd;
static unsigned int pause_us = 100;
static __thread sigjmp_buf fault_jmp;
static __thread int in_mapping;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static void on_fault(int sig)
{
	if (!in_mapping) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	siglongjmp(fault_jmp, 1);
}

static int do_read(void)
{
	char c;

	return pread(fd, &c, 1, 0) == 1 ? 0 : -1;
}

static int do_write(void)
{
	return pwrite(fd, "s", 1, 0) == 1 ? 0 : -1;
}

/* Map, touch, unmap: a fault (the pipeline replaced the mapping) fails. */
static int do_mmap(void)
{
	volatile char *p;
	int ret = 0;

	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	in_mapping = 1;
	if (sigsetjmp(fault_jmp, 1) == 0)
		(void)p[0];
	else
		ret = -1;
	in_mapping = 0;
	munmap((void *)p, 4096);
	return ret;
}

static int do_ioctl(void)
{
	int n;

	return ioctl(fd, FIONREAD, &n);
}

static int (*const ops[4])(void) = { do_read, do_write, do_mmap, do_ioctl };

static void *worker(void *arg)
{
	struct worker_log *log = arg;
	int (*op)(void) = ops[(log - logs) % 4];
	uint64_t start;

	for (;;) {
		if (!atomic_load(go)) {
			usleep(1000);
			continue;
		}
		start = now_ns();
		if (op() == 0) {
			atomic_store(&log->last_ok_start, start);
			atomic_fetch_add(&log->ok, 1);
		} else {
			atomic_fetch_add(&log->denied, 1);
		}
		if (pause_us)
			usleep(pause_us);
	}
	return NULL;
}

static void holder(int first, int threads)
{
	pthread_t t;
	int i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGBUS, on_fault);
	signal(SIGSEGV, on_fault);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		perror(path);
		_exit(1);
	}
	for (i = 1; i < threads; i++)
		if (pthread_create(&t, NULL, worker, &logs[first + i]))
			_exit(1);
	worker(&logs[first]);
}

/*
 * The daemon reads its requests between the denials' events, which 16
 * threads make by the hundred thousand: more than the CLI's 5 s reply
 * wait under emulation with one host thread for the guest.  What is
 * measured here is the order of operations, not that wait.
 */
static int run(const char *verb)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "revoke-bpf --reply-timeout 60 %s '%s' >/dev/null",
		 verb, path);
	return system(cmd);
}

/* Wait up to 10 s until every worker has succeeded since @since. */
static int wait_all_ok(int n, uint64_t since)
{
	uint64_t deadline = now_ns() + 10000000000u;
	int i;

	for (i = 0; i < n; i++)
		while (atomic_load(&logs[i].last_ok_start) <= since) {
			if (now_ns() > deadline) {
				fprintf(stderr, "linearize: worker %d never succeeded "
					"after del\n", i);
				return -1;
			}
			usleep(200);
		}
	return 0;
}

static long parse(const char *s, const char *what, long hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 1 || v > hi) {
		fprintf(stderr, "linearize: %s '%s' is not a number from 1 to %ld\n",
			what, s, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static pid_t pids[MAX_WORKERS];
	long trials, procs, threads, t, violations = 0;
	uint64_t since, returned, ok = 0, denied = 0;
	uint64_t before;
	int i, n, verbose = 0;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else if (!strcmp(argv[i], "--pause") && i + 1 < argc)
			pause_us = parse(argv[++i], "US", 1000000);
		else
			break;
	}
	if (argc - i != 4) {
		fprintf(stderr, "usage: linearize [-v] [--pause US] PATH TRIALS PROCS THREADS\n");
		return 2;
	}
	path = argv[i];
	trials = parse(argv[i + 1], "TRIALS", 1000000);
	procs = parse(argv[i + 2], "PROCS", MAX_WORKERS);
	threads = parse(argv[i + 3], "THREADS", MAX_WORKERS / procs);
	n = procs * threads;
	logs = mmap(NULL, sizeof(*logs) * (n + 1), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (logs == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	go = (_Atomic int *)&logs[n];
	atomic_store(go, 1);
	for (i = 0; i < procs; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0)
			holder(i * threads, threads);
		pids[i] = pid;
	}
	srand(getpid());
	for (t = 0; t < trials; t++) {
		since = now_ns();
		if (t && run("del"))
			break;
		atomic_store(go, 1);
		if (wait_all_ok(n, since))
			break;
		usleep(rand() % 5000);
		before = now_ns();
		if (run("add"))
			break;
		returned = now_ns();
		if (verbose)
			fprintf(stderr, "trial %ld: add took %llu ms\n", t,
				(unsigned long long)(returned - before) / 1000000);
		usleep(5000);
		for (i = 0; i < n; i++)
			if (atomic_load(&logs[i].last_ok_start) > returned) {
				fprintf(stderr, "linearize: trial %ld: worker %d "
					"(op %d) succeeded %llu ns after add returned\n",
					t, i, i % 4, (unsigned long long)
					(atomic_load(&logs[i].last_ok_start) - returned));
				violations++;
			}
		atomic_store(go, 0);
	}
	for (i = 0; i < n; i++) {
		ok += atomic_load(&logs[i].ok);
		denied += atomic_load(&logs[i].denied);
	}
	printf("trials %ld violations %ld operations_ok %llu operations_denied %llu\n",
	       t, violations, (unsigned long long)ok, (unsigned long long)denied);
	for (i = 0; i < procs; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
	return t == trials && violations == 0 ? 0 : 1;
}
