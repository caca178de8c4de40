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
