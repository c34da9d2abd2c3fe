/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctl_verbs.h - the control socket's verbs, in one list (ctl_verbs.c):
 * each verb's name on the wire, who may send it, and which request fields
 * it takes.  revoke-bpf's help for each command is the CLI's (cli_help.c),
 * and says who may use it from here.
 *
 * Adding a verb: an entry here and in ctl_verbs.c, one handler in the
 * daemon's table, one do_* function in the CLI's cmds[] and its help in
 * cli_help.c.
 */
#ifndef REVOKE_CTL_VERBS_H
#define REVOKE_CTL_VERBS_H

#include <stdbool.h>

enum revoke_verb {
	REVOKE_VERB_ADD,
	REVOKE_VERB_DEL,
	REVOKE_VERB_LIST,
	REVOKE_VERB_STATUS,
	REVOKE_VERB_EVENTS,
	REVOKE_VERB_UNLOAD,
	REVOKE_VERB_UEVENT,
	REVOKE_VERB_RELOAD,
	REVOKE_VERB_UMOUNT,
	REVOKE_VERB_HOLDERS,
	REVOKE_VERB_PAUSE,
	REVOKE_VERB_RESUME,
	REVOKE_VERB_COUNT,
};

/* Which request fields a verb takes (struct revoke_verb_info.fields). */
#define REVOKE_FIELDS_TARGET	0x1	/* path, ino, dev, rdev, type */
#define REVOKE_FIELDS_ADD	0x2	/* removed, cause, release, timeout_ms, spare */
#define REVOKE_FIELDS_UEVENT	0x4	/* action, rdev, type, p.KEY */
#define REVOKE_FIELDS_FS	0x8	/* fs */
#define REVOKE_FIELDS_PAUSE	0x10	/* uid, rdev, type, subsystem, errno, cause */

/**
 * enum revoke_access - who may send a verb
 * @REVOKE_ACCESS_ANYONE: any user (list, status)
 * @REVOKE_ACCESS_GROUP: root, and the members of revoke-bpfd's --group
 * @REVOKE_ACCESS_ROOT: root alone, never the --group
 */
enum revoke_access {
	REVOKE_ACCESS_ANYONE,
	REVOKE_ACCESS_GROUP,
	REVOKE_ACCESS_ROOT,
};

/**
 * struct revoke_verb_info - one verb of the control socket
 * @name: the verb on the wire, and revoke-bpf's command
 * @access: who may send it
 * @fields: REVOKE_FIELDS_* it takes; none for the others
 */
struct revoke_verb_info {
	const char *name;
	enum revoke_access access;
	unsigned int fields;
};

extern const struct revoke_verb_info revoke_verbs[REVOKE_VERB_COUNT];

const char *revoke_verb_name(enum revoke_verb verb);
bool revoke_verb_privileged(enum revoke_verb verb);
enum revoke_access revoke_verb_access(enum revoke_verb verb);
const char *revoke_access_who(enum revoke_access access);
bool revoke_verb_takes(enum revoke_verb verb, unsigned int fields);
int revoke_verb_parse(const char *word, enum revoke_verb *verb);

#endif /* REVOKE_CTL_VERBS_H */
