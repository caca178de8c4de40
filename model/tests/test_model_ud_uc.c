// SPDX-License-Identifier: MIT
/*
 * UD and UC (IB Vol 1 9.8, 9.9; docs/wire.md 5; programming.md 5.2):
 * UD: DETH on the wire (Q_Key rule of bit 31, source QPN), the 40-byte GRH
 * area (20 zero bytes + the IPv4 header as received, checked field by field
 * against RFC 791), byte_len/src_qp/GRH flag, Q_Key mismatch drop, no
 * receive WQE drop, receive buffer too small, message above the PMTU ->
 * LOC_QP_OP_ERR and SQE (receive side still works), SQE -> RTS.
 * UC: multi-packet SEND/WRITE without ACKs; a lost packet drops the
 * message and keeps its receive WQE for the next one; no WQE -> dropped
 * without RNR; READ refused locally.
 */
#include "mt.h"

static struct mt_cap cap;

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int ud_send(struct mt *t, uint32_t len, uint32_t qkey, uint8_t op, uint32_t imm)
{
	struct tb_sge s = mt_sge(t->mr[0], 0, len);
	struct tb_send_wr wr = { .opcode = op, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				 .ud_dest = t->qp[1], .ud_qkey = qkey, .imm = imm };

	return tb_post_send(t->qp[0], &wr);
}

