// SPDX-License-Identifier: MIT
/*
 * RoCEv2 (IPv4) frame build and parse: Ethernet II, IPv4, UDP, BTH and the
 * extension headers of model/opcode.c.  Wire rules: docs/wire.md sections 1
 * and 2; receive checks and their order: docs/packet.md.
 */
#include <string.h>

#include "roce_hdr.h"

#include "hcasim/hca_spec.h"

#define ETH_HLEN HCA_WIRE_ETH_HLEN
#define IP_HLEN HCA_WIRE_IPV4_HLEN
#define UDP_HLEN HCA_WIRE_UDP_HLEN
#define BTH_LEN HCA_WIRE_BTH_LEN
#define ICRC_LEN HCA_WIRE_ICRC_LEN
#define IP_OFF ETH_HLEN
#define UDP_OFF (IP_OFF + IP_HLEN)
#define BTH_OFF (UDP_OFF + UDP_HLEN)
#define EXT_OFF (BTH_OFF + BTH_LEN)
#define IPPROTO_UDP_ 17

/* Big-endian field access. */
static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static inline void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static inline uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static inline uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* RFC 1071 one's-complement sum of 16-bit big-endian words, not folded. */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	while (len >= 2) {
		sum += get16(p);
		p += 2;
		len -= 2;
	}
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static size_t transport_len(const struct roce_opcode_info *op, uint32_t paylen, uint8_t *padcnt)
{
	uint8_t pad = (uint8_t)((4 - (paylen & 3)) & 3);

	if (padcnt)
		*padcnt = pad;
	return (size_t)BTH_LEN + op->ext_len + paylen + pad + ICRC_LEN;
}

size_t roce_payload_offset(uint8_t opcode)
{
	const struct roce_opcode_info *op = roce_opcode(opcode);

	return op ? EXT_OFF + op->ext_len : 0;
}

size_t roce_frame_len(uint8_t opcode, uint32_t paylen)
{
	const struct roce_opcode_info *op = roce_opcode(opcode);
	size_t tl, flen;

	if (!op || (paylen && !(op->hdrs & ROCE_PAYLOAD)))
		return 0;
	if (paylen > 0xffff)
		return 0;
	tl = transport_len(op, paylen, NULL);
	if (IP_HLEN + UDP_HLEN + tl > 0xffff)
		return 0;
	flen = ETH_HLEN + IP_HLEN + UDP_HLEN + tl;
	return flen < HCA_WIRE_MIN_FRAME ? HCA_WIRE_MIN_FRAME : flen;
}

void roce_pkt_init(struct roce_pkt *p, uint8_t opcode)
{
	memset(p, 0, sizeof(*p));
	p->opcode = opcode;
	p->migreq = HCA_WIRE_BTH_MIGREQ;
	p->pkey = HCA_WIRE_PKEY_DEFAULT;
}

/* Extension headers in wire order; returns the bytes written. */
static size_t build_ext(const struct roce_pkt *p, uint32_t hdrs, uint8_t *b)
{
	uint8_t *s = b;

	if (hdrs & ROCE_DETH) {
		put32(b, p->deth.qkey);
		b[4] = 0;
		put24(b + 5, p->deth.src_qp);
		b += HCA_WIRE_DETH_LEN;
	}
	if (hdrs & ROCE_RETH) {
		put64(b, p->reth.va);
		put32(b + 8, p->reth.rkey);
		put32(b + 12, p->reth.len);
		b += HCA_WIRE_RETH_LEN;
	}
	if (hdrs & ROCE_ATMETH) {
		put64(b, p->atmeth.va);
		put32(b + 8, p->atmeth.rkey);
		put64(b + 12, p->atmeth.swap_add);
		put64(b + 20, p->atmeth.compare);
		b += HCA_WIRE_ATOMICETH_LEN;
	}
	if (hdrs & ROCE_AETH) {
		b[0] = p->aeth.syndrome;
		put24(b + 1, p->aeth.msn);
		b += HCA_WIRE_AETH_LEN;
	}
	if (hdrs & ROCE_ATMACK) {
		put64(b, p->atmack_orig);
		b += HCA_WIRE_ATOMICACKETH_LEN;
	}
	if (hdrs & ROCE_IMMDT) {
		put32(b, p->imm);
		b += HCA_WIRE_IMMDT_LEN;
	}
	return (size_t)(b - s);
}

