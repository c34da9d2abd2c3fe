/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipeline_report.h - what add answers and logs about the holders the
 * pipeline could not handle and those its policy killed.
 */
#ifndef REVOKE_PIPELINE_REPORT_H
#define REVOKE_PIPELINE_REPORT_H

#include "common/ctl_proto.h"
#include "pipeline.h"

void pipeline_report_lines(struct rbuf *resp,
			   const struct pipeline_result *res);
void pipeline_report_log(const struct pipeline_result *res);
int pipeline_report_merge(struct pipeline_result *sum,
			  const struct pipeline_result *res);

#endif /* REVOKE_PIPELINE_REPORT_H */
