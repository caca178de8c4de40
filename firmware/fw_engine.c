// SPDX-License-Identifier: MIT
/* The firmware's only way to the engine: the management port (and DMA). */
#include "fw_priv.h"

uint32_t fw_mgmt_rd(struct hca_fw *fw, uint32_t addr)
{
	return fw->hal.mgmt_read(fw->hal.ctx, addr);
}

void fw_mgmt_wr(struct hca_fw *fw, uint32_t addr, uint32_t v)
{
	fw->hal.mgmt_write(fw->hal.ctx, addr, v);
}

uint32_t fw_init_rd(struct hca_fw *fw, uint32_t reg)
{
	return fw_mgmt_rd(fw, HCA_MGMT_INIT_WINDOW + reg);
}

void fw_init_wr(struct hca_fw *fw, uint32_t reg, uint32_t v)
{
	fw_mgmt_wr(fw, HCA_MGMT_INIT_WINDOW + reg, v);
}

static uint32_t ctx_cmd(unsigned int op, unsigned int type, uint32_t index)
{
	return HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_OP, op) | HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_TYPE, type) |
	       HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_INDEX, index);
}

/* Bytes of each context type that a write replaces (the rest is status). */
static size_t config_bytes(unsigned int type)
{
	switch (type) {
	case HCA_CTX_TYPE_QPC: return 0x80;
	case HCA_CTX_TYPE_CQC: case HCA_CTX_TYPE_SRQC: case HCA_CTX_TYPE_EQC: return 0x20;
	case HCA_CTX_TYPE_MRC: return HCA_MRC_SIZE;
	case HCA_CTX_TYPE_GIDC: return HCA_GIDC_SIZE;
	default: return 0;
	}
}

int fw_ctx_write(struct hca_fw *fw, unsigned int type, uint32_t index, const void *buf, size_t len)
{
	const uint8_t *p = (const uint8_t *)buf;

	/* Every configuration word of the context is written (status words are
	 * the engine's), so nothing left in the staging buffer from an earlier
	 * command leaks into this one. */
	if (len > config_bytes(type))
		len = config_bytes(type);
	for (size_t w = 0; w < len / 4; w++) {
		uint32_t v = (uint32_t)p[4 * w] | (uint32_t)p[4 * w + 1] << 8 |
			     (uint32_t)p[4 * w + 2] << 16 | (uint32_t)p[4 * w + 3] << 24;
		fw_mgmt_wr(fw, HCA_MGMT_CTX_DATA + 4 * (uint32_t)w, v);
	}
	fw_mgmt_wr(fw, HCA_MGMT_CTX_CMD, ctx_cmd(HCA_CTX_OP_WRITE, type, index));
	return fw_mgmt_rd(fw, HCA_MGMT_CTX_STATUS) == HCA_MGMT_STATUS_OK ? 0 : -HCA_EIO;
}

int fw_ctx_read(struct hca_fw *fw, unsigned int type, uint32_t index, void *buf, size_t len)
{
	uint8_t *p = (uint8_t *)buf;

	fw_mgmt_wr(fw, HCA_MGMT_CTX_CMD, ctx_cmd(HCA_CTX_OP_READ, type, index));
	if (fw_mgmt_rd(fw, HCA_MGMT_CTX_STATUS) != HCA_MGMT_STATUS_OK)
		return -HCA_EIO;
	for (size_t w = 0; w < len / 4; w++) {
		uint32_t v = fw_mgmt_rd(fw, HCA_MGMT_CTX_DATA + 4 * (uint32_t)w);
		p[4 * w] = (uint8_t)v;
		p[4 * w + 1] = (uint8_t)(v >> 8);
		p[4 * w + 2] = (uint8_t)(v >> 16);
		p[4 * w + 3] = (uint8_t)(v >> 24);
	}
	return 0;
}

uint32_t fw_eqe_inject(struct hca_fw *fw, uint32_t eqn, uint8_t type, uint8_t subtype,
		       uint32_t element, uint32_t data)
{
	uint32_t st;

	fw_mgmt_wr(fw, HCA_MGMT_EQE_INJ_EQN, eqn);
	fw_mgmt_wr(fw, HCA_MGMT_EQE_INJ_TYPE, HCA_FIELD_PREP(HCA_MGMT_EQE_INJ_TYPE_TYPE, type) |
				 HCA_FIELD_PREP(HCA_MGMT_EQE_INJ_TYPE_SUBTYPE, subtype));
	fw_mgmt_wr(fw, HCA_MGMT_EQE_INJ_ELEMENT, element);
	fw_mgmt_wr(fw, HCA_MGMT_EQE_INJ_DATA, data);
	fw_mgmt_wr(fw, HCA_MGMT_EQE_INJ_GO, 1);
	st = fw_mgmt_rd(fw, HCA_MGMT_EQE_INJ_STATUS);
	if (st == HCA_MGMT_STATUS_OK) {
		fw->stats.eqes++;
	} else {
		fw->stats.eqe_drops++;
		fw_log(fw, "eqe injection refused (eqn, status)", eqn, st);
	}
	return st;
}

uint64_t fw_now(struct hca_fw *fw)
{
	return fw->hal.now(fw->hal.ctx);
}

void fw_log(struct hca_fw *fw, const char *msg, uint32_t a, uint32_t b)
{
	if (fw->hal.log)
		fw->hal.log(fw->hal.ctx, msg, a, b);
}

int fw_dma_read(struct hca_fw *fw, uint64_t iova, void *buf, size_t len)
{
	if (!len)
		return 0;
	return fw->hal.dma_read(fw->hal.ctx, iova, buf, len) ? -HCA_EFAULT : 0;
}

int fw_dma_write(struct hca_fw *fw, uint64_t iova, const void *buf, size_t len)
{
	if (!len)
		return 0;
	return fw->hal.dma_write(fw->hal.ctx, iova, buf, len) ? -HCA_EFAULT : 0;
}
