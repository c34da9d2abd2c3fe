// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/common/log.c: the exact bytes on stderr, with the
 * "revoke-bpfd: " prefix when stderr is anything but the journal, and
 * with a syslog priority on every line when $JOURNAL_STREAM names the
 * file on fd 2 (a file, then a pipe, as journald's stream is).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "common/log.h"
#include "tap.h"

static int saved_stderr;

/* what journal_stream() takes for @fd's own "DEV:INODE" */
#define OWN "own"

/* Set $JOURNAL_STREAM to @env (OWN: @fd's "DEV:INODE"), or unset it. */
static void journal_stream(int fd, const char *env)
{
	struct stat st;
	char v[64];

	if (!env) {
		unsetenv("JOURNAL_STREAM");
		return;
	}
	if (strcmp(env, OWN)) {
		setenv("JOURNAL_STREAM", env, 1);
		return;
	}
	fstat(fd, &st);
	snprintf(v, sizeof(v), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", v, 1);
}

/* Make @fd stderr, then look at it as the daemon's main does. */
static void stderr_to(int fd)
{
	dup2(fd, STDERR_FILENO);
	log_init();
}

static void stderr_back(void)
{
	dup2(saved_stderr, STDERR_FILENO);
	unsetenv("JOURNAL_STREAM");
	log_init();
}

static void say(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say_all(void)
{
	log_err("BPF LSM is not active (active LSMs: \"%s\")\n", "capability");
	log_warn("no BTF; revocation will deny new operations\n");
	log_info("ready, listening on %s\n", "/run/revoke-bpf/control.sock");
	log_err("two\nlines\n");
	say(LOG_WARNING, "libbpf: %s\n", "map 'x': failed");
}

/* libbpf's way in: log_vraw() */
static void say(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vraw(prio, fmt, ap);
	va_end(ap);
}

static const char plain[] =
	"revoke-bpfd: BPF LSM is not active (active LSMs: \"capability\")\n"
	"revoke-bpfd: no BTF; revocation will deny new operations\n"
	"revoke-bpfd: ready, listening on /run/revoke-bpf/control.sock\n"
	"revoke-bpfd: two\nlines\n"
	"libbpf: map 'x': failed\n";

static const char journal[] =
	"<3>BPF LSM is not active (active LSMs: \"capability\")\n"
	"<4>no BTF; revocation will deny new operations\n"
	"<6>ready, listening on /run/revoke-bpf/control.sock\n"
	"<3>two\n<3>lines\n"
	"<4>libbpf: map 'x': failed\n";

/* What say_all() writes to a file, with $JOURNAL_STREAM @env. */
static char *file_bytes(const char *env, char *buf, size_t len)
{
	FILE *f = tmpfile();
	size_t n;

	journal_stream(fileno(f), env);
	stderr_to(fileno(f));
	say_all();
	stderr_back();
	rewind(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The same through a pipe. */
static char *pipe_bytes(const char *env, char *buf, size_t len)
{
	int p[2];
	ssize_t n;

	if (pipe(p))
		return strcpy(buf, "pipe failed");
	journal_stream(p[1], env);
	stderr_to(p[1]);
	say_all();
	stderr_back();
	close(p[1]);
	n = read(p[0], buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(p[0]);
	return buf;
}

static void test_file(void)
{
	char buf[4096];

	CHECK("no JOURNAL_STREAM: the prefix, as ever",
	      !strcmp(file_bytes(NULL, buf, sizeof(buf)), plain));
	CHECK("JOURNAL_STREAM of another file: the prefix",
	      !strcmp(file_bytes("2049:12", buf, sizeof(buf)), plain));
	CHECK("JOURNAL_STREAM that is no DEV:INODE: the prefix",
	      !strcmp(file_bytes("journal", buf, sizeof(buf)), plain));
	CHECK("JOURNAL_STREAM with junk after the inode: the prefix",
	      !strcmp(file_bytes("1:2x", buf, sizeof(buf)), plain));
	CHECK("JOURNAL_STREAM of this file: a priority on every line, no name",
	      !strcmp(file_bytes(OWN, buf, sizeof(buf)), journal));
}

static void test_pipe(void)
{
	char buf[4096];

	CHECK("a pipe that is not the journal's: the prefix",
	      !strcmp(pipe_bytes("0:0", buf, sizeof(buf)), plain));
	CHECK("the journal's pipe: priorities",
	      !strcmp(pipe_bytes(OWN, buf, sizeof(buf)), journal));
}

static void test_long_and_unterminated(void)
{
	char buf[8192], want[8192], *long_line;
	FILE *f = tmpfile();
	size_t n;

	long_line = malloc(3000);
	memset(long_line, 'x', 2999);
	long_line[2999] = '\0';
	journal_stream(fileno(f), OWN);
	stderr_to(fileno(f));
	log_info("%s\n", long_line);
	log_err("no newline");
	log_info("after\n");
	stderr_back();
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	snprintf(want, sizeof(want), "<6>%s\n<3>no newline\n<6>after\n",
		 long_line);
	CHECK("a line longer than the stack buffer is whole, a line without "
	      "its newline is ended", !strcmp(buf, want));
	free(long_line);
}

int main(void)
{
	saved_stderr = dup(STDERR_FILENO);
	unsetenv("JOURNAL_STREAM");
	test_file();
	test_pipe();
	test_long_and_unterminated();
	CHECK("stderr is not the journal once back", !log_to_journal());
	return tap_done();
}
