// SPDX-License-Identifier: MIT
/*
 * The RTL engine's register side through the "rtl" engine harness: identity
 * and capability words, the device clock, FW_EVENT and the firmware
 * interrupt, the context tables (every type, status codes, QPC one-shots and
 * status words), doorbells, the event FIFO and port control, EQE injection
 * (DMA write with the owner bit, arming, MSI-X, masking and PBA, overflow),
 * the MSI-X table as read/write storage (every word, both polarities), the
 * PBA bit set exactly until the message is sent (cycle by cycle),
 * the first-DMA-fault latch and ENGINE_CTRL reset, the context rules of
 * tests/ctx_rules.h (shared with model_mgmt).  Expected values come
 * from docs/programming.md and spec/hca.toml, not from the RTL.
 *
 *   rtl_regs [--width 64|512]
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ctx_rules.h"
#include "rtl/rtl_engine.h"
#include "tb.h"

static unsigned int width = 64;

static void engine_config(void *ctx, unsigned int node, struct hca_engine_config *ec)
{
	(void)ctx;
	(void)node;
	ec->data_w = width;
}

static struct tb *make_tb(void)
{
	struct tb_config c = { .engine = "rtl", .nodes = 2, .engine_config = engine_config };
	struct tb *tb = tb_create(&c);

	if (!tb) {
		printf("tb_create failed\n");
		exit(1);
	}
	return tb;
}

static void identity(struct tb_node *n)
{
	uint32_t cap0 = tb_bar0_read(n, HCA_INIT_CAP0), cap1 = tb_bar0_read(n, HCA_INIT_CAP1);
	uint32_t cap2 = tb_bar0_read(n, HCA_INIT_CAP2), cap3 = tb_bar0_read(n, HCA_INIT_CAP3);

	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_ID), HCA_MGMT_ID_VALUE, "MGMT_ID");
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_ENGINE_REV), HCA_INTERFACE_REV, "ENGINE_REV");
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_HCA_ID), (uint32_t)HCA_VENDOR_ID << 16 | HCA_DEVICE_ID, "HCA_ID");
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_HW_REV), HCA_HW_REV, "HW_REV");
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_INTERFACE_REV), HCA_INTERFACE_REV, "INTERFACE_REV");
	CHECK_EQ(HCA_FIELD_GET(cap0, HCA_INIT_CAP0_LOG_MAX_QP), HCA_CAP_LOG_MAX_QP, "CAP0.LOG_MAX_QP");
	CHECK_EQ(HCA_FIELD_GET(cap0, HCA_INIT_CAP0_LOG_MAX_MR), HCA_CAP_LOG_MAX_MR, "CAP0.LOG_MAX_MR");
	CHECK_EQ(HCA_FIELD_GET(cap1, HCA_INIT_CAP1_MAX_SGE), HCA_CAP_MAX_SGE, "CAP1.MAX_SGE");
	CHECK_EQ(HCA_FIELD_GET(cap2, HCA_INIT_CAP2_NUM_MSIX), HCA_CAP_NUM_MSIX, "CAP2.NUM_MSIX");
	CHECK_EQ(HCA_FIELD_GET(cap3, HCA_INIT_CAP3_DATA_W), width, "CAP3.DATA_W is the build's width");
	CHECK_EQ(HCA_FIELD_GET(cap3, HCA_INIT_CAP3_MAX_UAR), HCA_CAP_MAX_UAR, "CAP3.MAX_UAR");
	/* the management window shows the same init segment */
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_INIT_WINDOW + HCA_INIT_CAP3), cap3, "INIT_WINDOW CAP3");
	/* misaligned access: reads 0 */
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_HW_REV + 1), 0, "misaligned BAR0 read");
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_ID + 2), 0, "misaligned mgmt read");
}

