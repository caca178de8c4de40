// SPDX-License-Identifier: MIT
/*
 * Every NAK code of IB Vol 1 9.7.5.2.x / docs/wire.md 4 on the wire, and the
 * resulting completions, QP states and async events at both ends:
 *   invalid request (message longer than the receive WQE, READ with no
 *   responder resources, misaligned atomic, opcode sequence, lengths),
 *   remote access error (bad rkey, WRITE not enabled on the QP),
 *   remote operational error (receive WQE fetch fault, READ source fault),
 *   PSN sequence error (one NAK per gap, go-back-N recovery),
 *   RNR NAK (timer code from min_rnr_timer, retry after the RNR time).
 * NAK frames are read off the wire with the codec, not from the engine.
 */
#include "mt.h"

static struct mt_cap cap;

static void expect_qp_err(struct tb_qp *qp, const char *what)
{
	struct hca_qpc q = tb_qp_query(qp);

	CHECK_EQ(q.cur_state, HCA_QPS_ERR, what);
}

/* Responder side got `code`: NAK frame on the wire, QP in ERR, event raised. */
static void expect_responder_nak(struct mt *t, uint8_t code, uint32_t psn, uint8_t event, const char *what)
{
	int i = mt_cap_find(&cap, 1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_NAK_SYN(code));

	CHECK(i >= 0, "%s: NAK code %u on the wire", what, code);
	if (i >= 0)
		CHECK_EQ(cap.pkt[i].psn, psn, what);
	CHECK_EQ(mt_cap_count(&cap, 1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_NAK_SYN(code)), 1, what);
	expect_qp_err(t->qp[1], what);
	CHECK(tb_evt_find(t->n[1], event, t->qp[1]->qpn), "%s: responder event %s", what, hca_event_type_name(event));
	CHECK_EQ(tb_stat(t->n[1], HCA_STAT_TX_NAK), 1, what);
}

static void expect_send_cqe(struct mt *t, uint8_t status, uint8_t verr, int idx, const char *what)
{
	struct hca_cqe c;

	CHECK(tb_cq_wait(t->scq[0], &c, MT_WAIT), "%s: requester completion", what);
	CHECK(c.status == status, "%s: status %s, want %s", what, hca_wc_status_name(c.status), hca_wc_status_name(status));
	CHECK_EQ(c.vendor_err, verr, what);
	CHECK_EQ(c.wqe_index, idx, what);
}

static void nak_len(void)
{
	struct mt t;
	struct hca_cqe c;
	struct tb_sge s = { 0 }, r = { 0 };
	struct tb_send_wr wr = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .num_sge = 1 };
	int a, b;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	mt_cap_start(&t, &cap);
	s = mt_sge(t.mr[0], 0, 200);
	r = mt_sge(t.mr[1], 0, 100);
	wr.sge = &s;
	tb_post_recv(t.qp[1], &r, 1);
	tb_post_recv(t.qp[1], &r, 1);
	tb_post_recv(t.qp[1], &r, 1);
	memset(t.mr[1]->buf, 0x5a, 256);
	a = tb_post_send(t.qp[0], &wr);
	b = tb_post_send(t.qp[0], &wr);
	expect_send_cqe(&t, HCA_WC_REM_INV_REQ_ERR, HCA_VENDOR_ERR_NAK_INV_REQ, a, "long SEND");
	expect_send_cqe(&t, HCA_WC_WR_FLUSH_ERR, HCA_VENDOR_ERR_FLUSH, b, "long SEND: next flushed");
	CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT), "receive side completion");
	CHECK(c.status == HCA_WC_LOC_LEN_ERR, "receive LOC_LEN_ERR (%s)", hca_wc_status_name(c.status));
	CHECK_EQ(c.vendor_err, HCA_VENDOR_ERR_LENGTH, "vendor LENGTH");
	CHECK_EQ(c.wqe_index, 0, "first receive WQE");
	for (int i = 1; i < 3; i++) {
		CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.status == HCA_WC_WR_FLUSH_ERR, "rest of RQ flushed");
		CHECK_EQ(c.wqe_index, i, "flush order");
	}
	CHECK(tb_run(t.tb, MT_WAIT), "idle");
	expect_responder_nak(&t, HCA_AETH_NAK_INVALID_REQUEST, 0x123, HCA_EVENT_QP_REQ_ERR, "long SEND");
	expect_qp_err(t.qp[0], "requester QP in ERR");
	CHECK_EQ(tb_mgmt_read(t.n[0], HCA_MGMT_EVT_COUNT), 0, "requester: error completion, no async event");
	CHECK(t.mr[1]->buf[0] == 0x5a, "nothing scattered past a failing length check");
	/* a QP in ERR completes new WQEs with flush errors at once */
	b = tb_post_send(t.qp[0], &wr);
	expect_send_cqe(&t, HCA_WC_WR_FLUSH_ERR, HCA_VENDOR_ERR_FLUSH, b, "posted in ERR");
	mt_teardown(&t);
}

