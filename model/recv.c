// SPDX-License-Identifier: MIT
/*
 * Frame receive (docs/wire.md section 1 "Receive"): check the frame in the
 * order wire.md lists (port, Ethernet/IPv4/UDP, addresses, ICRC, BTH and
 * opcode, destination QP, Q_Key), then hand requests to the responder and
 * responses to the completer.  Every frame counts in
 * RX_FRAMES/RX_BYTES; every drop counts in exactly one HCA_STAT_RX_DROP_*.
 */
#include <string.h>

#include "model_int.h"

static bool mac_is_ours(const struct model *m, const uint8_t mac[6])
{
	return mac[0] == (uint8_t)(m->mac_hi >> 8) && mac[1] == (uint8_t)m->mac_hi &&
	       mac[2] == (uint8_t)(m->mac_lo >> 24) && mac[3] == (uint8_t)(m->mac_lo >> 16) &&
	       mac[4] == (uint8_t)(m->mac_lo >> 8) && mac[5] == (uint8_t)m->mac_lo;
}

static bool ip_is_ours(const struct model *m, uint32_t ip)
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	for (unsigned int i = 0; i < MODEL_NUM_GID; i++)
		if (m->gid[i].valid && !memcmp(m->gid[i].gid, v4mapped, 12) &&
		    model_gid_ipv4(m->gid[i].gid) == ip)
			return true;
	return false;
}

static uint8_t opcode_qp_type(uint32_t flags)
{
	if (flags & ROCE_OP_RC)
		return HCA_QPT_RC;
	if (flags & ROCE_OP_UC)
		return HCA_QPT_UC;
	return HCA_QPT_UD;
}

void model_rx_frame(struct model *m, const uint8_t *frame, size_t len)
{
	const struct roce_opcode_info *info;
	struct model_qp *qp;
	enum roce_drop_reason why = ROCE_DROP_NONE;
	struct roce_pkt pkt;
	enum roce_parse_err r;

	model_stat(m, HCA_STAT_RX_FRAMES, 1);
	model_stat(m, HCA_STAT_RX_BYTES, (uint32_t)len);
	if (!model_enabled(m) || !(m->port_ctrl & HCA_MGMT_PORT_CTRL_UP_MASK)) {
		model_stat(m, HCA_STAT_RX_DROP_PORT_DOWN, 1);
		return;
	}
	/* checks in the order of docs/wire.md 1 "Receive" */
	r = roce_parse_ex(frame, len, &pkt, &why);
	if (r != ROCE_OK && why < ROCE_DROP_ICRC) {
		model_stat(m, HCA_STAT_RX_DROP_MALFORMED, 1);	/* Ethernet/IPv4/UDP */
		return;
	}
	/* the Ethernet and IPv4 headers are sound: addresses before ICRC and BTH */
	if (!mac_is_ours(m, frame) || !ip_is_ours(m, (uint32_t)frame[30] << 24 | (uint32_t)frame[31] << 16 |
						(uint32_t)frame[32] << 8 | frame[33])) {
		model_stat(m, HCA_STAT_RX_DROP_ADDR, 1);
		return;
	}
	if (r == ROCE_ERR_ICRC) {
		model_stat(m, HCA_STAT_RX_DROP_ICRC, 1);
		return;
	}
	info = r == ROCE_OK ? roce_opcode(pkt.opcode) : NULL;
	if (!info) {
		model_stat(m, HCA_STAT_RX_DROP_MALFORMED, 1);	/* opcode, TVer, header lengths, pad */
		return;
	}
	qp = model_qp_get(m, pkt.dqpn);
	if (!qp || qp->cfg.qp_type != opcode_qp_type(info->flags) ||
	    qp->cur_state == HCA_QPS_INIT || qp->cur_state == HCA_QPS_ERR) {
		model_stat(m, HCA_STAT_RX_DROP_NO_QP, 1);
		return;
	}
	if (qp->cfg.qp_type == HCA_QPT_UD && pkt.deth.qkey != qp->cfg.qkey) {
		model_stat(m, HCA_STAT_RX_DROP_QKEY, 1);
		return;
	}
	model_qp_kick(m, qp);
	if (qp->cfg.qp_type != HCA_QPT_UD && qp->cur_state == HCA_QPS_RTR && !qp->comm_est) {
		qp->comm_est = true;
		model_event(m, HCA_EVENT_COMM_EST, qp->qpn);
	}
	if (info->flags & ROCE_OP_REQ)
		model_responder(m, qp, &pkt);
	else
		model_completer(m, qp, &pkt);
}
