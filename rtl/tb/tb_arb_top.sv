// Unit-test wrapper: hca_call_arb with four callers of 8-bit arguments, for
// tb_arb.cpp (the callers and the callee are modelled in C++).
module tb_arb_top (
    input  logic       clk,
    input  logic       rst_n,
    input  logic       ce,
    input  logic       srst,
    input  logic [3:0] req,
    input  logic [31:0] arg,
    input  logic       done,
    output logic       c_req,
    output logic [7:0] c_arg,
    output logic [3:0] gnt,
    output logic [3:0] c_done
);
  hca_call_arb #(.N(4), .W(8)) u_arb (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req(req), .arg(arg), .done(done),
      .c_req(c_req), .c_arg(c_arg), .gnt(gnt), .c_done(c_done));
endmodule
