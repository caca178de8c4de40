`include "hca_defs.vh"

// A response packet for the request being processed: ACK/NAK, RDMA READ
// response or atomic ACK (model/resp.c send_ack, read_responses, atomic_ack;
// rxe prepare_ack_packet).
//
// Job (docs/rtl.md "Handshakes"): `req` held with its arguments until `done`:
// the BTH opcode, PSN, AETH syndrome and MSN, the AtomicAckETH original
// value, and a payload (pay_len bytes at host address pay_iova: a READ
// response's data).  ACKST_BUILD loads the header fields (addresses swapped
// from the request, the QP's traffic class, hop limit and destination QPN);
// ACKST_WAIT_TX waits for a free transmit slot (tx_free, hca_tx_slots); a
// payload is then read into the slot behind the header (one hca_dma_rd
// gather piece, ACKST_WAIT_PAYLOAD; a read fault ends the job with pay_fault
// and no frame); the slot is committed (`go`; `drop` with it when the read
// faulted or the port is down: no frame) and goes out in slot order.  A
// frame without payload closes its slot's gather empty and commits at once.
// ACK/NAK frames count in TX_ACK or TX_NAK.  The header fields go to
// hca_tx_hdr, which shows them to the header generator while `sel` is high
// (from the build until the slot is committed).
// An owed ACK (`owe` with req: the ACK of a posted payload write, hca_resp;
// docs/rtl.md "Posted payload writes") is built and the call taken at once
// (`took`, in the call's cycle, instead of done: docs/rtl.md "The
// responder's frame period");
// its write is the last posted one hca_dma_wr accepted (pw_seq - 1: the
// call comes while hca_resp issues it, and no other write starts before
// the call is done).  ACKST_WAIT_POSTED then waits for that write's
// response (its sequence number no longer between pw_rseq and pw_seq;
// earlier posted writes of other QPs may still be outstanding before it):
// sent as above when it is good (no done: the caller has gone on), dropped
// when it faulted (pw_rerr: the packet is replayed and NAKed instead).
// Further owed ACKs are taken while one is owed (ACKST_WAIT_POSTED or
// ACKST_WAIT_TX, or the cycle a queued one is loaded): the header fields and
// write number of each are kept in a queue of Q_N entries (q_e; taken at
// once), and the oldest becomes the ACK being sent -- waiting for its own
// write -- when the one before is committed or dropped: owed ACKs leave in
// the order of their calls, and no other call is taken until all have
// (docs/rtl.md "The responder alone", "The responder's frame period": Q_N 2,
// three owed ACKs, one per posted write hca_recv lets be outstanding).
// `owed` is high from the build until it is committed or dropped: no QP
// step or timer step starts meanwhile (hca_transport masks them), and the
// receive path's frames all come through this job, which takes no new call
// until then, so nothing is sent before the owed ACK.
// Callers: hca_resp (ACK/NAK), hca_read_atomic (READ responses, atomic ACKs).
module hca_ack_send #(
    parameter int LOG_MAX_QP = 8,
    parameter int Q_N        = 2          // owed ACKs queued behind the one being sent (a power of two)
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        req,
    input  logic [7:0]  opcode,          // HCA_BTH_OP_RC_*
    input  logic [23:0] psn,
    input  logic [7:0]  syn,             // AETH syndrome
    input  logic [23:0] msn,             // AETH MSN
    input  logic [63:0] orig,            // AtomicAckETH original value
    input  logic [63:0] pay_iova,        // payload (READ response)
    input  logic [15:0] pay_len,
    input  logic        owe,             // with req: the ACK of the posted write (above)
    input  logic [2:0]  pw_seq,          // hca_dma_wr: the next posted write's sequence number
    input  logic [2:0]  pw_rseq,         // ... the next posted response's
    input  logic [7:0]  pw_rerr,         // ... each returned one's error, by sequence
    output logic        owed,
    output logic        done,
    output logic        took,            // an owed call taken in this cycle (built or queued; no done)
    output logic        pay_fault,       // with done: the payload read faulted, nothing sent
    output logic        dbg_act,
    output logic [7:0]  dbg_st,
    // the item and the received request
    input  logic [LOG_MAX_QP-1:0] qn,
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
    input  logic [7:0]  hdr_len,         // of the selected header: the payload's offset
    output logic        sel,
    output logic        go,              // commit the transmit slot (with drop: no frame)
    output logic        drop,
    output logic [7:0]  h_opcode,
    output logic [23:0] h_psn,
    output logic [7:0]  h_aeth_syn,
    output logic [23:0] h_aeth_msn,
    output logic [63:0] h_orig,
    output logic [15:0] h_pay_len,
    output logic [47:0] h_dmac,
    output logic [47:0] h_smac,
    output logic [31:0] h_sip,
    output logic [31:0] h_dip,
    output logic [7:0]  h_tclass,
    output logic [7:0]  h_hop,
    output logic [15:0] h_sport,
    output logic [23:0] h_dqpn,
    // hca_dma_rd gather: the payload
    output logic        d_g_push,
    output logic [63:0] d_g_iova,
    output logic [15:0] d_g_len,
    output logic [15:0] d_g_dst,
    output logic        d_g_close,
    input  logic        d_g_done,
    input  logic        d_g_fault,
    // hca_regs
    output logic [`HCA_STAT_COUNT-1:0] s_stat
);
  typedef enum logic [2:0] {ACKST_IDLE, ACKST_BUILD, ACKST_WAIT_TX, ACKST_WAIT_PAYLOAD, ACKST_WAIT_POSTED} st_t;
  st_t state_q, state;
  localparam int QW = Q_N > 1 ? $clog2(Q_N) : 1;
  logic [QW:0] q_c;                      // owed ACKs queued (below)
  logic        q_v;
  assign q_v = q_c != '0;
  always_comb begin
    state = state_q;
    if (state_q == ACKST_IDLE && req && !q_v) state = ACKST_BUILD;
  end
  assign dbg_act = state != ACKST_IDLE && state != ACKST_WAIT_POSTED;
  assign dbg_st  = 8'(state);
  assign sel     = state == ACKST_WAIT_TX || state == ACKST_WAIT_PAYLOAD || go;

  logic [63:0] iova;
  logic        owed_q;                   // the frame being sent is an owed ACK (no done)
  assign owed = owed_q || q_v;
  logic [2:0]  my_seq;                   // the owed ACK's write
  logic        my_out;                   // ... its response is outstanding
  assign my_out = (my_seq - pw_rseq) < (pw_seq - pw_rseq);
  // the queued owed ACKs (above): a FIFO of Q_N entries, q_h the oldest;
  // taken while one is owed, or in the cycle the oldest is loaded (q_pop)
  localparam int QE_W = 8 + 24 + 8 + 24 + 48 + 48 + 32 + 32 + 8 + 8 + 16 + 24 + 3;
  logic [QE_W-1:0] q_e [0:Q_N-1];
  logic [QW-1:0] q_h, q_t;
  logic        q_acc, q_pop;
  logic [7:0]  q_opcode, q_syn, q_tclass, q_hop;
  logic [23:0] q_psn, q_msn, q_dqpn;
  logic [47:0] q_dmac, q_smac;
  logic [31:0] q_sip, q_dip;
  logic [15:0] q_sport;
  logic [2:0]  q_seq;
  assign {q_opcode, q_psn, q_syn, q_msn, q_dmac, q_smac, q_sip, q_dip, q_tclass, q_hop, q_sport, q_dqpn, q_seq} =
         q_e[q_h];
  // (owe implies req; from owe and registers only: hca_resp ends the packet
  // on took in the same cycle, and req also carries hca_read_atomic's calls)
  assign q_pop = state_q == ACKST_IDLE && q_v;
  assign q_t   = QW'(q_h + QW'(q_c));    // (full: the entry q_pop empties)
  assign q_acc = owe && (q_c != (QW+1)'(Q_N) || q_pop) &&
                 ((owed_q && (state_q == ACKST_WAIT_POSTED || state_q == ACKST_WAIT_TX)) || q_pop);
  assign took  = q_acc || (state_q == ACKST_IDLE && owe && !q_v);

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= ACKST_IDLE; done <= 1'b0; pay_fault <= 1'b0; go <= 1'b0; drop <= 1'b0; s_stat <= '0; iova <= '0;
      owed_q <= 1'b0; my_seq <= '0;
      q_c <= '0; q_h <= '0;
      for (int i = 0; i < Q_N; i = i + 1) q_e[i] <= '0;
      h_opcode <= '0; h_psn <= '0; h_aeth_syn <= '0; h_aeth_msn <= '0; h_orig <= '0; h_pay_len <= '0;
      h_dmac <= '0; h_smac <= '0; h_sip <= '0; h_dip <= '0; h_tclass <= '0; h_hop <= '0; h_sport <= '0;
      h_dqpn <= '0;
      d_g_push <= 1'b0; d_g_iova <= '0; d_g_len <= '0; d_g_dst <= '0; d_g_close <= 1'b0;
    end else if (srst) begin
      state_q <= ACKST_IDLE; done <= 1'b0; go <= 1'b0; s_stat <= '0; d_g_push <= 1'b0; d_g_close <= 1'b0;
      owed_q <= 1'b0; q_c <= '0;
    end else if (ce) begin
      done <= 1'b0; go <= 1'b0; s_stat <= '0; d_g_push <= 1'b0; d_g_close <= 1'b0;
      state_q <= state;
      if (q_acc)
        q_e[q_t] <= {opcode, psn, syn, msn, p_smac, p_dmac, p_dip, p_sip, tclass, hop_limit,
                     16'(`HCA_WIRE_UDP_SPORT_BASE) | ({{(16-LOG_MAX_QP){1'b0}}, qn} & 16'(`HCA_WIRE_UDP_SPORT_MASK)),
                     dest_qpn, pw_seq - 3'd1};
      q_c <= q_c + (QW+1)'(q_acc) - (QW+1)'(q_pop);
      if (q_pop) q_h <= QW'(q_h + QW'(1));
      case (state)
        ACKST_BUILD: begin
          h_opcode   <= opcode;
          h_psn      <= psn;
          h_aeth_syn <= syn;
          h_aeth_msn <= msn;
          h_orig     <= orig;
          h_pay_len  <= pay_len;
          iova       <= pay_iova;
          h_dmac     <= p_smac;
          h_smac     <= p_dmac;
          h_sip      <= p_dip;
          h_dip      <= p_sip;
          h_tclass   <= tclass;
          h_hop      <= hop_limit;
          h_sport    <= 16'(`HCA_WIRE_UDP_SPORT_BASE) | ({{(16-LOG_MAX_QP){1'b0}}, qn} & 16'(`HCA_WIRE_UDP_SPORT_MASK));
          h_dqpn     <= dest_qpn;
          owed_q     <= owe;
          my_seq     <= pw_seq - 3'd1;
          // owed: the caller goes on (took, in this cycle)
          state_q    <= owe ? ACKST_WAIT_POSTED : ACKST_WAIT_TX;
        end
        ACKST_WAIT_POSTED:
          if (!my_out) begin
            if (pw_rerr[my_seq]) begin
              owed_q <= 1'b0; state_q <= ACKST_IDLE;      // dropped: the replay NAKs the packet
            end else
              state_q <= ACKST_WAIT_TX;
          end
        ACKST_WAIT_TX: if (tx_free) begin
          // the transmit slot is committed either way (drop: no frame)
          if (h_pay_len != 16'd0) begin
            // the payload behind the header, one DMA read
            d_g_push  <= 1'b1;
            d_g_iova  <= iova;
            d_g_len   <= h_pay_len;
            d_g_dst   <= {8'b0, hdr_len};
            d_g_close <= 1'b1;
            state_q   <= ACKST_WAIT_PAYLOAD;
          end else begin
            d_g_close <= 1'b1;             // a slot without payload
            go   <= 1'b1;
            drop <= !port_up;
            if (h_opcode == 8'(`HCA_BTH_OP_RC_ACKNOWLEDGE)) begin
              if (h_aeth_syn[7:5] == 3'(`HCA_AETH_TYPE_ACK)) s_stat[`HCA_STAT_TX_ACK] <= 1'b1;
              else s_stat[`HCA_STAT_TX_NAK] <= 1'b1;
            end
            pay_fault <= 1'b0;
            done <= !owed_q; owed_q <= 1'b0; state_q <= ACKST_IDLE;
          end
        end
        ACKST_WAIT_PAYLOAD: if (d_g_done) begin
          go   <= 1'b1;
          drop <= d_g_fault || !port_up;
          pay_fault <= d_g_fault;
          done <= 1'b1; state_q <= ACKST_IDLE;
        end
        default: ;
      endcase
      // the queued owed ACK becomes the one being sent, waiting for its own
      // write, once the one before has left (committed or dropped; not in
      // the commit's cycle, whose header is still shown)
      if (q_pop) begin
        h_opcode   <= q_opcode;
        h_psn      <= q_psn;
        h_aeth_syn <= q_syn;
        h_aeth_msn <= q_msn;
        h_orig     <= '0;
        h_pay_len  <= '0;
        h_dmac     <= q_dmac;
        h_smac     <= q_smac;
        h_sip      <= q_sip;
        h_dip      <= q_dip;
        h_tclass   <= q_tclass;
        h_hop      <= q_hop;
        h_sport    <= q_sport;
        h_dqpn     <= q_dqpn;
        my_seq     <= q_seq;
        owed_q     <= 1'b1;
        state_q    <= ACKST_WAIT_POSTED;
      end
    end
  end
endmodule
