// SPDX-License-Identifier: MIT
/*
 * Queue pairs: ibv_create_qp(_ex), ibv_modify_qp, ibv_query_qp,
 * ibv_destroy_qp, ibv_qp_to_qp_ex.
 *
 * The driver sizes and allocates the rings (docs/programming.md 5.1/5.2)
 * and firmware checks them.  Attribute and transition rules are the
 * firmware's (docs/programming.md 4.6, the IB rules ibv_modify_qp
 * documents); the shim adds what only the host can do: resolving the
 * destination MAC of an address vector (gid.h) and resetting its ring
 * indices when the QP goes to RESET.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gid.h"
#include "hostmem.h"
#include "hw.h"
#include "link.h"
#include "log.h"
#include "ops.h"
#include "resolve.h"
#include "shim.h"

static unsigned int ilog2_ceil(uint32_t v)
{
	unsigned int l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

static unsigned int stride_log(uint32_t bytes, unsigned int min)
{
	unsigned int l = min;

	while ((1u << l) < bytes)
		l++;
	return l;
}

static int wq_alloc(struct shim_device *d, struct shim_wq *wq, unsigned int log_size,
		    unsigned int log_stride)
{
	int ret;

	memset(wq, 0, sizeof(*wq));
	wq->log_size = log_size;
	wq->log_stride = log_stride;
	ret = shim_dma_alloc(d, (size_t)1 << (log_size + log_stride), HOSTMEM_READ, &wq->ring);
	if (ret)
		return ret;
	wq->wrid = calloc((size_t)1 << log_size, sizeof(*wq->wrid));
	if (!wq->wrid) {
		shim_dma_free(d, &wq->ring);
		return ENOMEM;
	}
	pthread_mutex_init(&wq->lock, NULL);
	return 0;
}

void shim_wq_free(struct shim_device *d, struct shim_wq *wq)
{
	if (!wq->wrid)
		return;
	shim_dma_free(d, &wq->ring);
	free(wq->wrid);
	wq->wrid = NULL;
	pthread_mutex_destroy(&wq->lock);
}

#define QP_CREATE_COMP_MASK \
	(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
#define QP_SEND_OPS \
	(IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_SEND | \
	 IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ | \
	 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

/* hca_qpt: the firmware QP type (ia->qp_type, or HCA_QPT_GSI for QP1, which is UD to us). */
static struct ibv_qp *qp_create(struct ibv_context *context, struct ibv_qp_init_attr_ex *ia,
				uint8_t hca_qpt)
{
	struct shim_context *c = to_sctx(context);
	const struct hca_device_attr *da = &c->dev->attr;
	struct ibv_pd *pd = ia->pd;
	struct hca_qp_init_attr hia = { 0 };
	struct hca_qp_create_resp resp = { 0 };
	struct ibv_qp_cap cap = ia->cap;
	struct hca_cmd cmd;
	struct shim_qp *qp;
	uint32_t sq_bytes, rq_bytes;
	unsigned int sq_stride, rq_stride;
	int ret;

	if (ia->comp_mask & ~(uint32_t)QP_CREATE_COMP_MASK)
		return shim_null(EOPNOTSUPP);
	if (!(ia->comp_mask & IBV_QP_INIT_ATTR_PD) || !pd || pd->context != context)
		return shim_null(EINVAL);
	if ((ia->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (ia->send_ops_flags & ~(uint64_t)QP_SEND_OPS))
		return shim_null(EOPNOTSUPP);
	if (ia->qp_type != IBV_QPT_RC && ia->qp_type != IBV_QPT_UC && ia->qp_type != IBV_QPT_UD)
		return shim_null(EOPNOTSUPP);
	if (!ia->send_cq || !ia->recv_cq || ia->send_cq->context != context ||
	    ia->recv_cq->context != context || (ia->srq && ia->srq->context != context))
		return shim_null(EINVAL);
	if (ia->srq) {
		cap.max_recv_wr = 0;	/* ignored with an SRQ, as the kernel does */
		cap.max_recv_sge = 0;
	}
	if (cap.max_send_wr > da->max_qp_wr || cap.max_recv_wr > da->max_qp_wr ||
	    cap.max_send_sge > da->max_sge || cap.max_recv_sge > da->max_sge ||
	    cap.max_inline_data > da->max_inline_data)
		return shim_null(EINVAL);

	/* Ring geometry (docs/programming.md 5.1, 5.2). */
	sq_bytes = HCA_WQE_HDR_SIZE + 16 * (cap.max_send_sge > (cap.max_inline_data + 15) / 16
						    ? cap.max_send_sge
						    : (cap.max_inline_data + 15) / 16);
	sq_stride = stride_log(sq_bytes, HCA_WQE_LOG_MIN_SQ_STRIDE);
	rq_bytes = HCA_WQE_RECV_HDR_SIZE + 16 * (cap.max_recv_sge ? cap.max_recv_sge : 1);
	rq_stride = stride_log(rq_bytes, HCA_WQE_LOG_MIN_RQ_STRIDE);
	if (sq_stride > HCA_WQE_LOG_MAX_SQ_STRIDE || rq_stride > HCA_WQE_LOG_MAX_RQ_STRIDE)
		return shim_null(EINVAL);

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return shim_null(ENOMEM);
	qp->ctx = c;
	qp->type = (uint8_t)ia->qp_type;
	qp->sq_sig_all = ia->sq_sig_all ? 1 : 0;
	ret = wq_alloc(c->dev, &qp->sq, ilog2_ceil(cap.max_send_wr ? cap.max_send_wr : 1), sq_stride);
	if (ret)
		goto free_qp;
	if (!ia->srq) {
		ret = wq_alloc(c->dev, &qp->rq, ilog2_ceil(cap.max_recv_wr ? cap.max_recv_wr : 1),
			       rq_stride);
		if (ret)
			goto free_sq;
	}
	/* What the QP really has (ibv_create_qp reports it back in cap). */
	qp->cap.max_send_wr = 1u << qp->sq.log_size;
	qp->cap.max_send_sge = ((1u << sq_stride) - HCA_WQE_HDR_SIZE) / 16;
	if (qp->cap.max_send_sge > da->max_sge)
		qp->cap.max_send_sge = da->max_sge;
	qp->cap.max_inline_data = (1u << sq_stride) - HCA_WQE_HDR_SIZE;
	if (qp->cap.max_inline_data > da->max_inline_data)
		qp->cap.max_inline_data = da->max_inline_data;
	if (!ia->srq) {
		qp->cap.max_recv_wr = 1u << qp->rq.log_size;
		qp->cap.max_recv_sge = ((1u << rq_stride) - HCA_WQE_RECV_HDR_SIZE) / 16;
		if (qp->cap.max_recv_sge > da->max_sge)
			qp->cap.max_recv_sge = da->max_sge;
	}

	hia.qp_type = hca_qpt;
	hia.sq_sig_all = qp->sq_sig_all;
	hia.log_sq_size = (uint8_t)qp->sq.log_size;
	hia.log_sq_stride = (uint8_t)sq_stride;
	hia.max_send_wr = qp->cap.max_send_wr;
	hia.max_send_sge = qp->cap.max_send_sge;
	hia.max_inline_data = qp->cap.max_inline_data;
	hia.sq_base = qp->sq.ring.iova;
	if (!ia->srq) {
		hia.log_rq_size = (uint8_t)qp->rq.log_size;
		hia.log_rq_stride = (uint8_t)rq_stride;
		hia.max_recv_wr = qp->cap.max_recv_wr;
		hia.max_recv_sge = qp->cap.max_recv_sge;
		hia.rq_base = qp->rq.ring.iova;
	}
	hca_cmd_init(&cmd, HCA_OBJ_QP, HCA_METHOD_QP_CREATE, c->handle);
	hca_cmd_idr_new(&cmd, HCA_ATTR_QP_CREATE_HANDLE, &qp->qp.handle);
	hca_cmd_idr(&cmd, HCA_ATTR_QP_CREATE_PD, pd->handle);
	hca_cmd_idr(&cmd, HCA_ATTR_QP_CREATE_SEND_CQ, ia->send_cq->handle);
	hca_cmd_idr(&cmd, HCA_ATTR_QP_CREATE_RECV_CQ, ia->recv_cq->handle);
	if (ia->srq)
		hca_cmd_idr(&cmd, HCA_ATTR_QP_CREATE_SRQ, ia->srq->handle);
	hca_cmd_in(&cmd, HCA_ATTR_QP_CREATE_INIT_ATTR, &hia, sizeof(hia));
	hca_cmd_out(&cmd, HCA_ATTR_QP_CREATE_RESP, &resp, sizeof(resp));
	ret = shim_cmd_exec(c->dev, &cmd);
	if (!ret && resp.qpn >= SHIM_MAX_QPN)
		ret = EIO;
	if (ret)
		goto free_rq;

	qp->srq = ia->srq ? to_ssrq(ia->srq) : NULL;
	qp->qp.context = context;
	qp->qp.qp_context = ia->qp_context;
	qp->qp.pd = pd;
	qp->qp.send_cq = ia->send_cq;
	qp->qp.recv_cq = ia->recv_cq;
	qp->qp.srq = ia->srq;
	qp->qp.qp_num = resp.qpn;
	qp->qp.state = IBV_QPS_RESET;
	qp->qp.qp_type = ia->qp_type;
	pthread_mutex_init(&qp->qp.mutex, NULL);
	pthread_cond_init(&qp->qp.cond, NULL);
	if (ia->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		qp->is_ex = 1;
		shim_qpex_init(qp, ia->send_ops_flags);
	}
	ia->cap = qp->cap;
	pthread_mutex_lock(&c->lock);
	__atomic_store_n(&c->qp_by_num[resp.qpn], qp, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&c->lock);
	return &qp->qp;

free_rq:
	shim_wq_free(c->dev, &qp->rq);
free_sq:
	shim_wq_free(c->dev, &qp->sq);
free_qp:
	free(qp);
	return shim_null(ret);
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex ia = { 0 };
	struct ibv_qp *qp;

	if (!pd || !qp_init_attr)
		return shim_null(EINVAL);
	memcpy(&ia, qp_init_attr, sizeof(*qp_init_attr));
	ia.comp_mask = IBV_QP_INIT_ATTR_PD;
	ia.pd = pd;
	qp = qp_create(pd->context, &ia, (uint8_t)ia.qp_type);
	if (qp)
		qp_init_attr->cap = ia.cap;
	return qp;
}

struct ibv_qp *shim_create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr)
{
	return qp_create(ctx, attr, (uint8_t)attr->qp_type);
}

