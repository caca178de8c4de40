// SPDX-License-Identifier: MIT
/*
 * RC data path between two RTL engines: SEND, SEND_WITH_IMM, RDMA WRITE and
 * RDMA WRITE_WITH_IMM of many lengths at several path MTUs, SGE gather and
 * scatter, inline data, unsignaled WQEs; data compared byte by byte, CQEs
 * field by field, and every frame on the wire decoded by the packet codec
 * and checked against the IB packetisation rules of docs/wire.md section 2-3
 * (opcode sequence, PSNs, PMTU payloads, pad, RETH/ImmDt placement, AckReq,
 * ACK coalescing and MSN).  Also an SQD drain that ends at SQ index 20
 * (SQ_DRAINED, IB 10.3.1), and WRITEs and a FETCH_ADD that run with the
 * engine held by a register access after every cycle (they complete as
 * without; the AtomicAckETH carries the original value), and a
 * management write with a BAR0 read in the same cycle (both answered), and
 * receive CQ doorbells that race the engine's CQE posts (CQEs as specified).
 *
 *   rtl_rc [--width 64|512] [--options rtl-engine-options]
 */
#include "rtl_t.h"

/* Frames of one message sent by node `src`, starting at capture index `from`. */
static void check_message(struct rt *t, unsigned int from, unsigned int src, uint8_t wr, uint32_t len,
			  uint32_t pmtu, uint32_t psn0, uint32_t imm, const char *what)
{
	bool send = wr == HCA_WR_SEND || wr == HCA_WR_SEND_WITH_IMM;
	bool imm_op = wr == HCA_WR_SEND_WITH_IMM || wr == HCA_WR_RDMA_WRITE_WITH_IMM;
	uint32_t npkt = len ? (len + pmtu - 1) / pmtu : 1, k = 0;
	uint8_t base = send ? HCA_BTH_OP_RC_SEND_FIRST : HCA_BTH_OP_RC_RDMA_WRITE_FIRST;

	for (unsigned int i = from; i < t->cap.n && k < npkt; i++) {
		const struct roce_pkt *p = &t->cap.pkt[i];
		bool first = k == 0, last = k + 1 == npkt;
		uint8_t op;
		uint32_t plen = last ? len - k * pmtu : pmtu;

		if (t->cap.src[i] != src || (p->opcode == HCA_BTH_OP_RC_ACKNOWLEDGE))
			continue;
		if (first && last)
			op = base + (imm_op ? 5 : 4);
		else if (first)
			op = base;
		else if (last)
			op = base + (imm_op ? 3 : 2);
		else
			op = base + 1;
		if (p->opcode != op || p->psn != ((psn0 + k) & 0xffffff) || p->paylen != plen ||
		    p->padcnt != (4 - plen % 4) % 4 || p->ackreq != (last || k % 32 == 31) || !p->migreq || p->se ||
		    p->pkey != 0xffff || p->dqpn != t->qp[!src]->qpn ||
		    p->sport != (0xC000 | (t->qp[src]->qpn & 0x3fff))) {
			CHECK(0, "%s: packet %u: opcode 0x%02x (want 0x%02x) psn 0x%06x (want 0x%06x) paylen %u "
				 "(want %u) pad %u ackreq %d migreq %d pkey 0x%x dqpn %u sport 0x%x", what, k,
			      p->opcode, op, p->psn, (psn0 + k) & 0xffffff, p->paylen, plen, p->padcnt, p->ackreq,
			      p->migreq, p->pkey, p->dqpn, p->sport);
			return;
		}
		if (!send && first && (p->reth.len != len || p->reth.va != t->mr[!src]->va + 64 ||
				       p->reth.rkey != t->mr[!src]->rkey)) {
			CHECK(0, "%s: RETH va 0x%llx rkey 0x%x len %u", what, (unsigned long long)p->reth.va,
			      p->reth.rkey, p->reth.len);
			return;
		}
		if (imm_op && last && p->imm != __builtin_bswap32(imm)) {
			CHECK(0, "%s: ImmDt 0x%08x", what, p->imm);
			return;
		}
		k++;
	}
	CHECK_EQ(k, npkt, what);
}

