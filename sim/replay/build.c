// SPDX-License-Identifier: MIT
/*
 * The device of a replay: created on the chosen backend, brought up over
 * BAR0, and given everything the setup file names through the firmware's
 * command queue (sim/devctl), exactly as a driver would -- GIDs, a context,
 * an async-event EQ, PDs, MRs, CQs, QPs moved to their state, receive WQEs
 * posted in host memory with doorbells.
 *
 * Numbers the capture depends on (QPN, rkey) are the firmware's to choose.
 * When the setup names one, it is obtained from the firmware itself: the
 * firmware hands out the lowest free table index (and, for an MR, the next
 * key byte of that index), so placeholder objects are created below the
 * wanted index and an MR at the index is registered again until its key
 * byte comes round.  The placeholders are destroyed afterwards.  A number
 * the device can never hand out is an error naming the setup line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../driver-shim/gid.h"
#include "../../model/model.h"
#include "device.h"
#include "hostmem.h"
#include "lockstep.h"
#include "lockstep_mutant.h"
#include "replay.h"
#include "rtl/rtl_engine.h"

void rp_register_backends(void)
{
	hca_model_engine_register();
	hca_rtl_engine_register();
	hca_lockstep_engine_register();
	hca_mutant_engine_register();
	hca_device_register_all();
}

/* ---- host callbacks: host memory behind the IOMMU, and the recorders ---- */

static int host_dma_read(void *ctx, uint64_t iova, void *buf, size_t len)
{
	struct rp_dev *d = ctx;
	int rc = hostmem_dma_read(d->hm, iova, buf, len);

	if (d->obs) {
		d->obs->dma_reads++;
		d->obs->dma_read_bytes += len;
		d->obs->dma_read_faults += rc != 0;
	}
	return rc;
}

static int host_dma_write(void *ctx, uint64_t iova, const void *buf, size_t len)
{
	struct rp_dev *d = ctx;
	int rc = hostmem_dma_write(d->hm, iova, buf, len);

	if (d->obs)
		rp_obs_add_dma(d->obs, iova, len, rc != 0);
	return rc;
}

static void host_tx(void *ctx, const uint8_t *frame, size_t len)
{
	struct rp_dev *d = ctx;

	if (d->obs)
		rp_obs_add_tx(d->obs, d->be->now(d->dev), frame, len);
}

static void host_irq(void *ctx, unsigned int vector)
{
	struct rp_dev *d = ctx;

	(void)vector;
	d->irqs++;
}

static const struct hca_host_ops host_ops = {
	.dma_read = host_dma_read,
	.dma_write = host_dma_write,
	.tx_frame = host_tx,
	.interrupt = host_irq,
};

/* ---- commands ---- */

/* Run a command; on failure d->err says which object (setup line) and why. */
static int exec(struct rp_dev *d, struct hca_cmd *c, const struct rp_setup *s, unsigned int line,
		const char *what)
{
	int rc = hca_devctl_exec(d->dc, c);
	char where[300];

	if (!rc)
		return 0;
	if (line)
		snprintf(where, sizeof(where), "%s:%u: %s", s->path, line, what);
	else
		snprintf(where, sizeof(where), "%s", what);
	if (rc > 0)
		snprintf(d->err, sizeof(d->err), "%s: the firmware refused it: %s (status %d, syndrome reason %u, "
			 "attribute %u)", where, strerror(rc), rc,
			 (unsigned int)HCA_FIELD_GET(c->syndrome, HCA_CMDQ_ENTRY_SYNDROME_REASON),
			 (unsigned int)HCA_FIELD_GET(c->syndrome, HCA_CMDQ_ENTRY_SYNDROME_ATTR));
	else
		snprintf(d->err, sizeof(d->err), "%s: command failed: %s", where, strerror(-rc));
	return rc > 0 ? -rc : rc;
}

