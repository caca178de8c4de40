// SPDX-License-Identifier: MIT
/*
 * make bench-fw: command throughput of the firmware on the model engine,
 * through sim/device and sim/devctl (host wall-clock time; device time per
 * command is what the firmware timing rule gives: docs/firmware.md).
 */
#include <stdio.h>
#include <time.h>

#include "fw_test.h"
#include "../../model/model.h"

static double secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	struct fwt t;
	uint32_t ctx, pd, cq, qp;
	struct hca_qp_init_attr ia;
	struct hca_qp_attr a;
	uint8_t ip[4] = { 10, 0, 0, 1 };
	const int n = 20000, nq = 2000;
	uint64_t c0;
	double t0, dt;

	hca_model_engine_register();
	if (fwt_open(&t, "model", NULL) || fwt_ctx_alloc(&t, &ctx, NULL) || fwt_set_gid(&t, 0, 0, ip) ||
	    fwt_cq_create(&t, ctx, 0, 6, &cq, NULL) || fwt_pd_alloc(&t, ctx, &pd, NULL)) {
		fprintf(stderr, "bench-fw: bring-up failed\n");
		return 1;
	}
	c0 = t.be.now(t.dev);
	t0 = secs();
	for (int i = 0; i < n; i++) {
		uint32_t p;
		if (fwt_pd_alloc(&t, ctx, &p, NULL) || fwt_destroy(&t, ctx, HCA_OBJ_PD, HCA_METHOD_PD_FREE, p))
			return 1;
	}
	dt = secs() - t0;
	printf("bench-fw: PD.ALLOC+PD.FREE: %.0f commands/s host, %.2f device cycles/command\n",
	       2 * n / dt, (double)(t.be.now(t.dev) - c0) / (2 * n));
	fwt_qp_init(&t, &ia, HCA_QPT_RC, 0);
	fwt_qp_attr_valid(&a);
	c0 = t.be.now(t.dev);
	t0 = secs();
	for (int i = 0; i < nq; i++) {
		if (fwt_qp_create(&t, ctx, pd, cq, cq, 0, &ia, &qp, NULL))
			return 1;
		a.qp_state = HCA_QPS_INIT;
		if (fwt_qp_modify(&t, ctx, qp, &a, HCA_QP_ATTR_STATE | HCA_QP_ATTR_PKEY_INDEX | HCA_QP_ATTR_PORT |
				  HCA_QP_ATTR_ACCESS_FLAGS))
			return 1;
		a.qp_state = HCA_QPS_RTR;
		if (fwt_qp_modify(&t, ctx, qp, &a, HCA_QP_ATTR_STATE | HCA_QP_ATTR_AV | HCA_QP_ATTR_PATH_MTU |
				  HCA_QP_ATTR_DEST_QPN | HCA_QP_ATTR_RQ_PSN | HCA_QP_ATTR_MAX_DEST_RD_ATOMIC |
				  HCA_QP_ATTR_MIN_RNR_TIMER))
			return 1;
		a.qp_state = HCA_QPS_RTS;
		if (fwt_qp_modify(&t, ctx, qp, &a, HCA_QP_ATTR_STATE | HCA_QP_ATTR_SQ_PSN | HCA_QP_ATTR_TIMEOUT |
				  HCA_QP_ATTR_RETRY_CNT | HCA_QP_ATTR_RNR_RETRY | HCA_QP_ATTR_MAX_QP_RD_ATOMIC))
			return 1;
		if (fwt_destroy(&t, ctx, HCA_OBJ_QP, HCA_METHOD_QP_DESTROY, qp))
			return 1;
	}
	dt = secs() - t0;
	printf("bench-fw: QP create+3 modify+destroy: %.0f QP lifecycles/s host, %.2f device cycles/command\n",
	       nq / dt, (double)(t.be.now(t.dev) - c0) / (5 * nq));
	fwt_close(&t);
	return 0;
}
