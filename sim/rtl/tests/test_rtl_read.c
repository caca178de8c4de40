// SPDX-License-Identifier: MIT
/*
 * RDMA READ and atomics on the RTL engine, each scenario on two "lockstep"
 * devices (reference: the C model, DUT: the RTL; rtl_ls.h), so every frame,
 * DMA write, CQE and event must be the model's, and each checked on its own
 * against the IB spec / docs/wire.md / docs/programming.md (data, CQE
 * opcode and byte_len, the opcodes, PSNs and lengths of the frames decoded
 * by the packet codec):
 *   READ of PMTU-edge lengths at three PMTUs into three local SGEs over two
 *   MRs; max_rd_atomic and the fence; four READs in flight with slow WQE
 *   fetches, resent, then a fifth; FETCH_ADD and CMP_SWP (hit, miss,
 *   wrap) in both directions; remote errors (rkey, bounds, MR and QP access,
 *   no responder resources, source DMA faults mid-READ, a read-only atomic
 *   target; a NAKed READ whose completion a full CQ loses: one QP_FATAL even
 *   with a malformed READ behind it); local errors (malformed READ/atomic WQEs, UC, LOCAL_WRITE, a
 *   faulting local SGE); duplicate READs replayed in full and from a PSN
 *   inside, duplicate atomics answered from the saved result, duplicates
 *   that do not match a resource dropped, the first of three READs still
 *   replayed with four responder resources; bad responses (length, NAK
 *   syndrome) failing the WQE; crafted requests (misaligned atomic, READ
 *   longer than the largest message).
 *
 *   rtl_read [--width 64|512] [--engine rtl|lockstep] [--options dut.bug=NAME]
 */
#include "rtl_ls.h"
#include "hostmem.h"

static struct tb_send_wr wr_read(struct tb_sge *s, unsigned int n, struct tb_mr *r, uint64_t off)
{
	return (struct tb_send_wr){ .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = s, .num_sge = n,
				    .raddr = r->va + off, .rkey = r->rkey };
}

static struct tb_send_wr wr_atomic(uint8_t op, struct tb_sge *s, struct tb_mr *r, uint64_t off, uint64_t cmp_add,
				   uint64_t swap)
{
	return (struct tb_send_wr){ .opcode = op, .flags = HCA_SEND_SIGNALED, .sge = s, .num_sge = 1,
				    .raddr = r->va + off, .rkey = r->rkey, .compare_add = cmp_add, .swap = swap };
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);	/* little-endian in memory, as rxe */
	return v;
}

static void wr64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static unsigned int count_op(const struct rt *t, unsigned int src, uint8_t opcode)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < t->cap.n; i++)
		k += t->cap.src[i] == src && t->cap.pkt[i].opcode == opcode;
	return k;
}

static int last_index(const struct rt *t, unsigned int src, uint8_t opcode)
{
	for (int i = (int)t->cap.n - 1; i >= 0; i--)
		if (t->cap.src[i] == src && t->cap.pkt[i].opcode == opcode)
			return i;
	return -1;
}

static bool is_read_resp(uint8_t op)
{
	return op >= HCA_BTH_OP_RC_RDMA_READ_RESPONSE_FIRST && op <= HCA_BTH_OP_RC_RDMA_READ_RESPONSE_ONLY;
}

/* Build `p` (addresses from a captured frame of the same direction) and hand it to node `to`. */
static void inject(struct rt *t, unsigned int to, struct roce_pkt *p, const void *payload, uint32_t len)
{
	uint8_t frame[4200];
	size_t n = roce_build(p, payload, len, frame, sizeof(frame));

	CHECK(n > 0, "crafted frame built (opcode 0x%02x)", p->opcode);
	if (n)
		t->n[to]->ops->rx_frame(t->n[to]->eng, frame, n);
	tb_run(t->tb, RT_WAIT);
}

/* A captured frame from node `src`, as a template for a crafted one. */
static struct roce_pkt template_from(const struct rt *t, unsigned int src, uint8_t opcode)
{
	struct roce_pkt p;
	int i = last_index(t, src, opcode);

	memset(&p, 0, sizeof(p));
	if (i >= 0)
		p = t->cap.pkt[i];
	CHECK(i >= 0, "template frame 0x%02x from node %u captured", opcode, src);
	return p;
}

static void expect_cqe(struct tb_cq *cq, uint8_t status, uint8_t verr, const char *what)
{
	struct hca_cqe c;

	CHECK(wait_cqe(cq, &c) && c.status == status && (status == HCA_WC_SUCCESS || c.vendor_err == verr),
	      "%s: status %u vendor_err %u (want %u/%u)", what, c.status, c.vendor_err, status, verr);
}

/* ---------------------------------------------------------------- READ */

/*
 * The responses to a READ of `len` bytes from PSN `psn0`, captured from index
 * `from` on: opcodes, PSNs and lengths of wire.md 3.2.
 */
static void check_responses(const struct rt *t, unsigned int from, uint32_t psn0, uint32_t len, uint32_t pmtu,
			    const char *what)
{
	uint32_t n = len == 0 ? 1 : (len + pmtu - 1) / pmtu, k = 0;
	bool ok = true;

	for (unsigned int i = from; i < t->cap.n && k < n; i++) {
		const struct roce_pkt *p = &t->cap.pkt[i];
		uint8_t want;

		if (t->cap.src[i] != 1 || !is_read_resp(p->opcode))
			continue;
		want = n == 1 ? HCA_BTH_OP_RC_RDMA_READ_RESPONSE_ONLY :
		       k == 0 ? HCA_BTH_OP_RC_RDMA_READ_RESPONSE_FIRST :
		       k + 1 == n ? HCA_BTH_OP_RC_RDMA_READ_RESPONSE_LAST : HCA_BTH_OP_RC_RDMA_READ_RESPONSE_MIDDLE;
		ok &= p->opcode == want && p->psn == ((psn0 + k) & 0xffffff) &&
		      p->paylen == (k + 1 == n ? len - k * pmtu : pmtu);
		k++;
	}
	CHECK(ok && k == n, "%s: %u response packets, opcodes/PSNs/lengths per wire.md (%u seen)", what, n, k);
}

