// SPDX-License-Identifier: MIT
/*
 * Fault soak: mixed RC traffic (SEND, SEND_WITH_IMM, RDMA WRITE, WRITE with
 * immediate, RDMA READ, CMP_AND_SWP, FETCH_AND_ADD; 0 .. 16 KiB in 1..3
 * SGEs; four MTUs; PSNs wrapping) on several QP pairs in both directions
 * between two model engines over a wire that drops, duplicates, reorders and
 * corrupts frames.  Two pairs keep only 3 receives posted, so RNR NAKs and
 * RNR retries are part of the mix.
 *
 * Default mode: every message must be delivered exactly once and in order
 * (each receive completion is matched against the sender's post order),
 * every payload verified (SEND/READ/WRITE data, immediates), atomics applied
 * exactly once (the FETCH_ADD counter returns 0,1,2,... and ends at the
 * number of FETCH_ADDs; CMP_AND_SWP walks k -> k+1), every completion
 * successful.
 *
 * --no-retry (retry_cnt 0): each requester QP must show successes, then
 * exactly one IBV_WC_RETRY_EXC_ERR (vendor TIMEOUT or NAK_SEQ) on its oldest
 * outstanding WQE, then IBV_WC_WR_FLUSH_ERR for every WQE behind it, in
 * wqe_index order, and the QP in ERR; messages completed successfully before
 * the error are still verified.
 *
 *   test_model_soak [--messages N] [--seed S] [--no-retry] [--pcap FILE] [-v]
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "mt.h"

#define PAIRS 6		/* pairs 0..3: node 0 -> 1, pairs 4..5: node 1 -> 0 */
#define W 16		/* outstanding send WQEs per pair */
#define R (2 * W)	/* receive WQEs kept posted */
#define SLOT 16384	/* bytes per message slot */
#define MAXLEN 16384
#define SRCLEN 65536	/* READ source region per pair */

struct msg {
	uint8_t op;
	uint32_t len;
	uint32_t seed;
	uint32_t imm;
	uint64_t roff;		/* READ: offset in the source region */
	uint64_t expect;	/* atomics: expected original value */
	bool consumes_recv;
};

struct pair {
	unsigned int a, b;		/* requester node, responder node */
	struct tb_qp *qa, *qb;
	struct tb_cq *scq, *rcq;
	struct tb_mr *ma, *mb;		/* per-pair regions */
	struct msg sent[W];		/* by wqe_index % W */
	uint16_t posted, completed;
	struct msg rq[4096];		/* receive-consuming messages in post order */
	unsigned int rq_head, rq_tail;
	uint16_t recv_posted, recv_done;
	unsigned int recv_depth;	/* receives kept posted: small on some pairs, to provoke RNR NAKs */
	uint64_t fadd_count, cas_value;
	bool dead;			/* --no-retry: QP saw its error */
	unsigned int errors, flushes;
	uint16_t err_index;
};

static struct tb *tb;
static struct pair pr[PAIRS];
static uint64_t rng_state;
static bool no_retry, verbose;
static uint64_t n_msgs = 100000, posted_total, done_total, ok_total;
static uint64_t op_count[7];

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* layout of a pair's regions */
#define A_SLOT(k) ((uint64_t)(k) * SLOT)			/* requester: source/destination slots */
#define B_RECV(k) ((uint64_t)(k) * SLOT)			/* responder: receive slots */
#define B_WRITE(k) ((uint64_t)(R + (k)) * SLOT)		/* responder: write targets */
#define B_SRC ((uint64_t)(R + W) * SLOT)			/* responder: READ source */
#define B_ATOM (B_SRC + SRCLEN)				/* responder: FADD counter, CAS word */
#define B_SIZE (B_ATOM + 64)
#define A_SIZE ((uint64_t)W * SLOT)

static void post_recv(struct pair *p)
{
	struct tb_sge r = mt_sge(p->mb, B_RECV(p->recv_posted % R), SLOT);

	tb_post_recv(p->qb, &r, 1);
	p->recv_posted++;
}

