// SPDX-License-Identifier: MIT
/*
 * Unit tests of the RoCEv2 codec (model/opcode.c, hdr.c, icrc.c).
 *
 * Oracles: the CRC-32 check value of the CRC catalogue; known-answer frames
 * built by scapy (test_codec_kat.c, tests/oracle/gen_kat.py); the IB spec's
 * opcode names (table 38) from which the expected header sets are derived
 * here, not copied from the table under test; the wire rules of docs/wire.md
 * checked byte by byte with an independent IPv4 checksum.
 *
 *   test_codec [--seed N] [--fuzz N]
 */
#include <stdlib.h>
#include <string.h>

#include "../../tests/check.h"
#include "../roce_hdr.h"
#include "hcasim/hca_spec.h"
#include "test_codec_kat.h"

extern const uint32_t roce_crc32_table[8][256];

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t be16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | be16(p + 1);
}

/* Bitwise CRC-32 (reflected 0xEDB88320), the textbook definition. */
static uint32_t crc32_bitwise(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ ((crc & 1) ? 0xedb88320u : 0);
	}
	return crc;
}

/* RFC 1071 checksum of an IPv4 header, computed independently of hdr.c. */
static uint16_t ip_csum(const uint8_t *ip)
{
	uint32_t s = 0;

	for (int i = 0; i < 20; i += 2)
		if (i != 10)
			s += be16(ip + i);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static void put_be16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* After editing a frame: IP/UDP length (iplen != 0), IP checksum and ICRC. */
static void fixup(uint8_t *f, size_t iplen)
{
	uint32_t c;
	size_t end;

	if (iplen) {
		put_be16(f + 16, (uint32_t)iplen);
		put_be16(f + 38, (uint32_t)(iplen - 20));
	}
	put_be16(f + 24, ip_csum(f + 14));
	iplen = be16(f + 16);
	end = 14 + iplen - 4;
	c = roce_icrc(f, end);
	f[end] = (uint8_t)c;
	f[end + 1] = (uint8_t)(c >> 8);
	f[end + 2] = (uint8_t)(c >> 16);
	f[end + 3] = (uint8_t)(c >> 24);
}

/* ------------------------------------------------------------------ CRC */

static void test_crc32(void)
{
	static const char check[] = "123456789";
	uint8_t buf[1000];
	int bad = 0;

	/* CRC-32/ISO-HDLC check value (CRC catalogue). */
	CHECK_EQ(~roce_crc32_update(0xffffffffu, check, 9), 0xcbf43926u, "crc32(\"123456789\")");
	CHECK_EQ(roce_crc32_update(0x12345678u, NULL, 0), 0x12345678u, "empty update");

	for (unsigned int k = 0; k < 8; k++)
		for (unsigned int i = 0; i < 256; i++) {
			uint8_t z[8] = { (uint8_t)i };
			uint32_t want = crc32_bitwise(0, z, k + 1);	/* byte i followed by k zeros */

			bad += roce_crc32_table[k][i] != want;
		}
	CHECK_EQ(bad, 0, "slicing tables equal bitwise CRC of i followed by k zero bytes");

	/* Random data, random split points, all alignments. */
	bad = 0;
	for (int r = 0; r < 200; r++) {
		size_t len = rnd() % sizeof(buf), cut = len ? rnd() % len : 0, off = rnd() % 8;
		uint32_t a, b;

		if (len + off > sizeof(buf))
			len = sizeof(buf) - off;
		if (cut > len)
			cut = len;
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (uint8_t)rnd();
		a = crc32_bitwise(0xffffffffu, buf + off, len);
		b = roce_crc32_update(0xffffffffu, buf + off, cut);
		b = roce_crc32_update(b, buf + off + cut, len - cut);
		bad += a != b;
	}
	CHECK_EQ(bad, 0, "slicing-by-8 == bitwise over random splits");
}

/*
 * The two CRC-32 implementations (ISA-L, slicing-by-8 table) against each
 * other and the textbook bitwise CRC: random buffers of every alignment and
 * split, lengths around ISA-L's block sizes; and the RoCEv2 ICRC of the
 * scapy-built known-answer frames computed with each one over the masked
 * pseudo-header assembled here from the spec's definition (IB annex A17).
 */
typedef uint32_t (*crc_fn)(uint32_t crc, const void *data, size_t len);

static uint32_t icrc_with(crc_fn fn, const uint8_t *f, size_t end)
{
	uint8_t m[8 + 40];
	uint32_t c;

	memset(m, 0xff, 8);			/* the masked LRH */
	memcpy(m + 8, f + 14, 40);		/* IPv4 + UDP + BTH */
	m[8 + 1] = m[8 + 8] = m[8 + 10] = m[8 + 11] = 0xff;	/* TOS, TTL, checksum */
	m[8 + 26] = m[8 + 27] = 0xff;		/* UDP checksum */
	m[8 + 32] = 0xff;			/* BTH FECN/BECN/resv6 */
	c = fn(0xffffffffu, m, sizeof(m));
	return ~fn(c, f + 54, end - 54);
}

static void test_crc32_impls(void)
{
	static const size_t edge[] = { 0, 1, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256,
				       1023, 1024, 4095, 4096, 4097, 8192, 9000 };
	static uint8_t buf[9016];
	int bad = 0, bad_bit = 0;

	CHECK(!strcmp(roce_crc32_impl(), "isa-l"), "ISA-L linked in (roce_crc32_impl: %s)",
	      roce_crc32_impl());
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rnd();
	for (size_t e = 0; e < sizeof(edge) / sizeof(edge[0]); e++)
		for (size_t off = 0; off < 8; off++) {
			uint32_t seed = (uint32_t)rnd();

			bad += roce_crc32_update_table(seed, buf + off, edge[e]) !=
			       roce_crc32_update_isal(seed, buf + off, edge[e]);
		}
	for (int r = 0; r < 300; r++) {
		size_t len = rnd() % 9000, cut = len ? rnd() % len : 0, off = rnd() % 16;
		uint32_t a, b, w;

		for (size_t i = off; i < off + len; i++)
			buf[i] = (uint8_t)rnd();
		a = roce_crc32_update_table(0xffffffffu, buf + off, len);
		b = roce_crc32_update_isal(0xffffffffu, buf + off, cut);
		b = roce_crc32_update_isal(b, buf + off + cut, len - cut);
		bad += a != b;
		if (r < 30) {
			w = crc32_bitwise(0xffffffffu, buf + off, len);
			bad_bit += w != a;
		}
	}
	CHECK_EQ(bad, 0, "ISA-L == table CRC-32 on random buffers, splits, alignments");
	CHECK_EQ(bad_bit, 0, "table == bitwise CRC-32 on random buffers");
	/* roce_icrc (one CRC call over a copy for small frames, two above; the
	 * table below 32 bytes) == the ICRC composed from the table alone, at
	 * every end from the BTH's to beyond the small-frame copy. */
	bad = 0;
	for (size_t end = 54; end < 54 + 600; end++)
		bad += roce_icrc(buf, end) != icrc_with(roce_crc32_update_table, buf, end);
	CHECK_EQ(bad, 0, "roce_icrc == table ICRC at every frame end 54..653");
	for (unsigned int i = 0; i < codec_kat_count; i++) {
		const struct codec_kat *k = &codec_kats[i];
		size_t end = 14 + be16(k->frame + 16) - 4;

		uint32_t t = icrc_with(roce_crc32_update_table, k->frame, end);
		uint32_t v = icrc_with(roce_crc32_update_isal, k->frame, end);

		CHECK(t == k->icrc, "%s: ICRC with the table %08x, scapy %08x", k->name, t, k->icrc);
		CHECK(v == k->icrc, "%s: ICRC with ISA-L %08x, scapy %08x", k->name, v, k->icrc);
	}
}

/* ------------------------------------------------------------ opcodes */

static bool has(const char *s, const char *sub)
{
	return strstr(s, sub) != NULL;
}

/* Expected headers of an opcode, from its IB name alone (IB spec 9.4). */
static uint32_t hdrs_from_name(const char *n)
{
	uint32_t h = 0;

	if (!strncmp(n, "UD_", 3))
		h |= ROCE_DETH;
	if ((has(n, "RDMA_WRITE_FIRST") || has(n, "RDMA_WRITE_ONLY") || has(n, "READ_REQUEST")))
		h |= ROCE_RETH;
	if (has(n, "COMPARE_SWAP") || has(n, "FETCH_ADD"))
		h |= ROCE_ATMETH;
	if (has(n, "ACKNOWLEDGE") || has(n, "READ_RESPONSE_FIRST") || has(n, "READ_RESPONSE_LAST") ||
	    has(n, "READ_RESPONSE_ONLY"))
		h |= ROCE_AETH;
	if (has(n, "ATOMIC_ACKNOWLEDGE"))
		h |= ROCE_ATMACK;
	if (has(n, "WITH_IMMEDIATE"))
		h |= ROCE_IMMDT;
	if (has(n, "SEND") || has(n, "RDMA_WRITE") || has(n, "READ_RESPONSE"))
		h |= ROCE_PAYLOAD;
	return h;
}

static void test_opcodes(void)
{
	/* IB spec table 38, the opcodes of RC, UC and UD (no RD, no CNP). */
	static const struct { uint8_t code; const char *name; } ib[] = {
		{ 0x00, "RC_SEND_FIRST" }, { 0x01, "RC_SEND_MIDDLE" }, { 0x02, "RC_SEND_LAST" },
		{ 0x03, "RC_SEND_LAST_WITH_IMMEDIATE" }, { 0x04, "RC_SEND_ONLY" },
		{ 0x05, "RC_SEND_ONLY_WITH_IMMEDIATE" }, { 0x06, "RC_RDMA_WRITE_FIRST" },
		{ 0x07, "RC_RDMA_WRITE_MIDDLE" }, { 0x08, "RC_RDMA_WRITE_LAST" },
		{ 0x09, "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE" }, { 0x0a, "RC_RDMA_WRITE_ONLY" },
		{ 0x0b, "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE" }, { 0x0c, "RC_RDMA_READ_REQUEST" },
		{ 0x0d, "RC_RDMA_READ_RESPONSE_FIRST" }, { 0x0e, "RC_RDMA_READ_RESPONSE_MIDDLE" },
		{ 0x0f, "RC_RDMA_READ_RESPONSE_LAST" }, { 0x10, "RC_RDMA_READ_RESPONSE_ONLY" },
		{ 0x11, "RC_ACKNOWLEDGE" }, { 0x12, "RC_ATOMIC_ACKNOWLEDGE" },
		{ 0x13, "RC_COMPARE_SWAP" }, { 0x14, "RC_FETCH_ADD" },
		{ 0x20, "UC_SEND_FIRST" }, { 0x21, "UC_SEND_MIDDLE" }, { 0x22, "UC_SEND_LAST" },
		{ 0x23, "UC_SEND_LAST_WITH_IMMEDIATE" }, { 0x24, "UC_SEND_ONLY" },
		{ 0x25, "UC_SEND_ONLY_WITH_IMMEDIATE" }, { 0x26, "UC_RDMA_WRITE_FIRST" },
		{ 0x27, "UC_RDMA_WRITE_MIDDLE" }, { 0x28, "UC_RDMA_WRITE_LAST" },
		{ 0x29, "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE" }, { 0x2a, "UC_RDMA_WRITE_ONLY" },
		{ 0x2b, "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE" },
		{ 0x64, "UD_SEND_ONLY" }, { 0x65, "UD_SEND_ONLY_WITH_IMMEDIATE" },
	};
	static const struct { uint32_t bit; unsigned int len; } hl[] = {
		{ ROCE_RETH, 16 }, { ROCE_AETH, 4 }, { ROCE_IMMDT, 4 }, { ROCE_ATMETH, 28 },
		{ ROCE_ATMACK, 8 }, { ROCE_DETH, 8 },
	};
	bool known[256] = { false };

	for (size_t i = 0; i < sizeof(ib) / sizeof(ib[0]); i++) {
		const struct roce_opcode_info *op = roce_opcode(ib[i].code);
		const char *n = ib[i].name;
		uint32_t want_flags = 0, hdrs = hdrs_from_name(n);
		unsigned int ext = 0;

		known[ib[i].code] = true;
		CHECK(op != NULL, "opcode 0x%02x (%s) missing", ib[i].code, n);
		if (!op)
			continue;
		CHECK(!strcmp(op->name, n), "opcode 0x%02x name %s, want %s", ib[i].code, op->name, n);
		CHECK_EQ(op->hdrs, hdrs, n);
		for (size_t k = 0; k < sizeof(hl) / sizeof(hl[0]); k++)
			if (hdrs & hl[k].bit)
				ext += hl[k].len;
		CHECK_EQ(op->ext_len, ext, n);

		want_flags |= n[0] == 'R' ? ROCE_OP_RC : n[0] == 'U' && n[1] == 'C' ? ROCE_OP_UC : ROCE_OP_UD;
		if (has(n, "RESPONSE") || has(n, "ACKNOWLEDGE"))
			want_flags |= ROCE_OP_RESP;
		else
			want_flags |= ROCE_OP_REQ;
		if (has(n, "SEND"))
			want_flags |= ROCE_OP_SEND;
		if (has(n, "WRITE"))
			want_flags |= ROCE_OP_WRITE;
		if (has(n, "READ"))
			want_flags |= ROCE_OP_READ;
		if (has(n, "ATOMIC") || has(n, "COMPARE_SWAP") || has(n, "FETCH_ADD"))
			want_flags |= ROCE_OP_ATOMIC;
		if (!strcmp(n, "RC_ACKNOWLEDGE"))
			want_flags |= ROCE_OP_ACK;
		if (has(n, "_FIRST"))
			want_flags |= ROCE_OP_FIRST;
		else if (has(n, "_MIDDLE"))
			want_flags |= ROCE_OP_MIDDLE;
		else if (has(n, "_LAST"))
			want_flags |= ROCE_OP_LAST;
		else
			want_flags |= ROCE_OP_ONLY;	/* ONLY, and single-packet operations */
		if (has(n, "WITH_IMMEDIATE"))
			want_flags |= ROCE_OP_IMM;
		CHECK_EQ(op->flags, want_flags, n);
	}
	for (unsigned int c = 0; c < 256; c++)
		if (!known[c])
			CHECK(roce_opcode((uint8_t)c) == NULL, "opcode 0x%02x should be unknown", c);
}

/* ---------------------------------------------------------- KAT frames */

static void check_fields(const struct roce_pkt *got, const struct roce_pkt *want, const char *what)
{
	const struct roce_opcode_info *op = roce_opcode(want->opcode);
	uint32_t h = op ? op->hdrs : 0;
	char m[160];

#define F(field) do { snprintf(m, sizeof(m), "%s: " #field, what); CHECK_EQ(got->field, want->field, m); } while (0)
	CHECK(!memcmp(got->dmac, want->dmac, 6), "%s: dmac", what);
	CHECK(!memcmp(got->smac, want->smac, 6), "%s: smac", what);
	F(sip); F(dip); F(tos); F(sport); F(opcode); F(se); F(migreq); F(pkey);
	F(ackreq);
	snprintf(m, sizeof(m), "%s: ttl", what);
	CHECK_EQ(got->ttl, want->ttl ? want->ttl : 64, m);
	snprintf(m, sizeof(m), "%s: dqpn", what);
	CHECK_EQ(got->dqpn, want->dqpn & 0xffffff, m);
	snprintf(m, sizeof(m), "%s: psn", what);
	CHECK_EQ(got->psn, want->psn & 0xffffff, m);
	if (h & ROCE_RETH) { F(reth.va); F(reth.rkey); F(reth.len); }
	if (h & ROCE_AETH) { F(aeth.syndrome); F(aeth.msn); }
	if (h & ROCE_IMMDT) F(imm);
	if (h & ROCE_ATMETH) { F(atmeth.va); F(atmeth.rkey); F(atmeth.swap_add); F(atmeth.compare); }
	if (h & ROCE_ATMACK) F(atmack_orig);
	if (h & ROCE_DETH) { F(deth.qkey); F(deth.src_qp); }
#undef F
}

static void test_kat(void)
{
	uint8_t buf[2048];

	CHECK(codec_kat_count >= 10, "KAT vectors present (%u)", codec_kat_count);
	for (unsigned int i = 0; i < codec_kat_count; i++) {
		const struct codec_kat *k = &codec_kats[i];
		struct roce_pkt p = k->pkt, q;
		size_t n = roce_build(&p, k->payload, k->paylen, buf, sizeof(buf));
		size_t iplen = be16(k->frame + 16);
		enum roce_drop_reason why;

		CHECK_EQ(n, k->len, k->name);
		CHECK(n == k->len && !memcmp(buf, k->frame, n), "%s: built frame differs from scapy's",
		      k->name);
		if (n == k->len)
			for (size_t b = 0; b < n; b++)
				if (buf[b] != k->frame[b]) {
					printf("  %s: first difference at byte %zu: 0x%02x, scapy 0x%02x\n",
					       k->name, b, buf[b], k->frame[b]);
					break;
				}
		CHECK_EQ(roce_icrc(k->frame, 14 + iplen - 4), k->icrc, k->name);
		CHECK_EQ(roce_parse_ex(k->frame, k->len, &q, &why), ROCE_OK, k->name);
		if (why != ROCE_DROP_NONE) {
			printf("  %s: %s\n", k->name, roce_drop_reason_str(why));
			continue;
		}
		check_fields(&q, &k->pkt, k->name);
		CHECK_EQ(q.paylen, k->paylen, k->name);
		CHECK(k->paylen == 0 || (q.payload && !memcmp(q.payload, k->payload, k->paylen)),
		      "%s: payload", k->name);
		CHECK_EQ(q.padcnt, (4 - k->paylen % 4) % 4, k->name);
		CHECK(q.ip_hdr == k->frame + 14, "%s: ip_hdr", k->name);
	}
}

/* ------------------------------------------- round trip and wire rules */

static void random_pkt(struct roce_pkt *p, uint8_t opcode)
{
	memset(p, 0, sizeof(*p));
	for (int i = 0; i < 6; i++) {
		p->dmac[i] = (uint8_t)rnd();
		p->smac[i] = (uint8_t)rnd();
	}
	p->sip = (uint32_t)rnd();
	p->dip = (uint32_t)rnd();
	p->tos = (uint8_t)rnd();
	p->ttl = (uint8_t)(rnd() % 3 ? rnd() : 0);
	p->sport = (uint16_t)rnd();
	p->opcode = opcode;
	p->se = rnd() & 1;
	p->migreq = rnd() & 1;
	p->pkey = (uint16_t)rnd();
	p->dqpn = (uint32_t)rnd();		/* upper bits must be dropped */
	p->ackreq = rnd() & 1;
	p->psn = (uint32_t)rnd();
	p->reth.va = rnd();
	p->reth.rkey = (uint32_t)rnd();
	p->reth.len = (uint32_t)rnd();
	p->aeth.syndrome = (uint8_t)rnd();
	p->aeth.msn = (uint32_t)rnd() & 0xffffff;
	p->imm = (uint32_t)rnd();
	p->atmeth.va = rnd();
	p->atmeth.rkey = (uint32_t)rnd();
	p->atmeth.swap_add = rnd();
	p->atmeth.compare = rnd();
	p->atmack_orig = rnd();
	p->deth.qkey = (uint32_t)rnd();
	p->deth.src_qp = (uint32_t)rnd() & 0xffffff;
}

/* Byte-level checks of docs/wire.md section 1 on a built frame. */
static void check_wire_rules(const uint8_t *f, size_t n, const struct roce_pkt *p, uint32_t paylen,
			     const char *what)
{
	const struct roce_opcode_info *op = roce_opcode(p->opcode);
	const uint8_t *ip = f + 14, *udp = f + 34, *bth = f + 42;
	unsigned int pad = (4 - paylen % 4) % 4;
	size_t iplen = 20 + 8 + 12 + op->ext_len + paylen + pad + 4;
	int bad = 0;

	bad += n != (14 + iplen < 60 ? 60 : 14 + iplen);
	bad += be16(f + 12) != 0x0800;
	bad += ip[0] != 0x45 || ip[1] != p->tos;
	bad += be16(ip + 2) != iplen;
	bad += be16(ip + 4) != 0;		/* identification */
	bad += be16(ip + 6) != 0x4000;		/* DF, offset 0 */
	bad += ip[8] != (p->ttl ? p->ttl : 64);
	bad += ip[9] != 17;
	bad += be16(ip + 10) != ip_csum(ip);
	bad += be16(udp) != p->sport || be16(udp + 2) != 4791;
	bad += be16(udp + 4) != iplen - 20 || be16(udp + 6) != 0;
	bad += bth[0] != p->opcode;
	bad += bth[1] != ((p->se ? 0x80 : 0) | (p->migreq ? 0x40 : 0) | pad << 4);
	bad += be16(bth + 2) != p->pkey || bth[4] != 0;
	bad += be24(bth + 5) != (p->dqpn & 0xffffff);
	bad += bth[8] != (p->ackreq ? 0x80 : 0);
	bad += be24(bth + 9) != (p->psn & 0xffffff);
	for (unsigned int i = 0; i < pad; i++)
		bad += f[54 + op->ext_len + paylen + i] != 0;
	for (size_t i = 14 + iplen; i < n; i++)
		bad += f[i] != 0;
	/* ICRC little-endian at the end of the IP datagram. */
	{
		uint32_t c = roce_icrc(f, 14 + iplen - 4);
		const uint8_t *ic = f + 14 + iplen - 4;

		bad += ic[0] != (uint8_t)c || ic[1] != (uint8_t)(c >> 8) || ic[2] != (uint8_t)(c >> 16) ||
		       ic[3] != (uint8_t)(c >> 24);
	}
	CHECK_EQ(bad, 0, what);
}

/*
 * Every single-byte change in the IPv4 datagram must be refused, except
 * those the spec leaves unprotected on purpose: BTH byte 4 (FECN/BECN/resv,
 * masked out of the ICRC) and a UDP checksum that happens to verify.
 * Changes from the BTH on are ICRC errors (the ICRC is checked first).
 * `all_values`: try all 255 XOR values, else the 8 single-bit flips.  Bytes
 * 96.. except the last 16 before the datagram end are sampled (1 in 64).
 */
static void mutate_all(const uint8_t *f, size_t n, bool all_values, const char *what)
{
	uint8_t m[4200];
	size_t iplen = be16(f + 16);
	unsigned long missed = 0, wrong_reason = 0, refused_ok = 0;
	struct roce_pkt p0, q;

	if (roce_parse(f, n, &p0) != ROCE_OK)
		return;
	memcpy(m, f, n);
	for (size_t i = 0; i < n; i++) {
		/* Long frames: every header byte, the last 16, and a sample between. */
		if (i >= 96 && i + 16 < 14 + iplen && rnd() % 64)
			continue;
		for (unsigned int v = 1; v < 256; v++) {
			enum roce_drop_reason why;
			enum roce_parse_err e;

			if (!all_values && (v & (v - 1)))
				continue;
			m[i] = f[i] ^ (uint8_t)v;
			e = roce_parse_ex(m, n, &q, &why);
			if (i < 12 || i >= 14 + iplen) {
				/* MACs (no FCS here) and Ethernet padding: not covered. */
				refused_ok += e != ROCE_OK;
			} else if (i == 42 + 4) {
				refused_ok += e != ROCE_OK;	/* FECN/BECN/resv6 */
			} else if (i == 40 || i == 41) {
				if (e == ROCE_OK) {
					/* Accepted only if the new UDP checksum verifies. */
					uint32_t s = be16(m + 26) + be16(m + 28) + be16(m + 30) + be16(m + 32) +
						     17 + (uint32_t)(iplen - 20);
					for (size_t k = 34; k + 1 < 14 + iplen; k += 2)
						s += be16(m + k);
					if ((iplen - 20) & 1)
						s += (uint32_t)m[14 + iplen - 1] << 8;
					while (s >> 16)
						s = (s & 0xffff) + (s >> 16);
					missed += s != 0xffff;
				}
			} else {
				missed += e == ROCE_OK;
				if (i >= 42 && e != ROCE_ERR_ICRC)
					wrong_reason++;
				if (i >= 42 && e != ROCE_ERR_ICRC && wrong_reason < 4)
					printf("  %s: byte %zu ^0x%02x: %s\n", what, i, v, roce_drop_reason_str(why));
			}
			m[i] = f[i];
		}
	}
	CHECK_EQ(missed, 0, what);
	CHECK_EQ(wrong_reason, 0, what);
	CHECK_EQ(refused_ok, 0, what);
}

static void test_roundtrip(void)
{
	static const uint32_t lens[] = { 0, 1, 2, 3, 4, 5, 7, 8, 63, 255, 256, 1023, 1024, 4096 };
	static uint8_t payload[4096], buf[4200];

	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)rnd();
	for (unsigned int c = 0; c < 256; c++) {
		const struct roce_opcode_info *op = roce_opcode((uint8_t)c);

		if (!op)
			continue;
		for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
			uint32_t len = lens[li];
			struct roce_pkt p, q;
			char what[96];
			size_t n;
			enum roce_drop_reason why;

			if (len && !(op->hdrs & ROCE_PAYLOAD))
				break;
			snprintf(what, sizeof(what), "%s paylen %u", op->name, len);
			random_pkt(&p, (uint8_t)c);
			n = roce_build(&p, payload, len, buf, sizeof(buf));
			CHECK_EQ(n, roce_frame_len((uint8_t)c, len), what);
			if (!n)
				continue;
			CHECK_EQ(p.padcnt, (4 - len % 4) % 4, what);
			check_wire_rules(buf, n, &p, len, what);
			CHECK_EQ(roce_parse_ex(buf, n, &q, &why), ROCE_OK, what);
			if (why) {
				printf("  %s: %s\n", what, roce_drop_reason_str(why));
				continue;
			}
			check_fields(&q, &p, what);
			CHECK_EQ(q.paylen, len, what);
			CHECK(q.payload == buf + 54 + op->ext_len, "%s: payload pointer", what);
			CHECK(!len || !memcmp(q.payload, payload, len), "%s: payload bytes", what);
			/* Exhaustive corruption on small frames, bit flips on the rest. */
			mutate_all(buf, n, len == 0 || len == 5, what);
		}
	}
}

