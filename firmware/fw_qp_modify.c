// SPDX-License-Identifier: MIT
/*
 * QP.MODIFY: the IB attribute rules per state transition, as ibv_modify_qp
 * applies them (docs/programming.md 4.6).  Anything outside the table fails
 * with EINVAL and changes nothing.
 */
#include <string.h>

#include "fw_handlers.h"

#define A(x) HCA_QP_ATTR_##x
#define QPT_RC 0
#define QPT_UC 1
#define QPT_UD 2
#define NONE 0xffffffffu	/* transition not valid for this type */

struct qp_trans {
	uint8_t from, to;
	uint32_t req[3], opt[3];	/* by QPT_RC, QPT_UC, QPT_UD */
};

static const struct qp_trans trans[] = {
	{ HCA_QPS_RESET, HCA_QPS_INIT,
	  { A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS), A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),
	    A(PKEY_INDEX) | A(PORT) | A(QKEY) },
	  { 0, 0, 0 } },
	{ HCA_QPS_INIT, HCA_QPS_INIT,
	  { 0, 0, 0 },
	  { A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS), A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),
	    A(PKEY_INDEX) | A(PORT) | A(QKEY) } },
	{ HCA_QPS_INIT, HCA_QPS_RTR,
	  { A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) | A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER),
	    A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN), 0 },
	  { A(PKEY_INDEX) | A(ACCESS_FLAGS), A(PKEY_INDEX) | A(ACCESS_FLAGS), A(PKEY_INDEX) | A(QKEY) } },
	{ HCA_QPS_RTR, HCA_QPS_RTS,
	  { A(SQ_PSN) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) | A(MAX_QP_RD_ATOMIC), A(SQ_PSN), A(SQ_PSN) },
	  { A(ACCESS_FLAGS) | A(MIN_RNR_TIMER), A(ACCESS_FLAGS), A(QKEY) } },
	{ HCA_QPS_RTS, HCA_QPS_RTS,
	  { 0, 0, 0 },
	  { A(ACCESS_FLAGS) | A(MIN_RNR_TIMER), A(ACCESS_FLAGS), A(QKEY) } },
	{ HCA_QPS_RTS, HCA_QPS_SQD,
	  { 0, 0, 0 },
	  { A(EN_SQD_ASYNC_NOTIFY), A(EN_SQD_ASYNC_NOTIFY), A(EN_SQD_ASYNC_NOTIFY) } },
	{ HCA_QPS_SQD, HCA_QPS_SQD,
	  { 0, 0, 0 },
	  { A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) |
		    A(MAX_QP_RD_ATOMIC) | A(MAX_DEST_RD_ATOMIC) | A(PATH_MTU) | A(AV),
	    A(ACCESS_FLAGS) | A(AV) | A(PATH_MTU), A(QKEY) } },
	{ HCA_QPS_SQD, HCA_QPS_RTS,
	  { 0, 0, 0 },
	  { A(ACCESS_FLAGS) | A(MIN_RNR_TIMER), A(ACCESS_FLAGS), A(QKEY) } },
	{ HCA_QPS_SQE, HCA_QPS_RTS,
	  { NONE, 0, 0 },
	  { 0, A(ACCESS_FLAGS), A(QKEY) } },
};

static int qpt_index(uint8_t qp_type)
{
	switch (qp_type) {
	case HCA_QPT_RC: return QPT_RC;
	case HCA_QPT_UC: return QPT_UC;
	case HCA_QPT_UD: return QPT_UD;
	case HCA_QPT_GSI: return QPT_UD;	/* QP1 follows the UD rules */
	default: return -1;
	}
}

int fw_qp_transition(uint8_t qp_type, uint8_t cur, uint8_t next, uint32_t *required,
		     uint32_t *optional)
{
	int t = qpt_index(qp_type);

	if (t < 0 || cur > HCA_QPS_ERR || next > HCA_QPS_ERR)
		return -1;
	/* Any state may go to RESET or ERR, with no attributes. */
	if (next == HCA_QPS_RESET || next == HCA_QPS_ERR) {
		*required = *optional = 0;
		return 0;
	}
	for (unsigned int i = 0; i < FW_ARRAY_SIZE(trans); i++) {
		if (trans[i].from != cur || trans[i].to != next || trans[i].req[t] == NONE)
			continue;
		*required = trans[i].req[t];
		*optional = trans[i].opt[t];
		return 0;
	}
	return -1;
}

#define ALL_MASK_BITS 0x1fffffu	/* IBV_QP_STATE .. IBV_QP_DEST_QPN */

/* ::ffff:a.b.c.d: the only GIDs the engine can address (RoCEv2 over IPv4). */
static int gid_is_ipv4(const uint8_t gid[16])
{
	return fw_is_zero(gid, 10) && gid[10] == 0xff && gid[11] == 0xff;
}

