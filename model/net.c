// SPDX-License-Identifier: MIT
/*
 * Frame transmit: the Ethernet/IPv4/UDP fields of docs/wire.md section 1
 * from the QP context (requests) or from the request being answered
 * (responses), then the codec builds the bytes.
 */
#include <stdio.h>
#include <string.h>

#include "model_int.h"

uint32_t model_gid_ipv4(const uint8_t gid[16])
{
	return (uint32_t)gid[12] << 24 | (uint32_t)gid[13] << 16 | (uint32_t)gid[14] << 8 | gid[15];
}

static void port_mac(const struct model *m, uint8_t mac[6])
{
	mac[0] = (uint8_t)(m->mac_hi >> 8);
	mac[1] = (uint8_t)m->mac_hi;
	mac[2] = (uint8_t)(m->mac_lo >> 24);
	mac[3] = (uint8_t)(m->mac_lo >> 16);
	mac[4] = (uint8_t)(m->mac_lo >> 8);
	mac[5] = (uint8_t)m->mac_lo;
}

static uint32_t sgid_ip(const struct model *m, unsigned int idx)
{
	return idx < MODEL_NUM_GID ? model_gid_ipv4(m->gid[idx].gid) : 0;
}

static uint16_t qp_sport(const struct model_qp *qp)
{
	return (uint16_t)(HCA_WIRE_UDP_SPORT_BASE | (qp->qpn & HCA_WIRE_UDP_SPORT_MASK));
}

void model_net_req_hdr(struct model *m, struct model_qp *qp, struct roce_pkt *p, uint8_t opcode)
{
	roce_pkt_init(p, opcode);
	memcpy(p->dmac, qp->cfg.dmac, 6);
	port_mac(m, p->smac);
	p->sip = sgid_ip(m, qp->cfg.sgid_index);
	p->dip = model_gid_ipv4(qp->cfg.dgid);
	p->tos = qp->cfg.traffic_class;
	p->ttl = qp->cfg.hop_limit;
	p->sport = qp_sport(qp);
	p->dqpn = qp->cfg.dest_qpn & PSN_MASK;
}

void model_net_resp_hdr(struct model *m, struct model_qp *qp, const struct roce_pkt *req,
			struct roce_pkt *p, uint8_t opcode)
{
	(void)m;
	roce_pkt_init(p, opcode);
	memcpy(p->dmac, req->smac, 6);
	memcpy(p->smac, req->dmac, 6);
	p->sip = req->dip;
	p->dip = req->sip;
	p->tos = qp->cfg.traffic_class;
	p->ttl = qp->cfg.hop_limit;
	p->sport = qp_sport(qp);
	p->dqpn = qp->cfg.dest_qpn & PSN_MASK;
}

uint8_t *model_net_payload_buf(struct model *m, uint8_t opcode)
{
	return m->txbuf + roce_payload_offset(opcode);
}

void model_net_xmit(struct model *m, struct roce_pkt *p, const void *payload, uint32_t len)
{
	size_t n;

	if (!(m->port_ctrl & HCA_MGMT_PORT_CTRL_UP_MASK))
		return;		/* link down: the frame is lost */
	n = roce_build(p, payload, len, m->txbuf, sizeof(m->txbuf));
	if (n == 0) {
		snprintf(m->err, sizeof(m->err), "internal: roce_build failed (opcode 0x%02x, %u bytes)",
			 p->opcode, len);
		return;
	}
	model_stat(m, HCA_STAT_TX_FRAMES, 1);
	model_stat(m, HCA_STAT_TX_BYTES, (uint32_t)n);
	m->host.tx_frame(m->host_ctx, m->txbuf, n);
}
