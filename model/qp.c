// SPDX-License-Identifier: MIT
/*
 * QP state the engine changes by itself (docs/programming.md 6.3): moving
 * to ERR or SQE, flushing, SQD drain; and the send/receive completions the
 * requester, completer and responder produce.
 */
#include <string.h>

#include "model_int.h"

uint32_t model_pmtu(const struct model_qp *qp)
{
	unsigned int mtu = qp->cfg.path_mtu;

	/* an out-of-range path_mtu (e.g. a UD QP firmware left at 0) means 4096 */
	if (mtu >= HCA_MTU_256 && mtu <= HCA_MTU_4096)
		return 128u << mtu;
	return 4096;
}

void model_qp_to_err(struct model *m, struct model_qp *qp, int event)
{
	if (qp->cur_state == HCA_QPS_ERR || qp->cur_state == HCA_QPS_RESET)
		return;
	qp->cur_state = HCA_QPS_ERR;
	qp->sq_draining = false;
	qp->ack_deadline = MODEL_NO_DEADLINE;
	qp->rnr_deadline = MODEL_NO_DEADLINE;
	if (event >= 0)
		model_event(m, (uint8_t)event, qp->qpn);
	if (qp->cfg.flags & HCA_QPC_FLAGS_USE_SRQ_MASK)
		model_event(m, HCA_EVENT_QP_LAST_WQE_REACHED, qp->qpn);
	model_qp_kick(m, qp);
}

/* UC/UD send-side error: the send queue stops, the receive side goes on. */
void model_qp_to_sqe(struct model *m, struct model_qp *qp)
{
	if (qp->cur_state != HCA_QPS_RTS && qp->cur_state != HCA_QPS_SQD)
		return;
	qp->cur_state = HCA_QPS_SQE;
	qp->sq_draining = false;
	model_qp_kick(m, qp);
}

static uint8_t wc_opcode(uint8_t wr)
{
	switch (wr) {
	case HCA_WR_RDMA_WRITE:
	case HCA_WR_RDMA_WRITE_WITH_IMM:
		return HCA_WC_OP_RDMA_WRITE;
	case HCA_WR_RDMA_READ:
		return HCA_WC_OP_RDMA_READ;
	case HCA_WR_ATOMIC_CMP_AND_SWP:
		return HCA_WC_OP_COMP_SWAP;
	case HCA_WR_ATOMIC_FETCH_AND_ADD:
		return HCA_WC_OP_FETCH_ADD;
	default:
		return HCA_WC_OP_SEND;
	}
}

static bool is_rd_atomic(uint8_t wr)
{
	return wr == HCA_WR_RDMA_READ || wr == HCA_WR_ATOMIC_CMP_AND_SWP ||
	       wr == HCA_WR_ATOMIC_FETCH_AND_ADD;
}

static void post_send_cqe(struct model *m, struct model_qp *qp, struct hca_cqe *cqe)
{
	cqe->qpn = qp->qpn;
	if (model_cq_post(m, qp->cfg.send_cqn, cqe, false) < 0 && qp->cur_state != HCA_QPS_ERR)
		model_qp_to_err(m, qp, HCA_EVENT_QP_FATAL);
}

/* Retire the oldest send WQE `w` (== swq_at(sq_ci)). */
void model_qp_complete_send(struct model *m, struct model_qp *qp, struct model_swqe *w,
			    uint8_t status, uint8_t vendor_err, bool force)
{
	bool signaled = force || status != HCA_WC_SUCCESS || (w->flags & HCA_SEND_SIGNALED) ||
			(qp->cfg.flags & HCA_QPC_FLAGS_SQ_SIG_ALL_MASK);

	if (w->state == SWQE_ACTIVE && is_rd_atomic(w->opcode) && qp->rd_atomic_out)
		qp->rd_atomic_out--;
	qp->sq_ci++;
	/* the (re)transmission cursor never points at a retired WQE */
	if ((int16_t)(qp->tx_wqe - qp->sq_ci) < 0) {
		qp->tx_wqe = qp->sq_ci;
		qp->tx_pkt = 0;
	}
	model_qp_kick(m, qp);
	if (signaled) {
		struct hca_cqe cqe;

		memset(&cqe, 0, sizeof(cqe));
		if (status == HCA_WC_SUCCESS) {
			if (w->opcode == HCA_WR_RDMA_READ)
				cqe.byte_len = w->len;
			else if (is_rd_atomic(w->opcode))
				cqe.byte_len = 8;
		}
		cqe.wqe_index = w->index;
		cqe.status = status;
		cqe.opcode = wc_opcode(w->opcode);
		cqe.vendor_err = vendor_err;
		post_send_cqe(m, qp, &cqe);
	}
}

