// SPDX-License-Identifier: MIT
/*
 * Responder (IB Vol 1 9.7.x, docs/wire.md sections 4-5): PSN checks,
 * request checks in the order of wire.md 4.2, execution of SEND / RDMA
 * WRITE / RDMA READ / atomics, responder resources for duplicate READ and
 * atomic replay, ACK/NAK generation; the UC and UD receive rules.
 */
#include <string.h>

#include "model_int.h"

#define AETH_ACK ((HCA_AETH_TYPE_ACK << 5) | HCA_WIRE_AETH_CREDIT_INVALID)
#define AETH_NAK(code) ((HCA_AETH_TYPE_NAK << 5) | (code))
#define AETH_RNR(t) ((HCA_AETH_TYPE_RNR_NAK << 5) | ((t) & 0x1f))
#define MAX_MSG ((uint64_t)HCA_CAP_MAX_MSG_SZ)

static uint32_t npkts(uint32_t len, uint32_t pmtu)
{
	return len == 0 ? 1 : (len + pmtu - 1) / pmtu;
}

static void send_ack(struct model *m, struct model_qp *qp, const struct roce_pkt *req,
		     uint32_t psn, uint8_t syndrome)
{
	struct roce_pkt p;

	model_net_resp_hdr(m, qp, req, &p, HCA_BTH_OP_RC_ACKNOWLEDGE);
	p.psn = psn & PSN_MASK;
	p.aeth.syndrome = syndrome;
	p.aeth.msn = qp->msn;
	model_net_xmit(m, &p, NULL, 0);
	model_stat(m, (syndrome >> 5) == HCA_AETH_TYPE_ACK ? HCA_STAT_TX_ACK : HCA_STAT_TX_NAK, 1);
}

/* NAK invalid request / remote access / remote operational: QP to ERR with its event. */
static void nak_fatal_(struct model *m, struct model_qp *qp, const struct roce_pkt *req, uint8_t code,
		       const char *why)
{
	model_trace(m, "qp %u: NAK %u (%s) for opcode 0x%02x psn 0x%06x len %u (resp_msg %u, msg_len %u, wr_len %u, reth.len %u)",
		    qp->qpn, code, why, req->opcode, req->psn, req->paylen, qp->resp_msg, qp->msg_len, qp->wr_len, req->reth.len);
	send_ack(m, qp, req, req->psn, AETH_NAK(code));
	model_qp_to_err(m, qp, code == HCA_AETH_NAK_INVALID_REQUEST ? HCA_EVENT_QP_REQ_ERR :
			       code == HCA_AETH_NAK_REMOTE_ACCESS_ERR ? HCA_EVENT_QP_ACCESS_ERR :
			       HCA_EVENT_QP_FATAL);
}

#define nak_fatal(m, qp, req, code) nak_fatal_(m, qp, req, code, __func__)
#define nak_fatal_why(m, qp, req, code, why) nak_fatal_(m, qp, req, code, why)

/* Complete the receive WQE in progress (qp->rwqe). */
static void recv_complete(struct model *m, struct model_qp *qp, uint8_t status, uint8_t verr,
			  uint8_t opcode, uint32_t byte_len, const struct roce_pkt *pkt, bool with_imm,
			  uint8_t wc_flags, uint32_t src_qp)
{
	struct hca_cqe cqe;

	memset(&cqe, 0, sizeof(cqe));
	cqe.byte_len = status == HCA_WC_SUCCESS ? byte_len : 0;
	cqe.src_qp = src_qp;
	cqe.wqe_index = qp->rwqe.wqe_index;
	cqe.status = status;
	cqe.opcode = opcode;
	cqe.vendor_err = verr;
	cqe.is_srq = qp->rwqe.from_srq;
	if (status == HCA_WC_SUCCESS) {
		cqe.wc_flags = wc_flags;
		if (with_imm) {
			cqe.wc_flags |= HCA_WC_FLAG_WITH_IMM;
			cqe.imm_data = __builtin_bswap32(pkt->imm);	/* network order in memory */
		}
	}
	qp->rwqe.valid = false;
	model_qp_complete_recv(m, qp, &cqe, status == HCA_WC_SUCCESS && pkt && pkt->se);
}

