// SPDX-License-Identifier: GPL-2.0
/*
 * udev_uaccess.c - the device nodes udev tagged uaccess on a seat, the
 * ones logind's ACL code (logind-acl.c) picks: tagged uaccess by udev
 * (the index /run/udev/tags/uaccess/, each checked in /run/udev/data/),
 * with ID_SEAT= the seat (none: seat0) and a device node; and udev's
 * static nodes tagged uaccess (/run/udev/static_node-tags/uaccess/), on
 * every seat.  One reader for the seat follower (seat.c) and pause --tag
 * (pause_tags.c).
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/common.h"
#include "udev_uaccess.h"

/* @ma:@mi of @type, once */
static void add_dev(struct udev_devs *v, uint32_t type, unsigned int ma,
		    unsigned int mi)
{
	struct revoke_rdev_key k = { .type = type };
	size_t i;

	if (v->n == v->max || revoke_kdev(ma, mi, &k.rdev))
		return;
	for (i = 0; i < v->n; i++)
		if (v->devs[i].rdev == k.rdev && v->devs[i].type == k.type)
			return;
	v->devs[v->n++] = k;
}

/*
 * Is udev's entry @id (cMAJ:MIN) tagged uaccess and on seat @seat?  Its
 * database file says so (G: or Q: tags, E:ID_SEAT=); no file: not yet
 * initialized, which logind skips too.
 */
static bool udev_on_seat(const char *id, const char *seat)
{
	char path[320], line[512];
	bool tagged = false, here = !strcmp(seat, "seat0");
	FILE *f;

	snprintf(path, sizeof(path), SEAT_DATA_DIR "/%s", id);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, "G:uaccess") || !strcmp(line, "Q:uaccess"))
			tagged = true;
		else if (!strncmp(line, "E:ID_SEAT=", 10))
			here = !strcmp(line + 10, seat) ||
			       (!line[10] && !strcmp(seat, "seat0"));
	}
	fclose(f);
	return tagged && here;
}

/* The devices udev tagged uaccess for @seat: nodes only. */
static void read_tagged(const char *seat, struct udev_devs *v)
{
	unsigned int ma, mi;
	struct dirent *e;
	char c, end;
	DIR *dp;

	dp = opendir(SEAT_TAGS_DIR);
	if (!dp)
		return;
	while ((e = readdir(dp))) {
		/* "+sound:card0" and the like have no node */
		if (sscanf(e->d_name, "%c%u:%u%c", &c, &ma, &mi, &end) != 3 ||
		    (c != 'c' && c != 'b'))
			continue;
		if (udev_on_seat(e->d_name, seat))
			add_dev(v, c == 'b' ? REVOKE_RDEV_BLOCK : REVOKE_RDEV_CHAR,
				ma, mi);
	}
	closedir(dp);
}

/* "snd\x2fseq" as "snd/seq": udev's escaping of a static node's name */
static void unescape(const char *in, char *out, size_t len)
{
	unsigned int x;
	size_t n = 0;

	while (*in && n + 1 < len) {
		if (in[0] == '\\' && in[1] == 'x' && sscanf(in + 2, "%2x", &x) == 1) {
			out[n++] = (char)x;
			in += 4;
		} else {
			out[n++] = *in++;
		}
	}
	out[n] = '\0';
}

/* udev's static nodes tagged uaccess (snd/seq, snd/timer): every seat's. */
static void read_static(struct udev_devs *v)
{
	char name[256], path[300];
	struct dirent *e;
	struct stat st;
	DIR *dp;

	dp = opendir(SEAT_STATIC_DIR);
	if (!dp)
		return;
	while ((e = readdir(dp))) {
		if (e->d_name[0] == '.')
			continue;
		unescape(e->d_name, name, sizeof(name));
		snprintf(path, sizeof(path), SEAT_DEV_DIR "/%s", name);
		if (strstr(name, "..") || stat(path, &st) ||
		    !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)))
			continue;
		add_dev(v, S_ISBLK(st.st_mode) ? REVOKE_RDEV_BLOCK :
			REVOKE_RDEV_CHAR, major(st.st_rdev), minor(st.st_rdev));
	}
	closedir(dp);
}

/**
 * udev_uaccess_devices() - the device nodes udev tagged uaccess on a seat
 * @seat: the seat's name
 * @out: each device is added once, up to @out->max
 *
 * A device whose database file is not there yet (udev has not
 * initialized it) is not one; nor is one without a node.
 */
void udev_uaccess_devices(const char *seat, struct udev_devs *out)
{
	read_tagged(seat, out);
	read_static(out);
}

/**
 * udev_uaccess_indexed() - is udev's entry @id in the uaccess tag's index?
 * @id: a name in udev's database, "c116:7"
 *
 * Return: true if udev tagged it uaccess (on some seat).
 */
bool udev_uaccess_indexed(const char *id)
{
	char path[320];

	snprintf(path, sizeof(path), SEAT_TAGS_DIR "/%s", id);
	return !access(path, F_OK);
}
