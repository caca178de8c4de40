// SPDX-License-Identifier: MIT
/*
 * The requester's WQE prefetch (docs/rtl.md "WQE prefetch"): when the RTL
 * starts a send WQE it reads the next posted one ahead (hca_wqe_prefetch);
 * the model reads a WQE only when it starts it (model/req.c start_wqe).
 * Corner cases, in lockstep against the model where the model's untimed
 * order allows it, else on the rtl engine against the IB rules:
 *   the WQE read from the doorbell of an idle QP faults: reported when the
 *   WQE starts, as a fetch fault (lockstep);
 *   a prefetched WQE whose read faults, reached: the fault is reported when
 *   the WQE starts (DMA_FAULT, the WQE fetch client in the fault latch,
 *   QP_FATAL, both WQEs flushed, WQE 0's packets sent), lockstep;
 *   the same fault never reached: firmware moves the QP to ERR at cycle d
 *   while the WQE before it is still being sent -- no fault may be
 *   reported before the WQE before it has sent its last packet, none at
 *   all if the ERR came first (rtl, swept over d);
 *   a context write (RTS -> RTS) landing while the next WQE is prefetched
 *   or its read is in flight: both WRITEs complete with the right data
 *   (lockstep, swept over the landing cycle, slow reads);
 *   a doorbell landing while the prefetch read is in flight (lockstep,
 *   swept);
 *   a QP reset and reused while a prefetch of its slot 1 is held or in
 *   flight: the new WQE 1 (another length, another target) is the one sent
 *   (rtl, swept);
 *   32-byte WRITEs, a new one posted as each completes, slow reads: the
 *   QP's own ACKs arrive while its next WQE is read, which the requester
 *   does not take before starting that WQE (hca_req REQST_FETCH_WQE gives
 *   way to other QPs only); all complete in order with their data
 *   (lockstep).
 *
 *   rtl_prefetch [--width 64|512] [--engine rtl|lockstep] [--options K=V,...]
 */
#include "rtl_ls.h"

/* The QP's send ring moved to a fresh allocation of which only the first
 * `mapped` slots are mapped (hostmem maps what was asked for: the rest of
 * the page and the guard page after it fault); a context write (RTS ->
 * RTS) gives the engine the new base.  The slots posted must stay within
 * the allocation's page (host side). */
static void sq_map_slots(struct tb_qp *q, unsigned int mapped)
{
	uint64_t iova;

	q->sq = tb_alloc(q->n, (size_t)mapped << q->qpc.log_sq_stride, &iova);
	q->sq_iova = iova;
	q->qpc.sq_base = iova;
	tb_qp_modify(q, HCA_QPS_RTS, 0);
}

static void post_write(struct rt *t, uint64_t off, uint32_t len, uint64_t roff)
{
	struct tb_sge s = rt_sge(t->mr[0], off, len);
	struct tb_send_wr w = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				.raddr = t->mr[1]->va + roff, .rkey = t->mr[1]->rkey };

	tb_post_send(t->qp[0], &w);
}

/* request frames node 0 sent */
static unsigned int requests(const struct rt *t)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < t->cap.n; i++)
		k += t->cap.src[i] == 0 && t->cap.pkt[i].opcode != HCA_BTH_OP_RC_ACKNOWLEDGE;
	return k;
}

/* Setup with the QP's send ring mapped for slot 0 only. */
static void setup_one_slot(struct rt *t)
{
	setup(t, HCA_QPT_RC, NULL, NULL, 10);
	sq_map_slots(t->qp[0], 1);
	tb_evt_clear(t->n[0]);
}

/* A send WQE read faulted (model/req.c start_wqe): one DMA_FAULT, the WQE
 * read client in the fault latch, QP_FATAL; then the request frames sent. */
static void check_wqe_fault(struct rt *t, const char *what, unsigned int frames)
{
	CHECK(tb_stat(t->n[0], HCA_STAT_DMA_FAULT) == 1, "%s: one DMA_FAULT", what);
	CHECK_EQ(tb_mgmt_read(t->n[0], HCA_MGMT_DMA_FAULT_INFO) & 0xff01, HCA_DMA_CLIENT_WQE << 8,
		 "first fault a WQE read");
	CHECK(tb_evt_find(t->n[0], HCA_EVENT_QP_FATAL, t->qp[0]->qpn), "%s: QP_FATAL", what);
	tb_run(t->tb, RT_WAIT);
	CHECK(requests(t) == frames, "%s: %u request frames sent (%u)", what, frames, requests(t));
}

