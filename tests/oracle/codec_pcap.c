// SPDX-License-Identifier: MIT
/*
 * codec_pcap: build frames of every opcode with the model's codec
 * (roce_build) and write them to a pcap, plus a JSON list of the header
 * values each frame was built from -- what the builder was asked for, for
 * check_pcap.py --expect to compare against scapy's and tshark's decode.
 *
 *   codec_pcap OUT.pcap OUT.json [SEED]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/roce_hdr.h"
#include "../../sim/pcap.h"

static uint64_t s;

static uint64_t rnd(void)
{
	uint64_t z = (s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void jmac(FILE *j, const char *k, const uint8_t *m)
{
	fprintf(j, "\"%s\": \"%02x:%02x:%02x:%02x:%02x:%02x\", ", k, m[0], m[1], m[2], m[3], m[4], m[5]);
}

static void jip(FILE *j, const char *k, uint32_t a)
{
	fprintf(j, "\"%s\": \"%u.%u.%u.%u\", ", k, a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255);
}

int main(int argc, char **argv)
{
	static const uint32_t lens[] = { 0, 1, 3, 4, 5, 255, 256, 1024, 4096 };
	static uint8_t pay[4096], buf[4200];
	struct pcap_writer *w;
	FILE *j;
	uint64_t cycle = 0;
	unsigned int n = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: codec_pcap OUT.pcap OUT.json [SEED]\n");
		return 2;
	}
	s = argc > 3 ? strtoull(argv[3], NULL, 0) : 1;
	w = pcap_writer_open(argv[1], 0);
	j = fopen(argv[2], "w");
	if (!w || !j) {
		perror("codec_pcap");
		return 1;
	}
	fprintf(j, "[\n");
	for (unsigned int c = 0; c < 256; c++) {
		const struct roce_opcode_info *op = roce_opcode((uint8_t)c);

		if (!op)
			continue;
		for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
			uint32_t len = lens[li];
			struct roce_pkt p;
			size_t fl;

			if (len && !(op->hdrs & ROCE_PAYLOAD))
				break;
			for (uint32_t i = 0; i < len; i++)
				pay[i] = (uint8_t)rnd();
			roce_pkt_init(&p, (uint8_t)c);
			for (int i = 0; i < 6; i++) {
				p.dmac[i] = (uint8_t)rnd();
				p.smac[i] = (uint8_t)rnd();
			}
			p.dmac[0] &= 0xfe;	/* unicast */
			p.smac[0] &= 0xfe;
			p.sip = (uint32_t)rnd();
			p.dip = (uint32_t)rnd();
			p.tos = (uint8_t)rnd();
			p.ttl = (uint8_t)(rnd() % 4 ? rnd() % 255 + 1 : 0);
			p.sport = (uint16_t)(0xc000 | (rnd() & 0x3fff));
			p.se = rnd() & 1;
			p.ackreq = rnd() & 1;
			p.dqpn = (uint32_t)rnd() & 0xffffff;
			p.psn = (uint32_t)rnd() & 0xffffff;
			p.reth.va = rnd();
			p.reth.rkey = (uint32_t)rnd();
			p.reth.len = (uint32_t)rnd();
			p.aeth.syndrome = (uint8_t)rnd();
			p.aeth.msn = (uint32_t)rnd() & 0xffffff;
			p.imm = (uint32_t)rnd();
			p.atmeth.va = rnd();
			p.atmeth.rkey = (uint32_t)rnd();
			p.atmeth.swap_add = rnd();
			p.atmeth.compare = rnd();
			p.atmack_orig = rnd();
			p.deth.qkey = (uint32_t)rnd();
			/* QP 0/1 are management QPs: tshark would decode the payload as a MAD. */
			p.deth.src_qp = 2 + (uint32_t)(rnd() % 0xfffffe);
			fl = roce_build(&p, pay, len, buf, sizeof(buf));
			if (!fl) {
				fprintf(stderr, "codec_pcap: roce_build failed for %s len %u\n", op->name, len);
				return 1;
			}
			if (pcap_write(w, cycle, buf, fl)) {
				perror("codec_pcap: write");
				return 1;
			}
			cycle += 1 + rnd() % 1000;
			fprintf(j, "%s  {", n++ ? ",\n" : "");
			jmac(j, "dmac", p.dmac);
			jmac(j, "smac", p.smac);
			jip(j, "sip", p.sip);
			jip(j, "dip", p.dip);
			fprintf(j, "\"tos\": %u, \"ttl\": %u, \"sport\": %u, \"opcode\": \"%s\", \"se\": %d, "
				   "\"migreq\": 1, \"pkey\": 65535, \"dqpn\": %u, \"ackreq\": %d, \"psn\": %u",
				p.tos, p.ttl, p.sport, op->name, p.se, p.dqpn, p.ackreq, p.psn);
			if (op->hdrs & ROCE_RETH)
				fprintf(j, ", \"reth_va\": %" PRIu64 ", \"reth_rkey\": %u, \"reth_len\": %u",
					p.reth.va, p.reth.rkey, p.reth.len);
			if (op->hdrs & ROCE_AETH)
				fprintf(j, ", \"aeth_syndrome\": %u, \"aeth_msn\": %u", p.aeth.syndrome,
					p.aeth.msn);
			if (op->hdrs & ROCE_IMMDT)
				fprintf(j, ", \"imm\": %u", p.imm);
			if (op->hdrs & ROCE_ATMETH)
				fprintf(j, ", \"atmeth_va\": %" PRIu64 ", \"atmeth_rkey\": %u, "
					   "\"atmeth_swap_add\": %" PRIu64 ", \"atmeth_compare\": %" PRIu64,
					p.atmeth.va, p.atmeth.rkey, p.atmeth.swap_add, p.atmeth.compare);
			if (op->hdrs & ROCE_ATMACK)
				fprintf(j, ", \"atmack_orig\": %" PRIu64, p.atmack_orig);
			if (op->hdrs & ROCE_DETH)
				fprintf(j, ", \"deth_qkey\": %u, \"deth_src_qp\": %u", p.deth.qkey,
					p.deth.src_qp);
			fprintf(j, ", \"payload\": \"");
			for (uint32_t i = 0; i < len; i++)
				fprintf(j, "%02x", pay[i]);
			fprintf(j, "\"}");
		}
	}
	fprintf(j, "\n]\n");
	if (fclose(j) || pcap_writer_close(w)) {
		perror("codec_pcap: close");
		return 1;
	}
	fprintf(stderr, "codec_pcap: %u frames\n", n);
	return 0;
}
