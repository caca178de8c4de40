// SPDX-License-Identifier: MIT
/*
 * Engine-level testbench (sim/tb.h): engines + host memory + the simulated
 * wire, the stepping loop, and firmware/driver helpers that reach the
 * engine only through the management port, BAR0 and host memory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcap.h"
#include "tb.h"
#include "tb_par.h"

/* Sequential pauses of the parallel step (advance_par), in steps. */
#define PAR_BACKOFF_MIN 64
#define PAR_BACKOFF_MAX 65536

/* Functional coverage (sim/cov.h) when the program links libhcacov and HCASIM_COV=DIR is set. */
extern int cov_wrap_config(const char *engine, const char *opts, const char *prefix, char *eng_out,
			   size_t eng_n, char *opts_out, size_t opts_n) __attribute__((weak));
extern void hca_cov_engine_register(void) __attribute__((weak));
extern bool cov_env_prefix(const char *what, char *buf, size_t n) __attribute__((weak));

struct tb {
	struct tb_config cfg;
	struct wire *wire;
	struct tb_node node[TB_MAX_NODES];
	unsigned int nodes;
	uint64_t now;
	tb_filter_fn filter;
	void *filter_ctx;
	uint64_t frames_sent;
	uint64_t same_cycle_steps, last_t;
	struct pcap_writer *emitted;	/* HCASIM_TB_CAPTURE_DIR: frames as the engines emit them */
	uint8_t fbuf[65536 + 64];
	/* Parallel step (threads 2, docs/sim.md 9.6): a worker thread, the nodes
	 * it advances in this step, and while one runs (`held`), each node's
	 * frames held in its outbox until both are done. */
	struct tb_par *par;
	bool held;
	uint64_t due_mask;		/* tb_step: nodes whose next event is the step's cycle */
	unsigned int job[TB_MAX_NODES], njob;
	uint64_t job_t;
	struct tb_outbox {
		uint8_t *buf;		/* records: size_t length, then the frame */
		size_t len, cap;
	} outbox[TB_MAX_NODES];
	/* HCASIM_TB_STATS: steps, those with two or more nodes due, those advanced in parallel */
	uint64_t steps, multi_steps, par_steps;
	uint64_t par_off, par_backoff;	/* steps left to run sequentially, and the next such pause */
	uint64_t par_backoff_max;	/* PAR_BACKOFF_MAX or HCASIM_TB_PAR_BACKOFF_MAX */
	bool par_resumed;		/* the first parallel step after such a pause */
};

/* Host callbacks -------------------------------------------------------- */

static int cb_dma_read(void *host, uint64_t iova, void *buf, size_t len)
{
	return hostmem_dma_read(((struct tb_node *)host)->hm, iova, buf, len);
}

static int cb_dma_write(void *host, uint64_t iova, const void *buf, size_t len)
{
	return hostmem_dma_write(((struct tb_node *)host)->hm, iova, buf, len);
}

/* A frame an engine sent, in the order the engines send them: node by node
 * within a step (the sequential loop's order), stamped with the step's cycle. */
static void tx_send(struct tb *tb, struct tb_node *n, const uint8_t *frame, size_t len)
{
	tb->frames_sent++;
	if (tb->emitted)	/* before any test filter alters or drops it */
		pcap_write(tb->emitted, tb->now, frame, len);
	if (len > sizeof(tb->fbuf))
		return;
	memcpy(tb->fbuf, frame, len);
	if (tb->filter && tb->filter(tb->filter_ctx, n->id, tb->fbuf, &len, tb->now) == TB_DROP)
		return;
	wire_send(tb->wire, (unsigned int)n->port, tb->fbuf, len, tb->now);
}

/* Hold a frame sent during a parallel step (only this node's thread touches
 * its outbox); tx_send gets it after the step, in node order. */
static void outbox_put(struct tb_outbox *o, const uint8_t *frame, size_t len)
{
	size_t need = o->len + sizeof(len) + len;

	if (need > o->cap) {
		size_t cap = o->cap ? o->cap : 16384;
		uint8_t *b;

		while (cap < need)
			cap *= 2;
		b = realloc(o->buf, cap);
		if (!b) {
			fprintf(stderr, "tb: out of memory holding a frame\n");
			abort();
		}
		o->buf = b;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, &len, sizeof(len));
	memcpy(o->buf + o->len + sizeof(len), frame, len);
	o->len = need;
}

static void cb_tx_frame(void *host, const uint8_t *frame, size_t len)
{
	struct tb_node *n = host;
	struct tb *tb = n->tb;

	if (tb->held)
		outbox_put(&tb->outbox[n->id], frame, len);
	else
		tx_send(tb, n, frame, len);
}

static void cb_interrupt(void *host, unsigned int vector)
{
	struct tb_node *n = host;

	if (vector < HCA_CAP_NUM_MSIX)
		n->irq[vector]++;
	n->irq_total++;
}

static const struct hca_host_ops tb_host_ops = {
	.dma_read = cb_dma_read,
	.dma_write = cb_dma_write,
	.tx_frame = cb_tx_frame,
	.interrupt = cb_interrupt,
};

static void wire_rx(void *ctx, unsigned int port, const uint8_t *frame, size_t len, uint64_t now)
{
	struct tb_node *n = ctx;

	(void)port;
	(void)now;
	n->ops->rx_frame(n->eng, frame, len);
}

/* Testbench -------------------------------------------------------------- */

