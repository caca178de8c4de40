// SPDX-License-Identifier: MIT
/*
 * Send WQE validation (docs/programming.md 5.1): every rule -- opcode valid
 * for the QP type, atomics with exactly one 8-byte SGE and an aligned remote
 * address, num_sge and inline_len within the caps the stride gives, INLINE
 * not with READ/atomics, wqe_index equal to the engine's count -- completes
 * the WQE with IBV_WC_LOC_QP_OP_ERR / BAD_WQE, sends nothing, and moves the
 * QP to ERR (RC) or SQE (UC); the WQE ahead of it still completes first and
 * successfully.  Also: nothing is sent before RTS.
 */
#include "mt.h"

static struct mt_cap cap;

struct bad {
	const char *what;
	uint8_t type;
	uint8_t op;
	uint8_t flags;
	unsigned int nsge;
	uint32_t sge_len;
	uint64_t raddr_off;
	uint16_t inline_len;
	int index_delta;
};

static void one(const struct bad *b)
{
	struct tb_qp_cap cap4 = { .max_send_sge = 4 };	/* stride 128: 4 SGEs or 64 inline bytes */
	struct mt t;
	struct tb_qp *q0, *q1;
	struct hca_cqe c;
	uint8_t w[128];
	struct hca_wqe_ctrl_seg ctl;
	struct hca_wqe_raddr_seg r;
	unsigned int frames_before;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	q0 = tb_qp_create(t.n[0], b->type, t.pd[0], t.scq[0], t.rcq[0], NULL, &cap4);
	q1 = tb_qp_create(t.n[1], b->type, t.pd[1], t.scq[1], t.rcq[1], NULL, &cap4);
	if (b->type == HCA_QPT_UD) {
		tb_qp_ud_ready(q0, NULL);
		tb_qp_ud_ready(q1, NULL);
	} else {
		tb_connect_pair(q0, q1, NULL);
	}
	CHECK_EQ(q0->qpc.log_sq_stride, 7, "stride 128");
	mt_cap_start(&t, &cap);
	/* a good WRITE (or UD SEND) ahead of the bad WQE: it completes first */
	{
		struct tb_sge s = mt_sge(t.mr[0], 0, b->type == HCA_QPT_UD ? 100 : 20000);
		struct tb_send_wr wr = { .opcode = b->type == HCA_QPT_UD ? HCA_WR_SEND : HCA_WR_RDMA_WRITE,
					 .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1, .raddr = t.mr[1]->va,
					 .rkey = t.mr[1]->rkey, .ud_dest = q1, .ud_qkey = 0x11111111 };

		tb_post_send(q0, &wr);
	}
	tb_step(t.tb, MT_WAIT);
	frames_before = mt_cap_count(&cap, 0, -1, -1);
	memset(w, 0, sizeof(w));
	memset(&ctl, 0, sizeof(ctl));
	ctl.opcode = b->op;
	ctl.send_flags = (uint8_t)(HCA_SEND_SIGNALED | b->flags);
	ctl.num_sge = (uint8_t)b->nsge;
	ctl.inline_len = b->inline_len;
	ctl.wqe_index = (uint16_t)(q0->sq_pi + b->index_delta);
	memcpy(w, &ctl, sizeof(ctl));
	r.remote_addr = t.mr[1]->va + b->raddr_off;
	r.rkey = t.mr[1]->rkey;
	memcpy(w + HCA_WQE_RADDR_OFF, &r, sizeof(r));
	for (unsigned int i = 0; i < b->nsge && i < 4; i++) {
		struct hca_wqe_data_seg d = { .byte_count = b->sge_len, .lkey = t.mr[0]->lkey, .addr = t.mr[0]->va };

		memcpy(w + 64 + 16 * i, &d, sizeof(d));
	}
	tb_post_send_raw(q0, w, sizeof(w));
	{
		struct tb_sge s = mt_sge(t.mr[0], 0, 8);
		struct tb_send_wr wr = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
					 .ud_dest = q1, .ud_qkey = 0x11111111 };

		tb_post_send(q0, &wr);
	}
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS && c.wqe_index == 0,
	      "%s: the WQE ahead completes successfully first", b->what);
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT), "%s: completion", b->what);
	CHECK(c.status == HCA_WC_LOC_QP_OP_ERR, "%s: LOC_QP_OP_ERR (%s)", b->what, hca_wc_status_name(c.status));
	CHECK_EQ(c.vendor_err, HCA_VENDOR_ERR_BAD_WQE, b->what);
	CHECK_EQ(c.wqe_index, 1, b->what);
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_WR_FLUSH_ERR && c.wqe_index == 2,
	      "%s: the next WQE is flushed", b->what);
	tb_run(t.tb, MT_WAIT);
	CHECK_EQ(mt_cap_count(&cap, 0, -1, -1) - frames_before, 0, b->what);
	CHECK_EQ(tb_qp_query(q0).cur_state, b->type == HCA_QPT_RC ? HCA_QPS_ERR : HCA_QPS_SQE, b->what);
	free(q0);
	free(q1);
	mt_teardown(&t);
}

