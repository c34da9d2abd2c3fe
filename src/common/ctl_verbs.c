// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_verbs.c - the one list of the control socket's verbs: name, who
 * may send it, and its fields.  The request codec (ctl_proto.c), the
 * daemon's privilege check and the CLI's commands and help all read it.
 */
#include <errno.h>
#include <string.h>

#include "ctl_fields.h"
#include "ctl_verbs.h"

/*
 * Who may send each verb (revoke-bpf(8) and revoke-bpfd(8) --group say
 * the same, from revoke_access_who()):
 * - anyone: list and status;
 * - root and the --group: add, del, umount, reload, pause and resume, and
 *   holders and events (they name other users' processes);
 * - root alone: uevent (it can forge a device's removal: udev runs its
 *   RUN programs as root) and unload (it stops revoke-bpfd and detaches
 *   the programs for every user, as "systemctl stop" would).
 */
const struct revoke_verb_info revoke_verbs[REVOKE_VERB_COUNT] = {
	[REVOKE_VERB_ADD] = {
		.name = "add",
		.access = REVOKE_ACCESS_GROUP,
		.fields = REVOKE_FIELDS_TARGET | REVOKE_FIELDS_ADD |
			  REVOKE_FIELDS_FS,
	},
	[REVOKE_VERB_DEL] = {
		.name = "del",
		.access = REVOKE_ACCESS_GROUP,
		.fields = REVOKE_FIELDS_TARGET | REVOKE_FIELDS_FS,
	},
	[REVOKE_VERB_LIST] = {
		.name = "list",
		.access = REVOKE_ACCESS_ANYONE,
	},
	[REVOKE_VERB_STATUS] = {
		.name = "status",
		.access = REVOKE_ACCESS_ANYONE,
	},
	[REVOKE_VERB_EVENTS] = {
		.name = "events",
		.access = REVOKE_ACCESS_GROUP,
	},
	[REVOKE_VERB_UNLOAD] = {
		.name = "unload",
		.access = REVOKE_ACCESS_ROOT,
	},
	[REVOKE_VERB_UEVENT] = {
		.name = "uevent",
		.access = REVOKE_ACCESS_ROOT,
		.fields = REVOKE_FIELDS_UEVENT,
	},
	[REVOKE_VERB_RELOAD] = {
		.name = "reload",
		.access = REVOKE_ACCESS_GROUP,
	},
	[REVOKE_VERB_UMOUNT] = {
		.name = "umount",
		.access = REVOKE_ACCESS_GROUP,
		.fields = REVOKE_FIELDS_TARGET | REVOKE_FIELDS_ADD |
			  REVOKE_FIELDS_FS,
	},
	[REVOKE_VERB_HOLDERS] = {
		.name = "holders",
		.access = REVOKE_ACCESS_GROUP,
		.fields = REVOKE_FIELDS_TARGET | REVOKE_FIELDS_FS,
	},
	[REVOKE_VERB_PAUSE] = {
		.name = "pause",
		.access = REVOKE_ACCESS_GROUP,
		.fields = REVOKE_FIELDS_PAUSE,
	},
	[REVOKE_VERB_RESUME] = {
		.name = "resume",
		.access = REVOKE_ACCESS_GROUP,
		.fields = REVOKE_FIELDS_PAUSE,
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
 * Return: true for every verb but list and status: root's, or root's and
 * the --group's.
 */
bool revoke_verb_privileged(enum revoke_verb verb)
{
	return revoke_verbs[verb].access != REVOKE_ACCESS_ANYONE;
}

/**
 * revoke_verb_access() - who may send @verb
 * @verb: the request's verb
 *
 * Return: REVOKE_ACCESS_ANYONE, REVOKE_ACCESS_GROUP or REVOKE_ACCESS_ROOT.
 */
enum revoke_access revoke_verb_access(enum revoke_verb verb)
{
	return revoke_verbs[verb].access;
}

/**
 * revoke_access_who() - @access in words, for help and man pages
 * @access: who may send a verb
 *
 * Return: a phrase naming who may.
 */
const char *revoke_access_who(enum revoke_access access)
{
	switch (access) {
	case REVOKE_ACCESS_ANYONE:
		return "any user";
	case REVOKE_ACCESS_GROUP:
		return "root, and the members of revoke-bpfd's --group";
	default:
		return "root only, never revoke-bpfd's --group";
	}
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
	REVOKE_OK_UMOUNTED, REVOKE_OK_HOLDERS, REVOKE_OK_PAUSED,
	REVOKE_OK_RESUMED, NULL,
};