/* WQE 1's slot faults; WQE 0 (a 4 KiB WRITE) goes out first and WQE 1 is
 * prefetched while it does.  The model fetches WQE 1 after WQE 0's packet:
 * the fault comes then (QP_FATAL, the QP in ERR), WQE 0 and WQE 1 are
 * flushed. */
static void fault_reached(void)
{
	struct rt t;
	struct hca_cqe c;

	setup_one_slot(&t);
	rt_fill(t.mr[0]->buf, 4096, 7);
	post_write(&t, 0, 4096, 0);
	post_write(&t, 0, 64, 8192);
	for (int i = 0; i < 2; i++)
		CHECK(wait_cqe(t.scq[0], &c) && c.wqe_index == i && c.status == HCA_WC_WR_FLUSH_ERR,
		      "prefetched WQE faults: WQE %d flushed (status %u, index %u)", i, c.status, c.wqe_index);
	check_wqe_fault(&t, "prefetched WQE faults (WQE 0's 4 packets, nothing of WQE 1)", 4);
	finish(&t, "prefetched WQE fault");
}

/* The WQE read from its doorbell (hca_db_wqe_read: the QP's send queue is
 * idle) faults: WQE 0 (slot 0, mapped) completes first, then WQE 1 (slot 1,
 * not mapped) is posted alone.  The model fetches it when the doorbell
 * starts it: DMA_FAULT (the WQE read client), QP_FATAL, WQE 1 flushed,
 * nothing of it sent. */
static void doorbell_read_fault(void)
{
	struct rt t;
	struct hca_cqe c;

	setup_one_slot(&t);
	rt_fill(t.mr[0]->buf, 64, 9);
	post_write(&t, 0, 64, 0);
	CHECK(wait_cqe(t.scq[0], &c) && c.wqe_index == 0 && c.status == HCA_WC_SUCCESS,
	      "doorbell read: WQE 0 completes (status %u)", c.status);
	CHECK(!memcmp(t.mr[1]->buf, t.mr[0]->buf, 64), "doorbell read: WQE 0's data");
	tb_run(t.tb, RT_WAIT);		/* the QP's items over: its send queue idle at the doorbell */
	post_write(&t, 0, 64, 4096);
	CHECK(wait_cqe(t.scq[0], &c) && c.wqe_index == 1 && c.status == HCA_WC_WR_FLUSH_ERR,
	      "doorbell read faults: WQE 1 flushed (status %u, index %u)", c.status, c.wqe_index);
	check_wqe_fault(&t, "doorbell read faults (WQE 0's packet only)", 1);
	finish(&t, "doorbell WQE read fault");
}

/* The same fault, the QP moved to ERR by firmware d cycles after the
 * doorbell, while WQE 0 (64 KiB, 64 packets) is being sent: the fault is
 * reported only if WQE 0 has sent all its packets (the RTL started WQE 1),
 * never earlier. */
static void fault_not_reached(void)
{
	const char *saved = engine;

	engine = "rtl";
	for (unsigned int d = 0; d <= 12000; d += 1500) {
		struct rt t;
		struct hca_cqe c;
		unsigned int faults, sent;

		setup_one_slot(&t);
		post_write(&t, 0, 65536, 0);
		post_write(&t, 0, 64, 131072);
		tb_run_for(t.tb, d);
		tb_qp_modify(t.qp[0], HCA_QPS_ERR, 0);
		tb_run(t.tb, RT_WAIT);
		faults = tb_stat(t.n[0], HCA_STAT_DMA_FAULT);
		sent = requests(&t);
		CHECK(faults == 0 || (faults == 1 && sent == 64),
		      "d=%u: the prefetched WQE's fault reported only after WQE 0's 64 packets (%u faults, %u sent)",
		      d, faults, sent);
		CHECK(tb_evt_find(t.n[0], HCA_EVENT_QP_FATAL, t.qp[0]->qpn) == (faults != 0),
		      "d=%u: QP_FATAL only with the fault", d);
		for (int i = 0; i < 2; i++)
			CHECK(wait_cqe(t.scq[0], &c) && c.wqe_index == i &&
			      (c.status == HCA_WC_WR_FLUSH_ERR || c.status == HCA_WC_SUCCESS),
			      "d=%u: WQE %d completes (status %u)", d, i, c.status);
		finish(&t, "prefetched WQE fault not reached");
	}
	engine = saved;
}

