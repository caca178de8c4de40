/* SPDX-License-Identifier: MIT */
/*
 * The lockstep engine's rule for retransmitted RC request frames
 * (docs/sim.md section 2, "Retransmissions").  Internal to sim/lockstep.c.
 *
 * The untimed reference sends a message's packets the moment the doorbell
 * rings; the DUT takes cycles per packet.  When a NAK or a timeout makes
 * both go back N packets, the reference has already sent the whole message
 * while the DUT may be halfway, so the order of a QP's request frames
 * legitimately differs (reference: 0..9, 3..9; DUT: 0..5, 3..9).  The rule
 * that replaces exact order for RC request frames:
 *
 *   - a frame whose PSN is past every PSN its side sent on that QP is NEW:
 *     new frames go to the scoreboard's "tx" stream, exact order per QP;
 *   - any other frame is a RETRANSMISSION; a side's retransmissions form
 *     RUNS (a run starts at a frame whose PSN is not past the previous
 *     frame's, and PSNs increase within it);
 *   - the DUT's k-th run must start at the PSN of the reference's k-th run
 *     (or later, over PSNs the peer has acknowledged meanwhile: the
 *     requester skips them), after the reference started it (the reference
 *     is never behind: a run it has not started is "extra", too early) and
 *     at most `lag` cycles after it ("late"); a reference run the DUT never
 *     starts is "missing" when the DUT goes idle;
 *   - every retransmitted DUT frame must equal the reference's frame of the
 *     same PSN, byte for byte.
 */
#ifndef HCASIM_SIM_LOCKSTEP_RETX_H
#define HCASIM_SIM_LOCKSTEP_RETX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scoreboard.h"

struct ls_retx;

/* `lag`: cycles the DUT may start a run after the reference (0: no bound). NULL on ENOMEM. */
struct ls_retx *ls_retx_create(uint64_t lag);
void ls_retx_destroy(struct ls_retx *r);
/* An engine reset: every QP's history is dropped. */
void ls_retx_reset(struct ls_retx *r);

/*
 * A frame `side` sent at `cycle`.  True when the rule took it (an RC
 * request retransmission: compared here, a divergence recorded in `sb`
 * under stream "tx"); false when it goes to the scoreboard as usual.
 */
bool ls_retx_tx(struct ls_retx *r, struct sb *sb, enum sb_side side, uint64_t cycle, const uint8_t *f,
		size_t len);
/* A frame the device received: ACKs and NAKs tell which PSNs the peer acknowledged. */
void ls_retx_rx(struct ls_retx *r, const uint8_t *f, size_t len);
/* Runs the reference started and the DUT did not: "late" past the lag, "missing" once the DUT is idle. */
void ls_retx_check(struct ls_retx *r, struct sb *sb, uint64_t now, bool dut_idle);
/* Retransmitted DUT frames compared so far. */
uint64_t ls_retx_matched(const struct ls_retx *r);
/* Frames (and their bytes) of `side` the rule took: the TX counters count them too. */
void ls_retx_taken(const struct ls_retx *r, enum sb_side side, uint64_t *frames, uint64_t *bytes);

#endif
