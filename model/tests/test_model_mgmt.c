// SPDX-License-Identifier: MIT
/*
 * BAR0 and the management port of the model engine, checked against
 * docs/programming.md sections 2, 3, 6.2 and 7 and spec/hca.toml:
 * identity and capability words, CTRL.RESET / CMDQ_PI -> FW_EVENT, the
 * clock latch, MSI-X masking and PBA, EQE injection (owner bit, arming,
 * overflow, invalid EQ), the event FIFO (depth, overflow flag, pop), port
 * events, context command status codes, QPC one-shot flags, doorbell
 * checks, the DMA fault latch, ENGINE_CTRL reset, side-effect-free reads;
 * the context rules of tests/ctx_rules.h (also run on the RTL by rtl_regs).
 */
#include <errno.h>

#include "ctx_rules.h"
#include "mt.h"

static struct tb *tb;
static struct tb_node *n;

static uint32_t mr(uint32_t a)
{
	return tb_mgmt_read(n, a);
}

static void mw(uint32_t a, uint32_t v)
{
	tb_mgmt_write(n, a, v);
}

static void identity(void)
{
	CHECK_EQ(mr(HCA_MGMT_ID), HCA_MGMT_ID_VALUE, "MGMT_ID");
	CHECK_EQ(mr(HCA_MGMT_ENGINE_REV), HCA_INTERFACE_REV, "ENGINE_REV");
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_HCA_ID), (uint32_t)HCA_VENDOR_ID << 16 | HCA_DEVICE_ID, "HCA_ID");
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_INTERFACE_REV), HCA_INTERFACE_REV, "INTERFACE_REV");
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_HW_REV), HCA_HW_REV, "HW_REV");
	/* every capability field against spec/hca.toml's [capabilities] */
	CHECK_EQ(HCA_FIELD_GET(tb_bar0_read(n, HCA_INIT_CAP0), HCA_INIT_CAP0_LOG_MAX_QP), HCA_CAP_LOG_MAX_QP, "CAP0.QP");
	CHECK_EQ(HCA_FIELD_GET(tb_bar0_read(n, HCA_INIT_CAP0), HCA_INIT_CAP0_LOG_MAX_CQ), HCA_CAP_LOG_MAX_CQ, "CAP0.CQ");
	CHECK_EQ(HCA_FIELD_GET(tb_bar0_read(n, HCA_INIT_CAP0), HCA_INIT_CAP0_LOG_MAX_SRQ), HCA_CAP_LOG_MAX_SRQ, "CAP0.SRQ");
	CHECK_EQ(HCA_FIELD_GET(tb_bar0_read(n, HCA_INIT_CAP0), HCA_INIT_CAP0_LOG_MAX_EQ), HCA_CAP_LOG_MAX_EQ, "CAP0.EQ");
	CHECK_EQ(HCA_FIELD_GET(tb_bar0_read(n, HCA_INIT_CAP0), HCA_INIT_CAP0_LOG_MAX_MR), HCA_CAP_LOG_MAX_MR, "CAP0.MR");
	CHECK_EQ(HCA_FIELD_GET(tb_bar0_read(n, HCA_INIT_CAP0), HCA_INIT_CAP0_LOG_MAX_PD), HCA_CAP_LOG_MAX_PD, "CAP0.PD");
	CHECK_EQ(HCA_FIELD_GET(tb_bar0_read(n, HCA_INIT_CAP1), HCA_INIT_CAP1_LOG_MAX_WQE), HCA_CAP_LOG_MAX_WQE, "CAP1.WQE");
	CHECK_EQ(HCA_FIELD_GET(tb_bar0_read(n, HCA_INIT_CAP1), HCA_INIT_CAP1_LOG_MAX_CQE), HCA_CAP_LOG_MAX_CQE, "CAP1.CQE");
	CHECK_EQ(HCA_FIELD_GET(tb_bar0_read(n, HCA_INIT_CAP1), HCA_INIT_CAP1_LOG_MAX_EQE), HCA_CAP_LOG_MAX_EQE, "CAP1.EQE");
	CHECK_EQ(HCA_FIELD_GET(tb_bar0_read(n, HCA_INIT_CAP1), HCA_INIT_CAP1_MAX_SGE), HCA_CAP_MAX_SGE, "CAP1.SGE");
	CHECK_EQ(HCA_FIELD_GET(tb_bar0_read(n, HCA_INIT_CAP1), HCA_INIT_CAP1_MAX_RD_ATOMIC), HCA_CAP_MAX_RD_ATOMIC, "CAP1.RD");
	CHECK_EQ(HCA_FIELD_GET(tb_bar0_read(n, HCA_INIT_CAP2), HCA_INIT_CAP2_MAX_INLINE_DATA), HCA_CAP_MAX_INLINE_DATA, "CAP2.INL");
	CHECK_EQ(HCA_FIELD_GET(tb_bar0_read(n, HCA_INIT_CAP2), HCA_INIT_CAP2_NUM_MSIX), HCA_CAP_NUM_MSIX, "CAP2.MSIX");
	CHECK_EQ(HCA_FIELD_GET(tb_bar0_read(n, HCA_INIT_CAP2), HCA_INIT_CAP2_GID_TBL_LEN), HCA_CAP_GID_TBL_LEN, "CAP2.GID");
	CHECK_EQ(HCA_FIELD_GET(tb_bar0_read(n, HCA_INIT_CAP3), HCA_INIT_CAP3_DATA_W), 64, "CAP3.DATA_W");
	CHECK_EQ(HCA_FIELD_GET(tb_bar0_read(n, HCA_INIT_CAP3), HCA_INIT_CAP3_MAX_UAR), HCA_CAP_MAX_UAR, "CAP3.UAR");
	/* the INIT_WINDOW shows the same registers */
	CHECK_EQ(mr(HCA_MGMT_INIT_WINDOW + HCA_INIT_CAP1), tb_bar0_read(n, HCA_INIT_CAP1), "window CAP1");
	/* unaligned accesses read 0 and are ignored */
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_HCA_ID + 1), 0, "unaligned BAR0 read");
	CHECK_EQ(mr(HCA_MGMT_ID + 2), 0, "unaligned mgmt read");
	CHECK_EQ(mr(HCA_MGMT_PORT_STATE), HCA_PORT_ACTIVE, "port active after tb_node_up");
	CHECK(tb_bar0_read(n, HCA_INIT_ENGINE_STATUS) & HCA_INIT_ENGINE_STATUS_PORT_ACTIVE_MASK,
	      "ENGINE_STATUS.PORT_ACTIVE");
}