/* A context write (RTS -> RTS, retry_cnt) lands d cycles after WQE 0 (4
 * KiB, 4 packets) and WQE 1 (300 bytes) are posted, with slow reads: it
 * finds WQE 1's prefetch in flight, held, or used.  Both WRITEs land. */
static void modify_while_prefetched(void)
{
	struct tb_qp_attr a;

	tb_qp_attr_default(&a);
	for (unsigned int d = 0; d < 700; d += 60) {
		struct rt t;
		struct hca_cqe c;

		setup_rd_lat(&t, &a, 150);
		rt_fill(t.mr[0]->buf, 8192, (int)d + 1);
		post_write(&t, 0, 4096, 0);
		post_write(&t, 4096, 300, 65536);
		tb_run_for(t.tb, d);
		t.qp[0]->qpc.retry_cnt = 6;
		tb_qp_modify(t.qp[0], HCA_QPS_RTS, 0);
		for (int i = 0; i < 2; i++)
			CHECK(wait_cqe(t.scq[0], &c) && c.wqe_index == i && c.status == HCA_WC_SUCCESS,
			      "d=%u: WQE %d completes (status %u)", d, i, c.status);
		CHECK(!memcmp(t.mr[1]->buf, t.mr[0]->buf, 4096) &&
		      !memcmp(t.mr[1]->buf + 65536, t.mr[0]->buf + 4096, 300), "d=%u: both WRITEs' data", d);
		finish(&t, "context write while a WQE is prefetched");
	}
}

/* WQE 0 and 1 posted; WQE 2 posted d cycles later, while WQE 1's prefetch
 * read (slow) is in flight or after. */
static void doorbell_during_prefetch(void)
{
	struct tb_qp_attr a;

	tb_qp_attr_default(&a);
	for (unsigned int d = 0; d < 700; d += 70) {
		struct rt t;
		struct hca_cqe c;

		setup_rd_lat(&t, &a, 150);
		rt_fill(t.mr[0]->buf, 8192, (int)d + 2);
		post_write(&t, 0, 2048, 0);
		post_write(&t, 2048, 1000, 16384);
		tb_run_for(t.tb, d);
		post_write(&t, 4096, 64, 32768);
		for (int i = 0; i < 3; i++)
			CHECK(wait_cqe(t.scq[0], &c) && c.wqe_index == i && c.status == HCA_WC_SUCCESS,
			      "d=%u: WQE %d completes (status %u)", d, i, c.status);
		CHECK(!memcmp(t.mr[1]->buf, t.mr[0]->buf, 2048) &&
		      !memcmp(t.mr[1]->buf + 16384, t.mr[0]->buf + 2048, 1000) &&
		      !memcmp(t.mr[1]->buf + 32768, t.mr[0]->buf + 4096, 64), "d=%u: the three WRITEs' data", d);
		finish(&t, "doorbell while a prefetch is in flight");
	}
}

/* The QP reset d cycles after WQE 0 (16 KiB) and WQE 1 (8 KiB) are posted
 * (WQE 1 prefetched, or its read in flight: slow reads), directly or by way
 * of ERR (a flush), and connected again with its rings started over; then a new WQE 0 (a SEND of
 * 40 bytes) alone, and once it completed a new WQE 1 (a WRITE of 100 bytes
 * elsewhere): what goes out is the new WQE 1, not the prefetched old one. */
