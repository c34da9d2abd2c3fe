// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_verbs.c - the one list of the control socket's verbs: name,
 * privilege, fields, and revoke-bpf's usage and help text for each.
 * The request codec (ctl_proto.c), the daemon's privilege check and the
 * CLI's commands and help all read it.
 */
#include <errno.h>
#include <string.h>

#include "ctl_fields.h"
#include "ctl_verbs.h"

/*
 * Privileged: add, del, unload, events and holders (they name other
 * users' processes), uevent, reload and umount.  Anyone may list and
 * status.
 */
const struct revoke_verb_info revoke_verbs[REVOKE_VERB_COUNT] = {
	[REVOKE_VERB_ADD] = {
		.name = "add",
		.privileged = true,
		.fields = REVOKE_FIELDS_TARGET | REVOKE_FIELDS_ADD |
			  REVOKE_FIELDS_FS,
		.usage = "PATH | --inode N [--dev MAJ:MIN] | --fs FS [--force] | "
			 "--rdev MAJ:MIN --char|--block [--removed] [--cause "
			 "WORD] [--release|--no-release] [--timeout DURATION] "
			 "[--spare]",
		.help = "revoke an inode: every open, read, write, mmap, ioctl, "
			"lock, fcntl and truncate on it fails with EIO, blocked "
			"callers are woken, mappings fault with SIGBUS, and "
			"(--release; the default for devices, FIFOs and sockets) "
			"descriptors are replaced by a dead file.  With --rdev, "
			"revoke a device through every node of that number (ttys "
			"are hung up and evdev nodes revoked by the kernel too); "
			"--removed says the device instance is gone, so that a "
			"new device with the same number works while every file "
			"of the old one stays revoked.  With --fs, revoke the "
			"whole filesystem PATH is on, every file of it, opened "
			"before or after, without unmounting it.  A holder whose access "
			"cannot be taken away (traced by another process, never "
			"stopping, forking faster than it is stopped) is killed "
			"and named, unless --spare (or the policy's 'holders "
			"spare') leaves it alive as a failure.  Exit status: 0 "
			"every access is gone; 3 a loop device or tty could not "
			"be handled; 4 some holder could not be handled (it is "
			"named); 1 nothing was revoked",
	},
	[REVOKE_VERB_DEL] = {
		.name = "del",
		.privileged = true,
		.fields = REVOKE_FIELDS_TARGET | REVOKE_FIELDS_FS,
		.usage = "PATH | --inode N [--dev MAJ:MIN] | --fs FS | "
			 "--fs-dev MAJ:MIN | --rdev MAJ:MIN --char|--block",
		.help = "lift a revocation",
	},
	[REVOKE_VERB_LIST] = {
		.name = "list",
		.usage = "[--json]",
		.help = "show the revoked inodes",
	},
	[REVOKE_VERB_STATUS] = {
		.name = "status",
		.usage = "[--json]",
		.help = "show whether enforcement is active and the daemon is "
			"running",
	},
	[REVOKE_VERB_EVENTS] = {
		.name = "events",
		.privileged = true,
		.usage = "[--json] [--count N]",
		.help = "stream every denied operation as it happens",
	},
	[REVOKE_VERB_UNLOAD] = {
		.name = "unload",
		.privileged = true,
		.usage = "--yes",
		.help = "detach everything and lift every revocation; "
			"revoke-bpfd exits",
	},
	[REVOKE_VERB_UEVENT] = {
		.name = "uevent",
		.privileged = true,
		.fields = REVOKE_FIELDS_UEVENT,
		.usage = "",
		.help = "for the udev rule: hand the device event in the "
			"environment (ACTION, SUBSYSTEM, MAJOR, MINOR and the "
			"properties) to revoke-bpfd, which revokes a removed "
			"device if its policy says so, and return at once",
	},
	[REVOKE_VERB_RELOAD] = {
		.name = "reload",
		.privileged = true,
		.usage = "",
		.help = "reread revoke-bpfd's policy file; a bad one is refused "
			"with its line number, and the policy in force is kept",
	},
	[REVOKE_VERB_UMOUNT] = {
		.name = "umount",
		.privileged = true,
		.fields = REVOKE_FIELDS_TARGET | REVOKE_FIELDS_ADD |
			  REVOKE_FIELDS_FS,
		.usage = "FS [--force] [--timeout DURATION] [--spare] "
			 "[--cause WORD]",
		.help = "forced unmount: sync the filesystem MOUNTPOINT is on "
			"(bounded by --timeout), revoke it whole, end every use "
			"of it (descriptors, mappings, waiters, io_uring, "
			"current directories; a process whose root or "
			"executable is on it is killed unless --spare), turn "
			"off swap files on it, detach loop devices backed by "
			"it, unmount the mounts below it and then every mount "
			"of it in every mount namespace, and wait until the "
			"filesystem is gone.  Exit status: 0 it is gone; 3 a "
			"mount, swap file or loop device still holds it; 4 "
			"some holder could not be handled; 1 nothing was done",
	},
	[REVOKE_VERB_HOLDERS] = {
		.name = "holders",
		.privileged = true,
		.fields = REVOKE_FIELDS_TARGET | REVOKE_FIELDS_FS,
		.usage = "PATH | --fs FS [--json]",
		.help = "who holds a file, or a whole filesystem, and how "
			"(ACCESS: f descriptors, m mappings, u io_uring "
			"resources, c current directory, r root directory, e "
			"executable), revoking nothing; --fs finds MOUNTPOINT "
			"in /proc/self/mountinfo and never stats or opens "
			"anything on the filesystem.  Exit status: 0, also when "
			"nothing holds it; 1 an error",
	},
};

/**
 * revoke_verb_name() - @verb as it is spelled on the wire
 * @verb: a verb
 *
 * Return: its name.
 */
const char *revoke_verb_name(enum revoke_verb verb)
{
	return revoke_verbs[verb].name;
}

/**
 * revoke_verb_privileged() - may only privileged clients send @verb?
 * @verb: the request's verb
 *
 * Return: true for add, del, events, unload, uevent, reload, umount and
 * holders.
 */
bool revoke_verb_privileged(enum revoke_verb verb)
{
	return revoke_verbs[verb].privileged;
}

/**
 * revoke_verb_takes() - does @verb take any of @fields?
 * @verb: a verb
 * @fields: REVOKE_FIELDS_* flags
 *
 * Return: true if it takes at least one of them.
 */
bool revoke_verb_takes(enum revoke_verb verb, unsigned int fields)
{
	return revoke_verbs[verb].fields & fields;
}

/**
 * revoke_verb_parse() - the verb named @word
 * @word: a verb's name
 * @verb: the verb
 *
 * Return: 0, or -EINVAL if no verb has that name.
 */
int revoke_verb_parse(const char *word, enum revoke_verb *verb)
{
	int i;

	for (i = 0; i < REVOKE_VERB_COUNT; i++) {
		if (!strcmp(word, revoke_verbs[i].name)) {
			*verb = (enum revoke_verb)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* Every word the daemon may answer "ok" with (ctl_fields.h). */
const char *const revoke_ok_words[] = {
	REVOKE_OK_ADDED, REVOKE_OK_ALREADY, REVOKE_OK_DELETED,
	REVOKE_OK_ABSENT, REVOKE_OK_LIST, REVOKE_OK_STATUS, REVOKE_OK_EVENTS,
	REVOKE_OK_UNLOADED, REVOKE_OK_IGNORED, REVOKE_OK_RELOADED,
	REVOKE_OK_UMOUNTED, REVOKE_OK_HOLDERS, NULL,
};
