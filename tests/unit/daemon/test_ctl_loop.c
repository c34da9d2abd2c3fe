// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/daemon/ctl_loop.c's turns within a long request
 * (ctl_loop_yield()), on a real socket, with clients in a thread: a
 * request that may nest is answered while the long one runs; one that
 * may not waits, parked, and is served after it, in the order it came;
 * a client of the long request that goes away disturbs nothing; turns
 * take their share of the time and no more.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "daemon/ctl_loop.h"
#include "tap.h"

static struct ctl_loop loop;
static char sock_path[108];
static char order[256];		/* the requests handled, in order */
static atomic_int slow_running, slow_release;
static atomic_int nested_during_slow;
static int handled, expected;
static uint64_t yield_ms, work_ms;	/* the flood test's split */
static atomic_int flooding;

static uint64_t us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Busy for @ms, as a request's work is. */
static void burn(uint64_t ms)
{
	uint64_t end = us() + ms * 1000;

	while (us() < end)
		;
}

/* 400 ms of work in 1 ms pieces, a turn offered after each. */
static void work(void)
{
	uint64_t t0 = us(), t, in_turns = 0;
	int i;

	for (i = 0; i < 400; i++) {
		burn(1);
		t = us();
		ctl_loop_yield(&loop);
		in_turns += us() - t;
	}
	yield_ms = in_turns / 1000;
	work_ms = (us() - t0) / 1000;
}

/* "slow" turns the loop until told to stop; others answer at once. */
static bool handle(const struct ctl_peer *peer, const char *req, size_t len,
		   struct rbuf *resp, void *ctx)
{
	uint64_t end = ctl_now_ms() + 5000;

	(void)peer;
	(void)ctx;
	snprintf(order + strlen(order), sizeof(order) - strlen(order), "%.*s,",
		 (int)(len && req[len - 1] == '\n' ? len - 1 : len), req);
	handled++;
	if (!strncmp(req, "work", 4)) {
		handled--;	/* done once the work is */
		work();
		handled++;
	} else if (atomic_load(&flooding)) {
		burn(3);	/* each status costs the daemon 3 ms */
		handled--;	/* the flood does not count */
	} else if (!strncmp(req, "slow", 4)) {
		atomic_store(&slow_running, 1);
		while (!atomic_load(&slow_release) && ctl_now_ms() < end) {
			ctl_loop_yield(&loop);
			usleep(1000);
		}
		atomic_store(&slow_running, 0);
	} else if (atomic_load(&slow_running)) {
		atomic_fetch_add(&nested_during_slow, 1);
	}
	rbuf_printf(resp, "ok %.*s", (int)len, req);
	return false;
}

static bool may_act(const struct ctl_peer *peer, void *ctx)
{
	(void)peer;
	(void)ctx;
	return true;
}

/* only "status" may be served within the long request */
static bool may_nest(const struct ctl_peer *peer, bool priv, const char *req,
		     size_t len, void *ctx)
{
	(void)peer;
	(void)priv;
	(void)ctx;
	return len >= 6 && !strncmp(req, "status", 6);
}

static void unstream(int fd, void *ctx)
{
	(void)fd;
	(void)ctx;
}

static int tick(void *ctx)
{
	(void)ctx;
	return 50;
}

static bool done(void *ctx)
{
	(void)ctx;
	return handled >= expected;
}

static const struct ctl_loop_ops ops = {
	.handle = handle,
	.may_act = may_act,
	.may_nest = may_nest,
	.unstream = unstream,
	.tick = tick,
	.done = done,
};

static int connect_send(const char *line)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	strcpy(addr.sun_path, sock_path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		return -1;
	return fd;
}

