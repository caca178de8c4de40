// SPDX-License-Identifier: MIT
/*
 * The lockstep engine, proven before the RTL exists: two devices, each a
 * lockstep pair (reference "model", DUT "model-mutant"), run RC SEND,
 * SEND_WITH_IMM, RDMA WRITE (with immediate) and RDMA READ traffic with
 * several SGEs, solicited events, CQ arming, EQEs and MSI-X.
 *
 *  - no bug: zero divergences, every payload and completion right, and the
 *    checker demonstrably compared frames, CQEs, EQEs, payload bytes,
 *    interrupts and register reads (counts > 0);
 *  - no bug, slow DUT (lag): still zero divergences -- timing is free, and
 *    volatile registers were read while the engines differed;
 *  - each planted bug (sim/lockstep_mutant.h) on node 0: the first
 *    divergence names the right stream and field, the bug fired exactly
 *    once, and the DUT kept running to the end of the traffic;
 *  - a QP reset while the DUT is behind waits for it ("Context writes").
 *
 *   test_lockstep [-v]   (-v prints every divergence report)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/model.h"
#include "check.h"
#include "lockstep.h"
#include "lockstep_mutant.h"
#include "regress/traffic.h"
#include "tb.h"

#define WAIT 200000000ull
#define MRSZ (1u << 20)

static int verbose;

struct env {
	struct tb *tb;
	struct tb_node *n[2];
	struct tb_eq *eq[2];
	struct tb_cq *scq[2], *rcq[2];
	struct tb_qp *qp[2];
	struct tb_mr *mr[2];
	const char *opts[2];
	bool soft;		/* a bug is planted: traffic is not checked */
};

static void engine_config(void *ctx, unsigned int node, struct hca_engine_config *ec)
{
	struct env *e = ctx;

	ec->options = e->opts[node];
	ec->data_w = 64;
}

static void pat(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)((seed * 2654435761u + i * 40503u) >> 7);
}

static bool env_setup(struct env *e, const char *o0, const char *o1)
{
	struct tb_config c;
	struct tb_qp_attr a;

	memset(&c, 0, sizeof(c));
	c.engine = "lockstep";
	c.engine_config = engine_config;
	c.engine_config_ctx = e;
	e->opts[0] = o0;
	e->opts[1] = o1;
	e->tb = tb_create(&c);
	if (!e->tb)
		return false;
	for (int i = 0; i < 2; i++) {
		uint32_t pd;

		e->n[i] = tb_node(e->tb, (unsigned int)i);
		pd = tb_pd_alloc(e->n[i]);
		e->eq[i] = tb_eq_create(e->n[i], 6, (unsigned int)i);
		e->scq[i] = tb_cq_create(e->n[i], 8, e->eq[i]);
		e->rcq[i] = tb_cq_create(e->n[i], 8, e->eq[i]);
		e->qp[i] = tb_qp_create(e->n[i], HCA_QPT_RC, pd, e->scq[i], e->rcq[i], NULL, NULL);
		e->mr[i] = tb_mr_reg(e->n[i], pd, MRSZ,
				     HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_READ);
	}
	tb_qp_attr_default(&a);
	a.path_mtu = HCA_MTU_1024;
	return tb_connect_pair(e->qp[0], e->qp[1], &a) == 0;
}

static void env_teardown(struct env *e)
{
	for (int i = 0; i < 2; i++) {
		free(e->scq[i]);
		free(e->rcq[i]);
		free(e->qp[i]);
		free(e->mr[i]);
		free(e->eq[i]);
	}
	tb_destroy(e->tb);
}

/* Take every EQE of node i and re-arm its EQ (driver's interrupt handler). */
static unsigned int drain_eq(struct env *e, int i)
{
	struct hca_eqe q;
	unsigned int n = 0;

	while (tb_eq_poll(e->eq[i], &q))
		n++;
	tb_eq_arm(e->eq[i]);
	return n;
}

struct msg {
	uint8_t op;
	uint32_t len;
	unsigned int nsge;
	uint8_t flags;
};

