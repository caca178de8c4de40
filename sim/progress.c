// SPDX-License-Identifier: MIT
/* Progress of a long loop on a terminal only (sim/progress.h). */
#include "progress.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* 45s, 3m05s, 1h02m */
static int fmt_dur(char *buf, size_t n, double sec)
{
	unsigned long s = sec > 0 ? (unsigned long)(sec + 0.5) : 0;

	if (s >= 3600)
		return snprintf(buf, n, "%luh%02lum", s / 3600, s % 3600 / 60);
	if (s >= 60)
		return snprintf(buf, n, "%lum%02lus", s / 60, s % 60);
	return snprintf(buf, n, "%lus", s);
}

int progress_format(char *buf, size_t n, unsigned int done, unsigned int total, double elapsed, double left,
		    const char *what)
{
	char el[32], lf[40];

	fmt_dur(el, sizeof(el), elapsed);
	if (left < 0) {
		snprintf(lf, sizeof(lf), "estimating");
	} else {
		lf[0] = '~';
		fmt_dur(lf + 1, sizeof(lf) - 1, left);
	}
	return snprintf(buf, n, "[%u/%u] %s elapsed, %s left: %s", done, total, el, lf, what ? what : "");
}

void progress_init(struct progress *pg, unsigned int total, FILE *out)
{
	const char *env = getenv("HCASIM_PROGRESS");

	memset(pg, 0, sizeof(*pg));
	pg->total = total;
	pg->out = out;
	pg->t0 = mono_s();
	if (env && !strcmp(env, "1"))
		pg->on = true;
	else if (env && !strcmp(env, "0"))
		pg->on = false;
	else
		pg->on = out && isatty(fileno(out));
}

void progress_show(const struct progress *pg, const char *what)
{
	char line[512];
	double el;

	if (!pg->on)
		return;
	el = mono_s() - pg->t0;
	progress_format(line, sizeof(line), pg->done, pg->total, el,
			pg->done ? el * (pg->total - pg->done) / pg->done : -1.0, what);
	fprintf(pg->out, "\r\033[K%s", line);
	fflush(pg->out);
}

void progress_step(struct progress *pg)
{
	if (pg->done < pg->total)
		pg->done++;
}

void progress_clear(const struct progress *pg)
{
	if (!pg->on)
		return;
	fputs("\r\033[K", pg->out);
	fflush(pg->out);
}
