// SPDX-License-Identifier: MIT
/*
 * The extended work-request API of QPs created with send_ops_flags
 * (ibv_qp_to_qp_ex, ibv_wr_start ... ibv_wr_complete), which perftest uses
 * by default.
 *
 * ibv_wr_start takes the SQ lock; each ibv_wr_<opcode> opens a WQE at the
 * producer index (closing the previous one), the ibv_wr_set_* calls fill it,
 * and ibv_wr_complete closes the last one and rings one doorbell.  The first
 * error (queue full, bad opcode for the QP type, too many SGEs, inline data
 * too long) poisons the batch: ibv_wr_complete discards every WQE since
 * ibv_wr_start and returns the errno value, as rdma-core providers do.
 */
#include <errno.h>
#include <string.h>

#include "ops.h"
#include "shim.h"

void shim_wqe_set_ud(struct shim_qp *qp, void *wqe, struct ibv_ah *ah, uint32_t remote_qpn,
		     uint32_t remote_qkey);

static struct shim_qp *xq(struct ibv_qp_ex *q)
{
	return (struct shim_qp *)q;
}

static void wr_start(struct ibv_qp_ex *q)
{
	struct shim_qp *qp = xq(q);

	pthread_mutex_lock(&qp->sq.lock);
	qp->wr_first_pi = qp->sq.pi;
	qp->wr_err = 0;
	qp->wr_cur = NULL;
}

static void close_cur(struct shim_qp *qp)
{
	if (qp->wr_cur) {
		qp->sq.pi++;
		qp->wr_cur = NULL;
	}
}

static struct hca_wqe_ctrl_seg *open_wqe(struct shim_qp *qp, enum ibv_wr_opcode op)
{
	struct shim_wq *sq = &qp->sq;
	struct hca_wqe_ctrl_seg *ctrl;
	int ok;

	close_cur(qp);
	if (qp->wr_err)
		return NULL;
	switch (op) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		ok = 1;
		break;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		ok = qp->type != IBV_QPT_UD;
		break;
	default:
		ok = qp->type == IBV_QPT_RC;
		break;
	}
	if (!ok || qp->qp.state == IBV_QPS_RESET || qp->qp.state == IBV_QPS_INIT ||
	    qp->qp.state == IBV_QPS_RTR) {
		qp->wr_err = EINVAL;
		return NULL;
	}
	if (sq->pi - atomic_load(&sq->ci) >= (1u << sq->log_size)) {
		qp->wr_err = ENOMEM;
		return NULL;
	}
	ctrl = shim_wqe(sq, sq->pi);
	memset(ctrl, 0, HCA_WQE_HDR_SIZE);
	ctrl->opcode = (uint8_t)op;
	ctrl->wqe_index = (uint16_t)sq->pi;
	ctrl->send_flags = (uint8_t)(qp->qpx.wr_flags & (IBV_SEND_FENCE | IBV_SEND_SIGNALED |
							 IBV_SEND_SOLICITED));
	sq->wrid[sq->pi & ((1u << sq->log_size) - 1)] = qp->qpx.wr_id;
	qp->wr_cur = ctrl;
	return ctrl;
}

static void set_raddr(struct hca_wqe_ctrl_seg *ctrl, uint32_t rkey, uint64_t addr)
{
	struct hca_wqe_raddr_seg *r = (void *)((uint8_t *)ctrl + HCA_WQE_RADDR_OFF);

	r->remote_addr = addr;
	r->rkey = rkey;
}

static void wr_send(struct ibv_qp_ex *q)
{
	open_wqe(xq(q), IBV_WR_SEND);
}

static void wr_send_imm(struct ibv_qp_ex *q, __be32 imm)
{
	struct hca_wqe_ctrl_seg *c = open_wqe(xq(q), IBV_WR_SEND_WITH_IMM);

	if (c)
		c->imm_data = imm;
}

static void wr_rdma_write(struct ibv_qp_ex *q, uint32_t rkey, uint64_t addr)
{
	struct hca_wqe_ctrl_seg *c = open_wqe(xq(q), IBV_WR_RDMA_WRITE);

	if (c)
		set_raddr(c, rkey, addr);
}

