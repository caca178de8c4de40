/* SPDX-License-Identifier: MIT */
/*
 * Receive-path bugs of the test-only "model-mutant" engine
 * (sim/lockstep_mutant.h): applied to a received frame before the wrapped
 * engine sees it, so that the wrapped engine behaves as if one of its
 * receive checks were missing.  With inner=rtl they make a planted RX bug
 * in the RTL without touching a product module.
 *   rx_rkey  the rkey check is skipped: a RETH/AtomicETH whose rkey names no
 *            valid MR is given the rkey of the valid remote-writable MR that
 *            holds [va, va+len), and the ICRC is recomputed
 *   rx_icrc  the ICRC check is skipped: every RoCE frame's ICRC is recomputed
 */
#ifndef HCASIM_SIM_LOCKSTEP_MUTANT_RX_H
#define HCASIM_SIM_LOCKSTEP_MUTANT_RX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hcasim/engine.h"

#define MRX_NUM_MR 1024

struct mrx_mr {
	bool valid;
	uint8_t key;
	uint16_t access;
	uint64_t va, len;
};

struct mrx {
	struct mrx_mr mr[MRX_NUM_MR];	/* by MR index (rkey >> 8) */
};

/* After a management write forwarded to (ops, e): learn MR contexts. */
void mrx_snoop(struct mrx *t, const struct hca_engine_ops *ops, struct hca_engine *e, uint32_t addr,
	       uint32_t value);
/* rx_rkey: rewrite f in place; true when it was changed. */
bool mrx_skip_rkey_check(const struct mrx *t, uint8_t *f, size_t len);
/* rx_icrc: recompute the ICRC in place; true when it was wrong. */
bool mrx_skip_icrc_check(uint8_t *f, size_t len);

#endif /* HCASIM_SIM_LOCKSTEP_MUTANT_RX_H */
