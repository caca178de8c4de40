// SPDX-License-Identifier: MIT
/* MR methods (docs/programming.md 4.5). */
#include <string.h>

#include "fw_handlers.h"

#define MR_ACCESS_ALL (HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE | \
		       HCA_ACCESS_REMOTE_READ | HCA_ACCESS_REMOTE_ATOMIC)

int fw_h_MR_REG(struct hca_fw *fw, struct fw_bundle *b)
{
	uint16_t pdn = (uint16_t)fw_idr(b, HCA_ATTR_MR_REG_PD);
	uint64_t addr = fw_in_u64(b, HCA_ATTR_MR_REG_ADDR);
	uint64_t length = fw_in_u64(b, HCA_ATTR_MR_REG_LENGTH);
	uint64_t dma = fw_in_u64(b, HCA_ATTR_MR_REG_DMA_ADDR);
	uint32_t access = fw_in_u32(b, HCA_ATTR_MR_REG_ACCESS);
	struct hca_mrc mrc;
	struct fw_mr *mr;
	uint32_t key;
	int idx;

	if (access & ~MR_ACCESS_ALL)
		return fw_fail(b, HCA_ATTR_MR_REG_ACCESS, HCA_CMD_SYND_HANDLER, HCA_EINVAL);
	/* As verbs: remote write or atomic needs local write. */
	if ((access & (HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & HCA_ACCESS_LOCAL_WRITE))
		return fw_fail(b, HCA_ATTR_MR_REG_ACCESS, HCA_CMD_SYND_HANDLER, HCA_EINVAL);
	if (!length || addr + length < addr || addr + length == 0)
		return fw_fail(b, HCA_ATTR_MR_REG_LENGTH, HCA_CMD_SYND_HANDLER, HCA_EINVAL);
	if (dma + length < dma || dma + length == 0)
		return fw_fail(b, HCA_ATTR_MR_REG_DMA_ADDR, HCA_CMD_SYND_HANDLER, HCA_EINVAL);
	idx = fw_obj_alloc(fw, HCA_OBJ_MR);
	if (idx < 0)
		return HCA_ENOMEM;
	/* A new key byte each time the index is reused: old keys go stale. */
	key = (uint8_t)(fw->s.mr_key[idx] + 1);

	memset(&mrc, 0, sizeof(mrc));
	mrc.valid = 1;
	mrc.key = (uint8_t)key;
	mrc.access = (uint16_t)access;
	mrc.pdn = pdn;
	mrc.va = addr;
	mrc.length = length;
	mrc.dma_addr = dma;
	if (fw_ctx_write(fw, HCA_CTX_TYPE_MRC, (uint32_t)idx, &mrc, sizeof(mrc)))
		return HCA_EIO;
	fw->s.mr_key[idx] = (uint8_t)key;
	mr = &fw->s.mr[idx];
	memset(mr, 0, sizeof(*mr));
	fw_obj_init(&mr->h, b);
	mr->pd = pdn;
	mr->access = (uint16_t)access;
	mr->addr = addr;
	mr->length = length;
	mr->dma_addr = dma;
	fw->s.pd[pdn].h.refcnt++;
	fw_set_new(b, (uint16_t)idx);
	key |= (uint32_t)idx << 8;
	fw_out(b, HCA_ATTR_MR_REG_LKEY, &key, sizeof(key));
	fw_out(b, HCA_ATTR_MR_REG_RKEY, &key, sizeof(key));
	return 0;
}

int fw_mr_destroy(struct hca_fw *fw, uint16_t idx, int force)
{
	struct fw_mr *mr = &fw->s.mr[idx];
	struct hca_mrc mrc;

	if (mr->h.refcnt && !force)
		return HCA_EBUSY;
	memset(&mrc, 0, sizeof(mrc));
	if (fw_ctx_write(fw, HCA_CTX_TYPE_MRC, idx, &mrc, sizeof(mrc)) && !force)
		return HCA_EIO;
	fw->s.pd[mr->pd].h.refcnt--;
	memset(mr, 0, sizeof(*mr));
	return 0;
}

int fw_h_MR_DEREG(struct hca_fw *fw, struct fw_bundle *b)
{
	(void)fw;
	(void)b;
	return 0;
}
