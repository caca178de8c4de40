// SPDX-License-Identifier: MIT
/*
 * The simulated wire (sim/wire.h): point-to-point cables or a learning L2
 * switch, FIFO links with latency, seeded faults, pcap capture and replay.
 */
#include "wire.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pcap.h"

#define WIRE_MAX_FRAME (65535 + 14 + 4)
#define WIRE_HELD_MAX 8		/* held (reordered) copies per link */
#define WIRE_MAC_TABLE 256
#define WIRE_DEFAULT_PORTS 64
#define WIRE_DEFAULT_REORDER_TIMEOUT 10000
/*
 * Copies' buffers are kept for reuse (a switch forwarding a million frames a
 * second should not malloc and free two blocks per frame): up to
 * WIRE_POOL_MAX frames of WIRE_POOL_BUF bytes (a PMTU-4096 frame with every
 * header); larger frames are allocated to size and freed.
 */
#define WIRE_POOL_MAX 1024
#define WIRE_POOL_BUF 4352

struct wframe {
	uint64_t due;
	uint64_t seq;		/* tie-break: scheduling order */
	unsigned int port;	/* destination */
	size_t len;
	size_t cap;		/* bytes at data */
	struct wframe *next;	/* in the pool */
	uint8_t *data;		/* = buf */
	uint8_t buf[];
};

struct held {
	struct wframe *f;
	unsigned int remaining;	/* later frames to let pass */
	uint64_t deadline;
};

struct wport {
	wire_rx_fn rx;
	void *ctx;
	uint64_t last_due;	/* FIFO: nothing on this link is due before this */
	struct held held[WIRE_HELD_MAX];
	unsigned int nheld;
	struct wire_port_stats st;
};

struct mac_entry {
	uint8_t mac[6];
	unsigned int port;
};

struct wire {
	struct wire_config cfg;
	struct wire_faults faults;
	uint64_t thr_drop, thr_dup, thr_reorder, thr_corrupt, thr_jitter;
	bool all_drop, all_dup, all_reorder, all_corrupt, all_jitter;
	uint64_t rng[4];		/* xoshiro256** */
	struct wport *ports;
	unsigned int nports, max_ports;
	struct wframe **heap;
	size_t hn, hcap;
	unsigned int nheld;		/* over all ports */
	uint64_t seq;
	uint64_t last_now;
	struct mac_entry macs[WIRE_MAC_TABLE];
	unsigned int nmacs, mac_next;
	struct pcap_writer *cap_tx, *cap_rx;
	struct wire_stats st;
	struct wframe *pool;		/* spare frames of WIRE_POOL_BUF bytes */
	unsigned int npool;
};

