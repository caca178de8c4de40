// SPDX-License-Identifier: MIT
/* The example platform's driver: see vp_host.h. */
#include "vp_host.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int fail(struct vp_host *h, int rc, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(h->err, sizeof(h->err), "host %u: ", h->cfg.id);
	va_start(ap, fmt);
	vsnprintf(h->err + n, sizeof(h->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return rc ? rc : -EIO;
}

static void doorbell(struct vp_host *h, uint32_t reg, uint32_t num, uint32_t idx)
{
	h->ops.bus.write32(h->ops.bus.ctx, HCA_BAR0_DB_BASE + h->uar * HCA_BAR0_DB_PAGE_SIZE + reg,
		       (idx & 0xffff) << 16 | num);
}

/* ---- bring-up and objects ----------------------------------------------------------------- */

static void msix_program(struct vp_host *h)
{
	const struct hca_devctl_bus *b = &h->ops.bus;
	uint32_t e = HCA_BAR0_MSIX_TABLE + 16 * h->cfg.vector;

	b->write32(b->ctx, e + HCA_MSIX_MSG_ADDR_LO, (uint32_t)h->cfg.msi_addr);
	b->write32(b->ctx, e + HCA_MSIX_MSG_ADDR_HI, (uint32_t)(h->cfg.msi_addr >> 32));
	b->write32(b->ctx, e + HCA_MSIX_MSG_DATA, h->cfg.msi_data);
	b->write32(b->ctx, e + HCA_MSIX_VECTOR_CTRL, 0);	/* unmask */
}

static int create_objects(struct vp_host *h)
{
	const uint8_t ip[4] = { (uint8_t)(h->cfg.ip >> 24), (uint8_t)(h->cfg.ip >> 16), (uint8_t)(h->cfg.ip >> 8),
				(uint8_t)h->cfg.ip };
	int rc;

	if ((rc = fwt_set_gid(&h->t, 1, 0, ip)))
		return fail(h, rc, "DEVICE.SET_GID: %d", rc);
	if ((rc = fwt_ctx_alloc(&h->t, &h->ctx, &h->uar)))
		return fail(h, rc, "CONTEXT.ALLOC: %d", rc);
	msix_program(h);
	if ((rc = fwt_eq_create(&h->t, h->ctx, 6, (uint8_t)h->cfg.vector, HCA_EQ_MASK_ASYNC, &h->eq, &h->eqn)))
		return fail(h, rc, "EQ.CREATE: %d", rc);
	h->eq_ring = hostmem_ptr(h->t.hm, h->t.last_ring, HCA_EQE_SIZE << 6);
	if ((rc = fwt_cq_create(&h->t, h->ctx, h->eq, 6, &h->cq, &h->cqn)))
		return fail(h, rc, "CQ.CREATE: %d", rc);
	h->cq_ring = hostmem_ptr(h->t.hm, h->t.last_ring, HCA_CQE_SIZE << 6);
	if ((rc = fwt_pd_alloc(&h->t, h->ctx, &h->pd, &h->pdn)))
		return fail(h, rc, "PD.ALLOC: %d", rc);
	h->buf = hostmem_alloc(h->t.hm, h->cfg.buf_len, &h->buf_iova);
	if (!h->buf)
		return fail(h, -ENOMEM, "no memory for the MR");
	h->buf_va = h->buf_iova + VP_KEY_OFFSET;
	rc = fwt_mr_reg(&h->t, h->ctx, h->pd, h->buf_va, h->cfg.buf_len, h->buf_iova,
			HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_READ, &h->mr, &h->lkey);
	if (rc)
		return fail(h, rc, "MR.REG: %d", rc);
	fwt_qp_init(&h->t, &h->qia, HCA_QPT_RC, 0);
	if ((rc = fwt_qp_create(&h->t, h->ctx, h->pd, h->cq, h->cq, 0, &h->qia, &h->qp, &h->qpn)))
		return fail(h, rc, "QP.CREATE: %d", rc);
	h->sq = hostmem_ptr(h->t.hm, h->qia.sq_base, (size_t)1 << (h->qia.log_sq_size + h->qia.log_sq_stride));
	h->rq = hostmem_ptr(h->t.hm, h->qia.rq_base, (size_t)1 << (h->qia.log_rq_size + h->qia.log_rq_stride));
	if (!h->eq_ring || !h->cq_ring || !h->sq || !h->rq)
		return fail(h, -ENOMEM, "ring memory");
	return 0;
}

int vp_host_open(struct vp_host *h, const struct vp_host_cfg *cfg, const struct vp_host_ops *ops,
		 struct hostmem *hm)
{
	int rc;

	memset(h, 0, sizeof(*h));
	h->cfg = *cfg;
	h->ops = *ops;
	h->t.hm = hm;
	h->sq_psn = 0x1000 + cfg->id;
	if ((rc = hca_devctl_open(&h->ops.bus, &h->t.dc)))
		return fail(h, rc, "devctl open: %d", rc);
	if ((rc = hca_devctl_bringup(h->t.dc, 0)))
		return fail(h, rc, "bring-up: %d (STATUS 0x%x, SYNDROME 0x%x)", rc, hca_devctl_status(h->t.dc),
			    hca_devctl_syndrome(h->t.dc));
	return create_objects(h);
}

void vp_host_close(struct vp_host *h)
{
	hca_devctl_close(h->t.dc);
	h->t.dc = NULL;
}

int vp_host_connect(struct vp_host *h, const struct vp_host *peer)
{
	struct hca_qp_attr a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.qp_state = HCA_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_READ;
	rc = fwt_qp_modify(&h->t, h->ctx, h->qp, &a,
			   HCA_QP_ATTR_STATE | HCA_QP_ATTR_PKEY_INDEX | HCA_QP_ATTR_PORT | HCA_QP_ATTR_ACCESS_FLAGS);
	if (rc)
		return fail(h, rc, "QP.MODIFY to INIT: %d", rc);
	a.qp_state = HCA_QPS_RTR;
	a.path_mtu = HCA_MTU_1024;
	a.dest_qp_num = peer->qpn;
	a.rq_psn = peer->sq_psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.is_global = 1;
	a.sgid_index = 1;
	a.hop_limit = 64;
	a.dgid[10] = a.dgid[11] = 0xff;
	for (int i = 0; i < 4; i++)
		a.dgid[12 + i] = (uint8_t)(peer->cfg.ip >> (24 - 8 * i));
	memcpy(a.dmac, peer->cfg.mac, 6);
	rc = fwt_qp_modify(&h->t, h->ctx, h->qp, &a,
			   HCA_QP_ATTR_STATE | HCA_QP_ATTR_AV | HCA_QP_ATTR_PATH_MTU | HCA_QP_ATTR_DEST_QPN |
				   HCA_QP_ATTR_RQ_PSN | HCA_QP_ATTR_MAX_DEST_RD_ATOMIC | HCA_QP_ATTR_MIN_RNR_TIMER);
	if (rc)
		return fail(h, rc, "QP.MODIFY to RTR: %d", rc);
	a.qp_state = HCA_QPS_RTS;
	a.sq_psn = h->sq_psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	rc = fwt_qp_modify(&h->t, h->ctx, h->qp, &a,
			   HCA_QP_ATTR_STATE | HCA_QP_ATTR_SQ_PSN | HCA_QP_ATTR_TIMEOUT | HCA_QP_ATTR_RETRY_CNT |
				   HCA_QP_ATTR_RNR_RETRY | HCA_QP_ATTR_MAX_QP_RD_ATOMIC);
	if (rc)
		return fail(h, rc, "QP.MODIFY to RTS: %d", rc);
	return 0;
}

/* ---- data path ---------------------------------------------------------------------------- */

int vp_host_post_recv(struct vp_host *h, uint64_t off, uint32_t len)
{
	size_t stride = (size_t)1 << h->qia.log_rq_stride;
	uint8_t *w = h->rq + (h->rq_pi & ((1u << h->qia.log_rq_size) - 1)) * stride;
	struct hca_recv_wqe_hdr hdr = { .num_sge = 1, .wqe_index = h->rq_pi };
	struct hca_wqe_data_seg d = { .byte_count = len, .lkey = h->lkey, .addr = h->buf_va + off };

	memset(w, 0, stride);
	memcpy(w, &hdr, sizeof(hdr));
	memcpy(w + HCA_WQE_RECV_HDR_SIZE, &d, sizeof(d));
	h->rq_pi++;
	doorbell(h, HCA_DB_RQ_PI, h->qpn, h->rq_pi);
	return (uint16_t)(h->rq_pi - 1);
}

int vp_host_post_send(struct vp_host *h, uint8_t opcode, uint64_t off, uint32_t len, uint64_t raddr,
		      uint32_t rkey)
{
	return vp_host_post_send_sge(h, opcode, h->buf_va + off, len, h->lkey, raddr, rkey);
}

int vp_host_post_send_sge(struct vp_host *h, uint8_t opcode, uint64_t addr, uint32_t len, uint32_t lkey,
			  uint64_t raddr, uint32_t rkey)
{
	size_t stride = (size_t)1 << h->qia.log_sq_stride;
	uint8_t *w = h->sq + (h->sq_pi & ((1u << h->qia.log_sq_size) - 1)) * stride;
	struct hca_wqe_ctrl_seg c = { .opcode = opcode, .send_flags = HCA_SEND_SIGNALED, .num_sge = 1,
				      .wqe_index = h->sq_pi };
	struct hca_wqe_raddr_seg r = { .remote_addr = raddr, .rkey = rkey };
	struct hca_wqe_data_seg d = { .byte_count = len, .lkey = lkey, .addr = addr };

	memset(w, 0, stride);
	memcpy(w + HCA_WQE_RADDR_OFF, &r, sizeof(r));
	memcpy(w + HCA_WQE_DATA_OFF, &d, sizeof(d));
	memcpy(w, &c, sizeof(c));
	h->sq_pi++;
	doorbell(h, HCA_DB_SQ_PI, h->qpn, h->sq_pi);
	return (uint16_t)(h->sq_pi - 1);
}

static int cq_poll(struct vp_host *h, struct hca_cqe *out)
{
	const struct hca_cqe *e = &h->cq_ring[h->cq_ci & 63];

	if ((e->owner & 1) != (((h->cq_ci >> 6) & 1) ^ 1))
		return 0;
	*out = *e;
	h->cq_ci++;
	doorbell(h, HCA_DB_CQ_CI, h->cqn, h->cq_ci);
	return 1;
}

/* Consume the EQ after an interrupt and re-arm it. */
static void eq_drain(struct vp_host *h)
{
	for (;;) {
		const struct hca_eqe *e = &h->eq_ring[h->eq_ci & 63];

		if ((e->owner & 1) != (((h->eq_ci >> 6) & 1) ^ 1))
			break;
		h->eqes++;
		if (e->type == HCA_EQE_TYPE_ASYNC)
			fail(h, 0, "async event %s on element %u", hca_event_type_name(e->subtype), e->element);
		h->eq_ci++;
	}
	doorbell(h, HCA_DB_EQ_ARM, h->eqn, h->eq_ci);
}

int vp_host_wait_cqe(struct vp_host *h, struct hca_cqe *out)
{
	for (int round = 0; round < 64; round++) {
		if (cq_poll(h, out))
			return 0;
		doorbell(h, HCA_DB_CQ_ARM, h->cqn, h->cq_ci);
		if (!h->ops.wait_msi(h->ops.bus.ctx, h->cfg.msi_data, VP_WAIT_CYCLES))
			return fail(h, -ETIMEDOUT, "no completion interrupt in %llu cycles (CQ %u, ci %u)",
				    (unsigned long long)VP_WAIT_CYCLES, h->cqn, h->cq_ci);
		h->irqs++;
		eq_drain(h);
		/* The event may be raised when the CQE's slot is reserved, a few
		 * cycles before the CQE is written. */
		for (int k = 0; k < 256; k++) {
			if (cq_poll(h, out))
				return 0;
			h->ops.bus.wait(h->ops.bus.ctx, 8);
		}
	}
	return fail(h, -EIO, "64 interrupts without a completion (CQ %u)", h->cqn);
}
