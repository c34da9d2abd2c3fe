// SPDX-License-Identifier: GPL-2.0
/*
 * cli_help.c - revoke-bpf's help, in one table: each command's line in
 * 'revoke-bpf help', its synopsis, what it does, every option with its
 * default and unit, who may use it (from ctl_verbs.c), its exit status
 * and an example.  The option tables are also what cli.c's parser reads
 * to tell a command's options from the global ones, and which of them
 * take a value.  Everything printed is wrapped under 80 columns.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define HELP_WIDTH	79	/* the longest line printed */
#define HELP_OPT_COL	24	/* where an option's text starts */

/* -j, -p, -h, -V, --socket and --reply-timeout: anywhere on the line */
const struct cli_opt cli_global_opts[] = {
	{ "--json", "-j", NULL, "print the answer as one JSON value; an "
	  "error as {\"error\": \"...\"}" },
	{ "--pretty", "-p", NULL, "the same JSON, indented (implies --json)" },
	{ "--socket", NULL, "PATH", "revoke-bpfd's control socket (default "
	  REVOKE_SOCKET_PATH ")" },
	{ "--reply-timeout", NULL, "DURATION", "bound each wait for "
	  "revoke-bpfd: connecting, its reading the request, its reply "
	  "(default 5 s; a bare number is seconds, or 500ms, 2s, 1min; 0: no "
	  "limit).  The replies to add, umount, del, pause, resume, reload "
	  "and unload are not bounded: add and umount take as long as the "
	  "holders do, and the others wait behind a running add or umount" },
	{ "--help", "-h", NULL, "this help, or the command's" },
	{ "--version", "-V", NULL, "print revoke-bpf's version" },
	{ "--", NULL, NULL, "end of options: what follows is an operand, "
	  "even -j" },
	{}
};

static const struct cli_opt target_opts[] = {
	{ "PATH", NULL, NULL, "a file or a device node; an operand is always "
	  "a path (a name of digits alone is refused: write ./12 or --inode "
	  "12)" },
	{ "--inode", NULL, "N", "the inode numbered N (decimal); without "
	  "--dev, N must be open or mapped on exactly one filesystem" },
	{ "--dev", NULL, "MAJ:MIN", "with --inode: the filesystem's device "
	  "number, as /proc/self/mountinfo shows it" },
	{}
};

static const struct cli_opt fs_opts[] = {
	{ "--fs", NULL, "FS", "the whole filesystem, every file of it: FS is "
	  "its mount point, any file on it, or a block device node (the "
	  "filesystem mounted from it, as umount(8) reads it)" },
	{ "--force", NULL, NULL, "with --fs: also a filesystem the system "
	  "cannot live without (/, devtmpfs, devpts, cgroup, revoke-bpfd's "
	  "socket's and pins'), refused otherwise with the reason; proc, "
	  "sysfs, bpffs and the filesystem revoke-bpfd runs from (most often "
	  "/) are refused even so" },
	{}
};

static const struct cli_opt del_fs_opts[] = {
	{ "--fs", NULL, "FS", "the whole filesystem, as add --fs names it" },
	{ "--fs-dev", NULL, "MAJ:MIN", "a revoked filesystem by its number, "
	  "as list shows it (one that is gone has no FS to name)" },
	{}
};

static const struct cli_opt rdev_opts[] = {
	{ "--rdev", NULL, "MAJ:MIN", "a device by number, through every node "
	  "of it (mknod'd ones too); ttys are hung up, evdev nodes revoked" },
	{ "--char", NULL, NULL, "with --rdev: a character device" },
	{ "--block", NULL, NULL, "with --rdev: a block device" },
	{}
};

static const struct cli_opt fd_opts[] = {
	{ "--fd", NULL, "PID:FD", "one open file: descriptor FD of process "
	  "PID and every copy of it (dup, fork, SCM_RIGHTS), released by "
	  "default; other opens of the file keep working, as with "
	  "EVIOCREVOKE; never given back (there is no del --fd); root may "
	  "name any process, a --group member only one all of whose uids "
	  "and gids are its own (not a setuid program)" },
	{}
};

