// SPDX-License-Identifier: MIT
/*
 * QPs of rdma_cm ids: rdma_create_qp(_ex), rdma_destroy_qp, rdma_create_srq(_ex),
 * rdma_destroy_srq, rdma_init_qp_attr, rdma_create_ep/rdma_destroy_ep, and
 * the QP transitions the CM makes.
 *
 * As with librdmacm, a QP made by rdma_create_qp is moved by the CM: to
 * INIT at once (UD: on to RTS, Q_Key RDMA_UDP_QKEY), to RTR and RTS when
 * the connection is made (REP received or sent), to ERR at disconnect or
 * rejection.  Without CQs in the attributes, it gets a send and a receive
 * CQ, each with its own completion channel (what rdma_get_send_comp and
 * rdma_get_recv_comp wait on); rdma_destroy_qp destroys them.  A QP the
 * application made itself (rping -q) it moves itself, with
 * rdma_init_qp_attr, and announces with conn_param.qp_num.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cm.h"

static int err(int e)
{
	errno = e;
	return -1;
}

static enum ibv_qp_type qp_type(const struct cm_id *c)
{
	return c->id.qp ? c->id.qp->qp_type : c->id.qp_type;
}

int cm_qp_attr(struct cm_id *c, struct ibv_qp_attr *a, int *mask)
{
	enum ibv_qp_state state = a->qp_state;
	enum ibv_qp_type t = qp_type(c);
	int conn = c->flags & CM_F_CONN;

	memset(a, 0, sizeof(*a));
	a->qp_state = state;
	*mask = IBV_QP_STATE;
	switch (state) {
	case IBV_QPS_INIT:
		a->pkey_index = 0;
		a->port_num = 1;
		*mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (t == IBV_QPT_UD) {
			a->qkey = CM_UDP_QKEY;
			*mask |= IBV_QP_QKEY;
		} else {
			/* remote access follows the connection's responder resources */
			if (conn)
				a->qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
						     (c->resp_res && t == IBV_QPT_RC
							      ? IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC : 0);
			*mask |= IBV_QP_ACCESS_FLAGS;
		}
		return 0;
	case IBV_QPS_RTR:
		if (t == IBV_QPT_UD)
			return 0;
		if (!conn)
			return EINVAL;
		a->ah_attr.is_global = 1;
		a->ah_attr.port_num = 1;
		a->ah_attr.grh.sgid_index = 1;	/* the IPv4 GID */
		a->ah_attr.grh.hop_limit = CM_HOP_LIMIT;
		a->ah_attr.grh.traffic_class = c->tos;
		memcpy(a->ah_attr.grh.dgid.raw, c->rgid, 16);
		a->path_mtu = (enum ibv_mtu)c->mtu;
		a->dest_qp_num = c->rqpn;
		a->rq_psn = c->lpsn;	/* the Starting PSN we announced: what we expect */
		*mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
		if (t == IBV_QPT_RC) {
			a->max_dest_rd_atomic = c->resp_res;
			a->min_rnr_timer = CM_MIN_RNR_TIMER;
			*mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		}
		return 0;
	case IBV_QPS_RTS:
		*mask |= IBV_QP_SQ_PSN;
		if (t == IBV_QPT_UD)
			return 0;
		if (!conn)
			return EINVAL;
		a->sq_psn = c->rpsn;	/* the peer's Starting PSN: what it expects */
		if (t == IBV_QPT_RC) {
			a->timeout = c->qp_timeout;
			a->retry_cnt = c->retry_count;
			a->rnr_retry = c->rnr_retry;
			a->max_rd_atomic = c->init_depth;
			*mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		}
		return 0;
	default:
		return EINVAL;
	}
}

static int qp_to(struct cm_id *c, enum ibv_qp_state state)
{
	struct ibv_qp_attr a = { .qp_state = state };
	int mask, ret = cm_qp_attr(c, &a, &mask);

	if (ret)
		return ret;
	return ibv_modify_qp(c->id.qp, &a, mask) ? errno : 0;
}