static void clock_and_time(struct tb *tb, struct tb_node *n)
{
	uint64_t t0 = n->ops->now(n->eng);
	uint32_t lo0 = tb_mgmt_read(n, HCA_MGMT_CLOCK_LO);

	CHECK_EQ(lo0, (uint32_t)t0, "CLOCK_LO = now()");
	/* register accesses take no engine time */
	for (int i = 0; i < 10; i++)
		tb_mgmt_read(n, HCA_MGMT_ID);
	CHECK_EQ(n->ops->now(n->eng), t0, "register accesses take no time");
	tb_run_for(tb, 1000);
	CHECK_EQ(n->ops->now(n->eng), t0 + 1000, "advance 1000");
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_CLOCK_LO), (uint32_t)(t0 + 1000), "CLOCK_LO after 1000 cycles");
	/* a long idle stretch is skipped, the clock still counts it */
	tb_run_for(tb, 5000000000ull);
	CHECK_EQ(((uint64_t)tb_mgmt_read(n, HCA_MGMT_CLOCK_HI) << 32 | tb_mgmt_read(n, HCA_MGMT_CLOCK_LO)),
		 t0 + 1000 + 5000000000ull, "CLOCK_HI:LO after skipping idle time");
	/* host view: reading CLOCK_LO latches CLOCK_HI */
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_CLOCK_LO), (uint32_t)(t0 + 5000001000ull), "BAR0 CLOCK_LO");
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_CLOCK_HI), (uint32_t)((t0 + 5000001000ull) >> 32), "BAR0 CLOCK_HI latch");
	CHECK_EQ(n->ops->next_event(n->eng), UINT64_MAX, "idle engine: next_event = UINT64_MAX");
}

static void fw_event(struct tb_node *n)
{
	tb_mgmt_write(n, HCA_MGMT_FW_EVENT, 0xffffffff);
	tb_evt_clear(n);
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_FW_EVENT), 0, "FW_EVENT clear");
	CHECK(!n->ops->fw_irq(n->eng), "no firmware interrupt");
	tb_bar0_write(n, HCA_INIT_CMDQ_PI, 5);
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_FW_EVENT), HCA_MGMT_FW_EVENT_CMDQ_PI_MASK, "CMDQ_PI doorbell");
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_INIT_WINDOW + HCA_INIT_CMDQ_PI), 5, "CMDQ_PI through the window");
	CHECK(n->ops->fw_irq(n->eng), "firmware interrupt raised");
	tb_bar0_write(n, HCA_INIT_CTRL, HCA_INIT_CTRL_ENABLE_MASK);
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_FW_EVENT),
		 HCA_MGMT_FW_EVENT_CMDQ_PI_MASK | HCA_MGMT_FW_EVENT_HOST_CTRL_MASK, "HOST_CTRL");
	tb_mgmt_write(n, HCA_MGMT_FW_EVENT, HCA_MGMT_FW_EVENT_CMDQ_PI_MASK);
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_FW_EVENT), HCA_MGMT_FW_EVENT_HOST_CTRL_MASK, "write-1-to-clear");
	tb_mgmt_write(n, HCA_MGMT_FW_EVENT, HCA_MGMT_FW_EVENT_HOST_CTRL_MASK);
	CHECK(!n->ops->fw_irq(n->eng), "interrupt drops with FW_EVENT");
	/* firmware-owned init registers: host writes ignored, firmware writes land */
	tb_bar0_write(n, HCA_INIT_FW_VER, 0x1234);
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_FW_VER), 0, "host cannot write FW_VER");
	tb_mgmt_write(n, HCA_MGMT_INIT_WINDOW + HCA_INIT_FW_VER, HCA_FW_VERSION);
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_FW_VER), HCA_FW_VERSION, "firmware writes FW_VER");
	tb_mgmt_write(n, HCA_MGMT_INIT_WINDOW + HCA_INIT_HW_REV, 7);
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_HW_REV), HCA_HW_REV, "HW_REV is read-only");
}

