// SPDX-License-Identifier: MIT
/*
 * The frame checked ahead (docs/rtl.md "The frame checked ahead"): while a
 * step runs and a received frame waits, hca_dispatch reads that frame's QP
 * words (QPC/TXS/RXS) on the engine port's free cycles, or, when the frame
 * is of the stepped QP, takes the step's words at its end; hca_recv's frame
 * checks are made in the dispatcher's pick and the item starts in the next
 * cycle (no RECVST_CHECK_FRAME).  The words read ahead are valid only while
 * no QPC write happened since the read and no item wrote that QP's words
 * back.  Here context writes of a QP race its ACKs (and, both ways, its
 * requests), swept over the cycles the write lands in while that QP's
 * frames arrive, first on two "lockstep" devices (reference: the C model,
 * DUT: the RTL; every frame, CQE and event compared), then on two plain
 * "rtl" devices (lockstep lets the DUT catch up with the reference before a
 * context write, so only there does a write land between a read ahead and
 * its use; the test's own checks then):
 *   sqd_ack  -- NQ RC QPs stream 64 B WRITEs round robin; QP 1 is moved
 *               RTS -> SQD (the QPC write sets its TXS DRAIN bit) d cycles
 *               into the ACKs: an ACK item on words read before the write
 *               writes DRAIN back clear, the drain never ends (SQ_DRAINED
 *               lost).  Then back to RTS: everything completes.  Swept over
 *               every ACK on the plain engine.
 *   psn_ack  -- QP 1's SQ PSN loaded with its own next PSN (UNA jumps to
 *               it) d cycles into the ACKs: the ACKs in flight fall before
 *               UNA; an ACK item on the old words completes their WQEs.
 *   err_ack  -- QP 1 moved to ERR d cycles into the ACKs: flushed in the
 *               model's order.
 *   sqd_one, psn_one -- the same with one QP and 48 WRITEs (more than the
 *               outstanding table holds: its steps and ACKs alternate): its
 *               ACKs come after its own steps, whose words they take
 *               forwarded (a QPC write taken
 *               during the step, replayed on its write-back, must reach
 *               them: the forward is not taken then); on the plain engine
 *               only: the untimed reference starts all 48 WQEs at the
 *               doorbell, the RTL at most 31 (its outstanding table's bound,
 *               legal: nothing bounds outstanding WRITEs), and lockstep's
 *               catch-up before the QPC write clocks the written node alone
 *               -- no ACK comes back, the DUT stays at the bound -- so the
 *               write lands with 48 started in the reference and 31 in the
 *               DUT: the drain stops at different WQEs (the reference's
 *               frames 32-47 never come), not an RTL defect.
 *   sqd_both -- both nodes stream WRITEs to each other on NQ QP pairs with
 *               the DMA write response after 300 cycles (hca_comp_posted
 *               holds the engine: only steps and ACKs start, a request frame
 *               waits while steps of its QP run and write its words back),
 *               QP 1 of node 0 moved to SQD d cycles into the frames;
 *               sqd_both40: the write response after 40 cycles.
 *   wb_both  -- both nodes stream 16 1 KiB WRITEs on each of NQ QP pairs,
 *               the write response after 300 cycles, no context write:
 *               longer steps, so at both widths a request frame whose words
 *               were read ahead waits while steps of its QP write them back
 *               (the read ahead must be dropped then); completions and
 *               every WRITE's data both ways.
 *
 *   rtl_frameahead [--width 64|512] [--engine rtl|lockstep|model] [--options K=V,...] [CASE...]
 */
#include "rtl_ls.h"

enum { MSG = 64, NQ = 3, NQ_MAX = 8, PER_QP = 8, PER_ONE = 48, SPAN = 90, SPAN_RTL = 320 };

/* K_BOTH: WRITEs per QP and their length (0: PER_QP, MSG) */
static unsigned int both_per, both_len;

static void post_write(struct rt *t, unsigned int node, struct tb_qp *qp, unsigned int k, unsigned int i)
{
	uint32_t len = both_len > MSG ? both_len : MSG;
	struct tb_sge s = rt_sge(t->mr[node], (uint64_t)(k * 64 + i) * len, len);
	struct tb_send_wr w = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				.raddr = t->mr[!node]->va + 0x40000 + (uint64_t)(k * 64 + i) * len,
				.rkey = t->mr[!node]->rkey };

	tb_post_send(qp, &w);
}

