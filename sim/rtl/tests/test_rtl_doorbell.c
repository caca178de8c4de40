// SPDX-License-Identifier: MIT
/*
 * Doorbell validation, an isolation boundary between contexts
 * (docs/programming.md 2.2): the engine ignores and counts (STAT_DB_ERR) a
 * doorbell whose object number is out of range, whose object is not
 * configured, or whose object belongs to another context's doorbell page.
 * "Ignores" is checked on the contexts: every context of node 0 reads back
 * unchanged, nothing is sent, and the counter grows by exactly one per bad
 * doorbell.  A good doorbell of each arm kind changes its context, so the
 * check can see a doorbell that is accepted.
 *
 * Run on the model, the RTL and lockstep(model, rtl) at --width 64|512: the
 * specification is the oracle for both.  (Found by mutation analysis: with
 * hca_ctx's `db_num < NEQ &&` turned into `||`, an EQ doorbell for
 * EQN + NEQ updated EQ EQN.)
 *
 * Two more doorbell corners, also from mutation survivors (issue 13):
 *   - quiet_cqs: good doorbells of every kind raise no completion event on a
 *     CQ that is not armed (CQs 45 and 99 on an EQ: any other CQ's doorbell
 *     must leave them alone; programming.md 2.2, 4.4);
 *   - busy_doorbells: SQ doorbells and register reads that land while the
 *     engine works on the QP (the harness holds the engine for a register
 *     access, so the access takes no engine time): 48 SENDs posted one at a
 *     time, a few cycles and four BAR0 reads between them, the SQ past 16
 *     and 32 WQEs; every WQE is sent once, in order, and completes (IB 9.7;
 *     lockstep compares each frame).
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

struct snap {
	struct hca_qpc qpc;
	struct hca_cqc scq, rcq;
	struct hca_eqc eqc;
	struct hca_srqc srqc;
};

struct env {
	const char *engine;
	struct tb *tb;
	struct tb_node *n;
	struct tb_eq *eq;
	struct tb_cq *scq, *rcq, *cq1;
	struct tb_srq *srq;
	struct tb_qp *qp, *peer;
	unsigned int log_qp, log_cq, log_srq, log_eq;
};

static void engine_config(void *ctx, unsigned int node, struct hca_engine_config *ec)
{
	(void)ctx;
	(void)node;
	ec->data_w = width;
}

static void snap(struct env *e, struct snap *s)
{
	memset(s, 0, sizeof(*s));
	tb_ctx_read(e->n, HCA_CTX_TYPE_QPC, e->qp->qpn, &s->qpc, sizeof(s->qpc));
	tb_ctx_read(e->n, HCA_CTX_TYPE_CQC, e->scq->cqn, &s->scq, sizeof(s->scq));
	tb_ctx_read(e->n, HCA_CTX_TYPE_CQC, e->rcq->cqn, &s->rcq, sizeof(s->rcq));
	tb_ctx_read(e->n, HCA_CTX_TYPE_EQC, e->eq->eqn, &s->eqc, sizeof(s->eqc));
	tb_ctx_read(e->n, HCA_CTX_TYPE_SRQC, e->srq->srqn, &s->srqc, sizeof(s->srqc));
}

static int setup(struct env *e, const char *engine)
{
	struct tb_config c = { .engine = engine, .nodes = 2, .engine_config = engine_config };
	uint32_t cap0, pd[2];

	memset(e, 0, sizeof(*e));
	e->engine = engine;
	e->tb = tb_create(&c);
	if (!e->tb)
		return -1;
	e->n = tb_node(e->tb, 0);
	cap0 = tb_bar0_read(e->n, HCA_INIT_CAP0);
	e->log_qp = HCA_FIELD_GET(cap0, HCA_INIT_CAP0_LOG_MAX_QP);
	e->log_cq = HCA_FIELD_GET(cap0, HCA_INIT_CAP0_LOG_MAX_CQ);
	e->log_srq = HCA_FIELD_GET(cap0, HCA_INIT_CAP0_LOG_MAX_SRQ);
	e->log_eq = HCA_FIELD_GET(cap0, HCA_INIT_CAP0_LOG_MAX_EQ);
	pd[0] = tb_pd_alloc(e->n);
	pd[1] = tb_pd_alloc(tb_node(e->tb, 1));
	e->eq = tb_eq_create(e->n, 4, 0);
	e->scq = tb_cq_create(e->n, 4, e->eq);
	e->rcq = tb_cq_create(e->n, 4, e->eq);
	e->srq = tb_srq_create(e->n, pd[0], 4, 1, 0);
	e->cq1 = tb_cq_create(tb_node(e->tb, 1), 4, NULL);
	e->qp = tb_qp_create(e->n, HCA_QPT_RC, pd[0], e->scq, e->rcq, NULL, NULL);
	e->peer = tb_qp_create(tb_node(e->tb, 1), HCA_QPT_RC, pd[1], e->cq1, e->cq1, NULL, NULL);
	if (!e->eq || !e->scq || !e->rcq || !e->srq || !e->qp || !e->peer)
		return -1;
	return tb_connect_pair(e->qp, e->peer, NULL);
}

static void ring(struct env *e, unsigned int page, uint32_t reg, uint32_t num, uint16_t idx)
{
	tb_bar0_write(e->n, HCA_BAR0_DB_BASE + page * HCA_BAR0_DB_PAGE_SIZE + reg, (uint32_t)idx << 16 | num);
	tb_run(e->tb, 20000);
}

static const struct {
	uint32_t reg;
	const char *name;
} kinds[] = {
	{ HCA_DB_SQ_PI, "SQ_PI" }, { HCA_DB_RQ_PI, "RQ_PI" }, { HCA_DB_SRQ_PI, "SRQ_PI" },
	{ HCA_DB_CQ_CI, "CQ_CI" }, { HCA_DB_CQ_ARM, "CQ_ARM" }, { HCA_DB_CQ_ARM_SOL, "CQ_ARM_SOL" },
	{ HCA_DB_EQ_CI, "EQ_CI" }, { HCA_DB_EQ_ARM, "EQ_ARM" },
};

/* The valid object of a doorbell kind, and the log2 of how many there are. */
static uint32_t object(const struct env *e, uint32_t reg, unsigned int *log_n)
{
	switch (reg) {
	case HCA_DB_SQ_PI: case HCA_DB_RQ_PI:
		*log_n = e->log_qp;
		return e->qp->qpn;
	case HCA_DB_SRQ_PI:
		*log_n = e->log_srq;
		return e->srq->srqn;
	case HCA_DB_EQ_CI: case HCA_DB_EQ_ARM:
		*log_n = e->log_eq;
		return e->eq->eqn;
	default:
		*log_n = e->log_cq;
		return e->scq->cqn;
	}
}

