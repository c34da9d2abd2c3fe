// SPDX-License-Identifier: GPL-2.0
/*
 * policy.c - parse and apply the device removal policy (see policy.h).
 * Everything in the file is checked before any of it is used: a policy
 * with one bad line is refused whole, with the line's number.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

static const char *const mode_names[] = {
	[POLICY_DENY] = "deny",
	[POLICY_REVOKE] = "revoke",
	[POLICY_RELEASE] = "release",
	[POLICY_UMOUNT] = "umount",
};

const char *policy_mode_name(enum policy_mode mode)
{
	return mode_names[mode];
}

static int parse_mode(const char *s, enum policy_mode *mode)
{
	size_t i;

	for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++) {
		if (!strcmp(s, mode_names[i])) {
			*mode = (enum policy_mode)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* A udev property name: [A-Za-z0-9_], and "subsystem" for SUBSYSTEM. */
static bool valid_key(const char *k)
{
	size_t n = strlen(k);

	return n > 0 && n < sizeof(((struct policy_cond *)0)->key) &&
	       strspn(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		      "0123456789_") == n;
}

/* Parse the words after "revoke" on line @lineno into @r. */
static int parse_rule(char *words, unsigned int lineno, struct policy_rule *r,
		      char *err, size_t errlen)
{
	bool have_mode = false;
	char *save = NULL, *w, *eq;

	memset(r, 0, sizeof(*r));
	r->mode = POLICY_RELEASE;
	r->line = lineno;
	for (w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		eq = strchr(w, '=');
		if (!eq || eq == w) {
			snprintf(err, errlen, "line %u: '%s' is not KEY=VALUE",
				 lineno, w);
			return -EINVAL;
		}
		*eq = '\0';
		if (!strcmp(w, "mode")) {
			if (have_mode || parse_mode(eq + 1, &r->mode)) {
				snprintf(err, errlen, "line %u: mode must be given "
					 "once, as deny, revoke, release or umount",
					 lineno);
				return -EINVAL;
			}
			have_mode = true;
			continue;
		}
		if (!strcmp(w, "signal")) {
			if (r->hangup || strcmp(eq + 1, "hup")) {
				snprintf(err, errlen, "line %u: signal must be given "
					 "once, as hup", lineno);
				return -EINVAL;
			}
			r->hangup = true;
			continue;
		}
		if (!valid_key(w)) {
			snprintf(err, errlen, "line %u: '%s' is not a udev "
				 "property name", lineno, w);
			return -EINVAL;
		}
		if (r->nconds == POLICY_MAX_CONDS ||
		    strlen(eq + 1) >= sizeof(r->conds[0].glob)) {
			snprintf(err, errlen, "line %u: at most %d conditions of "
				 "at most %zu characters", lineno,
				 POLICY_MAX_CONDS, sizeof(r->conds[0].glob) - 1);
			return -EINVAL;
		}
		/* "subsystem" is the documented spelling of SUBSYSTEM */
		snprintf(r->conds[r->nconds].key, sizeof(r->conds[0].key), "%s",
			 strcmp(w, "subsystem") ? w : "SUBSYSTEM");
		snprintf(r->conds[r->nconds].glob, sizeof(r->conds[0].glob), "%s",
			 eq + 1);
		r->nconds++;
	}
	if (r->hangup && r->mode == POLICY_DENY) {
		snprintf(err, errlen, "line %u: signal=hup needs mode revoke, "
			 "release or umount (deny only does not look for "
			 "holders)", lineno);
		return -EINVAL;
	}
	return 0;
}

/* "source udev" or "source netlink" */
static int parse_source(char *rest, unsigned int lineno,
			enum policy_source *source, char *err, size_t errlen)
{
	char *save = NULL, *w = strtok_r(rest, " \t", &save);

