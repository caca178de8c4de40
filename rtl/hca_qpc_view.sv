`include "hca_defs.vh"

// QPC field view: the fields of the loaded QP context (the 128 bytes firmware
// wrote, held by hca_dispatch for the item in progress) under their names,
// with the clamps the model applies (model/req.c sq_log_stride/sq_log_size,
// model/rq.c clamp_stride/clamp_size, model/qp.c model_pmtu).
//
// Purely combinational; one instance in hca_transport feeds every job, so
// no job decodes QPC bytes itself.
module hca_qpc_view (
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [1023:0] cfg,            // not every byte has a field here
    /* verilator lint_on UNUSEDSIGNAL */
    output logic [7:0]    qp_type,
    output logic          is_rc,
    output logic          is_uc,
    output logic          is_ud,
    output logic [7:0]    flags,          // HCA_QPC_FLAGS_*
    output logic          use_srq,
    output logic [31:0]   pdn,
    output logic [31:0]   qkey,
    output logic [15:0]   access,         // HCA_ACCESS_* (remote access of the QP)
    output logic [31:0]   send_cqn,
    output logic [31:0]   recv_cqn,
    output logic [31:0]   srqn,
    output logic [3:0]    log_sq_stride,  // clamped to the WQE stride limits
    output logic [4:0]    log_sq_size,    // clamped to 16
    output logic [3:0]    log_rq_stride,
    output logic [4:0]    log_rq_size,
    output logic [11:0]   pmtu_log,       // log2 of the path MTU in bytes (4096 if invalid)
    output logic [31:0]   pmtu,
    output logic [63:0]   sq_base,
    output logic [63:0]   rq_base,
    output logic [47:0]   dmac,
    output logic [31:0]   dip,            // IPv4 address: the last 4 bytes of the DGID
    output logic [7:0]    hop_limit,
    output logic [7:0]    tclass,
    output logic [23:0]   dest_qpn,
    output logic [7:0]    sgid_index,
    output logic [4:0]    min_rnr_timer,
    output logic [4:0]    timeout,        // local ACK timeout exponent (0 = no timer)
    output logic [2:0]    retry_cnt,
    output logic [2:0]    rnr_retry,      // 7 = infinite
    output logic [7:0]    max_rd_atomic,       // READ/atomic requests outstanding (0 means 1)
    output logic [7:0]    max_dest_rd_atomic   // responder resources
);
  localparam logic [7:0] QPT_RC = 8'(`HCA_QPT_RC), QPT_UC = 8'(`HCA_QPT_UC), QPT_UD = 8'(`HCA_QPT_UD);

  assign qp_type  = cfg[8*`HCA_QPC_QP_TYPE_OFF +: 8];
  assign is_rc    = qp_type == QPT_RC;
  assign is_uc    = qp_type == QPT_UC;
  assign is_ud    = qp_type == QPT_UD;
  assign flags    = cfg[8*`HCA_QPC_FLAGS_OFF +: 8];
  assign use_srq  = (flags & 8'(`HCA_QPC_FLAGS_USE_SRQ_MASK)) != 0;
  assign pdn      = cfg[8*`HCA_QPC_PDN_OFF +: 32];
  assign qkey     = cfg[8*`HCA_QPC_QKEY_OFF +: 32];
  assign access   = cfg[8*`HCA_QPC_ACCESS_FLAGS_OFF +: 16];
  assign send_cqn = cfg[8*`HCA_QPC_SEND_CQN_OFF +: 32];
  assign recv_cqn = cfg[8*`HCA_QPC_RECV_CQN_OFF +: 32];
  assign srqn     = cfg[8*`HCA_QPC_SRQN_OFF +: 32];
  assign sq_base  = cfg[8*`HCA_QPC_SQ_BASE_OFF +: 64];
  assign rq_base  = cfg[8*`HCA_QPC_RQ_BASE_OFF +: 64];
  assign dmac     = cfg[8*`HCA_QPC_DMAC_OFF +: 48];
  assign dip      = cfg[8*(`HCA_QPC_DGID_OFF + 12) +: 32];
  assign hop_limit = cfg[8*`HCA_QPC_HOP_LIMIT_OFF +: 8];
  assign tclass   = cfg[8*`HCA_QPC_TRAFFIC_CLASS_OFF +: 8];
  assign dest_qpn = cfg[8*`HCA_QPC_DEST_QPN_OFF +: 24];
  assign sgid_index = cfg[8*`HCA_QPC_SGID_INDEX_OFF +: 8];
  assign min_rnr_timer = cfg[8*`HCA_QPC_MIN_RNR_TIMER_OFF +: 5];
  assign timeout   = cfg[8*`HCA_QPC_TIMEOUT_OFF +: 5];
  assign retry_cnt = cfg[8*`HCA_QPC_RETRY_CNT_OFF +: 3];
  assign rnr_retry = cfg[8*`HCA_QPC_RNR_RETRY_OFF +: 3];
  assign max_rd_atomic = cfg[8*`HCA_QPC_MAX_RD_ATOMIC_OFF +: 8];
  assign max_dest_rd_atomic = cfg[8*`HCA_QPC_MAX_DEST_RD_ATOMIC_OFF +: 8];

  always_comb begin
    log_sq_stride = (cfg[8*`HCA_QPC_LOG_SQ_STRIDE_OFF +: 8] < 8'(`HCA_WQE_LOG_MIN_SQ_STRIDE)) ?
                      4'(`HCA_WQE_LOG_MIN_SQ_STRIDE) :
                    (cfg[8*`HCA_QPC_LOG_SQ_STRIDE_OFF +: 8] > 8'(`HCA_WQE_LOG_MAX_SQ_STRIDE)) ?
                      4'(`HCA_WQE_LOG_MAX_SQ_STRIDE) : cfg[8*`HCA_QPC_LOG_SQ_STRIDE_OFF +: 4];
    log_rq_stride = (cfg[8*`HCA_QPC_LOG_RQ_STRIDE_OFF +: 8] < 8'(`HCA_WQE_LOG_MIN_RQ_STRIDE)) ?
                      4'(`HCA_WQE_LOG_MIN_RQ_STRIDE) :
                    (cfg[8*`HCA_QPC_LOG_RQ_STRIDE_OFF +: 8] > 8'(`HCA_WQE_LOG_MAX_RQ_STRIDE)) ?
                      4'(`HCA_WQE_LOG_MAX_RQ_STRIDE) : cfg[8*`HCA_QPC_LOG_RQ_STRIDE_OFF +: 4];
    log_sq_size = (cfg[8*`HCA_QPC_LOG_SQ_SIZE_OFF +: 8] > 8'd16) ? 5'd16 : cfg[8*`HCA_QPC_LOG_SQ_SIZE_OFF +: 5];
    log_rq_size = (cfg[8*`HCA_QPC_LOG_RQ_SIZE_OFF +: 8] > 8'd16) ? 5'd16 : cfg[8*`HCA_QPC_LOG_RQ_SIZE_OFF +: 5];
    if (cfg[8*`HCA_QPC_PATH_MTU_OFF +: 8] >= 8'(`HCA_MTU_256) && cfg[8*`HCA_QPC_PATH_MTU_OFF +: 8] <= 8'(`HCA_MTU_4096))
      pmtu_log = 12'(cfg[8*`HCA_QPC_PATH_MTU_OFF +: 8]) + 12'd7;
    else
      pmtu_log = 12'd12;
    pmtu = 32'd1 << pmtu_log;
  end
endmodule
