/* SPDX-License-Identifier: MIT */
/*
 * Host-side device control: bring-up and the command queue, for tests and
 * for the driver shim (the one command path both use).
 *
 *   bus      how the host reaches the device: BAR0 32-bit read/write, a way
 *            to let the device run ("wait"), and device-visible memory
 *            (allocated and mapped in the IOMMU by the caller's bus).
 *   devctl   reset + bring-up (docs/programming.md 2.1), the command ring and
 *            a DMA arena for command buffers, synchronous command execution.
 *   hca_cmd  a command builder: header + attributes, payloads inline (<= 8
 *            bytes) or through the arena, outputs copied back on success.
 *
 * Usage:
 *	struct hca_devctl *dc;
 *	hca_devctl_open(&bus, &dc);
 *	hca_devctl_bringup(dc, 0);                 // reset, wait READY, enable the queue
 *	struct hca_cmd c;
 *	uint32_t ctx, uar;
 *	hca_cmd_init(&c, HCA_OBJ_CONTEXT, HCA_METHOD_CONTEXT_ALLOC, 0);
 *	hca_cmd_idr_new(&c, HCA_ATTR_CONTEXT_ALLOC_HANDLE, &ctx);
 *	hca_cmd_out(&c, HCA_ATTR_CONTEXT_ALLOC_UAR_INDEX, &uar, sizeof(uar));
 *	rc = hca_devctl_exec(dc, &c);              // 0, status errno (> 0) or -errno
 *
 * Not thread-safe: one caller at a time per devctl (the shim serialises).
 * See docs/firmware.md, "Host side: sim/devctl".
 */
#ifndef HCASIM_SIM_DEVCTL_H
#define HCASIM_SIM_DEVCTL_H

#include <stddef.h>
#include <stdint.h>

#include "hcasim/backend.h"
#include "hcasim/hca_spec.h"

