// SPDX-License-Identifier: GPL-2.0
/*
 * test_fs_pins.c - the parsers and orderings of src/umount/umount.h
 * on fixture text: mountinfo (escaped paths, optional fields), the
 * mount tree (depths, submounts, innermost first), prefix matching,
 * /proc/swaps, backing_file, and the pin and unpin lines.  The same on
 * a real kernel: tests/vm/fs_pins.bats.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "common/common.h"
#include "umount/umount.h"
#include "tap.h"

/* A namespace's mounts: / (ext4 8:1), /mnt/a b (7:0, shared), a tmpfs
 * below it, the same ext4 7:0 bound again at /srv, and a tmpfs stacked
 * on /srv over it. */
static const char mountinfo[] =
	"21 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	"30 21 7:0 / /mnt/a\\040b rw,relatime shared:7 master:2 - ext4 /dev/loop0 rw\n"
	"31 30 0:45 / /mnt/a\\040b/sub rw - tmpfs sub\\040fs rw\n"
	"32 21 7:0 /dir /srv rw - ext4 /dev/loop0 rw\n"
	"33 32 0:46 / /srv rw - tmpfs over rw\n"
	"34 21 0:47 / /mnt/ab rw - tmpfs t rw\n";

static void test_unescape(void)
{
	char s[] = "a\\040b\\011c\\012d\\134e\\04f\\";

	fs_mounts_unescape(s);
	CHECK("unescape: \\040 \\011 \\012 \\134; a short escape is kept",
	      !strcmp(s, "a b\tc\nd\\e\\04f\\"));
}

static void test_parse(void)
{
	const char *no_dash = "21 1 8:1 / / rw shared:1 ext4 /dev/sda1 rw\n";
	const char *no_min = "21 1 8 / / rw - ext4 /dev/sda1 rw\n";
	struct fs_mount_table t;
	int err;

	err = fs_mounts_parse(mountinfo, strlen(mountinfo), &t);
	CHECK("parse: every line", err == 0 && t.nr == 6);
	if (err)
		return;
	CHECK("parse: ids, dev", t.m[1].id == 30 && t.m[1].parent == 21 &&
	      t.m[1].dev == makedev(7, 0));
	CHECK("parse: an escaped mount point",
	      !strcmp(t.m[1].path, "/mnt/a b"));
	CHECK("parse: fstype and source after the optional fields",
	      !strcmp(t.m[1].fstype, "ext4") &&
	      !strcmp(t.m[1].source, "/dev/loop0"));
	CHECK("parse: an escaped source", !strcmp(t.m[2].source, "sub fs"));
	CHECK("parse: root within the filesystem",
	      !strcmp(t.m[3].root, "/dir"));
	CHECK("parse: depths", t.m[0].depth == 0 && t.m[1].depth == 1 &&
	      t.m[2].depth == 2 && t.m[4].depth == 2);
	CHECK("below: the tmpfs under 7:0, and the one stacked on its bind",
	      fs_mounts_below(&t, 2, makedev(7, 0)) &&
	      fs_mounts_below(&t, 4, makedev(7, 0)));
	CHECK("below: not the mounts of 7:0 themselves, nor a sibling",
	      !fs_mounts_below(&t, 1, makedev(7, 0)) &&
	      !fs_mounts_below(&t, 5, makedev(7, 0)));
	fs_mounts_table_free(&t);

	err = fs_mounts_parse(no_dash, strlen(no_dash), &t);
	CHECK("parse: a line without its \"-\" is refused", err == -EINVAL);
	err = fs_mounts_parse(no_min, strlen(no_min), &t);
	CHECK("parse: a dev without MAJ:MIN is refused", err == -EINVAL);
}

static void test_prefix(void)
{
	CHECK("prefix: a path under it",
	      fs_mounts_is_prefix("/mnt/a b", "/mnt/a b/swap"));
	CHECK("prefix: the mount point itself",
	      fs_mounts_is_prefix("/mnt", "/mnt"));
	CHECK("prefix: not a longer name", !fs_mounts_is_prefix("/mnt", "/mnt2/x"));
	CHECK("prefix: / holds everything", fs_mounts_is_prefix("/", "/x/y"));
}

static void test_lookup(void)
{
	struct fs_mount_table t;
	const struct fs_mount *m;

	if (fs_mounts_parse(mountinfo, strlen(mountinfo), &t))
		return;
	m = fs_mounts_lookup(&t, "/mnt/a b/swap file");
	CHECK("lookup: the longest prefix", m && m->id == 30);
	m = fs_mounts_lookup(&t, "/mnt/a b/sub/x");
	CHECK("lookup: a submount's file is the submount's", m && m->id == 31);
	m = fs_mounts_lookup(&t, "/mnt/ab/x");
	CHECK("lookup: /mnt/a b is no prefix of /mnt/ab", m && m->id == 34);
	m = fs_mounts_lookup(&t, "/srv/img");
	CHECK("lookup: of two mounts on one point, the top one", m && m->id == 33);
	m = fs_mounts_lookup(&t, "/etc/x");
	CHECK("lookup: else the root", m && m->id == 21);
	CHECK("lookup: a relative path is on nothing",
	      !fs_mounts_lookup(&t, "x"));
	fs_mounts_table_free(&t);
}

