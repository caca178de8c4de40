// WQE prefetch: the send WQE after the one the requester is starting, read
// ahead into hca_dma_rd's prefetch buffer (pb) while the current WQE's
// packets are gathered and framed (issue 12, the next WQE's fetch out of the
// per-message series); and a QP's WQE read here rather than into fetch
// buffer 0 when other work waits, so that the requester's step can give the
// engine to it while the read is in flight (hca_req REQST_FETCH_WQE).
//
// One entry for the whole engine, keyed by {QPN, WQE index, qpc_gen}: a
// QPC write (modify, reset) moves qpc_gen, so a prefetch made before it
// never hits after it.  hca_req drives it (its REQST_FETCH_WQE):
//   * issue (one cycle, with i_key, i_addr, i_len) when `free`: the read
//     goes out on the prefetch tag.  An entry still held is replaced only
//     by its own QP or when it is stale (qpc_gen moved): QPs served in
//     round robin would otherwise evict each other's WQE before it is used,
//     each eviction a wasted read;
//   * q_key is the WQE the requester wants now; `hit` = the entry holds it,
//     `ready` = its read completed (`err`: it faulted -- reported by the
//     requester only now, when it starts that WQE, as the model would);
//   * take (one cycle): the entry is used up; unless it faulted, pb is copied
//     into fetch buffer 0 (p_load, fb valid in the cycle after next);
//   * inv (one cycle): the entry is dropped (flush, a failed WQE, a rewind);
//     a read still in flight is completed and ignored.
// The read itself is hca_dma_rd's (p_start .. p_done); a soft reset drops
// the entry and hca_dma_rd orphans the read.
// Caller: hca_req (through hca_transport).  Model: none (the model fetches
// a WQE when it starts it, model/req.c start_wqe; the prefetch only moves
// the read earlier, never what is done with it).
module hca_wqe_prefetch #(
    parameter int KEY_W = 8 + 16 + 16      // {QPN, WQE index, qpc_gen}
) (
    input  logic             clk,
    input  logic             rst_n,
    input  logic             ce,
    input  logic             srst,
    // hca_req
    input  logic             issue,
    input  logic [KEY_W-1:0] i_key,
    input  logic [63:0]      i_addr,
    input  logic [15:0]      i_len,
    input  logic             take,
    input  logic             inv,
    input  logic [KEY_W-1:0] q_key,
    output logic             free,
    output logic             hit,
    output logic             ready,
    output logic             err,
    // hca_dma_rd
    output logic             p_start,
    output logic [63:0]      p_addr,
    output logic [15:0]      p_len,
    input  logic             p_busy,
    input  logic             p_done,
    input  logic             p_err,
    output logic             p_load
);
  logic             v, fl, e;
  logic [KEY_W-1:0] key;
  assign free    = !fl && !p_busy && (!v || key[KEY_W-1:32] == q_key[KEY_W-1:32] || key[15:0] != q_key[15:0]);
  assign hit     = v && key == q_key;
  assign ready   = !fl;
  assign err     = e;
  assign p_start = ce && issue && free;
  assign p_addr  = i_addr;
  assign p_len   = i_len;
  assign p_load  = ce && take && v && !fl && !e;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      v <= 1'b0; fl <= 1'b0; e <= 1'b0; key <= '0;
    end else if (srst) begin
      v <= 1'b0; fl <= 1'b0; e <= 1'b0;
    end else if (ce) begin
      if (p_done && fl) begin
        fl <= 1'b0;
        e  <= p_err;
      end
      if (take || inv) v <= 1'b0;
      if (issue && free) begin
        v <= 1'b1; fl <= 1'b1; e <= 1'b0; key <= i_key;
      end
    end
  end
endmodule
