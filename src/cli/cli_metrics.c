// SPDX-License-Identifier: GPL-2.0
/*
 * cli_metrics.c - revoke-bpf metrics: what status and list answer, in
 * Prometheus's text exposition format (0.0.4), for node_exporter's
 * textfile collector or any scraper.  revoke-bpfd opens no TCP port:
 * the figures are read over its control socket, as any user may, and
 * --output FILE writes them atomically (a file beside FILE, renamed over
 * it), which revoke-bpf-metrics.service does every 30 s.
 *
 * No label names a path, a user or a device: one series per kind of
 * entry, whatever is revoked.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define METRICS_PREFIX	"revoke_bpf_"
#define UP_HELP		"Whether revoke-bpfd answered (0: the other " \
			"families are missing)."

/* the kinds of entry: the label kind="..." */
enum metrics_kind {
	MK_FILE,
	MK_FS,
	MK_DEVICE,
	MK_PAUSE,
	MK_PAUSE_CLASS,
	MK_COUNT,
};

static const char *const kind_label[MK_COUNT] = {
	[MK_FILE] = "file",
	[MK_FS] = "fs",
	[MK_DEVICE] = "device",
	[MK_PAUSE] = "pause",
	[MK_PAUSE_CLASS] = "pause_class",
};

/**
 * struct metrics_def - a family read from one numeric field of status
 * @name: its name after "revoke_bpf_"
 * @type: "counter" or "gauge"
 * @field: status's field
 * @micro: the field is in microseconds, the metric in seconds
 * @help: its HELP line
 *
 * A family whose field the daemon does not report (an older daemon; the
 * declared counts before revoked.d) is left out.
 */
struct metrics_def {
	const char *name;
	const char *type;
	const char *field;
	bool micro;
	const char *help;
};

static const struct metrics_def defs[] = {
	{ "attaches_total", "counter", REVOKE_FIELD_ATTACHES, false,
	  "Times revoke-bpfd attached its programs since it started." },
	{ "detaches_total", "counter", REVOKE_FIELD_DETACHES, false,
	  "Times revoke-bpfd detached its programs (nothing left revoked) "
	  "since it started." },
	{ "last_attach_duration_seconds", "gauge",
	  REVOKE_FIELD_LAST_ATTACH_US, true,
	  "How long the last attach of the programs took (0: none yet)." },
	{ "load_duration_seconds", "gauge", REVOKE_FIELD_LOAD_US, true,
	  "How long loading the programs took when revoke-bpfd started "
	  "(short when it adopted this build's pinned programs)." },
	{ "entries_capacity", "gauge", REVOKE_FIELD_CAPACITY, false,
	  "Inodes the revoked set has room for." },
	{ "events_lost_total", "counter", REVOKE_FIELD_EVENTS_LOST, false,
	  "Denial events lost because the ring buffer was full." },
	/* status's declared fields (revoked.d) */
	{ "declared", "gauge", REVOKE_FIELD_DECLARED, false,
	  "Revocations declared in /etc/revoke-bpf/revoked.d." },
	{ "declared_applied", "gauge", REVOKE_FIELD_DECLARED_APPLIED, false,
	  "Declared revocations in force." },
	{ "declared_failed", "gauge", REVOKE_FIELD_DECLARED_FAILED, false,
	  "Declared revocations that could not be applied." },
	{ "declared_pending", "gauge", REVOKE_FIELD_DECLARED_PENDING, false,
	  "Declared revocations waiting for their path to appear." },
};

/**
 * struct metrics - what the metrics are made of
 * @status: status's answer, one field a line
 * @entries: list's entries of each kind
 * @denials: the denials counted on them, by kind
 */
struct metrics {
	const char *status;
	unsigned long long entries[MK_COUNT];
	unsigned long long denials[MK_COUNT];
};

/* The kind of list's line @line, or MK_COUNT for one of none. */
static enum metrics_kind line_kind(const char *line)
{
	static const struct {
		const char *word;
		enum metrics_kind kind;
	} words[] = {
		{ "revoked", MK_FILE }, { "dead", MK_FILE },
		{ "filesystem", MK_FS }, { "device", MK_DEVICE },
		{ "pause", MK_PAUSE }, { "pause_class", MK_PAUSE_CLASS },
	};
	char kind[24];
	size_t i;