/* ---------------------------------------------------------------- PRNG */

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t xoshiro_next(uint64_t s[4])
{
	uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

/* ----------------------------------------------------------------- heap */

static bool before(const struct wframe *a, const struct wframe *b)
{
	return a->due < b->due || (a->due == b->due && a->seq < b->seq);
}

static int heap_push(struct wire *w, struct wframe *f)
{
	size_t i;

	if (w->hn == w->hcap) {
		size_t nc = w->hcap ? w->hcap * 2 : 64;
		struct wframe **h = realloc(w->heap, nc * sizeof(*h));

		if (!h)
			return -ENOMEM;
		w->heap = h;
		w->hcap = nc;
	}
	f->seq = w->seq++;
	i = w->hn++;
	while (i && before(f, w->heap[(i - 1) / 2])) {
		w->heap[i] = w->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	w->heap[i] = f;
	return 0;
}

/* Move heap[i] down to its place below i. */
static void sift_down(struct wire *w, size_t i)
{
	struct wframe *f = w->heap[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= w->hn)
			break;
		if (c + 1 < w->hn && before(w->heap[c + 1], w->heap[c]))
			c++;
		if (!before(w->heap[c], f))
			break;
		w->heap[i] = w->heap[c];
		i = c;
	}
	w->heap[i] = f;
}

static struct wframe *heap_pop(struct wire *w)
{
	struct wframe *top = w->heap[0];

	if (--w->hn) {
		w->heap[0] = w->heap[w->hn];
		sift_down(w, 0);
	}
	return top;
}

/* ------------------------------------------------------------- config */

static int rate_thr(double r, uint64_t *thr, bool *all)
{
	if (isnan(r) || r < 0.0 || r > 1.0)
		return -EINVAL;
	*all = r >= 1.0;
	*thr = r <= 0.0 ? 0 : *all ? UINT64_MAX : (uint64_t)ldexp(r, 64);
	return 0;
}

int wire_set_faults(struct wire *w, const struct wire_faults *f)
{
	struct wire_faults n;
	uint64_t t[5];
	bool a[5];

	if (!w || !f)
		return -EINVAL;
	n = *f;
	if (rate_thr(n.drop, &t[0], &a[0]) || rate_thr(n.dup, &t[1], &a[1]) ||
	    rate_thr(n.reorder, &t[2], &a[2]) || rate_thr(n.corrupt, &t[3], &a[3]) ||
	    rate_thr(n.jitter, &t[4], &a[4]))
		return -EINVAL;
	if (!n.jitter_max)
		n.jitter_max = w->cfg.latency ? w->cfg.latency : 1;
	if (!n.reorder_depth)
		n.reorder_depth = 1;
	if (!n.reorder_timeout)
		n.reorder_timeout = WIRE_DEFAULT_REORDER_TIMEOUT;
	w->faults = n;
	w->thr_drop = t[0], w->all_drop = a[0];
	w->thr_dup = t[1], w->all_dup = a[1];
	w->thr_reorder = t[2], w->all_reorder = a[2];
	w->thr_corrupt = t[3], w->all_corrupt = a[3];
	w->thr_jitter = t[4], w->all_jitter = a[4];
	return 0;
}

struct wire *wire_create(const struct wire_config *cfg)
{
	struct wire *w;
	uint64_t s;

	if (!cfg || (cfg->mode != WIRE_P2P && cfg->mode != WIRE_SWITCH)) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->cfg = *cfg;
	w->cfg.pcap_tx = w->cfg.pcap_rx = NULL;	/* not kept: caller's strings */
	w->max_ports = cfg->max_ports ? cfg->max_ports : WIRE_DEFAULT_PORTS;
	w->ports = calloc(w->max_ports, sizeof(*w->ports));
	if (!w->ports || wire_set_faults(w, &cfg->faults)) {
		int e = w->ports ? EINVAL : ENOMEM;

		free(w->ports);
		free(w);
		errno = e;
		return NULL;
	}
	s = cfg->seed;
	for (int i = 0; i < 4; i++)
		w->rng[i] = splitmix64(&s);
	if (cfg->pcap_tx && !(w->cap_tx = pcap_writer_open(cfg->pcap_tx, 0)))
		goto fail;
	if (cfg->pcap_rx && !(w->cap_rx = pcap_writer_open(cfg->pcap_rx, 0)))
		goto fail;
	return w;
fail: {
	int e = errno;

	wire_destroy(w);
	errno = e;
	return NULL;
}
}

/* A copy that is no longer needed: back to the pool, or freed. */
static void free_frame(struct wire *w, struct wframe *f)
{
	if (!f)
		return;
	if (f->cap == WIRE_POOL_BUF && w->npool < WIRE_POOL_MAX) {
		f->next = w->pool;
		w->pool = f;
		w->npool++;
		return;
	}
	free(f);
}

void wire_destroy(struct wire *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->hn; i++)
		free_frame(w, w->heap[i]);
	for (unsigned int p = 0; p < w->nports; p++)
		for (unsigned int k = 0; k < w->ports[p].nheld; k++)
			free_frame(w, w->ports[p].held[k].f);
	while (w->pool) {
		struct wframe *f = w->pool;

		w->pool = f->next;
		free(f);
	}
	pcap_writer_close(w->cap_tx);
	pcap_writer_close(w->cap_rx);
	free(w->heap);
	free(w->ports);
	free(w);
}

int wire_attach(struct wire *w, wire_rx_fn rx, void *ctx)
{
	unsigned int p;

	if (!w || !rx)
		return -EINVAL;
	for (p = 0; p < w->nports && w->ports[p].rx; p++)
		;
	if (p == w->nports) {
		if (w->nports >= w->max_ports)
			return -ENOSPC;
		w->nports++;
	}
	w->ports[p].rx = rx;
	w->ports[p].ctx = ctx;
	return (int)p;
}

