# SPDX-License-Identifier: GPL-2.0
#
# tests/lib/schema.bash - valid VERB, for the bats files that hold --json
# to doc/revoke-bpf.schema.json (tests/host/output.bats on the host,
# tests/vm/cli_text.bats in the guest); $REPO is the repository.

# valid VERB: stdin (JSON documents) is valid against the schema's
# $defs/VERB (tests/lib/schema.jq); prints what is not, and fails,
# otherwise
valid() {
	local errs
	errs=$(jq -r --slurpfile schema "$REPO/doc/revoke-bpf.schema.json" \
		--arg verb "$1" -f "$REPO/tests/lib/schema.jq")
	[ -z "$errs" ] || { echo "$1: $errs"; return 1; }
}
