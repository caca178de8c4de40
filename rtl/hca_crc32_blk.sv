// Parallel CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320) over exactly
// NB bytes.  Pure combinational: crc_out is the CRC register after feeding
// data byte 0 (bits [7:0]) first, each byte least-significant bit first.  No
// pre- or post-inversion: callers own the initial value and the complement.
// The bit-serial loop is unrolled by the tools into an XOR network.
module hca_crc32_blk #(
    parameter int NB = 8
) (
    input  logic [31:0]     crc_in,
    input  logic [NB*8-1:0] data,
    output logic [31:0]     crc_out
);
  localparam logic [31:0] POLY = 32'hEDB88320;

  always_comb begin : crc_loop
    logic [31:0] c;
    integer i;
    c = crc_in;
    for (i = 0; i < NB * 8; i = i + 1)
      c = (c >> 1) ^ ((c[0] ^ data[i]) ? POLY : 32'h0);
    crc_out = c;
  end
endmodule
