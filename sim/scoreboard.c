// SPDX-License-Identifier: MIT
/*
 * Per-stream transaction scoreboard (sim/scoreboard.h): queues per stream
 * and side, in-order matching, the first-divergence report, leftovers, and
 * the reference's memory overlay.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcasim/hca_spec.h"
#include "scoreboard.h"
#include "scoreboard_fmt.h"

#define SB_HIST 8	/* matched transactions kept per side for report context */

struct txn {
	uint64_t cycle;
	uint64_t seq;		/* index of this transaction in its side's stream */
	uint64_t addr, base;	/* DMA */
	size_t len, off;	/* off: DMA bytes already matched */
	uint64_t key;		/* SB_MSG: order is kept among transactions of one key */
	bool done;		/* SB_MSG: matched, waiting to reach the queue head */
	uint8_t *data;
};

struct queue {
	struct txn *v;
	size_t head, count, cap;
};

/* SB_ENTRY: a ring slot being written, and the ring position of a completed entry. */
struct partial {
	uint64_t slot, base;
	uint64_t have;		/* bit i: byte i written */
	uint8_t data[32];
};

struct pos {
	uint64_t slot, cycle;
	uint8_t owner;
};

struct stream {
	char name[32];
	char what[96];
	enum sb_kind kind;
	enum sb_fmt fmt;
	struct queue q[2];
	struct txn hist[2][SB_HIST];	/* ring of matched transactions, newest at hist_pos-1 */
	unsigned int hist_n[2], hist_pos[2];
	uint64_t pushed[2];
	uint64_t matched;		/* MSG: transactions, DMA: bytes */
	uint64_t last_match_cycle;
	bool any_match;
	/* SB_ENTRY */
	unsigned int esz;
	struct partial *part[2];
	size_t npart[2], cappart[2];
	struct pos *pos[2];
	size_t pos_head[2], pos_count[2], pos_cap[2];
};

struct sb {
	char label[64];
	bool ref_leads;
	struct stream *s;
	unsigned int n, cap;
	bool failed;
	struct sb_divergence div;
	struct sb_str report;
	uint64_t values;
	uint64_t ref_dma_pending;	/* bytes of unmatched reference DMA writes (overlay fast path) */
};

static const char *side_name[2] = { "ref", "dut" };

/* Queues ---------------------------------------------------------------- */

static struct txn *q_at(struct queue *q, size_t i)
{
	return &q->v[(q->head + i) % q->cap];
}

static const struct txn *q_cat(const struct queue *q, size_t i)
{
	return &q->v[(q->head + i) % q->cap];
}

static struct txn *q_push(struct queue *q)
{
	if (q->count == q->cap) {
		size_t ncap = q->cap ? q->cap * 2 : 16;
		struct txn *nv = malloc(ncap * sizeof(*nv));

		if (!nv)
			return NULL;
		for (size_t i = 0; i < q->count; i++)
			nv[i] = *q_at(q, i);
		free(q->v);
		q->v = nv;
		q->cap = ncap;
		q->head = 0;
	}
	q->count++;
	return q_at(q, q->count - 1);
}

/* Retire the head transaction of `side` into the history ring. */
static void q_retire(struct stream *s, int side)
{
	struct queue *q = &s->q[side];
	struct txn *t = q_at(q, 0);
	struct txn *h = &s->hist[side][s->hist_pos[side]];

	free(h->data);
	*h = *t;
	s->hist_pos[side] = (s->hist_pos[side] + 1) % SB_HIST;
	if (s->hist_n[side] < SB_HIST)
		s->hist_n[side]++;
	q->head = (q->head + 1) % q->cap;
	q->count--;
}

/* Retire matched transactions that reached the head of the queue. */
static void retire_done(struct stream *s, int side)
{
	while (s->q[side].count && q_at(&s->q[side], 0)->done)
		q_retire(s, side);
}

/* Transactions still waiting (not matched) on a side. */
static size_t waiting(const struct stream *s, int side)
{
	size_t n = 0;

	for (size_t i = 0; i < s->q[side].count; i++)
		n += !q_cat(&s->q[side], i)->done;
	return n;
}

/* Oldest waiting transaction of a side, with key `key` (any key when !by_key). */
static struct txn *oldest(struct stream *s, int side, bool by_key, uint64_t key)
{
	for (size_t i = 0; i < s->q[side].count; i++) {
		struct txn *t = q_at(&s->q[side], i);

		if (!t->done && (!by_key || t->key == key))
			return t;
	}
	return NULL;
}

/* i-th newest history entry (0 = newest), or NULL. */
static const struct txn *hist_get(const struct stream *s, int side, unsigned int i)
{
	if (i >= s->hist_n[side])
		return NULL;
	return &s->hist[side][(s->hist_pos[side] + SB_HIST - 1 - i) % SB_HIST];
}

/* Create / destroy --------------------------------------------------------- */

struct sb *sb_create(const char *label)
{
	struct sb *sb = calloc(1, sizeof(*sb));

	if (!sb)
		return NULL;
	sb_set_label(sb, label);
	return sb;
}

void sb_set_label(struct sb *sb, const char *label)
{
	snprintf(sb->label, sizeof(sb->label), "%s", label ? label : "device");
}

void sb_set_ref_leads(struct sb *sb, bool on)
{
	sb->ref_leads = on;
}

