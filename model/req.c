// SPDX-License-Identifier: MIT
/*
 * Requester (IB Vol 1 9.5/9.7, docs/wire.md sections 2-3, 5): fetches send
 * WQEs, validates them (docs/programming.md 5.1), checks local keys, and
 * turns them into request packets -- one packet per scheduler step.  The
 * (re)transmission cursor (tx_wqe, tx_pkt) is moved back by the completer
 * for go-back-N; a READ is re-issued for its missing part.
 */
#include <stdlib.h>
#include <string.h>

#include "model_int.h"

static unsigned int sq_log_stride(const struct model_qp *qp)
{
	unsigned int l = qp->cfg.log_sq_stride;

	if (l < HCA_WQE_LOG_MIN_SQ_STRIDE)
		return HCA_WQE_LOG_MIN_SQ_STRIDE;
	return l > HCA_WQE_LOG_MAX_SQ_STRIDE ? HCA_WQE_LOG_MAX_SQ_STRIDE : l;
}

static unsigned int sq_log_size(const struct model_qp *qp)
{
	return qp->cfg.log_sq_size > 16 ? 16 : qp->cfg.log_sq_size;
}

static bool is_rd_atomic(uint8_t op)
{
	return op == HCA_WR_RDMA_READ || op == HCA_WR_ATOMIC_CMP_AND_SWP ||
	       op == HCA_WR_ATOMIC_FETCH_AND_ADD;
}

static bool opcode_valid(uint8_t type, uint8_t op)
{
	switch (op) {
	case HCA_WR_SEND:
	case HCA_WR_SEND_WITH_IMM:
		return true;
	case HCA_WR_RDMA_WRITE:
	case HCA_WR_RDMA_WRITE_WITH_IMM:
		return type == HCA_QPT_RC || type == HCA_QPT_UC;
	case HCA_WR_RDMA_READ:
	case HCA_WR_ATOMIC_CMP_AND_SWP:
	case HCA_WR_ATOMIC_FETCH_AND_ADD:
		return type == HCA_QPT_RC;
	default:
		return false;
	}
}

static void wqe_fail(struct model_swqe *w, uint8_t status, uint8_t vendor_err)
{
	w->state = SWQE_ERROR;
	w->status = status;
	w->vendor_err = vendor_err;
}

/*
 * Parse and validate a fetched WQE (docs/programming.md 5.1) and check its
 * local keys (5.3).  On failure the WQE is marked SWQE_ERROR.
 */
static void parse_wqe(struct model *m, struct model_qp *qp, const uint8_t *buf, struct model_swqe *w)
{
	unsigned int stride = 1u << sq_log_stride(qp);
	unsigned int max_sge = (stride - HCA_WQE_HDR_SIZE) / HCA_WQE_DATA_SEG_SIZE;
	unsigned int max_inline = stride - HCA_WQE_HDR_SIZE;
	uint8_t type = qp->cfg.qp_type;
	struct hca_wqe_ctrl_seg c;
	uint64_t total = 0;

	if (max_sge > HCA_CAP_MAX_SGE)
		max_sge = HCA_CAP_MAX_SGE;
	if (max_inline > HCA_CAP_MAX_INLINE_DATA)
		max_inline = HCA_CAP_MAX_INLINE_DATA;
	memcpy(&c, buf, sizeof(c));
	w->opcode = c.opcode;
	w->flags = c.send_flags;
	w->imm = c.imm_data;
	w->state = SWQE_ACTIVE;
	if (c.wqe_index != w->index || !opcode_valid(type, c.opcode)) {
		wqe_fail(w, HCA_WC_LOC_QP_OP_ERR, HCA_VENDOR_ERR_BAD_WQE);
		return;
	}
	if (type == HCA_QPT_UD) {
		memcpy(&w->ud, buf + HCA_WQE_UD_OFF, sizeof(w->ud));
	} else {
		struct hca_wqe_raddr_seg r;
		struct hca_wqe_atomic_seg a;

		memcpy(&r, buf + HCA_WQE_RADDR_OFF, sizeof(r));
		memcpy(&a, buf + HCA_WQE_ATOMIC_OFF, sizeof(a));
		w->raddr = r.remote_addr;
		w->rkey = r.rkey;
		w->cmp_add = a.compare_add;
		w->swap = a.swap;
	}
	if (c.send_flags & HCA_SEND_INLINE) {
		if (is_rd_atomic(c.opcode) || c.inline_len > max_inline) {
			wqe_fail(w, HCA_WC_LOC_QP_OP_ERR, HCA_VENDOR_ERR_BAD_WQE);
			return;
		}
		w->is_inline = true;
		memcpy(w->inline_data, buf + HCA_WQE_DATA_OFF, c.inline_len);
		total = c.inline_len;
	} else {
		if (c.num_sge > max_sge) {
			wqe_fail(w, HCA_WC_LOC_QP_OP_ERR, HCA_VENDOR_ERR_BAD_WQE);
			return;
		}
		w->num_sge = c.num_sge;
		for (unsigned int i = 0; i < c.num_sge; i++) {
			struct hca_wqe_data_seg d;

			memcpy(&d, buf + HCA_WQE_DATA_OFF + i * sizeof(d), sizeof(d));
			w->sge[i] = (struct model_sge){ .addr = d.addr, .len = d.byte_count, .lkey = d.lkey };
			total += d.byte_count;
		}
	}
	if (c.opcode == HCA_WR_ATOMIC_CMP_AND_SWP || c.opcode == HCA_WR_ATOMIC_FETCH_AND_ADD) {
		if (w->num_sge != 1 || w->sge[0].len != 8 || (w->raddr & 7)) {
			wqe_fail(w, HCA_WC_LOC_QP_OP_ERR, HCA_VENDOR_ERR_BAD_WQE);
			return;
		}
	}
	if (total > HCA_CAP_MAX_MSG_SZ) {
		wqe_fail(w, HCA_WC_LOC_LEN_ERR, HCA_VENDOR_ERR_LENGTH);
		return;
	}
	w->len = (uint32_t)total;
	if (type == HCA_QPT_UD && w->len > model_pmtu(qp)) {
		wqe_fail(w, HCA_WC_LOC_QP_OP_ERR, HCA_VENDOR_ERR_BAD_WQE);
		return;
	}
	for (unsigned int i = 0; i < w->num_sge; i++) {
		int r = model_sge_check(m, &w->sge[i], qp->cfg.pdn,
					is_rd_atomic(c.opcode) ? HCA_ACCESS_LOCAL_WRITE : 0);

		if (r) {
			wqe_fail(w, HCA_WC_LOC_PROT_ERR, (uint8_t)r);
			return;
		}
	}
}

