// SPDX-License-Identifier: MIT
/*
 * CRC-32 (IEEE 802.3, reflected) and the RoCEv2 invariant CRC.
 *
 * ICRC (IB spec vol. 1 section 7.8.1 and annex A17.3.3, RoCEv2 over IPv4):
 * CRC-32 with initial value 0xFFFFFFFF and final complement over
 *
 *   8 bytes 0xFF                    the masked LRH of the IB definition
 *   IPv4 header, TOS, TTL and header checksum set to all ones
 *   UDP header, checksum set to 0xFFFF
 *   BTH, byte 4 (FECN, BECN, reserved) set to 0xFF
 *   everything after the BTH up to the ICRC (extension headers, payload, pad)
 *
 * The result goes on the wire least-significant byte first, like the
 * Ethernet FCS (docs/wire.md section 1).
 *
 * Two implementations of the CRC-32 give the same values:
 *   ISA-L's crc32_gzip_refl (Debian libisal-dev; carry-less multiply where
 *     the CPU has it), used by every program linked with -lisal
 *     ($(ISAL_LDLIBS): the shim, `hcasim`, the bench programs);
 *   the slicing-by-8 table below, used where ISA-L is not linked (the
 *     sanitizer test builds, the fuzzer) and kept as the cross-check:
 *     model_codec compares the two on random buffers and on the RoCEv2
 *     known-answer frames.
 * ISA-L is a weak reference, so linking it is a choice of the program, not
 * a requirement of libhcaroce.
 */
#include <string.h>

#include <isa-l/crc.h>

#include "roce_hdr.h"

#include "hcasim/hca_spec.h"

#pragma weak crc32_gzip_refl

extern const uint32_t roce_crc32_table[8][256];

uint32_t roce_crc32_update_table(uint32_t crc, const void *data, size_t len)
{
	const uint32_t(*t)[256] = roce_crc32_table;
	const uint8_t *p = data;

	/* Slicing by 8: fold 8 bytes per step. */
	while (len >= 8) {
		uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				     (uint32_t)p[3] << 24);
		uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 |
			      (uint32_t)p[7] << 24;

		crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^
		      t[4][lo >> 24] ^ t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^
		      t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
	return crc;
}

uint32_t roce_crc32_update_isal(uint32_t crc, const void *data, size_t len)
{
	/* ISA-L takes and returns the complemented register (zlib's convention). */
	if (!crc32_gzip_refl)
		return roce_crc32_update_table(crc, data, len);
	return ~crc32_gzip_refl(~crc, data, len);
}

/*
 * Below 32 bytes the table is the faster one: ISA-L's entry costs 33-38 ns
 * of latency up to about 50 bytes (its set-up for folding), the table 12 ns
 * at 16 bytes and about 1 ns a byte (measured on the build machine, an AMD
 * EPYC with VPCLMULQDQ).  The two give the same values (model_codec compares
 * them at every length around this edge).
 */
#define CRC32_ISAL_MIN 32

uint32_t roce_crc32_update(uint32_t crc, const void *data, size_t len)
{
	if (crc32_gzip_refl && len >= CRC32_ISAL_MIN)
		return ~crc32_gzip_refl(~crc, data, len);
	return roce_crc32_update_table(crc, data, len);
}

const char *roce_crc32_impl(void)
{
	return crc32_gzip_refl ? "isa-l" : "table";
}

/* Bytes from the start of the IPv4 header to the end of the BTH. */
#define ICRC_HDR_LEN (HCA_WIRE_IPV4_HLEN + HCA_WIRE_UDP_HLEN + HCA_WIRE_BTH_LEN)
/* The 8 bytes of ones standing for the masked LRH. */
#define ICRC_LRH_LEN 8

/* Frames whose covered bytes fit here are copied whole: one CRC call, not two. */
#define ICRC_SMALL 256

uint32_t roce_icrc(const uint8_t *frame, size_t end)
{
	/* The masked LRH and the masked headers, in one buffer: one CRC call
	 * (with the rest of a small frame behind them, one for everything). */
	uint8_t buf[ICRC_LRH_LEN + ICRC_HDR_LEN + ICRC_SMALL], *hdr = buf + ICRC_LRH_LEN;
	size_t rest = 0;
	const size_t hdr_off = HCA_WIRE_ETH_HLEN;
	size_t n = 0;
	uint32_t crc;

	/* A frame too short to hold the headers gets the CRC of what is there. */
	if (end > hdr_off)
		n = end - hdr_off < ICRC_HDR_LEN ? end - hdr_off : ICRC_HDR_LEN;
	memset(buf, 0xff, ICRC_LRH_LEN + ICRC_HDR_LEN);
	if (n)
		memcpy(hdr, frame + hdr_off, n);
	/* IPv4: TOS (1), TTL (8), header checksum (10, 11). */
	hdr[1] = 0xff;
	hdr[8] = 0xff;
	hdr[10] = 0xff;
	hdr[11] = 0xff;
	/* UDP checksum. */
	hdr[HCA_WIRE_IPV4_HLEN + 6] = 0xff;
	hdr[HCA_WIRE_IPV4_HLEN + 7] = 0xff;
	/* BTH byte 4: FECN, BECN, resv6. */
	hdr[HCA_WIRE_IPV4_HLEN + HCA_WIRE_UDP_HLEN + 4] = 0xff;

	if (end > hdr_off + ICRC_HDR_LEN)
		rest = end - hdr_off - ICRC_HDR_LEN;
	if (rest <= ICRC_SMALL) {
		if (rest)
			memcpy(hdr + ICRC_HDR_LEN, frame + hdr_off + ICRC_HDR_LEN, rest);
		return ~roce_crc32_update(0xffffffffu, buf, ICRC_LRH_LEN + n + rest);
	}
	crc = roce_crc32_update(0xffffffffu, buf, ICRC_LRH_LEN + n);
	return ~roce_crc32_update(crc, frame + hdr_off + ICRC_HDR_LEN, rest);
}
