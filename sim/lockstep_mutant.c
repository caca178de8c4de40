// SPDX-License-Identifier: MIT
/*
 * "model-mutant": a test-only engine that wraps another engine and plants
 * one bug in what it shows the host (sim/lockstep_mutant.h).  The bugs are
 * applied at the host interface -- frames, DMA writes, interrupts, register
 * reads -- which is where the lockstep checker looks, and where an RTL bug
 * shows up.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_opts.h"
#include "lockstep_mutant.h"
#include "lockstep_mutant_rx.h"
#include "lockstep_regions.h"
#include "../model/roce_hdr.h"

#define MUTANT_MAGIC 0x4d55544eu	/* "MUTN" */

enum bug {
	BUG_NONE, BUG_HDR_SE, BUG_UDP_SPORT, BUG_DROP_ACK, BUG_DUP_FRAME, BUG_CQE_FIELD, BUG_DROP_IRQ,
	BUG_REORDER_DMA, BUG_PAYLOAD_BYTE, BUG_CTX_STATUS, BUG_EVT_ELEMENT, BUG_ACK_LATE, BUG_RX_RKEY, BUG_RX_ICRC,
	BUG_DETH_QKEY,
};

static const char *const bug_names[] = {
	"none", "hdr_se", "udp_sport", "drop_ack", "dup_frame", "cqe_field", "drop_irq",
	"reorder_dma", "payload_byte", "ctx_status", "evt_element", "ack_late", "rx_rkey", "rx_icrc",
	"deth_qkey", NULL,
};

struct pending {			/* lagged input */
	uint64_t due;
	uint32_t off, val;		/* doorbell */
	uint8_t *frame;			/* rx frame (NULL: doorbell) */
	size_t len;
};

struct mutant {
	uint32_t magic;
	const struct hca_engine_ops *iops;
	struct hca_engine *in;
	struct hca_host_ops host;
	void *host_ctx;
	struct ls_regions rg;
	struct mrx *mrx;	/* rx_rkey: the MR table */
	enum bug bug;
	unsigned int at, seen, fired;
	unsigned int cqe_off, cqe_len;
	uint64_t lag;
	struct pending *q;
	size_t qhead, qcount, qcap;
	/* reorder_dma */
	uint8_t *held;
	size_t held_len;
	uint64_t held_iova;
	int held_mr;
	uint8_t fbuf[65536 + 64];
	/* trace: a VCD of the host interface in [trace_from, trace_to] */
	FILE *vcd;
	uint64_t trace_from, trace_to, vcd_t;
	bool vcd_started;
	uint32_t n_tx, n_dma, n_irq;
	unsigned int evt_pops;
	/* ack_late: ACKs held for ack_delay cycles */
	uint64_t ack_delay;
	uint8_t *acks;
	size_t acks_len, acks_cap;
};

#define to_mut(e) ((struct mutant *)(void *)(e))

/* Counts an occurrence; true when it is the one to break. */
static bool hit(struct mutant *m)
{
	if (++m->seen != m->at)
		return false;
	m->fired++;
	return true;
}

static void fix_icrc(uint8_t *f, size_t len)
{
	size_t end;
	uint32_t c;

	if (len < 14 + 20)
		return;
	end = 14 + ((size_t)f[16] << 8 | f[17]) - 4;
	if (end + 4 > len || end < 54)
		return;
	c = roce_icrc(f, end);
	f[end] = (uint8_t)c;
	f[end + 1] = (uint8_t)(c >> 8);
	f[end + 2] = (uint8_t)(c >> 16);
	f[end + 3] = (uint8_t)(c >> 24);
}

static bool is_roce(const uint8_t *f, size_t len)
{
	return len >= 54 && f[12] == 0x08 && f[13] == 0x00 && f[23] == 17 &&
	       ((unsigned int)f[36] << 8 | f[37]) == HCA_WIRE_UDP_DPORT;
}

/* Trace -------------------------------------------------------------------- */

