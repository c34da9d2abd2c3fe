// SPDX-License-Identifier: GPL-2.0
/*
 * cli_json.c - the one JSON writer of revoke-bpf: objects and arrays
 * nested up to JSON_MAX_DEPTH, strings, integers, booleans and null,
 * compact or, with -p/--pretty, indented by two spaces.  Every verb's
 * --json goes through it; a field of the daemon's answer gets the type
 * ctl_fields.c gives its key (doc/revoke-bpf.schema.json is the result).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* -p/--pretty: JSON indented, one member a line */
bool json_pretty;

#define JSON_MAX_DEPTH 16

static struct {
	int depth;
	bool started;			/* a document was begun */
	bool has[JSON_MAX_DEPTH];	/* the container at each depth has a member */
} js;

/* Before a value or member: the comma, the line break and the key. */
static void json_pre(const char *key)
{
	if (js.depth) {
		if (js.has[js.depth - 1])
			putchar(',');
		js.has[js.depth - 1] = true;
		if (json_pretty)
			printf("\n%*s", 2 * js.depth, "");
	}
	js.started = true;
	if (key) {
		cli_output_json_string(key);
		fputs(json_pretty ? ": " : ":", stdout);
	}
}

/**
 * json_open() - begin an object or an array
 * @key: its name in the object it is in; NULL in an array or at the top
 * @kind: '{' or '['
 */
void json_open(const char *key, char kind)
{
	json_pre(key);
	putchar(kind);
	if (js.depth < JSON_MAX_DEPTH)
		js.has[js.depth] = false;
	js.depth++;
}

/**
 * json_close() - end the object or array json_open() began
 * @kind: '}' or ']'
 *
 * At the top, the document ends with a newline and is flushed (events
 * prints one a line).
 */
void json_close(char kind)
{
	js.depth--;
	if (json_pretty && js.depth < JSON_MAX_DEPTH && js.has[js.depth])
		printf("\n%*s", 2 * js.depth, "");
	putchar(kind);
	if (!js.depth) {
		putchar('\n');
		fflush(stdout);
	}
}

/** json_str() - a string member (@key) or element (@key NULL) */
void json_str(const char *key, const char *val)
{
	json_pre(key);
	cli_output_json_string(val);
}

/** json_int() - an integer member or element */
void json_int(const char *key, long long val)
{
	json_pre(key);
	printf("%lld", val);
}

/** json_uint() - an unsigned integer member or element */
void json_uint(const char *key, unsigned long long val)
{
	json_pre(key);
	printf("%llu", val);
}

/** json_bool() - true or false */
void json_bool(const char *key, bool val)
{
	json_pre(key);
	fputs(val ? "true" : "false", stdout);
}

/** json_null() - null */
void json_null(const char *key)
{
	json_pre(key);
	fputs("null", stdout);
}

/**
 * json_time() - epoch seconds @sec (and @nsec) as an RFC 3339 string in UTC
 * @key: the member's name
 * @sec: seconds since the epoch; 0 is none (null)
 * @nsec: nanoseconds, or -1 to leave the fraction out
 */
void json_time(const char *key, long long sec, long nsec)
{
	char buf[48];

	if (!sec) {
		json_null(key);
		return;
	}
	cli_output_time(buf, sizeof(buf), sec, nsec, true);
	json_str(key, buf);
}

/*
 * A decimal integer, an optional '-' and at least one digit, that fits
 * 64 bits: signed if negative, else unsigned (an inode number may be
 * 2^64-1: a FUSE server chooses its own, overlayfs's xino sets high bits).
 */
static bool json_is_int(const char *s)
{
	bool neg = *s == '-';

	s += neg;
	if (!*s || strspn(s, "0123456789") != strlen(s) ||
	    (s[0] == '0' && s[1]) || strlen(s) > 20)
		return false;
	if (neg)
		return strlen(s) < 19 ||
		       (strlen(s) == 19 && strcmp(s, "9223372036854775808") <= 0);
	return strlen(s) < 20 || strcmp(s, "18446744073709551615") <= 0;
}

/* @s, a json_is_int() integer, as a JSON number */
static void json_int_text(const char *key, const char *s)
{
	if (*s == '-')
		json_int(key, strtoll(s, NULL, 10));
	else
		json_uint(key, strtoull(s, NULL, 10));
}

/**
 * json_field() - one field of the daemon's answer, typed by its key
 * @line: the line's first word (REVOKE_LINE_*), or NULL
 * @key: the field's key
 * @val: its value; decoded in place for a name
 *
 * "-" is null (an empty array for a list); a value its type does not
 * fit stays a string, for the schema to catch.
 */
void json_field(const char *line, const char *key, char *val)
{
	enum revoke_field_type t = revoke_field_type(line, key);
	char *save, *n;

	if (t == REVOKE_FT_INTS) {
		json_open(key, '[');
		for (n = strtok_r(val, ",", &save); n && strcmp(n, "-");
		     n = strtok_r(NULL, ",", &save)) {
			if (json_is_int(n))
				json_int_text(NULL, n);
			else
				json_str(NULL, n);
		}
		json_close(']');
	} else if (!strcmp(val, "-")) {
		json_null(key);
	} else if (t == REVOKE_FT_INT && json_is_int(val)) {
		json_int_text(key, val);
	} else if (t == REVOKE_FT_BOOL && (!strcmp(val, "yes") ||
					   !strcmp(val, "no"))) {
		json_bool(key, !strcmp(val, "yes"));
	} else if (t == REVOKE_FT_NAME && !cli_output_name(val)) {
		json_str(key, val);
	} else {
		json_str(key, val);
	}
}

/**
 * json_fields() - every key=value field of @line as members
 * @word: the line's first word (REVOKE_LINE_*), or NULL
 * @line: the fields; split in place
 *
 * A revoked_at, removed_at or paused_at also gets its RFC 3339 form,
 * KEY_rfc3339 (null for 0: not removed).
 */
void json_fields(const char *word, char *line)
{
	char *cursor = line, *key, *val, name[64];

	while ((val = revoke_kv_next(&cursor, &key))) {
		json_field(word, key, val);
		if ((!strcmp(key, REVOKE_FIELD_REVOKED_AT) ||
		     !strcmp(key, REVOKE_FIELD_REMOVED_AT) ||
		     !strcmp(key, REVOKE_FIELD_PAUSED_AT)) && json_is_int(val)) {
			snprintf(name, sizeof(name), "%s_rfc3339", key);
			json_time(name, strtoll(val, NULL, 10), -1);
		}
	}
}

/**
 * json_lines() - the lines of @body that begin with @word, as a member
 *	@name: an array of objects
 * @name: the member's name
 * @body: the lines (not modified)
 * @word: their first word, a REVOKE_LINE_* word
 */
void json_lines(const char *name, const char *body, const char *word)
{
	char *copy = strdup(body), *cursor = copy, *line;

	json_open(name, '[');
	while (copy && (line = cli_output_next_line(&cursor))) {
		if (!cli_output_line_is(line, word))
			continue;
		json_open(NULL, '{');
		json_fields(word, line + strlen(word) + 1);
		json_close('}');
	}
	json_close(']');
	free(copy);
}

/**
 * json_error() - the error of a failed command, {"error": MSG}, unless a
 *	document was begun already (stdout holds one JSON document)
 * @msg: what is wrong
 */
void json_error(const char *msg)
{
	if (js.started)
		return;
	json_open(NULL, '{');
	json_str("error", msg);
	json_close('}');
}