/* One bad doorbell: counted once, no context changed, nothing sent. */
static void bad(struct env *e, const char *what, const char *kind, unsigned int page, uint32_t reg, uint32_t num)
{
	struct snap a, b;
	uint32_t err0 = tb_stat(e->n, HCA_STAT_DB_ERR);
	uint64_t sent = tb_frames_sent(e->tb);

	snap(e, &a);
	ring(e, page, reg, num, 5);
	snap(e, &b);
	CHECK(tb_stat(e->n, HCA_STAT_DB_ERR) - err0 == 1, "%s: %s %s num %u page %u counted in STAT_DB_ERR (+%u)",
	      e->engine, kind, what, num, page, tb_stat(e->n, HCA_STAT_DB_ERR) - err0);
	CHECK(memcmp(&a, &b, sizeof(a)) == 0, "%s: %s %s num %u page %u changed no context", e->engine, kind, what,
	      num, page);
	CHECK(tb_frames_sent(e->tb) == sent, "%s: %s %s: nothing sent", e->engine, kind, what);
}

static void run(const char *engine)
{
	struct env e;
	struct snap a, b;

	if (setup(&e, engine)) {
		CHECK(0, "%s: set-up", engine);
		return;
	}
	/* the check sees an accepted doorbell: arming changes the CQ and EQ contexts */
	snap(&e, &a);
	ring(&e, TB_UAR, HCA_DB_CQ_ARM, e.scq->cqn, 0);
	snap(&e, &b);
	CHECK(memcmp(&a.scq, &b.scq, sizeof(a.scq)) != 0 && tb_stat(e.n, HCA_STAT_DB_ERR) == 0,
	      "%s: a good CQ_ARM doorbell is accepted and changes its CQ context", engine);
	for (unsigned int k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		unsigned int log_n;
		uint32_t num = object(&e, kinds[k].reg, &log_n);

		/* out of range: aliases the valid object when the number is truncated */
		bad(&e, "out of range", kinds[k].name, TB_UAR, kinds[k].reg, num + (1u << log_n));
		bad(&e, "out of range", kinds[k].name, TB_UAR, kinds[k].reg, 0xffff);
		/* not configured */
		bad(&e, "not configured", kinds[k].name, TB_UAR, kinds[k].reg, (1u << log_n) - 1);
		/* the object of another context's doorbell page */
		bad(&e, "on another page", kinds[k].name, TB_UAR + 1, kinds[k].reg, num);
		bad(&e, "on another page", kinds[k].name, 0, kinds[k].reg, num);
	}
	if (!strcmp(engine, "lockstep"))
		for (unsigned int i = 0; i < 2; i++)
			CHECK(lockstep_finish(tb_node(e.tb, i)->eng, "end of test") && !lockstep_divergence(tb_node(e.tb, i)->eng),
			      "lockstep node %u: model and RTL agree", i);
	free(e.scq);
	free(e.rcq);
	free(e.cq1);
	free(e.srq);
	free(e.eq);
	free(e.qp);
	free(e.peer);
	tb_destroy(e.tb);
}