void sb_destroy(struct sb *sb)
{
	if (!sb)
		return;
	for (unsigned int i = 0; i < sb->n; i++) {
		struct stream *s = &sb->s[i];

		for (int side = 0; side < 2; side++) {
			for (size_t k = 0; k < s->q[side].count; k++)
				free(q_at(&s->q[side], k)->data);
			free(s->q[side].v);
			for (unsigned int k = 0; k < SB_HIST; k++)
				free(s->hist[side][k].data);
			free(s->part[side]);
			free(s->pos[side]);
		}
	}
	free(sb->s);
	sbs_free(&sb->report);
	free(sb);
}

int sb_stream(struct sb *sb, const char *name, enum sb_kind kind, enum sb_fmt fmt, const char *what)
{
	struct stream *s;

	for (unsigned int i = 0; i < sb->n; i++)
		if (strcmp(sb->s[i].name, name) == 0)
			return (int)i;
	if (strlen(name) >= sizeof(s->name))
		return -1;
	if (sb->n == sb->cap) {
		unsigned int ncap = sb->cap ? sb->cap * 2 : 16;
		struct stream *ns = realloc(sb->s, ncap * sizeof(*ns));

		if (!ns)
			return -1;
		sb->s = ns;
		sb->cap = ncap;
	}
	s = &sb->s[sb->n];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->what, sizeof(s->what), "%s", what ? what : "");
	s->kind = kind;
	s->fmt = fmt;
	s->esz = fmt == SB_FMT_CQE ? HCA_CQE_SIZE : fmt == SB_FMT_EQE ? HCA_EQE_SIZE : 0;
	if (kind == SB_ENTRY && !s->esz)
		return -1;
	return (int)sb->n++;
}

/* Reports ------------------------------------------------------------------ */

static void rep_begin(struct sb *sb, const struct stream *s, const char *stream_name, const char *field,
		      uint64_t cycle, uint64_t ref_cycle, uint64_t dut_cycle, uint64_t index)
{
	struct sb_divergence *d = &sb->div;

	sb->failed = true;
	memset(d, 0, sizeof(*d));
	snprintf(d->stream, sizeof(d->stream), "%s", s ? s->name : stream_name);
	snprintf(d->field, sizeof(d->field), "%s", field);
	d->cycle = cycle;
	d->ref_cycle = ref_cycle;
	d->dut_cycle = dut_cycle;
	d->index = index;
	sbs_printf(&sb->report,
		   "==== lockstep: FIRST DIVERGENCE =============================================\n");
	sbs_printf(&sb->report, "  where : %s, stream %s%s%s%s\n", sb->label, d->stream,
		   s && s->what[0] ? " (" : "", s ? s->what : "", s && s->what[0] ? ")" : "");
	sbs_printf(&sb->report, "  when  : DUT cycle %llu", (unsigned long long)cycle);
	if (ref_cycle != UINT64_MAX)
		sbs_printf(&sb->report, "; reference side produced at cycle %llu", (unsigned long long)ref_cycle);
	if (dut_cycle != UINT64_MAX)
		sbs_printf(&sb->report, "; DUT side at cycle %llu", (unsigned long long)dut_cycle);
	sbs_printf(&sb->report, "\n");
	if (s) {
		if (s->kind == SB_MSG)
			sbs_printf(&sb->report, "  before: %llu transactions of this stream matched",
				   (unsigned long long)s->matched);
		else if (s->kind == SB_ENTRY)
			sbs_printf(&sb->report, "  before: %llu entries of this ring matched",
				   (unsigned long long)(s->matched / s->esz));
		else
			sbs_printf(&sb->report, "  before: %llu bytes of this stream matched",
				   (unsigned long long)s->matched);
		if (s->any_match)
			sbs_printf(&sb->report, " (last match at DUT cycle %llu)",
				   (unsigned long long)s->last_match_cycle);
		sbs_printf(&sb->report, "\n");
	}
}

static void set_summary(struct sb *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_summary(struct sb *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sb->div.summary, sizeof(sb->div.summary), fmt, ap);
	va_end(ap);
}

static void rep_end(struct sb *sb)
{
	sbs_printf(&sb->report,
		   "=============================================================================\n");
	sb->div.report = sbs_cstr(&sb->report);
}

static void rep_txn(struct sb *sb, const struct stream *s, int side, const struct txn *t, const char *tag)
{
	sbs_printf(&sb->report, "  %s   : ", side_name[side]);
	if (!t) {
		sbs_printf(&sb->report, "(nothing)\n");
		return;
	}
	sbs_printf(&sb->report, "#%llu @%llu ", (unsigned long long)t->seq, (unsigned long long)t->cycle);
	sbf_describe(&sb->report, s->fmt, t->data, t->len, t->addr, t->base);
	if (tag)
		sbs_printf(&sb->report, "  %s", tag);
	sbs_printf(&sb->report, "\n");
}

static void rep_last_match(struct sb *sb, const struct stream *s)
{
	const struct txn *h = hist_get(s, SB_DUT, 0);

	if (!h)
		return;
	sbs_printf(&sb->report, "  last matched DUT transaction: #%llu @%llu ", (unsigned long long)h->seq,
		   (unsigned long long)h->cycle);
	sbf_describe(&sb->report, s->fmt, h->data, h->len, h->addr, h->base);
	sbs_printf(&sb->report, "\n");
}

/*
 * Byte at `addr` as `side` wrote it, from its waiting transactions (oldest
 * first) or, failing that, its recently matched ones (newest first).
 */
