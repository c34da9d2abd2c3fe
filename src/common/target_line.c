// SPDX-License-Identifier: GPL-2.0
/*
 * target_line.c - a line of a declared file (revoked.d(5)) as words, and
 * a request written back as the line that makes it: what add --persist
 * writes and what the declared set's hash is taken over.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "key.h"
#include "target.h"

/* A quoted word: from the opening quote @s, in place; its end or NULL. */
static char *split_quoted(char *s, const char **why)
{
	char *in = s + 1, *out = s;

	while (*in && *in != '"') {
		if (*in == '\\' && (in[1] == '"' || in[1] == '\\'))
			in++;
		*out++ = *in++;
	}
	if (*in != '"') {
		*why = "a double quote is not closed";
		return NULL;
	}
	in++;
	if (*in && *in != ' ' && *in != '\t') {
		*why = "a closing double quote must end its word";
		return NULL;
	}
	*out = '\0';
	return in;
}

/**
 * revoke_target_split() - a declared line's words, in place
 * @line: the line, without its newline; modified
 * @argv: the words
 * @max: room in @argv
 * @why: what is wrong, on error
 *
 * Words are separated by blanks; a word that begins with '#' begins a
 * comment, to the end of the line; a word in double quotes may hold
 * blanks and '#', and \" and \\ stand for " and \ in it.
 *
 * Return: the number of words (0: a blank or comment line), or -1.
 */
int revoke_target_split(char *line, char **argv, int max, const char **why)
{
	char *p = line, *end;
	int n = 0;

	for (;;) {
		p += strspn(p, " \t\r");
		if (!*p || *p == '#')
			return n;
		if (n == max) {
			*why = "too many words";
			return -1;
		}
		if (*p == '"') {
			end = split_quoted(p, why);
			if (!end)
				return -1;
			argv[n++] = p;
			p = end;
			continue;
		}
		argv[n++] = p;
		p += strcspn(p, " \t\r");
		if (*p)
			*p++ = '\0';
	}
}

/* Append @word to @out (used @*at of @len), quoted if it must be. */
static int put_word(char *out, size_t len, size_t *at, const char *word)
{
	bool quote = !word[0] || word[0] == '#' || word[0] == '"' ||
		     strpbrk(word, " \t\r\"\\");
	const char *s;

	if (strchr(word, '\n'))
		return -EINVAL;
#define PUT(c) do { if (*at + 2 > len) return -ENAMETOOLONG; \
		    out[(*at)++] = (c); } while (0)
	if (*at)
		PUT(' ');
	if (quote)
		PUT('"');
	for (s = word; *s; s++) {
		if (quote && (*s == '"' || *s == '\\'))
			PUT('\\');
		PUT(*s);
	}
	if (quote)
		PUT('"');
#undef PUT
	out[*at] = '\0';
	return 0;
}

/* The words naming @req's target, into @w; their number. */
static int target_words(const struct revoke_req *req, const char *operand,
			char num[2][48], const char **w)
{
	int n = 0;

	if (req->has_rdev) {
		snprintf(num[0], 48, "%u:%u", req->rdev_major, req->rdev_minor);
		w[n++] = "--rdev";
		w[n++] = num[0];
		w[n++] = req->rdev_type == REVOKE_RDEV_CHAR ? "--char" :
							      "--block";
		if (req->removed)
			w[n++] = "--removed";
		if (req->cause[0]) {
			w[n++] = "--cause";
			w[n++] = req->cause;
		}
	} else if (req->fs) {
		w[n++] = "--fs";
		w[n++] = operand;
		if (req->force)
			w[n++] = "--force";
	} else if (req->has_ino) {
		snprintf(num[0], 48, "%llu", (unsigned long long)req->ino);
		w[n++] = "--inode";
		w[n++] = num[0];
		if (req->has_dev) {
			snprintf(num[1], 48, "%u:%u", req->major, req->minor);
			w[n++] = "--dev";
			w[n++] = num[1];
		}
	} else {
		w[n++] = operand;
	}
	return n;
}

/**
 * revoke_target_format() - the declared line that makes an add request
 * @req: the request (revoke_target_parse())
 * @operand: its PATH or FS, if it names one
 * @out: the line, without a newline: the target first, then the options
 *	in one order, each word quoted only where it must be
 * @len: its size
 *
 * Two lines that make the same request are written the same way.
 *
 * Return: 0, -EINVAL if @operand holds a newline (no line can), or
 * -ENAMETOOLONG.
 */
int revoke_target_format(const struct revoke_req *req, const char *operand,
			 char *out, size_t len)
{
	char num[2][48], ms[32];
	const char *w[16];
	size_t at = 0;
	int i, n, err;

	if (!len)
		return -ENAMETOOLONG;
	out[0] = '\0';
	if ((req->fs || !(req->has_rdev || req->has_ino)) && !operand)
		return -EINVAL;
	n = target_words(req, operand, num, w);
	if (req->has_release)
		w[n++] = req->release == REVOKE_RELEASE_YES ? "--release" :
							      "--no-release";
	if (req->spare)
		w[n++] = "--spare";
	if (req->timeout_ms) {
		snprintf(ms, sizeof(ms), "%ums", req->timeout_ms);
		w[n++] = "--timeout";
		w[n++] = ms;
	}
	for (i = 0; i < n; i++) {
		err = put_word(out, len, &at, w[i]);
		if (err)
			return err;
	}
	return 0;
}
