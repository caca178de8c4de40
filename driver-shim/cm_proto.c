// SPDX-License-Identifier: MIT
/*
 * The CM protocol (IB spec chapter 12) between the QP1s of two ports, as
 * Linux's ib_cm runs it for rdma_cm on RoCE:
 *
 *   active                         passive
 *   REQ  ------------------------>  (no listener: REJ "invalid service ID")
 *                                   CONNECT_REQUEST; a resent REQ meanwhile: MRA
 *        <------------------------  REP (after rdma_accept; or REJ: rdma_reject)
 *   RTU  ------------------------>
 *   ESTABLISHED                     ESTABLISHED
 *   DREQ ------------------------>  DISCONNECTED
 *        <------------------------  DREP (rdma_disconnect, or at destroy)
 *   DISCONNECTED
 *
 * UD port spaces use SIDR_REQ/SIDR_REP instead.  Requests (REQ, REP, DREQ,
 * SIDR_REQ) are resent every CM_RESPONSE_TIMEOUT (the passive side: every
 * Local CM Response Timeout of the REQ) until answered, at most
 * CM_MAX_RETRIES times; then the id reports UNREACHABLE (or DISCONNECTED
 * for a DREQ).  Duplicates are answered from the id's state: a resent REP
 * gets the RTU again, a DREQ for a finished connection gets a DREP, a
 * resent SIDR_REQ the same SIDR_REP, a resent REQ we rejected the same REJ
 * (even when its id is gone: "rejected REQs" below).  Everything here runs
 * under cm_lock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cm.h"
#include "gid.h"
#include "log.h"

/* ---- identifiers ---------------------------------------------------------------------- */

static uint64_t rng_state;

static uint32_t rand32(void)
{
	uint64_t x;

	if (!rng_state) {
		struct timespec t;

		clock_gettime(CLOCK_MONOTONIC, &t);
		rng_state = ((uint64_t)t.tv_nsec << 20) ^ (uint64_t)t.tv_sec ^ ((uint64_t)getpid() << 40) ^
			    0x9e3779b97f4a7c15ull;
	}
	x = rng_state;		/* xorshift64* */
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return (uint32_t)((x * 0x2545f4914f6cdd1dull) >> 32);
}

static struct cm_id *find_local(uint32_t local_id)
{
	for (struct cm_id *c = cm_ids; c; c = c->next)
		if (local_id && c->local_id == local_id)
			return c;
	return NULL;
}

/* A fresh, non-zero communication ID no id of this process uses. */
static uint32_t new_comm_id(void)
{
	uint32_t v;

	do
		v = rand32();
	while (!v || find_local(v));
	return v;
}

static uint64_t new_tid(struct cm_id *c)
{
	static uint32_t seq;

	return (uint64_t)c->local_id << 32 | ++seq;
}

static uint8_t min8(unsigned int a, unsigned int b)
{
	return (uint8_t)(a < b ? a : b);
}

/* ---- sending -------------------------------------------------------------------------- */

static void ip_str(const uint8_t gid[16], char *s, size_t n)
{
	uint32_t ip;

	if (shim_gid_to_ipv4(gid, &ip))
		snprintf(s, n, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff, (ip >> 8) & 0xff, ip & 0xff);
	else
		snprintf(s, n, "a non-IPv4 GID");
}

/* Send m to the port with GID gid; keep a copy in `keep` for resending. */
static int send_msg(struct cm_dev *d, const uint8_t gid[16], const struct cm_msg *m, uint8_t *keep)
{
	uint8_t mad[CM_MAD_SIZE];
	char to[32];
	int ret;

	if (cm_mad_pack(m, mad))
		return EINVAL;
	if (keep)
		memcpy(keep, mad, CM_MAD_SIZE);
	ret = cm_agent_send(d, gid, mad);
	ip_str(gid, to, sizeof(to));
	shim_dbg(2, "%s: cm: %s to %s, local id %#x remote id %#x%s", d->sd->cfg.name,
		 cm_attr_name(m->attr), to, m->local_id, m->remote_id, ret ? " (not sent)" : "");
	/* A MAD that did not leave is lost on the wire as far as the protocol
	 * cares: the timers resend requests, and answers are given again. */
	return 0;
}

static void resend(struct cm_id *c)
{
	char to[32];

	ip_str(c->rgid, to, sizeof(to));
	shim_dbg(2, "%s: cm: resending %s to %s (%u retries left)", c->dev->sd->cfg.name,
		 cm_attr_name((uint16_t)(c->mad[16] << 8 | c->mad[17])), to, c->retries);
	cm_agent_send(c->dev, c->rgid, c->mad);
}

