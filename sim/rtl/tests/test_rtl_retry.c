// SPDX-License-Identifier: MIT
/*
 * NAKs, go-back-N retransmission, the ACK timer and the RNR wait of the RTL,
 * each scenario on two "lockstep" devices (reference: the C model, DUT: the
 * RTL; docs/sim.md section 2 "Retransmissions" for how retransmitted frames
 * are compared) and checked on its own against the IB rules (Vol 1 9.7.5,
 * docs/wire.md 3-4) by reading the frames off the wire with the codec.  The
 * RTL counterparts of model/tests/test_model_retry.c and test_model_nak.c
 * (their SEND/WRITE scenarios; READ and atomics are not in the RTL yet):
 *   RNR retry exhaustion (RNR_RETRY_EXC_ERR, then the flush) and infinite
 *   RNR retry; the RNR wait from the NAK's timer code (min_rnr_timer);
 *   ACK timeout and resend after 2^(timeout+10) cycles, the timer restarted
 *   by the retry; retry exhaustion (RETRY_EXC_ERR, flush, QP in ERR, no
 *   async event); timeout 0 = no timer; a PSN sequence NAK (one per gap)
 *   and go-back-N from the missing PSN; the same NAK again (across a QP
 *   modify) restarts nothing; NAK remote operational error (the
 *   responder's receive queue faults); NAK invalid request for crafted
 *   requests (opcode sequence, lengths); skipping idle time up to the next
 *   timer deadline gives the same frames at the same cycles as clocking
 *   every cycle, and an ACK timeout on time whatever the phase of the
 *   timer scan the traffic before it ran at (32 runs).
 *
 *   rtl_retry [--width 64|512] [--engine rtl|lockstep] [--options K=V,...] [--only NAME]
 */
#include "rtl_ls.h"

#define AETH_NAK_SYN(code) (0x60 | (code))
#define AETH_RNR_SYN(t) (0x20 | (t))

/* The RTL finds a passed deadline within 2^LOG_MAX_QP cycles and then needs
 * its step, the WQE and the frame: a resend leaves this much after it. */
#define RETX_SLACK 2048u

static struct rt t;

/* drop rule: frames from `src` with `opcode` (-1 any) and `psn` (-1 any), the first `times` (-1 all) */
static struct {
	unsigned int src;
	int opcode, psn, times;
} rule;

static int drop_rule(struct rt_cap *c, unsigned int src, const struct roce_pkt *p)
{
	(void)c;
	if (src != rule.src || (rule.opcode >= 0 && p->opcode != rule.opcode) ||
	    (rule.psn >= 0 && p->psn != (uint32_t)rule.psn) || rule.times == 0)
		return 0;
	if (rule.times > 0)
		rule.times--;
	return 1;
}

static void set_rule(unsigned int src, int opcode, int psn, int times)
{
	rule.src = src;
	rule.opcode = opcode;
	rule.psn = psn;
	rule.times = times;
	t.cap.drop = drop_rule;
}

static unsigned int cap_count(unsigned int src, int opcode, int syndrome)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < t.cap.n; i++)
		if (t.cap.src[i] == src && (opcode < 0 || t.cap.pkt[i].opcode == opcode) &&
		    (syndrome < 0 || t.cap.pkt[i].aeth.syndrome == syndrome))
			k++;
	return k;
}

static int cap_find(unsigned int src, int opcode, int syndrome)
{
	for (unsigned int i = 0; i < t.cap.n; i++)
		if (t.cap.src[i] == src && (opcode < 0 || t.cap.pkt[i].opcode == opcode) &&
		    (syndrome < 0 || t.cap.pkt[i].aeth.syndrome == syndrome))
			return (int)i;
	return -1;
}

static void post_send(uint32_t len)
{
	struct tb_sge s = rt_sge(t.mr[0], 0, len);
	struct tb_send_wr wr = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };

	tb_post_send(t.qp[0], &wr);
}

static void dump_cap(void)
{
	for (unsigned int i = 0; i < t.cap.n; i++)
		printf("  @%llu node%u op 0x%02x psn 0x%06x syn 0x%02x%s\n", (unsigned long long)t.cap.when[i],
		       t.cap.src[i], t.cap.pkt[i].opcode, t.cap.pkt[i].psn, t.cap.pkt[i].aeth.syndrome,
		       t.cap.dropped[i] ? " dropped" : "");
}

/* End of a scenario (finish), with every frame printed first when
 * RTL_RETRY_DUMP is set (debugging). */
static void done(const char *what)
{
	if (getenv("RTL_RETRY_DUMP"))
		dump_cap();
	finish(&t, what);
}

static void setup_attr(void (*f)(struct tb_qp_attr *a))
{
	struct tb_qp_attr a;

	tb_qp_attr_default(&a);
	if (f)
		f(&a);
	setup(&t, HCA_QPT_RC, &a, NULL, 10);
	rule.times = 0;
}

/* ---------------------------------------------------------------- RNR */

static void a_rnr2(struct tb_qp_attr *a)
{
	a->rnr_retry = 2;
	a->min_rnr_timer = 1;
}