static void contexts(struct tb_node *n)
{
	uint8_t buf[256] = { 0 }, rd[256];
	struct hca_qpc q;
	struct hca_cqc c;
	struct hca_mrc mr;
	struct hca_gidc g;

	CHECK_EQ(tb_ctx_write(n, 9, 1, buf, 32), HCA_MGMT_STATUS_BAD_TYPE, "unknown context type");
	tb_mgmt_write(n, HCA_MGMT_CTX_CMD, (7u << 28) | (HCA_CTX_TYPE_CQC << 24) | 1);
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_CTX_STATUS), HCA_MGMT_STATUS_BAD_TYPE, "unknown op");
	CHECK_EQ(tb_ctx_read(n, HCA_CTX_TYPE_QPC, 0, rd, 256), HCA_MGMT_STATUS_BAD_INDEX, "QPN 0 is reserved");
	CHECK_EQ(tb_ctx_read(n, HCA_CTX_TYPE_QPC, HCA_QPN_GSI, rd, 256), HCA_MGMT_STATUS_OK, "QPN 1 (GSI) has a context");
	CHECK_EQ(tb_ctx_read(n, HCA_CTX_TYPE_QPC, 1u << HCA_CAP_LOG_MAX_QP, rd, 256), HCA_MGMT_STATUS_BAD_INDEX,
		 "QPN beyond the table");
	CHECK_EQ(tb_ctx_read(n, HCA_CTX_TYPE_CQC, 0, rd, 64), HCA_MGMT_STATUS_BAD_INDEX, "CQN 0 reserved");
	CHECK_EQ(tb_ctx_read(n, HCA_CTX_TYPE_EQC, 0, rd, 64), HCA_MGMT_STATUS_OK, "EQN 0 usable");
	CHECK_EQ(tb_ctx_read(n, HCA_CTX_TYPE_MRC, 0, rd, 64), HCA_MGMT_STATUS_BAD_INDEX, "MR index 0 reserved");
	CHECK_EQ(tb_ctx_read(n, HCA_CTX_TYPE_GIDC, 16, rd, 32), HCA_MGMT_STATUS_BAD_INDEX, "GID index 16");

	/* QPC: configuration round trip, one-shot flags act and are not stored */
	memset(&q, 0, sizeof(q));
	for (unsigned int i = 0; i < 0x80; i++)
		((uint8_t *)&q)[i] = (uint8_t)(i * 7 + 3);
	q.state = HCA_QPS_INIT;
	q.qp_type = HCA_QPT_RC;
	q.flags = HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK | HCA_QPC_FLAGS_LOAD_RQ_PSN_MASK | HCA_QPC_FLAGS_RESET_STATE_MASK;
	q.sq_psn = 0xabcdef;
	q.rq_psn = 0x123456;
	q.uar = TB_UAR;
	CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_QPC, 77, &q, sizeof(q)), HCA_MGMT_STATUS_OK, "QPC write");
	memset(rd, 0xAA, sizeof(rd));
	CHECK_EQ(tb_ctx_read(n, HCA_CTX_TYPE_QPC, 77, rd, 256), HCA_MGMT_STATUS_OK, "QPC read");
	{
		struct hca_qpc *r = (struct hca_qpc *)rd;
		struct hca_qpc w = q;

		w.flags = 0;
		CHECK(memcmp(rd, &w, 0x80) == 0, "QPC configuration round trip (one-shot flags cleared)");
		CHECK_EQ(r->cur_state, HCA_QPS_INIT, "cur_state");
		CHECK_EQ(r->sq_psn_next, 0xabcdef, "LOAD_SQ_PSN");
		CHECK_EQ(r->rq_psn_expected, 0x123456, "LOAD_RQ_PSN");
		CHECK_EQ(r->msn, 0, "MSN after RESET_STATE");
		CHECK_EQ(r->sq_pi, 0, "sq_pi");
		for (unsigned int i = 0x98; i < 256; i++)
			if (rd[i]) {
				CHECK(0, "QPC byte 0x%x reads 0x%02x, reserved", i, rd[i]);
				break;
			}
	}
	/* doorbells on that QP: right page works, wrong page and bad QPN count DB_ERR */
	tb_mgmt_write(n, HCA_MGMT_ENGINE_CTRL, HCA_MGMT_ENGINE_CTRL_ENABLE_MASK);
	{
		uint32_t e0 = tb_stat(n, HCA_STAT_DB_ERR);

		tb_doorbell(n, HCA_DB_SQ_PI, 77, 3);
		CHECK_EQ(tb_qp_query(&(struct tb_qp){ .n = n, .qpn = 77 }).sq_pi, 3, "SQ_PI doorbell reaches sq_pi");
		tb_bar0_write(n, HCA_BAR0_DB_BASE + (TB_UAR + 1) * HCA_BAR0_DB_PAGE_SIZE + HCA_DB_SQ_PI, 4u << 16 | 77);
		tb_doorbell(n, HCA_DB_SQ_PI, 78, 1);
		tb_doorbell(n, 0x40, 77, 1);
		CHECK_EQ(tb_stat(n, HCA_STAT_DB_ERR) - e0, 3, "wrong page, invalid QP, unknown register: DB_ERR");
		CHECK_EQ(tb_qp_query(&(struct tb_qp){ .n = n, .qpn = 77 }).sq_pi, 3, "ignored doorbells change nothing");
	}
	/* QPC write to RESET forgets everything */
	q.state = HCA_QPS_RESET;
	q.flags = 0;
	tb_ctx_write(n, HCA_CTX_TYPE_QPC, 77, &q, sizeof(q));
	tb_ctx_read(n, HCA_CTX_TYPE_QPC, 77, rd, 256);
	CHECK_EQ(((struct hca_qpc *)rd)->cur_state, HCA_QPS_RESET, "RESET");
	CHECK_EQ(((struct hca_qpc *)rd)->sq_pi, 0, "RESET clears sq_pi");

	/* CQC: configuration kept, status zeroed on creation */
	memset(&c, 0, sizeof(c));
	c.valid = 1;
	c.log_size = 4;
	c.uar = TB_UAR;
	c.eqn = 3;
	c.base = 0x123456789000ull;
	CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_CQC, 9, &c, 32), HCA_MGMT_STATUS_OK, "CQC write");
	tb_doorbell(n, HCA_DB_CQ_ARM, 9, 0);
	memset(rd, 0xAA, sizeof(rd));
	tb_ctx_read(n, HCA_CTX_TYPE_CQC, 9, rd, 64);
	CHECK(memcmp(rd, &c, 32) == 0, "CQC configuration round trip");
	CHECK_EQ(((struct hca_cqc *)rd)->arm, HCA_CQ_ARM_NEXT, "CQ_ARM doorbell arms");
	CHECK_EQ(((struct hca_cqc *)rd)->pi, 0, "CQ pi");
	tb_doorbell(n, HCA_DB_CQ_ARM_SOL, 9, 0);
	tb_ctx_read(n, HCA_CTX_TYPE_CQC, 9, rd, 64);
	CHECK_EQ(((struct hca_cqc *)rd)->arm, HCA_CQ_ARM_NEXT, "ARM_SOL does not weaken ARM");

	/* MRC and GIDC: whole structures */
	memset(&mr, 0, sizeof(mr));
	mr.valid = 1;
	mr.key = 0x5a;
	mr.access = HCA_ACCESS_LOCAL_WRITE;
	mr.pdn = 42;
	mr.va = 0x1000;
	mr.length = 0x2000;
	mr.dma_addr = 0x77000;
	CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_MRC, 1000, &mr, sizeof(mr)), HCA_MGMT_STATUS_OK, "MRC write");
	tb_ctx_read(n, HCA_CTX_TYPE_MRC, 1000, rd, 64);
	CHECK(memcmp(rd, &mr, sizeof(mr)) == 0, "MRC round trip");
	memset(&g, 0, sizeof(g));
	g.gid[10] = g.gid[11] = 0xff;
	g.gid[12] = 192, g.gid[13] = 168, g.gid[14] = 1, g.gid[15] = 9;
	g.gid_type = HCA_GID_TYPE_ROCE_V2;
	g.valid = 1;
	CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_GIDC, 5, &g, sizeof(g)), HCA_MGMT_STATUS_OK, "GIDC write");
	tb_ctx_read(n, HCA_CTX_TYPE_GIDC, 5, rd, 32);
	CHECK(memcmp(rd, &g, sizeof(g)) == 0, "GIDC round trip");
	(void)buf;
}

