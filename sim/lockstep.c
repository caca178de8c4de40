// SPDX-License-Identifier: MIT
/*
 * The "lockstep" engine (sim/lockstep.h, docs/sim.md): a reference engine
 * and a DUT engine on the same stimulus, their outputs compared per stream.
 *
 * Time: the reference (the C model) is untimed -- it does all the work its
 * inputs allow at the cycle it is advanced -- and the DUT (the RTL) takes
 * real cycles.  Each advance(n) first advances the reference by n (its
 * timers fire at their deadlines inside the window), then the DUT by n, so
 * both clocks read the same cycle between calls and the reference is never
 * behind the DUT: a DUT transaction the reference has not produced is an
 * error at once, and a reference transaction the DUT has not produced when
 * the DUT goes idle is one too.
 *
 * Lazy reference (option lazy, default on): an untimed reference does
 * nothing between its events, so an advance that ends before its next event
 * (next_event(), cached until it gets input) only adds to a lag; the lag is
 * paid with one advance before anything else reaches the reference.  The
 * reference sees the same inputs at the same cycles and produces the same
 * transactions at the same cycles (docs/sim.md 9.3).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/roce_hdr.h"
#include "engine_opts.h"
#include "lockstep.h"
#include "lockstep_regions.h"
#include "lockstep_regs.h"
#include "lockstep_retx.h"

#define LS_OPT_MAX 512
/* Default bound on how late a DUT retransmission run may start after the
 * reference's (docs/sim.md section 2, "Retransmissions"): 2^20 cycles. */
#define LS_RETX_LAG (1ull << 20)
/* Most cycles a context write waits for the DUT to catch up (catch_up()). */
#define LS_CATCH_UP_MAX (1ull << 20)

struct lockstep {
	struct lockstep *next;		/* live instances */
	const struct hca_engine_ops *rops, *dops;
	struct hca_engine *ref, *dut;
	struct hca_host_ops host;
	void *host_ctx;
	struct sb *sb;
	struct ls_regions rg;
	struct ls_retx *retx;		/* retransmitted RC requests (lockstep_retx.h) */
	int s_tx, s_irq, s_evt, s_other;
	uint32_t last_ctx_cmd;
	bool stopped;			/* diverged: the reference is no longer driven */
	bool quiet, idle_check, probe;
	bool port_order;		/* tx_order=port: one strict order for all frames of the port */
	/* lazy reference (ref_touch()): cycles it has not been advanced by yet,
	 * and its next event while it has had no input */
	bool lazy, ref_next_ok;
	uint64_t ref_lag, ref_next;
	char report_path[256];
	char label[64];
	uint64_t reads_skipped;
	uint64_t flushed;		/* transactions dropped by engine resets */
	/* arm doorbells held back per queue (see hold_arm()): BAR0 offset of the
	 * latest arm (0: none) and the latest consumer index rung */
	uint32_t cq_arm_off[LS_NUM_CQ], eq_arm_off[LS_NUM_EQ];
	uint16_t cq_ci[LS_NUM_CQ], eq_ci[LS_NUM_EQ];
	unsigned int nheld;
	uint64_t arms_held;
	/* context writes that waited for the DUT (catch_up()), and the cycles */
	bool catching_up;
	uint64_t ctx_waits, ctx_wait_cycles;
	uint8_t *scratch;
	size_t scratch_cap;
	/* contexts written (for the final status comparison) */
	uint8_t seen_qp[LS_NUM_CQ], seen_cq[LS_NUM_CQ], seen_eq[LS_NUM_EQ], seen_srq[1u << HCA_CAP_LOG_MAX_SRQ];
	char err[400];
};

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lockstep *live;

#define to_ls(e) ((struct lockstep *)(void *)(e))

/* Divergence ---------------------------------------------------------------- */

static void on_diverge(struct lockstep *ls)
{
	const struct sb_divergence *d = sb_divergence(ls->sb);

	if (ls->stopped || !d)
		return;
	ls->stopped = true;
	snprintf(ls->err, sizeof(ls->err), "%s", d->summary);
	if (!ls->quiet)
		fprintf(stderr, "%s", d->report);
	if (ls->report_path[0]) {
		FILE *f = fopen(ls->report_path, "w");

		if (f) {
			fprintf(f, "%s", d->report);
			fprintf(f, "stream=%s\nfield=%s\ncycle=%llu\nlabel=%s\n", d->stream, d->field,
				(unsigned long long)d->cycle, ls->label);
			fclose(f);
		}
	}
}

static void check(struct lockstep *ls)
{
	if (!ls->stopped && sb_failed(ls->sb))
		on_diverge(ls);
}

/* Lazy reference ------------------------------------------------------------ */

/* Before the reference gets input or is read: its clock caught up with the
 * DUT's (an advance with no event inside), its cached next event dropped. */
static void ref_touch(struct lockstep *ls)
{
	uint64_t n = ls->ref_lag;

	ls->ref_next_ok = false;
	ls->ref_lag = 0;
	if (n && !ls->stopped)	/* after a divergence the reference is not driven */
		ls->rops->advance(ls->ref, n);
}

static uint64_t ref_next_event(struct lockstep *ls)
{
	if (!ls->ref_next_ok) {
		ref_touch(ls);
		ls->ref_next = ls->rops->next_event(ls->ref);
		ls->ref_next_ok = true;
	}
	return ls->ref_next;
}

/* Advance the reference by `cycles`, or only owe them when nothing of its
 * own falls inside (next event after the end of the window). */