static void setup(uint64_t seed, const char *pcap)
{
	struct tb_config cfg = {
		.seed = seed,
		.pcap = pcap,
		.faults = { .drop = 0.05, .dup = 0.01, .reorder = 0.01, .corrupt = 0.005, .reorder_depth = 3 },
	};
	static const uint8_t mtus[4] = { HCA_MTU_1024, HCA_MTU_256, HCA_MTU_4096, HCA_MTU_512 };
	uint32_t pd[2];

	hca_model_engine_register();
	tb = tb_create(&cfg);
	if (!tb)
		exit(2);
	pd[0] = tb_pd_alloc(tb_node(tb, 0));
	pd[1] = tb_pd_alloc(tb_node(tb, 1));
	for (unsigned int i = 0; i < PAIRS; i++) {
		struct pair *p = &pr[i];
		struct tb_node *na, *nb;
		struct tb_qp_attr at;

		p->a = i < 4 ? 0 : 1;
		p->b = 1 - p->a;
		na = tb_node(tb, p->a);
		nb = tb_node(tb, p->b);
		p->scq = tb_cq_create(na, 8, NULL);
		p->rcq = tb_cq_create(nb, 8, NULL);
		p->qa = tb_qp_create(na, HCA_QPT_RC, pd[p->a], p->scq, p->scq, NULL, &(struct tb_qp_cap){ .max_send_wr = W });
		p->qb = tb_qp_create(nb, HCA_QPT_RC, pd[p->b], p->rcq, p->rcq, NULL, &(struct tb_qp_cap){ .max_recv_wr = R });
		p->ma = tb_mr_reg(na, pd[p->a], A_SIZE, MT_ACC_ALL);
		p->mb = tb_mr_reg(nb, pd[p->b], B_SIZE, MT_ACC_ALL);
		mt_fill(p->mb->buf + B_SRC, SRCLEN, 1000 + i);
		tb_qp_attr_default(&at);
		at.path_mtu = mtus[i % 4];
		at.timeout = 4;			/* 16384 cycles (65 us) against a 500-cycle RTT */
		at.retry_cnt = no_retry ? 0 : 7;
		at.rnr_retry = 7;
		at.max_rd_atomic = 4;
		at.sq_psn = at.rq_psn = (uint32_t)(0xfff000 + i * 0x100);	/* wraps the PSN space */
		if (tb_qp_connect(p->qa, p->qb, &at) || tb_qp_connect(p->qb, p->qa, &at))
			exit(2);
		p->recv_depth = (i == 1 || i == 5) ? 3 : R;
		for (unsigned int k = 0; k < p->recv_depth; k++)
			post_recv(p);
	}
}

