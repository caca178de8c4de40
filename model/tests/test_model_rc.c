// SPDX-License-Identifier: MIT
/*
 * RC data path between two model engines: SEND / SEND_WITH_IMM / RDMA WRITE
 * (with immediate) / RDMA READ end to end; PMTU segmentation at every MTU
 * checked frame by frame against the IB packetisation rules (opcode
 * sequence, PSNs, payload sizes, RETH/ImmDt placement, AckReq); SGE gather
 * and scatter; inline data; signaled and unsignaled completions.
 */
#include "mt.h"
#include "roce_hdr.h"

/* Request frames node 0 sent, as parsed by the codec (independent of the engine). */
#define CAP_MAX 4096
static struct roce_pkt cap[CAP_MAX];
static unsigned int ncap;
static uint8_t capbuf[CAP_MAX][64];

static int capture(void *ctx, unsigned int src, uint8_t *frame, size_t *len, uint64_t now)
{
	struct roce_pkt p;

	(void)ctx;
	(void)now;
	if (src != 0 || ncap >= CAP_MAX)
		return TB_PASS;
	if (roce_parse(frame, *len, &p) != ROCE_OK) {
		CHECK(0, "node 0 sent a frame the codec refuses");
		return TB_PASS;
	}
	memcpy(capbuf[ncap], p.payload ? p.payload : frame, p.paylen < 64 ? p.paylen : 64);
	p.payload = NULL;
	p.ip_hdr = NULL;
	cap[ncap++] = p;
	return TB_PASS;
}

static void send_recv(struct mt *t, uint8_t op, uint32_t len, uint32_t imm, const char *what)
{
	struct tb_sge s = mt_sge(t->mr[0], 0, len), r = mt_sge(t->mr[1], 0, 65536);
	struct tb_send_wr wr = { .opcode = op, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1, .imm = imm };
	struct hca_cqe c;
	int idx, ridx;

	mt_fill(t->mr[0]->buf, len, len + op);
	memset(t->mr[1]->buf, 0xEE, len + 16);
	ridx = tb_post_recv(t->qp[1], &r, 1);
	idx = tb_post_send(t->qp[0], &wr);
	CHECK(tb_cq_wait(t->scq[0], &c, MT_WAIT), "%s: send completion", what);
	CHECK_EQ(c.status, HCA_WC_SUCCESS, what);
	CHECK_EQ(c.opcode, HCA_WC_OP_SEND, what);
	CHECK_EQ(c.wqe_index, idx, what);
	CHECK_EQ(c.qpn, t->qp[0]->qpn, what);
	CHECK(tb_cq_wait(t->rcq[1], &c, MT_WAIT), "%s: recv completion", what);
	CHECK_EQ(c.status, HCA_WC_SUCCESS, what);
	CHECK_EQ(c.opcode, HCA_WC_OP_RECV, what);
	CHECK_EQ(c.byte_len, len, what);
	CHECK_EQ(c.wqe_index, ridx, what);
	CHECK_EQ(c.qpn, t->qp[1]->qpn, what);
	if (op == HCA_WR_SEND_WITH_IMM) {
		CHECK_EQ(c.wc_flags, HCA_WC_FLAG_WITH_IMM, what);
		CHECK_EQ(c.imm_data, imm, what);
	} else {
		CHECK_EQ(c.wc_flags, 0, what);
	}
	CHECK(mt_check(t->mr[1]->buf, len, len + op), "%s: payload", what);
	CHECK(t->mr[1]->buf[len] == 0xEE, "%s: byte after the message untouched", what);
}