static void ref_advance(struct lockstep *ls, uint64_t cycles)
{
	if (ls->lazy) {
		uint64_t next = ref_next_event(ls);
		uint64_t end = ls->rops->now(ls->ref) + ls->ref_lag + cycles;

		if (end >= cycles && next > end && ls->ref_lag + cycles >= cycles) {
			ls->ref_lag += cycles;
			return;
		}
	}
	ref_touch(ls);
	ls->rops->advance(ls->ref, cycles);
}

/* DMA classification ----------------------------------------------------------- */

static void record_dma(struct lockstep *ls, enum sb_side side, uint64_t cycle, uint64_t iova,
		       const uint8_t *p, size_t len)
{
	while (len) {
		size_t piece;
		struct ls_region *g = ls_regions_find(&ls->rg, iova, len, &piece);
		int sid = ls->s_other;
		uint64_t base = 0;

		if (g) {
			if (g->sid < 0) {
				static const char *const what[] = { "CQEs of CQ %u", "EQEs of EQ %u",
								    "DMA writes into MR %u" };
				static const enum sb_fmt fmt[] = { SB_FMT_CQE, SB_FMT_EQE, SB_FMT_MEM };
				char name[16], desc[64];

				ls_region_name(g, name, sizeof(name));
				snprintf(desc, sizeof(desc), what[g->kind], g->index);
				g->sid = sb_stream(ls->sb, name, g->kind == LS_RGN_MR ? SB_DMA : SB_ENTRY, fmt[g->kind], desc);
			}
			sid = g->sid;
			base = g->base;
		}
		if (g && g->kind != LS_RGN_MR)
			sb_push_entries(ls->sb, sid, side, cycle, iova, base, p, piece);
		else
			sb_push_dma(ls->sb, sid, side, cycle, iova, base, p, piece);
		iova += piece;
		p += piece;
		len -= piece;
	}
}

/*
 * Frame order key: wire.md fixes the order of frames within one QP, not
 * across QPs or between a QP's requests and its responses (an RTL TX
 * arbiter interleaves ACKs with a long message).  Key = local QPN (UDP
 * source port) and request/response; non-RoCE frames share key 0.
 */
static uint64_t frame_key(const struct lockstep *ls, const uint8_t *f, size_t len)
{
	const struct roce_opcode_info *oi;

	if (ls->port_order || len < 54 || f[12] != 0x08 || f[13] != 0 || f[23] != 17 ||
	    ((unsigned int)f[36] << 8 | f[37]) != HCA_WIRE_UDP_DPORT)
		return 0;
	oi = roce_opcode(f[42]);
	return 1 + (((uint64_t)f[34] << 8 | f[35]) << 1 | (oi && (oi->flags & ROCE_OP_RESP) ? 1 : 0));
}

/* Reference host callbacks: reads see host memory plus the reference's own
 * unmatched writes; writes, frames and interrupts are recorded only. */

static int ref_dma_read(void *h, uint64_t iova, void *buf, size_t len)
{
	struct lockstep *ls = h;
	int r = ls->host.dma_read(ls->host_ctx, iova, buf, len);

	if (r == 0)
		sb_overlay(ls->sb, iova, buf, len);
	return r;
}

static int ref_dma_write(void *h, uint64_t iova, const void *buf, size_t len)
{
	struct lockstep *ls = h;

	if (ls->stopped)
		return 0;
	if (ls->probe && len) {
		if (ls->scratch_cap < len) {
			uint8_t *n = realloc(ls->scratch, len);

			if (!n)
				return -ENOMEM;
			ls->scratch = n;
			ls->scratch_cap = len;
		}
		if (ls->host.dma_read(ls->host_ctx, iova, ls->scratch, len) != 0)
			return -EFAULT;
	}
	record_dma(ls, SB_REF, ls->rops->now(ls->ref), iova, buf, len);
	check(ls);
	return 0;
}

static void ref_tx_frame(void *h, const uint8_t *frame, size_t len)
{
	struct lockstep *ls = h;

	if (ls->stopped)
		return;
	if (!ls_retx_tx(ls->retx, ls->sb, SB_REF, ls->rops->now(ls->ref), frame, len))
		sb_push_key(ls->sb, ls->s_tx, SB_REF, ls->rops->now(ls->ref), frame_key(ls, frame, len), frame, len);
	check(ls);
}

static void ref_interrupt(void *h, unsigned int vector)
{
	struct lockstep *ls = h;
	uint32_t v = vector;

	if (ls->stopped)
		return;
	sb_push_key(ls->sb, ls->s_irq, SB_REF, ls->rops->now(ls->ref), v, &v, sizeof(v));	/* order per vector */
	check(ls);
}

static const struct hca_host_ops ref_host = {
	.dma_read = ref_dma_read,
	.dma_write = ref_dma_write,
	.tx_frame = ref_tx_frame,
	.interrupt = ref_interrupt,
};

/* DUT host callbacks: the real host, observed. */

static int dut_dma_read(void *h, uint64_t iova, void *buf, size_t len)
{
	struct lockstep *ls = h;

	return ls->host.dma_read(ls->host_ctx, iova, buf, len);
}

static int dut_dma_write(void *h, uint64_t iova, const void *buf, size_t len)
{
	struct lockstep *ls = h;
	int r = ls->host.dma_write(ls->host_ctx, iova, buf, len);

	if (r == 0 && !ls->stopped) {
		record_dma(ls, SB_DUT, ls->dops->now(ls->dut), iova, buf, len);
		check(ls);
	}
	return r;
}

