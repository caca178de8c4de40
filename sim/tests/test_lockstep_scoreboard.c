// SPDX-License-Identifier: MIT
/*
 * The scoreboard on its own (sim/scoreboard.h): burst re-splitting of the
 * same bytes is not a mismatch (random split points, interleaved pushes of
 * both sides and of several streams); a different byte, address or order
 * is, with the right stream and field; CQE/EQE fields are named; frames
 * built by the model codec with one header field changed are diffed to
 * exactly that field; "extra" (DUT only, reference leading) and "missing"
 * (end of run) transactions; the first divergence wins; the reference's
 * memory overlay; register value comparison.
 *
 *   test_lockstep_scoreboard [--seed S] [-v]
 */
#include <stdlib.h>
#include <string.h>

#include "../../model/roce_hdr.h"
#include "check.h"
#include "hcasim/hca_spec.h"
#include "scoreboard.h"

static int verbose;
static uint64_t rng = 1;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

static void show(const struct sb *sb)
{
	if (verbose && sb_divergence(sb))
		printf("%s", sb_divergence(sb)->report);
}

/* Push `len` bytes at `addr` for `side` split at random points. */
static void push_split(struct sb *sb, int id, enum sb_side side, uint64_t addr, const uint8_t *d, size_t len,
		       unsigned int max_piece)
{
	size_t off = 0;

	while (off < len) {
		size_t n = 1 + rnd() % max_piece;

		if (n > len - off)
			n = len - off;
		sb_push_dma(sb, id, side, off, addr + off, addr, d + off, n);
		off += n;
	}
}

static void resplit(void)
{
	static uint8_t buf[20000];

	for (int round = 0; round < 200; round++) {
		struct sb *sb = sb_create("resplit");
		int id = sb_stream(sb, "mr1", SB_DMA, SB_FMT_MEM, NULL);
		size_t len = 1 + rnd() % sizeof(buf);
		uint64_t addr = 0x100000 + rnd() % 4096;

		fill(buf, len, (uint32_t)round);
		/* both sides, random bursts, in either order */
		if (round & 1) {
			push_split(sb, id, SB_REF, addr, buf, len, 1 + rnd() % 4096);
			push_split(sb, id, SB_DUT, addr, buf, len, 1 + rnd() % 64);
		} else {
			push_split(sb, id, SB_DUT, addr, buf, len, 1 + rnd() % 64);
			push_split(sb, id, SB_REF, addr, buf, len, 1 + rnd() % 4096);
		}
		CHECK(!sb_failed(sb), "round %d: re-split bursts of %zu bytes are not a mismatch", round, len);
		CHECK(sb_check_end(sb, 0, "end", false), "round %d: nothing left over", round);
		CHECK_EQ(sb_matched(sb, SB_DMA, NULL), len, "all bytes matched");
		show(sb);
		sb_destroy(sb);
	}
}

static void interleaved_streams(void)
{
	struct sb *sb = sb_create("streams");
	int a = sb_stream(sb, "cq1", SB_DMA, SB_FMT_CQE, NULL);
	int b = sb_stream(sb, "mr2", SB_DMA, SB_FMT_MEM, NULL);
	int t = sb_stream(sb, "tx", SB_MSG, SB_FMT_RAW, NULL);
	uint8_t cqe[4][32], pay[4][300], fr[4][64];

	for (int i = 0; i < 4; i++) {
		fill(cqe[i], 32, 10 + i);
		fill(pay[i], 300, 20 + i);
		fill(fr[i], 64, 30 + i);
	}
	/* reference: cq, mr, tx per message; DUT: all tx first, then mr, then cq */
	for (int i = 0; i < 4; i++) {
		sb_push_dma(sb, a, SB_REF, i, 0x1000 + 32 * i, 0x1000, cqe[i], 32);
		sb_push_dma(sb, b, SB_REF, i, 0x9000 + 300 * i, 0x9000, pay[i], 300);
		sb_push(sb, t, SB_REF, i, fr[i], 64);
	}
	for (int i = 0; i < 4; i++)
		sb_push(sb, t, SB_DUT, 10 + i, fr[i], 64);
	for (int i = 0; i < 4; i++)
		push_split(sb, b, SB_DUT, 0x9000 + 300 * i, pay[i], 300, 64);
	for (int i = 0; i < 4; i++)
		sb_push_dma(sb, a, SB_DUT, 20 + i, 0x1000 + 32 * i, 0x1000, cqe[i], 32);
	CHECK(!sb_failed(sb), "order across streams is free");
	CHECK(sb_check_end(sb, 30, "end", false), "all matched");
	CHECK_EQ(sb_matched(sb, SB_MSG, "tx"), 4, "frames matched");
	CHECK_EQ(sb_matched(sb, SB_DMA, "cq"), 128, "CQE bytes matched");
	show(sb);
	sb_destroy(sb);
}

