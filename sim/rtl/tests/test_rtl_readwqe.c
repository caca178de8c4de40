// SPDX-License-Identifier: MIT
/*
 * How the requester node reads the WQEs of a READ stream (docs/rtl.md,
 * Performance "The READ streams at 64 bits"; "WQE prefetch" bullets "From
 * the doorbell" and "Read length"), on two lockstep devices (model vs RTL):
 *   stream: one RC QP streams 64-byte WRITEs (16 outstanding, one posted per
 *   completion), then 64-byte READs the same way, then READs one at a time,
 *   each posted as soon as the previous one's completion is polled.  A
 *   stream that posts one WQE per completion rings the doorbell while the
 *   item that completes the previous WQE still runs (the CQE write lands
 *   inside it): hca_db_wqe_read reads the posted WQE from the doorbell then
 *   too (from the item's words), so no READ WQE is started by its step's own
 *   fetch (the fetch tag) -- every one is read from its doorbell or ahead
 *   (a prefetch tag).  Before, such a doorbell was dropped and each step
 *   fetched its WQE in series (READ 64 B at 64 bits: 154.1 cycles a message
 *   in make bench-rtl against 132.8).  All complete in order with their data.
 *   The READ response's item reads the WQE by its size as the requester
 *   does (hca_comp_read): a 1-SGE READ WQE is never read past its 80 bytes;
 *   READs of 2-4 SGEs read their slot whole after the first 80 bytes.
 *   part_mapped: a 1-SGE READ WQE in a slot mapped for its first 80 bytes
 *   only, read ahead and from the doorbell: sent, its response written, no
 *   fault (the model reads it by its size, and not again for the response;
 *   the RTL's response item read the whole slot before, and faulted).
 *
 *   rtl_readwqe [--width 64|512] [--engine rtl|lockstep] [--options K=V,...] [CASE...]
 *   CASE: stream, part_mapped
 */
#include "rtl_ls.h"

/* hca_top's read tags (docs/rtl.md "Parameters"): RD_TAGS = 8 payload tags,
 * then the WQE fetch's, then the prefetch entries'. */
#define FETCH_TAG 8
#define MAX_EV 4096

struct rd_log {
	unsigned int n;
	struct rtl_event ev[MAX_EV];
};

static void observe(void *ctx, const struct rtl_event *ev)
{
	struct rd_log *l = ctx;

	if (ev->kind == RTL_EV_DMA_RD_REQ && l->n < MAX_EV)
		l->ev[l->n++] = *ev;
}

/* node 0's RTL engine (the DUT of a lockstep device), or NULL (model) */
static struct hca_engine *rtl_of(struct tb_node *n)
{
	if (lockstep_is(n->eng))
		return lockstep_dut(n->eng, NULL);
	return strcmp(engine, "rtl") ? NULL : n->eng;
}

static uint64_t slot_of(const struct tb_qp *q, unsigned int idx)
{
	return q->sq_iova + ((uint64_t)(idx & ((1u << q->qpc.log_sq_size) - 1)) << q->qpc.log_sq_stride);
}

struct st {
	struct rt t;
	struct rd_log log;
	bool rtl;
	unsigned int wqe;	/* the next WQE index */
};

/*
 * n messages of `len` bytes, op, `depth` outstanding, the next posted when a
 * completion is polled (as bench_rtl's streams); message k at offset k * len
 * of both MRs, SGEs of nsge pieces.  Completions in order and successful.
 */
