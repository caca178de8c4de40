// SPDX-License-Identifier: MIT
/*
 * The dispatcher's look-ahead (docs/rtl.md "Look-ahead"): while an item
 * runs, hca_dispatch reads the QPC/TXS/RXS words of the step it will pick
 * next (another QP), or, for a step of the item's own QP, keeps the item's
 * words; the step then starts without DISPST_STEP_CLR_BUSY.  Those words
 * are valid only while no context write of that QP happened since they were
 * read.  Here context writes race the look-ahead, swept over the cycle they
 * land in, on two "lockstep" devices (reference: the C model, DUT: the RTL;
 * any difference in frames, CQEs, EQEs or events is a divergence), then on
 * two plain "rtl" devices (lockstep lets the DUT catch up before a context
 * write, so only there does the write land inside the look-ahead's window;
 * the test's own checks: completions, the drain's event):
 *   sqd_other -- NQ RC QPs stream 64 B WRITEs round robin; QP 1 is moved
 *                RTS -> SQD (its TXS word's DRAIN bit set by the QPC write)
 *                d cycles in: a step on words read before the write would
 *                start the next WQE the model's drain holds back.  Then
 *                back to RTS: everything completes.
 *   sqd_same  -- one QP, its steps back to back (the same QP's words
 *                forwarded): the SQD write lands inside a step, is replayed
 *                on its write-back (hca_ctx_replay), and the next step must
 *                see it.
 *   err_other -- QP 1 moved to ERR d cycles in (QP_FATAL-like flush): its
 *                WQEs flushed in the model's order.
 *   db_other  -- a doorbell of QP 1 (one more WRITE) d cycles in: producer
 *                indices and busy bits are read live, not looked ahead.
 *   psn_other -- QP 1's SQ PSN loaded (RTS -> RTS, LOAD_SQ_PSN with its
 *                own next PSN: UNA jumps to it) d cycles in; its packets in
 *                flight are then acknowledged before UNA (the model retries
 *                and fails them as it does): a step on words read before
 *                the write would keep the old UNA.
 *   psn_same  -- the same with one QP (its steps back to back: the write
 *                lands inside a step, the next one takes its words).
 *
 *   rtl_lookahead [--width 64|512] [--engine rtl|lockstep|model] [--options K=V,...] [CASE...]
 */
#include "rtl_ls.h"

enum { MSG = 64, NQ_MAX = 4, PER_QP = 6 };

static void post_write(struct rt *t, struct tb_qp *qp, unsigned int k, unsigned int i)
{
	struct tb_sge s = rt_sge(t->mr[0], (uint64_t)(k * 64 + i) * MSG, MSG);
	struct tb_send_wr w = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				.raddr = t->mr[1]->va + (uint64_t)(k * 64 + i) * MSG, .rkey = t->mr[1]->rkey };

	tb_post_send(qp, &w);
}

enum kind { K_SQD, K_ERR, K_DB, K_PSN };

static void race(const char *name, unsigned int nq, enum kind kind, unsigned int d)
{
	struct rt t;
	struct tb_qp *q[NQ_MAX], *peer[NQ_MAX];
	struct tb_qp_attr a;
	struct hca_cqe c;
	unsigned int x = nq > 1 ? 1 : 0, posted[NQ_MAX], done = 0, want = 0, bad = 0;
	char what[96];

	tb_qp_attr_default(&a);
	a.sqd_notify = true;
	if (setup_objs(&t, 10)) {
		CHECK(0, "setup");
		return;
	}
	rt_fill(t.mr[0]->buf, NQ_MAX * 64 * MSG, (int)d);
	for (unsigned int k = 0; k < nq; k++) {
		q[k] = tb_qp_create(t.n[0], HCA_QPT_RC, t.pd[0], t.scq[0], t.rcq[0], NULL, NULL);
		peer[k] = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
		tb_connect_pair(q[k], peer[k], &a);
	}
	t.qp[0] = q[0];
	t.qp[1] = peer[0];
	tb_evt_clear(t.n[0]);
	for (unsigned int i = 0; i < PER_QP; i++)
		for (unsigned int k = 0; k < nq; k++)
			post_write(&t, q[k], k, i);
	for (unsigned int k = 0; k < nq; k++)
		posted[k] = PER_QP;
	tb_run_for(t.tb, d);
	switch (kind) {
	case K_SQD: {
		struct hca_qpc s;
		int drained;

		tb_qp_modify(q[x], HCA_QPS_SQD, 0);
		tb_run(t.tb, RT_WAIT);
		/* every started WQE retired: the drain is over, SQ_DRAINED once */
		s = tb_qp_query(q[x]);
		drained = count_evt(t.n[0], HCA_EVENT_SQ_DRAINED, q[x]->qpn);
		CHECK(s.cur_state == HCA_QPS_SQD && s.sq_draining == 0 &&
			      drained == 1,
		      "%s d=%u: drained in SQD (state %u, draining %u, sq_ci %u, SQ_DRAINED %d)", name, d, s.cur_state,
		      s.sq_draining, s.sq_ci, drained);
		tb_qp_modify(q[x], HCA_QPS_RTS, 0);
		break;
	}
	case K_ERR:
		tb_qp_modify(q[x], HCA_QPS_ERR, 0);
		break;
	case K_DB:
		post_write(&t, q[x], x, PER_QP);
		posted[x]++;
		break;
	case K_PSN:
		/* the SQ PSN loaded with its own next value: PSN_NEXT stays, UNA
		 * jumps to it (the model's qpc_write), so the ACKs of the packets
		 * in flight fall before UNA; a step on words read before the write
		 * keeps the old UNA and completes them */
		q[x]->qpc.sq_psn = tb_qp_query(q[x]).sq_psn_next;
		tb_qp_modify(q[x], HCA_QPS_RTS, HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK);
		break;
	}
	for (unsigned int k = 0; k < nq; k++)
		want += posted[k];
	while (done < want && tb_cq_wait(t.scq[0], &c, RT_WAIT)) {
		done++;
		if (c.status != HCA_WC_SUCCESS && !((kind == K_ERR || kind == K_PSN) && c.qpn == q[x]->qpn))
			bad++;
	}
	CHECK((done == want || kind == K_PSN) && !bad, "%s d=%u: %u of %u completions, %u unexpected errors", name, d, done, want, bad);
	snprintf(what, sizeof(what), "%s: %u QPs, the write lands %u cycles in", name, nq, d);
	finish(&t, what);
	for (unsigned int k = 1; k < nq; k++) {
		free(q[k]);
		free(peer[k]);
	}
}

int main(int argc, char **argv)
{
	/* lockstep, then plain rtl, where the writes race the look-ahead
	 * (rt_ls_passes) */
	rt_ls_start(argc, argv);
	for (unsigned int e = 0; e < rt_ls_passes(); e++) {
		rt_ls_pass(e);
		printf("engine %s\n", engine);
		for (unsigned int d = 0; d < 80; d++) {
			if (rt_ls_want("sqd_other"))
				race("sqd_other", 3, K_SQD, d);
			if (rt_ls_want("sqd_same"))
				race("sqd_same", 1, K_SQD, d);
			if (rt_ls_want("err_other"))
				race("err_other", 3, K_ERR, d);
			if (rt_ls_want("db_other"))
				race("db_other", 3, K_DB, d);
			if (rt_ls_want("psn_other"))
				race("psn_other", 3, K_PSN, d);
			if (rt_ls_want("psn_same"))
				race("psn_same", 1, K_PSN, d);
		}
	}
	return check_done();
}
