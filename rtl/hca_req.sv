`include "hca_defs.vh"

// Requester: one step of a busy QP (model/req.c model_requester).
//
// Job (docs/rtl.md "Handshakes"): `req` held until `done`, the QP's words
// loaded by hca_dispatch.  REQST_CHECK_STATE: a QP in ERR/SQE is flushed
// (hca_qp_flush), one not in RTS/SQD does nothing; else a WQE that failed
// locally retires first (hca_comp_retire), an SQD drain that has finished
// ends (SQ_DRAINED), and then, REQST_CURSOR:
//   * the cursor WQE (TX_WQE, started but not fully sent) sends one packet:
//     REQST_READ_OUTS/REQST_CHECK_OUTS read its outstanding-table entry (a
//     failed WQE blocks the cursor until it retires), REQST_REFETCH_WQE
//     fetches the WQE again if fetch buffer 0 holds another one (and
//     REQST_PKT_LKEY rechecks its lkeys), REQST_BUILD_HDR computes the PSN,
//     opcode and header fields (hca_req_hdr; the RC window of
//     HCA_WIRE_MAX_UNACKED_PSNS may close it; an RDMA READ is one request
//     packet for its PSN range, from the first response not yet received
//     (RCVD, when it is the WQE at SQ_CI: a resend from a PSN inside a READ
//     asks for the rest), an atomic one packet with its AtomicETH),
//     REQST_WAIT_TX waits for a free transmit slot (hca_tx_slots),
//     REQST_GATHER queues the payload pieces into it (hca_req_gather,
//     hca_dma_rd: SGE gather or inline data), REQST_WAIT_PAYLOAD commits the
//     slot (`go`, through hca_tx_hdr) once the payload is in it; the frame
//     goes out behind the slots committed before it while the next step
//     runs; a UC/UD WQE completes with its last packet (hca_complete_send);
//   * or the WQE at SQ_HEAD starts: REQST_FETCH_WQE/REQST_WAIT_WQE fetch it
//     (a fault: QP to ERR with QP_FATAL), or take it from the prefetch
//     (hca_wqe_prefetch, once its read is done: its fault reported here; the
//     read may have come from the doorbell, hca_db_wqe_read), and read the
//     next posted WQE ahead; while other QPs' work waits (yield) and request
//     packets are short, the WQE is read into a prefetch entry and the step
//     gives way: it ends without the busy bit, the read's completion wakes
//     the QP, its next step takes the WQE (yq_v); REQST_VALIDATE_WQE checks
//     it (model/req.c parse_wqe: opcode, index, SGE count, inline size, an
//     atomic's single 8-byte aligned SGE, message size, UD payload within
//     the PMTU; a fetched WQE in the fetch's done cycle), REQST_CHECK_LKEY
//     checks every SGE's lkey (hca_mr_check; LOCAL_WRITE for READ/atomics;
//     SGE 0 of a one-SGE SEND/WRITE taken from the prefetch: its result
//     checked ahead, hca_wqe_lkey_ahead, used by REQST_VALIDATE_WQE in its
//     own cycle, hca_req_lkey_ahead;
//     a SEND/WRITE with one SGE issues its first packet's payload read with
//     the check's result: hca_req_pay_early), REQST_GATE waits for the
//     window, the fence and max_rd_atomic (RD_OUT), then reserves its PSNs
//     in the outstanding table (a READ one per response packet, an atomic
//     one); a WQE that fails is recorded failed (REQST_WQE_ERR), retires.
// REQST_END keeps the QP busy if the step made progress.  hca_req_next
// names the states done in the cycle before them (a 64 B WRITE's step:
// REQST_CHECK_STATE taking its WQE, REQST_VALIDATE_WQE + REQST_LKEY_RESULT
// (the key checked ahead) + REQST_GATE + REQST_BUILD_HDR + REQST_WAIT_TX +
// REQST_WAIT_PAYLOAD + REQST_END, v_commit; without a result checked ahead,
// REQST_VALIDATE_WQE asks hca_mr_check and REQST_LKEY_RESULT does the
// rest).  Fetch buffer 0 is
// a cache across items (tw_v/tw_qn/tw_idx/tw_gen, with the translated SGE
// addresses in tx_iova_r); this module is their only writer.
// Planted-bug hooks hdr_se, udp_sport: in hca_req_hdr (REQST_BUILD_HDR).
// Caller: hca_dispatch.  Calls: hca_qp_flush, hca_comp_retire, hca_mr_check,
// hca_qp_err, hca_complete_send.  Retransmission: hca_comp_retry moves the
// cursor (TX_WQE, TX_PKT) back; REQST_BUILD_HDR resends from there (a
// SEND/WRITE from UNA at the earliest, a READ from RCVD); nothing is sent
// while an RNR wait runs (TXS_TMR, REQST_CURSOR); the first packet sent
// with no timer running starts the ACK timer.
module hca_req #(
    parameter int LOG_MAX_QP = 8,
    parameter int LOG_OUTS   = 5,
    parameter int FB_BYTES   = 320,
    parameter int YIELD_PLEN = 32,       // give way only after request packets of at most this many bytes
    localparam int OUTS = 1 << LOG_OUTS
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        req,
    output logic        done,
    input  logic        yield,           // hca_dispatch: other work waits (REQST_FETCH_WQE gives way)
    output logic        step_end,        // the item's last cycle (hca_ctx interlock)
    output logic        dbg_act,
    output logic [7:0]  dbg_st,
    input  logic        port_up,
    input  logic [47:0] port_mac,
    // the item (hca_dispatch, hca_qpc_view)
    input  logic [LOG_MAX_QP-1:0] qn,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [`TXS_W-1:0] txs,
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [2:0]  qp_st,
    input  logic [15:0] qpc_gen,
    input  logic [7:0]  qp_type,
    input  logic        is_rc,
    input  logic        is_ud,
    input  logic [7:0]  qp_flags,
    input  logic [31:0] pdn,
    input  logic [31:0] qkey,
    input  logic [3:0]  log_sq_stride,
    input  logic [4:0]  log_sq_size,
    input  logic [11:0] pmtu_log,
    input  logic [31:0] pmtu,
    input  logic [63:0] sq_base,
    input  logic [47:0] dmac,
    input  logic [31:0] dip,
    input  logic [7:0]  hop_limit,
    input  logic [7:0]  tclass,
    input  logic [23:0] dest_qpn,
    input  logic [7:0]  sgid_index,
    input  logic [7:0]  max_rd_atomic,
    input  logic [15:0] e_qp_sq_pi,
    input  logic [4:0]  timeout,
    output logic [`TXS_W-1:0] txs_wm,
    output logic [`TXS_W-1:0] txs_wv,
    // hca_timers: the ACK timer starts with an RC packet sent while none runs
    output logic        tm_set,
    output logic [1:0]  tm_kind,
    // hca_ctx, hca_regs
    output logic        s_busy_set,
    output logic [3:0]  e_gid_idx,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [127:0] e_gid,          // the IPv4 address: last 4 bytes
    /* verilator lint_on UNUSEDSIGNAL */
    output logic [`HCA_STAT_COUNT-1:0] s_stat,
    output logic        s_evt,
    output logic [7:0]  s_evt_type,
    output logic [31:0] s_evt_elem,
    output logic        s_fault,
    output logic [7:0]  s_fault_client,
    output logic        s_fault_wr,
    output logic [63:0] s_fault_iova,
    // outstanding table
    output logic        ow_re,
    output logic [LOG_MAX_QP+LOG_OUTS-1:0] ow_raddr,
    input  logic [`OW_W-1:0] ow_rdata,
    output logic        ow_we,
    output logic [LOG_MAX_QP+LOG_OUTS-1:0] ow_waddr,
    output logic [`OW_W-1:0] ow_wdata,
    // hca_dma_rd: send WQE fetch into fetch buffer 0, payload gather
    output logic        d_f_start,
    output logic [63:0] d_f_addr,
    output logic [15:0] d_f_len,
    input  logic        d_f_done,
    input  logic        d_f_err,
    // hca_wqe_prefetch: the WQE after the one starting, read ahead
    output logic        wp_issue, wp_now, wp_inv,
    output logic        wp_take,         // combinational: pb into fetch buffer 0 in this cycle
    output logic [LOG_MAX_QP+31:0] wp_ikey, wp_qkey,
    output logic [63:0] wp_addr,
    output logic [15:0] wp_len,
    input  logic        wp_free, wp_free_now, wp_hit, wp_ready, wp_err,
    // hca_wqe_lkey_ahead: the taken entry's SGE 0 lkey checked ahead
    input  logic        lk_v, lk_pdm,
    input  logic [7:0]  lk_verr,
    input  logic [31:0] lk_mpdn,
    input  logic [63:0] lk_iova,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [FB_BYTES*8-1:0] fb,    // header, SGEs or inline data
    input  logic        d_g_full,
    /* verilator lint_on UNUSEDSIGNAL */
    output logic        d_g_push,
    output logic [63:0] d_g_iova,
    output logic [15:0] d_g_len,
    output logic [15:0] d_g_dst,
    output logic [4:0]  d_g_idx,
    output logic        d_g_close,
    input  logic        d_g_done,
    input  logic        d_g_fault,
    input  logic [63:0] d_g_fault_iova,
    output logic        d_l_start,
    output logic [15:0] d_l_src,
    output logic [15:0] d_l_len,
    output logic [15:0] d_l_dst,
    // hca_tx_hdr: the request packet's header
    input  logic        tx_free,
    input  logic        tx_async_ok,     // a slot may be committed before its payload arrives
    input  logic        tx_q_busy,       // this QP has such packets in flight
    input  logic        pf_hit,          // one of them faulted (hca_tx_faults): record it
    input  logic        pf_orph,         // ... before firmware reset the QP: report it only
    input  logic [15:0] pf_wqe,
    input  logic [23:0] pf_k,
    input  logic [63:0] pf_iova,
    output logic        pf_clr,
    output logic        async,           // with go: committed ahead of its payload
    output logic [15:0] tag_wqe,         // with go: the packet (WQE, packet index)
    output logic [23:0] tag_k,
    output logic [LOG_MAX_QP-1:0] tag_qn, // with go: the step's QP (qn may be the next item's by then)
    input  logic [7:0]  hdr_len,
    output logic        go,              // commit the transmit slot (with drop: no frame)
    output logic        drop,
    output logic [7:0]  h_opcode,
    output logic        h_se,
    output logic        h_ackreq,
    output logic [23:0] h_psn,
    output logic [23:0] h_dqpn,
    output logic [15:0] h_pay_len,
    output logic [47:0] h_dmac,
    output logic [47:0] h_smac,
    output logic [7:0]  h_tclass,
    output logic [7:0]  h_hop,
    output logic [31:0] h_sip,
    output logic [31:0] h_dip,
    output logic [15:0] h_sport,
    output logic [63:0] h_va,
    output logic [31:0] h_rkey,
    output logic [31:0] h_rlen,
    output logic [31:0] h_imm,
    output logic [31:0] h_qkey,
    output logic [23:0] h_deth_sqp,
    output logic [63:0] h_swap_add,
    output logic [63:0] h_compare,
    // hca_qp_flush
    output logic        fl_req,
    input  logic        fl_done,
    input  logic        fl_did,
    // hca_comp_retire
    output logic        rt_req,
    input  logic        rt_done,
    input  logic        rt_hit,
    // hca_mr_check
    output logic        mr_req,
    output logic [31:0] mr_key,
    output logic [31:0] mr_pdn,
    output logic [15:0] mr_acc,
    output logic [63:0] mr_va,
    output logic [63:0] mr_len,
    input  logic        mr_done,
    input  logic [7:0]  mr_verr,
    input  logic [63:0] mr_iova,
    // hca_qp_err
    output logic        qe_req,
    output logic        qe_has,
    output logic [7:0]  qe_evt,
    input  logic        qe_done,
    // hca_complete_send
    output logic        sc_req,
    output logic [`OW_W-1:0] sc_ow,
    output logic [4:0]  sc_status,
    output logic [7:0]  sc_verr,
    output logic        sc_force,
    input  logic        sc_done
);
  `include "hca_funcs.vh"
  localparam logic [2:0] QPS_RTS = 3'(`HCA_QPS_RTS), QPS_SQD = 3'(`HCA_QPS_SQD), QPS_SQE = 3'(`HCA_QPS_SQE),
                         QPS_ERR = 3'(`HCA_QPS_ERR);

  typedef enum logic [5:0] {
    REQST_IDLE, REQST_CHECK_STATE, REQST_WAIT_FLUSH, REQST_WAIT_RETIRE, REQST_DRAIN, REQST_CURSOR,
    // start the WQE at SQ_HEAD (model/req.c start_wqe)
    REQST_FETCH_WQE, REQST_WAIT_WQE, REQST_WAIT_QP_ERR, REQST_VALIDATE_WQE, REQST_CHECK_LKEY,
    REQST_WAIT_LKEY, REQST_LKEY_RESULT, REQST_WQE_ERR, REQST_WAIT_RETIRE_ERR, REQST_WQE_ERR_DONE,
    REQST_GATE, REQST_WAIT_OUTS_WRITE,
    // one packet of the cursor WQE (model/req.c send_packet)
    REQST_READ_OUTS, REQST_CHECK_OUTS, REQST_REFETCH_WQE, REQST_PKT_LKEY, REQST_WAIT_PKT_LKEY,
    REQST_PKT_LKEY_RESULT, REQST_WQE_FAIL, REQST_BUILD_HDR, REQST_WAIT_TX, REQST_GATHER, REQST_WAIT_PAYLOAD,
    REQST_WAIT_SEND_DONE, REQST_UC_UD_SENT,
    REQST_END,
    // a packet committed ahead of its payload faulted
    REQST_ASYNC_FAULT, REQST_FAULT_READ_OUTS, REQST_FAULT_OUTS
  } st_t;
  st_t state_q, state;
  always_comb begin
    state = state_q;
    case (state_q)
      REQST_IDLE:            if (req) state = REQST_CHECK_STATE;
      REQST_WAIT_FLUSH:      if (fl_done) state = REQST_END;
      REQST_WAIT_RETIRE:     if (rt_done) state = REQST_DRAIN;
      REQST_WAIT_QP_ERR:     if (qe_done) state = REQST_END;
      REQST_WAIT_WQE:        if (d_f_done && !d_f_err) state = REQST_VALIDATE_WQE;   // fb holds it now
      REQST_WAIT_LKEY:       if (mr_done) state = REQST_LKEY_RESULT;
      REQST_WAIT_RETIRE_ERR: if (rt_done) state = REQST_WQE_ERR_DONE;
      REQST_WAIT_PKT_LKEY:   if (mr_done) state = REQST_PKT_LKEY_RESULT;
      REQST_WAIT_SEND_DONE:  if (sc_done) state = REQST_UC_UD_SENT;
      default: ;
    endcase
  end
  assign fl_req   = state == REQST_WAIT_FLUSH;
  assign rt_req   = state == REQST_WAIT_RETIRE || state == REQST_WAIT_RETIRE_ERR;
  assign qe_req   = state == REQST_WAIT_QP_ERR;
  assign qe_has   = 1'b1;
  assign qe_evt   = 8'(`HCA_EVENT_QP_FATAL);
  // a key check is asked for where it is prepared (REQST_VALIDATE_WQE: SGE
  // 0's, with the validation, when the WQE passes it; REQST_CHECK_LKEY,
  // REQST_PKT_LKEY) and held until its done (REQST_WAIT_*LKEY)
  assign mr_req   = state == REQST_WAIT_LKEY || state == REQST_WAIT_PKT_LKEY || state == REQST_CHECK_LKEY ||
                    state == REQST_PKT_LKEY || (state == REQST_VALIDATE_WQE && v_lkey && !lk_use);
  assign sc_req   = state == REQST_WAIT_SEND_DONE;
  assign step_end = state == REQST_END || pay_end;   // (pay_end: below)
  assign tm_kind  = `TMR_ACK;
  assign dbg_act  = state != REQST_IDLE && !fl_req && !rt_req && !qe_req && !mr_req && !sc_req;
  assign dbg_st   = 8'(state);

  // requester state fields (TXS)
  logic [15:0] t_sq_ci, t_sq_head, t_tx_wqe;
  logic [23:0] t_tx_pkt, t_psn_next, t_una, t_rcvd;
  logic [4:0]  t_rd_out;
  assign t_sq_ci    = txs[`TXS_SQ_CI_O +: 16];
  assign t_sq_head  = txs[`TXS_SQ_HEAD_O +: 16];
  assign t_tx_wqe   = txs[`TXS_TX_WQE_O +: 16];
  assign t_tx_pkt   = txs[`TXS_TX_PKT_O +: 24];
  assign t_psn_next = txs[`TXS_PSN_NEXT_O +: 24];
  assign t_una      = txs[`TXS_UNA_O +: 24];
  assign t_rd_out   = txs[`TXS_RD_OUT_O +: 5];
  assign t_rcvd     = txs[`TXS_RCVD_O +: 24];

  // registers
  logic        did;                  // the step made progress
  logic [`OW_W-1:0] ow;              // the WQE's outstanding-table entry
  logic [4:0]  cs_status;            // a failed WQE's completion
  logic [7:0]  cs_verr;
  logic [63:0] fa;                   // address of the last fetch (fault report)
  logic [23:0] pk_k;                 // packet
  logic [31:0] pk_off;
  logic [15:0] pk_plen;
  logic        pk_last, pk_async;
  logic [4:0]  sk_i;                 // lkey check loop
  // send WQE cache (fetch buffer 0); valid only while no QPC was written
  // since it was filled (qpc_gen: a QP reset and reused must not hit it)
  logic        tw_v;
  logic [LOG_MAX_QP-1:0] tw_qn;
  logic [15:0] tw_idx, tw_gen;
  logic        yq_v;                 // the last step gave way in REQST_FETCH_WQE, on QP yq_qn
  logic [LOG_MAX_QP-1:0] yq_qn;
  // Give the engine to waiting work while a WQE read is in flight only when
  // request packets are short (the last one built: at most YIELD_PLEN bytes,
  // hca_transport: 4 beats): there the engine, not the line, bounds the rate.
  logic        give_way;
  assign give_way = yield && pk_plen <= 16'(YIELD_PLEN);
  assign wp_qkey = {qn, t_sq_head, qpc_gen};

  assign sc_ow    = ow;
  assign ow_re    = state == REQST_READ_OUTS || state == REQST_FAULT_READ_OUTS;
  assign ow_raddr = {qn, (state == REQST_FAULT_READ_OUTS) ? pf_wqe[LOG_OUTS-1:0] : t_tx_wqe[LOG_OUTS-1:0]};
  assign pf_clr   = state == REQST_ASYNC_FAULT;

  // send WQE (fetch buffer 0)
  logic [2:0]  w_op;                 // (WR opcodes fit in 3 bits: hca_wqe_check checks the byte)
  logic [7:0]  w_flags, w_nsge;
  assign w_op     = fb[8*`HCA_WQE_CTRL_SEG_OPCODE_OFF +: 3];
  assign w_flags  = fb[8*`HCA_WQE_CTRL_SEG_SEND_FLAGS_OFF +: 8];
  assign w_nsge   = fb[8*`HCA_WQE_CTRL_SEG_NUM_SGE_OFF +: 8];

  // A WQE's first read is min(stride, 80) bytes (wqe_len1); one that reaches
  // beyond it (need_rest, hca_wqe_check) is read again whole (f_long) before
  // it is used: REQST_VALIDATE_WQE, REQST_REFETCH_WQE.
  logic [15:0] wqe_len1;
  logic        f_long;               // fetch buffer 0 was filled by a whole-slot read
  logic        need_rest;
  // SGE fields at the walks' indices, the translated addresses (hca_req_sge)
  logic [31:0] sk_len, sk_key, gw_len;
  logic [63:0] sk_addr, tx_iova_gw;
  hca_req_sge #(.FB_BYTES(FB_BYTES)) u_sge (
      .clk(clk), .fb(fb), .sk_i(sk_i), .gw_i(gw_i),
      .we(ce && (lk_res || state == REQST_PKT_LKEY_RESULT) && k_verr == 8'h0),
      .iova(k_iova), .sk_len(sk_len), .sk_key(sk_key), .sk_addr(sk_addr), .gw_len(gw_len), .gw_iova(tx_iova_gw));

  // Validation of a fetched send WQE (model/req.c parse_wqe: hca_wqe_check).
  logic        v_rdat, v_atomic, v_inline, v_bad, v_toolong, v_udlong, v_lkey;
  logic [31:0] v_total;
  hca_wqe_check #(.FB_BYTES(FB_BYTES)) u_wchk (
      .fb(fb), .sq_head(t_sq_head), .log_sq_stride(log_sq_stride), .is_rc(is_rc), .is_ud(is_ud), .pmtu(pmtu),
      .v_rdat(v_rdat), .v_atomic(v_atomic), .v_inline(v_inline), .v_bad(v_bad), .v_toolong(v_toolong),
      .v_udlong(v_udlong), .v_len(v_total), .f_long(f_long), .len1(wqe_len1), .need_rest(need_rest));
  assign v_lkey = !need_rest && !v_bad && !v_toolong && !v_udlong && !v_inline && w_nsge != 8'd0;   // SGE 0's key check next
  // The validated WQE's outstanding-table entry (REQST_VALIDATE_WQE's ow)
  logic [`OW_W-1:0] ow_new, ow_g;
  always_comb begin
    ow_new = '0;
    ow_new[`OW_OP_O +: 3]    = w_op[2:0];
    ow_new[`OW_FLAGS_O +: 4] = w_flags[3:0];
    ow_new[`OW_LEN_O +: 32]  = v_total;
  end
  // SGE 0's key check done ahead (hca_wqe_lkey_ahead): REQST_VALIDATE_WQE
  // does REQST_LKEY_RESULT's work (lk_use; lk_res: either), on the result
  // k_verr/k_iova (else hca_mr_check's); ow_g: the entry as REQST_GATE sees it
  logic lk_use, lk_res;
  logic [7:0]  k_verr;
  logic [63:0] k_iova;
  hca_req_lkey_ahead u_lka (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .took_now(wp_take && !wp_err),
      .st_validate(state == REQST_VALIDATE_WQE), .st_result(state == REQST_LKEY_RESULT), .v_lkey(v_lkey),
      .v_rdat(v_rdat), .pdn(pdn), .lk_v(lk_v), .lk_pdm(lk_pdm), .lk_verr(lk_verr), .lk_mpdn(lk_mpdn),
      .lk_iova(lk_iova), .mr_verr(mr_verr), .mr_iova(mr_iova), .use_now(lk_use), .at_res(lk_res),
      .verr(k_verr), .iova(k_iova));
  assign ow_g = lk_use ? ow_new : ow;
  // REQST_GATE's start: the WQE's PSNs (packets of a SEND/WRITE, response
  // packets of a READ, 1 for an atomic) from PSN_NEXT on, its entry ow_s
  /* verilator lint_off UNUSEDSIGNAL */
  logic [31:0] g_n;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [`OW_W-1:0] ow_s;
  assign g_n  = (ow_g[`OW_LEN_O +: 32] == 32'h0 || v_atomic) ? 32'd1 :
                ((ow_g[`OW_LEN_O +: 32] + pmtu - 32'd1) >> pmtu_log);
  assign ow_s = ow_g | (`OW_W'(t_psn_next) << `OW_FPSN_O) | (`OW_W'(g_n[23:0]) << `OW_NPSN_O);

  // The cursor WQE's next packet (hca_req_pkt, in u_hdr), its header
  // fields registered by u_hdr in REQST_BUILD_HDR (hca_req_hdr, below).
  logic        p_closed, p_closed_next, p_last;
  logic [23:0] p_k;
  logic [31:0] p_off;
  logic [15:0] p_plen;
  logic [7:0]  p_hlen0;              // the header length of the WQE's first packet

  // hca_mr_check's arguments: SGE sk_i's (sk_i and fetch buffer 0 do not
  // change while a check runs; hca_mr_check registers them with the request)
  assign mr_key = sk_key;
  assign mr_pdn = pdn;
  assign mr_acc = v_rdat ? 16'(`HCA_ACCESS_LOCAL_WRITE) : 16'h0;
  assign mr_va  = sk_addr;
  assign mr_len = {32'b0, sk_len};

  // REQST_GATE holds the WQE back: the fence, max_rd_atomic, a READ/atomic
  // behind read-ahead packets, the RC window at PSN_NEXT (the same in
  // REQST_LKEY_RESULT for a SEND/WRITE: nothing the step does changes it)
  logic gate_hold;
  assign gate_hold = ((w_flags & 8'(`HCA_SEND_FENCE)) != 0 && t_rd_out != 5'd0) ||
                     (v_rdat && {3'b0, t_rd_out} >= ((max_rd_atomic == 8'd0) ? 8'd1 : max_rd_atomic)) ||
                     (v_rdat && tx_q_busy) ||      // a READ/atomic starts behind no read-ahead packet
                     p_closed_next;

  // A prefetched WQE is taken in REQST_FETCH_WQE's cycle (its read done):
  // fetch buffer 0 is loaded by the next cycle, REQST_VALIDATE_WQE.
  logic tw_hit;                      // fetch buffer 0 holds the WQE at SQ_HEAD (validated before)
  logic take_early;                  // REQST_CHECK_STATE takes the prefetched WQE (below)
  assign tw_hit  = tw_v && tw_gen == qpc_gen && tw_qn == qn && tw_idx == t_sq_head;
  assign wp_take = (state == REQST_FETCH_WQE || take_early) && !tw_hit && wp_hit && wp_ready;

  // SQ_HEAD's WQE address; a WQE read's fault (a taken prefetch's, a fetch's
  // or a refetch's), reported in one place
  logic [63:0] head_addr;
  logic        wqe_fault;
  assign head_addr = slot_addr(sq_base, t_sq_head, log_sq_size, log_sq_stride);
  assign wqe_fault = (wp_take && wp_err) || (state == REQST_WAIT_WQE && d_f_done) ||
                     (state == REQST_REFETCH_WQE && d_f_done && d_f_err);

  // The packet's payload into the slot (hca_req_gather, below): the first
  // packet's piece pushed early (ep_v), the gather walk (SGE gw_i; gw_end:
  // the slot closes in this REQST_GATHER cycle), inline data.
  logic        ep_v, gw_end;
  logic [4:0]  gw_i;

  // Where the cursor goes (REQST_CURSOR's decision): nothing in an RNR wait, the cursor
  // WQE's next packet, or the WQE at SQ_HEAD if one is posted and the table has room.
  st_t cursor_next;
  assign cursor_next = (txs[`TXS_TMR_O +: 2] == `TMR_RNR) ? REQST_END : (t_tx_wqe != t_sq_head) ? REQST_READ_OUTS :
                       (qp_st != QPS_RTS || t_sq_head == e_qp_sq_pi || (t_sq_head - t_sq_ci) >= 16'(OUTS - 1)) ?
                       REQST_END : REQST_FETCH_WQE;
  // The step's shortcuts (hca_req_next): states done in the cycle before.
  logic fast_cursor, fetch_go, gate_go, hdr_fold, hdr_commit, v_commit, pay_end, ep_go;
  logic c_go, c_async, c_last; logic [23:0] c_k;   // the slot's commit (REQST_WAIT_PAYLOAD, hdr_commit, v_commit)
  assign c_go   = (state == REQST_WAIT_PAYLOAD && (d_g_done || pk_async)) || hdr_commit || v_commit;
  assign c_async = hdr_commit || v_commit || pk_async; assign c_last = (hdr_commit || v_commit) ? p_last : pk_last;
  assign c_k    = (hdr_commit || v_commit) ? p_k : pk_k;
  hca_req_next #(.LOG_MAX_QP(LOG_MAX_QP)) u_next (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .st_check(state == REQST_CHECK_STATE),
      .st_fetch(state == REQST_FETCH_WQE), .st_gate(state == REQST_GATE), .st_lkey_result(lk_res),
      .st_build_hdr(state == REQST_BUILD_HDR), .st_wait_payload(state == REQST_WAIT_PAYLOAD),
      .fail_we(ow_we && ow_wdata[`OW_ERR_O]), .fail_qn(ow_waddr[LOG_OUTS +: LOG_MAX_QP]), .qn(qn),
      .rts(qp_st == QPS_RTS), .ci_eq_head(t_sq_ci == t_sq_head), .pf_hit(pf_hit), .yq_back(yq_v && yq_qn == qn),
      .cur_fetch(cursor_next == REQST_FETCH_WQE), .tw_hit(tw_hit), .wp_hit(wp_hit), .wp_ready(wp_ready),
      .wp_free_now(wp_free_now), .give_way(give_way), .gate_hold(gate_hold), .mr_ok(k_verr == 8'h0),
      .sge_last(8'(sk_i) + 8'd1 >= w_nsge), .p_closed(p_closed), .ep_v(ep_v), .tx_free(tx_free),
      .tx_async_ok(tx_async_ok), .d_g_done(d_g_done), .pk_async(pk_async), .d_g_fault(d_g_fault), .is_rc(is_rc),
      .pk_last(pk_last), .ep_go(ep_go),
      .fast_cursor(fast_cursor), .take_early(take_early), .fetch_go(fetch_go), .gate_go(gate_go),
      .hdr_fold(hdr_fold), .hdr_commit(hdr_commit), .v_commit(v_commit), .pay_end(pay_end));
  // The prefetch's requests (hca_req_pf_issue): SQ_HEAD's WQE read into an
  // entry while other work waits (REQST_FETCH_WQE gives way: other QPs' steps
  // use fetch buffer 0; taken when the QP's step comes back), the next posted
  // WQE read ahead with a fetch or take, the QP's entry dropped (a flush, a
  // failed WQE, a read-ahead payload fault)
  logic pf_now_go;
  assign pf_now_go = state == REQST_FETCH_WQE && !tw_hit && !wp_hit && wp_free_now && give_way;
  hca_req_pf_issue #(.LOG_MAX_QP(LOG_MAX_QP)) u_pfi (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .now_go(pf_now_go), .ahead_go(fetch_go),
      .inv((state == REQST_CHECK_STATE && !pf_hit && (qp_st == QPS_ERR || qp_st == QPS_SQE)) ||
           state == REQST_WQE_ERR || state == REQST_FAULT_OUTS),
      .wp_free(wp_free), .qn(qn), .sq_head(t_sq_head), .sq_pi(e_qp_sq_pi), .qpc_gen(qpc_gen), .sq_base(sq_base),
      .log_sq_size(log_sq_size), .log_sq_stride(log_sq_stride), .head_addr(head_addr), .len1(wqe_len1),
      .wp_issue(wp_issue), .wp_now(wp_now), .wp_inv(wp_inv), .wp_ikey(wp_ikey), .wp_addr(wp_addr), .wp_len(wp_len));
  hca_req_gather u_gath (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .st_check(state == REQST_CHECK_STATE),
      .st_lkey_result(lk_res), .fold(hdr_fold || v_commit), .st_wait_tx(state == REQST_WAIT_TX),
      .st_gather(state == REQST_GATHER), .verr(k_verr), .iova(k_iova), .sk_i(sk_i), .sk_len(sk_len),
      .v_inline(v_inline), .v_rdat(v_rdat), .pmtu(pmtu), .hlen0(p_hlen0), .gate_hold(gate_hold), .ep_go(ep_go), .ep_v(ep_v),
      .tx_free(tx_free), .inl((w_flags & 8'(`HCA_SEND_INLINE)) != 0), .off(pk_off), .plen(pk_plen),
      .hdr_len(hdr_len), .nsge(w_nsge), .gw_i(gw_i), .gw_len(gw_len), .gw_iova(tx_iova_gw), .walk_end(gw_end),
      .g_push(d_g_push), .g_iova(d_g_iova), .g_len(d_g_len), .g_dst(d_g_dst), .g_idx(d_g_idx), .g_close(d_g_close),
      .l_start(d_l_start), .l_src(d_l_src), .l_len(d_l_len), .l_dst(d_l_dst));
  // the packet (p_*) and its header fields for hca_tx_hdr (h_*, e_gid_idx)
  hca_req_hdr #(.LOG_MAX_QP(LOG_MAX_QP), .FB_BYTES(FB_BYTES)) u_hdr (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .st_build(state == REQST_BUILD_HDR || lk_res),
      .load((state == REQST_BUILD_HDR && !p_closed) || v_commit), .st_wait_tx(state == REQST_WAIT_TX), .fb(fb),
      .ow(lk_res ? ow_s : ow_g), .qn(qn), .tx_wqe(t_tx_wqe), .sq_ci(t_sq_ci), .tx_pkt(lk_res ? 24'd0 : t_tx_pkt), .una(t_una), .rcvd(t_rcvd), .psn_next(t_psn_next),
      .qp_type(qp_type), .is_rc(is_rc), .is_ud(is_ud), .pmtu_log(pmtu_log), .pmtu(pmtu), .qkey(qkey), .dmac(dmac),
      .dip(dip), .hop_limit(hop_limit), .tclass(tclass), .dest_qpn(dest_qpn), .sgid_index(sgid_index),
      .port_mac(port_mac), .e_gid_idx(e_gid_idx), .e_gid(e_gid), .p_closed(p_closed), .p_closed_next(p_closed_next),
      .p_k(p_k), .p_off(p_off), .p_plen(p_plen), .p_last(p_last), .p_hlen0(p_hlen0), .h_opcode(h_opcode),
      .h_se(h_se), .h_ackreq(h_ackreq), .h_psn(h_psn), .h_dqpn(h_dqpn), .h_pay_len(h_pay_len), .h_dmac(h_dmac),
      .h_smac(h_smac), .h_tclass(h_tclass), .h_hop(h_hop), .h_sip(h_sip), .h_dip(h_dip), .h_sport(h_sport),
      .h_va(h_va), .h_rkey(h_rkey), .h_rlen(h_rlen), .h_imm(h_imm), .h_qkey(h_qkey), .h_deth_sqp(h_deth_sqp),
      .h_swap_add(h_swap_add), .h_compare(h_compare));
  assign s_fault_wr = 1'b0;          // WQE fetches and payload reads

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= REQST_IDLE; done <= 1'b0; did <= 1'b0; txs_wm <= '0; txs_wv <= '0; s_busy_set <= 1'b0;
      ow <= '0; cs_status <= '0; cs_verr <= '0; sc_status <= '0; sc_verr <= '0; sc_force <= 1'b0; fa <= '0;
      pk_k <= '0; pk_off <= '0; pk_plen <= '0; pk_last <= 1'b0; pk_async <= 1'b0; async <= 1'b0;
      tag_wqe <= '0; tag_k <= '0; tag_qn <= '0;
      sk_i <= '0;
      tw_v <= 1'b0; tw_qn <= '0; tw_idx <= '0; tw_gen <= '0; f_long <= 1'b0;
      yq_v <= 1'b0; yq_qn <= '0;
      s_stat <= '0; s_evt <= 1'b0; s_evt_type <= '0; s_evt_elem <= '0;
      s_fault <= 1'b0; s_fault_client <= '0; s_fault_iova <= '0;
      ow_we <= 1'b0; ow_waddr <= '0; ow_wdata <= '0;
      d_f_start <= 1'b0; d_f_addr <= '0; d_f_len <= '0;
      go <= 1'b0; drop <= 1'b0; tm_set <= 1'b0;
    end else if (srst) begin
      // ENGINE_CTRL.RESET / CTRL.RESET: back to idle; the cache forgotten
      state_q <= REQST_IDLE; done <= 1'b0; tw_v <= 1'b0; txs_wm <= '0; txs_wv <= '0; s_busy_set <= 1'b0;
      s_stat <= '0; s_evt <= 1'b0; s_fault <= 1'b0; ow_we <= 1'b0;
      d_f_start <= 1'b0; go <= 1'b0;
      tm_set <= 1'b0; yq_v <= 1'b0;
    end else if (ce) begin
      done <= 1'b0; txs_wm <= '0; txs_wv <= '0; s_busy_set <= 1'b0;
      s_stat <= '0; s_evt <= 1'b0; s_fault <= 1'b0; ow_we <= 1'b0;
      d_f_start <= 1'b0; go <= 1'b0; tm_set <= 1'b0; async <= 1'b0;
      state_q <= state;
      if (wqe_fault) begin
        s_fault <= 1'b1; s_fault_client <= 8'(`HCA_DMA_CLIENT_WQE);
        s_fault_iova <= wp_take ? head_addr : fa;
        s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
      end
      case (state)
        REQST_CHECK_STATE: begin
          did  <= 1'b0;
          yq_v <= 1'b0;
          if (pf_hit)
            state_q <= REQST_ASYNC_FAULT;
          else if (qp_st == QPS_ERR || qp_st == QPS_SQE)
            state_q <= REQST_WAIT_FLUSH;     // (nothing prefetched survives it: u_pfi)
          else if (qp_st != QPS_RTS && qp_st != QPS_SQD)
            state_q <= REQST_END;
          else if (fast_cursor)
            // no WQE to retire (hca_comp_retire: no hit), no drain; or back
            // for the WQE whose read it gave way to; a prefetched WQE taken
            // now (take_early: fetch_go below)
            state_q <= cursor_next;
          else
            state_q <= REQST_WAIT_RETIRE;
        end
        REQST_DRAIN:
          if (rt_hit) begin
            did <= 1'b1;
            state_q <= REQST_END;
          end else if (qp_st == QPS_SQD && txs[`TXS_DRAIN_O] && t_sq_ci == t_sq_head) begin
            `HCA_WSET(txs_wm, txs_wv, `TXS_DRAIN_O, 1, 1'b0)
            if ((qp_flags & 8'(`HCA_QPC_FLAGS_SQD_NOTIFY_MASK)) != 0) begin
              s_evt <= 1'b1; s_evt_type <= 8'(`HCA_EVENT_SQ_DRAINED); s_evt_elem <= {{(32-LOG_MAX_QP){1'b0}}, qn};
            end
            did <= 1'b1;
            state_q <= REQST_END;
          end else
            state_q <= REQST_CURSOR;
        REQST_CURSOR: state_q <= cursor_next;

        // ---- start the WQE at SQ_HEAD (model/req.c start_wqe)
        REQST_FETCH_WQE:
          if (tw_hit) begin
            // validated before (gated): its entry again from fetch buffer 0
            ow <= '0;
            ow[`OW_OP_O +: 3]    <= w_op[2:0];
            ow[`OW_FLAGS_O +: 4] <= w_flags[3:0];
            ow[`OW_LEN_O +: 32]  <= v_total;
            state_q <= REQST_GATE;
          end else if (wp_hit && !wp_ready) begin
            // its read in flight: wait here, or give the engine to the other
            // work waiting and come back (the QP stays busy; nothing changed)
            if (give_way) begin
              yq_v    <= 1'b1;                 // not busy: the read's completion wakes the QP
              yq_qn   <= qn;
              state_q <= REQST_END;
            end
          end                                 // else read into an entry (pf_now_go) or the fetch (fetch_go)
        REQST_WAIT_WQE: if (d_f_done) begin              // faulted (wqe_fault): a good one is REQST_VALIDATE_WQE now
          did     <= 1'b1;
          state_q <= REQST_WAIT_QP_ERR;
        end
        REQST_VALIDATE_WQE: if (need_rest) begin
          // longer than its first read: read the whole slot, validated in
          // that read's done cycle (a fault: REQST_WAIT_WQE, wqe_fault)
          d_f_start <= 1'b1;
          d_f_addr  <= head_addr;
          d_f_len   <= 16'd1 << log_sq_stride;
          fa        <= head_addr;
          f_long    <= 1'b1;
          state_q   <= REQST_WAIT_WQE;
        end else begin
          ow <= ow_new;
          if (v_bad) begin
            cs_status <= 5'(`HCA_WC_LOC_QP_OP_ERR); cs_verr <= 8'(`HCA_VENDOR_ERR_BAD_WQE);
            state_q <= REQST_WQE_ERR;
          end else if (v_toolong) begin
            cs_status <= 5'(`HCA_WC_LOC_LEN_ERR); cs_verr <= 8'(`HCA_VENDOR_ERR_LENGTH);
            state_q <= REQST_WQE_ERR;
          end else if (v_udlong) begin
            cs_status <= 5'(`HCA_WC_LOC_QP_OP_ERR); cs_verr <= 8'(`HCA_VENDOR_ERR_BAD_WQE);
            state_q <= REQST_WQE_ERR;
          end else if (v_lkey) begin
            if (!lk_use)
              state_q <= REQST_WAIT_LKEY;    // SGE 0's check, asked for now (mr_req); else its result now (lk_res)
          end else begin
            tw_v <= 1'b1; tw_qn <= qn; tw_idx <= t_sq_head; tw_gen <= qpc_gen;
            state_q <= REQST_GATE;
          end
        end
        REQST_CHECK_LKEY, REQST_PKT_LKEY:      // the SGE's key check, asked for now (mr_req)
          state_q <= (state == REQST_CHECK_LKEY) ? REQST_WAIT_LKEY : REQST_WAIT_PKT_LKEY;
        REQST_WQE_ERR: begin
          // the WQE is tracked failed; the cursor stays on it until it retires
          ow_we    <= 1'b1;
          ow_waddr <= {qn, t_sq_head[LOG_OUTS-1:0]};
          ow_wdata <= ow | (`OW_W'(1) << `OW_ERR_O) | (`OW_W'(cs_status) << `OW_STATUS_O) |
                      (`OW_W'(cs_verr) << `OW_VERR_O);
          `HCA_WSET(txs_wm, txs_wv, `TXS_SQ_HEAD_O, 16, t_sq_head + 16'd1)
          tw_v    <= 1'b0;
          state_q <= REQST_WAIT_RETIRE_ERR;
        end
        REQST_WQE_ERR_DONE: begin
          did     <= 1'b1;
          state_q <= REQST_END;
        end
        REQST_GATE:
          if (gate_hold)
            state_q <= REQST_END;            // gated: waits for acknowledgements
        // (else gate_go, below)
        REQST_WAIT_OUTS_WRITE: state_q <= REQST_READ_OUTS;   // let the table write land

        // ---- transmit one packet of the cursor WQE (model/req.c send_packet)
        REQST_READ_OUTS: state_q <= REQST_CHECK_OUTS;        // outstanding-table read of TX_WQE
        REQST_CHECK_OUTS: begin
          ow <= ow_rdata;
          if (ow_rdata[`OW_ERR_O])
            state_q <= REQST_END;            // blocks the cursor until it retires
          else if (tw_v && tw_gen == qpc_gen && tw_qn == qn && tw_idx == t_tx_wqe)
            state_q <= REQST_BUILD_HDR;
          else begin
            // the WQE's packets resume after another QP used the fetch buffer
            tw_v      <= 1'b0;
            d_f_start <= 1'b1;
            d_f_addr  <= slot_addr(sq_base, t_tx_wqe, log_sq_size, log_sq_stride);
            fa        <= slot_addr(sq_base, t_tx_wqe, log_sq_size, log_sq_stride);
            d_f_len   <= wqe_len1;
            f_long    <= 1'b0;
            state_q   <= REQST_REFETCH_WQE;
          end
        end
        REQST_REFETCH_WQE: if (d_f_done) begin
          if (d_f_err) begin                             // (the fault: wqe_fault)
            ow[`OW_ERR_O] <= 1'b1;
            ow[`OW_STATUS_O +: 5] <= 5'(`HCA_WC_LOC_PROT_ERR);
            ow[`OW_VERR_O +: 8] <= 8'(`HCA_VENDOR_ERR_DMA_FAULT);
            state_q <= REQST_WQE_FAIL;
          end else if (need_rest) begin
            // longer than its first read: the whole slot, here again
            d_f_start <= 1'b1;
            d_f_len   <= 16'd1 << log_sq_stride;
            f_long    <= 1'b1;
          end else if (!v_inline && w_nsge != 8'd0) begin
            sk_i    <= '0;
            state_q <= REQST_PKT_LKEY;
          end else begin
            tw_v <= 1'b1; tw_qn <= qn; tw_idx <= t_tx_wqe; tw_gen <= qpc_gen;
            state_q <= REQST_BUILD_HDR;
          end
        end
        REQST_WQE_FAIL: begin
          ow_we    <= 1'b1;
          ow_waddr <= {qn, t_tx_wqe[LOG_OUTS-1:0]};
          ow_wdata <= ow;
          state_q  <= REQST_WAIT_RETIRE_ERR;
        end
        REQST_BUILD_HDR: begin
          pk_k <= p_k; pk_off <= p_off; pk_plen <= p_plen; pk_last <= p_last;
          if (p_closed)
            state_q <= REQST_END;                                   // window closed
          else begin                                                // (the header fields: u_hdr)
            if (hdr_fold) begin
              // REQST_WAIT_TX's work for an early payload read (below; u_gath closes the slot)
              pk_async  <= is_rc && tx_async_ok;
              state_q   <= REQST_WAIT_PAYLOAD;
            end else
              state_q    <= REQST_WAIT_TX;
          end
        end
        REQST_WAIT_TX:                       // (the source IP again: u_hdr)
          if (tx_free) begin
            // u_gath: the slot closed now (the early piece; inline data,
            // copied from fetch buffer 0: waits), or the walk starts
            if (ep_v || (w_flags & 8'(`HCA_SEND_INLINE)) != 0) begin
              pk_async <= ep_v && is_rc && tx_async_ok;
              state_q  <= REQST_WAIT_PAYLOAD;
            end else
              state_q  <= REQST_GATHER;
          end
        REQST_GATHER:
          // the walk (u_gath), one SGE a cycle.  RC: the slot is committed
          // once closed and the step goes on while the payload arrives (a
          // fault is recorded later, REQST_ASYNC_FAULT); UC/UD complete
          // with their last packet, so they wait for it
          if (gw_end) begin
            pk_async <= is_rc && tx_async_ok;
            state_q  <= REQST_WAIT_PAYLOAD;
          end
        // (REQST_WAIT_PAYLOAD: c_go, below)
        REQST_UC_UD_SENT: begin
          `HCA_WSET(txs_wm, txs_wv, `TXS_UNA_O, 24, t_psn_next)
          did     <= 1'b1;
          state_q <= REQST_END;
        end

        // ---- a packet committed ahead of its payload faulted (model/req.c
        // send_packet: the WQE fails at that packet): the fault reported, the
        // WQE failed, the cursor back at the packet, the WQEs started after it
        // unstarted (their packets were dropped, never sent)
        REQST_ASYNC_FAULT: begin
          s_fault <= 1'b1; s_fault_client <= 8'(`HCA_DMA_CLIENT_PAYLOAD); s_fault_iova <= pf_iova;
          s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
          if (pf_orph) begin                                 // the QP's new work: step again
            did     <= 1'b1;
            state_q <= REQST_END;
          end else
            state_q <= REQST_FAULT_READ_OUTS;
        end
        REQST_FAULT_READ_OUTS: state_q <= REQST_FAULT_OUTS;
        REQST_FAULT_OUTS: begin : fault_outs
          logic [15:0] rel_cur, rel_pf;
          rel_cur = t_tx_wqe - t_sq_ci;
          rel_pf  = pf_wqe - t_sq_ci;
          ow_we    <= 1'b1;
          ow_waddr <= {qn, pf_wqe[LOG_OUTS-1:0]};
          ow_wdata <= ow_rdata | (`OW_W'(1) << `OW_ERR_O) | (`OW_W'(`HCA_WC_LOC_PROT_ERR) << `OW_STATUS_O) |
                      (`OW_W'(`HCA_VENDOR_ERR_DMA_FAULT) << `OW_VERR_O);
          if (rel_cur > rel_pf || (rel_cur == rel_pf && psn_lt(pf_k, t_tx_pkt))) begin
            `HCA_WSET(txs_wm, txs_wv, `TXS_TX_WQE_O, 16, pf_wqe)
            `HCA_WSET(txs_wm, txs_wv, `TXS_TX_PKT_O, 24, pf_k)
          end
          if ((t_sq_head - t_sq_ci) > rel_pf + 16'd1) begin
            `HCA_WSET(txs_wm, txs_wv, `TXS_SQ_HEAD_O, 16, pf_wqe + 16'd1)
            `HCA_WSET(txs_wm, txs_wv, `TXS_PSN_NEXT_O, 24, ow_rdata[`OW_FPSN_O +: 24] + ow_rdata[`OW_NPSN_O +: 24])
          end
          tw_v    <= 1'b0;
          did     <= 1'b1;
          state_q <= REQST_WAIT_RETIRE_ERR;
        end

        // ---- end of a QP step: progress keeps it busy, and so do packets
        // committed ahead of their payload (a fault needs a step to record it)
        REQST_END: begin
          if (!yq_v && (did || tx_q_busy || pf_hit || (state_q == REQST_WAIT_FLUSH && fl_did))) s_busy_set <= 1'b1;
          done    <= 1'b1;
          state_q <= REQST_IDLE;
        end
        default: ;
      endcase
      // ---- an SGE's key check result (REQST_LKEY_RESULT, REQST_PKT_LKEY_RESULT;
      // REQST_VALIDATE_WQE's with a result checked ahead, lk_use: after the case,
      // so that it adds to the validation's ow)
      if (lk_res || state == REQST_PKT_LKEY_RESULT) begin
        if (k_verr != 8'h0) begin
          cs_status <= 5'(`HCA_WC_LOC_PROT_ERR); cs_verr <= k_verr;
          ow[`OW_ERR_O] <= 1'b1;
          ow[`OW_STATUS_O +: 5] <= 5'(`HCA_WC_LOC_PROT_ERR);
          ow[`OW_VERR_O +: 8] <= k_verr;
          state_q <= lk_res ? REQST_WQE_ERR : REQST_WQE_FAIL;
        end else begin
          sk_i <= sk_i + 5'd1;
          if (8'(sk_i) + 8'd1 >= w_nsge) begin
            tw_v <= 1'b1; tw_qn <= qn; tw_gen <= qpc_gen;
            tw_idx  <= lk_res ? t_sq_head : t_tx_wqe;
            state_q <= lk_res ? REQST_GATE : REQST_BUILD_HDR;
          end else
            state_q <= lk_res ? REQST_CHECK_LKEY : REQST_PKT_LKEY;
        end
      end
      // ---- the shortcuts' work (above cursor_next): after the case, so that
      // their assignments win over the state's own
      if (fetch_go) begin                              // (the next posted WQE read ahead: u_pfi)
        tw_v      <= 1'b0;
        sk_i      <= '0;                               // the first SGE's key check (VALIDATE_WQE)
        fa        <= head_addr;
        if (wp_hit && wp_err)                          // a faulted prefetch: what a faulting fetch does
          did <= 1'b1;                                 // (the fault: wqe_fault)
        else if (!wp_hit) begin
          d_f_start <= 1'b1;
          d_f_addr  <= head_addr;
          d_f_len   <= wqe_len1;
        end
        f_long    <= 1'b0;
        // taken (wp_take: fetch buffer 0 loaded in this cycle): validated
        // next; else the fetch's done cycle validates (the comb state)
        state_q   <= !wp_hit ? REQST_WAIT_WQE : wp_err ? REQST_WAIT_QP_ERR : REQST_VALIDATE_WQE;
      end
      if (gate_go) begin
        if (v_rdat) `HCA_WSET(txs_wm, txs_wv, `TXS_RD_OUT_O, 5, t_rd_out + 5'd1)
        ow_we    <= 1'b1;
        ow_waddr <= {qn, t_sq_head[LOG_OUTS-1:0]};
        ow_wdata <= ow_s;
        ow       <= ow_s;
        `HCA_WSET(txs_wm, txs_wv, `TXS_PSN_NEXT_O, 24, t_psn_next + g_n[23:0])
        `HCA_WSET(txs_wm, txs_wv, `TXS_SQ_HEAD_O, 16, t_sq_head + 16'd1)
        `HCA_WSET(txs_wm, txs_wv, `TXS_TX_PKT_O, 24, 24'd0)
        // the cursor is on it (TX_WQE = SQ_HEAD): its first packet at
        // once, the entry just written being ow, the WQE in fetch buffer
        // 0 (else through REQST_CHECK_OUTS, as a resumed WQE)
        // (with its payload read out, ep_v, always: fetch buffer 0 holds
        // the WQE this step validated, whatever QPC write moved qpc_gen)
        // (and in REQST_LKEY_RESULT's cycle, fb holds the WQE it checked)
        state_q <= (ep_v || tw_hit || lk_res) ? REQST_BUILD_HDR : REQST_WAIT_OUTS_WRITE;
      end
      // the slot's commit (REQST_WAIT_PAYLOAD, hdr_commit, v_commit): last, so
      // that its cursor and state win over a start's in the same cycle
      if (c_go) begin
        // the slot is committed either way; a frame sent while the link is
        // down is lost, a faulted payload is no frame
        go    <= 1'b1;
        async <= c_async;
        if (v_commit) begin pk_k <= p_k; pk_off <= p_off; pk_plen <= p_plen; pk_last <= p_last; end
        tag_wqe <= t_tx_wqe;
        tag_k   <= c_k;
        tag_qn  <= qn;
        drop  <= (!c_async && d_g_fault) || !port_up;
        pk_async <= 1'b0;
        if (!c_async && d_g_fault) begin
          s_fault <= 1'b1; s_fault_client <= 8'(`HCA_DMA_CLIENT_PAYLOAD);
          s_fault_iova <= d_g_fault_iova;
          s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
          ow[`OW_ERR_O] <= 1'b1;
          ow[`OW_STATUS_O +: 5] <= 5'(`HCA_WC_LOC_PROT_ERR);
          ow[`OW_VERR_O +: 8] <= 8'(`HCA_VENDOR_ERR_DMA_FAULT);
          state_q <= REQST_WQE_FAIL;
        end else begin
          if (is_rc && txs[`TXS_TMR_O +: 2] == `TMR_NONE && timeout != 5'd0) begin
            tm_set <= 1'b1;              // the ACK timer (model/req.c send_packet)
            `HCA_WSET(txs_wm, txs_wv, `TXS_TMR_O, 2, `TMR_ACK)
          end
          if (c_last) begin
            `HCA_WSET(txs_wm, txs_wv, `TXS_TX_WQE_O, 16, t_tx_wqe + 16'd1)
            `HCA_WSET(txs_wm, txs_wv, `TXS_TX_PKT_O, 24, 24'd0)
          end else
            `HCA_WSET(txs_wm, txs_wv, `TXS_TX_PKT_O, 24, c_k + 24'd1)
          if (!is_rc && c_last) begin
            // UC/UD: complete once the last packet is sent (the WQE is the oldest)
            sc_status <= '0; sc_verr <= '0; sc_force <= 1'b0;
            state_q <= REQST_WAIT_SEND_DONE;
          end else begin
            // REQST_END's work (pay_end, step_end): progress, busy again
            did        <= 1'b1;
            s_busy_set <= 1'b1;
            done       <= 1'b1;
            state_q    <= REQST_IDLE;
          end
        end
      end
    end
  end
endmodule