static void events_and_port(struct tb_node *n)
{
	uint8_t type;
	uint32_t elem;

	tb_evt_clear(n);
	tb_mgmt_write(n, HCA_MGMT_PORT_CTRL, 0);
	tb_evt_clear(n);
	tb_mgmt_write(n, HCA_MGMT_PORT_CTRL, HCA_MGMT_PORT_CTRL_UP_MASK);
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_EVT_COUNT), 1, "port up: one event");
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_FW_EVENT) & HCA_MGMT_FW_EVENT_ENGINE_EVENT_MASK,
		 HCA_MGMT_FW_EVENT_ENGINE_EVENT_MASK, "ENGINE_EVENT while the FIFO holds events");
	CHECK(tb_evt_pop(n, &type, &elem) && type == HCA_EVENT_PORT_ACTIVE && elem == 1, "PORT_ACTIVE, port 1");
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_PORT_STATE), HCA_PORT_ACTIVE, "PORT_STATE");
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_ENGINE_STATUS) & HCA_INIT_ENGINE_STATUS_PORT_ACTIVE_MASK,
		 HCA_INIT_ENGINE_STATUS_PORT_ACTIVE_MASK, "ENGINE_STATUS.PORT_ACTIVE");
	tb_mgmt_write(n, HCA_MGMT_PORT_CTRL, HCA_MGMT_PORT_CTRL_UP_MASK);
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_EVT_COUNT), 0, "no event without a change");
	/* overflow: 64 entries, then OVERFLOW until a pop */
	for (int i = 0; i < HCA_MGMT_EVT_DEPTH / 2 + 1; i++) {
		tb_mgmt_write(n, HCA_MGMT_PORT_CTRL, 0);
		tb_mgmt_write(n, HCA_MGMT_PORT_CTRL, 1);
	}
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_EVT_COUNT), HCA_MGMT_EVT_DEPTH, "FIFO full");
	CHECK(tb_mgmt_read(n, HCA_MGMT_EVT_TYPE) & HCA_MGMT_EVT_TYPE_OVERFLOW_MASK, "OVERFLOW set");
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_EVT_TYPE) & 0xff, HCA_EVENT_PORT_ERR, "head is the oldest (PORT_ERR)");
	tb_mgmt_write(n, HCA_MGMT_EVT_POP, 0);
	CHECK(!(tb_mgmt_read(n, HCA_MGMT_EVT_TYPE) & HCA_MGMT_EVT_TYPE_OVERFLOW_MASK), "pop clears OVERFLOW");
	tb_evt_clear(n);
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_EVT_COUNT), 0, "FIFO drained");
}