static void rnr_exhaustion(void)
{
	struct hca_cqe c;

	setup_attr(a_rnr2);
	for (int i = 0; i < 3; i++)
		post_send(100);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_RNR_RETRY_EXC_ERR,
	      "RNR_RETRY_EXC_ERR (%s)", hca_wc_status_name(c.status));
	CHECK_EQ(c.vendor_err, HCA_VENDOR_ERR_RNR, "vendor RNR");
	CHECK_EQ(c.wqe_index, 0, "the first WQE");
	for (int i = 1; i < 3; i++) {
		CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_WR_FLUSH_ERR, "flush %d", i);
		CHECK_EQ(c.wqe_index, i, "flush order");
	}
	tb_run(t.tb, RT_WAIT);
	/* each round: #0 an RNR NAK, #1 a PSN sequence NAK, #2 dropped silently */
	CHECK_EQ(cap_count(0, HCA_BTH_OP_RC_SEND_ONLY, -1), 3 * 3, "1 + rnr_retry rounds of 3 SENDs");
	CHECK_EQ(cap_count(1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_RNR_SYN(1)), 3, "an RNR NAK per round");
	CHECK_EQ(cap_count(1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_NAK_SYN(0)), 3, "a PSN NAK per round");
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_RETRANSMIT), 2, "two RNR restarts");
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "requester ERR");
	CHECK_EQ(tb_qp_query(t.qp[1]).cur_state, HCA_QPS_RTS, "responder unaffected");
	done("RNR exhaustion");
}

static void a_rnr7(struct tb_qp_attr *a)
{
	a->rnr_retry = 7;
	a->min_rnr_timer = 1;
}

static void rnr_infinite(void)
{
	struct hca_cqe c;
	struct tb_sge r;

	setup_attr(a_rnr7);
	post_send(100);
	while (cap_count(1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_RNR_SYN(1)) < 20 && tb_step(t.tb, RT_WAIT))
		;
	CHECK(!tb_cq_poll(t.scq[0], &c), "still retrying after 20 RNR NAKs");
	r = rt_sge(t.mr[1], 0, 100);
	tb_post_recv(t.qp[1], &r, 1);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS, "rnr_retry 7 is infinite");
	CHECK(tb_stat(t.n[0], HCA_STAT_RETRANSMIT) >= 20, "a restart per RNR NAK");
	done("RNR infinite");
}

static void a_rnr4(struct tb_qp_attr *a)
{
	a->min_rnr_timer = 4;		/* 40 us = HCA_RNR_CYCLES_4 */
}

static void rnr_wait(void)
{
	struct hca_cqe c;
	struct tb_sge r;
	int i, j = -1;

	setup_attr(a_rnr4);
	rt_fill(t.mr[0]->buf, 500, 8);
	post_send(500);
	while (cap_count(1, HCA_BTH_OP_RC_ACKNOWLEDGE, -1) == 0 && tb_step(t.tb, RT_WAIT))
		;
	i = cap_find(1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_RNR_SYN(4));
	CHECK(i >= 0 && t.cap.pkt[i].psn == 0x123, "RNR NAK with timer code 4 for PSN 0x123");
	r = rt_sge(t.mr[1], 0, 500);
	tb_post_recv(t.qp[1], &r, 1);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS, "SEND succeeds after the RNR wait");
	CHECK(wait_cqe(t.rcq[1], &c) && c.byte_len == 500 && rt_check(t.mr[1]->buf, 500, 8), "received");
	CHECK_EQ(cap_count(0, HCA_BTH_OP_RC_SEND_ONLY, -1), 2, "sent twice");
	for (unsigned int k = 0; k < t.cap.n; k++)
		if (t.cap.src[k] == 0 && t.cap.pkt[k].opcode == HCA_BTH_OP_RC_SEND_ONLY)
			j = (int)k;
	/* the NAK reaches the requester 250 cycles (the wire) after it left */
	if (i >= 0 && j >= 0)
		CHECK(t.cap.when[j] >= t.cap.when[i] + 250 + HCA_RNR_CYCLES_4 &&
		      t.cap.when[j] <= t.cap.when[i] + 250 + HCA_RNR_CYCLES_4 + RETX_SLACK,
		      "resend %llu cycles after the NAK, want 250 + %u + up to %u",
		      (unsigned long long)(t.cap.when[j] - t.cap.when[i]), HCA_RNR_CYCLES_4, RETX_SLACK);
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_TX_NAK), 1, "one RNR NAK counted");
	CHECK_EQ(tb_qp_query(t.qp[1]).cur_state, HCA_QPS_RTS, "RNR does not change the responder state");
	done("RNR wait");
}

/*
 * A SEND posted while the QP waits out an RNR NAK (and a PSN sequence NAK
 * arriving meanwhile) sends nothing before the wait ends (model/req.c
 * model_requester, model/comp.c retry); then both go out, from the NAKed PSN.
 */