struct ibv_qp *shim_create_gsi_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex ia = { 0 };
	struct ibv_qp *qp;

	memcpy(&ia, qp_init_attr, sizeof(*qp_init_attr));
	ia.qp_type = IBV_QPT_UD;
	ia.comp_mask = IBV_QP_INIT_ATTR_PD;
	ia.pd = pd;
	qp = qp_create(pd->context, &ia, HCA_QPT_GSI);
	if (qp)
		qp_init_attr->cap = ia.cap;
	return qp;
}

struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	struct shim_qp *sqp = to_sqp(qp);

	return sqp->is_ex ? &sqp->qpx : NULL;
}

/* ---- modify / query -------------------------------------------------------------------- */

#define QP_ATTR_KNOWN                                                                           \
	(IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY | IBV_QP_ACCESS_FLAGS |     \
	 IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY | IBV_QP_AV | IBV_QP_PATH_MTU |           \
	 IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_RQ_PSN |                  \
	 IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_ALT_PATH | IBV_QP_MIN_RNR_TIMER | IBV_QP_SQ_PSN |      \
	 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_PATH_MIG_STATE | IBV_QP_CAP | IBV_QP_DEST_QPN)

static void reset_wq(struct shim_wq *wq)
{
	if (!wq->wrid)
		return;
	pthread_mutex_lock(&wq->lock);
	wq->pi = 0;
	atomic_store(&wq->ci, 0);
	memset(wq->ring.va, 0, wq->ring.len);
	pthread_mutex_unlock(&wq->lock);
}

int ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask)
{
	struct shim_qp *qp = to_sqp(ibqp);
	struct shim_context *c;
	struct hca_qp_attr a = { 0 };
	uint32_t mask = (uint32_t)attr_mask;
	struct hca_cmd cmd;
	int ret;

	if (!ibqp || !attr || attr_mask <= 0)
		return shim_errno(EINVAL);
	c = qp->ctx;
	/* Bits firmware does not know (rate limit, ...) are not ours to ignore. */
	if (mask & ~(uint32_t)QP_ATTR_KNOWN)
		return shim_errno(EINVAL);
	a.qp_state = (uint8_t)attr->qp_state;
	a.cur_qp_state = (uint8_t)attr->cur_qp_state;
	a.path_mtu = (uint8_t)attr->path_mtu;
	a.path_mig_state = (uint8_t)attr->path_mig_state;
	a.qkey = attr->qkey;
	a.rq_psn = attr->rq_psn;
	a.sq_psn = attr->sq_psn;
	a.dest_qp_num = attr->dest_qp_num;
	a.qp_access_flags = (uint32_t)attr->qp_access_flags;
	a.pkey_index = attr->pkey_index;
	a.en_sqd_async_notify = attr->en_sqd_async_notify;
	a.sq_draining = attr->sq_draining;
	a.max_rd_atomic = attr->max_rd_atomic;
	a.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	a.min_rnr_timer = attr->min_rnr_timer;
	a.port_num = attr->port_num;
	a.timeout = attr->timeout;
	a.retry_cnt = attr->retry_cnt;
	a.rnr_retry = attr->rnr_retry;
	if (mask & IBV_QP_AV) {
		const struct ibv_ah_attr *ah = &attr->ah_attr;

		a.is_global = ah->is_global;
		a.sl = ah->sl;
		a.static_rate = ah->static_rate;
		a.sgid_index = ah->grh.sgid_index;
		memcpy(a.dgid, ah->grh.dgid.raw, 16);
		a.flow_label = ah->grh.flow_label;
		a.hop_limit = ah->grh.hop_limit;
		a.traffic_class = ah->grh.traffic_class;
		/* RoCE has no LIDs: the address vector must carry a GRH. */
		if (!ah->is_global)
			return shim_errno(EINVAL);
		ret = shim_av_check(ibqp->context, "ibv_modify_qp", ah->grh.sgid_index, ah->grh.dgid.raw);
		if (ret)
			return shim_errno(ret);
		ret = shim_resolve_dmac(c->dev, ah->grh.dgid.raw, a.dmac);
		if (ret)
			return shim_errno(ret);
	}
	hca_cmd_init(&cmd, HCA_OBJ_QP, HCA_METHOD_QP_MODIFY, c->handle);
	hca_cmd_idr(&cmd, HCA_ATTR_QP_MODIFY_HANDLE, ibqp->handle);
	hca_cmd_in(&cmd, HCA_ATTR_QP_MODIFY_ATTR, &a, sizeof(a));
	hca_cmd_in(&cmd, HCA_ATTR_QP_MODIFY_ATTR_MASK, &mask, sizeof(mask));
	ret = shim_cmd_exec(c->dev, &cmd);
	if (ret)
		return shim_errno(ret);
	if (mask & IBV_QP_QKEY)
		qp->qkey = attr->qkey;
	if (mask & IBV_QP_STATE) {
		if (attr->qp_state == IBV_QPS_RESET) {
			/* The engine's queue state restarted from 0: so do ours. */
			pthread_mutex_lock(&qp->sq.lock);
			qp->sq.pi = 0;
			atomic_store(&qp->sq.ci, 0);
			memset(qp->sq.ring.va, 0, qp->sq.ring.len);
			pthread_mutex_unlock(&qp->sq.lock);
			reset_wq(&qp->rq);
		}
		ibqp->state = attr->qp_state;
	}
	return 0;
}

