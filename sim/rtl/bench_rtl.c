// SPDX-License-Identifier: MIT
/*
 * make bench-rtl: cycle-level performance of the RTL engine (docs/rtl.md,
 * "Performance").  Two "rtl" engines of one datapath width on the simulated
 * wire, one RC QP pair (PMTU 4096), RDMA WRITE of 64 B .. 64 KiB, then RDMA
 * READ of the same sizes and the two atomics (8 B):
 *
 *  - latency of a single message on an idle pair: device cycles from the SQ
 *    doorbell write to the first byte of the first frame on the wire (a
 *    READ's or atomic's request), and from the doorbell to the CQE being
 *    visible in host memory; for a WRITE, where the doorbell -> wire cycles
 *    go, by stage, from the events at the harness boundary
 *    (rtl_engine_set_observer): doorbell, WQE read request and completion,
 *    first payload read request and completion, first and last transmit
 *    beat;
 *  - streaming: N messages back to back with D WQEs outstanding (a new one
 *    is posted in the cycle a completion is seen); steady-state cycles per
 *    message (the first D completions are the ramp and are not counted),
 *    payload bytes per cycle, and the wire beats per message of the frames
 *    that carry the data (WRITE requests; READ responses, atomic ACKs),
 *    and the goodput as a share of the Ethernet line the harness MAC paces
 *    to (--mac: 100 GbE at 512 bits, 25 GbE at 64 by default; mac_pace.h);
 *  - small messages over many QPs: 64 B RDMA WRITEs posted round robin over
 *    MULTI_QP QP pairs (MULTI_DEPTH outstanding on each, one send CQ),
 *    steady-state cycles per message over all of them.
 *
 * Every run is checked (CQE status, opcode, byte_len and order, target
 * memory against the source -- for atomics, the original values returned and
 * the targets written --, the number of data frames -- no retransmissions --
 * with consecutive PSNs, MigReq and the peer's QPN, and every frame decodes
 * with the packet codec; a paced line never busier than the line; rtl WRITE
 * streams of 4 KiB and up whose MAC held nothing back send some frame in the
 * cycle after the previous one's last beat); a failed check makes the exit
 * status non-zero.  The cycle numbers are deterministic; the wall-clock line is not.
 * The same runs go through the model engine for the checks only: the model
 * is untimed, so its cycle numbers mean nothing and are not printed.
 *
 *   bench_rtl [--width 64|512]... [--sizes 64,256,...] [--messages N]
 *             [--depth D] [--latency CYCLES] [--options rtl-options]
 *             [--mac auto|none|25g|100g] [--no-model] [--quick] [--csv FILE]
 *
 * --csv FILE also writes the rtl WRITE rows, one per width and size, as CSV
 * (make bench-rtl: build/bench/rtl.csv, plotted by tools/plot_bench.py).  A
 * progress line (sim/progress.h) shows when stderr is a terminal (stdout may
 * be piped to a log: make bench-rtl tees it to build/bench/rtl.log).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../model/model.h"
#include "../../model/roce_hdr.h"
#include "check.h"
#include "progress.h"
#include "rtl/bench_stages.h"
#include "rtl/mac_pace.h"
#include "rtl/rtl_engine.h"
#include "tb.h"

#define MAX_SIZES 16
#define MAX_QP 8
#define MULTI_QP 8		/* QP pairs of the small-message run */
/* Outstanding WQEs per QP in it: 16 x 8 = 128 in flight, so that the run
 * can show the engine's rate and not its own round trip (Little's law: a
 * message's doorbell -> CQE of about 630 cycles over N in flight bounds the
 * spacing below by 630 / N: 19.7 cycles with the 32 of a depth of 4). */
#define MULTI_DEPTH 16
#define MULTI_SIZE 64
#define MULTI_MSGS_PER_QP 48
#define WAIT_LIMIT 50000000ull
#define ACC_ALL (HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_READ | \
		 HCA_ACCESS_REMOTE_ATOMIC)
#define STAMP_NONE UINT64_MAX

struct opts {
	unsigned int widths[4], nwidths;
	uint32_t sizes[MAX_SIZES];
	unsigned int nsizes;
	unsigned int messages;		/* 0 = by size */
	unsigned int depth;
	uint64_t latency;
	const char *rtl_options;
	const char *mac;		/* auto, none, 25g, 100g */
	bool model;
	FILE *csv;			/* --csv: the rtl rows */
	struct progress *pg;		/* one step per (engine, width, size) */
};

/* One operation and size's results. */
struct result {
	uint8_t op;			/* HCA_WR_RDMA_WRITE, _RDMA_READ, _ATOMIC_* */
	uint32_t size, pkts;
	uint64_t lat_wire, lat_cqe;	/* single message, device cycles */
	struct bench_stages st;		/* doorbell -> wire of the single WRITE */
	unsigned int msgs, counted;	/* streamed / in the steady-state window */
	double cyc_per_msg, bytes_per_cyc, beats_per_msg;
	double wire_per_msg;		/* line bytes of its data frames (preamble, pad, FCS, IFG included) */
};