static void rnr_wait_new_wqe(void)
{
	struct hca_cqe c;
	struct tb_sge r[2];
	int i, k;

	setup_attr(a_rnr4);
	post_send(100);
	while (cap_count(1, HCA_BTH_OP_RC_ACKNOWLEDGE, -1) == 0 && tb_step(t.tb, RT_WAIT))
		;
	i = cap_find(1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_RNR_SYN(4));
	CHECK(i >= 0, "RNR NAK");
	tb_run_for(t.tb, 1000);			/* the NAK has arrived: the wait runs */
	post_send(200);
	tb_run_for(t.tb, 2000);
	CHECK(cap_count(0, -1, -1) == 1, "nothing sent during the RNR wait (%u frames)", cap_count(0, -1, -1));
	r[0] = rt_sge(t.mr[1], 0, 100);
	r[1] = rt_sge(t.mr[1], 4096, 200);
	tb_post_recv(t.qp[1], &r[0], 1);
	tb_post_recv(t.qp[1], &r[1], 1);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS, "first SEND succeeds after the wait");
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS, "second SEND succeeds");
	k = -1;
	for (unsigned int j = 0; j < t.cap.n; j++)
		if (t.cap.src[j] == 0 && k < 0 && j > (unsigned int)i)
			k = (int)j;
	if (i >= 0 && k >= 0)
		CHECK(t.cap.when[k] >= t.cap.when[i] + 250 + HCA_RNR_CYCLES_4, "first frame after the NAK at +%llu",
		      (unsigned long long)(t.cap.when[k] - t.cap.when[i]));
	done("RNR wait, new WQE");
}

/*
 * The RNR NAK arrives while a later multi-packet SEND is being sent: the
 * responder NAKs its packets (PSN sequence error, ignored during the wait),
 * and a WQE posted after the NAK waits for the end of the RNR wait.
 */
static void rnr_wait_mid_message(void)
{
	struct hca_cqe c;
	struct tb_sge r[3];
	unsigned int ok = 0;

	setup_attr(a_rnr4);
	post_send(100);
	post_send(8000);
	tb_run_for(t.tb, 700);			/* the RNR NAK for the first arrives while the second goes out */
	post_send(300);
	tb_run_for(t.tb, 3000);
	for (int k = 0; k < 3; k++) {
		r[k] = rt_sge(t.mr[1], (uint64_t)k * 8192, 8192);
		tb_post_recv(t.qp[1], &r[k], 1);
	}
	for (int k = 0; k < 3; k++)
		ok += wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS;
	CHECK_EQ(ok, 3, "the three SENDs succeed");
	CHECK(cap_find(1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_NAK_SYN(HCA_AETH_NAK_PSN_SEQ_ERR)) >= 0,
	      "the responder NAKed the packets behind the RNR NAK");
	done("RNR wait, mid message");
}

/* ---------------------------------------------------------------- READ and atomics */

static void a_timeout6(struct tb_qp_attr *a)
{
	a->timeout = 6;			/* 2^16 cycles */
}

/*
 * A READ response lost in the middle: the next one is an implicit NAK
 * (model/comp.c read_response), the READ is asked again from its first
 * missing response (RCVD), the responder replays from there; a lost atomic
 * ACK: the ACK timeout resends the atomic, the responder answers it from
 * the saved result (executed once).
 */
static void read_atomic_lost(void)
{
	struct hca_cqe c;
	struct tb_sge l, a8;
	struct tb_send_wr rd = { .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = &l, .num_sge = 1 };
	struct tb_send_wr fa = { .opcode = HCA_WR_ATOMIC_FETCH_AND_ADD, .flags = HCA_SEND_SIGNALED, .sge = &a8,
				 .num_sge = 1, .compare_add = 5 };
	uint64_t v = 100, got = 0;

	setup_attr(a_timeout6);
	l = rt_sge(t.mr[0], 0, 5000);
	a8 = rt_sge(t.mr[0], 8192, 8);
	rt_fill(t.mr[1]->buf, 5000, 3);
	rd.raddr = t.mr[1]->va;
	rd.rkey = t.mr[1]->rkey;
	set_rule(1, HCA_BTH_OP_RC_RDMA_READ_RESPONSE_MIDDLE, -1, 1);
	tb_post_send(t.qp[0], &rd);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS && c.byte_len == 5000, "READ completes (%u)",
	      c.status);
	CHECK(rt_check(t.mr[0]->buf, 5000, 3), "READ data");
	CHECK_EQ(cap_count(0, HCA_BTH_OP_RC_RDMA_READ_REQUEST, -1), 2, "the READ asked twice");
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_RETRANSMIT), 1, "one retransmission counted");
	memcpy(t.mr[1]->buf + 4096, &v, 8);
	fa.raddr = t.mr[1]->va + 4096;
	fa.rkey = t.mr[1]->rkey;
	set_rule(1, HCA_BTH_OP_RC_ATOMIC_ACKNOWLEDGE, -1, 1);
	tb_post_send(t.qp[0], &fa);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS, "FETCH_ADD completes after a timeout (%u)", c.status);
	memcpy(&got, t.mr[0]->buf + 8192, 8);
	memcpy(&v, t.mr[1]->buf + 4096, 8);
	CHECK(got == 100 && v == 105, "original 100 returned (%llu), executed once (%llu)", (unsigned long long)got,
	      (unsigned long long)v);
	CHECK_EQ(cap_count(0, HCA_BTH_OP_RC_FETCH_ADD, -1), 2, "the atomic sent twice");
	done("READ and atomic lost");
}

