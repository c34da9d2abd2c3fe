// SPDX-License-Identifier: GPL-2.0
/*
 * fs_swap.c - /proc/swaps, parsed.  The kernel writes each swap area's
 * file with d_path() relative to the reader's root, escaping " \t\n\\" in
 * octal (\040), and " (deleted)" after a deleted file; its lines keep the
 * order of the swap areas, the same in every namespace.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "umount.h"

#define DELETED " (deleted)"

static int parse_line(char *line, unsigned int index, struct fs_swap_entry *e)
{
	char *save = NULL, *name, *type;
	size_t n;

	name = strtok_r(line, " \t", &save);
	type = strtok_r(NULL, " \t", &save);
	if (!name || !type || name[0] != '/')
		return -EINVAL;
	fs_mounts_unescape(name);
	n = strlen(name);
	e->deleted = n > strlen(DELETED) &&
		     !strcmp(name + n - strlen(DELETED), DELETED);
	if (e->deleted)
		name[n - strlen(DELETED)] = '\0';
	e->index = index;
	e->is_file = !strcmp(type, "file");
	e->path = strdup(name);
	return e->path ? 0 : -ENOMEM;
}

/**
 * fs_swap_parse() - parse /proc/swaps
 * @text: its text, NUL-terminated (changed)
 * @out: its swap areas (fs_swap_free() them)
 * @nr: their number
 *
 * Return: 0, -EINVAL if a line is not a swap area's (the header aside),
 * -ENOMEM.
 */
int fs_swap_parse(char *text, struct fs_swap_entry **out, size_t *nr)
{
	struct fs_swap_entry *e = NULL, *ne;
	char *save = NULL, *line;
	unsigned int index = 0;
	int err = 0;

	*nr = 0;
	line = strtok_r(text, "\n", &save);
	if (line && !strncmp(line, "Filename", 8))
		line = strtok_r(NULL, "\n", &save);
	for (; line; line = strtok_r(NULL, "\n", &save)) {
		ne = realloc(e, (*nr + 1) * sizeof(*e));
		if (!ne) {
			err = -ENOMEM;
			break;
		}
		e = ne;
		memset(&e[*nr], 0, sizeof(*e));
		err = parse_line(line, index++, &e[*nr]);
		if (err)
			break;
		(*nr)++;
	}
	if (err) {
		fs_swap_free(e, *nr);
		*nr = 0;
		e = NULL;
	}
	*out = e;
	return err;
}

/**
 * fs_swap_free() - free what fs_swap_parse() gave
 * @e: the swap areas
 * @nr: their number
 */
void fs_swap_free(struct fs_swap_entry *e, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(e[i].path);
	free(e);
}
