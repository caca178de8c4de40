`include "hca_defs.vh"

// Transmit slots: the transmit buffer (in hca_tx_frame) as TX_SLOTS frame
// slots of 2^SLOT_LOG bytes, filled one at a time and framed OUT OF COMMIT
// ORDER where the order rules allow it (branch ooo, tried: docs/rtl.md
// "Out-of-order framing"), so the payload of the next packets is read while
// the framer sends this one and one slow payload read does not hold the
// slots behind it.
//
//   Writer (hca_req or hca_ack_send, one at a time, through hca_tx_hdr):
//   while `free`, it fills slot `wslot` (its payload pieces go to hca_dma_rd
//   with the slot in the buffer address, then one g_close), and commits it
//   with `go`: the frame's header, lengths and pad are captured here with
//   it, and `drop` says the slot holds no frame (a payload fault, the port
//   down).  A commit may come before or after the slot's gather is done.
//   `wslot` is chosen a cycle ahead (the first free slot after the last one
//   filled: the ring's order while slots leave in order) and stays while
//   it is filled.  No slot is free while BIG_MAX committed slots hold
//   BIG_LEN payload bytes or more.
//   Gather (hca_dma_rd): `g_done` with `g_slot` once every piece of a slot
//   has landed, `g_fault` if one faulted.
//   Order: `older[s]` are the slots committed before s; `dep[s]` the older
//   unframed slots s must follow (a QP's request slots in commit order; the
//   response slots all in commit order: an owed ACK is committed after its
//   item, so `tag_qn` is not its QP; docs/sim.md "Streams" keys frames by
//   QP and role), cleared when they go to the framer or are released.
//   Framer (hca_tx_frame): the oldest slot with no `dep` left whose gather
//   is done (or completes now) goes out (`f_go`, f_slot, its header) when
//   the framer takes it (`f_ready`) -- with OOO_K >= 0 a slot other than
//   the oldest unframed one only while TX_SLOTS - OOO_K or more are
//   committed, with -2 never (main's behaviour, cycle for cycle); the
//   oldest dropped or faulted one with no `dep` left is released without a
//   frame (one a cycle); a framed slot is released in the cycle the framer
//   reads its last word (`f_reading` drops), so the next slot goes out in
//   the next cycle without a gap.  A soft reset drops every committed slot
//   except one the framer is reading.
//
// Read ahead (hca_req): a request packet may be committed `async`, before
// its payload has arrived, tagged with its QP, WQE and packet; the
// requester then goes on.  If such a slot's payload faults, the slot is
// released without a frame (once no older slot of its QP is unframed), the
// fault is handed to hca_tx_faults (`fe_*`, one event per cycle), and every
// unframed younger slot of that QP's requests is dropped: the model never sent them (a later commit of a
// QP with a fault pending is dropped too, `pend_hit`).  `async_ok`: an async
// commit leaves room for its fault (async slots + pending faults stay within
// TX_SLOTS, the fault table's size), so a fault never waits.  `q_busy`: the
// item's QP has async packets in flight (its steps keep it busy until they
// are framed, so a fault finds it stepped).  `qrst` (hca_ctx: firmware
// reset QP `qrst_qn`, in a held cycle too) marks that QP's request slots
// orphans: a fault of one drops it and the QP's other orphans and goes to
// the table marked orphan (`fe_orph`: to be reported only, the reset forgot
// the WQE), and slots committed after the reset are not dropped with it.
module hca_tx_slots #(
    parameter int TX_SLOTS = 4,          // a power of two, >= 2
    parameter int BIG_MAX  = TX_SLOTS,   // committed slots of BIG_LEN bytes or more that leave a slot free
    parameter int BIG_LEN  = 1024,
    parameter int HDR_MAX  = 96,
    parameter int QW       = 8,          // QPN bits
    parameter int OOO_K    = -1,        // bypass: -1 always, -2 never, K: while TX_SLOTS - K or more are committed
    localparam int SW = $clog2(TX_SLOTS)
) (
    input  logic              clk,
    input  logic              rst_n,
    input  logic              ce,
    input  logic              srst,
    // writer
    input  logic              go,
    input  logic              drop,
    input  logic [HDR_MAX*8-1:0] hdr,
    input  logic [7:0]        hdr_len,
    input  logic [15:0]       pay_len,
    input  logic [1:0]        pad,
    input  logic              req,           // a request packet (tagged with its QP)
    input  logic              async,         // committed before its payload arrived
    input  logic [QW-1:0]     tag_qn,
    input  logic [15:0]       tag_wqe,
    input  logic [23:0]       tag_k,
    input  logic              pend_hit,      // tag_qn has a fault pending (hca_tx_faults)
    input  logic [SW:0]       n_faults,
    output logic              async_ok,
    input  logic [QW-1:0]     item_qn,
    output logic              q_busy,
    input  logic              qrst,
    input  logic [QW-1:0]     qrst_qn,
    // async fault (to hca_tx_faults)
    output logic              fe_v,
    output logic              fe_orph,       // of a QP reset since its commit
    output logic [QW-1:0]     fe_qn,
    output logic [15:0]       fe_wqe,
    output logic [23:0]       fe_k,
    output logic [63:0]       fe_iova,
    output logic              free,
    output logic [SW-1:0]     wslot,
    output logic              busy,          // a committed slot not yet released
    // gather (hca_dma_rd)
    input  logic              g_done,
    input  logic [SW-1:0]     g_slot,
    input  logic              g_fault,
    input  logic [63:0]       g_fault_iova,
    // framer (hca_tx_frame)
    output logic              f_go,
    output logic [SW-1:0]     f_slot,
    output logic [HDR_MAX*8-1:0] f_hdr,
    output logic [7:0]        f_hdr_len,
    output logic [15:0]       f_pay_len,
    output logic [1:0]        f_pad,
    input  logic              f_ready,
    input  logic              f_reading
);
  // slot state
  logic                 sending;            // slot snd_slot is in the framer
  logic [SW-1:0]        snd_slot;
  logic [TX_SLOTS-1:0]  s_gdone, s_gfault, s_drop, s_valid, s_out, s_req, s_async, s_orph;
  // older[s][j]: slot j was committed before slot s (meaningful while both
  // are valid); dep[s][j]: s may not go out before j (j older, unframed, of
  // the same order key)
  logic [TX_SLOTS-1:0]  older [0:TX_SLOTS-1];
  logic [TX_SLOTS-1:0]  dep [0:TX_SLOTS-1];
  logic                 w_have;             // w_slot is free and is the one being filled
  logic [SW-1:0]        w_slot;
  logic [QW-1:0]        s_qn [0:TX_SLOTS-1];
  logic [15:0]          s_wqe [0:TX_SLOTS-1];
  logic [23:0]          s_k [0:TX_SLOTS-1];
  logic [63:0]          s_iova [0:TX_SLOTS-1];
  logic [HDR_MAX*8-1:0] s_hdr [0:TX_SLOTS-1];
  logic [7:0]           s_hlen [0:TX_SLOTS-1];
  logic [15:0]          s_plen [0:TX_SLOTS-1];
  logic [1:0]           s_pad [0:TX_SLOTS-1];

  // candidates: a slot may leave once no slot it depends on is unframed; a
  // frame when its gather is done without a fault (or completes now: `fast`,
  // registered done with it), a release without a frame when it is done and
  // dropped or faulted
  logic [TX_SLOTS-1:0] c_frame, c_disc;
  always_comb begin : cands
    integer s;
    for (s = 0; s < TX_SLOTS; s = s + 1) begin
      c_frame[s] = s_valid[s] && !s_out[s] && dep[s] == '0 && !s_drop[s] &&
                   (s_gdone[s] ? !s_gfault[s] : (g_done && g_slot == SW'(s) && !g_fault));
      c_disc[s]  = s_valid[s] && !s_out[s] && dep[s] == '0 && s_gdone[s] && (s_gfault[s] || s_drop[s]);
    end
  end
  // the oldest of each: no older candidate
  logic [SW-1:0] fsel, dsel;
  logic          f_any, d_any;
  always_comb begin : oldest
    integer s;
    fsel = '0; dsel = '0; f_any = 1'b0; d_any = 1'b0;
    for (s = 0; s < TX_SLOTS; s = s + 1) begin
      if (c_frame[s] && (c_frame & older[s]) == '0) begin fsel = SW'(s); f_any = 1'b1; end
      if (c_disc[s] && (c_disc & older[s]) == '0) begin dsel = SW'(s); d_any = 1'b1; end
    end
  end
  // the oldest unframed slot (the ring's head)
  logic [SW-1:0] hsel;
  logic          h_any;
  logic [TX_SLOTS-1:0] unf;
  logic [SW:0]   n_val;
  always_comb begin : headsel
    integer s;
    unf = s_valid & ~s_out;
    hsel = '0; h_any = 1'b0; n_val = '0;
    for (s = 0; s < TX_SLOTS; s = s + 1) begin
      if (unf[s] && (unf & older[s]) == '0) begin hsel = SW'(s); h_any = 1'b1; end
      if (s_valid[s]) n_val = n_val + (SW+1)'(1);
    end
  end
  logic press;
  assign press = OOO_K == -1 || (OOO_K >= 0 && {1'b0, n_val} + (SW+2)'(OOO_K) >= (SW+2)'(TX_SLOTS));
  logic f_ok;
  assign f_ok = press || (h_any && fsel == hsel);
  assign f_go      = f_any && f_ok && !sending && f_ready;
  assign f_slot    = fsel;
  assign f_hdr     = s_hdr[fsel];
  assign f_hdr_len = s_hlen[fsel];
  assign f_pay_len = s_plen[fsel];
  assign f_pad     = s_pad[fsel];

  // an async packet whose payload faulted: its fault goes to the table
  assign fe_v    = d_any && s_async[dsel] && s_gfault[dsel] && !s_drop[dsel];
  assign fe_orph = s_orph[dsel];
  assign fe_qn   = s_qn[dsel];
  assign fe_wqe  = s_wqe[dsel];
  assign fe_k    = s_k[dsel];
  assign fe_iova = s_iova[dsel];

  // released now: the discarded slot, the framed slot whose last word is read
  // now; no longer waited for: those and the slot going out now
  logic [TX_SLOTS-1:0] rel, gone;
  assign rel  = (d_any ? (TX_SLOTS'(1) << dsel) : '0) |
                ((sending && !f_reading) ? (TX_SLOTS'(1) << snd_slot) : '0);
  assign gone = rel | (f_go ? (TX_SLOTS'(1) << fsel) : '0);

  logic [TX_SLOTS-1:0] kill;              // unframed slots dropped with the fault
  logic [TX_SLOTS-1:0] orph;              // slots of the QP firmware resets now
  logic [TX_SLOTS-1:0] w_dep;             // the committed slot waits for these
  logic [SW:0]         n_async, n_big;
  always_comb begin : tags
    integer s;
    kill = '0; orph = '0; w_dep = '0;
    n_async = '0; n_big = '0;
    q_busy = 1'b0;
    for (s = 0; s < TX_SLOTS; s = s + 1) begin
      kill[s] = fe_v && s_valid[s] && !s_out[s] && s_req[s] && s_qn[s] == s_qn[dsel] && SW'(s) != dsel &&
                s_orph[s] == s_orph[dsel];
      orph[s] = qrst && s_valid[s] && s_req[s] && s_qn[s] == qrst_qn;
      // order keys (docs/sim.md "Streams", docs/wire.md 3): a QP's requests
      // in commit order; responses all in commit order (an owed ACK is
      // committed after its item, so its QP is not the item's)
      w_dep[s] = s_valid[s] && !s_out[s] && !gone[s] && SW'(s) != w_slot &&
                 (req ? (s_req[s] && s_qn[s] == tag_qn) : !s_req[s]);
      if (s_valid[s] && s_async[s]) begin
        n_async = n_async + (SW+1)'(1);
        if (s_qn[s] == item_qn) q_busy = 1'b1;
      end
      // Big payloads: a read of BIG_LEN bytes or more lasts longer than the
      // frames behind it need to be covered, and the host may return the
      // reads in any order: no slot is free while BIG_MAX committed slots
      // hold such payloads
      if (s_valid[s] && s_plen[s] >= 16'(BIG_LEN)) n_big = n_big + (SW+1)'(1);
    end
  end
  assign async_ok = {1'b0, n_async} + {1'b0, n_faults} < (SW+2)'(TX_SLOTS);

  // allocation: the first slot free after the next state's commits and
  // releases, searched from the one after the last filled (in ring order
  // while slots leave in order)
  logic [TX_SLOTS-1:0] v_nx;
  logic [SW-1:0]       a_slot;
  logic                a_any;
  always_comb begin : alloc
    integer i;
    logic [SW-1:0] c;
    v_nx = (s_valid | ((ce && go) ? (TX_SLOTS'(1) << w_slot) : '0)) & ~(ce ? rel : '0);
    a_slot = '0; a_any = 1'b0;
    for (i = TX_SLOTS; i >= 1; i = i - 1) begin
      c = w_slot + SW'(i);
      if (!v_nx[c]) begin a_slot = c; a_any = 1'b1; end
    end
  end
  assign wslot = w_slot;
  assign free  = w_have && !go && {1'b0, n_big} < (SW+2)'(BIG_MAX);
  assign busy  = |s_valid;

  // header and tag store: written at the commit, read at the frame start
  always_ff @(posedge clk) begin
    if (ce && go) begin
      s_hdr[wslot]  <= hdr;
      s_hlen[wslot] <= hdr_len;
      s_plen[wslot] <= pay_len;
      s_pad[wslot]  <= pad;
      s_qn[wslot]   <= tag_qn;
      s_wqe[wslot]  <= tag_wqe;
      s_k[wslot]    <= tag_k;
    end
    if (ce && g_done) s_iova[g_slot] <= g_fault_iova;
  end

  always_ff @(posedge clk or negedge rst_n) begin : st
    integer s;
    if (!rst_n) begin
      sending <= 1'b0; snd_slot <= '0; w_have <= 1'b1; w_slot <= '0;
      s_gdone <= '0; s_gfault <= '0; s_drop <= '0; s_valid <= '0; s_out <= '0;
      s_req <= '0; s_async <= '0; s_orph <= '0;
      for (s = 0; s < TX_SLOTS; s = s + 1) begin older[s] <= '0; dep[s] <= '0; end
    end else if (srst) begin
      // work in flight dies with the reset; a slot being read finishes
      s_gdone <= '0; s_gfault <= '0; s_drop <= '0; s_async <= '0; s_orph <= '0;
      s_valid <= sending ? (TX_SLOTS'(1) << snd_slot) : '0;
      s_out   <= sending ? (TX_SLOTS'(1) << snd_slot) : '0;
      w_have  <= 1'b1;
      w_slot  <= (sending && snd_slot == '0) ? SW'(1) : '0;
      for (s = 0; s < TX_SLOTS; s = s + 1) dep[s] <= '0;
    end else if (!ce) begin
      s_orph <= s_orph | orph;
    end else begin
      s_drop <= s_drop | kill;
      s_orph <= s_orph | orph;
      for (s = 0; s < TX_SLOTS; s = s + 1) begin
        dep[s]   <= dep[s] & ~gone;
        // a slot committed now is younger than every other
        if (go) older[s][w_slot] <= 1'b0;
      end
      if (go) begin
        s_drop[wslot]  <= drop || (req && pend_hit) || (req && fe_v && !fe_orph && tag_qn == fe_qn);
        s_valid[wslot] <= 1'b1;
        s_req[wslot]   <= req;
        s_async[wslot] <= async;
        s_orph[wslot]  <= 1'b0;
        older[wslot]   <= s_valid & ~rel & ~(TX_SLOTS'(1) << w_slot);
        dep[wslot]     <= w_dep;
      end
      if (!w_have || go) begin
        w_have <= a_any;
        w_slot <= a_slot;
      end
      if (g_done) begin
        s_gdone[g_slot]  <= 1'b1;
        s_gfault[g_slot] <= g_fault;
      end
      if (f_go) begin
        sending  <= 1'b1;
        snd_slot <= fsel;
        s_out[fsel] <= 1'b1;
      end
      for (s = 0; s < TX_SLOTS; s = s + 1)
        if (rel[s]) begin
          s_gdone[s] <= 1'b0; s_gfault[s] <= 1'b0; s_drop[s] <= 1'b0; s_out[s] <= 1'b0;
          s_valid[s] <= 1'b0; s_async[s] <= 1'b0; s_orph[s] <= 1'b0;
        end
      if (sending && !f_reading) sending <= 1'b0;
    end
  end
endmodule
