/* SPDX-License-Identifier: MIT */
/*
 * The simulated wire: N Ethernet ports joined point-to-point or through a
 * learning L2 switch, delivering frames after a latency in device cycles,
 * with seeded fault injection (drop, duplicate, reorder, corrupt, delay
 * jitter) and optional pcap capture.  Same configuration, same seed, same
 * calls => the same deliveries in the same order at the same cycles
 * (ARCHITECTURE contract 6).  docs/packet.md has the details.
 *
 * Time is the caller's: the harness passes the current cycle to wire_send()
 * and asks wire_deliver(w, now) to hand over everything due up to `now`.
 * wire_next_event() is the earliest cycle at which the wire has something
 * to do (UINT64_MAX when idle), for time-skipping loops:
 *
 *     for (;;) {
 *         t = min(every device's next_event, wire_next_event(w));
 *         if (t == UINT64_MAX) break;
 *         advance every device to t;    // their tx_frame -> wire_send(w, port, ..., t)
 *         wire_deliver(w, t);           // rx callbacks -> each device's rx_frame
 *     }
 *
 * Model of a link (per destination port, i.e. per switch egress):
 *  - a frame sent at cycle t is due at t + latency (+ jitter), but never
 *    before the frame sent ahead of it on the same link: links are FIFO;
 *  - faults are drawn per delivered copy, independently, from a per-wire
 *    xoshiro256** stream (a fixed number of draws per copy, so changing one
 *    rate does not shift the others' decisions);
 *  - drop: the copy vanishes;
 *  - duplicate: a second, identical copy is delivered right after it;
 *  - reorder: the copy is held back until 1..reorder_depth later frames on
 *    the same link have been scheduled (it is then delivered right after the
 *    last of them), or until reorder_timeout cycles have passed;
 *  - corrupt: one byte after the UDP header and before the ICRC end is XORed
 *    with a random non-zero value (BTH byte 4, which the ICRC does not cover,
 *    is never chosen), so roce_parse() refuses the frame with ROCE_ERR_ICRC;
 *  - jitter: 1..jitter_max extra cycles of delay (which, links being FIFO,
 *    also delays the frames behind it).
 */
#ifndef HCASIM_SIM_WIRE_H
#define HCASIM_SIM_WIRE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum wire_mode {
	WIRE_P2P = 0,		/* ports 0-1, 2-3, ... are cable pairs */
	WIRE_SWITCH = 1,	/* learning switch: by destination MAC, flood unknown/multicast */
};

/* Probabilities per delivered copy, 0.0 .. 1.0. */
struct wire_faults {
	double drop;
	double dup;
	double reorder;
	double corrupt;
	double jitter;
	uint64_t jitter_max;		/* cycles; 0 = the wire latency (at least 1) */
	unsigned int reorder_depth;	/* frames to hold behind; 0 = 1 */
	uint64_t reorder_timeout;	/* cycles a held frame waits at most; 0 = 10000 */
};

struct wire_config {
	enum wire_mode mode;
	unsigned int max_ports;	/* 0 = 64 */
	uint64_t latency;	/* cycles from send to delivery */
	uint64_t seed;
	struct wire_faults faults;
	const char *pcap_tx;	/* capture every frame as sent (cycle of send), or NULL */
	const char *pcap_rx;	/* capture every copy as delivered (cycle of delivery), or NULL */
};

struct wire_stats {
	uint64_t sent;		/* wire_send calls accepted */
	uint64_t copies;	/* copies scheduled toward a port (after switching) */
	uint64_t delivered;	/* rx callbacks made */
	uint64_t dropped;
	uint64_t duplicated;
	uint64_t reordered;	/* copies held back */
	uint64_t reorder_timeouts; /* held copies released by the timeout */
	uint64_t corrupted;
	uint64_t jittered;
	uint64_t flooded;	/* frames flooded (unknown or multicast destination) */
	uint64_t unroutable;	/* frames with no destination (unpaired port, own MAC) */
	uint64_t replayed;	/* frames scheduled by wire_replay_pcap */
	uint64_t orphaned;	/* copies discarded because their destination port detached */
	uint64_t pcap_errors;	/* capture write failures (capture then stops) */
};

struct wire_port_stats {
	uint64_t tx_frames, tx_bytes;
	uint64_t rx_frames, rx_bytes;
};

/* Delivery of one frame to the port's owner, at cycle `now` (its due cycle). */
typedef void (*wire_rx_fn)(void *ctx, unsigned int port, const uint8_t *frame, size_t len,
			   uint64_t now);

struct wire;

/* NULL with errno EINVAL (bad rates or mode), ENOMEM, or the pcap open error. */
struct wire *wire_create(const struct wire_config *cfg);
void wire_destroy(struct wire *w);

/*
 * Attach a port; returns its id or -ENOSPC/-EINVAL.  Ids are 0, 1, ... in
 * attach order; a detached port's id is given again (lowest first).
 */
int wire_attach(struct wire *w, wire_rx_fn rx, void *ctx);

/*
 * The port's owner left (a switch port whose cable was pulled): the MACs
 * learned on it are forgotten (frames to them are flooded again), copies in
 * flight toward it are discarded (counted as `orphaned`, never delivered),
 * floods skip it, and its id and counters are free for the next
 * wire_attach.  0 or -EINVAL (no such attached port).
 */
int wire_detach(struct wire *w, unsigned int port);

/*
 * Port `port` transmits a frame at cycle `now` (the frame is copied).
 * 0, or -EINVAL (unknown port, len 0 or > 65536+14, NULL frame).
 * `now` earlier than a previous call's is treated as that earlier call's cycle.
 */
int wire_send(struct wire *w, unsigned int port, const uint8_t *frame, size_t len, uint64_t now);

/* Deliver every copy due at or before `now`; returns how many were delivered. */
unsigned int wire_deliver(struct wire *w, uint64_t now);

/* Earliest cycle with something to deliver or release, UINT64_MAX if none. */
uint64_t wire_next_event(const struct wire *w);

/* Copies in flight (scheduled or held). */
size_t wire_pending(const struct wire *w);

/* Change the fault rates from now on (e.g. after connection setup).  0 or -EINVAL. */
int wire_set_faults(struct wire *w, const struct wire_faults *f);

void wire_get_stats(const struct wire *w, struct wire_stats *s);
int wire_port_stats(const struct wire *w, unsigned int port, struct wire_port_stats *s);

/*
 * Schedule every frame of a pcap/pcapng file for delivery to `port`: the
 * first frame at cycle `start`, the others at their capture time offsets
 * (ns -> cycles).  Frames are delivered as captured, without latency or
 * faults, and appear in the rx capture.  Returns the number of frames or a
 * negative errno (the file's error; nothing is scheduled then).
 */
long wire_replay_pcap(struct wire *w, unsigned int port, const char *path, uint64_t start);

#ifdef __cplusplus
}
#endif

#endif /* HCASIM_SIM_WIRE_H */
