`include "hca_defs.vh"

// Transport timers: the deadline of each QP's running timer (model/comp.c
// ack_deadline / rnr_deadline; which one runs is TXS_TMR of the QP's words)
// and the search for deadlines that have passed (model/engine.c
// next_deadline, fire_timers).
//
// Arming: a job of the item sets `set` for one cycle (registered, like every
// strobe) with `kind` and, for an RNR wait, the NAK's timer `code`; the
// deadline is computed here from the device clock: TMR_ACK
// cycle + 2^(timeout + HCA_TIMER_ACK_SHIFT) (timeout: the item's QPC),
// TMR_RNR cycle + HCA_RNR_CYCLES_<code>, TMR_NONE disarms.  Arming or
// disarming a QP also forgets a deadline of it found passed but not yet
// handled (the item moved the timer).
//
// Scan: the deadlines sit in a RAM (one entry per QP, `tv` says which are
// armed); entry `cycle mod 2^LOG_MAX_QP` is checked in every engine cycle
// while a timer is armed (the scan rests, and the state holds still, while
// none is),
// so a deadline is found at most 2^LOG_MAX_QP - 1 cycles after it passes,
// at a cycle that depends only on the deadline (never on the time warp: the
// RAM is read on every clock of a scan at the address of the NEXT device cycle,
// cycle_nx, held clocks and warps included).  A passed deadline sets the
// QP's `due` bit; hca_dispatch steps a due QP like a busy one and
// hca_comp_timer acts on it (and re-arms or disarms the timer, which clears
// the bit).
//
// Harness view: `next_dl` is a lower bound of every armed deadline (all ones
// when none is armed): it drops at once when a timer is armed and is raised
// to the true minimum after every 2^LOG_MAX_QP consecutive engine cycles (a
// full scan; a warp restarts the count), and to all ones at once when the
// last timer is disarmed.  The first arm after none was armed sets it to its
// deadline and starts a new count (a window left from before would carry the
// deadlines of disarmed timers across a clocked rest but not a warped one),
// so next_dl depends on the arms and warps of armed time only, never on how
// the harness spent a rest.  The harness never skips idle time past
// it (sim/rtl/rtl_engine.c), so skipping never changes when a timer fires.
// Planted-bug hooks ack_timer (an ACK deadline that is never reached) and
// rnr_timer (the RNR wait ignores the NAK's timer code: always code 1).
module hca_timers #(
    parameter int LOG_MAX_QP = 8,
    localparam int NQP = 1 << LOG_MAX_QP
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic [63:0] cycle,           // device clock (hca_regs)
    input  logic [63:0] cycle_nx,        // its value after this clock edge
    // arm / disarm the item's QP timer
    input  logic        set,
    input  logic [LOG_MAX_QP-1:0] qn,
    input  logic [1:0]  kind,            // TMR_*
    input  logic [4:0]  code,            // RNR timer code (TMR_RNR)
    input  logic [4:0]  timeout,         // the item's QPC timeout exponent (TMR_ACK)
    // passed deadlines
    output logic [NQP-1:0] due,
    // harness
    output logic [63:0] next_dl
);
  localparam logic [63:0] NEVER = 64'hFFFF_FFFF_FFFF_FFFF;  // not '1: Yosys 0.23 reads that as 1 (lint.sh)

  // RNR NAK timer codes in device cycles (spec rnr_table, IB table 45).
  function automatic [63:0] rnr_cycles(input [4:0] c);
    case (c)
      5'd0:  rnr_cycles = 64'(`HCA_RNR_CYCLES_0);   5'd1:  rnr_cycles = 64'(`HCA_RNR_CYCLES_1);
      5'd2:  rnr_cycles = 64'(`HCA_RNR_CYCLES_2);   5'd3:  rnr_cycles = 64'(`HCA_RNR_CYCLES_3);
      5'd4:  rnr_cycles = 64'(`HCA_RNR_CYCLES_4);   5'd5:  rnr_cycles = 64'(`HCA_RNR_CYCLES_5);
      5'd6:  rnr_cycles = 64'(`HCA_RNR_CYCLES_6);   5'd7:  rnr_cycles = 64'(`HCA_RNR_CYCLES_7);
      5'd8:  rnr_cycles = 64'(`HCA_RNR_CYCLES_8);   5'd9:  rnr_cycles = 64'(`HCA_RNR_CYCLES_9);
      5'd10: rnr_cycles = 64'(`HCA_RNR_CYCLES_10);  5'd11: rnr_cycles = 64'(`HCA_RNR_CYCLES_11);
      5'd12: rnr_cycles = 64'(`HCA_RNR_CYCLES_12);  5'd13: rnr_cycles = 64'(`HCA_RNR_CYCLES_13);
      5'd14: rnr_cycles = 64'(`HCA_RNR_CYCLES_14);  5'd15: rnr_cycles = 64'(`HCA_RNR_CYCLES_15);
      5'd16: rnr_cycles = 64'(`HCA_RNR_CYCLES_16);  5'd17: rnr_cycles = 64'(`HCA_RNR_CYCLES_17);
      5'd18: rnr_cycles = 64'(`HCA_RNR_CYCLES_18);  5'd19: rnr_cycles = 64'(`HCA_RNR_CYCLES_19);
      5'd20: rnr_cycles = 64'(`HCA_RNR_CYCLES_20);  5'd21: rnr_cycles = 64'(`HCA_RNR_CYCLES_21);
      5'd22: rnr_cycles = 64'(`HCA_RNR_CYCLES_22);  5'd23: rnr_cycles = 64'(`HCA_RNR_CYCLES_23);
      5'd24: rnr_cycles = 64'(`HCA_RNR_CYCLES_24);  5'd25: rnr_cycles = 64'(`HCA_RNR_CYCLES_25);
      5'd26: rnr_cycles = 64'(`HCA_RNR_CYCLES_26);  5'd27: rnr_cycles = 64'(`HCA_RNR_CYCLES_27);
      5'd28: rnr_cycles = 64'(`HCA_RNR_CYCLES_28);  5'd29: rnr_cycles = 64'(`HCA_RNR_CYCLES_29);
      5'd30: rnr_cycles = 64'(`HCA_RNR_CYCLES_30);  default: rnr_cycles = 64'(`HCA_RNR_CYCLES_31);
    endcase
  endfunction

  // the new deadline of an arm
  logic        arm;
  logic [63:0] dl;
  assign arm = set && kind != `TMR_NONE;
  always_comb begin
    if (kind == `TMR_RNR)
      dl = cycle + `HCA_BUG(rnr_timer, rnr_cycles(code), rnr_cycles(5'd1));
    else
      dl = `HCA_BUG(ack_timer, cycle + (64'd1 << (7'(timeout) + 7'(`HCA_TIMER_ACK_SHIFT))), NEVER);
  end

  // deadline RAM, read at the next cycle's scan address on every clock
  logic [LOG_MAX_QP-1:0] ra, sq;
  logic [63:0] rd, byp_d, sd;
  logic        byp_v;
  logic [NQP-1:0] tv;
  logic        scan_on;
  // No timer armed and none arming: the scan (and its RAM read) rests, so an
  // engine with nothing to time holds still from cycle to cycle (the
  // harness's quiet-cycle skipping needs an unchanged state; docs/sim.md
  // 9.2).  A rested read is never used: vis looks at armed entries only, and
  // the arm cycle's read of the next entry runs (bypassed when it is qn).
  assign scan_on = (|tv) || arm;
  assign ra = cycle_nx[LOG_MAX_QP-1:0];
  assign sq = cycle[LOG_MAX_QP-1:0];
  hca_ram_sdp #(.W(64), .DEPTH(NQP)) u_dl (
      .clk(clk), .wr_en(arm && ce), .wr_addr(qn), .wr_data(dl), .wr_be('1),
      .rd_en(scan_on), .rd_addr(ra), .rd_data(rd));
  assign sd = byp_v ? byp_d : rd;          // entry sq, with a write of the read's cycle

  // the scan
  logic [63:0] acc;                        // minimum over this scan window
  logic [63:0] lb;                         // lower bound of the armed deadlines
  logic [LOG_MAX_QP:0] cnt;                // engine cycles in this window
  logic        hit, jump;
  logic [63:0] vis;
  assign hit  = tv[sq] && sd <= cycle;
  assign vis  = tv[sq] ? sd : NEVER;
  assign jump = !ce && cycle_nx != cycle;  // a time warp

  assign next_dl = (|tv) ? lb : NEVER;

  function automatic [63:0] min64(input [63:0] a, input [63:0] b);
    min64 = (a < b) ? a : b;
  endfunction

  always_ff @(posedge clk) begin
    byp_v <= arm && ce && qn == ra;
    if (arm) byp_d <= dl;                  // used only after an arm (byp_v)
  end

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      tv <= '0; due <= '0; acc <= NEVER; cnt <= '0; lb <= NEVER;
    end else if (srst) begin
      tv <= '0; due <= '0; acc <= NEVER; cnt <= '0; lb <= NEVER;
    end else if (ce && scan_on) begin : scan
      logic [63:0] a;
      logic        first;
      // The first arm (no timer armed before it) starts a new window: the
      // window left when the last timer was disarmed holds deadlines of
      // timers no longer armed, which would pull lb below every armed
      // deadline -- and that stale window survives a rest that is clocked
      // but not one that is warped, so next_dl would depend on the harness's
      // skipping (sim_quiet).
      first = !(|tv);
      a = first ? NEVER : min64(acc, vis);
      if (arm) a = min64(a, dl);
      if (!first && cnt == (LOG_MAX_QP+1)'(NQP - 1)) begin
        lb  <= a;
        acc <= NEVER;
        cnt <= '0;
      end else begin
        if (arm) lb <= first ? dl : min64(lb, dl);
        acc <= a;
        cnt <= first ? (LOG_MAX_QP+1)'(1) : cnt + 1'b1;
      end
      if (hit) due[sq] <= 1'b1;
      if (set) begin
        due[qn] <= 1'b0;
        tv[qn]  <= arm;
      end
    end else if (jump) begin
      acc <= NEVER;
      cnt <= '0;
    end
  end
endmodule