struct bench {
	const char *engine;
	unsigned int width, wb;		/* bits, bytes per beat */
	struct tb *tb;
	struct tb_node *n[2];
	struct tb_cq *scq[2], *rcq[2];
	struct tb_qp *qp[2][MAX_QP];	/* qp[0][k] on node 0 is connected to qp[1][k] */
	unsigned int nqp;
	struct tb_mr *src, *dst;	/* node 0's and node 1's buffer */
	uint8_t op;			/* the operation measured */
	char options[512];		/* the rtl engines' options: mac=..., then --options */
	unsigned int mac_rate;		/* line bits per cycle the MAC paces to; 0: none */
	struct bench_stages st;		/* node 0's host-interface events (rtl_engine_set_observer) */
	/* wire observation (the transmit filter) */
	bool armed;			/* record the first request frame's first beat */
	uint64_t first_beat;
	uint64_t data_frames, data_beats, data_wire, acks, naks, other, bad;
	uint64_t hdr_bad;		/* data frames: PSN not consecutive, MigReq clear, wrong QP */
	bool psn_valid[MAX_QP];
	uint32_t psn_next[MAX_QP];
	/* rtl, node 0's WRITE requests: idle cycles between one data frame's last MAC
	 * beat and the next one's first (gaps counted, the smallest); the first beats
	 * of the first and the last frame and the line bytes of the frames before the
	 * last (the line's occupancy) */
	uint64_t last_beat, gaps, min_gap;
	uint64_t span_first, span_last, span_wire, span_wire_last;
};

static void engine_config(void *ctx, unsigned int node, struct hca_engine_config *ec)
{
	const struct bench *b = ctx;

	(void)node;
	ec->data_w = b->width;
	if (!strcmp(b->engine, "rtl"))
		ec->options = b->options;
}

/* --mac auto: the line each width is built for, 100 GbE at 512 bits, 25 GbE at 64. */
static const char *mac_for(const char *mac, unsigned int width)
{
	if (!strcmp(mac, "auto"))
		return width == 512 ? "100g" : "25g";
	return mac;
}

static uint64_t eng_now(struct tb_node *n)
{
	return n->ops->now(n->eng);
}

static const char *op_name(uint8_t op)
{
	return op == HCA_WR_RDMA_WRITE ? "WRITE" : op == HCA_WR_RDMA_READ ? "READ" :
	       op == HCA_WR_ATOMIC_FETCH_AND_ADD ? "FETCH_ADD" : "CMP_SWP";
}

/*
 * Called when an engine hands a whole frame to the wire.  The rtl harness
 * calls it in the cycle of the frame's last beat and records the cycle of
 * its first beat (rtl_engine_stats tx_first_beat): the cycle the first byte
 * went out on the MAC.  Data frames: WRITE requests (node 0), READ
 * responses and atomic ACKs (node 1); the first request frame of node 0
 * after `armed` stamps first_beat.
 */
static int tx_filter(void *ctx, unsigned int src, uint8_t *frame, size_t *len, uint64_t now)
{
	struct bench *b = ctx;
	struct roce_pkt p;
	const struct roce_opcode_info *oi;
	uint64_t beats = (*len + b->wb - 1) / b->wb;
	uint32_t want_flag = b->op == HCA_WR_RDMA_WRITE ? ROCE_OP_WRITE : b->op == HCA_WR_RDMA_READ ? ROCE_OP_READ :
			     ROCE_OP_ATOMIC;
	bool req, data;

	(void)now;
	if (roce_parse(frame, *len, &p) != ROCE_OK) {
		b->bad++;
		return TB_PASS;
	}
	oi = roce_opcode(p.opcode);
	req = src == 0 && oi && (oi->flags & want_flag) && (oi->flags & ROCE_OP_REQ);
	data = b->op == HCA_WR_RDMA_WRITE ? req : (src == 1 && oi && (oi->flags & want_flag) && (oi->flags & ROCE_OP_RESP));
	if (req && b->armed && b->first_beat == STAMP_NONE) {
		uint64_t k = eng_now(b->n[0]);
		struct rtl_engine_stats rs;

		if (!strcmp(b->engine, "rtl") && !rtl_engine_stats(b->n[0]->eng, &rs))
			k = rs.tx_first_beat;
		b->first_beat = k;
	}
	if (data && req && !strcmp(b->engine, "rtl")) {
		struct rtl_engine_stats rs;

		if (!rtl_engine_stats(b->n[0]->eng, &rs)) {
			if (b->last_beat != STAMP_NONE && rs.tx_first_beat > b->last_beat) {
				uint64_t g = rs.tx_first_beat - b->last_beat - 1;

				b->min_gap = b->gaps++ ? (g < b->min_gap ? g : b->min_gap) : g;
			}
			b->last_beat = eng_now(b->n[0]);
			if (b->span_first == STAMP_NONE)
				b->span_first = rs.tx_first_beat;
			b->span_last = rs.tx_first_beat;
			b->span_wire += b->span_wire_last;
			b->span_wire_last = mac_wire_bytes(*len);
		}
	}
	if (data) {
		unsigned int k = 0;

		while (k < b->nqp && p.dqpn != b->qp[1 - src][k]->qpn)
			k++;
		b->data_frames++;
		b->data_beats += beats;
		b->data_wire += mac_wire_bytes(*len);
		if (k == b->nqp || (b->psn_valid[k] && p.psn != b->psn_next[k]) || !p.migreq) {
			b->hdr_bad++;
			k = 0;
		}
		b->psn_valid[k] = true;
		b->psn_next[k] = (p.psn + 1) & 0xffffff;
	} else if (req) {
		;	/* a READ or atomic request */
	} else if (src == 1 && p.opcode == HCA_BTH_OP_RC_ACKNOWLEDGE) {
		if (p.aeth.syndrome == 0x1F)
			b->acks++;
		else
			b->naks++;
	} else {
		b->other++;
	}
	return TB_PASS;
}