/* One message from node s to node 1-s, waited for and (unless soft) checked. */
static void one(struct env *e, int s, const struct msg *m, uint32_t seed)
{
	int d = 1 - s;
	struct tb_sge sge[4], r;
	uint32_t soff = 0x1000 * (seed % 8), doff = 0x40000 + 0x1000 * (seed % 8);
	uint32_t left = m->len, per = m->nsge ? (m->len + m->nsge - 1) / m->nsge : 0;
	struct tb_send_wr wr;
	struct hca_cqe c;
	bool recv = m->op == HCA_WR_SEND || m->op == HCA_WR_SEND_WITH_IMM || m->op == HCA_WR_RDMA_WRITE_WITH_IMM;
	uint8_t *src, *dst;
	unsigned int n = 0;

	/* READ: node s reads from node d's region into its own */
	src = m->op == HCA_WR_RDMA_READ ? e->mr[d]->buf + doff : e->mr[s]->buf + soff;
	dst = m->op == HCA_WR_RDMA_READ ? e->mr[s]->buf + soff : e->mr[d]->buf + doff;
	pat(src, m->len, seed);
	memset(dst, 0, m->len + 16);
	for (uint32_t off = 0; n < m->nsge && (left || n == 0); n++) {
		uint32_t l = left < per ? left : per;

		sge[n] = (struct tb_sge){ .addr = e->mr[s]->va + soff + off, .len = l, .lkey = e->mr[s]->lkey };
		off += l;
		left -= l;
	}
	memset(&wr, 0, sizeof(wr));
	wr.opcode = m->op;
	wr.flags = m->flags | HCA_SEND_SIGNALED;
	wr.sge = sge;
	wr.num_sge = n;
	wr.imm = 0x01020304u + seed;
	wr.raddr = e->mr[d]->va + doff;
	wr.rkey = e->mr[d]->rkey;
	if (recv) {
		r = (struct tb_sge){ .addr = e->mr[d]->va + doff, .len = 65536, .lkey = e->mr[d]->lkey };
		if (m->op == HCA_WR_RDMA_WRITE_WITH_IMM)
			r.len = 0;
		tb_post_recv(e->qp[d], &r, m->op == HCA_WR_RDMA_WRITE_WITH_IMM ? 0 : 1);
		tb_cq_arm(e->rcq[d], false);
	}
	tb_cq_arm(e->scq[s], (seed & 1) != 0);
	tb_post_send(e->qp[s], &wr);
	/* registers a driver or firmware reads while the engines work (volatile ones
	 * differ while a late DUT catches up and must not be reported) */
	tb_stat(e->n[s], HCA_STAT_TX_FRAMES);
	tb_mgmt_read(e->n[s], HCA_MGMT_EVT_COUNT);
	tb_qp_query(e->qp[s]);
	if (!tb_cq_wait(e->scq[s], &c, WAIT)) {
		CHECK(e->soft, "seed %u: send completion", seed);
		return;
	}
	if (!e->soft)
		CHECK(c.status == HCA_WC_SUCCESS, "seed %u: send status %u", seed, c.status);
	if (recv) {
		int got = tb_cq_wait(e->rcq[d], &c, WAIT);

		if (!e->soft) {
			CHECK(got, "seed %u: receive completion", seed);
			CHECK(!got || (c.status == HCA_WC_SUCCESS && c.byte_len == m->len), "seed %u: receive %u/%u",
			      seed, c.status, c.byte_len);
		}
	}
	if (!e->soft)
		CHECK(memcmp(src, dst, m->len) == 0, "seed %u: payload of op %u len %u", seed, m->op, m->len);
	drain_eq(e, 0);
	drain_eq(e, 1);
}

static const struct msg traffic_msgs[] = {
	{ HCA_WR_SEND, 0, 1, 0 },
	{ HCA_WR_SEND, 100, 1, HCA_SEND_SOLICITED },
	{ HCA_WR_SEND_WITH_IMM, 3000, 3, 0 },
	{ HCA_WR_RDMA_WRITE, 5000, 2, 0 },
	{ HCA_WR_RDMA_WRITE_WITH_IMM, 1024, 1, 0 },
	{ HCA_WR_RDMA_READ, 7777, 1, 0 },
	{ HCA_WR_SEND, 4097, 4, 0 },
	{ HCA_WR_RDMA_WRITE, 1, 1, 0 },
	{ HCA_WR_RDMA_READ, 64, 2, 0 },
	{ HCA_WR_SEND_WITH_IMM, 2048, 2, HCA_SEND_SOLICITED },
};

static void traffic(struct env *e)
{
	uint32_t seed = 1;

	for (int round = 0; round < 2; round++)
		for (size_t i = 0; i < sizeof(traffic_msgs) / sizeof(traffic_msgs[0]); i++)
			one(e, (int)((i + (size_t)round) & 1), &traffic_msgs[i], seed++);
	tb_run(e->tb, WAIT);
	drain_eq(e, 0);
	drain_eq(e, 1);
	tb_run(e->tb, WAIT);
	/* a few register reads at the end (settled: both engines idle) */
	for (int i = 0; i < 2; i++) {
		tb_stat(e->n[i], HCA_STAT_TX_FRAMES);
		tb_qp_query(e->qp[i]);
	}
}

