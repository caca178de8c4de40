`include "hca_defs.vh"

// Completion of the receive WQE in progress (model/resp.c recv_complete).
//
// Job (docs/rtl.md "Handshakes"): `req` held with the completion's status,
// vendor error, opcode, length, immediate flag, wc_flags and source QP until
// `done`.  RCOMPST_BUILD_CQE builds the CQE (the immediate from the received
// packet's ImmDt, solicited when the packet's SE bit is set on a success)
// and ends the receive WQE (RWQE_V = 0); RCOMPST_POST_CQE posts it to the
// receive CQ through hca_cq_post; RCOMPST_CHECK_LOST: a lost completion moves
// the QP to ERR with QP_FATAL (hca_qp_err, the job's last step).
// Caller: hca_resp.  Calls: hca_cq_post, hca_qp_err.
module hca_complete_recv #(
    parameter int LOG_MAX_QP = 8
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        req,
    input  logic [4:0]  status,
    input  logic [7:0]  verr,
    input  logic [7:0]  op,              // HCA_WC_OP_*
    input  logic [31:0] len,
    input  logic        imm,
    input  logic [7:0]  wc_flags,
    input  logic [31:0] src_qp,
    output logic        done,
    output logic        dbg_act,
    output logic [7:0]  dbg_st,
    // the item and the received packet
    input  logic [LOG_MAX_QP-1:0] qn,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [`RXS_W-1:0] rxs,       // the receive WQE's index and SRQ flag
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [2:0]  qp_st,
    input  logic [31:0] recv_cqn,
    input  logic [31:0] p_imm,
    input  logic        p_se,
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
  typedef enum logic [2:0] {RCOMPST_IDLE, RCOMPST_BUILD_CQE, RCOMPST_POST_CQE, RCOMPST_WAIT_CQE,
                            RCOMPST_CHECK_LOST, RCOMPST_WAIT_QP_ERR} st_t;
  st_t state_q, state;
  always_comb begin
    state = state_q;
    case (state_q)
      RCOMPST_IDLE:        if (req) state = RCOMPST_BUILD_CQE;
      RCOMPST_WAIT_CQE:    if (cqp_done) state = RCOMPST_CHECK_LOST;
      RCOMPST_WAIT_QP_ERR: if (qe_done) state = RCOMPST_IDLE;
      default: ;
    endcase
  end
  assign cqp_req = state == RCOMPST_WAIT_CQE;
  assign cqp_cqn = recv_cqn;
  assign qe_req  = state == RCOMPST_WAIT_QP_ERR;
  assign qe_has  = 1'b1;
  assign qe_evt  = 8'(`HCA_EVENT_QP_FATAL);
  assign dbg_act = state != RCOMPST_IDLE && !cqp_req && !qe_req;
  assign dbg_st  = 8'(state);

  logic done_q;
  assign done = done_q || (state_q == RCOMPST_WAIT_QP_ERR && qe_done);   // QP to ERR: the last step

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= RCOMPST_IDLE; done_q <= 1'b0; rxs_wm <= '0; rxs_wv <= '0; cqp_cqe <= '0; cqp_sol <= 1'b0;
    end else if (srst) begin
      state_q <= RCOMPST_IDLE; done_q <= 1'b0; rxs_wm <= '0; rxs_wv <= '0;
    end else if (ce) begin
      done_q <= 1'b0; rxs_wm <= '0; rxs_wv <= '0;
      state_q <= state;
      case (state)
        RCOMPST_BUILD_CQE: begin
          cqp_cqe <= mk_cqe((status == 5'd0) ? len : 32'h0,
                            (status == 5'd0 && imm) ? p_imm : 32'h0,
                            {{(32-LOG_MAX_QP){1'b0}}, qn}, src_qp, rxs[`RXS_RWQE_IDX_O +: 16], {3'b0, status}, op,
                            (status == 5'd0) ? (wc_flags | (imm ? 8'(`HCA_WC_FLAG_WITH_IMM) : 8'h0)) : 8'h0,
                            verr, {7'b0, rxs[`RXS_RWQE_SRQ_O]});
          cqp_sol <= status == 5'd0 && p_se;
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_RWQE_V_O, 1, 1'b0)
          state_q <= RCOMPST_POST_CQE;
        end
        RCOMPST_POST_CQE: state_q <= RCOMPST_WAIT_CQE;
        RCOMPST_CHECK_LOST:
          if (cqp_lost && qp_st != QPS_ERR)
            state_q <= RCOMPST_WAIT_QP_ERR;
          else begin
            done_q <= 1'b1; state_q <= RCOMPST_IDLE;
          end
        default: ;
      endcase
    end
  end
endmodule