static void dut_tx_frame(void *h, const uint8_t *frame, size_t len)
{
	struct lockstep *ls = h;

	if (!ls->stopped) {
		if (!ls_retx_tx(ls->retx, ls->sb, SB_DUT, ls->dops->now(ls->dut), frame, len))
			sb_push_key(ls->sb, ls->s_tx, SB_DUT, ls->dops->now(ls->dut), frame_key(ls, frame, len), frame,
				    len);
		check(ls);
	}
	ls->host.tx_frame(ls->host_ctx, frame, len);
}

static void dut_interrupt(void *h, unsigned int vector)
{
	struct lockstep *ls = h;
	uint32_t v = vector;

	if (!ls->stopped) {
		sb_push_key(ls->sb, ls->s_irq, SB_DUT, ls->dops->now(ls->dut), v, &v, sizeof(v));
		check(ls);
	}
	ls->host.interrupt(ls->host_ctx, vector);
}

static const struct hca_host_ops dut_host = {
	.dma_read = dut_dma_read,
	.dma_write = dut_dma_write,
	.tx_frame = dut_tx_frame,
	.interrupt = dut_interrupt,
};

/* Options ----------------------------------------------------------------- */

struct ls_opts {
	char ref[32], dut[32];
	char ref_opts[LS_OPT_MAX], dut_opts[LS_OPT_MAX];
	char label[64], report[256];
	unsigned int quiet, idle_check, probe, tx_order, lazy;
	uint64_t retx_lag;
};

static const char *const tx_orders[] = { "qp", "port", NULL };

/* sim/lockstep.h lists them; checked by sim/engine_opts. */
static const struct hca_engine_opt ls_opt_table[] = {
	HCA_OPT_STR(struct ls_opts, ref, "reference engine; default model"),
	HCA_OPT_STR(struct ls_opts, dut, "engine under test; default rtl"),
	HCA_OPT_PASS("ref", struct ls_opts, ref_opts, "an option of the reference engine"),
	HCA_OPT_PASS("dut", struct ls_opts, dut_opts, "an option of the engine under test"),
	HCA_OPT_STR(struct ls_opts, label, "names this device in reports"),
	HCA_OPT_STR(struct ls_opts, report, "file for the divergence report"),
	HCA_OPT_BOOL(struct ls_opts, quiet, "1: no report on stderr"),
	HCA_OPT_BOOL(struct ls_opts, idle_check, "0: no missing-transaction check when the DUT idles"),
	HCA_OPT_BOOL(struct ls_opts, probe, "0: the reference's DMA writes never fault"),
	HCA_OPT_ENUM(struct ls_opts, tx_order, tx_orders, "frame order per QP or per port"),
	HCA_OPT_UINT(struct ls_opts, retx_lag, 0, 1000000000000ull,
		     "cycles a DUT retransmission may follow the reference's (0: no bound); default 1048576"),
	HCA_OPT_BOOL(struct ls_opts, lazy, "0: advance the reference on every advance, not only when it has work"),
	{ 0 },
};

static int parse_options(struct lockstep *ls, const char *opts, struct ls_opts *o)
{
	*o = (struct ls_opts){ .ref = "model", .dut = "rtl", .label = "lockstep", .idle_check = 1,
			       .probe = 1, .retx_lag = LS_RETX_LAG, .lazy = 1 };
	if (hca_engine_opts_parse("lockstep", ls_opt_table, opts, o))
		return -EINVAL;
	snprintf(ls->label, sizeof(ls->label), "%s", o->label);
	snprintf(ls->report_path, sizeof(ls->report_path), "%s", o->report);
	ls->quiet = o->quiet;
	ls->idle_check = o->idle_check;
	ls->probe = o->probe;
	ls->port_order = o->tx_order == 1;
	ls->lazy = o->lazy;
	ls->retx = ls_retx_create(o->retx_lag);
	return ls->retx ? 0 : -ENOMEM;
}

/* Engine ops ----------------------------------------------------------------- */

static int ls_create(const struct hca_engine_config *cfg, const struct hca_host_ops *host, void *host_ctx,
		     struct hca_engine **out)
{
	struct hca_engine_config rc, dc;
	struct ls_opts o;
	struct lockstep *ls;
	int r;

