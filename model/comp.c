// SPDX-License-Identifier: MIT
/*
 * Completer (IB Vol 1 9.7.5, docs/wire.md 3.3-3.4): processes ACKs, NAKs,
 * READ responses and atomic ACKs of an RC QP; completes send WQEs in order;
 * runs the ACK (retransmit) timer and the RNR wait; go-back-N retry with
 * retry_cnt / rnr_retry; exhaustion gives the IB error completion and
 * moves the QP to ERR (the rest is flushed).
 *
 * State: una_psn is the oldest PSN not yet acknowledged (for a READ at the
 * head of the queue: its first missing response).  Every WQE in
 * [sq_ci, sq_head) is SWQE_ACTIVE (PSN range [first_psn, first_psn+npsn))
 * except possibly the newest, which may be SWQE_ERROR.
 */
#include <string.h>

#include "model_int.h"

static const uint64_t rnr_cycles[32] = HCA_RNR_CYCLES_TABLE;

enum retry_kind { RETRY_TIMEOUT, RETRY_NAK_SEQ, RETRY_IMPLICIT, RETRY_RNR };

static bool is_send_write(uint8_t op)
{
	return op == HCA_WR_SEND || op == HCA_WR_SEND_WITH_IMM || op == HCA_WR_RDMA_WRITE ||
	       op == HCA_WR_RDMA_WRITE_WITH_IMM;
}

static bool outstanding(const struct model_qp *qp)
{
	return qp->sq_ci != qp->sq_head && qp->swq &&
	       ((struct model_qp *)qp)->swq[qp->sq_ci & (MODEL_SWQ_RING - 1)].state == SWQE_ACTIVE;
}

uint64_t model_qp_deadline(const struct model_qp *qp)
{
	return qp->ack_deadline < qp->rnr_deadline ? qp->ack_deadline : qp->rnr_deadline;
}

void model_comp_arm_timer(struct model *m, struct model_qp *qp)
{
	unsigned int t = qp->cfg.timeout & 31;

	if (t == 0 || !outstanding(qp) || qp->rnr_deadline != MODEL_NO_DEADLINE)
		qp->ack_deadline = MODEL_NO_DEADLINE;
	else
		qp->ack_deadline = m->now + (1ull << (t + HCA_TIMER_ACK_SHIFT));
}

/* An acknowledgement made progress: fresh retry budgets, timer restarted. */
static void progress(struct model *m, struct model_qp *qp)
{
	qp->retry_left = qp->cfg.retry_cnt & 7;
	qp->rnr_left = qp->cfg.rnr_retry & 7;
	qp->nak_retry_valid = false;
	model_comp_arm_timer(m, qp);
	model_qp_kick(m, qp);
}

/* The oldest WQE completed in error: QP to ERR (the rest is flushed). */
static void fail_front(struct model *m, struct model_qp *qp, uint8_t status, uint8_t verr)
{
	model_qp_complete_send(m, qp, swq_at(qp, qp->sq_ci), status, verr, false);
	model_qp_to_err(m, qp, -1);
}

bool model_comp_retire(struct model *m, struct model_qp *qp)
{
	struct model_swqe *w;

	if (qp->sq_ci == qp->sq_head || !qp->swq)
		return false;
	w = swq_at(qp, qp->sq_ci);
	if (w->state != SWQE_ERROR)
		return false;
	model_qp_complete_send(m, qp, w, w->status, w->vendor_err, false);
	if (qp_is_rc(qp))
		model_qp_to_err(m, qp, -1);
	else
		model_qp_to_sqe(m, qp);
	return true;
}

/* Point the (re)transmission cursor at the packet with PSN `psn`. */
static void rewind_to(struct model_qp *qp, uint32_t psn)
{
	for (uint16_t i = qp->sq_ci; i != qp->sq_head; i++) {
		struct model_swqe *w = swq_at(qp, i);

		if (w->state != SWQE_ACTIVE)
			break;
		if (roce_psn_cmp(psn, w->first_psn) >= 0 &&
		    roce_psn_cmp(psn, psn_add(w->first_psn, w->npsn)) < 0) {
			qp->tx_wqe = i;
			qp->tx_pkt = w->opcode == HCA_WR_RDMA_READ ? 0 : (psn - w->first_psn) & PSN_MASK;
			return;
		}
	}
}

