// SPDX-License-Identifier: MIT
/*
 * Requester and completer corners, on two "lockstep" devices (reference: the
 * C model, DUT: the RTL; any difference is a divergence) and checked on their
 * own against the spec (docs/reference.md, docs/wire.md, IB 9.7.5):
 *   sq_fault_bit15  -- a send queue at an unmapped IOVA with bit 15 set: the
 *                      WQE fetch faults and DMA_FAULT_LO/HI hold that IOVA,
 *                      all 64 bits of it;
 *   implicit_exhausted -- retry_cnt 0: a READ whose response is lost behind
 *                      a SEND's ACK (an implicit NAK, IB 9.7.5.1.4) fails at
 *                      once with RETRY_EXC_ERR, vendor error NAK_SEQ (a
 *                      NAK-kind retry, not an ACK timeout), the SEND flushed;
 *   reads_held      -- eight three-packet READs, max_rd_atomic 4, resent
 *                      after an ACK timeout, with the engines held by one to
 *                      three register reads after every step (held runs of
 *                      both parities) while TXS_RD_OUT and TXS_RCVD are
 *                      live: all complete in order with their data, and
 *                      never more than four READs are outstanding on the
 *                      wire (docs/reference.md QPC max_rd_atomic);
 *   refetch_cached  -- a zero-length WRITE to a silent peer, its fetch buffer
 *                      taken by another QP's WQE, resent after the ACK timeout
 *                      (fetched again), then its send queue unmapped: the
 *                      next resends need no WQE fetch (the model never fetches
 *                      a WQE twice; the RTL keeps the refetched one), so the
 *                      WQE ends in RETRY_EXC_ERR with no DMA fault;
 *   rewind_second_wqe -- firmware rewrites the QP with LOAD_SQ_PSN at a PSN
 *                      of the second of two outstanding WRITEs: the ACK
 *                      timeout goes back to that WQE and packet (the
 *                      go-back-N walk past the oldest WQE);
 *   ack_timer_2p56  -- an ACK timeout of 2^41 cycles armed just before the
 *                      engine clock passes 2^56 - 2^41 (the clock jumped
 *                      there while idle), and one armed above 2^56: each
 *                      fires on time;
 *   ack_timer_busy  -- the same 2^41 ACK timeout armed with the clock past
 *                      2^55, while the node works for another QP pair (a
 *                      stream of WRITEs), so the timer scan reads the
 *                      deadline from its RAM while it waits (an idle node
 *                      jumps to the deadline without reading it): it still
 *                      fires 2^41 cycles after the send, not before.
 * These are corners the mutation analysis found no test for
 * (sim/mutate/answers_rtl.txt, docs/sim.md 11.3).
 *
 *   rtl_req_comp [--width 64|512] [--engine rtl|lockstep|model] [--options K=V,...]
 */
#include "rtl_ls.h"
#include "hostmem.h"

/* Frames from node `src` to QP `dqpn` with `opcode` (-1: any but ACKs). */
static unsigned int frames_to(const struct rt *t, unsigned int src, uint32_t dqpn, int opcode)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < t->cap.n; i++)
		k += t->cap.src[i] == src && t->cap.pkt[i].dqpn == dqpn &&
		     (opcode >= 0 ? t->cap.pkt[i].opcode == (uint8_t)opcode
				  : t->cap.pkt[i].opcode != HCA_BTH_OP_RC_ACKNOWLEDGE);
	return k;
}

/*
 * A send queue at SQ_AT, nothing mapped there (bit 15 of the IOVA set, bit
 * 61 clear): the requester's WQE fetch faults, the QP goes to ERR, and the
 * fault latch names a WQE read at that IOVA (docs/reference.md DMA_FAULT_*:
 * the first fault's IOVA, LO the low 32 bits, HI the high).
 */
