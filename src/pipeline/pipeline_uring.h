/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipeline_uring.h - the pipeline's part for io_uring: take a revoked
 * file's fixed-file slots and registered buffers away from the rings of
 * a stopped holder (src/pipeline/pipeline_uring.c).
 */
#ifndef REVOKE_PIPELINE_URING_H
#define REVOKE_PIPELINE_URING_H

#include <stddef.h>
#include <sys/types.h>

#include "holders.h"
#include "inject/inject.h"

struct pipeline_result;

void pipeline_uring_take(struct pipeline_result *res, struct tracee *t,
			 const struct holder_ring *rings, size_t n);

#endif /* REVOKE_PIPELINE_URING_H */