/*
 * With HCASIM_TB_CAPTURE_DIR set, every testbench writes the frames its
 * engines emit (before test filters) to DIR/<program>-<pid>-<n>.pcap, so a
 * whole test program's output can be handed to the independent oracles
 * (tests/oracle/check_pcap.py; the oracle_model_suite test does this).
 */
static void tb_capture_open(struct tb *tb)
{
	static unsigned int seq;
	const char *dir = getenv("HCASIM_TB_CAPTURE_DIR");
	char path[4096];

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/%s-%ld-%u.pcap", dir, program_invocation_short_name,
		 (long)getpid(), seq++);
	tb->emitted = pcap_writer_open(path, 0);
	if (!tb->emitted)
		fprintf(stderr, "tb: cannot write %s: %s\n", path, strerror(errno));
}

struct tb *tb_create(const struct tb_config *cfg)
{
	struct tb_config c = cfg ? *cfg : (struct tb_config){ 0 };
	struct wire_config wc;
	const struct hca_engine_ops *ops;
	struct tb *tb;

	/* Coverage runs only (sim/coverage/run.sh): run a model test on another engine. */
	if (getenv("HCASIM_TB_ENGINE") && *getenv("HCASIM_TB_ENGINE") && (!c.engine || !strcmp(c.engine, "model")))
		c.engine = getenv("HCASIM_TB_ENGINE");
	if (!c.engine)
		c.engine = "model";
	if (!c.nodes)
		c.nodes = 2;
	if (!c.latency)
		c.latency = 250;
	if (!c.max_steps_same_cycle)
		c.max_steps_same_cycle = 10000000;
	if (!c.threads)
		c.threads = getenv("HCASIM_TB_THREADS") ? (unsigned int)strtoul(getenv("HCASIM_TB_THREADS"), NULL, 0) : 1;
	ops = hca_engine_find(c.engine);
	if (!ops || c.nodes > TB_MAX_NODES) {
		fprintf(stderr, "tb: engine '%s' not linked in (or too many nodes)\n", c.engine);
		return NULL;
	}
	tb = calloc(1, sizeof(*tb));
	if (!tb)
		return NULL;
	tb->cfg = c;
	tb->last_t = UINT64_MAX;
	tb_capture_open(tb);
	memset(&wc, 0, sizeof(wc));
	wc.mode = c.switched ? WIRE_SWITCH : WIRE_P2P;
	wc.latency = c.latency;
	wc.seed = c.seed;
	wc.faults = c.faults;
	wc.pcap_tx = c.pcap;
	tb->wire = wire_create(&wc);
	if (!tb->wire) {
		fprintf(stderr, "tb: wire_create: %s\n", strerror(errno));
		free(tb);
		return NULL;
	}
	for (unsigned int i = 0; i < c.nodes; i++) {
		struct tb_node *n = &tb->node[i];
		struct hca_engine_config ec;
		char cov_prefix[512], cov_eng[32], cov_opts[2048];
		int r;

		memset(&ec, 0, sizeof(ec));
		ec.seed = c.seed + i;
		if (c.engine_config)
			c.engine_config(c.engine_config_ctx, i, &ec);
		n->tb = tb;
		n->id = i;
		n->ops = ops;
		n->hm = hostmem_create();
		n->mac[0] = 0x02;
		n->mac[5] = (uint8_t)(i + 1);
		n->ip = 0x0a000001u + i;
		n->next_qpn = 2;
		n->next_cqn = 1;
		n->next_srqn = 1;
		n->next_eqn = 0;
		n->next_mr = 1;
		n->next_pdn = 1;
		if (cov_wrap_config && cov_env_prefix("tb", cov_prefix, sizeof(cov_prefix))) {
			hca_cov_engine_register();
			if (!cov_wrap_config(c.engine, ec.options, cov_prefix, cov_eng, sizeof(cov_eng), cov_opts,
					     sizeof(cov_opts))) {
				ec.options = cov_opts;
				n->ops = hca_engine_find(cov_eng);
			}
		}
		r = n->hm ? n->ops->create(&ec, &tb_host_ops, n, &n->eng) : -ENOMEM;
		if (r) {
			fprintf(stderr, "tb: %s create: %d\n", c.engine, r);
			hostmem_destroy(n->hm);	/* this node's; tb_destroy frees the others' */
			tb->nodes = i;
			tb_destroy(tb);
			return NULL;
		}
		n->port = wire_attach(tb->wire, wire_rx, n);
		tb->nodes = i + 1;
		tb_node_up(n);
		if (n->ops != ops)	/* coverage: its counters are not per node */
			c.threads = 1;
	}
	if (c.threads >= 2 && tb->nodes >= 2) {
		const char *bm = getenv("HCASIM_TB_PAR_BACKOFF_MAX");	/* sim_threads: a floor of parallel steps */

		tb->par_backoff_max = bm && *bm ? strtoull(bm, NULL, 0) : PAR_BACKOFF_MAX;
		tb->par = tb_par_create();
		if (!tb->par)
			fprintf(stderr, "tb: no worker thread (%s): one thread\n", strerror(errno));
	}
	return tb;
}

