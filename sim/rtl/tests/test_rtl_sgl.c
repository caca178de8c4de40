// SPDX-License-Identifier: MIT
/*
 * Scatter/gather list corners of the RTL engine, run as "lockstep" devices
 * (reference: the C model, DUT: the RTL; rtl_ls.h), each also checked on
 * its own against docs/programming.md 5 (memory keys, SGEs) and 3 (DMA
 * faults):
 *   - recv_sge1: a receive WQE with two scatter entries in an MR whose
 *     addresses have bit 28 clear; a SEND spanning both lands in both;
 *   - read_sges: an RDMA READ whose ten scatter entries take the response
 *     (entry 6 holds 128 KiB, a byte count with bit 17 set; entry 9's lkey
 *     has bit 6 clear): every byte lands where its entry says;
 *   - payload_fault: a receive whose only entry is in an unmapped page at
 *     an IOVA with bit 12 set: the payload write faults, and DMA_FAULT_LO/HI
 *     hold that IOVA (the first byte written);
 *   - rq_odd_iova: node 1's receive queue mapped at an IOVA with bits 63
 *     and 2 set (nothing mapped at that IOVA without either): SENDs of two
 *     packets land in the posted buffers (the receive WQE is fetched, and
 *     refetched for the second packet, from RXS_RWQE_ADDR);
 *   - lkey_held: SENDs of one entry, each with a management read (which
 *     holds the engine for its clocks) 0..159 cycles after the doorbell, so
 *     that one falls between hca_req's lkey request and hca_mr_check's
 *     check: every SEND completes, its entry's key and address as posted;
 *   - gather_queue: eight SENDs of sixteen 4-byte entries each while host
 *     reads take 2000 cycles: the requester reads ahead (hca_tx_slots), so
 *     up to TX_SLOTS packets of 16 gather reads each wait in hca_dma_rd's
 *     gather queue (u_q, 32 entries) behind its 8 read tags; every message
 *     arrives whole, in order.
 * Each comes from an RTL mutation survivor (issue 13, sim/mutate/answers_rtl.txt):
 * bits of the fetched receive and READ WQEs in hca_dma_rd's fetch buffers,
 * the fault IOVA hca_scatter reports.
 *
 *   rtl_sgl [--width 64|512] [--engine rtl|model|lockstep]
 */
#include "rtl_ls.h"
#include "hostmem.h"

#define SGL_KEY 0x05		/* key byte with bit 6 clear */

/* MR `idx` (key SGL_KEY) of node `i`: va `va`, `len` bytes, the first
 * `mapped` of them backed by host memory (the rest unmapped); returns its
 * host view and the IOVA of its first byte. */
static uint8_t *sgl_mr(struct rt *t, int i, uint32_t idx, uint64_t va, uint64_t len, size_t mapped,
		       uint32_t access, uint64_t *iova)
{
	struct hca_mrc m;
	uint8_t *buf = tb_alloc(t->n[i], mapped, iova);

	memset(&m, 0, sizeof(m));
	m.valid = 1;
	m.key = SGL_KEY;
	m.access = (uint16_t)access;
	m.pdn = t->pd[i];
	m.va = va;
	m.length = len;
	m.dma_addr = *iova;
	tb_ctx_write(t->n[i], HCA_CTX_TYPE_MRC, idx, &m, sizeof(m));
	return buf;
}

static uint32_t sgl_key(uint32_t idx)
{
	return idx << 8 | SGL_KEY;
}

/* A SEND of 300 bytes into a receive WQE of two entries: 100 bytes at
 * 0x7000000, 200 at 0x7001000. */
