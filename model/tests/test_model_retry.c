// SPDX-License-Identifier: MIT
/*
 * Requester retry paths (IB Vol 1 9.7.5.x / docs/wire.md 3.3-3.4, 4.1):
 * RNR retry exhaustion and infinite RNR retry; ACK timeout retry then
 * success (with the timeout measured against 2^(timeout+10) cycles), also
 * beside an idle QP of a higher QPN;
 * retry exhaustion with IBV_WC_RETRY_EXC_ERR and the flush of the WQEs
 * behind it; timeout 0 = no timer; duplicate READ and ATOMIC requests
 * replayed from the responder resources (memory changed once, original
 * value replayed), a duplicate READ answered only inside the original's
 * PSN range; a lost middle READ response (implicit NAK, READ
 * re-issued for the missing part with VA/length advanced); an ACK that
 * overtakes a lost READ response.
 */
#include "mt.h"

static struct mt_cap cap;

/* drop rule: frames from `src` with `opcode` (-1 any), the first `times` of them (-1 all) */
static struct {
	unsigned int src;
	int opcode;
	int times;
	int psn;	/* -1 any */
} rule;

static bool drop_rule(struct mt_cap *c, unsigned int src, const struct roce_pkt *p)
{
	(void)c;
	if (src != rule.src || (rule.opcode >= 0 && p->opcode != rule.opcode) ||
	    (rule.psn >= 0 && p->psn != (uint32_t)rule.psn) || rule.times == 0)
		return false;
	if (rule.times > 0)
		rule.times--;
	return true;
}

static void set_rule(unsigned int src, int opcode, int psn, int times)
{
	rule.src = src;
	rule.opcode = opcode;
	rule.psn = psn;
	rule.times = times;
	cap.drop = drop_rule;
}

static void post_send(struct mt *t, uint32_t len)
{
	static struct tb_sge s;
	struct tb_send_wr wr = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };

	s = mt_sge(t->mr[0], 0, len);
	tb_post_send(t->qp[0], &wr);
}

static void rnr_exhaustion(void)
{
	struct tb_qp_attr a;
	struct hca_cqe c;
	struct mt t;

	tb_qp_attr_default(&a);
	a.rnr_retry = 2;
	a.min_rnr_timer = 1;
	mt_setup(&t, HCA_QPT_RC, &a, NULL);
	mt_cap_start(&t, &cap);
	post_send(&t, 100);
	post_send(&t, 100);
	post_send(&t, 100);
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT), "completion");
	CHECK(c.status == HCA_WC_RNR_RETRY_EXC_ERR, "RNR_RETRY_EXC_ERR (%s)", hca_wc_status_name(c.status));
	CHECK_EQ(c.vendor_err, HCA_VENDOR_ERR_RNR, "vendor RNR");
	CHECK_EQ(c.wqe_index, 0, "first WQE");
	for (int i = 1; i < 3; i++) {
		CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_WR_FLUSH_ERR, "flush %d", i);
		CHECK_EQ(c.wqe_index, i, "flush order");
	}
	tb_run(t.tb, MT_WAIT);
	/* each round: #0 gets an RNR NAK, #1 a PSN sequence NAK, #2 is dropped silently */
	CHECK_EQ(mt_cap_count(&cap, 0, HCA_BTH_OP_RC_SEND_ONLY, -1), 3 * 3, "1 + rnr_retry rounds of 3 SENDs");
	CHECK_EQ(mt_cap_count(&cap, 1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_RNR_SYN(1)), 3, "an RNR NAK per round");
	CHECK_EQ(mt_cap_count(&cap, 1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_NAK_SYN(0)), 3, "a PSN NAK per round");
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "requester ERR");
	CHECK_EQ(tb_qp_query(t.qp[1]).cur_state, HCA_QPS_RTS, "responder unaffected");
	mt_teardown(&t);
}

static void rnr_infinite(void)
{
	struct tb_qp_attr a;
	struct hca_cqe c;
	struct tb_sge r;
	struct mt t;

	tb_qp_attr_default(&a);
	a.rnr_retry = 7;
	a.min_rnr_timer = 1;
	mt_setup(&t, HCA_QPT_RC, &a, NULL);
	mt_cap_start(&t, &cap);
	post_send(&t, 100);
	while (mt_cap_count(&cap, 1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_RNR_SYN(1)) < 20 && tb_step(t.tb, MT_WAIT))
		;
	CHECK(!tb_cq_poll(t.scq[0], &c), "still retrying after 20 RNR NAKs");
	r = mt_sge(t.mr[1], 0, 100);
	tb_post_recv(t.qp[1], &r, 1);
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "rnr_retry 7 is infinite");
	mt_teardown(&t);
}

