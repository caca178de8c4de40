// SPDX-License-Identifier: MIT
/*
 * Queues and QP state (docs/programming.md 5, 6; wire.md 3.1): CQ overflow
 * (CQ_ERR + QP_FATAL), completion events for arm-next and arm-solicited
 * (the SE bit on the wire), arming counted from the consumer index, SRQ sharing, SRQ limit event, fence,
 * max_rd_atomic, SQD drain with SQ_DRAINED, ERR by firmware (flush, SRQ not
 * flushed, LAST_WQE_REACHED), RESET and INIT QPs drop traffic, COMM_EST;
 * engine EQEs into a full EQ, an SRQ ring that wraps, no event for a QP
 * firmware moves to ERR.
 */
#include "mt.h"

static struct mt_cap cap;

static void send_n(struct mt *t, int n, uint32_t len, uint8_t flags)
{
	struct tb_sge s = mt_sge(t->mr[0], 0, len);
	struct tb_send_wr wr = { .opcode = HCA_WR_SEND, .flags = flags, .sge = &s, .num_sge = 1 };

	for (int i = 0; i < n; i++)
		tb_post_send(t->qp[0], &wr);
}

static void post_recvs(struct mt *t, int n)
{
	for (int i = 0; i < n; i++) {
		struct tb_sge r = mt_sge(t->mr[1], (uint64_t)i * 4096, 4096);

		tb_post_recv(t->qp[1], &r, 1);
	}
}

static void cq_overflow(void)
{
	struct mt t;
	struct hca_cqc c;
	struct hca_cqe e;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	/* a 4-entry send CQ that nobody polls */
	t.scq[0] = (free(t.scq[0]), tb_cq_create(t.n[0], 2, NULL));
	t.qp[0]->qpc.send_cqn = t.scq[0]->cqn;
	tb_qp_modify(t.qp[0], HCA_QPS_RTS, 0);
	post_recvs(&t, 8);
	send_n(&t, 6, 10, HCA_SEND_SIGNALED);
	tb_run(t.tb, MT_WAIT);
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_CQ_OVERFLOW), 1, "one completion lost");
	tb_ctx_read(t.n[0], HCA_CTX_TYPE_CQC, t.scq[0]->cqn, &c, sizeof(c));
	CHECK_EQ(c.error, 1, "CQ error");
	CHECK_EQ(c.pi, 4, "4 CQEs written");
	CHECK(tb_evt_find(t.n[0], HCA_EVENT_CQ_ERR, t.scq[0]->cqn), "CQ_ERR");
	CHECK(tb_evt_find(t.n[0], HCA_EVENT_QP_FATAL, t.qp[0]->qpn), "QP_FATAL for the QP that lost it");
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "QP ERR");
	for (int i = 0; i < 4; i++)
		CHECK(t.scq[0]->ring[i].owner == 1 && t.scq[0]->ring[i].wqe_index == i, "CQE %d in the ring", i);
	/* polling does not revive an errored CQ */
	while (tb_cq_poll(t.scq[0], &e))
		;
	send_n(&t, 1, 10, HCA_SEND_SIGNALED);
	tb_run(t.tb, MT_WAIT);
	tb_ctx_read(t.n[0], HCA_CTX_TYPE_CQC, t.scq[0]->cqn, &c, sizeof(c));
	CHECK_EQ(c.pi, 4, "no CQE after the error");
	mt_teardown(&t);
}

