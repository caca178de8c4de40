/* SPDX-License-Identifier: MIT */
/*
 * Which register reads lockstep compares, and when (docs/sim.md "Register
 * reads").  The reference is untimed and runs ahead of the DUT, so a value
 * that reflects progress (counters, FIFO levels, pending bits, status words
 * of contexts) legitimately differs while the DUT is still working.  Each
 * register has
 *   exact_mask  bits that must be equal on every read (configuration,
 *               identity, values written by firmware or host, the clock);
 *   settled     the whole value must be equal when both engines are idle
 *               (next_event == UINT64_MAX on both: same inputs, all done).
 */
#ifndef HCASIM_SIM_LOCKSTEP_REGS_H
#define HCASIM_SIM_LOCKSTEP_REGS_H

#include <stdbool.h>
#include <stdint.h>

struct ls_reg_rule {
	uint32_t exact_mask;
	bool settled;
	char name[48];		/* "MGMT.EVT_TYPE", "BAR0.INIT.CAP3", "MGMT.CTX_DATA[33] (QPC status)" */
	const char *note;	/* why some bits are not exact, or NULL */
};

void ls_bar0_rule(uint32_t off, struct ls_reg_rule *r);
/* last_ctx_cmd: the last CTX_CMD value written (0: none), for CTX_DATA reads. */
void ls_mgmt_rule(uint32_t addr, uint32_t last_ctx_cmd, struct ls_reg_rule *r);

#endif /* HCASIM_SIM_LOCKSTEP_REGS_H */
