// SPDX-License-Identifier: GPL-2.0
/*
 * pipebench - the pipeline's mechanics on the host, timed on real
 * hardware: holder discovery with the BPF iterators, then every holder
 * with a mapping stopped, its mapping replaced by injected calls, and let
 * go; what "add" does after the map update, but without BPF LSM.
 *
 *	pipebench PROCS MAPS ROUNDS
 *
 * The host kernel refuses the enforcement programs, so the maps are made
 * here, as the unit tests make them (tests/unit/maps.h), and nothing is
 * denied.  Each round starts build/bench/swarm (PROCS processes with 10
 * descriptors each of a fresh 4 KiB file, MAPS of them mapping it), runs
 * pipeline_run() on the file (no release), checks that every mapping was
 * replaced and nothing failed, and ends the swarm.  Prints one JSON
 * object: each round's discovery and pipeline time in milliseconds.
 *
 * Populations with blocked readers are left to the guest: without the
 * hooks a woken read() restarts and blocks again, so the drain would
 * only measure its timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/key.h"
#include "maps.h"
#include "pipeline/pipeline.h"

#define SWARM "build/bench/swarm"
#define MAX_ROUNDS 101

/* Start the swarm on @path; return its pid once it is ready, or -1. */
static pid_t swarm_start(const char *procs, const char *maps, const char *path)
{
	char buf[16] = "";
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		close(p[0]);
		close(p[1]);
		execl(SWARM, SWARM, procs, "10", "0", maps, path, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (read(p[0], buf, sizeof(buf) - 1) <= 0 || strncmp(buf, "ready", 5)) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

static void swarm_stop(pid_t pid)
{
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

/* A fresh 4 KiB file named from the template @path, and its key. */
static int make_file(char *path, struct revoke_key *key)
{
	static const char page[4096];
	struct stat st;
	int fd, err = 0;

	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	if (write(fd, page, sizeof(page)) != sizeof(page) || fstat(fd, &st))
		err = -EIO;
	else if (revoke_kdev_from_stdev(st.st_dev, &key->dev))
		err = -EINVAL;
	key->ino = st.st_ino;
	close(fd);
	return err;
}

/* One round; 0, or -1 with the reason on stderr. */
static int round_once(struct pipeline *pl, const char *procs, const char *maps,
		      double *discover_ms, double *pipeline_ms)
{
	const struct pipeline_opts opts = { .release = REVOKE_RELEASE_NO,
					    .timeout_ms = PIPELINE_TIMEOUT_DEFAULT_MS };
	char path[] = "/tmp/pipebench.XXXXXX";
	struct pipeline_result res;
	struct revoke_key key = {};
	pid_t pid;
	int err;

	if (make_file(path, &key)) {
		fprintf(stderr, "pipebench: cannot make %s\n", path);
		unlink(path);
		return -1;
	}
	pid = swarm_start(procs, maps, path);
	if (pid < 0) {
		fprintf(stderr, "pipebench: %s did not start\n", SWARM);
		unlink(path);
		return -1;
	}
	err = pipeline_run(pl, &key, &opts, &res);
	swarm_stop(pid);
	unlink(path);
	if (err) {
		fprintf(stderr, "pipebench: pipeline_run: %s\n", strerror(-err));
		return -1;
	}
	*discover_ms = (double)res.discover_us / 1e3;
	*pipeline_ms = (double)res.total_us / 1e3;
	err = res.rep.failed || res.rep.unmapped != (uint32_t)atoi(maps);
	if (err)
		fprintf(stderr, "pipebench: %u mappings replaced of %s, %u failures\n",
			res.rep.unmapped, maps, res.rep.failed);
	pipeline_result_free(&res);
	return err ? -1 : 0;
}

static void print_list(const char *name, const double *v, int n)
{
	int i;

	printf(", \"%s\": [", name);
	for (i = 0; i < n; i++)
		printf("%s%.3f", i ? ", " : "", v[i]);
	printf("]");
}

int main(int argc, char **argv)
{
	double discover[MAX_ROUNDS], total[MAX_ROUNDS];
	struct store rb = {};
	struct pipeline pl;
	int rounds, i;

	if (argc != 4 || atoi(argv[1]) < 1 || atoi(argv[2]) < 0 ||
	    atoi(argv[2]) > atoi(argv[1]) || (rounds = atoi(argv[3])) < 1 ||
	    rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: pipebench PROCS MAPS ROUNDS "
			"(MAPS <= PROCS, 1 to %d rounds)\n", MAX_ROUNDS);
		return 2;
	}
	if (test_maps_create(&rb, 65536)) {
		fprintf(stderr, "pipebench: cannot create the maps (run as root)\n");
		return 1;
	}
	pipeline_init(&pl, &rb);
	if (!pl.ready) {
		fprintf(stderr, "pipebench: %s\n", pl.why);
		return 1;
	}
	for (i = 0; i < rounds; i++)
		if (round_once(&pl, argv[1], argv[2], &discover[i], &total[i]))
			return 1;
	printf("{\"procs\": %d, \"fds\": %d, \"maps\": %d", atoi(argv[1]),
	       10 * atoi(argv[1]), atoi(argv[2]));
	print_list("discover_ms", discover, rounds);
	print_list("pipeline_ms", total, rounds);
	printf("}\n");
	pipeline_fini(&pl);
	return 0;
}
