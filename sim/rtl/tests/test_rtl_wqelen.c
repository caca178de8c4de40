// SPDX-License-Identifier: MIT
/*
 * A send WQE's first read is its header and one data segment (docs/rtl.md
 * "WQE prefetch", "WQE read length"): min(stride, 80) bytes, whether the
 * requester fetches it, reads it ahead (hca_wqe_prefetch) or the doorbell
 * does (hca_db_wqe_read); a WQE whose segments or inline data reach beyond
 * byte 80 is read again whole (the slot) before it is used (hca_req
 * need_rest).  The model reads a WQE the same way when it starts it
 * (model/req.c read_wqe).  In lockstep against the model:
 *   several QPs of strides 128 and 512 post WRITEs and SENDs of 1-4 SGEs,
 *   inline data of 0-200 bytes and zero length, mixed: in a burst (read
 *   ahead, and read for a step that gives way), with slow reads, and one
 *   at a time on an idle QP (read from the doorbell): all complete in
 *   order with their data;
 *   multi-packet WQEs of 3 and 4 SGEs at PMTU 256 among others on 4 QPs,
 *   round robin: read again (the first read, then the whole slot) for
 *   each packet's step after another QP's (REQST_REFETCH_WQE);
 *   later WQEs posted d cycles after the first (swept): prefetched, read
 *   from the doorbell or fetched by the step;
 *   a WQE of 2 SGEs (or 40 bytes of inline data) whose slot is mapped for
 *   its first 80 bytes only: the first read passes, the whole-slot read
 *   faults -- DMA_FAULT, the WQE read client and the slot's address in the
 *   fault latch, QP_FATAL, its WQEs flushed, the WQE before it sent --
 *   read ahead or from the doorbell;
 *   a WQE of 80 bytes in such a slot: read by its size (model and RTL),
 *   no fault, sent.
 *
 *   rtl_wqelen [--width 64|512] [--engine rtl|lockstep] [--options K=V,...] [CASE...]
 *   CASE: mixed, mixed_slow, one_by_one, packets, staggered, fault, short_in_part_mapped
 */
#include "rtl_ls.h"

/* request frames node 0 sent */
static unsigned int requests(const struct rt *t)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < t->cap.n; i++)
		k += t->cap.src[i] == 0 && t->cap.pkt[i].opcode != HCA_BTH_OP_RC_ACKNOWLEDGE;
	return k;
}

#define NQ 4
#define KINDS 10		/* kinds of mixed; 10 and 11: several packets at PMTU 256 */
#define SLOT 1024		/* bytes of MR 1 per message (WRITE target or receive buffer) */

struct wl {
	struct rt t;
	struct tb_qp *q[2][NQ];
	unsigned int next[NQ], posted, done;
	uint8_t expect[NQ * 64][SLOT];	/* message m's bytes */
	uint32_t elen[NQ * 64];
	bool send[NQ * 64];
	unsigned int qi[NQ * 64];
};

/* QP i's capabilities: 0 and 2 the defaults (4 SGEs: stride 128, no inline
 * data), 1 and 3 also 200 bytes of inline data (stride 512). */
static bool has_inline(unsigned int i)
{
	return i & 1;
}

static void wl_setup(struct wl *w, const char *opt, const struct tb_qp_attr *attr)
{
	const char *saved = rt_options;
	static char o[64];

	memset(w, 0, sizeof(*w));
	if (opt && strcmp(engine, "model")) {
		snprintf(o, sizeof(o), "%s%s", strcmp(engine, "lockstep") ? "" : "dut.", opt);
		rt_options = o;
	}
	setup_objs(&w->t, 10);
	rt_options = saved;
	for (unsigned int i = 0; i < NQ; i++) {
		struct tb_qp_cap cap = { .max_inline = has_inline(i) ? 200 : 0 };

		for (int n = 0; n < 2; n++)
			w->q[n][i] = tb_qp_create(w->t.n[n], HCA_QPT_RC, w->t.pd[n], w->t.scq[n], w->t.rcq[n], NULL,
						  &cap);
		tb_connect_pair(w->q[0][i], w->q[1][i], attr);
	}
	w->t.qp[0] = w->q[0][0];
	w->t.qp[1] = w->q[1][0];
	rt_fill(w->t.mr[0]->buf, 65536, 21);
}