static uint32_t rwqe_pdn(struct model *m, struct model_qp *qp)
{
	if (qp->rwqe.from_srq) {
		struct model_srq *srq = model_srq_get(m, qp->cfg.srqn);

		if (srq)
			return srq->c.pdn;
	}
	return qp->cfg.pdn;
}

/*
 * Place len bytes at the receive WQE's current offset: key checks of every
 * SGE touched first (nothing is written if one fails), then the DMA.
 * 0 or a vendor error (LKEY/PD/ACCESS/BOUNDS/DMA_FAULT).
 */
static int scatter(struct model *m, struct model_qp *qp, const void *data, uint32_t len)
{
	struct model_rwqe *w = &qp->rwqe;
	uint32_t pdn = rwqe_pdn(m, qp), pos = 0;

	for (unsigned int i = 0; i < w->num_sge && len; i++) {
		uint32_t end = pos + w->sge[i].len;

		if (w->sge[i].len && end > w->off && pos < w->off + len) {
			int r = model_sge_check(m, &w->sge[i], pdn, HCA_ACCESS_LOCAL_WRITE);

			if (r)
				return r;
		}
		pos = end;
	}
	if (model_sge_copy(m, w->sge, w->num_sge, w->off, (void *)data, len, true))
		return HCA_VENDOR_ERR_DMA_FAULT;
	w->off += len;
	return 0;
}

static struct model_res *res_alloc(struct model_qp *qp)
{
	unsigned int n = qp->cfg.max_dest_rd_atomic;
	struct model_res *r;

	if (n > HCA_CAP_MAX_RD_ATOMIC)
		n = HCA_CAP_MAX_RD_ATOMIC;
	if (qp->res_next >= n)
		qp->res_next = 0;
	r = &qp->res[qp->res_next];
	qp->res_next = (qp->res_next + 1) % n;
	return r;
}

/*
 * READ responses for [psn0, psn0 + n): data from iova.  A DMA fault stops
 * them; for a new request it NAKs remote operational error at the PSN of the
 * response that could not be built (false), a replay just stops.
 */
static bool read_responses(struct model *m, struct model_qp *qp, const struct roce_pkt *req,
			   uint64_t iova, uint32_t len, uint32_t psn0, bool replay)
{
	uint32_t pmtu = model_pmtu(qp), n = npkts(len, pmtu);

	for (uint32_t k = 0; k < n; k++) {
		uint32_t off = k * pmtu, plen = len - off > pmtu ? pmtu : len - off;
		struct roce_pkt p;
		uint8_t op, *payload;

		if (n == 1)
			op = HCA_BTH_OP_RC_RDMA_READ_RESPONSE_ONLY;
		else if (k == 0)
			op = HCA_BTH_OP_RC_RDMA_READ_RESPONSE_FIRST;
		else if (k + 1 == n)
			op = HCA_BTH_OP_RC_RDMA_READ_RESPONSE_LAST;
		else
			op = HCA_BTH_OP_RC_RDMA_READ_RESPONSE_MIDDLE;
		/* read straight into the frame being built */
		payload = model_net_payload_buf(m, op);
		if (model_dma_read(m, HCA_DMA_CLIENT_PAYLOAD, iova + off, payload, plen)) {
			if (!replay) {
				send_ack(m, qp, req, psn_add(psn0, k), AETH_NAK(HCA_AETH_NAK_REMOTE_OP_ERR));
				model_qp_to_err(m, qp, HCA_EVENT_QP_FATAL);
			}
			return false;
		}
		model_net_resp_hdr(m, qp, req, &p, op);
		p.psn = psn_add(psn0, k);
		p.aeth.syndrome = AETH_ACK;
		p.aeth.msn = qp->msn;
		model_net_xmit(m, &p, payload, plen);
	}
	return true;
}

