// SPDX-License-Identifier: MIT
/*
 * Completion queues: create/destroy, ibv_poll_cq, ibv_req_notify_cq and the
 * extended polling interface of ibv_create_cq_ex.
 *
 * The CQ ring is host memory the device writes (32-byte hca_cqe, owner bit
 * flipping every pass).  A poller checks the owner bit without locks; when
 * entries are valid it copies them under the bus lock, because the device
 * writes host memory only while holding it, so a copied CQE is never torn.
 * After consuming entries the poller writes CQ_CI (the engine detects
 * overflow from it).  In cooperative mode an empty poll steps the simulation
 * once ("an empty ibv_poll_cq advances it").
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "hostmem.h"
#include "hw.h"
#include "ops.h"
#include "shim.h"

#define POLL_CHUNK 16

static unsigned int ilog2_ceil(uint32_t v)
{
	unsigned int l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

static struct shim_cq *cq_create(struct ibv_context *context, int cqe, void *cq_context,
				 struct ibv_comp_channel *channel, int comp_vector, int is_ex)
{
	struct shim_context *c = to_sctx(context);
	struct hca_cq_init_attr ia = { 0 };
	struct hca_cq_create_resp resp = { 0 };
	struct hca_cmd cmd;
	struct shim_cq *cq;
	int ret;

	if (cqe < 1 || (uint32_t)cqe > c->dev->attr.max_cqe)
		return shim_null(EINVAL);
	if (comp_vector < 0 || comp_vector >= context->num_comp_vectors)
		return shim_null(EINVAL);
	if (channel && channel->context != context)
		return shim_null(EINVAL);
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return shim_null(ENOMEM);
	cq->ctx = c;
	cq->is_ex = is_ex;
	cq->log_size = ilog2_ceil((uint32_t)cqe);
	ret = shim_dma_alloc(c->dev, sizeof(struct hca_cqe) << cq->log_size, HOSTMEM_RW, &cq->ring);
	if (ret) {
		free(cq);
		return shim_null(ret);
	}
	ia.log_size = (uint8_t)cq->log_size;
	ia.cqe = (uint32_t)cqe;
	ia.base = cq->ring.iova;
	hca_cmd_init(&cmd, HCA_OBJ_CQ, HCA_METHOD_CQ_CREATE, c->handle);
	hca_cmd_idr_new(&cmd, HCA_ATTR_CQ_CREATE_HANDLE, &cq->cq.handle);
	hca_cmd_in(&cmd, HCA_ATTR_CQ_CREATE_INIT_ATTR, &ia, sizeof(ia));
	hca_cmd_idr(&cmd, HCA_ATTR_CQ_CREATE_EQ, c->eq.handle);
	hca_cmd_out(&cmd, HCA_ATTR_CQ_CREATE_RESP, &resp, sizeof(resp));
	ret = shim_cmd_exec(c->dev, &cmd);
	if (ret || resp.cqn >= SHIM_MAX_CQN) {
		shim_dma_free(c->dev, &cq->ring);
		free(cq);
		return shim_null(ret ? ret : EIO);
	}
	cq->cqn = resp.cqn;
	pthread_mutex_init(&cq->poll_lock, NULL);
	cq->cq.context = context;
	cq->cq.channel = channel;
	cq->cq.cq_context = cq_context;
	cq->cq.cqe = (int)resp.cqe;
	pthread_mutex_init(&cq->cq.mutex, NULL);
	pthread_cond_init(&cq->cq.cond, NULL);
	if (channel) {
		pthread_mutex_lock(&context->mutex);
		channel->refcnt++;
		pthread_mutex_unlock(&context->mutex);
	}
	pthread_mutex_lock(&c->lock);
	c->cq_by_num[cq->cqn] = cq;
	pthread_mutex_unlock(&c->lock);
	return cq;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	struct shim_cq *cq = cq_create(context, cqe, cq_context, channel, comp_vector, 0);

	return cq ? &cq->cq : NULL;
}

int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	(void)cq;
	(void)cqe;
	return shim_errno(EOPNOTSUPP);
}

static int match_cq(const void *item, const void *arg)
{
	struct shim_cq *const *p = item;

	return *p == arg;
}

static int match_async_cq(const void *item, const void *arg)
{
	const struct ibv_async_event *e = item;

	return e->event_type == IBV_EVENT_CQ_ERR && e->element.cq == arg;
}

int ibv_destroy_cq(struct ibv_cq *ibcq)
{
	struct shim_cq *cq = to_scq(ibcq);
	struct shim_context *c = cq->ctx;
	struct hca_cmd cmd;
	int ret;

	hca_cmd_init(&cmd, HCA_OBJ_CQ, HCA_METHOD_CQ_DESTROY, c->handle);
	hca_cmd_idr(&cmd, HCA_ATTR_CQ_DESTROY_HANDLE, ibcq->handle);
	ret = shim_cmd_exec(c->dev, &cmd);
	if (ret)
		return shim_errno(ret);	/* EBUSY while a QP uses it */
	pthread_mutex_lock(&c->lock);
	c->cq_by_num[cq->cqn] = NULL;
	pthread_mutex_unlock(&c->lock);
	/* Events not yet read go with the CQ, as the kernel drops them. */
	if (ibcq->channel) {
		shim_evq_remove(&to_sch(ibcq->channel)->q, match_cq, cq);
		pthread_mutex_lock(&ibcq->context->mutex);
		ibcq->channel->refcnt--;
		pthread_mutex_unlock(&ibcq->context->mutex);
	}
	shim_evq_remove(&c->async_q, match_async_cq, cq);
	/* libibverbs: wait until every event handed out has been acknowledged. */
	pthread_mutex_lock(&ibcq->mutex);
	while (ibcq->comp_events_completed != cq->comp_events ||
	       ibcq->async_events_completed != cq->async_events)
		pthread_cond_wait(&ibcq->cond, &ibcq->mutex);
	pthread_mutex_unlock(&ibcq->mutex);
	shim_dma_free(c->dev, &cq->ring);
	pthread_mutex_destroy(&cq->poll_lock);
	pthread_mutex_destroy(&ibcq->mutex);
	pthread_cond_destroy(&ibcq->cond);
	free(cq);
	return 0;
}