static void nak_read_no_resources(void)
{
	struct mt t;
	struct tb_qp_attr a;
	struct tb_sge s;

	tb_qp_attr_default(&a);
	a.max_dest_rd_atomic = 0;
	mt_setup(&t, HCA_QPT_RC, &a, NULL);
	mt_cap_start(&t, &cap);
	s = mt_sge(t.mr[0], 0, 64);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = &s,
					 .num_sge = 1, .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };

		tb_post_send(t.qp[0], &wr);
	}
	expect_send_cqe(&t, HCA_WC_REM_INV_REQ_ERR, HCA_VENDOR_ERR_NAK_INV_REQ, 0, "READ, no resources");
	tb_run(t.tb, MT_WAIT);
	expect_responder_nak(&t, HCA_AETH_NAK_INVALID_REQUEST, 0x123, HCA_EVENT_QP_REQ_ERR, "READ, no resources");
	mt_teardown(&t);
}

/* Hand-built requests: checks a well-behaved requester cannot trigger. */
static void nak_crafted(uint8_t opcode, uint32_t paylen, uint64_t va_off, uint32_t reth_len, const char *what)
{
	struct mt t;
	struct roce_pkt p;
	uint8_t payload[4096];
	uint64_t before;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	mt_cap_start(&t, &cap);
	memset(t.mr[1]->buf, 0x77, 8192);
	memcpy(&before, t.mr[1]->buf, 8);
	memset(payload, 1, sizeof(payload));
	roce_pkt_init(&p, opcode);
	p.dqpn = t.qp[1]->qpn;
	p.psn = 0x123;
	p.ackreq = true;
	p.reth.va = p.atmeth.va = t.mr[1]->va + va_off;
	p.reth.rkey = p.atmeth.rkey = t.mr[1]->rkey;
	p.reth.len = reth_len;
	p.atmeth.swap_add = 1;
	CHECK(mt_inject(&t, 0, 1, &p, payload, paylen) == 0, "%s: built", what);
	tb_run(t.tb, MT_WAIT);
	expect_responder_nak(&t, HCA_AETH_NAK_INVALID_REQUEST, 0x123, HCA_EVENT_QP_REQ_ERR, what);
	CHECK(memcmp(t.mr[1]->buf, &before, 8) == 0 && t.mr[1]->buf[4096] == 0x77, "%s: memory untouched", what);
	CHECK_EQ(tb_qp_query(t.qp[1]).msn, 0, what);
	mt_teardown(&t);
}

/*
 * A packet of another operation inside a multi-packet message (docs/wire.md 4.2
 * check 1, opcode sequence): a SEND MIDDLE after RDMA WRITE FIRST is an invalid
 * request, NAKed at its PSN; the WRITE's first packet stays written.
 */
static void nak_sequence(void)
{
	struct mt t;
	struct roce_pkt p;
	uint8_t payload[1024];

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	mt_cap_start(&t, &cap);
	memset(payload, 5, sizeof(payload));
	roce_pkt_init(&p, HCA_BTH_OP_RC_RDMA_WRITE_FIRST);
	p.dqpn = t.qp[1]->qpn;
	p.psn = 0x123;
	p.reth.va = t.mr[1]->va;
	p.reth.rkey = t.mr[1]->rkey;
	p.reth.len = 3 * 1024;
	CHECK(mt_inject(&t, 0, 1, &p, payload, 1024) == 0, "WRITE FIRST built");
	tb_run(t.tb, MT_WAIT);
	roce_pkt_init(&p, HCA_BTH_OP_RC_SEND_MIDDLE);
	p.dqpn = t.qp[1]->qpn;
	p.psn = 0x124;
	p.ackreq = true;
	CHECK(mt_inject(&t, 0, 1, &p, payload, 1024) == 0, "SEND MIDDLE built");
	tb_run(t.tb, MT_WAIT);
	expect_responder_nak(&t, HCA_AETH_NAK_INVALID_REQUEST, 0x124, HCA_EVENT_QP_REQ_ERR,
			     "SEND MIDDLE inside an RDMA WRITE");
	CHECK(t.mr[1]->buf[0] == 5 && t.mr[1]->buf[1023] == 5 && t.mr[1]->buf[1024] == 0,
	      "the WRITE's first packet written, nothing of the SEND");
	CHECK(!tb_cq_poll(t.rcq[1], NULL), "no receive completion: no receive WQE was involved");
	mt_teardown(&t);
}