static void post_one(struct pair *p)
{
	static const uint8_t ops[] = { HCA_WR_SEND, HCA_WR_SEND_WITH_IMM, HCA_WR_RDMA_WRITE,
				       HCA_WR_RDMA_WRITE_WITH_IMM, HCA_WR_RDMA_READ, HCA_WR_ATOMIC_CMP_AND_SWP,
				       HCA_WR_ATOMIC_FETCH_AND_ADD };
	uint16_t idx = p->posted;
	struct msg *m = &p->sent[idx % W];
	uint64_t r = rnd();
	struct tb_sge s[3];
	struct tb_send_wr wr;
	unsigned int sz = (unsigned int)(r >> 8) % 100;

	memset(m, 0, sizeof(*m));
	m->op = ops[r % 7];
	m->len = sz < 60 ? (uint32_t)(rnd() % 257) : sz < 92 ? 257 + (uint32_t)(rnd() % 3840) :
		 4097 + (uint32_t)(rnd() % (MAXLEN - 4096));
	m->seed = (uint32_t)rnd();
	m->imm = (uint32_t)rnd();
	memset(&wr, 0, sizeof(wr));
	wr.opcode = m->op;
	wr.flags = HCA_SEND_SIGNALED;
	wr.sge = s;
	wr.num_sge = 1;
	wr.imm = m->imm;
	s[0] = mt_sge(p->ma, A_SLOT(idx % W), m->len);
	if (m->op <= HCA_WR_RDMA_READ && m->len > 2 && rnd() % 2) {
		/* split the message over 2 or 3 SGEs of the slot */
		uint32_t a = 1 + (uint32_t)(rnd() % (m->len - 1)), b;

		s[0].len = a;
		s[1] = mt_sge(p->ma, A_SLOT(idx % W) + a, m->len - a);
		wr.num_sge = 2;
		if (m->len - a > 1 && rnd() % 2) {
			b = 1 + (uint32_t)(rnd() % (m->len - a - 1));
			s[1].len = b;
			s[2] = mt_sge(p->ma, A_SLOT(idx % W) + a + b, m->len - a - b);
			wr.num_sge = 3;
		}
	}
	switch (m->op) {
	case HCA_WR_SEND:
	case HCA_WR_SEND_WITH_IMM:
		mt_fill(p->ma->buf + A_SLOT(idx % W), m->len, m->seed);
		m->consumes_recv = true;
		break;
	case HCA_WR_RDMA_WRITE:
	case HCA_WR_RDMA_WRITE_WITH_IMM:
		mt_fill(p->ma->buf + A_SLOT(idx % W), m->len, m->seed);
		wr.raddr = p->mb->va + B_WRITE(idx % W);
		wr.rkey = p->mb->rkey;
		m->consumes_recv = m->op == HCA_WR_RDMA_WRITE_WITH_IMM;
		break;
	case HCA_WR_RDMA_READ:
		m->roff = rnd() % (SRCLEN - m->len + 1);
		memset(p->ma->buf + A_SLOT(idx % W), 0, m->len);
		wr.raddr = p->mb->va + B_SRC + m->roff;
		wr.rkey = p->mb->rkey;
		break;
	default:
		m->len = 8;
		s[0].len = 8;
		wr.num_sge = 1;
		memset(p->ma->buf + A_SLOT(idx % W), 0xff, 8);
		wr.rkey = p->mb->rkey;
		if (m->op == HCA_WR_ATOMIC_FETCH_AND_ADD) {
			wr.raddr = p->mb->va + B_ATOM;
			wr.compare_add = 1;
			m->expect = p->fadd_count++;
		} else {
			wr.raddr = p->mb->va + B_ATOM + 8;
			wr.compare_add = p->cas_value;
			wr.swap = p->cas_value + 1;
			m->expect = p->cas_value++;
		}
		break;
	}
	if (m->consumes_recv)
		p->rq[p->rq_tail++ % 4096] = *m;
	tb_post_send(p->qa, &wr);
	p->posted++;
	posted_total++;
	op_count[r % 7]++;
}

static void verify_send_side(struct pair *p, struct msg *m, uint16_t idx)
{
	const uint8_t *local = p->ma->buf + A_SLOT(idx % W);
	uint64_t v;

	switch (m->op) {
	case HCA_WR_RDMA_WRITE:
	case HCA_WR_RDMA_WRITE_WITH_IMM:
		CHECK(mt_check(p->mb->buf + B_WRITE(idx % W), m->len, m->seed), "pair %td wqe %u: WRITE data",
		      p - pr, idx);
		break;
	case HCA_WR_RDMA_READ:
		CHECK(memcmp(local, p->mb->buf + B_SRC + m->roff, m->len) == 0, "pair %td wqe %u: READ data",
		      p - pr, idx);
		break;
	case HCA_WR_ATOMIC_CMP_AND_SWP:
	case HCA_WR_ATOMIC_FETCH_AND_ADD:
		memcpy(&v, local, 8);
		CHECK(v == m->expect, "pair %td wqe %u: atomic original %" PRIu64 ", want %" PRIu64, p - pr, idx, v,
		      m->expect);
		break;
	default:
		break;
	}
}

