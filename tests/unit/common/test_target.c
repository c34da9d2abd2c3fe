// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/common/target.c and target_line.c: add's grammar as
 * the declared files (revoked.d(5)) use it, a line's words, and the
 * normalised line add --persist writes and the declared hash is taken of.
 */
#include <string.h>

#include "common/common.h"
#include "tap.h"

/* @line split and parsed as add's words; 0 or -1, @err set. */
static int parse_line(const char *line, struct revoke_req *req,
		      struct revoke_target *t, char *err, size_t len,
		      char *copy, size_t clen)
{
	char *argv[32];
	const char *why = "";
	int argc;

	snprintf(copy, clen, "%s", line);
	memset(req, 0, sizeof(*req));
	req->verb = REVOKE_VERB_ADD;
	argc = revoke_target_split(copy, argv, 32, &why);
	if (argc < 0) {
		snprintf(err, len, "%s", why);
		return -1;
	}
	return revoke_target_parse(argc, argv, 0, req, t, err, len);
}

/* @line parsed and written back: the normalised line, or "ERR: why" */
static const char *norm(const char *line)
{
	static char out[4096];
	char err[512], copy[4096];
	struct revoke_target t;
	struct revoke_req req;

	if (parse_line(line, &req, &t, err, sizeof(err), copy, sizeof(copy))) {
		snprintf(out, sizeof(out), "ERR: %s", err);
		return out;
	}
	if (revoke_target_format(&req, t.operand, out, sizeof(out)))
		return "ERR: format";
	return out;
}

static void test_split(void)
{
	char line[] = "  \"/a b/c\\\"d\" --spare\t# a comment";
	char blank[] = "   # only a comment", bad[] = "\"/open";
	char glued[] = "\"/a\"b";
	const char *why = "";
	char *argv[8];

	CHECK("split: a quoted word with a blank and \\\", a comment after",
	      revoke_target_split(line, argv, 8, &why) == 2 &&
	      !strcmp(argv[0], "/a b/c\"d") && !strcmp(argv[1], "--spare"));
	CHECK("split: a comment line has no words",
	      revoke_target_split(blank, argv, 8, &why) == 0);
	CHECK("split: an open quote is refused",
	      revoke_target_split(bad, argv, 8, &why) == -1 &&
	      !strcmp(why, "a double quote is not closed"));
	CHECK("split: a closing quote must end its word",
	      revoke_target_split(glued, argv, 8, &why) == -1);
}

static void test_normalise(void)
{
	CHECK("normalise: options after the target, in one order",
	      !strcmp(norm("--spare --timeout 2 /etc/secret --no-release"),
		      "/etc/secret --no-release --spare --timeout 2000ms"));
	CHECK("normalise: a path with a blank is quoted",
	      !strcmp(norm("\"/srv/my file\""), "\"/srv/my file\""));
	CHECK("normalise: a device line",
	      !strcmp(norm("--char --cause leak --rdev 1:7"),
		      "--rdev 1:7 --char --cause leak"));
	CHECK("normalise: a filesystem line",
	      !strcmp(norm("--force --fs /mnt/usb"), "--fs /mnt/usb --force"));
	CHECK("normalise: an inode line",
	      !strcmp(norm("--dev 8:1 --inode 12"), "--inode 12 --dev 8:1"));
	CHECK("normalise: written back, a line reads the same",
	      !strcmp(norm(norm("\"/a \\\"b\\\"\" --release")),
		      "\"/a \\\"b\\\"\" --release"));
}

static void test_refused(void)
{
	CHECK("refused: an unknown option, as add says it",
	      !strcmp(norm("--bogus /x"),
		      "ERR: unknown option '--bogus'; try 'revoke-bpf help add'"));
	CHECK("refused: --json and --persist are the command line's",
	      !strncmp(norm("/x --persist"), "ERR: unknown option", 19) &&
	      !strncmp(norm("/x --json"), "ERR: unknown option", 19));
	CHECK("refused: --rdev without --char or --block",
	      !strncmp(norm("--rdev 1:7"), "ERR: --rdev needs --char", 24));
	CHECK("refused: two operands",
	      !strcmp(norm("/a /b"), "ERR: unexpected extra operand '/b'"));
}

int main(void)
{
	test_split();
	test_normalise();
	test_refused();
	return tap_done();
}
