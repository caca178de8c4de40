// SPDX-License-Identifier: MIT
/*
 * Links the RTL engine into a shim test program that names no RTL symbol
 * itself: driver-shim/backends.c refers to hca_rtl_engine_register only
 * weakly, which pulls nothing out of libhcartl.
 */
void hca_rtl_engine_register(void);
void (*const shim_test_rtl_engine)(void) = hca_rtl_engine_register;
