// SPDX-License-Identifier: MIT
/*
 * Bring-up and the command ring (docs/programming.md 2.1, 4.1), on the fake
 * engine: STATUS/FW_VER/HEALTH/SYNDROME through reset and enable, bad ring
 * configurations, entries without OWNER, DMA faults on the ring and on a
 * command buffer, CMD_DONE EQEs, and reset with objects alive.
 */
#include <string.h>

#include "check.h"
#include "fake_engine.h"
#include "fw.h"
#include "fw_test.h"

static uint32_t rd(struct fwt *t, uint32_t off)
{
	return t->be.mmio_read(t->dev, off);
}

static void wr(struct fwt *t, uint32_t off, uint32_t v)
{
	t->be.mmio_write(t->dev, off, v);
}

static unsigned int state(struct fwt *t)
{
	return HCA_FIELD_GET(rd(t, HCA_INIT_STATUS), HCA_INIT_STATUS_STATE);
}

/* A hand-driven ring, to post entries devctl would never post. */
struct ring {
	struct hca_cmdq_entry *e;
	uint64_t iova;
	uint32_t pi;
};

static void ring_setup(struct fwt *t, struct ring *r, unsigned int log_size)
{
	r->e = fwt_mem(t, sizeof(*r->e) << log_size, &r->iova);
	/* Entries posted before ENABLE are not served: start at the current PI. */
	r->pi = rd(t, HCA_INIT_CMDQ_PI);
	wr(t, HCA_INIT_CMDQ_BASE_LO, (uint32_t)r->iova);
	wr(t, HCA_INIT_CMDQ_BASE_HI, (uint32_t)(r->iova >> 32));
	wr(t, HCA_INIT_CMDQ_LOG_SIZE, log_size);
	wr(t, HCA_INIT_CTRL, HCA_INIT_CTRL_ENABLE_MASK);
	fwt_step(t, 10);
}

/* A PD.ALLOC command buffer in host memory, for the hand-driven ring. */
static uint64_t pd_alloc_buf(struct fwt *t, uint32_t ctx, uint8_t **out)
{
	uint64_t iova;
	uint8_t *b = fwt_mem(t, 256, &iova);
	struct hca_cmd_hdr h = { .length = 24 + 32, .object_id = HCA_OBJ_PD,
				 .method_id = HCA_METHOD_PD_ALLOC, .num_attrs = 2, .context = ctx };
	struct hca_cmd_attr a[2] = {
		{ .attr_id = HCA_ATTR_PD_ALLOC_HANDLE, .flags = HCA_ATTR_F_MANDATORY },
		{ .attr_id = HCA_ATTR_PD_ALLOC_PDN, .len = 4, .flags = HCA_ATTR_F_MANDATORY, .data = iova + 128 },
	};
	memcpy(b, &h, sizeof(h));
	memcpy(b + 24, a, sizeof(a));
	*out = b;
	return iova;
}

static struct hca_cmdq_entry *post(struct ring *r, unsigned int log_size, uint64_t in, uint32_t len,
				   uint32_t token, int owner)
{
	struct hca_cmdq_entry *e = &r->e[r->pi & ((1u << log_size) - 1)];

	memset(e, 0, sizeof(*e));
	e->in_addr = in;
	e->in_len = len;
	e->token = token;
	e->ctrl = owner ? HCA_CMDQ_ENTRY_CTRL_OWNER_MASK : 0;
	r->pi++;
	return e;
}

