// SPDX-License-Identifier: GPL-2.0
/*
 * declared_keys.c - the record of the entries declared lines added, the
 * only ones an apply ever lifts.  It outlives the daemon as the pins do:
 * a file beside the socket (/run/revoke-bpf/declared.state), rewritten
 * whole (a new file renamed over it) after each change, stamped with the
 * id of the pinned revoked set, so that a record of pins since removed
 * (unload, rm -r of the pin folder, a reboot) is not believed.
 *
 * An admin's add of an entry a line added makes it the admin's (it
 * leaves the record); add --persist makes it local.conf's line's; a del
 * by hand of an entry a line added is refused, naming the line.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"

/**
 * declared_find() - the record's entry of @key
 * @dc: the declared state
 * @key: an entry, as a del request's fields
 *
 * Return: it, or NULL.
 */
struct declared_key *declared_find(struct declared *dc, const char *key)
{
	size_t i;

	for (i = 0; i < dc->nkeys; i++)
		if (!strcmp(dc->keys[i].key, key))
			return &dc->keys[i];
	return NULL;
}

/**
 * declared_record() - put @key in the record, added by line @src
 * @dc: the declared state
 * @key: the entry
 * @src: "NAME.conf:LINE"
 *
 * Return: 0 or -ENOMEM.
 */
int declared_record(struct declared *dc, const char *key, const char *src)
{
	struct declared_key *k = declared_find(dc, key);

	if (!k) {
		if (dc->nkeys == dc->cap) {
			k = realloc(dc->keys, (dc->cap * 2 + 8) * sizeof(*k));
			if (!k)
				return -ENOMEM;
			dc->keys = k;
			dc->cap = dc->cap * 2 + 8;
		}
		k = &dc->keys[dc->nkeys++];
		memset(k, 0, sizeof(*k));
		snprintf(k->key, sizeof(k->key), "%s", key);
	}
	snprintf(k->src, sizeof(k->src), "%s", src);
	k->seen = true;
	return 0;
}

/**
 * declared_drop() - take @key out of the record
 * @dc: the declared state
 * @key: the entry
 */
void declared_drop(struct declared *dc, const char *key)
{
	struct declared_key *k = declared_find(dc, key);

	if (k)
		*k = dc->keys[--dc->nkeys];
}

/* The id of the pinned revoked set: the record's stamp; 0 if unknown. */
static unsigned int declared_stamp(struct daemon *d)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(d->rb.table_fd, &info, &len))
		return 0;
	return info.id;
}

/**
 * declared_load() - read the record, if it is the pins' own
 * @d: the daemon
 *
 * Read once; a record stamped with other pins' id is forgotten.
 *
 * Return: 0, or a negative errno (the record is then empty).
 */
int declared_load(struct daemon *d)
{
	static bool loaded;
	char line[DECLARED_KEY_LEN + DECLARED_SRC_LEN + 16], *tab;
	unsigned int stamp = 0;
	FILE *f;

	if (loaded)
		return 0;
	loaded = true;
	f = fopen(d->decl.state, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, "stamp=%u", &stamp) != 1 || !stamp ||
	    stamp != declared_stamp(d)) {
		log_info("declared: %s is of other pins; forgotten\n",
			 d->decl.state);
		fclose(f);
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		tab = strchr(line, '\t');
		if (!tab)
			continue;
		*tab = '\0';
		declared_record(&d->decl, line, tab + 1);
	}
	fclose(f);
	return 0;
}

/**
 * declared_save() - write the record: a new file, renamed over the old
 * @d: the daemon
 *
 * Return: 0 or a negative errno (logged).
 */
int declared_save(struct daemon *d)
{
	struct declared *dc = &d->decl;
	char tmp[PATH_MAX];
	size_t i;
	FILE *f;
	int err = 0;

	snprintf(tmp, sizeof(tmp), "%s.new", dc->state);
	f = fopen(tmp, "we");
	if (!f) {
		err = -errno;
		goto out;
	}
	fprintf(f, "stamp=%u\n", declared_stamp(d));
	for (i = 0; i < dc->nkeys; i++)
		fprintf(f, "%s\t%s\n", dc->keys[i].key, dc->keys[i].src);
	if (fflush(f) || fsync(fileno(f)))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, dc->state))
		err = -errno;
out:
	if (err) {
		log_err("cannot write %s: %s; after a restart the entries "
			"declared lines added are taken for an admin's\n",
			dc->state, strerror(-err));
		unlink(tmp);
	}
	return err;
}