static int destroy(struct rp_dev *d, uint16_t obj, uint16_t method, uint32_t handle)
{
	struct hca_cmd c;

	hca_cmd_init(&c, obj, method, d->ctx);
	hca_cmd_idr(&c, 0, handle);	/* HANDLE is attribute 0 of every destroy method */
	return exec(d, &c, NULL, 0, "destroy");
}

static int set_gid(struct rp_dev *d, const struct rp_setup *s, uint32_t index, const uint8_t gid[16])
{
	struct hca_cmd c;

	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_SET_GID, 0);
	hca_cmd_in_u32(&c, HCA_ATTR_DEVICE_SET_GID_PORT_NUM, 1);
	hca_cmd_in_u32(&c, HCA_ATTR_DEVICE_SET_GID_INDEX, index);
	hca_cmd_enum(&c, HCA_ATTR_DEVICE_SET_GID_ADDR, HCA_ATTR_DEVICE_SET_GID_ADDR_IPV6, gid, 16);
	return exec(d, &c, s, 0, "DEVICE.SET_GID");
}

static void *mem(struct rp_dev *d, size_t len, uint64_t *iova)
{
	void *p = hostmem_alloc(d->hm, len, iova);

	if (!p)
		snprintf(d->err, sizeof(d->err), "out of host memory (%zu bytes)", len);
	return p;
}

static unsigned int log2_ceil(uint32_t v)
{
	unsigned int l = 0;

	while ((1ull << l) < v)
		l++;
	return l;
}

static int device_setup(struct rp_dev *d, const struct rp_setup *s)
{
	uint8_t gid[16];
	struct hca_eq_init_attr ia;
	struct hca_eq_create_resp resp;
	struct hca_cmd c;
	int rc;

	shim_gid_link_local(s->mac, gid);
	rc = set_gid(d, s, 0, gid);
	shim_gid_from_ipv4(s->ip, gid);
	if (!rc)
		rc = set_gid(d, s, 1, gid);
	if (rc)
		return rc;
	hca_cmd_init(&c, HCA_OBJ_CONTEXT, HCA_METHOD_CONTEXT_ALLOC, 0);
	hca_cmd_idr_new(&c, HCA_ATTR_CONTEXT_ALLOC_HANDLE, &d->ctx);
	hca_cmd_out(&c, HCA_ATTR_CONTEXT_ALLOC_UAR_INDEX, &d->uar, 4);
	rc = exec(d, &c, s, 0, "CONTEXT.ALLOC");
	if (rc)
		return rc;
	/* One EQ for the context's asynchronous events (docs/programming.md 6.2). */
	memset(&ia, 0, sizeof(ia));
	d->eq_log = 8;
	ia.log_size = (uint8_t)d->eq_log;
	ia.event_mask = HCA_EQ_MASK_ASYNC;
	d->eq_ring = mem(d, (size_t)HCA_EQE_SIZE << d->eq_log, &ia.base);
	if (!d->eq_ring)
		return -ENOMEM;
	d->eq_iova = ia.base;
	hca_cmd_init(&c, HCA_OBJ_EQ, HCA_METHOD_EQ_CREATE, d->ctx);
	hca_cmd_idr_new(&c, HCA_ATTR_EQ_CREATE_HANDLE, &d->eq);
	hca_cmd_in(&c, HCA_ATTR_EQ_CREATE_INIT_ATTR, &ia, sizeof(ia));
	hca_cmd_out(&c, HCA_ATTR_EQ_CREATE_RESP, &resp, sizeof(resp));
	rc = exec(d, &c, s, 0, "EQ.CREATE");
	d->eqn = resp.eqn;
	return rc;
}