static void basic_ops(void)
{
	struct mt t;
	struct hca_cqe c;
	struct tb_sge s;

	CHECK(mt_setup(&t, HCA_QPT_RC, NULL, NULL) == 0, "setup");
	send_recv(&t, HCA_WR_SEND, 100, 0, "SEND 100");
	send_recv(&t, HCA_WR_SEND, 0, 0, "SEND 0");
	send_recv(&t, HCA_WR_SEND_WITH_IMM, 3000, 0x01020304, "SEND_WITH_IMM 3000");

	/* RDMA WRITE of 5000 bytes into the middle of the peer's MR */
	mt_fill(t.mr[0]->buf, 5000, 7);
	memset(t.mr[1]->buf, 0, 8192);
	s = mt_sge(t.mr[0], 0, 5000);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s,
					 .num_sge = 1, .raddr = t.mr[1]->va + 100, .rkey = t.mr[1]->rkey };

		tb_post_send(t.qp[0], &wr);
	}
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT), "write completion");
	CHECK_EQ(c.status, HCA_WC_SUCCESS, "write status");
	CHECK_EQ(c.opcode, HCA_WC_OP_RDMA_WRITE, "write opcode");
	CHECK(mt_check(t.mr[1]->buf + 100, 5000, 7), "write payload");
	CHECK(t.mr[1]->buf[99] == 0 && t.mr[1]->buf[5100] == 0, "write did not spill");
	CHECK(!tb_cq_poll(t.rcq[1], NULL), "plain WRITE consumes no receive");

	/* RDMA WRITE with immediate: consumes a receive, byte_len = write length */
	{
		struct tb_sge r = mt_sge(t.mr[1], 60000, 16);
		struct tb_send_wr wr = { .opcode = HCA_WR_RDMA_WRITE_WITH_IMM, .flags = HCA_SEND_SIGNALED,
					 .sge = &s, .num_sge = 1, .raddr = t.mr[1]->va + 20000,
					 .rkey = t.mr[1]->rkey, .imm = 0xdeadbeef };

		tb_post_recv(t.qp[1], &r, 1);
		tb_post_send(t.qp[0], &wr);
		CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "write-imm send side");
		CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT), "write-imm recv completion");
		CHECK_EQ(c.opcode, HCA_WC_OP_RECV_RDMA_WITH_IMM, "write-imm opcode");
		CHECK_EQ(c.byte_len, 5000, "write-imm byte_len");
		CHECK_EQ(c.imm_data, 0xdeadbeef, "write-imm imm");
		CHECK_EQ(c.wc_flags, HCA_WC_FLAG_WITH_IMM, "write-imm flags");
		CHECK(mt_check(t.mr[1]->buf + 20000, 5000, 7), "write-imm payload");
	}

	/* RDMA READ of 7777 bytes from the peer */
	mt_fill(t.mr[1]->buf + 300000, 7777, 9);
	memset(t.mr[0]->buf + 400000, 0, 8000);
	s = mt_sge(t.mr[0], 400000, 7777);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = &s,
					 .num_sge = 1, .raddr = t.mr[1]->va + 300000, .rkey = t.mr[1]->rkey };

		tb_post_send(t.qp[0], &wr);
	}
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT), "read completion");
	CHECK_EQ(c.status, HCA_WC_SUCCESS, "read status");
	CHECK_EQ(c.opcode, HCA_WC_OP_RDMA_READ, "read opcode");
	CHECK_EQ(c.byte_len, 7777, "read byte_len");
	CHECK(mt_check(t.mr[0]->buf + 400000, 7777, 9), "read payload");
	CHECK(t.mr[0]->buf[400000 + 7777] == 0, "read did not spill");

	CHECK(tb_run(t.tb, MT_WAIT), "idle at the end");
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_RETRANSMIT), 0, "no retransmissions on a clean wire");
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_RX_DUP) + tb_stat(t.n[1], HCA_STAT_RX_SEQ_ERR), 0, "no dup/seq");
	mt_teardown(&t);
}

/* Packetisation of one message at one MTU, checked against IB rules. */
static void check_segments(uint8_t wr_op, uint32_t len, uint32_t pmtu, uint32_t psn0, const char *what)
{
	uint32_t n = len == 0 ? 1 : (len + pmtu - 1) / pmtu;
	bool write = wr_op == HCA_WR_RDMA_WRITE, read = wr_op == HCA_WR_RDMA_READ;
	uint8_t base = write ? HCA_BTH_OP_RC_RDMA_WRITE_FIRST : HCA_BTH_OP_RC_SEND_FIRST;

	if (read) {
		CHECK_EQ(ncap, 1, what);
		if (ncap == 1) {
			CHECK_EQ(cap[0].opcode, HCA_BTH_OP_RC_RDMA_READ_REQUEST, what);
			CHECK_EQ(cap[0].psn, psn0, what);
			CHECK_EQ(cap[0].reth.len, len, what);
			CHECK(cap[0].ackreq, "%s: READ request has AckReq", what);
		}
		return;
	}
	CHECK_EQ(ncap, n, what);
	for (uint32_t k = 0; k < ncap && k < n; k++) {
		uint8_t want = n == 1 ? base + 4 : k == 0 ? base : k + 1 == n ? base + 2 : base + 1;
		uint32_t plen = k + 1 < n ? pmtu : len - k * pmtu;
		bool ackreq = k + 1 == n || k % 32 == 31;

		CHECK_EQ(cap[k].opcode, want, what);
		CHECK_EQ(cap[k].psn, (psn0 + k) & 0xffffff, what);
		CHECK_EQ(cap[k].paylen, plen, what);
		CHECK_EQ(cap[k].padcnt, (4 - plen % 4) % 4, what);
		CHECK(cap[k].ackreq == ackreq, "%s: packet %u AckReq %d", what, k, cap[k].ackreq);
		CHECK(!cap[k].se, "%s: SE only when solicited", what);
		CHECK_EQ(cap[k].pkey, 0xffff, what);
		CHECK(cap[k].migreq, "%s: MigReq", what);
		if (write && k == 0) {
			CHECK_EQ(cap[k].reth.len, len, what);
		}
		CHECK_EQ(cap[k].sport, 0xC000 | 2, what);
	}
}