static void sq_fault_bit15(void)
{
	const uint64_t sq_at = 0x00000007e0008000ull;
	struct rt t;
	struct tb_sge s;
	struct tb_send_wr w;
	uint32_t lo, hi;

	setup_objs(&t, 10);
	for (int i = 0; i < 2; i++)
		t.qp[i] = tb_qp_create(t.n[i], HCA_QPT_RC, t.pd[i], t.scq[i], t.rcq[i], NULL, NULL);
	CHECK(!hostmem_ptr(t.n[0]->hm, sq_at, 1), "nothing mapped at 0x%llx", (unsigned long long)sq_at);
	t.qp[0]->qpc.sq_base = sq_at;
	tb_connect_pair(t.qp[0], t.qp[1], NULL);
	s = rt_sge(t.mr[0], 0, 64);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	tb_run(t.tb, RT_WAIT);
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "SQ fetch fault at bit 15: the QP in ERR");
	CHECK_EQ(tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_INFO),
		 HCA_MGMT_DMA_FAULT_INFO_VALID_MASK |
		 HCA_FIELD_PREP(HCA_MGMT_DMA_FAULT_INFO_CLIENT, HCA_DMA_CLIENT_WQE), "SQ fetch fault at bit 15: a WQE read");
	lo = tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_LO);
	hi = tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_HI);
	CHECK(lo == (uint32_t)sq_at && hi == (uint32_t)(sq_at >> 32),
	      "SQ fetch fault at bit 15: DMA_FAULT_HI/LO 0x%08x%08x = the SQ's IOVA 0x%llx", hi, lo,
	      (unsigned long long)sq_at);
	finish(&t, "send queue at an unmapped IOVA with bit 15 set");
}

/* drop rule: every READ response from node 1 */
static int drop_read_resp(struct rt_cap *c, unsigned int src, const struct roce_pkt *p)
{
	(void)c;
	return src == 1 && p->opcode >= HCA_BTH_OP_RC_RDMA_READ_RESPONSE_FIRST &&
	       p->opcode <= HCA_BTH_OP_RC_RDMA_READ_RESPONSE_ONLY;
}

/*
 * retry_cnt 0; a READ then a SEND from node 0; every READ response is lost
 * on the wire, so the SEND's ACK covers a READ whose response never came:
 * an implicit NAK (IB 9.7.5.1.4, model/comp.c ack_packet).  With no retry
 * left the READ completes RETRY_EXC_ERR with vendor error NAK_SEQ (a NAK
 * kind of retry; TIMEOUT is the ACK timer's, docs/reference.md), the SEND
 * is flushed, the QP is in ERR, and nothing was resent.
 */
static void implicit_exhausted(void)
{
	struct rt t;
	struct tb_qp_attr a;
	struct tb_sge s[2], r;
	struct tb_send_wr w;
	struct hca_cqe c;

	tb_qp_attr_default(&a);
	a.retry_cnt = 0;
	setup(&t, HCA_QPT_RC, &a, NULL, 10);
	t.cap.drop = drop_read_resp;
	r = rt_sge(t.mr[1], 0x8000, 256);
	tb_post_recv(t.qp[1], &r, 1);
	s[0] = rt_sge(t.mr[0], 0, 128);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = &s[0], .num_sge = 1,
				 .raddr = t.mr[1]->va + 0x1000, .rkey = t.mr[1]->rkey };
	tb_post_send(t.qp[0], &w);
	s[1] = rt_sge(t.mr[0], 0x1000, 100);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s[1], .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.wqe_index == 0 && c.status == HCA_WC_RETRY_EXC_ERR &&
	      c.vendor_err == HCA_VENDOR_ERR_NAK_SEQ,
	      "implicit NAK, no retry left: the READ fails RETRY_EXC_ERR/NAK_SEQ (index %u, %s, vendor %u)",
	      c.wqe_index, hca_wc_status_name(c.status), c.vendor_err);
	CHECK(wait_cqe(t.scq[0], &c) && c.wqe_index == 1 && c.status == HCA_WC_WR_FLUSH_ERR,
	      "implicit NAK, no retry left: the SEND flushed (index %u, %s)", c.wqe_index, hca_wc_status_name(c.status));
	tb_run(t.tb, RT_WAIT);
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "implicit NAK, no retry left: the QP in ERR");
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_RETRANSMIT), 0, "implicit NAK, no retry left: nothing resent");
	CHECK_EQ(frames_to(&t, 0, t.qp[1]->qpn, HCA_BTH_OP_RC_RDMA_READ_REQUEST), 1, "one READ request on the wire");
	t.cap.drop = NULL;
	finish(&t, "implicit NAK with retry_cnt 0");
}

/*
 * Eight READs of 3000 bytes (three response packets each at PMTU 1024,
 * three PSNs) posted at once to a peer in RESET (dropped), max_rd_atomic 4:
 * four go out (TXS_RD_OUT 4); the peer is connected again, the ACK timeout
 * resends them, and as each completes the next READ may start -- all with
 * register reads on each node after every step of the testbench (one to
 * three, `reads` choosing the pattern): the engines are held (eng_hold,
 * rtl/hca_top.sv) for a few clocks between engine cycles while the READ
 * bookkeeping (TXS_RD_OUT 4, 3, 2, ...; TXS_RCVD counting each READ's
 * responses) is live.  Everything must run as without: eight CQEs in order
 * with their data, READs 0-3 sent twice and 4-7 once, and never more than
 * max_rd_atomic READs outstanding (docs/reference.md, QPC max_rd_atomic:
 * READ k goes out only after the last response of READ k-4 came back).
 */
