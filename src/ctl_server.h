/* SPDX-License-Identifier: GPL-2.0 */
/* ctl_server.h - the daemon's end of the control socket. */
#ifndef REVOKE_CTL_SERVER_H
#define REVOKE_CTL_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "ctl_proto.h"

#define CTL_MAX_GROUPS 64

/**
 * struct ctl_peer - who sent a request, as the kernel says
 * @fd: the connection
 * @sent_fd: the descriptor that came with the request, or -1; closed by
 *	ctl_serve_one() after the handler
 * @pid: from SO_PEERCRED, at connect time
 * @uid: from SO_PEERCRED
 * @gid: from SO_PEERCRED
 * @groups: supplementary groups, from SO_PEERGROUPS
 * @ngroups: their number (at most CTL_MAX_GROUPS are kept)
 */
struct ctl_peer {
	int fd;
	int sent_fd;
	pid_t pid;
	uid_t uid;
	gid_t gid;
	gid_t groups[CTL_MAX_GROUPS];
	int ngroups;
};

bool ctl_peer_in_group(const struct ctl_peer *peer, gid_t gid);

/*
 * A handler answers in @resp.  If it returns true it has taken over
 * peer->fd (to stream to it later); the server sends @resp and leaves
 * the connection open.
 */
typedef bool (*ctl_handler_fn)(const struct ctl_peer *peer, const char *req,
			       size_t len, struct rbuf *resp, void *ctx);

int ctl_listen(const char *path, char *err, size_t errlen);
void ctl_serve_one(int lfd, ctl_handler_fn handler,
		   bool (*may_send_fd)(const struct ctl_peer *peer, void *ctx),
		   void *ctx);

#endif /* REVOKE_CTL_SERVER_H */
