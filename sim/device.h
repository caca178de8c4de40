/* SPDX-License-Identifier: MIT */
/*
 * A device = the firmware + a packet engine, offered as a device backend
 * (include/hcasim/backend.h) named after the engine: "model", "rtl",
 * "lockstep", or any other registered engine (tests use a fake one).
 *
 * Firmware timing (docs/firmware.md): the firmware runs at the first engine
 * step boundary at which its interrupt (engine fw_irq) is set or its own
 * deadline (health timer, boot) has come, and its work takes zero device
 * cycles.  The device steps the engine to the next engine event, firmware
 * deadline or advance() end, whichever is first (one cycle while the engine
 * has work in hand), so the same calls give the same cycle-exact result.
 * Firmware DMA goes through the holder's dma_read/dma_write callbacks, only
 * from inside advance(), like the engine's.
 */
#ifndef HCASIM_SIM_DEVICE_H
#define HCASIM_SIM_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "hcasim/backend.h"
#include "hcasim/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

struct hca_fw;

/*
 * Register a backend named after a registered engine (e.g. after
 * hca_model_engine_register(), hca_device_register("model")).  0, -ENOENT
 * (no such engine), -ENOSPC (too many).  Idempotent.
 */
int hca_device_register(const char *engine_name);
/* Register a backend for each of "model", "rtl", "lockstep" that exists. */
void hca_device_register_all(void);

/* Create a device directly on the named engine (same as the backend's create). */
int hca_device_create(const char *engine_name, const struct hca_dev_config *cfg,
		      const struct hca_host_ops *host, void *host_ctx, struct hca_dev **out);

/*
 * Test and debug access to a device made here (NULL / 0 for any other
 * hca_dev).  The management-port accessors act on the engine directly,
 * behind the firmware's back: use them between advance() calls only.
 */
int hca_device_is_ours(const struct hca_dev *dev);
struct hca_fw *hca_device_fw(struct hca_dev *dev);
struct hca_engine *hca_device_engine(struct hca_dev *dev);
uint32_t hca_device_mgmt_read(struct hca_dev *dev, uint32_t addr);
void hca_device_mgmt_write(struct hca_dev *dev, uint32_t addr, uint32_t value);
/* Read an engine context (HCA_CTX_TYPE_*) through the management port: 0 or -EIO. */
int hca_device_ctx_read(struct hca_dev *dev, unsigned int type, uint32_t index, void *buf,
			size_t len);
/* Times the firmware ran (interrupt or deadline). */
uint64_t hca_device_fw_runs(const struct hca_dev *dev);

#ifdef __cplusplus
}
#endif

#endif /* HCASIM_SIM_DEVICE_H */
