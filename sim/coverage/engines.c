// SPDX-License-Identifier: MIT
/*
 * Linked into the coverage variants of tests (sim/coverage.mk): registers
 * the lockstep and RTL engines at start-up, so that HCASIM_TB_ENGINE=lockstep
 * runs a model test as lockstep(model, rtl) and its coverage is counted on
 * the RTL too.
 */
#include "cov.h"
#include "lockstep.h"

void hca_rtl_engine_register(void);

__attribute__((constructor)) static void cov_engines(void)
{
	hca_lockstep_engine_register();
	hca_rtl_engine_register();
	hca_cov_engine_register();
}
