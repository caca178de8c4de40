// SPDX-License-Identifier: MIT
/*
 * The device backends the shim can hold.  A backend exists in a program only
 * if its library is linked in and registered: the shim links the firmware
 * and the C model and registers "model" (sim/device.c puts the firmware on
 * the engine) and "lockstep".  "rtl" (the Verilated RTL, sim/rtl) is linked
 * into the preloadable libhcasim-verbs.so; programs linking the static
 * libhcashim get it only if they link libhcartl too (the reference below is
 * weak, so they need not).
 */
#include "device.h"
#include "lockstep.h"
#include "model.h"

void hca_mutant_engine_register(void);
void hca_rtl_engine_register(void) __attribute__((weak));

void shim_register_backends(void);

void shim_register_backends(void)
{
	hca_model_engine_register();
	/* rtl: the Verilated hca_top; backend option `width` (config) picks the
	 * 64- or 512-bit datapath. */
	if (hca_rtl_engine_register)
		hca_rtl_engine_register();
	/* lockstep: a reference and a DUT engine compared transaction by
	 * transaction (options ref=, dut=; the DUT defaults to "rtl"; dut=model
	 * or dut=model-mutant run it without the RTL). */
	hca_lockstep_engine_register();
	hca_mutant_engine_register();
	hca_device_register_all();
}
