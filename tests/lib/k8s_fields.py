#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check every field of Kubernetes manifests against the API's models.

    k8s_fields.py < RENDERED.yaml

Reads YAML documents (kubectl kustomize's output) and walks each against
the model classes of Debian's python3-kubernetes (the API of its
version): a field the API does not have, or a value of the wrong type
where the model says str, int, bool, list or dict, is printed as
KIND/NAME: PATH: WHY.  Exit status 0 when none, 1 otherwise.
"""
import re
import sys

import kubernetes.client as k8s
import yaml

SCALARS = {"str": str, "int": int, "bool": bool, "float": (int, float)}


def check(value, typ, path, errs):
    """Check value against the model type string typ, at path."""
    if typ in ("object", "datetime", "date"):
        return
    if typ in SCALARS:
        # an int-or-string (ports, maxUnavailable) is typed "object" above
        if isinstance(value, bool) and typ != "bool" or \
           not isinstance(value, SCALARS[typ]):
            errs.append(f"{path}: {value!r} is not {typ}")
        return
    m = re.fullmatch(r"list\[(.+)\]", typ)
    if m:
        if not isinstance(value, list):
            errs.append(f"{path}: not a list")
            return
        for i, v in enumerate(value):
            check(v, m.group(1), f"{path}[{i}]", errs)
        return
    m = re.fullmatch(r"dict\(str, (.+)\)", typ)
    if m:
        if not isinstance(value, dict):
            errs.append(f"{path}: not a map")
            return
        for k, v in value.items():
            check(v, m.group(1), f"{path}.{k}", errs)
        return
    model = getattr(k8s, typ)
    if not isinstance(value, dict):
        errs.append(f"{path}: not a {typ}")
        return
    fields = {j: model.openapi_types[p] for p, j in model.attribute_map.items()}
    for k, v in value.items():
        if k not in fields:
            errs.append(f"{path}.{k}: no such field in {typ}")
        else:
            check(v, fields[k], f"{path}.{k}", errs)


def main():
    errs = []
    docs = [d for d in yaml.safe_load_all(sys.stdin) if d]
    for doc in docs:
        kind = doc.get("kind", "?")
        version = doc.get("apiVersion", "").split("/")[-1]
        name = f"{kind}/{doc.get('metadata', {}).get('name', '?')}"
        typ = version.capitalize() + kind
        if not hasattr(k8s, typ):
            errs.append(f"{name}: no model {typ} for {doc.get('apiVersion')}")
            continue
        mine = []
        check(doc, typ, "", mine)
        errs += [f"{name}: {e}" for e in mine]
    print("\n".join(errs)) if errs else print(f"{len(docs)} documents checked")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