static void fw_events_and_ctrl(void)
{
	mw(HCA_MGMT_FW_EVENT, 0xffffffff);
	CHECK_EQ(mr(HCA_MGMT_FW_EVENT), 0, "FW_EVENT clear");
	CHECK(!n->ops->fw_irq(n->eng), "fw_irq low");
	tb_bar0_write(n, HCA_INIT_CMDQ_PI, 5);
	CHECK_EQ(mr(HCA_MGMT_FW_EVENT), HCA_MGMT_FW_EVENT_CMDQ_PI_MASK, "CMDQ_PI raises FW_EVENT.CMDQ_PI");
	CHECK(n->ops->fw_irq(n->eng), "fw_irq high");
	CHECK_EQ(mr(HCA_MGMT_INIT_WINDOW + HCA_INIT_CMDQ_PI), 5, "firmware sees CMDQ_PI");
	/* the command queue registers are host rw (reference.md init segment): firmware reads what the host wrote */
	tb_bar0_write(n, HCA_INIT_CMDQ_BASE_LO, 0x12345640);
	tb_bar0_write(n, HCA_INIT_CMDQ_BASE_HI, 0x9);
	tb_bar0_write(n, HCA_INIT_CMDQ_LOG_SIZE, 6);
	CHECK_EQ(mr(HCA_MGMT_INIT_WINDOW + HCA_INIT_CMDQ_BASE_LO), 0x12345640, "firmware sees CMDQ_BASE_LO");
	CHECK_EQ(mr(HCA_MGMT_INIT_WINDOW + HCA_INIT_CMDQ_BASE_HI), 0x9, "firmware sees CMDQ_BASE_HI");
	CHECK_EQ(mr(HCA_MGMT_INIT_WINDOW + HCA_INIT_CMDQ_LOG_SIZE), 6, "firmware sees CMDQ_LOG_SIZE");
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_CMDQ_BASE_LO), 0x12345640, "host reads CMDQ_BASE_LO back");
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_CMDQ_PI), 5, "CMDQ_PI untouched by the other writes");
	mw(HCA_MGMT_FW_EVENT, HCA_MGMT_FW_EVENT_CMDQ_PI_MASK);
	CHECK_EQ(mr(HCA_MGMT_FW_EVENT), 0, "rw1c");
	/* firmware-written registers are read-only to the host */
	tb_bar0_write(n, HCA_INIT_FW_VER, 0x1234);
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_FW_VER), 0, "host cannot write FW_VER");
	mw(HCA_MGMT_INIT_WINDOW + HCA_INIT_FW_VER, 0x00010203);
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_FW_VER), 0x00010203, "firmware writes FW_VER");
	mw(HCA_MGMT_INIT_WINDOW + HCA_INIT_STATUS, 0x301);
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_STATUS), 0x301, "firmware writes STATUS");
	/* CTRL.ENABLE: stored, raises HOST_CTRL */
	tb_bar0_write(n, HCA_INIT_CTRL, HCA_INIT_CTRL_ENABLE_MASK);
	CHECK_EQ(mr(HCA_MGMT_FW_EVENT), HCA_MGMT_FW_EVENT_HOST_CTRL_MASK, "CTRL write raises HOST_CTRL");
	CHECK_EQ(mr(HCA_MGMT_INIT_WINDOW + HCA_INIT_CTRL), HCA_INIT_CTRL_ENABLE_MASK, "firmware sees ENABLE");
	mw(HCA_MGMT_FW_EVENT, HCA_MGMT_FW_EVENT_HOST_CTRL_MASK);
	/* CTRL.RESET: engine reset, RESET reads 1 until firmware clears it */
	tb_bar0_write(n, HCA_INIT_CTRL, HCA_INIT_CTRL_RESET_MASK);
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_CTRL), HCA_INIT_CTRL_RESET_MASK, "RESET reads 1");
	CHECK_EQ(mr(HCA_MGMT_FW_EVENT), HCA_MGMT_FW_EVENT_HOST_CTRL_MASK, "HOST_CTRL, and only it, after reset");
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_ENGINE_STATUS), 0, "ENGINE_STATUS after reset: port down, no DMA fault");
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_STATUS), 0, "STATUS cleared by reset");
	CHECK_EQ(mr(HCA_MGMT_PORT_STATE), HCA_PORT_DOWN, "port down after reset");
	CHECK_EQ(mr(HCA_MGMT_ENGINE_CTRL), 0, "engine disabled after reset");
	CHECK_EQ(mr(HCA_MGMT_EVT_COUNT), 0, "no events after reset");
	tb_bar0_write(n, HCA_INIT_CTRL, 0);
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_CTRL), HCA_INIT_CTRL_RESET_MASK, "host cannot clear RESET");
	mw(HCA_MGMT_INIT_WINDOW + HCA_INIT_CTRL, 0);
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_CTRL), 0, "firmware completes the reset");
	mw(HCA_MGMT_FW_EVENT, 0xffffffff);
	tb_node_up(n);
	CHECK_EQ(mr(HCA_MGMT_PORT_STATE), HCA_PORT_ACTIVE, "up again");
}