int ibv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask,
		 struct ibv_qp_init_attr *init_attr)
{
	struct shim_qp *qp = to_sqp(ibqp);
	struct shim_context *c;
	struct hca_qp_attr a = { 0 };
	struct hca_cmd cmd;
	int ret;

	if (!ibqp || !attr || !init_attr)
		return shim_errno(EINVAL);
	c = qp->ctx;
	hca_cmd_init(&cmd, HCA_OBJ_QP, HCA_METHOD_QP_QUERY, c->handle);
	hca_cmd_idr(&cmd, HCA_ATTR_QP_QUERY_HANDLE, ibqp->handle);
	hca_cmd_out(&cmd, HCA_ATTR_QP_QUERY_ATTR, &a, sizeof(a));
	ret = shim_cmd_exec(c->dev, &cmd);
	if (ret)
		return shim_errno(ret);
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = (enum ibv_qp_state)a.qp_state;
	attr->cur_qp_state = (enum ibv_qp_state)a.cur_qp_state;
	attr->path_mtu = (enum ibv_mtu)a.path_mtu;
	attr->path_mig_state = IBV_MIG_MIGRATED;
	attr->qkey = a.qkey;
	attr->rq_psn = a.rq_psn;
	attr->sq_psn = a.sq_psn;
	attr->dest_qp_num = a.dest_qp_num;
	attr->qp_access_flags = (unsigned int)a.qp_access_flags;
	attr->cap = qp->cap;
	attr->ah_attr.is_global = a.is_global;
	attr->ah_attr.sl = a.sl;
	attr->ah_attr.static_rate = a.static_rate;
	attr->ah_attr.port_num = a.port_num;
	attr->ah_attr.grh.sgid_index = a.sgid_index;
	memcpy(attr->ah_attr.grh.dgid.raw, a.dgid, 16);
	attr->ah_attr.grh.flow_label = a.flow_label;
	attr->ah_attr.grh.hop_limit = a.hop_limit;
	attr->ah_attr.grh.traffic_class = a.traffic_class;
	attr->pkey_index = a.pkey_index;
	attr->en_sqd_async_notify = a.en_sqd_async_notify;
	attr->sq_draining = a.sq_draining;
	attr->max_rd_atomic = a.max_rd_atomic;
	attr->max_dest_rd_atomic = a.max_dest_rd_atomic;
	attr->min_rnr_timer = a.min_rnr_timer;
	attr->port_num = a.port_num;
	attr->timeout = a.timeout;
	attr->retry_cnt = a.retry_cnt;
	attr->rnr_retry = a.rnr_retry;

	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->qp_context = ibqp->qp_context;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->srq = ibqp->srq;
	init_attr->cap = qp->cap;
	init_attr->qp_type = ibqp->qp_type;
	init_attr->sq_sig_all = qp->sq_sig_all;
	if (attr_mask & IBV_QP_STATE)
		ibqp->state = attr->qp_state;
	return 0;
}

