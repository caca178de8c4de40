// SPDX-License-Identifier: MIT
/*
 * Management port of the model engine (docs/programming.md section 7,
 * HCA_MGMT_* in spec/hca.toml): firmware's only way into the engine.
 * Reads never have side effects; writes take effect before they return
 * (work they start -- flushes, EQE writes -- happens in the next advance).
 */
#include <stdlib.h>
#include <string.h>

#include "model_int.h"

void model_event(struct model *m, uint8_t type, uint32_t element)
{
	if (m->evt_count == HCA_MGMT_EVT_DEPTH) {
		m->evt_overflow = true;
		return;
	}
	m->evt[(m->evt_head + m->evt_count) % HCA_MGMT_EVT_DEPTH] =
		(struct model_evt){ .type = type, .element = element };
	m->evt_count++;
}

static uint32_t fw_event(const struct model *m)
{
	return m->fw_event | (m->evt_count ? HCA_MGMT_FW_EVENT_ENGINE_EVENT_MASK : 0);
}

uint32_t model_mgmt_read(struct model *m, uint32_t addr)
{
	if (addr & 3 || addr >= HCA_MGMT_SIZE)
		return 0;
	if (addr >= HCA_MGMT_CTX_DATA && addr < HCA_MGMT_CTX_DATA + 4 * HCA_MGMT_CTX_DATA_WORDS)
		return m->ctx_data[(addr - HCA_MGMT_CTX_DATA) / 4];
	if (addr >= HCA_MGMT_STAT_BASE && addr < HCA_MGMT_STAT_BASE + 4 * HCA_STAT_COUNT)
		return m->stats[(addr - HCA_MGMT_STAT_BASE) / 4];
	if (addr >= HCA_MGMT_INIT_WINDOW && addr < HCA_MGMT_INIT_WINDOW + HCA_BAR0_INIT_SEG_SIZE)
		return model_init_read(m, addr - HCA_MGMT_INIT_WINDOW, false);

	switch (addr) {
	case HCA_MGMT_ID:
		return HCA_MGMT_ID_VALUE;
	case HCA_MGMT_ENGINE_REV:
		return HCA_INTERFACE_REV;
	case HCA_MGMT_FW_EVENT:
		return fw_event(m);
	case HCA_MGMT_ENGINE_CTRL:
		return m->engine_ctrl & HCA_MGMT_ENGINE_CTRL_ENABLE_MASK;
	case HCA_MGMT_PORT_CTRL:
		return m->port_ctrl;
	case HCA_MGMT_PORT_STATE:
		return (m->port_ctrl & HCA_MGMT_PORT_CTRL_UP_MASK) ? HCA_PORT_ACTIVE : HCA_PORT_DOWN;
	case HCA_MGMT_PORT_MAC_LO:
		return m->mac_lo;
	case HCA_MGMT_PORT_MAC_HI:
		return m->mac_hi;
	case HCA_MGMT_EVT_COUNT:
		return m->evt_count;
	case HCA_MGMT_EVT_TYPE:
		return (m->evt_count ? m->evt[m->evt_head].type : 0) |
		       (m->evt_overflow ? HCA_MGMT_EVT_TYPE_OVERFLOW_MASK : 0);
	case HCA_MGMT_EVT_ELEMENT:
		return m->evt_count ? m->evt[m->evt_head].element : 0;
	case HCA_MGMT_EQE_INJ_EQN:
		return m->inj_eqn;
	case HCA_MGMT_EQE_INJ_TYPE:
		return m->inj_type;
	case HCA_MGMT_EQE_INJ_ELEMENT:
		return m->inj_element;
	case HCA_MGMT_EQE_INJ_DATA:
		return m->inj_data;
	case HCA_MGMT_EQE_INJ_STATUS:
		return m->inj_status;
	case HCA_MGMT_CTX_STATUS:
		return m->ctx_status;
	case HCA_MGMT_DMA_FAULT_LO:
		return m->dma_fault_lo;
	case HCA_MGMT_DMA_FAULT_HI:
		return m->dma_fault_hi;
	case HCA_MGMT_DMA_FAULT_INFO:
		return m->dma_fault_info;
	case HCA_MGMT_CLOCK_LO:
		return (uint32_t)m->now;
	case HCA_MGMT_CLOCK_HI:
		return (uint32_t)(m->now >> 32);
	default:
		return 0;
	}
}

/*
 * EQE_INJ_GO: the status is decided now (EQ valid, room counting EQEs already
 * queued for it); the EQE is written at the start of the next advance, before
 * any EQE the engine produces then, so ring order = GO order.
 */
