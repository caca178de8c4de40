// SPDX-License-Identifier: MIT
/*
 * The harness MAC's pacing (sim/rtl/mac_pace.h) against IEEE 802.3's
 * arithmetic, written out here independently: a frame of L bytes (no FCS)
 * occupies 7 + 1 (preamble, SFD) + max(L, 60) + 4 (FCS) + 12 (IFG) bytes of
 * wire time, and a line of G Gb/s carries G * 1e9 / 8 / 250e6 bytes per
 * cycle of the 250 MHz device clock (50 at 100 GbE, 12.5 at 25 GbE).
 *
 * A source that always has a beat ready streams frames through the pacer,
 * one beat per cycle while tready; over a long run the wire bytes per cycle
 * must be the line's within 0.1 % (a pacer that forgot an overhead, or the
 * padding of short frames, is off by 30 % or more on the small frames).
 * Also: an idle line takes a first beat at once and then bursts no more
 * than one beat beyond the line; next_ready() names the cycle tready rises;
 * a 64-bit datapath (16 Gb/s of beats) is never held back by 25 GbE;
 * "none" never holds anything back.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "rtl/mac_pace.h"

#define CLOCK_HZ 250e6

/* IEEE 802.3, independently of mac_pace.c */
static double wire_bytes(unsigned int len)
{
	return 7 + 1 + (len < 60 ? 60 : len) + 4 + 12;
}

static double line_bytes_per_cycle(double gbps)
{
	return gbps * 1e9 / 8 / CLOCK_HZ;
}

struct run {
	uint64_t cycles;	/* from the first beat's cycle to the last beat's, inclusive */
	uint64_t held;		/* cycles tready was low */
	uint64_t beats;
};

/*
 * Stream n frames of len bytes in beats of `beat` bytes from cycle `start`,
 * one beat per cycle whenever tready is high.
 */
static struct run stream(struct mac_pace *p, uint64_t start, unsigned int n, unsigned int len, unsigned int beat)
{
	struct run r = { 0 };
	uint64_t now = start;

	for (unsigned int f = 0; f < n; f++) {
		for (unsigned int off = 0; off < len;) {
			unsigned int b = len - off < beat ? len - off : beat;

			if (!mac_pace_ready(p, now)) {
				r.held++;
				now++;
				continue;
			}
			mac_pace_beat(p, now, b, off + b == len);
			off += b;
			r.beats++;
			now++;
		}
	}
	r.cycles = now - start;
	return r;
}

static void check_rate(enum mac_speed s, double gbps, unsigned int beat, unsigned int len, unsigned int n)
{
	struct mac_pace p;
	struct run r;
	double line = line_bytes_per_cycle(gbps), wire = wire_bytes(len) * n, got, want;
	double beats = (double)((len + beat - 1) / beat) * n;

	/* the line's rate, unless one beat per cycle is slower (short last beats) */
	want = wire / line >= beats ? line : wire / beats;
	mac_pace_init(&p, s, beat);
	r = stream(&p, 1000, n, len, beat);
	got = wire / (double)r.cycles;
	CHECK(fabs(got - want) <= want * 1e-3,
	      "%.0f GbE, %u B beats, %u frames of %u B: %.4f wire B/cycle, want %.4f (%llu cycles, %llu held)",
	      gbps, beat, n, len, got, want, (unsigned long long)r.cycles, (unsigned long long)r.held);
	CHECK(p.wire_bytes == (uint64_t)wire, "%u frames of %u B: pacer charged %llu wire bytes, want %.0f", n, len,
	      (unsigned long long)p.wire_bytes, wire);
	CHECK(p.frames == n, "frames counted %llu, want %u", (unsigned long long)p.frames, n);
}

/* After a long idle, the first beat goes at once and no window bursts beyond the line. */
static void check_idle_burst(void)
{
	struct mac_pace p;
	double line = line_bytes_per_cycle(100);
	uint64_t now, acc = 0, t0, hold = (2 * 64 + 8 + 4 + 12);	/* bytes: a MAC FIFO of two beats + overheads */
	unsigned int k = 0;
	bool ok = true;

	mac_pace_init(&p, MAC_SPEED_100G, 64);
	stream(&p, 0, 50, 4096, 64);
	now = 1000000;		/* a time warp: the line drained long ago */
	CHECK(mac_pace_ready(&p, now), "idle line: tready at once");
	CHECK(mac_pace_next_ready(&p, now) == now, "idle line: next_ready is now");
	t0 = now;
	for (unsigned int i = 0; i < 2000; i++, now++) {
		if (!mac_pace_ready(&p, now))
			continue;
		mac_pace_beat(&p, now, 64, k % 64 == 63);
		acc += 64 + (k % 64 == 0 ? 8 : 0) + (k % 64 == 63 ? 16 : 0);
		k++;
		/* accepted by cycle now: what the line carried since t0, the FIFO, one beat with its overheads */
		if ((double)acc > line * (double)(now - t0) + (double)hold + 64 + 8 + 16)
			ok = false;
	}
	CHECK(ok, "no burst beyond the line after an idle gap");
	CHECK((double)acc >= line * 2000 * 0.99, "saturated after idle: %llu bytes in 2000 cycles (line %.0f)",
	      (unsigned long long)acc, line * 2000);
}