static void vcd_open(struct mutant *m, const struct hca_engine_config *cfg)
{
	if (!cfg || !cfg->trace)
		return;
	m->vcd = fopen(cfg->trace, "w");
	if (!m->vcd)
		return;
	m->trace_from = cfg->trace_from;
	m->trace_to = cfg->trace_to ? cfg->trace_to : UINT64_MAX;
	fprintf(m->vcd, "$version\n\thcasim model-mutant\n$end\n$timescale\n\t1ns\n$end\n"
			"$scope module TOP $end\n$scope module mutant $end\n"
			"$var wire 32 a tx_count [31:0] $end\n$var wire 8 b tx_opcode [7:0] $end\n"
			"$var wire 24 c tx_psn [23:0] $end\n$var wire 32 d dma_wr_count [31:0] $end\n"
			"$var wire 64 e dma_wr_addr [63:0] $end\n$var wire 32 f dma_wr_len [31:0] $end\n"
			"$var wire 32 g irq_count [31:0] $end\n$var wire 8 h irq_vector [7:0] $end\n"
			"$var wire 1 i bug_fired $end\n$upscope $end\n$upscope $end\n$enddefinitions $end\n");
}

static void vcd_bits(FILE *f, uint64_t v, char id)
{
	char b[65];
	int n = 0;

	for (int i = 63; i >= 0; i--)
		if (n || (v >> i & 1) || i == 0)
			b[n++] = (char)('0' + (v >> i & 1));
	b[n] = '\0';
	fprintf(f, "b%s %c\n", b, id);
}

/* Values at the engine's current cycle, if inside the window. */
static bool vcd_at(struct mutant *m)
{
	uint64_t t;

	if (!m->vcd)
		return false;
	t = m->iops->now(m->in);
	if (t < m->trace_from || t > m->trace_to)
		return false;
	if (!m->vcd_started || t != m->vcd_t) {
		fprintf(m->vcd, "#%llu\n", (unsigned long long)t * 4);	/* 4 ns per cycle */
		m->vcd_t = t;
		m->vcd_started = true;
		fprintf(m->vcd, "%ci\n", m->fired ? '1' : '0');
	}
	return true;
}

static void vcd_tx(struct mutant *m, const uint8_t *f, size_t len)
{
	m->n_tx++;
	if (!vcd_at(m))
		return;
	vcd_bits(m->vcd, m->n_tx, 'a');
	if (len >= 54) {
		vcd_bits(m->vcd, f[42], 'b');
		vcd_bits(m->vcd, (uint64_t)f[51] << 16 | f[52] << 8 | f[53], 'c');
	}
}

static void vcd_dma(struct mutant *m, uint64_t iova, size_t len)
{
	m->n_dma++;
	if (!vcd_at(m))
		return;
	vcd_bits(m->vcd, m->n_dma, 'd');
	vcd_bits(m->vcd, iova, 'e');
	vcd_bits(m->vcd, len, 'f');
}

static void vcd_irq(struct mutant *m, unsigned int v)
{
	m->n_irq++;
	if (!vcd_at(m))
		return;
	vcd_bits(m->vcd, m->n_irq, 'g');
	vcd_bits(m->vcd, v, 'h');
}

/* Host callbacks of the wrapped engine ------------------------------------ */

static int host_write(struct mutant *m, uint64_t iova, const void *buf, size_t len)
{
	int r = m->host.dma_write(m->host_ctx, iova, buf, len);

	if (r == 0)
		vcd_dma(m, iova, len);
	return r;
}

static void host_tx(struct mutant *m, const uint8_t *f, size_t len)
{
	vcd_tx(m, f, len);
	m->host.tx_frame(m->host_ctx, f, len);
}

static int m_dma_read(void *h, uint64_t iova, void *buf, size_t len)
{
	struct mutant *m = h;

	return m->host.dma_read(m->host_ctx, iova, buf, len);
}

static void release_held(struct mutant *m)
{
	if (!m->held)
		return;
	host_write(m, m->held_iova, m->held, m->held_len);
	free(m->held);
	m->held = NULL;
}

