// SPDX-License-Identifier: MIT
/*
 * Host-visible rules of the model engine that the other engine tests pass
 * by without looking (found by mutation analysis, docs/sim.md 11.3), each
 * checked against docs/programming.md, docs/wire.md or the IB spec:
 *   CQE owner bit across ring passes (programming.md 5.4); a UC QP back from
 *   SQE sends whole multi-packet messages (IB 10.3.1); frames carry the port
 *   MAC as programmed (wire.md 1); COMM_EST only for an RC/UC QP in RTR, once
 *   (programming.md 6.3); a burst of received frames larger than any queue
 *   is handled in arrival order; requests stop at the window of unacknowledged
 *   PSNs while ACKs are held (wire.md 3.1) and complete in order once they
 *   come; a QP on an SRQ reports LAST_WQE_REACHED once
 *   even when its error completion also overflows the CQ; go-back-N after a
 *   NAK skips what a later ACK acknowledged (model.md rule 12).
 */
#include "mt.h"

/* CQ of 4 entries, 10 completions taken one at a time: the owner bit flips per pass. */
static void cq_owner_wrap(void)
{
	struct mt t;
	struct tb_cq *cq;
	struct tb_sge s;
	struct hca_cqe c;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	cq = tb_cq_create(t.n[0], 2, NULL);
	t.qp[0]->scq = cq;
	t.qp[0]->qpc.send_cqn = cq->cqn;
	tb_qp_modify(t.qp[0], HCA_QPS_RTS, 0);
	s = mt_sge(t.mr[0], 0, 8);
	for (int i = 0; i < 10; i++) {
		struct tb_send_wr w = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s,
					.num_sge = 1, .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };

		tb_post_send(t.qp[0], &w);
		CHECK(tb_cq_wait(cq, &c, MT_WAIT) && c.status == HCA_WC_SUCCESS && c.wqe_index == i,
		      "completion %d found by its owner bit (pass %d)", i, i / 4);
		CHECK_EQ(c.owner & 1, ((i >> 2) & 1) ^ 1, "owner bit of the pass");
	}
	free(cq);
	mt_teardown(&t);
}

/* A UC send WQE with a bad lkey: LOC_PROT_ERR, QP to SQE; back to RTS, a 3-packet SEND arrives whole. */
static void uc_sqe_to_rts(void)
{
	struct mt t;
	struct tb_sge s, r;
	struct tb_send_wr w;
	struct hca_cqe c;

	mt_setup(&t, HCA_QPT_UC, NULL, NULL);
	s = mt_sge(t.mr[0], 0, 100);
	s.lkey ^= 0x100;
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_LOC_PROT_ERR, "bad lkey: LOC_PROT_ERR (%u)",
	      c.status);
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_SQE, "UC QP in SQE");
	CHECK_EQ(tb_qp_modify(t.qp[0], HCA_QPS_RTS, 0), HCA_MGMT_STATUS_OK, "SQE -> RTS");
	mt_fill(t.mr[0]->buf, 2500, 3);
	r = mt_sge(t.mr[1], 0, 4096);
	tb_post_recv(t.qp[1], &r, 1);
	s = mt_sge(t.mr[0], 0, 2500);
	tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s,
						     .num_sge = 1 });
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "SEND after SQE -> RTS completes");
	CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS && c.byte_len == 2500,
	      "the 3-packet message arrives whole (status %u, byte_len %u)", c.status, c.byte_len);
	CHECK(mt_check(t.mr[1]->buf, 2500, 3), "its data");
	mt_teardown(&t);
}

static uint8_t seen_smac[6];
static int smac_filter(void *ctx, unsigned int src, uint8_t *frame, size_t *len, uint64_t now)
{
	(void)ctx;
	(void)now;
	if (src == 0 && *len >= 14)
		memcpy(seen_smac, frame + 6, 6);
	return TB_PASS;
}

/* The source MAC of every frame is PORT_MAC as firmware programmed it, byte for byte. */
static void port_mac(void)
{
	static const uint8_t mac[6] = { 0x02, 0xa1, 0xb2, 0xc3, 0xd4, 0xe5 };
	struct mt t;
	struct tb_sge s;
	struct hca_cqe c;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	tb_mgmt_write(t.n[0], HCA_MGMT_PORT_MAC_HI, (uint32_t)mac[0] << 8 | mac[1]);
	tb_mgmt_write(t.n[0], HCA_MGMT_PORT_MAC_LO,
		      (uint32_t)mac[2] << 24 | (uint32_t)mac[3] << 16 | (uint32_t)mac[4] << 8 | mac[5]);
	memcpy(t.n[0]->mac, mac, 6);
	tb_connect_pair(t.qp[0], t.qp[1], NULL);	/* the peer addresses the new MAC */
	tb_set_filter(t.tb, smac_filter, NULL);
	s = mt_sge(t.mr[0], 0, 8);
	tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED,
						     .sge = &s, .num_sge = 1, .raddr = t.mr[1]->va,
						     .rkey = t.mr[1]->rkey });
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "WRITE from the new MAC acknowledged");
	CHECK(memcmp(seen_smac, mac, 6) == 0, "source MAC %02x:%02x:%02x:%02x:%02x:%02x", seen_smac[0], seen_smac[1],
	      seen_smac[2], seen_smac[3], seen_smac[4], seen_smac[5]);
	mt_teardown(&t);
}

