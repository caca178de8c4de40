// SPDX-License-Identifier: MIT
/*
 * Long scatter/gather lists and payload-read faults of the RTL engine, run
 * as "lockstep" devices (reference: the C model, DUT: the RTL; rtl_ls.h),
 * each also checked on its own against docs/programming.md 5 (SGEs: the
 * bytes land entry by entry, in list order) and 3 (DMA faults: DMA_FAULT_LO/HI
 * hold the IOVA of the first faulting access, the one the model's sequential
 * gather stops at):
 *   read_16_entries -- an RDMA READ whose response (4 packets) fills sixteen
 *                     scatter entries of one MR, entry 1 below 512 MiB,
 *                     entries 10 and 14 where an address 1 MiB off or a
 *                     length 1 MiB longer leaves the MR: every entry holds
 *                     its part, nothing past it;
 *   recv_16_entries -- a SEND of sixteen 1 KiB packets into a receive WQE of
 *                     sixteen 1 KiB entries (entry 9's address with bit 16
 *                     set, entry 11's below 1 GiB, entry 13's with bit 12
 *                     set), while the responder posts a SEND of its own
 *                     (its requester fetches a send WQE between the receive
 *                     WQE's fetch and the scatter into entry 11): every
 *                     entry holds its packet, both messages complete;
 *   two_faults     -- a SEND of nine (thirteen) entries of which entries 0
 *                     and 8 (3 and 12) fault: LOC_PROT_ERR/DMA_FAULT, and
 *                     DMA_FAULT_LO/HI is the lower entry's IOVA, at two read
 *                     latencies;
 *   fault_then_beats -- n zero-length SENDs (n = 0..3, so the next packet
 *                     takes transmit slot n), then a SEND whose entry 0
 *                     faults at an IOVA with bit 20 set and whose entries
 *                     1-4 (512 bytes each) arrive after the fault (reads
 *                     without jitter): DMA_FAULT_LO/HI is entry 0's IOVA;
 *   read_entries_gap -- eight RDMA READs of two scatter entries each (entry
 *                     1 in the MR at an address with bit 24 set and bit 29
 *                     clear) while the RTL's read completions pause a
 *                     random 0 or 1 idle cycle (valid low) between beats
 *                     (dut.rd_gap=1): every entry holds its part;
 *   held_reads     -- a SEND of eight 2 KiB entries (four packets at PMTU
 *                     4096, eight payload reads in flight, read tags 0-7,
 *                     each of a length with bit 11 set) whose reads take
 *                     2000 cycles, with a management read (which holds the
 *                     engine) every 150 cycles: the message arrives whole.
 * Each comes from an RTL mutation survivor (issue 13,
 * sim/mutate/answers_rtl.txt, "b5a3724 g1 #18, #25, #33, #50, g2 #1, #23,
 * #24, #32, #43, g5 #12"): scatter entries 9-15 of the fetched receive and READ
 * WQEs (the other tests' lists end at entry 9), the fault IOVA kept per
 * transmit slot, the SGE index in the gather queue, a read tag's length
 * while the engine is held.
 *
 *   rtl_scatter_long [--width 64|512] [--engine rtl|model|lockstep] [--options K=V,...]
 */
#include "rtl_ls.h"
#include "hostmem.h"

#define SL_KEY 0x3c

/* Node i's MR `idx` (key byte SL_KEY): `len` bytes at va `va`, DMA address
 * `dma` (mapped or not: the caller decides), LOCAL_WRITE. */
static void sl_mr(struct rt *t, int i, uint32_t idx, uint64_t va, uint64_t len, uint64_t dma)
{
	mrc_write_on(t, i, idx, SL_KEY, HCA_ACCESS_LOCAL_WRITE, va, len, dma);
}

/* sl_mr over `len` zeroed bytes of node i's host memory, mapped; returns them. */
static uint8_t *sl_zeroed_mr(struct rt *t, int i, uint32_t idx, uint64_t va, uint64_t len)
{
	uint64_t iova;
	uint8_t *buf = tb_alloc(t->n[i], len, &iova);

	memset(buf, 0, len);
	sl_mr(t, i, idx, va, len, iova);
	return buf;
}

static uint32_t sl_lkey(uint32_t idx)
{
	return idx << 8 | SL_KEY;
}

