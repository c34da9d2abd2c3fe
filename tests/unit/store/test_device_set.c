// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/store/device_set.c on real BPF maps: the device set's
 * fast-path counter, removal stamps, and the files remembered after a
 * removal being forgotten once no device is revoked.
 */
#include <errno.h>
#include <string.h>

#include <bpf/bpf.h>

#include "store/device_set.h"
#include "maps.h"
#include "tap.h"

static struct store rb;

static uint64_t nr_rdev(void)
{
	struct revoke_rdev_state st = {};
	uint32_t zero = 0;

	bpf_map_lookup_elem(rb.rdev_state_fd, &zero, &st);
	return st.nr_rdev;
}

static struct revoke_rdev_val val_of(const struct revoke_rdev_key *k)
{
	struct revoke_rdev_val v = {};

	bpf_map_lookup_elem(rb.rdev_fd, k, &v);
	return v;
}

int main(void)
{
	struct revoke_rdev_key tty = { .rdev = (188u << 20) | 0,
				       .type = REVOKE_RDEV_CHAR };
	struct revoke_rdev_key disk = { .rdev = (8u << 20) | 0,
					.type = REVOKE_RDEV_BLOCK };
	enum revoke_change ch;
	uint64_t addr = 0xffff888012345678ull, stamp = 1, n;
	uint64_t first;

	if (test_maps_create(&rb, 64)) {
		printf("Bail out! cannot create BPF maps (run as root)\n");
		return 1;
	}
	CHECK("add counts the device before add returns",
	      device_set_add(&rb, &tty, "admin", false, &ch) == 0 &&
	      ch == REVOKE_ADDED && nr_rdev() == 1);
	CHECK("and arms the hooks for devices only",
	      test_armed(&rb) == REVOKE_ARMED_DEVICES);
	CHECK("a new entry is not removed and keeps its cause",
	      val_of(&tty).removed_ns == 0 && !strcmp(val_of(&tty).cause, "admin") &&
	      val_of(&tty).revoked_at > 0);
	CHECK("add again says already and changes nothing",
	      device_set_add(&rb, &tty, "udev", false, &ch) == 0 &&
	      ch == REVOKE_ALREADY && nr_rdev() == 1 &&
	      !strcmp(val_of(&tty).cause, "admin") && val_of(&tty).removed_ns == 0);
	CHECK("add removed stamps the removal",
	      device_set_add(&rb, &tty, "udev", true, &ch) == 0 &&
	      ch == REVOKE_ALREADY && val_of(&tty).removed_ns > 0);
	first = val_of(&tty).removed_ns;
	CHECK("a second removal stamps again, later",
	      device_set_add(&rb, &tty, "udev", true, &ch) == 0 &&
	      val_of(&tty).removed_ns > first);
	CHECK("the same number as a block device is another entry",
	      device_set_add(&rb, &disk, "admin", true, &ch) == 0 &&
	      ch == REVOKE_ADDED && nr_rdev() == 2 &&
	      val_of(&disk).removed_ns > 0);
	bpf_map_update_elem(rb.rdev_files_fd, &addr, &stamp, BPF_ANY);
	CHECK("del of one device keeps the files of the other",
	      device_set_del(&rb, &disk, &ch) == 0 && ch == REVOKE_DELETED &&
	      nr_rdev() == 1 &&
	      bpf_map_lookup_elem(rb.rdev_files_fd, &addr, &stamp) == 0);
	CHECK("del of a device that is not revoked says absent",
	      device_set_del(&rb, &disk, &ch) == 0 && ch == REVOKE_ABSENT &&
	      nr_rdev() == 1);
	CHECK("del of the last device zeroes the counter and forgets the files",
	      device_set_del(&rb, &tty, &ch) == 0 && ch == REVOKE_DELETED &&
	      nr_rdev() == 0 &&
	      bpf_map_lookup_elem(rb.rdev_files_fd, &addr, &stamp) < 0 &&
	      errno == ENOENT);
	CHECK("and disarms the hooks", test_armed(&rb) == 0);
	CHECK("count and sync agree with the map",
	      device_set_add(&rb, &tty, "admin", false, &ch) == 0 &&
	      device_set_count(&rb, &n) == 0 && n == 1 &&
	      device_set_sync(&rb, &n) == 0 && n == 1 && nr_rdev() == 1);
	return tap_done();
}
