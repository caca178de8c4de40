// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for roce_parse_ex (make fuzz-codec, part of make regress).
 * Any input must be refused or accepted without touching memory outside it,
 * and an accepted frame must be self-consistent; a rebuild from the parsed
 * fields must parse to the same fields.
 */
#include <stdlib.h>
#include <string.h>

#include "../roce_hdr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const uint8_t *data, size_t size);

/*
 * Each input is parsed as it is, and again with its IPv4 checksum and ICRC
 * made right (so the fuzzer gets past the integrity checks to the BTH,
 * length and pad rules).
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t fixed[70000];
	size_t iplen, end;

	check(data, size);
	if (size < 54 || size > sizeof(fixed))
		return 0;
	memcpy(fixed, data, size);
	iplen = (size_t)fixed[16] << 8 | fixed[17];
	if (iplen < 44 || 14 + iplen > size)
		return 0;
	{
		uint32_t s = 0, c;

		fixed[24] = fixed[25] = 0;
		for (int i = 14; i < 34; i += 2)
			s += (uint32_t)fixed[i] << 8 | fixed[i + 1];
		while (s >> 16)
			s = (s & 0xffff) + (s >> 16);
		fixed[24] = (uint8_t)(~s >> 8);
		fixed[25] = (uint8_t)~s;
		end = 14 + iplen - 4;
		c = roce_icrc(fixed, end);
		fixed[end] = (uint8_t)c;
		fixed[end + 1] = (uint8_t)(c >> 8);
		fixed[end + 2] = (uint8_t)(c >> 16);
		fixed[end + 3] = (uint8_t)(c >> 24);
	}
	{
		/* Exactly `size` bytes on the heap so ASan sees any overread. */
		uint8_t *h = malloc(size);

		memcpy(h, fixed, size);
		check(h, size);
		free(h);
	}
	return 0;
}

static void check(const uint8_t *data, size_t size)
{
	struct roce_pkt p, q;
	enum roce_drop_reason why;
	static uint8_t buf[70000];
	size_t n, end;

	if (roce_parse_ex(data, size, &p, &why) != ROCE_OK)
		return;
	end = (size_t)(p.payload - data) + p.paylen + p.padcnt + 4;
	if (!roce_opcode(p.opcode) || end > size || end != 14 + ((size_t)data[16] << 8 | data[17]))
		abort();
	/* Rebuild from the parsed fields: same fields back. */
	n = roce_build(&p, p.payload, p.paylen, buf, sizeof(buf));
	if (!n || roce_parse(buf, n, &q) != ROCE_OK)
		abort();
	if (q.opcode != p.opcode || q.psn != p.psn || q.dqpn != p.dqpn || q.paylen != p.paylen ||
	    memcmp(q.payload, p.payload, p.paylen) || q.se != p.se || q.pkey != p.pkey)
		abort();
}