	if (!revoke_kv_get(line, REVOKE_FIELD_KIND, kind, sizeof(kind)))
		return MK_COUNT;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(kind, words[i].word))
			return words[i].kind;
	return MK_COUNT;
}

/* Count list's lines, and their denials, by kind. */
static void count_list(struct metrics *m, char *body)
{
	enum metrics_kind k;
	uint64_t n;
	char v[32], *line;

	while ((line = cli_output_next_line(&body))) {
		k = line_kind(line);
		if (k == MK_COUNT)
			continue;
		m->entries[k]++;
		if (revoke_kv_get(line, REVOKE_FIELD_DENIALS, v, sizeof(v)) &&
		    !revoke_parse_u64(v, &n))
			m->denials[k] += n;
	}
}

/* "# HELP" and "# TYPE" of the family revoke_bpf_@name */
static void head(FILE *f, const char *name, const char *type,
		 const char *help)
{
	fprintf(f, "# HELP " METRICS_PREFIX "%s %s\n", name, help);
	fprintf(f, "# TYPE " METRICS_PREFIX "%s %s\n", name, type);
}

/* A family of one sample without labels. */
static void single(FILE *f, const char *name, const char *type,
		   const char *help, unsigned long long v)
{
	head(f, name, type, help);
	fprintf(f, METRICS_PREFIX "%s %llu\n", name, v);
}

/* @s as a label value: \, " and newline escaped */
static void label_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* Is status's field @key @want? */
static bool status_is(const struct metrics *m, const char *key,
		      const char *want)
{
	char v[32];

	cli_output_field(m->status, key, v, sizeof(v));
	return !strcmp(v, want);
}

/* Every family of @defs that status reports. */
static void print_defs(FILE *f, const struct metrics *m)
{
	const struct metrics_def *d;
	uint64_t v;
	char s[32];

	for (d = defs; d < defs + sizeof(defs) / sizeof(defs[0]); d++) {
		cli_output_field(m->status, d->field, s, sizeof(s));
		if (revoke_parse_u64(s, &v))
			continue;
		head(f, d->name, d->type, d->help);
		if (d->micro)
			fprintf(f, METRICS_PREFIX "%s %llu.%06llu\n", d->name,
				(unsigned long long)(v / 1000000),
				(unsigned long long)(v % 1000000));
		else
			fprintf(f, METRICS_PREFIX "%s %llu\n", d->name,
				(unsigned long long)v);
	}
}

/* A family with one sample per kind of entry. */
static void by_kind(FILE *f, const char *name, const char *help,
		    const unsigned long long *v)
{
	int k;

	head(f, name, "gauge", help);
	for (k = 0; k < MK_COUNT; k++)
		fprintf(f, METRICS_PREFIX "%s{kind=\"%s\"} %llu\n", name,
			kind_label[k], v[k]);
}

/* Every family, from @m. */
static void print_metrics(FILE *f, const struct metrics *m)
{
	char version[64];

	single(f, "up", "gauge", UP_HELP, 1);
	cli_output_field(m->status, REVOKE_FIELD_VERSION, version,
			 sizeof(version));
	head(f, "build_info", "gauge", "revoke-bpfd's version, as a label.");
	fputs(METRICS_PREFIX "build_info{version=\"", f);
	label_value(f, version);
	fputs("\"} 1\n", f);
	single(f, "bpf_lsm_active", "gauge", "Whether the kernel runs BPF LSM "
	       "(bpf in /sys/kernel/security/lsm).",
	       status_is(m, REVOKE_FIELD_BPF_LSM, "active"));
	single(f, "enforcement_attached", "gauge", "Whether the programs are "
	       "attached (1 while anything is revoked or paused).",
	       status_is(m, REVOKE_FIELD_ENFORCEMENT, "attached"));
	print_defs(f, m);
	by_kind(f, "entries", "Entries revoked or paused now, by kind (file: "
		"inodes, dead files included).", m->entries);
	by_kind(f, "denials", "Denials counted on the entries in force now, by "
		"kind; falls when an entry is lifted.", m->denials);
}