/**
 * declared_forget() - the pins are gone (unload): so is the record
 * @d: the daemon
 */
void declared_forget(struct daemon *d)
{
	d->decl.nkeys = 0;
	unlink(d->decl.state);
}

/* An inode's entry, as a del request's fields. */
static void declared_ino_key(char *out, uint64_t ino, uint32_t kdev)
{
	snprintf(out, DECLARED_KEY_LEN, REVOKE_FIELD_INO "=%llu "
		 REVOKE_FIELD_DEV "=%u:%u", (unsigned long long)ino,
		 revoke_kdev_major(kdev), revoke_kdev_minor(kdev));
}

/**
 * declared_keys_of() - the entries an add or del request names
 * @d: the daemon
 * @peer: its peer (and the descriptor of a path=)
 * @req: the request
 * @keys: the entries, as del requests' fields
 * @max: room in @keys, NAMED_MAX_KEYS at least
 *
 * The same lookups as the verbs' own (request_keys_find(),
 * filesystems_named(), devices_key_of()).
 *
 * Return: their number; 0 if none (a del of nothing revoked), or -1 if
 * they cannot be told.
 */
int declared_keys_of(struct daemon *d, const struct ctl_peer *peer,
		     const struct revoke_req *req,
		     char keys[][DECLARED_KEY_LEN], size_t max)
{
	struct revoke_rdev_key rk;
	struct named_file nf;
	struct fs_target t;
	char why[512];
	uint32_t s_dev;
	size_t i;
	int err;

	if (req->has_rdev) {
		rk = devices_key_of(req);
		snprintf(keys[0], DECLARED_KEY_LEN, REVOKE_FIELD_RDEV "=%u:%u "
			 REVOKE_FIELD_TYPE "=%s", revoke_kdev_major(rk.rdev),
			 revoke_kdev_minor(rk.rdev),
			 revoke_rdev_type_name(rk.type));
		return 1;
	}
	if (req->fs) {
		if (req->fs == REVOKE_FS_DEV) {
			if (revoke_kdev(req->fs_major, req->fs_minor, &s_dev))
				return -1;
		} else if (filesystems_named(d, peer, req, &t, why,
					     sizeof(why))) {
			return -1;
		} else {
			s_dev = t.s_dev;
		}
		snprintf(keys[0], DECLARED_KEY_LEN, REVOKE_FIELD_FS "=%u:%u",
			 revoke_kdev_major(s_dev), revoke_kdev_minor(s_dev));
		return 1;
	}
	err = request_keys_find(d, peer, req, &nf, why, sizeof(why));
	if (err)
		return err > 0 ? 0 : -1;
	for (i = 0; i < nf.nkeys && i < max; i++)
		declared_ino_key(keys[i], nf.keys[i].ino, nf.keys[i].dev);
	return (int)i;
}

/**
 * declared_keys_answered() - the entries an add's answer names
 * @answer: the answer: "ok added|already", then "dev=MAJ:MIN ino=N
 *	[also=MAJ:MIN/N]...", "rdev=MAJ:MIN type=T ..." or "fs=MAJ:MIN ..."
 * @added: set: the answer is "ok added"
 * @keys: the entries, as del requests' fields
 * @max: room in @keys
 *
 * Return: their number, or -1 if the answer is an error.
 */
