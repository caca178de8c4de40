`include "hca_defs.vh"

// The requester step's requests to the WQE prefetch (hca_wqe_prefetch): the
// registered issue, its key, address and length, and the invalidation.
//   * `now_go` (hca_req REQST_FETCH_WQE giving way: the WQE at SQ_HEAD not
//     prefetched, an entry free now, other work waiting): SQ_HEAD's WQE is
//     read into an entry that may be another QP's unused one (`wp_now`), so
//     that the step can end while the read is in flight;
//   * `ahead_go` (the step's fetch or take, hca_req_next fetch_go): the next
//     posted WQE (SQ_HEAD + 1) is read ahead when an entry is free and at
//     least two WQEs are posted from SQ_HEAD on, within the ring;
//   * `inv` (a flush, a failed WQE, a read-ahead payload fault): the QP's
//     entry is dropped.
// Every request is registered (seen by hca_wqe_prefetch in the next cycle);
// the key {QPN, WQE index, qpc_gen} of the read.  Caller: hca_req (split out
// of it, same cycles).  Model: none (the model reads a WQE when it starts it).
module hca_req_pf_issue #(
    parameter int LOG_MAX_QP = 8
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        now_go,
    input  logic        ahead_go,
    input  logic        inv,
    input  logic        wp_free,         // hca_wqe_prefetch: an entry free for a read ahead
    input  logic [LOG_MAX_QP-1:0] qn,
    input  logic [15:0] sq_head,
    input  logic [15:0] sq_pi,           // the QP's producer index (live)
    input  logic [15:0] qpc_gen,
    input  logic [63:0] sq_base,
    input  logic [4:0]  log_sq_size,
    input  logic [3:0]  log_sq_stride,
    input  logic [63:0] head_addr,       // SQ_HEAD's WQE
    input  logic [15:0] len1,            // a WQE's first read (hca_wqe_check)
    output logic        wp_issue, wp_now, wp_inv,
    output logic [LOG_MAX_QP+31:0] wp_ikey,
    output logic [63:0] wp_addr,
    output logic [15:0] wp_len
);
  `include "hca_funcs.vh"
  logic [15:0] nx, ahead;
  assign nx    = sq_head + 16'd1;
  assign ahead = sq_pi - sq_head;                    // posted, from SQ_HEAD on
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      wp_issue <= 1'b0; wp_now <= 1'b0; wp_inv <= 1'b0; wp_ikey <= '0; wp_addr <= '0; wp_len <= '0;
    end else if (srst) begin
      wp_issue <= 1'b0; wp_now <= 1'b0; wp_inv <= 1'b0;
    end else if (ce) begin
      wp_issue <= 1'b0; wp_now <= 1'b0;
      wp_inv   <= inv;
      if (now_go) begin
        wp_issue <= 1'b1;
        wp_now   <= 1'b1;                            // may take another QP's unused entry
        wp_ikey  <= {qn, sq_head, qpc_gen};
        wp_addr  <= head_addr;
        wp_len   <= len1;
      end
      if (ahead_go && wp_free && ahead >= 16'd2 && {16'b0, ahead} <= (32'd1 << log_sq_size)) begin
        wp_issue <= 1'b1;                            // the next posted WQE, read ahead
        wp_ikey  <= {qn, nx, qpc_gen};
        wp_addr  <= slot_addr(sq_base, nx, log_sq_size, log_sq_stride);
        wp_len   <= len1;
      end
    end
  end
endmodule
