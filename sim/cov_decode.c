// SPDX-License-Identifier: MIT
/*
 * Coverage decoders: transactions at the engine interface -> coverage keys
 * (sim/cov.h; the bins are listed in sim/coverage/bins.txt).  Frames are
 * parsed with the model's codec, WQEs/CQEs/EQEs/contexts/command entries
 * with the layouts of the generated spec header.  The decoders keep just
 * enough state (contexts snooped from CTX_CMD writes, PSNs per QP) to name
 * what they see; they never check anything.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cov.h"
#include "cov_int.h"
#include "../model/roce_hdr.h"

static struct cov_state *state(struct cov *c)
{
	if (!c->st) {
		c->st = calloc(1, sizeof(*c->st));
		if (c->st)
			for (unsigned int i = 0; i < COV_NQP; i++)
				c->st->qp[i].last_nak = -1;
	}
	return c->st;
}

void cov_state_free(struct cov *c)
{
	free(c->st);
	c->st = NULL;
}

static uint32_t rd16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd32(const uint8_t *p) { return rd16(p) | rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

static const char *bucket(unsigned int n)
{
	static const char *const b[] = { "0", "1", "2", "3", "4" };

	if (n < 5)
		return b[n];
	return n < 16 ? "5-15" : n == 16 ? "16" : "over16";
}

/* ---- QP state transitions ---------------------------------------------- */

static void qp_to(struct cov *c, struct cov_qp *q, unsigned int to, const char *how)
{
	if (q->state == to && (to == HCA_QPS_RESET || to == HCA_QPS_ERR || to == HCA_QPS_RTR))
		return;		/* rewrites that are not transitions */
	cov_hit(c, "qp.trans.%s.%s", hca_qp_state_name(q->state), hca_qp_state_name(to));
	if (how)
		cov_hit(c, "qp.trans.%s.%s.%s", hca_qp_state_name(q->state), hca_qp_state_name(to), how);
	q->state = (uint8_t)to;
}

/* ---- contexts ------------------------------------------------------------ */

static void ctx_qpc(struct cov *c, struct cov_state *s, uint32_t index, const uint8_t *b)
{
	struct hca_qpc x;
	struct cov_qp *q = &s->qp[index % COV_NQP];

	memcpy(&x, b, sizeof(x));
	if (!q->known) {
		memset(q, 0, sizeof(*q));
		q->last_nak = -1;
		q->known = true;
		q->state = HCA_QPS_RESET;
	}
	q->type = x.qp_type;
	q->send_cqn = x.send_cqn;
	q->recv_cqn = x.recv_cqn;
	q->srqn = x.srqn;
	q->use_srq = (x.flags & HCA_QPC_FLAGS_USE_SRQ_MASK) != 0;
	q->uar = x.uar;
	q->sq_base = x.sq_base;
	q->rq_base = x.rq_base;
	q->log_sq_size = x.log_sq_size;
	q->log_sq_stride = x.log_sq_stride;
	q->log_rq_size = x.log_rq_size;
	q->log_rq_stride = x.log_rq_stride;
	cov_hit(c, "ctx.qpc.%s", hca_qp_type_name(x.qp_type));
	if (x.state == HCA_QPS_RTR && q->state != HCA_QPS_RTR) {
		q->rx_epsn = x.rq_psn & HCA_WIRE_PSN_MASK;
		q->rx_init = true;
		q->rx_seen = false;
	}
	if (x.state == HCA_QPS_RTS && q->state != HCA_QPS_RTS && q->state != HCA_QPS_SQD) {
		q->tx_seen = q->acked_valid = q->in_retry = false;
		q->last_nak = -1;
	}
	qp_to(c, q, x.state, NULL);
}

static void ring_set(struct cov_ring *r, bool valid, uint64_t base, uint8_t log_size, uint16_t uar, uint32_t eqn)
{
	r->valid = valid;
	r->base = base;
	r->log_size = log_size;
	r->uar = uar;
	r->eqn = eqn;
	r->posted = false;
	r->part_mask = 0;
}

