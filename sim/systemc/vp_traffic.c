// SPDX-License-Identifier: MIT
/* The example platform's RC traffic and its checks: see vp_traffic.h. */
#include "vp_traffic.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Areas of each host's MR, VP_AREA bytes each. */
#define VP_AREA 0x2800u
#define SEND_SRC (0 * VP_AREA)
#define RECV_DST (1 * VP_AREA)
#define WRITE_SRC (2 * VP_AREA)
#define WRITE_DST (3 * VP_AREA)
#define READ_SRC (4 * VP_AREA)
#define READ_DST (5 * VP_AREA)
#define POISON 0xa5

static uint32_t msg_len(enum vp_phase p, unsigned int sender)
{
	static const uint32_t base[] = { 5000, 9000, 6000 };

	return base[p] + 123 * sender;
}

/* Byte k of what `sender` puts on the wire in phase p: the oracle. */
static uint8_t pattern(unsigned int sender, enum vp_phase p, uint32_t k)
{
	return (uint8_t)((k * 131u + (k >> 8) * 7u + sender * 59u + (unsigned int)p * 17u) ^ 0x5au);
}

static void fill(uint8_t *b, unsigned int sender, enum vp_phase p, uint32_t len)
{
	for (uint32_t k = 0; k < len; k++)
		b[k] = pattern(sender, p, k);
}

static void check(struct vp_traffic *r, const struct vp_host *h, int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		r->passed++;
		return;
	}
	r->failed++;
	printf("FAIL host %u: ", h->cfg.id);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* `len` bytes of the sender's pattern, then poison up to `area`. */
static void check_bytes(struct vp_traffic *r, const struct vp_host *h, uint32_t off, unsigned int sender,
			enum vp_phase p, uint32_t len, uint32_t area, const char *what)
{
	const uint8_t *b = h->buf + off;
	uint32_t k = 0;

	while (k < len && b[k] == pattern(sender, p, k))
		k++;
	check(r, h, k == len, "%s: byte %u of %u is 0x%02x, want 0x%02x", what, k, len, k < len ? b[k] : 0,
	      k < len ? pattern(sender, p, k) : 0);
	for (k = len; k < area && b[k] == POISON; k++)
		;
	check(r, h, k == area, "%s: byte %u after the payload was overwritten (0x%02x)", what, k,
	      k < area ? b[k] : 0);
	r->payload_bytes += len;
}

static void check_cqe(struct vp_traffic *r, const struct vp_host *h, const struct hca_cqe *e, uint8_t opcode,
		      int wqe_index, const char *what)
{
	check(r, h, e->status == HCA_WC_SUCCESS, "%s: status %s, vendor_err %u", what,
	      hca_wc_status_name(e->status), e->vendor_err);
	check(r, h, e->opcode == opcode, "%s: opcode %s, want %s", what, hca_wc_opcode_name(e->opcode),
	      hca_wc_opcode_name(opcode));
	check(r, h, e->qpn == h->qpn, "%s: qpn %u, want %u", what, e->qpn, h->qpn);
	check(r, h, e->wqe_index == wqe_index, "%s: wqe_index %u, want %d", what, e->wqe_index, wqe_index);
}

static int wait_cqe(struct vp_traffic *r, struct vp_host *h, struct hca_cqe *e)
{
	int rc = vp_host_wait_cqe(h, e);

	check(r, h, rc == 0, "completion: %s", h->err);
	if (!rc)
		r->completions++;
	return rc;
}

static void phase_send(struct vp_host *h, const struct vp_host *peer, const struct vp_traffic_ops *ops,
		       struct vp_traffic *r)
{
	struct hca_cqe e, send = { 0 }, recv = { 0 };
	int ri, si, got_send = 0, got_recv = 0;

