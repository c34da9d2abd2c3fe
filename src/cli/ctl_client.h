/* SPDX-License-Identifier: GPL-2.0 */
/* ctl_client.h - the CLI's end of the control socket. */
#ifndef REVOKE_CTL_CLIENT_H
#define REVOKE_CTL_CLIENT_H

#include "common/ctl_proto.h"

/* each wait for revoke-bpfd, unless revoke-bpf --reply-timeout says */
#define CTL_CLIENT_TIMEOUT_DEFAULT_MS 5000

void ctl_client_set_timeout(unsigned int ms);
int ctl_wait_reply(int fd, enum revoke_verb verb, char *err, size_t errlen);

int ctl_open(const char *path, const struct revoke_req *req, int send_fd,
	     char *err, size_t errlen);
int ctl_call(const char *path, const struct revoke_req *req, int send_fd,
	     struct rbuf *resp, char *err, size_t errlen);

#endif /* REVOKE_CTL_CLIENT_H */
