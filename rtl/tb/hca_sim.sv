`include "hca_defs.vh"

// Test-only top of the harness build (rtl/rtl.mk builds the Verilated "rtl"
// engine from it, with HCA_PLANTED_BUGS defined): hca_top, instance name
// hca_top, plus the planted-bug selector.  Not part of the product: lint and
// synthesis take rtl/*.sv with hca_top as the top and without the define,
// so no bug logic exists there.
//
// dbg_bug (engine option bug=NAME, sim/rtl/rtl_engine.c) sets one bug_<name>
// bit below; the product modules read it through their HCA_BUG(name, good,
// bad) hooks (rtl/hca_defs.vh), which name the hook site and the defect.
// To plant a new bug: a hook in the product module where the defect goes, a
// bit here with the next code, the name in rtl_engine.c's bug_names[], a
// line in docs/rtl.md "Planted bugs".
//
//   code  name       hook (module)                      defect
//   1     hdr_se     hca_req REQST_BUILD_HDR             BTH SE inverted on every request packet
//   2     udp_sport  hca_req REQST_BUILD_HDR             UDP source port bit 0 inverted on requests
//   3     drop_ack   hca_resp RESPST_ACK                 no ACK for AckReq packets
//   4     cqe_field  hca_cq_post CQST_RESERVE            bit 0 of every CQE's byte_len inverted
//   5     hdr_bit    hca_tx_hdr                          BTH MigReq inverted on request packets
//   6     read_len   hca_read_atomic RDATST_READ_PKT     READ response payload length bit 2 inverted
//   7     atomic_orig hca_read_atomic RDATST_ATOMIC_ACK   bit 0 of the AtomicAckETH original value inverted
//   8     nak_code   hca_resp RESPST_CHECK_PSN           PSN sequence NAKs carry the invalid-request code
//   9     retx_psn   hca_comp_retry RETRYST_REWIND_CHECK go-back-N resends from the PSN after the right one
//   10    ack_timer  hca_timers                          an ACK timeout deadline that is never reached
//   11    rnr_timer  hca_timers                          the RNR wait ignores the NAK's timer code (always 10 us)
module hca_sim #(
    parameter int DATA_W      = 64,
    parameter int LOG_MAX_QP  = `HCA_CAP_LOG_MAX_QP,
    parameter int LOG_MAX_CQ  = `HCA_CAP_LOG_MAX_CQ,
    parameter int LOG_MAX_SRQ = `HCA_CAP_LOG_MAX_SRQ,
    parameter int LOG_MAX_EQ  = `HCA_CAP_LOG_MAX_EQ,
    parameter int LOG_MAX_MR  = `HCA_CAP_LOG_MAX_MR,
    parameter int LOG_OUTS    = 5,
    parameter int RD_TAGS     = 8,
    parameter int LOG_BUF     = 13,
    parameter int PF_N        = 16,
    localparam int WB = DATA_W / 8,
    localparam int TAG_W = $clog2(RD_TAGS + 1 + PF_N)
) (
    input  logic              clk,
    input  logic              rst_n,
    input  logic              eng_hold,
    input  logic              time_warp,
    input  logic [63:0]       time_warp_cycles,
    input  logic [7:0]        dbg_bug,       // the planted bug (table above)
    // BAR0 (1 MiB) AXI4-Lite slave
    input  logic              s_bar0_awvalid,
    output logic              s_bar0_awready,
    input  logic [19:0]       s_bar0_awaddr,
    input  logic              s_bar0_wvalid,
    output logic              s_bar0_wready,
    input  logic [31:0]       s_bar0_wdata,
    input  logic [3:0]        s_bar0_wstrb,
    output logic              s_bar0_bvalid,
    input  logic              s_bar0_bready,
    output logic [1:0]        s_bar0_bresp,
    input  logic              s_bar0_arvalid,
    output logic              s_bar0_arready,
    input  logic [19:0]       s_bar0_araddr,
    output logic              s_bar0_rvalid,
    input  logic              s_bar0_rready,
    output logic [31:0]       s_bar0_rdata,
    output logic [1:0]        s_bar0_rresp,
    // management port (16 KiB) AXI4-Lite slave
    input  logic              s_mgmt_awvalid,
    output logic              s_mgmt_awready,
    input  logic [13:0]       s_mgmt_awaddr,
    input  logic              s_mgmt_wvalid,
    output logic              s_mgmt_wready,
    input  logic [31:0]       s_mgmt_wdata,
    input  logic [3:0]        s_mgmt_wstrb,
    output logic              s_mgmt_bvalid,
    input  logic              s_mgmt_bready,
    output logic [1:0]        s_mgmt_bresp,
    input  logic              s_mgmt_arvalid,
    output logic              s_mgmt_arready,
    input  logic [13:0]       s_mgmt_araddr,
    output logic              s_mgmt_rvalid,
    input  logic              s_mgmt_rready,
    output logic [31:0]       s_mgmt_rdata,
    output logic [1:0]        s_mgmt_rresp,
    // DMA master: reads
    output logic              dma_rd_req_valid,
    input  logic              dma_rd_req_ready,
    output logic [63:0]       dma_rd_req_addr,
    output logic [15:0]       dma_rd_req_len,
    output logic [TAG_W-1:0]  dma_rd_req_tag,
    input  logic              dma_rd_cpl_valid,
    output logic              dma_rd_cpl_ready,
    input  logic [TAG_W-1:0]  dma_rd_cpl_tag,
    input  logic [DATA_W-1:0] dma_rd_cpl_data,
    input  logic              dma_rd_cpl_last,
    input  logic              dma_rd_cpl_err,
    // DMA master: writes
    output logic              dma_wr_req_valid,
    input  logic              dma_wr_req_ready,
    output logic [63:0]       dma_wr_req_addr,
    output logic [15:0]       dma_wr_req_len,
    output logic [TAG_W-1:0]  dma_wr_req_tag,
    output logic              dma_wr_dat_valid,
    input  logic              dma_wr_dat_ready,
    output logic [DATA_W-1:0] dma_wr_dat_data,
    output logic [WB-1:0]     dma_wr_dat_strb,
    output logic              dma_wr_dat_last,
    input  logic              dma_wr_rsp_valid,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [TAG_W-1:0]  dma_wr_rsp_tag,     // one write in flight: the tag is always 0
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic              dma_wr_rsp_err,
    // MAC transmit (frames without FCS)
    output logic [DATA_W-1:0] m_axis_tx_tdata,
    output logic [WB-1:0]     m_axis_tx_tkeep,
    output logic              m_axis_tx_tlast,
    output logic              m_axis_tx_tvalid,
    input  logic              m_axis_tx_tready,
    // MAC receive
    input  logic [DATA_W-1:0] s_axis_rx_tdata,
    input  logic [WB-1:0]     s_axis_rx_tkeep,
    input  logic              s_axis_rx_tlast,
    input  logic              s_axis_rx_tvalid,
    output logic              s_axis_rx_tready,
    // interrupts
    output logic              msix_valid,
    output logic [4:0]        msix_vector,
    output logic              fw_irq,
    // harness view
    output logic              busy,          // engine has work in hand
    output logic [63:0]       cycle,         // device clock
    output logic [63:0]       next_timer,    // no transport timer expires before this cycle
    output logic              soft_reset,    // an ENGINE_CTRL/CTRL reset happened this cycle
    output logic [31:0]       dbg            // debug: the working job and its state (docs/rtl.md)
);
  // Simulation speed (docs/sim.md 9.9): Verilator evaluates the logic that
  // depends on a top-level input (its "ico" region) in every eval() call,
  // twice a cycle.  eng_hold (hca_top's ce) and dbg_bug reach most of the
  // design combinationally, so they are taken through state: hold_q follows
  // eng_hold on each of its edges (an event of its own: the logic behind it
  // is evaluated in the eval() where eng_hold changes, and not in the others;
  // the harness settles before a clock edge whenever it changes eng_hold,
  // sim/rtl/rtl_model.cpp), and bug_q follows dbg_bug a clock later (the
  // harness sets dbg_bug once, before the power-on reset's first clock).
  // Same values in every cycle the design works, so the same cycles.
  logic       hold_q = 1'b0;
  logic [7:0] bug_q = 8'd0;
  always_ff @(posedge eng_hold or negedge eng_hold) hold_q <= eng_hold;
  always_ff @(posedge clk) bug_q <= dbg_bug;

  // read by the HCA_BUG hooks of the product modules (upward references)
  logic bug_hdr_se, bug_udp_sport, bug_drop_ack, bug_cqe_field, bug_hdr_bit, bug_read_len, bug_atomic_orig,
        bug_nak_code, bug_retx_psn, bug_ack_timer, bug_rnr_timer;
  assign bug_hdr_se    = bug_q == 8'd1;
  assign bug_udp_sport = bug_q == 8'd2;
  assign bug_drop_ack  = bug_q == 8'd3;
  assign bug_cqe_field = bug_q == 8'd4;
  assign bug_hdr_bit   = bug_q == 8'd5;
  assign bug_read_len  = bug_q == 8'd6;
  assign bug_atomic_orig = bug_q == 8'd7;
  assign bug_nak_code  = bug_q == 8'd8;
  assign bug_retx_psn  = bug_q == 8'd9;
  assign bug_ack_timer = bug_q == 8'd10;
  assign bug_rnr_timer = bug_q == 8'd11;

  hca_top #(.DATA_W(DATA_W), .LOG_MAX_QP(LOG_MAX_QP), .LOG_MAX_CQ(LOG_MAX_CQ), .LOG_MAX_SRQ(LOG_MAX_SRQ),
            .LOG_MAX_EQ(LOG_MAX_EQ), .LOG_MAX_MR(LOG_MAX_MR), .LOG_OUTS(LOG_OUTS), .RD_TAGS(RD_TAGS),
            .LOG_BUF(LOG_BUF), .PF_N(PF_N)) hca_top (.eng_hold(hold_q), .*);
endmodule