static void arm(struct cm_id *c)
{
	c->deadline = cm_now_ms() + cm_timeout_ms(c->resp_timeout);
	c->retries = CM_MAX_RETRIES;
	cm_kick();
}

static void msg_init(struct cm_msg *m, uint16_t attr, const struct cm_id *c, uint64_t tid)
{
	memset(m, 0, sizeof(*m));
	m->attr = attr;
	m->tid = tid;
	m->local_id = c->local_id;
	m->remote_id = c->remote_id;
}

static int copy_pdata(struct cm_msg *m, size_t off, const void *pdata, size_t len)
{
	if (len > cm_pdata_len(m->attr) - off || (len && !pdata))
		return EINVAL;
	if (len)
		memcpy(m->pdata + off, pdata, len);
	return 0;
}

/* ---- rejected REQs --------------------------------------------------------------------- */

/*
 * REQs this side answered with a REJ (rdma_reject, or a request destroyed
 * unanswered).  The active side resends its REQ until an answer reaches it,
 * so a resend can cross the REJ and arrive after the application destroyed
 * the request's id: without a record it would be taken for a new connection
 * request, a second CONNECT_REQUEST for a connection already refused.  It
 * gets the same REJ again instead, for as long as the active side may go on
 * resending.  A ring: when full, the oldest record goes.
 */
#define CM_REJECTED_MAX 16

static struct cm_rejected {
	uint8_t gid[16];		/* our port's */
	uint8_t rgid[16];		/* the active side's */
	uint32_t remote_id;		/* its Local Communication ID */
	uint64_t until;			/* cm_now_ms(); 0: free */
	uint8_t mad[CM_MAD_SIZE];	/* the REJ */
} rejected[CM_REJECTED_MAX];
static unsigned int rejected_next;

static void remember_rejected(const struct cm_id *c, const uint8_t rej[CM_MAD_SIZE])
{
	struct cm_rejected *r = &rejected[rejected_next++ % CM_REJECTED_MAX];

	memcpy(r->gid, c->dev->gid, 16);
	memcpy(r->rgid, c->rgid, 16);
	r->remote_id = c->remote_id;
	r->until = cm_now_ms() + c->req_resend_ms;
	memcpy(r->mad, rej, CM_MAD_SIZE);
}

/* A REQ we rejected before, arriving again: its REJ again; 1 if so. */
static int answer_rejected(struct cm_dev *d, const struct cm_msg *m)
{
	uint64_t now = cm_now_ms();

	for (unsigned int i = 0; i < CM_REJECTED_MAX; i++) {
		struct cm_rejected *r = &rejected[i];

		if (!r->until || r->until < now || r->remote_id != m->local_id || memcmp(r->gid, d->gid, 16) ||
		    memcmp(r->rgid, m->local_gid, 16))
			continue;
		shim_dbg(1, "%s: cm: a resent REQ (local id %#x) we rejected: REJ again", d->sd->cfg.name,
			 m->local_id);
		cm_agent_send(d, r->rgid, r->mad);
		return 1;
	}
	return 0;
}

void cm_forget_rejected(void)
{
	memset(rejected, 0, sizeof(rejected));
	rejected_next = 0;
}

/* A REJ answering message m (no id of ours), to gid. */
static void reject_msg(struct cm_dev *d, const uint8_t gid[16], const struct cm_msg *m, uint8_t what,
		       uint16_t reason)
{
	struct cm_msg r;

	memset(&r, 0, sizeof(r));
	r.attr = CM_ATTR_REJ;
	r.tid = m->tid;
	r.remote_id = m->local_id;
	r.msg = what;
	r.reason = reason;
	send_msg(d, gid, &r, NULL);
}

static void sidr_rep_msg(struct cm_dev *d, const uint8_t gid[16], const struct cm_msg *req,
			 uint8_t status, uint32_t qpn, const void *pdata, size_t len, uint8_t *keep)
{
	struct cm_msg r;

	memset(&r, 0, sizeof(r));
	r.attr = CM_ATTR_SIDR_REP;
	r.tid = req->tid;
	r.local_id = req->local_id;	/* the request ID */
	r.status = status;
	r.service_id = req->service_id;
	if (status == CM_SIDR_SUCCESS) {
		r.qpn = qpn;
		r.qkey = CM_UDP_QKEY;
	}
	copy_pdata(&r, 0, pdata, len);
	send_msg(d, gid, &r, keep);
}

/* ---- the API side ------------------------------------------------------------------------ */

static int is_ud(const struct cm_id *c)
{
	return c->id.ps == RDMA_PS_UDP || c->id.ps == RDMA_PS_IPOIB;
}

