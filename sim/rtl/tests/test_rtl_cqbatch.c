// SPDX-License-Identifier: MIT
/*
 * CQE batches (docs/rtl.md "CQE batches"): while an ACK's posted CQE write is
 * outstanding, the CQEs of the next ACKs on the same CQ are reserved and
 * written together as ONE DMA write when the outstanding one comes back
 * good.  Host memory faults a DMA write whole, so a batch whose write faults
 * is written again CQE by CQE to find the first faulting one: the ones
 * before it land, it and every later one are lost (the CQ in error), each
 * applied to its QP in post order as the model does (model/cq.c
 * model_cq_post, model/qp.c post_send_cqe: CQ_ERR at the first faulting
 * CQE, then QP_FATAL for each lost completion's QP, in the order of the
 * ACKs).  On two "lockstep" devices (reference: the C model, DUT: the RTL;
 * any difference in frames, CQEs, EQEs or events is a divergence), with the
 * DMA write response after the harness's default 8 cycles and after 300
 * (the other ACKs then arrive while A's CQE write is outstanding: a batch).
 * Node 0's send CQ is shared by RC QPs A, B, C; its ring has `good` slots
 * mapped (the end of a page) and the rest not.  WRITEs of A, B and C are
 * posted together, without payload (node 1 ACKs them at once, so the three
 * ACKs come back to back), and their CQEs take slots 0, 1, 2 in the ACKs'
 * order; the QP of the last ACK (Z) gets a second WRITE posted 100 cycles after
 * that ACK reached node 0 (its CQE pending): Z must send nothing more once
 * its completion is lost (the model's Z is in ERR by then: flushed).
 *   out_faults   -- good 0: the first ACK's own write faults; the batched
 *                   CQEs of the other two are lost to the CQ in error.
 *                   Events CQ_ERR, QP_FATAL of the three, in ACK order.
 *   first_faults -- good 1: the first CQE lands, the batch of the other two
 *                   faults at its first CQE: CQ_ERR, QP_FATAL of both.
 *   last_faults  -- good 2: the first two CQEs land (the batch replayed),
 *                   the batch's second faults: CQ_ERR, QP_FATAL of its QP;
 *                   the other two stay in RTS.
 *
 *   rtl_cqbatch [--width 64|512] [--engine rtl|lockstep|model] [--options K=V,...] [CASE...]
 */
#include "rtl_ls.h"

enum { MSG = 64, NQ = 3 };

/* A WRITE without payload: node 1 ACKs it at once (no payload write to
 * wait for), so the three ACKs come back to back. */
static void post_write(struct rt *t, struct tb_qp *qp, unsigned int i)
{
	struct tb_send_wr w = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .num_sge = 0,
				.raddr = t->mr[1]->va + (uint64_t)i * MSG, .rkey = t->mr[1]->rkey };

	tb_post_send(qp, &w);
}

