`include "hca_defs.vh"

// True dual-port RAM (word writes): port A serves the register side
// (context commands), port B the engine.  Each port reads synchronously;
// en gates its read register so a frozen port keeps its data.  The two
// ports never write the same word in one cycle by construction (a QPC
// command waits out the engine's write-back of that QP, hca_ctx cc_wait;
// port B is disabled while the engine is held).  A read in the cycle the
// other port writes the same word returns the old word: hca_ctx relies on
// it when a QPC write lands in the engine's read cycle (engine running), so
// a RAM macro must be read-first across ports.
module hca_ram_tdp #(
    parameter int W     = 64,
    parameter int DEPTH = 64,
    localparam int AW   = (DEPTH > 1) ? $clog2(DEPTH) : 1
) (
    input  logic          clk,
    input  logic          a_en,
    input  logic          a_we,
    input  logic [AW-1:0] a_addr,
    input  logic [W-1:0]  a_wdata,
    output logic [W-1:0]  a_rdata,
    input  logic          b_en,
    input  logic          b_we,
    input  logic [AW-1:0] b_addr,
    input  logic [W-1:0]  b_wdata,
    output logic [W-1:0]  b_rdata
);
  logic [W-1:0] mem [0:DEPTH-1];

  always_ff @(posedge clk) begin
    if (a_en) begin
      if (a_we) mem[a_addr] <= a_wdata;
      a_rdata <= mem[a_addr];
    end
    if (b_en) begin
      if (b_we) mem[b_addr] <= b_wdata;
      b_rdata <= mem[b_addr];
    end
  end
endmodule
