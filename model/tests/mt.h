/* SPDX-License-Identifier: MIT */
/*
 * Shared set-up for the model's engine-level tests: two nodes on the wire,
 * one PD each, a CQ pair and an RC (or UC/UD) QP pair connected, and a
 * pattern helper.  Every test program includes this once.
 */
#ifndef HCASIM_MODEL_TESTS_MT_H
#define HCASIM_MODEL_TESTS_MT_H

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model.h"
#include "roce_hdr.h"
#include "tb.h"

#define MT_ACC_ALL (HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_READ | \
		    HCA_ACCESS_REMOTE_ATOMIC)
#define MT_WAIT 100000000ull	/* cycles a test waits for a completion (0.4 s simulated) */

struct mt {
	struct tb *tb;
	struct tb_node *n[2];
	uint32_t pd[2];
	struct tb_cq *scq[2], *rcq[2];
	struct tb_qp *qp[2];
	struct tb_mr *mr[2];	/* 1 MiB, all access, per side */
};

/* Two nodes; QP pair of `type` connected with `attr` (NULL = defaults). */
static inline int mt_setup(struct mt *t, uint8_t type, const struct tb_qp_attr *attr,
			   const struct tb_config *cfg)
{
	memset(t, 0, sizeof(*t));
	hca_model_engine_register();
	t->tb = tb_create(cfg);
	if (!t->tb)
		return -1;
	for (int i = 0; i < 2; i++) {
		t->n[i] = tb_node(t->tb, (unsigned int)i);
		t->pd[i] = tb_pd_alloc(t->n[i]);
		t->scq[i] = tb_cq_create(t->n[i], 10, NULL);
		t->rcq[i] = tb_cq_create(t->n[i], 10, NULL);
		t->qp[i] = tb_qp_create(t->n[i], type, t->pd[i], t->scq[i], t->rcq[i], NULL, NULL);
		t->mr[i] = tb_mr_reg(t->n[i], t->pd[i], 1 << 20, MT_ACC_ALL);
	}
	if (type == HCA_QPT_UD)
		return tb_qp_ud_ready(t->qp[0], attr) | tb_qp_ud_ready(t->qp[1], attr);
	return tb_connect_pair(t->qp[0], t->qp[1], attr);
}

static inline void mt_teardown(struct mt *t)
{
	for (int i = 0; i < 2; i++) {
		free(t->scq[i]);
		free(t->rcq[i]);
		free(t->qp[i]);
		free(t->mr[i]);
	}
	tb_destroy(t->tb);
}

/* Deterministic pattern: byte i of stream `seed`. */
static inline uint8_t mt_pat(uint32_t seed, uint64_t i)
{
	uint64_t x = (seed + 1) * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull;

	x ^= x >> 29;
	return (uint8_t)(x ^ (x >> 17));
}

static inline void mt_fill(uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = mt_pat(seed, i);
}

static inline int mt_check(const uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != mt_pat(seed, i))
			return 0;
	return 1;
}

static inline struct tb_sge mt_sge(struct tb_mr *mr, uint64_t off, uint32_t len)
{
	return (struct tb_sge){ .addr = mr->va + off, .len = len, .lkey = mr->lkey };
}

/* Count events of `type` for `element` in the FIFO (pops everything). */
static inline int mt_evt_count(struct tb_node *n, uint8_t type, uint32_t element)
{
	uint8_t t;
	uint32_t e;
	int c = 0;

	while (tb_evt_pop(n, &t, &e))
		c += t == type && e == element;
	return c;
}

/*
 * Frame capture on the wire (before faults): every frame any node sends,
 * parsed by the codec, with an optional drop rule.
 */
#define MT_CAP_MAX 16384
struct mt_cap {
	unsigned int n;
	struct roce_pkt pkt[MT_CAP_MAX];	/* payload/ip_hdr pointers cleared */
	unsigned int src[MT_CAP_MAX];
	uint64_t when[MT_CAP_MAX];
	bool dropped[MT_CAP_MAX];
	unsigned int bad;			/* frames the codec refused */
	/* return true to drop this frame */
	bool (*drop)(struct mt_cap *c, unsigned int src, const struct roce_pkt *p);
	void *ctx;
};

static inline int mt_cap_filter(void *ctx, unsigned int src, uint8_t *frame, size_t *len, uint64_t now)
{
	struct mt_cap *c = ctx;
	struct roce_pkt p;
	bool drop = false;

	if (roce_parse(frame, *len, &p) != ROCE_OK) {
		c->bad++;
		return TB_PASS;
	}
	if (c->drop)
		drop = c->drop(c, src, &p);
	if (c->n < MT_CAP_MAX) {
		p.payload = NULL;
		p.ip_hdr = NULL;
		c->pkt[c->n] = p;
		c->src[c->n] = src;
		c->when[c->n] = now;
		c->dropped[c->n] = drop;
		c->n++;
	}
	return drop ? TB_DROP : TB_PASS;
}

static inline void mt_cap_start(struct mt *t, struct mt_cap *c)
{
	memset(c, 0, sizeof(*c));
	tb_set_filter(t->tb, mt_cap_filter, c);
}

/* Frames from `src` with `opcode` (and, for ACKs, AETH syndrome type `aeth_type`, -1 = any). */
static inline unsigned int mt_cap_count(const struct mt_cap *c, unsigned int src, int opcode, int syndrome)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < c->n; i++)
		if (c->src[i] == src && (opcode < 0 || c->pkt[i].opcode == opcode) &&
		    (syndrome < 0 || c->pkt[i].aeth.syndrome == syndrome))
			k++;
	return k;
}

/* Index of the first frame from src with opcode (and syndrome), or -1. */
static inline int mt_cap_find(const struct mt_cap *c, unsigned int src, int opcode, int syndrome)
{
	for (unsigned int i = 0; i < c->n; i++)
		if (c->src[i] == src && (opcode < 0 || c->pkt[i].opcode == opcode) &&
		    (syndrome < 0 || c->pkt[i].aeth.syndrome == syndrome))
			return (int)i;
	return -1;
}

/*
 * Deliver a hand-built request frame to node `to` as if node `from` sent it
 * (addresses from the nodes, destination QP `dqpn`).  Returns 0 or -1.
 */
static inline int mt_inject(struct mt *t, unsigned int from, unsigned int to, struct roce_pkt *p,
			    const void *payload, uint32_t len)
{
	static uint8_t buf[8192];
	struct tb_node *a = t->n[from], *b = t->n[to];
	size_t n;

	memcpy(p->dmac, b->mac, 6);
	memcpy(p->smac, a->mac, 6);
	p->sip = a->ip;
	p->dip = b->ip;
	p->sport = 0xC000;
	n = roce_build(p, payload, len, buf, sizeof(buf));
	if (!n)
		return -1;
	b->ops->rx_frame(b->eng, buf, n);
	return 0;
}

#define AETH_ACK_SYN 0x1f
#define AETH_NAK_SYN(code) (0x60 | (code))
#define AETH_RNR_SYN(t) (0x20 | (t))

#endif /* HCASIM_MODEL_TESTS_MT_H */