static void obs_reset(struct bench *b)
{
	b->armed = false;
	b->first_beat = STAMP_NONE;
	b->st.on = false;
	b->data_frames = b->data_beats = b->data_wire = b->acks = b->naks = b->other = b->bad = b->hdr_bad = 0;
	memset(b->psn_valid, 0, sizeof(b->psn_valid));
	b->last_beat = b->span_first = STAMP_NONE;
	b->gaps = b->min_gap = b->span_last = b->span_wire = b->span_wire_last = 0;
}

static uint8_t pat(uint32_t seed, uint64_t i)
{
	uint64_t x = (seed + 1) * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull;

	x ^= x >> 29;
	return (uint8_t)(x ^ (x >> 17));
}

static void fill(uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = pat(seed, i);
}

/* Two nodes, nqp RC QP pairs (PMTU 4096) sharing each node's CQs, one MR per node. */
static int setup(struct bench *b, const struct opts *o, const char *engine, unsigned int width, size_t mr_len,
		 unsigned int nqp)
{
	struct tb_config c = { .engine = engine, .nodes = 2, .latency = o->latency, .engine_config = engine_config,
			       .engine_config_ctx = b };
	struct tb_qp_attr a;

	memset(b, 0, sizeof(*b));
	b->engine = engine;
	b->width = width;
	b->wb = width / 8;
	b->nqp = nqp;
	snprintf(b->options, sizeof(b->options), "mac=%s%s%s", mac_for(o->mac, width), o->rtl_options ? "," : "",
		 o->rtl_options ? o->rtl_options : "");
	b->tb = tb_create(&c);
	if (!b->tb)
		return -1;
	obs_reset(b);
	tb_set_filter(b->tb, tx_filter, b);
	for (int i = 0; i < 2; i++) {
		uint32_t pd;

		b->n[i] = tb_node(b->tb, (unsigned int)i);
		pd = tb_pd_alloc(b->n[i]);
		b->scq[i] = tb_cq_create(b->n[i], 10, NULL);
		b->rcq[i] = tb_cq_create(b->n[i], 10, NULL);
		for (unsigned int k = 0; k < nqp; k++)
			b->qp[i][k] = tb_qp_create(b->n[i], HCA_QPT_RC, pd, b->scq[i], b->rcq[i], NULL, NULL);
		if (i == 0)
			b->src = tb_mr_reg(b->n[i], pd, mr_len, ACC_ALL);
		else
			b->dst = tb_mr_reg(b->n[i], pd, mr_len, ACC_ALL);
	}
	tb_qp_attr_default(&a);
	a.path_mtu = HCA_MTU_4096;
	for (unsigned int k = 0; k < nqp; k++)
		if (tb_connect_pair(b->qp[0][k], b->qp[1][k], &a))
			return -1;
	if (!strcmp(engine, "rtl")) {
		struct rtl_engine_stats rs;

		if (rtl_engine_set_observer(b->n[0]->eng, bench_stages_event, &b->st) ||
		    rtl_engine_stats(b->n[0]->eng, &rs))
			return -1;
		b->mac_rate = rs.mac_rate;
	}
	return 0;
}

static void teardown(struct bench *b)
{
	if (!strcmp(b->engine, "rtl")) {
		for (int i = 0; i < 2; i++) {
			struct rtl_engine_stats st;

			CHECK(rtl_engine_stats(b->n[i]->eng, &st) == 0 && st.protocol_errors == 0,
			      "node %d: no RTL interface violations (%s)", i, b->n[i]->ops->last_error(b->n[i]->eng));
		}
	}
	for (int i = 0; i < 2; i++) {
		free(b->scq[i]);
		free(b->rcq[i]);
		for (unsigned int k = 0; k < b->nqp; k++)
			free(b->qp[i][k]);
	}
	free(b->src);
	free(b->dst);
	tb_destroy(b->tb);
}

static uint64_t sim_cycles(struct bench *b)
{
	uint64_t c = 0;

	if (strcmp(b->engine, "rtl"))
		return tb_now(b->tb);
	for (int i = 0; i < 2; i++) {
		struct rtl_engine_stats st;

		if (rtl_engine_stats(b->n[i]->eng, &st) == 0)
			c += st.cycles_clocked;
	}
	return c;
}

/*
 * Message k of `len` bytes on QP pair q: a WRITE from node 0's buffer to node
 * 1's, a READ the other way, an atomic on node 1's word k (0 before:
 * FETCH_ADD adds k + 1, CMP_SWP swaps 0 for k + 1) returning the original
 * into node 0's word k.
 */
static int post_op_qp(struct bench *b, unsigned int q, uint64_t k, uint32_t len)
{
	uint64_t off = k * len;
	struct tb_sge s = { .addr = b->src->va + off, .len = len, .lkey = b->src->lkey };
	struct tb_send_wr w = { .opcode = b->op, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				.raddr = b->dst->va + off, .rkey = b->dst->rkey, .compare_add = k + 1, .swap = k + 1 };

	if (b->op == HCA_WR_ATOMIC_CMP_AND_SWP)
		w.compare_add = 0;
	return tb_post_send(b->qp[0][q], &w);
}

