`include "hca_defs.vh"

// hcasim HCA packet engine (docs/rtl.md).
//
//   BAR0 AXI4-Lite ----\     |--> MSI-X (valid, vector), fw_irq
//   mgmt AXI4-Lite -----> hca_regs <-> hca_ctx <-> hca_transport
//                                                  |   |  \
//                      DMA read  <-> hca_dma_rd ---+   |   hca_tx_frame --> MAC TX (AXI4-Stream)
//                      DMA write <-> hca_dma_wr -------+   hca_rx_frame <-- MAC RX (AXI4-Stream)
//
// Single clock.  eng_hold freezes everything except the register side (the
// two AXI4-Lite slaves, hca_regs and hca_ctx's command port) -- the
// cosimulation harness holds the engine while it performs a register access,
// so accesses take no engine time, as the backend interface requires; tie it
// to 0 in a real design.  time_warp adds cycles to the device clock while
// held (the harness skips idle time).  Test-only planted bugs are not ports:
// rtl/tb/hca_sim.sv.
module hca_top #(
    parameter int DATA_W      = 64,
    parameter int LOG_MAX_QP  = `HCA_CAP_LOG_MAX_QP,
    parameter int LOG_MAX_CQ  = `HCA_CAP_LOG_MAX_CQ,
    parameter int LOG_MAX_SRQ = `HCA_CAP_LOG_MAX_SRQ,
    parameter int LOG_MAX_EQ  = `HCA_CAP_LOG_MAX_EQ,
    parameter int LOG_MAX_MR  = `HCA_CAP_LOG_MAX_MR,
    parameter int LOG_OUTS    = 5,       // started-but-unretired send WQEs per QP: 2^LOG_OUTS - 1
    parameter int RD_TAGS     = 8,       // outstanding payload reads
    parameter int LOG_BUF     = 13,      // transmit and receive slot size: 2^LOG_BUF bytes
    // transmit slots (packets read ahead of the framer), a power of two >= 2,
    // $clog2(TX_SLOTS) + LOG_BUF <= 16 (the 16-bit buffer address of a piece);
    // enough to cover a payload read's latency at the frame rate: 8 at 512
    // bits (a 64 B WRITE's frame is 3 beats), 4 at 64 (18 beats)
    parameter int TX_SLOTS    = (DATA_W >= 512) ? 8 : 4,
    parameter int PF_N        = 16,      // WQE prefetch entries (hca_wqe_prefetch), one tag each
    localparam int WB = DATA_W / 8,
    localparam int LW = $clog2(WB),
    localparam int TAG_W = $clog2(RD_TAGS + 1 + PF_N)   // payload tags, the fetch tag, the prefetch tags
) (
    input  logic              clk,
    input  logic              rst_n,
    input  logic              eng_hold,
    input  logic              time_warp,
    input  logic [63:0]       time_warp_cycles,
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
    output logic [63:0]       next_timer,    // no transport timer expires before this cycle (all ones: none)
    output logic              soft_reset,    // an ENGINE_CTRL/CTRL reset happened this cycle
    output logic [31:0]       dbg            // debug: the working job and its state (docs/rtl.md)
);
  localparam int BUF_AW = LOG_BUF - LW;      // buffer words (a slot)
  localparam int TSW = $clog2(TX_SLOTS);     // transmit slot number bits
  localparam int HDR = 96;

  // the engine is busy while any unit has work in hand
  logic tp_busy, rd_busy, rx_busy, wp_wake;
  // (wp_wake: a WQE read a step gave way to completed and has yet to set the
  // QP's busy bit in an engine cycle; hca_dma_rd is idle by then)
  logic lk_busy;                // hca_wqe_lkey_ahead: a prefetched WQE's lkey check to do
  assign busy = tp_busy || rd_busy || rx_busy || wp_wake || lk_busy;

  logic ce;
  assign ce = !eng_hold;

  // ---------------------------------------------------------- register side
  logic        b_req, b_we, b_ack, m_req, m_we, m_ack;
  logic [19:0] b_addr;
  logic [13:0] m_addr;
  logic [31:0] b_wdata, b_rdata, m_wdata, m_rdata;

  hca_axil_slave #(.ADDR_W(20)) u_bar0 (
      .clk(clk), .rst_n(rst_n),
      .awvalid(s_bar0_awvalid), .awready(s_bar0_awready), .awaddr(s_bar0_awaddr),
      .wvalid(s_bar0_wvalid), .wready(s_bar0_wready), .wdata(s_bar0_wdata), .wstrb(s_bar0_wstrb),
      .bvalid(s_bar0_bvalid), .bready(s_bar0_bready), .bresp(s_bar0_bresp),
      .arvalid(s_bar0_arvalid), .arready(s_bar0_arready), .araddr(s_bar0_araddr),
      .rvalid(s_bar0_rvalid), .rready(s_bar0_rready), .rdata(s_bar0_rdata), .rresp(s_bar0_rresp),
      .req(b_req), .req_we(b_we), .req_addr(b_addr), .req_wdata(b_wdata), .ack(b_ack), .ack_rdata(b_rdata));
  hca_axil_slave #(.ADDR_W(14)) u_mgmt (
      .clk(clk), .rst_n(rst_n),
      .awvalid(s_mgmt_awvalid), .awready(s_mgmt_awready), .awaddr(s_mgmt_awaddr),
      .wvalid(s_mgmt_wvalid), .wready(s_mgmt_wready), .wdata(s_mgmt_wdata), .wstrb(s_mgmt_wstrb),
      .bvalid(s_mgmt_bvalid), .bready(s_mgmt_bready), .bresp(s_mgmt_bresp),
      .arvalid(s_mgmt_arvalid), .arready(s_mgmt_arready), .araddr(s_mgmt_araddr),
      .rvalid(s_mgmt_rvalid), .rready(s_mgmt_rready), .rdata(s_mgmt_rdata), .rresp(s_mgmt_rresp),
      .req(m_req), .req_we(m_we), .req_addr(m_addr), .req_wdata(m_wdata), .ack(m_ack), .ack_rdata(m_rdata));

  logic        db_req, db_ack, cc_req, cc_ack, cc_rvalid, inj_req, inj_ack;
  logic [6:0]  db_page;
  logic [11:0] db_reg;
  logic [31:0] db_val, inj_eqn, inj_element, inj_data;
  logic [3:0]  cc_op, cc_type;
  logic [23:0] cc_idx;
  logic [2047:0] cc_wdata, cc_rdata;
  logic [2:0]  cc_status, inj_status;
  logic [15:0] inj_type;
  logic        srst, enabled, port_up;
  logic [47:0] port_mac;
  logic        e_evt_valid, c_evt_valid, f_valid, f_write, x_fire, x_deliver;
  logic [7:0]  e_evt_type, c_evt_type, f_client;
  logic [31:0] e_evt_elem, c_evt_elem, stat_tx_bytes, stat_rx_bytes, x_masked, x_pba;
  logic [`HCA_STAT_COUNT-1:0] stat_inc, tp_stat;
  logic        c_stat_db_err, c_stat_eq_ovf;
  logic [63:0] f_iova;
  logic [4:0]  x_vec;

  always_comb begin
    stat_inc = tp_stat;
    if (c_stat_db_err) stat_inc[`HCA_STAT_DB_ERR] = 1'b1;
    if (c_stat_eq_ovf) stat_inc[`HCA_STAT_EQ_OVERFLOW] = 1'b1;
  end
  assign soft_reset = srst;

  // the transport timers' earliest deadline, for the harness's skipping of
  // idle time (a disabled engine fires no timer)
  logic [63:0] cycle_nx, next_dl;
  assign next_timer = enabled ? next_dl : '1;

  hca_regs #(.DATA_W(DATA_W), .LOG_MAX_QP(LOG_MAX_QP), .LOG_MAX_CQ(LOG_MAX_CQ), .LOG_MAX_SRQ(LOG_MAX_SRQ),
             .LOG_MAX_EQ(LOG_MAX_EQ), .LOG_MAX_MR(LOG_MAX_MR)) u_regs (
      .clk(clk), .rst_n(rst_n), .eng_ce(ce), .time_warp(time_warp), .time_warp_cycles(time_warp_cycles),
      .b_req(b_req), .b_we(b_we), .b_addr(b_addr), .b_wdata(b_wdata), .b_ack(b_ack), .b_rdata(b_rdata),
      .m_req(m_req), .m_we(m_we), .m_addr(m_addr), .m_wdata(m_wdata), .m_ack(m_ack), .m_rdata(m_rdata),
      .db_req(db_req), .db_page(db_page), .db_reg(db_reg), .db_val(db_val), .db_ack(db_ack),
      .cc_req(cc_req), .cc_op(cc_op), .cc_type(cc_type), .cc_idx(cc_idx), .cc_wdata(cc_wdata),
      .cc_ack(cc_ack), .cc_status(cc_status), .cc_rvalid(cc_rvalid), .cc_rdata(cc_rdata),
      .inj_req(inj_req), .inj_eqn(inj_eqn), .inj_type(inj_type), .inj_element(inj_element),
      .inj_data(inj_data), .inj_ack(inj_ack), .inj_status(inj_status),
      .srst(srst), .enabled(enabled), .port_up(port_up), .port_mac(port_mac), .cycle(cycle),
      .cycle_nx(cycle_nx),
      .e_evt_valid(e_evt_valid), .e_evt_type(e_evt_type), .e_evt_elem(e_evt_elem),
      .c_evt_valid(c_evt_valid), .c_evt_type(c_evt_type), .c_evt_elem(c_evt_elem),
      .stat_inc(stat_inc), .stat_tx_bytes(stat_tx_bytes), .stat_rx_bytes(stat_rx_bytes),
      .f_valid(f_valid), .f_client(f_client), .f_write(f_write), .f_iova(f_iova),
      .x_fire(x_fire), .x_deliver(x_deliver), .x_vec(x_vec), .x_masked(x_masked), .x_pba(x_pba),
      .msix_valid(msix_valid), .msix_vector(msix_vector), .fw_irq(fw_irq));

  // ---------------------------------------------------------- context store
  logic [LOG_MAX_QP-1:0] e_qp_idx, e_busy_idx, e_busy_cidx, e_qpc_idx, e_txs_idx, e_rxs_idx, e_step_qn;
  logic [2:0]  e_qp_state, e_qp_state_val;
  logic [15:0] e_qp_sq_pi, e_qp_rq_pi;
  logic        e_qp_set_state, e_busy_set, e_busy_clr, e_qpc_en, e_txs_en, e_txs_we, e_rxs_en, e_rxs_we;
  logic [(1<<LOG_MAX_QP)-1:0] qp_busy;
  logic [1023:0] e_qpc_rdata;
  logic [`TXS_W-1:0] e_txs_wdata, e_txs_rdata;
  logic [`RXS_W-1:0] e_rxs_wdata, e_rxs_rdata;
  logic [LOG_MAX_CQ-1:0] e_cq_idx;
  logic        e_cq_valid, e_cq_err, e_cq_inc, e_cq_dec, e_cq_disarm, e_cq_set_err, e_cqc_en;
  logic [31:0] e_cq_pi, e_cq_ci, e_eq_pi, e_eq_ci, e_srq_pi, e_srq_ci, e_ip;
  logic [1:0]  e_cq_arm;
  logic [255:0] e_cqc_rdata, e_eq_cfg, e_srq_cfg;
  logic [LOG_MAX_EQ-1:0] e_eq_idx, e_inj_eqn;
  logic        e_eq_valid, e_eq_armed, e_eq_failed, e_eq_inc, e_eq_dec, e_eq_disarm, e_eq_fail, e_eq_fp_clr;
  logic [(1<<LOG_MAX_EQ)-1:0] eq_fire_pending;
  logic [(1<<LOG_MAX_CQ)-1:0] cq_fire_pending;
  logic        e_eq_db_now;
  logic        e_cq_sol, e_cq_db_now, e_cq_fp_clr;
  logic        e_inj_valid, e_inj_pop;
  logic [79:0] e_inj_eqe;
  logic [LOG_MAX_SRQ-1:0] e_srq_idx;
  logic        e_srq_valid, e_srq_armed, e_srq_inc, e_srq_disarm, e_srq_set_err;
  logic        e_mr_en, e_mr_live, e_ip_ours, e_step_read, e_step_mid, e_step_wb, qpc_written, cqc_written;
  logic        qp_rst;                   // a QPC write resets QP qp_rst_qn (hca_tx_slots, hca_tx_faults)
  logic [LOG_MAX_QP-1:0] qp_rst_qn;
  logic [LOG_MAX_MR-1:0] e_mr_idx, t_mr_idx;
  logic        t_mr_en;                  // hca_mr_check's use of the MR port (before hca_wqe_lkey_ahead's)
  logic [511:0] e_mr_rdata;
  logic [3:0]  e_gid_idx;
  logic [127:0] e_gid;

  hca_ctx #(.LOG_MAX_QP(LOG_MAX_QP), .LOG_MAX_CQ(LOG_MAX_CQ), .LOG_MAX_SRQ(LOG_MAX_SRQ),
            .LOG_MAX_EQ(LOG_MAX_EQ), .LOG_MAX_MR(LOG_MAX_MR)) u_ctx (
      .clk(clk), .rst_n(rst_n), .eng_ce(ce), .srst(srst), .enabled(enabled),
      .db_req(db_req), .db_page(db_page), .db_reg(db_reg), .db_val(db_val), .db_ack(db_ack),
      .db_sq_now(db_sq_now), .db_qn(db_qn), .db_pi(db_pi), .db_old_pi(db_old_pi), .db_qp_st(db_qp_st),
      .db_cfg(db_cfg), .db_txs(db_txs),
      .cc_req(cc_req), .cc_op(cc_op), .cc_type(cc_type), .cc_idx(cc_idx), .cc_wdata(cc_wdata),
      .cc_ack(cc_ack), .cc_status(cc_status), .cc_rvalid(cc_rvalid), .cc_rdata(cc_rdata),
      .inj_req(inj_req), .inj_eqn(inj_eqn), .inj_type(inj_type), .inj_element(inj_element),
      .inj_data(inj_data), .inj_ack(inj_ack), .inj_status(inj_status),
      .c_evt_valid(c_evt_valid), .c_evt_type(c_evt_type), .c_evt_elem(c_evt_elem),
      .c_stat_db_err(c_stat_db_err), .c_stat_eq_ovf(c_stat_eq_ovf),
      .e_step_qn(e_step_qn), .e_step_read(e_step_read), .e_step_mid(e_step_mid), .e_step_wb(e_step_wb), .qpc_written(qpc_written), .cqc_written(cqc_written),
      .qp_reset(qp_rst), .qp_reset_qn(qp_rst_qn),
      .e_qp_idx(e_qp_idx), .e_qp_state(e_qp_state), .e_qp_sq_pi(e_qp_sq_pi), .e_qp_rq_pi(e_qp_rq_pi),
      .e_qp_set_state(e_qp_set_state), .e_qp_state_val(e_qp_state_val), .e_busy_set(e_busy_set),
      .e_busy_clr(e_busy_clr), .e_busy_idx(e_busy_idx), .e_busy_cidx(e_busy_cidx), .e_wake(wp_wake), .e_wake_idx(wp_wake_qn), .qp_busy(qp_busy),
      .e_qpc_en(e_qpc_en), .e_qpc_idx(e_qpc_idx), .e_qpc_rdata(e_qpc_rdata),
      .e_txs_en(e_txs_en), .e_txs_we(e_txs_we), .e_txs_idx(e_txs_idx), .e_txs_wdata(e_txs_wdata),
      .e_txs_rdata(e_txs_rdata), .e_rxs_en(e_rxs_en), .e_rxs_we(e_rxs_we), .e_rxs_idx(e_rxs_idx),
      .e_rxs_wdata(e_rxs_wdata), .e_rxs_rdata(e_rxs_rdata),
      .e_cq_idx(e_cq_idx), .e_cq_valid(e_cq_valid), .e_cq_pi(e_cq_pi), .e_cq_ci(e_cq_ci),
      .e_cq_arm(e_cq_arm), .e_cq_err(e_cq_err), .e_cq_inc(e_cq_inc), .e_cq_dec(e_cq_dec), .e_cq_disarm(e_cq_disarm),
      .e_cq_sol(e_cq_sol), .e_cq_db_now(e_cq_db_now),
      .e_cq_fp_clr(e_cq_fp_clr), .cq_fire_pending(cq_fire_pending),
      .e_cq_set_err(e_cq_set_err), .e_cqc_en(e_cqc_en), .e_cqc_rdata(e_cqc_rdata),
      .e_eq_idx(e_eq_idx), .e_eq_valid(e_eq_valid), .e_eq_cfg(e_eq_cfg), .e_eq_pi(e_eq_pi),
      .e_eq_ci(e_eq_ci), .e_eq_armed(e_eq_armed), .e_eq_failed(e_eq_failed), .e_eq_inc(e_eq_inc), .e_eq_dec(e_eq_dec),
      .e_eq_disarm(e_eq_disarm), .e_eq_fail(e_eq_fail), .e_eq_fp_clr(e_eq_fp_clr), .e_eq_db_now(e_eq_db_now),
      .eq_fire_pending(eq_fire_pending), .e_inj_valid(e_inj_valid), .e_inj_eqn(e_inj_eqn),
      .e_inj_eqe(e_inj_eqe), .e_inj_pop(e_inj_pop),
      .e_srq_idx(e_srq_idx), .e_srq_valid(e_srq_valid), .e_srq_cfg(e_srq_cfg), .e_srq_pi(e_srq_pi),
      .e_srq_ci(e_srq_ci), .e_srq_armed(e_srq_armed), .e_srq_inc(e_srq_inc),
      .e_srq_disarm(e_srq_disarm), .e_srq_set_err(e_srq_set_err),
      .e_mr_en(e_mr_en), .e_mr_idx(e_mr_idx), .e_mr_rdata(e_mr_rdata), .e_mr_live(e_mr_live),
      .e_gid_idx(e_gid_idx), .e_gid(e_gid), .e_ip(e_ip), .e_ip_ours(e_ip_ours));

  // ---------------------------------------------------------- datapath
  /* verilator lint_off UNUSEDSIGNAL */
  logic        d_f_busy;           // the jobs wait for f_done instead
  /* verilator lint_on UNUSEDSIGNAL */
  logic        d_f_start, d_f_done, d_f_err, d_g_push, d_g_full, d_g_close, d_g_done, d_g_fault;
  logic [63:0] d_f_addr, d_g_iova, d_g_fault_iova, d_w_addr;
  logic [15:0] d_f_len, d_g_len, d_g_dst, d_l_src, d_l_len, d_l_dst, d_w_len;
  logic [4:0]  d_g_idx;
  logic        d_l_start, d_w_start, d_w_rxbuf, d_w_busy, d_w_done, d_w_err;
  logic [BUF_AW+1+LW-1:0] d_w_off;
  logic [511:0] d_w_small;
  logic [320*8-1:0] fb, fb1, fb2;
  logic [1:0]  d_f_sel;
  logic [63:0] d_f_word;
  logic        tb_we;
  logic [BUF_AW+TSW-1:0] tb_addr;
  logic [DATA_W-1:0] tb_wdata, rb_data;
  logic [WB-1:0] tb_be;
  logic        rb_en;
  logic [BUF_AW:0] rb_addr;
  logic        t_go, t_drop, t_busy, t_free, t_sent, f_go, f_busy, f_reading, f_ready, s_busy;
  logic [TSW-1:0] t_wslot, f_slot, d_g_done_slot;
  logic [HDR*8-1:0] f_hdr;
  logic [7:0]  f_hdr_len;
  logic [15:0] f_pay_len, d_g_dst_s, d_l_dst_s;
  logic [1:0]  f_pad;
  logic [HDR*8-1:0] t_hdr, r_hdr;
  logic [7:0]  t_hdr_len;
  logic [15:0] t_pay_len, t_sent_len, r_len;
  logic [1:0]  t_pad;
  logic        r_valid, r_slot, r_too_long, r_icrc_ok, r_release;
  // posted payload writes (docs/rtl.md "Posted payload writes"); pw_*: the
  // posted write of hca_dma_wr (p_* below are the WQE prefetch's read)
  logic        d_w_post, pw_out, r_held, r_fault, r_replay, r_ahead, d_w_rdy;
  logic [1:0]  rb_busy;             // the receive slots hca_dma_wr still reads (hca_rx_frame)
  logic [2:0]  pw_seq, pw_rseq;
  logic [7:0]  pw_rerr;
  logic [1:0]  r_cmd;
  logic [31:0] r_udp_sum;

  // WQE prefetch: hca_req's next send WQE, read ahead into hca_dma_rd's pb
  localparam int WPK = LOG_MAX_QP + 32;
  logic        wp_issue, wp_now, wp_take, wp_inv, wp_free, wp_free_now, wp_hit, wp_ready, wp_err;
  logic [LOG_MAX_QP-1:0] wp_wake_qn;
  // WQE prefetch entries: PF_N, on tags RD_TAGS + 1 .. RD_TAGS + PF_N
  // (TAG_W is wide enough for them)
  localparam int PFW = PF_N > 1 ? $clog2(PF_N) : 1;
  logic        p_start, p_err, p_load;
  logic [PF_N-1:0] p_busy, p_done;
  logic [PFW-1:0] p_sidx, p_lidx;
  logic [WPK-1:0] wp_ikey, wp_qkey;
  logic [63:0] wp_addr, p_addr;
  logic [15:0] wp_len, p_len;
  // ... and the WQE an SQ doorbell posts to an idle send queue, read from
  // the doorbell (hca_db_wqe_read)
  logic        db_sq_now, dw_issue;
  logic [LOG_MAX_QP-1:0] db_qn;
  logic [15:0] db_pi, db_old_pi, qpc_gen, dw_len;
  logic [2:0]  db_qp_st;
  logic [1023:0] db_cfg;
  logic [`TXS_W-1:0] db_txs;
  logic [WPK-1:0] dw_key;
  logic [63:0] dw_addr;
  hca_db_wqe_read #(.LOG_MAX_QP(LOG_MAX_QP), .LOG_OUTS(LOG_OUTS)) u_db_wqe (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .db_sq_now(db_sq_now), .db_qn(db_qn), .db_pi(db_pi), .db_old_pi(db_old_pi),
      .db_qp_st(db_qp_st), .cfg(db_cfg), .txs(db_txs), .e_txs(e_txs_wdata), .e_step_qn(e_step_qn), .e_step_read(e_step_read),
      .e_step_mid(e_step_mid), .e_step_wb(e_step_wb), .qpc_gen(qpc_gen), .issue(dw_issue), .key(dw_key),
      .addr(dw_addr), .len(dw_len));
  hca_wqe_prefetch #(.KEY_W(WPK), .PF_N(PF_N)) u_wqe_pf (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .issue(wp_issue), .now(wp_now), .i_key(wp_ikey), .i_addr(wp_addr),
      .i_len(wp_len), .d_issue(dw_issue), .d_key(dw_key), .d_addr(dw_addr), .d_len(dw_len), .take(wp_take), .inv(wp_inv), .q_key(wp_qkey), .free(wp_free), .free_now(wp_free_now), .hit(wp_hit),
      .ready(wp_ready), .err(wp_err), .wake(wp_wake), .wake_qn(wp_wake_qn), .p_start(p_start), .p_sidx(p_sidx), .p_addr(p_addr), .p_len(p_len),
      .p_busy(p_busy), .p_done(p_done), .p_err(p_err), .p_load(p_load), .p_lidx(p_lidx));
  // a prefetched WQE's lkey checked ahead of its step, on the MR port's free
  // cycles; any MRC write (the register side's request) drops the results
  logic [PFW-1:0] pc_idx;
  logic [127:0] pc_sge;
  logic        mr_wr;
  logic        lk_v, lk_pdm;        // the taken entry's result, to hca_req
  logic [7:0]  lk_verr;
  logic [31:0] lk_mpdn;
  logic [63:0] lk_iova;
  assign mr_wr = cc_req && cc_type == 4'(`HCA_CTX_TYPE_MRC) && cc_op == 4'(`HCA_CTX_OP_WRITE);
  hca_wqe_lkey_ahead #(.PF_N(PF_N), .LOG_MAX_MR(LOG_MAX_MR)) u_lk_ahead (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .p_start(p_start), .p_sidx(p_sidx), .p_done(p_done),
      .p_err(p_err), .p_load(p_load), .p_lidx(p_lidx), .pc_idx(pc_idx), .pc_sge(pc_sge), .mr_wr(mr_wr),
      .t_mr_en(t_mr_en), .t_mr_idx(t_mr_idx), .e_mr_en(e_mr_en), .e_mr_idx(e_mr_idx), .e_mr_rdata(e_mr_rdata),
      .e_mr_live(e_mr_live), .tk_v(lk_v), .tk_verr(lk_verr), .tk_pdm(lk_pdm), .tk_mpdn(lk_mpdn),
      .tk_iova(lk_iova), .busy(lk_busy));

  // the jobs address the payload within the slot being filled
  assign d_g_dst_s = d_g_dst | (16'(t_wslot) << LOG_BUF);
  assign d_l_dst_s = d_l_dst | (16'(t_wslot) << LOG_BUF);

  hca_dma_rd #(.DATA_W(DATA_W), .RD_TAGS(RD_TAGS), .PF_N(PF_N), .FB_BYTES(320), .FB1_BYTES(320), .FB2_BYTES(320),
               .TXBUF_AW(BUF_AW + TSW), .TX_SLOTS(TX_SLOTS), .SLOT_LOG(LOG_BUF)) u_dma_rd (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst),
      .f_start(d_f_start), .f_sel(d_f_sel), .f_addr(d_f_addr), .f_len(d_f_len), .f_busy(d_f_busy),
      .busy(rd_busy),
      .f_done(d_f_done), .f_err(d_f_err), .fb(fb), .fb1(fb1), .fb2(fb2), .f_word(d_f_word),
      .p_start(p_start), .p_sidx(p_sidx), .p_addr(p_addr), .p_len(p_len), .p_busy(p_busy), .p_done(p_done),
      .p_err(p_err), .p_load(p_load), .p_lidx(p_lidx), .pc_idx(pc_idx), .pc_sge(pc_sge),
      .g_push(d_g_push), .g_iova(d_g_iova), .g_len(d_g_len), .g_dst(d_g_dst_s), .g_idx(d_g_idx),
      .g_full(d_g_full), .g_close(d_g_close), .g_slot(t_wslot), .g_done(d_g_done),
      .g_done_slot(d_g_done_slot), .g_fault(d_g_fault),
      .g_fault_iova(d_g_fault_iova),
      .l_start(d_l_start), .l_src(d_l_src), .l_len(d_l_len), .l_dst(d_l_dst_s),
      .tb_we(tb_we), .tb_addr(tb_addr), .tb_wdata(tb_wdata), .tb_be(tb_be),
      .rd_req_valid(dma_rd_req_valid), .rd_req_ready(dma_rd_req_ready), .rd_req_addr(dma_rd_req_addr),
      .rd_req_len(dma_rd_req_len), .rd_req_tag(dma_rd_req_tag),
      .rd_cpl_valid(dma_rd_cpl_valid), .rd_cpl_ready(dma_rd_cpl_ready), .rd_cpl_tag(dma_rd_cpl_tag),
      .rd_cpl_data(dma_rd_cpl_data), .rd_cpl_last(dma_rd_cpl_last), .rd_cpl_err(dma_rd_cpl_err));

  hca_dma_wr #(.DATA_W(DATA_W), .RXBUF_AW(BUF_AW + 1)) u_dma_wr (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst),
      .w_start(d_w_start), .w_addr(d_w_addr), .w_len(d_w_len), .w_rxbuf(d_w_rxbuf), .w_off(d_w_off),
      .w_small(d_w_small), .w_post(d_w_post), .w_busy(d_w_busy), .w_done(d_w_done), .w_err(d_w_err),
      .w_rdy(d_w_rdy),
      .p_out(pw_out), .p_seq(pw_seq), .p_rseq(pw_rseq), .p_rerr(pw_rerr),
      .rb_busy(rb_busy), .rb_en(rb_en), .rb_addr(rb_addr), .rb_data(rb_data),
      .wr_req_valid(dma_wr_req_valid), .wr_req_ready(dma_wr_req_ready), .wr_req_addr(dma_wr_req_addr),
      .wr_req_len(dma_wr_req_len), .wr_dat_valid(dma_wr_dat_valid), .wr_dat_ready(dma_wr_dat_ready),
      .wr_dat_data(dma_wr_dat_data), .wr_dat_strb(dma_wr_dat_strb), .wr_dat_last(dma_wr_dat_last),
      .wr_rsp_valid(dma_wr_rsp_valid), .wr_rsp_err(dma_wr_rsp_err));
  assign dma_wr_req_tag = '0;

  // read ahead: request packets committed before their payload arrived,
  // tagged; the faults of their payload reads wait in u_tx_faults for a step
  // of their QP
  logic        t_req, t_async, t_async_ok, t_q_busy, fe_v, fe_orph, pf_hit, pf_orph, pf_clr, c_hit, pf_busy;
  logic [LOG_MAX_QP-1:0] t_tag_qn, t_item_qn, fe_qn;
  logic [15:0] t_tag_wqe, fe_wqe, pf_wqe;
  logic [23:0] t_tag_k, fe_k, pf_k;
  logic [63:0] fe_iova, pf_iova;
  logic [TSW:0] n_faults;
  // (at most 4 big payloads read ahead: more only delay the head's frame
  // when the host returns them out of order; section "The transmit slot's wait")
  hca_tx_slots #(.TX_SLOTS(TX_SLOTS), .BIG_MAX(TX_SLOTS > 4 ? 4 : TX_SLOTS), .HDR_MAX(HDR), .QW(LOG_MAX_QP)) u_tx_slots (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst),
      .go(t_go), .drop(t_drop), .hdr(t_hdr), .hdr_len(t_hdr_len), .pay_len(t_pay_len), .pad(t_pad),
      .req(t_req), .async(t_async), .tag_qn(t_tag_qn), .tag_wqe(t_tag_wqe), .tag_k(t_tag_k),
      .pend_hit(c_hit), .n_faults(n_faults), .async_ok(t_async_ok), .item_qn(t_item_qn), .q_busy(t_q_busy),
      .qrst(qp_rst), .qrst_qn(qp_rst_qn),
      .fe_v(fe_v), .fe_qn(fe_qn), .fe_wqe(fe_wqe), .fe_k(fe_k), .fe_iova(fe_iova), .fe_orph(fe_orph),
      .free(t_free), .wslot(t_wslot), .busy(s_busy),
      .g_done(d_g_done), .g_slot(d_g_done_slot), .g_fault(d_g_fault), .g_fault_iova(d_g_fault_iova),
      .f_go(f_go), .f_slot(f_slot), .f_hdr(f_hdr), .f_hdr_len(f_hdr_len), .f_pay_len(f_pay_len),
      .f_pad(f_pad), .f_ready(f_ready), .f_reading(f_reading));
  assign t_busy = s_busy || f_busy || pf_busy;

  hca_tx_faults #(.TX_SLOTS(TX_SLOTS), .QW(LOG_MAX_QP)) u_tx_faults (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst),
      .fe_v(fe_v), .fe_qn(fe_qn), .fe_wqe(fe_wqe), .fe_k(fe_k), .fe_iova(fe_iova), .fe_orph(fe_orph),
      .item_qn(t_item_qn), .hit(pf_hit), .hit_wqe(pf_wqe), .hit_k(pf_k), .hit_iova(pf_iova), .hit_orph(pf_orph), .clr(pf_clr),
      .qrst(qp_rst), .qrst_qn(qp_rst_qn),
      .commit_qn(t_tag_qn), .commit_hit(c_hit), .count(n_faults), .busy(pf_busy));

  hca_tx_frame #(.DATA_W(DATA_W), .HDR_MAX(HDR), .SLOT_AW(BUF_AW), .SW(TSW)) u_tx (
      .clk(clk), .rst_n(rst_n), .ce(ce),
      .tb_we(tb_we), .tb_addr(tb_addr), .tb_wdata(tb_wdata), .tb_be(tb_be),
      .go(f_go), .slot(f_slot), .hdr(f_hdr), .hdr_len(f_hdr_len), .pay_len(f_pay_len), .pad(f_pad),
      .ready(f_ready), .busy(f_busy), .reading(f_reading),
      .sent(t_sent), .sent_len(t_sent_len),
      .tdata(m_axis_tx_tdata), .tkeep(m_axis_tx_tkeep), .tlast(m_axis_tx_tlast),
      .tvalid(m_axis_tx_tvalid), .tready(m_axis_tx_tready));

  hca_rx_frame #(.DATA_W(DATA_W), .HDR_CAP(HDR), .SLOT_AW(BUF_AW)) u_rx (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst),
      .tdata(s_axis_rx_tdata), .tkeep(s_axis_rx_tkeep), .tlast(s_axis_rx_tlast),
      .tvalid(s_axis_rx_tvalid), .tready(s_axis_rx_tready), .busy(rx_busy),
      .f_valid(r_valid), .f_slot(r_slot), .f_hdr(r_hdr), .f_len(r_len), .f_too_long(r_too_long),
      .f_icrc_ok(r_icrc_ok), .f_udp_sum(r_udp_sum), .f_release(r_release),
      .f_hold(r_cmd[0]), .f_replay_go(r_cmd[1]), .f_held(r_held), .f_fault(r_fault), .f_replay(r_replay),
      .f_ahead(r_ahead),
      .p_seq(pw_seq), .p_rseq(pw_rseq), .p_rerr(pw_rerr), .rb_busy(rb_busy),
      .rb_en(rb_en), .rb_addr(rb_addr), .rb_data(rb_data));

  hca_transport #(.DATA_W(DATA_W), .LOG_MAX_QP(LOG_MAX_QP), .LOG_MAX_CQ(LOG_MAX_CQ), .LOG_MAX_SRQ(LOG_MAX_SRQ),
                  .LOG_MAX_EQ(LOG_MAX_EQ), .LOG_MAX_MR(LOG_MAX_MR), .LOG_OUTS(LOG_OUTS), .HDR_MAX(HDR),
                  .RX_SLOT_AW(BUF_AW), .FB_BYTES(320), .FB1_BYTES(320), .FB2_BYTES(320),
                  .TX_SLOTS(TX_SLOTS)) u_tp (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .enabled(enabled), .port_up(port_up),
      .port_mac(port_mac), .cycle(cycle), .cycle_nx(cycle_nx), .next_dl(next_dl), .busy(tp_busy), .dbg(dbg),
      .e_qp_idx(e_qp_idx), .e_qp_state(e_qp_state), .e_qp_sq_pi(e_qp_sq_pi), .e_qp_rq_pi(e_qp_rq_pi),
      .e_qp_set_state(e_qp_set_state), .e_qp_state_val(e_qp_state_val), .e_busy_set(e_busy_set),
      .e_busy_clr(e_busy_clr), .e_busy_idx(e_busy_idx), .e_busy_cidx(e_busy_cidx), .qp_busy((pw_out || r_held) ? '0 : qp_busy),
      .e_qpc_en(e_qpc_en), .e_qpc_idx(e_qpc_idx), .e_qpc_rdata(e_qpc_rdata),
      .e_txs_en(e_txs_en), .e_txs_we(e_txs_we), .e_txs_idx(e_txs_idx), .e_txs_wdata(e_txs_wdata),
      .e_txs_rdata(e_txs_rdata), .e_rxs_en(e_rxs_en), .e_rxs_we(e_rxs_we), .e_rxs_idx(e_rxs_idx),
      .e_rxs_wdata(e_rxs_wdata), .e_rxs_rdata(e_rxs_rdata),
      .e_cq_idx(e_cq_idx), .e_cq_valid(e_cq_valid), .e_cq_pi(e_cq_pi), .e_cq_ci(e_cq_ci),
      .e_cq_arm(e_cq_arm), .e_cq_err(e_cq_err), .e_cq_inc(e_cq_inc), .e_cq_dec(e_cq_dec), .e_cq_disarm(e_cq_disarm),
      .e_cq_sol(e_cq_sol), .e_cq_db_now(e_cq_db_now),
      .e_cq_fp_clr(e_cq_fp_clr), .cq_fire_pending(cq_fire_pending),
      .e_cq_set_err(e_cq_set_err), .e_cqc_en(e_cqc_en), .e_cqc_rdata(e_cqc_rdata),
      .e_eq_idx(e_eq_idx), .e_eq_valid(e_eq_valid), .e_eq_cfg(e_eq_cfg), .e_eq_pi(e_eq_pi),
      .e_eq_ci(e_eq_ci), .e_eq_armed(e_eq_armed), .e_eq_failed(e_eq_failed), .e_eq_inc(e_eq_inc), .e_eq_dec(e_eq_dec),
      .e_eq_disarm(e_eq_disarm), .e_eq_fail(e_eq_fail), .e_eq_fp_clr(e_eq_fp_clr), .e_eq_db_now(e_eq_db_now),
      .eq_fire_pending(eq_fire_pending), .e_inj_valid(e_inj_valid), .e_inj_eqn(e_inj_eqn),
      .e_inj_eqe(e_inj_eqe), .e_inj_pop(e_inj_pop),
      .e_srq_idx(e_srq_idx), .e_srq_valid(e_srq_valid), .e_srq_cfg(e_srq_cfg), .e_srq_pi(e_srq_pi),
      .e_srq_ci(e_srq_ci), .e_srq_armed(e_srq_armed), .e_srq_inc(e_srq_inc),
      .e_srq_disarm(e_srq_disarm), .e_srq_set_err(e_srq_set_err),
      .e_mr_en(t_mr_en), .e_mr_idx(t_mr_idx), .e_mr_rdata(e_mr_rdata), .e_mr_live(e_mr_live),
      .e_gid_idx(e_gid_idx), .e_gid(e_gid), .e_ip(e_ip), .e_ip_ours(e_ip_ours),
      .e_step_qn(e_step_qn), .e_step_read(e_step_read), .e_step_mid(e_step_mid), .e_step_wb(e_step_wb), .qpc_written(qpc_written), .cqc_written(cqc_written),
      .qpc_gen(qpc_gen),
      .e_evt_valid(e_evt_valid), .e_evt_type(e_evt_type), .e_evt_elem(e_evt_elem),
      .stat_inc(tp_stat), .stat_tx_bytes(stat_tx_bytes), .stat_rx_bytes(stat_rx_bytes),
      .f_valid(f_valid), .f_client(f_client), .f_write(f_write), .f_iova(f_iova),
      .x_fire(x_fire), .x_deliver(x_deliver), .x_vec(x_vec), .x_masked(x_masked), .x_pba(x_pba),
      .d_f_start(d_f_start), .d_f_sel(d_f_sel), .d_f_addr(d_f_addr), .d_f_len(d_f_len),
      .d_f_done(d_f_done), .d_f_err(d_f_err), .fb(fb), .fb1(fb1), .fb2(fb2), .d_f_word(d_f_word),
      .wp_issue(wp_issue), .wp_now(wp_now), .wp_take(wp_take), .wp_inv(wp_inv), .wp_ikey(wp_ikey), .wp_qkey(wp_qkey),
      .wp_addr(wp_addr), .wp_len(wp_len), .wp_free(wp_free), .wp_free_now(wp_free_now), .wp_hit(wp_hit), .wp_ready(wp_ready), .wp_err(wp_err),
      .lk_v(lk_v), .lk_pdm(lk_pdm), .lk_verr(lk_verr), .lk_mpdn(lk_mpdn), .lk_iova(lk_iova),
      .d_g_push(d_g_push), .d_g_iova(d_g_iova), .d_g_len(d_g_len), .d_g_dst(d_g_dst),
      .d_g_idx(d_g_idx), .d_g_full(d_g_full), .d_g_close(d_g_close), .d_g_done(d_g_done),
      .d_g_done_slot(d_g_done_slot), .t_wslot(t_wslot),
      .d_g_fault(d_g_fault), .d_g_fault_iova(d_g_fault_iova),
      .d_l_start(d_l_start), .d_l_src(d_l_src), .d_l_len(d_l_len), .d_l_dst(d_l_dst),
      .d_w_start(d_w_start), .d_w_addr(d_w_addr), .d_w_len(d_w_len), .d_w_rxbuf(d_w_rxbuf),
      .d_w_off(d_w_off), .d_w_small(d_w_small), .d_w_busy(d_w_busy), .d_w_done(d_w_done),
      .d_w_err(d_w_err),
      .t_go(t_go), .t_drop(t_drop), .t_free(t_free), .t_hdr(t_hdr),
      .t_req(t_req), .t_async(t_async), .t_tag_qn(t_tag_qn), .t_tag_wqe(t_tag_wqe), .t_tag_k(t_tag_k),
      .t_async_ok(t_async_ok), .t_q_busy(t_q_busy), .t_item_qn(t_item_qn),
      .pf_hit(pf_hit), .pf_orph(pf_orph), .pf_wqe(pf_wqe), .pf_k(pf_k), .pf_iova(pf_iova), .pf_clr(pf_clr), .t_hdr_len(t_hdr_len), .t_pay_len(t_pay_len), .t_pad(t_pad),
      .t_busy(t_busy), .t_sent(t_sent), .t_sent_len(t_sent_len),
      .r_valid(r_valid), .r_slot(r_slot), .r_hdr(r_hdr), .r_len(r_len), .r_too_long(r_too_long),
      .r_icrc_ok(r_icrc_ok), .r_udp_sum(r_udp_sum), .r_release(r_release),
      .d_w_post(d_w_post), .r_cmd(r_cmd), .r_post({r_fault, r_replay, pw_out}),
      .r_held(r_held), .r_ahead(r_ahead), .d_w_rdy(d_w_rdy), .pw_seq(pw_seq), .pw_rseq(pw_rseq),
      .pw_rerr(pw_rerr));
endmodule