static void one(struct rt *t, uint8_t wr, uint32_t len, uint32_t pmtu, const char *what)
{
	bool send = wr == HCA_WR_SEND || wr == HCA_WR_SEND_WITH_IMM;
	bool consume = wr != HCA_WR_RDMA_WRITE;
	uint32_t imm = 0xA1B2C3D4u ^ len;
	struct tb_sge s = rt_sge(t->mr[0], 0, len), r = rt_sge(t->mr[1], 64, 65536 + 4096);
	struct tb_send_wr w = { .opcode = wr, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1, .imm = imm,
				.raddr = t->mr[1]->va + 64, .rkey = t->mr[1]->rkey };
	struct hca_qpc q0 = tb_qp_query(t->qp[0]), q1 = tb_qp_query(t->qp[1]);
	unsigned int from = t->cap.n;
	struct hca_cqe c = { 0 };
	int idx, ridx = -1;
	char msg[96];

	snprintf(msg, sizeof(msg), "%s %u bytes, PMTU %u", what, len, pmtu);
	rt_fill(t->mr[0]->buf, len, len * 7 + wr);
	memset(t->mr[1]->buf, 0xEE, len + 128);
	if (consume)
		ridx = tb_post_recv(t->qp[1], &r, 1);
	idx = tb_post_send(t->qp[0], &w);
	CHECK(tb_cq_wait(t->scq[0], &c, RT_WAIT), "%s: send completion", msg);
	CHECK_EQ(c.status, HCA_WC_SUCCESS, msg);
	CHECK_EQ(c.opcode, send ? HCA_WC_OP_SEND : HCA_WC_OP_RDMA_WRITE, msg);
	CHECK_EQ(c.wqe_index, idx, msg);
	CHECK_EQ(c.qpn, t->qp[0]->qpn, msg);
	CHECK_EQ(c.byte_len, 0, msg);
	if (consume) {
		CHECK(tb_cq_wait(t->rcq[1], &c, RT_WAIT), "%s: receive completion", msg);
		CHECK_EQ(c.status, HCA_WC_SUCCESS, msg);
		CHECK_EQ(c.opcode, send ? HCA_WC_OP_RECV : HCA_WC_OP_RECV_RDMA_WITH_IMM, msg);
		CHECK_EQ(c.byte_len, len, msg);
		CHECK_EQ(c.wqe_index, ridx, msg);
		CHECK_EQ(c.qpn, t->qp[1]->qpn, msg);
		CHECK_EQ(c.wc_flags, wr == HCA_WR_SEND ? 0 : HCA_WC_FLAG_WITH_IMM, msg);
		CHECK_EQ(c.imm_data, wr == HCA_WR_SEND ? 0 : imm, msg);
		CHECK_EQ(c.is_srq, 0, msg);
	}
	CHECK(rt_check(t->mr[1]->buf + 64, len, len * 7 + wr), "%s: data", msg);
	CHECK(t->mr[1]->buf[63] == 0xEE && t->mr[1]->buf[64 + len] == 0xEE, "%s: nothing written around", msg);
	check_message(t, from, 0, wr, len, pmtu, q0.sq_psn_next, imm, msg);
	/* the responder ACKs the last packet (and every 32nd) with the MSN after it */
	{
		unsigned int acks = 0;
		uint32_t npkt = len ? (len + pmtu - 1) / pmtu : 1;

		tb_run(t->tb, RT_WAIT);
		for (unsigned int i = from; i < t->cap.n; i++) {
			const struct roce_pkt *p = &t->cap.pkt[i];

			if (t->cap.src[i] != 1)
				continue;
			if (p->opcode != HCA_BTH_OP_RC_ACKNOWLEDGE || p->aeth.syndrome != 0x1F) {
				CHECK(0, "%s: node 1 sent opcode 0x%02x syndrome 0x%02x", msg, p->opcode, p->aeth.syndrome);
				continue;
			}
			acks++;
			if (p->psn == ((q0.sq_psn_next + npkt - 1) & 0xffffff))
				CHECK_EQ(p->aeth.msn, (q1.msn + 1) & 0xffffff, "MSN of the final ACK");
		}
		CHECK_EQ(acks, (npkt + 31) / 32 + (npkt % 32 == 0 ? 0 : 0), msg);
	}
	q0 = tb_qp_query(t->qp[0]);
	CHECK_EQ(q0.sq_ci, q0.sq_pi, "all send WQEs retired");
}

