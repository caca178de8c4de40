// SPDX-License-Identifier: MIT
/*
 * The device backends the shim can hold.  A backend exists in a program only
 * if its library is linked in and registered: the shim links the firmware
 * and the C model and registers "model" (sim/device.c puts the firmware on
 * the engine) and "lockstep".  "rtl" appears when its engine is linked in.
 */
#include "device.h"
#include "lockstep.h"
#include "model.h"

void hca_mutant_engine_register(void);

void shim_register_backends(void);

void shim_register_backends(void)
{
	hca_model_engine_register();
	/* lockstep: a reference and a DUT engine compared transaction by
	 * transaction (options ref=, dut=; the DUT defaults to "rtl").  Until the
	 * RTL engine is linked in, dut=model or dut=model-mutant run it. */
	hca_lockstep_engine_register();
	hca_mutant_engine_register();
	hca_device_register_all();
}
