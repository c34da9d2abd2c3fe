// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_client.c - send one request to revoke-bpfd and read its answer,
 * each wait bounded by ctl_client_timeout_ms: connecting, handing the
 * request over, revoke-bpfd reading it, and its reply (except add's,
 * below).
 */
#include <errno.h>
#include <linux/sockios.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static unsigned int timeout_ms = CTL_CLIENT_TIMEOUT_DEFAULT_MS;

/* set by a signal handler: the wait for an answer ends with -EINTR */
volatile sig_atomic_t ctl_client_interrupted;

/**
 * ctl_client_set_timeout() - how long each wait for revoke-bpfd may take
 * @ms: milliseconds; 0 waits for ever
 */
void ctl_client_set_timeout(unsigned int ms)
{
	timeout_ms = ms;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* poll(2)'s timeout until @deadline (ms, now_ms()), -1 if there is none */
static int left_ms(long long deadline)
{
	long long left;

	if (!deadline)
		return -1;
	left = deadline - now_ms();
	return left > 0 ? (int)left : 0;
}

static long long deadline_in(unsigned int ms)
{
	return ms ? now_ms() + ms : 0;
}

/*
 * Wait until revoke-bpfd has read the whole request: nothing of it is
 * left unread in the connection (SIOCOUTQ), or it already answered.
 */
static int wait_taken(int fd, long long deadline)
{
	int queued, pause = 1;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	for (;;) {
		if (ioctl(fd, SIOCOUTQ, &queued) || queued == 0)
			return 0;
		if (poll(&p, 1, 0) > 0)
			return 0;
		if (deadline && left_ms(deadline) == 0)
			return -ETIMEDOUT;
		usleep((useconds_t)pause * 1000);
		pause = pause < 8 ? pause * 2 : 8;
	}
}

/*
 * Hand the whole "progress" lines at the start of @resp to @progress,
 * and drop them: they come before the answer (progress=yes).
 */
static void take_progress(struct rbuf *resp, ctl_progress_fn progress,
			  void *arg)
{
	static const char word[] = REVOKE_LINE_PROGRESS " ";
	char *nl;
	size_t n;

	while (resp->len >= sizeof(word) - 1 &&
	       !strncmp(resp->data, word, sizeof(word) - 1) &&
	       (nl = memchr(resp->data, '\n', resp->len))) {
		*nl = '\0';
		progress(resp->data, arg);
		n = (size_t)(nl + 1 - resp->data);
		memmove(resp->data, nl + 1, resp->len - n);
		resp->len -= n;
	}
}

static int recv_all(int fd, struct rbuf *resp, long long deadline,
		    ctl_progress_fn progress, void *arg)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char chunk[8192];
	ssize_t n;
	int r;

	for (;;) {
		if (ctl_client_interrupted)
			return -EINTR;
		r = poll(&p, 1, left_ms(deadline));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ETIMEDOUT;
		n = recv(fd, chunk, sizeof(chunk), MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		/* a daemon that refuses the request closes before reading it */
		if (n < 0 && errno == ECONNRESET && resp->len)
			break;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		rbuf_printf(resp, "%.*s", (int)n, chunk);
		if (progress && !resp->failed)
			take_progress(resp, progress, arg);
	}
	if (resp->failed)
		return -ENOMEM;
	if (resp->len == 0)
		return -ECONNRESET;
	rbuf_printf(resp, "%s", "");	/* NUL-terminate */
	return 0;
}

/* Send @len bytes of @p, with descriptor @send_fd if it is not -1. */
static int send_request(int fd, const char *p, size_t len, int send_fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { .iov_base = (void *)p, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	ssize_t n;

	if (send_fd < 0)
		return ctl_send_all(fd, p, len);
	memset(&control, 0, sizeof(control));
	msg.msg_control = control.buf;
	msg.msg_controllen = sizeof(control.buf);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &send_fd, sizeof(int));
	do
		n = sendmsg(fd, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	/*
	 * EPERM: revoke-bpfd told the kernel to take no descriptor from us
	 * (SO_PASSRIGHTS, Linux 6.16): send the request alone, and its
	 * answer says why we may not.
	 */
	if (n < 0 && errno == EPERM)
		return ctl_send_all(fd, p, len);
	if (n < 0)
		return -errno;
	return ctl_send_all(fd, p + n, len - (size_t)n);
}

static bool reply_waiting(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* ctl_open() but for @send_fd, which the caller closes. */
static int connect_send(const char *path, const struct revoke_req *req,
			int send_fd, char *err, size_t errlen)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char line[REVOKE_REQ_MAX];
	int fd, n, ret;

	n = revoke_req_format(req, line, sizeof(line));
	if (n < 0) {
		snprintf(err, errlen, "request too long");
		return n;
	}
	if (strlen(path) >= sizeof(addr.sun_path)) {
		snprintf(err, errlen, "socket path too long: %s", path);
		return -ENAMETOOLONG;
	}
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return ret;
	}
	/* bounds connect(2), while the backlog is full, and send(2) */
	if (timeout_ms)
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &(struct timeval){
			.tv_sec = timeout_ms / 1000,
			.tv_usec = (timeout_ms % 1000) * 1000 }, sizeof(struct timeval));
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		ret = -errno;
		if (ret == -EAGAIN)
			snprintf(err, errlen, "timed out after %g s connecting to "
				 "revoke-bpfd at %s (it accepts no connection)",
				 timeout_ms / 1000.0, path);
		else
			snprintf(err, errlen,
				 "cannot reach revoke-bpfd at %s (%s); is it running? "
				 "start it: 'systemctl start revoke-bpfd', or 'revoke-bpfd' "
				 "as root",
				 path, strerror(errno));
		close(fd);
		return ret;
	}
	ret = send_request(fd, line, (size_t)n, send_fd);
	/* refused before it read anything: its answer says why */
	if ((ret == -EPIPE || ret == -ECONNRESET) && reply_waiting(fd))
		return fd;
	if (ret == -EAGAIN)
		snprintf(err, errlen, "timed out after %g s sending the '%s' "
			 "request to revoke-bpfd at %s", timeout_ms / 1000.0,
			 revoke_verb_name(req->verb), path);
	else if (ret)
		snprintf(err, errlen, "revoke-bpfd at %s did not take the request: %s",
			 path, strerror(-ret));
	if (!ret && wait_taken(fd, deadline_in(timeout_ms))) {
		snprintf(err, errlen, "timed out after %g s waiting for revoke-bpfd "
			 "at %s to read the '%s' request", timeout_ms / 1000.0, path,
			 revoke_verb_name(req->verb));
		ret = -ETIMEDOUT;
	}
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/**
 * ctl_open() - connect to the daemon and send one request
 * @path: the daemon's socket
 * @req: the request
 * @send_fd: a descriptor to send with it (a path= request's file), or -1;
 *	closed here in any case
 * @err: on failure, a one-line reason with what to do
 * @errlen: size of @err
 *
 * Return: the connected socket, to read the answer from, or a negative
 * errno if the daemon could not be reached.
 */