static bool byte_at(const struct stream *s, int side, uint64_t addr, uint8_t *out)
{
	const struct queue *q = &s->q[side];

	for (size_t i = 0; i < q->count; i++) {
		const struct txn *t = q_cat(q, i);

		if (addr >= t->addr && addr - t->addr < t->len) {
			*out = t->data[addr - t->addr];
			return true;
		}
	}
	for (unsigned int i = 0; i < SB_HIST; i++) {
		const struct txn *t = hist_get(s, side, i);

		if (t && addr >= t->addr && addr - t->addr < t->len) {
			*out = t->data[addr - t->addr];
			return true;
		}
	}
	return false;
}

static bool gather(const struct stream *s, int side, uint64_t addr, size_t len, uint8_t *buf, bool *have)
{
	bool all = true;

	for (size_t i = 0; i < len; i++) {
		have[i] = byte_at(s, side, addr + i, &buf[i]);
		if (!have[i]) {
			buf[i] = 0;
			all = false;
		}
	}
	return all;
}

static const char *region_name(const struct stream *s)
{
	return s->name;
}

/* Bytes around `addr` as both sides wrote them. */
static void rep_mem_window(struct sb *sb, const struct stream *s, uint64_t addr)
{
	uint8_t a[64], b[64];
	bool ha[64], hb[64];
	uint64_t start = (addr & ~(uint64_t)15) >= 16 ? (addr & ~(uint64_t)15) - 16 : 0;

	gather(s, SB_REF, start, 64, a, ha);
	gather(s, SB_DUT, start, 64, b, hb);
	sbs_printf(&sb->report, "    memory as each side wrote it (-- = not written by that side recently):\n");
	sbf_hex_pair_mask(&sb->report, start, a, ha, b, hb, 48, (size_t)(addr - start));
}

static size_t entry_size(const struct stream *s)
{
	return s->fmt == SB_FMT_CQE ? HCA_CQE_SIZE : s->fmt == SB_FMT_EQE ? HCA_EQE_SIZE : 0;
}

/* DMA divergence at the current heads: `k` bytes into the unmatched parts. */
static void diverge_dma(struct sb *sb, struct stream *s, uint64_t cycle, size_t k, bool addr_mismatch)
{
	struct txn *a = q_at(&s->q[SB_REF], 0), *b = q_at(&s->q[SB_DUT], 0);
	uint64_t aa = a->addr + a->off + k, ba = b->addr + b->off + k;
	size_t es = entry_size(s);
	struct sbf_first first;
	char what[200];

	memset(&first, 0, sizeof(first));
	if (addr_mismatch) {
		snprintf(first.field, sizeof(first.field), "addr");
		snprintf(first.values, sizeof(first.values), "ref 0x%llx (%s+0x%llx), dut 0x%llx (%s+0x%llx)",
			 (unsigned long long)aa, region_name(s), (unsigned long long)(aa - a->base),
			 (unsigned long long)ba, region_name(s), (unsigned long long)(ba - b->base));
	}
	rep_begin(sb, s, NULL, "", cycle, a->cycle, b->cycle, b->seq);
	if (addr_mismatch) {
		sbs_printf(&sb->report, "  what  : the next byte of the stream goes to a different address "
					"(order or address differs)\n");
		sbs_printf(&sb->report, "          ref writes 0x%llx (%s+0x%llx), DUT wrote 0x%llx (%s+0x%llx)\n",
			   (unsigned long long)aa, region_name(s), (unsigned long long)(aa - a->base),
			   (unsigned long long)ba, region_name(s), (unsigned long long)(ba - b->base));
	}
	rep_txn(sb, s, SB_REF, a, a->off + k ? "(partly matched)" : NULL);
	rep_txn(sb, s, SB_DUT, b, b->off + k ? "(partly matched)" : NULL);
	if (!addr_mismatch) {
		sbs_printf(&sb->report, "  what  : byte 0x%llx (%s+0x%llx) differs: ref 0x%02x, dut 0x%02x\n",
			   (unsigned long long)aa, region_name(s), (unsigned long long)(aa - a->base),
			   a->data[a->off + k], b->data[b->off + k]);
		snprintf(first.field, sizeof(first.field), "data");
		snprintf(first.values, sizeof(first.values), "ref 0x%02x, dut 0x%02x at 0x%llx (%s+0x%llx)",
			 a->data[a->off + k], b->data[b->off + k], (unsigned long long)aa, region_name(s),
			 (unsigned long long)(aa - a->base));
	}
	if (es) {
		/* decode the entry (or both entries) the divergence falls into */
		uint64_t ea = a->base + (aa - a->base) / es * es, eb = b->base + (ba - b->base) / es * es;
		uint8_t ra[32], rb[32];
		bool ha[32], hb[32];
		struct sbf_first ef;

		gather(s, SB_REF, ea, es, ra, ha);
		gather(s, SB_DUT, eb, es, rb, hb);
		sbs_printf(&sb->report, "  diff  : %s entry %llu at 0x%llx (ref) / entry %llu at 0x%llx (dut)\n",
			   s->fmt == SB_FMT_CQE ? "CQE" : "EQE", (unsigned long long)((ea - a->base) / es),
			   (unsigned long long)ea, (unsigned long long)((eb - b->base) / es), (unsigned long long)eb);
		sbf_diff_entry(&sb->report, s->fmt, ra, ha, rb, hb, &ef);
		if (!addr_mismatch && ef.field[0])
			first = ef;
		rep_mem_window(sb, s, aa);
	} else if (!addr_mismatch) {
		rep_mem_window(sb, s, aa);
	} else {
		sbs_printf(&sb->report, "    at the reference's address:\n");
		rep_mem_window(sb, s, aa);
		sbs_printf(&sb->report, "    at the DUT's address:\n");
		rep_mem_window(sb, s, ba);
	}
	rep_last_match(sb, s);
	snprintf(sb->div.field, sizeof(sb->div.field), "%s", first.field);
	snprintf(what, sizeof(what), "%s", first.values);
	set_summary(sb, "%s: stream %s diverges at DUT cycle %llu: %s (%s)",
		 sb->label, s->name, (unsigned long long)cycle, first.field, what);
	sbs_printf(&sb->report, "  first : %s: %s\n", first.field, what);
	rep_end(sb);
}

