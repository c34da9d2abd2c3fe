/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli.h - what the files of revoke-bpf share: the commands (do_*, in the
 * table of cli.c), the request each sends (cli_call.c), targets (cli_target.c),
 * output and errors (cli_output.c), holders in add's report
 * (cli_holders.c), the holders command (cli_holders_list.c) and the
 * control socket's client (ctl_client.c).
 */
#ifndef REVOKE_CLI_H
#define REVOKE_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>

#include "common/common.h"

/*
 * revoke-bpf's exit status, the same for every command (revoke-bpf(8),
 * EXIT STATUS): add and umount also exit 3 and 4 (their help says when).
 */
#define CLI_EXIT_OK	0	/* done: every access is gone, or the answer shown */
#define CLI_EXIT_FAIL	1	/* nothing done: an error, or revoke-bpfd unreachable */
#define CLI_EXIT_USAGE	2	/* the command line is wrong; nothing was sent */
/* add, umount: SIGINT or SIGTERM while revoke-bpfd went on (128 + 2) */
#define CLI_EXIT_INTERRUPTED	130

/* each wait for revoke-bpfd, unless revoke-bpf --reply-timeout says */
#define CTL_CLIENT_TIMEOUT_DEFAULT_MS 5000

/* cli_call.c: the socket, and one request and its answer */
extern const char *cli_socket_path;
int cli_call(const struct revoke_req *req, int send_fd, char **word,
	     char **body, struct rbuf *resp);
int cli_no_operands(int argc, char **argv);
int cli_query(enum revoke_verb verb, int argc, char **argv,
	      struct rbuf *resp, char **body);

/* the commands */
int do_add(int argc, char **argv);		/* cli_change.c */
int do_del(int argc, char **argv);
int do_umount(int argc, char **argv);
int do_list(int argc, char **argv);		/* cli_query.c */
int do_status(int argc, char **argv);
int do_reload(int argc, char **argv);		/* cli_reload.c */
int do_unload(int argc, char **argv);
int do_events(int argc, char **argv);		/* cli_events.c */
int do_uevent(int argc, char **argv);
int do_holders(int argc, char **argv);		/* cli_holders_list.c */
int do_metrics(int argc, char **argv);		/* cli_metrics.c */
int do_pause(int argc, char **argv);		/* cli_pause.c */
int do_resume(int argc, char **argv);

/* cli_reload.c */
void cli_status_declared(const char *lines, const char *applied,
			 const char *failed, const char *hash);

/* cli_target.c */
int cli_target_parse(int argc, char **argv, struct revoke_req *req,
		     struct revoke_target *t);
int cli_target_open(const char *path, struct revoke_req *req);
int cli_target_leave(int fd);

/**
 * struct cli_opt - an option, for the parser (cli.c) and the help
 * @name: its long name with the dashes ("--timeout"), or an operand's
 *	name ("PATH") in a help table
 * @short_name: its one-letter form ("-j"), or NULL
 * @arg: the name of the value it takes ("DURATION"), or NULL for a flag
 * @text: what it does, with its default and unit
 */
struct cli_opt {
	const char *name;
	const char *short_name;
	const char *arg;
	const char *text;
};

#define CLI_HELP_TABLES	5	/* option tables a command's help lists */

/**
 * struct cli_help - a command's help (cli_help.c)
 * @name: the command
 * @verb: its enum revoke_verb (who may use it), or -1 (help)
 * @line: its line in 'revoke-bpf help', after the name
 * @synopsis: its forms, each after "revoke-bpf NAME"; NULL-terminated
 * @about: what it does
 * @opts: its options, a table each (NULL: no more)
 * @exit: its exit status
 * @example: command lines, one a line
 */
struct cli_help {
	const char *name;
	int verb;
	const char *line;
	const char *const *synopsis;
	const char *about;
	const struct cli_opt *opts[CLI_HELP_TABLES];
	const char *exit;
	const char *example;
};

/* cli_help.c; pause's and resume's in cli_help_pause.c */
extern const struct cli_opt cli_global_opts[];
extern const struct cli_help cli_help_pause;
extern const struct cli_help cli_help_resume;
const struct cli_help *cli_help_find(const char *name);
const struct cli_opt *cli_help_opt(const struct cli_opt *table,
				   const char *arg);
const struct cli_opt *cli_help_verb_opt(const struct cli_help *h,
					const char *arg);
void cli_help_print_verb(FILE *f, const struct cli_help *h);
void cli_help_print_all(FILE *f);

/* cli_fs.c */
int cli_fs_lexical(const char *path, char *out, size_t len);
int cli_fs_mnt_id(int fd);
int cli_fs_target(const char *operand, struct revoke_req *req,
		  bool by_number, int *fd);

/* cli_output.c */
extern bool json_output;
void cli_output_set_cmd(const char *name);
void p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *cli_esc(const char *str, char *out, size_t len);
int cli_output_name(char *s);
char *cli_esc_name(const char *enc, char *out, size_t len);
void cli_output_time(char *buf, size_t len, long long sec, long nsec,
		     bool rfc3339);
void cli_output_json_string(const char *str);
bool cli_output_line_is(const char *line, const char *word);
char *cli_output_next_line(char **body);
void cli_output_field(const char *body, const char *key, char *v, size_t len);

/* cli_json.c: the JSON writer; -p/--pretty (cli.c sets json_output with it) */
extern bool json_pretty;
void json_open(const char *key, char kind);
void json_close(char kind);
void json_str(const char *key, const char *val);
void json_int(const char *key, long long val);
void json_uint(const char *key, unsigned long long val);
void json_bool(const char *key, bool val);
void json_null(const char *key);
void json_time(const char *key, long long sec, long nsec);
void json_field(const char *line, const char *key, char *val);
void json_fields(const char *word, char *line);
void json_lines(const char *name, const char *body, const char *word);
void json_error(const char *msg);

/* cli_holders.c */
void cli_holders_print(const char *line, bool killed);
void cli_holders_print_slow(const char *line);
void cli_holders_print_user(const char *line);
void cli_holders_print_comm(const char *line);

/* ctl_client.c */
typedef void (*ctl_progress_fn)(const char *line, void *arg);
extern volatile sig_atomic_t ctl_client_interrupted;
void ctl_client_set_timeout(unsigned int ms);
int ctl_wait_reply(int fd, enum revoke_verb verb, char *err, size_t errlen);
int ctl_open(const char *path, const struct revoke_req *req, int send_fd,
	     char *err, size_t errlen);
int ctl_call(const char *path, const struct revoke_req *req, int send_fd,
	     struct rbuf *resp, char *err, size_t errlen);
int ctl_read_answer(int fd, const char *path, const struct revoke_req *req,
		    ctl_progress_fn progress, void *arg, struct rbuf *resp,
		    char *err, size_t errlen);

#endif /* REVOKE_CLI_H */
