/* SPDX-License-Identifier: MIT */
/*
 * Where an engine's DMA write belongs, learnt from the contexts written
 * through the management port (the harness sees every CTX_CMD): CQ rings
 * (CQC base, 32 << log_size) -> "cq<N>", EQ rings (EQC base, 16 << log_size)
 * -> "eq<N>", memory regions (MRC dma_addr, length) -> "mr<index>", anything
 * else -> "dma-other".  Rings take precedence over MRs; among overlapping
 * MRs the lowest index wins.  docs/sim.md "Streams".
 */
#ifndef HCASIM_SIM_LOCKSTEP_REGIONS_H
#define HCASIM_SIM_LOCKSTEP_REGIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hcasim/engine.h"
#include "hcasim/hca_spec.h"

enum ls_rgn_kind { LS_RGN_CQ = 0, LS_RGN_EQ = 1, LS_RGN_MR = 2, LS_RGN_KINDS };

struct ls_region {
	uint64_t base, len;
	uint32_t index;
	uint8_t kind;		/* enum ls_rgn_kind */
	bool valid;
	int sid;		/* scoreboard stream id cache (-1 unknown) */
};

#define LS_NUM_CQ (1u << HCA_CAP_LOG_MAX_CQ)
#define LS_NUM_EQ (1u << HCA_CAP_LOG_MAX_EQ)
#define LS_NUM_MR (1u << HCA_CAP_LOG_MAX_MR)

struct ls_regions {
	struct ls_region cq[LS_NUM_CQ], eq[LS_NUM_EQ], mr[LS_NUM_MR];
	struct ls_region *live[LS_NUM_CQ + LS_NUM_EQ + LS_NUM_MR];	/* valid ones, by priority */
	unsigned int nlive;
};

void ls_regions_init(struct ls_regions *r);
/* Engine reset: every context is invalid. */
void ls_regions_reset(struct ls_regions *r);
/* A successful context write of `type` at `index` with the staging bytes `ctx` (256). */
void ls_regions_ctx_write(struct ls_regions *r, unsigned int type, uint32_t index, const uint8_t *ctx);
/*
 * The region holding `addr` (NULL: none), and in *piece how many bytes from
 * addr stay in that classification (up to `len`: the region's end, or the
 * next region's start when addr is in none).
 */
struct ls_region *ls_regions_find(struct ls_regions *r, uint64_t addr, size_t len, size_t *piece);
/* "cq3", "eq0", "mr12" */
void ls_region_name(const struct ls_region *g, char *buf, size_t n);

/*
 * Snoop helper for engines that wrap another: call after forwarding a
 * management write; when it was a successful CTX_CMD write, the staging
 * buffer is read back from `e` through `ops->mgmt_read` (no side effects)
 * and the region table updated.  An ENGINE_CTRL reset clears the table.
 */
void ls_regions_snoop_mgmt(struct ls_regions *r, const struct hca_engine_ops *ops, struct hca_engine *e,
			   uint32_t addr, uint32_t value);

#endif /* HCASIM_SIM_LOCKSTEP_REGIONS_H */
