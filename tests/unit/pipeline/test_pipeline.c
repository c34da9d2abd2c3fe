// SPDX-License-Identifier: GPL-2.0
/*
 * test_pipeline.c - the revocation pipeline's mechanics on the host: real
 * holder processes (build/tests/holder), real BPF iterators, real ptrace
 * injection, with the enforcement maps created here (the host kernel
 * refuses LSM programs, so nothing here is denied: what is checked is
 * what the pipeline does to the holders, and that it leaves them intact).
 * The same behaviours with the LSM enforcing are in tests/vm/pipeline.bats.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "common/key.h"
#include "pipeline/pipeline.h"
#include "store/inode_set.h"
#include "maps.h"
#include "tap.h"
#include "pipeline/waiters.h"

#define HOLDER "build/tests/holder"
#define HOSTILE "build/tests/hostile"

static struct store rb;
static struct pipeline pl;
static char dir[] = "/tmp/test_pipeline.XXXXXX";

struct child {
	pid_t pid;
	int out;
	char buf[4096];
	size_t len;
};

/* Start "holder ARGS..." with its stdout on a pipe; wait for "ready". */
static int spawn_prog(struct child *c, const char *prog,
		      const char *const *args);

static int spawn(struct child *c, const char *const *args)
{
	return spawn_prog(c, HOLDER, args);
}

static bool read_until(struct child *c, const char *want, int ms)
{
	struct pollfd p = { .fd = c->out, .events = POLLIN };
	ssize_t n;

	for (; ms > 0; ms -= 10) {
		c->buf[c->len] = '\0';
		if (strstr(c->buf, want))
			return true;
		if (poll(&p, 1, 10) == 1) {
			n = read(c->out, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
			if (n > 0)
				c->len += (size_t)n;
			else if (n == 0)
				ms = 10;	/* EOF: one last look */
		}
	}
	c->buf[c->len] = '\0';
	return strstr(c->buf, want) != NULL;
}

static int spawn_prog(struct child *c, const char *prog,
		      const char *const *args)
{
	const char *argv[16] = { prog };
	int p[2], i;

	memset(c, 0, sizeof(*c));
	for (i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i];
	if (pipe2(p, O_CLOEXEC))
		return -1;
	c->pid = fork();
	if (c->pid == 0) {
		dup2(p[1], 1);
		execv(prog, (char **)argv);
		_exit(127);
	}
	close(p[1]);
	c->out = p[0];
	return read_until(c, "ready", 5000) ? 0 : -1;
}

/* Wait until the holder's main thread is blocked in a system call. */
static void wait_blocked(pid_t pid)
{
	char path[64], line[128];
	int i;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	for (i = 0; i < 500; i++) {
		FILE *f = fopen(path, "re");
		bool blocked = false;

		if (f) {
			blocked = fgets(line, sizeof(line), f) &&
				  strncmp(line, "running", 7) && line[0] != '-';
			fclose(f);
		}
		if (blocked)
			return;
		usleep(10000);
	}
}

/* The state letter of /proc/PID/stat: 't' would mean left stopped. */
static char state_of(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : '?';
}

/*
 * Wait for the holder to exit.  Its threads that died while we traced
 * them are reaped by tracee_reap(), as revoke-bpfd's main loop does.
 */
static int wait_child(struct child *c)
{
	int status = 0, i;

	for (i = 0; i < 5000; i++) {
		tracee_reap();
		if (waitpid(c->pid, &status, WNOHANG) == c->pid)
			return status;
		usleep(1000);
	}
	return -1;
}

static bool stopped(pid_t pid)
{
	char st = state_of(pid);

	return st == 't' || st == 'T';
}

static int reap(struct child *c)
{
	int status;

	kill(c->pid, SIGKILL);
	status = wait_child(c);
	close(c->out);
	return status;
}

static int key_of(const char *path, struct revoke_key *key)
{
	struct stat st;

	memset(key, 0, sizeof(*key));
	if (stat(path, &st) || revoke_kdev_from_stdev(st.st_dev, &key->dev))
		return -1;
	key->ino = st.st_ino;
	return 0;
}

static int run_policy(const char *path, enum revoke_release release,
		      bool spare, struct pipeline_result *res)
{
	struct pipeline_opts opts = { .release = release, .timeout_ms = 300,
				      .spare = spare };
	struct revoke_key key;

	if (key_of(path, &key))
		return -1;
	return pipeline_run(&pl, &key, &opts, res);
}

/*
 * The mechanics, with the policy sparing what it cannot handle: without
 * the LSM here, a woken read restarts and blocks again, which the drain
 * reports, and the default would kill that holder.
 */
static int run(const char *path, enum revoke_release release,
	       struct pipeline_result *res)
{
	return run_policy(path, release, true, res);
}

static char *new_fifo(const char *name)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	mkfifo(path, 0600);
	return path;
}