static void retry(struct model *m, struct model_qp *qp, enum retry_kind kind, uint32_t psn, uint8_t rnr_code)
{
	if (!outstanding(qp))
		return;
	if (kind == RETRY_RNR) {
		if (qp->rnr_deadline != MODEL_NO_DEADLINE)
			return;		/* already waiting (duplicate RNR NAK) */
		if ((qp->cfg.rnr_retry & 7) != 7) {
			if (qp->rnr_left == 0) {
				fail_front(m, qp, HCA_WC_RNR_RETRY_EXC_ERR, HCA_VENDOR_ERR_RNR);
				return;
			}
			qp->rnr_left--;
		}
		model_stat(m, HCA_STAT_RETRANSMIT, 1);
		rewind_to(qp, psn);
		qp->ack_deadline = MODEL_NO_DEADLINE;
		qp->rnr_deadline = m->now + rnr_cycles[rnr_code & 31];
		return;
	}
	if (qp->rnr_deadline != MODEL_NO_DEADLINE)
		return;		/* waiting out an RNR NAK: the resend from its PSN is already planned */
	if (kind != RETRY_TIMEOUT) {
		if (qp->nak_retry_valid && qp->nak_retry_psn == psn)
			return;		/* same NAK again, nothing acknowledged since */
		qp->nak_retry_valid = true;
		qp->nak_retry_psn = psn;
	}
	if (qp->retry_left == 0) {
		fail_front(m, qp, HCA_WC_RETRY_EXC_ERR,
			   kind == RETRY_TIMEOUT ? HCA_VENDOR_ERR_TIMEOUT : HCA_VENDOR_ERR_NAK_SEQ);
		return;
	}
	qp->retry_left--;
	model_stat(m, HCA_STAT_RETRANSMIT, 1);
	rewind_to(qp, psn);
	model_comp_arm_timer(m, qp);
	model_qp_kick(m, qp);
}

/*
 * Everything up to and including `last` is acknowledged: complete the
 * SEND/WRITE WQEs it covers.  Returns false (and *missing) when it covers
 * a READ/atomic whose response has not arrived: an implicit NAK.
 */
static bool ack_through(struct model *m, struct model_qp *qp, uint32_t last, uint32_t *missing)
{
	bool moved = false;

	while (qp->sq_ci != qp->sq_head && qp->cur_state != HCA_QPS_ERR) {
		struct model_swqe *w = swq_at(qp, qp->sq_ci);
		uint32_t wlast = psn_add(w->first_psn, w->npsn - 1);

		if (w->state != SWQE_ACTIVE)
			break;
		if (!is_send_write(w->opcode)) {
			uint32_t next = psn_add(w->first_psn, w->rcvd);

			if (roce_psn_cmp(last, next) >= 0) {
				*missing = next;
				if (moved)
					progress(m, qp);
				return false;
			}
			break;
		}
		if (roce_psn_cmp(wlast, last) > 0) {
			/* partially acknowledged */
			if (roce_psn_cmp(psn_add(last, 1), qp->una_psn) > 0) {
				qp->una_psn = psn_add(last, 1);
				moved = true;
			}
			break;
		}
		qp->una_psn = psn_add(wlast, 1);
		model_qp_complete_send(m, qp, w, HCA_WC_SUCCESS, 0, false);
		moved = true;
	}
	if (qp->sq_ci == qp->sq_head)
		qp->una_psn = qp->psn_next;
	if (moved)
		progress(m, qp);
	return true;
}

static bool psn_outstanding(const struct model_qp *qp, uint32_t psn)
{
	return roce_psn_cmp(psn, qp->una_psn) >= 0 && roce_psn_cmp(psn, qp->psn_next) < 0;
}

