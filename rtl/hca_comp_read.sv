`include "hca_defs.vh"

// Completer: an RDMA READ response or an atomic ACK for the send WQE at
// SQ_CI (model/comp.c read_response, atomic_ack; rxe do_read, do_atomic).
//
// Job (docs/rtl.md "Handshakes"): `req` held until `done`; hca_comp has
// checked the PSN and acknowledged the WQEs before it.  CRDST_READ_OUTS/
// CRDST_CHECK: only the response the WQE at SQ_CI waits for counts (a READ:
// the PSN of its first response not yet received, RCVD in TXS; an atomic:
// its PSN), anything else is ignored; a READ response of the wrong kind
// (LAST/ONLY when more are due, or not), the wrong payload length (the PMTU,
// or the rest of the message on the last) or a NAK syndrome, and an atomic
// ACK with a NAK syndrome, fail the WQE with BAD_RESP_ERR and move the QP to
// ERR (CRDST_FAIL: hca_complete_send, hca_qp_err).  CRDST_FETCH: the WQE's
// SGEs -- fetch buffer 2 caches the WQE (fw_v/fw_qn/fw_idx/fw_gen, this
// module their only writer) with the translated SGE addresses (hca_mr_check
// of every SGE, LOCAL_WRITE, as the requester checked them when it started
// the WQE).  CRDST_WRITE: the payload is written at message offset
// RCVD * PMTU across the SGEs, one DMA write per piece (hca_dma_wr from the
// receive slot; a fault: LOC_PROT_ERR / DMA_FAULT); an atomic ACK's original
// value goes, little-endian as rxe, to the WQE's one 8-byte SGE.
// CRDST_ADVANCE: RCVD + 1, UNA = PSN + 1, and with the last response the WQE
// completes (hca_complete_send); UNA = PSN_NEXT when nothing is left.
// Result `progress`: the QP's send queue moved (hca_comp keeps it busy).
// Caller: hca_comp.  Calls: hca_mr_check, hca_complete_send, hca_qp_err.
module hca_comp_read #(
    parameter int DATA_W     = 64,
    parameter int LOG_MAX_QP = 8,
    parameter int LOG_OUTS   = 5,
    parameter int RX_SLOT_AW = 7,
    parameter int FB2_BYTES  = 320,
    localparam int WB  = DATA_W / 8,
    localparam int LW  = $clog2(WB),
    localparam int RXA = RX_SLOT_AW + 1 + LW
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        req,
    output logic        done,
    output logic        progress,        // with done
    output logic        dbg_act,
    output logic [7:0]  dbg_st,
    // the item (hca_dispatch, hca_qpc_view)
    input  logic [LOG_MAX_QP-1:0] qn,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [`TXS_W-1:0] txs,
    input  logic [`OPI_W-1:0] p_info,
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [2:0]  qp_st,
    input  logic [15:0] qpc_gen,
    input  logic [31:0] pdn,
    input  logic [31:0] pmtu,
    input  logic [11:0] pmtu_log,
    input  logic [63:0] sq_base,
    input  logic [3:0]  log_sq_stride,
    input  logic [4:0]  log_sq_size,
    output logic [`TXS_W-1:0] txs_wm,
    output logic [`TXS_W-1:0] txs_wv,
    // the response packet (hca_rx_parse) in the receive slot
    input  logic [23:0] p_psn,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [7:0]  p_aeth_syn,      // its type
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [63:0] p_atmack_orig,
    input  logic [7:0]  p_pay_off,
    input  logic [15:0] p_pay_len,
    input  logic        r_slot,
    // outstanding table read port
    output logic        ow_re,
    output logic [LOG_MAX_QP+LOG_OUTS-1:0] ow_raddr,
    input  logic [`OW_W-1:0] ow_rdata,
    // hca_dma_rd: the WQE into fetch buffer 2
    output logic        d_f_start,
    output logic [63:0] d_f_addr,
    output logic [15:0] d_f_len,
    input  logic        d_f_done,
    input  logic        d_f_err,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [FB2_BYTES*8-1:0] fb2,  // header and SGEs
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
    // hca_dma_wr
    output logic        d_w_start,
    output logic [63:0] d_w_addr,
    output logic [15:0] d_w_len,
    output logic        d_w_rxbuf,
    output logic [RXA-1:0] d_w_off,
    output logic [511:0] d_w_small,
    input  logic        d_w_done,
    input  logic        d_w_err,
    // hca_complete_send
    output logic        sc_req,
    output logic [`OW_W-1:0] sc_ow,
    output logic [4:0]  sc_status,
    output logic [7:0]  sc_verr,
    output logic        sc_force,
    input  logic        sc_done,
    // hca_qp_err
    output logic        qe_req,
    output logic        qe_has,
    output logic [7:0]  qe_evt,
    input  logic        qe_done,
    // hca_regs
    output logic [`HCA_STAT_COUNT-1:0] s_stat,
    output logic        s_fault,
    output logic [7:0]  s_fault_client,
    output logic        s_fault_wr,
    output logic [63:0] s_fault_iova
);
  `include "hca_funcs.vh"
  localparam logic [2:0] QPS_ERR = 3'(`HCA_QPS_ERR);

  typedef enum logic [4:0] {
    CRDST_IDLE, CRDST_READ_OUTS, CRDST_CHECK,
    CRDST_FETCH, CRDST_WAIT_FETCH, CRDST_CHECK_LKEY, CRDST_WAIT_LKEY, CRDST_LKEY_RESULT,
    CRDST_WRITE, CRDST_WAIT_WRITE, CRDST_ADVANCE, CRDST_WAIT_CQE, CRDST_AFTER_CQE,
    // the WQE fails: its completion, then QP to ERR (the job's last step)
    CRDST_FAIL, CRDST_WAIT_FAIL_CQE, CRDST_WAIT_QP_ERR_END
  } st_t;
  st_t state_q, state;
  always_comb begin
    state = state_q;
    case (state_q)
      CRDST_IDLE:            if (req) state = CRDST_READ_OUTS;
      CRDST_WAIT_LKEY:       if (mr_done) state = CRDST_LKEY_RESULT;
      CRDST_WAIT_CQE:        if (sc_done) state = CRDST_AFTER_CQE;
      CRDST_WAIT_FAIL_CQE:   if (sc_done) state = CRDST_WAIT_QP_ERR_END;
      CRDST_WAIT_QP_ERR_END: if (qe_done) state = CRDST_IDLE;
      default: ;
    endcase
  end
  assign mr_req  = state == CRDST_WAIT_LKEY;
  assign sc_req  = state == CRDST_WAIT_CQE || state == CRDST_WAIT_FAIL_CQE;
  assign qe_req  = state == CRDST_WAIT_QP_ERR_END;
  assign qe_has  = 1'b0;
  assign qe_evt  = 8'h0;
  assign dbg_act = state != CRDST_IDLE && !mr_req && !sc_req && !qe_req;
  assign dbg_st  = 8'(state);

  logic done_q;
  assign done = done_q || (state_q == CRDST_WAIT_QP_ERR_END && qe_done);

  logic [15:0] sq_ci, sq_head;
  logic [23:0] psn_next, rcvd;
  assign sq_ci    = txs[`TXS_SQ_CI_O +: 16];
  assign sq_head  = txs[`TXS_SQ_HEAD_O +: 16];
  assign psn_next = txs[`TXS_PSN_NEXT_O +: 24];
  assign rcvd     = txs[`TXS_RCVD_O +: 24];
  assign ow_re    = state == CRDST_READ_OUTS;
  assign ow_raddr = {qn, sq_ci[LOG_OUTS-1:0]};

  logic        is_read, last;        // a READ response; the WQE's last one
  logic [7:0]  nsge;
  logic [4:0]  ki;                   // SGE walk (key checks, then writes)
  logic [31:0] pos, rem;             // offset left to skip, bytes left to write
  logic [15:0] src;                  // receive-slot byte of the next piece
  logic [63:0] fa;
  // fetch buffer 2 cache: which WQE it holds (a QPC write invalidates it)
  logic        fw_v;
  logic [LOG_MAX_QP-1:0] fw_qn;
  logic [15:0] fw_idx, fw_gen;
  logic        f_long;               // fetch buffer 2 was filled by a whole-slot read
  logic        f_rest;               // the WQE in it reaches beyond its first read

  // SGE fields at the walk's index
  logic [31:0] sg_len, sg_key;
  logic [63:0] sg_addr;
  assign nsge    = fb2[8*`HCA_WQE_CTRL_SEG_NUM_SGE_OFF +: 8];
  assign f_rest  = !f_long && (16'd1 << log_sq_stride) > wqe_first_len(log_sq_stride) &&
                   (((fb2[8*`HCA_WQE_CTRL_SEG_SEND_FLAGS_OFF +: 8] & 8'(`HCA_SEND_INLINE)) != 0) ?
                    fb2[8*`HCA_WQE_CTRL_SEG_INLINE_LEN_OFF +: 16] > 16'(`HCA_WQE_DATA_SEG_SIZE) : nsge > 8'd1);
  assign sg_len  = fb2[8*(64 + 16*ki + `HCA_WQE_DATA_SEG_BYTE_COUNT_OFF) +: 32];
  assign sg_key  = fb2[8*(64 + 16*ki + `HCA_WQE_DATA_SEG_LKEY_OFF) +: 32];
  assign sg_addr = fb2[8*(64 + 16*ki + `HCA_WQE_DATA_SEG_ADDR_OFF) +: 64];
  // the translated SGE addresses of the cached WQE
  logic [63:0] iova_r [0:15];
  always_ff @(posedge clk) begin
    if (ce && state == CRDST_LKEY_RESULT && mr_verr == 8'h0)
      iova_r[ki[3:0]] <= mr_iova;
  end
  logic [63:0] sg_iova;
  assign sg_iova = iova_r[ki[3:0]];

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= CRDST_IDLE; done_q <= 1'b0; progress <= 1'b0; txs_wm <= '0; txs_wv <= '0;
      is_read <= 1'b0; last <= 1'b0; ki <= '0; pos <= '0; rem <= '0; src <= '0; fa <= '0;
      fw_v <= 1'b0; fw_qn <= '0; fw_idx <= '0; fw_gen <= '0; f_long <= 1'b0;
      d_f_start <= 1'b0; d_f_addr <= '0; d_f_len <= '0;
      mr_key <= '0; mr_pdn <= '0; mr_acc <= '0; mr_va <= '0; mr_len <= '0;
      d_w_start <= 1'b0; d_w_addr <= '0; d_w_len <= '0; d_w_rxbuf <= 1'b0; d_w_off <= '0; d_w_small <= '0;
      sc_ow <= '0; sc_status <= '0; sc_verr <= '0; sc_force <= 1'b0;
      s_stat <= '0; s_fault <= 1'b0; s_fault_client <= '0; s_fault_wr <= 1'b0; s_fault_iova <= '0;
    end else if (srst) begin
      state_q <= CRDST_IDLE; done_q <= 1'b0; txs_wm <= '0; txs_wv <= '0; fw_v <= 1'b0;
      d_f_start <= 1'b0; d_w_start <= 1'b0; s_stat <= '0; s_fault <= 1'b0;
    end else if (ce) begin
      done_q <= 1'b0; txs_wm <= '0; txs_wv <= '0; d_f_start <= 1'b0; d_w_start <= 1'b0;
      s_stat <= '0; s_fault <= 1'b0;
      state_q <= state;
      case (state)
        CRDST_READ_OUTS: begin
          progress <= 1'b0;
          if (qp_st == QPS_ERR || sq_ci == sq_head) begin
            done_q <= 1'b1; state_q <= CRDST_IDLE;
          end else
            state_q <= CRDST_CHECK;                      // the entry at SQ_CI is read
        end
        CRDST_CHECK: begin : chk
          logic [2:0]  op;
          logic [23:0] fpsn, npsn;
          logic [31:0] want;
          logic        rd, atm, fin, bad;
          op   = ow_rdata[`OW_OP_O +: 3];
          fpsn = ow_rdata[`OW_FPSN_O +: 24];
          npsn = ow_rdata[`OW_NPSN_O +: 24];
          rd   = p_info[`OPI_READ] && op == 3'(`HCA_WR_RDMA_READ) && p_psn == fpsn + rcvd;
          atm  = p_info[`OPI_ATOMIC] && p_psn == fpsn &&
                 (op == 3'(`HCA_WR_ATOMIC_CMP_AND_SWP) || op == 3'(`HCA_WR_ATOMIC_FETCH_AND_ADD));
          fin  = !rd || rcvd + 24'd1 == npsn;
          want = fin ? ow_rdata[`OW_LEN_O +: 32] - ({8'b0, rcvd} << pmtu_log) : pmtu;
          bad  = rd ? ((p_info[`OPI_LAST] || p_info[`OPI_ONLY]) != fin || {16'b0, p_pay_len} != want ||
                       (p_info[`OPI_AETH] && p_aeth_syn[7:5] != 3'(`HCA_AETH_TYPE_ACK)))
                    : p_aeth_syn[7:5] != 3'(`HCA_AETH_TYPE_ACK);
          sc_ow   <= ow_rdata;
          is_read <= rd;
          last    <= fin;
          if (ow_rdata[`OW_ERR_O] || (!rd && !atm)) begin
            done_q <= 1'b1; state_q <= CRDST_IDLE;       // not the response the WQE waits for
          end else if (bad) begin
            sc_status <= 5'(`HCA_WC_BAD_RESP_ERR); sc_verr <= 8'(`HCA_VENDOR_ERR_NONE);
            state_q <= CRDST_FAIL;
          end else if (rd && p_pay_len == 16'd0)
            state_q <= CRDST_ADVANCE;                    // a zero-length READ: nothing to write
          else
            state_q <= CRDST_FETCH;
        end
        CRDST_FETCH:
          if (fw_v && fw_gen == qpc_gen && fw_qn == qn && fw_idx == sq_ci) begin
            ki <= '0; pos <= is_read ? ({8'b0, rcvd} << pmtu_log) : 32'h0;
            rem <= is_read ? {16'b0, p_pay_len} : 32'd8; src <= {8'b0, p_pay_off};
            state_q <= CRDST_WRITE;
          end else begin
            fw_v      <= 1'b0;
            d_f_start <= 1'b1;
            d_f_addr  <= slot_addr(sq_base, sq_ci, log_sq_size, log_sq_stride);
            fa        <= slot_addr(sq_base, sq_ci, log_sq_size, log_sq_stride);
            d_f_len   <= wqe_first_len(log_sq_stride);
            f_long    <= 1'b0;
            state_q   <= CRDST_WAIT_FETCH;
          end
        CRDST_WAIT_FETCH: if (d_f_done) begin
          if (d_f_err) begin
            s_fault <= 1'b1; s_fault_client <= 8'(`HCA_DMA_CLIENT_WQE); s_fault_wr <= 1'b0; s_fault_iova <= fa;
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            sc_status <= 5'(`HCA_WC_LOC_PROT_ERR); sc_verr <= 8'(`HCA_VENDOR_ERR_DMA_FAULT);
            state_q <= CRDST_FAIL;
          end else if (f_rest) begin
            d_f_start <= 1'b1;                           // the whole slot (same address)
            d_f_len   <= 16'd1 << log_sq_stride;
            f_long    <= 1'b1;
          end else begin
            ki <= '0;
            state_q <= CRDST_CHECK_LKEY;
          end
        end
        CRDST_CHECK_LKEY:
          if (8'(ki) >= nsge) begin
            fw_v <= 1'b1; fw_qn <= qn; fw_idx <= sq_ci; fw_gen <= qpc_gen;
            ki <= '0; pos <= is_read ? ({8'b0, rcvd} << pmtu_log) : 32'h0;
            rem <= is_read ? {16'b0, p_pay_len} : 32'd8; src <= {8'b0, p_pay_off};
            state_q <= CRDST_WRITE;
          end else begin
            mr_key <= sg_key; mr_pdn <= pdn; mr_acc <= 16'(`HCA_ACCESS_LOCAL_WRITE);
            mr_va  <= sg_addr; mr_len <= {32'b0, sg_len};
            state_q <= CRDST_WAIT_LKEY;
          end
        CRDST_LKEY_RESULT:
          if (mr_verr != 8'h0) begin
            sc_status <= 5'(`HCA_WC_LOC_PROT_ERR); sc_verr <= mr_verr;
            state_q <= CRDST_FAIL;
          end else begin
            ki <= ki + 5'd1;
            state_q <= CRDST_CHECK_LKEY;
          end
        // model/dma.c model_sge_copy into the SGEs
        CRDST_WRITE: begin : wr
          logic [31:0] chunk;
          if (rem == 32'h0)
            state_q <= CRDST_ADVANCE;
          else if (8'(ki) >= nsge) begin
            sc_status <= 5'(`HCA_WC_LOC_PROT_ERR); sc_verr <= 8'(`HCA_VENDOR_ERR_DMA_FAULT);
            state_q <= CRDST_FAIL;                       // more data than SGEs
          end else if (pos >= sg_len) begin
            pos <= pos - sg_len;
            ki  <= ki + 5'd1;
          end else begin
            chunk = sg_len - pos;
            if (chunk > rem) chunk = rem;
            d_w_start <= 1'b1;
            d_w_addr  <= sg_iova + {32'b0, pos};
            fa        <= sg_iova + {32'b0, pos};
            d_w_len   <= chunk[15:0];
            d_w_rxbuf <= is_read;
            d_w_off   <= RXA'({r_slot, {(RX_SLOT_AW+LW){1'b0}}}) + RXA'(src);
            d_w_small <= {448'b0, p_atmack_orig};
            src       <= src + chunk[15:0];
            rem       <= rem - chunk;
            pos       <= '0;
            ki        <= ki + 5'd1;
            state_q   <= CRDST_WAIT_WRITE;
          end
        end
        CRDST_WAIT_WRITE: if (d_w_done) begin
          if (d_w_err) begin
            s_fault <= 1'b1; s_fault_client <= 8'(`HCA_DMA_CLIENT_PAYLOAD); s_fault_wr <= 1'b1; s_fault_iova <= fa;
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            sc_status <= 5'(`HCA_WC_LOC_PROT_ERR); sc_verr <= 8'(`HCA_VENDOR_ERR_DMA_FAULT);
            state_q <= CRDST_FAIL;
          end else
            state_q <= CRDST_WRITE;
        end
        CRDST_ADVANCE: begin
          `HCA_WSET(txs_wm, txs_wv, `TXS_RCVD_O, 24, rcvd + 24'd1)
          `HCA_WSET(txs_wm, txs_wv, `TXS_UNA_O, 24, p_psn + 24'd1)
          progress <= 1'b1;
          if (last) begin
            fw_v <= 1'b0;                                  // the WQE is done with
            sc_status <= '0; sc_verr <= '0; sc_force <= 1'b0;
            state_q <= CRDST_WAIT_CQE;
          end else begin
            done_q <= 1'b1; state_q <= CRDST_IDLE;
          end
        end
        CRDST_AFTER_CQE: begin
          if (sq_ci == sq_head) `HCA_WSET(txs_wm, txs_wv, `TXS_UNA_O, 24, psn_next)
          done_q <= 1'b1; state_q <= CRDST_IDLE;
        end
        CRDST_FAIL: begin
          sc_force <= 1'b0;
          state_q  <= CRDST_WAIT_FAIL_CQE;
        end
        default: ;
      endcase
    end
  end
endmodule
