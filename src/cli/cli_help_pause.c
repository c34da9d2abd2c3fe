// SPDX-License-Identifier: GPL-2.0
/*
 * cli_help_pause.c - the help of pause and resume (cli_help.c lists
 * them with the other commands): their forms, options, exit status.
 */
#include "cli.h"

static const struct cli_opt pause_opts[] = {
	{ "--uid", NULL, "UID", "the user, by number: a task whose real or "
	  "effective uid it is, one under its systemd slice "
	  "(user-UID.slice), and a descriptor it opened, wherever it is "
	  "now" },
	{ "DEVICE", NULL, NULL, "a device node (/dev/snd/pcmC0D0c); or "
	  "--rdev MAJ:MIN --char|--block; or --subsystem NAME: every "
	  "device of that class in /sys/class (sound, video4linux, hidraw, "
	  "input; usb: /dev/bus/usb), those added later too; or --tag "
	  "uaccess [--seat SEAT]: every device node udev tagged uaccess on "
	  "the seat, those tagged later too" },
	{ "--rdev", NULL, "MAJ:MIN", "a device by number; --char or --block "
	  "right after it" },
	{ "--char", NULL, NULL, "after --rdev: a character device" },
	{ "--block", NULL, NULL, "after --rdev: a block device" },
	{ "--subsystem", NULL, "NAME", "a device class, as above" },
	{ "--tag", NULL, "TAG", "uaccess, the one tag supported: the "
	  "devices logind gives a seat's active user (those the seat "
	  "follower of policy.conf pauses)" },
	{ "--seat", NULL, "SEAT", "after --tag: the seat (default seat0)" },
	{ "--errno", NULL, "NAME", "what the user's calls fail with: ENODEV "
	  "(the default, what evdev and hidraw clients expect of a revoke) "
	  "or EIO" },
	{ "--cause", NULL, "WORD", "why, in one word (default: admin), "
	  "shown by list" },
	{ "--revoke", NULL, NULL, "also take away what the user holds, as "
	  "add does, irreversibly: wake its blocked calls, replace its "
	  "mappings of the device (the next access: SIGBUS), release its "
	  "descriptors (each becomes a dead file: EIO); other users' and "
	  "root's are untouched; the user reopens after resume" },
	{}
};

static const struct cli_opt resume_opts[] = {
	{ "--uid", NULL, "UID", "the user whose pauses are lifted" },
	{ "DEVICE", NULL, NULL, "a node, --rdev MAJ:MIN --char|--block or "
	  "--subsystem NAME or --tag uaccess [--seat SEAT], as pause takes; "
	  "none: every pause of the user" },
	{ "--rdev", NULL, "MAJ:MIN", "a device by number" },
	{ "--char", NULL, NULL, "after --rdev: a character device" },
	{ "--block", NULL, NULL, "after --rdev: a block device" },
	{ "--subsystem", NULL, "NAME", "a class paused with --subsystem, and "
	  "every device paused through it" },
	{ "--tag", NULL, "TAG", "a tag paused with --tag (uaccess), and "
	  "every device paused through it" },
	{ "--seat", NULL, "SEAT", "after --tag: its seat (default seat0)" },
	{}
};

static const char *const pause_syn[] = {
	"--uid UID [--errno ENODEV|EIO] [--cause WORD] [--revoke]",
	"  DEVICE...",
	"  DEVICE: NODE | --rdev MAJ:MIN --char|--block | --subsystem NAME |",
	"          --tag uaccess [--seat SEAT]",
	NULL,
};

static const char *const resume_syn[] = { "--uid UID [DEVICE...]", NULL };
const struct cli_help cli_help_pause = {
	.name = "pause", .verb = REVOKE_VERB_PAUSE,
	.line = "--uid UID DEVICE...     deny devices to one user, "
		"undoably",
	.synopsis = pause_syn,
	.about = "Pause: every open, read, write, ioctl, mmap, lock "
		 "and fcntl of that user on the device fails with "
		 "ENODEV (or --errno), through every node of it; the "
		 "user's blocked calls are woken once; other users "
		 "and root are not touched.  Nothing is closed: resume "
		 "gives the same descriptors back.  A mapping of the "
		 "device (an ALSA ring, a v4l2 buffer) works without "
		 "a system call and is not paused: it is named, exit "
		 "4; --revoke takes it away, with the user's "
		 "descriptors.",
	.opts = { pause_opts },
	.exit = "0 every access of the user is paused (--revoke: and "
		"what it held taken away); 1 nothing was paused; 2 the "
		"command line is wrong; 4 some access is not (a "
		"mapping, a holder that could not be released, a "
		"device that could not be paused: each is named)",
	.example = "revoke-bpf pause --uid 1001 /dev/snd/pcmC0D0c\n"
		   "revoke-bpf pause --uid 1001 --subsystem video4linux\n"
		   "revoke-bpf pause --uid 1001 --tag uaccess --seat seat0\n"
		   "revoke-bpf pause --uid 1001 --revoke /dev/snd/pcmC0D0c",
};

const struct cli_help cli_help_resume = {
	.name = "resume", .verb = REVOKE_VERB_RESUME,
	.line = "--uid UID [DEVICE...]   give paused devices back",
	.synopsis = resume_syn,
	.about = "Lift a user's pauses: of the devices named, or all "
		 "of them; the descriptors the user holds work again "
		 "(after pause --revoke: the user reopens).  "
		 "Resuming what is not paused is harmless and says "
		 "so.",
	.opts = { resume_opts },
	.exit = "0 done; 1 failed; 2 the command line is wrong; 4 "
		"some device could not be resumed (it is named)",
	.example = "revoke-bpf resume --uid 1001",
};
