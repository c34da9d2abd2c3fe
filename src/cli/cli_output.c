// SPDX-License-Identifier: GPL-2.0
/*
 * cli_output.c - everything revoke-bpf writes: errors (p_err(), the one
 * place for them), text that cannot break a terminal line, and JSON made
 * of the daemon's key=value lines.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* How many bytes at @s make one UTF-8 character: 0 if malformed. */
static size_t utf8_len(const unsigned char *s)
{
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
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/*
 * How many bytes at @s make one printable UTF-8 character: 0 for a
 * control character (C0, DEL, C1) or a malformed sequence.
 */
static size_t printable_len(const unsigned char *s)
{
	if (*s < 0x20 || *s == 0x7f || (s[0] == 0xc2 && s[1] < 0xa0))
		return 0;	/* C0, DEL, C1 (U+0080-U+009F) */
	return utf8_len(s);
}

/*
 * Print @msg on stderr as one line of text whatever the arguments held:
 * control characters and bytes that are not UTF-8 as \xNN, so that a
 * file name cannot move the cursor or break the line.
 */
static void put_escaped(const char *msg)
{
	const unsigned char *s = (const unsigned char *)msg;
	size_t n;

	while (*s) {
		n = printable_len(s);
		if (n) {
			fwrite(s, 1, n, stderr);
			s += n;
		} else {
			fprintf(stderr, "\\x%02x", *s++);
		}
	}
}

/**
 * p_err() - the one way the command reports an error
 * @fmt: printf(3) format of what is wrong
 *
 * Prints "revoke-bpf: CMD: what is wrong" as one line of at most 1 KiB on
 * stderr, with --json too: standard output holds only the answer.
 */
void p_err(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(msg))
		memcpy(msg + sizeof(msg) - 4, "...", 4);
	fprintf(stderr, "revoke-bpf: %s%s", cmd_name, *cmd_name ? ": " : "");
	put_escaped(msg);
	fputc('\n', stderr);
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

static bool is_number(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s) &&
	       (s[0] != '0' || !s[1]);
}

/**
 * cli_output_json_fields() - print the key=value fields of @line as JSON
 *	members
 * @line: a line of the answer; its fields are split in place
 * @first: no member has been printed yet; cleared once one is
 */
void cli_output_json_fields(char *line, bool *first)
{
	char *cursor = line, *key, *val;

	while ((val = revoke_kv_next(&cursor, &key))) {
		printf("%s", *first ? "" : ",");
		*first = false;
		cli_output_json_string(key);
		putchar(':');
		/* a name travels percent-encoded; it is shown as it is */
		if ((!strcmp(key, REVOKE_FIELD_PATH) ||
		     !strcmp(key, REVOKE_FIELD_COMM)) &&
		    !revoke_pct_decode(val, val))
			cli_output_json_string(val);
		else if (is_number(val))
			printf("%s", val);
		else
			cli_output_json_string(val);
	}
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
 * cli_output_json_lines() - print the lines of @body that begin with
 *	@word as a JSON member @name, an array of objects
 * @name: the member's name
 * @body: the lines (not modified)
 * @word: the first word of the lines to print, a REVOKE_LINE_* word
 */
void cli_output_json_lines(const char *name, const char *body,
			   const char *word)
{
	char *copy = strdup(body), *cursor = copy, *line;
	bool first = true;

	printf(",\"%s\":[", name);
	while (copy && (line = cli_output_next_line(&cursor))) {
		bool f = true;

		if (!cli_output_line_is(line, word))
			continue;
		printf("%s{", first ? "" : ",");
		cli_output_json_fields(line + strlen(word) + 1, &f);
		putchar('}');
		first = false;
	}
	putchar(']');
	free(copy);
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
