// SPDX-License-Identifier: MIT
/* RoCEv2 addressing helpers: see gid.h. */
#include "gid.h"

#include <string.h>

static void eui64(const uint8_t mac[6], uint8_t out[8])
{
	out[0] = mac[0] ^ 0x02;
	out[1] = mac[1];
	out[2] = mac[2];
	out[3] = 0xff;
	out[4] = 0xfe;
	out[5] = mac[3];
	out[6] = mac[4];
	out[7] = mac[5];
}

void shim_gid_link_local(const uint8_t mac[6], uint8_t gid[16])
{
	memset(gid, 0, 16);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	eui64(mac, gid + 8);
}

void shim_gid_from_ipv4(uint32_t ip, uint8_t gid[16])
{
	memset(gid, 0, 16);
	gid[10] = 0xff;
	gid[11] = 0xff;
	gid[12] = (uint8_t)(ip >> 24);
	gid[13] = (uint8_t)(ip >> 16);
	gid[14] = (uint8_t)(ip >> 8);
	gid[15] = (uint8_t)ip;
}

int shim_gid_to_ipv4(const uint8_t gid[16], uint32_t *ip)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (memcmp(gid, prefix, sizeof(prefix)))
		return 0;
	*ip = (uint32_t)gid[12] << 24 | (uint32_t)gid[13] << 16 | (uint32_t)gid[14] << 8 | gid[15];
	return 1;
}

int shim_gid_link_local_mac(const uint8_t gid[16], uint8_t mac[6])
{
	static const uint8_t prefix[8] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0 };

	if (memcmp(gid, prefix, sizeof(prefix)) || gid[11] != 0xff || gid[12] != 0xfe)
		return 0;
	mac[0] = gid[8] ^ 0x02;
	mac[1] = gid[9];
	mac[2] = gid[10];
	mac[3] = gid[13];
	mac[4] = gid[14];
	mac[5] = gid[15];
	return 1;
}

uint64_t shim_node_guid(const uint8_t mac[6])
{
	uint8_t b[8];
	uint64_t g;

	eui64(mac, b);
	memcpy(&g, b, sizeof(g));
	return g;
}

int shim_gid_is_zero(const uint8_t gid[16])
{
	for (int i = 0; i < 16; i++)
		if (gid[i])
			return 0;
	return 1;
}
