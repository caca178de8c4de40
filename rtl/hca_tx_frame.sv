`include "hca_defs.vh"

// Transmit framer: the transmit buffer (written by hca_dma_rd with the
// payload at its frame offset within a slot of 2^SLOT_AW words; the slots
// are managed by hca_tx_slots) and the AXI4-Stream MAC transmitter.
//
// For a frame it streams, beat by beat,
//   header bytes (from hdr, hca_hdr_gen) | payload (buffer) | pad | ICRC | zeros to 60
// computing the ICRC on the way (icrc_beat_f, hca_crc32_fn.vh) and inserting it right after
// the pad, in the same beat when it fits, else in the next one.  Frames carry
// no FCS (docs/wire.md 1).  Two-stage pipeline: buffer read, then compose
// into the output register; one beat per cycle while tready.
//
// Frames follow each other without an idle beat: `ready` (go is taken) is
// high once the last word of the frame in hand has been read and the compose
// stage frees up in this cycle, and a `go` reads the new frame's first word
// in its own cycle (the frame's header, lengths and slot come straight from
// the command, which also loads the compose stage's frame registers: the
// beat still in the compose stage is the old frame's last and is emitted in
// this cycle).  `reading` is high while the frame's slot still has words to
// be read; it drops in the cycle of the last read, so the slot can be
// released then and the next slot offered in the next cycle.
//
// Header beat: a go that finds the pipeline empty and the frame's first beat
// all header (hdr_len >= the beat: always at 64 bits, requests with a RETH
// at 512) composes that beat from the command's header straight into the
// output register and reads word 1 in the same cycle, so the first beat is
// on the MAC in the cycle after the go.  The frame still starts only once
// its whole payload is in the buffer (store and forward: a packet whose
// payload read faults never reaches the MAC).
module hca_tx_frame #(
    parameter int DATA_W   = 64,
    parameter int HDR_MAX  = 96,
    parameter int SLOT_AW  = 10,         // words per slot: 2^SLOT_AW
    parameter int SW       = 2,          // slot number bits
    localparam int TXBUF_AW = SLOT_AW + SW,
    localparam int WB = DATA_W / 8
) (
    input  logic              clk,
    input  logic              rst_n,
    input  logic              ce,
    // buffer write port (hca_dma_rd)
    input  logic              tb_we,
    input  logic [TXBUF_AW-1:0] tb_addr,
    input  logic [DATA_W-1:0] tb_wdata,
    input  logic [WB-1:0]     tb_be,
    // frame command
    input  logic              go,
    input  logic [SW-1:0]     slot,
    input  logic [HDR_MAX*8-1:0] hdr,
    input  logic [7:0]        hdr_len,
    input  logic [15:0]       pay_len,
    input  logic [1:0]        pad,
    output logic              ready,         // go is taken this cycle
    output logic              busy,
    output logic              reading,
    output logic              sent,          // one cycle per frame, with its length
    output logic [15:0]       sent_len,
    // AXI4-Stream to the MAC
    output logic [DATA_W-1:0] tdata,
    output logic [WB-1:0]     tkeep,
    output logic              tlast,
    output logic              tvalid,
    input  logic              tready
);
  localparam int LW = $clog2(WB);
  localparam int MIN_FRAME = `HCA_WIRE_MIN_FRAME;

  logic              act;
  logic [SW-1:0]     slot_q;
  logic [HDR_MAX*8-1:0] hdr_q;
  logic [15:0]       hlen, plen_end, crc_end, flen, nbeats, rd_b, s1_b;
  logic              s1_v;
  logic [DATA_W-1:0] rd_data;
  logic [31:0]       crc_q, icrc_q;

  // buffer
  logic rd_en, adv2, adv1, adv1_go, hb, s1_free, last_rd;
  logic [TXBUF_AW-1:0] rd_addr;
  hca_ram_sdp #(.W(DATA_W), .DEPTH(1 << TXBUF_AW)) u_buf (
      .clk(clk), .wr_en(tb_we && ce), .wr_addr(tb_addr), .wr_data(tb_wdata), .wr_be(tb_be),
      .rd_en(rd_en), .rd_addr(rd_addr), .rd_data(rd_data));

  // stage 2 (output register) takes stage 1 when free or draining; stage 1
  // reads the frame in hand's next word, or a new frame's first at its go
  assign adv2    = ce && s1_v && (!tvalid || tready);
  assign s1_free = !s1_v || adv2;
  assign adv1    = ce && act && s1_free;
  assign last_rd = rd_b + 16'd1 == nbeats;
  assign ready   = !act && s1_free;
  assign adv1_go = ce && go && ready;
  // the header beat: pipeline empty, output register free, beat 0 all header
  assign hb      = adv1_go && !s1_v && (!tvalid || tready) && {8'b0, hdr_len} >= 16'(WB);
  assign rd_en   = adv1 || adv1_go;
  assign rd_addr = adv1_go ? {slot, SLOT_AW'(hb ? 1 : 0)} : {slot_q, SLOT_AW'(rd_b)};

  // the new frame's lengths (its go loads them)
  logic [15:0] n_plen_end, n_total, n_flen, n_crc_end, n_beats;
  assign n_plen_end = {8'b0, hdr_len} + pay_len;
  assign n_crc_end = n_plen_end + {14'b0, pad};
  assign n_total   = n_crc_end + 16'(`HCA_WIRE_ICRC_LEN);
  assign n_flen    = (n_total < 16'(MIN_FRAME)) ? 16'(MIN_FRAME) : n_total;
  assign n_beats   = (n_flen + 16'(WB - 1)) >> LW;

  // Compose, ICRC and insert are functions, called inside the flops' enables
  // (the emit, the header beat): the same logic as continuous assignments,
  // but a Verilated always_ff evaluates an if body only in the cycles that
  // take it, where an assign is evaluated on every clock edge (docs/sim.md
  // 9.1).  The CRC functions: hca_crc32_fn.vh.
  `include "hca_crc32_fn.vh"

  // beat at frame offset bo of the frame in hand: header bytes (h, shifted
  // to the beat), payload (the buffer word rd), zeros
  function automatic logic [DATA_W-1:0] compose_f(input logic [15:0] bo, input logic [HDR_MAX*8-1:0] h,
                                                  input logic [15:0] hl, input logic [15:0] pe,
                                                  input logic [DATA_W-1:0] rd);
    logic [HDR_MAX*8-1:0] hs;
    logic [15:0] p;
    if (bo >= hl && 17'(bo) + 17'(WB) <= 17'(pe))
      compose_f = rd;                     // all payload
    else begin
      hs = h >> {bo, 3'b000};
      for (int i = 0; i < WB; i = i + 1) begin
        p = bo + 16'(i);
        if (p < hl)
          compose_f[8*i +: 8] = hs[8*i +: 8];
        else if (p < pe)
          compose_f[8*i +: 8] = rd[8*i +: 8];
        else
          compose_f[8*i +: 8] = 8'h00;
      end
    end
  endfunction

  // the ICRC bytes into the composed beat c at offset bo: right after the
  // CRC region (ending at re); bytes of a beat after the one that ended the
  // region come from the value registered with that beat (iq), the others
  // from this beat's (in)
  function automatic logic [DATA_W-1:0] insert_f(input logic [DATA_W-1:0] c, input logic [15:0] bo,
                                                 input logic [15:0] re, input logic [31:0] in,
                                                 input logic [31:0] iq);
    logic [15:0] p, d;
    insert_f = c;
    // (bo is a multiple of WB: bo + i does not wrap)
    if (17'(re) < 17'(bo) + 17'(WB) && 17'(bo) < 17'(re) + 17'd4)    // an ICRC byte in this beat
      for (int i = 0; i < WB; i = i + 1) begin
        p = bo + 16'(i);
        d = p - re;
        if (p >= re && d < 16'd4)
          // ICRC bytes LSB first
          insert_f[8*i +: 8] = (re > bo) ? in[8*d[1:0] +: 8] : iq[8*d[1:0] +: 8];
      end
  endfunction

  logic [15:0] boff;
  assign boff = s1_b << LW;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      act <= 1'b0; slot_q <= '0; hdr_q <= '0; hlen <= '0; plen_end <= '0; crc_end <= '0; flen <= '0; nbeats <= '0;
      rd_b <= '0; s1_b <= '0; s1_v <= 1'b0; crc_q <= '0; icrc_q <= '0;
      tdata <= '0; tkeep <= '0; tlast <= 1'b0; tvalid <= 1'b0; sent <= 1'b0; sent_len <= '0;
    end else begin
      if (ce) begin
        sent <= 1'b0;       // pulse: cleared on engine cycles only
        if (tvalid && tready) tvalid <= 1'b0;
        if (adv1) begin
          rd_b <= rd_b + 16'd1;
          if (last_rd) act <= 1'b0;
        end
        if (adv1 || adv1_go) begin
          s1_v <= 1'b1;
          s1_b <= adv1_go ? (hb ? 16'd1 : 16'd0) : rd_b;
        end else if (adv2)
          s1_v <= 1'b0;
        if (adv2) begin : emit
          // the compose stage's beat s1_b: compose, its CRC, the ICRC inserted
          logic [DATA_W-1:0] comp;
          logic [31:0] crc_n;
          comp  = compose_f(boff, hdr_q, hlen, plen_end, rd_data);
          crc_n = icrc_beat_f(crc_q, comp, boff, crc_end);
          tdata  <= insert_f(comp, boff, crc_end, ~crc_n, icrc_q);
          tvalid <= 1'b1;
          tlast  <= (s1_b + 16'd1 == nbeats);
          if (17'(boff) + 17'(WB) <= 17'(flen))
            tkeep <= '1;
          else
            for (int i = 0; i < WB; i = i + 1)
              tkeep[i] <= (boff + 16'(i)) < flen;
          crc_q <= crc_n;
          if (crc_end > boff && crc_end <= boff + 16'(WB)) icrc_q <= ~crc_n;
        end else if (hb) begin
          // beat 0, all header: never the last beat, no ICRC byte in it
          tdata  <= hdr[DATA_W-1:0];
          tvalid <= 1'b1;
          tlast  <= 1'b0;
          tkeep  <= '1;
        end
        // after emit: the beat emitted now is the old frame's last
        if (adv1_go) begin : start
          act      <= n_beats > (hb ? 16'd2 : 16'd1);   // more than the words done now
          slot_q   <= slot;
          hdr_q    <= hdr;
          hlen     <= {8'b0, hdr_len};
          plen_end <= n_plen_end;
          crc_end  <= n_crc_end;
          flen     <= n_flen;
          nbeats   <= n_beats;
          rd_b     <= hb ? 16'd2 : 16'd1;
          // the header beat's CRC (offset 0, from a zero register)
          crc_q    <= hb ? icrc_beat_f(32'h0, hdr[DATA_W-1:0], 16'd0, n_crc_end) : 32'h0;
          sent     <= 1'b1;
          sent_len <= n_flen;
        end
      end
    end
  end
  assign busy = act || s1_v || tvalid;
  assign reading = act && !(adv1 && last_rd);
endmodule
