`include "hca_defs.vh"

// QPC writes during an engine item on that QP (docs/rtl.md "Context writes
// while the engine works on a QP"; split out of hca_ctx, same cycles).
// An item reads the QP's RAM words (QPC, TXS, RXS) in its first cycle
// (e_step_read) and writes TXS/RXS back in its last (the first S_IDLE
// cycle); in between (e_step_mid, write-back cycle included) a QPC write
// to that QP is "taken": m_* record the composed effect of such writes on
// the TXS/RXS words (reset clears everything before, later PSN loads /
// retry counts / drain changes override earlier ones), replayed on the
// write-back; and the engine's view of the QP's flip-flop state (state,
// SQ/RQ producer indices) stays at its value before the first taken write
// until the item ends, so the item sees one consistent pre-command QP.
// With the engine held (eng_ce = 0; the harness performs every register
// access so) a command cannot wait for the engine, hence the write-back
// cycle is replayed too; with eng_ce = 1 cc_wait keeps the command out of
// the last item cycle and the write-back cycle (port A would read the
// words before the write-back, or write them in the same cycle).
// Inputs: the QPC write being applied (qpc_wr_now, its QP cq_q and decoded
// fields from hca_ctx), the item in progress (e_step_*), the engine's
// write-back (e_txs_*/e_rxs_*) and the live view of QP e_qp_idx (l_*).
// Outputs: the write-back words with the replay (tb_wdata, rb_wdata), the
// engine's view of the QP (e_qp_*), and the taken write (m_v, m_q; m_eng:
// it is QP e_qp_idx's, so the engine's own state change is dropped).
module hca_ctx_replay #(
    parameter int LOG_MAX_QP = 8
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        srst,
    input  logic        eng_ce,
    // the QPC write applied this cycle and its decoded fields
    input  logic        qpc_wr_now,
    input  logic [LOG_MAX_QP-1:0] cq_q,
    input  logic        reset_dyn,
    input  logic        to_err,
    input  logic [7:0]  n_flags,
    input  logic [2:0]  n_state,
    input  logic [2:0]  o_state,
    input  logic [2:0]  w_retry,
    input  logic [2:0]  w_rnr,
    input  logic [23:0] w_sqpsn,
    input  logic [23:0] w_rqpsn,
    input  logic [15:0] w_osq,           // QP cq_q's producer indices before the write
    input  logic [15:0] w_orq,
    // the item in progress and its write-back
    input  logic [LOG_MAX_QP-1:0] e_step_qn,
    input  logic        e_step_read,
    input  logic        e_step_mid,
    input  logic [LOG_MAX_QP-1:0] e_txs_idx,
    input  logic        e_txs_we,
    input  logic        e_rxs_we,
    input  logic [`TXS_W-1:0] e_txs_wdata,
    input  logic [`RXS_W-1:0] e_rxs_wdata,
    output logic [`TXS_W-1:0] tb_wdata,
    output logic [`RXS_W-1:0] rb_wdata,
    // the engine's view of QP e_qp_idx
    input  logic [LOG_MAX_QP-1:0] e_qp_idx,
    input  logic [2:0]  l_state,
    input  logic [15:0] l_sq_pi,
    input  logic [15:0] l_rq_pi,
    output logic [2:0]  e_qp_state,
    output logic [15:0] e_qp_sq_pi,
    output logic [15:0] e_qp_rq_pi,
    output logic        m_v,
    output logic [LOG_MAX_QP-1:0] m_q,
    output logic        m_eng
);
  localparam logic [1:0] DR_KEEP = 2'd0, DR_CLR = 2'd1, DR_SET = 2'd2;
  logic        m_reset, m_ldsq, m_ldrq, m_first;
  logic [23:0] m_sqpsn, m_rqpsn;
  logic [2:0]  m_retry, m_rnr;
  logic [1:0]  m_drain, n_drain;
  logic [2:0]  m_ost;            // engine view of QP m_q while m_v
  logic [15:0] m_osq, m_orq;
  logic        m_hit, m_take;
  assign n_drain = (n_state == 3'(`HCA_QPS_SQD)) ? ((o_state != 3'(`HCA_QPS_SQD)) ? DR_SET : DR_KEEP) :
                   (n_state != 3'(`HCA_QPS_ERR) || to_err) ? DR_CLR : DR_KEEP;
  // the write lands after the item read the words (mid-item, or in the very
  // cycle of the read: the read returns the old words)
  assign m_take  = qpc_wr_now && cq_q == e_step_qn && (e_step_mid || (e_step_read && eng_ce));
  assign m_first = !m_v || m_q != cq_q;
  assign m_hit   = m_v && m_q == e_txs_idx;
  assign m_eng   = m_v && m_q == e_qp_idx;
  assign e_qp_state = m_eng ? m_ost : l_state;
  assign e_qp_sq_pi = m_eng ? m_osq : l_sq_pi;
  assign e_qp_rq_pi = m_eng ? m_orq : l_rq_pi;
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      m_v <= 1'b0; m_q <= '0; m_reset <= 1'b0; m_ldsq <= 1'b0; m_ldrq <= 1'b0;
      m_sqpsn <= '0; m_rqpsn <= '0; m_retry <= '0; m_rnr <= '0; m_drain <= DR_KEEP;
      m_ost <= '0; m_osq <= '0; m_orq <= '0;
    end else if (srst) begin
      m_v <= 1'b0;
    end else if (m_take) begin
      m_v     <= 1'b1;
      m_q     <= cq_q;
      m_retry <= w_retry;
      m_rnr   <= w_rnr;
      if (m_first) begin
        m_ost <= o_state;
        m_osq <= w_osq;
        m_orq <= w_orq;
      end
      if (m_first || reset_dyn) begin
        m_reset <= reset_dyn;
        m_ldsq  <= (n_flags & 8'(`HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK)) != 0;
        m_ldrq  <= (n_flags & 8'(`HCA_QPC_FLAGS_LOAD_RQ_PSN_MASK)) != 0;
        m_drain <= n_drain;
      end else begin
        if ((n_flags & 8'(`HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK)) != 0) m_ldsq <= 1'b1;
        if ((n_flags & 8'(`HCA_QPC_FLAGS_LOAD_RQ_PSN_MASK)) != 0) m_ldrq <= 1'b1;
        if (n_drain != DR_KEEP) m_drain <= n_drain;
      end
      if ((n_flags & 8'(`HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK)) != 0) m_sqpsn <= w_sqpsn;
      if ((n_flags & 8'(`HCA_QPC_FLAGS_LOAD_RQ_PSN_MASK)) != 0) m_rqpsn <= w_rqpsn;
    end else if (eng_ce && (!e_step_mid || e_txs_we || e_rxs_we)) begin
      m_v <= 1'b0;                 // this item's write-back, or no item in progress
    end
  end
  always_comb begin
    tb_wdata = e_txs_wdata;
    rb_wdata = e_rxs_wdata;
    if (m_hit) begin
      if (m_reset) begin
        tb_wdata = '0;
        rb_wdata = '0;
      end
      if (m_ldsq) begin
        tb_wdata[`TXS_PSN_NEXT_O +: 24] = m_sqpsn;
        tb_wdata[`TXS_UNA_O +: 24]      = m_sqpsn;
      end
      if (m_ldrq) rb_wdata[`RXS_EPSN_O +: 24] = m_rqpsn;
      tb_wdata[`TXS_RETRY_O +: 3] = m_retry;
      tb_wdata[`TXS_RNR_O +: 3]   = m_rnr;
      if (m_drain == DR_SET) tb_wdata[`TXS_DRAIN_O] = 1'b1;
      if (m_drain == DR_CLR) tb_wdata[`TXS_DRAIN_O] = 1'b0;
    end
  end
endmodule
