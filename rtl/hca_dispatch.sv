`include "hca_defs.vh"

// Dispatcher: picks the engine's next work item, in the order of the model's
// scheduler (docs/model.md section 3), and owns the item's words.
//
// Items, in priority (DISPST_IDLE):
//   1. an injected EQE (EQE_INJ_GO order): hca_eq_post (DISPST_WAIT_EQE);
//   2. a COMP EQE owed by a CQ arm doorbell (cq_fire_pending, lowest CQN):
//      hca_cq_post's arm job (DISPST_WAIT_ARM_EQE);
//   3. an EQ re-arm interrupt (eq_fire_pending, lowest EQN): hca_eq_post
//      (DISPST_WAIT_ARM_IRQ);
//   4. delivery of an unmasked vector with a pending PBA bit (in IDLE);
//   5. a received frame (hca_recv frame_valid): the frame checks
//      (DISPST_WAIT_FRAME_CHECK), the QP's words loaded
//      (DISPST_LOAD_FRAME_QP; the item starts in that cycle on the words
//      read, ld_frame), then the frame processed to the end
//      (DISPST_WAIT_FRAME: its ACK/NAK sent, its completions written);
//      checked ahead (docs/rtl.md "The frame checked ahead"): a frame
//      that passes the checks (hca_recv chk_pass) while a step runs has its
//      QP's words read ahead on the engine port's free cycles (fa_*; the
//      step's own words at its end when it is the step's QP: fr_fwd), and
//      its pick goes to DISPST_LOAD_FRAME_QP directly (rx_chk_fast: the
//      checks' work done in the pick's cycle) on those words; picked in a
//      step's done cycle, the frame's item starts in that cycle
//      (ho_now: the step -> frame handover, docs/rtl.md "Handovers"),
//      beside the step's write-back (txs_wb/rxs_wb at qn_c; the words
//      shown are the frame's, ho_*), unless a strobe landing then names the
//      QP live (ho_block);
//   6. one step of the next busy QP in ascending-QPN round robin (rr,
//      qp_busy from hca_ctx, or tm_due from hca_timers: a timer deadline
//      passed): DISPST_STEP_CLR_BUSY clears the busy bit (the step sets it
//      again if it made progress), DISPST_STEP_LOAD loads the QP's words,
//      DISPST_WAIT_TIMER runs hca_comp_timer if the QP's timer is due
//      (model/engine.c fire_timers), DISPST_WAIT_STEP runs hca_req (which
//      starts in DISPST_STEP_LOAD's cycle when no timer is due, ld_step);
//      picked in the write-back cycle of an ACK/NAK frame's item with the
//      look-ahead's words of another QP, the step starts in that cycle
//      (ak_now: the ACK item -> step handover, docs/rtl.md "Handovers"),
//      beside the item's write-back and its last strobes (the busy clear
//      at e_busy_cidx, a timer arming at tm_qn), unless a QP state or SRQ
//      strobe lands then (ak_block).
// One item at a time (but the handover cycles above); the next is picked in
// the cycle the last job of the previous one reports done (pick_kind: the
// order above, for DISPST_IDLE's branches and what depends on its pick).  Look-ahead (docs/rtl.md "Look-ahead"): when an
// item's words are loaded, the step the round robin would pick next among
// the other QPs is chosen and its QPC/TXS/RXS words read on the engine port
// in a cycle the item leaves it free (la_*); a step picked in an item's done
// cycle of that QP, or of the item's own QP (its words, written back in that
// cycle, forwarded), starts in the next cycle in DISPST_STEP_LOAD (no
// DISPST_STEP_CLR_BUSY: the busy clear is issued with the pick) on the held
// words.  The same for a frame (above).  Held words are used only while no
// QPC write happened since they were read (qpc_gen against la_gen / fa_gen /
// w_gen) and, for the words read ahead, no item of that QP wrote its words
// back since; the QP state, producer
// indices, busy, held and timer bits are read live as before.  No step, timer or frame of a QP with a posted
// CQE pending (hca_comp_posted's table: held_v, held_qn) starts; while an
// ended ACK item's is (`hold`; docs/rtl.md "Posted CQE writes", "CQE
// batches") only a step or an ACK/NAK frame (frame_go) of another QP starts (they park at
// the withheld CQE/EQE/QP-error callees), and nothing while a lost one is applied
// (`res`; hca_ctx's QP index is then hold_qn for hca_qp_err: `res_idx`).
// A step waiting for its WQE's read gives way to other work (step_yield:
// hca_req ends it, the QP stays busy and comes back).
//
// Item words (docs/rtl.md "Item words"): the QP number qn, the QPC bytes
// cfg, the requester word TXS, the responder word RXS, the QP state qp_st
// and the SRQ number are held here for the item in progress, loaded from
// hca_ctx at its start and TXS/RXS written back in the cycle after its last
// job ends (wb).  Jobs change a field by a registered write (mask + value,
// one cycle; *_wm/*_wv, OR-ed over all jobs by hca_transport, one writer at
// a time); the words shown (qn, txs, rxs, qp_st) include a write of the
// previous cycle, so a job sees its own write in the next cycle as if it
// owned the register.  e_step_* tell hca_ctx which QP is in progress, for
// the serialisation of context writes.  qpc_gen counts QPC writes (engine
// held or not): the fetch-buffer caches of hca_req and hca_scatter are
// valid only for the count they were filled at.
// Calls: hca_eq_post, hca_cq_post (arm), hca_recv (check, check ahead, frame),
// hca_comp_timer, hca_req.
module hca_dispatch #(
    parameter int LOG_MAX_QP  = 8,
    parameter int LOG_MAX_CQ  = 8,
    parameter int LOG_MAX_SRQ = 6,
    parameter int LOG_MAX_EQ  = 5,
    localparam int NQP = 1 << LOG_MAX_QP,
    localparam int NEQ = 1 << LOG_MAX_EQ
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        enabled,
    // harness view
    input  logic        strobes,         // a job's registered strobe is still to take effect
    input  logic        r_valid,
    input  logic        t_busy,
    input  logic        d_w_busy,
    input  logic [7:0]  job,             // the job doing the work this cycle (id, state)
    input  logic [7:0]  job_st,
    output logic        busy,
    output logic        idle,            // no item in progress
    // hca_comp_posted: an ended ACK item's CQE write pending
    input  logic        hold,
    input  logic        res,
    input  logic        res_idx,
    input  logic [LOG_MAX_QP-1:0] hold_qn,
    input  logic [3:0]  held_v,          // the QPs with a posted CQE pending (hca_comp_posted's table)
    input  logic [4*LOG_MAX_QP-1:0] held_qn,
    output logic [31:0] dbg,
    output logic        dbg_act,
    output logic [7:0]  dbg_st,
    // the item's words
    output logic [LOG_MAX_QP-1:0] qn,
    output logic [1023:0] cfg,           // (cfg_q, or the QPC read in ld_step)
    output logic [`TXS_W-1:0] txs,
    output logic [`RXS_W-1:0] rxs,
    output logic [2:0]  qp_st,
    output logic [15:0] qpc_gen,
    input  logic [LOG_MAX_QP-1:0] qn_wm,     // the jobs' writes, OR-ed
    input  logic [LOG_MAX_QP-1:0] qn_wv,
    input  logic [`TXS_W-1:0] txs_wm,
    input  logic [`TXS_W-1:0] txs_wv,
    input  logic [`RXS_W-1:0] rxs_wm,
    input  logic [`RXS_W-1:0] rxs_wv,
    input  logic [2:0]  st_wm,
    input  logic [2:0]  st_wv,
    // hca_ctx: QP context words, busy bits, SRQ index
    output logic [LOG_MAX_QP-1:0] e_qp_idx,
    input  logic [2:0]  e_qp_state,
    output logic        e_busy_clr,
    output logic [LOG_MAX_QP-1:0] e_busy_idx,
    output logic [LOG_MAX_QP-1:0] e_busy_cidx,   // the clear's QP (an ACK item -> step handover's: the step's)
    input  logic        e_busy_set,          // a job's busy-set strobe for e_busy_idx, landing this cycle
    input  logic [NQP-1:0] qp_busy,
    input  logic [NQP-1:0] tm_due,           // hca_timers: QPs whose timer deadline passed
    output logic        e_qpc_en,
    output logic [LOG_MAX_QP-1:0] e_qpc_idx,
    input  logic [1023:0] e_qpc_rdata,
    output logic        e_txs_en,
    output logic        e_txs_we,
    output logic [LOG_MAX_QP-1:0] e_txs_idx,
    output logic [`TXS_W-1:0] e_txs_wdata,
    input  logic [`TXS_W-1:0] e_txs_rdata,
    output logic        e_rxs_en,
    output logic        e_rxs_we,
    output logic [LOG_MAX_QP-1:0] e_rxs_idx,
    output logic [`RXS_W-1:0] e_rxs_wdata,
    input  logic [`RXS_W-1:0] e_rxs_rdata,
    output logic [LOG_MAX_SRQ-1:0] e_srq_idx,
    output logic [LOG_MAX_QP-1:0] e_step_qn,
    output logic        e_step_read,
    output logic        e_step_mid,
    output logic        e_step_wb,
    input  logic        qpc_written,
    // event sources
    input  logic        e_inj_valid,
    input  logic [LOG_MAX_EQ-1:0] e_inj_eqn,
    input  logic [79:0] e_inj_eqe,
    output logic        e_inj_pop,
    input  logic [(1<<LOG_MAX_CQ)-1:0] cq_fire_pending,
    input  logic        e_cq_fp_clr,         // hca_cq_post: a pending bit is being cleared
    input  logic [NEQ-1:0] eq_fire_pending,
    input  logic [31:0] x_masked,
    input  logic [31:0] x_pba,
    output logic        x_deliver,
    output logic [4:0]  x_deliver_vec,
    // hca_eq_post
    output logic        eqp_req,
    output logic [1:0]  eqp_kind,
    output logic [31:0] eqp_eqn,
    output logic [79:0] eqp_eqe,
    input  logic        eqp_done,
    // hca_cq_post (arm job)
    output logic        cqa_req,
    output logic [31:0] cqa_cqn,
    input  logic        cqp_done,
    // hca_recv
    input  logic        frame_valid,
    output logic        rx_chk_req,
    input  logic        rx_chk_done,
    input  logic        rx_chk_accept,
    input  logic        rx_chk_pass,         // the offered frame passes the frame checks now
    output logic        rx_chk_fast,         // taken without RECVST_CHECK_FRAME (this pick, its words held)
    input  logic        ho_block,            // a registered strobe landing now that names the item's QP live
    input  logic        ak_block,            // ... one that names it through e_qp_idx / e_srq_idx (QP state, SRQ)
    // hca_timers: the QP and QPC timeout of an arming landing now (the
    // ending item's in an ACK item -> step handover's cycle)
    output logic [LOG_MAX_QP-1:0] tm_qn,
    output logic [4:0]  tm_timeout,
    input  logic        rx_qpc_en,           // the frame check reads the destination QP's words
    input  logic [LOG_MAX_QP-1:0] rx_dqpn,
    input  logic        rx_ack,              // the held frame is an ACK/NAK (may start under a hold)
    output logic        rx_req,
    input  logic        rx_done,
    input  logic        rx_wb,
    input  logic        rx_end,
    // hca_comp_timer
    output logic        tmr_req,
    input  logic        tmr_done,
    // hca_req
    output logic        step_req,
    input  logic        step_done,
    input  logic        step_end,
    output logic        step_yield       // other work waits: a step waiting for a WQE read gives way
);
  typedef enum logic [3:0] {
    DISPST_IDLE, DISPST_WAIT_EQE, DISPST_WAIT_ARM_EQE, DISPST_WAIT_ARM_IRQ,
    DISPST_WAIT_FRAME_CHECK, DISPST_LOAD_FRAME_QP, DISPST_WAIT_FRAME,
    DISPST_STEP_CLR_BUSY, DISPST_STEP_LOAD, DISPST_WAIT_STEP, DISPST_WAIT_TIMER
  } st_t;
  st_t state_q, state;
  // DISPST_IDLE's pick (pick_kind)
  typedef enum logic [2:0] {PK_NONE, PK_INJ, PK_CQ_ARM, PK_EQ_ARM, PK_PBA, PK_FRAME, PK_STEP} pk_t;
  always_comb begin
    state = state_q;
    case (state_q)
      DISPST_WAIT_EQE:         if (eqp_done) state = DISPST_IDLE;
      DISPST_WAIT_ARM_EQE:     if (cqp_done) state = DISPST_IDLE;
      DISPST_WAIT_ARM_IRQ:     if (eqp_done) state = DISPST_IDLE;
      DISPST_WAIT_FRAME_CHECK: if (rx_chk_done) state = rx_chk_accept ? DISPST_LOAD_FRAME_QP : DISPST_IDLE;
      DISPST_WAIT_FRAME:       if (rx_done) state = DISPST_IDLE;
      DISPST_WAIT_STEP:        if (step_done) state = DISPST_IDLE;
      DISPST_WAIT_TIMER:       if (tmr_done) state = DISPST_WAIT_STEP;
      default: ;
    endcase
  end
  assign eqp_req    = state == DISPST_WAIT_EQE || state == DISPST_WAIT_ARM_IRQ;
  assign eqp_kind   = (state == DISPST_WAIT_ARM_IRQ) ? `EQP_ARM_IRQ : `EQP_POST;
  assign cqa_req    = state == DISPST_WAIT_ARM_EQE;
  assign rx_chk_req = state == DISPST_WAIT_FRAME_CHECK;
  // a frame's item starts in DISPST_LOAD_FRAME_QP's cycle, on the words read (ld_frame)
  assign rx_req     = state == DISPST_WAIT_FRAME || ld_frame || ho_now;
  // a step starts in DISPST_STEP_LOAD's cycle, on the words read (ld_step)
  assign step_req   = state == DISPST_WAIT_STEP || ld_step || ak_now;
  assign tmr_req    = state == DISPST_WAIT_TIMER;
  assign dbg_act    = state == DISPST_STEP_CLR_BUSY || state == DISPST_STEP_LOAD || state == DISPST_LOAD_FRAME_QP;
  assign dbg_st     = 8'(state);

  // ---- the item's words: registers + this cycle's pending job writes
  logic [LOG_MAX_QP-1:0] qn_q;
  // the round-robin pointer: its next value is a priority pick over all
  // qp_busy bits, which Yosys's FSM extraction would try to tabulate
  (* fsm_encoding = "none" *) logic [LOG_MAX_QP-1:0] rr;
  logic [`TXS_W-1:0] txs_q;
  logic [`RXS_W-1:0] rxs_q;
  logic [2:0]  st_q;
  logic [LOG_MAX_SRQ-1:0] srq_n;
  logic        in_step;
  // DISPST_STEP_LOAD with no timer due: the step starts in this cycle (issue
  // 12, a shorter requester step) and sees the words as they are loaded
  // (the context RAMs' outputs; no job wrote them in the read's cycle)
  logic        ld_step;
  // DISPST_LOAD_FRAME_QP (the accepted frame check's done cycle): the frame's
  // item starts in this cycle on the words read by RECVST_CHECK_FRAME, in the
  // same way (hca_recv's QP checks and the callee's first state act in it)
  logic        ld_frame, ld_now;
  logic [1023:0] cfg_q;
  // look-ahead (docs/rtl.md "Look-ahead"): a step picked in the done cycle
  // of an item whose words are already here starts in the next cycle
  // (DISPST_STEP_LOAD without DISPST_STEP_CLR_BUSY) on the held words
  // (la_use: cfg_q/txs_q/rxs_q, loaded from the look-ahead registers or the
  // ending item's own words forwarded)
  logic        la_use;
  logic        la_want, la_rd, la_v, la_issue;
  logic [LOG_MAX_QP-1:0] la_qn;
  logic [15:0] la_gen, w_gen;
  logic [1023:0] la_cfg;
  logic [`TXS_W-1:0] la_txs;
  logic [`RXS_W-1:0] la_rxs;
  // the frame checked ahead (below)
  logic        fa_rd, fa_v, fa_issue, fr_fwd, fr_rd, fr_hit, pick_frame;
  // the handover (docs/rtl.md "Handovers"): a frame checked ahead starts in
  // the done cycle of the step before it (ho_now), beside that step's
  // write-back
  logic        ho_now;
  logic [LOG_MAX_QP-1:0] qn_c;       // the item's QP before a handover's switch
  // the ACK item -> step handover (docs/rtl.md "Handovers"): the step the
  // pick in an ACK/NAK item's write-back cycle chooses starts in that cycle
  // on the look-ahead's words (ak_now), beside the item's write-back
  logic        ak_now, it_ack, e_busy_clr_q;
  logic [1023:0] ho_cfg;
  logic [`TXS_W-1:0] ho_txs, txs_wb;
  logic [`RXS_W-1:0] ho_rxs, rxs_wb;
  logic [LOG_MAX_QP-1:0] fa_qn;
  logic [15:0] fa_gen;
  logic [1023:0] fa_cfg;
  logic [`TXS_W-1:0] fa_txs;
  logic [`RXS_W-1:0] fa_rxs;
  logic [1023:0] ld_cfg;
  logic [`TXS_W-1:0] ld_txs;
  logic [`RXS_W-1:0] ld_rxs;
  assign ld_cfg = la_use ? cfg_q : e_qpc_rdata;
  assign ld_txs = la_use ? txs_q : e_txs_rdata;
  assign ld_rxs = la_use ? rxs_q : e_rxs_rdata;
  assign ld_step  = state_q == DISPST_STEP_LOAD && !tm_due[qn_q];
  assign ld_frame = (state_q == DISPST_WAIT_FRAME_CHECK && rx_chk_done && rx_chk_accept) ||
                    state_q == DISPST_LOAD_FRAME_QP;
  assign ld_now   = ld_step || ld_frame;
  // the write-back words: the item's with its jobs' last writes
  assign txs_wb = (txs_q & ~txs_wm) | txs_wv;
  assign rxs_wb = (rxs_q & ~rxs_wm) | rxs_wv;
  // a handover's words: the ending step's (its QP's frame: forwarded with
  // its last writes) or the frame's read ahead, without the step's writes
  assign ho_cfg = fr_fwd ? cfg_q : fr_rd ? e_qpc_rdata : fa_cfg;
  assign ho_txs = fr_fwd ? txs_wb : fr_rd ? e_txs_rdata : fa_txs;
  assign ho_rxs = fr_fwd ? rxs_wb : fr_rd ? e_rxs_rdata : fa_rxs;
  assign qn_c  = (qn_q & ~qn_wm) | qn_wv;
  assign qn    = ho_now ? rx_dqpn : ak_now ? la_qn : qn_c;
  assign cfg   = ho_now ? ho_cfg : ak_now ? la_cfg : ld_now ? ld_cfg : cfg_q;
  assign txs   = ho_now ? ho_txs : ak_now ? la_txs : ((ld_now ? ld_txs : txs_q) & ~txs_wm) | txs_wv;
  assign rxs   = ho_now ? ho_rxs : ak_now ? la_rxs : ((ld_now ? ld_rxs : rxs_q) & ~rxs_wm) | rxs_wv;
  assign qp_st = (ho_now || ak_now) ? e_qp_state : ((ld_now ? e_qp_state : st_q) & ~st_wm) | st_wv;

  // the last job of the item reported done: write TXS/RXS back this cycle
  logic wb_now;
  assign wb_now = (state_q == DISPST_WAIT_STEP && step_done) || (state_q == DISPST_WAIT_FRAME && rx_done && rx_wb);

  // Context RAM reads (combinational enables) and the write-back.
  assign e_qp_idx    = res_idx ? hold_qn : qn;
  assign e_busy_idx  = res_idx ? hold_qn : qn_c;     // (a handover's: the ending item's strobe)
  // the busy clear: issued with a pick (registered, landing in the step's
  // first cycle), or in an ACK item -> step handover's cycle, the step's
  // first, for its QP beside the ending item's busy set (e_busy_idx)
  assign e_busy_clr  = e_busy_clr_q || ak_now;
  assign e_busy_cidx = ak_now ? la_qn : e_busy_idx;
  assign tm_qn       = ak_now ? qn_c : qn;
  assign tm_timeout  = ak_now ? cfg_q[8*`HCA_QPC_TIMEOUT_OFF +: 5] : cfg[8*`HCA_QPC_TIMEOUT_OFF +: 5];
  assign idle        = state_q == DISPST_IDLE;
  assign e_srq_idx   = ld_frame ? ld_cfg[8*`HCA_QPC_SRQN_OFF +: LOG_MAX_SRQ] :
                       ho_now ? ho_cfg[8*`HCA_QPC_SRQN_OFF +: LOG_MAX_SRQ] : srq_n;
  logic rd_item;    // the item's own read (not the look-ahead's)
  assign rd_item     = state == DISPST_STEP_CLR_BUSY || rx_qpc_en;
  assign e_qpc_en    = rd_item || la_issue || fa_issue;
  assign e_qpc_idx   = rx_qpc_en ? rx_dqpn : la_issue ? la_qn : fa_issue ? rx_dqpn : qn_c;
  assign e_txs_en    = e_qpc_en || wb_now;
  assign e_txs_we    = wb_now;
  assign e_txs_idx   = e_qpc_idx;
  // the write-back data (and hca_db_wqe_read's view of the item's word):
  // the words shown, but in a handover's cycle the ending step's
  assign e_txs_wdata = (ho_now || ak_now) ? txs_wb : txs;
  assign e_rxs_en    = e_qpc_en || wb_now;
  assign e_rxs_we    = wb_now;
  assign e_rxs_idx   = e_qpc_idx;
  assign e_rxs_wdata = (ho_now || ak_now) ? rxs_wb : rxs;
  // the item's QP for hca_ctx's interlock: never the look-ahead's (its read
  // takes no QPC write; a write since makes its words invalid, la_gen)
  assign e_step_qn   = rx_qpc_en ? rx_dqpn : qn_c;
  assign e_step_read = rd_item;
  // mid-item: from the cycle after the read up to and including the
  // write-back cycle (the first idle cycle)
  assign e_step_mid  = (in_step && state != DISPST_IDLE && !rd_item) || wb_now;
  assign e_step_wb   = wb_now || step_end || rx_end;

  // Lowest set bit of a QP- or CQ-sized vector, by halving: log2 steps, not
  // a scan of every entry (the simulator evaluates it every cycle;
  // docs/sim.md 9.1).
  localparam int LW_PICK = LOG_MAX_QP > LOG_MAX_CQ ? LOG_MAX_QP : LOG_MAX_CQ;
  localparam int NW_PICK = 1 << LW_PICK;
  function automatic [LW_PICK-1:0] lowest(input logic [NW_PICK-1:0] v);
    logic [NW_PICK-1:0] x;
    integer b;
    x = v;
    lowest = '0;
    for (b = LW_PICK - 1; b >= 0; b = b - 1)
      if ((x & ({NW_PICK{1'b1}} >> (NW_PICK - (1 << b)))) == '0) begin
        lowest[b] = 1'b1;
        x = x >> (1 << b);
      end
  endfunction
  // Busy (or timer-due) QP after rr in ascending order (round robin =
  // repeated passes).
  // A busy bit being set in this cycle (a job's registered strobe, for the
  // item's QP) counts already: the pick need not wait for it to land.
  // The steps that may start (qp_go): not those of the QPs whose CQE is
  // pending (held_v, held_qn: 4 single bits); go_other: one of another QP than qn's (step_yield).  Single bits
  // set and cleared, not one-hot masks: a Verilated 256-bit shift by a
  // variable amount is a loop over its words on every edge (docs/sim.md 9.1).
  logic [NQP-1:0] qp_work, qp_go, go_x;
  logic go_other;
  always_comb begin : work_bits
    qp_work = qp_busy | tm_due;
    if (e_busy_set) qp_work[e_busy_idx] = 1'b1;
    qp_go = qp_work;
    for (int h = 0; h < 4; h++)
      if (held_v[h]) qp_go[held_qn[LOG_MAX_QP*h +: LOG_MAX_QP]] = 1'b0;
  end
  // (the item's QP: in an ACK item -> step handover's cycle, the step's)
  always_comb begin : work_x
    go_x = qp_go;
    go_x[ak_now ? la_qn : qn_c] = 1'b0;
    go_other = go_x != '0;
  end
  // The picks are functions called inside the flops' `if` that takes them
  // (DISPST_IDLE's branches): Verilator evaluates continuous logic on every
  // edge, a procedural branch only in the cycles that take it (docs/sim.md
  // 9.1).
  function automatic [LOG_MAX_QP-1:0] rr_next(input logic [NQP-1:0] go, input logic [LOG_MAX_QP-1:0] after);
    logic [NQP-1:0] busy_after;
    busy_after = go & ({NQP{1'b1}} << ({1'b0, after} + (LOG_MAX_QP + 1)'(1)));
    rr_next    = LOG_MAX_QP'(lowest(NW_PICK'(busy_after != '0 ? busy_after : go)));
  endfunction
  function automatic [LOG_MAX_EQ-1:0] fp_first(input logic [NEQ-1:0] v);
    integer i;
    fp_first = '0;
    for (i = NEQ - 1; i >= 0; i = i - 1)
      if (v[i]) fp_first = LOG_MAX_EQ'(i);
  endfunction
  function automatic [4:0] pba_first(input logic [31:0] v);
    integer i;
    pba_first = '0;
    for (i = 31; i >= 0; i = i - 1)
      if (v[i]) pba_first = 5'(i);
  endfunction
  logic [31:0] pba_pend;
  assign pba_pend = x_pba & ~x_masked;

  // ---- look-ahead (docs/rtl.md "Look-ahead"): the step the round robin
  // would pick next, of another QP than the item's, chosen when an item's
  // words are loaded (ld_now: rr_next over go_x), its QPC/TXS/RXS words read
  // on the engine port in a cycle the item leaves it free (la_issue: not the
  // item's own read, not its write-back) and kept (la_cfg, la_txs, la_rxs).
  // They stay valid while no QPC write happened since the read (la_gen: any
  // QP's, counted by qpc_gen in every cycle, engine held or not) and no
  // item of that QP wrote its words back.  The QP state, producer indices,
  // busy, held and timer bits are not kept: the pick and the step read them
  // live as before.  The step pick in an item's done cycle takes them when
  // it picks that QP (DISPST_STEP_LOAD next, no DISPST_STEP_CLR_BUSY); the
  // same QP as the item ending takes the item's words (w_gen: no QPC write
  // since they were read).  Otherwise today's path.
  assign la_issue = la_want && !rd_item && !wb_now;

  // ---- the frame checked ahead (docs/rtl.md "The frame checked ahead"):
  // while a step runs and a frame is offered that passes the frame checks
  // (hca_recv chk_pass: RECVST_CHECK_FRAME's checks, evaluated on the
  // frame's fields, writing and releasing nothing), its QP's QPC/TXS/RXS
  // words are read on the engine port in a cycle the step and the
  // look-ahead leave it free (fa_issue) and kept (fa_cfg, fa_txs, fa_rxs),
  // keyed by the QP (fa_qn): another frame of that QP in the slot takes
  // them too, a frame of another QP does not (fa_qn == rx_dqpn at the
  // pick).  A frame of the step's own QP takes the step's words at its end
  // instead (forwarded, as the look-ahead's same-QP step).  Kept valid while
  // nothing wrote them: no QPC write since the read (fa_gen against
  // qpc_gen; one in the pick's cycle, qpc_written) and no write-back of that
  // QP by an item.  A QP error moves no TXS/RXS/QPC word (the QP state is
  // read live in DISPST_LOAD_FRAME_QP, as after RECVST_CHECK_FRAME).
  // The frame pick is made where and when it was (DISPST_IDLE's order,
  // frame_go: held QPs and the hold as before); when the frame passes the
  // checks in that cycle and its words are here (fr_hit), hca_recv does
  // RECVST_CHECK_FRAME's work in that cycle (rx_chk_fast) and the item
  // starts in the next (DISPST_LOAD_FRAME_QP on the held words).
  assign fa_issue = rx_chk_pass && (state_q == DISPST_STEP_LOAD || state_q == DISPST_WAIT_STEP ||
                                    state_q == DISPST_WAIT_TIMER) &&
                    rx_dqpn != qn_c && !((fa_v || fa_rd) && fa_qn == rx_dqpn) && !rd_item && !wb_now && !la_issue;
  // the frame's QP is the ending item's: its words, written back now
  assign fr_fwd = wb_now && rx_dqpn == qn_c && w_gen == qpc_gen;
  // the read ahead's words, kept or read out in this cycle (fr_rd: fa_rd)
  assign fr_rd  = fa_rd && fa_qn == rx_dqpn && fa_qn != qn_c && fa_gen == qpc_gen;
  assign fr_hit = rx_chk_pass && !qpc_written &&
                  (fr_fwd || fr_rd || (fa_v && fa_qn == rx_dqpn && fa_qn != qn_c && fa_gen == qpc_gen));

  // A frame starts when no CQE write of an ended ACK item is pending, or,
  // under its hold, an ACK/NAK of another QP (not while a loss is applied):
  // its item runs until it would post a CQE, an EQE or move a QP to ERR
  // (those callees are withheld: it parks there), so the ended item's
  // outcome still comes before anything of it that depends on it.
  logic frame_go, rx_held;
  always_comb begin
    rx_held = 1'b0;
    for (int h = 0; h < 4; h++)
      if (held_v[h] && held_qn[LOG_MAX_QP*h +: LOG_MAX_QP] == rx_dqpn) rx_held = 1'b1;
  end
  assign frame_go = !hold || (rx_ack && !rx_held && !res);
  // DISPST_IDLE's choice, in the priority order of the items (the header):
  // one function for the pick's branches and for what depends on the pick
  // in its own cycle (pick_frame)
  pk_t pk;
  function automatic pk_t pick_kind(input logic inj, input logic cq, input logic eq, input logic pba,
                                    input logic frame, input logic step);
    if (inj) pick_kind = PK_INJ;
    else if (cq) pick_kind = PK_CQ_ARM;
    else if (eq) pick_kind = PK_EQ_ARM;
    else if (pba) pick_kind = PK_PBA;
    else if (frame) pick_kind = PK_FRAME;
    else if (step) pick_kind = PK_STEP;
    else pick_kind = PK_NONE;
  endfunction
  assign pk = pick_kind(e_inj_valid && !e_inj_pop && !hold, (|cq_fire_pending) && !e_cq_fp_clr && !hold,
                        (|eq_fire_pending) && !hold, |pba_pend && !x_deliver && !hold, frame_valid && frame_go,
                        enabled && (|qp_go) && !res);
  // DISPST_IDLE picks the frame
  assign pick_frame = state == DISPST_IDLE && pk == PK_FRAME;
  assign rx_chk_fast = pick_frame && fr_hit;
  // the handover: the frame's item starts in this cycle, the step's done
  // cycle, beside its write-back (txs_wb, rxs_wb at the step's QP, qn_c);
  // not while a registered strobe lands now that names the item's QP live
  // (ho_block: a QP state set, busy clear, timer arming, SRQ strobe)
  assign ho_now = rx_chk_fast && wb_now && state_q == DISPST_WAIT_STEP && !ho_block;
  // the ACK item -> step handover: in the write-back cycle of an ACK/NAK
  // frame's item (it_ack), when the pick (made as always, on the live bits)
  // is the step of the look-ahead's QP, another than the item's, with its
  // words valid (la_gen, no QPC write landing now) and no timer due, the
  // step starts in this cycle (DISPST_STEP_LOAD's cycle) on those words.
  // Kept apart from the item, whose strobes land now: the write-back is
  // the item's (txs_wb/rxs_wb at qn_c), its busy set names qn_c
  // (e_busy_idx) while the step's busy clear has its own index
  // (e_busy_cidx), a timer armed now is the item's (tm_qn, tm_timeout); a
  // QP state or SRQ strobe landing now (named through e_qp_idx /
  // e_srq_idx: ak_block) takes the handover off.  The context interlock
  // sees the item's QP in this cycle (e_step_qn = qn_c) and the step's from
  // the next, as after DISPST_STEP_LOAD.
  always_comb begin
    ak_now = 1'b0;
    if (wb_now && state_q == DISPST_WAIT_FRAME && it_ack && pk == PK_STEP && la_v && la_qn != qn_c &&
        la_gen == qpc_gen && !qpc_written && !tm_due[la_qn] && !ak_block)
      ak_now = rr_next(qp_go, rr) == la_qn;
  end

  // Other work than the QP in progress (qn) is waiting: hca_req ends a step
  // that waits for its WQE's read (REQST_FETCH_WQE) and comes back later.
  // Not a frame of that QP (rx_dqpn: the held frame's destination QP, its
  // low bits): the model started the WQE when its doorbell rang, so a frame
  // of the QP received since comes after the start there -- an ACK taken
  // first would complete a WQE that the start's fault (a WQE read fault:
  // QP_FATAL, ERR) flushes in the model.
  // Under a hold only another QP's step could start (none under res).
  assign step_yield = (!hold && ((frame_valid && rx_dqpn != qn) || e_inj_valid || (|cq_fire_pending) ||
                                 (|eq_fire_pending))) || (!res && go_other);

  // harness view (docs/rtl.md "Ports of hca_top": dbg)
  assign dbg  = {strobes, e_inj_valid, (|eq_fire_pending), (|pba_pend), r_valid, (enabled && (|qp_work)), t_busy,
                 d_w_busy, 8'(qn), job_st, job};
  assign busy = state != DISPST_IDLE || strobes || e_inj_valid || (|eq_fire_pending) || (|cq_fire_pending) ||
                (|pba_pend) || r_valid || (enabled && (|qp_work)) || t_busy || d_w_busy || hold;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) qpc_gen <= '0;
    else if (qpc_written) qpc_gen <= qpc_gen + 16'd1;
  end

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= DISPST_IDLE; qn_q <= '0; rr <= '0; cfg_q <= '0; txs_q <= '0; rxs_q <= '0; st_q <= '0;
      srq_n <= '0; in_step <= 1'b0;
      la_use <= 1'b0; la_want <= 1'b0; la_rd <= 1'b0; la_v <= 1'b0; la_qn <= '0; la_gen <= '0; w_gen <= '0;
      la_cfg <= '0; la_txs <= '0; la_rxs <= '0;
      fa_rd <= 1'b0; fa_v <= 1'b0; fa_qn <= '0; fa_gen <= '0; fa_cfg <= '0; fa_txs <= '0; fa_rxs <= '0;
      e_busy_clr_q <= 1'b0; e_inj_pop <= 1'b0; x_deliver <= 1'b0; x_deliver_vec <= '0;
      eqp_eqn <= '0; eqp_eqe <= '0; cqa_cqn <= '0; it_ack <= 1'b0;
    end else if (srst) begin
      // ENGINE_CTRL.RESET / CTRL.RESET: back to idle (the words take the
      // jobs' last writes, which the jobs drop now)
      state_q <= DISPST_IDLE;
      qn_q <= qn; txs_q <= txs; rxs_q <= rxs; st_q <= qp_st;
      e_busy_clr_q <= 1'b0; e_inj_pop <= 1'b0; x_deliver <= 1'b0;
      la_use <= 1'b0; la_want <= 1'b0; la_rd <= 1'b0; la_v <= 1'b0;
      fa_rd <= 1'b0; fa_v <= 1'b0;
    end else if (ce) begin
      e_busy_clr_q <= 1'b0; e_inj_pop <= 1'b0; x_deliver <= 1'b0;
      qn_q <= qn; txs_q <= txs; rxs_q <= rxs; st_q <= qp_st;
      state_q <= state;
      la_use <= 1'b0;
      if (rd_item) w_gen <= qpc_gen;
      // look-ahead: read issued, words captured, invalidated
      if (la_issue) begin
        la_want <= 1'b0; la_rd <= 1'b1; la_gen <= qpc_gen;
      end
      if (la_rd) begin
        la_rd <= 1'b0; la_v <= 1'b1;
        la_cfg <= e_qpc_rdata; la_txs <= e_txs_rdata; la_rxs <= e_rxs_rdata;
      end
      if (la_v && la_gen != qpc_gen) la_v <= 1'b0;
      if (wb_now && e_txs_idx == la_qn) begin
        la_want <= 1'b0; la_rd <= 1'b0; la_v <= 1'b0;
      end
      // the frame's words read ahead: captured, invalidated
      if (fa_rd) begin
        fa_rd <= 1'b0; fa_v <= 1'b1;
        fa_cfg <= e_qpc_rdata; fa_txs <= e_txs_rdata; fa_rxs <= e_rxs_rdata;
      end
      if (fa_issue) begin
        fa_rd <= 1'b1; fa_v <= 1'b0; fa_qn <= rx_dqpn; fa_gen <= qpc_gen;
      end
      if (fa_v && fa_gen != qpc_gen) fa_v <= 1'b0;
      if (wb_now && e_txs_idx == fa_qn) begin
        fa_rd <= 1'b0; fa_v <= 1'b0;
      end
      // a new candidate when an item's words are loaded
      if ((ld_now || ho_now) && go_x != '0 && !(la_v && la_qn == rr_next(go_x, rr)) && !(la_want || la_rd)) begin
        la_qn <= rr_next(go_x, rr); la_want <= 1'b1; la_v <= 1'b0;
      end
      // ... and when a step starts in an ACK item -> step handover (its
      // words the look-ahead's: the next after it, as ld_now would choose)
      if (ak_now && go_x != '0) begin
        la_qn <= rr_next(go_x, la_qn); la_want <= 1'b1;
      end
      case (state)
        DISPST_IDLE: begin
          in_step <= 1'b0;
          if (pk == PK_INJ) begin
            eqp_eqn   <= {{(32-LOG_MAX_EQ){1'b0}}, e_inj_eqn};
            eqp_eqe   <= e_inj_eqe;
            e_inj_pop <= 1'b1;
            state_q   <= DISPST_WAIT_EQE;
          end else if (pk == PK_CQ_ARM) begin
            cqa_cqn <= {{(32-LOG_MAX_CQ){1'b0}}, LOG_MAX_CQ'(lowest(NW_PICK'(cq_fire_pending)))};
            state_q <= DISPST_WAIT_ARM_EQE;
          end else if (pk == PK_EQ_ARM) begin
            eqp_eqn <= {{(32-LOG_MAX_EQ){1'b0}}, fp_first(eq_fire_pending)};
            state_q <= DISPST_WAIT_ARM_IRQ;
          end else if (pk == PK_PBA) begin
            x_deliver     <= 1'b1;
            x_deliver_vec <= pba_first(pba_pend);
          end else if (pk == PK_FRAME) begin
            in_step <= 1'b1;
            it_ack  <= rx_ack;
            state_q <= DISPST_WAIT_FRAME_CHECK;
            if (ho_now) begin
              // the handover: the item started in this cycle (its words
              // shown: ho_*), on to DISPST_WAIT_FRAME
              state_q <= DISPST_WAIT_FRAME;
              cfg_q   <= ho_cfg;
              srq_n   <= ho_cfg[8*`HCA_QPC_SRQN_OFF +: LOG_MAX_SRQ];
              if (!fr_fwd) begin
                fa_v  <= 1'b0; fa_rd <= 1'b0;
                w_gen <= fa_gen;
              end
            end else if (fr_hit) begin
              // checked ahead (rx_chk_fast): the item starts in the next
              // cycle on the held words
              la_use  <= 1'b1;
              state_q <= DISPST_LOAD_FRAME_QP;
              if (!fr_fwd) begin
                fa_v  <= 1'b0; fa_rd <= 1'b0;
                w_gen <= fa_gen;
                if (fr_rd) begin
                  cfg_q <= e_qpc_rdata; txs_q <= e_txs_rdata; rxs_q <= e_rxs_rdata;
                end else begin
                  cfg_q <= fa_cfg; txs_q <= fa_txs; rxs_q <= fa_rxs;
                end
              end
            end
          end else if (pk == PK_STEP) begin
            qn_q    <= rr_next(qp_go, rr);
            rr      <= rr_next(qp_go, rr);
            in_step <= 1'b1;
            state_q <= DISPST_STEP_CLR_BUSY;
            if (ak_now) begin
              // the ACK item -> step handover: the step started in this
              // cycle on the look-ahead's words (shown: txs_q, rxs_q, st_q
              // take them), its busy clear landing now
              la_v    <= 1'b0;
              w_gen   <= la_gen;
              cfg_q   <= la_cfg;
              state_q <= DISPST_WAIT_STEP;
            end else if (wb_now && rr_next(qp_go, rr) == qn_c && w_gen == qpc_gen && !qpc_written) begin
              // the same QP as the item ending: its words (written back now)
              e_busy_clr_q <= 1'b1;
              la_use     <= 1'b1;
              state_q    <= DISPST_STEP_LOAD;
            end else if (la_v && rr_next(qp_go, rr) == la_qn && la_qn != qn_c && la_gen == qpc_gen && !qpc_written) begin
              // the look-ahead's QP: its words read ahead
              e_busy_clr_q <= 1'b1;
              la_use     <= 1'b1;
              la_v       <= 1'b0;
              w_gen      <= la_gen;
              cfg_q <= la_cfg; txs_q <= la_txs; rxs_q <= la_rxs;
              state_q    <= DISPST_STEP_LOAD;
            end
          end
        end
        DISPST_STEP_CLR_BUSY: begin
          e_busy_clr_q <= 1'b1;       // set again at the end if the step made progress
          state_q    <= DISPST_STEP_LOAD;
        end
        DISPST_STEP_LOAD, DISPST_LOAD_FRAME_QP: begin
          cfg_q   <= ld_cfg;
          txs_q   <= ld_txs;
          rxs_q   <= ld_rxs;
          st_q    <= e_qp_state;
          if (state == DISPST_LOAD_FRAME_QP) srq_n <= ld_cfg[8*`HCA_QPC_SRQN_OFF +: LOG_MAX_SRQ];
          state_q <= (state == DISPST_LOAD_FRAME_QP) ? DISPST_WAIT_FRAME :
                     ld_step ? DISPST_WAIT_STEP : DISPST_WAIT_TIMER;   // (the step started: ld_step)
        end
        default: ;
      endcase
    end
  end
endmodule