static void per_mtu(uint8_t mtu)
{
	static const uint32_t lens[] = { 0, 1, 3, 4, 255, 256, 257, 1023, 1024, 1025, 4096, 4097, 10000 };
	struct tb_qp_attr a;
	struct rt t;
	uint32_t pmtu = 128u << mtu;

	tb_qp_attr_default(&a);
	a.path_mtu = mtu;
	if (rt_setup(&t, HCA_QPT_RC, &a)) {
		CHECK(0, "setup");
		return;
	}
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		if (mtu != HCA_MTU_1024 && lens[i] > 4097)
			continue;
		one(&t, HCA_WR_SEND, lens[i], pmtu, "SEND");
		one(&t, HCA_WR_RDMA_WRITE, lens[i], pmtu, "WRITE");
		if (lens[i] % 3 == 0 || mtu == HCA_MTU_1024) {
			one(&t, HCA_WR_SEND_WITH_IMM, lens[i], pmtu, "SEND_IMM");
			one(&t, HCA_WR_RDMA_WRITE_WITH_IMM, lens[i], pmtu, "WRITE_IMM");
		}
	}
	CHECK_EQ(t.cap.bad, 0, "every frame decodes (codec: ICRC, lengths, opcodes)");
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_RX_DROP_ICRC) + tb_stat(t.n[1], HCA_STAT_RX_DROP_MALFORMED), 0,
		 "receiver dropped nothing");
	rt_teardown(&t);
}

/* Three-SGE gather into a two-SGE scatter; inline; unsignaled WQEs. */
static void sges_inline_unsignaled(void)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s[3], r[2];
	struct tb_send_wr w;
	uint8_t inl[200];
	int idx;
	struct tb_qp_cap cap = { .max_inline = 256 };

	if (rt_setup_cap(&t, HCA_QPT_RC, NULL, &cap)) {
		CHECK(0, "setup");
		return;
	}
	rt_fill(t.mr[0]->buf, 8192, 99);
	memset(t.mr[1]->buf, 0, 16384);
	s[0] = rt_sge(t.mr[0], 0, 100);
	s[1] = rt_sge(t.mr[0], 1000, 0);	/* empty SGE: skipped */
	s[2] = rt_sge(t.mr[0], 2000, 1900);
	r[0] = rt_sge(t.mr[1], 4096, 1500);
	r[1] = rt_sge(t.mr[1], 8192 + 3, 1000);
	tb_post_recv(t.qp[1], r, 2);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = s, .num_sge = 3 };
	tb_post_send(t.qp[0], &w);
	CHECK(tb_cq_wait(t.rcq[1], &c, RT_WAIT) && c.status == HCA_WC_SUCCESS && c.byte_len == 2000,
	      "gather/scatter receive completion (status %u, %u bytes)", c.status, c.byte_len);
	CHECK(!memcmp(t.mr[1]->buf + 4096, t.mr[0]->buf, 100), "SGE 0 -> first scatter piece");
	CHECK(!memcmp(t.mr[1]->buf + 4096 + 100, t.mr[0]->buf + 2000, 1400), "SGE 2 -> rest of scatter SGE 0");
	CHECK(!memcmp(t.mr[1]->buf + 8192 + 3, t.mr[0]->buf + 2000 + 1400, 500), "SGE 2 tail -> scatter SGE 1");
	CHECK(t.mr[1]->buf[8192 + 3 + 500] == 0 && t.mr[1]->buf[8192 + 2] == 0, "scatter bounds");
	CHECK(tb_cq_wait(t.scq[0], &c, RT_WAIT) && c.status == HCA_WC_SUCCESS, "send completion");

	/* inline SEND */
	rt_fill(inl, sizeof(inl), 5);
	r[0] = rt_sge(t.mr[1], 0, 4096);
	tb_post_recv(t.qp[1], r, 1);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .inline_data = inl,
				 .inline_len = sizeof(inl) };
	tb_post_send(t.qp[0], &w);
	CHECK(tb_cq_wait(t.rcq[1], &c, RT_WAIT) && c.status == HCA_WC_SUCCESS && c.byte_len == sizeof(inl),
	      "inline receive");
	CHECK(!memcmp(t.mr[1]->buf, inl, sizeof(inl)), "inline data");
	CHECK(tb_cq_wait(t.scq[0], &c, RT_WAIT) && c.status == HCA_WC_SUCCESS, "inline send completion");

	/* unsignaled WQEs complete silently; the signaled one after them reports its index */
	for (int i = 0; i < 5; i++) {
		s[0] = rt_sge(t.mr[0], (uint64_t)i * 64, 64);
		w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = i == 4 ? HCA_SEND_SIGNALED : 0,
					 .sge = s, .num_sge = 1, .raddr = t.mr[1]->va + 65536 + (uint64_t)i * 64,
					 .rkey = t.mr[1]->rkey };
		idx = tb_post_send(t.qp[0], &w);
	}
	CHECK(tb_cq_wait(t.scq[0], &c, RT_WAIT) && c.wqe_index == idx, "only the signaled WQE completes");
	tb_run(t.tb, RT_WAIT);
	CHECK(!tb_cq_poll(t.scq[0], &c), "no CQE for unsignaled WQEs");
	CHECK(!memcmp(t.mr[1]->buf + 65536, t.mr[0]->buf, 320), "five WRITEs landed");
	rt_teardown(&t);
}

