`include "hca_defs.vh"

// The transport: the jobs of the packet engine wired together (docs/rtl.md
// "The transport").  No state of its own: it instantiates the jobs, the
// parser of the held receive frame, the QPC field view and the outstanding
// send-WQE table; hca_job_merge merges the jobs' outputs towards hca_ctx,
// hca_regs and the datapath, and one hca_call_arb per shared callee grants
// it to one caller at a time.
//
// One work item at a time (hca_dispatch grants it); within an item the jobs
// call each other with level requests held until `done` (docs/rtl.md
// "Handshakes"), so at most one job works in any cycle and every merged
// output is one-hot: strobes and write masks are OR-ed, their data AND-OR-ed
// by the strobe.  A shared callee's caller is picked by grant (hca_call_arb:
// the request, in the same cycle, while one caller asks at a time), its
// `done` returned to that caller only: the step towards two work items at
// once (docs/rtl.md "What limits it").
//
//   hca_dispatch ---> hca_eq_post (injected EQE, re-arm irq), hca_cq_post (arm COMP EQE)
//        |        \-> hca_recv --> hca_resp --> hca_ack_send, hca_scatter, hca_complete_recv,
//        |                     |                hca_read_atomic --> hca_ack_send
//        |                     \-> hca_comp --> hca_complete_send, hca_comp_retire, hca_comp_read,
//        |                                      hca_comp_retry
//        |-> hca_comp_timer --> hca_comp_retry --> hca_complete_send, hca_qp_err
//        \-> hca_req --> hca_qp_flush, hca_comp_retire, hca_complete_send
//   background: hca_timers (per-QP deadlines; a passed one makes the QP due),
//     hca_comp_posted (an ended ACK item's CQE write: the hold, a loss
//     applied through hca_qp_err while the engine is quiet)
//   leaf jobs: hca_mr_check, hca_qp_err, hca_cq_post --> hca_eq_post
module hca_transport #(
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
    parameter int FB2_BYTES   = 320,
    parameter int TX_SLOTS    = 4,
    localparam int TSW = $clog2(TX_SLOTS),
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
    input  logic [63:0] cycle,                 // device clock and its value after this edge
    input  logic [63:0] cycle_nx,
    output logic [63:0] next_dl,               // hca_timers: no deadline before this cycle
    output logic        busy,
    output logic [31:0] dbg,
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
    output logic [LOG_MAX_QP-1:0] e_busy_cidx,   // the busy clear's QP (hca_dispatch)
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
    input  logic [255:0] e_eq_cfg,
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
    input  logic [255:0] e_srq_cfg,
    input  logic [31:0] e_srq_pi,
    input  logic [31:0] e_srq_ci,
    input  logic        e_srq_armed,
    output logic        e_srq_inc,
    output logic        e_srq_disarm,
    output logic        e_srq_set_err,
    output logic        e_mr_en,
    output logic [LOG_MAX_MR-1:0] e_mr_idx,
    input  logic [511:0] e_mr_rdata,
    input  logic        e_mr_live,
    output logic [3:0]  e_gid_idx,
    input  logic [127:0] e_gid,
    output logic [31:0] e_ip,
    input  logic        e_ip_ours,
    output logic [LOG_MAX_QP-1:0] e_step_qn,   // QP of the item in progress
    output logic        e_step_read,           // its words are read this cycle
    output logic        e_step_mid,            // its words were read, the write-back not yet done
    output logic        e_step_wb,             // write-back now or next cycle
    input  logic        qpc_written,           // hca_ctx: a QPC write is applied this cycle
    input  logic        cqc_written,           // hca_ctx: a CQC RAM write this cycle
    output logic [15:0] qpc_gen,               // QPC writes counted (hca_dispatch): prefetch keys
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
    output logic [1:0]  d_f_sel,
    output logic [63:0] d_f_addr,
    output logic [15:0] d_f_len,
    input  logic        d_f_done,
    input  logic        d_f_err,
    input  logic [FB_BYTES*8-1:0] fb,
    input  logic [FB1_BYTES*8-1:0] fb1,
    input  logic [FB2_BYTES*8-1:0] fb2,
    input  logic [63:0] d_f_word,
    output logic        wp_issue, wp_take, wp_inv, wp_now,  // hca_wqe_prefetch (hca_req's next WQE)
    output logic [LOG_MAX_QP+31:0] wp_ikey, wp_qkey,
    output logic [63:0] wp_addr,
    output logic [15:0] wp_len,
    input  logic        wp_free, wp_free_now, wp_hit, wp_ready, wp_err,
    input  logic        lk_v, lk_pdm,    // hca_wqe_lkey_ahead: the taken WQE's SGE 0 checked ahead
    input  logic [7:0]  lk_verr,
    input  logic [31:0] lk_mpdn,
    input  logic [63:0] lk_iova,
    output logic        d_g_push,
    output logic [63:0] d_g_iova,
    output logic [15:0] d_g_len,
    output logic [15:0] d_g_dst,
    output logic [4:0]  d_g_idx,
    input  logic        d_g_full,
    output logic        d_g_close,
    input  logic        d_g_done,
    input  logic [TSW-1:0] d_g_done_slot,
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
    output logic        d_w_post,          // posted payload write (hca_resp; docs/rtl.md "Posted payload writes")
    // ---- hca_tx_slots, hca_tx_frame
    output logic        t_go,
    output logic        t_drop,
    input  logic        t_free,
    input  logic [TSW-1:0] t_wslot,
    // read ahead: with t_go, a request packet (t_req) committed before its payload (t_async), tagged;
    // a read-ahead fault of the item's QP waiting in hca_tx_faults (pf_*)
    output logic        t_req, t_async,
    output logic [LOG_MAX_QP-1:0] t_tag_qn, t_item_qn,
    output logic [15:0] t_tag_wqe,
    output logic [23:0] t_tag_k,
    input  logic        t_async_ok, t_q_busy, pf_hit, pf_orph,
    input  logic [15:0] pf_wqe,
    input  logic [23:0] pf_k,
    input  logic [63:0] pf_iova,
    output logic        pf_clr,
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
    output logic        r_release,
    output logic [1:0]  r_cmd,             // hca_recv: {replay, hold} the posted write's frame
    input  logic [2:0]  r_post,            // {its write faulted, the frame is its replay, outstanding}
    input  logic        r_held,            // a frame is held for its posted write
    input  logic        r_ahead,           // the next slot's frame, offered after a hold (hca_rx_frame)
    input  logic        d_w_rdy,           // hca_dma_wr: a write started now is taken now
    // ---- hca_dma_wr: posted writes (several in flight)
    input  logic [2:0]  pw_seq,            // the next posted write's sequence number
    input  logic [2:0]  pw_rseq,           // the next posted response's
    input  logic [7:0]  pw_rerr            // each returned posted write's error, by sequence
);
  localparam int OUTS = 1 << LOG_OUTS;
  localparam int OWA  = LOG_MAX_QP + LOG_OUTS;
  localparam int SW   = `HCA_STAT_COUNT;

  // ================================================================ shared views
  // the item's words (hca_dispatch) and the QPC's fields
  logic [LOG_MAX_QP-1:0] qn;
  logic [LOG_MAX_QP-1:0] tm_qn;          // hca_timers' QP and timeout (hca_dispatch: the item's, or in an
  logic [4:0]  tm_timeout;               // ACK item -> step handover's cycle the ending item's)
  logic [1023:0] cfg;
  logic [`TXS_W-1:0] txs;
  logic [`RXS_W-1:0] rxs;
  logic [2:0]  qp_st;
  logic [7:0]  c_type, c_flags, c_hop, c_tclass, c_sgid;
  logic        c_rc, c_uc, c_ud, c_srq;
  logic [31:0] c_pdn, c_qkey, c_send_cqn, c_recv_cqn, c_srqn, c_pmtu, c_dip;
  logic [15:0] c_acc;
  logic [3:0]  c_lss, c_lrs;
  logic [4:0]  c_lsq, c_lrq, c_rnr, c_timeout;
  logic [2:0]  c_retry_cnt, c_rnr_retry;
  logic [11:0] c_pmtu_log;
  logic [7:0]  c_maxrd, c_maxdest;
  logic [63:0] c_sq_base, c_rq_base;
  logic [47:0] c_dmac;
  logic [23:0] c_dqpn;
  hca_qpc_view u_view (
      .cfg(cfg), .qp_type(c_type), .is_rc(c_rc), .is_uc(c_uc), .is_ud(c_ud), .flags(c_flags), .use_srq(c_srq),
      .pdn(c_pdn), .qkey(c_qkey), .access(c_acc), .send_cqn(c_send_cqn), .recv_cqn(c_recv_cqn), .srqn(c_srqn),
      .log_sq_stride(c_lss), .log_sq_size(c_lsq), .log_rq_stride(c_lrs), .log_rq_size(c_lrq),
      .pmtu_log(c_pmtu_log), .pmtu(c_pmtu), .sq_base(c_sq_base), .rq_base(c_rq_base), .dmac(c_dmac), .dip(c_dip),
      .hop_limit(c_hop), .tclass(c_tclass), .dest_qpn(c_dqpn), .sgid_index(c_sgid), .min_rnr_timer(c_rnr),
      .timeout(c_timeout), .retry_cnt(c_retry_cnt), .rnr_retry(c_rnr_retry),
      .max_rd_atomic(c_maxrd), .max_dest_rd_atomic(c_maxdest));

  // the held receive frame, parsed (combinational on the receive slot)
  logic [4:0]  p_reason;
  logic [`OPI_W-1:0] p_info;
  logic [47:0] p_dmac, p_smac;
  logic [31:0] p_sip, p_dip, p_reth_rkey, p_reth_len, p_imm, p_deth_qkey;
  logic [7:0]  p_aeth_syn, p_pay_off;
  logic [23:0] p_dqpn, p_psn, p_deth_sqp;
  logic        p_se, p_ackreq;
  logic [63:0] p_reth_va;
  logic [15:0] p_pay_len;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [7:0]  p_opcode, p_tclass, p_ttl;
  logic [23:0] p_aeth_msn;
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
  assign e_ip = p_dip;

  // the outstanding send-WQE table: 2^LOG_OUTS entries per QP (OW_* layout)
  logic             ow_re, ow_we;
  logic [OWA-1:0]   ow_raddr, ow_waddr;
  logic [`OW_W-1:0] ow_rdata, ow_wdata;
  hca_ram_sdp #(.W(`OW_W), .DEPTH(NQP * OUTS)) u_outs (
      .clk(clk), .wr_en(ow_we && ce), .wr_addr(ow_waddr), .wr_data(ow_wdata), .wr_be('1),
      .rd_en(ow_re && ce), .rd_addr(ow_raddr), .rd_data(ow_rdata));

  // ================================================================ nets per job
  // Naming: <job>_<signal>; jobs: disp, recv, req, resp, comp, rt (retire), cs
  // (complete_send), cr (complete_recv), fl (flush), qe (qp_err), ack, scat, mr,
  // cqp, eqp, txh.
  logic [7:0]  disp_st, recv_st, req_st, resp_st, comp_st, rt_st, cs_st, cr_st, fl_st, qe_st, ack_st,
               scat_st, mr_st, cqp_st, eqp_st, rda_st, crd_st, ry_st, tmr_st;
  logic        disp_act, recv_act, req_act, resp_act, comp_act, rt_act, cs_act, cr_act, fl_act, qe_act,
               ack_act, scat_act, mr_act, cqp_act, eqp_act, rda_act, crd_act, ry_act, tmr_act;
  // item writes
  logic [LOG_MAX_QP-1:0] recv_qn_wm, recv_qn_wv;
  logic [`TXS_W-1:0] req_txs_wm, req_txs_wv, comp_txs_wm, comp_txs_wv, rt_txs_wm, rt_txs_wv,
                     cs_txs_wm, cs_txs_wv, fl_txs_wm, fl_txs_wv, qe_txs_wm, qe_txs_wv, crd_txs_wm, crd_txs_wv,
                     ry_txs_wm, ry_txs_wv, tmr_txs_wm, tmr_txs_wv;
  logic [`RXS_W-1:0] recv_rxs_wm, recv_rxs_wv, resp_rxs_wm, resp_rxs_wv, scat_rxs_wm, scat_rxs_wv,
                     cr_rxs_wm, cr_rxs_wv, fl_rxs_wm, fl_rxs_wv, rda_rxs_wm, rda_rxs_wv;
  logic [2:0]  rt_st_wm, rt_st_wv, qe_st_wm, qe_st_wv;
  // requests, arguments and results
  logic        disp_eqp_req, cqp_eqp_req, eqp_req, eqp_done;
  logic [1:0]  disp_eqp_kind, cqp_eqp_kind, eqp_kind;
  logic [31:0] disp_eqp_eqn, cqp_eqp_eqn, eqp_eqn;
  logic [79:0] disp_eqp_eqe, cqp_eqp_eqe, eqp_eqe;
  logic        cqa_req, cs_cqp_req, cr_cqp_req, fl_cqp_req, cqp_req, cqp_done, cqp_lost;
  logic [31:0] cqa_cqn, cs_cqp_cqn, cr_cqp_cqn, fl_cqp_cqn, cqp_cqn;
  logic [255:0] cs_cqp_cqe, cr_cqp_cqe, fl_cqp_cqe, cqp_cqe;
  logic        cs_cqp_sol, cr_cqp_sol, fl_cqp_sol, cqp_sol, cs_cqp_post, comp_cs_defer;
  /* verilator lint_off UNUSEDSIGNAL */
  logic        cqp_pend;
  /* verilator lint_on UNUSEDSIGNAL */
  logic        req_qe_req, rt_qe_req, fl_qe_req, comp_qe_req, resp_qe_req, cs_qe_req, cr_qe_req, crd_qe_req,
               ry_qe_req, qe_req, qe_done;
  logic        req_qe_has, rt_qe_has, fl_qe_has, comp_qe_has, resp_qe_has, cs_qe_has, cr_qe_has, crd_qe_has,
               ry_qe_has, qe_has;
  logic [7:0]  req_qe_evt, rt_qe_evt, fl_qe_evt, comp_qe_evt, resp_qe_evt, cs_qe_evt, cr_qe_evt, crd_qe_evt,
               ry_qe_evt, qe_evt;
  logic        req_mr_req, resp_mr_req, scat_mr_req, rda_mr_req, crd_mr_req, mr_req, mr_done;
  logic [31:0] req_mr_key, resp_mr_key, scat_mr_key, rda_mr_key, crd_mr_key, mr_key;
  logic [31:0] req_mr_pdn, resp_mr_pdn, scat_mr_pdn, rda_mr_pdn, crd_mr_pdn, mr_pdn;
  logic [15:0] req_mr_acc, resp_mr_acc, scat_mr_acc, rda_mr_acc, crd_mr_acc, mr_acc;
  logic [63:0] req_mr_va, resp_mr_va, scat_mr_va, rda_mr_va, crd_mr_va, mr_va;
  logic [63:0] req_mr_len, resp_mr_len, scat_mr_len, rda_mr_len, crd_mr_len, mr_len;
  logic [7:0]  mr_verr;
  logic [63:0] mr_iova;
  logic        req_cs_req, rt_cs_req, comp_cs_req, crd_cs_req, ry_cs_req, cs_req, cs_done;
  logic [`OW_W-1:0] req_cs_ow, rt_cs_ow, comp_cs_ow, crd_cs_ow, ry_cs_ow, cs_ow;
  logic [4:0]  req_cs_status, rt_cs_status, comp_cs_status, crd_cs_status, ry_cs_status, cs_status;
  logic [7:0]  req_cs_verr, rt_cs_verr, comp_cs_verr, crd_cs_verr, ry_cs_verr, cs_verr;
  logic        req_cs_force, rt_cs_force, comp_cs_force, crd_cs_force, ry_cs_force, cs_force, cs_defer;
  logic        comp_ry_req, tmr_ry_req, ry_req, ry_done, tmr_req, tmr_done;
  logic [1:0]  comp_ry_kind, ry_kind;
  logic [23:0] comp_ry_psn, tmr_ry_psn, ry_psn;
  logic [4:0]  comp_ry_code, ry_code;
  logic [NQP-1:0] tm_due;
  logic        req_tm_set, comp_tm_set, ry_tm_set, tmr_tm_set, tm_set;
  logic [1:0]  req_tm_kind, comp_tm_kind, ry_tm_kind, tmr_tm_kind, tm_kind;
  logic [4:0]  ry_tm_code;
  logic        req_rt_req, comp_rt_req, rt_req, rt_done, rt_hit;
  logic        fl_req, fl_done, fl_did;
  logic        rx_chk_req, rx_chk_done, rx_chk_accept, rx_chk_pass, rx_chk_fast, rx_qpc_en, rx_req, rx_done, rx_wb, rx_end, frame_valid;
  logic        step_req, step_done, step_end, step_yield;
  logic        resp_req, resp_done, comp_req, comp_done;
  logic        ack_req, ack_done, ack_took, ack_pay_fault, resp_ack_req, rda_ak_req, resp_ack_owe, a_owed;
  logic        resp_abort, resp_old_wait, resp_old_flt;   // several payload writes in flight (hca_recv)
  logic [23:0] ack_psn, ack_msn, resp_ack_psn, rda_ak_psn, rda_ak_msn;
  logic [7:0]  ack_syn, ack_opcode, resp_ack_syn, rda_ak_opcode;
  logic [63:0] ack_orig, ack_pay_iova, rda_ak_orig, rda_ak_pay_iova;
  logic [15:0] ack_pay_len, rda_ak_pay_len;
  logic        rd_req, rd_done, crd_req, crd_done, crd_progress;
  logic [1:0]  rd_kind;
  logic [63:0] rd_iova;
  logic [7:0]  rd_nak;
  logic [23:0] rd_nak_psn;
  logic        tk_req, sc_req, scat_done, sc_grh;
  logic [1:0]  rq_res;
  logic [7:0]  rq_verr, sc_verr;
  logic [31:0] sc_off;
  logic [15:0] sc_n, sc_src;
  logic        rc_req, rc_imm, rc_done;
  logic [4:0]  rc_status;
  logic [7:0]  rc_verr, rc_op, rc_flags;
  logic [31:0] rc_len, rc_src;
  // hca_ctx / hca_regs strobes
  logic        req_busy_set, recv_busy_set, comp_busy_set, rt_busy_set, cs_busy_set, qe_busy_set, ry_busy_set,
               tmr_busy_set;
  logic        rt_qp_set, qe_qp_set, ry_qp_set;
  logic [2:0]  rt_qp_val, qe_qp_val, ry_qp_val;
  logic        req_evt, recv_evt, scat_evt, cqp_evt, qe_evt_v;
  logic [7:0]  req_evt_type, recv_evt_type, scat_evt_type, cqp_evt_type, qe_evt_type;
  logic [31:0] req_evt_elem, recv_evt_elem, scat_evt_elem, cqp_evt_elem, qe_evt_elem;
  logic [SW-1:0] req_stat, recv_stat, resp_stat, scat_stat, cqp_stat, eqp_stat, ack_stat, rda_stat, crd_stat, ry_stat,
               s_stat;
  logic        req_fault, resp_fault, scat_fault, cqp_fault, eqp_fault, rda_fault, crd_fault;
  logic [7:0]  req_fault_client, resp_fault_client, scat_fault_client, cqp_fault_client, eqp_fault_client,
               rda_fault_client, crd_fault_client;
  logic        req_fault_wr, resp_fault_wr, scat_fault_wr, cqp_fault_wr, eqp_fault_wr, rda_fault_wr, crd_fault_wr;
  logic [63:0] req_fault_iova, resp_fault_iova, scat_fault_iova, cqp_fault_iova, eqp_fault_iova, rda_fault_iova,
               crd_fault_iova;
  logic        eqp_fire, disp_deliver;
  logic [4:0]  eqp_vec, disp_vec;
  // datapath commands
  logic        req_f_start, scat_f_start, rda_f_start, crd_f_start;
  logic [63:0] req_f_addr, scat_f_addr, rda_f_addr, crd_f_addr;
  logic [15:0] req_f_len, scat_f_len, rda_f_len, crd_f_len;
  logic        resp_w_start, scat_w_start, cqp_w_start, eqp_w_start, rda_w_start, crd_w_start, scat_w_rxbuf,
               crd_w_rxbuf;
  logic [63:0] resp_w_addr, scat_w_addr, cqp_w_addr, eqp_w_addr, rda_w_addr, crd_w_addr;
  logic [15:0] resp_w_len, scat_w_len, cqp_w_len, eqp_w_len, rda_w_len, crd_w_len;
  logic [RXA-1:0] resp_w_off, scat_w_off, crd_w_off;
  logic [511:0] scat_w_small, cqp_w_small, eqp_w_small, rda_w_small, crd_w_small;
  logic        req_ow_re, rt_ow_re, comp_ow_re, crd_ow_re, ry_ow_re, tmr_ow_re;
  logic [OWA-1:0] req_ow_raddr, rt_ow_raddr, comp_ow_raddr, crd_ow_raddr, ry_ow_raddr, tmr_ow_raddr;
  logic        req_g_push, req_g_close, ack_g_push, ack_g_close;
  logic [63:0] req_g_iova, ack_g_iova;
  logic [15:0] req_g_len, req_g_dst, ack_g_len, ack_g_dst;
  logic [4:0]  req_g_idx;
  // transmit
  logic        tx_free, wait_go, req_go, ack_go, req_drop, ack_drop, ack_sel, stat_tx_frame, d_g_done_w;
  // the gather of the slot being filled is done (the jobs wait for it before they commit the slot)
  assign d_g_done_w = d_g_done && d_g_done_slot == t_wslot;
  assign t_req      = req_go;
  logic [LOG_MAX_QP-1:0] req_tag_qn;
  // (the requester's go is registered: its slot's QP comes with it, qn may
  // be the next item's by then)
  assign t_tag_qn   = req_go ? req_tag_qn : qn;
  assign t_item_qn  = qn;
  logic [7:0]  rq_hdr_len;
  logic [7:0]  h_opcode, h_tclass, h_hop;
  logic        h_se, h_ackreq;
  logic [23:0] h_psn, h_dqpn, h_deth_sqp;
  logic [15:0] h_pay_len, h_sport;
  logic [47:0] h_dmac, h_smac;
  logic [31:0] h_sip, h_dip, h_rkey, h_rlen, h_imm, h_qkey;
  logic [63:0] h_va, h_swap_add, h_compare;
  logic [23:0] a_psn, a_msn, a_dqpn;
  logic [7:0]  a_syn, a_tclass, a_hop, a_opcode;
  logic [63:0] a_orig;
  logic [15:0] a_pay_len;
  logic [47:0] a_dmac, a_smac;
  logic [31:0] a_sip, a_dip;
  logic [15:0] a_sport;
  logic        r_release_q;

  // ================================================================ merges (one writer at a time)
  logic [LOG_MAX_QP-1:0] qn_wm, qn_wv;
  logic [`TXS_W-1:0] txs_wm, txs_wv;
  logic [`RXS_W-1:0] rxs_wm, rxs_wv;
  logic [2:0]  st_wm, st_wv;
  // every merge's inputs and outputs are the same-named nets here (.*)
  hca_job_merge #(.LOG_MAX_QP(LOG_MAX_QP), .LOG_OUTS(LOG_OUTS), .RXA(RXA)) u_merge (.*);

  // the response sender: hca_resp's ACK/NAK or hca_read_atomic's READ responses / atomic ACKs
  assign ack_req      = resp_ack_req | rda_ak_req;
  assign ack_opcode   = rda_ak_req ? rda_ak_opcode : 8'(`HCA_BTH_OP_RC_ACKNOWLEDGE);
  assign ack_psn      = rda_ak_req ? rda_ak_psn : resp_ack_psn;
  assign ack_syn      = rda_ak_req ? 8'((`HCA_AETH_TYPE_ACK << 5) | `HCA_WIRE_AETH_CREDIT_INVALID) : resp_ack_syn;
  assign ack_msn      = rda_ak_req ? rda_ak_msn : rxs[`RXS_MSN_O +: 24];
  assign ack_orig     = rda_ak_req ? rda_ak_orig : 64'h0;
  assign ack_pay_iova = rda_ak_req ? rda_ak_pay_iova : 64'h0;
  assign ack_pay_len  = rda_ak_req ? rda_ak_pay_len : 16'h0;
  // shared callees, granted to one caller at a time; withheld under the
  // hold (hca_call_grants, connected by name)
  logic [2:0] cqp_dn;
  logic cqp_post, parked, qe_ext;
  logic [4:0] cs_dn, mr_dn;
  logic [1:0] eqp_dn, rt_dn, ry_dn;
  logic [9:0] qe_dn;
  logic po_res, po_res_idx, po_srq, po_quiet, comp_ho, po_own_pend, po_own_lost, cqp_p_add, cqp_p_l1;
  logic [LOG_MAX_QP-1:0] po_qn;
  logic [3:0] po_held_v;
  logic [4*LOG_MAX_QP-1:0] po_held_qn;
  logic [1:0] cqp_p_gn;
  logic po_hold, po_qe_req;
  logic rx_hold_wait;               // hca_recv: an ACK started under the hold waits before COMM_EST
  hca_call_grants u_grants (.*);

  // harness view: registered strobes still to take effect, the working job
  logic strobes, disp_idle;
  assign strobes = e_qp_set_state || e_busy_set || e_busy_clr || e_cq_dec || e_eq_dec || e_cq_set_err ||
                   e_cq_fp_clr || e_eq_fail || e_inj_pop || e_srq_inc || e_srq_disarm || e_srq_set_err ||
                   e_txs_we || e_rxs_we || ow_we || (|s_stat) || e_evt_valid || f_valid || x_fire || x_deliver ||
                   d_f_start || d_g_push || d_g_close || d_l_start || d_w_start || t_go || r_release ||
                   wait_go || r_release_q || (|r_cmd) || tm_set || a_owed;
  logic [7:0] job, job_st;
  hca_job_pick #(.N(19)) u_job (
      .act({tmr_act, ry_act, crd_act, rda_act, eqp_act, cqp_act, mr_act, scat_act, ack_act, qe_act, fl_act, cr_act,
            cs_act, rt_act, comp_act, resp_act, req_act, recv_act, disp_act}),
      .st({tmr_st, ry_st, crd_st, rda_st, eqp_st, cqp_st, mr_st, scat_st, ack_st, qe_st, fl_st, cr_st,
           cs_st, rt_st, comp_st, resp_st, req_st, recv_st, disp_st}), .job(job), .job_st(job_st));

  // ================================================================ the jobs
  hca_dispatch #(.LOG_MAX_QP(LOG_MAX_QP), .LOG_MAX_CQ(LOG_MAX_CQ), .LOG_MAX_SRQ(LOG_MAX_SRQ),
                 .LOG_MAX_EQ(LOG_MAX_EQ)) u_disp (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .enabled(enabled),
      .strobes(strobes), .r_valid(r_valid), .t_busy(t_busy), .d_w_busy(d_w_busy), .job(job), .job_st(job_st),
      .busy(busy), .idle(disp_idle), .hold(po_hold), .res(po_res), .res_idx(po_res_idx), .hold_qn(po_qn),
      .held_v(po_held_v), .held_qn(po_held_qn),
      .dbg(dbg), .dbg_act(disp_act), .dbg_st(disp_st),
      .qn(qn), .cfg(cfg), .txs(txs), .rxs(rxs), .qp_st(qp_st), .qpc_gen(qpc_gen),
      .qn_wm(qn_wm), .qn_wv(qn_wv), .txs_wm(txs_wm), .txs_wv(txs_wv), .rxs_wm(rxs_wm), .rxs_wv(rxs_wv),
      .st_wm(st_wm), .st_wv(st_wv),
      .e_qp_idx(e_qp_idx), .e_qp_state(e_qp_state), .e_busy_clr(e_busy_clr), .e_busy_idx(e_busy_idx),
      .e_busy_cidx(e_busy_cidx), .tm_qn(tm_qn), .tm_timeout(tm_timeout),
      .ak_block(e_qp_set_state || e_srq_inc || e_srq_disarm || e_srq_set_err),
      .e_busy_set(e_busy_set && !a_owed), .qp_busy(a_owed ? '0 : qp_busy), .tm_due(a_owed ? '0 : tm_due), .e_qpc_en(e_qpc_en), .e_qpc_idx(e_qpc_idx),
      .e_qpc_rdata(e_qpc_rdata), .e_txs_en(e_txs_en), .e_txs_we(e_txs_we), .e_txs_idx(e_txs_idx),
      .e_txs_wdata(e_txs_wdata), .e_txs_rdata(e_txs_rdata), .e_rxs_en(e_rxs_en), .e_rxs_we(e_rxs_we),
      .e_rxs_idx(e_rxs_idx), .e_rxs_wdata(e_rxs_wdata), .e_rxs_rdata(e_rxs_rdata), .e_srq_idx(e_srq_idx),
      .e_step_qn(e_step_qn), .e_step_read(e_step_read), .e_step_mid(e_step_mid), .e_step_wb(e_step_wb),
      .qpc_written(qpc_written),
      .e_inj_valid(e_inj_valid), .e_inj_eqn(e_inj_eqn), .e_inj_eqe(e_inj_eqe), .e_inj_pop(e_inj_pop),
      .cq_fire_pending(cq_fire_pending), .e_cq_fp_clr(e_cq_fp_clr), .eq_fire_pending(eq_fire_pending),
      .x_masked(x_masked), .x_pba(x_pba), .x_deliver(disp_deliver), .x_deliver_vec(disp_vec),
      .eqp_req(disp_eqp_req), .eqp_kind(disp_eqp_kind), .eqp_eqn(disp_eqp_eqn), .eqp_eqe(disp_eqp_eqe),
      .eqp_done(eqp_dn[0]), .cqa_req(cqa_req), .cqa_cqn(cqa_cqn), .cqp_done(cqp_done),
      .frame_valid(frame_valid), .rx_chk_req(rx_chk_req), .rx_chk_done(rx_chk_done), .rx_chk_accept(rx_chk_accept),
      .rx_chk_pass(rx_chk_pass), .rx_chk_fast(rx_chk_fast),
      .ho_block(e_qp_set_state || e_busy_clr || tm_set || e_srq_inc || e_srq_disarm || e_srq_set_err), .rx_qpc_en(rx_qpc_en), .rx_dqpn(p_dqpn[LOG_MAX_QP-1:0]), .rx_ack(p_info[`OPI_ACK]), .rx_req(rx_req), .rx_done(rx_done), .rx_wb(rx_wb),
      .rx_end(rx_end), .tmr_req(tmr_req), .tmr_done(tmr_done),
      .step_req(step_req), .step_done(step_done), .step_end(step_end), .step_yield(step_yield));

  hca_recv #(.LOG_MAX_QP(LOG_MAX_QP)) u_recv (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .enabled(enabled), .port_up(port_up), .port_mac(port_mac),
      .frame_valid(frame_valid), .chk_req(rx_chk_req), .chk_done(rx_chk_done), .chk_accept(rx_chk_accept),
      .chk_pass(rx_chk_pass), .chk_fast(rx_chk_fast), .req(rx_req), .hold(po_hold), .hold_wait(rx_hold_wait), .done(rx_done), .wb(rx_wb), .step_end(rx_end), .dbg_act(recv_act), .dbg_st(recv_st),
      .r_valid(r_valid), .r_len(r_len), .r_release(r_release), .r_release_q(r_release_q), .r_cmd(r_cmd), .r_post(r_post),
      .r_held(r_held), .r_ahead(r_ahead), .pw_seq(pw_seq), .pw_rseq(pw_rseq), .p_pay_len(p_pay_len),
      .p_reason(p_reason), .p_info(p_info), .p_dmac(p_dmac), .p_dqpn(p_dqpn), .p_deth_qkey(p_deth_qkey),
      .e_ip_ours(e_ip_ours), .qpc_en(rx_qpc_en), .qn(qn), .rxs(rxs), .qp_st(qp_st), .qp_type(c_type),
      .is_ud(c_ud), .qkey(c_qkey), .qn_wm(recv_qn_wm), .qn_wv(recv_qn_wv), .rxs_wm(recv_rxs_wm),
      .rxs_wv(recv_rxs_wv), .resp_req(resp_req), .resp_done(resp_done), .resp_abort(resp_abort),
      .old_wait(resp_old_wait), .old_flt(resp_old_flt), .comp_req(comp_req),
      .comp_done(comp_done), .s_busy_set(recv_busy_set), .s_stat(recv_stat), .s_rx_bytes(stat_rx_bytes),
      .s_evt(recv_evt), .s_evt_type(recv_evt_type), .s_evt_elem(recv_evt_elem));

  hca_req #(.LOG_MAX_QP(LOG_MAX_QP), .LOG_OUTS(LOG_OUTS), .FB_BYTES(FB_BYTES), .YIELD_PLEN(4 * WB)) u_req (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req(step_req), .done(step_done), .step_end(step_end),
      .yield(step_yield), .dbg_act(req_act), .dbg_st(req_st), .port_up(port_up), .port_mac(port_mac),
      .qn(qn), .txs(txs), .qp_st(qp_st), .qpc_gen(qpc_gen), .qp_type(c_type), .is_rc(c_rc), .is_ud(c_ud),
      .qp_flags(c_flags), .pdn(c_pdn), .qkey(c_qkey), .log_sq_stride(c_lss), .log_sq_size(c_lsq),
      .pmtu_log(c_pmtu_log), .pmtu(c_pmtu), .sq_base(c_sq_base), .dmac(c_dmac), .dip(c_dip), .hop_limit(c_hop),
      .tclass(c_tclass), .dest_qpn(c_dqpn), .sgid_index(c_sgid), .max_rd_atomic(c_maxrd), .e_qp_sq_pi(e_qp_sq_pi),
      .timeout(c_timeout), .txs_wm(req_txs_wm), .txs_wv(req_txs_wv), .tm_set(req_tm_set), .tm_kind(req_tm_kind),
      .s_busy_set(req_busy_set), .e_gid_idx(e_gid_idx), .e_gid(e_gid),
      .s_stat(req_stat), .s_evt(req_evt), .s_evt_type(req_evt_type), .s_evt_elem(req_evt_elem),
      .s_fault(req_fault), .s_fault_client(req_fault_client), .s_fault_wr(req_fault_wr),
      .s_fault_iova(req_fault_iova),
      .ow_re(req_ow_re), .ow_raddr(req_ow_raddr), .ow_rdata(ow_rdata), .ow_we(ow_we), .ow_waddr(ow_waddr),
      .ow_wdata(ow_wdata),
      .d_f_start(req_f_start), .d_f_addr(req_f_addr), .d_f_len(req_f_len), .d_f_done(d_f_done), .d_f_err(d_f_err),
      .wp_issue(wp_issue), .wp_now(wp_now), .wp_take(wp_take), .wp_inv(wp_inv), .wp_ikey(wp_ikey), .wp_qkey(wp_qkey),
      .wp_addr(wp_addr), .wp_len(wp_len), .wp_free(wp_free), .wp_free_now(wp_free_now), .wp_hit(wp_hit), .wp_ready(wp_ready), .wp_err(wp_err),
      .lk_v(lk_v), .lk_pdm(lk_pdm), .lk_verr(lk_verr), .lk_mpdn(lk_mpdn), .lk_iova(lk_iova),
      .fb(fb), .d_g_full(d_g_full), .d_g_push(req_g_push), .d_g_iova(req_g_iova), .d_g_len(req_g_len),
      .d_g_dst(req_g_dst), .d_g_idx(req_g_idx), .d_g_close(req_g_close), .d_g_done(d_g_done_w), .d_g_fault(d_g_fault),
      .d_g_fault_iova(d_g_fault_iova), .d_l_start(d_l_start), .d_l_src(d_l_src), .d_l_len(d_l_len),
      .d_l_dst(d_l_dst),
      .tx_free(tx_free), .tx_async_ok(t_async_ok), .tx_q_busy(t_q_busy), .pf_hit(pf_hit), .pf_orph(pf_orph), .pf_wqe(pf_wqe),
      .pf_k(pf_k), .pf_iova(pf_iova), .pf_clr(pf_clr), .async(t_async), .tag_wqe(t_tag_wqe), .tag_k(t_tag_k), .tag_qn(req_tag_qn),
      .hdr_len(rq_hdr_len), .go(req_go), .drop(req_drop), .h_opcode(h_opcode), .h_se(h_se), .h_ackreq(h_ackreq),
      .h_psn(h_psn), .h_dqpn(h_dqpn), .h_pay_len(h_pay_len), .h_dmac(h_dmac), .h_smac(h_smac),
      .h_tclass(h_tclass), .h_hop(h_hop), .h_sip(h_sip), .h_dip(h_dip), .h_sport(h_sport), .h_va(h_va),
      .h_rkey(h_rkey), .h_rlen(h_rlen), .h_imm(h_imm), .h_qkey(h_qkey), .h_deth_sqp(h_deth_sqp),
      .h_swap_add(h_swap_add), .h_compare(h_compare), .fl_req(fl_req), .fl_done(fl_done), .fl_did(fl_did), .rt_req(req_rt_req), .rt_done(rt_dn[0]), .rt_hit(rt_hit),
      .mr_req(req_mr_req), .mr_key(req_mr_key), .mr_pdn(req_mr_pdn), .mr_acc(req_mr_acc), .mr_va(req_mr_va),
      .mr_len(req_mr_len), .mr_done(mr_dn[0]), .mr_verr(mr_verr), .mr_iova(mr_iova),
      .qe_req(req_qe_req), .qe_has(req_qe_has), .qe_evt(req_qe_evt), .qe_done(qe_dn[0]),
      .sc_req(req_cs_req), .sc_ow(req_cs_ow), .sc_status(req_cs_status), .sc_verr(req_cs_verr),
      .sc_force(req_cs_force), .sc_done(cs_dn[0]));

  hca_tx_hdr #(.HDR_MAX(HDR_MAX)) u_txh (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst),
      .req_go(req_go), .req_drop(req_drop), .rq_opcode(h_opcode), .rq_se(h_se), .rq_ackreq(h_ackreq), .rq_psn(h_psn), .rq_dqpn(h_dqpn),
      .rq_pay_len(h_pay_len), .rq_dmac(h_dmac), .rq_smac(h_smac), .rq_tclass(h_tclass), .rq_hop(h_hop),
      .rq_sip(h_sip), .rq_dip(h_dip), .rq_sport(h_sport), .rq_va(h_va), .rq_rkey(h_rkey), .rq_rlen(h_rlen),
      .rq_imm(h_imm), .rq_qkey(h_qkey), .rq_deth_sqp(h_deth_sqp), .rq_swap_add(h_swap_add),
      .rq_compare(h_compare), .rq_hdr_len(rq_hdr_len),
      .ack_sel(ack_sel), .ack_go(ack_go), .ack_drop(ack_drop), .ak_opcode(a_opcode), .ak_pay_len(a_pay_len), .ak_orig(a_orig),
      .ak_psn(a_psn), .ak_aeth_syn(a_syn), .ak_aeth_msn(a_msn),
      .ak_dmac(a_dmac), .ak_smac(a_smac), .ak_sip(a_sip), .ak_dip(a_dip), .ak_tclass(a_tclass), .ak_hop(a_hop),
      .ak_sport(a_sport), .ak_dqpn(a_dqpn), .tx_free(tx_free), .wait_go(wait_go),
      .t_go(t_go), .t_drop(t_drop), .t_free(t_free), .t_hdr(t_hdr), .t_hdr_len(t_hdr_len), .t_pay_len(t_pay_len),
      .t_pad(t_pad),
      .t_sent(t_sent), .t_sent_len(t_sent_len), .stat_tx_frame(stat_tx_frame), .stat_tx_bytes(stat_tx_bytes));

  hca_ack_send #(.LOG_MAX_QP(LOG_MAX_QP)) u_ack (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req(ack_req), .opcode(ack_opcode), .psn(ack_psn),
      .syn(ack_syn), .msn(ack_msn), .orig(ack_orig), .pay_iova(ack_pay_iova), .pay_len(ack_pay_len),
      .owe(resp_ack_req && resp_ack_owe), .pw_seq(pw_seq), .pw_rseq(pw_rseq), .pw_rerr(pw_rerr), .owed(a_owed),
      .done(ack_done), .took(ack_took), .pay_fault(ack_pay_fault), .dbg_act(ack_act), .dbg_st(ack_st), .qn(qn), .tclass(c_tclass),
      .hop_limit(c_hop), .dest_qpn(c_dqpn),
      .p_smac(p_smac), .p_dmac(p_dmac), .p_sip(p_sip), .p_dip(p_dip), .port_up(port_up),
      .tx_free(tx_free), .hdr_len(rq_hdr_len), .sel(ack_sel), .go(ack_go), .drop(ack_drop), .h_opcode(a_opcode), .h_psn(a_psn),
      .h_aeth_syn(a_syn), .h_aeth_msn(a_msn), .h_orig(a_orig), .h_pay_len(a_pay_len),
      .h_dmac(a_dmac), .h_smac(a_smac), .h_sip(a_sip), .h_dip(a_dip), .h_tclass(a_tclass), .h_hop(a_hop),
      .h_sport(a_sport), .h_dqpn(a_dqpn),
      .d_g_push(ack_g_push), .d_g_iova(ack_g_iova), .d_g_len(ack_g_len), .d_g_dst(ack_g_dst),
      .d_g_close(ack_g_close), .d_g_done(d_g_done_w), .d_g_fault(d_g_fault), .s_stat(ack_stat));

  hca_read_atomic #(.LOG_MAX_QP(LOG_MAX_QP)) u_rdat (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req(rd_req), .kind(rd_kind), .iova(rd_iova),
      .done(rd_done), .nak(rd_nak), .nak_psn(rd_nak_psn), .dbg_act(rda_act), .dbg_st(rda_st),
      .qn(qn), .rxs(rxs), .pdn(c_pdn), .pmtu(c_pmtu), .pmtu_log(c_pmtu_log), .max_dest_rd_atomic(c_maxdest),
      .rxs_wm(rda_rxs_wm), .rxs_wv(rda_rxs_wv),
      .p_opcode(p_opcode), .p_psn(p_psn), .p_reth_va(p_reth_va), .p_reth_rkey(p_reth_rkey),
      .p_reth_len(p_reth_len), .p_atm_swap_add(p_atm_swap_add), .p_atm_compare(p_atm_compare),
      .ak_req(rda_ak_req), .ak_opcode(rda_ak_opcode), .ak_psn(rda_ak_psn), .ak_msn(rda_ak_msn),
      .ak_orig(rda_ak_orig), .ak_pay_iova(rda_ak_pay_iova), .ak_pay_len(rda_ak_pay_len), .ak_done(ack_done),
      .ak_pay_fault(ack_pay_fault),
      .mr_req(rda_mr_req), .mr_key(rda_mr_key), .mr_pdn(rda_mr_pdn), .mr_acc(rda_mr_acc), .mr_va(rda_mr_va),
      .mr_len(rda_mr_len), .mr_done(mr_dn[3]), .mr_verr(mr_verr), .mr_iova(mr_iova),
      .d_f_start(rda_f_start), .d_f_addr(rda_f_addr), .d_f_len(rda_f_len), .d_f_done(d_f_done), .d_f_err(d_f_err),
      .f_word(d_f_word),
      .d_w_start(rda_w_start), .d_w_addr(rda_w_addr), .d_w_len(rda_w_len), .d_w_small(rda_w_small),
      .d_w_done(d_w_done), .d_w_err(d_w_err), .s_stat(rda_stat), .s_fault(rda_fault),
      .s_fault_client(rda_fault_client), .s_fault_wr(rda_fault_wr), .s_fault_iova(rda_fault_iova));

  hca_resp #(.DATA_W(DATA_W), .RX_SLOT_AW(RX_SLOT_AW)) u_resp (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req(resp_req), .rep(r_post[1]), .old_wait(resp_old_wait),
      .old_flt(resp_old_flt), .done(resp_done), .redo(resp_abort),
      .dbg_act(resp_act), .dbg_st(resp_st),
      .rxs(rxs), .qp_st(qp_st), .is_uc(c_uc), .is_ud(c_ud), .qp_access(c_acc), .pdn(c_pdn), .pmtu(c_pmtu),
      .min_rnr_timer(c_rnr), .max_dest_rd_atomic(c_maxdest), .rxs_wm(resp_rxs_wm), .rxs_wv(resp_rxs_wv),
      .p_info(p_info), .p_psn(p_psn), .p_ackreq(p_ackreq), .p_reth_va(p_reth_va), .p_reth_rkey(p_reth_rkey),
      .p_reth_len(p_reth_len), .p_deth_sqp(p_deth_sqp), .p_pay_off(p_pay_off), .p_pay_len(p_pay_len),
      .r_slot(r_slot),
      .ack_req(resp_ack_req), .ack_psn(resp_ack_psn), .ack_syn(resp_ack_syn), .ack_owe(resp_ack_owe), .ack_done(ack_done), .ack_took(ack_took),
      .rd_req(rd_req), .rd_kind(rd_kind), .rd_iova(rd_iova), .rd_done(rd_done), .rd_nak(rd_nak),
      .rd_nak_psn(rd_nak_psn),
      .tk_req(tk_req), .sc_req(sc_req), .sc_off(sc_off), .sc_n(sc_n), .sc_src(sc_src), .sc_grh(sc_grh),
      .scat_done(scat_done), .rq_res(rq_res), .rq_verr(rq_verr), .sc_verr(sc_verr),
      .mr_req(resp_mr_req), .mr_key(resp_mr_key), .mr_pdn(resp_mr_pdn), .mr_acc(resp_mr_acc), .mr_va(resp_mr_va),
      .mr_len(resp_mr_len), .mr_done(mr_dn[1]), .mr_verr(mr_verr), .mr_iova(mr_iova),
      .rc_req(rc_req), .rc_status(rc_status), .rc_verr(rc_verr), .rc_op(rc_op), .rc_len(rc_len), .rc_imm(rc_imm),
      .rc_flags(rc_flags), .rc_src(rc_src), .rc_done(rc_done),
      .qe_req(resp_qe_req), .qe_has(resp_qe_has), .qe_evt(resp_qe_evt), .qe_done(qe_dn[4]),
      .d_w_start(resp_w_start), .d_w_addr(resp_w_addr), .d_w_len(resp_w_len), .d_w_off(resp_w_off),
      .d_w_post(d_w_post), .d_w_rdy(d_w_rdy), .d_w_done(d_w_done), .d_w_err(d_w_err), .s_stat(resp_stat), .s_fault(resp_fault),
      .s_fault_client(resp_fault_client), .s_fault_wr(resp_fault_wr), .s_fault_iova(resp_fault_iova));

  hca_scatter #(.DATA_W(DATA_W), .LOG_MAX_QP(LOG_MAX_QP), .LOG_MAX_SRQ(LOG_MAX_SRQ), .RX_SLOT_AW(RX_SLOT_AW),
                .HDR_MAX(HDR_MAX), .FB1_BYTES(FB1_BYTES)) u_scat (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst),
      .tk_req(tk_req), .rq_res(rq_res), .rq_verr(rq_verr), .sc_req(sc_req), .sc_off(sc_off), .sc_n(sc_n),
      .sc_src(sc_src), .sc_grh(sc_grh), .sc_verr(sc_verr), .done(scat_done), .dbg_act(scat_act), .dbg_st(scat_st),
      .qn(qn), .rxs(rxs), .qpc_gen(qpc_gen), .use_srq(c_srq), .srqn(c_srqn), .pdn(c_pdn),
      .log_rq_stride(c_lrs), .log_rq_size(c_lrq), .rq_base(c_rq_base), .e_qp_rq_pi(e_qp_rq_pi),
      .rxs_wm(scat_rxs_wm), .rxs_wv(scat_rxs_wv),
      .e_srq_valid(e_srq_valid), .e_srq_cfg(e_srq_cfg), .e_srq_pi(e_srq_pi), .e_srq_ci(e_srq_ci),
      .e_srq_armed(e_srq_armed), .e_srq_inc(e_srq_inc), .e_srq_disarm(e_srq_disarm), .e_srq_set_err(e_srq_set_err),
      .r_slot(r_slot), .r_hdr(r_hdr),
      .mr_req(scat_mr_req), .mr_key(scat_mr_key), .mr_pdn(scat_mr_pdn), .mr_acc(scat_mr_acc), .mr_va(scat_mr_va),
      .mr_len(scat_mr_len), .mr_done(mr_dn[2]), .mr_verr(mr_verr), .mr_iova(mr_iova),
      .d_f_start(scat_f_start), .d_f_addr(scat_f_addr), .d_f_len(scat_f_len), .d_f_done(d_f_done),
      .d_f_err(d_f_err), .fb1(fb1),
      .d_w_start(scat_w_start), .d_w_addr(scat_w_addr), .d_w_len(scat_w_len), .d_w_rxbuf(scat_w_rxbuf),
      .d_w_off(scat_w_off), .d_w_small(scat_w_small), .d_w_done(d_w_done), .d_w_err(d_w_err),
      .s_stat(scat_stat), .s_evt(scat_evt), .s_evt_type(scat_evt_type), .s_evt_elem(scat_evt_elem),
      .s_fault(scat_fault), .s_fault_client(scat_fault_client), .s_fault_wr(scat_fault_wr),
      .s_fault_iova(scat_fault_iova));

  hca_comp #(.LOG_MAX_QP(LOG_MAX_QP), .LOG_OUTS(LOG_OUTS)) u_comp (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req(comp_req), .done(comp_done),
      .dbg_act(comp_act), .dbg_st(comp_st),
      .qn(qn), .txs(txs), .p_info(p_info), .qp_st(qp_st), .is_rc(c_rc), .p_psn(p_psn), .p_aeth_syn(p_aeth_syn),
      .timeout(c_timeout), .retry_cnt(c_retry_cnt), .rnr_retry(c_rnr_retry),
      .txs_wm(comp_txs_wm), .txs_wv(comp_txs_wv), .s_busy_set(comp_busy_set),
      .tm_set(comp_tm_set), .tm_kind(comp_tm_kind),
      .ow_re(comp_ow_re), .ow_raddr(comp_ow_raddr), .ow_rdata(ow_rdata),
      .sc_req(comp_cs_req), .sc_ow(comp_cs_ow), .sc_status(comp_cs_status), .sc_verr(comp_cs_verr),
      .sc_force(comp_cs_force), .sc_defer(comp_cs_defer), .sc_done(cs_dn[2]),
      .own_pend(po_own_pend), .own_lost(po_own_lost), .ho(comp_ho), .qe_req(comp_qe_req), .qe_has(comp_qe_has), .qe_evt(comp_qe_evt), .qe_done(qe_dn[3]),
      .ry_req(comp_ry_req), .ry_kind(comp_ry_kind), .ry_psn(comp_ry_psn), .ry_code(comp_ry_code),
      .ry_done(ry_dn[0]), .rt_req(comp_rt_req), .rt_done(rt_dn[1]), .crd_req(crd_req), .crd_done(crd_done),
      .crd_progress(crd_progress));

  hca_comp_retry #(.LOG_MAX_QP(LOG_MAX_QP), .LOG_OUTS(LOG_OUTS)) u_retry (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req(ry_req), .kind(ry_kind), .psn(ry_psn), .code(ry_code),
      .done(ry_done), .dbg_act(ry_act), .dbg_st(ry_st),
      .qn(qn), .txs(txs), .qp_st(qp_st), .timeout(c_timeout), .rnr_retry(c_rnr_retry),
      .txs_wm(ry_txs_wm), .txs_wv(ry_txs_wv), .s_busy_set(ry_busy_set), .s_qp_set(ry_qp_set),
      .s_qp_val(ry_qp_val), .s_stat(ry_stat), .tm_set(ry_tm_set), .tm_kind(ry_tm_kind), .tm_code(ry_tm_code),
      .ow_re(ry_ow_re), .ow_raddr(ry_ow_raddr), .ow_rdata(ow_rdata),
      .sc_req(ry_cs_req), .sc_ow(ry_cs_ow), .sc_status(ry_cs_status), .sc_verr(ry_cs_verr),
      .sc_force(ry_cs_force), .sc_done(cs_dn[4]),
      .qe_req(ry_qe_req), .qe_has(ry_qe_has), .qe_evt(ry_qe_evt), .qe_done(qe_dn[8]));

  hca_comp_timer #(.LOG_MAX_QP(LOG_MAX_QP), .LOG_OUTS(LOG_OUTS)) u_ctmr (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req(tmr_req), .done(tmr_done), .dbg_act(tmr_act),
      .dbg_st(tmr_st), .qn(qn), .txs(txs), .qp_st(qp_st), .timeout(c_timeout), .ra_busy(t_q_busy | pf_hit),
      .txs_wm(tmr_txs_wm), .txs_wv(tmr_txs_wv), .s_busy_set(tmr_busy_set), .tm_set(tmr_tm_set),
      .tm_kind(tmr_tm_kind), .ow_re(tmr_ow_re), .ow_raddr(tmr_ow_raddr), .ow_rdata(ow_rdata),
      .ry_req(tmr_ry_req), .ry_psn(tmr_ry_psn), .ry_done(ry_dn[1]));

  hca_timers #(.LOG_MAX_QP(LOG_MAX_QP)) u_timers (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .cycle(cycle), .cycle_nx(cycle_nx),
      .set(tm_set), .qn(tm_qn), .kind(tm_kind), .code(ry_tm_set ? ry_tm_code : 5'd0), .timeout(tm_timeout),
      .due(tm_due), .next_dl(next_dl));

  hca_comp_read #(.DATA_W(DATA_W), .LOG_MAX_QP(LOG_MAX_QP), .LOG_OUTS(LOG_OUTS), .RX_SLOT_AW(RX_SLOT_AW),
                  .FB2_BYTES(FB2_BYTES)) u_crd (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req(crd_req), .done(crd_done), .progress(crd_progress),
      .dbg_act(crd_act), .dbg_st(crd_st),
      .qn(qn), .txs(txs), .p_info(p_info), .qp_st(qp_st), .qpc_gen(qpc_gen), .pdn(c_pdn), .pmtu(c_pmtu),
      .pmtu_log(c_pmtu_log), .sq_base(c_sq_base), .log_sq_stride(c_lss), .log_sq_size(c_lsq),
      .txs_wm(crd_txs_wm), .txs_wv(crd_txs_wv),
      .p_psn(p_psn), .p_aeth_syn(p_aeth_syn), .p_atmack_orig(p_atmack_orig), .p_pay_off(p_pay_off),
      .p_pay_len(p_pay_len), .r_slot(r_slot),
      .ow_re(crd_ow_re), .ow_raddr(crd_ow_raddr), .ow_rdata(ow_rdata),
      .d_f_start(crd_f_start), .d_f_addr(crd_f_addr), .d_f_len(crd_f_len), .d_f_done(d_f_done), .d_f_err(d_f_err),
      .fb2(fb2),
      .mr_req(crd_mr_req), .mr_key(crd_mr_key), .mr_pdn(crd_mr_pdn), .mr_acc(crd_mr_acc), .mr_va(crd_mr_va),
      .mr_len(crd_mr_len), .mr_done(mr_dn[4]), .mr_verr(mr_verr), .mr_iova(mr_iova),
      .d_w_start(crd_w_start), .d_w_addr(crd_w_addr), .d_w_len(crd_w_len), .d_w_rxbuf(crd_w_rxbuf),
      .d_w_off(crd_w_off), .d_w_small(crd_w_small), .d_w_done(d_w_done), .d_w_err(d_w_err),
      .sc_req(crd_cs_req), .sc_ow(crd_cs_ow), .sc_status(crd_cs_status), .sc_verr(crd_cs_verr),
      .sc_force(crd_cs_force), .sc_done(cs_dn[3]),
      .qe_req(crd_qe_req), .qe_has(crd_qe_has), .qe_evt(crd_qe_evt), .qe_done(qe_dn[7]),
      .s_stat(crd_stat), .s_fault(crd_fault), .s_fault_client(crd_fault_client), .s_fault_wr(crd_fault_wr),
      .s_fault_iova(crd_fault_iova));

  hca_comp_retire #(.LOG_MAX_QP(LOG_MAX_QP), .LOG_OUTS(LOG_OUTS)) u_retire (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req(rt_req), .done(rt_done), .hit(rt_hit),
      .dbg_act(rt_act), .dbg_st(rt_st),
      .qn(qn), .txs(txs), .qp_st(qp_st), .is_rc(c_rc), .st_wm(rt_st_wm), .st_wv(rt_st_wv),
      .txs_wm(rt_txs_wm), .txs_wv(rt_txs_wv), .s_qp_set(rt_qp_set), .s_qp_val(rt_qp_val),
      .s_busy_set(rt_busy_set), .ow_re(rt_ow_re), .ow_raddr(rt_ow_raddr), .ow_rdata(ow_rdata), .ow_we(ow_we),
      .sc_req(rt_cs_req), .sc_ow(rt_cs_ow), .sc_status(rt_cs_status), .sc_verr(rt_cs_verr), .sc_force(rt_cs_force),
      .sc_done(cs_dn[1]), .qe_req(rt_qe_req), .qe_has(rt_qe_has), .qe_evt(rt_qe_evt), .qe_done(qe_dn[1]));

  hca_complete_send #(.LOG_MAX_QP(LOG_MAX_QP)) u_csend (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req(cs_req), .ow(cs_ow), .status(cs_status),
      .verr(cs_verr), .force_cqe(cs_force), .defer(cs_defer), .done(cs_done), .dbg_act(cs_act), .dbg_st(cs_st),
      .qn(qn), .txs(txs), .qp_st(qp_st), .qp_flags(c_flags), .send_cqn(c_send_cqn),
      .txs_wm(cs_txs_wm), .txs_wv(cs_txs_wv), .s_busy_set(cs_busy_set),
      .cqp_req(cs_cqp_req), .cqp_cqn(cs_cqp_cqn), .cqp_cqe(cs_cqp_cqe), .cqp_sol(cs_cqp_sol),
      .cqp_post(cs_cqp_post), .cqp_done(cqp_dn[0]), .cqp_lost(cqp_lost),
      .qe_req(cs_qe_req), .qe_has(cs_qe_has), .qe_evt(cs_qe_evt), .qe_done(qe_dn[5]));

  hca_complete_recv #(.LOG_MAX_QP(LOG_MAX_QP)) u_crecv (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req(rc_req), .status(rc_status), .verr(rc_verr),
      .op(rc_op), .len(rc_len), .imm(rc_imm), .wc_flags(rc_flags), .src_qp(rc_src), .done(rc_done),
      .dbg_act(cr_act), .dbg_st(cr_st),
      .qn(qn), .rxs(rxs), .qp_st(qp_st), .recv_cqn(c_recv_cqn), .p_imm(p_imm), .p_se(p_se),
      .rxs_wm(cr_rxs_wm), .rxs_wv(cr_rxs_wv),
      .cqp_req(cr_cqp_req), .cqp_cqn(cr_cqp_cqn), .cqp_cqe(cr_cqp_cqe), .cqp_sol(cr_cqp_sol),
      .cqp_done(cqp_dn[1]), .cqp_lost(cqp_lost),
      .qe_req(cr_qe_req), .qe_has(cr_qe_has), .qe_evt(cr_qe_evt), .qe_done(qe_dn[6]));

  hca_qp_flush #(.LOG_MAX_QP(LOG_MAX_QP)) u_flush (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req(fl_req), .done(fl_done), .did(fl_did),
      .dbg_act(fl_act), .dbg_st(fl_st),
      .qn(qn), .txs(txs), .rxs(rxs), .qp_st(qp_st), .e_qp_sq_pi(e_qp_sq_pi), .e_qp_rq_pi(e_qp_rq_pi),
      .use_srq(c_srq), .send_cqn(c_send_cqn), .recv_cqn(c_recv_cqn),
      .txs_wm(fl_txs_wm), .txs_wv(fl_txs_wv), .rxs_wm(fl_rxs_wm), .rxs_wv(fl_rxs_wv),
      .cqp_req(fl_cqp_req), .cqp_cqn(fl_cqp_cqn), .cqp_cqe(fl_cqp_cqe), .cqp_sol(fl_cqp_sol),
      .cqp_done(cqp_dn[2]), .cqp_lost(cqp_lost),
      .qe_req(fl_qe_req), .qe_has(fl_qe_has), .qe_evt(fl_qe_evt), .qe_done(qe_dn[2]));

  // the ended ACK item's posted CQE write: the hold, a loss applied
  hca_comp_posted #(.LOG_MAX_QP(LOG_MAX_QP), .HN(4)) u_posted (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .start(comp_ho), .qn(qn), .use_srq(c_srq),
      .p_add(cqp_p_add), .p_gn(cqp_p_gn), .p_l1(cqp_p_l1), .quiet(po_quiet), .hold(po_hold), .res(po_res),
      .held_v(po_held_v), .held_qn(po_held_qn), .hold_qn(po_qn), .hold_srq(po_srq), .res_idx(po_res_idx),
      .own_pend(po_own_pend), .own_lost(po_own_lost), .qe_req(po_qe_req), .qe_done(qe_dn[9]));
  // quiet: no item (hca_dispatch starts none under res) or the item parked
  // at a withheld callee, and no registered strobe in flight
  assign po_quiet = (disp_idle || parked) && !strobes;

  hca_qp_err #(.LOG_MAX_QP(LOG_MAX_QP)) u_qperr (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req(qe_req), .has(qe_has), .evt(qe_evt), .ext(qe_ext),
      .done(qe_done), .dbg_act(qe_act), .dbg_st(qe_st),
      .qn(qe_ext ? po_qn : qn), .qp_st(qe_ext ? e_qp_state : qp_st), .use_srq(qe_ext ? po_srq : c_srq),
      .st_wm(qe_st_wm), .st_wv(qe_st_wv),
      .txs_wm(qe_txs_wm), .txs_wv(qe_txs_wv), .s_qp_set(qe_qp_set), .s_qp_val(qe_qp_val),
      .s_busy_set(qe_busy_set), .s_evt(qe_evt_v), .s_evt_type(qe_evt_type), .s_evt_elem(qe_evt_elem));

  hca_mr_check #(.LOG_MAX_MR(LOG_MAX_MR)) u_mr (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req(mr_req), .key(mr_key), .pdn(mr_pdn), .acc(mr_acc),
      .va(mr_va), .len(mr_len), .done(mr_done), .verr(mr_verr), .iova(mr_iova), .dbg_act(mr_act), .dbg_st(mr_st),
      .e_mr_en(e_mr_en), .e_mr_idx(e_mr_idx), .e_mr_rdata(e_mr_rdata), .e_mr_live(e_mr_live));

  hca_cq_post #(.LOG_MAX_CQ(LOG_MAX_CQ), .NB(2)) u_cqp (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req(cqp_req), .cqn(cqp_cqn), .cqe(cqp_cqe), .sol(cqp_sol),
      .post(cqp_post), .cqc_written(cqc_written), .hold(po_hold), .arm_req(cqa_req), .arm_cqn(cqa_cqn),
      .done(cqp_done), .lost(cqp_lost), .pend(cqp_pend), .p_add(cqp_p_add), .p_gn(cqp_p_gn), .p_l1(cqp_p_l1),
      .dbg_act(cqp_act), .dbg_st(cqp_st),
      .eqp_req(cqp_eqp_req), .eqp_kind(cqp_eqp_kind), .eqp_eqn(cqp_eqp_eqn), .eqp_eqe(cqp_eqp_eqe),
      .eqp_done(eqp_dn[1]),
      .e_cq_idx(e_cq_idx), .e_cq_valid(e_cq_valid), .e_cq_pi(e_cq_pi), .e_cq_ci(e_cq_ci), .e_cq_arm(e_cq_arm),
      .e_cq_err(e_cq_err), .e_cq_db_now(e_cq_db_now), .e_cqc_en(e_cqc_en), .e_cqc_rdata(e_cqc_rdata),
      .e_cq_inc(e_cq_inc), .e_cq_dec(e_cq_dec), .e_cq_disarm(e_cq_disarm), .e_cq_sol(e_cq_sol),
      .e_cq_set_err(e_cq_set_err), .e_cq_fp_clr(e_cq_fp_clr),
      .d_w_start(cqp_w_start), .d_w_addr(cqp_w_addr), .d_w_len(cqp_w_len), .d_w_small(cqp_w_small),
      .d_w_done(d_w_done), .d_w_err(d_w_err), .s_stat(cqp_stat), .s_evt(cqp_evt), .s_evt_type(cqp_evt_type),
      .s_evt_elem(cqp_evt_elem), .s_fault(cqp_fault), .s_fault_client(cqp_fault_client),
      .s_fault_wr(cqp_fault_wr), .s_fault_iova(cqp_fault_iova));

  hca_eq_post #(.LOG_MAX_EQ(LOG_MAX_EQ)) u_eqp (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req(eqp_req), .kind(eqp_kind), .eqn(eqp_eqn), .eqe(eqp_eqe),
      .done(eqp_done), .dbg_act(eqp_act), .dbg_st(eqp_st),
      .e_eq_idx(e_eq_idx), .e_eq_valid(e_eq_valid), .e_eq_cfg(e_eq_cfg), .e_eq_pi(e_eq_pi), .e_eq_ci(e_eq_ci),
      .e_eq_armed(e_eq_armed), .e_eq_failed(e_eq_failed), .e_eq_db_now(e_eq_db_now), .e_eq_inc(e_eq_inc),
      .e_eq_dec(e_eq_dec), .e_eq_disarm(e_eq_disarm), .e_eq_fail(e_eq_fail), .e_eq_fp_clr(e_eq_fp_clr),
      .d_w_start(eqp_w_start), .d_w_addr(eqp_w_addr), .d_w_len(eqp_w_len), .d_w_small(eqp_w_small),
      .d_w_done(d_w_done), .d_w_err(d_w_err), .s_stat(eqp_stat), .s_fault(eqp_fault),
      .s_fault_client(eqp_fault_client), .s_fault_wr(eqp_fault_wr), .s_fault_iova(eqp_fault_iova),
      .s_fire(eqp_fire), .s_vec(eqp_vec));
endmodule