static void byte_difference(void)
{
	static uint8_t a[5000], b[5000];

	for (int round = 0; round < 50; round++) {
		struct sb *sb = sb_create("bytes");
		int id = sb_stream(sb, "mr3", SB_DMA, SB_FMT_MEM, "DMA writes into MR 3");
		size_t len = 100 + rnd() % 4900, k = rnd() % len;
		const struct sb_divergence *d;
		char want[64];

		fill(a, len, 5);
		memcpy(b, a, len);
		b[k] ^= (uint8_t)(1 + rnd() % 255);
		push_split(sb, id, SB_REF, 0x40000, a, len, 4096);
		push_split(sb, id, SB_DUT, 0x40000, b, len, 512);
		d = sb_divergence(sb);
		CHECK(d != NULL, "round %d: a changed byte is a mismatch", round);
		if (!d)
			continue;
		CHECK(strcmp(d->stream, "mr3") == 0, "stream %s", d->stream);
		CHECK(strcmp(d->field, "data") == 0, "field %s", d->field);
		snprintf(want, sizeof(want), "0x%llx", (unsigned long long)(0x40000 + k));
		CHECK(strstr(d->report, want) != NULL, "report names the address %s", want);
		CHECK(strstr(d->summary, "mr3") != NULL, "summary names the stream");
		if (round == 0)
			show(sb);
		sb_destroy(sb);
	}
}

static void address_and_order(void)
{
	uint8_t a[256];
	struct sb *sb;
	const struct sb_divergence *d;
	int id;

	fill(a, sizeof(a), 9);
	/* same bytes, second half written first */
	sb = sb_create("order");
	id = sb_stream(sb, "mr4", SB_DMA, SB_FMT_MEM, NULL);
	sb_push_dma(sb, id, SB_REF, 1, 0x8000, 0x8000, a, 128);
	sb_push_dma(sb, id, SB_REF, 1, 0x8080, 0x8000, a + 128, 128);
	sb_push_dma(sb, id, SB_DUT, 2, 0x8080, 0x8000, a + 128, 128);
	d = sb_divergence(sb);
	CHECK(d && strcmp(d->field, "addr") == 0, "reordered writes: field addr");
	CHECK(d && strstr(d->report, "0x8080") && strstr(d->report, "0x8000"), "both addresses in the report");
	show(sb);
	sb_destroy(sb);

	/* same bytes, different address */
	sb = sb_create("addr");
	id = sb_stream(sb, "dma-other", SB_DMA, SB_FMT_RAW, NULL);
	sb_push_dma(sb, id, SB_REF, 1, 0x8000, 0, a, 64);
	sb_push_dma(sb, id, SB_DUT, 2, 0x8040, 0, a, 64);
	d = sb_divergence(sb);
	CHECK(d && strcmp(d->field, "addr") == 0, "wrong address: field addr");
	sb_destroy(sb);

	/* a mismatch in the middle of a burst after a partial match */
	sb = sb_create("mid");
	id = sb_stream(sb, "mr5", SB_DMA, SB_FMT_MEM, NULL);
	sb_push_dma(sb, id, SB_REF, 1, 0x8000, 0x8000, a, 256);
	sb_push_dma(sb, id, SB_DUT, 2, 0x8000, 0x8000, a, 100);
	sb_push_dma(sb, id, SB_DUT, 2, 0x8064 + 8, 0x8000, a + 108, 100);
	d = sb_divergence(sb);
	CHECK(d && strcmp(d->field, "addr") == 0, "skipped bytes: field addr");
	CHECK(d && strstr(d->report, "mr5+0x64"), "report gives the region offset of the expected byte");
	show(sb);
	sb_destroy(sb);
}