/* ---------------------------------------------------------------- ACK timer */

static void a_timeout8(struct tb_qp_attr *a)
{
	a->timeout = 8;
	a->retry_cnt = 3;
}

static void timeout_retry(void)
{
	uint64_t period = 1ull << (8 + HCA_TIMER_ACK_SHIFT);
	int first = -1, second = -1, third = -1;
	struct hca_cqe c;
	struct tb_sge r;

	setup_attr(a_timeout8);
	set_rule(0, HCA_BTH_OP_RC_SEND_ONLY, -1, 2);	/* lose the first two transmissions */
	r = rt_sge(t.mr[1], 0, 100);
	tb_post_recv(t.qp[1], &r, 1);
	rt_fill(t.mr[0]->buf, 100, 3);
	post_send(100);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS, "success after 2 timeouts (%s, vendor %u)",
	      hca_wc_status_name(c.status), c.vendor_err);
	CHECK(wait_cqe(t.rcq[1], &c) && c.byte_len == 100, "delivered");
	CHECK(!tb_cq_poll(t.rcq[1], &c), "exactly once");
	CHECK(rt_check(t.mr[1]->buf, 100, 3), "payload");
	for (unsigned int i = 0; i < t.cap.n; i++)
		if (t.cap.src[i] == 0 && t.cap.pkt[i].opcode == HCA_BTH_OP_RC_SEND_ONLY)
			first < 0 ? (first = (int)i) : second < 0 ? (second = (int)i) : (third = (int)i);
	CHECK(third >= 0, "three transmissions");
	if (third >= 0) {
		uint64_t d1 = t.cap.when[second] - t.cap.when[first], d2 = t.cap.when[third] - t.cap.when[second];

		CHECK(d1 >= period && d1 <= period + RETX_SLACK, "resend %llu cycles after, want 2^(timeout+10) = %llu",
		      (unsigned long long)d1, (unsigned long long)period);
		CHECK(d2 >= period && d2 <= period + RETX_SLACK, "timer restarted by the retry: %llu cycles",
		      (unsigned long long)d2);
	}
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_RETRANSMIT), 2, "two restarts");
	done("ACK timeout");
}

static void a_timeout5(struct tb_qp_attr *a)
{
	a->timeout = 5;
	a->retry_cnt = 3;
}

static void retry_exhaustion(void)
{
	struct hca_cqe c;
	unsigned int k = 0;
	uint8_t ty;
	uint32_t el;

	setup_attr(a_timeout5);
	set_rule(0, -1, -1, -1);	/* the wire loses everything node 0 sends */
	for (int i = 0; i < 4; i++)
		post_send(3000);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_RETRY_EXC_ERR, "RETRY_EXC_ERR (%s)",
	      hca_wc_status_name(c.status));
	CHECK_EQ(c.vendor_err, HCA_VENDOR_ERR_TIMEOUT, "vendor TIMEOUT");
	CHECK_EQ(c.wqe_index, 0, "oldest WQE");
	for (int i = 1; i < 4; i++) {
		CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_WR_FLUSH_ERR, "flush %d", i);
		CHECK_EQ(c.wqe_index, i, "in order");
		CHECK_EQ(c.vendor_err, HCA_VENDOR_ERR_FLUSH, "vendor FLUSH");
	}
	CHECK(tb_run(t.tb, RT_WAIT), "idle: no timer left");
	for (unsigned int i = 0; i < t.cap.n; i++)
		k += t.cap.src[i] == 0 && t.cap.pkt[i].psn == 0x123;
	CHECK_EQ(k, 4, "PSN 0x123 sent 1 + retry_cnt times");
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_RETRANSMIT), 3, "three go-back-N restarts");
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "QP in ERR");
	k = 0;
	while (tb_evt_pop(t.n[0], &ty, &el))
		k += el == t.qp[0]->qpn && ty != HCA_EVENT_COMM_EST;
	CHECK_EQ(k, 0, "no async event (the error has a completion)");
	done("retry exhaustion");
}

/*
 * Firmware changes retry_cnt (RTS -> RTS, 3 -> 6) while the engine works on
 * the QP's SEND: the RTL replays such a write on the item's write-back
 * (docs/rtl.md "Context writes while the engine works on a QP"), and the
 * new count must govern the retries that follow.  Everything node 0 sends
 * is lost: the SEND goes out 1 + 6 times, then RETRY_EXC_ERR.  Swept over
 * the cycle the write lands in (from the doorbell into the transmission).
 */
static void a_retry3(struct tb_qp_attr *a)
{
	a->timeout = 5;
	a->retry_cnt = 3;
}

