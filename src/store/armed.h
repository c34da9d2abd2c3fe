/* SPDX-License-Identifier: GPL-2.0 */
/*
 * armed.h - the hooks' revoke_armed word, set from the inode set's and
 * the device set's counters (internal to src/store).
 */
#ifndef REVOKE_STORE_ARMED_H
#define REVOKE_STORE_ARMED_H

struct store;

int armed_update(struct store *rb);
int armed_clear(struct store *rb);

#endif /* REVOKE_STORE_ARMED_H */