void tb_destroy(struct tb *tb)
{
	if (!tb)
		return;
	if (getenv("HCASIM_TB_STATS"))
		fprintf(stderr, "tb: %llu steps in parallel of %llu (%llu with two or more nodes due; %u threads)\n",
			(unsigned long long)tb->par_steps, (unsigned long long)tb->steps,
			(unsigned long long)tb->multi_steps, tb->par ? 2u : 1u);
	for (unsigned int i = 0; i < tb->nodes; i++) {
		if (tb->node[i].eng)
			tb->node[i].ops->destroy(tb->node[i].eng);
		hostmem_destroy(tb->node[i].hm);
	}
	tb_par_destroy(tb->par);
	for (unsigned int i = 0; i < TB_MAX_NODES; i++)
		free(tb->outbox[i].buf);
	wire_destroy(tb->wire);
	if (tb->emitted)
		pcap_writer_close(tb->emitted);
	free(tb);
}

struct tb_node *tb_node(struct tb *tb, unsigned int i)
{
	return i < tb->nodes ? &tb->node[i] : NULL;
}

struct wire *tb_wire(struct tb *tb)
{
	return tb->wire;
}

uint64_t tb_now(const struct tb *tb)
{
	return tb->now;
}

void tb_set_filter(struct tb *tb, tb_filter_fn fn, void *ctx)
{
	tb->filter = fn;
	tb->filter_ctx = ctx;
}

uint64_t tb_frames_sent(const struct tb *tb)
{
	return tb->frames_sent;
}

static void advance_node(struct tb_node *n, uint64_t t)
{
	uint64_t now = n->ops->now(n->eng);

	n->ops->advance(n->eng, t > now ? t - now : 0);
}

/* The worker's part of a parallel step. */
static void advance_job(void *arg)
{
	struct tb *tb = arg;

	for (unsigned int k = 0; k < tb->njob; k++)
		advance_node(&tb->node[tb->job[k]], tb->job_t);
}

/*
 * Parallel step (docs/sim.md 9.6): the worker advances the second half of
 * the nodes due at t, this thread the others, the same advance each node
 * gets in the sequential loop.  The nodes share nothing during an advance
 * (each has its own engine, host memory and interrupt counters) but the
 * wire: their frames wait in per-node outboxes and go to the wire after
 * both are done, node by node, in the order the sequential loop sends them.
 */
static void advance_par(struct tb *tb, uint64_t t, unsigned int due)
{
	unsigned int k = 0, mine = due - due / 2;
	bool woken, slept;

	tb->njob = 0;
	tb->job_t = t;
	for (unsigned int i = 0; i < tb->nodes; i++)
		if (tb->due_mask >> i & 1 && k++ >= mine)
			tb->job[tb->njob++] = i;
	tb->held = true;
	woken = tb_par_start(tb->par, advance_job, tb);
	k = 0;
	for (unsigned int i = 0; i < tb->nodes; i++)
		if (!(tb->due_mask >> i & 1) || k++ < mine)
			advance_node(&tb->node[i], t);
	slept = tb_par_wait(tb->par);
	tb->held = false;
	tb->par_steps++;
	/* Sleeping for the worker means the two threads did not run at once (a
	 * machine busy with other work; the first step after a pause may wake a
	 * sleeping worker): the next steps run sequentially, a pause doubling up
	 * to par_backoff_max steps while that lasts.  Which steps run in
	 * parallel changes nothing. */
	if (slept && !(woken && tb->par_resumed)) {
		tb->par_backoff = tb->par_backoff ? tb->par_backoff * 2 : PAR_BACKOFF_MIN;
		if (tb->par_backoff > tb->par_backoff_max)
			tb->par_backoff = tb->par_backoff_max;
		tb->par_off = tb->par_backoff;
	} else if (!slept && tb->par_backoff) {
		tb->par_backoff /= 2;
	}
	tb->par_resumed = false;
	for (unsigned int i = 0; i < tb->nodes; i++) {
		struct tb_outbox *o = &tb->outbox[i];

		for (size_t off = 0; off < o->len;) {
			size_t len;

			memcpy(&len, o->buf + off, sizeof(len));
			tx_send(tb, &tb->node[i], o->buf + off + sizeof(len), len);
			off += sizeof(len) + len;
		}
		o->len = 0;
	}
}

/* Frames the engines send during this advance are stamped `t` (tb_step only
 * advances to the earliest next_event, so nothing happens before t).  With
 * a worker (threads 2), two or more nodes due at t advance in parallel;
 * tb->due_mask names them (tb_step; 0 elsewhere). */
static void advance_all(struct tb *tb, uint64_t t)
{
	unsigned int due = (unsigned int)__builtin_popcountll(tb->due_mask);

	tb->now = t;
	if (due >= 2)
		tb->multi_steps++;
	if (tb->par && due >= 2 && !tb->par_off) {
		advance_par(tb, t, due);
	} else {
		if (tb->par_off && !--tb->par_off)
			tb->par_resumed = true;
		for (unsigned int i = 0; i < tb->nodes; i++)
			advance_node(&tb->node[i], t);
	}
	tb->due_mask = 0;
}

bool tb_step(struct tb *tb, uint64_t limit)
{
	uint64_t t = wire_next_event(tb->wire), e[TB_MAX_NODES];

	for (unsigned int i = 0; i < tb->nodes; i++) {
		e[i] = tb->node[i].ops->next_event(tb->node[i].eng);
		if (e[i] < t)
			t = e[i];
	}
	if (t == UINT64_MAX || t > limit)
		return false;
	if (t < tb->now)
		t = tb->now;
	if (t == tb->last_t) {
		if (++tb->same_cycle_steps > tb->cfg.max_steps_same_cycle) {
			fprintf(stderr, "tb: livelock: %llu steps at cycle %llu\n",
				(unsigned long long)tb->same_cycle_steps, (unsigned long long)t);
			abort();
		}
	} else {
		tb->same_cycle_steps = 0;
		tb->last_t = t;
	}
	tb->steps++;
	tb->due_mask = 0;
	for (unsigned int i = 0; i < tb->nodes; i++)
		if (e[i] <= t)
			tb->due_mask |= 1ull << i;
	advance_all(tb, t);
	wire_deliver(tb->wire, t);
	return true;
}

