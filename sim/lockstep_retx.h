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
 *   - any other frame is a RETRANSMISSION of its PSN;
 *   - every PSN the reference sends again must be sent by the DUT after
 *     that (again, or for the first time: the DUT may still be behind), at
 *     most `lag` cycles later ("late"; "missing" when the DUT goes idle),
 *     unless the peer acknowledges it first (ACKs and NAKs the device
 *     receives); one DUT frame answers every reference resend of its PSN
 *     up to then (the DUT may merge two go-back-N runs that the untimed
 *     reference made one after the other);
 *   - a DUT retransmission of a PSN the reference has not sent again by
 *     then is "extra" ("early" when the reference sends it again later);
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

/* `lag`: cycles the DUT may resend a PSN after the reference (0: no bound). NULL on ENOMEM. */
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
