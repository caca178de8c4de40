/* SPDX-License-Identifier: MIT */
/*
 * Shared set-up of the RTL engine-level tests: two "rtl" engines of the
 * width given with --width on the simulated wire, an RC (UC, UD) QP pair,
 * 1 MiB registered buffers, and a wire capture parsed by the packet codec
 * (libhcaroce, independent of the RTL).
 */
#ifndef HCASIM_SIM_RTL_TESTS_RTL_T_H
#define HCASIM_SIM_RTL_TESTS_RTL_T_H

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../../model/roce_hdr.h"
#include "rtl/rtl_engine.h"
#include "tb.h"

#define RT_ACC_ALL (HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_READ | \
		    HCA_ACCESS_REMOTE_ATOMIC)
#define RT_WAIT 20000000ull

static unsigned int rt_width = 64;
static const char *rt_options;

/*
 * HCASIM_RTL_TRACE=prefix writes a waveform per node (prefix.nodeN.fst);
 * HCASIM_RTL_TRACE_FROM / _TO bound it to a cycle window.
 */
static char rt_trace_path[8][256];

static void rt_engine_config(void *ctx, unsigned int node, struct hca_engine_config *ec)
{
	const char *tr = getenv("HCASIM_RTL_TRACE");

	(void)ctx;
	ec->data_w = rt_width;
	ec->options = rt_options;
	if (tr && node < 8) {
		snprintf(rt_trace_path[node], sizeof(rt_trace_path[node]), "%s.node%u.fst", tr, node);
		ec->trace = rt_trace_path[node];
		ec->trace_from = getenv("HCASIM_RTL_TRACE_FROM") ? strtoull(getenv("HCASIM_RTL_TRACE_FROM"), NULL, 0) : 0;
		ec->trace_to = getenv("HCASIM_RTL_TRACE_TO") ? strtoull(getenv("HCASIM_RTL_TRACE_TO"), NULL, 0) : 0;
	}
}

static inline void rt_args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--width") && i + 1 < argc)
			rt_width = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--options") && i + 1 < argc)
			rt_options = argv[++i];
	}
	hca_rtl_engine_register();
	printf("rtl engine, DATA_W=%u%s%s\n", rt_width, rt_options ? ", options " : "", rt_options ? rt_options : "");
}

/* Capture of every frame on the wire, parsed by the codec. */
#define RT_CAP_MAX 8192
struct rt_cap {
	unsigned int n, bad;
	struct roce_pkt pkt[RT_CAP_MAX];
	unsigned int src[RT_CAP_MAX];
	size_t len[RT_CAP_MAX];
	uint64_t when[RT_CAP_MAX];	/* the cycle the sender put it on the wire */
	bool dropped[RT_CAP_MAX];	/* lost by the drop rule */
	/* return 1 to drop */
	int (*drop)(struct rt_cap *c, unsigned int src, const struct roce_pkt *p);
};

static inline int rt_cap_filter(void *ctx, unsigned int src, uint8_t *frame, size_t *len, uint64_t now)
{
	struct rt_cap *c = ctx;
	struct roce_pkt p;
	int drop = 0;

	if (roce_parse(frame, *len, &p) != ROCE_OK) {
		c->bad++;
		return TB_PASS;
	}
	if (c->drop)
		drop = c->drop(c, src, &p);
	if (c->n < RT_CAP_MAX) {
		p.payload = NULL;
		p.ip_hdr = NULL;
		c->pkt[c->n] = p;
		c->src[c->n] = src;
		c->len[c->n] = *len;
		c->when[c->n] = now;
		c->dropped[c->n] = drop != 0;
		c->n++;
	}
	return drop ? TB_DROP : TB_PASS;
}

struct rt {
	struct tb *tb;
	struct tb_node *n[2];
	uint32_t pd[2];
	struct tb_cq *scq[2], *rcq[2];
	struct tb_qp *qp[2];
	struct tb_mr *mr[2];
	struct rt_cap cap;
};

static inline int rt_setup_cap(struct rt *t, uint8_t type, const struct tb_qp_attr *attr,
			       const struct tb_qp_cap *cap)
{
	struct tb_config c = { .engine = "rtl", .nodes = 2, .engine_config = rt_engine_config };

	memset(t, 0, sizeof(*t));
	t->tb = tb_create(&c);
	if (!t->tb)
		return -1;
	tb_set_filter(t->tb, rt_cap_filter, &t->cap);
	for (int i = 0; i < 2; i++) {
		t->n[i] = tb_node(t->tb, (unsigned int)i);
		t->pd[i] = tb_pd_alloc(t->n[i]);
		t->scq[i] = tb_cq_create(t->n[i], 10, NULL);
		t->rcq[i] = tb_cq_create(t->n[i], 10, NULL);
		t->qp[i] = tb_qp_create(t->n[i], type, t->pd[i], t->scq[i], t->rcq[i], NULL, cap);
		t->mr[i] = tb_mr_reg(t->n[i], t->pd[i], 1 << 20, RT_ACC_ALL);
	}
	if (type == HCA_QPT_UD)
		return tb_qp_ud_ready(t->qp[0], attr) | tb_qp_ud_ready(t->qp[1], attr);
	return tb_connect_pair(t->qp[0], t->qp[1], attr);
}

