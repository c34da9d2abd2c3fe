// SPDX-License-Identifier: GPL-2.0
/*
 * cli_output.c - everything revoke-bpf writes: errors (p_err(), the one
 * place for them), text that cannot break a terminal line (cli_esc()),
 * times, and JSON strings (the JSON writer is cli_json.c).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* --json: the answer is printed as JSON */
bool json_output;

static const char *cmd_name = "";

/**
 * cli_output_set_cmd() - name the command in every later error
 * @name: the command, e.g. "add"
 */
void cli_output_set_cmd(const char *name)
{
	cmd_name = name;
}

/*
 * How many bytes at @s make one UTF-8 character: 0 if malformed.  Well
 * formed as RFC 3629 says (Unicode's table 3-7): no overlong form (E0
 * 80 8A is a newline in disguise), no surrogate (ED A0-BF), nothing past
 * U+10FFFF (F4 90-BF), which strict decoders (Python's) refuse.
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (*s < 0x80)
		return 1;
	if (*s >= 0xc2 && *s <= 0xdf)
		n = 2;
	else if (*s >= 0xe0 && *s <= 0xef)
		n = 3;
	else if (*s >= 0xf0 && *s <= 0xf4)
		n = 4;
	else
		return 0;
	if (*s == 0xe0)
		lo = 0xa0;
	else if (*s == 0xed)
		hi = 0x9f;
	else if (*s == 0xf0)
		lo = 0x90;
	else if (*s == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/*
 * Is the UTF-8 character at @s (@n bytes) one that changes how the text
 * around it shows, without showing itself: the bidirectional controls
 * (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069), which make
 * "/tmp/<U+202E>fdp.exe" show as "/tmp/exe.pdf", the zero-width ones
 * (U+200B-U+200D, U+2060, U+FEFF), and the line and paragraph
 * separators (U+2028, U+2029)?
 */
static bool invisible(const unsigned char *s, size_t n)
{
	if (n == 2)
		return s[0] == 0xd8 && s[1] == 0x9c;
	if (n != 3)
		return false;
	if (s[0] == 0xe2 && s[1] == 0x80)
		return (s[2] >= 0x8b && s[2] <= 0x8f) ||
		       (s[2] >= 0xa8 && s[2] <= 0xae);
	if (s[0] == 0xe2 && s[1] == 0x81)
		return s[2] == 0xa0 || (s[2] >= 0xa6 && s[2] <= 0xa9);
	return s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf;
}

/*
 * How many bytes at @s make one printable UTF-8 character: 0 for a
 * control character (C0, DEL, C1), an invisible one (invisible()) or a
 * malformed sequence.
 */
static size_t printable_len(const unsigned char *s)
{
	size_t n;

	if (*s < 0x20 || *s == 0x7f || (s[0] == 0xc2 && s[1] < 0xa0))
		return 0;	/* C0, DEL, C1 (U+0080-U+009F) */
	n = utf8_len(s);
	return n && invisible(s, n) ? 0 : n;
}

/**
 * cli_esc() - a string a user controls, made one line of safe text
 * @str: the string (a path, a mount path, a process name, a cause...)
 * @out: where the escaped text goes; cut short with "..." if it does
 *	not fit
 * @len: size of @out, at least 8
 *
 * Printable UTF-8 stays as it is; a backslash becomes \\, a newline,
 * tab or carriage return \n, \t, \r, and any other control character
 * (C0, DEL, C1), invisible character that reorders or hides text (the
 * bidirectional controls, zero-width ones, U+2028 and U+2029: each of
 * its bytes) or byte that is not UTF-8 \xNN, so that no name can move
 * the cursor, retitle the terminal, break a line in two or show as
 * another name.
 *
 * Return: @out.
 */
char *cli_esc(const char *str, char *out, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	char piece[8];
	size_t n, o = 0;

	for (; *s; s += n) {
		n = printable_len(s);
		if (n && *s != '\\') {
			memcpy(piece, s, n);
			piece[n] = '\0';
		} else {
			n = 1;
			if (*s == '\\')
				strcpy(piece, "\\\\");
			else if (*s == '\n')
				strcpy(piece, "\\n");
			else if (*s == '\t')
				strcpy(piece, "\\t");
			else if (*s == '\r')
				strcpy(piece, "\\r");
			else
				snprintf(piece, sizeof(piece), "\\x%02x", *s);
		}
		if (o + strlen(piece) + 4 > len) {
			strcpy(out + o, "...");
			return out;
		}
		strcpy(out + o, piece);
		o += strlen(piece);
	}
	out[o] = '\0';
	return out;
}

/**
 * cli_output_name() - decode a percent-encoded name from the daemon for
 *	showing it, in place
 * @s: the field's value; the name on success
 *
 * Unlike revoke_pct_decode(), which guards what becomes a request or a
 * line of the protocol, any byte but NUL may result (a file name may
 * hold a newline): it is shown through cli_esc() or as a JSON string.
 *
 * Return: 0, or -1 if @s is not percent-encoded (%XX, XX hex digits).
 */