	if (!host || !out || !host->dma_read || !host->dma_write || !host->tx_frame || !host->interrupt)
		return -EINVAL;
	ls = calloc(1, sizeof(*ls));
	if (!ls)
		return -ENOMEM;
	ls->host = *host;
	ls->host_ctx = host_ctx;
	r = parse_options(ls, cfg ? cfg->options : NULL, &o);
	if (r)
		goto fail;
	ls->rops = hca_engine_find(o.ref);
	ls->dops = hca_engine_find(o.dut);
	if (!ls->rops || !ls->dops || ls->rops == &hca_lockstep_engine_ops || ls->dops == &hca_lockstep_engine_ops) {
		fprintf(stderr, "lockstep: engine '%s' is not linked in (or is lockstep itself)\n",
			!ls->rops || ls->rops == &hca_lockstep_engine_ops ? o.ref : o.dut);
		r = -ENOENT;
		goto fail;
	}
	ls_regions_init(&ls->rg);
	{
		char lab[160];

		snprintf(lab, sizeof(lab), "%s (ref %s, dut %s)", ls->label, o.ref, o.dut);
		ls->sb = sb_create(lab);
	}
	if (!ls->sb) {
		r = -ENOMEM;
		goto fail;
	}
	sb_set_ref_leads(ls->sb, true);
	ls->s_tx = sb_stream(ls->sb, "tx", SB_MSG, SB_FMT_FRAME, "frames sent on port 1");
	ls->s_irq = sb_stream(ls->sb, "irq", SB_MSG, SB_FMT_IRQ, "MSI-X interrupts delivered");
	ls->s_evt = sb_stream(ls->sb, "evt", SB_MSG, SB_FMT_EVENT, "engine events popped from the event FIFO");
	ls->s_other = sb_stream(ls->sb, "dma-other", SB_DMA, SB_FMT_RAW, "DMA writes outside every known ring and MR");
	memset(&rc, 0, sizeof(rc));
	memset(&dc, 0, sizeof(dc));
	if (cfg) {
		rc.data_w = dc.data_w = cfg->data_w;
		rc.seed = dc.seed = cfg->seed;
		dc.trace = cfg->trace;
		dc.trace_from = cfg->trace_from;
		dc.trace_to = cfg->trace_to;
	}
	rc.options = o.ref_opts[0] ? o.ref_opts : NULL;
	dc.options = o.dut_opts[0] ? o.dut_opts : NULL;
	r = ls->rops->create(&rc, &ref_host, ls, &ls->ref);
	if (r) {
		fprintf(stderr, "lockstep: reference '%s' create: %d\n", o.ref, r);
		goto fail;
	}
	r = ls->dops->create(&dc, &dut_host, ls, &ls->dut);
	if (r) {
		fprintf(stderr, "lockstep: DUT '%s' create: %d\n", o.dut, r);
		goto fail;
	}
	pthread_mutex_lock(&live_lock);
	ls->next = live;
	live = ls;
	pthread_mutex_unlock(&live_lock);
	*out = (struct hca_engine *)(void *)ls;
	return 0;
fail:
	if (ls->ref)
		ls->rops->destroy(ls->ref);
	sb_destroy(ls->sb);
	ls_retx_destroy(ls->retx);
	free(ls);
	return r;
}

static void ls_destroy(struct hca_engine *e)
{
	struct lockstep *ls = to_ls(e);

	if (!ls)
		return;
	pthread_mutex_lock(&live_lock);
	for (struct lockstep **pp = &live; *pp; pp = &(*pp)->next)
		if (*pp == ls) {
			*pp = ls->next;
			break;
		}
	pthread_mutex_unlock(&live_lock);
	ls->dops->destroy(ls->dut);
	ls->rops->destroy(ls->ref);
	sb_destroy(ls->sb);
	ls_retx_destroy(ls->retx);
	free(ls->scratch);
	free(ls);
}

static bool both_idle(struct lockstep *ls)
{
	return ls->dops->next_event(ls->dut) == UINT64_MAX && ref_next_event(ls) == UINT64_MAX;
}

/*
 * A counter as compared: frames the retransmission rule took (docs/sim.md
 * section 2) do not count in TX_FRAMES and TX_BYTES, because how much each
 * side resent depends on its timing; what is left, the first transmissions,
 * must agree.
 */
static uint32_t stat_compared(const struct lockstep *ls, enum sb_side side, uint32_t addr, uint32_t v)
{
	uint64_t frames, bytes;

	ls_retx_taken(ls->retx, side, &frames, &bytes);
	if (addr == HCA_MGMT_STAT_BASE + 4 * HCA_STAT_TX_FRAMES)
		return v - (uint32_t)frames;
	if (addr == HCA_MGMT_STAT_BASE + 4 * HCA_STAT_TX_BYTES)
		return v - (uint32_t)bytes;
	return v;
}

/* Compare one register read under its rule. */
static void compare_read(struct lockstep *ls, const char *stream, const struct ls_reg_rule *rule,
			 uint32_t refv, uint32_t dutv)
{
	uint64_t cyc = ls->dops->now(ls->dut);
	char detail[200];

	if ((refv ^ dutv) & rule->exact_mask) {
		snprintf(detail, sizeof(detail), "bits compared on every read: 0x%08x%s%s", rule->exact_mask,
			 rule->note ? "; " : "", rule->note ? rule->note : "");
		sb_compare_value(ls->sb, stream, cyc, rule->name, refv, dutv, detail);
	} else if (refv == dutv) {
		sb_compare_value(ls->sb, stream, cyc, rule->name, refv, dutv, NULL);
	} else if (rule->settled && both_idle(ls)) {
		snprintf(detail, sizeof(detail), "both engines are idle, so the whole value must match (%s)",
			 rule->note ? rule->note : "settled register");
		sb_compare_value(ls->sb, stream, cyc, rule->name, refv, dutv, detail);
	} else {
		ls->reads_skipped++;
	}
	check(ls);
}

static uint32_t ls_bar0_read(struct hca_engine *e, uint32_t off)
{
	struct lockstep *ls = to_ls(e);
	uint32_t d = ls->dops->bar0_read(ls->dut, off);
	struct ls_reg_rule rule;

	if (ls->stopped)
		return d;
	ref_touch(ls);
	ls_bar0_rule(off, &rule);
	compare_read(ls, "bar0-read", &rule, ls->rops->bar0_read(ls->ref, off), d);
	return d;
}

/*
 * Arming.  CQ_ARM / CQ_ARM_SOL / EQ_ARM decide from the queue's producer
 * index at the doorbell (an event or interrupt at once when entries exist
 * at or after the doorbell's consumer index, otherwise at the next one).
 * The untimed reference may already have written entries the slower DUT
 * writes only later, and both would decide differently, each correctly for
 * its own timing.  So an arm doorbell for a ring on which the reference is
 * ahead (entries the DUT has not matched) is held back from both engines
 * until the DUT has caught up; then both get it in the same cycle, with the
 * same ring state.  The engines take their event decisions atomically with
 * the slot, so a caught-up ring is the whole state.  While held, further
 * arms of that queue merge into it (arm-next wins over arm-solicited) and
 * consumer-index doorbells pass; the held arm is delivered with the latest
 * consumer index, as a driver's arm that reached the device late.  Context
 * commands and engine resets release every held arm first.
 */
