// SPDX-License-Identifier: MIT
/*
 * Management-port and BAR0 register corners, on the model, the RTL and
 * lockstep(model, rtl) at --width 64|512; docs/reference.md (the register
 * tables) and docs/programming.md are the oracle for all three:
 *   - evt_ring: the event FIFO (MGMT EVT_*, HCA_MGMT_EVT_DEPTH entries)
 *     around its ring: 150 port state changes (PORT_CTRL), each event popped
 *     as it comes, then the FIFO filled to the brim and one more (OVERFLOW,
 *     the extra event dropped), all popped; every event is PORT_ACTIVE or
 *     PORT_ERR as written, with element 1 (the port);
 *   - clock_latch: CLOCK_HI is the value latched by the last host READ of
 *     CLOCK_LO; a write of CLOCK_LO (read-only) changes nothing.  Checked
 *     across a carry into the high word (2^32 idle cycles skipped);
 *   - cqc_cfg_bytes: a CQC's configuration bytes 0x00..0x1F (reserved
 *     0x10..0x1F included, a pattern with every top bit set) read back as
 *     written (docs/programming.md 7, docs/reference.md "CQ context").
 * Both from RTL mutation survivors (issue 13, sim/mutate/answers_rtl.txt):
 * a bit of event slot 28 in hca_regs, the CLOCK_HI latch taken on a write,
 * CQC bit 215 (byte 26) of hca_ctx's u_cqc write port.
 *
 *   rtl_mgmt [--width 64|512]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hcasim/engine.h"
#include "lockstep.h"
#include "rtl/rtl_engine.h"
#include "tb.h"
#include "../../../model/model.h"

static unsigned int width = 64;

static void engine_config(void *ctx, unsigned int node, struct hca_engine_config *ec)
{
	(void)ctx;
	(void)node;
	ec->data_w = width;
}

/* Port state change k: even k down, odd k up; returns the event it raises. */
static uint8_t port_flip(struct tb_node *n, unsigned int k)
{
	tb_mgmt_write(n, HCA_MGMT_PORT_CTRL, (k & 1) ? HCA_MGMT_PORT_CTRL_UP_MASK : 0);
	return (k & 1) ? HCA_EVENT_PORT_ACTIVE : HCA_EVENT_PORT_ERR;
}

static void evt_ring(const char *engine, struct tb *tb)
{
	struct tb_node *n = tb_node(tb, 0);
	unsigned int bad = 0, k, got = 0;
	uint8_t want[HCA_MGMT_EVT_DEPTH], ty;
	uint32_t el;

	tb_evt_clear(n);
	/* popped as they come: slot after slot, around the ring twice */
	for (k = 0; k < 150; k++) {
		uint8_t w = port_flip(n, k);

		if (!tb_evt_pop(n, &ty, &el) || ty != w || el != 1) {
			if (!bad++)
				printf("%s: event %u: type %u element %u, want %u element 1\n", engine, k, ty, el, w);
		}
	}
	CHECK(bad == 0, "%s: 150 port events popped one by one, each as raised, element 1 (%u wrong)", engine, bad);
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_EVT_COUNT), 0, "FIFO empty");
	/* filled to the brim, one more dropped with OVERFLOW */
	for (k = 0; k < HCA_MGMT_EVT_DEPTH; k++)
		want[k] = port_flip(n, k);
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_EVT_COUNT), HCA_MGMT_EVT_DEPTH, "FIFO full");
	port_flip(n, k);
	CHECK(tb_mgmt_read(n, HCA_MGMT_EVT_TYPE) & HCA_MGMT_EVT_TYPE_OVERFLOW_MASK, "%s: one more: OVERFLOW", engine);
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_EVT_COUNT), HCA_MGMT_EVT_DEPTH, "the extra event dropped");
	bad = 0;
	while (tb_evt_pop(n, &ty, &el)) {
		if (got >= HCA_MGMT_EVT_DEPTH || ty != want[got] || el != 1) {
			if (!bad++)
				printf("%s: full FIFO, event %u: type %u element %u\n", engine, got, ty, el);
		}
		got++;
	}
	CHECK(bad == 0 && got == HCA_MGMT_EVT_DEPTH, "%s: the %u events of the full FIFO in order (%u wrong)", engine,
	      got, bad);
	/* leave the port up */
	port_flip(n, 1);
	tb_evt_clear(n);
}