static void clock(void)
{
	uint32_t lo, hi;

	tb_run_for(tb, 1000);
	lo = tb_bar0_read(n, HCA_INIT_CLOCK_LO);
	hi = tb_bar0_read(n, HCA_INIT_CLOCK_HI);
	CHECK_EQ(((uint64_t)hi << 32 | lo), tb_now(tb), "CLOCK = now");
	CHECK_EQ(mr(HCA_MGMT_CLOCK_LO), (uint32_t)tb_now(tb), "mgmt CLOCK_LO");
	tb_run_for(tb, (1ull << 32) + 5);
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_CLOCK_HI), hi, "CLOCK_HI latched by the CLOCK_LO read");
	lo = tb_bar0_read(n, HCA_INIT_CLOCK_LO);
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_CLOCK_HI), hi + 1, "new latch");
	CHECK_EQ(mr(HCA_MGMT_CLOCK_HI), (uint32_t)(tb_now(tb) >> 32), "mgmt CLOCK_HI unlatched");
	(void)lo;
}

static void inject(uint32_t eqn, uint8_t type, uint8_t sub, uint32_t elem, uint32_t data)
{
	mw(HCA_MGMT_EQE_INJ_EQN, eqn);
	mw(HCA_MGMT_EQE_INJ_TYPE, (uint32_t)sub << 8 | type);
	mw(HCA_MGMT_EQE_INJ_ELEMENT, elem);
	mw(HCA_MGMT_EQE_INJ_DATA, data);
	mw(HCA_MGMT_EQE_INJ_GO, 1);
}

static void msix_and_eqe_injection(void)
{
	struct tb_eq *eq = tb_eq_create(n, 2, 3);	/* 4 entries, vector 3 (unmasked by tb) */
	struct hca_eqe e;
	uint64_t irq0;

	/* other vectors come out of reset masked */
	CHECK_EQ(tb_bar0_read(n, HCA_BAR0_MSIX_TABLE + 16 * 5 + HCA_MSIX_VECTOR_CTRL), 1, "vector 5 masked");
	CHECK_EQ(tb_bar0_read(n, HCA_BAR0_MSIX_TABLE + 16 * 3 + HCA_MSIX_VECTOR_CTRL), 0, "vector 3 unmasked");
	tb_bar0_write(n, HCA_BAR0_MSIX_TABLE + 16 * 3 + HCA_MSIX_MSG_DATA, 0xabcd);
	CHECK_EQ(tb_bar0_read(n, HCA_BAR0_MSIX_TABLE + 16 * 3 + HCA_MSIX_MSG_DATA), 0xabcd, "MSG_DATA stored");

	irq0 = n->irq[3];
	inject(eq->eqn, HCA_EQE_TYPE_ASYNC, HCA_EVENT_PORT_ACTIVE, 1, 0);
	CHECK_EQ(mr(HCA_MGMT_EQE_INJ_STATUS), HCA_MGMT_STATUS_OK, "inject OK");
	tb_run(tb, 1000);
	CHECK(tb_eq_poll(eq, &e), "injected EQE");
	CHECK_EQ(e.type, HCA_EQE_TYPE_ASYNC, "type");
	CHECK_EQ(e.subtype, HCA_EVENT_PORT_ACTIVE, "subtype");
	CHECK_EQ(e.element, 1, "element");
	CHECK_EQ(e.owner, 1, "first pass owner bit 1");
	CHECK_EQ(n->irq[3], irq0 + 1, "armed EQ fired its vector");
	/* disarmed now: a second EQE fires nothing until re-armed */
	inject(eq->eqn, HCA_EQE_TYPE_CMD_DONE, 0, 77, 5);
	tb_run(tb, 1000);
	CHECK_EQ(n->irq[3], irq0 + 1, "disarmed: no interrupt");
	/* EQ_ARM at ci with an EQE pending fires at once */
	tb_eq_arm(eq);
	tb_run(tb, 1000);
	CHECK_EQ(n->irq[3], irq0 + 2, "re-arm with pending EQE fires");
	CHECK(tb_eq_poll(eq, &e) && e.type == HCA_EQE_TYPE_CMD_DONE && e.element == 77 && e.data == 5,
	      "CMD_DONE EQE");
	/* masked vector: PBA bit, delivered on unmask */
	tb_eq_arm(eq);
	tb_bar0_write(n, HCA_BAR0_MSIX_TABLE + 16 * 3 + HCA_MSIX_VECTOR_CTRL, 1);
	inject(eq->eqn, HCA_EQE_TYPE_COMP, 0, 9, 0);
	tb_run(tb, 1000);
	CHECK_EQ(n->irq[3], irq0 + 2, "masked: no interrupt");
	CHECK_EQ(tb_bar0_read(n, HCA_BAR0_MSIX_PBA), 1u << 3, "PBA bit 3");
	tb_bar0_write(n, HCA_BAR0_MSIX_TABLE + 16 * 3 + HCA_MSIX_VECTOR_CTRL, 0);
	tb_run(tb, 1000);
	CHECK_EQ(n->irq[3], irq0 + 3, "delivered on unmask");
	CHECK_EQ(tb_bar0_read(n, HCA_BAR0_MSIX_PBA), 0, "PBA cleared");
	/* fill the 4-entry ring: 3 queued (ci=3 after polls? no: 1 unpolled) -> overflow */
	CHECK(tb_eq_poll(eq, &e), "comp EQE");
	for (int i = 0; i < 4; i++)
		inject(eq->eqn, HCA_EQE_TYPE_COMP, 0, 100 + i, 0);
	CHECK_EQ(mr(HCA_MGMT_EQE_INJ_STATUS), HCA_MGMT_STATUS_OK, "4th fits");
	inject(eq->eqn, HCA_EQE_TYPE_COMP, 0, 200, 0);
	CHECK_EQ(mr(HCA_MGMT_EQE_INJ_STATUS), HCA_MGMT_STATUS_OVERFLOW, "5th overflows");
	CHECK_EQ(tb_stat(n, HCA_STAT_EQ_OVERFLOW), 1, "EQ_OVERFLOW counted");
	tb_run(tb, 1000);
	for (int i = 0; i < 4; i++) {
		CHECK(tb_eq_poll(eq, &e), "EQE %d", i);
		CHECK_EQ(e.element, 100 + i, "ring order");
		CHECK_EQ(e.owner, (eq->ci - 1) >> 2 & 1 ? 0 : 1, "owner bit flips per pass");
	}
	CHECK(!tb_eq_poll(eq, &e), "nothing more");
	inject(31, HCA_EQE_TYPE_COMP, 0, 1, 0);
	CHECK_EQ(mr(HCA_MGMT_EQE_INJ_STATUS), HCA_MGMT_STATUS_BAD_STATE, "invalid EQ");
	inject(1u << HCA_CAP_LOG_MAX_EQ, HCA_EQE_TYPE_COMP, 0, 1, 0);
	CHECK_EQ(mr(HCA_MGMT_EQE_INJ_STATUS), HCA_MGMT_STATUS_BAD_STATE, "EQ number one past the table");
	inject(0xffffffffu, HCA_EQE_TYPE_COMP, 0, 1, 0);
	CHECK_EQ(mr(HCA_MGMT_EQE_INJ_STATUS), HCA_MGMT_STATUS_BAD_STATE, "EQ number far out of range");
	free(eq);
}