static void test_sort(void)
{
	struct fs_pins_mount m[] = {
		{ .ns = 1, .id = 40, .depth = 1 },
		{ .ns = 0, .id = 30, .depth = 1 },
		{ .ns = 0, .id = 31, .depth = 2 },
		{ .ns = 1, .id = 41, .depth = 3 },
		{ .ns = 0, .id = 35, .depth = 1 },
	};

	fs_mounts_sort(m, 5);
	CHECK("sort: by namespace, innermost first, later mounts first",
	      m[0].id == 31 && m[1].id == 35 && m[2].id == 30 &&
	      m[3].id == 41 && m[4].id == 40);
}

static void test_swaps(void)
{
	char text[] =
		"Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
		"/mnt/a\\040b/swap\\040file               file\t\t8188\t\t0\t\t-2\n"
		"/dev/sdb2                               partition\t1048572\t\t0\t\t-3\n"
		"/mnt/x/old\\040(deleted)                 file\t\t8188\t\t0\t\t-4\n";
	char bad[] = "Filename Type\nswapfile file 1 0 -2\n";
	char empty[] = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";
	struct fs_swap_entry *e;
	size_t nr;
	int err;

	err = fs_swap_parse(text, &e, &nr);
	CHECK("swaps: three areas after the header", err == 0 && nr == 3);
	if (err)
		return;
	CHECK("swaps: an escaped file name", !strcmp(e[0].path,
						     "/mnt/a b/swap file") &&
	      e[0].is_file && !e[0].deleted && e[0].index == 0);
	CHECK("swaps: a partition", !e[1].is_file && e[1].index == 1);
	CHECK("swaps: a deleted file, its name without \" (deleted)\"",
	      e[2].deleted && !strcmp(e[2].path, "/mnt/x/old"));
	fs_swap_free(e, nr);
	CHECK("swaps: a relative name is refused",
	      fs_swap_parse(bad, &e, &nr) == -EINVAL);
	CHECK("swaps: none", fs_swap_parse(empty, &e, &nr) == 0 && nr == 0);
	fs_swap_free(e, nr);
}

static void test_backing(void)
{
	char a[] = "/mnt/a b/inner.img\n", b[] = "/mnt/x/gone.img (deleted)\n";

	fs_loops_backing_trim(a);
	fs_loops_backing_trim(b);
	CHECK("backing_file: newline and \" (deleted)\" off",
	      !strcmp(a, "/mnt/a b/inner.img") && !strcmp(b, "/mnt/x/gone.img"));
}

static void test_print(void)
{
	struct fs_ns ns[2] = { { 4026531841UL, 1, -1 }, { 4026532137UL, 260, -1 } };
	struct fs_pins_mount mnt[2] = {
		{ 1, 31, makedev(0, 45), "/mnt/a b/sub", 2, true },
		{ 1, 30, makedev(7, 0), "/mnt/a b", 1, false },
	};
	struct fs_pins_swap swap = { 0, "/mnt/a b/swap", 0 };
	struct fs_pins_loop loop = { 1, makedev(7, 1), "/mnt/a b/in.img", 0,
				     true, true, true, makedev(7, 1) };
	struct fs_pins p = {
		.s_dev = makedev(7, 0), .ns = ns, .nr_ns = 2, .mnt = mnt,
		.nr_mnt = 2, .swap = &swap, .nr_swap = 1, .loop = &loop,
		.nr_loop = 1,
	};
	struct fs_pins_step step[3] = {
		{ FS_PINS_SWAPOFF, "/mnt/a b/swap", 4026531841UL, 1, 0, false,
		  false, 0 },
		{ FS_PINS_DETACH, "/dev/loop1", 0, 0, makedev(7, 1), false,
		  false, EBUSY },
		{ FS_PINS_UMOUNT, "/mnt/a b/sub", 4026532137UL, 260,
		  makedev(0, 45), true, true, 0 },
	};
	struct fs_pins_report r = { step, 3, 1 };
	struct rbuf b = { 0 };

	fs_pins_print(&b, &p);
	CHECK("pin lines", b.data && !strcmp(b.data,
		"pin kind=mount ns=4026532137 pid=260 dev=0:45 path=/mnt/a%20b/sub submount=yes\n"
		"pin kind=mount ns=4026532137 pid=260 dev=7:0 path=/mnt/a%20b submount=no\n"
		"pin kind=swap ns=4026531841 pid=1 path=/mnt/a%20b/swap\n"
		"pin kind=loop rdev=7:1 backing=/mnt/a%20b/in.img ns=4026531841 match=path,status mounted=7:1\n"));
	rbuf_free(&b);
	memset(&b, 0, sizeof(b));
	fs_release_print(&b, &p, &r);
	CHECK("unpin lines", b.data && !strcmp(b.data,
		"unpin step=swapoff ns=4026531841 pid=1 path=/mnt/a%20b/swap result=done\n"
		"unpin step=detach rdev=7:1 path=/dev/loop1 mounted=7:1 result=failed reason=EBUSY\n"
		"unpin step=umount ns=4026532137 pid=260 path=/mnt/a%20b/sub dev=0:45 submount=yes result=gone\n"));
	rbuf_free(&b);
}

int main(void)
{
	test_unescape();
	test_parse();
	test_prefix();
	test_lookup();
	test_sort();
	test_swaps();
	test_backing();
	test_print();
	return tap_done();
}