/* Many WQEs in flight: ACK coalescing, the outstanding table, in-order retirement. */
static void pipeline(void)
{
	struct rt t;
	struct hca_cqe c;
	int got = 0, in_order = 1, last = -1;

	if (rt_setup(&t, HCA_QPT_RC, NULL)) {
		CHECK(0, "setup");
		return;
	}
	rt_fill(t.mr[0]->buf, 1 << 19, 3);
	for (int i = 0; i < 48; i++) {
		struct tb_sge s = rt_sge(t.mr[0], (uint64_t)i * 5000, 5000);
		struct tb_send_wr w = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s,
					.num_sge = 1, .raddr = t.mr[1]->va + (uint64_t)i * 5000,
					.rkey = t.mr[1]->rkey };

		tb_post_send(t.qp[0], &w);
		if (i % 16 == 15) {
			/* drain some completions while more are posted */
			while (tb_cq_poll(t.scq[0], &c)) {
				in_order &= (int)c.wqe_index == last + 1 && c.status == HCA_WC_SUCCESS;
				last = c.wqe_index;
				got++;
			}
		}
	}
	while (got < 48 && tb_cq_wait(t.scq[0], &c, RT_WAIT)) {
		in_order &= (int)c.wqe_index == last + 1 && c.status == HCA_WC_SUCCESS;
		last = c.wqe_index;
		got++;
	}
	CHECK_EQ(got, 48, "48 WRITEs completed");
	CHECK(in_order, "completions in order, all successful");
	CHECK(!memcmp(t.mr[1]->buf, t.mr[0]->buf, 48 * 5000), "240000 bytes landed");
	CHECK_EQ(t.cap.bad, 0, "every frame decodes");
	rt_teardown(&t);
}

static struct tb_send_wr write_wr(struct rt *t, struct tb_sge *s, uint64_t off)
{
	return (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = s, .num_sge = 1,
				    .raddr = t->mr[1]->va + off, .rkey = t->mr[1]->rkey };
}

/* n signaled 64-byte WRITEs one after the other, each waited for (SQ indices 0..n-1) */
static void small_writes(struct rt *t, int n)
{
	struct tb_sge s = rt_sge(t->mr[0], 0, 64);
	struct hca_cqe c;

	for (int i = 0; i < n; i++) {
		struct tb_send_wr w = write_wr(t, &s, 64 * (uint64_t)i);

		tb_post_send(t->qp[0], &w);
		CHECK(tb_cq_wait(t->scq[0], &c, RT_WAIT) && c.status == HCA_WC_SUCCESS && c.wqe_index == i,
		      "WRITE %d of %d first", i, n);
	}
}

/*
 * SQD drain at SQ index 20 (IB 10.3.1, docs/model.md rule 29: with
 * SQD_NOTIFY, SQ_DRAINED once every started WQE has retired): the drain is
 * over when the retired index reaches the taken index, whatever their value
 * -- here both have bit 4 set.  20 WRITEs, the last one still on the wire
 * when the QP goes to SQD.
 */