/* Post message m of kind k on QP i: its bytes land at MR 1 offset SLOT * m. */
static void wl_post(struct wl *w, unsigned int i, unsigned int k, unsigned int m)
{
	static const uint32_t sgl[KINDS + 2][4] = {
		{ 64 }, { 40, 24 }, { 0 }, { 7, 100, 13 }, { 0 }, { 16, 1, 200, 31 }, { 0 }, { 0 }, { 30, 2 }, { 0 },
		{ 300, 250, 150 }, { 500, 480, 10, 34 },
	};
	static const unsigned int nsge[KINDS + 2] = { 1, 2, 0, 3, 0, 4, 0, 0, 2, 0, 3, 4 };
	static const uint32_t inl[KINDS + 2] = { 0, 0, 17, 0, 16, 0, 200, 0, 0, 100, 0, 0 };
	struct tb_sge s[4];
	struct tb_send_wr wr = { .flags = HCA_SEND_SIGNALED, .sge = s };
	uint8_t data[256];
	uint32_t len = 0;
	bool send = k == 8 || k == 9;

	if (!has_inline(i) && inl[k])
		k = k == 9 ? 8 : k == 2 ? 1 : k == 4 ? 0 : 5;	/* no inline data on this QP */
	for (unsigned int j = 0; j < nsge[k]; j++) {
		uint64_t off = 4096 * (m % 16) + 512 * j + 3 * m;	/* pieces apart, each its own source */

		s[j] = rt_sge(w->t.mr[0], off, sgl[k][j]);
		memcpy(w->expect[m] + len, w->t.mr[0]->buf + off, sgl[k][j]);
		len += sgl[k][j];
	}
	wr.num_sge = nsge[k];
	if (inl[k]) {
		rt_fill(data, inl[k], 1000 + m);
		memcpy(w->expect[m], data, inl[k]);
		wr.inline_data = data;
		wr.inline_len = inl[k];
		wr.num_sge = 0;
		len = inl[k];
	}
	w->elen[m] = len;
	w->send[m] = send;
	w->qi[m] = i;
	if (send) {
		struct tb_sge r = rt_sge(w->t.mr[1], (uint64_t)SLOT * m, SLOT);

		tb_post_recv(w->q[1][i], &r, 1);
		wr.opcode = HCA_WR_SEND;
	} else {
		wr.opcode = HCA_WR_RDMA_WRITE;
		wr.raddr = w->t.mr[1]->va + (uint64_t)SLOT * m;
		wr.rkey = w->t.mr[1]->rkey;
	}
	tb_post_send(w->q[0][i], &wr);
	w->posted++;
}

/* Wait for `n` send completions (any QP; in order per QP) and check them. */
static bool wl_wait(struct wl *w, unsigned int n)
{
	bool ok = true;

	for (unsigned int d = 0; d < n; d++) {
		struct hca_cqe c;
		unsigned int i;

		if (!wait_cqe(w->t.scq[0], &c))
			return false;
		for (i = 0; i < NQ && w->q[0][i]->qpn != c.qpn; i++)
			;
		if (i == NQ || c.status != HCA_WC_SUCCESS || c.wqe_index != (w->next[i] & 0xffff)) {
			printf("  QP %u: WQE %u status %s (expected index %u)\n", i, c.wqe_index,
			       hca_wc_status_name(c.status), w->next[i]);
			ok = false;
		}
		if (i < NQ)
			w->next[i]++;
		w->done++;
	}
	return ok;
}

/* Every message's bytes at its place in MR 1. */
static bool wl_data(struct wl *w, unsigned int msgs)
{
	bool ok = true;

	tb_run(w->t.tb, RT_WAIT);
	for (unsigned int m = 0; m < msgs; m++)
		if (memcmp(w->t.mr[1]->buf + (size_t)SLOT * m, w->expect[m], w->elen[m])) {
			printf("  message %u (QP %u, %u bytes%s): data differs\n", m, w->qi[m], w->elen[m],
			       w->send[m] ? ", SEND" : "");
			ok = false;
		}
	return ok;
}

static void wl_finish(struct wl *w, const char *what)
{
	CHECK(tb_stat(w->t.n[0], HCA_STAT_DMA_FAULT) == 0, "%s: no DMA fault", what);
	for (unsigned int i = 1; i < NQ; i++) {
		free(w->q[0][i]);
		free(w->q[1][i]);
	}
	finish(&w->t, what);
}

/* All kinds on all QPs, round robin, posted at once (`per` each). */
static void mixed(const char *opt, unsigned int per, const char *what)
{
	static struct wl w;
	unsigned int m = 0;

	wl_setup(&w, opt, NULL);
	for (unsigned int r = 0; r < per; r++)
		for (unsigned int i = 0; i < NQ; i++, m++)
			wl_post(&w, i, (r + 3 * i) % KINDS, m);
	CHECK(wl_wait(&w, m), "%s: %u completions, successful, in order per QP", what, m);
	CHECK(wl_data(&w, m), "%s: every message's data", what);
	CHECK(requests(&w.t) >= m, "%s: at least %u request frames (%u)", what, m, requests(&w.t));
	wl_finish(&w, what);
}

/* Each kind alone on an idle QP (its WQE read from the doorbell), then two
 * at a time (the second read ahead). */