static void retry_cnt_during_item(void)
{
	for (unsigned int d = 0; d < 64; d += 4) {
		struct hca_cqe c;

		setup_attr(a_retry3);
		set_rule(0, -1, -1, -1);
		post_send(100);
		tb_run_for(t.tb, d);
		t.qp[0]->qpc.retry_cnt = 6;
		CHECK_EQ(tb_qp_modify(t.qp[0], HCA_QPS_RTS, 0), HCA_MGMT_STATUS_OK, "RTS -> RTS, retry_cnt 6");
		CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_RETRY_EXC_ERR, "d=%u: RETRY_EXC_ERR (%s)", d,
		      hca_wc_status_name(c.status));
		CHECK(tb_run(t.tb, RT_WAIT), "d=%u: idle", d);
		CHECK(cap_count(0, HCA_BTH_OP_RC_SEND_ONLY, -1) == 7, "d=%u: the SEND sent 1 + 6 times (%u)", d,
		      cap_count(0, HCA_BTH_OP_RC_SEND_ONLY, -1));
		done("retry_cnt changed during an item");
	}
}

static void a_timeout0(struct tb_qp_attr *a)
{
	a->timeout = 0;
}

static void timeout_zero_is_infinite(void)
{
	setup_attr(a_timeout0);
	set_rule(0, -1, -1, -1);
	post_send(10);
	CHECK(tb_run(t.tb, 1ull << 40), "nothing scheduled: no ACK timer");
	CHECK_EQ(cap_count(0, -1, -1), 1, "sent once, never retried");
	CHECK(!tb_cq_poll(t.scq[0], NULL), "no completion");
	done("timeout 0");
}

static void a_timeout0_rnr(struct tb_qp_attr *a)
{
	a->timeout = 0;
	a->rnr_retry = 3;
	a->min_rnr_timer = 1;
}

/*
 * Timeout 0 (no ACK timer, IB spec 9.7.6.1.3) after an RNR wait: the resend
 * that ends the wait starts no ACK timer either, so when it is lost nothing
 * more goes out and the WQE stays outstanding.  (An RTL that armed the timer
 * after the RNR wait whatever the timeout resent it again: the mutation
 * survivor rtl/hca_comp_timer.sv:103, `timeout != 0` forced true.)
 */
static void rnr_then_timeout_zero(void)
{
	setup_attr(a_timeout0_rnr);
	post_send(100);
	while (cap_count(1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_RNR_SYN(1)) == 0 && tb_step(t.tb, RT_WAIT))
		;
	CHECK_EQ(cap_count(1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_RNR_SYN(1)), 1, "an RNR NAK");
	set_rule(0, -1, -1, -1);	/* from now on everything the requester sends is lost */
	CHECK(tb_run(t.tb, 1ull << 40), "nothing scheduled after the resend: no ACK timer");
	CHECK_EQ(cap_count(0, HCA_BTH_OP_RC_SEND_ONLY, -1), 2, "sent, then resent once after the RNR wait");
	CHECK(!tb_cq_poll(t.scq[0], NULL), "no completion");
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_RTS, "requester still RTS");
	done("RNR wait then timeout 0");
}

/* ---------------------------------------------------------------- NAKs */

static void nak_psn_seq(void)
{
	struct hca_cqe c;
	struct tb_sge s;
	int nak, back = -1;
	unsigned int ooo = 0;

	setup_attr(NULL);
	set_rule(0, -1, 0x126, 1);
	rt_fill(t.mr[0]->buf, 10240, 5);
	s = rt_sge(t.mr[0], 0, 10240);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s,
					 .num_sge = 1, .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };

		tb_post_send(t.qp[0], &wr);
	}
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS, "WRITE with a lost packet");
	tb_run(t.tb, RT_WAIT);
	CHECK(rt_check(t.mr[1]->buf, 10240, 5), "data complete after go-back-N");
	CHECK_EQ(cap_count(1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_NAK_SYN(HCA_AETH_NAK_PSN_SEQ_ERR)), 1,
		 "exactly one PSN sequence NAK");
	nak = cap_find(1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_NAK_SYN(0));
	CHECK(nak >= 0 && t.cap.pkt[nak].psn == 0x126, "the NAK names the missing PSN");
	/* the requester went back to 0x126: the first frame after the lost one whose PSN is not larger */
	for (unsigned int i = 0, last = 0; i < t.cap.n; i++) {
		if (t.cap.src[i] != 0)
			continue;
		if (last && t.cap.pkt[i].psn <= last && back < 0)
			back = (int)i;
		if (back < 0 && t.cap.pkt[i].psn > 0x126)
			ooo++;
		last = t.cap.pkt[i].psn;
	}
	CHECK(back >= 0 && t.cap.pkt[back].psn == 0x126, "go-back-N from PSN 0x126 (%x)",
	      back >= 0 ? t.cap.pkt[back].psn : 0);
	CHECK(ooo >= 1, "packets after the lost one arrived out of sequence");
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_RX_SEQ_ERR), ooo, "each of them counted out of sequence");
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_RETRANSMIT), 1, "one go-back-N restart");
	CHECK_EQ(tb_qp_query(t.qp[1]).cur_state, HCA_QPS_RTS, "responder still RTS");
	CHECK_EQ(tb_qp_query(t.qp[1]).rq_psn_expected, 0x12d, "ePSN after the message");
	done("PSN sequence NAK");
}