static int sidr_connect(struct cm_id *c, const struct rdma_conn_param *p)
{
	struct cm_msg m;
	int ret;

	c->local_id = c->remote_id = new_comm_id();
	msg_init(&m, CM_ATTR_SIDR_REQ, c, new_tid(c));
	m.pkey = 0xffff;
	m.service_id = cm_service_id(c->id.ps, c->rport);
	cm_ip_hdr_pack(m.pdata, c->lip, c->lport, c->rip);
	ret = copy_pdata(&m, CM_IP_HDR_LEN, p ? p->private_data : NULL, p ? p->private_data_len : 0);
	if (ret)
		return ret;
	c->tid = m.tid;
	c->state = CM_SIDR_REQ_SENT;
	arm(c);
	return send_msg(c->dev, c->rgid, &m, c->mad);
}

int cm_connect(struct cm_id *c, const struct rdma_conn_param *p)
{
	struct ibv_qp *qp = c->id.qp;
	struct cm_dev *d = c->dev;
	struct cm_msg m;
	int ret;

	if (is_ud(c))
		return sidr_connect(c, p);
	if (!qp && (!p || !p->qp_num))
		return EINVAL;
	c->qpn = qp ? qp->qp_num : p->qp_num;
	c->resp_res = min8(p ? p->responder_resources : 0xff, d->max_rd_atom);
	c->init_depth = min8(p ? p->initiator_depth : 0xff, d->max_init_rd_atom);
	c->retry_count = min8(p ? p->retry_count : 7, 7);
	c->flow_control = p ? p->flow_control : 1;
	c->srq = (c->id.srq || (qp && qp->srq) || (!qp && p && p->srq)) ? 1 : 0;
	c->lpsn = rand32() & 0xffffff;
	c->mtu = (uint8_t)d->mtu;
	c->local_id = new_comm_id();
	c->remote_id = 0;

	msg_init(&m, CM_ATTR_REQ, c, new_tid(c));
	m.service_id = cm_service_id(c->id.ps, c->rport);
	m.ca_guid = d->guid;
	m.qpn = c->qpn;
	m.resp_res = c->resp_res;
	m.init_depth = c->init_depth;
	m.remote_cm_timeout = CM_RESPONSE_TIMEOUT;
	m.local_cm_timeout = CM_RESPONSE_TIMEOUT;
	m.transport = c->id.qp_type == IBV_QPT_UC ? CM_TRANSPORT_UC : CM_TRANSPORT_RC;
	m.flow_control = c->flow_control;
	m.psn = c->lpsn;
	m.retry_count = c->retry_count;
	m.rnr_retry = min8(p ? p->rnr_retry_count : 7, 7);
	m.max_cm_retries = CM_MAX_RETRIES;
	m.srq = c->srq;
	m.mtu = c->mtu;
	m.pkey = 0xffff;
	memcpy(m.local_gid, d->gid, 16);
	memcpy(m.remote_gid, c->rgid, 16);
	m.traffic_class = c->tos;
	m.hop_limit = CM_HOP_LIMIT;
	/* the passive side's QP timeout: a round trip and our ACK delay (or the application's) */
	m.local_ack_timeout = c->qp_timeout_set ? c->qp_timeout : cm_ack_timeout(CM_QP_TIMEOUT, d->ack_delay);
	cm_ip_hdr_pack(m.pdata, c->lip, c->lport, c->rip);
	ret = copy_pdata(&m, CM_IP_HDR_LEN, p ? p->private_data : NULL, p ? p->private_data_len : 0);
	if (ret)
		return ret;
	c->tid = m.tid;
	c->state = CM_REQ_SENT;
	arm(c);
	return send_msg(d, c->rgid, &m, c->mad);
}

