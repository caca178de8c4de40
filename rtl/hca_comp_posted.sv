`include "hca_defs.vh"

// The posted CQE write of an ACK item that has ended (docs/rtl.md "Posted
// CQE writes"): the hold while its outcome is pending, and the resolution of
// a lost one (model/qp.c post_send_cqe: QP_FATAL, the QP to ERR).
//
// hca_comp ends an ACK item of a QP in RTS while its completion's CQE write
// is still outstanding (`start`: hca_cq_post `pend`, COMPST_END) and hands
// the outcome over, with the QP number and its SRQ flag.  Until the outcome
// is applied, `hold` is high: hca_dispatch starts only steps and ACK/NAK
// frames of other QPs (no other frame, no event item, no step, timer or
// frame of `hold_qn`; hca_comp tells this write from its own, fgn_q), and hca_transport
// withholds the grants of hca_cq_post, hca_eq_post and hca_qp_err from every
// other caller, so that nothing of a later item comes before the outcome
// (the model's order: the ACK item whole, then the next).
// POSTST_PEND: the write's response.  Good (p_done, not p_lost): the hold
// ends in that cycle.  Lost: hca_cq_post raises CQ_ERR (CQ error, slot taken
// back, DMA fault) and POSTST_LOST, POSTST_QUIET wait for the engine to be
// quiet two cycles running (`quiet`: the dispatcher idle -- `res` keeps it
// from starting anything -- or the item in progress parked at one of the
// withheld callees, and no registered strobe in flight: a job that parked
// in the cycle it acted has its strobes seen in the second), then
// POSTST_WAIT_QP_ERR calls hca_qp_err for hold_qn
// with QP_FATAL (`qe_ext`: the QP is not the item's; its state read from
// hca_ctx, its item words left alone, hca_ctx indexed by hold_qn while the
// call and its strobes last: `res_idx`).  POSTST_AFTER lets the strobes land
// and the hold ends.
// Caller: hca_comp (start).  Calls: hca_qp_err.
module hca_comp_posted #(
    parameter int LOG_MAX_QP = 8
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        start,           // hca_comp: the item ends, its CQE write outstanding
    input  logic [LOG_MAX_QP-1:0] qn,    // the item's QP (with start)
    input  logic        use_srq,         // its SRQ flag (with start)
    input  logic        p_done,          // hca_cq_post: the posted write's response
    input  logic        p_lost,          // with p_done: it faulted
    input  logic        quiet,           // the engine may be borrowed (above)
    output logic        hold,            // an outcome pending: only other QPs' steps and ACKs, callees withheld
    output logic        res,             // a lost outcome not yet applied: nothing starts
    output logic [LOG_MAX_QP-1:0] hold_qn,
    output logic        hold_srq,
    output logic        res_idx,         // hca_ctx's QP index is hold_qn
    // hca_qp_err
    output logic        qe_req,
    input  logic        qe_done
);
  typedef enum logic [2:0] {POSTST_IDLE, POSTST_PEND, POSTST_LOST, POSTST_QUIET, POSTST_WAIT_QP_ERR,
                            POSTST_AFTER} st_t;
  st_t state_q, state;
  always_comb begin
    state = state_q;
    case (state_q)
      POSTST_IDLE:        if (start) state = POSTST_PEND;
      POSTST_PEND:        if (p_done) state = p_lost ? POSTST_LOST : POSTST_IDLE;
      POSTST_LOST:        if (quiet) state = POSTST_QUIET;
      POSTST_QUIET:       state = quiet ? POSTST_WAIT_QP_ERR : POSTST_LOST;
      POSTST_WAIT_QP_ERR: if (qe_done) state = POSTST_AFTER;
      POSTST_AFTER:       state = POSTST_IDLE;
      default: ;
    endcase
  end
  // Outputs from state_q (no path from `quiet`, which sees the strobes the
  // withheld grants decide, back to the grants); the good outcome ends the
  // hold in its own cycle (hca_cq_post is idle from the next one, so a
  // withheld post granted now starts after it).
  assign hold    = state_q != POSTST_IDLE && !(state_q == POSTST_PEND && p_done && !p_lost);
  assign res     = state_q != POSTST_IDLE && state_q != POSTST_PEND;
  assign qe_req  = state_q == POSTST_WAIT_QP_ERR && !qe_done;
  // hca_qp_err acts in its call's first cycle (the state read), its strobes
  // land in the next two (QP state; busy bit)
  assign res_idx = state_q == POSTST_WAIT_QP_ERR || state_q == POSTST_AFTER;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= POSTST_IDLE; hold_qn <= '0; hold_srq <= 1'b0;
    end else if (srst) begin
      state_q <= POSTST_IDLE;
    end else if (ce) begin
      state_q <= state;
      if (state_q == POSTST_IDLE && start) begin
        hold_qn  <= qn;
        hold_srq <= use_srq;
      end
    end
  end
endmodule