static void eqe_injection(struct tb *tb, struct tb_node *n)
{
	struct tb_eq *eq = tb_eq_create(n, 2, 7);	/* 4 entries, vector 7 unmasked */
	struct hca_eqe e;
	uint64_t irq0 = n->irq[7];

	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_EQN, eq->eqn);
	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_TYPE, HCA_EQE_TYPE_ASYNC | HCA_EVENT_PORT_ACTIVE << 8);
	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_ELEMENT, 0x11223344);
	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_DATA, 0x55667788);
	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_GO, 1);
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_EQE_INJ_STATUS), HCA_MGMT_STATUS_OK, "injection accepted");
	CHECK(!tb_eq_poll(eq, &e), "the EQE is written by the engine, not at GO");
	tb_run(tb, 100000);
	CHECK(tb_eq_poll(eq, &e), "EQE written");
	CHECK_EQ(e.type, HCA_EQE_TYPE_ASYNC, "type");
	CHECK_EQ(e.subtype, HCA_EVENT_PORT_ACTIVE, "subtype");
	CHECK_EQ(e.element, 0x11223344, "element");
	CHECK_EQ(e.data, 0x55667788, "data");
	CHECK_EQ(n->irq[7] - irq0, 1, "armed EQ fired its vector once");
	/* disarmed now: a second EQE, no interrupt until EQ_ARM */
	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_GO, 1);
	tb_run(tb, 100000);
	CHECK(tb_eq_poll(eq, &e) && e.element == 0x11223344, "second EQE (owner bit of the same pass)");
	CHECK_EQ(n->irq[7] - irq0, 1, "disarmed: no interrupt");
	tb_eq_arm(eq);
	tb_run(tb, 100000);
	CHECK_EQ(n->irq[7] - irq0, 1, "re-arm with nothing new: no interrupt");
	/* fill the ring: 4 entries, 2 consumed; 4 more fit only after wrap */
	for (int i = 0; i < 4; i++)
		tb_mgmt_write(n, HCA_MGMT_EQE_INJ_GO, 1);
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_EQE_INJ_STATUS), HCA_MGMT_STATUS_OK, "4 EQEs fit a 4-entry ring");
	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_GO, 1);
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_EQE_INJ_STATUS), HCA_MGMT_STATUS_OVERFLOW, "fifth overflows");
	CHECK_EQ(tb_stat(n, HCA_STAT_EQ_OVERFLOW), 1, "EQ_OVERFLOW counted");
	tb_run(tb, 100000);
	for (int i = 0; i < 4; i++)
		CHECK(tb_eq_poll(eq, &e), "EQE %d after the wrap (owner bit flipped)", i);
	CHECK(!tb_eq_poll(eq, &e), "ring empty");
	CHECK_EQ(n->irq[7] - irq0, 2, "armed again: one interrupt for the batch");
	/* invalid EQ */
	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_EQN, 30);
	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_GO, 1);
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_EQE_INJ_STATUS), HCA_MGMT_STATUS_BAD_STATE, "invalid EQ");

	/* masked vector: PBA set, interrupt on unmask */
	tb_eq_arm(eq);
	tb_bar0_write(n, HCA_BAR0_MSIX_TABLE + 16 * 7 + HCA_MSIX_VECTOR_CTRL, HCA_MSIX_VECTOR_CTRL_MASKED_MASK);
	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_EQN, eq->eqn);
	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_GO, 1);
	tb_run(tb, 100000);
	CHECK(tb_eq_poll(eq, &e), "EQE while masked");
	CHECK_EQ(n->irq[7] - irq0, 2, "masked: no interrupt");
	CHECK_EQ(tb_bar0_read(n, HCA_BAR0_MSIX_PBA), 1u << 7, "PBA bit 7");
	tb_bar0_write(n, HCA_BAR0_MSIX_TABLE + 16 * 7 + HCA_MSIX_VECTOR_CTRL, 0);
	tb_run(tb, 100000);
	CHECK_EQ(n->irq[7] - irq0, 3, "unmask delivers the pending interrupt");
	CHECK_EQ(tb_bar0_read(n, HCA_BAR0_MSIX_PBA), 0, "PBA cleared");
	free(eq);
}

