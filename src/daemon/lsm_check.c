// SPDX-License-Identifier: GPL-2.0
/*
 * lsm_check.c - read the kernel's list of active LSMs and explain how to
 * enable BPF LSM when it is missing.
 *
 * A "bpf" in the list is necessary, not sufficient: the final word is
 * whether an LSM program loads and attaches, which store.c tries.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "lsm_check.h"

static int read_lsm_file(char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(REVOKE_LSM_FILE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/**
 * revoke_lsm_list() - the comma-separated list of active LSMs
 * @buf: output
 * @len: size of @buf
 *
 * Mounts securityfs on /sys/kernel/security if it is not mounted yet.
 *
 * Return: 0, or a negative errno if the list cannot be read.
 */
int revoke_lsm_list(char *buf, size_t len)
{
	int err;

	err = read_lsm_file(buf, len);
	if (err == -ENOENT &&
	    mount("securityfs", "/sys/kernel/security", "securityfs", 0, NULL) == 0)
		err = read_lsm_file(buf, len);
	return err;
}

/**
 * revoke_lsm_has_bpf() - does the LSM list name bpf?
 * @list: comma-separated list as in /sys/kernel/security/lsm
 */
bool revoke_lsm_has_bpf(const char *list)
{
	const char *p = list;
	size_t n;

	while (*p) {
		n = strcspn(p, ",");
		if (n == 3 && !strncmp(p, "bpf", 3))
			return true;
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

/**
 * revoke_lsm_advice() - one line telling how to enable BPF LSM
 * @list: the current LSM list (may be empty)
 * @buf: output
 * @len: size of @buf
 */
void revoke_lsm_advice(const char *list, char *buf, size_t len)
{
	snprintf(buf, len,
		 "BPF LSM is not active (active LSMs: \"%s\"); boot with "
		 "lsm=%s%sbpf on the kernel command line (for GRUB: add it to "
		 "GRUB_CMDLINE_LINUX in /etc/default/grub, run update-grub and "
		 "reboot); the kernel needs CONFIG_BPF_LSM=y",
		 list, list, *list ? "," : "");
}
