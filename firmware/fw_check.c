// SPDX-License-Identifier: MIT
/*
 * Self-check of the firmware's bookkeeping: a test and fuzzing oracle.
 * Returns 0, or the number of the first rule that does not hold:
 *   1  a live object's owner context is not live
 *   2  a live object's handle does not resolve to it in its owner's table
 *   3  a reference count differs from the references that exist
 *   4  a live handle slot names a dead object, one of another context, or
 *      one whose handle is another
 *   5  a table's use count differs from its non-free slots
 *   6  a live context's doorbell page is not marked used, or is shared
 *   7  the command-done EQ is not a live EQ with HCA_EQ_MASK_CMD_DONE
 */
#include "fw.h"

static const uint16_t types[] = { HCA_OBJ_PD, HCA_OBJ_MR, HCA_OBJ_CQ, HCA_OBJ_QP, HCA_OBJ_SRQ,
				  HCA_OBJ_EQ };

/* fw_obj() without the const cast at every call. */
static const struct fw_obj_hdr *obj(const struct hca_fw *fw, uint16_t t, uint32_t i)
{
	return fw_obj((struct hca_fw *)fw, t, i);
}

static int refcounts_ok(const struct hca_fw *fw)
{
	const struct fw_state *s = &fw->s;

	for (uint32_t p = 1; p < s->caps.n_pd; p++) {
		uint32_t n = 0;
		if (!s->pd[p].h.live)
			continue;
		for (uint32_t i = 1; i < s->caps.n_mr; i++)
			n += s->mr[i].h.live && s->mr[i].pd == p;
		for (uint32_t i = 1; i < s->caps.n_qp; i++)
			n += s->qp[i].h.live && s->qp[i].pd == p;
		for (uint32_t i = 1; i < s->caps.n_srq; i++)
			n += s->srq[i].h.live && s->srq[i].pd == p;
		if (n != s->pd[p].h.refcnt)
			return 0;
	}
	for (uint32_t c = 1; c < s->caps.n_cq; c++) {
		uint32_t n = 0;
		if (!s->cq[c].h.live)
			continue;
		for (uint32_t i = 1; i < s->caps.n_qp; i++)
			n += s->qp[i].h.live ? (s->qp[i].scq == c) + (s->qp[i].rcq == c) : 0;
		if (n != s->cq[c].h.refcnt)
			return 0;
	}
	for (uint32_t q = 1; q < s->caps.n_srq; q++) {
		uint32_t n = 0;
		if (!s->srq[q].h.live)
			continue;
		for (uint32_t i = 1; i < s->caps.n_qp; i++)
			n += s->qp[i].h.live && s->qp[i].srq == q;
		if (n != s->srq[q].h.refcnt)
			return 0;
	}
	for (uint32_t e = 1; e < s->caps.n_eq; e++) {
		uint32_t n = 0;
		if (!s->eq[e].h.live)
			continue;
		for (uint32_t i = 1; i < s->caps.n_cq; i++)
			n += s->cq[i].h.live && s->cq[i].eq == e;
		if (n != s->eq[e].h.refcnt)
			return 0;
	}
	return 1;
}

static int table_used_ok(const struct fw_htable *t)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < t->hwm; i++)
		n += t->slots[i].state != FW_HSLOT_FREE;
	return n == t->used;
}

int hca_fw_check(const struct hca_fw *fw)
{
	const struct fw_state *s = &fw->s;

	for (unsigned int t = 0; t < FW_ARRAY_SIZE(types); t++) {
		for (uint32_t i = 0; i < fw_pool_size(&s->caps, types[t]); i++) {
			const struct fw_obj_hdr *h = obj(fw, types[t], i);
			uint16_t idx;
			if (!h->live)
				continue;
			if (h->ctx >= FW_MAX_CTX || !s->ctx[h->ctx].live)
				return 1;
			if (fw_handle_lookup(&s->ctx[h->ctx].ht, h->handle, types[t], &idx) || idx != i)
				return 2;
		}
	}
	if (!refcounts_ok(fw))
		return 3;
	for (uint16_t c = 0; c < FW_MAX_CTX; c++) {
		const struct fw_ctx *ctx = &s->ctx[c];
		if (!ctx->live)
			continue;
		for (uint32_t i = 0; i < ctx->ht.hwm; i++) {
			const struct fw_hslot *e = &ctx->ht.slots[i];
			const struct fw_obj_hdr *h;
			if (e->state != FW_HSLOT_LIVE)
				continue;
			h = obj(fw, e->type, e->index);
			if (!h || !h->live || h->ctx != c || h->handle != FW_HANDLE(i, e->gen))
				return 4;
		}
		if (!table_used_ok(&ctx->ht))
			return 5;
		if (ctx->uar >= FW_MAX_UAR || !s->uar_used[ctx->uar])
			return 6;
		for (uint16_t d = 0; d < c; d++)
			if (s->ctx[d].live && s->ctx[d].uar == ctx->uar)
				return 6;
	}
	if (!table_used_ok(&s->ctx_ht))
		return 5;
	if (s->cmd_eq && (s->cmd_eq >= s->caps.n_eq || !s->eq[s->cmd_eq].h.live ||
			  !(s->eq[s->cmd_eq].event_mask & HCA_EQ_MASK_CMD_DONE)))
		return 7;
	return 0;
}

unsigned int hca_fw_count(const struct hca_fw *fw, uint16_t type)
{
	unsigned int n = 0;

	if (type == HCA_OBJ_CONTEXT)
		return fw->s.ctx_ht.used;
	for (uint32_t i = 0; i < fw_pool_size(&fw->s.caps, type); i++)
		n += obj(fw, type, i)->live;
	return n;
}
