`include "hca_defs.vh"

// Simple dual-port RAM: one write port with byte enables, one synchronous
// read port.  Read data is registered (rd_en gates the register, so a frozen
// reader keeps its data).  Read-during-write of the same address returns
// the old data.
module hca_ram_sdp #(
    parameter int W     = 64,     // multiple of 8
    parameter int DEPTH = 64,
    localparam int AW   = (DEPTH > 1) ? $clog2(DEPTH) : 1
) (
    input  logic           clk,
    input  logic           wr_en,
    input  logic [AW-1:0]  wr_addr,
    input  logic [W-1:0]   wr_data,
    input  logic [W/8-1:0] wr_be,
    input  logic           rd_en,
    input  logic [AW-1:0]  rd_addr,
    output logic [W-1:0]   rd_data
);
  logic [W-1:0] mem [0:DEPTH-1];

  always_ff @(posedge clk) begin
    if (rd_en) rd_data <= mem[rd_addr];
  end

  genvar b;
  generate
    for (b = 0; b < W / 8; b = b + 1) begin : g_be
      always_ff @(posedge clk) begin
        if (wr_en && wr_be[b]) mem[wr_addr][8*b +: 8] <= wr_data[8*b +: 8];
      end
    end
  endgenerate
endmodule
