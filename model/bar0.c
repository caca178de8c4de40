// SPDX-License-Identifier: MIT
/*
 * BAR0 of the model engine (docs/programming.md section 2): the init
 * segment (host view and firmware's INIT_WINDOW view), the MSI-X table and
 * PBA, and the doorbell pages.
 */
#include "model_int.h"

static bool init_stored(uint32_t off)
{
	switch (off) {
	case HCA_INIT_FW_VER:
	case HCA_INIT_CTRL:
	case HCA_INIT_STATUS:
	case HCA_INIT_HEALTH:
	case HCA_INIT_SYNDROME:
	case HCA_INIT_CMDQ_BASE_LO:
	case HCA_INIT_CMDQ_BASE_HI:
	case HCA_INIT_CMDQ_LOG_SIZE:
	case HCA_INIT_CMDQ_PI:
	case HCA_INIT_CMDQ_CI:
	case HCA_INIT_CMDQ_STATUS:
		return true;
	default:
		return false;
	}
}

uint32_t model_init_read(struct model *m, uint32_t off, bool host)
{
	switch (off) {
	case HCA_INIT_HCA_ID:
		return HCA_FIELD_PREP(HCA_INIT_HCA_ID_VENDOR_ID, HCA_VENDOR_ID) |
		       HCA_FIELD_PREP(HCA_INIT_HCA_ID_DEVICE_ID, HCA_DEVICE_ID);
	case HCA_INIT_HW_REV:
		return HCA_HW_REV;
	case HCA_INIT_INTERFACE_REV:
		return HCA_INTERFACE_REV;
	case HCA_INIT_CAP0:
		return HCA_FIELD_PREP(HCA_INIT_CAP0_LOG_MAX_QP, HCA_CAP_LOG_MAX_QP) |
		       HCA_FIELD_PREP(HCA_INIT_CAP0_LOG_MAX_CQ, HCA_CAP_LOG_MAX_CQ) |
		       HCA_FIELD_PREP(HCA_INIT_CAP0_LOG_MAX_SRQ, HCA_CAP_LOG_MAX_SRQ) |
		       HCA_FIELD_PREP(HCA_INIT_CAP0_LOG_MAX_EQ, HCA_CAP_LOG_MAX_EQ) |
		       HCA_FIELD_PREP(HCA_INIT_CAP0_LOG_MAX_MR, HCA_CAP_LOG_MAX_MR) |
		       HCA_FIELD_PREP(HCA_INIT_CAP0_LOG_MAX_PD, HCA_CAP_LOG_MAX_PD);
	case HCA_INIT_CAP1:
		return HCA_FIELD_PREP(HCA_INIT_CAP1_LOG_MAX_WQE, HCA_CAP_LOG_MAX_WQE) |
		       HCA_FIELD_PREP(HCA_INIT_CAP1_LOG_MAX_CQE, HCA_CAP_LOG_MAX_CQE) |
		       HCA_FIELD_PREP(HCA_INIT_CAP1_LOG_MAX_EQE, HCA_CAP_LOG_MAX_EQE) |
		       HCA_FIELD_PREP(HCA_INIT_CAP1_MAX_SGE, HCA_CAP_MAX_SGE) |
		       HCA_FIELD_PREP(HCA_INIT_CAP1_MAX_RD_ATOMIC, HCA_CAP_MAX_RD_ATOMIC);
	case HCA_INIT_CAP2:
		return HCA_FIELD_PREP(HCA_INIT_CAP2_MAX_INLINE_DATA, HCA_CAP_MAX_INLINE_DATA) |
		       HCA_FIELD_PREP(HCA_INIT_CAP2_NUM_MSIX, HCA_CAP_NUM_MSIX) |
		       HCA_FIELD_PREP(HCA_INIT_CAP2_GID_TBL_LEN, HCA_CAP_GID_TBL_LEN);
	case HCA_INIT_CAP3:
		return HCA_FIELD_PREP(HCA_INIT_CAP3_DATA_W, 64) |
		       HCA_FIELD_PREP(HCA_INIT_CAP3_MAX_UAR, HCA_CAP_MAX_UAR);
	case HCA_INIT_ENGINE_STATUS:
		return ((m->port_ctrl & HCA_MGMT_PORT_CTRL_UP_MASK) ? HCA_INIT_ENGINE_STATUS_PORT_ACTIVE_MASK : 0) |
		       (m->dma_fault_sticky ? HCA_INIT_ENGINE_STATUS_DMA_FAULT_MASK : 0);
	case HCA_INIT_CLOCK_LO:
		if (host)
			m->clock_hi_latch = (uint32_t)(m->now >> 32);
		return (uint32_t)m->now;
	case HCA_INIT_CLOCK_HI:
		return host ? m->clock_hi_latch : (uint32_t)(m->now >> 32);
	default:
		if (off < HCA_BAR0_INIT_SEG_SIZE && init_stored(off))
			return m->init[off / 4];
		return 0;
	}
}

