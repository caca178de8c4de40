// SPDX-License-Identifier: MIT
/*
 * Corners of the receive completion and the transport timer that the make
 * test mutation sample (mutate_rtl_sample, sim/mutate/answers_rtl.txt "The
 * make test sample") found no test for, on two "lockstep" devices
 * (reference: the C model, DUT: the RTL; any difference is a divergence)
 * and checked on their own:
 *   recv_total_512m -- a SEND into a receive WQE whose one entry is 512 MiB
 *                     long (RXS_RWQE_TOT bit 29 set; the MR covers it, only
 *                     its first page mapped): the message fits, it lands and
 *                     completes (IB Vol 1 9.7.5.2.4: a length error only
 *                     when the message is longer than the WQE's buffers);
 *   rq_iova_bit60  -- node 1's receive queue mapped at an IOVA with bit 60
 *                     set (nothing mapped without it): two-packet SENDs land
 *                     (the receive WQE is refetched from RXS_RWQE_ADDR);
 *   timer_job_seen -- an ACK timeout (the first SEND lost once): the RTL's
 *                     dbg port names the timer job (JOB_COMP_TIMER) in a
 *                     cycle of the expiry, as docs/rtl.md "Ports of
 *                     hca_top" says dbg[7:0] shows the working job, and the
 *                     SEND completes after the resend.
 *   resp_job_seen  -- a SEND received: node 1's dbg port names the
 *                     responder (JOB_RESP) in a cycle of its work, the same
 *                     dbg[7:0] rule for the job that takes a request packet
 *                     (hca_resp; no RESP job before the SEND).
 *   mr_index_64    -- a SEND gathered from node 0's MR 64 into a receive entry
 *                     of node 1's MR 64 (index 0x40: only bit 6 set; the
 *                     one MR of setup() has a low index): both key checks
 *                     pass, the bytes land (a key names its MR by bits 31:8,
 *                     docs/rtl.md; only index 0 is no MR, model/dma.c
 *                     model_mr_check), and a key of index 0 whose MRC row
 *                     0 is written valid is refused with LKEY all the same.
 *
 *   rtl_comp_corners [--width 64|512] [--engine rtl|lockstep|model] [--options K=V,...] [CASE...]
 */
#include "rtl_ls.h"

/* rtl/hca_defs.vh JOB_COMP_TIMER: the job id dbg[7:0] shows while
 * hca_comp_timer works (docs/rtl.md "Ports of hca_top": dbg). */
#define JOB_COMP_TIMER 19
/* JOB_RESP: the responder (hca_resp), the same table. */
#define JOB_RESP 4

/* Node `i`'s MR `idx` (key `key`, at `va`, `length` bytes, `access`) whose
 * first page, zeroed, is mapped (returned); nothing past it. */
static uint8_t *mr_first_page(struct rt *t, int i, uint32_t idx, uint8_t key, uint64_t va, uint64_t length,
			      uint32_t access)
{
	uint64_t iova;
	uint8_t *buf;

	buf = tb_alloc(t->n[i], 4096, &iova);
	memset(buf, 0, 4096);
	mrc_write_on(t, i, idx, key, access, va, length, iova);
	return buf;
}

/* A 300-byte SEND into one receive entry of 2^29 bytes (MR 905 at va
 * 0x10000000, 2^29 + 4 KiB long, its first page mapped). */
static void recv_total_512m(void)
{
	enum { LEN = 300 };
	const uint64_t va = 0x10000000;
	struct rt t;
	struct hca_cqe c;
	struct tb_sge r, s;
	struct tb_send_wr w;
	uint8_t *buf;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	buf = mr_first_page(&t, 1, 905, 0x07, va, (1ull << 29) + 4096, HCA_ACCESS_LOCAL_WRITE);
	r = (struct tb_sge){ .addr = va, .len = 1u << 29, .lkey = 905u << 8 | 0x07 };
	tb_post_recv(t.qp[1], &r, 1);
	rt_fill(t.mr[0]->buf, LEN, 31);
	s = rt_sge(t.mr[0], 0, LEN);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS && c.byte_len == LEN,
	      "a %d-byte SEND into a 512 MiB receive entry completes (%s, vendor 0x%x, %u bytes)", LEN,
	      hca_wc_status_name(c.status), c.vendor_err, c.byte_len);
	CHECK(rt_check(buf, LEN, 31) && buf[LEN] == 0, "its bytes at the entry's start, nothing past them");
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS, "the SEND completes (%s)",
	      hca_wc_status_name(c.status));
	finish(&t, "receive entry of 512 MiB");
}

static void rq_iova_bit60(void)
{
	recv_at_rq_iova((1ull << 60) | 0x7e0000000ull, 1ull << 60, 60, "receive queue at an IOVA with bit 60 set");
}

static int drop_first_send(struct rt_cap *c, unsigned int src, const struct roce_pkt *p)
{
	(void)c;
	if (src != 0 || p->opcode != HCA_BTH_OP_RC_SEND_ONLY)
		return 0;
	for (unsigned int i = 0; i < c->n; i++)
		if (c->src[i] == 0 && c->pkt[i].opcode == HCA_BTH_OP_RC_SEND_ONLY)
			return 0;	/* only the first one */
	return 1;
}

/* The jobs node `i`'s RTL showed on its dbg port (0 and *rtl 0 when node
 * `i` has no RTL: the model engine). */
