`include "hca_defs.vh"

// DMA read front-end: the engine's two read clients on the one DMA read
// channel.
//
//  * Fetch (WQEs): one read at a time into a fetch buffer (flip-flops;
//    beats beyond it are dropped: a send WQE stride can be 1 KiB but the
//    engine uses its first 64 + 256 bytes): fb (send WQE, hca_req), fb1
//    (receive WQE, hca_scatter), fb2 (the READ/atomic WQE whose response
//    arrived, hca_comp_read), or none (FSEL_WORD: an atomic's 8 bytes).
//    f_word holds the first 8 bytes of the last fetch whatever its target.
//  * Gather (packet payload): pieces {iova, len, dst, index} queued by the
//    sequencer; each is one DMA read with its own tag, several outstanding.
//    The transmit buffer is TX_SLOTS slots of 2^SLOT_LOG bytes (hca_tx_slots);
//    a piece's slot is the slot field of its buffer address, and each slot
//    is one packet: its pieces, then g_close with g_slot; g_done/g_done_slot
//    report one slot at a time, so several packets can be in flight.
//    Completions come back in any order by tag (each tag's beats contiguous,
//    data packed from byte 0); every beat is rotated to its byte offset in
//    the transmit buffer and written with byte enables, one word per cycle,
//    plus one flush cycle when a piece's tail spills into a further word
//    (the piece counts as finished with its last beat, and a slot's
//    g_done can come in the next cycle: the framer reads the flush word
//    later than that).
//    A faulting piece is reported, the first one in piece order wins (that is
//    the one the model's sequential gather would have stopped at).
//  * Local copy (inline data): the same aligner fed from the fetch buffer.
//  * Prefetch (hca_wqe_prefetch): PF_N send WQEs read ahead, entry e on its
//    own tag (RD_TAGS + 1 + e) into its prefetch buffer pb[e], beside
//    whatever the fetch does; p_load copies pb[p_lidx] into fb in one cycle
//    (the requester takes it); pc_sge shows SGE 0 of pb[pc_idx] (the lkey
//    checked ahead, hca_wqe_lkey_ahead, after p_done).
//
// Completion protocol of the channel: dma_rd_cpl_* beats for one tag are
// contiguous and end with last; a fault is a single beat with err = 1.
// Soft reset orphans outstanding tags (their completions are drained and
// dropped), so nothing is lost or misattributed across an ENGINE_CTRL.RESET.
module hca_dma_rd #(
    parameter int DATA_W   = 64,
    parameter int RD_TAGS  = 8,
    parameter int FB_BYTES = 320,       // fetch buffer 0: send WQE (64-byte header + 256)
    parameter int FB1_BYTES = 320,      // fetch buffer 1: receive WQE (16 + 16 SGEs = 272, rounded to words)
    parameter int FB2_BYTES = 320,      // fetch buffer 2: READ/atomic send WQE (64-byte header + 16 SGEs)
    parameter int TXBUF_AW = 10,        // transmit buffer word address bits
    parameter int TX_SLOTS = 4,         // transmit slots (packets in flight), a power of two >= 2
    parameter int SLOT_LOG = 13,        // bytes per slot: 2^SLOT_LOG
    parameter int PF_N     = 1,         // prefetch entries (tags RD_TAGS + 1 .. RD_TAGS + PF_N: within TAG_W)
    localparam int PW = PF_N > 1 ? $clog2(PF_N) : 1,
    localparam int SW = $clog2(TX_SLOTS),
    localparam int WB = DATA_W / 8,
    localparam int TAG_W = $clog2(RD_TAGS + 1 + PF_N)
) (
    input  logic              clk,
    input  logic              rst_n,
    input  logic              ce,
    input  logic              srst,
    // fetch
    input  logic              f_start,
    input  logic [1:0]        f_sel,         // FSEL_*: fb, fb1, fb2 or none
    input  logic [63:0]       f_addr,
    input  logic [15:0]       f_len,
    output logic              f_busy,
    output logic              busy,          // anything in flight
    output logic              f_done,        // one cycle
    output logic              f_err,         // with f_done
    output logic [FB_BYTES*8-1:0] fb,
    output logic [FB1_BYTES*8-1:0] fb1,
    output logic [FB2_BYTES*8-1:0] fb2,
    output logic [63:0]       f_word,        // the first 8 bytes of the last fetch
    // prefetch (a send WQE into pb[p_sidx]; p_load: fb <= pb[p_lidx])
    input  logic              p_start,
    input  logic [PW-1:0]     p_sidx,
    input  logic [63:0]       p_addr,
    input  logic [15:0]       p_len,
    output logic [PF_N-1:0]   p_busy,        // in flight (or its orphan's completion still to come)
    output logic [PF_N-1:0]   p_done,        // one cycle
    output logic              p_err,         // with p_done
    input  logic              p_load,
    input  logic [PW-1:0]     p_lidx,
    input  logic [PW-1:0]     pc_idx,        // SGE 0 of pb[pc_idx] (bytes 64..79: hca_wqe_lkey_ahead)
    output logic [127:0]      pc_sge,
    // gather
    input  logic              g_push,
    input  logic [63:0]       g_iova,
    input  logic [15:0]       g_len,
    input  logic [15:0]       g_dst,
    input  logic [4:0]        g_idx,
    output logic              g_full,
    input  logic              g_close,       // no more pieces for this packet
    input  logic [SW-1:0]     g_slot,        // the slot g_push and g_close are for
    output logic              g_done,        // one cycle: all pieces (and the local copy) of a slot done
    output logic [SW-1:0]     g_done_slot,   // with g_done
    output logic              g_fault,       // with g_done
    output logic [63:0]       g_fault_iova,
    // local copy from the fetch buffer (WB-aligned source)
    input  logic              l_start,
    input  logic [15:0]       l_src,
    input  logic [15:0]       l_len,
    input  logic [15:0]       l_dst,
    // transmit buffer write port
    output logic              tb_we,
    output logic [TXBUF_AW-1:0] tb_addr,
    output logic [DATA_W-1:0] tb_wdata,
    output logic [WB-1:0]     tb_be,
    // DMA read channel
    output logic              rd_req_valid,
    input  logic              rd_req_ready,
    output logic [63:0]       rd_req_addr,
    output logic [15:0]       rd_req_len,
    output logic [TAG_W-1:0]  rd_req_tag,
    input  logic              rd_cpl_valid,
    output logic              rd_cpl_ready,
    input  logic [TAG_W-1:0]  rd_cpl_tag,
    input  logic [DATA_W-1:0] rd_cpl_data,
    input  logic              rd_cpl_last,
    input  logic              rd_cpl_err
);
  localparam int LW = $clog2(WB);

  // Completion input register: the channel's beat is registered before use,
  // so nothing below depends combinationally on the DMA inputs.
  logic              c_valid, c_last, c_err, c_take;
  logic [TAG_W-1:0]  c_tag;
  logic [DATA_W-1:0] c_data;
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      c_valid <= 1'b0; c_last <= 1'b0; c_err <= 1'b0; c_tag <= '0; c_data <= '0;
    end else if (ce) begin
      if (rd_cpl_valid && rd_cpl_ready) begin
        c_valid <= 1'b1;
        c_tag   <= rd_cpl_tag;
        c_data  <= rd_cpl_data;
        c_last  <= rd_cpl_last;
        c_err   <= rd_cpl_err;
      end else if (c_take)
        c_valid <= 1'b0;
    end
  end

  localparam logic [TAG_W-1:0] FETCH_TAG = TAG_W'(RD_TAGS);
  localparam logic [TAG_W-1:0] PF_TAG = TAG_W'(RD_TAGS + 1);   // entry 0's
  logic c_fetch;                                   // the registered beat is a fetch's or prefetch's
  logic c_pf;                                      // ... a prefetch's, entry c_pe
  logic [PW-1:0] c_pe;
  assign c_pf    = c_tag >= PF_TAG && {1'b0, c_tag} < (TAG_W + 1)'(RD_TAGS + 1 + PF_N);
  assign c_pe    = PW'(c_tag - PF_TAG);
  assign c_fetch = c_tag == FETCH_TAG || c_pf;
  localparam int FBW = (FB_BYTES + WB - 1) / WB;   // fetch buffer words
  localparam int FB1W = (FB1_BYTES + WB - 1) / WB;
  localparam int FB2W = (FB2_BYTES + WB - 1) / WB;
  localparam int FWI = $clog2(FBW);                 // fetch buffer 0 word index bits

  // ------------------------------------------------------------ fetch
  logic        f_pend, f_issued, f_orphan;
  logic [1:0]  f_sel_q;
  logic [63:0] f_addr_q;
  logic [15:0] f_len_q;
  logic [15:0] f_beat;
  assign f_busy = f_pend;
  logic [PF_N-1:0] p_pend, p_issued, p_orphan;
  logic [63:0] p_addr_q [0:PF_N-1];
  logic [15:0] p_len_q [0:PF_N-1];
  logic [15:0] p_beat [0:PF_N-1];
  logic [FB_BYTES*8-1:0] pb [0:PF_N-1];    // each entry's buffer (wr_pb)
  assign p_busy = p_pend | p_orphan;

  // ------------------------------------------------------------ gather queue
  // Deep enough for every slot's gather at once (TX_SLOTS packets of up to
  // HCA_CAP_MAX_SGE reads each: the requester reads ahead, hca_tx_slots, and
  // pushes without looking at g_full), so a push never meets a full queue.
  localparam int Q_DEPTH = TX_SLOTS * `HCA_CAP_MAX_SGE;
  logic        q_empty, q_pop;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [$clog2(Q_DEPTH):0] q_count;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [63+16+16+5:0] q_dout;
  hca_fifo #(.W(64 + 16 + 16 + 5), .DEPTH(Q_DEPTH)) u_q (
      .clk(clk), .rst_n(rst_n), .clr(srst), .push(g_push && ce), .din({g_iova, g_len, g_dst, g_idx}),
      .pop(q_pop), .dout(q_dout), .empty(q_empty), .full(g_full), .count(q_count));

  // per-tag bookkeeping
  logic [RD_TAGS-1:0] t_busy, t_orphan;
  logic [15:0]        t_len [0:RD_TAGS-1];
  logic [15:0]        t_dst [0:RD_TAGS-1];
  logic [4:0]         t_idx [0:RD_TAGS-1];
  logic [63:0]        t_iova [0:RD_TAGS-1];

  logic               free_v;
  logic [TAG_W-1:0]   free_tag;
  always_comb begin : pick_free
    integer i;
    free_v = 1'b0;
    free_tag = '0;
    for (i = RD_TAGS - 1; i >= 0; i = i - 1)
      if (!t_busy[i]) begin
        free_v = 1'b1;
        free_tag = TAG_W'(i);
      end
  end

  // request channel: fetch first, then the prefetch, then payload
  logic issue_f, issue_p, issue_g;
  logic [PW-1:0] ip;                     // the prefetch entry to issue: the lowest waiting
  always_comb begin : req_pick
    integer e;
    ip = '0;
    for (e = PF_N - 1; e >= 0; e = e - 1)
      if (p_pend[e] && !p_issued[e]) ip = PW'(e);
    issue_f = f_pend && !f_issued;
    issue_p = !issue_f && (|(p_pend & ~p_issued));
    issue_g = !issue_f && !issue_p && !q_empty && free_v;
    rd_req_valid = issue_f || issue_p || issue_g;
    rd_req_addr  = issue_f ? f_addr_q : issue_p ? p_addr_q[ip] : q_dout[37+64-1:37];
    rd_req_len   = issue_f ? f_len_q : issue_p ? p_len_q[ip] : q_dout[36:21];
    rd_req_tag   = issue_f ? FETCH_TAG : issue_p ? PF_TAG + TAG_W'(ip) : free_tag;
  end
  assign q_pop = ce && issue_g && rd_req_ready;

  // packet accounting, per transmit slot
  logic [5:0]          pushed [0:TX_SLOTS-1];
  logic [5:0]          finished [0:TX_SLOTS-1];
  logic [4:0]          fault_idx [0:TX_SLOTS-1];
  logic [63:0]         fault_iova [0:TX_SLOTS-1];
  logic [TX_SLOTS-1:0] closed, fault_v;
  logic                l_pend_q;
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic [SW-1:0] slot_of(input [15:0] dst);   // the slot field of a buffer address
    slot_of = dst[SLOT_LOG +: SW];
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // ------------------------------------------------------------ aligner
  // One burst at a time: a DMA completion burst or the local copy.
  logic              a_act, a_local, a_drop, a_flush;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [TAG_W-1:0]  a_tag;          // the fetch tag never enters the aligner
  /* verilator lint_on UNUSEDSIGNAL */
  logic [15:0]       a_dst, a_len, a_k;        // a_k: beat index within the burst
  logic [DATA_W-1:0] a_prev;
  logic [15:0]       l_src_q, l_len_q, l_dst_q;
  logic              l_pend;

  // input beat of the aligner
  logic              in_v, in_last, in_err;
  logic [DATA_W-1:0] in_data;
  logic [15:0]       l_word, k_cur;
  assign k_cur  = a_act ? a_k : 16'd0;
  assign l_word = (l_src_q >> LW) + k_cur;
  always_comb begin
    in_v = 1'b0; in_last = 1'b0; in_err = 1'b0; in_data = c_data;
    if ((a_act && a_local && !a_flush) || (!a_act && l_pend)) begin
      in_v = 1'b1;
      in_data = fb_word(l_word);
      in_last = ((k_cur << LW) + 16'(WB)) >= (a_act ? a_len : l_len_q);
    end else if (!(a_act && a_flush) && c_valid && !c_fetch &&
                 !(l_pend && !a_act)) begin
      in_v = 1'b1;
      in_last = c_last;
      in_err = c_err;
    end
  end

  // word w of fetch buffer 0 (zero beyond it): one indexed select, not a
  // compare per word (this feeds the aligner, evaluated on every edge)
  function automatic [DATA_W-1:0] fb_word(input [15:0] w);
    fb_word = (w < 16'(FBW)) ? fb[DATA_W*w[FWI-1:0] +: DATA_W] : '0;
  endfunction

  // burst parameters (a new burst takes them from its tag or the local request)
  logic [15:0] b_dst, b_len;
  logic        b_drop, b_start;
  assign b_start = !a_act && (l_pend || (c_valid && !c_fetch));
  always_comb begin
    b_dst  = l_pend ? l_dst_q : t_dst[c_tag[$clog2(RD_TAGS)-1:0]];
    b_len  = l_pend ? l_len_q : t_len[c_tag[$clog2(RD_TAGS)-1:0]];
    b_drop = !l_pend && t_orphan[c_tag[$clog2(RD_TAGS)-1:0]];
  end

  // word write for the current beat (or the flush)
  logic [2*DATA_W-1:0] pair;
  logic [DATA_W-1:0]   rotated;
  logic [15:0]         w_m;                     // word index within the burst
  logic [15:0]         cur_dst, cur_len;
  logic [LW-1:0]       cur_rot;
  assign cur_dst = a_act ? a_dst : b_dst;
  assign cur_len = a_act ? a_len : b_len;
  assign cur_rot = cur_dst[LW-1:0];
  assign w_m     = k_cur;
  assign pair    = a_flush ? {{DATA_W{1'b0}}, a_prev} : {in_data, (a_act ? a_prev : {DATA_W{1'b0}})};
  assign rotated = DATA_W'(pair >> {(LW+1)'(WB) - {1'b0, cur_rot}, 3'b000});

  // Byte enables: lane i holds piece byte b = (w_m << LW) + i - cur_rot, and
  // is written when 0 <= b < cur_len, i.e. for the lanes i in
  // [cur_rot - wb, cur_rot + cur_len - wb) with wb = the word's first byte:
  // two masks of WB bits (one shift each), not a compare per lane.
  function automatic [WB-1:0] lanes_below(input [16:0] n);   // the lanes i < n
    lanes_below = (n >= 17'(WB)) ? {WB{1'b1}} : ~({WB{1'b1}} << n);
  endfunction
  logic [16:0] be_wb, be_rot, be_end;
  assign be_wb  = {1'b0, w_m << LW};
  assign be_rot = 17'(cur_rot);
  assign be_end = {1'b0, cur_len} + be_rot;
  assign tb_be  = (be_end > be_wb ? lanes_below(be_end - be_wb) : '0) &
                  (be_rot > be_wb ? ~lanes_below(be_rot - be_wb) : {WB{1'b1}});
  assign tb_wdata = rotated;
  assign tb_addr  = TXBUF_AW'((cur_dst >> LW) + w_m);

  logic beat_go;       // an input beat is consumed this cycle
  logic cur_drop;
  logic cur_local;     // the beat is the local copy's (inline data), not a DMA piece's
  assign cur_drop  = a_act ? a_drop : b_drop;
  assign cur_local = a_act ? a_local : l_pend;
  assign beat_go  = ce && in_v && (a_act || b_start) && !(a_act && a_flush);
  assign tb_we    = ((beat_go && !in_err) || (ce && a_act && a_flush)) && !cur_drop;

  // a flush word is needed when the piece's bytes reach into the word after
  // the last beat's word: rot + len > beats * WB
  logic [16:0] nbeats_bytes;
  logic        need_flush;
  assign nbeats_bytes = {1'b0, ((cur_len + 16'(WB - 1)) >> LW) << LW};
  assign need_flush   = ({1'b0, cur_len} + 17'(cur_rot)) > nbeats_bytes;

  // completion-channel ready: fetch beats always; gather beats when the
  // aligner can take them (not during a flush or a local copy)
  assign busy = c_valid || a_act || f_pend || (|p_busy) || (|t_busy) || l_pend || l_pend_q || !q_empty || (|closed);

  // A DMA piece is finished (`finished`) in the cycle its last beat is
  // written, even when a flush word follows: the framer reads a slot's words
  // in order, one a cycle, from the cycle after g_done at the earliest, so
  // the flush word (written in the cycle after the last beat) is in the
  // buffer before it is read.  fin_v: a piece without fault finishes now, so
  // its slot can be done in this very cycle (g_done in the next).
  logic          fin_v;
  logic [SW-1:0] fin_slot;
  assign fin_v    = beat_go && in_last && !in_err && !cur_drop && !cur_local;
  assign fin_slot = slot_of(cur_dst);

  // the slot whose packet is complete this cycle (the lowest; one per cycle)
  logic          sd_v;
  logic [SW-1:0] sd_slot;
  always_comb begin : slot_done
    integer s;
    sd_v = 1'b0;
    sd_slot = '0;
    for (s = TX_SLOTS - 1; s >= 0; s = s - 1)
      if (closed[s] && finished[s] + ((fin_v && fin_slot == SW'(s)) ? 6'd1 : 6'd0) == pushed[s] &&
          !(l_pend_q && slot_of(l_dst_q) == SW'(s)) &&
          !((g_push || g_close) && g_slot == SW'(s))) begin
        sd_v = 1'b1;
        sd_slot = SW'(s);
      end
  end

  // the registered beat is taken by the fetch buffer (always) or the aligner
  assign c_take = c_valid && ce && (c_fetch ? 1'b1 :
                                    !(a_act && (a_flush || a_local)) && !(l_pend && !a_act));
  assign rd_cpl_ready = !c_valid || c_take;

  // The prefetch buffers: a memory of PF_N entries, one word written per
  // beat (beats beyond FB_BYTES dropped), read whole by p_load.  No reset:
  // an entry is read only after its prefetch completed without fault
  // (hca_wqe_prefetch's p_load), so only words its own beats wrote, or words
  // of an earlier WQE beyond this one's length, are ever read -- and the
  // power-up contents are never seen (in simulation they are zero, as the
  // reset made them).  Before, each entry was a register of its own copied
  // into pb by a continuous assignment: PF_N x FB_BYTES bytes copied on every
  // clock edge of the Verilated model (docs/sim.md 9.1).
  assign pc_sge = pb[pc_idx][8*64 +: 128];
  logic [15:0] pb_beat;                    // the beat's word within its entry
  assign pb_beat = p_beat[c_pe];
  always_ff @(posedge clk) begin : wr_pb
    if (ce && c_valid && c_pf && !p_orphan[c_pe] && !c_err && pb_beat < 16'(FBW))
      pb[c_pe][DATA_W*pb_beat[FWI-1:0] +: DATA_W] <= c_data;
  end

  // ------------------------------------------------------------ sequential
  integer i;
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      f_pend <= 1'b0; f_issued <= 1'b0; f_orphan <= 1'b0; f_addr_q <= '0; f_len_q <= '0; f_beat <= '0;
      f_sel_q <= '0; fb1 <= '0; fb2 <= '0; f_word <= '0;
      f_done <= 1'b0; f_err <= 1'b0;
      p_pend <= '0; p_issued <= '0; p_orphan <= '0; p_done <= '0; p_err <= 1'b0;
      for (i = 0; i < PF_N; i = i + 1) begin
        p_addr_q[i] <= '0; p_len_q[i] <= '0; p_beat[i] <= '0;
      end
      t_busy <= '0; t_orphan <= '0;
      for (i = 0; i < TX_SLOTS; i = i + 1) begin
        pushed[i] <= '0; finished[i] <= '0; fault_idx[i] <= '0; fault_iova[i] <= '0;
      end
      closed <= '0; fault_v <= '0;
      g_fault_iova <= '0; g_done <= 1'b0; g_done_slot <= '0; g_fault <= 1'b0;
      a_act <= 1'b0; a_local <= 1'b0; a_drop <= 1'b0; a_flush <= 1'b0; a_tag <= '0;
      a_dst <= '0; a_len <= '0; a_k <= '0; a_prev <= '0;
      l_pend <= 1'b0; l_pend_q <= 1'b0; l_src_q <= '0; l_len_q <= '0; l_dst_q <= '0;
      fb <= '0;
    end else begin
      if (ce) begin
        // one-cycle pulses, cleared on engine cycles only (a held engine
        // must still see them)
        f_done <= 1'b0;
        g_done <= 1'b0;
        p_done <= '0;
        // ---- prefetch
        if (p_start && !p_busy[p_sidx]) begin
          p_pend[p_sidx] <= 1'b1; p_issued[p_sidx] <= 1'b0; p_addr_q[p_sidx] <= p_addr;
          p_len_q[p_sidx] <= p_len; p_beat[p_sidx] <= '0;
        end
        if (issue_p && rd_req_ready) p_issued[ip] <= 1'b1;
        if (c_valid && c_pf) begin
          if (p_orphan[c_pe]) begin
            if (c_last) p_orphan[c_pe] <= 1'b0;
          end else begin
            if (!c_err) p_beat[c_pe] <= p_beat[c_pe] + 16'd1;   // the beat into pb (wr_pb)
            if (c_last) begin
              p_pend[c_pe] <= 1'b0;
              p_done[c_pe] <= 1'b1;
              p_err        <= c_err;
            end
          end
        end
        // ---- fetch
        if (f_start && !f_pend) begin
          f_pend <= 1'b1; f_issued <= 1'b0; f_addr_q <= f_addr; f_len_q <= f_len; f_beat <= '0;
          f_sel_q <= f_sel;
        end
        if (issue_f && rd_req_ready) f_issued <= 1'b1;
        if (p_load) fb <= pb[p_lidx];        // the requester takes the prefetched WQE
        if (c_valid && c_tag == FETCH_TAG) begin
          if (f_orphan) begin
            if (c_last) f_orphan <= 1'b0;
          end else begin
            if (!c_err) begin
              if (f_sel_q == `FSEL_SEND) begin
                for (i = 0; i < FBW; i = i + 1)
                  if (f_beat == 16'(i)) fb[DATA_W*i +: DATA_W] <= c_data;
              end else if (f_sel_q == `FSEL_RECV) begin
                for (i = 0; i < FB1W; i = i + 1)
                  if (f_beat == 16'(i)) fb1[DATA_W*i +: DATA_W] <= c_data;
              end else if (f_sel_q == `FSEL_READ) begin
                for (i = 0; i < FB2W; i = i + 1)
                  if (f_beat == 16'(i)) fb2[DATA_W*i +: DATA_W] <= c_data;
              end
              if (f_beat == 16'd0) f_word <= c_data[63:0];
              f_beat <= f_beat + 16'd1;
            end
            if (c_last) begin
              f_pend <= 1'b0;
              f_done <= 1'b1;
              f_err  <= c_err;
            end
          end
        end

        // ---- gather issue
        if (issue_g && rd_req_ready) begin
          t_busy[free_tag[$clog2(RD_TAGS)-1:0]]   <= 1'b1;
          t_orphan[free_tag[$clog2(RD_TAGS)-1:0]] <= 1'b0;
          t_iova[free_tag[$clog2(RD_TAGS)-1:0]]   <= q_dout[37+64-1:37];
          t_len[free_tag[$clog2(RD_TAGS)-1:0]]    <= q_dout[36:21];
          t_dst[free_tag[$clog2(RD_TAGS)-1:0]]    <= q_dout[20:5];
          t_idx[free_tag[$clog2(RD_TAGS)-1:0]]    <= q_dout[4:0];
        end
        if (g_push) pushed[g_slot] <= pushed[g_slot] + 6'd1;
        if (g_close) closed[g_slot] <= 1'b1;
        if (l_start) begin
          l_pend <= 1'b1; l_pend_q <= 1'b1; l_src_q <= l_src; l_len_q <= l_len; l_dst_q <= l_dst;
        end

        // ---- aligner
        if (a_act && a_flush) begin
          a_act <= 1'b0; a_flush <= 1'b0;
          if (a_local) begin
            a_local <= 1'b0;
            l_pend_q <= 1'b0;
          end else
            t_busy[a_tag[$clog2(RD_TAGS)-1:0]] <= 1'b0;   // (finished with its last beat)
        end else if (beat_go) begin
          if (!a_act) begin
            a_act   <= 1'b1;
            a_local <= l_pend;
            a_drop  <= b_drop;
            a_tag   <= c_tag;
            a_dst   <= b_dst;
            a_len   <= b_len;
            if (l_pend) l_pend <= 1'b0;
          end
          a_prev <= in_data;
          a_k    <= k_cur + 16'd1;
          if (in_last) begin
            if (!in_err && !cur_drop && need_flush) begin
              a_act   <= 1'b1;
              a_flush <= 1'b1;
              a_k     <= k_cur + 16'd1;
              if (!cur_local) finished[slot_of(cur_dst)] <= finished[slot_of(cur_dst)] + 6'd1;
            end else begin
              a_act   <= 1'b0;
              if (cur_local) begin
                a_local  <= 1'b0;
                l_pend_q <= 1'b0;
              end else begin
                t_busy[(a_act ? a_tag[$clog2(RD_TAGS)-1:0] : c_tag[$clog2(RD_TAGS)-1:0])] <= 1'b0;
                if (!cur_drop) finished[slot_of(cur_dst)] <= finished[slot_of(cur_dst)] + 6'd1;
              end
            end
            if (in_err && !cur_drop) begin : fault_rec
              logic [$clog2(RD_TAGS)-1:0] tg;
              tg = a_act ? a_tag[$clog2(RD_TAGS)-1:0] : c_tag[$clog2(RD_TAGS)-1:0];
              if (!fault_v[slot_of(cur_dst)] || t_idx[tg] < fault_idx[slot_of(cur_dst)]) begin
                fault_v[slot_of(cur_dst)]    <= 1'b1;
                fault_idx[slot_of(cur_dst)]  <= t_idx[tg];
                fault_iova[slot_of(cur_dst)] <= t_iova[tg];
              end
            end
          end
        end

        // ---- packet done
        if (sd_v) begin
          g_done       <= 1'b1;
          g_done_slot  <= sd_slot;
          g_fault      <= fault_v[sd_slot];
          g_fault_iova <= fault_iova[sd_slot];
          closed[sd_slot]   <= 1'b0;
          pushed[sd_slot]   <= '0;
          finished[sd_slot] <= '0;
          fault_v[sd_slot]  <= 1'b0;
        end
      end

      if (srst) begin
        // orphan everything in flight; drop queued work
        t_orphan <= t_busy;
        f_orphan <= f_pend && f_issued;
        f_pend <= 1'b0;
        p_orphan <= p_orphan | (p_pend & p_issued);
        p_pend <= '0;
        for (i = 0; i < TX_SLOTS; i = i + 1) begin
          pushed[i] <= '0; finished[i] <= '0;
        end
        closed <= '0; fault_v <= '0;
        l_pend <= 1'b0; l_pend_q <= 1'b0;
        if (a_act) a_drop <= 1'b1;
        if (a_act && a_local) begin
          a_act <= 1'b0; a_local <= 1'b0; a_flush <= 1'b0;
        end
      end
    end
  end
endmodule
