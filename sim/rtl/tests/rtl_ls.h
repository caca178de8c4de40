/* SPDX-License-Identifier: MIT */
/*
 * Shared set-up of the RTL tests that run on "lockstep" devices (reference:
 * the C model, DUT: the RTL), so that any difference from the golden model
 * is a divergence: rl_setup() builds the two nodes with a QP pair like
 * rt_setup() (rtl_t.h), rl_finish() runs them idle and requires
 * lockstep_finish() to be clean on both.  `rl_engine` ("lockstep", or "rtl"
 * for the RTL alone: --engine) picks the engine.
 */
#ifndef HCASIM_SIM_RTL_TESTS_RTL_LS_H
#define HCASIM_SIM_RTL_TESTS_RTL_LS_H

#include "rtl_t.h"
#include "lockstep.h"

static const char *rl_engine = "lockstep";
static const char *rl_ls_options = "quiet=1";	/* the lockstep engine's options */

static void rl_config(void *ctx, unsigned int node, struct hca_engine_config *ec)
{
	rt_engine_config(ctx, node, ec);
	if (!strcmp(rl_engine, "lockstep"))
		ec->options = rl_ls_options;
}

static inline int rl_setup(struct rt *t, uint8_t type, const struct tb_qp_attr *attr, const struct tb_qp_cap *cap,
			   unsigned int cq_log)
{
	struct tb_config c = { .engine = rl_engine, .nodes = 2, .engine_config = rl_config };

	memset(t, 0, sizeof(*t));
	t->tb = tb_create(&c);
	if (!t->tb)
		return -1;
	tb_set_filter(t->tb, rt_cap_filter, &t->cap);
	for (int i = 0; i < 2; i++) {
		t->n[i] = tb_node(t->tb, (unsigned int)i);
		t->pd[i] = tb_pd_alloc(t->n[i]);
		t->scq[i] = tb_cq_create(t->n[i], cq_log, NULL);
		t->rcq[i] = tb_cq_create(t->n[i], cq_log, NULL);
		t->qp[i] = tb_qp_create(t->n[i], type, t->pd[i], t->scq[i], t->rcq[i], NULL, cap);
		t->mr[i] = tb_mr_reg(t->n[i], t->pd[i], 1 << 20, RT_ACC_ALL);
	}
	if (type == HCA_QPT_UD)
		return tb_qp_ud_ready(t->qp[0], attr) | tb_qp_ud_ready(t->qp[1], attr);
	return tb_connect_pair(t->qp[0], t->qp[1], attr);
}

/* End of a scenario: run idle, the lockstep engines must finish clean. */
static inline void rl_finish(struct rt *t, const char *what)
{
	tb_run(t->tb, RT_WAIT);
	for (int i = 0; i < 2; i++) {
		struct hca_engine *e = t->n[i]->eng;

		if (lockstep_is(e)) {
			const struct sb_divergence *d;

			CHECK(lockstep_finish(e, what), "%s: node %d matches the model", what, i);
			d = lockstep_divergence(e);
			if (d)
				printf("---- %s, node %d:\n%s\n", what, i, d->report);
		}
	}
	for (int i = 0; i < 2; i++) {
		free(t->scq[i]);
		free(t->rcq[i]);
		free(t->qp[i]);
		free(t->mr[i]);
	}
	tb_destroy(t->tb);
}

/* --engine rtl|lockstep (before rt_args, which reads --width and --options). */
static inline void rl_args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--engine") && i + 1 < argc)
			rl_engine = argv[++i];
}

#endif