static int db_reg(uint32_t off)
{
	if (off < HCA_BAR0_DB_BASE || off >= HCA_BAR0_SIZE)
		return -1;
	return (int)((off - HCA_BAR0_DB_BASE) % HCA_BAR0_DB_PAGE_SIZE);
}

/* The reference has entries (or parts) in ring `g` that the DUT has not matched. */
static bool ref_ahead(const struct lockstep *ls, const struct ls_region *g)
{
	struct sb_stream_stats st;

	if (!g->valid || g->sid < 0 || sb_stream_stats(ls->sb, (unsigned int)g->sid, &st))
		return false;
	return st.pending[SB_REF] != 0;
}

static void deliver_bar0(struct lockstep *ls, uint32_t off, uint32_t value)
{
	if (!ls->stopped) {
		ref_touch(ls);
		ls->rops->bar0_write(ls->ref, off, value);
	}
	ls->dops->bar0_write(ls->dut, off, value);
}

/* Deliver the held arms whose ring has caught up (all when `force`).  Runs
 * on every advance: the scan stops after the last held arm. */
static void release_held(struct lockstep *ls, bool force)
{
	uint32_t held = ls->nheld, seen = 0;

	for (uint32_t n = 0; seen < held && n < LS_NUM_CQ + LS_NUM_EQ; n++) {
		bool cq = n < LS_NUM_CQ;
		uint32_t q = cq ? n : n - LS_NUM_CQ;
		uint32_t *off = cq ? &ls->cq_arm_off[q] : &ls->eq_arm_off[q];
		uint16_t ci = cq ? ls->cq_ci[q] : ls->eq_ci[q];

		if (!*off)
			continue;
		seen++;
		if (!force && !ls->stopped && ref_ahead(ls, cq ? &ls->rg.cq[q] : &ls->rg.eq[q]))
			continue;
		deliver_bar0(ls, *off, HCA_FIELD_PREP(HCA_DB_CQ_ARM_NUM, q) | HCA_FIELD_PREP(HCA_DB_CQ_ARM_IDX, ci));
		*off = 0;
		ls->nheld--;
	}
}

/* True when the write was taken (held, merged into a held arm, or noted). */
static bool hold_arm(struct lockstep *ls, uint32_t off, uint32_t value)
{
	int reg = db_reg(off);
	uint32_t q = (uint32_t)HCA_FIELD_GET(value, HCA_DB_CQ_ARM_NUM);	/* same layout for all four */
	uint16_t idx = (uint16_t)HCA_FIELD_GET(value, HCA_DB_CQ_ARM_IDX);
	bool cq = reg == HCA_DB_CQ_CI || reg == HCA_DB_CQ_ARM || reg == HCA_DB_CQ_ARM_SOL;
	bool arm = reg == HCA_DB_CQ_ARM || reg == HCA_DB_CQ_ARM_SOL || reg == HCA_DB_EQ_ARM;
	uint32_t *held;

	if (ls->stopped || (!cq && reg != HCA_DB_EQ_CI && reg != HCA_DB_EQ_ARM) || q >= (cq ? LS_NUM_CQ : LS_NUM_EQ))
		return false;
	held = cq ? &ls->cq_arm_off[q] : &ls->eq_arm_off[q];
	*(cq ? &ls->cq_ci[q] : &ls->eq_ci[q]) = idx;
	if (*held) {
		if (arm && !(reg == HCA_DB_CQ_ARM_SOL && db_reg(*held) == HCA_DB_CQ_ARM))
			*held = off;	/* merged: the latest arm (arm-next is not weakened) */
		else if (!arm)
			deliver_bar0(ls, off, value);	/* the held arm will carry this index */
		return true;
	}
	if (!arm || !ref_ahead(ls, cq ? &ls->rg.cq[q] : &ls->rg.eq[q]))
		return false;
	*held = off;
	ls->nheld++;
	ls->arms_held++;
	return true;
}

static void ls_bar0_write(struct hca_engine *e, uint32_t off, uint32_t value)
{
	struct lockstep *ls = to_ls(e);

	if (!hold_arm(ls, off, value))
		deliver_bar0(ls, off, value);
}

static uint32_t evt_count(const struct hca_engine_ops *ops, struct hca_engine *e)
{
	return ops->mgmt_read(e, HCA_MGMT_EVT_COUNT);
}

static uint32_t ls_mgmt_read(struct hca_engine *e, uint32_t addr)
{
	struct lockstep *ls = to_ls(e);
	uint32_t d = ls->dops->mgmt_read(ls->dut, addr);
	struct ls_reg_rule rule;
	uint32_t r;

	if (ls->stopped)
		return d;
	ref_touch(ls);
	r = ls->rops->mgmt_read(ls->ref, addr);
	ls_mgmt_rule(addr, ls->last_ctx_cmd, &rule);
	if ((addr == HCA_MGMT_EVT_TYPE || addr == HCA_MGMT_EVT_ELEMENT) && evt_count(ls->dops, ls->dut)) {
		/* the FIFO heads must be the same event (the reference is never behind) */
		if (!evt_count(ls->rops, ls->ref)) {
			sb_fail(ls->sb, "evt", "extra", ls->dops->now(ls->dut),
				"the DUT's event FIFO holds an event (%s = 0x%x) and the reference's is empty\n",
				rule.name, d);
			check(ls);
			return d;
		}
		rule.exact_mask = addr == HCA_MGMT_EVT_TYPE ? ~(uint32_t)HCA_MGMT_EVT_TYPE_OVERFLOW_MASK : 0xffffffffu;
		rule.note = "head of a non-empty event FIFO";
		compare_read(ls, "evt", &rule, r, d);
		return d;
	}
	compare_read(ls, "mgmt-read", &rule, stat_compared(ls, SB_REF, addr, r), stat_compared(ls, SB_DUT, addr, d));
	return d;
}