static void timeout_retry(void)
{
	struct tb_qp_attr a;
	struct hca_cqe c;
	struct tb_sge r;
	struct mt t;
	uint64_t period = 1ull << (8 + HCA_TIMER_ACK_SHIFT);
	int first = -1, second = -1, third = -1;

	tb_qp_attr_default(&a);
	a.timeout = 8;
	a.retry_cnt = 3;
	mt_setup(&t, HCA_QPT_RC, &a, NULL);
	mt_cap_start(&t, &cap);
	set_rule(0, HCA_BTH_OP_RC_SEND_ONLY, -1, 2);	/* lose the first two transmissions */
	r = mt_sge(t.mr[1], 0, 100);
	tb_post_recv(t.qp[1], &r, 1);
	mt_fill(t.mr[0]->buf, 100, 3);
	post_send(&t, 100);
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "success after 2 timeouts");
	CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.byte_len == 100, "delivered once");
	CHECK(!tb_cq_poll(t.rcq[1], &c), "exactly once");
	CHECK(mt_check(t.mr[1]->buf, 100, 3), "payload");
	for (unsigned int i = 0; i < cap.n; i++)
		if (cap.src[i] == 0 && cap.pkt[i].opcode == HCA_BTH_OP_RC_SEND_ONLY)
			first < 0 ? (first = (int)i) : second < 0 ? (second = (int)i) : (third = (int)i);
	CHECK(third >= 0, "three transmissions");
	if (third >= 0) {
		CHECK_EQ(cap.when[second] - cap.when[first], period, "retransmit after 2^(timeout+10) cycles");
		CHECK_EQ(cap.when[third] - cap.when[second], period, "timer restarted by the retry");
	}
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_RETRANSMIT), 2, "two restarts");
	mt_teardown(&t);
}

/*
 * The ACK timer of a QP fires at its deadline whatever other QPs the node
 * has (wire.md 3.4): here an idle QP with a higher QPN, which has no
 * deadline of its own, sits beside the one waiting for its ACK.
 */
static void timer_beside_idle_qp(void)
{
	struct tb_qp_attr a;
	struct hca_cqe c;
	struct tb_sge r;
	struct tb_qp *idle;
	struct mt t;
	int first = -1, second = -1;

	tb_qp_attr_default(&a);
	a.timeout = 8;
	mt_setup(&t, HCA_QPT_RC, &a, NULL);
	idle = tb_qp_create(t.n[0], HCA_QPT_RC, t.pd[0], t.scq[0], t.rcq[0], NULL, NULL);
	CHECK(idle && idle->qpn > t.qp[0]->qpn, "an idle QP with a higher QPN on the requester's node");
	mt_cap_start(&t, &cap);
	set_rule(0, HCA_BTH_OP_RC_SEND_ONLY, -1, 1);	/* lose the first transmission */
	r = mt_sge(t.mr[1], 0, 100);
	tb_post_recv(t.qp[1], &r, 1);
	post_send(&t, 100);
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "success after one ACK timeout");
	for (unsigned int i = 0; i < cap.n; i++)
		if (cap.src[i] == 0 && cap.pkt[i].opcode == HCA_BTH_OP_RC_SEND_ONLY)
			first < 0 ? (first = (int)i) : second < 0 ? (second = (int)i) : 0;
	CHECK(second >= 0, "sent twice");
	if (second >= 0)
		CHECK_EQ(cap.when[second] - cap.when[first], 1ull << (8 + HCA_TIMER_ACK_SHIFT),
			 "retransmitted 2^(timeout+10) cycles after the first transmission");
	free(idle);
	mt_teardown(&t);
}

