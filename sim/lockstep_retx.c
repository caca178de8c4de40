// SPDX-License-Identifier: MIT
/*
 * Retransmitted RC request frames in lockstep (sim/lockstep_retx.h, docs/sim.md
 * section 2): every PSN the reference sends again must be sent again by the
 * DUT (or acknowledged first), not before the reference and at most the lag
 * after it; frames are compared by their PSN.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcasim/hca_spec.h"
#include "../model/roce_hdr.h"
#include "lockstep_retx.h"
#include "scoreboard_fmt.h"

#define PSN_MASK 0xFFFFFFu
/* Reference frames kept per QP, by PSN: more than the RC window (HCA_WIRE_MAX_UNACKED_PSNS). */
#define RETX_SLOTS 512u

struct retx_frame {
	bool v;
	uint32_t psn;
	uint64_t cycle;
	size_t len, cap;
	uint8_t *d;
};

/* a PSN the reference sent again, at `cycle`, that the DUT has not sent since */
struct retx_run {
	uint32_t psn;
	uint64_t cycle;
	bool done;		/* no longer required: the DUT sent it since as a new frame (it was
				 * behind), or the peer acknowledged it; a late DUT resend still matches */
};

struct retx_side {
	bool any;
	uint32_t hi;		/* highest PSN sent */
};

struct retx_qp {
	uint32_t qpn;		/* from the UDP source port */
	struct retx_side s[2];
	/* reference retransmissions the DUT has not matched yet, oldest first */
	struct retx_run *run;
	size_t nrun, caprun;
	bool ack_v;
	uint32_t ack_next;	/* the peer acknowledged every PSN before this one */
	struct retx_frame *slot;
	/* the DUT's first sending of each PSN (by slot), its last frame, and
	 * whether its current go-back-N run answers a reference resend */
	struct { uint32_t psn; uint64_t cycle; } *dfirst;
	uint32_t dprev;
	bool drun;
	uint64_t ref_last;	/* the reference's latest resend */
};

struct ls_retx {
	struct retx_qp *q;
	size_t n, cap;
	uint64_t lag;
	uint64_t matched;
	uint64_t frames[2], bytes[2];	/* taken, per side */
};

static bool psn_after(uint32_t a, uint32_t b)
{
	uint32_t d = (a - b) & PSN_MASK;

	return d != 0 && d < (1u << 23);
}

struct ls_retx *ls_retx_create(uint64_t lag)
{
	struct ls_retx *r = calloc(1, sizeof(*r));

	if (r)
		r->lag = lag;
	return r;
}

static void free_qp(struct retx_qp *q)
{
	if (q->slot)
		for (unsigned int i = 0; i < RETX_SLOTS; i++)
			free(q->slot[i].d);
	free(q->slot);
	free(q->dfirst);
	free(q->run);
}

void ls_retx_reset(struct ls_retx *r)
{
	for (size_t i = 0; i < r->n; i++)
		free_qp(&r->q[i]);
	r->n = 0;
	memset(r->frames, 0, sizeof(r->frames));	/* the reset clears the counters too */
	memset(r->bytes, 0, sizeof(r->bytes));
}

void ls_retx_destroy(struct ls_retx *r)
{
	if (!r)
		return;
	ls_retx_reset(r);
	free(r->q);
	free(r);
}

uint64_t ls_retx_matched(const struct ls_retx *r)
{
	return r->matched;
}

void ls_retx_taken(const struct ls_retx *r, enum sb_side side, uint64_t *frames, uint64_t *bytes)
{
	*frames = r->frames[side];
	*bytes = r->bytes[side];
}

static struct retx_qp *find(struct ls_retx *r, uint32_t qpn, bool add)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->q[i].qpn == qpn)
			return &r->q[i];
	if (!add)
		return NULL;
	if (r->n == r->cap) {
		size_t nc = r->cap ? 2 * r->cap : 8;
		struct retx_qp *nq = realloc(r->q, nc * sizeof(*nq));

		if (!nq)
			return NULL;
		r->q = nq;
		r->cap = nc;
	}
	memset(&r->q[r->n], 0, sizeof(r->q[r->n]));
	r->q[r->n].qpn = qpn;
	return &r->q[r->n++];
}