static int post_op(struct bench *b, uint64_t k, uint32_t len)
{
	return post_op_qp(b, 0, k, len);
}

/* Buffers before n messages of len bytes, and the data check after them. */
static void data_prepare(struct bench *b, unsigned int n, uint32_t len)
{
	size_t total = (size_t)len * n;

	if (b->op == HCA_WR_RDMA_WRITE) {
		fill(b->src->buf, total, len ^ 0x5A5A);
		memset(b->dst->buf, 0xEE, total + 64);
	} else if (b->op == HCA_WR_RDMA_READ) {
		fill(b->dst->buf, total, len ^ 0xA5A5);
		memset(b->src->buf, 0xEE, total + 64);
	} else {
		memset(b->dst->buf, 0, total + 64);
		memset(b->src->buf, 0xEE, total + 64);
	}
}

static bool data_ok(struct bench *b, unsigned int n, uint32_t len)
{
	size_t total = (size_t)len * n;

	if (b->op == HCA_WR_RDMA_WRITE)
		return !memcmp(b->dst->buf, b->src->buf, total) && b->dst->buf[total] == 0xEE;
	if (b->op == HCA_WR_RDMA_READ)
		return !memcmp(b->dst->buf, b->src->buf, total) && b->src->buf[total] == 0xEE;
	for (unsigned int k = 0; k < n; k++) {
		uint64_t orig, now;

		memcpy(&orig, b->src->buf + 8 * k, 8);
		memcpy(&now, b->dst->buf + 8 * k, 8);
		if (orig != 0 || now != k + 1)
			return false;
	}
	return b->src->buf[total] == 0xEE;
}

static bool cqe_ok_qp(struct bench *b, unsigned int q, const struct hca_cqe *c, int idx, uint32_t len,
		      const char *what)
{
	uint8_t op = b->op == HCA_WR_RDMA_WRITE ? HCA_WC_OP_RDMA_WRITE : b->op == HCA_WR_RDMA_READ ? HCA_WC_OP_RDMA_READ :
		     b->op == HCA_WR_ATOMIC_FETCH_AND_ADD ? HCA_WC_OP_FETCH_ADD : HCA_WC_OP_COMP_SWAP;
	uint32_t bl = b->op == HCA_WR_RDMA_WRITE ? 0 : b->op == HCA_WR_RDMA_READ ? len : 8;
	bool ok = c->status == HCA_WC_SUCCESS && c->opcode == op && c->wqe_index == idx && c->qpn == b->qp[0][q]->qpn &&
		  c->byte_len == bl;

	CHECK(ok, "%s: CQE status %s opcode %u wqe_index %u (want %d) qpn %u (want %u) byte_len %u", what,
	      hca_wc_status_name(c->status), c->opcode, c->wqe_index, idx, c->qpn, b->qp[0][q]->qpn, c->byte_len);
	return ok;
}

static bool cqe_ok(struct bench *b, const struct hca_cqe *c, int idx, uint32_t len, const char *what)
{
	return cqe_ok_qp(b, 0, c, idx, len, what);
}

static void wire_checks(struct bench *b, uint64_t frames, const char *what)
{
	uint32_t retx = tb_stat(b->n[0], HCA_STAT_RETRANSMIT);
	uint32_t drops = tb_stat(b->n[1], HCA_STAT_RX_DROP_ICRC) + tb_stat(b->n[1], HCA_STAT_RX_DROP_MALFORMED) +
			 tb_stat(b->n[1], HCA_STAT_RX_SEQ_ERR) + tb_stat(b->n[1], HCA_STAT_RX_DUP);

	CHECK(b->data_frames == frames && b->bad == 0 && b->hdr_bad == 0 && b->other == 0 && b->naks == 0 &&
	      (b->acks > 0 || b->op != HCA_WR_RDMA_WRITE) && retx == 0 && drops == 0,
	      "%s: %llu data frames (want %llu), %llu undecodable, %llu with a bad BTH, %llu unexpected, "
	      "%llu NAKs, %llu ACKs, %u retransmissions, %u receiver drops/duplicates", what,
	      (unsigned long long)b->data_frames, (unsigned long long)frames, (unsigned long long)b->bad,
	      (unsigned long long)b->hdr_bad, (unsigned long long)b->other,
	      (unsigned long long)b->naks, (unsigned long long)b->acks, retx, drops);
}