/* COMM_EST: raised for an RC/UC QP in RTR on its first valid packet, once; never for UD or in RTS. */
static void comm_est(void)
{
	struct mt t;
	struct tb_sge s, r;
	struct tb_qp_attr a;
	struct hca_cqe c;

	/* UD receiver left in RTR */
	tb_qp_attr_default(&a);
	mt_setup(&t, HCA_QPT_UD, &a, NULL);
	tb_qp_modify(t.qp[1], HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK);
	tb_qp_modify(t.qp[1], HCA_QPS_INIT, HCA_QPC_FLAGS_RESET_STATE_MASK);
	tb_qp_modify(t.qp[1], HCA_QPS_RTR, 0);
	tb_evt_clear(t.n[1]);
	r = mt_sge(t.mr[1], 0, 512);
	tb_post_recv(t.qp[1], &r, 1);
	s = mt_sge(t.mr[0], 0, 16);
	tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s,
						     .num_sge = 1, .ud_dest = t.qp[1], .ud_qkey = a.qkey });
	CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "UD QP in RTR receives");
	CHECK_EQ(mt_evt_count(t.n[1], HCA_EVENT_COMM_EST, t.qp[1]->qpn), 0, "no COMM_EST for UD");
	mt_teardown(&t);

	/* RC responder in RTR: one COMM_EST for two packets; none once in RTS */
	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	tb_qp_modify(t.qp[1], HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK);
	tb_qp_modify(t.qp[1], HCA_QPS_INIT, HCA_QPC_FLAGS_RESET_STATE_MASK);
	tb_qp_modify(t.qp[1], HCA_QPS_RTR, HCA_QPC_FLAGS_LOAD_RQ_PSN_MASK);
	tb_evt_clear(t.n[1]);
	s = mt_sge(t.mr[0], 0, 8);
	for (int i = 0; i < 2; i++) {
		tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED,
							     .sge = &s, .num_sge = 1, .raddr = t.mr[1]->va,
							     .rkey = t.mr[1]->rkey });
		CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "WRITE %d to the RTR QP", i);
	}
	CHECK_EQ(mt_evt_count(t.n[1], HCA_EVENT_COMM_EST, t.qp[1]->qpn), 1, "one COMM_EST in RTR");
	tb_qp_modify(t.qp[1], HCA_QPS_RTS, HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK);
	tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED,
						     .sge = &s, .num_sge = 1, .raddr = t.mr[1]->va,
						     .rkey = t.mr[1]->rkey });
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "WRITE to the RTS QP");
	CHECK_EQ(mt_evt_count(t.n[1], HCA_EVENT_COMM_EST, t.qp[1]->qpn), 0, "no COMM_EST in RTS");
	mt_teardown(&t);
}

/* mt_setup with the QPs' capabilities given. */
static void setup_cap(struct mt *t, uint8_t type, const struct tb_qp_attr *a, struct tb_qp_cap cap)
{
	memset(t, 0, sizeof(*t));
	hca_model_engine_register();
	t->tb = tb_create(NULL);
	for (int i = 0; i < 2; i++) {
		t->n[i] = tb_node(t->tb, (unsigned int)i);
		t->pd[i] = tb_pd_alloc(t->n[i]);
		t->scq[i] = tb_cq_create(t->n[i], 10, NULL);
		t->rcq[i] = tb_cq_create(t->n[i], 10, NULL);
		t->qp[i] = tb_qp_create(t->n[i], type, t->pd[i], t->scq[i], t->rcq[i], NULL, &cap);
		t->mr[i] = tb_mr_reg(t->n[i], t->pd[i], 1 << 20, MT_ACC_ALL);
	}
	if (type == HCA_QPT_UD)
		CHECK(!tb_qp_ud_ready(t->qp[0], a) && !tb_qp_ud_ready(t->qp[1], a), "UD QPs ready");
	else
		CHECK(!tb_connect_pair(t->qp[0], t->qp[1], a), "QPs connected");
}

/* mt_setup with 512-entry send and receive queues. */
static void setup_big(struct mt *t, uint8_t type, const struct tb_qp_attr *a)
{
	setup_cap(t, type, a, (struct tb_qp_cap){ .max_send_wr = 512, .max_recv_wr = 512 });
}

/* Frames node 0 sends, held back instead of delivered. */
#define HOLD_MAX 400
struct hold {
	unsigned int src, n;
	bool on;
	uint8_t *f[HOLD_MAX];
	size_t len[HOLD_MAX];
	uint64_t at[HOLD_MAX];		/* cycle the frame was sent at */
};

static int hold_filter(void *ctx, unsigned int src, uint8_t *frame, size_t *len, uint64_t now)
{
	struct hold *h = ctx;

	if (!h->on || src != h->src || h->n == HOLD_MAX)
		return TB_PASS;
	h->f[h->n] = malloc(*len);
	if (!h->f[h->n])
		return TB_PASS;
	memcpy(h->f[h->n], frame, *len);
	h->at[h->n] = now;
	h->len[h->n++] = *len;
	return TB_DROP;
}

/* Deliver held frames [from, to) to node `to_node` at once, as a wire burst. */
static void release(struct mt *t, struct hold *h, unsigned int from, unsigned int to, unsigned int to_node)
{
	struct tb_node *n = t->n[to_node];

	for (unsigned int i = from; i < to && i < h->n; i++) {
		n->ops->rx_frame(n->eng, h->f[i], h->len[i]);
		free(h->f[i]);
		h->f[i] = NULL;
	}
}

