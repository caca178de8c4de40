// Call arbiter: N callers of one callee job (hca_cq_post, hca_eq_post,
// hca_mr_check, hca_qp_err, hca_complete_send, hca_comp_retire,
// hca_comp_retry), by grant.  A caller raises its level request with its
// arguments and holds both until the callee reports `done` (docs/rtl.md
// "Handshakes"; a caller's request follows its next state, so it drops in
// the `done` cycle itself).  The arbiter grants the callee to one
// requesting caller, the lowest-numbered when the previous cycle served
// nobody or its caller has dropped the request, and keeps that grant while
// the caller holds its request (held_q, own_q: the caller served in the
// previous cycle), so a second caller's request waits, held, and is granted
// in the `done` cycle of the first call (the callee, idle again in that
// cycle, starts it there, as for a caller's back-to-back calls).  The callee
// sees the granted caller's request and arguments (zero when nobody calls,
// as the AND-OR merge it replaces); `done` goes back to the caller served in
// the previous cycle: a callee reports done one cycle or more after its
// call's first cycle, and the caller holds its request until then, so that
// is the caller whose call ends (registered: `done` does not loop through
// the callers' requests).  With one caller requesting at a time (one work
// item, hca_dispatch) the grant is the request in the same cycle: no cycle
// is added.
module hca_call_arb #(
    parameter int N = 2,                   // callers
    parameter int W = 1                    // argument bits per caller
) (
    input  logic           clk,
    input  logic           rst_n,
    input  logic           ce,
    input  logic           srst,
    input  logic [N-1:0]   req,            // the callers' level requests
    input  logic [N*W-1:0] arg,            // [W*i +: W]: caller i's arguments
    input  logic           done,           // the callee's done
    output logic           c_req,          // to the callee: the granted request
    output logic [W-1:0]   c_arg,          //   and its arguments
    output logic [N-1:0]   gnt,            // one-hot: the caller being served
    output logic [N-1:0]   c_done          // done, to the caller served in the previous cycle
);
  localparam int IW = N > 1 ? $clog2(N) : 1;
  logic          held_q;                   // the previous cycle served a caller
  logic [IW-1:0] own_q;                    // that caller
  logic [IW-1:0] pick;
  logic [IW-1:0] own;
  always_comb begin : lowest
    integer i;
    pick = '0;
    for (i = N - 1; i >= 0; i = i - 1)
      if (req[i]) pick = IW'(i);
  end
  assign own    = (held_q && req[own_q]) ? own_q : pick;
  assign c_req  = |req;
  assign gnt    = c_req ? (N'(1) << own) : '0;
  // zero when idle, as the AND-OR was; a select per caller with a constant
  // offset, taken only for the caller granted (a Verilated variable part
  // select of the wide `arg`, and `c ? x : 0`, shift and select every word
  // on every evaluation: docs/sim.md 9.1)
  always_comb begin : arg_mux
    integer i;
    i = 0;                                 // (assigned on every path: no latch)
    c_arg = '0;
    if (c_req)
      for (i = 0; i < N; i = i + 1)
        if (own == IW'(i)) c_arg = arg[W*i +: W];
  end
  assign c_done = (done && held_q) ? (N'(1) << own_q) : '0;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      held_q <= 1'b0; own_q <= '0;
    end else if (srst) begin
      held_q <= 1'b0;
    end else if (ce) begin
      held_q <= c_req;
      own_q  <= own;
    end
  end
endmodule
