/* SPDX-License-Identifier: GPL-2.0 */
/*
 * devclient.h - what devclient.c (the client, its commands, descriptor
 * passing) and devclient_media.c (its ALSA and V4L2 modes) share.
 */
#ifndef REVOKE_TESTS_DEVCLIENT_H
#define REVOKE_TESTS_DEVCLIENT_H

#include <stddef.h>

/*
 * One command of the client.  fn runs it on the client's descriptor and
 * returns 0 with its verdict in out ("ok 24"), or -1 with errno set; the
 * client prints "NAME: VERDICT" or "NAME: ERRNAME".  If before is set,
 * that line is printed first, once the command is about to block (the
 * test waits for it, then for the system call).
 */
struct dc_cmd {
	const char *name;
	int (*fn)(int fd, const char *arg, char *out, size_t len);
	const char *before;
};

/* seconds a blocking command waits before it gives up with EINTR */
extern unsigned int dc_timeout;

/* devclient_media.c */

/**
 * media_open() - open @node and set it up for @mode
 * @mode:	pcm-capture, pcm-mmap or v4l2-mmap
 * @node:	the device node
 *
 * Says what it set up on one "setup: ..." line.
 *
 * Return: the descriptor; -1 with errno (a failed open) or -2 (a step
 * of the setup failed, said on stderr); -3 if @mode is not a media mode.
 */
int media_open(const char *mode, const char *node);

/**
 * media_cmd() - the command @name of the media mode that was opened
 * @name:	the command's name
 *
 * Return: the command, or NULL if that mode has none of that name (the
 * plain client's commands then apply).
 */
const struct dc_cmd *media_cmd(const char *name);

#endif
