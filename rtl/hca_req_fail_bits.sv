// Which QPs may hold a locally failed WQE in the outstanding table (issue
// 12, a shorter requester step): one bit per QP, so that a step of a QP in
// RTS whose bit is clear goes from REQST_CHECK_STATE straight to its cursor
// decision instead of calling hca_comp_retire (RETIREST_CHECK,
// RETIREST_CHECK_OUTS) and passing REQST_DRAIN and REQST_CURSOR: the retire
// (model/comp.c model_comp_retire, called at every requester step) only
// acts on a failed entry at SQ_CI, so it would find nothing.
//
// The outstanding table has one writer, hca_req: a failed entry is written
// by REQST_WQE_ERR, REQST_WQE_FAIL and REQST_FAULT_OUTS only, and every
// such write sets its QP's bit here (`set`, `set_qn`, the cycle of the
// table write).  A bit is cleared only when a step of its QP finds no WQE
// outstanding (`clr`: SQ_CI = SQ_HEAD in REQST_CHECK_STATE, `clr_qn`): no
// entry between SQ_CI and SQ_HEAD is then left, failed or not, and the
// entries written after that by REQST_GATE are not failed until one of the
// writes above sets the bit again.  A set wins over a clear in the same
// cycle.  Reset and soft reset set every bit (conservative: each QP's first
// step with WQEs outstanding calls the retire, as before).
// Combinational read (`may` of `qn`).  Caller: hca_req.  Model: none (a
// shortcut for a call that would do nothing).
module hca_req_fail_bits #(
    parameter int LOG_MAX_QP = 8,
    localparam int NQP = 1 << LOG_MAX_QP
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        set,
    input  logic [LOG_MAX_QP-1:0] set_qn,
    input  logic        clr,
    input  logic [LOG_MAX_QP-1:0] clr_qn,
    input  logic [LOG_MAX_QP-1:0] qn,
    output logic        may
);
  logic [NQP-1:0] bits;
  assign may = bits[qn];
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n)
      bits <= '1;
    else if (srst)
      bits <= '1;
    else if (ce) begin
      if (clr) bits[clr_qn] <= 1'b0;
      if (set) bits[set_qn] <= 1'b1;
    end
  end
endmodule
