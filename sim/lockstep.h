/* SPDX-License-Identifier: MIT */
/*
 * The "lockstep" engine: a reference engine and a DUT engine on the same
 * stimulus, compared transaction by transaction (ARCHITECTURE contract 5,
 * docs/sim.md).
 *
 *   holder --BAR0 / mgmt writes, rx frames--> ref and DUT
 *   holder <--reads-- DUT (the reference's value is compared)
 *   DUT  --DMA, frames, interrupts--> the real host callbacks (and the scoreboard)
 *   ref  --DMA reads--> host memory, overlaid with its own not-yet-matched writes
 *   ref  --DMA writes, frames, interrupts--> the scoreboard only
 *
 * Options (hca_engine_config.options, "key=value,..."):
 *   ref=NAME        reference engine (default "model")
 *   dut=NAME        engine under test (default "rtl")
 *   ref.K=V, dut.K=V   option K=V passed to that engine (e.g. dut.bug=hdr_bit)
 *   label=TEXT      names this device in reports (default "lockstep")
 *   report=PATH     write the divergence report to PATH when it happens
 *   quiet=1         do not print the report on stderr
 *   idle_check=0    do not report "missing" transactions when the DUT goes idle
 *   probe=0         the reference's DMA writes never fault (default: a write
 *                   faults when the host refuses a read of the same range)
 *   tx_order=port   frames keep one order per port (default "qp": order per
 *                   local QP and request/response, as wire.md fixes it)
 *
 * After the first divergence the engine stops driving the reference and
 * comparing; the DUT keeps running and the holder keeps working.
 * last_error() returns the one-line summary; lockstep_divergence() the rest.
 */
#ifndef HCASIM_SIM_LOCKSTEP_H
#define HCASIM_SIM_LOCKSTEP_H

#include <stdbool.h>
#include <stdint.h>

#include "hcasim/engine.h"
#include "scoreboard.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const struct hca_engine_ops hca_lockstep_engine_ops;

/* Register "lockstep" (idempotent; also done by a constructor when linked in). */
void hca_lockstep_engine_register(void);

/* True when `e` is a live lockstep engine. */
bool lockstep_is(struct hca_engine *e);

/* The first divergence, or NULL (none yet, or `e` is not a lockstep engine). */
const struct sb_divergence *lockstep_divergence(struct hca_engine *e);

/*
 * End-of-test check: transactions the reference produced and the DUT never
 * did (or the reverse) become the divergence.  Call when the holder is done
 * (after running the engines idle).  Returns true when nothing diverged.
 */
bool lockstep_finish(struct hca_engine *e, const char *why);

struct lockstep_stats {
	uint64_t frames;		/* frames matched */
	uint64_t dma_bytes;		/* DMA bytes matched, all streams */
	uint64_t cqe_bytes, eqe_bytes;	/* of which CQ / EQ rings */
	uint64_t irqs;			/* interrupts matched */
	uint64_t events;		/* engine events matched (FIFO pops) */
	uint64_t reads_compared;	/* register reads compared (exact or settled) */
	uint64_t reads_skipped;		/* reads not compared (volatile while busy) */
	uint64_t arms_held;		/* arm doorbells held until the DUT caught up on the ring (docs/sim.md) */
	uint64_t ctx_waits;		/* context writes that first let the DUT catch up (docs/sim.md) */
	uint64_t ctx_wait_cycles;	/* ... and the cycles they waited */
	bool diverged;
};
/* 0, or -EINVAL when `e` is not a lockstep engine. */
int lockstep_get_stats(struct hca_engine *e, struct lockstep_stats *st);

/* The scoreboard and the two engines (tests, tools). */
struct sb *lockstep_scoreboard(struct hca_engine *e);
struct hca_engine *lockstep_dut(struct hca_engine *e, const struct hca_engine_ops **ops);
struct hca_engine *lockstep_ref(struct hca_engine *e, const struct hca_engine_ops **ops);

#ifdef __cplusplus
}
#endif

#endif /* HCASIM_SIM_LOCKSTEP_H */