/* Host CTRL.RESET: engine reset, firmware registers cleared, CTRL.RESET stays 1. */
static void host_reset(struct model *m)
{
	uint32_t mac_lo = m->mac_lo, mac_hi = m->mac_hi;

	model_reset_engine(m);
	m->mac_lo = mac_lo;
	m->mac_hi = mac_hi;
	for (uint32_t off = 0; off < HCA_BAR0_INIT_SEG_SIZE; off += 4)
		if (init_stored(off))
			m->init[off / 4] = 0;
	m->init[HCA_INIT_CTRL / 4] = HCA_INIT_CTRL_RESET_MASK;
}

void model_init_write(struct model *m, uint32_t off, uint32_t val, bool host)
{
	if (off >= HCA_BAR0_INIT_SEG_SIZE || !init_stored(off))
		return;
	if (!host) {
		/* firmware (INIT_WINDOW) may write every stored register */
		m->init[off / 4] = val;
		return;
	}
	switch (off) {
	case HCA_INIT_CTRL:
		val &= HCA_INIT_CTRL_RESET_MASK | HCA_INIT_CTRL_ENABLE_MASK;
		if (val & HCA_INIT_CTRL_RESET_MASK)
			host_reset(m);
		else
			m->init[off / 4] = (m->init[off / 4] & HCA_INIT_CTRL_RESET_MASK) | val;
		m->fw_event |= HCA_MGMT_FW_EVENT_HOST_CTRL_MASK;
		break;
	case HCA_INIT_CMDQ_BASE_LO:
	case HCA_INIT_CMDQ_BASE_HI:
	case HCA_INIT_CMDQ_LOG_SIZE:
		m->init[off / 4] = val;
		break;
	case HCA_INIT_CMDQ_PI:
		m->init[off / 4] = val;
		m->fw_event |= HCA_MGMT_FW_EVENT_CMDQ_PI_MASK;
		break;
	default:
		break;	/* read-only to the host */
	}
}

/* MSI-X ---------------------------------------------------------------- */

static bool vector_masked(const struct model *m, unsigned int v)
{
	return m->msix[v][3] & HCA_MSIX_VECTOR_CTRL_MASKED_MASK;
}

void model_msix_fire(struct model *m, unsigned int v)
{
	if (v >= MODEL_NUM_MSIX)
		return;
	if (vector_masked(m, v)) {
		m->pba |= 1u << v;
		return;
	}
	m->host.interrupt(m->host_ctx, v);
}

/* Deliver interrupts left pending in the PBA by vectors now unmasked. */
void model_msix_deliver(struct model *m)
{
	for (unsigned int v = 0; v < MODEL_NUM_MSIX; v++) {
		if (!(m->pba >> v & 1) || vector_masked(m, v))
			continue;
		m->pba &= ~(1u << v);
		m->host.interrupt(m->host_ctx, v);
	}
}

/* Doorbells -------------------------------------------------------------- */

