// SPDX-License-Identifier: GPL-2.0
/*
 * daemon.c - revoke-bpfd's main: parse the options, check for BPF LSM,
 * load (or adopt) and pin the enforcement programs, then serve the
 * control socket until SIGTERM or SIGINT; SIGHUP rereads the policy and
 * the declared files (declared.c).
 *
 * Connections are served together by one event loop (ctl_loop.c); each
 * complete request is answered at once by its verb (verbs.c).  Between
 * requests the loop forwards the programs' denial events (events.c) and,
 * with "source netlink", reads the kernel's uevents (devices.c).  A long
 * add or umount lets the loop turn at its safe points (busy.c): list,
 * status, holders and events are answered meanwhile, the requests that
 * change something wait for it to end.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "daemon.h"
#include "inject/inject.h"
#include "lsm_check.h"
#include "pipeline/pipeline.h"
#include "store/store.h"

#ifndef REVOKE_VERSION
#define REVOKE_VERSION "0.0.0"
#endif

/* what each exit status says, for --help; revoke-bpfd(8) says the same */
static const struct {
	enum daemon_exit code;
	const char *what;
} daemon_exits[] = {
	{ DAEMON_EXIT_OK, "stopped by SIGTERM, SIGINT or 'revoke-bpf unload'" },
	{ DAEMON_EXIT_FAILURE, "failed; a restart may succeed" },
	{ DAEMON_EXIT_USAGE, "a bad option or argument" },
	{ DAEMON_EXIT_NO_BPF_LSM, "BPF LSM is not active, or the list of active "
				  "LSMs cannot be read" },
	{ DAEMON_EXIT_NOT_ROOT, "not run as root" },
	{ DAEMON_EXIT_CONFIG, "a bad --policy file, or a --group that does "
			      "not exist" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"Usage: revoke-bpfd [OPTION]...\n"
		"Load the revoke-bpf BPF LSM programs, pin them under %s so that\n"
		"they keep enforcing without the daemon, and serve revoke-bpf(8)\n"
		"requests on %s.  Runs in the foreground; ready once\n"
		"'revoke-bpf status' succeeds (and, under systemd, once it has sent\n"
		"READY=1).\n"
		"\n"
		"  --pin-dir DIR       pin directory on a BPF filesystem (default %s)\n"
		"  --socket PATH       control socket (default %s)\n"
		"  --max-entries N     capacity of the revoked set when it is created\n"
		"                      (default %d; an adopted set keeps its size)\n"
		"  --group NAME        members of this group may add, del, umount,\n"
		"                      reload, holders and events too; never uevent\n"
		"                      or unload (default: root only)\n"
		"  --proc DIR          procfs to search for holders (default /proc)\n"
		"  --policy FILE       which removed devices to revoke, and how\n"
		"                      (default %s; reread on SIGHUP\n"
		"                      and 'revoke-bpf reload')\n"
		"  --declared DIR      the declared revocations, DIR/*.conf, one\n"
		"                      'revoke-bpf add' line each (default %s;\n"
		"                      reread on a change, SIGHUP and reload)\n"
		"  --detach-after S    detach the programs S seconds after the last\n"
		"                      revocation is lifted (default %d; 0: at once)\n"
		"  -v, --verbose       print libbpf's debug output\n"
		"  -h, --help          show this help\n"
		"  -V, --version       show the version\n"
		"\n"
		"Exit status (from 2 on, a restart cannot help):\n",
		REVOKE_PIN_DIR, REVOKE_SOCKET_PATH, REVOKE_PIN_DIR,
		REVOKE_SOCKET_PATH, REVOKE_MAX_ENTRIES_DEFAULT, POLICY_PATH_DEFAULT,
		DECLARED_DIR_DEFAULT, DETACH_AFTER_DEFAULT_S);
	for (i = 0; i < sizeof(daemon_exits) / sizeof(daemon_exits[0]); i++)
		fprintf(f, "  %d  %s\n", daemon_exits[i].code,
			daemon_exits[i].what);
}