static const struct cli_opt add_opts[] = {
	{ "--removed", NULL, NULL, "with --rdev: the device instance is gone; "
	  "a new device with the same number works, while every file of the "
	  "old one stays revoked" },
	{ "--cause", NULL, "WORD", "with --rdev or --fs: why, in one word of "
	  "1 to 31 letters, digits or _.:- (default: none); kept with the "
	  "entry, shown by list" },
	{ "--release", NULL, NULL, "also replace every descriptor of it by a "
	  "dead file, so that its last reference drops now (the default for "
	  "devices, FIFOs and sockets)" },
	{ "--no-release", NULL, NULL, "deny, wake and unmap only; descriptors "
	  "stay, failing with EIO (the default for regular files named by "
	  "PATH or --inode)" },
	{ "--timeout", NULL, "DURATION", "how long to wait for calls still "
	  "inside the file (default 2 s; a bare number is seconds, or 100ms, "
	  "2s, 1min)" },
	{ "--spare", NULL, NULL, "a holder whose access cannot be taken away "
	  "(traced, never stopping, forking faster than it is stopped) is "
	  "named and left alive, exit 4, instead of killed (default: killed, "
	  "unless the policy says 'holders spare')" },
	{ "--persist", NULL, NULL, "once revoked, also write the line to "
	  "revoke-bpfd's declared files (/etc/revoke-bpf/revoked.d/local.conf, "
	  "revoked.d(5)), so that it is revoked again after a reboot; exit 1 "
	  "if the line could not be written" },
	{}
};

static const struct cli_opt umount_opts[] = {
	{ "MOUNTPOINT", NULL, NULL, "a mount point, or a block device node "
	  "(the filesystem mounted from it); a file or directory inside the "
	  "filesystem is refused, unlike add --fs; the same as --fs" },
	{ "--fs", NULL, "FS", "the same, as a keyword" },
	{ "--force", NULL, NULL, "also a filesystem the system cannot live "
	  "without (/, devtmpfs, devpts, cgroup, revoke-bpfd's own), refused "
	  "otherwise with the reason; never proc, sysfs, bpffs or the "
	  "filesystem revoke-bpfd runs from (most often /)" },
	{ "--cause", NULL, "WORD", "why, in one word (default: none), shown "
	  "by list" },
	{ "--timeout", NULL, "DURATION", "bound the sync, and the wait for the "
	  "filesystem to go (default 2 s; 100ms, 2s, 1min)" },
	{ "--spare", NULL, NULL, "a holder that cannot be handled, or whose "
	  "root or executable is on it, is named and left alive (exit 4), "
	  "not killed" },
	{}
};

static const struct cli_opt holders_opts[] = {
	{ "PATH", NULL, NULL, "a file or a device node (an operand is always "
	  "a path)" },
	{ "--fs", NULL, "FS", "the whole filesystem: its mount point, any "
	  "file on it, or a block device node (the filesystem mounted from "
	  "it)" },
	{ "--quiet", "-s", NULL, "print nothing: the exit status says whether "
	  "anything holds it, as fuser -s" },
	{}
};

static const struct cli_opt list_opts[] = {
	{ "--all", "-a", NULL, "also the dead files add put in holders' "
	  "descriptors and mappings (revoked themselves, gone once the "
	  "holder closes them); without it they are counted in a last line" },
	{}
};

static const struct cli_opt status_opts[] = {
	{ "--verbose", "-v", NULL, "every field, one a line: each program's "
	  "state, the sets' sizes, the control socket's counts" },
	{}
};

static const struct cli_opt metrics_opts[] = {
	{ "--output", "-o", "FILE", "write them to FILE atomically (a new "
	  "file beside it, renamed over it; mode 0644) instead of standard "
	  "output; when revoke-bpfd does not answer, FILE gets "
	  "revoke_bpf_up 0 alone" },
	{}
};

static const struct cli_opt events_opts[] = {
	{ "--count", NULL, "N", "stop after N events (default: until "
	  "interrupted)" },
	{}
};

static const struct cli_opt unload_opts[] = {
	{ "--yes", NULL, NULL, "required: lift every revocation, detach the "
	  "programs; revoke-bpfd exits" },
	{}
};