static int m_dma_write(void *h, uint64_t iova, const void *buf, size_t len)
{
	struct mutant *m = h;
	size_t piece;
	struct ls_region *g = ls_regions_find(&m->rg, iova, len, &piece);
	int r;

	if (m->bug == BUG_CQE_FIELD && g && g->kind == LS_RGN_CQ && len == HCA_CQE_SIZE && hit(m)) {
		uint8_t c[HCA_CQE_SIZE];
		uint64_t v = 0;

		memcpy(c, buf, len);
		memcpy(&v, c + m->cqe_off, m->cqe_len);
		v++;
		memcpy(c + m->cqe_off, &v, m->cqe_len);
		return host_write(m, iova, c, len);
	}
	if (g && g->kind == LS_RGN_MR) {
		if (m->bug == BUG_PAYLOAD_BYTE && len && hit(m)) {
			uint8_t *c = malloc(len);

			if (!c)
				return -ENOMEM;
			memcpy(c, buf, len);
			c[len / 2] ^= 0x5a;
			r = host_write(m, iova, c, len);
			free(c);
			return r;
		}
		if (m->bug == BUG_REORDER_DMA) {
			if (m->held && m->held_mr == (int)g->index) {
				r = host_write(m, iova, buf, len);
				release_held(m);
				return r;
			}
			if (!m->held && len && hit(m)) {
				/* the write "succeeds" for the engine; the host sees it later */
				m->held = malloc(len);
				if (!m->held)
					return -ENOMEM;
				memcpy(m->held, buf, len);
				m->held_len = len;
				m->held_iova = iova;
				m->held_mr = (int)g->index;
				return 0;
			}
		}
	}
	return host_write(m, iova, buf, len);
}

/* Held ACK frames (ack_late): FIFO of [u64 due][u32 len][bytes] records, one delay for all. */
static void hold_ack(struct mutant *m, const uint8_t *f, size_t len)
{
	uint64_t due = m->iops->now(m->in) + m->ack_delay;
	uint32_t l = (uint32_t)len;

	if (m->acks_len + 12 + len > m->acks_cap) {
		size_t ncap = (m->acks_len + 12 + len) * 2;
		uint8_t *n = realloc(m->acks, ncap);

		if (!n) {
			host_tx(m, f, len);
			return;
		}
		m->acks = n;
		m->acks_cap = ncap;
	}
	memcpy(m->acks + m->acks_len, &due, 8);
	memcpy(m->acks + m->acks_len + 8, &l, 4);
	memcpy(m->acks + m->acks_len + 12, f, len);
	m->acks_len += 12 + len;
}

static uint64_t acks_due(const struct mutant *m)
{
	uint64_t due;

	if (!m->acks_len)
		return UINT64_MAX;
	memcpy(&due, m->acks, 8);
	return due;
}

/* Send the held ACKs due by `now`. */
static void release_acks(struct mutant *m, uint64_t now)
{
	size_t off = 0;

	while (off < m->acks_len) {
		uint64_t due;
		uint32_t l;

		memcpy(&due, m->acks + off, 8);
		if (due > now)
			break;
		memcpy(&l, m->acks + off + 8, 4);
		host_tx(m, m->acks + off + 12, l);
		off += 12 + l;
	}
	if (!off)
		return;
	memmove(m->acks, m->acks + off, m->acks_len - off);
	m->acks_len -= off;
}

static void m_tx_frame(void *h, const uint8_t *frame, size_t len)
{
	struct mutant *m = h;
	const struct roce_opcode_info *oi = is_roce(frame, len) ? roce_opcode(frame[42]) : NULL;

	if (len > sizeof(m->fbuf)) {
		host_tx(m, frame, len);
		return;
	}
	switch (m->bug) {
	case BUG_HDR_SE:
		if (oi && (oi->flags & ROCE_OP_REQ) && hit(m)) {
			memcpy(m->fbuf, frame, len);
			m->fbuf[43] ^= 0x80;
			fix_icrc(m->fbuf, len);
			host_tx(m, m->fbuf, len);
			return;
		}
		break;
	case BUG_UDP_SPORT:
		if (oi && hit(m)) {
			memcpy(m->fbuf, frame, len);
			m->fbuf[35] ^= 0x01;
			fix_icrc(m->fbuf, len);
			host_tx(m, m->fbuf, len);
			return;
		}
		break;
	case BUG_DETH_QKEY:
		if (oi && (frame[42] == HCA_BTH_OP_UD_SEND_ONLY || frame[42] == HCA_BTH_OP_UD_SEND_ONLY_WITH_IMMEDIATE) &&
		    hit(m)) {
			memcpy(m->fbuf, frame, len);
			m->fbuf[54 + 3] ^= 0x01;	/* DETH after Ethernet, IPv4, UDP, BTH: Q_Key bits 7:0 */
			fix_icrc(m->fbuf, len);
			host_tx(m, m->fbuf, len);
			return;
		}
		break;
	case BUG_DROP_ACK:
		if (oi && frame[42] == HCA_BTH_OP_RC_ACKNOWLEDGE && hit(m))
			return;
		break;
	case BUG_DUP_FRAME:
		if (hit(m))
			host_tx(m, frame, len);
		break;
	case BUG_ACK_LATE:
		if (oi && frame[42] == HCA_BTH_OP_RC_ACKNOWLEDGE) {
			hold_ack(m, frame, len);
			return;
		}
		if (oi && (oi->flags & ROCE_OP_REQ) && m->acks_len)
			m->fired++;	/* this request overtakes held ACKs */
		break;
	default:
		break;
	}
	host_tx(m, frame, len);
}

