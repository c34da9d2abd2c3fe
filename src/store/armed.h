/* SPDX-License-Identifier: GPL-2.0 */
/*
 * armed.h - the hooks' revoke_armed word, set from the three sets
 * (internal to src/store).
 */
#ifndef REVOKE_STORE_ARMED_H
#define REVOKE_STORE_ARMED_H

#include <stdint.h>

struct store;

int armed_bits(struct store *rb, uint32_t *bits);
int armed_update(struct store *rb);
int armed_update_with(struct store *rb, uint32_t extra);
int armed_clear(struct store *rb);

#endif /* REVOKE_STORE_ARMED_H */
