/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pipeline_report.h - what add answers and logs about the holders the
 * pipeline could not handle and those its policy killed: declared in
 * pipeline.h, the folder's public header, which this one stands for
 * until no file includes it any more.
 */
#ifndef REVOKE_PIPELINE_REPORT_H
#define REVOKE_PIPELINE_REPORT_H

#include "pipeline.h"

#endif /* REVOKE_PIPELINE_REPORT_H */
