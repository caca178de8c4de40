`include "hca_defs.vh"

// A prefetched send WQE's lkey check, done ahead of its step (issue 12, the
// 8-QP row: the step's MRST_READ_MRC + REQST_LKEY_RESULT out of the step).
//
// When a prefetch entry's read completes without fault (hca_dma_rd p_done,
// the read from hca_req or from the doorbell, hca_db_wqe_read), the entry is
// pending here: in a later cycle in which hca_mr_check does not use the MR
// table's engine port (t_mr_en low; it always wins) and no MRC write is
// under way, the check reads SGE 0 of the entry's buffer (pb[pc_idx], bytes
// 64..79: address, byte count, lkey) and the MR table at the lkey's index
// (e_mr_en), and in the next cycle keeps hca_mr_eval's verdict with the
// entry: for a SEND/WRITE's SGE (access 0) and with the MR's own PD in place
// of the QP's, which this module does not know: the verdict is then the
// right one whenever the QP's PD equals the MR's, and `pdm` (the PD check
// is reached: a non-zero length and a good key) with the MR's PD (`mpdn`)
// lets the requester tell the PD error apart (hca_req_lkey_ahead).  So the
// kept result is a pure function of the WQE's bytes in pb, which do not
// change until the entry is reallocated (p_start: the result dropped), and
// of the MR table, which changes only by an MRC write: `mr_wr` (the
// register side's MRC write request, hca_ctx's port A, every cycle it is
// held; not gated by ce, it lands while the engine is held) drops every
// kept result, discards a check in flight and makes them pending again (so
// the entry is checked again after the write, on the new context).  A
// soft reset drops everything (hca_ctx's MR `live` bits are cleared too).
//
// When the requester takes an entry (p_load, p_lidx: pb into fetch buffer
// 0), its result is registered into tk_* (tk_v: there is one), which
// hca_req's REQST_VALIDATE_WQE in the next engine cycle uses in place of its
// own SGE 0 check (hca_req_lkey_ahead); an MRC write meanwhile clears tk_v.
// `busy` while a check is pending or in flight (the harness skips no cycle
// then, so a skipped and an unskipped run stay cycle-identical).
// Caller: none (it watches hca_wqe_prefetch's entries); serves hca_req
// through hca_transport.  Model: model/req.c start_wqe's lkey check at the
// step (model_mr_check), whose result this keeps valid only while nothing
// it depends on has changed.
module hca_wqe_lkey_ahead #(
    parameter int PF_N       = 1,
    parameter int LOG_MAX_MR = 10,
    localparam int PW = PF_N > 1 ? $clog2(PF_N) : 1
) (
    input  logic                  clk,
    input  logic                  rst_n,
    input  logic                  ce,
    input  logic                  srst,
    // hca_wqe_prefetch / hca_dma_rd: entries allocated, completed, taken
    input  logic                  p_start,
    input  logic [PW-1:0]         p_sidx,
    input  logic [PF_N-1:0]       p_done,
    input  logic                  p_err,
    input  logic                  p_load,
    input  logic [PW-1:0]         p_lidx,
    // hca_dma_rd: SGE 0 of entry pc_idx's buffer
    output logic [PW-1:0]         pc_idx,
    input  logic [127:0]          pc_sge,
    // an MRC write (the register side's request, held)
    input  logic                  mr_wr,
    // the MR table's engine port: hca_mr_check's use (t_*), shared here
    input  logic                  t_mr_en,
    input  logic [LOG_MAX_MR-1:0] t_mr_idx,
    output logic                  e_mr_en,
    output logic [LOG_MAX_MR-1:0] e_mr_idx,
    input  logic [511:0]          e_mr_rdata,
    input  logic                  e_mr_live,
    // the taken entry's result (registered with p_load)
    output logic                  tk_v,
    output logic [7:0]            tk_verr,
    output logic                  tk_pdm,
    output logic [31:0]           tk_mpdn,
    output logic [63:0]           tk_iova,
    output logic                  busy
);
  logic [PF_N-1:0] pend, rv;             // to check; a result kept
  logic [7:0]  rverr [0:PF_N-1];
  logic        rpdm  [0:PF_N-1];
  logic [31:0] rmpdn [0:PF_N-1];
  logic [63:0] riova [0:PF_N-1];

  // the lowest pending entry
  logic          any;
  logic [PW-1:0] pick;
  always_comb begin : lowest
    integer x;
    any = 1'b0; pick = '0;
    for (x = PF_N - 1; x >= 0; x = x - 1)
      if (pend[x]) begin
        any = 1'b1; pick = PW'(x);
      end
  end
  // the check's first cycle (the MR table read) and its second (the verdict)
  logic          go, rd_q, rd_ab;       // rd_ab: the entry reallocated in the read's cycle
  logic [PW-1:0] rd_x;
  logic [31:0]   k_q;
  logic [63:0]   va_q, len_q;
  assign go       = ce && any && !rd_q && !t_mr_en && !mr_wr;
  assign pc_idx   = pick;
  assign e_mr_en  = t_mr_en || go;
  assign e_mr_idx = t_mr_en ? t_mr_idx : pc_sge[8*`HCA_WQE_DATA_SEG_LKEY_OFF + 8 +: LOG_MAX_MR];
  assign busy     = any || rd_q;

  logic [7:0]  c_verr;
  logic [63:0] c_iova;
  logic [31:0] c_mpdn;
  hca_mr_eval #(.LOG_MAX_MR(LOG_MAX_MR)) u_eval (
      .key(k_q), .pdn(c_mpdn), .acc(16'h0), .va(va_q), .len(len_q), .mrc(e_mr_rdata), .live(e_mr_live),
      .verr(c_verr), .iova(c_iova));
  assign c_mpdn = e_mr_rdata[8*`HCA_MRC_PDN_OFF +: 32];

  always_ff @(posedge clk or negedge rst_n) begin : entries
    integer x;
    if (!rst_n) begin
      pend <= '0; rv <= '0; rd_q <= 1'b0; rd_ab <= 1'b0; rd_x <= '0; k_q <= '0; va_q <= '0; len_q <= '0;
      tk_v <= 1'b0; tk_verr <= '0; tk_pdm <= 1'b0; tk_mpdn <= '0; tk_iova <= '0;
      for (x = 0; x < PF_N; x = x + 1) begin
        rverr[x] <= '0; rpdm[x] <= 1'b0; rmpdn[x] <= '0; riova[x] <= '0;
      end
    end else if (srst) begin
      pend <= '0; rv <= '0; rd_q <= 1'b0; tk_v <= 1'b0;
    end else begin
      if (ce) begin
        rd_q <= 1'b0;
        if (go) begin
          rd_q <= 1'b1;
          rd_x <= pick;
          rd_ab <= p_start && p_sidx == pick;
          k_q  <= pc_sge[8*`HCA_WQE_DATA_SEG_LKEY_OFF +: 32];
          va_q <= pc_sge[8*`HCA_WQE_DATA_SEG_ADDR_OFF +: 64];
          len_q <= {32'b0, pc_sge[8*`HCA_WQE_DATA_SEG_BYTE_COUNT_OFF +: 32]};
          pend[pick] <= 1'b0;
        end
        if (rd_q) begin
          rv[rd_x]    <= !rd_ab;
          rverr[rd_x] <= c_verr;
          rpdm[rd_x]  <= len_q != 64'h0 && c_verr != 8'(`HCA_VENDOR_ERR_LKEY);
          rmpdn[rd_x] <= c_mpdn;
          riova[rd_x] <= c_iova;
        end
        for (x = 0; x < PF_N; x = x + 1)
          if (p_done[x] && !p_err) pend[x] <= 1'b1;
        if (p_start) begin                 // reallocated: its old bytes and result gone
          pend[p_sidx] <= 1'b0;
          rv[p_sidx]   <= 1'b0;
        end
        if (p_load) begin
          tk_v    <= rv[p_lidx] && !(p_start && p_sidx == p_lidx);
          tk_verr <= rverr[p_lidx];
          tk_pdm  <= rpdm[p_lidx];
          tk_mpdn <= rmpdn[p_lidx];
          tk_iova <= riova[p_lidx];
          rv[p_lidx]   <= 1'b0;          // used up (hca_wqe_prefetch drops the entry)
          pend[p_lidx] <= 1'b0;
        end
      end
      // an MRC write: every result dropped, checked again after it (a check
      // in flight too; one reallocated meanwhile stays dropped)
      if (mr_wr) begin
        rv   <= '0;
        tk_v <= 1'b0;
        for (x = 0; x < PF_N; x = x + 1)
          if ((rv[x] || (rd_q && !rd_ab && rd_x == PW'(x)) || pend[x]) && !(ce && p_start && p_sidx == PW'(x)))
            pend[x] <= 1'b1;
      end
    end
  end
endmodule