int cm_accept(struct cm_id *c, const struct rdma_conn_param *p)
{
	struct ibv_qp *qp = c->id.qp;
	struct cm_dev *d = c->dev;
	struct cm_msg m;
	int ret;

	if (!qp && (!p || !p->qp_num))
		return EINVAL;
	if (c->state == CM_SIDR_REQ_RCVD) {
		struct cm_msg req = { .tid = c->tid, .local_id = c->remote_id,
				      .service_id = cm_service_id(c->id.ps, c->lport) };

		if (p && p->private_data_len > CM_SIDR_REP_PDATA)
			return EINVAL;
		sidr_rep_msg(d, c->rgid, &req, CM_SIDR_SUCCESS, qp ? qp->qp_num : p->qp_num,
			     p ? p->private_data : NULL, p ? p->private_data_len : 0, c->mad);
		c->state = CM_SIDR_DONE;
		return 0;
	}
	if (c->state != CM_REQ_RCVD)
		return EINVAL;
	c->qpn = qp ? qp->qp_num : p->qp_num;
	/* rdma_accept's defaults: what the REQ offered, within the device's limits */
	c->resp_res = min8(p && p->responder_resources != 0xff ? p->responder_resources : c->peer_init_depth,
			   d->max_rd_atom);
	c->init_depth = min8(p && p->initiator_depth != 0xff ? p->initiator_depth : c->peer_resp_res,
			     d->max_init_rd_atom);
	if (p)
		c->flow_control = p->flow_control;
	c->srq = (c->id.srq || (qp && qp->srq) || (!qp && p && p->srq)) ? 1 : 0;
	msg_init(&m, CM_ATTR_REP, c, c->tid);
	ret = copy_pdata(&m, 0, p ? p->private_data : NULL, p ? p->private_data_len : 0);
	if (ret)
		return ret;
	if (qp) {
		ret = cm_qp_ready(c);
		if (ret)
			return ret;
	}
	m.qpn = c->qpn;
	m.psn = c->lpsn;
	m.resp_res = c->resp_res;
	m.init_depth = c->init_depth;
	m.target_ack_delay = d->ack_delay;
	m.flow_control = c->flow_control;
	m.rnr_retry = min8(p ? p->rnr_retry_count : 7, 7);
	m.srq = c->srq;
	m.ca_guid = d->guid;
	c->state = CM_REP_SENT;
	arm(c);
	return send_msg(d, c->rgid, &m, c->mad);
}

int cm_reject(struct cm_id *c, uint16_t reason, const void *pdata, uint8_t len)
{
	struct cm_msg m;
	int ret;

	if (c->state == CM_SIDR_REQ_RCVD) {
		struct cm_msg req = { .tid = c->tid, .local_id = c->remote_id,
				      .service_id = cm_service_id(c->id.ps, c->lport) };

		if (len > CM_SIDR_REP_PDATA)
			return EINVAL;
		sidr_rep_msg(c->dev, c->rgid, &req, CM_SIDR_REJECT, 0, pdata, len, c->mad);
		c->state = CM_SIDR_DONE;
		return 0;
	}
	if (c->state != CM_REQ_RCVD && c->state != CM_REP_RCVD && c->state != CM_REQ_SENT &&
	    c->state != CM_REP_SENT)
		return EINVAL;
	msg_init(&m, CM_ATTR_REJ, c, c->tid);
	m.msg = c->state == CM_REQ_RCVD ? CM_MSG_REQ : c->state == CM_REP_RCVD ? CM_MSG_REP : CM_MSG_OTHER;
	m.reason = reason;
	ret = copy_pdata(&m, 0, pdata, len);
	if (ret)
		return ret;
	shim_dbg(1, "%s: cm: rejecting connection (reason %u)", c->dev->sd->cfg.name, reason);
	if (c->state == CM_REQ_RCVD) {	/* the REQ may still be resent: answered with this REJ */
		uint8_t rej[CM_MAD_SIZE];

		ret = send_msg(c->dev, c->rgid, &m, rej);
		remember_rejected(c, rej);
	} else {
		ret = send_msg(c->dev, c->rgid, &m, NULL);
	}
	c->state = CM_IDLE;
	c->deadline = 0;
	return ret;
}

int cm_establish(struct cm_id *c)
{
	struct cm_msg m;

	if (c->state != CM_REP_RCVD)
		return EINVAL;
	msg_init(&m, CM_ATTR_RTU, c, c->tid);
	c->state = CM_ESTABLISHED;
	return send_msg(c->dev, c->rgid, &m, NULL);
}

static int send_drep(struct cm_id *c)
{
	struct cm_msg m;

	msg_init(&m, CM_ATTR_DREP, c, c->tid);
	return send_msg(c->dev, c->rgid, &m, NULL);
}

static int send_dreq(struct cm_id *c, int timer)
{
	struct cm_msg m;

	c->tid = new_tid(c);
	msg_init(&m, CM_ATTR_DREQ, c, c->tid);
	m.qpn = c->rqpn;
	c->state = CM_DREQ_SENT;
	if (timer)
		arm(c);
	return send_msg(c->dev, c->rgid, &m, c->mad);
}

int cm_disconnect(struct cm_id *c)
{
	switch (c->state) {
	case CM_ESTABLISHED:
	case CM_REP_SENT:
		return send_dreq(c, 1);
	case CM_DREQ_RCVD:
		c->state = CM_TIMEWAIT;
		return send_drep(c);
	case CM_DREQ_SENT:
	case CM_TIMEWAIT:
		return 0;
	case CM_REQ_SENT:
	case CM_REP_RCVD:
		return cm_reject(c, CM_REJ_CONSUMER, NULL, 0);
	default:
		return EINVAL;
	}
}