/* ------------------------------------------------------- build errors */

static void test_build_errors(void)
{
	uint8_t buf[200], pay[64];
	struct roce_pkt p;
	size_t need;

	memset(pay, 0xab, sizeof(pay));
	roce_pkt_init(&p, HCA_BTH_OP_RC_SEND_ONLY);
	CHECK(p.migreq && p.pkey == 0xffff && p.ttl == 0 && p.dqpn == 0, "roce_pkt_init defaults");
	need = roce_frame_len(HCA_BTH_OP_RC_SEND_ONLY, 64);
	CHECK_EQ(need, 14 + 20 + 8 + 12 + 64 + 4, "frame len SEND_ONLY 64");
	CHECK_EQ(roce_frame_len(HCA_BTH_OP_RC_SEND_ONLY, 0), 60, "SEND_ONLY 0 padded to 60");
	{
		int bad = 0;

		for (size_t cap = 0; cap < need; cap++)
			bad += roce_build(&p, pay, 64, buf, cap) != 0;
		CHECK_EQ(bad, 0, "every capacity below the frame length is refused");
	}
	CHECK_EQ(roce_build(&p, pay, 64, buf, need), need, "exact capacity");
	CHECK_EQ(roce_build(&p, NULL, 4, buf, sizeof(buf)), 0, "payload NULL with paylen");
	CHECK_EQ(roce_build(&p, NULL, 0, buf, sizeof(buf)), 60, "payload NULL without paylen");
	CHECK_EQ(roce_build(&p, pay, 1, NULL, 100), 0, "NULL buffer");
	p.opcode = 0x15;
	CHECK_EQ(roce_build(&p, NULL, 0, buf, sizeof(buf)), 0, "unknown opcode 0x15");
	p.opcode = 0x81;	/* CNP: not implemented */
	CHECK_EQ(roce_build(&p, NULL, 0, buf, sizeof(buf)), 0, "CNP");
	p.opcode = HCA_BTH_OP_RC_ACKNOWLEDGE;
	CHECK_EQ(roce_build(&p, pay, 4, buf, sizeof(buf)), 0, "ACK with payload");
	p.opcode = HCA_BTH_OP_RC_RDMA_READ_REQUEST;
	CHECK_EQ(roce_build(&p, pay, 1, buf, sizeof(buf)), 0, "READ request with payload");
	CHECK_EQ(roce_frame_len(HCA_BTH_OP_RC_SEND_ONLY, 65536), 0, "IP total length overflow");
	CHECK(roce_frame_len(HCA_BTH_OP_RC_SEND_ONLY, 65400) > 0, "large payload fits");

	/* Payload already in place inside the output buffer. */
	{
		uint8_t a[128], b[128];
		struct roce_pkt q;

		roce_pkt_init(&p, HCA_BTH_OP_RC_RDMA_WRITE_ONLY);
		for (int i = 0; i < 40; i++)
			a[54 + 16 + i] = (uint8_t)(i * 3);
		memcpy(pay, a + 70, 40);
		need = roce_build(&p, a + 70, 40, a, sizeof(a));
		CHECK_EQ(roce_build(&p, pay, 40, b, sizeof(b)), need, "in-place build length");
		CHECK(!memcmp(a, b, need), "in-place build equals copied build");
		CHECK_EQ(roce_parse(a, need, &q), ROCE_OK, "in-place parse");
	}
}