/*
 * The MSI-X table (programming.md 2.3, PCIe MSI-X): every entry's four
 * words hold what was written (vector control: the mask bit only); the
 * words between the table and the PBA are a hole that reads 0; unaligned
 * writes are ignored.
 */
static void msix_table(void)
{
	const uint32_t t = HCA_BAR0_MSIX_TABLE;

	for (uint32_t v = 0; v < HCA_CAP_NUM_MSIX; v++) {
		tb_bar0_write(n, t + 16 * v + HCA_MSIX_MSG_ADDR_LO, 0xfee00000u + 16 * v);
		tb_bar0_write(n, t + 16 * v + HCA_MSIX_MSG_ADDR_HI, 0x100 + v);
		tb_bar0_write(n, t + 16 * v + HCA_MSIX_MSG_DATA, 0x4000 + v);
		tb_bar0_write(n, t + 16 * v + HCA_MSIX_VECTOR_CTRL, 0xfffffffeu | (v & 1));
	}
	for (uint32_t v = 0; v < HCA_CAP_NUM_MSIX; v++) {
		CHECK_EQ(tb_bar0_read(n, t + 16 * v + HCA_MSIX_MSG_ADDR_LO), 0xfee00000u + 16 * v, "entry address low");
		CHECK_EQ(tb_bar0_read(n, t + 16 * v + HCA_MSIX_MSG_ADDR_HI), 0x100 + v, "entry address high");
		CHECK_EQ(tb_bar0_read(n, t + 16 * v + HCA_MSIX_MSG_DATA), 0x4000 + v, "entry data");
		CHECK_EQ(tb_bar0_read(n, t + 16 * v + HCA_MSIX_VECTOR_CTRL), v & 1, "entry control: the mask bit only");
	}
	for (uint32_t off = t + 16 * HCA_CAP_NUM_MSIX; off < t + 16 * HCA_CAP_NUM_MSIX + 64; off += 4)
		CHECK_EQ(tb_bar0_read(n, off), 0, "hole after the MSI-X table");
	tb_bar0_write(n, t + 16 * 2 + HCA_MSIX_MSG_DATA + 1, 0x77777777);
	tb_bar0_write(n, t + 16 * 2 + HCA_MSIX_MSG_DATA + 2, 0x77777777);
	CHECK_EQ(tb_bar0_read(n, t + 16 * 2 + HCA_MSIX_MSG_DATA), 0x4002, "unaligned BAR0 writes ignored");
	for (uint32_t v = 0; v < HCA_CAP_NUM_MSIX; v++)
		tb_bar0_write(n, t + 16 * v + HCA_MSIX_VECTOR_CTRL, 1);
}

static void event_fifo(void)
{
	uint32_t c1, c2;

	tb_evt_clear(n);
	CHECK(!(mr(HCA_MGMT_FW_EVENT) & HCA_MGMT_FW_EVENT_ENGINE_EVENT_MASK), "no ENGINE_EVENT");
	mw(HCA_MGMT_PORT_CTRL, 0);
	CHECK_EQ(mr(HCA_MGMT_EVT_COUNT), 1, "PORT_ERR queued");
	CHECK_EQ(mr(HCA_MGMT_EVT_TYPE), HCA_EVENT_PORT_ERR, "PORT_ERR");
	CHECK_EQ(mr(HCA_MGMT_EVT_ELEMENT), 1, "port 1");
	CHECK(mr(HCA_MGMT_FW_EVENT) & HCA_MGMT_FW_EVENT_ENGINE_EVENT_MASK, "ENGINE_EVENT level");
	mw(HCA_MGMT_FW_EVENT, HCA_MGMT_FW_EVENT_ENGINE_EVENT_MASK);
	CHECK(mr(HCA_MGMT_FW_EVENT) & HCA_MGMT_FW_EVENT_ENGINE_EVENT_MASK, "re-sets while FIFO not empty");
	c1 = mr(HCA_MGMT_EVT_COUNT);
	c2 = mr(HCA_MGMT_EVT_COUNT);
	CHECK(c1 == c2 && mr(HCA_MGMT_EVT_TYPE) == HCA_EVENT_PORT_ERR, "reads have no side effects");
	mw(HCA_MGMT_PORT_CTRL, 0);
	CHECK_EQ(mr(HCA_MGMT_EVT_COUNT), 1, "no event without a change");
	/* 70 changes: 64 kept, overflow flag */
	for (int i = 0; i < 69; i++)
		mw(HCA_MGMT_PORT_CTRL, i % 2 == 0);
	CHECK_EQ(mr(HCA_MGMT_EVT_COUNT), HCA_MGMT_EVT_DEPTH, "FIFO depth 64");
	CHECK(mr(HCA_MGMT_EVT_TYPE) & HCA_MGMT_EVT_TYPE_OVERFLOW_MASK, "overflow flag");
	CHECK_EQ(HCA_FIELD_GET(mr(HCA_MGMT_EVT_TYPE), HCA_MGMT_EVT_TYPE_TYPE), HCA_EVENT_PORT_ERR, "oldest kept");
	mw(HCA_MGMT_EVT_POP, 0);
	CHECK_EQ(mr(HCA_MGMT_EVT_COUNT), 63, "pop");
	CHECK(!(mr(HCA_MGMT_EVT_TYPE) & HCA_MGMT_EVT_TYPE_OVERFLOW_MASK), "pop clears overflow");
	CHECK_EQ(mr(HCA_MGMT_EVT_TYPE), HCA_EVENT_PORT_ACTIVE, "second event");
	tb_evt_clear(n);
	mw(HCA_MGMT_EVT_POP, 0);	/* pop on empty is harmless */
	CHECK_EQ(mr(HCA_MGMT_EVT_COUNT), 0, "empty");
	mw(HCA_MGMT_PORT_CTRL, 1);
	CHECK_EQ(mr(HCA_MGMT_PORT_STATE), HCA_PORT_ACTIVE, "up");
	tb_evt_clear(n);
}

