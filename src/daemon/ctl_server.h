/* SPDX-License-Identifier: GPL-2.0 */
/* ctl_server.h - the daemon's end of the control socket. */
#ifndef REVOKE_CTL_SERVER_H
#define REVOKE_CTL_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/common.h"

#define CTL_MAX_GROUPS 64
/* the kernel's SCM_MAX_FD: descriptors one message carries at most */
#define CTL_MAX_RECV_FDS 253
/* SO_PASSRIGHTS, from Linux 6.16's asm-generic/socket.h (x86) */
#define CTL_SO_PASSRIGHTS 83

/**
 * struct ctl_peer - who sent a request, as the kernel says
 * @fd: the connection
 * @sent_fd: the O_PATH descriptor that came with the request, or -1;
 *	closed by the loop (ctl_loop.c) after the handler
 * @pid: from SO_PEERCRED, at connect time
 * @uid: from SO_PEERCRED
 * @gid: from SO_PEERCRED
 * @groups: supplementary groups, from SO_PEERGROUPS
 * @ngroups: their number (at most CTL_MAX_GROUPS are kept)
 * @fds_refused: descriptors came with the request from a peer that may
 *	not send any; they were not taken
 */
struct ctl_peer {
	int fd;
	int sent_fd;
	pid_t pid;
	uid_t uid;
	gid_t gid;
	gid_t groups[CTL_MAX_GROUPS];
	int ngroups;
	bool fds_refused;
};

bool ctl_peer_in_group(const struct ctl_peer *peer, gid_t gid);

/*
 * A handler answers in @resp.  If it returns true it has taken over
 * peer->fd (to stream to it later); the loop sends @resp and leaves
 * the connection open.
 */
typedef bool (*ctl_handler_fn)(const struct ctl_peer *peer, const char *req,
			       size_t len, struct rbuf *resp, void *ctx);

int ctl_listen(const char *path, char *err, size_t errlen);
int ctl_peer_identify(int fd, struct ctl_peer *peer);
int ctl_refuse_fds(int fd);
ssize_t ctl_recv_plain(int fd, char *buf, size_t cap, bool *fds);
ssize_t ctl_recv_fds(int fd, char *buf, size_t cap, int *fds, int *nfds);
bool ctl_fd_is_opath(int fd);

#endif /* REVOKE_CTL_SERVER_H */