static void reset_while_prefetched(void)
{
	const char *saved = engine;
	struct tb_qp_attr a;

	engine = "rtl";
	tb_qp_attr_default(&a);
	for (unsigned int k = 0; k < 20; k++) {
		unsigned int d = k / 2 * 90;
		bool via_err = k & 1;
		struct rt t;
		struct hca_cqe c;
		struct tb_sge s, r;
		struct tb_send_wr w;
		unsigned int writes = 0;

		setup_rd_lat(&t, &a, 120);
		post_write(&t, 0, 16384, 0);
		post_write(&t, 0, 8192, 65536);
		tb_run_for(t.tb, d);
		if (via_err)
			tb_qp_modify(t.qp[0], HCA_QPS_ERR, 0);
		else
			tb_qp_modify(t.qp[0], HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK);
		tb_run(t.tb, RT_WAIT);
		while (tb_cq_poll(t.scq[0], &c))
			;
		t.qp[0]->sq_pi = 0;
		t.qp[0]->rq_pi = 0;
		t.qp[1]->rq_pi = 0;
		tb_qp_modify(t.qp[0], HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK);
		tb_qp_modify(t.qp[1], HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK);
		tb_connect_pair(t.qp[0], t.qp[1], &a);
		r = rt_sge(t.mr[1], 0, 64);
		tb_post_recv(t.qp[1], &r, 1);
		s = rt_sge(t.mr[0], 0, 40);
		w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
		t.cap.n = 0;
		tb_post_send(t.qp[0], &w);
		CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS && c.opcode == HCA_WC_OP_SEND &&
		      c.wqe_index == 0, "d=%u%s: new WQE 0 completes as a SEND (status %u)", d, via_err ? " (ERR)" : "", c.status);
		rt_fill(t.mr[0]->buf + 200000, 100, (int)d + 3);
		post_write(&t, 200000, 100, 300000);
		CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS && c.opcode == HCA_WC_OP_RDMA_WRITE &&
		      c.wqe_index == 1, "d=%u: new WQE 1 completes as a WRITE (status %u opcode %u)", d, c.status,
		      c.opcode);
		CHECK(!memcmp(t.mr[1]->buf + 300000, t.mr[0]->buf + 200000, 100), "d=%u: new WQE 1's data", d);
		for (unsigned int i = 0; i < t.cap.n; i++)
			if (t.cap.src[i] == 0 && t.cap.pkt[i].opcode == HCA_BTH_OP_RC_RDMA_WRITE_ONLY)
				writes += t.cap.pkt[i].reth.len == 100;
		CHECK(writes == 1 && requests(&t) == 2, "d=%u: after the reset a SEND and one 100-byte WRITE (%u)",
		      d, requests(&t));
		finish(&t, "QP reset while a WQE is prefetched");
	}
	engine = saved;
}

/* 32-byte WRITEs (a short packet at either width, where the requester may
 * give way while a WQE's read is in flight -- never to its own QP's ACKs),
 * 4 outstanding, a new one posted as each completes, slow reads: the QP's
 * ACKs arrive while its next WQE is read. */
static void give_way(unsigned int n)
{
	struct tb_qp_attr a;
	struct rt t;
	struct hca_cqe c;
	unsigned int posted = 0, done = 0, mask;
	bool ok = true;

	tb_qp_attr_default(&a);
	setup_rd_lat(&t, &a, 60);
	mask = (1u << t.qp[0]->qpc.log_sq_size) - 1;
	rt_fill(t.mr[0]->buf, 32 * n, 5);
	while (done < n) {
		while (posted < n && posted - done < 4) {
			post_write(&t, 32 * posted, 32, 65536 + 32 * posted);
			posted++;
		}
		if (!wait_cqe(t.scq[0], &c)) {
			ok = false;
			break;
		}
		ok = ok && c.wqe_index == (done & mask) && c.status == HCA_WC_SUCCESS;
		done++;
	}
	CHECK(ok && done == n, "give way: %u of %u completions in order, successful", done, n);
	CHECK(!memcmp(t.mr[1]->buf + 65536, t.mr[0]->buf, 32 * n), "give way: the %u WRITEs' data", n);
	CHECK(tb_stat(t.n[0], HCA_STAT_DMA_FAULT) == 0 && requests(&t) == n, "give way: %u frames, no fault",
	      requests(&t));
	finish(&t, "32-byte WRITEs, ACKs during WQE reads");
}

/* More QPs than prefetch entries (hca_top PF_N = 16): nq RC pairs on the
 * same CQs, `per` 64-byte WRITEs posted on each, round robin over the QPs,
 * so the QPs' next-WQE prefetches fill the entries and the WQEs read for a
 * step that gives way (`now`) take other QPs' unused entries (hca_wqe_prefetch
 * "Which entry").  With `fault_qp` < nq (the last QP), that QP's send ring
 * is mapped for slot 0 only: its WQE 1, read ahead when its WQE 0 starts,
 * while the QPs before it hold their next WQEs in the entries below (a deep
 * entry: its tag needs the 5-bit read tag), faults.  As in fault_reached:
 * DMA_FAULT, QP_FATAL, all its WQEs flushed, WQE 0's packet sent; every
 * other QP's WRITEs complete in order with their data (lockstep).  The
 * faulting QP has a send CQ of its own: the model, untimed, flushes it
 * long before the RTL, and a shared CQ's final words (SOL_PI) would tell.
 * The wire is slow (2000 cycles): the model starts WQE 1 right after WQE
 * 0's packet, and WQE 0's ACK must not reach the RTL before its step starts
 * WQE 1 (a race of the test's own timing, see give_way). */
