/* SPDX-License-Identifier: GPL-2.0 */
/* ctl_server.h - the daemon's end of the control socket. */
#ifndef REVOKE_CTL_SERVER_H
#define REVOKE_CTL_SERVER_H

#include <stddef.h>
#include <sys/types.h>

#include "ctl_proto.h"

/**
 * struct ctl_peer - who sent a request, as the kernel says (SO_PEERCRED)
 */
struct ctl_peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
};

typedef void (*ctl_handler_fn)(const struct ctl_peer *peer, const char *req,
			       size_t len, struct rbuf *resp, void *ctx);

int ctl_listen(const char *path, char *err, size_t errlen);
void ctl_serve_one(int lfd, ctl_handler_fn handler, void *ctx);

#endif /* REVOKE_CTL_SERVER_H */