static void diverge_msg(struct sb *sb, struct stream *s, uint64_t cycle, const struct txn *a, const struct txn *b,
			const char *note)
{
	struct sbf_first first;

	memset(&first, 0, sizeof(first));
	rep_begin(sb, s, NULL, "", cycle, a->cycle, b->cycle, b->seq);
	if (note)
		sbs_printf(&sb->report, "  note  : %s\n", note);
	rep_txn(sb, s, SB_REF, a, NULL);
	rep_txn(sb, s, SB_DUT, b, NULL);
	sbs_printf(&sb->report, "  diff  :\n");
	if (s->fmt == SB_FMT_FRAME) {
		sbf_diff_frame(&sb->report, a->data, a->len, b->data, b->len, &first);
	} else if ((s->fmt == SB_FMT_CQE || s->fmt == SB_FMT_EQE) && a->len == s->esz && b->len == s->esz) {
		sbf_diff_entry(&sb->report, s->fmt, a->data, NULL, b->data, NULL, &first);
	} else if (s->fmt == SB_FMT_IRQ) {
		uint32_t va = 0, vb = 0;

		memcpy(&va, a->data, a->len < 4 ? a->len : 4);
		memcpy(&vb, b->data, b->len < 4 ? b->len : 4);
		snprintf(first.field, sizeof(first.field), "vector");
		snprintf(first.values, sizeof(first.values), "ref %u, dut %u", va, vb);
		sbs_printf(&sb->report, "  * vector   ref %u   dut %u\n", va, vb);
	} else if (s->fmt == SB_FMT_EVENT) {
		uint32_t va[2] = { 0, 0 }, vb[2] = { 0, 0 };

		memcpy(va, a->data, a->len < 8 ? a->len : 8);
		memcpy(vb, b->data, b->len < 8 ? b->len : 8);
		snprintf(first.field, sizeof(first.field), "%s", va[0] != vb[0] ? "type" : "element");
		snprintf(first.values, sizeof(first.values), "ref %s/0x%x, dut %s/0x%x", hca_event_type_name(va[0]), va[1],
			 hca_event_type_name(vb[0]), vb[1]);
		sbs_printf(&sb->report, "  %s type     ref %u %s   dut %u %s\n", va[0] != vb[0] ? "*" : " ", va[0],
			   hca_event_type_name(va[0]), vb[0], hca_event_type_name(vb[0]));
		sbs_printf(&sb->report, "  %s element  ref 0x%x   dut 0x%x\n", va[1] != vb[1] ? "*" : " ", va[1], vb[1]);
	} else {
		size_t n = a->len < b->len ? a->len : b->len, i;

		for (i = 0; i < n && a->data[i] == b->data[i]; i++)
			;
		snprintf(first.field, sizeof(first.field), "byte %zu", i);
		snprintf(first.values, sizeof(first.values), "lengths %zu/%zu", a->len, b->len);
		sbf_hex_pair(&sb->report, 0, a->data, a->len, b->data, b->len, i);
	}
	rep_last_match(sb, s);
	snprintf(sb->div.field, sizeof(sb->div.field), "%s", first.field);
	set_summary(sb, "%s: stream %s diverges at DUT cycle %llu: %s (%s)",
		 sb->label, s->name, (unsigned long long)cycle, first.field, first.values);
	sbs_printf(&sb->report, "  first : %s: %s\n", first.field, first.values);
	rep_end(sb);
}

/* The DUT produced `t` (from its byte `off` on) and the reference nothing. */
static void diverge_extra(struct sb *sb, struct stream *s, uint64_t cycle, const struct txn *t)
{
	char d[200];
	struct sb_str tmp = { 0 };

	rep_begin(sb, s, NULL, "extra", cycle, UINT64_MAX, t->cycle, t->seq);
	sbs_printf(&sb->report, "  what  : the DUT produced a transaction the reference did not "
				"(the reference runs ahead and had nothing more in this stream)\n");
	rep_txn(sb, s, SB_REF, NULL, NULL);
	rep_txn(sb, s, SB_DUT, t, t->off ? "(partly matched)" : NULL);
	if (s->kind == SB_DMA)
		sbs_printf(&sb->report, "          unmatched from byte %zu (address 0x%llx)\n", t->off,
			   (unsigned long long)(t->addr + t->off));
	rep_last_match(sb, s);
	sbf_describe(&tmp, s->fmt, t->data, t->len, t->addr, t->base);
	snprintf(d, sizeof(d), "%s", sbs_cstr(&tmp));
	sbs_free(&tmp);
	set_summary(sb,
		 "%s: stream %s diverges at DUT cycle %llu: extra DUT transaction #%llu (%s)", sb->label, s->name,
		 (unsigned long long)cycle, (unsigned long long)t->seq, d);
	sbs_printf(&sb->report, "  first : extra: DUT #%llu %s\n", (unsigned long long)t->seq, d);
	rep_end(sb);
}