static void atomic_ack(struct model *m, struct model_qp *qp, const struct roce_pkt *req,
		       uint64_t orig, uint32_t msn)
{
	struct roce_pkt p;

	model_net_resp_hdr(m, qp, req, &p, HCA_BTH_OP_RC_ATOMIC_ACKNOWLEDGE);
	p.psn = req->psn;
	p.aeth.syndrome = AETH_ACK;
	p.aeth.msn = msn;
	p.atmack_orig = orig;
	model_net_xmit(m, &p, NULL, 0);
}

/* wire.md 4.1: a request with PSN < ePSN. */
static void rc_duplicate(struct model *m, struct model_qp *qp, const struct roce_pkt *pkt, uint32_t f)
{
	model_stat(m, HCA_STAT_RX_DUP, 1);
	if ((f & ROCE_OP_READ) || (f & ROCE_OP_ATOMIC)) {
		for (unsigned int i = 0; i < HCA_CAP_MAX_RD_ATOMIC; i++) {
			struct model_res *r = &qp->res[i];

			if (f & ROCE_OP_READ) {
				uint32_t pmtu = model_pmtu(qp);
				uint64_t iova;

				if (r->type != RES_READ || roce_psn_cmp(pkt->psn, r->first_psn) < 0 ||
				    roce_psn_cmp(pkt->psn, r->last_psn) > 0)
					continue;
				if (pkt->reth.len > MAX_MSG ||
				    roce_psn_cmp(psn_add(pkt->psn, npkts(pkt->reth.len, pmtu) - 1), r->last_psn) > 0 ||
				    model_mr_check(m, pkt->reth.rkey, qp->cfg.pdn, HCA_ACCESS_REMOTE_READ,
						   pkt->reth.va, pkt->reth.len, &iova))
					return;		/* does not match what was granted: dropped */
				read_responses(m, qp, pkt, iova, pkt->reth.len, pkt->psn, true);
				return;
			}
			if (r->type == RES_ATOMIC && r->first_psn == pkt->psn) {
				atomic_ack(m, qp, pkt, r->orig, r->msn);
				return;
			}
		}
		return;		/* no resource left: dropped silently */
	}
	send_ack(m, qp, pkt, psn_add(qp->epsn, PSN_MASK), AETH_ACK);
}

static void rc_read(struct model *m, struct model_qp *qp, const struct roce_pkt *pkt, uint64_t iova)
{
	uint32_t n = npkts(pkt->reth.len, model_pmtu(qp));
	struct model_res *r = res_alloc(qp);

	r->type = RES_READ;
	r->first_psn = pkt->psn;
	r->last_psn = psn_add(pkt->psn, n - 1);
	qp->msn = psn_add(qp->msn, 1);
	qp->epsn = psn_add(pkt->psn, n);
	if (!read_responses(m, qp, pkt, iova, pkt->reth.len, pkt->psn, false))
		r->type = RES_NONE;
}

static void rc_atomic(struct model *m, struct model_qp *qp, const struct roce_pkt *pkt, uint64_t iova)
{
	uint64_t orig, val;
	struct model_res *r;

	if (model_dma_read(m, HCA_DMA_CLIENT_PAYLOAD, iova, &orig, 8)) {
		nak_fatal(m, qp, pkt, HCA_AETH_NAK_REMOTE_OP_ERR);
		return;
	}
	/* operands are little-endian in responder memory (host order, as rxe) */
	if (pkt->opcode == HCA_BTH_OP_RC_COMPARE_SWAP)
		val = orig == pkt->atmeth.compare ? pkt->atmeth.swap_add : orig;
	else
		val = orig + pkt->atmeth.swap_add;
	if (val != orig && model_dma_write(m, HCA_DMA_CLIENT_PAYLOAD, iova, &val, 8)) {
		nak_fatal(m, qp, pkt, HCA_AETH_NAK_REMOTE_ACCESS_ERR);
		return;
	}
	qp->msn = psn_add(qp->msn, 1);
	qp->epsn = psn_add(pkt->psn, 1);
	r = res_alloc(qp);
	r->type = RES_ATOMIC;
	r->first_psn = r->last_psn = pkt->psn;
	r->orig = orig;
	r->msn = qp->msn;
	atomic_ack(m, qp, pkt, orig, qp->msn);
}

