// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_text.c - the text of control socket messages: percent-encoding of
 * names, key=value fields, a growable buffer for answers, and sending it
 * all on a stream socket.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ctl_text.h"

static const char pct_keep[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:/+,@-";

/**
 * revoke_pct_encode() - percent-encode @in for a field value: every byte
 *	but [A-Za-z0-9._:/+,@-] becomes %XX
 * @in: the text
 * @out: the result
 * @len: size of @out
 *
 * Return: the result's length, or -ENOSPC.
 */
int revoke_pct_encode(const char *in, char *out, size_t len)
{
	size_t n = 0;

	for (; *in; in++) {
		if (strchr(pct_keep, *in)) {
			if (n + 1 >= len)
				return -ENOSPC;
			out[n++] = *in;
		} else {
			if (n + 3 >= len)
				return -ENOSPC;
			snprintf(out + n, 4, "%%%02X", (unsigned char)*in);
			n += 3;
		}
	}
	if (n >= len)
		return -ENOSPC;
	out[n] = '\0';
	return (int)n;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/**
 * revoke_pct_decode() - undo revoke_pct_encode()
 * @in: the field value: bytes revoke_pct_encode() keeps, and %XX for the
 *	others; any byte but NUL may result (a file name may hold a
 *	newline: it stays %0A on the wire, never a line of its own)
 * @out: the text, at most as long as @in
 *
 * Return: 0, or -EINVAL for anything revoke_pct_encode() cannot have made.
 */
int revoke_pct_decode(const char *in, char *out)
{
	size_t n = 0;
	int hi, lo;

	for (; *in; in++) {
		if (*in != '%') {
			/* only what revoke_pct_encode() leaves as it is */
			if (!strchr(pct_keep, *in))
				return -EINVAL;
			out[n++] = *in;
			continue;
		}
		hi = hexval(in[1]);
		lo = hi < 0 ? -1 : hexval(in[2]);
		if (lo < 0 || (hi == 0 && lo == 0))
			return -EINVAL;
		out[n++] = (char)(hi << 4 | lo);
		in += 2;
	}
	out[n] = '\0';
	return 0;
}

/**
 * revoke_name_shorten() - a name as it fits @len bytes: whole, or "…"
 *	and its last bytes (the end of a path says more than its start)
 * @name: the name
 * @out: the result, NUL-terminated
 * @len: size of @out, more than 4
 *
 * Return: true if it was shortened.
 */
bool revoke_name_shorten(const char *name, char *out, size_t len)
{
	size_t n = strlen(name), keep = len - 1 - REVOKE_ELLIPSIS_LEN;

	if (n < len) {
		memcpy(out, name, n + 1);
		return false;
	}
	memcpy(out, REVOKE_ELLIPSIS, REVOKE_ELLIPSIS_LEN);
	memcpy(out + REVOKE_ELLIPSIS_LEN, name + n - keep, keep + 1);
	return true;
}

/**
 * revoke_kv_next() - split off the next key=value field of a line
 * @cursor: position in a writable line; NULL at the end.  Left non-NULL
 *	if the next field is malformed.
 * @key: the field's key
 *
 * Return: the field's value, or NULL at the end or on a malformed field.
 */
char *revoke_kv_next(char **cursor, char **key)
{
	char *field, *eq;

	if (!*cursor)
		return NULL;
	eq = strchr(*cursor, '=');
	field = *cursor;
	if (!*field || !eq || eq == field || memchr(field, ' ', eq - field))
		return NULL;
	strsep(cursor, " ");
	*eq = '\0';
	*key = field;
	return eq + 1;
}

/**
 * revoke_kv_get() - look up one field of a key=value line
 * @line: the line (not modified)
 * @key: the key
 * @buf: where to copy the value
 * @len: size of @buf
 *
 * Return: @buf, or NULL if @key is not there.
 */
const char *revoke_kv_get(const char *line, const char *key, char *buf,
			  size_t len)
{
	size_t klen = strlen(key);
	const char *p = line;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			size_t vlen = strcspn(p + klen + 1, " \n");

			if (vlen >= len)
				vlen = len - 1;
			memcpy(buf, p + klen + 1, vlen);
			buf[vlen] = '\0';
			return buf;
		}
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	return NULL;
}

/**
 * rbuf_printf() - append formatted text to @b, growing it as needed
 * @b: the buffer
 * @fmt: printf(3) format
 *
 * On an allocation failure @b->failed is set and later calls do nothing.
 */
void rbuf_printf(struct rbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->data ? b->data + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = true;
			return;
		}
		if ((size_t)n < room) {
			b->len += n;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 4096;

		while (cap - b->len <= (size_t)n)
			cap *= 2;
		char *p = realloc(b->data, cap);

		if (!p) {
			b->failed = true;
			return;
		}
		b->data = p;
		b->cap = cap;
	}
}

/**
 * rbuf_free() - free @b's text and empty it
 * @b: the buffer
 */
void rbuf_free(struct rbuf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/**
 * ctl_send_all() - write all of @len bytes to a stream socket
 * @fd: the socket
 * @p: the bytes
 * @len: their number
 *
 * Never raises SIGPIPE.  Return: 0, or a negative errno.
 */
int ctl_send_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
