/* SPDX-License-Identifier: MIT */
/*
 * The shim's command path to the firmware: bring-up of the command queue and
 * commands built from object/method/attributes (docs/programming.md 2.1, 4).
 *
 * A command is built on the stack, then executed: the attributes and their
 * payloads are laid out in an IOMMU-mapped command buffer, the entry is
 * queued and the doorbell rung, and the caller waits (stepping the device in
 * cooperative mode) until firmware hands the entry back.  PTR_OUT payloads
 * and new handles are copied back to the caller's pointers.
 */
#ifndef HCASIM_SHIM_HW_H
#define HCASIM_SHIM_HW_H

#include <stdint.h>

struct shim_device;
struct shim_hw;

#define SHIM_CMD_MAX_ATTRS 12

struct shim_cmd_attr {
	uint16_t id;
	uint8_t kind;		/* HCA_ATTR_KIND_* */
	uint8_t elem;		/* ENUM element */
	uint16_t len;
	const void *in;		/* PTR_IN / ENUM payload */
	void *out;		/* PTR_OUT buffer */
	uint32_t handle;	/* IDR */
	uint32_t *new_handle;	/* IDR NEW: where to store the handle */
};

struct shim_cmd {
	uint16_t obj, method;
	uint32_t context;
	unsigned int n;
	struct shim_cmd_attr a[SHIM_CMD_MAX_ATTRS];
	uint32_t syndrome;	/* after exec: hca_cmdq_entry.syndrome */
};

void shim_cmd_init(struct shim_cmd *c, uint16_t obj, uint16_t method, uint32_t context);
void shim_cmd_in(struct shim_cmd *c, uint16_t id, const void *p, uint16_t len);
void shim_cmd_out(struct shim_cmd *c, uint16_t id, void *p, uint16_t len);
void shim_cmd_handle(struct shim_cmd *c, uint16_t id, uint32_t handle);
void shim_cmd_new_handle(struct shim_cmd *c, uint16_t id, uint32_t *out);
void shim_cmd_enum(struct shim_cmd *c, uint16_t id, uint8_t elem, const void *p, uint16_t len);

/* Execute on d's firmware: 0, or a positive errno (firmware status, ETIMEDOUT, EIO). */
int shim_cmd_exec(struct shim_device *d, struct shim_cmd *c);

/* Reset the device, wait for firmware, set up and enable the command queue. 0 or errno. */
int shim_hw_open(struct shim_device *d);
void shim_hw_close(struct shim_device *d);

#endif /* HCASIM_SHIM_HW_H */
