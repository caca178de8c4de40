/* SPDX-License-Identifier: MIT */
/*
 * Firmware hardware abstraction layer.
 *
 * The firmware core is freestanding C: it owns no globals, allocates nothing
 * and reaches the outside world only through this table.  The same core runs
 *   - host-built inside the simulated device (sim/device.c: management port
 *     = the engine's mgmt_read/mgmt_write, DMA = the host's IOMMU callbacks,
 *     time = the engine's cycle counter), and
 *   - on the RV32 soft core (firmware/rv32/hal_mmio.c: management port at a
 *     fixed MMIO window, DMA through a mailbox, time from the clock register).
 *
 * Rules:
 *  - mgmt_read has no side effects; mgmt_write completes before it returns
 *    (context commands included), so the firmware never polls the engine.
 *  - dma_read/dma_write move bytes between firmware memory and host IOVAs:
 *    0, or -HCA_EFAULT when any byte of the range is refused by the IOMMU, in
 *    which case nothing was transferred.
 *  - now() is the device cycle counter (HCA_CLK_HZ).
 *  - log may be NULL.  Messages are constant strings plus two numbers, so a
 *    soft core can print them without printf.
 */
#ifndef HCASIM_FW_HAL_H
#define HCASIM_FW_HAL_H

#include <stddef.h>
#include <stdint.h>

struct hca_fw_hal {
	void *ctx;
	uint32_t (*mgmt_read)(void *ctx, uint32_t addr);
	void (*mgmt_write)(void *ctx, uint32_t addr, uint32_t value);
	int (*dma_read)(void *ctx, uint64_t iova, void *buf, size_t len);
	int (*dma_write)(void *ctx, uint64_t iova, const void *buf, size_t len);
	uint64_t (*now)(void *ctx);
	void (*log)(void *ctx, const char *msg, uint32_t a, uint32_t b);
};

/*
 * Board configuration: what a real board gives its firmware from straps or
 * NVRAM.  Firmware programs the engine from it at every boot.
 */
struct hca_fw_board {
	uint8_t mac[6];		/* port 1 MAC */
};

#endif /* HCASIM_FW_HAL_H */
