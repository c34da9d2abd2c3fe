// SPDX-License-Identifier: GPL-2.0
/*
 * cli_pause.c - revoke-bpf pause and resume: a device denied to one user,
 * and given back, and how their answers are shown.
 *
 * Each DEVICE named is one request (read by cli_pause_args.c); the
 * answers are shown as one: a line per device and class, then, for a
 * pause, the holders' counts summed and the holders that keep access.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_pause.h"

#define EXIT_HOLDERS_LEFT 4	/* as add's: some access is not paused */

/* What the answers said, put together. */
struct pause_sum {
	struct rbuf lines;		/* device and class lines */
	struct rbuf rest;		/* failure lines */
	unsigned long long count[8];	/* holders .. failed, as counts_keys */
	bool counted;
	int status;
};

static const char *const counts_keys[8] = {
	REVOKE_FIELD_HOLDERS, REVOKE_FIELD_FDS, REVOKE_FIELD_MAPPINGS,
	REVOKE_FIELD_WAITERS, REVOKE_FIELD_WOKEN, REVOKE_FIELD_FAILED,
	REVOKE_FIELD_UNMAPPED, REVOKE_FIELD_RELEASED,
};

/* Fold one answer's lines into @s. */
static void add_answer(struct pause_sum *s, char *body)
{
	char *line, v[32];
	int i;

	while ((line = cli_output_next_line(&body))) {
		if (cli_output_line_is(line, REVOKE_LINE_DEVICE) ||
		    cli_output_line_is(line, REVOKE_LINE_CLASS)) {
			rbuf_printf(&s->lines, "%s\n", line);
			if (strstr(line, " " REVOKE_FIELD_REASON "="))
				s->status = EXIT_HOLDERS_LEFT;
		} else if (revoke_kv_get(line, REVOKE_FIELD_HOLDERS, v,
					 sizeof(v))) {
			for (i = 0; i < 8; i++)
				if (revoke_kv_get(line, counts_keys[i], v,
						  sizeof(v)))
					s->count[i] += strtoull(v, NULL, 10);
			s->counted = true;
		} else {
			rbuf_printf(&s->rest, "%s\n", line);
			if (cli_output_line_is(line, REVOKE_LINE_FAILURE))
				s->status = EXIT_HOLDERS_LEFT;
		}
	}
}

/* "for uid 1001 (alice)" from a line's uid= and user= */
static void print_for(const char *line)
{
	char uid[24] = "?", v[3 * 256 + 1], esc[4 * 256 + 8];

	revoke_kv_get(line, REVOKE_FIELD_UID, uid, sizeof(uid));
	printf(" for uid %s", uid);
	if (revoke_kv_get(line, REVOKE_FIELD_USER, v, sizeof(v)))
		printf(" (%s)", cli_esc_name(v, esc, sizeof(esc)));
}

/* What a device or class line's change= means, for @verb. */
static const char *change_text(enum revoke_verb verb, const char *change)
{
	bool pause = verb == REVOKE_VERB_PAUSE;

	if (!strcmp(change, REVOKE_OK_ADDED))
		return "paused";
	if (!strcmp(change, REVOKE_OK_ALREADY))
		return "already paused";
	if (!strcmp(change, REVOKE_OK_DELETED))
		return pause ? "?" : "resumed";
	return "was not paused";
}

/* pause --revoke: what a device line says was taken from the user. */
static void print_taken(const char *line)
{
	char rel[24] = "?", unm[24] = "?";

	revoke_kv_get(line, REVOKE_FIELD_RELEASED, rel, sizeof(rel));
	revoke_kv_get(line, REVOKE_FIELD_UNMAPPED, unm, sizeof(unm));
	printf(": %s descriptor%s released, %s mapping%s replaced", rel,
	       strcmp(rel, "1") ? "s" : "", unm, strcmp(unm, "1") ? "s" : "");
}

/* One device or class line, as text. */
static void print_line(enum revoke_verb verb, const char *line)
{
	char a[32] = "?", b[32] = "?", err[16] = "?", change[16] = "?";
	char why[32];
	bool revoked;

	revoke_kv_get(line, REVOKE_FIELD_ERRNO, err, sizeof(err));
	revoke_kv_get(line, REVOKE_FIELD_CHANGE, change, sizeof(change));
	if (cli_output_line_is(line, REVOKE_LINE_CLASS)) {
		bool tag = revoke_kv_get(line, REVOKE_FIELD_TAG, a, sizeof(a));

		if (tag) {
			revoke_kv_get(line, REVOKE_FIELD_SEAT, b, sizeof(b));
			printf("tag %s %s: %s", a, b, change_text(verb, change));
		} else {
			revoke_kv_get(line, REVOKE_FIELD_SUBSYSTEM, a, sizeof(a));
			printf("class %s: %s", a, change_text(verb, change));
		}
		print_for(line);
		if (verb == REVOKE_VERB_PAUSE)
			printf(", %s; devices %s later too", err,
			       tag ? "tagged" : "added");
		putchar('\n');
		return;
	}
	revoke_kv_get(line, REVOKE_FIELD_TYPE, a, sizeof(a));
	revoke_kv_get(line, REVOKE_FIELD_RDEV, b, sizeof(b));
	if (revoke_kv_get(line, REVOKE_FIELD_REASON, why, sizeof(why))) {
		printf("%s device %s: NOT %s", a, b, verb == REVOKE_VERB_PAUSE ?
		       "paused" : "resumed");
		print_for(line);
		printf(": %s\n", why);
		return;
	}
	revoked = revoke_kv_get(line, REVOKE_FIELD_REVOKED, why, sizeof(why));
	printf("%s device %s: %s%s", a, b, change_text(verb, change),
	       revoked ? " and revoked" : "");
	print_for(line);
	if (verb == REVOKE_VERB_PAUSE)
		printf(", %s", err);
	if (revoked)
		print_taken(line);
	if (revoke_kv_get(line, REVOKE_FIELD_DRAINED, why, sizeof(why)) &&
	    strcmp(why, "0"))
		printf("; %s bytes it queued during the pause dropped", why);
	putchar('\n');
}

