// SPDX-License-Identifier: MIT
/*
 * make bench: codec and wire speed (optimised build, no sanitizers).
 *   CRC-32 throughput; roce_build + roce_parse round trips for 64 B, 1 KiB
 *   and 4 KiB payloads; wire send + deliver with faults.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../../sim/wire.h"
#include "../roce_hdr.h"
#include "hcasim/hca_spec.h"

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static unsigned long sink;

static void rx(void *ctx, unsigned int port, const uint8_t *f, size_t len, uint64_t now)
{
	(void)ctx;
	(void)port;
	(void)now;
	sink += f[len - 1];
}

int main(void)
{
	static uint8_t buf[4200], pay[4096];
	static const uint32_t lens[] = { 64, 1024, 4096 };
	double t0, dt;
	uint32_t crc = 0xffffffffu;

	for (size_t i = 0; i < sizeof(pay); i++)
		pay[i] = (uint8_t)(i * 7);
	t0 = now_s();
	for (int i = 0; i < 100000; i++)
		crc = roce_crc32_update(crc, pay, sizeof(pay));
	dt = now_s() - t0;
	printf("bench codec: crc32 %.0f MB/s (%s, %08x)\n", 100000.0 * sizeof(pay) / dt / 1e6,
	       roce_crc32_impl(), crc);
	crc = 0xffffffffu;
	t0 = now_s();
	for (int i = 0; i < 20000; i++)
		crc = roce_crc32_update_table(crc, pay, sizeof(pay));
	dt = now_s() - t0;
	printf("bench codec: crc32 %.0f MB/s (table, %08x)\n", 20000.0 * sizeof(pay) / dt / 1e6, crc);

	for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
		struct roce_pkt p, q;
		unsigned long n = 0, bad = 0;

		roce_pkt_init(&p, HCA_BTH_OP_RC_RDMA_WRITE_ONLY);
		t0 = now_s();
		do {
			for (int k = 0; k < 1000; k++, n++) {
				size_t fl;

				p.psn = (uint32_t)n;
				fl = roce_build(&p, pay, lens[li], buf, sizeof(buf));
				bad += roce_parse(buf, fl, &q) != ROCE_OK || q.psn != (n & 0xffffff);
			}
			dt = now_s() - t0;
		} while (dt < 0.5);
		printf("bench codec: build+parse %4u B payload: %.2f M frames/s, %.2f Gbit/s payload%s\n",
		       lens[li], (double)n / dt / 1e6, (double)n * lens[li] * 8 / dt / 1e9,
		       bad ? " (PARSE ERRORS)" : "");
	}

	{
		struct wire_config c = { .mode = WIRE_P2P, .latency = 100, .seed = 1,
					 .faults = { .drop = 0.05, .dup = 0.01, .reorder = 0.01,
						     .corrupt = 0.005, .jitter = 0.01 } };
		struct wire *w = wire_create(&c);
		struct roce_pkt p;
		size_t fl;
		unsigned long n = 0;
		uint64_t t = 0;

		if (!w)
			return 1;
		wire_attach(w, rx, NULL);
		wire_attach(w, rx, NULL);
		roce_pkt_init(&p, HCA_BTH_OP_RC_SEND_ONLY);
		fl = roce_build(&p, pay, 1024, buf, sizeof(buf));
		t0 = now_s();
		do {
			for (int k = 0; k < 1000; k++, n++) {
				wire_send(w, n & 1, buf, fl, t);
				t += 10;
				wire_deliver(w, t);
			}
			dt = now_s() - t0;
		} while (dt < 0.5);
		printf("bench wire: %.2f M frames/s (1 KiB frames, 5%% drop, faults on)\n", (double)n / dt / 1e6);
		wire_destroy(w);
	}
	return sink == 12345 ? 2 : 0;
}