struct options {
	const char *pin_dir;
	const char *socket_path;
	const char *proc;
	const char *group;
	const char *policy;
	const char *declared;
	uint32_t max_entries;
	uint32_t detach_after_s;
	bool verbose;
};

/*
 * getopt_long()'s '?', said as an error of ours: @arg is the argument it
 * stopped after, unless an unknown short option is not the last of its
 * argument ("-xv"), which optopt names.
 */
static void bad_option(const char *arg)
{
	const char *eq = strchr(arg, '=');

	if (!optopt)
		log_err("unrecognized option '%s'; try 'revoke-bpfd --help'\n",
			arg);
	else if (!strncmp(arg, "--", 2) && eq)
		log_err("option '%.*s' takes no argument; try "
			"'revoke-bpfd --help'\n", (int)(eq - arg), arg);
	else
		log_err("invalid option '-%c'; try 'revoke-bpfd --help'\n",
			optopt);
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "pin-dir", required_argument, NULL, 'p' },
		{ "socket", required_argument, NULL, 's' },
		{ "max-entries", required_argument, NULL, 'm' },
		{ "group", required_argument, NULL, 'g' },
		{ "proc", required_argument, NULL, 'P' },
		{ "policy", required_argument, NULL, 'y' },
		{ "declared", required_argument, NULL, 'D' },
		{ "detach-after", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	uint64_t n;
	int c;

	opterr = 0;	/* its complaints are ours to log, as errors */
	while ((c = getopt_long(argc, argv, ":vhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			o->pin_dir = optarg;
			break;
		case 's':
			o->socket_path = optarg;
			break;
		case 'P':
			o->proc = optarg;
			break;
		case 'g':
			o->group = optarg;
			break;
		case 'y':
			o->policy = optarg;
			break;
		case 'D':
			o->declared = optarg;
			break;
		case 'm':
			if (revoke_parse_u64(optarg, &n) || n == 0 ||
			    n > REVOKE_TABLE_MAX_ENTRIES) {
				log_err("--max-entries '%s' is not "
					"a number from 1 to %u\n", optarg,
					REVOKE_TABLE_MAX_ENTRIES);
				return DAEMON_EXIT_USAGE;
			}
			o->max_entries = (uint32_t)n;
			break;
		case 'd':
			if (revoke_parse_u64(optarg, &n) ||
			    n > DETACH_AFTER_MAX_S) {
				log_err("--detach-after '%s' is not a number of "
					"seconds from 0 to %u\n", optarg,
					DETACH_AFTER_MAX_S);
				return DAEMON_EXIT_USAGE;
			}
			o->detach_after_s = (uint32_t)n;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			usage(stdout);
			return DAEMON_EXIT_OK;
		case 'V':
			printf("revoke-bpfd %s\n", REVOKE_VERSION);
			return DAEMON_EXIT_OK;
		case ':':
			log_err("option '%s' needs an argument; try "
				"'revoke-bpfd --help'\n", argv[optind - 1]);
			return DAEMON_EXIT_USAGE;
		default:
			bad_option(argv[optind - 1]);
			return DAEMON_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		log_err("unexpected argument '%s'; "
			"try 'revoke-bpfd --help'\n", argv[optind]);
		return DAEMON_EXIT_USAGE;
	}
	return -1;
}

static int resolve_group(struct daemon *d, const char *name)
{
	struct group *gr;

	if (!name)
		return 0;
	gr = getgrnam(name);
	if (!gr) {
		log_err("--group '%s': no such group\n", name);
		return -ENOENT;
	}
	d->group_name = name;
	d->group = gr->gr_gid;
	return 0;
}

static int signal_fd(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	signal(SIGPIPE, SIG_IGN);
	return signalfd(-1, &set, SFD_CLOEXEC);
}

static int check_lsm(struct daemon *d)
{
	char advice[1024];
	int err;

	err = revoke_lsm_list(d->lsm, sizeof(d->lsm));
	if (err) {
		log_err("cannot read %s: %s; mount securityfs with "
			"'mount -t securityfs none /sys/kernel/security'\n",
			REVOKE_LSM_FILE, strerror(-err));
		return err;
	}
	if (!revoke_lsm_has_bpf(d->lsm)) {
		revoke_lsm_advice(d->lsm, advice, sizeof(advice));
		log_err("%s\n", advice);
		return -ENOTSUP;
	}
	return 0;
}

/* SIGTERM and SIGINT end the loop, SIGHUP rereads the policy. */
static void read_signal(void *arg)
{
	struct daemon *d = arg;
	struct signalfd_siginfo si;
	char err[512];

	if (read(d->signal_fd, &si, sizeof(si)) != sizeof(si))
		return;
	if (si.ssi_signo == SIGHUP) {
		devices_reload_policy(d, err, sizeof(err));
		declared_apply(d);
		return;
	}
	log_info("%s, exiting; the pinned programs keep enforcing\n",
		 strsignal((int)si.ssi_signo));
	d->quit = true;
}

static void read_events(void *arg)
{
	struct daemon *d = arg;

	revoke_events_consume(&d->events);
}

static bool loop_done(void *ctx)
{
	return ((struct daemon *)ctx)->quit;
}

/* Log each attach and detach once, as the loop comes round. */
static void log_attach(struct daemon *d)
{
	char kept[48] = "";

	if (d->rb.last_kept)
		snprintf(kept, sizeof(kept), " (%d kept from the detach under "
			 "way)", d->rb.last_kept);
	if (d->rb.attaches != d->logged_attaches)
		log_info("attached %d programs in %.1f ms before the first "
			 "revocation%s\n", store_count_attached(d->rb.pin_dir),
			 d->rb.last_attach_us / 1000.0, kept);
	if (d->rb.detaches != d->logged_detaches)
		log_info("nothing revoked for %u s: programs detached\n",
			 d->detach_after_ms / 1000);
	d->logged_attaches = d->rb.attaches;
	d->logged_detaches = d->rb.detaches;
}

/*
 * Threads that stopped late are let go within 50 ms; the programs are
 * detached once nothing has been revoked for --detach-after.
 */
static int loop_tick(void *ctx)
{
	struct daemon *d = ctx;
	uint64_t now = ctl_now_ms();
	int idle;

	idle = store_idle_tick(&d->rb, now, d->detach_after_ms);
	log_attach(d);
	notify_status(d, now);
	if (tracee_reap())
		return idle < 0 || idle > 50 ? 50 : idle;
	return idle;
}

static void loop_unstream(int fd, void *ctx)
{
	revoke_events_unsubscribe(&((struct daemon *)ctx)->events, fd);
}

static void events_dropped(int fd, void *arg)
{
	ctl_loop_drop_stream(arg, fd);
}

static const struct ctl_loop_ops loop_ops = {
	.handle = busy_handle,
	.may_act = verbs_may_send_fd,
	.may_nest = busy_may_nest,
	.unstream = loop_unstream,
	.tick = loop_tick,
	.done = loop_done,
};

static int serve(struct daemon *d, int lfd)
{
	int ret;

	ret = ctl_loop_init(&d->loop, lfd, &loop_ops, d);
	if (ret) {
		log_err("cannot set up the event loop: %s\n", strerror(-ret));
		return ret;
	}
	d->serving = true;
	d->events.on_drop = events_dropped;
	d->events.drop_arg = &d->loop;
	ret = ctl_loop_watch(&d->loop, d->signal_fd, read_signal, d);
	if (!ret)
		ret = ctl_loop_watch(&d->loop, revoke_events_fd(&d->events),
				     read_events, d);
	/* denials are forwarded during a long request too */
	if (!ret)
		ret = ctl_loop_watch_nested(&d->loop, revoke_events_fd(&d->events));
	if (!ret && d->uevent_fd >= 0)
		ret = ctl_loop_watch(&d->loop, d->uevent_fd,
				     devices_read_uevents, d);
	if (!ret && d->pause_uevent_fd >= 0)
		ret = pauses_watch(d);
	if (!ret)
		ret = seats_watch(d);
	if (!ret)
		ret = declared_watch(d);
	if (!ret)
		ret = ctl_loop_run(&d->loop);
	if (ret)
		log_err("event loop: %s\n", strerror(-ret));
	return ret;
}

/*
 * Return: 0, or the exit status: DAEMON_EXIT_NO_BPF_LSM without BPF LSM,
 * DAEMON_EXIT_FAILURE if anything else failed.
 */
static int start(struct daemon *d, const struct options *o)
{
	char err[1024];
	uint64_t count, ndev;
	int ret;

	if (check_lsm(d))
		return DAEMON_EXIT_NO_BPF_LSM;
	if (store_open(&d->rb, o->pin_dir, o->max_entries, o->verbose, err,
			    sizeof(err))) {
		log_err("%s\n", err);
		return DAEMON_EXIT_FAILURE;
	}
	log_info("%s in %llu ms\n", d->rb.progs_adopted ?
		 "took this build's programs from their pins" :
		 "loaded and verified the programs",
		 (unsigned long long)d->rb.load_us / 1000);
	/* store_open() set the counters from the sets: only read them here */
	ret = inode_set_count(&d->rb, &count);
	if (!ret)
		ret = device_set_count(&d->rb, &ndev);
	if (ret) {
		log_err("cannot read the revoked set: %s\n", strerror(-ret));
		goto fail;
	}
	ret = revoke_events_open(&d->events, &d->rb);
	if (ret) {
		log_err("cannot read the event ring buffer: %s\n",
			strerror(-ret));
		goto fail;
	}
	ret = store_reach_daemon(&d->rb, (uint32_t)getpid());
	if (ret)
		log_warn("cannot write revoke_reach: %s; a revoked tty will "
			"not be hung up after the deny\n",
			strerror(-ret));
	ret = store_layout_update(&d->rb, true);
	if (ret < 0) {
		log_err("cannot fill revoke_layout: %s\n", strerror(-ret));
		goto fail;
	}
	pipeline_init(&d->pipeline, &d->rb);
	busy_init(d);
	if (d->pipeline.ready)
		holders_skip(&d->pipeline.holders, getpid(), 0);
	if (d->pipeline.ready && procfs_under_seccomp(0))
		log_warn("revoke-bpfd runs under a seccomp filter, so the kernel "
			 "refuses it PTRACE_O_SUSPEND_SECCOMP: a holder under "
			 "seccomp cannot have calls injected and is killed by "
			 "the holders policy instead of released; give its unit "
			 "no SystemCallFilter= or other seccomp setting\n");
	if (d->pipeline.ready)
		log_info("%s\n", d->pipeline.holders.adopted ?
			 "took the holder iterators from their pins" :
			 "loaded the holder iterators");
	if (!d->pipeline.ready)
		log_warn("%s; revocation will deny new operations but not "
			"find holders, wake waiters or replace mappings\n",
			d->pipeline.why);
	d->logged_attaches = d->rb.attaches;
	d->logged_detaches = d->rb.detaches;
	if (d->rb.attached)
		log_info("%s %d programs under %s (%d replaced, %d skipped), "
			 "%llu of %u entries and %llu devices revoked\n",
			 d->rb.adopted ? "adopted" : "attached",
			 store_count_attached(o->pin_dir), o->pin_dir,
			 d->rb.replaced, d->rb.nr_skipped,
			 (unsigned long long)count, d->rb.max_entries,
			 (unsigned long long)ndev);
	else
		log_info("nothing is revoked: the programs stay detached until "
			 "the first add (%d skipped; pins under %s)\n",
			 d->rb.nr_skipped, o->pin_dir);
	return 0;
fail:
	store_close(&d->rb);
	return DAEMON_EXIT_FAILURE;
}

/* Load, serve until told to stop, then let go of what was loaded. */
static int run(struct daemon *d, const struct options *o, int lfd)
{
	int ret;

	ret = start(d, o);
	if (ret)
		return ret;
	ret = pauses_start(d);
	if (ret)
		log_err("cannot listen for the devices of paused classes: %s\n",
			strerror(-ret));
	ret = seats_follow(d);
	if (ret)
		log_err("cannot follow the seats: inotify: %s\n",
			strerror(-ret));
	/* the declared lines in force before READY=1 */
	ret = declared_watch_start(d);
	if (ret)
		log_warn("cannot watch %s: %s; it is read at start and on "
			 "reload only\n", d->decl.dir, strerror(-ret));
	declared_apply(d);
	log_info("ready, listening on %s\n", o->socket_path);
	notify_init(d);
	notify_ready(d);
	ret = serve(d, lfd) ? DAEMON_EXIT_FAILURE : DAEMON_EXIT_OK;
	notify_stopping();
	pipeline_fini(&d->pipeline);
	revoke_events_close(&d->events);
	store_close(&d->rb);
	ctl_loop_fini(&d->loop);
	return ret;
}

int main(int argc, char **argv)
{
	struct options o = {
		.pin_dir = REVOKE_PIN_DIR,
		.socket_path = REVOKE_SOCKET_PATH,
		.proc = "/proc",
		.policy = POLICY_PATH_DEFAULT,
		.declared = DECLARED_DIR_DEFAULT,
		.max_entries = REVOKE_MAX_ENTRIES_DEFAULT,
		.detach_after_s = DETACH_AFTER_DEFAULT_S,
	};
	struct daemon d = { .started = time(NULL), .uevent_fd = -1,
			    .pause_uevent_fd = -1, .seats.fd = -1,
			    .signal_fd = -1 };
	char err[1024];
	int ret, lfd = -1;

	log_init();
	ret = parse_options(argc, argv, &o);
	if (ret >= 0)
		return ret;
	d.socket_path = o.socket_path;
	d.proc = o.proc;
	d.policy_path = o.policy;
	declared_init(&d.decl, o.declared, DECLARED_STATE_DEFAULT);
	d.detach_after_ms = o.detach_after_s * 1000;
	ret = DAEMON_EXIT_NOT_ROOT;
	if (geteuid() != 0) {
		log_err("must run as root (it loads BPF LSM programs and reads "
			"every process's files)\n");
		goto cleanup;
	}
	ret = DAEMON_EXIT_CONFIG;
	if (resolve_group(&d, o.group))
		goto cleanup;
	if (policy_load(d.policy_path, &d.policy, err, sizeof(err))) {
		log_err("%s\n", err);
		goto cleanup;
	}
	ret = DAEMON_EXIT_FAILURE;
	if (devices_follow_source(&d, err, sizeof(err))) {
		log_err("%s\n", err);
		goto cleanup;
	}
	d.signal_fd = signal_fd();
	if (d.signal_fd < 0) {
		log_err("signalfd: %s\n", strerror(errno));
		goto cleanup;
	}
	/*
	 * Listen first, so that a second daemon stops before it touches the
	 * pins; requests wait in the backlog until the programs are up.
	 */
	lfd = ctl_listen(o.socket_path, err, sizeof(err));
	if (lfd < 0) {
		log_err("%s\n", err);
		goto cleanup;
	}
	ret = run(&d, &o, lfd);
cleanup:
	if (lfd >= 0) {
		close(lfd);
		unlink(o.socket_path);
	}
	if (d.signal_fd >= 0)
		close(d.signal_fd);
	if (d.uevent_fd >= 0)
		close(d.uevent_fd);
	if (d.pause_uevent_fd >= 0)
		close(d.pause_uevent_fd);
	if (d.seats.fd >= 0)
		close(d.seats.fd);
	policy_free(&d.policy);
	declared_fini(&d.decl);
	return ret;
}