static void clean(const char *dut_opts, const char *what, bool expect_skips)
{
	struct env e;
	char o[2][256];
	struct lockstep_stats st[2];

	memset(&e, 0, sizeof(e));
	for (int i = 0; i < 2; i++)
		snprintf(o[i], sizeof(o[i]), "ref=model,dut=model-mutant,label=node%d,quiet=%d%s%s", i, !verbose,
			 dut_opts[0] ? "," : "", dut_opts);
	CHECK(env_setup(&e, o[0], o[1]), "%s: setup", what);
	if (!e.tb)
		return;
	traffic(&e);
	for (int i = 0; i < 2; i++) {
		const struct sb_divergence *d;

		CHECK(lockstep_finish(e.n[i]->eng, "end of test"), "%s: node %d finishes clean", what, i);
		d = lockstep_divergence(e.n[i]->eng);
		if (d)
			printf("%s", d->report);
		lockstep_get_stats(e.n[i]->eng, &st[i]);
		CHECK(st[i].frames > 30, "%s: node %d frames compared: %llu", what, i, (unsigned long long)st[i].frames);
		CHECK(st[i].cqe_bytes >= 15 * 32, "%s: node %d CQE bytes compared: %llu", what, i,
		      (unsigned long long)st[i].cqe_bytes);
		CHECK(st[i].eqe_bytes >= 16, "%s: node %d EQE bytes compared: %llu", what, i,
		      (unsigned long long)st[i].eqe_bytes);
		CHECK(st[i].dma_bytes > st[i].cqe_bytes + st[i].eqe_bytes + 10000, "%s: node %d payload compared", what, i);
		CHECK(st[i].irqs > 0, "%s: node %d interrupts compared: %llu", what, i, (unsigned long long)st[i].irqs);
		CHECK(st[i].reads_compared > 100, "%s: node %d reads compared: %llu", what, i,
		      (unsigned long long)st[i].reads_compared);
		if (expect_skips)
			CHECK(st[i].reads_skipped > 0, "%s: node %d read volatile registers while busy", what, i);
		if (verbose)
			printf("%s node %d: frames %llu dma %llu (cqe %llu eqe %llu) irqs %llu reads %llu skipped %llu\n",
			       what, i, (unsigned long long)st[i].frames, (unsigned long long)st[i].dma_bytes,
			       (unsigned long long)st[i].cqe_bytes, (unsigned long long)st[i].eqe_bytes,
			       (unsigned long long)st[i].irqs, (unsigned long long)st[i].reads_compared,
			       (unsigned long long)st[i].reads_skipped);
	}
	env_teardown(&e);
}

struct bug_case {
	const char *opts;	/* DUT options of node 0 */
	const char *stream;	/* expected stream (prefix) */
	const char *field;	/* expected field, or NULL */
	const char *in_report;	/* text the report must contain, or NULL */
};

static void planted(const struct bug_case *b)
{
	struct env e;
	char o0[256], o1[128];
	const struct sb_divergence *d;
	const struct hca_engine_ops *dops;
	struct hca_engine *dut;

	memset(&e, 0, sizeof(e));
	e.soft = true;
	snprintf(o0, sizeof(o0), "ref=model,dut=model-mutant,label=node0,quiet=%d,%s", !verbose, b->opts);
	snprintf(o1, sizeof(o1), "ref=model,dut=model-mutant,label=node1,quiet=%d", !verbose);
	CHECK(env_setup(&e, o0, o1), "%s: setup", b->opts);
	if (!e.tb)
		return;
	traffic(&e);
	lockstep_finish(e.n[0]->eng, "end of test");
	lockstep_finish(e.n[1]->eng, "end of test");
	d = lockstep_divergence(e.n[0]->eng);
	dut = lockstep_dut(e.n[0]->eng, &dops);
	CHECK_EQ(mutant_fired(dut), 1, b->opts);
	CHECK(d != NULL, "%s: node 0 diverges", b->opts);
	if (d) {
		CHECK(strncmp(d->stream, b->stream, strlen(b->stream)) == 0, "%s: stream %s, want %s", b->opts,
		      d->stream, b->stream);
		if (b->field)
			CHECK(strcmp(d->field, b->field) == 0, "%s: field %s, want %s", b->opts, d->field, b->field);
		if (b->in_report)
			CHECK(strstr(d->report, b->in_report) != NULL, "%s: report mentions %s", b->opts, b->in_report);
		CHECK(strstr(e.n[0]->ops->last_error(e.n[0]->eng), d->stream) != NULL, "%s: last_error names the stream",
		      b->opts);
		CHECK(d->report && strstr(d->report, "FIRST DIVERGENCE") && strstr(d->report, "node0"),
		      "%s: report header", b->opts);
	}
	/* node 1 is clean, except where node 0's bug reached the wire (its inputs then
	 * differ from nothing: both of node 1's engines saw the same bad frame) */
	CHECK(lockstep_divergence(e.n[1]->eng) == NULL, "%s: node 1 stays clean", b->opts);
	if (verbose && d)
		printf("--- %s: %s\n", b->opts, d->summary);
	env_teardown(&e);
}