static void m_interrupt(void *h, unsigned int vector)
{
	struct mutant *m = h;

	if (m->bug == BUG_DROP_IRQ && hit(m))
		return;
	vcd_irq(m, vector);
	m->host.interrupt(m->host_ctx, vector);
}

static const struct hca_host_ops mutant_host = {
	.dma_read = m_dma_read,
	.dma_write = m_dma_write,
	.tx_frame = m_tx_frame,
	.interrupt = m_interrupt,
};

/* Options ----------------------------------------------------------------- */

/* CQE fields cqe_field can break: names and places. */
static const char *const field_names[] = { "byte_len", "wqe_index", "status", "opcode", "qpn", "imm_data",
					   NULL };
static const unsigned int field_off[] = { HCA_CQE_BYTE_LEN_OFF, HCA_CQE_WQE_INDEX_OFF, HCA_CQE_STATUS_OFF,
					  HCA_CQE_OPCODE_OFF, HCA_CQE_QPN_OFF, HCA_CQE_IMM_DATA_OFF };
static const unsigned int field_len[] = { HCA_CQE_BYTE_LEN_LEN, HCA_CQE_WQE_INDEX_LEN, HCA_CQE_STATUS_LEN,
					  HCA_CQE_OPCODE_LEN, HCA_CQE_QPN_LEN, HCA_CQE_IMM_DATA_LEN };

struct mut_opts {
	char inner[32];
	unsigned int bug, at, field;
	uint64_t lag, ack_delay;
};

#define MUT_CYCLES_MAX 1000000000ull

/* sim/lockstep_mutant.h lists them; checked by sim/engine_opts. */
static const struct hca_engine_opt mut_opt_table[] = {
	HCA_OPT_STR(struct mut_opts, inner, "engine wrapped; default model"),
	HCA_OPT_ENUM(struct mut_opts, bug, bug_names, "the planted bug"),
	HCA_OPT_UINT(struct mut_opts, at, 1, UINT32_MAX, "which occurrence; default 1"),
	HCA_OPT_ENUM(struct mut_opts, field, field_names, "cqe_field: the CQE field"),
	HCA_OPT_UINT(struct mut_opts, lag, 0, MUT_CYCLES_MAX, "input delay, cycles; default 0"),
	HCA_OPT_UINT(struct mut_opts, ack_delay, 0, MUT_CYCLES_MAX, "ack_late: delay, cycles; default 200"),
	{ 0 },
};

static int parse(struct mutant *m, const char *opts, char *inner, size_t inner_sz)
{
	struct mut_opts o = { .inner = "model", .at = 1, .ack_delay = 200 };

	if (hca_engine_opts_parse("model-mutant", mut_opt_table, opts, &o))
		return -EINVAL;
	snprintf(inner, inner_sz, "%s", o.inner);
	m->bug = (enum bug)o.bug;
	m->at = o.at;
	m->cqe_off = field_off[o.field];
	m->cqe_len = field_len[o.field];
	m->lag = o.lag;
	m->ack_delay = o.ack_delay;
	return 0;
}

/* Engine ops ----------------------------------------------------------------- */

