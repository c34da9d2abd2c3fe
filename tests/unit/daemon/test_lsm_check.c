// SPDX-License-Identifier: GPL-2.0
/* Unit tests for src/daemon/lsm_check.c. */
#include <string.h>

#include "daemon/lsm_check.h"
#include "tap.h"

int main(void)
{
	char buf[1024];

	CHECK("bpf at the end", revoke_lsm_has_bpf("lockdown,capability,bpf"));
	CHECK("bpf alone", revoke_lsm_has_bpf("bpf"));
	CHECK("bpf in the middle", revoke_lsm_has_bpf("capability,bpf,yama"));
	CHECK("no bpf", !revoke_lsm_has_bpf("lockdown,capability,apparmor"));
	CHECK("bpffoo is not bpf", !revoke_lsm_has_bpf("capability,bpffoo"));
	CHECK("empty list", !revoke_lsm_has_bpf(""));
	revoke_lsm_advice("lockdown,capability,apparmor", buf, sizeof(buf));
	CHECK("advice names the lsm= parameter with bpf appended",
	      strstr(buf, "lsm=lockdown,capability,apparmor,bpf ") != NULL);
	CHECK("advice quotes the current list",
	      strstr(buf, "(active LSMs: \"lockdown,capability,apparmor\")") != NULL);
	revoke_lsm_advice("", buf, sizeof(buf));
	CHECK("advice for an empty list is lsm=bpf", strstr(buf, "lsm=bpf ") != NULL);
	return tap_done();
}
