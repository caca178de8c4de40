`include "hca_defs.vh"

// Engine-initiated move of the item's QP to ERR (model/qp.c model_qp_to_err).
//
// Job (docs/rtl.md "Handshakes"): `req` held with has/evt until `done`.
// QPERRST_SET_ERR: nothing if the QP is already in ERR or RESET; else the QP
// state becomes ERR (the item's copy and hca_ctx), an SQD drain in progress
// ends, the transport timer stops (TXS_TMR; hca_timers forgets its deadline
// when it passes), and, if `has`, the asynchronous event `evt` is raised (QP_FATAL,
// QP_REQ_ERR, QP_ACCESS_ERR).  QPERRST_EVENTS: LAST_WQE_REACHED for a QP on
// an SRQ; the QP is marked busy so that its next step flushes it.
// Callers: hca_req, hca_comp_retire, hca_qp_flush, hca_comp, hca_resp,
// hca_complete_send, hca_complete_recv.
module hca_qp_err #(
    parameter int LOG_MAX_QP = 8
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        req,
    input  logic        has,             // raise evt
    input  logic [7:0]  evt,
    input  logic        ext,             // with req: the QP is not the item's (above)
    output logic        done,
    output logic        dbg_act,
    output logic [7:0]  dbg_st,
    // the item (hca_dispatch)
    input  logic [LOG_MAX_QP-1:0] qn,
    input  logic [2:0]  qp_st,
    input  logic        use_srq,
    output logic [2:0]  st_wm,
    output logic [2:0]  st_wv,
    output logic [`TXS_W-1:0] txs_wm,
    output logic [`TXS_W-1:0] txs_wv,
    // hca_ctx, hca_regs
    output logic        s_qp_set,
    output logic [2:0]  s_qp_val,
    output logic        s_busy_set,
    output logic        s_evt,
    output logic [7:0]  s_evt_type,
    output logic [31:0] s_evt_elem
);
  localparam logic [2:0] QPS_RESET = 3'(`HCA_QPS_RESET), QPS_ERR = 3'(`HCA_QPS_ERR);
  typedef enum logic [1:0] {QPERRST_IDLE, QPERRST_SET_ERR, QPERRST_EVENTS} st_t;
  st_t state_q, state;
  always_comb begin
    state = state_q;
    if (state_q == QPERRST_IDLE && req) state = QPERRST_SET_ERR;
  end
  assign dbg_act = state != QPERRST_IDLE;
  assign dbg_st  = 8'(state);

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= QPERRST_IDLE; done <= 1'b0; st_wm <= '0; st_wv <= '0; txs_wm <= '0; txs_wv <= '0;
      s_qp_set <= 1'b0; s_qp_val <= '0; s_busy_set <= 1'b0; s_evt <= 1'b0; s_evt_type <= '0; s_evt_elem <= '0;
    end else if (srst) begin
      state_q <= QPERRST_IDLE; done <= 1'b0; st_wm <= '0; st_wv <= '0; txs_wm <= '0; txs_wv <= '0;
      s_qp_set <= 1'b0; s_busy_set <= 1'b0; s_evt <= 1'b0;
    end else if (ce) begin
      done <= 1'b0; st_wm <= '0; st_wv <= '0; txs_wm <= '0; txs_wv <= '0;
      s_qp_set <= 1'b0; s_busy_set <= 1'b0; s_evt <= 1'b0;
      state_q <= state;
      case (state)
        QPERRST_SET_ERR:
          if (qp_st == QPS_ERR || qp_st == QPS_RESET) begin
            done <= 1'b1; state_q <= QPERRST_IDLE;
          end else begin
            s_qp_set <= 1'b1; s_qp_val <= QPS_ERR;
            if (!ext) begin
              st_wm <= '1; st_wv <= QPS_ERR;
              `HCA_WSET(txs_wm, txs_wv, `TXS_DRAIN_O, 1, 1'b0)
              `HCA_WSET(txs_wm, txs_wv, `TXS_TMR_O, 2, `TMR_NONE)
            end
            if (has) begin
              s_evt <= 1'b1; s_evt_type <= evt; s_evt_elem <= {{(32-LOG_MAX_QP){1'b0}}, qn};
            end
            state_q <= QPERRST_EVENTS;
          end
        QPERRST_EVENTS: begin
          if (use_srq) begin
            s_evt <= 1'b1; s_evt_type <= 8'(`HCA_EVENT_QP_LAST_WQE_REACHED);
            s_evt_elem <= {{(32-LOG_MAX_QP){1'b0}}, qn};
          end
          s_busy_set <= 1'b1;
          done <= 1'b1; state_q <= QPERRST_IDLE;
        end
        default: ;
      endcase
    end
  end
endmodule
