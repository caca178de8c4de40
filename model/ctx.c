// SPDX-License-Identifier: MIT
/*
 * Context tables (CTX_CMD through the staging buffer) and the QP state
 * changes a QPC write makes (docs/programming.md 4.6 and 7).
 *
 * Index rules: QPN 0, CQN 0, SRQN 0 and MR index 0 are reserved
 * (HCA_MGMT_STATUS_BAD_INDEX); EQN 0 and GID index 0 are usable.  QPN 1 is
 * the GSI QP (firmware gives it a UD context; the engine treats it as UD).
 */
#include <stdlib.h>
#include <string.h>

#include "model_int.h"

#define QPC_CFG_BYTES 0x80
#define QPC_ONESHOT (HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK | HCA_QPC_FLAGS_LOAD_RQ_PSN_MASK | \
		     HCA_QPC_FLAGS_RESET_STATE_MASK)
#define CFG32 0x20	/* configuration bytes of CQC/SRQC/EQC */

struct model_qp *model_qp_get(struct model *m, uint32_t qpn)
{
	if (qpn < HCA_QPN_GSI || qpn >= MODEL_NUM_QP || m->qp[qpn].cur_state == HCA_QPS_RESET)
		return NULL;
	return &m->qp[qpn];
}

struct model_cq *model_cq_get(struct model *m, uint32_t cqn)
{
	if (cqn == 0 || cqn >= MODEL_NUM_CQ || !m->cq[cqn].c.valid)
		return NULL;
	return &m->cq[cqn];
}

struct model_srq *model_srq_get(struct model *m, uint32_t srqn)
{
	if (srqn == 0 || srqn >= MODEL_NUM_SRQ || !m->srq[srqn].c.valid)
		return NULL;
	return &m->srq[srqn];
}

struct model_eq *model_eq_get(struct model *m, uint32_t eqn)
{
	if (eqn >= MODEL_NUM_EQ || !m->eq[eqn].c.valid)
		return NULL;
	return &m->eq[eqn];
}

/* RESET_STATE: forget every dynamic part of the QP (configuration kept). */
void model_qp_reset_state(struct model_qp *qp)
{
	struct hca_qpc cfg = qp->cfg;
	uint32_t qpn = qp->qpn;
	uint8_t cur = qp->cur_state;
	struct model_swqe *swq = qp->swq;

	memset(qp, 0, sizeof(*qp));
	qp->cfg = cfg;
	qp->qpn = qpn;
	qp->cur_state = cur;
	qp->swq = swq;
	qp->ack_deadline = MODEL_NO_DEADLINE;
	qp->rnr_deadline = MODEL_NO_DEADLINE;
	qp->retry_left = cfg.retry_cnt & 7;
	qp->rnr_left = cfg.rnr_retry & 7;
}

static void qpc_write(struct model *m, struct model_qp *qp)
{
	struct hca_qpc n;
	uint8_t old = qp->cur_state, flags;

	memset(&n, 0, sizeof(n));
	memcpy(&n, m->ctx_data, QPC_CFG_BYTES);
	flags = n.flags;
	n.flags &= (uint8_t)~QPC_ONESHOT;
	qp->cfg = n;
	/* a QP in RESET has no state (and the engine forgets it) */
	if ((flags & HCA_QPC_FLAGS_RESET_STATE_MASK) || n.state == HCA_QPS_RESET) {
		model_qp_reset_state(qp);
		if (n.state == HCA_QPS_RESET) {
			free(qp->swq);
			qp->swq = NULL;
		}
	}
	if (flags & HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK) {
		qp->psn_next = n.sq_psn & PSN_MASK;
		qp->una_psn = qp->psn_next;
	}
	if (flags & HCA_QPC_FLAGS_LOAD_RQ_PSN_MASK)
		qp->epsn = n.rq_psn & PSN_MASK;
	/* new retry budgets take effect at once */
	qp->retry_left = n.retry_cnt & 7;
	qp->rnr_left = n.rnr_retry & 7;

	qp->cur_state = n.state;
	switch (n.state) {
	case HCA_QPS_ERR:
		if (old != HCA_QPS_RESET && old != HCA_QPS_ERR) {
			qp->cur_state = old;	/* let model_qp_to_err see the transition */
			model_qp_to_err(m, qp, -1);
		}
		break;
	case HCA_QPS_SQD:
		if (old != HCA_QPS_SQD)
			qp->sq_draining = true;
		break;
	case HCA_QPS_RESET:
	case HCA_QPS_INIT:
	case HCA_QPS_RTR:
		qp->sq_draining = false;
		break;
	default:
		qp->sq_draining = false;
		break;
	}
	model_qp_kick(m, qp);
}

static void qpc_read(struct model *m, struct model_qp *qp)
{
	struct hca_qpc c = qp->cfg;

	c.cur_state = qp->cur_state;
	c.sq_draining = qp->sq_draining;
	c.sq_psn_next = qp->psn_next;
	c.rq_psn_expected = qp->epsn;
	c.msn = qp->msn;
	c.sq_pi = qp->sq_pi;
	c.sq_ci = qp->sq_ci;
	c.rq_pi = qp->rq_pi;
	c.rq_ci = qp->rq_ci;
	memcpy(m->ctx_data, &c, sizeof(c));
}

