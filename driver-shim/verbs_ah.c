// SPDX-License-Identifier: MIT
/*
 * Address handles (host software only, like mlx5's): ibv_create_ah,
 * ibv_destroy_ah, ibv_init_ah_from_wc, ibv_create_ah_from_wc.
 *
 * An AH is the UD address segment of a send WQE, resolved once: source GID
 * index, destination GID and MAC (resolve.h), hop limit, traffic class.
 * RoCE needs a GRH: is_global = 0 fails with EINVAL, as the kernel answers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gid.h"
#include "resolve.h"
#include "shim.h"

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct shim_context *c;
	struct shim_ah *ah;
	int ret;

	if (!pd || !attr)
		return shim_null(EINVAL);
	c = to_sctx(pd->context);
	if (!attr->is_global || attr->port_num != 1 ||
	    attr->grh.sgid_index >= HCA_CAP_GID_TBL_LEN)
		return shim_null(EINVAL);
	ret = shim_av_check(pd->context, "ibv_create_ah", attr->grh.sgid_index, attr->grh.dgid.raw);
	if (ret)
		return shim_null(ret);
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return shim_null(ENOMEM);
	ret = shim_resolve_dmac(c->dev, attr->grh.dgid.raw, ah->ud.dmac);
	if (ret) {
		free(ah);
		return shim_null(ret);
	}
	ah->ud.sgid_index = attr->grh.sgid_index;
	ah->ud.hop_limit = attr->grh.hop_limit;
	memcpy(ah->ud.dgid, attr->grh.dgid.raw, 16);
	ah->ud.traffic_class = attr->grh.traffic_class;
	ah->ud.flow_label = attr->grh.flow_label;
	ah->ah.context = pd->context;
	ah->ah.pd = pd;
	return &ah->ah;
}

int ibv_destroy_ah(struct ibv_ah *ah)
{
	free(to_sah(ah));
	return 0;
}

/*
 * Reply address from a UD receive: the 40-byte GRH area holds the received
 * IPv4 header at byte 20 (docs/programming.md 5.2); the reply goes from the
 * GID of the address the request was sent to, to the sender's address.
 */
int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num, struct ibv_wc *wc,
			struct ibv_grh *grh, struct ibv_ah_attr *ah_attr)
{
	const uint8_t *ip = (const uint8_t *)grh + HCA_WIRE_GRH_IPV4_OFF;
	uint32_t src, dst;
	int sgid = -1;

	if (!wc || !grh || !ah_attr || !(wc->wc_flags & IBV_WC_GRH) || (ip[0] >> 4) != 4) {
		errno = EINVAL;
		return -1;
	}
	src = (uint32_t)ip[12] << 24 | (uint32_t)ip[13] << 16 | (uint32_t)ip[14] << 8 | ip[15];
	dst = (uint32_t)ip[16] << 24 | (uint32_t)ip[17] << 16 | (uint32_t)ip[18] << 8 | ip[19];
	for (int i = 0; i < HCA_CAP_GID_TBL_LEN && sgid < 0; i++) {
		union ibv_gid g;
		uint32_t a;

		if (!ibv_query_gid(context, port_num, i, &g) && shim_gid_to_ipv4(g.raw, &a) && a == dst)
			sgid = i;
	}
	if (sgid < 0) {
		errno = ENOENT;
		return -1;
	}
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->is_global = 1;
	ah_attr->port_num = port_num;
	ah_attr->sl = wc->sl;
	ah_attr->grh.sgid_index = (uint8_t)sgid;
	ah_attr->grh.hop_limit = 0xff;
	ah_attr->grh.traffic_class = ip[1];
	shim_gid_from_ipv4(src, ah_attr->grh.dgid.raw);
	return 0;
}

struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh,
				     uint8_t port_num)
{
	struct ibv_ah_attr attr;

	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr))
		return NULL;
	return ibv_create_ah(pd, &attr);
}
