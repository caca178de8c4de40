// SPDX-License-Identifier: MIT
/*
 * Directed cosimulation tests (sim/regress/directed.h).  Each builds a
 * message list: lengths at every PMTU edge, every SGE split, several QPs,
 * immediates and solicited events.  The seed still picks PSNs, SGE split
 * points and payload bytes.
 */
#include <string.h>

#include "directed.h"

static const uint32_t edge_lens[] = { 0, 1, 2, 3, 4, 63, 255, 256, 257, 511, 512, 513, 1023, 1024, 1025,
				      2047, 2048, 2049, 4095, 4096, 4097, 8191, 8192, 12289, 65535, 65536 };
#define NEDGE (sizeof(edge_lens) / sizeof(edge_lens[0]))

static unsigned int add(struct tr_msg *l, unsigned int n, unsigned int max, unsigned int pair, unsigned int dir,
			unsigned int op, uint32_t len, unsigned int nsge, unsigned int rsge, bool se)
{
	if (n < max)
		l[n] = (struct tr_msg){ .pair = (uint8_t)pair, .dir = (uint8_t)dir, .op = (uint8_t)op,
					.nsge = (uint8_t)nsge, .rsge = (uint8_t)rsge, .solicited = se, .len = len };
	return n + 1;
}

/* One pair per PMTU (256 .. 4096). */
static void five_mtus(struct tr_cfg *c)
{
	c->pairs = 5;
	for (unsigned int k = 0; k < 5; k++)
		c->mtu[k] = (uint8_t)(HCA_MTU_256 + k);
}

static unsigned int b_sizes(struct tr_cfg *c, struct tr_msg *l, unsigned int max)
{
	unsigned int n = 0;

	five_mtus(c);
	for (unsigned int k = 0; k < 5; k++)
		for (unsigned int i = 0; i < NEDGE; i++)
			n = add(l, n, max, k, i & 1, TR_SEND, edge_lens[i], 1, 1, false);
	return n;
}

static unsigned int b_writes(struct tr_cfg *c, struct tr_msg *l, unsigned int max)
{
	unsigned int n = 0;

	five_mtus(c);
	for (unsigned int k = 0; k < 5; k++)
		for (unsigned int i = 0; i < NEDGE; i++)
			n = add(l, n, max, k, (i >> 1) & 1, (i & 1) ? TR_WRITE_IMM : TR_WRITE, edge_lens[i], 1, 1, false);
	return n;
}

static unsigned int b_sge(struct tr_cfg *c, struct tr_msg *l, unsigned int max)
{
	static const uint32_t lens[] = { 1, 7, 100, 3000, 9000, 65536 };
	unsigned int n = 0;

	c->pairs = 2;
	c->mtu[0] = HCA_MTU_1024;
	c->mtu[1] = HCA_MTU_4096;
	for (unsigned int s = 1; s <= TR_DEF_SGE; s++)
		for (unsigned int r = 1; r <= TR_DEF_SGE; r++)
			for (unsigned int i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
				n = add(l, n, max, i & 1, (s + r) & 1, TR_SEND, lens[i], s, r, false);
				if (r == 1)
					n = add(l, n, max, i & 1, s & 1, TR_WRITE, lens[i], s, 1, false);
			}
	return n;
}

/* 5..16 gather and scatter SGEs (the device's max_sge), SEND and WRITE, tiny to 64 KiB. */
static unsigned int b_sge16(struct tr_cfg *c, struct tr_msg *l, unsigned int max)
{
	static const uint32_t lens[] = { 3, 16, 5000, 65536 };
	static const uint8_t counts[] = { 5, 8, 15, 16 };
	unsigned int n = 0;

	c->pairs = 2;
	c->mtu[0] = HCA_MTU_1024;
	c->mtu[1] = HCA_MTU_4096;
	c->max_sge = TR_MAX_SGE;
	for (unsigned int s = 0; s < sizeof(counts); s++)
		for (unsigned int i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			n = add(l, n, max, i & 1, s & 1, TR_SEND, lens[i], counts[s], counts[(s + i) % sizeof(counts)],
				false);
			n = add(l, n, max, i & 1, (s + 1) & 1, TR_WRITE, lens[i], counts[s], 1, false);
		}
	return n;
}

static unsigned int b_multi_qp(struct tr_cfg *c, struct tr_msg *l, unsigned int max)
{
	unsigned int n = 0;

	c->pairs = 8;
	c->outstanding = 8;
	for (unsigned int round = 0; round < 12; round++)
		for (unsigned int k = 0; k < 8; k++)
			n = add(l, n, max, k, (round + k) & 1, (round + k) % 4, 64 + 97 * ((round * 8 + k) % 23), 1 + k % 2,
				1 + round % 2, false);
	return n;
}

