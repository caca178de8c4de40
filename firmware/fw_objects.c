// SPDX-License-Identifier: MIT
/* Object pools: generic access, allocation and destruction by type. */
#include "fw_priv.h"

struct fw_obj_hdr *fw_obj(struct hca_fw *fw, uint16_t type, uint32_t index)
{
	struct fw_state *s = &fw->s;

	switch (type) {
	case HCA_OBJ_PD:
		return index < s->caps.n_pd ? &s->pd[index].h : NULL;
	case HCA_OBJ_MR:
		return index < s->caps.n_mr ? &s->mr[index].h : NULL;
	case HCA_OBJ_CQ:
		return index < s->caps.n_cq ? &s->cq[index].h : NULL;
	case HCA_OBJ_QP:
		return index < s->caps.n_qp ? &s->qp[index].h : NULL;
	case HCA_OBJ_SRQ:
		return index < s->caps.n_srq ? &s->srq[index].h : NULL;
	case HCA_OBJ_EQ:
		return index < s->caps.n_eq ? &s->eq[index].h : NULL;
	default:
		return NULL;
	}
}

/* Index 0 is reserved in every table (no QPN 0, CQN 0, ...; EQN 0 and
 * PDN 0 mean "none" in contexts). */
#define FIRST_INDEX 1

/* QPN 1 is the GSI QP: it lives and dies like any QP, but only QP.CREATE of
 * type GSI places it (fw_qp.c); allocation hands out the QPNs after it. */
static uint32_t first_alloc_index(uint16_t type)
{
	return type == HCA_OBJ_QP ? HCA_QPN_GSI + 1 : FIRST_INDEX;
}

uint32_t fw_pool_size(const struct fw_caps *c, uint16_t type)
{
	switch (type) {
	case HCA_OBJ_PD: return c->n_pd;
	case HCA_OBJ_MR: return c->n_mr;
	case HCA_OBJ_CQ: return c->n_cq;
	case HCA_OBJ_QP: return c->n_qp;
	case HCA_OBJ_SRQ: return c->n_srq;
	case HCA_OBJ_EQ: return c->n_eq;
	default: return 0;
	}
}

int fw_obj_alloc(struct hca_fw *fw, uint16_t type)
{
	uint32_t n = fw_pool_size(&fw->s.caps, type);

	for (uint32_t i = first_alloc_index(type); i < n; i++) {
		struct fw_obj_hdr *h = fw_obj(fw, type, i);
		if (h && !h->live)
			return (int)i;
	}
	return -1;
}

int fw_obj_destroy(struct hca_fw *fw, uint16_t type, uint16_t index, int force)
{
	switch (type) {
	case HCA_OBJ_PD: return fw_pd_destroy(fw, index, force);
	case HCA_OBJ_MR: return fw_mr_destroy(fw, index, force);
	case HCA_OBJ_CQ: return fw_cq_destroy(fw, index, force);
	case HCA_OBJ_QP: return fw_qp_destroy(fw, index, force);
	case HCA_OBJ_SRQ: return fw_srq_destroy(fw, index, force);
	case HCA_OBJ_EQ: return fw_eq_destroy(fw, index, force);
	default: return HCA_EINVAL;
	}
}

struct fw_ctx *fw_ctx_of(struct hca_fw *fw, uint16_t slot)
{
	return &fw->s.ctx[slot];
}

int fw_ctx_lookup(struct hca_fw *fw, uint32_t handle)
{
	uint16_t slot;

	if (fw_handle_lookup(&fw->s.ctx_ht, handle, HCA_OBJ_CONTEXT, &slot))
		return -1;
	return slot;
}

/*
 * Destroy everything a context owns, in dependency order (QPs, SRQs, CQs,
 * MRs, EQs, PDs -- as the kernel does when the process exits), free its
 * doorbell page and its handle.
 */
void fw_ctx_teardown(struct hca_fw *fw, uint16_t slot)
{
	static const uint16_t order[] = { HCA_OBJ_QP, HCA_OBJ_SRQ, HCA_OBJ_CQ,
					  HCA_OBJ_MR, HCA_OBJ_EQ, HCA_OBJ_PD };
	struct fw_ctx *c = fw_ctx_of(fw, slot);

	for (unsigned int t = 0; t < FW_ARRAY_SIZE(order); t++) {
		uint32_t n = fw_pool_size(&fw->s.caps, order[t]);
		for (uint32_t i = FIRST_INDEX; i < n; i++) {
			struct fw_obj_hdr *h = fw_obj(fw, order[t], i);
			uint32_t handle;

			if (!h->live || h->ctx != slot)
				continue;
			handle = h->handle;
			fw_obj_destroy(fw, order[t], (uint16_t)i, 1);
			fw_handle_release(&c->ht, handle);
		}
	}
	if (c->uar < FW_MAX_UAR)
		fw->s.uar_used[c->uar] = 0;
	/* The context's handle -- reserved or live -- becomes invalid. */
	fw_handle_release(&fw->s.ctx_ht, FW_HANDLE(slot, fw->s.ctx_slots[slot].gen));
	fw_htable_clear(&c->ht);
	c->live = 0;
	c->handle = 0;
}