/* An RC request frame: its sending QP (UDP source port) and parsed headers. */
static bool rc_request(const uint8_t *f, size_t len, struct roce_pkt *p)
{
	const struct roce_opcode_info *oi;

	if (roce_parse(f, len, p) != ROCE_OK)
		return false;
	oi = roce_opcode(p->opcode);
	return oi && (oi->flags & ROCE_OP_RC) && (oi->flags & ROCE_OP_REQ);
}

static void keep_frame(struct retx_qp *q, uint32_t psn, uint64_t cycle, const uint8_t *f, size_t len)
{
	struct retx_frame *s;

	if (!q->slot) {
		q->slot = calloc(RETX_SLOTS, sizeof(*q->slot));
		if (!q->slot)
			return;
	}
	s = &q->slot[psn % RETX_SLOTS];
	if (s->cap < len) {
		uint8_t *n = realloc(s->d, len);

		if (!n) {
			s->v = false;
			return;
		}
		s->d = n;
		s->cap = len;
	}
	memcpy(s->d, f, len);
	s->len = len;
	s->psn = psn;
	s->cycle = cycle;
	s->v = true;
}

static void add_run(struct retx_qp *q, uint32_t psn, uint64_t cycle)
{
	if (q->nrun == q->caprun) {
		size_t nc = q->caprun ? 2 * q->caprun : 8;
		struct retx_run *n = realloc(q->run, nc * sizeof(*n));

		if (!n)
			return;
		q->run = n;
		q->caprun = nc;
	}
	q->run[q->nrun++] = (struct retx_run){ .psn = psn, .cycle = cycle, .done = false };
}

/*
 * The DUT sent `psn` again at `cycle`: it answers the oldest reference
 * resend of it up to then (false: none).  Resends the DUT merged into one
 * are answered by the peer's acknowledgement instead (ls_retx_rx).
 */
static bool claim(struct retx_qp *q, uint32_t psn, uint64_t cycle, uint64_t *oldest)
{
	for (size_t i = 0; i < q->nrun; i++)
		if (q->run[i].psn == psn && q->run[i].cycle <= cycle) {
			*oldest = q->run[i].cycle;
			memmove(q->run + i, q->run + i + 1, (q->nrun - i - 1) * sizeof(*q->run));
			q->nrun--;
			return true;
		}
	return false;
}

static void run_line(struct sb_str *o, const char *side, uint32_t psn, uint64_t cycle, const uint8_t *f, size_t len)
{
	sbs_printf(o, "  %s   : PSN 0x%06x sent again at cycle %llu", side, psn, (unsigned long long)cycle);
	if (f) {
		sbs_printf(o, ": ");
		sbf_describe(o, SB_FMT_FRAME, f, len, 0, 0);
	}
	sbs_printf(o, "\n");
}

static void fail(struct sb *sb, const char *field, uint64_t cycle, uint64_t rc, uint64_t dc, struct sb_str *body,
		 const char *values)
{
	sb_fail_report(sb, "tx", field, cycle, rc, dc, sbs_cstr(body), values);
	sbs_free(body);
}

static const char rule[] =
	"  rule  : RC retransmissions (docs/sim.md section 2): every PSN the reference sends again, the DUT\n"
	"          sends again (unless the peer acknowledged it first), no earlier than the reference and at\n"
	"          most the lag later; each frame equals the reference's frame of its PSN\n";