int ctl_open(const char *path, const struct revoke_req *req, int send_fd,
	     char *err, size_t errlen)
{
	int fd = connect_send(path, req, send_fd, err, errlen);

	/* the daemon has its own reference now: ours would make us a holder */
	if (send_fd >= 0)
		close(send_fd);
	return fd;
}

/* Is the answer to @verb waited for without a deadline?  (ctl_read_answer()) */
static bool reply_unbounded(enum revoke_verb verb)
{
	switch (verb) {
	case REVOKE_VERB_ADD:
	case REVOKE_VERB_UMOUNT:
	case REVOKE_VERB_DEL:
	case REVOKE_VERB_RELOAD:
	case REVOKE_VERB_UNLOAD:
	case REVOKE_VERB_PAUSE:
	case REVOKE_VERB_RESUME:
		return true;
	default:
		return false;
	}
}

/**
 * ctl_read_answer() - read the answer to a request ctl_open() sent
 * @fd: from ctl_open(); closed here
 * @path: the daemon's socket, for messages
 * @req: the request
 * @progress: called with each "progress" line before the answer (a
 *	progress=yes request), or NULL
 * @arg: passed to @progress
 * @resp: the raw response text, NUL-terminated, progress lines taken out
 * @err: on failure, a one-line reason with what to do
 * @errlen: size of @err
 *
 * The answers to what changes the revoked set (add, umount, del,
 * reload, unload) are waited for as long as they take, once revoke-bpfd
 * has read the request: add and umount take as long as the holders do,
 * and each of them waits behind an add or umount already running
 * (revoke-bpfd parks it, and does it after).  A deadline there would
 * say "failed" of a request revoke-bpfd then carries out.  A signal that
 * sets ctl_client_interrupted ends the wait.
 *
 * Return: 0 if an answer arrived (it may still be an "err" line), or a
 * negative errno: -EINTR once interrupted, -ETIMEDOUT, or another if
 * the daemon did not answer.
 */
int ctl_read_answer(int fd, const char *path, const struct revoke_req *req,
		    ctl_progress_fn progress, void *arg, struct rbuf *resp,
		    char *err, size_t errlen)
{
	int ret;

	ret = recv_all(fd, resp, reply_unbounded(req->verb) ? 0 :
			   deadline_in(timeout_ms), req->progress ? progress : NULL,
		       arg);
	if (ret == -EINTR)
		snprintf(err, errlen, "interrupted");
	else if (ret == -ETIMEDOUT)
		snprintf(err, errlen, "timed out after %g s waiting for "
			 "revoke-bpfd's reply to '%s'", timeout_ms / 1000.0,
			 revoke_verb_name(req->verb));
	else if (ret)
		snprintf(err, errlen, "revoke-bpfd at %s did not answer: %s",
			 path, strerror(-ret));
	close(fd);
	return ret;
}

/**
 * ctl_call() - one request, one response
 * @path: the daemon's socket
 * @req: the request
 * @send_fd: a descriptor to send with it, or -1; closed, as by ctl_open()
 * @resp: the raw response text, NUL-terminated
 * @err: on failure, a one-line reason with what to do
 * @errlen: size of @err
 *
 * Return: 0 if a response arrived (it may still be an "err" line), or a
 * negative errno if the daemon could not be reached.
 */
int ctl_call(const char *path, const struct revoke_req *req, int send_fd,
	     struct rbuf *resp, char *err, size_t errlen)
{
	int fd;

	fd = ctl_open(path, req, send_fd, err, errlen);
	if (fd < 0)
		return fd;
	return ctl_read_answer(fd, path, req, NULL, NULL, resp, err, errlen);
}

/**
 * ctl_wait_reply() - wait for the first byte of a reply to @verb
 * @fd: from ctl_open()
 * @verb: the request's verb, for the message
 * @err: on failure, a one-line reason
 * @errlen: size of @err
 *
 * Return: 0 once there is something to read, or -ETIMEDOUT.
 */
int ctl_wait_reply(int fd, enum revoke_verb verb, char *err, size_t errlen)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	long long deadline = deadline_in(timeout_ms);
	int r;

	do
		r = poll(&p, 1, left_ms(deadline));
	while (r < 0 && errno == EINTR);
	if (r == 0) {
		snprintf(err, errlen, "timed out after %g s waiting for "
			 "revoke-bpfd's reply to '%s'", timeout_ms / 1000.0,
			 revoke_verb_name(verb));
		return -ETIMEDOUT;
	}
	return 0;
}