/* ---- polling -------------------------------------------------------------------------- */

static inline int cqe_valid(const struct shim_cq *cq, uint32_t idx)
{
	const volatile struct hca_cqe *e =
		(const struct hca_cqe *)cq->ring.va + (idx & ((1u << cq->log_size) - 1));
	uint8_t own = __atomic_load_n(&((const struct hca_cqe *)e)->owner, __ATOMIC_ACQUIRE);

	return (own & HCA_CQE_OWNER_OWNER_MASK) == (((idx >> cq->log_size) & 1) ^ 1);
}

/* Copy up to n valid CQEs starting at cq->ci (caller holds poll_lock). */
static int fetch(struct shim_cq *cq, struct hca_cqe *out, int n)
{
	int k = 0;

	if (!cqe_valid(cq, cq->ci))
		return 0;
	shim_bus_lock(cq->ctx->dev->bus);
	while (k < n && cqe_valid(cq, cq->ci + (uint32_t)k)) {
		out[k] = ((const struct hca_cqe *)cq->ring.va)[(cq->ci + (uint32_t)k) &
								((1u << cq->log_size) - 1)];
		k++;
	}
	shim_bus_unlock(cq->ctx->dev->bus);
	return k;
}

/* Extend a 16-bit index to the 32-bit free-running one nearest above `base`. */
static inline uint32_t extend16(uint32_t base, uint16_t idx)
{
	return base + (uint16_t)(idx - (uint16_t)base);
}

/*
 * The wr_id of the WQE a CQE completes, retiring it (and, for the SQ, every
 * earlier WQE).  0 if the CQE belongs to a QP that no longer exists: such
 * completions are dropped, as kernel drivers clean them out of the CQ when
 * the QP is destroyed.
 */