static void ctx_write(struct cov *c, unsigned int type, uint32_t index, const uint8_t *b)
{
	struct cov_state *s = state(c);

	if (!s)
		return;
	switch (type) {
	case HCA_CTX_TYPE_QPC:
		ctx_qpc(c, s, index, b);
		break;
	case HCA_CTX_TYPE_CQC: {
		struct hca_cqc x;

		memcpy(&x, b, sizeof(x));
		if (index < COV_NCQ)
			ring_set(&s->cq[index], x.valid, x.base, x.log_size, x.uar, x.eqn);
		cov_hit(c, "ctx.cqc.%s", x.valid ? "create" : "destroy");
		break;
	}
	case HCA_CTX_TYPE_EQC: {
		struct hca_eqc x;

		memcpy(&x, b, sizeof(x));
		if (index < COV_NEQ)
			ring_set(&s->eq[index], x.valid, x.base, x.log_size, x.uar, 0);
		cov_hit(c, "ctx.eqc.%s", x.valid ? "create" : "destroy");
		break;
	}
	case HCA_CTX_TYPE_SRQC: {
		struct hca_srqc x;

		memcpy(&x, b, sizeof(x));
		if (index < COV_NSRQ) {
			s->srq[index].valid = x.valid;
			s->srq[index].base = x.base;
			s->srq[index].log_size = x.log_size;
			s->srq[index].log_stride = x.log_stride;
			s->srq[index].uar = x.uar;
		}
		cov_hit(c, "ctx.srqc.%s", x.valid ? "create" : "destroy");
		break;
	}
	case HCA_CTX_TYPE_MRC: {
		struct hca_mrc x;

		memcpy(&x, b, sizeof(x));
		if (index < COV_NMR) {
			s->mr[index].valid = x.valid;
			s->mr[index].base = x.dma_addr;
			s->mr[index].len = x.length;
		}
		cov_hit(c, "ctx.mrc.%s", x.valid ? "create" : "destroy");
		break;
	}
	default:
		break;
	}
}

void cov_mgmt_write(struct cov *c, const struct hca_engine_ops *ops, struct hca_engine *e, uint32_t addr,
		    uint32_t value)
{
	uint32_t w[HCA_MGMT_CTX_DATA_WORDS];
	struct cov_state *s;

	if (!c)
		return;
	if (addr == HCA_MGMT_ENGINE_CTRL && (value & HCA_MGMT_ENGINE_CTRL_RESET_MASK)) {
		cov_hit(c, "mgmt.engine_reset");
		s = state(c);
		if (s) {
			uint64_t base = s->cmdq_base;
			uint8_t ls = s->cmdq_log_size;

			memset(s, 0, sizeof(*s));
			for (unsigned int i = 0; i < COV_NQP; i++)
				s->qp[i].last_nak = -1;
			s->cmdq_base = base;
			s->cmdq_log_size = ls;
		}
		return;
	}
	if (addr != HCA_MGMT_CTX_CMD || HCA_FIELD_GET(value, HCA_MGMT_CTX_CMD_OP) != HCA_CTX_OP_WRITE)
		return;
	if (ops->mgmt_read(e, HCA_MGMT_CTX_STATUS) != HCA_MGMT_STATUS_OK) {
		cov_hit(c, "ctx.write_refused");
		return;
	}
	for (unsigned int i = 0; i < HCA_MGMT_CTX_DATA_WORDS; i++)
		w[i] = ops->mgmt_read(e, HCA_MGMT_CTX_DATA + 4 * i);
	ctx_write(c, (unsigned int)HCA_FIELD_GET(value, HCA_MGMT_CTX_CMD_TYPE),
		  (uint32_t)HCA_FIELD_GET(value, HCA_MGMT_CTX_CMD_INDEX), (const uint8_t *)w);
}

