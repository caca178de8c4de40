`include "hca_defs.vh"

// Transmit slots: the transmit buffer (in hca_tx_frame) as TX_SLOTS frame
// slots of 2^SLOT_LOG bytes, filled in order and framed in order, so the
// payload of the next packets is read while the framer sends this one.
//
//   Writer (hca_req or hca_ack_send, one at a time, through hca_tx_hdr):
//   while `free`, it fills slot `wslot` (its payload pieces go to hca_dma_rd
//   with the slot in the buffer address, then one g_close), and commits it
//   with `go`: the frame's header, lengths and pad are captured here with
//   it, and `drop` says the slot holds no frame (a payload fault, the port
//   down).  A commit may come before or after the slot's gather is done.
//   No slot is free while BIG_MAX committed slots hold BIG_LEN payload bytes
//   or more (their reads cover the frames behind them; more read ahead only
//   delay the oldest frame when the host returns the reads out of order).
//   Gather (hca_dma_rd): `g_done` with `g_slot` once every piece of a slot
//   has landed, `g_fault` if one faulted.
//   Framer (hca_tx_frame): the oldest committed slot goes out (`f_go`,
//   f_slot, its header) once its gather is done and the framer takes it
//   (`f_ready`); a dropped or faulted slot is released without a frame; a
//   framed slot is released in the cycle the framer reads its last word
//   (`f_reading` drops), so the next slot goes out in the next cycle and its
//   first beat follows the last one without a gap.
// The slot ring is wr (next to fill) and rd (oldest committed); a soft reset
// drops every committed slot except one the framer is reading.
//
// Read ahead (hca_req): a request packet may be committed `async`, before
// its payload has arrived, tagged with its QP, WQE and packet; the
// requester then goes on.  If such a slot's payload faults, the slot is
// released at the head without a frame, the fault is handed to
// hca_tx_faults (`fe_*`, one event per cycle), and every other slot of that
// QP's requests is dropped: the model never sent them (a later commit of a
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
  logic [SW:0]          wr, rd;
  logic                 sending;            // slot rd is in the framer
  logic [TX_SLOTS-1:0]  s_gdone, s_gfault, s_drop, s_valid, s_req, s_async, s_orph;
  logic [QW-1:0]        s_qn [0:TX_SLOTS-1];
  logic [15:0]          s_wqe [0:TX_SLOTS-1];
  logic [23:0]          s_k [0:TX_SLOTS-1];
  logic [63:0]          s_iova [0:TX_SLOTS-1];
  logic [HDR_MAX*8-1:0] s_hdr [0:TX_SLOTS-1];
  logic [7:0]           s_hlen [0:TX_SLOTS-1];
  logic [15:0]          s_plen [0:TX_SLOTS-1];
  logic [1:0]           s_pad [0:TX_SLOTS-1];

  logic [SW-1:0] head;
  logic          head_v, ready, discard, release_now;
  assign head    = rd[SW-1:0];
  assign head_v  = wr != rd;
  assign ready   = head_v && !sending && s_gdone[head];
  assign discard = s_gfault[head] || s_drop[head];
  // an async packet whose payload faulted: its fault goes to the table
  assign fe_v    = ready && s_async[head] && s_gfault[head] && !s_drop[head];
  assign fe_orph = s_orph[head];
  assign fe_qn   = s_qn[head];
  assign fe_wqe  = s_wqe[head];
  assign fe_k    = s_k[head];
  assign fe_iova = s_iova[head];
  logic [TX_SLOTS-1:0] kill;              // slots dropped with the fault
  logic [SW:0]         n_async;
  always_comb begin : tags
    integer s;
    kill = '0;
    n_async = '0;
    q_busy = 1'b0;
    for (s = 0; s < TX_SLOTS; s = s + 1) begin
      kill[s] = fe_v && s_valid[s] && s_req[s] && s_qn[s] == s_qn[head] && SW'(s) != head &&
                s_orph[s] == s_orph[head];
      if (s_valid[s] && s_async[s]) begin
        n_async = n_async + (SW+1)'(1);
        if (s_qn[s] == item_qn) q_busy = 1'b1;
      end
    end
  end
  logic [TX_SLOTS-1:0] orph;               // slots of the QP firmware resets now
  always_comb begin : orphans
    integer s;
    for (s = 0; s < TX_SLOTS; s = s + 1)
      orph[s] = qrst && s_valid[s] && s_req[s] && s_qn[s] == qrst_qn;
  end
  assign async_ok = {1'b0, n_async} + {1'b0, n_faults} < (SW+2)'(TX_SLOTS);
  // the head slot's gather completing now without a fault goes to the
  // framer in the same cycle (it is registered done with it)
  logic fast;
  assign fast    = head_v && !sending && !s_gdone[head] && g_done && g_slot == head && !g_fault && !s_drop[head];
  assign f_go    = ((ready && !discard) || fast) && f_ready;
  assign release_now = (ready && discard) || (sending && !f_reading);
  assign f_slot    = head;
  assign f_hdr     = s_hdr[head];
  assign f_hdr_len = s_hlen[head];
  assign f_pay_len = s_plen[head];
  assign f_pad     = s_pad[head];

  // Big payloads: a read of BIG_LEN bytes or more lasts longer than the
  // frames behind it need to be covered, and the host may return the reads
  // in any order, so a slot behind BIG_MAX of them waits for all of them:
  // no slot is free while BIG_MAX committed slots hold such payloads
  logic [SW:0] n_big;
  always_comb begin : bigs
    integer s;
    n_big = '0;
    for (s = 0; s < TX_SLOTS; s = s + 1)
      if (s_valid[s] && s_plen[s] >= 16'(BIG_LEN)) n_big = n_big + (SW+1)'(1);
  end
  assign wslot = wr[SW-1:0];
  assign free  = (wr - rd) != (SW+1)'(TX_SLOTS) && !go && {1'b0, n_big} < (SW+2)'(BIG_MAX);
  assign busy  = head_v;

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

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      wr <= '0; rd <= '0; sending <= 1'b0; s_gdone <= '0; s_gfault <= '0; s_drop <= '0;
      s_valid <= '0; s_req <= '0; s_async <= '0; s_orph <= '0;
    end else if (srst) begin
      // work in flight dies with the reset; a slot being read finishes
      wr <= sending ? rd + (SW+1)'(1) : rd;
      s_gdone <= '0; s_gfault <= '0; s_drop <= '0; s_async <= '0;
      s_valid <= sending ? (TX_SLOTS'(1) << head) : '0;
      s_orph <= '0;
    end else if (!ce) begin
      s_orph <= s_orph | orph;
    end else begin
      s_drop <= s_drop | kill;
      s_orph <= s_orph | orph;
      if (go) begin
        s_drop[wslot]  <= drop || (req && pend_hit) || (req && fe_v && !fe_orph && tag_qn == fe_qn);
        s_valid[wslot] <= 1'b1;
        s_req[wslot]   <= req;
        s_async[wslot] <= async;
        s_orph[wslot]  <= 1'b0;
        wr <= wr + (SW+1)'(1);
      end
      if (g_done) begin
        s_gdone[g_slot]  <= 1'b1;
        s_gfault[g_slot] <= g_fault;
      end
      if (f_go) sending <= 1'b1;
      if (release_now) begin
        sending <= 1'b0;
        s_gdone[head] <= 1'b0; s_gfault[head] <= 1'b0; s_drop[head] <= 1'b0;
        s_valid[head] <= 1'b0; s_async[head] <= 1'b0; s_orph[head] <= 1'b0;
        rd <= rd + (SW+1)'(1);
      end
    end
  end
endmodule