/*
 * Frame order is per QP and role (wire.md), not per port: node 0's DUT sends
 * its ACKs 600 cycles late, so its requests overtake them.  That is legal
 * and must pass; with tx_order=port (one order per port) it must not.
 */
static void interleaving(bool port_order)
{
	struct env e;
	char o0[256], o1[256];
	struct tr_cfg tc;
	struct tr_result r;
	const struct hca_engine_ops *dops;
	const char *what = port_order ? "ACKs overtaken, tx_order=port" : "ACKs overtaken";
	const struct sb_divergence *d;

	memset(&e, 0, sizeof(e));
	snprintf(o0, sizeof(o0), "ref=model,dut=model-mutant,label=node0,quiet=%d,dut.bug=ack_late,dut.ack_delay=600%s",
		 !verbose, port_order ? ",tx_order=port" : "");
	snprintf(o1, sizeof(o1), "ref=model,dut=model-mutant,label=node1,quiet=%d%s", !verbose,
		 port_order ? ",tx_order=port" : "");
	e.opts[0] = o0;
	e.opts[1] = o1;
	{
		struct tb_config c;

		memset(&c, 0, sizeof(c));
		c.engine = "lockstep";
		c.engine_config = engine_config;
		c.engine_config_ctx = &e;
		e.tb = tb_create(&c);
	}
	CHECK(e.tb != NULL, "%s: set-up", what);
	if (!e.tb)
		return;
	tr_cfg_default(&tc);
	tc.messages = 300;
	tr_run(e.tb, &tc, &r);
	lockstep_finish(tb_node(e.tb, 0)->eng, "end of test");
	lockstep_finish(tb_node(e.tb, 1)->eng, "end of test");
	CHECK(mutant_fired(lockstep_dut(tb_node(e.tb, 0)->eng, &dops)) > 10, "%s: requests overtook held ACKs (%u)",
	      what, mutant_fired(lockstep_dut(tb_node(e.tb, 0)->eng, &dops)));
	d = lockstep_divergence(tb_node(e.tb, 0)->eng);
	if (port_order) {
		CHECK(d && strcmp(d->stream, "tx") == 0, "%s: strict port order reports it", what);
	} else {
		CHECK(d == NULL, "%s: legal, no divergence (%s)", what, d ? d->summary : "");
		CHECK(r.errors == 0 && r.completed == 300, "%s: traffic (%s)", what, r.first_error);
	}
	tb_destroy(e.tb);
}

/*
 * A QP reset while the DUT still holds frames the reference has answered
 * (docs/sim.md section 1, "Context writes"): node 1's DUT is 3000 cycles
 * late; a 4 KiB SEND (four packets) from node 0 has reached node 1 -- its
 * reference has written the payload and the CQE and sent the ACK, its DUT
 * has not started -- when node 1's QP is written to RESET.  The write first
 * lets the DUT catch up: no divergence, the sender's SEND completes, the
 * payload arrived.  With the DUT's ACK planted missing the same reset
 * reports it (tx, RC_ACKNOWLEDGE).
 */
