`include "hca_defs.vh"

// Responder: RDMA READ and atomic requests, and the replay of their
// duplicates (model/resp.c rc_read, read_responses, rc_atomic, atomic_ack
// and the READ/atomic half of rc_duplicate; rxe read_reply, atomic_reply,
// duplicate_request).
//
// Job (docs/rtl.md "Handshakes"): `req` held with `kind` (RDAT_*) and, for a
// new request, the translated address `iova` until `done`; hca_resp has
// checked the request (PSN, opcode, lengths, access, rkey, alignment,
// max_dest_rd_atomic != 0).  Result `nak`: 0, or the NAK code hca_resp sends
// at `nak_psn` before it moves the QP to ERR.
//   RDAT_READ: RDATST_READ_ALLOC takes the next responder resource (a READ
//     of PSNs [psn, psn + n - 1]), MSN + 1, ePSN = psn + n; then n response
//     packets (RDATST_READ_PKT, hca_ack_send with the payload read from
//     iova + k * PMTU): FIRST/MIDDLE/LAST or ONLY, AETH on the first and
//     last.  A payload read fault stops them: NAK remote operational error
//     at the PSN of the response that could not be built, the resource
//     freed.
//   RDAT_ATOMIC: RDATST_ATOMIC_READ reads the 8 bytes (little-endian, as
//     rxe) at iova (fault: NAK remote operational error), CMP_SWP swaps when
//     they equal the compare operand, FETCH_ADD adds; the new value is
//     written back when it differs (fault: NAK remote access error); MSN + 1,
//     ePSN = psn + 1, a resource saves the original value and the MSN, and
//     the atomic ACK carries them (RDATST_ATOMIC_ACK).
//   RDAT_DUP: RDATST_DUP_FIND/RDATST_DUP_CHECK search the resources in
//     index order: the READ whose PSN range holds the request's PSN is
//     replayed from that PSN with the request's RETH (rkey checked again;
//     a request that does not fit what was granted, a bad rkey or a read
//     fault: silently dropped), an atomic with the request's PSN gets its
//     saved ACK again (never executed twice); no resource: dropped.
// The resource table u_res (HCA_CAP_MAX_RD_ATOMIC entries per QP, RES_*
// layout) is written and read here only; which entries are in use
// (RXS_RES_V) and the next one to take (RXS_RES_NEXT, modulo
// max_dest_rd_atomic) are in the QP's RXS word, so a QP reset frees them.
// Caller: hca_resp.  Calls: hca_ack_send, hca_mr_check.
module hca_read_atomic #(
    parameter int LOG_MAX_QP = 8,
    localparam int NRES = `HCA_CAP_MAX_RD_ATOMIC,
    localparam int LR   = $clog2(NRES)
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        ce,
    input  logic        srst,
    input  logic        req,
    input  logic [1:0]  kind,            // RDAT_*
    input  logic [63:0] iova,            // new READ/atomic: the RETH/AtomicETH VA, translated
    output logic        done,
    output logic [7:0]  nak,             // with done: NAK code to send, 0 none
    output logic [23:0] nak_psn,
    output logic        dbg_act,
    output logic [7:0]  dbg_st,
    // the item (hca_dispatch, hca_qpc_view)
    input  logic [LOG_MAX_QP-1:0] qn,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic [`RXS_W-1:0] rxs,       // MSN, resources
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [31:0] pdn,
    input  logic [31:0] pmtu,
    input  logic [11:0] pmtu_log,
    input  logic [7:0]  max_dest_rd_atomic,
    output logic [`RXS_W-1:0] rxs_wm,
    output logic [`RXS_W-1:0] rxs_wv,
    // the request packet (hca_rx_parse)
    input  logic [7:0]  p_opcode,
    input  logic [23:0] p_psn,
    input  logic [63:0] p_reth_va,       // also the AtomicETH VA and R_Key
    input  logic [31:0] p_reth_rkey,
    input  logic [31:0] p_reth_len,
    input  logic [63:0] p_atm_swap_add,
    input  logic [63:0] p_atm_compare,
    // hca_ack_send: READ responses, atomic ACKs
    output logic        ak_req,
    output logic [7:0]  ak_opcode,
    output logic [23:0] ak_psn,
    output logic [23:0] ak_msn,
    output logic [63:0] ak_orig,
    output logic [63:0] ak_pay_iova,
    output logic [15:0] ak_pay_len,
    input  logic        ak_done,
    input  logic        ak_pay_fault,
    // hca_mr_check: the rkey of a duplicate READ
    output logic        mr_req,
    output logic [31:0] mr_key,
    output logic [31:0] mr_pdn,
    output logic [15:0] mr_acc,
    output logic [63:0] mr_va,
    output logic [63:0] mr_len,
    input  logic        mr_done,
    input  logic [7:0]  mr_verr,
    input  logic [63:0] mr_iova,
    // hca_dma_rd: the atomic's 8 bytes (a fetch into no buffer, FSEL_WORD)
    output logic        d_f_start,
    output logic [63:0] d_f_addr,
    output logic [15:0] d_f_len,
    input  logic        d_f_done,
    input  logic        d_f_err,
    input  logic [63:0] f_word,
    // hca_dma_wr: the atomic's result
    output logic        d_w_start,
    output logic [63:0] d_w_addr,
    output logic [15:0] d_w_len,
    output logic [511:0] d_w_small,
    input  logic        d_w_done,
    input  logic        d_w_err,
    // hca_regs
    output logic [`HCA_STAT_COUNT-1:0] s_stat,
    output logic        s_fault,
    output logic [7:0]  s_fault_client,
    output logic        s_fault_wr,
    output logic [63:0] s_fault_iova
);
  `include "hca_funcs.vh"

  typedef enum logic [4:0] {
    RDATST_IDLE, RDATST_START,
    // a new READ (rc_read, read_responses)
    RDATST_READ_ALLOC, RDATST_READ_PKT, RDATST_WAIT_READ_RESP, RDATST_READ_RESP_DONE,
    // a new atomic (rc_atomic)
    RDATST_ATOMIC_READ, RDATST_WAIT_ATOMIC_READ, RDATST_WAIT_ATOMIC_WRITE, RDATST_ATOMIC_ACK,
    // a duplicate (rc_duplicate)
    RDATST_DUP_FIND, RDATST_DUP_READ_RES, RDATST_DUP_CHECK, RDATST_WAIT_DUP_RKEY, RDATST_DUP_RKEY_RESULT,
    // the last step: an atomic ACK
    RDATST_WAIT_ACK_END
  } st_t;
  st_t state_q, state;
  always_comb begin
    state = state_q;
    case (state_q)
      RDATST_IDLE:           if (req) state = RDATST_START;
      RDATST_WAIT_READ_RESP: if (ak_done) state = RDATST_READ_RESP_DONE;
      RDATST_WAIT_DUP_RKEY:  if (mr_done) state = RDATST_DUP_RKEY_RESULT;
      RDATST_WAIT_ACK_END:   if (ak_done) state = RDATST_IDLE;
      default: ;
    endcase
  end
  assign ak_req  = state == RDATST_WAIT_READ_RESP || state == RDATST_WAIT_ACK_END;
  assign mr_req  = state == RDATST_WAIT_DUP_RKEY;
  assign dbg_act = state != RDATST_IDLE && !ak_req && !mr_req;
  assign dbg_st  = 8'(state);

  logic done_q;
  assign done = done_q || (state_q == RDATST_WAIT_ACK_END && ak_done);

  // responder state (RXS)
  logic [23:0]   r_msn;
  logic [NRES-1:0] r_res_v;
  logic [LR-1:0] r_res_next;
  assign r_msn      = rxs[`RXS_MSN_O +: 24];
  assign r_res_v    = rxs[`RXS_RES_V_O +: NRES];
  assign r_res_next = rxs[`RXS_RES_NEXT_O +: LR];

  // The resource the next allocation takes and the one after it
  // (model/resp.c res_alloc: modulo min(max_dest_rd_atomic, NRES)).
  logic [LR-1:0] res_slot, res_after;
  always_comb begin : alloc
    logic [LR:0] n;
    n = (max_dest_rd_atomic > 8'(NRES)) ? (LR+1)'(NRES) : max_dest_rd_atomic[LR:0];
    res_slot  = ({1'b0, r_res_next} >= n) ? '0 : r_res_next;
    res_after = ({1'b0, res_slot} + 1'b1 == n) ? '0 : res_slot + 1'b1;
  end

  // packets of a READ of len bytes: at least one
  function automatic [23:0] npkts(input [31:0] len);
    /* verilator lint_off UNUSEDSIGNAL */
    logic [32:0] t;                      // at most 2^31 bytes: fewer than 2^24 packets
    /* verilator lint_on UNUSEDSIGNAL */
    t = ({1'b0, len} + {1'b0, pmtu} - 33'd1) >> pmtu_log;
    npkts = (len == 32'h0) ? 24'd1 : t[23:0];
  endfunction

  // the resource table
  logic               res_we, res_re;
  logic [LOG_MAX_QP+LR-1:0] res_waddr, res_raddr;
  logic [`RES_W-1:0]  res_wdata;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [`RES_W-1:0]  res_rdata;         // the padding bits
  /* verilator lint_on UNUSEDSIGNAL */
  hca_ram_sdp #(.W(`RES_W), .DEPTH((1 << LOG_MAX_QP) * NRES)) u_res (
      .clk(clk), .wr_en(res_we && ce), .wr_addr(res_waddr), .wr_data(res_wdata), .wr_be('1),
      .rd_en(res_re && ce), .rd_addr(res_raddr), .rd_data(res_rdata));
  logic [LR:0] di;                       // duplicate search: the entry
  assign res_re    = state == RDATST_DUP_READ_RES;
  assign res_raddr = {qn, di[LR-1:0]};

  // the READ responses in progress
  logic          rd_replay;
  logic [23:0]   rd_psn0, rd_n, rd_k;
  logic [63:0]   rd_iova;
  logic [31:0]   rd_len, rd_off;
  logic [LR-1:0] rd_slot;
  logic [63:0]   orig, val;

  always_comb begin : atomic_op
    if (p_opcode == 8'(`HCA_BTH_OP_RC_COMPARE_SWAP))
      val = (f_word == p_atm_compare) ? p_atm_swap_add : f_word;
    else
      val = f_word + p_atm_swap_add;
  end

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state_q <= RDATST_IDLE; done_q <= 1'b0; nak <= '0; nak_psn <= '0; rxs_wm <= '0; rxs_wv <= '0;
      ak_opcode <= '0; ak_psn <= '0; ak_msn <= '0; ak_orig <= '0; ak_pay_iova <= '0; ak_pay_len <= '0;
      mr_key <= '0; mr_pdn <= '0; mr_acc <= '0; mr_va <= '0; mr_len <= '0;
      d_f_start <= 1'b0; d_f_addr <= '0; d_f_len <= '0;
      d_w_start <= 1'b0; d_w_addr <= '0; d_w_len <= '0; d_w_small <= '0;
      s_stat <= '0; s_fault <= 1'b0; s_fault_client <= '0; s_fault_wr <= 1'b0; s_fault_iova <= '0;
      res_we <= 1'b0; res_waddr <= '0; res_wdata <= '0; di <= '0;
      rd_replay <= 1'b0; rd_psn0 <= '0; rd_n <= '0; rd_k <= '0; rd_iova <= '0; rd_len <= '0; rd_off <= '0;
      rd_slot <= '0; orig <= '0;
    end else if (srst) begin
      state_q <= RDATST_IDLE; done_q <= 1'b0; rxs_wm <= '0; rxs_wv <= '0; d_f_start <= 1'b0; d_w_start <= 1'b0;
      s_stat <= '0; s_fault <= 1'b0; res_we <= 1'b0;
    end else if (ce) begin
      done_q <= 1'b0; rxs_wm <= '0; rxs_wv <= '0; d_f_start <= 1'b0; d_w_start <= 1'b0;
      s_stat <= '0; s_fault <= 1'b0; res_we <= 1'b0;
      state_q <= state;
      case (state)
        RDATST_START: begin
          nak <= '0; nak_psn <= p_psn;
          case (kind)
            `RDAT_READ:   state_q <= RDATST_READ_ALLOC;
            `RDAT_ATOMIC: state_q <= RDATST_ATOMIC_READ;
            default: begin
              di <= '0;
              state_q <= RDATST_DUP_FIND;
            end
          endcase
        end

        // ---- a new READ: resource, MSN, ePSN, then the responses
        RDATST_READ_ALLOC: begin : ralloc
          logic [23:0] n;
          n = npkts(p_reth_len);
          res_we    <= 1'b1;
          res_waddr <= {qn, res_slot};
          res_wdata <= '0;
          res_wdata[`RES_FPSN_O +: 24] <= p_psn;
          res_wdata[`RES_LPSN_O +: 24] <= p_psn + n - 24'd1;
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_RES_V_O, NRES, r_res_v | (NRES'(1) << res_slot))
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_RES_NEXT_O, LR, res_after)
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSN_O, 24, r_msn + 24'd1)
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_EPSN_O, 24, p_psn + n)
          rd_slot <= res_slot; rd_replay <= 1'b0;
          rd_psn0 <= p_psn; rd_n <= n; rd_k <= '0; rd_iova <= iova; rd_len <= p_reth_len; rd_off <= '0;
          state_q <= RDATST_READ_PKT;
        end
        RDATST_READ_PKT: begin : rpkt
          logic [31:0] rem;
          rem = rd_len - rd_off;
          ak_psn      <= rd_psn0 + rd_k;
          ak_msn      <= r_msn;
          ak_orig     <= '0;
          ak_pay_iova <= rd_iova + {32'b0, rd_off};
          ak_pay_len  <= `HCA_BUG(read_len, ((rem > pmtu) ? pmtu[15:0] : rem[15:0]),
                                  ((rem > pmtu) ? pmtu[15:0] : rem[15:0]) ^ 16'h0004);
          if (rd_n == 24'd1)                    ak_opcode <= 8'(`HCA_BTH_OP_RC_RDMA_READ_RESPONSE_ONLY);
          else if (rd_k == 24'd0)               ak_opcode <= 8'(`HCA_BTH_OP_RC_RDMA_READ_RESPONSE_FIRST);
          else if (rd_k + 24'd1 == rd_n)        ak_opcode <= 8'(`HCA_BTH_OP_RC_RDMA_READ_RESPONSE_LAST);
          else                                  ak_opcode <= 8'(`HCA_BTH_OP_RC_RDMA_READ_RESPONSE_MIDDLE);
          state_q <= RDATST_WAIT_READ_RESP;
        end
        RDATST_READ_RESP_DONE:
          if (ak_pay_fault) begin
            s_fault <= 1'b1; s_fault_client <= 8'(`HCA_DMA_CLIENT_PAYLOAD); s_fault_wr <= 1'b0;
            s_fault_iova <= ak_pay_iova;
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            if (!rd_replay) begin
              // a new READ: NAK remote operational error at this response's PSN
              nak <= 8'(`HCA_AETH_NAK_REMOTE_OP_ERR); nak_psn <= ak_psn;
              `HCA_WSET(rxs_wm, rxs_wv, `RXS_RES_V_O, NRES, r_res_v & ~(NRES'(1) << rd_slot))
            end
            done_q <= 1'b1; state_q <= RDATST_IDLE;
          end else if (rd_k + 24'd1 == rd_n) begin
            done_q <= 1'b1; state_q <= RDATST_IDLE;
          end else begin
            rd_k    <= rd_k + 24'd1;
            rd_off  <= rd_off + pmtu;
            state_q <= RDATST_READ_PKT;
          end

        // ---- a new atomic: read, operate, write back, resource, ACK
        RDATST_ATOMIC_READ: begin
          d_f_start <= 1'b1; d_f_addr <= iova; d_f_len <= 16'd8;
          state_q <= RDATST_WAIT_ATOMIC_READ;
        end
        RDATST_WAIT_ATOMIC_READ: if (d_f_done) begin
          if (d_f_err) begin
            s_fault <= 1'b1; s_fault_client <= 8'(`HCA_DMA_CLIENT_PAYLOAD); s_fault_wr <= 1'b0;
            s_fault_iova <= iova;
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            nak <= 8'(`HCA_AETH_NAK_REMOTE_OP_ERR);
            done_q <= 1'b1; state_q <= RDATST_IDLE;
          end else begin
            orig <= f_word;
            if (val != f_word) begin
              d_w_start <= 1'b1; d_w_addr <= iova; d_w_len <= 16'd8; d_w_small <= {448'b0, val};
              state_q <= RDATST_WAIT_ATOMIC_WRITE;
            end else
              state_q <= RDATST_ATOMIC_ACK;
          end
        end
        RDATST_WAIT_ATOMIC_WRITE: if (d_w_done) begin
          if (d_w_err) begin
            s_fault <= 1'b1; s_fault_client <= 8'(`HCA_DMA_CLIENT_PAYLOAD); s_fault_wr <= 1'b1;
            s_fault_iova <= iova;
            s_stat[`HCA_STAT_DMA_FAULT] <= 1'b1;
            nak <= 8'(`HCA_AETH_NAK_REMOTE_ACCESS_ERR);
            done_q <= 1'b1; state_q <= RDATST_IDLE;
          end else
            state_q <= RDATST_ATOMIC_ACK;
        end
        RDATST_ATOMIC_ACK: begin
          res_we    <= 1'b1;
          res_waddr <= {qn, res_slot};
          res_wdata <= '0;
          res_wdata[`RES_ATOMIC_O]     <= 1'b1;
          res_wdata[`RES_FPSN_O +: 24] <= p_psn;
          res_wdata[`RES_LPSN_O +: 24] <= p_psn;
          res_wdata[`RES_ORIG_O +: 64] <= orig;
          res_wdata[`RES_MSN_O +: 24]  <= r_msn + 24'd1;
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_RES_V_O, NRES, r_res_v | (NRES'(1) << res_slot))
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_RES_NEXT_O, LR, res_after)
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_MSN_O, 24, r_msn + 24'd1)
          `HCA_WSET(rxs_wm, rxs_wv, `RXS_EPSN_O, 24, p_psn + 24'd1)
          ak_opcode <= 8'(`HCA_BTH_OP_RC_ATOMIC_ACKNOWLEDGE);
          ak_psn    <= p_psn;
          ak_msn    <= r_msn + 24'd1;
          ak_orig   <= `HCA_BUG(atomic_orig, orig, orig ^ 64'h1);
          ak_pay_iova <= '0; ak_pay_len <= '0;
          state_q   <= RDATST_WAIT_ACK_END;
        end

        // ---- a duplicate: the first resource that holds it, in index order
        RDATST_DUP_FIND:
          if (di == (LR+1)'(NRES)) begin
            done_q <= 1'b1; state_q <= RDATST_IDLE;       // no resource left: dropped
          end else if (!r_res_v[di[LR-1:0]])
            di <= di + 1'b1;
          else
            state_q <= RDATST_DUP_READ_RES;
        RDATST_DUP_READ_RES: state_q <= RDATST_DUP_CHECK;  // the table read
        RDATST_DUP_CHECK: begin : dchk
          logic [23:0] f, l;
          f = res_rdata[`RES_FPSN_O +: 24];
          l = res_rdata[`RES_LPSN_O +: 24];
          if (p_opcode == 8'(`HCA_BTH_OP_RC_RDMA_READ_REQUEST)) begin
            if (!res_rdata[`RES_ATOMIC_O] && !psn_lt(p_psn, f) && !psn_lt(l, p_psn)) begin
              if ({1'b0, p_reth_len} > 33'(`HCA_CAP_MAX_MSG_SZ) || psn_lt(l, p_psn + npkts(p_reth_len) - 24'd1)) begin
                done_q <= 1'b1; state_q <= RDATST_IDLE;     // not what was granted: dropped
              end else begin
                mr_key <= p_reth_rkey; mr_pdn <= pdn; mr_acc <= 16'(`HCA_ACCESS_REMOTE_READ);
                mr_va  <= p_reth_va; mr_len <= {32'b0, p_reth_len};
                state_q <= RDATST_WAIT_DUP_RKEY;
              end
            end else begin
              di <= di + 1'b1;
              state_q <= RDATST_DUP_FIND;
            end
          end else if (res_rdata[`RES_ATOMIC_O] && f == p_psn) begin
            // the saved ACK again: the atomic is not executed twice
            ak_opcode <= 8'(`HCA_BTH_OP_RC_ATOMIC_ACKNOWLEDGE);
            ak_psn    <= p_psn;
            ak_msn    <= res_rdata[`RES_MSN_O +: 24];
            ak_orig   <= `HCA_BUG(atomic_orig, res_rdata[`RES_ORIG_O +: 64], res_rdata[`RES_ORIG_O +: 64] ^ 64'h1);
            ak_pay_iova <= '0; ak_pay_len <= '0;
            state_q   <= RDATST_WAIT_ACK_END;
          end else begin
            di <= di + 1'b1;
            state_q <= RDATST_DUP_FIND;
          end
        end
        RDATST_DUP_RKEY_RESULT:
          if (mr_verr != 8'h0) begin
            done_q <= 1'b1; state_q <= RDATST_IDLE;         // dropped
          end else begin
            rd_replay <= 1'b1;
            rd_psn0 <= p_psn; rd_n <= npkts(p_reth_len); rd_k <= '0; rd_iova <= mr_iova; rd_len <= p_reth_len;
            rd_off  <= '0;
            state_q <= RDATST_READ_PKT;
          end
        default: ;
      endcase
    end
  end
endmodule
