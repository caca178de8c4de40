// SPDX-License-Identifier: MIT
/*
 * Handle tables (docs/programming.md 4.4): the 32-bit encoding, generations,
 * staleness, types, lowest-free allocation, exhaustion.
 */
#include <string.h>

#include "check.h"
#include "fw_handle.h"
#include "hcasim/hca_spec.h"

#define CAP 16

int main(void)
{
	struct fw_hslot slots[CAP];
	struct fw_htable t, t2;
	uint16_t gen = 0;
	uint32_t h[CAP + 1], h2;
	uint16_t idx;

	memset(slots, 0xa5, sizeof(slots));	/* the table must not trust old memory */
	fw_htable_init(&t, slots, CAP, &gen);

	/* Handle 0 is never valid: generation 0 is never handed out. */
	CHECK(fw_handle_lookup(&t, 0, HCA_OBJ_PD, &idx) == -HCA_EINVAL, "handle 0 resolved");

	CHECK_EQ(fw_handle_reserve(&t, HCA_OBJ_PD, &h[0]), 0, "reserve");
	CHECK(h[0] >> 16 != 0, "generation 0 handed out: 0x%x", h[0]);
	CHECK_EQ(h[0] & 0xffff, 0, "first slot");
	/* Reserved: invisible until committed. */
	CHECK(fw_handle_lookup(&t, h[0], HCA_OBJ_PD, &idx) == -HCA_EINVAL, "reserved handle resolved");
	fw_handle_commit(&t, h[0], 7);
	CHECK(fw_handle_lookup(&t, h[0], HCA_OBJ_PD, &idx) == 0 && idx == 7, "committed handle");
	/* Typed. */
	CHECK(fw_handle_lookup(&t, h[0], HCA_OBJ_QP, &idx) == -HCA_EINVAL, "wrong type resolved");
	/* Wrong generation, same slot. */
	CHECK(fw_handle_lookup(&t, h[0] + 0x10000, HCA_OBJ_PD, &idx) == -HCA_EINVAL, "other generation");
	/* Slot beyond the table. */
	CHECK(fw_handle_lookup(&t, (h[0] & 0xffff0000u) | (CAP + 3), HCA_OBJ_PD, &idx) == -HCA_EINVAL,
	      "slot out of range");

	/* Lowest free slot; released slots are reused with a new generation. */
	for (int i = 1; i < CAP; i++) {
		CHECK_EQ(fw_handle_reserve(&t, HCA_OBJ_MR, &h[i]), 0, "fill");
		CHECK_EQ(h[i] & 0xffff, (uint32_t)i, "slots in order");
		fw_handle_commit(&t, h[i], (uint16_t)(100 + i));
	}
	CHECK_EQ(t.used, CAP, "used count");
	CHECK_EQ(fw_handle_reserve(&t, HCA_OBJ_MR, &h[CAP]), -HCA_ENOMEM, "full table");
	fw_handle_release(&t, h[5]);
	fw_handle_release(&t, h[3]);
	CHECK(fw_handle_lookup(&t, h[5], HCA_OBJ_MR, &idx) == -HCA_EINVAL, "released handle still valid");
	CHECK_EQ(fw_handle_reserve(&t, HCA_OBJ_CQ, &h2), 0, "reuse");
	CHECK_EQ(h2 & 0xffff, 3, "lowest free slot");
	CHECK(h2 != h[3], "reused slot kept its generation");
	fw_handle_commit(&t, h2, 9);
	CHECK(fw_handle_lookup(&t, h[3], HCA_OBJ_MR, &idx) == -HCA_EINVAL, "stale handle of a reused slot");
	CHECK(fw_handle_lookup(&t, h2, HCA_OBJ_CQ, &idx) == 0 && idx == 9, "new handle of reused slot");
	/* Double release is harmless; releasing a stale handle does not hit the new owner. */
	fw_handle_release(&t, h[3]);
	CHECK(fw_handle_lookup(&t, h2, HCA_OBJ_CQ, &idx) == 0, "stale release freed the new owner");
	/* Abort of a reservation. */
	CHECK_EQ(fw_handle_reserve(&t, HCA_OBJ_SRQ, &h2), 0, "reserve 5");
	CHECK_EQ(h2 & 0xffff, 5, "slot 5");
	fw_handle_release(&t, h2);
	CHECK_EQ(t.used, CAP - 1, "abort gave the slot back");

	/* Generations never become 0, even after wrapping. */
	{
		struct fw_hslot one[1];
		struct fw_htable t1;
		uint32_t x;
		int zero = 0;

		uint16_t g1 = 0;

		fw_htable_init(&t1, one, 1, &g1);
		for (int i = 0; i < 70000; i++) {
			fw_handle_reserve(&t1, HCA_OBJ_PD, &x);
			zero |= (x >> 16) == 0;
			fw_handle_release(&t1, x);
		}
		CHECK(!zero, "generation 0 after wrap");
	}

	/* Two tables on one counter: a handle of one never resolves in the other. */
	{
		struct fw_hslot s2[CAP];
		uint32_t a, b;
		int alias = 0;

		fw_htable_clear(&t);
		fw_htable_init(&t2, s2, CAP, &gen);
		for (int i = 0; i < 1000; i++) {
			fw_handle_reserve(&t, HCA_OBJ_PD, &a);
			fw_handle_commit(&t, a, 1);
			fw_handle_reserve(&t2, HCA_OBJ_PD, &b);
			fw_handle_commit(&t2, b, 1);
			alias |= fw_handle_lookup(&t, b, HCA_OBJ_PD, &idx) == 0;
			alias |= fw_handle_lookup(&t2, a, HCA_OBJ_PD, &idx) == 0;
			fw_handle_release(&t, a);
			fw_handle_release(&t2, b);
		}
		CHECK(!alias, "a handle of one table resolved in the other");
	}

	/* Clearing forgets everything. */
	fw_htable_clear(&t);
	CHECK(fw_handle_lookup(&t, h[1], HCA_OBJ_MR, &idx) == -HCA_EINVAL, "handle survived clear");
	CHECK_EQ(t.used, 0, "used after clear");
	return check_done();
}