static void segmentation(void)
{
	static const uint8_t ops[] = { HCA_WR_SEND, HCA_WR_RDMA_WRITE, HCA_WR_RDMA_READ };

	for (uint8_t mtu = HCA_MTU_256; mtu <= HCA_MTU_4096; mtu++) {
		uint32_t pmtu = 128u << mtu;
		struct tb_qp_attr a;
		struct mt t;
		uint32_t psn = 0xfffff0;	/* crosses the 24-bit wrap */

		tb_qp_attr_default(&a);
		a.path_mtu = mtu;
		a.sq_psn = a.rq_psn = psn;
		CHECK(mt_setup(&t, HCA_QPT_RC, &a, NULL) == 0, "setup mtu %u", pmtu);
		tb_set_filter(t.tb, capture, NULL);
		for (unsigned int oi = 0; oi < 3; oi++) {
			for (unsigned int li = 0; li < 8; li++) {
				uint32_t lens[8] = { 0, 1, pmtu - 1, pmtu, pmtu + 1, 3 * pmtu, 33 * pmtu + 5, 64 * pmtu };
				uint32_t len = lens[li];
				struct tb_sge s = mt_sge(t.mr[0], 0, len), r = mt_sge(t.mr[1], 0, 1 << 20);
				struct tb_send_wr wr = { .opcode = ops[oi], .flags = HCA_SEND_SIGNALED, .sge = &s,
							 .num_sge = 1, .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
				char what[96];
				struct hca_cqe c;

				if (len > (1u << 19))
					continue;
				snprintf(what, sizeof(what), "op %u len %u mtu %u", ops[oi], len, pmtu);
				mt_fill(ops[oi] == HCA_WR_RDMA_READ ? t.mr[1]->buf : t.mr[0]->buf, len, len ^ mtu);
				if (ops[oi] == HCA_WR_SEND)
					tb_post_recv(t.qp[1], &r, 1);
				ncap = 0;
				tb_post_send(t.qp[0], &wr);
				CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS,
				      "%s: completion", what);
				if (ops[oi] == HCA_WR_SEND)
					CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.byte_len == len, "%s: recv", what);
				CHECK(tb_run(t.tb, MT_WAIT), "%s: idle", what);
				check_segments(ops[oi], len, pmtu, psn, what);
				CHECK(mt_check(ops[oi] == HCA_WR_RDMA_READ ? t.mr[0]->buf : t.mr[1]->buf, len, len ^ mtu),
				      "%s: data", what);
				psn = (psn + (len == 0 ? 1 : (len + pmtu - 1) / pmtu)) & 0xffffff;
			}
		}
		tb_set_filter(t.tb, NULL, NULL);
		mt_teardown(&t);
	}
}