	if (w && !strtok_r(NULL, " \t", &save)) {
		if (!strcmp(w, "udev")) {
			*source = POLICY_SOURCE_UDEV;
			return 0;
		}
		if (!strcmp(w, "netlink")) {
			*source = POLICY_SOURCE_NETLINK;
			return 0;
		}
	}
	snprintf(err, errlen, "line %u: source must be udev or netlink", lineno);
	return -EINVAL;
}

/* "holders kill" or "holders spare" */
static int parse_holders(char *rest, unsigned int lineno, bool *spare,
			 char *err, size_t errlen)
{
	char *save = NULL, *w = strtok_r(rest, " \t", &save);

	if (w && !strtok_r(NULL, " \t", &save)) {
		if (!strcmp(w, "kill") || !strcmp(w, "spare")) {
			*spare = w[0] == 's';
			return 0;
		}
	}
	snprintf(err, errlen, "line %u: holders must be kill or spare", lineno);
	return -EINVAL;
}

/* A seat name as logind takes one: "seat", then [A-Za-z0-9_-]. */
static bool valid_seat(const char *s)
{
	size_t n = strlen(s);

	return n < POLICY_SEAT_LEN && !strncmp(s, "seat", 4) &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		      "0123456789_-") == n;
}

/* "seat NAME [errno=ENODEV|EIO]", appended to @p's seats. */
static int parse_seat(char *rest, unsigned int lineno, struct policy *p,
		      char *err, size_t errlen)
{
	char *save = NULL, *name = strtok_r(rest, " \t", &save);
	char *opt = name ? strtok_r(NULL, " \t", &save) : NULL;
	struct policy_seat *s = &p->seats[p->nseats];
	size_t i;

	if (!name || !valid_seat(name) || strtok_r(NULL, " \t", &save)) {
		snprintf(err, errlen, "line %u: seat takes a seat's name "
			 "(seat0, seat-1, ...), then errno=ENODEV or errno=EIO",
			 lineno);
		return -EINVAL;
	}
	for (i = 0; i < p->nseats; i++)
		if (!strcmp(p->seats[i].name, name)) {
			snprintf(err, errlen, "line %u: seat %s is followed "
				 "already, by line %u", lineno, name,
				 p->seats[i].line);
			return -EINVAL;
		}
	if (p->nseats == POLICY_MAX_SEATS) {
		snprintf(err, errlen, "line %u: more than %d seats", lineno,
			 POLICY_MAX_SEATS);
		return -EINVAL;
	}
	s->err = ENODEV;
	if (opt && !strcmp(opt, "errno=EIO"))
		s->err = EIO;
	else if (opt && strcmp(opt, "errno=ENODEV")) {
		snprintf(err, errlen, "line %u: '%s': a seat's errno is "
			 "errno=ENODEV or errno=EIO", lineno, opt);
		return -EINVAL;
	}
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->line = lineno;
	p->nseats++;
	return 0;
}

/* Does @word begin with statement @name, then a blank or its end? */
static bool statement(const char *word, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(word, name, n) &&
	       (word[n] == ' ' || word[n] == '\t' || !word[n]);
}

/**
 * policy_parse() - parse a whole policy
 * @text: the file's contents, NUL-terminated
 * @out: the policy; unchanged on error
 * @err: on error, "line N: what is wrong"
 * @errlen: size of @err
 *
 * Return: 0 or -EINVAL.
 */
