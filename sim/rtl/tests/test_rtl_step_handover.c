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

/* setup_objs with the harness's DMA write response after wr_lat cycles, beside
 * --options (the rtl engine's option; dut.wr_lat under lockstep, none for
 * the model: ls_options_for) */
static int setup_wr_lat(struct rt *t, unsigned int wr_lat)
{
	static char opt[320];
	const char *saved = rt_options;
	int r;

	snprintf(opt, sizeof(opt), "%s%sdut.wr_lat=%u", saved ? saved : "", saved ? "," : "", wr_lat);
	rt_options = opt;
	r = setup_objs(t, 10);
	rt_options = saved;
	return r;
}

static void run(const char *name, unsigned int nq, unsigned int per, unsigned int drop, bool trickle,
		unsigned int wr_lat, bool uc)
{
	struct rt t;
	struct tb_qp *q[NQ_MAX], *peer[NQ_MAX];
	struct hca_cqe c;
	unsigned int done = 0, good = 0, want = nq * per;
	char what[96];
	int r;

	r = setup_wr_lat(&t, wr_lat);
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

/*
 * uc_long: node 0's UC QP 0 sends UC_MSGS WRITEs of UC_LEN bytes at PMTU 256
 * (UC_LEN / 256 packets each, one a step: after the first few WQEs' prefetch
 * wakes only the steps' own busy set keeps the QP going -- no ACK, no timer)
 * while node 1 streams 64 B WRITEs to node 0 on two RC QPs (request frames
 * offered at node 0's step ends: handovers).  A busy set landing in a
 * handover cycle for the frame's QP instead of the step's leaves the UC QP
 * stopped for good: its WRITEs never complete.
 */
enum { UC_MSGS = 3, UC_LEN = 4096, UC_PER = 16 };

static void uc_long(unsigned int wr_lat)
{
	struct rt t;
	struct tb_qp *q[3], *peer[3];
	struct tb_qp_attr a;
	struct hca_cqe c;
	unsigned int good0 = 0, good1 = 0;
	char what[96];

	snprintf(what, sizeof(what), "uc_long, wr_lat %u", wr_lat);
	if (setup_wr_lat(&t, wr_lat)) {
		CHECK(0, "setup");
		return;
	}
	tb_qp_attr_default(&a);
	a.path_mtu = HCA_MTU_256;
	rt_fill(t.mr[0]->buf, UC_MSGS * UC_LEN, (int)wr_lat);
	rt_fill(t.mr[1]->buf + 0x40000, 3 * 64 * MSG, (int)wr_lat + 1);
	for (unsigned int k = 0; k < 3; k++) {
		uint8_t ty = k == 0 ? HCA_QPT_UC : HCA_QPT_RC;

		q[k] = tb_qp_create(t.n[0], ty, t.pd[0], t.scq[0], t.rcq[0], NULL, NULL);
		peer[k] = tb_qp_create(t.n[1], ty, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
		tb_connect_pair(q[k], peer[k], &a);
	}
	t.qp[0] = q[0];
	t.qp[1] = peer[0];
	for (unsigned int i = 0; i < UC_MSGS; i++) {
		struct tb_sge sg = rt_sge(t.mr[0], (uint64_t)i * UC_LEN, UC_LEN);
		struct tb_send_wr w = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &sg,
					.num_sge = 1, .raddr = t.mr[1]->va + 0x80000 + (uint64_t)i * UC_LEN,
					.rkey = t.mr[1]->rkey };

		tb_post_send(q[0], &w);
	}
	for (unsigned int i = 0; i < UC_PER; i++)
		for (unsigned int k = 1; k < 3; k++) {
			struct tb_sge sg = rt_sge(t.mr[1], 0x40000 + (uint64_t)(k * 64 + i) * MSG, MSG);
			struct tb_send_wr w = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &sg,
						.num_sge = 1,
						.raddr = t.mr[0]->va + 0x40000 + (uint64_t)(k * 64 + i) * MSG,
						.rkey = t.mr[0]->rkey };

			tb_post_send(peer[k], &w);
		}
	for (unsigned int i = 0; i < 2 * UC_PER && tb_cq_wait(t.scq[1], &c, RT_WAIT); i++)
		good1 += c.status == HCA_WC_SUCCESS;
	for (unsigned int i = 0; i < UC_MSGS && tb_cq_wait(t.scq[0], &c, RT_WAIT / 8); i++)
		good0 += c.status == HCA_WC_SUCCESS;
	CHECK(good0 == UC_MSGS, "%s: node 0's %u of %u UC WRITEs (%u packets each) complete", what, good0, UC_MSGS,
	      UC_LEN / 256);
	CHECK(good1 == 2 * UC_PER, "%s: node 1's %u of %u RC WRITEs complete", what, good1, 2 * UC_PER);
	tb_run(t.tb, RT_WAIT);		/* (UC: the data lands after the send completes) */
	CHECK(!memcmp(t.mr[1]->buf + 0x80000, t.mr[0]->buf, (size_t)UC_MSGS * UC_LEN), "%s: the UC data arrived",
	      what);
	finish(&t, what);
	for (unsigned int k = 1; k < 3; k++) {
		free(q[k]);
		free(peer[k]);
	}
}

