// SPDX-License-Identifier: MIT
/* The harness MAC's transmit pacing: see mac_pace.h. */
#include "mac_pace.h"

#include <stddef.h>

const char *const mac_pace_names[] = { "none", "25g", "100g", NULL };

uint32_t mac_pace_rate(enum mac_speed s)
{
	switch (s) {
	case MAC_SPEED_25G:
		return (uint32_t)(25000000000ull / MAC_DEVICE_HZ);
	case MAC_SPEED_100G:
		return (uint32_t)(100000000000ull / MAC_DEVICE_HZ);
	default:
		return 0;
	}
}

void mac_pace_init(struct mac_pace *p, enum mac_speed s, unsigned int beat_bytes)
{
	/* a FIFO of two beats and one frame's overheads: a saturated source keeps
	 * the line busy through short last beats, preambles and gaps */
	uint32_t fifo = 2 * beat_bytes + MAC_PREAMBLE_BYTES + MAC_FCS_BYTES + MAC_IFG_BYTES;

	*p = (struct mac_pace){ .rate = mac_pace_rate(s), .hold = fifo * 8u };
}

uint64_t mac_wire_bytes(uint64_t len)
{
	return MAC_PREAMBLE_BYTES + (len < MAC_MIN_FRAME_BYTES ? MAC_MIN_FRAME_BYTES : len) + MAC_FCS_BYTES +
	       MAC_IFG_BYTES;
}

/* The backlog as of cycle now: the line drained `rate` bits a cycle since `at`. */
static void drain(struct mac_pace *p, uint64_t now)
{
	uint64_t gone;

	if (now <= p->at)
		return;
	gone = (now - p->at) * p->rate;
	p->backlog = gone >= p->backlog ? 0 : p->backlog - gone;
	p->at = now;
}

bool mac_pace_ready(struct mac_pace *p, uint64_t now)
{
	if (!p->rate)
		return true;
	drain(p, now);
	return p->backlog < p->hold;
}

void mac_pace_beat(struct mac_pace *p, uint64_t now, unsigned int bytes, bool last)
{
	uint64_t add = bytes;

	if (p->frame_bytes == 0)
		add += MAC_PREAMBLE_BYTES;
	p->frame_bytes += bytes;
	if (last) {
		if (p->frame_bytes < MAC_MIN_FRAME_BYTES)
			add += MAC_MIN_FRAME_BYTES - p->frame_bytes;
		add += MAC_FCS_BYTES + MAC_IFG_BYTES;
		p->frame_bytes = 0;
		p->frames++;
	}
	p->wire_bytes += add;
	if (!p->rate)
		return;
	drain(p, now);
	p->backlog += add * 8;
}

uint64_t mac_pace_next_ready(const struct mac_pace *p, uint64_t now)
{
	uint64_t backlog = p->backlog, excess;

	if (!p->rate)
		return now;
	if (now > p->at) {
		uint64_t gone = (now - p->at) * p->rate;

		backlog = gone >= backlog ? 0 : backlog - gone;
	}
	if (backlog < p->hold)
		return now;
	excess = backlog - p->hold + 1;	/* bits to drain before backlog < hold */
	return now + (excess + p->rate - 1) / p->rate;
}
