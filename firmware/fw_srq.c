// SPDX-License-Identifier: MIT
/* SRQ methods (docs/programming.md 4.5, 5.2). */
#include <string.h>

#include "fw_handlers.h"

/* Receive WQE stride rule shared by RQs and SRQs: smallest power of two
 * >= header + one segment per SGE, at least 32 bytes. */
int fw_rq_stride_ok(uint8_t log_stride, uint32_t max_sge)
{
	if (log_stride < HCA_WQE_LOG_MIN_RQ_STRIDE || log_stride > HCA_WQE_LOG_MAX_RQ_STRIDE)
		return 0;
	return (1u << log_stride) >= HCA_WQE_RECV_HDR_SIZE + HCA_WQE_DATA_SEG_SIZE * max_sge;
}

static int srqc_write(struct hca_fw *fw, uint16_t srqn, const struct fw_srq *srq, uint16_t uar,
		      uint32_t limit)
{
	struct hca_srqc c;

	memset(&c, 0, sizeof(c));
	c.valid = 1;
	c.log_size = srq->log_size;
	c.log_stride = srq->log_stride;
	c.pdn = srq->pd;
	c.base = srq->base;
	c.uar = uar;
	c.limit = limit;
	return fw_ctx_write(fw, HCA_CTX_TYPE_SRQC, srqn, &c, sizeof(c));
}

int fw_h_SRQ_CREATE(struct hca_fw *fw, struct fw_bundle *b)
{
	const struct hca_srq_init_attr *ia = fw_in(b, HCA_ATTR_SRQ_CREATE_INIT_ATTR);
	const struct fw_caps *c = &fw->s.caps;
	struct hca_srq_create_resp resp;
	struct fw_srq tmp, *srq;
	int srqn;

	if (ia->log_size > c->log_max_wqe || ia->max_wr < 1 || ia->max_wr > (1u << ia->log_size) ||
	    ia->max_sge > c->max_sge || !fw_rq_stride_ok(ia->log_stride, ia->max_sge) ||
	    ia->srq_limit >= ia->max_wr || (ia->base & ((1u << ia->log_stride) - 1)) ||
	    ia->base + ((uint64_t)1 << (ia->log_size + ia->log_stride)) <= ia->base)
		return fw_fail(b, HCA_ATTR_SRQ_CREATE_INIT_ATTR, HCA_CMD_SYND_HANDLER, HCA_EINVAL);
	srqn = fw_obj_alloc(fw, HCA_OBJ_SRQ);
	if (srqn < 0)
		return HCA_ENOMEM;
	memset(&tmp, 0, sizeof(tmp));
	tmp.pd = (uint16_t)fw_idr(b, HCA_ATTR_SRQ_CREATE_PD);
	tmp.log_size = ia->log_size;
	tmp.log_stride = ia->log_stride;
	tmp.max_wr = ia->max_wr;
	tmp.max_sge = ia->max_sge;
	tmp.base = ia->base;
	/* As verbs: srq_limit is irrelevant at creation; MODIFY arms it. */
	tmp.limit = 0;
	if (srqc_write(fw, (uint16_t)srqn, &tmp, fw_ctx_of(fw, b->ctx)->uar, 0))
		return HCA_EIO;
	srq = &fw->s.srq[srqn];
	*srq = tmp;
	fw_obj_init(&srq->h, b);
	fw->s.pd[srq->pd].h.refcnt++;
	fw_set_new(b, (uint16_t)srqn);
	memset(&resp, 0, sizeof(resp));
	resp.srqn = (uint32_t)srqn;
	fw_out(b, HCA_ATTR_SRQ_CREATE_RESP, &resp, sizeof(resp));
	return 0;
}

int fw_h_SRQ_MODIFY(struct hca_fw *fw, struct fw_bundle *b)
{
	uint16_t srqn = (uint16_t)fw_idr(b, HCA_ATTR_SRQ_MODIFY_HANDLE);
	const struct hca_srq_attr *a = fw_in(b, HCA_ATTR_SRQ_MODIFY_ATTR);
	uint32_t mask = fw_in_u32(b, HCA_ATTR_SRQ_MODIFY_ATTR_MASK);
	struct fw_srq *srq = &fw->s.srq[srqn];

	if (mask & ~(uint32_t)(HCA_SRQ_ATTR_MAX_WR | HCA_SRQ_ATTR_LIMIT))
		return fw_fail(b, HCA_ATTR_SRQ_MODIFY_ATTR_MASK, HCA_CMD_SYND_HANDLER, HCA_EINVAL);
	if (mask & HCA_SRQ_ATTR_MAX_WR)		/* no resize */
		return fw_fail(b, HCA_ATTR_SRQ_MODIFY_ATTR_MASK, HCA_CMD_SYND_HANDLER, HCA_EOPNOTSUPP);
	if (!(mask & HCA_SRQ_ATTR_LIMIT))
		return 0;
	if (a->srq_limit >= srq->max_wr)
		return fw_fail(b, HCA_ATTR_SRQ_MODIFY_ATTR, HCA_CMD_SYND_HANDLER, HCA_EINVAL);
	/* limit != 0 arms the limit event, 0 disarms. */
	if (srqc_write(fw, srqn, srq, fw_ctx_of(fw, srq->h.ctx)->uar, a->srq_limit))
		return HCA_EIO;
	srq->limit = a->srq_limit;
	return 0;
}

int fw_h_SRQ_QUERY(struct hca_fw *fw, struct fw_bundle *b)
{
	uint16_t srqn = (uint16_t)fw_idr(b, HCA_ATTR_SRQ_QUERY_HANDLE);
	struct fw_srq *srq = &fw->s.srq[srqn];
	struct hca_srq_attr a;
	struct hca_srqc c;

	if (fw_ctx_read(fw, HCA_CTX_TYPE_SRQC, srqn, &c, sizeof(c)))
		return HCA_EIO;
	memset(&a, 0, sizeof(a));
	a.max_wr = srq->max_wr;
	a.max_sge = srq->max_sge;
	/* Like rxe: once the limit event fired (disarmed), the limit reads 0. */
	a.srq_limit = c.armed ? srq->limit : 0;
	fw_out(b, HCA_ATTR_SRQ_QUERY_ATTR, &a, sizeof(a));
	return 0;
}

int fw_srq_destroy(struct hca_fw *fw, uint16_t srqn, int force)
{
	struct fw_srq *srq = &fw->s.srq[srqn];
	struct hca_srqc c;

	if (srq->h.refcnt && !force)
		return HCA_EBUSY;
	memset(&c, 0, sizeof(c));
	if (fw_ctx_write(fw, HCA_CTX_TYPE_SRQC, srqn, &c, sizeof(c)) && !force)
		return HCA_EIO;
	fw->s.pd[srq->pd].h.refcnt--;
	memset(srq, 0, sizeof(*srq));
	return 0;
}

int fw_h_SRQ_DESTROY(struct hca_fw *fw, struct fw_bundle *b)
{
	(void)fw;
	(void)b;
	return 0;
}
