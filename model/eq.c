// SPDX-License-Identifier: MIT
/*
 * Event queues (docs/programming.md 6.2) and their MSI-X interrupts: EQE
 * writes with the owner bit, overflow (dropped and counted), EQE-write
 * faults (the EQ stops), arming.
 */
#include "model_int.h"

int model_eq_post(struct model *m, uint32_t eqn, const struct hca_eqe *in)
{
	struct model_eq *eq = model_eq_get(m, eqn);
	struct hca_eqe eqe = *in;
	uint32_t log, size;
	uint64_t iova;
	bool fire;

	if (!eq || eq->failed)
		return HCA_MGMT_STATUS_BAD_STATE;
	log = eq->c.log_size > HCA_CAP_LOG_MAX_EQE ? HCA_CAP_LOG_MAX_EQE : eq->c.log_size;
	size = 1u << log;
	if (eq->c.pi - eq->c.ci >= size) {
		model_stat(m, HCA_STAT_EQ_OVERFLOW, 1);
		return HCA_MGMT_STATUS_OVERFLOW;
	}
	/* the interrupt is decided with the slot (before the write, as an
	 * engine that reserves the slot, then writes): a faulting write
	 * leaves the EQ disarmed and failed */
	fire = eq->c.armed;
	eq->c.armed = 0;
	eqe.owner = (uint8_t)(((eq->c.pi >> log) & 1) ^ 1);
	iova = eq->c.base + (uint64_t)(eq->c.pi & (size - 1)) * HCA_EQE_SIZE;
	if (model_dma_write(m, HCA_DMA_CLIENT_EQE, iova, &eqe, sizeof(eqe))) {
		eq->failed = true;
		return HCA_MGMT_STATUS_BAD_STATE;
	}
	eq->c.pi++;
	if (fire)
		model_msix_fire(m, eq->c.vector);
	return HCA_MGMT_STATUS_OK;
}

void model_eq_doorbell(struct model *m, struct model_eq *eq, uint16_t idx, bool arm)
{
	(void)m;
	eq->c.ci = ring_ext_ci(eq->c.pi, idx);
	if (!arm)
		return;
	/* EQEs at or after ci: the interrupt is decided now (the EQ stays
	 * disarmed) and delivered at the next advance */
	eq->c.armed = eq->c.pi == eq->c.ci;
	if (!eq->c.armed)
		eq->fire_pending = true;
}

void model_eq_fire_pending(struct model *m)
{
	for (unsigned int i = 0; i < MODEL_NUM_EQ; i++) {
		struct model_eq *eq = &m->eq[i];

		if (!eq->fire_pending)
			continue;
		eq->fire_pending = false;
		if (eq->c.valid)
			model_msix_fire(m, eq->c.vector);
	}
}