static void parse_ext(struct roce_pkt *p, uint32_t hdrs, const uint8_t *b)
{
	if (hdrs & ROCE_DETH) {
		p->deth.qkey = get32(b);
		p->deth.src_qp = get24(b + 5);
		b += HCA_WIRE_DETH_LEN;
	}
	if (hdrs & ROCE_RETH) {
		p->reth.va = get64(b);
		p->reth.rkey = get32(b + 8);
		p->reth.len = get32(b + 12);
		b += HCA_WIRE_RETH_LEN;
	}
	if (hdrs & ROCE_ATMETH) {
		p->atmeth.va = get64(b);
		p->atmeth.rkey = get32(b + 8);
		p->atmeth.swap_add = get64(b + 12);
		p->atmeth.compare = get64(b + 20);
		b += HCA_WIRE_ATOMICETH_LEN;
	}
	if (hdrs & ROCE_AETH) {
		p->aeth.syndrome = b[0];
		p->aeth.msn = get24(b + 1);
		b += HCA_WIRE_AETH_LEN;
	}
	if (hdrs & ROCE_ATMACK) {
		p->atmack_orig = get64(b);
		b += HCA_WIRE_ATOMICACKETH_LEN;
	}
	if (hdrs & ROCE_IMMDT)
		p->imm = get32(b);
}

size_t roce_build(struct roce_pkt *p, const void *payload, uint32_t paylen, uint8_t *buf,
		  size_t cap)
{
	const struct roce_opcode_info *op = roce_opcode(p->opcode);
	size_t flen, total, tl, off;
	uint8_t pad, *ip, *udp, *bth;
	uint16_t iplen;
	uint32_t icrc;

	total = roce_frame_len(p->opcode, paylen);
	if (!total || total > cap || !buf || (paylen && !payload))
		return 0;
	tl = transport_len(op, paylen, &pad);
	iplen = (uint16_t)(IP_HLEN + UDP_HLEN + tl);
	flen = ETH_HLEN + iplen;

	/* Payload first: it may overlap buf, or already be in place
	 * (roce_payload_offset: a caller that read it there). */
	off = EXT_OFF + op->ext_len;
	if (paylen && payload != buf + off)
		memmove(buf + off, payload, paylen);
	memset(buf + off + paylen, 0, pad);

	/* Ethernet II */
	memcpy(buf, p->dmac, 6);
	memcpy(buf + 6, p->smac, 6);
	put16(buf + 12, HCA_WIRE_ETHERTYPE_IPV4);

	/* IPv4 */
	ip = buf + IP_OFF;
	ip[0] = 0x45;
	ip[1] = p->tos;
	put16(ip + 2, iplen);
	put16(ip + 4, HCA_WIRE_IPV4_ID);
	put16(ip + 6, HCA_WIRE_IPV4_FLAGS_DF);
	ip[8] = p->ttl ? p->ttl : HCA_WIRE_IPV4_TTL_DEFAULT;
	ip[9] = IPPROTO_UDP_;
	put16(ip + 10, 0);
	put32(ip + 12, p->sip);
	put32(ip + 16, p->dip);
	put16(ip + 10, (uint16_t)~csum_fold(csum_add(0, ip, IP_HLEN)));

	/* UDP */
	udp = buf + UDP_OFF;
	put16(udp, p->sport);
	put16(udp + 2, HCA_WIRE_UDP_DPORT);
	put16(udp + 4, (uint16_t)(UDP_HLEN + tl));
	put16(udp + 6, HCA_WIRE_UDP_CSUM);

	/* BTH */
	p->padcnt = pad;
	bth = buf + BTH_OFF;
	bth[0] = p->opcode;
	bth[1] = (uint8_t)((p->se ? 0x80 : 0) | (p->migreq ? 0x40 : 0) | pad << 4 | HCA_WIRE_BTH_TVER);
	put16(bth + 2, p->pkey);
	bth[4] = 0;
	put24(bth + 5, p->dqpn & HCA_WIRE_PSN_MASK);
	bth[8] = p->ackreq ? 0x80 : 0;
	put24(bth + 9, p->psn & HCA_WIRE_PSN_MASK);

	build_ext(p, op->hdrs, buf + EXT_OFF);

	/* ICRC, least-significant byte first; then the minimum-frame padding. */
	icrc = roce_icrc(buf, flen - ICRC_LEN);
	buf[flen - 4] = (uint8_t)icrc;
	buf[flen - 3] = (uint8_t)(icrc >> 8);
	buf[flen - 2] = (uint8_t)(icrc >> 16);
	buf[flen - 1] = (uint8_t)(icrc >> 24);
	if (total > flen)
		memset(buf + flen, 0, total - flen);
	return total;
}

