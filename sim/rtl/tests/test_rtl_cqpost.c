// SPDX-License-Identifier: MIT
/*
 * Posted CQE writes (docs/rtl.md "Posted CQE writes"): an ACK's completion
 * posts its CQE write and the ACK item goes on while the write's response
 * is outstanding.  A CQE write that faults must still give the model's
 * result (model/cq.c model_cq_post, model/qp.c post_send_cqe): the CQ in
 * error with its slot taken back, CQ_ERR, the completion lost, the QP moved
 * to ERR with QP_FATAL -- and whatever comes after it in the model's order
 * sees that.  On two "lockstep" devices (reference: the C model, DUT: the
 * RTL; any difference in frames, CQEs, EQEs or events is a divergence),
 * with the DMA write response after the harness's default 8 cycles and
 * after 300 (the next ACK is then in the device long before the response):
 *   next_qp     -- node 0's send CQ is shared by QPs A and B and its slot
 *                  2 faults (the ring's first 64 bytes mapped, nothing
 *                  after): A's third WRITE and B's first are posted
 *                  together, so the second of their ACKs arrives while the
 *                  first one's CQE write (slot 2) is outstanding.  Model:
 *                  the first ACK's CQE lost (CQ_ERR, QP_FATAL for its QP),
 *                  then the second's lost to the CQ in error (QP_FATAL for
 *                  the other QP), in the order of the ACKs on the wire; one
 *                  DMA fault, two CQEs in the ring.
 *   moved_cq    -- node 0's send CQ, after two completions, written again
 *                  with a ring elsewhere (the same CQN): the next two CQEs
 *                  land in the new ring's slots 2 and 3 (hca_cq_post keeps a copy of the
 *                  last CQC it read; a CQC write makes it stale).
 *   coalesced   -- one QP, the same CQ; the ACK of its third WRITE is
 *                  dropped, so the fourth WRITE's ACK covers the third and
 *                  the fourth: the third's CQE write faults, the QP goes to
 *                  ERR and the walk stops (model/comp.c ack_through), so
 *                  the fourth is never completed by that ACK; one CQ_ERR,
 *                  one QP_FATAL.
 *   read_behind -- as coalesced, with a READ between the third and the
 *                  fourth WRITE whose response is dropped too: the fourth
 *                  WRITE's ACK covers the READ's PSN, which would be an
 *                  implicit NAK (the READ resent) had the QP not gone to
 *                  ERR with the third WRITE's lost CQE; in the model it has,
 *                  so no frame follows.
 * The RTL ends an ACK item of a QP in RTS before its CQE write's response
 * (hca_comp_posted holds the engine: only other QPs' steps, which wait at
 * any CQE post, EQE post or QP-to-ERR until the outcome is applied):
 *   other_step  -- QP A's third CQE faults; a UC QP B on the same send CQ
 *                  gets a WRITE posted while A's write is outstanding (its
 *                  doorbell 40 cycles after A's ACK reached node 0): B's
 *                  step runs, its completion (lost to the CQ in error)
 *                  waits for A's outcome.  Events CQ_ERR, QP_FATAL A, then
 *                  QP_FATAL B (the model's order); both QPs in ERR.
 *   other_cq    -- as next_qp, but B's send CQ is another one and its two
 *                  WRITEs carry no payload (node 1 ACKs them at once): B's
 *                  ACKs, which start under A's hold (ACKs of another QP), do
 *                  not take A's outstanding write for its own; A's CQE is
 *                  lost (CQ_ERR, QP_FATAL A), B's completes on its own CQ
 *                  and B stays in RTS.
 *   same_qp     -- QP A's third CQE faults and A gets a fourth WRITE posted
 *                  while the write is outstanding: A's step waits for the
 *                  outcome, finds A in ERR and flushes it (no fourth WRITE
 *                  on the wire, as in the model).
 *
 *   rtl_cqpost [--width 64|512] [--engine rtl|lockstep|model] [--options K=V,...] [CASE...]
 */
#include "rtl_ls.h"

enum { MSG = 64, GOOD_SLOTS = 2 };

static void post_write(struct rt *t, struct tb_qp *qp, unsigned int i)
{
	struct tb_sge s = rt_sge(t->mr[0], (uint64_t)i * MSG, MSG);
	struct tb_send_wr w = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				.raddr = t->mr[1]->va + (uint64_t)i * MSG, .rkey = t->mr[1]->rkey };

	tb_post_send(qp, &w);
}

