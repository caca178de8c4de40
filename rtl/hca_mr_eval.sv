`include "hca_defs.vh"

// The memory key check's verdict (model/dma.c model_mr_check), combinational:
// is [va, va + len) inside the MR whose context `mrc` is (read from hca_ctx's
// MR table at key's index, `live`: written since reset), with the PD and the
// access rights asked for?  A vendor error (0 = good: LKEY, PD, ACCESS or
// BOUNDS, in that order) and the DMA address of va; a zero length is always
// good and translates to 0.  One copy of the rules for hca_mr_check (the
// engine's key checks) and hca_wqe_lkey_ahead (a prefetched WQE's lkey,
// checked ahead of its step).
module hca_mr_eval #(
    parameter int LOG_MAX_MR = 10
) (
    input  logic [31:0]  key,
    input  logic [31:0]  pdn,
    input  logic [15:0]  acc,
    input  logic [63:0]  va,
    input  logic [63:0]  len,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [511:0] mrc,            // the MRC's fields used here only
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic         live,
    output logic [7:0]   verr,
    output logic [63:0]  iova
);
  always_comb begin : check
    logic [63:0] mva, mlen, off;
    mva  = mrc[8*`HCA_MRC_VA_OFF +: 64];
    mlen = mrc[8*`HCA_MRC_LENGTH_OFF +: 64];
    off  = va - mva;
    iova = mrc[8*`HCA_MRC_DMA_ADDR_OFF +: 64] + off;
    if (len == 64'h0) begin
      verr = 8'h0;
      iova = 64'h0;
    end else if (key[31:8] == 24'h0 || key[31:8] >= 24'(1 << LOG_MAX_MR))
      verr = 8'(`HCA_VENDOR_ERR_LKEY);
    else if (!live || mrc[8*`HCA_MRC_VALID_OFF +: 8] == 8'h0 || mrc[8*`HCA_MRC_KEY_OFF +: 8] != key[7:0])
      verr = 8'(`HCA_VENDOR_ERR_LKEY);
    else if (mrc[8*`HCA_MRC_PDN_OFF +: 32] != pdn)
      verr = 8'(`HCA_VENDOR_ERR_PD);
    else if ((mrc[8*`HCA_MRC_ACCESS_OFF +: 16] & acc) != acc)
      verr = 8'(`HCA_VENDOR_ERR_ACCESS);
    else if (va < mva || off > mlen || len > mlen - off)
      verr = 8'(`HCA_VENDOR_ERR_BOUNDS);
    else
      verr = 8'h0;
  end
endmodule