int wire_detach(struct wire *w, unsigned int port)
{
	struct wport *p;
	size_t k = 0;

	if (!w || port >= w->nports || !w->ports[port].rx)
		return -EINVAL;
	p = &w->ports[port];
	for (unsigned int i = 0; i < w->nmacs;)
		if (w->macs[i].port == port)
			w->macs[i] = w->macs[--w->nmacs];
		else
			i++;
	/* Copies toward it: out of the heap (kept order intact), and the held ones. */
	for (size_t i = 0; i < w->hn; i++) {
		if (w->heap[i]->port == port) {
			free_frame(w, w->heap[i]);
			w->st.orphaned++;
		} else {
			w->heap[k++] = w->heap[i];
		}
	}
	w->hn = k;
	for (size_t i = w->hn / 2; i-- > 0;)
		sift_down(w, i);
	for (unsigned int h = 0; h < p->nheld; h++) {
		free_frame(w, p->held[h].f);
		w->st.orphaned++;
	}
	w->nheld -= p->nheld;
	memset(p, 0, sizeof(*p));
	return 0;
}

/* ------------------------------------------------------------ capture */

static void capture(struct wire *w, struct pcap_writer **cap, uint64_t cycle, const uint8_t *f,
		    size_t len)
{
	if (*cap && pcap_write(*cap, cycle, f, len)) {
		w->st.pcap_errors++;
		pcap_writer_close(*cap);
		*cap = NULL;
	}
}

/* ------------------------------------------------------------- faults */

static bool hit(uint64_t u, uint64_t thr, bool all)
{
	return all || u < thr;
}

/*
 * Byte to corrupt: after the UDP header, before the end of the IPv4 datagram
 * (the ICRC end), never BTH byte 4.  Frames that are not IPv4 with a sane
 * length get a byte anywhere.
 */
static size_t corrupt_pos(const uint8_t *f, size_t len, uint64_t v)
{
	size_t lo = 0, hi = len, skip = SIZE_MAX;

	if (len >= 34 && f[12] == 0x08 && f[13] == 0x00 && f[14] == 0x45) {
		size_t iplen = (size_t)f[16] << 8 | f[17];

		if (iplen <= len - 14 && 14 + iplen > 42 + 1) {
			lo = 42;
			hi = 14 + iplen;
			skip = 42 + 4;
		}
	}
	if (skip < hi) {
		size_t i = lo + v % (hi - lo - 1);

		return i >= skip ? i + 1 : i;
	}
	return lo + v % (hi - lo);
}

static struct wframe *new_frame(struct wire *w, unsigned int port, const uint8_t *data, size_t len,
				uint64_t due)
{
	struct wframe *f;

	if (len <= WIRE_POOL_BUF && w->pool) {
		f = w->pool;
		w->pool = f->next;
		w->npool--;
	} else {
		size_t cap = len <= WIRE_POOL_BUF ? WIRE_POOL_BUF : len;

		f = malloc(sizeof(*f) + cap);
		if (!f)
			return NULL;
		f->cap = cap;
		f->data = f->buf;
	}
	memcpy(f->data, data, len);
	f->len = len;
	f->port = port;
	f->due = due;
	return f;
}

/* A frame was scheduled on link `port` at `due`: held frames count it. */
static void passed(struct wire *w, struct wport *p, uint64_t due)
{
	unsigned int k = 0;

	while (k < p->nheld) {
		struct held *h = &p->held[k];

		if (--h->remaining == 0) {
			struct wframe *f = h->f;

			f->due = due;
			memmove(h, h + 1, (p->nheld - k - 1) * sizeof(*h));
			p->nheld--;
			w->nheld--;
			if (heap_push(w, f))
				free_frame(w, f);
		} else {
			k++;
		}
	}
}

