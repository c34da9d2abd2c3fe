// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_policy - libFuzzer target for the policy file parser and matcher
 * (/etc/revoke-bpf/policy.conf, read by revoke-bpfd as root).
 *
 * What parses is matched against a fixed device; what does not must say
 * "line N: ..." for a line that exists.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/policy.h"

static const char *const keys[] = { "SUBSYSTEM", "DEVNAME", "ID_BUS" };
static const char *const vals[] = { "tty", "/dev/ttyUSB0", "usb" };

static unsigned int count_lines(const char *text)
{
	unsigned int n = 1;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uevent_props props = { keys, vals, 3 };
	const struct policy_rule *r;
	struct policy pol = {};
	char err[256];
	unsigned int line;
	char *text;

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	err[0] = '\0';
	if (policy_parse(text, &pol, err, sizeof(err)) == 0) {
		r = policy_match(&pol, &props);
		if (r && (r->line < 1 || r->line > count_lines(text)))
			abort();
		policy_mode_name(r ? r->mode : POLICY_DENY);
		policy_free(&pol);
	} else if (sscanf(err, "line %u:", &line) != 1 || line < 1 ||
		   line > count_lines(text)) {
		abort();
	}
	free(text);
	return 0;
}