static bool stream(struct st *s, uint8_t op, unsigned int n, unsigned int depth, uint32_t len, unsigned int nsge,
		   const char *what)
{
	unsigned int posted = 0, done = 0, first = s->wqe;
	uint64_t limit = tb_now(s->t.tb) + RT_WAIT;
	bool ok = true;

	while (done < n) {
		struct hca_cqe c;

		while (posted < n && posted - done < depth) {
			struct tb_sge g[4];
			struct tb_send_wr w = { .opcode = op, .flags = HCA_SEND_SIGNALED, .sge = g, .num_sge = (int)nsge,
						.raddr = s->t.mr[1]->va + (uint64_t)posted * len, .rkey = s->t.mr[1]->rkey };
			uint32_t piece = len / nsge;

			for (unsigned int j = 0; j < nsge; j++)
				g[j] = rt_sge(s->t.mr[0], (uint64_t)posted * len + j * piece,
					      j + 1 < nsge ? piece : len - piece * (nsge - 1));
			tb_post_send(s->t.qp[0], &w);
			posted++;
		}
		if (tb_cq_poll(s->t.scq[0], &c)) {
			if (c.status != HCA_WC_SUCCESS || c.wqe_index != ((first + done) & 0xffff)) {
				printf("  %s: completion %u: WQE %u status %s\n", what, done, c.wqe_index,
				       hca_wc_status_name(c.status));
				ok = false;
			}
			done++;
			continue;
		}
		if (!tb_step(s->t.tb, limit)) {
			printf("  %s: stalled after %u completions\n", what, done);
			return false;
		}
	}
	s->wqe += n;
	tb_run(s->t.tb, RT_WAIT);
	return ok;
}

/*
 * The reads of the WQEs first .. first + n - 1 since the log was cleared
 * (each slot once: n <= the ring's 64): how many were first read on the
 * fetch tag (started by the step's own fetch), and the longest read of one.
 */
static void wqe_reads(const struct st *s, unsigned int first, unsigned int n, unsigned int *fetched,
		      uint32_t *longest)
{
	*fetched = 0;
	*longest = 0;
	for (unsigned int i = 0; i < n; i++) {
		uint64_t a = slot_of(s->t.qp[0], first + i);
		bool seen = false;

		for (unsigned int e = 0; e < s->log.n; e++) {
			if (s->log.ev[e].addr != a)
				continue;
			if (!seen && s->log.ev[e].tag == FETCH_TAG)
				(*fetched)++;
			seen = true;
			if (s->log.ev[e].len > *longest)
				*longest = s->log.ev[e].len;
		}
	}
}

static void st_setup(struct st *s)
{
	struct tb_qp_attr a;

	memset(s, 0, sizeof(*s));
	tb_qp_attr_default(&a);
	a.path_mtu = HCA_MTU_4096;
	setup(&s->t, HCA_QPT_RC, &a, NULL, 10);
	rt_fill(s->t.mr[0]->buf, 65536, 71);
	rt_fill(s->t.mr[1]->buf, 65536, 72);
	s->rtl = rtl_of(s->t.n[0]) != NULL;
	if (s->rtl)
		rtl_engine_set_observer(rtl_of(s->t.n[0]), observe, &s->log);
}

