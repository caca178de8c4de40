// SPDX-License-Identifier: MIT
/*
 * Cosimulation traffic: RC, UC and UD messages between nodes 0 and 1 of a
 * sim/tb with end-to-end checks (sim/regress/traffic.h).
 *
 * Layout per node: one PD, one EQ (vector = node), a send CQ and a receive
 * CQ shared by all QPs, two gather MRs (SGE pieces alternate between them)
 * and one destination MR.  Every (pair, direction) owns `outstanding`
 * 64 KiB slots in each MR; message k of a flow uses slot k % outstanding, so
 * a slot is reused only after its message completed on both sides.
 *
 * UC and UD complete a send when its last packet has left, before the
 * responder has the data: a UC RDMA WRITE (no receive completion) is checked
 * by watching the destination until every byte is there (a run that stalls
 * with one outstanding reports the wrong byte); a UD receive starts with the
 * 40-byte GRH area (20 zero bytes, then the IPv4 header as received).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traffic.h"

#define MAX_OUT 8
#define POISON 0xEE

struct piece {
	uint64_t off;		/* offset in the MR */
	uint32_t len;
	unsigned int mr;	/* gather MR 0/1 */
};

struct inflight {
	struct tr_msg m;
	uint64_t id;		/* flow sequence number */
	uint32_t pseed;		/* payload pattern seed */
	uint64_t orig, operand, swap;	/* atomics: remote value before, add/compare, swap */
	bool cas_hit;
	uint32_t imm;
	uint16_t swqe;
	uint16_t rwqe;
	bool needs_recv, send_done, recv_done;
	bool await_write, write_done;	/* UC RDMA WRITE: data checked after the send completion */
	bool recv_posted;	/* late receives (tr_cfg.late_recv): posted at recv_due */
	uint64_t recv_due;
	uint32_t rl[TR_MAX_SGE];	/* receive piece lengths; rn pieces */
	unsigned int rn;
	struct piece pc[TR_MAX_SGE];
	unsigned int npc;
};

struct flow {
	struct inflight f[MAX_OUT];
	unsigned int head, count;
	uint64_t next_id;
};

struct node {
	struct tb_node *n;
	uint32_t pd;
	struct tb_eq *eq;
	struct tb_cq *scq, *rcq;
	struct tb_mr *src[2], *dst;
	bool armed_s, armed_r;
};

struct pair {
	struct tb_qp *qp[2];		/* QP on node 0, on node 1 */
	uint8_t mtu, qpt;
	uint32_t qkey;			/* UD: both QPs' Q_Key */
	struct flow flow[2];		/* dir 0: node 0 requester, dir 1: node 1 requester */
};

struct run {
	struct tb *tb;
	const struct tr_cfg *c;
	struct tr_result *r;
	struct node nd[2];
	struct pair p[TR_MAX_PAIRS];
	uint64_t rng;
	uint64_t slot_bytes;		/* bytes of one (pair, dir) slot group */
	unsigned int slots;		/* slots per (pair, dir), used round robin */
};

static const char *const op_names[TR_NOPS] = { "send", "send_imm", "write", "write_imm", "read", "fadd", "cswap" };

const char *tr_op_name(unsigned int op)
{
	return op < TR_NOPS ? op_names[op] : "?";
}

void tr_cfg_default(struct tr_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->seed = 1;
	c->pairs = 4;
	c->messages = 200;
	c->weight[TR_SEND] = 3;
	c->weight[TR_SEND_IMM] = 1;
	c->weight[TR_WRITE] = 3;
	c->weight[TR_WRITE_IMM] = 1;
	c->weight[TR_READ] = 0;
	c->max_len = TR_SLOT;
	c->max_sge = TR_DEF_SGE;
	c->outstanding = 4;
	c->events = true;
}

int tr_parse_qpts(struct tr_cfg *c, const char *s)
{
	uint8_t t[TR_MAX_PAIRS];
	unsigned int n = 0;

	while (s && *s) {
		const char *comma = strchr(s, ',');
		size_t l = comma ? (size_t)(comma - s) : strlen(s);

		if (n == TR_MAX_PAIRS)
			return -1;
		if (l == 2 && !strncmp(s, "rc", 2))
			t[n++] = HCA_QPT_RC;
		else if (l == 2 && !strncmp(s, "uc", 2))
			t[n++] = HCA_QPT_UC;
		else if (l == 2 && !strncmp(s, "ud", 2))
			t[n++] = HCA_QPT_UD;
		else
			return -1;
		s = comma ? comma + 1 : NULL;
	}
	if (!n)
		return -1;
	for (unsigned int k = 0; k < TR_MAX_PAIRS; k++)
		c->qpt[k] = t[k % n];
	return 0;
}

