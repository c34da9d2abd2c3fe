/* SPDX-License-Identifier: GPL-2.0 */
/* lsm_check.h - is BPF LSM active, and if not, how to make it so. */
#ifndef REVOKE_LSM_CHECK_H
#define REVOKE_LSM_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#define REVOKE_LSM_FILE "/sys/kernel/security/lsm"

int revoke_lsm_list(char *buf, size_t len);
bool revoke_lsm_has_bpf(const char *list);
void revoke_lsm_advice(const char *list, char *buf, size_t len);

#endif /* REVOKE_LSM_CHECK_H */