static int pd_alloc(struct rp_dev *d, const struct rp_setup *s, struct rp_pd *p)
{
	struct hca_cmd c;
	char what[64];

	snprintf(what, sizeof(what), "[pd %s] PD.ALLOC", p->name);
	hca_cmd_init(&c, HCA_OBJ_PD, HCA_METHOD_PD_ALLOC, d->ctx);
	hca_cmd_idr_new(&c, HCA_ATTR_PD_ALLOC_HANDLE, &p->handle);
	hca_cmd_out(&c, HCA_ATTR_PD_ALLOC_PDN, &p->pdn, 4);
	return exec(d, &c, s, p->line, what);
}

/* ---- MRs ---- */

static int mr_reg(struct rp_dev *d, const struct rp_setup *s, struct rp_mr *m)
{
	struct hca_cmd c;
	uint32_t rkey;
	char what[64];

	snprintf(what, sizeof(what), "[mr %s] MR.REG", m->name);
	hca_cmd_init(&c, HCA_OBJ_MR, HCA_METHOD_MR_REG, d->ctx);
	hca_cmd_idr_new(&c, HCA_ATTR_MR_REG_HANDLE, &m->handle);
	hca_cmd_idr(&c, HCA_ATTR_MR_REG_PD, s->pd[m->pd].handle);
	hca_cmd_in_u64(&c, HCA_ATTR_MR_REG_ADDR, m->addr);
	hca_cmd_in_u64(&c, HCA_ATTR_MR_REG_LENGTH, m->length);
	hca_cmd_in_u64(&c, HCA_ATTR_MR_REG_DMA_ADDR, m->iova);
	hca_cmd_in_u32(&c, HCA_ATTR_MR_REG_ACCESS, m->access);
	hca_cmd_out(&c, HCA_ATTR_MR_REG_LKEY, &m->key, 4);
	hca_cmd_out(&c, HCA_ATTR_MR_REG_RKEY, &rkey, 4);
	return exec(d, &c, s, m->line, what);
}

static int mr_fail(struct rp_dev *d, const struct rp_setup *s, const struct rp_mr *m, const char *why)
{
	snprintf(d->err, sizeof(d->err), "%s:%u: [mr %s] rkey 0x%x: %s; use a key the device has "
		 "(leave rkey out to see the one it gives) or rewrite the capture's rkey (docs/replay.md)",
		 s->path, m->line, m->name, m->rkey, why);
	return -EINVAL;
}

/*
 * Register m with the key it names: placeholders (1-byte MRs over `spare`)
 * fill the indices below, then m is registered again until the key byte the
 * firmware gives at its index is the wanted one.
 */
static int mr_claim(struct rp_dev *d, const struct rp_setup *s, struct rp_mr *m, struct rp_mr *spare,
		    uint32_t *holders, unsigned int *nholders, unsigned int max_holders)
{
	uint32_t want_index = m->rkey >> 8;
	int rc;

	for (unsigned int tries = 0; tries < 257 + max_holders; tries++) {
		rc = mr_reg(d, s, m);
		if (rc)
			return rc;
		if (m->key == m->rkey)
			return 0;
		if ((m->key >> 8) > want_index)
			return mr_fail(d, s, m, want_index ? "its MR index is already taken or beyond the device's "
							    "MR table" : "MR index 0 is never used");
		if ((m->key >> 8) == want_index) {
			rc = destroy(d, HCA_OBJ_MR, HCA_METHOD_MR_DEREG, m->handle);
		} else {
			/* below the wanted index: keep a placeholder there instead */
			rc = destroy(d, HCA_OBJ_MR, HCA_METHOD_MR_DEREG, m->handle);
			if (!rc) {
				if (*nholders >= max_holders)
					return mr_fail(d, s, m, "too many placeholders needed");
				rc = mr_reg(d, s, spare);
				holders[(*nholders)++] = spare->handle;
			}
		}
		if (rc)
			return rc;
	}
	return mr_fail(d, s, m, "the firmware never gave that key byte");
}