static void contexts(void)
{
	struct hca_mrc m, back;
	struct hca_qpc q, qb;
	uint8_t raw[256];

	memset(raw, 0, sizeof(raw));
	CHECK_EQ(tb_ctx_write(n, 9, 1, raw, 64), HCA_MGMT_STATUS_BAD_TYPE, "unknown type");
	mw(HCA_MGMT_CTX_CMD, HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_OP, 7) | HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_TYPE, 1) | 5);
	CHECK_EQ(mr(HCA_MGMT_CTX_STATUS), HCA_MGMT_STATUS_BAD_TYPE, "unknown op");
	CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_QPC, 0, raw, 256), HCA_MGMT_STATUS_BAD_INDEX, "QPN 0 reserved");
	CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_QPC, HCA_QPN_GSI, raw, 256), HCA_MGMT_STATUS_OK, "QPN 1 (GSI) has a context");
	CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_QPC, 1u << HCA_CAP_LOG_MAX_QP, raw, 256), HCA_MGMT_STATUS_BAD_INDEX, "QPN range");
	CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_CQC, 0, raw, 64), HCA_MGMT_STATUS_BAD_INDEX, "CQN 0");
	CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_SRQC, 0, raw, 64), HCA_MGMT_STATUS_BAD_INDEX, "SRQN 0");
	CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_MRC, 0, raw, 64), HCA_MGMT_STATUS_BAD_INDEX, "MR 0");
	CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_MRC, 1u << HCA_CAP_LOG_MAX_MR, raw, 64), HCA_MGMT_STATUS_BAD_INDEX, "MR range");
	CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_GIDC, HCA_CAP_GID_TBL_LEN, raw, 32), HCA_MGMT_STATUS_BAD_INDEX, "GID range");
	CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_EQC, 0, raw, 64), HCA_MGMT_STATUS_OK, "EQN 0 usable");

	memset(&m, 0, sizeof(m));
	m.valid = 1;
	m.key = 0x5a;
	m.access = HCA_ACCESS_LOCAL_WRITE;
	m.pdn = 3;
	m.va = 0x123456789000ull;
	m.length = 4096;
	m.dma_addr = 0x5000;
	CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_MRC, 77, &m, sizeof(m)), HCA_MGMT_STATUS_OK, "MRC write");
	CHECK_EQ(tb_ctx_read(n, HCA_CTX_TYPE_MRC, 77, &back, sizeof(back)), HCA_MGMT_STATUS_OK, "MRC read");
	CHECK(memcmp(&m, &back, sizeof(m)) == 0, "MRC round trip");

	/* QPC: one-shot flags act and are not stored; status words are the engine's */
	memset(&q, 0, sizeof(q));
	q.state = HCA_QPS_INIT;
	q.qp_type = HCA_QPT_RC;
	q.flags = HCA_QPC_FLAGS_RESET_STATE_MASK | HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK | HCA_QPC_FLAGS_LOAD_RQ_PSN_MASK |
		  HCA_QPC_FLAGS_SQ_SIG_ALL_MASK;
	q.sq_psn = 0xabcdef;
	q.rq_psn = 0x123456;
	q.cur_state = HCA_QPS_ERR;	/* status bytes written are ignored */
	q.msn = 99;
	CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_QPC, 40, &q, sizeof(q)), HCA_MGMT_STATUS_OK, "QPC write");
	tb_ctx_read(n, HCA_CTX_TYPE_QPC, 40, &qb, sizeof(qb));
	CHECK_EQ(qb.flags, HCA_QPC_FLAGS_SQ_SIG_ALL_MASK, "one-shot flags not stored");
	CHECK_EQ(qb.cur_state, HCA_QPS_INIT, "cur_state = state");
	CHECK_EQ(qb.sq_psn_next, 0xabcdef, "LOAD_SQ_PSN");
	CHECK_EQ(qb.rq_psn_expected, 0x123456, "LOAD_RQ_PSN");
	CHECK_EQ(qb.msn, 0, "MSN 0 after RESET_STATE");
	CHECK_EQ(qb.sq_psn, 0xabcdef, "config kept");
	q.flags = 0;
	q.sq_psn = 5;
	q.state = HCA_QPS_INIT;
	tb_ctx_write(n, HCA_CTX_TYPE_QPC, 40, &q, sizeof(q));
	tb_ctx_read(n, HCA_CTX_TYPE_QPC, 40, &qb, sizeof(qb));
	CHECK_EQ(qb.sq_psn_next, 0xabcdef, "no LOAD_SQ_PSN: PSN state kept");
	for (unsigned int i = 0xA0; i < 256; i++)
		if (((uint8_t *)&qb)[i])
			CHECK(0, "QPC reserved byte 0x%x reads non-zero", i);
}

