`include "hca_defs.vh"

// Receive path (model/recv.c model_rx_frame): the checks of a received frame
// and of its QP, then the responder or the completer; the receive slot is
// released at the end.
//
// `frame_valid`: hca_rx_frame holds a frame that is not being released
// (offered to hca_dispatch).  Two jobs (docs/rtl.md "Handshakes"), each a
// level request held until its done:
//   check (`chk_req` -> `chk_done`, `chk_accept`): RECVST_CHECK_FRAME counts
//     the frame and its bytes and drops it, in the model's order, when the
//     port is down, it is malformed (parse reasons before the ICRC, a frame
//     longer than a slot), not addressed to us (MAC, IPv4 address), has a
//     bad ICRC, a later parse reason, or names no QP; a dropped frame is
//     released.  The item's QPN becomes the frame's destination QP; the
//     context RAMs are read in this cycle (qpc_en), hca_dispatch loads them.
//   check ahead (docs/rtl.md "The frame checked ahead"): the same checks,
//     evaluated on the offered frame's fields in any cycle (`chk_pass`: the
//     frame would be accepted; nothing is counted, written or released), so
//     that hca_dispatch reads the frame's QP words while a step runs; its
//     pick then takes the frame with `chk_fast` (RECVST_IDLE, that cycle):
//     what RECVST_CHECK_FRAME does for an accepted frame (counters, the
//     item's QPN, item_q) is done in that cycle and the frame job starts in
//     the next.  A frame that would be dropped, a replay, and a hold's next
//     frame (its fields shown from the next cycle) go through
//     RECVST_CHECK_FRAME as before.
//   frame (`req` -> `done`, `wb`): RECVST_CHECK_QP drops it when the QP is in
//     RESET/INIT/ERR or of another type, or a UD Q_Key differs; otherwise the
//     QP is marked busy, COMM_EST is raised on the first packet in RTR, and
//     the packet goes to hca_resp (requests) or hca_comp (responses), called
//     in the same cycle (`go`: the callee's first state acts with the
//     checks; RECVST_CHECK_QP is a cycle of its own only to wait or drop);
//     RECVST_END releases the frame and asks for the item's write-back (wb).
// Posted writes (docs/rtl.md "Posted payload writes"): an item whose RC
// WRITE payload went out posted (hca_resp) holds its frame at RECVST_END
// (r_cmd hold) instead of releasing it.  The next frame's item waits in
// RECVST_CHECK_QP, before anything that depends on the QP's state, until
// that write's response is back (r_post: outstanding; an ACK owed on it is
// sent by hca_ack_send before any later frame: it takes no call until
// then); if the write
// faulted, the item ends without touching its frame (counted once:
// recount), the held frame is replayed (r_cmd replay; r_post: replay) and
// hca_resp reports the fault as the model did at that packet; the frame
// after it then finds the QP in ERR.  No frame is offered while a fault
// waits for its replay.
// Several payload writes in flight (docs/rtl.md): while posted writes are
// outstanding, an RC WRITE packet (no immediate, with payload) of a QP none
// of them is of, raising no COMM_EST, passes RECVST_CHECK_QP at once (`ovl`,
// at most H_MAX posted writes outstanding; the item is `early`): hca_resp
// starts its posted write and waits with anything else (old_wait, old_flt).
// Every item that posted a write holds its frame at its end (hca_rx_frame
// keeps a record per posted write: docs/rtl.md "A record per posted write"),
// whatever the earlier writes did; the faulted ones are replayed oldest
// first.  An item hca_resp aborts (an earlier write faulted before its own
// started) ends untouched and is taken again after the replays.
// Callees: hca_resp, hca_comp.
module hca_recv #(
    parameter int LOG_MAX_QP = 8,
    parameter int H_MAX = 3,             // posted writes outstanding at most (hca_rx_frame's records)
    localparam int NQP = 1 << LOG_MAX_QP
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        enabled,
    input  logic        port_up,
    input  logic [47:0] port_mac,
    output logic        frame_valid,
    input  logic        chk_req,
    output logic        chk_done,
    output logic        chk_accept,
    output logic        chk_pass,        // the offered frame passes the frame checks now (check ahead)
    input  logic        chk_fast,        // hca_dispatch takes it without RECVST_CHECK_FRAME (its pick's cycle)
    input  logic        req,
    input  logic        hold,            // hca_comp_posted: an ended ACK item's CQE write pending
    output logic        hold_wait,       // RECVST_CHECK_QP waits for it (parked: COMM_EST would come first)
    output logic        done,
    output logic        wb,
    output logic        step_end,        // the item's last cycle (hca_ctx interlock)
    output logic        dbg_act,
    output logic [7:0]  dbg_st,
    // hca_rx_frame
    input  logic        r_valid,
    input  logic [15:0] r_len,
    output logic        r_release,
    output logic        r_release_q,     // released in the previous cycle (pending strobe)
    output logic [1:0]  r_cmd,           // {replay the held frame, hold this one} (hca_rx_frame)
    input  logic [2:0]  r_post,          // {posted write faulted, this frame is its replay, outstanding}
    input  logic        r_held,          // a frame is held (hca_rx_frame f_held)
    input  logic        r_ahead,         // hca_rx_frame f_ahead: the next slot's frame, offered after a hold
    input  logic [2:0]  pw_seq,          // hca_dma_wr: the next posted write's sequence number
    input  logic [2:0]  pw_rseq,         // ... the next posted response's
    input  logic [15:0] p_pay_len,
    // the frame (hca_rx_parse)
    input  logic [4:0]  p_reason,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [`OPI_W-1:0] p_info,
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [47:0] p_dmac,
    input  logic [23:0] p_dqpn,
    input  logic [31:0] p_deth_qkey,
    input  logic        e_ip_ours,
    // the item
    output logic        qpc_en,          // read the destination QP's context words this cycle
    input  logic [LOG_MAX_QP-1:0] qn,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [`RXS_W-1:0] rxs,       // COMMEST
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [2:0]  qp_st,
    input  logic [7:0]  qp_type,
    input  logic        is_ud,
    input  logic [31:0] qkey,
    output logic [LOG_MAX_QP-1:0] qn_wm,
    output logic [LOG_MAX_QP-1:0] qn_wv,
    output logic [`RXS_W-1:0] rxs_wm,
    output logic [`RXS_W-1:0] rxs_wv,
    // hca_resp, hca_comp
    output logic        resp_req,
    input  logic        resp_done,
    input  logic        resp_abort,      // with resp_done: ended untouched (an earlier write faulted)
    output logic        old_wait,        // hca_resp: earlier posted writes are outstanding (early item)
    output logic        old_flt,         // ... it faulted
    output logic        comp_req,
    input  logic        comp_done,
    // hca_ctx, hca_regs
    output logic        s_busy_set,
    output logic [`HCA_STAT_COUNT-1:0] s_stat,
    output logic [31:0] s_rx_bytes,
    output logic        s_evt,
    output logic [7:0]  s_evt_type,
    output logic [31:0] s_evt_elem
);
  localparam logic [2:0] QPS_RESET = 3'(`HCA_QPS_RESET), QPS_INIT = 3'(`HCA_QPS_INIT),
                         QPS_RTR = 3'(`HCA_QPS_RTR), QPS_ERR = 3'(`HCA_QPS_ERR);
  typedef enum logic [2:0] {RECVST_IDLE, RECVST_CHECK_FRAME, RECVST_CHECK_QP, RECVST_WAIT_RESP,
                            RECVST_WAIT_COMP, RECVST_END} st_t;
  st_t state_q, state;
  // RECVST_CHECK_QP's checks pass in this cycle (qp_go): the callee
  // (hca_resp, hca_comp) is called in the same cycle, its first state
  // acting with them (the tail of the frame checks is its head: a tail
  // call's mirror image); RECVST_CHECK_QP's own work is done by `go`.
  logic at_qp, qp_go, go;
  st_t  callee;
  // an early item: started while posted writes were outstanding (hca_resp
  // acts in the cycle of go already)
  logic early_q, early, ovl;
  assign early    = go ? r_post[0] : early_q;
  assign old_wait = early && r_held && !r_post[2];
  assign old_flt  = early && r_held && r_post[2];
  // the QPs of the posted writes outstanding (the held frames' records):
  // entry i's write is out while its sequence number is between pw_rseq and
  // pw_seq; an early item's QP is none of them, and a free entry is left
  localparam int HW = $clog2(H_MAX);
  logic [LOG_MAX_QP-1:0] hq_qn [0:H_MAX-1];
  logic [2:0]  hq_seq [0:H_MAX-1];
  logic [H_MAX-1:0] hq_v, hq_out;
  logic        hq_hit, hq_room;
  logic [HW-1:0] hq_free;
  logic [2:0]  seq_go;                 // pw_seq when the item started: it posted a write if it moved
  logic [2:0]  iss_q;                  // pw_seq registered: the posted writes accepted before this cycle
                                       // (no combinational path from a write's start to the checks)
  always_comb begin
    hq_hit = 1'b0; hq_room = 1'b0; hq_free = '0;
    for (int i = H_MAX - 1; i >= 0; i = i - 1) begin
      hq_out[i] = hq_v[i] && ((hq_seq[i] - pw_rseq) < (iss_q - pw_rseq));
      if (hq_out[i] && hq_qn[i] == qn) hq_hit = 1'b1;
      if (!hq_out[i]) begin hq_room = 1'b1; hq_free = HW'(i); end
    end
  end
  assign at_qp  = (state_q == RECVST_IDLE && !chk_req && req) || state_q == RECVST_CHECK_QP;
  assign go     = at_qp && qp_go;
  assign callee = p_info[`OPI_REQ] ? RECVST_WAIT_RESP : RECVST_WAIT_COMP;
  always_comb begin
    state = state_q;
    case (state_q)
      RECVST_IDLE:      if (chk_req) state = RECVST_CHECK_FRAME; else if (req) state = qp_go ? callee : RECVST_CHECK_QP;
      RECVST_CHECK_QP:  if (qp_go) state = callee;
      RECVST_WAIT_RESP: if (resp_done) state = RECVST_END;
      RECVST_WAIT_COMP: if (comp_done) state = RECVST_END;
      default: ;
    endcase
  end
  assign resp_req = state == RECVST_WAIT_RESP;
  assign comp_req = state == RECVST_WAIT_COMP;
  assign qpc_en   = state == RECVST_CHECK_FRAME;
  assign step_end = state == RECVST_END;
  assign dbg_act  = state != RECVST_IDLE && !resp_req && !comp_req;
  assign dbg_st   = 8'(state);
  logic replay, fault, item_q, recount, cmd_q, rep_q;
  assign replay = r_post[1];
  assign fault  = r_post[2] && !replay;
  // a hold has switched hca_rx_frame to the next slot in the cycle after
  // r_cmd; a replay is shown a cycle later (rep_q)
  // ... except a hold's next frame (r_ahead), offered in the hold's cycle:
  // hca_rx_frame shows it from the next cycle, when the dispatcher's pick
  // has its frame check read it (not under a hold of hca_comp_posted, whose
  // pick reads the offered frame's fields in the same cycle)
  logic frame_now;       // offered with its fields in this cycle
  assign frame_now   = r_valid && !r_release && !r_release_q && !(|r_cmd) && !rep_q && !fault;
  assign frame_valid = frame_now || (r_cmd == 2'b01 && r_ahead && !hold && !fault);

  // The frame checks (RECVST_CHECK_FRAME, the model's order): chk_ok, or the
  // statistic of the first reason to drop the frame (chk_drop).  They read
  // the offered frame's fields and the port's registers only, so they can
  // be evaluated in any cycle the frame is offered with its fields
  // (frame_now: not a hold's next frame shown from the next cycle, not a
  // replay): chk_pass tells hca_dispatch, which reads the frame's QP words
  // ahead while a step runs and takes the frame in its pick's cycle
  // (chk_fast) without RECVST_CHECK_FRAME (docs/rtl.md "The frame checked
  // ahead").  Nothing is written or released by chk_pass: a frame it
  // rejects goes through RECVST_CHECK_FRAME as before.
  logic        chk_ok;
  logic [$clog2(`HCA_STAT_COUNT)-1:0] chk_drop;
  always_comb begin
    chk_ok = 1'b0;
    chk_drop = $clog2(`HCA_STAT_COUNT)'(`HCA_STAT_RX_DROP_MALFORMED);
    if (!enabled || !port_up)
      chk_drop = $clog2(`HCA_STAT_COUNT)'(`HCA_STAT_RX_DROP_PORT_DOWN);
    else if (p_reason == `RXD_TOO_LONG || (p_reason != `RXD_NONE && p_reason < `RXD_ICRC &&
                                           p_reason != `RXD_HDR_LEN))
      chk_drop = $clog2(`HCA_STAT_COUNT)'(`HCA_STAT_RX_DROP_MALFORMED);
    else if (p_dmac != port_mac || !e_ip_ours)
      chk_drop = $clog2(`HCA_STAT_COUNT)'(`HCA_STAT_RX_DROP_ADDR);
    else if (p_reason == `RXD_ICRC)
      chk_drop = $clog2(`HCA_STAT_COUNT)'(`HCA_STAT_RX_DROP_ICRC);
    else if (p_reason != `RXD_NONE)
      chk_drop = $clog2(`HCA_STAT_COUNT)'(`HCA_STAT_RX_DROP_MALFORMED);
    else if (p_dqpn < 24'(`HCA_QPN_GSI) || p_dqpn >= 24'(NQP))
      chk_drop = $clog2(`HCA_STAT_COUNT)'(`HCA_STAT_RX_DROP_NO_QP);
    else
      chk_ok = 1'b1;
  end
  assign chk_pass  = frame_now && !replay && chk_ok && state_q == RECVST_IDLE;

  logic [7:0] p_qpt;
  assign p_qpt = p_info[`OPI_RC] ? 8'(`HCA_QPT_RC) : p_info[`OPI_UC] ? 8'(`HCA_QPT_UC) : 8'(`HCA_QPT_UD);
  // RECVST_CHECK_QP: no replay, no posted write outstanding or faulted, the
  // QP of the frame's type and in a state that receives, a UD Q_Key that matches
  // an ACK/NAK started under a hold (hca_dispatch) raises no event before
  // the ended item's outcome: COMM_EST (a QP in RTR) waits for it
  assign hold_wait = at_qp && hold && !is_ud && qp_st == QPS_RTR && !rxs[`RXS_COMMEST_O];
  // while posted writes are outstanding: a posted WRITE packet
  // of a QP with none of them (hq_hit), a record free (hq_room; its opcode:
  // hca_resp decides), no COMM_EST to raise
  assign ovl = r_post[0] && !r_post[2] && p_info[`OPI_REQ] && p_info[`OPI_RC] &&
               p_info[`OPI_WRITE] && !p_info[`OPI_IMM] && p_pay_len != 16'd0 && !hq_hit && hq_room &&
               !(qp_st == QPS_RTR && !rxs[`RXS_COMMEST_O]);
  assign qp_go = !replay && (!r_post[0] || ovl) && !fault && !hold_wait &&
                 !(qp_st == QPS_RESET || qp_type != p_qpt || qp_st == QPS_INIT || qp_st == QPS_ERR) &&
                 !(is_ud && p_deth_qkey != qkey);

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= RECVST_IDLE; chk_done <= 1'b0; chk_accept <= 1'b0; done <= 1'b0; wb <= 1'b0;
      r_cmd <= '0; cmd_q <= 1'b0; rep_q <= 1'b0; item_q <= 1'b0; recount <= 1'b0; early_q <= 1'b0;
      hq_v <= '0; seq_go <= '0; iss_q <= '0;
      for (int i = 0; i < H_MAX; i = i + 1) begin hq_qn[i] <= '0; hq_seq[i] <= '0; end
      r_release <= 1'b0; r_release_q <= 1'b0; qn_wm <= '0; qn_wv <= '0; rxs_wm <= '0; rxs_wv <= '0;
      s_busy_set <= 1'b0; s_stat <= '0; s_rx_bytes <= '0; s_evt <= 1'b0; s_evt_type <= '0; s_evt_elem <= '0;
    end else if (srst) begin
      state_q <= RECVST_IDLE; chk_done <= 1'b0; done <= 1'b0;
      r_cmd <= '0; cmd_q <= 1'b0; rep_q <= 1'b0; item_q <= 1'b0; recount <= 1'b0; early_q <= 1'b0;
      hq_v <= '0;
      r_release <= 1'b0; r_release_q <= 1'b0; qn_wm <= '0; qn_wv <= '0; rxs_wm <= '0; rxs_wv <= '0;
      s_busy_set <= 1'b0; s_stat <= '0; s_rx_bytes <= '0; s_evt <= 1'b0;
    end else if (ce) begin
      chk_done <= 1'b0; done <= 1'b0;
      r_cmd <= '0; cmd_q <= |r_cmd; rep_q <= r_cmd[1];
      if (done) item_q <= 1'b0;
      r_release <= 1'b0; r_release_q <= r_release; qn_wm <= '0; qn_wv <= '0; rxs_wm <= '0; rxs_wv <= '0;
      s_busy_set <= 1'b0; s_stat <= '0; s_rx_bytes <= '0; s_evt <= 1'b0;
      state_q <= state;
      iss_q <= pw_seq;
      for (int i = 0; i < H_MAX; i = i + 1)
        if (!hq_out[i]) hq_v[i] <= 1'b0;    // (before a sequence number comes round again)
      if (go) begin
        // RECVST_CHECK_QP passed: the QP busy, COMM_EST on the first packet in RTR
        s_busy_set <= 1'b1;
        early_q    <= r_post[0];
        seq_go     <= pw_seq;
        if (!is_ud && qp_st == QPS_RTR && !rxs[`RXS_COMMEST_O]) begin
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_COMMEST_O, 1, 1'b1)
          s_evt <= 1'b1; s_evt_type <= 8'(`HCA_EVENT_COMM_EST); s_evt_elem <= {{(32-LOG_MAX_QP){1'b0}}, qn};
        end
      end
      if (chk_fast) begin
        // the check ahead taken (hca_dispatch's pick, RECVST_IDLE): what
        // RECVST_CHECK_FRAME does for a frame it accepts, in this cycle
        s_stat[`HCA_STAT_RX_FRAMES] <= !recount;
        s_rx_bytes <= recount ? 32'h0 : {16'b0, r_len};
        recount <= 1'b0;
        qn_wm <= '1; qn_wv <= p_dqpn[LOG_MAX_QP-1:0];
        item_q <= 1'b1;
      end
      case (state)
        // a posted write's fault waits for its replay: once no item runs
        RECVST_IDLE:
          if (fault && !item_q && !(|r_cmd) && !cmd_q) r_cmd[1] <= 1'b1;
        RECVST_CHECK_FRAME: begin
          // counted once: not when replayed, nor again after an abort
          s_stat[`HCA_STAT_RX_FRAMES] <= !replay && !recount;
          s_rx_bytes <= (replay || recount) ? 32'h0 : {16'b0, r_len};
          if (!replay) recount <= 1'b0;
          qn_wm <= '1; qn_wv <= p_dqpn[LOG_MAX_QP-1:0];
          chk_done   <= 1'b1;
          chk_accept <= 1'b0;
          state_q    <= RECVST_IDLE;
          if (replay || chk_ok) begin
            chk_accept <= 1'b1;
            item_q     <= 1'b1;
          end else begin
            s_stat[chk_drop] <= 1'b1;
            r_release <= 1'b1;
          end
        end
        RECVST_CHECK_QP:
          if (replay) begin
            // the fault of a held frame's posted write, from its record (hca_resp)
            state_q <= RECVST_WAIT_RESP;
          end else if (r_post[0]) begin
            // an earlier packet's posted write is outstanding: wait for its response
          end else if (fault) begin
            // an earlier packet's posted write faulted: this frame comes after its report
            recount <= 1'b1;
            done <= 1'b1; wb <= 1'b0; state_q <= RECVST_IDLE;
          end else if (qp_st == QPS_RESET || qp_type != p_qpt || qp_st == QPS_INIT || qp_st == QPS_ERR) begin
            s_stat[`HCA_STAT_RX_DROP_NO_QP] <= 1'b1;
            r_release <= 1'b1;
            done <= 1'b1; wb <= 1'b0; state_q <= RECVST_IDLE;
          end else if (is_ud && p_deth_qkey != qkey) begin
            s_stat[`HCA_STAT_RX_DROP_QKEY] <= 1'b1;
            r_release <= 1'b1;
            done <= 1'b1; wb <= 1'b0; state_q <= RECVST_IDLE;
          end
          // else qp_go: the callee was called in this cycle (state, go), or
          // hold_wait
        RECVST_END: begin
          early_q <= 1'b0;
          if (resp_abort && state_q == RECVST_WAIT_RESP) begin
            // aborted by hca_resp (an earlier write faulted before its own
            // started): untouched, taken again after the replays
            recount <= 1'b1;
            done <= 1'b1; wb <= 1'b0;
          end else begin
            // this item posted a write (pw_seq moved; not a replay): its frame
            // held, a record kept (hca_rx_frame) and its QP noted here
            if (!replay && pw_seq != seq_go) begin
              r_cmd[0] <= 1'b1;
              hq_v[hq_free]   <= 1'b1;
              hq_qn[hq_free]  <= qn;
              hq_seq[hq_free] <= pw_seq - 3'd1;
            end else r_release <= 1'b1;
            done <= 1'b1; wb <= 1'b1;
          end
          state_q <= RECVST_IDLE;
        end
        default: ;
      endcase
    end
  end
endmodule