static void ud(void)
{
	struct tb_qp_attr a;
	struct mt t;
	struct hca_cqe c;
	const uint8_t *g;
	uint32_t len = 777, qkey;

	tb_qp_attr_default(&a);
	qkey = a.qkey;
	mt_setup(&t, HCA_QPT_UD, &a, NULL);
	mt_cap_start(&t, &cap);
	mt_fill(t.mr[0]->buf, 4096, 51);
	memset(t.mr[1]->buf, 0xcc, 8192);
	{
		struct tb_sge r = mt_sge(t.mr[1], 0, 4096);

		tb_post_recv(t.qp[1], &r, 1);
		tb_post_recv(t.qp[1], &r, 1);
	}
	ud_send(&t, len, qkey, HCA_WR_SEND, 0);
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == 0 && c.opcode == HCA_WC_OP_SEND, "UD send completes");
	CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT), "UD receive");
	CHECK_EQ(c.status, HCA_WC_SUCCESS, "status");
	CHECK_EQ(c.byte_len, HCA_GRH_SIZE + len, "byte_len includes the 40-byte GRH area");
	CHECK_EQ(c.src_qp, t.qp[0]->qpn, "src_qp from DETH");
	CHECK_EQ(c.wc_flags, HCA_WC_FLAG_GRH, "IBV_WC_GRH");
	g = t.mr[1]->buf;
	for (int i = 0; i < 20; i++)
		if (g[i]) {
			CHECK(0, "GRH byte %d not zero", i);
			break;
		}
	/* the IPv4 header as it came off the wire (RFC 791 fields, docs/wire.md 1) */
	g += HCA_WIRE_GRH_IPV4_OFF;
	CHECK_EQ(g[0], 0x45, "version/IHL");
	CHECK_EQ(be16(g + 2), 20 + 8 + 12 + 8 + len + (4 - len % 4) % 4 + 4, "total length");
	CHECK_EQ(be16(g + 4), 0, "identification");
	CHECK_EQ(be16(g + 6), 0x4000, "DF");
	CHECK_EQ(g[8], 64, "TTL");
	CHECK_EQ(g[9], 17, "UDP");
	CHECK_EQ(be32(g + 12), t.n[0]->ip, "source address");
	CHECK_EQ(be32(g + 16), t.n[1]->ip, "destination address");
	{
		uint32_t sum = 0;

		for (int i = 0; i < 20; i += 2)
			sum += be16(g + i);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		CHECK_EQ(sum, 0xffff, "header checksum verifies");
	}
	CHECK(mt_check(t.mr[1]->buf + HCA_GRH_SIZE, len, 51), "payload after the GRH area");
	CHECK(t.mr[1]->buf[HCA_GRH_SIZE + len] == 0xcc, "nothing beyond");
	{
		int i = mt_cap_find(&cap, 0, HCA_BTH_OP_UD_SEND_ONLY, -1);

		CHECK(i >= 0, "UD_SEND_ONLY on the wire");
		if (i >= 0) {
			CHECK_EQ(cap.pkt[i].deth.qkey, qkey, "DETH Q_Key");
			CHECK_EQ(cap.pkt[i].deth.src_qp, t.qp[0]->qpn, "DETH source QP");
			CHECK_EQ(cap.pkt[i].dqpn, t.qp[1]->qpn, "BTH destination QP");
			CHECK(!cap.pkt[i].ackreq, "no AckReq on UD");
		}
	}
	/* bit 31 of remote_qkey: the QP's own Q_Key; SEND_WITH_IMM */
	ud_send(&t, 10, 0x80000000u, HCA_WR_SEND_WITH_IMM, 0x0a0b0c0d);
	CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.status == 0, "Q_Key from the QP (bit 31)");
	CHECK_EQ(c.wc_flags, HCA_WC_FLAG_GRH | HCA_WC_FLAG_WITH_IMM, "GRH + imm");
	CHECK_EQ(c.imm_data, 0x0a0b0c0d, "imm");
	/* wrong Q_Key: dropped, counted; the sender still completes */
	ud_send(&t, 10, 0x1234, HCA_WR_SEND, 0);
	tb_run(t.tb, MT_WAIT);
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_RX_DROP_QKEY), 1, "Q_Key mismatch counted");
	CHECK(!tb_cq_poll(t.rcq[1], &c), "no receive completion");
	/* no receive WQE: dropped silently */
	ud_send(&t, 10, qkey, HCA_WR_SEND, 0);
	tb_run(t.tb, MT_WAIT);
	CHECK(!tb_cq_poll(t.rcq[1], &c), "no WQE: nothing");
	while (tb_cq_poll(t.scq[0], &c))
		CHECK_EQ(c.status, 0, "UD sends complete successfully regardless");
	/* receive buffer smaller than GRH + message */
	{
		struct tb_sge r = mt_sge(t.mr[1], 0, 100);

		tb_post_recv(t.qp[1], &r, 1);
	}
	ud_send(&t, 61, qkey, HCA_WR_SEND, 0);
	CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT), "completion for a too-small buffer");
	CHECK(c.status == HCA_WC_LOC_LEN_ERR, "LOC_LEN_ERR (%s)", hca_wc_status_name(c.status));
	CHECK_EQ(tb_qp_query(t.qp[1]).cur_state, HCA_QPS_RTS, "UD receiver stays RTS");
	/* message above the PMTU (1024): LOC_QP_OP_ERR, SQE; later WQEs flushed; receive works in SQE */
	while (tb_cq_poll(t.scq[0], &c))
		;
	ud_send(&t, 1025, qkey, HCA_WR_SEND, 0);
	ud_send(&t, 10, qkey, HCA_WR_SEND, 0);
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_LOC_QP_OP_ERR && c.vendor_err == HCA_VENDOR_ERR_BAD_WQE,
	      "UD above the PMTU: LOC_QP_OP_ERR/BAD_WQE");
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_WR_FLUSH_ERR, "next flushed");
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_SQE, "UD send error -> SQE");
	{
		struct tb_sge r = mt_sge(t.mr[0], 200000, 4096);
		struct tb_sge s = mt_sge(t.mr[1], 0, 10);
		struct tb_send_wr wr = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
					 .ud_dest = t.qp[0], .ud_qkey = qkey };

		tb_post_recv(t.qp[0], &r, 1);
		tb_post_send(t.qp[1], &wr);
		CHECK(tb_cq_wait(t.rcq[0], &c, MT_WAIT) && c.status == 0, "a QP in SQE still receives");
	}
	tb_qp_modify(t.qp[0], HCA_QPS_RTS, 0);
	{
		struct tb_sge r = mt_sge(t.mr[1], 0, 4096);

		tb_post_recv(t.qp[1], &r, 1);
	}
	ud_send(&t, 10, qkey, HCA_WR_SEND, 0);
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == 0, "SQE -> RTS: sends again");
	CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.status == 0, "and it arrives");
	mt_teardown(&t);
}

static int uc_drop_psn = -1;

static bool uc_drop(struct mt_cap *c, unsigned int src, const struct roce_pkt *p)
{
	(void)c;
	if (src == 0 && (int)p->psn == uc_drop_psn) {
		uc_drop_psn = -1;
		return true;
	}
	return false;
}

