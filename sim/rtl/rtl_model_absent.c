// SPDX-License-Identifier: MIT
/*
 * For Verilated builds of one width only (mutation analysis, sim/coverage.mk):
 * the other width's constructor says "not built in" (rtl_model.h).
 */
#include <stddef.h>

#include "rtl_model.h"

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

struct rtl_model *CAT(rtl_model_new_, RTL_ABSENT_W)(void)
{
	return NULL;
}