/* The options of one test: rd_lat / rd_jitter for the RTL (dut.* under lockstep). */
static const char *sl_opts(unsigned int rd_lat, int no_jitter)
{
	static char opt[64];
	const char *p = strcmp(engine, "lockstep") ? "" : "dut.";

	snprintf(opt, sizeof(opt), "%srd_lat=%u%s%s%s", p, rd_lat, no_jitter ? "," : "", no_jitter ? p : "",
		 no_jitter ? "rd_jitter=0" : "");
	return opt;
}

/* setup() of an RC pair with the read options above for this testbench
 * only (the model engine has no read timing: none). */
static void sl_setup(struct rt *t, const struct tb_qp_attr *a, const struct tb_qp_cap *cap, unsigned int rd_lat,
		     int no_jitter)
{
	const char *saved = rt_options;

	if (strcmp(engine, "model"))
		rt_options = sl_opts(rd_lat, no_jitter);
	setup(t, HCA_QPT_RC, a, cap, 10);
	rt_options = saved;
}

/* DMA_FAULT_INFO/LO/HI of node n: a payload read fault at `iova`. */
static void sl_fault_is(struct rt *t, int n, uint64_t iova, const char *what)
{
	uint32_t lo = tb_mgmt_read(t->n[n], HCA_MGMT_DMA_FAULT_LO), hi = tb_mgmt_read(t->n[n], HCA_MGMT_DMA_FAULT_HI);

	CHECK_EQ(tb_mgmt_read(t->n[n], HCA_MGMT_DMA_FAULT_INFO),
		 HCA_MGMT_DMA_FAULT_INFO_VALID_MASK |
		 HCA_FIELD_PREP(HCA_MGMT_DMA_FAULT_INFO_CLIENT, HCA_DMA_CLIENT_PAYLOAD), "fault: a payload read");
	CHECK(lo == (uint32_t)iova && hi == (uint32_t)(iova >> 32), "%s: DMA_FAULT_HI/LO 0x%08x%08x = 0x%llx", what, hi,
	      lo, (unsigned long long)iova);
}

/* ------------------------------------------------------------ READ, 16 entries */

#define RD_VA 0x7000000ull	/* bits 24-26 set, 29 clear */
#define RD_MR_LEN 0x40000u

static void read_16_entries(void)
{
	enum { NSGE = 16 };
	struct rt t;
	struct hca_cqe c;
	struct tb_sge l[NSGE];
	struct tb_send_wr w;
	struct tb_qp_attr a;
	struct tb_qp_cap cap = { .max_send_sge = NSGE };
	uint64_t src = 0;
	uint32_t total = 0;
	uint8_t *buf;
	int ok = 1;

	tb_qp_attr_default(&a);
	a.path_mtu = HCA_MTU_1024;
	setup(&t, HCA_QPT_RC, &a, &cap, 10);
	buf = sl_zeroed_mr(&t, 0, 910, RD_VA, RD_MR_LEN);
	for (int k = 0; k < NSGE; k++) {
		/* entry k at 0x2000 * k + 0x1000 + 0x40 * k, 192 + 16 * k bytes */
		l[k] = (struct tb_sge){ .addr = RD_VA + 0x2000u * k + 0x1000u + 0x40u * k, .len = 192u + 16u * k,
					.lkey = sl_lkey(910) };
		total += l[k].len;
	}
	rt_fill(t.mr[1]->buf, total, 61);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = l, .num_sge = NSGE,
				 .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS && c.byte_len == total,
	      "READ into 16 entries completes (%s vendor 0x%x, %u bytes of %u)", hca_wc_status_name(c.status),
	      c.vendor_err, c.byte_len, total);
	for (int k = 0; k < NSGE; k++) {
		uint64_t off = l[k].addr - RD_VA;
		int good = memcmp(buf + off, t.mr[1]->buf + src, l[k].len) == 0 && buf[off + l[k].len] == 0 &&
			   buf[off - 1] == 0;

		CHECK(good, "READ entry %d: its %u bytes at +0x%llx, nothing around them", k, l[k].len,
		      (unsigned long long)off);
		ok &= good;
		src += l[k].len;
	}
	CHECK(ok, "READ into 16 entries: every entry holds its part of the response");
	finish(&t, "READ into sixteen entries");
}

