// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/store/features.c: which programs a kernel can attach,
 * decided from BTF made here, as an older or a newer kernel would have it.
 */
#include <stdbool.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "store/features.h"
#include "store/store.h"
#include "revoke.skel.h"
#include "tap.h"

/* Hooks of the programs that every kernel this project runs on has. */
static const char *const old_hooks[] = {
	"file_permission", "mmap_file", "file_ioctl", "file_open",
	"inode_free_security", "file_lock", "file_fcntl", "file_mprotect",
	"path_truncate", "file_receive", "file_free_security",
	"file_ioctl_compat", "kernel_read_file", "kernel_post_read_file",
	"uring_cmd", "file_send_sigiotask", "inode_getxattr", "inode_listxattr",
	"inode_setxattr", "inode_removexattr", "sb_free_security",
};

/* Only in newer kernels. */
static const char *const new_hooks[] = {
	"file_truncate", "mmap_backing_file", "inode_get_acl", "inode_set_acl",
	"inode_remove_acl", "inode_file_getattr", "inode_file_setattr",
};

static void add_hook(struct btf *btf, int proto, const char *hook)
{
	char name[128];

	snprintf(name, sizeof(name), "bpf_lsm_%s", hook);
	btf__add_func(btf, name, BTF_FUNC_GLOBAL, proto);
}

/* inode_setattr with @nargs parameters: (dentry, attr), or idmap first. */
static void add_setattr(struct btf *btf, int type, int nargs)
{
	int proto = btf__add_func_proto(btf, type), i;

	for (i = 0; i < nargs; i++)
		btf__add_func_param(btf, "arg", type);
	add_hook(btf, proto, "inode_setattr");
}

/*
 * A kernel's BTF: every hook of old_hooks, those of new_hooks if @newer,
 * inode_setattr in 6.1's shape or, if @newer, in 6.3's, and struct
 * fown_struct, with a member "file" if @newer.
 */
static struct btf *kernel_btf(bool newer)
{
	struct btf *btf = btf__new_empty();
	int int_id, ptr, proto;
	size_t i;

	int_id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	ptr = btf__add_ptr(btf, int_id);
	proto = btf__add_func_proto(btf, int_id);
	for (i = 0; i < sizeof(old_hooks) / sizeof(old_hooks[0]); i++)
		add_hook(btf, proto, old_hooks[i]);
	for (i = 0; newer && i < sizeof(new_hooks) / sizeof(new_hooks[0]); i++)
		add_hook(btf, proto, new_hooks[i]);
	add_setattr(btf, ptr, newer ? 3 : 2);
	btf__add_struct(btf, "fown_struct", 16);
	if (newer)
		btf__add_field(btf, "file", ptr, 0, 0);
	btf__add_field(btf, "signum", int_id, 64, 0);
	return btf;
}

static bool autoloads(struct revoke_bpf_skel *skel, const char *name)
{
	struct bpf_program *prog;

	prog = bpf_object__find_program_by_name(skel->obj, name);
	return prog && bpf_program__autoload(prog);
}

static bool skipped_as(const bool *skipped, const char *name)
{
	int i = revoke_prog_index(name);

	return i >= 0 && skipped[i];
}

static void test_btf_queries(void)
{
	struct btf *old = kernel_btf(false), *new = kernel_btf(true);

	CHECK("a hook the BTF has is found", revoke_btf_has_hook(old, "file_open"));
	CHECK("a hook the BTF lacks is not", !revoke_btf_has_hook(old, "file_truncate"));
	CHECK("the newer BTF has file_truncate", revoke_btf_has_hook(new, "file_truncate"));
	CHECK("no hook by a partial name", !revoke_btf_has_hook(old, "file_"));
	CHECK("fown_struct without file", !revoke_btf_has_member(old, "fown_struct", "file"));
	CHECK("fown_struct with file", revoke_btf_has_member(new, "fown_struct", "file"));
	CHECK("inode_setattr's parameters counted, 6.1's shape",
	      revoke_btf_hook_nargs(old, "inode_setattr") == 2);
	CHECK("... and 6.3's", revoke_btf_hook_nargs(new, "inode_setattr") == 3);
	CHECK("no parameters counted of a hook the BTF lacks",
	      revoke_btf_hook_nargs(old, "inode_set_acl") == -1);
	CHECK("a member of a struct the BTF lacks",
	      !revoke_btf_has_member(new, "no_such_struct", "file"));
	btf__free(old);
	btf__free(new);
}

