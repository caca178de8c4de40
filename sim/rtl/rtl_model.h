/* SPDX-License-Identifier: MIT */
/*
 * The port-level view of one Verilated hca_top, shared by the thin C++ shim
 * (rtl_model.cpp, compiled once per datapath width) and the C harness
 * (rtl_engine.c).  The harness fills the inputs of struct rtl_io, calls
 * settle() to see the combinational outputs of the current cycle, decides
 * which handshakes happen, then calls clock() for the rising edge.  Wide
 * buses are byte arrays in lane order (byte i of a beat is lane i); keep and
 * strobe masks have bit i for lane i.
 */
#ifndef HCASIM_SIM_RTL_MODEL_H
#define HCASIM_SIM_RTL_MODEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RTL_MAX_BYTES 64	/* widest datapath: 512 bits */

struct rtl_io {
	/* ---- inputs */
	uint8_t rst_n, eng_hold, time_warp, dbg_bug;
	uint64_t time_warp_cycles;
	/* AXI4-Lite slaves: b = BAR0, m = management port */
	uint8_t b_awvalid, b_wvalid, b_bready, b_arvalid, b_rready, b_wstrb;
	uint32_t b_awaddr, b_wdata, b_araddr;
	uint8_t m_awvalid, m_wvalid, m_bready, m_arvalid, m_rready, m_wstrb;
	uint32_t m_awaddr, m_wdata, m_araddr;
	/* DMA */
	uint8_t rd_req_ready;
	uint8_t rd_cpl_valid, rd_cpl_tag, rd_cpl_last, rd_cpl_err;
	uint8_t rd_cpl_data[RTL_MAX_BYTES];
	uint8_t wr_req_ready, wr_dat_ready, wr_rsp_valid, wr_rsp_err;
	/* MAC */
	uint8_t tx_tready;
	uint8_t rx_tvalid, rx_tlast;
	uint64_t rx_tkeep;
	uint8_t rx_tdata[RTL_MAX_BYTES];

	/* ---- outputs */
	uint8_t b_awready, b_wready, b_bvalid, b_arready, b_rvalid;
	uint32_t b_rdata;
	uint8_t m_awready, m_wready, m_bvalid, m_arready, m_rvalid;
	uint32_t m_rdata;
	uint8_t rd_req_valid, rd_req_tag;
	uint64_t rd_req_addr;
	uint16_t rd_req_len;
	uint8_t rd_cpl_ready;
	uint8_t wr_req_valid;
	uint64_t wr_req_addr;
	uint16_t wr_req_len;
	uint8_t wr_dat_valid, wr_dat_last;
	uint64_t wr_dat_strb;
	uint8_t wr_dat_data[RTL_MAX_BYTES];
	uint8_t tx_tvalid, tx_tlast;
	uint64_t tx_tkeep;
	uint8_t tx_tdata[RTL_MAX_BYTES];
	uint8_t rx_tready;
	uint8_t msix_valid, msix_vector, fw_irq, busy, soft_reset;
	uint32_t dbg;		/* debug word: working job and state (docs/rtl.md) */
	uint64_t cycle;
	uint64_t next_timer;	/* no transport timer expires before this cycle (UINT64_MAX: none) */
};

struct rtl_model {
	unsigned int data_w;
	void *impl;
	/* Apply the inputs and evaluate: outputs of the current cycle. */
	void (*settle)(struct rtl_model *m, struct rtl_io *io);
	/* Rising edge (inputs as given), then outputs after the edge. */
	void (*clock)(struct rtl_model *m, struct rtl_io *io);
	/* FST waveform: open a file; dump the current time (0 = not tracing). */
	int (*trace_open)(struct rtl_model *m, const char *path);
	void (*trace_close)(struct rtl_model *m);
	void (*set_trace)(struct rtl_model *m, int on);
	/* Quiet cycles (docs/sim.md "Skipping quiet cycles"): remember() copies
	 * the model state; unchanged() tells whether the state equals the copy in
	 * everything but the device clock (the cycle counter, clk).  full = 0:
	 * only its first 16 KiB (Verilator puts the scalar flops and nets first,
	 * the memories last), a cheap first look; full = 1:
	 * all of it.  NULL in builds that cannot tell (the mutant netlist,
	 * coverage). */
	void (*remember)(struct rtl_model *m, int full);
	int (*unchanged)(struct rtl_model *m, int full);
	void (*destroy)(struct rtl_model *m);
};

/* NULL when that width is not built in. */
struct rtl_model *rtl_model_new_64(void);
struct rtl_model *rtl_model_new_512(void);

#ifdef __cplusplus
}
#endif

#endif /* HCASIM_SIM_RTL_MODEL_H */