/* ------------------------------------------------------------ receive, 16 entries */

#define RV_VA 0x8000000ull
#define RV_MR_LEN 0x40000u

static void recv_16_entries(void)
{
	enum { NSGE = 16, ELEN = 1024, MSG = NSGE * ELEN, BACK = 200 };
	struct rt t;
	struct hca_cqe c;
	struct tb_sge r[NSGE], s;
	struct tb_send_wr w;
	struct tb_qp_attr a;
	struct tb_qp_cap cap = { .max_send_sge = 4, .max_recv_sge = NSGE };
	uint8_t *buf;
	uint32_t rx = 0;
	int ok = 1;

	tb_qp_attr_default(&a);
	a.path_mtu = HCA_MTU_1024;
	setup(&t, HCA_QPT_RC, &a, &cap, 10);
	buf = sl_zeroed_mr(&t, 1, 911, RV_VA, RV_MR_LEN);
	for (int k = 0; k < NSGE; k++)	/* entry 9 at +0x13240 (bit 16), 11 at +0x172c0, 13 at +0x1b340 (bit 12) */
		r[k] = (struct tb_sge){ .addr = RV_VA + 0x2000u * k + 0x1000u + 0x40u * k, .len = ELEN,
					.lkey = sl_lkey(911) };
	tb_post_recv(t.qp[1], r, NSGE);
	/* node 0 takes node 1's SEND into its 1 MiB MR */
	s = rt_sge(t.mr[0], 0x80000, BACK);
	tb_post_recv(t.qp[0], &s, 1);
	rt_fill(t.mr[0]->buf, MSG, 62);
	rt_fill(t.mr[1]->buf, BACK, 63);
	s = rt_sge(t.mr[0], 0, MSG);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	/* node 1 posts its SEND once it has received three of the 16 packets
	 * (the receive WQE is taken with the first), long before the twelfth */
	for (int i = 0; i < 2000 && (rx = tb_stat(t.n[1], HCA_STAT_RX_FRAMES)) < 3; i++)
		tb_run_for(t.tb, 20);
	if (strcmp(engine, "model"))	/* (the model takes a message's packets at once) */
		CHECK(rx >= 3 && rx < 8, "node 1's SEND posted after %u of the 16 packets arrived", rx);
	s = rt_sge(t.mr[1], 0, BACK);
	tb_post_send(t.qp[1], &w);
	CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS && c.byte_len == MSG,
	      "receive into 16 entries completes (%s vendor 0x%x, %u bytes)", hca_wc_status_name(c.status),
	      c.vendor_err, c.byte_len);
	for (int k = 0; k < NSGE; k++) {
		uint64_t off = r[k].addr - RV_VA;
		int good = memcmp(buf + off, t.mr[0]->buf + ELEN * k, ELEN) == 0 && buf[off + ELEN] == 0 &&
			   buf[off - 1] == 0;

		CHECK(good, "receive entry %d: packet %d's bytes at +0x%llx, nothing around them", k, k,
		      (unsigned long long)off);
		ok &= good;
	}
	CHECK(ok, "receive into 16 entries: every entry holds its packet");
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS, "node 0's SEND completes");
	CHECK(wait_cqe(t.rcq[0], &c) && c.status == HCA_WC_SUCCESS && c.byte_len == BACK &&
		      memcmp(t.mr[0]->buf + 0x80000, t.mr[1]->buf, BACK) == 0,
	      "node 1's SEND lands in node 0 (%s)", hca_wc_status_name(c.status));
	CHECK(wait_cqe(t.scq[1], &c) && c.status == HCA_WC_SUCCESS, "node 1's SEND completes");
	finish(&t, "receive into sixteen entries");
}

/* ------------------------------------------------------------ two faulting entries */

/* A SEND of `n` 64-byte entries of MR 912 (16 KiB at 0x7300000, its first
 * page mapped) of which entries `lo` < `hi` are in unmapped pages. */
