// SPDX-License-Identifier: MIT
/* QP create, query and destroy (docs/programming.md 4.5, 5). */
#include <string.h>

#include "fw_handlers.h"

/* Send WQE stride: smallest power of two >= 64 + 16 * max(sge, ceil(inline/16)). */
int fw_sq_stride_ok(uint8_t log_stride, uint32_t max_sge, uint32_t max_inline)
{
	uint32_t segs = (max_inline + 15) / 16;

	if (log_stride < HCA_WQE_LOG_MIN_SQ_STRIDE || log_stride > HCA_WQE_LOG_MAX_SQ_STRIDE)
		return 0;
	if (max_sge > segs)
		segs = max_sge;
	return (1u << log_stride) >= HCA_WQE_HDR_SIZE + HCA_WQE_DATA_SEG_SIZE * segs;
}

/* A ring of 2^log_size entries of 2^log_stride bytes at base: aligned to
 * its stride and not wrapping the IOVA space. */
static int ring_ok(uint64_t base, uint8_t log_size, uint8_t log_stride)
{
	return !(base & ((1ull << log_stride) - 1)) &&
	       base + (1ull << (log_size + log_stride)) > base;
}

static int check_init_attr(const struct fw_caps *c, const struct hca_qp_init_attr *ia, int has_srq)
{
	if (ia->sq_sig_all > 1)
		return 0;
	if (ia->log_sq_size > c->log_max_wqe || ia->max_send_wr > (1u << ia->log_sq_size) ||
	    ia->max_send_sge > c->max_sge || ia->max_inline_data > c->max_inline ||
	    !fw_sq_stride_ok(ia->log_sq_stride, ia->max_send_sge, ia->max_inline_data) ||
	    !ring_ok(ia->sq_base, ia->log_sq_size, ia->log_sq_stride))
		return 0;
	if (has_srq)
		return !ia->log_rq_size && !ia->log_rq_stride && !ia->max_recv_wr &&
		       !ia->max_recv_sge && !ia->rq_base;
	return ia->log_rq_size <= c->log_max_wqe && ia->max_recv_wr <= (1u << ia->log_rq_size) &&
	       ia->max_recv_sge <= c->max_sge && fw_rq_stride_ok(ia->log_rq_stride, ia->max_recv_sge) &&
	       ring_ok(ia->rq_base, ia->log_rq_size, ia->log_rq_stride);
}

int fw_qp_write_ctx(struct hca_fw *fw, uint16_t qpn, uint8_t state, uint8_t oneshot)
{
	const struct fw_qp *qp = &fw->s.qp[qpn];
	const struct hca_qp_attr *a = &qp->attr;
	const struct hca_qp_init_attr *in = &qp->init;
	struct hca_qpc c;

	memset(&c, 0, sizeof(c));
	c.state = state;
	/* The engine knows no GSI type: QP1 is a UD QP to it. */
	c.qp_type = in->qp_type == HCA_QPT_GSI ? HCA_QPT_UD : in->qp_type;
	c.path_mtu = a->path_mtu;
	c.flags = (uint8_t)((in->sq_sig_all ? HCA_QPC_FLAGS_SQ_SIG_ALL_MASK : 0) |
			    (qp->srq ? HCA_QPC_FLAGS_USE_SRQ_MASK : 0) |
			    (state == HCA_QPS_SQD && qp->en_sqd_async_notify ? HCA_QPC_FLAGS_SQD_NOTIFY_MASK : 0) |
			    oneshot);
	c.pdn = qp->pd;
	c.dest_qpn = a->dest_qp_num;
	c.qkey = a->qkey;
	c.sq_psn = a->sq_psn;
	c.rq_psn = a->rq_psn;
	c.access_flags = (uint16_t)a->qp_access_flags;
	c.retry_cnt = a->retry_cnt;
	c.rnr_retry = a->rnr_retry;
	c.timeout = a->timeout;
	c.min_rnr_timer = a->min_rnr_timer;
	c.max_rd_atomic = a->max_rd_atomic;
	c.max_dest_rd_atomic = a->max_dest_rd_atomic;
	c.send_cqn = qp->scq;
	c.recv_cqn = qp->rcq;
	c.srqn = qp->srq;
	c.uar = fw_ctx_of(fw, qp->h.ctx)->uar;
	c.sgid_index = a->sgid_index;
	c.hop_limit = a->hop_limit;
	memcpy(c.dmac, a->dmac, sizeof(c.dmac));
	c.traffic_class = a->traffic_class;
	c.port_num = a->port_num;
	c.log_sq_size = in->log_sq_size;
	c.log_sq_stride = in->log_sq_stride;
	c.log_rq_size = in->log_rq_size;
	c.log_rq_stride = in->log_rq_stride;
	c.flow_label = a->flow_label & 0xfffff;
	c.sq_base = in->sq_base;
	c.rq_base = in->rq_base;
	memcpy(c.dgid, a->dgid, sizeof(c.dgid));
	return fw_ctx_write(fw, HCA_CTX_TYPE_QPC, qpn, &c, sizeof(c));
}

