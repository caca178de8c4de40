`include "hca_defs.vh"

// A transport timer of the item's QP whose deadline passed
// (model/comp.c model_comp_timers).
//
// Job (docs/rtl.md "Handshakes"): `req` held until `done`; called by
// hca_dispatch before the step of a QP whose hca_timers `due` bit is set.
// TMRST_READ_HEAD reads the outstanding-table entry at SQ_CI; TMRST_CHECK,
// by the timer the QP runs (TXS_TMR):
//   * none (the QP was reset or moved to ERR since): the deadline is
//     forgotten;
//   * the RNR wait ended: the ACK timer starts if a WQE is outstanding (and
//     the QPC timeout is not 0), and the QP is kicked: hca_req resends from
//     where hca_comp_retry put the cursor;
//   * the ACK timer expired: it stops; with a WQE outstanding and the QP not
//     in ERR, go-back-N from UNA (hca_comp_retry, RETRY_TIMEOUT: resend and
//     restart the timer, or RETRY_EXC_ERR once retry_cnt is spent); but
//     while the QP has read-ahead packets whose payload has not arrived, or
//     a read-ahead fault waiting (`ra_busy`: hca_tx_slots q_busy, hca_tx_faults
//     hit), the packet that started the timer may not have gone out (the
//     model sends it, or fails its WQE, when the payload is read): the timer
//     restarts instead, so a packet that then faults never times out (the
//     model never started the timer: model/req.c send_packet).
// Every path re-arms or disarms the timer (hca_timers `tm_set`), which also
// clears the QP's `due` bit.
// Caller: hca_dispatch.  Calls: hca_comp_retry.
module hca_comp_timer #(
    parameter int LOG_MAX_QP = 8,
    parameter int LOG_OUTS   = 5
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        req,
    output logic        done,
    output logic        dbg_act,
    output logic [7:0]  dbg_st,
    // the item
    input  logic [LOG_MAX_QP-1:0] qn,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [`TXS_W-1:0] txs,
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [2:0]  qp_st,
    input  logic [4:0]  timeout,
    input  logic        ra_busy,         // read-ahead packets in flight or a fault waiting
    output logic [`TXS_W-1:0] txs_wm,
    output logic [`TXS_W-1:0] txs_wv,
    output logic        s_busy_set,
    // hca_timers
    output logic        tm_set,
    output logic [1:0]  tm_kind,
    // outstanding table read port
    output logic        ow_re,
    output logic [LOG_MAX_QP+LOG_OUTS-1:0] ow_raddr,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [`OW_W-1:0] ow_rdata,   // OW_ERR of the oldest WQE
    /* verilator lint_on UNUSEDSIGNAL */
    // hca_comp_retry
    output logic        ry_req,
    output logic [23:0] ry_psn,
    input  logic        ry_done
);
  localparam logic [2:0] QPS_ERR = 3'(`HCA_QPS_ERR);
  typedef enum logic [1:0] {TMRST_IDLE, TMRST_READ_HEAD, TMRST_CHECK, TMRST_WAIT_RETRY} st_t;
  st_t state_q, state;
  always_comb begin
    state = state_q;
    case (state_q)
      TMRST_IDLE:       if (req) state = TMRST_READ_HEAD;
      TMRST_WAIT_RETRY: if (ry_done) state = TMRST_IDLE;
      default: ;
    endcase
  end
  assign ry_req  = state == TMRST_WAIT_RETRY;
  assign dbg_act = state != TMRST_IDLE && !ry_req;
  assign dbg_st  = 8'(state);

  logic done_q;
  assign done = done_q || (state_q == TMRST_WAIT_RETRY && ry_done);     // the retry is the last step

  logic [15:0] sq_ci, sq_head;
  logic [1:0]  tmr;
  logic        outstanding;
  assign sq_ci       = txs[`TXS_SQ_CI_O +: 16];
  assign sq_head     = txs[`TXS_SQ_HEAD_O +: 16];
  assign tmr         = txs[`TXS_TMR_O +: 2];
  assign outstanding = sq_ci != sq_head && !ow_rdata[`OW_ERR_O];
  assign ow_re       = state == TMRST_READ_HEAD;
  assign ow_raddr    = {qn, sq_ci[LOG_OUTS-1:0]};
  assign ry_psn      = txs[`TXS_UNA_O +: 24];

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= TMRST_IDLE; done_q <= 1'b0; txs_wm <= '0; txs_wv <= '0; s_busy_set <= 1'b0;
      tm_set <= 1'b0; tm_kind <= '0;
    end else if (srst) begin
      state_q <= TMRST_IDLE; done_q <= 1'b0; txs_wm <= '0; txs_wv <= '0; s_busy_set <= 1'b0; tm_set <= 1'b0;
    end else if (ce) begin
      done_q <= 1'b0; txs_wm <= '0; txs_wv <= '0; s_busy_set <= 1'b0; tm_set <= 1'b0;
      state_q <= state;
      case (state)
        TMRST_READ_HEAD: state_q <= TMRST_CHECK;            // outstanding-table read of SQ_CI
        TMRST_CHECK: begin
          tm_set <= 1'b1;
          tm_kind <= `TMR_NONE;
          `HCA_WSET(txs_wm, txs_wv, `TXS_TMR_O, 2, `TMR_NONE)
          if (tmr == `TMR_RNR) begin
            // the RNR wait is over: the ACK timer starts, the resend goes out
            if (outstanding && timeout != 5'd0) begin
              tm_kind <= `TMR_ACK;
              `HCA_WSET(txs_wm, txs_wv, `TXS_TMR_O, 2, `TMR_ACK)
            end
            s_busy_set <= 1'b1;
            done_q <= 1'b1; state_q <= TMRST_IDLE;
          end else if (tmr == `TMR_ACK && outstanding && qp_st != QPS_ERR && ra_busy) begin
            tm_kind <= `TMR_ACK;                            // not sent yet: one more timeout
            `HCA_WSET(txs_wm, txs_wv, `TXS_TMR_O, 2, `TMR_ACK)
            done_q <= 1'b1; state_q <= TMRST_IDLE;
          end else if (tmr == `TMR_ACK && outstanding && qp_st != QPS_ERR)
            state_q <= TMRST_WAIT_RETRY;                    // local ACK timeout: go back to UNA
          else begin
            done_q <= 1'b1; state_q <= TMRST_IDLE;
          end
        end
        default: ;
      endcase
    end
  end
endmodule