/*
 * The address vector's GIDs: a valid source entry, and both GIDs IPv4-mapped.
 * The engine builds the IPv4 header from their last four bytes, so an IPv6
 * GID (index 0, the link-local one) would send to a made-up address:
 * refused until RoCEv2 over IPv6 exists (docs/programming.md 4.6).
 */
static int av_ok(struct hca_fw *fw, const struct hca_qp_attr *a)
{
	const struct fw_state *s = &fw->s;

	if (a->is_global != 1 || a->sgid_index >= s->caps.gid_tbl_len || !s->gid[a->sgid_index].valid)
		return 0;
	if (!gid_is_ipv4(s->gid[a->sgid_index].gid) || !gid_is_ipv4(a->dgid)) {
		fw_log(fw, "QP.MODIFY: IPv6 GID, RoCEv2 over IPv6 not supported (sgid_index, dgid[0..3])",
		       a->sgid_index, (uint32_t)a->dgid[0] << 24 | (uint32_t)a->dgid[1] << 16 |
					      (uint32_t)a->dgid[2] << 8 | a->dgid[3]);
		return 0;
	}
	return 1;
}

/* Values of the attributes present in mask (docs/programming.md 4.6). */
static int values_ok(struct hca_fw *fw, const struct hca_qp_attr *a, uint32_t mask)
{
	const struct fw_state *s = &fw->s;

	if ((mask & A(PORT)) && a->port_num != 1)
		return 0;
	if ((mask & A(PKEY_INDEX)) && a->pkey_index != 0)
		return 0;
	if ((mask & A(PATH_MTU)) && (a->path_mtu < HCA_MTU_256 || a->path_mtu > FW_PORT_MTU))
		return 0;
	if ((mask & A(AV)) && !av_ok(fw, a))
		return 0;
	if ((mask & A(TIMEOUT)) && a->timeout > 31)
		return 0;
	if ((mask & A(RETRY_CNT)) && a->retry_cnt > 7)
		return 0;
	if ((mask & A(RNR_RETRY)) && a->rnr_retry > 7)
		return 0;
	if ((mask & A(MIN_RNR_TIMER)) && a->min_rnr_timer > 31)
		return 0;
	if ((mask & A(MAX_QP_RD_ATOMIC)) && a->max_rd_atomic > s->caps.max_rd_atomic)
		return 0;
	if ((mask & A(MAX_DEST_RD_ATOMIC)) && a->max_dest_rd_atomic > s->caps.max_rd_atomic)
		return 0;
	if ((mask & A(DEST_QPN)) && a->dest_qp_num > HCA_WIRE_PSN_MASK)
		return 0;
	if ((mask & A(RQ_PSN)) && a->rq_psn > HCA_WIRE_PSN_MASK)
		return 0;
	if ((mask & A(SQ_PSN)) && a->sq_psn > HCA_WIRE_PSN_MASK)
		return 0;
	if ((mask & A(ACCESS_FLAGS)) &&
	    (a->qp_access_flags & ~(uint32_t)(HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE |
					     HCA_ACCESS_REMOTE_READ | HCA_ACCESS_REMOTE_ATOMIC)))
		return 0;
	if ((mask & A(EN_SQD_ASYNC_NOTIFY)) && a->en_sqd_async_notify > 1)
		return 0;
	return 1;
}

/* Copy the attributes named by mask into the QP's attribute set. */
static void apply(struct hca_qp_attr *d, const struct hca_qp_attr *a, uint32_t mask)
{
	if (mask & A(QKEY))
		d->qkey = a->qkey;
	if (mask & A(RQ_PSN))
		d->rq_psn = a->rq_psn;
	if (mask & A(SQ_PSN))
		d->sq_psn = a->sq_psn;
	if (mask & A(DEST_QPN))
		d->dest_qp_num = a->dest_qp_num;
	if (mask & A(ACCESS_FLAGS))
		d->qp_access_flags = a->qp_access_flags;
	if (mask & A(PKEY_INDEX))
		d->pkey_index = a->pkey_index;
	if (mask & A(PORT))
		d->port_num = a->port_num;
	if (mask & A(PATH_MTU))
		d->path_mtu = a->path_mtu;
	if (mask & A(TIMEOUT))
		d->timeout = a->timeout;
	if (mask & A(RETRY_CNT))
		d->retry_cnt = a->retry_cnt;
	if (mask & A(RNR_RETRY))
		d->rnr_retry = a->rnr_retry;
	if (mask & A(MIN_RNR_TIMER))
		d->min_rnr_timer = a->min_rnr_timer;
	if (mask & A(MAX_QP_RD_ATOMIC))
		d->max_rd_atomic = a->max_rd_atomic;
	if (mask & A(MAX_DEST_RD_ATOMIC))
		d->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & A(EN_SQD_ASYNC_NOTIFY))
		d->en_sqd_async_notify = a->en_sqd_async_notify;
	if (mask & A(AV)) {
		d->sgid_index = a->sgid_index;
		memcpy(d->dgid, a->dgid, sizeof(d->dgid));
		d->flow_label = a->flow_label;
		d->hop_limit = a->hop_limit;
		d->traffic_class = a->traffic_class;
		d->is_global = a->is_global;
		d->sl = a->sl;
		memcpy(d->dmac, a->dmac, sizeof(d->dmac));
		d->static_rate = a->static_rate;
	}
}