static void entries(void)
{
	struct hca_cqe c;
	struct hca_eqe e, e2;
	uint8_t c2[32];
	struct sb *sb;
	const struct sb_divergence *d;
	int id;

	memset(&c, 0, sizeof(c));
	c.byte_len = 100;
	c.qpn = 5;
	c.wqe_index = 7;
	c.opcode = HCA_WC_OP_RECV;
	c.owner = 1;
	memcpy(c2, &c, 32);
	((struct hca_cqe *)(void *)c2)->byte_len = 101;
	sb = sb_create("cqe");
	id = sb_stream(sb, "cq2", SB_DMA, SB_FMT_CQE, "CQEs of CQ 2");
	sb_push_dma(sb, id, SB_REF, 5, 0x2000 + 3 * 32, 0x2000, &c, 32);
	/* the DUT writes the same CQE in two beats */
	sb_push_dma(sb, id, SB_DUT, 9, 0x2000 + 3 * 32, 0x2000, c2, 16);
	sb_push_dma(sb, id, SB_DUT, 10, 0x2000 + 3 * 32 + 16, 0x2000, c2 + 16, 16);
	d = sb_divergence(sb);
	CHECK(d && strcmp(d->field, "byte_len") == 0, "CQE byte_len named (got %s)", d ? d->field : "-");
	CHECK(d && strstr(d->summary, "ref 100, dut 101"), "values in the summary: %s", d ? d->summary : "-");
	CHECK(d && strstr(d->report, "entry 3"), "entry index in the report");
	show(sb);
	sb_destroy(sb);

	memset(&e, 0, sizeof(e));
	e.type = HCA_EQE_TYPE_COMP;
	e.element = 3;
	e.owner = 1;
	e2 = e;
	e2.element = 4;
	sb = sb_create("eqe");
	id = sb_stream(sb, "eq0", SB_DMA, SB_FMT_EQE, NULL);
	sb_push_dma(sb, id, SB_REF, 5, 0x3000, 0x3000, &e, 16);
	sb_push_dma(sb, id, SB_DUT, 6, 0x3000, 0x3000, &e2, 16);
	d = sb_divergence(sb);
	CHECK(d && strcmp(d->field, "element") == 0, "EQE element named (got %s)", d ? d->field : "-");
	show(sb);
	sb_destroy(sb);
}

/* Frames: model codec builds them; one field changed on the DUT side. */
static size_t build(uint8_t *buf, uint8_t op, bool se, uint16_t sport, uint32_t psn, const uint8_t *pay,
		    uint32_t plen)
{
	struct roce_pkt p;

	roce_pkt_init(&p, op);
	memcpy(p.dmac, "\x02\0\0\0\0\x02", 6);
	memcpy(p.smac, "\x02\0\0\0\0\x01", 6);
	p.sip = 0x0a000001;
	p.dip = 0x0a000002;
	p.sport = sport;
	p.dqpn = 0x12;
	p.psn = psn;
	p.se = se;
	p.ackreq = true;
	p.reth.va = 0x1000;
	p.reth.rkey = 0x105;
	p.reth.len = plen;
	return roce_build(&p, pay, plen, buf, 9000);
}

static void frame_case(const char *what, const uint8_t *a, size_t al, const uint8_t *b, size_t bl,
		       const char *field)
{
	struct sb *sb = sb_create("frames");
	int id = sb_stream(sb, "tx", SB_MSG, SB_FMT_FRAME, "frames sent on port 1");
	const struct sb_divergence *d;

	sb_push(sb, id, SB_REF, 100, a, al);
	sb_push(sb, id, SB_DUT, 120, b, bl);
	d = sb_divergence(sb);
	CHECK(d != NULL, "%s: mismatch", what);
	if (d) {
		CHECK(strcmp(d->stream, "tx") == 0, "%s: stream %s", what, d->stream);
		CHECK(strcmp(d->field, field) == 0, "%s: field %s, want %s", what, d->field, field);
		CHECK(d->ref_cycle == 100 && d->dut_cycle == 120 && d->cycle == 120, "%s: cycles", what);
	}
	show(sb);
	sb_destroy(sb);
}