int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	(void)qp;
	(void)op;
	(void)flags;
	return 0;	/* no in-order guarantee is promised */
}

static int match_async_qp(const void *item, const void *arg)
{
	const struct ibv_async_event *e = item;

	switch (e->event_type) {
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return e->element.qp == arg;
	default:
		return 0;
	}
}

int ibv_destroy_qp(struct ibv_qp *ibqp)
{
	struct shim_qp *qp = to_sqp(ibqp);
	struct shim_context *c;
	struct hca_cmd cmd;
	int ret;

	if (!ibqp)
		return shim_errno(EINVAL);
	c = qp->ctx;

	/* An ACK for the last request received may still be on its way out of
	 * the engine (shim_device_quiesce, device.c): let it go first. */
	shim_device_quiesce(c->dev, 200);
	hca_cmd_init(&cmd, HCA_OBJ_QP, HCA_METHOD_QP_DESTROY, c->handle);
	hca_cmd_idr(&cmd, HCA_ATTR_QP_DESTROY_HANDLE, ibqp->handle);
	ret = shim_cmd_exec(c->dev, &cmd);
	if (ret)
		return shim_errno(ret);
	pthread_mutex_lock(&c->lock);
	__atomic_store_n(&c->qp_by_num[ibqp->qp_num], NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&c->lock);
	shim_evq_remove(&c->async_q, match_async_qp, ibqp);
	pthread_mutex_lock(&ibqp->mutex);
	while (ibqp->events_completed != qp->async_events)
		pthread_cond_wait(&ibqp->cond, &ibqp->mutex);
	pthread_mutex_unlock(&ibqp->mutex);
	/* Firmware moved the QP to RESET before freeing it: no more ring access. */
	shim_wq_free(c->dev, &qp->sq);
	shim_wq_free(c->dev, &qp->rq);
	pthread_mutex_destroy(&ibqp->mutex);
	pthread_cond_destroy(&ibqp->cond);
	free(qp);
	return 0;
}
