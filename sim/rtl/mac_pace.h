/* SPDX-License-Identifier: MIT */
/*
 * The harness MAC's transmit pacing (docs/sim.md "MAC pacing"): the MAC
 * accepts beats no faster than an Ethernet line carries them, counting
 * what every frame costs on the wire besides its bytes (IEEE 802.3):
 *
 *   preamble + SFD  8 bytes, before the frame
 *   pad             to the 60-byte minimum (frames here carry no FCS)
 *   FCS             4 bytes
 *   IFG             12 bytes (the minimum inter-frame gap)
 *
 * Model: the MAC holds the bits it accepted and has not yet serialized (the
 * backlog); the line drains `rate` bits per device cycle (250 MHz device
 * clock: 400 at 100 GbE = 50 B/cycle, 100 at 25 GbE = 12.5 B/cycle).
 * tready is high while the backlog is under the MAC's FIFO (two beats and
 * one frame's preamble, FCS and IFG), so an idle line takes a frame's first
 * beat at once, a saturated one settles at the line rate, and a source
 * slower than the line (64-bit beats at 25 GbE) is never held back.  The backlog is drained lazily from the cycle count, so cycles the
 * harness skips (time warp) drain it too.  Pacing changes only when beats
 * are accepted, never what they carry.
 */
#ifndef HCASIM_SIM_RTL_MAC_PACE_H
#define HCASIM_SIM_RTL_MAC_PACE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Line speeds; the order is the rtl engine's mac= option's (mac_pace_names). */
enum mac_speed { MAC_SPEED_NONE, MAC_SPEED_25G, MAC_SPEED_100G };
extern const char *const mac_pace_names[];	/* "none", "25g", "100g", NULL */

#define MAC_DEVICE_HZ 250000000ull	/* the device clock */
#define MAC_PREAMBLE_BYTES 8		/* preamble 7 + SFD 1 */
#define MAC_FCS_BYTES 4
#define MAC_IFG_BYTES 12
#define MAC_MIN_FRAME_BYTES 60		/* without the FCS */

struct mac_pace {
	uint32_t rate;		/* wire bits per device cycle; 0: no pacing */
	uint32_t hold;		/* tready while the backlog is under this many bits */
	uint64_t backlog;	/* bits accepted, not yet on the wire, as of cycle `at` */
	uint64_t at;
	uint64_t frame_bytes;	/* of the frame being accepted; 0 between frames */
	uint64_t wire_bytes;	/* statistics: everything charged, overheads included */
	uint64_t frames;
};

/* Line bits per device cycle of a speed (0 for none). */
uint32_t mac_pace_rate(enum mac_speed s);

void mac_pace_init(struct mac_pace *p, enum mac_speed s, unsigned int beat_bytes);

/* tready for cycle `now` (now never goes back). */
bool mac_pace_ready(struct mac_pace *p, uint64_t now);

/* A beat of `bytes` was accepted in cycle `now`; `last`: it ends the frame. */
void mac_pace_beat(struct mac_pace *p, uint64_t now, unsigned int bytes, bool last);

/* The first cycle >= now at which tready will be high (event-driven skipping). */
uint64_t mac_pace_next_ready(const struct mac_pace *p, uint64_t now);

/* Wire bytes a frame of `len` bytes (no FCS) occupies: the independent formula. */
uint64_t mac_wire_bytes(uint64_t len);

#ifdef __cplusplus
}
#endif

#endif /* HCASIM_SIM_RTL_MAC_PACE_H */