static uint32_t npkts(uint32_t len, uint32_t pmtu)
{
	return len == 0 ? 1 : (len + pmtu - 1) / pmtu;
}

static bool window_open(const struct model_qp *qp, uint32_t psn)
{
	return !qp_is_rc(qp) || roce_psn_cmp(psn, qp->una_psn) < HCA_WIRE_MAX_UNACKED_PSNS;
}

static uint8_t send_opcode(const struct model_qp *qp, const struct model_swqe *w, bool first, bool last)
{
	bool imm = w->opcode == HCA_WR_SEND_WITH_IMM || w->opcode == HCA_WR_RDMA_WRITE_WITH_IMM;
	bool send = w->opcode == HCA_WR_SEND || w->opcode == HCA_WR_SEND_WITH_IMM;
	uint8_t base;

	if (qp->cfg.qp_type == HCA_QPT_UD)
		return imm ? HCA_BTH_OP_UD_SEND_ONLY_WITH_IMMEDIATE : HCA_BTH_OP_UD_SEND_ONLY;
	base = send ? HCA_BTH_OP_RC_SEND_FIRST : HCA_BTH_OP_RC_RDMA_WRITE_FIRST;
	if (qp->cfg.qp_type == HCA_QPT_UC)
		base |= 0x20;
	/* FIRST +0, MIDDLE +1, LAST +2, LAST_IMM +3, ONLY +4, ONLY_IMM +5 */
	if (first && last)
		return base + (imm ? 5 : 4);
	if (first)
		return base;
	if (!last)
		return base + 1;
	return base + (imm ? 3 : 2);
}

static void advance_cursor(struct model_qp *qp)
{
	qp->tx_wqe++;
	qp->tx_pkt = 0;
}