static const char *const drop_reason_names[ROCE_DROP_NR] = {
	[ROCE_DROP_NONE] = "ok",
	[ROCE_DROP_SHORT] = "frame shorter than Ethernet+IPv4 headers",
	[ROCE_DROP_ETHERTYPE] = "EtherType not IPv4",
	[ROCE_DROP_IP_VERSION] = "IP version not 4",
	[ROCE_DROP_IP_OPTIONS] = "IPv4 options (IHL != 5)",
	[ROCE_DROP_IP_CSUM] = "IPv4 header checksum",
	[ROCE_DROP_IP_LEN] = "IPv4 total length inconsistent with the frame",
	[ROCE_DROP_IP_FRAG] = "IPv4 fragment",
	[ROCE_DROP_IP_PROTO] = "IP protocol not UDP",
	[ROCE_DROP_UDP_PORT] = "UDP destination port not 4791",
	[ROCE_DROP_UDP_LEN] = "UDP length inconsistent with IPv4 total length",
	[ROCE_DROP_UDP_CSUM] = "UDP checksum",
	[ROCE_DROP_ICRC] = "ICRC mismatch",
	[ROCE_DROP_OPCODE] = "unknown BTH opcode",
	[ROCE_DROP_TVER] = "BTH TVer not 0",
	[ROCE_DROP_HDR_LEN] = "packet too short for its headers",
	[ROCE_DROP_PAD] = "pad count / payload length inconsistent",
};

const char *roce_drop_reason_str(enum roce_drop_reason why)
{
	if ((unsigned int)why >= ROCE_DROP_NR)
		return "?";
	return drop_reason_names[why];
}

static enum roce_parse_err refuse(enum roce_drop_reason *why, enum roce_drop_reason r)
{
	if (why)
		*why = r;
	return r == ROCE_DROP_ICRC ? ROCE_ERR_ICRC : ROCE_ERR_MALFORMED;
}

enum roce_parse_err roce_parse_ex(const uint8_t *f, size_t len, struct roce_pkt *p,
				  enum roce_drop_reason *why)
{
	const struct roce_opcode_info *op;
	const uint8_t *ip, *udp, *bth;
	size_t iplen, tl, rest, end;
	uint16_t ucsum;
	uint32_t icrc;
	uint8_t pad;

	if (!f || !p)
		return refuse(why, ROCE_DROP_SHORT);
	if (len < ETH_HLEN)
		return refuse(why, ROCE_DROP_SHORT);
	if (get16(f + 12) != HCA_WIRE_ETHERTYPE_IPV4)
		return refuse(why, ROCE_DROP_ETHERTYPE);
	if (len < ETH_HLEN + IP_HLEN)
		return refuse(why, ROCE_DROP_SHORT);

