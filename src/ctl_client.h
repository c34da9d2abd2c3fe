/* SPDX-License-Identifier: GPL-2.0 */
/* ctl_client.h - the CLI's end of the control socket. */
#ifndef REVOKE_CTL_CLIENT_H
#define REVOKE_CTL_CLIENT_H

#include "ctl_proto.h"

int ctl_open(const char *path, const struct revoke_req *req, int send_fd,
	     char *err, size_t errlen);
int ctl_call(const char *path, const struct revoke_req *req, int send_fd,
	     struct rbuf *resp, char *err, size_t errlen);

#endif /* REVOKE_CTL_CLIENT_H */
