/* SPDX-License-Identifier: GPL-2.0 */
/*
 * features.h - which of the enforcement programs the running kernel
 * can run: a program whose LSM hook it lacks is not loaded, instead of
 * failing the whole load.
 */
#ifndef REVOKE_STORE_FEATURES_H
#define REVOKE_STORE_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

struct btf;
struct bpf_object;
struct bpf_program;

const char *revoke_prog_hook(const struct bpf_program *prog);
int revoke_btf_hook_id(const struct btf *btf, const char *hook);
bool revoke_btf_has_hook(const struct btf *btf, const char *hook);
int revoke_btf_hook_nargs(const struct btf *btf, const char *hook);
bool revoke_btf_has_member(const struct btf *btf, const char *type,
			   const char *member);
bool revoke_prog_supported(const struct btf *btf,
			   const struct bpf_program *prog, char *why,
			   size_t len);
int revoke_prog_index(const char *name);
int store_select(struct bpf_object *obj, const struct btf *btf,
		      bool *skipped, char *err, size_t errlen);

#endif /* REVOKE_STORE_FEATURES_H */
