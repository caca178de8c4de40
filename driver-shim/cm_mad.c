// SPDX-License-Identifier: MIT
/* CM MAD encoding and decoding: see cm_mad.h. */
#include "cm_mad.h"

#include <errno.h>
#include <string.h>

/* ---- big-endian fields ------------------------------------------------------------- */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* ---- messages ------------------------------------------------------------------------ */

/* Byte offset of the private data in each message body. */
static int pdata_off(uint16_t attr)
{
	switch (attr) {
	case CM_ATTR_REQ: return 140;
	case CM_ATTR_MRA: return 10;
	case CM_ATTR_REJ: return 84;
	case CM_ATTR_REP: return 36;
	case CM_ATTR_RTU: return 8;
	case CM_ATTR_DREQ: return 12;
	case CM_ATTR_DREP: return 8;
	case CM_ATTR_SIDR_REQ: return 16;
	case CM_ATTR_SIDR_REP: return 96;
	default: return -1;
	}
}

size_t cm_pdata_len(uint16_t attr)
{
	switch (attr) {
	case CM_ATTR_REQ: return CM_REQ_PDATA;
	case CM_ATTR_MRA: return CM_MRA_PDATA;
	case CM_ATTR_REJ: return CM_REJ_PDATA;
	case CM_ATTR_REP: return CM_REP_PDATA;
	case CM_ATTR_RTU: return CM_RTU_PDATA;
	case CM_ATTR_DREQ: return CM_DREQ_PDATA;
	case CM_ATTR_DREP: return CM_DREP_PDATA;
	case CM_ATTR_SIDR_REQ: return CM_SIDR_REQ_PDATA;
	case CM_ATTR_SIDR_REP: return CM_SIDR_REP_PDATA;
	default: return 0;
	}
}

const char *cm_attr_name(uint16_t attr)
{
	switch (attr) {
	case CM_ATTR_REQ: return "REQ";
	case CM_ATTR_MRA: return "MRA";
	case CM_ATTR_REJ: return "REJ";
	case CM_ATTR_REP: return "REP";
	case CM_ATTR_RTU: return "RTU";
	case CM_ATTR_DREQ: return "DREQ";
	case CM_ATTR_DREP: return "DREP";
	case CM_ATTR_SIDR_REQ: return "SIDR_REQ";
	case CM_ATTR_SIDR_REP: return "SIDR_REP";
	default: return "?";
	}
}

static void pack_req(const struct cm_msg *m, uint8_t *b)
{
	put32(b + 0, m->local_id);
	put64(b + 8, m->service_id);
	memcpy(b + 16, &m->ca_guid, 8);
	put32(b + 28, m->qkey);
	put24(b + 32, m->qpn);
	b[35] = m->resp_res;
	b[39] = m->init_depth;
	b[43] = (uint8_t)((m->remote_cm_timeout & 0x1f) << 3 | (m->transport & 3) << 1 | (m->flow_control & 1));
	put24(b + 44, m->psn);
	b[47] = (uint8_t)((m->local_cm_timeout & 0x1f) << 3 | (m->retry_count & 7));
	put16(b + 48, m->pkey);
	b[50] = (uint8_t)((m->mtu & 0xf) << 4 | (m->rnr_retry & 7));
	b[51] = (uint8_t)((m->max_cm_retries & 0xf) << 4 | (m->srq & 1) << 3);
	put16(b + 52, 0xffff);	/* RoCE: permissive LIDs (Annex A16) */
	put16(b + 54, 0xffff);
	memcpy(b + 56, m->local_gid, 16);
	memcpy(b + 72, m->remote_gid, 16);
	put32(b + 88, (m->flow_label & 0xfffff) << 12 | (m->packet_rate & 0x3f));
	b[92] = m->traffic_class;
	b[93] = m->hop_limit;
	b[94] = (uint8_t)((m->sl & 0xf) << 4 | (m->subnet_local & 1) << 3);
	b[95] = (uint8_t)((m->local_ack_timeout & 0x1f) << 3);
	/* 96..139: no alternate path */
}