/* Transmit the next packet of the WQE at the cursor. */
static bool send_packet(struct model *m, struct model_qp *qp)
{
	struct model_swqe *w = swq_at(qp, qp->tx_wqe);
	uint32_t pmtu = model_pmtu(qp);
	bool rc = qp_is_rc(qp);
	struct roce_pkt p;

	if (w->state != SWQE_ACTIVE)
		return false;	/* an errored WQE blocks the cursor until it retires */

	if (w->opcode == HCA_WR_RDMA_READ) {
		uint32_t done = w->rcvd * pmtu;
		uint32_t psn = psn_add(w->first_psn, w->rcvd);

		if (!window_open(qp, psn))
			return false;
		model_net_req_hdr(m, qp, &p, HCA_BTH_OP_RC_RDMA_READ_REQUEST);
		p.psn = psn;
		p.ackreq = true;
		p.reth.va = w->raddr + done;
		p.reth.rkey = w->rkey;
		p.reth.len = w->len - done;
		model_net_xmit(m, &p, NULL, 0);
		advance_cursor(qp);
	} else if (w->opcode == HCA_WR_ATOMIC_CMP_AND_SWP || w->opcode == HCA_WR_ATOMIC_FETCH_AND_ADD) {
		if (!window_open(qp, w->first_psn))
			return false;
		model_net_req_hdr(m, qp, &p, w->opcode == HCA_WR_ATOMIC_CMP_AND_SWP ?
				  HCA_BTH_OP_RC_COMPARE_SWAP : HCA_BTH_OP_RC_FETCH_ADD);
		p.psn = w->first_psn;
		p.ackreq = true;
		p.atmeth.va = w->raddr;
		p.atmeth.rkey = w->rkey;
		if (w->opcode == HCA_WR_ATOMIC_CMP_AND_SWP) {
			p.atmeth.swap_add = w->swap;
			p.atmeth.compare = w->cmp_add;
		} else {
			p.atmeth.swap_add = w->cmp_add;
			p.atmeth.compare = 0;
		}
		model_net_xmit(m, &p, NULL, 0);
		advance_cursor(qp);
	} else {
		uint32_t k, psn, off, plen;
		bool first, last;
		const uint8_t *payload;
		uint8_t op;

		/* never resend what is already acknowledged: skip to the oldest unacked PSN */
		if (rc && w->index == qp->sq_ci &&
		    roce_psn_cmp(psn_add(w->first_psn, qp->tx_pkt), qp->una_psn) < 0)
			qp->tx_pkt = (qp->una_psn - w->first_psn) & PSN_MASK;
		k = qp->tx_pkt;
		psn = psn_add(w->first_psn, k);
		off = k * pmtu;
		plen = w->len - off > pmtu ? pmtu : w->len - off;
		first = k == 0;
		last = k + 1 == w->npsn;

		if (!window_open(qp, psn))
			return false;
		/* the payload is read straight into the frame being built */
		op = send_opcode(qp, w, first, last);
		payload = model_net_payload_buf(m, op);
		if (w->is_inline)
			payload = w->inline_data + off;
		else if (model_sge_copy(m, w->sge, w->num_sge, off, model_net_payload_buf(m, op), plen, false)) {
			wqe_fail(w, HCA_WC_LOC_PROT_ERR, HCA_VENDOR_ERR_DMA_FAULT);
			model_comp_retire(m, qp);
			return true;
		}
		model_net_req_hdr(m, qp, &p, op);
		p.psn = psn;
		p.ackreq = rc && (last || k % HCA_WIRE_ACKREQ_INTERVAL == HCA_WIRE_ACKREQ_INTERVAL - 1);
		p.se = last && (w->flags & HCA_SEND_SOLICITED) &&
		       (w->opcode == HCA_WR_SEND || w->opcode == HCA_WR_SEND_WITH_IMM ||
			w->opcode == HCA_WR_RDMA_WRITE_WITH_IMM);
		if (first && (w->opcode == HCA_WR_RDMA_WRITE || w->opcode == HCA_WR_RDMA_WRITE_WITH_IMM)) {
			p.reth.va = w->raddr;
			p.reth.rkey = w->rkey;
			p.reth.len = w->len;
		}
		if (last && (w->opcode == HCA_WR_SEND_WITH_IMM || w->opcode == HCA_WR_RDMA_WRITE_WITH_IMM))
			p.imm = __builtin_bswap32(w->imm);
		if (qp->cfg.qp_type == HCA_QPT_UD) {
			memcpy(p.dmac, w->ud.dmac, 6);
			p.sip = w->ud.sgid_index < MODEL_NUM_GID ?
				model_gid_ipv4(m->gid[w->ud.sgid_index].gid) : 0;
			p.dip = model_gid_ipv4(w->ud.dgid);
			p.ttl = w->ud.hop_limit;
			p.tos = w->ud.traffic_class;
			p.dqpn = w->ud.remote_qpn & PSN_MASK;
			p.deth.qkey = (w->ud.remote_qkey & 0x80000000u) ? qp->cfg.qkey : w->ud.remote_qkey;
			p.deth.src_qp = qp->qpn;
		}
		model_net_xmit(m, &p, payload, plen);
		if (last)
			advance_cursor(qp);
		else
			qp->tx_pkt++;
		if (!rc && last) {
			/* UC/UD: complete once the last packet is sent (the WQE is the oldest) */
			model_qp_complete_send(m, qp, w, HCA_WC_SUCCESS, 0, false);
			qp->una_psn = qp->psn_next;
		}
	}
	if (rc && qp->ack_deadline == MODEL_NO_DEADLINE)
		model_comp_arm_timer(m, qp);
	return true;
}

