/* SPDX-License-Identifier: GPL-2.0 */
/*
 * legacy.h - moving the revoked set of an older build into the table
 * (internal to src/store).
 */
#ifndef REVOKE_STORE_LEGACY_H
#define REVOKE_STORE_LEGACY_H

#include <stddef.h>

struct store;

int legacy_migrate(struct store *rb, char *err, size_t errlen);

#endif /* REVOKE_STORE_LEGACY_H */
