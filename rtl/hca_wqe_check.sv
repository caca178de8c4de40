`include "hca_defs.vh"

// Send WQE validation (model/req.c parse_wqe), combinational: the WQE in
// fetch buffer 0 checked against the QP (opcode allowed by its type, WQE
// index = SQ_HEAD, SGE count within the SQ stride, inline size, an atomic's
// single 8-byte SGE and 8-byte aligned remote address, message size, UD
// payload within the PMTU), and the message length (the SGEs' byte counts,
// or the inline length).  Used by hca_req in REQST_VALIDATE_WQE (the
// failures) and REQST_GATE (v_rdat: the fence and max_rd_atomic gates).
// Also how much of a WQE its first read fetches (len1: fetch, prefetch,
// doorbell read, refetch): the header and one segment, min(stride, 80)
// bytes, which holds every 1-SGE WQE, atomics, UD, zero-length and inline
// data up to 16 bytes; need_rest: the WQE in fb reaches beyond that (more
// SGEs, longer inline data) and was not read whole (f_long), so hca_req
// reads the whole slot before using it.
module hca_wqe_check #(
    parameter int FB_BYTES = 320
) (
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [FB_BYTES*8-1:0] fb,    // the WQE: control segment, remote address, SGEs
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [15:0] sq_head,
    input  logic [3:0]  log_sq_stride,
    input  logic        is_rc,
    input  logic        is_ud,
    input  logic [31:0] pmtu,
    output logic        v_rdat,          // RDMA READ or atomic
    output logic        v_atomic,
    output logic        v_inline,
    output logic        v_bad,           // LOC_QP_OP_ERR, BAD_WQE
    output logic        v_toolong,       // LOC_LEN_ERR
    output logic        v_udlong,        // LOC_QP_OP_ERR, BAD_WQE
    output logic [31:0] v_len,           // the message length
    input  logic        f_long,          // fb was filled by a whole-slot read
    output logic [15:0] len1,            // a WQE's first read, bytes
    output logic        need_rest        // the WQE reaches beyond its first read
);
  logic [7:0]  w_op, w_flags, w_nsge;
  logic [15:0] w_inl, w_idx;
  logic [2:0]  w_raddr_lo;
  assign w_op       = fb[8*`HCA_WQE_CTRL_SEG_OPCODE_OFF +: 8];
  assign w_flags    = fb[8*`HCA_WQE_CTRL_SEG_SEND_FLAGS_OFF +: 8];
  assign w_nsge     = fb[8*`HCA_WQE_CTRL_SEG_NUM_SGE_OFF +: 8];
  assign w_inl      = fb[8*`HCA_WQE_CTRL_SEG_INLINE_LEN_OFF +: 16];
  assign w_idx      = fb[8*`HCA_WQE_CTRL_SEG_WQE_INDEX_OFF +: 16];
  assign w_raddr_lo = fb[8*(`HCA_WQE_RADDR_OFF + `HCA_WQE_RADDR_SEG_REMOTE_ADDR_OFF) +: 3];

  `include "hca_funcs.vh"
  assign len1      = wqe_first_len(log_sq_stride);
  assign need_rest = !f_long && (16'd1 << log_sq_stride) > len1 &&
                     (((w_flags & 8'(`HCA_SEND_INLINE)) != 0) ? w_inl > 16'(`HCA_WQE_DATA_SEG_SIZE) : w_nsge > 8'd1);

  logic        v_opok;
  logic [32:0] v_total;
  assign v_len = v_total[31:0];
  logic [7:0]  v_maxsge;
  logic [15:0] v_maxinl;
  always_comb begin : wqe_check
    integer i;
    v_maxsge = 8'(((32'd1 << log_sq_stride) - 32'(`HCA_WQE_HDR_SIZE)) >> 4);
    if (v_maxsge > 8'(`HCA_CAP_MAX_SGE)) v_maxsge = 8'(`HCA_CAP_MAX_SGE);
    v_maxinl = 16'((32'd1 << log_sq_stride) - 32'(`HCA_WQE_HDR_SIZE));
    if (v_maxinl > 16'(`HCA_CAP_MAX_INLINE_DATA)) v_maxinl = 16'(`HCA_CAP_MAX_INLINE_DATA);
    v_atomic = w_op == 8'(`HCA_WR_ATOMIC_CMP_AND_SWP) || w_op == 8'(`HCA_WR_ATOMIC_FETCH_AND_ADD);
    v_rdat   = w_op == 8'(`HCA_WR_RDMA_READ) || v_atomic;
    v_inline = (w_flags & 8'(`HCA_SEND_INLINE)) != 0;
    case (w_op)
      8'(`HCA_WR_SEND), 8'(`HCA_WR_SEND_WITH_IMM): v_opok = 1'b1;
      8'(`HCA_WR_RDMA_WRITE), 8'(`HCA_WR_RDMA_WRITE_WITH_IMM): v_opok = !is_ud;
      8'(`HCA_WR_RDMA_READ), 8'(`HCA_WR_ATOMIC_CMP_AND_SWP), 8'(`HCA_WR_ATOMIC_FETCH_AND_ADD): v_opok = is_rc;
      default: v_opok = 1'b0;
    endcase
    v_total = '0;
    for (i = 0; i < 16; i = i + 1)
      if (8'(i) < w_nsge) v_total = v_total + {1'b0, fb[8*(64 + 16*i) +: 32]};
    if (v_inline)
      v_total = {17'b0, w_inl};
    // an atomic: one 8-byte SGE, an 8-byte aligned remote address
    v_bad = w_idx != sq_head || !v_opok ||
            (v_inline ? (v_rdat || w_inl > v_maxinl) : (w_nsge > v_maxsge)) ||
            (v_atomic && (w_nsge != 8'd1 || fb[8*64 +: 32] != 32'd8 || w_raddr_lo != 3'd0));
    v_toolong = v_total > 33'(`HCA_CAP_MAX_MSG_SZ);
    v_udlong  = is_ud && v_total > {1'b0, pmtu};
  end
endmodule
