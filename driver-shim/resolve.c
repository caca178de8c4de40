// SPDX-License-Identifier: MIT
/* Destination MAC resolution: see resolve.h and gid.h for the rule. */
#include "resolve.h"

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