/*
 * arm_lost: node 0's RC QP 0 sends one 64 B WRITE at a time, each one's
 * first transmission lost on the wire, so only its ACK timer (armed by the
 * step that sends it, from idle) brings it back; every WRITE is posted a few
 * cycles (swept) after node 1 starts a burst of 64 B WRITEs to node 0 on two
 * other QPs, so request frames wait at node 0's step ends.  A timer arming
 * landing in a handover cycle arms the frame's QP (the item's qn then)
 * instead of the step's unless the handover is kept off then (ho_block):
 * the lost WRITE is never resent.
 */
enum { ARM_ROUNDS = 24, ARM_BURST = 4 };

static uint32_t arm_dqpn, arm_psn;
static bool arm_psn_v;

static int drop_first_send(struct rt_cap *cap, unsigned int src, const struct roce_pkt *p)
{
	(void)cap;
	if (src != 0 || p->dqpn != arm_dqpn || p->opcode != HCA_BTH_OP_RC_RDMA_WRITE_ONLY)
		return 0;
	if (arm_psn_v && p->psn == arm_psn)
		return 0;
	arm_psn = p->psn;
	arm_psn_v = true;
	return 1;
}

static void arm_lost(unsigned int wr_lat)
{
	struct rt t;
	struct tb_qp *q[3], *peer[3];
	struct tb_qp_attr a;
	struct hca_cqe c;
	unsigned int good0 = 0, good1 = 0, r;
	char what[96];

	snprintf(what, sizeof(what), "arm_lost, wr_lat %u", wr_lat);
	if (setup_wr_lat(&t, wr_lat)) {
		CHECK(0, "setup");
		return;
	}
	tb_qp_attr_default(&a);
	a.timeout = 1;			/* 2^11 cycles */
	for (unsigned int k = 0; k < 3; k++) {
		q[k] = tb_qp_create(t.n[0], HCA_QPT_RC, t.pd[0], t.scq[0], t.rcq[0], NULL, NULL);
		peer[k] = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
		tb_connect_pair(q[k], peer[k], &a);
	}
	t.qp[0] = q[0];
	t.qp[1] = peer[0];
	arm_dqpn = peer[0]->qpn;
	arm_psn_v = false;
	t.cap.drop = drop_first_send;
	for (r = 0; r < ARM_ROUNDS; r++) {
		unsigned int g1 = 0;

		for (unsigned int i = 0; i < ARM_BURST; i++)
			for (unsigned int k = 1; k < 3; k++)
				post_write_on(&t, 1, peer[k], k, (r * ARM_BURST + i) % 64);
		tb_run_for(t.tb, 100 + r * 20);
		post_write(&t, q[0], 0, r % 64);
		if (!tb_cq_wait(t.scq[0], &c, RT_WAIT / 8))
			break;
		good0 += c.status == HCA_WC_SUCCESS;
		while (g1 < 2 * ARM_BURST && tb_cq_wait(t.scq[1], &c, RT_WAIT / 8))
			g1 += c.status == HCA_WC_SUCCESS, good1++;
	}
	CHECK(good0 == ARM_ROUNDS, "%s: %u of %u WRITEs whose first send was lost complete (resent on their ACK "
	      "timer)", what, good0, ARM_ROUNDS);
	CHECK(good1 == 2 * ARM_BURST * ARM_ROUNDS, "%s: node 1's %u of %u WRITEs complete", what, good1,
	      2 * ARM_BURST * ARM_ROUNDS);
	t.cap.drop = NULL;
	finish(&t, what);
	for (unsigned int k = 1; k < 3; k++) {
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
			if (rt_ls_want("uc_long"))
				uc_long(lat[l]);
			if (rt_ls_want("arm_lost"))
				arm_lost(lat[l]);
		}
	}
	return check_done();
}
