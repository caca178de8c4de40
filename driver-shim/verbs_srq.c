// SPDX-License-Identifier: MIT
/*
 * Shared receive queues: ibv_create_srq(_ex), ibv_modify_srq, ibv_query_srq,
 * ibv_destroy_srq, ibv_get_srq_num.  An armed limit (IBV_SRQ_LIMIT) raises
 * IBV_EVENT_SRQ_LIMIT_REACHED once when the posted-but-unconsumed WQEs drop
 * below it; resizing (IBV_SRQ_MAX_WR) is not supported by the device.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hostmem.h"
#include "hw.h"
#include "ops.h"
#include "shim.h"

static unsigned int ilog2_ceil(uint32_t v)
{
	unsigned int l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

static struct ibv_srq *srq_create(struct ibv_pd *pd, struct ibv_srq_init_attr *ia)
{
	struct shim_context *c;
	const struct hca_device_attr *da;
	struct hca_srq_init_attr hia = { 0 };
	struct hca_srq_create_resp resp = { 0 };
	struct hca_cmd cmd;
	struct shim_srq *srq;
	unsigned int log_stride = HCA_WQE_LOG_MIN_RQ_STRIDE;
	uint32_t max_sge;
	int ret;

	if (!pd || !ia)
		return shim_null(EINVAL);
	c = to_sctx(pd->context);
	da = &c->dev->attr;
	if (!ia->attr.max_wr || ia->attr.max_wr > da->max_srq_wr || ia->attr.max_sge > da->max_srq_sge ||
	    ia->attr.srq_limit >= ia->attr.max_wr)
		return shim_null(EINVAL);
	max_sge = ia->attr.max_sge ? ia->attr.max_sge : 1;
	while ((1u << log_stride) < HCA_WQE_RECV_HDR_SIZE + 16 * max_sge)
		log_stride++;
	if (log_stride > HCA_WQE_LOG_MAX_RQ_STRIDE)
		return shim_null(EINVAL);
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return shim_null(ENOMEM);
	srq->wq.log_size = ilog2_ceil(ia->attr.max_wr);
	srq->wq.log_stride = log_stride;
	ret = shim_dma_alloc(c->dev, (size_t)1 << (srq->wq.log_size + log_stride), HOSTMEM_READ,
			     &srq->wq.ring);
	if (ret)
		goto free_srq;
	srq->wq.wrid = calloc((size_t)1 << srq->wq.log_size, sizeof(*srq->wq.wrid));
	srq->busy = calloc((size_t)1 << srq->wq.log_size, 1);
	if (!srq->wq.wrid || !srq->busy) {
		ret = ENOMEM;
		goto free_ring;
	}
	pthread_mutex_init(&srq->wq.lock, NULL);
	srq->max_wr = 1u << srq->wq.log_size;
	srq->max_sge = ((1u << log_stride) - HCA_WQE_RECV_HDR_SIZE) / 16;
	if (srq->max_sge > da->max_srq_sge)
		srq->max_sge = da->max_srq_sge;

	hia.max_wr = srq->max_wr;
	hia.max_sge = srq->max_sge;
	hia.srq_limit = ia->attr.srq_limit;
	hia.log_size = (uint8_t)srq->wq.log_size;
	hia.log_stride = (uint8_t)log_stride;
	hia.base = srq->wq.ring.iova;
	hca_cmd_init(&cmd, HCA_OBJ_SRQ, HCA_METHOD_SRQ_CREATE, c->handle);
	hca_cmd_idr_new(&cmd, HCA_ATTR_SRQ_CREATE_HANDLE, &srq->srq.handle);
	hca_cmd_idr(&cmd, HCA_ATTR_SRQ_CREATE_PD, pd->handle);
	hca_cmd_in(&cmd, HCA_ATTR_SRQ_CREATE_INIT_ATTR, &hia, sizeof(hia));
	hca_cmd_out(&cmd, HCA_ATTR_SRQ_CREATE_RESP, &resp, sizeof(resp));
	ret = shim_cmd_exec(c->dev, &cmd);
	if (!ret && resp.srqn >= SHIM_MAX_SRQN)
		ret = EIO;
	if (ret)
		goto free_lock;
	srq->srqn = resp.srqn;
	srq->limit = ia->attr.srq_limit;
	srq->srq.context = pd->context;
	srq->srq.srq_context = ia->srq_context;
	srq->srq.pd = pd;
	pthread_mutex_init(&srq->srq.mutex, NULL);
	pthread_cond_init(&srq->srq.cond, NULL);
	ia->attr.max_wr = srq->max_wr;
	ia->attr.max_sge = srq->max_sge;
	pthread_mutex_lock(&c->lock);
	c->srq_by_num[srq->srqn] = srq;
	pthread_mutex_unlock(&c->lock);
	return &srq->srq;

free_lock:
	pthread_mutex_destroy(&srq->wq.lock);
free_ring:
	free(srq->wq.wrid);
	free(srq->busy);
	shim_dma_free(c->dev, &srq->wq.ring);
free_srq:
	free(srq);
	return shim_null(ret);
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr)
{
	return srq_create(pd, srq_init_attr);
}

struct ibv_srq *shim_create_srq_ex(struct ibv_context *ctx, struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq_init_attr ia;
	struct ibv_srq *srq;

	/* Only basic SRQs exist (the header's wrapper sends those to ibv_create_srq). */
	if ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) && attr->srq_type != IBV_SRQT_BASIC)
		return shim_null(EOPNOTSUPP);
	if (attr->comp_mask & ~(uint32_t)(IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE))
		return shim_null(EOPNOTSUPP);
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || attr->pd->context != ctx)
		return shim_null(EINVAL);
	ia.srq_context = attr->srq_context;
	ia.attr = attr->attr;
	srq = srq_create(attr->pd, &ia);
	if (srq)
		attr->attr = ia.attr;
	return srq;
}