static void dma_fault_and_reset(struct tb *tb, struct tb_node *n)
{
	struct hca_eqc c;

	/* an EQ whose ring is not mapped: the EQE write faults, the EQ stops */
	memset(&c, 0, sizeof(c));
	c.valid = 1;
	c.log_size = 3;
	c.vector = 1;
	c.uar = TB_UAR;
	c.base = 0xdead0000ull;
	tb_ctx_write(n, HCA_CTX_TYPE_EQC, 20, &c, 32);
	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_EQN, 20);
	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_GO, 1);
	tb_run(tb, 100000);
	CHECK_EQ(tb_stat(n, HCA_STAT_DMA_FAULT), 1, "DMA_FAULT counted");
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_DMA_FAULT_LO), 0xdead0000u, "fault IOVA");
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_DMA_FAULT_HI), 0, "fault IOVA (high): the EQE at 0xdead0000");
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_DMA_FAULT_INFO),
		 HCA_MGMT_DMA_FAULT_INFO_VALID_MASK | HCA_MGMT_DMA_FAULT_INFO_WRITE_MASK |
		 HCA_FIELD_PREP(HCA_MGMT_DMA_FAULT_INFO_CLIENT, HCA_DMA_CLIENT_EQE), "fault info: EQE write");
	CHECK(tb_bar0_read(n, HCA_INIT_ENGINE_STATUS) & HCA_INIT_ENGINE_STATUS_DMA_FAULT_MASK, "ENGINE_STATUS.DMA_FAULT");
	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_GO, 1);
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_EQE_INJ_STATUS), HCA_MGMT_STATUS_BAD_STATE, "failed EQ takes no EQE");

	/* ENGINE_CTRL.RESET: contexts invalid, counters and latch cleared, MAC kept */
	tb_mgmt_write(n, HCA_MGMT_PORT_MAC_LO, 0x01020304);
	tb_mgmt_write(n, HCA_MGMT_ENGINE_CTRL, HCA_MGMT_ENGINE_CTRL_RESET_MASK);
	CHECK_EQ(tb_stat(n, HCA_STAT_DMA_FAULT), 0, "counters zeroed");
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_DMA_FAULT_INFO), 0, "fault latch cleared");
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_ENGINE_CTRL), 0, "engine disabled after reset");
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_PORT_MAC_LO), 0x01020304, "MAC kept");
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_PORT_STATE), HCA_PORT_DOWN, "port down");
	CHECK_EQ(tb_bar0_read(n, HCA_BAR0_MSIX_TABLE + 16 * 7 + HCA_MSIX_VECTOR_CTRL), 1, "vectors masked");
	{
		uint8_t rd[64];

		tb_ctx_read(n, HCA_CTX_TYPE_EQC, 20, rd, 64);
		CHECK_EQ(rd[0], 0, "EQ invalid after reset");
		tb_ctx_read(n, HCA_CTX_TYPE_MRC, 1000, rd, 64);
		CHECK_EQ(rd[0], 0, "MR invalid after reset");
	}
	/* host CTRL.RESET: RESET reads 1 until firmware clears it */
	tb_mgmt_write(n, HCA_MGMT_INIT_WINDOW + HCA_INIT_STATUS, 0x301);
	tb_bar0_write(n, HCA_INIT_CTRL, HCA_INIT_CTRL_RESET_MASK);
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_CTRL), HCA_INIT_CTRL_RESET_MASK, "CTRL.RESET reads 1");
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_STATUS), 0, "firmware registers cleared");
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_FW_EVENT), HCA_MGMT_FW_EVENT_HOST_CTRL_MASK, "HOST_CTRL after reset");
	tb_mgmt_write(n, HCA_MGMT_INIT_WINDOW + HCA_INIT_CTRL, 0);
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_CTRL), 0, "firmware completes the reset");
}