int fw_h_QP_MODIFY(struct hca_fw *fw, struct fw_bundle *b)
{
	uint16_t qpn = (uint16_t)fw_idr(b, HCA_ATTR_QP_MODIFY_HANDLE);
	const struct hca_qp_attr *a = fw_in(b, HCA_ATTR_QP_MODIFY_ATTR);
	uint32_t mask = fw_in_u32(b, HCA_ATTR_QP_MODIFY_ATTR_MASK);
	struct fw_qp *qp = &fw->s.qp[qpn];
	struct hca_qp_attr saved = qp->attr;
	uint8_t saved_notify = qp->en_sqd_async_notify;
	uint32_t req, opt, given;
	uint8_t cur, next, oneshot = 0;
	struct hca_qpc c;

	if ((mask & ~ALL_MASK_BITS) || !(mask & A(STATE)))
		return fw_fail(b, HCA_ATTR_QP_MODIFY_ATTR_MASK, HCA_CMD_SYND_HANDLER, HCA_EINVAL);
	/* The engine may have moved the QP (to SQE or ERR) on its own. */
	if (fw_ctx_read(fw, HCA_CTX_TYPE_QPC, qpn, &c, sizeof(c)))
		return HCA_EIO;
	cur = c.cur_state;
	next = a->qp_state;
	if ((mask & A(CUR_STATE)) && a->cur_qp_state != cur)
		return fw_fail(b, HCA_ATTR_QP_MODIFY_ATTR, HCA_CMD_SYND_HANDLER, HCA_EINVAL);
	if (fw_qp_transition(qp->init.qp_type, cur, next, &req, &opt))
		return fw_fail(b, HCA_ATTR_QP_MODIFY_ATTR, HCA_CMD_SYND_HANDLER, HCA_EINVAL);
	given = mask & ~(uint32_t)(A(STATE) | A(CUR_STATE));
	if ((given & ~(req | opt)) || (req & ~given))
		return fw_fail(b, HCA_ATTR_QP_MODIFY_ATTR_MASK, HCA_CMD_SYND_HANDLER, HCA_EINVAL);
	if (!values_ok(fw, a, given))
		return fw_fail(b, HCA_ATTR_QP_MODIFY_ATTR, HCA_CMD_SYND_HANDLER, HCA_EINVAL);
	/* QP1's Q_Key is the well-known one (IB spec 13.4.6.1). */
	if (qp->init.qp_type == HCA_QPT_GSI && (given & A(QKEY)) && a->qkey != HCA_GSI_QKEY)
		return fw_fail(b, HCA_ATTR_QP_MODIFY_ATTR, HCA_CMD_SYND_HANDLER, HCA_EINVAL);

	apply(&qp->attr, a, given);
	qp->attr.qp_state = next;
	if (next == HCA_QPS_RESET || (cur == HCA_QPS_RESET && next == HCA_QPS_INIT))
		oneshot |= HCA_QPC_FLAGS_RESET_STATE_MASK;
	if (given & A(RQ_PSN))
		oneshot |= HCA_QPC_FLAGS_LOAD_RQ_PSN_MASK;
	if (given & A(SQ_PSN))
		oneshot |= HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK;
	/* IBV_QP_EN_SQD_ASYNC_NOTIFY belongs to the RTS -> SQD transition that
	 * gives it; the engine keeps SQD_NOTIFY while the QP stays in SQD. */
	if (cur == HCA_QPS_RTS && next == HCA_QPS_SQD)
		qp->en_sqd_async_notify = (given & A(EN_SQD_ASYNC_NOTIFY)) && a->en_sqd_async_notify;
	else if (next != HCA_QPS_SQD)
		qp->en_sqd_async_notify = 0;
	if (fw_qp_write_ctx(fw, qpn, next, oneshot)) {
		qp->attr = saved;
		qp->en_sqd_async_notify = saved_notify;
		return HCA_EIO;
	}
	return 0;
}
