// SPDX-License-Identifier: GPL-2.0
/*
 * discover - the first step of "add" alone, timed where it can run on
 * real hardware: finding every holder of a file with the BPF iterators.
 *
 *	discover PATH ROUNDS
 *
 * The iterators of bpf/holders.bpf.c need no BPF LSM, so they load on a
 * host kernel that refuses the enforcement programs.  discover loads
 * them once, runs holders_find() on PATH's inode ROUNDS times, and prints
 * one JSON object: each round's time in milliseconds and what the last
 * round found.  bench/run times fuser and lsof on the same population.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/key.h"
#include "pipeline/pipeline.h"

#define MAX_ROUNDS 101

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int key_of(const char *path, struct revoke_key *key)
{
	struct stat st;

	if (stat(path, &st)) {
		fprintf(stderr, "discover: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (revoke_kdev_from_stdev(st.st_dev, &key->dev)) {
		fprintf(stderr, "discover: %s: device number out of range\n", path);
		return -1;
	}
	key->ino = st.st_ino;
	return 0;
}

int main(int argc, char **argv)
{
	double ms[MAX_ROUNDS], t0;
	struct revoke_key key = {};
	struct holder_set set = {};
	struct holders h;
	char why[256];
	int rounds, i, err;

	if (argc != 3 || (rounds = atoi(argv[2])) < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: discover PATH ROUNDS (1 to %d)\n", MAX_ROUNDS);
		return 2;
	}
	if (key_of(argv[1], &key))
		return 1;
	if (holders_open(&h, NULL, why, sizeof(why))) {
		fprintf(stderr, "discover: %s\n", why);
		return 1;
	}
	for (i = 0; i < rounds; i++) {
		holder_set_free(&set);
		t0 = now_ms();
		err = holders_find(&h, &key, &set);
		ms[i] = now_ms() - t0;
		if (err) {
			fprintf(stderr, "discover: holders_find: %s\n", strerror(-err));
			holders_close(&h);
			return 1;
		}
	}
	printf("{\"procs\": %zu, \"fds\": %zu, \"vmas\": %zu, \"ms\": [",
	       set.nr, set.nfds, set.nvmas);
	for (i = 0; i < rounds; i++)
		printf("%s%.3f", i ? ", " : "", ms[i]);
	printf("]}\n");
	holder_set_free(&set);
	holders_close(&h);
	return 0;
}