static bool opcode_sequence_ok(const struct model_qp *qp, uint32_t f)
{
	if (qp->resp_msg == RESP_MSG_SEND)
		return (f & ROCE_OP_SEND) && (f & (ROCE_OP_MIDDLE | ROCE_OP_LAST));
	if (qp->resp_msg == RESP_MSG_WRITE)
		return (f & ROCE_OP_WRITE) && (f & (ROCE_OP_MIDDLE | ROCE_OP_LAST));
	return (f & ROCE_OP_START) || (f & ROCE_OP_READ) || (f & ROCE_OP_ATOMIC);
}

/* wire.md 4.2 check 2; msg_len is what earlier packets of this message carried. */
static bool lengths_ok(const struct model_qp *qp, const struct roce_pkt *pkt, uint32_t f)
{
	uint32_t pmtu = model_pmtu(qp), len = pkt->paylen;

	if ((f & (ROCE_OP_FIRST | ROCE_OP_MIDDLE)) && len != pmtu)
		return false;
	if ((f & ROCE_OP_LAST) && (len == 0 || len > pmtu))
		return false;
	if ((f & ROCE_OP_ONLY) && len > pmtu)
		return false;
	if (f & ROCE_OP_WRITE) {
		if (f & ROCE_OP_START) {
			if (pkt->reth.len > MAX_MSG)
				return false;
			if ((f & ROCE_OP_ONLY) && len != pkt->reth.len)
				return false;
			if ((f & ROCE_OP_FIRST) && pkt->reth.len <= pmtu)
				return false;
		} else {
			uint64_t total = (uint64_t)qp->msg_len + len;

			if ((f & ROCE_OP_LAST) ? total != qp->wr_len : total >= qp->wr_len)
				return false;
		}
	}
	if ((f & ROCE_OP_READ) && pkt->reth.len > MAX_MSG)
		return false;
	return true;
}