int cm_qp_ready(struct cm_id *c)
{
	int ret = qp_to(c, IBV_QPS_INIT);	/* INIT -> INIT: the access flags of the connection */

	if (!ret)
		ret = qp_to(c, IBV_QPS_RTR);
	if (!ret)
		ret = qp_to(c, IBV_QPS_RTS);
	return ret;
}

void cm_qp_error(struct cm_id *c)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	if (c->id.qp)
		ibv_modify_qp(c->id.qp, &a, IBV_QP_STATE);
}

int rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr, int *qp_attr_mask)
{
	int ret;

	if (!id || !qp_attr || !qp_attr_mask)
		return err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	ret = cm_qp_attr(to_cmid(id), qp_attr, qp_attr_mask);
	pthread_mutex_unlock(&cm_lock);
	return ret ? err(ret) : 0;
}

/* ---- CQs of their own ------------------------------------------------------------------ */

static int own_cq(struct rdma_cm_id *id, int cqe, struct ibv_comp_channel **ch, struct ibv_cq **cq)
{
	*ch = ibv_create_comp_channel(id->verbs);
	if (!*ch)
		return errno;
	*cq = ibv_create_cq(id->verbs, cqe > 0 ? cqe : 1, id, *ch, 0);
	if (!*cq) {
		int ret = errno;

		ibv_destroy_comp_channel(*ch);
		*ch = NULL;
		return ret;
	}
	return 0;
}

static void drop_cq(struct ibv_comp_channel **ch, struct ibv_cq **cq)
{
	if (*cq)
		ibv_destroy_cq(*cq);
	if (*ch)
		ibv_destroy_comp_channel(*ch);
	*cq = NULL;
	*ch = NULL;
}

static void drop_own_cqs(struct cm_id *c)
{
	if (c->own_send_cq)
		drop_cq(&c->id.send_cq_channel, &c->id.send_cq);
	if (c->own_recv_cq)
		drop_cq(&c->id.recv_cq_channel, &c->id.recv_cq);
	c->own_send_cq = c->own_recv_cq = 0;
}

/* ---- QPs ------------------------------------------------------------------------------------ */

int rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *attr)
{
	struct cm_id *c = to_cmid(id);
	struct cm_dev *d;
	struct ibv_qp *qp;
	int ret;

	if (!id || !attr || !id->verbs || id->qp)
		return err(EINVAL);
	d = cm_dev_by_ctx(id->verbs);
	if (!d)
		return err(EINVAL);
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		attr->pd = id->pd ? id->pd : d->pd;
		attr->comp_mask |= IBV_QP_INIT_ATTR_PD;
	}
	if (attr->pd->context != id->verbs ||
	    (attr->qp_type == IBV_QPT_UD) != (id->qp_type == IBV_QPT_UD))
		return err(EINVAL);
	if (!attr->send_cq) {
		ret = own_cq(id, (int)attr->cap.max_send_wr, &id->send_cq_channel, &id->send_cq);
		if (ret)
			return err(ret);
		c->own_send_cq = 1;
		attr->send_cq = id->send_cq;
	}
	if (!attr->recv_cq) {
		ret = own_cq(id, (int)attr->cap.max_recv_wr, &id->recv_cq_channel, &id->recv_cq);
		if (ret) {
			drop_own_cqs(c);
			return err(ret);
		}
		c->own_recv_cq = 1;
		attr->recv_cq = id->recv_cq;
	}
	if (id->srq && !attr->srq)
		attr->srq = id->srq;
	qp = ibv_create_qp_ex(id->verbs, attr);
	if (!qp) {
		ret = errno;
		drop_own_cqs(c);
		return err(ret);
	}
	pthread_mutex_lock(&cm_lock);
	id->qp = qp;
	id->pd = attr->pd;
	ret = qp_to(c, IBV_QPS_INIT);
	if (!ret && qp->qp_type == IBV_QPT_UD)
		ret = qp_to(c, IBV_QPS_RTR);
	if (!ret && qp->qp_type == IBV_QPT_UD)
		ret = qp_to(c, IBV_QPS_RTS);
	if (ret)
		id->qp = NULL;
	pthread_mutex_unlock(&cm_lock);
	if (ret) {
		ibv_destroy_qp(qp);
		drop_own_cqs(c);
		return err(ret);
	}
	return 0;
}