static void bringup(void)
{
	struct fwt t;
	uint32_t st, h0, h1;
	struct hca_engine *e;

	CHECK_EQ(fwt_create(&t, "fake", NULL), 0, "create");
	e = t.eng;
	/* Out of reset, before the firmware ran: RESET, no version. */
	CHECK_EQ(state(&t), HCA_DEV_STATE_RESET, "state before first advance");
	CHECK_EQ(rd(&t, HCA_INIT_FW_VER), 0, "FW_VER before boot");
	/* Power-on boot: READY without any host action. */
	fwt_step(&t, 1);
	st = rd(&t, HCA_INIT_STATUS);
	CHECK(st & HCA_INIT_STATUS_FW_READY_MASK, "FW_READY after boot: 0x%x", st);
	CHECK_EQ(state(&t), HCA_DEV_STATE_READY, "READY after boot");
	CHECK_EQ(rd(&t, HCA_INIT_FW_VER), HCA_FW_VERSION, "FW_VER");
	CHECK_EQ(fake_engine_mgmt(e, HCA_MGMT_PORT_MAC_HI), 0x0248u, "MAC hi (mac[0]<<8|mac[1])");
	CHECK_EQ(fake_engine_mgmt(e, HCA_MGMT_PORT_MAC_LO), 0x43000001u, "MAC lo (mac[2..5])");
	CHECK_EQ(fake_engine_mgmt(e, HCA_MGMT_PORT_STATE), HCA_PORT_ACTIVE, "port brought up");
	CHECK_EQ(fake_engine_mgmt(e, HCA_MGMT_ENGINE_CTRL), HCA_MGMT_ENGINE_CTRL_ENABLE_MASK, "engine enabled");

	/* The documented reset: RESET reads 1 until done, then READY again. */
	wr(&t, HCA_INIT_CTRL, HCA_INIT_CTRL_RESET_MASK);
	CHECK(rd(&t, HCA_INIT_CTRL) & HCA_INIT_CTRL_RESET_MASK, "RESET reads 1 while pending");
	fwt_step(&t, 1);
	CHECK(!(rd(&t, HCA_INIT_CTRL) & HCA_INIT_CTRL_RESET_MASK), "RESET self-clears");
	CHECK_EQ(state(&t), HCA_DEV_STATE_READY, "READY after reset");
	CHECK_EQ(hca_fw_stats(t.fw)->resets, 1, "reset counted");

	/* Bad ring configurations: FATAL + CMDQ_BAD_CONFIG; only reset leaves. */
	wr(&t, HCA_INIT_CMDQ_LOG_SIZE, HCA_CMDQ_LOG_MAX_SIZE + 1);
	wr(&t, HCA_INIT_CMDQ_BASE_LO, 0x10000);
	wr(&t, HCA_INIT_CTRL, HCA_INIT_CTRL_ENABLE_MASK);
	fwt_step(&t, 1);
	st = rd(&t, HCA_INIT_STATUS);
	CHECK(st & HCA_INIT_STATUS_FATAL_MASK, "FATAL on log size 9: 0x%x", st);
	CHECK_EQ(state(&t), HCA_DEV_STATE_FATAL, "state FATAL");
	CHECK_EQ(rd(&t, HCA_INIT_SYNDROME), HCA_SYND_CMDQ_BAD_CONFIG, "SYNDROME");
	CHECK_EQ(HCA_FIELD_GET(rd(&t, HCA_INIT_CMDQ_STATUS), HCA_INIT_CMDQ_STATUS_SYND),
		 HCA_SYND_CMDQ_BAD_CONFIG, "CMDQ_STATUS.SYND");
	CHECK(!(st & HCA_INIT_STATUS_CMDQ_READY_MASK), "CMDQ_READY while FATAL");
	CHECK_EQ(hca_devctl_reset(t.dc), 0, "reset leaves FATAL");
	CHECK_EQ(rd(&t, HCA_INIT_SYNDROME), 0, "SYNDROME cleared by reset");
	wr(&t, HCA_INIT_CMDQ_LOG_SIZE, 4);
	wr(&t, HCA_INIT_CMDQ_BASE_LO, 0x10020);	/* not 64-byte aligned */
	wr(&t, HCA_INIT_CTRL, HCA_INIT_CTRL_ENABLE_MASK);
	fwt_step(&t, 1);
	CHECK_EQ(state(&t), HCA_DEV_STATE_FATAL, "FATAL on misaligned base");
	CHECK_EQ(rd(&t, HCA_INIT_SYNDROME), HCA_SYND_CMDQ_BAD_CONFIG, "SYNDROME misaligned");

	/* Good configuration: RUNNING, CMDQ_READY. */
	CHECK_EQ(hca_devctl_bringup(t.dc, 3), 0, "bring-up");
	st = rd(&t, HCA_INIT_STATUS);
	CHECK((st & HCA_INIT_STATUS_CMDQ_READY_MASK) && (st & HCA_INIT_STATUS_FW_READY_MASK),
	      "CMDQ_READY: 0x%x", st);
	CHECK_EQ(state(&t), HCA_DEV_STATE_RUNNING, "RUNNING");

	/* HEALTH: +1 per command, and it moves while idle. */
	h0 = rd(&t, HCA_INIT_HEALTH);
	{
		uint32_t ctx;
		CHECK_EQ(fwt_ctx_alloc(&t, &ctx, NULL), 0, "context");
	}
	h1 = rd(&t, HCA_INIT_HEALTH);
	CHECK_EQ(h1 - h0, 1, "HEALTH per command");
	fwt_step(&t, 3 * (uint64_t)HCA_FW_HEALTH_PERIOD);
	CHECK(rd(&t, HCA_INIT_HEALTH) - h1 >= 2, "HEALTH while idle: %u -> %u", h1, rd(&t, HCA_INIT_HEALTH));
	/* ENABLE 1 -> 0 stops the queue (READY), 0 -> 1 serves it again. */
	wr(&t, HCA_INIT_CTRL, 0);
	fwt_step(&t, 1);
	CHECK_EQ(state(&t), HCA_DEV_STATE_READY, "READY after ENABLE=0");
	CHECK(!(rd(&t, HCA_INIT_STATUS) & HCA_INIT_STATUS_CMDQ_READY_MASK), "CMDQ_READY after ENABLE=0");
	fwt_close(&t);
}