static void completion_events(void)
{
	struct mt t;
	struct tb_eq *eq;
	struct hca_eqe e;
	struct hca_cqe c;
	int se;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	mt_cap_start(&t, &cap);
	eq = tb_eq_create(t.n[1], 6, 2);
	t.rcq[1] = (free(t.rcq[1]), tb_cq_create(t.n[1], 8, eq));
	t.qp[1]->qpc.recv_cqn = t.rcq[1]->cqn;
	tb_qp_modify(t.qp[1], HCA_QPS_RTS, 0);
	post_recvs(&t, 16);

	tb_cq_arm(t.rcq[1], true);
	send_n(&t, 1, 2500, 0);			/* not solicited */
	tb_run(t.tb, MT_WAIT);
	CHECK(tb_cq_poll(t.rcq[1], &c), "received");
	CHECK(!tb_eq_poll(eq, &e), "arm-solicited: no event for an unsolicited message");
	CHECK_EQ(t.n[1]->irq[2], 0, "no interrupt");
	send_n(&t, 1, 2500, HCA_SEND_SOLICITED);
	tb_run(t.tb, MT_WAIT);
	CHECK(tb_eq_poll(eq, &e), "arm-solicited: event for the solicited message");
	CHECK(e.type == HCA_EQE_TYPE_COMP && e.element == t.rcq[1]->cqn, "COMP EQE for the CQ");
	CHECK_EQ(t.n[1]->irq[2], 1, "MSI-X vector 2 fired");
	/* SE bit only on the last packet of the solicited SEND (3 packets at MTU 1024) */
	se = 0;
	for (unsigned int i = 0; i < cap.n; i++)
		if (cap.src[i] == 0 && cap.pkt[i].se) {
			se++;
			CHECK_EQ(cap.pkt[i].opcode, HCA_BTH_OP_RC_SEND_LAST, "SE on SEND_LAST");
		}
	CHECK_EQ(se, 1, "one packet with SE");
	/* disarmed after the event */
	send_n(&t, 1, 10, HCA_SEND_SOLICITED);
	tb_run(t.tb, MT_WAIT);
	CHECK(!tb_eq_poll(eq, &e), "disarmed: no second event");
	while (tb_cq_poll(t.rcq[1], &c))
		;
	/* arm-next: any completion */
	tb_eq_arm(eq);
	tb_cq_arm(t.rcq[1], false);
	send_n(&t, 1, 10, 0);
	tb_run(t.tb, MT_WAIT);
	CHECK(tb_eq_poll(eq, &e) && e.element == t.rcq[1]->cqn, "arm-next: event");
	CHECK_EQ(t.n[1]->irq[2], 2, "second interrupt");
	/* ARM_SOL after ARM does not weaken it */
	while (tb_cq_poll(t.rcq[1], &c))
		;
	tb_eq_arm(eq);
	tb_cq_arm(t.rcq[1], false);
	tb_cq_arm(t.rcq[1], true);
	send_n(&t, 1, 10, 0);
	tb_run(t.tb, MT_WAIT);
	CHECK(tb_eq_poll(eq, &e), "ARM then ARM_SOL: still arm-next");
	/* arm-solicited also fires for error completions */
	while (tb_cq_poll(t.rcq[1], &c))
		;
	tb_eq_arm(eq);
	tb_cq_arm(t.rcq[1], true);
	tb_qp_modify(t.qp[1], HCA_QPS_ERR, 0);
	tb_run(t.tb, MT_WAIT);
	CHECK(tb_cq_poll(t.rcq[1], &c) && c.status == HCA_WC_WR_FLUSH_ERR, "flush completion");
	CHECK(tb_eq_poll(eq, &e), "arm-solicited: event for an error completion");
	free(eq);
	mt_teardown(&t);
}

/* Count the COMP EQEs of `cq` waiting in `eq` (consumed). */
static int comp_events(struct tb_eq *eq, const struct tb_cq *cq)
{
	struct hca_eqe e;
	int n = 0;

	while (tb_eq_poll(eq, &e))
		if (e.type == HCA_EQE_TYPE_COMP && e.element == cq->cqn)
			n++;
	return n;
}

static uint8_t cq_arm_state(struct mt *t, const struct tb_cq *cq)
{
	struct hca_cqc c;

	tb_ctx_read(t->n[1], HCA_CTX_TYPE_CQC, cq->cqn, &c, sizeof(c));
	return c.arm;
}

/*
 * Arming counts "next" from the doorbell's consumer index (spec CQ_ARM):
 * CQEs the consumer has not seen raise the event at once, one event per
 * arm; a fully drained CQ stays armed for the next CQE.
 */
