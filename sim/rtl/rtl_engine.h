/* SPDX-License-Identifier: MIT */
/*
 * The "rtl" packet engine: the Verilated RTL (rtl/hca_top.sv) behind
 * struct hca_engine_ops (include/hcasim/engine.h).  docs/rtl.md describes
 * the harness; in short:
 *
 *  - hca_engine_config.data_w selects the build: 64 (also for 0) or 512.
 *  - Register accesses are AXI4-Lite transactions run while the engine is
 *    held (eng_hold), so they take no engine time; a context command has
 *    completed when mgmt_write returns.  (Two test hooks below do otherwise.)
 *  - DMA: a read is performed through the host callback when the RTL's
 *    request is accepted and its completion returned after a latency;
 *    completions of different requests come back out of order (seeded).
 *    A faulting access is an error completion / response.
 *  - Idle time is skipped (time warp) when the RTL reports no work, and so
 *    are quiet cycles: busy ones in which the whole Verilated state stands
 *    still until the harness changes an input (docs/sim.md 9.2).
 *  - Options ("key=value,..."): rd_lat=N (cycles, default 24),
 *    rd_jitter=N (default 16), rd_gap=N (a random 0..N idle
 *    cycles between two beats of a read completion; default 0), wr_lat=N
 *    (default 8), quiet=0 (clock every
 *    busy cycle; also HCASIM_RTL_QUIET=0), bug=NAME (a planted
 *    RTL bug for checker tests: hdr_bit (BTH MigReq inverted on requests),
 *    hdr_se (SE inverted), udp_sport, drop_ack (no coalesced ACKs),
 *    cqe_field (a CQE byte_len bit), read_len (a READ response's payload
 *    length bit 2), atomic_orig (an atomic ACK's original value bit 0)), mac=none|25g|100g (transmit
 *    tready paced to that Ethernet line, mac_pace.h; default none).
 *  - cfg->trace: FST waveform of cycles [trace_from, trace_to] (0 = end).
 */
#ifndef HCASIM_SIM_RTL_ENGINE_H
#define HCASIM_SIM_RTL_ENGINE_H

#include "hcasim/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const struct hca_engine_ops hca_rtl_engine_ops;

/* Register "rtl" (idempotent; a constructor does it too when linked in). */
void hca_rtl_engine_register(void);

/* Harness statistics of one rtl engine (benchmarks). */
struct rtl_engine_stats {
	uint64_t cycles_clocked;	/* engine cycles actually simulated */
	uint64_t cycles_skipped;	/* idle cycles jumped over */
	uint64_t cycles_quiet;		/* busy cycles jumped over: the model at a fixed point */
	uint64_t quiet_checks, quiet_hits;	/* fixed-point checks tried, and found one */
	uint64_t reg_accesses;
	uint64_t dma_reads, dma_writes, frames_tx, frames_rx, irqs;
	uint64_t dma_write_faults;	/* DMA writes the host answered with an error */
	uint64_t protocol_errors;	/* RTL broke an interface rule (see last_error) */
	uint64_t tx_first_beat;		/* cycle of the first MAC TX beat of the frame being sent,
					 * or of the last one sent (valid in the tx_frame callback) */
	uint64_t tx_held;		/* cycles the paced MAC held a valid TX beat back (tready low) */
	uint64_t tx_wire_bytes;		/* line bytes of the accepted TX beats, preamble/pad/FCS/IFG included */
	uint32_t mac_rate;		/* line bits per device cycle of option mac= (0: none) */
	uint32_t jobs_seen;		/* bit j: the dbg port's working job (dbg[7:0], JOB_* of
					 * rtl/hca_defs.vh) was j in a clocked cycle */
};
int rtl_engine_stats(struct hca_engine *e, struct rtl_engine_stats *st);

/*
 * Host-interface events of one rtl engine, reported in the cycle they
 * happen (benchmarks: where the cycles of doorbell -> wire go).  DMA_RD_REQ:
 * a read request accepted (tag, addr, len); DMA_RD_CPL: the last beat of a
 * read's completion consumed (tag, len); TX_FIRST / TX_LAST: the first
 * (len: its bytes) / last (len: the frame's bytes) MAC beat of a frame
 * accepted.  The observer must not call back into the engine.
 */
enum rtl_event_kind { RTL_EV_DMA_RD_REQ, RTL_EV_DMA_RD_CPL, RTL_EV_TX_FIRST, RTL_EV_TX_LAST };
struct rtl_event {
	enum rtl_event_kind kind;
	uint64_t cycle;
	uint64_t addr;
	uint32_t len;
	uint8_t tag;
};
typedef void (*rtl_event_fn)(void *ctx, const struct rtl_event *ev);
/* fn NULL: none.  0, or -EINVAL when e is not an rtl engine. */
int rtl_engine_set_observer(struct hca_engine *e, rtl_event_fn fn, void *ctx);

/*
 * Test hook: a management write (mgmt_addr, mgmt_val) and a BAR0 read
 * (bar0_addr) presented in the same cycle, as two masters would; the read's
 * data in *data.  0, -ETIMEDOUT when a response never comes (also the
 * engine's last error), -EINVAL when e is not an rtl engine.
 */
int rtl_engine_axil_pair(struct hca_engine *e, uint32_t mgmt_addr, uint32_t mgmt_val, uint32_t bar0_addr,
			 uint32_t *data);
/*
 * Test hook: a BAR0 write (a doorbell) whose AXI4-Lite transaction runs
 * while the engine works -- not held, each of its cycles a full harness
 * cycle -- as in hardware.  0, -ETIMEDOUT, -EINVAL as above.
 */
int rtl_engine_bar0_write_live(struct hca_engine *e, uint32_t off, uint32_t val);

#ifdef __cplusplus
}
#endif

#endif /* HCASIM_SIM_RTL_ENGINE_H */