#define HELD_READS 8

static void reads_held(unsigned int reads)
{
	struct rt t;
	struct tb_qp_attr a;
	struct tb_sge s[HELD_READS];
	struct tb_send_wr w;
	struct hca_cqe c;
	char what[64];
	unsigned int got = 0, in_order = 1, early = 0;
	uint32_t psn0;

	snprintf(what, sizeof(what), "READs with the engine held (pattern %u)", reads);
	tb_qp_attr_default(&a);
	a.max_rd_atomic = 4;
	a.timeout = 8;			/* 2^18 cycles */
	setup(&t, HCA_QPT_RC, &a, NULL, 10);
	tb_qp_modify(t.qp[1], HCA_QPS_RESET, 0);
	psn0 = tb_qp_query(t.qp[0]).sq_psn_next;
	rt_fill(t.mr[1]->buf, HELD_READS * 4096, 51 + reads);
	for (unsigned int i = 0; i < HELD_READS; i++) {
		s[i] = rt_sge(t.mr[0], 0x10000 + 4096 * (uint64_t)i, 3000);
		w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = &s[i],
					 .num_sge = 1, .raddr = t.mr[1]->va + 4096 * (uint64_t)i, .rkey = t.mr[1]->rkey };
		tb_post_send(t.qp[0], &w);
	}
	tb_run_for(t.tb, 40000);
	CHECK(frames_to(&t, 0, t.qp[1]->qpn, HCA_BTH_OP_RC_RDMA_READ_REQUEST) == 4, "%s: four READs in flight", what);
	tb_qp_connect(t.qp[1], t.qp[0], &a);
	for (uint64_t limit = tb_now(t.tb) + RT_WAIT, step = 0; got < HELD_READS && tb_step(t.tb, limit); step++) {
		for (int n = 0; n < 2; n++)
			for (unsigned int k = 0; k < 1 + (step * reads + (unsigned int)n) % 3; k++)
				(void)tb_stat(t.n[n], HCA_STAT_RX_FRAMES);
		while (tb_cq_poll(t.scq[0], &c)) {
			in_order &= c.wqe_index == got && c.status == HCA_WC_SUCCESS && c.opcode == HCA_WC_OP_RDMA_READ &&
				    c.byte_len == 3000;
			got++;
		}
	}
	CHECK_EQ(got, HELD_READS, what);
	CHECK(in_order, "%s: in order, successful, 3000 bytes each", what);
	for (unsigned int i = 0; i < HELD_READS; i++)
		CHECK(!memcmp(t.mr[0]->buf + 0x10000 + 4096 * i, t.mr[1]->buf + 4096 * i, 3000), "%s: READ %u's data",
		      what, i);
	CHECK_EQ(frames_to(&t, 0, t.qp[1]->qpn, HCA_BTH_OP_RC_RDMA_READ_REQUEST), 4 + HELD_READS,
		 "READs 0-3 sent twice, 4-7 once");
	/* READ k's request after READ k-4's last response on the wire */
	for (unsigned int k = 4; k < HELD_READS; k++) {
		int req = -1, last = -1;

		for (unsigned int i = 0; i < t.cap.n; i++) {
			const struct roce_pkt *p = &t.cap.pkt[i];

			if (t.cap.src[i] == 0 && p->opcode == HCA_BTH_OP_RC_RDMA_READ_REQUEST &&
			    p->psn == ((psn0 + 3 * k) & 0xffffff) && req < 0)
				req = (int)i;
			if (t.cap.src[i] == 1 && p->opcode == HCA_BTH_OP_RC_RDMA_READ_RESPONSE_LAST &&
			    p->psn == ((psn0 + 3 * (k - 4) + 2) & 0xffffff) && last < 0)
				last = (int)i;
		}
		early += req < 0 || last < 0 || req < last;
	}
	CHECK(early == 0, "%s: never more than max_rd_atomic (4) READs outstanding (%u early)", what, early);
	finish(&t, what);
}

