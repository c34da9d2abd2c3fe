// SPDX-License-Identifier: GPL-2.0
/*
 * declared.c - declared state (revoked.d(5)): every *.conf of the
 * folder, in name order, one revocation a line in add's own words
 * (revoke_target_parse()), applied through the add verb itself
 * (verbs_handle(), the daemon as its peer), so that a line does exactly
 * what "revoke-bpf add LINE" does; then every entry a line added and no
 * line names any more is lifted through the del verb.
 *
 * An entry an admin added (by hand, before or after) is never lifted:
 * only those in the record (declared_keys.c) are.  A line whose file or
 * mount point does not exist yet is pending: its nearest existing folder
 * is watched, and every mount change retries it (declared_watch.c).
 *
 * An apply runs at start (before READY=1), on reload and SIGHUP, and
 * after each batch of changes to the folder.  It gives the loop no turns
 * (requests wait until it ends): each line is one add.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"

/* The line being applied, and the normalised lines read so far. */
struct declared_line {
	const char *path;		/* its file, for messages */
	const char *name;		/* the file's name in the folder */
	unsigned int no;		/* its number, from 1 */
	char src[DECLARED_SRC_LEN];	/* name:no */
	char **texts;			/* every good line, normalised */
	size_t ntexts;
	size_t cap;
};

/**
 * declared_init() - nothing read yet
 * @dc: the declared state
 * @dir: the folder
 * @state: the record's file
 */
void declared_init(struct declared *dc, const char *dir, const char *state)
{
	memset(dc, 0, sizeof(*dc));
	dc->dir = dir;
	dc->state = state;
	dc->ep = dc->in = dc->mnt = dc->wd_dir = dc->wd_up = -1;
	strcpy(dc->hash, "0");
}

/*
 * What line @no of file @name added stays (seen), though the line was not
 * applied this time; @no 0: every line of the file.  A line that cannot
 * be applied now (its path renamed away by whoever owns the folder, a
 * file that cannot be read) never lifts what it revoked: only its
 * removal does.
 */
static void declared_keep(struct declared *dc, const char *name,
			  unsigned int no)
{
	char src[DECLARED_SRC_LEN];
	size_t k, n;

	n = (size_t)snprintf(src, sizeof(src), no ? "%s:%u" : "%s:", name, no);
	for (k = 0; k < dc->nkeys; k++)
		if (no ? !strcmp(dc->keys[k].src, src) :
			 !strncmp(dc->keys[k].src, src, n))
			dc->keys[k].seen = true;
}

