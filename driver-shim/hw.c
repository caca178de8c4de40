// SPDX-License-Identifier: MIT
/* Bring-up and command execution through sim/devctl: see hw.h. */
#include "hw.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hostmem.h"
#include "log.h"
#include "shim.h"

/* Threaded mode: each wait returns once the device thread made progress
 * (or after a few ms), so the devctl budget counts polls, not time. */
#define HW_THREADED_TIMEOUT (1ull << 34)

struct shim_hw {
	pthread_mutex_t lock;	/* devctl is single-caller */
	struct hca_devctl *dc;
	struct hca_devctl_bus bus;
};

/* ---- the devctl bus over the shim bus ------------------------------------------ */

static uint32_t hw_read32(void *ctx, uint32_t off)
{
	struct shim_device *d = ctx;

	return shim_bus_read32(d->bus, off);
}

static void hw_write32(void *ctx, uint32_t off, uint32_t v)
{
	struct shim_device *d = ctx;

	shim_bus_write32(d->bus, off, v);
}

static void hw_wait(void *ctx, uint64_t cycles)
{
	struct shim_device *d = ctx;

	if (d->mode == SHIM_MODE_COOP) {
		/* Move the simulation on; if nothing at all is scheduled, let time
		 * pass for this device so that a hung firmware times out. */
		if (!shim_wait(d, 0, 0))
			shim_bus_step(d->bus, cycles);
		return;
	}
	shim_bus_wait_progress(d->bus, shim_bus_progress(d->bus), 5);
}

static void *hw_dma_alloc(void *ctx, size_t len, uint64_t *iova)
{
	struct shim_device *d = ctx;
	struct shim_dma_buf b;

	if (shim_dma_alloc(d, len, HOSTMEM_RW, &b))
		return NULL;
	*iova = b.iova;
	return b.va;
}

static void hw_dma_free(void *ctx, void *va, uint64_t iova, size_t len)
{
	struct shim_device *d = ctx;
	struct shim_dma_buf b = { .va = va, .len = len, .iova = iova };

	shim_dma_free(d, &b);
}

/* ---- commands ------------------------------------------------------------------ */

int shim_cmd_exec(struct shim_device *d, struct hca_cmd *c)
{
	struct shim_hw *hw = d->hw;
	int ret;

	if (!hw)
		return EIO;
	pthread_mutex_lock(&hw->lock);
	ret = hca_devctl_exec(hw->dc, c);
	pthread_mutex_unlock(&hw->lock);
	if (ret < 0) {
		shim_err("%s: command obj %u method %u got no answer: %s (STATUS 0x%x, "
			 "SYNDROME 0x%x, CMDQ_STATUS 0x%x)", d->cfg.name, c->hdr.object_id,
			 c->hdr.method_id, strerror(-ret), shim_bus_read32(d->bus, HCA_INIT_STATUS),
			 shim_bus_read32(d->bus, HCA_INIT_SYNDROME),
			 shim_bus_read32(d->bus, HCA_INIT_CMDQ_STATUS));
		return -ret == ETIMEDOUT ? ETIMEDOUT : EIO;
	}
	if (ret)
		shim_dbg(1, "%s: command obj %u method %u: status %d (%s), syndrome reason %u attr %u",
			 d->cfg.name, c->hdr.object_id, c->hdr.method_id, ret, strerror(ret),
			 (c->syndrome & HCA_CMDQ_ENTRY_SYNDROME_REASON_MASK) >>
				 HCA_CMDQ_ENTRY_SYNDROME_REASON_SHIFT,
			 c->syndrome & HCA_CMDQ_ENTRY_SYNDROME_ATTR_MASK);
	else
		shim_dbg(2, "%s: command obj %u method %u: ok", d->cfg.name, c->hdr.object_id,
			 c->hdr.method_id);
	return ret;
}

/* ---- bring-up ---------------------------------------------------------------------- */

int shim_hw_open(struct shim_device *d)
{
	struct shim_hw *hw = calloc(1, sizeof(*hw));
	int ret;

	if (!hw)
		return ENOMEM;
	pthread_mutex_init(&hw->lock, NULL);
	hw->bus = (struct hca_devctl_bus){
		.ctx = d,
		.read32 = hw_read32,
		.write32 = hw_write32,
		.wait = hw_wait,
		.dma_alloc = hw_dma_alloc,
		.dma_free = hw_dma_free,
	};
	ret = hca_devctl_open(&hw->bus, &hw->dc);
	if (ret) {
		free(hw);
		return -ret;
	}
	if (d->mode == SHIM_MODE_THREADED)
		hca_devctl_set_timeout(hw->dc, HW_THREADED_TIMEOUT);
	ret = hca_devctl_bringup(hw->dc, 0);
	if (ret) {
		shim_err("%s: bring-up failed: %s (STATUS 0x%x, SYNDROME 0x%x)", d->cfg.name,
			 strerror(-ret), hca_devctl_status(hw->dc), hca_devctl_syndrome(hw->dc));
		hca_devctl_close(hw->dc);
		pthread_mutex_destroy(&hw->lock);
		free(hw);
		return ret == -ETIMEDOUT ? ETIMEDOUT : EIO;
	}
	d->hw = hw;
	shim_dbg(1, "%s: firmware %u.%u.%u up, command queue running", d->cfg.name,
		 shim_bus_read32(d->bus, HCA_INIT_FW_VER) >> 16,
		 (shim_bus_read32(d->bus, HCA_INIT_FW_VER) >> 8) & 0xff,
		 shim_bus_read32(d->bus, HCA_INIT_FW_VER) & 0xff);
	return 0;
}

void shim_hw_close(struct shim_device *d)
{
	struct shim_hw *hw = d->hw;

	if (!hw)
		return;
	d->hw = NULL;
	hca_devctl_close(hw->dc);
	pthread_mutex_destroy(&hw->lock);
	free(hw);
}