static void retry_exhaustion(void)
{
	struct tb_qp_attr a;
	struct hca_cqe c;
	struct mt t;

	tb_qp_attr_default(&a);
	a.timeout = 5;
	a.retry_cnt = 3;
	mt_setup(&t, HCA_QPT_RC, &a, NULL);
	mt_cap_start(&t, &cap);
	set_rule(0, -1, -1, -1);	/* the wire loses everything node 0 sends */
	for (int i = 0; i < 4; i++)
		post_send(&t, 3000);
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT), "completion");
	CHECK(c.status == HCA_WC_RETRY_EXC_ERR, "RETRY_EXC_ERR (%s)", hca_wc_status_name(c.status));
	CHECK_EQ(c.vendor_err, HCA_VENDOR_ERR_TIMEOUT, "vendor TIMEOUT");
	CHECK_EQ(c.wqe_index, 0, "oldest WQE");
	for (int i = 1; i < 4; i++) {
		CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_WR_FLUSH_ERR, "flush %d", i);
		CHECK_EQ(c.wqe_index, i, "in order");
		CHECK_EQ(c.vendor_err, HCA_VENDOR_ERR_FLUSH, "vendor FLUSH");
	}
	CHECK(tb_run(t.tb, MT_WAIT), "idle: no timer left");
	/* first packet of WQE 0 (PSN 0x123): 1 + retry_cnt transmissions */
	{
		unsigned int k = 0;

		for (unsigned int i = 0; i < cap.n; i++)
			k += cap.src[i] == 0 && cap.pkt[i].psn == 0x123;
		CHECK_EQ(k, 4, "PSN 0x123 sent 1 + retry_cnt times");
	}
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_RETRANSMIT), 3, "three go-back-N restarts");
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "QP in ERR");
	CHECK_EQ(tb_mgmt_read(t.n[0], HCA_MGMT_EVT_COUNT), 0, "no async event (the error has a completion)");
	mt_teardown(&t);
}

static void timeout_zero_is_infinite(void)
{
	struct tb_qp_attr a;
	struct mt t;

	tb_qp_attr_default(&a);
	a.timeout = 0;
	mt_setup(&t, HCA_QPT_RC, &a, NULL);
	mt_cap_start(&t, &cap);
	set_rule(0, -1, -1, -1);
	post_send(&t, 10);
	CHECK(tb_run(t.tb, 1ull << 40), "nothing scheduled: no ACK timer");
	CHECK_EQ(mt_cap_count(&cap, 0, -1, -1), 1, "sent once, never retried");
	CHECK(!tb_cq_poll(t.scq[0], NULL), "no completion");
	mt_teardown(&t);
}

static void dup_read_atomic_replay(void)
{
	struct tb_qp_attr a;
	struct hca_cqe c;
	struct mt t;
	struct tb_sge s;
	uint64_t v;

	tb_qp_attr_default(&a);
	a.timeout = 6;
	mt_setup(&t, HCA_QPT_RC, &a, NULL);
	mt_cap_start(&t, &cap);

	/* FETCH_ADD whose atomic ACK is lost: the retried request is a duplicate */
	v = 1000;
	memcpy(t.mr[1]->buf + 64, &v, 8);
	set_rule(1, HCA_BTH_OP_RC_ATOMIC_ACKNOWLEDGE, -1, 1);
	s = mt_sge(t.mr[0], 0, 8);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_ATOMIC_FETCH_AND_ADD, .flags = HCA_SEND_SIGNALED, .sge = &s,
					 .num_sge = 1, .raddr = t.mr[1]->va + 64, .rkey = t.mr[1]->rkey,
					 .compare_add = 5 };

		tb_post_send(t.qp[0], &wr);
	}
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "fetch-add completes");
	CHECK_EQ(c.opcode, HCA_WC_OP_FETCH_ADD, "opcode");
	CHECK_EQ(c.byte_len, 8, "byte_len");
	memcpy(&v, t.mr[0]->buf, 8);
	CHECK_EQ(v, 1000, "original value replayed");
	memcpy(&v, t.mr[1]->buf + 64, 8);
	CHECK_EQ(v, 1005, "added exactly once");
	CHECK_EQ(mt_cap_count(&cap, 0, HCA_BTH_OP_RC_FETCH_ADD, -1), 2, "request sent twice");
	CHECK_EQ(mt_cap_count(&cap, 1, HCA_BTH_OP_RC_ATOMIC_ACKNOWLEDGE, -1), 2, "ACK replayed");
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_RX_DUP), 1, "duplicate counted");
	CHECK_EQ(tb_qp_query(t.qp[1]).msn, 1, "MSN counted once");

	/* CMP_AND_SWP, ACK lost: swap happens once; the replay still reports the old value */
	v = 77;
	memcpy(t.mr[1]->buf + 128, &v, 8);
	set_rule(1, HCA_BTH_OP_RC_ATOMIC_ACKNOWLEDGE, -1, 1);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_ATOMIC_CMP_AND_SWP, .flags = HCA_SEND_SIGNALED, .sge = &s,
					 .num_sge = 1, .raddr = t.mr[1]->va + 128, .rkey = t.mr[1]->rkey,
					 .compare_add = 77, .swap = 99 };

		tb_post_send(t.qp[0], &wr);
	}
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "cmp-swap completes");
	memcpy(&v, t.mr[0]->buf, 8);
	CHECK_EQ(v, 77, "cmp-swap original");
	memcpy(&v, t.mr[1]->buf + 128, 8);
	CHECK_EQ(v, 99, "swapped");

	/* READ (3 responses) whose responses are all lost once: replayed from the resources */
	mt_fill(t.mr[1]->buf + 10000, 3000, 21);
	memset(t.mr[0]->buf + 20000, 0, 3000);
	set_rule(1, -1, -1, 3);
	s = mt_sge(t.mr[0], 20000, 3000);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = &s,
					 .num_sge = 1, .raddr = t.mr[1]->va + 10000, .rkey = t.mr[1]->rkey };

		tb_post_send(t.qp[0], &wr);
	}
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "READ completes");
	CHECK(mt_check(t.mr[0]->buf + 20000, 3000, 21), "READ data");
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_RX_DUP), 3, "duplicate READ counted");
	CHECK_EQ(tb_qp_query(t.qp[1]).msn, 3, "READ counted once in the MSN");
	mt_teardown(&t);
}