static void doorbells(void)
{
	uint32_t e0 = tb_stat(n, HCA_STAT_DB_ERR);
	struct tb_cq *cq = tb_cq_create(n, 4, NULL);

	tb_doorbell(n, HCA_DB_SQ_PI, 200, 1);		/* QP 200 does not exist */
	CHECK_EQ(tb_stat(n, HCA_STAT_DB_ERR), e0 + 1, "doorbell for an invalid QP counted");
	tb_doorbell(n, HCA_DB_CQ_CI, cq->cqn, 0);
	CHECK_EQ(tb_stat(n, HCA_STAT_DB_ERR), e0 + 1, "valid CQ doorbell accepted");
	tb_bar0_write(n, HCA_BAR0_DB_BASE + 5 * HCA_BAR0_DB_PAGE_SIZE + HCA_DB_CQ_CI, cq->cqn);
	CHECK_EQ(tb_stat(n, HCA_STAT_DB_ERR), e0 + 2, "CQ doorbell from another page counted");
	CHECK_EQ(tb_bar0_read(n, HCA_BAR0_DB_BASE + HCA_DB_SQ_PI), 0, "doorbells read 0");
	free(cq);
}

static void dma_fault_latch_and_reset(void)
{
	struct hca_eqc c;
	uint32_t info;

	CHECK_EQ(mr(HCA_MGMT_DMA_FAULT_INFO), 0, "no fault yet");
	CHECK(!(tb_bar0_read(n, HCA_INIT_ENGINE_STATUS) & HCA_INIT_ENGINE_STATUS_DMA_FAULT_MASK),
	      "ENGINE_STATUS.DMA_FAULT clear before any fault");
	/* an EQ whose ring is not mapped: the EQE write faults, the EQ stops */
	memset(&c, 0, sizeof(c));
	c.valid = 1;
	c.log_size = 2;
	c.vector = 4;
	c.base = 0xdead0000ull;
	c.uar = TB_UAR;
	tb_ctx_write(n, HCA_CTX_TYPE_EQC, 20, &c, sizeof(c));
	inject(20, HCA_EQE_TYPE_COMP, 0, 1, 0);
	tb_run(tb, 1000);
	CHECK_EQ(tb_stat(n, HCA_STAT_DMA_FAULT), 1, "DMA_FAULT counted");
	info = mr(HCA_MGMT_DMA_FAULT_INFO);
	CHECK(info & HCA_MGMT_DMA_FAULT_INFO_VALID_MASK, "latch valid");
	CHECK(info & HCA_MGMT_DMA_FAULT_INFO_WRITE_MASK, "latch: write");
	CHECK_EQ(HCA_FIELD_GET(info, HCA_MGMT_DMA_FAULT_INFO_CLIENT), HCA_DMA_CLIENT_EQE, "latch: client EQE");
	CHECK_EQ(mr(HCA_MGMT_DMA_FAULT_LO), 0xdead0000u, "latch IOVA");
	CHECK(tb_bar0_read(n, HCA_INIT_ENGINE_STATUS) & HCA_INIT_ENGINE_STATUS_DMA_FAULT_MASK, "ENGINE_STATUS.DMA_FAULT");
	CHECK(hostmem_fault_count(n->hm) == 1, "host saw one fault");
	inject(20, HCA_EQE_TYPE_COMP, 0, 1, 0);
	CHECK_EQ(mr(HCA_MGMT_EQE_INJ_STATUS), HCA_MGMT_STATUS_BAD_STATE, "a stopped EQ takes no EQEs");
	tb_run(tb, 1000);
	CHECK_EQ(tb_stat(n, HCA_STAT_DMA_FAULT), 1, "no second DMA attempt");
	/* ENGINE_CTRL.RESET: contexts, counters, latch, MSI-X state */
	mw(HCA_MGMT_ENGINE_CTRL, HCA_MGMT_ENGINE_CTRL_RESET_MASK | HCA_MGMT_ENGINE_CTRL_ENABLE_MASK);
	CHECK_EQ(mr(HCA_MGMT_ENGINE_CTRL), HCA_MGMT_ENGINE_CTRL_ENABLE_MASK, "RESET self-clears, ENABLE set");
	CHECK_EQ(tb_stat(n, HCA_STAT_DMA_FAULT), 0, "counters zeroed");
	CHECK_EQ(mr(HCA_MGMT_DMA_FAULT_INFO), 0, "latch cleared");
	CHECK(!(tb_bar0_read(n, HCA_INIT_ENGINE_STATUS) & HCA_INIT_ENGINE_STATUS_DMA_FAULT_MASK),
	      "ENGINE_STATUS.DMA_FAULT cleared");
	CHECK_EQ(mr(HCA_MGMT_FW_EVENT), 0, "FW_EVENT back to its power-on 0");
	CHECK(!n->ops->fw_irq(n->eng), "no firmware interrupt after the reset");
	CHECK_EQ(tb_bar0_read(n, HCA_BAR0_MSIX_TABLE + 16 * 3 + HCA_MSIX_VECTOR_CTRL), 1, "vectors masked again");
	tb_ctx_read(n, HCA_CTX_TYPE_MRC, 77, &c, sizeof(c));
	CHECK_EQ(c.valid, 0, "contexts invalid");
	CHECK_EQ(mr(HCA_MGMT_PORT_MAC_LO), 0x00000001, "MAC kept");
}

