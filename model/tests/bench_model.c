// SPDX-License-Identifier: MIT
/*
 * make bench (bench-model): how fast the model simulates RDMA WRITE between
 * two engines on a lossless wire -- messages and payload bytes per wall
 * second for 64 B and 64 KiB messages (MTU 4096, 32 WQEs outstanding, every
 * WQE signaled, CQ polled by the driver side).  The simulated time is
 * printed too; the model is untimed and the wire has latency but no
 * bandwidth, so it is not a link-rate figure.
 *
 *   bench_model [--seconds S]   (time budget per size, default 2)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model.h"
#include "tb.h"

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int run(uint32_t size, double budget)
{
	struct tb_qp_attr at;
	struct tb *tb = tb_create(NULL);
	struct tb_node *a, *b;
	struct tb_cq *ca, *cb;
	struct tb_qp *qa, *qb;
	struct tb_mr *ma, *mb;
	struct tb_sge s;
	struct tb_send_wr wr;
	uint64_t done = 0, posted = 0, cyc0;
	double t0, t;
	struct hca_cqe c;

	if (!tb)
		return 1;
	a = tb_node(tb, 0);
	b = tb_node(tb, 1);
	ca = tb_cq_create(a, 10, NULL);
	cb = tb_cq_create(b, 10, NULL);
	qa = tb_qp_create(a, HCA_QPT_RC, tb_pd_alloc(a), ca, ca, NULL, &(struct tb_qp_cap){ .max_send_wr = 64 });
	qb = tb_qp_create(b, HCA_QPT_RC, tb_pd_alloc(b), cb, cb, NULL, NULL);
	ma = tb_mr_reg(a, qa->qpc.pdn, size, HCA_ACCESS_LOCAL_WRITE);
	mb = tb_mr_reg(b, qb->qpc.pdn, size, HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE);
	tb_qp_attr_default(&at);
	at.path_mtu = HCA_MTU_4096;
	tb_connect_pair(qa, qb, &at);
	memset(ma->buf, 0x5a, size);
	s = (struct tb_sge){ ma->va, size, ma->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.opcode = HCA_WR_RDMA_WRITE;
	wr.flags = HCA_SEND_SIGNALED;
	wr.sge = &s;
	wr.num_sge = 1;
	wr.raddr = mb->va;
	wr.rkey = mb->rkey;
	cyc0 = tb_now(tb);
	t0 = now_s();
	for (;;) {
		while (posted - done < 32) {
			tb_post_send(qa, &wr);
			posted++;
		}
		if (!tb_step(tb, UINT64_MAX - 1))
			break;
		while (tb_cq_poll(ca, &c)) {
			if (c.status) {
				fprintf(stderr, "bench: completion status %u\n", c.status);
				return 1;
			}
			done++;
		}
		if ((done & 255) == 0 && (t = now_s()) - t0 > budget)
			break;
	}
	t = now_s() - t0;
	printf("bench-model: RDMA WRITE %6u B: %9.0f msg/s  %8.1f MB/s payload  (%" PRIu64 " msgs in %.2f s wall, "
	       "%.3f ms simulated)\n", size, (double)done / t, (double)done * size / t / 1e6,
	       done, t, (double)(tb_now(tb) - cyc0) / 250000.0);
	free(ca);
	free(cb);
	free(qa);
	free(qb);
	free(ma);
	free(mb);
	tb_destroy(tb);
	return 0;
}

int main(int argc, char **argv)
{
	double budget = 2.0;

	if (argc == 3 && !strcmp(argv[1], "--seconds"))
		budget = atof(argv[2]);
	hca_model_engine_register();
	return run(64, budget) | run(65536, budget);
}
