// hcasim RTL: helper macros shared by every module.  Every number comes from
// the generated rtl/include/hca_spec.vh; this file only adds access helpers.
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

// Engine-private per-QP state words (hca_ctx RAMs; loaded for an item by
// hca_dispatch, docs/rtl.md "Item words").
// Requester (send queue) state: offset and width of each field in bits.
`define TXS_SQ_CI_O      0
`define TXS_SQ_HEAD_O    16
`define TXS_TX_WQE_O     32
`define TXS_TX_PKT_O     48     // 24 bits: packet index within the cursor WQE
`define TXS_PSN_NEXT_O   72     // 24
`define TXS_UNA_O        96     // 24: oldest unacknowledged PSN
`define TXS_RD_OUT_O     120    // 5: READ/atomic WQEs started, not completed
`define TXS_RETRY_O      125    // 3: ACK-timeout / NAK retries left (retry_cnt)
`define TXS_RNR_O        128    // 3: RNR retries left (rnr_retry; 7 = infinite)
`define TXS_NAKV_O       131    // 1: a NAK retry from NAK_PSN started, no progress since
`define TXS_NAK_PSN_O    132    // 24
`define TXS_DRAIN_O      156    // 1: SQD drain in progress
`define TXS_TMR_O        157    // 2: the QP's running timer (TMR_*; its deadline is in hca_timers)
`define TXS_RCVD_O       160    // 24: READ/atomic at SQ_CI: responses received and written
`define TXS_W            184

// TXS_TMR: which transport timer runs (model/comp.c: ack_deadline and
// rnr_deadline, never both).
`define TMR_NONE   2'd0
`define TMR_ACK    2'd1        // local ACK timeout, 2^(timeout + HCA_TIMER_ACK_SHIFT) cycles
`define TMR_RNR    2'd2        // RNR wait, HCA_RNR_CYCLES_<code> cycles; nothing is sent

// hca_comp_retry kinds (model/comp.c enum retry_kind).
`define RETRY_TIMEOUT  2'd0
`define RETRY_NAK_SEQ  2'd1
`define RETRY_IMPLICIT 2'd2    // a READ/atomic response missing (implicit NAK)
`define RETRY_RNR      2'd3

// Responder (receive) state.
`define RXS_EPSN_O       0      // 24
`define RXS_MSN_O        24     // 24
`define RXS_SEQNAK_O     48     // 1
`define RXS_MSG_O        49     // 2: message in progress (RESP_MSG_*)
`define RXS_UCDROP_O     51     // 1
`define RXS_RQ_CI_O      52     // 16
`define RXS_COMMEST_O    68     // 1
`define RXS_RWQE_V_O     69     // 1: a receive WQE is in progress
`define RXS_RWQE_SRQ_O   70     // 1
`define RXS_RWQE_IDX_O   71     // 16
`define RXS_RWQE_NSGE_O  87     // 5
`define RXS_RWQE_TOT_O   92     // 32
`define RXS_RWQE_OFF_O   124    // 32
`define RXS_MSG_LEN_O    156    // 32
`define RXS_WR_LEN_O     188    // 32
`define RXS_WR_IOVA_O    220    // 64
`define RXS_RWQE_ADDR_O  284    // 64: IOVA of the receive WQE (refetch)
`define RXS_RWQE_LOGS_O  348    // 4: log2 of its stride
`define RXS_RES_V_O      352    // 16: responder resources in use (one bit per entry)
`define RXS_RES_NEXT_O   368    // 4: the next resource to allocate (model res_next)
`define RXS_W            372

`define RESP_MSG_NONE    2'd0
`define RESP_MSG_SEND    2'd1
`define RESP_MSG_WRITE   2'd2

