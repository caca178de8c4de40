// SPDX-License-Identifier: MIT
/*
 * Receive WQE consumption from a QP's RQ or its SRQ (docs/programming.md
 * 5.2), and the SRQ limit event.
 */
#include <string.h>

#include "model_int.h"

#define RWQE_MAX_BYTES (HCA_WQE_RECV_HDR_SIZE + HCA_CAP_MAX_SGE * HCA_WQE_DATA_SEG_SIZE)

static unsigned int clamp_stride(unsigned int log)
{
	if (log < HCA_WQE_LOG_MIN_RQ_STRIDE)
		return HCA_WQE_LOG_MIN_RQ_STRIDE;
	if (log > HCA_WQE_LOG_MAX_RQ_STRIDE)
		return HCA_WQE_LOG_MAX_RQ_STRIDE;
	return log;
}

static unsigned int clamp_size(unsigned int log)
{
	return log > 16 ? 16 : log;
}

/* Parse a fetched receive WQE into qp->rwqe; false if malformed. */
static bool parse_rwqe(struct model_rwqe *w, const uint8_t *buf, unsigned int log_stride)
{
	struct hca_recv_wqe_hdr h;
	unsigned int max_sge = ((1u << log_stride) - HCA_WQE_RECV_HDR_SIZE) / HCA_WQE_DATA_SEG_SIZE;
	uint64_t total = 0;

	memcpy(&h, buf, sizeof(h));
	w->wqe_index = h.wqe_index;
	if (max_sge > HCA_CAP_MAX_SGE)
		max_sge = HCA_CAP_MAX_SGE;
	if (h.num_sge > max_sge)
		return false;
	w->num_sge = h.num_sge;
	for (unsigned int i = 0; i < h.num_sge; i++) {
		struct hca_wqe_data_seg d;

		memcpy(&d, buf + HCA_WQE_RECV_HDR_SIZE + i * sizeof(d), sizeof(d));
		w->sge[i] = (struct model_sge){ .addr = d.addr, .len = d.byte_count, .lkey = d.lkey };
		total += d.byte_count;
	}
	if (total > HCA_CAP_MAX_MSG_SZ)
		return false;
	w->total = (uint32_t)total;
	return true;
}

int model_rq_take(struct model *m, struct model_qp *qp, uint8_t *vendor_err)
{
	uint8_t buf[RWQE_MAX_BYTES];
	struct model_rwqe *w = &qp->rwqe;
	struct model_srq *srq = NULL;
	unsigned int log_stride, log_size, bytes;
	uint64_t addr;

	memset(w, 0, sizeof(*w));
	if (qp->cfg.flags & HCA_QPC_FLAGS_USE_SRQ_MASK) {
		srq = model_srq_get(m, qp->cfg.srqn);
		if (!srq || srq->c.state != 0 || srq->c.pi == srq->c.ci)
			return 0;
		log_stride = clamp_stride(srq->c.log_stride);
		log_size = clamp_size(srq->c.log_size);
		addr = srq->c.base + ((uint64_t)(srq->c.ci & ((1u << log_size) - 1)) << log_stride);
	} else {
		if (qp->rq_pi == qp->rq_ci)
			return 0;
		log_stride = clamp_stride(qp->cfg.log_rq_stride);
		log_size = clamp_size(qp->cfg.log_rq_size);
		addr = qp->cfg.rq_base + ((uint64_t)(qp->rq_ci & ((1u << log_size) - 1)) << log_stride);
	}
	bytes = 1u << log_stride;
	if (bytes > sizeof(buf))
		bytes = sizeof(buf);
	if (model_dma_read(m, HCA_DMA_CLIENT_WQE, addr, buf, bytes)) {
		*vendor_err = HCA_VENDOR_ERR_DMA_FAULT;
		if (srq) {
			srq->c.state = 1;
			model_event(m, HCA_EVENT_SRQ_ERR, qp->cfg.srqn);
		}
		return -1;
	}
	w->from_srq = srq != NULL;
	if (!parse_rwqe(w, buf, log_stride))
		*vendor_err = HCA_VENDOR_ERR_BAD_WQE;
	else
		*vendor_err = 0;
	/* consumed either way: a malformed WQE completes in error */
	if (srq) {
		srq->c.ci++;
		if (srq->c.armed && srq->c.pi - srq->c.ci < srq->c.limit) {
			srq->c.armed = 0;
			model_event(m, HCA_EVENT_SRQ_LIMIT_REACHED, qp->cfg.srqn);
		}
	} else {
		qp->rq_ci++;
	}
	w->valid = true;
	return *vendor_err ? -1 : 1;
}

void model_srq_doorbell(struct model *m, struct model_srq *srq, uint16_t idx)
{
	(void)m;
	srq->c.pi += (uint16_t)(idx - (uint16_t)srq->c.pi);
}
