// SPDX-License-Identifier: MIT
/* CONTEXT and PD methods. */
#include <string.h>

#include "fw_handlers.h"

/* Doorbell pages are handed out from 1 up: page 0 is never a context's, so
 * an engine context whose uar field was left zero matches no live page. */
int fw_h_CONTEXT_ALLOC(struct hca_fw *fw, struct fw_bundle *b)
{
	uint16_t slot = FW_HANDLE_SLOT(b->new_handle);
	struct fw_ctx *c = fw_ctx_of(fw, slot);
	uint32_t uar;

	for (uar = 1; uar < fw->s.caps.n_uar; uar++)
		if (!fw->s.uar_used[uar])
			break;
	if (uar >= fw->s.caps.n_uar)
		return HCA_ENOMEM;
	fw->s.uar_used[uar] = 1;
	c->uar = (uint16_t)uar;
	c->live = 1;
	c->handle = 0;
	fw_htable_clear(&c->ht);
	fw_set_new(b, slot);
	fw_out(b, HCA_ATTR_CONTEXT_ALLOC_UAR_INDEX, &uar, sizeof(uar));
	return 0;
}

/* The core destroyed the context before calling this (as uverbs). */
int fw_h_CONTEXT_FREE(struct hca_fw *fw, struct fw_bundle *b)
{
	(void)fw;
	(void)b;
	return 0;
}

int fw_h_PD_ALLOC(struct hca_fw *fw, struct fw_bundle *b)
{
	int pdn = fw_obj_alloc(fw, HCA_OBJ_PD);
	uint32_t v;

	if (pdn < 0)
		return HCA_ENOMEM;
	fw_obj_init(&fw->s.pd[pdn].h, b);
	fw_set_new(b, (uint16_t)pdn);
	v = (uint32_t)pdn;
	fw_out(b, HCA_ATTR_PD_ALLOC_PDN, &v, sizeof(v));
	return 0;
}

int fw_pd_destroy(struct hca_fw *fw, uint16_t pdn, int force)
{
	struct fw_pd *pd = &fw->s.pd[pdn];

	if (pd->h.refcnt && !force)
		return HCA_EBUSY;
	memset(pd, 0, sizeof(*pd));
	return 0;
}

int fw_h_PD_FREE(struct hca_fw *fw, struct fw_bundle *b)
{
	(void)fw;
	(void)b;
	return 0;
}
