// SPDX-License-Identifier: MIT
/*
 * Register-read comparison rules for lockstep (sim/lockstep_regs.h).
 */
#include <stdio.h>
#include <string.h>

#include "hcasim/hca_spec.h"
#include "lockstep_regs.h"

#define ALL 0xffffffffu

struct named {
	uint32_t off;
	const char *name;
};

static const struct named init_regs[] = {
	{ HCA_INIT_HCA_ID, "HCA_ID" }, { HCA_INIT_HW_REV, "HW_REV" }, { HCA_INIT_FW_VER, "FW_VER" },
	{ HCA_INIT_INTERFACE_REV, "INTERFACE_REV" }, { HCA_INIT_CAP0, "CAP0" }, { HCA_INIT_CAP1, "CAP1" },
	{ HCA_INIT_CAP2, "CAP2" }, { HCA_INIT_CAP3, "CAP3" }, { HCA_INIT_CTRL, "CTRL" },
	{ HCA_INIT_STATUS, "STATUS" }, { HCA_INIT_HEALTH, "HEALTH" }, { HCA_INIT_SYNDROME, "SYNDROME" },
	{ HCA_INIT_CMDQ_BASE_LO, "CMDQ_BASE_LO" }, { HCA_INIT_CMDQ_BASE_HI, "CMDQ_BASE_HI" },
	{ HCA_INIT_CMDQ_LOG_SIZE, "CMDQ_LOG_SIZE" }, { HCA_INIT_CMDQ_PI, "CMDQ_PI" },
	{ HCA_INIT_CMDQ_CI, "CMDQ_CI" }, { HCA_INIT_CMDQ_STATUS, "CMDQ_STATUS" },
	{ HCA_INIT_ENGINE_STATUS, "ENGINE_STATUS" }, { HCA_INIT_CLOCK_LO, "CLOCK_LO" },
	{ HCA_INIT_CLOCK_HI, "CLOCK_HI" },
};

static const struct named mgmt_regs[] = {
	{ HCA_MGMT_ID, "ID" }, { HCA_MGMT_ENGINE_REV, "ENGINE_REV" }, { HCA_MGMT_FW_EVENT, "FW_EVENT" },
	{ HCA_MGMT_ENGINE_CTRL, "ENGINE_CTRL" }, { HCA_MGMT_PORT_CTRL, "PORT_CTRL" },
	{ HCA_MGMT_PORT_STATE, "PORT_STATE" }, { HCA_MGMT_PORT_MAC_LO, "PORT_MAC_LO" },
	{ HCA_MGMT_PORT_MAC_HI, "PORT_MAC_HI" }, { HCA_MGMT_EVT_COUNT, "EVT_COUNT" },
	{ HCA_MGMT_EVT_TYPE, "EVT_TYPE" }, { HCA_MGMT_EVT_ELEMENT, "EVT_ELEMENT" },
	{ HCA_MGMT_EVT_POP, "EVT_POP" }, { HCA_MGMT_EQE_INJ_EQN, "EQE_INJ_EQN" },
	{ HCA_MGMT_EQE_INJ_TYPE, "EQE_INJ_TYPE" }, { HCA_MGMT_EQE_INJ_ELEMENT, "EQE_INJ_ELEMENT" },
	{ HCA_MGMT_EQE_INJ_DATA, "EQE_INJ_DATA" }, { HCA_MGMT_EQE_INJ_GO, "EQE_INJ_GO" },
	{ HCA_MGMT_EQE_INJ_STATUS, "EQE_INJ_STATUS" }, { HCA_MGMT_CTX_CMD, "CTX_CMD" },
	{ HCA_MGMT_CTX_STATUS, "CTX_STATUS" }, { HCA_MGMT_DMA_FAULT_LO, "DMA_FAULT_LO" },
	{ HCA_MGMT_DMA_FAULT_HI, "DMA_FAULT_HI" }, { HCA_MGMT_DMA_FAULT_INFO, "DMA_FAULT_INFO" },
	{ HCA_MGMT_CLOCK_LO, "CLOCK_LO" }, { HCA_MGMT_CLOCK_HI, "CLOCK_HI" },
};