bool tb_run(struct tb *tb, uint64_t max_cycles)
{
	uint64_t limit = tb->now + max_cycles;

	if (limit < tb->now)
		limit = UINT64_MAX - 1;
	while (tb_step(tb, limit))
		;
	for (unsigned int i = 0; i < tb->nodes; i++)
		if (tb->node[i].ops->next_event(tb->node[i].eng) != UINT64_MAX)
			return false;
	return wire_next_event(tb->wire) == UINT64_MAX;
}

void tb_run_for(struct tb *tb, uint64_t cycles)
{
	uint64_t limit = tb->now + cycles;

	while (tb_step(tb, limit))
		;
	advance_all(tb, limit);
}

/* Registers ---------------------------------------------------------------- */

uint32_t tb_mgmt_read(struct tb_node *n, uint32_t addr)
{
	return n->ops->mgmt_read(n->eng, addr);
}

void tb_mgmt_write(struct tb_node *n, uint32_t addr, uint32_t val)
{
	n->ops->mgmt_write(n->eng, addr, val);
}

uint32_t tb_bar0_read(struct tb_node *n, uint32_t off)
{
	return n->ops->bar0_read(n->eng, off);
}

void tb_bar0_write(struct tb_node *n, uint32_t off, uint32_t val)
{
	n->ops->bar0_write(n->eng, off, val);
}

void tb_doorbell(struct tb_node *n, uint32_t reg, uint32_t num, uint16_t idx)
{
	tb_bar0_write(n, HCA_BAR0_DB_BASE + TB_UAR * HCA_BAR0_DB_PAGE_SIZE + reg,
		      (uint32_t)idx << 16 | (num & 0xffff));
}

uint32_t tb_ctx_write(struct tb_node *n, unsigned int type, uint32_t index, const void *ctx, size_t len)
{
	uint32_t w[HCA_MGMT_CTX_DATA_WORDS];

	memset(w, 0, sizeof(w));
	memcpy(w, ctx, len < sizeof(w) ? len : sizeof(w));
	for (unsigned int i = 0; i < HCA_MGMT_CTX_DATA_WORDS; i++)
		tb_mgmt_write(n, HCA_MGMT_CTX_DATA + 4 * i, w[i]);
	tb_mgmt_write(n, HCA_MGMT_CTX_CMD, HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_OP, HCA_CTX_OP_WRITE) |
			  HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_TYPE, type) |
			  HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_INDEX, index));
	return tb_mgmt_read(n, HCA_MGMT_CTX_STATUS);
}

uint32_t tb_ctx_read(struct tb_node *n, unsigned int type, uint32_t index, void *ctx, size_t len)
{
	uint32_t w[HCA_MGMT_CTX_DATA_WORDS];

	tb_mgmt_write(n, HCA_MGMT_CTX_CMD, HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_OP, HCA_CTX_OP_READ) |
			  HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_TYPE, type) |
			  HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_INDEX, index));
	for (unsigned int i = 0; i < HCA_MGMT_CTX_DATA_WORDS; i++)
		w[i] = tb_mgmt_read(n, HCA_MGMT_CTX_DATA + 4 * i);
	memcpy(ctx, w, len < sizeof(w) ? len : sizeof(w));
	return tb_mgmt_read(n, HCA_MGMT_CTX_STATUS);
}

uint32_t tb_stat(struct tb_node *n, unsigned int idx)
{
	return tb_mgmt_read(n, HCA_MGMT_STAT_BASE + 4 * idx);
}

int tb_evt_pop(struct tb_node *n, uint8_t *type, uint32_t *element)
{
	if (tb_mgmt_read(n, HCA_MGMT_EVT_COUNT) == 0)
		return 0;
	if (type)
		*type = (uint8_t)HCA_FIELD_GET(tb_mgmt_read(n, HCA_MGMT_EVT_TYPE), HCA_MGMT_EVT_TYPE_TYPE);
	if (element)
		*element = tb_mgmt_read(n, HCA_MGMT_EVT_ELEMENT);
	tb_mgmt_write(n, HCA_MGMT_EVT_POP, 1);
	return 1;
}

int tb_evt_find(struct tb_node *n, uint8_t type, uint32_t element)
{
	uint8_t t;
	uint32_t e;

	while (tb_evt_pop(n, &t, &e))
		if (t == type && e == element)
			return 1;
	return 0;
}

void tb_evt_clear(struct tb_node *n)
{
	while (tb_evt_pop(n, NULL, NULL))
		;
}

static void gid_write(struct tb_node *n, unsigned int idx, const uint8_t gid[16])
{
	struct hca_gidc g;

	memset(&g, 0, sizeof(g));
	memcpy(g.gid, gid, 16);
	g.gid_type = HCA_GID_TYPE_ROCE_V2;
	g.valid = 1;
	tb_ctx_write(n, HCA_CTX_TYPE_GIDC, idx, &g, sizeof(g));
}