/* ---- doorbells ----------------------------------------------------------- */

static const char *const db_names[] = { "SQ_PI", "RQ_PI", "SRQ_PI", "CQ_CI", "CQ_ARM", "CQ_ARM_SOL", "EQ_CI",
					"EQ_ARM" };

/* Doorbell validation (programming.md 2.2): which kind of bad number, or NULL. */
static const char *db_bad(struct cov_state *s, unsigned int kind, uint32_t num, uint32_t page)
{
	switch (kind) {
	case 0: case 1:
		if (num >= COV_NQP)
			return "range";
		if (!s->qp[num].known || s->qp[num].state == HCA_QPS_RESET)
			return "unconfigured";
		return s->qp[num].uar != page ? "page" : NULL;
	case 2:
		if (num >= COV_NSRQ)
			return "range";
		if (!s->srq[num].valid)
			return "unconfigured";
		return s->srq[num].uar != page ? "page" : NULL;
	case 3: case 4: case 5:
		if (num >= COV_NCQ)
			return "range";
		if (!s->cq[num].valid)
			return "unconfigured";
		return s->cq[num].uar != page ? "page" : NULL;
	default:
		if (num >= COV_NEQ)
			return "range";
		if (!s->eq[num].valid)
			return "unconfigured";
		return s->eq[num].uar != page ? "page" : NULL;
	}
}

static void mark_posted(struct cov_state *s, uint32_t cqn)
{
	if (cqn < COV_NCQ)
		s->cq[cqn].posted = true;
}

void cov_bar0_write(struct cov *c, uint32_t off, uint32_t value)
{
	struct cov_state *s;
	uint32_t page, reg, num;
	unsigned int kind;
	const char *bad;

	if (!c || !(s = state(c)))
		return;
	if (off == HCA_INIT_CMDQ_BASE_LO) {
		s->cmdq_base = (s->cmdq_base & ~0xffffffffull) | value;
		return;
	}
	if (off == HCA_INIT_CMDQ_BASE_HI) {
		s->cmdq_base = (s->cmdq_base & 0xffffffffull) | (uint64_t)value << 32;
		return;
	}
	if (off == HCA_INIT_CMDQ_LOG_SIZE) {
		s->cmdq_log_size = (uint8_t)(value > HCA_CMDQ_LOG_MAX_SIZE ? HCA_CMDQ_LOG_MAX_SIZE : value);
		return;
	}
	if (off < HCA_BAR0_DB_BASE)
		return;
	page = (off - HCA_BAR0_DB_BASE) / HCA_BAR0_DB_PAGE_SIZE;
	reg = (off - HCA_BAR0_DB_BASE) % HCA_BAR0_DB_PAGE_SIZE;
	if (reg % 4 || reg / 4 >= sizeof(db_names) / sizeof(db_names[0]))
		return;
	kind = reg / 4;
	num = value & 0xffff;
	cov_hit(c, "db.%s", db_names[kind]);
	bad = db_bad(s, kind, num, page);
	if (bad) {
		cov_hit(c, "db.bad.%s", bad);
		return;
	}
	switch (kind) {
	case 0:
		mark_posted(s, s->qp[num].send_cqn);
		break;
	case 1:
		mark_posted(s, s->qp[num].recv_cqn);
		break;
	case 2:
		for (unsigned int i = 0; i < COV_NQP; i++)
			if (s->qp[i].known && s->qp[i].use_srq && s->qp[i].srqn == num)
				mark_posted(s, s->qp[i].recv_cqn);
		break;
	case 4: case 5:
		if (s->cq[num].posted)
			cov_hit(c, "db.race.%s_during_post", kind == 4 ? "cq_arm" : "cq_arm_sol");
		break;
	case 7:
		for (unsigned int i = 0; i < COV_NCQ; i++)
			if (s->cq[i].valid && s->cq[i].eqn == num && s->cq[i].posted) {
				cov_hit(c, "db.race.eq_arm_during_post");
				break;
			}
		break;
	default:
		break;
	}
}

