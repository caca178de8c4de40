`include "hca_defs.vh"

// Request packet build (model/req.c send_packet, send_opcode), combinational:
// the cursor WQE's next packet from its outstanding-table entry (op, flags,
// first PSN, PSNs, length), the requester word's cursor (TX_PKT; UNA and
// RCVD when it is the WQE at SQ_CI) and the WQE in fetch buffer 0 (remote
// address, rkey, immediate, atomic operands, UD address vector):
//   * which packet (k): TX_PKT; a READ from the first response not yet
//     received (RCVD), an atomic always 0; a SEND/WRITE resent from UNA at
//     the earliest (never what is acknowledged);
//   * its PSN, payload offset and length (at most the PMTU; none for a
//     READ/atomic request), first/last, and whether the RC window of
//     HCA_WIRE_MAX_UNACKED_PSNS closes it (`closed`; `closed_next`: the
//     window at PSN_NEXT, REQST_GATE's test);
//   * the header fields (BTH opcode, AckReq, SE, RETH, ImmDt, AtomicETH,
//     DETH, addresses: the QP's path, or a UD WQE's address vector).
// hca_req registers them in REQST_BUILD_HDR (its planted-bug hooks applied
// there).  Caller: hca_req.  Model: model/req.c send_packet.
module hca_req_pkt #(
    parameter int LOG_MAX_QP = 8,
    parameter int FB_BYTES   = 320
) (
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [FB_BYTES*8-1:0] fb,    // the cursor WQE
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [2:0]  wop,             // its entry: HCA_WR_* op, send flags, PSNs, length
    input  logic [3:0]  wflags,
    input  logic [23:0] fpsn,
    input  logic [23:0] npsn,
    input  logic [31:0] len,
    input  logic [LOG_MAX_QP-1:0] qn,
    input  logic [15:0] tx_wqe,          // the requester word
    input  logic [15:0] sq_ci,
    input  logic [23:0] tx_pkt,
    input  logic [23:0] una,
    input  logic [23:0] rcvd,
    input  logic [23:0] psn_next,
    input  logic [7:0]  qp_type,         // the QP
    input  logic        is_rc,
    input  logic        is_ud,
    input  logic [11:0] pmtu_log,
    input  logic [31:0] pmtu,
    input  logic [31:0] qkey,
    input  logic [47:0] dmac,
    input  logic [31:0] dip,
    input  logic [7:0]  hop_limit,
    input  logic [7:0]  tclass,
    input  logic [23:0] dest_qpn,
    input  logic [7:0]  sgid_index,
    output logic        closed,          // the window closes this packet
    output logic        closed_next,     // ... a packet at PSN_NEXT
    output logic [23:0] k,               // the packet
    output logic [31:0] off,
    output logic [15:0] plen,
    output logic        last,
    output logic [7:0]  opcode,          // header fields
    output logic [23:0] psn,
    output logic        ackreq,
    output logic        se,
    output logic [15:0] sport,
    output logic [63:0] va,
    output logic [31:0] rkey,
    output logic [31:0] rlen,
    output logic [31:0] imm,
    output logic [63:0] swap_add,
    output logic [63:0] compare,
    output logic [47:0] h_dmac,
    output logic [31:0] h_dip,
    output logic [7:0]  h_hop,
    output logic [7:0]  h_tclass,
    output logic [23:0] h_dqpn,
    output logic [31:0] h_qkey,
    output logic [23:0] deth_sqp,
    output logic [3:0]  gid_i,           // the source GID's index
    output logic        gid_ok,          // ... within the GID table
    output logic [7:0]  hlen0            // header bytes of the entry's first packet (hca_req_pay_early)
);
  `include "hca_funcs.vh"
  localparam logic [7:0] QPT_UC = 8'(`HCA_QPT_UC), QPT_UD = 8'(`HCA_QPT_UD);

  // WQE fields (fetch buffer 0)
  logic [31:0] w_imm, w_rkey, w_udqkey;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [31:0] w_udqpn;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [63:0] w_raddr, w_cmp_add, w_swap;
  logic [47:0] w_uddmac;
  logic [7:0]  w_udsgid, w_udhop, w_udtc;
  logic [31:0] w_uddip;
  assign w_imm     = fb[8*`HCA_WQE_CTRL_SEG_IMM_DATA_OFF +: 32];
  assign w_raddr   = fb[8*(`HCA_WQE_RADDR_OFF + `HCA_WQE_RADDR_SEG_REMOTE_ADDR_OFF) +: 64];
  assign w_rkey    = fb[8*(`HCA_WQE_RADDR_OFF + `HCA_WQE_RADDR_SEG_RKEY_OFF) +: 32];
  assign w_cmp_add = fb[8*(`HCA_WQE_ATOMIC_OFF + `HCA_WQE_ATOMIC_SEG_COMPARE_ADD_OFF) +: 64];
  assign w_swap    = fb[8*(`HCA_WQE_ATOMIC_OFF + `HCA_WQE_ATOMIC_SEG_SWAP_OFF) +: 64];
  assign w_udqpn   = fb[8*(`HCA_WQE_UD_OFF + `HCA_WQE_UD_SEG_REMOTE_QPN_OFF) +: 32];
  assign w_udqkey  = fb[8*(`HCA_WQE_UD_OFF + `HCA_WQE_UD_SEG_REMOTE_QKEY_OFF) +: 32];
  assign w_uddmac  = fb[8*(`HCA_WQE_UD_OFF + `HCA_WQE_UD_SEG_DMAC_OFF) +: 48];
  assign w_udsgid  = fb[8*(`HCA_WQE_UD_OFF + `HCA_WQE_UD_SEG_SGID_INDEX_OFF) +: 8];
  assign w_udhop   = fb[8*(`HCA_WQE_UD_OFF + `HCA_WQE_UD_SEG_HOP_LIMIT_OFF) +: 8];
  assign w_uddip   = fb[8*(`HCA_WQE_UD_OFF + `HCA_WQE_UD_SEG_DGID_OFF + 12) +: 32];
  assign w_udtc    = fb[8*(`HCA_WQE_UD_OFF + `HCA_WQE_UD_SEG_TRAFFIC_CLASS_OFF) +: 8];

  // RC requester window: a packet goes out only while its PSN is fewer than
  // HCA_WIRE_MAX_UNACKED_PSNS past the oldest unacknowledged one.
  function automatic logic win_closed(input [23:0] p);
    logic [23:0] d;
    d = p - una;
    win_closed = is_rc && !d[23] && d >= 24'(`HCA_WIRE_MAX_UNACKED_PSNS);
  endfunction

  // BTH opcode of a request packet (model/req.c send_opcode).
  function automatic [7:0] send_opcode(input [7:0] qpt, input [2:0] wr, input first, input lst);
    logic im, snd;
    logic [7:0] base;
    im  = wr == 3'(`HCA_WR_SEND_WITH_IMM) || wr == 3'(`HCA_WR_RDMA_WRITE_WITH_IMM);
    snd = wr == 3'(`HCA_WR_SEND) || wr == 3'(`HCA_WR_SEND_WITH_IMM);
    if (qpt == QPT_UD)
      send_opcode = im ? 8'(`HCA_BTH_OP_UD_SEND_ONLY_WITH_IMMEDIATE) : 8'(`HCA_BTH_OP_UD_SEND_ONLY);
    else begin
      base = snd ? 8'(`HCA_BTH_OP_RC_SEND_FIRST) : 8'(`HCA_BTH_OP_RC_RDMA_WRITE_FIRST);
      if (qpt == QPT_UC) base = base | 8'h20;
      if (first && lst)       send_opcode = base + (im ? 8'd5 : 8'd4);
      else if (first)         send_opcode = base;
      else if (!lst)          send_opcode = base + 8'd1;
      else                    send_opcode = base + (im ? 8'd3 : 8'd2);
    end
  endfunction

  logic        rd, atm, first;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [31:0] rem, pl;
  /* verilator lint_on UNUSEDSIGNAL */
  assign rd  = wop == 3'(`HCA_WR_RDMA_READ);
  assign atm = wop == 3'(`HCA_WR_ATOMIC_CMP_AND_SWP) || wop == 3'(`HCA_WR_ATOMIC_FETCH_AND_ADD);
  always_comb begin
    k = tx_pkt;
    if (rd)
      k = (tx_wqe == sq_ci) ? rcvd : 24'd0;          // the responses still missing
    else if (atm)
      k = 24'd0;
    else if (is_rc && tx_wqe == sq_ci && psn_lt(fpsn + k, una))
      k = una - fpsn;                                // never resend what is acknowledged
  end
  assign psn   = fpsn + k;
  assign off   = {8'b0, k} << pmtu_log;
  assign rem   = len - off;
  assign pl    = (rd || atm) ? 32'h0 : (rem > pmtu) ? pmtu : rem;   // requests without payload
  assign plen  = pl[15:0];
  assign first = k == 24'd0;
  assign last  = rd || atm || (k + 24'd1 == npsn);
  assign closed      = win_closed(psn);
  assign closed_next = win_closed(psn_next);

  assign opcode = rd  ? 8'(`HCA_BTH_OP_RC_RDMA_READ_REQUEST) :
                  atm ? ((wop == 3'(`HCA_WR_ATOMIC_CMP_AND_SWP)) ? 8'(`HCA_BTH_OP_RC_COMPARE_SWAP) :
                                                                  8'(`HCA_BTH_OP_RC_FETCH_ADD)) :
                        send_opcode(qp_type, wop, first, last);
  // The first packet's header length, from its opcode (the entry's op and
  // length, whatever the cursor): the offset of its payload in the slot, as
  // hca_hdr_gen will make it (same table, hca_opinfo).
  /* verilator lint_off UNUSEDSIGNAL */
  logic [`OPI_W-1:0] op0_info;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [5:0] op0_ext;
  logic [7:0] op0;
  assign op0 = send_opcode(qp_type, wop, 1'b1, len <= pmtu);
  hca_opinfo u_op0 (.opcode(op0), .info(op0_info), .ext_len(op0_ext));
  assign hlen0 = 8'(`HCA_WIRE_ETH_HLEN + `HCA_WIRE_IPV4_HLEN + `HCA_WIRE_UDP_HLEN + `HCA_WIRE_BTH_LEN) +
                 {2'b00, op0_ext};
  assign ackreq = is_rc && (last || k[4:0] == 5'(`HCA_WIRE_ACKREQ_INTERVAL - 1));
  assign se     = last && (wflags & 4'(`HCA_SEND_SOLICITED)) != 0 &&
                  (wop == 3'(`HCA_WR_SEND) || wop == 3'(`HCA_WR_SEND_WITH_IMM) ||
                   wop == 3'(`HCA_WR_RDMA_WRITE_WITH_IMM));
  assign sport  = 16'(`HCA_WIRE_UDP_SPORT_BASE) | ({{(16-LOG_MAX_QP){1'b0}}, qn} & 16'(`HCA_WIRE_UDP_SPORT_MASK));
  assign va     = rd ? w_raddr + {32'b0, off} : w_raddr;
  assign rkey   = w_rkey;
  assign rlen   = rd ? rem : len;
  // AtomicETH: CMP_SWP swap / compare, FETCH_ADD add / 0
  assign swap_add = (wop == 3'(`HCA_WR_ATOMIC_CMP_AND_SWP)) ? w_swap : w_cmp_add;
  assign compare  = (wop == 3'(`HCA_WR_ATOMIC_CMP_AND_SWP)) ? w_cmp_add : 64'h0;
  assign imm      = w_imm;
  // addresses: a UD WQE's address vector, else the QP's path
  assign h_dmac   = is_ud ? w_uddmac : dmac;
  assign h_dip    = is_ud ? w_uddip : dip;
  assign h_hop    = is_ud ? w_udhop : hop_limit;
  assign h_tclass = is_ud ? w_udtc : tclass;
  assign h_dqpn   = is_ud ? w_udqpn[23:0] : dest_qpn;
  assign h_qkey   = !is_ud ? 32'h0 : w_udqkey[31] ? qkey : w_udqkey;
  assign deth_sqp = is_ud ? {{(24-LOG_MAX_QP){1'b0}}, qn} : 24'h0;
  assign gid_i    = is_ud ? w_udsgid[3:0] : sgid_index[3:0];
  assign gid_ok   = (is_ud ? w_udsgid : sgid_index) < 8'(`HCA_CAP_GID_TBL_LEN);
endmodule