static int mr_create_all(struct rp_dev *d, struct rp_setup *s)
{
	uint32_t *holders = NULL;
	unsigned int nholders = 0, max_holders = 1u << HCA_CAP_LOG_MAX_MR;
	struct rp_mr spare;
	bool done[RP_MAX_MR] = { false };
	int rc = 0;

	for (unsigned int i = 0; i < s->nmr; i++) {
		struct rp_mr *m = &s->mr[i];

		m->buf = mem(d, (size_t)m->length, &m->iova);
		if (!m->buf)
			return -ENOMEM;
		if (m->fill >= 0)
			memset(m->buf, m->fill, (size_t)m->length);
		if (m->data)
			memcpy(m->buf, m->data, m->data_len);
	}
	/* Named keys first, lowest index first (the firmware fills from the bottom). */
	for (;;) {
		struct rp_mr *m = NULL;

		for (unsigned int i = 0; i < s->nmr; i++)
			if (s->mr[i].have_rkey && !done[i] && (!m || s->mr[i].rkey < m->rkey))
				m = &s->mr[i];
		if (!m)
			break;
		done[m - s->mr] = true;
		if (!holders) {
			holders = calloc(max_holders, sizeof(*holders));
			if (!holders)
				return -ENOMEM;
			memset(&spare, 0, sizeof(spare));
			snprintf(spare.name, sizeof(spare.name), "placeholder");
			spare.pd = m->pd;
			spare.length = 1;
			spare.access = HCA_ACCESS_LOCAL_WRITE;
			if (!mem(d, 4096, &spare.iova)) {
				free(holders);
				return -ENOMEM;
			}
		}
		rc = mr_claim(d, s, m, &spare, holders, &nholders, max_holders);
		if (rc)
			break;
	}
	for (unsigned int i = 0; i < nholders && !rc; i++)
		rc = destroy(d, HCA_OBJ_MR, HCA_METHOD_MR_DEREG, holders[i]);
	free(holders);
	for (unsigned int i = 0; i < s->nmr && !rc; i++)
		if (!s->mr[i].have_rkey)
			rc = mr_reg(d, s, &s->mr[i]);
	return rc;
}

/* ---- CQs ---- */

static int cq_create(struct rp_dev *d, const struct rp_setup *s, struct rp_cq *q)
{
	struct hca_cq_init_attr ia;
	struct hca_cq_create_resp resp;
	struct hca_cmd c;
	char what[64];
	int rc;

	memset(&ia, 0, sizeof(ia));
	q->log_size = log2_ceil(q->entries);
	ia.log_size = (uint8_t)q->log_size;
	ia.cqe = q->entries;
	q->ring = mem(d, (size_t)HCA_CQE_SIZE << q->log_size, &ia.base);
	if (!q->ring)
		return -ENOMEM;
	q->iova = ia.base;
	snprintf(what, sizeof(what), "[cq %s] CQ.CREATE", q->name);
	hca_cmd_init(&c, HCA_OBJ_CQ, HCA_METHOD_CQ_CREATE, d->ctx);
	hca_cmd_idr_new(&c, HCA_ATTR_CQ_CREATE_HANDLE, &q->handle);
	hca_cmd_in(&c, HCA_ATTR_CQ_CREATE_INIT_ATTR, &ia, sizeof(ia));
	hca_cmd_out(&c, HCA_ATTR_CQ_CREATE_RESP, &resp, sizeof(resp));
	rc = exec(d, &c, s, q->line, what);
	q->cqn = resp.cqn;
	return rc;
}

/* ---- QPs ---- */