/* ---- frames -------------------------------------------------------------- */

static const char *const drop_names[ROCE_DROP_NR] = {
	[ROCE_DROP_NONE] = "none", [ROCE_DROP_SHORT] = "short", [ROCE_DROP_ETHERTYPE] = "ethertype",
	[ROCE_DROP_IP_VERSION] = "ip_version", [ROCE_DROP_IP_OPTIONS] = "ip_options",
	[ROCE_DROP_IP_CSUM] = "ip_csum", [ROCE_DROP_IP_LEN] = "ip_len", [ROCE_DROP_IP_FRAG] = "ip_frag",
	[ROCE_DROP_IP_PROTO] = "ip_proto", [ROCE_DROP_UDP_PORT] = "udp_port", [ROCE_DROP_UDP_LEN] = "udp_len",
	[ROCE_DROP_UDP_CSUM] = "udp_csum", [ROCE_DROP_ICRC] = "icrc", [ROCE_DROP_OPCODE] = "opcode",
	[ROCE_DROP_TVER] = "tver", [ROCE_DROP_HDR_LEN] = "hdr_len", [ROCE_DROP_PAD] = "pad",
};

static const char *aeth_name(uint8_t synd)
{
	static const char *const nak[] = { "NAK_PSN_SEQ_ERR", "NAK_INVALID_REQUEST", "NAK_REMOTE_ACCESS_ERR",
					   "NAK_REMOTE_OP_ERR", "NAK_INVALID_RD_REQUEST" };
	unsigned int type = synd >> 5 & 3, code = synd & 31;

	if (type == HCA_AETH_TYPE_ACK)
		return "ACK";
	if (type == HCA_AETH_TYPE_RNR_NAK)
		return "RNR_NAK";
	if (type == HCA_AETH_TYPE_NAK)
		return code < 5 ? nak[code] : "NAK_RESERVED";
	return "RESERVED";
}

static const char *position(uint32_t flags)
{
	if (flags & ROCE_OP_FIRST)
		return "first";
	if (flags & ROCE_OP_MIDDLE)
		return "middle";
	if (flags & ROCE_OP_LAST)
		return "last";
	return flags & ROCE_OP_ONLY ? "only" : NULL;
}

static bool psn_wrapped(uint32_t prev, uint32_t psn)
{
	return prev >= 0xff0000u && psn < 0x010000u;
}

/* Common to both directions: opcode x QP type x width, packet position, AETH. */
static const struct roce_opcode_info *frame_common(struct cov *c, const char *dir, const struct roce_pkt *p)
{
	const struct roce_opcode_info *oi = roce_opcode(p->opcode);
	const char *pos;

	if (!oi)
		return NULL;
	cov_hit(c, "op.%s.%s.w%u", dir, oi->name, c->data_w);
	pos = position(oi->flags);
	if (pos)
		cov_hit(c, "pos.%s.%s", dir, pos);
	if (oi->hdrs & ROCE_AETH)
		cov_hit(c, "aeth.%s.%s", dir, aeth_name(p->aeth.syndrome));
	if (p->se && (oi->flags & ROCE_OP_REQ))
		cov_hit(c, "bth.%s.se", dir);
	return oi;
}