/*
 * Node 0's QP A sends a zero-length RDMA WRITE (no SGE: the WQE alone
 * describes it) to a peer that has gone back to RESET (nothing answers);
 * QP B of node 0 then sends a SEND to a live peer (its WQE takes the
 * requester's fetch buffer).  A's ACK timeout resends the WRITE, which
 * fetches A's WQE again; then A's send queue is unmapped.  The further
 * timeouts resend it from what was fetched (the model fetches a WQE once,
 * model/req.c start_wqe; the RTL keeps the WQE it fetched last in its fetch
 * buffer, docs/rtl.md), until retry_cnt is spent: RETRY_EXC_ERR/TIMEOUT,
 * no DMA fault.
 */
static void a_refetch(struct tb_qp_attr *a)
{
	tb_qp_attr_default(a);
	a->timeout = 8;		/* 2^18 cycles */
	a->retry_cnt = 3;
}

static void refetch_cached(void)
{
	const uint64_t sq_at = 0x0000000a20000000ull;
	struct rt t;
	struct tb_qp_attr a;
	struct tb_qp *qa, *pa, *qb, *pb;
	struct tb_sge s, r;
	struct tb_send_wr w;
	struct hca_cqe c;
	uint64_t limit;

	setup_objs(&t, 10);
	qa = tb_qp_create(t.n[0], HCA_QPT_RC, t.pd[0], t.scq[0], t.rcq[0], NULL, NULL);
	pa = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
	qb = tb_qp_create(t.n[0], HCA_QPT_RC, t.pd[0], t.scq[0], t.rcq[0], NULL, NULL);
	pb = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
	t.qp[0] = qa;
	t.qp[1] = pa;
	CHECK(hostmem_map(t.n[0]->hm, sq_at, qa->sq, (size_t)1 << (qa->qpc.log_sq_size + qa->qpc.log_sq_stride),
			  HOSTMEM_RW) == 0, "refetch: QP A's SQ mapped at 0x%llx", (unsigned long long)sq_at);
	qa->qpc.sq_base = sq_at;
	a_refetch(&a);
	tb_connect_pair(qa, pa, &a);
	tb_connect_pair(qb, pb, &a);
	tb_qp_modify(pa, HCA_QPS_RESET, 0);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .num_sge = 0,
				 .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
	tb_post_send(qa, &w);
	tb_run_for(t.tb, 20000);
	CHECK_EQ(frames_to(&t, 0, pa->qpn, -1), 1, "refetch: A's WRITE sent once");
	r = rt_sge(t.mr[1], 0x2000, 64);
	tb_post_recv(pb, &r, 1);
	s = rt_sge(t.mr[0], 0x2000, 64);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(qb, &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.qpn == qb->qpn && c.status == HCA_WC_SUCCESS,
	      "refetch: B's SEND completes (QP %u, %s)", c.qpn, hca_wc_status_name(c.status));
	limit = tb_now(t.tb) + RT_WAIT;
	while (frames_to(&t, 0, pa->qpn, -1) < 2 && tb_step(t.tb, limit))
		;
	CHECK(frames_to(&t, 0, pa->qpn, -1) == 2 && tb_stat(t.n[0], HCA_STAT_DMA_FAULT) == 0,
	      "refetch: A's WRITE resent after the ACK timeout (%u frames), no fault", frames_to(&t, 0, pa->qpn, -1));
	CHECK(hostmem_unmap(t.n[0]->hm, sq_at) == 0, "refetch: A's SQ unmapped");
	CHECK(wait_cqe(t.scq[0], &c) && c.qpn == qa->qpn && c.wqe_index == 0 && c.status == HCA_WC_RETRY_EXC_ERR &&
	      c.vendor_err == HCA_VENDOR_ERR_TIMEOUT,
	      "refetch: A's WRITE ends RETRY_EXC_ERR/TIMEOUT (QP %u index %u, %s, vendor %u)", c.qpn, c.wqe_index,
	      hca_wc_status_name(c.status), c.vendor_err);
	CHECK_EQ(frames_to(&t, 0, pa->qpn, -1), 4, "refetch: the WRITE sent 1 + retry_cnt times");
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_DMA_FAULT), 0, "refetch: no DMA fault");
	t.qp[0] = qa;
	t.qp[1] = pa;
	free(qb);
	free(pb);
	finish(&t, "WQE resent after a refetch, its SQ unmapped");
}

