// SPDX-License-Identifier: MIT
/*
 * Engine events -> ASYNC EQEs (docs/programming.md 6.2, 6.3).  Events of a
 * QP, CQ or SRQ go to the async EQs of the context that owns the object;
 * port and device events go to the async EQs of every context.
 */
#include "fw_priv.h"

void fw_async_post(struct hca_fw *fw, uint16_t ctx, uint8_t event, uint32_t element)
{
	struct fw_state *s = &fw->s;
	int posted = 0;

	for (uint32_t eqn = 1; eqn < s->caps.n_eq; eqn++) {
		const struct fw_eq *eq = &s->eq[eqn];
		if (!eq->h.live || !(eq->event_mask & HCA_EQ_MASK_ASYNC))
			continue;
		if (ctx != FW_NO_CTX && eq->h.ctx != ctx)
			continue;
		fw_eqe_inject(fw, eqn, HCA_EQE_TYPE_ASYNC, event, element, 0);
		posted = 1;
	}
	if (!posted)
		fw->stats.events_dropped++;
}

/* Owning context of the object an event names, or -1 when it is gone. */
static int owner(struct hca_fw *fw, uint16_t type, uint32_t element)
{
	struct fw_obj_hdr *h = fw_obj(fw, type, element);

	return h && h->live ? h->ctx : -1;
}

static void one_event(struct hca_fw *fw, uint8_t type, uint32_t element)
{
	int ctx = -1;

	switch (type) {
	case HCA_EVENT_SQ_DRAINED:
		/* Reported only when the QP asked for it (IBV_QP_EN_SQD_ASYNC_NOTIFY). */
		ctx = owner(fw, HCA_OBJ_QP, element);
		if (ctx >= 0 && !fw->s.qp[element].en_sqd_async_notify)
			return;
		break;
	case HCA_EVENT_COMM_EST:
	case HCA_EVENT_QP_FATAL:
	case HCA_EVENT_QP_REQ_ERR:
	case HCA_EVENT_QP_ACCESS_ERR:
	case HCA_EVENT_PATH_MIG:
	case HCA_EVENT_PATH_MIG_ERR:
	case HCA_EVENT_QP_LAST_WQE_REACHED:
		ctx = owner(fw, HCA_OBJ_QP, element);
		break;
	case HCA_EVENT_CQ_ERR:
		ctx = owner(fw, HCA_OBJ_CQ, element);
		break;
	case HCA_EVENT_SRQ_ERR:
	case HCA_EVENT_SRQ_LIMIT_REACHED:
		ctx = owner(fw, HCA_OBJ_SRQ, element);
		break;
	case HCA_EVENT_PORT_ACTIVE:
	case HCA_EVENT_PORT_ERR:
	case HCA_EVENT_LID_CHANGE:
	case HCA_EVENT_PKEY_CHANGE:
	case HCA_EVENT_SM_CHANGE:
	case HCA_EVENT_CLIENT_REREGISTER:
	case HCA_EVENT_GID_CHANGE:
		fw_async_post(fw, FW_NO_CTX, type, element);
		return;
	case HCA_EVENT_DEVICE_FATAL:
		if (fw->s.dev_state != HCA_DEV_STATE_FATAL)
			fw_fatal(fw, HCA_SYND_ENGINE_FATAL);	/* posts DEVICE_FATAL */
		return;
	default:
		break;
	}
	if (ctx < 0) {
		/* Unknown type, or the object was destroyed meanwhile. */
		fw->stats.events_dropped++;
		fw_log(fw, "event dropped (type, element)", type, element);
		return;
	}
	fw_async_post(fw, (uint16_t)ctx, type, element);
}

void fw_events_drain(struct hca_fw *fw)
{
	/* Bounded: a FIFO that never empties must not hang the firmware. */
	for (unsigned int n = 0; n <= HCA_MGMT_EVT_DEPTH; n++) {
		uint32_t t, el;

		if (!fw_mgmt_rd(fw, HCA_MGMT_EVT_COUNT))
			return;
		t = fw_mgmt_rd(fw, HCA_MGMT_EVT_TYPE);
		el = fw_mgmt_rd(fw, HCA_MGMT_EVT_ELEMENT);
		fw_mgmt_wr(fw, HCA_MGMT_EVT_POP, 1);
		fw->stats.events++;
		if (t & HCA_MGMT_EVT_TYPE_OVERFLOW_MASK)
			fw->stats.events_lost++;
		one_event(fw, (uint8_t)HCA_FIELD_GET(t, HCA_MGMT_EVT_TYPE_TYPE), el);
	}
}
