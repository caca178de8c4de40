`include "hca_defs.vh"

// The requester's SGE fields, kept out of hca_req's state process so that the
// variable selects of the wide fetch buffer are built once: the byte count,
// lkey and address of SGE sk_i (the lkey check's loop, whose arguments go to
// hca_mr_check) and the byte count of SGE gw_i (the gather walk), read from
// the send WQE in fetch buffer 0; and the translated addresses of the cached
// WQE's SGEs, a small register file written by index (`we`: a key check's
// good result for SGE sk_i) and read at the gather walk's SGE.
module hca_req_sge #(
    parameter int FB_BYTES = 320
) (
    input  logic        clk,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [FB_BYTES*8-1:0] fb,    // the WQE: control segment, remote address, SGEs
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [4:0]  sk_i,            // the lkey check's SGE
    input  logic [4:0]  gw_i,            // the gather walk's SGE
    input  logic        we,              // SGE sk_i's translated address is `iova`
    input  logic [63:0] iova,
    output logic [31:0] sk_len,
    output logic [31:0] sk_key,
    output logic [63:0] sk_addr,
    output logic [31:0] gw_len,
    output logic [63:0] gw_iova          // SGE gw_i's translated address
);
  assign sk_len  = fb[8*(64 + 16*sk_i + `HCA_WQE_DATA_SEG_BYTE_COUNT_OFF) +: 32];
  assign sk_key  = fb[8*(64 + 16*sk_i + `HCA_WQE_DATA_SEG_LKEY_OFF) +: 32];
  assign sk_addr = fb[8*(64 + 16*sk_i + `HCA_WQE_DATA_SEG_ADDR_OFF) +: 64];
  assign gw_len  = fb[8*(64 + 16*gw_i + `HCA_WQE_DATA_SEG_BYTE_COUNT_OFF) +: 32];

  logic [63:0] iova_r [0:15];
  always_ff @(posedge clk) begin
    if (we) iova_r[sk_i[3:0]] <= iova;
  end
  assign gw_iova = iova_r[gw_i[3:0]];
endmodule