static unsigned int b_imm_se(struct tr_cfg *c, struct tr_msg *l, unsigned int max)
{
	static const uint32_t lens[] = { 0, 4, 1500, 4096, 20000 };
	unsigned int n = 0;

	c->pairs = 2;
	c->mtu[0] = HCA_MTU_512;
	c->mtu[1] = HCA_MTU_2048;
	for (unsigned int i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		for (unsigned int se = 0; se < 2; se++)
			for (unsigned int op = 0; op < 4; op++)
				n = add(l, n, max, (i + op) & 1, (op + se) & 1, op, lens[i], 1, 1, se != 0);
	return n;
}

/* Every pair of one QP type. */
static void all_qpt(struct tr_cfg *c, uint8_t qpt)
{
	for (unsigned int k = 0; k < TR_MAX_PAIRS; k++)
		c->qpt[k] = qpt;
}

/*
 * UC: SEND, SEND_WITH_IMM, RDMA WRITE, WRITE_WITH_IMM at lengths that give
 * ONLY, FIRST+LAST and FIRST+MIDDLE+LAST packets at each PMTU, 1..4 SGEs
 * on both sides, solicited and not.
 */
static unsigned int b_uc(struct tr_cfg *c, struct tr_msg *l, unsigned int max)
{
	unsigned int n = 0, i = 0;

	five_mtus(c);
	all_qpt(c, HCA_QPT_UC);
	for (unsigned int k = 0; k < 5; k++) {
		uint32_t pmtu = 256u << k;
		const uint32_t lens[] = { 0, 1, pmtu - 1, pmtu, pmtu + 1, 2 * pmtu, 3 * pmtu + 5 };

		for (unsigned int j = 0; j < sizeof(lens) / sizeof(lens[0]); j++)
			for (unsigned int op = 0; op < 4; op++, i++)
				n = add(l, n, max, k, i & 1, op, lens[j], 1 + i % TR_DEF_SGE, 1 + (i / 3) % TR_DEF_SGE,
					i % 5 == 0);
	}
	return n;
}

/*
 * UD: SEND and SEND_WITH_IMM of 0, 1, PMTU-1 and PMTU bytes at each PMTU
 * (one packet each, the GRH area in front of the data), 1..4 SGEs on both
 * sides, solicited and not.
 */
static unsigned int b_ud(struct tr_cfg *c, struct tr_msg *l, unsigned int max)
{
	unsigned int n = 0, i = 0;

	five_mtus(c);
	all_qpt(c, HCA_QPT_UD);
	for (unsigned int k = 0; k < 5; k++) {
		uint32_t pmtu = 256u << k;
		const uint32_t lens[] = { 0, 1, 61, pmtu - 1, pmtu };

		for (unsigned int j = 0; j < sizeof(lens) / sizeof(lens[0]); j++)
			for (unsigned int imm = 0; imm < 2; imm++, i++)
				n = add(l, n, max, k, i & 1, imm ? TR_SEND_IMM : TR_SEND, lens[j], 1 + i % TR_DEF_SGE,
					1 + (i / 2) % TR_DEF_SGE, i % 3 == 0);
	}
	return n;
}

static unsigned int b_reads(struct tr_cfg *c, struct tr_msg *l, unsigned int max)
{
	unsigned int n = 0;

	five_mtus(c);
	for (unsigned int k = 0; k < 5; k++)
		for (unsigned int i = 0; i < NEDGE; i++)
			n = add(l, n, max, k, i & 1, TR_READ, edge_lens[i], 1 + i % TR_DEF_SGE, 1, false);
	return n;
}

static unsigned int b_atomics(struct tr_cfg *c, struct tr_msg *l, unsigned int max)
{
	unsigned int n = 0;

	c->pairs = 2;
	for (unsigned int i = 0; i < 64; i++)
		n = add(l, n, max, i & 1, (i >> 1) & 1, (i % 3) ? TR_FADD : TR_CSWAP, 8, 1, 1, false);
	return n;
}

const struct directed directed_tests[] = {
	{ "sizes", "SEND of every PMTU-edge length (0 .. 64 KiB) at each PMTU 256 .. 4096", b_sizes, false },
	{ "writes", "RDMA WRITE and WRITE_WITH_IMM of every PMTU-edge length at each PMTU", b_writes, false },
	{ "sge", "1..4 gather SGEs x 1..4 scatter SGEs, SEND and WRITE, 1 B .. 64 KiB", b_sge, false },
	{ "sge16", "5..16 gather and scatter SGEs (the device's max_sge), SEND and WRITE, 3 B .. 64 KiB", b_sge16, false },
	{ "multi_qp", "8 QP pairs, both directions, 8 messages in flight each, all four opcodes", b_multi_qp, false },
	{ "imm_se", "immediates and solicited events with CQ arming, EQEs and MSI-X", b_imm_se, false },
	{ "uc", "UC SEND/WRITE with and without immediate, ONLY..FIRST+MIDDLE+LAST at each PMTU, 1..4 SGEs", b_uc, false },
	{ "ud", "UD SEND with and without immediate, 0 .. PMTU bytes at each PMTU, 1..4 SGEs, GRH area checked", b_ud, false },
	{ "reads", "RDMA READ of every PMTU-edge length at each PMTU (needs READ in the DUT)", b_reads, true },
	{ "atomics", "FETCH_AND_ADD and CMP_AND_SWP (hit and miss) on two QPs (needs atomics in the DUT)", b_atomics, true },
	{ NULL, NULL, NULL, false },
};

const struct directed *directed_find(const char *name)
{
	for (const struct directed *d = directed_tests; d->name; d++)
		if (strcmp(d->name, name) == 0)
			return d;
	return NULL;
}