static void read_sizes(void)
{
	static const uint8_t mtus[] = { HCA_MTU_256, HCA_MTU_1024, HCA_MTU_4096 };
	static const uint32_t lens[] = { 0, 1, 255, 256, 257, 1000, 4096, 4097, 9000, 65536 };

	for (unsigned int m = 0; m < sizeof(mtus); m++) {
		struct tb_qp_attr a;
		struct rt t;
		struct tb_mr *m2;
		uint32_t pmtu = 128u << mtus[m];
		char what[96];

		tb_qp_attr_default(&a);
		a.path_mtu = mtus[m];
		setup(&t, HCA_QPT_RC, &a, NULL, 10);
		m2 = tb_mr_reg(t.n[0], t.pd[0], 1 << 17, RT_ACC_ALL);
		for (unsigned int i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			uint32_t len = lens[i], a0 = len / 3, a1 = len / 2 - len / 5;
			struct tb_sge s[3] = { rt_sge(t.mr[0], 100, a0), rt_sge(m2, 7, a1),
					       rt_sge(t.mr[0], 300000, len - a0 - a1) };
			struct tb_send_wr w = wr_read(s, 3, t.mr[1], 4096 + i);
			struct hca_cqe c;
			unsigned int nreq = count_op(&t, 0, HCA_BTH_OP_RC_RDMA_READ_REQUEST);
			bool data;

			snprintf(what, sizeof(what), "READ %u B at PMTU %u", len, pmtu);
			rt_fill(t.mr[1]->buf + 4096 + i, len, len + m);
			tb_post_send(t.qp[0], &w);
			CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS && c.opcode == HCA_WC_OP_RDMA_READ &&
			      c.byte_len == len, "%s: CQE RDMA_READ byte_len %u (status %u opcode %u byte_len %u)", what,
			      len, c.status, c.opcode, c.byte_len);
			{
				uint8_t *got = malloc(len + 1);

				memcpy(got, t.mr[0]->buf + 100, a0);
				memcpy(got + a0, m2->buf + 7, a1);
				memcpy(got + a0 + a1, t.mr[0]->buf + 300000, len - a0 - a1);
				data = rt_check(got, len, len + m);
				free(got);
			}
			CHECK(data, "%s: data in the three SGEs", what);
			CHECK_EQ(count_op(&t, 0, HCA_BTH_OP_RC_RDMA_READ_REQUEST), nreq + 1, what);
			{
				int ri = last_index(&t, 0, HCA_BTH_OP_RC_RDMA_READ_REQUEST);

				CHECK(ri >= 0 && t.cap.pkt[ri].reth.len == len && t.cap.pkt[ri].ackreq &&
				      t.cap.pkt[ri].reth.va == t.mr[1]->va + 4096 + i,
				      "%s: READ request RETH VA and length, AckReq", what);
				if (ri >= 0)
					check_responses(&t, (unsigned int)ri + 1, t.cap.pkt[ri].psn, len, pmtu, what);
			}
		}
		free(m2);
		snprintf(what, sizeof(what), "READ sizes at PMTU %u", pmtu);
		finish(&t, what);
	}
}

static void read_gating(void)
{
	struct tb_qp_attr a;
	struct rt t;
	struct tb_sge d, s, r;

	/* max_rd_atomic 2: never more than two READs between request and last response */
	tb_qp_attr_default(&a);
	a.max_rd_atomic = 2;
	setup(&t, HCA_QPT_RC, &a, NULL, 10);
	d = rt_sge(t.mr[0], 100000, 3000);
	for (int i = 0; i < 5; i++) {
		struct tb_send_wr w = wr_read(&d, 1, t.mr[1], 0);

		tb_post_send(t.qp[0], &w);
	}
	tb_run(t.tb, RT_WAIT);
	{
		int out = 0, most = 0, total = 0;

		for (unsigned int i = 0; i < t.cap.n; i++) {
			uint8_t op = t.cap.pkt[i].opcode;

			if (t.cap.src[i] == 0 && op == HCA_BTH_OP_RC_RDMA_READ_REQUEST) {
				out++;
				total++;
				most = out > most ? out : most;
			} else if (t.cap.src[i] == 1 && op == HCA_BTH_OP_RC_RDMA_READ_RESPONSE_LAST) {
				out--;
			}
		}
		CHECK_EQ(most, 2, "max_rd_atomic 2: at most two READs outstanding");
		CHECK_EQ(total, 5, "all five READs sent");
	}
	for (int i = 0; i < 5; i++) {
		struct hca_cqe c;

		CHECK(tb_cq_poll(t.scq[0], &c) && c.status == 0 && c.wqe_index == i, "READ %d completed in order", i);
	}
	finish(&t, "max_rd_atomic");

	/* FENCE: a SEND behind a READ waits for the READ's responses; without it, it does not */
	for (int fence = 0; fence < 2; fence++) {
		int is, ir;

		setup(&t, HCA_QPT_RC, NULL, NULL, 10);
		d = rt_sge(t.mr[0], 100000, 5000);
		s = rt_sge(t.mr[0], 0, 10);
		r = rt_sge(t.mr[1], 0, 10);
		tb_post_recv(t.qp[1], &r, 1);
		{
			struct tb_send_wr rd = wr_read(&d, 1, t.mr[1], 0);
			struct tb_send_wr sd = { .opcode = HCA_WR_SEND,
						 .flags = HCA_SEND_SIGNALED | (fence ? HCA_SEND_FENCE : 0), .sge = &s,
						 .num_sge = 1 };

			tb_post_send(t.qp[0], &rd);
			tb_post_send(t.qp[0], &sd);
		}
		tb_run(t.tb, RT_WAIT);
		is = last_index(&t, 0, HCA_BTH_OP_RC_SEND_ONLY);
		ir = last_index(&t, 1, HCA_BTH_OP_RC_RDMA_READ_RESPONSE_LAST);
		CHECK(is >= 0 && ir >= 0, "fence %d: frames seen", fence);
		if (fence)
			CHECK(is > ir, "FENCE: the SEND leaves after the READ's last response");
		else
			CHECK(is < ir, "no FENCE: the SEND leaves before the READ's responses");
		finish(&t, fence ? "fence" : "no fence");
	}

	/* atomics count against max_rd_atomic too */
	tb_qp_attr_default(&a);
	a.max_rd_atomic = 1;
	setup(&t, HCA_QPT_RC, &a, NULL, 10);
	wr64(t.mr[1]->buf, 0);
	for (int i = 0; i < 3; i++) {
		struct tb_sge l = rt_sge(t.mr[0], 8 * (uint64_t)i, 8);
		struct tb_send_wr w = wr_atomic(HCA_WR_ATOMIC_FETCH_AND_ADD, &l, t.mr[1], 0, 1, 0);

		tb_post_send(t.qp[0], &w);
	}
	tb_run(t.tb, RT_WAIT);
	{
		bool alternate = true;
		int out = 0;

		for (unsigned int i = 0; i < t.cap.n; i++) {
			if (t.cap.src[i] == 0 && t.cap.pkt[i].opcode == HCA_BTH_OP_RC_FETCH_ADD)
				alternate &= ++out == 1;
			else if (t.cap.src[i] == 1 && t.cap.pkt[i].opcode == HCA_BTH_OP_RC_ATOMIC_ACKNOWLEDGE)
				out--;
		}
		CHECK(alternate && count_op(&t, 0, HCA_BTH_OP_RC_FETCH_ADD) == 3,
		      "max_rd_atomic 1: one atomic at a time");
	}
	CHECK(rd64(t.mr[0]->buf) == 0 && rd64(t.mr[0]->buf + 8) == 1 && rd64(t.mr[0]->buf + 16) == 2 &&
	      rd64(t.mr[1]->buf) == 3, "three FETCH_ADDs, in order");
	finish(&t, "max_rd_atomic with atomics");
}

/* ---------------------------------------------------------------- atomics */