static void frames(void)
{
	static uint8_t a[9000], b[9000], pay[2000];
	size_t al, bl;
	struct sb *sb;
	int id;

	fill(pay, sizeof(pay), 3);
	al = build(a, HCA_BTH_OP_RC_SEND_LAST, true, 0xc012, 0x123, pay, 1000);
	sb = sb_create("same");
	id = sb_stream(sb, "tx", SB_MSG, SB_FMT_FRAME, NULL);
	sb_push(sb, id, SB_REF, 1, a, al);
	sb_push(sb, id, SB_DUT, 2, a, al);
	CHECK(!sb_failed(sb) && sb_matched(sb, SB_MSG, NULL) == 1, "equal frames match");
	sb_destroy(sb);

	bl = build(b, HCA_BTH_OP_RC_SEND_LAST, false, 0xc012, 0x123, pay, 1000);
	frame_case("SE bit", a, al, b, bl, "bth.se");
	bl = build(b, HCA_BTH_OP_RC_SEND_LAST, true, 0xc013, 0x123, pay, 1000);
	frame_case("UDP source port", a, al, b, bl, "udp.sport");
	bl = build(b, HCA_BTH_OP_RC_SEND_LAST, true, 0xc012, 0x124, pay, 1000);
	frame_case("PSN", a, al, b, bl, "bth.psn");
	bl = build(b, HCA_BTH_OP_RC_SEND_ONLY, true, 0xc012, 0x123, pay, 1000);
	frame_case("opcode", a, al, b, bl, "bth.opcode");
	bl = build(b, HCA_BTH_OP_RC_SEND_LAST, true, 0xc012, 0x123, pay, 996);
	frame_case("length", a, al, b, bl, "ip.total_length");
	bl = build(b, HCA_BTH_OP_RC_SEND_LAST, true, 0xc012, 0x123, pay, 999);	/* same IP length, pad 1 */
	frame_case("pad count", a, al, b, bl, "bth.padcnt");
	memcpy(b, a, al);
	b[54 + 500] ^= 1;	/* payload byte, ICRC left stale as a broken datapath would */
	frame_case("payload byte", a, al, b, al, "payload");
	memcpy(b, a, al);
	b[al - 1] ^= 0xff;	/* ICRC only */
	frame_case("ICRC", a, al, b, al, "icrc");
	al = build(a, HCA_BTH_OP_RC_RDMA_WRITE_FIRST, false, 0xc012, 7, pay, 1024);
	bl = build(b, HCA_BTH_OP_RC_RDMA_WRITE_FIRST, false, 0xc012, 7, pay, 1024);
	b[54 + 8 + 3] ^= 0x10;	/* RETH rkey */
	frame_case("RETH rkey", a, al, b, bl, "reth.rkey");
}

static void extra_missing_first(void)
{
	uint8_t x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, y[8] = { 1, 2, 3, 4, 5, 6, 7, 9 };
	struct sb *sb;
	const struct sb_divergence *d;
	int id, irq;
	uint32_t v;

	/* reference leading: a DUT transaction with nothing from the reference */
	sb = sb_create("extra");
	sb_set_ref_leads(sb, true);
	id = sb_stream(sb, "tx", SB_MSG, SB_FMT_RAW, NULL);
	sb_push(sb, id, SB_REF, 1, x, 8);
	sb_push(sb, id, SB_DUT, 2, x, 8);
	CHECK(!sb_failed(sb), "matched first");
	sb_push(sb, id, SB_DUT, 3, x, 8);
	d = sb_divergence(sb);
	CHECK(d && strcmp(d->field, "extra") == 0 && d->cycle == 3, "DUT-only transaction is extra at once");
	show(sb);
	/* first divergence wins */
	CHECK(!sb_push(sb, id, SB_REF, 4, y, 8), "push after divergence reports failure");
	CHECK(sb_divergence(sb) == d && d->cycle == 3, "first divergence kept");
	sb_destroy(sb);

	/* not leading: the DUT may be first */
	sb = sb_create("lag");
	id = sb_stream(sb, "tx", SB_MSG, SB_FMT_RAW, NULL);
	sb_push(sb, id, SB_DUT, 1, x, 8);
	CHECK(!sb_failed(sb), "DUT first is fine without ref_leads");
	CHECK(!sb_check_end(sb, 5, "end of test", false), "but left over at the end");
	d = sb_divergence(sb);
	CHECK(d && strcmp(d->field, "extra") == 0, "leftover DUT transaction is extra");
	sb_destroy(sb);

	/* reference produced, DUT never did */
	sb = sb_create("missing");
	id = sb_stream(sb, "tx", SB_MSG, SB_FMT_RAW, NULL);
	irq = sb_stream(sb, "irq", SB_MSG, SB_FMT_IRQ, NULL);
	v = 3;
	sb_push(sb, irq, SB_REF, 50, &v, 4);
	sb_push(sb, id, SB_REF, 40, x, 8);
	CHECK(sb_check_end(sb, 60, "end", true) == false, "ref leftovers fail");
	d = sb_divergence(sb);
	CHECK(d && strcmp(d->field, "missing") == 0 && strcmp(d->stream, "tx") == 0 && d->ref_cycle == 40,
	      "the oldest missing transaction is reported (tx @40)");
	show(sb);
	sb_destroy(sb);

	/* interrupt vectors */
	sb = sb_create("irq");
	irq = sb_stream(sb, "irq", SB_MSG, SB_FMT_IRQ, NULL);
	v = 1;
	sb_push(sb, irq, SB_REF, 1, &v, 4);
	v = 2;
	sb_push(sb, irq, SB_DUT, 1, &v, 4);
	d = sb_divergence(sb);
	CHECK(d && strcmp(d->field, "vector") == 0, "vector mismatch");
	sb_destroy(sb);

	/* register values */
	sb = sb_create("regs");
	CHECK(sb_compare_value(sb, "mgmt-read", 7, "MGMT.ID", 5, 5, NULL), "equal values");
	CHECK(!sb_compare_value(sb, "mgmt-read", 8, "MGMT.CTX_STATUS", 0, 1, "note"), "different values");
	d = sb_divergence(sb);
	CHECK(d && strcmp(d->field, "MGMT.CTX_STATUS") == 0 && strcmp(d->stream, "mgmt-read") == 0,
	      "register named");
	CHECK_EQ(sb_values_compared(sb), 2, "values compared");
	sb_destroy(sb);
}