static char *new_file(const char *name)
{
	static char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd >= 0) {
		if (ftruncate(fd, 4096))
			perror("ftruncate");
		close(fd);
	}
	return path;
}

static void test_mapping_replaced_faults_with_sigbus(void)
{
	const char *path = new_file("mapped");
	const char *args[] = { "mmap", path, NULL };
	struct pipeline_result res;
	struct child c;
	int status;

	CHECK("mmap holder starts", !spawn(&c, args));
	CHECK("pipeline runs on a mapped file", !run(path, REVOKE_RELEASE_NO, &res));
	CHECK("one holder, one fd, one mapping found",
	      res.rep.holders == 1 && res.rep.fds == 1 && res.rep.mappings == 1);
	CHECK("the mapping is replaced", res.rep.unmapped == 1 && !res.rep.failed);
	CHECK("next access raises SIGBUS with BUS_ADRERR",
	      read_until(&c, "SIGBUS si_code=BUS_ADRERR", 3000));
	status = wait_child(&c);
	CHECK("the holder exits from its SIGBUS handler",
	      WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(c.out);
	pipeline_result_free(&res);
}

static void test_multithreaded_holder_all_mappings_replaced(void)
{
	const char *path = new_file("mapped16");
	const char *args[] = { "--threads", "16", "--maps", "4", "mmap", path, NULL };
	struct pipeline_result res;
	struct child c;

	CHECK("16-thread holder with 4 mappings starts", !spawn(&c, args));
	usleep(100000);
	CHECK("pipeline runs", !run(path, REVOKE_RELEASE_NO, &res));
	CHECK("all 4 mappings found and replaced",
	      res.rep.mappings == 4 && res.rep.unmapped == 4 && !res.rep.failed);
	CHECK("16-thread holder gets SIGBUS BUS_ADRERR",
	      read_until(&c, "SIGBUS si_code=BUS_ADRERR", 3000));
	reap(&c);
	pipeline_result_free(&res);
}

static void test_seccomp_holder_is_injected_anyway(void)
{
	const char *path = new_file("mapped_seccomp");
	const char *args[] = { "--seccomp", "mmap", path, NULL };
	struct pipeline_result res;
	struct child c;
	int status;

	CHECK("holder under a seccomp filter that kills memfd_create starts",
	      !spawn(&c, args));
	CHECK("pipeline runs", !run(path, REVOKE_RELEASE_NO, &res));
	CHECK("its mapping is replaced despite the filter", res.rep.unmapped == 1);
	CHECK("it gets SIGBUS, not SIGSYS",
	      read_until(&c, "SIGBUS si_code=BUS_ADRERR", 3000));
	status = wait_child(&c);
	CHECK("it exits normally", WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(c.out);
	pipeline_result_free(&res);
}

/* Without the LSM, a woken read restarts and must still work. */
static void test_woken_read_restarts_intact(void)
{
	const char *path = new_fifo("fifo_read");
	const char *args[] = { "read", path, NULL };
	struct pipeline_result res;
	struct child c;
	int w;

	CHECK("read holder starts", !spawn(&c, args));
	wait_blocked(c.pid);
	CHECK("pipeline runs on a FIFO", !run(path, REVOKE_RELEASE_NO, &res));
	CHECK("the blocked reader is found and woken",
	      res.rep.waiters == 1 && res.rep.woken == 1);
	/* no LSM here: the restarted read blocks again, and drain says so */
	CHECK("the drain reports the reader blocked again",
	      res.nfail == 1 && !strcmp(res.fail[0].step, "drain") &&
	      !strcmp(res.fail[0].reason, "still_blocked_on_file"));
	CHECK("the reader is not left stopped", !stopped(c.pid));
	w = open(path, O_WRONLY | O_NONBLOCK);
	CHECK("a byte is written to the FIFO", w >= 0 && write(w, "x", 1) == 1);
	CHECK("the restarted read returns it (registers were restored)",
	      read_until(&c, "read: ok 1", 3000));
	close(w);
	reap(&c);
	pipeline_result_free(&res);
}

/*
 * The thread iterator's snapshot says what /proc/PID/syscall says of a
 * blocked thread: its call and arguments; waiter_peek() matches the
 * call's descriptor against the revoked ones.
 */
static void test_thread_snapshot_matches_proc_syscall(void)
{
	const char *path = new_fifo("fifo_snapshot");
	const char *args[] = { "read", path, NULL };
	const struct revoke_thread *th = NULL;
	struct holder_threads ts = {};
	struct child c;
	unsigned long a0 = 0;
	char sys[64], line[256];
	long nr = -2;
	int fd, other;
	size_t i;
	FILE *f;

	CHECK("read holder starts", !spawn(&c, args));
	wait_blocked(c.pid);
	snprintf(sys, sizeof(sys), "/proc/%d/syscall", (int)c.pid);
	f = fopen(sys, "re");
	if (f) {
		if (!fgets(line, sizeof(line), f) ||
		    sscanf(line, "%ld %lx", &nr, &a0) != 2)
			nr = -2;
		fclose(f);
	}
	CHECK("the thread snapshot is taken",
	      !holders_threads(&pl.holders, &ts));
	for (i = 0; i < ts.nr; i++)
		if (ts.th[i].tid == (uint32_t)c.pid)
			th = &ts.th[i];
	CHECK("it has the blocked thread, asleep",
	      th && th->tgid == (uint32_t)c.pid && th->state != 0);
	CHECK("in the call and on the descriptor /proc/PID/syscall says",
	      th && nr >= 0 && th->nr == nr && th->args[0] == a0);
	fd = (int)a0;
	other = fd + 1;
	CHECK("waiter_peek: blocked on the revoked descriptor",
	      th && waiter_peek(th, &fd, 1, true) == WAITER_YES);
	CHECK("waiter_peek: not on another descriptor",
	      th && waiter_peek(th, &other, 1, true) == WAITER_NO);
	holder_threads_free(&ts);
	reap(&c);
}

/*
 * The walk of every mapping is spared only when no file of the inode is
 * mapped: a process that mapped the file and closed its descriptor is
 * still found while another holds only a descriptor.
 */
static void test_mapping_without_fd_found_beside_fd_holder(void)
{
	const char *path = new_file("mapped_closed");
	const struct holder_proc *mapper = NULL, *self = NULL;
	struct holder_set set = {};
	struct revoke_key key;
	int p[2], fd = -1;
	pid_t pid;
	size_t i;
	char c;

	CHECK("a pipe for the mapper", !pipe(p));
	pid = fork();
	if (pid == 0) {
		int mfd = open(path, O_RDONLY);

		if (mfd < 0 || mmap(NULL, 4096, PROT_READ, MAP_SHARED, mfd, 0) ==
			       MAP_FAILED)
			_exit(1);
		close(mfd);
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	CHECK("the mapper maps the file and closes its fd",
	      pid > 0 && read(p[0], &c, 1) == 1);
	fd = open(path, O_RDONLY);
	CHECK("holders are found",
	      fd >= 0 && !key_of(path, &key) &&
	      !holders_find(&pl.holders, &key, &set));
	for (i = 0; i < set.nr; i++) {
		if (set.procs[i].tgid == pid)
			mapper = &set.procs[i];
		if (set.procs[i].tgid == getpid())
			self = &set.procs[i];
	}
	CHECK("the descriptor holder, with no mapping",
	      self && self->nfds == 1 && self->nvmas == 0);
	CHECK("the mapper, with its mapping and no descriptor",
	      mapper && mapper->nfds == 0 && mapper->nvmas == 1 &&
	      mapper->vmas[0].prot == PROT_READ);
	holder_set_free(&set);
	if (fd >= 0)
		close(fd);
	close(p[0]);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

static void poll_like(const char *mode, const char *expect)
{
	char name[64], what[128];
	const char *path, *args[3];
	struct pipeline_result res;
	struct child c;

	snprintf(name, sizeof(name), "fifo_%s", mode);
	path = new_fifo(name);
	args[0] = mode;
	args[1] = path;
	args[2] = NULL;
	snprintf(what, sizeof(what), "%s holder starts", mode);
	CHECK(what, !spawn(&c, args));
	wait_blocked(c.pid);
	CHECK("pipeline runs", !run(path, REVOKE_RELEASE_NO, &res));
	snprintf(what, sizeof(what), "the thread in %s is woken", mode);
	CHECK(what, res.rep.waiters == 1 && res.rep.woken == 1);
	snprintf(what, sizeof(what), "%s returns the fd ready with an error: %s",
		 mode, expect);
	CHECK(what, read_until(&c, expect, 3000));
	reap(&c);
	pipeline_result_free(&res);
}

static void test_poll_completed_with_pollerr(void)
{
	poll_like("poll", "poll: 1 revents=0x9");
}

static void test_epoll_wait_completed_with_epollerr(void)
{
	poll_like("epoll", "epoll: 1 events=0x9 data=4242");
}

static void test_select_completed_readable(void)
{
	poll_like("select", "select: 1 readable=1");
}

static void test_release_replaces_fd_by_dead_file(void)
{
	const char *path = new_fifo("fifo_release");
	const char *args[] = { "hold", path, NULL };
	struct pipeline_result res;
	struct revoke_key key;
	struct revoke_report dead;
	char link[64], target[256] = "";
	struct stat st;
	struct child c;
	ssize_t n;

	CHECK("hold holder starts", !spawn(&c, args));
	CHECK("pipeline runs with release", !run(path, REVOKE_RELEASE_YES, &res));
	CHECK("its one fd is released", res.rep.fds == 1 && res.rep.released == 1 &&
	      !res.rep.failed);
	snprintf(link, sizeof(link), "/proc/%d/fd/3", (int)c.pid);
	n = readlink(link, target, sizeof(target) - 1);
	if (n > 0)
		target[n] = '\0';
	CHECK("fd 3 now refers to the dead memfd",
	      !strcmp(target, "/memfd:revoke-bpf-dead (deleted)"));
	CHECK("the dead file is itself revoked, marked dead",
	      !stat(link, &st) && !revoke_kdev_from_stdev(st.st_dev, &key.dev) &&
	      (key.pad = 0, key.ino = st.st_ino,
	       !inode_set_report_get(&rb, &key, &dead)) &&
	      dead.flags & REVOKE_REPORT_DEAD);
	CHECK("the holder is not left stopped", !stopped(c.pid));
	reap(&c);
	pipeline_result_free(&res);
}

static void traced_holder(bool spare)
{
	const char *path = new_file(spare ? "mapped_traced_spared" :
					    "mapped_traced_killed");
	const char *args[] = { "mmap", path, NULL };
	struct pipeline_result res;
	char want[64];
	struct child c;
	pid_t tracer;
	int i;

	CHECK("holder starts", !spawn(&c, args));
	tracer = fork();
	if (tracer == 0) {
		if (ptrace(PTRACE_SEIZE, c.pid, NULL, NULL))
			_exit(1);
		pause();
		_exit(0);
	}
	snprintf(want, sizeof(want), "traced_by_pid_%d", (int)tracer);
	for (i = 0; i < 100; i++) {
		char path2[64], line[128];
		FILE *f;
		int tp = 0;

		snprintf(path2, sizeof(path2), "/proc/%d/status", (int)c.pid);
		f = fopen(path2, "re");
		while (f && fgets(line, sizeof(line), f))
			sscanf(line, "TracerPid: %d", &tp);
		if (f)
			fclose(f);
		if (tp == tracer)
			break;
		usleep(10000);
	}
	CHECK("pipeline runs", !run_policy(path, REVOKE_RELEASE_NO, spare, &res));
	if (spare) {
		CHECK("spared: the traced holder is a failure, with its tracer, "
		      "uid and name", res.rep.failed == 1 && res.nfail == 1 &&
		      !res.nkill && !strcmp(res.fail[0].step, "stop") &&
		      !strcmp(res.fail[0].reason, want) &&
		      res.fail[0].uid == (long)getuid() &&
		      !strcmp(res.fail[0].comm, "holder"));
		CHECK("spared: its mapping is left as it was",
		      res.rep.unmapped == 0 && !read_until(&c, "SIGBUS", 200));
	} else {
		CHECK("by default the traced holder is killed and reported, "
		      "no failure left", res.rep.failed == 0 && res.nkill == 1 &&
		      res.kill[0].pid == c.pid && res.kill[0].gone &&
		      !strcmp(res.kill[0].step, "stop") &&
		      !strcmp(res.kill[0].reason, want) &&
		      res.kill[0].uid == (long)getuid() &&
		      !strcmp(res.kill[0].comm, "holder"));
	}
	kill(tracer, SIGKILL);
	waitpid(tracer, NULL, 0);
	reap(&c);
	pipeline_result_free(&res);
}

/*
 * A holder with no syscall instruction to lend (no [vdso], spinning in
 * user space) gets one written at its instruction pointer, and its code
 * back afterwards: its FIFO descriptor is released, its mapping replaced.
 */
static void test_holder_without_syscall_insn_is_injected(void)
{
	const char *file = new_file("mapped_novdso");
	const char *fifo = new_fifo("fifo_novdso");
	const char *args[] = { "spin", file, fifo, NULL };
	struct pipeline_result res;
	struct child c;

	CHECK("spinning holder without [vdso] starts",
	      !spawn_prog(&c, HOSTILE, args) && read_until(&c, "ready", 3000));
	usleep(100000);	/* past its last call, spinning */
	CHECK("its FIFO descriptor is released, nobody killed",
	      !run_policy(fifo, REVOKE_RELEASE_YES, false, &res) &&
	      res.rep.released == 1 && !res.rep.failed && !res.nkill);
	pipeline_result_free(&res);
	CHECK("it still spins, not stopped", !stopped(c.pid) &&
	      !read_until(&c, "SIGBUS", 100));
	CHECK("its mapping is replaced, nobody killed",
	      !run_policy(file, REVOKE_RELEASE_NO, false, &res) &&
	      res.rep.unmapped == 1 && !res.rep.failed && !res.nkill);
	CHECK("it faults with SIGBUS on its next access",
	      read_until(&c, "SIGBUS si_code=BUS_ADRERR", 3000));
	CHECK("its code is as it was", strstr(c.buf, "text intact\n") != NULL);
	CHECK("its descriptor is the empty dead file, not the FIFO",
	      strstr(c.buf, "fifo read: ok 0\n") != NULL);
	CHECK("it exits 0 from its handler", wait_child(&c) == 0);
	close(c.out);
	pipeline_result_free(&res);
}

static void test_nothing_held_reports_zero(void)
{
	const char *path = new_file("unheld");
	struct pipeline_result res;

	CHECK("pipeline runs on a file nobody holds",
	      !run(path, REVOKE_RELEASE_AUTO, &res));
	CHECK("it finds no holder and fails nothing",
	      res.rep.holders == 0 && res.rep.fds == 0 && !res.rep.failed);
	pipeline_result_free(&res);
}

/*
 * A holder is named by its pid and its start time: once its pid names a
 * later process, holder_pidfd() refuses to take that one for it.
 */
static void test_holder_named_by_pid_and_start_time(void)
{
	const char *path = new_file("identity");
	const char *args[] = { "hold", path, NULL };
	struct holder_proc *p = NULL, later;
	struct holder_set set = {};
	struct revoke_key key;
	struct child c;
	size_t i;
	int fd;

	CHECK("hold holder starts", !spawn(&c, args));
	CHECK("its holders are found",
	      !key_of(path, &key) && !holders_find(&pl.holders, &key, &set));
	for (i = 0; i < set.nr; i++)
		if (set.procs[i].tgid == c.pid)
			p = &set.procs[i];
	CHECK("the holder is found with its start time",
	      p && p->start_boottime > 0);
	fd = p ? holder_pidfd(p) : -1;
	CHECK("a pidfd is taken on the holder it still is", fd >= 0);
	if (fd >= 0)
		close(fd);
	if (p) {
		later = *p;
		later.start_boottime += 1000000000ull;
		CHECK("the same pid with another start time is not taken for it",
		      holder_pidfd(&later) == -ESRCH);
	}
	holder_set_free(&set);
	reap(&c);
}

int main(void)
{
	if (!mkdtemp(dir) || test_maps_create(&rb, 1024)) {
		CHECK("BPF maps can be created (run as root)", 0);
		return tap_done();
	}
	pipeline_init(&pl, &rb);
	CHECK("the holder iterators load", pl.ready);
	if (!pl.ready) {
		printf("# %s\n", pl.why);
		return tap_done();
	}
	test_mapping_replaced_faults_with_sigbus();
	test_multithreaded_holder_all_mappings_replaced();
	test_seccomp_holder_is_injected_anyway();
	test_thread_snapshot_matches_proc_syscall();
	test_mapping_without_fd_found_beside_fd_holder();
	test_woken_read_restarts_intact();
	test_poll_completed_with_pollerr();
	test_epoll_wait_completed_with_epollerr();
	test_select_completed_readable();
	test_release_replaces_fd_by_dead_file();
	traced_holder(true);
	traced_holder(false);
	test_holder_without_syscall_insn_is_injected();
	test_nothing_held_reports_zero();
	test_holder_named_by_pid_and_start_time();
	pipeline_fini(&pl);
	return tap_done();
}
