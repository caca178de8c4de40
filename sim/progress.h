/* SPDX-License-Identifier: MIT */
/*
 * Progress of a long loop (cosim's plan, bench_rtl's sweep) on a terminal
 * only, so that logs stay clean.  The shell twin is tools/progress.sh.
 *
 *   struct progress pg;
 *   progress_init(&pg, total, stdout);
 *   for (...) {
 *       progress_show(&pg, "random w64 s3");   // "[3/22] 1m05s elapsed, ~2m10s left: random w64 s3"
 *       run();
 *       progress_clear(&pg);                    // before printing the run's own line
 *       printf(...);
 *       progress_step(&pg);
 *   }
 *
 * Shown when `out` is a terminal; HCASIM_PROGRESS=1 shows it anyway (tests),
 * HCASIM_PROGRESS=0 never.  The estimate is the mean time per step so far.
 */
#ifndef HCASIM_SIM_PROGRESS_H
#define HCASIM_SIM_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct progress {
	unsigned int total, done;
	double t0;		/* CLOCK_MONOTONIC seconds at init */
	FILE *out;
	bool on;
};

void progress_init(struct progress *pg, unsigned int total, FILE *out);
void progress_show(const struct progress *pg, const char *what);
void progress_step(struct progress *pg);
void progress_clear(const struct progress *pg);

/* The line progress_show prints (without the leading "\r\033[K"):
 * elapsed and left in seconds, left < 0 = not known yet. */
int progress_format(char *buf, size_t n, unsigned int done, unsigned int total, double elapsed, double left,
		    const char *what);

#ifdef __cplusplus
}
#endif

#endif /* HCASIM_SIM_PROGRESS_H */
