// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/store/pause_set.c on real BPF maps: pause_devs
 * counts the users of each device, pause_majors names their majors, the
 * hooks are armed while one is paused, a restart's count puts a lost pause_devs entry back, and the
 * paused users' slices are found in a cgroup tree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "store/pause_set.h"
#include "maps.h"
#include "tap.h"

static struct store rb;

/* How many users "pause_devs" says @dev is paused for (0: no entry). */
static uint32_t users_of(uint32_t rdev)
{
	struct revoke_rdev_key dev = { .rdev = rdev, .type = REVOKE_RDEV_CHAR };
	uint32_t n = 0;

	bpf_map_lookup_elem(rb.pause_devs_fd, &dev, &n);
	return n;
}

/* Is @major's bit set in "pause_majors"? */
static int major_set(uint32_t major)
{
	struct revoke_pause_majors m = {};
	uint32_t zero = 0;

	bpf_map_lookup_elem(rb.pause_majors_fd, &zero, &m);
	return !!(m.bits[major / 64] & (1ULL << (major % 64)));
}

static int slices(void)
{
	uint64_t id, next;
	void *prev = NULL;
	int n = 0;

	while (!bpf_map_get_next_key(rb.pause_slices_fd, prev, &next)) {
		id = next;
		prev = &id;
		n++;
	}
	return n;
}