static void case_stream(void)
{
	static struct st s;
	unsigned int fetched, first;
	uint32_t longest;
	char what[96];

	st_setup(&s);
	CHECK(stream(&s, HCA_WR_RDMA_WRITE, 48, 16, 64, 1, "WRITEs"), "48 WRITEs of 64 B, 16 outstanding: in order");
	CHECK(!memcmp(s.t.mr[1]->buf, s.t.mr[0]->buf, 48 * 64), "WRITEs: target data");
	rt_fill(s.t.mr[1]->buf, 65536, 73);
	memset(s.t.mr[0]->buf, 0xEE, 65536);
	for (int depth = 16; depth >= 1; depth -= 15) {
		unsigned int n = depth > 1 ? 48 : 24;

		snprintf(what, sizeof(what), "%u READs of 64 B after the WRITEs, %d outstanding", n, depth);
		s.log.n = 0;
		first = s.wqe;
		memset(s.t.mr[0]->buf, 0xEE, 4096);
		CHECK(stream(&s, HCA_WR_RDMA_READ, n, (unsigned int)depth, 64, 1, what), "%s: in order", what);
		CHECK(!memcmp(s.t.mr[0]->buf, s.t.mr[1]->buf, (size_t)n * 64), "%s: data", what);
		if (!s.rtl)
			continue;
		wqe_reads(&s, first, n, &fetched, &longest);
		printf("  %s: %u of %u WQEs first read by their step's fetch, the longest read %u bytes\n", what,
		       fetched, n, longest);
		CHECK(fetched == 0, "%s: every WQE read from its doorbell or ahead (%u fetched by their step)", what,
		      fetched);
		CHECK(longest == 80, "%s: a 1-SGE READ WQE read by its size, 80 bytes (the longest read %u)", what,
		      longest);
	}
	/* READs of 2..4 SGEs, one at a time and 8 outstanding: the response's item
	 * reads the slot whole after the first 80 bytes */
	for (unsigned int nsge = 2; nsge <= 4; nsge++)
		for (int depth = 1; depth <= 8; depth += 7) {
			snprintf(what, sizeof(what), "READs of %u SGEs, %d outstanding", nsge, depth);
			s.log.n = 0;
			first = s.wqe;
			memset(s.t.mr[0]->buf, 0xEE, 4096);
			CHECK(stream(&s, HCA_WR_RDMA_READ, 12, (unsigned int)depth, 200, nsge, what), "%s: in order",
			      what);
			CHECK(!memcmp(s.t.mr[0]->buf, s.t.mr[1]->buf, 12 * 200), "%s: data", what);
			if (!s.rtl)
				continue;
			wqe_reads(&s, first, 12, &fetched, &longest);
			CHECK(longest == 128, "%s: the whole slot read (the longest read %u)", what, longest);
		}
	finish(&s.t, "stream");
}

/* A 1-SGE READ WQE in slot 1 of a ring whose slot 1 is mapped for 80 bytes. */
static void case_part_mapped(bool doorbell)
{
	const char *what = doorbell ? "1-SGE READ, slot mapped for 80 bytes (from the doorbell)" :
				      "1-SGE READ, slot mapped for 80 bytes (read ahead)";
	struct rt t;
	struct tb_sge g;
	struct tb_send_wr w = { .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = &g, .num_sge = 1 };
	struct hca_cqe c;
	uint64_t iova;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	t.qp[0]->sq = tb_alloc(t.n[0], 128 + 80, &iova);
	t.qp[0]->sq_iova = iova;
	t.qp[0]->qpc.sq_base = iova;
	tb_qp_modify(t.qp[0], HCA_QPS_RTS, 0);
	rt_fill(t.mr[1]->buf, 16384, 36);
	memset(t.mr[0]->buf, 0xEE, 16384);
	for (int i = 0; i < 2; i++) {
		g = rt_sge(t.mr[0], 8192 * (uint64_t)i, 64);
		w.raddr = t.mr[1]->va + 1024 * (uint64_t)i;
		w.rkey = t.mr[1]->rkey;
		tb_post_send(t.qp[0], &w);
		if (doorbell)
			tb_run(t.tb, RT_WAIT);
	}
	for (int i = 0; i < 2; i++)
		CHECK(wait_cqe(t.scq[0], &c) && c.wqe_index == i && c.status == HCA_WC_SUCCESS,
		      "%s: WQE %d completes (status %u)", what, i, c.status);
	CHECK(!memcmp(t.mr[0]->buf, t.mr[1]->buf, 64) && !memcmp(t.mr[0]->buf + 8192, t.mr[1]->buf + 1024, 64),
	      "%s: both READs' data", what);
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_DMA_FAULT), 0, "no DMA fault");
	finish(&t, what);
}

int main(int argc, char **argv)
{
	rt_ls_start(argc, argv);
	if (rt_ls_want("stream"))
		case_stream();
	if (rt_ls_want("part_mapped"))
		for (int k = 0; k < 2; k++)
			case_part_mapped(k);
	return check_done();
}