/* 100 UD datagrams reach the receiver in one burst (after one alone): received in order. */
static void rx_burst(void)
{
	static struct hold h;
	struct tb_qp_attr a;
	struct mt t;
	struct hca_cqe c;
	int ok = 1;

	tb_qp_attr_default(&a);
	setup_big(&t, HCA_QPT_UD, &a);
	memset(&h, 0, sizeof(h));
	h.on = true;
	tb_set_filter(t.tb, hold_filter, &h);
	for (unsigned int i = 0; i < 100; i++) {
		struct tb_sge r = mt_sge(t.mr[1], 256 * (uint64_t)i, 256);
		struct tb_sge s = mt_sge(t.mr[0], 64 * (uint64_t)i, 64);

		mt_fill(t.mr[0]->buf + 64 * i, 64, 100 + i);
		tb_post_recv(t.qp[1], &r, 1);
		tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_SEND, .sge = &s, .num_sge = 1,
							     .ud_dest = t.qp[1], .ud_qkey = a.qkey });
	}
	tb_run(t.tb, MT_WAIT);
	CHECK_EQ(h.n, 100, "100 datagrams held");
	release(&t, &h, 0, 1, 1);
	tb_run(t.tb, MT_WAIT);
	release(&t, &h, 1, 100, 1);
	tb_run(t.tb, MT_WAIT);
	for (unsigned int i = 0; i < 100; i++) {
		if (!tb_cq_poll(t.rcq[1], &c) || c.status != HCA_WC_SUCCESS || c.vendor_err != 0 || c.wqe_index != i ||
		    c.byte_len != HCA_GRH_SIZE + 64 || !mt_check(t.mr[1]->buf + 256 * i + HCA_GRH_SIZE, 64, 100 + i)) {
			ok = 0;
			CHECK(0, "datagram %u: status %u wqe_index %u byte_len %u, data %s", i, c.status, c.wqe_index,
			      c.byte_len, mt_check(t.mr[1]->buf + 256 * i + HCA_GRH_SIZE, 64, 100 + i) ? "ok" : "wrong");
			break;
		}
	}
	CHECK(ok, "100 datagrams of a burst received in arrival order");
	mt_teardown(&t);
}

/*
 * 300 WRITEs, their ACKs held: the requester stops at the window of 128
 * unacknowledged PSNs; the ACKs released, all 300 complete in order.
 */
static void many_outstanding(void)
{
	static struct hold h;
	struct tb_qp_attr a;
	struct mt t;
	struct hca_cqe c;
	int ok = 1;

	tb_qp_attr_default(&a);
	a.timeout = 0;		/* no retransmission timer: the ACKs come when released */
	setup_big(&t, HCA_QPT_RC, &a);
	memset(&h, 0, sizeof(h));
	h.on = true;
	h.src = 1;
	tb_set_filter(t.tb, hold_filter, &h);
	for (unsigned int i = 0; i < 300; i++) {
		struct tb_sge s = mt_sge(t.mr[0], 8 * (uint64_t)i, 8);

		mt_fill(t.mr[0]->buf + 8 * i, 8, 1000 + i);
		tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED,
							     .sge = &s, .num_sge = 1, .raddr = t.mr[1]->va + 8 * i,
							     .rkey = t.mr[1]->rkey });
	}
	tb_run(t.tb, MT_WAIT);
	CHECK(!tb_cq_poll(t.scq[0], &c), "nothing completes while the ACKs are held");
	CHECK_EQ(tb_frames_sent(t.tb) - h.n, HCA_WIRE_MAX_UNACKED_PSNS,
		 "requests in flight stop at the window of unacknowledged PSNs (wire.md 3.1)");
	h.on = false;
	release(&t, &h, 0, h.n, 0);
	tb_run(t.tb, MT_WAIT);
	for (unsigned int i = 0; i < 300 && ok; i++)
		if (!tb_cq_poll(t.scq[0], &c) || c.status != HCA_WC_SUCCESS || c.wqe_index != i) {
			ok = 0;
			CHECK(0, "WRITE %u: status %u wqe_index %u", i, c.status, c.wqe_index);
		}
	CHECK(ok, "300 WRITEs complete in order");
	CHECK(mt_check(t.mr[1]->buf, 8, 1000) && mt_check(t.mr[1]->buf + 8 * 299, 8, 1299), "first and last data");
	mt_teardown(&t);
}

/*
 * A QP on an SRQ whose error completion finds its send CQ full: QP_FATAL,
 * and LAST_WQE_REACHED once (programming.md 6.3: raised when the QP enters ERR).
 */
static void last_wqe_once(void)
{
	struct mt t;
	struct tb_srq *q;
	struct tb_cq *cq;
	struct tb_sge s;
	uint8_t ty;
	uint32_t el;
	int last = 0, fatal = 0;

	memset(&t, 0, sizeof(t));
	hca_model_engine_register();
	t.tb = tb_create(NULL);
	for (int i = 0; i < 2; i++) {
		t.n[i] = tb_node(t.tb, (unsigned int)i);
		t.pd[i] = tb_pd_alloc(t.n[i]);
		t.scq[i] = tb_cq_create(t.n[i], 10, NULL);
		t.rcq[i] = tb_cq_create(t.n[i], 10, NULL);
		t.mr[i] = tb_mr_reg(t.n[i], t.pd[i], 1 << 20, MT_ACC_ALL);
	}
	cq = tb_cq_create(t.n[0], 1, NULL);	/* 2 entries */
	q = tb_srq_create(t.n[0], t.pd[0], 4, 1, 0);
	t.qp[0] = tb_qp_create(t.n[0], HCA_QPT_RC, t.pd[0], cq, t.rcq[0], q, NULL);
	t.qp[1] = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
	tb_connect_pair(t.qp[0], t.qp[1], NULL);
	tb_evt_clear(t.n[0]);
	s = mt_sge(t.mr[0], 0, 8);
	for (int i = 0; i < 3; i++)
		tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED,
							     .sge = &s, .num_sge = 1, .raddr = t.mr[1]->va,
							     .rkey = i < 2 ? t.mr[1]->rkey : t.mr[1]->rkey ^ 0x100 });
	tb_run(t.tb, MT_WAIT);
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "requester in ERR");
	while (tb_evt_pop(t.n[0], &ty, &el)) {
		last += ty == HCA_EVENT_QP_LAST_WQE_REACHED && el == t.qp[0]->qpn;
		fatal += ty == HCA_EVENT_QP_FATAL && el == t.qp[0]->qpn;
	}
	CHECK(fatal == 1 && last == 1, "QP_FATAL once and LAST_WQE_REACHED once (%d, %d)", fatal, last);
	free(cq);
	free(q);
	mt_teardown(&t);
}