static void nak_remote_access(void)
{
	struct mt t;
	struct tb_sge s;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	mt_cap_start(&t, &cap);
	memset(t.mr[1]->buf, 0x33, 4096);
	s = mt_sge(t.mr[0], 0, 3000);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s,
					 .num_sge = 1, .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey ^ 0x1 };

		tb_post_send(t.qp[0], &wr);
		wr.rkey = t.mr[1]->rkey;
		tb_post_send(t.qp[0], &wr);
	}
	expect_send_cqe(&t, HCA_WC_REM_ACCESS_ERR, HCA_VENDOR_ERR_NAK_REM_ACCESS, 0, "bad rkey");
	expect_send_cqe(&t, HCA_WC_WR_FLUSH_ERR, HCA_VENDOR_ERR_FLUSH, 1, "bad rkey: next flushed");
	tb_run(t.tb, MT_WAIT);
	expect_responder_nak(&t, HCA_AETH_NAK_REMOTE_ACCESS_ERR, 0x123, HCA_EVENT_QP_ACCESS_ERR, "bad rkey");
	for (int i = 0; i < 4096; i++)
		if (t.mr[1]->buf[i] != 0x33) {
			CHECK(0, "bad rkey: memory touched at %d", i);
			break;
		}
	/* the second WRITE was never executed: the responder QP is in ERR */
	mt_teardown(&t);

	/* WRITE not enabled in the responder QP's access flags */
	{
		struct tb_qp_attr a;

		tb_qp_attr_default(&a);
		a.access = HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ;
		mt_setup(&t, HCA_QPT_RC, &a, NULL);
		mt_cap_start(&t, &cap);
		s = mt_sge(t.mr[0], 0, 16);
		{
			struct tb_send_wr wr = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s,
						 .num_sge = 1, .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };

			tb_post_send(t.qp[0], &wr);
		}
		expect_send_cqe(&t, HCA_WC_REM_ACCESS_ERR, HCA_VENDOR_ERR_NAK_REM_ACCESS, 0, "WRITE not enabled");
		tb_run(t.tb, MT_WAIT);
		expect_responder_nak(&t, HCA_AETH_NAK_REMOTE_ACCESS_ERR, 0x123, HCA_EVENT_QP_ACCESS_ERR, "WRITE not enabled");
		mt_teardown(&t);
	}
}