static int qp_rings(struct rp_dev *d, struct rp_qp *q, struct hca_qp_init_attr *ia)
{
	unsigned int sq_stride = log2_ceil(64 + 16);	/* one SGE, no inline data */

	memset(ia, 0, sizeof(*ia));
	ia->qp_type = q->type;
	ia->max_send_wr = q->max_send_wr ? q->max_send_wr : 1;
	ia->max_send_sge = 1;
	ia->log_sq_size = (uint8_t)log2_ceil(ia->max_send_wr);
	ia->log_sq_stride = (uint8_t)(sq_stride < HCA_WQE_LOG_MIN_SQ_STRIDE ? HCA_WQE_LOG_MIN_SQ_STRIDE : sq_stride);
	if (!mem(d, (size_t)1 << (ia->log_sq_size + ia->log_sq_stride), &ia->sq_base))
		return -ENOMEM;
	ia->max_recv_wr = q->max_recv_wr ? q->max_recv_wr : 1;
	ia->max_recv_sge = q->max_recv_sge;
	q->log_rq_size = log2_ceil(ia->max_recv_wr);
	q->log_rq_stride = log2_ceil(HCA_RECV_WQE_HDR_SIZE + HCA_WQE_DATA_SEG_SIZE * q->max_recv_sge);
	if (q->log_rq_stride < HCA_WQE_LOG_MIN_RQ_STRIDE)
		q->log_rq_stride = HCA_WQE_LOG_MIN_RQ_STRIDE;
	ia->log_rq_size = (uint8_t)q->log_rq_size;
	ia->log_rq_stride = (uint8_t)q->log_rq_stride;
	q->rq = mem(d, (size_t)1 << (q->log_rq_size + q->log_rq_stride), &q->rq_iova);
	if (!q->rq)
		return -ENOMEM;
	ia->rq_base = q->rq_iova;
	return 0;
}

static int qp_create(struct rp_dev *d, const struct rp_setup *s, struct rp_qp *q,
		     const struct hca_qp_init_attr *ia, uint32_t *handle, uint32_t *qpn)
{
	struct hca_qp_create_resp resp;
	struct hca_cmd c;
	char what[64];
	int rc;

	snprintf(what, sizeof(what), "[qp %s] QP.CREATE", q->name);
	hca_cmd_init(&c, HCA_OBJ_QP, HCA_METHOD_QP_CREATE, d->ctx);
	hca_cmd_idr_new(&c, HCA_ATTR_QP_CREATE_HANDLE, handle);
	hca_cmd_idr(&c, HCA_ATTR_QP_CREATE_PD, s->pd[q->pd].handle);
	hca_cmd_idr(&c, HCA_ATTR_QP_CREATE_SEND_CQ, s->cq[q->send_cq].handle);
	hca_cmd_idr(&c, HCA_ATTR_QP_CREATE_RECV_CQ, s->cq[q->recv_cq].handle);
	hca_cmd_in(&c, HCA_ATTR_QP_CREATE_INIT_ATTR, ia, sizeof(*ia));
	hca_cmd_out(&c, HCA_ATTR_QP_CREATE_RESP, &resp, sizeof(resp));
	rc = exec(d, &c, s, q->line, what);
	*qpn = resp.qpn;
	return rc;
}

/* Create q; with a named QPN, placeholders (same rings, never used) take the numbers below. */
static int qp_claim(struct rp_dev *d, const struct rp_setup *s, struct rp_qp *q, uint32_t *holders,
		    unsigned int *nholders, unsigned int max_holders)
{
	struct hca_qp_init_attr ia;
	int rc = qp_rings(d, q, &ia);

	while (!rc) {
		rc = qp_create(d, s, q, &ia, &q->handle, &q->qpn);
		if (rc || !q->have_qpn || q->qpn == q->want_qpn)
			return rc;
		if (q->qpn > q->want_qpn || *nholders >= max_holders) {
			snprintf(d->err, sizeof(d->err), "%s:%u: [qp %s] qpn 0x%x: %s; rewrite the capture's "
				 "destination QPN (docs/replay.md)", s->path, q->line, q->name, q->want_qpn,
				 q->want_qpn < 2 ? "QPNs 0 and 1 are special (QP0/QP1) and never handed out"
						 : "taken, or beyond the device's QP table");
			return -EINVAL;
		}
		holders[(*nholders)++] = q->handle;
	}
	return rc;
}