/* One UD SEND of `len` bytes into a receive buffer of exactly 40 + len bytes. */
static void ud_datagram_fits(uint32_t len, uint8_t seed, const char *what)
{
	struct tb_qp_attr a;
	struct mt t;
	struct tb_sge r, s;
	struct hca_cqe c;

	tb_qp_attr_default(&a);
	mt_setup(&t, HCA_QPT_UD, &a, NULL);
	mt_fill(t.mr[0]->buf, len, seed);
	r = mt_sge(t.mr[1], 0, HCA_GRH_SIZE + len);
	tb_post_recv(t.qp[1], &r, 1);
	s = mt_sge(t.mr[0], 0, len);
	tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_SEND, .sge = &s, .num_sge = 1,
						     .ud_dest = t.qp[1], .ud_qkey = a.qkey });
	CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS && c.byte_len == HCA_GRH_SIZE + len,
	      "%s: status %u byte_len %u", what, c.status, c.byte_len);
	CHECK(mt_check(t.mr[1]->buf + HCA_GRH_SIZE, len, seed), "%s: data", what);
	mt_teardown(&t);
}

/* A UD receive buffer of exactly 40 + message bytes holds the datagram (the GRH area first). */
static void ud_exact_fit(void)
{
	ud_datagram_fits(200, 9, "exact fit");
}

/*
 * A responder QPC with max_dest_rd_atomic above the device's limit (written
 * directly, past the firmware's checks) serves READs with the device's
 * HCA_CAP_MAX_RD_ATOMIC resources: 60 READs, 16 in flight, all answered.
 */
static void rd_atomic_above_limit(void)
{
	struct mt t;
	struct hca_cqe c;
	int ok = 1;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	t.qp[1]->qpc.max_dest_rd_atomic = 200;
	CHECK_EQ(tb_qp_modify(t.qp[1], HCA_QPS_RTS, 0), HCA_MGMT_STATUS_OK, "QPC with max_dest_rd_atomic 200");
	mt_fill(t.mr[1]->buf, 60 * 8, 4);
	for (unsigned int i = 0; i < 60; i++) {
		struct tb_sge s = mt_sge(t.mr[0], 8 * (uint64_t)i, 8);

		tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED,
							     .sge = &s, .num_sge = 1, .raddr = t.mr[1]->va + 8 * i,
							     .rkey = t.mr[1]->rkey });
	}
	for (unsigned int i = 0; i < 60 && ok; i++)
		if (!tb_cq_wait(t.scq[0], &c, MT_WAIT) || c.status != HCA_WC_SUCCESS || c.wqe_index != i) {
			ok = 0;
			CHECK(0, "READ %u: status %u", i, c.status);
		}
	CHECK(ok && mt_check(t.mr[0]->buf, 60 * 8, 4), "60 READs answered with the data");
	mt_teardown(&t);
}

/*
 * A READ response of the wrong length at the expected PSN completes the READ
 * with BAD_RESP_ERR (docs/model.md rule 16): the real responses are dropped,
 * a READ_RESPONSE_FIRST of 1000 bytes (PMTU 1024) is sent in their place.
 */
static void read_response_short(void)
{
	static struct hold h;
	struct mt t;
	struct roce_pkt p;
	struct tb_sge s;
	struct hca_cqe c;
	uint8_t pay[1024];

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	memset(&h, 0, sizeof(h));
	h.on = true;
	h.src = 1;
	tb_set_filter(t.tb, hold_filter, &h);
	s = mt_sge(t.mr[0], 0, 2048);
	tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED,
						     .sge = &s, .num_sge = 1, .raddr = t.mr[1]->va,
						     .rkey = t.mr[1]->rkey });
	tb_run(t.tb, 100000);
	CHECK(h.n >= 1, "the real READ responses held back");
	memset(pay, 0x42, sizeof(pay));
	roce_pkt_init(&p, HCA_BTH_OP_RC_RDMA_READ_RESPONSE_FIRST);
	p.dqpn = t.qp[0]->qpn;
	p.psn = tb_qp_query(t.qp[0]).sq_psn_next - 2;	/* the READ's first PSN */
	p.aeth.syndrome = AETH_ACK_SYN;
	p.aeth.msn = 1;
	CHECK(mt_inject(&t, 1, 0, &p, pay, 1000) == 0, "short READ response built");
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_BAD_RESP_ERR, "BAD_RESP_ERR (status %u)",
	      c.status);
	for (unsigned int i = 0; i < h.n; i++)
		free(h.f[i]);
	mt_teardown(&t);
}

/*
 * An ATOMIC ACKNOWLEDGE must carry an ACK in its AETH (the IB spec sends RNR
 * and NAK codes in ACKNOWLEDGE packets only; wire.md 3.3): one with an RNR
 * syndrome is a bad response, the FETCH_ADD completes with BAD_RESP_ERR and
 * no value is returned.
 */
