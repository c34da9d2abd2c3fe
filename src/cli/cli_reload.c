// SPDX-License-Identifier: GPL-2.0
/*
 * cli_reload.c - revoke-bpf reload: revoke-bpfd rereads its policy and
 * applies its declared files (revoked.d(5)) again; and the declared
 * files' line that status shows too.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/**
 * cli_status_declared() - status's and reload's line of the declared
 *	files (revoked.d(5)): "declared: N lines, N applied, N failed (hash H)"
 * @lines: lines read
 * @applied: of them, applied
 * @failed: the others
 * @hash: the declared set's hash
 */
void cli_status_declared(const char *lines, const char *applied,
			    const char *failed, const char *hash)
{
	char esc[96];

	printf("declared: %s line%s, %s applied, %s failed (hash %s)\n", lines,
	       strcmp(lines, "1") ? "s" : "", applied, failed, cli_esc(hash, esc, sizeof(esc)));
}

/*
 * reload's lines of the declared files: the counts (unless the folder
 * declares nothing), then each line not applied, "FILE:LINE: why".  Return 1 if a line was refused or failed
 * (not merely pending), else 0.
 */
static int reload_declared(char *body)
{
	char *line, v[4][24], src[3 * 4096], why[3 * 1024], pend[8];
	char esrc[4 * sizeof(src)], ewhy[4 * sizeof(why)];
	static const char *const keys[4] = {
		REVOKE_FIELD_DECLARED, REVOKE_FIELD_DECLARED_APPLIED,
		REVOKE_FIELD_DECLARED_FAILED, REVOKE_FIELD_DECLARED_HASH,
	};
	int i, ret = 0;

	if (json_output) {
		while ((line = cli_output_next_line(&body)))
			if (cli_output_line_is(line, REVOKE_LINE_DECLARED))
				json_fields(REVOKE_LINE_DECLARED, line +
					    strlen(REVOKE_LINE_DECLARED) + 1);
			else if (cli_output_line_is(line,
						    REVOKE_LINE_DECLARED_ERROR) &&
				 strstr(line, " " REVOKE_FIELD_PENDING "=no"))
				ret = 1;
		return ret;
	}
	while ((line = cli_output_next_line(&body))) {
		if (cli_output_line_is(line, REVOKE_LINE_DECLARED)) {
			for (i = 0; i < 4; i++)
				if (!revoke_kv_get(line, keys[i], v[i],
						   sizeof(v[i])))
					strcpy(v[i], "?");
			/* a folder that declares nothing: reload says so little */
			if (strcmp(v[0], "0") || strcmp(v[2], "0"))
				cli_status_declared(v[0], v[1], v[2], v[3]);
			continue;
		}
		if (!cli_output_line_is(line, REVOKE_LINE_DECLARED_ERROR))
			continue;
		if (!revoke_kv_get(line, REVOKE_FIELD_SOURCE, src, sizeof(src)))
			strcpy(src, "%3F");
		if (!revoke_kv_get(line, REVOKE_FIELD_REASON, why, sizeof(why)))
			strcpy(why, "%3F");
		if (revoke_kv_get(line, REVOKE_FIELD_PENDING, pend,
				  sizeof(pend)) && strcmp(pend, "yes"))
			ret = 1;
		printf("%s: ", cli_esc_name(src, esrc, sizeof(esrc)));
		printf("%s\n", cli_esc_name(why, ewhy, sizeof(ewhy)));
	}
	return ret;
}

/**
 * do_reload() - revoke-bpf reload: revoke-bpfd rereads its policy and
 *	applies the declared files again
 * @argc: number of arguments after the command
 * @argv: the arguments
 *
 * Return: 0; 1 on an error or if a declared line was refused or failed
 * (the others are applied); 2 if given an operand.
 */
int do_reload(int argc, char **argv)
{
	struct rbuf resp = {};
	char *body, *line, policy[4096] = "?", rules[24] = "?";
	char source[24] = "?", esc[4 * 4096];
	int ret;

	ret = cli_query(REVOKE_VERB_RELOAD, argc, argv, &resp, &body);
	if (ret)
		goto out;
	line = cli_output_next_line(&body);
	if (json_output) {
		json_open(NULL, '{');
		json_str("result", REVOKE_OK_RELOADED);
		if (line)
			json_fields(NULL, line);
		if (strstr(body, REVOKE_LINE_DECLARED " "))
			json_lines("declared_errors", body,
				   REVOKE_LINE_DECLARED_ERROR);
		ret = reload_declared(body);
		json_close('}');
		goto out;
	}
	if (line) {
		revoke_kv_get(line, REVOKE_FIELD_POLICY, policy, sizeof(policy));
		revoke_kv_get(line, REVOKE_FIELD_RULES, rules, sizeof(rules));
		revoke_kv_get(line, REVOKE_FIELD_SOURCE, source, sizeof(source));
	}
	printf("reloaded: %s rule%s from %s (device removals from %s)\n", rules,
	       strcmp(rules, "1") ? "s" : "", cli_esc_name(policy, esc,
							   sizeof(esc)), source);
	ret = reload_declared(body);
out:
	rbuf_free(&resp);
	return ret;
}
