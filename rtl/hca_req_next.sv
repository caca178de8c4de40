// The requester step's shortcuts (issue 12, a shorter requester step):
// which of hca_req's states a step does in the cycle of the state before
// it, because that state would only pass on.  Combinational, apart from the
// per-QP failed-entry bits (hca_req_fail_bits) it asks.  Each output names
// the state whose work hca_req does early; every decision is the one that
// state would make, on the same words (nothing the step does in between
// changes them), so the step makes the model's decisions in the model's
// order, fewer cycles apart.
//   * fast_cursor: REQST_CHECK_STATE goes straight to the cursor decision
//     (REQST_CURSOR's) when the QP is in RTS, no payload fault waits, and
//     the retire (model/comp.c model_comp_retire) would find nothing: no WQE
//     outstanding, or none that may have failed (`may` low); or when it
//     comes back for the WQE whose read it gave way to (`yq_back`: its step
//     checked them, the items run since retire what they complete or fail);
//   * take_early: ... and that decision starts the WQE at SQ_HEAD (`cur_fetch`)
//     whose prefetch is done: REQST_CHECK_STATE takes it (REQST_FETCH_WQE's
//     work); fetch_go: REQST_FETCH_WQE's fetch, read ahead or take, in
//     either state;
//   * gate_go: REQST_GATE starts the WQE, in REQST_GATE or already in the
//     last lkey check's result cycle (REQST_LKEY_RESULT, the check passed);
//   * hdr_fold: REQST_BUILD_HDR closes the transmit slot of an early payload
//     read (hca_req_pay_early) when a slot is free (REQST_WAIT_TX's work);
//     hdr_commit: ... and commits it ahead of its payload (RC, `tx_async_ok`:
//     REQST_WAIT_PAYLOAD's work, whose wait would end at once);
//   * v_commit: the last key check's result cycle (REQST_VALIDATE_WQE with
//     SGE 0's key checked ahead, or REQST_LKEY_RESULT) that starts an RC
//     WQE (gate_go) and pushes its first packet's one payload piece into a
//     free slot (`ep_go`, hca_req_pay_early) also does REQST_BUILD_HDR's
//     work with hdr_commit: the header of that packet (hca_req_hdr on the
//     entry the start writes, TX_PKT 0 as the start writes it), the slot
//     closed and committed ahead of its payload (`tx_async_ok`);
//   * pay_end: REQST_WAIT_PAYLOAD (or hdr_commit, v_commit) commits a packet that
//     needs no completion of its own and ends the step (REQST_END's work:
//     progress, busy again).
// Caller: hca_req.  Model: model/req.c model_requester (no cycles there).
module hca_req_next #(
    parameter int LOG_MAX_QP = 8
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    // hca_req's state this cycle
    input  logic        st_check, st_fetch, st_gate, st_lkey_result, st_build_hdr, st_wait_payload,
    // a failed outstanding-table entry written (hca_req_fail_bits)
    input  logic        fail_we,
    input  logic [LOG_MAX_QP-1:0] fail_qn,
    input  logic [LOG_MAX_QP-1:0] qn,
    input  logic        rts,             // the QP in RTS
    input  logic        ci_eq_head,      // SQ_CI = SQ_HEAD: no WQE outstanding
    input  logic        pf_hit,
    input  logic        yq_back,
    input  logic        cur_fetch,       // the cursor decision: start the WQE at SQ_HEAD
    input  logic        tw_hit, wp_hit, wp_ready, wp_free_now, give_way,
    input  logic        gate_hold,
    input  logic        mr_ok,           // the key check passed (with its done)
    input  logic        sge_last,        // ... of the WQE's last SGE
    input  logic        p_closed, ep_v, tx_free, tx_async_ok,
    input  logic        d_g_done, pk_async, d_g_fault, is_rc, pk_last,
    input  logic        ep_go,           // the first packet's payload piece pushed now (hca_req_pay_early)
    output logic        fast_cursor, take_early, fetch_go, gate_go, hdr_fold, hdr_commit, v_commit, pay_end
);
  logic may;
  hca_req_fail_bits #(.LOG_MAX_QP(LOG_MAX_QP)) u_fbits (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .set(fail_we), .set_qn(fail_qn),
      .clr(st_check && ci_eq_head), .clr_qn(qn), .qn(qn), .may(may));
  assign fast_cursor = st_check && !pf_hit && rts && (ci_eq_head || !may || (yq_back && wp_hit && cur_fetch));
  assign take_early  = fast_cursor && cur_fetch && !tw_hit && wp_hit && wp_ready;
  assign fetch_go    = take_early ||
                       (st_fetch && !tw_hit && !(wp_hit && !wp_ready) && !(!wp_hit && wp_free_now && give_way));
  assign gate_go     = !gate_hold && (st_gate || (st_lkey_result && mr_ok && sge_last));
  assign hdr_fold    = st_build_hdr && !p_closed && ep_v && tx_free;
  assign hdr_commit  = hdr_fold && is_rc && tx_async_ok;
  assign v_commit    = gate_go && st_lkey_result && ep_go && is_rc && tx_async_ok;
  assign pay_end     = hdr_commit || v_commit ||
                       (st_wait_payload && (d_g_done || pk_async) && !(!pk_async && d_g_fault) && !(!is_rc && pk_last));
endmodule
