`include "hca_defs.vh"

// The requester's use of a prefetched WQE's lkey check done ahead (issue 12,
// the 8-QP row; hca_wqe_lkey_ahead keeps the result with the prefetch entry
// and registers the taken entry's, lk_*).  Combinational apart from `took`.
// REQST_VALIDATE_WQE, in the engine cycle after the take that loaded fetch
// buffer 0 from that entry (`took`), does REQST_LKEY_RESULT's work in its own
// cycle (`use`) when it would ask hca_mr_check for SGE 0's check (v_lkey:
// the WQE passed the validation, one SGE, not inline) of a SEND/WRITE
// (access 0, as the result was made) and the entry carries a result (lk_v:
// none if an MRC write came since the check).  The result is then the one
// hca_mr_check would give on the same bytes and the same MR context: its
// PD verdict made here with the QP's PD (`pdn`, unchanged since the prefetch:
// a QPC write moves qpc_gen, the entry's key); `verr`/`iova` are it, else
// hca_mr_check's; `at_res`: a SGE 0 result cycle (REQST_LKEY_RESULT or
// `use`).  Caller: hca_req.  Model: model/req.c start_wqe (model_mr_check).
module hca_req_lkey_ahead (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        took_now,        // fetch buffer 0 loaded from a prefetch entry in this cycle
    input  logic        st_validate,     // REQST_VALIDATE_WQE
    input  logic        st_result,       // REQST_LKEY_RESULT
    input  logic        v_lkey,
    input  logic        v_rdat,
    input  logic [31:0] pdn,
    input  logic        lk_v,
    input  logic        lk_pdm,
    input  logic [7:0]  lk_verr,
    input  logic [31:0] lk_mpdn,
    input  logic [63:0] lk_iova,
    input  logic [7:0]  mr_verr,
    input  logic [63:0] mr_iova,
    output logic        use_now,
    output logic        at_res,
    output logic [7:0]  verr,
    output logic [63:0] iova
);
  logic took;
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n)      took <= 1'b0;
    else if (srst)   took <= 1'b0;
    else if (ce)     took <= took_now;
  end
  assign use_now = st_validate && took && lk_v && v_lkey && !v_rdat;
  assign at_res  = st_result || use_now;
  assign verr    = !use_now ? mr_verr : (lk_pdm && lk_mpdn != pdn) ? 8'(`HCA_VENDOR_ERR_PD) : lk_verr;
  assign iova    = use_now ? lk_iova : mr_iova;
endmodule