static void arm_from_consumer_index(void)
{
	struct mt t;
	struct tb_eq *eq;
	struct hca_cqe c;
	struct hca_cqc cc;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	eq = tb_eq_create(t.n[1], 6, 2);
	t.rcq[1] = (free(t.rcq[1]), tb_cq_create(t.n[1], 8, eq));
	t.qp[1]->qpc.recv_cqn = t.rcq[1]->cqn;
	tb_qp_modify(t.qp[1], HCA_QPS_RTS, 0);
	post_recvs(&t, 16);

	tb_cq_arm(t.rcq[1], false);
	send_n(&t, 3, 10, 0);
	tb_run(t.tb, MT_WAIT);
	CHECK_EQ(comp_events(eq, t.rcq[1]), 1, "armed: one event for three CQEs");
	CHECK_EQ(cq_arm_state(&t, t.rcq[1]), HCA_CQ_ARM_NONE, "disarmed by the event");
	/* nothing polled: arming with ci 0 finds three CQEs */
	tb_cq_arm(t.rcq[1], false);
	tb_run(t.tb, MT_WAIT);
	CHECK_EQ(comp_events(eq, t.rcq[1]), 1, "arm behind unconsumed CQEs: event at once");
	CHECK_EQ(cq_arm_state(&t, t.rcq[1]), HCA_CQ_ARM_NONE, "that event disarms");
	/* every arm raises at most one event, and each one raises its own */
	tb_cq_arm(t.rcq[1], false);
	tb_cq_arm(t.rcq[1], false);
	tb_run(t.tb, MT_WAIT);
	CHECK_EQ(comp_events(eq, t.rcq[1]), 2, "two arms behind unconsumed CQEs: two events");
	/* drained: armed for the next CQE only */
	while (tb_cq_poll(t.rcq[1], &c))
		;
	tb_cq_arm(t.rcq[1], false);
	tb_run(t.tb, MT_WAIT);
	CHECK_EQ(comp_events(eq, t.rcq[1]), 0, "drained CQ: no event at arm");
	CHECK_EQ(cq_arm_state(&t, t.rcq[1]), HCA_CQ_ARM_NEXT, "armed next");
	send_n(&t, 1, 10, 0);
	tb_run(t.tb, MT_WAIT);
	CHECK_EQ(comp_events(eq, t.rcq[1]), 1, "next CQE: event");
	CHECK(tb_cq_poll(t.rcq[1], &c), "its CQE");

	/* arm-solicited: an unconsumed solicited CQE after the consumer index fires */
	send_n(&t, 1, 10, 0);
	send_n(&t, 1, 10, HCA_SEND_SOLICITED);
	send_n(&t, 1, 10, 0);
	tb_run(t.tb, MT_WAIT);
	CHECK_EQ(comp_events(eq, t.rcq[1]), 0, "disarmed: no events");
	tb_ctx_read(t.n[1], HCA_CTX_TYPE_CQC, t.rcq[1]->cqn, &cc, sizeof(cc));
	CHECK_EQ(cc.sol_pi, (uint16_t)(cc.pi - 1), "sol_pi: after the solicited CQE");
	CHECK(tb_cq_poll(t.rcq[1], &c), "the unsolicited one polled");
	tb_cq_arm(t.rcq[1], true);
	tb_run(t.tb, MT_WAIT);
	CHECK_EQ(comp_events(eq, t.rcq[1]), 1, "arm-solicited behind an unconsumed solicited CQE: event at once");
	CHECK(tb_cq_poll(t.rcq[1], &c), "the solicited one polled");
	tb_cq_arm(t.rcq[1], true);
	tb_run(t.tb, MT_WAIT);
	CHECK_EQ(comp_events(eq, t.rcq[1]), 0, "only unsolicited CQEs after the index: no event");
	CHECK_EQ(cq_arm_state(&t, t.rcq[1]), HCA_CQ_ARM_SOLICITED, "armed solicited");
	tb_cq_arm(t.rcq[1], false);
	tb_run(t.tb, MT_WAIT);
	CHECK_EQ(comp_events(eq, t.rcq[1]), 1, "arm-next behind the unconsumed unsolicited CQE: event");
	free(eq);
	mt_teardown(&t);
}