static void rc_responder(struct model *m, struct model_qp *qp, const struct roce_pkt *pkt, uint32_t f)
{
	bool send = f & ROCE_OP_SEND, write = f & ROCE_OP_WRITE;
	bool read = f & ROCE_OP_READ, atomic = f & ROCE_OP_ATOMIC;
	uint16_t acc = qp->cfg.access_flags;
	int32_t d = roce_psn_cmp(pkt->psn, qp->epsn);
	uint64_t iova = 0;
	int r;

	if (d < 0) {
		rc_duplicate(m, qp, pkt, f);
		return;
	}
	if (d > 0) {
		model_stat(m, HCA_STAT_RX_SEQ_ERR, 1);
		if (!qp->seq_nak_sent) {
			qp->seq_nak_sent = true;
			send_ack(m, qp, pkt, qp->epsn, AETH_NAK(HCA_AETH_NAK_PSN_SEQ_ERR));
		}
		return;
	}
	qp->seq_nak_sent = false;

	/* 1. opcode sequence, 2. lengths */
	if (!opcode_sequence_ok(qp, f)) {
		nak_fatal_why(m, qp, pkt, HCA_AETH_NAK_INVALID_REQUEST, "opcode sequence");
		return;
	}
	if (!lengths_ok(qp, pkt, f)) {
		nak_fatal_why(m, qp, pkt, HCA_AETH_NAK_INVALID_REQUEST, "length");
		return;
	}
	/* 3. operation enabled on this QP */
	if ((write && (f & ROCE_OP_START) && !(acc & HCA_ACCESS_REMOTE_WRITE)) ||
	    (read && !(acc & HCA_ACCESS_REMOTE_READ)) || (atomic && !(acc & HCA_ACCESS_REMOTE_ATOMIC))) {
		nak_fatal(m, qp, pkt, HCA_AETH_NAK_REMOTE_ACCESS_ERR);
		return;
	}
	/* 4. receive WQE */
	if (((send && (f & ROCE_OP_START)) || (write && (f & ROCE_OP_IMM))) && !qp->rwqe.valid) {
		uint8_t verr = 0;

		r = model_rq_take(m, qp, &verr);
		if (r == 0) {
			send_ack(m, qp, pkt, pkt->psn, AETH_RNR(qp->cfg.min_rnr_timer));
			return;
		}
		if (r < 0) {
			if (verr == HCA_VENDOR_ERR_BAD_WQE)
				recv_complete(m, qp, HCA_WC_LOC_QP_OP_ERR, verr, HCA_WC_OP_RECV, 0, pkt, false, 0, 0);
			nak_fatal(m, qp, pkt, HCA_AETH_NAK_REMOTE_OP_ERR);
			return;
		}
	}
	if (send && (uint64_t)qp->rwqe.off + pkt->paylen > qp->rwqe.total) {
		recv_complete(m, qp, HCA_WC_LOC_LEN_ERR, HCA_VENDOR_ERR_LENGTH, HCA_WC_OP_RECV, 0, pkt, false, 0, 0);
		nak_fatal_why(m, qp, pkt, HCA_AETH_NAK_INVALID_REQUEST, "message longer than the receive WQE");
		return;
	}
	/* 5. memory keys; atomics 8-byte aligned */
	if (atomic && (pkt->atmeth.va & 7)) {
		nak_fatal_why(m, qp, pkt, HCA_AETH_NAK_INVALID_REQUEST, "atomic alignment");
		return;
	}
	if ((write && (f & ROCE_OP_START)) || read || atomic) {
		uint32_t need = write ? HCA_ACCESS_REMOTE_WRITE : read ? HCA_ACCESS_REMOTE_READ :
				HCA_ACCESS_REMOTE_ATOMIC;
		uint32_t rkey = atomic ? pkt->atmeth.rkey : pkt->reth.rkey;
		uint64_t va = atomic ? pkt->atmeth.va : pkt->reth.va;
		uint64_t len = atomic ? 8 : pkt->reth.len;

		if (model_mr_check(m, rkey, qp->cfg.pdn, need, va, len, &iova)) {
			nak_fatal(m, qp, pkt, HCA_AETH_NAK_REMOTE_ACCESS_ERR);
			return;
		}
	}
	/* 6. responder resources */
	if ((read || atomic) && qp->cfg.max_dest_rd_atomic == 0) {
		nak_fatal_why(m, qp, pkt, HCA_AETH_NAK_INVALID_REQUEST, "no responder resources");
		return;
	}

	if (read) {
		rc_read(m, qp, pkt, iova);
		return;
	}
	if (atomic) {
		rc_atomic(m, qp, pkt, iova);
		return;
	}
	if (send) {
		r = scatter(m, qp, pkt->payload, pkt->paylen);
		if (r) {
			recv_complete(m, qp, HCA_WC_LOC_PROT_ERR, (uint8_t)r, HCA_WC_OP_RECV, 0, pkt, false, 0, 0);
			nak_fatal(m, qp, pkt, HCA_AETH_NAK_REMOTE_ACCESS_ERR);
			return;
		}
		qp->epsn = psn_add(qp->epsn, 1);
		if (f & ROCE_OP_END) {
			qp->msn = psn_add(qp->msn, 1);
			qp->resp_msg = RESP_MSG_NONE;
			recv_complete(m, qp, HCA_WC_SUCCESS, 0, HCA_WC_OP_RECV, qp->rwqe.off, pkt,
				      f & ROCE_OP_IMM, 0, 0);
		} else {
			qp->resp_msg = RESP_MSG_SEND;
		}
	} else if (write) {
		if (f & ROCE_OP_START) {
			qp->wr_va = pkt->reth.va;
			qp->wr_len = pkt->reth.len;
			qp->wr_iova = iova;
			qp->msg_len = 0;
		}
		if (model_dma_write(m, HCA_DMA_CLIENT_PAYLOAD, qp->wr_iova + qp->msg_len, pkt->payload,
				    pkt->paylen)) {
			if (qp->rwqe.valid && (f & ROCE_OP_IMM))
				recv_complete(m, qp, HCA_WC_LOC_PROT_ERR, HCA_VENDOR_ERR_DMA_FAULT,
					      HCA_WC_OP_RECV_RDMA_WITH_IMM, 0, pkt, false, 0, 0);
			nak_fatal(m, qp, pkt, HCA_AETH_NAK_REMOTE_ACCESS_ERR);
			return;
		}
		qp->msg_len += pkt->paylen;
		qp->epsn = psn_add(qp->epsn, 1);
		if (f & ROCE_OP_END) {
			qp->msn = psn_add(qp->msn, 1);
			qp->resp_msg = RESP_MSG_NONE;
			if (f & ROCE_OP_IMM)
				recv_complete(m, qp, HCA_WC_SUCCESS, 0, HCA_WC_OP_RECV_RDMA_WITH_IMM,
					      qp->wr_len, pkt, true, 0, 0);
		} else {
			qp->resp_msg = RESP_MSG_WRITE;
		}
	}
	if (pkt->ackreq)
		send_ack(m, qp, pkt, pkt->psn, AETH_ACK);
}