static void evt_pop(struct lockstep *ls)
{
	uint32_t dc = evt_count(ls->dops, ls->dut), rc = evt_count(ls->rops, ls->ref);

	if (dc) {
		uint32_t dv[2] = { HCA_FIELD_GET(ls->dops->mgmt_read(ls->dut, HCA_MGMT_EVT_TYPE), HCA_MGMT_EVT_TYPE_TYPE),
				   ls->dops->mgmt_read(ls->dut, HCA_MGMT_EVT_ELEMENT) };

		if (rc) {
			uint32_t rv[2] = { HCA_FIELD_GET(ls->rops->mgmt_read(ls->ref, HCA_MGMT_EVT_TYPE),
							 HCA_MGMT_EVT_TYPE_TYPE),
					   ls->rops->mgmt_read(ls->ref, HCA_MGMT_EVT_ELEMENT) };

			sb_push_key(ls->sb, ls->s_evt, SB_REF, ls->rops->now(ls->ref), rv[1], rv, sizeof(rv));
			ls->rops->mgmt_write(ls->ref, HCA_MGMT_EVT_POP, 1);
		}
		sb_push_key(ls->sb, ls->s_evt, SB_DUT, ls->dops->now(ls->dut), dv[1], dv, sizeof(dv));	/* per element */
	} else if (!rc) {
		ls->rops->mgmt_write(ls->ref, HCA_MGMT_EVT_POP, 1);	/* a pop of two empty FIFOs */
	}
	/* DUT empty, reference not: the reference keeps its event for the DUT to catch up */
}

static void note_ctx(struct lockstep *ls, uint32_t cmd)
{
	unsigned int type = (unsigned int)HCA_FIELD_GET(cmd, HCA_MGMT_CTX_CMD_TYPE);
	uint32_t idx = (uint32_t)HCA_FIELD_GET(cmd, HCA_MGMT_CTX_CMD_INDEX);

	if (HCA_FIELD_GET(cmd, HCA_MGMT_CTX_CMD_OP) != HCA_CTX_OP_WRITE)
		return;
	if (type == HCA_CTX_TYPE_QPC && idx < sizeof(ls->seen_qp))
		ls->seen_qp[idx] = 1;
	else if (type == HCA_CTX_TYPE_CQC && idx < sizeof(ls->seen_cq))
		ls->seen_cq[idx] = 1;
	else if (type == HCA_CTX_TYPE_EQC && idx < sizeof(ls->seen_eq))
		ls->seen_eq[idx] = 1;
	else if (type == HCA_CTX_TYPE_SRQC && idx < sizeof(ls->seen_srq))
		ls->seen_srq[idx] = 1;
}

static void ls_advance(struct hca_engine *e, uint64_t cycles);

/*
 * Before a context write: clock both engines until the DUT has produced
 * every transaction the reference has waiting, so that the write finds both
 * done with the work already given to them (docs/sim.md section 1, "Context
 * writes").  The untimed reference handled a received frame or a doorbell
 * at once; the DUT may still hold it in its queues, and would drop it there
 * if the write reset or destroyed its QP now -- a legitimate outcome of its
 * timing that the reference can no longer take.  Stops when the DUT goes
 * idle (the idle check then reports what it never produced), on a
 * divergence, or after LS_CATCH_UP_MAX cycles.
 */
static void catch_up(struct hca_engine *e)
{
	struct lockstep *ls = to_ls(e);
	uint64_t start = ls->dops->now(ls->dut), now = start;

	if (ls->catching_up)
		return;
	ls->catching_up = true;
	while (!ls->stopped && !sb_drained(ls->sb, SB_REF) && now - start < LS_CATCH_UP_MAX) {
		uint64_t next = ls->dops->next_event(ls->dut), n;

		if (next == UINT64_MAX)
			break;
		n = next > now ? next - now : 1;
		if (n > LS_CATCH_UP_MAX - (now - start))
			n = LS_CATCH_UP_MAX - (now - start);
		ls_advance(e, n);
		now = ls->dops->now(ls->dut);
	}
	if (now != start) {
		ls->ctx_waits++;
		ls->ctx_wait_cycles += now - start;
	}
	ls->catching_up = false;
}

