// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_args - libFuzzer target for the value parsers behind every CLI
 * argument and control-socket field: inode, MAJ:MIN, --timeout,
 * --release, --char/--block and --cause.
 *
 * The first byte picks the parser, the rest is the text.  What a parser
 * accepts is checked against an independent reading of the same text.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ctl_proto.h"
#include "common/key.h"

/* The decimal value of @s if it is all digits and fits, else -1. */
static int decimal(const char *s, unsigned long long *v)
{
	unsigned long long x = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		unsigned long long d = (unsigned long long)(*s - '0');

		if (*s < '0' || *s > '9' || x > (~0ull - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

static void check_ino(const char *s)
{
	unsigned long long v;
	uint64_t ino;

	if (revoke_parse_ino(s, &ino) == 0 &&
	    (decimal(s, &v) || v != ino || ino == 0))
		abort();
}

static void check_devspec(const char *s)
{
	unsigned int maj, min;
	char again[32];

	if (revoke_parse_devspec(s, &maj, &min))
		return;
	if (maj >= 4096 || min >= 1u << 20)
		abort();
	snprintf(again, sizeof(again), "%u:%u", maj, min);
	if (revoke_parse_devspec(again, &maj, &min))
		abort();
}

static void check_timeout(const char *s)
{
	unsigned long long v;
	unsigned int ms;

	if (revoke_parse_timeout_ms(s, &ms) == 0 &&
	    (decimal(s, &v) || v != ms || ms < 1 || ms > REVOKE_TIMEOUT_MAX_MS))
		abort();
}

static void check_cause(const char *s)
{
	char out[32];
	size_t n;

	if (revoke_parse_cause(s, out, sizeof(out)))
		return;
	n = strlen(out);
	if (n < 1 || n > 31 || strcmp(out, s) ||
	    strspn(out, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			"0123456789_.:-") != n)
		abort();
}

static void check_words(const char *s)
{
	enum revoke_release rel;
	uint32_t type;

	if (revoke_parse_release(s, &rel) == 0 &&
	    strcmp(s, rel == REVOKE_RELEASE_YES ? "yes" :
		      rel == REVOKE_RELEASE_NO ? "no" : "auto"))
		abort();
	if (revoke_parse_rdev_type(s, &type) == 0 &&
	    type != REVOKE_RDEV_CHAR && type != REVOKE_RDEV_BLOCK)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size < 1)
		return 0;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	switch (data[0] % 5) {
	case 0: check_ino(s); break;
	case 1: check_devspec(s); break;
	case 2: check_timeout(s); break;
	case 3: check_cause(s); break;
	case 4: check_words(s); break;
	}
	free(s);
	return 0;
}