static struct hca_cqe mkcqe(uint32_t qpn, uint8_t opcode, uint16_t idx, uint32_t len, uint8_t owner)
{
	struct hca_cqe c;

	memset(&c, 0, sizeof(c));
	c.qpn = qpn;
	c.opcode = opcode;
	c.wqe_index = idx;
	c.byte_len = len;
	c.owner = owner;
	return c;
}

/* CQ/EQ rings as entry streams: per-queue order, ring position, owner phase. */
static void entry_rings(void)
{
	struct hca_cqe s0 = mkcqe(5, HCA_WC_OP_SEND, 0, 10, 1), r0 = mkcqe(5, HCA_WC_OP_RECV, 0, 20, 1);
	struct hca_cqe s1 = mkcqe(5, HCA_WC_OP_SEND, 1, 30, 1), x = mkcqe(6, HCA_WC_OP_SEND, 0, 40, 1);
	const uint64_t B = 0x7000;
	const struct sb_divergence *d;
	struct sb *sb;
	int id;

	/* reference: s0 r0 s1 x in slots 0..3; DUT: r0 s0 x s1 (same slots, other order
	 * across send/receive and across QPs), the second entry written in three pieces */
	sb = sb_create("ring");
	sb_set_ref_leads(sb, true);
	id = sb_stream(sb, "cq1", SB_ENTRY, SB_FMT_CQE, "CQEs of CQ 1");
	sb_push_entries(sb, id, SB_REF, 1, B + 0, B, &s0, 32);
	sb_push_entries(sb, id, SB_REF, 1, B + 32, B, &r0, 32);
	sb_push_entries(sb, id, SB_REF, 1, B + 64, B, &s1, 32);
	sb_push_entries(sb, id, SB_REF, 1, B + 96, B, &x, 32);
	sb_push_entries(sb, id, SB_DUT, 2, B + 0, B, &r0, 32);
	sb_push_entries(sb, id, SB_DUT, 3, B + 32, B, &s0, 8);
	sb_push_entries(sb, id, SB_DUT, 3, B + 40 + 16, B, (uint8_t *)&s0 + 24, 8);
	sb_push_entries(sb, id, SB_DUT, 4, B + 40, B, (uint8_t *)&s0 + 8, 16);
	sb_push_entries(sb, id, SB_DUT, 5, B + 64, B, &x, 32);
	sb_push_entries(sb, id, SB_DUT, 6, B + 96, B, &s1, 32);
	CHECK(!sb_failed(sb) && sb_check_end(sb, 7, "end", false), "send/receive and QPs interleave freely: %s",
	      sb_divergence(sb) ? sb_divergence(sb)->summary : "");
	CHECK_EQ(sb_matched(sb, SB_ENTRY, "cq"), 128, "four CQEs matched");
	sb_destroy(sb);

	/* one send queue out of order */
	sb = sb_create("ring-order");
	sb_set_ref_leads(sb, true);
	id = sb_stream(sb, "cq1", SB_ENTRY, SB_FMT_CQE, NULL);
	sb_push_entries(sb, id, SB_REF, 1, B, B, &s0, 32);
	sb_push_entries(sb, id, SB_REF, 1, B + 32, B, &s1, 32);
	sb_push_entries(sb, id, SB_DUT, 2, B, B, &s1, 32);
	d = sb_divergence(sb);
	CHECK(d && strcmp(d->field, "byte_len") == 0 && strstr(d->report, "* wqe_index"),
	      "send CQEs of one QP reordered: first field byte_len, wqe_index flagged (%s)", d ? d->field : "-");
	show(sb);
	sb_destroy(sb);

	/* a skipped slot */
	sb = sb_create("ring-slot");
	sb_set_ref_leads(sb, true);
	id = sb_stream(sb, "cq1", SB_ENTRY, SB_FMT_CQE, NULL);
	sb_push_entries(sb, id, SB_REF, 1, B, B, &s0, 32);
	sb_push_entries(sb, id, SB_DUT, 2, B + 32, B, &s0, 32);
	d = sb_divergence(sb);
	CHECK(d && strcmp(d->field, "addr") == 0, "entry in the wrong slot: addr (%s)", d ? d->field : "-");
	show(sb);
	sb_destroy(sb);

	/* a wrong owner bit */
	sb = sb_create("ring-owner");
	sb_set_ref_leads(sb, true);
	id = sb_stream(sb, "cq1", SB_ENTRY, SB_FMT_CQE, NULL);
	sb_push_entries(sb, id, SB_REF, 1, B, B, &s0, 32);
	{
		struct hca_cqe o = s0;

		o.owner = 0;
		sb_push_entries(sb, id, SB_DUT, 2, B, B, &o, 32);
	}
	d = sb_divergence(sb);
	CHECK(d && strcmp(d->field, "owner") == 0, "wrong phase: owner (%s)", d ? d->field : "-");
	sb_destroy(sb);

	/* half an entry, never finished */
	sb = sb_create("ring-partial");
	id = sb_stream(sb, "eq0", SB_ENTRY, SB_FMT_EQE, NULL);
	{
		struct hca_eqe e;

		memset(&e, 0, sizeof(e));
		e.element = 3;
		e.owner = 1;
		sb_push_entries(sb, id, SB_REF, 1, 0x9000, 0x9000, &e, 16);
		sb_push_entries(sb, id, SB_DUT, 2, 0x9000, 0x9000, &e, 8);
	}
	CHECK(!sb_failed(sb), "half written is not yet a mismatch");
	CHECK(!sb_check_end(sb, 3, "end", false), "but it is at the end");
	d = sb_divergence(sb);
	CHECK(d && strcmp(d->field, "partial") == 0, "field partial (%s)", d ? d->field : "-");
	sb_destroy(sb);
}