	fill(h->buf + SEND_SRC, h->cfg.id, VP_PHASE_SEND, msg_len(VP_PHASE_SEND, h->cfg.id));
	memset(h->buf + RECV_DST, POISON, VP_AREA);
	ri = vp_host_post_recv(h, RECV_DST, VP_AREA);
	ops->barrier(ops->ctx);	/* the peer's receive is posted */
	si = vp_host_post_send(h, HCA_WR_SEND, SEND_SRC, msg_len(VP_PHASE_SEND, h->cfg.id), 0, 0);
	for (int n = 0; n < 2 && wait_cqe(r, h, &e) == 0; n++) {
		if (e.opcode == HCA_WC_OP_RECV) {
			recv = e;
			got_recv++;
		} else {
			send = e;
			got_send++;
		}
	}
	check(r, h, got_send == 1 && got_recv == 1, "SEND: %d send and %d receive completions, want 1 and 1",
	      got_send, got_recv);
	if (got_send)
		check_cqe(r, h, &send, HCA_WC_OP_SEND, si, "SEND requester CQE");
	if (got_recv) {
		check_cqe(r, h, &recv, HCA_WC_OP_RECV, ri, "SEND responder CQE");
		check(r, h, recv.byte_len == msg_len(VP_PHASE_SEND, peer->cfg.id), "receive byte_len %u, want %u",
		      recv.byte_len, msg_len(VP_PHASE_SEND, peer->cfg.id));
		check_bytes(r, h, RECV_DST, peer->cfg.id, VP_PHASE_SEND, msg_len(VP_PHASE_SEND, peer->cfg.id),
			    VP_AREA, "SEND payload");
	}
}

static void phase_write(struct vp_host *h, const struct vp_host *peer, const struct vp_traffic_ops *ops,
			struct vp_traffic *r)
{
	struct hca_cqe e;
	int wi;

	fill(h->buf + WRITE_SRC, h->cfg.id, VP_PHASE_WRITE, msg_len(VP_PHASE_WRITE, h->cfg.id));
	memset(h->buf + WRITE_DST, POISON, VP_AREA);
	ops->barrier(ops->ctx);	/* the peer's target area is poisoned */
	wi = vp_host_post_send(h, HCA_WR_RDMA_WRITE, WRITE_SRC, msg_len(VP_PHASE_WRITE, h->cfg.id),
			       peer->buf_va + WRITE_DST, peer->lkey);
	if (wait_cqe(r, h, &e) == 0)
		check_cqe(r, h, &e, HCA_WC_OP_RDMA_WRITE, wi, "RDMA WRITE CQE");
	ops->barrier(ops->ctx);	/* the peer's WRITE is acknowledged: its data is here */
	check_bytes(r, h, WRITE_DST, peer->cfg.id, VP_PHASE_WRITE, msg_len(VP_PHASE_WRITE, peer->cfg.id), VP_AREA,
		    "RDMA WRITE payload");
}

static void phase_read(struct vp_host *h, const struct vp_host *peer, const struct vp_traffic_ops *ops,
		       struct vp_traffic *r)
{
	uint32_t len = msg_len(VP_PHASE_READ, h->cfg.id);
	struct hca_cqe e;
	int qi;

	fill(h->buf + READ_SRC, h->cfg.id, VP_PHASE_READ, VP_AREA);
	memset(h->buf + READ_DST, POISON, VP_AREA);
	ops->barrier(ops->ctx);	/* the peer's source is filled */
	qi = vp_host_post_send(h, HCA_WR_RDMA_READ, READ_DST, len, peer->buf_va + READ_SRC, peer->lkey);
	if (wait_cqe(r, h, &e) == 0) {
		if (e.status == HCA_WC_LOC_QP_OP_ERR && e.vendor_err == HCA_VENDOR_ERR_BAD_WQE) {
			r->read = VP_READ_REFUSED;
			check_bytes(r, h, READ_DST, peer->cfg.id, VP_PHASE_READ, 0, VP_AREA,
				    "refused RDMA READ target");
		} else {
			r->read = VP_READ_DONE;
			check_cqe(r, h, &e, HCA_WC_OP_RDMA_READ, qi, "RDMA READ CQE");
			check(r, h, e.byte_len == len, "RDMA READ byte_len %u, want %u", e.byte_len, len);
			check_bytes(r, h, READ_DST, peer->cfg.id, VP_PHASE_READ, len, VP_AREA,
				    "RDMA READ payload");
		}
	}
}

void vp_traffic_phase(struct vp_host *h, const struct vp_host *peer, enum vp_phase phase,
		      const struct vp_traffic_ops *ops, struct vp_traffic *res)
{
	switch (phase) {
	case VP_PHASE_SEND:
		phase_send(h, peer, ops, res);
		break;
	case VP_PHASE_WRITE:
		phase_write(h, peer, ops, res);
		break;
	case VP_PHASE_READ:
		phase_read(h, peer, ops, res);
		break;
	}
	ops->barrier(ops->ctx);
}