int main(void)
{
	struct revoke_pause_key a = { .rdev = (116u << 20) | 3,
				      .type = REVOKE_RDEV_CHAR, .uid = 1001 };
	struct revoke_pause_key b = a;
	struct revoke_pause_val v = {};
	struct revoke_rdev_key dev = { .rdev = a.rdev, .type = a.type };
	char root[] = "/tmp/pause_set.XXXXXX", path[128];
	struct stat st;
	struct revoke_pause_slice s = {};
	uint64_t id;
	enum revoke_change ch;

	b.uid = 1002;
	if (test_maps_create(&rb, 64)) {
		printf("Bail out! cannot create BPF maps (run as root)\n");
		return 1;
	}
	CHECK("a pause counts its device's user and arms the hooks for pauses only",
	      pause_set_add(&rb, &a, ENODEV, "admin", "", 0, &ch) == 0 &&
	      ch == REVOKE_ADDED && users_of(a.rdev) == 1 &&
	      test_armed(&rb) == REVOKE_ARMED_PAUSES);
	CHECK("a pause sets its device's major in pause_majors, and no other",
	      major_set(116) && !major_set(1) && !major_set(117) &&
	      !major_set(52));
	CHECK("the same device for a second user counts two",
	      pause_set_add(&rb, &b, EIO, "seat", "sound", 0, &ch) == 0 &&
	      ch == REVOKE_ADDED && users_of(a.rdev) == 2);
	CHECK("pausing again says already, takes the new errno, keeps the cause",
	      pause_set_add(&rb, &a, EIO, "other", "", 0, &ch) == 0 &&
	      ch == REVOKE_ALREADY && users_of(a.rdev) == 2 &&
	      pause_set_get(&rb, &a, &v) == 0 && v.err == EIO &&
	      !strcmp(v.cause, "admin") && v.flags == 0);
	CHECK("pausing again with --revoke marks it revoked, and a pause without keeps the mark",
	      pause_set_add(&rb, &a, EIO, "other", "", REVOKE_PAUSE_REVOKE,
			    &ch) == 0 && ch == REVOKE_ALREADY &&
	      pause_set_get(&rb, &a, &v) == 0 &&
	      v.flags == REVOKE_PAUSE_REVOKE &&
	      pause_set_add(&rb, &a, EIO, "other", "", 0, &ch) == 0 &&
	      pause_set_get(&rb, &a, &v) == 0 &&
	      v.flags == REVOKE_PAUSE_REVOKE);
	CHECK("a pause's cause can be taken over, its errno and time kept",
	      pause_set_cause(&rb, &a, "admin2") == 0 &&
	      pause_set_get(&rb, &a, &v) == 0 && !strcmp(v.cause, "admin2") &&
	      v.err == EIO && v.paused_at > 0 &&
	      pause_set_cause(&rb, &(struct revoke_pause_key){ .uid = 7 },
			      "x") == -ENOENT);
	CHECK("a resume counts one user less, the device still paused for the other",
	      pause_set_del(&rb, &a, &ch) == 0 && ch == REVOKE_DELETED &&
	      users_of(a.rdev) == 1 && test_armed(&rb) == REVOKE_ARMED_PAUSES);
	CHECK("a resume of what is not paused says absent and changes nothing",
	      pause_set_del(&rb, &a, &ch) == 0 && ch == REVOKE_ABSENT &&
	      users_of(a.rdev) == 1);
	bpf_map_delete_elem(rb.pause_devs_fd, &dev);
	bpf_map_update_elem(rb.pause_majors_fd, &(uint32_t){ 0 },
			    &(struct revoke_pause_majors){ .bits = { ~0ULL } },
			    BPF_ANY);
	CHECK("a restart's count makes pause_majors the majors paused: a lost bit back, others cleared",
	      pause_set_sync(&rb) == 0 && major_set(116) && !major_set(1));
	bpf_map_delete_elem(rb.pause_devs_fd, &dev);
	CHECK("a lost pause_devs entry is put back by a restart's count",
	      pause_set_sync(&rb) == 0 && users_of(a.rdev) == 1 &&
	      test_armed(&rb) == REVOKE_ARMED_PAUSES);
	CHECK("the last resume drops the device and disarms",
	      pause_set_del(&rb, &b, &ch) == 0 && ch == REVOKE_DELETED &&
	      users_of(a.rdev) == 0 && test_armed(&rb) == 0);
	CHECK("and clears its major in pause_majors",
	      !major_set(116));
	{
		struct revoke_pause_key c = a, e = a;

		c.rdev = (116u << 20) | 4;	/* another device of major 116 */
		e.rdev = (13u << 20) | 64;	/* an evdev node */
		pause_set_add(&rb, &a, ENODEV, "admin", "", 0, &ch);
		pause_set_add(&rb, &c, ENODEV, "admin", "", 0, &ch);
		pause_set_add(&rb, &e, ENODEV, "admin", "", 0, &ch);
		CHECK("a resume of one of two devices of a major keeps its bit",
		      pause_set_del(&rb, &a, &ch) == 0 && major_set(116) &&
		      major_set(13));
		CHECK("the resume of the last of a major clears its bit and leaves the others'",
		      pause_set_del(&rb, &c, &ch) == 0 && !major_set(116) &&
		      major_set(13));
		pause_set_del(&rb, &e, &ch);
	}

	/* a cgroup tree: user.slice/user-1001.slice exists, 1002's does not */
	if (!mkdtemp(root))
		return 1;
	snprintf(path, sizeof(path), "%s/user.slice", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/user.slice/user-1001.slice", root);
	mkdir(path, 0755);
	stat(path, &st);
	id = st.st_ino;
	pause_set_add(&rb, &a, ENODEV, "admin", "", 0, &ch);
	pause_set_add(&rb, &b, ENODEV, "admin", "", 0, &ch);
	CHECK("the slice of a paused user with one is put in, by its cgroup id, at level 2",
	      pause_set_slices(&rb, root) == 0 && slices() == 1 &&
	      bpf_map_lookup_elem(rb.pause_slices_fd, &id, &s) == 0 &&
	      s.uid == 1001 && s.level == 2);
	pause_set_del(&rb, &a, &ch);
	CHECK("and taken out once that user has no pause left",
	      pause_set_slices(&rb, root) == 0 && slices() == 0);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/user.slice", root);
	rmdir(path);
	rmdir(root);
	return tap_done();
}
