/* SPDX-License-Identifier: MIT */
/* Known-answer frames for test_codec (generated into test_codec_kat.c by tests/oracle/gen_kat.py). */
#ifndef HCASIM_TEST_CODEC_KAT_H
#define HCASIM_TEST_CODEC_KAT_H

#include <stddef.h>
#include <stdint.h>

#include "../roce_hdr.h"

struct codec_kat {
	const char *name;
	struct roce_pkt pkt;	/* header values given to scapy */
	const uint8_t *payload;
	uint32_t paylen;
	const uint8_t *frame;	/* the frame scapy built (padded to 60 bytes) */
	size_t len;
	uint32_t icrc;		/* its ICRC as scapy.contrib.roce computed it */
};

extern const struct codec_kat codec_kats[];
extern const unsigned int codec_kat_count;

#endif
