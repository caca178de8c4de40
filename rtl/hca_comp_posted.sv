`include "hca_defs.vh"

// The posted CQE writes of ACK items (docs/rtl.md "Posted CQE writes", "CQE
// batches"): which QPs are held while their CQE's outcome is pending, and
// the resolution of lost ones (model/qp.c post_send_cqe: QP_FATAL, the QP to
// ERR).
//
// A table of the posted CQEs in post order (HN entries: hca_cq_post's
// outstanding write and its batch, all of one CQ): `p_add` (hca_cq_post
// accepted one; the item's QP `qn`, its SRQ flag) appends an entry; hca_cq_post
// reports the outcomes oldest first (`p_gn`: that many came back good, they
// leave; `p_l1`: the oldest unresolved one is lost -- after a loss every
// later one is lost too, the CQ being in error).  An entry belongs to the
// item in progress until hca_comp ends the item with it pending (`start`,
// hca_comp `ho`: the entry is *ended*); the item's own entry is the youngest
// (an item waits for its CQE's outcome before it posts another), and
// own_pend / own_lost tell hca_comp about it (a lost one leaves the table:
// hca_comp applies it itself, COMPST_WAIT_LOST_QP_ERR).
// While an ended entry is in the table, `hold` is high: hca_dispatch starts
// only steps and ACK/NAK frames of QPs not in the table (held_v, held_qn),
// no event item; hca_transport withholds hca_eq_post and hca_qp_err from
// every other caller, and hca_cq_post starts nothing but a batch entry, so
// that nothing of a later item comes before the outcomes (the model's
// order: the ACK item whole, then the next).  A good outcome ends its part
// of the hold in its own cycle.  A lost ended entry at the head: POSTST_LOST,
// POSTST_QUIET wait for the engine to be quiet two cycles running (`quiet`:
// the dispatcher idle -- `res` keeps it from starting anything -- or the
// item in progress parked at one of the withheld callees, and no registered
// strobe in flight), then POSTST_WAIT_QP_ERR calls hca_qp_err for hold_qn
// (the head's QP) with QP_FATAL (`qe_ext`: its state read from hca_ctx, its
// item words left alone, hca_ctx indexed by hold_qn while the call and its
// strobes last: `res_idx`).  POSTST_AFTER lets the strobes land and the
// entry leaves; the next lost one follows, in post order.
// Caller: hca_comp (start), hca_cq_post (outcomes).  Calls: hca_qp_err.
module hca_comp_posted #(
    parameter int LOG_MAX_QP = 8,
    parameter int HN = 4                 // entries: hca_cq_post's write and its batch (2 * NB)
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        start,           // hca_comp: the item ends, its CQE outcome pending
    input  logic [LOG_MAX_QP-1:0] qn,    // the item's QP (with p_add)
    input  logic        use_srq,         // its SRQ flag (with p_add)
    input  logic        p_add,           // hca_cq_post: a posted CQE accepted
    input  logic [1:0]  p_gn,            // ... the oldest ones came back good
    input  logic        p_l1,            // ... the oldest unresolved one is lost
    input  logic        quiet,           // the engine may be borrowed (above)
    output logic        hold,            // an ended entry pending: only other QPs' steps and ACKs, callees withheld
    output logic        res,             // a lost outcome not yet applied: nothing starts
    output logic [HN-1:0] held_v,        // the QPs in the table (no step, timer or frame of theirs)
    output logic [HN*LOG_MAX_QP-1:0] held_qn,
    output logic [LOG_MAX_QP-1:0] hold_qn,   // the head's QP (the loss being applied)
    output logic        hold_srq,
    output logic        res_idx,         // hca_ctx's QP index is hold_qn
    output logic        own_pend,        // the item in progress has a CQE pending
    output logic        own_lost,        // ... and it is lost now
    // hca_qp_err
    output logic        qe_req,
    input  logic        qe_done
);
  localparam int QW = LOG_MAX_QP;
  localparam int HW = $clog2(HN);
  typedef enum logic [2:0] {POSTST_IDLE, POSTST_LOST, POSTST_QUIET, POSTST_WAIT_QP_ERR,
                            POSTST_AFTER} st_t;
  st_t state_q, state;
  logic [2:0]      cnt_q, cnt_n, fu;
  logic [HN*QW-1:0] qn_q, qn_n;
  logic [HN-1:0]   srq_q, srq_n, end_q, end_n, l_q, l_n, vmask, gmask;
  logic            head_lost, own_v, own_good;
  always_comb begin : masks
    integer i;
    fu = cnt_q;                      // the oldest unresolved entry
    for (i = HN - 1; i >= 0; i = i - 1) begin
      vmask[i] = 3'(i) < cnt_q;
      gmask[i] = 3'(i) < {1'b0, p_gn};
      if (3'(i) < cnt_q && !l_q[i]) fu = 3'(i);
    end
  end
  assign head_lost = cnt_q != 3'd0 && l_q[0] && end_q[0];
  assign own_v     = cnt_q != 3'd0 && !end_q[HW'(cnt_q - 3'd1)];
  assign own_good  = own_v && {1'b0, p_gn} >= cnt_q;
  assign own_lost  = own_v && p_l1 && fu == cnt_q - 3'd1;
  assign own_pend  = own_v && !own_good && !own_lost;

  always_comb begin
    state = state_q;
    case (state_q)
      POSTST_IDLE:        if (head_lost) state = POSTST_LOST;
      POSTST_LOST:        if (quiet) state = POSTST_QUIET;
      POSTST_QUIET:       state = quiet ? POSTST_WAIT_QP_ERR : POSTST_LOST;
      POSTST_WAIT_QP_ERR: if (qe_done) state = POSTST_AFTER;
      POSTST_AFTER:       state = POSTST_IDLE;
      default: ;
    endcase
  end
  // Outputs from registers (no path from `quiet`, which sees the strobes the
  // withheld grants decide, back to the grants); the good outcome ends its
  // part of the hold in its own cycle.
  assign hold    = |(end_q & vmask & ~gmask);
  assign res     = state_q != POSTST_IDLE || head_lost;
  assign qe_req  = state_q == POSTST_WAIT_QP_ERR && !qe_done;
  // hca_qp_err acts in its call's first cycle (the state read), its strobes
  // land in the next two (QP state; busy bit)
  assign res_idx = state_q == POSTST_WAIT_QP_ERR || state_q == POSTST_AFTER;
  assign hold_qn  = qn_q[QW-1:0];
  assign hold_srq = srq_q[0];
  assign held_v   = vmask & ~gmask;        // a good outcome releases its QP in its own cycle
  assign held_qn  = qn_q;

  // the table's next contents: ended, lost, the own lost one out, the
  // resolved ones popped from the head, a new one appended
  always_comb begin : nxt
    logic [2:0] c, k;
    qn_n = qn_q; srq_n = srq_q; end_n = end_q; l_n = l_q;
    c = cnt_q;
    if (start) end_n = end_n | vmask;
    if (p_l1 && fu < cnt_q) l_n[fu[HW-1:0]] = 1'b1;
    if (own_lost) c = c - 3'd1;
    k = {1'b0, p_gn} + 3'(state_q == POSTST_AFTER);
    qn_n  = qn_n >> (QW * k);
    srq_n = srq_n >> k;
    end_n = end_n >> k;
    l_n   = l_n >> k;
    c = c - k;
    if (p_add) begin
      qn_n[QW*c +: QW] = qn;
      srq_n[c[HW-1:0]] = use_srq;
      end_n[c[HW-1:0]] = 1'b0;
      l_n[c[HW-1:0]]   = 1'b0;
      c = c + 3'd1;
    end
    cnt_n = c;
  end

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= POSTST_IDLE; cnt_q <= '0; qn_q <= '0; srq_q <= '0; end_q <= '0; l_q <= '0;
    end else if (srst) begin
      state_q <= POSTST_IDLE; cnt_q <= '0; end_q <= '0; l_q <= '0;
    end else if (ce) begin
      state_q <= state;
      cnt_q <= cnt_n; qn_q <= qn_n; srq_q <= srq_n; end_q <= end_n; l_q <= l_n;
    end
  end
endmodule