static void sqd_drain_index(void)
{
	struct rt t;
	struct tb_qp_attr a;
	struct tb_sge s;
	struct tb_send_wr w;
	struct hca_cqe c;
	struct hca_qpc q;

	tb_qp_attr_default(&a);
	a.sqd_notify = true;
	if (rt_setup(&t, HCA_QPT_RC, &a)) {
		CHECK(0, "setup");
		return;
	}
	rt_fill(t.mr[0]->buf, 40000, 17);
	small_writes(&t, 19);
	tb_run(t.tb, RT_WAIT);
	tb_evt_clear(t.n[0]);
	s = rt_sge(t.mr[0], 0, 40000);
	w = write_wr(&t, &s, 65536);
	tb_post_send(t.qp[0], &w);
	{
		unsigned int from = t.cap.n;

		while (t.cap.n == from && tb_step(t.tb, tb_now(t.tb) + RT_WAIT))
			;
		CHECK(t.cap.n > from, "WRITE 19 started");
	}
	tb_qp_modify(t.qp[0], HCA_QPS_SQD, 0);
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_SQD, "RTS -> SQD with WRITE 19 in flight");
	CHECK(tb_cq_wait(t.scq[0], &c, RT_WAIT) && c.status == HCA_WC_SUCCESS && c.wqe_index == 19,
	      "the started WRITE 19 completes in SQD");
	tb_run(t.tb, RT_WAIT);
	q = tb_qp_query(t.qp[0]);
	CHECK(q.sq_ci == 20 && q.sq_draining == 0, "SQ index 20 retired, drained (sq_ci %u, draining %u)", q.sq_ci,
	      q.sq_draining);
	CHECK_EQ(count_evt(t.n[0], HCA_EVENT_SQ_DRAINED, t.qp[0]->qpn), 1, "SQ_DRAINED once at SQ index 20 (SQD_NOTIFY set)");
	CHECK(rt_check(t.mr[1]->buf + 65536, 40000, 17), "WRITE 19's data arrived");
	rt_teardown(&t);
}

/*
 * The engine held by register accesses mid-work (rtl/hca_top.sv eng_hold:
 * the harness holds the engine for every AXI4-Lite access, three clocks for
 * a management read) changes nothing: WRITEs at SQ indices 4-6 run with a
 * management read after every engine cycle of both nodes and complete as
 * without (in order, successful, data landed, the SQ fully retired).
 */
static void held_mid_work(void)
{
	struct rt t;
	struct tb_sge s;
	struct tb_send_wr w;
	struct hca_cqe c;
	struct hca_qpc q;
	int got = 0, in_order = 1;
	uint32_t tx0;

	if (rt_setup(&t, HCA_QPT_RC, NULL)) {
		CHECK(0, "setup");
		return;
	}
	rt_fill(t.mr[0]->buf, 16384, 29);
	small_writes(&t, 4);
	tb_run(t.tb, RT_WAIT);
	tx0 = tb_stat(t.n[0], HCA_STAT_TX_FRAMES);
	for (int i = 4; i < 7; i++) {
		s = rt_sge(t.mr[0], 3000 * (uint64_t)(i - 4), 3000);
		w = write_wr(&t, &s, 8192 + 3000 * (uint64_t)(i - 4));
		tb_post_send(t.qp[0], &w);
	}
	for (uint64_t limit = tb_now(t.tb) + RT_WAIT; got < 3 && tb_step(t.tb, limit);) {
		for (int n = 0; n < 2; n++)
			(void)tb_stat(t.n[n], HCA_STAT_RX_FRAMES);
		while (tb_cq_poll(t.scq[0], &c)) {
			in_order &= c.wqe_index == 4 + got && c.status == HCA_WC_SUCCESS;
			got++;
		}
	}
	CHECK_EQ(got, 3, "three WRITEs completed with the engine held after every cycle");
	CHECK(in_order, "in order (SQ indices 4-6), all successful");
	CHECK(!memcmp(t.mr[1]->buf + 8192, t.mr[0]->buf, 9000), "their 9000 bytes landed");
	tb_run(t.tb, RT_WAIT);
	q = tb_qp_query(t.qp[0]);
	CHECK(q.sq_ci == 7 && q.sq_pi == 7, "SQ retired to index 7 (sq_ci %u, sq_pi %u)", q.sq_ci, q.sq_pi);
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_TX_FRAMES) - tx0, 9, "nine frames sent (3 x 3 packets), no resend");
	rt_teardown(&t);
}