/* Receive drop counters, one per reason, checked in wire.md's order. */
static size_t build_to(struct tb_node *to, uint8_t opcode, uint32_t dqpn, uint32_t qkey, uint8_t *buf)
{
	struct roce_pkt p;
	uint8_t pay[16] = { 0 };

	roce_pkt_init(&p, opcode);
	memcpy(p.dmac, to->mac, 6);
	p.smac[0] = 2;
	p.smac[5] = 9;
	p.sip = 0x0a000009;
	p.dip = to->ip;
	p.sport = 0xC000;
	p.dqpn = dqpn;
	p.deth.qkey = qkey;
	return roce_build(&p, pay, sizeof(pay), buf, 256);
}

static void rx_drops(void)
{
	static const unsigned int ctr[] = { HCA_STAT_RX_DROP_PORT_DOWN, HCA_STAT_RX_DROP_MALFORMED,
					    HCA_STAT_RX_DROP_ICRC, HCA_STAT_RX_DROP_NO_QP, HCA_STAT_RX_DROP_ADDR,
					    HCA_STAT_RX_DROP_QKEY };
	struct tb_node *n1 = tb_node(tb, 1);
	struct tb_cq *cq = tb_cq_create(n1, 4, NULL);
	struct tb_qp *ud = tb_qp_create(n1, HCA_QPT_UD, 1, cq, cq, NULL, NULL);
	uint8_t f[256];
	uint32_t base[6], frames0 = tb_stat(n1, HCA_STAT_RX_FRAMES);
	size_t len;
	int k = 0;

	tb_qp_ud_ready(ud, NULL);
	for (int i = 0; i < 6; i++)
		base[i] = tb_stat(n1, ctr[i]);
#define RX(frame, l, counter, what)                                                   \
	do {                                                                          \
		n1->ops->rx_frame(n1->eng, frame, l);                                 \
		tb_run(tb, 1000);                                                     \
		k++;                                                                  \
		for (int i_ = 0; i_ < 6; i_++) {                                      \
			uint32_t want = base[i_] + (ctr[i_] == (counter));            \
			CHECK_EQ(tb_stat(n1, ctr[i_]), want, what);                   \
			base[i_] = want;                                              \
		}                                                                     \
	} while (0)
	len = build_to(n1, HCA_BTH_OP_UD_SEND_ONLY, ud->qpn, ud->qpc.qkey, f);
	tb_mgmt_write(n1, HCA_MGMT_PORT_CTRL, 0);
	RX(f, len, HCA_STAT_RX_DROP_PORT_DOWN, "port down");
	tb_mgmt_write(n1, HCA_MGMT_PORT_CTRL, 1);
	tb_evt_clear(n1);
	RX(f, 20, HCA_STAT_RX_DROP_MALFORMED, "truncated");
	f[24] ^= 1;	/* IPv4 header checksum */
	RX(f, len, HCA_STAT_RX_DROP_MALFORMED, "bad IP checksum");
	f[24] ^= 1;
	f[5] ^= 0x10;	/* foreign MAC ... */
	f[len - 1] ^= 1;	/* ... and a bad ICRC: the address check comes first */
	RX(f, len, HCA_STAT_RX_DROP_ADDR, "foreign MAC with bad ICRC");
	f[5] ^= 0x10;
	RX(f, len, HCA_STAT_RX_DROP_ICRC, "bad ICRC");
	f[len - 1] ^= 1;
	len = build_to(n1, HCA_BTH_OP_UD_SEND_ONLY, ud->qpn, ud->qpc.qkey, f);
	f[33] = 99;	/* destination IP not in the GID table (checksum fixed below) */
	{
		uint32_t sum = 0;

		f[24] = f[25] = 0;
		for (int i = 14; i < 34; i += 2)
			sum += (uint32_t)f[i] << 8 | f[i + 1];
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		f[24] = (uint8_t)(~sum >> 8);
		f[25] = (uint8_t)~sum;
	}
	RX(f, len, HCA_STAT_RX_DROP_ADDR, "IP not ours");
	len = build_to(n1, HCA_BTH_OP_UD_SEND_ONLY, ud->qpn, ud->qpc.qkey, f);
	f[42] = 0x1f;	/* an opcode nobody implements, ICRC recomputed */
	{
		uint32_t crc = roce_icrc(f, len - 4);

		memcpy(f + len - 4, &crc, 4);
	}
	RX(f, len, HCA_STAT_RX_DROP_MALFORMED, "unknown opcode");
	len = build_to(n1, HCA_BTH_OP_UD_SEND_ONLY, 200, ud->qpc.qkey, f);
	RX(f, len, HCA_STAT_RX_DROP_NO_QP, "no such QP");
	len = build_to(n1, HCA_BTH_OP_RC_SEND_ONLY, ud->qpn, 0, f);
	RX(f, len, HCA_STAT_RX_DROP_NO_QP, "RC opcode to a UD QP");
	len = build_to(n1, HCA_BTH_OP_UD_SEND_ONLY, ud->qpn, ud->qpc.qkey + 1, f);
	RX(f, len, HCA_STAT_RX_DROP_QKEY, "Q_Key mismatch");
	len = build_to(n1, HCA_BTH_OP_UD_SEND_ONLY, ud->qpn, ud->qpc.qkey, f);
	RX(f, len, -1u, "accepted (no receive WQE: dropped by the UD rules, no counter)");
	{
		/* the engine interface takes frames up to 64 KiB (sim/rtl/rtl_engine.c takes the same) */
		static uint8_t big[65537];
		uint32_t fr;

		memcpy(big, f, len);
		big[24] ^= 1;	/* IPv4 header checksum */
		RX(big, sizeof(big) - 1, HCA_STAT_RX_DROP_MALFORMED, "64 KiB frame looked at (bad IP checksum)");
		fr = tb_stat(n1, HCA_STAT_RX_FRAMES);
		n1->ops->rx_frame(n1->eng, big, sizeof(big));
		tb_run(tb, 1000);
		CHECK_EQ(tb_stat(n1, HCA_STAT_RX_FRAMES), fr, "a frame over 64 KiB is refused at the interface");
	}
#undef RX
	CHECK_EQ(tb_stat(n1, HCA_STAT_RX_FRAMES), frames0 + (uint32_t)k, "every frame counted in RX_FRAMES");
	free(cq);
	free(ud);
}