void tb_ipv4_gid(uint32_t ip, uint8_t gid[16])
{
	memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	gid[12] = (uint8_t)(ip >> 24);
	gid[13] = (uint8_t)(ip >> 16);
	gid[14] = (uint8_t)(ip >> 8);
	gid[15] = (uint8_t)ip;
}

void tb_node_up(struct tb_node *n)
{
	uint8_t gid[16] = { 0xfe, 0x80 };

	tb_mgmt_write(n, HCA_MGMT_ENGINE_CTRL, HCA_MGMT_ENGINE_CTRL_RESET_MASK);
	tb_mgmt_write(n, HCA_MGMT_PORT_MAC_HI, (uint32_t)n->mac[0] << 8 | n->mac[1]);
	tb_mgmt_write(n, HCA_MGMT_PORT_MAC_LO, (uint32_t)n->mac[2] << 24 | (uint32_t)n->mac[3] << 16 |
			  (uint32_t)n->mac[4] << 8 | n->mac[5]);
	tb_mgmt_write(n, HCA_MGMT_ENGINE_CTRL, HCA_MGMT_ENGINE_CTRL_ENABLE_MASK);
	/* GID 0: IPv6 link-local from the MAC (EUI-64), GID 1: the IPv4 address */
	gid[8] = n->mac[0] ^ 2;
	gid[9] = n->mac[1];
	gid[10] = n->mac[2];
	gid[11] = 0xff;
	gid[12] = 0xfe;
	gid[13] = n->mac[3];
	gid[14] = n->mac[4];
	gid[15] = n->mac[5];
	gid_write(n, 0, gid);
	tb_ipv4_gid(n->ip, gid);
	gid_write(n, TB_SGID_INDEX, gid);
	tb_mgmt_write(n, HCA_MGMT_PORT_CTRL, HCA_MGMT_PORT_CTRL_UP_MASK);
	tb_evt_clear(n);
}

/* Objects ----------------------------------------------------------------- */

void *tb_alloc(struct tb_node *n, size_t len, uint64_t *iova)
{
	return hostmem_alloc(n->hm, len, iova);
}

uint32_t tb_pd_alloc(struct tb_node *n)
{
	return n->next_pdn++;
}

struct tb_mr *tb_mr_reg(struct tb_node *n, uint32_t pdn, size_t len, uint32_t access)
{
	struct tb_mr *mr = calloc(1, sizeof(*mr));
	struct hca_mrc c;

	if (!mr)
		return NULL;
	mr->buf = tb_alloc(n, len, &mr->iova);
	if (!mr->buf) {
		free(mr);
		return NULL;
	}
	mr->n = n;
	mr->index = n->next_mr++;
	mr->pdn = pdn;
	mr->access = access;
	mr->len = len;
	mr->va = mr->iova + TB_VA_OFFSET;
	mr->lkey = mr->rkey = mr->index << 8 | ((mr->index * 37 + 5) & 0xff);
	memset(&c, 0, sizeof(c));
	c.valid = 1;
	c.key = (uint8_t)mr->lkey;
	c.access = (uint16_t)access;
	c.pdn = pdn;
	c.va = mr->va;
	c.length = len;
	c.dma_addr = mr->iova;
	tb_ctx_write(n, HCA_CTX_TYPE_MRC, mr->index, &c, sizeof(c));
	return mr;
}

void tb_mr_dereg(struct tb_mr *mr)
{
	struct hca_mrc c;

	memset(&c, 0, sizeof(c));
	tb_ctx_write(mr->n, HCA_CTX_TYPE_MRC, mr->index, &c, sizeof(c));
}

struct tb_eq *tb_eq_create(struct tb_node *n, unsigned int log_size, unsigned int vector)
{
	struct tb_eq *eq = calloc(1, sizeof(*eq));
	struct hca_eqc c;

	if (!eq)
		return NULL;
	eq->ring = tb_alloc(n, (size_t)HCA_EQE_SIZE << log_size, &eq->iova);
	eq->n = n;
	eq->eqn = n->next_eqn++;
	eq->log_size = log_size;
	eq->vector = vector;
	memset(&c, 0, sizeof(c));
	c.valid = 1;
	c.log_size = (uint8_t)log_size;
	c.vector = (uint8_t)vector;
	c.base = eq->iova;
	c.uar = TB_UAR;
	tb_ctx_write(n, HCA_CTX_TYPE_EQC, eq->eqn, &c, sizeof(c));
	/* unmask the vector (they come out of reset masked) */
	tb_bar0_write(n, HCA_BAR0_MSIX_TABLE + 16 * vector + HCA_MSIX_VECTOR_CTRL, 0);
	return eq;
}

struct tb_cq *tb_cq_create(struct tb_node *n, unsigned int log_size, struct tb_eq *eq)
{
	struct tb_cq *cq = calloc(1, sizeof(*cq));
	struct hca_cqc c;

	if (!cq)
		return NULL;
	cq->ring = tb_alloc(n, (size_t)HCA_CQE_SIZE << log_size, &cq->iova);
	cq->n = n;
	cq->cqn = n->next_cqn++;
	cq->log_size = log_size;
	cq->eq = eq;
	memset(&c, 0, sizeof(c));
	c.valid = 1;
	c.log_size = (uint8_t)log_size;
	c.uar = TB_UAR;
	c.eqn = eq ? eq->eqn : 0xffffffffu;
	c.base = cq->iova;
	tb_ctx_write(n, HCA_CTX_TYPE_CQC, cq->cqn, &c, sizeof(c));
	return cq;
}

