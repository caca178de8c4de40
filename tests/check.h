/* SPDX-License-Identifier: MIT */
/*
 * Minimal checking for hcasim's C test programs.  Every CHECK counts one
 * pass or one failure (printed with file, line and the reason); a test ends
 * with `return check_done();`, which prints the "N passed, N failed" line the
 * test runner totals and returns the exit status.
 */
#ifndef HCASIM_TESTS_CHECK_H
#define HCASIM_TESTS_CHECK_H

#include <inttypes.h>
#include <stdio.h>

static unsigned long check_passed_, check_failed_;

#define CHECK(cond, ...)                                                          \
	do {                                                                      \
		if (cond) {                                                       \
			check_passed_++;                                          \
		} else {                                                          \
			check_failed_++;                                          \
			fprintf(stdout, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stdout, __VA_ARGS__);                             \
			fputc('\n', stdout);                                      \
		}                                                                 \
	} while (0)

/* Integer equality with both values in the message. */
#define CHECK_EQ(a, b, what)                                                       \
	do {                                                                       \
		uint64_t ca_ = (uint64_t)(a), cb_ = (uint64_t)(b);                  \
		CHECK(ca_ == cb_, "%s: got %" PRIu64 " (0x%" PRIx64 "), want %" PRIu64 \
		      " (0x%" PRIx64 ")", what, ca_, ca_, cb_, cb_);               \
	} while (0)

static inline unsigned long check_failures(void)
{
	return check_failed_;
}

static inline int check_done(void)
{
	printf("%lu passed, %lu failed\n", check_passed_, check_failed_);
	fflush(stdout);
	return check_failed_ ? 1 : 0;
}

#endif /* HCASIM_TESTS_CHECK_H */