/* A line not applied: logged, counted, and kept for reload's answer. */
static void __attribute__((format(printf, 4, 5)))
declared_problem(struct declared *dc, const struct declared_line *ln,
		 bool pending, const char *fmt, ...)
{
	char why[1024], src[PATH_MAX + 16], enc[3 * sizeof(why)];
	char esrc[3 * sizeof(src)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(src, sizeof(src), "%s:%u", ln->path, ln->no);
	log_warn("%s: %s\n", src, why);
	declared_keep(dc, ln->name, ln->no);
	dc->failed++;
	dc->pending += pending;
	if (revoke_pct_encode(why, enc, sizeof(enc)) < 0)
		strcpy(enc, "%3F");
	if (revoke_pct_encode(src, esrc, sizeof(esrc)) < 0)
		strcpy(esrc, "%3F");
	rbuf_printf(&dc->problems, REVOKE_LINE_DECLARED_ERROR " "
		    REVOKE_FIELD_SOURCE "=%s " REVOKE_FIELD_REASON "=%s "
		    REVOKE_FIELD_PENDING "=%s\n", esrc, enc,
		    pending ? "yes" : "no");
}

/* Keep @text, a good line normalised, for the hash. */
static void declared_keep_text(struct declared_line *ln, const char *text)
{
	char **t;

	if (ln->ntexts == ln->cap) {
		t = realloc(ln->texts, (ln->cap * 2 + 8) * sizeof(*t));
		if (!t)
			return;
		ln->texts = t;
		ln->cap = ln->cap * 2 + 8;
	}
	ln->texts[ln->ntexts] = strdup(text);
	if (ln->texts[ln->ntexts])
		ln->ntexts++;
}

/* a chase follows at most this many symbolic links, as the kernel does */
#define DECLARED_LINKS 40

/*
 * Open @path (absolute) with O_PATH as root would, one name at a time,
 * following a symbolic link only if root owns it.  A line is resolved
 * again at every apply, by root: a link that another user owns (in a
 * folder of theirs, a home or /tmp) would let that user choose which file
 * is revoked.  Each name is opened O_NOFOLLOW from the folder opened
 * before it, and a link's target read from the very link checked, so
 * nothing can be swapped in between.  ".." is refused.
 *
 * Return: the descriptor, or -errno: -ENOENT/-ENOTDIR (pending), -EPERM
 * with *@owner the uid of a link not root's, -EINVAL for "..", -ELOOP.
 */
static int declared_chase(const char *path, uid_t *owner)
{
	char rest[PATH_MAX], target[PATH_MAX], *name, *next;
	int dir, fd, links = 0;
	struct stat st;
	ssize_t n;

	if (snprintf(rest, sizeof(rest), "%s", path) >= (int)sizeof(rest))
		return -ENAMETOOLONG;
	dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	for (name = rest; name; name = next) {
		while (*name == '/')
			name++;
		next = strchr(name, '/');
		if (next)
			*next++ = '\0';
		if (!*name || !strcmp(name, "."))
			continue;
		if (!strcmp(name, "..")) {
			close(dir);
			return -EINVAL;
		}
		fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 && fstat(fd, &st)) {
			close(fd);
			fd = -1;
		}
		if (fd < 0) {
			fd = -errno;
			break;
		}
		if (!S_ISLNK(st.st_mode)) {
			close(dir);
			dir = fd;
			continue;
		}
		n = readlinkat(fd, "", target, sizeof(target) - 1);
		close(fd);
		if (st.st_uid != 0) {
			*owner = st.st_uid;
			fd = -EPERM;
			break;
		}
		if (n < 0 || ++links > DECLARED_LINKS) {
			fd = n < 0 ? -errno : -ELOOP;
			break;
		}
		target[n] = '\0';
		/* the link's target, then what is left after it */
		if (snprintf(target + n, sizeof(target) - (size_t)n, "/%s",
			     next ? next : "") >= (int)(sizeof(target) - (size_t)n)) {
			fd = -ENAMETOOLONG;
			break;
		}
		memcpy(rest, target, strlen(target) + 1);
		next = rest;
		if (rest[0] == '/') {
			close(dir);
			dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (dir < 0)
				return -errno;
		}
	}
	if (!name)
		return dir;	/* every name opened: the last one is it */
	close(dir);
	return fd;
}

/*
 * The descriptor an add of @op sends, opened here as revoke-bpf opens
 * it (O_PATH: nothing of the file runs), but by declared_chase(); -1
 * after saying why (pending if it does not exist yet, and its folder is
 * then watched).
 */
