#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# contrib/ansible and deploy/kubernetes, offline: ansible-lint and
# yamllint pass; the kustomization renders (kubectl kustomize), and every
# field of what it renders is one the Kubernetes API has
# (tests/lib/k8s_fields.py, on Debian's python3-kubernetes).  The role
# and the playbook run for real in tests/system/ansible.bats; no cluster
# runs the manifests here.

setup() {
	REPO=$(cd "$(dirname "$BATS_TEST_FILENAME")/../.." && pwd)
}

@test "ansible-lint passes the role and the playbooks (production profile)" {
	cd "$REPO/contrib/ansible"
	run ansible-lint --offline --nocolor site.yml oneshot.yml roles/revoke_bpf
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "Passed with production profile: 0 failure(s), 0 warning(s) on 8 files." ]
}

@test "yamllint passes contrib/ansible and deploy/kubernetes" {
	run yamllint -s "$REPO/contrib/ansible" "$REPO/deploy/kubernetes"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "the kustomization renders the namespace, account, ConfigMap and DaemonSet, every field the API's" {
	kubectl kustomize "$REPO/deploy/kubernetes" > "$BATS_TEST_TMPDIR/all.yaml"
	run /usr/bin/python3 -c '
import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    print(d["kind"], d["metadata"].get("namespace", "-"), d["metadata"]["name"])
' "$BATS_TEST_TMPDIR/all.yaml"
	[ "$status" -eq 0 ]
	[ "$output" = "Namespace - revoke-bpf
ServiceAccount revoke-bpf revoke-bpfd
ConfigMap revoke-bpf revoke-bpf-declared
DaemonSet revoke-bpf revoke-bpfd" ]
	run "$REPO/tests/lib/k8s_fields.py" < "$BATS_TEST_TMPDIR/all.yaml"
	[ "$status" -eq 0 ]
	[ "$output" = "4 documents checked" ]
	# the checker sees a misspelt field and a mistyped value
	run "$REPO/tests/lib/k8s_fields.py" < <(sed 's/hostPID: true/hostPid: true/;
		s/privileged: true/privileged: "yes"/' "$BATS_TEST_TMPDIR/all.yaml")
	[ "$status" -eq 1 ]
	[ "$output" = "DaemonSet/revoke-bpfd: .spec.template.spec.containers[0].securityContext.privileged: 'yes' is not bool
DaemonSet/revoke-bpfd: .spec.template.spec.hostPid: no such field in V1PodSpec" ]
}

@test "the DaemonSet mounts the ConfigMap as revoked.d and shares the host's bpffs, securityfs, socket folder and pids" {
	run /usr/bin/python3 -c '
import subprocess, sys, yaml
docs = yaml.safe_load_all(subprocess.check_output(
    ["kubectl", "kustomize", sys.argv[1]]))
ds = [d for d in docs if d["kind"] == "DaemonSet"][0]["spec"]["template"]["spec"]
vols = {v["name"]: v.get("hostPath", {}).get("path") or
        v.get("configMap", {}).get("name") for v in ds["volumes"]}
print("hostPID", ds["hostPID"])
for c in ds["containers"]:
    print(c["name"], " ".join(c["command"][-1:]).split(";")[-1].strip())
    for m in c["volumeMounts"]:
        print(" ", m["mountPath"], "<-", vols[m["name"]])
' "$REPO/deploy/kubernetes"
	[ "$status" -eq 0 ]
	[ "$output" = "hostPID True
revoke-bpfd /usr/sbin/revoke-bpfd
  /sys/fs/bpf <- /sys/fs/bpf
  /sys/kernel/security <- /sys/kernel/security
  /run/revoke-bpf <- /run/revoke-bpf
  /etc/revoke-bpf/revoked.d <- revoke-bpf-declared
  /host <- /
events exec revoke-bpf --json events
  /run/revoke-bpf <- /run/revoke-bpf" ]
}
