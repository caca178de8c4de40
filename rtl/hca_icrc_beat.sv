// ICRC of RoCEv2 over IPv4 (docs/wire.md section 1), one beat at a time.
//
// The ICRC is CRC-32 (init 0xFFFFFFFF, final complement, appended LSB first)
// over: 8 bytes of 0xFF, the IPv4 header with TOS, TTL and checksum set to
// ones, the UDP header with its checksum set to ones, the BTH with byte 4 set
// to ones, and everything after up to (not including) the ICRC.  In frame
// offsets: the region is [14, crc_end) with bytes 15, 22, 24, 25, 40, 41 and
// 46 replaced by 0xFF.
//
// The 8 0xFF bytes are folded into a constant start state S_INIT.  The beat
// that holds frame offset 14 at lane s starts from S_PRE(s), the state from
// which s zero bytes lead to S_INIT (the zero-byte CRC step is invertible),
// and has its lanes below s zeroed; so the region start needs no shifter.
// Beats wholly before offset 14 output S_INIT.  crc_out is the raw register;
// the ICRC is ~crc_out after the beat that holds byte crc_end - 1.
//
// The framers call the same logic as a function (icrc_beat_f,
// hca_crc32_fn.vh) inside their flops' enables; this structural module is
// the reference the unit test (tb_crc_top, rtl_crc64/512) checks it against.
`include "hca_defs.vh"

module hca_icrc_beat #(
    parameter int DATA_W = 64
) (
    input  logic [31:0]       crc_in,     // state after the previous beat
    input  logic [DATA_W-1:0] data,       // frame bytes [beat_off, beat_off + DATA_W/8)
    input  logic [15:0]       beat_off,   // frame offset of lane 0 (multiple of DATA_W/8)
    input  logic [15:0]       crc_end,    // frame offset where the CRC region ends
    output logic [31:0]       crc_out
);
  localparam int WB = DATA_W / 8;
  localparam int LW = $clog2(WB);
  localparam int REGION = `HCA_WIRE_ETH_HLEN;          // 14
  localparam int FIRST_OFF = (REGION / WB) * WB;        // beat offset holding byte 14
  localparam int S = REGION - FIRST_OFF;                // its lane
  localparam logic [31:0] POLY = 32'hEDB88320;

  function automatic [31:0] crc_ff8(input integer nbits);
    reg [31:0] c;
    integer i;
    begin
      c = 32'hFFFFFFFF;
      for (i = 0; i < nbits; i = i + 1)
        c = (c >> 1) ^ ((c[0] ^ 1'b1) ? POLY : 32'h0);
      crc_ff8 = c;
    end
  endfunction

  // Undo n zero bytes: the forward step is c' = c>>1 ^ (c[0] ? POLY : 0), and
  // POLY[31] = 1 recovers c[0] from c'[31].
  function automatic [31:0] crc_unzero(input [31:0] s0, input integer n);
    reg [31:0] c;
    reg b;
    integer i;
    begin
      c = s0;
      for (i = 0; i < 8 * n; i = i + 1) begin
        b = c[31];
        c = ((b ? (c ^ POLY) : c) << 1) | {31'b0, b};
      end
      crc_unzero = c;
    end
  endfunction

  localparam logic [31:0] S_INIT = crc_ff8(64);
  localparam logic [31:0] S_PRE = crc_unzero(S_INIT, S);

  logic [DATA_W-1:0] masked;
  logic [31:0]       start;
  logic [LW:0]       nbytes;
  logic [31:0]       crc_step;
  logic              pre_region, first;

  assign pre_region = (beat_off + 16'(WB)) <= 16'(REGION);
  assign first  = (beat_off == 16'(FIRST_OFF));

  always_comb begin : mask_lanes
    integer i;
    logic [15:0] p;
    masked = data;
    for (i = 0; i < WB; i = i + 1) begin
      p = beat_off + 16'(i);
      if (first && i < S)
        masked[8*i +: 8] = 8'h00;
      if (p == 16'd15 || p == 16'd22 || p == 16'd24 || p == 16'd25 ||
          p == 16'd40 || p == 16'd41 || p == 16'd46)
        masked[8*i +: 8] = 8'hFF;
    end
  end

  logic [15:0] remain;
  assign remain = crc_end - beat_off;
  always_comb begin : count
    if (crc_end <= beat_off)
      nbytes = '0;
    else if (remain >= 16'(WB))
      nbytes = (LW+1)'(WB);
    else
      nbytes = remain[LW:0];
  end

  assign start = first ? S_PRE : crc_in;

  hca_crc32 #(.DATA_W(DATA_W)) u_crc (.crc_in(start), .data(masked), .nbytes(nbytes), .crc_out(crc_step));

  assign crc_out = pre_region ? S_INIT : crc_step;
endmodule
