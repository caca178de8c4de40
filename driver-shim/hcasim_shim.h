/* SPDX-License-Identifier: MIT */
/*
 * hcasim's extensions to the libibverbs API, for programs that link the
 * shim directly (tests) instead of preloading it.
 *
 * Cooperative mode: nothing runs behind the program's back.  The simulation
 * moves when the program calls hcasim_shim_step()/hcasim_shim_run(), when a
 * poll of an empty CQ steps it once, and while a verb waits for the device
 * (commands, blocking ibv_get_cq_event/ibv_get_async_event).  The same
 * program with the same configuration gives the same result every run.
 */
#ifndef HCASIM_SHIM_PUBLIC_H
#define HCASIM_SHIM_PUBLIC_H

#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Configure the process's simulated HCAs with config text (format in
 * docs/shim.md) instead of HCASIM_CONFIG / HCASIM_* variables.  Call before
 * the first verb.  0, or EBUSY if the shim is already initialised.
 */
int hcasim_shim_configure(const char *text);

/* Cooperative mode: one simulation step of every HCA; 1 if anything happened. */
int hcasim_shim_step(void);
/* Step until nothing is left to do (or max_steps, 0 = no limit); returns the steps taken. */
uint64_t hcasim_shim_run(uint64_t max_steps);

/* Counters of the cooperative in-process wire `name` (config key `wire`):
 * frames sent, copies delivered, copies dropped by fault injection.
 * 0 or ENOENT. */
int hcasim_shim_wire_counters(const char *name, uint64_t *sent, uint64_t *delivered,
			      uint64_t *dropped);

/* Destroy every simulated HCA and forget the configuration (end of a test). */
void hcasim_shim_shutdown(void);

/* Device DMA refused by the IOMMU so far on the HCA of ctx, and the most recent one. */
struct hcasim_dma_fault {
	uint64_t iova;
	uint64_t len;
	int write;
};
uint64_t hcasim_shim_dma_faults(struct ibv_context *ctx, struct hcasim_dma_fault *last);

/*
 * Fault injection for tests: remove the IOMMU mapping of an MR behind the
 * driver's back (as if the driver had a bug), so that the device's next
 * access to it faults.  0 or ENOENT.
 */
int hcasim_shim_unmap_mr(struct ibv_mr *mr);

/* Print the device's view and the driver's view of every EQ, CQ and QP of
 * ctx (indices, arm state, PSNs): the first thing to look at when traffic
 * stalls. */
void hcasim_shim_dump(struct ibv_context *ctx, FILE *out);

/* Current device cycle of the HCA of ctx. */
uint64_t hcasim_shim_now(struct ibv_context *ctx);

#ifdef __cplusplus
}
#endif

#endif /* HCASIM_SHIM_PUBLIC_H */