static int qp_modify(struct rp_dev *d, const struct rp_setup *s, struct rp_qp *q, uint8_t state,
		     uint32_t mask)
{
	struct hca_qp_attr a = q->attr;
	struct hca_cmd c;
	char what[80];

	a.qp_state = state;
	a.port_num = 1;
	a.pkey_index = 0;
	a.is_global = 1;
	a.sgid_index = 1;	/* the IPv4 GID */
	snprintf(what, sizeof(what), "[qp %s] QP.MODIFY to %s", q->name, hca_qp_state_name(state));
	hca_cmd_init(&c, HCA_OBJ_QP, HCA_METHOD_QP_MODIFY, d->ctx);
	hca_cmd_idr(&c, HCA_ATTR_QP_MODIFY_HANDLE, q->handle);
	hca_cmd_in(&c, HCA_ATTR_QP_MODIFY_ATTR, &a, sizeof(a));
	hca_cmd_in_u32(&c, HCA_ATTR_QP_MODIFY_ATTR_MASK, mask);
	return exec(d, &c, s, q->line, what);
}

/* RESET -> INIT -> RTR -> RTS as far as q->state, with the attributes IB requires (programming.md 4.6). */
static int qp_bring_up(struct rp_dev *d, const struct rp_setup *s, struct rp_qp *q)
{
	const uint32_t base = HCA_QP_ATTR_STATE;
	uint32_t init, rtr, rts;
	int rc;

	if (q->type == HCA_QPT_UD) {
		init = base | HCA_QP_ATTR_PKEY_INDEX | HCA_QP_ATTR_PORT | HCA_QP_ATTR_QKEY;
		rtr = base;
		rts = base | HCA_QP_ATTR_SQ_PSN;
	} else {
		init = base | HCA_QP_ATTR_PKEY_INDEX | HCA_QP_ATTR_PORT | HCA_QP_ATTR_ACCESS_FLAGS;
		rtr = base | HCA_QP_ATTR_AV | HCA_QP_ATTR_PATH_MTU | HCA_QP_ATTR_DEST_QPN | HCA_QP_ATTR_RQ_PSN;
		rts = base | HCA_QP_ATTR_SQ_PSN;
		if (q->type == HCA_QPT_RC) {
			rtr |= HCA_QP_ATTR_MAX_DEST_RD_ATOMIC | HCA_QP_ATTR_MIN_RNR_TIMER;
			rts |= HCA_QP_ATTR_TIMEOUT | HCA_QP_ATTR_RETRY_CNT | HCA_QP_ATTR_RNR_RETRY |
			       HCA_QP_ATTR_MAX_QP_RD_ATOMIC;
		}
	}
	rc = qp_modify(d, s, q, HCA_QPS_INIT, init);
	if (!rc && q->state >= HCA_QPS_RTR)
		rc = qp_modify(d, s, q, HCA_QPS_RTR, rtr);
	if (!rc && q->state >= HCA_QPS_RTS)
		rc = qp_modify(d, s, q, HCA_QPS_RTS, rts);
	q->last_state = rc ? HCA_QPS_RESET : q->state;
	return rc;
}