static void srq(void)
{
	struct mt t;
	struct tb_srq *srq;
	struct tb_qp *q1b, *q0b;
	struct hca_cqe c;
	struct hca_srqc sc;
	struct tb_sge s;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	srq = tb_srq_create(t.n[1], t.pd[1], 4, 2, 0);
	/* two responder QPs on the SRQ */
	free(t.qp[1]);
	t.qp[1] = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.scq[1], t.rcq[1], srq, NULL);
	q1b = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.scq[1], t.rcq[1], srq, NULL);
	q0b = tb_qp_create(t.n[0], HCA_QPT_RC, t.pd[0], t.scq[0], t.rcq[0], NULL, NULL);
	CHECK(tb_connect_pair(t.qp[0], t.qp[1], NULL) == 0 && tb_connect_pair(q0b, q1b, NULL) == 0, "connect");
	for (int i = 0; i < 6; i++) {
		struct tb_sge r[2] = { mt_sge(t.mr[1], (uint64_t)i * 8192, 100), mt_sge(t.mr[1], (uint64_t)i * 8192 + 4096, 4000) };

		tb_srq_post(srq, r, 2);
	}
	tb_srq_set_limit(srq, 3);
	tb_evt_clear(t.n[1]);
	s = mt_sge(t.mr[0], 0, 300);
	mt_fill(t.mr[0]->buf, 300, 11);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };

		tb_post_send(t.qp[0], &wr);
		tb_run(t.tb, MT_WAIT);
		tb_post_send(q0b, &wr);
		tb_run(t.tb, MT_WAIT);
		tb_post_send(t.qp[0], &wr);
		tb_run(t.tb, MT_WAIT);
	}
	for (int i = 0; i < 3; i++) {
		CHECK(tb_cq_poll(t.rcq[1], &c), "SRQ receive %d", i);
		CHECK_EQ(c.wqe_index, i, "SRQ WQEs consumed in ring order");
		CHECK_EQ(c.is_srq, 1, "is_srq");
		CHECK_EQ(c.qpn, i == 1 ? q1b->qpn : t.qp[1]->qpn, "by whichever QP needed one");
		CHECK_EQ(c.byte_len, 300, "byte_len");
	}
	CHECK(mt_check(t.mr[1]->buf + 8192, 100, 11) && mt_check(t.mr[1]->buf + 8192 + 4096 - 100 + 100, 0, 11),
	      "scattered into the SRQ WQE's SGEs");
	CHECK(memcmp(t.mr[1]->buf + 8192 + 4096, t.mr[0]->buf + 100, 200) == 0, "second SGE");
	tb_ctx_read(t.n[1], HCA_CTX_TYPE_SRQC, srq->srqn, &sc, sizeof(sc));
	CHECK_EQ(sc.ci, 3, "SRQ ci");
	CHECK_EQ(sc.armed, 1, "3 left, limit 3: not yet below");
	CHECK_EQ(mt_evt_count(t.n[1], HCA_EVENT_SRQ_LIMIT_REACHED, srq->srqn), 0, "no limit event yet");
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };

		tb_post_send(t.qp[0], &wr);
		tb_post_send(t.qp[0], &wr);
	}
	tb_run(t.tb, MT_WAIT);
	tb_ctx_read(t.n[1], HCA_CTX_TYPE_SRQC, srq->srqn, &sc, sizeof(sc));
	CHECK_EQ(sc.armed, 0, "disarmed");
	CHECK_EQ(mt_evt_count(t.n[1], HCA_EVENT_SRQ_LIMIT_REACHED, srq->srqn), 1, "one SRQ_LIMIT_REACHED");
	/* a QP on the SRQ entering ERR: LAST_WQE_REACHED; SRQ WQEs are not flushed */
	while (tb_cq_poll(t.rcq[1], &c))
		;
	tb_qp_modify(t.qp[1], HCA_QPS_ERR, 0);
	tb_run(t.tb, MT_WAIT);
	CHECK(tb_evt_find(t.n[1], HCA_EVENT_QP_LAST_WQE_REACHED, t.qp[1]->qpn), "LAST_WQE_REACHED");
	CHECK(!tb_cq_poll(t.rcq[1], &c), "SRQ WQEs not flushed");
	tb_ctx_read(t.n[1], HCA_CTX_TYPE_SRQC, srq->srqn, &sc, sizeof(sc));
	CHECK_EQ(sc.pi - sc.ci, 1, "the last SRQ WQE is still there");
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };

		tb_post_send(q0b, &wr);
	}
	tb_run(t.tb, MT_WAIT);
	CHECK(tb_cq_poll(t.rcq[1], &c) && c.qpn == q1b->qpn && c.wqe_index == 5, "the other QP still uses it");
	free(q1b);
	free(q0b);
	free(srq);
	mt_teardown(&t);
}

