# SPDX-License-Identifier: GPL-2.0
#
# schema.jq - validate revoke-bpf's --json output against
# doc/revoke-bpf.schema.json with jq alone (the VM guest has no python):
#
#	jq -r --slurpfile schema doc/revoke-bpf.schema.json --arg verb list \
#		-f tests/lib/schema.jq < output.json
#
# prints one line per error ("$.path: what is wrong") for each JSON
# document read, nothing when every one is valid against $defs[$verb].
# The subset of JSON Schema the schema uses: type (a name or a list),
# properties, required, additionalProperties (false or a schema), items,
# enum and $ref to "#/$defs/NAME".  tests/host/output.bats checks that it
# agrees with python3-jsonschema.

def jtype:
	type as $t
	| if $t == "number" and . == floor then "integer" else $t end;

def typeok($want):
	jtype as $t
	| ($want | if type == "array" then . else [.] end)
	| any(. == $t or (. == "number" and $t == "integer"));

def refd($root):
	if type == "object" and has("$ref") then
		$root["$defs"][.["$ref"] | ltrimstr("#/$defs/")] | refd($root)
	else . end;

def check($root; $schema; $p):
	($schema | refd($root)) as $s
	| . as $v
	| (if ($s | has("type")) and ($v | typeok($s.type) | not) then
		"\($p): \($v | jtype) where \($s.type | tojson) is expected"
	   else empty end),
	  (if ($s | has("enum")) and ([$s.enum[] | . == $v] | any | not) then
		"\($p): \($v | tojson) is not one of \($s.enum | tojson)"
	   else empty end),
	  (if ($v | type) == "object" then
		(($s.required // [])[] | select(. as $k | $v | has($k) | not)
		 | "\($p): \(.) is missing"),
		($v | to_entries[] | .key as $k | .value
		 | if ($s.properties // {} | has($k)) then
			check($root; $s.properties[$k]; "\($p).\($k)")
		   elif $s.additionalProperties == false then
			"\($p): \($k) is not allowed"
		   elif ($s.additionalProperties | type) == "object" then
			check($root; $s.additionalProperties; "\($p).\($k)")
		   else empty end)
	   else empty end),
	  (if ($v | type) == "array" and ($s | has("items")) then
		($v | to_entries[] | .key as $i | .value
		 | check($root; $s.items; "\($p)[\($i)]"))
	   else empty end);

check($schema[0]; {"$ref": "#/$defs/\($verb)"}; "$")
