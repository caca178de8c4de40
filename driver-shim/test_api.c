// SPDX-License-Identifier: MIT
/* hcasim_shim_* extensions for tests: see hcasim_shim.h. */
#include <errno.h>

#include "hcasim_shim.h"
#include "hostmem.h"
#include "shim.h"

uint64_t hcasim_shim_dma_faults(struct ibv_context *ctx, struct hcasim_dma_fault *last)
{
	struct shim_device *d = to_sctx(ctx)->dev;
	struct hostmem_fault f;
	uint64_t n = shim_bus_dma_faults(d->bus);

	if (last) {
		*last = (struct hcasim_dma_fault){ 0 };
		if (n && !shim_bus_dma_fault(d->bus, 0, &f)) {
			last->iova = f.iova;
			last->len = f.len;
			last->write = f.write;
		}
	}
	return n;
}

int hcasim_shim_unmap_mr(struct ibv_mr *mr)
{
	struct shim_mr *smr = to_smr(mr);
	struct shim_device *d = to_sctx(mr->context)->dev;

	if (!smr->mapped)
		return ENOENT;
	if (shim_bus_dma_unmap(d->bus, smr->dma_iova))
		return ENOENT;
	smr->mapped = 0;
	return 0;
}

uint64_t hcasim_shim_now(struct ibv_context *ctx)
{
	return shim_bus_now(to_sctx(ctx)->dev->bus);
}

/* ---- state dump (debugging) ------------------------------------------------------------ */

#include <stdio.h>

#include "device.h"

static int ctx_read(struct shim_device *d, unsigned int type, uint32_t idx, void *buf, size_t len)
{
	struct hca_dev *dev = shim_bus_dev(d->bus);
	int ret;

	if (!hca_device_is_ours(dev))
		return -ENODEV;
	/* Management-port access behind the firmware: only between steps. */
	shim_bus_lock(d->bus);
	ret = hca_device_ctx_read(dev, type, idx, buf, len);
	shim_bus_unlock(d->bus);
	return ret;
}

void hcasim_shim_dump(struct ibv_context *ctx, FILE *out)
{
	struct shim_context *c = to_sctx(ctx);
	struct shim_device *d = c->dev;
	struct hca_eqc eqc;
	uint32_t st = shim_bus_read32(d->bus, HCA_INIT_STATUS);

	fprintf(out, "%s: cycle %llu, STATUS 0x%x, SYNDROME 0x%x, DMA faults %llu\n", d->cfg.name,
		(unsigned long long)shim_bus_now(d->bus), st,
		shim_bus_read32(d->bus, HCA_INIT_SYNDROME),
		(unsigned long long)shim_bus_dma_faults(d->bus));
	if (!ctx_read(d, HCA_CTX_TYPE_EQC, c->eq.eqn, &eqc, sizeof(eqc)))
		fprintf(out, "  EQ %u (vector %u): device pi %u ci %u armed %u; driver ci %u\n",
			c->eq.eqn, c->eq.vector, eqc.pi, eqc.ci, eqc.armed, c->eq.ci);
	pthread_mutex_lock(&c->lock);
	for (unsigned int i = 0; i < SHIM_MAX_CQN; i++) {
		struct shim_cq *cq = c->cq_by_num[i];
		struct hca_cqc cqc;

		if (!cq || ctx_read(d, HCA_CTX_TYPE_CQC, i, &cqc, sizeof(cqc)))
			continue;
		fprintf(out, "  CQ %u: device pi %u ci %u arm %u error %u; driver ci %u, %u events out, "
			"%u acked\n", i, cqc.pi, cqc.ci, cqc.arm, cqc.error, cq->ci, cq->comp_events,
			cq->cq.comp_events_completed);
	}
	for (unsigned int i = 0; i < SHIM_MAX_QPN; i++) {
		struct shim_qp *qp = c->qp_by_num[i];
		struct hca_qpc qpc;

		if (!qp || ctx_read(d, HCA_CTX_TYPE_QPC, i, &qpc, sizeof(qpc)))
			continue;
		fprintf(out, "  QP %u (%s): state %u, sq pi %u ci %u (driver %u/%u), rq pi %u ci %u "
			"(driver %u/%u), next psn 0x%x, expected psn 0x%x, msn %u\n", i,
			qp->type == IBV_QPT_RC ? "RC" : qp->type == IBV_QPT_UC ? "UC" : "UD",
			qpc.cur_state, qpc.sq_pi, qpc.sq_ci, qp->sq.pi, atomic_load(&qp->sq.ci), qpc.rq_pi,
			qpc.rq_ci, qp->rq.pi, atomic_load(&qp->rq.ci), qpc.sq_psn_next,
			qpc.rq_psn_expected, qpc.msn);
	}
	pthread_mutex_unlock(&c->lock);
}