/* Matching -------------------------------------------------------------- */

/* Equal transactions (entries: the owner bit is checked by ring position instead). */
static bool same(const struct stream *s, const struct txn *a, const struct txn *b)
{
	if (a->len != b->len)
		return false;
	if (s->kind != SB_ENTRY || a->len != s->esz)
		return memcmp(a->data, b->data, a->len) == 0;
	return memcmp(a->data, b->data, s->esz - 1) == 0 &&
	       ((a->data[s->esz - 1] ^ b->data[s->esz - 1]) & 0xfe) == 0;
}

/*
 * Message streams: a new transaction is matched with the oldest waiting
 * transaction of the same key on the other side (one key: plain FIFO).
 */
static void match_msg(struct sb *sb, struct stream *s, uint64_t cycle, enum sb_side side, struct txn *t)
{
	int other = 1 - side;
	struct txn *o = oldest(s, other, true, t->key);
	const struct txn *a, *b;

	if (!o) {
		if (side != SB_DUT || !sb->ref_leads)
			return;	/* waits for the other side */
		o = oldest(s, SB_REF, false, 0);
		if (!o)
			return;	/* extra: reported by the caller */
		diverge_msg(sb, s, cycle, o, t,
			    "the reference has nothing waiting with this transaction's key (QP/class, vector or element); "
			    "compared with its oldest waiting transaction");
		return;
	}
	a = side == SB_REF ? t : o;
	b = side == SB_REF ? o : t;
	if (!same(s, a, b)) {
		diverge_msg(sb, s, cycle, a, b, NULL);
		return;
	}
	t->done = o->done = true;
	s->matched += s->kind == SB_ENTRY ? s->esz : 1;
	if (s->kind == SB_ENTRY)
		sb->ref_dma_pending -= s->esz;
	s->last_match_cycle = b->cycle;
	s->any_match = true;
	retire_done(s, SB_REF);
	retire_done(s, SB_DUT);
}

static void match(struct sb *sb, struct stream *s, uint64_t cycle)
{
	struct queue *qa = &s->q[SB_REF], *qb = &s->q[SB_DUT];

	while (!sb->failed && qa->count && qb->count) {
		struct txn *a = q_at(qa, 0), *b = q_at(qb, 0);

		if (a->addr + a->off != b->addr + b->off) {
			diverge_dma(sb, s, cycle, 0, true);
			return;
		}
		size_t n = a->len - a->off < b->len - b->off ? a->len - a->off : b->len - b->off;

		if (memcmp(a->data + a->off, b->data + b->off, n) != 0) {
			size_t k = 0;

			while (a->data[a->off + k] == b->data[b->off + k])
				k++;
			diverge_dma(sb, s, cycle, k, false);
			return;
		}
		a->off += n;
		b->off += n;
		s->matched += n;
		sb->ref_dma_pending -= n;
		s->last_match_cycle = b->cycle;
		s->any_match = true;
		if (a->off == a->len)
			q_retire(s, SB_REF);
		if (b->off == b->len)
			q_retire(s, SB_DUT);
	}
}

static bool push(struct sb *sb, int id, enum sb_side side, uint64_t cycle, uint64_t addr, uint64_t base,
		 uint64_t key, const void *data, size_t len)
{
	struct stream *s;
	struct txn *t;

	if (id < 0 || (unsigned int)id >= sb->n || len == 0)
		return !sb->failed;
	if (sb->failed)
		return false;
	s = &sb->s[id];
	t = q_push(&s->q[side]);
	if (!t) {
		sb_fail(sb, s->name, "internal", cycle, "scoreboard: out of memory\n");
		return false;
	}
	memset(t, 0, sizeof(*t));
	t->data = malloc(len);
	if (!t->data) {
		s->q[side].count--;
		sb_fail(sb, s->name, "internal", cycle, "scoreboard: out of memory\n");
		return false;
	}
	memcpy(t->data, data, len);
	t->len = len;
	t->cycle = cycle;
	t->addr = addr;
	t->base = base;
	t->seq = s->pushed[side]++;
	t->key = key;
	if (s->kind != SB_DMA) {
		match_msg(sb, s, cycle, side, t);
		if (!sb->failed && side == SB_DUT && sb->ref_leads && !t->done)
			diverge_extra(sb, s, cycle, t);
		return !sb->failed;
	}
	if (side == SB_REF)
		sb->ref_dma_pending += len;
	match(sb, s, cycle);
	if (!sb->failed && side == SB_DUT && sb->ref_leads && s->q[SB_DUT].count)
		diverge_extra(sb, s, cycle, q_at(&s->q[SB_DUT], 0));
	return !sb->failed;
}

/* Entries --------------------------------------------------------------- */

