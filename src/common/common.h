/* SPDX-License-Identifier: GPL-2.0 */
/*
 * common.h - what src/common gives the other folders: the control
 * socket's verbs (ctl_verbs.h), requests (ctl_proto.h), answers' words
 * (ctl_fields.h) and text (ctl_text.h), and naming inodes and devices
 * (key.h).  The shared paths (REVOKE_SOCKET_PATH, REVOKE_PIN_DIR) are in
 * include/revoke_bpf.h, which ctl_proto.h includes.
 */
#ifndef REVOKE_COMMON_H
#define REVOKE_COMMON_H

#include "clock.h"
#include "ctl_fields.h"
#include "ctl_proto.h"
#include "ctl_text.h"
#include "ctl_verbs.h"
#include "key.h"
#include "log.h"
#include "target.h"

#endif /* REVOKE_COMMON_H */
