`include "hca_defs.vh"

// Completion of the oldest send WQE (model/qp.c model_qp_complete_send).
//
// Job (docs/rtl.md "Handshakes"): `req` held with the WQE's outstanding-table
// entry `ow` (op, flags, length) and the completion status/verr/force until `done`.
// SCOMPST_RETIRE_WQE retires the WQE (SQ_CI + 1, the transmit cursor moved
// past it if it was behind, RD_OUT - 1 for a READ/atomic that did not fail
// locally, RCVD = 0 for the next WQE at SQ_CI) and, when the WQE is signaled (or failed, or
// force, or the QP signals all), posts its CQE to the send CQ through
// hca_cq_post (started in SCOMPST_RETIRE_WQE itself, awaited in
// SCOMPST_WAIT_CQE; a CQE not lost ends the job in hca_cq_post's done
// cycle, a tail call).  SCOMPST_CHECK_LOST: a lost completion moves the QP
// to ERR with QP_FATAL (hca_qp_err, the job's last step).
// `defer` (hca_comp, an ACK's completions): the CQE write is posted
// (hca_cq_post `post`): `done` once it is issued, lost 0; the caller
// applies a loss the write's response reports later (hca_comp).
// Callers: hca_req (UC/UD WQE sent), hca_comp_retire (a WQE failed locally),
// hca_comp (ACKed WQEs, NAK error and flush).  Calls: hca_cq_post,
// hca_qp_err.
module hca_complete_send #(
    parameter int LOG_MAX_QP = 8
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        req,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [`OW_W-1:0] ow,         // the WQE's outstanding-table entry: op, flags, length
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [4:0]  status,          // HCA_WC_*
    input  logic [7:0]  verr,
    input  logic        force_cqe,       // a CQE even when unsignaled (flush)
    input  logic        defer,           // the CQE write posted (above)
    output logic        done,
    output logic        dbg_act,
    output logic [7:0]  dbg_st,
    // the item (hca_dispatch, hca_qpc_view)
    input  logic [LOG_MAX_QP-1:0] qn,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [`TXS_W-1:0] txs,       // SQ_CI, TX_WQE
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [2:0]  qp_st,
    input  logic [7:0]  qp_flags,
    input  logic [31:0] send_cqn,
    output logic [`TXS_W-1:0] txs_wm,
    output logic [`TXS_W-1:0] txs_wv,
    output logic        s_busy_set,
    // hca_cq_post
    output logic        cqp_req,
    output logic [31:0] cqp_cqn,
    output logic [255:0] cqp_cqe,
    output logic        cqp_sol,
    output logic        cqp_post,
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
  typedef enum logic [2:0] {SCOMPST_IDLE, SCOMPST_RETIRE_WQE, SCOMPST_WAIT_CQE, SCOMPST_CHECK_LOST,
                            SCOMPST_WAIT_QP_ERR} st_t;
  st_t state_q, state;
  always_comb begin
    state = state_q;
    case (state_q)
      SCOMPST_IDLE:        if (req) state = SCOMPST_RETIRE_WQE;
      SCOMPST_WAIT_CQE:    if (cqp_done) state = cqp_lost ? SCOMPST_CHECK_LOST : SCOMPST_IDLE;
      SCOMPST_WAIT_QP_ERR: if (qe_done) state = SCOMPST_IDLE;
      default: ;
    endcase
  end
  // the CQE's post starts in SCOMPST_RETIRE_WQE (hca_cq_post reads the CQC
  // then, or reserves in that cycle on its copy of the CQC): the CQE is
  // built in that cycle (cqe_now) and registered for the cycles after
  logic sig;
  logic [255:0] cqe_q, cqe_now;
  assign cqp_req = state == SCOMPST_WAIT_CQE || (state == SCOMPST_RETIRE_WQE && sig);
  assign cqp_cqn = send_cqn;
  assign cqp_sol = 1'b0;
  assign cqp_post = defer;
  assign cqp_cqe  = state == SCOMPST_RETIRE_WQE ? cqe_now : cqe_q;
  assign qe_req  = state == SCOMPST_WAIT_QP_ERR;
  assign qe_has  = 1'b1;
  assign qe_evt  = 8'(`HCA_EVENT_QP_FATAL);
  assign dbg_act = state != SCOMPST_IDLE && !cqp_req && !qe_req;
  assign dbg_st  = 8'(state);

  logic done_q;
  // the CQE post (not lost) or QP to ERR: the last step
  assign done = done_q || (state_q == SCOMPST_WAIT_CQE && cqp_done && !cqp_lost) ||
                (state_q == SCOMPST_WAIT_QP_ERR && qe_done);

  logic [2:0]  op;
  logic [3:0]  wflags;
  logic [31:0] len;
  assign op     = ow[`OW_OP_O +: 3];
  assign wflags = ow[`OW_FLAGS_O +: 4];
  assign len    = ow[`OW_LEN_O +: 32];
  logic [15:0] sq_ci, tx_wqe;
  logic [4:0]  rd_out;
  assign rd_out = txs[`TXS_RD_OUT_O +: 5];
  assign sq_ci  = txs[`TXS_SQ_CI_O +: 16];
  assign tx_wqe = txs[`TXS_TX_WQE_O +: 16];
  assign sig    = force_cqe || status != 5'd0 || (wflags & 4'(`HCA_SEND_SIGNALED)) != 0 ||
                  (qp_flags & 8'(`HCA_QPC_FLAGS_SQ_SIG_ALL_MASK)) != 0;

  function automatic [7:0] wc_opcode(input [2:0] wr);
    case (wr)
      3'(`HCA_WR_RDMA_WRITE), 3'(`HCA_WR_RDMA_WRITE_WITH_IMM): wc_opcode = 8'(`HCA_WC_OP_RDMA_WRITE);
      3'(`HCA_WR_RDMA_READ):            wc_opcode = 8'(`HCA_WC_OP_RDMA_READ);
      3'(`HCA_WR_ATOMIC_CMP_AND_SWP):   wc_opcode = 8'(`HCA_WC_OP_COMP_SWAP);
      3'(`HCA_WR_ATOMIC_FETCH_AND_ADD): wc_opcode = 8'(`HCA_WC_OP_FETCH_ADD);
      default:                          wc_opcode = 8'(`HCA_WC_OP_SEND);
    endcase
  endfunction

  always_comb begin : cqe
    logic [31:0] bl;
    bl = '0;
    if (status == 5'd0) begin
      if (op == 3'(`HCA_WR_RDMA_READ)) bl = len;
      else if (op == 3'(`HCA_WR_ATOMIC_CMP_AND_SWP) || op == 3'(`HCA_WR_ATOMIC_FETCH_AND_ADD)) bl = 32'd8;
    end
    cqe_now = mk_cqe(bl, 32'h0, {{(32-LOG_MAX_QP){1'b0}}, qn}, 32'h0, sq_ci, {3'b0, status}, wc_opcode(op), 8'h0,
                     verr, 8'h0);
  end

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= SCOMPST_IDLE; done_q <= 1'b0; txs_wm <= '0; txs_wv <= '0; s_busy_set <= 1'b0; cqe_q <= '0;
    end else if (srst) begin
      state_q <= SCOMPST_IDLE; done_q <= 1'b0; txs_wm <= '0; txs_wv <= '0; s_busy_set <= 1'b0;
    end else if (ce) begin
      done_q <= 1'b0; txs_wm <= '0; txs_wv <= '0; s_busy_set <= 1'b0;
      state_q <= state;
      case (state)
        SCOMPST_RETIRE_WQE: begin : retire
          logic [15:0] ci;
          ci  = sq_ci + 16'd1;
          `HCA_WSET(txs_wm, txs_wv, `TXS_SQ_CI_O, 16, ci)
          `HCA_WSET(txs_wm, txs_wv, `TXS_RCVD_O, 24, 24'd0)
          if (!ow[`OW_ERR_O] && rd_out != 5'd0 && (op == 3'(`HCA_WR_RDMA_READ) ||
              op == 3'(`HCA_WR_ATOMIC_CMP_AND_SWP) || op == 3'(`HCA_WR_ATOMIC_FETCH_AND_ADD)))
            `HCA_WSET(txs_wm, txs_wv, `TXS_RD_OUT_O, 5, rd_out - 5'd1)
          if ($signed(tx_wqe - ci) < 0) begin
            `HCA_WSET(txs_wm, txs_wv, `TXS_TX_WQE_O, 16, ci)
            `HCA_WSET(txs_wm, txs_wv, `TXS_TX_PKT_O, 24, 24'd0)
          end
          s_busy_set <= 1'b1;
          if (sig) begin
            cqe_q   <= cqe_now;
            state_q <= SCOMPST_WAIT_CQE;
          end else begin
            done_q <= 1'b1; state_q <= SCOMPST_IDLE;
          end
        end
        SCOMPST_CHECK_LOST:
          if (cqp_lost && qp_st != QPS_ERR)
            state_q <= SCOMPST_WAIT_QP_ERR;
          else begin
            done_q <= 1'b1; state_q <= SCOMPST_IDLE;
          end
        default: ;
      endcase
    end
  end
endmodule
