// SPDX-License-Identifier: MIT
/*
 * Protection domains and memory regions.
 *
 * ibv_reg_mr maps the application's buffer in the device IOMMU (read-only
 * for the device unless the region is writable: IBV_ACCESS_LOCAL_WRITE,
 * which every remote-write/atomic region must have) and registers it with
 * MR.REG: ADDR/LENGTH in the key address space (addr, or iova for
 * ibv_reg_mr_iova*), DMA_ADDR the IOVA of the first byte.
 *
 * Access flags, as libibverbs and the kernel treat them: the optional range
 * (IBV_ACCESS_RELAXED_ORDERING and up) is dropped when the device does not
 * support it; IBV_ACCESS_HUGETLB is a hint; anything else this device does
 * not do (MW_BIND, ZERO_BASED, ON_DEMAND, ...) fails with EINVAL
 * (EOPNOTSUPP for ON_DEMAND, as the kernel answers without ODP).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hostmem.h"
#include "hw.h"
#include "shim.h"

/* <infiniband/verbs.h> wraps these in macros; we define the real symbols. */
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	struct shim_context *c = to_sctx(context);
	struct shim_pd *pd = calloc(1, sizeof(*pd));
	struct hca_cmd cmd;
	int ret;

	if (!pd)
		return shim_null(ENOMEM);
	hca_cmd_init(&cmd, HCA_OBJ_PD, HCA_METHOD_PD_ALLOC, c->handle);
	hca_cmd_idr_new(&cmd, HCA_ATTR_PD_ALLOC_HANDLE, &pd->pd.handle);
	hca_cmd_out(&cmd, HCA_ATTR_PD_ALLOC_PDN, &pd->pdn, sizeof(pd->pdn));
	ret = shim_cmd_exec(c->dev, &cmd);
	if (ret) {
		free(pd);
		return shim_null(ret);
	}
	pd->pd.context = context;
	return &pd->pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	struct shim_context *c = to_sctx(pd->context);
	struct hca_cmd cmd;
	int ret;

	hca_cmd_init(&cmd, HCA_OBJ_PD, HCA_METHOD_PD_FREE, c->handle);
	hca_cmd_idr(&cmd, HCA_ATTR_PD_FREE_HANDLE, pd->handle);
	ret = shim_cmd_exec(c->dev, &cmd);
	if (ret)
		return shim_errno(ret);	/* EBUSY while MRs, QPs or SRQs use it */
	free(to_spd(pd));
	return 0;
}

#define MR_DEVICE_ACCESS \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
	 IBV_ACCESS_REMOTE_ATOMIC)

static struct ibv_mr *reg_mr(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
			     unsigned int access)
{
	struct shim_context *c;
	struct shim_mr *mr;
	struct hca_cmd cmd;
	uint64_t len64 = length;
	unsigned int perm;
	int ret;

	if (!pd)
		return shim_null(EINVAL);
	c = to_sctx(pd->context);
	access &= ~(unsigned int)(IBV_ACCESS_OPTIONAL_RANGE | IBV_ACCESS_HUGETLB);
	if (access & IBV_ACCESS_ON_DEMAND)
		return shim_null(EOPNOTSUPP);
	if (access & ~(unsigned int)MR_DEVICE_ACCESS)
		return shim_null(EINVAL);
	/* The kernel's ib_check_mr_access: remote write/atomic need local write. */
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE))
		return shim_null(EINVAL);
	if (!length || !addr || iova + length < iova || (uintptr_t)addr + length < (uintptr_t)addr)
		return shim_null(EINVAL);

	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return shim_null(ENOMEM);
	perm = HOSTMEM_READ | ((access & IBV_ACCESS_LOCAL_WRITE) ? HOSTMEM_WRITE : 0);
	ret = shim_bus_dma_map(c->dev->bus, addr, length, perm, &mr->dma_iova);
	if (ret) {
		free(mr);
		return shim_null(-ret);
	}
	mr->mapped = 1;
	hca_cmd_init(&cmd, HCA_OBJ_MR, HCA_METHOD_MR_REG, c->handle);
	hca_cmd_idr_new(&cmd, HCA_ATTR_MR_REG_HANDLE, &mr->mr.handle);
	hca_cmd_idr(&cmd, HCA_ATTR_MR_REG_PD, pd->handle);
	hca_cmd_in(&cmd, HCA_ATTR_MR_REG_ADDR, &iova, sizeof(iova));
	hca_cmd_in(&cmd, HCA_ATTR_MR_REG_LENGTH, &len64, sizeof(len64));
	hca_cmd_in(&cmd, HCA_ATTR_MR_REG_DMA_ADDR, &mr->dma_iova, sizeof(mr->dma_iova));
	hca_cmd_in(&cmd, HCA_ATTR_MR_REG_ACCESS, &access, sizeof(access));
	hca_cmd_out(&cmd, HCA_ATTR_MR_REG_LKEY, &mr->mr.lkey, sizeof(mr->mr.lkey));
	hca_cmd_out(&cmd, HCA_ATTR_MR_REG_RKEY, &mr->mr.rkey, sizeof(mr->mr.rkey));
	ret = shim_cmd_exec(c->dev, &cmd);
	if (ret) {
		shim_bus_dma_unmap(c->dev->bus, mr->dma_iova);
		free(mr);
		return shim_null(ret);
	}
	mr->mr.context = pd->context;
	mr->mr.pd = pd;
	mr->mr.addr = addr;
	mr->mr.length = length;
	return &mr->mr;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return reg_mr(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
}

struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
			       int access)
{
	return reg_mr(pd, addr, length, iova, (unsigned int)access);
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
				unsigned int access)
{
	return reg_mr(pd, addr, length, iova, access);
}

struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova,
				 int fd, int access)
{
	(void)pd; (void)offset; (void)length; (void)iova; (void)fd; (void)access;
	return shim_null(EOPNOTSUPP);
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	struct shim_context *c = to_sctx(mr->context);
	struct shim_mr *smr = to_smr(mr);
	struct hca_cmd cmd;
	int ret;

	hca_cmd_init(&cmd, HCA_OBJ_MR, HCA_METHOD_MR_DEREG, c->handle);
	hca_cmd_idr(&cmd, HCA_ATTR_MR_DEREG_HANDLE, mr->handle);
	ret = shim_cmd_exec(c->dev, &cmd);
	if (ret)
		return shim_errno(ret);
	/* Unmap only after the device forgot the key: no access can race the unmap. */
	if (smr->mapped)
		shim_bus_dma_unmap(c->dev->bus, smr->dma_iova);
	free(smr);
	return 0;
}

int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length,
		 int access)
{
	(void)mr; (void)flags; (void)pd; (void)addr; (void)length; (void)access;
	errno = EOPNOTSUPP;
	return IBV_REREG_MR_ERR_INPUT;
}
