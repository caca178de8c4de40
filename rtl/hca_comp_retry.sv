`include "hca_defs.vh"

// Go-back-N retry of an RC send queue (model/comp.c retry, rewind_to,
// fail_front): what a PSN-sequence NAK, an RNR NAK, an ACK timeout or an
// implicit NAK (a READ/atomic response missing) does to the requester.
//
// Job (docs/rtl.md "Handshakes"): `req` held with `kind` (RETRY_*), `psn`
// (where to go back to) and `code` (the RNR NAK's timer code) until `done`.
// RETRYST_READ_HEAD/RETRYST_CHECK: nothing unless a WQE is outstanding (the
// oldest, at SQ_CI, has not failed locally).
//   * RNR: nothing while an RNR wait runs (TXS_TMR); with rnr_retry < 7 an
//     exhausted budget (TXS_RNR) fails the oldest WQE with RNR_RETRY_EXC_ERR,
//     else one is spent; HCA_STAT_RETRANSMIT; the cursor goes back to `psn`;
//     the RNR wait starts (hca_timers: HCA_RNR_CYCLES_<code>; the ACK timer
//     stops; hca_req sends nothing until it ends, hca_comp_timer).
//   * the others: nothing while an RNR wait runs (its resend is planned);
//     a NAK repeating the PSN of the last NAK retry with no progress since
//     (TXS_NAKV, TXS_NAK_PSN) is ignored; an exhausted budget (TXS_RETRY)
//     fails the oldest WQE with RETRY_EXC_ERR (vendor TIMEOUT or NAK_SEQ);
//     else one is spent, HCA_STAT_RETRANSMIT, the cursor goes back to `psn`,
//     the ACK timer restarts and the QP is kicked.
// Going back (RETRYST_REWIND_*, rewind_to): the outstanding table is walked
// from SQ_CI to the WQE whose PSNs hold `psn`; the transmit cursor becomes
// that WQE (TXS_TX_WQE) and the packet of `psn` within it (TXS_TX_PKT; 0 for
// an RDMA READ, which is re-issued for its missing part by the requester).
// hca_req then resends from there, one packet per step, as it sends new
// ones (REQST_BUILD_HDR; it also skips what was acknowledged meanwhile).
// Failing (RETRYST_FAIL_*, fail_front): the oldest WQE completes in error
// (hca_complete_send) and the QP moves to ERR (hca_qp_err, no event; the QP
// state is published with the decision, as hca_comp_retire does); the rest
// is flushed by the next step.
// Planted-bug hook retx_psn: the cursor goes back to the PSN after `psn`.
// Callers: hca_comp (NAKs), hca_comp_timer (ACK timeout).  Calls:
// hca_complete_send, hca_qp_err.  A READ/atomic requester calls it with
// RETRY_IMPLICIT from hca_comp (docs/rtl.md "Where the next features go").
module hca_comp_retry #(
    parameter int LOG_MAX_QP = 8,
    parameter int LOG_OUTS   = 5
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        req,
    input  logic [1:0]  kind,            // RETRY_*
    input  logic [23:0] psn,
    input  logic [4:0]  code,            // RNR timer code
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
    input  logic [2:0]  rnr_retry,
    output logic [`TXS_W-1:0] txs_wm,
    output logic [`TXS_W-1:0] txs_wv,
    output logic        s_busy_set,
    output logic        s_qp_set,
    output logic [2:0]  s_qp_val,
    output logic [`HCA_STAT_COUNT-1:0] s_stat,
    // hca_timers
    output logic        tm_set,
    output logic [1:0]  tm_kind,
    output logic [4:0]  tm_code,
    // outstanding table read port
    output logic        ow_re,
    output logic [LOG_MAX_QP+LOG_OUTS-1:0] ow_raddr,
    input  logic [`OW_W-1:0] ow_rdata,
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
  `include "hca_funcs.vh"
  localparam logic [2:0] QPS_RESET = 3'(`HCA_QPS_RESET), QPS_ERR = 3'(`HCA_QPS_ERR);
  typedef enum logic [3:0] {
    RETRYST_IDLE, RETRYST_READ_HEAD, RETRYST_CHECK, RETRYST_REWIND_READ, RETRYST_REWIND_CHECK,
    RETRYST_RESTART, RETRYST_WAIT_FAIL_CQE, RETRYST_WAIT_QP_ERR
  } st_t;
  st_t state_q, state;
  always_comb begin
    state = state_q;
    case (state_q)
      RETRYST_IDLE:          if (req) state = RETRYST_READ_HEAD;
      RETRYST_WAIT_FAIL_CQE: if (sc_done) state = RETRYST_WAIT_QP_ERR;
      RETRYST_WAIT_QP_ERR:   if (qe_done) state = RETRYST_IDLE;
      default: ;
    endcase
  end
  assign sc_req   = state == RETRYST_WAIT_FAIL_CQE;
  assign qe_req   = state == RETRYST_WAIT_QP_ERR;
  assign qe_has   = 1'b0;
  assign qe_evt   = 8'h0;
  assign sc_force = 1'b0;
  assign dbg_act  = state != RETRYST_IDLE && !sc_req && !qe_req;
  assign dbg_st   = 8'(state);

  logic done_q;
  assign done = done_q || (state_q == RETRYST_WAIT_QP_ERR && qe_done);   // QP to ERR is the last step

  logic [15:0] sq_ci, sq_head;
  logic [1:0]  tmr;
  assign sq_ci   = txs[`TXS_SQ_CI_O +: 16];
  assign sq_head = txs[`TXS_SQ_HEAD_O +: 16];
  assign tmr     = txs[`TXS_TMR_O +: 2];

  logic [15:0] rw_i;                       // rewind walk: the WQE being looked at
  assign ow_re    = state == RETRYST_READ_HEAD || state == RETRYST_REWIND_READ;
  assign ow_raddr = {qn, (state == RETRYST_READ_HEAD) ? sq_ci[LOG_OUTS-1:0] : rw_i[LOG_OUTS-1:0]};

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= RETRYST_IDLE; done_q <= 1'b0; txs_wm <= '0; txs_wv <= '0; s_busy_set <= 1'b0;
      s_qp_set <= 1'b0; s_qp_val <= '0; s_stat <= '0; tm_set <= 1'b0; tm_kind <= '0; tm_code <= '0;
      rw_i <= '0; sc_ow <= '0; sc_status <= '0; sc_verr <= '0;
    end else if (srst) begin
      state_q <= RETRYST_IDLE; done_q <= 1'b0; txs_wm <= '0; txs_wv <= '0; s_busy_set <= 1'b0;
      s_qp_set <= 1'b0; s_stat <= '0; tm_set <= 1'b0;
    end else if (ce) begin
      done_q <= 1'b0; txs_wm <= '0; txs_wv <= '0; s_busy_set <= 1'b0; s_qp_set <= 1'b0; s_stat <= '0;
      tm_set <= 1'b0;
      state_q <= state;
      case (state)
        RETRYST_READ_HEAD: state_q <= RETRYST_CHECK;          // outstanding-table read of SQ_CI
        RETRYST_CHECK: begin : decide
          logic skip, fail;
          // nothing outstanding, or waiting out an RNR NAK (its resend is planned)
          skip = sq_ci == sq_head || ow_rdata[`OW_ERR_O] || tmr == `TMR_RNR;
          fail = 1'b0;
          sc_ow <= ow_rdata;
          rw_i  <= sq_ci;
          if (!skip) begin
            if (kind == `RETRY_RNR) begin
              if (rnr_retry != 3'd7) begin
                if (txs[`TXS_RNR_O +: 3] == 3'd0) fail = 1'b1;
                else `HCA_WSET(txs_wm, txs_wv, `TXS_RNR_O, 3, txs[`TXS_RNR_O +: 3] - 3'd1)
              end
            end else if (kind != `RETRY_TIMEOUT && txs[`TXS_NAKV_O] && txs[`TXS_NAK_PSN_O +: 24] == psn)
              skip = 1'b1;                                   // the same NAK again, nothing acknowledged since
            else begin
              if (kind != `RETRY_TIMEOUT) begin
                `HCA_WSET(txs_wm, txs_wv, `TXS_NAKV_O, 1, 1'b1)
                `HCA_WSET(txs_wm, txs_wv, `TXS_NAK_PSN_O, 24, psn)
              end
              if (txs[`TXS_RETRY_O +: 3] == 3'd0) fail = 1'b1;
              else `HCA_WSET(txs_wm, txs_wv, `TXS_RETRY_O, 3, txs[`TXS_RETRY_O +: 3] - 3'd1)
            end
          end
          if (skip) begin
            done_q <= 1'b1; state_q <= RETRYST_IDLE;
          end else if (fail) begin
            sc_status <= (kind == `RETRY_RNR) ? 5'(`HCA_WC_RNR_RETRY_EXC_ERR) : 5'(`HCA_WC_RETRY_EXC_ERR);
            sc_verr   <= (kind == `RETRY_RNR) ? 8'(`HCA_VENDOR_ERR_RNR) :
                         (kind == `RETRY_TIMEOUT) ? 8'(`HCA_VENDOR_ERR_TIMEOUT) : 8'(`HCA_VENDOR_ERR_NAK_SEQ);
            if (qp_st != QPS_ERR && qp_st != QPS_RESET) begin
              s_qp_set <= 1'b1; s_qp_val <= QPS_ERR;
            end
            state_q <= RETRYST_WAIT_FAIL_CQE;
          end else begin
            s_stat[`HCA_STAT_RETRANSMIT] <= 1'b1;
            state_q <= RETRYST_REWIND_CHECK;                 // SQ_CI's entry is in ow_rdata
          end
        end
        RETRYST_REWIND_READ: state_q <= RETRYST_REWIND_CHECK;
        RETRYST_REWIND_CHECK: begin : rewind
          logic [23:0] fpsn, npsn, k;
          fpsn = ow_rdata[`OW_FPSN_O +: 24];
          npsn = ow_rdata[`OW_NPSN_O +: 24];
          k    = psn - fpsn;
          if (rw_i == sq_head || ow_rdata[`OW_ERR_O])
            state_q <= RETRYST_RESTART;                      // no WQE holds it: the cursor stays
          else if (!psn_lt(psn, fpsn) && psn_lt(psn, fpsn + npsn)) begin
            if (ow_rdata[`OW_OP_O +: 3] == 3'(`HCA_WR_RDMA_READ))
              k = 24'd0;
            else if (`HCA_BUG(retx_psn, 1'b0, 1'b1))
              k = k + 24'd1;                                 // planted: one PSN too far
            if (k == npsn) begin
              `HCA_WSET(txs_wm, txs_wv, `TXS_TX_WQE_O, 16, rw_i + 16'd1)
              `HCA_WSET(txs_wm, txs_wv, `TXS_TX_PKT_O, 24, 24'd0)
            end else begin
              `HCA_WSET(txs_wm, txs_wv, `TXS_TX_WQE_O, 16, rw_i)
              `HCA_WSET(txs_wm, txs_wv, `TXS_TX_PKT_O, 24, k)
            end
            state_q <= RETRYST_RESTART;
          end else begin
            rw_i    <= rw_i + 16'd1;
            state_q <= RETRYST_REWIND_READ;
          end
        end
        RETRYST_RESTART: begin
          // RNR: the wait starts (the ACK timer stops); else the ACK timer
          // restarts (model/comp.c model_comp_arm_timer: timeout 0 = none)
          tm_set <= 1'b1;
          if (kind == `RETRY_RNR) begin
            tm_kind <= `TMR_RNR; tm_code <= code;
            `HCA_WSET(txs_wm, txs_wv, `TXS_TMR_O, 2, `TMR_RNR)
          end else begin
            tm_kind <= (timeout != 5'd0) ? `TMR_ACK : `TMR_NONE; tm_code <= '0;
            `HCA_WSET(txs_wm, txs_wv, `TXS_TMR_O, 2, (timeout != 5'd0) ? `TMR_ACK : `TMR_NONE)
            s_busy_set <= 1'b1;
          end
          done_q <= 1'b1; state_q <= RETRYST_IDLE;
        end
        default: ;
      endcase
    end
  end
endmodule