/* Keyed message streams: order per key only. */
static void keyed(void)
{
	uint8_t a1[8] = { 1 }, a2[8] = { 2 }, b1[8] = { 3 }, b2[8] = { 4 }, bad[8] = { 5 };
	struct sb *sb;
	const struct sb_divergence *d;
	int id;

	/* reference: a1 b1 a2 b2; DUT: b1 a1 b2 a2 (keys a, b interleaved differently) */
	sb = sb_create("keyed");
	sb_set_ref_leads(sb, true);
	id = sb_stream(sb, "tx", SB_MSG, SB_FMT_RAW, NULL);
	sb_push_key(sb, id, SB_REF, 1, 10, a1, 8);
	sb_push_key(sb, id, SB_REF, 1, 20, b1, 8);
	sb_push_key(sb, id, SB_REF, 1, 10, a2, 8);
	sb_push_key(sb, id, SB_REF, 1, 20, b2, 8);
	sb_push_key(sb, id, SB_DUT, 2, 20, b1, 8);
	sb_push_key(sb, id, SB_DUT, 3, 10, a1, 8);
	sb_push_key(sb, id, SB_DUT, 4, 20, b2, 8);
	sb_push_key(sb, id, SB_DUT, 5, 10, a2, 8);
	CHECK(!sb_failed(sb) && sb_check_end(sb, 6, "end", false), "order across keys is free");
	CHECK_EQ(sb_matched(sb, SB_MSG, NULL), 4, "four matched");
	sb_destroy(sb);

	/* order within a key is not */
	sb = sb_create("keyed-order");
	sb_set_ref_leads(sb, true);
	id = sb_stream(sb, "tx", SB_MSG, SB_FMT_RAW, NULL);
	sb_push_key(sb, id, SB_REF, 1, 10, a1, 8);
	sb_push_key(sb, id, SB_REF, 1, 10, a2, 8);
	sb_push_key(sb, id, SB_DUT, 2, 10, a2, 8);
	d = sb_divergence(sb);
	CHECK(d && d->ref_cycle == 1 && strcmp(d->stream, "tx") == 0, "a2 before a1 in one key is a mismatch");
	sb_destroy(sb);

	/* a DUT transaction with a key the reference has nothing for: diffed against its oldest */
	sb = sb_create("keyed-corrupt");
	sb_set_ref_leads(sb, true);
	id = sb_stream(sb, "tx", SB_MSG, SB_FMT_RAW, NULL);
	sb_push_key(sb, id, SB_REF, 1, 10, a1, 8);
	sb_push_key(sb, id, SB_REF, 1, 20, b1, 8);
	sb_push_key(sb, id, SB_DUT, 2, 30, bad, 8);
	d = sb_divergence(sb);
	CHECK(d && strcmp(d->field, "extra") != 0 && strstr(d->report, "nothing waiting with this transaction's key"),
	      "unknown key: field diff against the oldest, not 'extra'");
	show(sb);
	sb_destroy(sb);
}