static unsigned int log2_ceil(unsigned int v)
{
	unsigned int l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

struct tb_srq *tb_srq_create(struct tb_node *n, uint32_t pdn, unsigned int log_size,
			     unsigned int max_sge, uint32_t limit)
{
	struct tb_srq *srq = calloc(1, sizeof(*srq));

	if (!srq)
		return NULL;
	srq->n = n;
	srq->srqn = n->next_srqn++;
	srq->pdn = pdn;
	srq->log_size = log_size;
	srq->max_sge = max_sge ? max_sge : 1;
	srq->log_stride = log2_ceil(HCA_WQE_RECV_HDR_SIZE + HCA_WQE_DATA_SEG_SIZE * srq->max_sge);
	if (srq->log_stride < HCA_WQE_LOG_MIN_RQ_STRIDE)
		srq->log_stride = HCA_WQE_LOG_MIN_RQ_STRIDE;
	srq->ring = tb_alloc(n, (size_t)1 << (log_size + srq->log_stride), &srq->iova);
	srq->ctx.valid = 1;
	srq->ctx.log_size = (uint8_t)log_size;
	srq->ctx.log_stride = (uint8_t)srq->log_stride;
	srq->ctx.pdn = pdn;
	srq->ctx.base = srq->iova;
	srq->ctx.uar = TB_UAR;
	srq->ctx.limit = limit;
	tb_ctx_write(n, HCA_CTX_TYPE_SRQC, srq->srqn, &srq->ctx, sizeof(srq->ctx));
	return srq;
}

void tb_srq_set_limit(struct tb_srq *srq, uint32_t limit)
{
	struct hca_srqc c;

	/* read-modify-write, as firmware does (keeps the engine's state field) */
	tb_ctx_read(srq->n, HCA_CTX_TYPE_SRQC, srq->srqn, &c, sizeof(c));
	c.limit = limit;
	srq->ctx = c;
	tb_ctx_write(srq->n, HCA_CTX_TYPE_SRQC, srq->srqn, &c, sizeof(c));
}

struct tb_qp *tb_qp_create(struct tb_node *n, uint8_t type, uint32_t pdn, struct tb_cq *scq,
			   struct tb_cq *rcq, struct tb_srq *srq, const struct tb_qp_cap *cap)
{
	struct tb_qp_cap c = cap ? *cap : (struct tb_qp_cap){ 0 };
	struct tb_qp *qp = calloc(1, sizeof(*qp));
	unsigned int words, ls, lr;

	if (!qp)
		return NULL;
	if (!c.max_send_wr)
		c.max_send_wr = 64;
	if (!c.max_recv_wr)
		c.max_recv_wr = 64;
	if (!c.max_send_sge)
		c.max_send_sge = 4;
	if (!c.max_recv_sge)
		c.max_recv_sge = 4;
	qp->n = n;
	qp->qpn = n->next_qpn++;
	qp->type = type;
	qp->scq = scq;
	qp->rcq = rcq;
	qp->srq = srq;
	/* ring geometry of docs/programming.md 5.1 / 5.2 */
	words = c.max_send_sge > (c.max_inline + 15) / 16 ? c.max_send_sge : (c.max_inline + 15) / 16;
	ls = log2_ceil(HCA_WQE_HDR_SIZE + 16 * words);
	if (ls < HCA_WQE_LOG_MIN_SQ_STRIDE)
		ls = HCA_WQE_LOG_MIN_SQ_STRIDE;
	lr = log2_ceil(HCA_WQE_RECV_HDR_SIZE + 16 * c.max_recv_sge);
	if (lr < HCA_WQE_LOG_MIN_RQ_STRIDE)
		lr = HCA_WQE_LOG_MIN_RQ_STRIDE;
	qp->qpc.qp_type = type;
	qp->qpc.pdn = pdn;
	qp->qpc.send_cqn = scq ? scq->cqn : 0;
	qp->qpc.recv_cqn = rcq ? rcq->cqn : 0;
	qp->qpc.uar = TB_UAR;
	qp->qpc.port_num = 1;
	qp->qpc.flags = c.sq_sig_all ? HCA_QPC_FLAGS_SQ_SIG_ALL_MASK : 0;
	qp->qpc.log_sq_size = (uint8_t)log2_ceil(c.max_send_wr);
	qp->qpc.log_sq_stride = (uint8_t)ls;
	qp->sq = tb_alloc(n, (size_t)1 << (qp->qpc.log_sq_size + ls), &qp->sq_iova);
	qp->qpc.sq_base = qp->sq_iova;
	if (srq) {
		qp->qpc.flags |= HCA_QPC_FLAGS_USE_SRQ_MASK;
		qp->qpc.srqn = srq->srqn;
	} else {
		qp->qpc.log_rq_size = (uint8_t)log2_ceil(c.max_recv_wr);
		qp->qpc.log_rq_stride = (uint8_t)lr;
		qp->rq = tb_alloc(n, (size_t)1 << (qp->qpc.log_rq_size + lr), &qp->rq_iova);
		qp->qpc.rq_base = qp->rq_iova;
	}
	qp->qpc.state = HCA_QPS_RESET;
	tb_ctx_write(n, HCA_CTX_TYPE_QPC, qp->qpn, &qp->qpc, 0x80);
	return qp;
}

uint32_t tb_qp_modify(struct tb_qp *qp, uint8_t state, uint8_t flags)
{
	struct hca_qpc c = qp->qpc;

	qp->qpc.state = state;
	c.state = state;
	c.flags = (uint8_t)(qp->qpc.flags | flags);
	return tb_ctx_write(qp->n, HCA_CTX_TYPE_QPC, qp->qpn, &c, 0x80);
}

struct hca_qpc tb_qp_query(struct tb_qp *qp)
{
	struct hca_qpc c;

	tb_ctx_read(qp->n, HCA_CTX_TYPE_QPC, qp->qpn, &c, sizeof(c));
	return c;
}

void tb_qp_attr_default(struct tb_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->path_mtu = HCA_MTU_1024;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->min_rnr_timer = 1;
	a->max_rd_atomic = 16;
	a->max_dest_rd_atomic = 16;
	a->access = HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_READ |
		    HCA_ACCESS_REMOTE_ATOMIC;
	a->sq_psn = 0x123;
	a->rq_psn = 0x123;
	a->qkey = 0x11111111;
}

int tb_qp_connect(struct tb_qp *qp, struct tb_qp *peer, const struct tb_qp_attr *a)
{
	struct tb_node *pn = peer->n;
	uint32_t st;

	st = tb_qp_modify(qp, HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK);
	qp->qpc.access_flags = a->access;
	st |= tb_qp_modify(qp, HCA_QPS_INIT, HCA_QPC_FLAGS_RESET_STATE_MASK);
	qp->qpc.path_mtu = a->path_mtu;
	qp->qpc.dest_qpn = peer->qpn;
	qp->qpc.rq_psn = a->rq_psn;
	qp->qpc.max_dest_rd_atomic = a->max_dest_rd_atomic;
	qp->qpc.min_rnr_timer = a->min_rnr_timer;
	qp->qpc.sgid_index = TB_SGID_INDEX;
	qp->qpc.hop_limit = 64;
	memcpy(qp->qpc.dmac, pn->mac, 6);
	tb_ipv4_gid(pn->ip, qp->qpc.dgid);
	st |= tb_qp_modify(qp, HCA_QPS_RTR, HCA_QPC_FLAGS_LOAD_RQ_PSN_MASK);
	qp->qpc.sq_psn = a->sq_psn;
	qp->qpc.timeout = a->timeout;
	qp->qpc.retry_cnt = a->retry_cnt;
	qp->qpc.rnr_retry = a->rnr_retry;
	qp->qpc.max_rd_atomic = a->max_rd_atomic;
	if (a->sqd_notify)
		qp->qpc.flags |= HCA_QPC_FLAGS_SQD_NOTIFY_MASK;
	st |= tb_qp_modify(qp, HCA_QPS_RTS, HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK);
	return st ? -EIO : 0;
}

int tb_connect_pair(struct tb_qp *a, struct tb_qp *b, const struct tb_qp_attr *attr)
{
	struct tb_qp_attr d;

	if (!attr) {
		tb_qp_attr_default(&d);
		attr = &d;
	}
	return tb_qp_connect(a, b, attr) | tb_qp_connect(b, a, attr);
}

int tb_qp_ud_ready(struct tb_qp *qp, const struct tb_qp_attr *a)
{
	struct tb_qp_attr d;
	uint32_t st;

	if (!a) {
		tb_qp_attr_default(&d);
		a = &d;
	}
	qp->qpc.qkey = a->qkey;
	qp->qpc.path_mtu = a->path_mtu;
	qp->qpc.sgid_index = TB_SGID_INDEX;
	st = tb_qp_modify(qp, HCA_QPS_INIT, HCA_QPC_FLAGS_RESET_STATE_MASK);
	st |= tb_qp_modify(qp, HCA_QPS_RTR, 0);
	qp->qpc.sq_psn = a->sq_psn;
	st |= tb_qp_modify(qp, HCA_QPS_RTS, HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK);
	return st ? -EIO : 0;
}

/* Work requests -------------------------------------------------------------- */

static uint8_t *sq_slot(struct tb_qp *qp, uint16_t idx)
{
	return qp->sq + ((size_t)(idx & ((1u << qp->qpc.log_sq_size) - 1)) << qp->qpc.log_sq_stride);
}

int tb_post_send(struct tb_qp *qp, const struct tb_send_wr *wr)
{
	uint8_t *w = sq_slot(qp, qp->sq_pi);
	struct hca_wqe_ctrl_seg c;

	memset(w, 0, (size_t)1 << qp->qpc.log_sq_stride);
	memset(&c, 0, sizeof(c));
	c.opcode = wr->opcode;
	c.send_flags = wr->flags;
	c.wqe_index = qp->sq_pi;
	c.imm_data = wr->imm;
	if (wr->inline_data) {
		c.send_flags |= HCA_SEND_INLINE;
		c.inline_len = (uint16_t)wr->inline_len;
		memcpy(w + HCA_WQE_DATA_OFF, wr->inline_data, wr->inline_len);
	} else {
		c.num_sge = (uint8_t)wr->num_sge;
		for (unsigned int i = 0; i < wr->num_sge; i++) {
			struct hca_wqe_data_seg d = { .byte_count = wr->sge[i].len, .lkey = wr->sge[i].lkey,
						      .addr = wr->sge[i].addr };

			memcpy(w + HCA_WQE_DATA_OFF + i * sizeof(d), &d, sizeof(d));
		}
	}
	memcpy(w, &c, sizeof(c));
	if (qp->type == HCA_QPT_UD && wr->ud_dest) {
		struct hca_wqe_ud_seg u;

		memset(&u, 0, sizeof(u));
		u.remote_qpn = wr->ud_dest->qpn;
		u.remote_qkey = wr->ud_qkey;
		memcpy(u.dmac, wr->ud_dest->n->mac, 6);
		u.sgid_index = TB_SGID_INDEX;
		u.hop_limit = 64;
		tb_ipv4_gid(wr->ud_dest->n->ip, u.dgid);
		memcpy(w + HCA_WQE_UD_OFF, &u, sizeof(u));
	} else {
		struct hca_wqe_raddr_seg r = { .remote_addr = wr->raddr, .rkey = wr->rkey };
		struct hca_wqe_atomic_seg a = { .compare_add = wr->compare_add, .swap = wr->swap };

		memcpy(w + HCA_WQE_RADDR_OFF, &r, sizeof(r));
		memcpy(w + HCA_WQE_ATOMIC_OFF, &a, sizeof(a));
	}
	qp->sq_pi++;
	tb_doorbell(qp->n, HCA_DB_SQ_PI, qp->qpn, qp->sq_pi);
	return (uint16_t)(qp->sq_pi - 1);
}

int tb_post_send_raw(struct tb_qp *qp, const void *wqe, size_t len)
{
	uint8_t *w = sq_slot(qp, qp->sq_pi);
	size_t stride = (size_t)1 << qp->qpc.log_sq_stride;

	memset(w, 0, stride);
	memcpy(w, wqe, len < stride ? len : stride);
	qp->sq_pi++;
	tb_doorbell(qp->n, HCA_DB_SQ_PI, qp->qpn, qp->sq_pi);
	return (uint16_t)(qp->sq_pi - 1);
}

static void write_recv_wqe(uint8_t *w, uint16_t index, const struct tb_sge *sge, unsigned int n)
{
	struct hca_recv_wqe_hdr h;

	memset(&h, 0, sizeof(h));
	h.num_sge = (uint8_t)n;
	h.wqe_index = index;
	memcpy(w, &h, sizeof(h));
	for (unsigned int i = 0; i < n; i++) {
		struct hca_wqe_data_seg d = { .byte_count = sge[i].len, .lkey = sge[i].lkey,
					      .addr = sge[i].addr };

		memcpy(w + HCA_WQE_RECV_HDR_SIZE + i * sizeof(d), &d, sizeof(d));
	}
}

int tb_post_recv(struct tb_qp *qp, const struct tb_sge *sge, unsigned int n)
{
	uint8_t *w = qp->rq + ((size_t)(qp->rq_pi & ((1u << qp->qpc.log_rq_size) - 1)) << qp->qpc.log_rq_stride);

	write_recv_wqe(w, qp->rq_pi, sge, n);
	qp->rq_pi++;
	tb_doorbell(qp->n, HCA_DB_RQ_PI, qp->qpn, qp->rq_pi);
	return (uint16_t)(qp->rq_pi - 1);
}

int tb_srq_post(struct tb_srq *srq, const struct tb_sge *sge, unsigned int n)
{
	uint8_t *w = srq->ring + ((size_t)(srq->pi & ((1u << srq->log_size) - 1)) << srq->log_stride);

	write_recv_wqe(w, srq->pi, sge, n);
	srq->pi++;
	tb_doorbell(srq->n, HCA_DB_SRQ_PI, srq->srqn, srq->pi);
	return (uint16_t)(srq->pi - 1);
}

int tb_cq_poll(struct tb_cq *cq, struct hca_cqe *out)
{
	struct hca_cqe *e = &cq->ring[cq->ci & ((1u << cq->log_size) - 1)];

	if ((e->owner & 1) != (((cq->ci >> cq->log_size) & 1) ^ 1))
		return 0;
	if (out)
		*out = *e;
	cq->ci++;
	tb_doorbell(cq->n, HCA_DB_CQ_CI, cq->cqn, (uint16_t)cq->ci);
	return 1;
}

void tb_cq_arm(struct tb_cq *cq, bool solicited)
{
	tb_doorbell(cq->n, solicited ? HCA_DB_CQ_ARM_SOL : HCA_DB_CQ_ARM, cq->cqn, (uint16_t)cq->ci);
}

int tb_cq_wait(struct tb_cq *cq, struct hca_cqe *out, uint64_t max_cycles)
{
	struct tb *tb = cq->n->tb;
	uint64_t limit = tb->now + max_cycles;

	for (;;) {
		if (tb_cq_poll(cq, out))
			return 1;
		if (!tb_step(tb, limit))
			return 0;
	}
}

int tb_eq_poll(struct tb_eq *eq, struct hca_eqe *out)
{
	struct hca_eqe *e = &eq->ring[eq->ci & ((1u << eq->log_size) - 1)];

	if ((e->owner & 1) != (((eq->ci >> eq->log_size) & 1) ^ 1))
		return 0;
	if (out)
		*out = *e;
	eq->ci++;
	tb_doorbell(eq->n, HCA_DB_EQ_CI, eq->eqn, (uint16_t)eq->ci);
	return 1;
}

void tb_eq_arm(struct tb_eq *eq)
{
	tb_doorbell(eq->n, HCA_DB_EQ_ARM, eq->eqn, (uint16_t)eq->ci);
}