static void atomics(void)
{
	struct rt t;
	struct tb_sge l;
	struct tb_send_wr w;
	struct hca_cqe c;
	static const struct {
		uint8_t op;
		unsigned int node;	/* requester */
		uint64_t cmp_add, swap, before, after;
	} steps[] = {
		{ HCA_WR_ATOMIC_FETCH_AND_ADD, 0, 5, 0, 100, 105 },
		{ HCA_WR_ATOMIC_FETCH_AND_ADD, 0, 1ull << 40, 0, 105, 105 + (1ull << 40) },
		{ HCA_WR_ATOMIC_CMP_AND_SWP, 0, 105 + (1ull << 40), 7, 105 + (1ull << 40), 7 },	/* hit */
		{ HCA_WR_ATOMIC_CMP_AND_SWP, 0, 999, 1, 7, 7 },					/* miss */
		{ HCA_WR_ATOMIC_FETCH_AND_ADD, 0, 0xfffffffffffffffaull, 0, 7, 1 },		/* wraps */
		{ HCA_WR_ATOMIC_FETCH_AND_ADD, 1, 3, 0, 1, 4 },					/* other way */
		{ HCA_WR_ATOMIC_CMP_AND_SWP, 1, 4, 0x0123456789abcdefull, 4, 0x0123456789abcdefull },
		{ HCA_WR_ATOMIC_FETCH_AND_ADD, 1, 1ull << 50, 0, 0x0123456789abcdefull, 0x0127456789abcdefull },
		/* an original value with bit 50 set (and bit 61 clear) in the AtomicAckETH */
		{ HCA_WR_ATOMIC_FETCH_AND_ADD, 1, 1, 0, 0x0127456789abcdefull, 0x0127456789abcdf0ull },
	};

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	wr64(t.mr[1]->buf + 64, 100);
	for (unsigned int i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		unsigned int q = steps[i].node, p = 1 - q;
		char what[64];
		int ri, ai;

		snprintf(what, sizeof(what), "atomic step %u (%s)", i,
			 steps[i].op == HCA_WR_ATOMIC_FETCH_AND_ADD ? "FETCH_ADD" : "CMP_SWP");
		if (q == 1 && i == 5)
			wr64(t.mr[0]->buf + 64, 1);
		l = rt_sge(t.mr[q], 4096 + 8 * i, 8);
		w = wr_atomic(steps[i].op, &l, t.mr[p], 64, steps[i].cmp_add, steps[i].swap);
		tb_post_send(t.qp[q], &w);
		CHECK(wait_cqe(t.scq[q], &c) && c.status == HCA_WC_SUCCESS && c.byte_len == 8 &&
		      c.opcode == (steps[i].op == HCA_WR_ATOMIC_FETCH_AND_ADD ? HCA_WC_OP_FETCH_ADD : HCA_WC_OP_COMP_SWAP),
		      "%s: CQE opcode %u byte_len %u", what, c.opcode, c.byte_len);
		CHECK(rd64(t.mr[q]->buf + 4096 + 8 * i) == steps[i].before, "%s: original value returned", what);
		CHECK(rd64(t.mr[p]->buf + 64) == steps[i].after, "%s: target updated", what);
		ri = last_index(&t, q, steps[i].op == HCA_WR_ATOMIC_FETCH_AND_ADD ? HCA_BTH_OP_RC_FETCH_ADD :
										  HCA_BTH_OP_RC_COMPARE_SWAP);
		ai = last_index(&t, p, HCA_BTH_OP_RC_ATOMIC_ACKNOWLEDGE);
		CHECK(ri >= 0 && ai >= 0 && t.cap.pkt[ai].atmack_orig == steps[i].before &&
		      t.cap.pkt[ai].psn == t.cap.pkt[ri].psn, "%s: AtomicAckETH carries the original value", what);
		if (ri >= 0)
			CHECK(t.cap.pkt[ri].atmeth.swap_add ==
				      (steps[i].op == HCA_WR_ATOMIC_CMP_AND_SWP ? steps[i].swap : steps[i].cmp_add) &&
			      t.cap.pkt[ri].atmeth.compare ==
				      (steps[i].op == HCA_WR_ATOMIC_CMP_AND_SWP ? steps[i].cmp_add : 0) &&
			      t.cap.pkt[ri].atmeth.va == t.mr[p]->va + 64 && t.cap.pkt[ri].ackreq,
			      "%s: AtomicETH fields", what);
	}
	finish(&t, "atomics");
}

/*
 * Four READs in flight at once (max_rd_atomic 4), their WQE fetches slow
 * (dut.rd_lat 2000: the harness skips the quiet cycles of a fetch,
 * docs/sim.md), to a responder in RESET that drops them; the responder is
 * connected again, the ACK timeout resends them and all four complete
 * SUCCESS with their data; then a fifth READ goes out and completes (the
 * QP's count of READs in flight, TXS_RD_OUT, counts each exactly once: one
 * lost count lets a fifth out early, one too few wraps and gates the QP
 * for ever).
 */
static void reads_slow_fetch(void)
{
	struct rt t;
	struct tb_qp_attr a;
	struct tb_sge l[5];
	struct tb_send_wr w;
	struct hca_cqe c;

	tb_qp_attr_default(&a);
	a.max_rd_atomic = 4;
	a.timeout = 8;			/* 2^18 cycles */
	setup_rd_lat(&t, &a, 2000);
	tb_qp_modify(t.qp[1], HCA_QPS_RESET, 0);
	rt_fill(t.mr[1]->buf, 5 * 256, 61);
	for (unsigned int i = 0; i < 4; i++) {
		l[i] = rt_sge(t.mr[0], 256 * i, 256);
		w = wr_read(&l[i], 1, t.mr[1], 256 * i);
		tb_post_send(t.qp[0], &w);
	}
	tb_run_for(t.tb, 40000);
	CHECK_EQ(count_op(&t, 0, HCA_BTH_OP_RC_RDMA_READ_REQUEST), 4, "slow fetches: four READs in flight");
	tb_qp_connect(t.qp[1], t.qp[0], &a);
	for (unsigned int k = 0; k < 4; k++)
		CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS && c.wqe_index == k,
		      "slow fetches: READ %u completes SUCCESS after the resend (got %u)", k, c.status);
	l[4] = rt_sge(t.mr[0], 4 * 256, 256);
	w = wr_read(&l[4], 1, t.mr[1], 4 * 256);
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS && c.wqe_index == 4,
	      "slow fetches: a fifth READ completes SUCCESS (got %u, index %u)", c.status, c.wqe_index);
	CHECK(rt_check(t.mr[0]->buf, 5 * 256, 61), "slow fetches: the five READs' data");
	finish(&t, "four READs fetched slowly, resent, then a fifth");
}

/* ---------------------------------------------------------------- QPN and MR corners */

/*
 * Responses sent from a QP whose number has bit 6 set (node 1's QPN 66): the
 * UDP source port of the READ response and of the ACK is 0xC000 | (local QPN
 * & 0x3FFF) (docs/wire.md "UDP source port"), so QPN bit 6 lands in port bit
 * 6 and bit 5 stays clear.
 */
