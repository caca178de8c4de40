// SPDX-License-Identifier: MIT
/* CQ and EQ methods (docs/programming.md 4.5). */
#include <string.h>

#include "fw_handlers.h"

static int ring_fits(uint64_t base, uint32_t entry, uint8_t log_size)
{
	uint64_t bytes = (uint64_t)entry << log_size;

	return !(base & (entry - 1)) && base + bytes > base;
}

int fw_h_CQ_CREATE(struct hca_fw *fw, struct fw_bundle *b)
{
	const struct hca_cq_init_attr *ia = fw_in(b, HCA_ATTR_CQ_CREATE_INIT_ATTR);
	int eqn = fw_idr(b, HCA_ATTR_CQ_CREATE_EQ);
	struct hca_cq_create_resp resp;
	struct hca_cqc cqc;
	struct fw_cq *cq;
	int cqn;

	if (ia->log_size > fw->s.caps.log_max_cqe || ia->cqe < 1 ||
	    ia->cqe > (1u << ia->log_size) || !ring_fits(ia->base, HCA_CQE_SIZE, ia->log_size))
		return fw_fail(b, HCA_ATTR_CQ_CREATE_INIT_ATTR, HCA_CMD_SYND_HANDLER, HCA_EINVAL);
	cqn = fw_obj_alloc(fw, HCA_OBJ_CQ);
	if (cqn < 0)
		return HCA_ENOMEM;
	memset(&cqc, 0, sizeof(cqc));
	cqc.valid = 1;
	cqc.log_size = ia->log_size;
	cqc.uar = fw_ctx_of(fw, b->ctx)->uar;
	cqc.eqn = eqn < 0 ? 0 : (uint32_t)eqn;
	cqc.base = ia->base;
	if (fw_ctx_write(fw, HCA_CTX_TYPE_CQC, (uint32_t)cqn, &cqc, sizeof(cqc)))
		return HCA_EIO;
	cq = &fw->s.cq[cqn];
	memset(cq, 0, sizeof(*cq));
	fw_obj_init(&cq->h, b);
	cq->eq = (uint16_t)cqc.eqn;
	cq->log_size = ia->log_size;
	cq->cqe = ia->cqe;
	cq->base = ia->base;
	if (cq->eq)
		fw->s.eq[cq->eq].h.refcnt++;
	fw_set_new(b, (uint16_t)cqn);
	memset(&resp, 0, sizeof(resp));
	resp.cqn = (uint32_t)cqn;
	resp.cqe = 1u << ia->log_size;
	fw_out(b, HCA_ATTR_CQ_CREATE_RESP, &resp, sizeof(resp));
	return 0;
}

int fw_cq_destroy(struct hca_fw *fw, uint16_t cqn, int force)
{
	struct fw_cq *cq = &fw->s.cq[cqn];
	struct hca_cqc cqc;

	if (cq->h.refcnt && !force)
		return HCA_EBUSY;
	memset(&cqc, 0, sizeof(cqc));
	if (fw_ctx_write(fw, HCA_CTX_TYPE_CQC, cqn, &cqc, sizeof(cqc)) && !force)
		return HCA_EIO;
	if (cq->eq)
		fw->s.eq[cq->eq].h.refcnt--;
	memset(cq, 0, sizeof(*cq));
	return 0;
}

int fw_h_CQ_DESTROY(struct hca_fw *fw, struct fw_bundle *b)
{
	(void)fw;
	(void)b;
	return 0;
}

int fw_h_EQ_CREATE(struct hca_fw *fw, struct fw_bundle *b)
{
	const struct hca_eq_init_attr *ia = fw_in(b, HCA_ATTR_EQ_CREATE_INIT_ATTR);
	struct hca_eq_create_resp resp;
	struct hca_eqc eqc;
	struct fw_eq *eq;
	int eqn;

	if (ia->log_size > fw->s.caps.log_max_eqe || ia->vector >= fw->s.caps.num_msix ||
	    (ia->event_mask & ~(uint32_t)(HCA_EQ_MASK_ASYNC | HCA_EQ_MASK_CMD_DONE)) ||
	    !ring_fits(ia->base, HCA_EQE_SIZE, ia->log_size))
		return fw_fail(b, HCA_ATTR_EQ_CREATE_INIT_ATTR, HCA_CMD_SYND_HANDLER, HCA_EINVAL);
	/* One command-done EQ per device. */
	if ((ia->event_mask & HCA_EQ_MASK_CMD_DONE) && fw->s.cmd_eq)
		return fw_fail(b, HCA_ATTR_EQ_CREATE_INIT_ATTR, HCA_CMD_SYND_HANDLER, HCA_EBUSY);
	eqn = fw_obj_alloc(fw, HCA_OBJ_EQ);
	if (eqn < 0)
		return HCA_ENOMEM;
	memset(&eqc, 0, sizeof(eqc));
	eqc.valid = 1;
	eqc.log_size = ia->log_size;
	eqc.vector = ia->vector;
	eqc.base = ia->base;
	eqc.uar = fw_ctx_of(fw, b->ctx)->uar;
	if (fw_ctx_write(fw, HCA_CTX_TYPE_EQC, (uint32_t)eqn, &eqc, sizeof(eqc)))
		return HCA_EIO;
	eq = &fw->s.eq[eqn];
	memset(eq, 0, sizeof(*eq));
	fw_obj_init(&eq->h, b);
	eq->log_size = ia->log_size;
	eq->vector = ia->vector;
	eq->event_mask = ia->event_mask;
	eq->base = ia->base;
	if (ia->event_mask & HCA_EQ_MASK_CMD_DONE)
		fw->s.cmd_eq = (uint16_t)eqn;
	fw_set_new(b, (uint16_t)eqn);
	memset(&resp, 0, sizeof(resp));
	resp.eqn = (uint32_t)eqn;
	fw_out(b, HCA_ATTR_EQ_CREATE_RESP, &resp, sizeof(resp));
	return 0;
}

int fw_eq_destroy(struct hca_fw *fw, uint16_t eqn, int force)
{
	struct fw_eq *eq = &fw->s.eq[eqn];
	struct hca_eqc eqc;

	if (eq->h.refcnt && !force)
		return HCA_EBUSY;
	memset(&eqc, 0, sizeof(eqc));
	if (fw_ctx_write(fw, HCA_CTX_TYPE_EQC, eqn, &eqc, sizeof(eqc)) && !force)
		return HCA_EIO;
	if (fw->s.cmd_eq == eqn)
		fw->s.cmd_eq = 0;
	memset(eq, 0, sizeof(*eq));
	return 0;
}

int fw_h_EQ_DESTROY(struct hca_fw *fw, struct fw_bundle *b)
{
	(void)fw;
	(void)b;
	return 0;
}