static int first_index(unsigned int src, int opcode)
{
	return mt_cap_find(&cap, src, opcode, -1);
}

static void fence_and_rd_atomic(void)
{
	struct tb_qp_attr a;
	struct mt t;
	struct tb_sge s, d;
	int ir, is, iresp;

	for (int fence = 0; fence < 2; fence++) {
		mt_setup(&t, HCA_QPT_RC, NULL, NULL);
		mt_cap_start(&t, &cap);
		post_recvs(&t, 1);
		d = mt_sge(t.mr[0], 100000, 2000);
		s = mt_sge(t.mr[0], 0, 10);
		{
			struct tb_send_wr rd = { .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = &d,
						 .num_sge = 1, .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
			struct tb_send_wr sd = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED | (fence ? HCA_SEND_FENCE : 0),
						 .sge = &s, .num_sge = 1 };

			tb_post_send(t.qp[0], &rd);
			tb_post_send(t.qp[0], &sd);
		}
		tb_run(t.tb, MT_WAIT);
		ir = first_index(0, HCA_BTH_OP_RC_RDMA_READ_REQUEST);
		is = first_index(0, HCA_BTH_OP_RC_SEND_ONLY);
		iresp = first_index(1, HCA_BTH_OP_RC_RDMA_READ_RESPONSE_LAST);
		CHECK(ir >= 0 && is >= 0 && iresp >= 0, "frames seen");
		if (fence)
			CHECK(cap.when[is] >= cap.when[iresp] + 250, "FENCE: SEND after the READ completed (%llu vs %llu)",
			      (unsigned long long)cap.when[is], (unsigned long long)cap.when[iresp]);
		else
			CHECK(cap.when[is] == cap.when[ir], "no fence: SEND right behind the READ request");
		mt_teardown(&t);
	}

	tb_qp_attr_default(&a);
	a.max_rd_atomic = 2;
	mt_setup(&t, HCA_QPT_RC, &a, NULL);
	mt_cap_start(&t, &cap);
	d = mt_sge(t.mr[0], 100000, 100);
	for (int i = 0; i < 5; i++) {
		struct tb_send_wr rd = { .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = &d,
					 .num_sge = 1, .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };

		tb_post_send(t.qp[0], &rd);
	}
	tb_run(t.tb, MT_WAIT);
	{
		unsigned int at0 = 0, total = 0;

		for (unsigned int i = 0; i < cap.n; i++)
			if (cap.src[i] == 0 && cap.pkt[i].opcode == HCA_BTH_OP_RC_RDMA_READ_REQUEST) {
				total++;
				at0 += cap.when[i] == 0;
			}
		CHECK_EQ(at0, 2, "max_rd_atomic 2: two READs outstanding at first");
		CHECK_EQ(total, 5, "all five sent eventually");
	}
	for (int i = 0; i < 5; i++) {
		struct hca_cqe c;

		CHECK(tb_cq_poll(t.scq[0], &c) && c.status == 0 && c.wqe_index == i, "READ %d completed in order", i);
	}
	mt_teardown(&t);
}