int fw_h_QP_CREATE(struct hca_fw *fw, struct fw_bundle *b)
{
	const struct hca_qp_init_attr *ia = fw_in(b, HCA_ATTR_QP_CREATE_INIT_ATTR);
	int srqn = fw_idr(b, HCA_ATTR_QP_CREATE_SRQ);
	struct hca_qp_create_resp resp;
	struct fw_state *s = &fw->s;
	struct fw_qp *qp;
	int qpn;

	if (ia->qp_type != HCA_QPT_RC && ia->qp_type != HCA_QPT_UC && ia->qp_type != HCA_QPT_UD &&
	    ia->qp_type != HCA_QPT_GSI)
		return fw_fail(b, HCA_ATTR_QP_CREATE_INIT_ATTR, HCA_CMD_SYND_HANDLER, HCA_EOPNOTSUPP);
	if (!check_init_attr(&s->caps, ia, srqn >= 0))
		return fw_fail(b, HCA_ATTR_QP_CREATE_INIT_ATTR, HCA_CMD_SYND_HANDLER, HCA_EINVAL);
	if (ia->qp_type == HCA_QPT_GSI) {
		/* One GSI QP per device, always QPN 1 (IB spec 13.4.6.1). */
		if (s->qp[HCA_QPN_GSI].h.live)
			return fw_fail(b, HCA_ATTR_QP_CREATE_INIT_ATTR, HCA_CMD_SYND_HANDLER, HCA_EBUSY);
		qpn = HCA_QPN_GSI;
	} else {
		qpn = fw_obj_alloc(fw, HCA_OBJ_QP);
	}
	if (qpn < 0)
		return HCA_ENOMEM;
	qp = &s->qp[qpn];
	memset(qp, 0, sizeof(*qp));
	qp->h.ctx = b->ctx;
	qp->pd = (uint16_t)fw_idr(b, HCA_ATTR_QP_CREATE_PD);
	qp->scq = (uint16_t)fw_idr(b, HCA_ATTR_QP_CREATE_SEND_CQ);
	qp->rcq = (uint16_t)fw_idr(b, HCA_ATTR_QP_CREATE_RECV_CQ);
	qp->srq = srqn < 0 ? 0 : (uint16_t)srqn;
	qp->init = *ia;
	qp->attr.qp_state = HCA_QPS_RESET;
	qp->attr.port_num = 1;
	/* UD has no path MTU attribute: its messages are bounded by the port MTU. */
	if (ia->qp_type == HCA_QPT_UD || ia->qp_type == HCA_QPT_GSI)
		qp->attr.path_mtu = FW_PORT_MTU;
	if (ia->qp_type == HCA_QPT_GSI)
		qp->attr.qkey = HCA_GSI_QKEY;
	if (fw_qp_write_ctx(fw, (uint16_t)qpn, HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK)) {
		memset(qp, 0, sizeof(*qp));
		return HCA_EIO;
	}
	fw_obj_init(&qp->h, b);
	s->pd[qp->pd].h.refcnt++;
	s->cq[qp->scq].h.refcnt++;
	s->cq[qp->rcq].h.refcnt++;
	if (qp->srq)
		s->srq[qp->srq].h.refcnt++;
	fw_set_new(b, (uint16_t)qpn);
	memset(&resp, 0, sizeof(resp));
	resp.qpn = (uint32_t)qpn;
	fw_out(b, HCA_ATTR_QP_CREATE_RESP, &resp, sizeof(resp));
	return 0;
}

int fw_h_QP_QUERY(struct hca_fw *fw, struct fw_bundle *b)
{
	uint16_t qpn = (uint16_t)fw_idr(b, HCA_ATTR_QP_QUERY_HANDLE);
	const struct fw_qp *qp = &fw->s.qp[qpn];
	struct hca_qp_engine_state es;
	struct hca_qp_attr a;
	struct hca_qpc c;

	if (fw_ctx_read(fw, HCA_CTX_TYPE_QPC, qpn, &c, sizeof(c)))
		return HCA_EIO;
	a = qp->attr;
	/* The engine's view of state and PSNs (docs/programming.md 4.5). */
	a.qp_state = c.cur_state;
	a.cur_qp_state = c.cur_state;
	a.sq_psn = c.sq_psn_next;
	a.rq_psn = c.rq_psn_expected;
	a.sq_draining = c.sq_draining;
	a.en_sqd_async_notify = qp->en_sqd_async_notify;
	fw_out(b, HCA_ATTR_QP_QUERY_ATTR, &a, sizeof(a));
	fw_out(b, HCA_ATTR_QP_QUERY_INIT_ATTR, &qp->init, sizeof(qp->init));

	memset(&es, 0, sizeof(es));
	es.cur_state = c.cur_state;
	es.sq_draining = c.sq_draining;
	es.sq_psn_next = c.sq_psn_next;
	es.rq_psn_expected = c.rq_psn_expected;
	es.msn = c.msn;
	es.sq_pi = c.sq_pi;
	es.sq_ci = c.sq_ci;
	es.rq_pi = c.rq_pi;
	es.rq_ci = c.rq_ci;
	fw_out(b, HCA_HCASIM_ATTR_QP_QUERY_ENGINE, &es, sizeof(es));
	return 0;
}

/*
 * To RESET first (the engine forgets the QP: no more completions), then
 * clear the whole context.
 */
int fw_qp_destroy(struct hca_fw *fw, uint16_t qpn, int force)
{
	struct fw_state *s = &fw->s;
	struct fw_qp *qp = &s->qp[qpn];
	struct hca_qpc zero;

	if (qp->h.refcnt && !force)
		return HCA_EBUSY;
	if (fw_qp_write_ctx(fw, qpn, HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK) && !force)
		return HCA_EIO;
	memset(&zero, 0, sizeof(zero));
	zero.flags = HCA_QPC_FLAGS_RESET_STATE_MASK;
	fw_ctx_write(fw, HCA_CTX_TYPE_QPC, qpn, &zero, sizeof(zero));
	s->pd[qp->pd].h.refcnt--;
	s->cq[qp->scq].h.refcnt--;
	s->cq[qp->rcq].h.refcnt--;
	if (qp->srq)
		s->srq[qp->srq].h.refcnt--;
	memset(qp, 0, sizeof(*qp));
	return 0;
}

int fw_h_QP_DESTROY(struct hca_fw *fw, struct fw_bundle *b)
{
	(void)fw;
	(void)b;
	return 0;
}
