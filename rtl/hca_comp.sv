`include "hca_defs.vh"

// Completer (model/comp.c model_completer, ack_packet, read_response,
// atomic_ack, nak_error): what an ACK, NAK, READ response or atomic ACK
// received for the item's RC QP does to its send queue.
//
// Job (docs/rtl.md "Handshakes"): `req` held until `done`, one response
// packet (parsed by hca_rx_parse, QP words loaded by hca_dispatch).
// COMPST_CHECK_QP: only an RC QP in RTS/SQD with WQEs outstanding and a
// PSN in flight [UNA, PSN_NEXT); the entry at SQ_CI is read, and a packet
// whose WQE there failed locally is ignored (COMPST_ACK_THROUGH, at_first);
// an ACK/NAK of the reserved AETH type is ignored (COMPST_CHECK_PSN: the
// retire only).  An ACK covers its PSN, a NAK (any kind), a READ response
// or an atomic ACK the PSNs before it: COMPST_ACK_WQE/COMPST_ACK_THROUGH
// walk the outstanding table from SQ_CI, moving UNA and completing
// (hca_complete_send, called in COMPST_ACK_THROUGH's own cycle: ack_call,
// which also reads the entry after it; the call's done cycle decides on that
// one, COMPST_ACK_WQE without a read, and ends the item there when the walk
// stops at it: nx_fold) every SEND/WRITE WQE whose last PSN is covered, and
// stop at a READ/atomic: if the covered PSNs reach its first response not
// yet received, that response is missing (cp_miss: an implicit NAK,
// model/comp.c ack_through).  COMPST_ACK_DONE: UNA = PSN_NEXT when nothing
// is left; when something moved (model/comp.c progress): fresh retry
// budgets (TXS_RETRY, TXS_RNR from the QPC), the last NAK retry forgotten
// (TXS_NAKV), the ACK timer restarted (unless an RNR wait runs;
// hca_timers) and the QP kept busy.
// COMPST_CHECK_NAK (ACK/NAK packets): a missing READ/atomic response goes
// back first (hca_comp_retry RETRY_IMPLICIT from it, COMPST_WAIT_RETRY);
// else an RNR NAK or a PSN-sequence NAK goes back (RETRY_RNR from the NAK's
// PSN with its timer code, RETRY_NAK_SEQ from UNA); an error NAK (invalid
// request, remote access, remote operational) completes the WQE holding
// its PSN with REM_*_ERR (older WQEs still outstanding complete with
// WR_FLUSH_ERR first; COMPST_NAK_WQE/COMPST_NAK_FAIL) and moves the QP to
// ERR (hca_qp_err).
// COMPST_READ_RESP (READ responses, atomic ACKs): a response missing before
// this one is an implicit NAK (RETRY_IMPLICIT); else hca_comp_read
// scatters it and completes its WQE (COMPST_WAIT_READ_RESP); when it did
// (COMPST_READ_DONE, COMPST_READ_PROGRESS): progress as above.
// COMPST_RETIRE: a WQE that failed locally retires (hca_comp_retire; not
// called after a walk whose last entry was seen not failed, ci_ok);
// COMPST_END.
// Posted CQEs (docs/rtl.md "Posted CQE writes"): an ACK's completions post
// their CQE writes (sc_defer: hca_complete_send returns once the write is
// issued or joins hca_cq_post's batch; hca_comp_posted's table tells this
// item's CQE, `own_pend`, from an ended item's: docs/rtl.md "CQE batches").
// Until its outcome is known the item only goes on where a lost completion would change
// nothing: COMPST_ACK_THROUGH waits (COMPST_WAIT_POSTED_CQE) before it
// would complete a WQE, move UNA or find a response missing, and
// COMPST_END before the item ends.  A lost CQE (own_lost) then does
// what hca_complete_send does on a lost CQE, QP to ERR with QP_FATAL
// (COMPST_WAIT_LOST_QP_ERR), and the walk resumes at COMPST_ACK_WQE, which
// stops there as the model's ack_through does.  COMPST_END of a QP in RTS
// (no drain) does not wait: the item ends with the write outstanding and
// hands its outcome over (`ho`: its entry ended) to hca_comp_posted, which
// holds the engine (other QPs' steps and ACKs only) and applies a loss.
// Caller: hca_recv.  Calls: hca_complete_send, hca_qp_err, hca_comp_retry,
// hca_comp_read, hca_comp_retire.
module hca_comp #(
    parameter int LOG_MAX_QP = 8,
    parameter int LOG_OUTS   = 5
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        req,
    output logic        done,            // a register, or the end's own cycle (end_go)
    output logic        dbg_act,
    output logic [7:0]  dbg_st,
    // the item
    input  logic [LOG_MAX_QP-1:0] qn,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [`TXS_W-1:0] txs,
    input  logic [`OPI_W-1:0] p_info,
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [2:0]  qp_st,
    input  logic        is_rc,
    input  logic [23:0] p_psn,
    input  logic [7:0]  p_aeth_syn,
    input  logic [4:0]  timeout,
    input  logic [2:0]  retry_cnt,
    input  logic [2:0]  rnr_retry,
    output logic [`TXS_W-1:0] txs_wm,
    output logic [`TXS_W-1:0] txs_wv,
    output logic        s_busy_set,
    // hca_timers
    output logic        tm_set,
    output logic [1:0]  tm_kind,
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
    output logic        sc_defer,        // the CQE write posted (hca_cq_post `post`)
    input  logic        sc_done,
    // hca_comp_posted: this item's posted CQE (its outcome pending; lost now)
    input  logic        own_pend,
    input  logic        own_lost,
    output logic        ho,              // hca_comp_posted: the item ends, its CQE write outstanding
    // hca_qp_err
    output logic        qe_req,
    output logic        qe_has,
    output logic [7:0]  qe_evt,
    input  logic        qe_done,
    // hca_comp_retry
    output logic        ry_req,
    output logic [1:0]  ry_kind,
    output logic [23:0] ry_psn,
    output logic [4:0]  ry_code,
    input  logic        ry_done,
    // hca_comp_retire
    output logic        rt_req,
    input  logic        rt_done,
    // hca_comp_read
    output logic        crd_req,
    input  logic        crd_done,
    input  logic        crd_progress
);
  `include "hca_funcs.vh"
  localparam logic [2:0] QPS_RTS = 3'(`HCA_QPS_RTS), QPS_SQD = 3'(`HCA_QPS_SQD), QPS_ERR = 3'(`HCA_QPS_ERR);
  typedef enum logic [4:0] {
    COMPST_IDLE, COMPST_CHECK_QP, COMPST_CHECK_PSN,
    COMPST_ACK_WQE, COMPST_ACK_THROUGH, COMPST_WAIT_ACKED_CQE, COMPST_ACK_DONE,
    COMPST_CHECK_NAK, COMPST_NAK_WQE, COMPST_NAK_FAIL, COMPST_WAIT_NAK_CQE, COMPST_WAIT_FLUSH_CQE,
    COMPST_NAK_ERR, COMPST_WAIT_QP_ERR, COMPST_RETIRE, COMPST_WAIT_RETIRE, COMPST_END,
    COMPST_WAIT_RETRY, COMPST_READ_RESP, COMPST_WAIT_READ_RESP, COMPST_READ_DONE, COMPST_READ_PROGRESS,
    COMPST_WAIT_POSTED_CQE, COMPST_WAIT_LOST_QP_ERR
  } st_t;
  st_t state_q, state;
  logic pc_ret_ack;                  // COMPST_WAIT_POSTED_CQE returns to COMPST_ACK_WQE (else COMPST_END)
  logic ack_call;                    // COMPST_ACK_THROUGH completes the entry: the call starts in its cycle
  always_comb begin
    state = state_q;
    case (state_q)
      COMPST_IDLE:           if (req) state = COMPST_CHECK_QP;
      COMPST_ACK_THROUGH:    if (ack_call) state = COMPST_WAIT_ACKED_CQE;
      COMPST_WAIT_ACKED_CQE: if (sc_done) state = COMPST_ACK_WQE;
      COMPST_WAIT_NAK_CQE:   if (sc_done) state = COMPST_NAK_ERR;
      COMPST_WAIT_FLUSH_CQE: if (sc_done) state = COMPST_NAK_WQE;
      COMPST_WAIT_QP_ERR:    if (qe_done) state = COMPST_RETIRE;
      COMPST_WAIT_RETIRE:    if (rt_done) state = COMPST_END;
      COMPST_WAIT_RETRY:     if (ry_done) state = COMPST_RETIRE;
      COMPST_WAIT_READ_RESP: if (crd_done) state = COMPST_READ_DONE;
      COMPST_WAIT_LOST_QP_ERR: if (qe_done) state = pc_ret_ack ? COMPST_ACK_WQE : COMPST_END;
      default: ;
    endcase
  end
  assign sc_req  = state == COMPST_WAIT_ACKED_CQE || state == COMPST_WAIT_NAK_CQE || state == COMPST_WAIT_FLUSH_CQE;
  assign qe_req  = state == COMPST_WAIT_QP_ERR || state == COMPST_WAIT_LOST_QP_ERR;
  assign qe_has  = state == COMPST_WAIT_LOST_QP_ERR;
  assign qe_evt  = qe_has ? 8'(`HCA_EVENT_QP_FATAL) : 8'h0;
  // an ACK (not a NAK or a response) posts its completions' CQE writes
  assign sc_defer = state == COMPST_WAIT_ACKED_CQE && p_info[`OPI_ACK] &&
                    p_aeth_syn[7:5] == 3'(`HCA_AETH_TYPE_ACK);
  assign rt_req  = state == COMPST_WAIT_RETIRE;
  assign ry_req  = state == COMPST_WAIT_RETRY;
  assign crd_req = state == COMPST_WAIT_READ_RESP;
  assign dbg_act = state != COMPST_IDLE && !sc_req && !qe_req && !rt_req && !ry_req && !crd_req;
  assign dbg_st  = 8'(state);

  logic [15:0] sq_ci, sq_head;
  logic [23:0] psn_next, una, rcvd;
  assign rcvd     = txs[`TXS_RCVD_O +: 24];
  assign sq_ci    = txs[`TXS_SQ_CI_O +: 16];
  assign sq_head  = txs[`TXS_SQ_HEAD_O +: 16];
  assign psn_next = txs[`TXS_PSN_NEXT_O +: 24];
  assign una      = txs[`TXS_UNA_O +: 24];
  // the outstanding-table entry at SQ_CI is read in these states, and the
  // next one (SQ_CI + 1, the walk's next) with a completion's call (ack_call:
  // ow_rdata holds it when the call is done, nx_v; COMPST_ACK_WQE then reads
  // nothing)
  logic nx_v;
  assign ow_re    = state == COMPST_CHECK_QP || (state == COMPST_ACK_WQE && !nx_v) || state == COMPST_NAK_WQE ||
                    state == COMPST_READ_DONE || ack_call;
  assign ow_raddr = {qn, sq_ci[LOG_OUTS-1:0] + LOG_OUTS'(ack_call)};

  logic [23:0] cp_last;              // the last PSN the response covers
  logic        ci_ok;                // the entry at SQ_CI did not fail locally (or none): no retire
  logic        cp_moved;
  logic        cp_miss_v;            // a READ/atomic response before the packet is missing
  logic [23:0] cp_miss;
  logic        progress;             // an acknowledgement made progress (model/comp.c progress)
  logic        ack_arm;              // then the ACK timer runs (model/comp.c model_comp_arm_timer)
  logic [4:0]  ne_status;
  logic [7:0]  ne_verr;

  assign ack_arm = sq_ci != sq_head && !ow_rdata[`OW_ERR_O] && timeout != 5'd0;

  // this item's posted CQE's outcome not yet applied: pending (in
  // hca_cq_post's outstanding write or its batch), or lost (own_lost, kept
  // in pc_lost until applied).  hca_comp_posted tells this item's CQE from
  // an ended item's (its table, in post order).
  logic pc_lost, p_fault, lost_now, pc_wait, c_pend;
  assign c_pend   = own_pend;
  assign p_fault  = own_lost;
  assign lost_now = pc_lost || p_fault;
  assign pc_wait  = c_pend || lost_now;

  // COMPST_ACK_THROUGH's entry (ow_rdata, the one at SQ_CI): `wlast` its
  // last PSN; ack_call: a SEND/WRITE the response covers whole, no posted
  // CQE outcome pending: it completes (hca_complete_send called in this
  // cycle, with the entry and a good status: sc_ow, sc_status, ... below)
  logic [23:0] wlast;
  logic        ow_rdat, at_first;
  assign wlast    = ow_rdata[`OW_FPSN_O +: 24] + ow_rdata[`OW_NPSN_O +: 24] - 24'd1;
  assign ow_rdat  = ow_rdata[`OW_OP_O +: 3] == 3'(`HCA_WR_RDMA_READ) ||
                    ow_rdata[`OW_OP_O +: 3] == 3'(`HCA_WR_ATOMIC_CMP_AND_SWP) ||
                    ow_rdata[`OW_OP_O +: 3] == 3'(`HCA_WR_ATOMIC_FETCH_AND_ADD);
  assign ack_call = state_q == COMPST_ACK_THROUGH && !ow_rdata[`OW_ERR_O] && !ow_rdat && !pc_wait &&
                    !psn_lt(cp_last, wlast);
  // An ACK (not a NAK) with no response found missing whose walk stopped
  // at an entry that did not fail ends where the walk stops: ACK_THROUGH at
  // an entry it does not cover (what COMPST_ACK_DONE, COMPST_CHECK_NAK and
  // COMPST_END would do, in its cycle: thr_end), or ACK_DONE (done_end).
  logic ack_plain, thr_stop, thr_una, thr_end, done_end, end_now;
  // thr_at: COMPST_ACK_THROUGH's decision on ow_rdata: in its state, or in
  // the done cycle of a completion's call (COMPST_ACK_WQE, `state`) when the
  // next entry was read with the call (nx_v) and there is one (SQ_CI, with
  // the retire's write, is not SQ_HEAD): COMPST_ACK_WQE's work and, where the
  // walk stops there (thr_end), COMPST_ACK_THROUGH's, in one cycle
  logic thr_at, nx_fold;
  assign nx_fold   = state_q == COMPST_WAIT_ACKED_CQE && sc_done && nx_v && sq_ci != sq_head && qp_st != QPS_ERR;
  assign thr_at    = state_q == COMPST_ACK_THROUGH || nx_fold;
  assign ack_plain = p_info[`OPI_ACK] && p_aeth_syn[7:5] == 3'(`HCA_AETH_TYPE_ACK);
  assign thr_stop  = thr_at && !ow_rdata[`OW_ERR_O] && !ow_rdat &&
                     psn_lt(cp_last, wlast) && !(pc_wait && psn_lt(una, cp_last + 24'd1));
  assign thr_una   = psn_lt(una, cp_last + 24'd1);
  assign thr_end   = thr_stop && ack_plain && !cp_miss_v;
  // The item's end (COMPST_END's work, also done where a plain ACK's walk
  // stops: thr_end, done_end): wait for its own posted CQE's outcome unless
  // it was handed over to hca_comp_posted (ho), else end, the QP busy again.
  logic end_wait;
  assign end_wait  = pc_wait && !ho;
  assign done_end  = state_q == COMPST_ACK_DONE && ack_plain && !cp_miss_v && ci_ok;
  // COMPST_END from state_q, or entered in a callee's done cycle (`state`,
  // without the path from `req` through IDLE)
  assign end_now   = state_q == COMPST_END || (state_q == COMPST_WAIT_RETIRE && rt_done) ||
                     (state_q == COMPST_WAIT_LOST_QP_ERR && qe_done && !pc_ret_ack) || thr_end || done_end;
  assign progress = (state == COMPST_ACK_DONE && cp_moved) || state == COMPST_READ_PROGRESS ||
                    (thr_end && (cp_moved || thr_una));
  // the item's end hands the outstanding write over (not in SQD: hca_qp_err
  // would have a drain to end in the item's words)
  assign ho = end_now && c_pend && !lost_now && qp_st == QPS_RTS && !txs[`TXS_DRAIN_O];
  // the end reported in its own cycle (hca_recv's RECVST_END with it)
  logic done_q, end_go;
  assign end_go = end_now && !(pc_wait && !ho);
  assign done   = done_q || end_go;
  // the arguments of hca_complete_send: the entry, in the call's first cycle
  logic [`OW_W-1:0] sc_ow_q;
  logic [4:0]  sc_status_q;
  logic [7:0]  sc_verr_q;
  logic        sc_force_q;
  assign sc_ow     = ack_call ? ow_rdata : sc_ow_q;
  assign sc_status = ack_call ? 5'd0 : sc_status_q;
  assign sc_verr   = ack_call ? 8'd0 : sc_verr_q;
  assign sc_force  = ack_call ? 1'b0 : sc_force_q;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= COMPST_IDLE; done_q <= 1'b0; txs_wm <= '0; txs_wv <= '0; s_busy_set <= 1'b0;
      sc_ow_q <= '0; sc_status_q <= '0; sc_verr_q <= '0; sc_force_q <= 1'b0;
      pc_ret_ack <= 1'b0; pc_lost <= 1'b0; ci_ok <= 1'b0; at_first <= 1'b0; nx_v <= 1'b0;
      cp_last <= '0; cp_moved <= 1'b0; ne_status <= '0; ne_verr <= '0; cp_miss_v <= 1'b0; cp_miss <= '0;
      tm_set <= 1'b0; tm_kind <= '0; ry_kind <= '0; ry_psn <= '0; ry_code <= '0;
    end else if (srst) begin
      state_q <= COMPST_IDLE; done_q <= 1'b0; txs_wm <= '0; txs_wv <= '0; s_busy_set <= 1'b0; tm_set <= 1'b0;
      pc_lost <= 1'b0; nx_v <= 1'b0;
    end else if (ce) begin
      done_q <= 1'b0; txs_wm <= '0; txs_wv <= '0; s_busy_set <= 1'b0; tm_set <= 1'b0;
      state_q <= state;
      // the next entry read with the call, held while the call runs (no
      // other job reads the table then: one item at a time)
      nx_v <= ack_call || (nx_v && state_q == COMPST_WAIT_ACKED_CQE && !sc_done);
      if (p_fault && state_q != COMPST_IDLE) pc_lost <= 1'b1;
      if (ack_call) begin
        // COMPST_ACK_THROUGH's completion (the call started in its cycle)
        `HCA_WSET(txs_wm, txs_wv, `TXS_UNA_O, 24, wlast + 24'd1)
        sc_ow_q    <= ow_rdata;
        cp_moved   <= 1'b1;
        sc_status_q <= '0; sc_verr_q <= '0; sc_force_q <= 1'b0;
        at_first   <= 1'b0;
      end
      if (progress) begin
        // fresh retry budgets, the ACK timer restarted, the QP stepped again
        `HCA_WSET(txs_wm, txs_wv, `TXS_RETRY_O, 3, retry_cnt)
        `HCA_WSET(txs_wm, txs_wv, `TXS_RNR_O, 3, rnr_retry)
        `HCA_WSET(txs_wm, txs_wv, `TXS_NAKV_O, 1, 1'b0)
        if (txs[`TXS_TMR_O +: 2] != `TMR_RNR && qp_st != QPS_ERR) begin
          tm_set  <= 1'b1;
          tm_kind <= ack_arm ? `TMR_ACK : `TMR_NONE;
          `HCA_WSET(txs_wm, txs_wv, `TXS_TMR_O, 2, ack_arm ? `TMR_ACK : `TMR_NONE)
        end
        s_busy_set <= 1'b1;
      end
      case (state)
        // the QP and the PSN: only an RC QP in RTS/SQD with WQEs outstanding
        // and a PSN in flight; the entry at SQ_CI is read (ow_re) and
        // checked by COMPST_ACK_THROUGH (at_first: failed locally, nothing)
        COMPST_CHECK_QP: begin
          ci_ok <= 1'b0;
          if (!is_rc || (qp_st != QPS_RTS && qp_st != QPS_SQD) || sq_ci == sq_head ||
              psn_lt(p_psn, una) || !psn_lt(p_psn, psn_next)) begin
            done_q <= 1'b1; state_q <= COMPST_IDLE;      // nothing outstanding / not a PSN in flight
          end else if (p_info[`OPI_ACK] && p_aeth_syn[7:5] == 3'd2)
            state_q <= COMPST_CHECK_PSN;               // reserved AETH type: ignored
          else begin
            cp_moved <= 1'b0; cp_miss_v <= 1'b0;
            // an ACK covers its PSN; NAKs (any kind), READ responses and atomic
            // ACKs cover the PSNs before theirs
            cp_last <= (p_info[`OPI_ACK] && p_aeth_syn[7:5] == 3'(`HCA_AETH_TYPE_ACK)) ? p_psn : p_psn - 24'd1;
            // the walk's first entry (SQ_CI) is the one read in this cycle
            // (ow_rdata holds it next), and the QP is in RTS/SQD with WQEs
            // outstanding: COMPST_ACK_WQE's read and check would repeat them
            at_first <= 1'b1;
            state_q  <= COMPST_ACK_THROUGH;
          end
        end
        // a reserved AETH type (rare): ignored unless the entry failed locally
        COMPST_CHECK_PSN:
          if (ow_rdata[`OW_ERR_O]) begin
            done_q <= 1'b1; state_q <= COMPST_IDLE;
          end else
            state_q <= COMPST_RETIRE;
        COMPST_ACK_WQE:
          if (thr_end) begin
            // (nx_fold) the walk stops at the next entry: COMPST_ACK_THROUGH's
            // end now, as below (it does not cover the entry, which did not fail)
            at_first <= 1'b0;
            ci_ok    <= 1'b1;
            if (thr_una) begin
              `HCA_WSET(txs_wm, txs_wv, `TXS_UNA_O, 24, cp_last + 24'd1)
              cp_moved <= 1'b1;
            end
            if (end_wait) pc_ret_ack <= 1'b0;
            s_busy_set <= !end_wait;
            state_q    <= end_wait ? COMPST_WAIT_POSTED_CQE : COMPST_IDLE;   // IDLE: done, end_go
          end else begin
            ci_ok   <= sq_ci == sq_head;               // nothing outstanding: nothing to retire
            // (the next entry already read, nx_v: COMPST_ACK_THROUGH on it next)
            state_q <= (sq_ci != sq_head && qp_st != QPS_ERR) ? COMPST_ACK_THROUGH : COMPST_ACK_DONE;
          end
        COMPST_ACK_THROUGH: begin
          at_first <= 1'b0;
          ci_ok    <= !ow_rdata[`OW_ERR_O];            // if the walk stops here: nothing to retire
          if (ow_rdata[`OW_ERR_O]) begin
            if (at_first) begin                        // the packet's WQE failed locally: ignored
              done_q <= 1'b1; state_q <= COMPST_IDLE;
            end else
              state_q <= COMPST_ACK_DONE;
          end else if (ow_rdat) begin
            // a READ/atomic completes with its responses only; covering its
            // next expected response means that response is missing
            if (!psn_lt(cp_last, ow_rdata[`OW_FPSN_O +: 24] + rcvd)) begin
              if (pc_wait) begin
                pc_ret_ack <= 1'b1; state_q <= COMPST_WAIT_POSTED_CQE;
              end else begin
                cp_miss_v <= 1'b1;
                cp_miss   <= ow_rdata[`OW_FPSN_O +: 24] + rcvd;
                state_q   <= COMPST_ACK_DONE;
              end
            end else
              state_q <= COMPST_ACK_DONE;
          end else if (pc_wait && (!psn_lt(cp_last, wlast) || psn_lt(una, cp_last + 24'd1))) begin
            // this would complete the WQE or move UNA: not before the posted
            // CQE's outcome (a lost one stops the walk, model/comp.c ack_through)
            pc_ret_ack <= 1'b1; state_q <= COMPST_WAIT_POSTED_CQE;
          end else if (psn_lt(cp_last, wlast)) begin
            if (psn_lt(una, cp_last + 24'd1)) begin
              `HCA_WSET(txs_wm, txs_wv, `TXS_UNA_O, 24, cp_last + 24'd1)
              cp_moved <= 1'b1;
            end
            if (thr_end) begin                         // COMPST_ACK_DONE .. COMPST_END (progress above)
              if (end_wait) pc_ret_ack <= 1'b0;
              s_busy_set <= !end_wait;
              state_q    <= end_wait ? COMPST_WAIT_POSTED_CQE : COMPST_IDLE;   // IDLE: done, end_go
            end else
              state_q <= COMPST_ACK_DONE;
          end
          // else ack_call: the WQE completes (hca_complete_send called in
          // this cycle, COMPST_WAIT_ACKED_CQE; the UNA write above)
        end
        COMPST_ACK_DONE: begin
          if (sq_ci == sq_head) `HCA_WSET(txs_wm, txs_wv, `TXS_UNA_O, 24, psn_next)
          if (done_end) begin                          // COMPST_CHECK_NAK and COMPST_END's work
            if (end_wait) pc_ret_ack <= 1'b0;
            s_busy_set <= !end_wait;
            state_q    <= end_wait ? COMPST_WAIT_POSTED_CQE : COMPST_IDLE;   // IDLE: done, end_go
          end else
            state_q <= p_info[`OPI_ACK] ? COMPST_CHECK_NAK : COMPST_READ_RESP;
        end
        COMPST_CHECK_NAK:
          // a READ/atomic response missing before the ACK/NAK: go back to it
          // (model/comp.c ack_packet); RNR and PSN-sequence NAKs go back
          // (retry); error NAKs fail the WQE holding their PSN (nak_error)
          if (cp_miss_v) begin
            ry_kind <= `RETRY_IMPLICIT; ry_psn <= cp_miss; ry_code <= '0;
            state_q <= COMPST_WAIT_RETRY;
          end else if (p_aeth_syn[7:5] == 3'(`HCA_AETH_TYPE_RNR_NAK)) begin
            ry_kind <= `RETRY_RNR; ry_psn <= p_psn; ry_code <= p_aeth_syn[4:0];
            state_q <= COMPST_WAIT_RETRY;
          end else if (p_aeth_syn == {3'(`HCA_AETH_TYPE_NAK), 5'(`HCA_AETH_NAK_PSN_SEQ_ERR)}) begin
            ry_kind <= `RETRY_NAK_SEQ; ry_psn <= una; ry_code <= '0;
            state_q <= COMPST_WAIT_RETRY;
          end else if (p_aeth_syn[7:5] == 3'(`HCA_AETH_TYPE_NAK) && qp_st != QPS_ERR &&
              (p_aeth_syn[4:0] == 5'(`HCA_AETH_NAK_INVALID_REQUEST) ||
               p_aeth_syn[4:0] == 5'(`HCA_AETH_NAK_REMOTE_ACCESS_ERR) ||
               p_aeth_syn[4:0] == 5'(`HCA_AETH_NAK_REMOTE_OP_ERR))) begin
            case (p_aeth_syn[4:0])
              5'(`HCA_AETH_NAK_INVALID_REQUEST): begin
                ne_status <= 5'(`HCA_WC_REM_INV_REQ_ERR); ne_verr <= 8'(`HCA_VENDOR_ERR_NAK_INV_REQ);
              end
              5'(`HCA_AETH_NAK_REMOTE_ACCESS_ERR): begin
                ne_status <= 5'(`HCA_WC_REM_ACCESS_ERR); ne_verr <= 8'(`HCA_VENDOR_ERR_NAK_REM_ACCESS);
              end
              default: begin
                ne_status <= 5'(`HCA_WC_REM_OP_ERR); ne_verr <= 8'(`HCA_VENDOR_ERR_NAK_REM_OP);
              end
            endcase
            state_q <= COMPST_NAK_WQE;
          end else
            // a WQE that failed locally retires (none if the walk's last
            // entry did not fail: ci_ok)
            state_q <= ci_ok ? COMPST_END : COMPST_RETIRE;
        COMPST_NAK_WQE:
          state_q <= (sq_ci != sq_head) ? COMPST_NAK_FAIL : COMPST_WAIT_QP_ERR;
        COMPST_NAK_FAIL: begin
          sc_ow_q <= ow_rdata;
          if (ow_rdata[`OW_ERR_O])
            state_q <= COMPST_WAIT_QP_ERR;
          else if (psn_lt(p_psn, ow_rdata[`OW_FPSN_O +: 24] + ow_rdata[`OW_NPSN_O +: 24])) begin
            sc_status_q <= ne_status; sc_verr_q <= ne_verr; sc_force_q <= 1'b0;
            state_q <= COMPST_WAIT_NAK_CQE;
          end else begin
            sc_status_q <= 5'(`HCA_WC_WR_FLUSH_ERR); sc_verr_q <= 8'(`HCA_VENDOR_ERR_FLUSH); sc_force_q <= 1'b1;
            state_q <= COMPST_WAIT_FLUSH_CQE;
          end
        end
        COMPST_NAK_ERR: state_q <= COMPST_WAIT_QP_ERR;
        // a READ response / atomic ACK (model/comp.c read_response, atomic_ack)
        COMPST_READ_RESP:
          if (cp_miss_v && cp_miss != p_psn) begin
            ry_kind <= `RETRY_IMPLICIT; ry_psn <= cp_miss; ry_code <= '0;
            state_q <= COMPST_WAIT_RETRY;          // an earlier response is missing (implicit NAK)
          end else
            state_q <= COMPST_WAIT_READ_RESP;
        COMPST_READ_DONE:                          // the outstanding-table entry at SQ_CI is read
          state_q <= crd_progress ? COMPST_READ_PROGRESS : COMPST_RETIRE;
        COMPST_READ_PROGRESS: state_q <= COMPST_RETIRE;
        COMPST_RETIRE:  state_q <= COMPST_WAIT_RETIRE;
        COMPST_END: begin
          if (end_wait) pc_ret_ack <= 1'b0;
          s_busy_set <= !end_wait;
          state_q    <= end_wait ? COMPST_WAIT_POSTED_CQE : COMPST_IDLE;   // IDLE: done, end_go
        end
        // the posted CQE write's response: a fault loses the completion
        // (hca_complete_send SCOMPST_CHECK_LOST: QP to ERR with QP_FATAL)
        COMPST_WAIT_POSTED_CQE:
          if (!c_pend) begin
            pc_lost <= 1'b0;
            if (lost_now) state_q <= COMPST_WAIT_LOST_QP_ERR;
            else if (pc_ret_ack) state_q <= COMPST_ACK_WQE;
            else begin                             // COMPST_END's work
              s_busy_set <= 1'b1;
              done_q <= 1'b1; state_q <= COMPST_IDLE;
            end
          end
        default: ;
      endcase
    end
  end
endmodule