static uint64_t entry_key(const struct stream *s, const uint8_t *e)
{
	if (s->fmt == SB_FMT_CQE) {
		struct hca_cqe c;

		memcpy(&c, e, sizeof(c));
		return (uint64_t)c.qpn << 1 | (c.opcode >> 7);	/* receive opcodes are >= 128 */
	} else {
		struct hca_eqe q;

		memcpy(&q, e, sizeof(q));
		return (uint64_t)q.type << 40 | (uint64_t)(q.type == HCA_EQE_TYPE_ASYNC ? q.subtype : 0) << 32 | q.element;
	}
}

static void diverge_pos(struct sb *sb, struct stream *s, uint64_t cycle, uint64_t k, const struct pos *pr,
			const struct pos *pd)
{
	bool slot = pr->slot != pd->slot;

	rep_begin(sb, s, NULL, slot ? "addr" : "owner", cycle, pr->cycle, pd->cycle, k);
	if (slot)
		sbs_printf(&sb->report, "  what  : entry #%llu of the ring went to slot %llu on the reference, slot %llu on the "
					"DUT (ring order: entries are written to consecutive slots)\n",
			   (unsigned long long)k, (unsigned long long)pr->slot, (unsigned long long)pd->slot);
	else
		sbs_printf(&sb->report, "  what  : entry #%llu (slot %llu) has owner bit %u on the reference, %u on the DUT "
					"(the phase of the ring pass)\n",
			   (unsigned long long)k, (unsigned long long)pr->slot, pr->owner & 1, pd->owner & 1);
	rep_last_match(sb, s);
	set_summary(sb, "%s: stream %s diverges at DUT cycle %llu: %s (entry #%llu: ref slot %llu owner %u, dut slot %llu owner %u)",
		    sb->label, s->name, (unsigned long long)cycle, slot ? "addr" : "owner", (unsigned long long)k,
		    (unsigned long long)pr->slot, pr->owner & 1, (unsigned long long)pd->slot, pd->owner & 1);
	sbs_printf(&sb->report, "  first : %s\n", slot ? "addr" : "owner");
	rep_end(sb);
}

static void pos_push(struct stream *s, int side, const struct pos *p)
{
	if (s->pos_count[side] == s->pos_cap[side]) {
		size_t ncap = s->pos_cap[side] ? s->pos_cap[side] * 2 : 16;
		struct pos *n = malloc(ncap * sizeof(*n));

		if (!n)
			return;
		for (size_t i = 0; i < s->pos_count[side]; i++)
			n[i] = s->pos[side][(s->pos_head[side] + i) % s->pos_cap[side]];
		free(s->pos[side]);
		s->pos[side] = n;
		s->pos_cap[side] = ncap;
		s->pos_head[side] = 0;
	}
	s->pos[side][(s->pos_head[side] + s->pos_count[side]++) % s->pos_cap[side]] = *p;
}

/* A completed entry of `side`: matched by key, then by ring position. */
static void entry_done(struct sb *sb, struct stream *s, enum sb_side side, uint64_t cycle, const struct partial *pp)
{
	struct pos p = { .slot = pp->slot, .cycle = cycle, .owner = pp->data[s->esz - 1] };
	struct txn *t = q_push(&s->q[side]);

	if (!t || !(t->data = malloc(s->esz))) {
		if (t)
			s->q[side].count--;
		sb_fail(sb, s->name, "internal", cycle, "scoreboard: out of memory\n");
		return;
	}
	memcpy(t->data, pp->data, s->esz);
	t->len = s->esz;
	t->off = 0;
	t->cycle = cycle;
	t->addr = pp->base + pp->slot * s->esz;
	t->base = pp->base;
	t->key = entry_key(s, pp->data);
	t->done = false;
	t->seq = s->pushed[side]++;
	if (side == SB_REF)
		sb->ref_dma_pending += s->esz;
	pos_push(s, side, &p);
	match_msg(sb, s, cycle, side, t);
	if (!sb->failed && side == SB_DUT && sb->ref_leads && !t->done) {
		diverge_extra(sb, s, cycle, t);
		return;
	}
	while (!sb->failed && s->pos_count[0] && s->pos_count[1]) {
		struct pos *a = &s->pos[0][s->pos_head[0]], *b = &s->pos[1][s->pos_head[1]];
		uint64_t k = s->pushed[SB_DUT] - s->pos_count[1];

		if (a->slot != b->slot || (a->owner & 1) != (b->owner & 1)) {
			diverge_pos(sb, s, cycle, k, a, b);
			return;
		}
		for (int i = 0; i < 2; i++) {
			s->pos_head[i] = (s->pos_head[i] + 1) % s->pos_cap[i];
			s->pos_count[i]--;
		}
	}
}

