// SPDX-License-Identifier: MIT
/*
 * The QP state machine and the SRQ corner paths of the RTL engine, run as
 * "lockstep" devices (reference: the C model, DUT: the RTL; rtl_ls.h), each
 * checked on its own against docs/programming.md 4.6, 6.3 and IB Vol 1
 * 10.3 / 11.6:
 *   every transition firmware writes (RESET -> INIT, INIT -> INIT, INIT ->
 *   RTR, RTR -> RTS, RTS -> RTS, RTS -> SQD, SQD -> SQD, SQD -> RTS, any ->
 *   RESET, any -> ERR) with the engine's cur_state read back, work posted
 *   in ERR flushed; an SQD drain with a WQE in flight (SQ_DRAINED only with
 *   SQD_NOTIFY, a WQE posted in SQD not started until SQD -> RTS); a
 *   responder still in RTR that receives a bad request (COMM_EST, NAK remote
 *   access, the engine moves it to ERR with QP_ACCESS_ERR); SRQ receive
 *   WQEs with 3 and 4 scatter entries; an SRQ whose ring cannot be read
 *   (SRQ_ERR, the SEND fails).
 *
 *   rtl_states [--width 64|512] [--engine rtl|model|lockstep]
 */
#include "rtl_ls.h"

/* The engine's state of the QP after the write must be the one written (programming.md 7). */
static void go(struct tb_qp *qp, uint8_t state, uint8_t flags, const char *what)
{
	uint32_t st = tb_qp_modify(qp, state, flags);
	uint8_t cur = tb_qp_query(qp).cur_state;

	CHECK(st == HCA_MGMT_STATUS_OK && cur == state, "%s: status %u, cur_state %u (want %u)", what, st, cur, state);
}

/* Half of tb_qp_connect: RESET -> INIT -> RTR with the QPC fields the last connect set. */
static void to_rtr(struct tb_qp *qp, const char *what)
{
	char w[96];

	snprintf(w, sizeof(w), "%s: to RESET", what);
	go(qp, HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK, w);
	snprintf(w, sizeof(w), "%s: RESET -> INIT", what);
	go(qp, HCA_QPS_INIT, HCA_QPC_FLAGS_RESET_STATE_MASK, w);
	snprintf(w, sizeof(w), "%s: INIT -> RTR", what);
	go(qp, HCA_QPS_RTR, HCA_QPC_FLAGS_LOAD_RQ_PSN_MASK, w);
}

static int all_zero(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			return 0;
	return 1;
}

static int wait_status(struct tb_cq *cq, uint8_t status, uint16_t wqe_index)
{
	struct hca_cqe c;

	return wait_cqe(cq, &c) && c.status == status && c.wqe_index == wqe_index;
}

/* Every transition of the table, on an RC QP whose peer is connected. */
static void transitions(void)
{
	struct rt t;
	struct tb_qp *q;
	struct tb_sge r, s;
	struct tb_send_wr w;
	struct tb_qp_attr a;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	q = t.qp[0];
	r = rt_sge(t.mr[0], 0, 64);
	go(q, HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK, "RTS -> RESET");
	go(q, HCA_QPS_INIT, HCA_QPC_FLAGS_RESET_STATE_MASK, "RESET -> INIT");
	q->qpc.access_flags = HCA_ACCESS_LOCAL_WRITE;
	go(q, HCA_QPS_INIT, 0, "INIT -> INIT (access flags)");
	go(q, HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK, "INIT -> RESET");
	go(q, HCA_QPS_INIT, HCA_QPC_FLAGS_RESET_STATE_MASK, "RESET -> INIT again");
	/* a receive may be posted in INIT (IB 10.3.1); ERR flushes it (programming.md 6.3) */
	tb_post_recv(q, &r, 1);
	go(q, HCA_QPS_ERR, 0, "INIT -> ERR");
	CHECK(wait_status(t.rcq[0], HCA_WC_WR_FLUSH_ERR, 0), "receive posted in INIT flushed by ERR");
	go(q, HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK, "ERR -> RESET");
	to_rtr(q, "first RTR");
	go(q, HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK, "RTR -> RESET");
	to_rtr(q, "second RTR");
	go(q, HCA_QPS_ERR, 0, "RTR -> ERR");
	go(q, HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK, "ERR -> RESET (2)");
	tb_qp_attr_default(&a);
	a.sq_psn = 0x200;
	a.rq_psn = 0x200;
	CHECK_EQ(tb_qp_connect(q, t.qp[1], &a), 0, "reconnected: RESET -> INIT -> RTR -> RTS");
	CHECK_EQ(tb_qp_connect(t.qp[1], q, &a), 0, "peer reconnected with the same PSNs");
	CHECK_EQ(tb_qp_query(q).cur_state, HCA_QPS_RTS, "RTS");
	q->qpc.min_rnr_timer = 2;
	go(q, HCA_QPS_RTS, 0, "RTS -> RTS (min_rnr_timer)");
	/* RTS -> SQD with nothing outstanding, no notify asked: no SQ_DRAINED */
	tb_evt_clear(t.n[0]);
	go(q, HCA_QPS_SQD, 0, "RTS -> SQD");
	tb_run(t.tb, RT_WAIT);
	CHECK_EQ(count_evt(t.n[0], HCA_EVENT_SQ_DRAINED, q->qpn), 0, "no SQ_DRAINED without SQD_NOTIFY");
	q->qpc.retry_cnt = 6;
	go(q, HCA_QPS_SQD, 0, "SQD -> SQD (retry_cnt)");
	go(q, HCA_QPS_RTS, 0, "SQD -> RTS");
	/* the QP still carries traffic after the walk */
	s = rt_sge(t.mr[0], 0, 3000);
	rt_fill(t.mr[0]->buf, 3000, 7);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				 .raddr = t.mr[1]->va + 4096, .rkey = t.mr[1]->rkey };
	tb_post_send(q, &w);
	CHECK(wait_status(t.scq[0], HCA_WC_SUCCESS, 0), "WRITE after the walk completes");
	CHECK(rt_check(t.mr[1]->buf + 4096, 3000, 7), "and its data arrived");
	go(q, HCA_QPS_SQD, 0, "RTS -> SQD (2)");
	go(q, HCA_QPS_ERR, 0, "SQD -> ERR");
	go(q, HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK, "ERR -> RESET (3)");
	CHECK_EQ(tb_qp_connect(q, t.qp[1], &a), 0, "reconnected (2)");
	go(q, HCA_QPS_SQD, 0, "RTS -> SQD (3)");
	go(q, HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK, "SQD -> RESET");
	finish(&t, "QP transitions");
}

