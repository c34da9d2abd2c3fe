/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ctl_text.h - the text of control socket messages (ctl_text.c):
 * percent-encoding, key=value fields, a growable answer buffer, sending.
 */
#ifndef REVOKE_CTL_TEXT_H
#define REVOKE_CTL_TEXT_H

#include <stdbool.h>
#include <stddef.h>

int revoke_pct_encode(const char *in, char *out, size_t len);
int revoke_pct_decode(const char *in, char *out);

/* what stands for the start of a name too long to keep whole: "…" */
#define REVOKE_ELLIPSIS "\xe2\x80\xa6"
#define REVOKE_ELLIPSIS_LEN 3
bool revoke_name_shorten(const char *name, char *out, size_t len);

char *revoke_kv_next(char **cursor, char **key);
const char *revoke_kv_get(const char *line, const char *key, char *buf,
			  size_t len);

/**
 * struct rbuf - a growable text buffer, for answers
 * @data: the text; NULL until something is written
 * @len: bytes of @data in use
 * @cap: bytes of @data allocated
 * @failed: an allocation failed; everything after it was dropped
 */
struct rbuf {
	char *data;
	size_t len;
	size_t cap;
	bool failed;
};

/* user_name.c, revoke-bpfd only (NSS) */
void revoke_user_field(struct rbuf *resp, long uid);
void rbuf_printf(struct rbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rbuf_free(struct rbuf *b);

int ctl_send_all(int fd, const char *p, size_t len);

#endif /* REVOKE_CTL_TEXT_H */