static int retire(struct shim_cq *cq, const struct hca_cqe *e, uint64_t *wr_id)
{
	struct shim_context *c = cq->ctx;
	struct shim_qp *qp = e->qpn < SHIM_MAX_QPN ? __atomic_load_n(&c->qp_by_num[e->qpn],
								     __ATOMIC_ACQUIRE)
						   : NULL;

	*wr_id = 0;
	if (!qp)
		return 0;
	if (e->opcode & IBV_WC_RECV) {
		if (e->is_srq && qp->srq) {
			struct shim_srq *srq = qp->srq;
			uint32_t slot = e->wqe_index & ((1u << srq->wq.log_size) - 1);

			*wr_id = srq->wq.wrid[slot];
			__atomic_store_n(&srq->busy[slot], 0, __ATOMIC_RELEASE);
		} else if (qp->rq.wrid) {
			uint32_t ci = atomic_load(&qp->rq.ci);

			*wr_id = qp->rq.wrid[e->wqe_index & ((1u << qp->rq.log_size) - 1)];
			atomic_store(&qp->rq.ci, extend16(ci, (uint16_t)(e->wqe_index + 1)));
		}
	} else if (qp->sq.wrid) {
		uint32_t ci = atomic_load(&qp->sq.ci);

		*wr_id = qp->sq.wrid[e->wqe_index & ((1u << qp->sq.log_size) - 1)];
		atomic_store(&qp->sq.ci, extend16(ci, (uint16_t)(e->wqe_index + 1)));
	}
	return 1;
}

static void to_wc(const struct hca_cqe *e, uint64_t wr_id, struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->status = (enum ibv_wc_status)e->status;
	wc->opcode = (enum ibv_wc_opcode)e->opcode;
	wc->vendor_err = e->vendor_err;
	wc->byte_len = e->byte_len;
	wc->imm_data = e->imm_data;	/* already network order */
	wc->qp_num = e->qpn;
	wc->src_qp = e->src_qp;
	wc->wc_flags = e->wc_flags;
	wc->pkey_index = e->pkey_index;
}

static void consumed(struct shim_cq *cq, uint32_t n)
{
	cq->ci += n;
	shim_ring(cq->ctx, HCA_DB_CQ_CI, cq->cqn, cq->ci);
}

int shim_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc)
{
	struct shim_cq *cq = to_scq(ibcq);
	struct hca_cqe buf[POLL_CHUNK];
	int done = 0;

	if (n < 0)
		return -EINVAL;
	pthread_mutex_lock(&cq->poll_lock);
	while (done < n) {
		int want = n - done < POLL_CHUNK ? n - done : POLL_CHUNK;
		int k = fetch(cq, buf, want), out = 0;

		for (int i = 0; i < k; i++) {
			uint64_t wr_id;

			if (retire(cq, &buf[i], &wr_id))
				to_wc(&buf[i], wr_id, &wc[done + out++]);
		}
		if (k)
			consumed(cq, (uint32_t)k);
		done += out;
		if (k < want)
			break;
	}
	pthread_mutex_unlock(&cq->poll_lock);
	if (!done && n) {
		if (cq->ctx->dev->mode == SHIM_MODE_COOP)
			shim_coop_step();
		else if (!shim_device_poll_help(cq->ctx->dev))
			/* A busy-polling application must not starve the device thread
			 * (2 cores, 2 processes each with a poller and a device). */
			sched_yield();
	}
	return done;
}

int shim_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct shim_cq *cq = to_scq(ibcq);

	pthread_mutex_lock(&cq->poll_lock);
	shim_ring(cq->ctx, solicited_only ? HCA_DB_CQ_ARM_SOL : HCA_DB_CQ_ARM, cq->cqn, cq->ci);
	pthread_mutex_unlock(&cq->poll_lock);
	return 0;
}

/* ---- ibv_cq_ex ------------------------------------------------------------------------ */

static struct shim_cq *ex_cq(struct ibv_cq_ex *cq)
{
	return (struct shim_cq *)cq;
}

static int ex_next(struct shim_cq *cq)
{
	uint64_t wr_id;

	do {
		if (!fetch(cq, &cq->cur, 1))
			return ENOENT;
		cq->ci++;
	} while (!retire(cq, &cq->cur, &wr_id));
	cq->cq_ex.wr_id = wr_id;
	cq->cq_ex.status = (enum ibv_wc_status)cq->cur.status;
	return 0;
}