/*
 * SQD drain (IB 10.3.1; docs/model.md rule 29): a WQE the engine has
 * started finishes; one posted in SQD waits for SQD -> RTS; SQ_DRAINED is
 * raised once the SQ is drained, because SQD_NOTIFY is set.
 */
static void sqd_drain(void)
{
	struct rt t;
	struct tb_qp_attr a;
	struct tb_sge s;
	struct tb_send_wr w;
	struct hca_qpc q;
	unsigned int frames;

	tb_qp_attr_default(&a);
	a.sqd_notify = true;
	setup(&t, HCA_QPT_RC, &a, NULL, 10);
	tb_evt_clear(t.n[0]);
	s = rt_sge(t.mr[0], 0, 40000);
	rt_fill(t.mr[0]->buf, 40000, 11);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				 .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
	tb_post_send(t.qp[0], &w);
	/* run until the engine has put the WQE's first packet on the wire */
	while (t.cap.n == 0 && tb_step(t.tb, tb_now(t.tb) + RT_WAIT))
		;
	CHECK(t.cap.n > 0, "the WRITE started");
	tb_qp_modify(t.qp[0], HCA_QPS_SQD, 0);
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_SQD, "RTS -> SQD with a WQE in flight");
	w.raddr = t.mr[1]->va + 65536;
	tb_post_send(t.qp[0], &w);	/* posted in SQD: must not start */
	tb_run(t.tb, RT_WAIT);
	q = tb_qp_query(t.qp[0]);
	CHECK_EQ(q.sq_draining, 0, "drained");
	CHECK_EQ(q.sq_ci, 1, "the started WQE retired, the one posted in SQD did not");
	CHECK_EQ(count_evt(t.n[0], HCA_EVENT_SQ_DRAINED, t.qp[0]->qpn), 1, "SQ_DRAINED once (SQD_NOTIFY set)");
	CHECK(wait_status(t.scq[0], HCA_WC_SUCCESS, 0), "the started WRITE completed");
	CHECK(rt_check(t.mr[1]->buf, 40000, 11), "its data arrived");
	frames = t.cap.n;
	CHECK(all_zero(t.mr[1]->buf + 65536, 40000), "nothing of the WRITE posted in SQD");
	go(t.qp[0], HCA_QPS_RTS, 0, "SQD -> RTS");
	CHECK(wait_status(t.scq[0], HCA_WC_SUCCESS, 1), "the WRITE posted in SQD runs after SQD -> RTS");
	CHECK(rt_check(t.mr[1]->buf + 65536, 40000, 11), "its data arrived");
	CHECK(t.cap.n > frames, "its packets were sent after SQD -> RTS only");
	finish(&t, "SQD drain");
}

/*
 * A responder in RTR (IB 10.3.1: RTR receives and responds) takes its
 * first packet -- COMM_EST -- and it is a WRITE with a bad rkey: NAK remote
 * access error, the engine moves the responder to ERR with QP_ACCESS_ERR,
 * the requester completes with REM_ACCESS_ERR (IB 9.7.5.2.4, 11.6.3).
 */
