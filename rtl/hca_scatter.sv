`include "hca_defs.vh"

// Receive WQEs: taking one from the RQ or the SRQ (model/rq.c model_rq_take)
// and scattering payload into it (model/resp.c scatter).
//
// Two jobs (docs/rtl.md "Handshakes"), each a level request held until `done`:
//   take (`tk_req`): SCATST_TAKE finds the next WQE (none posted, or an SRQ
//     that is missing or in error: result RQ_NONE); SCATST_WAIT_TAKE_FETCH
//     fetches it into fetch buffer 1 (a fault: RQ_FAILED with DMA_FAULT, and
//     an SRQ goes to error with SRQ_ERR); SCATST_TAKE_WQE makes it the QP's
//     receive WQE in progress (RXS RWQE_*, consumed even when malformed:
//     RQ_FAILED with BAD_WQE) and advances the RQ, or the SRQ with its limit
//     event.  Results rq_res (RQ_*), rq_verr.
//   scatter (`sc_req`, off, n, src, grh): write n bytes at receive-WQE
//     offset off, from receive-slot byte src of the held frame (or, with
//     grh, from the 40-byte UD GRH area: 20 zero bytes and the frame's IPv4
//     header).  SCATST_START refetches the WQE if fetch buffer 1 holds
//     another one; SCATST_CHECK_KEYS checks the lkey of every SGE the range
//     touches (hca_mr_check; each SGE once per WQE: rx_chk); SCATST_WRITE
//     issues one DMA write per SGE piece, each waited for (SCATST_WAIT_WRITE);
//     at the end RWQE_OFF = off + n.  Result sc_verr (0, a key error, or
//     DMA_FAULT).
// Fetch buffer 1 is a cache across items: rw_v/rw_qn/rw_addr/rw_gen say
// which receive WQE it holds (any QPC write invalidates it: qpc_gen); this
// module is their only writer.  Caller: hca_resp.  Calls: hca_mr_check.
module hca_scatter #(
    parameter int DATA_W      = 64,
    parameter int LOG_MAX_QP  = 8,
    parameter int LOG_MAX_SRQ = 6,
    parameter int RX_SLOT_AW  = 7,
    parameter int HDR_MAX     = 96,
    parameter int FB1_BYTES   = 320,
    localparam int WB  = DATA_W / 8,
    localparam int LW  = $clog2(WB),
    localparam int RXA = RX_SLOT_AW + 1 + LW
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        tk_req,
    output logic [1:0]  rq_res,          // RQ_NONE, RQ_TAKEN, RQ_FAILED
    output logic [7:0]  rq_verr,
    input  logic        sc_req,
    input  logic [31:0] sc_off,
    input  logic [15:0] sc_n,
    input  logic [15:0] sc_src,
    input  logic        sc_grh,
    output logic [7:0]  sc_verr,
    output logic        done,
    output logic        dbg_act,
    output logic [7:0]  dbg_st,
    // the item
    input  logic [LOG_MAX_QP-1:0] qn,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [`RXS_W-1:0] rxs,
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [15:0] qpc_gen,
    input  logic        use_srq,
    input  logic [31:0] srqn,
    input  logic [31:0] pdn,
    input  logic [3:0]  log_rq_stride,
    input  logic [4:0]  log_rq_size,
    input  logic [63:0] rq_base,
    input  logic [15:0] e_qp_rq_pi,
    output logic [`RXS_W-1:0] rxs_wm,
    output logic [`RXS_W-1:0] rxs_wv,
    // hca_ctx SRQ table (index: the item's SRQ, hca_dispatch)
    input  logic        e_srq_valid,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [255:0] e_srq_cfg,      // SRQC bytes: base, sizes, state, limit, PDN used here
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [31:0] e_srq_pi,
    input  logic [31:0] e_srq_ci,
    input  logic        e_srq_armed,
    output logic        e_srq_inc,
    output logic        e_srq_disarm,
    output logic        e_srq_set_err,
    // the held frame
    input  logic        r_slot,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [HDR_MAX*8-1:0] r_hdr,  // the IPv4 header for the GRH area
    /* verilator lint_on UNUSEDSIGNAL */
    // hca_mr_check
    output logic        mr_req,
    output logic [31:0] mr_key,
    output logic [31:0] mr_pdn,
    output logic [15:0] mr_acc,
    output logic [63:0] mr_va,
    output logic [63:0] mr_len,
    input  logic        mr_done,
    input  logic [7:0]  mr_verr,
    input  logic [63:0] mr_iova,
    // hca_dma_rd: receive WQE fetch into fetch buffer 1
    output logic        d_f_start,
    output logic [63:0] d_f_addr,
    output logic [15:0] d_f_len,
    input  logic        d_f_done,
    input  logic        d_f_err,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [FB1_BYTES*8-1:0] fb1,  // header and up to 16 SGEs
    /* verilator lint_on UNUSEDSIGNAL */
    // hca_dma_wr
    output logic        d_w_start,
    output logic [63:0] d_w_addr,
    output logic [15:0] d_w_len,
    output logic        d_w_rxbuf,
    output logic [RXA-1:0] d_w_off,
    output logic [511:0] d_w_small,
    input  logic        d_w_done,
    input  logic        d_w_err,
    // hca_regs
    output logic [`HCA_STAT_COUNT-1:0] s_stat,
    output logic        s_evt,
    output logic [7:0]  s_evt_type,
    output logic [31:0] s_evt_elem,
    output logic        s_fault,
    output logic [7:0]  s_fault_client,
    output logic        s_fault_wr,
    output logic [63:0] s_fault_iova
);
  `include "hca_funcs.vh"
  typedef enum logic [3:0] {
    SCATST_IDLE, SCATST_TAKE, SCATST_WAIT_TAKE_FETCH, SCATST_TAKE_WQE,
    SCATST_START, SCATST_WAIT_REFETCH, SCATST_CHECK_KEYS, SCATST_WAIT_KEY, SCATST_KEY_RESULT,
    SCATST_WRITE, SCATST_WAIT_WRITE
  } st_t;
  st_t state_q, state;
  logic sc_start;
  assign sc_start = state_q == SCATST_IDLE && !tk_req && sc_req;
  always_comb begin
    state = state_q;
    case (state_q)
      SCATST_IDLE:     if (tk_req) state = SCATST_TAKE; else if (sc_req) state = SCATST_START;
      SCATST_WAIT_KEY: if (mr_done) state = SCATST_KEY_RESULT;
      default: ;
    endcase
  end
  assign mr_req  = state == SCATST_WAIT_KEY;
  assign dbg_act = state != SCATST_IDLE && !mr_req;
  assign dbg_st  = 8'(state);

  // receive WQE in progress (RXS)
  logic [15:0] rq_ci;
  logic [4:0]  rwqe_nsge;
  logic        rwqe_srq;
  logic [63:0] rwqe_addr;
  assign rq_ci     = rxs[`RXS_RQ_CI_O +: 16];
  assign rwqe_nsge = rxs[`RXS_RWQE_NSGE_O +: 5];
  assign rwqe_srq  = rxs[`RXS_RWQE_SRQ_O];
  assign rwqe_addr = rxs[`RXS_RWQE_ADDR_O +: 64];

  // receive WQE cache (fetch buffer 1)
  logic        rw_v;
  logic [LOG_MAX_QP-1:0] rw_qn;
  logic [63:0] rw_addr;
  logic [15:0] rw_gen;
  logic [63:0] fa;                   // address of the last fetch or write (fault report)
  logic [3:0]  rq_ls;
  // scatter walk
  logic [4:0]  sc_i;
  logic [31:0] sc_pos;
  logic [15:0] sc_rem, src;

  // the fetched receive WQE
  logic [7:0]  rw_nsge;
  logic [15:0] rw_idx;
  logic [32:0] rw_total;
  logic [7:0]  rw_maxsge;
  assign rw_nsge = fb1[8*`HCA_RECV_WQE_HDR_NUM_SGE_OFF +: 8];
  assign rw_idx  = fb1[8*`HCA_RECV_WQE_HDR_WQE_INDEX_OFF +: 16];
  always_comb begin : rwq
    integer i;
    rw_total = '0;
    for (i = 0; i < 16; i = i + 1)
      if (8'(i) < rw_nsge) rw_total = rw_total + {1'b0, fb1[8*(16 + 16*i) +: 32]};
    rw_maxsge = 8'(((32'd1 << rq_ls) - 32'd16) >> 4);
    if (rw_maxsge > 8'(`HCA_CAP_MAX_SGE)) rw_maxsge = 8'(`HCA_CAP_MAX_SGE);
  end
  // SGE fields at the index the walk is on
  logic [31:0] sc_len, sc_key;
  logic [63:0] sc_addr;
  assign sc_len  = fb1[8*(16 + 16*sc_i + `HCA_WQE_DATA_SEG_BYTE_COUNT_OFF) +: 32];
  assign sc_key  = fb1[8*(16 + 16*sc_i + `HCA_WQE_DATA_SEG_LKEY_OFF) +: 32];
  assign sc_addr = fb1[8*(16 + 16*sc_i + `HCA_WQE_DATA_SEG_ADDR_OFF) +: 64];

  // UD GRH area: 20 zero bytes, then the received IPv4 header.
  logic [319:0] grh;
  assign grh = {r_hdr[8*14 +: 160], 160'h0};

  // Translated SGE addresses of the receive WQE and which SGEs were checked.
  logic [63:0] rx_iova_r [0:15];
  logic [15:0] rx_chk;
  always_ff @(posedge clk) begin
    if (ce && state == SCATST_KEY_RESULT && mr_verr == 8'h0) rx_iova_r[sc_i[3:0]] <= mr_iova;
  end
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) rx_chk <= '0;
    else if (ce) begin
      if (state == SCATST_TAKE_WQE || (state == SCATST_WAIT_REFETCH && d_f_done)) rx_chk <= '0;
      else if (state == SCATST_KEY_RESULT && mr_verr == 8'h0) rx_chk[sc_i[3:0]] <= 1'b1;
    end
  end
  logic [63:0] rx_iova_sc;
  assign rx_iova_sc = rx_iova_r[sc_i[3:0]];

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= SCATST_IDLE; done <= 1'b0; rq_res <= '0; rq_verr <= '0; sc_verr <= '0;
      rw_v <= 1'b0; rw_qn <= '0; rw_addr <= '0; rw_gen <= '0; fa <= '0; rq_ls <= '0;
      sc_i <= '0; sc_pos <= '0; sc_rem <= '0; src <= '0;
      rxs_wm <= '0; rxs_wv <= '0; e_srq_inc <= 1'b0; e_srq_disarm <= 1'b0; e_srq_set_err <= 1'b0;
      mr_key <= '0; mr_pdn <= '0; mr_acc <= '0; mr_va <= '0; mr_len <= '0;
      d_f_start <= 1'b0; d_f_addr <= '0; d_f_len <= '0;
      d_w_start <= 1'b0; d_w_addr <= '0; d_w_len <= '0; d_w_rxbuf <= 1'b0; d_w_off <= '0; d_w_small <= '0;
      s_stat <= '0; s_evt <= 1'b0; s_evt_type <= '0; s_evt_elem <= '0;
      s_fault <= 1'b0; s_fault_client <= '0; s_fault_wr <= 1'b0; s_fault_iova <= '0;
    end else if (srst) begin
      state_q <= SCATST_IDLE; done <= 1'b0; rw_v <= 1'b0;
      rxs_wm <= '0; rxs_wv <= '0; e_srq_inc <= 1'b0; e_srq_disarm <= 1'b0; e_srq_set_err <= 1'b0;
      d_f_start <= 1'b0; d_w_start <= 1'b0; s_stat <= '0; s_evt <= 1'b0; s_fault <= 1'b0;
    end else if (ce) begin
      done <= 1'b0;
      rxs_wm <= '0; rxs_wv <= '0; e_srq_inc <= 1'b0; e_srq_disarm <= 1'b0; e_srq_set_err <= 1'b0;
      d_f_start <= 1'b0; d_w_start <= 1'b0; s_stat <= '0; s_evt <= 1'b0; s_fault <= 1'b0;
      state_q <= state;
      if (sc_start) src <= sc_src;
      case (state)
        // ---- take a receive WQE (model/rq.c model_rq_take)
        SCATST_TAKE: begin : take
          logic [3:0]  ls;
          logic [4:0]  lz;
          logic [63:0] a;
          if (use_srq) begin
            ls = (e_srq_cfg[8*`HCA_SRQC_LOG_STRIDE_OFF +: 8] < 8'(`HCA_WQE_LOG_MIN_RQ_STRIDE)) ?
                   4'(`HCA_WQE_LOG_MIN_RQ_STRIDE) :
                 (e_srq_cfg[8*`HCA_SRQC_LOG_STRIDE_OFF +: 8] > 8'(`HCA_WQE_LOG_MAX_RQ_STRIDE)) ?
                   4'(`HCA_WQE_LOG_MAX_RQ_STRIDE) : e_srq_cfg[8*`HCA_SRQC_LOG_STRIDE_OFF +: 4];
            lz = (e_srq_cfg[8*`HCA_SRQC_LOG_SIZE_OFF +: 8] > 8'd16) ? 5'd16 : e_srq_cfg[8*`HCA_SRQC_LOG_SIZE_OFF +: 5];
            a  = slot_addr(e_srq_cfg[8*`HCA_SRQC_BASE_OFF +: 64], e_srq_ci[15:0], lz, ls);
          end else begin
            ls = log_rq_stride;
            lz = log_rq_size;
            a  = slot_addr(rq_base, rq_ci, lz, ls);
          end
          rq_ls <= ls;
          if (use_srq ? (srqn == 32'h0 || srqn >= 32'(1 << LOG_MAX_SRQ) || !e_srq_valid ||
                         e_srq_cfg[8*`HCA_SRQC_STATE_OFF +: 8] != 8'h0 || e_srq_pi == e_srq_ci)
                      : (rq_ci == e_qp_rq_pi)) begin
            rq_res <= `RQ_NONE;
            done <= 1'b1; state_q <= SCATST_IDLE;
          end else begin
            d_f_start <= 1'b1;
            d_f_addr  <= a;
            d_f_len   <= (ls > 4'd8) ? 16'd272 : (16'd1 << ls);   // at most header + 16 SGEs
            fa        <= a;
            state_q   <= SCATST_WAIT_TAKE_FETCH;
          end
        end
        SCATST_WAIT_TAKE_FETCH: if (d_f_done) begin
          if (d_f_err) begin
            s_fault <= 1'b1; s_fault_wr <= 1'b0; s_fault_client <= 8'(`HCA_DMA_CLIENT_WQE); s_fault_iova <= fa;
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            rq_verr <= 8'(`HCA_VENDOR_ERR_DMA_FAULT);
            rq_res  <= `RQ_FAILED;
            if (use_srq) begin
              e_srq_set_err <= 1'b1;
              s_evt <= 1'b1; s_evt_type <= 8'(`HCA_EVENT_SRQ_ERR); s_evt_elem <= srqn;
            end
            rw_v <= 1'b0;
            done <= 1'b1; state_q <= SCATST_IDLE;
          end else
            state_q <= SCATST_TAKE_WQE;
        end
        SCATST_TAKE_WQE: begin
          // consumed either way: a malformed WQE completes in error
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_RWQE_V_O, 1, 1'b1)
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_RWQE_SRQ_O, 1, use_srq)
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_RWQE_IDX_O, 16, rw_idx)
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_RWQE_NSGE_O, 5, rw_nsge[4:0])
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_RWQE_TOT_O, 32, rw_total[31:0])
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_RWQE_OFF_O, 32, 32'h0)
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_RWQE_ADDR_O, 64, fa)
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_RWQE_LOGS_O, 4, rq_ls)
          rw_v <= 1'b1; rw_qn <= qn; rw_addr <= fa; rw_gen <= qpc_gen;
          if (rw_nsge > rw_maxsge || rw_total > 33'(`HCA_CAP_MAX_MSG_SZ)) begin
            rq_verr <= 8'(`HCA_VENDOR_ERR_BAD_WQE);
            rq_res  <= `RQ_FAILED;
          end else begin
            rq_verr <= 8'h0;
            rq_res  <= `RQ_TAKEN;
          end
          if (use_srq) begin
            e_srq_inc <= 1'b1;
            if (e_srq_armed && (e_srq_pi - (e_srq_ci + 32'd1)) < e_srq_cfg[8*`HCA_SRQC_LIMIT_OFF +: 32]) begin
              e_srq_disarm <= 1'b1;
              s_evt <= 1'b1; s_evt_type <= 8'(`HCA_EVENT_SRQ_LIMIT_REACHED); s_evt_elem <= srqn;
            end
          end else
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_RQ_CI_O, 16, rq_ci + 16'd1)
          done <= 1'b1; state_q <= SCATST_IDLE;
        end

        // ---- scatter (model/resp.c scatter): key checks of every SGE touched
        // first, then one DMA write per SGE piece
        SCATST_START: begin
          sc_verr <= 8'h0;
          if (rw_v && rw_gen == qpc_gen && rw_qn == qn && rw_addr == rwqe_addr) begin
            sc_i <= '0; sc_pos <= '0;
            state_q <= SCATST_CHECK_KEYS;
          end else begin
            // another QP used the receive fetch buffer since: fetch the WQE again
            d_f_start <= 1'b1;
            d_f_addr  <= rwqe_addr;
            d_f_len   <= (rxs[`RXS_RWQE_LOGS_O +: 4] > 4'd8) ? 16'd272 : (16'd1 << rxs[`RXS_RWQE_LOGS_O +: 4]);
            fa        <= rwqe_addr;
            state_q   <= SCATST_WAIT_REFETCH;
          end
        end
        SCATST_WAIT_REFETCH: if (d_f_done) begin
          if (d_f_err) begin
            s_fault <= 1'b1; s_fault_wr <= 1'b0; s_fault_client <= 8'(`HCA_DMA_CLIENT_WQE); s_fault_iova <= fa;
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            sc_verr <= 8'(`HCA_VENDOR_ERR_DMA_FAULT);
            rw_v <= 1'b0;
            done <= 1'b1; state_q <= SCATST_IDLE;
          end else begin
            rw_v <= 1'b1; rw_qn <= qn; rw_addr <= rwqe_addr; rw_gen <= qpc_gen;
            sc_i <= '0; sc_pos <= '0;
            state_q <= SCATST_CHECK_KEYS;
          end
        end
        SCATST_CHECK_KEYS: begin : chk
          logic [31:0] li, en;
          li = sc_len;
          en = sc_pos + li;
          if (sc_i >= rwqe_nsge) begin
            sc_i <= '0; sc_pos <= sc_off; sc_rem <= sc_n;     // sc_pos: offset left to skip
            state_q <= SCATST_WRITE;
          end else if (li != 32'h0 && en > sc_off && sc_pos < sc_off + {16'b0, sc_n} && !rx_chk[sc_i[3:0]]) begin
            mr_key  <= sc_key;
            mr_pdn  <= rwqe_srq ? e_srq_cfg[8*`HCA_SRQC_PDN_OFF +: 32] : pdn;
            mr_acc  <= 16'(`HCA_ACCESS_LOCAL_WRITE);
            mr_va   <= sc_addr;
            mr_len  <= {32'b0, li};
            state_q <= SCATST_WAIT_KEY;
          end else begin
            sc_pos <= en;
            sc_i   <= sc_i + 5'd1;
          end
        end
        SCATST_KEY_RESULT:
          if (mr_verr != 8'h0) begin
            sc_verr <= mr_verr;
            done <= 1'b1; state_q <= SCATST_IDLE;
          end else begin
            sc_pos  <= sc_pos + sc_len;
            sc_i    <= sc_i + 5'd1;
            state_q <= SCATST_CHECK_KEYS;
          end
        SCATST_WRITE: begin : wr
          logic [31:0] li, chunk;
          li = sc_len;
          if (sc_rem == 16'd0 || sc_i >= rwqe_nsge) begin
            `HCA_WSET(rxs_wm, rxs_wv, `RXS_RWQE_OFF_O, 32, sc_off + {16'b0, sc_n})
            done <= 1'b1; state_q <= SCATST_IDLE;
          end else if (sc_pos >= li) begin
            sc_pos <= sc_pos - li;
            sc_i   <= sc_i + 5'd1;
          end else begin
            chunk = li - sc_pos;
            if (chunk > {16'b0, sc_rem}) chunk = {16'b0, sc_rem};
            d_w_start <= 1'b1;
            d_w_addr  <= rx_iova_sc + {32'b0, sc_pos};
            fa        <= rx_iova_sc + {32'b0, sc_pos};
            d_w_len   <= chunk[15:0];
            d_w_rxbuf <= !sc_grh;
            d_w_off   <= RXA'({r_slot, {(RX_SLOT_AW+LW){1'b0}}}) + RXA'(src);
            d_w_small <= {192'b0, grh >> {src, 3'b000}};
            src       <= src + chunk[15:0];
            sc_rem    <= sc_rem - chunk[15:0];
            sc_pos    <= '0;
            sc_i      <= sc_i + 5'd1;
            state_q   <= SCATST_WAIT_WRITE;
          end
        end
        SCATST_WAIT_WRITE: if (d_w_done) begin
          if (d_w_err) begin
            s_fault <= 1'b1; s_fault_wr <= 1'b1; s_fault_client <= 8'(`HCA_DMA_CLIENT_PAYLOAD); s_fault_iova <= fa;
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            sc_verr <= 8'(`HCA_VENDOR_ERR_DMA_FAULT);
            done <= 1'b1; state_q <= SCATST_IDLE;
          end else
            state_q <= SCATST_WRITE;
        end
        default: ;
      endcase
    end
  end
endmodule
