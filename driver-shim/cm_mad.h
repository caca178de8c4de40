/* SPDX-License-Identifier: MIT */
/*
 * Communication Management MADs (IB spec chapter 12, Annex A11 for RoCE):
 * the 256-byte datagrams the connection manager exchanges on QP1.
 *
 *   MAD header (24 bytes): BaseVersion 1, MgmtClass 0x07 (CM), ClassVersion 2,
 *   Method 0x03 (Send), Status 0, TransactionID, AttributeID, AttributeModifier 0;
 *   then the message (232 bytes), big-endian, fields at the byte/bit offsets
 *   of the spec's message tables (REQ 12.6.5, MRA 12.6.6, REJ 12.6.7,
 *   REP 12.6.8, RTU 12.6.9, DREQ 12.6.10, DREP 12.6.11, SIDR_REQ/REP 12.11).
 *
 * RDMA IP CM service (Annex A11): service IDs 0x00000000_01PPpppp (PP the
 * port space: 0x06 TCP, 0x11 UDP, 0x3F IB; pppp the port) and a 36-byte
 * header at the start of the REQ/SIDR_REQ private data carrying the IP
 * addresses and the source port; the user's private data follows it.
 *
 * cm_mad_pack/cm_mad_parse convert between struct cm_msg (host values) and
 * the wire bytes; they know nothing about connections (cm_proto.c does).
 */
#ifndef HCASIM_SHIM_CM_MAD_H
#define HCASIM_SHIM_CM_MAD_H

#include <stddef.h>
#include <stdint.h>

#define CM_MAD_SIZE 256
#define CM_MAD_HDR 24
#define CM_MGMT_CLASS 0x07
#define CM_CLASS_VERSION 2
#define CM_METHOD_SEND 0x03

enum cm_attr {
	CM_ATTR_REQ = 0x0010,
	CM_ATTR_MRA = 0x0011,
	CM_ATTR_REJ = 0x0012,
	CM_ATTR_REP = 0x0013,
	CM_ATTR_RTU = 0x0014,
	CM_ATTR_DREQ = 0x0015,
	CM_ATTR_DREP = 0x0016,
	CM_ATTR_SIDR_REQ = 0x0017,
	CM_ATTR_SIDR_REP = 0x0018,
};

/* Private data each message carries (bytes). */
enum {
	CM_REQ_PDATA = 92,
	CM_MRA_PDATA = 222,
	CM_REJ_PDATA = 148,
	CM_REP_PDATA = 196,
	CM_RTU_PDATA = 224,
	CM_DREQ_PDATA = 220,
	CM_DREP_PDATA = 224,
	CM_SIDR_REQ_PDATA = 216,
	CM_SIDR_REP_PDATA = 136,
	CM_MAX_PDATA = 224,
};

/* REJ reasons (IB spec table 112) and SIDR_REP status (table 118) we use. */
enum {
	CM_REJ_TIMEOUT = 1,
	CM_REJ_INVALID_SERVICE_ID = 8,
	CM_REJ_STALE_CONN = 10,
	CM_REJ_CONSUMER = 28,
	CM_SIDR_SUCCESS = 0,
	CM_SIDR_UNSUPPORTED = 1,
	CM_SIDR_REJECT = 2,
};

/* Which message a REJ or MRA refers to. */
enum { CM_MSG_REQ = 0, CM_MSG_REP = 1, CM_MSG_OTHER = 2 };

/* Transport service type of a REQ. */
enum { CM_TRANSPORT_RC = 0, CM_TRANSPORT_UC = 1 };