/* A holder the pause does not cover, a step that failed, a slow holder. */
static void print_rest(const char *line)
{
	char step[24] = "", why[112] = "?", pid[24] = "?";

	revoke_kv_get(line, REVOKE_FIELD_STEP, step, sizeof(step));
	/* pause --revoke runs add's pipeline: its lines are shown as add's */
	if (cli_output_line_is(line, REVOKE_LINE_SLOW)) {
		cli_holders_print_slow(line);
		return;
	}
	if (cli_output_line_is(line, REVOKE_LINE_KILLED)) {
		cli_holders_print(line, true);
		return;
	}
	if (!cli_output_line_is(line, REVOKE_LINE_FAILURE) ||
	    strcmp(step, "pause")) {
		cli_holders_print(line, false);
		return;
	}
	revoke_kv_get(line, REVOKE_FIELD_PID, pid, sizeof(pid));
	revoke_kv_get(line, REVOKE_FIELD_REASON, why, sizeof(why));
	printf("  kept: pid %s", pid);
	cli_holders_print_comm(line);
	cli_holders_print_user(line);
	printf(": %lu mapping%s of the device, which work%s without a "
	       "system call: not paused\n", strtoul(why, NULL, 10),
	       strtoul(why, NULL, 10) == 1 ? "" : "s",
	       strtoul(why, NULL, 10) == 1 ? "s" : "");
}

/*
 * What class a device or class line is of, as its fields say it:
 * "subsystem=NAME" or "tag=TAG seat=SEAT"; false for none.
 */
static bool class_key(const char *line, char *out, size_t len)
{
	char a[40], b[40];

	if (revoke_kv_get(line, REVOKE_FIELD_SUBSYSTEM, a, sizeof(a))) {
		snprintf(out, len, REVOKE_FIELD_SUBSYSTEM "=%s", a);
		return true;
	}
	if (revoke_kv_get(line, REVOKE_FIELD_TAG, a, sizeof(a)) &&
	    revoke_kv_get(line, REVOKE_FIELD_SEAT, b, sizeof(b))) {
		snprintf(out, len, REVOKE_FIELD_TAG "=%s " REVOKE_FIELD_SEAT
			 "=%s", a, b);
		return true;
	}
	return false;
}

/*
 * A device line of a class that has its own line, done (not failed):
 * counted under the class's line rather than shown (a class is tens of
 * devices: tty is 70).
 */
static bool of_class_shown(const char *line, const char *body)
{
	char key[96], want[112];

	if (!cli_output_line_is(line, REVOKE_LINE_DEVICE) ||
	    strstr(line, " " REVOKE_FIELD_REASON "=") ||
	    !class_key(line, key, sizeof(key)))
		return false;
	snprintf(want, sizeof(want), REVOKE_LINE_CLASS " %s ", key);
	return strstr(body, want) != NULL;
}

/* After a class's line: how many of its devices the answer named. */
static void print_class_devices(enum revoke_verb verb, const char *class_line,
				const char *all)
{
	char key[96], k[96], v[40], *copy = strdup(all), *body = copy, *line;
	unsigned int n = 0;

	if (!copy || !class_key(class_line, key, sizeof(key)) ||
	    (revoke_kv_get(class_line, REVOKE_FIELD_CHANGE, v, sizeof(v)) &&
	     !strcmp(v, REVOKE_OK_ABSENT)))
		goto out;
	while ((line = cli_output_next_line(&body)))
		n += cli_output_line_is(line, REVOKE_LINE_DEVICE) &&
		     class_key(line, k, sizeof(k)) && !strcmp(k, key) &&
		     !strstr(line, " " REVOKE_FIELD_REASON "=");
	printf("  %u device%s of it %s\n", n, n == 1 ? "" : "s",
	       verb == REVOKE_VERB_PAUSE ? "paused" : "resumed");
out:
	free(copy);
}

