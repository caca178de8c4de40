`include "hca_defs.vh"

// Responder (model/resp.c model_responder): what a received request packet
// does to its RC, UC or UD QP.
//
// Job (docs/rtl.md "Handshakes"): `req` held until `done`, one request packet
// (parsed by hca_rx_parse, QP words loaded by hca_dispatch, frame and QP
// checks done by hca_recv).
//   RC (rc_responder): RESPST_CHECK_PSN -- duplicates are re-ACKed with
//     ePSN - 1 (RX_DUP; a duplicate READ/atomic is replayed from the
//     responder resources: hca_read_atomic, RESPST_WAIT_RDAT_END), a PSN gap
//     gets one PSN-sequence NAK (RX_SEQ_ERR); the expected PSN goes on in
//     the same cycle (do_op) to the opcode checks: opcode
//     sequence and lengths (wire.md 4.2: NAK invalid request), access (NAK
//     remote access), a receive WQE taken when a SEND starts or a WRITE with
//     immediate arrives (hca_scatter take; none: RNR NAK with the QP's
//     min_rnr_timer; fetch fault: NAK remote operational; malformed: error
//     CQE and NAK); then in the same cycle (do_len), or in RESPST_CHECK_LEN
//     after a receive WQE's fetch: SEND longer than the receive WQE (LEN
//     error CQE, NAK invalid request), a misaligned atomic (NAK invalid
//     request), the RETH/AtomicETH rkey check (hca_mr_check, called in
//     RESPST_CHECK_PSN's cycle when that cycle's checks lead to it, rk_now:
//     NAK remote access); an RC WRITE's payload (one DMA write at the
//     RETH VA + offset) starts in the cycle its rkey result is known, a
//     middle/last one's in the cycle its checks pass; RESPST_EXECUTE --
//     READ/atomic: no responder resources (NAK invalid request), else
//     hca_read_atomic (RESPST_WAIT_RDAT: the responses or the atomic ACK; a
//     fault there is NAKed at the PSN it returns, RESPST_RDAT_RESULT); SEND:
//     hca_scatter; a UC WRITE's payload write; then ePSN/MSN and the
//     message state, the receive completion (hca_complete_recv) at the end of
//     a SEND or WRITE with immediate, and an ACK when AckReq is set
//     (RESPST_ACK, hca_ack_send).  NAKs other than RNR/PSN sequence move
//     the QP to ERR with QP_REQ_ERR, QP_ACCESS_ERR or QP_FATAL
//     (RESPST_NAK, RESPST_NAK_QP_ERR; hca_qp_err).
//   UC (uc_responder): RESPST_UC_* -- no ACKs; a PSN gap aborts the message
//     in progress (uc_drop) and drops its middle/last packets; errors drop
//     the message, complete the receive WQE in error, or move the QP to ERR.
//   UD (ud_responder): RESPST_UD_* -- payload within the PMTU, a receive WQE,
//     the 40-byte GRH area then the payload scattered (hca_scatter), the
//     completion with the source QP.
// Posted payload writes (docs/rtl.md "Posted payload writes"): an RC WRITE
// packet without immediate (no CQE is owed on it) has its payload written
// posted (d_w_post): the packet is committed in the cycle its write starts
// (RESPST_RKEY_RESULT for a first/only packet, RESPST_CHECK_PSN's cycle for
// a middle/last one), its ACK, if AckReq is set, is called while the write
// is issued (wack; owed, ack_owe: hca_ack_send builds it then, its sequence
// holds it, and sends it once the response is back, or drops it if the
// write faulted), and the packet ends in the cycle hca_dma_wr takes the
// write (w_end: d_w_took, or d_w_done for a write it had queued; its beats
// go out after the item) and hca_ack_send the owed ACK (ack_took);
// the response is awaited by hca_rx_frame/hca_recv, which hold the frame.  If the write faulted, the frame is replayed (`rep`):
// RESPST_POSTED_FAULT reports the fault as the model did at that packet
// (DMA_FAULT, the fault latch, ePSN, MSN and the message state back to
// before it, NAK remote access error, QP to ERR).
// Several payload writes in flight (docs/rtl.md): an RC WRITE packet of a
// QP with no posted write outstanding may start while other QPs' posted
// writes are (hca_recv: old_wait).  Its checks, rkey call and write start
// run as usual; anything else it would do (a NAK, a duplicate's ACK: the
// outcomes that are not its posted write) waits in RESPST_CHECK_PSN until
// those responses are back (an rkey that fails goes back there too), and if
// one faulted (old_flt) the packet ends without touching anything
// (`redo`): it is taken again after the faulting packets' replays.  A
// replay reports the fault's address from the committed RXS (fa may be a
// later packet's).
// Planted-bug hook drop_ack: no ACK for AckReq packets.
// Caller: hca_recv.  Calls: hca_ack_send, hca_scatter, hca_mr_check,
// hca_complete_recv, hca_qp_err, hca_read_atomic.
module hca_resp #(
    parameter int DATA_W     = 64,
    parameter int RX_SLOT_AW = 7,
    localparam int WB  = DATA_W / 8,
    localparam int LW  = $clog2(WB),
    localparam int RXA = RX_SLOT_AW + 1 + LW
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        req,
    input  logic        rep,             // with req: the replay of a posted write that faulted
    input  logic        old_wait,        // an earlier packet's posted write is outstanding (above)
    input  logic        old_flt,         // ... it faulted: this packet waits for its replay
    output logic        done,
    output logic        redo,            // with done: ended untouched, to be taken again (old_flt)
    output logic        dbg_act,
    output logic [7:0]  dbg_st,
    // the item (hca_dispatch, hca_qpc_view)
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [`RXS_W-1:0] rxs,
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [2:0]  qp_st,
    input  logic        is_uc,
    input  logic        is_ud,
    input  logic [15:0] qp_access,
    input  logic [31:0] pdn,
    input  logic [31:0] pmtu,
    input  logic [4:0]  min_rnr_timer,
    input  logic [7:0]  max_dest_rd_atomic,
    output logic [`RXS_W-1:0] rxs_wm,
    output logic [`RXS_W-1:0] rxs_wv,
    // the request packet (hca_rx_parse)
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [`OPI_W-1:0] p_info,
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [23:0] p_psn,
    input  logic        p_ackreq,
    input  logic [63:0] p_reth_va,
    input  logic [31:0] p_reth_rkey,
    input  logic [31:0] p_reth_len,
    input  logic [23:0] p_deth_sqp,
    input  logic [7:0]  p_pay_off,
    input  logic [15:0] p_pay_len,
    input  logic        r_slot,
    // hca_ack_send
    output logic        ack_req,
    output logic [23:0] ack_psn,
    output logic [7:0]  ack_syn,
    output logic        ack_owe,         // with ack_req: owed on the posted write, sent at its response
    input  logic        ack_done,
    input  logic        ack_took,        // an owed call taken in this cycle (its only answer)
    // hca_read_atomic
    output logic        rd_req,
    output logic [1:0]  rd_kind,
    output logic [63:0] rd_iova,
    input  logic        rd_done,
    input  logic [7:0]  rd_nak,
    input  logic [23:0] rd_nak_psn,
    // hca_scatter: take a receive WQE, scatter
    output logic        tk_req,
    output logic        sc_req,
    output logic [31:0] sc_off,
    output logic [15:0] sc_n,
    output logic [15:0] sc_src,
    output logic        sc_grh,
    input  logic        scat_done,
    input  logic [1:0]  rq_res,
    input  logic [7:0]  rq_verr,
    input  logic [7:0]  sc_verr,
    // hca_mr_check
    output logic        mr_req,
    output logic [31:0] mr_key,          // with mr_req: the arguments
    output logic [31:0] mr_pdn,
    output logic [15:0] mr_acc,
    output logic [63:0] mr_va,
    output logic [63:0] mr_len,
    input  logic        mr_done,
    input  logic [7:0]  mr_verr,
    input  logic [63:0] mr_iova,
    // hca_complete_recv
    output logic        rc_req,
    output logic [4:0]  rc_status,
    output logic [7:0]  rc_verr,
    output logic [7:0]  rc_op,
    output logic [31:0] rc_len,
    output logic        rc_imm,
    output logic [7:0]  rc_flags,
    output logic [31:0] rc_src,
    input  logic        rc_done,
    // hca_qp_err
    output logic        qe_req,
    output logic        qe_has,
    output logic [7:0]  qe_evt,
    input  logic        qe_done,
    // hca_dma_wr: RDMA WRITE payload
    output logic        d_w_start,
    output logic [63:0] d_w_addr,
    output logic [15:0] d_w_len,
    output logic [RXA-1:0] d_w_off,
    output logic        d_w_post,        // with d_w_start: posted (hca_dma_wr); low without it
    input  logic        d_w_done,
    input  logic        d_w_err,
    input  logic        d_w_rdy,         // hca_dma_wr takes a write started now (a posted one: no d_w_done)
    // hca_regs
    output logic [`HCA_STAT_COUNT-1:0] s_stat,
    output logic        s_fault,
    output logic [7:0]  s_fault_client,
    output logic        s_fault_wr,
    output logic [63:0] s_fault_iova
);
  `include "hca_funcs.vh"
  localparam logic [2:0] QPS_RTR = 3'(`HCA_QPS_RTR), QPS_RTS = 3'(`HCA_QPS_RTS), QPS_SQD = 3'(`HCA_QPS_SQD),
                         QPS_SQE = 3'(`HCA_QPS_SQE);
  localparam logic [7:0] AETH_ACK  = 8'((`HCA_AETH_TYPE_ACK << 5) | `HCA_WIRE_AETH_CREDIT_INVALID);
  localparam logic [7:0] AETH_NAKB = 8'(`HCA_AETH_TYPE_NAK << 5);
  localparam logic [7:0] AETH_RNRB = 8'(`HCA_AETH_TYPE_RNR_NAK << 5);

  typedef enum logic [5:0] {
    RESPST_IDLE,
    // RC
    RESPST_CHECK_PSN, RESPST_WAIT_RWQE, RESPST_RWQE_RESULT, RESPST_CHECK_LEN,
    RESPST_WAIT_RKEY, RESPST_RKEY_RESULT, RESPST_EXECUTE, RESPST_WAIT_SEND_SCATTER, RESPST_SEND_DONE,
    RESPST_WAIT_WRITE_PAYLOAD, RESPST_ACK, RESPST_NAK, RESPST_WAIT_NAK_SENT, RESPST_NAK_QP_ERR,
    // UC
    RESPST_UC_CHECK_PSN, RESPST_UC_CHECK_OP, RESPST_UC_WAIT_RWQE, RESPST_UC_RWQE_RESULT,
    RESPST_UC_WAIT_SCATTER, RESPST_UC_SEND_DONE, RESPST_UC_CLEAR_OFF, RESPST_UC_WAIT_RKEY,
    RESPST_UC_RKEY_RESULT, RESPST_UC_WRITE,
    // UD
    RESPST_UD_CHECK, RESPST_UD_WAIT_RWQE, RESPST_UD_RWQE_RESULT, RESPST_UD_WAIT_GRH, RESPST_UD_GRH_DONE,
    RESPST_UD_WAIT_SCATTER, RESPST_UD_DONE,
    // receive completion (hca_complete_recv), then ...
    RESPST_WAIT_RCQE_NAK, RESPST_WAIT_RCQE_ACK, RESPST_WAIT_RCQE_UC_CLEAR,
    // ... the job's last step: an ACK/NAK, a receive completion, QP to ERR
    RESPST_WAIT_ACK_END, RESPST_WAIT_RCQE_END, RESPST_WAIT_QP_ERR_END,
    // READ and atomics (hca_read_atomic)
    RESPST_WAIT_RDAT, RESPST_RDAT_RESULT, RESPST_WAIT_RDAT_END,
    // a posted write's fault, reported at its packet's replay
    RESPST_POSTED_FAULT
  } st_t;
  st_t state_q, state;
  always_comb begin
    state = state_q;
    case (state_q)
      RESPST_IDLE:               if (req) state = RESPST_CHECK_PSN;
      RESPST_WAIT_RWQE:          if (scat_done) state = RESPST_RWQE_RESULT;
      RESPST_WAIT_RKEY:          if (mr_done) state = RESPST_RKEY_RESULT;
      RESPST_WAIT_SEND_SCATTER:  if (scat_done) state = RESPST_SEND_DONE;
      RESPST_WAIT_NAK_SENT:      if (ack_done) state = RESPST_NAK_QP_ERR;
      RESPST_UC_WAIT_RWQE:       if (scat_done) state = RESPST_UC_RWQE_RESULT;
      RESPST_UC_WAIT_SCATTER:    if (scat_done) state = RESPST_UC_SEND_DONE;
      RESPST_UC_WAIT_RKEY:       if (mr_done) state = RESPST_UC_RKEY_RESULT;
      RESPST_UD_WAIT_RWQE:       if (scat_done) state = RESPST_UD_RWQE_RESULT;
      RESPST_UD_WAIT_GRH:        if (scat_done) state = RESPST_UD_GRH_DONE;
      RESPST_UD_WAIT_SCATTER:    if (scat_done) state = RESPST_UD_DONE;
      RESPST_WAIT_RCQE_NAK:      if (rc_done) state = RESPST_NAK;
      RESPST_WAIT_RCQE_ACK:      if (rc_done) state = RESPST_ACK;
      RESPST_WAIT_RCQE_UC_CLEAR: if (rc_done) state = RESPST_UC_CLEAR_OFF;
      RESPST_WAIT_ACK_END:       if (ack_done) state = RESPST_IDLE;
      RESPST_WAIT_RCQE_END:      if (rc_done) state = RESPST_IDLE;
      RESPST_WAIT_QP_ERR_END:    if (qe_done) state = RESPST_IDLE;
      RESPST_WAIT_RDAT:          if (rd_done) state = RESPST_RDAT_RESULT;
      RESPST_WAIT_RDAT_END:      if (rd_done) state = RESPST_IDLE;
      default: ;
    endcase
  end
  logic wack;                          // the posted write's ACK is called while it is issued, not yet done
  // (from state_q: no combinational path from req, so that hca_ack_send's
  // took may end the packet in the call's cycle; no state moves into these
  // three but by a registered step)
  assign ack_req = ((state_q == RESPST_WAIT_NAK_SENT || state_q == RESPST_WAIT_ACK_END) && !ack_done) ||
                   (state_q == RESPST_WAIT_WRITE_PAYLOAD && wack && !ack_done);
  assign tk_req  = state == RESPST_WAIT_RWQE || state == RESPST_UC_WAIT_RWQE || state == RESPST_UD_WAIT_RWQE;
  assign sc_req  = state == RESPST_WAIT_SEND_SCATTER || state == RESPST_UC_WAIT_SCATTER ||
                   state == RESPST_UD_WAIT_GRH || state == RESPST_UD_WAIT_SCATTER;
  logic rk_now;
  assign mr_req  = state == RESPST_WAIT_RKEY || state == RESPST_UC_WAIT_RKEY || rk_now;
  assign rc_req  = state == RESPST_WAIT_RCQE_NAK || state == RESPST_WAIT_RCQE_ACK ||
                   state == RESPST_WAIT_RCQE_UC_CLEAR || state == RESPST_WAIT_RCQE_END;
  assign qe_req  = state == RESPST_WAIT_QP_ERR_END;
  assign rd_req  = state == RESPST_WAIT_RDAT || state == RESPST_WAIT_RDAT_END;
  assign dbg_act = state != RESPST_IDLE && !ack_req && !tk_req && !sc_req && !mr_req && !rc_req && !qe_req &&
                   !rd_req;
  assign dbg_st  = 8'(state);

  logic done_q, abort_q, ack_want;
  assign redo = abort_q;
  assign ack_want = `HCA_BUG(drop_ack, p_ackreq, 1'b0);     // an ACK for this packet
  // a posted write's packet ends in the cycle hca_dma_wr takes it (d_w_took
  // straight from its start, in that cycle; d_w_done for one it queued):
  // committed at its start, its owed ACK taken by then or in this cycle
  // (ack_took; docs/rtl.md "The responder's frame period")
  logic w_end, w_taken, d_w_took, ack_owed_end;
  // d_w_post only with this job's start: hca_dma_wr sees it with any job's
  // start (an atomic's write, a CQE's), which must not count as posted
  // (w_posted: the packet's own write was, kept for its end)
  logic w_posted;
  assign d_w_post = d_w_start && w_posted;
  assign d_w_took = d_w_start && w_posted && d_w_len != 16'd0 && d_w_rdy;
  assign w_taken = d_w_took || (d_w_done && w_posted && !d_w_err);
  assign w_end = state_q == RESPST_WAIT_WRITE_PAYLOAD && w_taken && !(wack && !ack_done && !ack_took);
  // an owed ACK called after its write was taken (hca_ack_send was busy)
  assign ack_owed_end = state_q == RESPST_WAIT_ACK_END && ack_owe && ack_took;
  assign done = done_q || w_end || (state_q == RESPST_WAIT_ACK_END && ack_done) || ack_owed_end ||
                (state_q == RESPST_WAIT_RCQE_END && rc_done) || (state_q == RESPST_WAIT_QP_ERR_END && qe_done) ||
                (state_q == RESPST_WAIT_RDAT_END && rd_done);
  // the take's result; a receive WQE already in progress counts as taken
  logic [1:0] rwqe_res;
  assign rwqe_res = (state_q == RESPST_WAIT_RWQE || state_q == RESPST_UC_WAIT_RWQE ||
                     state_q == RESPST_UD_WAIT_RWQE) ? rq_res : `RQ_TAKEN;

  // the request
  logic ro_send, ro_write, ro_first, ro_middle, ro_last, ro_only, ro_imm, ro_start, ro_end, ro_read, ro_atomic;
  assign ro_send   = p_info[`OPI_SEND];
  assign ro_write  = p_info[`OPI_WRITE];
  assign ro_read   = p_info[`OPI_READ];
  assign ro_atomic = p_info[`OPI_ATOMIC];
  assign ro_first  = p_info[`OPI_FIRST];
  assign ro_middle = p_info[`OPI_MIDDLE];
  assign ro_last   = p_info[`OPI_LAST];
  assign ro_only   = p_info[`OPI_ONLY];
  assign ro_imm    = p_info[`OPI_IMM];
  assign ro_start  = ro_first || ro_only;
  assign ro_end    = ro_last || ro_only;

  // responder state fields (RXS)
  logic [23:0] r_epsn, r_msn;
  logic [1:0]  r_msg;
  logic [31:0] r_rwqe_tot, r_rwqe_off, r_msg_len, r_wr_len;
  logic [63:0] r_wr_iova;
  logic        r_rwqe_v, r_seqnak, r_ucdrop;
  assign r_epsn     = rxs[`RXS_EPSN_O +: 24];
  assign r_msn      = rxs[`RXS_MSN_O +: 24];
  assign r_seqnak   = rxs[`RXS_SEQNAK_O];
  assign r_msg      = rxs[`RXS_MSG_O +: 2];
  assign r_ucdrop   = rxs[`RXS_UCDROP_O];
  assign r_rwqe_v   = rxs[`RXS_RWQE_V_O];
  assign r_rwqe_tot = rxs[`RXS_RWQE_TOT_O +: 32];
  assign r_rwqe_off = rxs[`RXS_RWQE_OFF_O +: 32];
  assign r_msg_len  = rxs[`RXS_MSG_LEN_O +: 32];
  assign r_wr_len   = rxs[`RXS_WR_LEN_O +: 32];
  assign r_wr_iova  = rxs[`RXS_WR_IOVA_O +: 64];

  // wire.md 4.2 check 2 (model/resp.c lengths_ok)
  logic len_ok;
  always_comb begin : lengths
    logic [32:0] total;
    len_ok = 1'b1;
    total = {1'b0, r_msg_len} + {17'b0, p_pay_len};
    if ((ro_first || ro_middle) && {16'b0, p_pay_len} != pmtu) len_ok = 1'b0;
    if (ro_last && (p_pay_len == 16'd0 || {16'b0, p_pay_len} > pmtu)) len_ok = 1'b0;
    if (ro_only && {16'b0, p_pay_len} > pmtu) len_ok = 1'b0;
    if (ro_write) begin
      if (ro_start) begin
        if ({1'b0, p_reth_len} > 33'(`HCA_CAP_MAX_MSG_SZ)) len_ok = 1'b0;
        if (ro_only && {16'b0, p_pay_len} != p_reth_len) len_ok = 1'b0;
        if (ro_first && p_reth_len <= pmtu) len_ok = 1'b0;
      end else begin
        if (ro_last ? (total != {1'b0, r_wr_len}) : (total >= {1'b0, r_wr_len})) len_ok = 1'b0;
      end
    end
    if (ro_read && {1'b0, p_reth_len} > 33'(`HCA_CAP_MAX_MSG_SZ)) len_ok = 1'b0;
  end
  // opcode sequence (model/resp.c opcode_sequence_ok)
  logic seq_ok;
  always_comb begin
    if (r_msg == `RESP_MSG_SEND)       seq_ok = ro_send && (ro_middle || ro_last);
    else if (r_msg == `RESP_MSG_WRITE) seq_ok = ro_write && (ro_middle || ro_last);
    else                               seq_ok = ro_start || ro_read || ro_atomic;
  end

  // The RETH / AtomicETH rkey is called in RESPST_CHECK_PSN's cycle when the
  // checks of that cycle (the always_ff below: PSN, do_op, do_len) pass on
  // to it: RC, the expected PSN, opcode sequence, lengths and access good,
  // no receive WQE to take first, an atomic aligned, and a first/only WRITE,
  // a READ or an atomic.  hca_mr_check takes the arguments straight from the
  // packet then (rk_now); RESPST_WAIT_RKEY is its done cycle.  Otherwise
  // (after a receive WQE's fetch, UC) the registered arguments of
  // RESPST_WAIT_RKEY / RESPST_UC_WAIT_RKEY.
  logic [31:0] mr_key_q, mr_pdn_q;
  logic [15:0] mr_acc_q, rk_acc;
  logic [63:0] mr_va_q, mr_len_q, rk_len;
  assign rk_acc = ro_read ? 16'(`HCA_ACCESS_REMOTE_READ) :
                  ro_atomic ? 16'(`HCA_ACCESS_REMOTE_ATOMIC) : 16'(`HCA_ACCESS_REMOTE_WRITE);
  assign rk_len = ro_atomic ? 64'd8 : {32'b0, p_reth_len};
  // a posted WRITE packet whose checks pass in RESPST_CHECK_PSN's cycle: what
  // a packet may do while an earlier posted write is outstanding (old_wait)
  logic fast_ok;
  assign fast_ok = ro_write && !ro_imm && !is_uc && !is_ud && p_psn == r_epsn && seq_ok && len_ok &&
                   !(ro_start && (qp_access & 16'(`HCA_ACCESS_REMOTE_WRITE)) == 0);
  assign rk_now = state == RESPST_CHECK_PSN && !old_flt &&
                  (qp_st == QPS_RTR || qp_st == QPS_RTS || qp_st == QPS_SQD || qp_st == QPS_SQE) &&
                  !rep && !is_uc && !is_ud && p_psn == r_epsn && seq_ok && len_ok &&
                  !((ro_write && ro_start && (qp_access & 16'(`HCA_ACCESS_REMOTE_WRITE)) == 0) ||
                    (ro_read && (qp_access & 16'(`HCA_ACCESS_REMOTE_READ)) == 0) ||
                    (ro_atomic && (qp_access & 16'(`HCA_ACCESS_REMOTE_ATOMIC)) == 0)) &&
                  !(((ro_send && ro_start) || (ro_write && ro_imm)) && !r_rwqe_v) &&
                  !(ro_atomic && p_reth_va[2:0] != 3'd0) &&
                  ((ro_write && ro_start) || ro_read || ro_atomic);
  assign mr_key = rk_now ? p_reth_rkey : mr_key_q;
  assign mr_pdn = rk_now ? pdn : mr_pdn_q;
  assign mr_acc = rk_now ? rk_acc : mr_acc_q;
  assign mr_va  = rk_now ? p_reth_va : mr_va_q;
  assign mr_len = rk_now ? rk_len : mr_len_q;

  assign s_fault_client = 8'(`HCA_DMA_CLIENT_PAYLOAD);   // the WRITE payload
  assign s_fault_wr     = 1'b1;

  logic [7:0]  rs_code;              // NAK code for RESPST_NAK
  logic [63:0] rs_iova;              // the RETH VA, translated
  logic [63:0] fa;                   // the WRITE payload's address (fault report)

  always_ff @(posedge clk or negedge rst_n) begin : seq
    logic do_op, do_len;                 // RESPST_CHECK_PSN goes on to the opcode / length checks
    logic do_wr;                         // the WRITE payload's write starts in this cycle (below)
    logic [63:0] wr_iova;                // with do_wr: the RETH VA, translated (a first/only packet)
    do_op = 1'b0; do_len = 1'b0; do_wr = 1'b0; wr_iova = rs_iova;
    if (!rst_n) begin
      state_q <= RESPST_IDLE; done_q <= 1'b0; abort_q <= 1'b0; rxs_wm <= '0; rxs_wv <= '0;
      rs_code <= '0; rs_iova <= '0; fa <= '0; ack_psn <= '0; ack_syn <= '0; ack_owe <= 1'b0; rd_kind <= '0;
      rd_iova <= '0;
      sc_off <= '0; sc_n <= '0; sc_src <= '0; sc_grh <= 1'b0;
      mr_key_q <= '0; mr_pdn_q <= '0; mr_acc_q <= '0; mr_va_q <= '0; mr_len_q <= '0;
      rc_status <= '0; rc_verr <= '0; rc_op <= '0; rc_len <= '0; rc_imm <= 1'b0; rc_flags <= '0; rc_src <= '0;
      qe_has <= 1'b0; qe_evt <= '0;
      d_w_start <= 1'b0; d_w_addr <= '0; d_w_len <= '0; d_w_off <= '0; w_posted <= 1'b0; wack <= 1'b0;
      s_stat <= '0; s_fault <= 1'b0; s_fault_iova <= '0;
    end else if (srst) begin
      state_q <= RESPST_IDLE; done_q <= 1'b0; abort_q <= 1'b0; rxs_wm <= '0; rxs_wv <= '0; wack <= 1'b0;
      d_w_start <= 1'b0; s_stat <= '0; s_fault <= 1'b0;
    end else if (ce) begin
      done_q <= 1'b0; abort_q <= 1'b0; rxs_wm <= '0; rxs_wv <= '0; d_w_start <= 1'b0; s_stat <= '0;
      s_fault <= 1'b0;
      if (state == RESPST_CHECK_PSN) begin ack_owe <= 1'b0; wack <= 1'b0; end
      if (state_q == RESPST_WAIT_WRITE_PAYLOAD && (ack_done || ack_took)) wack <= 1'b0;
      state_q <= state;
      if (ack_owed_end) state_q <= RESPST_IDLE;
      case (state)
        // ---------------------------------------------------------- RC
        RESPST_CHECK_PSN:
          if (old_flt) begin
            // an earlier packet's posted write faulted: taken again after its replay
            done_q <= 1'b1; abort_q <= 1'b1; state_q <= RESPST_IDLE;
          end else if (old_wait && !fast_ok)
            state_q <= RESPST_CHECK_PSN;       // not a posted write: after that write's response
          else if (qp_st != QPS_RTR && qp_st != QPS_RTS && qp_st != QPS_SQD && qp_st != QPS_SQE) begin
            done_q <= 1'b1; state_q <= RESPST_IDLE;
          end else if (rep)
            state_q <= RESPST_POSTED_FAULT;
          else if (is_uc)
            state_q <= RESPST_UC_CHECK_PSN;
          else if (is_ud)
            state_q <= RESPST_UD_CHECK;
          else if (psn_lt(p_psn, r_epsn)) begin
            // duplicate: re-ACK with ePSN - 1; READ/atomic: replayed
            s_stat[`HCA_STAT_RX_DUP] <= 1'b1;
            if (ro_read || ro_atomic) begin
              rd_kind <= `RDAT_DUP;
              state_q <= RESPST_WAIT_RDAT_END;
            end else begin
              ack_psn <= r_epsn - 24'd1; ack_syn <= AETH_ACK;
              state_q <= RESPST_WAIT_ACK_END;
            end
          end else if (p_psn != r_epsn) begin
            s_stat[`HCA_STAT_RX_SEQ_ERR] <= 1'b1;
            if (!r_seqnak) begin
              `HCA_WSET(rxs_wm, rxs_wv, `RXS_SEQNAK_O, 1, 1'b1)
              ack_psn <= r_epsn;
              ack_syn <= AETH_NAKB | `HCA_BUG(nak_code, 8'(`HCA_AETH_NAK_PSN_SEQ_ERR), 8'(`HCA_AETH_NAK_INVALID_REQUEST));
              state_q <= RESPST_WAIT_ACK_END;
            end else begin
              done_q <= 1'b1; state_q <= RESPST_IDLE;
            end
          end else begin
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_SEQNAK_O, 1, 1'b0)
            do_op = 1'b1;                      // the opcode checks in this cycle (below)
          end
        default: ;
      endcase
      // the opcode checks (model/resp.c rc_responder after the PSN), in the
      // cycle the PSN is found to be the expected one (RESPST_CHECK_PSN)
      if (do_op) begin
          if (!seq_ok || !len_ok) begin
            rs_code <= 8'(`HCA_AETH_NAK_INVALID_REQUEST);
            state_q <= RESPST_NAK;
          end else if ((ro_write && ro_start && (qp_access & 16'(`HCA_ACCESS_REMOTE_WRITE)) == 0) ||
                       (ro_read && (qp_access & 16'(`HCA_ACCESS_REMOTE_READ)) == 0) ||
                       (ro_atomic && (qp_access & 16'(`HCA_ACCESS_REMOTE_ATOMIC)) == 0)) begin
            rs_code <= 8'(`HCA_AETH_NAK_REMOTE_ACCESS_ERR);
            state_q <= RESPST_NAK;
          end else if (((ro_send && ro_start) || (ro_write && ro_imm)) && !r_rwqe_v)
            state_q <= RESPST_WAIT_RWQE;
          else
            do_len = 1'b1;                     // the length checks in this cycle too (below)
      end
      case (state)
        RESPST_RWQE_RESULT:
          if (rwqe_res == `RQ_NONE) begin
            ack_psn <= p_psn;
            ack_syn <= AETH_RNRB | {3'b0, min_rnr_timer};
            state_q <= RESPST_WAIT_ACK_END;
          end else if (rwqe_res == `RQ_FAILED) begin
            rs_code <= 8'(`HCA_AETH_NAK_REMOTE_OP_ERR);
            if (rq_verr == 8'(`HCA_VENDOR_ERR_BAD_WQE)) begin
              rc_status <= 5'(`HCA_WC_LOC_QP_OP_ERR); rc_verr <= rq_verr; rc_op <= 8'(`HCA_WC_OP_RECV);
              rc_len <= '0; rc_imm <= 1'b0; rc_flags <= '0; rc_src <= '0;
              state_q <= RESPST_WAIT_RCQE_NAK;
            end else
              state_q <= RESPST_NAK;
          end else
            state_q <= RESPST_CHECK_LEN;
        RESPST_CHECK_LEN: do_len = 1'b1;
        default: ;
      endcase
      // the length and alignment checks, the rkey's call: RESPST_CHECK_LEN
      // (after a receive WQE's fetch), else in RESPST_CHECK_PSN's cycle
      if (do_len) begin
          if (ro_send && ({1'b0, r_rwqe_off} + {17'b0, p_pay_len}) > {1'b0, r_rwqe_tot}) begin
            rs_code <= 8'(`HCA_AETH_NAK_INVALID_REQUEST);
            rc_status <= 5'(`HCA_WC_LOC_LEN_ERR); rc_verr <= 8'(`HCA_VENDOR_ERR_LENGTH);
            rc_op <= 8'(`HCA_WC_OP_RECV); rc_len <= '0; rc_imm <= 1'b0; rc_flags <= '0; rc_src <= '0;
            state_q <= RESPST_WAIT_RCQE_NAK;
          end else if (ro_atomic && p_reth_va[2:0] != 3'd0) begin
            rs_code <= 8'(`HCA_AETH_NAK_INVALID_REQUEST);      // atomics are 8-byte aligned
            state_q <= RESPST_NAK;
          end else if ((ro_write && ro_start) || ro_read || ro_atomic) begin
            // the RETH / AtomicETH rkey
            // (rk_now: hca_mr_check called in this cycle already)
            mr_key_q <= p_reth_rkey; mr_pdn_q <= pdn; mr_va_q <= p_reth_va; mr_acc_q <= rk_acc; mr_len_q <= rk_len;
            state_q <= RESPST_WAIT_RKEY;
          end else if (ro_write)
            do_wr = 1'b1;                      // a middle/last packet: its write starts now
          else
            state_q <= RESPST_EXECUTE;
      end
      case (state)
        RESPST_RKEY_RESULT:
          if (mr_verr != 8'h0 && (old_wait || old_flt))
            state_q <= RESPST_CHECK_PSN;       // its NAK after the earlier write's response
          else if (mr_verr != 8'h0) begin
            rs_code <= 8'(`HCA_AETH_NAK_REMOTE_ACCESS_ERR);
            state_q <= RESPST_NAK;
          end else begin
            rs_iova <= mr_iova;
            if (ro_write) begin
              do_wr   = 1'b1;                  // the write starts in the rkey result's cycle
              wr_iova = mr_iova;
            end else
              state_q <= RESPST_EXECUTE;
          end
        RESPST_EXECUTE:
          if (ro_read || ro_atomic) begin
            if (max_dest_rd_atomic == 8'd0) begin
              rs_code <= 8'(`HCA_AETH_NAK_INVALID_REQUEST);    // no responder resources
              state_q <= RESPST_NAK;
            end else begin
              rd_kind <= ro_read ? `RDAT_READ : `RDAT_ATOMIC;
              rd_iova <= rs_iova;
              state_q <= RESPST_WAIT_RDAT;
            end
          end else if (ro_send) begin
            sc_off <= r_rwqe_off; sc_n <= p_pay_len; sc_src <= {8'b0, p_pay_off}; sc_grh <= 1'b0;
            state_q <= RESPST_WAIT_SEND_SCATTER;
          end else
            do_wr = 1'b1;                      // UC: the WRITE payload (RESPST_UC_WRITE)
        default: ;
      endcase
      // RDMA WRITE payload to VA + offset (one DMA write): in RESPST_EXECUTE
      // (UC), else in the cycle the rkey result is known (first/only) or the
      // PSN/opcode/length checks pass (middle/last).  Posted unless a CQE is
      // owed on it (UC, WRITE with immediate); a posted packet is committed
      // now (ePSN, MSN, the message state: a fault is reported at its
      // replay, RESPST_POSTED_FAULT, which undoes this) and its ACK, if
      // AckReq is set, is called while the write is issued (wack: built now,
      // owed, sent when the write's response is back, hca_ack_send); the
      // packet then ends in the cycle of d_w_done (w_end).
      if (do_wr) begin : wr_start
        logic posted;
        posted = !is_uc && !ro_imm;
        if (ro_start) begin
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_WR_LEN_O, 32, p_reth_len)
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_WR_IOVA_O, 64, wr_iova)
        end
        if (posted) begin
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_LEN_O, 32, (ro_start ? 32'h0 : r_msg_len) + {16'b0, p_pay_len})
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_EPSN_O, 24, r_epsn + 24'd1)
          if (ro_end) begin
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSN_O, 24, r_msn + 24'd1)
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_O, 2, `RESP_MSG_NONE)
          end else
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_O, 2, `RESP_MSG_WRITE)
        end else if (ro_start)
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_LEN_O, 32, 32'h0)
        d_w_start <= 1'b1;
        w_posted  <= posted;
        ack_owe   <= posted && p_pay_len != 16'd0;   // a zero-length write has no response to wait for
        wack      <= posted && ack_want;
        ack_psn   <= p_psn; ack_syn <= AETH_ACK;
        d_w_addr  <= (ro_start ? wr_iova : r_wr_iova + {32'b0, r_msg_len});
        d_w_len   <= p_pay_len;
        d_w_off   <= RXA'({r_slot, {(RX_SLOT_AW+LW){1'b0}}}) + RXA'(p_pay_off);
        fa        <= (ro_start ? wr_iova : r_wr_iova + {32'b0, r_msg_len});
        state_q   <= RESPST_WAIT_WRITE_PAYLOAD;
      end
      case (state)
        RESPST_SEND_DONE:
          if (sc_verr != 8'h0) begin
            rs_code <= 8'(`HCA_AETH_NAK_REMOTE_ACCESS_ERR);
            rc_status <= 5'(`HCA_WC_LOC_PROT_ERR); rc_verr <= sc_verr; rc_op <= 8'(`HCA_WC_OP_RECV);
            rc_len <= '0; rc_imm <= 1'b0; rc_flags <= '0; rc_src <= '0;
            state_q <= RESPST_WAIT_RCQE_NAK;
          end else begin
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_EPSN_O, 24, r_epsn + 24'd1)
            if (ro_end) begin
              `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSN_O, 24, r_msn + 24'd1)
              `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_O, 2, `RESP_MSG_NONE)
              rc_status <= '0; rc_verr <= '0; rc_op <= 8'(`HCA_WC_OP_RECV); rc_len <= r_rwqe_off;
              rc_imm <= ro_imm; rc_flags <= '0; rc_src <= '0;
              state_q <= RESPST_WAIT_RCQE_ACK;
            end else begin
              `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_O, 2, `RESP_MSG_SEND)
              state_q <= RESPST_ACK;
            end
          end
        RESPST_WAIT_WRITE_PAYLOAD: if (d_w_done || d_w_took) begin
          if (w_taken) begin
            // posted: committed at the start (w_end: done now), or its ACK
            // call not yet taken (hca_ack_send busy) or done (a zero-length
            // write): that call ends it
            state_q <= (wack && !ack_done && !ack_took) ? RESPST_WAIT_ACK_END : RESPST_IDLE;
          end else if (d_w_err) begin
            s_fault <= 1'b1; s_fault_iova <= fa;
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            if (is_uc) begin
              // UC: the message is dropped
              if (r_rwqe_v && ro_imm) begin
                rc_status <= 5'(`HCA_WC_LOC_PROT_ERR); rc_verr <= 8'(`HCA_VENDOR_ERR_DMA_FAULT);
                rc_op <= 8'(`HCA_WC_OP_RECV_RDMA_WITH_IMM); rc_len <= '0; rc_imm <= 1'b0; rc_flags <= '0;
                rc_src <= '0;
                state_q <= RESPST_WAIT_RCQE_END;
              end else begin
                done_q <= 1'b1; state_q <= RESPST_IDLE;
              end
              `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_O, 2, `RESP_MSG_NONE)
              `HCA_WSET(rxs_wm, rxs_wv, `RXS_RWQE_OFF_O, 32, 32'h0)
              `HCA_WSET(rxs_wm, rxs_wv, `RXS_UCDROP_O, 1, 1'b1)
            end else begin
              rs_code <= 8'(`HCA_AETH_NAK_REMOTE_ACCESS_ERR);
              if (r_rwqe_v && ro_imm) begin
                rc_status <= 5'(`HCA_WC_LOC_PROT_ERR); rc_verr <= 8'(`HCA_VENDOR_ERR_DMA_FAULT);
                rc_op <= 8'(`HCA_WC_OP_RECV_RDMA_WITH_IMM); rc_len <= '0; rc_imm <= 1'b0; rc_flags <= '0;
                rc_src <= '0;
                state_q <= RESPST_WAIT_RCQE_NAK;
              end else
                state_q <= RESPST_NAK;
            end
          end else begin
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_LEN_O, 32, (ro_start ? 32'h0 : r_msg_len) + {16'b0, p_pay_len})
            if (!is_uc) `HCA_WSET(rxs_wm, rxs_wv, `RXS_EPSN_O, 24, r_epsn + 24'd1)
            if (ro_end) begin
              if (!is_uc) `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSN_O, 24, r_msn + 24'd1)
              `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_O, 2, `RESP_MSG_NONE)
              if (ro_imm) begin
                rc_status <= '0; rc_verr <= '0; rc_op <= 8'(`HCA_WC_OP_RECV_RDMA_WITH_IMM);
                rc_len <= ro_start ? p_reth_len : r_wr_len; rc_imm <= 1'b1; rc_flags <= '0; rc_src <= '0;
                state_q <= is_uc ? RESPST_WAIT_RCQE_END : RESPST_WAIT_RCQE_ACK;
              end else if (is_uc || !ack_want) begin
                done_q <= 1'b1; state_q <= RESPST_IDLE;
              end else
                state_q <= RESPST_WAIT_ACK_END;   // RESPST_ACK's call, ack_psn/ack_syn set by RESPST_EXECUTE
            end else begin
              `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_O, 2, `RESP_MSG_WRITE)
              if (is_uc || !ack_want) begin
                done_q <= 1'b1; state_q <= RESPST_IDLE;
              end else
                state_q <= RESPST_WAIT_ACK_END;
            end
          end
        end
        RESPST_ACK:
          if (ack_want) begin
            ack_psn <= p_psn; ack_syn <= AETH_ACK;
            state_q <= RESPST_WAIT_ACK_END;
          end else begin
            done_q <= 1'b1; state_q <= RESPST_IDLE;
          end
        // a READ/atomic fault: its NAK at the PSN hca_read_atomic returns
        RESPST_RDAT_RESULT:
          if (rd_nak != 8'h0) begin
            rs_code <= rd_nak;
            ack_psn <= rd_nak_psn; ack_syn <= AETH_NAKB | rd_nak;
            state_q <= RESPST_WAIT_NAK_SENT;
          end else begin
            done_q <= 1'b1; state_q <= RESPST_IDLE;
          end
        // the replayed packet's posted write faulted: as RESPST_WAIT_WRITE_PAYLOAD
        // would have, with the packet's commit undone
        RESPST_POSTED_FAULT: begin
          // its address from the committed RXS (fa may be a later packet's:
          // an early item of another QP): VA + message length before it
          s_fault <= 1'b1; s_fault_iova <= r_wr_iova + {32'b0, r_msg_len - {16'b0, p_pay_len}};
          s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_EPSN_O, 24, p_psn)
          if (ro_end) `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSN_O, 24, r_msn - 24'd1)
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_LEN_O, 32, r_msg_len - {16'b0, p_pay_len})
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_O, 2, ro_start ? `RESP_MSG_NONE : `RESP_MSG_WRITE)
          rs_code <= 8'(`HCA_AETH_NAK_REMOTE_ACCESS_ERR);
          state_q <= RESPST_NAK;
        end
        // NAK invalid request / remote access / remote operational: QP to ERR
        RESPST_NAK: begin
          ack_psn <= p_psn; ack_syn <= AETH_NAKB | rs_code;
          state_q <= RESPST_WAIT_NAK_SENT;
        end
        RESPST_NAK_QP_ERR: begin
          qe_has <= 1'b1;
          qe_evt <= (rs_code == 8'(`HCA_AETH_NAK_INVALID_REQUEST)) ? 8'(`HCA_EVENT_QP_REQ_ERR) :
                    (rs_code == 8'(`HCA_AETH_NAK_REMOTE_ACCESS_ERR)) ? 8'(`HCA_EVENT_QP_ACCESS_ERR) :
                    8'(`HCA_EVENT_QP_FATAL);
          state_q <= RESPST_WAIT_QP_ERR_END;
        end

        // ---------------------------------------------------------- UC (model/resp.c uc_responder)
        RESPST_UC_CHECK_PSN: begin : uc_psn
          logic abort, drop;
          abort = 1'b0;
          drop  = 1'b0;
          if (psn_lt(p_psn, r_epsn))
            drop = 1'b1;                                   // duplicate
          else begin
            if (p_psn != r_epsn && r_msg != `RESP_MSG_NONE) abort = 1'b1;   // PSN gap
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_EPSN_O, 24, p_psn + 24'd1)
            if (ro_start) begin
              if (r_msg != `RESP_MSG_NONE) abort = 1'b1;
            end else if (abort || r_ucdrop || r_msg == `RESP_MSG_NONE || ((r_msg == `RESP_MSG_SEND) != ro_send)) begin
              // a gap just aborted the message (uc_drop set): the middle/last is dropped too
              abort = 1'b1;
              drop  = 1'b1;
            end
          end
          if (abort) begin
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_O, 2, `RESP_MSG_NONE)
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_RWQE_OFF_O, 32, 32'h0)
          end
          if (drop) begin
            if (abort) `HCA_WSET(rxs_wm, rxs_wv, `RXS_UCDROP_O, 1, 1'b1)
            done_q <= 1'b1; state_q <= RESPST_IDLE;
          end else begin
            if (ro_start) `HCA_WSET(rxs_wm, rxs_wv, `RXS_UCDROP_O, 1, 1'b0)
            else if (abort) `HCA_WSET(rxs_wm, rxs_wv, `RXS_UCDROP_O, 1, 1'b1)
            state_q <= RESPST_UC_CHECK_OP;
          end
        end
        RESPST_UC_CHECK_OP:
          // the RXS fields reflect RESPST_UC_CHECK_PSN's updates here
          if (!len_ok || (ro_write && ro_start && (qp_access & 16'(`HCA_ACCESS_REMOTE_WRITE)) == 0)) begin
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_O, 2, `RESP_MSG_NONE)
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_RWQE_OFF_O, 32, 32'h0)
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_UCDROP_O, 1, 1'b1)
            done_q <= 1'b1; state_q <= RESPST_IDLE;
          end else if (((ro_send && ro_start) || (ro_write && ro_imm)) && !r_rwqe_v)
            state_q <= RESPST_UC_WAIT_RWQE;
          else
            state_q <= RESPST_UC_RWQE_RESULT;
        RESPST_UC_RWQE_RESULT:
          if (rwqe_res == `RQ_NONE) begin
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_O, 2, `RESP_MSG_NONE)
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_RWQE_OFF_O, 32, 32'h0)
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_UCDROP_O, 1, 1'b1)
            done_q <= 1'b1; state_q <= RESPST_IDLE;
          end else if (rwqe_res == `RQ_FAILED) begin
            if (rq_verr == 8'(`HCA_VENDOR_ERR_BAD_WQE)) begin
              `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_O, 2, `RESP_MSG_NONE)
              `HCA_WSET(rxs_wm, rxs_wv, `RXS_RWQE_OFF_O, 32, 32'h0)
              `HCA_WSET(rxs_wm, rxs_wv, `RXS_UCDROP_O, 1, 1'b1)
              rc_status <= 5'(`HCA_WC_LOC_QP_OP_ERR); rc_verr <= rq_verr; rc_op <= 8'(`HCA_WC_OP_RECV);
              rc_len <= '0; rc_imm <= 1'b0; rc_flags <= '0; rc_src <= '0;
              state_q <= RESPST_WAIT_RCQE_END;
            end else begin
              qe_has <= 1'b1; qe_evt <= 8'(`HCA_EVENT_QP_FATAL);
              state_q <= RESPST_WAIT_QP_ERR_END;
            end
          end else if (ro_send) begin
            if (({1'b0, r_rwqe_off} + {17'b0, p_pay_len}) > {1'b0, r_rwqe_tot}) begin
              `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_O, 2, `RESP_MSG_NONE)
              `HCA_WSET(rxs_wm, rxs_wv, `RXS_RWQE_OFF_O, 32, 32'h0)
              `HCA_WSET(rxs_wm, rxs_wv, `RXS_UCDROP_O, 1, 1'b1)
              rc_status <= 5'(`HCA_WC_LOC_LEN_ERR); rc_verr <= 8'(`HCA_VENDOR_ERR_LENGTH);
              rc_op <= 8'(`HCA_WC_OP_RECV); rc_len <= '0; rc_imm <= 1'b0; rc_flags <= '0; rc_src <= '0;
              state_q <= RESPST_WAIT_RCQE_END;
            end else begin
              sc_off <= r_rwqe_off; sc_n <= p_pay_len; sc_src <= {8'b0, p_pay_off}; sc_grh <= 1'b0;
              state_q <= RESPST_UC_WAIT_SCATTER;
            end
          end else if (ro_start) begin
            mr_key_q <= p_reth_rkey; mr_pdn_q <= pdn; mr_acc_q <= 16'(`HCA_ACCESS_REMOTE_WRITE);
            mr_va_q  <= p_reth_va; mr_len_q <= {32'b0, p_reth_len};
            state_q <= RESPST_UC_WAIT_RKEY;
          end else
            state_q <= RESPST_UC_WRITE;
        RESPST_UC_SEND_DONE:
          if (sc_verr != 8'h0) begin
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_O, 2, `RESP_MSG_NONE)
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_UCDROP_O, 1, 1'b1)
            rc_status <= 5'(`HCA_WC_LOC_PROT_ERR); rc_verr <= sc_verr; rc_op <= 8'(`HCA_WC_OP_RECV);
            rc_len <= '0; rc_imm <= 1'b0; rc_flags <= '0; rc_src <= '0;
            state_q <= RESPST_WAIT_RCQE_UC_CLEAR;
          end else if (ro_end) begin
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_O, 2, `RESP_MSG_NONE)
            rc_status <= '0; rc_verr <= '0; rc_op <= 8'(`HCA_WC_OP_RECV); rc_len <= r_rwqe_off;
            rc_imm <= ro_imm; rc_flags <= '0; rc_src <= '0;
            state_q <= RESPST_WAIT_RCQE_END;
          end else begin
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_O, 2, `RESP_MSG_SEND)
            done_q <= 1'b1; state_q <= RESPST_IDLE;
          end
        RESPST_UC_CLEAR_OFF: begin
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_RWQE_OFF_O, 32, 32'h0)
          done_q <= 1'b1; state_q <= RESPST_IDLE;
        end
        RESPST_UC_RKEY_RESULT:
          if (mr_verr != 8'h0) begin
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSG_O, 2, `RESP_MSG_NONE)
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_RWQE_OFF_O, 32, 32'h0)
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_UCDROP_O, 1, 1'b1)
            done_q <= 1'b1; state_q <= RESPST_IDLE;
          end else begin
            rs_iova <= mr_iova;
            state_q <= RESPST_UC_WRITE;
          end
        RESPST_UC_WRITE: state_q <= RESPST_EXECUTE;   // the WRITE payload path is shared with RC

        // ---------------------------------------------------------- UD (model/resp.c ud_responder)
        RESPST_UD_CHECK:
          if ({16'b0, p_pay_len} > pmtu) begin
            done_q <= 1'b1; state_q <= RESPST_IDLE;
          end else if (!r_rwqe_v)
            state_q <= RESPST_UD_WAIT_RWQE;
          else
            state_q <= RESPST_UD_RWQE_RESULT;
        RESPST_UD_RWQE_RESULT: begin
          rc_imm <= 1'b0; rc_flags <= '0; rc_src <= '0; rc_len <= '0; rc_op <= 8'(`HCA_WC_OP_RECV);
          if (rwqe_res == `RQ_NONE) begin
            done_q <= 1'b1; state_q <= RESPST_IDLE;
          end else if (rwqe_res == `RQ_FAILED) begin
            if (rq_verr == 8'(`HCA_VENDOR_ERR_BAD_WQE)) begin
              rc_status <= 5'(`HCA_WC_LOC_QP_OP_ERR); rc_verr <= rq_verr;
              state_q <= RESPST_WAIT_RCQE_END;
            end else begin
              qe_has <= 1'b1; qe_evt <= 8'(`HCA_EVENT_QP_FATAL);
              state_q <= RESPST_WAIT_QP_ERR_END;
            end
          end else if (33'(`HCA_GRH_SIZE) + {17'b0, p_pay_len} > {1'b0, r_rwqe_tot}) begin
            rc_status <= 5'(`HCA_WC_LOC_LEN_ERR); rc_verr <= 8'(`HCA_VENDOR_ERR_LENGTH);
            state_q <= RESPST_WAIT_RCQE_END;
          end else begin
            sc_off <= r_rwqe_off; sc_n <= 16'(`HCA_GRH_SIZE); sc_src <= '0; sc_grh <= 1'b1;
            state_q <= RESPST_UD_WAIT_GRH;
          end
        end
        RESPST_UD_GRH_DONE:
          if (sc_verr != 8'h0) begin
            rc_status <= 5'(`HCA_WC_LOC_PROT_ERR); rc_verr <= sc_verr;
            state_q <= RESPST_WAIT_RCQE_END;
          end else begin
            sc_off <= r_rwqe_off; sc_n <= p_pay_len; sc_src <= {8'b0, p_pay_off}; sc_grh <= 1'b0;
            state_q <= RESPST_UD_WAIT_SCATTER;
          end
        RESPST_UD_DONE: begin
          if (sc_verr != 8'h0) begin
            rc_status <= 5'(`HCA_WC_LOC_PROT_ERR); rc_verr <= sc_verr;
          end else begin
            rc_status <= '0; rc_verr <= '0; rc_len <= r_rwqe_off; rc_imm <= ro_imm;
            rc_flags <= 8'(`HCA_WC_FLAG_GRH); rc_src <= {8'b0, p_deth_sqp};
          end
          state_q <= RESPST_WAIT_RCQE_END;
        end
        default: ;
      endcase
    end
  end
endmodule
