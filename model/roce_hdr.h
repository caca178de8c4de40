/* SPDX-License-Identifier: MIT */
/*
 * RoCEv2 packet codec of the reference model: opcode table, header build and
 * parse, ICRC.  Shared by requester, responder and completer (and by test
 * harnesses that need to build or inspect frames).  Wire rules: docs/wire.md.
 *
 * The codec is pure: no engine state, no allocation.  roce_build() emits
 * exactly the bytes docs/wire.md prescribes for the given header values;
 * roce_parse() validates a received frame and fills the same structure.
 */
#ifndef HCASIM_MODEL_ROCE_HDR_H
#define HCASIM_MODEL_ROCE_HDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which extension headers an opcode carries (roce_opcode_info.hdrs). */
enum roce_hdr_mask {
	ROCE_RETH = 1u << 0,
	ROCE_AETH = 1u << 1,
	ROCE_IMMDT = 1u << 2,
	ROCE_ATMETH = 1u << 3,
	ROCE_ATMACK = 1u << 4,
	ROCE_DETH = 1u << 5,
	ROCE_PAYLOAD = 1u << 6,	/* may carry payload */
};

/* What an opcode means (roce_opcode_info.flags). */
enum roce_op_flags {
	ROCE_OP_REQ = 1u << 0,		/* request (requester -> responder) */
	ROCE_OP_RESP = 1u << 1,		/* ACK, READ response, atomic ACK */
	ROCE_OP_SEND = 1u << 2,
	ROCE_OP_WRITE = 1u << 3,
	ROCE_OP_READ = 1u << 4,		/* READ request or READ response */
	ROCE_OP_ATOMIC = 1u << 5,	/* atomic request or atomic ACK */
	ROCE_OP_ACK = 1u << 6,		/* plain ACK/NAK */
	ROCE_OP_FIRST = 1u << 7,
	ROCE_OP_MIDDLE = 1u << 8,
	ROCE_OP_LAST = 1u << 9,
	ROCE_OP_ONLY = 1u << 10,
	ROCE_OP_IMM = 1u << 11,
	ROCE_OP_RC = 1u << 12,
	ROCE_OP_UC = 1u << 13,
	ROCE_OP_UD = 1u << 14,
	ROCE_OP_START = ROCE_OP_FIRST | ROCE_OP_ONLY,	/* begins a message */
	ROCE_OP_END = ROCE_OP_LAST | ROCE_OP_ONLY,	/* ends a message */
};

struct roce_opcode_info {
	const char *name;	/* IB spec name, e.g. "RC_SEND_FIRST" */
	uint32_t flags;		/* enum roce_op_flags */
	uint32_t hdrs;		/* enum roce_hdr_mask */
	uint8_t ext_len;	/* bytes of extension headers after the BTH */
};

/* NULL for opcodes this device does not implement. */
const struct roce_opcode_info *roce_opcode(uint8_t opcode);

/* Header values of one RoCEv2 packet (host byte order throughout). */
struct roce_pkt {
	/* Ethernet */
	uint8_t dmac[6];
	uint8_t smac[6];
	/* IPv4 (addresses in host order: 10.0.0.1 = 0x0a000001) */
	uint32_t sip;
	uint32_t dip;
	uint8_t tos;		/* traffic class */
	uint8_t ttl;		/* 0 on build means HCA_WIRE_IPV4_TTL_DEFAULT */
	uint16_t sport;		/* UDP source port */
	/* BTH */
	uint8_t opcode;
	bool se;
	bool migreq;
	uint8_t padcnt;		/* filled by build and parse */
	uint16_t pkey;
	uint32_t dqpn;		/* 24 bits */
	bool ackreq;
	uint32_t psn;		/* 24 bits */
	/* extension headers: valid as roce_opcode(opcode)->hdrs says */
	struct { uint64_t va; uint32_t rkey; uint32_t len; } reth;
	struct { uint8_t syndrome; uint32_t msn; } aeth;
	uint32_t imm;		/* ImmDt as the 32-bit value read big-endian from the wire */
	struct { uint64_t va; uint32_t rkey; uint64_t swap_add; uint64_t compare; } atmeth;
	uint64_t atmack_orig;
	struct { uint32_t qkey; uint32_t src_qp; } deth;
	/* payload (parse: points into the frame) */
	const uint8_t *payload;
	uint32_t paylen;
	/* parse: the received IPv4 header (for the UD GRH area) */
	const uint8_t *ip_hdr;
};

/* Parse results (roce_parse return values); map to HCA_STAT_RX_DROP_*. */
enum roce_parse_err {
	ROCE_OK = 0,
	ROCE_ERR_MALFORMED = 1,	/* not IPv4/UDP/4791, IP checksum, options, lengths, bad opcode */
	ROCE_ERR_ICRC = 2,	/* ICRC mismatch */
};

