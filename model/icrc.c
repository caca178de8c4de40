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
 */
#include <string.h>

#include "roce_hdr.h"

#include "hcasim/hca_spec.h"

extern const uint32_t roce_crc32_table[8][256];

uint32_t roce_crc32_update(uint32_t crc, const void *data, size_t len)
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

/* Bytes from the start of the IPv4 header to the end of the BTH. */
#define ICRC_HDR_LEN (HCA_WIRE_IPV4_HLEN + HCA_WIRE_UDP_HLEN + HCA_WIRE_BTH_LEN)

uint32_t roce_icrc(const uint8_t *frame, size_t end)
{
	static const uint8_t lrh_mask[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t hdr[ICRC_HDR_LEN];
	const size_t hdr_off = HCA_WIRE_ETH_HLEN;
	size_t n = 0;
	uint32_t crc;

	/* A frame too short to hold the headers gets the CRC of what is there. */
	if (end > hdr_off)
		n = end - hdr_off < ICRC_HDR_LEN ? end - hdr_off : ICRC_HDR_LEN;
	memset(hdr, 0xff, sizeof(hdr));
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

	crc = roce_crc32_update(0xffffffffu, lrh_mask, sizeof(lrh_mask));
	crc = roce_crc32_update(crc, hdr, n);
	if (end > hdr_off + ICRC_HDR_LEN)
		crc = roce_crc32_update(crc, frame + hdr_off + ICRC_HDR_LEN,
					end - hdr_off - ICRC_HDR_LEN);
	return ~crc;
}