/* ------------------------------------------------ receive-side refusals */

struct refusal {
	const char *what;
	enum roce_parse_err err;
	enum roce_drop_reason why;
};

static void expect(const uint8_t *f, size_t n, enum roce_parse_err err, enum roce_drop_reason why,
		   const char *what)
{
	enum roce_drop_reason got = ROCE_DROP_NONE;
	struct roce_pkt q;

	CHECK_EQ(roce_parse_ex(f, n, &q, &got), err, what);
	CHECK(got == why, "%s: reason '%s', want '%s'", what, roce_drop_reason_str(got),
	      roce_drop_reason_str(why));
}

static void test_refusals(void)
{
	uint8_t f[256], m[256], pay[64];
	struct roce_pkt p, q;
	size_t n, iplen;

	memset(pay, 0x5a, sizeof(pay));
	roce_pkt_init(&p, HCA_BTH_OP_RC_SEND_ONLY);
	p.sip = 0x0a000001;
	p.dip = 0x0a000002;
	n = roce_build(&p, pay, 5, f, sizeof(f));
	iplen = be16(f + 16);
	expect(f, n, ROCE_OK, ROCE_DROP_NONE, "baseline");

	/* Truncation at every length; extra Ethernet bytes beyond IP are fine. */
	{
		int bad = 0;

		for (size_t l = 0; l < 14 + iplen; l++)
			bad += roce_parse(f, l, &q) == ROCE_OK;
		CHECK_EQ(bad, 0, "every truncation refused");
		memset(f + n, 0xee, 40);
		CHECK_EQ(roce_parse(f, n + 40, &q), ROCE_OK, "trailing bytes after the IP datagram");
		CHECK(q.paylen == 5 && q.payload && !memcmp(q.payload, pay, 5), "trailing bytes: payload");
	}
	expect(NULL, 100, ROCE_ERR_MALFORMED, ROCE_DROP_SHORT, "NULL frame");
	expect(f, 13, ROCE_ERR_MALFORMED, ROCE_DROP_SHORT, "13 bytes");
	expect(f, 33, ROCE_ERR_MALFORMED, ROCE_DROP_SHORT, "33 bytes");
	expect(f, 14 + iplen - 1, ROCE_ERR_MALFORMED, ROCE_DROP_IP_LEN, "one byte short");

#define MUT(stmt, iplen_new, err, why, what) do { memcpy(m, f, n); stmt; fixup(m, iplen_new); \
	expect(m, n, err, why, what); } while (0)
	MUT(put_be16(m + 12, 0x86dd), 0, ROCE_ERR_MALFORMED, ROCE_DROP_ETHERTYPE, "IPv6 ethertype");
	MUT(put_be16(m + 12, 0x8100), 0, ROCE_ERR_MALFORMED, ROCE_DROP_ETHERTYPE, "VLAN tag");
	MUT(m[14] = 0x65, 0, ROCE_ERR_MALFORMED, ROCE_DROP_IP_VERSION, "IP version 6");
	MUT(m[14] = 0x46, 0, ROCE_ERR_MALFORMED, ROCE_DROP_IP_OPTIONS, "IHL 6");
	MUT(m[14] = 0x44, 0, ROCE_ERR_MALFORMED, ROCE_DROP_IP_OPTIONS, "IHL 4");
	MUT(put_be16(m + 18, 0x1234), 0, ROCE_OK, ROCE_DROP_NONE, "IP id is not checked");
	MUT(put_be16(m + 20, 0x2000), 0, ROCE_ERR_MALFORMED, ROCE_DROP_IP_FRAG, "MF");
	MUT(put_be16(m + 20, 0x4001), 0, ROCE_ERR_MALFORMED, ROCE_DROP_IP_FRAG, "fragment offset");
	MUT(put_be16(m + 20, 0x0000), 0, ROCE_OK, ROCE_DROP_NONE, "DF clear is accepted");
	MUT(m[23] = 6, 0, ROCE_ERR_MALFORMED, ROCE_DROP_IP_PROTO, "TCP");
	MUT(put_be16(m + 36, 4790), 0, ROCE_ERR_MALFORMED, ROCE_DROP_UDP_PORT, "UDP port 4790");
	MUT(put_be16(m + 38, iplen - 19), 0, ROCE_ERR_MALFORMED, ROCE_DROP_UDP_LEN, "UDP len +1");
	MUT(put_be16(m + 38, iplen - 24), 0, ROCE_ERR_MALFORMED, ROCE_DROP_UDP_LEN, "UDP len -4");
	MUT(put_be16(m + 40, 0x1234), 0, ROCE_ERR_MALFORMED, ROCE_DROP_UDP_CSUM, "wrong UDP csum");
	MUT(, iplen + 4, ROCE_ERR_MALFORMED, ROCE_DROP_IP_LEN, "IP len beyond frame");
	MUT(, 27, ROCE_ERR_MALFORMED, ROCE_DROP_IP_LEN, "IP len 27");
	MUT(, 28 + 15, ROCE_ERR_MALFORMED, ROCE_DROP_HDR_LEN, "no room for BTH+ICRC");
	MUT(m[42] = 0x15, 0, ROCE_ERR_MALFORMED, ROCE_DROP_OPCODE, "opcode 0x15");
	MUT(m[42] = 0x40, 0, ROCE_ERR_MALFORMED, ROCE_DROP_OPCODE, "RD opcode");
	MUT(m[42] = 0x81, 0, ROCE_ERR_MALFORMED, ROCE_DROP_OPCODE, "CNP opcode");
	MUT(m[43] |= 1, 0, ROCE_ERR_MALFORMED, ROCE_DROP_TVER, "TVer 1");
	MUT(m[46] = 0xff, 0, ROCE_OK, ROCE_DROP_NONE, "FECN/BECN/resv6 ignored");
	MUT(m[50] = 0xff, 0, ROCE_OK, ROCE_DROP_NONE, "BTH resv7 ignored");
	MUT(m[60] ^= 1, 0, ROCE_OK, ROCE_DROP_NONE, "pad byte value not checked (ICRC covers it)");
	MUT(m[54] ^= 1; m[58] ^= 2, 0, ROCE_OK, ROCE_DROP_NONE, "payload change with fixed ICRC");
	/* rest = 5 + 3 pad = 8 bytes; pad counts that do not fit: */
	MUT(, iplen - 1, ROCE_ERR_MALFORMED, ROCE_DROP_PAD, "payload+pad 7 (not a multiple of 4)");
	MUT(m[43] = (uint8_t)((m[43] & 0xcf) | 0x00), 0, ROCE_OK, ROCE_DROP_NONE,
	    "padcnt 0 over 8 bytes: 8 bytes of payload");
	/* A correct non-zero UDP checksum is accepted. */
	{
		uint32_t s;

		memcpy(m, f, n);
		s = be16(m + 26) + be16(m + 28) + be16(m + 30) + be16(m + 32) + 17 + (uint32_t)(iplen - 20);
		for (size_t k = 34; k < 14 + iplen; k += 2)
			s += be16(m + k);
		while (s >> 16)
			s = (s & 0xffff) + (s >> 16);
		put_be16(m + 40, (uint16_t)~s);
		expect(m, n, ROCE_OK, ROCE_DROP_NONE, "valid non-zero UDP checksum");
	}
	memcpy(m, f, n);
	m[n - 1 - (n - 14 - iplen)] ^= 0x80;
	expect(m, n, ROCE_ERR_ICRC, ROCE_DROP_ICRC, "ICRC byte flipped");

	/* An empty SEND_ONLY: rest 0 with a pad count. */
	n = roce_build(&p, NULL, 0, f, sizeof(f));
	MUT(m[43] |= 0x20, 0, ROCE_ERR_MALFORMED, ROCE_DROP_PAD, "pad 2 with nothing to pad");
	/* A READ request carrying payload bytes; an ACK with a pad count. */
	p.opcode = HCA_BTH_OP_RC_RDMA_READ_REQUEST;
	n = roce_build(&p, NULL, 0, f, sizeof(f));
	iplen = be16(f + 16);
	memset(f + n, 0, 8);
	MUT(, iplen + 4, ROCE_ERR_MALFORMED, ROCE_DROP_IP_LEN, "READ request + 4 bytes beyond frame");
	{
		size_t n2 = n + 4;

		memcpy(m, f, n2);
		fixup(m, iplen + 4);
		expect(m, n2, ROCE_ERR_MALFORMED, ROCE_DROP_PAD, "READ request with 4 payload bytes");
	}
	MUT(, iplen - 4, ROCE_ERR_MALFORMED, ROCE_DROP_HDR_LEN, "READ request without full RETH");
	p.opcode = HCA_BTH_OP_RC_ACKNOWLEDGE;
	n = roce_build(&p, NULL, 0, f, sizeof(f));
	MUT(m[43] |= 0x10, 0, ROCE_ERR_MALFORMED, ROCE_DROP_PAD, "ACK with pad 1");
