/* SPDX-License-Identifier: MIT */
/*
 * Directed cosimulation tests (sim/regress/directed.c): named message
 * lists with their traffic configuration.  "random" is the seeded
 * generator.  docs/sim.md "Adding a directed test".
 */
#ifndef HCASIM_SIM_REGRESS_DIRECTED_H
#define HCASIM_SIM_REGRESS_DIRECTED_H

#include "traffic.h"

struct directed {
	const char *name;
	const char *what;
	/* Fill cfg (already defaulted, seed set) and the message list; returns the count. */
	unsigned int (*build)(struct tr_cfg *cfg, struct tr_msg *list, unsigned int max);
	bool needs_read;	/* uses RDMA READ (outside the first RTL slice) */
};

#define DIRECTED_MAX_MSGS 4096

/* NULL-terminated table. */
extern const struct directed directed_tests[];
const struct directed *directed_find(const char *name);

#endif /* HCASIM_SIM_REGRESS_DIRECTED_H */