/* The first GOOD_SLOTS CQEs landed, SUCCESS, for WQEs 0 and 1 of `qpn`. */
static void check_good_cqes(const struct hca_cqe *ring, uint32_t qpn)
{
	for (unsigned int k = 0; k < GOOD_SLOTS; k++)
		CHECK(ring[k].status == HCA_WC_SUCCESS && ring[k].wqe_index == k && ring[k].qpn == qpn &&
		      ring[k].owner == 1, "CQE %u in the ring (status %u, wqe %u, qpn %u, owner %u)", k,
		      ring[k].status, ring[k].wqe_index, ring[k].qpn, ring[k].owner);
}

/* The send CQ in error with GOOD_SLOTS CQEs counted; one DMA fault. */
static void check_cq_failed(struct rt *t)
{
	struct hca_cqc c;

	tb_ctx_read(t->n[0], HCA_CTX_TYPE_CQC, t->scq[0]->cqn, &c, sizeof(c));
	CHECK_EQ(c.error, 1, "send CQ in error");
	CHECK_EQ(c.pi, GOOD_SLOTS, "the faulted CQE's slot taken back");
	CHECK_EQ(tb_stat(t->n[0], HCA_STAT_DMA_FAULT), 1, "one DMA fault");
}

static int setup_wr_lat(struct rt *t, unsigned int wr_lat)
{
	char opt[32];

	snprintf(opt, sizeof(opt), "wr_lat=%u", wr_lat);
	return setup_harness_opt(t, NULL, NULL, opt);
}

static void next_qp(unsigned int wr_lat)
{
	struct rt t;
	struct tb_qp *a, *b[2];
	struct hca_cqe *ring;
	uint8_t ty[4] = { 0 };
	uint32_t el[4] = { 0 }, first = 0, second = 0;
	unsigned int n = 0, acks = 0;
	char what[64];

	setup_wr_lat(&t, wr_lat);
	ring = rt_move_send_cq(&t, GOOD_SLOTS);
	a = t.qp[0];
	b[0] = tb_qp_create(t.n[0], HCA_QPT_RC, t.pd[0], t.scq[0], t.rcq[0], NULL, NULL);
	b[1] = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
	tb_connect_pair(b[0], b[1], NULL);
	rt_fill(t.mr[0]->buf, 8 * MSG, 41);
	tb_evt_clear(t.n[0]);
	for (unsigned int i = 0; i < GOOD_SLOTS; i++)
		post_write(&t, a, i);
	tb_run(t.tb, RT_WAIT);
	post_write(&t, a, GOOD_SLOTS);		/* its CQE faults */
	post_write(&t, b[0], 4);		/* its ACK right behind */
	tb_run(t.tb, RT_WAIT);
	check_good_cqes(ring, a->qpn);
	check_cq_failed(&t);
	/* the ACKs node 0 received: A's two good ones, then A's and B's third
	 * and fourth, in wire order */
	for (unsigned int i = 0; i < t.cap.n; i++)
		if (t.cap.src[i] == 1 && t.cap.pkt[i].opcode == HCA_BTH_OP_RC_ACKNOWLEDGE) {
			if (acks == GOOD_SLOTS)
				first = t.cap.pkt[i].dqpn;
			else if (acks == GOOD_SLOTS + 1)
				second = t.cap.pkt[i].dqpn;
			acks++;
		}
	CHECK(acks == 4 && ((first == a->qpn && second == b[0]->qpn) || (first == b[0]->qpn && second == a->qpn)),
	      "four ACKs, the last two for A and B (%u: 0x%x 0x%x)", acks, first, second);
	while (n < 4 && tb_evt_pop(t.n[0], &ty[n], &el[n]))
		n++;
	CHECK(n == 3 && ty[0] == HCA_EVENT_CQ_ERR && el[0] == t.scq[0]->cqn && ty[1] == HCA_EVENT_QP_FATAL &&
	      el[1] == first && ty[2] == HCA_EVENT_QP_FATAL && el[2] == second,
	      "events CQ_ERR, QP_FATAL of the first ACK's QP, of the second's (%u events: %u/%u %u/%u %u/%u)", n,
	      ty[0], el[0], ty[1], el[1], ty[2], el[2]);
	CHECK_EQ(tb_qp_query(a).cur_state, HCA_QPS_ERR, "QP A in ERR");
	CHECK_EQ(tb_qp_query(b[0]).cur_state, HCA_QPS_ERR, "QP B in ERR");
	CHECK(!memcmp(t.mr[1]->buf, t.mr[0]->buf, 3 * MSG) && !memcmp(t.mr[1]->buf + 4 * MSG, t.mr[0]->buf + 4 * MSG,
								      MSG), "the WRITEs' data placed");
	snprintf(what, sizeof(what), "CQE fault, the next QP's ACK behind it (wr_lat %u)", wr_lat);
	finish(&t, what);
	free(b[0]);
	free(b[1]);
}