static int qp_create_all(struct rp_dev *d, struct rp_setup *s)
{
	unsigned int nholders = 0, max_holders = 1u << HCA_CAP_LOG_MAX_QP;
	uint32_t *holders = calloc(max_holders, sizeof(*holders));
	bool done[RP_MAX_QP] = { false };
	int rc = 0;

	if (!holders)
		return -ENOMEM;
	/* Named QPNs first, lowest first; then the others take what is left. */
	for (int pass = 0; pass < 2 && !rc; pass++) {
		for (;;) {
			struct rp_qp *q = NULL;

			for (unsigned int i = 0; i < s->nqp; i++)
				if (!done[i] && s->qp[i].have_qpn == !pass &&
				    (!q || s->qp[i].want_qpn < q->want_qpn))
					q = &s->qp[i];
			if (!q)
				break;
			done[q - s->qp] = true;
			rc = qp_claim(d, s, q, holders, &nholders, max_holders);
			if (rc)
				break;
		}
		for (unsigned int i = 0; i < nholders && !rc; i++)
			rc = destroy(d, HCA_OBJ_QP, HCA_METHOD_QP_DESTROY, holders[i]);
		nholders = 0;
	}
	free(holders);
	for (unsigned int i = 0; i < s->nqp && !rc; i++)
		rc = qp_bring_up(d, s, &s->qp[i]);
	return rc;
}

static int post_recv(struct rp_dev *d, struct rp_setup *s, const struct rp_recv *r)
{
	struct rp_qp *q = &s->qp[r->qp];
	uint8_t *w = q->rq + ((size_t)(q->rq_pi & ((1u << q->log_rq_size) - 1)) << q->log_rq_stride);
	struct hca_recv_wqe_hdr h;

	if (q->rq_pi >= (q->max_recv_wr ? q->max_recv_wr : 1)) {
		snprintf(d->err, sizeof(d->err), "%s:%u: [qp %s] more receive WQEs than max_recv_wr %u",
			 s->path, r->line, q->name, q->max_recv_wr);
		return -EINVAL;
	}
	memset(&h, 0, sizeof(h));
	h.num_sge = (uint8_t)r->num_sge;
	h.wqe_index = q->rq_pi;
	memcpy(w, &h, sizeof(h));
	for (unsigned int i = 0; i < r->num_sge; i++) {
		struct hca_wqe_data_seg g = {
			.byte_count = r->sge[i].len,
			.lkey = s->mr[r->sge[i].mr].key,
			.addr = r->sge[i].addr,
		};

		memcpy(w + sizeof(h) + i * sizeof(g), &g, sizeof(g));
	}
	q->rq_pi++;
	d->be->mmio_write(d->dev, HCA_BAR0_DB_BASE + d->uar * HCA_BAR0_DB_PAGE_SIZE + HCA_DB_RQ_PI,
			  (uint32_t)q->rq_pi << 16 | (q->qpn & 0xffff));
	return 0;
}

static void describe(FILE *log, const struct rp_dev *d, const struct rp_setup *s)
{
	char acc[80];

	if (!log)
		return;
	fprintf(log, "device: mac %02x:%02x:%02x:%02x:%02x:%02x ip %u.%u.%u.%u (GID 1), async EQ %u\n",
		s->mac[0], s->mac[1], s->mac[2], s->mac[3], s->mac[4], s->mac[5], s->ip >> 24,
		(s->ip >> 16) & 0xff, (s->ip >> 8) & 0xff, s->ip & 0xff, d->eqn);
	for (unsigned int i = 0; i < s->npd; i++)
		fprintf(log, "pd %s: pdn %u\n", s->pd[i].name, s->pd[i].pdn);
	for (unsigned int i = 0; i < s->nmr; i++) {
		const struct rp_mr *m = &s->mr[i];

		fprintf(log, "mr %s: lkey/rkey 0x%x, va 0x%llx..0x%llx (%llu bytes) at iova 0x%llx, %s\n", m->name,
			m->key, (unsigned long long)m->addr, (unsigned long long)(m->addr + m->length - 1),
			(unsigned long long)m->length, (unsigned long long)m->iova,
			rp_access_str(m->access, acc, sizeof(acc)));
	}
	for (unsigned int i = 0; i < s->ncq; i++)
		fprintf(log, "cq %s: cqn %u, %u entries\n", s->cq[i].name, s->cq[i].cqn, 1u << s->cq[i].log_size);
	for (unsigned int i = 0; i < s->nqp; i++) {
		const struct rp_qp *q = &s->qp[i];

		fprintf(log, "qp %s: %s qpn 0x%x in %s", q->name, hca_qp_type_name(q->type), q->qpn,
			hca_qp_state_name(q->state));
		if (q->type == HCA_QPT_UD)
			fprintf(log, ", qkey 0x%x", q->attr.qkey);
		else if (q->state >= HCA_QPS_RTR)
			fprintf(log, ", ePSN 0x%x, sq_psn 0x%x, peer qpn 0x%x at %u.%u.%u.%u, path_mtu %u, access %s",
				q->attr.rq_psn, q->attr.sq_psn, q->attr.dest_qp_num, q->attr.dgid[12],
				q->attr.dgid[13], q->attr.dgid[14], q->attr.dgid[15], 128u << q->attr.path_mtu,
				rp_access_str(q->attr.qp_access_flags, acc, sizeof(acc)));
		fprintf(log, ", %u receive WQEs posted\n", q->rq_pi);
	}
}

