// WQE prefetch: the send WQE after the one the requester is starting, read
// ahead into hca_dma_rd's prefetch buffer (pb) while the current WQE's
// packets are gathered and framed (issue 12, the next WQE's fetch out of the
// per-message series); and a QP's WQE read here rather than into fetch
// buffer 0 when other work waits, so that the requester's step can give the
// engine to it while the read is in flight (hca_req REQST_FETCH_WQE).
//
// PF_N entries (hca_top: 16, one per QP for up to 16 QPs streaming; each its
// own read tag), each keyed by {QPN, WQE index, qpc_gen}: a QPC write
// (modify, reset) moves qpc_gen, so a prefetch made before it never hits
// after it.  hca_req drives it (its REQST_FETCH_WQE), always for the
// QP of its step (q_key's QPN):
//   * issue (one cycle, with i_key, i_addr, i_len) when `free`: the read
//     goes out on the entry's tag.  The entry is the QP's own one if it has
//     one not in flight (a QP holds one entry: its next WQE), else the
//     lowest empty or stale (qpc_gen moved) one; another QP's live entry is
//     never replaced: QPs served in round robin would otherwise evict each
//     other's WQE before it is used, each eviction a wasted read;
//   * q_key is the WQE the requester wants now; `hit` = an entry holds it,
//     `ready` = its read completed (`err`: it faulted -- reported by the
//     requester only now, when it starts that WQE, as the model would);
//   * take (one cycle, with hit and ready): the hit entry is used up; unless
//     it faulted, its pb is copied into fetch buffer 0 (p_load, fb valid in
//     the next cycle);
//   * inv (one cycle): the QP's entries are dropped (flush, a failed WQE, a
//     rewind); a read still in flight is completed and ignored.
// A read is the WQE's first read, i_len / d_len = min(stride, 80) bytes
// (the header and one segment); a WQE longer than that is read again whole
// into fetch buffer 0 by the requester once taken (hca_req need_rest).
// The reads themselves are hca_dma_rd's (p_start .. p_done, per entry); a
// soft reset drops the entries and hca_dma_rd orphans their reads.  A
// completed entry's SGE 0 lkey is checked ahead by hca_wqe_lkey_ahead
// (hca_top), which watches p_start, p_done and p_load.
// Caller: hca_req (through hca_transport).  Model: none (the model fetches
// a WQE when it starts it, model/req.c start_wqe; the prefetch only moves
// the read earlier, never what is done with it).
module hca_wqe_prefetch #(
    parameter int KEY_W = 8 + 16 + 16,     // {QPN, WQE index, qpc_gen}
    parameter int PF_N  = 1,               // entries
    localparam int PW = PF_N > 1 ? $clog2(PF_N) : 1
) (
    input  logic             clk,
    input  logic             rst_n,
    input  logic             ce,
    input  logic             srst,
    // hca_req
    input  logic             issue,
    input  logic             now,         // with issue: the WQE wanted now (may evict)
    input  logic [KEY_W-1:0] i_key,
    input  logic [63:0]      i_addr,
    input  logic [15:0]      i_len,
    // hca_db_wqe_read: the WQE at SQ_HEAD read from its doorbell (taken when
    // no requester issue comes in the same cycle and no entry has the key)
    input  logic             d_issue,
    input  logic [KEY_W-1:0] d_key,
    input  logic [63:0]      d_addr,
    input  logic [15:0]      d_len,
    input  logic             take,
    input  logic             inv,
    input  logic [KEY_W-1:0] q_key,
    output logic             free,
    output logic             free_now,    // ... for a WQE wanted now
    output logic             hit,
    output logic             ready,
    output logic             err,
    output logic             wake,        // a read completed: its QP is stepped again (hca_ctx busy bit)
    output logic [KEY_W-33:0] wake_qn,
    // hca_dma_rd
    output logic             p_start,
    output logic [PW-1:0]    p_sidx,
    output logic [63:0]      p_addr,
    output logic [15:0]      p_len,
    input  logic [PF_N-1:0]  p_busy,
    input  logic [PF_N-1:0]  p_done,
    input  logic             p_err,
    output logic             p_load,
    output logic [PW-1:0]    p_lidx
);
  logic [PF_N-1:0] v, fl, e, nw;     // nw: read for a WQE wanted now (never evicted)
  logic [KEY_W-1:0] key [0:PF_N-1];

  // The issue in hand: the requester's, else the doorbell's (a_*).
  logic             a_issue, a_now, d_dup;
  logic [KEY_W-1:0] a_key;
  assign a_issue = issue || (d_issue && !d_dup);
  assign a_now   = issue && now;
  assign a_key   = issue ? i_key : d_key;
  // (the scans of the key compares below run only in the cycles that read
  // their result: Verilator evaluates this logic on every edge, docs/sim.md 9.1)
  always_comb begin : dup
    integer x;
    x = 0;                                 // (assigned on every path: no latch)
    d_dup = 1'b0;
    if (d_issue)
      for (x = 0; x < PF_N; x = x + 1)
        if (v[x] && key[x] == d_key) d_dup = 1'b1;
  end

  // The entry a prefetch of i_key may use (i_ok, i_ai): the QP's own entry
  // not in flight, else the lowest empty or stale one not in flight.  `free`
  // asks the same for q_key (the same QP and generation in the cycle before).
  // A WQE wanted now (`now`: the requester gives way while it is read) may
  // also take the lowest entry another QP holds unused for its next WQE
  // (read again when that QP starts it), never one read for a WQE wanted
  // now (QPs giving way would evict each other's WQE before it is used).
  logic          q_ok, i_ok, any_now;   // any_now: an entry a WQE wanted now may take
  logic [PW-1:0] i_ai, i_aa;
  // i_ok and i_ai are read only with an issue (p_start, p_sidx, the
  // entries' write): their scan runs only then.
  always_comb begin : alloc
    integer x;
    logic own;
    logic [PF_N-1:0] qm;
    i_ok = 1'b0; own = 1'b0; i_ai = '0; i_aa = '0;
    // q_ok, any_now (every cycle): bit vectors, one OR each, no branches
    for (x = 0; x < PF_N; x = x + 1)
      qm[x] = key[x][KEY_W-1:32] == q_key[KEY_W-1:32] || key[x][15:0] != q_key[15:0];
    q_ok    = (~fl & ~p_busy & (~v | qm)) != '0;
    any_now = (~fl & ~p_busy & (~v | ~nw)) != '0;
    if (a_issue) begin
      for (x = PF_N - 1; x >= 0; x = x - 1)
        if (!fl[x] && !p_busy[x]) begin
          if (!v[x] || !nw[x]) i_aa = PW'(x);
          if (v[x] && key[x][KEY_W-1:32] == a_key[KEY_W-1:32]) begin
            i_ok = 1'b1; own = 1'b1; i_ai = PW'(x);
          end else if (!own && (!v[x] || key[x][15:0] != a_key[15:0])) begin
            i_ok = 1'b1; i_ai = PW'(x);
          end
        end
      if (a_now && !i_ok) i_ai = i_aa;
      i_ok = i_ok || (a_now && any_now);
    end
  end

  // the entry holding q_key
  logic [PW-1:0] h;
  always_comb begin : find
    integer x;
    hit = 1'b0; h = '0;
    for (x = PF_N - 1; x >= 0; x = x - 1)
      if (v[x] && key[x] == q_key) begin
        hit = 1'b1; h = PW'(x);
      end
  end

  always_comb begin : woken
    integer x;
    x = 0;                                 // (assigned on every path: no latch)
    wake = 1'b0; wake_qn = '0;
    if ((p_done & fl) != '0)
      for (x = PF_N - 1; x >= 0; x = x - 1)
        if (p_done[x] && fl[x]) begin
          wake = 1'b1; wake_qn = key[x][KEY_W-1:32];
        end
  end
  assign free    = q_ok;
  assign free_now = any_now;
  // ready from the read's done cycle on (pb complete then; p_err with it)
  assign ready   = !fl[h] || p_done[h];
  assign err     = fl[h] ? p_err : e[h];
  assign p_start = ce && a_issue && i_ok;
  assign p_sidx  = i_ai;
  assign p_addr  = issue ? i_addr : d_addr;
  assign p_len   = issue ? i_len : d_len;
  assign p_load  = ce && take && hit && ready && !err;
  assign p_lidx  = h;

  always_ff @(posedge clk or negedge rst_n) begin : entries
    integer x;
    if (!rst_n) begin
      v <= '0; fl <= '0; e <= '0; nw <= '0;
      for (x = 0; x < PF_N; x = x + 1) key[x] <= '0;
    end else if (srst) begin
      v <= '0; fl <= '0; e <= '0;
    end else if (ce) begin
      for (x = 0; x < PF_N; x = x + 1) begin
        if (p_done[x] && fl[x]) begin
          fl[x] <= 1'b0;
          e[x]  <= p_err;
        end
        if (inv && key[x][KEY_W-1:32] == q_key[KEY_W-1:32]) v[x] <= 1'b0;
      end
      if (take && hit) v[h] <= 1'b0;
      if (a_issue && i_ok) begin
        v[i_ai] <= 1'b1; fl[i_ai] <= 1'b1; e[i_ai] <= 1'b0; nw[i_ai] <= a_now; key[i_ai] <= a_key;
      end
    end
  end
endmodule
