// SPDX-License-Identifier: MIT
/*
 * The device backends the shim can hold.  A backend exists in a program only
 * if its library is linked in and registered (sim/registry.c); the shim
 * registers the ones it is built with, by name: "model" (firmware + C model).
 */
#include "hcasim/backend.h"

void shim_register_backends(void);

void shim_register_backends(void)
{
	/* Filled in as the device backends land (sim/device.c). */
}
