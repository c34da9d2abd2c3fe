// SPDX-License-Identifier: GPL-2.0
/*
 * target.c - what add, del and umount name, and add's options: the one
 * parser of revoke-bpf's command line (cli_target.c) and of revoke-bpfd's
 * declared files (src/daemon/declared.c).  Nothing is looked up here:
 * a PATH or FS is only an operand, opened by whoever sends the request.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "key.h"
#include "target.h"

/* What the words name, before they are checked against one another. */
struct target_args {
	const char *operand;	/* PATH, or FS with --fs */
	const char *devspec;	/* --dev MAJ:MIN */
	const char *rdevspec;	/* --rdev MAJ:MIN */
	const char *inode;	/* --inode N */
	const char *fsdev;	/* --fs-dev MAJ:MIN (del) */
	const char *fdspec;	/* --fd PID:FD (add, on the command line) */
	bool fs;		/* --fs */
	bool force;		/* --force */
};

/* One parse: its words, what they say, and where an error goes. */
struct target_parse {
	struct target_args a;
	struct revoke_req *req;
	struct revoke_target *t;
	unsigned int flags;
	char *err;
	size_t errlen;
};

/* Say what is wrong in @p's error buffer; always -1. */
static int __attribute__((format(printf, 2, 3)))
target_err(struct target_parse *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The operands of add/del --rdev MAJ:MIN --char|--block. */
static int device_target(struct target_parse *p)
{
	const struct target_args *a = &p->a;
	struct revoke_req *req = p->req;

	if (!a->rdevspec)
		return target_err(p, "--char, --block, --removed and --cause "
				  "go with --rdev MAJ:MIN");
	if (a->operand || a->devspec || a->inode)
		return target_err(p, "--rdev names a device by number; it "
				  "takes no PATH, --inode or --dev");
	if (revoke_parse_devspec(a->rdevspec, &req->rdev_major,
				 &req->rdev_minor))
		return target_err(p, "invalid --rdev '%s': expected MAJ:MIN "
				  "with major < 4096 and minor < 1048576",
				  a->rdevspec);
	if (!req->rdev_type)
		return target_err(p, "--rdev needs --char or --block: the same "
				  "numbers name different devices of each kind");
	req->has_rdev = true;
	return 0;
}

/* --timeout DURATION: 0, or -1 after a message */
static int timeout_option(struct target_parse *p, const char *arg)
{
	uint64_t ms;

	if (!arg || revoke_parse_duration_ms(arg, REVOKE_TIMEOUT_MAX_MS, &ms) ||
	    !ms)
		return target_err(p, "--timeout needs a duration from 1ms to "
				  "%ds: seconds, or a number with ms, s or min "
				  "(100ms, 2s, 1min)",
				  REVOKE_TIMEOUT_MAX_MS / 1000);
	p->req->timeout_ms = (unsigned int)ms;
	return 0;
}

/* add's own options: 1 if argv[*@i] is one, 0 if not, -1 after a message */
static int add_option(struct target_parse *p, int argc, char **argv, int *i)
{
	struct revoke_req *req = p->req;
	const char *a = argv[*i];

	if (req->verb != REVOKE_VERB_ADD && req->verb != REVOKE_VERB_UMOUNT)
		return 0;
	if (req->verb == REVOKE_VERB_UMOUNT &&
	    (!strcmp(a, "--removed") || !strcmp(a, "--release") ||
	     !strcmp(a, "--no-release")))
		return target_err(p, "umount takes no %s: it releases every "
				  "descriptor of the filesystem", a);
	if (!strcmp(a, "--removed")) {
		req->removed = true;
	} else if (!strcmp(a, "--cause")) {
		if (++*i == argc || revoke_parse_cause(argv[*i], req->cause,
						       sizeof(req->cause)))
			return target_err(p, "--cause needs one word of 1 to "
					  "31 letters, digits or _.:-");
	} else if (!strcmp(a, "--release") || !strcmp(a, "--no-release")) {
		req->has_release = true;
		req->release = a[2] == 'r' ? REVOKE_RELEASE_YES :
					     REVOKE_RELEASE_NO;
	} else if (!strcmp(a, "--spare")) {
		req->spare = true;
	} else if (!strcmp(a, "--persist") && req->verb == REVOKE_VERB_ADD &&
		   (p->flags & REVOKE_TARGET_CLI)) {
		p->t->persist = true;
	} else if (!strcmp(a, "--timeout")) {
		return timeout_option(p, ++*i < argc ? argv[*i] : NULL) ? -1 : 1;
	} else if (!strncmp(a, "--timeout=", 10)) {
		return timeout_option(p, a + 10) ? -1 : 1;
	} else {
		return 0;
	}
	return 1;
}

/*
 * The operand of --fs: FS, resolved by the sender; or, for del, --fs-dev
 * MAJ:MIN, a filesystem that may be gone, as /proc/self/mountinfo
 * showed it.  0, or -1 after a message.
 */
static int fs_target(struct target_parse *p)
{
	const struct target_args *a = &p->a;
	struct revoke_req *req = p->req;

	if (a->devspec || a->rdevspec || a->inode || req->rdev_type ||
	    req->removed)
		return target_err(p, "--fs names a filesystem; it takes no "
				  "--inode, --dev, --rdev, --char, --block or "
				  "--removed");
	if (a->fsdev) {
		if (a->operand || a->fs)
			return target_err(p, "--fs-dev names a filesystem by "
					  "number; it takes no --fs or FS");
		if (revoke_parse_devspec(a->fsdev, &req->fs_major,
					 &req->fs_minor))
			return target_err(p, "invalid --fs-dev '%s': expected "
					  "MAJ:MIN with major < 4096 and minor "
					  "< 1048576", a->fsdev);
		req->fs = REVOKE_FS_DEV;
		return 0;
	}
	if (!a->operand)
		return target_err(p, req->verb == REVOKE_VERB_UMOUNT ?
				  "missing MOUNTPOINT (or the block device "
				  "mounted there)" :
				  "--fs needs FS: a mount point, a file on the "
				  "filesystem or the block device it is mounted "
				  "from");
	req->fs = REVOKE_FS_PATH;
	req->force = a->force;
	p->t->operand = a->operand;
	return 0;
}

/* --inode N [--dev MAJ:MIN], or PATH: 0, or -1 after a message. */
static int inode_target(struct target_parse *p)
{
	const struct target_args *a = &p->a;
	struct revoke_req *req = p->req;
	const char *op = a->operand;
	int err;

	if (a->devspec && !a->inode)
		return target_err(p, "--dev names the filesystem of an --inode; "
				  "a PATH needs none");
	if (!a->inode) {
		if (!op)
			return target_err(p, "missing PATH (or --inode N, --fs "
					  "FS, --rdev MAJ:MIN); try 'revoke-bpf "
					  "help'");
		if (op[0] && strspn(op, "0123456789") == strlen(op))
			return target_err(p, "'%s' could be the file ./%s or "
					  "inode %s: write ./%s for the file, "
					  "--inode %s for the inode", op, op, op,
					  op, op);
		p->t->operand = op;
		return 0;
	}
	if (op)
		return target_err(p, "--inode names the file by number; it "
				  "takes no PATH ('%s')", op);
	err = revoke_parse_ino(a->inode, &req->ino);
	if (err)
		return target_err(p, "invalid --inode '%s': %s", a->inode,
				  err == -ERANGE ?
				  "out of range (at most 18446744073709551615)" :
				  "not a positive integer");
	req->has_ino = true;
	if (!a->devspec)
		return 0;
	if (revoke_parse_devspec(a->devspec, &req->major, &req->minor))
		return target_err(p, "invalid --dev '%s': expected MAJ:MIN with "
				  "major < 4096 and minor < 1048576", a->devspec);
	req->has_dev = true;
	return 0;
}

/* add --fd PID:FD: one open file description; 0, or -1 after a message. */
static int fd_target(struct target_parse *p)
{
	const struct target_args *a = &p->a;
	struct revoke_req *req = p->req;

	if (a->operand || a->devspec || a->inode || a->rdevspec || a->fs ||
	    a->force || req->rdev_type || req->removed || req->cause[0])
		return target_err(p, "--fd names one open file by a process's "
				  "descriptor; it takes no PATH, --inode, --dev, "
				  "--rdev, --fs or --cause");
	if (revoke_parse_fdspec(a->fdspec, &req->fd_pid, &req->fd_num))
		return target_err(p, "invalid --fd '%s': expected PID:FD, two "
				  "numbers (pid 1 to %d, fd 0 to 2147483647)",
				  a->fdspec, REVOKE_PID_MAX);
	req->has_fd = true;
	return 0;
}

/* An option taking a value: where it goes in @a, or NULL if not one. */
static const char **value_option(const char *o, struct target_args *a,
				 enum revoke_verb verb, unsigned int flags)
{
	if (!strcmp(o, "--inode") && verb != REVOKE_VERB_UMOUNT)
		return &a->inode;
	if (!strcmp(o, "--dev") && verb != REVOKE_VERB_UMOUNT)
		return &a->devspec;
	if (!strcmp(o, "--rdev") && verb != REVOKE_VERB_UMOUNT)
		return &a->rdevspec;
	if (!strcmp(o, "--fs-dev") && verb == REVOKE_VERB_DEL)
		return &a->fsdev;
	/* a declared line outlives every process: no descriptor in one */
	if (!strcmp(o, "--fd") && verb == REVOKE_VERB_ADD &&
	    (flags & REVOKE_TARGET_CLI))
		return &a->fdspec;
	return NULL;
}

/* One word: 0, or -1 after a message. */
static int target_word(struct target_parse *p, int argc, char **argv, int *i)
{
	struct target_args *a = &p->a;
	struct revoke_req *req = p->req;
	const char *w = argv[*i], **val;

	if ((val = value_option(w, a, req->verb, p->flags))) {
		if (++*i == argc)
			return target_err(p, "%s needs a value", w);
		*val = argv[*i];
	} else if (!strcmp(w, "--json") && (p->flags & REVOKE_TARGET_CLI)) {
		p->t->json = true;
	} else if (!strcmp(w, "--fs")) {	/* umount: FS all the same */
		a->fs = true;
	} else if (!strcmp(w, "--force") && req->verb != REVOKE_VERB_DEL) {
		a->force = true;
	} else if ((!strcmp(w, "--char") || !strcmp(w, "--block")) &&
		   req->verb != REVOKE_VERB_UMOUNT) {
		if (req->rdev_type)
			return target_err(p, "give one of --char and --block");
		req->rdev_type = w[2] == 'c' ? REVOKE_RDEV_CHAR :
					       REVOKE_RDEV_BLOCK;
	} else if (!strcmp(w, "--") && *i + 1 < argc && !a->operand) {
		a->operand = argv[++*i];
	} else if (w[0] == '-' && w[1]) {
		return target_err(p, "unknown option '%s'; try 'revoke-bpf help "
				  "%s'", w, revoke_verb_name(req->verb));
	} else if (a->operand) {
		return target_err(p, "unexpected extra operand '%s'", w);
	} else {
		a->operand = w;
	}
	return 0;
}

/**
 * revoke_target_parse() - the operands of add, del and umount
 * @argc: their number
 * @argv: the operands, after the command
 * @flags: REVOKE_TARGET_CLI: also take --json and add --persist
 * @req: the request, with its verb; the target and add's options are set
 * @t: set: the PATH or FS operand (FS when @req->fs is REVOKE_FS_PATH),
 *	or NULL; and --json and --persist
 * @err: what is wrong, on error
 * @errlen: its size
 *
 * add and del take PATH, --inode N [--dev MAJ:MIN], --fs FS (del: or
 * --fs-dev MAJ:MIN), or --rdev MAJ:MIN --char|--block; add on the command
 * line also --fd PID:FD; umount takes FS.
 * A PATH is never read as a number: an operand of digits only, which
 * could be either, is refused.  Nothing is looked up here.
 *
 * Return: 0, or -1 with @err set (a usage error).
 */
int revoke_target_parse(int argc, char **argv, unsigned int flags,
			struct revoke_req *req, struct revoke_target *t,
			char *err, size_t errlen)
{
	struct target_parse p = { .req = req, .t = t, .flags = flags,
				  .err = err, .errlen = errlen };
	int i, ret;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < argc; i++) {
		ret = add_option(&p, argc, argv, &i);
		if (ret < 0 || (!ret && target_word(&p, argc, argv, &i)))
			return -1;
	}
	if (p.a.force && !p.a.fs && req->verb != REVOKE_VERB_UMOUNT)
		return target_err(&p, "--force goes with --fs: it revokes a "
				  "filesystem the system cannot do without");
	if (p.a.fdspec)
		return fd_target(&p);
	if (p.a.fs || p.a.fsdev || req->verb == REVOKE_VERB_UMOUNT)
		return fs_target(&p);
	if (p.a.rdevspec || req->rdev_type || req->removed || req->cause[0])
		return device_target(&p);
	return inode_target(&p);
}
