// SPDX-License-Identifier: MIT
/*
 * Completion queues (docs/programming.md 6.1): CQE writes with the owner
 * bit, overflow and CQE-write faults (CQ error, IBV_EVENT_CQ_ERR), arming and
 * COMP EQEs.
 */
#include <string.h>

#include "model_int.h"

static void cq_error(struct model *m, struct model_cq *cq, uint32_t cqn)
{
	cq->c.error = 1;
	model_event(m, HCA_EVENT_CQ_ERR, cqn);
}

int model_cq_post(struct model *m, uint32_t cqn, struct hca_cqe *cqe, bool solicited)
{
	struct model_cq *cq = model_cq_get(m, cqn);
	uint32_t log, size;
	uint64_t iova;

	if (!cq || cq->c.error)
		return -1;
	log = cq->c.log_size > HCA_CAP_LOG_MAX_CQE ? HCA_CAP_LOG_MAX_CQE : cq->c.log_size;
	size = 1u << log;
	if (cq->c.pi - cq->c.ci >= size) {
		model_stat(m, HCA_STAT_CQ_OVERFLOW, 1);
		cq_error(m, cq, cqn);
		return -1;
	}
	cqe->owner = (uint8_t)(((cq->c.pi >> log) & 1) ^ 1);
	iova = cq->c.base + (uint64_t)(cq->c.pi & (size - 1)) * HCA_CQE_SIZE;
	if (model_dma_write(m, HCA_DMA_CLIENT_CQE, iova, cqe, sizeof(*cqe))) {
		cq_error(m, cq, cqn);
		return -1;
	}
	cq->c.pi++;
	if (cq->c.arm == HCA_CQ_ARM_NEXT ||
	    (cq->c.arm == HCA_CQ_ARM_SOLICITED && (solicited || cqe->status != HCA_WC_SUCCESS))) {
		struct hca_eqe eqe;

		cq->c.arm = HCA_CQ_ARM_NONE;
		memset(&eqe, 0, sizeof(eqe));
		eqe.type = HCA_EQE_TYPE_COMP;
		eqe.element = cqn;
		if (model_eq_get(m, cq->c.eqn))
			model_eq_post(m, cq->c.eqn, &eqe);
	}
	return 0;
}

void model_cq_doorbell(struct model *m, struct model_cq *cq, uint16_t idx, uint8_t arm)
{
	(void)m;
	/* extend the 16-bit index against pi: ci lies in (pi - 2^16, pi] */
	cq->c.ci = cq->c.pi - (uint16_t)((uint16_t)cq->c.pi - idx);
	if (arm == HCA_CQ_ARM_NEXT)
		cq->c.arm = HCA_CQ_ARM_NEXT;
	else if (arm == HCA_CQ_ARM_SOLICITED && cq->c.arm != HCA_CQ_ARM_NEXT)
		cq->c.arm = HCA_CQ_ARM_SOLICITED;
}