static void eqe_inject(struct model *m)
{
	struct model_eq *eq = model_eq_get(m, m->inj_eqn);
	unsigned int queued = 0;
	struct model_inj *in;

	if (!eq || eq->failed) {
		m->inj_status = HCA_MGMT_STATUS_BAD_STATE;
		return;
	}
	for (unsigned int i = 0; i < m->inj_count; i++)
		queued += m->inj[i].eqn == m->inj_eqn;
	if (eq->c.pi + queued - eq->c.ci >=
	    (1u << (eq->c.log_size > HCA_CAP_LOG_MAX_EQE ? HCA_CAP_LOG_MAX_EQE : eq->c.log_size))) {
		model_stat(m, HCA_STAT_EQ_OVERFLOW, 1);
		m->inj_status = HCA_MGMT_STATUS_OVERFLOW;
		return;
	}
	if (m->inj_count == m->inj_cap) {
		unsigned int ncap = m->inj_cap ? 2 * m->inj_cap : 16;
		struct model_inj *n = realloc(m->inj, ncap * sizeof(*n));

		if (!n) {
			m->inj_status = HCA_MGMT_STATUS_OVERFLOW;
			return;
		}
		m->inj = n;
		m->inj_cap = ncap;
	}
	in = &m->inj[m->inj_count++];
	memset(in, 0, sizeof(*in));
	in->eqn = m->inj_eqn;
	in->eqe.type = (uint8_t)HCA_FIELD_GET(m->inj_type, HCA_MGMT_EQE_INJ_TYPE_TYPE);
	in->eqe.subtype = (uint8_t)HCA_FIELD_GET(m->inj_type, HCA_MGMT_EQE_INJ_TYPE_SUBTYPE);
	in->eqe.element = m->inj_element;
	in->eqe.data = m->inj_data;
	m->inj_status = HCA_MGMT_STATUS_OK;
}

static void port_ctrl(struct model *m, uint32_t val)
{
	bool was = m->port_ctrl & HCA_MGMT_PORT_CTRL_UP_MASK;
	bool up = val & HCA_MGMT_PORT_CTRL_UP_MASK;

	m->port_ctrl = val & HCA_MGMT_PORT_CTRL_UP_MASK;
	if (up != was)
		model_event(m, up ? HCA_EVENT_PORT_ACTIVE : HCA_EVENT_PORT_ERR, 1);
}

void model_mgmt_write(struct model *m, uint32_t addr, uint32_t val)
{
	if (addr & 3 || addr >= HCA_MGMT_SIZE)
		return;
	if (addr >= HCA_MGMT_CTX_DATA && addr < HCA_MGMT_CTX_DATA + 4 * HCA_MGMT_CTX_DATA_WORDS) {
		m->ctx_data[(addr - HCA_MGMT_CTX_DATA) / 4] = val;
		return;
	}
	if (addr >= HCA_MGMT_INIT_WINDOW && addr < HCA_MGMT_INIT_WINDOW + HCA_BAR0_INIT_SEG_SIZE) {
		model_init_write(m, addr - HCA_MGMT_INIT_WINDOW, val, false);
		return;
	}
	switch (addr) {
	case HCA_MGMT_FW_EVENT:
		m->fw_event &= ~val;
		break;
	case HCA_MGMT_ENGINE_CTRL:
		if (val & HCA_MGMT_ENGINE_CTRL_RESET_MASK) {
			uint32_t mac_lo = m->mac_lo, mac_hi = m->mac_hi, fw = m->fw_event;

			model_reset_engine(m);
			m->mac_lo = mac_lo;
			m->mac_hi = mac_hi;
			m->fw_event = fw;	/* host requests are not engine state */
		}
		m->engine_ctrl = val & HCA_MGMT_ENGINE_CTRL_ENABLE_MASK;
		break;
	case HCA_MGMT_PORT_CTRL:
		port_ctrl(m, val);
		break;
	case HCA_MGMT_PORT_MAC_LO:
		m->mac_lo = val;
		break;
	case HCA_MGMT_PORT_MAC_HI:
		m->mac_hi = val & 0xffff;
		break;
	case HCA_MGMT_EVT_POP:
		if (m->evt_count) {
			m->evt_head = (m->evt_head + 1) % HCA_MGMT_EVT_DEPTH;
			m->evt_count--;
		}
		m->evt_overflow = false;
		break;
	case HCA_MGMT_EQE_INJ_EQN:
		m->inj_eqn = val;
		break;
	case HCA_MGMT_EQE_INJ_TYPE:
		m->inj_type = val & (HCA_MGMT_EQE_INJ_TYPE_TYPE_MASK | HCA_MGMT_EQE_INJ_TYPE_SUBTYPE_MASK);
		break;
	case HCA_MGMT_EQE_INJ_ELEMENT:
		m->inj_element = val;
		break;
	case HCA_MGMT_EQE_INJ_DATA:
		m->inj_data = val;
		break;
	case HCA_MGMT_EQE_INJ_GO:
		eqe_inject(m);
		break;
	case HCA_MGMT_CTX_CMD:
		model_ctx_cmd(m, val);
		break;
	default:
		break;
	}
}