static void nak_remote_op(void)
{
	struct mt t;
	struct tb_sge s, r;

	/* the responder's RQ ring is not mapped: receive WQE fetch faults */
	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	mt_cap_start(&t, &cap);
	t.qp[1]->qpc.rq_base = 0x7700000000ull;
	tb_qp_modify(t.qp[1], HCA_QPS_RTS, 0);
	s = mt_sge(t.mr[0], 0, 10);
	r = mt_sge(t.mr[1], 0, 10);
	tb_post_recv(t.qp[1], &r, 1);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };

		tb_post_send(t.qp[0], &wr);
	}
	expect_send_cqe(&t, HCA_WC_REM_OP_ERR, HCA_VENDOR_ERR_NAK_REM_OP, 0, "RQ fetch fault");
	tb_run(t.tb, MT_WAIT);
	expect_responder_nak(&t, HCA_AETH_NAK_REMOTE_OP_ERR, 0x123, HCA_EVENT_QP_FATAL, "RQ fetch fault");
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_DMA_FAULT), 1, "fault counted");
	CHECK_EQ(HCA_FIELD_GET(tb_mgmt_read(t.n[1], HCA_MGMT_DMA_FAULT_INFO), HCA_MGMT_DMA_FAULT_INFO_CLIENT),
		 HCA_DMA_CLIENT_WQE, "fault client WQE");
	CHECK_EQ(tb_mgmt_read(t.n[1], HCA_MGMT_DMA_FAULT_LO), 0, "fault IOVA low (ring slot 0)");
	CHECK_EQ(tb_mgmt_read(t.n[1], HCA_MGMT_DMA_FAULT_HI), 0x77, "fault IOVA high");
	mt_teardown(&t);

	/* READ from an MR whose pages are not mapped in the IOMMU */
	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	mt_cap_start(&t, &cap);
	{
		struct hca_mrc c;
		struct tb_sge d = mt_sge(t.mr[0], 0, 2500);
		struct tb_send_wr wr = { .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = &d,
					 .num_sge = 1, .raddr = 0x4000, .rkey = 900 << 8 | 9 };

		memset(&c, 0, sizeof(c));
		c.valid = 1;
		c.key = 9;
		c.access = MT_ACC_ALL;
		c.pdn = t.pd[1];
		c.va = 0x4000;
		c.length = 1 << 20;
		c.dma_addr = 0x6600000000ull;
		tb_ctx_write(t.n[1], HCA_CTX_TYPE_MRC, 900, &c, sizeof(c));
		memset(t.mr[0]->buf, 0x44, 4096);
		tb_post_send(t.qp[0], &wr);
		expect_send_cqe(&t, HCA_WC_REM_OP_ERR, HCA_VENDOR_ERR_NAK_REM_OP, 0, "READ source fault");
		tb_run(t.tb, MT_WAIT);
		expect_responder_nak(&t, HCA_AETH_NAK_REMOTE_OP_ERR, 0x123, HCA_EVENT_QP_FATAL, "READ source fault");
		CHECK_EQ(mt_cap_count(&cap, 1, HCA_BTH_OP_RC_RDMA_READ_RESPONSE_FIRST, -1), 0, "no response data sent");
		CHECK(t.mr[0]->buf[0] == 0x44, "nothing written locally");
	}
	mt_teardown(&t);
}

static uint32_t drop_psn;
static int drop_times;

static bool drop_one(struct mt_cap *c, unsigned int src, const struct roce_pkt *p)
{
	(void)c;
	if (src == 0 && p->psn == drop_psn && drop_times > 0) {
		drop_times--;
		return true;
	}
	return false;
}

static void nak_psn_seq(void)
{
	struct mt t;
	struct tb_sge s;
	unsigned int resent = 0;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	mt_cap_start(&t, &cap);
	cap.drop = drop_one;
	drop_psn = 0x123 + 3;
	drop_times = 1;
	mt_fill(t.mr[0]->buf, 10240, 5);
	s = mt_sge(t.mr[0], 0, 10240);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s,
					 .num_sge = 1, .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };

		tb_post_send(t.qp[0], &wr);
	}
	expect_send_cqe(&t, HCA_WC_SUCCESS, 0, 0, "WRITE with a lost packet");
	tb_run(t.tb, MT_WAIT);
	CHECK(mt_check(t.mr[1]->buf, 10240, 5), "data complete after go-back-N");
	CHECK_EQ(mt_cap_count(&cap, 1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_NAK_SYN(HCA_AETH_NAK_PSN_SEQ_ERR)), 1,
		 "exactly one PSN sequence NAK");
	{
		int i = mt_cap_find(&cap, 1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_NAK_SYN(0));

		CHECK(i >= 0 && cap.pkt[i].psn == 0x126, "NAK names the missing PSN");
	}
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_RX_SEQ_ERR), 6, "6 packets arrived out of sequence");
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_RETRANSMIT), 1, "one go-back-N restart");
	for (unsigned int i = 0; i < cap.n; i++)
		if (cap.src[i] == 0 && cap.pkt[i].psn >= 0x126 && cap.pkt[i].psn <= 0x12c)
			resent++;
	CHECK_EQ(resent, 14, "PSNs 0x126..0x12c sent twice (first copy of 0x126 dropped)");
	CHECK_EQ(tb_qp_query(t.qp[1]).cur_state, HCA_QPS_RTS, "responder still RTS");
	CHECK_EQ(tb_qp_query(t.qp[1]).rq_psn_expected, 0x12d, "ePSN after the message");
	mt_teardown(&t);
}