void cov_tx_frame(struct cov *c, const uint8_t *frame, size_t len)
{
	const struct roce_opcode_info *oi;
	struct roce_pkt p;
	struct cov_state *s;
	struct cov_qp *q;

	if (!c || !(s = state(c)))
		return;
	if (roce_parse(frame, len, &p) != ROCE_OK) {
		cov_hit(c, "tx.malformed");
		return;
	}
	oi = frame_common(c, "tx", &p);
	if (!oi || !(oi->flags & ROCE_OP_REQ))
		return;
	q = &s->qp[(p.sport & HCA_WIRE_UDP_SPORT_MASK) % COV_NQP];
	if (q->tx_seen && psn_wrapped(q->tx_last, p.psn))
		cov_hit(c, "psn.wrap.tx");
	if ((oi->flags & ROCE_OP_RC) && q->tx_seen && roce_psn_cmp(p.psn, q->tx_max) <= 0) {
		if (!q->in_retry) {
			q->in_retry = true;
			cov_hit(c, "retry.%s",
				q->last_nak == (HCA_AETH_TYPE_RNR_NAK << 5) ? "rnr" :
				q->last_nak == (HCA_AETH_TYPE_NAK << 5 | HCA_AETH_NAK_PSN_SEQ_ERR) ? "psn_seq_nak" :
				"ack_timeout");
		}
	} else {
		q->in_retry = false;
		q->tx_max = p.psn;
	}
	q->last_nak = -1;
	q->tx_seen = true;
	q->tx_last = p.psn;
}

static void rx_response(struct cov *c, struct cov_qp *q, const struct roce_opcode_info *oi,
			const struct roce_pkt *p)
{
	if (!(oi->hdrs & ROCE_AETH))
		return;
	if (!q->tx_seen) {
		cov_hit(c, "psn.ack.unsolicited");
		return;
	}
	if (roce_psn_cmp(p->psn, q->tx_max) > 0)
		cov_hit(c, "psn.ack.out_of_window");
	else if (q->acked_valid && roce_psn_cmp(p->psn, q->acked) < 0)
		cov_hit(c, "psn.ack.duplicate");
	else
		cov_hit(c, "psn.ack.in_window");
	if ((p->aeth.syndrome >> 5 & 3) != HCA_AETH_TYPE_ACK)
		q->last_nak = p->aeth.syndrome & 0x60 ? (p->aeth.syndrome >> 5 & 3) << 5 | (p->aeth.syndrome & 31) : -1;
	if ((p->aeth.syndrome >> 5 & 3) == HCA_AETH_TYPE_RNR_NAK)
		q->last_nak = HCA_AETH_TYPE_RNR_NAK << 5;
	q->acked = p->psn;
	q->acked_valid = true;
}

void cov_rx_frame(struct cov *c, const uint8_t *frame, size_t len)
{
	const struct roce_opcode_info *oi;
	enum roce_drop_reason why = ROCE_DROP_NONE;
	struct roce_pkt p;
	struct cov_state *s;
	struct cov_qp *q;
	const char *tt;
	int32_t d;

	if (!c || !(s = state(c)))
		return;
	if (roce_parse_ex(frame, len, &p, &why) != ROCE_OK) {
		cov_hit(c, "rx.drop.%s", why < ROCE_DROP_NR && drop_names[why] ? drop_names[why] : "other");
		return;
	}
	oi = frame_common(c, "rx", &p);
	if (!oi)
		return;
	q = &s->qp[p.dqpn % COV_NQP];
	if (!q->known || p.dqpn >= COV_NQP)
		cov_hit(c, "rx.unknown_qp");
	if (oi->flags & ROCE_OP_RESP) {
		rx_response(c, q, oi, &p);
		return;
	}
	if (q->rx_seen && psn_wrapped(q->rx_last, p.psn))
		cov_hit(c, "psn.wrap.rx");
	q->rx_seen = true;
	q->rx_last = p.psn;
	if (oi->flags & ROCE_OP_UD || !q->rx_init)
		return;
	tt = oi->flags & ROCE_OP_RC ? "rc" : "uc";
	d = roce_psn_cmp(p.psn, q->rx_epsn);
	if (d == 0) {
		cov_hit(c, "psn.rx.%s.in_order", tt);
		q->rx_epsn = (p.psn + 1) & HCA_WIRE_PSN_MASK;
	} else if (d < 0) {
		cov_hit(c, "psn.rx.%s.duplicate", tt);
	} else {
		cov_hit(c, "psn.rx.%s.out_of_window", tt);
		if (!(oi->flags & ROCE_OP_RC) && (oi->flags & ROCE_OP_START))
			q->rx_epsn = (p.psn + 1) & HCA_WIRE_PSN_MASK;	/* UC resynchronises on a new message */
	}
}