static void poll_pair(struct pair *p)
{
	struct hca_cqe c;

	while (tb_cq_poll(p->scq, &c)) {
		uint16_t idx = p->completed;
		struct msg *m = &p->sent[idx % W];

		if (c.qpn != p->qa->qpn) {
			/* receive completions of the reverse direction never happen here (CQs are per pair) */
			CHECK(0, "pair %td: stray CQE for QP %u", p - pr, c.qpn);
			continue;
		}
		CHECK_EQ(c.wqe_index, idx, "send CQEs in wqe_index order");
		p->completed++;
		done_total++;
		if (c.status == HCA_WC_SUCCESS) {
			CHECK(!p->dead, "pair %td: success after the error", p - pr);
			ok_total++;
			verify_send_side(p, m, idx);
			continue;
		}
		if (!no_retry) {
			CHECK(0, "pair %td wqe %u: status %s vendor %u", p - pr, idx, hca_wc_status_name(c.status),
			      c.vendor_err);
			continue;
		}
		if (!p->dead) {
			CHECK(c.status == HCA_WC_RETRY_EXC_ERR, "pair %td: first error is RETRY_EXC_ERR, got %s",
			      p - pr, hca_wc_status_name(c.status));
			CHECK(c.vendor_err == HCA_VENDOR_ERR_TIMEOUT || c.vendor_err == HCA_VENDOR_ERR_NAK_SEQ,
			      "pair %td: vendor_err %u", p - pr, c.vendor_err);
			p->dead = true;
			p->errors++;
			p->err_index = idx;
		} else {
			CHECK(c.status == HCA_WC_WR_FLUSH_ERR, "pair %td: after the error only flushes, got %s",
			      p - pr, hca_wc_status_name(c.status));
			p->flushes++;
		}
	}
	while (tb_cq_poll(p->rcq, &c)) {
		struct msg *m;

		if (c.qpn != p->qb->qpn)
			continue;
		p->recv_done++;
		if (c.status != HCA_WC_SUCCESS) {
			CHECK(no_retry && c.status == HCA_WC_WR_FLUSH_ERR, "pair %td: receive status %s", p - pr,
			      hca_wc_status_name(c.status));
			continue;
		}
		CHECK(p->rq_head != p->rq_tail, "pair %td: a receive completion nobody sent", p - pr);
		if (p->rq_head == p->rq_tail)
			continue;
		m = &p->rq[p->rq_head++ % 4096];
		if (m->op == HCA_WR_RDMA_WRITE_WITH_IMM) {
			CHECK(c.opcode == HCA_WC_OP_RECV_RDMA_WITH_IMM && c.byte_len == m->len && c.imm_data == m->imm,
			      "pair %td: WRITE_WITH_IMM receive (op %u len %u/%u)", p - pr, c.opcode, c.byte_len, m->len);
		} else {
			CHECK(c.opcode == HCA_WC_OP_RECV && c.byte_len == m->len, "pair %td: SEND receive len %u/%u",
			      p - pr, c.byte_len, m->len);
			CHECK(mt_check(p->mb->buf + B_RECV((uint16_t)(p->recv_done - 1) % R), m->len, m->seed),
			      "pair %td: SEND payload", p - pr);
			if (m->op == HCA_WR_SEND_WITH_IMM)
				CHECK(c.wc_flags == HCA_WC_FLAG_WITH_IMM && c.imm_data == m->imm, "pair %td: imm", p - pr);
			else
				CHECK_EQ(c.wc_flags, 0, "no imm");
		}
		post_recv(p);
	}
}