/*
 * An atomic ACK built while the engine is held: node 0's FETCH_ADD runs with
 * a management read after every other engine cycle of both nodes (each
 * holds the engine a few clocks, as in held_mid_work), so node 1's ACK
 * sender keeps its AtomicAckETH fields over an odd number of held clocks
 * between building them and committing the transmit slot (a read after
 * every cycle would add an even number).  The original value has bit 50
 * set; the AtomicAckETH (decoded by the codec), the value returned into
 * node 0's SGE and the target afterwards must be the memory's
 * (docs/wire.md).
 */
static void held_atomic_ack(void)
{
	const uint64_t before = 0x0004000000000077ull;
	struct rt t;
	struct tb_sge s;
	struct tb_send_wr w;
	struct hca_cqe c;
	uint64_t got = 0, after = 0;
	unsigned int n0;
	int done = 0, k = 0;

	if (rt_setup(&t, HCA_QPT_RC, NULL)) {
		CHECK(0, "setup");
		return;
	}
	memcpy(t.mr[1]->buf + 64, &before, 8);
	n0 = t.cap.n;
	s = rt_sge(t.mr[0], 256, 8);
	w = (struct tb_send_wr){ .opcode = HCA_WR_ATOMIC_FETCH_AND_ADD, .flags = HCA_SEND_SIGNALED, .sge = &s,
				 .num_sge = 1, .raddr = t.mr[1]->va + 64, .rkey = t.mr[1]->rkey, .compare_add = 1 };
	tb_post_send(t.qp[0], &w);
	for (uint64_t limit = tb_now(t.tb) + RT_WAIT, step = 0; !done && tb_step(t.tb, limit); step++) {
		if (step % 2 == 0)
			for (int n = 0; n < 2; n++)
				(void)tb_stat(t.n[n], HCA_STAT_RX_FRAMES);
		done = tb_cq_poll(t.scq[0], &c);
	}
	CHECK(done && c.status == HCA_WC_SUCCESS && c.opcode == HCA_WC_OP_FETCH_ADD && c.byte_len == 8,
	      "FETCH_ADD with the engine held after every cycle: CQE (status %u)", done ? c.status : 0);
	memcpy(&got, t.mr[0]->buf + 256, 8);
	memcpy(&after, t.mr[1]->buf + 64, 8);
	CHECK(got == before && after == before + 1, "original value 0x%016llx returned (0x%016llx), target 0x%016llx",
	      (unsigned long long)before, (unsigned long long)got, (unsigned long long)after);
	for (unsigned int i = n0; i < t.cap.n; i++)
		if (t.cap.src[i] == 1 && t.cap.pkt[i].opcode == HCA_BTH_OP_RC_ATOMIC_ACKNOWLEDGE) {
			CHECK(t.cap.pkt[i].atmack_orig == before, "AtomicAckETH original value 0x%016llx (want 0x%016llx)",
			      (unsigned long long)t.cap.pkt[i].atmack_orig, (unsigned long long)before);
			k++;
		}
	CHECK_EQ(k, 1, "one atomic ACK");
	rt_teardown(&t);
}

/*
 * The two register ports at once (rtl/hca_regs.sv: one request at a time,
 * the management port first; docs/rtl.md): a management write and a BAR0
 * read presented in the same cycle, as two masters would, both complete;
 * the read returns the HCA ID (vendor and device ID of the spec), the write
 * took effect.
 */
static void two_masters(void)
{
	struct rt t;
	struct hca_engine *e;
	uint32_t got = 0, want = (uint32_t)HCA_VENDOR_ID << HCA_INIT_HCA_ID_VENDOR_ID_SHIFT | HCA_DEVICE_ID;

	if (rt_setup(&t, HCA_QPT_RC, NULL)) {
		CHECK(0, "setup");
		return;
	}
	e = t.n[0]->eng;
	CHECK_EQ(t.n[0]->ops->bar0_read(e, HCA_BAR0_INIT_SEG + HCA_INIT_HCA_ID), want, "HCA ID read alone");
	CHECK_EQ(rtl_engine_axil_pair(e, HCA_MGMT_CTX_DATA + 4, 0x5a5a1234, HCA_BAR0_INIT_SEG + HCA_INIT_HCA_ID, &got), 0,
		 "management write and BAR0 read at once: both answered");
	CHECK_EQ(got, want, "the BAR0 read, served second, returns the HCA ID");
	CHECK_EQ(t.n[0]->ops->mgmt_read(e, HCA_MGMT_CTX_DATA + 4), 0x5a5a1234, "the management write took effect");
	rt_teardown(&t);
}

