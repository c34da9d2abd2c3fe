// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/daemon/seat.c, what it reads without maps: logind's
 * file of a seat (ACTIVE_UID=, UIDS=), udev's uaccess devices of a seat
 * (the tag's index, each device's database file: G:/Q:uaccess,
 * E:ID_SEAT=, none meaning seat0), udev's static nodes, and who a seat
 * pauses on what.  seat.c and udev_uaccess.c (the reader of udev's
 * uaccess devices it shares with pause --tag) are built in with their
 * folders relative, in a temporary one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEAT_RUN_DIR "run"
#define SEAT_UDEV_DIR "udev"
#define SEAT_DEV_DIR "dev"
#include "../../../src/daemon/seat.c"
#include "../../../src/daemon/udev_uaccess.c"

#include "tap.h"

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static char top[] = "/tmp/test_seat.XXXXXX";

static void tree(void)
{
	if (!mkdtemp(top) || chdir(top) ||
	    system("mkdir -p run/seats udev/tags/uaccess udev/data "
		   "udev/static_node-tags/uaccess dev/snd && "
		   "ln -s /dev/null dev/snd/seq && touch dev/snd/notanode"))
		exit(1);
	/* seat_save()'s file, with a session that came twice */
	put(SEAT_DIR "/seat0", "# This is private data. Do not parse.\n"
	    "IS_SEAT0=1\nCAN_MULTI_SESSION=1\nCAN_TTY=1\nCAN_GRAPHICAL=0\n"
	    "ACTIVE=3\nACTIVE_UID=1001\nSESSIONS=3 2 c1\nUIDS=1001 1002 1001\n");
	put(SEAT_DIR "/seat1", "IS_SEAT0=0\nSESSIONS=5\nUIDS=1003\n");
	/* the tag's index, and each device's database file */
	put(SEAT_TAGS_DIR "/c116:7", "");
	put(SEAT_DATA_DIR "/c116:7", "S:snd/controlC0\nE:ID_FOR_SEAT=x\n"
	    "G:seat\nG:uaccess\nQ:seat\nQ:uaccess\nV:1\n");
	put(SEAT_TAGS_DIR "/c116:8", "");
	put(SEAT_DATA_DIR "/c116:8", "E:ID_SEAT=seat1\nQ:uaccess\n");
	put(SEAT_TAGS_DIR "/c81:0", "");
	put(SEAT_DATA_DIR "/c81:0", "E:ID_SEAT=\nG:uaccess\n");
	put(SEAT_TAGS_DIR "/b8:0", "");
	put(SEAT_DATA_DIR "/b8:0", "G:systemd\nE:ID_SEAT=seat0\n");
	put(SEAT_TAGS_DIR "/c13:64", "");	/* no database file yet */
	put(SEAT_TAGS_DIR "/+sound:card0", "");
	put(SEAT_DATA_DIR "/+sound:card0", "G:uaccess\n");
	put(SEAT_STATIC_DIR "/snd\\x2fseq", "");
	put(SEAT_STATIC_DIR "/snd\\x2fnotanode", "");
	put(SEAT_STATIC_DIR "/snd\\x2ftimer", "");	/* no node */
}

static bool has_dev(const struct seat_view *v, unsigned int ma,
		    unsigned int mi)
{
	uint32_t rdev;
	size_t i;

	if (revoke_kdev(ma, mi, &rdev))
		return false;
	for (i = 0; i < v->ndevs; i++)
		if (v->devs[i].rdev == rdev && v->devs[i].type == REVOKE_RDEV_CHAR)
			return true;
	return false;
}

/* udev_uaccess.c's two readers, one at a time, into @v's devices */
static void read_into(struct seat_view *v, bool statics)
{
	struct udev_devs o = { .devs = v->devs, .n = v->ndevs,
			       .max = SEAT_DEVS_MAX };

	if (statics)
		read_static(&o);
	else
		read_tagged(v->ps->name, &o);
	v->ndevs = o.n;
}

static struct revoke_pause_key key_of(unsigned int ma, unsigned int mi,
				      uid_t uid)
{
	struct revoke_pause_key k = { .type = REVOKE_RDEV_CHAR, .uid = uid };

	revoke_kdev(ma, mi, &k.rdev);
	return k;
}

int main(void)
{
	struct policy_seat s0 = { .name = "seat0" }, s1 = { .name = "seat1" };
	struct policy_seat s2 = { .name = "seat2" };
	static struct seat_view v0, v1, v2;
	struct revoke_pause_key k;
	char out[32];

	tree();
	v0.ps = &s0;
	v1.ps = &s1;
	v2.ps = &s2;
	seat_read_state(&v0);
	seat_read_state(&v1);
	seat_read_state(&v2);
	CHECK("seat0: uid 1001 active, 1001 and 1002 with sessions, once each",
	      v0.has_active && v0.active == 1001 && v0.nuids == 2 &&
	      v0.uids[0] == 1001 && v0.uids[1] == 1002);
	CHECK("seat1: no active session, uid 1003 with one",
	      !v1.has_active && v1.nuids == 1 && v1.uids[0] == 1003);
	CHECK("a seat without a file has no session", !v2.has_active &&
	      v2.nuids == 0);
	read_into(&v0, false);
	read_into(&v1, false);
	CHECK("seat0's tagged devices: no ID_SEAT, or an empty one",
	      v0.ndevs == 2 && has_dev(&v0, 116, 7) && has_dev(&v0, 81, 0));
	CHECK("seat1's: E:ID_SEAT=seat1, tagged Q:uaccess only",
	      v1.ndevs == 1 && has_dev(&v1, 116, 8));
	CHECK("not tagged uaccess in its database, not initialized, or no "
	      "node: none of the seat's", !has_dev(&v0, 13, 64));
	read_into(&v0, true);
	CHECK("udev's static node tagged uaccess is the seat's, by the number "
	      "of its node", v0.ndevs == 3 && has_dev(&v0, 1, 3));
	v2.ndevs = 0;
	seat_read_devices(&v2);
	CHECK("both readers at once: seat2 has the static node only",
	      v2.ndevs == 1 && has_dev(&v2, 1, 3));
	seat_read_devices(&v0);
	CHECK("a pass over a seat's devices again gives each once",
	      v0.ndevs == 3);
	CHECK("udev's uaccess index has c116:7 and not c1:3",
	      udev_uaccess_indexed("c116:7") && !udev_uaccess_indexed("c1:3"));
	k = key_of(116, 7, 1002);
	CHECK("seat0 pauses uid 1002, inactive, on its device",
	      seat_wants(&v0, &k));
	k = key_of(116, 7, 1001);
	CHECK("not uid 1001, active", !seat_wants(&v0, &k));
	k = key_of(116, 7, 1004);
	CHECK("nor a uid without a session there", !seat_wants(&v0, &k));
	k = key_of(116, 8, 1002);
	CHECK("nor on another seat's device", !seat_wants(&v0, &k));
	v0.uids[v0.nuids++] = 0;
	k = key_of(116, 7, 0);
	CHECK("nor uid 0, ever", !seat_wants(&v0, &k));
	read_into(&v1, false);
	k = key_of(116, 8, 1003);
	CHECK("with no active session, every user with one is paused",
	      seat_wants(&v1, &k));
	unescape("a\\x2fb\\x5cc\\x", out, sizeof(out));
	CHECK("udev's \\xNN escapes are read, a broken one kept",
	      !strcmp(out, "a/b\\c\\x"));
	if (chdir("/") || system(strcat((char[64]){ "rm -rf " }, top)))
		return 1;
	return tap_done();
}