int main(int argc, char **argv)
{
	uint64_t seed = 1, steps = 0;
	const char *pcap = NULL;
	struct timespec t0, t1;
	struct wire_stats ws;
	double secs;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--messages") && i + 1 < argc)
			n_msgs = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--pcap") && i + 1 < argc)
			pcap = argv[++i];
		else if (!strcmp(argv[i], "--no-retry"))
			no_retry = true;
		else if (!strcmp(argv[i], "-v"))
			verbose = true;
		else {
			fprintf(stderr, "usage: %s [--messages N] [--seed S] [--no-retry] [--pcap FILE] [-v]\n", argv[0]);
			return 2;
		}
	}
	rng_state = seed * 0x2545F4914F6CDD1Dull;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	setup(seed, pcap);
	for (;;) {
		bool open = false;

		for (unsigned int i = 0; i < PAIRS; i++) {
			struct pair *p = &pr[i];

			while (!p->dead && posted_total < n_msgs && (uint16_t)(p->posted - p->completed) < W)
				post_one(p);
			if ((uint16_t)(p->posted - p->completed))
				open = true;
		}
		if (!open && (posted_total >= n_msgs || no_retry))
			break;
		if (!tb_step(tb, UINT64_MAX - 1)) {
			CHECK(0, "stalled with WQEs outstanding");
			break;
		}
		steps++;
		for (unsigned int i = 0; i < PAIRS; i++)
			poll_pair(&pr[i]);
		if (check_failures() > 20)
			break;
	}
	tb_run(tb, 1ull << 32);
	for (unsigned int i = 0; i < PAIRS; i++)
		poll_pair(&pr[i]);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

	/* end-of-run checks */
	for (unsigned int i = 0; i < PAIRS; i++) {
		struct pair *p = &pr[i];
		uint64_t v;
		struct hca_qpc q = tb_qp_query(p->qa);

		CHECK_EQ(p->completed, p->posted, "every WQE completed");
		if (!no_retry) {
			CHECK_EQ(p->rq_head, p->rq_tail, "every receive-consuming message received");
			memcpy(&v, p->mb->buf + B_ATOM, 8);
			CHECK_EQ(v, p->fadd_count, "FETCH_ADD counter = number of FETCH_ADDs");
			memcpy(&v, p->mb->buf + B_ATOM + 8, 8);
			CHECK_EQ(v, p->cas_value, "CMP_AND_SWP word = number of swaps");
			CHECK_EQ(q.cur_state, HCA_QPS_RTS, "requester still RTS");
		} else {
			CHECK_EQ(p->errors, 1, "exactly one error completion per QP");
			CHECK_EQ(q.cur_state, HCA_QPS_ERR, "requester QP in ERR");
			CHECK_EQ((uint16_t)(p->err_index + 1 + p->flushes), p->posted, "everything behind it flushed");
			/* messages completed before the error were received exactly once */
			CHECK(p->rq_head <= p->rq_tail, "no extra receive");
		}
		CHECK_EQ(tb_qp_query(p->qb).cur_state, HCA_QPS_RTS, "responder still RTS");
	}
	wire_get_stats(tb_wire(tb), &ws);
	printf("soak%s: %" PRIu64 " messages (%" PRIu64 " ok) on %d QP pairs, %" PRIu64 " steps, %.2f s, "
	       "simulated %.3f ms\n", no_retry ? " (retry_cnt 0)" : "", done_total, ok_total, PAIRS, steps, secs,
	       (double)tb_now(tb) / 250000.0);
	printf("  ops: send %" PRIu64 " send_imm %" PRIu64 " write %" PRIu64 " write_imm %" PRIu64 " read %" PRIu64
	       " cas %" PRIu64 " fadd %" PRIu64 "\n", op_count[0], op_count[1], op_count[2], op_count[3], op_count[4],
	       op_count[5], op_count[6]);
	printf("  wire: sent %" PRIu64 " dropped %" PRIu64 " duplicated %" PRIu64 " reordered %" PRIu64
	       " corrupted %" PRIu64 "\n", ws.sent, ws.dropped, ws.duplicated, ws.reordered, ws.corrupted);
	for (unsigned int n = 0; n < 2; n++) {
		struct tb_node *nd = tb_node(tb, n);

		printf("  node %u: retransmit %u rx_dup %u rx_seq_err %u icrc_drop %u tx_nak %u\n", n,
		       tb_stat(nd, HCA_STAT_RETRANSMIT), tb_stat(nd, HCA_STAT_RX_DUP), tb_stat(nd, HCA_STAT_RX_SEQ_ERR),
		       tb_stat(nd, HCA_STAT_RX_DROP_ICRC), tb_stat(nd, HCA_STAT_TX_NAK));
	}
	if (!no_retry) {
		CHECK(done_total >= n_msgs, "at least %" PRIu64 " messages", n_msgs);
		CHECK(ws.dropped > 0 && ws.duplicated > 0 && ws.reordered > 0 && ws.corrupted > 0, "all faults happened");
	}
	(void)verbose;
	for (unsigned int i = 0; i < PAIRS; i++) {
		free(pr[i].qa);
		free(pr[i].qb);
		free(pr[i].scq);
		free(pr[i].rcq);
		free(pr[i].ma);
		free(pr[i].mb);
	}
	tb_destroy(tb);
	return check_done();
}