static uint32_t ctx_limit(uint32_t type, uint32_t *first, size_t *size)
{
	switch (type) {
	case HCA_CTX_TYPE_QPC:
		*first = HCA_QPN_GSI, *size = HCA_QPC_SIZE;
		return MODEL_NUM_QP;
	case HCA_CTX_TYPE_CQC:
		*first = 1, *size = HCA_CQC_SIZE;
		return MODEL_NUM_CQ;
	case HCA_CTX_TYPE_SRQC:
		*first = 1, *size = HCA_SRQC_SIZE;
		return MODEL_NUM_SRQ;
	case HCA_CTX_TYPE_EQC:
		*first = 0, *size = HCA_EQC_SIZE;
		return MODEL_NUM_EQ;
	case HCA_CTX_TYPE_MRC:
		*first = 1, *size = HCA_MRC_SIZE;
		return MODEL_NUM_MR;
	case HCA_CTX_TYPE_GIDC:
		*first = 0, *size = HCA_GIDC_SIZE;
		return MODEL_NUM_GID;
	default:
		return 0;
	}
}

static void ctx_write(struct model *m, uint32_t type, uint32_t idx)
{
	switch (type) {
	case HCA_CTX_TYPE_QPC:
		qpc_write(m, &m->qp[idx]);
		break;
	case HCA_CTX_TYPE_CQC: {
		struct model_cq *cq = &m->cq[idx];
		bool was = cq->c.valid;

		memcpy(&cq->c, m->ctx_data, CFG32);
		if (!cq->c.valid || !was) {
			struct hca_cqc c;

			memset(&c, 0, sizeof(c));
			memcpy(&c, &cq->c, CFG32);
			cq->c = c;
		}
		break;
	}
	case HCA_CTX_TYPE_SRQC: {
		struct model_srq *srq = &m->srq[idx];
		bool was = srq->c.valid;

		memcpy(&srq->c, m->ctx_data, CFG32);
		if (!srq->c.valid || !was) {
			struct hca_srqc c;

			memset(&c, 0, sizeof(c));
			memcpy(&c, &srq->c, CFG32);
			srq->c = c;
		}
		srq->c.armed = srq->c.valid && srq->c.limit != 0;
		break;
	}
	case HCA_CTX_TYPE_EQC: {
		struct model_eq *eq = &m->eq[idx];
		bool was = eq->c.valid;

		memcpy(&eq->c, m->ctx_data, CFG32);
		if (!eq->c.valid || !was) {
			struct hca_eqc c;

			memset(&c, 0, sizeof(c));
			memcpy(&c, &eq->c, CFG32);
			eq->c = c;
			eq->c.armed = eq->c.valid;	/* created armed */
			eq->failed = false;
			eq->fire_pending = false;
		}
		break;
	}
	case HCA_CTX_TYPE_MRC:
		memcpy(&m->mr[idx], m->ctx_data, HCA_MRC_SIZE);
		break;
	case HCA_CTX_TYPE_GIDC:
		memcpy(&m->gid[idx], m->ctx_data, HCA_GIDC_SIZE);
		break;
	}
}

static void ctx_read(struct model *m, uint32_t type, uint32_t idx)
{
	memset(m->ctx_data, 0, sizeof(m->ctx_data));
	switch (type) {
	case HCA_CTX_TYPE_QPC:
		qpc_read(m, &m->qp[idx]);
		break;
	case HCA_CTX_TYPE_CQC:
		memcpy(m->ctx_data, &m->cq[idx].c, sizeof(m->cq[idx].c));
		break;
	case HCA_CTX_TYPE_SRQC:
		memcpy(m->ctx_data, &m->srq[idx].c, sizeof(m->srq[idx].c));
		break;
	case HCA_CTX_TYPE_EQC:
		memcpy(m->ctx_data, &m->eq[idx].c, sizeof(m->eq[idx].c));
		break;
	case HCA_CTX_TYPE_MRC:
		memcpy(m->ctx_data, &m->mr[idx], sizeof(m->mr[idx]));
		break;
	case HCA_CTX_TYPE_GIDC:
		memcpy(m->ctx_data, &m->gid[idx], sizeof(m->gid[idx]));
		break;
	}
}

void model_ctx_cmd(struct model *m, uint32_t cmd)
{
	uint32_t op = HCA_FIELD_GET(cmd, HCA_MGMT_CTX_CMD_OP);
	uint32_t type = HCA_FIELD_GET(cmd, HCA_MGMT_CTX_CMD_TYPE);
	uint32_t idx = HCA_FIELD_GET(cmd, HCA_MGMT_CTX_CMD_INDEX);
	uint32_t first = 0, n;
	size_t size = 0;

	n = ctx_limit(type, &first, &size);
	if (!n || (op != HCA_CTX_OP_READ && op != HCA_CTX_OP_WRITE)) {
		m->ctx_status = HCA_MGMT_STATUS_BAD_TYPE;
		return;
	}
	if (idx < first || idx >= n) {
		m->ctx_status = HCA_MGMT_STATUS_BAD_INDEX;
		return;
	}
	if (op == HCA_CTX_OP_WRITE)
		ctx_write(m, type, idx);
	else
		ctx_read(m, type, idx);
	m->ctx_status = HCA_MGMT_STATUS_OK;
}
