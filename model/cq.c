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

/* A COMP EQE for `cqn` (its arm state was already consumed). */
static void cq_event(struct model *m, struct model_cq *cq, uint32_t cqn)
{
	struct hca_eqe eqe;

	memset(&eqe, 0, sizeof(eqe));
	eqe.type = HCA_EQE_TYPE_COMP;
	eqe.element = cqn;
	if (model_eq_get(m, cq->c.eqn))
		model_eq_post(m, cq->c.eqn, &eqe);
}

/*
 * The event decision is taken with the slot (as an engine that reserves the
 * slot, then writes the CQE): the arm state and sol_pi change even
 * when the CQE write then faults (the CQ is in error from then on).
 */
int model_cq_post(struct model *m, uint32_t cqn, struct hca_cqe *cqe, bool solicited)
{
	struct model_cq *cq = model_cq_get(m, cqn);
	uint32_t log, size;
	uint64_t iova;
	bool fire;

	if (!cq || cq->c.error)
		return -1;
	log = cq->c.log_size > HCA_CAP_LOG_MAX_CQE ? HCA_CAP_LOG_MAX_CQE : cq->c.log_size;
	size = 1u << log;
	if (cq->c.pi - cq->c.ci >= size) {
		model_stat(m, HCA_STAT_CQ_OVERFLOW, 1);
		cq_error(m, cq, cqn);
		return -1;
	}
	solicited = solicited || cqe->status != HCA_WC_SUCCESS;
	fire = cq->c.arm == HCA_CQ_ARM_NEXT || (cq->c.arm == HCA_CQ_ARM_SOLICITED && solicited);
	if (fire)
		cq->c.arm = HCA_CQ_ARM_NONE;
	if (solicited)
		cq->c.sol_pi = (uint16_t)(cq->c.pi + 1);
	cqe->owner = (uint8_t)(((cq->c.pi >> log) & 1) ^ 1);
	iova = cq->c.base + (uint64_t)(cq->c.pi & (size - 1)) * HCA_CQE_SIZE;
	if (model_dma_write(m, HCA_DMA_CLIENT_CQE, iova, cqe, sizeof(*cqe))) {
		cq_error(m, cq, cqn);
		return -1;
	}
	cq->c.pi++;
	if (fire)
		cq_event(m, cq, cqn);
	return 0;
}

/*
 * CQ_CI / CQ_ARM / CQ_ARM_SOL.  Arming counts "next" from the consumer
 * index of the doorbell (spec CQ_ARM): a CQE at or after it raises the
 * event at once (16-bit distances from pi: a = pi - ci unconsumed CQEs,
 * s = pi - sol_pi CQEs after the last solicited or error one).  Each arm
 * raises at most one event.
 */
void model_cq_doorbell(struct model *m, struct model_cq *cq, uint16_t idx, uint8_t arm)
{
	uint16_t a, s;
	bool fire;

	cq->c.ci = ring_ext_ci(cq->c.pi, idx);
	if (arm == HCA_CQ_ARM_NONE)
		return;
	if (cq->c.arm == HCA_CQ_ARM_NEXT)
		arm = HCA_CQ_ARM_NEXT;	/* an earlier ARM (next) is not weakened */
	a = (uint16_t)(cq->c.pi - cq->c.ci);
	s = (uint16_t)(cq->c.pi - cq->c.sol_pi);
	if (arm == HCA_CQ_ARM_NEXT)
		fire = a != 0;
	else
		fire = s < a;
	if (fire && !cq->c.error) {
		cq->c.arm = HCA_CQ_ARM_NONE;
		cq_event(m, cq, (uint32_t)(cq - m->cq));
	} else
		cq->c.arm = arm;
}