int tr_parse_ops(struct tr_cfg *c, const char *s)
{
	unsigned int w[TR_NOPS] = { 0 };

	while (s && *s) {
		const char *colon = strchr(s, ':'), *comma = strchr(s, ',');
		size_t n;
		unsigned int op;

		if (!colon || (comma && comma < colon))
			return -1;
		n = (size_t)(colon - s);
		for (op = 0; op < TR_NOPS; op++)
			if (strlen(op_names[op]) == n && strncmp(s, op_names[op], n) == 0)
				break;
		if (op == TR_NOPS)
			return -1;
		w[op] = (unsigned int)strtoul(colon + 1, NULL, 10);
		s = comma ? comma + 1 : NULL;
	}
	memcpy(c->weight, w, sizeof(w));
	return 0;
}

static uint64_t rnd(struct run *R)
{
	uint64_t z = (R->rng += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint32_t below(struct run *R, uint32_t n)
{
	return n ? (uint32_t)(rnd(R) % n) : 0;
}

static uint8_t pat(uint32_t seed, uint32_t i)
{
	uint32_t x = seed * 0x9E3779B1u + i * 0x85EBCA6Bu;

	x ^= x >> 15;
	x *= 0x2C1B3C6Du;
	return (uint8_t)(x ^ (x >> 13));
}

static void fail(struct run *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct run *R, const char *fmt, ...)
{
	va_list ap;

	if (!R->r->errors++) {
		va_start(ap, fmt);
		vsnprintf(R->r->first_error, sizeof(R->r->first_error), fmt, ap);
		va_end(ap);
	}
	if (R->c->verbose) {
		va_start(ap, fmt);
		fprintf(stderr, "traffic: ");
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		va_end(ap);
	}
}

static uint64_t slot_off(struct run *R, unsigned int pair, unsigned int dir, uint64_t id)
{
	return R->slot_bytes * (pair * 2 + dir) + (uint64_t)TR_SLOT * (id % R->slots);
}

/* Set-up ---------------------------------------------------------------------- */

static bool setup(struct run *R)
{
	uint64_t mrsz = R->slot_bytes * 2 * R->c->pairs;
	static const uint8_t mtus[] = { HCA_MTU_256, HCA_MTU_512, HCA_MTU_1024, HCA_MTU_2048, HCA_MTU_4096 };
	uint32_t acc = HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_READ |
		       HCA_ACCESS_REMOTE_ATOMIC;

	for (int i = 0; i < 2; i++) {
		struct node *d = &R->nd[i];

		d->n = tb_node(R->tb, (unsigned int)i);
		if (!d->n)
			return false;
		d->pd = tb_pd_alloc(d->n);
		d->eq = tb_eq_create(d->n, 10, (unsigned int)i);
		d->scq = tb_cq_create(d->n, 11, d->eq);
		d->rcq = tb_cq_create(d->n, 11, d->eq);
		d->src[0] = tb_mr_reg(d->n, d->pd, mrsz, acc);
		d->src[1] = tb_mr_reg(d->n, d->pd, mrsz, acc);
		d->dst = tb_mr_reg(d->n, d->pd, mrsz, acc);
		if (!d->eq || !d->scq || !d->rcq || !d->src[0] || !d->src[1] || !d->dst)
			return false;
	}
	for (unsigned int k = 0; k < R->c->pairs; k++) {
		struct pair *p = &R->p[k];
		struct tb_qp_cap cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = R->c->max_sge,
					 .max_recv_sge = R->c->max_sge };
		struct tb_qp_attr a;

		p->qpt = R->c->qpt[k] ? R->c->qpt[k] : HCA_QPT_RC;
		for (int i = 0; i < 2; i++)
			p->qp[i] = tb_qp_create(R->nd[i].n, p->qpt, R->nd[i].pd, R->nd[i].scq, R->nd[i].rcq, NULL, &cap);
		if (!p->qp[0] || !p->qp[1])
			return false;
		p->mtu = R->c->mtu[k] ? R->c->mtu[k] : mtus[below(R, 5)];
		tb_qp_attr_default(&a);
		a.path_mtu = p->mtu;
		a.sq_psn = (uint32_t)(rnd(R) & 0xffffff);
		a.rq_psn = a.sq_psn;
		if (R->c->timeout)
			a.timeout = R->c->timeout;
		if (R->c->min_rnr_timer)
			a.min_rnr_timer = R->c->min_rnr_timer;
		if (p->qpt == HCA_QPT_UD) {
			a.qkey = p->qkey = (uint32_t)rnd(R) & 0x7fffffff;
			if (tb_qp_ud_ready(p->qp[0], &a) || tb_qp_ud_ready(p->qp[1], &a))
				return false;
		} else if (tb_connect_pair(p->qp[0], p->qp[1], &a)) {
			return false;
		}
	}
	return true;
}

static void teardown(struct run *R)
{
	for (int i = 0; i < 2; i++) {
		free(R->nd[i].eq);
		free(R->nd[i].scq);
		free(R->nd[i].rcq);
		free(R->nd[i].src[0]);
		free(R->nd[i].src[1]);
		free(R->nd[i].dst);
	}
	for (unsigned int k = 0; k < R->c->pairs; k++) {
		free(R->p[k].qp[0]);
		free(R->p[k].qp[1]);
	}
}

/* Messages ---------------------------------------------------------------------- */

static uint32_t gen_len(struct run *R, uint8_t mtu, uint32_t max)
{
	uint32_t pmtu = 128u << mtu, v;
	uint32_t k = below(R, 100);

	if (k < 5)
		return 0;
	if (k < 25)
		v = 1 + below(R, 64);
	else if (k < 50)
		v = pmtu * (1 + below(R, 8)) + below(R, 3) - 1;
	else
		v = 1 + below(R, max);
	return v > max ? max : v;
}

static void gen_msg(struct run *R, struct tr_msg *m)
{
	unsigned int tot = 0, w;

	memset(m, 0, sizeof(*m));
	for (unsigned int i = 0; i < TR_NOPS; i++)
		tot += R->c->weight[i];
	w = below(R, tot ? tot : 1);
	for (m->op = 0; m->op < TR_NOPS - 1 && w >= R->c->weight[m->op]; m->op++)
		w -= R->c->weight[m->op];
	m->pair = (uint8_t)below(R, R->c->pairs);
	m->dir = (uint8_t)below(R, 2);
	m->len = gen_len(R, R->p[m->pair].mtu,
			 R->p[m->pair].qpt == HCA_QPT_UD ? 128u << R->p[m->pair].mtu : R->c->max_len);
	m->nsge = (uint8_t)(1 + below(R, R->c->max_sge));
	m->rsge = (uint8_t)(1 + below(R, R->c->max_sge));
	m->solicited = below(R, 4) == 0;
}

/* Split len into n pieces at random points (pieces may be empty only when len < n). */
static void split(struct run *R, uint32_t len, unsigned int n, uint32_t *out)
{
	uint32_t left = len;

	for (unsigned int i = 0; i < n; i++) {
		uint32_t v = i + 1 == n ? left : (left ? below(R, left + 1) : 0);

		out[i] = v;
		left -= v;
	}
}

/* The message the pair's QP type can carry (traffic.h tr_parse_qpts). */
static void fit_msg(const struct pair *p, struct tr_msg *m)
{
	if (p->qpt == HCA_QPT_UD) {
		if (m->op != TR_SEND && m->op != TR_SEND_IMM)
			m->op = m->op == TR_WRITE_IMM ? TR_SEND_IMM : TR_SEND;
		if (m->len > 128u << p->mtu)
			m->len = 128u << p->mtu;
	} else if (p->qpt == HCA_QPT_UC && m->op >= TR_READ) {
		m->op = TR_WRITE;
	}
}

/* Bytes in front of the message at the responder: the GRH area of a UD receive. */
static uint32_t grh_bytes(const struct pair *p)
{
	return p->qpt == HCA_QPT_UD ? HCA_GRH_SIZE : 0;
}

/*
 * Post the receive WQEs of a flow's first n messages that are due, in
 * message order (a late one holds back those after it: receive WQEs are
 * consumed in order).  Returns the earliest cycle one still waits for,
 * UINT64_MAX if none.
 */
static uint64_t post_recvs(struct run *R, unsigned int pair, unsigned int dir, unsigned int n)
{
	struct pair *p = &R->p[pair];
	struct flow *fl = &p->flow[dir];
	struct tb_mr *dst = R->nd[1 - dir].dst;

	for (unsigned int i = 0; i < n; i++) {
		struct inflight *f = &fl->f[(fl->head + i) % MAX_OUT];
		uint64_t base = slot_off(R, pair, dir, f->id), roff = 0;
		struct tb_sge rs[TR_MAX_SGE];

		if (!f->needs_recv || f->recv_posted)
			continue;
		if (f->recv_due > tb_now(R->tb))
			return f->recv_due;
		for (unsigned int k = 0; k < f->rn; k++) {
			rs[k] = (struct tb_sge){ .addr = dst->va + base + roff, .len = f->rl[k], .lkey = dst->lkey };
			roff += f->rl[k];
		}
		f->rwqe = (uint16_t)tb_post_recv(p->qp[1 - dir], rs, f->rn);
		f->recv_posted = true;
	}
	return UINT64_MAX;
}

/* Every flow's due receives; the earliest cycle a late one waits for. */
static uint64_t post_due_recvs(struct run *R)
{
	uint64_t due = UINT64_MAX;

	for (unsigned int k = 0; k < R->c->pairs; k++)
		for (unsigned int dir = 0; dir < 2; dir++) {
			uint64_t t = post_recvs(R, k, dir, R->p[k].flow[dir].count);

			if (t < due)
				due = t;
		}
	return due;
}

static bool post(struct run *R, const struct tr_msg *m)
{
	struct pair *p = &R->p[m->pair];
	struct flow *fl = &p->flow[m->dir];
	struct node *s = &R->nd[m->dir], *d = &R->nd[1 - m->dir];
	struct tb_qp *sq = p->qp[m->dir], *rq = p->qp[1 - m->dir];
	struct inflight *f;
	struct tb_sge sge[TR_MAX_SGE];
	struct tb_send_wr wr;
	uint32_t lens[TR_MAX_SGE];
	uint64_t base;
	uint32_t off = 0;
	static const uint8_t wr_op[TR_NOPS] = { HCA_WR_SEND, HCA_WR_SEND_WITH_IMM, HCA_WR_RDMA_WRITE,
						HCA_WR_RDMA_WRITE_WITH_IMM, HCA_WR_RDMA_READ,
						HCA_WR_ATOMIC_FETCH_AND_ADD, HCA_WR_ATOMIC_CMP_AND_SWP };
	bool atomic = m->op == TR_FADD || m->op == TR_CSWAP;

	if (fl->count >= R->c->outstanding)
		return false;
	f = &fl->f[(fl->head + fl->count) % MAX_OUT];
	memset(f, 0, sizeof(*f));
	f->m = *m;
	if (f->m.nsge < 1 || f->m.nsge > R->c->max_sge)
		f->m.nsge = 1;
	if (f->m.rsge < 1 || f->m.rsge > R->c->max_sge)
		f->m.rsge = 1;
	if (f->m.len > TR_SLOT)
		f->m.len = TR_SLOT;
	fit_msg(p, &f->m);
	m = &f->m;
	atomic = m->op == TR_FADD || m->op == TR_CSWAP;
	if (atomic) {
		f->m.len = 8;
		f->m.nsge = 1;
	}
	f->id = fl->next_id++;
	f->pseed = (uint32_t)rnd(R);
	f->imm = (uint32_t)rnd(R);
	f->needs_recv = m->op == TR_SEND || m->op == TR_SEND_IMM || m->op == TR_WRITE_IMM;
	f->await_write = p->qpt == HCA_QPT_UC && m->op == TR_WRITE;
	base = slot_off(R, m->pair, m->dir, f->id);

	/* local pieces: data to send, or where READ data lands */
	split(R, f->m.len, f->m.nsge, lens);
	f->npc = f->m.nsge;
	for (unsigned int i = 0; i < f->npc; i++) {
		struct tb_mr *mr = s->src[i & 1];

		f->pc[i] = (struct piece){ .off = base + off, .len = lens[i], .mr = i & 1 };
		if (m->op == TR_READ || atomic)
			memset(mr->buf + base + off, POISON, lens[i]);
		else
			for (uint32_t k = 0; k < lens[i]; k++)
				mr->buf[base + off + k] = pat(f->pseed, off + k);
		sge[i] = (struct tb_sge){ .addr = mr->va + base + off, .len = lens[i], .lkey = mr->lkey };
		off += lens[i];
	}
	/* remote side: poison the destination (and the bytes after it), or the READ source,
	 * or the atomic's target (8 bytes, little-endian in memory) */
	if (atomic) {
		f->orig = rnd(R);
		f->operand = rnd(R);
		f->swap = rnd(R);
		f->cas_hit = m->op == TR_CSWAP && below(R, 4) != 0;
		if (f->cas_hit)
			f->operand = f->orig;
		memcpy(d->dst->buf + base, &f->orig, 8);
		memset(d->dst->buf + base + 8, POISON, 8);
	} else if (m->op == TR_READ) {
		for (uint32_t k = 0; k < f->m.len; k++)
			d->dst->buf[base + k] = pat(f->pseed, k);
	} else {
		uint32_t n = grh_bytes(p) + f->m.len + 8;

		memset(d->dst->buf + base, POISON, n <= TR_SLOT ? n : TR_SLOT);
	}
	if (f->needs_recv) {
		/* receive pieces cover the whole slot; the message fills a prefix */
		f->rn = m->op == TR_WRITE_IMM ? 0 : f->m.rsge;
		split(R, TR_SLOT, f->rn ? f->rn : 1, f->rl);
		if (R->c->late_recv && below(R, 100) < R->c->late_recv)
			f->recv_due = tb_now(R->tb) + 2000 + below(R, 8000);
		post_recvs(R, m->pair, m->dir, fl->count + 1);	/* with this one */
	}
	memset(&wr, 0, sizeof(wr));
	wr.opcode = wr_op[m->op];
	wr.flags = HCA_SEND_SIGNALED | (m->solicited ? HCA_SEND_SOLICITED : 0);
	wr.imm = f->imm;
	wr.sge = sge;
	wr.num_sge = f->npc;
	wr.raddr = d->dst->va + base;
	wr.rkey = d->dst->rkey;
	wr.compare_add = f->operand;
	wr.swap = f->swap;
	if (p->qpt == HCA_QPT_UD) {
		/* one in four takes the Q_Key from the QP (bit 31 set: docs/wire.md 2) */
		wr.ud_dest = rq;
		wr.ud_qkey = below(R, 4) == 0 ? 0x80000000u : p->qkey;
	}
	f->swqe = (uint16_t)tb_post_send(sq, &wr);
	fl->count++;
	R->r->posted++;
	(void)s;
	return true;
}

/* Completions ------------------------------------------------------------------- */

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * The GRH area of a UD receive (docs/wire.md 5): 20 zero bytes, then the
 * IPv4 header of the frame as received (RFC 791: version 4, IHL 5, total
 * length of IP + UDP + BTH + DETH [+ immediate] + padded payload + ICRC,
 * protocol UDP, the sender's and the receiver's address).
 */
static bool check_grh(struct run *R, struct inflight *f, const uint8_t *g, const char *where)
{
	unsigned int dirn = f->m.dir;
	uint32_t want_len = 20 + 8 + 12 + 8 + (f->m.op == TR_SEND_IMM ? 4 : 0) + f->m.len + (4 - f->m.len % 4) % 4 + 4;
	const uint8_t *ip = g + HCA_WIRE_GRH_IPV4_OFF;

	for (int i = 0; i < HCA_WIRE_GRH_IPV4_OFF; i++)
		if (g[i]) {
			fail(R, "%s: UD pair %u dir %u msg %" PRIu64 ": GRH byte %d is 0x%02x, want 0", where, f->m.pair,
			     dirn, f->id, i, g[i]);
			return false;
		}
	if (ip[0] != 0x45 || ip[9] != 17 || be16(ip + 2) != want_len || be32(ip + 12) != R->nd[dirn].n->ip ||
	    be32(ip + 16) != R->nd[1 - dirn].n->ip) {
		fail(R, "%s: UD pair %u dir %u msg %" PRIu64 " len %u: GRH IPv4 header: version/IHL 0x%02x protocol %u "
			"total length %u (want %u) source 0x%08x destination 0x%08x",
		     where, f->m.pair, dirn, f->id, f->m.len, ip[0], ip[9], be16(ip + 2), want_len, be32(ip + 12),
		     be32(ip + 16));
		return false;
	}
	return true;
}

/* The message's bytes at the responder (or returned to the requester); quiet: no failure recorded. */
static bool check_payload_q(struct run *R, struct inflight *f, const char *where, bool quiet);

static bool check_payload(struct run *R, struct inflight *f, const char *where)
{
	return check_payload_q(R, f, where, false);
}

static bool check_payload_q(struct run *R, struct inflight *f, const char *where, bool quiet)
{
	unsigned int dirn = f->m.dir;
	struct node *s = &R->nd[dirn], *d = &R->nd[1 - dirn];
	uint64_t base = slot_off(R, f->m.pair, dirn, f->id);
	const struct pair *pr = &R->p[f->m.pair];

	if (f->m.op == TR_FADD || f->m.op == TR_CSWAP) {
		uint64_t got, now, want = f->m.op == TR_FADD ? f->orig + f->operand : f->cas_hit ? f->swap : f->orig;

		memcpy(&got, s->src[f->pc[0].mr]->buf + f->pc[0].off, 8);
		memcpy(&now, d->dst->buf + base, 8);
		if (got != f->orig || now != want) {
			fail(R, "%s: %s pair %u dir %u msg %" PRIu64 ": returned 0x%llx (want 0x%llx), memory 0x%llx (want 0x%llx)",
			     where, tr_op_name(f->m.op), f->m.pair, dirn, f->id, (unsigned long long)got,
			     (unsigned long long)f->orig, (unsigned long long)now, (unsigned long long)want);
			return false;
		}
	} else if (f->m.op == TR_READ) {
		uint32_t off = 0;

		for (unsigned int i = 0; i < f->npc; i++) {
			const uint8_t *p = s->src[f->pc[i].mr]->buf + f->pc[i].off;

			for (uint32_t k = 0; k < f->pc[i].len; k++)
				if (p[k] != pat(f->pseed, off + k)) {
					fail(R, "%s: READ pair %u dir %u msg %" PRIu64 " len %u: byte %u wrong", where,
					     f->m.pair, dirn, f->id, f->m.len, off + k);
					return false;
				}
			off += f->pc[i].len;
		}
	} else {
		const uint8_t *p = d->dst->buf + base + grh_bytes(pr);

		if (grh_bytes(pr) && !check_grh(R, f, d->dst->buf + base, where))
			return false;
		/* waiting for a UC WRITE: its last byte comes last (a full scan per cycle would be slow) */
		if (quiet && f->m.len && p[f->m.len - 1] != pat(f->pseed, f->m.len - 1))
			return false;
		for (uint32_t k = 0; k < f->m.len; k++)
			if (p[k] != pat(f->pseed, k)) {
				if (quiet)
					return false;
				fail(R, "%s: %s pair %u dir %u msg %" PRIu64 " len %u: byte %u is 0x%02x, want 0x%02x",
				     where, tr_op_name(f->m.op), f->m.pair, dirn, f->id, f->m.len, k, p[k],
				     pat(f->pseed, k));
				return false;
			}
		for (uint32_t k = f->m.len; k < f->m.len + 8 && grh_bytes(pr) + k < TR_SLOT; k++)
			if (p[k] != POISON) {
				if (quiet)
					return false;
				fail(R, "%s: %s pair %u dir %u msg %" PRIu64 " len %u: wrote past the end (byte %u)", where,
				     tr_op_name(f->m.op), f->m.pair, dirn, f->id, f->m.len, k);
				return false;
			}
	}
	R->r->payload_bytes += f->m.len;
	return true;
}

static void retire(struct run *R, struct flow *fl)
{
	while (fl->count) {
		struct inflight *f = &fl->f[fl->head];

		if (!f->send_done || (f->needs_recv && !f->recv_done) || (f->await_write && !f->write_done))
			break;
		fl->head = (fl->head + 1) % MAX_OUT;
		fl->count--;
		R->r->completed++;
	}
}

static struct pair *pair_of(struct run *R, unsigned int node, uint32_t qpn)
{
	for (unsigned int k = 0; k < R->c->pairs; k++)
		if (R->p[k].qp[node]->qpn == qpn)
			return &R->p[k];
	return NULL;
}

static void send_cqe(struct run *R, unsigned int node, const struct hca_cqe *c)
{
	static const uint8_t wc_op[TR_NOPS] = { HCA_WC_OP_SEND, HCA_WC_OP_SEND, HCA_WC_OP_RDMA_WRITE,
						HCA_WC_OP_RDMA_WRITE, HCA_WC_OP_RDMA_READ, HCA_WC_OP_FETCH_ADD,
						HCA_WC_OP_COMP_SWAP };
	struct pair *p = pair_of(R, node, c->qpn);
	struct flow *fl;
	struct inflight *f = NULL;

	if (!p) {
		fail(R, "node %u: send CQE for unknown QPN 0x%x", node, c->qpn);
		return;
	}
	fl = &p->flow[node];
	for (unsigned int i = 0; i < fl->count; i++) {
		struct inflight *g = &fl->f[(fl->head + i) % MAX_OUT];

		if (!g->send_done) {
			f = g;
			break;
		}
	}
	if (!f) {
		fail(R, "node %u: send CQE (wqe_index %u) with nothing outstanding", node, c->wqe_index);
		return;
	}
	f->send_done = true;
	if (c->status != HCA_WC_SUCCESS || c->wqe_index != f->swqe || c->opcode != wc_op[f->m.op] ||
	    (f->m.op >= TR_READ && c->byte_len != f->m.len)) {
		fail(R, "node %u: send CQE of %s len %u: status %u wqe_index %u (want %u) opcode %u (want %u) byte_len %u",
		     node, tr_op_name(f->m.op), f->m.len, c->status, c->wqe_index, f->swqe, c->opcode, wc_op[f->m.op],
		     c->byte_len);
		return;
	}
	if ((f->m.op == TR_WRITE && !f->await_write) || f->m.op >= TR_READ)
		check_payload(R, f, "send completion");
	retire(R, fl);
}

static void recv_cqe(struct run *R, unsigned int node, const struct hca_cqe *c)
{
	struct pair *p = pair_of(R, node, c->qpn);
	struct flow *fl;
	struct inflight *f = NULL;
	bool imm, ud;
	uint8_t want_op, want_flags;
	uint32_t want_len;

	if (!p) {
		fail(R, "node %u: receive CQE for unknown QPN 0x%x", node, c->qpn);
		return;
	}
	fl = &p->flow[1 - node];	/* the flow this node responds to */
	for (unsigned int i = 0; i < fl->count; i++) {
		struct inflight *g = &fl->f[(fl->head + i) % MAX_OUT];

		if (g->needs_recv && !g->recv_done) {
			f = g;
			break;
		}
	}
	if (!f) {
		fail(R, "node %u: receive CQE (wqe_index %u) with no receive expected", node, c->wqe_index);
		return;
	}
	f->recv_done = true;
	imm = f->m.op != TR_SEND;
	ud = p->qpt == HCA_QPT_UD;
	want_op = f->m.op == TR_WRITE_IMM ? HCA_WC_OP_RECV_RDMA_WITH_IMM : HCA_WC_OP_RECV;
	/* UD: byte_len counts the GRH area, src_qp is the sender's (DETH), IBV_WC_GRH set */
	want_len = f->m.len + grh_bytes(p);
	want_flags = (uint8_t)((imm ? HCA_WC_FLAG_WITH_IMM : 0) | (ud ? HCA_WC_FLAG_GRH : 0));
	if (c->status != HCA_WC_SUCCESS || c->wqe_index != f->rwqe || c->opcode != want_op || c->byte_len != want_len ||
	    (imm && c->imm_data != f->imm) || (c->wc_flags & (HCA_WC_FLAG_WITH_IMM | HCA_WC_FLAG_GRH)) != want_flags ||
	    (ud && c->src_qp != p->qp[1 - node]->qpn)) {
		fail(R, "node %u: receive CQE of %s %s len %u: status %u wqe_index %u (want %u) opcode %u (want %u) "
			"byte_len %u (want %u) imm 0x%x (want 0x%x) flags 0x%x (want 0x%x) src_qp 0x%x",
		     node, hca_qp_type_name(p->qpt), tr_op_name(f->m.op), f->m.len, c->status, c->wqe_index, f->rwqe,
		     c->opcode, want_op, c->byte_len, want_len, c->imm_data, f->imm, c->wc_flags, want_flags, c->src_qp);
		return;
	}
	check_payload(R, f, "receive completion");
	retire(R, fl);
}

/* UC RDMA WRITEs whose send completed: done once every byte is at the responder (quiet: keep waiting). */
static bool check_uc_writes(struct run *R, bool quiet)
{
	bool any = false;

	for (unsigned int k = 0; k < R->c->pairs; k++)
		for (unsigned int dir = 0; dir < 2; dir++) {
			struct flow *fl = &R->p[k].flow[dir];

			for (unsigned int i = 0; i < fl->count; i++) {
				struct inflight *f = &fl->f[(fl->head + i) % MAX_OUT];

				if (f->await_write && f->send_done && !f->write_done &&
				    check_payload_q(R, f, "UC RDMA WRITE after its send completion", quiet)) {
					f->write_done = true;
					any = true;
				}
			}
			if (any)
				retire(R, fl);
		}
	return any;
}

static bool poll_all(struct run *R)
{
	bool any = check_uc_writes(R, true);
	struct hca_cqe c;

	for (unsigned int i = 0; i < 2; i++) {
		struct node *d = &R->nd[i];

		while (tb_cq_poll(d->scq, &c)) {
			send_cqe(R, i, &c);
			any = true;
		}
		while (tb_cq_poll(d->rcq, &c)) {
			recv_cqe(R, i, &c);
			any = true;
		}
		if (R->c->events) {
			struct hca_eqe e;
			unsigned int n = 0;

			while (tb_eq_poll(d->eq, &e)) {
				n++;
				if (e.type == HCA_EQE_TYPE_COMP && e.element == d->scq->cqn)
					d->armed_s = false;
				else if (e.type == HCA_EQE_TYPE_COMP && e.element == d->rcq->cqn)
					d->armed_r = false;
			}
			if (n) {
				R->r->eqes += n;
				tb_eq_arm(d->eq);
				any = true;
			}
			/* arm after draining, as a driver does before sleeping */
			if (!d->armed_r) {
				tb_cq_arm(d->rcq, (R->r->posted & 1) != 0);
				d->armed_r = true;
			}
			if (!d->armed_s) {
				tb_cq_arm(d->scq, false);
				d->armed_s = true;
			}
		}
	}
	return any;
}

void tr_run(struct tb *tb, const struct tr_cfg *c, struct tr_result *r)
{
	struct run *R = calloc(1, sizeof(*R));
	unsigned int total = c->list ? c->nlist : c->messages;
	unsigned int next = 0;
	struct tr_msg pending;
	bool have = false;
	uint64_t t0 = tb_now(tb), limit;

	memset(r, 0, sizeof(*r));
	if (!R) {
		snprintf(r->first_error, sizeof(r->first_error), "out of memory");
		r->errors = 1;
		return;
	}
	R->tb = tb;
	R->c = c;
	R->r = r;
	R->rng = c->seed * 0x2545F4914F6CDD1Dull + 1;
	/* a duplicated READ or atomic may be served again after its message
	 * completed: with faults, a slot is reused only MAX_OUT messages later */
	R->slots = c->spread_slots ? MAX_OUT : (c->outstanding ? c->outstanding : 1);
	R->slot_bytes = (uint64_t)TR_SLOT * R->slots;
	if (c->pairs < 1 || c->pairs > TR_MAX_PAIRS || c->outstanding < 1 || c->outstanding > MAX_OUT ||
	    c->max_sge < 1 || c->max_sge > TR_MAX_SGE || !setup(R)) {
		fail(R, "set-up failed (pairs %u, outstanding %u, max_sge %u)", c->pairs, c->outstanding, c->max_sge);
		teardown(R);
		free(R);
		return;
	}
	limit = tb_now(tb) + (c->max_cycles ? c->max_cycles : (1ull << 32));
	while (r->completed < total) {
		bool progress = false;

		while (next < total) {
			if (!have) {
				if (c->list)
					pending = c->list[next];
				else
					gen_msg(R, &pending);
				have = true;
			}
			if (pending.pair >= c->pairs || pending.dir > 1 || pending.op >= TR_NOPS) {
				fail(R, "directed message %u names pair %u dir %u op %u (of %u pairs)", next, pending.pair,
				     pending.dir, pending.op, c->pairs);
				have = false;
				next++;
				r->completed++;
				continue;
			}
			if (!post(R, &pending))
				break;
			have = false;
			next++;
			progress = true;
		}
		if (poll_all(R))
			progress = true;
		if (c->late_recv && !progress) {
			uint64_t due = post_due_recvs(R);

			if (due != UINT64_MAX && due < limit) {
				if (!tb_step(tb, due))
					tb_run_for(tb, due - tb_now(tb));	/* nothing happens before it */
				continue;
			}
		}
		if (!progress && !tb_step(tb, limit)) {
			check_uc_writes(R, false);
			fail(R, "stalled at cycle %" PRIu64 ": %u of %u messages complete, %u posted", tb_now(tb),
			     r->completed, total, r->posted);
			break;
		}
	}
	tb_run(tb, 100000000ull);
	poll_all(R);
	tb_run(tb, 100000000ull);
	r->cycles = tb_now(tb) - t0;
	r->irqs = (unsigned int)(R->nd[0].n->irq_total + R->nd[1].n->irq_total);
	teardown(R);
	free(R);
}
