// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_ctl_proto - libFuzzer target for everything the daemon parses from
 * a client: the request line, and the key=value walker the CLI uses on
 * answers.  Run with 'make fuzz' (ASan + UBSan).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/ctl_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct revoke_req req;
	const char *why = NULL;
	char out[REVOKE_REQ_MAX];
	char *line, *cursor, *key;

	if (revoke_req_parse((const char *)data, size, &req, &why) == 0) {
		/* what parses must format back to something that parses */
		int n = revoke_req_format(&req, out, sizeof(out));

		if (n < 0 || revoke_req_parse(out, (size_t)n, &req, &why))
			abort();
	} else if (!why) {
		abort();
	}
	line = malloc(size + 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	cursor = line;
	while (revoke_kv_next(&cursor, &key))
		;
	free(line);
	return 0;
}
