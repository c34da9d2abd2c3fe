// SPDX-License-Identifier: GPL-2.0
/*
 * cli_pause_args.c - revoke-bpf pause and resume: their command line.
 *
 * Each DEVICE named is one request (a node, --rdev, --subsystem, or --tag
 * uaccess [--seat SEAT]); --uid, --errno, --cause and --revoke apply to
 * every one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cli_pause.h"

/* The device named last, which --char, --block and --seat go after. */
static struct revoke_req *last_device(struct pause_cmd *c)
{
	return c->ndev ? &c->dev[c->ndev - 1] : NULL;
}

static struct revoke_req *new_device(struct pause_cmd *c, const char *what)
{
	if (c->ndev == PAUSE_MAX_DEVICES) {
		p_err("at most %d devices in one command, '%s' is one more",
		      PAUSE_MAX_DEVICES, what);
		return NULL;
	}
	c->dev[c->ndev] = c->base;
	return &c->dev[c->ndev++];
}

/* A device node operand: its device number and type. */
static int node_device(struct pause_cmd *c, const char *path)
{
	struct revoke_req *r;
	struct stat st;

	if (stat(path, &st)) {
		p_err("cannot stat '%s': %s", path, strerror(errno));
		return CLI_EXIT_FAIL;
	}
	if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode)) {
		p_err("'%s' is not a device node: name one (/dev/...), or use "
		      "--rdev MAJ:MIN --char|--block or --subsystem NAME", path);
		return CLI_EXIT_USAGE;
	}
	r = new_device(c, path);
	if (!r)
		return CLI_EXIT_USAGE;
	r->has_rdev = true;
	r->rdev_major = major(st.st_rdev);
	r->rdev_minor = minor(st.st_rdev);
	r->rdev_type = S_ISCHR(st.st_mode) ? REVOKE_RDEV_CHAR : REVOKE_RDEV_BLOCK;
	return 0;
}

/* --uid U: a number (a name needs NSS, which this static program lacks) */
static int parse_uid(const char *s, struct revoke_req *base)
{
	uint64_t v;

	if (revoke_parse_u64(s, &v) || v >= 4294967295ull) {
		p_err("--uid takes a user id, and '%s' is not one (for a name: "
		      "--uid $(id -u NAME))", s);
		return -1;
	}
	base->uid = (uint32_t)v;
	base->has_uid = true;
	return 0;
}

/* The options that apply to every device: --uid, --errno, --cause. */
static int parse_common(struct pause_cmd *c, const char *opt, const char *val)
{
	if (!strcmp(opt, "--uid"))
		return parse_uid(val, &c->base);
	if (!strcmp(opt, "--errno")) {
		if (revoke_parse_pause_errno(val, &c->base.pause_errno)) {
			p_err("--errno takes ENODEV or EIO, not '%s'", val);
			return -1;
		}
		return 0;
	}
	if (revoke_parse_cause(val, c->base.cause, sizeof(c->base.cause))) {
		p_err("--cause takes one word of 1 to 31 of A-Z a-z 0-9 _ . : -, "
		      "not '%s'", val);
		return -1;
	}
	return 0;
}

/* --rdev MAJ:MIN, with --char or --block after it */
static int parse_rdev(struct pause_cmd *c, const char *val)
{
	struct revoke_req *r = new_device(c, val);

	if (!r)
		return -1;
	if (revoke_parse_devspec(val, &r->rdev_major, &r->rdev_minor)) {
		p_err("--rdev takes MAJ:MIN (major < 4096, minor < 1048576), not "
		      "'%s'", val);
		return -1;
	}
	r->has_rdev = true;
	return 0;
}

static int parse_type(struct pause_cmd *c, const char *opt)
{
	struct revoke_req *r = last_device(c);

	if (!r || !r->has_rdev || r->rdev_type) {
		p_err("%s goes right after --rdev MAJ:MIN", opt);
		return -1;
	}
	r->rdev_type = opt[2] == 'c' ? REVOKE_RDEV_CHAR : REVOKE_RDEV_BLOCK;
	return 0;
}