static void atomic_ack_not_ack(void)
{
	static struct hold h;
	struct mt t;
	struct roce_pkt p;
	struct tb_sge s;
	struct hca_cqe c;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	memset(&h, 0, sizeof(h));
	h.on = true;
	h.src = 1;
	tb_set_filter(t.tb, hold_filter, &h);
	memset(t.mr[0]->buf, 0xee, 8);
	s = mt_sge(t.mr[0], 0, 8);
	tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_ATOMIC_FETCH_AND_ADD, .flags = HCA_SEND_SIGNALED,
						     .sge = &s, .num_sge = 1, .raddr = t.mr[1]->va,
						     .rkey = t.mr[1]->rkey, .compare_add = 1 });
	tb_run(t.tb, 100000);
	CHECK(h.n == 1, "the real atomic ACK held back");
	roce_pkt_init(&p, HCA_BTH_OP_RC_ATOMIC_ACKNOWLEDGE);
	p.dqpn = t.qp[0]->qpn;
	p.psn = tb_qp_query(t.qp[0]).sq_psn_next - 1;
	p.aeth.syndrome = AETH_RNR_SYN(1);
	p.aeth.msn = 1;
	p.atmack_orig = 0x1122334455667788ull;
	CHECK(mt_inject(&t, 1, 0, &p, NULL, 0) == 0, "atomic ACK with an RNR syndrome built");
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_BAD_RESP_ERR, "BAD_RESP_ERR (status %u)",
	      c.status);
	CHECK(t.mr[0]->buf[0] == 0xee, "no original value written");
	for (unsigned int i = 0; i < h.n; i++)
		free(h.f[i]);
	mt_teardown(&t);
}

/*
 * Go-back-N never resends what is acknowledged (docs/model.md rule 12,
 * wire.md 3.3/3.4; IB spec: an ACK with PSN p acknowledges every
 * request up to p): a 4-packet WRITE, its requests held; a NAK PSN
 * sequence error for the second packet and, behind it, an ACK for the third
 * arrive together.  The requester resends only from the fourth packet.
 */
static void nak_then_ack_skips(void)
{
	static struct hold h;
	struct tb_qp_attr a;
	struct mt t;
	struct roce_pkt p;
	struct tb_sge s;
	struct hca_cqe c;
	uint32_t psn0;
	unsigned int sent, bad = 0, resent = 0;

	tb_qp_attr_default(&a);
	a.timeout = 0;		/* no ACK timer: only the hand-built responses move the requester */
	mt_setup(&t, HCA_QPT_RC, &a, NULL);
	memset(&h, 0, sizeof(h));
	h.on = true;
	h.src = 0;
	tb_set_filter(t.tb, hold_filter, &h);
	mt_fill(t.mr[0]->buf, 4096, 7);
	s = mt_sge(t.mr[0], 0, 4096);
	tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED,
						     .sge = &s, .num_sge = 1, .raddr = t.mr[1]->va,
						     .rkey = t.mr[1]->rkey });
	tb_run(t.tb, 100000);
	CHECK_EQ(h.n, 4, "a 4096-byte WRITE at PMTU 1024 is 4 request packets");
	sent = h.n;
	psn0 = (tb_qp_query(t.qp[0]).sq_psn_next - 4) & 0xffffff;
	roce_pkt_init(&p, HCA_BTH_OP_RC_ACKNOWLEDGE);
	p.dqpn = t.qp[0]->qpn;
	p.psn = (psn0 + 1) & 0xffffff;
	p.aeth.syndrome = AETH_NAK_SYN(0);	/* PSN sequence error: resend from psn0 + 1 */
	CHECK(mt_inject(&t, 1, 0, &p, NULL, 0) == 0, "NAK PSN sequence error built");
	roce_pkt_init(&p, HCA_BTH_OP_RC_ACKNOWLEDGE);
	p.dqpn = t.qp[0]->qpn;
	p.psn = (psn0 + 2) & 0xffffff;
	p.aeth.syndrome = AETH_ACK_SYN;
	CHECK(mt_inject(&t, 1, 0, &p, NULL, 0) == 0, "ACK of the third packet built");
	tb_run(t.tb, 100000);
	for (unsigned int i = sent; i < h.n; i++) {
		struct roce_pkt q;

		if (roce_parse(h.f[i], h.len[i], &q) != ROCE_OK)
			continue;
		resent++;
		if (((q.psn - psn0) & 0xffffff) < 3)
			bad++;
	}
	CHECK(resent >= 1, "the requester resends after the NAK (%u packets)", resent);
	CHECK_EQ(bad, 0, "no resent packet has an acknowledged PSN (psn0 + 0..2)");
	roce_pkt_init(&p, HCA_BTH_OP_RC_ACKNOWLEDGE);
	p.dqpn = t.qp[0]->qpn;
	p.psn = (psn0 + 3) & 0xffffff;
	p.aeth.syndrome = AETH_ACK_SYN;
	p.aeth.msn = 1;
	CHECK(mt_inject(&t, 1, 0, &p, NULL, 0) == 0, "ACK of the last packet built");
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "the WRITE completes (status %u)",
	      c.status);
	for (unsigned int i = 0; i < h.n; i++)
		free(h.f[i]);
	mt_teardown(&t);
}

/*
 * The fields of successful RC and UC receive completions (programming.md 5.4):
 * vendor_err NONE, wc_flags only IBV_WC_WITH_IMM where the message carried
 * immediate data (IBV_WC_GRH is a UD flag), src_qp a UD field left 0.
 */