static void wr_rdma_write_imm(struct ibv_qp_ex *q, uint32_t rkey, uint64_t addr, __be32 imm)
{
	struct hca_wqe_ctrl_seg *c = open_wqe(xq(q), IBV_WR_RDMA_WRITE_WITH_IMM);

	if (c) {
		set_raddr(c, rkey, addr);
		c->imm_data = imm;
	}
}

static void wr_rdma_read(struct ibv_qp_ex *q, uint32_t rkey, uint64_t addr)
{
	struct hca_wqe_ctrl_seg *c = open_wqe(xq(q), IBV_WR_RDMA_READ);

	if (c)
		set_raddr(c, rkey, addr);
}

static void wr_atomic(struct ibv_qp_ex *q, enum ibv_wr_opcode op, uint32_t rkey, uint64_t addr,
		      uint64_t compare_add, uint64_t swap)
{
	struct hca_wqe_ctrl_seg *c = open_wqe(xq(q), op);
	struct hca_wqe_atomic_seg *a;

	if (!c)
		return;
	set_raddr(c, rkey, addr);
	a = (void *)((uint8_t *)c + HCA_WQE_ATOMIC_OFF);
	a->compare_add = compare_add;
	a->swap = swap;
}

static void wr_cmp_swp(struct ibv_qp_ex *q, uint32_t rkey, uint64_t addr, uint64_t compare,
		       uint64_t swap)
{
	wr_atomic(q, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, addr, compare, swap);
}

static void wr_fetch_add(struct ibv_qp_ex *q, uint32_t rkey, uint64_t addr, uint64_t add)
{
	wr_atomic(q, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, addr, add, 0);
}

static void wr_set_ud_addr(struct ibv_qp_ex *q, struct ibv_ah *ah, uint32_t remote_qpn,
			   uint32_t remote_qkey)
{
	struct shim_qp *qp = xq(q);

	if (!qp->wr_cur || qp->wr_err)
		return;
	if (qp->type != IBV_QPT_UD || !ah) {
		qp->wr_err = EINVAL;
		return;
	}
	shim_wqe_set_ud(qp, qp->wr_cur, ah, remote_qpn, remote_qkey);
}

static void wr_set_sge_list(struct ibv_qp_ex *q, size_t n, const struct ibv_sge *sg)
{
	struct shim_qp *qp = xq(q);
	struct hca_wqe_ctrl_seg *c = qp->wr_cur;
	struct hca_wqe_data_seg *ds;

	if (!c || qp->wr_err)
		return;
	if (n > qp->cap.max_send_sge) {
		qp->wr_err = EINVAL;
		return;
	}
	ds = (void *)((uint8_t *)c + HCA_WQE_DATA_OFF);
	for (size_t i = 0; i < n; i++) {
		ds[i].byte_count = sg[i].length;
		ds[i].lkey = sg[i].lkey;
		ds[i].addr = sg[i].addr;
	}
	c->num_sge = (uint8_t)n;
}

static void wr_set_sge(struct ibv_qp_ex *q, uint32_t lkey, uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	wr_set_sge_list(q, 1, &sge);
}

static void wr_set_inline_data_list(struct ibv_qp_ex *q, size_t n, const struct ibv_data_buf *b)
{
	struct shim_qp *qp = xq(q);
	struct hca_wqe_ctrl_seg *c = qp->wr_cur;
	uint8_t *dst;
	size_t total = 0;

	if (!c || qp->wr_err)
		return;
	if (c->opcode == IBV_WR_RDMA_READ || c->opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    c->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		qp->wr_err = EINVAL;
		return;
	}
	for (size_t i = 0; i < n; i++)
		total += b[i].length;
	if (total > qp->cap.max_inline_data) {
		qp->wr_err = EINVAL;
		return;
	}
	dst = (uint8_t *)c + HCA_WQE_DATA_OFF;
	for (size_t i = 0; i < n; i++) {
		memcpy(dst, b[i].addr, b[i].length);
		dst += b[i].length;
	}
	c->inline_len = (uint16_t)total;
	c->num_sge = 0;
	c->send_flags |= IBV_SEND_INLINE;
}