static const char *lookup(const struct named *t, size_t n, uint32_t off)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].off == off)
			return t[i].name;
	return NULL;
}

static void rule(struct ls_reg_rule *r, uint32_t exact, bool settled, const char *note)
{
	r->exact_mask = exact;
	r->settled = settled;
	r->note = note;
}

/* Init segment register at offset `off`, as seen from `prefix`. */
static void init_rule(uint32_t off, const char *prefix, struct ls_reg_rule *r)
{
	const char *n = lookup(init_regs, sizeof(init_regs) / sizeof(init_regs[0]), off);

	if (n)
		snprintf(r->name, sizeof(r->name), "%s%s", prefix, n);
	else
		snprintf(r->name, sizeof(r->name), "%s0x%03x", prefix, off);
	switch (off) {
	case HCA_INIT_CAP3:
		rule(r, ~(uint32_t)HCA_INIT_CAP3_DATA_W_MASK, false,
		     "CAP3.DATA_W is the engine build's width (the model always reports 64); not compared");
		break;
	case HCA_INIT_CTRL:
		rule(r, ~(uint32_t)HCA_INIT_CTRL_RESET_MASK, true, "CTRL.RESET clears when reset completes (timing)");
		break;
	case HCA_INIT_ENGINE_STATUS:
		rule(r, 0, true, "engine status follows the engine's progress: compared when both are idle");
		break;
	default:
		rule(r, ALL, false, NULL);
		break;
	}
}

void ls_bar0_rule(uint32_t off, struct ls_reg_rule *r)
{
	memset(r, 0, sizeof(*r));
	if (off < HCA_BAR0_INIT_SEG_SIZE) {
		init_rule(off, "BAR0.INIT.", r);
	} else if (off >= HCA_BAR0_MSIX_TABLE && off < HCA_BAR0_MSIX_PBA) {
		snprintf(r->name, sizeof(r->name), "BAR0.MSIX[%u]+0x%x", (off - HCA_BAR0_MSIX_TABLE) / 16,
			 (off - HCA_BAR0_MSIX_TABLE) % 16);
		rule(r, ALL, false, NULL);
	} else if (off >= HCA_BAR0_MSIX_PBA && off < HCA_BAR0_DB_BASE) {
		snprintf(r->name, sizeof(r->name), "BAR0.PBA+0x%x", off - HCA_BAR0_MSIX_PBA);
		rule(r, 0, true, "pending bits follow interrupt timing: compared when both engines are idle");
	} else if (off >= HCA_BAR0_DB_BASE) {
		snprintf(r->name, sizeof(r->name), "BAR0.DB[%u]+0x%x", (off - HCA_BAR0_DB_BASE) / HCA_BAR0_DB_PAGE_SIZE,
			 (off - HCA_BAR0_DB_BASE) % HCA_BAR0_DB_PAGE_SIZE);
		rule(r, ALL, false, NULL);
	} else {
		snprintf(r->name, sizeof(r->name), "BAR0+0x%x", off);
		rule(r, ALL, false, NULL);
	}
}

/* Status bytes [lo, hi) of a context type's CTX_OP_READ image. */
static bool ctx_status_range(unsigned int type, unsigned int *lo, unsigned int *hi, const char **tname)
{
	switch (type) {
	case HCA_CTX_TYPE_QPC: *lo = HCA_QPC_CUR_STATE_OFF; *hi = 0xA0; *tname = "QPC"; return true;
	case HCA_CTX_TYPE_CQC: *lo = HCA_CQC_PI_OFF; *hi = 0x30; *tname = "CQC"; return true;
	case HCA_CTX_TYPE_SRQC: *lo = HCA_SRQC_PI_OFF; *hi = 0x30; *tname = "SRQC"; return true;
	case HCA_CTX_TYPE_EQC: *lo = HCA_EQC_PI_OFF; *hi = 0x30; *tname = "EQC"; return true;
	case HCA_CTX_TYPE_MRC: *lo = *hi = 0; *tname = "MRC"; return true;
	case HCA_CTX_TYPE_GIDC: *lo = *hi = 0; *tname = "GIDC"; return true;
	default: return false;
	}
}

