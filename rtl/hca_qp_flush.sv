`include "hca_defs.vh"

// Flush of a QP in ERR or SQE (model/qp.c model_qp_flush): one step.
//
// Job (docs/rtl.md "Handshakes"): `req` held until `done`; result `did` (a
// completion was flushed: the step made progress and the QP stays busy).
// FLUSHST_SQ: each send WQE from SQ_CI to the producer index completes with
// WR_FLUSH_ERR to the send CQ (hca_cq_post; FLUSHST_SQ_LOST: a lost CQE
// moves the QP to ERR with QP_FATAL through hca_qp_err); when the SQ is
// empty the requester state is reset to it (SQ_HEAD, cursor, RD_OUT, UNA, no
// timer),
// and an SQE QP is done.  In ERR the receive side follows: FLUSHST_RQ_CUR
// flushes the receive WQE in progress, FLUSHST_RQ every posted receive WQE
// of the QP's own RQ (not an SRQ's), each to the receive CQ
// (FLUSHST_POST_RQ_CQE, FLUSHST_RQ_LOST as for the SQ); a message in
// progress is dropped.
// Caller: hca_req (the QP step of a QP in ERR or SQE).  Calls: hca_cq_post,
// hca_qp_err.
module hca_qp_flush #(
    parameter int LOG_MAX_QP = 8
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        req,
    output logic        done,
    output logic        did,
    output logic        dbg_act,
    output logic [7:0]  dbg_st,
    // the item
    input  logic [LOG_MAX_QP-1:0] qn,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [`TXS_W-1:0] txs,
    input  logic [`RXS_W-1:0] rxs,
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [2:0]  qp_st,
    input  logic [15:0] e_qp_sq_pi,
    input  logic [15:0] e_qp_rq_pi,
    input  logic        use_srq,
    input  logic [31:0] send_cqn,
    input  logic [31:0] recv_cqn,
    output logic [`TXS_W-1:0] txs_wm,
    output logic [`TXS_W-1:0] txs_wv,
    output logic [`RXS_W-1:0] rxs_wm,
    output logic [`RXS_W-1:0] rxs_wv,
    // hca_cq_post
    output logic        cqp_req,
    output logic [31:0] cqp_cqn,
    output logic [255:0] cqp_cqe,
    output logic        cqp_sol,
    input  logic        cqp_done,
    input  logic        cqp_lost,
    // hca_qp_err
    output logic        qe_req,
    output logic        qe_has,
    output logic [7:0]  qe_evt,
    input  logic        qe_done
);
  `include "hca_funcs.vh"
  localparam logic [2:0] QPS_ERR = 3'(`HCA_QPS_ERR);
  typedef enum logic [3:0] {
    FLUSHST_IDLE, FLUSHST_SQ, FLUSHST_WAIT_SQ_CQE, FLUSHST_SQ_LOST, FLUSHST_WAIT_SQ_QP_ERR,
    FLUSHST_RQ_CUR, FLUSHST_RQ, FLUSHST_POST_RQ_CQE, FLUSHST_WAIT_RQ_CQE, FLUSHST_RQ_LOST,
    FLUSHST_WAIT_RQ_QP_ERR, FLUSHST_DONE
  } st_t;
  st_t state_q, state;
  logic start;
  assign start = state_q == FLUSHST_IDLE && req;
  always_comb begin
    state = state_q;
    case (state_q)
      FLUSHST_IDLE:           if (req) state = FLUSHST_SQ;
      FLUSHST_WAIT_SQ_CQE:    if (cqp_done) state = FLUSHST_SQ_LOST;
      FLUSHST_WAIT_SQ_QP_ERR: if (qe_done) state = FLUSHST_SQ;
      FLUSHST_WAIT_RQ_CQE:    if (cqp_done) state = FLUSHST_RQ_LOST;
      FLUSHST_WAIT_RQ_QP_ERR: if (qe_done) state = FLUSHST_RQ;
      default: ;
    endcase
  end
  assign cqp_req = state == FLUSHST_WAIT_SQ_CQE || state == FLUSHST_WAIT_RQ_CQE;
  assign cqp_cqn = (state == FLUSHST_WAIT_SQ_CQE) ? send_cqn : recv_cqn;
  assign cqp_sol = 1'b0;
  assign qe_req  = state == FLUSHST_WAIT_SQ_QP_ERR || state == FLUSHST_WAIT_RQ_QP_ERR;
  assign qe_has  = 1'b1;
  assign qe_evt  = 8'(`HCA_EVENT_QP_FATAL);
  assign dbg_act = state != FLUSHST_IDLE && !cqp_req && !qe_req;
  assign dbg_st  = 8'(state);

  logic [15:0] sq_ci, rq_ci;
  assign sq_ci = txs[`TXS_SQ_CI_O +: 16];
  assign rq_ci = rxs[`RXS_RQ_CI_O +: 16];
  logic [31:0] qpn;
  assign qpn = {{(32-LOG_MAX_QP){1'b0}}, qn};

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= FLUSHST_IDLE; done <= 1'b0; did <= 1'b0;
      txs_wm <= '0; txs_wv <= '0; rxs_wm <= '0; rxs_wv <= '0; cqp_cqe <= '0;
    end else if (srst) begin
      state_q <= FLUSHST_IDLE; done <= 1'b0; txs_wm <= '0; txs_wv <= '0; rxs_wm <= '0; rxs_wv <= '0;
    end else if (ce) begin
      done <= 1'b0; txs_wm <= '0; txs_wv <= '0; rxs_wm <= '0; rxs_wv <= '0;
      state_q <= state;
      if (start) did <= 1'b0;
      case (state)
        FLUSHST_SQ:
          if (sq_ci != e_qp_sq_pi) begin
            cqp_cqe <= mk_cqe(32'h0, 32'h0, qpn, 32'h0, sq_ci, 8'(`HCA_WC_WR_FLUSH_ERR), 8'(`HCA_WC_OP_SEND),
                              8'h0, 8'(`HCA_VENDOR_ERR_FLUSH), 8'h0);
            `HCA_WSET(txs_wm, txs_wv, `TXS_SQ_CI_O, 16, sq_ci + 16'd1)
            did     <= 1'b1;
            state_q <= FLUSHST_WAIT_SQ_CQE;
          end else begin
            `HCA_WSET(txs_wm, txs_wv, `TXS_SQ_HEAD_O, 16, sq_ci)
            `HCA_WSET(txs_wm, txs_wv, `TXS_TX_WQE_O, 16, sq_ci)
            `HCA_WSET(txs_wm, txs_wv, `TXS_TX_PKT_O, 24, 24'd0)
            `HCA_WSET(txs_wm, txs_wv, `TXS_RD_OUT_O, 5, 5'd0)
            `HCA_WSET(txs_wm, txs_wv, `TXS_RCVD_O, 24, 24'd0)
            `HCA_WSET(txs_wm, txs_wv, `TXS_UNA_O, 24, txs[`TXS_PSN_NEXT_O +: 24])
            `HCA_WSET(txs_wm, txs_wv, `TXS_TMR_O, 2, `TMR_NONE)
            state_q <= (qp_st != QPS_ERR) ? FLUSHST_DONE : FLUSHST_RQ_CUR;
          end
        FLUSHST_SQ_LOST:
          state_q <= (cqp_lost && qp_st != QPS_ERR) ? FLUSHST_WAIT_SQ_QP_ERR : FLUSHST_SQ;
        FLUSHST_RQ_CUR:
          if (rxs[`RXS_RWQE_V_O]) begin
            cqp_cqe <= mk_cqe(32'h0, 32'h0, qpn, 32'h0, rxs[`RXS_RWQE_IDX_O +: 16], 8'(`HCA_WC_WR_FLUSH_ERR),
                              8'(`HCA_WC_OP_RECV), 8'h0, 8'(`HCA_VENDOR_ERR_FLUSH), {7'b0, rxs[`RXS_RWQE_SRQ_O]});
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_RWQE_V_O, 1, 1'b0)
            did     <= 1'b1;
            state_q <= FLUSHST_POST_RQ_CQE;
          end else
            state_q <= FLUSHST_RQ;
        FLUSHST_RQ: begin
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_O, 2, `RESP_MSG_NONE)
          if (!use_srq && rq_ci != e_qp_rq_pi) begin
            cqp_cqe <= mk_cqe(32'h0, 32'h0, qpn, 32'h0, rq_ci, 8'(`HCA_WC_WR_FLUSH_ERR), 8'(`HCA_WC_OP_RECV),
                              8'h0, 8'(`HCA_VENDOR_ERR_FLUSH), 8'h0);
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_RQ_CI_O, 16, rq_ci + 16'd1)
            did     <= 1'b1;
            state_q <= FLUSHST_POST_RQ_CQE;
          end else
            state_q <= FLUSHST_DONE;
        end
        FLUSHST_POST_RQ_CQE: state_q <= FLUSHST_WAIT_RQ_CQE;
        FLUSHST_RQ_LOST:
          state_q <= (cqp_lost && qp_st != QPS_ERR) ? FLUSHST_WAIT_RQ_QP_ERR : FLUSHST_RQ;
        FLUSHST_DONE: begin
          done <= 1'b1; state_q <= FLUSHST_IDLE;
        end
        default: ;
      endcase
    end
  end
endmodule
