`include "hca_defs.vh"

// Memory key check (model/dma.c model_mr_check): is [va, va + len) inside the
// MR named by key, with the PD and the access rights asked for?  Result: a
// vendor error (0 = good: LKEY, PD, ACCESS or BOUNDS) and the DMA address of
// va.  A zero length is always good and translates to 0.
//
// Job (docs/rtl.md "Handshakes"): `req` is held with key/pdn/acc/va/len until
// `done` (one cycle); verr/iova are valid with done and held until the next
// request.  Two cycles: MRST_READ_MRC (the MR table read, hca_ctx port B),
// MRST_CHECK, which is the `done` cycle: the result is checked on the table's
// output and handed over at once (and registered, held after it; the
// verdict itself: hca_mr_eval).  The
// arguments are registered with the request (the caller's `req`, which
// selects its arguments, drops in the done cycle).  Callers: hca_req (lkeys of a send WQE's SGEs), hca_resp (RETH
// rkey), hca_scatter (lkeys of a receive WQE's SGEs).
module hca_mr_check #(
    parameter int LOG_MAX_MR = 10
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        req,
    input  logic [31:0] key,
    input  logic [31:0] pdn,
    input  logic [15:0] acc,
    input  logic [63:0] va,
    input  logic [63:0] len,
    output logic        done,
    output logic [7:0]  verr,
    output logic [63:0] iova,
    output logic        dbg_act,
    output logic [7:0]  dbg_st,
    // hca_ctx MR table
    output logic        e_mr_en,
    output logic [LOG_MAX_MR-1:0] e_mr_idx,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [511:0] e_mr_rdata,       // the MRC's fields used here only
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic        e_mr_live
);
  typedef enum logic [1:0] {MRST_IDLE, MRST_READ_MRC, MRST_CHECK} st_t;
  st_t state_q, state;       // state: this cycle's (a request starts at once)
  always_comb begin
    state = state_q;
    if (state_q == MRST_IDLE && req) state = MRST_READ_MRC;
  end
  assign dbg_act = state != MRST_IDLE;
  assign dbg_st  = 8'(state);

  assign e_mr_en  = state == MRST_READ_MRC;
  assign e_mr_idx = key[8 +: LOG_MAX_MR];

  logic [7:0]  c_verr, verr_q;
  logic [63:0] c_iova, iova_q;
  assign done = state_q == MRST_CHECK;
  assign verr = done ? c_verr : verr_q;
  assign iova = done ? c_iova : iova_q;
  logic [31:0] k_q, pdn_q;
  logic [15:0] acc_q;
  logic [63:0] va_q, len_q;
  always_ff @(posedge clk) begin
    if (ce && state == MRST_READ_MRC) begin
      k_q <= key; pdn_q <= pdn; acc_q <= acc; va_q <= va; len_q <= len;
    end
  end
  hca_mr_eval #(.LOG_MAX_MR(LOG_MAX_MR)) u_eval (
      .key(k_q), .pdn(pdn_q), .acc(acc_q), .va(va_q), .len(len_q), .mrc(e_mr_rdata), .live(e_mr_live),
      .verr(c_verr), .iova(c_iova));

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= MRST_IDLE; verr_q <= '0; iova_q <= '0;
    end else if (srst) begin
      state_q <= MRST_IDLE;
    end else if (ce) begin
      state_q <= state;
      case (state)
        MRST_READ_MRC: state_q <= MRST_CHECK;
        MRST_CHECK: begin
          verr_q  <= c_verr;
          iova_q  <= c_iova;
          state_q <= MRST_IDLE;
        end
        default: ;
      endcase
    end
  end
endmodule