static void schedule_copy(struct wire *w, unsigned int port, const uint8_t *data, size_t len,
			  uint64_t now)
{
	struct wport *p = &w->ports[port];
	uint64_t sm = xoshiro_next(w->rng);
	/* Fixed draws per copy, whatever the rates. */
	uint64_t u_drop = splitmix64(&sm), u_dup = splitmix64(&sm), u_reo = splitmix64(&sm);
	uint64_t u_cor = splitmix64(&sm), u_jit = splitmix64(&sm), v_pos = splitmix64(&sm);
	uint64_t v_val = splitmix64(&sm), v_jit = splitmix64(&sm), v_k = splitmix64(&sm);
	struct wframe *f, *d = NULL;
	uint64_t due;

	w->st.copies++;
	if (hit(u_drop, w->thr_drop, w->all_drop)) {
		w->st.dropped++;
		return;
	}
	due = now + w->cfg.latency;
	if (hit(u_jit, w->thr_jitter, w->all_jitter)) {
		due += 1 + v_jit % w->faults.jitter_max;
		w->st.jittered++;
	}
	f = new_frame(w, port, data, len, due);
	if (!f)
		return;
	if (hit(u_cor, w->thr_corrupt, w->all_corrupt)) {
		f->data[corrupt_pos(data, len, v_pos)] ^= (uint8_t)(1 + v_val % 255);
		w->st.corrupted++;
	}
	if (hit(u_dup, w->thr_dup, w->all_dup)) {
		d = new_frame(w, port, data, len, due);
		if (d)
			w->st.duplicated++;
	}
	if (hit(u_reo, w->thr_reorder, w->all_reorder) && p->nheld < WIRE_HELD_MAX) {
		struct held *h = &p->held[p->nheld++];

		h->f = f;
		h->remaining = 1 + (unsigned int)(v_k % w->faults.reorder_depth);
		h->deadline = due + w->faults.reorder_timeout;
		w->nheld++;
		w->st.reordered++;
		f = NULL;
	}
	if (f) {
		if (f->due < p->last_due)
			f->due = p->last_due;
		p->last_due = f->due;
		if (heap_push(w, f)) {
			free_frame(w, f);
			free_frame(w, d);
			return;
		}
		passed(w, p, f->due);
	}
	if (d) {
		if (d->due < p->last_due)
			d->due = p->last_due;
		p->last_due = d->due;
		if (heap_push(w, d)) {
			free_frame(w, d);
			return;
		}
		passed(w, p, d->due);
	}
}

/* ------------------------------------------------------------ routing */

static bool is_multicast(const uint8_t *mac)
{
	return mac[0] & 1;
}

static int mac_lookup(const struct wire *w, const uint8_t *mac)
{
	for (unsigned int i = 0; i < w->nmacs; i++)
		if (!memcmp(w->macs[i].mac, mac, 6))
			return (int)i;
	return -1;
}

static void mac_learn(struct wire *w, const uint8_t *mac, unsigned int port)
{
	int i;

	if (is_multicast(mac))
		return;
	i = mac_lookup(w, mac);
	if (i < 0) {
		if (w->nmacs < WIRE_MAC_TABLE) {
			i = (int)w->nmacs++;
		} else {
			i = (int)w->mac_next;	/* full: replace round-robin */
			w->mac_next = (w->mac_next + 1) % WIRE_MAC_TABLE;
		}
		memcpy(w->macs[i].mac, mac, 6);
	}
	w->macs[i].port = port;
}

int wire_send(struct wire *w, unsigned int port, const uint8_t *frame, size_t len, uint64_t now)
{
	if (!w || port >= w->nports || !w->ports[port].rx || !frame || len == 0 ||
	    len > WIRE_MAX_FRAME)
		return -EINVAL;
	if (now < w->last_now)
		now = w->last_now;
	w->last_now = now;
	w->st.sent++;
	w->ports[port].st.tx_frames++;
	w->ports[port].st.tx_bytes += len;
	capture(w, &w->cap_tx, now, frame, len);

	if (w->cfg.mode == WIRE_P2P) {
		unsigned int peer = port ^ 1;

		if (peer >= w->nports || !w->ports[peer].rx) {
			w->st.unroutable++;
			return 0;
		}
		schedule_copy(w, peer, frame, len, now);
		return 0;
	}
	/* Learning switch. */
	if (len >= 12)
		mac_learn(w, frame + 6, port);
	{
		int i = len >= 6 && !is_multicast(frame) ? mac_lookup(w, frame) : -1;

		if (i >= 0) {
			if (w->macs[i].port == port)
				w->st.unroutable++;	/* destination is behind the ingress port */
			else
				schedule_copy(w, w->macs[i].port, frame, len, now);
			return 0;
		}
	}
	w->st.flooded++;
	for (unsigned int p = 0; p < w->nports; p++)
		if (p != port && w->ports[p].rx)
			schedule_copy(w, p, frame, len, now);
	return 0;
}

/* ------------------------------------------------------------ delivery */