/*
 * Read a send WQE by its size (docs/programming.md 5.1): its header and
 * first segment, min(stride, 80) bytes, then the whole slot if its data
 * segments or inline data reach beyond byte 80.  0, or -EFAULT (the read
 * that faulted is reported).
 */
static int read_wqe(struct model *m, struct model_qp *qp, uint64_t addr, uint8_t *buf)
{
	unsigned int len = 1u << sq_log_stride(qp);
	unsigned int first = HCA_WQE_HDR_SIZE + HCA_WQE_DATA_SEG_SIZE;
	struct hca_wqe_ctrl_seg c;
	int r;

	if (first > len)
		first = len;
	memset(buf, 0, len);
	r = model_dma_read(m, HCA_DMA_CLIENT_WQE, addr, buf, first);
	if (r || len == first)
		return r;
	memcpy(&c, buf, sizeof(c));
	if ((c.send_flags & HCA_SEND_INLINE) ? c.inline_len > HCA_WQE_DATA_SEG_SIZE : c.num_sge > 1)
		return model_dma_read(m, HCA_DMA_CLIENT_WQE, addr, buf, len);
	return 0;
}

/* Fetch (once), gate (fence, max_rd_atomic, window) and start the WQE at sq_head. */
static bool start_wqe(struct model *m, struct model_qp *qp)
{
	uint16_t idx = qp->sq_head;
	struct model_swqe *w = swq_at(qp, idx);
	uint8_t buf[1u << HCA_WQE_LOG_MAX_SQ_STRIDE];
	unsigned int max_rd;

	if (!qp->head_fetched) {
		unsigned int ls = sq_log_stride(qp);
		uint64_t addr = qp->cfg.sq_base +
				((uint64_t)(idx & ((1u << sq_log_size(qp)) - 1)) << ls);

		memset(w, 0, sizeof(*w));
		w->index = idx;
		if (read_wqe(m, qp, addr, buf)) {
			model_qp_to_err(m, qp, HCA_EVENT_QP_FATAL);
			return true;
		}
		parse_wqe(m, qp, buf, w);
		if (w->state == SWQE_ERROR) {
			qp->sq_head++;	/* tracked; the cursor stays on it until it retires */
			model_comp_retire(m, qp);
			return true;
		}
		qp->head_fetched = true;
	}
	max_rd = qp->cfg.max_rd_atomic ? qp->cfg.max_rd_atomic : 1;
	if ((w->flags & HCA_SEND_FENCE) && qp->rd_atomic_out)
		return false;
	if (is_rd_atomic(w->opcode) && qp->rd_atomic_out >= max_rd)
		return false;
	if (!window_open(qp, qp->psn_next))
		return false;

	qp->head_fetched = false;
	w->first_psn = qp->psn_next;
	w->npsn = (w->opcode == HCA_WR_ATOMIC_CMP_AND_SWP || w->opcode == HCA_WR_ATOMIC_FETCH_AND_ADD) ?
		  1 : npkts(w->len, model_pmtu(qp));
	w->rcvd = 0;
	qp->psn_next = psn_add(qp->psn_next, w->npsn);
	if (is_rd_atomic(w->opcode))
		qp->rd_atomic_out++;
	qp->sq_head++;
	qp->tx_pkt = 0;
	send_packet(m, qp);
	return true;
}

bool model_requester(struct model *m, struct model_qp *qp)
{
	uint8_t st = qp->cur_state;

	if (st == HCA_QPS_ERR || st == HCA_QPS_SQE)
		return model_qp_flush(m, qp);
	if (st != HCA_QPS_RTS && st != HCA_QPS_SQD)
		return false;
	if (!qp->swq) {
		qp->swq = calloc(MODEL_SWQ_RING, sizeof(*qp->swq));
		if (!qp->swq)
			return false;
	}
	if (model_comp_retire(m, qp))
		return true;
	if (model_qp_check_drain(m, qp))
		return true;
	if (qp->rnr_deadline != MODEL_NO_DEADLINE)
		return false;
	if (qp->tx_wqe != qp->sq_head)
		return send_packet(m, qp);
	if (st != HCA_QPS_RTS || qp->sq_head == qp->sq_pi)
		return false;
	if ((uint16_t)(qp->sq_head - qp->sq_ci) >= MODEL_SWQ_RING - 1)
		return false;
	return start_wqe(m, qp);
}
