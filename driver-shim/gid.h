/* SPDX-License-Identifier: MIT */
/*
 * RoCEv2 addressing helpers: the GIDs hcasim installs, the node GUID, and
 * destination MAC resolution from a destination GID.
 *
 * GID table of every hcasim port (what the driver installs at bring-up):
 *   index 0  fe80::<EUI-64 of the MAC>    IPv6 link-local, RoCE v2
 *   index 1  ::ffff:<IPv4 address>       IPv4-mapped, RoCE v2  (ibv_rc_pingpong -g 1)
 *
 * Destination MAC rule (docs/shim.md, "Address resolution"), for a dgid:
 *   1. IPv4-mapped dgid: the static neighbour table (config "neigh"), then a
 *      device of this process with that address, then the switch's table
 *      (every HCA announces its MAC and IP when it connects), and finally
 *      the default 02:00:a.b.c.d that `hcasim run` gives an HCA without --mac;
 *   2. link-local dgid with an EUI-64 interface id: the MAC inside it;
 *   3. anything else: not resolvable (EHOSTUNREACH).
 */
#ifndef HCASIM_SHIM_GID_H
#define HCASIM_SHIM_GID_H

#include <stdint.h>

/* fe80::/64 with the modified EUI-64 of mac (U/L bit flipped, ff:fe inserted). */
void shim_gid_link_local(const uint8_t mac[6], uint8_t gid[16]);
/* ::ffff:a.b.c.d of a host-order address. */
void shim_gid_from_ipv4(uint32_t ip, uint8_t gid[16]);
/* 1 and the host-order address if gid is IPv4-mapped, else 0. */
int shim_gid_to_ipv4(const uint8_t gid[16], uint32_t *ip);
/* 1 and the MAC if gid is fe80::/64 with an EUI-64 (…ff:fe…) interface id. */
int shim_gid_link_local_mac(const uint8_t gid[16], uint8_t mac[6]);
/* Node GUID (big-endian in memory, as verbs keeps it) of a port MAC: its EUI-64. */
uint64_t shim_node_guid(const uint8_t mac[6]);
int shim_gid_is_zero(const uint8_t gid[16]);

#endif /* HCASIM_SHIM_GID_H */