#ifdef __cplusplus
extern "C" {
#endif

struct hca_devctl_bus {
	void *ctx;
	uint32_t (*read32)(void *ctx, uint32_t bar0_off);
	void (*write32)(void *ctx, uint32_t bar0_off, uint32_t value);
	/* Let the device run for about `cycles` device cycles (cooperative:
	 * advance the simulation; threaded: wait for the device thread). */
	void (*wait)(void *ctx, uint64_t cycles);
	/* `len` zeroed bytes the device may read and write, at *iova; NULL on failure. */
	void *(*dma_alloc)(void *ctx, size_t len, uint64_t *iova);
	void (*dma_free)(void *ctx, void *va, uint64_t iova, size_t len);
};

struct hca_devctl;

/* Limits of one command built with hca_cmd. */
#define HCA_CMD_MAX_ATTRS HCA_CAP_MAX_CMD_ATTRS
#define HCA_CMD_PAYLOAD_MAX 4096	/* PTR_IN/ENUM/PTR_OUT bytes per command */
#define HCA_DEVCTL_LOG_CMDQ 4		/* default ring: 16 entries */
#define HCA_DEVCTL_TIMEOUT 10000000ull	/* cycles (40 ms device time) */

int hca_devctl_open(const struct hca_devctl_bus *bus, struct hca_devctl **out);
void hca_devctl_close(struct hca_devctl *dc);

/* CTRL.RESET, wait for RESET to clear and STATUS FW_READY/READY.
 * 0, -EIO (STATUS.FATAL: see hca_devctl_syndrome), -ETIMEDOUT. */
int hca_devctl_reset(struct hca_devctl *dc);
/* Program the command ring (2^log_size entries; 0 = default) and ENABLE;
 * wait for CMDQ_READY.  0, -EIO, -ETIMEDOUT, -EINVAL, -ENOMEM. */
int hca_devctl_enable(struct hca_devctl *dc, unsigned int log_size);
/* reset + enable */
int hca_devctl_bringup(struct hca_devctl *dc, unsigned int log_size);
/* HCA_INIT_SYNDROME and HCA_INIT_STATUS, for error reports. */
uint32_t hca_devctl_syndrome(struct hca_devctl *dc);
uint32_t hca_devctl_status(struct hca_devctl *dc);
/* Cycles to wait for a command or a bring-up step before -ETIMEDOUT. */
void hca_devctl_set_timeout(struct hca_devctl *dc, uint64_t cycles);

/* ---- command builder ---- */
struct hca_cmd {
	struct hca_cmd_hdr hdr;
	struct hca_cmd_attr attrs[HCA_CMD_MAX_ATTRS + 1];	/* +1: room to test the limit */
	unsigned int num_attrs;
	/* Raw overrides for tests: keep hdr.length/num_attrs as set, and in_len. */
	int keep_hdr;
	uint32_t in_len;	/* 0 = hdr.length */
	/* Filled by hca_devctl_exec. */
	uint32_t status;
	uint32_t syndrome;
	uint32_t token;
	/* private: payload staging */
	struct {
		uint8_t kind;	/* 0 none, 1 in (arena), 2 out, 3 new handle */
		uint16_t off;	/* in the payload area */
		uint16_t len;
		void *dst;	/* out: where to copy back; new: uint32_t * */
	} p[HCA_CMD_MAX_ATTRS + 1];
	uint16_t payload_used;
	uint8_t payload[HCA_CMD_PAYLOAD_MAX];
};

/* Each adder returns the attribute's index in the command, or -ENOSPC.
 * Attributes are MANDATORY unless the caller clears attrs[i].flags. */
void hca_cmd_init(struct hca_cmd *c, uint16_t object_id, uint16_t method_id, uint32_t context);
int hca_cmd_in(struct hca_cmd *c, uint16_t attr_id, const void *data, uint16_t len);
int hca_cmd_in_u32(struct hca_cmd *c, uint16_t attr_id, uint32_t v);
int hca_cmd_in_u64(struct hca_cmd *c, uint16_t attr_id, uint64_t v);
int hca_cmd_out(struct hca_cmd *c, uint16_t attr_id, void *buf, uint16_t len);
int hca_cmd_idr(struct hca_cmd *c, uint16_t attr_id, uint32_t handle);
int hca_cmd_idr_new(struct hca_cmd *c, uint16_t attr_id, uint32_t *handle);
int hca_cmd_enum(struct hca_cmd *c, uint16_t attr_id, uint8_t elem, const void *data, uint16_t len);
/* An attribute exactly as given (data is used as is: inline value, IOVA or handle). */
int hca_cmd_raw(struct hca_cmd *c, uint16_t attr_id, uint16_t len, uint16_t flags,
		uint16_t attr_data, uint64_t data);

/*
 * Post the command on the ring and wait for it.  Returns 0 (status 0),
 * the command's status errno (> 0, also in c->status, detail in
 * c->syndrome), or -errno when the command did not complete: -ETIMEDOUT,
 * -EIO (queue stopped: HCA_INIT_CMDQ_STATUS), -ENOSPC (payloads too big),
 * -ENODEV (queue not enabled).  Outputs and new handles are copied back
 * only when the status is 0.
 */
int hca_devctl_exec(struct hca_devctl *dc, struct hca_cmd *c);
/* IOVA of the arena where the last command buffer was placed (tests). */
uint64_t hca_devctl_cmd_iova(const struct hca_devctl *dc);

/* ---- a bus over an in-process backend + hostmem (tests, cooperative shim) ---- */
struct hostmem;
struct hca_devctl_sim {
	const struct hca_backend *be;
	struct hca_dev *dev;
	struct hostmem *hm;
};
void hca_devctl_sim_bus(struct hca_devctl_sim *s, struct hca_devctl_bus *bus);

#ifdef __cplusplus
}
#endif

#endif /* HCASIM_SIM_DEVCTL_H */
