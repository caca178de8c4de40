/* SPDX-License-Identifier: MIT */
/*
 * Destination MAC resolution for address vectors (the shim's "ARP").
 * The rule is in gid.h and docs/shim.md.
 */
#ifndef HCASIM_SHIM_RESOLVE_H
#define HCASIM_SHIM_RESOLVE_H

#include <stdint.h>

struct ibv_context;
struct shim_device;

/* 0 and the MAC, or EHOSTUNREACH. */
int shim_resolve_dmac(struct shim_device *d, const uint8_t dgid[16], uint8_t mac[6]);
/* The MAC of an HCA with host-order IPv4 address ip that this process knows
 * of (steps 1-3, no default): 0, or ENOENT/ETIMEDOUT/EIO (rdma_resolve_addr). */
int shim_resolve_ipv4(struct shim_device *d, uint32_t ip, uint8_t mac[6]);

/*
 * The GIDs of an address vector (verb: "ibv_modify_qp", "ibv_create_ah"):
 * 0 if the source GID entry and the destination GID are IPv4-mapped, else
 * EINVAL after a message saying that RoCEv2 over IPv6 is not supported and
 * naming the IPv4-mapped GID index to use.  An empty or missing source entry
 * is left to the caller's other checks (0).
 */
int shim_av_check(struct ibv_context *ctx, const char *verb, unsigned int sgid_index,
		  const uint8_t dgid[16]);

#endif /* HCASIM_SHIM_RESOLVE_H */