#define EXIT_COMMON "0 done; 1 failed, nothing done (or revoke-bpfd " \
	"unreachable); 2 the command line is wrong, nothing was sent"

static const char *const add_syn[] = {
	"PATH [ADD-OPTIONS]",
	"--inode N [--dev MAJ:MIN] [ADD-OPTIONS]",
	"--fs FS [--force] [ADD-OPTIONS]",
	"--rdev MAJ:MIN --char|--block [--removed] [ADD-OPTIONS]",
	"--fd PID:FD [ADD-OPTIONS]",
	"  ADD-OPTIONS: [--cause WORD] [--release|--no-release]",
	"               [--timeout DURATION] [--spare] [--persist]",
	NULL,
};

static const char *const del_syn[] = {
	"PATH",
	"--inode N [--dev MAJ:MIN]",
	"--fs FS",
	"--fs-dev MAJ:MIN",
	"--rdev MAJ:MIN --char|--block",
	NULL,
};

static const char *const umount_syn[] = {
	"MOUNTPOINT [UMOUNT-OPTIONS]",
	"--fs FS [UMOUNT-OPTIONS]",
	"  UMOUNT-OPTIONS: [--force] [--cause WORD] [--timeout DURATION]",
	"                  [--spare]",
	NULL,
};

static const char *const holders_syn[] = {
	"PATH [-s]",
	"--fs FS [-s]",
	NULL,
};

static const char *const none_syn[] = { "", NULL };
static const char *const list_syn[] = { "[--all]", NULL };
static const char *const status_syn[] = { "[-v|--verbose]", NULL };
static const char *const metrics_syn[] = { "[-o|--output FILE]", NULL };
static const char *const events_syn[] = { "[--count N]", NULL };
static const char *const unload_syn[] = { "--yes", NULL };
static const char *const help_syn[] = { "[COMMAND]", NULL };

