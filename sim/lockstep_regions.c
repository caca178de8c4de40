// SPDX-License-Identifier: MIT
/*
 * DMA address classification from snooped context writes
 * (sim/lockstep_regions.h).
 */
#include <stdio.h>
#include <string.h>

#include "lockstep_regions.h"

void ls_regions_init(struct ls_regions *r)
{
	memset(r, 0, sizeof(*r));
	ls_regions_reset(r);
}

static void rebuild(struct ls_regions *r)
{
	r->nlive = 0;
	for (unsigned int i = 0; i < LS_NUM_CQ; i++)
		if (r->cq[i].valid)
			r->live[r->nlive++] = &r->cq[i];
	for (unsigned int i = 0; i < LS_NUM_EQ; i++)
		if (r->eq[i].valid)
			r->live[r->nlive++] = &r->eq[i];
	for (unsigned int i = 0; i < LS_NUM_MR; i++)
		if (r->mr[i].valid)
			r->live[r->nlive++] = &r->mr[i];
}

void ls_regions_reset(struct ls_regions *r)
{
	for (unsigned int i = 0; i < LS_NUM_CQ; i++)
		r->cq[i] = (struct ls_region){ .index = i, .kind = LS_RGN_CQ, .sid = -1 };
	for (unsigned int i = 0; i < LS_NUM_EQ; i++)
		r->eq[i] = (struct ls_region){ .index = i, .kind = LS_RGN_EQ, .sid = -1 };
	for (unsigned int i = 0; i < LS_NUM_MR; i++)
		r->mr[i] = (struct ls_region){ .index = i, .kind = LS_RGN_MR, .sid = -1 };
	r->nlive = 0;
}

static void set(struct ls_region *g, bool valid, uint64_t base, uint64_t len)
{
	if (len == 0 || base + len < base)
		valid = false;
	g->valid = valid;
	g->base = valid ? base : 0;
	g->len = valid ? len : 0;
}

void ls_regions_ctx_write(struct ls_regions *r, unsigned int type, uint32_t index, const uint8_t *ctx)
{
	switch (type) {
	case HCA_CTX_TYPE_CQC: {
		struct hca_cqc c;

		if (index >= LS_NUM_CQ)
			return;
		memcpy(&c, ctx, sizeof(c));
		set(&r->cq[index], c.valid, c.base, (uint64_t)HCA_CQE_SIZE << (c.log_size & 31));
		break;
	}
	case HCA_CTX_TYPE_EQC: {
		struct hca_eqc c;

		if (index >= LS_NUM_EQ)
			return;
		memcpy(&c, ctx, sizeof(c));
		set(&r->eq[index], c.valid, c.base, (uint64_t)HCA_EQE_SIZE << (c.log_size & 31));
		break;
	}
	case HCA_CTX_TYPE_MRC: {
		struct hca_mrc c;

		if (index >= LS_NUM_MR)
			return;
		memcpy(&c, ctx, sizeof(c));
		set(&r->mr[index], c.valid, c.dma_addr, c.length);
		break;
	}
	default:
		return;
	}
	rebuild(r);
}

struct ls_region *ls_regions_find(struct ls_regions *r, uint64_t addr, size_t len, size_t *piece)
{
	uint64_t next = UINT64_MAX;

	for (unsigned int i = 0; i < r->nlive; i++) {
		struct ls_region *g = r->live[i];

		if (addr >= g->base && addr - g->base < g->len) {
			uint64_t room = g->len - (addr - g->base);

			*piece = room < len ? (size_t)room : len;
			return g;
		}
		if (g->base > addr && g->base < next)
			next = g->base;
	}
	*piece = next - addr < len ? (size_t)(next - addr) : len;
	return NULL;
}

void ls_region_name(const struct ls_region *g, char *buf, size_t n)
{
	static const char *const k[] = { "cq", "eq", "mr" };

	snprintf(buf, n, "%s%u", g->kind < LS_RGN_KINDS ? k[g->kind] : "?", g->index);
}

void ls_regions_snoop_mgmt(struct ls_regions *r, const struct hca_engine_ops *ops, struct hca_engine *e,
			   uint32_t addr, uint32_t value)
{
	uint32_t w[HCA_MGMT_CTX_DATA_WORDS];

	if (addr == HCA_MGMT_ENGINE_CTRL && (value & HCA_MGMT_ENGINE_CTRL_RESET_MASK)) {
		ls_regions_reset(r);
		return;
	}
	if (addr != HCA_MGMT_CTX_CMD || HCA_FIELD_GET(value, HCA_MGMT_CTX_CMD_OP) != HCA_CTX_OP_WRITE)
		return;
	if (ops->mgmt_read(e, HCA_MGMT_CTX_STATUS) != HCA_MGMT_STATUS_OK)
		return;
	for (unsigned int i = 0; i < HCA_MGMT_CTX_DATA_WORDS; i++)
		w[i] = ops->mgmt_read(e, HCA_MGMT_CTX_DATA + 4 * i);
	ls_regions_ctx_write(r, (unsigned int)HCA_FIELD_GET(value, HCA_MGMT_CTX_CMD_TYPE),
			     (uint32_t)HCA_FIELD_GET(value, HCA_MGMT_CTX_CMD_INDEX), (const uint8_t *)w);
}
