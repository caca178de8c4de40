// SPDX-License-Identifier: MIT
/*
 * The "rtl" engine: cycle-level harness around the Verilated hca_top
 * (rtl_model.h).  See rtl_engine.h and docs/rtl.md.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_opts.h"
#include "hcasim/engine.h"
#include "mac_pace.h"
#include "rtl_engine.h"
#include "rtl_model.h"

#define RTL_MAGIC 0x52544c45u	/* "RTLE" */
#define AXIL_TIMEOUT 1000
#define MAX_FRAME 16384
/* Quiet cycles: a check is tried only when the harness changes no input for
 * at least QUIET_MIN cycles: a cheap look at the model's scalars first, the
 * whole state (a copy and a comparison of about 300 KB) in the next cycle
 * if they did not change; after a failed check the next waits 1, 2, 4 ...
 * up to QUIET_BACKOFF_MAX cycles. */
#define QUIET_MIN 4
#define QUIET_BACKOFF_MAX 32

struct rd_pend {
	uint64_t due;
	uint64_t key;		/* random tie-break: out-of-order completion */
	uint8_t tag, err;
	uint16_t len;
	uint8_t *data;
};

struct wr_rsp {
	uint64_t due;
	uint8_t err;
};

struct rxf {
	uint8_t *d;
	size_t len;
};

struct rtl_engine {
	uint32_t magic;
	struct hca_host_ops host;
	void *host_ctx;
	struct rtl_model *m;
	struct rtl_io io;
	unsigned int wb;
	uint64_t now;
	char err[256];
	uint64_t rng;
	unsigned int rd_lat, rd_jitter, rd_gap, wr_lat, wr_gap;
	uint64_t wdat_next;	/* the cycle write data is accepted again (wr_gap: idle cycles before it) */
	uint8_t bug;
	bool no_warp;		/* warp=0: clock every idle cycle (proves skipping changes nothing) */
	unsigned int debug;	/* HCASIM_RTL_DEBUG=N: state line every N cycles */
	FILE *txlog;		/* HCASIM_RTL_TXLOG=PREFIX: every host-side transaction */
	/* tracing */
	bool trace_on, tracing;
	uint64_t trace_from, trace_to;
	/* DMA reads */
	struct rd_pend *rq;
	size_t rq_n, rq_cap;
	bool cpl_active;
	struct rd_pend cur;
	unsigned int cur_beat, cur_beats;
	uint64_t cpl_next;	/* the cycle the next beat is valid (rd_gap: idle cycles before it) */
	/* DMA write being collected, and responses due */
	bool w_req;
	uint64_t w_addr;
	uint16_t w_len;
	bool w_done;
	size_t w_got;
	uint8_t wbuf[65536];
	struct wr_rsp wr[16];
	unsigned int wr_head, wr_n;
	/* MAC */
	uint8_t txbuf[MAX_FRAME];
	size_t txlen;
	struct rxf *rxq;
	size_t rx_head, rx_n, rx_cap, rx_off;
	struct mac_pace mac;	/* transmit pacing to the line (option mac=) */
	rtl_event_fn ev;	/* rtl_engine_set_observer */
	void *ev_ctx;
	/* Quiet cycles (docs/sim.md "Skipping quiet cycles") */
	bool quiet_on;		/* option quiet (default on) and the model can check */
	bool fixed;		/* the last cycle left the model as it found it, no handshake */
	uint64_t fixed_until;	/* the first cycle the harness changes an input then */
	uint64_t owed;		/* cycles skipped, not yet warped into the model's clock */
	bool head_same;		/* the last cycle was quiet and passed the cheap look */
	unsigned int check_wait, check_gap;
	struct rtl_engine_stats st;
};

#define to_rtl(e) ((struct rtl_engine *)(void *)(e))