void ls_mgmt_rule(uint32_t addr, uint32_t last_ctx_cmd, struct ls_reg_rule *r)
{
	const char *n;

	memset(r, 0, sizeof(*r));
	if (addr >= HCA_MGMT_INIT_WINDOW && addr < HCA_MGMT_INIT_WINDOW + HCA_BAR0_INIT_SEG_SIZE) {
		init_rule(addr - HCA_MGMT_INIT_WINDOW, "MGMT.INIT.", r);
		return;
	}
	if (addr >= HCA_MGMT_STAT_BASE && addr < HCA_MGMT_STAT_BASE + 4 * HCA_STAT_COUNT) {
		snprintf(r->name, sizeof(r->name), "MGMT.STAT[%u]", (addr - HCA_MGMT_STAT_BASE) / 4);
		rule(r, 0, true, "counters follow the engine's progress: compared when both engines are idle");
		return;
	}
	if (addr >= HCA_MGMT_CTX_DATA && addr < HCA_MGMT_CTX_DATA + 4 * HCA_MGMT_CTX_DATA_WORDS) {
		unsigned int off = addr - HCA_MGMT_CTX_DATA, lo, hi;
		const char *tname = "";

		snprintf(r->name, sizeof(r->name), "MGMT.CTX_DATA[%u]", off / 4);
		rule(r, ALL, false, NULL);
		if (HCA_FIELD_GET(last_ctx_cmd, HCA_MGMT_CTX_CMD_OP) != HCA_CTX_OP_READ ||
		    !ctx_status_range((unsigned int)HCA_FIELD_GET(last_ctx_cmd, HCA_MGMT_CTX_CMD_TYPE), &lo, &hi, &tname))
			return;
		snprintf(r->name, sizeof(r->name), "MGMT.CTX_DATA[%u] (%s byte 0x%02x)", off / 4, tname, off);
		if (off >= lo && off < hi) {
			rule(r, 0, true, "context status words follow the engine's progress: compared when both are idle");
		} else if (HCA_FIELD_GET(last_ctx_cmd, HCA_MGMT_CTX_CMD_TYPE) == HCA_CTX_TYPE_SRQC &&
			   off == (HCA_SRQC_STATE_OFF & ~3u)) {
			rule(r, ~(0xffu << (8 * (HCA_SRQC_STATE_OFF & 3))), true,
			     "SRQC.state is set by the engine (SRQ error): compared when both are idle");
		}
		return;
	}
	n = lookup(mgmt_regs, sizeof(mgmt_regs) / sizeof(mgmt_regs[0]), addr);
	if (n)
		snprintf(r->name, sizeof(r->name), "MGMT.%s", n);
	else
		snprintf(r->name, sizeof(r->name), "MGMT+0x%x", addr);
	switch (addr) {
	case HCA_MGMT_FW_EVENT:
		rule(r, ~(uint32_t)HCA_MGMT_FW_EVENT_ENGINE_EVENT_MASK, true,
		     "ENGINE_EVENT follows the event FIFO level (timing)");
		break;
	case HCA_MGMT_ENGINE_CTRL:
		rule(r, ~(uint32_t)HCA_MGMT_ENGINE_CTRL_RESET_MASK, true, "RESET self-clears (timing)");
		break;
	case HCA_MGMT_PORT_STATE:
	case HCA_MGMT_EVT_COUNT:
	case HCA_MGMT_DMA_FAULT_LO:
	case HCA_MGMT_DMA_FAULT_HI:
	case HCA_MGMT_DMA_FAULT_INFO:
		rule(r, 0, true, "follows the engine's progress: compared when both engines are idle");
		break;
	case HCA_MGMT_EVT_TYPE:
	case HCA_MGMT_EVT_ELEMENT:
		/* lockstep.c compares the FIFO head itself while the DUT's FIFO is not empty */
		rule(r, 0, true, "event FIFO head: compared as the evt stream");
		break;
	default:
		rule(r, ALL, false, NULL);
		break;
	}
}
