`include "hca_defs.vh"

// RoCEv2/IPv4 header generator (combinational): Ethernet II, IPv4 (with its
// checksum), UDP, BTH and the extension headers the opcode carries, per the
// field rules of docs/wire.md section 1.  hdr byte i is hdr[8*i +: 8]; bytes
// at and beyond hdr_len are zero.  The payload, pad and ICRC follow in the
// transmit path (hca_tx_frame).
//
// Byte arrays (MACs, IPv4 addresses, ImmDt) are in wire order, first byte in
// bits [7:0] -- the order they have in host memory (QPC dmac, GID bytes,
// WQE imm_data).  Numbers (PSN, QPN, VA, keys, lengths) are plain values
// and are written big-endian.
module hca_hdr_gen #(
    parameter int HDR_MAX = 96
) (
    input  logic [7:0]  opcode,
    input  logic        se,
    input  logic        ackreq,
    input  logic [23:0] psn,
    input  logic [23:0] dqpn,
    input  logic [15:0] pay_len,
    input  logic [47:0] dmac,
    input  logic [47:0] smac,
    input  logic [7:0]  tclass,      // IPv4 DSCP/ECN byte
    input  logic [7:0]  hop_limit,   // TTL; 0 means HCA_WIRE_IPV4_TTL_DEFAULT
    input  logic [31:0] sip,
    input  logic [31:0] dip,
    input  logic [15:0] sport,
    input  logic [63:0] reth_va,
    input  logic [31:0] reth_rkey,
    input  logic [31:0] reth_len,
    input  logic [31:0] imm,         // ImmDt bytes in wire order
    input  logic [7:0]  aeth_syn,
    input  logic [23:0] aeth_msn,
    input  logic [31:0] deth_qkey,
    input  logic [23:0] deth_sqp,
    input  logic [63:0] atm_swap_add,
    input  logic [63:0] atm_compare,
    input  logic [63:0] atmack_orig,
    output logic [HDR_MAX*8-1:0] hdr,
    output logic [7:0]  hdr_len,
    output logic [1:0]  padcnt,
    output logic [15:0] ip_len,
    output logic        valid         // opcode implemented
);
  localparam int IP_OFF  = `HCA_WIRE_ETH_HLEN;                      // 14
  localparam int UDP_OFF = IP_OFF + `HCA_WIRE_IPV4_HLEN;            // 34
  localparam int BTH_OFF = UDP_OFF + `HCA_WIRE_UDP_HLEN;            // 42
  localparam int EXT_OFF = BTH_OFF + `HCA_WIRE_BTH_LEN;             // 54

  /* verilator lint_off UNUSEDSIGNAL */
  logic [`OPI_W-1:0] info;           // only the header bits matter here
  /* verilator lint_on UNUSEDSIGNAL */
  logic [5:0]        ext_len;
  hca_opinfo u_op (.opcode(opcode), .info(info), .ext_len(ext_len));

  assign valid   = info[`OPI_VALID];
  assign padcnt  = 2'(-pay_len);
  assign hdr_len = 8'(EXT_OFF) + {2'b00, ext_len};
  assign ip_len  = 16'(`HCA_WIRE_IPV4_HLEN + `HCA_WIRE_UDP_HLEN + `HCA_WIRE_BTH_LEN + `HCA_WIRE_ICRC_LEN)
                 + {10'b0, ext_len} + pay_len + {14'b0, padcnt};

  logic [15:0] udp_len;
  logic [7:0]  ttl;
  assign udp_len = ip_len - 16'(`HCA_WIRE_IPV4_HLEN);
  assign ttl     = (hop_limit == 8'd0) ? 8'(`HCA_WIRE_IPV4_TTL_DEFAULT) : hop_limit;

  logic [HDR_MAX*8-1:0] h;     // header with a zero IPv4 checksum
  logic [19:0]          sum;
  logic [15:0]          csum;

  always_comb begin : build
    integer k;
    integer o;
    h = '0;
    // Ethernet II
    h[0 +: 48]  = dmac;
    h[48 +: 48] = smac;
    h[8*12 +: 8] = 8'(`HCA_WIRE_ETHERTYPE_IPV4 >> 8);
    h[8*13 +: 8] = 8'(`HCA_WIRE_ETHERTYPE_IPV4);
    // IPv4
    h[8*(IP_OFF+0) +: 8] = 8'h45;
    h[8*(IP_OFF+1) +: 8] = tclass;
    h[8*(IP_OFF+2) +: 8] = ip_len[15:8];
    h[8*(IP_OFF+3) +: 8] = ip_len[7:0];
    h[8*(IP_OFF+4) +: 8] = 8'(`HCA_WIRE_IPV4_ID >> 8);
    h[8*(IP_OFF+5) +: 8] = 8'(`HCA_WIRE_IPV4_ID);
    h[8*(IP_OFF+6) +: 8] = 8'(`HCA_WIRE_IPV4_FLAGS_DF >> 8);
    h[8*(IP_OFF+7) +: 8] = 8'(`HCA_WIRE_IPV4_FLAGS_DF);
    h[8*(IP_OFF+8) +: 8] = ttl;
    h[8*(IP_OFF+9) +: 8] = 8'd17;
    h[8*(IP_OFF+12) +: 32] = sip;
    h[8*(IP_OFF+16) +: 32] = dip;
    // UDP
    h[8*(UDP_OFF+0) +: 8] = sport[15:8];
    h[8*(UDP_OFF+1) +: 8] = sport[7:0];
    h[8*(UDP_OFF+2) +: 8] = 8'(`HCA_WIRE_UDP_DPORT >> 8);
    h[8*(UDP_OFF+3) +: 8] = 8'(`HCA_WIRE_UDP_DPORT);
    h[8*(UDP_OFF+4) +: 8] = udp_len[15:8];
    h[8*(UDP_OFF+5) +: 8] = udp_len[7:0];
    h[8*(UDP_OFF+6) +: 8] = 8'(`HCA_WIRE_UDP_CSUM >> 8);
    h[8*(UDP_OFF+7) +: 8] = 8'(`HCA_WIRE_UDP_CSUM);
    // BTH
    h[8*(BTH_OFF+0) +: 8] = opcode;
    h[8*(BTH_OFF+1) +: 8] = {se, 1'(`HCA_WIRE_BTH_MIGREQ), padcnt, 4'(`HCA_WIRE_BTH_TVER)};
    h[8*(BTH_OFF+2) +: 8] = 8'(`HCA_WIRE_PKEY_DEFAULT >> 8);
    h[8*(BTH_OFF+3) +: 8] = 8'(`HCA_WIRE_PKEY_DEFAULT);
    h[8*(BTH_OFF+4) +: 8] = 8'h00;
    for (k = 0; k < 3; k = k + 1)
      h[8*(BTH_OFF+5+k) +: 8] = dqpn[8*(2-k) +: 8];
    h[8*(BTH_OFF+8) +: 8] = {ackreq, 7'b0};
    for (k = 0; k < 3; k = k + 1)
      h[8*(BTH_OFF+9+k) +: 8] = psn[8*(2-k) +: 8];
    // Extension headers, in wire order.
    o = EXT_OFF;
    if (info[`OPI_DETH]) begin
      for (k = 0; k < 4; k = k + 1) h[8*(o+k) +: 8] = deth_qkey[8*(3-k) +: 8];
      h[8*(o+4) +: 8] = 8'h00;
      for (k = 0; k < 3; k = k + 1) h[8*(o+5+k) +: 8] = deth_sqp[8*(2-k) +: 8];
      o = o + `HCA_WIRE_DETH_LEN;
    end
    if (info[`OPI_RETH]) begin
      for (k = 0; k < 8; k = k + 1) h[8*(o+k) +: 8] = reth_va[8*(7-k) +: 8];
      for (k = 0; k < 4; k = k + 1) h[8*(o+8+k) +: 8] = reth_rkey[8*(3-k) +: 8];
      for (k = 0; k < 4; k = k + 1) h[8*(o+12+k) +: 8] = reth_len[8*(3-k) +: 8];
      o = o + `HCA_WIRE_RETH_LEN;
    end
    if (info[`OPI_ATMETH]) begin
      for (k = 0; k < 8; k = k + 1) h[8*(o+k) +: 8] = reth_va[8*(7-k) +: 8];
      for (k = 0; k < 4; k = k + 1) h[8*(o+8+k) +: 8] = reth_rkey[8*(3-k) +: 8];
      for (k = 0; k < 8; k = k + 1) h[8*(o+12+k) +: 8] = atm_swap_add[8*(7-k) +: 8];
      for (k = 0; k < 8; k = k + 1) h[8*(o+20+k) +: 8] = atm_compare[8*(7-k) +: 8];
      o = o + `HCA_WIRE_ATOMICETH_LEN;
    end
    if (info[`OPI_AETH]) begin
      h[8*o +: 8] = aeth_syn;
      for (k = 0; k < 3; k = k + 1) h[8*(o+1+k) +: 8] = aeth_msn[8*(2-k) +: 8];
      o = o + `HCA_WIRE_AETH_LEN;
    end
    if (info[`OPI_ATMACK]) begin
      for (k = 0; k < 8; k = k + 1) h[8*(o+k) +: 8] = atmack_orig[8*(7-k) +: 8];
      o = o + `HCA_WIRE_ATOMICACKETH_LEN;
    end
    if (info[`OPI_IMMDT]) begin
      h[8*o +: 32] = imm;
    end
  end

  // IPv4 header checksum: ones' complement of the ones' complement sum of
  // the ten header words (checksum field zero while summing).
  always_comb begin : ipsum
    integer k;
    logic [19:0] s;
    s = '0;
    for (k = 0; k < 10; k = k + 1)
      s = s + {4'b0, h[8*(IP_OFF+2*k) +: 8], h[8*(IP_OFF+2*k+1) +: 8]};
    sum = s;
  end

  logic [16:0] fold1;
  assign fold1 = {1'b0, sum[15:0]} + {13'b0, sum[19:16]};
  assign csum  = ~(fold1[15:0] + {15'b0, fold1[16]});

  always_comb begin : out
    hdr = h;
    hdr[8*(IP_OFF+10) +: 8] = csum[15:8];
    hdr[8*(IP_OFF+11) +: 8] = csum[7:0];
  end
endmodule
