// SPDX-License-Identifier: MIT
/* DEVICE methods: capabilities, port and GID table (docs/programming.md 4.5). */
#include <string.h>

#include "fw_handlers.h"

/* enum ibv_device_cap_flags values (libibverbs verbs.h). */
#define IBV_DEVICE_CURR_QP_STATE_MOD (1u << 7)
#define IBV_DEVICE_PORT_ACTIVE_EVENT (1u << 10)
#define IBV_DEVICE_SYS_IMAGE_GUID (1u << 11)
#define IBV_DEVICE_RC_RNR_NAK_GEN (1u << 12)
#define IBV_ATOMIC_HCA 1
#define IBV_LINK_LAYER_ETHERNET 2
#define IB_WIDTH_4X 2
#define IB_SPEED_EDR 32		/* 25 Gb/s per lane: 4x = 100 Gb/s */
#define IB_PHYS_STATE_LINK_UP 5
#define IB_PHYS_STATE_DISABLED 3

/* EUI-64 from the MAC (U/L bit flipped), in memory byte order as verbs keeps GUIDs. */
static uint64_t node_guid(const uint8_t *mac)
{
	uint8_t g[8] = { (uint8_t)(mac[0] ^ 2), mac[1], mac[2], 0xff, 0xfe, mac[3], mac[4], mac[5] };
	uint64_t v;

	memcpy(&v, g, sizeof(v));
	return v;
}

int fw_h_DEVICE_QUERY(struct hca_fw *fw, struct fw_bundle *b)
{
	const struct fw_caps *c = &fw->s.caps;
	struct hca_device_attr a;

	memset(&a, 0, sizeof(a));
	a.fw_ver = fw_init_rd(fw, HCA_INIT_FW_VER);
	a.vendor_id = HCA_VENDOR_ID;
	a.vendor_part_id = HCA_DEVICE_ID;
	a.hw_ver = c->hw_rev;
	a.node_guid = node_guid(fw->board.mac);
	a.sys_image_guid = a.node_guid;
	a.max_mr_size = UINT64_MAX;
	a.page_size_cap = ~(uint64_t)0xfff;	/* any multiple of 4 KiB */
	/* Usable objects: index 0 (and QPN 1) are never handed out. */
	a.max_qp = c->n_qp - 2;
	a.max_qp_wr = 1u << c->log_max_wqe;
	a.device_cap_flags = IBV_DEVICE_CURR_QP_STATE_MOD | IBV_DEVICE_PORT_ACTIVE_EVENT |
			     IBV_DEVICE_SYS_IMAGE_GUID | IBV_DEVICE_RC_RNR_NAK_GEN;
	a.max_sge = c->max_sge;
	a.max_cq = c->n_cq - 1;
	a.max_cqe = 1u << c->log_max_cqe;
	a.max_mr = c->n_mr - 1;
	a.max_pd = c->n_pd - 1;
	a.max_qp_rd_atom = c->max_rd_atomic;
	a.max_qp_init_rd_atom = c->max_rd_atomic;
	a.max_res_rd_atom = a.max_qp * c->max_rd_atomic;
	a.atomic_cap = IBV_ATOMIC_HCA;
	a.max_srq = c->n_srq - 1;
	a.max_srq_wr = 1u << c->log_max_wqe;
	a.max_srq_sge = c->max_sge;
	a.max_pkeys = HCA_CAP_PKEY_TBL_LEN;
	a.local_ca_ack_delay = 15;
	a.phys_port_cnt = HCA_NUM_PORTS;
	a.max_inline_data = c->max_inline;
	a.max_eq = c->n_eq - 1;
	a.num_comp_vectors = c->num_msix;
	a.max_msg_sz = HCA_CAP_MAX_MSG_SZ;
	fw_out(b, HCA_ATTR_DEVICE_QUERY_RESP, &a, sizeof(a));
	return 0;
}

static int check_port(struct fw_bundle *b, uint16_t attr)
{
	if (fw_in_u32(b, attr) != 1)
		return fw_fail(b, attr, HCA_CMD_SYND_HANDLER, HCA_EINVAL);
	return 0;
}

int fw_h_DEVICE_QUERY_PORT(struct hca_fw *fw, struct fw_bundle *b)
{
	struct hca_port_attr p;
	int active;

	if (check_port(b, HCA_ATTR_DEVICE_QUERY_PORT_PORT_NUM))
		return HCA_EINVAL;
	active = fw_mgmt_rd(fw, HCA_MGMT_PORT_STATE) == HCA_PORT_ACTIVE;
	memset(&p, 0, sizeof(p));
	p.state = active ? HCA_PORT_ACTIVE : HCA_PORT_DOWN;
	p.max_mtu = FW_PORT_MTU;
	p.active_mtu = FW_PORT_MTU;
	p.gid_tbl_len = fw->s.caps.gid_tbl_len;
	p.port_cap_flags = 0;
	p.max_msg_sz = HCA_CAP_MAX_MSG_SZ;
	p.pkey_tbl_len = HCA_CAP_PKEY_TBL_LEN;
	p.active_width = IB_WIDTH_4X;
	p.active_speed = IB_SPEED_EDR;
	p.phys_state = active ? IB_PHYS_STATE_LINK_UP : IB_PHYS_STATE_DISABLED;
	p.link_layer = IBV_LINK_LAYER_ETHERNET;
	memcpy(p.mac, fw->board.mac, sizeof(p.mac));
	fw_out(b, HCA_ATTR_DEVICE_QUERY_PORT_RESP, &p, sizeof(p));
	return 0;
}

