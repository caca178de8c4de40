// SPDX-License-Identifier: MIT
/*
 * Robustness: the model never crashes (ASan/UBSan) and never writes host
 * memory it was not given, whatever arrives: well-formed frames with random
 * headers (valid ICRC, so they reach the transport logic: any opcode, PSNs
 * around ePSN, random and valid keys, lengths, VAs), byte-mutated and
 * truncated frames, random send WQE bytes (random and correct wqe_index),
 * random receive WQEs, random doorbells, random context contents at spare
 * indices, QP state changes in the middle of traffic.  A mapped but
 * unregistered canary buffer must stay untouched; afterwards a fresh QP
 * pair must still work.
 *
 *   test_model_fuzz [--iterations N] [--seed S]
 */
#include <inttypes.h>
#include <stdio.h>

#include "mt.h"

static uint64_t st;

static uint64_t rnd(void)
{
	uint64_t z = (st += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint32_t pick(const uint32_t *v, unsigned int n)
{
	return v[rnd() % n];
}

static struct mt t;
static struct tb_qp *qs[2][3];	/* [node][RC, UC, UD] */
static uint8_t *canary;
static uint64_t canary_iova;

static uint64_t rand_va(struct tb_mr *mr)
{
	switch (rnd() % 4) {
	case 0:
		return rnd();
	case 1:
		return mr->va + mr->len - rnd() % 64;
	default:
		return mr->va + rnd() % mr->len;
	}
}

static void rand_frame(void)
{
	static uint8_t buf[8192], payload[4200];
	struct tb_qp *q = qs[1][rnd() % 3];
	struct hca_qpc qc = tb_qp_query(q);
	struct roce_pkt p;
	uint32_t qpns[] = { q->qpn, q->qpn, q->qpn, q->qpn, q->qpn, q->qpn, q->qpn, (uint32_t)rnd() & 0xffffff, 0, 255 };
	uint32_t plen = rnd() % 3 ? (uint32_t)(rnd() % 1100) : (uint32_t)(rnd() % 4200);
	size_t n;

	/* mostly opcodes of the QP's transport, sometimes anything */
	if (rnd() % 5 == 0)
		roce_pkt_init(&p, (uint8_t)rnd());
	else if (q->type == HCA_QPT_RC)
		roce_pkt_init(&p, (uint8_t)(rnd() % 0x15));
	else if (q->type == HCA_QPT_UC)
		roce_pkt_init(&p, (uint8_t)(0x20 + rnd() % 12));
	else
		roce_pkt_init(&p, (uint8_t)(0x64 + rnd() % 2));
	memcpy(p.dmac, t.n[1]->mac, 6);
	memcpy(p.smac, t.n[0]->mac, 6);
	p.sip = t.n[0]->ip;
	p.dip = rnd() % 16 ? t.n[1]->ip : (uint32_t)rnd();
	p.sport = 0xC000;
	p.dqpn = pick(qpns, 10);
	p.psn = rnd() % 2 ? qc.rq_psn_expected : (qc.rq_psn_expected + (uint32_t)(rnd() % 11) - 5) & 0xffffff;
	if (rnd() % 8 == 0)
		p.psn = (uint32_t)rnd() & 0xffffff;
	p.ackreq = rnd() & 1;
	p.se = rnd() & 1;
	p.reth.va = rand_va(t.mr[1]);
	p.reth.rkey = rnd() % 2 ? t.mr[1]->rkey : (uint32_t)rnd();
	p.reth.len = rnd() % 3 ? (uint32_t)(rnd() % 5000) : (uint32_t)rnd();
	p.atmeth.va = rand_va(t.mr[1]) & ~(uint64_t)(rnd() % 4 ? 7 : 0);
	p.atmeth.rkey = p.reth.rkey;
	p.atmeth.swap_add = rnd();
	p.atmeth.compare = rnd();
	p.aeth.syndrome = (uint8_t)rnd();
	p.aeth.msn = (uint32_t)rnd() & 0xffffff;
	p.deth.qkey = rnd() % 2 ? 0x11111111 : (uint32_t)rnd();
	p.deth.src_qp = (uint32_t)rnd() & 0xffffff;
	p.imm = (uint32_t)rnd();
	for (uint32_t i = 0; i < plen; i++)
		payload[i] = (uint8_t)rnd();
	n = roce_build(&p, payload, plen, buf, sizeof(buf));
	if (n == 0)
		return;
	if (rnd() % 5 == 0) {
		/* byte mutations and truncation */
		for (int k = 0; k < 1 + (int)(rnd() % 3); k++)
			buf[rnd() % n] ^= (uint8_t)(1 + rnd() % 255);
		if (rnd() % 3 == 0)
			n = rnd() % n + 1;
	}
	t.n[1]->ops->rx_frame(t.n[1]->eng, buf, n);
	if (rnd() % 10 == 0) {
		/* and toward the requester side: responses with random contents */
		struct tb_qp *r = qs[0][0];

		roce_pkt_init(&p, (uint8_t)(0x0d + rnd() % 8));
		memcpy(p.dmac, t.n[0]->mac, 6);
		memcpy(p.smac, t.n[1]->mac, 6);
		p.sip = t.n[1]->ip;
		p.dip = t.n[0]->ip;
		p.dqpn = r->qpn;
		p.psn = (tb_qp_query(r).sq_psn_next - (uint32_t)(rnd() % 8)) & 0xffffff;
		p.aeth.syndrome = (uint8_t)(rnd() % 2 ? 0x1f : rnd());
		p.aeth.msn = (uint32_t)rnd() & 0xffffff;
		p.atmack_orig = rnd();
		plen = (uint32_t)(rnd() % 1100);
		n = roce_build(&p, payload, plen, buf, sizeof(buf));
		if (n)
			t.n[0]->ops->rx_frame(t.n[0]->eng, buf, n);
	}
}

static void rand_send_wqe(void)
{
	struct tb_qp *q = qs[0][rnd() % 3];
	uint8_t w[1024];
	struct hca_wqe_ctrl_seg c;

	for (size_t i = 0; i < sizeof(w); i++)
		w[i] = (uint8_t)rnd();
	memcpy(&c, w, sizeof(c));
	if (rnd() % 4) {
		c.wqe_index = q->sq_pi;
		c.opcode = (uint8_t)(rnd() % 8);
		c.num_sge = (uint8_t)(rnd() % 6);
		c.send_flags = (uint8_t)(rnd() % 16);
		c.inline_len = (uint16_t)(rnd() % 300);
		for (unsigned int i = 0; i < c.num_sge; i++) {
			struct hca_wqe_data_seg d = { .byte_count = (uint32_t)(rnd() % 3 ? rnd() % 3000 : rnd()),
						      .lkey = rnd() % 3 ? t.mr[0]->lkey : (uint32_t)rnd(),
						      .addr = rand_va(t.mr[0]) };

			memcpy(w + 64 + 16 * i, &d, sizeof(d));
		}
		if (q->type != HCA_QPT_UD && rnd() % 2) {
			struct hca_wqe_raddr_seg r = { .remote_addr = rand_va(t.mr[1]), .rkey = t.mr[1]->rkey };

			memcpy(w + 16, &r, sizeof(r));
		}
		if (q->type == HCA_QPT_UD && rnd() % 2) {
			struct hca_wqe_ud_seg u;

			memset(&u, 0, sizeof(u));
			u.remote_qpn = qs[1][2]->qpn;
			u.remote_qkey = 0x11111111;
			memcpy(u.dmac, t.n[1]->mac, 6);
			u.sgid_index = (uint8_t)(rnd() % 20);
			u.dgid[10] = u.dgid[11] = 0xff;
			u.dgid[12] = 10;
			u.dgid[15] = 2;
			memcpy(w + 16, &u, sizeof(u));
		}
	}
	memcpy(w, &c, sizeof(c));
	tb_post_send_raw(q, w, sizeof(w));
}

static void rand_recv_wqe(void)
{
	struct tb_qp *q = qs[1][rnd() % 3];
	struct tb_sge s[16];
	unsigned int n = (unsigned int)(rnd() % 5);

	for (unsigned int i = 0; i < n; i++) {
		s[i].addr = rand_va(t.mr[1]);
		s[i].len = (uint32_t)(rnd() % 3 ? rnd() % 5000 : rnd());
		s[i].lkey = rnd() % 3 ? t.mr[1]->lkey : (uint32_t)rnd();
	}
	if (rnd() % 10 == 0) {
		/* num_sge beyond the stride: a malformed receive WQE */
		uint8_t *w = q->rq + ((size_t)(q->rq_pi & ((1u << q->qpc.log_rq_size) - 1)) << q->qpc.log_rq_stride);

		tb_post_recv(q, s, n);
		w[0] = (uint8_t)(17 + rnd() % 200);
		return;
	}
	tb_post_recv(q, s, n);
}

static bool hits_canary(uint64_t base, uint64_t len)
{
	return base < canary_iova + 65536 && base + len > canary_iova;
}

static void rand_context(void)
{
	uint8_t ctx[256];
	unsigned int type = 1 + (unsigned int)(rnd() % 6);
	uint32_t idx = 100 + (uint32_t)(rnd() % 20);	/* spare indices */

	for (size_t i = 0; i < sizeof(ctx); i++)
		ctx[i] = (uint8_t)rnd();
	if (type == HCA_CTX_TYPE_GIDC)
		idx = 5 + (uint32_t)(rnd() % 10);
	if (type == HCA_CTX_TYPE_EQC)
		idx = 10 + (uint32_t)(rnd() % 20);
	if (type == HCA_CTX_TYPE_SRQC)
		idx = 10 + (uint32_t)(rnd() % 50);
	/* whatever a context points at, keep it away from the canary */
	for (unsigned int off = 0; off + 8 <= 256; off += 8) {
		uint64_t v;

		memcpy(&v, ctx + off, 8);
		if (hits_canary(v, 128ull << 20))
			memset(ctx + off, 0, 8);
	}
	if (type == HCA_CTX_TYPE_MRC) {
		struct hca_mrc m;

		memcpy(&m, ctx, sizeof(m));
		if (hits_canary(m.dma_addr, m.length) || m.dma_addr + m.length < m.dma_addr)
			m.valid = 0;
		memcpy(ctx, &m, sizeof(m));
	}
	tb_ctx_write(t.n[rnd() % 2], type, idx, ctx, sizeof(ctx));
}

static void revive(void)
{
	struct tb_qp_attr a;

	tb_qp_attr_default(&a);
	a.rnr_retry = 3;
	a.retry_cnt = 3;
	a.timeout = 6;
	a.path_mtu = (uint8_t)(1 + rnd() % 5);
	for (int k = 0; k < 2; k++) {
		qs[0][k]->sq_pi = qs[1][k]->sq_pi = 0;
		qs[0][k]->rq_pi = qs[1][k]->rq_pi = 0;
		tb_connect_pair(qs[0][k], qs[1][k], &a);
	}
	for (int n = 0; n < 2; n++) {
		qs[n][2]->sq_pi = qs[n][2]->rq_pi = 0;
		tb_qp_modify(qs[n][2], HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK);
		tb_qp_ud_ready(qs[n][2], &a);
	}
}

int main(int argc, char **argv)
{
	uint64_t iters = 20000, seed = 1;
	struct hca_cqe c;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--iterations"))
			iters = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--seed"))
			seed = strtoull(argv[i + 1], NULL, 0);
	}
	st = seed;
	CHECK(mt_setup(&t, HCA_QPT_RC, NULL, NULL) == 0, "setup");
	canary = tb_alloc(t.n[1], 65536, &canary_iova);
	memset(canary, 0xA5, 65536);
	qs[0][0] = t.qp[0];
	qs[1][0] = t.qp[1];
	for (int n = 0; n < 2; n++) {
		qs[n][1] = tb_qp_create(t.n[n], HCA_QPT_UC, t.pd[n], t.scq[n], t.rcq[n], NULL, NULL);
		qs[n][2] = tb_qp_create(t.n[n], HCA_QPT_UD, t.pd[n], t.scq[n], t.rcq[n], NULL, NULL);
	}
	revive();
	for (uint64_t it = 0; it < iters; it++) {
		unsigned int a = (unsigned int)(rnd() % 100);

		if (a < 45)
			rand_frame();
		else if (a < 65)
			rand_send_wqe();
		else if (a < 80)
			rand_recv_wqe();
		else if (a < 85)
			tb_bar0_write(t.n[rnd() % 2], HCA_BAR0_DB_BASE + (uint32_t)(rnd() % 0x4000) * 4, (uint32_t)rnd());
		else if (a < 88)
			rand_context();
		else if (a < 93)
			revive();
		else if (a < 94)
			tb_qp_modify(qs[rnd() % 2][rnd() % 3], (uint8_t)(rnd() % 7), (uint8_t)(rnd() % 2 ? 0 : rnd()));
		tb_run_for(t.tb, rnd() % 3000);
		for (int n = 0; n < 2; n++) {
			while (tb_cq_poll(t.scq[n], &c))
				;
			while (tb_cq_poll(t.rcq[n], &c))
				;
		}
	}
	tb_run(t.tb, 1ull << 30);
	{
		size_t bad = 0;

		for (size_t i = 0; i < 65536; i++)
			bad += canary[i] != 0xA5;
		CHECK(bad == 0, "unregistered memory untouched (%zu bytes changed)", bad);
	}
	CHECK(t.n[0]->ops->last_error(t.n[0]->eng)[0] == 0, "node 0: %s", t.n[0]->ops->last_error(t.n[0]->eng));
	CHECK(t.n[1]->ops->last_error(t.n[1]->eng)[0] == 0, "node 1: %s", t.n[1]->ops->last_error(t.n[1]->eng));
	/* the engines still work: a fresh pair */
	{
		struct tb_qp *a = tb_qp_create(t.n[0], HCA_QPT_RC, t.pd[0], t.scq[0], t.rcq[0], NULL, NULL);
		struct tb_qp *b = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
		struct tb_sge s = mt_sge(t.mr[0], 0, 3000), r = mt_sge(t.mr[1], 0, 4096);
		struct tb_send_wr wr = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };

		for (int n = 0; n < 2; n++) {
			while (tb_cq_poll(t.scq[n], &c))
				;
			while (tb_cq_poll(t.rcq[n], &c))
				;
		}
		tb_connect_pair(a, b, NULL);
		mt_fill(t.mr[0]->buf, 3000, 5);
		tb_post_recv(b, &r, 1);
		tb_post_send(a, &wr);
		CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == 0 && c.qpn == a->qpn, "fresh pair works");
		CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.status == 0 && c.byte_len == 3000, "delivered");
		CHECK(mt_check(t.mr[1]->buf, 3000, 5), "data");
		free(a);
		free(b);
	}
	printf("fuzz: %" PRIu64 " iterations, seed %" PRIu64 "; node 1 rx %u frames (malformed %u, icrc %u, no_qp %u), "
	       "tx_nak %u; DMA faults %u/%u\n", iters, seed, tb_stat(t.n[1], HCA_STAT_RX_FRAMES),
	       tb_stat(t.n[1], HCA_STAT_RX_DROP_MALFORMED), tb_stat(t.n[1], HCA_STAT_RX_DROP_ICRC),
	       tb_stat(t.n[1], HCA_STAT_RX_DROP_NO_QP), tb_stat(t.n[1], HCA_STAT_TX_NAK),
	       tb_stat(t.n[0], HCA_STAT_DMA_FAULT), tb_stat(t.n[1], HCA_STAT_DMA_FAULT));
	for (int n = 0; n < 2; n++) {
		free(qs[n][1]);
		free(qs[n][2]);
	}
	mt_teardown(&t);
	return check_done();
}