int declared_keys_answered(const char *answer, bool *added,
			   char keys[][DECLARED_KEY_LEN], size_t max)
{
	char line[512], a[32], b[32], *p;
	unsigned long long ino;
	unsigned int ma, mi;
	size_t n = 0;

	if (!answer || strncmp(answer, "ok ", 3) || !strchr(answer, '\n'))
		return -1;
	*added = !strncmp(answer + 3, REVOKE_OK_ADDED "\n",
			  strlen(REVOKE_OK_ADDED) + 1);
	p = strchr(answer, '\n') + 1;
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"), p);
	if (revoke_kv_get(line, REVOKE_FIELD_RDEV, a, sizeof(a)) &&
	    revoke_kv_get(line, REVOKE_FIELD_TYPE, b, sizeof(b))) {
		snprintf(keys[n++], DECLARED_KEY_LEN, REVOKE_FIELD_RDEV "=%s "
			 REVOKE_FIELD_TYPE "=%s", a, b);
	} else if (revoke_kv_get(line, REVOKE_FIELD_FS, a, sizeof(a))) {
		snprintf(keys[n++], DECLARED_KEY_LEN, REVOKE_FIELD_FS "=%s", a);
	} else if (revoke_kv_get(line, REVOKE_FIELD_DEV, a, sizeof(a)) &&
		   revoke_kv_get(line, REVOKE_FIELD_INO, b, sizeof(b))) {
		snprintf(keys[n++], DECLARED_KEY_LEN, REVOKE_FIELD_INO "=%s "
			 REVOKE_FIELD_DEV "=%s", b, a);
		/* an overlayfs file's other real file: also=MAJ:MIN/N */
		for (p = strstr(line, " " REVOKE_FIELD_ALSO "="); p && n < max;
		     p = strstr(p + 1, " " REVOKE_FIELD_ALSO "="))
			if (sscanf(p, " " REVOKE_FIELD_ALSO "=%u:%u/%llu", &ma,
				   &mi, &ino) == 3)
				snprintf(keys[n++], DECLARED_KEY_LEN,
					 REVOKE_FIELD_INO "=%llu "
					 REVOKE_FIELD_DEV "=%u:%u", ino, ma, mi);
	}
	return (int)n;
}

/**
 * declared_refuse_del() - refuse an admin's del of what a line added
 * @d: the daemon
 * @peer: who sent it
 * @req: the del
 * @resp: the answer, if refused
 *
 * Lifted by hand, the entry would come back at the next apply: the line
 * is what to remove.
 *
 * Return: true if refused (answered).
 */
bool declared_refuse_del(struct daemon *d, const struct ctl_peer *peer,
			 const struct revoke_req *req, struct rbuf *resp)
{
	char keys[NAMED_MAX_KEYS][DECLARED_KEY_LEN];
	struct declared_key *k = NULL;
	int i, n;

	if (d->decl.applying || !d->decl.nkeys)
		return false;
	n = declared_keys_of(d, peer, req, keys, NAMED_MAX_KEYS);
	for (i = 0; i < n && !k; i++)
		k = declared_find(&d->decl, keys[i]);
	if (!k)
		return false;
	answer_err(resp, EBUSY, "%s is declared by %s/%s; remove that line "
		   "and run 'revoke-bpf reload' to lift it", k->key,
		   d->decl.dir, k->src);
	return true;
}

/*
 * add --persist: @text as a line of local.conf (created 0644), unless it
 * is one already; its number, or a negative errno.
 */
