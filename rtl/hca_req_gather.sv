`include "hca_defs.vh"

// The request packet's payload into its transmit slot (model/req.c
// send_packet: the payload gathered from the WQE's SGEs, or its inline
// data), for the packet hca_req built in REQST_BUILD_HDR (`off`, `plen`:
// its offset in the message and length).  Three ways, the slot closed
// (`g_close` to hca_dma_rd) with the last:
//   * the first packet's one piece, pushed with the lkey check's result
//     (hca_req_pay_early, instance u_early; `ep_go`, `ep_v` remembers it):
//     closed in REQST_BUILD_HDR (`fold`, hca_req_next hdr_fold), in the
//     push's own cycle (`fold` with `ep_go`, hca_req_next v_commit: the close
//     registered, a cycle after the push) or in REQST_WAIT_TX;
//   * inline data (`inl`), copied from fetch buffer 0 (`l_*`) in
//     REQST_WAIT_TX, the slot closed at once;
//   * else the gather walk: REQST_WAIT_TX (a free slot) starts it at SGE 0,
//     REQST_GATHER goes one SGE a cycle, skipping the SGEs before `off`,
//     pushing one piece per SGE it reads from (`g_*`, at the translated
//     address hca_req_sge gives for SGE gw_i), each placed after the
//     header (`hdr_len`) and the pieces before it; `walk_end` (combinational)
//     tells hca_req the cycle it closes the slot (the last piece, no bytes
//     left, or no SGE left).
// Registered pieces and close, as hca_dma_rd's queue takes them; the early
// piece goes out combinationally in its cycle (hca_req_pay_early).  Caller:
// hca_req (split out of it, same cycles).  Model: send_packet's payload.
module hca_req_gather (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    // hca_req's states
    input  logic        st_check,        // REQST_CHECK_STATE: a new step, no early piece
    input  logic        st_lkey_result,  // REQST_LKEY_RESULT
    input  logic        fold,            // REQST_BUILD_HDR closes the slot (hdr_fold)
    input  logic        st_wait_tx,      // REQST_WAIT_TX
    input  logic        st_gather,       // REQST_GATHER
    // the early piece (hca_req_pay_early's arguments)
    input  logic [7:0]  verr,
    input  logic [63:0] iova,
    input  logic [4:0]  sk_i,
    input  logic [31:0] sk_len,
    input  logic        v_inline,
    input  logic        v_rdat,
    input  logic [31:0] pmtu,
    input  logic [7:0]  hlen0,
    input  logic        gate_hold,
    output logic        ep_go,           // the first packet's piece pushed in this cycle
    output logic        ep_v,            // the first packet's piece was pushed early
    // the packet
    input  logic        tx_free,
    input  logic        inl,             // the WQE's data is inline
    input  logic [31:0] off,
    input  logic [15:0] plen,
    input  logic [7:0]  hdr_len,
    input  logic [7:0]  nsge,
    // hca_req_sge: SGE gw_i's byte count and translated address
    output logic [4:0]  gw_i,
    input  logic [31:0] gw_len,
    input  logic [63:0] gw_iova,
    output logic        walk_end,
    // hca_dma_rd
    output logic        g_push,
    output logic [63:0] g_iova,
    output logic [15:0] g_len,
    output logic [15:0] g_dst,
    output logic [4:0]  g_idx,
    output logic        g_close,
    output logic        l_start,
    output logic [15:0] l_src,
    output logic [15:0] l_len,
    output logic [15:0] l_dst
);
  logic        w_push;               // the walk's registered piece
  logic [63:0] w_iova;
  logic [15:0] w_len, w_dst;
  logic [4:0]  w_idx;
  hca_req_pay_early u_early (
      .at_result(st_lkey_result), .verr(verr), .iova(iova), .nsge(nsge), .sk_i(sk_i), .sk_len(sk_len),
      .v_inline(v_inline), .v_rdat(v_rdat), .pmtu(pmtu), .hlen0(hlen0), .tx_free(tx_free), .gate_hold(gate_hold),
      .go(ep_go), .w_push(w_push), .w_iova(w_iova), .w_len(w_len), .w_dst(w_dst), .w_idx(w_idx),
      .g_push(g_push), .g_iova(g_iova), .g_len(g_len), .g_dst(g_dst), .g_idx(g_idx));

  // the walk: SGE gw_i, gw_offr bytes of it still to skip, gw_rem bytes of
  // the packet left, the next piece at gw_dst in the slot
  logic [31:0] gw_offr;
  logic [15:0] gw_rem, gw_dst;
  logic        w_over, w_skip;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [31:0] w_chunk;              // at most gw_rem: the low 16 bits
  /* verilator lint_on UNUSEDSIGNAL */
  assign w_over  = gw_rem == 16'd0 || 8'(gw_i) >= nsge;
  assign w_skip  = gw_offr >= gw_len;
  assign w_chunk = (gw_len - gw_offr > {16'b0, gw_rem}) ? {16'b0, gw_rem} : gw_len - gw_offr;
  assign walk_end = st_gather && (w_over || (!w_skip && w_chunk[15:0] == gw_rem));

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      ep_v <= 1'b0; gw_i <= '0; gw_offr <= '0; gw_rem <= '0; gw_dst <= '0;
      w_push <= 1'b0; w_iova <= '0; w_len <= '0; w_dst <= '0; w_idx <= '0; g_close <= 1'b0;
      l_start <= 1'b0; l_src <= '0; l_len <= '0; l_dst <= '0;
    end else if (srst) begin
      ep_v <= 1'b0; w_push <= 1'b0; g_close <= 1'b0; l_start <= 1'b0;
    end else if (ce) begin
      w_push <= 1'b0; g_close <= 1'b0; l_start <= 1'b0;
      if (st_check) ep_v <= 1'b0;
      if (ep_go) ep_v <= 1'b1;
      if (fold) begin
        ep_v    <= 1'b0;
        g_close <= 1'b1;
      end
      if (st_wait_tx && tx_free) begin
        if (ep_v) begin
          // the payload's one piece was pushed with the lkey check: the
          // slot is closed, the walk skipped
          ep_v    <= 1'b0;
          g_close <= 1'b1;
        end else if (inl) begin
          if (plen != 16'd0) begin
            l_start <= 1'b1;
            l_src   <= 16'(`HCA_WQE_DATA_OFF) + off[15:0];
            l_len   <= plen;
            l_dst   <= {8'b0, hdr_len};
          end
          g_close <= 1'b1;
        end else begin
          gw_i    <= '0;
          gw_offr <= off;
          gw_rem  <= plen;
          gw_dst  <= {8'b0, hdr_len};
        end
      end
      if (st_gather) begin
        if (w_over)
          g_close <= 1'b1;
        else if (w_skip) begin
          gw_offr <= gw_offr - gw_len;
          gw_i    <= gw_i + 5'd1;
        end else begin
          w_push  <= 1'b1;
          w_iova  <= gw_iova + {32'b0, gw_offr};
          w_len   <= w_chunk[15:0];
          w_dst   <= gw_dst;
          w_idx   <= gw_i;
          gw_dst  <= gw_dst + w_chunk[15:0];
          gw_rem  <= gw_rem - w_chunk[15:0];
          gw_offr <= '0;
          gw_i    <= gw_i + 5'd1;
          if (w_chunk[15:0] == gw_rem)
            g_close <= 1'b1;             // the last piece: the packet closed with it
        end
      end
    end
  end
endmodule