#undef MUT
	CHECK(strcmp(roce_drop_reason_str(ROCE_DROP_NR), "?") == 0, "reason string out of range");
	CHECK(strcmp(roce_drop_reason_str((enum roce_drop_reason)-1), "?") == 0, "negative reason");
	for (int r = 0; r < ROCE_DROP_NR; r++)
		CHECK(roce_drop_reason_str((enum roce_drop_reason)r) != NULL, "reason %d named", r);
}

/* ----------------------------------------------------------------- fuzz */

static void test_fuzz(unsigned long iters)
{
	static uint8_t f[1600], base[1600], pay[1024];
	unsigned long ok = 0, inconsistent = 0;
	struct roce_pkt p, q;

	for (size_t i = 0; i < sizeof(pay); i++)
		pay[i] = (uint8_t)rnd();
	for (unsigned long it = 0; it < iters; it++) {
		size_t n;
		unsigned int mode = (unsigned int)(rnd() % 4);

		if (mode == 0) {
			/* Pure garbage. */
			n = rnd() % 200;
			for (size_t i = 0; i < n; i++)
				f[i] = (uint8_t)rnd();
		} else {
			/* A valid frame, then mutated: bytes, length, fields with fixups. */
			uint8_t op = (uint8_t)rnd();
			uint32_t len = (uint32_t)(rnd() % 300);

			while (!roce_opcode(op))
				op = (uint8_t)rnd();
			random_pkt(&p, op);
			if (!(roce_opcode(op)->hdrs & ROCE_PAYLOAD))
				len = 0;
			n = roce_build(&p, pay, len, base, sizeof(base));
			memcpy(f, base, n);
			for (unsigned int k = (unsigned int)(rnd() % 4); k; k--)
				f[rnd() % n] ^= (uint8_t)(1 + rnd() % 255);
			if (mode >= 2) {
				/* Lie about lengths and pad but keep IP checksum and ICRC right. */
				size_t iplen = 28 + 12 + rnd() % (n - 14 - 28 + 8);

				if (mode == 3)
					f[43] = (uint8_t)((f[43] & 0xcf) | (rnd() & 0x30));
				if (14 + iplen > n)
					iplen = n - 14;
				if (iplen >= 44) {
					f[12] = 8;
					f[13] = 0;
					f[14] = 0x45;
					f[20] &= 0x40;
					f[21] = 0;
					f[23] = 17;
					put_be16(f + 36, 4791);
					put_be16(f + 40, 0);
					fixup(f, iplen);
				}
			}
			if (rnd() % 8 == 0)
				n = rnd() % (n + 1);
		}
		/* Parse from a heap copy of exactly n bytes: ASan sees any overread. */
		{
			uint8_t *h = malloc(n ? n : 1);

			memcpy(h, f, n);
			if (roce_parse(h, n, &q) == ROCE_OK) {
				const struct roce_opcode_info *op = roce_opcode(q.opcode);
				size_t end = (size_t)(q.payload - h) + q.paylen + q.padcnt + 4;

				ok++;
				inconsistent += !op || q.payload < h + 54 || end > n ||
						end != 14 + be16(h + 16) || q.padcnt > 3 ||
						q.ip_hdr != h + 14;
			}
			free(h);
		}
	}
	printf("fuzz: %lu frames, %lu accepted\n", iters, ok);
	CHECK_EQ(inconsistent, 0, "accepted fuzz frames are self-consistent");
	CHECK(ok > iters / 20, "fuzz reached the accepting path (%lu of %lu)", ok, iters);
}

static void test_psn_cmp(void)
{
	CHECK(roce_psn_cmp(5, 5) == 0, "psn equal");
	CHECK(roce_psn_cmp(0, 0xffffff) > 0, "0 follows 0xffffff");
	CHECK(roce_psn_cmp(0xffffff, 0) < 0, "0xffffff precedes 0");
	CHECK(roce_psn_cmp(0x7fffff, 0) > 0, "half window ahead");
	CHECK(roce_psn_cmp(0x800000, 0) < 0, "2^23 ahead counts as behind");
}

int main(int argc, char **argv)
{
	uint64_t seed = 1;
	unsigned long fuzz = 200000;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--seed"))
			seed = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--fuzz"))
			fuzz = strtoul(argv[i + 1], NULL, 0);
	}
	rng_state = seed;
	printf("test_codec: seed %llu\n", (unsigned long long)seed);
	test_crc32();
	test_crc32_impls();
	test_opcodes();
	test_kat();
	test_roundtrip();
	test_build_errors();
	test_refusals();
	test_fuzz(fuzz);
	test_psn_cmp();
	return check_done();
}