static void clock_latch(const char *engine, struct tb *tb)
{
	struct tb_node *n = tb_node(tb, 0);
	uint64_t t0, t1;
	uint32_t lo, hi0;

	tb_run(tb, 100000);
	t0 = tb_now(tb);
	lo = tb_bar0_read(n, HCA_INIT_CLOCK_LO);
	hi0 = tb_bar0_read(n, HCA_INIT_CLOCK_HI);
	CHECK_EQ(((uint64_t)hi0 << 32 | lo), t0, "CLOCK_HI:LO = the device clock");
	/* past the next carry into the high word */
	tb_run_for(tb, (1ull << 32) + 1000);
	t1 = tb_now(tb);
	CHECK((t1 >> 32) != (t0 >> 32), "%s: the clock's high word moved", engine);
	tb_bar0_write(n, HCA_INIT_CLOCK_LO, 0x12345678);
	CHECK_EQ(tb_bar0_read(n, HCA_INIT_CLOCK_HI), hi0, "CLOCK_HI: still the latch of the last CLOCK_LO read");
	lo = tb_bar0_read(n, HCA_INIT_CLOCK_LO);
	CHECK_EQ(((uint64_t)tb_bar0_read(n, HCA_INIT_CLOCK_HI) << 32 | lo), tb_now(tb),
		 "CLOCK_LO read: CLOCK_HI latched anew");
}

static void cqc_cfg_bytes(const char *engine, struct tb *tb)
{
	struct tb_node *n = tb_node(tb, 0);
	struct hca_cqc c, back;

	memset(&c, 0, sizeof(c));
	c.valid = 1;
	c.log_size = 6;
	c.uar = 1;
	c.base = 0x12345000ull;
	for (unsigned int i = 0; i < sizeof(c.rsvd_10); i++)
		c.rsvd_10[i] = (uint8_t)(0x80 | (0x5a ^ (i * 37)));
	CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_CQC, 77, &c, sizeof(c)), HCA_MGMT_STATUS_OK, "CQC write");
	memset(&back, 0xee, sizeof(back));
	CHECK_EQ(tb_ctx_read(n, HCA_CTX_TYPE_CQC, 77, &back, sizeof(back)), HCA_MGMT_STATUS_OK, "CQC read");
	CHECK(memcmp(&c, &back, HCA_CQC_PI_OFF) == 0, "%s: CQC 77 configuration bytes 0x00..0x1F read back as written",
	      engine);
	c.valid = 0;
	CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_CQC, 77, &c, sizeof(c)), HCA_MGMT_STATUS_OK, "CQC 77 destroyed");
}

static void run(const char *engine)
{
	struct tb_config c = { .engine = engine, .nodes = 2, .engine_config = engine_config };
	struct tb *tb = tb_create(&c);

	if (!tb) {
		CHECK(0, "%s: set-up", engine);
		return;
	}
	evt_ring(engine, tb);
	clock_latch(engine, tb);
	cqc_cfg_bytes(engine, tb);
	if (!strcmp(engine, "lockstep"))
		for (unsigned int i = 0; i < 2; i++) {
			struct hca_engine *e = tb_node(tb, i)->eng;
			const struct sb_divergence *d;
			bool ok = lockstep_finish(e, "end of test");

			d = lockstep_divergence(e);
			if (d)
				printf("---- node %u:\n%s\n", i, d->report);
			CHECK(ok && !d, "lockstep node %u: model and RTL agree", i);
		}
	tb_destroy(tb);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--width") && i + 1 < argc)
			width = (unsigned int)atoi(argv[++i]);
	hca_model_engine_register();
	hca_rtl_engine_register();
	hca_lockstep_engine_register();
	printf("management and BAR0 register corners, DATA_W=%u\n", width);
	run("model");
	run("rtl");
	run("lockstep");
	return check_done();
}