int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex a;
	int ret;

	if (!qp_init_attr)
		return err(EINVAL);
	memset(&a, 0, sizeof(a));
	memcpy(&a, qp_init_attr, sizeof(*qp_init_attr));
	a.comp_mask = pd ? IBV_QP_INIT_ATTR_PD : 0;
	a.pd = pd;
	ret = rdma_create_qp_ex(id, &a);
	if (!ret) {
		qp_init_attr->cap = a.cap;
		qp_init_attr->send_cq = a.send_cq;
		qp_init_attr->recv_cq = a.recv_cq;
	}
	return ret;
}

void rdma_destroy_qp(struct rdma_cm_id *id)
{
	struct ibv_qp *qp;

	if (!id)
		return;
	pthread_mutex_lock(&cm_lock);
	qp = id->qp;
	id->qp = NULL;
	pthread_mutex_unlock(&cm_lock);
	if (qp)
		ibv_destroy_qp(qp);
	drop_own_cqs(to_cmid(id));
}

int rdma_create_srq_ex(struct rdma_cm_id *id, struct ibv_srq_init_attr_ex *attr)
{
	struct cm_dev *d;
	struct ibv_srq *srq;

	if (!id || !attr || !id->verbs || !(d = cm_dev_by_ctx(id->verbs)))
		return err(EINVAL);
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd) {
		attr->pd = id->pd ? id->pd : d->pd;
		attr->comp_mask |= IBV_SRQ_INIT_ATTR_PD;
	}
	srq = ibv_create_srq_ex(id->verbs, attr);
	if (!srq)
		return -1;
	id->srq = srq;
	id->pd = attr->pd;
	return 0;
}

int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex a;
	int ret;

	if (!attr)
		return err(EINVAL);
	memset(&a, 0, sizeof(a));
	a.srq_context = attr->srq_context;
	a.attr = attr->attr;
	a.comp_mask = pd ? IBV_SRQ_INIT_ATTR_PD : 0;
	a.pd = pd;
	ret = rdma_create_srq_ex(id, &a);
	if (!ret)
		attr->attr = a.attr;
	return ret;
}

void rdma_destroy_srq(struct rdma_cm_id *id)
{
	if (!id || !id->srq)
		return;
	ibv_destroy_srq(id->srq);
	id->srq = NULL;
}

/* ---- endpoints --------------------------------------------------------------------------- */

int rdma_create_ep(struct rdma_cm_id **idp, struct rdma_addrinfo *res, struct ibv_pd *pd,
		   struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *id;
	int ret;

	if (!idp || !res)
		return err(EINVAL);
	if (rdma_create_id(NULL, &id, NULL, (enum rdma_port_space)res->ai_port_space))
		return -1;
	if (res->ai_flags & RAI_PASSIVE) {
		ret = rdma_bind_addr(id, res->ai_src_addr);
		if (!ret && qp_init_attr) {
			struct cm_id *c = to_cmid(id);

			c->ep_attr = malloc(sizeof(*c->ep_attr));
			if (!c->ep_attr) {
				errno = ENOMEM;
				ret = -1;
			} else {
				*c->ep_attr = *qp_init_attr;
				if (res->ai_qp_type)
					c->ep_attr->qp_type = (enum ibv_qp_type)res->ai_qp_type;
				else
					c->ep_attr->qp_type = id->qp_type;
			}
		}
		id->pd = pd;
	} else {
		ret = rdma_resolve_addr(id, res->ai_src_len ? res->ai_src_addr : NULL, res->ai_dst_addr, 2000);
		if (!ret)
			ret = rdma_resolve_route(id, 2000);
		if (!ret && qp_init_attr) {
			qp_init_attr->qp_type = res->ai_qp_type ? (enum ibv_qp_type)res->ai_qp_type : id->qp_type;
			ret = rdma_create_qp(id, pd, qp_init_attr);
		}
	}
	if (ret) {
		int e = errno;

		rdma_destroy_ep(id);
		errno = e;
		return -1;
	}
	*idp = id;
	return 0;
}

void rdma_destroy_ep(struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->qp)
		rdma_destroy_qp(id);
	if (id->srq)
		rdma_destroy_srq(id);
	rdma_destroy_id(id);
}
