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

  // The byte-enabled write as one word write of the merged word: synthesis
  // turns the merge's feedback from the same address back into per-lane
  // write enables (Yosys opt_mem_feedback: one write port, no extra read
  // port), and the Verilated model evaluates it only in the cycles that
  // write.  A process per lane cost every clock edge a test and a delayed
  // write per lane (64 lanes at DATA_W 512: docs/sim.md 9.1).
  function automatic [W-1:0] merge(input [W-1:0] old, input [W-1:0] d, input [W/8-1:0] be);
    integer b;
    merge = old;
    for (b = 0; b < W / 8; b = b + 1)
      if (be[b]) merge[8*b +: 8] = d[8*b +: 8];
  endfunction
  always_ff @(posedge clk) begin
    if (wr_en) mem[wr_addr] <= merge(mem[wr_addr], wr_data, wr_be);
  end
endmodule
