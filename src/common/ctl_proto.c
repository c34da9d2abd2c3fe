// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_proto.c - encoding and strict parsing of control socket messages.
 * Everything the daemon reads from a client passes revoke_req_parse().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_proto.h"
#include "key.h"
#include "revoke_bpf.h"

static const char *const release_names[] = {
	[REVOKE_RELEASE_AUTO] = "auto",
	[REVOKE_RELEASE_YES] = "yes",
	[REVOKE_RELEASE_NO] = "no",
};

static const char *const rdev_type_names[] = {
	[REVOKE_RDEV_CHAR] = "char",
	[REVOKE_RDEV_BLOCK] = "block",
};

/**
 * revoke_rdev_type_name() - "char" or "block"
 * @type: enum revoke_rdev_type
 *
 * Return: the name, or "unknown" for any other value.
 */
const char *revoke_rdev_type_name(uint32_t type)
{
	if (type != REVOKE_RDEV_CHAR && type != REVOKE_RDEV_BLOCK)
		return "unknown";
	return rdev_type_names[type];
}

/**
 * revoke_req_format() - write @req as one request line
 * @req: the request
 * @buf: output
 * @len: size of @buf
 *
 * Return: the line's length, or -ENOSPC if it does not fit.
 */
int revoke_req_format(const struct revoke_req *req, char *buf, size_t len)
{
	char ino[32] = "", dev[32] = "", rel[32] = "", tmo[32] = "";
	char rdev[256] = "", act[32] = "", path[3 * REVOKE_NAME_MAX + 8] = "";
	char fs[32] = "", fd[40] = "";
	size_t used;
	int n;

	if (req->has_ino)
		snprintf(ino, sizeof(ino), " ino=%llu",
			 (unsigned long long)req->ino);
	if (req->has_dev)
		snprintf(dev, sizeof(dev), " dev=%u:%u", req->major, req->minor);
	if (req->has_release)
		snprintf(rel, sizeof(rel), " release=%s",
			 release_names[req->release]);
	if (req->timeout_ms)
		snprintf(tmo, sizeof(tmo), " timeout_ms=%u", req->timeout_ms);
	if (req->action[0])
		snprintf(act, sizeof(act), " action=%s", req->action);
	if (req->fs == REVOKE_FS_PATH)
		strcpy(fs, " fs=yes");
	else if (req->fs == REVOKE_FS_DEV)
		snprintf(fs, sizeof(fs), " fs=%u:%u", req->fs_major,
			 req->fs_minor);
	if (req->has_fd)
		snprintf(fd, sizeof(fd), " fd=%u:%u", req->fd_pid, req->fd_num);
	if (req->has_path) {
		strcpy(path, " path=");
		if (revoke_pct_encode(req->path, path + 6, sizeof(path) - 6) < 0)
			return -ENOSPC;
	}
	if (req->has_rdev)
		snprintf(rdev, sizeof(rdev), " rdev=%u:%u type=%s%s",
			 req->rdev_major, req->rdev_minor,
			 revoke_rdev_type_name(req->rdev_type),
			 req->removed ? " removed=yes" : "");
	if (req->has_uid)
		snprintf(rdev + strlen(rdev), sizeof(rdev) - strlen(rdev),
			 " uid=%u", req->uid);
	if (req->subsystem[0])
		snprintf(rdev + strlen(rdev), sizeof(rdev) - strlen(rdev),
			 " subsystem=%s", req->subsystem);
	if (req->tag[0])
		snprintf(rdev + strlen(rdev), sizeof(rdev) - strlen(rdev),
			 " tag=%s", req->tag);
	if (req->seat[0])
		snprintf(rdev + strlen(rdev), sizeof(rdev) - strlen(rdev),
			 " seat=%s", req->seat);
	if (req->pause_errno)
		snprintf(rdev + strlen(rdev), sizeof(rdev) - strlen(rdev),
			 " errno=%s", revoke_pause_errno_name(req->pause_errno));
	/* a device's, or a filesystem's (add fs=, umount) */
	if (req->cause[0])
		snprintf(rdev + strlen(rdev), sizeof(rdev) - strlen(rdev),
			 " cause=%s", req->cause);
	n = snprintf(buf, len, "%s %s%s%s%s%s%s%s%s%s%s%s%s%s%s", REVOKE_PROTO_MAGIC,
		     revoke_verb_name(req->verb), act, path, fs, fd, ino, dev, rdev,
		     rel, tmo, req->spare ? " spare=yes" : "",
		     req->force ? " force=yes" : "",
		     req->progress ? " progress=yes" : "",
		     req->persist ? " persist=yes" : "");
	if (n < 0 || (size_t)n >= len || revoke_req_format_props(req, buf, len))
		return -ENOSPC;
	used = strlen(buf);
	if (used + 2 > len)
		return -ENOSPC;
	buf[used++] = '\n';
	buf[used] = '\0';
	return (int)used;
}