/* Single message on an idle pair. */
static void latency_run(struct bench *b, struct result *r)
{
	uint32_t len = r->size;
	uint64_t db, clk;
	struct hca_cqe c = { 0 };
	char what[64];
	int idx;

	b->op = r->op;
	snprintf(what, sizeof(what), "%s/%u latency %s %u B", b->engine, b->width, op_name(r->op), len);
	CHECK(tb_run(b->tb, WAIT_LIMIT), "%s: pair idle before the run", what);
	data_prepare(b, 1, len);
	obs_reset(b);
	b->armed = true;
	/* the device cycle counter (BAR0 CLOCK; register accesses take no engine time) */
	clk = tb_bar0_read(b->n[0], HCA_INIT_CLOCK_LO);
	clk |= (uint64_t)tb_bar0_read(b->n[0], HCA_INIT_CLOCK_HI) << 32;
	db = eng_now(b->n[0]);
	CHECK(clk == db, "%s: CLOCK register %llu = engine cycle %llu", what, (unsigned long long)clk,
	      (unsigned long long)db);
	/* the stage breakdown: a WRITE's requester reads the WQE, then the payload */
	if (r->op == HCA_WR_RDMA_WRITE)
		bench_stages_arm(&b->st, db, b->qp[0][0]->sq_iova,
				 (uint64_t)1 << (b->qp[0][0]->qpc.log_sq_size + b->qp[0][0]->qpc.log_sq_stride),
				 b->src->iova, b->src->len);
	idx = post_op(b, 0, len);
	if (!tb_cq_wait(b->scq[0], &c, WAIT_LIMIT)) {
		CHECK(0, "%s: no completion", what);
		return;
	}
	r->lat_cqe = eng_now(b->n[0]) - db;
	cqe_ok(b, &c, idx, len, what);
	CHECK(b->first_beat != STAMP_NONE && b->first_beat >= db, "%s: first frame seen", what);
	r->lat_wire = b->first_beat - db;
	r->st = b->st;
	b->st.on = false;
	if (r->op == HCA_WR_RDMA_WRITE && !strcmp(b->engine, "rtl"))
		CHECK(bench_stages_complete(&r->st) && r->st.tx_first == b->first_beat,
		      "%s: stage events seen in order (WQE read, payload read, first beat = the frame's)", what);
	CHECK(data_ok(b, 1, len), "%s: target data", what);
	CHECK(tb_run(b->tb, WAIT_LIMIT), "%s: pair idle after the run", what);
	wire_checks(b, r->pkts, what);
}

/* Cycles node 0's paced MAC held a valid beat back (0 for the model). */
static uint64_t tx_held(struct bench *b)
{
	struct rtl_engine_stats rs;

	return strcmp(b->engine, "rtl") || rtl_engine_stats(b->n[0]->eng, &rs) ? 0 : rs.tx_held;
}

/* N messages back to back, `depth` outstanding. */
static void stream_run(struct bench *b, struct result *r, unsigned int depth)
{
	uint32_t len = r->size;
	unsigned int n = r->msgs, posted = 0, done = 0;
	size_t total = (size_t)len * n;
	uint64_t *t = calloc(n, sizeof(*t));
	int *idx = calloc(n, sizeof(*idx));
	uint64_t limit, held0 = tx_held(b);
	double busy;
	bool order = true;
	char what[64];

	b->op = r->op;
	snprintf(what, sizeof(what), "%s/%u stream %u x %s %u B", b->engine, b->width, n, op_name(r->op), len);
	if (!t || !idx) {
		CHECK(0, "%s: out of memory", what);
		free(t);
		free(idx);
		return;
	}
	CHECK(tb_run(b->tb, WAIT_LIMIT), "%s: pair idle before the run", what);
	data_prepare(b, n, len);
	obs_reset(b);
	limit = tb_now(b->tb) + WAIT_LIMIT;
	while (done < n) {
		struct hca_cqe c;

		while (posted < n && posted - done < depth) {
			idx[posted] = post_op(b, posted, len);
			posted++;
		}
		if (tb_cq_poll(b->scq[0], &c)) {
			t[done] = eng_now(b->n[0]);
			if (order && !cqe_ok(b, &c, idx[done], len, what))
				order = false;
			done++;
			continue;
		}
		if (!tb_step(b->tb, limit)) {
			CHECK(0, "%s: stalled after %u completions", what, done);
			break;
		}
	}
	if (done == n) {
		unsigned int w = depth < n ? depth : n - 1;

		r->counted = n - w;
		r->cyc_per_msg = (double)(t[n - 1] - t[w - 1]) / r->counted;
		r->bytes_per_cyc = r->cyc_per_msg > 0 ? len / r->cyc_per_msg : 0;
		CHECK(order, "%s: %u completions in order, all successful", what, n);
		CHECK(data_ok(b, n, len), "%s: target data (%zu bytes)", what, total);
		CHECK(tb_run(b->tb, WAIT_LIMIT), "%s: pair idle after the run", what);
		r->beats_per_msg = (double)b->data_beats / n;
		r->wire_per_msg = (double)b->data_wire / n;
		/* the paced MAC: the data sender's line is never busier than the line (rtl
		 * WRITEs: the line bytes of the frames over their first beats' span, exact;
		 * cyc/msg, from completions, can be a little short of the line when the
		 * window's first completions bunch at the end of the ramp), and a requester
		 * faster than the line is held back on whole-packet WRITEs */
		busy = b->span_last > b->span_first && b->span_first != STAMP_NONE
			       ? (double)b->span_wire / (double)(b->span_last - b->span_first)
			       : r->wire_per_msg / r->cyc_per_msg;
		CHECK(!b->mac_rate || busy <= b->mac_rate / 8.0 * 1.005,
		      "%s: %.2f line bytes per cycle, the line carries %.2f", what, busy, b->mac_rate / 8.0);
		if (b->mac_rate && b->mac_rate < b->width && len >= 4096 && r->op == HCA_WR_RDMA_WRITE)
			CHECK(tx_held(b) > held0, "%s: the paced MAC held beats back (%llu cycles)", what,
			      (unsigned long long)(tx_held(b) - held0));
		/* frames back to back: when the MAC held nothing back, a WRITE stream whose
		 * payload reads overlap the frames (one packet's read is shorter than its
		 * frame) sends some frame in the cycle after the previous one's last beat
		 * (hca_tx_frame: no idle beat between frames) */
		if (!strcmp(b->engine, "rtl") && r->op == HCA_WR_RDMA_WRITE && len >= 4096 && tx_held(b) == held0)
			CHECK(b->gaps > 0 && b->min_gap == 0,
			      "%s: frames back to back (%llu gaps, the smallest %llu idle cycles)", what,
			      (unsigned long long)b->gaps, (unsigned long long)b->min_gap);
		wire_checks(b, (uint64_t)r->pkts * n, what);
	}
	free(t);
	free(idx);
}