static int ex_start_poll(struct ibv_cq_ex *ibcq, struct ibv_poll_cq_attr *attr)
{
	struct shim_cq *cq = ex_cq(ibcq);
	int ret;

	if (attr && attr->comp_mask)
		return EINVAL;
	pthread_mutex_lock(&cq->poll_lock);
	ret = ex_next(cq);
	if (ret) {
		pthread_mutex_unlock(&cq->poll_lock);
		if (cq->ctx->dev->mode == SHIM_MODE_COOP)
			shim_coop_step();
		return ret;
	}
	cq->polling = 1;	/* poll_lock stays held until end_poll, as mlx5 does */
	return 0;
}

static int ex_next_poll(struct ibv_cq_ex *ibcq)
{
	return ex_next(ex_cq(ibcq));
}

static void ex_end_poll(struct ibv_cq_ex *ibcq)
{
	struct shim_cq *cq = ex_cq(ibcq);

	cq->polling = 0;
	shim_ring(cq->ctx, HCA_DB_CQ_CI, cq->cqn, cq->ci);
	pthread_mutex_unlock(&cq->poll_lock);
}

static enum ibv_wc_opcode ex_opcode(struct ibv_cq_ex *c) { return (enum ibv_wc_opcode)ex_cq(c)->cur.opcode; }
static uint32_t ex_vendor_err(struct ibv_cq_ex *c) { return ex_cq(c)->cur.vendor_err; }
static uint32_t ex_byte_len(struct ibv_cq_ex *c) { return ex_cq(c)->cur.byte_len; }
static __be32 ex_imm_data(struct ibv_cq_ex *c) { return ex_cq(c)->cur.imm_data; }
static uint32_t ex_qp_num(struct ibv_cq_ex *c) { return ex_cq(c)->cur.qpn; }
static uint32_t ex_src_qp(struct ibv_cq_ex *c) { return ex_cq(c)->cur.src_qp; }
static unsigned int ex_wc_flags(struct ibv_cq_ex *c) { return ex_cq(c)->cur.wc_flags; }
static uint32_t ex_slid(struct ibv_cq_ex *c) { (void)c; return 0; }
static uint8_t ex_sl(struct ibv_cq_ex *c) { (void)c; return 0; }
static uint8_t ex_dlid_path_bits(struct ibv_cq_ex *c) { (void)c; return 0; }

#define CQ_EX_SUPPORTED_WC \
	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM | \
	 IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL | \
	 IBV_WC_EX_WITH_DLID_PATH_BITS)

struct ibv_cq_ex *shim_create_cq_ex(struct ibv_context *ctx, struct ibv_cq_init_attr_ex *attr)
{
	struct shim_cq *cq;

	if (attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD))
		return shim_null(EINVAL);
	if (attr->wc_flags & ~(uint64_t)CQ_EX_SUPPORTED_WC)
		return shim_null(EOPNOTSUPP);	/* timestamps, flow tags, ... */
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~(uint32_t)(IBV_CREATE_CQ_ATTR_SINGLE_THREADED |
				       IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN)))
		return shim_null(EOPNOTSUPP);
	if (attr->cqe > (uint32_t)INT32_MAX)
		return shim_null(EINVAL);
	cq = cq_create(ctx, (int)attr->cqe, attr->cq_context, attr->channel,
		       (int)attr->comp_vector, 1);
	if (!cq)
		return NULL;
	cq->cq_ex.start_poll = ex_start_poll;
	cq->cq_ex.next_poll = ex_next_poll;
	cq->cq_ex.end_poll = ex_end_poll;
	cq->cq_ex.read_opcode = ex_opcode;
	cq->cq_ex.read_vendor_err = ex_vendor_err;
	cq->cq_ex.read_byte_len = ex_byte_len;
	cq->cq_ex.read_imm_data = ex_imm_data;
	cq->cq_ex.read_qp_num = ex_qp_num;
	cq->cq_ex.read_src_qp = ex_src_qp;
	cq->cq_ex.read_wc_flags = ex_wc_flags;
	cq->cq_ex.read_slid = ex_slid;
	cq->cq_ex.read_sl = ex_sl;
	cq->cq_ex.read_dlid_path_bits = ex_dlid_path_bits;
	return &cq->cq_ex;
}
