/* SPDX-License-Identifier: MIT */
/*
 * The device backend interface (ARCHITECTURE contract 2).
 *
 * A "device" is one simulated HCA: firmware plus a packet engine.  The model
 * (C reference engine), the RTL (Verilator) and the lockstep pair (both, held
 * against each other) are three implementations of this one interface, picked
 * by name.  Whatever holds a device -- the driver shim, the regression
 * harness, a SystemC wrapper -- sees only this:
 *
 *   holder -> device : mmio_read/mmio_write (BAR0), rx_frame, advance (time)
 *   device -> holder : dma_read/dma_write (through the holder's IOMMU),
 *                      tx_frame, interrupt (MSI-X vector)
 *
 * Rules (see docs/backend.md):
 *  - Time is counted in device clock cycles (HCA_CLK_HZ).  Only advance()
 *    moves time.  mmio_* and rx_frame take effect at the current cycle.
 *  - Host callbacks are made only from inside advance(), never from mmio_*,
 *    rx_frame, create or destroy.  A callback must not call back into the
 *    same device.
 *  - mmio_write is posted: the register changes at once, the work it starts
 *    (a doorbell, a command) happens during later advance() calls.
 *  - dma_read/dma_write return 0, or -EFAULT when any byte of the range is
 *    outside an IOMMU mapping with the needed permission; in that case no
 *    byte was transferred.  The device reports the fault (counter, fault
 *    registers, error completion or async event) and carries on.
 *  - Same configuration, same calls, same results: backends are
 *    deterministic.
 *  - A backend is not thread-safe; the holder serialises calls per device.
 *    Different devices are independent.
 */
#ifndef HCASIM_BACKEND_H
#define HCASIM_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hca_dev;

struct hca_host_ops {
	int (*dma_read)(void *host, uint64_t iova, void *buf, size_t len);
	int (*dma_write)(void *host, uint64_t iova, const void *buf, size_t len);
	/* Frame without FCS; the buffer is valid only during the call. */
	void (*tx_frame)(void *host, const uint8_t *frame, size_t len);
	void (*interrupt)(void *host, unsigned int vector);
};

struct hca_dev_config {
	uint8_t mac[6];		/* port MAC: the board's strap/NVRAM value read by firmware */
	unsigned int data_w;	/* RTL datapath width in bits (64, 512); 0 = backend default */
	uint64_t seed;		/* seeds backend-internal randomness (e.g. RTL host-memory latency) */
	const char *trace;	/* rtl/lockstep: waveform file (FST) or NULL */
	uint64_t trace_from;	/* first cycle traced */
	uint64_t trace_to;	/* last cycle traced (0 = to the end) */
	const char *options;	/* backend-specific "key=value,key=value" or NULL */
};

struct hca_backend {
	const char *name;	/* "model", "rtl", "lockstep" */
	/* 0 or negative errno; on success *out is the new device, out of reset. */
	int (*create)(const struct hca_dev_config *cfg, const struct hca_host_ops *host,
		      void *host_ctx, struct hca_dev **out);
	void (*destroy)(struct hca_dev *dev);
	/* BAR0, aligned 32-bit accesses; others read 0 / are ignored. */
	uint32_t (*mmio_read)(struct hca_dev *dev, uint32_t offset);
	void (*mmio_write)(struct hca_dev *dev, uint32_t offset, uint32_t value);
	/* A frame arrived at port 1 (no FCS). The device copies it. */
	void (*rx_frame)(struct hca_dev *dev, const uint8_t *frame, size_t len);
	/* Run for `cycles` device clock cycles. */
	void (*advance)(struct hca_dev *dev, uint64_t cycles);
	/* Current device cycle. */
	uint64_t (*now)(struct hca_dev *dev);
	/*
	 * Earliest cycle at which the device will act without further input:
	 * now() when it has work in hand, a timer deadline, or UINT64_MAX when
	 * idle.  Harnesses use it to skip idle time; advancing to it is always
	 * safe (it is a lower bound, never late).
	 */
	uint64_t (*next_event)(struct hca_dev *dev);
	/* Human-readable reason for the last failure of this device, or "". */
	const char *(*last_error)(struct hca_dev *dev);
};

/* Backends linked into this program register themselves. */
void hca_backend_register(const struct hca_backend *be);
/* NULL if no backend of that name is linked in. */
const struct hca_backend *hca_backend_find(const char *name);
/* Comma-separated names of the linked-in backends (static buffer). */
const char *hca_backend_names(void);

#ifdef __cplusplus
}
#endif

#endif /* HCASIM_BACKEND_H */
