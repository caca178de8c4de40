// SPDX-License-Identifier: MIT
/*
 * Work request posting: ibv_post_send, ibv_post_recv, ibv_post_srq_recv.
 *
 * WQEs are written into the rings in host memory (docs/programming.md 5)
 * and published with one doorbell per call, after the WQEs (the bus lock of
 * the doorbell write orders them).  Posting stops at the first bad work
 * request: earlier ones are posted, *bad_wr names the failing one, and the
 * return value is the errno value, as providers do:
 *   EINVAL  QP in RESET/INIT/RTR (sends) or RESET (receives), opcode not
 *           valid for the QP type, too many SGEs, inline data too long or
 *           combined with READ/atomics, receive posted to a QP with an SRQ
 *   ENOMEM  the queue is full
 * What only the device can check (keys, lengths against the path MTU ...)
 * completes the WQE with an error status instead.
 */
#include <errno.h>
#include <string.h>

#include "ops.h"
#include "shim.h"

static int opcode_ok(uint8_t qpt, enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		return 1;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return qpt != IBV_QPT_UD;
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return qpt == IBV_QPT_RC;
	default:
		return 0;
	}
}

static int sq_state_ok(const struct ibv_qp *qp)
{
	return qp->state != IBV_QPS_RESET && qp->state != IBV_QPS_INIT &&
	       qp->state != IBV_QPS_RTR;
}

/* Fill the UD address segment from an address handle. */
void shim_wqe_set_ud(struct shim_qp *qp, void *wqe, struct ibv_ah *ah, uint32_t remote_qpn,
		     uint32_t remote_qkey)
{
	struct hca_wqe_ud_seg *ud = (struct hca_wqe_ud_seg *)((uint8_t *)wqe + HCA_WQE_UD_OFF);

	(void)qp;
	*ud = to_sah(ah)->ud;
	ud->remote_qpn = remote_qpn;
	ud->remote_qkey = remote_qkey;
}

static int build_send(struct shim_qp *qp, const struct ibv_send_wr *wr, void *wqe, uint32_t idx)
{
	struct hca_wqe_ctrl_seg *ctrl = wqe;
	unsigned int flags = wr->send_flags &
			     (IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_INLINE);
	uint8_t *data = (uint8_t *)wqe + HCA_WQE_DATA_OFF;

	if (!opcode_ok(qp->type, wr->opcode))
		return EINVAL;
	if (wr->num_sge < 0)
		return EINVAL;
	memset(wqe, 0, HCA_WQE_HDR_SIZE);
	ctrl->opcode = (uint8_t)wr->opcode;
	ctrl->wqe_index = (uint16_t)idx;
	ctrl->imm_data = wr->imm_data;

	if (qp->type == IBV_QPT_UD) {
		if (!wr->wr.ud.ah || wr->wr.ud.ah->context != qp->qp.context)
			return EINVAL;
		shim_wqe_set_ud(qp, wqe, wr->wr.ud.ah, wr->wr.ud.remote_qpn, wr->wr.ud.remote_qkey);
	} else if (wr->opcode == IBV_WR_RDMA_WRITE || wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM ||
		   wr->opcode == IBV_WR_RDMA_READ) {
		struct hca_wqe_raddr_seg *r = (void *)((uint8_t *)wqe + HCA_WQE_RADDR_OFF);

		r->remote_addr = wr->wr.rdma.remote_addr;
		r->rkey = wr->wr.rdma.rkey;
	} else if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
		   wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		struct hca_wqe_raddr_seg *r = (void *)((uint8_t *)wqe + HCA_WQE_RADDR_OFF);
		struct hca_wqe_atomic_seg *a = (void *)((uint8_t *)wqe + HCA_WQE_ATOMIC_OFF);

		r->remote_addr = wr->wr.atomic.remote_addr;
		r->rkey = wr->wr.atomic.rkey;
		a->compare_add = wr->wr.atomic.compare_add;
		a->swap = wr->wr.atomic.swap;
	}

	if (flags & IBV_SEND_INLINE) {
		size_t total = 0;

		if (wr->opcode == IBV_WR_RDMA_READ || wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
		    wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
			return EINVAL;
		for (int i = 0; i < wr->num_sge; i++) {
			total += wr->sg_list[i].length;
			if (total > qp->cap.max_inline_data)
				return EINVAL;
		}
		for (int i = 0; i < wr->num_sge; i++) {
			memcpy(data, (const void *)(uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length);
			data += wr->sg_list[i].length;
		}
		ctrl->inline_len = (uint16_t)total;
	} else {
		struct hca_wqe_data_seg *ds = (struct hca_wqe_data_seg *)data;

		if ((uint32_t)wr->num_sge > qp->cap.max_send_sge)
			return EINVAL;
		for (int i = 0; i < wr->num_sge; i++) {
			ds[i].byte_count = wr->sg_list[i].length;
			ds[i].lkey = wr->sg_list[i].lkey;
			ds[i].addr = wr->sg_list[i].addr;
		}
		ctrl->num_sge = (uint8_t)wr->num_sge;
	}
	ctrl->send_flags = (uint8_t)flags;	/* written last: the WQE is complete */
	return 0;
}

int shim_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct shim_qp *qp = to_sqp(ibqp);
	struct shim_wq *sq = &qp->sq;
	uint32_t start;
	int ret = 0;

	pthread_mutex_lock(&sq->lock);
	start = sq->pi;
	for (; wr; wr = wr->next) {
		if (!sq_state_ok(ibqp)) {
			ret = EINVAL;
			break;
		}
		if (sq->pi - atomic_load(&sq->ci) >= (1u << sq->log_size)) {
			ret = ENOMEM;
			break;
		}
		ret = build_send(qp, wr, shim_wqe(sq, sq->pi), sq->pi);
		if (ret)
			break;
		sq->wrid[sq->pi & ((1u << sq->log_size) - 1)] = wr->wr_id;
		sq->pi++;
	}
	if (sq->pi != start)
		shim_ring(qp->ctx, HCA_DB_SQ_PI, ibqp->qp_num, sq->pi);
	pthread_mutex_unlock(&sq->lock);
	if (ret) {
		*bad = wr;
		errno = ret;
	}
	return ret;
}