/* ---- DMA: WQE fetches, CQEs, EQEs ---------------------------------------- */

static bool in_ring(uint64_t base, unsigned int log_size, unsigned int log_stride, uint64_t a, uint64_t *off)
{
	uint64_t size = (uint64_t)1 << ((log_size + log_stride) & 63);

	if (!base || a < base || a - base >= size)
		return false;
	*off = (a - base) & (((uint64_t)1 << (log_stride & 63)) - 1);
	return true;
}

void cov_dma_read(struct cov *c, uint64_t iova, const void *buf, size_t len, int rc)
{
	const uint8_t *b = buf;
	struct cov_state *s;
	uint64_t off;

	if (!c || !(s = state(c)))
		return;
	if (rc) {
		cov_hit(c, "dma.read_fault");
		return;
	}
	for (unsigned int i = 0; i < COV_NQP; i++) {
		struct cov_qp *q = &s->qp[i];

		if (!q->known)
			continue;
		if (len >= 4 && in_ring(q->sq_base, q->log_sq_size, q->log_sq_stride, iova, &off) && off == 0) {
			cov_hit(c, "wqe.send.%s", hca_wr_opcode_name(b[HCA_WQE_CTRL_SEG_OPCODE_OFF]));
			cov_hit(c, "sge.send.%s", bucket(b[HCA_WQE_CTRL_SEG_NUM_SGE_OFF]));
			if (b[HCA_WQE_CTRL_SEG_SEND_FLAGS_OFF] & HCA_SEND_INLINE)
				cov_hit(c, "wqe.send.inline");
			return;
		}
		if (len >= 1 && !q->use_srq && in_ring(q->rq_base, q->log_rq_size, q->log_rq_stride, iova, &off) &&
		    off == 0) {
			cov_hit(c, "sge.recv.%s", bucket(b[HCA_RECV_WQE_HDR_NUM_SGE_OFF]));
			return;
		}
	}
	for (unsigned int i = 0; i < COV_NSRQ; i++)
		if (s->srq[i].valid && len >= 1 &&
		    in_ring(s->srq[i].base, s->srq[i].log_size, s->srq[i].log_stride, iova, &off) && off == 0) {
			cov_hit(c, "sge.srq.%s", bucket(b[HCA_RECV_WQE_HDR_NUM_SGE_OFF]));
			return;
		}
}

static void cqe_done(struct cov *c, struct cov_state *s, unsigned int cqn, const uint8_t *e)
{
	struct hca_cqe x;
	struct cov_qp *q;

	memcpy(&x, e, sizeof(x));
	s->cq[cqn].posted = false;
	cov_hit(c, "cqe.status.%s", hca_wc_status_name(x.status));
	cov_hit(c, "cqe.op.%s", hca_wc_opcode_name(x.opcode));
	if (x.status == HCA_WC_SUCCESS)
		cov_hit(c, "cqe.op_ok.%s", hca_wc_opcode_name(x.opcode));
	if (x.wc_flags & HCA_WC_FLAG_WITH_IMM)
		cov_hit(c, "cqe.flag.with_imm");
	if (x.wc_flags & HCA_WC_FLAG_GRH)
		cov_hit(c, "cqe.flag.grh");
	if (x.is_srq)
		cov_hit(c, "cqe.srq");
	if (x.status == HCA_WC_RETRY_EXC_ERR)
		cov_hit(c, "retry.exhausted.ack_timeout");
	if (x.status == HCA_WC_RNR_RETRY_EXC_ERR)
		cov_hit(c, "retry.exhausted.rnr");
	q = &s->qp[x.qpn % COV_NQP];
	if (x.status != HCA_WC_SUCCESS && x.status != HCA_WC_WR_FLUSH_ERR && q->known)
		qp_to(c, q, HCA_QPS_ERR, "engine");
}