static void sqd_drain(void)
{
	struct tb_qp_attr a;
	struct mt t;
	struct tb_sge s;
	struct hca_qpc q;
	struct hca_cqe c;
	int n_before;

	tb_qp_attr_default(&a);
	a.sqd_notify = true;
	mt_setup(&t, HCA_QPT_RC, &a, NULL);
	mt_cap_start(&t, &cap);
	s = mt_sge(t.mr[0], 0, 20000);
	for (int i = 0; i < 3; i++) {
		struct tb_send_wr wr = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s,
					 .num_sge = 1, .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };

		tb_post_send(t.qp[0], &wr);
	}
	tb_step(t.tb, MT_WAIT);		/* the engine starts the WQEs */
	tb_evt_clear(t.n[0]);
	tb_qp_modify(t.qp[0], HCA_QPS_SQD, 0);
	q = tb_qp_query(t.qp[0]);
	CHECK_EQ(q.cur_state, HCA_QPS_SQD, "SQD");
	CHECK_EQ(q.sq_draining, 1, "draining");
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s,
					 .num_sge = 1, .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };

		tb_post_send(t.qp[0], &wr);	/* posted in SQD: not started */
	}
	tb_run(t.tb, MT_WAIT);
	q = tb_qp_query(t.qp[0]);
	CHECK_EQ(q.sq_draining, 0, "drained");
	CHECK_EQ(q.sq_ci, 3, "the three started WQEs completed");
	CHECK(tb_evt_find(t.n[0], HCA_EVENT_SQ_DRAINED, t.qp[0]->qpn), "SQ_DRAINED");
	n_before = (int)mt_cap_count(&cap, 0, -1, -1);
	CHECK_EQ(n_before, 3 * 20, "3 WRITEs of 20 packets, nothing of the 4th");
	for (int i = 0; i < 3; i++)
		CHECK(tb_cq_poll(t.scq[0], &c) && c.status == 0, "completion %d", i);
	tb_qp_modify(t.qp[0], HCA_QPS_RTS, 0);
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == 0 && c.wqe_index == 3, "SQD->RTS resumes");
	mt_teardown(&t);
}

static void reset_init_drop(void)
{
	struct mt t;
	uint32_t db0, noqp;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	post_recvs(&t, 2);
	/* responder back to INIT: requests are dropped as "no QP" */
	tb_qp_modify(t.qp[1], HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK);
	tb_qp_modify(t.qp[1], HCA_QPS_INIT, HCA_QPC_FLAGS_RESET_STATE_MASK);
	noqp = tb_stat(t.n[1], HCA_STAT_RX_DROP_NO_QP);
	send_n(&t, 1, 10, HCA_SEND_SIGNALED);
	tb_run_for(t.tb, 10000);
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_RX_DROP_NO_QP), noqp + 1, "INIT QP drops packets");
	/* RESET: doorbells ignored and counted */
	db0 = tb_stat(t.n[1], HCA_STAT_DB_ERR);
	tb_qp_modify(t.qp[1], HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK);
	post_recvs(&t, 1);
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_DB_ERR), db0 + 1, "doorbell to a RESET QP counted");
	CHECK_EQ(tb_qp_query(t.qp[1]).rq_pi, 0, "and ignored");
	/* COMM_EST: an RTR QP's first packet */
	tb_evt_clear(t.n[1]);
	{
		struct tb_qp_attr a;

		tb_qp_attr_default(&a);
		t.qp[1]->rq_pi = 0;
		tb_qp_connect(t.qp[1], t.qp[0], &a);
		tb_qp_modify(t.qp[1], HCA_QPS_RTR, 0);
		t.qp[1]->qpc.state = HCA_QPS_RTR;
	}
	post_recvs(&t, 1);
	tb_run(t.tb, MT_WAIT);	/* the requester retransmits (timeout) into the RTR QP */
	CHECK(tb_evt_find(t.n[1], HCA_EVENT_COMM_EST, t.qp[1]->qpn), "COMM_EST in RTR");
	CHECK(tb_cq_poll(t.rcq[1], NULL), "RTR receives");
	/* RESET -> ERR (any -> ERR is legal): WQEs posted then are flushed */
	{
		struct hca_cqe c;

		while (tb_cq_poll(t.scq[0], &c))
			;
		tb_qp_modify(t.qp[0], HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK);
		t.qp[0]->sq_pi = 0;
		tb_qp_modify(t.qp[0], HCA_QPS_ERR, 0);
		CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "RESET -> ERR");
		send_n(&t, 1, 10, 0);
		CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_WR_FLUSH_ERR && c.wqe_index == 0,
		      "flushed in ERR");
	}
	mt_teardown(&t);
}

/*
 * An EQ of 4 entries that nobody polls takes the completion events of 5
 * arm/receive rounds: 4 EQEs are written, the 5th is dropped and counted
 * (reference.md HCA_STAT_EQ_OVERFLOW: EQEs dropped because their EQ was
 * full; programming.md 5.5).
 */