static int no_dma_read(void *h, uint64_t iova, void *buf, size_t len)
{
	(void)h, (void)iova, (void)buf, (void)len;
	return -1;
}

static int no_dma_write(void *h, uint64_t iova, const void *buf, size_t len)
{
	(void)h, (void)iova, (void)buf, (void)len;
	return -1;
}

static void no_tx(void *h, const uint8_t *frame, size_t len)
{
	(void)h, (void)frame, (void)len;
}

static void no_irq(void *h, unsigned int vector)
{
	(void)h, (void)vector;
}

/* Bad arguments to create: a clear error, never a crash (engine.h contract). */
static void create_args(void)
{
	const struct hca_engine_ops *ops = hca_engine_find("model");
	struct hca_host_ops none = { 0 };
	struct hca_host_ops host = { no_dma_read, no_dma_write, no_tx, no_irq };
	struct hca_engine *e = NULL;

	CHECK(ops != NULL, "model engine registered");
	if (!ops)
		return;
	CHECK_EQ(ops->create(NULL, NULL, NULL, &e), -EINVAL, "no host ops: -EINVAL");
	CHECK_EQ(ops->create(NULL, &none, NULL, &e), -EINVAL, "host ops without callbacks: -EINVAL");
	CHECK_EQ(ops->create(NULL, &host, NULL, NULL), -EINVAL, "nowhere to return the engine: -EINVAL");
	CHECK(e == NULL, "no engine handed out");
	CHECK_EQ(ops->create(NULL, &host, NULL, &e), 0, "complete host ops: created");
	if (e)
		ops->destroy(e);
}

/*
 * A reset while received frames wait for the next step: they are dropped
 * with the rest of the engine state and their buffers freed (LeakSanitizer,
 * which make test's build runs at exit, is the oracle).
 */
static void reset_with_frames_queued(void)
{
	uint8_t f[256];
	size_t len = build_to(n, HCA_BTH_OP_UD_SEND_ONLY, 0x77, 0, f);

	for (int i = 0; i < 3; i++)
		n->ops->rx_frame(n->eng, f, len);
	mw(HCA_MGMT_ENGINE_CTRL, HCA_MGMT_ENGINE_CTRL_RESET_MASK | HCA_MGMT_ENGINE_CTRL_ENABLE_MASK);
	tb_run(tb, 1000);
	CHECK_EQ(tb_stat(n, HCA_STAT_RX_DROP_NO_QP), 0, "frames queued before the reset are not processed after it");
}

/*
 * An EQ destroyed (EQC valid = 0) and created again starts over: one whose
 * ring write faulted (stopped, programming.md 3: DMA faults) takes EQEs
 * again once destroyed and created on a good ring, its first EQE in slot 0
 * with owner bit 1, where a driver reads a new EQ from.
 */
static void eq_recreate(void)
{
	struct tb_eq *eq = tb_eq_create(n, 2, 5);
	struct hca_eqc c;
	struct hca_eqe e;

	memset(&c, 0, sizeof(c));
	c.valid = 1;
	c.log_size = (uint8_t)eq->log_size;
	c.vector = (uint8_t)eq->vector;
	c.base = 0xdead0000ull;		/* not mapped: the first EQE write faults */
	c.uar = TB_UAR;
	tb_ctx_write(n, HCA_CTX_TYPE_EQC, eq->eqn, &c, sizeof(c));
	inject(eq->eqn, HCA_EQE_TYPE_COMP, 0, 300, 0);
	tb_run(tb, 1000);
	inject(eq->eqn, HCA_EQE_TYPE_COMP, 0, 301, 0);
	CHECK_EQ(mr(HCA_MGMT_EQE_INJ_STATUS), HCA_MGMT_STATUS_BAD_STATE, "the faulted EQ is stopped");
	c.valid = 0;
	tb_ctx_write(n, HCA_CTX_TYPE_EQC, eq->eqn, &c, sizeof(c));	/* destroyed */
	c.valid = 1;
	c.base = eq->iova;
	tb_ctx_write(n, HCA_CTX_TYPE_EQC, eq->eqn, &c, sizeof(c));	/* created again on a good ring */
	inject(eq->eqn, HCA_EQE_TYPE_COMP, 0, 400, 0);
	CHECK_EQ(mr(HCA_MGMT_EQE_INJ_STATUS), HCA_MGMT_STATUS_OK, "the new EQ takes EQEs");
	tb_run(tb, 1000);
	CHECK(tb_eq_poll(eq, &e) && e.element == 400, "its first EQE in slot 0 with owner bit 1");
	free(eq);
}

int main(void)
{
	struct tb_config cfg = { .nodes = 2 };

	hca_model_engine_register();
	tb = tb_create(&cfg);
	CHECK(tb != NULL, "tb");
	if (!tb)
		return check_done();
	n = tb_node(tb, 0);
	identity();
	msix_table();
	fw_events_and_ctrl();
	clock();
	msix_and_eqe_injection();
	event_fifo();
	contexts();
	doorbells();
	rx_drops();
	dma_fault_latch_and_reset();
	reset_with_frames_queued();
	create_args();
	eq_recreate();
	ctx_rules_qpc_reset(n, 41);
	ctx_rules_eq_rewrite(tb, n, 6);
	ctx_rules_mrc_bytes(n, 1001);
	ctx_rules_data_words(n);	/* last: it resets the engine */
	tb_destroy(tb);
	return check_done();
}