/*
 * CQ doorbells racing receive completions (docs/rtl.md: a CQ doorbell that
 * takes effect in the cycle the engine reserves a CQE slot of that CQ goes
 * first, the slot a cycle later): 64-byte SENDs, and at each cycle offset
 * 0..RACE_SPAN after the SEND reaches the wire, the receive CQ's consumer
 * index rung again (the same value) while the engine works
 * (rtl_engine_bar0_write_live, as a driver's doorbell arrives in hardware).
 * Every receive CQE is as IB 11.4.2.1 / programming.md 6 say, to the byte:
 * status, opcode, length, QP, WQE index, P_Key index 0, no SRQ.
 */
#define RACE_SPAN 160
static void cq_doorbell_race(void)
{
	struct rt t;
	struct tb_sge s, r;
	struct tb_send_wr w;
	struct hca_cqe c;
	int ok = 1, rcvd = 0, r_setup;
	const char *saved = rt_options;
	static char opts[256];

	/* every busy cycle clocked (no quiet-cycle skipping): a step is a cycle */
	snprintf(opts, sizeof(opts), "quiet=0%s%s", saved ? "," : "", saved ? saved : "");
	rt_options = opts;
	r_setup = rt_setup(&t, HCA_QPT_RC, NULL);
	rt_options = saved;
	if (r_setup) {
		CHECK(0, "setup");
		return;
	}
	rt_fill(t.mr[0]->buf, 64, 37);
	s = rt_sge(t.mr[0], 0, 64);
	r = rt_sge(t.mr[1], 0, 64);
	for (int k = 0; k <= RACE_SPAN; k++) {
		int ridx = tb_post_recv(t.qp[1], &r, 1);
		unsigned int from = t.cap.n;
		uint64_t limit = tb_now(t.tb) + RT_WAIT;
		uint32_t db = HCA_BAR0_DB_BASE + TB_UAR * HCA_BAR0_DB_PAGE_SIZE + HCA_DB_CQ_CI;

		w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
		tb_post_send(t.qp[0], &w);
		while (t.cap.n == from && tb_step(t.tb, limit))
			;
		for (int i = 0; i < k && tb_step(t.tb, limit); i++)
			;
		ok &= rtl_engine_bar0_write_live(t.n[1]->eng, db, (uint32_t)(uint16_t)t.rcq[1]->ci << 16 |
									    (t.rcq[1]->cqn & 0xffff)) == 0;
		if (!tb_cq_wait(t.rcq[1], &c, RT_WAIT)) {
			CHECK(0, "offset %d: receive completion", k);
			break;
		}
		if (c.status != HCA_WC_SUCCESS || c.opcode != HCA_WC_OP_RECV || c.byte_len != 64 ||
		    c.qpn != t.qp[1]->qpn || c.wqe_index != ridx || c.pkey_index != 0 || c.is_srq || c.wc_flags ||
		    c.imm_data || c.vendor_err) {
			CHECK(0, "offset %d: receive CQE status %u opcode %u len %u qpn %u wqe %u pkey_index 0x%x srq %u",
			      k, c.status, c.opcode, c.byte_len, c.qpn, c.wqe_index, c.pkey_index, c.is_srq);
			ok = 0;
		}
		rcvd++;
		ok &= tb_cq_wait(t.scq[0], &c, RT_WAIT) && c.status == HCA_WC_SUCCESS;
	}
	CHECK(ok && rcvd == RACE_SPAN + 1, "%d SENDs with a live CQ doorbell at every offset: CQEs as specified", rcvd);
	CHECK(rt_check(t.mr[1]->buf, 64, 37), "data");
	rt_teardown(&t);
}

int main(int argc, char **argv)
{
	rt_args(argc, argv);
	per_mtu(HCA_MTU_1024);
	per_mtu(HCA_MTU_256);
	per_mtu(HCA_MTU_4096);
	sges_inline_unsignaled();
	pipeline();
	sqd_drain_index();
	held_mid_work();
	held_atomic_ack();
	two_masters();
	cq_doorbell_race();
	return check_done();
}
