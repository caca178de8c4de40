`include "hca_defs.vh"

// ACK/NAK for the request packet being processed (model/resp.c send_ack).
//
// Job (docs/rtl.md "Handshakes"): `req` held with the PSN and the AETH
// syndrome until `done`.  ACKST_BUILD loads the ACK's header fields
// (addresses swapped from the request, MSN from the responder state, the
// QP's traffic class, hop limit and destination QPN); ACKST_WAIT_TX waits
// for the transmitter (tx_free) and starts the frame (`go`, unless the port
// is down: the frame is then lost) and counts it (TX_ACK or TX_NAK).  The
// header fields go to hca_tx_hdr, which shows them to the header generator
// while `sel` is high (from the build until the framer has taken them).
// Caller: hca_resp.
module hca_ack_send #(
    parameter int LOG_MAX_QP = 8
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        req,
    input  logic [23:0] psn,
    input  logic [7:0]  syn,             // AETH syndrome
    output logic        done,
    output logic        dbg_act,
    output logic [7:0]  dbg_st,
    // the item and the received request
    input  logic [LOG_MAX_QP-1:0] qn,
    input  logic [23:0] msn,
    input  logic [7:0]  tclass,
    input  logic [7:0]  hop_limit,
    input  logic [23:0] dest_qpn,
    input  logic [47:0] p_smac,
    input  logic [47:0] p_dmac,
    input  logic [31:0] p_sip,
    input  logic [31:0] p_dip,
    input  logic        port_up,
    // hca_tx_hdr
    input  logic        tx_free,
    output logic        sel,
    output logic        go,
    output logic [23:0] h_psn,
    output logic [7:0]  h_aeth_syn,
    output logic [23:0] h_aeth_msn,
    output logic [47:0] h_dmac,
    output logic [47:0] h_smac,
    output logic [31:0] h_sip,
    output logic [31:0] h_dip,
    output logic [7:0]  h_tclass,
    output logic [7:0]  h_hop,
    output logic [15:0] h_sport,
    output logic [23:0] h_dqpn,
    // hca_regs
    output logic [`HCA_STAT_COUNT-1:0] s_stat
);
  typedef enum logic [1:0] {ACKST_IDLE, ACKST_BUILD, ACKST_WAIT_TX} st_t;
  st_t state_q, state;
  always_comb begin
    state = state_q;
    if (state_q == ACKST_IDLE && req) state = ACKST_BUILD;
  end
  assign dbg_act = state != ACKST_IDLE;
  assign dbg_st  = 8'(state);
  assign sel     = state == ACKST_WAIT_TX || go;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= ACKST_IDLE; done <= 1'b0; go <= 1'b0; s_stat <= '0;
      h_psn <= '0; h_aeth_syn <= '0; h_aeth_msn <= '0; h_dmac <= '0; h_smac <= '0; h_sip <= '0; h_dip <= '0;
      h_tclass <= '0; h_hop <= '0; h_sport <= '0; h_dqpn <= '0;
    end else if (srst) begin
      state_q <= ACKST_IDLE; done <= 1'b0; go <= 1'b0; s_stat <= '0;
    end else if (ce) begin
      done <= 1'b0; go <= 1'b0; s_stat <= '0;
      state_q <= state;
      case (state)
        ACKST_BUILD: begin
          h_psn      <= psn;
          h_aeth_syn <= syn;
          h_aeth_msn <= msn;
          h_dmac     <= p_smac;
          h_smac     <= p_dmac;
          h_sip      <= p_dip;
          h_dip      <= p_sip;
          h_tclass   <= tclass;
          h_hop      <= hop_limit;
          h_sport    <= 16'(`HCA_WIRE_UDP_SPORT_BASE) | ({{(16-LOG_MAX_QP){1'b0}}, qn} & 16'(`HCA_WIRE_UDP_SPORT_MASK));
          h_dqpn     <= dest_qpn;
          state_q    <= ACKST_WAIT_TX;
        end
        ACKST_WAIT_TX: if (tx_free) begin
          if (port_up) go <= 1'b1;
          if (h_aeth_syn[7:5] == 3'(`HCA_AETH_TYPE_ACK)) s_stat[`HCA_STAT_TX_ACK] <= 1'b1;
          else s_stat[`HCA_STAT_TX_NAK] <= 1'b1;
          done <= 1'b1; state_q <= ACKST_IDLE;
        end
        default: ;
      endcase
    end
  end
endmodule
