`include "hca_defs.vh"

// The shared callees' grants (split out of hca_transport, same cycles): one
// hca_call_arb per callee with several callers (hca_eq_post, hca_cq_post,
// hca_qp_err, hca_mr_check, hca_complete_send, hca_comp_retire,
// hca_comp_retry).  The callee sees the granted caller's request and
// arguments, `done` goes back to that caller only (*_dn, in the callers'
// order below; docs/rtl.md "Handshakes").  While an ended ACK item's CQE
// write is pending (hca_comp_posted's hold, po_hold), hca_eq_post,
// hca_cq_post and hca_qp_err serve nobody else (hca_cq_post only a posted
// CQE of hca_comp's that joins the batch, docs/rtl.md "CQE batches"): a
// step of another QP that calls them waits there (`parked`) until the
// outcome is applied (docs/rtl.md "Posted CQE writes").  Connected by name
// (.*) in hca_transport: the ports are the callers' <job>_<callee>_* nets.
module hca_call_grants (
    input  logic clk,
    input  logic rst_n,
    input  logic ce,
    input  logic srst,
    input  logic comp_cs_defer,
    input  logic comp_cs_force,
    input  logic [`OW_W-1:0] comp_cs_ow,
    input  logic comp_cs_req,
    input  logic [4:0] comp_cs_status,
    input  logic [7:0] comp_cs_verr,
    input  logic [7:0] comp_qe_evt,
    input  logic comp_qe_has,
    input  logic comp_qe_req,
    input  logic comp_rt_req,
    input  logic [4:0] comp_ry_code,
    input  logic [1:0] comp_ry_kind,
    input  logic [23:0] comp_ry_psn,
    input  logic comp_ry_req,
    output logic [255:0] cqp_cqe,
    output logic [31:0] cqp_cqn,
    output logic [2:0] cqp_dn,
    input  logic cqp_done,
    input  logic [79:0] cqp_eqp_eqe,
    input  logic [31:0] cqp_eqp_eqn,
    input  logic [1:0] cqp_eqp_kind,
    input  logic cqp_eqp_req,
    output logic cqp_post,
    output logic cqp_req,
    output logic cqp_sol,
    input  logic [255:0] cr_cqp_cqe,
    input  logic [31:0] cr_cqp_cqn,
    input  logic cr_cqp_req,
    input  logic cr_cqp_sol,
    input  logic [7:0] cr_qe_evt,
    input  logic cr_qe_has,
    input  logic cr_qe_req,
    input  logic crd_cs_force,
    input  logic [`OW_W-1:0] crd_cs_ow,
    input  logic crd_cs_req,
    input  logic [4:0] crd_cs_status,
    input  logic [7:0] crd_cs_verr,
    input  logic [15:0] crd_mr_acc,
    input  logic [31:0] crd_mr_key,
    input  logic [63:0] crd_mr_len,
    input  logic [31:0] crd_mr_pdn,
    input  logic crd_mr_req,
    input  logic [63:0] crd_mr_va,
    input  logic [7:0] crd_qe_evt,
    input  logic crd_qe_has,
    input  logic crd_qe_req,
    input  logic [255:0] cs_cqp_cqe,
    input  logic [31:0] cs_cqp_cqn,
    input  logic cs_cqp_post,
    input  logic cs_cqp_req,
    input  logic cs_cqp_sol,
    output logic cs_defer,
    output logic [4:0] cs_dn,
    input  logic cs_done,
    output logic cs_force,
    output logic [`OW_W-1:0] cs_ow,
    input  logic [7:0] cs_qe_evt,
    input  logic cs_qe_has,
    input  logic cs_qe_req,
    output logic cs_req,
    output logic [4:0] cs_status,
    output logic [7:0] cs_verr,
    input  logic [79:0] disp_eqp_eqe,
    input  logic [31:0] disp_eqp_eqn,
    input  logic [1:0] disp_eqp_kind,
    input  logic disp_eqp_req,
    output logic [1:0] eqp_dn,
    input  logic eqp_done,
    output logic [79:0] eqp_eqe,
    output logic [31:0] eqp_eqn,
    output logic [1:0] eqp_kind,
    output logic eqp_req,
    input  logic [255:0] fl_cqp_cqe,
    input  logic [31:0] fl_cqp_cqn,
    input  logic fl_cqp_req,
    input  logic fl_cqp_sol,
    input  logic [7:0] fl_qe_evt,
    input  logic fl_qe_has,
    input  logic fl_qe_req,
    output logic [15:0] mr_acc,
    output logic [4:0] mr_dn,
    input  logic mr_done,
    output logic [31:0] mr_key,
    output logic [63:0] mr_len,
    output logic [31:0] mr_pdn,
    output logic mr_req,
    output logic [63:0] mr_va,
    output logic parked,
    input  logic po_hold,
    input  logic po_qe_req,
    output logic [9:0] qe_dn,
    input  logic qe_done,
    output logic [7:0] qe_evt,
    output logic qe_ext,
    output logic qe_has,
    output logic qe_req,
    input  logic [15:0] rda_mr_acc,
    input  logic [31:0] rda_mr_key,
    input  logic [63:0] rda_mr_len,
    input  logic [31:0] rda_mr_pdn,
    input  logic rda_mr_req,
    input  logic [63:0] rda_mr_va,
    input  logic req_cs_force,
    input  logic [`OW_W-1:0] req_cs_ow,
    input  logic req_cs_req,
    input  logic [4:0] req_cs_status,
    input  logic [7:0] req_cs_verr,
    input  logic [15:0] req_mr_acc,
    input  logic [31:0] req_mr_key,
    input  logic [63:0] req_mr_len,
    input  logic [31:0] req_mr_pdn,
    input  logic req_mr_req,
    input  logic [63:0] req_mr_va,
    input  logic [7:0] req_qe_evt,
    input  logic req_qe_has,
    input  logic req_qe_req,
    input  logic req_rt_req,
    input  logic [15:0] resp_mr_acc,
    input  logic [31:0] resp_mr_key,
    input  logic [63:0] resp_mr_len,
    input  logic [31:0] resp_mr_pdn,
    input  logic resp_mr_req,
    input  logic [63:0] resp_mr_va,
    input  logic [7:0] resp_qe_evt,
    input  logic resp_qe_has,
    input  logic resp_qe_req,
    input  logic rt_cs_force,
    input  logic [`OW_W-1:0] rt_cs_ow,
    input  logic rt_cs_req,
    input  logic [4:0] rt_cs_status,
    input  logic [7:0] rt_cs_verr,
    output logic [1:0] rt_dn,
    input  logic rt_done,
    input  logic [7:0] rt_qe_evt,
    input  logic rt_qe_has,
    input  logic rt_qe_req,
    output logic rt_req,
    input  logic rx_hold_wait,
    output logic [4:0] ry_code,
    input  logic ry_cs_force,
    input  logic [`OW_W-1:0] ry_cs_ow,
    input  logic ry_cs_req,
    input  logic [4:0] ry_cs_status,
    input  logic [7:0] ry_cs_verr,
    output logic [1:0] ry_dn,
    input  logic ry_done,
    output logic [1:0] ry_kind,
    output logic [23:0] ry_psn,
    input  logic [7:0] ry_qe_evt,
    input  logic ry_qe_has,
    input  logic ry_qe_req,
    output logic ry_req,
    input  logic [15:0] scat_mr_acc,
    input  logic [31:0] scat_mr_key,
    input  logic [63:0] scat_mr_len,
    input  logic [31:0] scat_mr_pdn,
    input  logic scat_mr_req,
    input  logic [63:0] scat_mr_va,
    input  logic [23:0] tmr_ry_psn,
    input  logic tmr_ry_req
);
  // shared callees, granted to one caller at a time (hca_call_arb): the
  // callee sees the granted caller's request and arguments, `done` goes back
  // to that caller only (*_dn, in the callers' order below)
  /* verilator lint_off UNUSEDSIGNAL */
  logic [1:0] eqp_gnt, rt_gnt, ry_gnt;
  logic [2:0] cqp_gnt;
  logic [4:0] mr_gnt, cs_gnt;
  logic [8:0] qe_gnt;
  logic rt_arg;
  /* verilator lint_on UNUSEDSIGNAL */
  // While an ended ACK item's CQE write is pending (hca_comp_posted `hold`),
  // hca_eq_post, hca_cq_post and hca_qp_err serve nobody else (hca_cq_post
  // only a posted CQE of hca_comp's that joins the batch, docs/rtl.md "CQE
  // batches"): a step of another QP that calls them waits there (parked)
  // until the outcome is applied (docs/rtl.md "Posted CQE writes").
  logic [1:0] eqp_ask;
  logic [2:0] cqp_ask;
  logic [8:0] qe_ask;
  assign eqp_ask = {cqp_eqp_req, disp_eqp_req};
  assign cqp_ask = {fl_cqp_req, cr_cqp_req, cs_cqp_req};
  assign qe_ask  = {ry_qe_req, crd_qe_req, cr_qe_req, cs_qe_req, resp_qe_req, comp_qe_req, fl_qe_req, rt_qe_req,
                    req_qe_req};
  assign parked  = po_hold && ((|eqp_ask) || (|cqp_ask) || (|qe_ask) || rx_hold_wait);
  hca_call_arb #(.N(2), .W(2 + 32 + 80)) u_eqp_arb (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req(eqp_ask & ~{2{po_hold}}),
      .arg({cqp_eqp_kind, cqp_eqp_eqn, cqp_eqp_eqe, disp_eqp_kind, disp_eqp_eqn, disp_eqp_eqe}), .done(eqp_done),
      .c_req(eqp_req), .c_arg({eqp_kind, eqp_eqn, eqp_eqe}), .gnt(eqp_gnt), .c_done(eqp_dn));
  hca_call_arb #(.N(3), .W(32 + 256 + 2)) u_cqp_arb (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req(cqp_ask & ~{{2{po_hold}}, po_hold && !cs_cqp_post}),
      .arg({fl_cqp_cqn, fl_cqp_cqe, fl_cqp_sol, 1'b0, cr_cqp_cqn, cr_cqp_cqe, cr_cqp_sol, 1'b0,
            cs_cqp_cqn, cs_cqp_cqe, cs_cqp_sol, cs_cqp_post}), .done(cqp_done),
      .c_req(cqp_req), .c_arg({cqp_cqn, cqp_cqe, cqp_sol, cqp_post}), .gnt(cqp_gnt), .c_done(cqp_dn));
  // caller 9: hca_comp_posted's QP_FATAL of a lost CQE (qe_ext: not the item's QP)
  hca_call_arb #(.N(10), .W(9)) u_qe_arb (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst),
      .req({po_qe_req, qe_ask & ~{9{po_hold}}}),
      .arg({1'b1, 8'(`HCA_EVENT_QP_FATAL), ry_qe_has, ry_qe_evt, crd_qe_has, crd_qe_evt, cr_qe_has, cr_qe_evt,
            cs_qe_has, cs_qe_evt, resp_qe_has, resp_qe_evt, comp_qe_has, comp_qe_evt, fl_qe_has, fl_qe_evt,
            rt_qe_has, rt_qe_evt, req_qe_has, req_qe_evt}), .done(qe_done),
      .c_req(qe_req), .c_arg({qe_has, qe_evt}), .gnt({qe_ext, qe_gnt}), .c_done(qe_dn));
  hca_call_arb #(.N(5), .W(32 + 32 + 16 + 64 + 64)) u_mr_arb (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req({crd_mr_req, rda_mr_req, scat_mr_req, resp_mr_req, req_mr_req}),
      .arg({crd_mr_key, crd_mr_pdn, crd_mr_acc, crd_mr_va, crd_mr_len, rda_mr_key, rda_mr_pdn, rda_mr_acc, rda_mr_va,
            rda_mr_len, scat_mr_key, scat_mr_pdn, scat_mr_acc, scat_mr_va, scat_mr_len, resp_mr_key, resp_mr_pdn,
            resp_mr_acc, resp_mr_va, resp_mr_len, req_mr_key, req_mr_pdn, req_mr_acc, req_mr_va, req_mr_len}),
      .done(mr_done), .c_req(mr_req), .c_arg({mr_key, mr_pdn, mr_acc, mr_va, mr_len}), .gnt(mr_gnt), .c_done(mr_dn));
  // `defer` (a posted CQE write) is hca_comp's only
  hca_call_arb #(.N(5), .W(`OW_W + 5 + 8 + 1 + 1)) u_cs_arb (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req({ry_cs_req, crd_cs_req, comp_cs_req, rt_cs_req, req_cs_req}),
      .arg({ry_cs_ow, ry_cs_status, ry_cs_verr, ry_cs_force, 1'b0, crd_cs_ow, crd_cs_status, crd_cs_verr, crd_cs_force,
            1'b0, comp_cs_ow, comp_cs_status, comp_cs_verr, comp_cs_force, comp_cs_defer, rt_cs_ow, rt_cs_status,
            rt_cs_verr, rt_cs_force, 1'b0, req_cs_ow, req_cs_status, req_cs_verr, req_cs_force, 1'b0}),
      .done(cs_done), .c_req(cs_req), .c_arg({cs_ow, cs_status, cs_verr, cs_force, cs_defer}), .gnt(cs_gnt),
      .c_done(cs_dn));
  hca_call_arb #(.N(2), .W(1)) u_rt_arb (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req({comp_rt_req, req_rt_req}), .arg(2'b00), .done(rt_done),
      .c_req(rt_req), .c_arg(rt_arg), .gnt(rt_gnt), .c_done(rt_dn));
  // the timer's retry is a timeout (RETRY_TIMEOUT is 0, as when idle)
  hca_call_arb #(.N(2), .W(2 + 24 + 5)) u_ry_arb (
      .clk(clk), .rst_n(rst_n), .ce(ce), .srst(srst), .req({tmr_ry_req, comp_ry_req}),
      .arg({2'(`RETRY_TIMEOUT), tmr_ry_psn, 5'd0, comp_ry_kind, comp_ry_psn, comp_ry_code}), .done(ry_done),
      .c_req(ry_req), .c_arg({ry_kind, ry_psn, ry_code}), .gnt(ry_gnt), .c_done(ry_dn));
endmodule