static void high_qpn(void)
{
	struct rt t;
	struct tb_sge l, s;
	struct tb_send_wr w;
	struct hca_cqe c;
	uint16_t want[2];
	bool ok = true;
	unsigned int n1 = 0;

	setup_objs(&t, 10);
	t.n[1]->next_qpn = 66;
	for (int i = 0; i < 2; i++)
		t.qp[i] = tb_qp_create(t.n[i], HCA_QPT_RC, t.pd[i], t.scq[i], t.rcq[i], NULL, NULL);
	tb_connect_pair(t.qp[0], t.qp[1], NULL);
	CHECK_EQ(t.qp[1]->qpn, 66, "node 1's QP numbered 66");
	for (int i = 0; i < 2; i++)
		want[i] = (uint16_t)(HCA_WIRE_UDP_SPORT_BASE | (t.qp[i]->qpn & HCA_WIRE_UDP_SPORT_MASK));
	rt_fill(t.mr[1]->buf + 512, 300, 66);
	l = rt_sge(t.mr[0], 1024, 300);
	w = wr_read(&l, 1, t.mr[1], 512);
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS && c.byte_len == 300 &&
	      rt_check(t.mr[0]->buf + 1024, 300, 66), "READ from QP 66: CQE and data");
	s = rt_sge(t.mr[0], 4096, 64);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				 .raddr = t.mr[1]->va + 8192, .rkey = t.mr[1]->rkey };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS, "WRITE to QP 66: CQE");
	for (unsigned int i = 0; i < t.cap.n; i++) {
		ok &= t.cap.pkt[i].sport == want[t.cap.src[i]];
		n1 += t.cap.src[i] == 1;
	}
	CHECK(ok && n1 >= 2, "UDP source port 0x%04x from QPN 66 (READ response, ACK), 0x%04x from QPN %u",
	      want[1], want[0], t.qp[0]->qpn);
	finish(&t, "responses from QPN 66");
}

/*
 * A READ at an MR offset of 2^52 + 0x100: the responder's MR (index 901, VA
 * 0, length 2^60) maps VA 2^52 to its buffer (dma_addr wraps: the buffer's
 * IOVA - 2^52), so the response carries the buffer's bytes 0x100 on
 * (model_mr_check: iova = dma_addr + (va - mr.va), 64-bit arithmetic).
 */
static void far_offset(void)
{
	struct rt t;
	struct hca_mrc m;
	struct tb_sge l;
	struct tb_send_wr w;
	struct hca_cqe c;
	const uint64_t far = 1ull << 52;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	memset(&m, 0, sizeof(m));
	m.valid = 1;
	m.key = 0x43;
	m.access = RT_ACC_ALL;
	m.pdn = t.pd[1];
	m.va = 0;
	m.length = 1ull << 60;
	m.dma_addr = t.mr[1]->iova - far;
	CHECK_EQ(tb_ctx_write(t.n[1], HCA_CTX_TYPE_MRC, 901, &m, sizeof(m)), HCA_MGMT_STATUS_OK,
		 "MRC 901 (VA 0, 2^60 bytes) written");
	rt_fill(t.mr[1]->buf + 0x100, 200, 52);
	l = rt_sge(t.mr[0], 2048, 200);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = &l, .num_sge = 1,
				 .raddr = far + 0x100, .rkey = 901u << 8 | 0x43 };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS && c.byte_len == 200 &&
	      rt_check(t.mr[0]->buf + 2048, 200, 52), "READ at MR offset 2^52 + 0x100: CQE and data (status %u)",
	      c.status);
	finish(&t, "READ at MR offset 2^52");
}

/* ---------------------------------------------------------------- remote errors */

/* One READ/atomic that the responder refuses with NAK `status`; both QPs end in ERR. */
static void remote_case(const struct tb_qp_attr *a, uint8_t op, int mr_access, uint64_t off, uint32_t len,
			uint32_t rkey_xor, uint8_t status, uint8_t resp_event, const char *what)
{
	struct rt t;
	struct tb_sge l;
	struct tb_send_wr w;
	struct tb_mr *target;

	setup(&t, HCA_QPT_RC, a, NULL, 10);
	target = mr_access >= 0 ? tb_mr_reg(t.n[1], t.pd[1], 8192, (uint32_t)mr_access) : t.mr[1];
	tb_evt_clear(t.n[1]);
	memset(t.mr[0]->buf, 0x5a, 16);
	l = rt_sge(t.mr[0], 0, op == HCA_WR_RDMA_READ ? len : 8);
	w = op == HCA_WR_RDMA_READ ? wr_read(&l, 1, target, off) : wr_atomic(op, &l, target, off, 1, 2);
	w.rkey ^= rkey_xor;
	tb_post_send(t.qp[0], &w);
	expect_cqe(t.scq[0], status,
		   status == HCA_WC_REM_ACCESS_ERR ? HCA_VENDOR_ERR_NAK_REM_ACCESS :
		   status == HCA_WC_REM_INV_REQ_ERR ? HCA_VENDOR_ERR_NAK_INV_REQ : HCA_VENDOR_ERR_NAK_REM_OP, what);
	tb_run(t.tb, RT_WAIT);
	CHECK_EQ(tb_qp_query(t.qp[1]).cur_state, HCA_QPS_ERR, "responder QP in ERR");
	CHECK_EQ(count_evt(t.n[1], resp_event, t.qp[1]->qpn), 1, "responder event");
	CHECK(count_op(&t, 1, HCA_BTH_OP_RC_RDMA_READ_RESPONSE_ONLY) + count_op(&t, 1, HCA_BTH_OP_RC_ATOMIC_ACKNOWLEDGE) +
	      count_op(&t, 1, HCA_BTH_OP_RC_RDMA_READ_RESPONSE_FIRST) == 0, "%s: no data returned", what);
	CHECK(t.mr[0]->buf[0] == 0x5a, "%s: nothing written locally", what);
	if (target != t.mr[1])
		free(target);
	finish(&t, what);
}

/* An MR of node 1 at MRC 900 whose pages are mapped from `iova` for `mapped` bytes. */
static uint32_t faulting_mr(struct rt *t, uint64_t iova, uint64_t length)
{
	struct hca_mrc m;

	memset(&m, 0, sizeof(m));
	m.valid = 1;
	m.key = 0x42;
	m.access = RT_ACC_ALL;
	m.pdn = t->pd[1];
	m.va = 0x5000000;
	m.length = length;
	m.dma_addr = iova;
	tb_ctx_write(t->n[1], HCA_CTX_TYPE_MRC, 900, &m, sizeof(m));
	return 900u << 8 | 0x42;
}