static void read_response(struct model *m, struct model_qp *qp, const struct roce_pkt *pkt,
			  const struct roce_opcode_info *info)
{
	uint32_t pmtu = model_pmtu(qp), missing, want;
	struct model_swqe *w;
	bool end;

	if (!ack_through(m, qp, psn_add(pkt->psn, PSN_MASK), &missing)) {
		/* pkt->psn - 1 covers a READ/atomic still missing a response */
		if (missing != pkt->psn) {
			retry(m, qp, RETRY_IMPLICIT, missing, 0);
			return;
		}
	}
	if (qp->cur_state == HCA_QPS_ERR || qp->sq_ci == qp->sq_head)
		return;
	w = swq_at(qp, qp->sq_ci);
	if (w->state != SWQE_ACTIVE || w->opcode != HCA_WR_RDMA_READ ||
	    pkt->psn != psn_add(w->first_psn, w->rcvd))
		return;		/* not the response we wait for: ignore */
	end = w->rcvd + 1 == w->npsn;
	want = end ? w->len - w->rcvd * pmtu : pmtu;
	if (!!(info->flags & ROCE_OP_END) != end || pkt->paylen != want ||
	    ((info->hdrs & ROCE_AETH) && (pkt->aeth.syndrome >> 5) != HCA_AETH_TYPE_ACK)) {
		fail_front(m, qp, HCA_WC_BAD_RESP_ERR, HCA_VENDOR_ERR_NONE);
		return;
	}
	if (model_sge_copy(m, w->sge, w->num_sge, w->rcvd * pmtu, (void *)pkt->payload, pkt->paylen, true)) {
		fail_front(m, qp, HCA_WC_LOC_PROT_ERR, HCA_VENDOR_ERR_DMA_FAULT);
		return;
	}
	w->rcvd++;
	qp->una_psn = psn_add(pkt->psn, 1);
	if (end)
		model_qp_complete_send(m, qp, w, HCA_WC_SUCCESS, 0, false);
	if (qp->sq_ci == qp->sq_head)
		qp->una_psn = qp->psn_next;
	progress(m, qp);
}

static void atomic_ack(struct model *m, struct model_qp *qp, const struct roce_pkt *pkt)
{
	struct model_swqe *w;
	uint32_t missing;
	uint64_t orig;

	if (!ack_through(m, qp, psn_add(pkt->psn, PSN_MASK), &missing) && missing != pkt->psn) {
		retry(m, qp, RETRY_IMPLICIT, missing, 0);
		return;
	}
	if (qp->cur_state == HCA_QPS_ERR || qp->sq_ci == qp->sq_head)
		return;
	w = swq_at(qp, qp->sq_ci);
	if (w->state != SWQE_ACTIVE || pkt->psn != w->first_psn ||
	    (w->opcode != HCA_WR_ATOMIC_CMP_AND_SWP && w->opcode != HCA_WR_ATOMIC_FETCH_AND_ADD))
		return;
	if ((pkt->aeth.syndrome >> 5) != HCA_AETH_TYPE_ACK) {
		fail_front(m, qp, HCA_WC_BAD_RESP_ERR, HCA_VENDOR_ERR_NONE);
		return;
	}
	orig = pkt->atmack_orig;	/* little-endian into the local buffer, as Linux rxe */
	if (model_sge_copy(m, w->sge, 1, 0, &orig, 8, true)) {
		fail_front(m, qp, HCA_WC_LOC_PROT_ERR, HCA_VENDOR_ERR_DMA_FAULT);
		return;
	}
	w->rcvd = 1;
	qp->una_psn = psn_add(pkt->psn, 1);
	model_qp_complete_send(m, qp, w, HCA_WC_SUCCESS, 0, false);
	if (qp->sq_ci == qp->sq_head)
		qp->una_psn = qp->psn_next;
	progress(m, qp);
}