// Send-queue tracking entry (the outstanding table u_outs of hca_transport),
// one per started WQE.
`define OW_ERR_O    0      // 1: failed locally, completes with status when oldest
`define OW_STATUS_O 1      // 5
`define OW_VERR_O   6      // 8
`define OW_OP_O     14     // 3: HCA_WR_*
`define OW_FLAGS_O  17     // 4: HCA_SEND_*
`define OW_FPSN_O   21     // 24
`define OW_NPSN_O   45     // 24
`define OW_LEN_O    69     // 32
`define OW_W        104

// Responder resource (hca_read_atomic's table, HCA_CAP_MAX_RD_ATOMIC entries
// per QP; model/resp.c struct model_res): a READ or atomic request executed,
// for the replay of its duplicates.  In use: RXS_RES_V.
`define RES_ATOMIC_O 0      // 1: 0 READ, 1 atomic
`define RES_FPSN_O   1      // 24
`define RES_LPSN_O   25     // 24
`define RES_ORIG_O   49     // 64: atomic: the original value
`define RES_MSN_O    113    // 24: atomic: the MSN of its ACK
`define RES_W        144    // 137 used, rounded to bytes

// hca_read_atomic request kinds.
`define RDAT_READ    2'd0      // a new RDMA READ: resource, responses
`define RDAT_ATOMIC  2'd1      // a new atomic: execute, resource, atomic ACK
`define RDAT_DUP     2'd2      // a duplicate READ/atomic: replay from a resource

// hca_dma_rd fetch targets (f_sel).
`define FSEL_SEND  2'd0        // fetch buffer 0: send WQE (hca_req)
`define FSEL_RECV  2'd1        // fetch buffer 1: receive WQE (hca_scatter)
`define FSEL_READ  2'd2        // fetch buffer 2: the READ/atomic WQE at SQ_CI (hca_comp_read)
`define FSEL_WORD  2'd3        // no buffer: the first 8 bytes only (f_word; atomics)

// hca_eq_post request kinds.
`define EQP_POST      2'd0     // post an EQE
`define EQP_POST_COMP 2'd1     // post a CQ's COMP EQE if its EQ exists
`define EQP_ARM_IRQ   2'd2     // deliver an EQ re-arm interrupt

// hca_scatter take results.
`define RQ_NONE    2'd0        // no receive WQE posted (RNR)
`define RQ_TAKEN   2'd1
`define RQ_FAILED  2'd2        // fetch fault or malformed WQE (rq_verr)

// Job ids of the dbg output (hca_top dbg[7:0]: the job working this cycle;
// dbg[15:8] is its state, the value of its *ST_* enum).
`define JOB_NONE           8'd0
`define JOB_DISPATCH       8'd1
`define JOB_RECV           8'd2
`define JOB_REQ            8'd3
`define JOB_RESP           8'd4
`define JOB_COMP           8'd5
`define JOB_COMP_RETIRE    8'd6
`define JOB_COMPLETE_SEND  8'd7
`define JOB_COMPLETE_RECV  8'd8
`define JOB_QP_FLUSH       8'd9
`define JOB_QP_ERR         8'd10
`define JOB_ACK_SEND       8'd11
`define JOB_SCATTER        8'd12
`define JOB_MR_CHECK       8'd13
`define JOB_CQ_POST        8'd14
`define JOB_EQ_POST        8'd15
`define JOB_READ_ATOMIC    8'd16
`define JOB_COMP_READ      8'd17
`define JOB_COMP_RETRY     8'd18
`define JOB_COMP_TIMER     8'd19

// Item-word write (docs/rtl.md "Item words"): a job changes a field of the
// item's TXS/RXS word, QP state or QPN with a one-cycle registered write, a
// mask and a value (both cleared every engine cycle), which hca_dispatch
// merges into the word it shows: the job sees its write in the next cycle,
// as if it owned the register.  HCA_WSET(mask, value, offset, width, v).
`define HCA_WSET(m, v, off, w, val) begin m[(off) +: (w)] <= '1; v[(off) +: (w)] <= (val); end

// Planted-bug hooks (docs/rtl.md "Planted bugs").  A product module marks a
// place where a test may plant a defect with HCA_BUG(name, good, bad): the
// expression is `good` in every real build (lint, synthesis, hca_top); only
// the harness build (rtl/tb/hca_sim.sv, defines HCA_PLANTED_BUGS) selects
// `bad` when its bug_<name> bit is set.  No port of a product module carries
// bug selection.
`ifdef HCA_PLANTED_BUGS
`define HCA_BUG(name, good, bad) (hca_sim.bug_``name ? (bad) : (good))
`else
`define HCA_BUG(name, good, bad) (good)
`endif

`endif
