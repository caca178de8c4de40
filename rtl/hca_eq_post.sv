`include "hca_defs.vh"

// EQE posting (model/eq.c model_eq_post) and the EQ re-arm interrupt
// (model/eq.c model_eq_fire_pending).
//
// Job (docs/rtl.md "Handshakes"): `req` held with kind/eqn/eqe until `done`.
//   EQP_POST      post eqe to EQ eqn (an injected EQE): EQST_WRITE_EQE writes
//                 the 16-byte EQE with its owner bit, reserves the slot and
//                 decides the interrupt in the same cycle (eq_take: slot +1,
//                 disarm), EQST_WAIT_WRITE waits for the write response: a
//                 fault fails the EQ and takes the slot back, else the EQ's
//                 MSI-X vector fires if the EQ was armed.  An invalid or
//                 failed EQ skips the EQE; a full one counts an overflow.
//   EQP_POST_COMP the COMP EQE of a CQ (hca_cq_post): EQST_CHECK_EQ first
//                 (eqn must name a valid EQ, else nothing happens), then as
//                 EQP_POST.
//   EQP_ARM_IRQ   an EQ_ARM doorbell found EQEs after its index (hca_ctx
//                 eq_fp): EQST_ARM_IRQ clears the pending bit and raises the
//                 vector in the same cycle (fp_take).
// EQST_WRITE_EQE and EQST_ARM_IRQ wait a cycle while a doorbell of the same
// EQ takes effect (e_eq_db_now), so a doorbell sees none or all of a
// decision.  e_eq_idx is the request's EQN in the cycle it arrives, then
// held (strobes to hca_ctx land the cycle after they are decided).
// Callers: hca_dispatch (injected EQEs, re-arm interrupts), hca_cq_post.
module hca_eq_post #(
    parameter int LOG_MAX_EQ = 5,
    localparam int NEQ = 1 << LOG_MAX_EQ
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        req,
    input  logic [1:0]  kind,            // EQP_* (hca_defs.vh)
    input  logic [31:0] eqn,
    input  logic [79:0] eqe,             // {type, subtype, element, data}
    output logic        done,
    output logic        dbg_act,
    output logic [7:0]  dbg_st,
    // hca_ctx EQ table
    output logic [LOG_MAX_EQ-1:0] e_eq_idx,
    input  logic        e_eq_valid,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [255:0] e_eq_cfg,       // EQC bytes: base, log size, vector used here
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [31:0] e_eq_pi,
    input  logic [31:0] e_eq_ci,
    input  logic        e_eq_armed,
    input  logic        e_eq_failed,
    input  logic        e_eq_db_now,
    output logic        e_eq_inc,
    output logic        e_eq_dec,
    output logic        e_eq_disarm,
    output logic        e_eq_fail,
    output logic        e_eq_fp_clr,
    // hca_dma_wr (one write at a time)
    output logic        d_w_start,
    output logic [63:0] d_w_addr,
    output logic [15:0] d_w_len,
    output logic [511:0] d_w_small,
    input  logic        d_w_done,
    input  logic        d_w_err,
    // hca_regs: statistics, DMA fault, MSI-X
    output logic [`HCA_STAT_COUNT-1:0] s_stat,
    output logic        s_fault,
    output logic [7:0]  s_fault_client,
    output logic        s_fault_wr,
    output logic [63:0] s_fault_iova,
    output logic        s_fire,
    output logic [4:0]  s_vec
);
  typedef enum logic [2:0] {EQST_IDLE, EQST_CHECK_EQ, EQST_WRITE_EQE, EQST_WAIT_WRITE, EQST_ARM_IRQ} st_t;
  st_t state_q, state;
  logic start;
  assign start = state_q == EQST_IDLE && req;
  always_comb begin
    state = state_q;
    if (start)
      state = (kind == `EQP_POST_COMP) ? EQST_CHECK_EQ : (kind == `EQP_ARM_IRQ) ? EQST_ARM_IRQ : EQST_WRITE_EQE;
  end
  assign dbg_act = state != EQST_IDLE;
  assign dbg_st  = 8'(state);

  logic [31:0] eq_n;                 // the EQ of the request in progress
  logic [31:0] eqn_now;
  assign eqn_now  = start ? eqn : eq_n;
  assign e_eq_idx = eqn_now[LOG_MAX_EQ-1:0];

  logic        eq_fire;              // decided with the slot (EQST_WRITE_EQE)
  logic [63:0] eq_iova;

  // The ring check of EQST_WRITE_EQE, shared by the state machine and the
  // strobe: log2 size, no such EQ (skipped), full (overflow).
  logic [3:0]  lg;
  logic [31:0] size;
  logic        bad, full, eq_take, fp_take;
  always_comb begin
    lg   = (e_eq_cfg[8*`HCA_EQC_LOG_SIZE_OFF +: 8] > 8'(`HCA_CAP_LOG_MAX_EQE)) ?
           4'(`HCA_CAP_LOG_MAX_EQE) : e_eq_cfg[8*`HCA_EQC_LOG_SIZE_OFF +: 4];
    size = 32'd1 << lg;
    bad  = eqn_now >= 32'(NEQ) || !e_eq_valid || e_eq_failed;
    full = e_eq_pi - e_eq_ci >= size;
    eq_take = ce && state == EQST_WRITE_EQE && !e_eq_db_now && !bad && !full;
    fp_take = ce && state == EQST_ARM_IRQ && !e_eq_db_now;
  end
  assign e_eq_inc    = eq_take;
  assign e_eq_disarm = eq_take && e_eq_armed;
  assign e_eq_fp_clr = fp_take;
  assign s_fault_client = 8'(`HCA_DMA_CLIENT_EQE);
  assign s_fault_wr     = 1'b1;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= EQST_IDLE; done <= 1'b0; eq_n <= '0; eq_fire <= 1'b0; eq_iova <= '0;
      e_eq_dec <= 1'b0; e_eq_fail <= 1'b0;
      d_w_start <= 1'b0; d_w_addr <= '0; d_w_len <= '0; d_w_small <= '0;
      s_stat <= '0; s_fault <= 1'b0; s_fault_iova <= '0; s_fire <= 1'b0; s_vec <= '0;
    end else if (srst) begin
      state_q <= EQST_IDLE; done <= 1'b0; e_eq_dec <= 1'b0; e_eq_fail <= 1'b0; d_w_start <= 1'b0;
      s_stat <= '0; s_fault <= 1'b0; s_fire <= 1'b0;
    end else if (ce) begin
      done <= 1'b0; e_eq_dec <= 1'b0; e_eq_fail <= 1'b0; d_w_start <= 1'b0;
      s_stat <= '0; s_fault <= 1'b0; s_fire <= 1'b0;
      state_q <= state;
      if (start) eq_n <= eqn;
      case (state)
        EQST_CHECK_EQ:
          if (eqn_now < 32'(NEQ) && e_eq_valid)
            state_q <= EQST_WRITE_EQE;
          else begin
            done <= 1'b1; state_q <= EQST_IDLE;
          end
        EQST_WRITE_EQE: if (!e_eq_db_now) begin : write
          logic [127:0] e;
          logic [63:0]  a;
          if (bad) begin
            done <= 1'b1; state_q <= EQST_IDLE;
          end else if (full) begin
            s_stat[`HCA_STAT_EQ_OVERFLOW] <= 1'b1;
            done <= 1'b1; state_q <= EQST_IDLE;
          end else begin
            e = '0;
            e[8*`HCA_EQE_TYPE_OFF +: 8]     = eqe[79:72];
            e[8*`HCA_EQE_SUBTYPE_OFF +: 8]  = eqe[71:64];
            e[8*`HCA_EQE_ELEMENT_OFF +: 32] = eqe[63:32];
            e[8*`HCA_EQE_DATA_OFF +: 32]    = eqe[31:0];
            e[8*`HCA_EQE_OWNER_OFF +: 8]    = {7'b0, ~e_eq_pi[{1'b0, lg}]};
            a = e_eq_cfg[8*`HCA_EQC_BASE_OFF +: 64] + ({32'b0, e_eq_pi & (size - 32'd1)} << 4);
            d_w_start <= 1'b1;
            d_w_len   <= 16'(`HCA_EQE_SIZE);
            d_w_addr  <= a;
            eq_iova   <= a;
            d_w_small <= {384'b0, e};
            eq_fire   <= e_eq_armed;     // eq_take: slot and disarm in this cycle
            state_q   <= EQST_WAIT_WRITE;
          end
        end
        EQST_WAIT_WRITE: if (d_w_done) begin
          if (d_w_err) begin
            s_fault <= 1'b1; s_fault_iova <= eq_iova;
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            e_eq_fail <= 1'b1;
            e_eq_dec  <= 1'b1;
          end else if (eq_fire) begin
            s_fire <= 1'b1;
            s_vec  <= e_eq_cfg[8*`HCA_EQC_VECTOR_OFF +: 5];
          end
          done <= 1'b1; state_q <= EQST_IDLE;
        end
        EQST_ARM_IRQ: if (!e_eq_db_now) begin   // fp_take: pending bit cleared
          if (e_eq_valid) begin                  // decided at the EQ_ARM doorbell (hca_ctx)
            s_fire <= 1'b1;
            s_vec  <= e_eq_cfg[8*`HCA_EQC_VECTOR_OFF +: 5];
          end
          done <= 1'b1; state_q <= EQST_IDLE;
        end
        default: ;
      endcase
    end
  end
endmodule