/*
 * Small messages over many QPs: message i is a MULTI_SIZE-byte WRITE on QP
 * i % nqp (strict round robin), at most `depth` outstanding on each QP, all
 * completing on one send CQ; completions must be in order per QP.
 * Steady-state cycles per message: the first nqp * depth completions (the
 * ramp) are not counted.
 */
static void multi_run(struct bench *b, struct result *r, unsigned int depth)
{
	unsigned int nqp = b->nqp, n = r->msgs, posted = 0, done = 0;
	unsigned int out[MAX_QP] = { 0 }, head[MAX_QP] = { 0 };
	int ring[MAX_QP][16];
	uint32_t len = r->size;
	size_t total = (size_t)len * n;
	uint64_t *t = calloc(n, sizeof(*t)), limit;
	bool order = true;
	char what[64];

	snprintf(what, sizeof(what), "%s/%u %u x %u B over %u QPs", b->engine, b->width, n, len, nqp);
	if (!t || depth > 16 || n <= nqp * depth) {
		CHECK(0, "%s: bad run parameters", what);
		free(t);
		return;
	}
	b->op = HCA_WR_RDMA_WRITE;
	CHECK(tb_run(b->tb, WAIT_LIMIT), "%s: pairs idle before the run", what);
	fill(b->src->buf, total, len ^ 0xA5);
	memset(b->dst->buf, 0, total);
	obs_reset(b);
	limit = tb_now(b->tb) + WAIT_LIMIT;
	while (done < n) {
		struct hca_cqe c;
		unsigned int k;

		while (posted < n && out[k = posted % nqp] < depth) {
			ring[k][(head[k] + out[k]) % depth] = post_op_qp(b, k, posted, len);
			out[k]++;
			posted++;
		}
		if (tb_cq_poll(b->scq[0], &c)) {
			for (k = 0; k < nqp && c.qpn != b->qp[0][k]->qpn; k++)
				;
			if (k == nqp || !out[k]) {
				CHECK(0, "%s: completion for QP %u, which has nothing outstanding", what, c.qpn);
				break;
			}
			if (order && !cqe_ok_qp(b, k, &c, ring[k][head[k]], len, what))
				order = false;
			head[k] = (head[k] + 1) % depth;
			out[k]--;
			t[done++] = eng_now(b->n[0]);
			continue;
		}
		if (!tb_step(b->tb, limit)) {
			CHECK(0, "%s: stalled after %u completions", what, done);
			break;
		}
	}
	if (done == n) {
		unsigned int w = nqp * depth;

		r->counted = n - w;
		r->cyc_per_msg = (double)(t[n - 1] - t[w - 1]) / r->counted;
		r->bytes_per_cyc = r->cyc_per_msg > 0 ? len / r->cyc_per_msg : 0;
		CHECK(order, "%s: %u completions in order per QP, all successful", what, n);
		CHECK(!memcmp(b->dst->buf, b->src->buf, total), "%s: target data (%zu bytes)", what, total);
		CHECK(tb_run(b->tb, WAIT_LIMIT), "%s: pairs idle after the run", what);
		r->beats_per_msg = (double)b->data_beats / n;
		wire_checks(b, n, what);
	}
	free(t);
}

static unsigned int msgs_for(const struct opts *o, uint32_t size)
{
	if (o->messages)
		return o->messages;
	/* steady-state window: enough messages that the ramp is a small part */
	return o->depth + (size <= 4096 ? 64 : 32);
}

static void size_str(char *buf, size_t cap, uint32_t s)
{
	if (s >= 1024 && s % 1024 == 0)
		snprintf(buf, cap, "%u KiB", s / 1024);
	else
		snprintf(buf, cap, "%u B", s);
}

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void print_row(const struct opts *o, unsigned int width, const struct result *r, double line)
{
	char s[16], pl[16] = "-", pm[16] = "-";

	size_str(s, sizeof(s), r->size);
	/* goodput as a share of the line, and of the most the line carries in these frames */
	if (line > 0 && r->size && r->wire_per_msg > 0) {
		snprintf(pl, sizeof(pl), "%.1f%%", 100.0 * r->bytes_per_cyc / line);
		snprintf(pm, sizeof(pm), "%.1f%%", 100.0 * r->bytes_per_cyc / (r->size / r->wire_per_msg * line));
	}
	if (r->op != HCA_WR_RDMA_WRITE)
		printf("  %-9s", op_name(r->op));
	printf("  %-7s %4u | %8llu %8llu | %5u %9.1f %8.2f %9.1f %5.0f%% %6s %6s\n", s, r->pkts,
	       (unsigned long long)r->lat_wire, (unsigned long long)r->lat_cqe, r->counted, r->cyc_per_msg,
	       r->bytes_per_cyc, r->beats_per_msg, r->cyc_per_msg > 0 ? 100.0 * r->beats_per_msg / r->cyc_per_msg : 0.0,
	       pl, pm);
	if (o->csv && r->op == HCA_WR_RDMA_WRITE)
		fprintf(o->csv, "%u,%u,%u,%llu,%llu,%u,%.1f,%.3f,%.1f,%.1f,%.1f\n", width, r->size, r->pkts,
			(unsigned long long)r->lat_wire, (unsigned long long)r->lat_cqe, r->counted, r->cyc_per_msg,
			r->bytes_per_cyc, r->beats_per_msg, line, r->wire_per_msg);
}