static void ring_rules(void)
{
	struct fwt t;
	struct ring r;
	uint32_t ctx, pdn;
	uint8_t *buf;
	uint64_t in;

	CHECK_EQ(fwt_open(&t, "fake", NULL), 0, "open");
	CHECK_EQ(fwt_ctx_alloc(&t, &ctx, NULL), 0, "context");
	/* Take the ring over by hand. */
	wr(&t, HCA_INIT_CTRL, 0);
	fwt_step(&t, 1);
	ring_setup(&t, &r, 2);
	CHECK_EQ(state(&t), HCA_DEV_STATE_RUNNING, "running on the hand ring");

	/* Entry 0 owned, entry 1 not owned, entry 2 owned: 1 is skipped. */
	in = pd_alloc_buf(&t, ctx, &buf);
	{
		uint32_t ci0 = rd(&t, HCA_INIT_CMDQ_CI);
		struct hca_cmdq_entry *e0 = post(&r, 2, in, 56, 0x11, 1);
		struct hca_cmdq_entry *e1 = post(&r, 2, in, 56, 0x22, 0);
		uint8_t *buf2;
		uint64_t in2 = pd_alloc_buf(&t, ctx, &buf2);
		struct hca_cmdq_entry *e2 = post(&r, 2, in2, 56, 0x33, 1);

		e1->status = 0x77;	/* firmware must not touch it */
		wr(&t, HCA_INIT_CMDQ_PI, r.pi);
		fwt_step(&t, 1);
		CHECK_EQ(rd(&t, HCA_INIT_CMDQ_CI), ci0 + 3, "CI past all three");
		CHECK_EQ(e0->status, 0, "entry 0 executed");
		CHECK_EQ(e0->ctrl & 1, 0, "entry 0 returned");
		CHECK_EQ(e1->status, 0x77, "entry 1 untouched");
		CHECK_EQ(e2->status, 0, "entry 2 executed");
		CHECK_EQ(e2->ctrl & 1, 0, "entry 2 returned");
		memcpy(&pdn, buf2 + 128, 4);
		CHECK_EQ(pdn, 2, "second PD.ALLOC got PDN 2");
		CHECK_EQ(rd(&t, HCA_INIT_SYNDROME), HCA_SYND_CMDQ_NOT_OWNED, "SYNDROME not-owned");
	}
	memcpy(&pdn, buf + 128, 4);
	CHECK_EQ(pdn, 1, "first PD.ALLOC got PDN 1");

	/* A command buffer the IOMMU refuses: EFAULT, SYNDROME, queue goes on. */
	{
		struct hca_cmdq_entry *e3 = post(&r, 2, 0xdead0000ull, 56, 0x44, 1);
		wr(&t, HCA_INIT_CMDQ_PI, r.pi);
		fwt_step(&t, 1);
		CHECK_EQ(e3->status, HCA_EFAULT, "EFAULT on unmapped command buffer");
		CHECK_EQ(FWT_REASON(e3->syndrome), HCA_CMD_SYND_DMA_FAULT, "syndrome DMA_FAULT");
	}
	CHECK_EQ(rd(&t, HCA_INIT_SYNDROME), HCA_SYND_CMD_DMA_FAULT, "SYNDROME CMD_DMA_FAULT");
	CHECK(rd(&t, HCA_INIT_STATUS) & HCA_INIT_STATUS_CMDQ_READY_MASK, "queue still ready");
	CHECK_EQ(hostmem_fault_count(t.hm) >= 1, 1, "host saw the fault");

	/* The ring itself unmapped: CMDQ_STATUS.ERROR, queue stops. */
	wr(&t, HCA_INIT_CTRL, 0);
	fwt_step(&t, 1);
	wr(&t, HCA_INIT_CMDQ_BASE_LO, 0x40000000);
	wr(&t, HCA_INIT_CMDQ_BASE_HI, 0x7);
	wr(&t, HCA_INIT_CMDQ_LOG_SIZE, 2);
	wr(&t, HCA_INIT_CTRL, HCA_INIT_CTRL_ENABLE_MASK);
	fwt_step(&t, 1);
	CHECK(rd(&t, HCA_INIT_STATUS) & HCA_INIT_STATUS_CMDQ_READY_MASK, "ready before the fault");
	wr(&t, HCA_INIT_CMDQ_PI, rd(&t, HCA_INIT_CMDQ_CI) + 1);
	fwt_step(&t, 1);
	CHECK(rd(&t, HCA_INIT_CMDQ_STATUS) & HCA_INIT_CMDQ_STATUS_ERROR_MASK, "CMDQ_STATUS.ERROR");
	CHECK_EQ(HCA_FIELD_GET(rd(&t, HCA_INIT_CMDQ_STATUS), HCA_INIT_CMDQ_STATUS_SYND),
		 HCA_SYND_CMDQ_DMA_FAULT, "CMDQ_STATUS.SYND");
	CHECK_EQ(rd(&t, HCA_INIT_SYNDROME), HCA_SYND_CMDQ_DMA_FAULT, "SYNDROME ring fault");
	CHECK(!(rd(&t, HCA_INIT_STATUS) & HCA_INIT_STATUS_CMDQ_READY_MASK), "queue stopped");
	/* Reset recovers, and everything created before is gone. */
	CHECK_EQ(hca_devctl_bringup(t.dc, 0), 0, "bring-up after ring fault");
	CHECK_EQ(hca_fw_count(t.fw, HCA_OBJ_PD), 0, "PDs gone after reset");
	CHECK_EQ(hca_fw_count(t.fw, HCA_OBJ_CONTEXT), 0, "contexts gone after reset");
	{
		uint32_t pd, ctx2;
		CHECK_EQ(fwt_pd_alloc(&t, ctx, &pd, NULL), HCA_EINVAL, "old context handle after reset");
		/* Same slot again, but never the same handle. */
		CHECK_EQ(fwt_ctx_alloc(&t, &ctx2, NULL), 0, "new context after reset");
		CHECK_EQ(ctx2 & 0xffff, ctx & 0xffff, "same context slot");
		CHECK(ctx2 != ctx, "a pre-reset handle is valid again: 0x%x", ctx);
		CHECK_EQ(fwt_pd_alloc(&t, ctx, &pd, NULL), HCA_EINVAL, "old context handle still dead");
	}
	fwt_close(&t);
}

