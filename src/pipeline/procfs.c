// SPDX-License-Identifier: GPL-2.0
/*
 * procfs.c - one field of a /proc/PID/stat or /proc/PID/task/TID/stat
 * file, found past the command name, which may hold spaces and
 * parentheses.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

/**
 * procfs_stat_field() - the text of one field of a stat file
 * @path: /proc/PID/stat or /proc/PID/task/TID/stat
 * @field: its number as proc(5) counts them, 3 (the state) or later
 * @out: the field's text, NUL-terminated
 * @len: size of @out
 *
 * Return: 0, -ESRCH if the task is gone, or -EIO if the file has no such
 * field or it does not fit in @out.
 */
int procfs_stat_field(const char *path, int field, char *out, size_t len)
{
	char buf[1024], *p;
	size_t n;
	ssize_t r;
	int fd, i;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ESRCH;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return -ESRCH;
	buf[r] = '\0';
	/* "PID (COMM) STATE ...": the last ')' ends COMM */
	p = strrchr(buf, ')');
	for (i = 2; p && i < field; i++)
		p = strchr(p + 1, ' ');
	if (!p || field < 3)
		return -EIO;
	p++;
	n = strcspn(p, " \n");
	if (n >= len)
		return -EIO;
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}