/* A DUT retransmission of `psn`: the reference sent it again first. */
static void dut_run(struct ls_retx *r, struct sb *sb, struct retx_qp *q, uint32_t psn, uint64_t cycle,
		    const uint8_t *f, size_t len)
{
	struct sb_str o = { 0 };
	uint64_t oldest = 0;
	char v[160];

	if (claim(q, psn, cycle, &oldest)) {
		q->drun = true;
	} else if (q->drun && psn == ((q->dprev + 1) & PSN_MASK) && q->dfirst &&
		   q->dfirst[psn % RETX_SLOTS].psn == psn && q->dfirst[psn % RETX_SLOTS].cycle >= q->ref_last) {
		/* the run goes on past where the reference's stopped: the DUT first
		 * sent this PSN after the reference went back (it read the NAK or
		 * the timeout later), so its go-back-N run is longer */
		return;
	} else {
		bool later = false;

		q->drun = false;

		for (size_t i = 0; i < q->nrun; i++)
			later |= q->run[i].psn == psn;
		sbs_printf(&o, "%s", rule);
		sbs_printf(&o, "  qp    : 0x%x\n", q->qpn);
		sbs_printf(&o, later ? "  ref   : (sends PSN 0x%06x again only later: the DUT is early -- a wait cut short)\n"
				     : "  ref   : (did not send PSN 0x%06x again: the reference, which is never behind,\n"
				       "          did not go back; a timer that fired early or a retransmission without cause)\n",
			   psn);
		run_line(&o, "dut", psn, cycle, f, len);
		snprintf(v, sizeof(v), "DUT sent PSN 0x%06x again, reference %s", psn, later ? "later" : "not");
		fail(sb, later ? "retx.early" : "retx.extra", cycle, UINT64_MAX, cycle, &o, v);
		return;
	}
	if (r->lag && cycle > oldest + r->lag) {
		sbs_printf(&o, "%s", rule);
		run_line(&o, "ref", psn, oldest, NULL, 0);
		run_line(&o, "dut", psn, cycle, f, len);
		snprintf(v, sizeof(v), "%llu cycles after the reference, more than the lag %llu",
			 (unsigned long long)(cycle - oldest), (unsigned long long)r->lag);
		fail(sb, "retx.late", cycle, oldest, cycle, &o, v);
	}
}

/* A retransmitted DUT frame: the reference's frame of that PSN, byte for byte. */
static void dut_frame(struct ls_retx *r, struct sb *sb, struct retx_qp *q, uint32_t psn, uint64_t cycle,
		      const uint8_t *f, size_t len)
{
	const struct retx_frame *s = q->slot ? &q->slot[psn % RETX_SLOTS] : NULL;
	struct sb_str o = { 0 };
	struct sbf_first first;
	char v[240];

	if (!s || !s->v || s->psn != psn) {
		sbs_printf(&o, "%s", rule);
		sbs_printf(&o, "  ref   : (no frame with PSN 0x%06x kept)\n  dut   : @%llu ", psn,
			   (unsigned long long)cycle);
		sbf_describe(&o, SB_FMT_FRAME, f, len, 0, 0);
		sbs_printf(&o, "\n");
		snprintf(v, sizeof(v), "DUT resent PSN 0x%06x, which the reference never sent", psn);
		fail(sb, "retx.unknown", cycle, UINT64_MAX, cycle, &o, v);
		return;
	}
	if (s->len == len && memcmp(s->d, f, len) == 0) {
		r->matched++;
		return;
	}
	memset(&first, 0, sizeof(first));
	sbs_printf(&o, "%s", rule);
	sbs_printf(&o, "  ref   : @%llu ", (unsigned long long)s->cycle);
	sbf_describe(&o, SB_FMT_FRAME, s->d, s->len, 0, 0);
	sbs_printf(&o, "\n  dut   : @%llu (retransmitted) ", (unsigned long long)cycle);
	sbf_describe(&o, SB_FMT_FRAME, f, len, 0, 0);
	sbs_printf(&o, "\n  diff  :\n");
	sbf_diff_frame(&o, s->d, s->len, f, len, &first);
	snprintf(v, sizeof(v), "%s", first.values);
	sb_fail_report(sb, "tx", first.field[0] ? first.field : "retx.frame", cycle, s->cycle, cycle, sbs_cstr(&o), v);
	sbs_free(&o);
}