static void remote_errors(void)
{
	struct tb_qp_attr a;
	struct rt t;

	remote_case(NULL, HCA_WR_RDMA_READ, -1, 0, 300, 0x100, HCA_WC_REM_ACCESS_ERR, HCA_EVENT_QP_ACCESS_ERR,
		    "READ with a bad rkey");
	remote_case(NULL, HCA_WR_RDMA_READ, -1, (1 << 20) - 100, 4000, 0, HCA_WC_REM_ACCESS_ERR,
		    HCA_EVENT_QP_ACCESS_ERR, "READ past the MR");
	remote_case(NULL, HCA_WR_RDMA_READ, HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE, 0, 64, 0,
		    HCA_WC_REM_ACCESS_ERR, HCA_EVENT_QP_ACCESS_ERR, "READ from an MR without REMOTE_READ");
	remote_case(NULL, HCA_WR_ATOMIC_FETCH_AND_ADD, HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ, 0, 8, 0,
		    HCA_WC_REM_ACCESS_ERR, HCA_EVENT_QP_ACCESS_ERR, "atomic on an MR without REMOTE_ATOMIC");
	remote_case(NULL, HCA_WR_ATOMIC_CMP_AND_SWP, -1, 1 << 20, 8, 0, HCA_WC_REM_ACCESS_ERR,
		    HCA_EVENT_QP_ACCESS_ERR, "atomic past the MR");
	tb_qp_attr_default(&a);
	a.access = HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_ATOMIC;
	remote_case(&a, HCA_WR_RDMA_READ, -1, 0, 64, 0, HCA_WC_REM_ACCESS_ERR, HCA_EVENT_QP_ACCESS_ERR,
		    "READ to a QP without REMOTE_READ");
	a.access = HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_READ;
	remote_case(&a, HCA_WR_ATOMIC_FETCH_AND_ADD, -1, 0, 8, 0, HCA_WC_REM_ACCESS_ERR, HCA_EVENT_QP_ACCESS_ERR,
		    "atomic to a QP without REMOTE_ATOMIC");
	tb_qp_attr_default(&a);
	a.max_dest_rd_atomic = 0;
	remote_case(&a, HCA_WR_RDMA_READ, -1, 0, 64, 0, HCA_WC_REM_INV_REQ_ERR, HCA_EVENT_QP_REQ_ERR,
		    "READ, no responder resources");
	remote_case(&a, HCA_WR_ATOMIC_FETCH_AND_ADD, -1, 0, 8, 0, HCA_WC_REM_INV_REQ_ERR, HCA_EVENT_QP_REQ_ERR,
		    "atomic, no responder resources");

	/* READ source fault after four good responses: NAK remote operational error at the fifth PSN */
	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	{
		uint64_t iova;
		uint8_t *page = tb_alloc(t.n[1], 4096, &iova);
		uint32_t key = faulting_mr(&t, iova, 16384);
		struct tb_sge l = rt_sge(t.mr[0], 0, 6000);
		struct tb_send_wr w = { .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = &l, .num_sge = 1,
					.raddr = 0x5000000, .rkey = key };
		int ri, ni;

		rt_fill(page, 4096, 9);
		tb_evt_clear(t.n[1]);
		tb_post_send(t.qp[0], &w);
		expect_cqe(t.scq[0], HCA_WC_REM_OP_ERR, HCA_VENDOR_ERR_NAK_REM_OP, "READ source fault mid-message");
		tb_run(t.tb, RT_WAIT);
		ri = last_index(&t, 0, HCA_BTH_OP_RC_RDMA_READ_REQUEST);
		ni = last_index(&t, 1, HCA_BTH_OP_RC_ACKNOWLEDGE);
		CHECK_EQ(count_op(&t, 1, HCA_BTH_OP_RC_RDMA_READ_RESPONSE_MIDDLE), 3, "FIRST and three MIDDLE sent");
		CHECK(ri >= 0 && ni >= 0 && t.cap.pkt[ni].aeth.syndrome == (0x60 | HCA_AETH_NAK_REMOTE_OP_ERR) &&
		      t.cap.pkt[ni].psn == ((t.cap.pkt[ri].psn + 4) & 0xffffff),
		      "NAK remote operational error at the fifth response's PSN");
		CHECK(rt_check(t.mr[0]->buf, 4096, 9), "the four responses before it were written");
		CHECK_EQ(count_evt(t.n[1], HCA_EVENT_QP_FATAL, t.qp[1]->qpn), 1, "QP_FATAL at the responder");
		CHECK_EQ(HCA_FIELD_GET(tb_mgmt_read(t.n[1], HCA_MGMT_DMA_FAULT_INFO), HCA_MGMT_DMA_FAULT_INFO_CLIENT),
			 HCA_DMA_CLIENT_PAYLOAD, "fault client PAYLOAD");
		CHECK_EQ(tb_mgmt_read(t.n[1], HCA_MGMT_DMA_FAULT_LO), (uint32_t)(iova + 4096), "fault IOVA");
	}
	finish(&t, "READ source fault");

	/* atomic on unmapped memory: NAK remote operational error */
	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	{
		uint32_t key = faulting_mr(&t, 0x7700000000ull, 4096);
		struct tb_sge l = rt_sge(t.mr[0], 0, 8);
		struct tb_send_wr w = { .opcode = HCA_WR_ATOMIC_FETCH_AND_ADD, .flags = HCA_SEND_SIGNALED, .sge = &l,
					.num_sge = 1, .raddr = 0x5000008, .rkey = key, .compare_add = 1 };

		tb_post_send(t.qp[0], &w);
		expect_cqe(t.scq[0], HCA_WC_REM_OP_ERR, HCA_VENDOR_ERR_NAK_REM_OP, "atomic on unmapped memory");
	}
	finish(&t, "atomic read fault");

	/*
	 * A read-only mapping: FETCH_ADD 0 leaves it as it is (no write); FETCH_ADD
	 * 1 cannot write it back: NAK remote access error.  The second half runs
	 * on the RTL alone, against the spec: lockstep's reference records its
	 * writes without the host's permissions, so it cannot fault there.
	 */
	for (int k = 0; k < 2; k++) {
		const char *saved = engine;
		uint8_t *ro = aligned_alloc(4096, 4096);
		struct tb_sge l;
		struct tb_send_wr w;

		if (k)
			engine = "rtl";
		setup(&t, HCA_QPT_RC, NULL, NULL, 10);
		tb_evt_clear(t.n[1]);
		memset(ro, 0, 4096);
		wr64(ro + 16, 77);
		CHECK(hostmem_map(t.n[1]->hm, 0x6600000000ull, ro, 4096, HOSTMEM_READ) == 0, "map read-only");
		l = rt_sge(t.mr[0], 0, 8);
		w = (struct tb_send_wr){ .opcode = HCA_WR_ATOMIC_FETCH_AND_ADD, .flags = HCA_SEND_SIGNALED, .sge = &l,
					 .num_sge = 1, .raddr = 0x5000010, .rkey = faulting_mr(&t, 0x6600000000ull, 4096),
					 .compare_add = (uint64_t)k };
		tb_post_send(t.qp[0], &w);
		if (k) {
			expect_cqe(t.scq[0], HCA_WC_REM_ACCESS_ERR, HCA_VENDOR_ERR_NAK_REM_ACCESS,
				   "FETCH_ADD 1 on read-only memory");
			tb_run(t.tb, RT_WAIT);
			CHECK_EQ(count_evt(t.n[1], HCA_EVENT_QP_ACCESS_ERR, t.qp[1]->qpn), 1, "QP_ACCESS_ERR at the responder");
			CHECK_EQ(tb_stat(t.n[1], HCA_STAT_DMA_FAULT), 1, "the write fault counted");
		} else {
			expect_cqe(t.scq[0], HCA_WC_SUCCESS, 0, "FETCH_ADD 0 on read-only memory");
			CHECK(rd64(t.mr[0]->buf) == 77, "original value 77");
		}
		CHECK(rd64(ro + 16) == 77, "read-only memory unchanged");
		finish(&t, k ? "atomic write fault (RTL alone)" : "atomic on read-only memory, nothing to write");
		free(ro);
		engine = saved;
	}
}