/* Engine options: known ones accepted, anything else refused (no silent typo). */
static const char *opt_under_test;

static void options_config(void *ctx, unsigned int node, struct hca_engine_config *ec)
{
	engine_config(ctx, node, ec);
	ec->options = opt_under_test;
}

static void options(void)
{
	static const struct { const char *opts; bool ok; } cases[] = {
		{ "rd_lat=40,rd_jitter=0,wr_lat=2", true }, { "bug=hdr_bit", true }, { "", true },
		{ "lag=300", false }, { "rd_lat=10,rdlat=5", false }, { "bug=no_such_bug", false }, { "rd_lat", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tb_config c = { .engine = "rtl", .nodes = 1, .engine_config = options_config };
		struct tb *tb;

		opt_under_test = cases[i].opts;
		tb = tb_create(&c);
		CHECK((tb != NULL) == cases[i].ok, "options \"%s\": %s", cases[i].opts,
		      cases[i].ok ? "accepted" : "refused");
		if (tb)
			tb_destroy(tb);
	}
}

/*
 * The MSI-X table is read/write storage (PCI MSI-X, docs/reference.md): every
 * vector's message address and data read back as written, each bit both
 * ways (a pattern, then its complement), whatever was written to the other
 * vectors since.  Address bits 1:0 stay 0 (a DWORD-aligned address).
 */
static uint32_t msix_pattern(int v, int r, int pass)
{
	uint32_t x = 0x9e3779b9u * (uint32_t)(3 * v + r + 1) ^ 0x5a5a0000u;

	x = pass ? ~x : x;
	return r == 0 ? x & ~3u : x;
}

static void msix_table(struct tb_node *n)
{
	uint32_t saved[HCA_CAP_NUM_MSIX][3];
	int bad = 0;

	for (int v = 0; v < HCA_CAP_NUM_MSIX; v++)
		for (int r = 0; r < 3; r++)
			saved[v][r] = tb_bar0_read(n, HCA_BAR0_MSIX_TABLE + 16 * v + 4 * r);
	for (int pass = 0; pass < 2; pass++) {
		for (int v = 0; v < HCA_CAP_NUM_MSIX; v++)
			for (int r = 0; r < 3; r++)
				tb_bar0_write(n, HCA_BAR0_MSIX_TABLE + 16 * v + 4 * r, msix_pattern(v, r, pass));
		for (int v = 0; v < HCA_CAP_NUM_MSIX; v++)
			for (int r = 0; r < 3; r++) {
				uint32_t got = tb_bar0_read(n, HCA_BAR0_MSIX_TABLE + 16 * v + 4 * r);

				if (got != msix_pattern(v, r, pass) && bad++ < 4)
					printf("  MSI-X vector %d word %d: 0x%08x, wrote 0x%08x\n", v, r, got,
					       msix_pattern(v, r, pass));
			}
	}
	CHECK(bad == 0, "MSI-X table: %d vectors x 3 words read back as written, both polarities (%d wrong)",
	      HCA_CAP_NUM_MSIX, bad);
	for (int v = 0; v < HCA_CAP_NUM_MSIX; v++)
		for (int r = 0; r < 3; r++)
			tb_bar0_write(n, HCA_BAR0_MSIX_TABLE + 16 * v + 4 * r, saved[v][r]);
}

/*
 * A pending bit stays set until the vector's message is sent (PCI MSI-X
 * pending bits): after unmasking a vector with an interrupt pending, PBA read
 * k cycles later (k = 0..5, every cycle clocked: quiet=0) must show the bit
 * exactly while no interrupt has been delivered.  A register read holds the
 * engine for its cycles; the bit must not clear while it is held.
 */
static void pba_until_delivered(void)
{
	struct tb_config c = { .engine = "rtl", .nodes = 1, .engine_config = options_config };
	struct tb *tb;
	struct tb_node *n;
	struct tb_eq *eq;
	uint32_t ctrl = HCA_BAR0_MSIX_TABLE + 16 * 9 + HCA_MSIX_VECTOR_CTRL;
	int bad = 0, sent_at = -1;

	opt_under_test = "quiet=0";
	tb = tb_create(&c);
	if (!tb) {
		CHECK(0, "pba: tb_create");
		return;
	}
	n = tb_node(tb, 0);
	eq = tb_eq_create(n, 2, 9);	/* 4 entries, vector 9 */
	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_EQN, eq->eqn);
	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_TYPE, HCA_EQE_TYPE_ASYNC | HCA_EVENT_PORT_ACTIVE << 8);
	for (int k = 0; k < 6; k++) {
		struct hca_eqe e;
		uint64_t irq0 = n->irq[9];
		uint32_t pba;
		bool sent;

		tb_bar0_write(n, ctrl, HCA_MSIX_VECTOR_CTRL_MASKED_MASK);
		tb_mgmt_write(n, HCA_MGMT_EQE_INJ_GO, 1);
		tb_run(tb, 100000);
		if (!tb_eq_poll(eq, &e) || n->irq[9] != irq0 || !(tb_bar0_read(n, HCA_BAR0_MSIX_PBA) & 1u << 9)) {
			CHECK(0, "pba k=%d: EQE written, vector 9 masked and pending", k);
			bad++;
			break;
		}
		tb_bar0_write(n, ctrl, 0);
		tb_run_for(tb, (uint64_t)k);
		pba = tb_bar0_read(n, HCA_BAR0_MSIX_PBA);
		sent = n->irq[9] != irq0;
		if (!!(pba & 1u << 9) == sent) {
			printf("  k=%d: PBA 0x%x, interrupt %s\n", k, pba, sent ? "sent" : "not sent");
			bad++;
		}
		if (sent && sent_at < 0)
			sent_at = k;
		tb_run(tb, 100000);
		if (n->irq[9] - irq0 != 1 || tb_bar0_read(n, HCA_BAR0_MSIX_PBA)) {
			CHECK(0, "pba k=%d: one interrupt after the unmask, PBA clear", k);
			bad++;
			break;
		}
		tb_eq_arm(eq);
	}
	CHECK(bad == 0 && sent_at > 0, "PBA bit set exactly until the message is sent (first sent after %d cycles)",
	      sent_at);
	free(eq);
	tb_destroy(tb);
}

