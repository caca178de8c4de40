`include "hca_defs.vh"

// The WQE read started by the SQ doorbell itself (issue 12, doorbell to
// wire): a doorbell that posts the next WQE of an idle send queue reads that
// WQE into a prefetch entry (hca_wqe_prefetch) in the cycle it takes effect,
// without waiting for the dispatcher to pick the QP's step (five cycles:
// DISPST_STEP_CLR_BUSY, DISPST_STEP_LOAD, REQST_CHECK_STATE,
// REQST_FETCH_WQE and the fetch's issue).  The step then finds the read in
// flight or done and takes the WQE as a prefetched one (hca_req
// REQST_FETCH_WQE; a fault is reported then, as for any prefetch).
//
// In hca_ctx's doorbell cycle
// (`db_sq_now`: an SQ doorbell that passed its checks) the QP's words are
// those before it: the QPC (`cfg`), the requester word and the old producer
// index.  The requester word is the context RAM's (`txs`: the engine's last
// write-back), or, while an engine item of this QP holds its words
// (`e_step_mid`, write-back cycle included), the item's own (`e_txs`:
// hca_dispatch's words with its jobs' writes, newer than the RAM's).  The
// read is issued (`issue`, key {QPN, SQ_HEAD, qpc_gen}) when
//   * the QP is in RTS, its send queue idle (SQ_HEAD = TX_WQE = the old
//     producer index: every posted WQE started and sent), so the WQE at
//     SQ_HEAD is the one the doorbell posts and the next the QP starts, and
//     the outstanding table has room for it;
//   * the word is current: the item's, or the RAM's when no item of this QP
//     reads or writes back its words in this cycle or the one before
//     (`e_step_*`; `touch_q`: the RAM may not have the write-back yet);
//   * the doorbell covers it (SQ_HEAD within the new producer index): only
//     posted WQEs are read, which software may no longer change.
// Else nothing happens here and the step fetches the WQE as before.
// The read is always of WQE index old producer index, the first one this
// doorbell posts: it cannot have been started, let alone completed, so its
// slot holds it until the QP's step takes it (key match).  An item of the
// QP that moves SQ_HEAD after the doorbell (a retry's rewind) or a step that
// fetches the WQE itself only leaves the entry unused (a wasted read, the
// entry taken by the QP's next prefetch), never a wrong WQE.  A doorbell
// that lands during the QP's own item is the common case of a stream that
// posts one WQE per completion: the completion's CQE write lands inside
// the item that completes the WQE (an ACK or READ response), the doorbell
// with it, and the QP's next step comes right after that item
// (docs/rtl.md, Performance "The READ streams at 64 bits").
// The read is the WQE's first read, min(stride, 80) bytes (the header and
// one segment, as every first read of a send WQE: hca_req wqe_len1); a WQE
// longer than that is read again whole by the step that takes it.
// hca_wqe_prefetch takes the request only if no requester issue comes in
// the same cycle, no entry holds that key yet and an entry is free for it
// (its own, empty or stale: it never evicts another QP's entry).
// Model: none (model/req.c start_wqe reads the WQE when the doorbell starts
// it; this only moves the RTL's read earlier).
module hca_db_wqe_read #(
    parameter int LOG_MAX_QP = 8,
    parameter int LOG_OUTS   = 5,
    localparam int OUTS = 1 << LOG_OUTS
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    // hca_ctx: the doorbell
    input  logic        db_sq_now,
    input  logic [LOG_MAX_QP-1:0] db_qn,
    input  logic [15:0] db_pi,
    input  logic [15:0] db_old_pi,
    input  logic [2:0]  db_qp_st,
    input  logic [1023:0] cfg,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [`TXS_W-1:0] txs,        // SQ_CI, SQ_HEAD, TX_WQE used (the RAM's)
    input  logic [`TXS_W-1:0] e_txs,      // ... the engine item's (hca_dispatch txs)
    /* verilator lint_on UNUSEDSIGNAL */
    // the engine's item (hca_dispatch e_step_*) and QPC write count
    input  logic [LOG_MAX_QP-1:0] e_step_qn,
    input  logic        e_step_read,
    input  logic        e_step_mid,
    input  logic        e_step_wb,
    input  logic [15:0] qpc_gen,
    // hca_wqe_prefetch
    output logic        issue,
    output logic [LOG_MAX_QP+31:0] key,
    output logic [63:0] addr,
    output logic [15:0] len
);
  `include "hca_funcs.vh"

  // an engine item of QP q reads, holds or writes back its words now
  function automatic logic touches(input logic [LOG_MAX_QP-1:0] q);
    touches = (e_step_read || e_step_mid || e_step_wb) && e_step_qn == q;
  endfunction

  logic touch_now, touch_q, live;
  assign touch_now = touches(db_qn);
  assign live      = e_step_mid && e_step_qn == db_qn;   // the item holds the QP's words now

  /* verilator lint_off UNUSEDSIGNAL */
  logic [7:0]  v_type, v_flags, v_hop, v_tclass, v_sgid, v_mra, v_mdra;
  logic        v_rc, v_uc, v_ud, v_srq;
  logic [31:0] v_pdn, v_qkey, v_scq, v_rcq, v_srqn, v_pmtu, v_dip;
  logic [15:0] v_access;
  logic [3:0]  v_lrs;
  logic [4:0]  v_lrq, v_rnr, v_to;
  logic [11:0] v_pmtu_log;
  logic [63:0] v_rq_base;
  logic [47:0] v_dmac;
  logic [23:0] v_dqpn;
  logic [2:0]  v_retry, v_rnr_retry;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [3:0]  log_stride;
  logic [4:0]  log_size;
  logic [63:0] sq_base;
  hca_qpc_view u_view (
      .cfg(cfg), .qp_type(v_type), .is_rc(v_rc), .is_uc(v_uc), .is_ud(v_ud), .flags(v_flags), .use_srq(v_srq),
      .pdn(v_pdn), .qkey(v_qkey), .access(v_access), .send_cqn(v_scq), .recv_cqn(v_rcq), .srqn(v_srqn),
      .log_sq_stride(log_stride), .log_sq_size(log_size), .log_rq_stride(v_lrs), .log_rq_size(v_lrq),
      .pmtu_log(v_pmtu_log), .pmtu(v_pmtu), .sq_base(sq_base), .rq_base(v_rq_base), .dmac(v_dmac), .dip(v_dip),
      .hop_limit(v_hop), .tclass(v_tclass), .dest_qpn(v_dqpn), .sgid_index(v_sgid), .min_rnr_timer(v_rnr),
      .timeout(v_to), .retry_cnt(v_retry), .rnr_retry(v_rnr_retry), .max_rd_atomic(v_mra),
      .max_dest_rd_atomic(v_mdra));

  /* verilator lint_off UNUSEDSIGNAL */
  logic [`TXS_W-1:0] w;                // SQ_CI, SQ_HEAD, TX_WQE used
  /* verilator lint_on UNUSEDSIGNAL */
  logic [15:0] head, posted;
  logic        want;
  assign w      = live ? e_txs : txs;
  assign head   = w[`TXS_SQ_HEAD_O +: 16];
  assign posted = db_pi - head;
  assign want   = db_sq_now && db_qp_st == 3'(`HCA_QPS_RTS) && (live || (!touch_now && !touch_q)) &&
                  head == db_old_pi && w[`TXS_TX_WQE_O +: 16] == head &&
                  (head - w[`TXS_SQ_CI_O +: 16]) < 16'(OUTS - 1) &&
                  posted != 16'd0 && {16'b0, posted} <= (32'd1 << log_size);

  // The read is registered and issued in the next engine cycle (`ce`: the
  // harness performs register accesses with the engine held), whatever
  // item runs then: a step of the QP that starts after it finds the entry
  // (hca_req REQST_FETCH_WQE: in flight or ready), one in the same cycle
  // wins the prefetch's issue or fetches into fetch buffer 0 (the entry
  // then goes unused).
  logic pend;
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      touch_q <= 1'b0; pend <= 1'b0; key <= '0; addr <= '0; len <= '0;
    end else begin
      touch_q <= touch_now;                // (the doorbell's request is held: db_qn the same next cycle)
      if (srst)
        pend <= 1'b0;
      else if (want) begin
        pend <= 1'b1;
        key  <= {db_qn, head, qpc_gen};
        addr <= slot_addr(sq_base, head, log_size, log_stride);
        len  <= wqe_first_len(log_stride);
      end else if (ce)
        pend <= 1'b0;                      // issued (or dropped) in this engine cycle
    end
  end
  assign issue = pend && ce;
endmodule