/*
 * Build a frame into buf (capacity cap).  Fills padcnt; payload may be NULL
 * when paylen is 0.  Returns the frame length (>= HCA_WIRE_MIN_FRAME), or 0
 * if cap is too small or the opcode is unknown.
 */
size_t roce_build(struct roce_pkt *p, const void *payload, uint32_t paylen,
		  uint8_t *buf, size_t cap);

/* Parse and check a received frame.  On ROCE_OK, *p is filled. */
enum roce_parse_err roce_parse(const uint8_t *frame, size_t len, struct roce_pkt *p);

/*
 * ICRC over a frame (Ethernet header first) whose RoCE part ends at
 * frame + end (the ICRC itself starts at `end`).  Returns the CRC value; it
 * is stored little-endian on the wire.
 */
uint32_t roce_icrc(const uint8_t *frame, size_t end);

/*
 * Additions (compatible; docs/packet.md).
 */

/* Why roce_parse_ex() refused a frame, in the order the checks run. */
enum roce_drop_reason {
	ROCE_DROP_NONE = 0,		/* accepted */
	/* ROCE_ERR_MALFORMED: framing, IPv4, UDP */
	ROCE_DROP_SHORT,		/* frame ends inside the Ethernet/IPv4 header */
	ROCE_DROP_ETHERTYPE,		/* not 0x0800 (VLAN tags are not accepted) */
	ROCE_DROP_IP_VERSION,		/* IPv4 version field not 4 */
	ROCE_DROP_IP_OPTIONS,		/* IHL != 5 */
	ROCE_DROP_IP_CSUM,		/* header checksum wrong */
	ROCE_DROP_IP_LEN,		/* total length beyond the frame or below IP+UDP+BTH+ICRC */
	ROCE_DROP_IP_FRAG,		/* MF set or fragment offset != 0 */
	ROCE_DROP_IP_PROTO,		/* not UDP */
	ROCE_DROP_UDP_PORT,		/* destination port not 4791 */
	ROCE_DROP_UDP_LEN,		/* UDP length != IP total length - 20 */
	ROCE_DROP_UDP_CSUM,		/* non-zero UDP checksum that does not verify */
	/* ROCE_ERR_ICRC */
	ROCE_DROP_ICRC,
	/* ROCE_ERR_MALFORMED: BTH and what follows (checked after the ICRC) */
	ROCE_DROP_OPCODE,		/* opcode not implemented (roce_opcode() == NULL) */
	ROCE_DROP_TVER,			/* BTH TVer != 0 */
	ROCE_DROP_HDR_LEN,		/* transport bytes too few for the opcode's headers */
	ROCE_DROP_PAD,			/* payload+pad not a multiple of 4, pad > payload+pad,
					 * or payload/pad on an opcode that carries none */
	ROCE_DROP_NR
};

/* Like roce_parse(); *why (if not NULL) says which check failed. */
enum roce_parse_err roce_parse_ex(const uint8_t *frame, size_t len, struct roce_pkt *p,
				  enum roce_drop_reason *why);
const char *roce_drop_reason_str(enum roce_drop_reason why);

/*
 * Zero *p and set the fixed wire values of docs/wire.md: migreq = 1,
 * pkey = 0xFFFF, ttl = 0 (-> 64), and the opcode.  roce_build() writes every
 * other field exactly as given (it does not force M or P_Key).
 */
void roce_pkt_init(struct roce_pkt *p, uint8_t opcode);

/* Frame length roce_build() returns for opcode/paylen, or 0 if it would fail. */
size_t roce_frame_len(uint8_t opcode, uint32_t paylen);
/* Where roce_build() puts the payload of opcode in the frame (0: unknown
 * opcode).  A caller may place the payload there first and pass
 * buf + roce_payload_offset() as the payload: it is not copied again. */
size_t roce_payload_offset(uint8_t opcode);

/* Plain IEEE 802.3 CRC-32 update (reflected, no pre/post inversion). */
uint32_t roce_crc32_update(uint32_t crc, const void *data, size_t len);
/* The two implementations behind it (model/icrc.c): the slicing-by-8 table,
 * and ISA-L (the table when the program was not linked with -lisal). */
uint32_t roce_crc32_update_table(uint32_t crc, const void *data, size_t len);
uint32_t roce_crc32_update_isal(uint32_t crc, const void *data, size_t len);
/* "isa-l" or "table": what roce_crc32_update() and roce_icrc() use. */
const char *roce_crc32_impl(void);

/* 24-bit PSN arithmetic: <0, 0, >0 as a precedes, equals, follows b. */
static inline int32_t roce_psn_cmp(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

#endif /* HCASIM_MODEL_ROCE_HDR_H */