void cm_abandon(struct cm_id *c)
{
	switch (c->state) {
	case CM_REQ_RCVD:
	case CM_REP_RCVD:
	case CM_REP_SENT:
		cm_reject(c, CM_REJ_CONSUMER, NULL, 0);
		break;
	case CM_REQ_SENT:
		cm_reject(c, CM_REJ_TIMEOUT, NULL, 0);
		break;
	case CM_ESTABLISHED:
		send_dreq(c, 0);
		break;
	case CM_DREQ_RCVD:
		send_drep(c);
		break;
	case CM_SIDR_REQ_RCVD:
		cm_reject(c, 0, NULL, 0);
		break;
	default:
		break;
	}
	c->state = CM_IDLE;
	c->deadline = 0;
}

/* ---- receiving ------------------------------------------------------------------------ */

static void conn_param(struct cm_event *e, const struct cm_msg *m, size_t off)
{
	struct rdma_conn_param *p = &e->ev.param.conn;
	size_t len = cm_pdata_len(m->attr) - off;

	memcpy(e->pdata, m->pdata + off, len);
	p->private_data = e->pdata;
	p->private_data_len = (uint8_t)len;
	/* the sender's resources, seen from the receiving side */
	p->responder_resources = m->init_depth;
	p->initiator_depth = m->resp_res;
	p->flow_control = m->flow_control;
	p->retry_count = m->retry_count;
	p->rnr_retry_count = m->rnr_retry;
	p->srq = m->srq;
	p->qp_num = m->qpn;
}

static void ud_param(struct cm_event *e, const struct cm_id *c, const struct cm_msg *m, size_t off)
{
	struct rdma_ud_param *p = &e->ev.param.ud;
	size_t len = cm_pdata_len(m->attr) - off;

	memcpy(e->pdata, m->pdata + off, len);
	p->private_data = e->pdata;
	p->private_data_len = (uint8_t)len;
	p->ah_attr.is_global = 1;
	p->ah_attr.port_num = 1;
	p->ah_attr.grh.sgid_index = 1;	/* the IPv4 GID (gid.h) */
	p->ah_attr.grh.hop_limit = CM_HOP_LIMIT;
	p->ah_attr.grh.traffic_class = c->tos;
	memcpy(p->ah_attr.grh.dgid.raw, c->rgid, 16);
	p->qp_num = m->qpn;
	p->qkey = m->qkey;
}

static void post(struct cm_id *c, enum rdma_cm_event_type type, int status, const struct cm_msg *m,
		 size_t off)
{
	struct cm_event *e = cm_event_new(c, type, status);

	if (!e)
		return;
	if (m && is_ud(c))
		ud_param(e, c, m, off);
	else if (m)
		conn_param(e, m, off);
	cm_event_queue(e);
}

static struct cm_id *find_listener(struct cm_dev *d, uint64_t service_id, uint32_t dip)
{
	for (struct cm_id *c = cm_ids; c; c = c->next)
		if (c->state == CM_LISTEN && cm_service_id(c->id.ps, c->lport) == service_id &&
		    (!c->lip || c->lip == dip) && (!c->dev || c->dev == d))
			return c;
	return NULL;
}

/* A new passive id for a request to listener l from sip:sport (gid). */
static struct cm_id *new_child(struct cm_id *l, struct cm_dev *d, const struct cm_msg *m,
			       const uint8_t gid[16], uint32_t sip, uint16_t sport, uint32_t dip)
{
	struct cm_id *c = cm_id_alloc(l->chan, l->id.context, l->id.ps);

	if (!c)
		return NULL;
	cm_bind_dev(c, d);
	c->lip = dip;
	c->lport = l->lport;
	c->rip = sip;
	c->rport = sport;
	c->flags = CM_F_BOUND | CM_F_ADDR | CM_F_ROUTE | CM_F_CONN | CM_F_CHILD;
	memcpy(c->rgid, gid, 16);
	c->tid = m->tid;
	c->remote_id = m->local_id;
	c->listener = l;
	cm_set_addrs(c);
	cm_fill_path(c);
	return c;
}

