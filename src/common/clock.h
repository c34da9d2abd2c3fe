/* SPDX-License-Identifier: GPL-2.0 */
/*
 * clock.h - how long things take.
 */
#ifndef REVOKE_COMMON_CLOCK_H
#define REVOKE_COMMON_CLOCK_H

#include <stdint.h>

uint64_t revoke_now_us(void);

#endif /* REVOKE_COMMON_CLOCK_H */