static void wr_set_inline_data(struct ibv_qp_ex *q, void *addr, size_t length)
{
	struct ibv_data_buf b = { .addr = addr, .length = length };

	wr_set_inline_data_list(q, 1, &b);
}

static int wr_complete(struct ibv_qp_ex *q)
{
	struct shim_qp *qp = xq(q);
	int ret;

	close_cur(qp);
	ret = qp->wr_err;
	if (ret)
		qp->sq.pi = qp->wr_first_pi;	/* nothing of the batch is posted */
	else if (qp->sq.pi != qp->wr_first_pi)
		shim_ring(qp->ctx, HCA_DB_SQ_PI, qp->qp.qp_num, qp->sq.pi);
	qp->wr_err = 0;
	pthread_mutex_unlock(&qp->sq.lock);
	return ret;
}

static void wr_abort(struct ibv_qp_ex *q)
{
	struct shim_qp *qp = xq(q);

	qp->wr_cur = NULL;
	qp->sq.pi = qp->wr_first_pi;
	qp->wr_err = 0;
	pthread_mutex_unlock(&qp->sq.lock);
}

static void wr_unsupported_inv(struct ibv_qp_ex *q, uint32_t rkey)
{
	(void)rkey;
	close_cur(xq(q));
	xq(q)->wr_err = EOPNOTSUPP;
}

static void wr_unsupported_bind(struct ibv_qp_ex *q, struct ibv_mw *mw, uint32_t rkey,
				const struct ibv_mw_bind_info *info)
{
	(void)mw; (void)rkey; (void)info;
	close_cur(xq(q));
	xq(q)->wr_err = EOPNOTSUPP;
}

static void wr_unsupported_tso(struct ibv_qp_ex *q, void *hdr, uint16_t sz, uint16_t mss)
{
	(void)hdr; (void)sz; (void)mss;
	close_cur(xq(q));
	xq(q)->wr_err = EOPNOTSUPP;
}

static void wr_unsupported_xrc(struct ibv_qp_ex *q, uint32_t srqn)
{
	(void)srqn;
	xq(q)->wr_err = EOPNOTSUPP;
}

static void wr_unsupported_atomic_write(struct ibv_qp_ex *q, uint32_t rkey, uint64_t addr,
					const void *wr)
{
	(void)rkey; (void)addr; (void)wr;
	close_cur(xq(q));
	xq(q)->wr_err = EOPNOTSUPP;
}

void shim_qpex_init(struct shim_qp *qp, uint64_t send_ops_flags)
{
	struct ibv_qp_ex *x = &qp->qpx;

	(void)send_ops_flags;	/* every supported opcode is always available */
	x->comp_mask = 0;
	x->wr_start = wr_start;
	x->wr_complete = wr_complete;
	x->wr_abort = wr_abort;
	x->wr_send = wr_send;
	x->wr_send_imm = wr_send_imm;
	x->wr_rdma_write = wr_rdma_write;
	x->wr_rdma_write_imm = wr_rdma_write_imm;
	x->wr_rdma_read = wr_rdma_read;
	x->wr_atomic_cmp_swp = wr_cmp_swp;
	x->wr_atomic_fetch_add = wr_fetch_add;
	x->wr_set_ud_addr = wr_set_ud_addr;
	x->wr_set_sge = wr_set_sge;
	x->wr_set_sge_list = wr_set_sge_list;
	x->wr_set_inline_data = wr_set_inline_data;
	x->wr_set_inline_data_list = wr_set_inline_data_list;
	x->wr_local_inv = wr_unsupported_inv;
	x->wr_send_inv = wr_unsupported_inv;
	x->wr_bind_mw = wr_unsupported_bind;
	x->wr_send_tso = wr_unsupported_tso;
	x->wr_set_xrc_srqn = wr_unsupported_xrc;
	x->wr_atomic_write = wr_unsupported_atomic_write;
}