bool sb_push_entries(struct sb *sb, int id, enum sb_side side, uint64_t cycle, uint64_t addr, uint64_t base,
		     const void *data, size_t len)
{
	const uint8_t *p = data;
	struct stream *s;

	if (id < 0 || (unsigned int)id >= sb->n)
		return !sb->failed;
	s = &sb->s[id];
	if (s->kind != SB_ENTRY)
		return sb_push_dma(sb, id, side, cycle, addr, base, data, len);
	while (len && !sb->failed) {
		uint64_t slot = (addr - base) / s->esz, off = (addr - base) % s->esz;
		size_t n = s->esz - off < len ? (size_t)(s->esz - off) : len;
		struct partial *pp = NULL;
		uint64_t full = (s->esz == 64 ? ~0ull : (1ull << s->esz) - 1);

		for (size_t i = 0; i < s->npart[side]; i++)
			if (s->part[side][i].slot == slot && s->part[side][i].base == base)
				pp = &s->part[side][i];
		if (!pp) {
			if (s->npart[side] == s->cappart[side]) {
				size_t ncap = s->cappart[side] ? s->cappart[side] * 2 : 4;
				struct partial *np = realloc(s->part[side], ncap * sizeof(*np));

				if (!np) {
					sb_fail(sb, s->name, "internal", cycle, "scoreboard: out of memory\n");
					break;
				}
				s->part[side] = np;
				s->cappart[side] = ncap;
			}
			pp = &s->part[side][s->npart[side]++];
			memset(pp, 0, sizeof(*pp));
			pp->slot = slot;
			pp->base = base;
		}
		memcpy(pp->data + off, p, n);
		pp->have |= (n == 64 ? ~0ull : ((1ull << n) - 1)) << off;
		if (pp->have == full) {
			struct partial done = *pp;

			*pp = s->part[side][--s->npart[side]];
			entry_done(sb, s, side, cycle, &done);
		}
		addr += n;
		p += n;
		len -= n;
	}
	return !sb->failed;
}

bool sb_push(struct sb *sb, int stream, enum sb_side side, uint64_t cycle, const void *data, size_t len)
{
	return push(sb, stream, side, cycle, 0, 0, 0, data, len);
}

bool sb_push_key(struct sb *sb, int stream, enum sb_side side, uint64_t cycle, uint64_t key, const void *data,
		 size_t len)
{
	return push(sb, stream, side, cycle, 0, 0, key, data, len);
}

bool sb_push_dma(struct sb *sb, int stream, enum sb_side side, uint64_t cycle, uint64_t addr,
		 uint64_t base, const void *data, size_t len)
{
	return push(sb, stream, side, cycle, addr, base, 0, data, len);
}

bool sb_compare_value(struct sb *sb, const char *stream, uint64_t cycle, const char *what, uint64_t ref,
		      uint64_t dut, const char *detail)
{
	if (sb->failed)
		return false;
	sb->values++;
	if (ref == dut)
		return true;
	rep_begin(sb, NULL, stream, what, cycle, cycle, cycle, sb->values - 1);
	sbs_printf(&sb->report, "  what  : %s read returns different values\n", what);
	sbs_printf(&sb->report, "  ref   : 0x%08llx\n  dut   : 0x%08llx\n  xor   : 0x%08llx\n",
		   (unsigned long long)ref, (unsigned long long)dut, (unsigned long long)(ref ^ dut));
	if (detail && detail[0])
		sbs_printf(&sb->report, "  note  : %s\n", detail);
	set_summary(sb,
		 "%s: stream %s diverges at DUT cycle %llu: %s (ref 0x%llx, dut 0x%llx)", sb->label, stream,
		 (unsigned long long)cycle, what, (unsigned long long)ref, (unsigned long long)dut);
	sbs_printf(&sb->report, "  first : %s: ref 0x%llx, dut 0x%llx\n", what, (unsigned long long)ref,
		   (unsigned long long)dut);
	rep_end(sb);
	return false;
}

void sb_fail(struct sb *sb, const char *stream, const char *field, uint64_t cycle, const char *fmt, ...)
{
	va_list ap;
	char body[1024];

	if (sb->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(body, sizeof(body), fmt, ap);
	va_end(ap);
	rep_begin(sb, NULL, stream, field, cycle, UINT64_MAX, UINT64_MAX, 0);
	sbs_printf(&sb->report, "  what  : %s%s", body, body[0] && body[strlen(body) - 1] == '\n' ? "" : "\n");
	set_summary(sb, "%s: stream %s diverges at DUT cycle %llu: %s",
		 sb->label, stream, (unsigned long long)cycle, field);
	rep_end(sb);
}

void sb_fail_report(struct sb *sb, const char *stream, const char *field, uint64_t cycle, uint64_t ref_cycle,
		    uint64_t dut_cycle, const char *body, const char *values)
{
	if (sb->failed)
		return;
	rep_begin(sb, NULL, stream, field, cycle, ref_cycle, dut_cycle, 0);
	sbs_printf(&sb->report, "%s", body);
	sbs_printf(&sb->report, "  first : %s: %s\n", field, values);
	set_summary(sb, "%s: stream %s diverges at DUT cycle %llu: %s (%s)", sb->label, stream,
		    (unsigned long long)cycle, field, values);
	rep_end(sb);
}

uint64_t sb_flush(struct sb *sb)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < sb->n; i++)
		for (int side = 0; side < 2; side++) {
			struct queue *q = &sb->s[i].q[side];

			while (q->count) {
				free(q_at(q, 0)->data);
				q->head = (q->head + 1) % q->cap;
				q->count--;
				n++;
			}
			n += sb->s[i].npart[side];
			sb->s[i].npart[side] = 0;
			sb->s[i].pos_count[side] = 0;
		}
	sb->ref_dma_pending = 0;
	return n;
}

bool sb_drained(const struct sb *sb, enum sb_side side)
{
	for (unsigned int i = 0; i < sb->n; i++)
		if (waiting(&sb->s[i], side))
			return false;
	return true;
}

