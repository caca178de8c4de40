// SPDX-License-Identifier: MIT
/* Destination MAC resolution: see resolve.h and gid.h for the rule. */
#include "resolve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "config.h"
#include "gid.h"
#include "link.h"
#include "log.h"
#include "shim.h"

#define RESOLVE_TIMEOUT_MS 500

/* Steps 1-3 of the rule (gid.h): the HCAs this process knows of. */
int shim_resolve_ipv4(struct shim_device *d, uint32_t ip, uint8_t mac[6])
{
	const struct shim_config *cfg = shim_config();

	/* 1. static neighbour table */
	for (unsigned int i = 0; i < cfg->nneigh; i++)
		if (cfg->neigh[i].ipv4 == ip) {
			memcpy(mac, cfg->neigh[i].mac, 6);
			return 0;
		}
	/* 2. an HCA of this process (itself included: loopback) */
	for (unsigned int i = 0; i < shim_ndevices(); i++) {
		struct shim_device *o = shim_device(i);

		if (o->cfg.ipv4 == ip) {
			memcpy(mac, o->cfg.mac, 6);
			return 0;
		}
	}
	if (!shim_segment_resolve(ip, mac))
		return 0;
	/* 3. the switch knows every HCA connected to it */
	if (d->link) {
		int ret = shim_link_resolve(d->link, ip, mac, RESOLVE_TIMEOUT_MS);

		if (!ret)
			return 0;
		shim_dbg(1, "%s: switch does not know %u.%u.%u.%u (%s)", d->cfg.name, ip >> 24,
			 (ip >> 16) & 0xff, (ip >> 8) & 0xff, ip & 0xff, strerror(-ret));
		return -ret;
	}
	return ENOENT;
}

int shim_resolve_dmac(struct shim_device *d, const uint8_t dgid[16], uint8_t mac[6])
{
	uint32_t ip;

	if (shim_gid_to_ipv4(dgid, &ip)) {
		if (!shim_resolve_ipv4(d, ip, mac))
			return 0;
		/* 4. the default MAC of an hcasim HCA with that address */
		shim_mac_from_ipv4(ip, mac);
		return 0;
	}
	if (shim_gid_link_local_mac(dgid, mac))
		return 0;
	return EHOSTUNREACH;
}

int shim_av_check(struct ibv_context *ctx, const char *verb, unsigned int sgid_index,
		  const uint8_t dgid[16])
{
	char bad[INET6_ADDRSTRLEN], good[INET6_ADDRSTRLEN] = "";
	union ibv_gid sgid, g;
	int v4 = -1;
	uint32_t ip;

	if (sgid_index >= HCA_CAP_GID_TBL_LEN || ibv_query_gid(ctx, 1, (int)sgid_index, &sgid) ||
	    shim_gid_is_zero(sgid.raw))
		return 0;
	if (shim_gid_to_ipv4(sgid.raw, &ip) && shim_gid_to_ipv4(dgid, &ip))
		return 0;
	for (int i = 0; i < HCA_CAP_GID_TBL_LEN && v4 < 0; i++)
		if (!ibv_query_gid(ctx, 1, i, &g) && shim_gid_to_ipv4(g.raw, &ip)) {
			v4 = i;
			inet_ntop(AF_INET6, g.raw, good, sizeof(good));
		}
	if (!shim_gid_to_ipv4(sgid.raw, &ip)) {
		inet_ntop(AF_INET6, sgid.raw, bad, sizeof(bad));
		shim_err("%s: source GID index %u is %s, an IPv6 GID: RoCEv2 over IPv6 is not supported "
			 "by this device; use GID index %d (%s, IPv4-mapped)", verb, sgid_index, bad, v4,
			 good);
	} else {
		inet_ntop(AF_INET6, dgid, bad, sizeof(bad));
		shim_err("%s: destination GID %s is an IPv6 GID: RoCEv2 over IPv6 is not supported by "
			 "this device; address the peer by its IPv4-mapped GID (::ffff:a.b.c.d; "
			 "GID index %d here is %s)", verb, bad, v4, good);
	}
	return EINVAL;
}