/*
 * The ACK timer near 2^56 cycles of engine time: the engine idles (its clock
 * jumps) to 2^56 - 2^41 - 2^20; a WRITE to a silent peer (in RESET) on a QP
 * with timeout 31 arms the ACK timer 2^41 cycles ahead (docs/reference.md:
 * 2^(timeout+10) cycles), a deadline just below 2^56; with retry_cnt 0 that
 * one timeout fails the WRITE RETRY_EXC_ERR/TIMEOUT, on time -- while the
 * engine's clock passes 2^56 - 2^41, where "now + the timeout" first has a
 * bit of its top byte set (the deadline RAM, hca_timers u_dl, must keep the
 * stored deadline's top byte).
 */
/* The WRITE sent at cycle `sent` on t's QP 0 (retry_cnt 0, an ACK timeout of
 * 2^41 cycles, a silent peer) ends RETRY_EXC_ERR/TIMEOUT 2^41 cycles after
 * the send, not before (and not long after). */
static void expect_timeout_2p41(struct rt *t, uint64_t sent, const char *what)
{
	struct hca_cqe c;
	int got = tb_cq_wait(t->scq[0], &c, 1ull << 42);
	uint64_t done = tb_now(t->tb);

	CHECK(got && c.status == HCA_WC_RETRY_EXC_ERR && c.vendor_err == HCA_VENDOR_ERR_TIMEOUT,
	      "%s: the WRITE times out RETRY_EXC_ERR/TIMEOUT (%s, vendor %u)", what,
	      got ? hca_wc_status_name(c.status) : "no CQE", got ? c.vendor_err : 0);
	CHECK(done >= sent + (1ull << 41) && done < sent + (1ull << 41) + 100000,
	      "%s: on time, 2^41 cycles after the send (%lld)", what, (long long)(done - sent - (1ull << 41)));
}

static void ack_timer_2p56(uint64_t at, const char *what)
{
	struct rt t;
	struct tb_qp_attr a;
	struct tb_sge s;
	struct tb_send_wr w;
	uint64_t sent;

	tb_qp_attr_default(&a);
	a.timeout = 31;
	a.retry_cnt = 0;
	setup(&t, HCA_QPT_RC, &a, NULL, 10);
	tb_qp_modify(t.qp[1], HCA_QPS_RESET, 0);
	tb_run(t.tb, RT_WAIT);
	tb_run_for(t.tb, at - tb_now(t.tb));
	CHECK(tb_now(t.tb) == at, "%s: the clock at 0x%llx", what, (unsigned long long)at);
	s = rt_sge(t.mr[0], 0, 64);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				 .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
	tb_post_send(t.qp[0], &w);
	tb_run_for(t.tb, 20000);
	CHECK(frames_to(&t, 0, t.qp[1]->qpn, -1) == 1, "%s: the WRITE sent", what);
	sent = t.cap.n ? t.cap.when[t.cap.n - 1] : 0;
	expect_timeout_2p41(&t, sent, what);
	finish(&t, what);
}

static void ack_timer_busy(void)
{
	const char *what = "ACK timer past 2^55 while another QP works";
	struct rt t;
	struct tb_qp_attr a;
	struct tb_sge s;
	struct tb_send_wr w;
	struct tb_cq *bcq[2];
	struct tb_qp *b[2];
	struct hca_cqe c;
	uint64_t sent;
	unsigned int nb = 0;

	tb_qp_attr_default(&a);
	a.timeout = 31;
	a.retry_cnt = 0;
	setup(&t, HCA_QPT_RC, &a, NULL, 10);
	for (int i = 0; i < 2; i++) {
		bcq[i] = tb_cq_create(t.n[i], 10, NULL);
		b[i] = tb_qp_create(t.n[i], HCA_QPT_RC, t.pd[i], bcq[i], bcq[i], NULL, NULL);
	}
	tb_connect_pair(b[0], b[1], NULL);
	tb_qp_modify(t.qp[1], HCA_QPS_RESET, 0);
	tb_run(t.tb, RT_WAIT);
	tb_run_for(t.tb, (1ull << 55) + (1ull << 20) - tb_now(t.tb));
	s = rt_sge(t.mr[0], 0, 64);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				 .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
	tb_post_send(t.qp[0], &w);
	tb_run_for(t.tb, 2000);
	CHECK(frames_to(&t, 0, t.qp[1]->qpn, -1) == 1, "%s: the WRITE sent", what);
	sent = t.cap.n ? t.cap.when[t.cap.n - 1] : 0;
	/* 16 WRITEs of 4 KiB on the other pair: thousands of engine cycles on node 0 */
	for (unsigned int i = 0; i < 16; i++) {
		s = rt_sge(t.mr[0], 4096 * (uint64_t)(i % 8), 4096);
		w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s,
					 .num_sge = 1, .raddr = t.mr[1]->va + 4096 * (uint64_t)(i % 8),
					 .rkey = t.mr[1]->rkey };
		tb_post_send(b[0], &w);
	}
	for (unsigned int i = 0; i < 16 && tb_cq_wait(bcq[0], &c, 200000); i++)
		nb += c.status == HCA_WC_SUCCESS;
	CHECK(nb == 16, "%s: the other pair's 16 WRITEs complete (%u)", what, nb);
	CHECK(!tb_cq_poll(t.scq[0], &c), "%s: no completion of the waiting WRITE yet", what);
	expect_timeout_2p41(&t, sent, what);
	finish(&t, what);
	for (int i = 0; i < 2; i++) {
		free(b[i]);
		free(bcq[i]);
	}
}