static void recv_req(struct cm_dev *d, const struct cm_msg *m)
{
	struct cm_event *e;
	struct cm_id *c, *l;
	uint32_t sip, dip;
	uint16_t sport;

	if (answer_rejected(d, m))
		return;
	for (c = cm_ids; c; c = c->next) {
		if (c->dev != d || c->remote_id != m->local_id || memcmp(c->rgid, m->local_gid, 16))
			continue;
		/* a resent REQ: the app is still deciding (MRA), or our REP was lost */
		if (c->state == CM_REQ_RCVD) {
			struct cm_msg r;

			msg_init(&r, CM_ATTR_MRA, c, m->tid);
			r.msg = CM_MSG_REQ;
			r.service_timeout = CM_MRA_TIMEOUT;
			send_msg(d, c->rgid, &r, NULL);
		} else if (c->state == CM_REP_SENT) {
			resend(c);
		}
		return;
	}
	if (cm_ip_hdr_parse(m->pdata, &sip, &sport, &dip) || m->transport != CM_TRANSPORT_RC ||
	    !(l = find_listener(d, m->service_id, dip))) {
		shim_dbg(1, "%s: cm: no listener for service ID %#llx: REJ", d->sd->cfg.name,
			 (unsigned long long)m->service_id);
		reject_msg(d, m->local_gid, m, CM_MSG_REQ, CM_REJ_INVALID_SERVICE_ID);
		return;
	}
	c = new_child(l, d, m, m->local_gid, sip, sport, dip);
	if (!c)
		return;
	c->local_id = new_comm_id();
	c->lpsn = rand32() & 0xffffff;
	c->rqpn = m->qpn;
	c->rpsn = m->psn;
	c->peer_resp_res = m->resp_res;
	c->peer_init_depth = m->init_depth;
	c->resp_res = min8(m->init_depth, d->max_rd_atom);
	c->init_depth = min8(m->resp_res, d->max_init_rd_atom);
	c->retry_count = m->retry_count;
	c->rnr_retry = m->rnr_retry;
	c->flow_control = m->flow_control;
	c->mtu = min8(m->mtu, d->mtu);
	c->tos = m->traffic_class;
	/* IB spec 12.6.5 (REQ): the active side says how long it takes to answer our REP
	 * (Local CM Response Timeout) and which local ACK timeout our QP wants
	 * (Primary Local ACK Timeout: a round trip plus its ACK delay) */
	c->resp_timeout = m->local_cm_timeout;
	/* the active side resends its REQ every Remote CM Response Timeout (plus the service
	 * timeout of each MRA we send), Max CM Retries times */
	c->req_resend_ms = (uint64_t)(m->max_cm_retries + 1) *
			   (cm_timeout_ms(m->remote_cm_timeout) + cm_timeout_ms(CM_MRA_TIMEOUT));
	if (m->local_ack_timeout)
		c->qp_timeout = m->local_ack_timeout;
	c->state = CM_REQ_RCVD;
	e = cm_event_new(l, RDMA_CM_EVENT_CONNECT_REQUEST, 0);
	if (!e) {
		cm_id_free(c);
		return;
	}
	e->ev.id = &c->id;
	e->ev.listen_id = &l->id;
	conn_param(e, m, CM_IP_HDR_LEN);
	cm_event_queue(e);
	shim_dbg(1, "%s: cm: connection request from %u.%u.%u.%u:%u", d->sd->cfg.name, sip >> 24,
		 (sip >> 16) & 0xff, (sip >> 8) & 0xff, sip & 0xff, sport);
}

static void recv_rep(const struct cm_msg *m)
{
	struct cm_id *c = find_local(m->remote_id);
	int ret;

	if (!c)
		return;
	if (c->state == CM_ESTABLISHED) {	/* our RTU was lost */
		struct cm_msg r;

		msg_init(&r, CM_ATTR_RTU, c, c->tid);
		send_msg(c->dev, c->rgid, &r, NULL);
		return;
	}
	if (c->state != CM_REQ_SENT)
		return;
	c->deadline = 0;
	c->remote_id = m->local_id;
	c->rqpn = m->qpn;
	c->rpsn = m->psn;
	c->init_depth = min8(c->init_depth, m->resp_res);
	c->resp_res = min8(c->resp_res, m->init_depth);
	c->rnr_retry = m->rnr_retry;
	/* our QP waits a round trip plus the responder's ACK delay (IB spec 9.7.6.1.3) */
	if (!c->qp_timeout_set)
		c->qp_timeout = (uint8_t)cm_ack_timeout(CM_QP_TIMEOUT, m->target_ack_delay);
	c->flags |= CM_F_CONN;
	c->state = CM_REP_RCVD;
	if (!c->id.qp) {
		post(c, RDMA_CM_EVENT_CONNECT_RESPONSE, 0, m, 0);
		return;
	}
	ret = cm_qp_ready(c);
	if (ret) {
		cm_reject(c, CM_REJ_CONSUMER, NULL, 0);
		post(c, RDMA_CM_EVENT_CONNECT_ERROR, -ret, NULL, 0);
		return;
	}
	cm_establish(c);
	shim_dbg(1, "%s: cm: connection established (QPN %u <-> %u)", c->dev->sd->cfg.name, c->qpn, c->rqpn);
	post(c, RDMA_CM_EVENT_ESTABLISHED, 0, m, 0);
}

