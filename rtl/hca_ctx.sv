`include "hca_defs.vh"

// Context store: the QP/CQ/SRQ/EQ/MR/GID tables, the doorbell-visible state
// and the register-side commands that change them (docs/programming.md 2.2
// and 7; the model does the same in model/ctx.c, bar0.c and mgmt.c).
//
// Two sides:
//  * register side (hca_regs): doorbells, CTX_CMD read/write through the
//    staging buffer, EQE injection.  Each request takes two cycles (issue
//    the RAM reads, then check and update) and is acknowledged with ack.
//    Register-side updates of flip-flop state win over engine strobes in the
//    same cycle.  A QPC write to the QP whose item the engine is working on
//    (e_step_*) is serialised after the item: its effect on the requester/
//    responder words (reset, PSN loads, retry counts, drain) is recorded and
//    replayed on the item's write-back, the item keeps seeing the QP's state
//    and producer indices as they were before the write, its own QP state
//    change is dropped (the command's state wins) and its busy-bit clear
//    does not undo the command's.  With the engine running a QPC command
//    waits while the engine writes that QP's words back (two cycles at
//    most); with the engine held it cannot, and the write-back cycle is
//    replayed like the rest of the item.
//  * engine side (hca_seq): read ports on every table and single-cycle
//    update strobes for the state both sides change (QP state and busy bit,
//    CQ/EQ/SRQ indices and arming), effective only when eng_ce = 1.
//
// Large tables live in dual-port RAMs (port A register side, port B engine):
// QPC configuration (128 bytes), per-QP requester/responder state (TXS/RXS
// words of hca_defs.vh), CQC configuration (32 bytes), MRC (64 bytes).  A
// "live" bit per RAM entry tells written-since-reset entries from stale ones,
// so a reset is one cycle.  SRQ, EQ and GID tables are flip-flops.
module hca_ctx #(
    parameter int LOG_MAX_QP  = 8,
    parameter int LOG_MAX_CQ  = 8,
    parameter int LOG_MAX_SRQ = 6,
    parameter int LOG_MAX_EQ  = 5,
    parameter int LOG_MAX_MR  = 10,
    parameter int INJ_DEPTH   = 64,
    localparam int NQP = 1 << LOG_MAX_QP,
    localparam int NCQ = 1 << LOG_MAX_CQ,
    localparam int NSRQ = 1 << LOG_MAX_SRQ,
    localparam int NEQ = 1 << LOG_MAX_EQ,
    localparam int NMR = 1 << LOG_MAX_MR,
    localparam int NGID = `HCA_CAP_GID_TBL_LEN
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        eng_ce,
    input  logic        srst,
    input  logic        enabled,
    // ---- register side
    input  logic        db_req,
    input  logic [6:0]  db_page,
    input  logic [11:0] db_reg,
    input  logic [31:0] db_val,
    output logic        db_ack,
    // an SQ doorbell taking effect (db_ack cycle): its QP's words as they were
    // before it (hca_db_wqe_read reads the WQE at SQ_HEAD from here)
    output logic        db_sq_now,
    output logic [LOG_MAX_QP-1:0] db_qn,
    output logic [15:0] db_pi,           // the new SQ producer index
    output logic [15:0] db_old_pi,
    output logic [2:0]  db_qp_st,
    output logic [1023:0] db_cfg,        // QPC
    output logic [`TXS_W-1:0] db_txs,    // requester word (RAM: the engine's last write-back)
    input  logic        cc_req,
    input  logic [3:0]  cc_op,
    input  logic [3:0]  cc_type,
    input  logic [23:0] cc_idx,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [2047:0] cc_wdata,       // staging buffer (QPC uses 128 bytes at most)
    /* verilator lint_on UNUSEDSIGNAL */
    output logic        cc_ack,
    output logic [2:0]  cc_status,
    output logic        cc_rvalid,
    output logic [2047:0] cc_rdata,
    input  logic        inj_req,
    input  logic [31:0] inj_eqn,
    input  logic [15:0] inj_type,
    input  logic [31:0] inj_element,
    input  logic [31:0] inj_data,
    output logic        inj_ack,
    output logic [2:0]  inj_status,
    output logic        c_evt_valid,
    output logic [7:0]  c_evt_type,
    output logic [31:0] c_evt_elem,
    output logic        c_stat_db_err,
    output logic        c_stat_eq_ovf,
    input  logic [LOG_MAX_QP-1:0] e_step_qn,   // hca_seq: QP of the item in progress
    input  logic        e_step_read,
    input  logic        e_step_mid,
    input  logic        e_step_wb,
    output logic        qpc_written,       // a QPC write is applied this cycle (hca_seq's WQE caches)
    output logic        cqc_written,       // a CQC RAM write this cycle (hca_cq_post's CQC copy)
    output logic        qp_reset,          // ... and it resets the QP's dynamic state (RESET, RESET_STATE)
    output logic [LOG_MAX_QP-1:0] qp_reset_qn,
    // ---- engine side: QP
    input  logic [LOG_MAX_QP-1:0] e_qp_idx,
    output logic [2:0]  e_qp_state,
    output logic [15:0] e_qp_sq_pi,
    output logic [15:0] e_qp_rq_pi,
    input  logic        e_qp_set_state,
    input  logic [2:0]  e_qp_state_val,
    input  logic        e_busy_set,
    input  logic        e_busy_clr,
    input  logic [LOG_MAX_QP-1:0] e_busy_idx,
    input  logic [LOG_MAX_QP-1:0] e_busy_cidx,   // the clear's QP (another than e_busy_idx's in a handover)
    input  logic        e_wake,              // hca_wqe_prefetch: a QP's WQE read completed
    input  logic [LOG_MAX_QP-1:0] e_wake_idx,
    output logic [NQP-1:0] qp_busy,
    input  logic        e_qpc_en,
    input  logic [LOG_MAX_QP-1:0] e_qpc_idx,
    output logic [1023:0] e_qpc_rdata,
    input  logic        e_txs_en,
    input  logic        e_txs_we,
    input  logic [LOG_MAX_QP-1:0] e_txs_idx,
    input  logic [`TXS_W-1:0] e_txs_wdata,
    output logic [`TXS_W-1:0] e_txs_rdata,
    input  logic        e_rxs_en,
    input  logic        e_rxs_we,
    input  logic [LOG_MAX_QP-1:0] e_rxs_idx,
    input  logic [`RXS_W-1:0] e_rxs_wdata,
    output logic [`RXS_W-1:0] e_rxs_rdata,
    // ---- engine side: CQ
    input  logic [LOG_MAX_CQ-1:0] e_cq_idx,
    output logic        e_cq_valid,
    output logic [31:0] e_cq_pi,
    output logic [31:0] e_cq_ci,
    output logic [1:0]  e_cq_arm,
    output logic        e_cq_err,
    input  logic        e_cq_inc,          // pi + 1 (a CQE is being written)
    input  logic        e_cq_dec,          // pi - 1 (its write faulted)
    input  logic        e_cq_disarm,
    input  logic        e_cq_sol,          // with e_cq_inc: the CQE is solicited or an error (sol_pi = pi + 1)
    output logic        e_cq_db_now,       // a doorbell of CQ e_cq_idx takes effect this cycle
    input  logic        e_cq_fp_clr,
    output logic [NCQ-1:0] cq_fire_pending, // an arm doorbell found CQEs: the engine posts the COMP EQE
    input  logic        e_cq_set_err,
    input  logic        e_cqc_en,
    output logic [255:0] e_cqc_rdata,
    // ---- engine side: EQ
    input  logic [LOG_MAX_EQ-1:0] e_eq_idx,
    output logic        e_eq_valid,
    output logic [255:0] e_eq_cfg,
    output logic [31:0] e_eq_pi,
    output logic [31:0] e_eq_ci,
    output logic        e_eq_armed,
    output logic        e_eq_failed,
    input  logic        e_eq_inc,
    input  logic        e_eq_dec,
    input  logic        e_eq_disarm,
    input  logic        e_eq_fail,
    input  logic        e_eq_fp_clr,
    output logic        e_eq_db_now,       // a doorbell of EQ e_eq_idx takes effect this cycle
    output logic [NEQ-1:0] eq_fire_pending,
    output logic        e_inj_valid,
    output logic [LOG_MAX_EQ-1:0] e_inj_eqn,
    output logic [79:0] e_inj_eqe,      // type, subtype, element, data (hca_eqe bytes 0..11 as fields)
    input  logic        e_inj_pop,
    // ---- engine side: SRQ
    input  logic [LOG_MAX_SRQ-1:0] e_srq_idx,
    output logic        e_srq_valid,
    output logic [255:0] e_srq_cfg,
    output logic [31:0] e_srq_pi,
    output logic [31:0] e_srq_ci,
    output logic        e_srq_armed,
    input  logic        e_srq_inc,
    input  logic        e_srq_disarm,
    input  logic        e_srq_set_err,
    // ---- engine side: MR
    input  logic        e_mr_en,
    input  logic [LOG_MAX_MR-1:0] e_mr_idx,
    output logic [511:0] e_mr_rdata,
    output logic        e_mr_live,       // aligned with e_mr_rdata
    // ---- engine side: GID
    input  logic [3:0]  e_gid_idx,
    output logic [127:0] e_gid,
    input  logic [31:0] e_ip,            // wire order
    output logic        e_ip_ours
);
  // ------------------------------------------------------------ storage
  logic [NQP-1:0]  qp_live;
  logic [2:0]      qp_state [0:NQP-1];
  logic [15:0]     qp_sq_pi [0:NQP-1];
  logic [15:0]     qp_rq_pi [0:NQP-1];
  logic [NCQ-1:0]  cq_live, cq_valid, cq_err;
  logic [31:0]     cq_pi [0:NCQ-1];
  logic [31:0]     cq_ci [0:NCQ-1];
  logic [1:0]      cq_arm [0:NCQ-1];
  logic [15:0]     cq_solpi [0:NCQ-1];
  // arm doorbells that fired, COMP EQEs to post (saturating 2-bit count per
  // CQ, its bits as two vectors: the pending vector is then one word-wide OR)
  logic [NCQ-1:0]  cq_fp_lo, cq_fp_hi;
  logic [1:0]      cq_fp_dec, cq_fp_inc;  // the count of e_cq_idx less one, of dc plus one
  logic [NCQ-1:0]  cq_fpv;
  logic [255:0]    srq_cfg [0:NSRQ-1];
  logic [31:0]     srq_pi [0:NSRQ-1];
  logic [31:0]     srq_ci [0:NSRQ-1];
  logic [NSRQ-1:0] srq_armed;
  logic [255:0]    eq_cfg [0:NEQ-1];
  logic [31:0]     eq_pi [0:NEQ-1];
  logic [31:0]     eq_ci [0:NEQ-1];
  logic [NEQ-1:0]  eq_armed, eq_failed, eq_fp;
  logic [6:0]      eq_injq [0:NEQ-1];
  logic [255:0]    gid_cfg [0:NGID-1];
  logic [NMR-1:0]  mr_live;
  logic [NSRQ-1:0] srq_live;
  logic [NEQ-1:0]  eq_live;
  logic [NGID-1:0] gid_live;
  logic [NGID-1:0] gid_v4;      // with gid_live: the entry is an IPv4-mapped valid GID (ip_match)
  // Table entries are valid only while "live" (written since reset); the
  // arrays themselves are not reset, so a reset is a handful of vectors.

  // Port A of the RAMs (register side).
  logic            qa_en, qa_we, ta_en, ta_we, ra_en, ra_we, ca_en, ca_we, ma_en, ma_we;
  logic [LOG_MAX_QP-1:0] qa_addr;
  logic [LOG_MAX_CQ-1:0] ca_addr;
  logic [LOG_MAX_MR-1:0] ma_addr;
  logic [1023:0]   qa_wdata, qa_rdata;
  logic [`TXS_W-1:0] ta_wdata, ta_rdata;
  logic [`RXS_W-1:0] ra_wdata, ra_rdata;
  logic [255:0]    ca_wdata, ca_rdata;
  logic [511:0]    ma_wdata, ma_rdata;

  hca_ram_tdp #(.W(1024), .DEPTH(NQP)) u_qpc (
      .clk(clk), .a_en(qa_en), .a_we(qa_we), .a_addr(qa_addr), .a_wdata(qa_wdata), .a_rdata(qa_rdata),
      .b_en(e_qpc_en && eng_ce), .b_we(1'b0), .b_addr(e_qpc_idx), .b_wdata('0), .b_rdata(e_qpc_rdata));
  hca_ram_tdp #(.W(`TXS_W), .DEPTH(NQP)) u_txs (
      .clk(clk), .a_en(ta_en), .a_we(ta_we), .a_addr(qa_addr), .a_wdata(ta_wdata), .a_rdata(ta_rdata),
      .b_en(e_txs_en && eng_ce), .b_we(e_txs_we), .b_addr(e_txs_idx), .b_wdata(tb_wdata), .b_rdata(e_txs_rdata));
  hca_ram_tdp #(.W(`RXS_W), .DEPTH(NQP)) u_rxs (
      .clk(clk), .a_en(ra_en), .a_we(ra_we), .a_addr(qa_addr), .a_wdata(ra_wdata), .a_rdata(ra_rdata),
      .b_en(e_rxs_en && eng_ce), .b_we(e_rxs_we), .b_addr(e_rxs_idx), .b_wdata(rb_wdata), .b_rdata(e_rxs_rdata));
  hca_ram_tdp #(.W(256), .DEPTH(NCQ)) u_cqc (
      .clk(clk), .a_en(ca_en), .a_we(ca_we), .a_addr(ca_addr), .a_wdata(ca_wdata), .a_rdata(ca_rdata),
      .b_en(e_cqc_en && eng_ce), .b_we(1'b0), .b_addr(e_cq_idx), .b_wdata('0), .b_rdata(e_cqc_rdata));
  hca_ram_tdp #(.W(512), .DEPTH(NMR)) u_mrc (
      .clk(clk), .a_en(ma_en), .a_we(ma_we), .a_addr(ma_addr), .a_wdata(ma_wdata), .a_rdata(ma_rdata),
      .b_en(e_mr_en && eng_ce), .b_we(1'b0), .b_addr(e_mr_idx), .b_wdata('0), .b_rdata(e_mr_rdata));

  logic mr_live_q;
  always_ff @(posedge clk) if (e_mr_en && eng_ce) mr_live_q <= mr_live[e_mr_idx];
  assign e_mr_live = mr_live_q;

  // Live-gated views of the flip-flop tables.
  function automatic [2:0] qst(input [LOG_MAX_QP-1:0] q);
    qst = qp_live[q] ? qp_state[q] : 3'(`HCA_QPS_RESET);
  endfunction
  function automatic [15:0] qsq(input [LOG_MAX_QP-1:0] q);
    qsq = qp_live[q] ? qp_sq_pi[q] : 16'h0;
  endfunction
  function automatic [15:0] qrq(input [LOG_MAX_QP-1:0] q);
    qrq = qp_live[q] ? qp_rq_pi[q] : 16'h0;
  endfunction
  function automatic [31:0] cpi(input [LOG_MAX_CQ-1:0] c);
    cpi = cq_live[c] ? cq_pi[c] : 32'h0;
  endfunction
  function automatic [31:0] cci(input [LOG_MAX_CQ-1:0] c);
    cci = cq_live[c] ? cq_ci[c] : 32'h0;
  endfunction
  function automatic [1:0] carm(input [LOG_MAX_CQ-1:0] c);
    carm = cq_live[c] ? cq_arm[c] : 2'h0;
  endfunction
  function automatic [1:0] cfp(input [LOG_MAX_CQ-1:0] c);
    cfp = cq_live[c] ? {cq_fp_hi[c], cq_fp_lo[c]} : 2'h0;
  endfunction
  function automatic [15:0] csolp(input [LOG_MAX_CQ-1:0] c);
    csolp = cq_live[c] ? cq_solpi[c] : 16'h0;
  endfunction
  function automatic [255:0] scfg(input [LOG_MAX_SRQ-1:0] x);
    scfg = srq_live[x] ? srq_cfg[x] : 256'h0;
  endfunction
  function automatic [31:0] spi(input [LOG_MAX_SRQ-1:0] x);
    spi = srq_live[x] ? srq_pi[x] : 32'h0;
  endfunction
  function automatic [31:0] sci(input [LOG_MAX_SRQ-1:0] x);
    sci = srq_live[x] ? srq_ci[x] : 32'h0;
  endfunction
  function automatic [255:0] ecfg(input [LOG_MAX_EQ-1:0] x);
    ecfg = eq_live[x] ? eq_cfg[x] : 256'h0;
  endfunction
  function automatic [31:0] epi(input [LOG_MAX_EQ-1:0] x);
    epi = eq_live[x] ? eq_pi[x] : 32'h0;
  endfunction
  function automatic [31:0] eci(input [LOG_MAX_EQ-1:0] x);
    eci = eq_live[x] ? eq_ci[x] : 32'h0;
  endfunction
  function automatic [6:0] einj(input [LOG_MAX_EQ-1:0] x);
    einj = eq_live[x] ? eq_injq[x] : 7'h0;
  endfunction
  function automatic [255:0] gcfg(input [3:0] x);
    gcfg = gid_live[x] ? gid_cfg[x] : 256'h0;
  endfunction

  // ------------------------------------------------------- engine reads
  // e_qp_state / e_qp_sq_pi / e_qp_rq_pi: below, with the QPC-write replay
  assign e_cq_valid = cq_valid[e_cq_idx];
  assign e_cq_pi    = cpi(e_cq_idx);
  assign e_cq_ci    = cci(e_cq_idx);
  assign e_cq_arm   = carm(e_cq_idx);
  assign e_cq_err   = cq_err[e_cq_idx];
  assign e_eq_cfg   = ecfg(e_eq_idx);
  assign e_eq_valid = e_eq_cfg[7:0] != 8'h0;
  assign e_eq_pi    = epi(e_eq_idx);
  assign e_eq_ci    = eci(e_eq_idx);
  assign e_eq_armed = eq_armed[e_eq_idx];
  assign e_eq_failed = eq_failed[e_eq_idx];
  assign eq_fire_pending = eq_fp;
  assign cq_fpv = cq_live & (cq_fp_lo | cq_fp_hi);
  assign cq_fp_dec = cfp(e_cq_idx) - 2'd1;
  assign cq_fp_inc = cfp(dc) + 2'd1;
  assign cq_fire_pending = cq_fpv;
  assign e_srq_cfg  = scfg(e_srq_idx);
  assign e_srq_valid = e_srq_cfg[7:0] != 8'h0;
  assign e_srq_pi   = spi(e_srq_idx);
  assign e_srq_ci   = sci(e_srq_idx);
  assign e_srq_armed = srq_armed[e_srq_idx];
  assign e_gid      = gid_live[e_gid_idx] ? gid_cfg[e_gid_idx][127:0] : 128'h0;

  // The byte (e8, s8) or two bytes (e16, s16) at byte offset o of an EQ's /
  // SRQ's configuration, zero when the entry is not live: the checks below
  // read a field or two, not the whole 256-bit view (ecfg, scfg), which the
  // Verilated model would build on every clock edge.
  function automatic [7:0] e8(input [LOG_MAX_EQ-1:0] x, input integer o);
    e8 = eq_live[x] ? eq_cfg[x][8*o +: 8] : 8'h0;
  endfunction
  function automatic [15:0] e16(input [LOG_MAX_EQ-1:0] x, input integer o);
    e16 = eq_live[x] ? eq_cfg[x][8*o +: 16] : 16'h0;
  endfunction
  function automatic [7:0] s8(input [LOG_MAX_SRQ-1:0] x, input integer o);
    s8 = srq_live[x] ? srq_cfg[x][8*o +: 8] : 8'h0;
  endfunction
  function automatic [15:0] s16(input [LOG_MAX_SRQ-1:0] x, input integer o);
    s16 = srq_live[x] ? srq_cfg[x][8*o +: 16] : 16'h0;
  endfunction

  // gid_v4[g]: entry g is live, valid and an IPv4-mapped address
  // (::ffff:a.b.c.d), decided when the entry is written (gid_v4_of) rather
  // than on every clock edge; a reset clears it with the live bits.
  function automatic gid_v4_of(input [7:0] valid, input [95:0] prefix);
    gid_v4_of = valid != 8'h0 && prefix == {16'hFFFF, 80'h0};
  endfunction
  always_comb begin : ip_match
    integer g;
    e_ip_ours = 1'b0;
    for (g = 0; g < NGID; g = g + 1)
      if (gid_v4[g] && gid_cfg[g][127:96] == e_ip)
        e_ip_ours = 1'b1;
  end

  // EQE injection FIFO: {eqn, type, subtype, element, data}
  logic            inj_push, inj_full, inj_empty;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [$clog2(INJ_DEPTH):0] inj_count;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [LOG_MAX_EQ+80-1:0] inj_din, inj_dout;
  hca_fifo #(.W(LOG_MAX_EQ + 80), .DEPTH(INJ_DEPTH)) u_inj (
      .clk(clk), .rst_n(rst_n), .clr(srst), .push(inj_push), .din(inj_din),
      .pop(e_inj_pop && eng_ce), .dout(inj_dout), .empty(inj_empty), .full(inj_full), .count(inj_count));
  assign e_inj_valid = !inj_empty;
  assign e_inj_eqn   = inj_dout[LOG_MAX_EQ+80-1:80];
  assign e_inj_eqe   = inj_dout[79:0];

  // ------------------------------------------------ register-side commands
  typedef enum logic [0:0] {C_IDLE, C_EXEC} cst_t;
  cst_t cst;
  // CQ/EQ arm and consumer-index updates and the engine's arm decisions are
  // atomic with respect to each other, as in the model: the engine applies a
  // decision in the cycle it takes it and yields that cycle to a doorbell of
  // the same queue (e_cq_db_now, e_eq_db_now).  A QPC command waits out the
  // engine's write-back of that QP (cc_wait).
  logic x_db, x_cc, x_inj;
  logic cc_wait;     // a QPC command waits out the engine's write-back of that QP
  logic qpc_wr_now;  // a QPC write is applied this cycle
  logic [`TXS_W-1:0] tb_wdata;   // engine write-back words (with replayed QPC writes)
  logic [`RXS_W-1:0] rb_wdata;
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      cst <= C_IDLE; x_db <= 1'b0; x_cc <= 1'b0; x_inj <= 1'b0;
    end else if (cst == C_IDLE && (db_req || (cc_req && !cc_wait) || inj_req)) begin
      cst <= C_EXEC; x_db <= db_req; x_cc <= cc_req && !cc_wait; x_inj <= inj_req;
    end else begin
      cst <= C_IDLE; x_db <= 1'b0; x_cc <= 1'b0; x_inj <= 1'b0;
    end
  end
  logic exec;
  assign exec    = (cst == C_EXEC);
  assign db_ack  = exec && x_db;
  assign cc_ack  = exec && x_cc;
  assign inj_ack = exec && x_inj;

  // Doorbell decode.
  logic [15:0] db_num, db_idx;
  assign db_num = db_val[15:0];
  assign db_idx = db_val[31:16];
  logic db_sq, db_rq, db_srq, db_cq, db_eq;
  assign db_sq  = db_reg == 12'(`HCA_DB_SQ_PI);
  assign db_rq  = db_reg == 12'(`HCA_DB_RQ_PI);
  assign db_srq = db_reg == 12'(`HCA_DB_SRQ_PI);
  assign db_cq  = db_reg == 12'(`HCA_DB_CQ_CI) || db_reg == 12'(`HCA_DB_CQ_ARM) || db_reg == 12'(`HCA_DB_CQ_ARM_SOL);
  assign db_eq  = db_reg == 12'(`HCA_DB_EQ_CI) || db_reg == 12'(`HCA_DB_EQ_ARM);

  // Context command decode.
  logic        cc_qpc, cc_cqc, cc_srqc, cc_eqc, cc_mrc, cc_gidc, cc_rd, cc_wr;
  logic        cc_badtype, cc_badidx;
  assign cc_qpc  = cc_type == 4'(`HCA_CTX_TYPE_QPC);
  assign cc_cqc  = cc_type == 4'(`HCA_CTX_TYPE_CQC);
  assign cc_srqc = cc_type == 4'(`HCA_CTX_TYPE_SRQC);
  assign cc_eqc  = cc_type == 4'(`HCA_CTX_TYPE_EQC);
  assign cc_mrc  = cc_type == 4'(`HCA_CTX_TYPE_MRC);
  assign cc_gidc = cc_type == 4'(`HCA_CTX_TYPE_GIDC);
  assign cc_rd   = cc_op == 4'(`HCA_CTX_OP_READ);
  assign cc_wr   = cc_op == 4'(`HCA_CTX_OP_WRITE);
  assign cc_badtype = !(cc_qpc || cc_cqc || cc_srqc || cc_eqc || cc_mrc || cc_gidc) || !(cc_rd || cc_wr);
  always_comb begin
    cc_badidx = 1'b0;
    if (cc_qpc)  cc_badidx = cc_idx < 24'(`HCA_QPN_GSI) || cc_idx >= 24'(NQP);
    if (cc_cqc)  cc_badidx = cc_idx < 24'd1 || cc_idx >= 24'(NCQ);
    if (cc_srqc) cc_badidx = cc_idx < 24'd1 || cc_idx >= 24'(NSRQ);
    if (cc_eqc)  cc_badidx = cc_idx >= 24'(NEQ);
    if (cc_mrc)  cc_badidx = cc_idx < 24'd1 || cc_idx >= 24'(NMR);
    if (cc_gidc) cc_badidx = cc_idx >= 24'(NGID);
  end
  logic cc_ok;
  assign cc_ok = !cc_badtype && !cc_badidx;
  assign cc_status = cc_badtype ? 3'(`HCA_MGMT_STATUS_BAD_TYPE) :
                     cc_badidx  ? 3'(`HCA_MGMT_STATUS_BAD_INDEX) : 3'(`HCA_MGMT_STATUS_OK);
  assign cc_rvalid = cc_ok && cc_rd;

  // RAM port A addressing (stable for both cycles: the request is held).
  always_comb begin
    qa_addr = db_req ? db_num[LOG_MAX_QP-1:0] : cc_idx[LOG_MAX_QP-1:0];
    ca_addr = db_req ? db_num[LOG_MAX_CQ-1:0] : cc_idx[LOG_MAX_CQ-1:0];
    ma_addr = cc_idx[LOG_MAX_MR-1:0];
    qa_en = 1'b0; ta_en = 1'b0; ra_en = 1'b0; ca_en = 1'b0; ma_en = 1'b0;
    qa_we = 1'b0; ta_we = 1'b0; ra_we = 1'b0; ca_we = 1'b0; ma_we = 1'b0;
    if (cst == C_IDLE) begin
      if (db_req) begin
        qa_en = db_sq || db_rq;
        ta_en = db_sq;
        ca_en = db_cq;
      end else if (cc_req && cc_ok) begin
        qa_en = cc_qpc; ta_en = cc_qpc; ra_en = cc_qpc;
        ca_en = cc_cqc; ma_en = cc_mrc;
      end
    end else if (cc_req && cc_ok && cc_wr) begin
      qa_en = cc_qpc; ta_en = cc_qpc; ra_en = cc_qpc; ca_en = cc_cqc; ma_en = cc_mrc;
      qa_we = cc_qpc; ta_we = cc_qpc; ra_we = cc_qpc; ca_we = cc_cqc; ma_we = cc_mrc;
    end
  end

  // ---- QPC write: new configuration and dynamic state (model/ctx.c qpc_write)
  localparam logic [7:0] ONESHOT = 8'(`HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK | `HCA_QPC_FLAGS_LOAD_RQ_PSN_MASK |
                                      `HCA_QPC_FLAGS_RESET_STATE_MASK);
  logic [LOG_MAX_QP-1:0] cq_q;
  logic [7:0]  n_flags;
  logic [2:0]  n_state, o_state;
  logic        reset_dyn, to_err;
  assign cq_q     = cc_idx[LOG_MAX_QP-1:0];
  assign n_flags  = `HCA_FLD(cc_wdata, `HCA_QPC_FLAGS_OFF, 1);
  assign n_state  = cc_wdata[2:0];
  assign o_state  = qst(cq_q);
  assign reset_dyn = (n_flags & 8'(`HCA_QPC_FLAGS_RESET_STATE_MASK)) != 0 ||
                     n_state == 3'(`HCA_QPS_RESET) || !qp_live[cq_q];
  assign to_err   = n_state == 3'(`HCA_QPS_ERR) && o_state != 3'(`HCA_QPS_RESET) &&
                    o_state != 3'(`HCA_QPS_ERR);

  always_comb begin
    qa_wdata = cc_wdata[1023:0];
    qa_wdata[8*`HCA_QPC_FLAGS_OFF +: 8] = n_flags & ~ONESHOT;
    // requester state
    ta_wdata = reset_dyn ? '0 : ta_rdata;
    if ((n_flags & 8'(`HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK)) != 0) begin
      ta_wdata[`TXS_PSN_NEXT_O +: 24] = `HCA_FLD(cc_wdata, `HCA_QPC_SQ_PSN_OFF, 3);
      ta_wdata[`TXS_UNA_O +: 24]      = `HCA_FLD(cc_wdata, `HCA_QPC_SQ_PSN_OFF, 3);
    end
    ta_wdata[`TXS_RETRY_O +: 3] = cc_wdata[8*`HCA_QPC_RETRY_CNT_OFF +: 3];
    ta_wdata[`TXS_RNR_O +: 3]   = cc_wdata[8*`HCA_QPC_RNR_RETRY_OFF +: 3];
    if (n_state == 3'(`HCA_QPS_SQD))
      ta_wdata[`TXS_DRAIN_O] = (o_state != 3'(`HCA_QPS_SQD)) ? 1'b1 : ta_wdata[`TXS_DRAIN_O];
    else if (n_state != 3'(`HCA_QPS_ERR) || to_err)
      ta_wdata[`TXS_DRAIN_O] = 1'b0;
    if (to_err) ta_wdata[`TXS_TMR_O +: 2] = `TMR_NONE;     // model/qp.c model_qp_to_err: no timer
    // responder state
    ra_wdata = reset_dyn ? '0 : ra_rdata;
    if ((n_flags & 8'(`HCA_QPC_FLAGS_LOAD_RQ_PSN_MASK)) != 0)
      ra_wdata[`RXS_EPSN_O +: 24] = `HCA_FLD(cc_wdata, `HCA_QPC_RQ_PSN_OFF, 3);
  end
  assign ca_wdata = cc_wdata[255:0];
  assign ma_wdata = cc_wdata[511:0];
  assign cc_wait  = eng_ce && e_step_wb && cc_qpc && cq_q == e_step_qn;

  // ---- QPC writes during an engine item on that QP (see the header):
  // hca_ctx_replay records a taken write's effect on the TXS/RXS words,
  // replays it on the item's write-back (tb_wdata, rb_wdata) and holds the
  // engine's view of the QP's state and producer indices (e_qp_*).
  logic        m_v, m_eng;
  logic [LOG_MAX_QP-1:0] m_q;
  hca_ctx_replay #(.LOG_MAX_QP(LOG_MAX_QP)) u_replay (
      .clk(clk), .rst_n(rst_n), .srst(srst), .eng_ce(eng_ce), .qpc_wr_now(qpc_wr_now), .cq_q(cq_q),
      .reset_dyn(reset_dyn), .to_err(to_err), .n_flags(n_flags), .n_state(n_state), .o_state(o_state),
      .w_retry(cc_wdata[8*`HCA_QPC_RETRY_CNT_OFF +: 3]), .w_rnr(cc_wdata[8*`HCA_QPC_RNR_RETRY_OFF +: 3]),
      .w_sqpsn(`HCA_FLD(cc_wdata, `HCA_QPC_SQ_PSN_OFF, 3)), .w_rqpsn(`HCA_FLD(cc_wdata, `HCA_QPC_RQ_PSN_OFF, 3)),
      .w_osq(qsq(cq_q)), .w_orq(qrq(cq_q)),
      .e_step_qn(e_step_qn), .e_step_read(e_step_read), .e_step_mid(e_step_mid),
      .e_txs_idx(e_txs_idx), .e_txs_we(e_txs_we), .e_rxs_we(e_rxs_we), .e_txs_wdata(e_txs_wdata),
      .e_rxs_wdata(e_rxs_wdata), .tb_wdata(tb_wdata), .rb_wdata(rb_wdata),
      .e_qp_idx(e_qp_idx), .l_state(qst(e_qp_idx)), .l_sq_pi(qsq(e_qp_idx)), .l_rq_pi(qrq(e_qp_idx)),
      .e_qp_state(e_qp_state), .e_qp_sq_pi(e_qp_sq_pi), .e_qp_rq_pi(e_qp_rq_pi),
      .m_v(m_v), .m_q(m_q), .m_eng(m_eng));

  // ---- CTX read data: built only in the cycle the command is acknowledged
  // (hca_regs copies it into the staging buffer then, and reads it at no
  // other time); zero otherwise.  cc_type follows the management port's
  // last write data, so ungated the view of whatever context type it named
  // was built on every clock edge of the Verilated model.
  always_comb begin
    cc_rdata = '0;
    if (cc_ack && cc_rd) begin
      if (cc_qpc && qp_live[cq_q]) begin
        cc_rdata[1023:0] = qa_rdata;
        `HCA_FLD(cc_rdata, `HCA_QPC_CUR_STATE_OFF, 1)   = {5'b0, qst(cq_q)};
        `HCA_FLD(cc_rdata, `HCA_QPC_SQ_DRAINING_OFF, 1) = {7'b0, ta_rdata[`TXS_DRAIN_O]};
        `HCA_FLD(cc_rdata, `HCA_QPC_SQ_PSN_NEXT_OFF, 4) = {8'b0, ta_rdata[`TXS_PSN_NEXT_O +: 24]};
        `HCA_FLD(cc_rdata, `HCA_QPC_RQ_PSN_EXPECTED_OFF, 4) = {8'b0, ra_rdata[`RXS_EPSN_O +: 24]};
        `HCA_FLD(cc_rdata, `HCA_QPC_MSN_OFF, 4)         = {8'b0, ra_rdata[`RXS_MSN_O +: 24]};
        `HCA_FLD(cc_rdata, `HCA_QPC_SQ_PI_OFF, 2)       = qsq(cq_q);
        `HCA_FLD(cc_rdata, `HCA_QPC_SQ_CI_OFF, 2)       = ta_rdata[`TXS_SQ_CI_O +: 16];
        `HCA_FLD(cc_rdata, `HCA_QPC_RQ_PI_OFF, 2)       = qrq(cq_q);
        `HCA_FLD(cc_rdata, `HCA_QPC_RQ_CI_OFF, 2)       = ra_rdata[`RXS_RQ_CI_O +: 16];
      end
      if (cc_cqc && cq_live[cc_idx[LOG_MAX_CQ-1:0]]) begin
        cc_rdata[255:0] = ca_rdata;
        `HCA_FLD(cc_rdata, `HCA_CQC_PI_OFF, 4)    = cpi(cc_idx[LOG_MAX_CQ-1:0]);
        `HCA_FLD(cc_rdata, `HCA_CQC_CI_OFF, 4)    = cci(cc_idx[LOG_MAX_CQ-1:0]);
        `HCA_FLD(cc_rdata, `HCA_CQC_ARM_OFF, 1)   = {6'b0, carm(cc_idx[LOG_MAX_CQ-1:0])};
        `HCA_FLD(cc_rdata, `HCA_CQC_ERROR_OFF, 1) = {7'b0, cq_err[cc_idx[LOG_MAX_CQ-1:0]]};
        `HCA_FLD(cc_rdata, `HCA_CQC_SOL_PI_OFF, 2) = csolp(cc_idx[LOG_MAX_CQ-1:0]);
      end
      if (cc_srqc) begin
        cc_rdata[255:0] = scfg(cc_idx[LOG_MAX_SRQ-1:0]);
        `HCA_FLD(cc_rdata, `HCA_SRQC_PI_OFF, 4)    = spi(cc_idx[LOG_MAX_SRQ-1:0]);
        `HCA_FLD(cc_rdata, `HCA_SRQC_CI_OFF, 4)    = sci(cc_idx[LOG_MAX_SRQ-1:0]);
        `HCA_FLD(cc_rdata, `HCA_SRQC_ARMED_OFF, 1) = {7'b0, srq_armed[cc_idx[LOG_MAX_SRQ-1:0]]};
      end
      if (cc_eqc) begin
        cc_rdata[255:0] = ecfg(cc_idx[LOG_MAX_EQ-1:0]);
        `HCA_FLD(cc_rdata, `HCA_EQC_PI_OFF, 4)    = epi(cc_idx[LOG_MAX_EQ-1:0]);
        `HCA_FLD(cc_rdata, `HCA_EQC_CI_OFF, 4)    = eci(cc_idx[LOG_MAX_EQ-1:0]);
        `HCA_FLD(cc_rdata, `HCA_EQC_ARMED_OFF, 1) = {7'b0, eq_armed[cc_idx[LOG_MAX_EQ-1:0]]};
      end
      if (cc_mrc && mr_live[ma_addr])
        cc_rdata[511:0] = ma_rdata;
      if (cc_gidc)
        cc_rdata[255:0] = gcfg(cc_idx[3:0]);
    end
  end

  // ---- EQE injection check (model/mgmt.c eqe_inject)
  logic [LOG_MAX_EQ-1:0] ij;
  logic        ij_valid, ij_room;
  logic [3:0]  ij_log;
  logic [31:0] ij_used;
  assign ij       = inj_eqn[LOG_MAX_EQ-1:0];
  logic [7:0]  ij_st, ij_ls;       // ij's config: state byte, LOG_SIZE
  assign ij_st    = e8(ij, 0);
  assign ij_ls    = e8(ij, `HCA_EQC_LOG_SIZE_OFF);
  assign ij_valid = inj_eqn < 32'(NEQ) && ij_st != 8'h0;
  assign ij_log   = (ij_ls > 8'(`HCA_CAP_LOG_MAX_EQE)) ? 4'(`HCA_CAP_LOG_MAX_EQE) : ij_ls[3:0];
  assign ij_used  = epi(ij) + {25'b0, einj(ij)} - eci(ij);
  assign ij_room  = ij_used < (32'd1 << ij_log) && !inj_full;
  always_comb begin
    if (!ij_valid || eq_failed[ij]) inj_status = 3'(`HCA_MGMT_STATUS_BAD_STATE);
    else if (!ij_room)              inj_status = 3'(`HCA_MGMT_STATUS_OVERFLOW);
    else                            inj_status = 3'(`HCA_MGMT_STATUS_OK);
  end
  assign inj_push = inj_ack && inj_status == 3'(`HCA_MGMT_STATUS_OK);
  assign inj_din  = {ij, inj_type[7:0], inj_type[15:8], inj_element, inj_data};
  assign c_stat_eq_ovf = inj_ack && ij_valid && !eq_failed[ij] && !ij_room;

  // ---- doorbell checks
  logic [LOG_MAX_QP-1:0]  dq;
  logic [LOG_MAX_CQ-1:0]  dc;
  logic [LOG_MAX_SRQ-1:0] ds;
  logic [LOG_MAX_EQ-1:0]  de;
  logic db_ok;
  logic [7:0]  ds_st, de_st;       // the doorbell's SRQ / EQ config: state byte
  assign ds_st = s8(ds, 0);
  assign de_st = e8(de, 0);
  /* verilator lint_off UNUSEDSIGNAL */
  logic [31:0] ds_pi;
  /* verilator lint_on UNUSEDSIGNAL */
  assign ds_pi  = spi(ds);
  assign dq = db_num[LOG_MAX_QP-1:0];
  assign dc = db_num[LOG_MAX_CQ-1:0];
  assign ds = db_num[LOG_MAX_SRQ-1:0];
  assign de = db_num[LOG_MAX_EQ-1:0];
  always_comb begin
    db_ok = 1'b0;
    if (db_sq || db_rq)
      db_ok = db_num >= 16'(`HCA_QPN_GSI) && db_num < 16'(NQP) && qst(dq) != 3'(`HCA_QPS_RESET) &&
              `HCA_FLD(qa_rdata, `HCA_QPC_UAR_OFF, 2) == {9'b0, db_page} &&
              !(db_rq && (`HCA_FLD(qa_rdata, `HCA_QPC_FLAGS_OFF, 1) & 8'(`HCA_QPC_FLAGS_USE_SRQ_MASK)) != 0);
    else if (db_srq)
      db_ok = db_num >= 16'd1 && db_num < 16'(NSRQ) && ds_st != 8'h0 &&
              s16(ds, `HCA_SRQC_UAR_OFF) == {9'b0, db_page};
    else if (db_cq)
      db_ok = db_num >= 16'd1 && db_num < 16'(NCQ) && cq_valid[dc] &&
              `HCA_FLD(ca_rdata, `HCA_CQC_UAR_OFF, 2) == {9'b0, db_page};
    else if (db_eq)
      db_ok = db_num < 16'(NEQ) && de_st != 8'h0 &&
              e16(de, `HCA_EQC_UAR_OFF) == {9'b0, db_page};
    if (!enabled) db_ok = 1'b0;
  end
  assign c_stat_db_err = db_ack && !db_ok;
  assign db_sq_now = db_ack && db_ok && db_sq;
  assign db_qn     = dq;
  assign db_pi     = db_idx;
  assign db_old_pi = qsq(dq);
  assign db_qp_st  = qst(dq);
  assign db_cfg    = qa_rdata;
  assign db_txs    = ta_rdata;
  assign e_eq_db_now = db_ack && db_eq && de == e_eq_idx;
  assign e_cq_db_now = db_ack && db_cq && dc == e_cq_idx;


  // 16-bit consumer index extended against the producer: ci in (pi - 2^16, pi]
  function automatic [31:0] ext_ci(input [31:0] pi, input [15:0] idx);
    ext_ci = pi - {16'b0, pi[15:0] - idx};
  endfunction

  // CQ arming counted from the doorbell's consumer index (spec CQ_ARM,
  // model/cq.c model_cq_doorbell): 16-bit distances from pi.
  logic [31:0] db_cq_pi, db_cq_ci;
  logic [15:0] db_ca, db_cs;
  logic        db_next, db_fire;
  assign db_cq_pi = cpi(dc);
  assign db_cq_ci = ext_ci(db_cq_pi, db_idx);
  assign db_ca    = db_cq_pi[15:0] - db_cq_ci[15:0];
  assign db_cs    = db_cq_pi[15:0] - csolp(dc);
  assign db_next  = db_reg == 12'(`HCA_DB_CQ_ARM) || carm(dc) == 2'(`HCA_CQ_ARM_NEXT);
  logic db_cq_fires;   // an arm doorbell raises an event now (one more COMP EQE to post)
  assign db_cq_fires = db_ack && db_ok && db_cq && db_reg != 12'(`HCA_DB_CQ_CI) && db_fire;
  assign db_fire  = !cq_err[dc] && (db_next ? db_ca != 16'h0 : db_cs < db_ca);

  // Events raised by register-side commands.
  assign c_evt_valid = cc_ack && cc_ok && cc_wr && cc_qpc && to_err &&
                       (n_flags & 8'(`HCA_QPC_FLAGS_USE_SRQ_MASK)) != 0;
  assign c_evt_type  = 8'(`HCA_EVENT_QP_LAST_WQE_REACHED);
  assign c_evt_elem  = {{(32-LOG_MAX_QP){1'b0}}, cq_q};
  assign qpc_wr_now = cc_ack && cc_ok && cc_wr && cc_qpc;
  assign qpc_written = qpc_wr_now;
  assign cqc_written = ca_we;
  assign qp_reset    = qpc_wr_now && reset_dyn;    // hca_tx_slots, hca_tx_faults forget its read ahead
  assign qp_reset_qn = cq_q;

  // ------------------------------------------------------- flip-flop state
  // Resettable vectors.
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      qp_live <= '0; qp_busy <= '0; cq_live <= '0; cq_valid <= '0; cq_err <= '0;
      srq_live <= '0; srq_armed <= '0; eq_live <= '0; eq_armed <= '0; eq_failed <= '0;
      eq_fp <= '0; gid_live <= '0; gid_v4 <= '0; mr_live <= '0;
    end else if (srst) begin
      qp_live <= '0; qp_busy <= '0; cq_live <= '0; cq_valid <= '0; cq_err <= '0;
      srq_live <= '0; srq_armed <= '0; eq_live <= '0; eq_armed <= '0; eq_failed <= '0;
      eq_fp <= '0; gid_live <= '0; gid_v4 <= '0; mr_live <= '0;
    end else begin
      if (eng_ce) begin
        // the item's clear (issued at its start) must not undo the busy bit
        // of a QPC write it has taken: the QP is stepped again after it
        if (e_busy_clr && !(m_v && m_q == e_busy_cidx)) qp_busy[e_busy_cidx] <= 1'b0;
        if (e_busy_set) qp_busy[e_busy_idx] <= 1'b1;
        if (e_wake) qp_busy[e_wake_idx] <= 1'b1;     // a step that gave way comes back
        if (e_cq_set_err) cq_err[e_cq_idx] <= 1'b1;
        if (e_eq_disarm) eq_armed[e_eq_idx] <= 1'b0;
        if (e_eq_fail) eq_failed[e_eq_idx] <= 1'b1;
        if (e_eq_fp_clr) eq_fp[e_eq_idx] <= 1'b0;
        if (e_srq_disarm) srq_armed[e_srq_idx] <= 1'b0;
      end
      if (db_ack && db_ok) begin
        if (db_sq || db_rq) qp_busy[dq] <= 1'b1;
        if (db_eq && db_reg == 12'(`HCA_DB_EQ_ARM)) begin
          // EQEs at or after the index: the interrupt is decided now (the EQ
          // stays disarmed) and delivered by the engine (S_FP1)
          eq_armed[de] <= epi(de) == ext_ci(epi(de), db_idx);
          if (epi(de) != ext_ci(epi(de), db_idx)) eq_fp[de] <= 1'b1;
        end
      end
      if (cc_ack && cc_ok && cc_wr) begin
        if (cc_qpc) begin
          qp_live[cq_q] <= 1'b1;
          qp_busy[cq_q] <= 1'b1;
        end
        if (cc_cqc) begin
          cq_live[cc_idx[LOG_MAX_CQ-1:0]]  <= 1'b1;
          cq_valid[cc_idx[LOG_MAX_CQ-1:0]] <= cc_wdata[7:0] != 8'h0;
          if (cc_wdata[7:0] == 8'h0 || !cq_valid[cc_idx[LOG_MAX_CQ-1:0]])
            cq_err[cc_idx[LOG_MAX_CQ-1:0]] <= 1'b0;
        end
        if (cc_srqc) begin
          srq_live[cc_idx[LOG_MAX_SRQ-1:0]]  <= 1'b1;
          srq_armed[cc_idx[LOG_MAX_SRQ-1:0]] <= cc_wdata[7:0] != 8'h0 &&
                                                 `HCA_FLD(cc_wdata, `HCA_SRQC_LIMIT_OFF, 4) != 32'h0;
        end
        if (cc_eqc) begin
          eq_live[cc_idx[LOG_MAX_EQ-1:0]] <= 1'b1;
          if (cc_wdata[7:0] == 8'h0 || !eqw_was) begin
            eq_armed[cc_idx[LOG_MAX_EQ-1:0]]  <= cc_wdata[7:0] != 8'h0;
            eq_failed[cc_idx[LOG_MAX_EQ-1:0]] <= 1'b0;
            eq_fp[cc_idx[LOG_MAX_EQ-1:0]]     <= 1'b0;
          end
        end
        if (cc_mrc)  mr_live[ma_addr] <= 1'b1;
        if (cc_gidc) begin
          gid_live[cc_idx[3:0]] <= 1'b1;
          gid_v4[cc_idx[3:0]]   <= gid_v4_of(cc_wdata[8*`HCA_GIDC_VALID_OFF +: 8], cc_wdata[95:0]);
        end
      end
    end
  end

  logic eqw_was, srqw_was, cqw_was;
  assign eqw_was  = e8(cc_idx[LOG_MAX_EQ-1:0], 0) != 8'h0;     // its state before the write
  assign srqw_was = s8(cc_idx[LOG_MAX_SRQ-1:0], 0) != 8'h0;
  assign cqw_was  = cq_live[cc_idx[LOG_MAX_CQ-1:0]] && cq_valid[cc_idx[LOG_MAX_CQ-1:0]];

  // Table arrays (no reset: gated by the live bits).
  always_ff @(posedge clk) begin
    if (!srst) begin
      if (eng_ce) begin
        if (e_qp_set_state && !m_eng) qp_state[e_qp_idx] <= e_qp_state_val;   // a taken QPC write wins
        if (e_cq_inc) cq_pi[e_cq_idx] <= cpi(e_cq_idx) + 32'd1;
        if (e_cq_dec) cq_pi[e_cq_idx] <= cpi(e_cq_idx) - 32'd1;
        if (e_cq_disarm) cq_arm[e_cq_idx] <= 2'(`HCA_CQ_ARM_NONE);
        if (e_cq_inc && e_cq_sol) cq_solpi[e_cq_idx] <= e_cq_pi[15:0] + 16'd1;
        if (e_cq_fp_clr && !(db_cq_fires && dc == e_cq_idx)) begin
          cq_fp_hi[e_cq_idx] <= cq_fp_dec[1];
          cq_fp_lo[e_cq_idx] <= cq_fp_dec[0];
        end
        if (e_eq_inc) eq_pi[e_eq_idx] <= epi(e_eq_idx) + 32'd1;
        if (e_eq_dec) eq_pi[e_eq_idx] <= epi(e_eq_idx) - 32'd1;
        if (e_inj_pop && !inj_empty) eq_injq[e_inj_eqn] <= einj(e_inj_eqn) - 7'd1;
        if (e_srq_inc) srq_ci[e_srq_idx] <= sci(e_srq_idx) + 32'd1;
        if (e_srq_set_err) srq_cfg[e_srq_idx][8*`HCA_SRQC_STATE_OFF +: 8] <= 8'd1;
      end
      if (db_ack && db_ok) begin
        if (db_sq) qp_sq_pi[dq] <= db_idx;
        if (db_rq) qp_rq_pi[dq] <= db_idx;
        if (db_srq) srq_pi[ds] <= spi(ds) + {16'b0, db_idx - ds_pi[15:0]};
        if (db_cq) begin
          cq_ci[dc] <= db_cq_ci;
          if (db_reg == 12'(`HCA_DB_CQ_ARM) || db_reg == 12'(`HCA_DB_CQ_ARM_SOL)) begin
            if (db_fire) begin
              cq_arm[dc] <= 2'(`HCA_CQ_ARM_NONE);
              if (!(eng_ce && e_cq_fp_clr && dc == e_cq_idx) && cfp(dc) != 2'd3) begin
                cq_fp_hi[dc] <= cq_fp_inc[1];
                cq_fp_lo[dc] <= cq_fp_inc[0];
              end
            end else
              cq_arm[dc]  <= db_next ? 2'(`HCA_CQ_ARM_NEXT) : 2'(`HCA_CQ_ARM_SOLICITED);
          end
        end
        if (db_eq) eq_ci[de] <= ext_ci(epi(de), db_idx);
      end
      if (inj_push) eq_injq[ij] <= einj(ij) + 7'd1;
      if (cc_ack && cc_ok && cc_wr) begin
        if (cc_qpc) begin
          qp_state[cq_q] <= n_state;
          if (reset_dyn) begin
            qp_sq_pi[cq_q] <= '0;
            qp_rq_pi[cq_q] <= '0;
          end
        end
        if (cc_cqc && (cc_wdata[7:0] == 8'h0 || !cqw_was)) begin
          cq_pi[cc_idx[LOG_MAX_CQ-1:0]]  <= '0;
          cq_ci[cc_idx[LOG_MAX_CQ-1:0]]  <= '0;
          cq_arm[cc_idx[LOG_MAX_CQ-1:0]] <= '0;
          cq_solpi[cc_idx[LOG_MAX_CQ-1:0]] <= '0;
          cq_fp_hi[cc_idx[LOG_MAX_CQ-1:0]] <= 1'b0;   // a destroyed CQ raises no pending event
          cq_fp_lo[cc_idx[LOG_MAX_CQ-1:0]] <= 1'b0;
        end
        if (cc_srqc) begin
          srq_cfg[cc_idx[LOG_MAX_SRQ-1:0]] <= cc_wdata[255:0];
          if (cc_wdata[7:0] == 8'h0 || !srqw_was) begin
            srq_pi[cc_idx[LOG_MAX_SRQ-1:0]] <= '0;
            srq_ci[cc_idx[LOG_MAX_SRQ-1:0]] <= '0;
          end
        end
        if (cc_eqc) begin
          eq_cfg[cc_idx[LOG_MAX_EQ-1:0]] <= cc_wdata[255:0];
          if (cc_wdata[7:0] == 8'h0 || !eqw_was) begin
            eq_pi[cc_idx[LOG_MAX_EQ-1:0]] <= '0;
            eq_ci[cc_idx[LOG_MAX_EQ-1:0]] <= '0;
          end
          if (!eq_live[cc_idx[LOG_MAX_EQ-1:0]]) eq_injq[cc_idx[LOG_MAX_EQ-1:0]] <= '0;
        end
        if (cc_gidc) gid_cfg[cc_idx[3:0]] <= cc_wdata[255:0];
      end
    end
  end
endmodule