/* The whole answer, within @ms, into @buf; "" if none came. */
static const char *answer(int fd, int ms, char *buf, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	ssize_t n;

	buf[0] = '\0';
	while (got + 1 < len && poll(&p, 1, ms) == 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	return buf;
}

static void wait_for(atomic_int *flag, int want)
{
	uint64_t end = ctl_now_ms() + 5000;

	while (atomic_load(flag) != want && ctl_now_ms() < end)
		usleep(1000);
}

struct results {
	char status[64];
	char change[64];
	char slow[64];
	int status_while_slow;
	int change_while_slow;
};

/* slow, then change and status while it runs; slow let go after */
static void *clients(void *arg)
{
	struct results *r = arg;
	int slow, change, status;
	char tmp[64];

	slow = connect_send("slow\n");
	wait_for(&slow_running, 1);
	change = connect_send("change\n");
	usleep(50000);	/* accepted and parked before status comes */
	status = connect_send("status\n");
	answer(status, 2000, r->status, sizeof(r->status));
	r->status_while_slow = atomic_load(&slow_running);
	r->change_while_slow = answer(change, 100, tmp, sizeof(tmp))[0] != '\0';
	atomic_store(&slow_release, 1);
	answer(slow, 2000, r->slow, sizeof(r->slow));
	answer(change, 2000, r->change, sizeof(r->change));
	close(slow);
	close(change);
	close(status);
	return NULL;
}

/* slow, whose client goes away; then change, after it */
static void *gone_client(void *arg)
{
	char *out = arg;
	int slow, change;

	slow = connect_send("slow\n");
	wait_for(&slow_running, 1);
	close(slow);
	change = connect_send("change\n");
	usleep(50000);
	atomic_store(&slow_release, 1);
	answer(change, 2000, out, 64);
	close(change);
	return NULL;
}

static void reset(int want);

/* work, and status after status meanwhile, on 8 connections at once */
static void *flood(void *arg)
{
	int fds[8], i, n = 0, w;
	char tmp[64];

	(void)arg;
	w = connect_send("work\n");
	while (!work_ms) {
		for (i = 0; i < 8; i++)
			fds[i] = connect_send("status\n");
		for (i = 0; i < 8; i++) {
			n += answer(fds[i], 200, tmp, sizeof(tmp))[0] != '\0';
			close(fds[i]);
		}
	}
	answer(w, 2000, tmp, sizeof(tmp));
	close(w);
	*(int *)arg = n;
	return NULL;
}

static void test_flood(void)
{
	pthread_t th;
	int served = 0;

	reset(1);
	loop.yield_after_ms = 0;
	atomic_store(&flooding, 1);
	pthread_create(&th, NULL, flood, &served);
	CHECK("the loop serves the long request through a flood",
	      ctl_loop_run(&loop) == 0);
	pthread_join(th, NULL);
	atomic_store(&flooding, 0);
	printf("# flood: %d answered; %llu of %llu ms in turns\n", served,
	       (unsigned long long)yield_ms, (unsigned long long)work_ms);
	CHECK("requests are answered during the long one", served > 8);
	/*
	 * A fifth by design (CTL_YIELD_GAP_MS and CTL_YIELD_BUDGET_MS); the
	 * last turn may have no gap after it, and on a loaded machine (make
	 * check beside three guests on two cores: 21% measured, and 36
	 * answered in 2,203 ms) the turns' system calls stretch: a quarter
	 * at most, and a request answered every 200 ms.
	 */
	CHECK("a flood of requests takes a quarter of the long one's time at most",
	      yield_ms * 4 <= work_ms + 4 * (CTL_YIELD_BUDGET_MS + 5));
	CHECK("but is served all along, a turn after another",
	      served >= (int)(work_ms / 200));
}

static void reset(int want)
{
	order[0] = '\0';
	handled = 0;
	expected = want;
	atomic_store(&slow_running, 0);
	atomic_store(&slow_release, 0);
	atomic_store(&nested_during_slow, 0);
}

static void test_nested_and_parked(void)
{
	struct results r = {};
	pthread_t th;

	reset(3);
	pthread_create(&th, NULL, clients, &r);
	CHECK("the loop serves until the three requests are handled",
	      ctl_loop_run(&loop) == 0);
	pthread_join(th, NULL);
	CHECK("status is answered while the long request runs",
	      !strcmp(r.status, "ok status\n") && r.status_while_slow);
	CHECK("the handler saw status within the long request",
	      atomic_load(&nested_during_slow) == 1);
	CHECK("change is not answered while the long request runs",
	      !r.change_while_slow);
	CHECK("the long request is answered", !strcmp(r.slow, "ok slow\n"));
	CHECK("change is served after the long request, not lost",
	      !strcmp(r.change, "ok change\n"));
	CHECK("handled in order: slow, status within it, then change",
	      !strcmp(order, "slow,status,change,"));
	CHECK("the parked request was counted", loop.parked == 1);
}

static void test_client_gone(void)
{
	char out[64] = "";
	pthread_t th;

	reset(2);
	pthread_create(&th, NULL, gone_client, out);
	CHECK("the loop goes on when the long request's client went away",
	      ctl_loop_run(&loop) == 0);
	pthread_join(th, NULL);
	CHECK("the long request ran to its end, then the parked one",
	      !strcmp(order, "slow,change,") && !strcmp(out, "ok change\n"));
}

static void test_share(void)
{
	uint64_t t0, after;
	bool ran;

	loop.yield_after_ms = 0;
	CHECK("a turn runs when it is time", ctl_loop_yield(&loop));
	CHECK("the next turn waits at least CTL_YIELD_GAP_MS",
	      !ctl_loop_yield(&loop) &&
	      loop.yield_after_ms >= ctl_now_ms() + CTL_YIELD_GAP_MS - 2);
	t0 = ctl_now_ms();
	after = loop.yield_after_ms;
	while (!(ran = ctl_loop_yield(&loop)) && ctl_now_ms() < t0 + 1000)
		usleep(1000);
	/* how soon after the gap is the scheduler's: only that it does */
	CHECK("and then runs again, not before the gap",
	      ran && ctl_now_ms() >= after);
	loop.nested = true;
	loop.yield_after_ms = 0;
	CHECK("no turn within a turn", !ctl_loop_yield(&loop));
	loop.nested = false;
}

int main(void)
{
	char dir[] = "/tmp/test_ctl_loop.XXXXXX", err[256];
	int lfd;

	if (!mkdtemp(dir))
		return 1;
	snprintf(sock_path, sizeof(sock_path), "%s/sock", dir);
	lfd = ctl_listen(sock_path, err, sizeof(err));
	CHECK("listen", lfd >= 0);
	CHECK("the loop starts", lfd >= 0 && !ctl_loop_init(&loop, lfd, &ops, NULL));
	if (lfd >= 0) {
		test_nested_and_parked();
		test_client_gone();
		test_share();
		test_flood();
		ctl_loop_fini(&loop);
		close(lfd);
	}
	unlink(sock_path);
	rmdir(dir);
	return tap_done();
}