/* One CM message, decoded: the fields its attribute has, the rest zero. */
struct cm_msg {
	uint16_t attr;			/* enum cm_attr */
	uint64_t tid;			/* MAD TransactionID */
	uint32_t local_id, remote_id;	/* Local/Remote Communication ID; SIDR: RequestID in local_id */
	uint64_t service_id;		/* REQ, SIDR_REQ, SIDR_REP */
	uint64_t ca_guid;		/* REQ, REP: Local CA GUID (as verbs keeps GUIDs: big-endian) */
	uint32_t qkey;			/* REQ, REP, SIDR_REP */
	uint32_t qpn;			/* REQ, REP, SIDR_REP: local QPN; DREQ: remote QPN */
	uint32_t psn;			/* REQ, REP: starting PSN */
	uint8_t resp_res, init_depth;	/* REQ, REP */
	uint8_t remote_cm_timeout;	/* REQ */
	uint8_t local_cm_timeout;	/* REQ */
	uint8_t transport;		/* REQ: CM_TRANSPORT_* */
	uint8_t flow_control;		/* REQ, REP: end-to-end flow control */
	uint8_t retry_count;		/* REQ */
	uint8_t rnr_retry;		/* REQ, REP */
	uint8_t max_cm_retries;		/* REQ */
	uint8_t srq;			/* REQ, REP */
	uint8_t mtu;			/* REQ: path MTU (enum ibv_mtu) */
	uint16_t pkey;			/* REQ, SIDR_REQ */
	uint8_t local_gid[16], remote_gid[16];	/* REQ primary path */
	uint32_t flow_label;		/* REQ primary path */
	uint8_t packet_rate, traffic_class, hop_limit, sl, subnet_local, local_ack_timeout;
	uint8_t target_ack_delay, failover;	/* REP */
	uint8_t msg;			/* REJ: message rejected, MRA: message MRAed (CM_MSG_*) */
	uint16_t reason;		/* REJ */
	uint8_t ari_len;		/* REJ: Reject Info Length (ARI bytes) */
	uint8_t service_timeout;	/* MRA */
	uint8_t status;			/* SIDR_REP */
	uint8_t pdata[CM_MAX_PDATA];	/* private data (the attribute's size, zero-padded) */
};

/* Private data size of an attribute (0 for unknown ones). */
size_t cm_pdata_len(uint16_t attr);
/* Encode m into mad[CM_MAD_SIZE]. 0, or -EINVAL for an attribute this code does not send. */
int cm_mad_pack(const struct cm_msg *m, uint8_t mad[CM_MAD_SIZE]);
/* Decode a received MAD. 0, or -EINVAL: too short, not a CM Send of class version 2, unknown attribute. */
int cm_mad_parse(const uint8_t *mad, size_t len, struct cm_msg *m);
const char *cm_attr_name(uint16_t attr);

/* ---- RDMA IP CM service (Annex A11) ---------------------------------------------- */

#define CM_IP_HDR_LEN 36
#define CM_IP_HDR_VERSION 0x00		/* CM version of the header */
#define CM_SERVICE_ID_PREFIX 0x0000000001000000ull
#define CM_SERVICE_ID_MASK 0xffffffffff000000ull

/* Service ID of port `port` in the port space `ps` (enum rdma_port_space: 0x0106 TCP, ...). */
static inline uint64_t cm_service_id(uint32_t ps, uint16_t port)
{
	return ((uint64_t)(ps & 0xffff) << 16) | port;
}

/* The 36-byte IP header: IPv4 addresses in host byte order, ports in host order. */
void cm_ip_hdr_pack(uint8_t hdr[CM_IP_HDR_LEN], uint32_t src_ip, uint16_t src_port, uint32_t dst_ip);
/* 0, or -EINVAL if it is not a version-0 IPv4 header. */
int cm_ip_hdr_parse(const uint8_t hdr[CM_IP_HDR_LEN], uint32_t *src_ip, uint16_t *src_port,
		    uint32_t *dst_ip);

/* 4.096 us * 2^t, in milliseconds (at least 1): the CM's timeout encoding. */
unsigned int cm_timeout_ms(unsigned int t);
/*
 * The local ACK timeout that covers a round trip of 4.096 us * 2^rtt and a
 * responder's ACK delay of 4.096 us * 2^delay: the smallest t (at most 31)
 * with 2^t >= 2^rtt + 2^delay (IB spec 9.7.6.1.3: 2 x PacketLifeTime + the
 * target's ACK delay; the REQ's Primary Local ACK Timeout and the REP's
 * Target ACK Delay, 12.6.5/12.6.8, carry its parts).
 */
unsigned int cm_ack_timeout(unsigned int rtt, unsigned int delay);

#endif /* HCASIM_SHIM_CM_MAD_H */