bool ls_retx_tx(struct ls_retx *r, struct sb *sb, enum sb_side side, uint64_t cycle, const uint8_t *f,
		size_t len)
{
	struct roce_pkt p;
	struct retx_qp *q;
	struct retx_side *sd;

	if (!rc_request(f, len, &p))
		return false;
	q = find(r, p.sport & HCA_WIRE_UDP_SPORT_MASK, true);
	if (!q)
		return false;
	sd = &q->s[side];
	if (side == SB_REF)
		keep_frame(q, p.psn, cycle, f, len);
	if (!sd->any || psn_after(p.psn, sd->hi)) {
		sd->any = true;
		sd->hi = p.psn;
		if (side == SB_DUT) {	/* its first sending answers the reference's resends of it */
			for (size_t i = 0; i < q->nrun; i++)
				q->run[i].done |= q->run[i].psn == p.psn && q->run[i].cycle <= cycle;
			if (!q->dfirst)
				q->dfirst = calloc(RETX_SLOTS, sizeof(*q->dfirst));
			if (q->dfirst) {
				q->dfirst[p.psn % RETX_SLOTS].psn = p.psn;
				q->dfirst[p.psn % RETX_SLOTS].cycle = cycle;
			}
			q->dprev = p.psn;
			q->drun = false;
		}
		return false;			/* new: exact order in the "tx" stream */
	}
	r->frames[side]++;
	r->bytes[side] += len;
	if (side == SB_REF) {
		add_run(q, p.psn, cycle);
		q->ref_last = cycle;
		return true;
	}
	if (sb_failed(sb))
		return true;
	dut_run(r, sb, q, p.psn, cycle, f, len);
	q->dprev = p.psn;
	if (!sb_failed(sb))
		dut_frame(r, sb, q, p.psn, cycle, f, len);
	return true;
}

void ls_retx_rx(struct ls_retx *r, const uint8_t *f, size_t len)
{
	struct roce_pkt p;
	const struct roce_opcode_info *oi;
	struct retx_qp *q;
	uint32_t next;

	if (roce_parse(f, len, &p) != ROCE_OK)
		return;
	oi = roce_opcode(p.opcode);
	if (!oi || !(oi->flags & ROCE_OP_RC) || !(oi->flags & ROCE_OP_RESP) || !(oi->hdrs & ROCE_AETH))
		return;
	q = find(r, p.dqpn & HCA_WIRE_UDP_SPORT_MASK, false);
	if (!q)
		return;
	/* an ACK covers its PSN, a NAK (RNR included) the PSNs before it */
	next = (p.aeth.syndrome >> 5) == HCA_AETH_TYPE_ACK ? ((p.psn + 1) & PSN_MASK) : p.psn;
	if (!q->ack_v || psn_after(next, q->ack_next)) {
		q->ack_v = true;
		q->ack_next = next;
		/* acknowledged PSNs need no resend any more (the DUT may still be
		 * resending them: it reads the acknowledgement later) */
		for (size_t i = 0; i < q->nrun; i++)
			q->run[i].done |= psn_after(next, q->run[i].psn);
	}
}

void ls_retx_check(struct ls_retx *r, struct sb *sb, uint64_t now, bool dut_idle)
{
	for (size_t i = 0; i < r->n && !sb_failed(sb); i++) {
		struct retx_qp *q = &r->q[i];
		struct retx_run rr;
		struct sb_str o = { 0 };
		char v[160];

		if (!q->nrun)
			continue;
		rr = q->run[0];
		size_t k = 0;

		/* entries no longer required are kept for the lag, then forgotten */
		for (size_t j = 0; j < q->nrun; j++)
			if (!q->run[j].done || (r->lag && now <= q->run[j].cycle + r->lag))
				q->run[k++] = q->run[j];
		q->nrun = k;
		for (k = 0; k < q->nrun && q->run[k].done; k++)
			;
		if (k == q->nrun)
			continue;
		rr = q->run[k];
		if (!dut_idle && (!r->lag || now <= rr.cycle + r->lag))
			continue;
		sbs_printf(&o, "%s", rule);
		sbs_printf(&o, "  qp    : 0x%x\n", q->qpn);
		run_line(&o, "ref", rr.psn, rr.cycle, NULL, 0);
		sbs_printf(&o, "  dut   : (not sent again by cycle %llu%s, not acknowledged)\n", (unsigned long long)now,
			   dut_idle ? ", and the DUT went idle" : "");
		snprintf(v, sizeof(v), "reference sent PSN 0x%06x again at cycle %llu, DUT not", rr.psn,
			 (unsigned long long)rr.cycle);
		fail(sb, dut_idle ? "retx.missing" : "retx.late", now, rr.cycle, UINT64_MAX, &o, v);
	}
}