static void rtr_responder_error(void)
{
	struct rt t;
	struct tb_sge s;
	struct tb_send_wr w;
	struct hca_cqe c;
	uint8_t ty;
	uint32_t el;
	int est = 0, acc = 0;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	to_rtr(t.qp[1], "responder");
	tb_evt_clear(t.n[1]);
	s = rt_sge(t.mr[0], 0, 100);
	rt_fill(t.mr[0]->buf, 100, 5);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				 .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey ^ 0x100 };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_REM_ACCESS_ERR, "requester: REM_ACCESS_ERR (status %u)",
	      c.status);
	tb_run(t.tb, RT_WAIT);
	CHECK_EQ(tb_qp_query(t.qp[1]).cur_state, HCA_QPS_ERR, "responder in RTR moved to ERR by the engine");
	while (tb_evt_pop(t.n[1], &ty, &el)) {
		est += ty == HCA_EVENT_COMM_EST && el == t.qp[1]->qpn;
		acc += ty == HCA_EVENT_QP_ACCESS_ERR && el == t.qp[1]->qpn;
	}
	CHECK(est == 1 && acc == 1, "COMM_EST and QP_ACCESS_ERR at the responder (%d, %d)", est, acc);
	CHECK(all_zero(t.mr[1]->buf, 100), "nothing written");
	finish(&t, "bad request to a QP in RTR");
}

/* Two nodes, node 1's RC QP on an SRQ of 16 WQEs with 4 scatter entries. */
static struct tb_srq *srq_setup(struct rt *t)
{
	struct tb_srq *q;

	setup_objs(t, 6);
	q = tb_srq_create(t->n[1], t->pd[1], 4, 4, 0);
	t->qp[0] = tb_qp_create(t->n[0], HCA_QPT_RC, t->pd[0], t->scq[0], t->rcq[0], NULL, NULL);
	t->qp[1] = tb_qp_create(t->n[1], HCA_QPT_RC, t->pd[1], t->scq[1], t->rcq[1], q, NULL);
	tb_connect_pair(t->qp[0], t->qp[1], NULL);
	return q;
}

/* SRQ receive WQEs with 3 and 4 scatter entries: the SEND is scattered in order (IB 10.8.3.1). */
static void srq_scatter(void)
{
	static const uint32_t piece[2][4] = { { 100, 1, 900, 0 }, { 7, 2000, 33, 500 } };
	struct rt t;
	struct tb_srq *q = srq_setup(&t);
	struct hca_cqe c;

	for (int k = 0; k < 2; k++) {
		struct tb_sge r[4], s;
		struct tb_send_wr w;
		uint32_t len = 0, off = 0;
		int n = k ? 4 : 3, ok = 1;

		for (int i = 0; i < n; i++) {
			r[i] = rt_sge(t.mr[1], 0x10000 * (uint64_t)(k + 1) + 0x1000 * (uint64_t)i, piece[k][i]);
			len += piece[k][i];
		}
		tb_srq_post(q, r, (unsigned int)n);
		s = rt_sge(t.mr[0], 0, len);
		rt_fill(t.mr[0]->buf, len, 20 + k);
		w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
		tb_post_send(t.qp[0], &w);
		CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS && c.is_srq && c.byte_len == len &&
		      c.wqe_index == k, "SRQ receive with %d SGEs: status %u byte_len %u", n, c.status, c.byte_len);
		for (int i = 0; i < n; i++) {
			const uint8_t *p = t.mr[1]->buf + 0x10000 * (k + 1) + 0x1000 * i;

			for (uint32_t b = 0; b < piece[k][i]; b++)
				ok &= p[b] == rt_pat(20 + (uint32_t)k, off + b);
			ok &= p[piece[k][i]] == 0;	/* nothing past the entry */
			off += piece[k][i];
		}
		CHECK(ok, "%d scatter entries filled in order, nothing past them", n);
		CHECK(wait_status(t.scq[0], HCA_WC_SUCCESS, (uint16_t)k), "sender completes");
	}
	free(q);
	finish(&t, "SRQ scatter lists");
}

/* An SRQ whose ring cannot be read: SRQ_ERR (programming.md 6.3), the SEND does not succeed. */
static void srq_fetch_fault(void)
{
	struct rt t;
	struct tb_srq *q = srq_setup(&t);
	struct tb_sge r, s;
	struct tb_send_wr w;
	struct hca_cqe c;

	q->ctx.base = 0x7f0000000000ull;	/* no host memory mapped there */
	CHECK_EQ(tb_ctx_write(t.n[1], HCA_CTX_TYPE_SRQC, q->srqn, &q->ctx, sizeof(q->ctx)), HCA_MGMT_STATUS_OK,
		 "SRQ ring moved to an unmapped address");
	r = rt_sge(t.mr[1], 0, 256);
	tb_srq_post(q, &r, 1);
	tb_evt_clear(t.n[1]);
	s = rt_sge(t.mr[0], 0, 64);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status != HCA_WC_SUCCESS, "the SEND fails (status %u)", c.status);
	tb_run(t.tb, RT_WAIT);
	CHECK_EQ(count_evt(t.n[1], HCA_EVENT_SRQ_ERR, q->srqn), 1, "SRQ_ERR with the SRQN");
	free(q);
	finish(&t, "SRQ fetch fault");
}

int main(int argc, char **argv)
{
	rt_ls_start(argc, argv);
	transitions();
	sqd_drain();
	rtr_responder_error();
	srq_scatter();
	srq_fetch_fault();
	return check_done();
}
