`include "hca_defs.vh"

// The request packet's header fields for hca_tx_hdr (model/req.c
// send_packet): the cursor WQE's next packet, computed combinationally by
// hca_req_pkt (instance u_pkt: which packet, PSN, opcode, RETH / ImmDt /
// AtomicETH / DETH fields, the path), registered here (`h_*`) in hca_req's
// REQST_BUILD_HDR when the RC window lets the packet go (`load`), with the
// port's MAC as source and the source IP from the GID table: the index is
// asked for in REQST_BUILD_HDR (`e_gid_idx`: hca_req_pkt's, then the
// registered one) and the address taken in that cycle if the index is within
// the table (else 0), again in REQST_WAIT_TX (`st_wait_tx`).  The packet's
// own fields (`p_*`: window, index, offset, length, last, the first packet's
// header length) go back to hca_req, which registers what it keeps.
// Planted-bug hooks hdr_se (BTH SE inverted on requests), udp_sport (UDP
// source port bit 0 inverted on requests).  Caller: hca_req (split out of
// it, same cycles).  Model: send_packet's header.
module hca_req_hdr #(
    parameter int LOG_MAX_QP = 8,
    parameter int FB_BYTES   = 320
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,            // (the fields kept)
    input  logic        st_build,        // hca_req REQST_BUILD_HDR
    input  logic        load,            // ... with the window open: register the fields
    input  logic        st_wait_tx,      // hca_req REQST_WAIT_TX
    // hca_req_pkt's arguments: the WQE, its outstanding-table entry, the
    // requester word, the QP
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [FB_BYTES*8-1:0] fb,
    input  logic [`OW_W-1:0] ow,
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [LOG_MAX_QP-1:0] qn,
    input  logic [15:0] tx_wqe,
    input  logic [15:0] sq_ci,
    input  logic [23:0] tx_pkt,
    input  logic [23:0] una,
    input  logic [23:0] rcvd,
    input  logic [23:0] psn_next,
    input  logic [7:0]  qp_type,
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
    input  logic [47:0] port_mac,
    // the GID table (hca_regs): the IPv4 address is its last 4 bytes
    output logic [3:0]  e_gid_idx,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [127:0] e_gid,
    /* verilator lint_on UNUSEDSIGNAL */
    // the packet (hca_req_pkt, combinational)
    output logic        p_closed,
    output logic        p_closed_next,
    output logic [23:0] p_k,
    output logic [31:0] p_off,
    output logic [15:0] p_plen,
    output logic        p_last,
    output logic [7:0]  p_hlen0,
    // hca_tx_hdr
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
    output logic [63:0] h_compare
);
  logic        p_ackreq, p_se, p_gid_ok;
  logic [23:0] p_psn, p_dqpn, p_sqp;
  logic [31:0] p_rkey, p_rlen, p_imm, p_qkey, p_dip;
  logic [15:0] p_sport;
  logic [7:0]  p_opcode, p_hop, p_tclass;
  logic [63:0] p_va, p_swap_add, p_compare;
  logic [47:0] p_dmac;
  logic [3:0]  p_gid_i;
  hca_req_pkt #(.LOG_MAX_QP(LOG_MAX_QP), .FB_BYTES(FB_BYTES)) u_pkt (
      .fb(fb), .wop(ow[`OW_OP_O +: 3]), .wflags(ow[`OW_FLAGS_O +: 4]), .fpsn(ow[`OW_FPSN_O +: 24]),
      .npsn(ow[`OW_NPSN_O +: 24]), .len(ow[`OW_LEN_O +: 32]), .qn(qn), .tx_wqe(tx_wqe), .sq_ci(sq_ci),
      .tx_pkt(tx_pkt), .una(una), .rcvd(rcvd), .psn_next(psn_next), .qp_type(qp_type), .is_rc(is_rc),
      .is_ud(is_ud), .pmtu_log(pmtu_log), .pmtu(pmtu), .qkey(qkey), .dmac(dmac), .dip(dip), .hop_limit(hop_limit),
      .tclass(tclass), .dest_qpn(dest_qpn), .sgid_index(sgid_index), .closed(p_closed),
      .closed_next(p_closed_next), .k(p_k), .off(p_off), .plen(p_plen), .last(p_last), .opcode(p_opcode),
      .psn(p_psn), .ackreq(p_ackreq), .se(p_se), .sport(p_sport), .va(p_va), .rkey(p_rkey), .rlen(p_rlen),
      .imm(p_imm), .swap_add(p_swap_add), .compare(p_compare), .h_dmac(p_dmac), .h_dip(p_dip), .h_hop(p_hop),
      .h_tclass(p_tclass), .h_dqpn(p_dqpn), .h_qkey(p_qkey), .deth_sqp(p_sqp), .gid_i(p_gid_i),
      .gid_ok(p_gid_ok), .hlen0(p_hlen0));

  logic [3:0] gid_i;                 // the source GID of the packet (REQST_WAIT_TX)
  assign e_gid_idx = st_build ? p_gid_i : gid_i;   // REQST_BUILD_HDR resolves it (hdr_fold)

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      gid_i <= '0;
      h_opcode <= '0; h_se <= 1'b0; h_ackreq <= 1'b0; h_psn <= '0; h_dqpn <= '0; h_pay_len <= '0;
      h_dmac <= '0; h_smac <= '0; h_tclass <= '0; h_hop <= '0; h_sip <= '0; h_dip <= '0; h_sport <= '0;
      h_va <= '0; h_rkey <= '0; h_rlen <= '0; h_imm <= '0; h_qkey <= '0; h_deth_sqp <= '0;
      h_swap_add <= '0; h_compare <= '0;
    end else if (ce && !srst) begin
      if (load) begin
        h_opcode   <= p_opcode;
        h_psn      <= p_psn;
        h_ackreq   <= p_ackreq;
        h_se       <= `HCA_BUG(hdr_se, p_se, !p_se);
        h_pay_len  <= p_plen;
        h_va       <= p_va;
        h_rkey     <= p_rkey;
        h_rlen     <= p_rlen;
        h_swap_add <= p_swap_add;
        h_compare  <= p_compare;
        h_imm      <= p_imm;
        h_smac     <= port_mac;
        h_sport    <= `HCA_BUG(udp_sport, p_sport, p_sport ^ 16'h0001);
        h_dmac     <= p_dmac;
        h_dip      <= p_dip;
        h_hop      <= p_hop;
        h_tclass   <= p_tclass;
        h_dqpn     <= p_dqpn;
        h_qkey     <= p_qkey;
        h_deth_sqp <= p_sqp;
        gid_i      <= p_gid_i;
        h_sip      <= p_gid_ok ? e_gid[127:96] : 32'h0;         // (REQST_WAIT_TX resolves it again)
      end
      // source IP from the GID table (index < table size, else 0)
      if (st_wait_tx && h_sip != 32'h0) h_sip <= e_gid[127:96];
    end
  end
endmodule