static void one_by_one(void)
{
	static struct wl w;
	unsigned int m = 0;
	bool ok = true;

	wl_setup(&w, NULL, NULL);
	for (unsigned int i = 0; i < 2; i++)
		for (unsigned int k = 0; k < KINDS; k++) {
			tb_run(w.t.tb, RT_WAIT);	/* the QP's items over: its send queue idle at the doorbell */
			wl_post(&w, i, k, m++);
			ok = wl_wait(&w, 1) && ok;
		}
	CHECK(ok, "one by one: %u completions, successful", m);
	for (unsigned int i = 0; i < 2; i++)
		for (unsigned int k = 0; k < KINDS; k++) {
			tb_run(w.t.tb, RT_WAIT);
			wl_post(&w, i, k, m++);
			wl_post(&w, i, (k + 5) % KINDS, m++);
			ok = wl_wait(&w, 2) && ok;
		}
	CHECK(ok, "two at a time: %u completions, successful", m);
	CHECK(wl_data(&w, m), "one by one: every message's data");
	wl_finish(&w, "one by one");
}

/* Multi-packet WQEs (3 and 4 SGEs, 700 and 1024 bytes at PMTU 256) and
 * 1-SGE and inline ones on 4 QPs, round robin: a WQE's packets are sent
 * one a step, other QPs' steps use fetch buffer 0 in between, and its
 * next packet's step reads it again (REQST_REFETCH_WQE: the first read,
 * then the whole slot). */
static void packets(void)
{
	static const unsigned int kinds[4] = { 10, 0, 11, 6 };
	static struct wl w;
	struct tb_qp_attr a;
	unsigned int m = 0;

	tb_qp_attr_default(&a);
	a.path_mtu = HCA_MTU_256;
	wl_setup(&w, NULL, &a);
	for (unsigned int r = 0; r < 6; r++)
		for (unsigned int i = 0; i < NQ; i++, m++)
			wl_post(&w, i, kinds[(r + i) % 4], m);
	CHECK(wl_wait(&w, m), "packets: %u completions, successful, in order per QP", m);
	CHECK(wl_data(&w, m), "packets: every message's data");
	wl_finish(&w, "multi-packet WQEs, 4 QPs");
}

/* On each of 2 QPs a long WQE, then d cycles later a long and a short one
 * (d swept): the later ones found prefetched, read from the doorbell, or
 * fetched by the step (a doorbell while the QP's own item runs is not
 * read there). */
static void staggered(void)
{
	static struct wl w;
	bool ok = true;

	for (unsigned int d = 0; d <= 96; d += 8) {
		unsigned int m = 0;

		wl_setup(&w, NULL, NULL);
		for (unsigned int i = 0; i < 2; i++)
			wl_post(&w, i, 5, m++);
		tb_run_for(w.t.tb, d);
		for (unsigned int i = 0; i < 2; i++) {
			wl_post(&w, i, 3, m++);
			wl_post(&w, i, 0, m++);
		}
		ok = wl_wait(&w, m) && ok;
		ok = wl_data(&w, m) && ok;
		wl_finish(&w, "staggered doorbells");
	}
	CHECK(ok, "staggered: every completion successful, in order, with its data");
}

/* WQE 1's slot mapped for its first 80 bytes only (the QP's send ring moved
 * to a fresh allocation of one slot and 80 bytes; a context write gives the
 * engine the new base); WQE 0 a 64-byte WRITE.  WQE 1 needs more than 80
 * bytes (2 SGEs, or 40 bytes inline): its whole-slot read faults, as the
 * model's read of the slot does. */