/*
 * An async event: raised by the engine (`evt.*`, popped from the event FIFO)
 * or delivered by the firmware as an ASYNC EQE (`eqe.async.*`).  What it
 * means for the QP and CQ is counted once, from the engine's event.
 */
static void async_event(struct cov *c, struct cov_state *s, bool engine, unsigned int type, uint32_t element)
{
	struct cov_qp *q = &s->qp[element % COV_NQP];

	cov_hit(c, "%s.%s", engine ? "evt" : "eqe.async", hca_event_type_name(type));
	if (!engine)
		return;
	if (type == HCA_EVENT_CQ_ERR)
		cov_hit(c, "cq.overflow");
	if (q->known && (type == HCA_EVENT_QP_FATAL || type == HCA_EVENT_QP_REQ_ERR || type == HCA_EVENT_QP_ACCESS_ERR))
		qp_to(c, q, HCA_QPS_ERR, "engine");
	if (q->known && type == HCA_EVENT_SQ_DRAINED)
		cov_hit(c, "qp.sq_drained");
}

void cov_engine_event(struct cov *c, unsigned int type, uint32_t element)
{
	struct cov_state *s;

	if (!c || !(s = state(c)))
		return;
	async_event(c, s, true, type, element);
}

static void eqe_done(struct cov *c, struct cov_state *s, const uint8_t *e)
{
	struct hca_eqe x;

	memcpy(&x, e, sizeof(x));
	if (x.type == HCA_EQE_TYPE_COMP) {
		cov_hit(c, "eqe.type.COMP");
		return;
	}
	if (x.type == HCA_EQE_TYPE_CMD_DONE) {
		cov_hit(c, "eqe.type.CMD_DONE");
		return;
	}
	if (x.type != HCA_EQE_TYPE_ASYNC) {
		cov_hit(c, "eqe.type.other");
		return;
	}
	cov_hit(c, "eqe.type.ASYNC");
	async_event(c, s, false, x.subtype, x.element);
}

/* Assemble ring entries however the engine splits its writes. */
static void ring_write(struct cov *c, struct cov_state *s, struct cov_ring *r, unsigned int idx, bool is_cq,
		       uint64_t a, const uint8_t *b, size_t len)
{
	unsigned int esz = is_cq ? HCA_CQE_SIZE : HCA_EQE_SIZE;

	while (len) {
		uint64_t slot = a - (a - r->base) % esz;
		unsigned int o = (unsigned int)(a - slot);
		size_t n = esz - o < len ? esz - o : len;

		if (r->part_addr != slot || !r->part_mask) {
			r->part_addr = slot;
			r->part_mask = 0;
		}
		memcpy(r->part + o, b, n);
		r->part_mask |= (uint32_t)(((uint64_t)1 << n) - 1) << o;
		if (r->part_mask == (uint32_t)(((uint64_t)1 << esz) - 1)) {
			r->part_mask = 0;
			if (is_cq)
				cqe_done(c, s, idx, r->part);
			else
				eqe_done(c, s, r->part);
		}
		a += n;
		b += n;
		len -= n;
	}
}

/* A firmware command entry: status written back. */
static bool cmdq_write(struct cov *c, struct cov_state *s, uint64_t a, const uint8_t *b, size_t len)
{
	uint64_t size = (uint64_t)HCA_CMDQ_ENTRY_SIZE << s->cmdq_log_size, off;
	struct cov_cmd *m;

	if (!s->cmdq_base || a < s->cmdq_base || a - s->cmdq_base >= size)
		return false;
	off = (a - s->cmdq_base) % HCA_CMDQ_ENTRY_SIZE;
	m = &s->cmd[(a - s->cmdq_base) / HCA_CMDQ_ENTRY_SIZE % COV_CMDQ_SLOTS];
	if (off <= HCA_CMDQ_ENTRY_STATUS_OFF && off + len >= HCA_CMDQ_ENTRY_SYNDROME_OFF + 4) {
		const uint8_t *st = b + (HCA_CMDQ_ENTRY_STATUS_OFF - off);

		if (m->have_hdr)
			cov_fw_cmd(c, m->obj, m->method, rd32(st),
				   (unsigned int)HCA_FIELD_GET(rd32(st + 4), HCA_CMDQ_ENTRY_SYNDROME_REASON));
		m->have_hdr = false;
	}
	return true;
}