/* next_ready() is the first cycle at which ready() will be true. */
static void check_next_ready(void)
{
	struct mac_pace p;
	unsigned int bad = 0, tried = 0;
	uint64_t now = 0;

	mac_pace_init(&p, MAC_SPEED_25G, 64);
	for (unsigned int i = 0; i < 500; i++, now++) {
		struct mac_pace q = p;
		uint64_t nr = mac_pace_next_ready(&p, now);

		if (mac_pace_ready(&q, now)) {
			bad += nr != now;
			mac_pace_beat(&p, now, 64, i % 3 == 2);
			continue;
		}
		tried++;
		for (uint64_t t = now; t < nr; t++) {
			q = p;
			bad += mac_pace_ready(&q, t);
		}
		q = p;
		bad += !mac_pace_ready(&q, nr);
	}
	CHECK(tried > 100 && bad == 0, "next_ready: %u wrong of %u held cycles", bad, tried);
}

int main(void)
{
	struct mac_pace p;
	struct run r;

	CHECK_EQ(mac_pace_rate(MAC_SPEED_100G), 400, "100 GbE: 400 bits per 4 ns cycle");
	CHECK_EQ(mac_pace_rate(MAC_SPEED_25G), 100, "25 GbE: 100 bits per 4 ns cycle");
	CHECK_EQ(mac_pace_rate(MAC_SPEED_NONE), 0, "none: no pacing");
	CHECK(!strcmp(mac_pace_names[MAC_SPEED_100G], "100g") && !strcmp(mac_pace_names[MAC_SPEED_25G], "25g") &&
	      !strcmp(mac_pace_names[MAC_SPEED_NONE], "none") && !mac_pace_names[3], "option names");

	/* 100 GbE at 512 bits: RoCEv2 4 KiB frames (4096 + 82 header/ICRC bytes), MTU-size, short, padded */
	check_rate(MAC_SPEED_100G, 100, 64, 4178, 400);
	check_rate(MAC_SPEED_100G, 100, 64, 1500, 1000);
	check_rate(MAC_SPEED_100G, 100, 64, 138, 10000);	/* a 64 B RDMA WRITE ONLY */
	check_rate(MAC_SPEED_100G, 100, 64, 60, 10000);
	check_rate(MAC_SPEED_100G, 100, 64, 20, 10000);	/* padded to 60 */
	check_rate(MAC_SPEED_100G, 100, 64, 65, 10000);	/* two beats, the second of 1 byte: 1 beat/cycle limits */
	/* 25 GbE with 512-bit beats (the pacer is width-agnostic) */
	check_rate(MAC_SPEED_25G, 25, 64, 4178, 200);
	check_rate(MAC_SPEED_25G, 25, 64, 60, 5000);

	/* 25 GbE at 64 bits: 8 B/cycle of beats is under 12.5 B/cycle even with the overheads */
	mac_pace_init(&p, MAC_SPEED_25G, 8);
	r = stream(&p, 0, 200, 4178, 8);
	CHECK(r.held == 0 && r.cycles == r.beats, "25 GbE at 64 bits, 4 KiB frames: %llu cycles held",
	      (unsigned long long)r.held);
	mac_pace_init(&p, MAC_SPEED_25G, 8);
	r = stream(&p, 0, 2000, 60, 8);
	CHECK(r.held == 0, "25 GbE at 64 bits, 60 B frames: %llu cycles held", (unsigned long long)r.held);

	/* 100 GbE at 512 bits holds a saturated source back: 64 B/cycle of beats > 50 */
	mac_pace_init(&p, MAC_SPEED_100G, 64);
	r = stream(&p, 0, 100, 4178, 64);
	CHECK(r.held > 0, "100 GbE at 512 bits: tready low in %llu of %llu cycles", (unsigned long long)r.held,
	      (unsigned long long)r.cycles);

	/* none: never held, but the wire bytes are still counted */
	mac_pace_init(&p, MAC_SPEED_NONE, 64);
	r = stream(&p, 0, 100, 4178, 64);
	CHECK(r.held == 0 && p.wire_bytes == (uint64_t)(100 * wire_bytes(4178)),
	      "none: %llu held, %llu wire bytes", (unsigned long long)r.held, (unsigned long long)p.wire_bytes);

	check_idle_burst();
	check_next_ready();
	return check_done();
}
