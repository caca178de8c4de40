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
	return check_done();
}
