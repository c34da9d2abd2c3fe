// SPDX-License-Identifier: GPL-2.0
/*
 * log.c - revoke-bpfd's errors, warnings and notices, on stderr.  The
 * caller's format ends the line, so that a line it already holds (a
 * denial) is written as it is.  Every layer of the daemon (daemon/,
 * pipeline/, store/) says things through it.
 *
 * On a terminal, in a file or a pipe, a message is written after the
 * "revoke-bpfd: " prefix.  Under systemd stderr is a stream to journald,
 * which sets $JOURNAL_STREAM to that stream's "DEV:INODE" (systemd.exec(5));
 * when fd 2 is that very file, each line of a message starts with its
 * syslog priority, "<3>" (error), "<4>" (warning) or "<6>" (info), which
 * journald takes off and keeps as the entry's PRIORITY, and the prefix is
 * left out: the journal names the unit and the program already.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "key.h"
#include "log.h"

/* a message this long is formatted on the heap */
#define LOG_LINE_MAX 1024

static bool journal;

/* Does $JOURNAL_STREAM ("DEV:INODE") name the file open on @fd? */
static bool journal_stream_is(int fd)
{
	const char *env = getenv("JOURNAL_STREAM");
	char dev[32];
	uint64_t d, i;
	const char *colon;
	struct stat st;

	if (!env || fstat(fd, &st))
		return false;
	colon = strchr(env, ':');
	if (!colon || (size_t)(colon - env) >= sizeof(dev))
		return false;
	memcpy(dev, env, (size_t)(colon - env));
	dev[colon - env] = '\0';
	if (revoke_parse_u64(dev, &d) || revoke_parse_u64(colon + 1, &i))
		return false;
	return d == (uint64_t)st.st_dev && i == (uint64_t)st.st_ino;
}

/**
 * log_init() - look at what stderr is: the journal, or anything else
 *
 * Call it first, and again after stderr changes.  Until it is called
 * every message gets the "revoke-bpfd: " prefix.
 */
void log_init(void)
{
	journal = journal_stream_is(STDERR_FILENO);
}

/**
 * log_to_journal() - are messages written for journald?
 *
 * Return: true if log_init() found stderr to be the journal's stream.
 */
bool log_to_journal(void)
{
	return journal;
}

/* Each line of @text after "<@prio>"; a last line without '\n' gets one. */
static void journal_lines(int prio, const char *text)
{
	const char *line, *nl;

	for (line = text; *line; line = nl + 1) {
		nl = strchrnul(line, '\n');
		fprintf(stderr, "<%d>%.*s\n", prio, (int)(nl - line), line);
		if (!*nl)
			break;
	}
}

static void journal_vprint(int prio, const char *fmt, va_list ap)
{
	char buf[LOG_LINE_MAX], *text = buf;
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	/* out of memory: the message cut short, rather than lost */
	if ((size_t)n >= sizeof(buf) && vasprintf(&text, fmt, ap) < 0)
		text = buf;
	journal_lines(prio, text);
	if (text != buf)
		free(text);
}

static void log_vprint(int prio, bool named, const char *fmt, va_list ap)
{
	flockfile(stderr);
	if (journal) {
		journal_vprint(prio, fmt, ap);
	} else {
		if (named)
			fputs(LOG_NAME_PREFIX, stderr);
		vfprintf(stderr, fmt, ap);
	}
	funlockfile(stderr);
}

/**
 * log_vraw() - write another library's message (libbpf's), which names
 *	itself, with no "revoke-bpfd: " prefix of ours
 * @prio: its syslog priority (LOG_ERR ... LOG_DEBUG), for the journal
 * @fmt: printf format
 * @ap: its arguments
 */
void log_vraw(int prio, const char *fmt, va_list ap)
{
	log_vprint(prio, false, fmt, ap);
}

/**
 * log_err() - report what went wrong: the daemon failed, or some part of
 *	what it was asked to do did not happen
 * @fmt: printf format of the rest of the line, its newline included
 */
void log_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(LOG_ERR, true, fmt, ap);
	va_end(ap);
}

/**
 * log_warn() - report what the daemon works around: it goes on, doing
 *	less than it could
 * @fmt: printf format of the rest of the line, its newline included
 */
void log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(LOG_WARNING, true, fmt, ap);
	va_end(ap);
}

/**
 * log_info() - report what was done
 * @fmt: printf format of the rest of the line, its newline included
 */
void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vprint(LOG_INFO, true, fmt, ap);
	va_end(ap);
}