/*
 * A duplicate READ request is answered only when its PSN range lies inside
 * the READ it repeats (docs/model.md rule 19, wire.md 4.1; Linux rxe also
 * drops a duplicate READ that reaches past the original): one packet
 * longer than the original is dropped; the same request, and its second
 * packet's part alone, are answered from the responder resources.
 */
static void dup_read_range(void)
{
	struct hca_cqe c;
	struct mt t;
	struct tb_sge s;
	struct roce_pkt p;
	uint32_t psn0, dup0;
	unsigned int k;
	static const struct {
		uint32_t psn_off, va_off, len, responses;
		const char *what;
	} d[] = {
		{ 0, 0, 3072, 0, "one packet past the original: dropped" },
		{ 1, 1024, 1024, 1, "its second packet alone: answered" },
		{ 0, 0, 2048, 2, "the same request: answered" },
	};

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	mt_cap_start(&t, &cap);
	mt_fill(t.mr[1]->buf, 2048, 51);
	s = mt_sge(t.mr[0], 0, 2048);
	tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED,
						     .sge = &s, .num_sge = 1, .raddr = t.mr[1]->va,
						     .rkey = t.mr[1]->rkey });
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "2-packet READ completes");
	psn0 = (tb_qp_query(t.qp[0]).sq_psn_next - 2) & 0xffffff;
	for (k = 0; k < sizeof(d) / sizeof(d[0]); k++) {
		unsigned int before = cap.n, resp = 0;

		dup0 = tb_stat(t.n[1], HCA_STAT_RX_DUP);
		roce_pkt_init(&p, HCA_BTH_OP_RC_RDMA_READ_REQUEST);
		p.dqpn = t.qp[1]->qpn;
		p.psn = (psn0 + d[k].psn_off) & 0xffffff;
		p.ackreq = true;
		p.reth.va = t.mr[1]->va + d[k].va_off;
		p.reth.rkey = t.mr[1]->rkey;
		p.reth.len = d[k].len;
		CHECK(mt_inject(&t, 0, 1, &p, NULL, 0) == 0, "%s: built", d[k].what);
		tb_run(t.tb, MT_WAIT);
		for (unsigned int i = before; i < cap.n; i++)
			resp += cap.src[i] == 1 && cap.pkt[i].opcode >= HCA_BTH_OP_RC_RDMA_READ_RESPONSE_FIRST &&
				cap.pkt[i].opcode <= HCA_BTH_OP_RC_RDMA_READ_RESPONSE_ONLY;
		CHECK(resp == d[k].responses, "duplicate READ %s (%u responses)", d[k].what, resp);
		CHECK(tb_stat(t.n[1], HCA_STAT_RX_DUP) == dup0 + 1, "%s: counted as a duplicate", d[k].what);
	}
	CHECK_EQ(tb_qp_query(t.qp[1]).cur_state, HCA_QPS_RTS, "responder still in RTS");
	mt_teardown(&t);
}

