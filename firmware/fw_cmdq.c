// SPDX-License-Identifier: MIT
/* The command queue ring (docs/programming.md 4.1). */
#include <string.h>

#include "fw_priv.h"

#define ENTRY_SIZE ((uint32_t)sizeof(struct hca_cmdq_entry))

static void queue_error(struct hca_fw *fw, uint32_t synd)
{
	fw_log(fw, "command queue stopped (syndrome, ci)", synd, fw->s.cmdq_ci);
	fw->s.cmdq_error = 1;
	fw_init_wr(fw, HCA_INIT_CMDQ_STATUS, HCA_INIT_CMDQ_STATUS_ERROR_MASK |
					     HCA_FIELD_PREP(HCA_INIT_CMDQ_STATUS_SYND, synd));
	fw_init_wr(fw, HCA_INIT_SYNDROME, synd);
	fw_status_set(fw);
}

/*
 * CTRL.ENABLE 0 -> 1: check the ring configuration and start serving it.
 * The consumer index starts at the current CMDQ_PI: entries posted before
 * ENABLE are not executed.
 */
void fw_cmdq_enable(struct hca_fw *fw)
{
	struct fw_state *s = &fw->s;
	uint64_t base = (uint64_t)fw_init_rd(fw, HCA_INIT_CMDQ_BASE_HI) << 32 |
			fw_init_rd(fw, HCA_INIT_CMDQ_BASE_LO);
	uint32_t log_size = fw_init_rd(fw, HCA_INIT_CMDQ_LOG_SIZE);

	if (log_size > HCA_CMDQ_LOG_MAX_SIZE || (base & (ENTRY_SIZE - 1)) ||
	    base + ((uint64_t)ENTRY_SIZE << log_size) < base) {
		fw_init_wr(fw, HCA_INIT_CMDQ_STATUS, HCA_INIT_CMDQ_STATUS_ERROR_MASK |
			   HCA_FIELD_PREP(HCA_INIT_CMDQ_STATUS_SYND, HCA_SYND_CMDQ_BAD_CONFIG));
		fw_fatal(fw, HCA_SYND_CMDQ_BAD_CONFIG);
		return;
	}
	s->cmdq_base = base;
	s->cmdq_log_size = (uint8_t)log_size;
	s->cmdq_ci = fw_init_rd(fw, HCA_INIT_CMDQ_PI);
	s->cmdq_error = 0;
	s->cmdq_running = 1;
	fw_init_wr(fw, HCA_INIT_CMDQ_CI, s->cmdq_ci);
	fw_init_wr(fw, HCA_INIT_CMDQ_STATUS, 0);
	s->dev_state = HCA_DEV_STATE_RUNNING;
	fw_status_set(fw);
}

/* Execute every entry between CMDQ_CI and CMDQ_PI, in ring order. */
void fw_cmdq_process(struct hca_fw *fw)
{
	struct fw_state *s = &fw->s;

	while (s->cmdq_running && !s->cmdq_error && s->dev_state == HCA_DEV_STATE_RUNNING) {
		uint32_t pi = fw_init_rd(fw, HCA_INIT_CMDQ_PI);
		uint32_t idx = s->cmdq_ci;
		uint64_t ea = s->cmdq_base + (uint64_t)(idx & ((1u << s->cmdq_log_size) - 1)) * ENTRY_SIZE;
		struct hca_cmdq_entry e;
		uint32_t out[2];

		if (idx == pi)
			break;
		if (fw_dma_read(fw, ea, &e, ENTRY_SIZE)) {
			queue_error(fw, HCA_SYND_CMDQ_DMA_FAULT);
			return;
		}
		if (!(e.ctrl & HCA_CMDQ_ENTRY_CTRL_OWNER_MASK)) {
			/* The driver rang past an entry it does not own: skip it. */
			fw_init_wr(fw, HCA_INIT_SYNDROME, HCA_SYND_CMDQ_NOT_OWNED);
			s->cmdq_ci = idx + 1;
			fw_init_wr(fw, HCA_INIT_CMDQ_CI, s->cmdq_ci);
			continue;
		}
		out[0] = fw_cmd_execute(fw, e.in_addr, e.in_len, &out[1]);
		if (fw_dma_write(fw, ea + HCA_CMDQ_ENTRY_STATUS_OFF, out, sizeof(out))) {
			queue_error(fw, HCA_SYND_CMDQ_DMA_FAULT);
			return;
		}
		/* Ownership goes back last: everything else is visible first. */
		e.ctrl &= (uint8_t)~HCA_CMDQ_ENTRY_CTRL_OWNER_MASK;
		if (fw_dma_write(fw, ea + HCA_CMDQ_ENTRY_CTRL_OFF, &e.ctrl, 1)) {
			queue_error(fw, HCA_SYND_CMDQ_DMA_FAULT);
			return;
		}
		s->cmdq_ci = idx + 1;
		fw_init_wr(fw, HCA_INIT_CMDQ_CI, s->cmdq_ci);
		s->health++;
		fw_init_wr(fw, HCA_INIT_HEALTH, s->health);
		if (s->cmd_eq)
			fw_eqe_inject(fw, s->cmd_eq, HCA_EQE_TYPE_CMD_DONE, 0, e.token, idx);
	}
}