static void rc_recv_cqe_fields(void)
{
	struct mt t;
	struct tb_sge s, r;
	struct hca_cqe c;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	r = mt_sge(t.mr[1], 0, 4096);
	tb_post_recv(t.qp[1], &r, 1);
	tb_post_recv(t.qp[1], &r, 1);
	s = mt_sge(t.mr[0], 0, 2500);
	tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_SEND, .sge = &s, .num_sge = 1 });
	CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "SEND received");
	CHECK_EQ(c.opcode, HCA_WC_OP_RECV, "opcode RECV");
	CHECK_EQ(c.byte_len, 2500, "byte_len");
	CHECK_EQ(c.vendor_err, HCA_VENDOR_ERR_NONE, "SEND: vendor_err NONE");
	CHECK_EQ(c.wc_flags, 0, "SEND: no wc_flags");
	CHECK_EQ(c.src_qp, 0, "SEND: src_qp (a UD field) 0");
	s = mt_sge(t.mr[0], 0, 3000);
	tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE_WITH_IMM, .sge = &s, .num_sge = 1,
						     .raddr = t.mr[1]->va + 8192, .rkey = t.mr[1]->rkey,
						     .imm = 0x01020304 });
	CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "WRITE_WITH_IMM received");
	CHECK_EQ(c.opcode, HCA_WC_OP_RECV_RDMA_WITH_IMM, "opcode RECV_RDMA_WITH_IMM");
	CHECK_EQ(c.byte_len, 3000, "byte_len");
	CHECK_EQ(c.vendor_err, HCA_VENDOR_ERR_NONE, "WRITE_WITH_IMM: vendor_err NONE");
	CHECK_EQ(c.wc_flags, HCA_WC_FLAG_WITH_IMM, "WRITE_WITH_IMM: wc_flags WITH_IMM only");
	CHECK_EQ(c.src_qp, 0, "WRITE_WITH_IMM: src_qp (a UD field) 0");
	mt_teardown(&t);
	/* the same on UC */
	mt_setup(&t, HCA_QPT_UC, NULL, NULL);
	r = mt_sge(t.mr[1], 0, 4096);
	tb_post_recv(t.qp[1], &r, 1);
	s = mt_sge(t.mr[0], 0, 3000);
	tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE_WITH_IMM, .sge = &s, .num_sge = 1,
						     .raddr = t.mr[1]->va + 8192, .rkey = t.mr[1]->rkey,
						     .imm = 0x01020304 });
	CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "UC WRITE_WITH_IMM received");
	CHECK_EQ(c.byte_len, 3000, "UC byte_len");
	CHECK_EQ(c.vendor_err, HCA_VENDOR_ERR_NONE, "UC WRITE_WITH_IMM: vendor_err NONE");
	CHECK_EQ(c.wc_flags, HCA_WC_FLAG_WITH_IMM, "UC WRITE_WITH_IMM: wc_flags WITH_IMM only");
	CHECK_EQ(c.src_qp, 0, "UC WRITE_WITH_IMM: src_qp (a UD field) 0");
	mt_teardown(&t);
}

/*
 * A UD datagram of exactly one path MTU (1024) of payload is one packet and
 * is received whole (IB spec: a UD message may be as long as the PMTU).
 */
static void ud_full_pmtu(void)
{
	ud_datagram_fits(1024, 21, "1024-byte datagram at PMTU 1024");
}

/*
 * On UC an RDMA WRITE without immediate data consumes no receive WQE (the
 * IB spec: only a WRITE with immediate data does): it lands with the receive queue empty, and the next SEND
 * completes on receive WQE 0.
 */
static void uc_write_no_recv_wqe(void)
{
	struct mt t;
	struct tb_sge s, r;
	struct hca_cqe c;

	mt_setup(&t, HCA_QPT_UC, NULL, NULL);
	mt_fill(t.mr[0]->buf, 2500, 5);
	s = mt_sge(t.mr[0], 0, 2500);
	tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED,
						     .sge = &s, .num_sge = 1, .raddr = t.mr[1]->va + 65536,
						     .rkey = t.mr[1]->rkey });
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "UC WRITE sent");
	tb_run(t.tb, MT_WAIT);
	CHECK(mt_check(t.mr[1]->buf + 65536, 2500, 5), "UC WRITE data landed with no receive WQE posted");
	CHECK(!tb_cq_poll(t.rcq[1], &c), "no receive completion for a WRITE");
	r = mt_sge(t.mr[1], 0, 256);
	tb_post_recv(t.qp[1], &r, 1);
	s = mt_sge(t.mr[0], 0, 100);
	tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_SEND, .sge = &s, .num_sge = 1 });
	CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS && c.wqe_index == 0 &&
	      c.byte_len == 100, "the SEND completes on receive WQE 0 (status %u wqe_index %u)", c.status, c.wqe_index);
	mt_teardown(&t);
}

/*
 * A UD QPC left with path_mtu 0 (outside 1..5) means a 4096-byte PMTU
 * (docs/model.md rule 11): a 2000-byte datagram goes out and arrives whole.
 */
static void ud_path_mtu_zero(void)
{
	struct tb_qp_attr a;
	struct mt t;
	struct tb_sge r, s;
	struct hca_cqe c;

	tb_qp_attr_default(&a);
	a.path_mtu = 0;
	mt_setup(&t, HCA_QPT_UD, &a, NULL);
	mt_fill(t.mr[0]->buf, 2000, 23);
	r = mt_sge(t.mr[1], 0, HCA_GRH_SIZE + 2000);
	tb_post_recv(t.qp[1], &r, 1);
	s = mt_sge(t.mr[0], 0, 2000);
	tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s,
						     .num_sge = 1, .ud_dest = t.qp[1], .ud_qkey = a.qkey });
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "sent (status %u)", c.status);
	CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS && c.byte_len == HCA_GRH_SIZE + 2000,
	      "2000-byte datagram with path_mtu 0: status %u byte_len %u", c.status, c.byte_len);
	CHECK(mt_check(t.mr[1]->buf + HCA_GRH_SIZE, 2000, 23), "its data");
	mt_teardown(&t);
}

