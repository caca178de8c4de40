// hcasim RTL: functions shared by the transport's jobs.  Included inside a
// module body (`include "hca_funcs.vh"` after the port list), once per
// module, so it has no include guard.  Needs hca_defs.vh.

// roce_psn_cmp(a, b) < 0: a is before b in 24-bit PSN order.
/* verilator lint_off UNUSEDSIGNAL */
function automatic logic psn_lt(input [23:0] a, input [23:0] b);
  logic [23:0] d;
  d = a - b;
  psn_lt = d[23];
endfunction
/* verilator lint_on UNUSEDSIGNAL */

// Address of WQE `idx` in a ring at `base` of 2^lsize slots of 2^lstride bytes.
function automatic [63:0] slot_addr(input [63:0] base, input [15:0] idx, input [4:0] lsize,
                                    input [3:0] lstride);
  slot_addr = base + ({48'b0, idx & ((16'd1 << lsize) - 16'd1)} << lstride);
endfunction

// The bytes of a send WQE's first read in a ring of 2^lstride-byte slots:
// its header and one segment, min(stride, 80) (docs/programming.md 5.1).
function automatic [15:0] wqe_first_len(input [3:0] lstride);
  wqe_first_len = ((16'd1 << lstride) > 16'(`HCA_WQE_HDR_SIZE + `HCA_WQE_DATA_SEG_SIZE)) ?
                  16'(`HCA_WQE_HDR_SIZE + `HCA_WQE_DATA_SEG_SIZE) : (16'd1 << lstride);
endfunction

// A CQE (docs/programming.md) without its owner bit (hca_cq_post sets it).
function automatic [255:0] mk_cqe(input [31:0] q_byte_len, input [31:0] q_imm, input [31:0] q_qpn,
                                  input [31:0] q_src_qp, input [15:0] q_widx, input [7:0] q_status,
                                  input [7:0] q_opcode, input [7:0] q_wc_flags, input [7:0] q_verr,
                                  input [7:0] q_is_srq);
  mk_cqe = '0;
  mk_cqe[8*`HCA_CQE_BYTE_LEN_OFF +: 32]   = q_byte_len;
  mk_cqe[8*`HCA_CQE_IMM_DATA_OFF +: 32]   = q_imm;
  mk_cqe[8*`HCA_CQE_QPN_OFF +: 32]        = q_qpn;
  mk_cqe[8*`HCA_CQE_SRC_QP_OFF +: 32]     = q_src_qp;
  mk_cqe[8*`HCA_CQE_WQE_INDEX_OFF +: 16]  = q_widx;
  mk_cqe[8*`HCA_CQE_STATUS_OFF +: 8]      = q_status;
  mk_cqe[8*`HCA_CQE_OPCODE_OFF +: 8]      = q_opcode;
  mk_cqe[8*`HCA_CQE_WC_FLAGS_OFF +: 8]    = q_wc_flags;
  mk_cqe[8*`HCA_CQE_VENDOR_ERR_OFF +: 8]  = q_verr;
  mk_cqe[8*`HCA_CQE_IS_SRQ_OFF +: 8]      = q_is_srq;
endfunction
