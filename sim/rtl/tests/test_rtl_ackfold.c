// SPDX-License-Identifier: MIT
/*
 * The ACK item's walk folded (docs/rtl.md "The ACK item's next entry read
 * with the retire"; hca_comp nx_v, nx_fold): an ACK that completes the WQE
 * at SQ_CI reads the outstanding-table entry after it in the cycle it
 * calls hca_complete_send, and in that call's done cycle -- the retire's
 * SQ_CI and UNA writes and the posted CQE's pending outcome seen by then --
 * decides on it: the walk stops there and the item ends in that cycle, or
 * COMPST_ACK_THROUGH goes on with it.  Lockstep against the model, both
 * widths, with the CQE write's response after 1, 8 and 300 cycles; one QP,
 * its ACKs one by one (64-byte WRITEs, signaled), the entry after the
 * acknowledged WQE being:
 *   write     -- another WRITE, not covered (the fold ends the item); ten
 *                of them, data and CQEs checked;
 *   unsignaled -- the same, every other WRITE unsignaled (no CQE: the walk
 *                goes on with no posted write to wait for, so a wrong next
 *                entry is acted on at once);
 *   read      -- a READ (no fold: a READ completes with its response);
 *   failed    -- a WRITE that failed locally (bad lkey: the retire);
 *   last      -- none (SQ_CI = SQ_HEAD after the retire: ACK_DONE);
 *   coalesced -- a WRITE the same ACK covers (its ACK dropped on the wire:
 *                the next ACK completes two WQEs, the second call right
 *                after the first);
 *   lost      -- a WRITE, the acknowledged WQE's CQE write faulting (the
 *                send CQ's ring mapped for 2 slots): CQ_ERR, QP_FATAL, the
 *                rest flushed.
 *
 *   rtl_ackfold [--width 64|512] [--engine rtl|lockstep|model] [--options K=V,...] [CASE...]
 */
#include "rtl_ls.h"

enum { MSG = 64, N = 10 };

static uint32_t drop_psn = 0xffffffffu;

/* node 1's ACK of PSN drop_psn lost on the wire (once) */
static int drop_ack_of(struct rt_cap *cap, unsigned int src, const struct roce_pkt *p)
{
	(void)cap;
	if (src == 1 && p->opcode == HCA_BTH_OP_RC_ACKNOWLEDGE && p->psn == drop_psn) {
		drop_psn = 0xffffffffu;
		return 1;
	}
	return 0;
}

static bool unsig;	/* odd WQEs unsignaled (no CQE: no posted write to wait for) */

static void post_op(struct rt *t, uint8_t op, unsigned int i, uint32_t lkey)
{
	struct tb_sge s = rt_sge(t->mr[0], (uint64_t)i * MSG, MSG);
	struct tb_send_wr w = { .opcode = op, .flags = (unsig && i % 2) ? 0 : HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				.raddr = t->mr[1]->va + (uint64_t)i * MSG, .rkey = t->mr[1]->rkey };

	if (lkey)
		s.lkey = lkey;
	tb_post_send(t->qp[0], &w);
}