static void cmd_done(void)
{
	struct fwt t;
	uint32_t ctx, eq, eqn, eq2, pd;
	unsigned int n0;
	const struct fake_eqe *x;

	CHECK_EQ(fwt_open(&t, "fake", NULL), 0, "open");
	CHECK_EQ(fwt_ctx_alloc(&t, &ctx, NULL), 0, "context");
	CHECK_EQ(fake_engine_num_eqes(t.eng), 0, "no EQE without a command EQ");
	CHECK_EQ(fwt_eq_create(&t, ctx, 4, 0, HCA_EQ_MASK_CMD_DONE, &eq, &eqn), 0, "command EQ");
	/* The command that created it is the first to be announced. */
	n0 = fake_engine_num_eqes(t.eng);
	CHECK_EQ(n0, 1, "CMD_DONE of EQ.CREATE");
	CHECK_EQ(fwt_eq_create(&t, ctx, 4, 0, HCA_EQ_MASK_CMD_DONE, &eq2, NULL), HCA_EBUSY, "second command EQ");
	CHECK_EQ(fwt_pd_alloc(&t, ctx, &pd, NULL), 0, "PD");
	CHECK_EQ(fake_engine_num_eqes(t.eng), 3, "one CMD_DONE per command, failed ones too");
	x = fake_engine_eqe(t.eng, 2);
	CHECK(x && x->type == HCA_EQE_TYPE_CMD_DONE && x->eqn == eqn, "CMD_DONE to the command EQ");
	/* element = token, data = free-running entry index (4 commands so far: ctx, eq, eq2, pd). */
	CHECK(x && x->data == 3, "entry index: %u", x ? x->data : 0);
	CHECK(x && x->element != 0 && x->element == fake_engine_eqe(t.eng, 1)->element + 1,
	      "tokens in order");
	/* Destroying the command EQ stops the EQEs. */
	CHECK_EQ(fwt_destroy(&t, ctx, HCA_OBJ_EQ, HCA_METHOD_EQ_DESTROY, eq), 0, "destroy command EQ");
	n0 = fake_engine_num_eqes(t.eng);
	CHECK_EQ(fwt_pd_alloc(&t, ctx, &pd, NULL), 0, "PD 2");
	CHECK_EQ(fake_engine_num_eqes(t.eng), n0, "no CMD_DONE after the EQ is gone");
	/* And now a second one may exist. */
	CHECK_EQ(fwt_eq_create(&t, ctx, 4, 1, HCA_EQ_MASK_CMD_DONE, &eq2, NULL), 0, "new command EQ");
	CHECK_EQ(hca_fw_check(t.fw), 0, "bookkeeping");
	fwt_close(&t);
}

int main(void)
{
	fake_engine_register();
	bringup();
	ring_rules();
	cmd_done();
	return check_done();
}
