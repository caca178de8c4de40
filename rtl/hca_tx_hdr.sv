`include "hca_defs.vh"

// Transmit header: the one header generator (hca_hdr_gen) in front of the
// transmit slots (hca_tx_slots) and the framer (hca_tx_frame), shared by the
// two transmitters of the engine.
//
//   hca_req      request packets: holds its header fields, fills the free
//                transmit slot with the payload and commits it with req_go;
//   hca_ack_send responses (ACK/NAK, READ responses, atomic ACKs): holds its
//                header fields, ack_sel high from the fields' load until the
//                slot is committed (a READ response's payload is read into
//                the slot in between), ack_go.
//
// The generator sees the ACK sender's fields while ack_sel is high, else
// the requester's.  `go` (the slot's commit, with the header) is req_go |
// ack_go (one at a time: the engine works on one item at a time and both
// wait for tx_free), `drop` with it when the slot holds no frame (payload
// fault, port down); tx_free = a slot is free and no go is on its way.
// Frames are counted here
// (HCA_STAT_TX_FRAMES and bytes) when the framer accepts them.  Planted-bug
// hook hdr_bit: the BTH MigReq bit of request packets inverted (the ICRC
// covers the wrong bit, so only a checker sees it).
module hca_tx_hdr #(
    parameter int HDR_MAX = 96
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    // hca_req: request packet header
    input  logic        req_go,
    input  logic        req_drop,        // with req_go: no frame
    input  logic [7:0]  rq_opcode,
    input  logic        rq_se,
    input  logic        rq_ackreq,
    input  logic [23:0] rq_psn,
    input  logic [23:0] rq_dqpn,
    input  logic [15:0] rq_pay_len,
    input  logic [47:0] rq_dmac,
    input  logic [47:0] rq_smac,
    input  logic [7:0]  rq_tclass,
    input  logic [7:0]  rq_hop,
    input  logic [31:0] rq_sip,
    input  logic [31:0] rq_dip,
    input  logic [15:0] rq_sport,
    input  logic [63:0] rq_va,
    input  logic [31:0] rq_rkey,
    input  logic [31:0] rq_rlen,
    input  logic [31:0] rq_imm,
    input  logic [31:0] rq_qkey,
    input  logic [23:0] rq_deth_sqp,
    input  logic [63:0] rq_swap_add,     // AtomicETH
    input  logic [63:0] rq_compare,
    output logic [7:0]  rq_hdr_len,      // header length of the request packet (payload offset)
    // hca_ack_send: response header
    input  logic        ack_sel,
    input  logic        ack_go,
    input  logic        ack_drop,
    input  logic [7:0]  ak_opcode,
    input  logic [15:0] ak_pay_len,
    input  logic [63:0] ak_orig,         // AtomicAckETH
    input  logic [23:0] ak_psn,
    input  logic [7:0]  ak_aeth_syn,
    input  logic [23:0] ak_aeth_msn,
    input  logic [47:0] ak_dmac,
    input  logic [47:0] ak_smac,
    input  logic [31:0] ak_sip,
    input  logic [31:0] ak_dip,
    input  logic [7:0]  ak_tclass,
    input  logic [7:0]  ak_hop,
    input  logic [15:0] ak_sport,
    input  logic [23:0] ak_dqpn,
    // both transmitters
    output logic        tx_free,
    output logic        wait_go,         // a go of the previous cycle (pending strobe)
    // hca_tx_slots, hca_tx_frame
    output logic        t_go,
    output logic        t_drop,
    input  logic        t_free,
    output logic [HDR_MAX*8-1:0] t_hdr,
    output logic [7:0]  t_hdr_len,
    output logic [15:0] t_pay_len,
    output logic [1:0]  t_pad,
    input  logic        t_sent,
    input  logic [15:0] t_sent_len,
    // hca_regs
    output logic        stat_tx_frame,
    output logic [31:0] stat_tx_bytes
);
  logic [7:0]  opcode, tclass, hop, aeth_syn;
  logic        se, ackreq;
  logic [23:0] psn, dqpn, aeth_msn, deth_sqp;
  logic [15:0] pay_len, sport;
  logic [47:0] dmac, smac;
  logic [31:0] sip, dip, rkey, rlen, imm, qkey;
  logic [63:0] va, swap_add, compare, orig;
  always_comb begin
    if (ack_sel) begin
      opcode = ak_opcode;
      se = 1'b0; ackreq = 1'b0; pay_len = ak_pay_len;
      psn = ak_psn; dqpn = ak_dqpn; dmac = ak_dmac; smac = ak_smac; tclass = ak_tclass; hop = ak_hop;
      sip = ak_sip; dip = ak_dip; sport = ak_sport; aeth_syn = ak_aeth_syn; aeth_msn = ak_aeth_msn;
      va = '0; rkey = '0; rlen = '0; imm = '0; qkey = '0; deth_sqp = '0; swap_add = '0; compare = '0;
      orig = ak_orig;
    end else begin
      opcode = rq_opcode; se = rq_se; ackreq = rq_ackreq; pay_len = rq_pay_len;
      psn = rq_psn; dqpn = rq_dqpn; dmac = rq_dmac; smac = rq_smac; tclass = rq_tclass; hop = rq_hop;
      sip = rq_sip; dip = rq_dip; sport = rq_sport; aeth_syn = '0; aeth_msn = '0;
      va = rq_va; rkey = rq_rkey; rlen = rq_rlen; imm = rq_imm; qkey = rq_qkey; deth_sqp = rq_deth_sqp;
      swap_add = rq_swap_add; compare = rq_compare; orig = '0;
    end
  end

  logic [HDR_MAX*8-1:0] g_hdr;
  logic [7:0]  g_hdr_len;
  logic [1:0]  g_pad;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [15:0] g_ip_len;
  logic        g_valid;
  /* verilator lint_on UNUSEDSIGNAL */
  hca_hdr_gen #(.HDR_MAX(HDR_MAX)) u_hdr (
      .opcode(opcode), .se(se), .ackreq(ackreq), .psn(psn), .dqpn(dqpn), .pay_len(pay_len),
      .dmac(dmac), .smac(smac), .tclass(tclass), .hop_limit(hop), .sip(sip), .dip(dip),
      .sport(sport), .reth_va(va), .reth_rkey(rkey), .reth_len(rlen), .imm(imm),
      .aeth_syn(aeth_syn), .aeth_msn(aeth_msn), .deth_qkey(qkey), .deth_sqp(deth_sqp),
      .atm_swap_add(swap_add), .atm_compare(compare), .atmack_orig(orig),
      .hdr(g_hdr), .hdr_len(g_hdr_len), .padcnt(g_pad), .ip_len(g_ip_len), .valid(g_valid));

  assign t_hdr      = `HCA_BUG(hdr_bit, g_hdr, ack_sel ? g_hdr : (g_hdr ^ ((HDR_MAX*8)'(1) << (8 * 43 + 6))));
  assign t_hdr_len  = g_hdr_len;
  assign t_pay_len  = pay_len;
  assign t_pad      = g_pad;
  assign rq_hdr_len = g_hdr_len;
  assign t_go       = req_go || ack_go;
  assign t_drop     = (req_go && req_drop) || (ack_go && ack_drop);

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) wait_go <= 1'b0;
    else if (srst) wait_go <= 1'b0;
    else if (ce) wait_go <= t_go;
  end
  assign tx_free = t_free && !t_go && !wait_go;

  assign stat_tx_frame = t_sent;
  assign stat_tx_bytes = t_sent ? {16'b0, t_sent_len} : 32'h0;
endmodule