static int mut_create(const struct hca_engine_config *cfg, const struct hca_host_ops *host, void *host_ctx,
		      struct hca_engine **out)
{
	struct hca_engine_config ic;
	struct mutant *m;
	char inner[32] = "model";
	int r;

	if (!host || !out)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->magic = MUTANT_MAGIC;
	m->host = *host;
	m->host_ctx = host_ctx;
	ls_regions_init(&m->rg);
	r = parse(m, cfg ? cfg->options : NULL, inner, sizeof(inner));
	if (r)
		goto fail;
	if (m->bug == BUG_RX_RKEY && !(m->mrx = calloc(1, sizeof(*m->mrx)))) {
		r = -ENOMEM;
		goto fail;
	}
	m->iops = hca_engine_find(inner);
	if (!m->iops || m->iops == &hca_mutant_engine_ops) {
		fprintf(stderr, "model-mutant: engine '%s' is not linked in\n", inner);
		r = -ENOENT;
		goto fail;
	}
	memset(&ic, 0, sizeof(ic));
	if (cfg) {
		ic = *cfg;
		ic.options = NULL;
	}
	ic.trace = NULL;	/* the wrapped engine does not trace; the mutant writes a VCD */
	r = m->iops->create(&ic, &mutant_host, m, &m->in);
	if (r)
		goto fail;
	vcd_open(m, cfg);
	*out = (struct hca_engine *)(void *)m;
	return 0;
fail:
	free(m->mrx);
	free(m);
	return r;
}

static void mut_destroy(struct hca_engine *e)
{
	struct mutant *m = to_mut(e);

	if (!m)
		return;
	m->iops->destroy(m->in);
	for (size_t i = 0; i < m->qcount; i++)
		free(m->q[(m->qhead + i) % m->qcap].frame);
	free(m->q);
	free(m->held);
	free(m->acks);
	free(m->mrx);
	if (m->vcd)
		fclose(m->vcd);
	free(m);
}

static uint32_t mut_bar0_read(struct hca_engine *e, uint32_t off)
{
	struct mutant *m = to_mut(e);

	return m->iops->bar0_read(m->in, off);
}

static int enqueue(struct mutant *m, uint32_t off, uint32_t val, const uint8_t *frame, size_t len)
{
	struct pending *p;

	if (m->qcount == m->qcap) {
		size_t ncap = m->qcap ? m->qcap * 2 : 64;
		struct pending *nq = malloc(ncap * sizeof(*nq));

		if (!nq)
			return -ENOMEM;
		for (size_t i = 0; i < m->qcount; i++)
			nq[i] = m->q[(m->qhead + i) % m->qcap];
		free(m->q);
		m->q = nq;
		m->qcap = ncap;
		m->qhead = 0;
	}
	p = &m->q[(m->qhead + m->qcount) % m->qcap];
	memset(p, 0, sizeof(*p));
	p->due = m->iops->now(m->in) + m->lag;
	p->off = off;
	p->val = val;
	if (frame) {
		p->frame = malloc(len);
		if (!p->frame)
			return -ENOMEM;
		memcpy(p->frame, frame, len);
		p->len = len;
	}
	m->qcount++;
	return 0;
}

static void mut_bar0_write(struct hca_engine *e, uint32_t off, uint32_t value)
{
	struct mutant *m = to_mut(e);

	if (m->lag && off >= HCA_BAR0_DB_BASE && enqueue(m, off, value, NULL, 0) == 0)
		return;
	m->iops->bar0_write(m->in, off, value);
}

static uint32_t mut_mgmt_read(struct hca_engine *e, uint32_t addr)
{
	struct mutant *m = to_mut(e);
	uint32_t v = m->iops->mgmt_read(m->in, addr);

	if (m->bug == BUG_CTX_STATUS && addr == HCA_MGMT_CTX_STATUS && hit(m))
		v ^= 1;
	/* the at-th event (counted at its pops) shows a wrong element while at the FIFO head */
	if (m->bug == BUG_EVT_ELEMENT && addr == HCA_MGMT_EVT_ELEMENT && m->evt_pops + 1 == m->at &&
	    m->iops->mgmt_read(m->in, HCA_MGMT_EVT_COUNT)) {
		if (!m->fired)
			m->fired = 1;
		v ^= 0x10;
	}
	return v;
}