static inline int rt_setup(struct rt *t, uint8_t type, const struct tb_qp_attr *attr)
{
	return rt_setup_cap(t, type, attr, NULL);
}

static inline void rt_teardown(struct rt *t)
{
	for (int i = 0; i < 2; i++) {
		struct rtl_engine_stats st;

		CHECK(rtl_engine_stats(t->n[i]->eng, &st) == 0 && st.protocol_errors == 0,
		      "node %d: no RTL interface violations (%s)", i, t->n[i]->ops->last_error(t->n[i]->eng));
		free(t->scq[i]);
		free(t->rcq[i]);
		free(t->qp[i]);
		free(t->mr[i]);
	}
	tb_destroy(t->tb);
}

static inline uint8_t rt_pat(uint32_t seed, uint64_t i)
{
	uint64_t x = (seed + 1) * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull;

	x ^= x >> 29;
	return (uint8_t)(x ^ (x >> 17));
}

static inline void rt_fill(uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = rt_pat(seed, i);
}

static inline int rt_check(const uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != rt_pat(seed, i))
			return 0;
	return 1;
}

/* Pops every event of node n; returns how many were `type` for `element`. */
static inline int count_evt(struct tb_node *n, uint8_t type, uint32_t element)
{
	uint8_t ty;
	uint32_t el;
	int k = 0;

	while (tb_evt_pop(n, &ty, &el))
		k += ty == type && el == element;
	return k;
}

static inline struct tb_sge rt_sge(struct tb_mr *mr, uint64_t off, uint32_t len)
{
	return (struct tb_sge){ .addr = mr->va + off, .len = len, .lkey = mr->lkey };
}


/* Node 1's MR 901 (rkey RT_PM_RKEY, va RT_PM_VA, 16 KiB) with `access`,
 * whose first page is mapped and the rest not: an access past RT_PM_VA +
 * 4096 faults.  Returns the host view of the mapped page. */
#define RT_PM_VA 0x6000000ull
#define RT_PM_RKEY (901u << 8 | 0x43)
static inline uint8_t *rt_part_mapped_mr(struct rt *t, uint32_t access)
{
	struct hca_mrc m;
	uint64_t iova;
	uint8_t *p = tb_alloc(t->n[1], 4096, &iova);

	memset(&m, 0, sizeof(m));
	m.valid = 1;
	m.key = 0x43;
	m.access = access;
	m.pdn = t->pd[1];
	m.va = RT_PM_VA;
	m.length = 16384;
	m.dma_addr = iova;
	tb_ctx_write(t->n[1], HCA_CTX_TYPE_MRC, 901, &m, sizeof(m));
	return p;
}

/* Node 0's send CQ moved to a ring of 16 slots whose first `good` are
 * mapped (the end of a fresh page) and the rest not: with good < 16 the
 * CQE of the (good + 1)-th completion faults; 16 maps them all.  Returns
 * the ring's first slot. */
static inline struct hca_cqe *rt_move_send_cq(struct rt *t, unsigned int good)
{
	struct hca_cqc c;
	uint64_t iova;
	uint8_t *page = tb_alloc(t->n[0], 4096, &iova);

	memset(page, 0, 4096);
	memset(&c, 0, sizeof(c));
	c.valid = 1;
	c.log_size = 4;
	c.uar = TB_UAR;
	c.eqn = 0xffffffffu;
	c.base = iova + 4096 - good * HCA_CQE_SIZE;
	tb_ctx_write(t->n[0], HCA_CTX_TYPE_CQC, t->scq[0]->cqn, &c, sizeof(c));
	return (struct hca_cqe *)(page + 4096 - good * HCA_CQE_SIZE);
}

/* Run until node 1's first ACK for node 0's QP `qpn` at capture entry
 * `from` or later has reached node 0 plus `after` cycles (the wire: 250). */
static inline void rt_run_past_ack(struct rt *t, unsigned int from, uint32_t qpn, uint64_t after)
{
	for (unsigned int guard = 0; guard < 20000; guard++) {
		for (unsigned int i = from; i < t->cap.n; i++)
			if (t->cap.src[i] == 1 && t->cap.pkt[i].opcode == HCA_BTH_OP_RC_ACKNOWLEDGE &&
			    t->cap.pkt[i].dqpn == qpn) {
				uint64_t at = t->cap.when[i] + 250 + after;

				if (tb_now(t->tb) < at)
					tb_run_for(t->tb, at - tb_now(t->tb));
				return;
			}
		tb_run_for(t->tb, 4);
	}
	CHECK(0, "no ACK for QP 0x%x", qpn);
}

#endif