static void recv_rtu(const struct cm_msg *m)
{
	struct cm_id *c = find_local(m->remote_id);

	if (!c || c->state != CM_REP_SENT || c->remote_id != m->local_id)
		return;
	c->deadline = 0;
	c->state = CM_ESTABLISHED;
	shim_dbg(1, "%s: cm: connection established (QPN %u <-> %u)", c->dev->sd->cfg.name, c->qpn, c->rqpn);
	post(c, RDMA_CM_EVENT_ESTABLISHED, 0, m, 0);
}

static void recv_rej(const struct cm_msg *m)
{
	struct cm_id *c = find_local(m->remote_id);

	/* An active side giving up its REQ knows no ID of ours: its own names the request. */
	if (!m->remote_id)
		for (c = cm_ids; c; c = c->next)
			if ((c->state == CM_REQ_RCVD || c->state == CM_REP_SENT) && c->remote_id == m->local_id)
				break;
	if (!c || (c->state != CM_REQ_SENT && c->state != CM_REP_RCVD && c->state != CM_REP_SENT &&
		   c->state != CM_REQ_RCVD))
		return;
	shim_dbg(1, "%s: cm: connection rejected (reason %u)", c->dev->sd->cfg.name, m->reason);
	c->deadline = 0;
	c->state = CM_IDLE;
	cm_qp_error(c);
	post(c, RDMA_CM_EVENT_REJECTED, m->reason, m, 0);
}

static void recv_mra(const struct cm_msg *m)
{
	struct cm_id *c = find_local(m->remote_id);

	if (!c || !((c->state == CM_REQ_SENT && m->msg == CM_MSG_REQ) ||
		    (c->state == CM_REP_SENT && m->msg == CM_MSG_REP)))
		return;
	/* the peer needs longer: wait its service timeout on top of ours */
	c->deadline = cm_now_ms() + cm_timeout_ms(m->service_timeout) + cm_timeout_ms(c->resp_timeout);
	cm_kick();
}

static void recv_dreq(struct cm_dev *d, const struct cm_msg *m, const uint8_t gid[16])
{
	struct cm_id *c = find_local(m->remote_id);

	if (!c || c->remote_id != m->local_id) {
		/* a connection we no longer know: answer anyway (Linux cm_issue_drep) */
		struct cm_msg r;

		memset(&r, 0, sizeof(r));
		r.attr = CM_ATTR_DREP;
		r.tid = m->tid;
		r.local_id = m->remote_id;
		r.remote_id = m->local_id;
		send_msg(d, gid, &r, NULL);
		return;
	}
	switch (c->state) {
	case CM_REP_SENT:	/* the RTU was lost: the peer had established */
		c->deadline = 0;
		post(c, RDMA_CM_EVENT_ESTABLISHED, 0, NULL, 0);
		/* fall through */
	case CM_ESTABLISHED:
		c->tid = m->tid;
		c->state = CM_DREQ_RCVD;
		shim_dbg(1, "%s: cm: disconnect request", d->sd->cfg.name);
		post(c, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, 0);
		break;
	case CM_DREQ_SENT:	/* both ends disconnect at once */
		c->deadline = 0;
		c->tid = m->tid;
		c->state = CM_TIMEWAIT;
		send_drep(c);
		post(c, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, 0);
		break;
	case CM_TIMEWAIT:	/* our DREP was lost */
		c->tid = m->tid;
		send_drep(c);
		break;
	default:
		break;
	}
}

static void recv_drep(const struct cm_msg *m)
{
	struct cm_id *c = find_local(m->remote_id);

	if (!c || c->state != CM_DREQ_SENT)
		return;
	c->deadline = 0;
	c->state = CM_TIMEWAIT;
	post(c, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, 0);
}

