// The first packet's payload read of a starting send WQE, issued in the
// cycle its lkey check reports (issue 12, doorbell to wire): the requester's
// gather walk (REQST_GATHER) would push the same piece four cycles later,
// after REQST_GATE, REQST_BUILD_HDR and REQST_WAIT_TX.
//
// Combinational.  In hca_req's REQST_LKEY_RESULT (`at_result`, the cycle
// hca_mr_check's done presents verr and the DMA address) the piece is pushed
// to hca_dma_rd (`go`, on the g_* outputs) when
//   * the check passed (verr 0: a bad lkey never reads; the WQE fails as
//     before, REQST_WQE_ERR),
//   * the WQE is a SEND/WRITE (not READ/atomic), not inline, with one SGE
//     (sk_i 0 is its last check) of non-zero length: the first packet's
//     payload is then that SGE's first min(length, PMTU) bytes, one piece,
//   * a transmit slot is free (the step commits it, nothing else does while
//     a QP step runs: hca_ack_send's owed ACK masks steps), and
//   * REQST_GATE will let the WQE start (`gate_hold` low: the fence and the
//     window at PSN_NEXT, which nothing in the step changes before it).
// The piece lands in the free slot at the first packet's header length
// (hlen0, hca_req_pkt), as the walk would place it; hca_req_gather closes
// the slot in REQST_WAIT_TX without walking.  Otherwise the g_* outputs carry
// the walk's registered pieces (w_*).  Caller: hca_req_gather (for hca_req).
// Model: none (the model reads the payload when it builds the packet; the
// read only moves earlier).
module hca_req_pay_early (
    input  logic        at_result,       // hca_req REQST_LKEY_RESULT
    input  logic [7:0]  verr,            // hca_mr_check, with done
    input  logic [63:0] iova,
    input  logic [7:0]  nsge,
    input  logic [4:0]  sk_i,
    input  logic [31:0] sk_len,
    input  logic        v_inline,
    input  logic        v_rdat,
    input  logic [31:0] pmtu,
    input  logic [7:0]  hlen0,
    input  logic        tx_free,
    input  logic        gate_hold,
    output logic        go,
    // the gather walk's pieces (registered in hca_req_gather)
    input  logic        w_push,
    input  logic [63:0] w_iova,
    input  logic [15:0] w_len,
    input  logic [15:0] w_dst,
    input  logic [4:0]  w_idx,
    // to hca_dma_rd
    output logic        g_push,
    output logic [63:0] g_iova,
    output logic [15:0] g_len,
    output logic [15:0] g_dst,
    output logic [4:0]  g_idx
);
  /* verilator lint_off UNUSEDSIGNAL */
  logic [31:0] plen;                     // at most the PMTU (4096)
  /* verilator lint_on UNUSEDSIGNAL */
  assign plen = (sk_len > pmtu) ? pmtu : sk_len;
  assign go = at_result && verr == 8'h0 && nsge == 8'd1 && sk_i == 5'd0 && sk_len != 32'h0 && !v_inline &&
              !v_rdat && tx_free && !gate_hold;
  assign g_push = w_push || go;
  assign g_iova = go ? iova : w_iova;
  assign g_len  = go ? plen[15:0] : w_len;
  assign g_dst  = go ? {8'b0, hlen0} : w_dst;
  assign g_idx  = go ? 5'd0 : w_idx;
endmodule