static void batch(const char *name, unsigned int good, unsigned int wr_lat)
{
	struct rt t;
	struct tb_qp *q[NQ], *peer[NQ];
	struct hca_cqe *ring;
	struct hca_cqc c;
	uint8_t ty[6] = { 0 };
	uint32_t el[6] = { 0 }, order[NQ] = { 0 };
	unsigned int n = 0, acks = 0, cap0, c_writes = 0, want_ev, z = 0;
	char opt[32], what[96];

	snprintf(opt, sizeof(opt), "wr_lat=%u", wr_lat);
	setup_harness_opt(&t, NULL, NULL, opt);
	ring = rt_move_send_cq(&t, good);
	q[0] = t.qp[0];
	peer[0] = NULL;
	for (unsigned int k = 1; k < NQ; k++) {
		q[k] = tb_qp_create(t.n[0], HCA_QPT_RC, t.pd[0], t.scq[0], t.rcq[0], NULL, NULL);
		peer[k] = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
		tb_connect_pair(q[k], peer[k], NULL);
	}
	tb_evt_clear(t.n[0]);
	cap0 = t.cap.n;
	for (unsigned int k = 0; k < NQ; k++)
		post_write(&t, q[k], k);
	/* the ACKs' order (the CQEs' slots); the last one's QP (Z) gets a
	 * second WRITE right after its ACK reached node 0 */
	for (unsigned int guard = 0; guard < 20000 && acks < NQ; guard++) {
		acks = 0;
		for (unsigned int i = cap0; i < t.cap.n; i++)
			if (t.cap.src[i] == 1 && t.cap.pkt[i].opcode == HCA_BTH_OP_RC_ACKNOWLEDGE && acks < NQ)
				order[acks++] = t.cap.pkt[i].dqpn;
		if (acks < NQ)
			tb_run_for(t.tb, 4);
	}
	for (unsigned int k = 0; k < NQ; k++)
		if (acks == NQ && q[k]->qpn == order[NQ - 1])
			z = k;
	rt_run_past_ack(&t, cap0, q[z]->qpn, 100);	/* its ACK in (64 bits: 25G-paced frames) */
	post_write(&t, q[z], NQ);		/* Z's second WRITE, its first CQE pending */
	tb_run(t.tb, RT_WAIT);
	for (unsigned int i = cap0; i < t.cap.n; i++)
		if (t.cap.src[i] == 0 && t.cap.pkt[i].opcode != HCA_BTH_OP_RC_ACKNOWLEDGE &&
		    t.cap.pkt[i].dqpn == (z ? peer[z]->qpn : t.qp[1]->qpn))
			c_writes++;
	CHECK_EQ(acks, NQ, "three ACKs");
	for (unsigned int k = 0; k < good && k < NQ; k++)
		CHECK(ring[k].status == HCA_WC_SUCCESS && ring[k].qpn == order[k] && ring[k].owner == 1,
		      "CQE %u in the ring (status %u, qpn 0x%x, owner %u)", k, ring[k].status, ring[k].qpn,
		      ring[k].owner);
	tb_ctx_read(t.n[0], HCA_CTX_TYPE_CQC, t.scq[0]->cqn, &c, sizeof(c));
	CHECK_EQ(c.error, 1, "send CQ in error");
	CHECK_EQ(c.pi, good, "the lost CQEs' slots taken back");
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_DMA_FAULT), 1, "one DMA fault");
	CHECK_EQ(c_writes, 1, "Z's first WRITE only (the second flushed)");
	while (n < 6 && tb_evt_pop(t.n[0], &ty[n], &el[n]))
		n++;
	want_ev = 1 + NQ - good;
	CHECK_EQ(n, want_ev, "events");
	for (unsigned int k = 0; k < n; k++)
		printf("  event %u: type %u elem 0x%x\n", k, ty[k], el[k]);
	CHECK(n >= 1 && ty[0] == HCA_EVENT_CQ_ERR && el[0] == t.scq[0]->cqn, "CQ_ERR first (%u/%u)", ty[0], el[0]);
	for (unsigned int k = good; k < NQ && 1 + k - good < n; k++)
		CHECK(ty[1 + k - good] == HCA_EVENT_QP_FATAL && el[1 + k - good] == order[k],
		      "event %u: QP_FATAL of the ACKs' QP %u (%u/0x%x, want 0x%x)", 1 + k - good, k, ty[1 + k - good],
		      el[1 + k - good], order[k]);
	for (unsigned int k = 0; k < NQ; k++) {
		unsigned int j = 0;

		while (j < NQ && q[j]->qpn != order[k])
			j++;
		if (j < NQ)
			CHECK_EQ(tb_qp_query(q[j]).cur_state, k < good ? HCA_QPS_RTS : HCA_QPS_ERR, "QP state");
	}
	snprintf(what, sizeof(what), "%s: %u good slots, ACKs of 3 QPs batched (wr_lat %u)", name, good, wr_lat);
	finish(&t, what);
	for (unsigned int k = 1; k < NQ; k++) {
		free(q[k]);
		free(peer[k]);
	}
}

int main(int argc, char **argv)
{
	static const unsigned int lat[] = { 8, 300 };

	rt_ls_start(argc, argv);
	for (unsigned int i = 0; i < 2; i++) {
		if (rt_ls_want("out_faults"))
			batch("out_faults", 0, lat[i]);
		if (rt_ls_want("first_faults"))
			batch("first_faults", 1, lat[i]);
		if (rt_ls_want("last_faults"))
			batch("last_faults", 2, lat[i]);
	}
	return check_done();
}