static void a_psn10(struct tb_qp_attr *a)
{
	a->sq_psn = 0x10;	/* bit 8 clear */
	a->rq_psn = 0x10;
	a->timeout = 12;
}

/* A PSN sequence NAK for `psn`, from node 1's address, straight into node 0's receive path. */
static void inject_nak_seq(uint32_t psn)
{
	static uint8_t buf[256];
	struct roce_pkt p;
	size_t n;

	roce_pkt_init(&p, HCA_BTH_OP_RC_ACKNOWLEDGE);
	p.dqpn = t.qp[0]->qpn;
	p.psn = psn;
	p.aeth.syndrome = AETH_NAK_SYN(HCA_AETH_NAK_PSN_SEQ_ERR);
	p.aeth.msn = 0;
	memcpy(p.dmac, t.n[0]->mac, 6);
	memcpy(p.smac, t.n[1]->mac, 6);
	p.sip = t.n[1]->ip;
	p.dip = t.n[0]->ip;
	p.sport = 0xC000;
	n = roce_build(&p, NULL, 0, buf, sizeof(buf));
	CHECK(n > 0, "NAK frame built");
	t.n[0]->ops->rx_frame(t.n[0]->eng, buf, n);
}

/*
 * The same PSN sequence NAK again with nothing acknowledged since restarts
 * nothing (docs/model.md: one go-back-N per NAK PSN; the model's rule), also
 * across a modify of the QP (RTS -> RTS) between the two NAKs: the modify
 * rewrites retry_cnt, not the NAK in progress.  Every request frame is lost
 * until the check; then the ACK timer's resend completes the SEND.
 */
static void nak_again_after_modify(void)
{
	struct hca_cqe c;
	struct tb_sge r;

	setup_attr(a_psn10);
	r = rt_sge(t.mr[1], 0, 100);
	tb_post_recv(t.qp[1], &r, 1);
	set_rule(0, -1, -1, -1);
	post_send(100);
	while (cap_count(0, HCA_BTH_OP_RC_SEND_ONLY, -1) == 0 && tb_step(t.tb, RT_WAIT))
		;
	inject_nak_seq(0x10);
	tb_run_for(t.tb, 5000);
	CHECK_EQ(cap_count(0, HCA_BTH_OP_RC_SEND_ONLY, -1), 2, "the NAK: go-back-N, the SEND again");
	CHECK_EQ(tb_qp_modify(t.qp[0], HCA_QPS_RTS, 0), HCA_MGMT_STATUS_OK, "RTS -> RTS");
	inject_nak_seq(0x10);
	tb_run_for(t.tb, 5000);
	CHECK_EQ(cap_count(0, HCA_BTH_OP_RC_SEND_ONLY, -1), 2, "the same NAK again after the modify: no resend");
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_RETRANSMIT), 1, "one go-back-N restart");
	rule.times = 0;
	memset(&c, 0, sizeof(c));
	CHECK(tb_cq_wait(t.scq[0], &c, 1ull << 26) && c.status == HCA_WC_SUCCESS,
	      "the ACK timer's resend (2^22 cycles) completes (%s)", hca_wc_status_name(c.status));
	done("the same NAK across a QP modify");
}

static void nak_remote_op(void)
{
	struct hca_cqe c;
	struct tb_sge s, r;

	/* the responder's RQ ring is not mapped: the receive WQE fetch faults */
	setup_attr(NULL);
	t.qp[1]->qpc.rq_base = 0x7700000000ull;
	tb_qp_modify(t.qp[1], HCA_QPS_RTS, 0);
	s = rt_sge(t.mr[0], 0, 10);
	r = rt_sge(t.mr[1], 0, 10);
	tb_post_recv(t.qp[1], &r, 1);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };

		tb_post_send(t.qp[0], &wr);
	}
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_REM_OP_ERR && c.vendor_err == HCA_VENDOR_ERR_NAK_REM_OP,
	      "RQ fetch fault: REM_OP_ERR (%s)", hca_wc_status_name(c.status));
	tb_run(t.tb, RT_WAIT);
	CHECK_EQ(cap_count(1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_NAK_SYN(HCA_AETH_NAK_REMOTE_OP_ERR)), 1,
		 "one NAK remote operational error");
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "requester in ERR");
	CHECK_EQ(tb_qp_query(t.qp[1]).cur_state, HCA_QPS_ERR, "responder in ERR");
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_DMA_FAULT), 1, "fault counted");
	done("NAK remote operational error");
}