static void two_faults(unsigned int n, unsigned int lo, unsigned int hi, unsigned int rd_lat)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s[16];
	struct tb_send_wr w;
	struct tb_qp_cap cap = { .max_send_sge = 16 };
	uint64_t iova, at = 0;
	char what[96];

	sl_setup(&t, NULL, &cap, rd_lat, 0);
	iova = half_mapped_mr_at(&t, 912, 0x7300000);
	for (unsigned int i = 0; i < n; i++) {
		uint64_t off = i == lo ? 0x1000 + 0x140 : i == hi ? 0x2000 + 0x380 : 0x80 * i;

		s[i] = (struct tb_sge){ .addr = 0x7300000 + off, .len = 64, .lkey = 912u << 8 | 0x42 };
		if (i == lo)
			at = iova + off;
	}
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = s, .num_sge = n };
	tb_post_send(t.qp[0], &w);
	snprintf(what, sizeof(what), "%u entries, %u and %u fault, rd_lat %u", n, lo, hi, rd_lat);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_LOC_PROT_ERR && c.vendor_err == HCA_VENDOR_ERR_DMA_FAULT,
	      "%s: LOC_PROT_ERR/DMA_FAULT (%s vendor 0x%x)", what, hca_wc_status_name(c.status), c.vendor_err);
	tb_run(t.tb, RT_WAIT);
	sl_fault_is(&t, 0, at, what);
	finish(&t, what);
}

/* ------------------------------------------------------------ a fault, then beats */

#define FT_IOVA 0x5a5100000ull	/* bit 20 set; nothing mapped there */

static void fault_then_beats(unsigned int before)
{
	enum { NGOOD = 4, GLEN = 512 };
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s[1 + NGOOD], r;
	struct tb_send_wr w;
	struct tb_qp_cap cap = { .max_send_sge = 1 + NGOOD };
	char what[96];

	sl_setup(&t, NULL, &cap, 24, 1);
	CHECK(hostmem_ptr(t.n[0]->hm, FT_IOVA, 1) == NULL, "nothing mapped at 0x%llx", (unsigned long long)FT_IOVA);
	sl_mr(&t, 0, 913, 0x7400000, 4096, FT_IOVA);
	r = rt_sge(t.mr[1], 0, 4096);
	for (unsigned int i = 0; i <= before; i++)
		tb_post_recv(t.qp[1], &r, 1);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = s, .num_sge = 0 };
	for (unsigned int i = 0; i < before; i++)
		tb_post_send(t.qp[0], &w);
	s[0] = (struct tb_sge){ .addr = 0x7400000 + 0x100, .len = 64, .lkey = sl_lkey(913) };
	for (unsigned int i = 1; i <= NGOOD; i++)
		s[i] = rt_sge(t.mr[0], GLEN * i, GLEN);
	w.num_sge = 1 + NGOOD;
	tb_post_send(t.qp[0], &w);
	snprintf(what, sizeof(what), "entry 0 faults after %u zero-length SENDs", before);
	for (unsigned int i = 0; i < before; i++)
		CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS && c.wqe_index == i,
		      "%s: SEND %u completes (%s)", what, i, hca_wc_status_name(c.status));
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_LOC_PROT_ERR && c.vendor_err == HCA_VENDOR_ERR_DMA_FAULT &&
		      c.wqe_index == before,
	      "%s: LOC_PROT_ERR/DMA_FAULT (%s vendor 0x%x)", what, hca_wc_status_name(c.status), c.vendor_err);
	tb_run(t.tb, RT_WAIT);
	sl_fault_is(&t, 0, FT_IOVA + 0x100, what);
	finish(&t, what);
}

/* ------------------------------------------------------------ READ, completion beats with gaps */

/* Entry 1's address of a fetched READ WQE is checked against its MR some
 * cycles after the WQE's fetch beat that carries it; idle cycles between the
 * fetch's beats (rd_gap: a random 0..1 each) vary that distance, both odd
 * and even over the eight READs (b5a3724 g2 #32 flips its bit 24 in every
 * cycle between). */