/*
 * A READ refused with a NAK while the send CQ is full, a malformed READ
 * (inline) behind it: the NAKed READ's completion is lost to the overflow,
 * so its QP goes to ERR with QP_FATAL (docs/model.md rule 28) -- once: the
 * malformed READ's completion, lost to the CQ in error too, finds the QP in
 * ERR already and raises nothing more; one CQ_ERR for the overflow.
 */
static void nak_cq_full(void)
{
	static const uint8_t payload[8] = { 1 };
	struct rt t;
	struct tb_sge l;
	struct tb_send_wr w;
	struct hca_cqe c;
	uint8_t ty;
	uint32_t el;
	int fatal = 0, cq_err = 0, got = 0;

	setup(&t, HCA_QPT_RC, NULL, NULL, 1);	/* CQs of 2 entries */
	rt_fill(t.mr[1]->buf, 200, 31);
	for (int i = 0; i < 2; i++) {
		l = rt_sge(t.mr[0], 100 * (uint64_t)i, 100);
		w = wr_read(&l, 1, t.mr[1], 100 * (uint64_t)i);
		tb_post_send(t.qp[0], &w);
	}
	tb_run(t.tb, RT_WAIT);			/* two CQEs, not polled: the send CQ is full */
	tb_evt_clear(t.n[0]);
	l = rt_sge(t.mr[0], 1000, 100);
	w = wr_read(&l, 1, t.mr[1], 0);
	w.rkey ^= 0x100;
	tb_post_send(t.qp[0], &w);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .raddr = t.mr[1]->va,
				 .rkey = t.mr[1]->rkey, .inline_data = payload, .inline_len = sizeof(payload) };
	tb_post_send(t.qp[0], &w);
	tb_run(t.tb, RT_WAIT);
	CHECK(count_op(&t, 1, HCA_BTH_OP_RC_ACKNOWLEDGE) >= 1, "the bad-rkey READ was NAKed");
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "requester QP in ERR");
	while (tb_evt_pop(t.n[0], &ty, &el)) {
		fatal += ty == HCA_EVENT_QP_FATAL && el == t.qp[0]->qpn;
		cq_err += ty == HCA_EVENT_CQ_ERR;
	}
	CHECK(fatal == 1 && cq_err == 1, "one QP_FATAL (%d), one CQ_ERR (%d)", fatal, cq_err);
	while (tb_cq_poll(t.scq[0], &c))
		got += c.status == HCA_WC_SUCCESS;
	CHECK_EQ(got, 2, "the send CQ holds the two good READs only");
	CHECK(rt_check(t.mr[0]->buf, 200, 31), "their data");
	finish(&t, "READ NAKed into a full CQ, a malformed READ behind it");
}

/* ---------------------------------------------------------------- local errors */

static void local_errors(void)
{
	struct rt t;
	struct tb_sge l[2];
	struct tb_send_wr w;
	static const uint8_t payload[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const struct {
		uint8_t op;
		unsigned int nsge;
		uint32_t sge_len;
		uint64_t raddr_off;
		bool inl;
		const char *what;
	} bad[] = {
		{ HCA_WR_ATOMIC_CMP_AND_SWP, 2, 4, 0, false, "atomic with two SGEs" },
		{ HCA_WR_ATOMIC_FETCH_AND_ADD, 1, 4, 0, false, "atomic with a 4-byte SGE" },
		{ HCA_WR_ATOMIC_FETCH_AND_ADD, 1, 8, 4, false, "atomic at a misaligned address" },
		{ HCA_WR_RDMA_READ, 0, 0, 0, true, "INLINE READ" },
	};

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setup(&t, HCA_QPT_RC, NULL, NULL, 10);
		l[0] = rt_sge(t.mr[0], 0, bad[i].sge_len);
		l[1] = rt_sge(t.mr[0], 64, bad[i].sge_len);
		w = (struct tb_send_wr){ .opcode = bad[i].op, .flags = HCA_SEND_SIGNALED, .sge = l,
					 .num_sge = bad[i].nsge, .raddr = t.mr[1]->va + bad[i].raddr_off,
					 .rkey = t.mr[1]->rkey, .inline_data = bad[i].inl ? payload : NULL,
					 .inline_len = bad[i].inl ? 8 : 0 };
		tb_post_send(t.qp[0], &w);
		expect_cqe(t.scq[0], HCA_WC_LOC_QP_OP_ERR, HCA_VENDOR_ERR_BAD_WQE, bad[i].what);
		CHECK_EQ(tb_stat(t.n[0], HCA_STAT_TX_FRAMES), 0, "nothing sent");
		finish(&t, bad[i].what);
	}

	/* READ and atomics on UC */
	setup(&t, HCA_QPT_UC, NULL, NULL, 10);
	l[0] = rt_sge(t.mr[0], 0, 8);
	w = wr_read(l, 1, t.mr[1], 0);
	tb_post_send(t.qp[0], &w);
	expect_cqe(t.scq[0], HCA_WC_LOC_QP_OP_ERR, HCA_VENDOR_ERR_BAD_WQE, "UC READ");
	finish(&t, "UC READ");
	setup(&t, HCA_QPT_UC, NULL, NULL, 10);
	w = wr_atomic(HCA_WR_ATOMIC_FETCH_AND_ADD, l, t.mr[1], 0, 1, 0);
	l[0] = rt_sge(t.mr[0], 0, 8);
	tb_post_send(t.qp[0], &w);
	expect_cqe(t.scq[0], HCA_WC_LOC_QP_OP_ERR, HCA_VENDOR_ERR_BAD_WQE, "UC atomic");
	finish(&t, "UC atomic");

	/* READ into an MR without LOCAL_WRITE */
	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	{
		struct tb_mr *ro = tb_mr_reg(t.n[0], t.pd[0], 4096, HCA_ACCESS_REMOTE_READ);

		l[0] = rt_sge(ro, 0, 100);
		w = wr_read(l, 1, t.mr[1], 0);
		tb_post_send(t.qp[0], &w);
		expect_cqe(t.scq[0], HCA_WC_LOC_PROT_ERR, HCA_VENDOR_ERR_ACCESS, "READ into an MR without LOCAL_WRITE");
		free(ro);
	}
	finish(&t, "READ into an MR without LOCAL_WRITE");

	/* the local SGE's second page is not mapped: the READ response cannot be written */
	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	{
		half_mapped_mr(&t);
		l[0] = (struct tb_sge){ .addr = 0x5000000, .len = 6000, .lkey = 900u << 8 | 0x42 };
		w = wr_read(l, 1, t.mr[1], 0);
		tb_post_send(t.qp[0], &w);
		expect_cqe(t.scq[0], HCA_WC_LOC_PROT_ERR, HCA_VENDOR_ERR_DMA_FAULT, "READ response write fault");
		tb_run(t.tb, RT_WAIT);
		CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "requester QP in ERR");
		CHECK_EQ(HCA_FIELD_GET(tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_INFO), HCA_MGMT_DMA_FAULT_INFO_CLIENT),
			 HCA_DMA_CLIENT_PAYLOAD, "fault client PAYLOAD");
		CHECK(tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_INFO) & HCA_MGMT_DMA_FAULT_INFO_WRITE_MASK, "a write");
	}
	finish(&t, "READ response write fault");
}