/*
 * A go-back-N rewind that walks past the oldest WQE (model/comp.c rewind_to:
 * the WQE whose PSNs hold the PSN to go back to, from SQ_CI on): WRITEs 0
 * and 1 of three packets each go to a silent peer (in RESET); firmware then
 * rewrites the QP in RTS with LOAD_SQ_PSN at WRITE 1's second PSN
 * (programming.md 7: the one-shot flag loads the next and the oldest
 * unacknowledged PSN), so the ACK timeout goes back to a PSN of the second
 * outstanding WQE: WRITE 1 is resent from that packet (its MIDDLE, then its
 * LAST), nothing of WRITE 0.
 */
static void rewind_second_wqe(void)
{
	struct rt t;
	struct tb_qp_attr a;
	struct tb_sge s[2];
	struct tb_send_wr w;
	uint32_t psn0, at;
	unsigned int mid = 0, last = 0, other = 0, n0;

	tb_qp_attr_default(&a);
	a.timeout = 8;		/* 2^18 cycles */
	a.retry_cnt = 2;
	setup(&t, HCA_QPT_RC, &a, NULL, 10);
	tb_qp_modify(t.qp[1], HCA_QPS_RESET, 0);
	psn0 = tb_qp_query(t.qp[0]).sq_psn_next;
	for (unsigned int i = 0; i < 2; i++) {
		s[i] = rt_sge(t.mr[0], 4096 * (uint64_t)i, 3000);
		w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s[i],
					 .num_sge = 1, .raddr = t.mr[1]->va + 4096 * (uint64_t)i, .rkey = t.mr[1]->rkey };
		tb_post_send(t.qp[0], &w);
	}
	tb_run_for(t.tb, 50000);
	CHECK(frames_to(&t, 0, t.qp[1]->qpn, -1) == 6, "rewind: two WRITEs of three packets sent (%u frames)",
	      frames_to(&t, 0, t.qp[1]->qpn, -1));
	at = (psn0 + 4) & 0xffffff;
	t.qp[0]->qpc.sq_psn = at;
	CHECK_EQ(tb_qp_modify(t.qp[0], HCA_QPS_RTS, HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK), HCA_MGMT_STATUS_OK,
		 "rewind: QP rewritten in RTS with LOAD_SQ_PSN");
	n0 = t.cap.n;
	tb_run_for(t.tb, (1u << 18) + 50000);
	for (unsigned int i = n0; i < t.cap.n; i++) {
		const struct roce_pkt *p = &t.cap.pkt[i];

		if (t.cap.src[i] != 0)
			continue;
		if (p->opcode == HCA_BTH_OP_RC_RDMA_WRITE_MIDDLE && p->psn == at)
			mid++;
		else if (p->opcode == HCA_BTH_OP_RC_RDMA_WRITE_LAST && p->psn == ((at + 1) & 0xffffff))
			last++;
		else
			other++;
	}
	CHECK(mid == 1 && last == 1 && other == 0,
	      "rewind: after the timeout WRITE 1 resent from PSN 0x%06x (MIDDLE %u, LAST %u, other %u)", at, mid, last,
	      other);
	finish(&t, "a rewind to the second outstanding WQE");
}

int main(int argc, char **argv)
{
	rt_ls_start(argc, argv);
	sq_fault_bit15();
	implicit_exhausted();
	reads_held(1);
	reads_held(2);
	refetch_cached();
	rewind_second_wqe();
	ack_timer_2p56((1ull << 56) - (1ull << 41) - (1ull << 20), "ACK timer below 2^56, the clock across 2^56 - 2^41");
	ack_timer_2p56((1ull << 56) + (1ull << 20), "ACK timer above 2^56");
	ack_timer_busy();
	return check_done();
}
