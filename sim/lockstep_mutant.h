/* SPDX-License-Identifier: MIT */
/*
 * "model-mutant": a TEST-ONLY engine that wraps another engine (the model by
 * default) and plants one bug, so the lockstep checker can be shown to fail
 * before the RTL exists (docs/sim.md "Proving the checker").  With no bug it
 * behaves exactly like the engine it wraps.
 *
 * Options ("key=value,..."):
 *   inner=NAME    engine wrapped (default "model")
 *   bug=NAME      one of:
 *     none          (default)
 *     hdr_se        flip BTH SE in the at-th request frame (ICRC recomputed, so
 *                   the peer accepts it: a wrong header bit, as an RTL bug makes it)
 *     udp_sport     wrong UDP source port (bit 0 flipped) in the at-th frame (ICRC recomputed)
 *     deth_qkey     wrong DETH Q_Key (bit 0 of its last byte flipped) in the at-th UD
 *                   request frame (ICRC recomputed): the peer drops it (Q_Key mismatch)
 *     drop_ack      the at-th RC ACKNOWLEDGE frame is not sent
 *     dup_frame     the at-th frame is sent twice
 *     cqe_field     the at-th CQE written has a wrong `field` (default byte_len, +1)
 *     drop_irq      the at-th MSI-X interrupt is not delivered
 *     reorder_dma   the at-th DMA write into an MR is held back and written
 *                   after the next write into the same MR
 *     payload_byte  one byte of the at-th DMA write into an MR is wrong
 *     ctx_status    the at-th read of MGMT.CTX_STATUS returns a wrong value
 *     evt_element   the at-th engine event shows a wrong element (EVT_ELEMENT)
 *     ack_late      NOT a bug: ACK frames leave ack_delay cycles late (default 200),
 *                   so requests sent meanwhile overtake them -- a legal interleaving
 *                   (wire.md fixes the order within a QP's requests and within its
 *                   responses only), as an RTL TX arbiter produces; "fired" counts
 *                   the requests that overtook a held ACK
 *     rx_rkey, rx_icrc  receive-path bugs (sim/lockstep_mutant_rx.h)
 *   at=N          which occurrence (1 = the first; default 1)
 *   field=NAME    cqe_field: byte_len, wqe_index, status, opcode, qpn, imm_data
 *   lag=CYCLES    doorbell writes and received frames reach the wrapped engine
 *                 CYCLES later (default 0): a slow DUT, to show that timing
 *                 differences alone are not reported as divergences
 *
 * hca_engine_config.trace: the mutant writes a VCD (not FST) of its host
 * interface (frames, DMA writes, interrupts as counters and last values,
 * scope TOP.mutant, 1 ns units: 4 per cycle) for cycles trace_from..trace_to -- a stand-in for the
 * RTL's FST so that `make wave` can be exercised end to end without RTL.
 */
#ifndef HCASIM_SIM_LOCKSTEP_MUTANT_H
#define HCASIM_SIM_LOCKSTEP_MUTANT_H

#include "hcasim/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const struct hca_engine_ops hca_mutant_engine_ops;

/* Register "model-mutant" (idempotent; not done automatically: test-only). */
void hca_mutant_engine_register(void);

/* How many times the planted bug fired (0: not yet, or not a mutant). */
unsigned int mutant_fired(struct hca_engine *e);

#ifdef __cplusplus
}
#endif

#endif /* HCASIM_SIM_LOCKSTEP_MUTANT_H */
