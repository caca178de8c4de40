`include "hca_defs.vh"

// CQE posting (model/cq.c model_cq_post) and the COMP EQE owed by a CQ arm
// doorbell that found CQEs already there (hca_ctx cq_fp; model/cq.c
// model_cq_doorbell).
//
// Two jobs (docs/rtl.md "Handshakes"), each a level request held with its
// arguments until `done`:
//   post (`req`, cqn, cqe, sol): CQST_READ_CQC reads the CQC (skipped when
//     the copy of the last CQC read is this CQ's and no CQC RAM write came
//     since, cqc_gen: CQST_RESERVE acts in the post's first cycle); CQST_RESERVE
//     checks the CQ (invalid or in error: the completion is lost), overflow
//     (HCA_STAT_CQ_OVERFLOW, CQ error, CQ_ERR event, lost), else starts the
//     32-byte DMA write with the owner bit, reserves the slot and decides
//     the event in the same cycle (cq_take: pi + 1, disarm, sol_pi);
//     CQST_WAIT_WRITE waits for the write response (a fault: CQ error, slot
//     taken back, CQ_ERR, lost), then, if the event fired, the COMP EQE is
//     posted through hca_eq_post (CQST_WAIT_EQE).  Result `lost`.
//     Posted (`post` with req, hca_complete_send for hca_comp's ACKs): when
//     the CQE raises no event, `done` (lost 0) comes in the cycle after
//     CQST_RESERVE, and the write's response is awaited behind the caller's
//     back by the posted-write engine (pw_q, `pend`; not the working job).
//     CQE batches (docs/rtl.md "CQE batches"): while that write is
//     outstanding (PWST_WAIT), a posted CQE of the same CQ that raises no
//     event, is not solicited, finds the ring not full and no doorbell of
//     the CQ in its cycle, and fits the batch (up to NB CQEs in adjacent
//     slots, no wrap inside one) is reserved at once (CQST_BATCH: the slot
//     taken, done next cycle, lost 0) and kept; when the outstanding write's
//     response is good the batch goes out as ONE DMA write.  A write of
//     several CQEs that faults transferred nothing (host memory faults a DMA
//     write whole): PWST_REPLAY writes its CQEs again one by one to find the
//     first that faults; that one does what a fault does above (CQ error,
//     slot back, CQ_ERR, DMA fault) and the ones after it, and the batch
//     behind it, are lost to the CQ in error (PWST_DROP: the slots taken
//     back one a cycle, no event, as the model's post to a CQ in error).
//     Outcomes are reported in post order (`p_add`: a posted CQE accepted;
//     `p_gn`: that many of the oldest came back good; `p_l1`: the oldest
//     unresolved one is lost) to hca_comp_posted, which keeps the QPs held
//     and applies the losses.  Any other job waits until no posted write or
//     batch is pending and, under `hold`, for the hold's end (nothing of a
//     later item before the outcome).
//   arm (`arm_req`, arm_cqn): CQST_ARM_READ_CQC, CQST_ARM_EQE (pending bit
//     cleared), then the COMP EQE as above.
// CQST_RESERVE waits a cycle while a doorbell of the same CQ takes effect
// (e_cq_db_now): arming and reservation are atomic, as in the model.  The
// EQE post is this job's last step, so its `done` is this job's `done`.
// Callers: hca_complete_send, hca_complete_recv, hca_qp_flush (post);
// hca_dispatch (arm).  Calls: hca_eq_post.
module hca_cq_post #(
    parameter int LOG_MAX_CQ = 8,
    parameter int NB = 2                 // CQEs in one batch write (the 64-byte small source of hca_dma_wr)
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        req,
    input  logic [31:0] cqn,
    input  logic [255:0] cqe,            // without its owner bit
    input  logic        sol,             // solicited (an error CQE counts as solicited too)
    input  logic        post,            // with req: the caller does not wait for the write (above)
    input  logic        cqc_written,     // hca_ctx: a CQC RAM write this cycle (the copy is stale)
    input  logic        hold,            // hca_comp_posted: an ended item's CQE outcome pending
    input  logic        arm_req,
    input  logic [31:0] arm_cqn,
    output logic        done,
    output logic        lost,            // post: the completion was lost
    output logic        pend,            // a posted CQE write or batch is pending
    output logic        p_add,           // a posted CQE is accepted this cycle (its outcome pending)
    output logic [1:0]  p_gn,            // this many of the oldest pending CQEs came back good
    output logic        p_l1,            // the oldest unresolved pending CQE is lost
    output logic        dbg_act,
    output logic [7:0]  dbg_st,
    // hca_eq_post
    output logic        eqp_req,
    output logic [1:0]  eqp_kind,
    output logic [31:0] eqp_eqn,
    output logic [79:0] eqp_eqe,
    input  logic        eqp_done,
    // hca_ctx CQ table
    output logic [LOG_MAX_CQ-1:0] e_cq_idx,
    input  logic        e_cq_valid,
    input  logic [31:0] e_cq_pi,
    input  logic [31:0] e_cq_ci,
    input  logic [1:0]  e_cq_arm,
    input  logic        e_cq_err,
    input  logic        e_cq_db_now,
    output logic        e_cqc_en,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [255:0] e_cqc_rdata,    // CQC bytes: base, log size, EQN used here
    /* verilator lint_on UNUSEDSIGNAL */
    output logic        e_cq_inc,
    output logic        e_cq_dec,
    output logic        e_cq_disarm,
    output logic        e_cq_sol,
    output logic        e_cq_set_err,
    output logic        e_cq_fp_clr,
    // hca_dma_wr
    output logic        d_w_start,
    output logic [63:0] d_w_addr,
    output logic [15:0] d_w_len,
    output logic [511:0] d_w_small,
    input  logic        d_w_done,
    input  logic        d_w_err,
    // hca_regs: statistics, events, DMA fault
    output logic [`HCA_STAT_COUNT-1:0] s_stat,
    output logic        s_evt,
    output logic [7:0]  s_evt_type,
    output logic [31:0] s_evt_elem,
    output logic        s_fault,
    output logic [7:0]  s_fault_client,
    output logic        s_fault_wr,
    output logic [63:0] s_fault_iova
);
  typedef enum logic [2:0] {
    CQST_IDLE, CQST_READ_CQC, CQST_RESERVE, CQST_WAIT_WRITE, CQST_WAIT_EQE,
    CQST_ARM_READ_CQC, CQST_ARM_EQE, CQST_BATCH
  } st_t;
  // the posted-write engine: the outstanding write (pw_n CQEs), its replay
  // CQE by CQE after a fault, the lost ones after the first faulting one
  typedef enum logic [1:0] {PWST_IDLE, PWST_WAIT, PWST_REPLAY, PWST_DROP} pw_t;
  st_t state_q, state;
  pw_t pw_q;
  logic [1:0] b_n, pw_n, rp_i;       // CQEs in the batch, in the outstanding write; the replayed one
  logic [2:0] dr_n;                  // CQEs still to drop (lost to the CQ in error)
  logic start, bstart, arm_start, hit, free, batchable, pw_any;
  assign pw_any    = pw_q != PWST_IDLE || b_n != 2'd0;
  // a job other than a batch entry: nothing posted pending, no hold, and no
  // registered CQ strobe still to land on the CQ it indexes
  assign free      = !pw_any && !hold && !e_cq_dec && !e_cq_set_err && !e_cq_fp_clr;
  assign start     = state_q == CQST_IDLE && req && free;
  assign bstart    = state_q == CQST_IDLE && req && post && pw_q == PWST_WAIT && !d_w_done && batchable;
  assign arm_start = state_q == CQST_IDLE && !req && arm_req && free;
  always_comb begin
    state = state_q;
    if (bstart) state = CQST_BATCH;
    else if (start) state = hit ? CQST_RESERVE : CQST_READ_CQC;
    else if (arm_start) state = CQST_ARM_READ_CQC;
    else if (state_q == CQST_WAIT_EQE && eqp_done) state = CQST_IDLE;
  end
  assign eqp_req  = state == CQST_WAIT_EQE;
  assign eqp_kind = `EQP_POST_COMP;
  assign pend     = pw_any;
  assign dbg_act  = state != CQST_IDLE && !eqp_req;
  assign dbg_st   = 8'(state);

  // The CQC's fields a post needs (base, log size, EQN), kept from the last
  // CQST_READ_CQC: a post to the same CQ with no CQC RAM write since
  // (cqc_gen: CQC writes counted in every cycle, engine held or not; the
  // copy is valid for the count at its read) reserves in its first cycle.
  logic [7:0]   cqc_gen, rd_gen, cc_gen;
  logic         cc_v, rd_q, from_rd_q, from_rd;
  logic [31:0]  cc_n, cc_eqn;
  logic [63:0]  cc_base;
  logic [7:0]   cc_lg8;
  logic [63:0]  f_base;
  logic [7:0]   f_lg8;
  logic [31:0]  f_eqn;
  assign hit     = cc_v && cc_n == cqn && cc_gen == cqc_gen && !cqc_written;
  // CQST_RESERVE on the CQC just read (rd_q: the cycle after CQST_READ_CQC;
  // or a repeat after it), else on the copy
  assign from_rd = rd_q || (state_q == CQST_RESERVE && from_rd_q);
  assign f_base  = from_rd ? e_cqc_rdata[8*`HCA_CQC_BASE_OFF +: 64] : cc_base;
  assign f_lg8   = from_rd ? e_cqc_rdata[8*`HCA_CQC_LOG_SIZE_OFF +: 8] : cc_lg8;
  assign f_eqn   = from_rd ? e_cqc_rdata[8*`HCA_CQC_EQN_OFF +: 32] : cc_eqn;
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) cqc_gen <= '0;
    else if (cqc_written) cqc_gen <= cqc_gen + 8'd1;
  end

  logic [31:0]  cq_n;                // the CQ of the job in progress
  logic [31:0]  cqn_now;
  logic [31:0]  cq_eqn;             // the CQ's EQ (read with the CQC)
  logic         cq_fire;             // decided with the slot (CQST_RESERVE)
  logic [63:0]  cq_iova;
  logic         done_q;
  assign cqn_now  = start ? cqn : arm_start ? arm_cqn : cq_n;    // a batch entry: cqn is cq_n
  assign e_cq_idx = cqn_now[LOG_MAX_CQ-1:0];
  assign e_cqc_en = state == CQST_READ_CQC || state == CQST_ARM_READ_CQC;
  // the COMP EQE (hca_eq_post) is the job's last step
  assign done = done_q || (state_q == CQST_WAIT_EQE && eqp_done);

  // The ring check of CQST_RESERVE, shared by the state machine and the
  // strobes: log2 size, no such CQ (lost), full (overflow).
  logic [3:0]  lg;
  logic [31:0] size;
  logic        bad, full, take, take_sol, take_fire;
  always_comb begin
    lg   = (f_lg8 > 8'(`HCA_CAP_LOG_MAX_CQE)) ? 4'(`HCA_CAP_LOG_MAX_CQE) : f_lg8[3:0];
    size = 32'd1 << lg;
    bad  = cqn_now == 32'h0 || cqn_now >= 32'(1 << LOG_MAX_CQ) || !e_cq_valid || e_cq_err;
    full = e_cq_pi - e_cq_ci >= size;
    take_sol  = sol || cqe[8*`HCA_CQE_STATUS_OFF +: 8] != 8'(`HCA_WC_SUCCESS);
    take_fire = e_cq_arm == 2'(`HCA_CQ_ARM_NEXT) || (e_cq_arm == 2'(`HCA_CQ_ARM_SOLICITED) && take_sol);
  end
  assign take = ce && state == CQST_RESERVE && !e_cq_db_now && !bad && !full;
  // a batch entry (CQST_BATCH, in the post's first cycle, on the copy of the
  // CQC): the pending write's CQ, no event, not solicited, not full, no
  // doorbell of the CQ now, room in the batch and no wrap inside it
  logic [31:0] slot;
  logic        bt;
  assign slot      = e_cq_pi & (size - 32'd1);
  assign batchable = hit && cqn == cq_n && !e_cq_db_now && !bad && !full && !take_fire && !take_sol &&
                     b_n != 2'(NB) && (b_n == 2'd0 || slot != 32'd0);
  assign bt        = ce && state == CQST_BATCH;
  // the CQE write starts in the CQST_RESERVE cycle that takes the slot
  logic [255:0] w_cqe;
  always_comb begin
    w_cqe = cqe;
    w_cqe[8*`HCA_CQE_OWNER_OFF +: 8] = {7'b0, ~e_cq_pi[{1'b0, lg}]};
    w_cqe[8*`HCA_CQE_BYTE_LEN_OFF] = `HCA_BUG(cqe_field, w_cqe[8*`HCA_CQE_BYTE_LEN_OFF],
                                              ~w_cqe[8*`HCA_CQE_BYTE_LEN_OFF]);
  end
  // The posted-write engine's writes: the batch when the outstanding write
  // came back good (pw_go), a replayed CQE (rp_go, index rp_nx).
  logic [63:0]     r_addr, pw_iova, b_iova;
  logic [NB*256-1:0] pw_cqe, b_cqe;
  logic            pw_ok, pw_err, pw_go, rp_go;
  logic [1:0]      rp_nx;
  assign r_addr = f_base + ({32'b0, slot} << 5);
  assign pw_ok  = d_w_done && !d_w_err && (pw_q == PWST_WAIT || (pw_q == PWST_REPLAY && rp_i + 2'd1 == pw_n));
  assign pw_err = d_w_done && d_w_err && (pw_q == PWST_REPLAY || (pw_q == PWST_WAIT && pw_n == 2'd1));
  assign pw_go  = ce && pw_ok && b_n != 2'd0;
  assign rp_go  = ce && d_w_done && ((pw_q == PWST_WAIT && d_w_err && pw_n != 2'd1) ||
                                     (pw_q == PWST_REPLAY && !d_w_err && rp_i + 2'd1 != pw_n));
  assign rp_nx  = pw_q == PWST_WAIT ? 2'd0 : rp_i + 2'd1;
  // after a CQE's fault: the ones after it in the write, and the batch
  logic [2:0] dr_left;
  assign dr_left = 3'(pw_n) - (pw_q == PWST_WAIT ? 3'd0 : 3'(rp_i)) - 3'd1 + 3'(b_n);
  assign d_w_start = take || pw_go || rp_go;
  assign d_w_len   = pw_go ? 16'({b_n, 5'b0}) : 16'(`HCA_CQE_SIZE);
  assign d_w_addr  = pw_go ? b_iova : rp_go ? pw_iova + {57'b0, rp_nx, 5'b0} : r_addr;
  assign d_w_small = pw_go ? 512'(b_cqe) : rp_go ? {256'b0, pw_cqe[256*rp_nx +: 256]} : {256'b0, w_cqe};
  // outcomes, oldest first (hca_comp_posted)
  assign p_add = (take && post && !take_fire) || bt;
  assign p_gn  = !ce ? 2'd0 : (pw_q == PWST_WAIT && d_w_done && !d_w_err) ? pw_n :
                 (pw_q == PWST_REPLAY && d_w_done && !d_w_err) ? 2'd1 : 2'd0;
  assign p_l1  = ce && (pw_err || pw_q == PWST_DROP);
  assign e_cq_inc    = take || bt;
  assign e_cq_disarm = take && take_fire;
  assign e_cq_sol    = take && take_sol;
  assign s_fault_client = 8'(`HCA_DMA_CLIENT_CQE);
  assign s_fault_wr     = 1'b1;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= CQST_IDLE; done_q <= 1'b0; lost <= 1'b0; cq_n <= '0; cq_eqn <= '0; cq_fire <= 1'b0;
      pw_q <= PWST_IDLE; b_n <= '0; pw_n <= '0; rp_i <= '0; dr_n <= '0; pw_iova <= '0; b_iova <= '0;
      pw_cqe <= '0; b_cqe <= '0;
      cq_iova <= '0; eqp_eqn <= '0; eqp_eqe <= '0;
      cc_v <= 1'b0; rd_q <= 1'b0; from_rd_q <= 1'b0; rd_gen <= '0; cc_gen <= '0; cc_n <= '0; cc_eqn <= '0; cc_base <= '0;
      cc_lg8 <= '0;
      e_cq_dec <= 1'b0; e_cq_set_err <= 1'b0; e_cq_fp_clr <= 1'b0;
      s_stat <= '0; s_evt <= 1'b0; s_evt_type <= '0; s_evt_elem <= '0; s_fault <= 1'b0; s_fault_iova <= '0;
    end else if (srst) begin
      state_q <= CQST_IDLE; done_q <= 1'b0; rd_q <= 1'b0; from_rd_q <= 1'b0;
      pw_q <= PWST_IDLE; b_n <= '0;
      e_cq_dec <= 1'b0; e_cq_set_err <= 1'b0; e_cq_fp_clr <= 1'b0;
      s_stat <= '0; s_evt <= 1'b0; s_fault <= 1'b0;
    end else if (ce) begin
      done_q <= 1'b0;
      e_cq_dec <= 1'b0; e_cq_set_err <= 1'b0; e_cq_fp_clr <= 1'b0;
      s_stat <= '0; s_evt <= 1'b0; s_fault <= 1'b0;
      state_q <= state;
      if (start || arm_start) cq_n <= cqn_now;
      from_rd_q <= from_rd;
      rd_q      <= state == CQST_READ_CQC;
      if (rd_q) begin
        // the copy: valid for the CQC write count at the read
        cc_v <= 1'b1; cc_n <= cq_n; cc_gen <= rd_gen;
        cc_base <= f_base; cc_lg8 <= f_lg8; cc_eqn <= f_eqn;
      end
      case (state)
        CQST_READ_CQC: begin
          rd_gen  <= cqc_gen;
          state_q <= CQST_RESERVE;
        end
        // CQST_RESERVE decides the event and reserves the slot in one step; a
        // CQ doorbell of this CQ taking effect in the same cycle makes it wait
        // a cycle (the doorbell is then first), later ones wait for it.
        CQST_RESERVE: if (!e_cq_db_now) begin
          cq_eqn <= f_eqn;
          if (bad) begin
            lost <= 1'b1;
            done_q <= 1'b1; state_q <= CQST_IDLE;
          end else if (full) begin
            s_stat[`HCA_STAT_CQ_OVERFLOW] <= 1'b1;
            e_cq_set_err <= 1'b1;
            s_evt <= 1'b1; s_evt_type <= 8'(`HCA_EVENT_CQ_ERR); s_evt_elem <= cqn_now;
            lost <= 1'b1;
            done_q <= 1'b1; state_q <= CQST_IDLE;
          end else begin
            cq_iova   <= r_addr;               // the write starts now (d_w_start = take)
            // take: the slot is taken (pi + 1) and the event decided in this
            // cycle; a consumer index the driver rings after seeing the CQE is
            // never ahead of pi
            cq_fire   <= take_fire;
            if (post && !take_fire) begin
              // posted: the caller goes on now (no event to post after the
              // write), the posted-write engine awaits the response
              lost <= 1'b0; done_q <= 1'b1; state_q <= CQST_IDLE;
              pw_q <= PWST_WAIT; pw_n <= 2'd1; pw_iova <= r_addr;
              pw_cqe[255:0] <= w_cqe;
            end else
              state_q <= CQST_WAIT_WRITE;
          end
        end
        // a batch entry: the slot is taken (e_cq_inc, bt), the CQE kept
        CQST_BATCH: begin
          b_cqe[256*b_n +: 256] <= w_cqe;
          if (b_n == 2'd0) b_iova <= r_addr;
          b_n <= b_n + 2'd1;
          lost <= 1'b0; done_q <= 1'b1; state_q <= CQST_IDLE;
        end
        CQST_WAIT_WRITE: if (d_w_done) begin
          if (d_w_err) begin
            s_fault <= 1'b1; s_fault_iova <= cq_iova;
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            e_cq_set_err <= 1'b1;
            e_cq_dec <= 1'b1;
            s_evt <= 1'b1; s_evt_type <= 8'(`HCA_EVENT_CQ_ERR); s_evt_elem <= cq_n;
            lost <= 1'b1;
            done_q <= 1'b1; state_q <= CQST_IDLE;
          end else begin
            lost <= 1'b0;
            if (cq_fire) begin       // decided with the slot (CQST_RESERVE)
              eqp_eqn <= cq_eqn;
              eqp_eqe <= {8'(`HCA_EQE_TYPE_COMP), 8'h0, cq_n, 32'h0};
              state_q <= CQST_WAIT_EQE;
            end else begin
              done_q <= 1'b1; state_q <= CQST_IDLE;
            end
          end
        end
        CQST_ARM_READ_CQC: state_q <= CQST_ARM_EQE;
        CQST_ARM_EQE: begin
          e_cq_fp_clr <= 1'b1;
          eqp_eqn <= e_cqc_rdata[8*`HCA_CQC_EQN_OFF +: 32];
          eqp_eqe <= {8'(`HCA_EQE_TYPE_COMP), 8'h0, cq_n, 32'h0};
          state_q <= CQST_WAIT_EQE;
        end
        default: ;
      endcase
      // the posted-write engine (outcomes: p_gn, p_l1 above)
      case (pw_q)
        PWST_WAIT, PWST_REPLAY: if (d_w_done) begin
          if (pw_go) begin
            // good: the batch goes out as one write
            pw_q <= PWST_WAIT; pw_n <= b_n; pw_iova <= b_iova; pw_cqe <= b_cqe; b_n <= 2'd0;
          end else if (pw_ok)
            pw_q <= PWST_IDLE;
          else if (rp_go) begin
            // a write of several CQEs faulted (nothing landed) or a replayed
            // one came back good: the next CQE alone
            pw_q <= PWST_REPLAY; rp_i <= rp_nx;
          end else begin
            // this CQE faulted: the CQ in error, its slot taken back, CQ_ERR;
            // the ones after it and the batch are lost to the CQ in error
            s_fault <= 1'b1;
            s_fault_iova <= pw_q == PWST_WAIT ? pw_iova : pw_iova + {57'b0, rp_i, 5'b0};
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            e_cq_set_err <= 1'b1;
            e_cq_dec <= 1'b1;
            s_evt <= 1'b1; s_evt_type <= 8'(`HCA_EVENT_CQ_ERR); s_evt_elem <= cq_n;
            dr_n <= dr_left;
            b_n  <= 2'd0;
            pw_q <= dr_left != 3'd0 ? PWST_DROP : PWST_IDLE;
          end
        end
        PWST_DROP: begin
          e_cq_dec <= 1'b1;                    // the slot back (p_l1: lost)
          dr_n <= dr_n - 3'd1;
          if (dr_n == 3'd1) pw_q <= PWST_IDLE;
        end
        default: ;
      endcase
    end
  end
endmodule