/* --tag uaccess: a seat's devices udev tagged (--seat after it) */
static int parse_tag(struct pause_cmd *c, const char *val)
{
	struct revoke_req *r = new_device(c, val);

	if (!r)
		return -1;
	if (revoke_parse_tag(val, r->tag, sizeof(r->tag))) {
		p_err("--tag takes uaccess (the one tag supported), not '%s'",
		      val);
		return -1;
	}
	return 0;
}

static int parse_seat(struct pause_cmd *c, const char *val)
{
	struct revoke_req *r = last_device(c);

	if (!r || !r->tag[0] || r->seat[0]) {
		p_err("--seat goes right after --tag uaccess: the seat whose "
		      "tagged devices");
		return -1;
	}
	if (revoke_parse_seat(val, r->seat, sizeof(r->seat))) {
		p_err("--seat takes a seat's name (seat, then 1 to 19 of "
		      "A-Z a-z 0-9 _ -: seat0, seat-1), not '%s'", val);
		return -1;
	}
	return 0;
}

static int parse_subsystem(struct pause_cmd *c, const char *val)
{
	struct revoke_req *r = new_device(c, val);

	if (!r)
		return -1;
	if (revoke_parse_subsystem(val, r->subsystem, sizeof(r->subsystem))) {
		p_err("--subsystem takes a device class of 1 to 31 of a-z 0-9 _ -"
		      " (sound, video4linux, hidraw, input, usb), not '%s'", val);
		return -1;
	}
	return 0;
}

/**
 * pause_parse() - read pause's or resume's command line into @c
 * @c: result; c->verb says which
 * @argc: the arguments after the verb
 * @argv: them
 *
 * Return: 0, or an exit status after a message.
 */
int pause_parse(struct pause_cmd *c, int argc, char **argv)
{
	const char *a, *v;
	int i, ret;
	size_t j;

	for (i = 0; i < argc; i++) {
		a = argv[i];
		v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--char") || !strcmp(a, "--block")) {
			if (parse_type(c, a))
				return CLI_EXIT_USAGE;
			continue;
		}
		if (!strcmp(a, "--revoke")) {
			c->base.has_release = true;
			c->base.release = REVOKE_RELEASE_YES;
			continue;
		}
		if (a[0] != '-' || !a[1]) {
			ret = node_device(c, a);
			if (ret)
				return ret;
			continue;
		}
		if (!v) {
			p_err("%s needs a value; try 'revoke-bpf help %s'", a,
			      revoke_verb_name(c->verb));
			return CLI_EXIT_USAGE;
		}
		i++;
		if (!strcmp(a, "--rdev"))
			ret = parse_rdev(c, v);
		else if (!strcmp(a, "--subsystem"))
			ret = parse_subsystem(c, v);
		else if (!strcmp(a, "--tag"))
			ret = parse_tag(c, v);
		else if (!strcmp(a, "--seat"))
			ret = parse_seat(c, v);
		else
			ret = parse_common(c, a, v);
		if (ret)
			return CLI_EXIT_USAGE;
	}
	if (!c->base.has_uid) {
		p_err("needs --uid UID: whose access to %s",
		      c->verb == REVOKE_VERB_PAUSE ? "pause" : "give back");
		return CLI_EXIT_USAGE;
	}
	for (j = 0; j < c->ndev; j++) {
		if (c->dev[j].has_rdev && !c->dev[j].rdev_type) {
			p_err("--rdev needs --char or --block after it");
			return CLI_EXIT_USAGE;
		}
		/* the options given after this device apply to it too */
		c->dev[j].uid = c->base.uid;
		c->dev[j].has_uid = true;
		c->dev[j].pause_errno = c->base.pause_errno;
		c->dev[j].has_release = c->base.has_release;
		c->dev[j].release = c->base.release;
		memcpy(c->dev[j].cause, c->base.cause, sizeof(c->base.cause));
	}
	if (c->verb == REVOKE_VERB_PAUSE && !c->ndev) {
		p_err("needs a DEVICE: a node, --rdev MAJ:MIN --char|"
		      "--block, --subsystem NAME or --tag uaccess");
		return CLI_EXIT_USAGE;
	}
	if (c->verb == REVOKE_VERB_RESUME &&
	    (c->base.pause_errno || c->base.cause[0])) {
		p_err("--errno and --cause are options of pause, not resume");
		return CLI_EXIT_USAGE;
	}
	return 0;
}