/* NAK other than PSN sequence error / RNR: the WQE holding `psn` fails. */
static void nak_error(struct model *m, struct model_qp *qp, uint32_t psn, uint8_t code)
{
	uint8_t status, verr;

	switch (code) {
	case HCA_AETH_NAK_INVALID_REQUEST:
		status = HCA_WC_REM_INV_REQ_ERR, verr = HCA_VENDOR_ERR_NAK_INV_REQ;
		break;
	case HCA_AETH_NAK_REMOTE_ACCESS_ERR:
		status = HCA_WC_REM_ACCESS_ERR, verr = HCA_VENDOR_ERR_NAK_REM_ACCESS;
		break;
	case HCA_AETH_NAK_REMOTE_OP_ERR:
		status = HCA_WC_REM_OP_ERR, verr = HCA_VENDOR_ERR_NAK_REM_OP;
		break;
	default:
		return;		/* reserved / RD codes: ignored */
	}
	/* WQEs before the one holding psn that are still incomplete are flushed first (in order) */
	while (qp->sq_ci != qp->sq_head) {
		struct model_swqe *w = swq_at(qp, qp->sq_ci);

		if (w->state != SWQE_ACTIVE)
			break;
		if (roce_psn_cmp(psn, psn_add(w->first_psn, w->npsn)) < 0) {
			fail_front(m, qp, status, verr);
			return;
		}
		model_qp_complete_send(m, qp, w, HCA_WC_WR_FLUSH_ERR, HCA_VENDOR_ERR_FLUSH, true);
	}
	model_qp_to_err(m, qp, -1);
}

static void ack_packet(struct model *m, struct model_qp *qp, const struct roce_pkt *pkt)
{
	uint8_t type = pkt->aeth.syndrome >> 5, val = pkt->aeth.syndrome & 0x1f;
	uint32_t missing, prev = psn_add(pkt->psn, PSN_MASK);

	switch (type) {
	case HCA_AETH_TYPE_ACK:
		if (!ack_through(m, qp, pkt->psn, &missing))
			retry(m, qp, RETRY_IMPLICIT, missing, 0);
		break;
	case HCA_AETH_TYPE_RNR_NAK:
		if (!ack_through(m, qp, prev, &missing)) {
			retry(m, qp, RETRY_IMPLICIT, missing, 0);
			break;
		}
		retry(m, qp, RETRY_RNR, pkt->psn, val);
		break;
	case HCA_AETH_TYPE_NAK:
		if (val == HCA_AETH_NAK_PSN_SEQ_ERR) {
			if (!ack_through(m, qp, prev, &missing))
				retry(m, qp, RETRY_IMPLICIT, missing, 0);
			else
				retry(m, qp, RETRY_NAK_SEQ, qp->una_psn, 0);
			break;
		}
		/*
		 * The NAK acknowledges everything before its PSN (IB 9.7.5.1); a
		 * READ/atomic before it still missing its response makes it an
		 * implicit NAK first: retry from there, as for the other NAKs
		 * (and as Linux rxe's check_psn does).
		 */
		if (!ack_through(m, qp, prev, &missing)) {
			retry(m, qp, RETRY_IMPLICIT, missing, 0);
			break;
		}
		if (qp->cur_state != HCA_QPS_ERR)
			nak_error(m, qp, pkt->psn, val);
		break;
	default:
		break;		/* reserved AETH type */
	}
}

void model_completer(struct model *m, struct model_qp *qp, const struct roce_pkt *pkt)
{
	const struct roce_opcode_info *info = roce_opcode(pkt->opcode);

	if (!info || !qp_is_rc(qp) || !qp->swq ||
	    (qp->cur_state != HCA_QPS_RTS && qp->cur_state != HCA_QPS_SQD))
		return;
	/* only responses for PSNs sent and not yet acknowledged count */
	if (!outstanding(qp) || !psn_outstanding(qp, pkt->psn))
		return;
	if (info->flags & ROCE_OP_READ)
		read_response(m, qp, pkt, info);
	else if (info->flags & ROCE_OP_ATOMIC)
		atomic_ack(m, qp, pkt);
	else
		ack_packet(m, qp, pkt);
	model_comp_retire(m, qp);
	model_qp_kick(m, qp);
}

void model_comp_timers(struct model *m, struct model_qp *qp)
{
	if (qp->rnr_deadline <= m->now) {
		qp->rnr_deadline = MODEL_NO_DEADLINE;
		model_comp_arm_timer(m, qp);
		model_qp_kick(m, qp);
	}
	if (qp->ack_deadline <= m->now) {
		qp->ack_deadline = MODEL_NO_DEADLINE;
		if (outstanding(qp) && qp->cur_state != HCA_QPS_ERR) {
			retry(m, qp, RETRY_TIMEOUT, qp->una_psn, 0);
			if (qp->ack_deadline == MODEL_NO_DEADLINE && qp->cur_state != HCA_QPS_ERR)
				model_comp_arm_timer(m, qp);
		}
	}
}