/* Write @len bytes of @data to @fd; 0 or -errno. */
static int write_all(int fd, const char *data, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * @data as the whole of @path, atomically: written into a new file beside
 * it (PATH.XXXXXX, which no textfile collector reads: it does not end in
 * .prom), mode 0644, then renamed over it.  0, or -1 after a message.
 */
static int write_atomic(const char *path, const char *data, size_t len)
{
	char tmp[PATH_MAX];
	int fd, err;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		p_err("--output '%s' is too long a path", path);
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		p_err("cannot create a file beside '%s': %s; is its folder "
		      "there, and writable?", path, strerror(errno));
		return -1;
	}
	err = fchmod(fd, 0644) ? -errno : write_all(fd, data, len);
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (!err)
		return 0;
	unlink(tmp);
	p_err("cannot write '%s': %s", path, strerror(-err));
	return -1;
}

/* Print @data, or write it to @path; 0, or -1 after a message. */
static int emit(const char *path, const char *data, size_t len)
{
	if (path)
		return write_atomic(path, data, len);
	if (fwrite(data, 1, len, stdout) != len || fflush(stdout)) {
		p_err("cannot write the metrics: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Ask status and list into @m; 0, or the exit status after a message. */
static int query(struct metrics *m, struct rbuf *st, struct rbuf *ls)
{
	char *body;
	int ret;

	ret = cli_query(REVOKE_VERB_STATUS, 0, NULL, st, &body);
	if (ret)
		return ret;
	m->status = body;
	ret = cli_query(REVOKE_VERB_LIST, 0, NULL, ls, &body);
	if (ret)
		return ret;
	count_list(m, body);
	return 0;
}

/* [-o|--output FILE]: 0, or 2 after a message */
static int parse(int argc, char **argv, const char **path)
{
	int i;

	*path = NULL;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "--output=", 9)) {
			*path = argv[i] + 9;
		} else if (!strcmp(argv[i], "--output") ||
			   !strcmp(argv[i], "-o")) {
			if (++i == argc) {
				p_err("%s needs a FILE; try 'revoke-bpf help "
				      "metrics'", argv[i - 1]);
				return CLI_EXIT_USAGE;
			}
			*path = argv[i];
		} else {
			return cli_no_operands(argc - i, argv + i);
		}
	}
	if (*path && !**path) {
		p_err("--output needs a FILE; try 'revoke-bpf help metrics'");
		return CLI_EXIT_USAGE;
	}
	return 0;
}

/**
 * do_metrics() - revoke-bpf metrics [--output FILE]
 * @argc: number of arguments after the command
 * @argv: the arguments
 *
 * Prints status's and list's figures in Prometheus's text format, or
 * writes them atomically to FILE.  When revoke-bpfd does not answer,
 * FILE gets revoke_bpf_up 0 alone, so that a scraper sees it rather than
 * the last figures.  No JSON form: -j is refused.
 *
 * Return: 0; 1 on an error (revoke-bpfd unreachable, FILE not written);
 * 2 on a wrong command line.
 */
int do_metrics(int argc, char **argv)
{
	struct rbuf st = {}, ls = {};
	struct metrics m = {};
	const char *path;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	if (json_output) {
		p_err("has no JSON form: it prints Prometheus's text format; "
		      "'revoke-bpf -j status' and '-j list' give its figures");
		return CLI_EXIT_USAGE;
	}
	ret = parse(argc, argv, &path);
	if (ret)
		return ret;
	ret = query(&m, &st, &ls);
	f = open_memstream(&text, &len);
	if (!f) {
		p_err("out of memory");
		ret = CLI_EXIT_FAIL;
		goto out;
	}
	if (!ret)
		print_metrics(f, &m);
	else
		single(f, "up", "gauge", UP_HELP, 0);
	if (fclose(f) || ((!ret || path) && emit(path, text, len)))
		ret = CLI_EXIT_FAIL;
out:
	free(text);
	rbuf_free(&st);
	rbuf_free(&ls);
	return ret;
}