/* Hand-built requests a well-behaved requester never sends: NAK invalid request. */
static void nak_crafted(uint8_t opcode, uint32_t paylen, uint32_t reth_len, const char *what)
{
	static uint8_t buf[8192], payload[4096];
	struct roce_pkt p;
	struct tb_node *a, *b;
	size_t n;
	int i;

	setup_attr(NULL);
	memset(t.mr[1]->buf, 0x77, 8192);
	memset(payload, 1, sizeof(payload));
	a = t.n[0];
	b = t.n[1];
	roce_pkt_init(&p, opcode);
	p.dqpn = t.qp[1]->qpn;
	p.psn = 0x123;
	p.ackreq = true;
	p.reth.va = t.mr[1]->va;
	p.reth.rkey = t.mr[1]->rkey;
	p.reth.len = reth_len;
	memcpy(p.dmac, b->mac, 6);
	memcpy(p.smac, a->mac, 6);
	p.sip = a->ip;
	p.dip = b->ip;
	p.sport = 0xC000;
	n = roce_build(&p, payload, paylen, buf, sizeof(buf));
	CHECK(n > 0, "%s: built", what);
	b->ops->rx_frame(b->eng, buf, n);
	tb_run(t.tb, RT_WAIT);
	i = cap_find(1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_NAK_SYN(HCA_AETH_NAK_INVALID_REQUEST));
	CHECK(i >= 0 && t.cap.pkt[i].psn == 0x123, "%s: NAK invalid request for PSN 0x123", what);
	CHECK_EQ(tb_qp_query(t.qp[1]).cur_state, HCA_QPS_ERR, what);
	CHECK(t.mr[1]->buf[0] == 0x77 && t.mr[1]->buf[4096] == 0x77, "%s: memory untouched", what);
	done(what);
}

/*
 * Skipping idle time changes nothing (ARCHITECTURE contract 9): an ACK
 * timeout and an RNR wait on plain "rtl" engines, once with idle time
 * skipped up to the next timer deadline (the default) and once clocked
 * cycle by cycle (rtl option warp=0): every frame on the wire, with its
 * cycle, must be the same.
 */
static void a_warp(struct tb_qp_attr *a)
{
	a->timeout = 3;			/* 2^13 cycles */
	a->min_rnr_timer = 1;
}

/* opts: rtl options added to --options' (ls_options_for maps those) */
static unsigned int warp_run(const char *opts, struct rt_cap *out)
{
	static char o[320];
	const char *se = engine, *so = rt_options;
	struct hca_cqe c;
	struct tb_sge r;
	unsigned int ok = 0;

	engine = "rtl";
	snprintf(o, sizeof(o), "%s%s%s", so ? so : "", so && opts ? "," : "", opts ? opts : "");
	rt_options = o[0] ? o : NULL;
	setup_attr(a_warp);
	set_rule(0, HCA_BTH_OP_RC_SEND_ONLY, 0x123, 1);		/* the first SEND is lost once: ACK timeout */
	r = rt_sge(t.mr[1], 0, 100);
	tb_post_recv(t.qp[1], &r, 1);
	post_send(100);
	post_send(100);						/* no receive yet: RNR NAKs */
	tb_run_for(t.tb, 30000);
	tb_post_recv(t.qp[1], &r, 1);
	ok += wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS;
	ok += wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS;
	memcpy(out, &t.cap, sizeof(*out));
	done("warp");
	engine = se;
	rt_options = so;
	return ok;
}

static void warp_exact(void)
{
	static struct rt_cap a, b;
	unsigned int same = 0;

	CHECK_EQ(warp_run(NULL, &a), 2, "idle time skipped: both SENDs complete");
	CHECK_EQ(warp_run("warp=0", &b), 2, "every cycle clocked: both SENDs complete");
	CHECK(a.n == b.n && a.n > 4, "the same number of frames (%u, %u)", a.n, b.n);
	for (unsigned int i = 0; i < a.n && i < b.n; i++)
		same += a.src[i] == b.src[i] && a.when[i] == b.when[i] && a.len[i] == b.len[i] &&
			a.pkt[i].opcode == b.pkt[i].opcode && a.pkt[i].psn == b.pkt[i].psn &&
			a.pkt[i].aeth.syndrome == b.pkt[i].aeth.syndrome;
	CHECK_EQ(same, a.n, "every frame the same, at the same cycle");
	CHECK(cap_count(0, HCA_BTH_OP_RC_SEND_ONLY, -1) >= 4, "a timeout and an RNR wait happened");
}

/*
 * The harness skips idle time only up to hca_timers' lower bound of the
 * armed deadlines (next_dl, raised only after a full scan of the deadline
 * RAM), so an ACK timeout fires on time whatever the cycles the traffic
 * around it ran at: a WRITE A whose frames are all lost arms the ACK timer,
 * the engine idles 3000 + d cycles (skipped), then (after a register read
 * and 3 PMTUs, or no read and 2) a WRITE B of a few hundred cycles of
 * packets goes out (PMTUs of 1024 bytes at 64 bits, 4 times as many at 512;
 * every busy cycle clocked, option quiet=0) and the engine idles again:
 * A is resent 2^(timeout+10) cycles after its first transmission, within
 * RETX_SLACK (rtl/hca_timers.sv: a deadline is found at most
 * 2^LOG_MAX_QP - 1 cycles after it passes).  d is swept over
 * the 256-entry scan in steps of 17, so the scan windows that end before
 * the second idle stretch fall at 16 phases.  RTL alone.
 */
