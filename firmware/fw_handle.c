// SPDX-License-Identifier: MIT
#include <string.h>

#include "hcasim/hca_spec.h"
#include "fw_handle.h"

void fw_htable_init(struct fw_htable *t, struct fw_hslot *slots, uint16_t cap, uint16_t *gen)
{
	t->slots = slots;
	t->cap = cap;
	t->gen = gen;
	fw_htable_clear(t);
}

void fw_htable_clear(struct fw_htable *t)
{
	t->used = 0;
	t->hint = 0;
	t->hwm = 0;
}

static struct fw_hslot *slot_of(const struct fw_htable *t, uint32_t handle)
{
	uint16_t s = FW_HANDLE_SLOT(handle);

	if (s >= t->hwm)
		return NULL;
	return &t->slots[s];
}

int fw_handle_reserve(struct fw_htable *t, uint16_t type, uint32_t *handle)
{
	uint16_t s;
	struct fw_hslot *e;

	for (s = t->hint; s < t->hwm; s++)
		if (t->slots[s].state == FW_HSLOT_FREE)
			break;
	if (s == t->hwm) {
		if (t->hwm >= t->cap)
			return -HCA_ENOMEM;
		/* First use of this slot since the table was cleared. */
		memset(&t->slots[s], 0, sizeof(t->slots[s]));
		t->hwm++;
	}
	e = &t->slots[s];
	if (++*t->gen == 0)
		*t->gen = 1;
	/* A slot never gets its previous generation back straight away. */
	if (*t->gen == e->gen && ++*t->gen == 0)
		*t->gen = 1;
	e->gen = *t->gen;
	e->state = FW_HSLOT_RESERVED;
	e->type = type;
	e->index = 0;
	t->used++;
	t->hint = (uint16_t)(s + 1);
	*handle = FW_HANDLE(s, e->gen);
	return 0;
}

void fw_handle_commit(struct fw_htable *t, uint32_t handle, uint16_t index)
{
	struct fw_hslot *e = slot_of(t, handle);

	if (e && e->state == FW_HSLOT_RESERVED && e->gen == FW_HANDLE_GEN(handle)) {
		e->index = index;
		e->state = FW_HSLOT_LIVE;
	}
}

void fw_handle_release(struct fw_htable *t, uint32_t handle)
{
	struct fw_hslot *e = slot_of(t, handle);
	uint16_t s = FW_HANDLE_SLOT(handle);

	if (!e || e->state == FW_HSLOT_FREE || e->gen != FW_HANDLE_GEN(handle))
		return;
	e->state = FW_HSLOT_FREE;	/* lookups need LIVE: the handle is dead */
	t->used--;
	if (s < t->hint)
		t->hint = s;
}

int fw_handle_lookup(const struct fw_htable *t, uint32_t handle, uint16_t type, uint16_t *index)
{
	const struct fw_hslot *e = slot_of(t, handle);

	if (!e || e->state != FW_HSLOT_LIVE || e->gen != FW_HANDLE_GEN(handle) || e->type != type)
		return -HCA_EINVAL;
	*index = e->index;
	return 0;
}