static void no_send_before_rts(void)
{
	struct mt t;
	struct tb_sge s;
	struct hca_cqe c;

	mt_setup(&t, HCA_QPT_RC, NULL, NULL);
	mt_cap_start(&t, &cap);
	tb_qp_modify(t.qp[0], HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK);
	tb_qp_modify(t.qp[0], HCA_QPS_INIT, HCA_QPC_FLAGS_RESET_STATE_MASK);
	t.qp[0]->sq_pi = 0;
	s = mt_sge(t.mr[0], 0, 10);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
					 .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };

		tb_post_send(t.qp[0], &wr);
	}
	tb_run(t.tb, MT_WAIT);
	CHECK_EQ(mt_cap_count(&cap, 0, -1, -1), 0, "INIT: posted, not sent");
	tb_qp_modify(t.qp[0], HCA_QPS_RTR, HCA_QPC_FLAGS_LOAD_RQ_PSN_MASK);
	tb_run(t.tb, MT_WAIT);
	CHECK_EQ(mt_cap_count(&cap, 0, -1, -1), 0, "RTR: not sent");
	tb_qp_modify(t.qp[0], HCA_QPS_RTS, HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK);
	CHECK(tb_cq_wait(t.scq[0], &c, MT_WAIT) && c.status == HCA_WC_SUCCESS, "RTS: sent and completed");
	CHECK_EQ(mt_cap_count(&cap, 0, -1, -1), 1, "one frame");
	mt_teardown(&t);
}

int main(void)
{
	static const struct bad cases[] = {
		{ "opcode 7 (not a verbs opcode)", HCA_QPT_RC, 7, 0, 1, 8, 0, 0, 0 },
		{ "opcode 0xff", HCA_QPT_RC, 0xff, 0, 1, 8, 0, 0, 0 },
		{ "UC atomic", HCA_QPT_UC, HCA_WR_ATOMIC_FETCH_AND_ADD, 0, 1, 8, 0, 0, 0 },
		{ "UD RDMA WRITE", HCA_QPT_UD, HCA_WR_RDMA_WRITE, 0, 1, 8, 0, 0, 0 },
		{ "atomic with two SGEs", HCA_QPT_RC, HCA_WR_ATOMIC_CMP_AND_SWP, 0, 2, 4, 0, 0, 0 },
		{ "atomic with a 4-byte SGE", HCA_QPT_RC, HCA_WR_ATOMIC_FETCH_AND_ADD, 0, 1, 4, 0, 0, 0 },
		{ "atomic at a misaligned address", HCA_QPT_RC, HCA_WR_ATOMIC_FETCH_AND_ADD, 0, 1, 8, 4, 0, 0 },
		{ "num_sge above the stride's 4", HCA_QPT_RC, HCA_WR_SEND, 0, 5, 8, 0, 0, 0 },
		{ "inline_len above the stride's 64", HCA_QPT_RC, HCA_WR_SEND, HCA_SEND_INLINE, 0, 0, 0, 65, 0 },
		{ "INLINE READ", HCA_QPT_RC, HCA_WR_RDMA_READ, HCA_SEND_INLINE, 0, 0, 0, 8, 0 },
		{ "wqe_index mismatch", HCA_QPT_RC, HCA_WR_SEND, 0, 1, 8, 0, 0, 1 },
		{ "UC wqe_index mismatch", HCA_QPT_UC, HCA_WR_SEND, 0, 1, 8, 0, 0, -1 },
	};

	hca_model_engine_register();
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		one(&cases[i]);
	no_send_before_rts();
	return check_done();
}
