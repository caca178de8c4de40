// hcasim RTL: helper macros shared by every module.  Every number comes from
// the generated include/hca_spec.vh; this file only adds access helpers.
`ifndef HCA_DEFS_VH
`define HCA_DEFS_VH
`include "hca_spec.vh"

// Field of a little-endian in-memory structure held as a flat vector whose
// byte 0 is bits [7:0]: HCA_FLD(vec, OFF, LEN) with OFF/LEN in bytes.
`define HCA_FLD(v, off, len) v[8*(off) +: 8*(len)]

// IB 24-bit PSN arithmetic.
`define HCA_PSN_W 24


// hca_opinfo output bits: what a BTH opcode means and which extension
// headers it carries (IB spec vol. 1 table 38; same table as model/opcode.c).
`define OPI_VALID   0
`define OPI_REQ     1
`define OPI_RESP    2
`define OPI_SEND    3
`define OPI_WRITE   4
`define OPI_READ    5
`define OPI_ATOMIC  6
`define OPI_ACK     7
`define OPI_FIRST   8
`define OPI_MIDDLE  9
`define OPI_LAST    10
`define OPI_ONLY    11
`define OPI_IMM     12
`define OPI_RC      13
`define OPI_UC      14
`define OPI_UD      15
`define OPI_RETH    16
`define OPI_AETH    17
`define OPI_IMMDT   18
`define OPI_ATMETH  19
`define OPI_ATMACK  20
`define OPI_DETH    21
`define OPI_PAY     22
`define OPI_W       23

// Receive drop reasons, in the order the checks run (the same order and
// values as enum roce_drop_reason of the model's codec, model/roce_hdr.h).
`define RXD_NONE        5'd0
`define RXD_SHORT       5'd1
`define RXD_ETHERTYPE   5'd2
`define RXD_IP_VERSION  5'd3
`define RXD_IP_OPTIONS  5'd4
`define RXD_IP_CSUM     5'd5
`define RXD_IP_LEN      5'd6
`define RXD_IP_FRAG     5'd7
`define RXD_IP_PROTO    5'd8
`define RXD_UDP_PORT    5'd9
`define RXD_UDP_LEN     5'd10
`define RXD_UDP_CSUM    5'd11
`define RXD_ICRC        5'd12
`define RXD_OPCODE      5'd13
`define RXD_TVER        5'd14
`define RXD_HDR_LEN     5'd15
`define RXD_PAD         5'd16
`define RXD_TOO_LONG    5'd17   // RTL only: frame larger than a receive buffer slot

`endif