/* ---------------------------------------------------------------- duplicates */

static void duplicates(void)
{
	struct tb_qp_attr a;
	struct rt t;
	struct tb_sge l;
	struct tb_send_wr w;
	struct roce_pkt rq;
	unsigned int n0, dup0;

	/* a READ replayed in full, then from a PSN inside it; one reaching past it is dropped */
	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	rt_fill(t.mr[1]->buf, 3000, 21);
	l = rt_sge(t.mr[0], 0, 3000);
	w = wr_read(&l, 1, t.mr[1], 0);
	tb_post_send(t.qp[0], &w);
	expect_cqe(t.scq[0], HCA_WC_SUCCESS, 0, "READ before its duplicates");
	CHECK(rt_check(t.mr[0]->buf, 3000, 21), "READ data");
	rq = template_from(&t, 0, HCA_BTH_OP_RC_RDMA_READ_REQUEST);
	rt_fill(t.mr[1]->buf, 3000, 22);		/* a replay reads the memory again */
	dup0 = tb_stat(t.n[1], HCA_STAT_RX_DUP);
	n0 = t.cap.n;
	inject(&t, 1, &rq, NULL, 0);
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_RX_DUP) - dup0, 1, "duplicate READ counted");
	check_responses(&t, n0, rq.psn, 3000, 1024, "full replay");
	CHECK(rt_check(t.mr[0]->buf, 3000, 21), "the requester ignores the replayed responses");
	CHECK(!tb_cq_poll(t.scq[0], &(struct hca_cqe){ 0 }), "no second completion");
	rq.psn = (rq.psn + 1) & 0xffffff;
	rq.reth.va += 1024;
	rq.reth.len = 1976;
	n0 = t.cap.n;
	inject(&t, 1, &rq, NULL, 0);
	CHECK(t.cap.n == n0 + 2 && t.cap.pkt[n0].opcode == HCA_BTH_OP_RC_RDMA_READ_RESPONSE_FIRST &&
	      t.cap.pkt[n0].psn == rq.psn && t.cap.pkt[n0 + 1].opcode == HCA_BTH_OP_RC_RDMA_READ_RESPONSE_LAST &&
	      t.cap.pkt[n0 + 1].paylen == 952, "replay from a PSN inside the READ: FIRST, LAST (952 B)");
	rq.reth.len = 3000;
	n0 = t.cap.n;
	inject(&t, 1, &rq, NULL, 0);
	CHECK_EQ(t.cap.n, n0, "a duplicate reaching past the READ's PSNs is dropped");
	rq.reth.len = 100;
	rq.reth.rkey ^= 0x100;
	inject(&t, 1, &rq, NULL, 0);
	CHECK_EQ(t.cap.n, n0, "a duplicate with a bad rkey is dropped, no NAK");
	CHECK_EQ(tb_qp_query(t.qp[1]).cur_state, HCA_QPS_RTS, "responder still in RTS");
	finish(&t, "duplicate READ");

	/* a duplicate atomic gets the saved ACK again and is not executed twice */
	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	wr64(t.mr[1]->buf + 8, 10);
	l = rt_sge(t.mr[0], 0, 8);
	w = wr_atomic(HCA_WR_ATOMIC_FETCH_AND_ADD, &l, t.mr[1], 8, 1, 0);
	tb_post_send(t.qp[0], &w);
	expect_cqe(t.scq[0], HCA_WC_SUCCESS, 0, "FETCH_ADD before its duplicate");
	w = wr_atomic(HCA_WR_ATOMIC_CMP_AND_SWP, &l, t.mr[1], 16, 0, 5);
	tb_post_send(t.qp[0], &w);
	expect_cqe(t.scq[0], HCA_WC_SUCCESS, 0, "CMP_SWP after it");
	rq = template_from(&t, 0, HCA_BTH_OP_RC_FETCH_ADD);
	{
		struct roce_pkt ack = template_from(&t, 1, HCA_BTH_OP_RC_ATOMIC_ACKNOWLEDGE);
		int ai;

		n0 = t.cap.n;
		inject(&t, 1, &rq, NULL, 0);
		ai = last_index(&t, 1, HCA_BTH_OP_RC_ATOMIC_ACKNOWLEDGE);
		CHECK(t.cap.n == n0 + 1 && ai == (int)n0 && t.cap.pkt[ai].atmack_orig == 10 &&
		      t.cap.pkt[ai].psn == rq.psn && t.cap.pkt[ai].aeth.msn == ((ack.aeth.msn - 1) & 0xffffff),
		      "the saved atomic ACK: original value 10, the MSN it had");
		CHECK(rd64(t.mr[1]->buf + 8) == 11, "executed once");
	}
	rq.psn = (rq.psn + 0xffffff) & 0xffffff;	/* before ePSN, but no resource holds it */
	n0 = t.cap.n;
	inject(&t, 1, &rq, NULL, 0);
	CHECK_EQ(t.cap.n, n0, "an atomic duplicate no resource holds: dropped");
	finish(&t, "duplicate atomic");

	/* one responder resource: the second READ takes it, the first can no longer be replayed */
	tb_qp_attr_default(&a);
	a.max_dest_rd_atomic = 1;
	setup(&t, HCA_QPT_RC, &a, NULL, 10);
	l = rt_sge(t.mr[0], 0, 100);
	w = wr_read(&l, 1, t.mr[1], 0);
	tb_post_send(t.qp[0], &w);
	expect_cqe(t.scq[0], HCA_WC_SUCCESS, 0, "first READ");
	rq = template_from(&t, 0, HCA_BTH_OP_RC_RDMA_READ_REQUEST);
	tb_post_send(t.qp[0], &w);
	expect_cqe(t.scq[0], HCA_WC_SUCCESS, 0, "second READ");
	n0 = t.cap.n;
	inject(&t, 1, &rq, NULL, 0);
	CHECK_EQ(t.cap.n, n0, "the first READ's resource was reused: its duplicate is dropped");
	rq = template_from(&t, 0, HCA_BTH_OP_RC_RDMA_READ_REQUEST);
	inject(&t, 1, &rq, NULL, 0);
	CHECK_EQ(t.cap.n, n0 + 1, "the second READ is replayed");
	finish(&t, "responder resources reused");

	/*
	 * Four responder resources (max_dest_rd_atomic 4, an even count below
	 * HCA_CAP_MAX_RD_ATOMIC), three READs: each takes its own resource
	 * (IB 9.5 and 9.7.5.1.3 duplicate READs; model/resp.c res_alloc: modulo
	 * min(max_dest_rd_atomic, 16)), so the first is still replayed, in full.
	 */
	tb_qp_attr_default(&a);
	a.max_dest_rd_atomic = 4;
	setup(&t, HCA_QPT_RC, &a, NULL, 10);
	rt_fill(t.mr[1]->buf, 300, 23);
	for (int i = 0; i < 3; i++) {
		l = rt_sge(t.mr[0], 100 * (uint64_t)i, 100);
		w = wr_read(&l, 1, t.mr[1], 100 * (uint64_t)i);
		tb_post_send(t.qp[0], &w);
		expect_cqe(t.scq[0], HCA_WC_SUCCESS, 0, "READ i of three, four resources");
		if (i == 0)
			rq = template_from(&t, 0, HCA_BTH_OP_RC_RDMA_READ_REQUEST);
	}
	CHECK(rt_check(t.mr[0]->buf, 300, 23), "the three READs' data");
	n0 = t.cap.n;
	inject(&t, 1, &rq, NULL, 0);
	CHECK(t.cap.n == n0 + 1 && t.cap.pkt[n0].opcode == HCA_BTH_OP_RC_RDMA_READ_RESPONSE_ONLY &&
	      t.cap.pkt[n0].psn == rq.psn && t.cap.pkt[n0].paylen == 100,
	      "four resources: the first of three READs is still replayed (%u frames)", t.cap.n - n0);
	finish(&t, "four responder resources");
}