static int declared_open(struct daemon *d, const struct declared_line *ln,
			 const struct revoke_req *req, const char *op)
{
	struct stat st;
	uid_t owner = 0;
	int fd;

	fd = declared_chase(op, &owner);
	if (fd == -EPERM || fd == -EINVAL) {
		declared_problem(&d->decl, ln, false, fd == -EPERM ?
				 "'%s' runs through a symbolic link of uid %u; a "
				 "declared path follows only root's (name the "
				 "file it points to)" : "'%s' has a '..' in it; "
				 "name the file without it", op, (unsigned int)owner);
		return -1;
	}
	if (fd < 0)
		errno = -fd;
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR)) {
		declared_watch_pending(d, op, true);
		declared_problem(&d->decl, ln, true, "'%s' does not exist yet; "
				 "applied when it appears", op);
		return -1;
	}
	if (fd < 0 || (!req->fs && fstat(fd, &st))) {
		declared_problem(&d->decl, ln, false, "cannot open '%s': %s",
				 op, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!req->fs && (S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode))) {
		declared_problem(&d->decl, ln, false, "'%s' is a %s; revoke-bpf "
				 "revokes files and devices", op,
				 S_ISDIR(st.st_mode) ? "directory" : "socket");
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Is every entry @req names already one a line added?  Then it is kept
 * (under this line's name) and nothing is run again.  A --fs line whose
 * operand is not a mount point (yet) is pending: the filesystem under it
 * is not the one meant.  1 if so, 0 if the add must run, -1 if pending.
 */
static int declared_known(struct daemon *d, const struct declared_line *ln,
			  const struct ctl_peer *peer,
			  const struct revoke_req *req)
{
	char keys[NAMED_MAX_KEYS][DECLARED_KEY_LEN], why[256];
	struct declared_key *k;
	struct fs_target t;
	int i, n;

	if (req->fs == REVOKE_FS_PATH &&
	    !filesystems_named(d, peer, req, &t, why, sizeof(why)) &&
	    !t.mnt_root) {
		declared_watch_pending(d, req->path, false);
		declared_problem(&d->decl, ln, true, "'%s' is not a mount point "
				 "yet; applied when something is mounted there",
				 req->path);
		return -1;
	}
	n = declared_keys_of(d, peer, req, keys, NAMED_MAX_KEYS);
	if (n <= 0)
		return 0;
	for (i = 0; i < n; i++)
		if (!declared_find(&d->decl, keys[i]))
			return 0;
	for (i = 0; i < n; i++) {
		k = declared_find(&d->decl, keys[i]);
		k->seen = true;
		snprintf(k->src, sizeof(k->src), "%s", ln->src);
	}
	return 1;
}

/*
 * Add @req as revoke-bpf add would, and record what it added; an entry
 * that was already revoked and is not in the record is an admin's, and
 * stays so.  0, or -1 once said why not.
 */
static int declared_add(struct daemon *d, const struct declared_line *ln,
			struct ctl_peer *peer, const struct revoke_req *req)
{
	char buf[REVOKE_REQ_MAX], keys[NAMED_MAX_KEYS][DECLARED_KEY_LEN];
	struct declared_key *k;
	struct rbuf resp = {};
	bool added;
	int i, n, len;

	len = revoke_req_format(req, buf, sizeof(buf));
	if (len < 0) {
		declared_problem(&d->decl, ln, false, "the line is too long");
		return -1;
	}
	verbs_handle(peer, buf, (size_t)len, &resp, d);
	n = declared_keys_answered(resp.data, &added, keys, NAMED_MAX_KEYS);
	if (n < 0) {
		const char *msg = resp.data ? resp.data : "no answer";

		if (!strncmp(msg, "err ", 4) && strchr(msg + 4, ' '))
			msg = strchr(msg + 4, ' ') + 1;
		declared_problem(&d->decl, ln, false, "%.*s",
				 (int)strcspn(msg, "\n"), msg);
		rbuf_free(&resp);
		return -1;
	}
	for (i = 0; i < n; i++) {
		k = declared_find(&d->decl, keys[i]);
		if (!k && added && !declared_record(&d->decl, keys[i], ln->src))
			k = declared_find(&d->decl, keys[i]);
		if (k) {
			k->seen = true;
			snprintf(k->src, sizeof(k->src), "%s", ln->src);
		}
	}
	/* recorded before the next line: a kill -9 now loses nothing */
	if (added)
		declared_save(d);
	rbuf_free(&resp);
	return 0;
}

/* One line's words: parsed, normalised, applied. */
static void declared_line(struct daemon *d, struct declared_line *ln,
			  int argc, char **argv)
{
	struct ctl_peer peer = { .fd = -1, .sent_fd = -1, .pid = getpid() };
	struct revoke_req req = { .verb = REVOKE_VERB_ADD };
	char err[512], text[REVOKE_REQ_MAX];
	struct revoke_target t;
	int known;

	d->decl.lines++;
	if (revoke_target_parse(argc, argv, 0, &req, &t, err, sizeof(err))) {
		declared_problem(&d->decl, ln, false, "%s", err);
		return;
	}
	if (t.operand && t.operand[0] != '/') {
		declared_problem(&d->decl, ln, false, "'%s' is not an absolute "
				 "path; a declared line names files from /",
				 t.operand);
		return;
	}
	if (revoke_target_format(&req, t.operand, text, sizeof(text))) {
		declared_problem(&d->decl, ln, false, "the line is too long");
		return;
	}
	declared_keep_text(ln, text);
	if (t.operand) {
		peer.sent_fd = declared_open(d, ln, &req, t.operand);
		if (peer.sent_fd < 0)
			return;
		revoke_name_shorten(t.operand, req.path, sizeof(req.path));
		req.has_path = true;
	}
	known = declared_known(d, ln, &peer, &req);
	if (known > 0 || (!known && !declared_add(d, ln, &peer, &req)))
		d->decl.applied++;
	if (peer.sent_fd >= 0)
		close(peer.sent_fd);
}

/* Every line of one file. */
static void declared_file(struct daemon *d, struct declared_line *ln)
{
	char *line = NULL, *argv[DECLARED_WORDS];
	const char *why = "";
	size_t cap = 0;
	ssize_t n;
	int argc;
	FILE *f;

	f = fopen(ln->path, "re");
	if (!f) {
		ln->no = 0;
		declared_problem(&d->decl, ln, false, "cannot read it: %s",
				 strerror(errno));
		return;
	}
	for (ln->no = 1; (n = getline(&line, &cap, f)) >= 0; ln->no++) {
		if (n && line[n - 1] == '\n')
			line[n - 1] = '\0';
		snprintf(ln->src, sizeof(ln->src), "%s:%u", ln->name, ln->no);
		argc = revoke_target_split(line, argv, DECLARED_WORDS, &why);
		if (argc < 0) {
			d->decl.lines++;
			declared_problem(&d->decl, ln, false, "%s", why);
		} else if (argc > 0) {
			declared_line(d, ln, argc, argv);
		}
	}
	if (ferror(f)) {
		ln->no = 0;
		declared_problem(&d->decl, ln, false, "cannot read it to the "
				 "end: %s", strerror(errno));
	}
	free(line);
	fclose(f);
}

/* A file of the folder to read: NAME.conf, not a dotfile. */
static int declared_wanted(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return e->d_name[0] != '.' && n > 5 &&
	       !strcmp(e->d_name + n - 5, ".conf");
}

/* Lift every entry a line added that no line names any more. */
static void declared_lift(struct daemon *d)
{
	struct ctl_peer peer = { .fd = -1, .sent_fd = -1, .pid = getpid() };
	struct declared *dc = &d->decl;
	struct rbuf resp = {};
	char buf[128];
	size_t i = 0;
	int len;

	while (i < dc->nkeys) {
		if (dc->keys[i].seen) {
			i++;
			continue;
		}
		len = snprintf(buf, sizeof(buf), REVOKE_PROTO_MAGIC " del %s\n",
			       dc->keys[i].key);
		verbs_handle(&peer, buf, (size_t)len, &resp, d);
		log_info("declared: %s no longer listed (was %s): %.*s\n",
			 dc->keys[i].key, dc->keys[i].src,
			 resp.data ? (int)strcspn(resp.data, "\n") : 0,
			 resp.data ? resp.data : "");
		rbuf_free(&resp);
		declared_drop(dc, dc->keys[i].key);
	}
}

static int declared_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* FNV-1a 64 of the sorted normalised lines, each once, into @dc->hash. */
static void declared_hash(struct declared *dc, struct declared_line *ln)
{
	uint64_t h = 0xcbf29ce484222325ull;
	const char *p;
	size_t i;

	qsort(ln->texts, ln->ntexts, sizeof(*ln->texts), declared_cmp);
	for (i = 0; i < ln->ntexts; i++) {
		if (i && !strcmp(ln->texts[i], ln->texts[i - 1]))
			continue;
		for (p = ln->texts[i]; ; p++) {
			h ^= (unsigned char)*p;	/* the NUL ends each line */
			h *= 0x100000001b3ull;
			if (!*p)
				break;
		}
	}
	snprintf(dc->hash, sizeof(dc->hash), "%016llx", (unsigned long long)h);
	for (i = 0; i < ln->ntexts; i++)
		free(ln->texts[i]);
	free(ln->texts);
}

/* One read and apply of every file (declared_apply()). */
static void declared_apply_once(struct daemon *d)
{
	struct declared *dc = &d->decl;
	struct declared_line ln = {};
	char path[PATH_MAX];
	struct dirent **ents = NULL;
	bool serving = d->serving;
	int i, n;
	size_t k;

	declared_load(d);
	declared_watch_clear(dc);
	rbuf_free(&dc->problems);
	dc->lines = dc->applied = dc->failed = dc->pending = 0;
	for (k = 0; k < dc->nkeys; k++)
		dc->keys[k].seen = false;
	d->serving = false;	/* no turns for others: see above */
	dc->applying = true;
	n = scandir(dc->dir, &ents, declared_wanted, alphasort);
	if (n < 0 && errno != ENOENT) {
		log_err("cannot read %s: %s; nothing it declared is lifted\n",
			dc->dir, strerror(errno));
		for (k = 0; k < dc->nkeys; k++)
			dc->keys[k].seen = true;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dc->dir, ents[i]->d_name);
		ln.path = path;
		ln.name = ents[i]->d_name;
		declared_file(d, &ln);
		free(ents[i]);
	}
	free(ents);
	declared_lift(d);
	dc->applying = false;
	d->serving = serving;
	declared_hash(dc, &ln);
	/* nothing declared, nothing recorded: no file to write */
	if (dc->nkeys || !access(dc->state, F_OK))
		declared_save(d);
	log_info("declared: %u lines, %u applied, %u failed (%u pending), "
		 "hash %s\n", dc->lines, dc->applied, dc->failed, dc->pending,
		 dc->hash);
}

/**
 * declared_apply() - read the folder and make the set what it declares
 * @d: the daemon
 *
 * Adds what a line names and is not revoked, lifts what a line added
 * and no line names; counts, hash and problems are those of this read.
 * A folder that does not exist declares nothing.
 */
void declared_apply(struct daemon *d)
{
	int round;

	for (round = 0; round < 3; round++) {
		d->decl.again = false;
		declared_apply_once(d);
		if (declared_watch_settle(&d->decl))
			d->decl.again = true;
		if (!d->decl.again)
			break;
	}
}

/**
 * declared_status() - status's fields of the declared files
 * @d: the daemon
 * @resp: the answer
 */
void declared_status(const struct daemon *d, struct rbuf *resp)
{
	const struct declared *dc = &d->decl;
	char enc[3 * PATH_MAX];

	if (revoke_pct_encode(dc->dir, enc, sizeof(enc)) < 0)
		strcpy(enc, "%3F");
	rbuf_printf(resp, REVOKE_FIELD_DECLARED "=%u\n"
		    REVOKE_FIELD_DECLARED_APPLIED "=%u\n"
		    REVOKE_FIELD_DECLARED_FAILED "=%u\n"
		    REVOKE_FIELD_DECLARED_PENDING "=%u\n"
		    REVOKE_FIELD_DECLARED_HASH "=%s\n"
		    REVOKE_FIELD_DECLARED_DIR "=%s\n", dc->lines, dc->applied,
		    dc->failed, dc->pending, dc->hash, enc);
}

/**
 * declared_answer() - reload's lines of the declared files: the counts,
 *	then one per line not applied
 * @d: the daemon
 * @resp: the answer
 */
void declared_answer(const struct daemon *d, struct rbuf *resp)
{
	const struct declared *dc = &d->decl;

	rbuf_printf(resp, REVOKE_LINE_DECLARED " " REVOKE_FIELD_DECLARED "=%u "
		    REVOKE_FIELD_DECLARED_APPLIED "=%u "
		    REVOKE_FIELD_DECLARED_FAILED "=%u "
		    REVOKE_FIELD_DECLARED_PENDING "=%u "
		    REVOKE_FIELD_DECLARED_HASH "=%s\n", dc->lines, dc->applied,
		    dc->failed, dc->pending, dc->hash);
	if (dc->problems.len)
		rbuf_printf(resp, "%.*s", (int)dc->problems.len,
			    dc->problems.data);
}

/**
 * declared_fini() - let go of the record in memory and the watches
 * @dc: the declared state
 */
void declared_fini(struct declared *dc)
{
	declared_watch_clear(dc);
	if (dc->in >= 0)
		close(dc->in);
	if (dc->mnt >= 0)
		close(dc->mnt);
	if (dc->ep >= 0)
		close(dc->ep);
	dc->in = dc->mnt = dc->ep = -1;
	rbuf_free(&dc->problems);
	free(dc->keys);
	dc->keys = NULL;
	dc->nkeys = dc->cap = 0;
}
