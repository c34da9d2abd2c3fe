/* SPDX-License-Identifier: GPL-2.0 */
/*
 * declared.h - declared state (revoked.d(5)): the lines of
 * /etc/revoke-bpf/revoked.d/ *.conf, applied at start, on reload and
 * SIGHUP, and whenever the folder changes; the record of which entries a
 * line added, kept beside the socket as long as the pins live.
 *
 *	declared.c	reading the files, applying each line, lifting
 *	declared_keys.c	the record: entries a line added, on disk;
 *			add and del by hand, add --persist, list's mark
 *	declared_watch.c	the folder, pending paths' parents, mounts
 */
#ifndef REVOKE_DECLARED_H
#define REVOKE_DECLARED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

#define DECLARED_DIR_DEFAULT	"/etc/revoke-bpf/revoked.d"
#define DECLARED_STATE_DEFAULT	REVOKE_RUN_DIR "/declared.state"
#define DECLARED_LOCAL		"local.conf"	/* add --persist's file */
#define DECLARED_KEY_LEN	96
#define DECLARED_SRC_LEN	288	/* a file's name and ":LINE" */
#define DECLARED_WORDS		32	/* words of a line at most */
#define DECLARED_WATCHES	64	/* pending paths' parents watched */

/**
 * struct declared_key - an entry a declared line added
 * @key: the entry, as a del request's fields: "ino=N dev=MAJ:MIN",
 *	"rdev=MAJ:MIN type=char|block" or "fs=MAJ:MIN"
 * @src: the line, "NAME.conf:LINE"
 * @seen: named by a line in the apply under way
 */
struct declared_key {
	char key[DECLARED_KEY_LEN];
	char src[DECLARED_SRC_LEN];
	bool seen;
};

/**
 * struct declared - the declared files and what was made of them
 * @dir: the folder (--declared)
 * @state: the record's file
 * @keys: the record: every entry a line added and no one lifted
 * @nkeys: their number
 * @cap: room in @keys
 * @applying: an apply is under way: its adds and dels are not an
 *	admin's
 * @again: a pending path appeared before its folder was watched: apply
 *	once more
 * @lines: lines read at the last apply (blank and comment lines aside)
 * @applied: of them, those whose entries are in force
 * @failed: the others: refused, failed or pending
 * @pending: of @failed, those whose file or mount point does not exist
 *	yet (retried when it appears)
 * @hash: FNV-1a of the sorted, normalised lines, in hex
 * @problems: "declared_error" lines of the last apply, for reload
 * @ep: epoll descriptor the loop watches: @in and @mnt, or -1
 * @in: inotify descriptor, or -1
 * @mnt: /proc/self/mountinfo, whose changes retry pending lines, or -1
 * @wd_dir: watch of @dir, or -1
 * @wd_up: watch of @dir's parent while @dir does not exist, or -1
 * @wd: watches of the nearest existing folder of each pending path
 * @nwd: their number
 */
struct declared {
	const char *dir;
	const char *state;
	struct declared_key *keys;
	size_t nkeys;
	size_t cap;
	bool applying;
	bool again;
	unsigned int lines;
	unsigned int applied;
	unsigned int failed;
	unsigned int pending;
	char hash[17];
	struct rbuf problems;
	int ep;
	int in;
	int mnt;
	int wd_dir;
	int wd_up;
	int wd[DECLARED_WATCHES];
	size_t nwd;
};

struct daemon;
struct ctl_peer;

/* declared.c */
void declared_init(struct declared *dc, const char *dir, const char *state);
void declared_apply(struct daemon *d);
void declared_status(const struct daemon *d, struct rbuf *resp);
void declared_answer(const struct daemon *d, struct rbuf *resp);
void declared_fini(struct declared *dc);

/* declared_keys.c */
struct declared_key *declared_find(struct declared *dc, const char *key);
int declared_record(struct declared *dc, const char *key, const char *src);
void declared_drop(struct declared *dc, const char *key);
int declared_load(struct daemon *d);
int declared_save(struct daemon *d);
void declared_forget(struct daemon *d);
int declared_keys_of(struct daemon *d, const struct ctl_peer *peer,
		     const struct revoke_req *req,
		     char keys[][DECLARED_KEY_LEN], size_t max);
int declared_keys_answered(const char *answer, bool *added,
			   char keys[][DECLARED_KEY_LEN], size_t max);
bool declared_refuse_del(struct daemon *d, const struct ctl_peer *peer,
			 const struct revoke_req *req, struct rbuf *resp);
void declared_after_add(struct daemon *d, const struct ctl_peer *peer,
			const struct revoke_req *req, struct rbuf *resp);
void declared_list_mark(struct daemon *d, const char *body, size_t len,
			struct rbuf *resp);

/* declared_watch.c */
int declared_watch_start(struct daemon *d);
int declared_watch(struct daemon *d);
void declared_watch_pending(struct daemon *d, const char *path, bool missing);
void declared_watch_clear(struct declared *dc);
bool declared_watch_settle(struct declared *dc);

#endif /* REVOKE_DECLARED_H */
