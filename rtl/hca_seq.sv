`include "hca_defs.vh"

// The engine sequencer: the transport state machine of the packet engine.
//
// One work item at a time, chosen in the order of the reference model's
// scheduler (docs/model.md section 3):
//   1. injected EQEs (EQE_INJ_GO order), then COMP EQEs owed by CQ arm
//      doorbells (cq_fire_pending, by CQN), then EQ re-arm interrupts (by
//      EQN), then vectors unmasked with a pending PBA bit (by vector);
//   2. a received frame, processed to the end (its ACK/NAK is transmitted and
//      its completions written before anything else);
//   3. one step of the next busy QP in ascending-QPN round robin: retire a
//      failed WQE, flush (ERR/SQE), finish an SQD drain, transmit one request
//      packet, or fetch and start the next WQE.
// Within an item the sequencer runs "subroutines" with a return state each
// (MR key check, CQE post, EQE post, send/receive completion, QP error, ACK
// transmit), so the control flow reads like the model's C (model/req.c,
// resp.c, comp.c, qp.c, cq.c, eq.c, recv.c) and makes the same decisions in
// the same order: frames and DMA writes come out in the model's order.
//
// Per-QP dynamic state lives in hca_ctx RAMs (TXS/RXS words, hca_defs.vh);
// an item loads the QP's words, works on registers, and writes them back at
// its end.  A context command that rewrites the QP while an item is in
// progress is serialised after the item: hca_ctx replays the command's
// effect on the written-back words, keeps showing the item the QP's state
// and producer indices from before the command and ignores the item's QP
// state change (e_step_* outputs tell it which QP is in progress, from the
// read to the write-back).  Started send WQEs are tracked in the
// outstanding table (2^LOG_OUTS per QP, OW_* entries), which also bounds how
// many WQEs a QP may have started and not retired.
//
// Not in this slice (structure ready, behaviour later): RDMA READ and
// atomics (requester, responder, completer paths), the ACK timer, RNR wait
// and go-back-N retry.  WQEs with READ/atomic opcodes complete with
// LOC_QP_OP_ERR/BAD_WQE; RNR and PSN-sequence NAKs acknowledge the PSNs
// before them but do not trigger a resend yet.
module hca_seq #(
    parameter int DATA_W      = 64,
    parameter int LOG_MAX_QP  = 8,
    parameter int LOG_MAX_CQ  = 8,
    parameter int LOG_MAX_SRQ = 6,
    parameter int LOG_MAX_EQ  = 5,
    parameter int LOG_MAX_MR  = 10,
    parameter int LOG_OUTS    = 5,
    parameter int HDR_MAX     = 96,
    parameter int RX_SLOT_AW  = 7,
    parameter int FB_BYTES    = 320,
    parameter int FB1_BYTES   = 320,
    localparam int NQP = 1 << LOG_MAX_QP,
    localparam int NEQ = 1 << LOG_MAX_EQ,
    localparam int WB  = DATA_W / 8,
    localparam int LW  = $clog2(WB),
    localparam int RXA = RX_SLOT_AW + 1 + LW        // receive buffer byte address bits
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        enabled,
    input  logic        port_up,
    input  logic [47:0] port_mac,
    input  logic [7:0]  dbg_bug,
    output logic        busy,
    output logic [31:0] dbg,             // debug: {busy sources, qn, state}
    // ---- hca_ctx engine side
    output logic [LOG_MAX_QP-1:0] e_qp_idx,
    input  logic [2:0]  e_qp_state,
    input  logic [15:0] e_qp_sq_pi,
    input  logic [15:0] e_qp_rq_pi,
    output logic        e_qp_set_state,
    output logic [2:0]  e_qp_state_val,
    output logic        e_busy_set,
    output logic        e_busy_clr,
    output logic [LOG_MAX_QP-1:0] e_busy_idx,
    input  logic [NQP-1:0] qp_busy,
    output logic        e_qpc_en,
    output logic [LOG_MAX_QP-1:0] e_qpc_idx,
    input  logic [1023:0] e_qpc_rdata,
    output logic        e_txs_en,
    output logic        e_txs_we,
    output logic [LOG_MAX_QP-1:0] e_txs_idx,
    output logic [`TXS_W-1:0] e_txs_wdata,
    input  logic [`TXS_W-1:0] e_txs_rdata,
    output logic        e_rxs_en,
    output logic        e_rxs_we,
    output logic [LOG_MAX_QP-1:0] e_rxs_idx,
    output logic [`RXS_W-1:0] e_rxs_wdata,
    input  logic [`RXS_W-1:0] e_rxs_rdata,
    output logic [LOG_MAX_CQ-1:0] e_cq_idx,
    input  logic        e_cq_valid,
    input  logic [31:0] e_cq_pi,
    input  logic [31:0] e_cq_ci,
    input  logic [1:0]  e_cq_arm,
    input  logic        e_cq_err,
    output logic        e_cq_inc,
    output logic        e_cq_dec,
    output logic        e_cq_disarm,
    output logic        e_cq_sol,
    input  logic        e_cq_db_now,
    output logic        e_cq_fp_clr,
    input  logic [(1<<LOG_MAX_CQ)-1:0] cq_fire_pending,
    output logic        e_cq_set_err,
    output logic        e_cqc_en,
    input  logic [255:0] e_cqc_rdata,
    output logic [LOG_MAX_EQ-1:0] e_eq_idx,
    input  logic        e_eq_valid,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [255:0] e_eq_cfg,
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [31:0] e_eq_pi,
    input  logic [31:0] e_eq_ci,
    input  logic        e_eq_armed,
    input  logic        e_eq_failed,
    output logic        e_eq_inc,
    output logic        e_eq_dec,
    output logic        e_eq_disarm,
    output logic        e_eq_fail,
    output logic        e_eq_fp_clr,
    input  logic        e_eq_db_now,
    input  logic [NEQ-1:0] eq_fire_pending,
    input  logic        e_inj_valid,
    input  logic [LOG_MAX_EQ-1:0] e_inj_eqn,
    input  logic [79:0] e_inj_eqe,
    output logic        e_inj_pop,
    output logic [LOG_MAX_SRQ-1:0] e_srq_idx,
    input  logic        e_srq_valid,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [255:0] e_srq_cfg,
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [31:0] e_srq_pi,
    input  logic [31:0] e_srq_ci,
    input  logic        e_srq_armed,
    output logic        e_srq_inc,
    output logic        e_srq_disarm,
    output logic        e_srq_set_err,
    output logic        e_mr_en,
    output logic [LOG_MAX_MR-1:0] e_mr_idx,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [511:0] e_mr_rdata,
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic        e_mr_live,
    output logic [3:0]  e_gid_idx,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [127:0] e_gid,
    /* verilator lint_on UNUSEDSIGNAL */
    output logic [31:0] e_ip,
    input  logic        e_ip_ours,
    output logic [LOG_MAX_QP-1:0] e_step_qn,   // QP of the item in progress
    output logic        e_step_read,           // its words are read this cycle
    output logic        e_step_mid,            // its words were read, the write-back not yet done
    output logic        e_step_wb,             // write-back now or next cycle
    input  logic        qpc_written,           // hca_ctx: a QPC write is applied this cycle
    // ---- hca_regs
    output logic        e_evt_valid,
    output logic [7:0]  e_evt_type,
    output logic [31:0] e_evt_elem,
    output logic [`HCA_STAT_COUNT-1:0] stat_inc,
    output logic [31:0] stat_tx_bytes,
    output logic [31:0] stat_rx_bytes,
    output logic        f_valid,
    output logic [7:0]  f_client,
    output logic        f_write,
    output logic [63:0] f_iova,
    output logic        x_fire,
    output logic        x_deliver,
    output logic [4:0]  x_vec,
    input  logic [31:0] x_masked,
    input  logic [31:0] x_pba,
    // ---- hca_dma_rd
    output logic        d_f_start,
    output logic        d_f_sel,
    output logic [63:0] d_f_addr,
    output logic [15:0] d_f_len,
    input  logic        d_f_done,
    input  logic        d_f_err,
    input  logic [FB_BYTES*8-1:0] fb,
    input  logic [FB1_BYTES*8-1:0] fb1,
    output logic        d_g_push,
    output logic [63:0] d_g_iova,
    output logic [15:0] d_g_len,
    output logic [15:0] d_g_dst,
    output logic [4:0]  d_g_idx,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic        d_g_full,
    /* verilator lint_on UNUSEDSIGNAL */
    output logic        d_g_close,
    input  logic        d_g_done,
    input  logic        d_g_fault,
    input  logic [63:0] d_g_fault_iova,
    output logic        d_l_start,
    output logic [15:0] d_l_src,
    output logic [15:0] d_l_len,
    output logic [15:0] d_l_dst,
    // ---- hca_dma_wr
    output logic        d_w_start,
    output logic [63:0] d_w_addr,
    output logic [15:0] d_w_len,
    output logic        d_w_rxbuf,
    output logic [RXA-1:0] d_w_off,
    output logic [511:0] d_w_small,
    input  logic        d_w_busy,
    input  logic        d_w_done,
    input  logic        d_w_err,
    // ---- hca_tx_frame
    output logic        t_go,
    output logic [HDR_MAX*8-1:0] t_hdr,
    output logic [7:0]  t_hdr_len,
    output logic [15:0] t_pay_len,
    output logic [1:0]  t_pad,
    input  logic        t_busy,
    input  logic        t_sent,
    input  logic [15:0] t_sent_len,
    // ---- hca_rx_frame
    input  logic        r_valid,
    input  logic        r_slot,
    input  logic [HDR_MAX*8-1:0] r_hdr,
    input  logic [15:0] r_len,
    input  logic        r_too_long,
    input  logic        r_icrc_ok,
    input  logic [31:0] r_udp_sum,
    output logic        r_release
);
  localparam int OUTS = 1 << LOG_OUTS;
  localparam logic [2:0] QPS_RESET = 3'(`HCA_QPS_RESET), QPS_INIT = 3'(`HCA_QPS_INIT),
                         QPS_RTR = 3'(`HCA_QPS_RTR), QPS_RTS = 3'(`HCA_QPS_RTS),
                         QPS_SQD = 3'(`HCA_QPS_SQD), QPS_SQE = 3'(`HCA_QPS_SQE), QPS_ERR = 3'(`HCA_QPS_ERR);
  localparam logic [7:0] QPT_RC = 8'(`HCA_QPT_RC), QPT_UC = 8'(`HCA_QPT_UC), QPT_UD = 8'(`HCA_QPT_UD);
  localparam logic [7:0] AETH_ACK = 8'((`HCA_AETH_TYPE_ACK << 5) | `HCA_WIRE_AETH_CREDIT_INVALID);
  localparam logic [7:0] AETH_NAKB = 8'(`HCA_AETH_TYPE_NAK << 5);
  localparam logic [7:0] AETH_RNRB = 8'(`HCA_AETH_TYPE_RNR_NAK << 5);

  // Test-only planted bugs (dbg_bug, tied to 0 in a real build): they let the
  // lockstep checker be shown to fail on an RTL defect.
  localparam logic [7:0] BUG_HDR_SE = 8'd1, BUG_UDP_SPORT = 8'd2, BUG_DROP_ACK = 8'd3, BUG_CQE_FIELD = 8'd4,
                         BUG_HDR_BIT = 8'd5;

  typedef enum logic [6:0] {
    S_IDLE, S_FP1,
    S_TX0, S_TX1, S_TX2,
    S_RT0, S_RTR, S_RT1, S_RT2, S_SPW,
    S_DRAIN, S_CUR,
    S_SW0, S_SW1, S_SW2, S_SWK0, S_SWK1, S_SWERR, S_SWERR1, S_SWG,
    S_SP0, S_SP1, S_SPF0, S_SPK0, S_SPK1, S_SP2, S_SP3, S_GW, S_SP4, S_SP5, S_SP6, S_WFAIL,
    S_FL0, S_FL0B, S_FL1, S_FL1B, S_FL2, S_FL2B, S_FLEND,
    S_END,
    S_RX0, S_RX1, S_RX2, S_RX3, S_RXEND,
    S_CP0, S_CP1, S_CP2, S_AT0, S_AT1, S_AT2, S_NE0, S_NE1, S_NE2, S_CPEND, S_CPEND2,
    S_RS0, S_RS1, S_RS2, S_RS3, S_RS4, S_RS5, S_RS6, S_RS7, S_RS8, S_RS9,
    S_UC0, S_UC1, S_UC2, S_UC3, S_UC4, S_UC5, S_UC6,
    S_UD0, S_UD1, S_UD2, S_UD3,
    S_NAK0, S_NAK1,
    S_RQ0, S_RQ1, S_RQ2,
    S_SC0, S_SC1, S_SC2, S_SC2B, S_SC3, S_SC4, S_RC0,
    S_WRP0, S_WRP1,
    S_MR0, S_MR1,
    S_CQ0, S_CQ1, S_CQ2, S_CQ3, S_CF0, S_CF1,
    S_EQ0, S_EQ1,
    S_CS0, S_CS1,
    S_CR0, S_CR1,
    S_QE0, S_QE1,
    S_AK0, S_AK1
  } st_t;

  // ------------------------------------------------------------ helpers
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic psn_lt(input [23:0] a, input [23:0] b);   // roce_psn_cmp(a, b) < 0
    logic [23:0] d;
    d = a - b;
    psn_lt = d[23];
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // Received frame: parser (combinational on the held receive slot).
  logic [4:0]  p_reason;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [`OPI_W-1:0] p_info;
  logic [7:0]  p_opcode;
  logic [23:0] p_aeth_msn;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [47:0] p_dmac, p_smac;
  logic [31:0] p_sip, p_dip, p_reth_rkey, p_reth_len, p_imm, p_deth_qkey;
  logic [7:0]  p_aeth_syn, p_pay_off;
  logic [23:0] p_dqpn, p_psn, p_deth_sqp;
  logic        p_se, p_ackreq;
  logic [63:0] p_reth_va;
  logic [15:0] p_pay_len;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [7:0]  p_tclass, p_ttl;
  logic [15:0] p_ip_len, p_sport, p_pkey;
  logic        p_migreq;
  logic [1:0]  p_padcnt;
  logic [63:0] p_atm_swap_add, p_atm_compare, p_atmack_orig;
  /* verilator lint_on UNUSEDSIGNAL */
  hca_rx_parse #(.HDR_CAP(HDR_MAX)) u_parse (
      .hdr(r_hdr), .frame_len(r_len), .too_long(r_too_long), .udp_sum(r_udp_sum), .icrc_ok(r_icrc_ok),
      .reason(p_reason), .info(p_info), .dmac(p_dmac), .smac(p_smac), .tclass(p_tclass), .ttl(p_ttl),
      .sip(p_sip), .dip(p_dip), .ip_len(p_ip_len), .sport(p_sport), .opcode(p_opcode), .se(p_se),
      .migreq(p_migreq), .padcnt(p_padcnt), .pkey(p_pkey), .dqpn(p_dqpn), .ackreq(p_ackreq),
      .psn(p_psn), .reth_va(p_reth_va), .reth_rkey(p_reth_rkey), .reth_len(p_reth_len), .imm(p_imm),
      .aeth_syn(p_aeth_syn), .aeth_msn(p_aeth_msn), .deth_qkey(p_deth_qkey), .deth_sqp(p_deth_sqp),
      .atm_swap_add(p_atm_swap_add), .atm_compare(p_atm_compare), .atmack_orig(p_atmack_orig),
      .pay_off(p_pay_off), .pay_len(p_pay_len));
  logic ro_send, ro_write, ro_first, ro_middle, ro_last, ro_only, ro_imm, ro_start, ro_end, ro_req, ro_read, ro_atomic;
  assign ro_send   = p_info[`OPI_SEND];
  assign ro_write  = p_info[`OPI_WRITE];
  assign ro_read   = p_info[`OPI_READ];
  assign ro_atomic = p_info[`OPI_ATOMIC];
  assign ro_first  = p_info[`OPI_FIRST];
  assign ro_middle = p_info[`OPI_MIDDLE];
  assign ro_last   = p_info[`OPI_LAST];
  assign ro_only   = p_info[`OPI_ONLY];
  assign ro_imm    = p_info[`OPI_IMM];
  assign ro_start  = ro_first || ro_only;
  assign ro_end    = ro_last || ro_only;
  assign ro_req    = p_info[`OPI_REQ];
  logic [7:0] p_qpt;
  assign p_qpt = p_info[`OPI_RC] ? QPT_RC : p_info[`OPI_UC] ? QPT_UC : QPT_UD;

  // Header generator inputs (registers) and outputs.
  logic [7:0]  h_opcode, h_tclass, h_hop, h_aeth_syn;
  logic        h_se, h_ackreq;
  logic [23:0] h_psn, h_dqpn, h_aeth_msn, h_deth_sqp;
  logic [15:0] h_pay_len, h_sport;
  logic [47:0] h_dmac, h_smac;
  logic [31:0] h_sip, h_dip, h_rkey, h_rlen, h_imm, h_qkey;
  logic [63:0] h_va;
  logic [HDR_MAX*8-1:0] g_hdr;
  logic [7:0]  g_hdr_len;
  logic [1:0]  g_pad;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [15:0] g_ip_len;
  logic        g_valid;
  /* verilator lint_on UNUSEDSIGNAL */
  hca_hdr_gen #(.HDR_MAX(HDR_MAX)) u_hdr (
      .opcode(h_opcode), .se(h_se), .ackreq(h_ackreq), .psn(h_psn), .dqpn(h_dqpn), .pay_len(h_pay_len),
      .dmac(h_dmac), .smac(h_smac), .tclass(h_tclass), .hop_limit(h_hop), .sip(h_sip), .dip(h_dip),
      .sport(h_sport), .reth_va(h_va), .reth_rkey(h_rkey), .reth_len(h_rlen), .imm(h_imm),
      .aeth_syn(h_aeth_syn), .aeth_msn(h_aeth_msn), .deth_qkey(h_qkey), .deth_sqp(h_deth_sqp),
      .atm_swap_add(64'h0), .atm_compare(64'h0), .atmack_orig(64'h0),
      .hdr(g_hdr), .hdr_len(g_hdr_len), .padcnt(g_pad), .ip_len(g_ip_len), .valid(g_valid));
  // BUG_HDR_BIT: the BTH MigReq bit of request packets inverted (the peer
  // accepts it; the ICRC covers the wrong bit, so only a checker sees it)
  assign t_hdr     = g_hdr ^ (((dbg_bug == BUG_HDR_BIT) && h_opcode != 8'(`HCA_BTH_OP_RC_ACKNOWLEDGE)) ?
                              ((HDR_MAX*8)'(1) << (8 * 43 + 6)) : '0);
  assign t_hdr_len = g_hdr_len;
  assign t_pay_len = h_pay_len;
  assign t_pad     = g_pad;

  // Outstanding send WQE table.
  logic                ow_re, ow_we;
  logic [LOG_MAX_QP+LOG_OUTS-1:0] ow_raddr, ow_waddr;
  logic [`OW_W-1:0]    ow_rdata, ow_wdata;
  hca_ram_sdp #(.W(`OW_W), .DEPTH(NQP * OUTS)) u_outs (
      .clk(clk), .wr_en(ow_we && ce), .wr_addr(ow_waddr), .wr_data(ow_wdata), .wr_be('1),
      .rd_en(ow_re && ce), .rd_addr(ow_raddr), .rd_data(ow_rdata));

  // ------------------------------------------------------------ registers
  st_t         state, ret_mr, ret_cq, ret_eq, ret_cs, ret_cr, ret_qe, ret_ak, ret_rt, ret_sc, ret_rq, ret_rc;
  logic [LOG_MAX_QP-1:0] qn, rr;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [1023:0] cfg;               // QPC configuration bytes (not all used)
  logic [255:0] cq_cfg;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [`TXS_W-1:0] txs;
  logic [`RXS_W-1:0] rxs;
  logic [2:0]  st;
  logic        did, in_step;
  // send WQE cache (fetch buffer 0 + translated SGE addresses)
  logic        tw_v;
  // WQE caches are valid only while no QPC was written since they were filled
  // (a QP reset and reused must not hit a WQE fetched before); qpc_gen counts
  // QPC writes in every cycle, engine held or not.
  logic [15:0] qpc_gen, tw_gen, rw_gen;
  logic [LOG_MAX_QP-1:0] tw_qn;
  logic [15:0] tw_idx;
  // receive WQE cache (fetch buffer 1)
  logic        rw_v;
  logic [LOG_MAX_QP-1:0] rw_qn;
  logic [63:0] rw_addr;
  logic [15:0] rx_chk;
  // working send WQE entry
  logic [`OW_W-1:0] ow;
  // packet
  logic [23:0] pk_k;
  logic [31:0] pk_off;
  logic [15:0] pk_plen;
  logic        pk_last;
  // gather walk
  logic [4:0]  gw_i;
  logic [31:0] gw_offr;
  logic [15:0] gw_rem, gw_dst;
  // key checks (loop index), MR subroutine
  logic [4:0]  sk_i;
  logic [31:0] mr_key, mr_pdn;
  logic [15:0] mr_acc;
  logic [63:0] mr_va, mr_len, mr_iova;
  logic [7:0]  mr_verr;
  // completion
  logic [31:0] cq_n;
  logic [255:0] cqe;
  logic        cqe_sol, cq_lost;
  logic [4:0]  cs_status;
  logic [7:0]  cs_verr;
  logic        cs_force;
  // EQE
  logic [31:0] eq_n;
  logic [79:0] eqe;      // {type, subtype, element, data}
  // QP error
  logic [7:0]  qe_evt;
  logic        qe_has;
  // ACK
  logic [23:0] ak_psn;
  logic [7:0]  ak_syn;
  // responder
  logic [7:0]  rs_code;          // NAK code for S_NAK*
  logic [63:0] rs_iova;
  // scatter
  logic [4:0]  sc_i;
  logic [31:0] sc_pos, sc_off;
  logic [15:0] sc_n, sc_rem, sc_src;
  logic        sc_grh;
  logic [7:0]  sc_verr;
  // receive WQE take
  logic [1:0]  rq_res;            // 0 none, 1 taken, 2 failed
  logic [7:0]  rq_verr;
  // completer
  logic [23:0] cp_last;
  logic        cp_moved;
  logic [4:0]  ne_status;
  logic [7:0]  ne_verr;
  // per-cycle outputs registered for timing-free decisions
  logic        r_release_q;

  // The address of a send WQE slot and the receive WQE slot.
  logic [3:0]  c_ls, c_lr;               // clamped log strides
  logic [4:0]  c_lsq, c_lrq;             // clamped log sizes
  logic [11:0] c_pmtu_log;
  logic [31:0] c_pmtu;
  // address of WQE `idx` in a ring at `base` of 2^lsize slots of 2^lstride bytes
  function automatic [63:0] slot_addr(input [63:0] base, input [15:0] idx, input [4:0] lsize,
                                      input [3:0] lstride);
    slot_addr = base + ({48'b0, idx & ((16'd1 << lsize) - 16'd1)} << lstride);
  endfunction
  always_comb begin
    c_ls = (cfg[8*`HCA_QPC_LOG_SQ_STRIDE_OFF +: 8] < 8'(`HCA_WQE_LOG_MIN_SQ_STRIDE)) ? 4'(`HCA_WQE_LOG_MIN_SQ_STRIDE) :
           (cfg[8*`HCA_QPC_LOG_SQ_STRIDE_OFF +: 8] > 8'(`HCA_WQE_LOG_MAX_SQ_STRIDE)) ? 4'(`HCA_WQE_LOG_MAX_SQ_STRIDE) :
           cfg[8*`HCA_QPC_LOG_SQ_STRIDE_OFF +: 4];
    c_lr = (cfg[8*`HCA_QPC_LOG_RQ_STRIDE_OFF +: 8] < 8'(`HCA_WQE_LOG_MIN_RQ_STRIDE)) ? 4'(`HCA_WQE_LOG_MIN_RQ_STRIDE) :
           (cfg[8*`HCA_QPC_LOG_RQ_STRIDE_OFF +: 8] > 8'(`HCA_WQE_LOG_MAX_RQ_STRIDE)) ? 4'(`HCA_WQE_LOG_MAX_RQ_STRIDE) :
           cfg[8*`HCA_QPC_LOG_RQ_STRIDE_OFF +: 4];
    c_lsq = (cfg[8*`HCA_QPC_LOG_SQ_SIZE_OFF +: 8] > 8'd16) ? 5'd16 : cfg[8*`HCA_QPC_LOG_SQ_SIZE_OFF +: 5];
    c_lrq = (cfg[8*`HCA_QPC_LOG_RQ_SIZE_OFF +: 8] > 8'd16) ? 5'd16 : cfg[8*`HCA_QPC_LOG_RQ_SIZE_OFF +: 5];
    if (cfg[8*`HCA_QPC_PATH_MTU_OFF +: 8] >= 8'(`HCA_MTU_256) && cfg[8*`HCA_QPC_PATH_MTU_OFF +: 8] <= 8'(`HCA_MTU_4096))
      c_pmtu_log = 12'(cfg[8*`HCA_QPC_PATH_MTU_OFF +: 8]) + 12'd7;
    else
      c_pmtu_log = 12'd12;
    c_pmtu = 32'd1 << c_pmtu_log;
  end

  // ---- more working registers
  logic        rt_hit;
  logic [63:0] fa;                 // address of the last fetch (fault report)
  logic [LOG_MAX_SRQ-1:0] srq_n;
  logic [3:0]  rq_ls;
  logic [63:0] cq_iova, eq_iova;
  logic [4:0]  rc_status;
  logic [7:0]  rc_verr, rc_op, rc_flags;
  logic [31:0] rc_len, rc_src;
  logic        rc_imm;
  logic [3:0]  gid_i;
  logic        wait_tgo;           // t_go issued last cycle: t_busy not yet visible
  // registered strobes
  logic        s_qp_set, s_busy_set, s_busy_clr, s_cq_dec, s_cq_err;
  logic        s_cq_fp_clr, cq_fire, eq_fire;
  logic        s_eq_dec, s_eq_fail, s_inj_pop;
  logic        s_srq_inc, s_srq_disarm, s_srq_err, s_txs_we, s_rxs_we, s_ow_we;
  logic [2:0]  s_qp_val;
  logic [`OW_W-1:0] s_ow_wdata;
  logic [LOG_MAX_QP+LOG_OUTS-1:0] s_ow_waddr;
  logic [`HCA_STAT_COUNT-1:0] s_stat;
  logic [31:0] s_rx_bytes;
  logic        s_evt;
  logic [7:0]  s_evt_type;
  logic [31:0] s_evt_elem;
  logic        s_fault, s_fault_wr;
  logic [7:0]  s_fault_client;
  logic [63:0] s_fault_iova;
  logic        s_fire, s_deliver;
  logic [4:0]  s_vec;

  // ---- field views
  logic [7:0]  c_type, c_flags;
  logic [31:0] c_pdn, c_send_cqn, c_recv_cqn, c_srqn, c_qkey;
  logic [15:0] c_acc;
  logic        c_rc, c_ud, c_srq;
  assign c_type     = cfg[8*`HCA_QPC_QP_TYPE_OFF +: 8];
  assign c_flags    = cfg[8*`HCA_QPC_FLAGS_OFF +: 8];
  assign c_pdn      = cfg[8*`HCA_QPC_PDN_OFF +: 32];
  assign c_qkey     = cfg[8*`HCA_QPC_QKEY_OFF +: 32];
  assign c_acc      = cfg[8*`HCA_QPC_ACCESS_FLAGS_OFF +: 16];
  assign c_send_cqn = cfg[8*`HCA_QPC_SEND_CQN_OFF +: 32];
  assign c_recv_cqn = cfg[8*`HCA_QPC_RECV_CQN_OFF +: 32];
  assign c_srqn     = cfg[8*`HCA_QPC_SRQN_OFF +: 32];
  assign c_rc       = c_type == QPT_RC;
  assign c_ud       = c_type == QPT_UD;
  assign c_srq      = (c_flags & 8'(`HCA_QPC_FLAGS_USE_SRQ_MASK)) != 0;

  // requester state fields
  logic [15:0] t_sq_ci, t_sq_head, t_tx_wqe;
  logic [23:0] t_tx_pkt, t_psn_next, t_una;
  logic [4:0]  t_rd_out;
  assign t_sq_ci    = txs[`TXS_SQ_CI_O +: 16];
  assign t_sq_head  = txs[`TXS_SQ_HEAD_O +: 16];
  assign t_tx_wqe   = txs[`TXS_TX_WQE_O +: 16];
  assign t_tx_pkt   = txs[`TXS_TX_PKT_O +: 24];
  assign t_psn_next = txs[`TXS_PSN_NEXT_O +: 24];
  assign t_una      = txs[`TXS_UNA_O +: 24];
  assign t_rd_out   = txs[`TXS_RD_OUT_O +: 5];
  // responder state fields
  logic [23:0] r_epsn, r_msn;
  logic [1:0]  r_msg;
  logic [15:0] r_rq_ci, r_rwqe_idx;
  logic [4:0]  r_rwqe_nsge;
  logic [31:0] r_rwqe_tot, r_rwqe_off, r_msg_len, r_wr_len;
  logic [63:0] r_wr_iova, r_rwqe_addr;
  logic        r_rwqe_v, r_rwqe_srq, r_seqnak, r_ucdrop, r_commest;
  assign r_epsn      = rxs[`RXS_EPSN_O +: 24];
  assign r_msn       = rxs[`RXS_MSN_O +: 24];
  assign r_seqnak    = rxs[`RXS_SEQNAK_O];
  assign r_msg       = rxs[`RXS_MSG_O +: 2];
  assign r_ucdrop    = rxs[`RXS_UCDROP_O];
  assign r_rq_ci     = rxs[`RXS_RQ_CI_O +: 16];
  assign r_commest   = rxs[`RXS_COMMEST_O];
  assign r_rwqe_v    = rxs[`RXS_RWQE_V_O];
  assign r_rwqe_srq  = rxs[`RXS_RWQE_SRQ_O];
  assign r_rwqe_idx  = rxs[`RXS_RWQE_IDX_O +: 16];
  assign r_rwqe_nsge = rxs[`RXS_RWQE_NSGE_O +: 5];
  assign r_rwqe_tot  = rxs[`RXS_RWQE_TOT_O +: 32];
  assign r_rwqe_off  = rxs[`RXS_RWQE_OFF_O +: 32];
  assign r_msg_len   = rxs[`RXS_MSG_LEN_O +: 32];
  assign r_wr_len    = rxs[`RXS_WR_LEN_O +: 32];
  assign r_wr_iova   = rxs[`RXS_WR_IOVA_O +: 64];
  assign r_rwqe_addr = rxs[`RXS_RWQE_ADDR_O +: 64];

  // send WQE (fetch buffer 0)
  logic [7:0]  w_op, w_flags, w_nsge;
  logic [15:0] w_inl, w_idx;
  logic [31:0] w_imm, w_rkey, w_udqkey;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [31:0] w_udqpn;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [63:0] w_raddr;
  logic [47:0] w_uddmac;
  logic [7:0]  w_udsgid, w_udhop, w_udtc;
  logic [31:0] w_uddip;
  assign w_op     = fb[8*`HCA_WQE_CTRL_SEG_OPCODE_OFF +: 8];
  assign w_flags  = fb[8*`HCA_WQE_CTRL_SEG_SEND_FLAGS_OFF +: 8];
  assign w_nsge   = fb[8*`HCA_WQE_CTRL_SEG_NUM_SGE_OFF +: 8];
  assign w_inl    = fb[8*`HCA_WQE_CTRL_SEG_INLINE_LEN_OFF +: 16];
  assign w_idx    = fb[8*`HCA_WQE_CTRL_SEG_WQE_INDEX_OFF +: 16];
  assign w_imm    = fb[8*`HCA_WQE_CTRL_SEG_IMM_DATA_OFF +: 32];
  assign w_raddr  = fb[8*(`HCA_WQE_RADDR_OFF + `HCA_WQE_RADDR_SEG_REMOTE_ADDR_OFF) +: 64];
  assign w_rkey   = fb[8*(`HCA_WQE_RADDR_OFF + `HCA_WQE_RADDR_SEG_RKEY_OFF) +: 32];
  assign w_udqpn  = fb[8*(`HCA_WQE_UD_OFF + `HCA_WQE_UD_SEG_REMOTE_QPN_OFF) +: 32];
  assign w_udqkey = fb[8*(`HCA_WQE_UD_OFF + `HCA_WQE_UD_SEG_REMOTE_QKEY_OFF) +: 32];
  assign w_uddmac = fb[8*(`HCA_WQE_UD_OFF + `HCA_WQE_UD_SEG_DMAC_OFF) +: 48];
  assign w_udsgid = fb[8*(`HCA_WQE_UD_OFF + `HCA_WQE_UD_SEG_SGID_INDEX_OFF) +: 8];
  assign w_udhop  = fb[8*(`HCA_WQE_UD_OFF + `HCA_WQE_UD_SEG_HOP_LIMIT_OFF) +: 8];
  assign w_uddip  = fb[8*(`HCA_WQE_UD_OFF + `HCA_WQE_UD_SEG_DGID_OFF + 12) +: 32];
  assign w_udtc   = fb[8*(`HCA_WQE_UD_OFF + `HCA_WQE_UD_SEG_TRAFFIC_CLASS_OFF) +: 8];
  // SGE fields at the indices the FSM walks (kept outside the FSM process:
  // variable selects of the wide fetch buffers are built once).
  logic [31:0] sk_len, sk_key, gw_len, sc_len, sc_key;
  logic [63:0] sk_addr, sc_addr;
  assign sk_len  = fb[8*(64 + 16*sk_i + `HCA_WQE_DATA_SEG_BYTE_COUNT_OFF) +: 32];
  assign sk_key  = fb[8*(64 + 16*sk_i + `HCA_WQE_DATA_SEG_LKEY_OFF) +: 32];
  assign sk_addr = fb[8*(64 + 16*sk_i + `HCA_WQE_DATA_SEG_ADDR_OFF) +: 64];
  assign gw_len  = fb[8*(64 + 16*gw_i + `HCA_WQE_DATA_SEG_BYTE_COUNT_OFF) +: 32];
  assign sc_len  = fb1[8*(16 + 16*sc_i + `HCA_WQE_DATA_SEG_BYTE_COUNT_OFF) +: 32];
  assign sc_key  = fb1[8*(16 + 16*sc_i + `HCA_WQE_DATA_SEG_LKEY_OFF) +: 32];
  assign sc_addr = fb1[8*(16 + 16*sc_i + `HCA_WQE_DATA_SEG_ADDR_OFF) +: 64];

  // Validation of a fetched send WQE (model/req.c parse_wqe).
  logic        v_rdat, v_inline, v_opok, v_bad, v_toolong, v_udlong;
  logic [32:0] v_total;
  logic [7:0]  v_maxsge;
  logic [15:0] v_maxinl;
  always_comb begin : wqe_check
    integer i;
    v_maxsge = 8'(((32'd1 << c_ls) - 32'(`HCA_WQE_HDR_SIZE)) >> 4);
    if (v_maxsge > 8'(`HCA_CAP_MAX_SGE)) v_maxsge = 8'(`HCA_CAP_MAX_SGE);
    v_maxinl = 16'((32'd1 << c_ls) - 32'(`HCA_WQE_HDR_SIZE));
    if (v_maxinl > 16'(`HCA_CAP_MAX_INLINE_DATA)) v_maxinl = 16'(`HCA_CAP_MAX_INLINE_DATA);
    v_rdat   = w_op == 8'(`HCA_WR_RDMA_READ) || w_op == 8'(`HCA_WR_ATOMIC_CMP_AND_SWP) ||
               w_op == 8'(`HCA_WR_ATOMIC_FETCH_AND_ADD);
    v_inline = (w_flags & 8'(`HCA_SEND_INLINE)) != 0;
    case (w_op)
      8'(`HCA_WR_SEND), 8'(`HCA_WR_SEND_WITH_IMM): v_opok = 1'b1;
      8'(`HCA_WR_RDMA_WRITE), 8'(`HCA_WR_RDMA_WRITE_WITH_IMM): v_opok = c_type == QPT_RC || c_type == QPT_UC;
      // RDMA READ and atomics are the next slice of the RTL: refused for now
      default: v_opok = 1'b0;
    endcase
    v_total = '0;
    for (i = 0; i < 16; i = i + 1)
      if (8'(i) < w_nsge) v_total = v_total + {1'b0, fb[8*(64 + 16*i) +: 32]};
    if (v_inline)
      v_total = {17'b0, w_inl};
    v_bad = w_idx != t_sq_head || !v_opok ||
            (v_inline ? (v_rdat || w_inl > v_maxinl) : (w_nsge > v_maxsge));
    v_toolong = v_total > 33'(`HCA_CAP_MAX_MSG_SZ);
    v_udlong  = c_ud && v_total > {1'b0, c_pmtu};
  end

  // RC requester window: a packet goes out only while its PSN is fewer than
  // HCA_WIRE_MAX_UNACKED_PSNS past the oldest unacknowledged one.
  function automatic logic win_closed(input [23:0] psn);
    logic [23:0] d;
    d = psn - t_una;
    win_closed = c_rc && !d[23] && d >= 24'(`HCA_WIRE_MAX_UNACKED_PSNS);
  endfunction

  // Outstanding-table read address (combinational, by state).
  assign ow_re    = state == S_RTR || state == S_SP0 || state == S_AT0 || state == S_NE0 || state == S_CP0;
  assign ow_raddr = {qn, (state == S_SP0) ? t_tx_wqe[LOG_OUTS-1:0] : t_sq_ci[LOG_OUTS-1:0]};
  assign ow_we    = s_ow_we;
  assign ow_waddr = s_ow_waddr;
  assign ow_wdata = s_ow_wdata;

  // Context RAM reads (combinational enables) and registered writes.
  assign e_qp_idx    = qn;
  assign e_qpc_en    = state == S_TX0 || state == S_RX0;
  assign e_qpc_idx   = (state == S_RX0) ? p_dqpn[LOG_MAX_QP-1:0] : qn;
  assign e_txs_en    = e_qpc_en || s_txs_we;
  assign e_txs_we    = s_txs_we;
  assign e_txs_idx   = e_qpc_idx;
  assign e_txs_wdata = txs;
  assign e_rxs_en    = e_qpc_en || s_rxs_we;
  assign e_rxs_we    = s_rxs_we;
  assign e_rxs_idx   = e_qpc_idx;
  assign e_rxs_wdata = rxs;
  assign e_step_qn   = e_qpc_idx;
  assign e_step_read = e_qpc_en;
  // mid-item: from the cycle after the read up to and including the
  // write-back cycle (the first S_IDLE cycle, s_*_we set)
  assign e_step_mid  = (in_step && state != S_IDLE && !e_qpc_en) || s_txs_we || s_rxs_we;
  assign e_step_wb   = s_txs_we || s_rxs_we || state == S_END || state == S_RXEND;
  assign e_cq_idx    = cq_n[LOG_MAX_CQ-1:0];
  assign e_cqc_en    = state == S_CQ0 || state == S_CF0;
  assign e_eq_idx    = eq_n[LOG_MAX_EQ-1:0];
  assign e_srq_idx   = srq_n;
  assign e_mr_en     = state == S_MR0;
  assign e_mr_idx    = mr_key[8 +: LOG_MAX_MR];
  assign e_gid_idx   = gid_i;
  assign e_ip        = p_dip;
  assign e_qp_set_state = s_qp_set;
  assign e_qp_state_val = s_qp_val;
  assign e_busy_set  = s_busy_set;
  assign e_busy_clr  = s_busy_clr;
  assign e_busy_idx  = qn;
  // CQ/EQ slot reservations and arm decisions (S_CQ1, S_EQ0, S_FP1) update
  // hca_ctx in the very cycle they are decided (combinational strobes, no
  // pending state), and a doorbell of the same queue taking effect in that
  // cycle makes them wait a cycle (e_cq_db_now, e_eq_db_now): a doorbell
  // sees either none or all of a decision, engine held or not.
  // The ring checks of S_CQ1 / S_EQ0, shared by the state machine and the
  // strobes: log2 size, no such queue (lost / skipped), full (overflow).
  logic [3:0]  cqt_lg, eqt_lg;
  logic [31:0] cqt_size, eqt_size;
  logic        cq_bad, cq_full, eq_bad, eq_full;
  logic        cq_take, cq_take_sol, cq_take_fire, eq_take, fp_take, fp_fire;
  always_comb begin
    cqt_lg   = (e_cqc_rdata[8*`HCA_CQC_LOG_SIZE_OFF +: 8] > 8'(`HCA_CAP_LOG_MAX_CQE)) ?
               4'(`HCA_CAP_LOG_MAX_CQE) : e_cqc_rdata[8*`HCA_CQC_LOG_SIZE_OFF +: 4];
    cqt_size = 32'd1 << cqt_lg;
    cq_bad   = cq_n == 32'h0 || cq_n >= 32'(1 << LOG_MAX_CQ) || !e_cq_valid || e_cq_err;
    cq_full  = e_cq_pi - e_cq_ci >= cqt_size;
    cq_take_sol  = cqe_sol || cqe[8*`HCA_CQE_STATUS_OFF +: 8] != 8'(`HCA_WC_SUCCESS);
    cq_take_fire = e_cq_arm == 2'(`HCA_CQ_ARM_NEXT) || (e_cq_arm == 2'(`HCA_CQ_ARM_SOLICITED) && cq_take_sol);
    cq_take = ce && state == S_CQ1 && !e_cq_db_now && !cq_bad && !cq_full;
    eqt_lg   = (e_eq_cfg[8*`HCA_EQC_LOG_SIZE_OFF +: 8] > 8'(`HCA_CAP_LOG_MAX_EQE)) ?
               4'(`HCA_CAP_LOG_MAX_EQE) : e_eq_cfg[8*`HCA_EQC_LOG_SIZE_OFF +: 4];
    eqt_size = 32'd1 << eqt_lg;
    eq_bad   = eq_n >= 32'(NEQ) || !e_eq_valid || e_eq_failed;
    eq_full  = e_eq_pi - e_eq_ci >= eqt_size;
    eq_take = ce && state == S_EQ0 && !e_eq_db_now && !eq_bad && !eq_full;
    fp_take = ce && state == S_FP1 && !e_eq_db_now;
    fp_fire = fp_take && e_eq_valid;   // decided at the EQ_ARM doorbell (hca_ctx)
  end
  assign e_cq_inc    = cq_take;
  assign e_cq_dec    = s_cq_dec;
  assign e_cq_disarm = cq_take && cq_take_fire;
  assign e_cq_sol    = cq_take && cq_take_sol;
  assign e_cq_fp_clr = s_cq_fp_clr;
  assign e_cq_set_err = s_cq_err;
  assign e_eq_inc    = eq_take;
  assign e_eq_dec    = s_eq_dec;
  assign e_eq_disarm = eq_take && e_eq_armed;
  assign e_eq_fail   = s_eq_fail;
  assign e_eq_fp_clr = fp_take;
  assign e_inj_pop   = s_inj_pop;
  assign e_srq_inc   = s_srq_inc;
  assign e_srq_disarm = s_srq_disarm;
  assign e_srq_set_err = s_srq_err;
  assign e_evt_valid = s_evt;
  assign e_evt_type  = s_evt_type;
  assign e_evt_elem  = s_evt_elem;
  // frames transmitted are counted when the framer accepts them
  assign stat_inc    = s_stat | (t_sent ? (`HCA_STAT_COUNT'(1) << `HCA_STAT_TX_FRAMES) : '0);
  assign stat_rx_bytes = s_rx_bytes;
  assign stat_tx_bytes = t_sent ? {16'b0, t_sent_len} : 32'h0;
  assign f_valid     = s_fault;
  assign f_client    = s_fault_client;
  assign f_write = s_fault_wr;
  assign f_iova      = s_fault_iova;
  assign x_fire      = s_fire;
  assign x_deliver   = s_deliver;
  assign x_vec       = s_vec;

  // Busy QP after qn in ascending order (round robin = repeated passes).
  logic [LOG_MAX_QP-1:0] rr_pick;
  always_comb begin : rrp
    integer i;
    rr_pick = '0;
    for (i = NQP - 1; i >= 0; i = i - 1)
      if (qp_busy[i]) rr_pick = LOG_MAX_QP'(i);
    for (i = NQP - 1; i >= 0; i = i - 1)
      if (qp_busy[i] && LOG_MAX_QP'(i) > rr) rr_pick = LOG_MAX_QP'(i);
  end
  logic [LOG_MAX_EQ-1:0] fp_pick;
  logic [LOG_MAX_CQ-1:0] cfp_pick;
  logic [4:0] pba_pick;
  logic [31:0] pba_pend;
  assign pba_pend = x_pba & ~x_masked;
  always_comb begin : picks
    integer i;
    fp_pick = '0;
    for (i = NEQ - 1; i >= 0; i = i - 1)
      if (eq_fire_pending[i]) fp_pick = LOG_MAX_EQ'(i);
    cfp_pick = '0;
    for (i = (1 << LOG_MAX_CQ) - 1; i >= 0; i = i - 1)
      if (cq_fire_pending[i]) cfp_pick = LOG_MAX_CQ'(i);
    pba_pick = '0;
    for (i = 31; i >= 0; i = i - 1)
      if (pba_pend[i]) pba_pick = 5'(i);
  end

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) qpc_gen <= '0;
    else if (qpc_written) qpc_gen <= qpc_gen + 16'd1;
  end

  logic tx_free;
  assign tx_free = !t_busy && !t_go && !wait_tgo;

  logic strobes;     // a registered strobe is still to take effect
  assign strobes = s_qp_set || s_busy_set || s_busy_clr || s_cq_dec || s_eq_dec || s_cq_err ||
                   s_cq_fp_clr || s_eq_fail || s_inj_pop || s_srq_inc || s_srq_disarm ||
                   s_srq_err || s_txs_we || s_rxs_we || s_ow_we || (|s_stat) || s_evt || s_fault || s_fire ||
                   s_deliver || d_f_start || d_g_push || d_g_close || d_l_start || d_w_start || t_go ||
                   r_release || wait_tgo || r_release_q;
  assign dbg = {strobes, e_inj_valid, (|eq_fire_pending), (|pba_pend), r_valid, (enabled && (|qp_busy)), t_busy,
                d_w_busy, 8'(qn), 8'(state), 8'(rr)};
  assign busy = state != S_IDLE || strobes || e_inj_valid || (|eq_fire_pending) || (|cq_fire_pending) || (|pba_pend) || r_valid ||
                (enabled && (|qp_busy)) || t_busy || d_w_busy;

  function automatic [255:0] mk_cqe(input [31:0] byte_len, input [31:0] imm, input [31:0] qpn,
                                    input [31:0] src_qp, input [15:0] widx, input [7:0] status,
                                    input [7:0] opcode, input [7:0] wc_flags, input [7:0] verr,
                                    input [7:0] is_srq);
    mk_cqe = '0;
    mk_cqe[8*`HCA_CQE_BYTE_LEN_OFF +: 32]   = byte_len;
    mk_cqe[8*`HCA_CQE_IMM_DATA_OFF +: 32]   = imm;
    mk_cqe[8*`HCA_CQE_QPN_OFF +: 32]        = qpn;
    mk_cqe[8*`HCA_CQE_SRC_QP_OFF +: 32]     = src_qp;
    mk_cqe[8*`HCA_CQE_WQE_INDEX_OFF +: 16]  = widx;
    mk_cqe[8*`HCA_CQE_STATUS_OFF +: 8]      = status;
    mk_cqe[8*`HCA_CQE_OPCODE_OFF +: 8]      = opcode;
    mk_cqe[8*`HCA_CQE_WC_FLAGS_OFF +: 8]    = wc_flags;
    mk_cqe[8*`HCA_CQE_VENDOR_ERR_OFF +: 8]  = verr;
    mk_cqe[8*`HCA_CQE_IS_SRQ_OFF +: 8]      = is_srq;
  endfunction

  function automatic [7:0] wc_opcode(input [2:0] wr);
    case (wr)
      3'(`HCA_WR_RDMA_WRITE), 3'(`HCA_WR_RDMA_WRITE_WITH_IMM): wc_opcode = 8'(`HCA_WC_OP_RDMA_WRITE);
      3'(`HCA_WR_RDMA_READ):            wc_opcode = 8'(`HCA_WC_OP_RDMA_READ);
      3'(`HCA_WR_ATOMIC_CMP_AND_SWP):   wc_opcode = 8'(`HCA_WC_OP_COMP_SWAP);
      3'(`HCA_WR_ATOMIC_FETCH_AND_ADD): wc_opcode = 8'(`HCA_WC_OP_FETCH_ADD);
      default:                          wc_opcode = 8'(`HCA_WC_OP_SEND);
    endcase
  endfunction

  // BTH opcode of a request packet (model/req.c send_opcode).
  function automatic [7:0] send_opcode(input [7:0] qpt, input [2:0] wr, input first, input last);
    logic imm, snd;
    logic [7:0] base;
    imm = wr == 3'(`HCA_WR_SEND_WITH_IMM) || wr == 3'(`HCA_WR_RDMA_WRITE_WITH_IMM);
    snd = wr == 3'(`HCA_WR_SEND) || wr == 3'(`HCA_WR_SEND_WITH_IMM);
    if (qpt == QPT_UD)
      send_opcode = imm ? 8'(`HCA_BTH_OP_UD_SEND_ONLY_WITH_IMMEDIATE) : 8'(`HCA_BTH_OP_UD_SEND_ONLY);
    else begin
      base = snd ? 8'(`HCA_BTH_OP_RC_SEND_FIRST) : 8'(`HCA_BTH_OP_RC_RDMA_WRITE_FIRST);
      if (qpt == QPT_UC) base = base | 8'h20;
      if (first && last)      send_opcode = base + (imm ? 8'd5 : 8'd4);
      else if (first)         send_opcode = base;
      else if (!last)         send_opcode = base + 8'd1;
      else                    send_opcode = base + (imm ? 8'd3 : 8'd2);
    end
  endfunction

  // wire.md 4.2 check 2 (model/resp.c lengths_ok)
  logic len_ok;
  always_comb begin : lengths
    logic [32:0] total;
    len_ok = 1'b1;
    total = {1'b0, r_msg_len} + {17'b0, p_pay_len};
    if ((ro_first || ro_middle) && {16'b0, p_pay_len} != c_pmtu) len_ok = 1'b0;
    if (ro_last && (p_pay_len == 16'd0 || {16'b0, p_pay_len} > c_pmtu)) len_ok = 1'b0;
    if (ro_only && {16'b0, p_pay_len} > c_pmtu) len_ok = 1'b0;
    if (ro_write) begin
      if (ro_start) begin
        if ({1'b0, p_reth_len} > 33'(`HCA_CAP_MAX_MSG_SZ)) len_ok = 1'b0;
        if (ro_only && {16'b0, p_pay_len} != p_reth_len) len_ok = 1'b0;
        if (ro_first && p_reth_len <= c_pmtu) len_ok = 1'b0;
      end else begin
        if (ro_last ? (total != {1'b0, r_wr_len}) : (total >= {1'b0, r_wr_len})) len_ok = 1'b0;
      end
    end
    if (ro_read && {1'b0, p_reth_len} > 33'(`HCA_CAP_MAX_MSG_SZ)) len_ok = 1'b0;
  end

  logic seq_ok;
  always_comb begin
    if (r_msg == `RESP_MSG_SEND)       seq_ok = ro_send && (ro_middle || ro_last);
    else if (r_msg == `RESP_MSG_WRITE) seq_ok = ro_write && (ro_middle || ro_last);
    else                               seq_ok = ro_start || ro_read || ro_atomic;
  end

  // MR check (model/dma.c model_mr_check) on the MR read by S_MR0.
  logic [7:0]  mrc_verr;
  logic [63:0] mrc_iova;
  always_comb begin : mrcheck
    logic [63:0] mva, mlen, off;
    mva  = e_mr_rdata[8*`HCA_MRC_VA_OFF +: 64];
    mlen = e_mr_rdata[8*`HCA_MRC_LENGTH_OFF +: 64];
    off  = mr_va - mva;
    mrc_iova = e_mr_rdata[8*`HCA_MRC_DMA_ADDR_OFF +: 64] + off;
    if (mr_len == 64'h0) begin
      mrc_verr = 8'h0;
      mrc_iova = 64'h0;
    end else if (mr_key[31:8] == 24'h0 || mr_key[31:8] >= 24'(1 << LOG_MAX_MR))
      mrc_verr = 8'(`HCA_VENDOR_ERR_LKEY);
    else if (!e_mr_live || e_mr_rdata[8*`HCA_MRC_VALID_OFF +: 8] == 8'h0 ||
             e_mr_rdata[8*`HCA_MRC_KEY_OFF +: 8] != mr_key[7:0])
      mrc_verr = 8'(`HCA_VENDOR_ERR_LKEY);
    else if (e_mr_rdata[8*`HCA_MRC_PDN_OFF +: 32] != mr_pdn)
      mrc_verr = 8'(`HCA_VENDOR_ERR_PD);
    else if ((e_mr_rdata[8*`HCA_MRC_ACCESS_OFF +: 16] & mr_acc) != mr_acc)
      mrc_verr = 8'(`HCA_VENDOR_ERR_ACCESS);
    else if (mr_va < mva || off > mlen || mr_len > mlen - off)
      mrc_verr = 8'(`HCA_VENDOR_ERR_BOUNDS);
    else
      mrc_verr = 8'h0;
  end

  // receive WQE (fetch buffer 1)
  logic [7:0]  rw_nsge;
  logic [15:0] rw_idx;
  logic [32:0] rw_total;
  logic [7:0]  rw_maxsge;
  assign rw_nsge = fb1[8*`HCA_RECV_WQE_HDR_NUM_SGE_OFF +: 8];
  assign rw_idx  = fb1[8*`HCA_RECV_WQE_HDR_WQE_INDEX_OFF +: 16];
  always_comb begin : rwq
    integer i;
    rw_total = '0;
    for (i = 0; i < 16; i = i + 1)
      if (8'(i) < rw_nsge) rw_total = rw_total + {1'b0, fb1[8*(16 + 16*i) +: 32]};
    rw_maxsge = 8'(((32'd1 << rq_ls) - 32'd16) >> 4);
    if (rw_maxsge > 8'(`HCA_CAP_MAX_SGE)) rw_maxsge = 8'(`HCA_CAP_MAX_SGE);
  end

  // UD GRH area: 20 zero bytes, then the received IPv4 header.
  logic [319:0] grh;
  assign grh = {r_hdr[8*14 +: 160], 160'h0};

  // Translated SGE addresses of the cached send and receive WQEs, kept out of
  // the FSM process (small register files written by index).
  logic [63:0] tx_iova_r [0:15];
  logic [63:0] rx_iova_r [0:15];
  always_ff @(posedge clk) begin
    if (ce && state == S_SWK1 && mr_verr == 8'h0) tx_iova_r[sk_i[3:0]] <= mr_iova;
    if (ce && state == S_SPK1 && mr_verr == 8'h0) tx_iova_r[sk_i[3:0]] <= mr_iova;
    if (ce && state == S_SC2B && mr_verr == 8'h0) rx_iova_r[sc_i[3:0]] <= mr_iova;
  end
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) rx_chk <= '0;
    else if (ce) begin
      if (state == S_RQ2 || (state == S_SC1 && d_f_done)) rx_chk <= '0;
      else if (state == S_SC2B && mr_verr == 8'h0) rx_chk[sc_i[3:0]] <= 1'b1;
    end
  end
  logic [63:0] tx_iova_gw, rx_iova_sc;
  assign tx_iova_gw = tx_iova_r[gw_i[3:0]];
  assign rx_iova_sc = rx_iova_r[sc_i[3:0]];

  // ================================================================ FSM
  // Registered strobes are set for one cycle by the state that decides them;
  // their effect lands at the end of the following cycle.  States are laid
  // out so nothing reads a value in the cycle its update strobe is active.
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state <= S_IDLE;
      ret_mr <= S_IDLE; ret_cq <= S_IDLE; ret_eq <= S_IDLE; ret_cs <= S_IDLE; ret_cr <= S_IDLE;
      ret_qe <= S_IDLE; ret_ak <= S_IDLE; ret_rt <= S_IDLE; ret_sc <= S_IDLE; ret_rq <= S_IDLE; ret_rc <= S_IDLE;
      qn <= '0; rr <= '0; cfg <= '0; txs <= '0; rxs <= '0; st <= '0; did <= 1'b0; in_step <= 1'b0;
      tw_v <= 1'b0; tw_qn <= '0; tw_idx <= '0; tw_gen <= '0;
      rw_v <= 1'b0; rw_qn <= '0; rw_addr <= '0; rw_gen <= '0;
      ow <= '0; pk_k <= '0; pk_off <= '0; pk_plen <= '0; pk_last <= 1'b0;
      gw_i <= '0; gw_offr <= '0; gw_rem <= '0; gw_dst <= '0; sk_i <= '0;
      mr_key <= '0; mr_pdn <= '0; mr_acc <= '0; mr_va <= '0; mr_len <= '0; mr_iova <= '0; mr_verr <= '0;
      cq_n <= '0; cqe <= '0; cq_cfg <= '0; cqe_sol <= 1'b0; cq_lost <= 1'b0; cq_iova <= '0;
      cs_status <= '0; cs_verr <= '0; cs_force <= 1'b0;
      eq_n <= '0; eqe <= '0; eq_iova <= '0; qe_evt <= '0; qe_has <= 1'b0;
      ak_psn <= '0; ak_syn <= '0; rs_code <= '0; rs_iova <= '0;
      sc_i <= '0; sc_pos <= '0; sc_off <= '0; sc_n <= '0; sc_rem <= '0; sc_src <= '0; sc_grh <= 1'b0;
      sc_verr <= '0;
      rq_res <= '0; rq_verr <= '0; rq_ls <= '0; srq_n <= '0;
      cp_last <= '0; cp_moved <= 1'b0; ne_status <= '0; ne_verr <= '0; rt_hit <= 1'b0; fa <= '0;
      rc_status <= '0; rc_verr <= '0; rc_op <= '0; rc_flags <= '0; rc_len <= '0; rc_src <= '0; rc_imm <= 1'b0;
      gid_i <= '0; wait_tgo <= 1'b0; r_release_q <= 1'b0;
      h_opcode <= '0; h_tclass <= '0; h_hop <= '0; h_aeth_syn <= '0; h_se <= 1'b0; h_ackreq <= 1'b0;
      h_psn <= '0; h_dqpn <= '0; h_aeth_msn <= '0; h_deth_sqp <= '0; h_pay_len <= '0; h_sport <= '0;
      h_dmac <= '0; h_smac <= '0; h_sip <= '0; h_dip <= '0; h_rkey <= '0; h_rlen <= '0; h_imm <= '0;
      h_qkey <= '0; h_va <= '0;
      s_qp_set <= 1'b0; s_qp_val <= '0; s_busy_set <= 1'b0; s_busy_clr <= 1'b0; s_cq_dec <= 1'b0; s_eq_dec <= 1'b0;
      s_cq_err <= 1'b0; s_eq_fail <= 1'b0;
      s_cq_fp_clr <= 1'b0; cq_fire <= 1'b0; eq_fire <= 1'b0;
      s_inj_pop <= 1'b0; s_srq_inc <= 1'b0; s_srq_disarm <= 1'b0; s_srq_err <= 1'b0;
      s_txs_we <= 1'b0; s_rxs_we <= 1'b0; s_ow_we <= 1'b0; s_ow_wdata <= '0; s_ow_waddr <= '0;
      s_stat <= '0; s_rx_bytes <= '0; s_evt <= 1'b0; s_evt_type <= '0; s_evt_elem <= '0;
      s_fault <= 1'b0; s_fault_wr <= 1'b0; s_fault_client <= '0; s_fault_iova <= '0;
      s_fire <= 1'b0; s_deliver <= 1'b0; s_vec <= '0;
      d_f_start <= 1'b0; d_f_sel <= 1'b0; d_f_addr <= '0; d_f_len <= '0;
      d_g_push <= 1'b0; d_g_iova <= '0; d_g_len <= '0; d_g_dst <= '0; d_g_idx <= '0; d_g_close <= 1'b0;
      d_l_start <= 1'b0; d_l_src <= '0; d_l_len <= '0; d_l_dst <= '0;
      d_w_start <= 1'b0; d_w_addr <= '0; d_w_len <= '0; d_w_rxbuf <= 1'b0; d_w_off <= '0; d_w_small <= '0;
      t_go <= 1'b0; r_release <= 1'b0;
    end else if (srst) begin
      // ENGINE_CTRL.RESET / CTRL.RESET: back to idle; caches forgotten
      state <= S_IDLE;
      tw_v <= 1'b0; rw_v <= 1'b0;
      s_qp_set <= 1'b0; s_busy_set <= 1'b0; s_busy_clr <= 1'b0; s_cq_dec <= 1'b0; s_eq_dec <= 1'b0;
      s_cq_err <= 1'b0; s_eq_fail <= 1'b0;
      s_cq_fp_clr <= 1'b0;
      s_inj_pop <= 1'b0; s_srq_inc <= 1'b0; s_srq_disarm <= 1'b0; s_srq_err <= 1'b0; s_txs_we <= 1'b0;
      s_rxs_we <= 1'b0; s_ow_we <= 1'b0; s_stat <= '0; s_rx_bytes <= '0; s_evt <= 1'b0; s_fault <= 1'b0;
      s_fire <= 1'b0; s_deliver <= 1'b0;
      d_f_start <= 1'b0; d_g_push <= 1'b0; d_g_close <= 1'b0; d_l_start <= 1'b0; d_w_start <= 1'b0;
      t_go <= 1'b0; r_release <= 1'b0; wait_tgo <= 1'b0; r_release_q <= 1'b0;
    end else if (ce) begin
      // strobes last one cycle
      s_qp_set <= 1'b0; s_busy_set <= 1'b0; s_busy_clr <= 1'b0; s_cq_dec <= 1'b0; s_eq_dec <= 1'b0;
      s_cq_err <= 1'b0; s_eq_fail <= 1'b0;
      s_cq_fp_clr <= 1'b0;
      s_inj_pop <= 1'b0; s_srq_inc <= 1'b0; s_srq_disarm <= 1'b0; s_srq_err <= 1'b0; s_txs_we <= 1'b0;
      s_rxs_we <= 1'b0; s_ow_we <= 1'b0; s_stat <= '0; s_rx_bytes <= '0; s_evt <= 1'b0; s_fault <= 1'b0;
      s_fire <= 1'b0; s_deliver <= 1'b0;
      d_f_start <= 1'b0; d_g_push <= 1'b0; d_g_close <= 1'b0; d_l_start <= 1'b0; d_w_start <= 1'b0;
      t_go <= 1'b0; r_release <= 1'b0;
      wait_tgo <= t_go;
      r_release_q <= r_release;

      case (state)
        // -------------------------------------------------- dispatcher
        S_IDLE: begin
          did     <= 1'b0;
          in_step <= 1'b0;
          if (e_inj_valid && !s_inj_pop) begin
            eq_n      <= {{(32-LOG_MAX_EQ){1'b0}}, e_inj_eqn};
            eqe       <= e_inj_eqe;
            s_inj_pop <= 1'b1;
            ret_eq    <= S_IDLE;
            state     <= S_EQ0;
          end else if ((|cq_fire_pending) && !s_cq_fp_clr) begin
            cq_n  <= {{(32-LOG_MAX_CQ){1'b0}}, cfp_pick};
            state <= S_CF0;
          end else if (|eq_fire_pending) begin
            eq_n  <= {{(32-LOG_MAX_EQ){1'b0}}, fp_pick};
            state <= S_FP1;
          end else if (|pba_pend && !s_deliver) begin
            s_deliver <= 1'b1;
            s_vec     <= pba_pick;
          end else if (r_valid && !r_release && !r_release_q) begin
            in_step <= 1'b1;
            state   <= S_RX0;
          end else if (enabled && (|qp_busy) && !s_busy_set) begin
            qn      <= rr_pick;
            rr      <= rr_pick;
            in_step <= 1'b1;
            state   <= S_TX0;
          end
        end
        S_FP1: if (!e_eq_db_now) begin   // fp_take: pending bit cleared
          if (fp_fire) begin
            s_fire      <= 1'b1;
            s_vec       <= e_eq_cfg[8*`HCA_EQC_VECTOR_OFF +: 5];
          end
          state <= S_IDLE;
        end

        // -------------------------------------------------- QP step (model/req.c model_requester)
        S_TX0: begin
          s_busy_clr <= 1'b1;       // set again at the end if the step made progress
          state <= S_TX1;
        end
        S_TX1: begin
          cfg <= e_qpc_rdata;
          txs <= e_txs_rdata;
          rxs <= e_rxs_rdata;
          st  <= e_qp_state;
          state <= S_TX2;
        end
        S_TX2: begin
          if (st == QPS_ERR || st == QPS_SQE)
            state <= S_FL0;
          else if (st != QPS_RTS && st != QPS_SQD)
            state <= S_END;
          else begin
            ret_rt <= S_DRAIN;
            state  <= S_RT0;
          end
        end
        S_DRAIN: begin
          if (rt_hit) begin
            did   <= 1'b1;
            state <= S_END;
          end else if (st == QPS_SQD && txs[`TXS_DRAIN_O] && t_sq_ci == t_sq_head) begin
            txs[`TXS_DRAIN_O] <= 1'b0;
            if ((c_flags & 8'(`HCA_QPC_FLAGS_SQD_NOTIFY_MASK)) != 0) begin
              s_evt <= 1'b1; s_evt_type <= 8'(`HCA_EVENT_SQ_DRAINED); s_evt_elem <= {{(32-LOG_MAX_QP){1'b0}}, qn};
            end
            did   <= 1'b1;
            state <= S_END;
          end else
            state <= S_CUR;
        end
        S_CUR: begin
          if (t_tx_wqe != t_sq_head)
            state <= S_SP0;
          else if (st != QPS_RTS || t_sq_head == e_qp_sq_pi)
            state <= S_END;
          else if ((t_sq_head - t_sq_ci) >= 16'(OUTS - 1))
            state <= S_END;
          else
            state <= S_SW0;
        end

        // ---- start the WQE at sq_head (model/req.c start_wqe)
        S_SW0: begin
          if (tw_v && tw_gen == qpc_gen && tw_qn == qn && tw_idx == t_sq_head)
            state <= S_SWG;
          else begin
            tw_v      <= 1'b0;
            d_f_start <= 1'b1;
            d_f_sel   <= 1'b0;
            d_f_addr  <= slot_addr(cfg[8*`HCA_QPC_SQ_BASE_OFF +: 64], t_sq_head, c_lsq, c_ls);
            fa        <= slot_addr(cfg[8*`HCA_QPC_SQ_BASE_OFF +: 64], t_sq_head, c_lsq, c_ls);
            d_f_len   <= 16'd1 << c_ls;
            state     <= S_SW1;
          end
        end
        S_SW1: if (d_f_done) begin
          if (d_f_err) begin
            s_fault <= 1'b1; s_fault_wr <= 1'b0; s_fault_client <= 8'(`HCA_DMA_CLIENT_WQE); s_fault_iova <= fa;
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            qe_has <= 1'b1; qe_evt <= 8'(`HCA_EVENT_QP_FATAL);
            did    <= 1'b1;
            ret_qe <= S_END;
            state  <= S_QE0;
          end else
            state <= S_SW2;
        end
        S_SW2: begin
          ow <= '0;
          ow[`OW_OP_O +: 3]    <= w_op[2:0];
          ow[`OW_FLAGS_O +: 4] <= w_flags[3:0];
          ow[`OW_LEN_O +: 32]  <= v_total[31:0];
          if (v_bad) begin
            cs_status <= 5'(`HCA_WC_LOC_QP_OP_ERR); cs_verr <= 8'(`HCA_VENDOR_ERR_BAD_WQE);
            state <= S_SWERR;
          end else if (v_toolong) begin
            cs_status <= 5'(`HCA_WC_LOC_LEN_ERR); cs_verr <= 8'(`HCA_VENDOR_ERR_LENGTH);
            state <= S_SWERR;
          end else if (v_udlong) begin
            cs_status <= 5'(`HCA_WC_LOC_QP_OP_ERR); cs_verr <= 8'(`HCA_VENDOR_ERR_BAD_WQE);
            state <= S_SWERR;
          end else if (!v_inline && w_nsge != 8'd0) begin
            sk_i  <= '0;
            state <= S_SWK0;
          end else begin
            tw_v <= 1'b1; tw_qn <= qn; tw_idx <= t_sq_head; tw_gen <= qpc_gen;
            state <= S_SWG;
          end
        end
        S_SWK0, S_SPK0: begin
          mr_key <= sk_key;
          mr_pdn <= c_pdn;
          mr_acc <= v_rdat ? 16'(`HCA_ACCESS_LOCAL_WRITE) : 16'h0;
          mr_va  <= sk_addr;
          mr_len <= {32'b0, sk_len};
          ret_mr <= (state == S_SWK0) ? S_SWK1 : S_SPK1;
          state  <= S_MR0;
        end
        S_SWK1, S_SPK1: begin
          if (mr_verr != 8'h0) begin
            cs_status <= 5'(`HCA_WC_LOC_PROT_ERR); cs_verr <= mr_verr;
            ow[`OW_ERR_O] <= 1'b1;
            ow[`OW_STATUS_O +: 5] <= 5'(`HCA_WC_LOC_PROT_ERR);
            ow[`OW_VERR_O +: 8] <= mr_verr;
            state <= (state == S_SWK1) ? S_SWERR : S_WFAIL;
          end else begin
            sk_i <= sk_i + 5'd1;
            if (8'(sk_i) + 8'd1 >= w_nsge) begin
              tw_v <= 1'b1; tw_qn <= qn; tw_gen <= qpc_gen;
              tw_idx <= (state == S_SWK1) ? t_sq_head : t_tx_wqe;
              state <= (state == S_SWK1) ? S_SWG : S_SP2;
            end else
              state <= (state == S_SWK1) ? S_SWK0 : S_SPK0;
          end
        end
        S_SWERR: begin
          // the WQE is tracked failed; the cursor stays on it until it retires
          s_ow_we    <= 1'b1;
          s_ow_waddr <= {qn, t_sq_head[LOG_OUTS-1:0]};
          s_ow_wdata <= ow | (`OW_W'(1) << `OW_ERR_O) | (`OW_W'(cs_status) << `OW_STATUS_O) |
                        (`OW_W'(cs_verr) << `OW_VERR_O);
          txs[`TXS_SQ_HEAD_O +: 16] <= t_sq_head + 16'd1;
          tw_v   <= 1'b0;
          ret_rt <= S_SWERR1;
          state  <= S_RT0;
        end
        S_SWERR1: begin
          did   <= 1'b1;
          state <= S_END;
        end
        S_SWG: begin
          if (((w_flags & 8'(`HCA_SEND_FENCE)) != 0 && t_rd_out != 5'd0) || win_closed(t_psn_next))
            state <= S_END;            // gated: waits for acknowledgements
          else begin : start
            /* verilator lint_off UNUSEDSIGNAL */
            logic [31:0] n;
            /* verilator lint_on UNUSEDSIGNAL */
            n = (ow[`OW_LEN_O +: 32] == 32'h0) ? 32'd1 :
                ((ow[`OW_LEN_O +: 32] + c_pmtu - 32'd1) >> c_pmtu_log);
            s_ow_we    <= 1'b1;
            s_ow_waddr <= {qn, t_sq_head[LOG_OUTS-1:0]};
            s_ow_wdata <= ow | (`OW_W'(t_psn_next) << `OW_FPSN_O) | (`OW_W'(n[23:0]) << `OW_NPSN_O);
            txs[`TXS_PSN_NEXT_O +: 24] <= t_psn_next + n[23:0];
            txs[`TXS_SQ_HEAD_O +: 16]  <= t_sq_head + 16'd1;
            txs[`TXS_TX_PKT_O +: 24]   <= '0;
            state <= S_SPW;
          end
        end
        S_SPW: state <= S_SP0;             // let the table write land

        // ---- transmit one packet of the cursor WQE (model/req.c send_packet)
        S_SP0: state <= S_SP1;             // outstanding-table read of tx_wqe
        S_SP1: begin
          ow <= ow_rdata;
          if (ow_rdata[`OW_ERR_O])
            state <= S_END;                // blocks the cursor until it retires
          else if (tw_v && tw_gen == qpc_gen && tw_qn == qn && tw_idx == t_tx_wqe)
            state <= S_SP2;
          else begin
            // the WQE's packets resume after another QP used the fetch buffer
            tw_v      <= 1'b0;
            d_f_start <= 1'b1;
            d_f_sel   <= 1'b0;
            d_f_addr  <= slot_addr(cfg[8*`HCA_QPC_SQ_BASE_OFF +: 64], t_tx_wqe, c_lsq, c_ls);
            fa        <= slot_addr(cfg[8*`HCA_QPC_SQ_BASE_OFF +: 64], t_tx_wqe, c_lsq, c_ls);
            d_f_len   <= 16'd1 << c_ls;
            state     <= S_SPF0;
          end
        end
        S_SPF0: if (d_f_done) begin
          if (d_f_err) begin
            s_fault <= 1'b1; s_fault_wr <= 1'b0; s_fault_client <= 8'(`HCA_DMA_CLIENT_WQE); s_fault_iova <= fa;
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            ow[`OW_ERR_O] <= 1'b1;
            ow[`OW_STATUS_O +: 5] <= 5'(`HCA_WC_LOC_PROT_ERR);
            ow[`OW_VERR_O +: 8] <= 8'(`HCA_VENDOR_ERR_DMA_FAULT);
            state <= S_WFAIL;
          end else if (!v_inline && w_nsge != 8'd0) begin
            sk_i  <= '0;
            state <= S_SPK0;
          end else begin
            tw_v <= 1'b1; tw_qn <= qn; tw_idx <= t_tx_wqe; tw_gen <= qpc_gen;
            state <= S_SP2;
          end
        end
        S_WFAIL: begin
          s_ow_we    <= 1'b1;
          s_ow_waddr <= {qn, t_tx_wqe[LOG_OUTS-1:0]};
          s_ow_wdata <= ow;
          ret_rt <= S_SWERR1;
          state  <= S_RT0;
        end
        S_SP2: begin : pkt
          logic [23:0] k, psn, fpsn, npsn;
          /* verilator lint_off UNUSEDSIGNAL */
          logic [31:0] off, rem, plen, len;
          /* verilator lint_on UNUSEDSIGNAL */
          logic        first, last, rc;
          logic [2:0]  wop;
          rc   = c_rc;
          fpsn = ow[`OW_FPSN_O +: 24];
          npsn = ow[`OW_NPSN_O +: 24];
          len  = ow[`OW_LEN_O +: 32];
          wop  = ow[`OW_OP_O +: 3];
          k    = t_tx_pkt;
          if (rc && t_tx_wqe == t_sq_ci && psn_lt(fpsn + k, t_una))
            k = t_una - fpsn;
          psn  = fpsn + k;
          off  = {8'b0, k} << c_pmtu_log;
          rem  = len - off;
          plen = (rem > c_pmtu) ? c_pmtu : rem;
          first = (k == 24'd0);
          last  = (k + 24'd1 == npsn);
          pk_k <= k; pk_off <= off; pk_plen <= plen[15:0]; pk_last <= last;
          if (win_closed(psn))
            state <= S_END;                                   // window closed
          else begin
            h_opcode   <= send_opcode(c_type, wop, first, last);
            h_psn      <= psn;
            h_ackreq   <= rc && (last || k[4:0] == 5'(`HCA_WIRE_ACKREQ_INTERVAL - 1));
            h_se       <= (last && (ow[`OW_FLAGS_O +: 4] & 4'(`HCA_SEND_SOLICITED)) != 0 &&
                           (wop == 3'(`HCA_WR_SEND) || wop == 3'(`HCA_WR_SEND_WITH_IMM) ||
                            wop == 3'(`HCA_WR_RDMA_WRITE_WITH_IMM))) ^ (dbg_bug == BUG_HDR_SE);
            h_pay_len  <= plen[15:0];
            h_va       <= w_raddr;
            h_rkey     <= w_rkey;
            h_rlen     <= len;
            h_imm      <= w_imm;
            h_smac     <= port_mac;
            h_sport    <= (16'(`HCA_WIRE_UDP_SPORT_BASE) | ({{(16-LOG_MAX_QP){1'b0}}, qn} & 16'(`HCA_WIRE_UDP_SPORT_MASK)))
                          ^ ((dbg_bug == BUG_UDP_SPORT) ? 16'h0001 : 16'h0);
            h_aeth_syn <= '0; h_aeth_msn <= '0;
            if (c_ud) begin
              h_dmac  <= w_uddmac;
              h_dip   <= w_uddip;
              h_hop   <= w_udhop;
              h_tclass <= w_udtc;
              h_dqpn  <= w_udqpn[23:0];
              h_qkey  <= w_udqkey[31] ? c_qkey : w_udqkey;
              h_deth_sqp <= {{(24-LOG_MAX_QP){1'b0}}, qn};
              gid_i   <= w_udsgid[3:0];
              h_sip   <= (w_udsgid < 8'(`HCA_CAP_GID_TBL_LEN)) ? 32'h1 : 32'h0;   // resolved in S_SP3
            end else begin
              h_dmac  <= cfg[8*`HCA_QPC_DMAC_OFF +: 48];
              h_dip   <= cfg[8*(`HCA_QPC_DGID_OFF + 12) +: 32];
              h_hop   <= cfg[8*`HCA_QPC_HOP_LIMIT_OFF +: 8];
              h_tclass <= cfg[8*`HCA_QPC_TRAFFIC_CLASS_OFF +: 8];
              h_dqpn  <= cfg[8*`HCA_QPC_DEST_QPN_OFF +: 24];
              h_qkey  <= '0;
              h_deth_sqp <= '0;
              gid_i   <= cfg[8*`HCA_QPC_SGID_INDEX_OFF +: 4];
              h_sip   <= (cfg[8*`HCA_QPC_SGID_INDEX_OFF +: 8] < 8'(`HCA_CAP_GID_TBL_LEN)) ? 32'h1 : 32'h0;
            end
            state <= S_SP3;
          end
        end
        S_SP3: begin
          // source IP from the GID table (index < table size, else 0)
          if (h_sip != 32'h0) h_sip <= e_gid[127:96];
          if (tx_free) begin
            if ((w_flags & 8'(`HCA_SEND_INLINE)) != 0) begin
              if (pk_plen != 16'd0) begin
                d_l_start <= 1'b1;
                d_l_src   <= 16'(`HCA_WQE_DATA_OFF) + pk_off[15:0];
                d_l_len   <= pk_plen;
                d_l_dst   <= {8'b0, g_hdr_len};
              end
              d_g_close <= 1'b1;
              state <= S_SP4;
            end else begin
              gw_i    <= '0;
              gw_offr <= pk_off;
              gw_rem  <= pk_plen;
              gw_dst  <= {8'b0, g_hdr_len};
              state   <= S_GW;
            end
          end
        end
        S_GW: begin : gwalk
          logic [31:0] li, chunk;
          li = gw_len;
          if (gw_rem == 16'd0 || 8'(gw_i) >= w_nsge) begin
            d_g_close <= 1'b1;
            state <= S_SP4;
          end else if (gw_offr >= li) begin
            gw_offr <= gw_offr - li;
            gw_i    <= gw_i + 5'd1;
          end else begin
            chunk = li - gw_offr;
            if (chunk > {16'b0, gw_rem}) chunk = {16'b0, gw_rem};
            d_g_push <= 1'b1;
            d_g_iova <= tx_iova_gw + {32'b0, gw_offr};
            d_g_len  <= chunk[15:0];
            d_g_dst  <= gw_dst;
            d_g_idx  <= gw_i;
            gw_dst   <= gw_dst + chunk[15:0];
            gw_rem   <= gw_rem - chunk[15:0];
            gw_offr  <= '0;
            gw_i     <= gw_i + 5'd1;
          end
        end
        S_SP4: if (d_g_done) begin
          if (d_g_fault) begin
            s_fault <= 1'b1; s_fault_wr <= 1'b0; s_fault_client <= 8'(`HCA_DMA_CLIENT_PAYLOAD);
            s_fault_iova <= d_g_fault_iova;
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            ow[`OW_ERR_O] <= 1'b1;
            ow[`OW_STATUS_O +: 5] <= 5'(`HCA_WC_LOC_PROT_ERR);
            ow[`OW_VERR_O +: 8] <= 8'(`HCA_VENDOR_ERR_DMA_FAULT);
            state <= S_WFAIL;
          end else begin
            if (port_up) t_go <= 1'b1;     // a frame sent while the link is down is lost
            if (pk_last) begin
              txs[`TXS_TX_WQE_O +: 16] <= t_tx_wqe + 16'd1;
              txs[`TXS_TX_PKT_O +: 24] <= '0;
            end else
              txs[`TXS_TX_PKT_O +: 24] <= pk_k + 24'd1;
            if (!c_rc && pk_last) begin
              // UC/UD: complete once the last packet is sent (the WQE is the oldest)
              cs_status <= '0; cs_verr <= '0; cs_force <= 1'b0;
              ret_cs <= S_SP6;
              state  <= S_CS0;
            end else begin
              did   <= 1'b1;
              state <= S_END;
            end
          end
        end
        S_SP6: begin
          txs[`TXS_UNA_O +: 24] <= t_psn_next;
          did   <= 1'b1;
          state <= S_END;
        end

        // ---- retire the oldest WQE if it failed locally (model/comp.c model_comp_retire)
        S_RT0: begin
          rt_hit <= 1'b0;
          if (t_sq_ci != t_sq_head) state <= S_RTR;
          else state <= ret_rt;
        end
        S_RTR: state <= S_RT1;            // outstanding-table read of sq_ci
        S_RT1: begin
          ow <= ow_rdata;
          if (ow_rdata[`OW_ERR_O]) begin
            // Publish the error state before the CQE becomes visible: a driver
            // that polls the error CQE and then queries the QP sees ERR/SQE.
            // The local `st` keeps the old state, so the event decisions
            // below (QP_FATAL on a lost CQE, LAST_WQE_REACHED) stay as in
            // the model, which posts the CQE first and then moves the QP.
            if (c_rc) begin
              if (st != QPS_ERR && st != QPS_RESET) begin
                s_qp_set <= 1'b1; s_qp_val <= QPS_ERR;
              end
            end else if (st == QPS_RTS || st == QPS_SQD) begin
              s_qp_set <= 1'b1; s_qp_val <= QPS_SQE;
            end
            cs_status <= ow_rdata[`OW_STATUS_O +: 5];
            cs_verr   <= ow_rdata[`OW_VERR_O +: 8];
            cs_force  <= 1'b0;
            ret_cs    <= S_RT2;
            state     <= S_CS0;
          end else
            state <= ret_rt;
        end
        S_RT2: begin
          rt_hit <= 1'b1;
          if (c_rc) begin
            qe_has <= 1'b0;
            ret_qe <= ret_rt;
            state  <= S_QE0;
          end else begin
            if (st == QPS_RTS || st == QPS_SQD) begin
              st <= QPS_SQE;
              s_qp_set <= 1'b1; s_qp_val <= QPS_SQE;
              txs[`TXS_DRAIN_O] <= 1'b0;
              s_busy_set <= 1'b1;
            end
            state <= ret_rt;
          end
        end

        // ---- flush (model/qp.c model_qp_flush)
        S_FL0: begin
          if (t_sq_ci != e_qp_sq_pi) begin
            cqe <= mk_cqe(32'h0, 32'h0, {{(32-LOG_MAX_QP){1'b0}}, qn}, 32'h0, t_sq_ci,
                          8'(`HCA_WC_WR_FLUSH_ERR), 8'(`HCA_WC_OP_SEND), 8'h0, 8'(`HCA_VENDOR_ERR_FLUSH), 8'h0);
            txs[`TXS_SQ_CI_O +: 16] <= t_sq_ci + 16'd1;
            did     <= 1'b1;
            cq_n    <= c_send_cqn;
            cqe_sol <= 1'b0;
            ret_cq  <= S_FL0B;
            state   <= S_CQ0;
          end else begin
            txs[`TXS_SQ_HEAD_O +: 16] <= t_sq_ci;
            txs[`TXS_TX_WQE_O +: 16]  <= t_sq_ci;
            txs[`TXS_TX_PKT_O +: 24]  <= '0;
            txs[`TXS_RD_OUT_O +: 5]   <= '0;
            txs[`TXS_UNA_O +: 24]     <= t_psn_next;
            state <= (st != QPS_ERR) ? S_FLEND : S_FL1;
          end
        end
        S_FL0B: begin
          if (cq_lost && st != QPS_ERR) begin
            qe_has <= 1'b1; qe_evt <= 8'(`HCA_EVENT_QP_FATAL);
            ret_qe <= S_FL0;
            state  <= S_QE0;
          end else
            state <= S_FL0;
        end
        S_FL1: begin
          if (r_rwqe_v) begin
            cqe <= mk_cqe(32'h0, 32'h0, {{(32-LOG_MAX_QP){1'b0}}, qn}, 32'h0, r_rwqe_idx,
                          8'(`HCA_WC_WR_FLUSH_ERR), 8'(`HCA_WC_OP_RECV), 8'h0, 8'(`HCA_VENDOR_ERR_FLUSH),
                          {7'b0, r_rwqe_srq});
            rxs[`RXS_RWQE_V_O] <= 1'b0;
            did    <= 1'b1;
            cqe_sol <= 1'b0;
            ret_cr <= S_FL2;
            state  <= S_CR0;
          end else
            state <= S_FL2;
        end
        S_FL2: begin
          rxs[`RXS_MSG_O +: 2] <= `RESP_MSG_NONE;
          if (!c_srq && r_rq_ci != e_qp_rq_pi) begin
            cqe <= mk_cqe(32'h0, 32'h0, {{(32-LOG_MAX_QP){1'b0}}, qn}, 32'h0, r_rq_ci,
                          8'(`HCA_WC_WR_FLUSH_ERR), 8'(`HCA_WC_OP_RECV), 8'h0, 8'(`HCA_VENDOR_ERR_FLUSH), 8'h0);
            rxs[`RXS_RQ_CI_O +: 16] <= r_rq_ci + 16'd1;
            did     <= 1'b1;
            cqe_sol <= 1'b0;
            ret_cr  <= S_FL2;
            state   <= S_CR0;
          end else
            state <= S_FLEND;
        end
        S_FLEND: state <= S_END;

        // ---- end of a QP step: progress keeps it busy; state written back
        S_END: begin
          if (did) s_busy_set <= 1'b1;
          s_txs_we <= 1'b1;
          s_rxs_we <= 1'b1;
          state <= S_IDLE;
        end

        // -------------------------------------------------- received frame (model/recv.c)
        S_RX0: begin
          s_stat[`HCA_STAT_RX_FRAMES] <= 1'b1;
          s_rx_bytes <= {16'b0, r_len};
          qn   <= p_dqpn[LOG_MAX_QP-1:0];
          if (!enabled || !port_up) begin
            s_stat[`HCA_STAT_RX_DROP_PORT_DOWN] <= 1'b1;
            r_release <= 1'b1;
            state <= S_IDLE;
          end else if (p_reason == `RXD_TOO_LONG || (p_reason != `RXD_NONE && p_reason < `RXD_ICRC &&
                                                     p_reason != `RXD_HDR_LEN)) begin
            s_stat[`HCA_STAT_RX_DROP_MALFORMED] <= 1'b1;
            r_release <= 1'b1;
            state <= S_IDLE;
          end else if (p_dmac != port_mac || !e_ip_ours) begin
            s_stat[`HCA_STAT_RX_DROP_ADDR] <= 1'b1;
            r_release <= 1'b1;
            state <= S_IDLE;
          end else if (p_reason == `RXD_ICRC) begin
            s_stat[`HCA_STAT_RX_DROP_ICRC] <= 1'b1;
            r_release <= 1'b1;
            state <= S_IDLE;
          end else if (p_reason != `RXD_NONE) begin
            s_stat[`HCA_STAT_RX_DROP_MALFORMED] <= 1'b1;
            r_release <= 1'b1;
            state <= S_IDLE;
          end else if (p_dqpn < 24'(`HCA_QPN_GSI) || p_dqpn >= 24'(NQP)) begin
            s_stat[`HCA_STAT_RX_DROP_NO_QP] <= 1'b1;
            r_release <= 1'b1;
            state <= S_IDLE;
          end else
            state <= S_RX1;
        end
        S_RX1: begin
          cfg <= e_qpc_rdata;
          txs <= e_txs_rdata;
          rxs <= e_rxs_rdata;
          st  <= e_qp_state;
          srq_n <= e_qpc_rdata[8*`HCA_QPC_SRQN_OFF +: LOG_MAX_SRQ];
          state <= S_RX2;
        end
        S_RX2: begin
          if (st == QPS_RESET || c_type != p_qpt || st == QPS_INIT || st == QPS_ERR) begin
            s_stat[`HCA_STAT_RX_DROP_NO_QP] <= 1'b1;
            r_release <= 1'b1;
            state <= S_IDLE;
          end else if (c_ud && p_deth_qkey != c_qkey) begin
            s_stat[`HCA_STAT_RX_DROP_QKEY] <= 1'b1;
            r_release <= 1'b1;
            state <= S_IDLE;
          end else begin
            s_busy_set <= 1'b1;
            if (!c_ud && st == QPS_RTR && !r_commest) begin
              rxs[`RXS_COMMEST_O] <= 1'b1;
              s_evt <= 1'b1; s_evt_type <= 8'(`HCA_EVENT_COMM_EST); s_evt_elem <= {{(32-LOG_MAX_QP){1'b0}}, qn};
            end
            state <= ro_req ? S_RS0 : S_CP0;
          end
        end
        S_RXEND: begin
          s_txs_we <= 1'b1;
          s_rxs_we <= 1'b1;
          r_release <= 1'b1;
          state <= S_IDLE;
        end

        // -------------------------------------------------- completer (model/comp.c)
        S_CP0: begin
          // outstanding-table read of sq_ci is issued in this state
          if (!c_rc || (st != QPS_RTS && st != QPS_SQD) || t_sq_ci == t_sq_head)
            state <= S_RXEND;
          else
            state <= S_CP1;
        end
        S_CP1: begin
          if (ow_rdata[`OW_ERR_O] || psn_lt(p_psn, t_una) || !psn_lt(p_psn, t_psn_next))
            state <= S_RXEND;              // nothing outstanding / not a PSN in flight
          else if (!p_info[`OPI_ACK])
            state <= S_CPEND;              // READ responses, atomic ACKs: next slice
          else begin
            cp_moved <= 1'b0;
            // ACK covers its PSN; NAKs (any kind) cover the PSNs before theirs
            cp_last <= (p_aeth_syn[7:5] == 3'(`HCA_AETH_TYPE_ACK)) ? p_psn : p_psn - 24'd1;
            state <= S_AT0;
          end
        end
        S_AT0: begin
          if (t_sq_ci != t_sq_head && st != QPS_ERR) state <= S_AT1;   // read outs[sq_ci]
          else state <= S_AT2;
        end
        S_AT1: begin : ackthru
          logic [23:0] wlast;
          wlast = ow_rdata[`OW_FPSN_O +: 24] + ow_rdata[`OW_NPSN_O +: 24] - 24'd1;
          if (ow_rdata[`OW_ERR_O])
            state <= S_AT2;
          else if (psn_lt(cp_last, wlast)) begin
            if (psn_lt(t_una, cp_last + 24'd1)) begin
              txs[`TXS_UNA_O +: 24] <= cp_last + 24'd1;
              cp_moved <= 1'b1;
            end
            state <= S_AT2;
          end else begin
            txs[`TXS_UNA_O +: 24] <= wlast + 24'd1;
            ow <= ow_rdata;
            cp_moved  <= 1'b1;
            cs_status <= '0; cs_verr <= '0; cs_force <= 1'b0;
            ret_cs <= S_AT0;
            state  <= S_CS0;
          end
        end
        S_AT2: begin
          if (t_sq_ci == t_sq_head) txs[`TXS_UNA_O +: 24] <= t_psn_next;
          if (cp_moved) s_busy_set <= 1'b1;
          state <= S_CP2;
        end
        S_CP2: begin
          // error NAKs fail the WQE holding their PSN (model/comp.c nak_error);
          // RNR and PSN-sequence NAKs retry (next slice: timers and go-back-N)
          if (p_aeth_syn[7:5] == 3'(`HCA_AETH_TYPE_NAK) && st != QPS_ERR &&
              (p_aeth_syn[4:0] == 5'(`HCA_AETH_NAK_INVALID_REQUEST) ||
               p_aeth_syn[4:0] == 5'(`HCA_AETH_NAK_REMOTE_ACCESS_ERR) ||
               p_aeth_syn[4:0] == 5'(`HCA_AETH_NAK_REMOTE_OP_ERR))) begin
            case (p_aeth_syn[4:0])
              5'(`HCA_AETH_NAK_INVALID_REQUEST): begin
                ne_status <= 5'(`HCA_WC_REM_INV_REQ_ERR); ne_verr <= 8'(`HCA_VENDOR_ERR_NAK_INV_REQ);
              end
              5'(`HCA_AETH_NAK_REMOTE_ACCESS_ERR): begin
                ne_status <= 5'(`HCA_WC_REM_ACCESS_ERR); ne_verr <= 8'(`HCA_VENDOR_ERR_NAK_REM_ACCESS);
              end
              default: begin
                ne_status <= 5'(`HCA_WC_REM_OP_ERR); ne_verr <= 8'(`HCA_VENDOR_ERR_NAK_REM_OP);
              end
            endcase
            state <= S_NE0;
          end else
            state <= S_CPEND;
        end
        S_NE0: begin
          if (t_sq_ci != t_sq_head) state <= S_NE1;       // read outs[sq_ci]
          else begin
            qe_has <= 1'b0; ret_qe <= S_CPEND; state <= S_QE0;
          end
        end
        S_NE1: begin
          ow <= ow_rdata;
          if (ow_rdata[`OW_ERR_O]) begin
            qe_has <= 1'b0; ret_qe <= S_CPEND; state <= S_QE0;
          end else if (psn_lt(p_psn, ow_rdata[`OW_FPSN_O +: 24] + ow_rdata[`OW_NPSN_O +: 24])) begin
            cs_status <= ne_status; cs_verr <= ne_verr; cs_force <= 1'b0;
            ret_cs <= S_NE2;
            state  <= S_CS0;
          end else begin
            cs_status <= 5'(`HCA_WC_WR_FLUSH_ERR); cs_verr <= 8'(`HCA_VENDOR_ERR_FLUSH); cs_force <= 1'b1;
            ret_cs <= S_NE0;
            state  <= S_CS0;
          end
        end
        S_NE2: begin
          qe_has <= 1'b0; ret_qe <= S_CPEND; state <= S_QE0;
        end
        S_CPEND: begin
          ret_rt <= S_CPEND2;
          state  <= S_RT0;
        end
        S_CPEND2: begin
          s_busy_set <= 1'b1;
          state <= S_RXEND;
        end

        // -------------------------------------------------- responder (model/resp.c)
        S_RS0: begin
          if (st != QPS_RTR && st != QPS_RTS && st != QPS_SQD && st != QPS_SQE)
            state <= S_RXEND;
          else if (c_type == QPT_UC)
            state <= S_UC0;
          else if (c_ud)
            state <= S_UD0;
          else if (psn_lt(p_psn, r_epsn)) begin
            // duplicate: re-ACK with ePSN - 1 (READ/atomic replay: next slice)
            s_stat[`HCA_STAT_RX_DUP] <= 1'b1;
            if (ro_read || ro_atomic)
              state <= S_RXEND;
            else begin
              ak_psn <= r_epsn - 24'd1; ak_syn <= AETH_ACK;
              ret_ak <= S_RXEND;
              state  <= S_AK0;
            end
          end else if (p_psn != r_epsn) begin
            s_stat[`HCA_STAT_RX_SEQ_ERR] <= 1'b1;
            if (!r_seqnak) begin
              rxs[`RXS_SEQNAK_O] <= 1'b1;
              ak_psn <= r_epsn; ak_syn <= AETH_NAKB | 8'(`HCA_AETH_NAK_PSN_SEQ_ERR);
              ret_ak <= S_RXEND;
              state  <= S_AK0;
            end else
              state <= S_RXEND;
          end else begin
            rxs[`RXS_SEQNAK_O] <= 1'b0;
            state <= S_RS1;
          end
        end
        S_RS1: begin
          if (!seq_ok || !len_ok) begin
            rs_code <= 8'(`HCA_AETH_NAK_INVALID_REQUEST);
            state <= S_NAK0;
          end else if ((ro_write && ro_start && (c_acc & 16'(`HCA_ACCESS_REMOTE_WRITE)) == 0) ||
                       (ro_read && (c_acc & 16'(`HCA_ACCESS_REMOTE_READ)) == 0) ||
                       (ro_atomic && (c_acc & 16'(`HCA_ACCESS_REMOTE_ATOMIC)) == 0)) begin
            rs_code <= 8'(`HCA_AETH_NAK_REMOTE_ACCESS_ERR);
            state <= S_NAK0;
          end else if (ro_read || ro_atomic) begin
            // RDMA READ and atomics at the responder: next slice
            rs_code <= 8'(`HCA_AETH_NAK_INVALID_REQUEST);
            state <= S_NAK0;
          end else if (((ro_send && ro_start) || (ro_write && ro_imm)) && !r_rwqe_v) begin
            ret_rq <= S_RS2;
            state  <= S_RQ0;
          end else begin
            rq_res <= 2'd1;
            state  <= S_RS3;
          end
        end
        S_RS2: begin
          if (rq_res == 2'd0) begin
            ak_psn <= p_psn;
            ak_syn <= AETH_RNRB | {3'b0, cfg[8*`HCA_QPC_MIN_RNR_TIMER_OFF +: 5]};
            ret_ak <= S_RXEND;
            state  <= S_AK0;
          end else if (rq_res == 2'd2) begin
            rs_code <= 8'(`HCA_AETH_NAK_REMOTE_OP_ERR);
            if (rq_verr == 8'(`HCA_VENDOR_ERR_BAD_WQE)) begin
              rc_status <= 5'(`HCA_WC_LOC_QP_OP_ERR); rc_verr <= rq_verr; rc_op <= 8'(`HCA_WC_OP_RECV);
              rc_len <= '0; rc_imm <= 1'b0; rc_flags <= '0; rc_src <= '0;
              ret_rc <= S_NAK0;
              state  <= S_RC0;
            end else
              state <= S_NAK0;
          end else
            state <= S_RS3;
        end
        S_RS3: begin
          if (ro_send && ({1'b0, r_rwqe_off} + {17'b0, p_pay_len}) > {1'b0, r_rwqe_tot}) begin
            rs_code <= 8'(`HCA_AETH_NAK_INVALID_REQUEST);
            rc_status <= 5'(`HCA_WC_LOC_LEN_ERR); rc_verr <= 8'(`HCA_VENDOR_ERR_LENGTH);
            rc_op <= 8'(`HCA_WC_OP_RECV); rc_len <= '0; rc_imm <= 1'b0; rc_flags <= '0; rc_src <= '0;
            ret_rc <= S_NAK0;
            state  <= S_RC0;
          end else if (ro_write && ro_start) begin
            mr_key <= p_reth_rkey; mr_pdn <= c_pdn; mr_acc <= 16'(`HCA_ACCESS_REMOTE_WRITE);
            mr_va  <= p_reth_va; mr_len <= {32'b0, p_reth_len};
            ret_mr <= S_RS4;
            state  <= S_MR0;
          end else
            state <= S_RS5;
        end
        S_RS4: begin
          if (mr_verr != 8'h0) begin
            rs_code <= 8'(`HCA_AETH_NAK_REMOTE_ACCESS_ERR);
            state <= S_NAK0;
          end else begin
            rs_iova <= mr_iova;
            state <= S_RS5;
          end
        end
        S_RS5: begin
          if (ro_send) begin
            sc_off <= r_rwqe_off; sc_n <= p_pay_len; sc_src <= {8'b0, p_pay_off}; sc_grh <= 1'b0;
            ret_sc <= S_RS6;
            state  <= S_SC0;
          end else begin
            // RDMA WRITE payload to VA + offset (one DMA write)
            if (ro_start) begin
              rxs[`RXS_WR_LEN_O +: 32]  <= p_reth_len;
              rxs[`RXS_WR_IOVA_O +: 64] <= rs_iova;
              rxs[`RXS_MSG_LEN_O +: 32] <= '0;
            end
            d_w_start <= 1'b1;
            d_w_addr  <= (ro_start ? rs_iova : r_wr_iova + {32'b0, r_msg_len});
            d_w_len   <= p_pay_len;
            d_w_rxbuf <= 1'b1;
            d_w_off   <= RXA'({r_slot, {(RX_SLOT_AW+LW){1'b0}}}) + RXA'(p_pay_off);
            fa        <= (ro_start ? rs_iova : r_wr_iova + {32'b0, r_msg_len});
            state     <= S_WRP0;
          end
        end
        S_RS6: begin
          // after the SEND scatter
          if (sc_verr != 8'h0) begin
            rs_code <= 8'(`HCA_AETH_NAK_REMOTE_ACCESS_ERR);
            rc_status <= 5'(`HCA_WC_LOC_PROT_ERR); rc_verr <= sc_verr; rc_op <= 8'(`HCA_WC_OP_RECV);
            rc_len <= '0; rc_imm <= 1'b0; rc_flags <= '0; rc_src <= '0;
            ret_rc <= S_NAK0;
            state  <= S_RC0;
          end else begin
            rxs[`RXS_EPSN_O +: 24] <= r_epsn + 24'd1;
            if (ro_end) begin
              rxs[`RXS_MSN_O +: 24] <= r_msn + 24'd1;
              rxs[`RXS_MSG_O +: 2]  <= `RESP_MSG_NONE;
              rc_status <= '0; rc_verr <= '0; rc_op <= 8'(`HCA_WC_OP_RECV); rc_len <= r_rwqe_off;
              rc_imm <= ro_imm; rc_flags <= '0; rc_src <= '0;
              ret_rc <= S_RS9;
              state  <= S_RC0;
            end else begin
              rxs[`RXS_MSG_O +: 2] <= `RESP_MSG_SEND;
              state <= S_RS9;
            end
          end
        end
        S_WRP0: if (d_w_done) begin
          if (d_w_err) begin
            s_fault <= 1'b1; s_fault_wr <= 1'b1; s_fault_client <= 8'(`HCA_DMA_CLIENT_PAYLOAD); s_fault_iova <= fa;
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            if (c_type == QPT_UC) begin
              // UC: the message is dropped
              if (r_rwqe_v && ro_imm) begin
                rc_status <= 5'(`HCA_WC_LOC_PROT_ERR); rc_verr <= 8'(`HCA_VENDOR_ERR_DMA_FAULT);
                rc_op <= 8'(`HCA_WC_OP_RECV_RDMA_WITH_IMM); rc_len <= '0; rc_imm <= 1'b0; rc_flags <= '0;
                rc_src <= '0;
                ret_rc <= S_RXEND;
                state  <= S_RC0;
              end else
                state <= S_RXEND;
              rxs[`RXS_MSG_O +: 2] <= `RESP_MSG_NONE;
              rxs[`RXS_RWQE_OFF_O +: 32] <= '0;
              rxs[`RXS_UCDROP_O] <= 1'b1;
            end else begin
              rs_code <= 8'(`HCA_AETH_NAK_REMOTE_ACCESS_ERR);
              if (r_rwqe_v && ro_imm) begin
                rc_status <= 5'(`HCA_WC_LOC_PROT_ERR); rc_verr <= 8'(`HCA_VENDOR_ERR_DMA_FAULT);
                rc_op <= 8'(`HCA_WC_OP_RECV_RDMA_WITH_IMM); rc_len <= '0; rc_imm <= 1'b0; rc_flags <= '0;
                rc_src <= '0;
                ret_rc <= S_NAK0;
                state  <= S_RC0;
              end else
                state <= S_NAK0;
            end
          end else begin
            rxs[`RXS_MSG_LEN_O +: 32] <= (ro_start ? 32'h0 : r_msg_len) + {16'b0, p_pay_len};
            if (c_type != QPT_UC) rxs[`RXS_EPSN_O +: 24] <= r_epsn + 24'd1;
            if (ro_end) begin
              if (c_type != QPT_UC) rxs[`RXS_MSN_O +: 24] <= r_msn + 24'd1;
              rxs[`RXS_MSG_O +: 2] <= `RESP_MSG_NONE;
              if (ro_imm) begin
                rc_status <= '0; rc_verr <= '0; rc_op <= 8'(`HCA_WC_OP_RECV_RDMA_WITH_IMM);
                rc_len <= ro_start ? p_reth_len : r_wr_len; rc_imm <= 1'b1; rc_flags <= '0; rc_src <= '0;
                ret_rc <= (c_type == QPT_UC) ? S_RXEND : S_RS9;
                state  <= S_RC0;
              end else
                state <= (c_type == QPT_UC) ? S_RXEND : S_RS9;
            end else begin
              rxs[`RXS_MSG_O +: 2] <= `RESP_MSG_WRITE;
              state <= (c_type == QPT_UC) ? S_RXEND : S_RS9;
            end
          end
        end
        S_RS9: begin
          if (p_ackreq && dbg_bug != BUG_DROP_ACK) begin
            ak_psn <= p_psn; ak_syn <= AETH_ACK;
            ret_ak <= S_RXEND;
            state  <= S_AK0;
          end else
            state <= S_RXEND;
        end
        // NAK invalid request / remote access / remote operational: QP to ERR
        S_NAK0: begin
          ak_psn <= p_psn; ak_syn <= AETH_NAKB | rs_code;
          ret_ak <= S_NAK1;
          state  <= S_AK0;
        end
        S_NAK1: begin
          qe_has <= 1'b1;
          qe_evt <= (rs_code == 8'(`HCA_AETH_NAK_INVALID_REQUEST)) ? 8'(`HCA_EVENT_QP_REQ_ERR) :
                    (rs_code == 8'(`HCA_AETH_NAK_REMOTE_ACCESS_ERR)) ? 8'(`HCA_EVENT_QP_ACCESS_ERR) :
                    8'(`HCA_EVENT_QP_FATAL);
          ret_qe <= S_RXEND;
          state  <= S_QE0;
        end

        // ---- UC responder (model/resp.c uc_responder)
        S_UC0: begin : uc0
          logic abort, drop;
          abort = 1'b0;
          drop  = 1'b0;
          if (psn_lt(p_psn, r_epsn))
            drop = 1'b1;                                   // duplicate
          else begin
            if (p_psn != r_epsn && r_msg != `RESP_MSG_NONE) abort = 1'b1;   // PSN gap
            rxs[`RXS_EPSN_O +: 24] <= p_psn + 24'd1;
            if (ro_start) begin
              if (r_msg != `RESP_MSG_NONE) abort = 1'b1;
            end else if (abort || r_ucdrop || r_msg == `RESP_MSG_NONE || ((r_msg == `RESP_MSG_SEND) != ro_send)) begin
              // a gap just aborted the message (uc_drop set): the middle/last is dropped too
              abort = 1'b1;
              drop  = 1'b1;
            end
          end
          if (abort) begin
            rxs[`RXS_MSG_O +: 2] <= `RESP_MSG_NONE;
            rxs[`RXS_RWQE_OFF_O +: 32] <= '0;
          end
          if (drop) begin
            if (abort) rxs[`RXS_UCDROP_O] <= 1'b1;
            state <= S_RXEND;
          end else begin
            if (ro_start) rxs[`RXS_UCDROP_O] <= 1'b0;
            else if (abort) rxs[`RXS_UCDROP_O] <= 1'b1;
            state <= S_UC1;
          end
        end
        S_UC1: begin
          // r_* reflect the S_UC0 updates here
          if (!len_ok || (ro_write && ro_start && (c_acc & 16'(`HCA_ACCESS_REMOTE_WRITE)) == 0)) begin
            rxs[`RXS_MSG_O +: 2] <= `RESP_MSG_NONE;
            rxs[`RXS_RWQE_OFF_O +: 32] <= '0;
            rxs[`RXS_UCDROP_O] <= 1'b1;
            state <= S_RXEND;
          end else if (((ro_send && ro_start) || (ro_write && ro_imm)) && !r_rwqe_v) begin
            ret_rq <= S_UC2;
            state  <= S_RQ0;
          end else begin
            rq_res <= 2'd1;
            state <= S_UC2;
          end
        end
        S_UC2: begin
          if (rq_res == 2'd0) begin
            rxs[`RXS_MSG_O +: 2] <= `RESP_MSG_NONE;
            rxs[`RXS_RWQE_OFF_O +: 32] <= '0;
            rxs[`RXS_UCDROP_O] <= 1'b1;
            state <= S_RXEND;
          end else if (rq_res == 2'd2) begin
            if (rq_verr == 8'(`HCA_VENDOR_ERR_BAD_WQE)) begin
              rxs[`RXS_MSG_O +: 2] <= `RESP_MSG_NONE;
              rxs[`RXS_RWQE_OFF_O +: 32] <= '0;
              rxs[`RXS_UCDROP_O] <= 1'b1;
              rc_status <= 5'(`HCA_WC_LOC_QP_OP_ERR); rc_verr <= rq_verr; rc_op <= 8'(`HCA_WC_OP_RECV);
              rc_len <= '0; rc_imm <= 1'b0; rc_flags <= '0; rc_src <= '0;
              ret_rc <= S_RXEND;
              state  <= S_RC0;
            end else begin
              qe_has <= 1'b1; qe_evt <= 8'(`HCA_EVENT_QP_FATAL);
              ret_qe <= S_RXEND;
              state  <= S_QE0;
            end
          end else if (ro_send) begin
            if (({1'b0, r_rwqe_off} + {17'b0, p_pay_len}) > {1'b0, r_rwqe_tot}) begin
              rxs[`RXS_MSG_O +: 2] <= `RESP_MSG_NONE;
              rxs[`RXS_RWQE_OFF_O +: 32] <= '0;
              rxs[`RXS_UCDROP_O] <= 1'b1;
              rc_status <= 5'(`HCA_WC_LOC_LEN_ERR); rc_verr <= 8'(`HCA_VENDOR_ERR_LENGTH);
              rc_op <= 8'(`HCA_WC_OP_RECV); rc_len <= '0; rc_imm <= 1'b0; rc_flags <= '0; rc_src <= '0;
              ret_rc <= S_RXEND;
              state  <= S_RC0;
            end else begin
              sc_off <= r_rwqe_off; sc_n <= p_pay_len; sc_src <= {8'b0, p_pay_off}; sc_grh <= 1'b0;
              ret_sc <= S_UC3;
              state  <= S_SC0;
            end
          end else if (ro_start) begin
            mr_key <= p_reth_rkey; mr_pdn <= c_pdn; mr_acc <= 16'(`HCA_ACCESS_REMOTE_WRITE);
            mr_va  <= p_reth_va; mr_len <= {32'b0, p_reth_len};
            ret_mr <= S_UC4;
            state  <= S_MR0;
          end else
            state <= S_UC5;
        end
        S_UC3: begin
          if (sc_verr != 8'h0) begin
            rxs[`RXS_MSG_O +: 2] <= `RESP_MSG_NONE;
            rxs[`RXS_UCDROP_O] <= 1'b1;
            rc_status <= 5'(`HCA_WC_LOC_PROT_ERR); rc_verr <= sc_verr; rc_op <= 8'(`HCA_WC_OP_RECV);
            rc_len <= '0; rc_imm <= 1'b0; rc_flags <= '0; rc_src <= '0;
            ret_rc <= S_UC6;
            state  <= S_RC0;
          end else if (ro_end) begin
            rxs[`RXS_MSG_O +: 2] <= `RESP_MSG_NONE;
            rc_status <= '0; rc_verr <= '0; rc_op <= 8'(`HCA_WC_OP_RECV); rc_len <= r_rwqe_off;
            rc_imm <= ro_imm; rc_flags <= '0; rc_src <= '0;
            ret_rc <= S_RXEND;
            state  <= S_RC0;
          end else begin
            rxs[`RXS_MSG_O +: 2] <= `RESP_MSG_SEND;
            state <= S_RXEND;
          end
        end
        S_UC6: begin
          rxs[`RXS_RWQE_OFF_O +: 32] <= '0;
          state <= S_RXEND;
        end
        S_UC4: begin
          if (mr_verr != 8'h0) begin
            rxs[`RXS_MSG_O +: 2] <= `RESP_MSG_NONE;
            rxs[`RXS_RWQE_OFF_O +: 32] <= '0;
            rxs[`RXS_UCDROP_O] <= 1'b1;
            state <= S_RXEND;
          end else begin
            rs_iova <= mr_iova;
            state <= S_UC5;
          end
        end
        S_UC5: state <= S_RS5;       // the WRITE payload path is shared with RC

        // ---- UD responder (model/resp.c ud_responder)
        S_UD0: begin
          if ({16'b0, p_pay_len} > c_pmtu)
            state <= S_RXEND;
          else if (!r_rwqe_v) begin
            ret_rq <= S_UD1;
            state  <= S_RQ0;
          end else begin
            rq_res <= 2'd1;
            state  <= S_UD1;
          end
        end
        S_UD1: begin
          rc_imm <= 1'b0; rc_flags <= '0; rc_src <= '0; rc_len <= '0; rc_op <= 8'(`HCA_WC_OP_RECV);
          if (rq_res == 2'd0)
            state <= S_RXEND;
          else if (rq_res == 2'd2) begin
            if (rq_verr == 8'(`HCA_VENDOR_ERR_BAD_WQE)) begin
              rc_status <= 5'(`HCA_WC_LOC_QP_OP_ERR); rc_verr <= rq_verr;
              ret_rc <= S_RXEND;
              state  <= S_RC0;
            end else begin
              qe_has <= 1'b1; qe_evt <= 8'(`HCA_EVENT_QP_FATAL);
              ret_qe <= S_RXEND;
              state  <= S_QE0;
            end
          end else if (33'(`HCA_GRH_SIZE) + {17'b0, p_pay_len} > {1'b0, r_rwqe_tot}) begin
            rc_status <= 5'(`HCA_WC_LOC_LEN_ERR); rc_verr <= 8'(`HCA_VENDOR_ERR_LENGTH);
            ret_rc <= S_RXEND;
            state  <= S_RC0;
          end else begin
            sc_off <= r_rwqe_off; sc_n <= 16'(`HCA_GRH_SIZE); sc_src <= '0; sc_grh <= 1'b1;
            ret_sc <= S_UD2;
            state  <= S_SC0;
          end
        end
        S_UD2: begin
          if (sc_verr != 8'h0) begin
            rc_status <= 5'(`HCA_WC_LOC_PROT_ERR); rc_verr <= sc_verr;
            ret_rc <= S_RXEND;
            state  <= S_RC0;
          end else begin
            sc_off <= r_rwqe_off; sc_n <= p_pay_len; sc_src <= {8'b0, p_pay_off}; sc_grh <= 1'b0;
            ret_sc <= S_UD3;
            state  <= S_SC0;
          end
        end
        S_UD3: begin
          if (sc_verr != 8'h0) begin
            rc_status <= 5'(`HCA_WC_LOC_PROT_ERR); rc_verr <= sc_verr;
          end else begin
            rc_status <= '0; rc_verr <= '0; rc_len <= r_rwqe_off; rc_imm <= ro_imm;
            rc_flags <= 8'(`HCA_WC_FLAG_GRH); rc_src <= {8'b0, p_deth_sqp};
          end
          ret_rc <= S_RXEND;
          state  <= S_RC0;
        end

        // ---- take a receive WQE from the RQ or the SRQ (model/rq.c model_rq_take)
        S_RQ0: begin : rq0
          logic [3:0]  ls;
          logic [4:0]  lz;
          logic [63:0] a;
          if (c_srq) begin
            ls = (e_srq_cfg[8*`HCA_SRQC_LOG_STRIDE_OFF +: 8] < 8'(`HCA_WQE_LOG_MIN_RQ_STRIDE)) ? 4'(`HCA_WQE_LOG_MIN_RQ_STRIDE) :
                 (e_srq_cfg[8*`HCA_SRQC_LOG_STRIDE_OFF +: 8] > 8'(`HCA_WQE_LOG_MAX_RQ_STRIDE)) ? 4'(`HCA_WQE_LOG_MAX_RQ_STRIDE) :
                 e_srq_cfg[8*`HCA_SRQC_LOG_STRIDE_OFF +: 4];
            lz = (e_srq_cfg[8*`HCA_SRQC_LOG_SIZE_OFF +: 8] > 8'd16) ? 5'd16 : e_srq_cfg[8*`HCA_SRQC_LOG_SIZE_OFF +: 5];
            a  = slot_addr(e_srq_cfg[8*`HCA_SRQC_BASE_OFF +: 64], e_srq_ci[15:0], lz, ls);   // lz <= 16
          end else begin
            ls = c_lr;
            lz = c_lrq;
            a  = slot_addr(cfg[8*`HCA_QPC_RQ_BASE_OFF +: 64], r_rq_ci, lz, ls);
          end
          rq_ls <= ls;
          if (c_srq ? (c_srqn == 32'h0 || c_srqn >= 32'(1 << LOG_MAX_SRQ) || !e_srq_valid ||
                       e_srq_cfg[8*`HCA_SRQC_STATE_OFF +: 8] != 8'h0 || e_srq_pi == e_srq_ci)
                    : (r_rq_ci == e_qp_rq_pi)) begin
            rq_res <= 2'd0;
            state  <= ret_rq;
          end else begin
            d_f_start <= 1'b1;
            d_f_sel   <= 1'b1;
            d_f_addr  <= a;
            d_f_len   <= (ls > 4'd8) ? 16'd272 : (16'd1 << ls);   // at most header + 16 SGEs
            fa        <= a;
            state     <= S_RQ1;
          end
        end
        S_RQ1: if (d_f_done) begin
          if (d_f_err) begin
            s_fault <= 1'b1; s_fault_wr <= 1'b0; s_fault_client <= 8'(`HCA_DMA_CLIENT_WQE); s_fault_iova <= fa;
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            rq_verr <= 8'(`HCA_VENDOR_ERR_DMA_FAULT);
            rq_res  <= 2'd2;
            if (c_srq) begin
              s_srq_err <= 1'b1;
              s_evt <= 1'b1; s_evt_type <= 8'(`HCA_EVENT_SRQ_ERR); s_evt_elem <= c_srqn;
            end
            rw_v  <= 1'b0;
            state <= ret_rq;
          end else
            state <= S_RQ2;
        end
        S_RQ2: begin
          // consumed either way: a malformed WQE completes in error
          rxs[`RXS_RWQE_V_O]         <= 1'b1;
          rxs[`RXS_RWQE_SRQ_O]       <= c_srq;
          rxs[`RXS_RWQE_IDX_O +: 16] <= rw_idx;
          rxs[`RXS_RWQE_NSGE_O +: 5] <= rw_nsge[4:0];
          rxs[`RXS_RWQE_TOT_O +: 32] <= rw_total[31:0];
          rxs[`RXS_RWQE_OFF_O +: 32] <= '0;
          rxs[`RXS_RWQE_ADDR_O +: 64] <= fa;
          rxs[`RXS_RWQE_LOGS_O +: 4] <= rq_ls;
          rw_v <= 1'b1; rw_qn <= qn; rw_addr <= fa; rw_gen <= qpc_gen;
          if (rw_nsge > rw_maxsge || rw_total > 33'(`HCA_CAP_MAX_MSG_SZ)) begin
            rq_verr <= 8'(`HCA_VENDOR_ERR_BAD_WQE);
            rq_res  <= 2'd2;
          end else begin
            rq_verr <= 8'h0;
            rq_res  <= 2'd1;
          end
          if (c_srq) begin
            s_srq_inc <= 1'b1;
            if (e_srq_armed && (e_srq_pi - (e_srq_ci + 32'd1)) < e_srq_cfg[8*`HCA_SRQC_LIMIT_OFF +: 32]) begin
              s_srq_disarm <= 1'b1;
              s_evt <= 1'b1; s_evt_type <= 8'(`HCA_EVENT_SRQ_LIMIT_REACHED); s_evt_elem <= c_srqn;
            end
          end else
            rxs[`RXS_RQ_CI_O +: 16] <= r_rq_ci + 16'd1;
          state <= ret_rq;
        end

        // ---- scatter sc_n bytes at receive-WQE offset sc_off (model/resp.c scatter):
        // key checks of every SGE touched first, then one DMA write per SGE piece
        S_SC0: begin
          sc_verr <= 8'h0;
          if (rw_v && rw_gen == qpc_gen && rw_qn == qn && rw_addr == r_rwqe_addr) begin
            sc_i <= '0; sc_pos <= '0;
            state <= S_SC2;
          end else begin
            // another QP used the receive fetch buffer since: fetch the WQE again
            d_f_start <= 1'b1;
            d_f_sel   <= 1'b1;
            d_f_addr  <= r_rwqe_addr;
            d_f_len   <= (rxs[`RXS_RWQE_LOGS_O +: 4] > 4'd8) ? 16'd272 : (16'd1 << rxs[`RXS_RWQE_LOGS_O +: 4]);
            fa        <= r_rwqe_addr;
            state     <= S_SC1;
          end
        end
        S_SC1: if (d_f_done) begin
          if (d_f_err) begin
            s_fault <= 1'b1; s_fault_wr <= 1'b0; s_fault_client <= 8'(`HCA_DMA_CLIENT_WQE); s_fault_iova <= fa;
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            sc_verr <= 8'(`HCA_VENDOR_ERR_DMA_FAULT);
            rw_v  <= 1'b0;
            state <= ret_sc;
          end else begin
            rw_v <= 1'b1; rw_qn <= qn; rw_addr <= r_rwqe_addr; rw_gen <= qpc_gen;
            sc_i <= '0; sc_pos <= '0;
            state <= S_SC2;
          end
        end
        S_SC2: begin : chk
          logic [31:0] li, en;
          li = sc_len;
          en = sc_pos + li;
          if (sc_i >= r_rwqe_nsge) begin
            sc_i <= '0; sc_pos <= sc_off; sc_rem <= sc_n;     // sc_pos: offset left to skip
            state <= S_SC3;
          end else if (li != 32'h0 && en > sc_off && sc_pos < sc_off + {16'b0, sc_n} && !rx_chk[sc_i[3:0]]) begin
            mr_key <= sc_key;
            mr_pdn <= (r_rwqe_srq) ? e_srq_cfg[8*`HCA_SRQC_PDN_OFF +: 32] : c_pdn;
            mr_acc <= 16'(`HCA_ACCESS_LOCAL_WRITE);
            mr_va  <= sc_addr;
            mr_len <= {32'b0, li};
            ret_mr <= S_SC2B;
            state  <= S_MR0;
          end else begin
            sc_pos <= en;
            sc_i   <= sc_i + 5'd1;
          end
        end
        S_SC2B: begin
          if (mr_verr != 8'h0) begin
            sc_verr <= mr_verr;
            state <= ret_sc;
          end else begin
            sc_pos <= sc_pos + sc_len;
            sc_i   <= sc_i + 5'd1;
            state  <= S_SC2;
          end
        end
        S_SC3: begin : wr
          logic [31:0] li, chunk;
          li = sc_len;
          if (sc_rem == 16'd0 || sc_i >= r_rwqe_nsge) begin
            rxs[`RXS_RWQE_OFF_O +: 32] <= sc_off + {16'b0, sc_n};
            state <= ret_sc;
          end else if (sc_pos >= li) begin
            sc_pos <= sc_pos - li;
            sc_i   <= sc_i + 5'd1;
          end else begin
            chunk = li - sc_pos;
            if (chunk > {16'b0, sc_rem}) chunk = {16'b0, sc_rem};
            d_w_start <= 1'b1;
            d_w_addr  <= rx_iova_sc + {32'b0, sc_pos};
            fa        <= rx_iova_sc + {32'b0, sc_pos};
            d_w_len   <= chunk[15:0];
            d_w_rxbuf <= !sc_grh;
            d_w_off   <= RXA'({r_slot, {(RX_SLOT_AW+LW){1'b0}}}) + RXA'(sc_src);
            d_w_small <= {192'b0, grh >> {sc_src, 3'b000}};
            sc_src    <= sc_src + chunk[15:0];
            sc_rem    <= sc_rem - chunk[15:0];
            sc_pos    <= '0;
            sc_i      <= sc_i + 5'd1;
            state     <= S_SC4;
          end
        end
        S_SC4: if (d_w_done) begin
          if (d_w_err) begin
            s_fault <= 1'b1; s_fault_wr <= 1'b1; s_fault_client <= 8'(`HCA_DMA_CLIENT_PAYLOAD); s_fault_iova <= fa;
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            sc_verr <= 8'(`HCA_VENDOR_ERR_DMA_FAULT);
            state <= ret_sc;
          end else
            state <= S_SC3;
        end

        // ---- memory key check (model/dma.c model_mr_check); result in mr_verr/mr_iova
        S_MR0: state <= S_MR1;            // MR RAM read
        S_MR1: begin
          mr_verr <= mrc_verr;
          mr_iova <= mrc_iova;
          state   <= ret_mr;
        end

        // ---- post a CQE (model/cq.c model_cq_post); cq_lost when the completion was lost
        S_CQ0: state <= S_CQ1;            // CQC RAM read
        // S_CQ1 decides the event and reserves the slot in one step; a CQ
        // doorbell of this CQ taking effect in the same cycle makes it wait
        // a cycle (the doorbell is then first), later ones wait for it
        // (cq_take): arming and reservation are atomic, as in the model.
        S_CQ1: if (!e_cq_db_now) begin : cq1
          logic [255:0] c;
          logic [63:0]  a;
          cq_cfg <= e_cqc_rdata;
          if (cq_bad) begin
            cq_lost <= 1'b1;
            state   <= ret_cq;
          end else if (cq_full) begin
            s_stat[`HCA_STAT_CQ_OVERFLOW] <= 1'b1;
            s_cq_err <= 1'b1;
            s_evt <= 1'b1; s_evt_type <= 8'(`HCA_EVENT_CQ_ERR); s_evt_elem <= cq_n;
            cq_lost <= 1'b1;
            state   <= ret_cq;
          end else begin
            c = cqe;
            c[8*`HCA_CQE_OWNER_OFF +: 8] = {7'b0, ~e_cq_pi[{1'b0, cqt_lg}]};
            if (dbg_bug == BUG_CQE_FIELD) c[8*`HCA_CQE_BYTE_LEN_OFF] = ~c[8*`HCA_CQE_BYTE_LEN_OFF];
            d_w_start <= 1'b1;
            d_w_rxbuf <= 1'b0;
            d_w_len   <= 16'(`HCA_CQE_SIZE);
            a = e_cqc_rdata[8*`HCA_CQC_BASE_OFF +: 64] + ({32'b0, e_cq_pi & (cqt_size - 32'd1)} << 5);
            d_w_addr  <= a;
            cq_iova   <= a;
            d_w_small <= {256'b0, c};
            // cq_take: the slot is taken (pi + 1) and the event decided in this
            // cycle; a consumer index the driver rings after seeing the CQE is
            // never ahead of pi
            state     <= S_CQ2;
            cq_fire   <= cq_take_fire;
          end
        end
        S_CQ2: if (d_w_done) begin
          if (d_w_err) begin
            s_fault <= 1'b1; s_fault_wr <= 1'b1; s_fault_client <= 8'(`HCA_DMA_CLIENT_CQE); s_fault_iova <= cq_iova;
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            s_cq_err <= 1'b1;
            s_cq_dec <= 1'b1;
            s_evt <= 1'b1; s_evt_type <= 8'(`HCA_EVENT_CQ_ERR); s_evt_elem <= cq_n;
            cq_lost <= 1'b1;
            state   <= ret_cq;
          end else begin
            cq_lost  <= 1'b0;
            if (cq_fire) begin        // decided with the slot (S_CQ1)
              eq_n  <= cq_cfg[8*`HCA_CQC_EQN_OFF +: 32];
              eqe   <= {8'(`HCA_EQE_TYPE_COMP), 8'h0, cq_n, 32'h0};
              state <= S_CQ3;
            end else
              state <= ret_cq;
          end
        end
        // ---- the COMP EQE of an arm doorbell that found CQEs (hca_ctx cq_fp)
        S_CF0: state <= S_CF1;            // CQC RAM read
        S_CF1: begin
          s_cq_fp_clr <= 1'b1;
          eq_n   <= e_cqc_rdata[8*`HCA_CQC_EQN_OFF +: 32];
          eqe    <= {8'(`HCA_EQE_TYPE_COMP), 8'h0, cq_n, 32'h0};
          ret_cq <= S_IDLE;
          state  <= S_CQ3;
        end
        S_CQ3: begin
          if (eq_n < 32'(NEQ) && e_eq_valid) begin
            ret_eq <= ret_cq;
            state  <= S_EQ0;
          end else
            state <= ret_cq;
        end

        // ---- post an EQE (model/eq.c model_eq_post)
        // S_EQ0 decides the interrupt with the slot (eq_take, as S_CQ1)
        S_EQ0: if (!e_eq_db_now) begin : eq0
          logic [127:0] e;
          logic [63:0]  a;
          if (eq_bad)
            state <= ret_eq;
          else if (eq_full) begin
            s_stat[`HCA_STAT_EQ_OVERFLOW] <= 1'b1;
            state <= ret_eq;
          end else begin
            e = '0;
            e[8*`HCA_EQE_TYPE_OFF +: 8]    = eqe[79:72];
            e[8*`HCA_EQE_SUBTYPE_OFF +: 8] = eqe[71:64];
            e[8*`HCA_EQE_ELEMENT_OFF +: 32] = eqe[63:32];
            e[8*`HCA_EQE_DATA_OFF +: 32]   = eqe[31:0];
            e[8*`HCA_EQE_OWNER_OFF +: 8]   = {7'b0, ~e_eq_pi[{1'b0, eqt_lg}]};
            d_w_start <= 1'b1;
            d_w_rxbuf <= 1'b0;
            d_w_len   <= 16'(`HCA_EQE_SIZE);
            a = e_eq_cfg[8*`HCA_EQC_BASE_OFF +: 64] + ({32'b0, e_eq_pi & (eqt_size - 32'd1)} << 4);
            d_w_addr  <= a;
            eq_iova   <= a;
            d_w_small <= {384'b0, e};
            eq_fire   <= e_eq_armed;   // eq_take: slot and disarm in this cycle
            state     <= S_EQ1;
          end
        end
        S_EQ1: if (d_w_done) begin
          if (d_w_err) begin
            s_fault <= 1'b1; s_fault_wr <= 1'b1; s_fault_client <= 8'(`HCA_DMA_CLIENT_EQE); s_fault_iova <= eq_iova;
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            s_eq_fail <= 1'b1;
            s_eq_dec  <= 1'b1;
          end else if (eq_fire) begin   // decided with the slot (S_EQ0)
            s_fire <= 1'b1;
            s_vec  <= e_eq_cfg[8*`HCA_EQC_VECTOR_OFF +: 5];
          end
          state <= ret_eq;
        end

        // ---- complete the oldest send WQE `ow` (model/qp.c model_qp_complete_send)
        S_CS0: begin : cs0
          logic        sig;
          logic [15:0] ci;
          logic [31:0] bl;
          sig = cs_force || cs_status != 5'd0 || (ow[`OW_FLAGS_O +: 4] & 4'(`HCA_SEND_SIGNALED)) != 0 ||
                (c_flags & 8'(`HCA_QPC_FLAGS_SQ_SIG_ALL_MASK)) != 0;
          ci  = t_sq_ci + 16'd1;
          txs[`TXS_SQ_CI_O +: 16] <= ci;
          if ($signed(t_tx_wqe - ci) < 0) begin
            txs[`TXS_TX_WQE_O +: 16] <= ci;
            txs[`TXS_TX_PKT_O +: 24] <= '0;
          end
          s_busy_set <= 1'b1;
          bl = '0;
          if (cs_status == 5'd0) begin
            if (ow[`OW_OP_O +: 3] == 3'(`HCA_WR_RDMA_READ)) bl = ow[`OW_LEN_O +: 32];
            else if (ow[`OW_OP_O +: 3] == 3'(`HCA_WR_ATOMIC_CMP_AND_SWP) ||
                     ow[`OW_OP_O +: 3] == 3'(`HCA_WR_ATOMIC_FETCH_AND_ADD)) bl = 32'd8;
          end
          if (sig) begin
            cqe <= mk_cqe(bl, 32'h0, {{(32-LOG_MAX_QP){1'b0}}, qn}, 32'h0, t_sq_ci, {3'b0, cs_status},
                          wc_opcode(ow[`OW_OP_O +: 3]), 8'h0, cs_verr, 8'h0);
            cq_n    <= c_send_cqn;
            cqe_sol <= 1'b0;
            ret_cq  <= S_CS1;
            state   <= S_CQ0;
          end else
            state <= ret_cs;
        end
        S_CS1: begin
          if (cq_lost && st != QPS_ERR) begin
            qe_has <= 1'b1; qe_evt <= 8'(`HCA_EVENT_QP_FATAL);
            ret_qe <= ret_cs;
            state  <= S_QE0;
          end else
            state <= ret_cs;
        end

        // ---- complete the receive WQE in progress (model/resp.c recv_complete)
        S_RC0: begin
          cqe <= mk_cqe((rc_status == 5'd0) ? rc_len : 32'h0,
                        (rc_status == 5'd0 && rc_imm) ? p_imm : 32'h0,
                        {{(32-LOG_MAX_QP){1'b0}}, qn}, rc_src, r_rwqe_idx, {3'b0, rc_status}, rc_op,
                        (rc_status == 5'd0) ? (rc_flags | (rc_imm ? 8'(`HCA_WC_FLAG_WITH_IMM) : 8'h0)) : 8'h0,
                        rc_verr, {7'b0, r_rwqe_srq});
          cqe_sol <= rc_status == 5'd0 && p_se;
          rxs[`RXS_RWQE_V_O] <= 1'b0;
          ret_cr <= ret_rc;
          state  <= S_CR0;
        end
        S_CR0: begin
          cq_n   <= c_recv_cqn;
          ret_cq <= S_CR1;
          state  <= S_CQ0;
        end
        S_CR1: begin
          if (cq_lost && st != QPS_ERR) begin
            qe_has <= 1'b1; qe_evt <= 8'(`HCA_EVENT_QP_FATAL);
            ret_qe <= ret_cr;
            state  <= S_QE0;
          end else
            state <= ret_cr;
        end

        // ---- engine-initiated ERR (model/qp.c model_qp_to_err); qe_has: raise qe_evt
        S_QE0: begin
          if (st == QPS_ERR || st == QPS_RESET)
            state <= ret_qe;
          else begin
            st <= QPS_ERR;
            s_qp_set <= 1'b1; s_qp_val <= QPS_ERR;
            txs[`TXS_DRAIN_O] <= 1'b0;
            if (qe_has) begin
              s_evt <= 1'b1; s_evt_type <= qe_evt; s_evt_elem <= {{(32-LOG_MAX_QP){1'b0}}, qn};
            end
            state <= S_QE1;
          end
        end
        S_QE1: begin
          if (c_srq) begin
            s_evt <= 1'b1; s_evt_type <= 8'(`HCA_EVENT_QP_LAST_WQE_REACHED);
            s_evt_elem <= {{(32-LOG_MAX_QP){1'b0}}, qn};
          end
          s_busy_set <= 1'b1;
          state <= ret_qe;
        end

        // ---- ACK/NAK for the request being processed (model/resp.c send_ack)
        S_AK0: begin
          h_opcode   <= 8'(`HCA_BTH_OP_RC_ACKNOWLEDGE);
          h_psn      <= ak_psn;
          h_ackreq   <= 1'b0;
          h_se       <= 1'b0;
          h_pay_len  <= '0;
          h_aeth_syn <= ak_syn;
          h_aeth_msn <= r_msn;
          h_dmac     <= p_smac;
          h_smac     <= p_dmac;
          h_sip      <= p_dip;
          h_dip      <= p_sip;
          h_tclass   <= cfg[8*`HCA_QPC_TRAFFIC_CLASS_OFF +: 8];
          h_hop      <= cfg[8*`HCA_QPC_HOP_LIMIT_OFF +: 8];
          h_sport    <= 16'(`HCA_WIRE_UDP_SPORT_BASE) | ({{(16-LOG_MAX_QP){1'b0}}, qn} & 16'(`HCA_WIRE_UDP_SPORT_MASK));
          h_dqpn     <= cfg[8*`HCA_QPC_DEST_QPN_OFF +: 24];
          state      <= S_AK1;
        end
        S_AK1: if (tx_free) begin
          if (port_up) t_go <= 1'b1;
          if (ak_syn[7:5] == 3'(`HCA_AETH_TYPE_ACK)) s_stat[`HCA_STAT_TX_ACK] <= 1'b1;
          else s_stat[`HCA_STAT_TX_NAK] <= 1'b1;
          state <= ret_ak;
        end

        default: state <= S_IDLE;
      endcase
    end
  end
endmodule
