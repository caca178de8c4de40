// SPDX-License-Identifier: MIT
/*
 * DMA through the host (IOMMU) with fault accounting (docs/programming.md
 * section 3), memory-key checks (5.3) and SGE gather/scatter.
 */
#include <errno.h>
#include <string.h>

#include "model_int.h"

static void dma_fault(struct model *m, unsigned int client, uint64_t iova, bool write)
{
	model_stat(m, HCA_STAT_DMA_FAULT, 1);
	m->dma_fault_sticky = true;
	if (m->dma_fault_info & HCA_MGMT_DMA_FAULT_INFO_VALID_MASK)
		return;
	m->dma_fault_lo = (uint32_t)iova;
	m->dma_fault_hi = (uint32_t)(iova >> 32);
	m->dma_fault_info = HCA_MGMT_DMA_FAULT_INFO_VALID_MASK |
			    HCA_FIELD_PREP(HCA_MGMT_DMA_FAULT_INFO_CLIENT, client) |
			    (write ? HCA_MGMT_DMA_FAULT_INFO_WRITE_MASK : 0);
}

int model_dma_read(struct model *m, unsigned int client, uint64_t iova, void *buf, size_t len)
{
	if (len == 0)
		return 0;
	if (m->host.dma_read(m->host_ctx, iova, buf, len) != 0) {
		dma_fault(m, client, iova, false);
		return -EFAULT;
	}
	return 0;
}

int model_dma_write(struct model *m, unsigned int client, uint64_t iova, const void *buf, size_t len)
{
	if (len == 0)
		return 0;
	if (m->host.dma_write(m->host_ctx, iova, buf, len) != 0) {
		dma_fault(m, client, iova, true);
		return -EFAULT;
	}
	return 0;
}

int model_mr_check(struct model *m, uint32_t key, uint32_t pdn, uint32_t access,
		   uint64_t va, uint64_t len, uint64_t *iova)
{
	uint32_t idx = key >> 8;
	const struct hca_mrc *mr;
	uint64_t off;

	if (len == 0) {		/* a zero-length access touches nothing and needs no key */
		*iova = 0;
		return 0;
	}
	if (idx == 0 || idx >= MODEL_NUM_MR)
		return HCA_VENDOR_ERR_LKEY;
	mr = &m->mr[idx];
	if (!mr->valid || mr->key != (key & 0xff))
		return HCA_VENDOR_ERR_LKEY;
	if (mr->pdn != pdn)
		return HCA_VENDOR_ERR_PD;
	if ((mr->access & access) != access)
		return HCA_VENDOR_ERR_ACCESS;
	if (va < mr->va)
		return HCA_VENDOR_ERR_BOUNDS;
	off = va - mr->va;
	if (off > mr->length || len > mr->length - off)
		return HCA_VENDOR_ERR_BOUNDS;
	*iova = mr->dma_addr + off;
	return 0;
}

int model_sge_check(struct model *m, struct model_sge *sge, uint32_t pdn, uint32_t access)
{
	int r;

	if (sge->checked)
		return 0;
	r = model_mr_check(m, sge->lkey, pdn, access, sge->addr, sge->len, &sge->iova);
	if (r == 0)
		sge->checked = true;
	return r;
}

int model_sge_copy(struct model *m, struct model_sge *sge, unsigned int n, uint32_t off,
		   void *buf, uint32_t len, bool to_sge)
{
	uint8_t *p = buf;

	for (unsigned int i = 0; i < n && len; i++) {
		uint32_t chunk;
		int r;

		if (off >= sge[i].len) {
			off -= sge[i].len;
			continue;
		}
		chunk = sge[i].len - off;
		if (chunk > len)
			chunk = len;
		if (to_sge)
			r = model_dma_write(m, HCA_DMA_CLIENT_PAYLOAD, sge[i].iova + off, p, chunk);
		else
			r = model_dma_read(m, HCA_DMA_CLIENT_PAYLOAD, sge[i].iova + off, p, chunk);
		if (r)
			return r;
		p += chunk;
		len -= chunk;
		off = 0;
	}
	return len ? -EFAULT : 0;
}