static void set_err(struct rtl_engine *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* HCASIM_RTL_TXLOG: one line per transaction at the host interface, with its
 * device cycle (docs/rtl.md "Comparing two RTL versions cycle by cycle"). */
static void txlog(struct rtl_engine *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void txlog(struct rtl_engine *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->txlog)
		return;
	fprintf(r->txlog, "%llu ", (unsigned long long)r->now);
	va_start(ap, fmt);
	vfprintf(r->txlog, fmt, ap);
	va_end(ap);
	fputc('\n', r->txlog);
}

static uint32_t bytes_hash(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (n--)
		h = (h ^ *p++) * 16777619u;
	return h;
}
static void set_err(struct rtl_engine *r, const char *fmt, ...)
{
	va_list ap;

	r->st.protocol_errors++;
	if (r->err[0])
		return;		/* keep the first */
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
}

/* Tell the observer (rtl_engine_set_observer) about a host-interface event of this cycle. */
static void observe(struct rtl_engine *r, enum rtl_event_kind kind, uint8_t tag, uint64_t addr, uint32_t len)
{
	struct rtl_event ev = { .kind = kind, .cycle = r->now, .addr = addr, .len = len, .tag = tag };

	if (r->ev)
		r->ev(r->ev_ctx, &ev);
}

static uint64_t rnd(struct rtl_engine *r)
{
	uint64_t x = r->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->rng = x;
	return x * 0x2545F4914F6CDD1Dull;
}

/* Harness-side inputs of a held cycle: no handshake can happen. */
static void quiet_inputs(struct rtl_io *io)
{
	io->rd_req_ready = 0;
	io->rd_cpl_valid = 0;
	io->wr_req_ready = 0;
	io->wr_dat_ready = 0;
	io->wr_rsp_valid = 0;
	io->tx_tready = 0;
	io->rx_tvalid = 0;
}

static void trace_window(struct rtl_engine *r)
{
	bool on;

	if (!r->trace_on)
		return;
	on = r->now >= r->trace_from && (r->trace_to == 0 || r->now <= r->trace_to);
	if (on != r->tracing) {
		r->tracing = on;
		r->m->set_trace(r->m, on);
	}
}

/* ------------------------------------------------------------ one cycle */

static void flush_owed(struct rtl_engine *r);

/* The first cycle at which the harness changes an input of its own accord
 * (a read completion or a write response falling due, the paced MAC's
 * tready rising) or a transport timer falls due, UINT64_MAX if none:
 * until then, a cycle without a handshake leaves every input as it was. */
/* The transport timers' earliest deadline as a cycle to act in (never before
 * the next one: a passed deadline is acted on at once), UINT64_MAX if none. */
static uint64_t timer_next(const struct rtl_engine *r)
{
	if (r->io.next_timer == UINT64_MAX)
		return UINT64_MAX;
	return r->io.next_timer > r->now ? r->io.next_timer : r->now + 1;
}

static uint64_t harness_next(const struct rtl_engine *r)
{
	uint64_t t = UINT64_MAX, m;

	if (!r->cpl_active)
		for (size_t i = 0; i < r->rq_n; i++)
			if (r->rq[i].due < t)
				t = r->rq[i].due;
	/* the next beat of a completion after an rd_gap pause */
	if (r->cpl_active && r->cpl_next > r->now && r->cpl_next < t)
		t = r->cpl_next;
	if (r->wr_n && r->wr[r->wr_head].due < t)
		t = r->wr[r->wr_head].due;
	/* write data accepted again after a wr_gap pause */
	if (r->wdat_next > r->now && r->wdat_next < t)
		t = r->wdat_next;
	/* a transport timer falling due changes the RTL's state without an input */
	m = timer_next(r);
	if (m < t)
		t = m;
	/* the paced MAC raises tready by itself */
	m = mac_pace_next_ready(&r->mac, r->now);	/* now: ready */
	if (m > r->now && m < t)
		t = m;
	return t;
}

/* Try a quiet check in this cycle (a cycle without a handshake)? */
static bool want_check(struct rtl_engine *r, bool full)
{
	if (!r->quiet_on || r->trace_on || r->debug)
		return false;
	if (!full && r->check_wait) {
		r->check_wait--;
		return false;
	}
	return harness_next(r) > r->now + QUIET_MIN;
}

/* After the clock of a checked cycle: the model at a fixed point (same state,
 * no handshake, no interrupt) stays there while the inputs stay the same. */
static void checked(struct rtl_engine *r, bool full, bool same)
{
	r->st.quiet_checks++;
	if (same && !full) {
		r->head_same = true;
		return;
	}
	if (!same) {
		r->check_gap = r->check_gap ? 2 * r->check_gap : 1;
		if (r->check_gap > QUIET_BACKOFF_MAX)
			r->check_gap = QUIET_BACKOFF_MAX;
		r->check_wait = r->check_gap;
		return;
	}
	r->st.quiet_hits++;
	r->check_gap = 0;
	r->fixed = true;
	r->fixed_until = harness_next(r);
}

static bool pick_completion(struct rtl_engine *r)
{
	size_t best = SIZE_MAX;

	for (size_t i = 0; i < r->rq_n; i++) {
		if (r->rq[i].due > r->now)
			continue;
		if (best == SIZE_MAX || r->rq[i].key < r->rq[best].key)
			best = i;
	}
	if (best == SIZE_MAX)
		return false;
	r->cur = r->rq[best];
	r->rq[best] = r->rq[--r->rq_n];
	r->cpl_active = true;
	r->cpl_next = r->now;
	r->cur_beat = 0;
	r->cur_beats = r->cur.err ? 1 : (r->cur.len + r->wb - 1) / r->wb;
	if (r->cur_beats == 0)
		r->cur_beats = 1;
	return true;
}

static void accept_read(struct rtl_engine *r)
{
	struct rd_pend p;
	int rc;

	memset(&p, 0, sizeof(p));
	p.tag = r->io.rd_req_tag;
	p.len = r->io.rd_req_len;
	p.due = r->now + r->rd_lat + (r->rd_jitter ? rnd(r) % (r->rd_jitter + 1) : 0);
	p.key = rnd(r);
	if (p.len == 0) {
		set_err(r, "DMA read of 0 bytes at 0x%llx", (unsigned long long)r->io.rd_req_addr);
		p.len = 1;
	}
	p.data = malloc(p.len);
	if (!p.data) {
		set_err(r, "out of memory");
		return;
	}
	/* the read happens when the request is accepted (no byte moves on a fault) */
	rc = r->host.dma_read(r->host_ctx, r->io.rd_req_addr, p.data, p.len);
	txlog(r, "dma_read 0x%llx %u%s", (unsigned long long)r->io.rd_req_addr, p.len, rc ? " fault" : "");
	p.err = rc != 0;
	if (r->rq_n == r->rq_cap) {
		size_t n = r->rq_cap ? 2 * r->rq_cap : 16;
		struct rd_pend *q = realloc(r->rq, n * sizeof(*q));

		if (!q) {
			free(p.data);
			set_err(r, "out of memory");
			return;
		}
		r->rq = q;
		r->rq_cap = n;
	}
	r->rq[r->rq_n++] = p;
	r->st.dma_reads++;
	observe(r, RTL_EV_DMA_RD_REQ, p.tag, r->io.rd_req_addr, p.len);
	if (r->debug)
		fprintf(stderr, "[rtl %p @%llu] read tag %u addr 0x%llx len %u%s\n", (void *)r,
			(unsigned long long)r->now, p.tag, (unsigned long long)r->io.rd_req_addr, p.len,
			p.err ? " FAULT" : "");
}

static void finish_write(struct rtl_engine *r)
{
	int rc;

	if (r->w_got != r->w_len)
		set_err(r, "DMA write at 0x%llx: %zu data bytes for a %u-byte request",
			(unsigned long long)r->w_addr, r->w_got, r->w_len);
	rc = r->host.dma_write(r->host_ctx, r->w_addr, r->wbuf, r->w_got);
	txlog(r, "dma_write 0x%llx %zu %08x%s", (unsigned long long)r->w_addr, r->w_got, bytes_hash(r->wbuf, r->w_got),
	      rc ? " fault" : "");
	if (r->wr_n == 16) {
		set_err(r, "DMA write responses overflow");
	} else {
		r->wr[(r->wr_head + r->wr_n) % 16] = (struct wr_rsp){ .due = r->now + r->wr_lat, .err = rc != 0 };
		r->wr_n++;
	}
	r->w_req = false;
	r->w_done = false;
	r->w_got = 0;
	r->st.dma_writes++;
	r->st.dma_write_faults += rc != 0;
}

static unsigned int keep_bytes(struct rtl_engine *r, uint64_t keep, const char *what)
{
	unsigned int n = 0;

	while (n < r->wb && (keep >> n & 1))
		n++;
	if (r->wb < 64 ? (keep >> n) != 0 : (n < 64 && (keep >> n) != 0))
		set_err(r, "%s: byte enables 0x%llx not contiguous from lane 0", what, (unsigned long long)keep);
	return n;
}

static void cycle(struct rtl_engine *r)
{
	struct rtl_io *io = &r->io;
	bool check, beat, full = r->head_same;

	flush_owed(r);
	r->fixed = false;
	r->head_same = false;
	io->eng_hold = 0;
	io->time_warp = 0;
	io->rd_req_ready = 1;
	io->wr_req_ready = 1;
	io->wr_dat_ready = r->wdat_next <= r->now;	/* not in a wr_gap pause */
	io->tx_tready = mac_pace_ready(&r->mac, r->now);

	/* read completion beat */
	if (!r->cpl_active)
		pick_completion(r);
	beat = r->cpl_active && r->cpl_next <= r->now;	/* not in an rd_gap pause */
	io->rd_cpl_valid = beat;
	if (r->cpl_active) {
		size_t off = (size_t)r->cur_beat * r->wb, n;

		io->rd_cpl_tag = r->cur.tag;
		io->rd_cpl_err = r->cur.err;
		io->rd_cpl_last = r->cur_beat + 1 == r->cur_beats;
		memset(io->rd_cpl_data, 0, sizeof(io->rd_cpl_data));
		if (!r->cur.err && off < r->cur.len) {
			n = r->cur.len - off < r->wb ? r->cur.len - off : r->wb;
			memcpy(io->rd_cpl_data, r->cur.data + off, n);
		}
	}
	/* write response */
	io->wr_rsp_valid = r->wr_n && r->wr[r->wr_head].due <= r->now;
	io->wr_rsp_err = io->wr_rsp_valid ? r->wr[r->wr_head].err : 0;
	/* receive beat */
	io->rx_tvalid = r->rx_n != 0;
	if (r->rx_n) {
		struct rxf *f = &r->rxq[r->rx_head];
		size_t n = f->len - r->rx_off < r->wb ? f->len - r->rx_off : r->wb;

		memset(io->rx_tdata, 0, sizeof(io->rx_tdata));
		memcpy(io->rx_tdata, f->d + r->rx_off, n);
		io->rx_tkeep = n >= 64 ? ~0ull : (1ull << n) - 1;
		io->rx_tlast = r->rx_off + n == f->len;
	}

	r->m->settle(r->m, io);
	check = !io->rd_req_valid && !(beat && io->rd_cpl_ready) && !io->wr_req_valid &&
		!io->wr_dat_valid && !io->wr_rsp_valid && !io->tx_tvalid && !(io->rx_tvalid && io->rx_tready) &&
		want_check(r, full);

	/* handshakes of this cycle */
	if (io->rd_req_valid)
		accept_read(r);
	if (beat && io->rd_cpl_ready) {
		/* rd_gap: a seeded 0..rd_gap idle cycles (valid low) before the next beat */
		r->cpl_next = r->now + 1 + (r->rd_gap ? rnd(r) % (r->rd_gap + 1) : 0);
		if (++r->cur_beat == r->cur_beats) {
			if (r->debug)
				fprintf(stderr, "[rtl %p @%llu] completion tag %u done\n", (void *)r,
					(unsigned long long)r->now, r->cur.tag);
			observe(r, RTL_EV_DMA_RD_CPL, r->cur.tag, 0, r->cur.len);
			free(r->cur.data);
			r->cpl_active = false;
		}
	}
	if (io->wr_req_valid) {
		if (r->w_req)
			set_err(r, "DMA write request while one is in progress");
		r->w_req = true;
		r->w_addr = io->wr_req_addr;
		r->w_len = io->wr_req_len;
	}
	if (io->wr_dat_valid && io->wr_dat_ready) {
		unsigned int n = keep_bytes(r, io->wr_dat_strb, "DMA write data");

		/* wr_gap: a seeded 0..wr_gap cycles (ready low) before the next beat is taken */
		if (r->wr_gap)
			r->wdat_next = r->now + 1 + rnd(r) % (r->wr_gap + 1);

		if (!io->wr_dat_last && n != r->wb)
			set_err(r, "DMA write data: partial beat before the last");
		if (r->w_got + n <= sizeof(r->wbuf)) {
			memcpy(r->wbuf + r->w_got, io->wr_dat_data, n);
			r->w_got += n;
		}
		if (io->wr_dat_last)
			r->w_done = true;
	}
	if (r->w_req && r->w_done)
		finish_write(r);
	if (io->wr_rsp_valid) {
		r->wr_head = (r->wr_head + 1) % 16;
		r->wr_n--;
	}
	if (io->tx_tvalid && !io->tx_tready)
		r->st.tx_held++;
	if (io->tx_tvalid && io->tx_tready) {
		unsigned int n = keep_bytes(r, io->tx_tkeep, "MAC transmit");

		if (!io->tx_tlast && n != r->wb)
			set_err(r, "MAC transmit: partial beat before tlast");
		mac_pace_beat(&r->mac, r->now, n, io->tx_tlast);
		if (r->txlen == 0) {
			r->st.tx_first_beat = r->now;
			observe(r, RTL_EV_TX_FIRST, 0, 0, n);
		}
		if (r->txlen + n <= sizeof(r->txbuf)) {
			memcpy(r->txbuf + r->txlen, io->tx_tdata, n);
			r->txlen += n;
		} else
			set_err(r, "MAC transmit: frame longer than %d bytes", MAX_FRAME);
		if (io->tx_tlast) {
			observe(r, RTL_EV_TX_LAST, 0, 0, (uint32_t)r->txlen);
			r->host.tx_frame(r->host_ctx, r->txbuf, r->txlen);
			txlog(r, "tx_frame %zu %08x", r->txlen, bytes_hash(r->txbuf, r->txlen));
			r->st.frames_tx++;
			r->txlen = 0;
		}
	}
	if (io->rx_tvalid && io->rx_tready) {
		struct rxf *f = &r->rxq[r->rx_head];
		size_t n = f->len - r->rx_off < r->wb ? f->len - r->rx_off : r->wb;

		r->rx_off += n;
		if (r->rx_off == f->len) {
			free(f->d);
			r->rx_head = (r->rx_head + 1) % r->rx_cap;
			r->rx_n--;
			r->rx_off = 0;
			r->st.frames_rx++;
		}
	}

	if (check)
		r->m->remember(r->m, full);
	r->m->clock(r->m, io);
	r->st.cycles_clocked++;
	if ((io->dbg & 0xff) < 32)
		r->st.jobs_seen |= 1u << (io->dbg & 0xff);
	r->now = io->cycle;
	if (check)
		checked(r, full, !io->msix_valid && r->m->unchanged(r->m, full));
	if (r->debug && r->now % r->debug == 0)
		fprintf(stderr, "[rtl %p @%llu] busy %u dbg 0x%08x rq %zu cpl %d w %d/%d rsp %u rx %zu tx %zu\n",
			(void *)r, (unsigned long long)r->now, io->busy, io->dbg, r->rq_n, r->cpl_active, r->w_req,
			r->w_done, r->wr_n, r->rx_n, r->txlen);
	if (io->msix_valid) {
		r->st.irqs++;
		r->host.interrupt(r->host_ctx, io->msix_vector);
		txlog(r, "interrupt %u", io->msix_vector);
	}
	trace_window(r);
}

/* Nothing in the RTL or in the harness can change without new input. */
static bool idle(const struct rtl_engine *r)
{
	return !r->io.busy && !r->rq_n && !r->cpl_active && !r->w_req && !r->w_done && !r->wr_n &&
	       !r->rx_n && !r->txlen && !r->io.tx_tvalid && !r->io.rd_req_valid && !r->io.wr_req_valid &&
	       !r->io.wr_dat_valid;
}

/* Skipped cycles, idle or quiet: the model's clock jumps by the time it is
 * next clocked or accessed (flush_owed), so that a node skipping one cycle
 * at a time while another works costs no evaluation. */
static void warp(struct rtl_engine *r, uint64_t n)
{
	struct rtl_io *io = &r->io;

	quiet_inputs(io);
	io->eng_hold = 1;
	io->time_warp = 1;
	io->time_warp_cycles = n;
	/* settle first, as rtl_model's clock() requires: clock() leaves clk low
	 * without evaluating it (unless tracing), so a warp straight after a clocked
	 * cycle() saw no rising edge at all and the device clock did not move */
	r->m->settle(r->m, io);
	r->m->clock(r->m, io);
	io->time_warp = 0;
	io->time_warp_cycles = 0;
	io->eng_hold = 0;
	r->m->settle(r->m, io);
	r->now = io->cycle;
}

static void flush_owed(struct rtl_engine *r)
{
	uint64_t n = r->owed;

	if (!n)
		return;
	r->owed = 0;
	warp(r, n);
	if (r->now != r->io.cycle && !r->err[0])
		set_err(r, "time warp by %llu cycles: device clock %llu, harness %llu", (unsigned long long)n,
			(unsigned long long)r->io.cycle, (unsigned long long)r->now);
}

static void owe(struct rtl_engine *r, uint64_t n, bool idle)
{
	r->owed += n;
	r->now += n;
	if (idle)
		r->st.cycles_skipped += n;
	else
		r->st.cycles_quiet += n;
	trace_window(r);
}

/* ---------------------------------------------------- register accesses */

static void held_clock(struct rtl_engine *r)
{
	quiet_inputs(&r->io);
	r->io.eng_hold = 1;
	r->m->clock(r->m, &r->io);
	if (r->io.soft_reset) {
		/* frames still queued in the harness were "received" before the
		 * reset: drop them, except a frame already partly streamed in */
		size_t keep = r->rx_off ? 1 : 0;

		while (r->rx_n > keep) {
			size_t i = (r->rx_head + r->rx_n - 1) % r->rx_cap;

			free(r->rxq[i].d);
			r->rx_n--;
		}
	}
}

static uint32_t axil(struct rtl_engine *r, bool mgmt, bool write, uint32_t addr, uint32_t val)
{
	struct rtl_io *io = &r->io;
	uint8_t *awv = mgmt ? &io->m_awvalid : &io->b_awvalid, *wv = mgmt ? &io->m_wvalid : &io->b_wvalid;
	uint8_t *arv = mgmt ? &io->m_arvalid : &io->b_arvalid;
	uint8_t *bready = mgmt ? &io->m_bready : &io->b_bready, *rready = mgmt ? &io->m_rready : &io->b_rready;
	uint32_t data = 0;
	int n;

	flush_owed(r);
	r->fixed = false;
	r->head_same = false;
	r->st.reg_accesses++;
	quiet_inputs(io);
	io->eng_hold = 1;
	if (write) {
		*awv = *wv = 1;
		if (mgmt) {
			io->m_awaddr = addr; io->m_wdata = val; io->m_wstrb = 0xF;
		} else {
			io->b_awaddr = addr; io->b_wdata = val; io->b_wstrb = 0xF;
		}
	} else {
		*arv = 1;
		if (mgmt)
			io->m_araddr = addr;
		else
			io->b_araddr = addr;
	}
	for (n = 0; n < AXIL_TIMEOUT; n++) {
		bool took;

		r->m->settle(r->m, io);
		took = write ? (mgmt ? io->m_awready : io->b_awready) : (mgmt ? io->m_arready : io->b_arready);
		held_clock(r);
		if (took)
			break;
	}
	*awv = *wv = *arv = 0;
	for (; n < AXIL_TIMEOUT; n++) {
		bool done;

		r->m->settle(r->m, io);
		done = write ? (mgmt ? io->m_bvalid : io->b_bvalid) : (mgmt ? io->m_rvalid : io->b_rvalid);
		if (done) {
			data = mgmt ? io->m_rdata : io->b_rdata;
			if (write)
				*bready = 1;
			else
				*rready = 1;
			held_clock(r);
			*bready = *rready = 0;
			break;
		}
		held_clock(r);
	}
	if (n >= AXIL_TIMEOUT)
		set_err(r, "%s %s 0x%x: no AXI4-Lite response", mgmt ? "mgmt" : "bar0", write ? "write" : "read",
			addr);
	io->eng_hold = 0;
	r->m->settle(r->m, io);
	return data;
}

/* ----------------------------------------------------------- engine ops */

/* Options (docs/rtl.md "Engine configuration"); checked by sim/engine_opts. */
struct rtl_opts {
	unsigned int rd_lat, rd_jitter, rd_gap, wr_lat, wr_gap, quiet;
	unsigned int bug;	/* index into bug_names = the dbg_bug code */
	unsigned int warp;
	unsigned int mac;	/* enum mac_speed: mac_pace_names */
};

static const char *const bug_names[] = { "none", "hdr_se", "udp_sport", "drop_ack", "cqe_field", "hdr_bit",
					 "read_len", "atomic_orig", "nak_code", "retx_psn", "ack_timer", "rnr_timer", NULL };

#define RTL_LAT_MAX 1000000u	/* cycles (4 ms): beyond any host memory */

static const struct hca_engine_opt rtl_opt_table[] = {
	HCA_OPT_UINT(struct rtl_opts, rd_lat, 0, RTL_LAT_MAX, "DMA read latency, cycles; default 24"),
	HCA_OPT_UINT(struct rtl_opts, rd_jitter, 0, RTL_LAT_MAX, "extra random read latency, cycles; default 16"),
	HCA_OPT_UINT(struct rtl_opts, wr_lat, 0, RTL_LAT_MAX, "DMA write response latency, cycles; default 8"),
	HCA_OPT_ENUM(struct rtl_opts, bug, bug_names, "a planted test-only RTL bug"),
	HCA_OPT_BOOL(struct rtl_opts, warp, "0: clock idle cycles one by one instead of skipping them; default 1"),
	HCA_OPT_ENUM(struct rtl_opts, mac, mac_pace_names, "MAC transmit paced to the line; default none"),
	HCA_OPT_BOOL(struct rtl_opts, quiet, "0: clock every busy cycle (no quiet-cycle skipping)"),
	HCA_OPT_UINT(struct rtl_opts, rd_gap, 0, RTL_LAT_MAX,
		     "idle cycles between two beats of a read completion: a random 0..N each; default 0"),
	HCA_OPT_UINT(struct rtl_opts, wr_gap, 0, RTL_LAT_MAX,
		     "cycles write data is not taken after a beat: a random 0..N each; default 0"),
	{ 0 },
};

static int rtl_create(const struct hca_engine_config *cfg, const struct hca_host_ops *host, void *host_ctx,
		      struct hca_engine **out)
{
	struct rtl_engine *r;
	unsigned int w = cfg && cfg->data_w ? cfg->data_w : 64;
	const char *opts = cfg ? cfg->options : NULL;
	struct rtl_opts o = { .rd_lat = 24, .rd_jitter = 16, .wr_lat = 8, .warp = 1, .quiet = 1 };

	if (!host || !out || !host->dma_read || !host->dma_write || !host->tx_frame || !host->interrupt)
		return -EINVAL;
	if (w != 64 && w != 512)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->magic = RTL_MAGIC;
	r->host = *host;
	r->host_ctx = host_ctx;
	r->m = w == 64 ? rtl_model_new_64() : rtl_model_new_512();
	if (!r->m) {
		free(r);
		return -ENODEV;
	}
	r->wb = w / 8;
	r->rng = (cfg ? cfg->seed : 0) * 0x9E3779B97F4A7C15ull + 0x1234567ull;
	if (!r->rng)
		r->rng = 1;
	if (hca_engine_opts_parse("rtl", rtl_opt_table, opts, &o)) {
		r->m->destroy(r->m);
		free(r);
		return -EINVAL;
	}
	r->rd_lat = o.rd_lat;
	r->rd_jitter = o.rd_jitter;
	r->rd_gap = o.rd_gap;
	r->wr_lat = o.wr_lat;
	r->wr_gap = o.wr_gap;
	r->bug = (uint8_t)o.bug;
	r->no_warp = !o.warp;
	mac_pace_init(&r->mac, (enum mac_speed)o.mac, r->wb);
	/* HCASIM_RTL_QUIET=0 turns quiet-cycle skipping off for a whole process
	 * (sim/regress/quiet_check.sh runs the make sim plan both ways) */
	if (getenv("HCASIM_RTL_QUIET") && !strcmp(getenv("HCASIM_RTL_QUIET"), "0"))
		o.quiet = 0;
	r->quiet_on = o.quiet && r->m->remember && r->m->unchanged;
	if (getenv("HCASIM_RTL_TXLOG")) {
		static unsigned int engines;	/* numbered in creation order, per process */
		char fn[4096];

		snprintf(fn, sizeof(fn), "%s.%04u", getenv("HCASIM_RTL_TXLOG"), engines++);
		r->txlog = fopen(fn, "w");
	}
	if (getenv("HCASIM_RTL_DEBUG"))
		r->debug = (unsigned int)strtoul(getenv("HCASIM_RTL_DEBUG"), NULL, 0);
	r->io.dbg_bug = r->bug;
	if (cfg && cfg->trace) {
		if (r->m->trace_open(r->m, cfg->trace)) {
			r->m->destroy(r->m);
			free(r);
			return -EIO;
		}
		r->trace_on = true;
		r->trace_from = cfg->trace_from;
		r->trace_to = cfg->trace_to;
	}
	/* power-on reset, engine held so the device clock starts at 0 */
	r->io.rst_n = 0;
	quiet_inputs(&r->io);
	r->io.eng_hold = 1;
	for (int i = 0; i < 4; i++)
		r->m->clock(r->m, &r->io);
	r->io.rst_n = 1;
	r->m->clock(r->m, &r->io);
	r->io.eng_hold = 0;
	r->m->settle(r->m, &r->io);
	r->now = r->io.cycle;
	trace_window(r);
	*out = (struct hca_engine *)(void *)r;
	return 0;
}

static void rtl_destroy(struct hca_engine *e)
{
	struct rtl_engine *r = to_rtl(e);

	if (!r)
		return;
	if (r->txlog) {
		txlog(r, "end: %llu cycles clocked, %llu quiet skipped", (unsigned long long)r->st.cycles_clocked,
		      (unsigned long long)r->st.cycles_quiet);
		fclose(r->txlog);
	}
	if (getenv("HCASIM_RTL_STATS"))	/* where the cycles went (docs/sim.md) */
		fprintf(stderr, "rtl engine %u-bit: %llu cycles clocked, %llu idle and %llu quiet skipped; "
			"quiet checks %llu, fixed points %llu\n", r->wb * 8, (unsigned long long)r->st.cycles_clocked,
			(unsigned long long)r->st.cycles_skipped, (unsigned long long)r->st.cycles_quiet,
			(unsigned long long)r->st.quiet_checks, (unsigned long long)r->st.quiet_hits);
	r->m->destroy(r->m);
	for (size_t i = 0; i < r->rq_n; i++)
		free(r->rq[i].data);
	free(r->rq);
	if (r->cpl_active)
		free(r->cur.data);
	for (size_t i = 0; i < r->rx_n; i++)
		free(r->rxq[(r->rx_head + i) % r->rx_cap].d);
	free(r->rxq);
	r->magic = 0;
	free(r);
}

static uint32_t rtl_bar0_read(struct hca_engine *e, uint32_t off)
{
	return axil(to_rtl(e), false, false, off, 0);
}

static void rtl_bar0_write(struct hca_engine *e, uint32_t off, uint32_t val)
{
	axil(to_rtl(e), false, true, off, val);
}

static uint32_t rtl_mgmt_read(struct hca_engine *e, uint32_t addr)
{
	return axil(to_rtl(e), true, false, addr, 0);
}

static void rtl_mgmt_write(struct hca_engine *e, uint32_t addr, uint32_t val)
{
	axil(to_rtl(e), true, true, addr, val);
}

static void rtl_rx_frame(struct hca_engine *e, const uint8_t *frame, size_t len)
{
	struct rtl_engine *r = to_rtl(e);
	struct rxf f;

	if (!frame || len == 0 || len > 65536)
		return;
	r->fixed = false;	/* a new input */
	r->head_same = false;
	if (r->rx_n == r->rx_cap) {
		size_t ncap = r->rx_cap ? 2 * r->rx_cap : 64;
		struct rxf *n = malloc(ncap * sizeof(*n));

		if (!n) {
			set_err(r, "rx queue: out of memory");
			return;
		}
		for (size_t i = 0; i < r->rx_n; i++)
			n[i] = r->rxq[(r->rx_head + i) % r->rx_cap];
		free(r->rxq);
		r->rxq = n;
		r->rx_cap = ncap;
		r->rx_head = 0;
	}
	f.d = malloc(len);
	if (!f.d) {
		set_err(r, "rx frame: out of memory");
		return;
	}
	memcpy(f.d, frame, len);
	f.len = len;
	r->rxq[(r->rx_head + r->rx_n) % r->rx_cap] = f;
	r->rx_n++;
}

static void rtl_advance(struct hca_engine *e, uint64_t cycles)
{
	struct rtl_engine *r = to_rtl(e);
	uint64_t end = r->now + cycles;

	if (end < r->now)
		end = UINT64_MAX;
	while (r->now < end) {
		uint64_t to = r->now;
		bool at_rest = idle(r);

		/* idle: skip to the end; quiet (a fixed point): skip to the next input
		 * change (harness_next, which counts the timer deadline); never past
		 * a timer deadline (the RTL finds a passed deadline by itself within
		 * 2^LOG_MAX_QP cycles) */
		if (at_rest) {
			if (!r->no_warp && r->io.next_timer > r->now)
				to = r->io.next_timer < end ? r->io.next_timer : end;
		} else if (r->fixed) {
			to = r->fixed_until < end ? r->fixed_until : end;
		}
		if (to > r->now)
			owe(r, to - r->now, at_rest);
		else
			cycle(r);
	}
}

static uint64_t rtl_now(struct hca_engine *e)
{
	return to_rtl(e)->now;
}

/*
 * A busy RTL acts on its next clock edge: now + 1 (advancing by 0 cycles
 * would do nothing, unlike the untimed model); one at a fixed point acts
 * when the harness next changes an input or a timer falls due.  Idle: the
 * earliest transport timer deadline (the next_timer port: a lower bound,
 * exact after a full timer scan), UINT64_MAX when no timer runs.
 */
static uint64_t rtl_next_event(struct hca_engine *e)
{
	struct rtl_engine *r = to_rtl(e);

	if (idle(r))
		return timer_next(r);
	if (r->fixed && r->fixed_until != UINT64_MAX && r->fixed_until > r->now)
		return r->fixed_until;
	return r->now + 1;
}

static int rtl_fw_irq(struct hca_engine *e)
{
	return to_rtl(e)->io.fw_irq;
}

static const char *rtl_last_error(struct hca_engine *e)
{
	return to_rtl(e)->err;
}

int rtl_engine_stats(struct hca_engine *e, struct rtl_engine_stats *st)
{
	struct rtl_engine *r = to_rtl(e);

	if (!r || r->magic != RTL_MAGIC || !st)
		return -EINVAL;
	*st = r->st;
	st->tx_wire_bytes = r->mac.wire_bytes;
	st->mac_rate = r->mac.rate;
	return 0;
}

int rtl_engine_set_observer(struct hca_engine *e, rtl_event_fn fn, void *ctx)
{
	struct rtl_engine *r = to_rtl(e);

	if (!r || r->magic != RTL_MAGIC)
		return -EINVAL;
	r->ev = fn;
	r->ev_ctx = ctx;
	return 0;
}

/*
 * A management write and a BAR0 read presented in the same cycle, as two
 * masters would (the engine held, as for every register access); each
 * channel is released by its own handshake.  Returns 0 and the read data in
 * *data, -ETIMEDOUT when a response never comes, -EINVAL for a non-rtl engine.
 */
int rtl_engine_axil_pair(struct hca_engine *e, uint32_t mgmt_addr, uint32_t mgmt_val, uint32_t bar0_addr,
			 uint32_t *data)
{
	struct rtl_engine *r = to_rtl(e);
	struct rtl_io *io;
	bool m_addr = true, m_resp = false, b_addr = true, b_resp = false;
	int n;

	if (!r || r->magic != RTL_MAGIC || !data)
		return -EINVAL;
	io = &r->io;
	flush_owed(r);
	r->fixed = false;
	r->head_same = false;
	r->st.reg_accesses += 2;
	quiet_inputs(io);
	io->eng_hold = 1;
	io->m_awaddr = mgmt_addr;
	io->m_wdata = mgmt_val;
	io->m_wstrb = 0xF;
	io->b_araddr = bar0_addr;
	for (n = 0; n < AXIL_TIMEOUT && (m_addr || !m_resp || b_addr || !b_resp); n++) {
		bool m_took, b_took;

		io->m_awvalid = io->m_wvalid = m_addr;
		io->b_arvalid = b_addr;
		r->m->settle(r->m, io);
		m_took = m_addr && io->m_awready;
		b_took = b_addr && io->b_arready;
		io->m_bready = !m_addr && !m_resp && io->m_bvalid;
		io->b_rready = !b_addr && !b_resp && io->b_rvalid;
		if (io->b_rready)
			*data = io->b_rdata;
		m_resp |= io->m_bready;
		b_resp |= io->b_rready;
		held_clock(r);
		io->m_bready = io->b_rready = 0;
		m_addr &= !m_took;
		b_addr &= !b_took;
	}
	io->m_awvalid = io->m_wvalid = io->b_arvalid = 0;
	io->eng_hold = 0;
	r->m->settle(r->m, io);
	if (m_addr || !m_resp || b_addr || !b_resp) {
		set_err(r, "mgmt write 0x%x with bar0 read 0x%x: no AXI4-Lite response", mgmt_addr, bar0_addr);
		return -ETIMEDOUT;
	}
	return 0;
}

/*
 * A BAR0 write whose AXI4-Lite transaction runs while the engine works (not
 * held: every cycle of it is a full harness cycle), as a doorbell arrives in
 * hardware.  0, -ETIMEDOUT without a write response, -EINVAL for a non-rtl
 * engine.
 */
int rtl_engine_bar0_write_live(struct hca_engine *e, uint32_t off, uint32_t val)
{
	struct rtl_engine *r = to_rtl(e);
	struct rtl_io *io;
	bool addr = true, resp = false;
	int n;

	if (!r || r->magic != RTL_MAGIC)
		return -EINVAL;
	io = &r->io;
	flush_owed(r);
	r->fixed = false;
	r->head_same = false;
	r->st.reg_accesses++;
	io->b_awaddr = off;
	io->b_wdata = val;
	io->b_wstrb = 0xF;
	for (n = 0; n < AXIL_TIMEOUT && !resp; n++) {
		bool took;

		io->b_awvalid = io->b_wvalid = addr;
		r->m->settle(r->m, io);
		took = addr && io->b_awready;
		io->b_bready = resp = !addr && io->b_bvalid;
		cycle(r);
		io->b_bready = 0;
		addr &= !took;
	}
	io->b_awvalid = io->b_wvalid = 0;
	r->m->settle(r->m, io);
	if (!resp) {
		set_err(r, "live bar0 write 0x%x: no AXI4-Lite response", off);
		return -ETIMEDOUT;
	}
	return 0;
}

const struct hca_engine_ops hca_rtl_engine_ops = {
	.name = "rtl",
	.create = rtl_create,
	.destroy = rtl_destroy,
	.bar0_read = rtl_bar0_read,
	.bar0_write = rtl_bar0_write,
	.mgmt_read = rtl_mgmt_read,
	.mgmt_write = rtl_mgmt_write,
	.rx_frame = rtl_rx_frame,
	.advance = rtl_advance,
	.now = rtl_now,
	.next_event = rtl_next_event,
	.fw_irq = rtl_fw_irq,
	.last_error = rtl_last_error,
};

void hca_rtl_engine_register(void)
{
	hca_engine_register(&hca_rtl_engine_ops);
}

__attribute__((constructor)) static void rtl_ctor(void)
{
	hca_rtl_engine_register();
}