static void recv_sge1(void)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge r[2], s;
	struct tb_send_wr w;
	uint64_t iova;
	uint8_t *buf;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	buf = sgl_mr(&t, 1, 901, 0x7000000, 8192, 8192, HCA_ACCESS_LOCAL_WRITE, &iova);
	memset(buf, 0, 8192);
	r[0] = (struct tb_sge){ .addr = 0x7000000, .len = 100, .lkey = sgl_key(901) };
	r[1] = (struct tb_sge){ .addr = 0x7001000, .len = 200, .lkey = sgl_key(901) };
	tb_post_recv(t.qp[1], r, 2);
	rt_fill(t.mr[0]->buf, 300, 11);
	s = rt_sge(t.mr[0], 0, 300);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS && c.byte_len == 300,
	      "receive over two entries completes (status %u, %u bytes)", c.status, c.byte_len);
	CHECK(memcmp(buf, t.mr[0]->buf, 100) == 0 && memcmp(buf + 0x1000, t.mr[0]->buf + 100, 200) == 0,
	      "bytes 0-99 in entry 0, 100-299 in entry 1");
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS, "the SEND completes");
	finish(&t, "receive over two entries");
}

/* An RDMA READ of 128 KiB + 144 bytes into ten entries of node 0's MR 902. */
static void read_sges(void)
{
	enum { NSGE = 10, BIG = 6, SMALL = 16, BIG_LEN = 0x20000 };
	struct rt t;
	struct hca_cqe c;
	struct tb_sge l[NSGE];
	struct tb_send_wr w;
	struct tb_qp_attr a;
	uint64_t iova, at = 0, src = 0;
	uint32_t total = 0;
	uint8_t *buf;
	int ok = 1;
	struct tb_qp_cap cap = { .max_send_sge = NSGE };

	tb_qp_attr_default(&a);
	a.path_mtu = HCA_MTU_4096;
	setup(&t, HCA_QPT_RC, &a, &cap, 10);
	buf = sgl_mr(&t, 0, 902, 0x7000000, 0x30000, 0x30000, HCA_ACCESS_LOCAL_WRITE, &iova);
	memset(buf, 0, 0x30000);
	for (int k = 0; k < NSGE; k++) {
		uint32_t len = k == BIG ? BIG_LEN : SMALL;

		l[k] = (struct tb_sge){ .addr = 0x7000000 + at, .len = len, .lkey = sgl_key(902) };
		at += len + 0x100;
		total += len;
	}
	rt_fill(t.mr[1]->buf, total, 12);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = l, .num_sge = NSGE,
				 .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS && c.byte_len == total,
	      "READ into %d entries completes (status %u vendor %u, %u bytes)", NSGE, c.status, c.vendor_err,
	      c.byte_len);
	for (int k = 0; k < NSGE; k++) {
		ok &= memcmp(buf + (l[k].addr - 0x7000000), t.mr[1]->buf + src, l[k].len) == 0;
		ok &= buf[l[k].addr - 0x7000000 + l[k].len] == 0;	/* nothing past the entry */
		src += l[k].len;
	}
	CHECK(ok, "every entry holds its part of the response, nothing past it");
	finish(&t, "READ into ten entries");
}

/* A 64-byte SEND whose receive entry is in an unmapped page at an IOVA with bit 12 set. */
static void payload_fault(void)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge r, s;
	struct tb_send_wr w;
	uint64_t iova, at;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	/* MR 903: 16 KiB at va 0x7100000, only its first page mapped */
	sgl_mr(&t, 1, 903, 0x7100000, 16384, 4096, HCA_ACCESS_LOCAL_WRITE, &iova);
	at = (iova + 4096) & 0x1000 ? iova + 4096 : iova + 8192;
	r = (struct tb_sge){ .addr = 0x7100000 + (at - iova), .len = 64, .lkey = sgl_key(903) };
	tb_post_recv(t.qp[1], &r, 1);
	s = rt_sge(t.mr[0], 0, 64);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.rcq[1], &c) && c.status != HCA_WC_SUCCESS, "the receive fails (status %u vendor %u)", c.status,
	      c.vendor_err);
	tb_run(t.tb, RT_WAIT);
	CHECK_EQ(tb_mgmt_read(t.n[1], HCA_MGMT_DMA_FAULT_INFO),
		 HCA_MGMT_DMA_FAULT_INFO_VALID_MASK | HCA_MGMT_DMA_FAULT_INFO_WRITE_MASK |
		 HCA_FIELD_PREP(HCA_MGMT_DMA_FAULT_INFO_CLIENT, HCA_DMA_CLIENT_PAYLOAD), "fault: a payload write");
	CHECK_EQ(tb_mgmt_read(t.n[1], HCA_MGMT_DMA_FAULT_LO), (uint32_t)at, "fault IOVA (low): the entry's first byte");
	CHECK_EQ(tb_mgmt_read(t.n[1], HCA_MGMT_DMA_FAULT_HI), (uint32_t)(at >> 32), "fault IOVA (high)");
	finish(&t, "payload write fault");
}