static void recv_sidr_req(struct cm_dev *d, const struct cm_msg *m, const uint8_t gid[16])
{
	struct cm_event *e;
	struct cm_id *c, *l;
	uint32_t sip, dip;
	uint16_t sport;

	for (c = cm_ids; c; c = c->next) {
		if (c->dev != d || c->remote_id != m->local_id || memcmp(c->rgid, gid, 16) ||
		    (c->state != CM_SIDR_REQ_RCVD && c->state != CM_SIDR_DONE))
			continue;
		if (c->state == CM_SIDR_DONE)	/* our SIDR_REP was lost */
			cm_agent_send(d, gid, c->mad);
		return;
	}
	if (cm_ip_hdr_parse(m->pdata, &sip, &sport, &dip) || !(l = find_listener(d, m->service_id, dip))) {
		sidr_rep_msg(d, gid, m, CM_SIDR_UNSUPPORTED, 0, NULL, 0, NULL);
		return;
	}
	c = new_child(l, d, m, gid, sip, sport, dip);
	if (!c)
		return;
	c->local_id = new_comm_id();
	c->state = CM_SIDR_REQ_RCVD;
	e = cm_event_new(l, RDMA_CM_EVENT_CONNECT_REQUEST, 0);
	if (!e) {
		cm_id_free(c);
		return;
	}
	e->ev.id = &c->id;
	e->ev.listen_id = &l->id;
	ud_param(e, c, m, CM_IP_HDR_LEN);
	cm_event_queue(e);
}

static void recv_sidr_rep(const struct cm_msg *m)
{
	struct cm_id *c = find_local(m->local_id);

	if (!c || c->state != CM_SIDR_REQ_SENT)
		return;
	c->deadline = 0;
	if (m->status != CM_SIDR_SUCCESS) {
		c->state = CM_IDLE;
		post(c, RDMA_CM_EVENT_UNREACHABLE, m->status, m, 0);
		return;
	}
	c->rqpn = m->qpn;
	c->rqkey = m->qkey;
	c->state = CM_IDLE;	/* UD: nothing to disconnect later */
	c->flags |= CM_F_CONN;
	post(c, RDMA_CM_EVENT_ESTABLISHED, 0, m, 0);
}

void cm_recv(struct cm_dev *d, const uint8_t *mad, size_t len, const struct ibv_wc *wc,
	     const struct ibv_grh *grh)
{
	struct ibv_ah_attr from;
	struct cm_msg m;

	if (cm_mad_parse(mad, len, &m)) {
		shim_dbg(2, "%s: cm: ignoring a MAD that is not a CM message", d->sd->cfg.name);
		return;
	}
	/* The sender's GID, from the IPv4 header in the GRH area. */
	if (ibv_init_ah_from_wc(d->ctx, 1, (struct ibv_wc *)wc, (struct ibv_grh *)grh, &from))
		memset(&from, 0, sizeof(from));
	{
		char f[32];

		ip_str(from.grh.dgid.raw, f, sizeof(f));
		shim_dbg(2, "%s: cm: %s from %s, local id %#x remote id %#x", d->sd->cfg.name,
			 cm_attr_name(m.attr), f, m.local_id, m.remote_id);
	}
	switch (m.attr) {
	case CM_ATTR_REQ:
		recv_req(d, &m);
		break;
	case CM_ATTR_REP:
		recv_rep(&m);
		break;
	case CM_ATTR_RTU:
		recv_rtu(&m);
		break;
	case CM_ATTR_REJ:
		recv_rej(&m);
		break;
	case CM_ATTR_MRA:
		recv_mra(&m);
		break;
	case CM_ATTR_DREQ:
		recv_dreq(d, &m, from.grh.dgid.raw);
		break;
	case CM_ATTR_DREP:
		recv_drep(&m);
		break;
	case CM_ATTR_SIDR_REQ:
		recv_sidr_req(d, &m, from.grh.dgid.raw);
		break;
	case CM_ATTR_SIDR_REP:
		recv_sidr_rep(&m);
		break;
	}
}

/* ---- timers ------------------------------------------------------------------------------- */

static void give_up(struct cm_id *c)
{
	shim_dbg(1, "%s: cm: no answer to %s after %u retries", c->dev->sd->cfg.name,
		 cm_attr_name((uint16_t)(c->mad[16] << 8 | c->mad[17])), CM_MAX_RETRIES);
	switch (c->state) {
	case CM_REQ_SENT:
	case CM_REP_SENT:
	case CM_SIDR_REQ_SENT:
		c->state = CM_IDLE;
		cm_qp_error(c);
		post(c, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL, 0);
		break;
	case CM_DREQ_SENT:
		c->state = CM_TIMEWAIT;
		post(c, RDMA_CM_EVENT_DISCONNECTED, -ETIMEDOUT, NULL, 0);
		break;
	default:
		break;
	}
}

uint64_t cm_timers(uint64_t now)
{
	uint64_t next = 0;

	for (struct cm_id *c = cm_ids; c; c = c->next) {
		if (!c->deadline)
			continue;
		if (c->deadline <= now) {
			if (c->retries) {
				c->retries--;
				c->deadline = now + cm_timeout_ms(c->resp_timeout);
				resend(c);
			} else {
				c->deadline = 0;
				give_up(c);
				continue;
			}
		}
		if (!next || c->deadline < next)
			next = c->deadline;
	}
	return next;
}
