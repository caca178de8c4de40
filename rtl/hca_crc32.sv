// CRC-32 step over one DATA_W beat with 0..DATA_W/8 valid bytes starting at
// lane 0 (byte i of the beat is data[8*i +: 8]).
//
// A full beat goes through one DATA_W-wide parallel block.  A partial beat
// (the tail of a message) is decomposed in binary: for each set bit of
// nbytes, from the largest, a block of that many bytes processes the next
// slice -- log2(DATA_W/8) chained blocks, the classic way to finish a CRC on
// a byte boundary without one block per possible length.
//
// The framers use the function form (crc32_f, hca_crc32_fn.vh); this module
// and hca_crc32_blk are the structural reference the unit test checks it
// against (tb_crc_top, rtl_crc64/512).
module hca_crc32 #(
    parameter int DATA_W = 64
) (
    input  logic [31:0]            crc_in,
    input  logic [DATA_W-1:0]      data,
    input  logic [$clog2(DATA_W/8):0] nbytes,   // 0 .. DATA_W/8
    output logic [31:0]            crc_out
);
  localparam int WB = DATA_W / 8;
  localparam int LW = $clog2(WB);

  logic [31:0] c_full;
  hca_crc32_blk #(.NB(WB)) u_full (.crc_in(crc_in), .data(data), .crc_out(c_full));

  // c_stage[32*j +: 32] is the CRC after the partial stages of size >= 2^j.
  logic [32*(LW+1)-1:0] c_stage /* verilator split_var */;
  assign c_stage[32*LW +: 32] = crc_in;

  genvar j;
  generate
    for (j = LW - 1; j >= 0; j = j - 1) begin : g_part
      localparam int P = 1 << j;
      logic [LW:0]       off;      // bytes consumed by the larger stages
      /* verilator lint_off UNUSEDSIGNAL */
      logic [DATA_W-1:0] shifted;      // only the low P bytes are used
      /* verilator lint_on UNUSEDSIGNAL */
      logic [31:0]       c_blk;
      localparam int MASKI = (1 << (LW + 1)) - (2 * P);
      assign off     = {1'b0, nbytes[LW-1:0]} & MASKI[LW:0];
      assign shifted = data >> {off, 3'b000};
      hca_crc32_blk #(.NB(P)) u_blk (.crc_in(c_stage[32*(j+1) +: 32]), .data(shifted[P*8-1:0]), .crc_out(c_blk));
      assign c_stage[32*j +: 32] = nbytes[j] ? c_blk : c_stage[32*(j+1) +: 32];
    end
  endgenerate

  assign crc_out = nbytes[LW] ? c_full : c_stage[31:0];
endmodule