static void overlay(void)
{
	struct sb *sb = sb_create("overlay");
	int id = sb_stream(sb, "mr1", SB_DMA, SB_FMT_MEM, NULL);
	uint8_t w1[16], w2[8], mem[32];

	memset(w1, 0xaa, sizeof(w1));
	memset(w2, 0xbb, sizeof(w2));
	sb_push_dma(sb, id, SB_REF, 1, 0x100, 0x100, w1, 16);	/* 0x100..0x10f */
	sb_push_dma(sb, id, SB_REF, 1, 0x108, 0x100, w2, 8);	/* 0x108..0x10f, newer */
	memset(mem, 0, sizeof(mem));
	sb_overlay(sb, 0xf8, mem, 32);				/* 0xf8..0x117 */
	CHECK(mem[7] == 0 && mem[8] == 0xaa && mem[15] == 0xaa && mem[16] == 0xbb && mem[23] == 0xbb &&
	      mem[24] == 0, "pending reference writes applied oldest first");
	/* the DUT matches the first 4 bytes: host memory has them now, overlay keeps the rest */
	sb_push_dma(sb, id, SB_DUT, 2, 0x100, 0x100, w1, 4);
	memset(mem, 0, sizeof(mem));
	sb_overlay(sb, 0xf8, mem, 32);
	CHECK(mem[8] == 0 && mem[11] == 0 && mem[12] == 0xaa && mem[16] == 0xbb, "matched bytes leave the overlay");
	sb_push_dma(sb, id, SB_DUT, 2, 0x104, 0x100, w1 + 4, 12);
	sb_push_dma(sb, id, SB_DUT, 2, 0x108, 0x100, w2, 8);
	memset(mem, 0, sizeof(mem));
	sb_overlay(sb, 0xf8, mem, 32);
	for (int i = 0; i < 32; i++)
		if (mem[i])
			CHECK(0, "byte %d still overlaid", i);
	CHECK(!sb_failed(sb) && sb_check_end(sb, 3, "end", false), "all matched");
	/* an engine reset drops what waits on either side */
	sb_push_dma(sb, id, SB_REF, 4, 0x200, 0x100, w1, 16);
	memset(mem, 0, sizeof(mem));
	sb_overlay(sb, 0x200, mem, 16);
	CHECK(mem[0] == 0xaa, "pending again");
	CHECK_EQ(sb_flush(sb), 1, "one transaction flushed");
	memset(mem, 0, sizeof(mem));
	sb_overlay(sb, 0x200, mem, 16);
	CHECK(mem[0] == 0 && sb_check_end(sb, 5, "end", false), "nothing left after the flush");
	sb_destroy(sb);
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			rng = strtoull(argv[++i], NULL, 0) | 1;
		else if (strcmp(argv[i], "-v") == 0)
			verbose = 1;
	}
	resplit();
	interleaved_streams();
	byte_difference();
	address_and_order();
	entries();
	frames();
	extra_missing_first();
	keyed();
	entry_rings();
	overlay();
	return check_done();
}
