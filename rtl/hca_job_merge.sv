`include "hca_defs.vh"

// The jobs' outputs merged (hca_transport's jobs, one work item at a time):
// the item-word writes (mask + value, OR-ed: one writer at a time), the
// timer arming, the hca_ctx / hca_regs strobes and the datapath commands
// (hca_dma_rd, hca_dma_wr, the outstanding-WQE table's read port), each
// AND-OR-ed by its strobe.  Combinational; split out of hca_transport
// (issue 12: room for a second lane).  A merge here assumes one writer per
// cycle: a second lane's jobs would need their own item-word merge and an
// arbiter for the shared ports.
module hca_job_merge #(
    parameter int LOG_MAX_QP = 8,
    parameter int LOG_OUTS   = 5,
    parameter int RXA        = 12,         // receive buffer byte address bits
    localparam int OWA = LOG_MAX_QP + LOG_OUTS,
    localparam int SW  = `HCA_STAT_COUNT
) (
    input  logic ack_g_close, ack_g_push, comp_busy_set, comp_ow_re, comp_tm_set, cqp_evt, cqp_fault, cqp_fault_wr,
                 cqp_w_start, crd_f_start, crd_fault, crd_fault_wr, crd_ow_re, crd_w_rxbuf, crd_w_start, cs_busy_set,
                 disp_deliver, eqp_fault, eqp_fault_wr, eqp_fire, eqp_w_start, qe_busy_set, qe_evt_v, qe_qp_set,
                 rda_f_start, rda_fault, rda_fault_wr, rda_w_start, recv_busy_set, recv_evt, req_busy_set, req_evt,
                 req_f_start, req_fault, req_fault_wr, req_g_close, req_g_push, req_ow_re, req_tm_set, resp_fault,
                 resp_fault_wr, resp_w_start, rt_busy_set, rt_ow_re, rt_qp_set, ry_busy_set, ry_ow_re, ry_qp_set,
                 ry_tm_set, scat_evt, scat_f_start, scat_fault, scat_fault_wr, scat_w_rxbuf, scat_w_start,
                 stat_tx_frame, tmr_busy_set, tmr_ow_re, tmr_tm_set,
    input  logic [15:0] ack_g_dst, ack_g_len, cqp_w_len, crd_f_len, crd_w_len, eqp_w_len, rda_f_len, rda_w_len,
                        req_f_len, req_g_dst, req_g_len, resp_w_len, scat_f_len, scat_w_len,
    input  logic [63:0] ack_g_iova, cqp_fault_iova, cqp_w_addr, crd_f_addr, crd_fault_iova, crd_w_addr,
                        eqp_fault_iova, eqp_w_addr, rda_f_addr, rda_fault_iova, rda_w_addr, req_f_addr,
                        req_fault_iova, req_g_iova, resp_fault_iova, resp_w_addr, scat_f_addr, scat_fault_iova,
                        scat_w_addr,
    input  logic [SW-1:0] ack_stat, cqp_stat, crd_stat, eqp_stat, rda_stat, recv_stat, req_stat, resp_stat, ry_stat,
                          scat_stat,
    input  logic [OWA-1:0] comp_ow_raddr, crd_ow_raddr, req_ow_raddr, rt_ow_raddr, ry_ow_raddr, tmr_ow_raddr,
    input  logic [1:0] comp_tm_kind, req_tm_kind, ry_tm_kind, tmr_tm_kind,
    input  logic [`TXS_W-1:0] comp_txs_wm, comp_txs_wv, crd_txs_wm, crd_txs_wv, cs_txs_wm, cs_txs_wv, fl_txs_wm,
                              fl_txs_wv, qe_txs_wm, qe_txs_wv, req_txs_wm, req_txs_wv, rt_txs_wm, rt_txs_wv,
                              ry_txs_wm, ry_txs_wv, tmr_txs_wm, tmr_txs_wv,
    input  logic [31:0] cqp_evt_elem, qe_evt_elem, recv_evt_elem, req_evt_elem, scat_evt_elem,
    input  logic [7:0] cqp_evt_type, cqp_fault_client, crd_fault_client, eqp_fault_client, qe_evt_type,
                       rda_fault_client, recv_evt_type, req_evt_type, req_fault_client, resp_fault_client,
                       scat_evt_type, scat_fault_client,
    input  logic [511:0] cqp_w_small, crd_w_small, eqp_w_small, rda_w_small, scat_w_small,
    input  logic [`RXS_W-1:0] cr_rxs_wm, cr_rxs_wv, fl_rxs_wm, fl_rxs_wv, rda_rxs_wm, rda_rxs_wv, recv_rxs_wm,
                              recv_rxs_wv, resp_rxs_wm, resp_rxs_wv, scat_rxs_wm, scat_rxs_wv,
    input  logic [RXA-1:0] crd_w_off, resp_w_off, scat_w_off,
    input  logic [4:0] disp_vec, eqp_vec, req_g_idx,
    input  logic [2:0] qe_qp_val, qe_st_wm, qe_st_wv, rt_qp_val, rt_st_wm, rt_st_wv, ry_qp_val,
    input  logic [LOG_MAX_QP-1:0] recv_qn_wm, recv_qn_wv,
    output logic [LOG_MAX_QP-1:0] qn_wm, qn_wv,
    output logic [`TXS_W-1:0] txs_wm, txs_wv,
    output logic [`RXS_W-1:0] rxs_wm, rxs_wv,
    output logic [2:0] st_wm, st_wv, e_qp_state_val,
    output logic tm_set, e_busy_set, e_qp_set_state, e_evt_valid, f_valid, f_write, x_fire, x_deliver, d_f_start,
                 d_w_start, d_w_rxbuf, ow_re, d_g_push, d_g_close,
    output logic [1:0] tm_kind, d_f_sel,
    output logic [7:0] e_evt_type, f_client,
    output logic [31:0] e_evt_elem,
    output logic [SW-1:0] s_stat,
    output logic [`HCA_STAT_COUNT-1:0] stat_inc,
    output logic [63:0] f_iova, d_f_addr, d_w_addr, d_g_iova,
    output logic [4:0] x_vec, d_g_idx,
    output logic [15:0] d_f_len, d_w_len, d_g_len, d_g_dst,
    output logic [RXA-1:0] d_w_off,
    output logic [511:0] d_w_small,
    output logic [OWA-1:0] ow_raddr
);
  assign qn_wm  = recv_qn_wm;
  assign qn_wv  = recv_qn_wv;
  assign txs_wm = req_txs_wm | comp_txs_wm | rt_txs_wm | cs_txs_wm | fl_txs_wm | qe_txs_wm | crd_txs_wm | ry_txs_wm |
                  tmr_txs_wm;
  assign txs_wv = req_txs_wv | comp_txs_wv | rt_txs_wv | cs_txs_wv | fl_txs_wv | qe_txs_wv | crd_txs_wv | ry_txs_wv |
                  tmr_txs_wv;
  assign rxs_wm = recv_rxs_wm | resp_rxs_wm | scat_rxs_wm | cr_rxs_wm | fl_rxs_wm | rda_rxs_wm;
  assign rxs_wv = recv_rxs_wv | resp_rxs_wv | scat_rxs_wv | cr_rxs_wv | fl_rxs_wv | rda_rxs_wv;
  assign st_wm  = rt_st_wm | qe_st_wm;
  assign st_wv  = rt_st_wv | qe_st_wv;

  // timer arming (one job at a time): hca_timers
  assign tm_set    = req_tm_set | comp_tm_set | ry_tm_set | tmr_tm_set;
  assign tm_kind   = (req_tm_set ? req_tm_kind : 2'd0) | (comp_tm_set ? comp_tm_kind : 2'd0) |
                     (ry_tm_set ? ry_tm_kind : 2'd0) | (tmr_tm_set ? tmr_tm_kind : 2'd0);

  // hca_ctx and hca_regs strobes, selected by the strobe
  assign e_busy_set     = req_busy_set | recv_busy_set | comp_busy_set | rt_busy_set | cs_busy_set | qe_busy_set |
                          ry_busy_set | tmr_busy_set;
  assign e_qp_set_state = rt_qp_set | qe_qp_set | ry_qp_set;
  assign e_qp_state_val = (rt_qp_set ? rt_qp_val : 3'd0) | (qe_qp_set ? qe_qp_val : 3'd0) |
                          (ry_qp_set ? ry_qp_val : 3'd0);
  assign e_evt_valid = req_evt | recv_evt | scat_evt | cqp_evt | qe_evt_v;
  assign e_evt_type  = (req_evt ? req_evt_type : 8'd0) | (recv_evt ? recv_evt_type : 8'd0) |
                       (scat_evt ? scat_evt_type : 8'd0) | (cqp_evt ? cqp_evt_type : 8'd0) |
                       (qe_evt_v ? qe_evt_type : 8'd0);
  assign e_evt_elem  = (req_evt ? req_evt_elem : 32'd0) | (recv_evt ? recv_evt_elem : 32'd0) |
                       (scat_evt ? scat_evt_elem : 32'd0) | (cqp_evt ? cqp_evt_elem : 32'd0) |
                       (qe_evt_v ? qe_evt_elem : 32'd0);
  assign s_stat   = req_stat | recv_stat | resp_stat | scat_stat | cqp_stat | eqp_stat | ack_stat | rda_stat | crd_stat |
                    ry_stat;
  // frames transmitted are counted when the framer accepts them
  assign stat_inc = s_stat | (stat_tx_frame ? (SW'(1) << `HCA_STAT_TX_FRAMES) : '0);
  assign f_valid  = req_fault | resp_fault | scat_fault | cqp_fault | eqp_fault | rda_fault | crd_fault;
  assign f_client = (req_fault ? req_fault_client : 8'd0) | (resp_fault ? resp_fault_client : 8'd0) |
                    (scat_fault ? scat_fault_client : 8'd0) | (cqp_fault ? cqp_fault_client : 8'd0) |
                    (eqp_fault ? eqp_fault_client : 8'd0) | (rda_fault ? rda_fault_client : 8'd0) |
                    (crd_fault ? crd_fault_client : 8'd0);
  assign f_write  = (req_fault & req_fault_wr) | (resp_fault & resp_fault_wr) | (scat_fault & scat_fault_wr) |
                    (cqp_fault & cqp_fault_wr) | (eqp_fault & eqp_fault_wr) | (rda_fault & rda_fault_wr) |
                    (crd_fault & crd_fault_wr);
  assign f_iova   = (req_fault ? req_fault_iova : 64'd0) | (resp_fault ? resp_fault_iova : 64'd0) |
                    (scat_fault ? scat_fault_iova : 64'd0) | (cqp_fault ? cqp_fault_iova : 64'd0) |
                    (eqp_fault ? eqp_fault_iova : 64'd0) | (rda_fault ? rda_fault_iova : 64'd0) |
                    (crd_fault ? crd_fault_iova : 64'd0);
  assign x_fire    = eqp_fire;
  assign x_deliver = disp_deliver;
  assign x_vec     = (eqp_fire ? eqp_vec : 5'd0) | (disp_deliver ? disp_vec : 5'd0);

  // datapath commands, selected by the start strobe
  assign d_f_start = req_f_start | scat_f_start | rda_f_start | crd_f_start;
  assign d_f_sel   = scat_f_start ? `FSEL_RECV : rda_f_start ? `FSEL_WORD : crd_f_start ? `FSEL_READ : `FSEL_SEND;
  assign d_f_addr  = (req_f_start ? req_f_addr : 64'd0) | (scat_f_start ? scat_f_addr : 64'd0) |
                     (rda_f_start ? rda_f_addr : 64'd0) | (crd_f_start ? crd_f_addr : 64'd0);
  assign d_f_len   = (req_f_start ? req_f_len : 16'd0) | (scat_f_start ? scat_f_len : 16'd0) |
                     (rda_f_start ? rda_f_len : 16'd0) | (crd_f_start ? crd_f_len : 16'd0);
  assign d_w_start = resp_w_start | scat_w_start | cqp_w_start | eqp_w_start | rda_w_start | crd_w_start;
  assign d_w_addr  = (resp_w_start ? resp_w_addr : 64'd0) | (scat_w_start ? scat_w_addr : 64'd0) |
                     (cqp_w_start ? cqp_w_addr : 64'd0) | (eqp_w_start ? eqp_w_addr : 64'd0) |
                     (rda_w_start ? rda_w_addr : 64'd0) | (crd_w_start ? crd_w_addr : 64'd0);
  assign d_w_len   = (resp_w_start ? resp_w_len : 16'd0) | (scat_w_start ? scat_w_len : 16'd0) |
                     (cqp_w_start ? cqp_w_len : 16'd0) | (eqp_w_start ? eqp_w_len : 16'd0) |
                     (rda_w_start ? rda_w_len : 16'd0) | (crd_w_start ? crd_w_len : 16'd0);
  assign d_w_rxbuf = resp_w_start | (scat_w_start & scat_w_rxbuf) | (crd_w_start & crd_w_rxbuf);  // else d_w_small
  assign d_w_off   = (resp_w_start ? resp_w_off : '0) | (scat_w_start ? scat_w_off : '0) |
                     (crd_w_start ? crd_w_off : '0);
  // The same AND-OR, written procedurally: a Verilated `c ? x : 0` of a
  // 512-bit word selects all 16 words of every operand on every evaluation
  // (and this merge sits in the input region, evaluated two to three times
  // a cycle: docs/sim.md 9.1); here a cycle without a start only clears it.
  always_comb begin : small_merge
    d_w_small = '0;
    if (scat_w_start) d_w_small = d_w_small | scat_w_small;
    if (cqp_w_start)  d_w_small = d_w_small | cqp_w_small;
    if (eqp_w_start)  d_w_small = d_w_small | eqp_w_small;
    if (rda_w_start)  d_w_small = d_w_small | rda_w_small;
    if (crd_w_start)  d_w_small = d_w_small | crd_w_small;
  end
  assign ow_re    = req_ow_re | rt_ow_re | comp_ow_re | crd_ow_re | ry_ow_re | tmr_ow_re;
  assign ow_raddr = (req_ow_re ? req_ow_raddr : '0) | (rt_ow_re ? rt_ow_raddr : '0) |
                    (comp_ow_re ? comp_ow_raddr : '0) | (crd_ow_re ? crd_ow_raddr : '0) |
                    (ry_ow_re ? ry_ow_raddr : '0) | (tmr_ow_re ? tmr_ow_raddr : '0);
  // payload reads: the requester's gather pieces, or a READ response's payload
  assign d_g_push  = req_g_push | ack_g_push;
  assign d_g_close = req_g_close | ack_g_close;
  assign d_g_iova  = (req_g_push ? req_g_iova : 64'd0) | (ack_g_push ? ack_g_iova : 64'd0);
  assign d_g_len   = (req_g_push ? req_g_len : 16'd0) | (ack_g_push ? ack_g_len : 16'd0);
  assign d_g_dst   = (req_g_push ? req_g_dst : 16'd0) | (ack_g_push ? ack_g_dst : 16'd0);
  assign d_g_idx   = req_g_push ? req_g_idx : 5'd0;
endmodule