int policy_parse(const char *text, struct policy *out, char *err,
		 size_t errlen)
{
	struct policy p = {};
	char *copy, *line, *save = NULL, *hash, *word;
	unsigned int lineno = 0;
	int ret = 0;

	copy = strdup(text);
	p.rules = calloc(POLICY_MAX_RULES, sizeof(*p.rules));
	if (!copy || !p.rules) {
		free(copy);
		free(p.rules);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* strtok_r would skip empty lines and lose the count */
	for (line = copy; line && !ret; line = save) {
		save = strchr(line, '\n');
		if (save)
			*save++ = '\0';
		lineno++;
		if (strlen(line) != strcspn(line, "\r\v\f")) {
			snprintf(err, errlen, "line %u: control character", lineno);
			ret = -EINVAL;
			break;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		word = line + strspn(line, " \t");
		if (!*word)
			continue;
		if (statement(word, "source")) {
			ret = parse_source(word + 6, lineno, &p.source, err,
					   errlen);
			continue;
		}
		if (statement(word, "holders")) {
			ret = parse_holders(word + 7, lineno, &p.spare_holders,
					    err, errlen);
			continue;
		}
		if (statement(word, "seat")) {
			ret = parse_seat(word + 4, lineno, &p, err, errlen);
			continue;
		}
		if (strncmp(word, "revoke", 6) ||
		    (word[6] && word[6] != ' ' && word[6] != '\t')) {
			snprintf(err, errlen, "line %u: unknown statement '%.*s' "
				 "(expected source, holders, revoke or seat)", lineno,
				 (int)strcspn(word, " \t"), word);
			ret = -EINVAL;
			break;
		}
		if (p.nrules == POLICY_MAX_RULES) {
			snprintf(err, errlen, "line %u: more than %d rules",
				 lineno, POLICY_MAX_RULES);
			ret = -EINVAL;
			break;
		}
		ret = parse_rule(word + 6, lineno, &p.rules[p.nrules], err, errlen);
		if (!ret)
			p.nrules++;
	}
	free(copy);
	if (ret) {
		free(p.rules);
		return ret;
	}
	policy_free(out);
	*out = p;
	return 0;
}

/**
 * policy_load() - read and parse a policy file
 * @path: the file; one that does not exist is an empty policy
 * @out: the policy; unchanged on error
 * @err: on error, "PATH: line N: what is wrong" or why it cannot be read
 * @errlen: size of @err
 *
 * Return: 0 or a negative errno.
 */
int policy_load(const char *path, struct policy *out, char *err,
		size_t errlen)
{
	char buf[65536], why[256];
	size_t n;
	FILE *f;
	int ret;

	f = fopen(path, "re");
	if (!f && errno == ENOENT)
		return policy_parse("", out, err, errlen);
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	n = fread(buf, 1, sizeof(buf), f);
	ret = ferror(f) ? -EIO : 0;
	if (!ret && n == sizeof(buf))
		ret = -EFBIG;
	fclose(f);
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, ret == -EFBIG ?
			 "larger than 64 KiB" : "read error");
		return ret;
	}
	buf[n] = '\0';
	if (memchr(buf, '\0', n)) {
		snprintf(err, errlen, "%s: contains a NUL byte", path);
		return -EINVAL;
	}
	ret = policy_parse(buf, out, why, sizeof(why));
	if (ret)
		snprintf(err, errlen, "%s: %s", path, why);
	return ret;
}

void policy_free(struct policy *p)
{
	free(p->rules);
	p->rules = NULL;
	p->nrules = 0;
}

/**
 * uevent_prop() - the value of a device's property
 * @props: the device's properties
 * @key: the property's name (SUBSYSTEM, ID_BUS, ...)
 *
 * Return: its value, or NULL if the device has none.
 */
const char *uevent_prop(const struct uevent_props *props, const char *key)
{
	size_t i;

	for (i = 0; i < props->n; i++)
		if (!strcmp(props->keys[i], key))
			return props->vals[i];
	return NULL;
}

/**
 * policy_match() - the first rule that a device matches
 * @p: the policy
 * @props: the device's udev properties
 *
 * Return: the rule, or NULL if none matches.
 */
const struct policy_rule *policy_match(const struct policy *p,
				       const struct uevent_props *props)
{
	size_t i, j;

	for (i = 0; i < p->nrules; i++) {
		const struct policy_rule *r = &p->rules[i];

		for (j = 0; j < r->nconds; j++) {
			const char *v = uevent_prop(props, r->conds[j].key);

			if (!v || fnmatch(r->conds[j].glob, v, 0))
				break;
		}
		if (j == r->nconds)
			return r;
	}
	return NULL;
}