/* in the order of 'revoke-bpf help' */
static const struct cli_help *const helps[] = {
	&(const struct cli_help){
		.name = "add", .verb = REVOKE_VERB_ADD,
		.line = "TARGET [ADD-OPTIONS]    revoke a file, filesystem or "
			"device",
		.synopsis = add_syn,
		.about = "Revoke: every open, read, write, mmap, ioctl, lock, "
			 "fcntl and truncate on it fails with EIO, in every "
			 "process, on descriptors opened before as well as "
			 "after; blocked callers are woken, mappings fault "
			 "with SIGBUS.  Adding what is revoked already is "
			 "harmless and says so.",
		.opts = { target_opts, fs_opts, rdev_opts, fd_opts, add_opts },
		.exit = "0 every access is gone; 1 nothing was revoked; 2 the "
			"command line is wrong; 3 a loop device or tty could "
			"not be handled; 4 some holder could not be handled "
			"(it is named); 130 interrupted (Ctrl-C): revoke-bpfd "
			"goes on with it",
		.example = "revoke-bpf add /dev/ttyUSB0\n"
			   "revoke-bpf add --fs /dev/sdb1 --cause unplugged",
	},
	&(const struct cli_help){
		.name = "del", .verb = REVOKE_VERB_DEL,
		.line = "TARGET                  lift a revocation",
		.synopsis = del_syn,
		.about = "Lift a revocation: new opens work again (descriptors "
			 "released by add stay dead).  Deleting what is not "
			 "revoked is harmless and says so.",
		.opts = { target_opts, del_fs_opts, rdev_opts },
		.exit = EXIT_COMMON,
		.example = "revoke-bpf del /dev/ttyUSB0",
	},
	&(const struct cli_help){
		.name = "umount", .verb = REVOKE_VERB_UMOUNT,
		.line = "FS [ADD-OPTIONS]        forced unmount, whoever holds "
			"it",
		.synopsis = umount_syn,
		.about = "Forced unmount: sync the filesystem, revoke it whole, "
			 "end every use of it (descriptors, mappings, waiters, "
			 "io_uring, current directories; a process whose root "
			 "or executable is on it is killed unless --spare), "
			 "turn off swap files on it, detach loop devices "
			 "backed by it, unmount the mounts below it and then "
			 "every mount of it in every mount namespace, and wait "
			 "until the filesystem is gone.",
		.opts = { umount_opts },
		.exit = "0 it is gone; 1 nothing was done; 2 the command line "
			"is wrong; 3 a mount, swap file or loop device still "
			"holds it; 4 some holder could not be handled; 130 "
			"interrupted (Ctrl-C): revoke-bpfd goes on with it",
		.example = "revoke-bpf umount /media/usb",
	},
	&(const struct cli_help){
		.name = "holders", .verb = REVOKE_VERB_HOLDERS,
		.line = "TARGET [-s]             who holds a file or filesystem",
		.synopsis = holders_syn,
		.about = "Who holds a file, or a whole filesystem, and how "
			 "(ACCESS: f descriptors, m mappings, u io_uring, c "
			 "current directory, r root directory, e executable), "
			 "like fuser -v; nothing is revoked.  --fs finds the "
			 "filesystem in /proc/self/mountinfo and never stats "
			 "or opens anything on it.",
		.opts = { holders_opts },
		.exit = "0 something holds it; 1 nothing holds it, or an "
			"error (the message says which); 2 the command line "
			"is wrong",
		.example = "revoke-bpf holders --fs /media/usb\n"
			   "revoke-bpf holders -s /dev/ttyUSB0 || echo free",
	},
	&cli_help_pause,
	&cli_help_resume,
	&(const struct cli_help){
		.name = "list", .verb = REVOKE_VERB_LIST,
		.line = "[--all]                 what is revoked",
		.synopsis = list_syn,
		.about = "Show what is revoked: files, filesystems and "
			 "devices, with the denials counted for each, when "
			 "each was revoked, and the holders add found.",
		.opts = { list_opts },
		.exit = EXIT_COMMON,
		.example = "revoke-bpf -p list",
	},
	&(const struct cli_help){
		.name = "status", .verb = REVOKE_VERB_STATUS,
		.line = "[-v]                    is revoke-bpfd enforcing?",
		.synopsis = status_syn,
		.about = "Show whether the BPF LSM is active, revoke-bpfd is "
			 "running and its programs are attached, in a few "
			 "lines, one more for each problem; -v shows every "
			 "field.",
		.opts = { status_opts },
		.exit = "0 all is well; 1 something is revoked but not every "
			"program is attached (the message says what to do), or "
			"revoke-bpfd is unreachable; 2 the command line is wrong",
		.example = "revoke-bpf status",
	},
	&(const struct cli_help){
		.name = "metrics", .verb = REVOKE_VERB_STATUS,
		.line = "[-o FILE]               status in Prometheus's text "
			"format",
		.synopsis = metrics_syn,
		.about = "Print what status and list count in Prometheus's "
			 "text format: entries and their denials by kind, "
			 "whether BPF LSM is active and the programs attached, "
			 "attaches, detaches, the last attach's duration, the "
			 "declared revocations, the version; no path or user "
			 "in any label.  For node_exporter's textfile "
			 "collector (revoke-bpf-metrics.timer).  It has no "
			 "JSON form: -j is refused (-j status gives the same "
			 "figures).",
		.opts = { metrics_opts },
		.exit = "0 printed or written; 1 revoke-bpfd did not answer "
			"(FILE then says revoke_bpf_up 0), or FILE could not "
			"be written; 2 the command line is wrong, nothing was "
			"sent",
		.example = "revoke-bpf metrics -o /var/lib/prometheus/"
			   "node-exporter/revoke-bpf.prom",
	},
	&(const struct cli_help){
		.name = "events", .verb = REVOKE_VERB_EVENTS,
		.line = "[--count N]             stream every denied operation",
		.synopsis = events_syn,
		.about = "Stream every denied operation as it happens, one a "
			 "line (with --json one object a line), until "
			 "interrupted or N were shown.",
		.opts = { events_opts },
		.exit = EXIT_COMMON,
		.example = "revoke-bpf events --count 1",
	},
	&(const struct cli_help){
		.name = "reload", .verb = REVOKE_VERB_RELOAD,
		.line = "                        reread policy and declared "
			"files",
		.synopsis = none_syn,
		.about = "Reread revoke-bpfd's policy file (policy.conf(5)); a "
			 "bad one is refused with its line number, and the "
			 "policy in force is kept.  Then apply the declared "
			 "files again (revoked.d(5)): add what a line names, "
			 "lift what a line added and no line names; each line "
			 "not applied is shown as FILE:LINE: why.",
		.exit = "0 the new policy is in force and every declared line "
			"applied or pending; 1 the policy was refused (the old "
			"one stays) or a declared line was refused or failed "
			"(the others are applied); 2 the command line is wrong",
		.example = "revoke-bpf reload",
	},
	&(const struct cli_help){
		.name = "unload", .verb = REVOKE_VERB_UNLOAD,
		.line = "--yes                   lift everything; revoke-bpfd "
			"exits",
		.synopsis = unload_syn,
		.about = "Detach every program and lift every revocation; "
			 "revoke-bpfd exits.",
		.opts = { unload_opts },
		.exit = EXIT_COMMON,
		.example = "revoke-bpf unload --yes",
	},
	&(const struct cli_help){
		.name = "uevent", .verb = REVOKE_VERB_UEVENT,
		.line = "                        the udev rule's RUN program",
		.synopsis = none_syn,
		.about = "For the udev rule: hand the device event in the "
			 "environment (ACTION, SUBSYSTEM, MAJOR, MINOR and the "
			 "properties) to revoke-bpfd, which revokes a removed "
			 "device if its policy says so, and return at once.",
		.exit = "0 handed over (its answer is not waited for), or no "
			"revoke-bpfd listens (the event is nobody's); 1 a "
			"malformed event, or revoke-bpfd did not take it; 2 the "
			"command line is wrong",
		.example = "ACTION=remove SUBSYSTEM=tty MAJOR=188 MINOR=0 "
			   "revoke-bpf uevent",
	},
	&(const struct cli_help){
		.name = "help", .verb = -1,
		.line = "[COMMAND]               this help, or a command's",
		.synopsis = help_syn,
		.about = "Show the commands, or a command's synopsis, options, "
			 "exit status and an example.",
		.exit = "0; 2 an unknown command",
		.example = "revoke-bpf help add",
	},
};

