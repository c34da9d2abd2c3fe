// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_pause.c - the fields of pause and resume requests (uid, errno,
 * subsystem), parsed and checked for revoke_req_parse() (ctl_proto.c).
 */
#include <errno.h>
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
 * revoke_req_parse_pause() - parse one of pause's fields into @req
 * @key: uid, errno or subsystem
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
	*why = "unknown field";
	return -EINVAL;
}

/**
 * revoke_req_check_pause() - do @req's fields make a pause or a resume?
 * @req: a pause or resume request
 * @why: on error, a static string naming the problem
 *
 * pause uid= with rdev= and type=, or subsystem=; errno=, cause= and
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
		*why = "pause and resume take uid, rdev, type, subsystem, errno, cause and release=yes only";
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
	if (req->verb == REVOKE_VERB_PAUSE && !device && !req->subsystem[0]) {
		*why = "pause needs rdev and type, or subsystem";
		return -EINVAL;
	}
	if (req->verb == REVOKE_VERB_RESUME &&
	    (req->pause_errno || req->cause[0])) {
		*why = "errno and cause are fields of pause, not resume";
		return -EINVAL;
	}
	return 0;
}