int cli_output_name(char *s)
{
	char *w = s, hex[3] = "";
	unsigned long v;

	for (; *s; s++) {
		if (*s != '%') {
			*w++ = *s;
			continue;
		}
		if (!isxdigit((unsigned char)s[1]) || !isxdigit((unsigned char)s[2]))
			return -1;
		memcpy(hex, s + 1, 2);
		v = strtoul(hex, NULL, 16);
		if (!v)
			return -1;
		*w++ = (char)v;
		s += 2;
	}
	*w = '\0';
	return 0;
}

/**
 * cli_esc_name() - a percent-encoded name from the daemon, decoded and
 *	escaped for a terminal
 * @enc: the encoded name
 * @out: as for cli_esc()
 * @len: as for cli_esc()
 *
 * Return: @out; "?" when @enc cannot be decoded.
 */
char *cli_esc_name(const char *enc, char *out, size_t len)
{
	char *dec = strdup(enc);

	if (!dec || cli_output_name(dec))
		snprintf(out, len, "?");
	else
		cli_esc(dec, out, len);
	free(dec);
	return out;
}

/**
 * cli_output_time() - epoch seconds as text: local "2026-12-07 03:14:07"
 *	(with ".123", milliseconds, when @nsec >= 0), or for JSON RFC 3339
 *	in UTC, "2026-12-07T03:14:07Z" (with nine digits of fraction when
 *	@nsec >= 0)
 * @buf: the text
 * @len: size of @buf, at least 40
 * @sec: seconds since the epoch
 * @nsec: nanoseconds past @sec, or -1
 * @rfc3339: RFC 3339 in UTC instead of local time
 */
void cli_output_time(char *buf, size_t len, long long sec, long nsec,
		     bool rfc3339)
{
	time_t t = (time_t)sec;
	struct tm tm;
	size_t n;

	if (!(rfc3339 ? gmtime_r(&t, &tm) : localtime_r(&t, &tm))) {
		snprintf(buf, len, "%lld", sec);
		return;
	}
	n = strftime(buf, len, rfc3339 ? "%Y-%m-%dT%H:%M:%S" :
		     "%Y-%m-%d %H:%M:%S", &tm);
	if (nsec >= 0 && rfc3339)
		n += snprintf(buf + n, len - n, ".%09ld", nsec);
	else if (nsec >= 0)
		n += snprintf(buf + n, len - n, ".%03ld", nsec / 1000000);
	if (rfc3339)
		snprintf(buf + n, len - n, "Z");
}

/**
 * cli_output_field() - the value of @key in @body's "key=value" lines
 * @body: an answer with one field a line (status's)
 * @key: the field's name
 * @v: where its value goes, "?" when @body has no such line
 * @len: @v's size
 */
void cli_output_field(const char *body, const char *key, char *v, size_t len)
{
	size_t n = strlen(key);
	const char *l;

	snprintf(v, len, "?");
	for (l = body; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, n) && l[n] == '=') {
			snprintf(v, len, "%.*s", (int)strcspn(l + n + 1, "\n"),
				 l + n + 1);
			return;
		}
}

/**
 * p_err() - the one way the command reports an error
 * @fmt: printf(3) format of what is wrong
 *
 * Prints "revoke-bpf: CMD: what is wrong" as one line of at most 1 KiB on
 * stderr, escaped (cli_esc()); with --json also {"error": "what is
 * wrong"} on stdout, unless the answer was begun there.
 */
void p_err(const char *fmt, ...)
{
	char msg[1024], esc[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(msg))
		memcpy(msg + sizeof(msg) - 4, "...", 4);
	cli_esc(msg, esc, sizeof(esc));
	fprintf(stderr, "revoke-bpf: %s%s%s\n", cmd_name, *cmd_name ? ": " : "",
		esc);
	if (json_output)
		json_error(esc);
}


/* ---- JSON ------------------------------------------------------------ */

/**
 * cli_output_json_string() - print @str as a JSON string
 * @str: the text
 *
 * JSON is UTF-8: a byte that is not (a file name may hold any) becomes
 * U+FFFD, as jq and most decoders do.
 */
void cli_output_json_string(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	putchar('"');
	while (*s) {
		if (*s == '"' || *s == '\\') {
			printf("\\%c", *s++);
		} else if (*s == '\n' || *s == '\t' || *s == '\r') {
			printf("\\%c", *s == '\n' ? 'n' : *s == '\t' ? 't' : 'r');
			s++;
		} else if (*s < 0x20) {
			printf("\\u%04x", *s++);
		} else if ((n = utf8_len(s))) {
			fwrite(s, 1, n, stdout);
			s += n;
		} else {
			printf("\\ufffd");
			s++;
		}
	}
	putchar('"');
}

/**
 * cli_output_line_is() - does @line begin with the word @word?
 * @line: a line of the answer
 * @word: a REVOKE_LINE_* word
 *
 * Return: true if @line is @word followed by a space.
 */
bool cli_output_line_is(const char *line, const char *word)
{
	size_t n = strlen(word);

	return !strncmp(line, word, n) && line[n] == ' ';
}

/**
 * cli_output_next_line() - split off the next line of an answer
 * @body: the rest of the answer; moved past the line
 *
 * Return: the line, without its newline, or NULL at the end.
 */
char *cli_output_next_line(char **body)
{
	char *line = *body, *nl;

	if (!*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*body = nl + 1;
	} else {
		*body = line + strlen(line);
	}
	return line;
}