#define NHELPS (sizeof(helps) / sizeof(helps[0]))

/**
 * cli_help_find() - the help of the command @name
 * @name: a command's name
 *
 * Return: its help, or NULL if no command has that name.
 */
const struct cli_help *cli_help_find(const char *name)
{
	size_t i;

	for (i = 0; i < NHELPS; i++)
		if (!strcmp(helps[i]->name, name))
			return helps[i];
	return NULL;
}

/* Does @arg name @o ("--timeout", "--timeout=2s" or "-s")? */
static bool opt_is(const struct cli_opt *o, const char *arg)
{
	size_t n = strlen(o->name);

	if (o->name[0] != '-')
		return false;
	if (o->short_name && !strcmp(arg, o->short_name))
		return true;
	return !strncmp(arg, o->name, n) &&
	       (!arg[n] || (o->arg && arg[n] == '='));
}

/**
 * cli_help_opt() - the option @arg names, among @table's
 * @table: an option table, ended by an empty entry
 * @arg: an argument of the command line
 *
 * Return: the option, or NULL.
 */
const struct cli_opt *cli_help_opt(const struct cli_opt *table,
				   const char *arg)
{
	for (; table && table->name; table++)
		if (opt_is(table, arg))
			return table;
	return NULL;
}

/**
 * cli_help_verb_opt() - the option of command @h that @arg names
 * @h: a command's help
 * @arg: an argument after the command
 *
 * Return: the option, or NULL if the command has none of that name.
 */
const struct cli_opt *cli_help_verb_opt(const struct cli_help *h,
					const char *arg)
{
	const struct cli_opt *o;
	size_t i;

	for (i = 0; i < CLI_HELP_TABLES; i++)
		if ((o = cli_help_opt(h->opts[i], arg)))
			return o;
	return NULL;
}

/*
 * Print @text from column @col, wrapped at HELP_WIDTH: the first line
 * goes on from column @at, where the cursor is.
 */
