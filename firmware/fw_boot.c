// SPDX-License-Identifier: MIT
/*
 * Power-on, reset and bring-up (docs/programming.md 2.1, docs/firmware.md),
 * the firmware's main service routine and the health counter.
 */
#include <string.h>

#include "fw.h"

static void state_clear(struct hca_fw *fw)
{
	struct fw_state *s = &fw->s;

	memset(s, 0, sizeof(*s));
	fw_htable_init(&s->ctx_ht, s->ctx_slots, FW_MAX_CTX, &fw->handle_gen);
	for (unsigned int i = 0; i < FW_MAX_CTX; i++)
		fw_htable_init(&s->ctx[i].ht, s->ctx[i].slots, FW_MAX_HANDLES, &fw->handle_gen);
	s->dev_state = HCA_DEV_STATE_RESET;
}

void fw_status_set(struct hca_fw *fw)
{
	const struct fw_state *s = &fw->s;
	uint32_t v = HCA_FIELD_PREP(HCA_INIT_STATUS_STATE, s->dev_state);

	if (s->dev_state == HCA_DEV_STATE_READY || s->dev_state == HCA_DEV_STATE_RUNNING)
		v |= HCA_INIT_STATUS_FW_READY_MASK;
	if (s->dev_state == HCA_DEV_STATE_RUNNING && s->cmdq_running && !s->cmdq_error)
		v |= HCA_INIT_STATUS_CMDQ_READY_MASK;
	if (s->dev_state == HCA_DEV_STATE_FATAL)
		v |= HCA_INIT_STATUS_FATAL_MASK;
	fw_init_wr(fw, HCA_INIT_STATUS, v);
}