static void read_middle_lost(void)
{
	struct hca_cqe c;
	struct mt t;
	struct tb_sge s;
	int reissue = -1;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	mt_cap_start(&t, &cap);
	/* 5000 bytes at MTU 1024: responses PSN 0x123..0x127; lose 0x125 once */
	set_rule(1, HCA_BTH_OP_RC_RDMA_READ_RESPONSE_MIDDLE, 0x125, 1);
	mt_fill(t.mr[1]->buf, 5000, 31);
	s = mt_sge(t.mr[0], 0, 5000);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = &s,
					 .num_sge = 1, .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };

		tb_post_send(t.qp[0], &wr);
	}
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "READ completes");
	CHECK_EQ(c.byte_len, 5000, "byte_len");
	CHECK(mt_check(t.mr[0]->buf, 5000, 31), "data");
	for (unsigned int i = 0; i < cap.n; i++)
		if (cap.src[i] == 0 && cap.pkt[i].opcode == HCA_BTH_OP_RC_RDMA_READ_REQUEST && cap.pkt[i].psn != 0x123)
			reissue = (int)i;
	CHECK(reissue >= 0, "READ re-issued");
	if (reissue >= 0) {
		CHECK_EQ(cap.pkt[reissue].psn, 0x125, "from the first missing response");
		CHECK_EQ(cap.pkt[reissue].reth.va, t.mr[1]->va + 2048, "VA advanced by 2 PMTUs");
		CHECK_EQ(cap.pkt[reissue].reth.len, 5000 - 2048, "length reduced");
	}
	CHECK_EQ(mt_cap_count(&cap, 0, HCA_BTH_OP_RC_RDMA_READ_REQUEST, -1), 2, "one re-issue (implicit NAK)");
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_RETRANSMIT), 1, "one restart");
	/* the replay answers the partial request as a new READ: FIRST .. LAST */
	CHECK_EQ(mt_cap_count(&cap, 1, HCA_BTH_OP_RC_RDMA_READ_RESPONSE_FIRST, -1), 2, "replay starts with FIRST");
	mt_teardown(&t);
}

static void ack_overtakes_lost_read_response(void)
{
	struct hca_cqe c;
	struct mt t;
	struct tb_sge s, r;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	mt_cap_start(&t, &cap);
	set_rule(1, HCA_BTH_OP_RC_RDMA_READ_RESPONSE_ONLY, -1, 1);
	mt_fill(t.mr[1]->buf + 4096, 100, 41);
	s = mt_sge(t.mr[0], 0, 100);
	r = mt_sge(t.mr[1], 200000, 64);
	tb_post_recv(t.qp[1], &r, 1);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = &s,
					 .num_sge = 1, .raddr = t.mr[1]->va + 4096, .rkey = t.mr[1]->rkey };

		tb_post_send(t.qp[0], &wr);
	}
	s = mt_sge(t.mr[0], 8192, 64);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };

		tb_post_send(t.qp[0], &wr);
	}
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS && c.wqe_index == 0, "READ first");
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS && c.wqe_index == 1, "then SEND");
	CHECK(mt_check(t.mr[0]->buf, 100, 41), "READ data");
	CHECK_EQ(mt_cap_count(&cap, 0, HCA_BTH_OP_RC_RDMA_READ_REQUEST, -1), 2,
		 "the SEND's ACK (PSN beyond the READ) triggered the READ retry");
	CHECK(tb_run(t.tb, MT_WAIT), "idle");
	CHECK(tb_cq_poll(t.rcq[1], &c) && !tb_cq_poll(t.rcq[1], NULL), "SEND delivered once");
	mt_teardown(&t);
}

int main(void)
{
	hca_model_engine_register();
	rnr_exhaustion();
	rnr_infinite();
	timeout_retry();
	timer_beside_idle_qp();
	retry_exhaustion();
	timeout_zero_is_infinite();
	dup_read_atomic_replay();
	dup_read_range();
	read_middle_lost();
	ack_overtakes_lost_read_response();
	return check_done();
}