static void wrap(FILE *f, const char *text, int col, int at)
{
	const char *w = text;

	if (at > col) {
		fprintf(f, "\n%*s", col, "");
		at = col;
	}
	fprintf(f, "%*s", col - at, "");
	at = col;
	while (*w) {
		size_t n = strcspn(w, " ");
		bool first = at == col;

		if (!first && at + 1 + (int)n > HELP_WIDTH) {
			fprintf(f, "\n%*s", col, "");
			at = col;
			first = true;
		}
		fprintf(f, "%s%.*s", first ? "" : " ", (int)n, w);
		at += (int)n + !first;
		w += n;
		while (*w == ' ')
			w++;
	}
	fputc('\n', f);
}

static void print_opts(FILE *f, const struct cli_opt *o)
{
	char head[64];
	int n;

	for (; o && o->name; o++) {
		n = snprintf(head, sizeof(head), "  %s%s%s%s%s",
			     o->short_name ? o->short_name : "",
			     o->short_name ? ", " : "", o->name,
			     o->arg ? " " : "", o->arg ? o->arg : "");
		fputs(head, f);
		wrap(f, o->text, HELP_OPT_COL, n);
	}
}

/* Each line of @text, indented by two columns. */
static void print_indented(FILE *f, const char *text)
{
	while (*text) {
		size_t n = strcspn(text, "\n");

		fprintf(f, "  %.*s\n", (int)n, text);
		text += n + (text[n] == '\n');
	}
}

/**
 * cli_help_print_verb() - revoke-bpf help COMMAND
 * @f: where to print it
 * @h: the command's help
 *
 * Its synopsis, what it does, its options with their defaults and units,
 * who may use it, its exit status and an example.
 */
void cli_help_print_verb(FILE *f, const struct cli_help *h)
{
	size_t i;

	/* a line that starts with two blanks explains a word of the others */
	for (i = 0; h->synopsis[i]; i++)
		if (!strncmp(h->synopsis[i], "  ", 2))
			fprintf(f, "     %s\n", h->synopsis[i]);
		else
			fprintf(f, "%s revoke-bpf %s%s%s\n", i ? "      " :
				"Usage:", h->name, *h->synopsis[i] ? " " : "",
				h->synopsis[i]);
	fputc('\n', f);
	wrap(f, h->about, 0, 0);
	if (h->opts[0]) {
		fprintf(f, "\nOptions:\n");
		for (i = 0; i < CLI_HELP_TABLES; i++)
			print_opts(f, h->opts[i]);
	}
	fprintf(f, "\nGlobal options (-j, -p, --socket, ...): 'revoke-bpf "
		"help'.\n");
	if (h->verb >= 0) {
		fprintf(f, "Who may:");
		wrap(f, revoke_access_who(revoke_verb_access(h->verb)), 13, 8);
	}
	fprintf(f, "Exit status:");
	wrap(f, h->exit, 13, 12);
	fprintf(f, "\nExample%s:\n", strchr(h->example, '\n') ? "s" : "");
	print_indented(f, h->example);
}

/**
 * cli_help_print_all() - revoke-bpf help: one line per command
 * @f: where to print it
 */
void cli_help_print_all(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: revoke-bpf [OPTIONS] COMMAND [ARGS]\n\n");
	for (i = 0; i < NHELPS; i++)
		fprintf(f, "  %-8s%s\n", helps[i]->name, helps[i]->line);
	fprintf(f, "\n"
		"  TARGET       PATH | --inode N [--dev MAJ:MIN] | --fs FS "
		"[--force] |\n"
		"               --rdev MAJ:MIN --char|--block [--removed]\n"
		"  FS           a mount point, a file on the filesystem, or a "
		"block device\n"
		"  ADD-OPTIONS  [--cause WORD] [--release|--no-release] "
		"[--timeout DURATION]\n"
		"               [--spare]\n"
		"  DURATION     seconds, or with a unit: 100ms, 2s, 1min\n"
		"\nOptions, anywhere on the line:\n");
	print_opts(f, cli_global_opts);
	fprintf(f, "\n'revoke-bpf help COMMAND' shows a command's options, "
		"their defaults, who may\nuse it, its exit status and an "
		"example.  Exit status: 0 done; 1 failed, nothing\ndone; 2 "
		"the command line is wrong; add and umount also 3 and 4.\n");
}