/* The runs of one width: WRITE and READ of every size, then the two atomics. */
static unsigned int plan_runs(const struct opts *o, struct result *res)
{
	static const uint8_t atomics[] = { HCA_WR_ATOMIC_FETCH_AND_ADD, HCA_WR_ATOMIC_CMP_AND_SWP };
	unsigned int n = 0;

	for (int rd = 0; rd < 2; rd++)
		for (unsigned int i = 0; i < o->nsizes; i++) {
			memset(&res[n], 0, sizeof(res[n]));
			res[n].op = rd ? HCA_WR_RDMA_READ : HCA_WR_RDMA_WRITE;
			res[n].size = o->sizes[i];
			res[n].pkts = res[n].size ? (res[n].size + 4095) / 4096 : 1;
			n++;
		}
	for (unsigned int i = 0; i < sizeof(atomics); i++) {
		memset(&res[n], 0, sizeof(res[n]));
		res[n].op = atomics[i];
		res[n].size = 8;
		res[n].pkts = 1;
		n++;
	}
	for (unsigned int i = 0; i < n; i++)
		res[i].msgs = msgs_for(o, res[i].size);
	return n;
}

/* All runs on one engine at one width; prints the tables for the rtl engine. */
static void run_width(const struct opts *o, const char *engine, unsigned int width)
{
	struct result res[2 * MAX_SIZES + 2], multi;
	unsigned int nres = plan_runs(o, res);
	struct bench b;
	size_t mr_len = 0;
	unsigned long fails = check_failures();
	double t0 = wall(), dt;
	uint64_t cyc;
	double line;
	char what[64];

	for (unsigned int i = 0; i < nres; i++) {
		size_t need = (size_t)res[i].size * res[i].msgs + 4096;

		if (need > mr_len)
			mr_len = need;
	}
	if (setup(&b, o, engine, width, mr_len, 1)) {
		CHECK(0, "%s/%u: setup", engine, width);
		return;
	}
	for (unsigned int i = 0; i < nres; i++) {
		struct result *r = &res[i];

		snprintf(what, sizeof(what), "%s DATA_W=%u, %s %u B", engine, width, op_name(r->op), r->size);
		progress_show(o->pg, what);
		latency_run(&b, r);
		stream_run(&b, r, o->depth);
		progress_step(o->pg);
	}
	cyc = sim_cycles(&b);
	teardown(&b);

	/* small messages over many QPs */
	memset(&multi, 0, sizeof(multi));
	multi.op = HCA_WR_RDMA_WRITE;
	multi.size = MULTI_SIZE;
	multi.pkts = 1;
	multi.msgs = MULTI_QP * (o->messages ? MULTI_DEPTH + 2 : MULTI_MSGS_PER_QP);
	if (setup(&b, o, engine, width, (size_t)MULTI_SIZE * multi.msgs + 4096, MULTI_QP)) {
		CHECK(0, "%s/%u: setup of %u QP pairs", engine, width, MULTI_QP);
	} else {
		snprintf(what, sizeof(what), "%s DATA_W=%u, %u B over %u QPs", engine, width, MULTI_SIZE, MULTI_QP);
		progress_show(o->pg, what);
		multi_run(&b, &multi, MULTI_DEPTH);
		cyc += sim_cycles(&b);
		teardown(&b);
	}
	progress_clear(o->pg);
	dt = wall() - t0;
	fails = check_failures() - fails;

	if (strcmp(engine, "rtl")) {
		(void)width;
		printf("%s engine: the same runs, checks %s (%.2f s wall).  The model is untimed: it emits a "
		       "message's\n  frames in the doorbell's cycle and has no datapath width, so its cycle "
		       "counts would measure\n  only the wire latency; none are printed.\n", engine,
		       fails ? "FAILED" : "passed", dt);
		return;
	}
	line = b.mac_rate / 8.0;
	for (int part = 0; part < 2; part++) {
		if (part == 0) {
			printf("rtl engine, DATA_W=%u (%u B/beat), RC RDMA WRITE, PMTU 4096, wire latency %llu cycles, "
			       "stream depth %u, MAC %s", width, b.wb, (unsigned long long)o->latency, o->depth,
			       mac_for(o->mac, width));
			if (line > 0)
				printf(" (%.1f B/cycle of line)", line);
			printf("%s%s\n", o->rtl_options ? ", options " : "", o->rtl_options ? o->rtl_options : "");
		} else
			printf("rtl engine, DATA_W=%u, RC RDMA READ and atomics (db->wire: the request; pkts, beats/msg, "
			       "wire%%: the responses)\n", width);
		if (part)
			printf("  %-9s", "op");
		printf("  %-7s %4s | %8s %8s | %5s %9s %8s %9s %6s %6s %6s\n", "size", "pkts", "db->wire", "db->CQE",
		       "msgs", "cyc/msg", "B/cycle", "beats/msg", "wire%", "%line", "%max");
		for (unsigned int i = 0; i < nres; i++)
			if ((res[i].op == HCA_WR_RDMA_WRITE) == (part == 0))
				print_row(o, width, &res[i], line);
		if (part == 0) {
			bench_stages_header();
			for (unsigned int i = 0; i < nres; i++) {
				char s[16];

				if (res[i].op != HCA_WR_RDMA_WRITE)
					continue;
				size_str(s, sizeof(s), res[i].size);
				bench_stages_row(s, &res[i].st);
			}
		}
	}
	printf("  %u B WRITEs round robin over %u QPs (%u outstanding on each): %u msgs, %.1f cyc/msg, "
	       "%.2f B/cycle\n", MULTI_SIZE, MULTI_QP, MULTI_DEPTH, multi.counted, multi.cyc_per_msg,
	       multi.bytes_per_cyc);
	printf("  checks %s; %llu engine cycles simulated (both nodes) in %.2f s wall: %.0f cycles/s\n\n",
	       fails ? "FAILED" : "passed", (unsigned long long)cyc, dt, dt > 0 ? cyc / dt : 0.0);
	fflush(stdout);
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_rtl [--width 64|512]... [--sizes 64,256,...] [--messages N] [--depth D]\n"
			"                 [--latency CYCLES] [--options rtl-options] [--mac auto|none|25g|100g]\n"
			"                 [--no-model] [--quick] [--csv FILE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const uint32_t def_sizes[] = { 64, 256, 1024, 4096, 16384, 65536 };
	struct opts o = { .depth = 16, .latency = 250, .mac = "auto", .model = true };
	struct progress pg;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--width") && v) {
			if (o.nwidths < 4)
				o.widths[o.nwidths++] = (unsigned int)atoi(v);
			i++;
		} else if (!strcmp(a, "--sizes") && v) {
			char *dup = strdup(v), *save = NULL;

			for (char *tok = strtok_r(dup, ",", &save); tok && o.nsizes < MAX_SIZES;
			     tok = strtok_r(NULL, ",", &save))
				o.sizes[o.nsizes++] = (uint32_t)strtoul(tok, NULL, 0);
			free(dup);
			i++;
		} else if (!strcmp(a, "--messages") && v) {
			o.messages = (unsigned int)atoi(v);
			i++;
		} else if (!strcmp(a, "--depth") && v) {
			o.depth = (unsigned int)atoi(v);
			i++;
		} else if (!strcmp(a, "--latency") && v) {
			o.latency = strtoull(v, NULL, 0);
			i++;
		} else if (!strcmp(a, "--options") && v) {
			o.rtl_options = v;
			i++;
		} else if (!strcmp(a, "--mac") && v) {
			o.mac = v;
			i++;
		} else if (!strcmp(a, "--csv") && v) {
			o.csv = fopen(v, "w");
			if (!o.csv) {
				perror(v);
				return 2;
			}
			fprintf(o.csv, "width,size,pkts,db_wire,db_cqe,msgs,cyc_per_msg,bytes_per_cycle,beats_per_msg,"
				"line_bytes_per_cycle,wire_bytes_per_msg\n");
			i++;
		} else if (!strcmp(a, "--no-model")) {
			o.model = false;
		} else if (!strcmp(a, "--quick")) {
			/* the make-test sanity run: one tiny size, a short stream */
			o.sizes[0] = 64;
			o.nsizes = 1;
			o.messages = 8;
			o.depth = 4;
		} else {
			usage();
		}
	}
	if (!o.nwidths) {
		o.widths[o.nwidths++] = 64;
		o.widths[o.nwidths++] = 512;
	}
	if (!o.nsizes) {
		memcpy(o.sizes, def_sizes, sizeof(def_sizes));
		o.nsizes = sizeof(def_sizes) / sizeof(def_sizes[0]);
	}
	for (unsigned int i = 0; i < o.nsizes; i++)
		if (o.sizes[i] == 0 || o.sizes[i] > (1u << 24))
			usage();
	if (o.depth < 1 || o.depth > 63 || o.messages == 1)
		usage();
	if (!o.latency)
		o.latency = 250;
	if (strcmp(o.mac, "auto")) {	/* or a name of the rtl engine's mac= option */
		unsigned int k = 0;

		while (mac_pace_names[k] && strcmp(o.mac, mac_pace_names[k]))
			k++;
		if (!mac_pace_names[k])
			usage();
	}
	progress_init(&pg, (o.nwidths + (o.model ? 1 : 0)) * (2 * o.nsizes + 2), stderr);
	o.pg = &pg;
	hca_rtl_engine_register();
	hca_model_engine_register();

	for (unsigned int i = 0; i < o.nwidths; i++) {
		if (o.widths[i] != 64 && o.widths[i] != 512)
			usage();
		run_width(&o, "rtl", o.widths[i]);
	}
	if (o.model)
		run_width(&o, "model", 64);
	if (o.csv)
		fclose(o.csv);
	return check_done();
}