int main(int argc, char **argv)
{
	struct tb *tb;
	struct tb_node *n;
	struct rtl_engine_stats st;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--width") && i + 1 < argc)
			width = (unsigned int)atoi(argv[++i]);
	hca_rtl_engine_register();
	printf("rtl engine, DATA_W=%u\n", width);
	tb = make_tb();
	n = tb_node(tb, 0);
	identity(n);
	msix_table(n);
	clock_and_time(tb, n);
	fw_event(n);
	contexts(n);
	events_and_port(n);
	eqe_injection(tb, n);
	ctx_rules_qpc_reset(n, 41);
	ctx_rules_eq_rewrite(tb, n, 6);
	ctx_rules_mrc_bytes(n, 1001);
	dma_fault_and_reset(tb, n);
	ctx_rules_data_words(n);
	options();
	pba_until_delivered();
	CHECK(rtl_engine_stats(n->eng, &st) == 0 && st.protocol_errors == 0, "no interface violations: %s",
	      n->ops->last_error(n->eng));
	printf("cycles clocked %llu, skipped %llu, register accesses %llu\n",
	       (unsigned long long)st.cycles_clocked, (unsigned long long)st.cycles_skipped,
	       (unsigned long long)st.reg_accesses);
	tb_destroy(tb);
	return check_done();
}
