// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_pause.c - the fields of pause and resume requests (uid, errno,
 * subsystem, tag, seat), parsed and checked for revoke_req_parse() (ctl_proto.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl_proto.h"
#include "key.h"

/**
 * revoke_parse_pause_errno() - parse a pause's errno: ENODEV or EIO
 * @s: the text
 * @out: the errno
 *
 * Return: 0 or -EINVAL.
 */
int revoke_parse_pause_errno(const char *s, uint32_t *out)
{
	if (!strcmp(s, "ENODEV"))
		*out = ENODEV;
	else if (!strcmp(s, "EIO"))
		*out = EIO;
	else
		return -EINVAL;
	return 0;
}

/**
 * revoke_pause_errno_name() - "ENODEV" or "EIO"
 * @err: a pause's errno
 *
 * Return: its name, or "EIO" for any other value.
 */
const char *revoke_pause_errno_name(uint32_t err)
{
	return err == ENODEV ? "ENODEV" : "EIO";
}

/**
 * revoke_parse_subsystem() - parse a device class: 1 to 31 of [a-z0-9_-]
 * @s: the text (sound, video4linux, hidraw, input, usb, ...)
 * @out: a copy of it
 * @len: size of @out
 *
 * Return: 0 or -EINVAL.
 */
int revoke_parse_subsystem(const char *s, char *out, size_t len)
{
	size_t n = strlen(s);

	if (!n || n >= len || n > 31 ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-") != n)
		return -EINVAL;
	memcpy(out, s, n + 1);
	return 0;
}

/**
 * revoke_parse_tag() - parse a udev tag pause --tag takes: uaccess only
 * @s: the text
 * @out: a copy of it
 * @len: size of @out
 *
 * uaccess is the tag logind gives the seat's user access by (the seat
 * follower's devices, seat.c); no other tag is read.
 *
 * Return: 0 or -EINVAL.
 */
int revoke_parse_tag(const char *s, char *out, size_t len)
{
	if (strcmp(s, REVOKE_TAG_UACCESS) || len < sizeof(REVOKE_TAG_UACCESS))
		return -EINVAL;
	memcpy(out, s, sizeof(REVOKE_TAG_UACCESS));
	return 0;
}

/**
 * revoke_parse_seat() - parse a logind seat's name: "seat", then
 *	[A-Za-z0-9_-], at most REVOKE_SEAT_LEN - 1 bytes
 * @s: the text
 * @out: a copy of it
 * @len: size of @out
 *
 * Return: 0 or -EINVAL.
 */
int revoke_parse_seat(const char *s, char *out, size_t len)
{
	size_t n = strlen(s);

	if (n <= 4 || n >= len || n >= REVOKE_SEAT_LEN ||
	    strncmp(s, "seat", 4) ||
	    strspn(s + 4, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		   "0123456789_-") != n - 4)
		return -EINVAL;
	memcpy(out, s, n + 1);
	return 0;
}

/**
 * revoke_tag_class() - the name a tag on a seat is paused under, as a
 *	class: "TAG@SEAT" (no class's name has an '@')
 * @tag: the tag
 * @seat: the seat; "" is seat0
 * @out: the name
 * @len: size of @out
 *
 * Return: 0, or -ENAMETOOLONG.
 */
int revoke_tag_class(const char *tag, const char *seat, char *out, size_t len)
{
	int n = snprintf(out, len, "%s@%s", tag, seat[0] ? seat : "seat0");

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/**
 * revoke_is_tag_class() - is a paused class's name a tag on a seat
 *	("TAG@SEAT", revoke_tag_class()), and not a subsystem?
 * @name: the name, as the pause sets keep it
 * @len: the size of its field: it need not end in a NUL
 *
 * Return: true for a tag on a seat.
 */
bool revoke_is_tag_class(const char *name, size_t len)
{
	return memchr(name, '@', strnlen(name, len)) != NULL;
}

/**
 * revoke_tag_class_split() - is @name a tag on a seat ("TAG@SEAT")?
 * @name: a class's name, as the pause sets keep it
 * @tag: the tag, if so
 * @tlen: size of @tag
 * @seat: the seat, if so
 * @slen: size of @seat
 *
 * Return: true if it is (@tag and @seat set), false for a class.
 */
bool revoke_tag_class_split(const char *name, char *tag, size_t tlen,
			    char *seat, size_t slen)
{
	const char *at = strchr(name, '@');

	if (!at || (size_t)(at - name) >= tlen || strlen(at + 1) >= slen)
		return false;
	memcpy(tag, name, (size_t)(at - name));
	tag[at - name] = '\0';
	strcpy(seat, at + 1);
	return true;
}

/**
 * revoke_req_parse_pause() - parse one of pause's fields into @req
 * @key: uid, errno, subsystem, tag or seat
 * @val: its value
 * @req: the request
 * @why: on error, a static string naming the problem
 *
 * Return: 0 or -EINVAL.
 */
int revoke_req_parse_pause(const char *key, const char *val,
			   struct revoke_req *req, const char **why)
{
	uint64_t v;

	if (!strcmp(key, "uid")) {
		if (req->has_uid || revoke_parse_u64(val, &v) ||
		    v >= 4294967295ull) {
			*why = "uid is not a user id (0 to 4294967294), or given twice";
			return -EINVAL;
		}
		req->uid = (uint32_t)v;
		req->has_uid = true;
		return 0;
	}
	if (!strcmp(key, "errno")) {
		if (req->pause_errno ||
		    revoke_parse_pause_errno(val, &req->pause_errno)) {
			*why = "errno is not ENODEV or EIO, or given twice";
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(key, "subsystem")) {
		if (req->subsystem[0] ||
		    revoke_parse_subsystem(val, req->subsystem,
					   sizeof(req->subsystem))) {
			*why = "subsystem is not a word of 1 to 31 of [a-z0-9_-], or given twice";
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(key, "tag")) {
		if (req->tag[0] ||
		    revoke_parse_tag(val, req->tag, sizeof(req->tag))) {
			*why = "tag is not uaccess (the one tag taken), or given twice";
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(key, "seat")) {
		if (req->seat[0] ||
		    revoke_parse_seat(val, req->seat, sizeof(req->seat))) {
			*why = "seat is not a seat's name (seat, then 1 to 19 of [A-Za-z0-9_-]), or given twice";
			return -EINVAL;
		}
		return 0;
	}
	*why = "unknown field";
	return -EINVAL;
}

/**
 * revoke_req_check_pause() - do @req's fields make a pause or a resume?
 * @req: a pause or resume request
 * @why: on error, a static string naming the problem
 *
 * pause uid= with rdev= and type=, or subsystem=, or tag= (and seat=,
 * seat0 if not given); errno=, cause= and
 * release=yes (pause --revoke: the user's descriptors released and
 * mappings replaced too) if it likes.  resume uid= likewise, or uid= alone: all of that user's.
 *
 * Return: 0 or -EINVAL.
 */
int revoke_req_check_pause(const struct revoke_req *req, const char **why)
{
	bool device = req->has_rdev || req->rdev_type;

	if (!req->has_uid) {
		*why = "pause and resume need field uid";
		return -EINVAL;
	}
	if (req->has_path || req->has_ino || req->has_dev || req->fs ||
	    req->removed || req->timeout_ms ||
	    req->spare || req->force || req->progress || req->action[0] ||
	    req->nprops) {
		*why = "pause and resume take uid, rdev, type, subsystem, tag, seat, errno, cause and release=yes only";
		return -EINVAL;
	}
	if (req->has_release && (req->verb != REVOKE_VERB_PAUSE ||
				 req->release != REVOKE_RELEASE_YES)) {
		*why = "release=yes (pause --revoke) is a field of pause, and only yes";
		return -EINVAL;
	}
	if (device && (!req->has_rdev || !req->rdev_type)) {
		*why = "a device needs both rdev and type";
		return -EINVAL;
	}
	if (device && req->subsystem[0]) {
		*why = "rdev names one device, subsystem a class: give one of them";
		return -EINVAL;
	}
	if (req->seat[0] && !req->tag[0]) {
		*why = "seat goes with tag: the seat whose tagged devices";
		return -EINVAL;
	}
	if (req->tag[0] && (device || req->subsystem[0])) {
		*why = "tag names the devices of a seat: give rdev, subsystem or tag";
		return -EINVAL;
	}
	if (req->verb == REVOKE_VERB_PAUSE && !device && !req->subsystem[0] &&
	    !req->tag[0]) {
		*why = "pause needs rdev and type, subsystem, or tag";
		return -EINVAL;
	}
	if (req->verb == REVOKE_VERB_RESUME &&
	    (req->pause_errno || req->cause[0])) {
		*why = "errno and cause are fields of pause, not resume";
		return -EINVAL;
	}
	return 0;
}