/* UC: abandon the message in progress; its receive WQE is kept for the next one. */
static void uc_abort(struct model_qp *qp)
{
	qp->resp_msg = RESP_MSG_NONE;
	qp->rwqe.off = 0;
	qp->uc_drop = true;
}

static void uc_responder(struct model *m, struct model_qp *qp, const struct roce_pkt *pkt, uint32_t f)
{
	bool send = f & ROCE_OP_SEND, write = f & ROCE_OP_WRITE;
	int32_t d = roce_psn_cmp(pkt->psn, qp->epsn);
	int r;

	if (d < 0)
		return;		/* duplicate: dropped */
	if (d > 0 && qp->resp_msg != RESP_MSG_NONE)
		uc_abort(qp);	/* PSN gap: the message in progress is lost */
	qp->epsn = psn_add(pkt->psn, 1);
	if (f & ROCE_OP_START) {
		if (qp->resp_msg != RESP_MSG_NONE)
			uc_abort(qp);
		qp->uc_drop = false;
	} else if (qp->uc_drop || qp->resp_msg == RESP_MSG_NONE ||
		   (qp->resp_msg == RESP_MSG_SEND) != send) {
		uc_abort(qp);
		return;
	}
	if (!lengths_ok(qp, pkt, f) ||
	    (write && (f & ROCE_OP_START) && !(qp->cfg.access_flags & HCA_ACCESS_REMOTE_WRITE))) {
		uc_abort(qp);
		return;
	}
	if (((send && (f & ROCE_OP_START)) || (write && (f & ROCE_OP_IMM))) && !qp->rwqe.valid) {
		uint8_t verr = 0;

		r = model_rq_take(m, qp, &verr);
		if (r == 0) {
			uc_abort(qp);
			return;
		}
		if (r < 0) {
			if (verr == HCA_VENDOR_ERR_BAD_WQE) {
				recv_complete(m, qp, HCA_WC_LOC_QP_OP_ERR, verr, HCA_WC_OP_RECV, 0, pkt, false, 0, 0);
				uc_abort(qp);
			} else {
				model_qp_to_err(m, qp, HCA_EVENT_QP_FATAL);
			}
			return;
		}
	}
	if (send) {
		if ((uint64_t)qp->rwqe.off + pkt->paylen > qp->rwqe.total) {
			recv_complete(m, qp, HCA_WC_LOC_LEN_ERR, HCA_VENDOR_ERR_LENGTH, HCA_WC_OP_RECV, 0, pkt, false, 0, 0);
			uc_abort(qp);
			return;
		}
		r = scatter(m, qp, pkt->payload, pkt->paylen);
		if (r) {
			recv_complete(m, qp, HCA_WC_LOC_PROT_ERR, (uint8_t)r, HCA_WC_OP_RECV, 0, pkt, false, 0, 0);
			uc_abort(qp);
			return;
		}
		if (f & ROCE_OP_END) {
			qp->resp_msg = RESP_MSG_NONE;
			recv_complete(m, qp, HCA_WC_SUCCESS, 0, HCA_WC_OP_RECV, qp->rwqe.off, pkt,
				      f & ROCE_OP_IMM, 0, 0);
		} else {
			qp->resp_msg = RESP_MSG_SEND;
		}
		return;
	}
	if (f & ROCE_OP_START) {
		if (model_mr_check(m, pkt->reth.rkey, qp->cfg.pdn, HCA_ACCESS_REMOTE_WRITE,
				   pkt->reth.va, pkt->reth.len, &qp->wr_iova)) {
			uc_abort(qp);
			return;
		}
		qp->wr_va = pkt->reth.va;
		qp->wr_len = pkt->reth.len;
		qp->msg_len = 0;
	}
	if (model_dma_write(m, HCA_DMA_CLIENT_PAYLOAD, qp->wr_iova + qp->msg_len, pkt->payload, pkt->paylen)) {
		if (qp->rwqe.valid && (f & ROCE_OP_IMM))
			recv_complete(m, qp, HCA_WC_LOC_PROT_ERR, HCA_VENDOR_ERR_DMA_FAULT,
				      HCA_WC_OP_RECV_RDMA_WITH_IMM, 0, pkt, false, 0, 0);
		uc_abort(qp);
		return;
	}
	qp->msg_len += pkt->paylen;
	if (f & ROCE_OP_END) {
		qp->resp_msg = RESP_MSG_NONE;
		if (f & ROCE_OP_IMM)
			recv_complete(m, qp, HCA_WC_SUCCESS, 0, HCA_WC_OP_RECV_RDMA_WITH_IMM, qp->wr_len,
				      pkt, true, 0, 0);
	} else {
		qp->resp_msg = RESP_MSG_WRITE;
	}
}