/* Port 1 and an index inside the table. */
static int gid_index(struct hca_fw *fw, struct fw_bundle *b, uint16_t port_attr, uint16_t idx_attr)
{
	uint32_t idx = fw_in_u32(b, idx_attr);

	if (check_port(b, port_attr))
		return -1;
	if (idx >= fw->s.caps.gid_tbl_len) {
		fw_fail(b, idx_attr, HCA_CMD_SYND_HANDLER, HCA_EINVAL);
		return -1;
	}
	return (int)idx;
}

int fw_h_DEVICE_QUERY_GID(struct hca_fw *fw, struct fw_bundle *b)
{
	int idx = gid_index(fw, b, HCA_ATTR_DEVICE_QUERY_GID_PORT_NUM, HCA_ATTR_DEVICE_QUERY_GID_INDEX);
	struct hca_gid_entry e;

	if (idx < 0)
		return HCA_EINVAL;
	memset(&e, 0, sizeof(e));
	if (fw->s.gid[idx].valid) {
		memcpy(e.gid, fw->s.gid[idx].gid, sizeof(e.gid));
		e.gid_type = HCA_GID_TYPE_ROCE_V2;
		e.valid = 1;
	}
	fw_out(b, HCA_ATTR_DEVICE_QUERY_GID_RESP, &e, sizeof(e));
	return 0;
}

static int write_gid(struct hca_fw *fw, int idx, const uint8_t *gid, int valid)
{
	struct hca_gidc g;

	memset(&g, 0, sizeof(g));
	if (valid) {
		memcpy(g.gid, gid, sizeof(g.gid));
		g.gid_type = HCA_GID_TYPE_ROCE_V2;
		g.valid = 1;
	}
	if (fw_ctx_write(fw, HCA_CTX_TYPE_GIDC, (uint32_t)idx, &g, sizeof(g)))
		return HCA_EIO;
	memcpy(fw->s.gid[idx].gid, g.gid, sizeof(g.gid));
	fw->s.gid[idx].valid = (uint8_t)valid;
	return 0;
}

int fw_h_DEVICE_SET_GID(struct hca_fw *fw, struct fw_bundle *b)
{
	int idx = gid_index(fw, b, HCA_ATTR_DEVICE_SET_GID_PORT_NUM, HCA_ATTR_DEVICE_SET_GID_INDEX);
	const uint8_t *addr = fw_in(b, HCA_ATTR_DEVICE_SET_GID_ADDR);
	uint8_t gid[16];

	if (idx < 0)
		return HCA_EINVAL;
	if (fw_in_elem(b, HCA_ATTR_DEVICE_SET_GID_ADDR) == HCA_ATTR_DEVICE_SET_GID_ADDR_IPV4) {
		/* IPv4-mapped IPv6: ::ffff:a.b.c.d (RFC 4291 2.5.5.2), as Linux RoCEv2. */
		memset(gid, 0, 10);
		gid[10] = 0xff;
		gid[11] = 0xff;
		memcpy(gid + 12, addr, 4);
	} else {
		memcpy(gid, addr, 16);
		/* The unspecified address is no GID (Linux refuses it too). */
		if (fw_is_zero(gid, sizeof(gid)))
			return fw_fail(b, HCA_ATTR_DEVICE_SET_GID_ADDR, HCA_CMD_SYND_HANDLER, HCA_EINVAL);
	}
	return write_gid(fw, idx, gid, 1);
}

int fw_h_DEVICE_DEL_GID(struct hca_fw *fw, struct fw_bundle *b)
{
	int idx = gid_index(fw, b, HCA_ATTR_DEVICE_DEL_GID_PORT_NUM, HCA_ATTR_DEVICE_DEL_GID_INDEX);

	if (idx < 0)
		return HCA_EINVAL;
	return write_gid(fw, idx, NULL, 0);
}

int fw_h_hcasim_DEVICE_QUERY_FW(struct hca_fw *fw, struct fw_bundle *b)
{
	struct hca_fw_info i;

	memset(&i, 0, sizeof(i));
	i.fw_ver = fw_init_rd(fw, HCA_INIT_FW_VER);
	i.interface_rev = HCA_INTERFACE_REV;
	i.engine_rev = fw_mgmt_rd(fw, HCA_MGMT_ENGINE_REV);
	i.health = fw->s.health;
	i.cmds = fw->stats.cmds;
	i.cmd_errors = fw->stats.cmd_errors;
	i.events = fw->stats.events;
	i.events_dropped = fw->stats.events_dropped;
	i.events_lost = fw->stats.events_lost;
	i.eqes = fw->stats.eqes;
	i.eqe_drops = fw->stats.eqe_drops;
	i.resets = fw->stats.resets;
	i.num_ctx = fw->s.ctx_ht.used;
	i.max_handles = FW_MAX_HANDLES;
	i.uptime = fw_now(fw);
	fw_out(b, HCA_HCASIM_ATTR_DEVICE_QUERY_FW_RESP, &i, sizeof(i));
	return 0;
}
