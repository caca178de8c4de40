/* SPDX-License-Identifier: MIT */
/*
 * Directed fault shapes for the cosimulation regression (docs/sim.md
 * section 6, "Faults"): losses chosen by what a frame is, not by the wire's
 * seeded dice, so a run holds the loss it is meant to hold whatever the
 * timing of the engines.  They act on transmit, before the wire (a tb frame
 * filter), and mix with the wire's random faults (`faults=` key of a plan
 * line or cosim --faults):
 *
 *   last:N  the first sending of every N-th RC request packet that ends a
 *           message (SEND/WRITE LAST or ONLY, READ request, atomic) a node
 *           sends is lost (counted per node: node 0, where a plan line
 *           plants its bug, loses one in N of its own, whatever node 1 does).
 *           "First sending": its PSN is past every PSN sent before on that
 *           QP (counted per node and destination QP); a resend is never
 *           counted or dropped.  With `outstanding=1` nothing else is in
 *           flight on that QP when it is lost, so no later packet draws a
 *           sequence NAK: only the requester's ACK timer recovers it.
 */
#ifndef HCASIM_SIM_REGRESS_FAULTSHAPE_H
#define HCASIM_SIM_REGRESS_FAULTSHAPE_H

#include <stdbool.h>
#include <stdint.h>

#include "tb.h"

#define FS_MAX_QPS 64		/* (node, destination QP) flows tracked */

struct fs_flow {
	unsigned int node;
	uint32_t dqpn;
	uint32_t hi;		/* highest PSN sent */
};

struct fault_shape {
	unsigned int last_every;	/* last:N; 0 = off */
	/* state of a run */
	unsigned int last_seen[TB_MAX_NODES];	/* first sendings of message-ending packets, per node */
	uint64_t dropped;
	struct fs_flow flow[FS_MAX_QPS];
	unsigned int nflow;
	uint64_t untracked;		/* frames of flows past FS_MAX_QPS (passed, never dropped) */
};

/*
 * One "key:value" of a faults string that is not a wire rate.  1: taken
 * (into s), 0: not a shape's key, -1: a shape's key with a bad value.
 */
int fs_parse(struct fault_shape *s, const char *key, const char *val);
bool fs_active(const struct fault_shape *s);
/* Install the shape as tb's frame filter (when active); the state restarts. */
void fs_attach(struct tb *tb, struct fault_shape *s);

#endif /* HCASIM_SIM_REGRESS_FAULTSHAPE_H */