static void ls_mgmt_write(struct hca_engine *e, uint32_t addr, uint32_t value)
{
	struct lockstep *ls = to_ls(e);

	if (addr == HCA_MGMT_CTX_CMD && HCA_FIELD_GET(value, HCA_MGMT_CTX_CMD_OP) == HCA_CTX_OP_WRITE)
		catch_up(e);
	ref_touch(ls);
	if (addr == HCA_MGMT_CTX_CMD) {
		ls->last_ctx_cmd = value;
		note_ctx(ls, value);
	}
	if (addr == HCA_MGMT_CTX_CMD || addr == HCA_MGMT_ENGINE_CTRL || ls->stopped)
		release_held(ls, true);
	if (ls->stopped) {
		ls->dops->mgmt_write(ls->dut, addr, value);
		return;
	}
	if (addr == HCA_MGMT_ENGINE_CTRL && (value & HCA_MGMT_ENGINE_CTRL_RESET_MASK)) {
		ls->flushed += sb_flush(ls->sb);	/* work in flight dies with the reset */
		ls_retx_reset(ls->retx);
	}
	if (addr == HCA_MGMT_EVT_POP)
		evt_pop(ls);
	else
		ls->rops->mgmt_write(ls->ref, addr, value);
	ls->dops->mgmt_write(ls->dut, addr, value);
	ls_regions_snoop_mgmt(&ls->rg, ls->rops, ls->ref, addr, value);
	if (addr == HCA_MGMT_ENGINE_CTRL && (value & HCA_MGMT_ENGINE_CTRL_RESET_MASK)) {
		memset(ls->seen_qp, 0, sizeof(ls->seen_qp));
		memset(ls->seen_cq, 0, sizeof(ls->seen_cq));
		memset(ls->seen_eq, 0, sizeof(ls->seen_eq));
		memset(ls->seen_srq, 0, sizeof(ls->seen_srq));
	}
	check(ls);
}

static void ls_rx_frame(struct hca_engine *e, const uint8_t *frame, size_t len)
{
	struct lockstep *ls = to_ls(e);

	if (!ls->stopped) {
		ref_touch(ls);
		ls->rops->rx_frame(ls->ref, frame, len);
		ls_retx_rx(ls->retx, frame, len);
	}
	ls->dops->rx_frame(ls->dut, frame, len);
}

static void ls_advance(struct hca_engine *e, uint64_t cycles)
{
	struct lockstep *ls = to_ls(e);

	release_held(ls, false);
	if (!ls->stopped)
		ref_advance(ls, cycles);
	ls->dops->advance(ls->dut, cycles);
	if (!ls->stopped && ls->idle_check) {
		bool idle = ls->dops->next_event(ls->dut) == UINT64_MAX;

		if (idle && !sb_drained(ls->sb, SB_REF))
			sb_check_end(ls->sb, ls->dops->now(ls->dut), "the DUT went idle", true);
		ls_retx_check(ls->retx, ls->sb, ls->dops->now(ls->dut), idle);
	}
	check(ls);
	release_held(ls, ls->stopped);
}

static uint64_t ls_now(struct hca_engine *e)
{
	struct lockstep *ls = to_ls(e);

	return ls->dops->now(ls->dut);
}

static uint64_t ls_next_event(struct hca_engine *e)
{
	struct lockstep *ls = to_ls(e);
	uint64_t d = ls->dops->next_event(ls->dut), r;

	if (ls->stopped)
		return d;
	r = ref_next_event(ls);
	if (r < d)
		d = r;
	if (ls->nheld && d > ls->dops->now(ls->dut) + 1)
		d = ls->dops->now(ls->dut) + 1;	/* held doorbells are delivered at an advance */
	return d;
}

static int ls_fw_irq(struct hca_engine *e)
{
	struct lockstep *ls = to_ls(e);

	return ls->dops->fw_irq(ls->dut);
}

static const char *ls_last_error(struct hca_engine *e)
{
	struct lockstep *ls = to_ls(e);

	if (ls->err[0])
		return ls->err;
	return ls->dops->last_error ? ls->dops->last_error(ls->dut) : "";
}

const struct hca_engine_ops hca_lockstep_engine_ops = {
	.name = "lockstep",
	.create = ls_create,
	.destroy = ls_destroy,
	.bar0_read = ls_bar0_read,
	.bar0_write = ls_bar0_write,
	.mgmt_read = ls_mgmt_read,
	.mgmt_write = ls_mgmt_write,
	.rx_frame = ls_rx_frame,
	.advance = ls_advance,
	.now = ls_now,
	.next_event = ls_next_event,
	.fw_irq = ls_fw_irq,
	.last_error = ls_last_error,
};

void hca_lockstep_engine_register(void)
{
	hca_engine_register(&hca_lockstep_engine_ops);
}

__attribute__((constructor)) static void lockstep_ctor(void)
{
	hca_lockstep_engine_register();
}

/* Test and tool API ----------------------------------------------------------- */

static struct lockstep *find(struct hca_engine *e)
{
	struct lockstep *r = NULL;

	pthread_mutex_lock(&live_lock);
	for (struct lockstep *p = live; p; p = p->next)
		if ((void *)p == (void *)e) {
			r = p;
			break;
		}
	pthread_mutex_unlock(&live_lock);
	return r;
}

bool lockstep_is(struct hca_engine *e)
{
	return find(e) != NULL;
}

const struct sb_divergence *lockstep_divergence(struct hca_engine *e)
{
	struct lockstep *ls = find(e);

	return ls ? sb_divergence(ls->sb) : NULL;
}

/* Read context `type`/`idx` of one engine into buf (CTX_OP_READ). */
static uint32_t ctx_read(const struct hca_engine_ops *ops, struct hca_engine *e, unsigned int type, uint32_t idx,
			 uint32_t *w)
{
	ops->mgmt_write(e, HCA_MGMT_CTX_CMD, HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_OP, HCA_CTX_OP_READ) |
						    HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_TYPE, type) |
						    HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_INDEX, idx));
	for (unsigned int i = 0; i < HCA_MGMT_CTX_DATA_WORDS; i++)
		w[i] = ops->mgmt_read(e, HCA_MGMT_CTX_DATA + 4 * i);
	return ops->mgmt_read(e, HCA_MGMT_CTX_STATUS);
}