void cov_dma_write(struct cov *c, uint64_t iova, const void *buf, size_t len, int rc)
{
	const uint8_t *b = buf;
	struct cov_state *s;

	if (!c || !(s = state(c)))
		return;
	if (rc) {
		cov_hit(c, "dma.write_fault");
		return;
	}
	if (cmdq_write(c, s, iova, b, len))
		return;
	for (unsigned int i = 0; i < COV_NCQ; i++) {
		struct cov_ring *r = &s->cq[i];

		if (r->valid && iova >= r->base && iova - r->base < ((uint64_t)HCA_CQE_SIZE << (r->log_size & 31))) {
			ring_write(c, s, r, i, true, iova, b, len);
			return;
		}
	}
	for (unsigned int i = 0; i < COV_NEQ; i++) {
		struct cov_ring *r = &s->eq[i];

		if (r->valid && iova >= r->base && iova - r->base < ((uint64_t)HCA_EQE_SIZE << (r->log_size & 31))) {
			ring_write(c, s, r, i, false, iova, b, len);
			return;
		}
	}
	for (unsigned int i = 0; i < COV_NMR; i++)
		if (s->mr[i].valid && iova >= s->mr[i].base && iova - s->mr[i].base < s->mr[i].len &&
		    len <= s->mr[i].len - (iova - s->mr[i].base)) {
			cov_hit(c, "dma.write.mr");
			return;
		}
	/* neither a CQ/EQ ring nor a registered memory region (the fuzzer fails on it) */
	cov_hit(c, "dma.write.outside");
}

/* Firmware DMA reads: command entries and the command headers they point to. */
void cov_fw_dma_read(struct cov *c, uint64_t iova, const void *buf, size_t len, int rc)
{
	const uint8_t *b = buf;
	struct cov_state *s;
	uint64_t size;

	if (!c || rc || !(s = state(c)) || !s->cmdq_base)
		return;
	size = (uint64_t)HCA_CMDQ_ENTRY_SIZE << s->cmdq_log_size;
	if (iova >= s->cmdq_base && iova - s->cmdq_base < size) {
		for (size_t o = 0; o + HCA_CMDQ_ENTRY_SIZE <= len; o += HCA_CMDQ_ENTRY_SIZE) {
			uint64_t a = iova + o - s->cmdq_base;

			if (a % HCA_CMDQ_ENTRY_SIZE == 0) {
				struct cov_cmd *m = &s->cmd[a / HCA_CMDQ_ENTRY_SIZE % COV_CMDQ_SLOTS];

				m->in_addr = rd64(b + o + HCA_CMDQ_ENTRY_IN_ADDR_OFF);
				m->have_hdr = false;
			}
		}
		return;
	}
	if (len < HCA_CMD_HDR_SIZE)
		return;
	for (unsigned int i = 0; i < COV_CMDQ_SLOTS; i++)
		if (s->cmd[i].in_addr == iova && iova) {
			s->cmd[i].obj = (uint16_t)rd16(b + HCA_CMD_HDR_OBJECT_ID_OFF);
			s->cmd[i].method = (uint16_t)rd16(b + HCA_CMD_HDR_METHOD_ID_OFF);
			s->cmd[i].have_hdr = true;
		}
}

void cov_interrupt(struct cov *c, unsigned int vector)
{
	cov_hit(c, "irq.%s", vector == 0 ? "vector0" : "vectorN");
}