/**
 * revoke_parse_release() - parse a release policy: auto, yes or no
 * @s: the text
 * @out: the policy
 *
 * Return: 0 or -EINVAL.
 */
int revoke_parse_release(const char *s, enum revoke_release *out)
{
	size_t i;

	for (i = 0; i < sizeof(release_names) / sizeof(release_names[0]); i++) {
		if (!strcmp(s, release_names[i])) {
			*out = (enum revoke_release)i;
			return 0;
		}
	}
	return -EINVAL;
}

/**
 * revoke_parse_timeout_ms() - parse a drain timeout, 1 to 60000 ms
 * @s: the text
 * @out: the timeout
 *
 * Return: 0 or -EINVAL.
 */
int revoke_parse_timeout_ms(const char *s, unsigned int *out)
{
	uint64_t v;

	if (revoke_parse_u64(s, &v) || v < 1 || v > REVOKE_TIMEOUT_MAX_MS)
		return -EINVAL;
	*out = (unsigned int)v;
	return 0;
}

/**
 * revoke_parse_rdev_type() - parse a device type: char or block
 * @s: the text
 * @out: REVOKE_RDEV_CHAR or REVOKE_RDEV_BLOCK
 *
 * Return: 0 or -EINVAL.
 */
int revoke_parse_rdev_type(const char *s, uint32_t *out)
{
	if (!strcmp(s, "char"))
		*out = REVOKE_RDEV_CHAR;
	else if (!strcmp(s, "block"))
		*out = REVOKE_RDEV_BLOCK;
	else
		return -EINVAL;
	return 0;
}

/**
 * revoke_parse_cause() - check a cause: 1 to 31 of [A-Za-z0-9_.:-]
 * @s: the text
 * @out: where to copy it
 * @len: size of @out, at least REVOKE_CAUSE_LEN
 *
 * Return: 0 or -EINVAL.
 */
int revoke_parse_cause(const char *s, char *out, size_t len)
{
	size_t n = strlen(s);

	if (n == 0 || n >= REVOKE_CAUSE_LEN || n >= len ||
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		   "0123456789_.:-") != n)
		return -EINVAL;
	memcpy(out, s, n + 1);
	return 0;
}

