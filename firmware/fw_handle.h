/* SPDX-License-Identifier: MIT */
/*
 * Handle tables (docs/programming.md 4.4).
 *
 * A handle is 32 bits: [15:0] the slot in a table, [31:16] the slot's
 * generation, never 0 (so handle 0 is never valid).  Each slot records the
 * object type and the object's index in its pool (QPN, CQN, PDN, ...).
 * Each CONTEXT owns one table for its objects; the context handles
 * themselves live in a device-wide table with the same encoding.
 *
 * A slot is FREE, RESERVED (creation in progress: invisible to lookups) or
 * LIVE.  Allocation takes the lowest free slot, like the kernel's IDR.
 *
 * Generations come from one counter shared by all tables of a device (never
 * 0): every reservation takes the next value.  So a handle that named a
 * destroyed object is stale once its slot is reused, and a handle of one
 * context never resolves in another context's table (two tables hold the
 * same generation only 65536 reservations apart).
 */
#ifndef HCASIM_FW_HANDLE_H
#define HCASIM_FW_HANDLE_H

#include <stdint.h>

enum { FW_HSLOT_FREE = 0, FW_HSLOT_RESERVED = 1, FW_HSLOT_LIVE = 2 };

struct fw_hslot {
	uint16_t gen;		/* generation of the current/last handle; 0 before first use */
	uint16_t index;		/* object's pool index */
	uint16_t type;		/* HCA_OBJ_* */
	uint8_t state;		/* FW_HSLOT_* */
	uint8_t rsvd;
};

struct fw_htable {
	uint16_t cap;		/* slots */
	uint16_t used;		/* RESERVED + LIVE */
	uint16_t hint;		/* no free slot below this */
	uint16_t hwm;		/* slots at or above were never used since clear */
	uint16_t *gen;		/* the device's generation counter */
	struct fw_hslot *slots;
};

#define FW_HANDLE_SLOT(h) ((uint16_t)((h) & 0xffffu))
#define FW_HANDLE_GEN(h) ((uint16_t)((h) >> 16))
#define FW_HANDLE(slot, gen) (((uint32_t)(gen) << 16) | (uint32_t)(slot))

void fw_htable_init(struct fw_htable *t, struct fw_hslot *slots, uint16_t cap, uint16_t *gen);
/* Forget every slot (generations included). */
void fw_htable_clear(struct fw_htable *t);
/* Reserve a slot for an object being created: 0 or -HCA_ENOMEM. */
int fw_handle_reserve(struct fw_htable *t, uint16_t type, uint32_t *handle);
/* Make a reserved handle visible, naming the object's pool index. */
void fw_handle_commit(struct fw_htable *t, uint32_t handle, uint16_t index);
/* Release a reserved or live handle: it is invalid from now on. */
void fw_handle_release(struct fw_htable *t, uint32_t handle);
/*
 * Resolve a live handle of the given type: 0 and *index, or -HCA_EINVAL
 * (slot out of range, free/reserved, generation mismatch, other type).
 */
int fw_handle_lookup(const struct fw_htable *t, uint32_t handle, uint16_t type, uint16_t *index);

#endif /* HCASIM_FW_HANDLE_H */
