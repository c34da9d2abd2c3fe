/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tty.h - hang up a revoked tty, through the kernel's own TIOCVHANGUP,
 * after the deny: every session whose controlling terminal it is loses
 * it and its leader gets SIGHUP, whoever holds the tty and by what name
 * (the BPF side, bpf/reach.bpf.h, denies /dev/tty, /dev/console and
 * /dev/tty0 files that reach it).
 */
#ifndef REVOKE_TTY_H
#define REVOKE_TTY_H

#include <stdbool.h>
#include <stddef.h>

#include "store/store.h"
#include "common/common.h"
#include "holders.h"
#include "revoke_bpf.h"

#define TTY_HANGUP_FDS 16

/**
 * struct tty_hangup - a revoked tty to hang up
 * @is_tty: the revoked inode or device is a tty
 * @tty: its device number
 * @fds: files of it, taken before the deny
 * @nfds: their number
 * @hungup: TIOCVHANGUP succeeded on one of them
 * @why: if not @hungup, why not (one word)
 */
struct tty_hangup {
	bool is_tty;
	struct revoke_rdev_key tty;
	int fds[TTY_HANGUP_FDS];
	size_t nfds;
	bool hungup;
	char why[48];
};

void tty_prepare_inode(struct tty_hangup *th, struct holders *h,
		       const struct revoke_key *key);
void tty_prepare_rdev(struct tty_hangup *th, struct holders *h,
		      const struct revoke_rdev_key *key);
void tty_hangup_finish(struct tty_hangup *th);
void tty_hangup_cancel(struct tty_hangup *th);
void tty_hangup_report(struct rbuf *resp, const struct tty_hangup *th);

#endif /* REVOKE_TTY_H */