static void fault_second_read(bool inl, bool doorbell)
{
	char what[96];
	struct rt t;
	struct tb_qp_cap cap = { .max_inline = 64 };	/* stride 128 either way */
	struct tb_sge s[2];
	struct tb_send_wr w0 = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = s, .num_sge = 1 };
	struct tb_send_wr w1 = w0;
	struct hca_cqe c;
	uint8_t data[40];
	uint64_t iova;
	unsigned int frames;

	snprintf(what, sizeof(what), "whole-slot read faults (%s, %s)", inl ? "40 bytes inline" : "2 SGEs",
		 doorbell ? "from the doorbell" : "read ahead");
	setup(&t, HCA_QPT_RC, NULL, &cap, 10);
	CHECK_EQ(t.qp[0]->qpc.log_sq_stride, 7, "stride 128");
	t.qp[0]->sq = tb_alloc(t.n[0], 128 + 80, &iova);
	t.qp[0]->sq_iova = iova;
	t.qp[0]->qpc.sq_base = iova;
	tb_qp_modify(t.qp[0], HCA_QPS_RTS, 0);
	tb_evt_clear(t.n[0]);
	rt_fill(t.mr[0]->buf, 4096, 33);
	rt_fill(data, sizeof(data), 34);
	s[0] = rt_sge(t.mr[0], 0, 64);
	s[1] = rt_sge(t.mr[0], 1024, 32);
	w0.raddr = t.mr[1]->va;
	w0.rkey = t.mr[1]->rkey;
	w1.raddr = t.mr[1]->va + 8192;
	w1.rkey = t.mr[1]->rkey;
	if (inl) {
		w1.inline_data = data;
		w1.inline_len = sizeof(data);
		w1.num_sge = 0;
	} else
		w1.num_sge = 2;
	tb_post_send(t.qp[0], &w0);
	if (doorbell) {
		CHECK(wait_cqe(t.scq[0], &c) && c.wqe_index == 0 && c.status == HCA_WC_SUCCESS,
		      "%s: WQE 0 completes (status %u)", what, c.status);
		tb_run(t.tb, RT_WAIT);
	}
	tb_post_send(t.qp[0], &w1);
	for (int i = doorbell ? 1 : 0; i < 2; i++)
		CHECK(wait_cqe(t.scq[0], &c) && c.wqe_index == i && c.status == HCA_WC_WR_FLUSH_ERR,
		      "%s: WQE %d flushed (status %u, index %u)", what, i, c.status, c.wqe_index);
	CHECK(tb_stat(t.n[0], HCA_STAT_DMA_FAULT) == 1, "%s: one DMA_FAULT", what);
	CHECK_EQ(tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_INFO) & 0xff01, HCA_DMA_CLIENT_WQE << 8,
		 "the fault a WQE read");
	CHECK_EQ(tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_LO), (uint32_t)(iova + 128), "the fault at slot 1");
	CHECK(tb_evt_find(t.n[0], HCA_EVENT_QP_FATAL, t.qp[0]->qpn), "%s: QP_FATAL", what);
	tb_run(t.tb, RT_WAIT);
	frames = requests(&t);
	CHECK(frames == 1, "%s: WQE 0's frame only (%u)", what, frames);
	finish(&t, what);
}

/* The same slot (mapped for its first 80 bytes) holding a WQE of 80 bytes
 * (one SGE): neither the model nor the RTL reads past byte 80
 * (docs/programming.md 5.1: a WQE is read by its size), both WRITEs land. */
static void short_in_part_mapped_slot(bool doorbell)
{
	const char *what = doorbell ? "80-byte WQE, slot mapped for 80 bytes (from the doorbell)" :
				      "80-byte WQE, slot mapped for 80 bytes (read ahead)";
	struct rt t;
	struct tb_sge s[2];
	struct tb_send_wr w = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = s, .num_sge = 1 };
	struct hca_cqe c;
	uint64_t iova;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	t.qp[0]->sq = tb_alloc(t.n[0], 128 + 80, &iova);
	t.qp[0]->sq_iova = iova;
	t.qp[0]->qpc.sq_base = iova;
	tb_qp_modify(t.qp[0], HCA_QPS_RTS, 0);
	rt_fill(t.mr[0]->buf, 4096, 35);
	for (int i = 0; i < 2; i++) {
		s[0] = rt_sge(t.mr[0], 1024 * (uint64_t)i, 64);
		w.raddr = t.mr[1]->va + 8192 * (uint64_t)i;
		w.rkey = t.mr[1]->rkey;
		tb_post_send(t.qp[0], &w);
		if (doorbell)
			tb_run(t.tb, RT_WAIT);
	}
	for (int i = 0; i < 2; i++)
		CHECK(wait_cqe(t.scq[0], &c) && c.wqe_index == i && c.status == HCA_WC_SUCCESS,
		      "%s: WQE %d completes (status %u)", what, i, c.status);
	CHECK(!memcmp(t.mr[1]->buf, t.mr[0]->buf, 64) && !memcmp(t.mr[1]->buf + 8192, t.mr[0]->buf + 1024, 64),
	      "%s: both WRITEs' data", what);
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_DMA_FAULT), 0, "no DMA fault");
	finish(&t, what);
}

int main(int argc, char **argv)
{
	rt_ls_start(argc, argv);
	if (rt_ls_want("mixed"))
		mixed(NULL, 12, "mixed lengths, 4 QPs, a burst");
	if (rt_ls_want("mixed_slow"))
		mixed("rd_lat=150", 8, "mixed lengths, 4 QPs, a burst, slow reads");
	if (rt_ls_want("one_by_one"))
		one_by_one();
	if (rt_ls_want("packets"))
		packets();
	if (rt_ls_want("staggered"))
		staggered();
	if (rt_ls_want("fault"))
		for (int k = 0; k < 4; k++)
			fault_second_read(k & 1, k & 2);
	if (rt_ls_want("short_in_part_mapped"))
		for (int k = 0; k < 2; k++)
			short_in_part_mapped_slot(k);
	return check_done();
}