#define MANY_QPS 24
static void many_qps(unsigned int nq, unsigned int per, unsigned int fault_qp, const char *what)
{
	struct tb_qp *q[2][MANY_QPS];
	struct tb_cq *fcq = NULL;
	unsigned int next[MANY_QPS] = { 0 }, done = 0, base = fault_qp < nq ? 1 : 0;
	struct rt t;
	struct hca_cqe c;
	bool ok = true;

	setup_objs_latency(&t, 10, 2000);
	for (unsigned int i = 0; i < nq; i++) {
		if (i == fault_qp)
			fcq = tb_cq_create(t.n[0], 6, NULL);
		q[0][i] = tb_qp_create(t.n[0], HCA_QPT_RC, t.pd[0], i == fault_qp ? fcq : t.scq[0], t.rcq[0], NULL,
				       NULL);
		q[1][i] = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
		tb_connect_pair(q[0][i], q[1][i], NULL);
	}
	rt_fill(t.mr[0]->buf, 64 * nq * per, 11);
	if (base) {
		sq_map_slots(q[0][fault_qp], 1);
		tb_evt_clear(t.n[0]);
	}
	/* round robin; the faulting QP's WQEs last, together (WQE 1 posted
	 * when WQE 0 starts) */
	for (unsigned int j = 0; j < nq * per; j++) {
		unsigned int k = j / (nq - base), i = j % (nq - base), m;

		if (j >= (nq - base) * per) {
			k = j - (nq - base) * per;
			i = fault_qp;
		}
		m = i * per + k;
		t.qp[0] = q[0][i];
		post_write(&t, 64 * m, 64, 65536 + 64 * m);
	}
	while (done < nq * per) {
		unsigned int i;

		if (!wait_cqe(done < (nq - base) * per ? t.scq[0] : fcq, &c)) {
			ok = false;
			break;
		}
		for (i = 0; i < nq && q[0][i]->qpn != c.qpn; i++)
			;
		ok = ok && i < nq && c.wqe_index == next[i] &&
		     c.status == (i == fault_qp ? HCA_WC_WR_FLUSH_ERR : HCA_WC_SUCCESS);
		if (i < nq)
			next[i]++;
		done++;
	}
	CHECK(ok && done == nq * per, "%s: %u of %u completions, in order per QP", what, done, nq * per);
	for (unsigned int i = 0; i < nq; i++) {
		if (i == fault_qp)
			continue;
		ok = ok && !memcmp(t.mr[1]->buf + 65536 + 64 * i * per, t.mr[0]->buf + 64 * i * per, 64 * per);
	}
	CHECK(ok, "%s: every QP's data", what);
	CHECK(tb_stat(t.n[0], HCA_STAT_DMA_FAULT) == base, "%s: %u DMA_FAULT", what, base);
	if (base) {
		CHECK_EQ(tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_INFO) & 0xff01, HCA_DMA_CLIENT_WQE << 8,
			 "the fault a WQE read");
		CHECK(tb_evt_find(t.n[0], HCA_EVENT_QP_FATAL, q[0][fault_qp]->qpn), "%s: QP_FATAL", what);
	}
	tb_run(t.tb, RT_WAIT);
	CHECK(requests(&t) == (nq - base) * per + base, "%s: %u request frames (%u)", what,
	      (nq - base) * per + base, requests(&t));   /* the faulting QP's WQE 0 sent */
	t.qp[0] = q[0][0];
	t.qp[1] = q[1][0];
	free(fcq);
	for (unsigned int i = 1; i < nq; i++) {
		free(q[0][i]);
		free(q[1][i]);
	}
	finish(&t, what);
}

int main(int argc, char **argv)
{
	rt_ls_start(argc, argv);
	fault_reached();
	doorbell_read_fault();
	fault_not_reached();
	modify_while_prefetched();
	doorbell_during_prefetch();
	reset_while_prefetched();
	give_way(40);
	many_qps(20, 6, MANY_QPS, "20 QPs (more than the entries), 6 WRITEs each");
	many_qps(12, 3, 11, "12 QPs, the last one's WQE 1 read faults in a deep entry");
	return check_done();
}