static void doorbell(struct model *m, uint32_t uar, uint32_t reg, uint32_t val)
{
	uint32_t num = val & 0xffff;
	uint16_t idx = (uint16_t)(val >> 16);

	if (!model_enabled(m)) {
		model_stat(m, HCA_STAT_DB_ERR, 1);
		return;
	}
	switch (reg) {
	case HCA_DB_SQ_PI:
	case HCA_DB_RQ_PI: {
		struct model_qp *qp = model_qp_get(m, num);

		if (!qp || qp->cfg.uar != uar ||
		    (reg == HCA_DB_RQ_PI && (qp->cfg.flags & HCA_QPC_FLAGS_USE_SRQ_MASK))) {
			model_stat(m, HCA_STAT_DB_ERR, 1);
			return;
		}
		if (reg == HCA_DB_SQ_PI)
			qp->sq_pi = idx;
		else
			qp->rq_pi = idx;
		model_qp_kick(m, qp);
		return;
	}
	case HCA_DB_SRQ_PI: {
		struct model_srq *srq = model_srq_get(m, num);

		if (!srq || srq->c.uar != uar) {
			model_stat(m, HCA_STAT_DB_ERR, 1);
			return;
		}
		model_srq_doorbell(m, srq, idx);
		return;
	}
	case HCA_DB_CQ_CI:
	case HCA_DB_CQ_ARM:
	case HCA_DB_CQ_ARM_SOL: {
		struct model_cq *cq = model_cq_get(m, num);

		if (!cq || cq->c.uar != uar) {
			model_stat(m, HCA_STAT_DB_ERR, 1);
			return;
		}
		model_cq_doorbell(m, cq, idx,
				  reg == HCA_DB_CQ_ARM ? HCA_CQ_ARM_NEXT :
				  reg == HCA_DB_CQ_ARM_SOL ? HCA_CQ_ARM_SOLICITED : HCA_CQ_ARM_NONE);
		return;
	}
	case HCA_DB_EQ_CI:
	case HCA_DB_EQ_ARM: {
		struct model_eq *eq = model_eq_get(m, num);

		if (!eq || eq->c.uar != uar) {
			model_stat(m, HCA_STAT_DB_ERR, 1);
			return;
		}
		model_eq_doorbell(m, eq, idx, reg == HCA_DB_EQ_ARM);
		return;
	}
	default:
		model_stat(m, HCA_STAT_DB_ERR, 1);
		return;
	}
}

uint32_t model_bar0_read(struct model *m, uint32_t off)
{
	if (off & 3 || off >= HCA_BAR0_SIZE)
		return 0;
	if (off < HCA_BAR0_INIT_SEG + HCA_BAR0_INIT_SEG_SIZE)
		return model_init_read(m, off, true);
	if (off >= HCA_BAR0_MSIX_TABLE && off < HCA_BAR0_MSIX_TABLE + 16 * MODEL_NUM_MSIX) {
		uint32_t rel = off - HCA_BAR0_MSIX_TABLE;

		return m->msix[rel / 16][(rel % 16) / 4];
	}
	if (off == HCA_BAR0_MSIX_PBA)
		return m->pba;
	return 0;	/* PBA words beyond 32 vectors, doorbells (write-only), holes */
}

void model_bar0_write(struct model *m, uint32_t off, uint32_t val)
{
	if (off & 3 || off >= HCA_BAR0_SIZE)
		return;
	if (off < HCA_BAR0_INIT_SEG + HCA_BAR0_INIT_SEG_SIZE) {
		model_init_write(m, off, val, true);
		return;
	}
	if (off >= HCA_BAR0_MSIX_TABLE && off < HCA_BAR0_MSIX_TABLE + 16 * MODEL_NUM_MSIX) {
		uint32_t rel = off - HCA_BAR0_MSIX_TABLE;
		unsigned int reg = (rel % 16) / 4;

		if (reg == 3)
			val &= HCA_MSIX_VECTOR_CTRL_MASKED_MASK;
		m->msix[rel / 16][reg] = val;
		/* an unmasked vector with its PBA bit set fires at the next advance */
		return;
	}
	if (off >= HCA_BAR0_DB_BASE) {
		uint32_t page = (off - HCA_BAR0_DB_BASE) / HCA_BAR0_DB_PAGE_SIZE;
		uint32_t reg = (off - HCA_BAR0_DB_BASE) % HCA_BAR0_DB_PAGE_SIZE;

		if (page < HCA_CAP_MAX_UAR)
			doorbell(m, page, reg, val);
	}
}
