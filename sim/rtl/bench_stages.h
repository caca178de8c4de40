/* SPDX-License-Identifier: MIT */
/*
 * make bench-rtl: where the doorbell -> wire cycles of one message go
 * (docs/rtl.md "Performance", the stage tables), from the events the rtl
 * harness reports at the RTL's ports (rtl_engine_set_observer): no RTL
 * signal is involved.  Armed at the doorbell, it stamps
 *
 *   wqe_req / wqe_cpl   the first DMA read into the SQ ring, and the last
 *                       beat of the completion with its tag
 *   pay_req / pay_cpl   the same for the first read into the payload buffer
 *   tx_first / tx_last  the first frame's first and last MAC beat
 *
 * and prints them as the cycles between consecutive events.
 */
#ifndef HCASIM_SIM_RTL_BENCH_STAGES_H
#define HCASIM_SIM_RTL_BENCH_STAGES_H

#include <stdbool.h>
#include <stdint.h>

#include "rtl_engine.h"

#define STAGE_NONE UINT64_MAX	/* not seen */

struct bench_stages {
	uint64_t db, wqe_req, wqe_cpl, pay_req, pay_cpl, tx_first, tx_last;
	uint8_t wqe_tag, pay_tag;
	bool on;
	uint64_t sq_base, sq_len, pay_base, pay_len;	/* the address ranges that classify reads */
};

/* Start stamping at doorbell cycle db; reads are classified by the two ranges. */
void bench_stages_arm(struct bench_stages *s, uint64_t db, uint64_t sq_base, uint64_t sq_len, uint64_t pay_base,
		      uint64_t pay_len);

/* The observer: rtl_engine_set_observer(engine, bench_stages_event, s).  Does nothing unless armed. */
void bench_stages_event(void *s, const struct rtl_event *ev);

/* Every event seen, in the order of a store-and-forward requester. */
bool bench_stages_complete(const struct bench_stages *s);

/* The table under bench_rtl's: a header, then one row per message (label: its size). */
void bench_stages_header(void);
void bench_stages_row(const char *label, const struct bench_stages *s);

#endif /* HCASIM_SIM_RTL_BENCH_STAGES_H */