static void read_entries_gap(void)
{
	enum { NREAD = 8, NSGE = 2 };
	struct rt t;
	struct hca_cqe c;
	struct tb_sge l[NSGE];
	struct tb_send_wr w;
	struct tb_qp_attr a;
	struct tb_qp_cap cap = { .max_send_sge = NSGE };
	uint8_t *buf;

	tb_qp_attr_default(&a);
	setup_harness_opt(&t, &a, &cap, "rd_gap=1");
	buf = sl_zeroed_mr(&t, 0, 911, RD_VA, RD_MR_LEN);
	rt_fill(t.mr[1]->buf, NREAD * 0x1000, 62);
	for (int k = 0; k < NREAD; k++) {
		uint64_t src = (uint64_t)k * 0x1000;
		int good = 1;

		/* entry 0 at +0x800 * k, entry 1 at 0x10110 + 0x800 * k (bit 24 set, 29 clear) */
		l[0] = (struct tb_sge){ .addr = RD_VA + 0x800u * k + 0x40u, .len = 64u + 8u * k, .lkey = sl_lkey(911) };
		l[1] = (struct tb_sge){ .addr = RD_VA + 0x10110u + 0x800u * k, .len = 96u + 16u * k,
					.lkey = sl_lkey(911) };
		w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = l,
					 .num_sge = NSGE, .raddr = t.mr[1]->va + src, .rkey = t.mr[1]->rkey };
		tb_post_send(t.qp[0], &w);
		CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS && c.byte_len == l[0].len + l[1].len,
		      "READ %d into two entries, beats with gaps, completes (%s vendor 0x%x, %u bytes)", k,
		      hca_wc_status_name(c.status), c.vendor_err, c.byte_len);
		for (int e = 0; e < NSGE; e++) {
			uint64_t off = l[e].addr - RD_VA;

			good &= memcmp(buf + off, t.mr[1]->buf + src, l[e].len) == 0 && buf[off + l[e].len] == 0 &&
				buf[off - 1] == 0;
			src += l[e].len;
		}
		CHECK(good, "READ %d: each entry holds its part of the response, nothing around it", k);
	}
	finish(&t, "READs of two entries, completion beats with gaps");
}

/* ------------------------------------------------------------ held engine, reads in flight */

static void held_reads(void)
{
	enum { NSGE = 8, ELEN = 2048, MSG = NSGE * ELEN };
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s[NSGE], r;
	struct tb_send_wr w;
	struct tb_qp_attr a;
	struct tb_qp_cap cap = { .max_send_sge = NSGE };
	int got = 0, holds = 0;

	tb_qp_attr_default(&a);
	a.path_mtu = HCA_MTU_4096;
	sl_setup(&t, &a, &cap, 2000, 0);
	rt_fill(t.mr[0]->buf, 2 * MSG, 64);
	memset(t.mr[1]->buf, 0, MSG);
	for (int k = 0; k < NSGE; k++)	/* every other 2 KiB of node 0's MR */
		s[k] = rt_sge(t.mr[0], (uint64_t)2 * ELEN * k, ELEN);
	r = rt_sge(t.mr[1], 0, MSG);
	tb_post_recv(t.qp[1], &r, 1);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = s, .num_sge = NSGE };
	tb_post_send(t.qp[0], &w);
	for (int i = 0; i < 400 && !got; i++) {
		tb_run_for(t.tb, 150);
		(void)tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_INFO);
		holds++;
		got = tb_cq_poll(t.rcq[1], &c);
	}
	if (!got)
		got = wait_cqe(t.rcq[1], &c);
	CHECK(got && c.status == HCA_WC_SUCCESS && c.byte_len == MSG,
	      "SEND of eight 2 KiB entries with %d holds: received (%s, %u bytes)", holds, hca_wc_status_name(c.status),
	      c.byte_len);
	got = 1;
	for (int k = 0; k < NSGE; k++)
		got &= memcmp(t.mr[1]->buf + ELEN * k, t.mr[0]->buf + 2 * ELEN * k, ELEN) == 0;
	CHECK(got, "the eight entries' bytes arrive in order");
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS, "the SEND completes (%s)",
	      hca_wc_status_name(c.status));
	finish(&t, "payload reads in flight, engine held");
}

int main(int argc, char **argv)
{
	rt_ls_start(argc, argv);
	read_16_entries();
	recv_16_entries();
	two_faults(9, 0, 8, 24);
	two_faults(13, 3, 12, 3000);
	for (unsigned int n = 0; n < 4; n++)
		fault_then_beats(n);
	read_entries_gap();
	held_reads();
	return check_done();
}