static int declared_persist_line(struct daemon *d, const char *text)
{
	char path[PATH_MAX], *line = NULL;
	int no = 0, found = 0, fd, err = 0;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	if (!mkdir(d->decl.dir, 0755))
		chmod(d->decl.dir, 0755);	/* not the daemon's umask */
	else if (errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/" DECLARED_LOCAL, d->decl.dir);
	fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	fchmod(fd, 0644);	/* not the daemon's umask */
	f = fdopen(fd, "a+");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	while (!found && (n = getline(&line, &cap, f)) >= 0) {
		no++;
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		if (!strcmp(line, text))
			found = no;
	}
	free(line);
	if (!found && fprintf(f, "%s\n", text) < 0)
		err = -EIO;
	if (fflush(f) || fsync(fileno(f)))
		err = -errno;
	fclose(f);
	return err ? err : found ? found : no + 1;
}

/* add --persist: the line written and its entries recorded, or why not */
static void declared_persist(struct daemon *d, const struct revoke_req *req,
			     char keys[][DECLARED_KEY_LEN], int n,
			     struct rbuf *resp)
{
	char text[REVOKE_REQ_MAX], src[DECLARED_SRC_LEN], enc[3 * PATH_MAX];
	const char *why = NULL;
	int no, i;

	if (req->has_path && !strncmp(req->path, REVOKE_ELLIPSIS,
				      REVOKE_ELLIPSIS_LEN))
		why = "the path is too long to be written whole";
	else if (revoke_target_format(req, req->has_path ? req->path : NULL,
				      text, sizeof(text)))
		why = "the line cannot be written (a newline in its path?)";
	no = why ? 0 : declared_persist_line(d, text);
	if (!why && no < 0)
		why = strerror(-no);
	if (why) {
		log_err("add --persist: not written to %s/" DECLARED_LOCAL
			": %s\n", d->decl.dir, why);
		revoke_pct_encode(why, enc, sizeof(enc));
		rbuf_printf(resp, REVOKE_LINE_PERSISTED " " REVOKE_FIELD_REASON
			    "=%s\n", enc);
		return;
	}
	snprintf(src, sizeof(src), DECLARED_LOCAL ":%d", no);
	for (i = 0; i < n; i++)
		declared_record(&d->decl, keys[i], src);
	declared_save(d);
	snprintf(text, sizeof(text), "%s/" DECLARED_LOCAL, d->decl.dir);
	revoke_pct_encode(text, enc, sizeof(enc));
	rbuf_printf(resp, REVOKE_LINE_PERSISTED " " REVOKE_FIELD_FILE "=%s "
		    REVOKE_FIELD_LINE "=%d\n", enc, no);
}

/**
 * declared_after_add() - an admin's add is done: its entries are the
 *	admin's, or, with persist=yes, local.conf's line's
 * @d: the daemon
 * @peer: who added: only root's add takes a line's entry over (a
 *	--group member's add then del would lift what a line declares)
 * @req: the add
 * @resp: its answer; add --persist's line is added to it
 */
void declared_after_add(struct daemon *d, const struct ctl_peer *peer,
			const struct revoke_req *req, struct rbuf *resp)
{
	char keys[NAMED_MAX_KEYS][DECLARED_KEY_LEN];
	bool added, changed = false;
	int i, n;

	if (d->decl.applying)
		return;
	n = declared_keys_answered(resp->data, &added, keys, NAMED_MAX_KEYS);
	if (n < 0)
		return;
	if (req->persist) {
		declared_persist(d, req, keys, n, resp);
		return;
	}
	for (i = 0; peer->uid == 0 && i < n; i++) {
		if (!declared_find(&d->decl, keys[i]))
			continue;
		log_info("declared: %s added by hand: the admin's from now "
			 "on\n", keys[i]);
		declared_drop(&d->decl, keys[i]);
		changed = true;
	}
	if (changed)
		declared_save(d);
}

/* The record's key of a list line, "" for a pause. */
static void declared_key_of_line(const char *line, char *key)
{
	char kind[32] = "", a[32], b[32];

	key[0] = '\0';
	revoke_kv_get(line, REVOKE_FIELD_KIND, kind, sizeof(kind));
	if (!strcmp(kind, "device") &&
	    revoke_kv_get(line, REVOKE_FIELD_RDEV, a, sizeof(a)) &&
	    revoke_kv_get(line, REVOKE_FIELD_TYPE, b, sizeof(b)))
		snprintf(key, DECLARED_KEY_LEN, REVOKE_FIELD_RDEV "=%s "
			 REVOKE_FIELD_TYPE "=%s", a, b);
	else if (!strcmp(kind, "filesystem") &&
		 revoke_kv_get(line, REVOKE_FIELD_FS, a, sizeof(a)))
		snprintf(key, DECLARED_KEY_LEN, REVOKE_FIELD_FS "=%s", a);
	else if ((!strcmp(kind, "revoked") || !strcmp(kind, "dead")) &&
		 revoke_kv_get(line, REVOKE_FIELD_DEV, a, sizeof(a)) &&
		 revoke_kv_get(line, REVOKE_FIELD_INO, b, sizeof(b)))
		snprintf(key, DECLARED_KEY_LEN, REVOKE_FIELD_INO "=%s "
			 REVOKE_FIELD_DEV "=%s", b, a);
}

/**
 * declared_list_mark() - list's lines, each entry a line added marked
 *	"from=NAME.conf:LINE"
 * @d: the daemon
 * @body: the lines
 * @len: their length
 * @resp: the answer
 */
void declared_list_mark(struct daemon *d, const char *body, size_t len,
			struct rbuf *resp)
{
	char line[8192], key[DECLARED_KEY_LEN], enc[3 * DECLARED_SRC_LEN];
	const struct declared_key *k;
	size_t at = 0, n;

	while (at < len) {
		n = strcspn(body + at, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)n, body + at);
		at += n + 1;
		declared_key_of_line(line, key);
		k = key[0] ? declared_find(&d->decl, key) : NULL;
		if (k && revoke_pct_encode(k->src, enc, sizeof(enc)) >= 0)
			rbuf_printf(resp, "%s " REVOKE_FIELD_FROM "=%s\n", line,
				    enc);
		else
			rbuf_printf(resp, "%s\n", line);
	}
}