static void parse_req(const uint8_t *b, struct cm_msg *m)
{
	m->local_id = get32(b + 0);
	m->service_id = get64(b + 8);
	memcpy(&m->ca_guid, b + 16, 8);
	m->qkey = get32(b + 28);
	m->qpn = get24(b + 32);
	m->resp_res = b[35];
	m->init_depth = b[39];
	m->remote_cm_timeout = b[43] >> 3;
	m->transport = (b[43] >> 1) & 3;
	m->flow_control = b[43] & 1;
	m->psn = get24(b + 44);
	m->local_cm_timeout = b[47] >> 3;
	m->retry_count = b[47] & 7;
	m->pkey = get16(b + 48);
	m->mtu = b[50] >> 4;
	m->rnr_retry = b[50] & 7;
	m->max_cm_retries = b[51] >> 4;
	m->srq = (b[51] >> 3) & 1;
	memcpy(m->local_gid, b + 56, 16);
	memcpy(m->remote_gid, b + 72, 16);
	m->flow_label = get32(b + 88) >> 12;
	m->packet_rate = b[91] & 0x3f;
	m->traffic_class = b[92];
	m->hop_limit = b[93];
	m->sl = b[94] >> 4;
	m->subnet_local = (b[94] >> 3) & 1;
	m->local_ack_timeout = b[95] >> 3;
}

static void pack_rep(const struct cm_msg *m, uint8_t *b)
{
	put32(b + 0, m->local_id);
	put32(b + 4, m->remote_id);
	put32(b + 8, m->qkey);
	put24(b + 12, m->qpn);
	put24(b + 20, m->psn);
	b[24] = m->resp_res;
	b[25] = m->init_depth;
	b[26] = (uint8_t)((m->target_ack_delay & 0x1f) << 3 | (m->failover & 3) << 1 | (m->flow_control & 1));
	b[27] = (uint8_t)((m->rnr_retry & 7) << 5 | (m->srq & 1) << 4);
	memcpy(b + 28, &m->ca_guid, 8);
}

static void parse_rep(const uint8_t *b, struct cm_msg *m)
{
	m->local_id = get32(b + 0);
	m->remote_id = get32(b + 4);
	m->qkey = get32(b + 8);
	m->qpn = get24(b + 12);
	m->psn = get24(b + 20);
	m->resp_res = b[24];
	m->init_depth = b[25];
	m->target_ack_delay = b[26] >> 3;
	m->failover = (b[26] >> 1) & 3;
	m->flow_control = b[26] & 1;
	m->rnr_retry = b[27] >> 5;
	m->srq = (b[27] >> 4) & 1;
	memcpy(&m->ca_guid, b + 28, 8);
}

int cm_mad_pack(const struct cm_msg *m, uint8_t mad[CM_MAD_SIZE])
{
	uint8_t *b = mad + CM_MAD_HDR;
	int off = pdata_off(m->attr);

	if (off < 0)
		return -EINVAL;
	memset(mad, 0, CM_MAD_SIZE);
	mad[0] = 1;			/* BaseVersion */
	mad[1] = CM_MGMT_CLASS;
	mad[2] = CM_CLASS_VERSION;
	mad[3] = CM_METHOD_SEND;
	put64(mad + 8, m->tid);
	put16(mad + 16, m->attr);
	switch (m->attr) {
	case CM_ATTR_REQ:
		pack_req(m, b);
		break;
	case CM_ATTR_REP:
		pack_rep(m, b);
		break;
	case CM_ATTR_REJ:
		put32(b + 0, m->local_id);
		put32(b + 4, m->remote_id);
		b[8] = (uint8_t)((m->msg & 3) << 6);
		b[9] = (uint8_t)((m->ari_len & 0x7f) << 1);
		put16(b + 10, m->reason);
		break;
	case CM_ATTR_MRA:
		put32(b + 0, m->local_id);
		put32(b + 4, m->remote_id);
		b[8] = (uint8_t)((m->msg & 3) << 6);
		b[9] = (uint8_t)((m->service_timeout & 0x1f) << 3);
		break;
	case CM_ATTR_DREQ:
		put32(b + 0, m->local_id);
		put32(b + 4, m->remote_id);
		put24(b + 8, m->qpn);
		break;
	case CM_ATTR_RTU:
	case CM_ATTR_DREP:
		put32(b + 0, m->local_id);
		put32(b + 4, m->remote_id);
		break;
	case CM_ATTR_SIDR_REQ:
		put32(b + 0, m->local_id);
		put16(b + 4, m->pkey);
		put64(b + 8, m->service_id);
		break;
	case CM_ATTR_SIDR_REP:
		put32(b + 0, m->local_id);
		b[4] = m->status;
		put24(b + 8, m->qpn);
		put64(b + 12, m->service_id);
		put32(b + 20, m->qkey);
		break;
	}
	memcpy(b + off, m->pdata, cm_pdata_len(m->attr));
	return 0;
}