static void uc(void)
{
	struct mt t;
	struct hca_cqe c;
	struct tb_sge s, r;

	mt_setup(&t, HCA_QPT_UC, NULL, NULL);
	mt_cap_start(&t, &cap);
	mt_fill(t.mr[0]->buf, 1 << 19, 61);
	r = mt_sge(t.mr[1], 0, 8192);
	tb_post_recv(t.qp[1], &r, 1);
	s = mt_sge(t.mr[0], 0, 3000);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };

		tb_post_send(t.qp[0], &wr);
	}
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == 0, "UC SEND completes at the sender");
	CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.byte_len == 3000 && c.wqe_index == 0, "UC SEND received");
	CHECK(mt_check(t.mr[1]->buf, 3000, 61), "UC payload");
	tb_run(t.tb, MT_WAIT);
	CHECK_EQ(mt_cap_count(&cap, 1, -1, -1), 0, "no ACKs on UC");
	CHECK_EQ(mt_cap_count(&cap, 0, HCA_BTH_OP_UC_SEND_FIRST, -1), 1, "UC_SEND_FIRST");
	CHECK_EQ(mt_cap_count(&cap, 0, HCA_BTH_OP_UC_SEND_LAST, -1), 1, "UC_SEND_LAST");
	for (unsigned int i = 0; i < cap.n; i++)
		CHECK(!cap.pkt[i].ackreq, "AckReq 0 on UC");

	/* a lost middle packet: message dropped, receive WQE kept for the next message */
	tb_post_recv(t.qp[1], &r, 1);
	cap.drop = uc_drop;
	uc_drop_psn = 0x123 + 3 + 1;	/* second packet of the next SEND */
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };

		memset(t.mr[1]->buf, 0, 8192);
		tb_post_send(t.qp[0], &wr);
		s = mt_sge(t.mr[0], 100, 2000);
		tb_post_send(t.qp[0], &wr);
	}
	tb_run(t.tb, MT_WAIT);
	CHECK(tb_cq_poll(t.scq[0], &c) && c.status == 0, "lost message: the sender completes anyway");
	CHECK(tb_cq_poll(t.scq[0], &c) && c.status == 0, "second message sent");
	CHECK(tb_cq_poll(t.rcq[1], &c), "one receive completion");
	CHECK_EQ(c.wqe_index, 1, "the WQE the lost message had started is reused");
	CHECK_EQ(c.byte_len, 2000, "it holds the second message");
	CHECK(memcmp(t.mr[1]->buf, t.mr[0]->buf + 100, 2000) == 0, "second message data");
	CHECK(!tb_cq_poll(t.rcq[1], &c), "nothing for the lost message");
	CHECK_EQ(tb_qp_query(t.qp[1]).cur_state, HCA_QPS_RTS, "UC receiver stays RTS");

	/* UC WRITE and WRITE with immediate */
	s = mt_sge(t.mr[0], 0, 5000);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_RDMA_WRITE_WITH_IMM, .flags = HCA_SEND_SIGNALED, .sge = &s,
					 .num_sge = 1, .raddr = t.mr[1]->va + 100000, .rkey = t.mr[1]->rkey, .imm = 5 };

		tb_post_recv(t.qp[1], &r, 1);
		tb_post_send(t.qp[0], &wr);
	}
	CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.opcode == HCA_WC_OP_RECV_RDMA_WITH_IMM && c.byte_len == 5000,
	      "UC WRITE with immediate");
	CHECK(mt_check(t.mr[1]->buf + 100000, 5000, 61), "UC WRITE data");
	/* no receive WQE: dropped, no RNR */
	s = mt_sge(t.mr[0], 0, 10);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };

		tb_post_send(t.qp[0], &wr);
	}
	tb_run(t.tb, MT_WAIT);
	CHECK(!tb_cq_poll(t.rcq[1], &c), "UC without a receive WQE: dropped");
	CHECK_EQ(mt_cap_count(&cap, 1, -1, -1), 0, "still no frames from the UC receiver");
	/* READ is not a UC operation */
	while (tb_cq_poll(t.scq[0], &c))
		;
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = &s,
					 .num_sge = 1, .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };

		tb_post_send(t.qp[0], &wr);
	}
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_LOC_QP_OP_ERR, "UC READ refused");
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_SQE, "UC send error -> SQE");
	mt_teardown(&t);
}

int main(void)
{
	hca_model_engine_register();
	ud();
	uc();
	return check_done();
}