int ibv_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *srq_attr, int srq_attr_mask)
{
	struct shim_srq *srq = to_ssrq(ibsrq);
	struct shim_context *c = to_sctx(ibsrq->context);
	struct hca_srq_attr a = { 0 };
	uint32_t mask = (uint32_t)srq_attr_mask;
	struct hca_cmd cmd;
	int ret;

	if (!srq_attr || !mask || (mask & ~(uint32_t)(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT)))
		return shim_errno(EINVAL);
	a.max_wr = srq_attr->max_wr;
	a.max_sge = srq_attr->max_sge;
	a.srq_limit = srq_attr->srq_limit;
	hca_cmd_init(&cmd, HCA_OBJ_SRQ, HCA_METHOD_SRQ_MODIFY, c->handle);
	hca_cmd_idr(&cmd, HCA_ATTR_SRQ_MODIFY_HANDLE, ibsrq->handle);
	hca_cmd_in(&cmd, HCA_ATTR_SRQ_MODIFY_ATTR, &a, sizeof(a));
	hca_cmd_in(&cmd, HCA_ATTR_SRQ_MODIFY_ATTR_MASK, &mask, sizeof(mask));
	ret = shim_cmd_exec(c->dev, &cmd);
	if (ret)
		return shim_errno(ret);
	if (mask & IBV_SRQ_LIMIT)
		srq->limit = srq_attr->srq_limit;
	return 0;
}

int ibv_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *srq_attr)
{
	struct shim_context *c = to_sctx(ibsrq->context);
	struct hca_srq_attr a = { 0 };
	struct hca_cmd cmd;
	int ret;

	if (!srq_attr)
		return shim_errno(EINVAL);
	hca_cmd_init(&cmd, HCA_OBJ_SRQ, HCA_METHOD_SRQ_QUERY, c->handle);
	hca_cmd_idr(&cmd, HCA_ATTR_SRQ_QUERY_HANDLE, ibsrq->handle);
	hca_cmd_out(&cmd, HCA_ATTR_SRQ_QUERY_ATTR, &a, sizeof(a));
	ret = shim_cmd_exec(c->dev, &cmd);
	if (ret)
		return shim_errno(ret);
	srq_attr->max_wr = a.max_wr;
	srq_attr->max_sge = a.max_sge;
	srq_attr->srq_limit = a.srq_limit;
	return 0;
}

int shim_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num)
{
	*srq_num = to_ssrq(srq)->srqn;
	return 0;
}

static int match_async_srq(const void *item, const void *arg)
{
	const struct ibv_async_event *e = item;

	return (e->event_type == IBV_EVENT_SRQ_ERR ||
		e->event_type == IBV_EVENT_SRQ_LIMIT_REACHED) && e->element.srq == arg;
}

int ibv_destroy_srq(struct ibv_srq *ibsrq)
{
	struct shim_srq *srq = to_ssrq(ibsrq);
	struct shim_context *c = to_sctx(ibsrq->context);
	struct hca_cmd cmd;
	int ret;

	hca_cmd_init(&cmd, HCA_OBJ_SRQ, HCA_METHOD_SRQ_DESTROY, c->handle);
	hca_cmd_idr(&cmd, HCA_ATTR_SRQ_DESTROY_HANDLE, ibsrq->handle);
	ret = shim_cmd_exec(c->dev, &cmd);
	if (ret)
		return shim_errno(ret);	/* EBUSY while a QP uses it */
	pthread_mutex_lock(&c->lock);
	c->srq_by_num[srq->srqn] = NULL;
	pthread_mutex_unlock(&c->lock);
	shim_evq_remove(&c->async_q, match_async_srq, ibsrq);
	pthread_mutex_lock(&ibsrq->mutex);
	while (ibsrq->events_completed != srq->async_events)
		pthread_cond_wait(&ibsrq->cond, &ibsrq->mutex);
	pthread_mutex_unlock(&ibsrq->mutex);
	shim_wq_free(c->dev, &srq->wq);
	free(srq->busy);
	pthread_mutex_destroy(&ibsrq->mutex);
	pthread_cond_destroy(&ibsrq->cond);
	free(srq);
	return 0;
}
