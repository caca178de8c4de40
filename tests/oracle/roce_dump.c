// SPDX-License-Identifier: MIT
/*
 * roce_dump: decode every frame of a pcap/pcapng with the model's codec
 * (roce_parse_ex) and print one JSON object per line:
 *
 *   {"frame":1,"ns":4000,"len":60,"ok":true,"name":"RC_SEND_ONLY","dmac":"02:..",...,"payload":"hex"}
 *   {"frame":2,"ns":8000,"len":70,"ok":false,"err":"icrc","reason":"ICRC mismatch"}
 *
 * Field names are those of tests/oracle/roce_scapy.py (struct roce_pkt's);
 * extension-header fields appear only when the opcode carries the header.
 * The last line is a summary {"frames":N,"ok":K,"malformed":M,"icrc":I}.
 * Exit status 0, or 1 when the file cannot be read (error on stderr).
 *
 *   roce_dump FILE.pcap
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../../model/roce_hdr.h"
#include "../../sim/pcap.h"

static void mac(const char *k, const uint8_t *m)
{
	printf(",\"%s\":\"%02x:%02x:%02x:%02x:%02x:%02x\"", k, m[0], m[1], m[2], m[3], m[4], m[5]);
}

static void ip4(const char *k, uint32_t a)
{
	printf(",\"%s\":\"%u.%u.%u.%u\"", k, a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255);
}

static void u(const char *k, uint64_t v)
{
	printf(",\"%s\":%" PRIu64, k, v);
}

int main(int argc, char **argv)
{
	struct pcap_reader *r;
	struct pcap_frame f;
	unsigned long n = 0, ok = 0, bad = 0, icrc = 0;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: roce_dump FILE.pcap\n");
		return 2;
	}
	r = pcap_reader_open(argv[1]);
	if (!r) {
		fprintf(stderr, "roce_dump: %s\n", pcap_reader_error(NULL));
		return 1;
	}
	while ((rc = pcap_read(r, &f)) == 1) {
		struct roce_pkt p;
		enum roce_drop_reason why;
		enum roce_parse_err e = roce_parse_ex(f.data, f.len, &p, &why);

		n++;
		printf("{\"frame\":%lu,\"ns\":%" PRIu64 ",\"len\":%u", n, f.ns, f.len);
		if (e != ROCE_OK) {
			printf(",\"ok\":false,\"err\":\"%s\",\"reason\":\"%s\"}\n",
			       e == ROCE_ERR_ICRC ? "icrc" : "malformed", roce_drop_reason_str(why));
			bad += e == ROCE_ERR_MALFORMED;
			icrc += e == ROCE_ERR_ICRC;
			continue;
		}
		ok++;
		{
			const struct roce_opcode_info *op = roce_opcode(p.opcode);
			uint32_t h = op->hdrs;

			printf(",\"ok\":true,\"name\":\"%s\"", op->name);
			mac("dmac", p.dmac);
			mac("smac", p.smac);
			ip4("sip", p.sip);
			ip4("dip", p.dip);
			u("tos", p.tos);
			u("ttl", p.ttl);
			u("sport", p.sport);
			u("opcode", p.opcode);
			u("se", p.se);
			u("migreq", p.migreq);
			u("padcnt", p.padcnt);
			u("pkey", p.pkey);
			u("dqpn", p.dqpn);
			u("ackreq", p.ackreq);
			u("psn", p.psn);
			if (h & ROCE_DETH) {
				u("deth_qkey", p.deth.qkey);
				u("deth_src_qp", p.deth.src_qp);
			}
			if (h & ROCE_RETH) {
				u("reth_va", p.reth.va);
				u("reth_rkey", p.reth.rkey);
				u("reth_len", p.reth.len);
			}
			if (h & ROCE_ATMETH) {
				u("atmeth_va", p.atmeth.va);
				u("atmeth_rkey", p.atmeth.rkey);
				u("atmeth_swap_add", p.atmeth.swap_add);
				u("atmeth_compare", p.atmeth.compare);
			}
			if (h & ROCE_AETH) {
				u("aeth_syndrome", p.aeth.syndrome);
				u("aeth_msn", p.aeth.msn);
			}
			if (h & ROCE_ATMACK)
				u("atmack_orig", p.atmack_orig);
			if (h & ROCE_IMMDT)
				u("imm", p.imm);
			printf(",\"payload\":\"");
			for (uint32_t i = 0; i < p.paylen; i++)
				printf("%02x", p.payload[i]);
			printf("\"}\n");
		}
	}
	if (rc < 0) {
		fprintf(stderr, "roce_dump: %s: %s\n", argv[1], pcap_reader_error(r));
		pcap_reader_close(r);
		return 1;
	}
	pcap_reader_close(r);
	printf("{\"frames\":%lu,\"ok\":%lu,\"malformed\":%lu,\"icrc\":%lu}\n", n, ok, bad, icrc);
	return 0;
}