static void ud_responder(struct model *m, struct model_qp *qp, const struct roce_pkt *pkt, uint32_t f)
{
	uint8_t grh[HCA_GRH_SIZE], verr = 0;
	int r;

	if (pkt->paylen > model_pmtu(qp))
		return;
	if (!qp->rwqe.valid) {
		r = model_rq_take(m, qp, &verr);
		if (r == 0)
			return;		/* no receive WQE: dropped */
		if (r < 0) {
			if (verr == HCA_VENDOR_ERR_BAD_WQE)
				recv_complete(m, qp, HCA_WC_LOC_QP_OP_ERR, verr, HCA_WC_OP_RECV, 0, pkt, false, 0, 0);
			else
				model_qp_to_err(m, qp, HCA_EVENT_QP_FATAL);
			return;
		}
	}
	if ((uint64_t)HCA_GRH_SIZE + pkt->paylen > qp->rwqe.total) {
		recv_complete(m, qp, HCA_WC_LOC_LEN_ERR, HCA_VENDOR_ERR_LENGTH, HCA_WC_OP_RECV, 0, pkt, false, 0, 0);
		return;
	}
	memset(grh, 0, sizeof(grh));
	memcpy(grh + HCA_WIRE_GRH_IPV4_OFF, pkt->ip_hdr, HCA_WIRE_IPV4_HLEN);
	r = scatter(m, qp, grh, sizeof(grh));
	if (!r)
		r = scatter(m, qp, pkt->payload, pkt->paylen);
	if (r) {
		recv_complete(m, qp, HCA_WC_LOC_PROT_ERR, (uint8_t)r, HCA_WC_OP_RECV, 0, pkt, false, 0, 0);
		return;
	}
	recv_complete(m, qp, HCA_WC_SUCCESS, 0, HCA_WC_OP_RECV, qp->rwqe.off, pkt, f & ROCE_OP_IMM,
		      HCA_WC_FLAG_GRH, pkt->deth.src_qp);
}

void model_responder(struct model *m, struct model_qp *qp, const struct roce_pkt *pkt)
{
	const struct roce_opcode_info *info = roce_opcode(pkt->opcode);
	uint8_t st = qp->cur_state;

	if (!info || (st != HCA_QPS_RTR && st != HCA_QPS_RTS && st != HCA_QPS_SQD && st != HCA_QPS_SQE))
		return;
	switch (qp->cfg.qp_type) {
	case HCA_QPT_RC:
		rc_responder(m, qp, pkt, info->flags);
		break;
	case HCA_QPT_UC:
		uc_responder(m, qp, pkt, info->flags);
		break;
	default:
		ud_responder(m, qp, pkt, info->flags);
		break;
	}
}