/* rdev, type, removed and cause: the fields naming a device */
static int parse_rdev_field(char *key, char *val, struct revoke_req *req,
			    const char **why)
{
	if (!strcmp(key, "rdev")) {
		if (req->has_rdev) {
			*why = "field rdev given twice";
			return -EINVAL;
		}
		if (revoke_parse_devspec(val, &req->rdev_major,
					 &req->rdev_minor)) {
			*why = "rdev is not MAJ:MIN (major < 4096, minor < 1048576)";
			return -EINVAL;
		}
		req->has_rdev = true;
		return 0;
	}
	if (!strcmp(key, "type")) {
		if (req->rdev_type) {
			*why = "field type given twice";
			return -EINVAL;
		}
		if (revoke_parse_rdev_type(val, &req->rdev_type)) {
			*why = "type is not char or block";
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(key, "removed")) {
		if (req->removed || strcmp(val, "yes")) {
			*why = "removed is not yes, or given twice";
			return -EINVAL;
		}
		req->removed = true;
		return 0;
	}
	if (!strcmp(key, "action")) {
		if (req->action[0] || !revoke_action_ok(val, sizeof(req->action))) {
			*why = "action is not a lower-case word, or given twice";
			return -EINVAL;
		}
		strcpy(req->action, val);
		return 0;
	}
	if (!strncmp(key, "p.", 2))
		return revoke_req_parse_prop(key + 2, val, req, why);
	if (!strcmp(key, "uid") || !strcmp(key, "errno") ||
	    !strcmp(key, "subsystem") || !strcmp(key, "tag") ||
	    !strcmp(key, "seat"))
		return revoke_req_parse_pause(key, val, req, why);
	if (!strcmp(key, "cause")) {
		if (req->cause[0] ||
		    revoke_parse_cause(val, req->cause, sizeof(req->cause))) {
			*why = "cause is not one word of 1 to 31 of [A-Za-z0-9_.:-], or given twice";
			return -EINVAL;
		}
		return 0;
	}
	*why = "unknown field";
	return -EINVAL;
}

/* fs=yes (the filesystem of path) or fs=MAJ:MIN (its s_dev) */
static int parse_fs(const char *val, struct revoke_req *req, const char **why)
{
	if (req->fs) {
		*why = "field fs given twice";
		return -EINVAL;
	}
	if (!strcmp(val, "yes")) {
		req->fs = REVOKE_FS_PATH;
		return 0;
	}
	if (revoke_parse_devspec(val, &req->fs_major, &req->fs_minor)) {
		*why = "fs is not yes or MAJ:MIN (major < 4096, minor < 1048576)";
		return -EINVAL;
	}
	req->fs = REVOKE_FS_DEV;
	return 0;
}

/* What fs= goes with: @req's verb takes it, and it names one filesystem. */
static int check_fs(const struct revoke_req *req, const char **why)
{
	if (!req->fs) {
		if (req->verb == REVOKE_VERB_UMOUNT) {
			*why = "umount needs field fs";
			return -EINVAL;
		}
		if (req->force) {
			*why = "force goes with fs=yes, in add and umount only";
			return -EINVAL;
		}
		return 0;
	}
	if (!revoke_verb_takes(req->verb, REVOKE_FIELDS_FS)) {
		*why = "fs is a field of add, del, umount and holders only";
		return -EINVAL;
	}
	if (req->fs == REVOKE_FS_PATH && !req->has_path) {
		*why = "fs=yes names the filesystem of path: path is missing";
		return -EINVAL;
	}
	if (req->fs == REVOKE_FS_DEV && req->has_path) {
		*why = "fs=MAJ:MIN names a filesystem; it does not go with path";
		return -EINVAL;
	}
	if (req->has_ino || req->has_dev || req->has_rdev || req->removed) {
		*why = "fs names a filesystem; it does not go with ino, dev, rdev or removed";
		return -EINVAL;
	}
	if (req->verb == REVOKE_VERB_UMOUNT && req->has_release) {
		*why = "umount releases every descriptor: it takes no field release";
		return -EINVAL;
	}
	if (req->force && (req->fs != REVOKE_FS_PATH ||
			   !revoke_verb_takes(req->verb, REVOKE_FIELDS_ADD))) {
		*why = "force goes with fs=yes, in add and umount only";
		return -EINVAL;
	}
	if (req->fs == REVOKE_FS_DEV && req->verb == REVOKE_VERB_ADD) {
		*why = "add fs= needs the filesystem sent with the request (fs=yes and path)";
		return -EINVAL;
	}
	return 0;
}

/*
 * path=PCT: any bytes but NUL, the line's length at most; a longer
 * name than list keeps is kept as "…" and its end (the file itself is
 * named by the descriptor sent with it).
 */
static int parse_path(const char *val, struct revoke_req *req,
		      const char **why)
{
	char name[REVOKE_REQ_MAX];

	if (req->has_path) {
		*why = "field path given twice";
		return -EINVAL;
	}
	if (revoke_pct_decode(val, name) || !name[0]) {
		*why = "path is not a percent-encoded name of 1 byte or more, without NUL";
		return -EINVAL;
	}
	revoke_name_shorten(name, req->path, sizeof(req->path));
	req->has_path = true;
	return 0;
}

static int parse_field(char *key, char *val, struct revoke_req *req,
		       const char **why)
{
	if (!strcmp(key, "ino")) {
		if (req->has_ino) {
			*why = "field ino given twice";
			return -EINVAL;
		}
		if (revoke_parse_ino(val, &req->ino)) {
			*why = "ino is not an inode number (1 to 18446744073709551615)";
			return -EINVAL;
		}
		req->has_ino = true;
		return 0;
	}
	if (!strcmp(key, "dev")) {
		if (req->has_dev) {
			*why = "field dev given twice";
			return -EINVAL;
		}
		if (revoke_parse_devspec(val, &req->major, &req->minor)) {
			*why = "dev is not MAJ:MIN (major < 4096, minor < 1048576)";
			return -EINVAL;
		}
		req->has_dev = true;
		return 0;
	}
	if (!strcmp(key, "path"))
		return parse_path(val, req, why);
	if (!strcmp(key, "fd")) {
		if (req->has_fd) {
			*why = "field fd given twice";
			return -EINVAL;
		}
		if (revoke_parse_fdspec(val, &req->fd_pid, &req->fd_num)) {
			*why = "fd is not PID:FD (pid 1 to 4194304, fd 0 to 2147483647)";
			return -EINVAL;
		}
		req->has_fd = true;
		return 0;
	}
	if (!strcmp(key, "release")) {
		if (req->has_release) {
			*why = "field release given twice";
			return -EINVAL;
		}
		if (revoke_parse_release(val, &req->release)) {
			*why = "release is not auto, yes or no";
			return -EINVAL;
		}
		req->has_release = true;
		return 0;
	}
	if (!strcmp(key, "timeout_ms")) {
		if (req->timeout_ms) {
			*why = "field timeout_ms given twice";
			return -EINVAL;
		}
		if (revoke_parse_timeout_ms(val, &req->timeout_ms)) {
			*why = "timeout_ms is not a number of milliseconds (1 to 60000)";
			return -EINVAL;
		}
		return 0;
	}
	if (!strcmp(key, "fs"))
		return parse_fs(val, req, why);
	if (!strcmp(key, "spare") || !strcmp(key, "force")) {
		bool *flag = key[0] == 's' ? &req->spare : &req->force;

		if (*flag || strcmp(val, "yes")) {
			*why = key[0] == 's' ? "spare is given once, as spare=yes" :
					       "force is given once, as force=yes";
			return -EINVAL;
		}
		*flag = true;
		return 0;
	}
	if (!strcmp(key, "progress")) {
		if (req->progress || strcmp(val, "yes")) {
			*why = "progress is given once, as progress=yes";
			return -EINVAL;
		}
		req->progress = true;
		return 0;
	}
	if (!strcmp(key, "persist")) {
		if (req->persist || strcmp(val, "yes")) {
			*why = "persist is given once, as persist=yes";
			return -EINVAL;
		}
		req->persist = true;
		return 0;
	}
	return parse_rdev_field(key, val, req, why);
}

static int check_fields(const struct revoke_req *req, const char **why)
{
	bool wants_ino = revoke_verb_takes(req->verb, REVOKE_FIELDS_TARGET);
	bool add_fields = revoke_verb_takes(req->verb, REVOKE_FIELDS_ADD);
	bool device = req->has_rdev || req->rdev_type || req->removed ||
		      (req->cause[0] && !req->fs);

	if (req->has_fd && (req->verb != REVOKE_VERB_ADD || req->has_path ||
			    req->has_ino || req->has_dev || device || req->fs)) {
		*why = "fd names one open file in add only; it goes with no path, ino, dev, rdev or fs";
		return -EINVAL;
	}
	if (revoke_verb_takes(req->verb, REVOKE_FIELDS_UEVENT)) {
		if (!req->action[0] || !req->has_rdev || !req->rdev_type) {
			*why = "uevent needs action, rdev and type";
			return -EINVAL;
		}
		if (req->has_ino || req->has_dev || req->removed ||
		    req->cause[0] || req->has_release || req->timeout_ms ||
		    req->spare || req->progress || req->force || req->persist ||
		    req->has_uid || req->pause_errno || req->subsystem[0] ||
		    req->tag[0] || req->seat[0]) {
			*why = "uevent takes action, rdev, type and p.KEY fields only";
			return -EINVAL;
		}
		return 0;
	}
	if (req->action[0] || req->nprops) {
		*why = "action and p.KEY are fields of uevent only";
		return -EINVAL;
	}
	if (revoke_verb_takes(req->verb, REVOKE_FIELDS_PAUSE))
		return revoke_req_check_pause(req, why);
	if (req->has_uid || req->pause_errno || req->subsystem[0] ||
	    req->tag[0] || req->seat[0]) {
		*why = "uid, errno, subsystem, tag and seat are fields of pause and resume only";
		return -EINVAL;
	}

	if (check_fs(req, why))
		return -EINVAL;
	if (wants_ino && !req->has_ino && !req->has_rdev && !req->has_path &&
	    !req->fs && !req->has_fd) {
		*why = "missing field path, ino, rdev, fs or fd";
		return -EINVAL;
	}
	if (!wants_ino && !req->fs && (req->has_ino || req->has_dev || device ||
				       req->has_path)) {
		*why = "this verb takes no fields";
		return -EINVAL;
	}
	if (req->has_path && (req->has_ino || req->has_dev || req->has_rdev)) {
		*why = "path names the file sent with the request; it does not go with ino, dev or rdev";
		return -EINVAL;
	}
	if (req->has_rdev && (req->has_ino || req->has_dev)) {
		*why = "rdev names a device; it does not go with ino or dev";
		return -EINVAL;
	}
	if (device && (!req->has_rdev || !req->rdev_type)) {
		*why = "a device needs both rdev and type";
		return -EINVAL;
	}
	if (!add_fields && (req->removed || req->cause[0])) {
		*why = "removed and cause are fields of add only";
		return -EINVAL;
	}
	if (!add_fields && (req->has_release || req->timeout_ms || req->spare)) {
		*why = "release, timeout_ms and spare are fields of add only";
		return -EINVAL;
	}
	if (!add_fields && req->progress) {
		*why = "progress is a field of add and umount only";
		return -EINVAL;
	}
	if (req->persist && req->verb != REVOKE_VERB_ADD) {
		*why = "persist is a field of add only";
		return -EINVAL;
	}
	return 0;
}

/**
 * revoke_req_parse() - parse and validate one request line
 * @buf: the bytes received, not necessarily NUL-terminated
 * @len: their number; a request is at most REVOKE_REQ_MAX bytes
 * @req: the result
 * @why: on error, a static string naming the problem
 *
 * Return: 0, or -EINVAL for any malformed request.
 */
int revoke_req_parse(const char *buf, size_t len, struct revoke_req *req,
		     const char **why)
{
	char line[REVOKE_REQ_MAX + 1];
	char *cursor, *key, *val, *tok;
	int err;

	memset(req, 0, sizeof(*req));
	if (len == 0 || len > REVOKE_REQ_MAX) {
		*why = len ? "request too long" : "empty request";
		return -EINVAL;
	}
	if (memchr(buf, '\0', len)) {
		*why = "request contains a NUL byte";
		return -EINVAL;
	}
	if (buf[len - 1] != '\n' || memchr(buf, '\n', len) != buf + len - 1) {
		*why = "request is not exactly one line";
		return -EINVAL;
	}
	memcpy(line, buf, len - 1);
	line[len - 1] = '\0';

	cursor = line;
	tok = strsep(&cursor, " ");
	if (strcmp(tok, REVOKE_PROTO_MAGIC)) {
		*why = "unknown protocol version (expected " REVOKE_PROTO_MAGIC ")";
		return -EINVAL;
	}
	tok = strsep(&cursor, " ");
	if (!tok || revoke_verb_parse(tok, &req->verb)) {
		*why = "unknown verb (expected add, del, list, status, events, unload, uevent, reload, umount, holders, pause or resume)";
		return -EINVAL;
	}
	while ((val = revoke_kv_next(&cursor, &key))) {
		err = parse_field(key, val, req, why);
		if (err)
			return err;
	}
	if (cursor) {
		*why = "malformed field (expected key=value)";
		return -EINVAL;
	}
	return check_fields(req, why);
}