enum kind { K_SQD, K_PSN, K_ERR, K_SQD_BOTH, K_PROBE, K_PROBE_BOTH, K_BOTH };

/* One scenario; K_PROBE*: no write, returns the cycle (after the posts) of
 * node 0's first received frame. */
static uint64_t race(const char *name, enum kind kind, unsigned int d, unsigned int wr_lat, unsigned int nq)
{
	static char opt[320];
	const char *saved = rt_options;
	bool both = kind == K_SQD_BOTH || kind == K_PROBE_BOTH || kind == K_BOTH;
	struct rt t;
	struct tb_qp *q[NQ_MAX], *peer[NQ_MAX];
	struct tb_qp_attr a;
	struct hca_cqe c;
	unsigned int x = nq > 1 ? 1 : 0, per = nq > 1 ? PER_QP : PER_ONE, done = 0, want, bad = 0;
	uint64_t first = 0;
	char what[96];
	int r;

	tb_qp_attr_default(&a);
	a.sqd_notify = true;
	if (both && both_per)
		per = both_per;
	want = nq * per;
	if (both) {	/* the harness's write latency beside --options (ls_options_for) */
		snprintf(opt, sizeof(opt), "%s%sdut.wr_lat=%u", saved ? saved : "", saved ? "," : "", wr_lat);
		rt_options = opt;
	}
	r = setup_objs(&t, 10);
	rt_options = saved;
	if (r) {
		CHECK(0, "setup");
		return 0;
	}
	rt_fill(t.mr[0]->buf, 0x40000, (int)d);	/* the sources, below the destinations at 0x40000 */
	rt_fill(t.mr[1]->buf, 0x40000, (int)d + 7);
	for (unsigned int k = 0; k < nq; k++) {
		q[k] = tb_qp_create(t.n[0], HCA_QPT_RC, t.pd[0], t.scq[0], t.rcq[0], NULL, NULL);
		peer[k] = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
		tb_connect_pair(q[k], peer[k], &a);
	}
	t.qp[0] = q[0];
	t.qp[1] = peer[0];
	tb_evt_clear(t.n[0]);
	for (unsigned int i = 0; i < per; i++)
		for (unsigned int k = 0; k < nq; k++) {
			post_write(&t, 0, q[k], k, i);
			if (both)
				post_write(&t, 1, peer[k], k, i);
		}
	if (kind == K_PROBE || kind == K_PROBE_BOTH) {
		uint32_t f0 = tb_stat(t.n[0], HCA_STAT_RX_FRAMES);

		for (first = 0; first < 5000 && tb_stat(t.n[0], HCA_STAT_RX_FRAMES) == f0; first++)
			tb_run_for(t.tb, 1);
	} else
		tb_run_for(t.tb, d);
	switch (kind) {
	case K_SQD:
	case K_SQD_BOTH: {
		struct hca_qpc s;
		int drained;

		tb_qp_modify(q[x], HCA_QPS_SQD, 0);
		tb_run(t.tb, RT_WAIT);
		s = tb_qp_query(q[x]);
		drained = count_evt(t.n[0], HCA_EVENT_SQ_DRAINED, q[x]->qpn);
		CHECK(s.cur_state == HCA_QPS_SQD && s.sq_draining == 0 && drained == 1,
		      "%s d=%u: drained in SQD (state %u, draining %u, sq_ci %u, SQ_DRAINED %d)", name, d, s.cur_state,
		      s.sq_draining, s.sq_ci, drained);
		tb_qp_modify(q[x], HCA_QPS_RTS, 0);
		break;
	}
	case K_ERR:
		tb_qp_modify(q[x], HCA_QPS_ERR, 0);
		break;
	case K_PSN:
		q[x]->qpc.sq_psn = tb_qp_query(q[x]).sq_psn_next;
		tb_qp_modify(q[x], HCA_QPS_RTS, HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK);
		break;
	default:
		break;
	}
	while (done < want && tb_cq_wait(t.scq[0], &c, RT_WAIT)) {
		done++;
		if (c.status != HCA_WC_SUCCESS && !((kind == K_ERR || kind == K_PSN) && c.qpn == q[x]->qpn))
			bad++;
	}
	CHECK((done == want || kind == K_PSN) && !bad, "%s d=%u: %u of %u completions, %u unexpected errors", name, d,
	      done, want, bad);
	if (both) {
		unsigned int got = 0;

		while (got < want && tb_cq_wait(t.scq[1], &c, RT_WAIT))
			got += c.status == HCA_WC_SUCCESS;
		CHECK(got == want, "%s d=%u: node 1's %u of %u WRITEs complete", name, d, got, want);
	}
	if (kind == K_BOTH) {	/* every WRITE's data, both ways */
		uint32_t len = both_len > MSG ? both_len : MSG;
		unsigned int same = 0;

		for (unsigned int n = 0; n < 2; n++)
			for (unsigned int k = 0; k < nq; k++)
				for (unsigned int i = 0; i < per; i++) {
					uint64_t off = (uint64_t)(k * 64 + i) * len;

					same += !memcmp(t.mr[!n]->buf + 0x40000 + off, t.mr[n]->buf + off, len);
				}
		CHECK(same == 2 * want, "%s d=%u: %u of %u WRITEs' data arrived", name, d, same, 2 * want);
	}
	snprintf(what, sizeof(what), "%s: the write lands %u cycles in", name, d);
	finish(&t, what);
	for (unsigned int k = 1; k < nq; k++) {
		free(q[k]);
		free(peer[k]);
	}
	return first;
}