/* Drop node 1's ACK of PSN drop_psn and its READ response of PSN
 * drop_rd_psn (each the first time). */
static uint32_t drop_psn, drop_rd_psn;
static int drop_ack_of(struct rt_cap *c, unsigned int src, const struct roce_pkt *p)
{
	(void)c;
	if (src == 1 && p->opcode == HCA_BTH_OP_RC_ACKNOWLEDGE && p->psn == drop_psn) {
		drop_psn = 0xffffffffu;
		return 1;
	}
	if (src == 1 && p->opcode == HCA_BTH_OP_RC_RDMA_READ_RESPONSE_ONLY && p->psn == drop_rd_psn) {
		drop_rd_psn = 0xffffffffu;
		return 1;
	}
	return 0;
}

/* Node 0's frames in the capture from entry `from` on. */
static unsigned int frames_from(struct rt *t, unsigned int from)
{
	unsigned int k = 0;

	for (unsigned int i = from; i < t->cap.n; i++)
		k += t->cap.src[i] == 0;
	return k;
}

static void coalesced(unsigned int wr_lat, bool read)
{
	struct rt t;
	struct hca_cqe *ring;
	uint8_t ty[3] = { 0 };
	uint32_t el[3] = { 0 };
	unsigned int n = 0, cap0;
	char what[80];

	setup_wr_lat(&t, wr_lat);
	ring = rt_move_send_cq(&t, GOOD_SLOTS);
	rt_fill(t.mr[0]->buf, 8 * MSG, 43);
	tb_evt_clear(t.n[0]);
	for (unsigned int i = 0; i < GOOD_SLOTS; i++)
		post_write(&t, t.qp[0], i);
	tb_run(t.tb, RT_WAIT);
	drop_psn = tb_qp_query(t.qp[0]).sq_psn_next & 0xffffff;
	drop_rd_psn = read ? (drop_psn + 1) & 0xffffff : 0xffffffffu;
	t.cap.drop = drop_ack_of;
	cap0 = t.cap.n;
	post_write(&t, t.qp[0], GOOD_SLOTS);	/* its ACK lost, its CQE faults */
	if (read) {				/* its response lost */
		struct tb_sge l = rt_sge(t.mr[0], 16 * MSG, MSG);
		struct tb_send_wr w = { .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = &l,
					.num_sge = 1, .raddr = t.mr[1]->va + 16 * MSG, .rkey = t.mr[1]->rkey };

		tb_post_send(t.qp[0], &w);
	}
	post_write(&t, t.qp[0], GOOD_SLOTS + 1);	/* its ACK covers them */
	tb_run(t.tb, RT_WAIT);
	CHECK(drop_psn == 0xffffffffu, "the third WRITE's ACK was dropped");
	if (read) {
		CHECK(drop_rd_psn == 0xffffffffu, "the READ's response was dropped");
		CHECK_EQ(frames_from(&t, cap0), 3, "no frame after the three requests (no READ resent)");
	}
	check_good_cqes(ring, t.qp[0]->qpn);
	check_cq_failed(&t);
	while (n < 3 && tb_evt_pop(t.n[0], &ty[n], &el[n]))
		n++;
	CHECK(n == 2 && ty[0] == HCA_EVENT_CQ_ERR && ty[1] == HCA_EVENT_QP_FATAL && el[1] == t.qp[0]->qpn,
	      "events CQ_ERR, QP_FATAL (%u events)", n);
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "QP in ERR");
	snprintf(what, sizeof(what), "CQE fault under a coalesced ACK%s (wr_lat %u)",
		 read ? ", a READ's response missing" : "", wr_lat);
	finish(&t, what);
}