static void a_timeout3(struct tb_qp_attr *a)
{
	a->timeout = 3;			/* 2^13 cycles */
	a->retry_cnt = 1;
}

static void timeout_phase(void)
{
	const uint64_t period = 1ull << (3 + HCA_TIMER_ACK_SHIFT);
	const char *se = engine;
	unsigned int late = 0, n = 0;
	const char *so = rt_options;
	static char o[320];

	engine = "rtl";
	/* busy cycles all clocked: the scan windows complete (after --options') */
	snprintf(o, sizeof(o), "%s%squiet=0", so ? so : "", so ? "," : "");
	rt_options = o;
	for (unsigned int v = 0; v < 2; v++)		/* 2 or 3 PMTUs, a register read or not */
		for (unsigned int d = 0; d < 256; d += 17, n++) {
			unsigned int size = 2 + v, extra = v;
			struct tb_sge s;
			struct tb_send_wr w;
			int first, resend = -1;

			setup_attr(a_timeout3);
			set_rule(0, -1, -1, -1);	/* every frame of node 0 lost */
			s = rt_sge(t.mr[0], 0, 64);
			w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s,
						 .num_sge = 1, .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
			tb_post_send(t.qp[0], &w);
			tb_run_for(t.tb, 3000 + d);
			if (extra)
				(void)tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_INFO);
			s.len = (rt_width == 64 ? 1024 : 4096) * size;	/* a few hundred cycles of packets */
			tb_post_send(t.qp[0], &w);
			tb_run_for(t.tb, period + 4 * RETX_SLACK);
			first = cap_find(0, -1, -1);
			for (unsigned int i = first < 0 ? 0 : (unsigned int)first + 1; first >= 0 && i < t.cap.n; i++)
				if (t.cap.src[i] == 0 && t.cap.pkt[i].psn == t.cap.pkt[first].psn) {
					resend = (int)i;
					break;
				}
			if (first < 0 || resend < 0 || t.cap.when[resend] - t.cap.when[first] < period ||
			    t.cap.when[resend] - t.cap.when[first] > period + RETX_SLACK) {
				late++;
				printf("  d=%u extra=%u: first packet at %lld, its resend at %lld\n", d, extra,
				       first < 0 ? -1ll : (long long)t.cap.when[first],
				       resend < 0 ? -1ll : (long long)t.cap.when[resend]);
			}
			done("ACK timeout at every scan phase");
		}
	CHECK(late == 0, "ACK timeout after %u different traffic phases: resent 2^13 cycles after the first "
	      "packet (within %u) every time (%u late or missing)", n, RETX_SLACK, late);
	engine = se;
	rt_options = so;
}

static const char *only;

static bool want(const char *name)
{
	return !only || !strcmp(only, name);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
	rt_ls_start(argc, argv);
	if (want("rnr_exhaustion"))
		rnr_exhaustion();
	if (want("rnr_infinite"))
		rnr_infinite();
	if (want("rnr_wait"))
		rnr_wait();
	if (want("rnr_wait_new_wqe"))
		rnr_wait_new_wqe();
	if (want("rnr_wait_mid_message"))
		rnr_wait_mid_message();
	if (want("read_atomic_lost"))
		read_atomic_lost();
	if (want("timeout_retry"))
		timeout_retry();
	if (want("retry_exhaustion"))
		retry_exhaustion();
	if (want("retry_cnt_during_item"))
		retry_cnt_during_item();
	if (want("timeout_zero"))
		timeout_zero_is_infinite();
	if (want("rnr_timeout_zero"))
		rnr_then_timeout_zero();
	if (want("nak_psn_seq"))
		nak_psn_seq();
	if (want("nak_again_after_modify"))
		nak_again_after_modify();
	if (want("nak_remote_op"))
		nak_remote_op();
	if (want("warp_exact"))
		warp_exact();
	if (want("timeout_phase"))
		timeout_phase();
	if (want("nak_crafted")) {
		nak_crafted(HCA_BTH_OP_RC_SEND_MIDDLE, 1024, 0, "SEND MIDDLE without FIRST");
		nak_crafted(HCA_BTH_OP_RC_RDMA_WRITE_LAST, 100, 0, "WRITE LAST without FIRST");
		nak_crafted(HCA_BTH_OP_RC_SEND_FIRST, 100, 0, "SEND FIRST shorter than the PMTU");
		nak_crafted(HCA_BTH_OP_RC_RDMA_WRITE_ONLY, 50, 100, "WRITE ONLY payload != DMA length");
		nak_crafted(HCA_BTH_OP_RC_SEND_ONLY, 1028, 0, "SEND ONLY longer than the PMTU");
	}
	return check_done();
}