int cm_mad_parse(const uint8_t *mad, size_t len, struct cm_msg *m)
{
	const uint8_t *b = mad + CM_MAD_HDR;
	int off;

	memset(m, 0, sizeof(*m));
	if (len < CM_MAD_SIZE || mad[0] != 1 || mad[1] != CM_MGMT_CLASS || mad[2] != CM_CLASS_VERSION ||
	    mad[3] != CM_METHOD_SEND)
		return -EINVAL;
	m->attr = get16(mad + 16);
	m->tid = get64(mad + 8);
	off = pdata_off(m->attr);
	if (off < 0)
		return -EINVAL;
	switch (m->attr) {
	case CM_ATTR_REQ:
		parse_req(b, m);
		break;
	case CM_ATTR_REP:
		parse_rep(b, m);
		break;
	case CM_ATTR_REJ:
		m->local_id = get32(b + 0);
		m->remote_id = get32(b + 4);
		m->msg = b[8] >> 6;
		m->ari_len = b[9] >> 1;
		m->reason = get16(b + 10);
		break;
	case CM_ATTR_MRA:
		m->local_id = get32(b + 0);
		m->remote_id = get32(b + 4);
		m->msg = b[8] >> 6;
		m->service_timeout = b[9] >> 3;
		break;
	case CM_ATTR_DREQ:
		m->local_id = get32(b + 0);
		m->remote_id = get32(b + 4);
		m->qpn = get24(b + 8);
		break;
	case CM_ATTR_RTU:
	case CM_ATTR_DREP:
		m->local_id = get32(b + 0);
		m->remote_id = get32(b + 4);
		break;
	case CM_ATTR_SIDR_REQ:
		m->local_id = get32(b + 0);
		m->pkey = get16(b + 4);
		m->service_id = get64(b + 8);
		break;
	case CM_ATTR_SIDR_REP:
		m->local_id = get32(b + 0);
		m->status = b[4];
		m->qpn = get24(b + 8);
		m->service_id = get64(b + 12);
		m->qkey = get32(b + 20);
		break;
	}
	memcpy(m->pdata, b + off, cm_pdata_len(m->attr));
	return 0;
}

/* ---- RDMA IP CM service ------------------------------------------------------------- */

void cm_ip_hdr_pack(uint8_t hdr[CM_IP_HDR_LEN], uint32_t src_ip, uint16_t src_port, uint32_t dst_ip)
{
	memset(hdr, 0, CM_IP_HDR_LEN);
	hdr[0] = CM_IP_HDR_VERSION;
	hdr[1] = 4 << 4;		/* IP version in the high nibble */
	put16(hdr + 2, src_port);
	put32(hdr + 16, src_ip);	/* IPv4: the last word of the 16-byte address */
	put32(hdr + 32, dst_ip);
}

int cm_ip_hdr_parse(const uint8_t hdr[CM_IP_HDR_LEN], uint32_t *src_ip, uint16_t *src_port,
		    uint32_t *dst_ip)
{
	if (hdr[0] != CM_IP_HDR_VERSION || (hdr[1] >> 4) != 4)
		return -EINVAL;
	*src_port = get16(hdr + 2);
	*src_ip = get32(hdr + 16);
	*dst_ip = get32(hdr + 32);
	return 0;
}

unsigned int cm_ack_timeout(unsigned int rtt, unsigned int delay)
{
	uint64_t want = (1ull << (rtt > 31 ? 31 : rtt)) + (1ull << (delay > 31 ? 31 : delay));
	unsigned int t = 0;

	while (t < 31 && (1ull << t) < want)
		t++;
	return t;
}

unsigned int cm_timeout_ms(unsigned int t)
{
	uint64_t us = (4096ull << (t > 31 ? 31 : t)) / 1000;

	return us < 1000 ? 1 : (unsigned int)(us / 1000);
}