static void sge_inline_signal(void)
{
	struct mt t;
	struct hca_cqe c;
	struct tb_qp_attr a;

	tb_qp_attr_default(&a);
	a.path_mtu = HCA_MTU_256;
	CHECK(mt_setup(&t, HCA_QPT_RC, &a, NULL) == 0, "setup");
	/* gather 3 SGEs (odd sizes, odd offsets) -> scatter into 4 SGEs */
	{
		struct tb_sge s[3] = { mt_sge(t.mr[0], 1, 100), mt_sge(t.mr[0], 5000, 333),
				       mt_sge(t.mr[0], 9001, 700) };
		struct tb_sge r[4] = { mt_sge(t.mr[1], 3, 10), mt_sge(t.mr[1], 7000, 500),
				       mt_sge(t.mr[1], 100000, 0), mt_sge(t.mr[1], 200001, 1000) };
		struct tb_send_wr wr = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = s, .num_sge = 3 };
		uint8_t src[1133], dst[1133];

		mt_fill(src, sizeof(src), 42);
		memcpy(t.mr[0]->buf + 1, src, 100);
		memcpy(t.mr[0]->buf + 5000, src + 100, 333);
		memcpy(t.mr[0]->buf + 9001, src + 433, 700);
		tb_post_recv(t.qp[1], r, 4);
		tb_post_send(t.qp[0], &wr);
		CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT), "sge recv");
		CHECK_EQ(c.byte_len, 1133, "sge byte_len");
		memcpy(dst, t.mr[1]->buf + 3, 10);
		memcpy(dst + 10, t.mr[1]->buf + 7000, 500);
		memcpy(dst + 510, t.mr[1]->buf + 200001, 623);
		CHECK(memcmp(src, dst, sizeof(src)) == 0, "gather/scatter data");
		CHECK(t.mr[1]->buf[200001 + 623] == 0, "scatter stops at the message end");
		CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == 0, "sge send completion");
	}
	/* inline: 200 bytes from the WQE itself */
	{
		struct tb_qp_cap cap = { .max_inline = 256 };
		struct tb_qp *q0 = tb_qp_create(t.n[0], HCA_QPT_RC, t.pd[0], t.scq[0], t.rcq[0], NULL, &cap);
		struct tb_qp *q1 = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.scq[1], t.rcq[1], NULL, &cap);
		uint8_t data[200];
		struct tb_sge r = mt_sge(t.mr[1], 0, 4096);
		struct tb_send_wr wr = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED,
					 .inline_data = data, .inline_len = 200 };

		CHECK(tb_connect_pair(q0, q1, &a) == 0, "inline QPs");
		mt_fill(data, 200, 77);
		memset(t.mr[0]->buf, 0, 4096);	/* nothing to gather from memory */
		tb_post_recv(q1, &r, 1);
		tb_post_send(q0, &wr);
		memset(data, 0, sizeof(data));	/* posted: the WQE holds the bytes */
		CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.byte_len == 200, "inline recv");
		CHECK(mt_check(t.mr[1]->buf, 200, 77), "inline payload");
		CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == 0, "inline send completion");
		/* inline RDMA WRITE */
		mt_fill(data, 200, 78);
		wr.opcode = HCA_WR_RDMA_WRITE;
		wr.raddr = t.mr[1]->va + 50000;
		wr.rkey = t.mr[1]->rkey;
		tb_post_send(q0, &wr);
		CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == 0, "inline write completion");
		CHECK(mt_check(t.mr[1]->buf + 50000, 200, 78), "inline write payload");
		free(q0);
		free(q1);
	}
	/* unsignaled WQEs complete silently; a signaled one after them reports its own index */
	{
		struct tb_sge s = mt_sge(t.mr[0], 0, 64);
		struct tb_send_wr wr = { .opcode = HCA_WR_RDMA_WRITE, .sge = &s, .num_sge = 1,
					 .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
		int last;

		for (int i = 0; i < 5; i++)
			tb_post_send(t.qp[0], &wr);
		wr.flags = HCA_SEND_SIGNALED;
		last = tb_post_send(t.qp[0], &wr);
		CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT), "signaled after unsignaled");
		CHECK_EQ(c.wqe_index, last, "only the signaled WQE reports");
		CHECK(tb_run(t.tb, MT_WAIT), "idle");
		CHECK(!tb_cq_poll(t.scq[0], NULL), "no CQE for unsignaled WQEs");
		{
			struct hca_qpc q = tb_qp_query(t.qp[0]);

			CHECK_EQ(q.sq_ci, t.qp[0]->sq_pi, "all WQEs retired");
			CHECK_EQ(q.cur_state, HCA_QPS_RTS, "still RTS");
		}
	}
	mt_teardown(&t);
}

int main(void)
{
	basic_ops();
	segmentation();
	sge_inline_signal();
	return check_done();
}
