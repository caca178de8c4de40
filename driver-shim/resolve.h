/* SPDX-License-Identifier: MIT */
/*
 * Destination MAC resolution for address vectors (the shim's "ARP").
 * The rule is in gid.h and docs/shim.md.
 */
#ifndef HCASIM_SHIM_RESOLVE_H
#define HCASIM_SHIM_RESOLVE_H

#include <stdint.h>

struct shim_device;

/* 0 and the MAC, or EHOSTUNREACH. */
int shim_resolve_dmac(struct shim_device *d, const uint8_t dgid[16], uint8_t mac[6]);

#endif /* HCASIM_SHIM_RESOLVE_H */
