// SPDX-License-Identifier: GPL-2.0
/*
 * test_report.c - the slowest holders a pipeline run reports
 * (pipeline_note_time(), pipeline_report_merge(), pipeline_report_lines()):
 * which are kept, in which order, named how.
 */
#include <string.h>
#include <unistd.h>

#include "common/ctl_text.h"
#include "pipeline/pipeline.h"
#include "tap.h"

/* pids that name no process (above the kernel's PID_MAX_LIMIT) */
#define NOBODY 4194400

static bool order_is(const struct pipeline_result *r, const pid_t *pids,
		     size_t n)
{
	size_t i;

	if (r->nslowest != n)
		return false;
	for (i = 0; i < n; i++)
		if (r->slowest[i].pid != pids[i])
			return false;
	return true;
}

static void test_slowest_kept_in_order(void)
{
	struct pipeline_result r = {};
	const pid_t four[] = { NOBODY + 3, NOBODY + 1, NOBODY + 4, NOBODY + 2 };
	const pid_t evicted[] = { NOBODY + 5, NOBODY + 3, NOBODY + 1, NOBODY + 4 };

	pipeline_note_time(&r, NOBODY + 1, 300);
	pipeline_note_time(&r, NOBODY + 2, 100);
	pipeline_note_time(&r, NOBODY + 3, 400);
	pipeline_note_time(&r, NOBODY + 4, 200);
	CHECK("the slowest holders are kept, the slowest first",
	      order_is(&r, four, 4));
	pipeline_note_time(&r, NOBODY + 6, 50);
	CHECK("a holder faster than the four kept is not kept",
	      order_is(&r, four, 4));
	pipeline_note_time(&r, NOBODY + 5, 1000);
	CHECK("a slower one takes its place and the fastest goes",
	      order_is(&r, evicted, 4));
	CHECK("a holder that is no process any more is named '?'",
	      !strcmp(r.slowest[0].comm, "?"));
	pipeline_result_free(&r);
}

static void test_time_of_one_holder_adds_up(void)
{
	struct pipeline_result r = {}, sum = {};
	const pid_t after[] = { NOBODY + 2, NOBODY + 1 };

	pipeline_note_time(&r, NOBODY + 1, 500);
	pipeline_note_time(&r, NOBODY + 2, 400);
	pipeline_note_time(&r, NOBODY + 2, 200);
	CHECK("a holder handled twice is one entry with both times",
	      order_is(&r, after, 2) && r.slowest[0].us == 600);
	CHECK("merged into a sum, the times of each run add up",
	      !pipeline_report_merge(&sum, &r) &&
	      !pipeline_report_merge(&sum, &r) && order_is(&sum, after, 2) &&
	      sum.slowest[0].us == 1200 && sum.slowest[1].us == 1000);
	pipeline_result_free(&r);
	pipeline_result_free(&sum);
}

static void test_slow_line_names_the_process(void)
{
	struct pipeline_result r = {};
	struct rbuf out = {};
	char want[128];

	pipeline_note_time(&r, getpid(), 1234567);
	pipeline_report_lines(&out, &r);
	snprintf(want, sizeof(want), "slow pid=%d comm=test_report us=1234567\n",
		 (int)getpid());
	CHECK("a slow line names the holder, its name and the time spent",
	      out.data && !strcmp(out.data, want));
	rbuf_free(&out);
	pipeline_result_free(&r);
}

int main(void)
{
	test_slowest_kept_in_order();
	test_time_of_one_holder_adds_up();
	test_slow_line_names_the_process();
	return tap_done();
}