#define RQ_ODD_IOVA ((1ull << 63) | 0x7e0000004ull)

static void rq_odd_iova(void)
{
	recv_at_rq_iova(RQ_ODD_IOVA, (1ull << 63) | 4, 50, "receive queue at an IOVA with bits 63 and 2 set");
}

static void lkey_held(void)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s, r;
	struct tb_send_wr w;
	int ok = 1;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	rt_fill(t.mr[0]->buf, 64 * 160, 21);
	for (unsigned int d = 0; d < 160 && ok; d++) {
		r = rt_sge(t.mr[1], 0, 64);
		tb_post_recv(t.qp[1], &r, 1);
		s = rt_sge(t.mr[0], 64 * d, 64);
		w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
		tb_post_send(t.qp[0], &w);
		if (d)
			tb_run_for(t.tb, d);
		(void)tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_INFO);
		ok &= wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS;
		CHECK(ok, "SEND %u, a management read %u cycles after its doorbell: %s (vendor 0x%x)", d, d,
		      hca_wc_status_name(c.status), c.vendor_err);
		ok &= wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS &&
		      memcmp(t.mr[1]->buf, t.mr[0]->buf + 64 * d, 64) == 0;
		CHECK(ok, "receive %u: its 64 bytes", d);
	}
	finish(&t, "lkey checks around a held engine");
}

/* Eight SENDs of 16 entries of 4 bytes (every other 4 bytes of node 0's MR)
 * on an RC pair whose RTL reads host memory after 2000 cycles. */
static void gather_queue(void)
{
	enum { NMSG = 8, NSGE = 16, LEN = 4, MSG = NSGE * LEN };
	static char opt[32];
	const char *saved = rt_options;
	struct rt t;
	struct hca_cqe c;
	struct tb_sge l[NSGE], r;
	struct tb_send_wr w;
	struct tb_qp_cap cap = { .max_send_sge = NSGE };
	int ok = 1, got = 0;

	snprintf(opt, sizeof(opt), "%srd_lat=2000", strcmp(engine, "lockstep") ? "" : "dut.");
	rt_options = opt;
	setup(&t, HCA_QPT_RC, NULL, &cap, 10);
	rt_options = saved;
	rt_fill(t.mr[0]->buf, 2 * NMSG * MSG, 13);
	memset(t.mr[1]->buf, 0, NMSG * MSG);
	for (int m = 0; m < NMSG; m++) {
		r = rt_sge(t.mr[1], (uint64_t)m * MSG, MSG);
		tb_post_recv(t.qp[1], &r, 1);
	}
	for (int m = 0; m < NMSG; m++) {
		for (int k = 0; k < NSGE; k++)
			l[k] = rt_sge(t.mr[0], (uint64_t)(m * NSGE + k) * 2 * LEN, LEN);
		w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = l,
					 .num_sge = NSGE };
		tb_post_send(t.qp[0], &w);
	}
	for (int m = 0; m < NMSG; m++) {
		if (!wait_cqe(t.rcq[1], &c) || c.status != HCA_WC_SUCCESS || c.byte_len != MSG)
			break;
		got++;
	}
	CHECK(got == NMSG, "all %d receives complete with %d bytes (%d did)", NMSG, MSG, got);
	for (int m = 0; m < NMSG * NSGE; m++)
		ok &= memcmp(t.mr[1]->buf + m * LEN, t.mr[0]->buf + m * 2 * LEN, LEN) == 0;
	CHECK(ok, "every message holds its sixteen entries, in order");
	for (int m = 0; m < NMSG; m++)
		CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS, "SEND %d completes (status %u)", m,
		      c.status);
	finish(&t, "gather queue full");
}

int main(int argc, char **argv)
{
	rt_ls_start(argc, argv);
	recv_sge1();
	read_sges();
	payload_fault();
	rq_odd_iova();
	lkey_held();
	gather_queue();
	return check_done();
}