/* The send CQ moved to a new ring after two completions. */
static void moved_cq(unsigned int wr_lat)
{
	struct rt t;
	struct hca_cqe *ring;
	char what[64];

	setup_wr_lat(&t, wr_lat);
	rt_fill(t.mr[0]->buf, 8 * MSG, 59);
	for (unsigned int i = 0; i < 2; i++)
		post_write(&t, t.qp[0], i);
	tb_run(t.tb, RT_WAIT);
	ring = rt_move_send_cq(&t, 16);	/* every slot mapped */
	for (unsigned int i = 2; i < 4; i++)
		post_write(&t, t.qp[0], i);
	tb_run(t.tb, RT_WAIT);
	/* a valid CQ rewritten keeps its indices (model/ctx.c ctx_write): slots 2, 3 */
	for (unsigned int k = 2; k < 4; k++)
		CHECK(ring[k].status == HCA_WC_SUCCESS && ring[k].wqe_index == k && ring[k].qpn == t.qp[0]->qpn &&
		      ring[k].owner == 1, "CQE %u in the new ring (status %u, wqe %u, owner %u)", k, ring[k].status,
		      ring[k].wqe_index, ring[k].owner);
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_DMA_FAULT), 0, "no DMA fault");
	snprintf(what, sizeof(what), "send CQ moved after two CQEs (wr_lat %u)", wr_lat);
	finish(&t, what);
}

/* As next_qp, B with a send CQ of its own: only A's completion is lost. */
static void other_cq(unsigned int wr_lat)
{
	struct rt t;
	struct tb_qp *a, *b[2];
	struct tb_cq *bcq;
	struct hca_cqe cqe;
	uint8_t ty[4] = { 0 };
	uint32_t el[4] = { 0 };
	unsigned int n = 0, got = 0, cap0;
	char what[64];

	setup_wr_lat(&t, wr_lat);
	rt_move_send_cq(&t, GOOD_SLOTS);
	a = t.qp[0];
	bcq = tb_cq_create(t.n[0], 4, NULL);
	b[0] = tb_qp_create(t.n[0], HCA_QPT_RC, t.pd[0], bcq, t.rcq[0], NULL, NULL);
	b[1] = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
	tb_connect_pair(b[0], b[1], NULL);
	rt_fill(t.mr[0]->buf, 8 * MSG, 53);
	tb_evt_clear(t.n[0]);
	for (unsigned int i = 0; i < GOOD_SLOTS; i++)
		post_write(&t, a, i);
	tb_run(t.tb, RT_WAIT);
	cap0 = t.cap.n;
	post_write(&t, a, GOOD_SLOTS);		/* its CQE faults */
	for (unsigned int guard = 0; guard < 5000 && frames_from(&t, cap0) == 0; guard++)
		tb_run_for(t.tb, 4);		/* A's request on the wire first */
	for (unsigned int i = 0; i < 2; i++) {	/* B's ACKs right behind (no payload write at node 1) */
		struct tb_send_wr w = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .num_sge = 0,
					.raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };

		tb_post_send(b[0], &w);
	}
	tb_run(t.tb, RT_WAIT);
	check_cq_failed(&t);
	while (tb_cq_poll(bcq, &cqe) > 0) {
		CHECK(cqe.status == HCA_WC_SUCCESS && cqe.qpn == b[0]->qpn && cqe.wqe_index == got,
		      "B's CQE %u (status %u, qpn 0x%x, wqe %u)", got, cqe.status, cqe.qpn, cqe.wqe_index);
		got++;
	}
	CHECK_EQ(got, 2, "B's two CQEs on its own CQ");
	while (n < 4 && tb_evt_pop(t.n[0], &ty[n], &el[n]))
		n++;
	CHECK(n == 2 && ty[0] == HCA_EVENT_CQ_ERR && el[0] == t.scq[0]->cqn && ty[1] == HCA_EVENT_QP_FATAL &&
	      el[1] == a->qpn, "events CQ_ERR, QP_FATAL A only (%u events: %u/%u %u/%u %u/%u)", n, ty[0], el[0],
	      ty[1], el[1], ty[2], el[2]);
	CHECK_EQ(tb_qp_query(a).cur_state, HCA_QPS_ERR, "QP A in ERR");
	CHECK_EQ(tb_qp_query(b[0]).cur_state, HCA_QPS_RTS, "QP B in RTS");
	snprintf(what, sizeof(what), "CQE fault, another CQ's ACK behind it (wr_lat %u)", wr_lat);
	finish(&t, what);
	free(b[0]);
	free(b[1]);
	free(bcq);
}

