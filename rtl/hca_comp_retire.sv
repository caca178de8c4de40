`include "hca_defs.vh"

// Retirement of the oldest send WQE when it failed locally
// (model/comp.c model_comp_retire).
//
// Job (docs/rtl.md "Handshakes"): `req` held until `done`; result `hit` (a
// WQE was retired).  RETIREST_CHECK: nothing when no WQE is outstanding,
// else it reads the outstanding-table entry at SQ_CI (RETIREST_READ_OUTS
// reads it again when a table write lands in that cycle, `ow_we`: the
// caller's own, hca_req REQST_WQE_ERR, REQST_WQE_FAIL, REQST_FAULT_OUTS;
// read-during-write gives the old entry);
// RETIREST_CHECK_OUTS: nothing unless it failed locally (OW_ERR), else the
// QP's new state is published at once (RC: ERR, UC/UD: SQE), so that a
// driver that polls the error CQE and then queries the QP sees it, and the
// WQE completes with its status through hca_complete_send;
// RETIREST_AFTER_CQE: RC moves the QP to ERR (hca_qp_err, no event: the
// job's last step), UC/UD to SQE (item copy, SQD drain ended, QP busy).  The
// item's QP state copy keeps the old state until then, so the event
// decisions in between (QP_FATAL on a lost CQE, LAST_WQE_REACHED) are the
// model's, which posts the CQE first and then moves the QP.
// Callers: hca_req, hca_comp.  Calls: hca_complete_send, hca_qp_err.
module hca_comp_retire #(
    parameter int LOG_MAX_QP = 8,
    parameter int LOG_OUTS   = 5
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        req,
    output logic        done,
    output logic        hit,
    output logic        dbg_act,
    output logic [7:0]  dbg_st,
    // the item
    input  logic [LOG_MAX_QP-1:0] qn,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [`TXS_W-1:0] txs,       // SQ_CI and SQ_HEAD
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [2:0]  qp_st,
    input  logic        is_rc,
    output logic [2:0]  st_wm,
    output logic [2:0]  st_wv,
    output logic [`TXS_W-1:0] txs_wm,
    output logic [`TXS_W-1:0] txs_wv,
    output logic        s_qp_set,
    output logic [2:0]  s_qp_val,
    output logic        s_busy_set,
    // outstanding table read port
    output logic        ow_re,
    output logic [LOG_MAX_QP+LOG_OUTS-1:0] ow_raddr,
    input  logic [`OW_W-1:0] ow_rdata,
    input  logic        ow_we,           // the table is written in this cycle (hca_req)
    // hca_complete_send
    output logic        sc_req,
    output logic [`OW_W-1:0] sc_ow,
    output logic [4:0]  sc_status,
    output logic [7:0]  sc_verr,
    output logic        sc_force,
    input  logic        sc_done,
    // hca_qp_err
    output logic        qe_req,
    output logic        qe_has,
    output logic [7:0]  qe_evt,
    input  logic        qe_done
);
  localparam logic [2:0] QPS_RESET = 3'(`HCA_QPS_RESET), QPS_RTS = 3'(`HCA_QPS_RTS),
                         QPS_SQD = 3'(`HCA_QPS_SQD), QPS_SQE = 3'(`HCA_QPS_SQE), QPS_ERR = 3'(`HCA_QPS_ERR);
  typedef enum logic [2:0] {RETIREST_IDLE, RETIREST_CHECK, RETIREST_READ_OUTS, RETIREST_CHECK_OUTS,
                            RETIREST_WAIT_SEND_DONE, RETIREST_AFTER_CQE, RETIREST_WAIT_QP_ERR} st_t;
  st_t state_q, state;
  always_comb begin
    state = state_q;
    case (state_q)
      RETIREST_IDLE:           if (req) state = RETIREST_CHECK;
      RETIREST_WAIT_SEND_DONE: if (sc_done) state = RETIREST_AFTER_CQE;
      RETIREST_WAIT_QP_ERR:    if (qe_done) state = RETIREST_IDLE;
      default: ;
    endcase
  end
  assign sc_req  = state == RETIREST_WAIT_SEND_DONE;
  assign qe_req  = state == RETIREST_WAIT_QP_ERR;
  assign sc_force = 1'b0;
  assign qe_has  = 1'b0;
  assign qe_evt  = 8'h0;
  assign dbg_act = state != RETIREST_IDLE && !sc_req && !qe_req;
  assign dbg_st  = 8'(state);

  logic done_q;
  assign done = done_q || (state_q == RETIREST_WAIT_QP_ERR && qe_done);   // RC: QP to ERR is the last step

  logic [15:0] sq_ci, sq_head;
  assign sq_ci    = txs[`TXS_SQ_CI_O +: 16];
  assign sq_head  = txs[`TXS_SQ_HEAD_O +: 16];
  assign ow_re    = (state == RETIREST_CHECK && sq_ci != sq_head) || state == RETIREST_READ_OUTS;
  assign ow_raddr = {qn, sq_ci[LOG_OUTS-1:0]};

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= RETIREST_IDLE; done_q <= 1'b0; hit <= 1'b0; st_wm <= '0; st_wv <= '0; txs_wm <= '0; txs_wv <= '0;
      s_qp_set <= 1'b0; s_qp_val <= '0; s_busy_set <= 1'b0; sc_ow <= '0; sc_status <= '0; sc_verr <= '0;
    end else if (srst) begin
      state_q <= RETIREST_IDLE; done_q <= 1'b0; st_wm <= '0; st_wv <= '0; txs_wm <= '0; txs_wv <= '0;
      s_qp_set <= 1'b0; s_busy_set <= 1'b0;
    end else if (ce) begin
      done_q <= 1'b0; st_wm <= '0; st_wv <= '0; txs_wm <= '0; txs_wv <= '0; s_qp_set <= 1'b0; s_busy_set <= 1'b0;
      state_q <= state;
      case (state)
        RETIREST_CHECK: begin
          hit <= 1'b0;
          if (sq_ci != sq_head) state_q <= ow_we ? RETIREST_READ_OUTS : RETIREST_CHECK_OUTS;
          else begin
            done_q <= 1'b1; state_q <= RETIREST_IDLE;
          end
        end
        RETIREST_READ_OUTS: state_q <= RETIREST_CHECK_OUTS;
        RETIREST_CHECK_OUTS:
          if (ow_rdata[`OW_ERR_O]) begin
            if (is_rc) begin
              if (qp_st != QPS_ERR && qp_st != QPS_RESET) begin
                s_qp_set <= 1'b1; s_qp_val <= QPS_ERR;
              end
            end else if (qp_st == QPS_RTS || qp_st == QPS_SQD) begin
              s_qp_set <= 1'b1; s_qp_val <= QPS_SQE;
            end
            sc_ow     <= ow_rdata;
            sc_status <= ow_rdata[`OW_STATUS_O +: 5];
            sc_verr   <= ow_rdata[`OW_VERR_O +: 8];
            state_q   <= RETIREST_WAIT_SEND_DONE;
          end else begin
            done_q <= 1'b1; state_q <= RETIREST_IDLE;
          end
        RETIREST_AFTER_CQE: begin
          hit <= 1'b1;
          if (is_rc)
            state_q <= RETIREST_WAIT_QP_ERR;
          else begin
            if (qp_st == QPS_RTS || qp_st == QPS_SQD) begin
              st_wm <= '1; st_wv <= QPS_SQE;
              s_qp_set <= 1'b1; s_qp_val <= QPS_SQE;
              `HCA_WSET(txs_wm, txs_wv, `TXS_DRAIN_O, 1, 1'b0)
              s_busy_set <= 1'b1;
            end
            done_q <= 1'b1; state_q <= RETIREST_IDLE;
          end
        end
        default: ;
      endcase
    end
  end
endmodule