int rp_dev_open(struct rp_dev *d, const struct rp_dev_opts *o, struct rp_setup *s, FILE *log)
{
	struct hca_dev_config cfg;
	struct hca_devctl_bus bus;
	int rc;

	memset(d, 0, sizeof(*d));
	rp_register_backends();
	d->be = hca_backend_find(o->backend);
	if (!d->be) {
		snprintf(d->err, sizeof(d->err), "no backend \"%s\" (this program has: %s)", o->backend,
			 hca_backend_names());
		return -ENOENT;
	}
	d->hm = hostmem_create();
	if (!d->hm) {
		snprintf(d->err, sizeof(d->err), "out of memory");
		return -ENOMEM;
	}
	memset(&cfg, 0, sizeof(cfg));
	memcpy(cfg.mac, s->mac, 6);
	cfg.data_w = o->width;
	cfg.seed = o->seed;
	cfg.options = o->options;
	cfg.trace = o->trace;
	cfg.trace_from = o->trace_from;
	cfg.trace_to = o->trace_to;
	rc = d->be->create(&cfg, &host_ops, d, &d->dev);
	if (rc) {
		d->dev = NULL;
		snprintf(d->err, sizeof(d->err), "cannot create a \"%s\" device: %s", o->backend, strerror(-rc));
		return rc;
	}
	d->sim.be = d->be;
	d->sim.dev = d->dev;
	d->sim.hm = d->hm;
	hca_devctl_sim_bus(&d->sim, &bus);
	rc = hca_devctl_open(&bus, &d->dc);
	if (!rc)
		rc = hca_devctl_bringup(d->dc, 0);
	if (rc) {
		snprintf(d->err, sizeof(d->err), "device bring-up failed: %s (syndrome 0x%x)%s%s", strerror(-rc),
			 d->dc ? hca_devctl_syndrome(d->dc) : 0, d->be->last_error ? ": " : "",
			 d->be->last_error ? d->be->last_error(d->dev) : "");
		return rc;
	}
	rc = device_setup(d, s);
	for (unsigned int i = 0; i < s->npd && !rc; i++)
		rc = pd_alloc(d, s, &s->pd[i]);
	if (!rc)
		rc = mr_create_all(d, s);
	for (unsigned int i = 0; i < s->ncq && !rc; i++)
		rc = cq_create(d, s, &s->cq[i]);
	if (!rc)
		rc = qp_create_all(d, s);
	for (unsigned int i = 0; i < s->nrecv && !rc; i++)
		rc = post_recv(d, s, &s->recv[i]);
	if (rc)
		return rc;
	describe(log, d, s);
	return 0;
}

void rp_dev_close(struct rp_dev *d)
{
	hca_devctl_close(d->dc);
	if (d->dev)
		d->be->destroy(d->dev);
	if (d->hm)
		hostmem_destroy(d->hm);
	d->dc = NULL;
	d->dev = NULL;
	d->hm = NULL;
}