static uint32_t jobs_seen(struct rt *t, int i, int *rtl)
{
	struct hca_engine *e = t->n[i]->eng;
	struct rtl_engine_stats st;

	if (lockstep_is(e))
		e = lockstep_dut(e, NULL);
	*rtl = rtl_engine_stats(e, &st) == 0;
	return *rtl ? st.jobs_seen : 0;
}

/* On an RTL node `i` (nothing to check on the model): its dbg port has
 * named job `job` (`name`) by now, and had not when `before` was read. */
static void check_job_seen(struct rt *t, int i, uint32_t before, unsigned int job, const char *name)
{
	int rtl;
	uint32_t after = jobs_seen(t, i, &rtl);

	if (!rtl)
		return;
	CHECK(!(before >> job & 1), "no %s job on node %d before (jobs 0x%08x)", name, i, before);
	CHECK(after >> job & 1, "node %d's dbg named the %s job (jobs 0x%08x)", i, name, after);
}

static void timer_job_seen(void)
{
	struct rt t;
	struct tb_qp_attr a;
	struct hca_cqe c;
	struct tb_sge r, s;
	struct tb_send_wr w;
	uint32_t before;
	int rtl;

	tb_qp_attr_default(&a);
	a.timeout = 3;				/* 2^13 cycles */
	setup(&t, HCA_QPT_RC, &a, NULL, 10);
	t.cap.drop = drop_first_send;
	r = rt_sge(t.mr[1], 0, 100);
	tb_post_recv(t.qp[1], &r, 1);
	before = jobs_seen(&t, 0, &rtl);
	s = rt_sge(t.mr[0], 0, 100);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS, "the SEND completes after its timeout (%s)",
	      hca_wc_status_name(c.status));
	CHECK(t.cap.n >= 3 && t.cap.dropped[0], "the first SEND was lost, then resent (%u frames)", t.cap.n);
	check_job_seen(&t, 0, before, JOB_COMP_TIMER, "ACK timer");
	finish(&t, "ACK timeout, the dbg port");
}

/* A 100-byte SEND from node 0 to node 1: node 1's dbg port named the
 * responder job while it took the packet, and not before. */
static void resp_job_seen(void)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge r, s;
	struct tb_send_wr w;
	uint32_t before;
	int rtl;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	r = rt_sge(t.mr[1], 0, 100);
	tb_post_recv(t.qp[1], &r, 1);
	before = jobs_seen(&t, 1, &rtl);
	s = rt_sge(t.mr[0], 0, 100);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS && c.byte_len == 100, "the SEND lands (%s)",
	      hca_wc_status_name(c.status));
	check_job_seen(&t, 1, before, JOB_RESP, "responder");
	finish(&t, "the responder on the dbg port");
}

/* A SEND from node 0's MR 64 into node 1's MR 64 (both key 0x64, 4 KiB at
 * va 0x6400000); then one whose gather names index 0 (key 0x00 | 0x64,
 * node 0's MRC row 0 written valid with that key): LOC_PROT_ERR, LKEY. */
static void mr_index_64(void)
{
	enum { LEN = 300, IDX = 64, KEY = 0x64 };
	const uint64_t va = 0x6400000;
	struct rt t;
	struct hca_cqe c;
	struct tb_sge r, s;
	struct tb_send_wr w;
	uint8_t *src, *dst;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	src = mr_first_page(&t, 0, IDX, KEY, va, 4096, HCA_ACCESS_LOCAL_WRITE);
	dst = mr_first_page(&t, 1, IDX, KEY, va, 4096, HCA_ACCESS_LOCAL_WRITE);
	r = (struct tb_sge){ .addr = va, .len = 4096, .lkey = IDX << 8 | KEY };
	tb_post_recv(t.qp[1], &r, 1);
	rt_fill(src, LEN, 64);
	s = (struct tb_sge){ .addr = va, .len = LEN, .lkey = IDX << 8 | KEY };
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS,
	      "a SEND gathered from MR 64 (lkey 0x%x) completes (%s, vendor 0x%x)", s.lkey,
	      hca_wc_status_name(c.status), c.vendor_err);
	CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS && c.byte_len == LEN,
	      "it lands in a receive entry of MR 64 (%s, vendor 0x%x, %u bytes)", hca_wc_status_name(c.status),
	      c.vendor_err, c.byte_len);
	CHECK(rt_check(dst, LEN, 64) && dst[LEN] == 0, "its bytes at the entry's start, nothing past them");
	mr_first_page(&t, 0, 0, KEY, va, 4096, HCA_ACCESS_LOCAL_WRITE);
	s.lkey = KEY;
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_LOC_PROT_ERR && c.vendor_err == HCA_VENDOR_ERR_LKEY,
	      "a SEND gathered with lkey 0x%x (index 0) fails with LKEY (%s, vendor 0x%x)", s.lkey,
	      hca_wc_status_name(c.status), c.vendor_err);
	finish(&t, "MR index 64");
}

int main(int argc, char **argv)
{
	rt_ls_start(argc, argv);
	if (rt_ls_want("recv_total_512m"))
		recv_total_512m();
	if (rt_ls_want("rq_iova_bit60"))
		rq_iova_bit60();
	if (rt_ls_want("timer_job_seen"))
		timer_job_seen();
	if (rt_ls_want("resp_job_seen"))
		resp_job_seen();
	if (rt_ls_want("mr_index_64"))
		mr_index_64();
	return check_done();
}