void fw_fatal(struct hca_fw *fw, uint32_t synd)
{
	fw_log(fw, "fatal (syndrome, state)", synd, fw->s.dev_state);
	fw_init_wr(fw, HCA_INIT_SYNDROME, synd);
	fw->s.dev_state = HCA_DEV_STATE_FATAL;
	fw->s.cmdq_running = 0;
	fw_status_set(fw);
	/* Every context hears about it (IBV_EVENT_DEVICE_FATAL, element 0). */
	fw_async_post(fw, FW_NO_CTX, HCA_EVENT_DEVICE_FATAL, 0);
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* Capabilities: what the engine reports, bounded by this build's tables. */
static void read_caps(struct hca_fw *fw)
{
	struct fw_caps *c = &fw->s.caps;
	uint32_t cap0 = fw_init_rd(fw, HCA_INIT_CAP0);
	uint32_t cap1 = fw_init_rd(fw, HCA_INIT_CAP1);
	uint32_t cap2 = fw_init_rd(fw, HCA_INIT_CAP2);
	uint32_t cap3 = fw_init_rd(fw, HCA_INIT_CAP3);

#define LOGCAP(field, word, F, cfg) \
	c->field = (uint8_t)min_u32(HCA_FIELD_GET(word, HCA_INIT_##F), cfg)
	LOGCAP(log_max_qp, cap0, CAP0_LOG_MAX_QP, FW_CFG_LOG_MAX_QP);
	LOGCAP(log_max_cq, cap0, CAP0_LOG_MAX_CQ, FW_CFG_LOG_MAX_CQ);
	LOGCAP(log_max_srq, cap0, CAP0_LOG_MAX_SRQ, FW_CFG_LOG_MAX_SRQ);
	LOGCAP(log_max_eq, cap0, CAP0_LOG_MAX_EQ, FW_CFG_LOG_MAX_EQ);
	LOGCAP(log_max_mr, cap0, CAP0_LOG_MAX_MR, FW_CFG_LOG_MAX_MR);
	LOGCAP(log_max_pd, cap0, CAP0_LOG_MAX_PD, FW_CFG_LOG_MAX_PD);
	LOGCAP(log_max_wqe, cap1, CAP1_LOG_MAX_WQE, HCA_CAP_LOG_MAX_WQE);
	LOGCAP(log_max_cqe, cap1, CAP1_LOG_MAX_CQE, HCA_CAP_LOG_MAX_CQE);
	LOGCAP(log_max_eqe, cap1, CAP1_LOG_MAX_EQE, HCA_CAP_LOG_MAX_EQE);
#undef LOGCAP
	c->n_qp = 1u << c->log_max_qp;
	c->n_cq = 1u << c->log_max_cq;
	c->n_srq = 1u << c->log_max_srq;
	c->n_eq = 1u << c->log_max_eq;
	c->n_mr = 1u << c->log_max_mr;
	c->n_pd = 1u << c->log_max_pd;
	c->max_sge = min_u32(HCA_FIELD_GET(cap1, HCA_INIT_CAP1_MAX_SGE), HCA_CAP_MAX_SGE);
	c->max_rd_atomic = min_u32(HCA_FIELD_GET(cap1, HCA_INIT_CAP1_MAX_RD_ATOMIC), HCA_CAP_MAX_RD_ATOMIC);
	c->max_inline = min_u32(HCA_FIELD_GET(cap2, HCA_INIT_CAP2_MAX_INLINE_DATA), HCA_CAP_MAX_INLINE_DATA);
	c->num_msix = min_u32(HCA_FIELD_GET(cap2, HCA_INIT_CAP2_NUM_MSIX), HCA_CAP_NUM_MSIX);
	c->gid_tbl_len = min_u32(HCA_FIELD_GET(cap2, HCA_INIT_CAP2_GID_TBL_LEN), FW_MAX_GID);
	c->data_w = HCA_FIELD_GET(cap3, HCA_INIT_CAP3_DATA_W);
	c->n_uar = min_u32(HCA_FIELD_GET(cap3, HCA_INIT_CAP3_MAX_UAR), FW_MAX_UAR);
	c->hw_rev = fw_init_rd(fw, HCA_INIT_HW_REV);
}

/*
 * Boot: reset the engine, check it, read its capabilities, program the
 * board configuration, enable engine and port, announce readiness.
 */
static void boot(struct hca_fw *fw)
{
	const uint8_t *mac = fw->board.mac;
	uint32_t rev;

	fw->boot_pending = 0;
	state_clear(fw);
	fw_status_set(fw);		/* STATE = RESET */
	fw_init_wr(fw, HCA_INIT_FW_VER, 0);
	fw_mgmt_wr(fw, HCA_MGMT_ENGINE_CTRL, HCA_MGMT_ENGINE_CTRL_RESET_MASK);
	fw->s.dev_state = HCA_DEV_STATE_BOOTING;
	fw_status_set(fw);

	rev = fw_mgmt_rd(fw, HCA_MGMT_ENGINE_REV);
	if (fw_mgmt_rd(fw, HCA_MGMT_ID) != HCA_MGMT_ID_VALUE ||
	    (rev >> 16) != (HCA_INTERFACE_REV >> 16)) {
		fw_log(fw, "engine id/revision mismatch (rev, want)", rev, HCA_INTERFACE_REV);
		fw_fatal(fw, HCA_SYND_ENGINE_FATAL);
		return;
	}
	read_caps(fw);
	if (fw->s.caps.log_max_qp < 2 || !fw->s.caps.log_max_cq || !fw->s.caps.log_max_eq ||
	    !fw->s.caps.n_uar || !fw->s.caps.gid_tbl_len) {
		fw_log(fw, "engine capabilities unusable (cap0, cap2)", fw_init_rd(fw, HCA_INIT_CAP0),
		       fw_init_rd(fw, HCA_INIT_CAP2));
		fw_fatal(fw, HCA_SYND_ENGINE_FATAL);
		return;
	}

	fw_mgmt_wr(fw, HCA_MGMT_PORT_MAC_HI, (uint32_t)mac[0] << 8 | mac[1]);
	fw_mgmt_wr(fw, HCA_MGMT_PORT_MAC_LO, (uint32_t)mac[2] << 24 | (uint32_t)mac[3] << 16 |
					     (uint32_t)mac[4] << 8 | mac[5]);
	fw_init_wr(fw, HCA_INIT_SYNDROME, HCA_SYND_NONE);
	fw_init_wr(fw, HCA_INIT_CMDQ_CI, 0);
	fw_init_wr(fw, HCA_INIT_CMDQ_STATUS, 0);
	fw_init_wr(fw, HCA_INIT_HEALTH, 0);
	fw_init_wr(fw, HCA_INIT_FW_VER, HCA_FW_VERSION);
	fw_mgmt_wr(fw, HCA_MGMT_ENGINE_CTRL, HCA_MGMT_ENGINE_CTRL_ENABLE_MASK);
	fw_mgmt_wr(fw, HCA_MGMT_PORT_CTRL, HCA_MGMT_PORT_CTRL_UP_MASK);
	fw->s.next_health = fw_now(fw) + HCA_FW_HEALTH_PERIOD;
	fw->s.dev_state = HCA_DEV_STATE_READY;
	fw_status_set(fw);
}

static void host_ctrl(struct hca_fw *fw)
{
	uint32_t ctrl = fw_init_rd(fw, HCA_INIT_CTRL);
	struct fw_state *s = &fw->s;

	if (ctrl & HCA_INIT_CTRL_RESET_MASK) {
		fw->stats.resets++;
		boot(fw);
		/* RESET self-clears when the reset is complete; ENABLE goes too. */
		fw_init_wr(fw, HCA_INIT_CTRL, 0);
		return;
	}
	if (s->dev_state == HCA_DEV_STATE_FATAL || s->dev_state < HCA_DEV_STATE_READY)
		return;
	if ((ctrl & HCA_INIT_CTRL_ENABLE_MASK) && !s->cmdq_running) {
		fw_cmdq_enable(fw);
	} else if (!(ctrl & HCA_INIT_CTRL_ENABLE_MASK) && s->cmdq_running) {
		s->cmdq_running = 0;
		s->dev_state = HCA_DEV_STATE_READY;
		fw_status_set(fw);
	}
}

static void health_tick(struct hca_fw *fw)
{
	uint64_t now = fw_now(fw);

	if (fw->s.dev_state == HCA_DEV_STATE_RESET || now < fw->s.next_health)
		return;
	fw->s.health++;
	fw_init_wr(fw, HCA_INIT_HEALTH, fw->s.health);
	fw->s.next_health = now + HCA_FW_HEALTH_PERIOD;
}

void hca_fw_run(struct hca_fw *fw)
{
	uint32_t ev;

	if (fw->boot_pending)
		boot(fw);
	ev = fw_mgmt_rd(fw, HCA_MGMT_FW_EVENT);
	if (ev)
		fw_mgmt_wr(fw, HCA_MGMT_FW_EVENT, ev);	/* write-1-to-clear what we take */
	if (ev & HCA_MGMT_FW_EVENT_HOST_CTRL_MASK)
		host_ctrl(fw);
	if (ev & HCA_MGMT_FW_EVENT_ENGINE_EVENT_MASK)
		fw_events_drain(fw);
	if (ev & HCA_MGMT_FW_EVENT_CMDQ_PI_MASK)
		fw_cmdq_process(fw);
	health_tick(fw);
}

uint64_t hca_fw_next_deadline(const struct hca_fw *fw)
{
	if (fw->boot_pending)
		return 0;
	if (fw->s.dev_state == HCA_DEV_STATE_RESET)
		return UINT64_MAX;
	return fw->s.next_health;
}

int hca_fw_init(struct hca_fw *fw, const struct hca_fw_hal *hal, const struct hca_fw_board *board)
{
	int rc;

	if (!hal || !hal->mgmt_read || !hal->mgmt_write || !hal->dma_read || !hal->dma_write ||
	    !hal->now)
		return -HCA_EINVAL;
	memset(fw, 0, sizeof(*fw));
	fw->hal = *hal;
	if (board)
		fw->board = *board;
	fw_uapi_clear(&fw->uapi);
	rc = fw_uapi_merge(&fw->uapi, &fw_uapi_core);
	if (!rc)
		rc = fw_uapi_merge(&fw->uapi, &fw_uapi_hcasim);
	if (rc)
		return rc;
	state_clear(fw);
	fw->boot_pending = 1;
	return 0;
}

const struct hca_fw_stats *hca_fw_stats(const struct hca_fw *fw)
{
	return &fw->stats;
}

void hca_fw_inject_failure(struct hca_fw *fw, uint16_t obj, uint16_t method, int err,
			   uint32_t skip)
{
	fw->inject.obj = obj;
	fw->inject.method = method;
	fw->inject.err = err;
	fw->inject.skip = skip;
}