static void nak_rnr(void)
{
	struct mt t;
	struct tb_qp_attr a;
	struct tb_sge s, r;
	struct hca_cqe c;
	int i, j;

	tb_qp_attr_default(&a);
	a.min_rnr_timer = 4;		/* 40 us = HCA_RNR_CYCLES_4 */
	mt_setup(&t, HCA_QPT_RC, &a, NULL);
	mt_cap_start(&t, &cap);
	mt_fill(t.mr[0]->buf, 500, 8);
	s = mt_sge(t.mr[0], 0, 500);
	r = mt_sge(t.mr[1], 0, 500);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };

		tb_post_send(t.qp[0], &wr);
	}
	while (mt_cap_count(&cap, 1, HCA_BTH_OP_RC_ACKNOWLEDGE, -1) == 0 && tb_step(t.tb, MT_WAIT))
		;
	i = mt_cap_find(&cap, 1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_RNR_SYN(4));
	CHECK(i >= 0, "RNR NAK with timer code 4");
	if (i >= 0)
		CHECK_EQ(cap.pkt[i].psn, 0x123, "RNR NAK PSN");
	tb_post_recv(t.qp[1], &r, 1);
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "SEND succeeds after RNR");
	CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.byte_len == 500, "received");
	CHECK(mt_check(t.mr[1]->buf, 500, 8), "payload");
	CHECK_EQ(mt_cap_count(&cap, 0, HCA_BTH_OP_RC_SEND_ONLY, -1), 2, "sent twice");
	/* the retry left no earlier than the RNR time after the NAK reached the requester */
	j = -1;
	for (unsigned int k = 0; k < cap.n; k++)
		if (cap.src[k] == 0 && cap.pkt[k].opcode == HCA_BTH_OP_RC_SEND_ONLY)
			j = (int)k;
	if (i >= 0 && j >= 0)
		CHECK(cap.when[j] >= cap.when[i] + 250 + HCA_RNR_CYCLES_4,
		      "retry at %llu, NAK at %llu", (unsigned long long)cap.when[j], (unsigned long long)cap.when[i]);
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_TX_NAK), 1, "one RNR NAK counted");
	CHECK_EQ(tb_qp_query(t.qp[1]).cur_state, HCA_QPS_RTS, "RNR does not change the responder state");
	mt_teardown(&t);
}

int main(void)
{
	hca_model_engine_register();
	nak_len();
	nak_read_no_resources();
	nak_crafted(HCA_BTH_OP_RC_COMPARE_SWAP, 0, 4, 0, "misaligned atomic");
	nak_crafted(HCA_BTH_OP_RC_SEND_MIDDLE, 1024, 0, 0, "SEND MIDDLE without FIRST");
	nak_crafted(HCA_BTH_OP_RC_RDMA_WRITE_LAST, 100, 0, 0, "WRITE LAST without FIRST");
	nak_crafted(HCA_BTH_OP_RC_SEND_FIRST, 100, 0, 0, "SEND FIRST shorter than the PMTU");
	nak_crafted(HCA_BTH_OP_RC_RDMA_WRITE_ONLY, 50, 0, 100, "WRITE ONLY payload != DMA length");
	nak_crafted(HCA_BTH_OP_RC_RDMA_WRITE_FIRST, 1024, 0, 1000, "WRITE FIRST with DMA length <= PMTU");
	nak_crafted(HCA_BTH_OP_RC_SEND_ONLY, 1028, 0, 0, "SEND ONLY longer than the PMTU");
	/* a READ longer than 2^31 bytes is an invalid request (docs/wire.md 4.2, check 2) */
	nak_crafted(HCA_BTH_OP_RC_RDMA_READ_REQUEST, 0, 0, (uint32_t)HCA_CAP_MAX_MSG_SZ + 1, "READ longer than 2^31");
	/* so is a WRITE whose RETH DMA length is over 2^31 (Linux rxe checks every RETH so, citing IBA C9-94) */
	nak_crafted(HCA_BTH_OP_RC_RDMA_WRITE_FIRST, 1024, 0, (uint32_t)HCA_CAP_MAX_MSG_SZ + 1, "WRITE longer than 2^31");
	nak_sequence();
	nak_remote_access();
	nak_remote_op();
	nak_psn_seq();
	nak_rnr();
	return check_done();
}
