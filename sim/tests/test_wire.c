// SPDX-License-Identifier: MIT
/*
 * Simulated wire tests: delivery timing, FIFO links, the learning switch,
 * determinism per seed, fault rates within statistical bounds, reordering,
 * corruption caught by the RoCE ICRC (model codec), jitter, pcap capture
 * and replay, bad arguments.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../model/roce_hdr.h"
#include "check.h"
#include "pcap.h"
#include "wire.h"

/* ------------------------------------------------------- delivery log */

struct rx_rec {
	unsigned int port;
	uint64_t now;
	size_t len;
	uint32_t id;		/* bytes 60..63 of test frames (sequence number) */
	uint64_t hash;
	uint8_t data[128];
};

struct log {
	struct rx_rec *r;
	size_t n, cap;
};

static struct log lg;

static uint64_t fnv(const uint8_t *p, size_t n, uint64_t h)
{
	while (n--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

static void rx_log(void *ctx, unsigned int port, const uint8_t *f, size_t len, uint64_t now)
{
	struct rx_rec *r;

	(void)ctx;
	if (lg.n == lg.cap) {
		lg.cap = lg.cap ? lg.cap * 2 : 1024;
		lg.r = realloc(lg.r, lg.cap * sizeof(*lg.r));
	}
	r = &lg.r[lg.n++];
	r->port = port;
	r->now = now;
	r->len = len;
	r->id = len >= 64 ? (uint32_t)f[60] << 24 | (uint32_t)f[61] << 16 | (uint32_t)f[62] << 8 | f[63] : 0;
	r->hash = fnv(f, len, 0xcbf29ce484222325ull ^ port ^ now * 31);
	memcpy(r->data, f, len < sizeof(r->data) ? len : sizeof(r->data));
}

static void log_reset(void)
{
	lg.n = 0;
}

/* A 64-byte test frame: dmac, smac, sequence number at 60..63. */
static void mkframe(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, uint32_t id)
{
	memset(f, 0, 64);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = 0x88;
	f[13] = 0xb5;		/* local experimental EtherType */
	for (int i = 14; i < 60; i++)
		f[i] = (uint8_t)(i ^ id);
	f[60] = (uint8_t)(id >> 24);
	f[61] = (uint8_t)(id >> 16);
	f[62] = (uint8_t)(id >> 8);
	f[63] = (uint8_t)id;
}

static const uint8_t MAC[4][6] = {
	{ 2, 0, 0, 0, 0, 0xa }, { 2, 0, 0, 0, 0, 0xb }, { 2, 0, 0, 0, 0, 0xc }, { 2, 0, 0, 0, 0, 0xd },
};
static const uint8_t BCAST[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* Run the wire until idle, the harness way. */
static void drain(struct wire *w)
{
	uint64_t t;

	while ((t = wire_next_event(w)) != UINT64_MAX)
		wire_deliver(w, t);
}

/* ------------------------------------------------------------- basics */

static void test_p2p_timing(void)
{
	struct wire_config c = { .mode = WIRE_P2P, .latency = 100 };
	struct wire *w = wire_create(&c);
	uint8_t f[64];

	CHECK(w != NULL, "create");
	if (!w)
		return;
	CHECK_EQ(wire_attach(w, rx_log, NULL), 0, "port 0");
	CHECK_EQ(wire_attach(w, rx_log, NULL), 1, "port 1");
	CHECK_EQ(wire_attach(w, rx_log, NULL), 2, "port 2 (unpaired)");
	CHECK_EQ(wire_next_event(w), UINT64_MAX, "idle");
	log_reset();
	mkframe(f, MAC[1], MAC[0], 1);
	CHECK_EQ(wire_send(w, 0, f, 64, 1000), 0, "send 0->1");
	mkframe(f, MAC[1], MAC[0], 2);
	CHECK_EQ(wire_send(w, 0, f, 64, 1000), 0, "second at the same cycle");
	mkframe(f, MAC[0], MAC[1], 3);
	CHECK_EQ(wire_send(w, 1, f, 64, 1010), 0, "send 1->0");
	mkframe(f, MAC[0], MAC[2], 4);
	CHECK_EQ(wire_send(w, 2, f, 64, 1010), 0, "send from unpaired port");
	CHECK_EQ(wire_pending(w), 3, "3 in flight");
	CHECK_EQ(wire_next_event(w), 1100, "next event = send + latency");
	CHECK_EQ(wire_deliver(w, 1099), 0, "nothing before latency");
	CHECK_EQ(wire_deliver(w, 1100), 2, "both frames at 1100");
	CHECK(lg.n == 2 && lg.r[0].id == 1 && lg.r[1].id == 2 && lg.r[0].port == 1 && lg.r[0].now == 1100,
	      "order and port of same-cycle frames");
	CHECK_EQ(wire_next_event(w), 1110, "next");
	CHECK_EQ(wire_deliver(w, 5000), 1, "late deliver call");
	CHECK(lg.n == 3 && lg.r[2].port == 0 && lg.r[2].now == 1110, "delivered with its due cycle");
	{
		struct wire_stats s;
		struct wire_port_stats ps;

		wire_get_stats(w, &s);
		CHECK_EQ(s.sent, 4, "sent");
		CHECK_EQ(s.delivered, 3, "delivered");
		CHECK_EQ(s.unroutable, 1, "unpaired port counted");
		CHECK_EQ(wire_port_stats(w, 0, &ps), 0, "port stats");
		CHECK(ps.tx_frames == 2 && ps.tx_bytes == 128 && ps.rx_frames == 1 && ps.rx_bytes == 64,
		      "port 0 stats");
		CHECK_EQ(wire_port_stats(w, 9, &ps), -EINVAL, "port stats of unknown port");
	}
	/* Time going backwards is clamped to the last send. */
	mkframe(f, MAC[1], MAC[0], 5);
	CHECK_EQ(wire_send(w, 0, f, 64, 10), 0, "send in the past");
	CHECK_EQ(wire_next_event(w), 1110, "clamped to the last send cycle");
	drain(w);
	wire_destroy(w);
}

static void test_switch(void)
{
	struct wire_config c = { .mode = WIRE_SWITCH, .latency = 10, .max_ports = 4 };
	struct wire *w = wire_create(&c);
	uint8_t f[64];
	struct wire_stats s;

	if (!w)
		return;
	for (int i = 0; i < 4; i++)
		CHECK_EQ(wire_attach(w, rx_log, NULL), i, "attach");
	CHECK_EQ(wire_attach(w, rx_log, NULL), -ENOSPC, "max_ports");
	log_reset();
	mkframe(f, MAC[1], MAC[0], 1);	/* A -> B, B unknown: flood */
	wire_send(w, 0, f, 64, 0);
	drain(w);
	CHECK(lg.n == 3 && lg.r[0].port == 1 && lg.r[1].port == 2 && lg.r[2].port == 3,
	      "unknown unicast flooded to every other port");
	log_reset();
	mkframe(f, MAC[0], MAC[1], 2);	/* B -> A: A learned on port 0 */
	wire_send(w, 1, f, 64, 100);
	drain(w);
	CHECK(lg.n == 1 && lg.r[0].port == 0, "learned destination: one copy");
	log_reset();
	mkframe(f, MAC[1], MAC[0], 3);	/* A -> B: B learned on port 1 */
	wire_send(w, 0, f, 64, 200);
	drain(w);
	CHECK(lg.n == 1 && lg.r[0].port == 1, "B learned");
	log_reset();
	mkframe(f, BCAST, MAC[2], 4);	/* broadcast from C */
	wire_send(w, 2, f, 64, 300);
	drain(w);
	CHECK(lg.n == 3 && lg.r[0].port == 0 && lg.r[1].port == 1 && lg.r[2].port == 3, "broadcast");
	log_reset();
	mkframe(f, MAC[0], MAC[3], 5);	/* D pretends... A moved to port 3 */
	wire_send(w, 3, f, 64, 400);
	mkframe(f, MAC[3], MAC[0], 6);	/* A now sends from port 3: A moves */
	wire_send(w, 3, f, 64, 400);
	mkframe(f, MAC[0], MAC[1], 7);	/* B -> A: goes to port 3 now */
	wire_send(w, 1, f, 64, 400);
	drain(w);
	CHECK(lg.n == 2 && lg.r[0].port == 0 && lg.r[0].id == 5 && lg.r[1].port == 3 && lg.r[1].id == 7,
	      "station move relearned (D and A behind port 3: frame 6 filtered)");
	wire_get_stats(w, &s);
	CHECK_EQ(s.unroutable, 1, "frame to a station behind the ingress port filtered");
	CHECK_EQ(s.flooded, 2, "flooded count");
	wire_destroy(w);
}

/*
 * A port that detaches (switch port unplugged): its learned MACs are
 * forgotten (the next frame to them floods the live ports), copies queued or
 * held toward it are discarded as orphaned (never delivered), floods skip
 * it, and the next attach gets its id back with fresh counters.
 */
static void test_detach(void)
{
	struct wire_config c = { .mode = WIRE_SWITCH, .latency = 10, .max_ports = 3,
				 .faults = { .reorder = 1.0, .reorder_depth = 4 } };
	struct wire *w = wire_create(&c);
	struct wire_faults none = { 0 };
	struct wire_port_stats ps;
	struct wire_stats s;
	uint8_t f[64];

	if (!w)
		return;
	for (int i = 0; i < 3; i++)
		CHECK_EQ(wire_attach(w, rx_log, NULL), i, "attach");
	wire_set_faults(w, &none);
	mkframe(f, MAC[0], MAC[1], 1);	/* B (port 1) and C (port 2) are learned */
	wire_send(w, 1, f, 64, 0);
	mkframe(f, MAC[0], MAC[2], 2);
	wire_send(w, 2, f, 64, 0);
	drain(w);
	log_reset();
	mkframe(f, MAC[1], MAC[0], 3);	/* A -> B: queued toward port 1 */
	wire_send(w, 0, f, 64, 100);
	mkframe(f, MAC[2], MAC[0], 4);	/* A -> C: queued toward port 2 */
	wire_send(w, 0, f, 64, 100);
	CHECK_EQ(wire_detach(w, 1), 0, "detach port 1 with a copy queued to it");
	CHECK_EQ(wire_detach(w, 1), -EINVAL, "detach twice");
	CHECK_EQ(wire_pending(w), 1, "the copy toward port 1 is gone");
	drain(w);
	CHECK(lg.n == 1 && lg.r[0].port == 2 && lg.r[0].id == 4, "the other copy delivered");
	log_reset();
	mkframe(f, MAC[1], MAC[0], 5);	/* A -> B again: B forgotten, flooded to live ports */
	CHECK_EQ(wire_send(w, 0, f, 64, 200), 0, "send to a forgotten MAC");
	mkframe(f, MAC[0], MAC[1], 6);
	CHECK_EQ(wire_send(w, 1, f, 64, 200), -EINVAL, "a detached port cannot send");
	drain(w);
	CHECK(lg.n == 1 && lg.r[0].port == 2 && lg.r[0].id == 5, "flooded to the live port only");
	wire_get_stats(w, &s);
	CHECK_EQ(s.orphaned, 1, "one orphaned copy");
	CHECK_EQ(s.delivered, 6, "orphaned copies are not delivered (2 + 2 floods, frames 4 and 5)");
	CHECK_EQ(s.flooded, 3, "frames 1, 2 (A unknown) and 5 (B forgotten) flooded");
	/* Held (reordered) copies toward a detaching port go too. */
	CHECK_EQ(wire_attach(w, rx_log, NULL), 1, "the detached id is given again");
	CHECK_EQ(wire_port_stats(w, 1, &ps), 0, "its stats");
	CHECK(ps.rx_frames == 0 && ps.tx_frames == 0, "fresh counters");
	c.faults.reorder = 1.0;
	wire_set_faults(w, &c.faults);
	mkframe(f, MAC[3], MAC[0], 7);	/* unknown D: flooded, held toward ports 1 and 2 */
	wire_send(w, 0, f, 64, 300);
	CHECK_EQ(wire_pending(w), 2, "two copies held");
	CHECK_EQ(wire_detach(w, 1), 0, "detach with a held copy");
	CHECK_EQ(wire_pending(w), 1, "its held copy is gone");
	log_reset();
	drain(w);
	CHECK(lg.n == 1 && lg.r[0].port == 2, "the other held copy is released by its timeout");
	wire_get_stats(w, &s);
	CHECK_EQ(s.orphaned, 2, "held copy orphaned");
	CHECK_EQ(wire_detach(w, 7), -EINVAL, "detach of an unknown port");
	wire_destroy(w);
}

/* Callback that echoes every frame back out of the receiving port. */
static struct wire *echo_wire;
static unsigned int echoes;

static void rx_echo(void *ctx, unsigned int port, const uint8_t *f, size_t len, uint64_t now)
{
	(void)ctx;
	if (echoes++ < 5)
		wire_send(echo_wire, port, f, len, now);
}

static void test_reentrant(void)
{
	struct wire_config c = { .mode = WIRE_P2P, .latency = 0 };
	struct wire *w = wire_create(&c);
	uint8_t f[64];

	if (!w)
		return;
	echo_wire = w;
	echoes = 0;
	wire_attach(w, rx_echo, NULL);
	wire_attach(w, rx_echo, NULL);
	mkframe(f, MAC[1], MAC[0], 1);
	wire_send(w, 0, f, 64, 7);
	CHECK_EQ(wire_deliver(w, 7), 6, "zero-latency ping-pong inside one deliver call");
	CHECK_EQ(wire_pending(w), 0, "nothing left");
	wire_destroy(w);
}

/* ------------------------------------------------------------- faults */

struct run_result {
	uint64_t hash;
	size_t n;
	struct wire_stats st;
};

static struct run_result run_scenario(uint64_t seed, const struct wire_faults *fl, unsigned int frames)
{
	struct wire_config c = { .mode = WIRE_P2P, .latency = 50, .seed = seed, .faults = *fl };
	struct wire *w = wire_create(&c);
	struct run_result r = { 0 };
	uint8_t f[64];
	uint64_t t = 0;

	if (!w)
		return r;
	wire_attach(w, rx_log, NULL);
	wire_attach(w, rx_log, NULL);
	log_reset();
	for (unsigned int i = 0; i < frames; i++) {
		unsigned int port = i % 3 == 0;

		mkframe(f, MAC[!port], MAC[port], i);
		wire_send(w, port, f, 64, t);
		t += 1 + i % 7;
		if (wire_next_event(w) <= t)
			wire_deliver(w, t);
	}
	drain(w);
	r.hash = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < lg.n; i++)
		r.hash = fnv((const uint8_t *)&lg.r[i].hash, 8, r.hash);
	r.n = lg.n;
	wire_get_stats(w, &r.st);
	wire_destroy(w);
	return r;
}

static void test_determinism(void)
{
	struct wire_faults fl = { .drop = 0.05, .dup = 0.02, .reorder = 0.03, .corrupt = 0.02,
				  .jitter = 0.05, .jitter_max = 40, .reorder_depth = 3 };
	struct run_result a = run_scenario(42, &fl, 5000), b = run_scenario(42, &fl, 5000),
			  c = run_scenario(43, &fl, 5000);

	CHECK(a.n > 4000, "delivered most frames (%zu)", a.n);
	CHECK(a.hash == b.hash && a.n == b.n, "same seed, same delivery sequence");
	CHECK(a.hash != c.hash, "different seed, different sequence");
	CHECK(a.st.dropped != c.st.dropped || a.st.corrupted != c.st.corrupted ||
	      a.st.reordered != c.st.reordered, "different seed, different fault draws");
}

/* |x - n p| within 5 standard deviations. */
static void check_rate(uint64_t x, uint64_t n, double p, const char *what)
{
	double mu = (double)n * p, sd = sqrt((double)n * p * (1 - p));

	CHECK(fabs((double)x - mu) <= 5 * sd + 1, "%s: %llu of %llu, expected %.0f +- %.0f", what,
	      (unsigned long long)x, (unsigned long long)n, mu, 5 * sd);
}

static void test_rates(void)
{
	const unsigned int N = 100000;
	struct wire_faults all = { .drop = 0.05, .dup = 0.01, .reorder = 0.01, .corrupt = 0.005,
				   .jitter = 0.02, .jitter_max = 20 };
	struct wire_faults only_drop = { .drop = 0.05 };
	struct run_result a = run_scenario(7, &all, N), d = run_scenario(7, &only_drop, N);
	uint64_t after_drop = a.st.copies - a.st.dropped;

	CHECK_EQ(a.st.copies, N, "copies");
	check_rate(a.st.dropped, N, 0.05, "drop 5%");
	/* The other faults apply to copies that survived the drop. */
	check_rate(a.st.duplicated, after_drop, 0.01, "dup 1%");
	check_rate(a.st.reordered, after_drop, 0.01, "reorder 1%");
	check_rate(a.st.corrupted, after_drop, 0.005, "corrupt 0.5%");
	check_rate(a.st.jittered, after_drop, 0.02, "jitter 2%");
	CHECK_EQ(a.st.delivered, after_drop + a.st.duplicated, "delivered = sent - dropped + duplicated");
	CHECK_EQ(a.n, a.st.delivered, "every delivery reached the callback");
	/* Fixed draws per copy: the drop decisions do not depend on the other rates. */
	CHECK_EQ(d.st.dropped, a.st.dropped, "drop decisions independent of the other rates");
	CHECK(d.st.duplicated == 0 && d.st.corrupted == 0 && d.st.reordered == 0 && d.st.jittered == 0,
	      "no other faults when their rate is 0");
}

static void test_reorder(void)
{
	struct wire_faults fl = { .reorder = 0.1, .reorder_depth = 1 };
	struct wire_config c = { .mode = WIRE_P2P, .latency = 20, .seed = 3, .faults = fl };
	struct wire *w = wire_create(&c);
	uint8_t f[64];
	unsigned int late = 0, far = 0, missing = 0;
	uint32_t maxid = 0;
	struct wire_stats s;
	static uint8_t seen[2000];

	if (!w)
		return;
	wire_attach(w, rx_log, NULL);
	wire_attach(w, rx_log, NULL);
	log_reset();
	for (uint32_t i = 0; i < 2000; i++) {
		mkframe(f, MAC[1], MAC[0], i);
		wire_send(w, 0, f, 64, i * 10);
		wire_deliver(w, i * 10);
	}
	drain(w);
	wire_get_stats(w, &s);
	memset(seen, 0, sizeof(seen));
	for (size_t i = 0; i < lg.n; i++) {
		if (lg.r[i].id < 2000)
			seen[lg.r[i].id]++;
		/* Late: some frame sent after it was delivered before it. */
		if (i && lg.r[i].id < maxid) {
			late++;
			far += maxid - lg.r[i].id > 8;	/* depth 1, at most 8 held per link */
		}
		if (lg.r[i].id > maxid)
			maxid = lg.r[i].id;
		if (i && lg.r[i].now < lg.r[i - 1].now)
			missing += 1000;	/* delivery times must not go backwards */
	}
	for (int i = 0; i < 2000; i++)
		missing += seen[i] != 1;
	CHECK_EQ(missing, 0, "every frame delivered exactly once, times monotonic");
	CHECK(s.reordered > 100, "frames were held (%llu)", (unsigned long long)s.reordered);
	CHECK_EQ(s.reorder_timeouts, 0, "steady traffic releases held frames before the timeout");
	CHECK_EQ(late, s.reordered, "exactly the held frames arrive late");
	CHECK_EQ(far, 0, "held frames are passed by few frames (depth 1)");
	wire_destroy(w);

	/* A held frame with no traffic behind it leaves after the timeout. */
	fl = (struct wire_faults){ .reorder = 1.0, .reorder_timeout = 5000 };
	c.faults = fl;
	w = wire_create(&c);
	if (!w)
		return;
	wire_attach(w, rx_log, NULL);
	wire_attach(w, rx_log, NULL);
	log_reset();
	mkframe(f, MAC[1], MAC[0], 9);
	wire_send(w, 0, f, 64, 100);
	CHECK_EQ(wire_next_event(w), 100 + 20 + 5000, "held frame's deadline is the next event");
	drain(w);
	CHECK(lg.n == 1 && lg.r[0].now == 5120 && lg.r[0].id == 9, "released by the timeout");
	wire_get_stats(w, &s);
	CHECK_EQ(s.reorder_timeouts, 1, "timeout counted");
	wire_destroy(w);
}

static void test_jitter_fifo(void)
{
	struct wire_faults fl = { .jitter = 1.0, .jitter_max = 50 };
	struct wire_config c = { .mode = WIRE_P2P, .latency = 100, .seed = 11, .faults = fl };
	struct wire *w = wire_create(&c);
	uint8_t f[64];
	unsigned int bad_order = 0, bad_time = 0, extra_min = 1000, extra_max = 0;

	if (!w)
		return;
	wire_attach(w, rx_log, NULL);
	wire_attach(w, rx_log, NULL);
	log_reset();
	for (uint32_t i = 0; i < 1000; i++) {
		mkframe(f, MAC[1], MAC[0], i);
		wire_send(w, 0, f, 64, (uint64_t)i * 1000);	/* spaced: no FIFO interaction */
	}
	drain(w);
	for (size_t i = 0; i < lg.n; i++) {
		uint64_t extra = lg.r[i].now - (uint64_t)lg.r[i].id * 1000 - 100;

		bad_order += lg.r[i].id != i;
		bad_time += extra < 1 || extra > 50;
		extra_min = extra < extra_min ? (unsigned int)extra : extra_min;
		extra_max = extra > extra_max ? (unsigned int)extra : extra_max;
	}
	CHECK_EQ(lg.n, 1000, "all delivered");
	CHECK_EQ(bad_order, 0, "jitter keeps order");
	CHECK_EQ(bad_time, 0, "extra delay within 1..jitter_max");
	CHECK(extra_min <= 3 && extra_max >= 48, "jitter spans its range (%u..%u)", extra_min, extra_max);
	wire_destroy(w);

	/* Back-to-back frames: a delayed frame delays those behind it (FIFO). */
	w = wire_create(&c);
	if (!w)
		return;
	wire_attach(w, rx_log, NULL);
	wire_attach(w, rx_log, NULL);
	log_reset();
	for (uint32_t i = 0; i < 1000; i++) {
		mkframe(f, MAC[1], MAC[0], i);
		wire_send(w, 0, f, 64, i);
	}
	drain(w);
	bad_order = 0;
	for (size_t i = 0; i < lg.n; i++)
		bad_order += lg.r[i].id != i || (i && lg.r[i].now < lg.r[i - 1].now);
	CHECK_EQ(bad_order, 0, "FIFO under jitter with back-to-back frames");
	wire_destroy(w);
}

static void test_corrupt_icrc(void)
{
	struct wire_faults fl = { .corrupt = 1.0 };
	struct wire_config c = { .mode = WIRE_P2P, .latency = 1, .seed = 99, .faults = fl };
	struct wire *w = wire_create(&c);
	uint8_t buf[2048], pay[1024];
	unsigned int icrc = 0, other = 0, changed = 0, sent = 0;

	if (!w)
		return;
	wire_attach(w, rx_log, NULL);
	wire_attach(w, rx_log, NULL);
	log_reset();
	for (size_t i = 0; i < sizeof(pay); i++)
		pay[i] = (uint8_t)(i * 13);
	for (unsigned int op = 0; op < 256; op++) {
		const struct roce_opcode_info *info = roce_opcode((uint8_t)op);

		if (!info)
			continue;
		for (uint32_t len = 0; len <= 64; len += 16) {
			struct roce_pkt p;
			size_t n;

			if (len && !(info->hdrs & ROCE_PAYLOAD))
				break;
			for (int rep = 0; rep < 20; rep++) {
				roce_pkt_init(&p, (uint8_t)op);
				p.psn = (uint32_t)(rep * 77 + len);
				n = roce_build(&p, pay, len, buf, sizeof(buf));
				wire_send(w, 0, buf, n, sent);
				sent++;
			}
		}
	}
	drain(w);
	for (size_t i = 0; i < lg.n; i++) {
		struct roce_pkt q;
		enum roce_parse_err e = roce_parse(lg.r[i].data, lg.r[i].len, &q);

		icrc += e == ROCE_ERR_ICRC;
		other += e != ROCE_ERR_ICRC;
	}
	(void)changed;
	CHECK_EQ(lg.n, sent, "all corrupted frames delivered");
	CHECK_EQ(icrc, sent, "every corrupted RoCE frame fails the ICRC check");
	CHECK_EQ(other, 0, "no corrupted frame parses or fails otherwise");
	wire_destroy(w);
}

/* ---------------------------------------------------------------- pcap */

static char tx_path[256], rx_path[256];

static void tmp(char *p, const char *tag)
{
	const char *d = getenv("TMPDIR");
	int fd;

	snprintf(p, 256, "%s/hcasim-wire-%s-XXXXXX", d && *d ? d : "/tmp", tag);
	fd = mkstemp(p);
	if (fd >= 0)
		close(fd);
}

static void test_pcap_capture(void)
{
	struct wire_faults fl = { .drop = 0.2, .dup = 0.1, .jitter = 0.3, .jitter_max = 9 };
	struct wire_config c = { .mode = WIRE_P2P, .latency = 25, .seed = 5, .faults = fl };
	struct wire *w;
	struct pcap_reader *r;
	struct pcap_frame pf;
	uint8_t f[64];
	unsigned int bad = 0, k = 0;
	int rc;

	tmp(tx_path, "tx");
	tmp(rx_path, "rx");
	c.pcap_tx = tx_path;
	c.pcap_rx = rx_path;
	w = wire_create(&c);
	CHECK(w != NULL, "create with captures");
	if (!w)
		return;
	wire_attach(w, rx_log, NULL);
	wire_attach(w, rx_log, NULL);
	log_reset();
	for (uint32_t i = 0; i < 300; i++) {
		mkframe(f, MAC[i & 1 ? 0 : 1], MAC[i & 1], i);
		wire_send(w, i & 1, f, 64, i * 3);
	}
	drain(w);
	wire_destroy(w);	/* flushes the captures */

	r = pcap_reader_open(tx_path);
	CHECK(r != NULL, "tx capture readable");
	if (r) {
		while ((rc = pcap_read(r, &pf)) == 1) {
			bad += pf.ns != pcap_cycles_to_ns((uint64_t)k * 3) || pf.len != 64 ||
			       pf.data[63] != (uint8_t)k;
			k++;
		}
		CHECK(rc == 0 && k == 300, "tx capture has every sent frame (%u)", k);
		CHECK_EQ(bad, 0, "tx capture timestamps = send cycles, bytes as sent");
		pcap_reader_close(r);
	}
	r = pcap_reader_open(rx_path);
	CHECK(r != NULL, "rx capture readable");
	if (r) {
		k = 0;
		bad = 0;
		while ((rc = pcap_read(r, &pf)) == 1) {
			if (k < lg.n)
				bad += pf.ns != pcap_cycles_to_ns(lg.r[k].now) || pf.len != lg.r[k].len ||
				       memcmp(pf.data, lg.r[k].data, 64);
			k++;
		}
		CHECK(rc == 0 && k == lg.n, "rx capture has every delivery (%u of %zu)", k, lg.n);
		CHECK_EQ(bad, 0, "rx capture = deliveries, with delivery cycles");
		pcap_reader_close(r);
	}
	unlink(tx_path);
	unlink(rx_path);
	c.pcap_tx = "/nonexistent-dir/x.pcap";
	errno = 0;
	CHECK(wire_create(&c) == NULL && errno == ENOENT, "unwritable capture path refused");
}

static void test_replay(void)
{
	struct wire_config c = { .mode = WIRE_P2P, .latency = 1000, .faults = { .drop = 1.0 } };
	struct pcap_writer *pw;
	struct wire *w;
	uint8_t f[64];
	struct wire_stats s;

	tmp(tx_path, "replay");
	pw = pcap_writer_open(tx_path, 0);
	if (!pw)
		return;
	for (uint32_t i = 0; i < 4; i++) {
		static const uint64_t ns[4] = { 1000000, 1000004, 1002000, 1002000 };

		mkframe(f, MAC[1], MAC[0], i);
		pcap_write_ns(pw, ns[i], f, 64);
	}
	pcap_writer_close(pw);
	w = wire_create(&c);
	if (!w)
		return;
	wire_attach(w, rx_log, NULL);
	wire_attach(w, rx_log, NULL);
	log_reset();
	CHECK_EQ(wire_replay_pcap(w, 1, tx_path, 500), 4, "replayed 4 frames");
	CHECK_EQ(wire_next_event(w), 500, "first frame at start");
	drain(w);
	CHECK(lg.n == 4, "delivered without latency or faults (%zu)", lg.n);
	if (lg.n == 4) {
		CHECK(lg.r[0].now == 500 && lg.r[1].now == 501 && lg.r[2].now == 1000 &&
		      lg.r[3].now == 1000, "capture time offsets in cycles");
		CHECK(lg.r[0].port == 1 && lg.r[3].id == 3, "port and order");
	}
	wire_get_stats(w, &s);
	CHECK_EQ(s.replayed, 4, "replayed counter");
	/* A corrupt file: error, nothing scheduled. */
	{
		FILE *fp = fopen(tx_path, "r+b");

		if (fp) {
			fseek(fp, 24 + 16 + 64 + 8, SEEK_SET);
			fputc(0x7f, fp);	/* second record's incl_len huge */
			fclose(fp);
		}
	}
	CHECK_EQ(wire_replay_pcap(w, 1, tx_path, 0), -EINVAL, "corrupt capture refused");
	CHECK_EQ(wire_pending(w), 0, "nothing scheduled from a corrupt capture");
	CHECK(wire_replay_pcap(w, 1, "/nonexistent", 0) == -ENOENT, "missing file");
	CHECK(wire_replay_pcap(w, 7, tx_path, 0) == -EINVAL, "bad port");
	wire_destroy(w);
	unlink(tx_path);
}

/* ----------------------------------------------------------- bad input */

static void test_bad_args(void)
{
	struct wire_config c = { .mode = WIRE_P2P };
	struct wire *w;
	uint8_t f[64] = { 0 };

	c.faults.drop = 1.5;
	errno = 0;
	CHECK(wire_create(&c) == NULL && errno == EINVAL, "rate > 1");
	c.faults.drop = -0.1;
	CHECK(wire_create(&c) == NULL, "rate < 0");
	c.faults.drop = NAN;
	CHECK(wire_create(&c) == NULL, "rate NaN");
	c.faults.drop = 0;
	c.mode = (enum wire_mode)7;
	CHECK(wire_create(&c) == NULL, "bad mode");
	CHECK(wire_create(NULL) == NULL, "NULL config");
	c.mode = WIRE_P2P;
	w = wire_create(&c);
	if (!w)
		return;
	CHECK_EQ(wire_attach(w, NULL, NULL), -EINVAL, "NULL callback");
	wire_attach(w, rx_log, NULL);
	CHECK_EQ(wire_send(w, 1, f, 64, 0), -EINVAL, "unattached port");
	CHECK_EQ(wire_send(w, 0, f, 0, 0), -EINVAL, "empty frame");
	CHECK_EQ(wire_send(w, 0, NULL, 64, 0), -EINVAL, "NULL frame");
	CHECK_EQ(wire_send(w, 0, f, 70000, 0), -EINVAL, "oversized frame");
	{
		struct wire_faults bad = { .dup = 2 }, good = { .drop = 1.0 };

		CHECK_EQ(wire_set_faults(w, &bad), -EINVAL, "set_faults refuses bad rates");
		CHECK_EQ(wire_set_faults(w, &good), 0, "set_faults");
	}
	wire_attach(w, rx_log, NULL);
	log_reset();
	wire_send(w, 0, f, 64, 0);
	drain(w);
	CHECK_EQ(lg.n, 0, "set_faults took effect (drop all)");
	CHECK_EQ(wire_next_event(NULL), UINT64_MAX, "NULL wire");
	wire_destroy(w);
	wire_destroy(NULL);
}

int main(void)
{
	test_p2p_timing();
	test_switch();
	test_detach();
	test_reentrant();
	test_determinism();
	test_rates();
	test_reorder();
	test_jitter_fifo();
	test_corrupt_icrc();
	test_pcap_capture();
	test_replay();
	test_bad_args();
	free(lg.r);
	return check_done();
}
