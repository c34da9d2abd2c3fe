// SPDX-License-Identifier: GPL-2.0
/*
 * key.c - parsing and encoding of the (device, inode) key.
 *
 * User space's st_dev (glibc's makedev() layout) and the kernel's s_dev
 * (MAJOR << 20 | MINOR) are different numbers for the same filesystem:
 * ext4 on loop0 is st_dev 1792 but s_dev 7 << 20.  Everything that builds
 * a struct revoke_key goes through revoke_kdev().
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "key.h"

/**
 * revoke_parse_u64() - parse a decimal unsigned 64-bit number strictly
 * @s: the text; only the digits 0-9, nothing before or after
 * @out: the value
 *
 * Return: 0, -EINVAL if @s is empty or not all digits, -ERANGE if the
 * value does not fit in 64 bits.
 */
int revoke_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned int d;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		d = (unsigned int)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/**
 * revoke_parse_duration_ms() - parse a duration given on the command line
 * @s: a number of seconds ("2"), or a number with a unit: "ms", "s",
 *	"min" ("100ms", "2s", "1min"); digits only, no sign or fraction
 * @max_ms: the largest duration accepted, in milliseconds
 * @ms: the duration in milliseconds
 *
 * Every option that takes a duration takes it this way: seconds unless
 * the unit says otherwise, as sleep(1) and systemd's time spans do.
 *
 * Return: 0, -EINVAL if @s is not a number with one of those units,
 * -ERANGE if it is longer than @max_ms.
 */
int revoke_parse_duration_ms(const char *s, uint64_t max_ms, uint64_t *ms)
{
	static const struct { const char *unit; uint64_t ms; } units[] = {
		{ "", 1000 }, { "s", 1000 }, { "ms", 1 }, { "min", 60000 },
	};
	char num[32];
	size_t digits, i;
	uint64_t v;

	if (!s)
		return -EINVAL;
	digits = strspn(s, "0123456789");
	if (!digits || digits >= sizeof(num))
		return digits ? -ERANGE : -EINVAL;
	memcpy(num, s, digits);
	num[digits] = '\0';
	if (revoke_parse_u64(num, &v))
		return -ERANGE;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(s + digits, units[i].unit))
			continue;
		if (v > max_ms / units[i].ms)
			return -ERANGE;
		*ms = v * units[i].ms;
		return 0;
	}
	return -EINVAL;
}

/**
 * revoke_parse_ino() - parse an inode number
 * @s: decimal text
 * @ino: the inode number, never 0
 *
 * Return: 0, -EINVAL for anything but digits or for 0, -ERANGE past 2^64-1.
 */
int revoke_parse_ino(const char *s, uint64_t *ino)
{
	uint64_t v;
	int err;

	err = revoke_parse_u64(s, &v);
	if (err)
		return err;
	if (v == 0)
		return -EINVAL;
	*ino = v;
	return 0;
}

/* "A:B", two decimal numbers: 0, -EINVAL, or -ERANGE past 64 bits. */
static int parse_pair(const char *s, uint64_t *a, uint64_t *b)
{
	char buf[64];
	char *colon;
	int err;

	if (!s || strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (!colon)
		return -EINVAL;
	*colon = '\0';
	err = revoke_parse_u64(buf, a);
	if (!err)
		err = revoke_parse_u64(colon + 1, b);
	return err;
}

/**
 * revoke_parse_devspec() - parse "MAJ:MIN"
 * @s: text of the form MAJOR:MINOR, both decimal
 * @major: major number (< 4096)
 * @minor: minor number (< 2^20)
 *
 * Return: 0, -EINVAL for a malformed spec, -ERANGE if a number is too big
 * for the kernel's dev_t.
 */
int revoke_parse_devspec(const char *s, unsigned int *major, unsigned int *minor)
{
	uint64_t maj, min;
	int err;

	err = parse_pair(s, &maj, &min);
	if (err)
		return err;
	if (maj > REVOKE_KDEV_MAJORMAX || min > REVOKE_KDEV_MINORMASK)
		return -ERANGE;
	*major = (unsigned int)maj;
	*minor = (unsigned int)min;
	return 0;
}

/**
 * revoke_parse_fdspec() - parse "PID:FD", a descriptor of a process
 * @s: the text
 * @pid: the process, 1 to 4194304 (PID_MAX_LIMIT)
 * @fd: the descriptor, 0 to INT_MAX
 *
 * Return: 0, -EINVAL if @s is not two decimal numbers joined by a colon,
 * or -ERANGE if one is out of range.
 */
int revoke_parse_fdspec(const char *s, unsigned int *pid, unsigned int *fd)
{
	uint64_t p, f;
	int err;

	err = parse_pair(s, &p, &f);
	if (err)
		return err;
	if (!p || p > REVOKE_PID_MAX || f > INT32_MAX)
		return -ERANGE;
	*pid = (unsigned int)p;
	*fd = (unsigned int)f;
	return 0;
}

/**
 * revoke_kdev() - encode a device number the way the kernel's s_dev holds it
 * @major: major number
 * @minor: minor number
 * @kdev: MAJOR << 20 | MINOR
 *
 * Return: 0, or -ERANGE if either number does not fit.
 */
int revoke_kdev(unsigned int major, unsigned int minor, uint32_t *kdev)
{
	if (major > REVOKE_KDEV_MAJORMAX || minor > REVOKE_KDEV_MINORMASK)
		return -ERANGE;
	*kdev = (uint32_t)major << REVOKE_KDEV_MINORBITS | minor;
	return 0;
}

/**
 * revoke_kdev_from_stdev() - convert stat(2)'s st_dev to the kernel's s_dev
 * @st_dev: as returned by stat(2)
 * @kdev: the kernel encoding
 *
 * Return: 0, or -ERANGE for a device number the kernel cannot have made.
 */
int revoke_kdev_from_stdev(dev_t st_dev, uint32_t *kdev)
{
	return revoke_kdev(major(st_dev), minor(st_dev), kdev);
}

unsigned int revoke_kdev_major(uint32_t kdev)
{
	return kdev >> REVOKE_KDEV_MINORBITS;
}

unsigned int revoke_kdev_minor(uint32_t kdev)
{
	return kdev & REVOKE_KDEV_MINORMASK;
}
