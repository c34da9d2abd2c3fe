// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_uevent.c - the uevent request's own fields: a device event's ACTION
 * and its udev properties ("p.KEY=VALUE"), made by revoke-bpf uevent and
 * parsed for revoke_req_parse() (ctl_proto.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl_proto.h"
#include "key.h"

/**
 * revoke_req_format_props() - append a uevent's properties to its line
 * @req: the request
 * @buf: the line so far, NUL-terminated
 * @len: size of @buf
 *
 * Appends " p.KEY=VALUE" for each property, VALUE percent-encoded.
 *
 * Return: 0, or -ENOSPC if they do not fit.
 */
int revoke_req_format_props(const struct revoke_req *req, char *buf, size_t len)
{
	size_t used = strlen(buf), i;
	int n;

	for (i = 0; i < req->nprops; i++) {
		n = snprintf(buf + used, len - used, " p.%s=", req->prop_keys[i]);
		if (n < 0 || (size_t)n >= len - used)
			return -ENOSPC;
		used += (size_t)n;
		n = revoke_pct_encode(req->prop_vals[i], buf + used, len - used);
		if (n < 0)
			return -ENOSPC;
		used += (size_t)n;
	}
	return 0;
}

/**
 * revoke_prop_name_ok() - is this a udev property name the protocol
 *	carries: 1 to 63 of [A-Za-z0-9_]
 * @key: the name, not necessarily NUL-terminated
 * @len: its length
 *
 * Return: true if it is.
 */
bool revoke_prop_name_ok(const char *key, size_t len)
{
	static const char ok[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "abcdefghijklmnopqrstuvwxyz0123456789_";
	size_t i;

	if (len < 1 || len >= REVOKE_PROP_NAME_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!key[i] || !strchr(ok, key[i]))
			return false;
	return true;
}

/**
 * revoke_req_add_prop() - add a udev property to a uevent request
 * @req: the request
 * @key: the property's name, @klen bytes, not necessarily NUL-terminated
 * @klen: its length
 * @val: its value
 *
 * Both are copied into @req.  A value holding a newline is refused: the
 * protocol is one request per line, so no request could carry it.
 *
 * Return: 0, -EINVAL for a bad name or a newline in the value, or -ENOSPC
 * if @req has no room left.
 */
int revoke_req_add_prop(struct revoke_req *req, const char *key, size_t klen,
			const char *val)
{
	size_t vlen = strlen(val);
	char *k = req->propbuf + req->propused;

	if (!revoke_prop_name_ok(key, klen) || strchr(val, '\n'))
		return -EINVAL;
	if (req->nprops == REVOKE_MAX_PROPS ||
	    req->propused + klen + vlen + 2 > sizeof(req->propbuf))
		return -ENOSPC;
	memcpy(k, key, klen);
	k[klen] = '\0';
	memcpy(k + klen + 1, val, vlen + 1);
	req->prop_keys[req->nprops] = k;
	req->prop_vals[req->nprops++] = k + klen + 1;
	req->propused += klen + vlen + 2;
	return 0;
}

/**
 * revoke_action_ok() - is @s a uevent's ACTION: a lower-case word (add,
 *	remove, change...) shorter than @size?
 * @s: the text
 * @size: the room for it, with its NUL
 *
 * Return: true if it is.
 */
bool revoke_action_ok(const char *s, size_t size)
{
	size_t n = strlen(s);

	return n && n < size && strspn(s, "abcdefghijklmnopqrstuvwxyz") == n;
}

/**
 * revoke_req_uevent() - name the device of a uevent request, from the
 *	event's ACTION, SUBSYSTEM, MAJOR and MINOR
 * @req: the request; its verb becomes uevent, its properties are kept
 * @action: ACTION
 * @subsystem: SUBSYSTEM ("block" for a block device, else a character one)
 * @major: MAJOR
 * @minor: MINOR
 *
 * Return: 0, or -EINVAL if ACTION is not a lower-case word or MAJOR:MINOR
 * is malformed.
 */
int revoke_req_uevent(struct revoke_req *req, const char *action,
		      const char *subsystem, const char *major,
		      const char *minor)
{
	char spec[64];

	snprintf(spec, sizeof(spec), "%s:%s", major, minor);
	if (!revoke_action_ok(action, sizeof(req->action)) ||
	    revoke_parse_devspec(spec, &req->rdev_major, &req->rdev_minor))
		return -EINVAL;
	req->verb = REVOKE_VERB_UEVENT;
	strcpy(req->action, action);
	req->has_rdev = true;
	req->rdev_type = strcmp(subsystem, "block") ? REVOKE_RDEV_CHAR :
						      REVOKE_RDEV_BLOCK;
	return 0;
}

/**
 * revoke_req_parse_prop() - one "p.KEY=VALUE" field of a uevent request
 * @key: KEY, after "p."
 * @val: VALUE, percent-encoded
 * @req: the request it is added to
 * @why: on failure, what is wrong
 *
 * Return: 0, or -EINVAL.
 */
int revoke_req_parse_prop(const char *key, const char *val,
			  struct revoke_req *req, const char **why)
{
	size_t klen = strlen(key);
	char decoded[REVOKE_REQ_MAX];

	if (!revoke_prop_name_ok(key, klen)) {
		*why = "a property name is not 1 to 63 of [A-Za-z0-9_]";
		return -EINVAL;
	}
	if (revoke_pct_decode(val, decoded) || strchr(decoded, '\n')) {
		*why = "a property value is not percent-encoded text of one line";
		return -EINVAL;
	}
	if (revoke_req_add_prop(req, key, klen, decoded)) {
		*why = "too many properties";	/* the only way left to fail */
		return -EINVAL;
	}
	return 0;
}