/* QP A's third CQE faults; while its write is outstanding, a WRITE is
 * posted on a UC QP B of the same send CQ (other_step) or on A itself. */
static void during_pending(unsigned int wr_lat, bool same)
{
	struct rt t;
	struct tb_qp *a, *b[2] = { NULL, NULL }, *q;
	uint8_t ty[4] = { 0 };
	uint32_t el[4] = { 0 };
	unsigned int n = 0, cap0, writes = 0;
	char what[80];

	setup_wr_lat(&t, wr_lat);
	rt_move_send_cq(&t, GOOD_SLOTS);
	a = t.qp[0];
	if (!same) {
		b[0] = tb_qp_create(t.n[0], HCA_QPT_UC, t.pd[0], t.scq[0], t.rcq[0], NULL, NULL);
		b[1] = tb_qp_create(t.n[1], HCA_QPT_UC, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
		tb_connect_pair(b[0], b[1], NULL);
	}
	q = same ? a : b[0];
	rt_fill(t.mr[0]->buf, 8 * MSG, 47);
	tb_evt_clear(t.n[0]);
	for (unsigned int i = 0; i < GOOD_SLOTS; i++)
		post_write(&t, a, i);
	tb_run(t.tb, RT_WAIT);
	cap0 = t.cap.n;
	post_write(&t, a, GOOD_SLOTS);		/* its CQE faults */
	rt_run_past_ack(&t, cap0, a->qpn, 40);
	post_write(&t, q, 4);			/* while the CQE write is outstanding */
	tb_run(t.tb, RT_WAIT);
	check_cq_failed(&t);
	for (unsigned int i = cap0; i < t.cap.n; i++)
		writes += t.cap.src[i] == 0 && t.cap.pkt[i].opcode != HCA_BTH_OP_RC_ACKNOWLEDGE;
	CHECK_EQ(writes, same ? 1 : 2, same ? "A's third WRITE only (the fourth flushed)" : "A's and B's WRITEs");
	while (n < 4 && tb_evt_pop(t.n[0], &ty[n], &el[n]))
		n++;
	if (same)
		CHECK(n == 2 && ty[0] == HCA_EVENT_CQ_ERR && ty[1] == HCA_EVENT_QP_FATAL && el[1] == a->qpn,
		      "events CQ_ERR, QP_FATAL A (%u events: %u/%u %u/%u)", n, ty[0], el[0], ty[1], el[1]);
	else
		CHECK(n == 3 && ty[0] == HCA_EVENT_CQ_ERR && el[0] == t.scq[0]->cqn && ty[1] == HCA_EVENT_QP_FATAL &&
		      el[1] == a->qpn && ty[2] == HCA_EVENT_QP_FATAL && el[2] == b[0]->qpn,
		      "events CQ_ERR, QP_FATAL A, QP_FATAL B (%u events: %u/%u %u/%u %u/%u)", n, ty[0], el[0], ty[1],
		      el[1], ty[2], el[2]);
	CHECK_EQ(tb_qp_query(a).cur_state, HCA_QPS_ERR, "QP A in ERR");
	if (!same)
		CHECK_EQ(tb_qp_query(b[0]).cur_state, HCA_QPS_ERR, "QP B in ERR");
	snprintf(what, sizeof(what), "CQE fault, a WRITE of %s posted meanwhile (wr_lat %u)",
		 same ? "the same QP" : "a UC QP on the CQ", wr_lat);
	finish(&t, what);
	free(b[0]);
	free(b[1]);
}

int main(int argc, char **argv)
{
	static const unsigned int lat[] = { 8, 300 };

	rt_ls_start(argc, argv);
	for (unsigned int i = 0; i < 2; i++) {
		if (rt_ls_want("next_qp"))
			next_qp(lat[i]);
		if (rt_ls_want("moved_cq"))
			moved_cq(lat[i]);
		if (rt_ls_want("other_cq"))
			other_cq(lat[i]);
		if (rt_ls_want("coalesced"))
			coalesced(lat[i], false);
		if (rt_ls_want("read_behind"))
			coalesced(lat[i], true);
		if (rt_ls_want("other_step"))
			during_pending(lat[i], false);
		if (rt_ls_want("same_qp"))
			during_pending(lat[i], true);
	}
	return check_done();
}