/*
 * A NAK names the request it refuses and acknowledges every request before
 * it (IB spec, RC NAKs): two 1-packet WRITEs, their requests held; a
 * remote-access NAK for the second one's PSN completes the first with
 * SUCCESS and the second with REM_ACCESS_ERR.
 */
static void nak_charged_to_its_psn(void)
{
	static struct hold h;
	struct tb_qp_attr a;
	struct mt t;
	struct roce_pkt p;
	struct tb_sge s;
	struct hca_cqe c;
	uint32_t psn0;

	tb_qp_attr_default(&a);
	a.timeout = 0;
	mt_setup(&t, HCA_QPT_RC, &a, NULL);
	memset(&h, 0, sizeof(h));
	h.on = true;
	h.src = 0;
	tb_set_filter(t.tb, hold_filter, &h);
	s = mt_sge(t.mr[0], 0, 64);
	for (int i = 0; i < 2; i++)
		tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED,
							     .sge = &s, .num_sge = 1, .raddr = t.mr[1]->va,
							     .rkey = t.mr[1]->rkey });
	tb_run(t.tb, 100000);
	CHECK_EQ(h.n, 2, "two 1-packet WRITE requests");
	psn0 = (tb_qp_query(t.qp[0]).sq_psn_next - 2) & 0xffffff;
	roce_pkt_init(&p, HCA_BTH_OP_RC_ACKNOWLEDGE);
	p.dqpn = t.qp[0]->qpn;
	p.psn = (psn0 + 1) & 0xffffff;
	p.aeth.syndrome = AETH_NAK_SYN(HCA_AETH_NAK_REMOTE_ACCESS_ERR);
	p.aeth.msn = 1;
	CHECK(mt_inject(&t, 1, 0, &p, NULL, 0) == 0, "remote access NAK built");
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.wqe_index == 0 && c.status == HCA_WC_SUCCESS,
	      "the first WRITE completes SUCCESS (wqe_index %u status %u)", c.wqe_index, c.status);
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.wqe_index == 1 && c.status == HCA_WC_REM_ACCESS_ERR,
	      "the second WRITE completes REM_ACCESS_ERR (wqe_index %u status %u)", c.wqe_index, c.status);
	for (unsigned int i = 0; i < h.n; i++)
		free(h.f[i]);
	mt_teardown(&t);
}

/*
 * A malformed receive WQE (num_sge above what its stride holds) is consumed
 * and completes with LOC_QP_OP_ERR / BAD_WQE (docs/model.md rule 22); on RC
 * the request is NAKed remote operational error, the sender sees
 * REM_OP_ERR.  Both on RC and on UD.
 */
static void malformed_recv_wqe(void)
{
	static const uint8_t types[2] = { HCA_QPT_RC, HCA_QPT_UD };

	for (int k = 0; k < 2; k++) {
		struct tb_qp_attr a;
		struct mt t;
		struct tb_sge r, s;
		struct hca_cqe c;
		struct hca_recv_wqe_hdr *h;
		int idx;

		tb_qp_attr_default(&a);
		mt_setup(&t, types[k], &a, NULL);
		r = mt_sge(t.mr[1], 0, 512);
		idx = tb_post_recv(t.qp[1], &r, 1);
		h = (struct hca_recv_wqe_hdr *)(t.qp[1]->rq +
						((size_t)(idx & ((1u << t.qp[1]->qpc.log_rq_size) - 1))
						 << t.qp[1]->qpc.log_rq_stride));
		h->num_sge = 255;
		s = mt_sge(t.mr[0], 0, 64);
		tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED,
							     .sge = &s, .num_sge = 1, .ud_dest = t.qp[1],
							     .ud_qkey = a.qkey });
		CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.status == HCA_WC_LOC_QP_OP_ERR &&
		      c.vendor_err == HCA_VENDOR_ERR_BAD_WQE && c.wqe_index == (uint32_t)idx,
		      "%s: malformed receive WQE -> LOC_QP_OP_ERR/BAD_WQE (status %u vendor_err %u)",
		      k ? "UD" : "RC", c.status, c.vendor_err);
		if (types[k] == HCA_QPT_RC)
			CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_REM_OP_ERR,
			      "RC: the sender gets REM_OP_ERR (status %u)", c.status);
		mt_teardown(&t);
	}
}

/*
 * Inline data is capped at HCA_CAP_MAX_INLINE_DATA (256) even where the SQ
 * stride would hold more (programming.md 5.1: inline_len within the caps):
 * on a QP with 16 SGEs (512-byte stride) a 300-byte inline SEND completes
 * LOC_QP_OP_ERR / BAD_WQE and sends nothing; 256 bytes go through.
 */
static void inline_cap(void)
{
	static uint8_t data[300];
	struct mt t;
	struct tb_sge r;
	struct hca_cqe c;
	uint64_t sent;

	setup_cap(&t, HCA_QPT_RC, NULL, (struct tb_qp_cap){ .max_send_sge = 16 });
	CHECK_EQ(t.qp[0]->qpc.log_sq_stride, 9, "512-byte SQ stride");
	mt_fill(data, sizeof(data), 31);
	r = mt_sge(t.mr[1], 0, 512);
	tb_post_recv(t.qp[1], &r, 1);
	tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED,
						     .inline_data = data, .inline_len = 256 });
	CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS && c.byte_len == 256,
	      "256 inline bytes arrive (status %u)", c.status);
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "and complete");
	sent = tb_frames_sent(t.tb);
	tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED,
						     .inline_data = data, .inline_len = 300 });
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_LOC_QP_OP_ERR &&
	      c.vendor_err == HCA_VENDOR_ERR_BAD_WQE, "300 inline bytes: LOC_QP_OP_ERR/BAD_WQE (status %u)", c.status);
	CHECK_EQ(tb_frames_sent(t.tb) - sent, 0, "nothing sent for it");
	mt_teardown(&t);
}