static void test_select_old_kernel(void)
{
	struct revoke_bpf_skel *skel = revoke_bpf_skel__open();
	struct btf *btf = kernel_btf(false);
	bool skipped[REVOKE_NR_PROGS];
	char err[256] = "";
	struct bpf_program *prog;
	int n, others = 0;

	n = store_select(skel->obj, btf, skipped, err, sizeof(err));
	CHECK("an older kernel skips nine programs", n == 9);
	CHECK("file_truncate is not loaded", !autoloads(skel, "revoke_file_truncate"));
	CHECK("... and is reported skipped", skipped_as(skipped, "revoke_file_truncate"));
	CHECK("mmap_backing_file is not loaded",
	      !autoloads(skel, "revoke_mmap_backing_file") &&
	      skipped_as(skipped, "revoke_mmap_backing_file"));
	CHECK("file_send_sigiotask, without fown_struct.file, is not loaded",
	      !autoloads(skel, "revoke_file_send_sigiotask") &&
	      skipped_as(skipped, "revoke_file_send_sigiotask"));
	bpf_object__for_each_program(prog, skel->obj)
		others += bpf_program__autoload(prog);
	CHECK("inode_setattr in 6.3's shape is not loaded",
	      !autoloads(skel, "revoke_inode_setattr") &&
	      skipped_as(skipped, "revoke_inode_setattr"));
	CHECK("... in 6.1's is", autoloads(skel, "revoke_inode_setattr_6_1"));
	CHECK("the ACL hooks of 6.2 are not loaded",
	      !autoloads(skel, "revoke_inode_set_acl") &&
	      skipped_as(skipped, "revoke_inode_get_acl"));
	CHECK("every other program is loaded", others == REVOKE_NR_PROGS - 9);
	CHECK("file_ioctl_compat is loaded", autoloads(skel, "revoke_file_ioctl_compat") &&
	      !skipped_as(skipped, "revoke_file_ioctl_compat"));
	btf__free(btf);
	revoke_bpf_skel__destroy(skel);
}

static void test_select_new_kernel(void)
{
	struct revoke_bpf_skel *skel = revoke_bpf_skel__open();
	struct btf *btf = kernel_btf(true);
	bool skipped[REVOKE_NR_PROGS];
	char err[256] = "";
	int i, none = 1;

	CHECK("a newer kernel skips only inode_setattr in 6.1's shape",
	      store_select(skel->obj, btf, skipped, err, sizeof(err)) == 1);
	for (i = 0; i < REVOKE_NR_PROGS; i++)
		none &= !skipped[i] ||
			i == revoke_prog_index("revoke_inode_setattr_6_1");
	CHECK("... and reports nothing else skipped", none);
	CHECK("file_truncate is loaded", autoloads(skel, "revoke_file_truncate"));
	CHECK("inode_setattr in 6.3's shape is loaded",
	      autoloads(skel, "revoke_inode_setattr") &&
	      !autoloads(skel, "revoke_inode_setattr_6_1"));
	btf__free(btf);
	revoke_bpf_skel__destroy(skel);
}

static void test_names(void)
{
	struct revoke_bpf_skel *skel = revoke_bpf_skel__open();
	struct bpf_program *prog;
	int n = 0, named = 0;

	bpf_object__for_each_program(prog, skel->obj) {
		n++;
		named += revoke_prog_index(bpf_program__name(prog)) >= 0;
	}
	CHECK("revoke_prog_names lists every program of the object",
	      n == REVOKE_NR_PROGS && named == n);
	prog = bpf_object__find_program_by_name(skel->obj, "revoke_file_truncate");
	CHECK("a program's hook is its section's name after lsm/",
	      prog && !strcmp(revoke_prog_hook(prog), "file_truncate"));
	revoke_bpf_skel__destroy(skel);
}

int main(void)
{
	test_btf_queries();
	test_select_old_kernel();
	test_select_new_kernel();
	test_names();
	return tap_done();
}
