`include "hca_defs.vh"

// DMA write front-end: one write at a time, issued by the sequencer, which
// waits for its response (so a fault is known before anything that depends
// on it -- an ACK, a completion -- happens, as in the model).
//
// A posted write (w_post: an RC WRITE payload packet with nothing owed on
// it, hca_resp) reports w_done (w_err 0) when it is taken (its address and
// data then go out behind the caller's back, from the frame its caller
// holds); one taken straight from its start (not queued: w_rdy high in its
// start's cycle) reports no w_done, its caller ends with it (docs/rtl.md
// "The responder's frame period"); its response is awaited behind the caller's back too (p_out: from
// the start to the response) and reported alone (by sequence number
// below).  A write
// started while the previous one's data still go out waits in a one-entry
// queue (pend) and is taken after them: only a posted write's caller goes
// on before its data are out, and it starts no other write before its
// write is taken.  Several posted writes may be outstanding (up to
// P_MAX: docs/rtl.md "Several payload writes in flight"); responses come
// in issue order, so the first p_cnt responses are theirs and a
// non-posted write started after them waits for its own.  Each posted
// write of non-zero length gets a sequence number when it is accepted
// (p_seq: the next one, counting a write accepted in this cycle), and the
// error bit of each returned one is kept (p_rerr, indexed by sequence;
// p_rseq: the next response's): hca_ack_send tells from them when the
// write its owed ACK acknowledges is back and whether it faulted.
//
// Sources: SMALL (up to 64 bytes from a register: CQE, EQE, UD GRH area) or
// RXBUF (a byte range of the receive buffer: payload).  Data beats are packed
// (beat k = bytes [addr + k*WB, ...)) with byte strobes for the tail, so a
// receive-buffer range at any offset is rotated to lane 0 on the way out.
// A zero-length write completes at once without touching the bus (the
// model never calls dma_write for 0 bytes).
module hca_dma_wr #(
    parameter int DATA_W   = 64,
    parameter int RXBUF_AW = 10,
    parameter int P_MAX    = 3,          // posted writes outstanding at most
    localparam int WB = DATA_W / 8,
    localparam int PCW = $clog2(P_MAX + 1)
) (
    input  logic              clk,
    input  logic              rst_n,
    input  logic              ce,
    input  logic              srst,
    input  logic              w_start,
    input  logic [63:0]       w_addr,
    input  logic [15:0]       w_len,
    input  logic              w_rxbuf,       // 1: receive buffer, 0: w_small
    input  logic [RXBUF_AW+$clog2(WB)-1:0] w_off,   // receive buffer byte address
    input  logic [511:0]      w_small,
    input  logic              w_post,        // with w_start: posted (above)
    output logic              w_busy,
    output logic              p_out,         // a posted write's response is outstanding
    output logic [2:0]        p_seq,         // sequence number of the next posted write (above)
    output logic [2:0]        p_rseq,        // sequence number of the next posted response
    output logic [7:0]        p_rerr,        // error bit of each returned posted write, by sequence
    output logic              w_done,        // one cycle
    output logic              w_err,         // with w_done
    output logic              w_rdy,         // a write started now is taken now (a posted one: no w_done)
    // receive buffer read port; the slots (address MSB) the write being
    // sent and the queued one still read (hca_rx_frame frees a held slot then)
    output logic [1:0]        rb_busy,
    output logic              rb_en,
    output logic [RXBUF_AW-1:0] rb_addr,
    input  logic [DATA_W-1:0] rb_data,
    // DMA write channel
    output logic              wr_req_valid,
    input  logic              wr_req_ready,
    output logic [63:0]       wr_req_addr,
    output logic [15:0]       wr_req_len,
    output logic              wr_dat_valid,
    input  logic              wr_dat_ready,
    output logic [DATA_W-1:0] wr_dat_data,
    output logic [WB-1:0]     wr_dat_strb,
    output logic              wr_dat_last,
    input  logic              wr_rsp_valid,
    input  logic              wr_rsp_err
);
  localparam int LW = $clog2(WB);
  typedef enum logic [1:0] {S_IDLE, S_REQ, S_DATA, S_RSP} st_t;
  st_t st;
  logic        rxbuf, req_done, orphan, post;
  logic [PCW-1:0] p_cnt;             // posted writes whose response is outstanding
  logic [P_MAX-1:0] p_orph;          // ... orphaned by a reset (bit 0: the oldest)
  logic [2:0]  iss_seq;              // sequence of the next posted write accepted
  // a write started while busy, taken when idle
  logic        pend_v, pend_orph, pd_rxbuf, pd_post;
  logic [63:0] pd_addr;
  logic [15:0] pd_len;
  logic [RXBUF_AW+$clog2(WB)-1:0] pd_off;
  logic [511:0] pd_small;
  // the write S_IDLE takes: the queued one, else this cycle's start
  logic        s_go, s_rxbuf, s_post;
  logic [63:0] s_addr;
  logic [15:0] s_len;
  logic [RXBUF_AW+$clog2(WB)-1:0] s_off;
  logic [511:0] s_small;
  assign s_go    = pend_v || (w_start && w_len != 16'd0);
  assign s_addr  = pend_v ? pd_addr : w_addr;
  assign s_len   = pend_v ? pd_len : w_len;
  assign s_rxbuf = pend_v ? pd_rxbuf : w_rxbuf;
  assign s_off   = pend_v ? pd_off : w_off;
  assign s_small = pend_v ? pd_small : w_small;
  assign s_post  = pend_v ? pd_post : w_post;
  logic [15:0] len, nbeats, beat;
  logic [RXBUF_AW-1:0] word0;
  logic [LW-1:0] rot;
  logic [511:0] small_q;
  logic [63:0]  addr;

  assign p_out        = p_cnt != '0 || (st != S_IDLE && post) || (pend_v && pd_post);
  assign w_busy       = (st != S_IDLE) || p_out || pend_v;
  assign p_seq        = iss_seq + 3'(w_start && w_post && w_len != 16'd0);
  assign w_rdy        = st == S_IDLE && !pend_v;
  assign wr_req_valid = ce && (st == S_REQ || st == S_DATA) && !req_done;
  assign wr_req_addr  = addr;
  assign wr_req_len   = len;

  // Receive-buffer words for the data beats: beat k needs words k and k+1
  // (relative to word0).  A 4-deep word queue fed by reads issued ahead.
  logic [DATA_W-1:0] wq [0:3];
  logic [2:0]  wq_cnt;
  logic [15:0] rd_issued;
  logic        rd_inflight;
  logic        rd_go, take;
  assign rd_go   = ce && (st == S_REQ || st == S_DATA) && rxbuf && rd_issued <= nbeats &&
                   ({1'b0, wq_cnt} + {3'b0, rd_inflight}) < 4'd4;
  assign rb_en   = rd_go;
  always_comb begin
    rb_busy = '0;
    if ((st == S_REQ || st == S_DATA) && rxbuf && (rd_issued <= nbeats || rd_inflight))
      rb_busy[word0[RXBUF_AW-1]] = 1'b1;
    if (pend_v && pd_rxbuf) rb_busy[pd_off[RXBUF_AW+LW-1]] = 1'b1;
  end
  assign rb_addr = word0 + RXBUF_AW'(rd_issued);

  logic have;
  assign have = rxbuf ? (wq_cnt >= 3'd2) : 1'b1;
  assign wr_dat_valid = ce && st == S_DATA && beat < nbeats && have;
  assign take = wr_dat_valid && wr_dat_ready;

  always_comb begin
    if (rxbuf)
      wr_dat_data = DATA_W'({wq[1], wq[0]} >> {rot, 3'b000});
    else
      wr_dat_data = DATA_W'(small_q >> {beat, LW'(0), 3'b000});
  end
  assign wr_dat_last = (beat + 16'd1 == nbeats);
  always_comb begin : strb
    integer i;
    for (i = 0; i < WB; i = i + 1)
      wr_dat_strb[i] = ((beat << LW) + 16'(i)) < len;
  end

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      st <= S_IDLE; rxbuf <= 1'b0; req_done <= 1'b0; orphan <= 1'b0; post <= 1'b0;
      p_cnt <= '0; p_orph <= '0;
      iss_seq <= '0; p_rseq <= '0; p_rerr <= '0;
      pend_v <= 1'b0; pend_orph <= 1'b0; pd_rxbuf <= 1'b0; pd_post <= 1'b0; pd_addr <= '0; pd_len <= '0;
      pd_off <= '0; pd_small <= '0;
      len <= '0; nbeats <= '0; beat <= '0; word0 <= '0; rot <= '0; small_q <= '0; addr <= '0;
      wq_cnt <= '0; rd_issued <= '0; rd_inflight <= 1'b0;
      w_done <= 1'b0; w_err <= 1'b0;
      wq[0] <= '0; wq[1] <= '0; wq[2] <= '0; wq[3] <= '0;
    end else begin
      if (ce) begin
        w_done <= 1'b0;     // pulse: cleared on engine cycles only
        // posted writes' responses: the first p_cnt ones (in issue order);
        // a posted write's last beat counts it (pc/po below)
        begin : p_upd
          logic [PCW-1:0] pc;
          logic [P_MAX-1:0] po;
          pc = p_cnt; po = p_orph;
          if (p_out && wr_rsp_valid) begin
            p_rerr[p_rseq] <= wr_rsp_err;
            p_rseq <= p_rseq + 3'd1;
            pc = pc - PCW'(1);
            po = po >> 1;
          end
          if ((st == S_REQ || st == S_DATA) && take && wr_dat_last && post) begin
            po[pc] = orphan;
            pc = pc + PCW'(1);
          end
          p_cnt  <= pc;
          p_orph <= po;
        end
        // a zero-length write is done at once; a posted one is numbered
        // when it is started (queued or not)
        if (w_start && w_len == 16'd0) begin
          w_done <= 1'b1;
          w_err  <= 1'b0;
        end
        if (w_start && w_post && w_len != 16'd0) iss_seq <= iss_seq + 3'd1;
        if (w_start && w_len != 16'd0 && st != S_IDLE) begin
          pend_v <= 1'b1; pend_orph <= 1'b0;
          pd_addr <= w_addr; pd_len <= w_len; pd_rxbuf <= w_rxbuf; pd_off <= w_off; pd_small <= w_small;
          pd_post <= w_post;
        end
        case (st)
          S_IDLE:
            if (s_go) begin
                pend_v   <= 1'b0;
                st       <= S_REQ;
                addr     <= s_addr;
                len      <= s_len;
                nbeats   <= (s_len + 16'(WB - 1)) >> LW;
                rxbuf    <= s_rxbuf;
                word0    <= s_off[RXBUF_AW+LW-1:LW];
                rot      <= s_off[LW-1:0];
                small_q  <= s_small;
                beat     <= '0;
                req_done <= 1'b0;
                orphan   <= pend_v && pend_orph;
                post     <= s_post;
                if (s_post) begin
                  // posted: done for the caller now (w_rdy with its start),
                  // or, taken from the queue, in the next cycle
                  w_done <= pend_v && !pend_orph;
                  w_err  <= 1'b0;
                end
                wq_cnt   <= '0;
                rd_issued <= '0;
                rd_inflight <= 1'b0;
            end
          S_REQ, S_DATA: begin
            if (wr_req_valid && wr_req_ready) req_done <= 1'b1;
            st <= S_DATA;
            // word queue: reads land one cycle after issue
            begin : wq_upd
              logic [2:0] c;
              c = wq_cnt;
              if (take && rxbuf) begin
                wq[0] <= wq[1]; wq[1] <= wq[2]; wq[2] <= wq[3];
                c = c - 3'd1;
              end
              if (rd_inflight) begin
                // append at position c (after the shift above)
                if (c == 3'd0) wq[0] <= rb_data;
                else if (c == 3'd1) wq[1] <= rb_data;
                else if (c == 3'd2) wq[2] <= rb_data;
                else wq[3] <= rb_data;
                c = c + 3'd1;
              end
              wq_cnt <= c;
            end
            rd_inflight <= rd_go;
            if (rd_go) rd_issued <= rd_issued + 16'd1;
            if (take) begin
              beat <= beat + 16'd1;
              if (wr_dat_last) begin
                if (post)
                  st <= S_IDLE;      // posted: the response awaited here (p_cnt)
                else
                  st <= S_RSP;
              end
            end
          end
          S_RSP:
            if (wr_rsp_valid && !p_out) begin
              st     <= S_IDLE;
              w_done <= !orphan;
              w_err  <= wr_rsp_err;
            end
          default: st <= S_IDLE;
        endcase
      end
      // A reset does not cut a write in flight: the burst is finished (the
      // host already accepted its address) and its response dropped.
      if (srst && st != S_IDLE) orphan <= 1'b1;
      if (srst) p_orph <= '1;
      if (srst && (pend_v || (w_start && w_len != 16'd0 && st != S_IDLE))) pend_orph <= 1'b1;
    end
  end
endmodule