/* Earliest held deadline: port and slot, or false. */
static bool earliest_held(const struct wire *w, unsigned int *pp, unsigned int *pk, uint64_t *when)
{
	bool found = false;

	if (!w->nheld)
		return false;
	for (unsigned int p = 0; p < w->nports; p++)
		for (unsigned int k = 0; k < w->ports[p].nheld; k++)
			if (!found || w->ports[p].held[k].deadline < *when) {
				found = true;
				*when = w->ports[p].held[k].deadline;
				*pp = p;
				*pk = k;
			}
	return found;
}

uint64_t wire_next_event(const struct wire *w)
{
	uint64_t t = UINT64_MAX, h = 0;
	unsigned int p = 0, k = 0;

	if (!w)
		return UINT64_MAX;
	if (w->hn)
		t = w->heap[0]->due;
	if (earliest_held(w, &p, &k, &h) && h < t)
		t = h;
	return t;
}

unsigned int wire_deliver(struct wire *w, uint64_t now)
{
	unsigned int n = 0;

	if (!w)
		return 0;
	for (;;) {
		uint64_t h = 0;
		unsigned int p = 0, k = 0;

		/* Reorder timeouts first when they are due no later than the heap top. */
		if (earliest_held(w, &p, &k, &h) && h <= now && (!w->hn || h <= w->heap[0]->due)) {
			struct wport *wp = &w->ports[p];
			struct wframe *f = wp->held[k].f;

			memmove(&wp->held[k], &wp->held[k + 1], (wp->nheld - k - 1) * sizeof(wp->held[0]));
			wp->nheld--;
			w->nheld--;
			w->st.reorder_timeouts++;
			f->due = h < wp->last_due ? wp->last_due : h;
			wp->last_due = f->due;
			if (heap_push(w, f))
				free_frame(w, f);
			continue;
		}
		if (!w->hn || w->heap[0]->due > now)
			break;
		{
			struct wframe *f = heap_pop(w);
			struct wport *wp = &w->ports[f->port];

			w->st.delivered++;
			wp->st.rx_frames++;
			wp->st.rx_bytes += f->len;
			capture(w, &w->cap_rx, f->due, f->data, f->len);
			wp->rx(wp->ctx, f->port, f->data, f->len, f->due);
			free_frame(w, f);
			n++;
		}
	}
	return n;
}

size_t wire_pending(const struct wire *w)
{
	return w ? w->hn + w->nheld : 0;
}

void wire_get_stats(const struct wire *w, struct wire_stats *s)
{
	if (w && s)
		*s = w->st;
}

int wire_port_stats(const struct wire *w, unsigned int port, struct wire_port_stats *s)
{
	if (!w || !s || port >= w->nports)
		return -EINVAL;
	*s = w->ports[port].st;
	return 0;
}

/* -------------------------------------------------------------- replay */

long wire_replay_pcap(struct wire *w, unsigned int port, const char *path, uint64_t start)
{
	struct pcap_reader *r;
	struct pcap_frame pf;
	struct wframe **list = NULL;
	size_t n = 0, cap = 0;
	uint64_t ns0 = 0;
	int rc;

	if (!w || port >= w->nports || !w->ports[port].rx || !path)
		return -EINVAL;
	r = pcap_reader_open(path);
	if (!r)
		return -(long)errno;
	while ((rc = pcap_read(r, &pf)) == 1) {
		struct wframe *f;

		if (!pf.len)
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			struct wframe **l = realloc(list, nc * sizeof(*l));

			if (!l) {
				rc = -ENOMEM;
				break;
			}
			list = l;
			cap = nc;
		}
		if (!n)
			ns0 = pf.ns;
		f = new_frame(w, port, pf.data, pf.len,
			      start + pcap_ns_to_cycles(pf.ns > ns0 ? pf.ns - ns0 : 0));
		if (!f) {
			rc = -ENOMEM;
			break;
		}
		list[n++] = f;
	}
	pcap_reader_close(r);
	if (rc < 0) {
		for (size_t i = 0; i < n; i++)
			free_frame(w, list[i]);
		free(list);
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		struct wport *wp = &w->ports[port];
		struct wframe *f = list[i];

		if (f->due < wp->last_due)
			f->due = wp->last_due;	/* timestamps going backwards: keep file order */
		wp->last_due = f->due;
		if (heap_push(w, f)) {
			for (size_t j = i; j < n; j++)
				free_frame(w, list[j]);
			free(list);
			return -ENOMEM;
		}
		w->st.replayed++;
	}
	free(list);
	return (long)n;
}
