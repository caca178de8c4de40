/* SPDX-License-Identifier: MIT */
/*
 * The shim's command path to the firmware, over sim/devctl (the one
 * host-side bring-up and command implementation, shared with the firmware
 * tests): commands are built with hca_cmd_* (sim/devctl.h) and executed
 * here, one at a time per device, with the device running behind the wait:
 * stepped by the caller in cooperative mode, by the device thread otherwise.
 */
#ifndef HCASIM_SHIM_HW_H
#define HCASIM_SHIM_HW_H

#include <stdint.h>

#include "devctl.h"

struct shim_device;

/* Execute on d's firmware: 0, or a positive errno (firmware status, ETIMEDOUT, EIO). */
int shim_cmd_exec(struct shim_device *d, struct hca_cmd *c);

/* Reset the device, wait for firmware, set up and enable the command queue. 0 or errno. */
int shim_hw_open(struct shim_device *d);
void shim_hw_close(struct shim_device *d);

#endif /* HCASIM_SHIM_HW_H */