static bool lockstep_clean(struct tb *tb, const char *engine, const char *what)
{
	bool ok = true;

	if (strcmp(engine, "lockstep"))
		return true;
	for (unsigned int i = 0; i < 2; i++) {
		struct hca_engine *e = tb_node(tb, i)->eng;
		const struct sb_divergence *d;

		ok &= lockstep_finish(e, what);
		d = lockstep_divergence(e);
		if (d) {
			printf("---- %s, node %u:\n%s\n", what, i, d->report);
			ok = false;
		}
	}
	return ok;
}

/* Good doorbells raise no completion event on a CQ that is not armed. */
static void quiet_cqs(const char *engine)
{
	struct tb_config c = { .engine = engine, .nodes = 2, .engine_config = engine_config };
	struct tb *tb = tb_create(&c);
	struct tb_node *n;
	struct tb_eq *eq;
	struct tb_cq *cq[4];
	struct tb_qp *qp, *peer;
	uint32_t pd[2];
	uint64_t irq;
	int eqes = 0;

	if (!tb) {
		CHECK(0, "%s: quiet CQs: set-up", engine);
		return;
	}
	n = tb_node(tb, 0);
	pd[0] = tb_pd_alloc(n);
	pd[1] = tb_pd_alloc(tb_node(tb, 1));
	eq = tb_eq_create(n, 4, 0);
	tb_eq_arm(eq);
	cq[0] = tb_cq_create(n, 4, eq);
	n->next_cqn = 45;			/* CQs far from the first ones */
	cq[1] = tb_cq_create(n, 4, eq);
	n->next_cqn = 99;
	cq[2] = tb_cq_create(n, 4, eq);
	cq[3] = tb_cq_create(tb_node(tb, 1), 4, NULL);
	qp = tb_qp_create(n, HCA_QPT_RC, pd[0], cq[0], cq[0], NULL, NULL);
	peer = tb_qp_create(tb_node(tb, 1), HCA_QPT_RC, pd[1], cq[3], cq[3], NULL, NULL);
	if (!qp || !peer || tb_connect_pair(qp, peer, NULL)) {
		CHECK(0, "%s: quiet CQs: set-up", engine);
		goto out;
	}
	tb_run(tb, 20000);
	irq = n->irq_total;
	/* each kind on the first CQ, the QP and the EQ: accepted, nothing to report */
	tb_doorbell(n, HCA_DB_CQ_CI, cq[0]->cqn, 0);
	tb_doorbell(n, HCA_DB_SQ_PI, qp->qpn, qp->sq_pi);
	tb_doorbell(n, HCA_DB_RQ_PI, qp->qpn, qp->rq_pi);
	tb_doorbell(n, HCA_DB_EQ_CI, eq->eqn, (uint16_t)eq->ci);
	tb_doorbell(n, HCA_DB_CQ_CI, cq[0]->cqn, 0);
	tb_run(tb, 20000);
	CHECK(tb_stat(n, HCA_STAT_DB_ERR) == 0, "%s: quiet CQs: the doorbells are accepted", engine);
	while (tb_eq_poll(eq, NULL))
		eqes++;
	CHECK(eqes == 0 && n->irq_total == irq, "%s: quiet CQs: no event on CQs %u, %u, %u (%d EQEs, %llu interrupts)",
	      engine, cq[0]->cqn, cq[1]->cqn, cq[2]->cqn, eqes, (unsigned long long)(n->irq_total - irq));
	CHECK(lockstep_clean(tb, engine, "quiet CQs"), "%s: quiet CQs: model and RTL agree", engine);
out:
	for (unsigned int i = 0; i < 4; i++)
		free(cq[i]);
	free(eq);
	free(qp);
	free(peer);
	tb_destroy(tb);
}