int main(int argc, char **argv)
{
	/* lockstep first, then the plain rtl engine (rt_ls_passes) */
	rt_ls_start(argc, argv);
	for (unsigned int e = 0; e < rt_ls_passes(); e++) {
		uint64_t d1, d2;

		rt_ls_pass(e);
		/* where the frames start coming in (node 0's first received frame) */
		d1 = race("probe", K_PROBE, 0, 0, NQ);
		d2 = race("probe_both", K_PROBE_BOTH, 0, 300, NQ);
		printf("engine %s: node 0's first frame %llu / %llu cycles after the posts\n", engine,
		       (unsigned long long)d1, (unsigned long long)d2);
		/* wb_both: 1 KiB WRITEs both ways (longer steps: a request
		 * frame read ahead waits while its QP steps, at both widths) */
		for (unsigned int d = 0; d < 14 && rt_ls_want("wb_both"); d += 7) {
			both_per = 16;
			both_len = 1024;
			race("wb_both", K_BOTH, (unsigned int)d2 + d, 300, NQ);
			both_per = both_len = 0;
		}
		/* sqd_ack over every ACK on the plain engine (its window is a
		 * cycle or two an ACK) */
		for (unsigned int d = 0; d < (strcmp(engine, "rtl") ? SPAN : SPAN_RTL); d++) {
			if (rt_ls_want("sqd_ack"))
				race("sqd_ack", K_SQD, (unsigned int)d1 + d, 0, NQ);
			/* the _one cases on the plain engine only: lockstep's reference
			 * starts all 48 WQEs at once, the RTL 31 (its outstanding
			 * table), so an SQD or PSN write mid-stream lands after
			 * different starts there */
			if (rt_ls_want("sqd_one") && !strcmp(engine, "rtl"))
				race("sqd_one", K_SQD, (unsigned int)d1 + d, 0, 1);
			if (d >= SPAN)
				continue;
			if (rt_ls_want("psn_ack"))
				race("psn_ack", K_PSN, (unsigned int)d1 + d, 0, NQ);
			if (rt_ls_want("psn_one") && !strcmp(engine, "rtl"))
				race("psn_one", K_PSN, (unsigned int)d1 + d, 0, 1);
			if (rt_ls_want("err_ack"))
				race("err_ack", K_ERR, (unsigned int)d1 + d, 0, NQ);
			if (rt_ls_want("sqd_both"))
				race("sqd_both", K_SQD_BOTH, (unsigned int)d2 + d, 300, NQ);
			if (rt_ls_want("sqd_both40"))
				race("sqd_both40", K_SQD_BOTH, (unsigned int)d2 + d, 40, NQ);
		}
	}
	return check_done();
}
