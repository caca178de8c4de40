// SPDX-License-Identifier: MIT
/*
 * The handover from a step to a frame checked ahead (docs/rtl.md
 * "Handovers"): hca_dispatch starts the frame's item in the step's done
 * cycle, beside the step's write-back.  In that cycle the step's last
 * registered writes (REQST_BUILD_HDR's TXS: PSN_NEXT, TX_WQE, TX_PKT, the
 * ACK timer's TMR) land and must reach its write-back, and, when the frame
 * is of the stepped QP, the frame's item too (its ACK's PSN is checked
 * against [UNA, PSN_NEXT)); its busy set must name the stepped QP, and a
 * timer arming or QP state strobe landing then keeps the handover off.
 * Every scenario on two "lockstep" devices (reference: the C model, DUT:
 * the RTL; frames, CQEs and events compared), then on two plain "rtl"
 * devices (completions checked):
 *   one     -- one RC QP, 48 64 B WRITEs (more than the outstanding table:
 *              its steps and ACKs alternate, each ACK right after its own
 *              QP's step, forwarded words);
 *   rr      -- 8 RC QPs, 12 WRITEs each posted round robin (an ACK after
 *              another QP's step: words read ahead);
 *   rr_drop -- the same with every 5th ACK lost (the ACK timers of the
 *              stepped QPs retransmit);
 *   idle    -- 4 QPs, one WRITE at a time every few cycles, every 3rd ACK
 *              lost: steps that arm their QP's ACK timer from idle, in the
 *              cycle a frame waits;
 *   uc      -- node 0 streams 24 WRITEs on a UC QP (no ACK: only its steps'
 *              busy set keeps it going) while node 1 streams on two RC QPs
 *              to node 0 (request frames waiting at its steps' ends);
 * each with the DMA write response after 1, 8 and 40 cycles.
 *
 *   rtl_step_handover [--width 64|512] [--engine rtl|lockstep|model] [CASE...]
 */
#include "rtl_ls.h"

enum { MSG = 64, NQ_MAX = 8 };

static unsigned int ack_n, drop_every;

/* node 1's ACKs: every drop_every-th lost on the wire */
static int drop_acks(struct rt_cap *cap, unsigned int src, const struct roce_pkt *p)
{
	(void)cap;
	if (drop_every && src == 1 && p->opcode == HCA_BTH_OP_RC_ACKNOWLEDGE)
		return ++ack_n % drop_every == 0;
	return 0;
}

static void post_write_on(struct rt *t, unsigned int node, struct tb_qp *qp, unsigned int k, unsigned int i)
{
	struct tb_sge s = rt_sge(t->mr[node], (uint64_t)(k * 64 + i) * MSG, MSG);
	struct tb_send_wr w = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				.raddr = t->mr[!node]->va + 0x80000 + (uint64_t)(k * 64 + i) * MSG,
				.rkey = t->mr[!node]->rkey };

	tb_post_send(qp, &w);
}

static void post_write(struct rt *t, struct tb_qp *qp, unsigned int k, unsigned int i)
{
	post_write_on(t, 0, qp, k, i);
}

static void run(const char *name, unsigned int nq, unsigned int per, unsigned int drop, bool trickle,
		unsigned int wr_lat, bool uc)
{
	static char opt[32];
	const char *saved = rt_options;
	struct rt t;
	struct tb_qp *q[NQ_MAX], *peer[NQ_MAX];
	struct hca_cqe c;
	unsigned int done = 0, good = 0, want = nq * per;
	char what[96];
	int r;

	if (strcmp(engine, "model")) {
		snprintf(opt, sizeof(opt), "%swr_lat=%u", strcmp(engine, "lockstep") ? "" : "dut.", wr_lat);
		rt_options = opt;
	}
	r = setup_objs(&t, 10);
	rt_options = saved;
	if (r) {
		CHECK(0, "setup");
		return;
	}
	ack_n = 0;
	drop_every = drop;
	t.cap.drop = drop_acks;
	rt_fill(t.mr[0]->buf, NQ_MAX * 64 * MSG, (int)(wr_lat + nq));
	for (unsigned int k = 0; k < nq; k++) {
		uint8_t ty = uc && k == 0 ? HCA_QPT_UC : HCA_QPT_RC;

		q[k] = tb_qp_create(t.n[0], ty, t.pd[0], t.scq[0], t.rcq[0], NULL, NULL);
		peer[k] = tb_qp_create(t.n[1], ty, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
		tb_connect_pair(q[k], peer[k], NULL);
	}
	t.qp[0] = q[0];
	t.qp[1] = peer[0];
	for (unsigned int i = 0; i < per; i++)
		for (unsigned int k = 0; k < nq; k++) {
			/* uc: node 0 sends on its UC QP 0, node 1 on the RC QPs */
			if (uc && k > 0)
				post_write_on(&t, 1, peer[k], k, i);
			else
				post_write(&t, q[k], k, i);
			if (trickle)
				tb_run_for(t.tb, 5 + (i * nq + k) % 7);
		}
	for (unsigned int n = 0; n < (uc ? 2u : 1u); n++) {
		unsigned int w = uc ? (n ? (nq - 1) * per : per) : want;

		for (unsigned int got = 0; got < w && tb_cq_wait(t.scq[n], &c, RT_WAIT); got++) {
			done++;
			good += c.status == HCA_WC_SUCCESS;
		}
	}
	snprintf(what, sizeof(what), "%s, wr_lat %u", name, wr_lat);
	CHECK(good == want, "%s: %u of %u WRITEs complete", what, good, want);
	tb_run(t.tb, RT_WAIT);		/* (UC: the data lands after the send completes) */
	CHECK(!memcmp(t.mr[1]->buf + 0x80000, t.mr[0]->buf, (size_t)per * MSG), "%s: QP 0's data arrived", what);
	finish(&t, what);
	for (unsigned int k = 1; k < nq; k++) {
		free(q[k]);
		free(peer[k]);
	}
}

int main(int argc, char **argv)
{
	static const unsigned int lat[] = { 1, 8, 40 };

	rt_ls_start(argc, argv);
	for (unsigned int e = 0; e < rt_ls_passes(); e++) {
		rt_ls_pass(e);
		printf("engine %s\n", engine);
		for (unsigned int l = 0; l < 3; l++) {
			if (rt_ls_want("one"))
				run("one", 1, 48, 0, false, lat[l], false);
			if (rt_ls_want("rr"))
				run("rr", 8, 12, 0, false, lat[l], false);
			if (rt_ls_want("rr_drop"))
				run("rr_drop", 8, 12, 5, false, lat[l], false);
			if (rt_ls_want("idle"))
				run("idle", 4, 10, 3, true, lat[l], false);
			if (rt_ls_want("uc"))
				run("uc", 3, 24, 0, false, lat[l], true);
		}
	}
	return check_done();
}
