`include "hca_defs.vh"

// AXI4-Lite slave -> simple register port.  One transaction at a time;
// a write completes (BVALID) only after the register side acknowledges it,
// so a context command has taken effect when the write response arrives
// (engine.h: mgmt_write completes before it returns).  Only aligned 32-bit
// accesses with all byte strobes set reach the register side; others are
// answered OKAY and ignored (reads return 0), as programming.md prescribes.
module hca_axil_slave #(
    parameter int ADDR_W = 20
) (
    input  logic              clk,
    input  logic              rst_n,
    // AXI4-Lite
    input  logic              awvalid,
    output logic              awready,
    input  logic [ADDR_W-1:0] awaddr,
    input  logic              wvalid,
    output logic              wready,
    input  logic [31:0]       wdata,
    input  logic [3:0]        wstrb,
    output logic              bvalid,
    input  logic              bready,
    output logic [1:0]        bresp,
    input  logic              arvalid,
    output logic              arready,
    input  logic [ADDR_W-1:0] araddr,
    output logic              rvalid,
    input  logic              rready,
    output logic [31:0]       rdata,
    output logic [1:0]        rresp,
    // register port: req held until ack (one cycle)
    output logic              req,
    output logic              req_we,
    output logic [ADDR_W-1:0] req_addr,
    output logic [31:0]       req_wdata,
    input  logic              ack,
    input  logic [31:0]       ack_rdata
);
  typedef enum logic [2:0] {S_IDLE, S_WREQ, S_WRESP, S_RREQ, S_RRESP} state_t;
  state_t st;
  logic   bad;   // misaligned or partial: ignored

  assign awready = (st == S_IDLE) && awvalid && wvalid;
  assign wready  = (st == S_IDLE) && awvalid && wvalid;
  assign arready = (st == S_IDLE) && !(awvalid && wvalid) && arvalid;
  assign bresp   = 2'b00;
  assign rresp   = 2'b00;
  assign bvalid  = (st == S_WRESP);
  assign rvalid  = (st == S_RRESP);
  assign req     = (st == S_WREQ || st == S_RREQ) && !bad;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      st        <= S_IDLE;
      bad       <= 1'b0;
      req_we    <= 1'b0;
      req_addr  <= '0;
      req_wdata <= '0;
      rdata     <= '0;
    end else begin
      case (st)
        S_IDLE:
          if (awvalid && wvalid) begin
            req_we    <= 1'b1;
            req_addr  <= awaddr;
            req_wdata <= wdata;
            bad       <= (awaddr[1:0] != 2'b00) || (wstrb != 4'hF);
            st        <= S_WREQ;
          end else if (arvalid) begin
            req_we    <= 1'b0;
            req_addr  <= araddr;
            bad       <= (araddr[1:0] != 2'b00);
            st        <= S_RREQ;
          end
        S_WREQ:
          if (bad || ack) st <= S_WRESP;
        S_WRESP:
          if (bready) st <= S_IDLE;
        S_RREQ:
          if (bad || ack) begin
            rdata <= bad ? 32'h0 : ack_rdata;
            st    <= S_RRESP;
          end
        S_RRESP:
          if (rready) st <= S_IDLE;
        default: st <= S_IDLE;
      endcase
    end
  end
endmodule