/* Final state: status words of every context written, and the counters. */
static void final_state(struct lockstep *ls)
{
	static const struct {
		unsigned int type;
		const char *name;
		unsigned int lo, hi;
	} kinds[] = {
		{ HCA_CTX_TYPE_QPC, "QPC", HCA_QPC_CUR_STATE_OFF, 0xA0 },
		{ HCA_CTX_TYPE_CQC, "CQC", HCA_CQC_PI_OFF, 0x30 },
		{ HCA_CTX_TYPE_EQC, "EQC", HCA_EQC_PI_OFF, 0x30 },
		{ HCA_CTX_TYPE_SRQC, "SRQC", HCA_SRQC_PI_OFF, 0x30 },
	};
	uint64_t cyc = ls->dops->now(ls->dut);
	uint32_t rw[HCA_MGMT_CTX_DATA_WORDS], dw[HCA_MGMT_CTX_DATA_WORDS];
	char what[64];

	for (unsigned int s = 0; s < HCA_STAT_COUNT && !sb_failed(ls->sb); s++) {
		snprintf(what, sizeof(what), "MGMT.STAT[%u]", s);
		sb_compare_value(ls->sb, "final-state", cyc, what,
				 stat_compared(ls, SB_REF, HCA_MGMT_STAT_BASE + 4 * s,
					       ls->rops->mgmt_read(ls->ref, HCA_MGMT_STAT_BASE + 4 * s)),
				 stat_compared(ls, SB_DUT, HCA_MGMT_STAT_BASE + 4 * s,
					       ls->dops->mgmt_read(ls->dut, HCA_MGMT_STAT_BASE + 4 * s)),
				 "counters must agree once both engines are idle (TX_FRAMES and TX_BYTES "
				 "without the retransmitted frames)");
	}
	for (unsigned int k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		const uint8_t *seen = kinds[k].type == HCA_CTX_TYPE_QPC   ? ls->seen_qp
				      : kinds[k].type == HCA_CTX_TYPE_CQC ? ls->seen_cq
				      : kinds[k].type == HCA_CTX_TYPE_EQC ? ls->seen_eq
									  : ls->seen_srq;
		unsigned int n = kinds[k].type == HCA_CTX_TYPE_QPC   ? sizeof(ls->seen_qp)
				 : kinds[k].type == HCA_CTX_TYPE_CQC ? sizeof(ls->seen_cq)
				 : kinds[k].type == HCA_CTX_TYPE_EQC ? sizeof(ls->seen_eq)
								     : sizeof(ls->seen_srq);

		for (unsigned int i = 0; i < n && !sb_failed(ls->sb); i++) {
			if (!seen[i])
				continue;
			ctx_read(ls->rops, ls->ref, kinds[k].type, i, rw);
			ctx_read(ls->dops, ls->dut, kinds[k].type, i, dw);
			for (unsigned int off = kinds[k].lo & ~3u; off < kinds[k].hi && !sb_failed(ls->sb); off += 4) {
				snprintf(what, sizeof(what), "%s[%u] status byte 0x%02x", kinds[k].name, i, off);
				sb_compare_value(ls->sb, "final-state", cyc, what, rw[off / 4], dw[off / 4],
						 "context status words must agree once both engines are idle");
			}
		}
	}
}

bool lockstep_finish(struct hca_engine *e, const char *why)
{
	struct lockstep *ls = find(e);

	if (!ls)
		return false;
	if (!ls->stopped) {
		ref_touch(ls);
		sb_check_end(ls->sb, ls->dops->now(ls->dut), why ? why : "end of test", false);
		ls_retx_check(ls->retx, ls->sb, ls->dops->now(ls->dut), true);
		if (!sb_failed(ls->sb) && both_idle(ls))
			final_state(ls);
		check(ls);
	}
	return !sb_failed(ls->sb);
}

int lockstep_get_stats(struct hca_engine *e, struct lockstep_stats *st)
{
	struct lockstep *ls = find(e);

	if (!ls)
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->frames = sb_matched(ls->sb, SB_MSG, "tx");
	st->irqs = sb_matched(ls->sb, SB_MSG, "irq");
	st->events = sb_matched(ls->sb, SB_MSG, "evt");
	st->dma_bytes = sb_matched(ls->sb, SB_DMA, NULL) + sb_matched(ls->sb, SB_ENTRY, NULL);
	st->cqe_bytes = sb_matched(ls->sb, SB_ENTRY, "cq");
	st->eqe_bytes = sb_matched(ls->sb, SB_ENTRY, "eq");
	st->reads_compared = sb_values_compared(ls->sb);
	st->reads_skipped = ls->reads_skipped;
	st->arms_held = ls->arms_held;
	st->ctx_waits = ls->ctx_waits;
	st->ctx_wait_cycles = ls->ctx_wait_cycles;
	st->diverged = sb_failed(ls->sb);
	return 0;
}

struct sb *lockstep_scoreboard(struct hca_engine *e)
{
	struct lockstep *ls = find(e);

	return ls ? ls->sb : NULL;
}

struct hca_engine *lockstep_dut(struct hca_engine *e, const struct hca_engine_ops **ops)
{
	struct lockstep *ls = find(e);

	if (ops)
		*ops = ls ? ls->dops : NULL;
	return ls ? ls->dut : NULL;
}

struct hca_engine *lockstep_ref(struct hca_engine *e, const struct hca_engine_ops **ops)
{
	struct lockstep *ls = find(e);

	if (ls) {
		/* the caller may drive the reference directly: no lag from here on */
		ref_touch(ls);
		ls->lazy = false;
	}
	if (ops)
		*ops = ls ? ls->rops : NULL;
	return ls ? ls->ref : NULL;
}