static void fold(const char *kase, unsigned int wr_lat)
{
	struct rt t;
	struct hca_cqe c;
	char opt[32], what[96];
	unsigned int n = 0, good = 0;
	bool lost = !strcmp(kase, "lost");

	unsig = !strcmp(kase, "unsignaled");

	snprintf(opt, sizeof(opt), "wr_lat=%u", wr_lat);
	setup_harness_opt(&t, NULL, NULL, opt);
	snprintf(what, sizeof(what), "%s, wr_lat %u", kase, wr_lat);
	if (lost)
		rt_move_send_cq(&t, 2);
	rt_fill(t.mr[0]->buf, N * MSG, 50 + wr_lat);
	rt_fill(t.mr[1]->buf + 0x8000, N * MSG, 70 + wr_lat);	/* what the READs read */
	tb_evt_clear(t.n[0]);
	if (!strcmp(kase, "write") || lost || unsig) {
		for (unsigned int i = 0; i < N; i++)
			post_op(&t, HCA_WR_RDMA_WRITE, i, 0);
		n = N;
	} else if (!strcmp(kase, "read")) {
		for (unsigned int i = 0; i < 6; i++) {
			struct tb_sge s = rt_sge(t.mr[0], 0x4000 + (uint64_t)i * MSG, MSG);
			struct tb_send_wr w = { .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = &s,
						.num_sge = 1, .raddr = t.mr[1]->va + 0x8000 + (uint64_t)i * MSG,
						.rkey = t.mr[1]->rkey };

			if (i % 2)
				tb_post_send(t.qp[0], &w);
			else
				post_op(&t, HCA_WR_RDMA_WRITE, i, 0);
		}
		n = 6;
	} else if (!strcmp(kase, "failed")) {
		post_op(&t, HCA_WR_RDMA_WRITE, 0, 0);
		post_op(&t, HCA_WR_RDMA_WRITE, 1, 0xdead00u);	/* fails locally: LOC_PROT_ERR, QP to ERR */
		post_op(&t, HCA_WR_RDMA_WRITE, 2, 0);
		n = 3;
	} else if (!strcmp(kase, "last")) {
		for (unsigned int i = 0; i < 3; i++) {
			post_op(&t, HCA_WR_RDMA_WRITE, i, 0);
			tb_run(t.tb, RT_WAIT);
		}
		n = 3;
	} else if (!strcmp(kase, "coalesced")) {
		post_op(&t, HCA_WR_RDMA_WRITE, 0, 0);
		tb_run(t.tb, RT_WAIT);
		drop_psn = tb_qp_query(t.qp[0]).sq_psn_next & 0xffffff;
		t.cap.drop = drop_ack_of;
		for (unsigned int i = 1; i < 5; i++)
			post_op(&t, HCA_WR_RDMA_WRITE, i, 0);
		n = 5;
	}
	tb_run(t.tb, RT_WAIT);
	for (unsigned int i = 0; i < n && !lost; i++) {
		if (unsig && i % 2) {
			good++;
			continue;
		}
		if (tb_cq_poll(t.scq[0], &c) <= 0)
			break;
		good += c.status == HCA_WC_SUCCESS;
		if (!strcmp(kase, "failed"))
			CHECK(c.wqe_index == i && c.status == (i == 0 ? HCA_WC_SUCCESS :
								 i == 1 ? HCA_WC_LOC_PROT_ERR : HCA_WC_WR_FLUSH_ERR),
			      "%s: WQE %u's CQE (status %s)", what, i, hca_wc_status_name(c.status));
		else
			CHECK(c.wqe_index == i && c.status == HCA_WC_SUCCESS, "%s: WQE %u completes (status %s)", what, i,
			      hca_wc_status_name(c.status));
	}
	if (lost) {
		uint8_t ty;
		uint32_t el;
		unsigned int cq_err = 0, fatal = 0;

		while (tb_evt_pop(t.n[0], &ty, &el)) {
			cq_err += ty == HCA_EVENT_CQ_ERR;
			fatal += ty == HCA_EVENT_QP_FATAL && el == t.qp[0]->qpn;
		}
		CHECK(cq_err == 1 && fatal == 1, "%s: CQ_ERR and QP_FATAL (%u, %u)", what, cq_err, fatal);
		CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "lost: QP in ERR");
	} else if (!strcmp(kase, "failed"))
		CHECK_EQ(good, 1, "failed: one WQE completes");
	else {
		CHECK(good == n, "%s: every WQE completes (%u)", what, good);
		for (unsigned int i = 0; i < n; i++)
			if (strcmp(kase, "read") || i % 2 == 0)
				CHECK(!memcmp(t.mr[1]->buf + i * MSG, t.mr[0]->buf + i * MSG, MSG), "%s: WRITE %u's data",
				      what, i);
			else
				CHECK(!memcmp(t.mr[0]->buf + 0x4000 + i * MSG, t.mr[1]->buf + 0x8000 + i * MSG, MSG),
				      "%s: READ %u's data", what, i);
	}
	finish(&t, what);
}

int main(int argc, char **argv)
{
	static const unsigned int lat[] = { 1, 8, 300 };
	static const char *const kases[] = { "write", "unsignaled", "read", "failed", "last", "coalesced", "lost" };

	rt_ls_start(argc, argv);
	for (unsigned int k = 0; k < sizeof(kases) / sizeof(kases[0]); k++)
		for (unsigned int i = 0; i < 3; i++)
			if (rt_ls_want(kases[k]))
				fold(kases[k], lat[i]);
	return check_done();
}