	/* IPv4 */
	ip = f + IP_OFF;
	if (ip[0] >> 4 != 4)
		return refuse(why, ROCE_DROP_IP_VERSION);
	if ((ip[0] & 0xf) != IP_HLEN / 4)
		return refuse(why, ROCE_DROP_IP_OPTIONS);
	if (csum_fold(csum_add(0, ip, IP_HLEN)) != 0xffff)
		return refuse(why, ROCE_DROP_IP_CSUM);
	iplen = get16(ip + 2);
	if (iplen < IP_HLEN + UDP_HLEN || iplen > len - ETH_HLEN)
		return refuse(why, ROCE_DROP_IP_LEN);
	if (get16(ip + 6) & 0x3fff)
		return refuse(why, ROCE_DROP_IP_FRAG);
	if (ip[9] != IPPROTO_UDP_)
		return refuse(why, ROCE_DROP_IP_PROTO);

	/* UDP */
	udp = f + UDP_OFF;
	if (get16(udp + 2) != HCA_WIRE_UDP_DPORT)
		return refuse(why, ROCE_DROP_UDP_PORT);
	if (get16(udp + 4) != iplen - IP_HLEN)
		return refuse(why, ROCE_DROP_UDP_LEN);
	ucsum = get16(udp + 6);
	if (ucsum) {
		/* Pseudo header (addresses, protocol, UDP length) + UDP datagram. */
		uint32_t sum = csum_add(0, ip + 12, 8);

		sum += IPPROTO_UDP_ + (uint32_t)(iplen - IP_HLEN);
		sum = csum_add(sum, udp, iplen - IP_HLEN);
		if (csum_fold(sum) != 0xffff)
			return refuse(why, ROCE_DROP_UDP_CSUM);
	}

	/* Integrity before meaning: a corrupted opcode is an ICRC error. */
	tl = iplen - IP_HLEN - UDP_HLEN;
	if (tl < BTH_LEN + ICRC_LEN)
		return refuse(why, ROCE_DROP_HDR_LEN);
	end = ETH_HLEN + iplen - ICRC_LEN;
	icrc = (uint32_t)f[end] | (uint32_t)f[end + 1] << 8 | (uint32_t)f[end + 2] << 16 |
	       (uint32_t)f[end + 3] << 24;
	if (roce_icrc(f, end) != icrc)
		return refuse(why, ROCE_DROP_ICRC);

	/* BTH */
	bth = f + BTH_OFF;
	op = roce_opcode(bth[0]);
	if (!op)
		return refuse(why, ROCE_DROP_OPCODE);
	if ((bth[1] & 0xf) != HCA_WIRE_BTH_TVER)
		return refuse(why, ROCE_DROP_TVER);
	if (tl < (size_t)BTH_LEN + op->ext_len + ICRC_LEN)
		return refuse(why, ROCE_DROP_HDR_LEN);
	rest = tl - BTH_LEN - op->ext_len - ICRC_LEN;	/* payload + pad */
	pad = (bth[1] >> 4) & 3;
	if (rest & 3 || pad > rest || (!(op->hdrs & ROCE_PAYLOAD) && rest))
		return refuse(why, ROCE_DROP_PAD);

	memset(p, 0, sizeof(*p));
	memcpy(p->dmac, f, 6);
	memcpy(p->smac, f + 6, 6);
	p->tos = ip[1];
	p->ttl = ip[8];
	p->sip = get32(ip + 12);
	p->dip = get32(ip + 16);
	p->sport = get16(udp);
	p->opcode = bth[0];
	p->se = bth[1] >> 7;
	p->migreq = (bth[1] >> 6) & 1;
	p->padcnt = pad;
	p->pkey = get16(bth + 2);
	p->dqpn = get24(bth + 5);
	p->ackreq = bth[8] >> 7;
	p->psn = get24(bth + 9);
	parse_ext(p, op->hdrs, f + EXT_OFF);
	p->paylen = (uint32_t)(rest - pad);
	p->payload = f + EXT_OFF + op->ext_len;	/* valid even when paylen is 0 */
	p->ip_hdr = ip;
	if (why)
		*why = ROCE_DROP_NONE;
	return ROCE_OK;
}

enum roce_parse_err roce_parse(const uint8_t *frame, size_t len, struct roce_pkt *p)
{
	return roce_parse_ex(frame, len, p, NULL);
}
