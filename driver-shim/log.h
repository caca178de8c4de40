/* SPDX-License-Identifier: MIT */
/*
 * Diagnostics of the shim, on stderr, prefixed "hcasim: ".
 *   shim_err   always printed (faults, failed bring-up, bad configuration)
 *   shim_dbg   printed when HCASIM_DEBUG is set to a non-zero value
 *              (HCASIM_DEBUG=2 adds per-command and per-doorbell traces)
 */
#ifndef HCASIM_SHIM_LOG_H
#define HCASIM_SHIM_LOG_H

int shim_debug_level(void);
void shim_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void shim_dbg_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define shim_dbg(lvl, ...)                                  \
	do {                                                \
		if (shim_debug_level() >= (lvl))            \
			shim_dbg_(__VA_ARGS__);             \
	} while (0)

#endif /* HCASIM_SHIM_LOG_H */
