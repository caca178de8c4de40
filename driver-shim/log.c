// SPDX-License-Identifier: MIT
/* Shim diagnostics: see log.h. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int debug_level = -1;

int shim_debug_level(void)
{
	if (debug_level < 0) {
		const char *s = getenv("HCASIM_DEBUG");

		debug_level = s ? atoi(s) : 0;
		if (debug_level < 0)
			debug_level = 0;
	}
	return debug_level;
}

static void vlog(const char *fmt, va_list ap)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	/* One write per line so lines of several threads do not interleave. */
	fprintf(stderr, "hcasim: %s\n", buf);
}

void shim_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}

void shim_dbg_(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(fmt, ap);
	va_end(ap);
}
