/* SPDX-License-Identifier: MIT */
/*
 * The packet-engine interface: the device minus its firmware.
 *
 * A device backend (backend.h) is firmware + an engine.  The engine owns BAR0
 * (init segment, MSI-X, doorbell pages), the management port, the MAC and
 * the DMA master; the firmware reaches the engine only through the management
 * port (ARCHITECTURE contract 3) and reaches host memory through its HAL.
 *
 * Three engines implement this interface: "model" (model/), "rtl" (the
 * Verilator harness in sim/) and "lockstep" (both, compared; sim/).
 * sim/device.c composes any of them with the firmware into a backend of the
 * same name.  Engine-level tests (model/tests, sim/tests) drive an engine
 * directly: they write contexts through the management port themselves.
 *
 * Rules are those of backend.h (time only moves in advance(); host callbacks
 * only from inside advance(); DMA returns 0 or -EFAULT and a fault transfers
 * nothing), plus:
 *  - mgmt_read has no side effects; mgmt_write takes effect at once (context
 *    commands complete before mgmt_write returns), so firmware never polls.
 *    One exception to the rules above: a context write to the "lockstep"
 *    engine while its DUT is behind the reference first clocks both until
 *    the DUT caught up (docs/sim.md section 1, "Context writes"), so time
 *    moves and host callbacks come inside that mgmt_write; the firmware
 *    makes it from inside the device's advance(), where both are allowed.
 *  - fw_irq() is the level of the firmware interrupt: HCA_MGMT_FW_EVENT != 0.
 */
#ifndef HCASIM_ENGINE_H
#define HCASIM_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "hcasim/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

struct hca_engine;

struct hca_engine_config {
	unsigned int data_w;	/* RTL datapath width; the model reports 64 in HCA_INIT_CAP3 */
	uint64_t seed;
	const char *trace;	/* waveform file (rtl, lockstep) */
	uint64_t trace_from, trace_to;
	const char *options;	/* "key=value,..." engine-specific */
};

struct hca_engine_ops {
	const char *name;
	int (*create)(const struct hca_engine_config *cfg, const struct hca_host_ops *host,
		      void *host_ctx, struct hca_engine **out);
	void (*destroy)(struct hca_engine *e);
	uint32_t (*bar0_read)(struct hca_engine *e, uint32_t offset);
	void (*bar0_write)(struct hca_engine *e, uint32_t offset, uint32_t value);
	uint32_t (*mgmt_read)(struct hca_engine *e, uint32_t addr);
	void (*mgmt_write)(struct hca_engine *e, uint32_t addr, uint32_t value);
	void (*rx_frame)(struct hca_engine *e, const uint8_t *frame, size_t len);
	void (*advance)(struct hca_engine *e, uint64_t cycles);
	uint64_t (*now)(struct hca_engine *e);
	uint64_t (*next_event)(struct hca_engine *e);
	int (*fw_irq)(struct hca_engine *e);
	const char *(*last_error)(struct hca_engine *e);
};

void hca_engine_register(const struct hca_engine_ops *ops);
const struct hca_engine_ops *hca_engine_find(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* HCASIM_ENGINE_H */
