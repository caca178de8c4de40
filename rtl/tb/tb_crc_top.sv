`include "hca_defs.vh"

// Unit-test wrapper: hca_crc32 and hca_icrc_beat side by side, for
// tb_crc.cpp (one Verilator model per DATA_W), and beside them their
// function forms (hca_crc32_fn.vh: crc32_f, icrc_beat_f, which the framers
// call), which must agree with them on every input.
module tb_crc_top #(
    parameter int DATA_W = 64
) (
    input  logic [31:0]               crc_in,
    input  logic [DATA_W-1:0]         data,
    input  logic [$clog2(DATA_W/8):0] nbytes,
    output logic [31:0]               crc_out,
    input  logic [31:0]               icrc_in,
    input  logic [15:0]               beat_off,
    input  logic [15:0]               crc_end,
    output logic [31:0]               icrc_out,
    output logic [31:0]               crc_f_out,
    output logic [31:0]               icrc_f_out
);
  `include "hca_crc32_fn.vh"
  assign crc_f_out = crc32_f(crc_in, data, nbytes);
  assign icrc_f_out = icrc_beat_f(icrc_in, data, beat_off, crc_end);
  hca_crc32 #(.DATA_W(DATA_W)) u_crc (.crc_in(crc_in), .data(data), .nbytes(nbytes), .crc_out(crc_out));
  hca_icrc_beat #(.DATA_W(DATA_W)) u_icrc (.crc_in(icrc_in), .data(data), .beat_off(beat_off),
                                           .crc_end(crc_end), .crc_out(icrc_out));
endmodule