void model_qp_complete_recv(struct model *m, struct model_qp *qp, struct hca_cqe *cqe, bool solicited)
{
	cqe->qpn = qp->qpn;
	if (model_cq_post(m, qp->cfg.recv_cqn, cqe, solicited) < 0 && qp->cur_state != HCA_QPS_ERR)
		model_qp_to_err(m, qp, HCA_EVENT_QP_FATAL);
}

static void flush_cqe(struct hca_cqe *cqe, uint16_t index, uint8_t opcode)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe->wqe_index = index;
	cqe->status = HCA_WC_WR_FLUSH_ERR;
	cqe->vendor_err = HCA_VENDOR_ERR_FLUSH;
	cqe->opcode = opcode;
}

/*
 * ERR: complete every send WQE not yet retired and every receive WQE of the
 * RQ (and the one in progress) with IBV_WC_WR_FLUSH_ERR, in order.  SQE: the
 * send queue only.  Flush CQEs carry opcode SEND (send queue) or RECV.
 */
bool model_qp_flush(struct model *m, struct model_qp *qp)
{
	struct hca_cqe cqe;
	bool did = false;

	if (qp->cur_state != HCA_QPS_ERR && qp->cur_state != HCA_QPS_SQE)
		return false;
	while (qp->sq_ci != qp->sq_pi) {
		flush_cqe(&cqe, qp->sq_ci, HCA_WC_OP_SEND);
		qp->sq_ci++;
		post_send_cqe(m, qp, &cqe);
		did = true;
	}
	qp->sq_head = qp->tx_wqe = qp->sq_ci;
	qp->tx_pkt = 0;
	qp->rd_atomic_out = 0;
	qp->una_psn = qp->psn_next;
	qp->ack_deadline = MODEL_NO_DEADLINE;
	qp->rnr_deadline = MODEL_NO_DEADLINE;
	if (qp->cur_state != HCA_QPS_ERR)
		return did;
	if (qp->rwqe.valid) {
		flush_cqe(&cqe, qp->rwqe.wqe_index, HCA_WC_OP_RECV);
		cqe.is_srq = qp->rwqe.from_srq;
		qp->rwqe.valid = false;
		model_qp_complete_recv(m, qp, &cqe, false);
		did = true;
	}
	qp->resp_msg = RESP_MSG_NONE;
	if (!(qp->cfg.flags & HCA_QPC_FLAGS_USE_SRQ_MASK)) {
		while (qp->rq_ci != qp->rq_pi) {
			flush_cqe(&cqe, qp->rq_ci, HCA_WC_OP_RECV);
			qp->rq_ci++;
			model_qp_complete_recv(m, qp, &cqe, false);
			did = true;
		}
	}
	return did;
}

/* SQD: once nothing is outstanding, the drain is complete. */
bool model_qp_check_drain(struct model *m, struct model_qp *qp)
{
	if (qp->cur_state != HCA_QPS_SQD || !qp->sq_draining || qp->sq_ci != qp->sq_head)
		return false;
	qp->sq_draining = false;
	if (qp->cfg.flags & HCA_QPC_FLAGS_SQD_NOTIFY_MASK)
		model_event(m, HCA_EVENT_SQ_DRAINED, qp->qpn);
	return true;
}
