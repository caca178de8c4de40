`include "hca_defs.vh"

// Receive parser (combinational).  Checks a received frame in exactly the
// order of the model's codec (model/hdr.c roce_parse_ex, docs/packet.md) and
// extracts the header fields.  Inputs come from hca_rx_frame: the first
// HDR_CAP bytes of the frame (zero beyond its end), the frame length, the
// streaming sum of the UDP datagram and the ICRC verdict.
module hca_rx_parse #(
    parameter int HDR_CAP = 96
) (
    input  logic [HDR_CAP*8-1:0] hdr,
    input  logic [15:0] frame_len,
    input  logic        too_long,    // frame did not fit the receive buffer
    input  logic [31:0] udp_sum,     // sum of the big-endian 16-bit words of [34, 14 + ip_len)
    input  logic        icrc_ok,
    output logic [4:0]  reason,      // `RXD_*; `RXD_NONE = accepted
    output logic [`OPI_W-1:0] info,
    // fields (valid when reason == `RXD_NONE)
    output logic [47:0] dmac,        // wire order, byte 0 in [7:0]
    output logic [47:0] smac,
    output logic [7:0]  tclass,
    output logic [7:0]  ttl,
    output logic [31:0] sip,         // wire order
    output logic [31:0] dip,
    output logic [15:0] ip_len,
    output logic [15:0] sport,
    output logic [7:0]  opcode,
    output logic        se,
    output logic        migreq,
    output logic [1:0]  padcnt,
    output logic [15:0] pkey,
    output logic [23:0] dqpn,
    output logic        ackreq,
    output logic [23:0] psn,
    output logic [63:0] reth_va,     // also AtomicETH VA
    output logic [31:0] reth_rkey,   // also AtomicETH R_Key
    output logic [31:0] reth_len,
    output logic [31:0] imm,         // wire order
    output logic [7:0]  aeth_syn,
    output logic [23:0] aeth_msn,
    output logic [31:0] deth_qkey,
    output logic [23:0] deth_sqp,
    output logic [63:0] atm_swap_add,
    output logic [63:0] atm_compare,
    output logic [63:0] atmack_orig,
    output logic [7:0]  pay_off,     // frame offset of the payload
    output logic [15:0] pay_len
);
  localparam int IP_OFF  = `HCA_WIRE_ETH_HLEN;
  localparam int UDP_OFF = IP_OFF + `HCA_WIRE_IPV4_HLEN;
  localparam int BTH_OFF = UDP_OFF + `HCA_WIRE_UDP_HLEN;
  localparam int EXT_OFF = BTH_OFF + `HCA_WIRE_BTH_LEN;

  function automatic [7:0] b(input integer i);
    b = hdr[8*i +: 8];
  endfunction
  function automatic [15:0] be16(input integer i);
    be16 = {hdr[8*i +: 8], hdr[8*(i+1) +: 8]};
  endfunction
  // Big-endian fields at variable offsets.
  function automatic [23:0] be24(input integer o);
    be24 = {hdr[8*o +: 8], hdr[8*(o+1) +: 8], hdr[8*(o+2) +: 8]};
  endfunction
  function automatic [31:0] be32(input integer o);
    be32 = {hdr[8*o +: 8], hdr[8*(o+1) +: 8], hdr[8*(o+2) +: 8], hdr[8*(o+3) +: 8]};
  endfunction
  function automatic [63:0] be64(input integer o);
    be64 = {be32(o), be32(o + 4)};
  endfunction

  logic [5:0]  ext_len;
  hca_opinfo u_op (.opcode(opcode), .info(info), .ext_len(ext_len));

  assign dmac   = hdr[0 +: 48];
  assign smac   = hdr[48 +: 48];
  assign tclass = b(IP_OFF + 1);
  assign ttl    = b(IP_OFF + 8);
  assign ip_len = be16(IP_OFF + 2);
  assign sip    = hdr[8*(IP_OFF+12) +: 32];
  assign dip    = hdr[8*(IP_OFF+16) +: 32];
  assign sport  = be16(UDP_OFF);
  assign opcode = b(BTH_OFF);
  assign se     = hdr[8*(BTH_OFF+1) + 7];
  assign migreq = hdr[8*(BTH_OFF+1) + 6];
  assign padcnt = hdr[8*(BTH_OFF+1) + 4 +: 2];
  assign pkey   = be16(BTH_OFF + 2);
  assign dqpn   = be24(BTH_OFF + 5);
  assign ackreq = hdr[8*(BTH_OFF+8) + 7];
  assign psn    = be24(BTH_OFF + 9);

  // Extension headers at their opcode-dependent offsets.
  always_comb begin : ext
    integer o;
    reth_va = '0; reth_rkey = '0; reth_len = '0; imm = '0;
    aeth_syn = '0; aeth_msn = '0; deth_qkey = '0; deth_sqp = '0;
    atm_swap_add = '0; atm_compare = '0; atmack_orig = '0;
    o = EXT_OFF;
    if (info[`OPI_DETH]) begin
      deth_qkey = be32(o);
      deth_sqp  = be24(o + 5);
      o = o + `HCA_WIRE_DETH_LEN;
    end
    if (info[`OPI_RETH]) begin
      reth_va   = be64(o);
      reth_rkey = be32(o + 8);
      reth_len  = be32(o + 12);
      o = o + `HCA_WIRE_RETH_LEN;
    end
    if (info[`OPI_ATMETH]) begin
      reth_va      = be64(o);
      reth_rkey    = be32(o + 8);
      atm_swap_add = be64(o + 12);
      atm_compare  = be64(o + 20);
      o = o + `HCA_WIRE_ATOMICETH_LEN;
    end
    if (info[`OPI_AETH]) begin
      aeth_syn = hdr[8*o +: 8];
      aeth_msn = be24(o + 1);
      o = o + `HCA_WIRE_AETH_LEN;
    end
    if (info[`OPI_ATMACK]) begin
      atmack_orig = be64(o);
      o = o + `HCA_WIRE_ATOMICACKETH_LEN;
    end
    if (info[`OPI_IMMDT])
      imm = hdr[8*o +: 32];
  end

  // IPv4 header checksum over the ten words, and the UDP checksum with the
  // pseudo header (addresses, protocol 17, UDP length).
  logic [19:0] ip_sum;
  logic [15:0] ip_fold;
  logic [33:0] u_sum;
  logic [15:0] u_fold;
  always_comb begin : sums
    integer k;
    logic [16:0] f;
    logic [17:0] g;
    ip_sum = '0;
    for (k = 0; k < 10; k = k + 1)
      ip_sum = ip_sum + {4'b0, be16(IP_OFF + 2 * k)};
    f = {1'b0, ip_sum[15:0]} + {13'b0, ip_sum[19:16]};
    ip_fold = f[15:0] + {15'b0, f[16]};
    u_sum = {2'b0, udp_sum} + {18'b0, be16(IP_OFF + 12)} + {18'b0, be16(IP_OFF + 14)}
          + {18'b0, be16(IP_OFF + 16)} + {18'b0, be16(IP_OFF + 18)} + 34'd17
          + {18'b0, ip_len - 16'(`HCA_WIRE_IPV4_HLEN)};
    g = {2'b0, u_sum[15:0]} + {2'b0, u_sum[31:16]} + {16'b0, u_sum[33:32]};
    f = {1'b0, g[15:0]} + {15'b0, g[17:16]};
    u_fold = f[15:0] + {15'b0, f[16]};
  end

  // Lengths.  tl = transport bytes (BTH .. ICRC); rest = payload + pad.
  logic [15:0] tl, rest, need;
  assign tl   = ip_len - 16'(`HCA_WIRE_IPV4_HLEN + `HCA_WIRE_UDP_HLEN);
  assign need = 16'(`HCA_WIRE_BTH_LEN + `HCA_WIRE_ICRC_LEN) + {10'b0, ext_len};
  assign rest = tl - need;
  assign pay_off = 8'(EXT_OFF) + {2'b0, ext_len};
  assign pay_len = rest - {14'b0, padcnt};

  always_comb begin : checks
    if (too_long)
      reason = `RXD_TOO_LONG;
    else if (frame_len < 16'(`HCA_WIRE_ETH_HLEN))
      reason = `RXD_SHORT;
    else if (be16(12) != 16'(`HCA_WIRE_ETHERTYPE_IPV4))
      reason = `RXD_ETHERTYPE;
    else if (frame_len < 16'(IP_OFF + `HCA_WIRE_IPV4_HLEN))
      reason = `RXD_SHORT;
    else if (hdr[8*IP_OFF+4 +: 4] != 4'd4)
      reason = `RXD_IP_VERSION;
    else if (hdr[8*IP_OFF +: 4] != 4'(`HCA_WIRE_IPV4_HLEN / 4))
      reason = `RXD_IP_OPTIONS;
    else if (ip_fold != 16'hFFFF)
      reason = `RXD_IP_CSUM;
    else if (ip_len < 16'(`HCA_WIRE_IPV4_HLEN + `HCA_WIRE_UDP_HLEN) ||
             ip_len > frame_len - 16'(`HCA_WIRE_ETH_HLEN))
      reason = `RXD_IP_LEN;
    else if ((be16(IP_OFF + 6) & 16'h3FFF) != 16'h0)
      reason = `RXD_IP_FRAG;
    else if (b(IP_OFF + 9) != 8'd17)
      reason = `RXD_IP_PROTO;
    else if (be16(UDP_OFF + 2) != 16'(`HCA_WIRE_UDP_DPORT))
      reason = `RXD_UDP_PORT;
    else if (be16(UDP_OFF + 4) != ip_len - 16'(`HCA_WIRE_IPV4_HLEN))
      reason = `RXD_UDP_LEN;
    else if (be16(UDP_OFF + 6) != 16'h0 && u_fold != 16'hFFFF)
      reason = `RXD_UDP_CSUM;
    else if (tl < 16'(`HCA_WIRE_BTH_LEN + `HCA_WIRE_ICRC_LEN))
      reason = `RXD_HDR_LEN;
    else if (!icrc_ok)
      reason = `RXD_ICRC;
    else if (!info[`OPI_VALID])
      reason = `RXD_OPCODE;
    else if (hdr[8*(BTH_OFF+1) +: 4] != 4'(`HCA_WIRE_BTH_TVER))
      reason = `RXD_TVER;
    else if (tl < need)
      reason = `RXD_HDR_LEN;
    else if (rest[1:0] != 2'b00 || {14'b0, padcnt} > rest || (!info[`OPI_PAY] && rest != 16'h0))
      reason = `RXD_PAD;
    else
      reason = `RXD_NONE;
  end
endmodule
