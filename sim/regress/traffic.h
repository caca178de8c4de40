/* SPDX-License-Identifier: MIT */
/*
 * Traffic for the cosimulation regression (docs/sim.md): RC, UC and UD
 * messages between two engines on sim/tb, several QP pairs in both directions, with
 * end-to-end checks (every completion, every payload byte) that do not
 * depend on the lockstep checker -- two wrong engines that agree would
 * still fail here.
 *
 * Messages come from a directed list or from a seeded generator (opcode
 * mix, lengths 0..max_len with PMTU edges, 1..max_sge SGEs on both sides,
 * solicited flags); the same seed gives the same messages and the same
 * run, cycle for cycle.
 */
#ifndef HCASIM_SIM_REGRESS_TRAFFIC_H
#define HCASIM_SIM_REGRESS_TRAFFIC_H

#include <stdbool.h>
#include <stdint.h>

#include "tb.h"

enum tr_op { TR_SEND, TR_SEND_IMM, TR_WRITE, TR_WRITE_IMM, TR_READ, TR_FADD, TR_CSWAP, TR_NOPS };

#define TR_MAX_PAIRS 16
#define TR_MAX_SGE 16		/* SGEs per WQE the traffic can use (the device's max_sge) */
#define TR_DEF_SGE 4		/* max_sge by default (the QPs' max_send_sge/max_recv_sge) */
#define TR_SLOT 65536u		/* bytes per in-flight message slot */

/* One directed message. */
struct tr_msg {
	uint8_t pair;		/* QP pair index */
	uint8_t dir;		/* 0: node 0 -> node 1, 1: node 1 -> node 0 */
	uint8_t op;		/* enum tr_op */
	uint8_t nsge;		/* requester SGEs (1..max_sge) */
	uint8_t rsge;		/* receive SGEs (1..max_sge), SEND only */
	bool solicited;
	uint32_t len;
};

struct tr_cfg {
	uint64_t seed;
	unsigned int pairs;		/* QP pairs (1..TR_MAX_PAIRS) */
	uint8_t mtu[TR_MAX_PAIRS];	/* HCA_MTU_* per pair; 0 = chosen by the seed */
	uint8_t qpt[TR_MAX_PAIRS];	/* HCA_QPT_RC/UC/UD per pair; 0 = RC */
	unsigned int messages;		/* generated messages (ignored with a list) */
	const struct tr_msg *list;	/* directed messages, posted in order, or NULL */
	unsigned int nlist;
	unsigned int weight[TR_NOPS];	/* opcode mix of generated messages */
	uint32_t max_len;		/* longest generated message (<= TR_SLOT) */
	unsigned int max_sge;		/* 1..TR_MAX_SGE: the QPs' SGE capacity, and the generator's most */
	unsigned int outstanding;	/* in-flight messages per pair and direction (1..8) */
	bool events;			/* arm CQs, take EQEs and MSI-X interrupts */
	uint64_t max_cycles;		/* give up after this many cycles (0 = 2^32) */
	/* retry paths (docs/sim.md "Faults"): 0 = tb_qp_attr_default's value */
	uint8_t timeout;		/* local ACK timeout exponent of every QP */
	uint8_t min_rnr_timer;		/* RNR NAK timer code of every QP */
	unsigned int late_recv;		/* % of receive WQEs posted 2000..9999 cycles after their
					 * message (in order per flow): the SEND may meet an RNR NAK */
	bool spread_slots;		/* reuse a message slot only MAX_OUT (8) messages later */
	bool verbose;
};

struct tr_result {
	unsigned int posted, completed;
	uint64_t payload_bytes;		/* message bytes delivered and checked */
	uint64_t cycles;		/* simulated cycles of the run */
	unsigned int eqes, irqs;
	unsigned int errors;
	char first_error[256];
};

/* Defaults: 4 pairs, SEND/WRITE mix without READ or atomics, 64 KiB, TR_DEF_SGE SGEs, 4 in flight, events on. */
void tr_cfg_default(struct tr_cfg *c);
/*
 * Parse an opcode mix "send:3,send_imm:1,write:3,write_imm:1,read:0,fadd:0,cswap:0"
 * into c->weight (unnamed opcodes get 0).  Atomics act on the first 8 bytes of
 * the message's slot at the responder (len and SGE counts are ignored); a
 * CMP_SWAP's compare value misses one time in four.  0 or -1.
 */
int tr_parse_ops(struct tr_cfg *c, const char *s);
const char *tr_op_name(unsigned int op);
/*
 * Parse a QP type list "rc,uc,ud" into c->qpt: pair k gets entry k % n.
 * A message the pair's type cannot carry is changed to one it can (UD: SEND
 * or SEND_WITH_IMM of at most one PMTU; UC: no READ or atomics, they become
 * RDMA WRITE).  0 or -1.
 */
int tr_parse_qpts(struct tr_cfg *c, const char *s);

/* Run the traffic on nodes 0 and 1 of `tb` (brought up, nothing else created). */
void tr_run(struct tb *tb, const struct tr_cfg *c, struct tr_result *r);

#endif /* HCASIM_SIM_REGRESS_TRAFFIC_H */
