// SPDX-License-Identifier: GPL-2.0
/*
 * clock.c - how long things take.
 */
#include <time.h>

#include "clock.h"

/**
 * revoke_now_us() - CLOCK_MONOTONIC in microseconds
 *
 * Return: the time; only differences between two calls mean something.
 */
uint64_t revoke_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}