static int build_recv(struct shim_wq *wq, const struct ibv_recv_wr *wr, uint32_t max_sge)
{
	uint8_t *wqe = shim_wqe(wq, wq->pi);
	struct hca_recv_wqe_hdr *h = (struct hca_recv_wqe_hdr *)wqe;
	struct hca_wqe_data_seg *ds = (struct hca_wqe_data_seg *)(wqe + HCA_WQE_RECV_HDR_SIZE);

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge)
		return EINVAL;
	memset(h, 0, sizeof(*h));
	for (int i = 0; i < wr->num_sge; i++) {
		ds[i].byte_count = wr->sg_list[i].length;
		ds[i].lkey = wr->sg_list[i].lkey;
		ds[i].addr = wr->sg_list[i].addr;
	}
	h->wqe_index = (uint16_t)wq->pi;
	h->num_sge = (uint8_t)wr->num_sge;
	return 0;
}

int shim_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct shim_qp *qp = to_sqp(ibqp);
	struct shim_wq *rq = &qp->rq;
	uint32_t start;
	int ret = 0;

	if (qp->srq || !rq->wrid) {
		*bad = wr;
		return shim_errno(EINVAL);
	}
	pthread_mutex_lock(&rq->lock);
	start = rq->pi;
	for (; wr; wr = wr->next) {
		if (ibqp->state == IBV_QPS_RESET) {
			ret = EINVAL;
			break;
		}
		if (rq->pi - atomic_load(&rq->ci) >= (1u << rq->log_size)) {
			ret = ENOMEM;
			break;
		}
		ret = build_recv(rq, wr, qp->cap.max_recv_sge);
		if (ret)
			break;
		rq->wrid[rq->pi & ((1u << rq->log_size) - 1)] = wr->wr_id;
		rq->pi++;
	}
	if (rq->pi != start)
		shim_ring(qp->ctx, HCA_DB_RQ_PI, ibqp->qp_num, rq->pi);
	pthread_mutex_unlock(&rq->lock);
	if (ret) {
		*bad = wr;
		errno = ret;
	}
	return ret;
}

int shim_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct shim_srq *srq = to_ssrq(ibsrq);
	struct shim_wq *wq = &srq->wq;
	uint32_t start;
	int ret = 0;

	pthread_mutex_lock(&wq->lock);
	start = wq->pi;
	for (; wr; wr = wr->next) {
		uint32_t slot = wq->pi & ((1u << wq->log_size) - 1);

		/* The engine consumes SRQ WQEs in ring order, so the next slot is free
		 * once its WQE completed (completions may come in any order). */
		if (__atomic_load_n(&srq->busy[slot], __ATOMIC_ACQUIRE)) {
			ret = ENOMEM;
			break;
		}
		ret = build_recv(wq, wr, srq->max_sge);
		if (ret)
			break;
		wq->wrid[slot] = wr->wr_id;
		srq->busy[slot] = 1;
		wq->pi++;
	}
	if (wq->pi != start)
		shim_ring(to_sctx(ibsrq->context), HCA_DB_SRQ_PI, srq->srqn, wq->pi);
	pthread_mutex_unlock(&wq->lock);
	if (ret) {
		*bad = wr;
		errno = ret;
	}
	return ret;
}