static void eq_overflow_by_engine(void)
{
	struct mt t;
	struct tb_eq *eq;
	struct hca_eqe e;
	struct hca_cqe c;
	int got = 0;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	eq = tb_eq_create(t.n[1], 2, 2);
	t.rcq[1] = (free(t.rcq[1]), tb_cq_create(t.n[1], 8, eq));
	t.qp[1]->qpc.recv_cqn = t.rcq[1]->cqn;
	tb_qp_modify(t.qp[1], HCA_QPS_RTS, 0);
	post_recvs(&t, 8);
	for (int i = 0; i < 5; i++) {
		tb_cq_arm(t.rcq[1], false);
		send_n(&t, 1, 16, 0);
		tb_run(t.tb, MT_WAIT);
		CHECK(tb_cq_poll(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS, "receive %d", i);
	}
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_EQ_OVERFLOW), 1, "the 5th completion event overflows the 4-entry EQ");
	while (tb_eq_poll(eq, &e) && got < 8)
		got++;
	CHECK_EQ(got, 4, "4 EQEs in the ring");
	mt_teardown(&t);
	free(eq);
}

/*
 * An SRQ of 4 entries used 10 times round its ring (one WQE posted per
 * message, each with its own buffer): every message lands in the buffer of
 * its WQE, named by its free-running wqe_index, the ring slot wraps
 * (programming.md 5.2, 5.3).
 */
static void srq_ring_wrap(void)
{
	struct mt t;
	struct tb_srq *srq;
	struct hca_cqe c;
	struct tb_sge s;
	int ok = 1;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	srq = tb_srq_create(t.n[1], t.pd[1], 2, 1, 0);
	free(t.qp[1]);
	t.qp[1] = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.scq[1], t.rcq[1], srq, NULL);
	CHECK(tb_connect_pair(t.qp[0], t.qp[1], NULL) == 0, "connect");
	for (int i = 0; i < 10 && ok; i++) {
		struct tb_sge r = mt_sge(t.mr[1], (uint64_t)i * 4096, 256);
		struct tb_send_wr wr = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };

		tb_srq_post(srq, &r, 1);
		s = mt_sge(t.mr[0], (uint64_t)i * 256, 200);
		mt_fill(t.mr[0]->buf + i * 256, 200, 40 + i);
		tb_post_send(t.qp[0], &wr);
		tb_run(t.tb, MT_WAIT);
		ok = tb_cq_poll(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS && c.wqe_index == (uint32_t)i &&
		     mt_check(t.mr[1]->buf + i * 4096, 200, 40 + i);
		CHECK(ok, "message %d in the buffer of SRQ WQE %d, slot %d (status %u, wqe_index %u)", i, i, i & 3, c.status,
		      c.wqe_index);
	}
	mt_teardown(&t);
	free(srq);
}

/*
 * Firmware moving a QP to ERR is no error the engine detected: the QP's work
 * is flushed, and no asynchronous event is raised (programming.md 6.3 lists
 * the events and what raises them).
 */
static void fw_err_no_event(void)
{
	struct mt t;
	uint8_t type;
	uint32_t elem;
	int events = 0;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	send_n(&t, 1, 16, HCA_SEND_SIGNALED);
	post_recvs(&t, 1);
	tb_run(t.tb, MT_WAIT);
	tb_evt_clear(t.n[0]);
	tb_evt_clear(t.n[1]);
	CHECK_EQ(tb_qp_modify(t.qp[0], HCA_QPS_ERR, 0), HCA_MGMT_STATUS_OK, "RTS -> ERR by firmware");
	tb_run(t.tb, MT_WAIT);
	while (tb_evt_pop(t.n[0], &type, &elem))
		events++;
	CHECK_EQ(events, 0, "no async event for a QP firmware moved to ERR");
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "QP in ERR");
	mt_teardown(&t);
}

int main(void)
{
	hca_model_engine_register();
	cq_overflow();
	completion_events();
	arm_from_consumer_index();
	srq();
	fence_and_rd_atomic();
	sqd_drain();
	reset_init_drop();
	eq_overflow_by_engine();
	srq_ring_wrap();
	fw_err_no_event();
	return check_done();
}
