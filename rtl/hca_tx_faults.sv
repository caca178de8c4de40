`include "hca_defs.vh"

// Transmit faults: the payload faults of request packets that hca_req
// committed before their payload had arrived (hca_tx_slots, read ahead),
// each waiting for a step of its QP to record it (model/req.c send_packet:
// the WQE fails at that packet).
//
//   insert: `fe_v` with the QP, WQE, packet and faulting address (one per
//           cycle; hca_tx_slots admits an async packet only while the table
//           has room for its fault, so an insert always finds a free entry);
//   lookup: the item's QP (`item_qn`: `hit` and the entry, for hca_req) and
//           the committing QP (`commit_qn`: `commit_hit`, whose later packets
//           are dropped); one entry per QP at most (its later packets never
//           fault: they are dropped);
//   clear:  `clr` removes the item's entry (hca_req has recorded it);
//   orphans: `qrst` (hca_ctx: a QPC write resets QP `qrst_qn`, in a held
//           cycle too) marks that QP's entry orphan, and so is a fault of a
//           slot committed before such a reset (`fe_orph`): the model failed
//           the WQE when it sent the packet and the reset forgot it, so the
//           step only reports the fault (`hit_orph`), and the QP's new
//           commits are not dropped for it (no `commit_hit`).
// A soft reset empties it.
module hca_tx_faults #(
    parameter int TX_SLOTS = 4,
    parameter int QW       = 8,
    localparam int SW = $clog2(TX_SLOTS)
) (
    input  logic          clk,
    input  logic          rst_n,
    input  logic          ce,
    input  logic          srst,
    input  logic          fe_v,
    input  logic [QW-1:0] fe_qn,
    input  logic [15:0]   fe_wqe,
    input  logic [23:0]   fe_k,
    input  logic [63:0]   fe_iova,
    input  logic          fe_orph,
    input  logic [QW-1:0] item_qn,
    output logic          hit,
    output logic [15:0]   hit_wqe,
    output logic [23:0]   hit_k,
    output logic [63:0]   hit_iova,
    output logic          hit_orph,
    input  logic          clr,
    input  logic          qrst,
    input  logic [QW-1:0] qrst_qn,
    input  logic [QW-1:0] commit_qn,
    output logic          commit_hit,
    output logic [SW:0]   count,
    output logic          busy
);
  logic [TX_SLOTS-1:0] v, orph;
  logic [QW-1:0]       e_qn [0:TX_SLOTS-1];
  logic [15:0]         e_wqe [0:TX_SLOTS-1];
  logic [23:0]         e_k [0:TX_SLOTS-1];
  logic [63:0]         e_iova [0:TX_SLOTS-1];

  logic [SW-1:0] hit_i, free_i;
  always_comb begin : lookup
    integer i;
    hit = 1'b0; hit_i = '0; commit_hit = 1'b0; free_i = '0; count = '0;
    for (i = TX_SLOTS - 1; i >= 0; i = i - 1) begin
      if (v[i] && e_qn[i] == item_qn) begin
        hit = 1'b1;
        hit_i = SW'(i);
      end
      if (v[i] && !orph[i] && e_qn[i] == commit_qn) commit_hit = 1'b1;
      if (!v[i]) free_i = SW'(i);
      if (v[i]) count = count + (SW+1)'(1);
    end
  end
  assign hit_wqe  = e_wqe[hit_i];
  assign hit_k    = e_k[hit_i];
  assign hit_iova = e_iova[hit_i];
  assign hit_orph = orph[hit_i];
  assign busy     = |v;

  always_ff @(posedge clk) begin
    if (ce && fe_v) begin
      e_qn[free_i]   <= fe_qn;
      e_wqe[free_i]  <= fe_wqe;
      e_k[free_i]    <= fe_k;
      e_iova[free_i] <= fe_iova;
    end
  end
  logic [TX_SLOTS-1:0] v_nx, orph_nx;
  always_comb begin : next_valid
    integer i;
    v_nx = v;
    orph_nx = orph;
    for (i = 0; i < TX_SLOTS; i = i + 1)
      if (qrst && v[i] && e_qn[i] == qrst_qn) orph_nx[i] = 1'b1;
    if (ce && clr && hit) v_nx[hit_i] = 1'b0;
    if (ce && fe_v) begin
      v_nx[free_i] = 1'b1;
      orph_nx[free_i] = fe_orph || (qrst && fe_qn == qrst_qn);
    end
  end
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin v <= '0; orph <= '0; end
    else if (srst) begin v <= '0; orph <= '0; end
    else begin v <= v_nx; orph <= orph_nx; end
  end
endmodule
