`include "hca_defs.vh"

// Receive framer: AXI4-Stream from the MAC into a two-slot receive buffer.
// While a frame streams in it keeps the first HDR_CAP bytes for the parser,
// counts its length, and computes the ICRC (icrc_beat_f, region end from
// the IPv4 total length as soon as bytes 16-17 have passed) and the sum of
// the UDP datagram's 16-bit words (for a non-zero UDP checksum).  A frame
// longer than a slot is kept truncated and flagged.  Slots fill in order and
// are offered in order (pslot); tready drops while both hold frames.
//
// Posted writes (docs/rtl.md "Posted payload writes", "A record per posted
// write"): a frame whose payload went out as a posted DMA write is held
// (f_hold, from hca_recv at the end of its item) instead of released: what
// its fault's replay needs -- its header capture and length results -- is
// kept in one of H_MAX records with the write's sequence number (the last
// posted write hca_dma_wr accepted, p_seq - 1), and its slot is freed once
// hca_dma_wr has read its payload (rb_busy), not at the write's response.
// A record whose write came back good is dropped; one whose write faulted
// (p_rerr, by sequence: responses come in issue order) raises f_fault, and
// hca_recv replays the oldest such record (f_replay_go: its header offered
// again, with f_replay, so that the fault is reported as at that packet);
// the replay's release drops the record.  The offered slot does not move for
// a replay.
module hca_rx_frame #(
    parameter int DATA_W   = 64,
    parameter int HDR_CAP  = 96,
    parameter int SLOT_AW  = 7,          // words per slot = 2^SLOT_AW
    parameter int H_MAX    = 3,          // records of posted writes (hca_dma_wr P_MAX or fewer)
    localparam int WB = DATA_W / 8,
    localparam int LW = $clog2(WB)
) (
    input  logic              clk,
    input  logic              rst_n,
    input  logic              ce,
    input  logic              srst,
    // AXI4-Stream from the MAC
    input  logic [DATA_W-1:0] tdata,
    input  logic [WB-1:0]     tkeep,
    input  logic              tlast,
    input  logic              tvalid,
    output logic              tready,
    output logic              busy,          // a frame is being received
    // oldest complete frame
    output logic              f_valid,
    output logic              f_slot,
    output logic [HDR_CAP*8-1:0] f_hdr,
    output logic [15:0]       f_len,
    output logic              f_too_long,
    output logic              f_icrc_ok,
    output logic [31:0]       f_udp_sum,
    input  logic              f_release,
    input  logic              f_hold,        // hold the offered frame, offer the next
    input  logic              f_replay_go,   // offer the oldest faulted record (its write faulted)
    output logic              f_held,        // a record is held for a posted write
    output logic              f_fault,       // a posted write faulted: replay its frame
    output logic              f_replay,      // the offered frame is that replay
    output logic              f_ahead,       // the other slot holds a complete frame (offered after a hold)
    // hca_dma_wr: the posted writes' sequence numbers and responses, the
    // slots its writes still read
    input  logic [2:0]        p_seq,
    input  logic [2:0]        p_rseq,
    input  logic [7:0]        p_rerr,
    input  logic [1:0]        rb_busy,
    // buffer read port (hca_dma_wr)
    input  logic              rb_en,
    input  logic [SLOT_AW:0]  rb_addr,
    output logic [DATA_W-1:0] rb_data
);
  localparam int SLOT_BYTES = (1 << SLOT_AW) * WB;

  // per-slot results
  logic [1:0]        s_full;
  logic [HDR_CAP*8-1:0] s_hdr [0:1];
  logic [15:0]       s_len [0:1];
  logic [1:0]        s_long, s_ok;
  logic [31:0]       s_sum [0:1];
  logic              wslot, rslot;        // slot being filled / offered
  logic [1:0]        s_drain;             // held: freed once hca_dma_wr has read it
  // records of posted writes (above)
  localparam int HW = $clog2(H_MAX);
  logic [H_MAX-1:0]  r_v;
  logic [2:0]        r_seq [0:H_MAX-1];
  logic [HDR_CAP*8-1:0] r_hdr [0:H_MAX-1];
  logic [15:0]       r_len [0:H_MAX-1];
  logic [H_MAX-1:0]  r_long, r_ok;
  logic [31:0]       r_sum [0:H_MAX-1];
  logic              replay;
  logic [HW-1:0]     rep_i;               // the record replayed
  // the posted writes accepted before this cycle (p_seq registered: a
  // record's write always is; no combinational path from a write's start)
  logic [2:0]        iss_q;
  // a record's write: back (no longer between p_rseq and p_seq), faulted
  logic [H_MAX-1:0]  r_back, r_flt;
  logic              flt_any;
  logic [HW-1:0]     flt_i, free_i;       // the oldest faulted record; a free one
  always_comb begin
    flt_any = 1'b0; flt_i = '0; free_i = '0;
    for (int i = H_MAX - 1; i >= 0; i = i - 1) begin
      r_back[i] = !((r_seq[i] - p_rseq) < (iss_q - p_rseq));
      r_flt[i]  = r_v[i] && r_back[i] && p_rerr[r_seq[i]];
      if (!r_v[i]) free_i = HW'(i);
    end
    for (int i = 0; i < H_MAX; i = i + 1)
      if (r_flt[i] && (!flt_any || (p_rseq - r_seq[i]) > (p_rseq - r_seq[flt_i]))) begin
        flt_any = 1'b1; flt_i = HW'(i);
      end
  end

  assign f_held     = |r_v;
  assign f_fault    = flt_any;
  assign f_replay   = replay;
  assign f_valid    = replay || (s_full[rslot] && !s_drain[rslot]);
  assign f_slot     = rslot;
  assign f_hdr      = replay ? r_hdr[rep_i] : s_hdr[rslot];
  assign f_len      = replay ? r_len[rep_i] : s_len[rslot];
  assign f_too_long = replay ? r_long[rep_i] : s_long[rslot];
  assign f_icrc_ok  = replay ? r_ok[rep_i] : s_ok[rslot];
  assign f_udp_sum  = replay ? r_sum[rep_i] : s_sum[rslot];
  // Look-ahead (docs/rtl.md "The responder's frame period"): the slot after
  // the offered one holds a complete frame that is not draining; a hold of
  // the offered frame in this cycle (f_hold) switches to it, so it is the
  // frame offered in the next cycle (nothing but its own release or hold
  // empties a full slot that is not draining, and a replay is not started
  // in a hold's cycle).  hca_recv offers it to the dispatcher in the hold's
  // cycle already.
  assign f_ahead    = s_full[!rslot] && !s_drain[!rslot];

  // frame in progress
  logic [15:0]       bytes, boff;
  logic [HDR_CAP*8-1:0] cap;
  logic [31:0]       crc_q, rx_icrc, usum;
  logic [15:0]       iplen_q;
  logic              long_q;

  // Input register: the beat is registered before use (nothing depends
  // combinationally on the MAC inputs).  One bubble after a frame's last
  // beat, while the slot switch happens.
  logic              c_valid, c_last;
  logic [DATA_W-1:0] c_data;
  logic [WB-1:0]     c_keep;
  // A held slot whose payload hca_dma_wr has read (s_drain, rb_busy low) is
  // free in this cycle already: its beat is written from the next cycle on,
  // after the drain below has cleared it.
  assign tready = (!s_full[wslot] || (s_drain[wslot] && !rb_busy[wslot])) && !(c_valid && c_last);
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      c_valid <= 1'b0; c_last <= 1'b0; c_data <= '0; c_keep <= '0;
    end else if (ce) begin
      c_valid <= tvalid && tready;
      c_data  <= tdata;
      c_keep  <= tkeep;
      c_last  <= tlast;
    end
  end
  logic beat;
  assign beat = ce && c_valid;
  // a record is work to come (its response frees it, or its replay)
  assign busy = c_valid || boff != 16'h0 || (|r_v) || (|s_drain);

  // buffer
  hca_ram_sdp #(.W(DATA_W), .DEPTH(2 << SLOT_AW)) u_buf (
      .clk(clk), .wr_en(beat && boff < 16'(SLOT_BYTES)), .wr_addr({wslot, boff[SLOT_AW+LW-1:LW]}),
      .wr_data(c_data), .wr_be(c_keep), .rd_en(rb_en && ce), .rd_addr(rb_addr), .rd_data(rb_data));

  // The beat's work -- its valid bytes, the IPv4 total length, the ICRC, the
  // received ICRC bytes, the UDP word sum, the header capture -- is done by
  // functions called inside the beat's enable (`if (beat)` below): the same
  // logic as continuous assignments, but a Verilated always_ff evaluates an
  // if body only in the cycles that take it, where an assign is evaluated on
  // every clock edge (docs/sim.md 9.1).  The CRC functions: hca_crc32_fn.vh.
  // The beat's offset boff is a multiple of WB, so boff + lane never wraps.
  `include "hca_crc32_fn.vh"

  // the beat's bytes, those beyond tkeep zeroed
  function automatic logic [DATA_W-1:0] dmask_f(input logic [DATA_W-1:0] d, input logic [WB-1:0] k);
    if (&k)
      dmask_f = d;
    else
      for (int i = 0; i < WB; i = i + 1)
        dmask_f[8*i +: 8] = k[i] ? d[8*i +: 8] : 8'h00;
  endfunction

  // valid bytes of the beat (its keep is contiguous from lane 0)
  function automatic logic [LW:0] nvalid_f(input logic [WB-1:0] k);
    nvalid_f = '0;
    for (int i = 0; i < WB; i = i + 1)
      if (k[i]) nvalid_f = (LW+1)'(i + 1);
  endfunction

  // IPv4 total length: from the capture (iq), or from the beat while it passes
  function automatic logic [15:0] iplen_f(input logic [15:0] iq, input logic [15:0] bo,
                                          input logic [DATA_W-1:0] dm);
    logic [15:0] p;
    iplen_f = iq;
    if (bo <= 16'd17 && 17'(bo) + 17'(WB) > 17'd16)   // byte 16 or 17 in the beat
      for (int i = 0; i < WB; i = i + 1) begin
        p = bo + 16'(i);
        if (p == 16'd16) iplen_f[15:8] = dm[8*i +: 8];
        if (p == 16'd17) iplen_f[7:0] = dm[8*i +: 8];
      end
  endfunction

  // the received ICRC bytes (constant write indices: each byte picks its lane)
  function automatic logic [31:0] rx_icrc_f(input logic [31:0] iq, input logic [15:0] re,
                                            input logic [15:0] bo, input logic [DATA_W-1:0] dm);
    logic [15:0] p, q;
    rx_icrc_f = iq;
    for (int d = 0; d < 4; d = d + 1) begin
      p = re + 16'(d);
      q = p - bo;
      if (p >= bo && q < 16'(WB)) rx_icrc_f[8*d +: 8] = dm[8*q[LW-1:0] +: 8];
    end
  endfunction

  // the UDP datagram's 16-bit words [34, ue) of the beat added to s
  function automatic logic [31:0] usum_f(input logic [31:0] s, input logic [15:0] bo,
                                         input logic [15:0] ue, input logic [DATA_W-1:0] dm);
    logic [15:0] p;
    logic [7:0] hi, lo;
    usum_f = s;
    if (bo >= 16'd34 && 17'(bo) + 17'(WB) <= 17'(ue))        // all lanes in the datagram
      for (int i = 0; i < WB; i = i + 2)
        usum_f = usum_f + {16'b0, dm[8*i +: 8], dm[8*(i+1) +: 8]};
    else if (17'(bo) + 17'(WB) > 17'd34 && bo < ue)          // some
      for (int i = 0; i < WB; i = i + 2) begin
        p = bo + 16'(i);
        hi = (p >= 16'd34 && p < ue) ? dm[8*i +: 8] : 8'h00;
        lo = (p + 16'd1 >= 16'd34 && p + 16'd1 < ue) ? dm[8*(i+1) +: 8] : 8'h00;
        usum_f = usum_f + {16'b0, hi, lo};
      end
  endfunction

  // header capture: byte j of the capture comes from lane j mod WB of the
  // beat at offset (j div WB) * WB
  function automatic logic [HDR_CAP*8-1:0] cap_f(input logic [HDR_CAP*8-1:0] c, input logic [15:0] bo,
                                                 input logic [DATA_W-1:0] dm);
    cap_f = c;
    if (bo < 16'(HDR_CAP))
      for (int j = 0; j < HDR_CAP; j = j + 1)
        if (bo == 16'((j / WB) * WB)) cap_f[8*j +: 8] = dm[8*(j % WB) +: 8];
  endfunction

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      s_full <= '0; s_long <= '0; s_ok <= '0; wslot <= 1'b0; rslot <= 1'b0;
      s_drain <= '0; r_v <= '0; r_long <= '0; r_ok <= '0; replay <= 1'b0; rep_i <= '0; iss_q <= '0;
      for (int i = 0; i < H_MAX; i = i + 1) begin
        r_seq[i] <= '0; r_hdr[i] <= '0; r_len[i] <= '0; r_sum[i] <= '0;
      end
      bytes <= '0; boff <= '0; cap <= '0; crc_q <= '0; rx_icrc <= '0; usum <= '0; iplen_q <= '0;
      long_q <= 1'b0;
      s_len[0] <= '0; s_len[1] <= '0; s_sum[0] <= '0; s_sum[1] <= '0;
      s_hdr[0] <= '0; s_hdr[1] <= '0;
    end else begin
      if (ce) begin
        iss_q <= p_seq;
        if (f_release && replay) begin            // the replayed record
          r_v[rep_i] <= 1'b0;
          replay     <= 1'b0;
        end else if (f_release && s_full[rslot]) begin
          s_full[rslot] <= 1'b0;
          rslot <= !rslot;
        end else if (f_hold && s_full[rslot]) begin
          // a record of the frame, its slot freed once its payload is read
          r_v[free_i]    <= 1'b1;
          r_seq[free_i]  <= iss_q - 3'd1;
          r_hdr[free_i]  <= s_hdr[rslot];
          r_len[free_i]  <= s_len[rslot];
          r_long[free_i] <= s_long[rslot];
          r_ok[free_i]   <= s_ok[rslot];
          r_sum[free_i]  <= s_sum[rslot];
          s_drain[rslot] <= 1'b1;
          rslot <= !rslot;
        end else if (f_replay_go && flt_any) begin
          rep_i  <= flt_i;
          replay <= 1'b1;
        end
        // a record whose write came back good is dropped
        for (int i = 0; i < H_MAX; i = i + 1)
          if (r_v[i] && r_back[i] && !p_rerr[r_seq[i]] && !(f_hold && s_full[rslot] && HW'(i) == free_i))
            r_v[i] <= 1'b0;
        for (int i = 0; i < 2; i = i + 1)
          if (s_drain[i] && !rb_busy[i]) begin
            s_drain[i] <= 1'b0;
            s_full[i]  <= 1'b0;
          end
        if (beat) begin : take
          logic [DATA_W-1:0] dmask;
          logic [LW:0] nvalid;
          logic [15:0] iplen, crc_end, udp_end;
          logic [31:0] crc_n, icrc_n, usum_n;
          dmask  = dmask_f(c_data, c_keep);
          nvalid = nvalid_f(c_keep);
          iplen  = iplen_f(iplen_q, boff, dmask);
          // until bytes 16-17 have passed, the region end is unknown (and beyond)
          if ((boff + 16'(WB)) > 16'd17) begin
            crc_end = 16'd14 + iplen - 16'd4;
            udp_end = 16'd14 + iplen;
          end else begin
            crc_end = 16'hFFFF;
            udp_end = 16'hFFFF;
          end
          crc_n  = icrc_beat_f(crc_q, dmask, boff, crc_end);
          icrc_n = rx_icrc_f(rx_icrc, crc_end, boff, dmask);
          usum_n = usum_f(usum, boff, udp_end, dmask);
          iplen_q <= iplen;
          crc_q   <= crc_n;
          rx_icrc <= icrc_n;
          usum    <= usum_n;
          if (boff >= 16'(SLOT_BYTES) || (boff + 16'(WB) > 16'(SLOT_BYTES) && !c_last)) long_q <= 1'b1;
          if (c_last) begin
            s_full[wslot] <= 1'b1;
            s_hdr[wslot]  <= cap_f(cap, boff, dmask);
            s_len[wslot]  <= bytes + {{(15-LW){1'b0}}, nvalid};
            s_long[wslot] <= long_q || boff >= 16'(SLOT_BYTES) || bytes + {{(15-LW){1'b0}}, nvalid} > 16'(SLOT_BYTES);
            s_ok[wslot]   <= (~crc_n == icrc_n);
            s_sum[wslot]  <= usum_n;
            wslot   <= !wslot;
            bytes   <= '0;
            boff    <= '0;
            cap     <= '0;
            crc_q   <= '0;
            rx_icrc <= '0;
            usum    <= '0;
            iplen_q <= '0;
            long_q  <= 1'b0;
          end else begin
            cap   <= cap_f(cap, boff, dmask);
            bytes <= bytes + 16'(WB);
            boff  <= boff + 16'(WB);
          end
        end
      end
      if (srst) begin
        // frames already received are dropped (the model empties its queue);
        // a frame arriving now is kept whole
        s_full <= '0;
        rslot  <= wslot;
        s_drain <= '0; r_v <= '0; replay <= 1'b0;
      end
    end
  end
endmodule
