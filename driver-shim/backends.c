// SPDX-License-Identifier: MIT
/*
 * The device backends the shim can hold.  A backend exists in a program only
 * if its library is linked in and registered: the shim links the firmware
 * and the C model and registers "model" (sim/device.c puts the firmware on
 * the engine).  "rtl" and "lockstep" appear here when their engines exist.
 */
#include "device.h"
#include "model.h"

void shim_register_backends(void);

void shim_register_backends(void)
{
	hca_model_engine_register();
	hca_device_register_all();
}
