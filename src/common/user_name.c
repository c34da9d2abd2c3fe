// SPDX-License-Identifier: GPL-2.0
/*
 * user_name.c - a uid's user name for the daemon's answers, through NSS
 * (getpwuid_r(3): /etc/passwd, LDAP, sssd, systemd-homed...).  Only
 * revoke-bpfd links it: revoke-bpf is static and has no NSS, so the
 * daemon names the users it reports (user=NAME, percent-encoded).
 */
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "common.h"

/**
 * revoke_user_field() - " user=NAME" for @uid, if NSS knows a name
 * @resp: the answer; nothing is written for a uid without a name
 * @uid: the uid (negative: unknown, nothing written)
 *
 * The last uid asked about is remembered: a report names the same few
 * users again and again.
 */
void revoke_user_field(struct rbuf *resp, long uid)
{
	static long last_uid = -1;
	static char last_enc[3 * 256 + 1];
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (uid < 0)
		return;
	if (uid != last_uid) {
		last_enc[0] = '\0';
		if (!getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &res) && res &&
		    res->pw_name[0] &&
		    revoke_pct_encode(res->pw_name, last_enc, sizeof(last_enc)) < 0)
			last_enc[0] = '\0';
		last_uid = uid;
	}
	if (last_enc[0])
		rbuf_printf(resp, " " REVOKE_FIELD_USER "=%s", last_enc);
}