static void print_text(const struct pause_cmd *c, struct pause_sum *s)
{
	const char *all = s->lines.data ? s->lines.data : "";
	char *copy = strdup(all), *body = copy, *line;
	unsigned long long *n = s->count;

	if (!s->lines.len && c->verb == REVOKE_VERB_RESUME)
		printf("nothing was paused for uid %u\n", c->base.uid);
	while (body && (line = cli_output_next_line(&body))) {
		if (of_class_shown(line, all))
			continue;
		print_line(c->verb, line);
		if (cli_output_line_is(line, REVOKE_LINE_CLASS))
			print_class_devices(c->verb, line, all);
	}
	free(copy);
	if (!s->counted)
		return;
	if (c->base.has_release)
		printf("  holders %llu: fds %llu, mappings %llu, waiters %llu; "
		       "woken %llu, unmapped %llu, released %llu; failed %llu\n",
		       n[0], n[1], n[2], n[3], n[4], n[6], n[7], n[5]);
	else
		printf("  holders %llu: fds %llu, mappings %llu, waiters %llu; "
		       "woken %llu; failed %llu\n", n[0], n[1], n[2], n[3],
		       n[4], n[5]);
	body = s->rest.data;
	while (body && (line = cli_output_next_line(&body)))
		print_rest(line);
}

static void print_json(const struct pause_cmd *c, struct pause_sum *s)
{
	static const char empty[] = "";
	int i;

	json_open(NULL, '{');
	json_str("result", c->verb == REVOKE_VERB_PAUSE ? REVOKE_OK_PAUSED :
		 REVOKE_OK_RESUMED);
	json_uint(REVOKE_FIELD_UID, c->base.uid);
	if (c->verb == REVOKE_VERB_PAUSE)
		json_bool("revoke", c->base.has_release);
	json_lines("devices", s->lines.data ? s->lines.data : empty,
		   REVOKE_LINE_DEVICE);
	json_lines("classes", s->lines.data ? s->lines.data : empty,
		   REVOKE_LINE_CLASS);
	if (s->counted) {
		json_open("report", '{');
		for (i = 0; i < 8; i++)
			json_uint(counts_keys[i], s->count[i]);
		json_close('}');
		json_lines("failures", s->rest.data ? s->rest.data : empty,
			   REVOKE_LINE_FAILURE);
	}
	json_close('}');
}

/* Send each device's request; show what was done, even after a failure. */
static int run(struct pause_cmd *c)
{
	struct revoke_req all = c->base;
	struct pause_sum s = {};
	struct rbuf resp;
	size_t i, n = c->ndev ? c->ndev : 1, done = 0;
	char *word, *body;
	int ret;

	for (i = 0; i < n; i++) {
		memset(&resp, 0, sizeof(resp));
		all.verb = c->verb;
		c->dev[i].verb = c->verb;
		if (!cli_call(c->ndev ? &c->dev[i] : &all, -1, &word, &body,
			      &resp)) {
			add_answer(&s, body);
			done++;
		}
		rbuf_free(&resp);
	}
	if (done) {
		if (json_output)
			print_json(c, &s);
		else
			print_text(c, &s);
	}
	ret = done < n ? (done ? EXIT_HOLDERS_LEFT : CLI_EXIT_FAIL) : s.status;
	rbuf_free(&s.lines);
	rbuf_free(&s.rest);
	return ret;
}

/* Parse, then send each request and show the answers. */
static int pause_main(enum revoke_verb verb, int argc, char **argv)
{
	static struct pause_cmd c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.verb = verb;
	ret = pause_parse(&c, argc, argv);
	return ret ? ret : run(&c);
}

/**
 * do_pause() - revoke-bpf pause: deny devices to one user, undoably
 * @argc: number of arguments after the command
 * @argv: --uid U [--errno ENODEV|EIO] [--cause WORD] [--revoke] DEVICE...;
 *	a DEVICE is a node, --rdev MAJ:MIN --char|--block, --subsystem NAME
 *	or --tag uaccess [--seat SEAT]
 *
 * With --revoke, the user's descriptors of the devices are released and
 * their mappings replaced too, irreversibly (the user reopens after
 * resume): what a pause alone reports as kept is taken away.
 *
 * Return: 0 when every access of the user to every device is paused
 * (--revoke: and taken away); 4 when some is not (a mapping, a holder
 * that could not be woken or released, a device not paused: each is
 * named); 1 if nothing was paused; 2 on a usage error (nothing sent).
 */
int do_pause(int argc, char **argv)
{
	return pause_main(REVOKE_VERB_PAUSE, argc, argv);
}

/**
 * do_resume() - revoke-bpf resume: give a user's paused devices back
 * @argc: number of arguments after the command
 * @argv: --uid U [DEVICE...]; no DEVICE: every pause of that user
 *
 * Return: 0 (a device that was not paused is said so); 1 on an error; 4
 * if some device could not be resumed; 2 on a usage error.
 */
int do_resume(int argc, char **argv)
{
	return pause_main(REVOKE_VERB_RESUME, argc, argv);
}