/* ---------------------------------------------------------------- bad responses, crafted requests */

static int drop_responses(struct rt_cap *c, unsigned int src, const struct roce_pkt *p)
{
	(void)c;
	return src == 1 && (is_read_resp(p->opcode) || p->opcode == HCA_BTH_OP_RC_ATOMIC_ACKNOWLEDGE);
}

static void bad_responses(void)
{
	struct tb_qp_attr a;
	struct rt t;
	struct tb_sge l;
	struct tb_send_wr w;
	struct roce_pkt p;
	uint8_t pay[512];

	/* no ACK timer: the crafted response is the only one that arrives */
	tb_qp_attr_default(&a);
	a.timeout = 0;
	memset(pay, 0x33, sizeof(pay));
	setup(&t, HCA_QPT_RC, &a, NULL, 10);
	t.cap.drop = drop_responses;
	l = rt_sge(t.mr[0], 0, 300);
	w = wr_read(&l, 1, t.mr[1], 0);
	tb_post_send(t.qp[0], &w);
	tb_run(t.tb, RT_WAIT);
	p = template_from(&t, 1, HCA_BTH_OP_RC_RDMA_READ_RESPONSE_ONLY);
	inject(&t, 0, &p, pay, 200);
	expect_cqe(t.scq[0], HCA_WC_BAD_RESP_ERR, HCA_VENDOR_ERR_NONE, "READ response 200 B for a 300 B READ");
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "requester QP in ERR");
	CHECK(t.mr[0]->buf[0] != 0x33, "nothing written");
	finish(&t, "READ response of the wrong length");

	setup(&t, HCA_QPT_RC, &a, NULL, 10);
	t.cap.drop = drop_responses;
	l = rt_sge(t.mr[0], 0, 3000);
	w = wr_read(&l, 1, t.mr[1], 0);
	tb_post_send(t.qp[0], &w);
	tb_run(t.tb, RT_WAIT);
	p = template_from(&t, 1, HCA_BTH_OP_RC_RDMA_READ_RESPONSE_FIRST);
	p.opcode = HCA_BTH_OP_RC_RDMA_READ_RESPONSE_ONLY;	/* ONLY where FIRST is due */
	inject(&t, 0, &p, pay, 0);
	expect_cqe(t.scq[0], HCA_WC_BAD_RESP_ERR, HCA_VENDOR_ERR_NONE, "READ response ONLY where FIRST is due");
	finish(&t, "READ response of the wrong kind");

	setup(&t, HCA_QPT_RC, &a, NULL, 10);
	t.cap.drop = drop_responses;
	l = rt_sge(t.mr[0], 0, 8);
	w = wr_atomic(HCA_WR_ATOMIC_FETCH_AND_ADD, &l, t.mr[1], 0, 1, 0);
	tb_post_send(t.qp[0], &w);
	tb_run(t.tb, RT_WAIT);
	p = template_from(&t, 1, HCA_BTH_OP_RC_ATOMIC_ACKNOWLEDGE);
	p.aeth.syndrome = 0x60 | HCA_AETH_NAK_REMOTE_ACCESS_ERR;
	inject(&t, 0, &p, NULL, 0);
	expect_cqe(t.scq[0], HCA_WC_BAD_RESP_ERR, HCA_VENDOR_ERR_NONE, "atomic ACK with a NAK syndrome");
	finish(&t, "atomic ACK with a NAK syndrome");
}

static void crafted_requests(void)
{
	struct rt t;
	struct tb_sge l;
	struct tb_send_wr w;
	struct roce_pkt p;

	for (int k = 0; k < 2; k++) {
		const char *what = k ? "READ longer than the largest message" : "misaligned atomic";

		setup(&t, HCA_QPT_RC, NULL, NULL, 10);
		tb_evt_clear(t.n[1]);
		wr64(t.mr[1]->buf, 1000);
		l = rt_sge(t.mr[0], 0, 8);
		w = wr_atomic(HCA_WR_ATOMIC_FETCH_AND_ADD, &l, t.mr[1], 0, 1, 0);
		tb_post_send(t.qp[0], &w);
		expect_cqe(t.scq[0], HCA_WC_SUCCESS, 0, "a good FETCH_ADD first");
		p = template_from(&t, 0, HCA_BTH_OP_RC_FETCH_ADD);
		p.psn = (p.psn + 1) & 0xffffff;
		if (k) {
			p.opcode = HCA_BTH_OP_RC_RDMA_READ_REQUEST;
			p.reth.va = t.mr[1]->va;
			p.reth.rkey = t.mr[1]->rkey;
			p.reth.len = HCA_CAP_MAX_MSG_SZ + 1;
		} else {
			p.opcode = HCA_BTH_OP_RC_COMPARE_SWAP;
			p.atmeth.va += 4;
		}
		inject(&t, 1, &p, NULL, 0);
		{
			int ni = last_index(&t, 1, HCA_BTH_OP_RC_ACKNOWLEDGE);

			CHECK(ni >= 0 && t.cap.pkt[ni].aeth.syndrome == (0x60 | HCA_AETH_NAK_INVALID_REQUEST) &&
			      t.cap.pkt[ni].psn == p.psn, "%s: NAK invalid request at its PSN", what);
		}
		CHECK_EQ(count_evt(t.n[1], HCA_EVENT_QP_REQ_ERR, t.qp[1]->qpn), 1, "QP_REQ_ERR");
		CHECK(rd64(t.mr[1]->buf) == 1001, "memory untouched");
		finish(&t, what);
	}
}

int main(int argc, char **argv)
{
	rt_ls_start(argc, argv);
	read_sizes();
	read_gating();
	reads_slow_fetch();
	atomics();
	high_qpn();
	far_offset();
	remote_errors();
	nak_cq_full();
	local_errors();
	duplicates();
	bad_responses();
	crafted_requests();
	return check_done();
}
