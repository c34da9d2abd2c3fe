// SPDX-License-Identifier: GPL-2.0
/*
 * features.c - load only the programs the running kernel can attach.
 *
 * A BPF LSM program attaches to the kernel function bpf_lsm_<hook>; a
 * kernel without that function (file_truncate came in 6.2,
 * mmap_backing_file in 6.12) would refuse the whole object.  So before
 * the load, every program whose hook the kernel's BTF lacks, or has with
 * other parameters, or which needs a structure member it lacks, is set
 * not to load, and is reported as skipped.  The other programs load as before.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "common/common.h"
#include "features.h"
#include "store.h"

#define LSM_PREFIX "lsm/"
#define HOOK_FUNC_PREFIX "bpf_lsm_"

/*
 * What a program needs besides its hook: a member of a kernel structure
 * that it reads, and that older kernels do not have.
 */
static const struct {
	const char *prog;
	const char *type;
	const char *member;
} member_needs[] = {
	/* fown_struct's back pointer to its file: Linux 6.12 */
	{ "revoke_file_send_sigiotask", "fown_struct", "file" },
};

/*
 * Programs for one shape of a hook whose parameters changed: the number
 * of parameters the hook must have.  notify_change() passes the mount's
 * idmap before the dentry since Linux 6.3.
 */
static const struct {
	const char *prog;
	int nargs;
} shape_needs[] = {
	{ "revoke_inode_setattr", 3 },
	{ "revoke_inode_setattr_6_1", 2 },
};

/**
 * revoke_prog_hook() - the LSM hook a program attaches to
 * @prog: a program of the object, its section "lsm/HOOK"
 *
 * Return: HOOK, or NULL if @prog is not an LSM program.
 */
const char *revoke_prog_hook(const struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog);

	if (!sec || strncmp(sec, LSM_PREFIX, strlen(LSM_PREFIX)))
		return NULL;
	return sec + strlen(LSM_PREFIX);
}

/**
 * revoke_btf_hook_id() - the BTF id of a kernel's LSM hook for BPF
 * @btf: the kernel's BTF (btf__load_vmlinux_btf())
 * @hook: the hook's name, e.g. "file_truncate"
 *
 * Return: the id of the function bpf_lsm_@hook in @btf (what a program
 * attached to it has as attach_btf_id), or a value <= 0 if there is none.
 */
int revoke_btf_hook_id(const struct btf *btf, const char *hook)
{
	char name[128];
	int n;

	n = snprintf(name, sizeof(name), HOOK_FUNC_PREFIX "%s", hook);
	if (n < 0 || (size_t)n >= sizeof(name))
		return -1;
	return btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
}

/**
 * revoke_btf_has_hook() - does a kernel have an LSM hook for BPF?
 * @btf: the kernel's BTF (btf__load_vmlinux_btf())
 * @hook: the hook's name, e.g. "file_truncate"
 *
 * Return: true if @btf has the function bpf_lsm_@hook.
 */
bool revoke_btf_has_hook(const struct btf *btf, const char *hook)
{
	return revoke_btf_hook_id(btf, hook) > 0;
}

/**
 * revoke_btf_hook_nargs() - how many parameters a kernel's LSM hook has
 * @btf: the kernel's BTF
 * @hook: the hook's name, e.g. "inode_setattr"
 *
 * Return: the number of parameters of bpf_lsm_@hook, or -1 if @btf has
 * no such function.
 */
int revoke_btf_hook_nargs(const struct btf *btf, const char *hook)
{
	const struct btf_type *t;
	int id;

	id = revoke_btf_hook_id(btf, hook);
	if (id <= 0)
		return -1;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	return t && btf_is_func_proto(t) ? btf_vlen(t) : -1;
}

/**
 * revoke_btf_has_member() - does a kernel structure have a member?
 * @btf: the kernel's BTF
 * @type: the structure's name, without "struct "
 * @member: the member's name
 *
 * Return: true if struct @type in @btf has a member named @member.
 */
bool revoke_btf_has_member(const struct btf *btf, const char *type,
			   const char *member)
{
	const struct btf_member *m;
	const struct btf_type *t;
	int id, i;

	id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	if (id <= 0)
		return false;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), member))
			return true;
	return false;
}

/**
 * revoke_prog_supported() - can the kernel of @btf attach @prog?
 * @btf: the kernel's BTF
 * @prog: a program of the enforcement object
 * @why: if not, what the kernel lacks, e.g. "no file_truncate LSM hook"
 * @len: size of @why
 *
 * Return: true if the kernel has @prog's hook, in the shape @prog
 * expects, and every structure member @prog needs.
 */
bool revoke_prog_supported(const struct btf *btf,
			   const struct bpf_program *prog, char *why,
			   size_t len)
{
	const char *hook = revoke_prog_hook(prog);
	const char *name = bpf_program__name(prog);
	size_t i;

	if (hook && !revoke_btf_has_hook(btf, hook)) {
		snprintf(why, len, "no %s LSM hook", hook);
		return false;
	}
	for (i = 0; i < sizeof(shape_needs) / sizeof(shape_needs[0]); i++) {
		if (strcmp(shape_needs[i].prog, name) || !hook ||
		    revoke_btf_hook_nargs(btf, hook) == shape_needs[i].nargs)
			continue;
		snprintf(why, len, "%s with %d parameters, not %d", hook,
			 revoke_btf_hook_nargs(btf, hook), shape_needs[i].nargs);
		return false;
	}
	for (i = 0; i < sizeof(member_needs) / sizeof(member_needs[0]); i++) {
		if (strcmp(member_needs[i].prog, name) ||
		    revoke_btf_has_member(btf, member_needs[i].type,
					  member_needs[i].member))
			continue;
		snprintf(why, len, "no struct %s member %s",
			 member_needs[i].type, member_needs[i].member);
		return false;
	}
	return true;
}

/**
 * revoke_prog_index() - a program's place in revoke_prog_names
 * @name: the program's name
 *
 * Return: its index, or -1 if it is not one of the enforcement programs.
 */
int revoke_prog_index(const char *name)
{
	int i;

	for (i = 0; i < REVOKE_NR_PROGS; i++)
		if (!strcmp(revoke_prog_names[i], name))
			return i;
	return -1;
}

/**
 * store_select() - load only the programs the kernel can attach
 * @obj: the enforcement object, opened and not loaded yet
 * @btf: the running kernel's BTF
 * @skipped: per revoke_prog_names entry, set to true if that program is
 *	not loaded, else false
 * @err: on failure, why
 * @errlen: size of @err
 *
 * Each program the kernel cannot attach is set not to load, and logged
 * once on stderr with what the kernel lacks.
 *
 * Return: the number of programs skipped, or a negative errno.
 */
int store_select(struct bpf_object *obj, const struct btf *btf,
		      bool *skipped, char *err, size_t errlen)
{
	struct bpf_program *prog;
	char why[128];
	int i, n = 0, ret;

	memset(skipped, 0, REVOKE_NR_PROGS * sizeof(*skipped));
	bpf_object__for_each_program(prog, obj) {
		const char *name = bpf_program__name(prog);

		if (revoke_prog_supported(btf, prog, why, sizeof(why)))
			continue;
		ret = bpf_program__set_autoload(prog, false);
		if (ret) {
			snprintf(err, errlen, "cannot leave out %s: %s", name,
				 strerror(-ret));
			return ret;
		}
		i = revoke_prog_index(name);
		if (i >= 0)
			skipped[i] = true;
		log_info("%s skipped: this kernel has %s\n",
			name, why);
		n++;
	}
	return n;
}