static void mut_mgmt_write(struct hca_engine *e, uint32_t addr, uint32_t value)
{
	struct mutant *m = to_mut(e);

	if (addr == HCA_MGMT_EVT_POP && m->iops->mgmt_read(m->in, HCA_MGMT_EVT_COUNT))
		m->evt_pops++;
	m->iops->mgmt_write(m->in, addr, value);
	ls_regions_snoop_mgmt(&m->rg, m->iops, m->in, addr, value);
	if (m->mrx)
		mrx_snoop(m->mrx, m->iops, m->in, addr, value);
}

static void mut_rx_frame(struct hca_engine *e, const uint8_t *frame, size_t len)
{
	struct mutant *m = to_mut(e);

	if ((m->bug == BUG_RX_RKEY || m->bug == BUG_RX_ICRC) && len <= sizeof(m->fbuf)) {
		memcpy(m->fbuf, frame, len);
		if (m->bug == BUG_RX_RKEY ? mrx_skip_rkey_check(m->mrx, m->fbuf, len) :
					    mrx_skip_icrc_check(m->fbuf, len))
			m->fired++;
		frame = m->fbuf;
	}
	if (m->lag && enqueue(m, 0, 0, frame, len) == 0)
		return;
	m->iops->rx_frame(m->in, frame, len);
}

static void deliver_due(struct mutant *m)
{
	uint64_t now = m->iops->now(m->in);

	while (m->qcount && m->q[m->qhead].due <= now) {
		struct pending *p = &m->q[m->qhead];

		if (p->frame) {
			m->iops->rx_frame(m->in, p->frame, p->len);
			free(p->frame);
		} else {
			m->iops->bar0_write(m->in, p->off, p->val);
		}
		m->qhead = (m->qhead + 1) % m->qcap;
		m->qcount--;
	}
}

static void mut_advance(struct hca_engine *e, uint64_t cycles)
{
	struct mutant *m = to_mut(e);
	uint64_t now = m->iops->now(m->in), end = now + cycles;

	for (;;) {
		uint64_t next;

		deliver_due(m);
		now = m->iops->now(m->in);
		release_acks(m, now);
		next = acks_due(m);
		if (m->qcount && m->q[m->qhead].due < next)
			next = m->q[m->qhead].due;
		if (next > end) {
			m->iops->advance(m->in, end - now);
			break;
		}
		m->iops->advance(m->in, next - now);
	}
	deliver_due(m);
	release_acks(m, m->iops->now(m->in));
	release_held(m);
}

static uint64_t mut_now(struct hca_engine *e)
{
	struct mutant *m = to_mut(e);

	return m->iops->now(m->in);
}

static uint64_t mut_next_event(struct hca_engine *e)
{
	struct mutant *m = to_mut(e);
	uint64_t t = m->iops->next_event(m->in);

	if (m->qcount && m->q[m->qhead].due < t)
		t = m->q[m->qhead].due;
	if (acks_due(m) < t)
		t = acks_due(m);
	return t;
}

static int mut_fw_irq(struct hca_engine *e)
{
	struct mutant *m = to_mut(e);

	return m->iops->fw_irq(m->in);
}

static const char *mut_last_error(struct hca_engine *e)
{
	struct mutant *m = to_mut(e);

	return m->iops->last_error ? m->iops->last_error(m->in) : "";
}

const struct hca_engine_ops hca_mutant_engine_ops = {
	.name = "model-mutant",
	.create = mut_create,
	.destroy = mut_destroy,
	.bar0_read = mut_bar0_read,
	.bar0_write = mut_bar0_write,
	.mgmt_read = mut_mgmt_read,
	.mgmt_write = mut_mgmt_write,
	.rx_frame = mut_rx_frame,
	.advance = mut_advance,
	.now = mut_now,
	.next_event = mut_next_event,
	.fw_irq = mut_fw_irq,
	.last_error = mut_last_error,
};

void hca_mutant_engine_register(void)
{
	hca_engine_register(&hca_mutant_engine_ops);
}

unsigned int mutant_fired(struct hca_engine *e)
{
	struct mutant *m = to_mut(e);

	return m && m->magic == MUTANT_MAGIC ? m->fired : 0;
}