static void reset_while_behind(bool ack_dropped)
{
	struct env e;
	char o0[128], o1[256];
	const char *what = ack_dropped ? "QP reset while the DUT is behind, ACK dropped" : "QP reset while the DUT is behind";
	struct tb_sge sge;
	struct tb_send_wr wr;
	struct hca_cqe c;
	struct lockstep_stats st;
	const struct sb_divergence *d;

	memset(&e, 0, sizeof(e));
	e.soft = ack_dropped;
	snprintf(o0, sizeof(o0), "ref=model,dut=model-mutant,label=node0,quiet=%d", !verbose);
	snprintf(o1, sizeof(o1), "ref=model,dut=model-mutant,label=node1,quiet=%d,dut.lag=3000%s", !verbose,
		 ack_dropped ? ",dut.bug=drop_ack,dut.at=1" : "");
	CHECK(env_setup(&e, o0, o1), "%s: setup", what);
	if (!e.tb)
		return;
	tb_run(e.tb, WAIT);
	pat(e.mr[0]->buf, 4096, 77);
	memset(e.mr[1]->buf, 0, 4096);
	sge = (struct tb_sge){ .addr = e.mr[1]->va, .len = 4096, .lkey = e.mr[1]->lkey };
	tb_post_recv(e.qp[1], &sge, 1);
	sge = (struct tb_sge){ .addr = e.mr[0]->va, .len = 4096, .lkey = e.mr[0]->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.opcode = HCA_WR_SEND;
	wr.flags = HCA_SEND_SIGNALED;
	wr.sge = &sge;
	wr.num_sge = 1;
	tb_post_send(e.qp[0], &wr);
	tb_run_for(e.tb, 1000);	/* the wire's 250 cycles passed; the DUT's 3000 not */
	lockstep_get_stats(e.n[1]->eng, &st);
	CHECK(st.frames == 0 && !sb_drained(lockstep_scoreboard(e.n[1]->eng), SB_REF),
	      "%s: before the reset, node 1's reference has answered and its DUT has not", what);
	tb_qp_modify(e.qp[1], HCA_QPS_RESET, 0);
	lockstep_get_stats(e.n[1]->eng, &st);
	CHECK(st.ctx_waits == 1 && st.ctx_wait_cycles >= 2000, "%s: the reset waited for the DUT (%llu writes, %llu cycles)",
	      what, (unsigned long long)st.ctx_waits, (unsigned long long)st.ctx_wait_cycles);
	tb_run(e.tb, WAIT);
	d = lockstep_divergence(e.n[1]->eng);
	if (ack_dropped) {
		CHECK(d && strcmp(d->stream, "tx") == 0 && strstr(d->report, "RC_ACKNOWLEDGE"),
		      "%s: node 1 reports the ACK missing (%s)", what, d ? d->summary : "no divergence");
	} else {
		CHECK(d == NULL, "%s: no divergence (%s)", what, d ? d->summary : "");
		CHECK(tb_cq_wait(e.scq[0], &c, WAIT) && c.status == HCA_WC_SUCCESS, "%s: the SEND completed", what);
		CHECK(memcmp(e.mr[0]->buf, e.mr[1]->buf, 4096) == 0, "%s: the payload arrived", what);
	}
	CHECK(lockstep_divergence(e.n[0]->eng) == NULL, "%s: node 0 stays clean", what);
	env_teardown(&e);
}

int main(int argc, char **argv)
{
	static const struct bug_case bugs[] = {
		{ "dut.bug=hdr_se,dut.at=3", "tx", "bth.se", NULL },
		{ "dut.bug=udp_sport,dut.at=5", "tx", "udp.sport", NULL },
		{ "dut.bug=drop_ack,dut.at=2", "tx", NULL, "RC_ACKNOWLEDGE" },
		{ "dut.bug=dup_frame,dut.at=4", "tx", NULL, NULL },
		{ "dut.bug=cqe_field,dut.at=2", "cq", "byte_len", NULL },
		{ "dut.bug=cqe_field,dut.field=wqe_index,dut.at=5", "cq", "wqe_index", NULL },
		{ "dut.bug=drop_irq,dut.at=2", "irq", "missing", NULL },
		{ "dut.bug=reorder_dma,dut.at=2", "mr", "addr", NULL },
		{ "dut.bug=payload_byte,dut.at=3", "mr", "data", NULL },
		{ "dut.bug=ctx_status,dut.at=4", "mgmt-read", "MGMT.CTX_STATUS", NULL },
		{ "dut.bug=hdr_se,dut.at=3,dut.lag=200", "tx", "bth.se", NULL },
		{ "dut.bug=cqe_field,dut.at=7,dut.lag=500", "cq", "byte_len", NULL },
	};

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "-v") == 0)
			verbose = 1;
	hca_model_engine_register();
	hca_lockstep_engine_register();
	hca_mutant_engine_register();
	clean("", "model vs model", false);
	clean("dut.lag=300", "model vs model, DUT 300 cycles late", true);
	clean("dut.lag=7", "model vs model, DUT 7 cycles late", true);
	for (size_t i = 0; i < sizeof(bugs) / sizeof(bugs[0]); i++)
		planted(&bugs[i]);
	interleaving(false);
	interleaving(true);
	reset_while_behind(false);
	reset_while_behind(true);
	return check_done();
}
