// SPDX-License-Identifier: MIT
/*
 * sim/progress.c: the progress line's text (done of total, elapsed,
 * estimated remaining) and that it is written to a terminal only, unless
 * HCASIM_PROGRESS forces it on or off.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "progress.h"

static void check_line(unsigned int done, unsigned int total, double el, double left, const char *want)
{
	char buf[256];

	progress_format(buf, sizeof(buf), done, total, el, left, "random w64 s1");
	CHECK(!strcmp(buf, want), "got '%s', want '%s'", buf, want);
}

int main(void)
{
	struct progress pg;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	check_line(0, 22, 0.2, -1, "[0/22] 0s elapsed, estimating left: random w64 s1");
	check_line(3, 22, 65, 412, "[3/22] 1m05s elapsed, ~6m52s left: random w64 s1");
	check_line(21, 22, 3725, 59.6, "[21/22] 1h02m elapsed, ~1m00s left: random w64 s1");

	/* a file (not a terminal): nothing written */
	unsetenv("HCASIM_PROGRESS");
	f = open_memstream(&text, &len);
	progress_init(&pg, 4, f);
	CHECK(!pg.on, "progress on for a non-terminal");
	progress_show(&pg, "x");
	progress_clear(&pg);
	fflush(f);
	CHECK_EQ(len, 0, "bytes written to a non-terminal");
	fclose(f);
	free(text);

	/* forced on: the line, overwritten in place, the estimate from the mean step */
	setenv("HCASIM_PROGRESS", "1", 1);
	text = NULL;
	f = open_memstream(&text, &len);
	progress_init(&pg, 4, f);
	pg.t0 -= 10.0;	/* 10 s ago */
	progress_step(&pg);
	progress_step(&pg);
	progress_show(&pg, "run three");
	progress_clear(&pg);
	fclose(f);
	CHECK(text && !strcmp(text, "\r\033[K[2/4] 10s elapsed, ~10s left: run three\r\033[K"),
	      "forced progress output: '%s'", text ? text + 4 : "(null)");
	free(text);

	/* forced off */
	setenv("HCASIM_PROGRESS", "0", 1);
	progress_init(&pg, 4, stdout);
	CHECK(!pg.on, "HCASIM_PROGRESS=0 still shows progress");
	progress_step(&pg);
	progress_step(&pg);
	progress_step(&pg);
	progress_step(&pg);
	progress_step(&pg);
	CHECK_EQ(pg.done, 4, "done stops at total");
	return check_done();
}
