/* SPDX-License-Identifier: GPL-2.0 */
/*
 * key.h - naming a revoked inode: parsing inode numbers and MAJ:MIN device
 * specifications, and the one conversion from user space's st_dev to the
 * kernel's s_dev encoding.
 */
#ifndef REVOKE_KEY_H
#define REVOKE_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "revoke_bpf.h"

int revoke_parse_u64(const char *s, uint64_t *out);
int revoke_parse_duration_ms(const char *s, uint64_t max_ms, uint64_t *ms);
int revoke_parse_ino(const char *s, uint64_t *ino);
int revoke_parse_devspec(const char *s, unsigned int *major, unsigned int *minor);
int revoke_parse_fdspec(const char *s, unsigned int *pid, unsigned int *fd);

/* PID_MAX_LIMIT on 64-bit kernels: no pid is larger */
#define REVOKE_PID_MAX 4194304

int revoke_kdev(unsigned int major, unsigned int minor, uint32_t *kdev);
int revoke_kdev_from_stdev(dev_t st_dev, uint32_t *kdev);
unsigned int revoke_kdev_major(uint32_t kdev);
unsigned int revoke_kdev_minor(uint32_t kdev);


#endif /* REVOKE_KEY_H */