bool sb_check_end(struct sb *sb, uint64_t cycle, const char *why, bool ref_only)
{
	struct stream *best = NULL;
	int best_side = SB_REF;

	if (sb->failed)
		return false;
	for (int side = 0; side < (ref_only ? 1 : 2); side++)
		for (unsigned int i = 0; i < sb->n; i++)
			if (sb->s[i].kind == SB_ENTRY && sb->s[i].npart[side]) {
				const struct partial *pp = &sb->s[i].part[side][0];

				sb_fail(sb, sb->s[i].name, "partial", cycle,
					"%s: the %s wrote part of entry slot %llu (byte mask 0x%llx) and never the rest\n", why,
					side ? "DUT" : "reference", (unsigned long long)pp->slot, (unsigned long long)pp->have);
				return false;
			}
	for (int side = 0; side < (ref_only ? 1 : 2); side++)
		for (unsigned int i = 0; i < sb->n; i++) {
			struct stream *s = &sb->s[i];
			struct txn *o = oldest(s, side, false, 0);

			if (!o)
				continue;
			if (!best || o->cycle < oldest(best, best_side, false, 0)->cycle) {
				best = s;
				best_side = side;
			}
		}
	if (!best)
		return true;

	const struct txn *t = oldest(best, best_side, false, 0);
	bool missing = best_side == SB_REF;
	struct sb_str tmp = { 0 };

	rep_begin(sb, best, NULL, missing ? "missing" : "extra", cycle, missing ? t->cycle : UINT64_MAX,
		  missing ? UINT64_MAX : t->cycle, t->seq);
	sbs_printf(&sb->report, "  what  : %s: the %s produced %s the %s never produced\n", why,
		   missing ? "reference" : "DUT", best->kind == SB_DMA ? "DMA writes" : best->kind == SB_ENTRY ? "entries" : "transactions",
		   missing ? "DUT" : "reference");
	rep_txn(sb, best, SB_REF, missing ? t : NULL, t->off ? "(partly matched)" : NULL);
	rep_txn(sb, best, SB_DUT, missing ? NULL : t, t->off ? "(partly matched)" : NULL);
	rep_last_match(sb, best);
	sbs_printf(&sb->report, "  left  : waiting at this point (ref / dut):\n");
	for (unsigned int i = 0; i < sb->n; i++) {
		struct stream *s = &sb->s[i];

		if (waiting(s, 0) || waiting(s, 1))
			sbs_printf(&sb->report, "          %-12s %zu / %zu %s\n", s->name, waiting(s, 0), waiting(s, 1),
				   s->kind == SB_DMA ? "writes" : s->kind == SB_ENTRY ? "entries" : "transactions");
	}
	sbf_describe(&tmp, best->fmt, t->data, t->len, t->addr, t->base);
	set_summary(sb, "%s: stream %s diverges at DUT cycle %llu (%s): %s %s #%llu (%s)",
		 sb->label, best->name, (unsigned long long)cycle, why, missing ? "missing" : "extra",
		 missing ? "reference transaction" : "DUT transaction", (unsigned long long)t->seq, sbs_cstr(&tmp));
	sbs_printf(&sb->report, "  first : %s: %s #%llu %s\n", missing ? "missing" : "extra", side_name[best_side],
		   (unsigned long long)t->seq, sbs_cstr(&tmp));
	sbs_free(&tmp);
	rep_end(sb);
	return false;
}

bool sb_failed(const struct sb *sb)
{
	return sb->failed;
}

const struct sb_divergence *sb_divergence(const struct sb *sb)
{
	return sb->failed ? &sb->div : NULL;
}

void sb_overlay(const struct sb *sb, uint64_t addr, void *buf, size_t len)
{
	uint8_t *p = buf;

	if (!sb->ref_dma_pending || len == 0)
		return;
	for (unsigned int i = 0; i < sb->n; i++) {
		const struct stream *s = &sb->s[i];
		const struct queue *q = &s->q[SB_REF];

		if (s->kind == SB_MSG)
			continue;
		for (size_t k = 0; k < q->count; k++) {
			const struct txn *t = q_cat(q, k);

			if (t->done)
				continue;
			uint64_t lo = t->addr + t->off, hi = t->addr + t->len;
			uint64_t a = lo > addr ? lo : addr, b = hi < addr + len ? hi : addr + len;

			if (a < b)
				memcpy(p + (a - addr), t->data + (a - t->addr), (size_t)(b - a));
		}
	}
}

unsigned int sb_num_streams(const struct sb *sb)
{
	return sb->n;
}

int sb_stream_stats(const struct sb *sb, unsigned int i, struct sb_stream_stats *st)
{
	const struct stream *s;

	if (i >= sb->n)
		return -EINVAL;
	s = &sb->s[i];
	memset(st, 0, sizeof(*st));
	st->name = s->name;
	st->kind = s->kind;
	st->matched = s->matched;
	for (int side = 0; side < 2; side++) {
		st->pushed[side] = s->pushed[side];
		if (s->kind != SB_DMA) {
			st->pending[side] = waiting(s, side);
		} else {
			for (size_t k = 0; k < s->q[side].count; k++) {
				const struct txn *t = q_cat(&s->q[side], k);

				st->pending[side] += t->len - t->off;
			}
		}
	}
	return 0;
}

uint64_t sb_matched(const struct sb *sb, enum sb_kind kind, const char *prefix)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < sb->n; i++)
		if (sb->s[i].kind == kind && (!prefix || strncmp(sb->s[i].name, prefix, strlen(prefix)) == 0))
			n += sb->s[i].matched;
	return n;
}

uint64_t sb_values_compared(const struct sb *sb)
{
	return sb->values;
}