/* SQ doorbells that land while the engine works on the QP. */
static void busy_doorbells(const char *engine)
{
	enum { N = 48, LEN = 64 };
	struct tb_config c = { .engine = engine, .nodes = 2, .engine_config = engine_config };
	struct tb *tb = tb_create(&c);
	struct tb_node *n[2];
	struct tb_cq *cq[2];
	struct tb_qp *qp[2];
	struct tb_mr *mr[2];
	struct tb_qp_cap cap = { .max_send_wr = 64, .max_recv_wr = 64 };
	struct tb_qp_attr attr;
	struct hca_cqe e;
	int sent = 0, recvd = 0, in_order = 1;

	if (!tb) {
		CHECK(0, "%s: busy doorbells: set-up", engine);
		return;
	}
	for (int i = 0; i < 2; i++) {
		uint32_t pd;

		n[i] = tb_node(tb, (unsigned int)i);
		pd = tb_pd_alloc(n[i]);
		cq[i] = tb_cq_create(n[i], 8, NULL);
		mr[i] = tb_mr_reg(n[i], pd, N * LEN, HCA_ACCESS_LOCAL_WRITE);
		qp[i] = tb_qp_create(n[i], HCA_QPT_RC, pd, cq[i], cq[i], NULL, &cap);
	}
	/* PSNs from 0x923: PSN_NEXT bit 11 set while the register reads hold
	 * the engine mid-item (a held-cycle toggle of its write mask clears it) */
	tb_qp_attr_default(&attr);
	attr.sq_psn = attr.rq_psn = 0x923;
	if (tb_connect_pair(qp[0], qp[1], &attr)) {
		CHECK(0, "%s: busy doorbells: set-up", engine);
		goto out;
	}
	for (int k = 0; k < N; k++) {
		struct tb_sge r = { .addr = mr[1]->va + (uint64_t)k * LEN, .len = LEN, .lkey = mr[1]->lkey };

		tb_post_recv(qp[1], &r, 1);
		memset(mr[0]->buf + k * LEN, k + 1, LEN);
	}
	tb_run(tb, 20000);
	for (int k = 0; k < N; k++) {
		struct tb_sge s = { .addr = mr[0]->va + (uint64_t)k * LEN, .len = LEN, .lkey = mr[0]->lkey };
		struct tb_send_wr w = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };

		tb_post_send(qp[0], &w);
		/* register reads between the doorbells: the engine is held for each */
		for (int j = 0; j < 4; j++) {
			tb_run_for(tb, 5 + (uint64_t)(k * 7 + j * 3) % 23);
			(void)tb_bar0_read(n[0], HCA_INIT_CAP0);
		}
	}
	tb_run(tb, 20000000);
	while (tb_cq_poll(cq[0], &e)) {
		in_order &= e.status == HCA_WC_SUCCESS && e.wqe_index == sent;
		sent++;
	}
	while (tb_cq_poll(cq[1], &e)) {
		in_order &= e.status == HCA_WC_SUCCESS && e.byte_len == LEN && e.wqe_index == recvd;
		recvd++;
	}
	CHECK(sent == N && recvd == N && in_order, "%s: busy doorbells: %d SENDs and %d receives complete once, in order",
	      engine, sent, recvd);
	for (int k = 0; k < N; k++)
		if (mr[1]->buf[k * LEN] != k + 1 || mr[1]->buf[k * LEN + LEN - 1] != k + 1) {
			CHECK(0, "%s: busy doorbells: receive %d holds SEND %d", engine, k, k);
			break;
		}
	CHECK(lockstep_clean(tb, engine, "busy doorbells"), "%s: busy doorbells: model and RTL agree", engine);
out:
	for (int i = 0; i < 2; i++) {
		free(cq[i]);
		free(mr[i]);
		free(qp[i]);
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
	printf("doorbell validation, DATA_W=%u\n", width);
	run("model");
	run("rtl");
	run("lockstep");
	for (unsigned int i = 0; i < 3; i++) {
		static const char *const engines[] = { "model", "rtl", "lockstep" };

		quiet_cqs(engines[i]);
		busy_doorbells(engines[i]);
	}
	return check_done();
}