/*
 * A WRITE_WITH_IMM whose data cannot be written (the responder's MR points
 * at host memory that is not mapped: a DMA fault) completes its receive WQE
 * with LOC_PROT_ERR / DMA_FAULT (programming.md 3, DMA faults), and the
 * CQE's src_qp, a UD field, stays 0 as on every RC completion.
 */
static void write_imm_dma_fault(void)
{
	struct mt t;
	struct tb_sge s, r;
	struct hca_cqe c;
	struct hca_mrc m;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	memset(&m, 0, sizeof(m));
	m.valid = 1;
	m.key = (uint8_t)t.mr[1]->rkey;
	m.access = (uint16_t)t.mr[1]->access;
	m.pdn = t.mr[1]->pdn;
	m.va = t.mr[1]->va;
	m.length = t.mr[1]->len;
	m.dma_addr = 0xdead0000ull;	/* not mapped */
	tb_ctx_write(t.n[1], HCA_CTX_TYPE_MRC, t.mr[1]->index, &m, sizeof(m));
	r = mt_sge(t.mr[1], 0, 0);
	tb_post_recv(t.qp[1], &r, 0);
	s = mt_sge(t.mr[0], 0, 64);
	tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE_WITH_IMM, .sge = &s, .num_sge = 1,
						     .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey, .imm = 7 });
	CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT) && c.status == HCA_WC_LOC_PROT_ERR &&
	      c.vendor_err == HCA_VENDOR_ERR_DMA_FAULT, "faulting WRITE_WITH_IMM: LOC_PROT_ERR/DMA_FAULT (status %u)",
	      c.status);
	CHECK_EQ(c.src_qp, 0, "src_qp (a UD field) 0");
	mt_teardown(&t);
}

/*
 * An ACK for the first packet of a 4-packet WRITE acknowledges that packet
 * (IB spec: an ACK acknowledges every request up to its PSN); when the ACK
 * timer then expires the requester resends from the second packet on
 * (wire.md 3.4: from the first unacknowledged PSN).
 */
static void partial_ack_then_timeout(void)
{
	static struct hold h;
	struct tb_qp_attr a;
	struct mt t;
	struct roce_pkt p;
	struct tb_sge s;
	uint32_t psn0;
	unsigned int sent, bad = 0, resent = 0;

	tb_qp_attr_default(&a);
	a.timeout = 1;		/* 2^11 cycles */
	mt_setup(&t, HCA_QPT_RC, &a, NULL);
	memset(&h, 0, sizeof(h));
	h.on = true;
	h.src = 0;
	tb_set_filter(t.tb, hold_filter, &h);
	s = mt_sge(t.mr[0], 0, 4096);
	tb_post_send(t.qp[0], &(struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED,
						     .sge = &s, .num_sge = 1, .raddr = t.mr[1]->va,
						     .rkey = t.mr[1]->rkey });
	tb_run(t.tb, 200);
	sent = h.n;
	CHECK_EQ(sent, 4, "4 request packets");
	psn0 = (tb_qp_query(t.qp[0]).sq_psn_next - 4) & 0xffffff;
	roce_pkt_init(&p, HCA_BTH_OP_RC_ACKNOWLEDGE);
	p.dqpn = t.qp[0]->qpn;
	p.psn = psn0;
	p.aeth.syndrome = AETH_ACK_SYN;
	CHECK(mt_inject(&t, 1, 0, &p, NULL, 0) == 0, "ACK of the first packet built");
	tb_run(t.tb, 6000);	/* past one ACK timeout */
	for (unsigned int i = sent; i < h.n; i++) {
		struct roce_pkt q;

		if (roce_parse(h.f[i], h.len[i], &q) != ROCE_OK)
			continue;
		resent++;
		if (q.psn == psn0)
			bad++;
	}
	CHECK(resent >= 1, "resent after the ACK timeout (%u packets)", resent);
	CHECK_EQ(bad, 0, "the acknowledged first packet is not resent");
	/* the timer runs from the last progress (the ACK, injected at about the 4th request's cycle) */
	if (resent >= 1)
		CHECK(h.at[sent] >= h.at[sent - 1] + 2048 && h.at[sent] < h.at[sent - 1] + 2 * 2048,
		      "the resend comes one ACK timeout (2^11 cycles, wire.md 3.4) after the last progress: %llu cycles",
		      (unsigned long long)(h.at[sent] - h.at[sent - 1]));
	h.on = false;
	for (unsigned int i = 0; i < h.n; i++)
		free(h.f[i]);
	mt_teardown(&t);
}

int main(void)
{
	cq_owner_wrap();
	uc_sqe_to_rts();
	port_mac();
	comm_est();
	rx_burst();
	many_outstanding();
	last_wqe_once();
	ud_exact_fit();
	rd_atomic_above_limit();
	read_response_short();
	atomic_ack_not_ack();
	nak_then_ack_skips();
	rc_recv_cqe_fields();
	ud_full_pmtu();
	uc_write_no_recv_wqe();
	ud_path_mtu_zero();
	nak_charged_to_its_psn();
	malformed_recv_wqe();
	inline_cap();
	write_imm_dma_fault();
	partial_ack_then_timeout();
	return check_done();
}
