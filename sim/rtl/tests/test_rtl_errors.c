// SPDX-License-Identifier: MIT
/*
 * Error and corner paths of the RTL engine, each run as a "lockstep" device
 * (reference: the C model, DUT: the RTL) so that any difference from the
 * golden model is a divergence, and each checked against the rules of
 * docs/programming.md / wire.md on its own:
 *   bad rkey / missing REMOTE_WRITE / bounds at the responder (NAK remote
 *   access, both QPs to ERR, QP_ACCESS_ERR, flushes), SEND longer than the
 *   receive WQE (LOC_LEN_ERR + NAK invalid request), local key / PD /
 *   bounds / malformed WQEs at the requester, a gather DMA fault (also on a
 *   packet read ahead of its frame, with WQEs started behind it), a receive
 *   SGE with a bad key, CQ overflow, QP to ERR by firmware with posted WQEs
 *   (flush order), duplicate request frames, COMM_EST, CQ arming and COMP
 *   events, UC data path, UD with the GRH area and Q_Key drops, SRQ with its
 *   limit event, CQ/EQ doorbells rung between every two cycles of traffic,
 *   a QP modify landing in every state of the items of a WRITE (lockstep,
 *   then plain rtl devices, where it lands where the sweep puts it),
 *   a QP reset mid-message and reused (RTL alone: no stale cached WQE), a
 *   WQE fetched again from a send queue unmapped since its first fetch (RTL
 *   alone: the fault's IOVA).
 *
 *   rtl_errors [--width 64|512] [--engine rtl|lockstep] [CASE...]
 *
 * CASE: a scenario's function name (modify_during_item, ...); none: all.
 * modify_during_item runs on lockstep and then on plain rtl devices unless
 * --engine names one.
 */
#include "rtl_ls.h"

/* ---------------------------------------------------------------- responder */

static void remote_access(void)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s;
	struct tb_send_wr w;
	struct tb_qp_attr a;

	/* bad rkey */
	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	tb_evt_clear(t.n[0]);
	tb_evt_clear(t.n[1]);
	s = rt_sge(t.mr[0], 0, 300);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				 .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey ^ 0x100 };
	tb_post_send(t.qp[0], &w);
	w.rkey = t.mr[1]->rkey;
	tb_post_send(t.qp[0], &w);		/* flushed after the first fails */
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_REM_ACCESS_ERR &&
	      c.vendor_err == HCA_VENDOR_ERR_NAK_REM_ACCESS, "bad rkey: REM_ACCESS_ERR (status %u)", c.status);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_WR_FLUSH_ERR && c.opcode == HCA_WC_OP_SEND,
	      "next WQE flushed (status %u)", c.status);
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "requester QP in ERR");
	CHECK_EQ(tb_qp_query(t.qp[1]).cur_state, HCA_QPS_ERR, "responder QP in ERR");
	CHECK_EQ(count_evt(t.n[1], HCA_EVENT_QP_ACCESS_ERR, t.qp[1]->qpn), 1, "QP_ACCESS_ERR at the responder");
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_TX_NAK), 1, "one NAK");
	finish(&t, "bad rkey");

	/* the responder QP lacks REMOTE_WRITE */
	tb_qp_attr_default(&a);
	a.access = HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ;
	setup(&t, HCA_QPT_RC, &a, NULL, 10);
	s = rt_sge(t.mr[0], 0, 8);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				 .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_REM_ACCESS_ERR, "no REMOTE_WRITE: REM_ACCESS_ERR");
	finish(&t, "QP without REMOTE_WRITE");

	/* out of the MR's bounds */
	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	s = rt_sge(t.mr[0], 0, 4096);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				 .raddr = t.mr[1]->va + (1 << 20) - 100, .rkey = t.mr[1]->rkey };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_REM_ACCESS_ERR, "bounds: REM_ACCESS_ERR");
	CHECK(t.mr[1]->buf[(1 << 20) - 1] == 0, "nothing written");
	finish(&t, "WRITE beyond the MR");
}

static void recv_too_short(void)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s, r;
	struct tb_send_wr w;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	tb_evt_clear(t.n[1]);
	s = rt_sge(t.mr[0], 0, 3000);
	r = rt_sge(t.mr[1], 0, 2000);
	tb_post_recv(t.qp[1], &r, 1);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_LOC_LEN_ERR && c.vendor_err == HCA_VENDOR_ERR_LENGTH,
	      "receiver: LOC_LEN_ERR (status %u)", c.status);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_REM_INV_REQ_ERR, "sender: REM_INV_REQ_ERR (status %u)",
	      c.status);
	CHECK_EQ(count_evt(t.n[1], HCA_EVENT_QP_REQ_ERR, t.qp[1]->qpn), 1, "QP_REQ_ERR");
	finish(&t, "SEND longer than the receive WQE");
}

static void recv_bad_key(void)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s, r;
	struct tb_send_wr w;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	s = rt_sge(t.mr[0], 0, 100);
	r = rt_sge(t.mr[1], 0, 200);
	r.lkey ^= 0x300;
	tb_post_recv(t.qp[1], &r, 1);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_LOC_PROT_ERR && c.vendor_err == HCA_VENDOR_ERR_LKEY,
	      "receive SGE with a bad key: LOC_PROT_ERR/LKEY (status %u vendor %u)", c.status, c.vendor_err);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_REM_ACCESS_ERR, "sender: REM_ACCESS_ERR");
	finish(&t, "receive SGE with a bad key");
}

/* ---------------------------------------------------------------- requester */

static void local_errors(void)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s;
	struct tb_send_wr w;
	uint64_t tx0;

	/* bad lkey: nothing sent, LOC_PROT_ERR/LKEY, QP to ERR */
	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	tx0 = tb_stat(t.n[0], HCA_STAT_TX_FRAMES);
	s = rt_sge(t.mr[0], 0, 100);
	s.lkey ^= 0x500;
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = 0, .sge = &s, .num_sge = 1,
				 .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_LOC_PROT_ERR && c.vendor_err == HCA_VENDOR_ERR_LKEY,
	      "bad lkey: LOC_PROT_ERR/LKEY even unsignaled (status %u vendor %u)", c.status, c.vendor_err);
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_TX_FRAMES), tx0, "nothing sent");
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "QP to ERR");
	finish(&t, "bad lkey");

	/* out of bounds, PD mismatch (another PD's MR) */
	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	s = rt_sge(t.mr[0], (1 << 20) - 10, 100);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_LOC_PROT_ERR && c.vendor_err == HCA_VENDOR_ERR_BOUNDS,
	      "SGE beyond its MR: LOC_PROT_ERR/BOUNDS (vendor %u)", c.vendor_err);
	finish(&t, "SGE out of bounds");

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	{
		uint32_t pd2 = tb_pd_alloc(t.n[0]);
		struct tb_mr *m2 = tb_mr_reg(t.n[0], pd2, 4096, RT_ACC_ALL);

		s = rt_sge(m2, 0, 100);
		w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
		tb_post_send(t.qp[0], &w);
		CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_LOC_PROT_ERR && c.vendor_err == HCA_VENDOR_ERR_PD,
		      "another PD's MR: LOC_PROT_ERR/PD (vendor %u)", c.vendor_err);
		free(m2);
	}
	finish(&t, "PD mismatch");

	/* malformed WQEs: wqe_index, num_sge beyond the stride, unknown opcode */
	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	{
		uint8_t wqe[64];
		struct hca_wqe_ctrl_seg *ctl = (struct hca_wqe_ctrl_seg *)wqe;

		memset(wqe, 0, sizeof(wqe));
		ctl->opcode = HCA_WR_SEND;
		ctl->send_flags = HCA_SEND_SIGNALED;
		ctl->wqe_index = 7;	/* should be 0 */
		tb_post_send_raw(t.qp[0], wqe, sizeof(wqe));
		CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_LOC_QP_OP_ERR && c.vendor_err == HCA_VENDOR_ERR_BAD_WQE,
		      "wrong wqe_index: LOC_QP_OP_ERR/BAD_WQE (status %u vendor %u)", c.status, c.vendor_err);
		CHECK_EQ(c.wqe_index, 0, "reported at the engine's index");
	}
	finish(&t, "wrong wqe_index");

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	{
		uint8_t wqe[64];
		struct hca_wqe_ctrl_seg *ctl = (struct hca_wqe_ctrl_seg *)wqe;

		memset(wqe, 0, sizeof(wqe));
		ctl->opcode = HCA_WR_SEND;
		ctl->send_flags = HCA_SEND_SIGNALED;
		ctl->num_sge = 15;	/* the default stride holds 4 */
		tb_post_send_raw(t.qp[0], wqe, sizeof(wqe));
		CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_LOC_QP_OP_ERR, "num_sge beyond the stride");
	}
	finish(&t, "num_sge beyond the stride");

	/* a signaled good WRITE, then a bad one: the good one completes first */
	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	s = rt_sge(t.mr[0], 0, 5000);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				 .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
	tb_post_send(t.qp[0], &w);
	s.lkey ^= 0x700;
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS && c.wqe_index == 0, "earlier WQE completes first");
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_LOC_PROT_ERR && c.wqe_index == 1, "then the failed one");
	finish(&t, "failed WQE behind a good one");
}

static void gather_fault(void)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s;
	struct tb_send_wr w;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	half_mapped_mr(&t);
	s = (struct tb_sge){ .addr = 0x5000000, .len = 6000, .lkey = 900u << 8 | 0x42 };
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				 .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_LOC_PROT_ERR && c.vendor_err == HCA_VENDOR_ERR_DMA_FAULT,
	      "gather fault: LOC_PROT_ERR/DMA_FAULT (status %u vendor %u)", c.status, c.vendor_err);
	CHECK(tb_stat(t.n[0], HCA_STAT_DMA_FAULT) >= 1, "DMA_FAULT counted");
	CHECK_EQ(tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_INFO) & 0xff01,
		 HCA_DMA_CLIENT_PAYLOAD << 8, "first fault: payload read");
	finish(&t, "gather DMA fault");
}

/* A payload fault on a packet read ahead (docs/rtl.md "Transmit slots and
 * read ahead"): WQEs posted behind the faulting one have started and their
 * packets sit in transmit slots when the fault comes back.  The model stops
 * at the faulting packet: nothing after it goes out, the WQE fails
 * LOC_PROT_ERR/DMA_FAULT, the QP goes to ERR and the rest is flushed, and
 * SQ_HEAD/PSN_NEXT are those of the model (lockstep_finish compares them).
 * bad: which WQE faults (0: the first, 1: the middle of three); its fault
 * is in its second packet (bytes 4096.. of a 6000-byte WRITE at PMTU 4096)
 * or, for the middle one, its only packet. */
static void gather_fault_ahead(int bad)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s[3];
	struct tb_send_wr w;
	struct tb_qp_attr a;
	char what[64];
	uint64_t at;

	tb_qp_attr_default(&a);
	a.path_mtu = HCA_MTU_4096;
	setup(&t, HCA_QPT_RC, &a, NULL, 10);
	at = half_mapped_mr(&t) + 4096;
	for (int i = 0; i < 3; i++) {
		if (i == bad)
			s[i] = (struct tb_sge){ .addr = 0x5000000 + (bad ? 4096 : 0), .len = bad ? 2000 : 6000,
						.lkey = 900u << 8 | 0x42 };
		else
			s[i] = (struct tb_sge){ .addr = t.mr[0]->va + 8192u * (unsigned int)i, .len = 5000,
						.lkey = t.mr[0]->lkey };
		w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s[i],
					 .num_sge = 1, .raddr = t.mr[1]->va + 8192u * (unsigned int)i,
					 .rkey = t.mr[1]->rkey };
		tb_post_send(t.qp[0], &w);
	}
	for (int i = 0; i < 3; i++) {
		uint8_t want = i < bad ? HCA_WC_SUCCESS : i == bad ? HCA_WC_LOC_PROT_ERR : HCA_WC_WR_FLUSH_ERR;

		CHECK(wait_cqe(t.scq[0], &c) && c.status == want && c.wqe_index == i,
		      "read-ahead fault at WQE %d: WQE %d completes with status %u (got %u, index %u)", bad, i, want,
		      c.status, c.wqe_index);
	}
	CHECK(tb_stat(t.n[0], HCA_STAT_DMA_FAULT) == 1, "read-ahead fault at WQE %d: one DMA_FAULT counted", bad);
	/* the fault latch (docs/reference.md DMA_FAULT_LO/HI): the payload read at the MR's second page */
	CHECK(tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_LO) == (uint32_t)at &&
	      tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_HI) == (uint32_t)(at >> 32) &&
	      HCA_FIELD_GET(tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_INFO), HCA_MGMT_DMA_FAULT_INFO_CLIENT) ==
		      HCA_DMA_CLIENT_PAYLOAD,
	      "read-ahead fault at WQE %d: DMA_FAULT_HI/LO 0x%08x%08x = the payload read's IOVA 0x%llx", bad,
	      tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_HI), tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_LO),
	      (unsigned long long)at);
	snprintf(what, sizeof(what), "read-ahead DMA fault at WQE %d", bad);
	finish(&t, what);
}

/* A read-ahead packet that starts the ACK timer and then faults (docs/rtl.md
 * "Transmit slots and read ahead"): the only packet of the only WQE, its
 * payload read slower (dut.rd_lat) than the ACK timeout (timeout 1: 2^11
 * cycles) with no retry budget (retry_cnt 0).  The model never sent the
 * packet, so it never started the timer (model/req.c send_packet): the WQE
 * fails LOC_PROT_ERR, nothing is resent, no RETRY_EXC_ERR. */
static void ahead_fault_timer(void)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s;
	struct tb_send_wr w;
	struct tb_qp_attr a;

	tb_qp_attr_default(&a);
	a.timeout = 1;
	a.retry_cnt = 0;
	setup_rd_lat(&t, &a, 4000);
	half_mapped_mr(&t);
	s = (struct tb_sge){ .addr = 0x5000000 + 4096, .len = 2000, .lkey = 900u << 8 | 0x42 };
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s,
				 .num_sge = 1, .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_LOC_PROT_ERR && c.wqe_index == 0,
	      "read-ahead fault after the ACK timeout: LOC_PROT_ERR (got %u)", c.status);
	CHECK(tb_stat(t.n[0], HCA_STAT_RETRANSMIT) == 0, "read-ahead fault after the ACK timeout: nothing resent");
	finish(&t, "read-ahead DMA fault after the ACK timeout");
}

/* A read-ahead fault of a QP that firmware resets before the QP records it
 * (docs/rtl.md "Transmit slots and read ahead"): WRITE A (good) and WRITE B
 * (its payload faults) go out while the peer is in RESET (no ACK), the
 * reads slow (dut.rd_lat), and firmware resets the QP and connects it again
 * while B's read is in flight, then posts WRITEs C and D.  The model failed
 * B when it sent it (not retired: A is older and unacknowledged) and the
 * reset forgot both; B's fault, back after the reset, must not touch the
 * QP's new work: C and D complete SUCCESS. */
static void ahead_fault_reset(void)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s;
	struct tb_send_wr w;
	struct tb_qp_attr a;

	tb_qp_attr_default(&a);
	setup_rd_lat(&t, &a, 20000);
	half_mapped_mr(&t);
	tb_qp_modify(t.qp[1], HCA_QPS_RESET, 0);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s,
				 .num_sge = 1, .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
	s = rt_sge(t.mr[0], 0, 600);
	tb_post_send(t.qp[0], &w);
	s = (struct tb_sge){ .addr = 0x5000000 + 4096, .len = 600, .lkey = 900u << 8 | 0x42 };
	tb_post_send(t.qp[0], &w);
	/* WQE fetches and payload reads take 20000 cycles each: B's read is in
	 * flight from about cycle 40000 to 60000 after the doorbell */
	tb_run_for(t.tb, 50000);
	CHECK(t.cap.n == 1, "WRITE A sent, B's read in flight (%u frames)", t.cap.n);
	tb_qp_modify(t.qp[0], HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK);
	tb_connect_pair(t.qp[0], t.qp[1], &a);
	t.qp[0]->sq_pi = 0;
	s = rt_sge(t.mr[0], 0, 64);
	tb_post_send(t.qp[0], &w);
	tb_post_send(t.qp[0], &w);
	for (int i = 0; i < 2; i++)
		CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS && c.wqe_index == i,
		      "QP reset with a read-ahead fault in flight: new WQE %d completes SUCCESS (got %u, index %u)",
		      i, c.status, c.wqe_index);
	/* node 0 sent A, then C and D once each, in PSN order (the model's frames) */
	for (unsigned int k = 0, n = 0; k < t.cap.n; k++)
		if (t.cap.src[k] == 0) {
			CHECK(n < 3 && t.cap.pkt[k].psn == (n ? a.sq_psn + n - 1 : a.sq_psn),
			      "QP reset with a read-ahead fault in flight: frame %u of node 0 has PSN %#x", n,
			      t.cap.pkt[k].psn);
			n++;
		}
	CHECK(tb_stat(t.n[0], HCA_STAT_RETRANSMIT) == 0 && tb_stat(t.n[0], HCA_STAT_DMA_FAULT) == 1,
	      "QP reset with a read-ahead fault in flight: nothing resent, B's fault counted once");
	finish(&t, "read-ahead DMA fault of a QP reset");
}

/*
 * Two read-ahead faults waiting at once (docs/rtl.md "Transmit slots and
 * read ahead": the fault table hca_tx_faults, one entry per QP): QPs A and B
 * of node 0 each post a WRITE whose payload faults and QP C a good one,
 * every read slow (dut.rd_lat): the items run A, B, C, each waiting for its
 * WQE fetch, so A's fault comes back while C's item runs and B's before A's
 * next step, and both wait in the table together.  A and B fail
 * LOC_PROT_ERR/DMA_FAULT, C completes, two DMA_FAULTs.  Then A and B are
 * reset, connected again and post good WRITEs: these go out and complete
 * SUCCESS (a recorded fault's table entry does not hold up the QP's new
 * packets).
 */
static void ahead_faults_two_qps(void)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s;
	struct tb_send_wr w;
	struct tb_qp_attr a;
	struct tb_qp *q[3], *p[3];
	struct tb_cq *cq[3];

	tb_qp_attr_default(&a);
	setup_rd_lat(&t, &a, 3000);
	half_mapped_mr(&t);
	q[0] = t.qp[0];
	p[0] = t.qp[1];
	cq[0] = t.scq[0];
	for (int i = 1; i < 3; i++) {
		cq[i] = tb_cq_create(t.n[0], 10, NULL);
		q[i] = tb_qp_create(t.n[0], HCA_QPT_RC, t.pd[0], cq[i], t.rcq[0], NULL, NULL);
		p[i] = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
		tb_connect_pair(q[i], p[i], &a);
	}
	rt_fill(t.mr[0]->buf, 600, 51);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s,
				 .num_sge = 1, .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
	for (int i = 0; i < 3; i++) {
		s = i < 2 ? (struct tb_sge){ .addr = 0x5000000 + 4096, .len = 600, .lkey = 900u << 8 | 0x42 } :
			    rt_sge(t.mr[0], 0, 600);
		w.raddr = t.mr[1]->va + 4096u * (unsigned int)i;
		tb_post_send(q[i], &w);
	}
	for (int i = 0; i < 3; i++)
		CHECK(wait_cqe(cq[i], &c) && c.wqe_index == 0 &&
		      (i < 2 ? c.status == HCA_WC_LOC_PROT_ERR && c.vendor_err == HCA_VENDOR_ERR_DMA_FAULT :
			       c.status == HCA_WC_SUCCESS),
		      "two read-ahead faults: QP %c's WRITE %s (got %u/%u)", 'A' + i,
		      i < 2 ? "fails LOC_PROT_ERR/DMA_FAULT" : "completes", c.status, c.vendor_err);
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_DMA_FAULT), 2, "two read-ahead faults: two DMA_FAULTs");
	s = rt_sge(t.mr[0], 0, 600);
	for (int i = 0; i < 2; i++) {
		tb_qp_modify(q[i], HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK);
		tb_qp_modify(p[i], HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK);
		q[i]->sq_pi = 0;
		tb_connect_pair(q[i], p[i], &a);
	}
	for (int i = 0; i < 2; i++) {
		w.raddr = t.mr[1]->va + 16384u + 4096u * (unsigned int)i;
		tb_post_send(q[i], &w);
	}
	for (int i = 0; i < 2; i++)
		CHECK(wait_cqe(cq[i], &c) && c.status == HCA_WC_SUCCESS && c.wqe_index == 0,
		      "two read-ahead faults, QPs reset: QP %c's new WRITE completes SUCCESS (got %u)", 'A' + i,
		      c.status);
	CHECK(rt_check(t.mr[1]->buf + 8192, 600, 51) && rt_check(t.mr[1]->buf + 16384, 600, 51) &&
	      rt_check(t.mr[1]->buf + 16384 + 4096, 600, 51), "two read-ahead faults: the three good WRITEs placed");
	finish(&t, "two read-ahead faults at once");
	for (int i = 1; i < 3; i++) {
		free(q[i]);
		free(p[i]);
		free(cq[i]);
	}
}

/* ---------------------------------------------------------------- completions */

static void cq_overflow(void)
{
	struct rt t;
	struct tb_sge s, r;
	struct tb_send_wr w;
	struct hca_cqc cq;
	struct tb_qp_attr a;

	/* 4-entry CQs; no retransmission timer (timeout 0 = infinite, IB
	 * 9.7.6.1.3): the RTL has no timers yet and the lost ACK would make the
	 * model retransmit */
	tb_qp_attr_default(&a);
	a.timeout = 0;
	setup(&t, HCA_QPT_RC, &a, NULL, 2);
	tb_evt_clear(t.n[1]);
	s = rt_sge(t.mr[0], 0, 16);
	r = rt_sge(t.mr[1], 0, 64);
	for (int i = 0; i < 6; i++) {
		tb_post_recv(t.qp[1], &r, 1);
		w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = 0, .sge = &s, .num_sge = 1 };
		tb_post_send(t.qp[0], &w);
	}
	tb_run(t.tb, RT_WAIT);
	tb_ctx_read(t.n[1], HCA_CTX_TYPE_CQC, t.rcq[1]->cqn, &cq, sizeof(cq));
	CHECK_EQ(cq.error, 1, "receive CQ in error after the fifth completion");
	CHECK_EQ(cq.pi, 4, "four CQEs written");
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_CQ_OVERFLOW), 1, "CQ_OVERFLOW counted once");
	CHECK_EQ(tb_qp_query(t.qp[1]).cur_state, HCA_QPS_ERR, "QP to ERR");
	{
		uint8_t ty;
		uint32_t el;
		int cqerr = 0, fatal = 0;

		while (tb_evt_pop(t.n[1], &ty, &el)) {
			cqerr += ty == HCA_EVENT_CQ_ERR && el == t.rcq[1]->cqn;
			fatal += ty == HCA_EVENT_QP_FATAL && el == t.qp[1]->qpn;
		}
		CHECK(cqerr == 1 && fatal == 1, "CQ_ERR and QP_FATAL (%d, %d)", cqerr, fatal);
	}
	finish(&t, "CQ overflow");
}

static void flush_by_firmware(void)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s, r;
	struct tb_send_wr w;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	/* receives posted on node 0, sends posted while the peer is gone */
	r = rt_sge(t.mr[0], 0, 64);
	tb_post_recv(t.qp[0], &r, 1);
	tb_post_recv(t.qp[0], &r, 1);
	tb_qp_modify(t.qp[1], HCA_QPS_RESET, 0);
	s = rt_sge(t.mr[0], 0, 64);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	w.flags = 0;
	tb_post_send(t.qp[0], &w);
	tb_run(t.tb, 100000);
	tb_qp_modify(t.qp[0], HCA_QPS_ERR, 0);
	for (int i = 0; i < 2; i++)
		CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_WR_FLUSH_ERR && c.wqe_index == i &&
		      c.opcode == HCA_WC_OP_SEND && c.byte_len == 0 && c.vendor_err == HCA_VENDOR_ERR_FLUSH,
		      "send WQE %d flushed (also unsignaled)", i);
	for (int i = 0; i < 2; i++)
		CHECK(wait_cqe(t.rcq[0], &c) && c.status == HCA_WC_WR_FLUSH_ERR && c.wqe_index == i &&
		      c.opcode == HCA_WC_OP_RECV, "receive WQE %d flushed", i);
	/* newly posted work on an ERR QP is flushed too */
	tb_post_recv(t.qp[0], &r, 1);
	CHECK(wait_cqe(t.rcq[0], &c) && c.status == HCA_WC_WR_FLUSH_ERR && c.wqe_index == 2, "late receive flushed");
	finish(&t, "ERR by firmware");
}

static void duplicates_and_comm_est(void)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s, r;
	struct tb_send_wr w;
	struct tb_qp_attr a;

	/* node 1 stays in RTR: COMM_EST on the first packet */
	tb_qp_attr_default(&a);
	setup(&t, HCA_QPT_RC, &a, NULL, 10);
	tb_qp_modify(t.qp[1], HCA_QPS_RTR, 0);
	tb_evt_clear(t.n[1]);
	s = rt_sge(t.mr[0], 0, 64);
	r = rt_sge(t.mr[1], 0, 64);
	tb_post_recv(t.qp[1], &r, 1);
	tb_post_recv(t.qp[1], &r, 1);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS, "receive in RTR");
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS, "second receive");
	CHECK_EQ(count_evt(t.n[1], HCA_EVENT_COMM_EST, t.qp[1]->qpn), 1, "COMM_EST once");
	finish(&t, "COMM_EST");
}

static void duplicate_requests(void)
{
	/* a duplicate is answered with an ACK for ePSN - 1 and not executed again:
	 * replay node 0's frames into node 1 by hand */
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s, r;
	struct tb_send_wr w;
	uint8_t frame[256];
	size_t flen = 0;
	uint32_t dup0;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	s = rt_sge(t.mr[0], 0, 32);
	r = rt_sge(t.mr[1], 0, 64);
	tb_post_recv(t.qp[1], &r, 1);
	tb_post_recv(t.qp[1], &r, 1);
	rt_fill(t.mr[0]->buf, 32, 1);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS, "first delivery");
	/* rebuild the same request with the codec and inject it into node 1 */
	{
		struct roce_pkt p;

		for (unsigned int i = 0; i < t.cap.n; i++)
			if (t.cap.src[i] == 0)
				p = t.cap.pkt[i];
		flen = roce_build(&p, t.mr[0]->buf, 32, frame, sizeof(frame));
	}
	dup0 = tb_stat(t.n[1], HCA_STAT_RX_DUP);
	t.n[1]->ops->rx_frame(t.n[1]->eng, frame, flen);
	tb_run(t.tb, RT_WAIT);
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_RX_DUP) - dup0, 1, "duplicate counted");
	CHECK(!tb_cq_poll(t.rcq[1], &c), "duplicate not executed (no second receive completion)");
	CHECK(t.cap.n >= 3 && t.cap.src[t.cap.n - 1] == 1 && t.cap.pkt[t.cap.n - 1].opcode == HCA_BTH_OP_RC_ACKNOWLEDGE,
	      "duplicate re-ACKed");
	finish(&t, "duplicate request");
}

static void arming(void)
{
	struct rt t;
	struct hca_cqe c;
	struct hca_eqe e;
	struct tb_sge s, r;
	struct tb_send_wr w;
	struct tb_eq *eq;
	struct tb_cq *cq;
	struct tb_config cfg = { .engine = engine, .nodes = 2, .engine_config = ls_config };
	uint64_t irq0;

	memset(&t, 0, sizeof(t));
	t.tb = rt_tb_create(&cfg);
	for (int i = 0; i < 2; i++) {
		t.n[i] = tb_node(t.tb, (unsigned int)i);
		t.pd[i] = tb_pd_alloc(t.n[i]);
		t.mr[i] = tb_mr_reg(t.n[i], t.pd[i], 1 << 16, RT_ACC_ALL);
	}
	eq = tb_eq_create(t.n[1], 4, 5);
	cq = tb_cq_create(t.n[1], 4, eq);
	t.scq[0] = tb_cq_create(t.n[0], 4, NULL);
	t.rcq[0] = tb_cq_create(t.n[0], 4, NULL);
	t.scq[1] = cq;
	t.rcq[1] = tb_cq_create(t.n[1], 4, NULL);
	t.qp[0] = tb_qp_create(t.n[0], HCA_QPT_RC, t.pd[0], t.scq[0], t.rcq[0], NULL, NULL);
	t.qp[1] = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.rcq[1], cq, NULL, NULL);
	tb_connect_pair(t.qp[0], t.qp[1], NULL);
	s = rt_sge(t.mr[0], 0, 16);
	r = rt_sge(t.mr[1], 0, 64);
	for (int i = 0; i < 3; i++)
		tb_post_recv(t.qp[1], &r, 1);
	irq0 = t.n[1]->irq[5];
	/* arm-solicited: an unsolicited SEND raises nothing, a solicited one does */
	tb_cq_arm(cq, true);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(cq, &c) && c.status == HCA_WC_SUCCESS, "unsolicited receive");
	tb_run(t.tb, RT_WAIT);
	CHECK(!tb_eq_poll(eq, &e), "no event for an unsolicited completion");
	w.flags = HCA_SEND_SIGNALED | HCA_SEND_SOLICITED;
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(cq, &c) && c.status == HCA_WC_SUCCESS, "solicited receive");
	tb_run(t.tb, RT_WAIT);
	CHECK(tb_eq_poll(eq, &e) && e.type == HCA_EQE_TYPE_COMP && e.element == cq->cqn, "COMP EQE for the CQ");
	CHECK_EQ(t.n[1]->irq[5] - irq0, 1, "vector 5 fired");
	/* disarmed now: the next solicited completion raises nothing */
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(cq, &c), "third receive");
	tb_run(t.tb, RT_WAIT);
	CHECK(!tb_eq_poll(eq, &e), "disarmed: no second event");
	free(eq);
	finish(&t, "CQ arming");
}

/* ---------------------------------------------------------------- UC / UD / SRQ */

static int drop_second_uc(struct rt_cap *c, unsigned int src, const struct roce_pkt *p)
{
	static int n;

	(void)c;
	if (src != 0 || p->opcode != HCA_BTH_OP_UC_SEND_MIDDLE)
		return 0;
	return ++n == 1;	/* lose the first MIDDLE packet */
}

static void uc(void)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s, r;
	struct tb_send_wr w;
	struct tb_qp_attr a;

	tb_qp_attr_default(&a);
	a.path_mtu = HCA_MTU_256;
	setup(&t, HCA_QPT_UC, &a, NULL, 10);
	rt_fill(t.mr[0]->buf, 8192, 11);
	s = rt_sge(t.mr[0], 0, 1000);
	r = rt_sge(t.mr[1], 0, 4096);
	tb_post_recv(t.qp[1], &r, 1);
	tb_post_recv(t.qp[1], &r, 1);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS, "UC send completes when sent");
	CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS && c.byte_len == 1000, "UC receive");
	CHECK(rt_check(t.mr[1]->buf, 1000, 11), "UC data");
	/* UC RDMA WRITE with immediate */
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE_WITH_IMM, .flags = HCA_SEND_SIGNALED, .sge = &s,
				 .num_sge = 1, .imm = 0x01020304, .raddr = t.mr[1]->va + 8192, .rkey = t.mr[1]->rkey };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS && c.opcode == HCA_WC_OP_RECV_RDMA_WITH_IMM &&
	      c.imm_data == 0x01020304, "UC WRITE with immediate");
	CHECK(!memcmp(t.mr[1]->buf + 8192, t.mr[0]->buf, 1000), "UC WRITE data");
	CHECK(t.cap.n > 0 && t.cap.pkt[0].ackreq == 0, "UC: no AckReq");
	for (unsigned int i = 0; i < t.cap.n; i++)
		if (t.cap.src[i] == 1) {
			CHECK(0, "UC responder sent a frame");
			break;
		}
	/* a lost middle packet drops the message; the receive WQE serves the next */
	t.cap.drop = drop_second_uc;
	memset(t.mr[1]->buf, 0, 4096);
	tb_post_recv(t.qp[1], &r, 1);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	s = rt_sge(t.mr[0], 2000, 100);
	tb_post_send(t.qp[0], &w);
	tb_run(t.tb, RT_WAIT);
	CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS && c.byte_len == 100, "next message delivered");
	CHECK(!tb_cq_poll(t.rcq[1], &c), "the damaged message never completes");
	{
		/* its first packet landed (256 B, of which the next message
		 * overwrote 100 B); the packets after the gap wrote nothing */
		int clean = 1;

		for (int i = 256; i < 4096; i++)
			clean &= t.mr[1]->buf[i] == 0;
		CHECK(!memcmp(t.mr[1]->buf, t.mr[0]->buf + 2000, 100), "next message's data");
		CHECK(!memcmp(t.mr[1]->buf + 100, t.mr[0]->buf + 100, 156), "first packet of the damaged message");
		CHECK(clean, "nothing written after the gap");
	}
	finish(&t, "UC");
}

static void ud(void)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s, r;
	struct tb_send_wr w;

	setup(&t, HCA_QPT_UD, NULL, NULL, 10);
	rt_fill(t.mr[0]->buf, 4096, 21);
	s = rt_sge(t.mr[0], 0, 500);
	r = rt_sge(t.mr[1], 0, 2048);
	tb_post_recv(t.qp[1], &r, 1);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND_WITH_IMM, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				 .imm = 0xaabbccdd, .ud_dest = t.qp[1], .ud_qkey = 0x11111111 };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS, "UD send completion");
	CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS, "UD receive (status %u)", c.status);
	CHECK_EQ(c.byte_len, 40 + 500, "byte_len includes the 40-byte GRH area");
	CHECK_EQ(c.wc_flags, HCA_WC_FLAG_GRH | HCA_WC_FLAG_WITH_IMM, "GRH and IMM flags");
	CHECK_EQ(c.src_qp, t.qp[0]->qpn, "src_qp from DETH");
	CHECK(rt_check(t.mr[1]->buf + 40, 500, 21), "UD payload after the GRH area");
	{
		static const uint8_t z[20];

		CHECK(!memcmp(t.mr[1]->buf, z, 20) && t.mr[1]->buf[20] == 0x45, "GRH area: 20 zeros, then IPv4");
	}
	/* wrong Q_Key: dropped and counted */
	tb_post_recv(t.qp[1], &r, 1);
	w.ud_qkey = 0x22222222;
	tb_post_send(t.qp[0], &w);
	tb_run(t.tb, RT_WAIT);
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_RX_DROP_QKEY), 1, "Q_Key mismatch dropped");
	CHECK(!tb_cq_poll(t.rcq[1], &c), "no completion for the dropped datagram");
	finish(&t, "UD");
}

static void srq(void)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s;
	struct tb_send_wr w;
	struct tb_srq *q;
	struct tb_config cfg = { .engine = engine, .nodes = 2, .engine_config = ls_config };

	memset(&t, 0, sizeof(t));
	t.tb = rt_tb_create(&cfg);
	tb_set_filter(t.tb, rt_cap_filter, &t.cap);
	for (int i = 0; i < 2; i++) {
		t.n[i] = tb_node(t.tb, (unsigned int)i);
		t.pd[i] = tb_pd_alloc(t.n[i]);
		t.scq[i] = tb_cq_create(t.n[i], 6, NULL);
		t.rcq[i] = tb_cq_create(t.n[i], 6, NULL);
		t.mr[i] = tb_mr_reg(t.n[i], t.pd[i], 1 << 16, RT_ACC_ALL);
	}
	q = tb_srq_create(t.n[1], t.pd[1], 4, 2, 2);
	srq_pair_posted(&t, q);
	s = rt_sge(t.mr[0], 0, 100);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	for (int i = 0; i < 3; i++)
		tb_post_send(t.qp[0], &w);
	for (int i = 0; i < 3; i++)
		CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS && c.is_srq == 1 && c.wqe_index == i,
		      "SRQ receive %d", i);
	CHECK_EQ(count_evt(t.n[1], HCA_EVENT_SRQ_LIMIT_REACHED, q->srqn), 1, "SRQ_LIMIT_REACHED once");
	free(q);
	finish(&t, "SRQ");
}

/*
 * Doorbells while CQEs and EQEs are being reserved: CQ_CI, CQ_ARM,
 * CQ_ARM_SOL and EQ_ARM rung between every two cycles of traffic (each
 * register access holds the engine), so some land in the cycle the engine
 * decides a slot or an interrupt, or just after.  Every doorbell must be
 * answered (no AXI4-Lite hang), the traffic must complete, and CQ/EQ rings,
 * events and interrupts must match the model.
 */
static void doorbell_storm(void)
{
	struct rt t;
	struct hca_cqe c;
	struct hca_eqe e;
	struct tb_sge s, r;
	struct tb_send_wr w;
	struct tb_eq *eq[2];
	struct tb_config cfg = { .engine = engine, .nodes = 2, .engine_config = ls_config };
	unsigned int done[2] = { 0, 0 }, events = 0;
	const unsigned int n = 12;

	memset(&t, 0, sizeof(t));
	t.tb = rt_tb_create(&cfg);
	for (int i = 0; i < 2; i++) {
		t.n[i] = tb_node(t.tb, (unsigned int)i);
		t.pd[i] = tb_pd_alloc(t.n[i]);
		t.mr[i] = tb_mr_reg(t.n[i], t.pd[i], 1 << 16, RT_ACC_ALL);
		eq[i] = tb_eq_create(t.n[i], 6, 3);
		t.scq[i] = tb_cq_create(t.n[i], 6, eq[i]);
		t.rcq[i] = tb_cq_create(t.n[i], 6, eq[i]);
		t.qp[i] = tb_qp_create(t.n[i], HCA_QPT_RC, t.pd[i], t.scq[i], t.rcq[i], NULL, NULL);
	}
	tb_connect_pair(t.qp[0], t.qp[1], NULL);
	s = rt_sge(t.mr[0], 0, 48);
	r = rt_sge(t.mr[1], 0, 64);
	for (unsigned int i = 0; i < n; i++)
		tb_post_recv(t.qp[1], &r, 1);
	for (unsigned int i = 0; i < n; i++) {
		w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .sge = &s, .num_sge = 1,
					 .flags = HCA_SEND_SIGNALED | ((i & 1) ? HCA_SEND_SOLICITED : 0) };
		tb_post_send(t.qp[0], &w);
	}
	for (unsigned int cyc = 0; cyc < 40000 && (done[0] < n || done[1] < n); cyc++) {
		tb_run_for(t.tb, 1);
		tb_cq_arm(t.scq[0], cyc % 3 == 1);
		tb_cq_arm(t.rcq[1], cyc % 3 == 2);
		if (tb_cq_poll(t.scq[0], &c))
			done[0] += c.status == HCA_WC_SUCCESS;
		if (tb_cq_poll(t.rcq[1], &c))
			done[1] += c.status == HCA_WC_SUCCESS && c.byte_len == 48;
		for (int i = 0; i < 2; i++)
			while (tb_eq_poll(eq[i], &e))
				events += e.type == HCA_EQE_TYPE_COMP;
		tb_eq_arm(eq[0]);
		tb_eq_arm(eq[1]);
	}
	CHECK(done[0] == n && done[1] == n, "doorbell storm: all %u sends and receives completed (%u, %u)", n,
	      done[0], done[1]);
	CHECK(events > 0, "doorbell storm: completion events raised (%u)", events);
	finish(&t, "doorbell storm");
	free(eq[0]);
	free(eq[1]);
}

/*
 * A QP reset in the middle of a message and used again: after
 * ERR -> RESET -> RTS the driver posts from slot 0 again, with another WQE
 * in it.  Nothing the engine cached of the old QP (fetched WQEs) may be
 * used: the new WQE goes out.  Swept over the cycle the reset lands in.
 * Run on the RTL alone (checked against the rules, not in lockstep): where
 * a message is cut by the move to ERR depends on timing, and the untimed
 * model has sent all of it before the command arrives.
 */
static void qp_reuse_after_reset(void)
{
	const char *saved = engine;

	engine = "rtl";
	for (unsigned int d = 0; d < 400; d += 37) {
		struct rt t;
		struct hca_cqe c;
		struct tb_sge s, r;
		struct tb_send_wr w;
		unsigned int sends = 0;

		setup(&t, HCA_QPT_RC, NULL, NULL, 10);
		s = rt_sge(t.mr[0], 0, 16384);
		w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s,
					 .num_sge = 1, .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
		tb_post_send(t.qp[0], &w);
		tb_run_for(t.tb, d);
		tb_qp_modify(t.qp[0], HCA_QPS_ERR, 0);
		tb_run(t.tb, RT_WAIT);
		while (tb_cq_poll(t.scq[0], &c))
			;
		/* the driver starts the rings over (ibv_modify_qp to RESET) */
		t.qp[0]->sq_pi = 0;
		t.qp[0]->rq_pi = 0;
		t.qp[1]->rq_pi = 0;
		tb_qp_connect(t.qp[0], t.qp[1], &(struct tb_qp_attr){ .path_mtu = HCA_MTU_1024, .timeout = 14,
			      .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 1, .max_rd_atomic = 16,
			      .max_dest_rd_atomic = 16, .access = RT_ACC_ALL, .sq_psn = 0x5000, .rq_psn = 0x123 });
		tb_qp_connect(t.qp[1], t.qp[0], &(struct tb_qp_attr){ .path_mtu = HCA_MTU_1024, .timeout = 14,
			      .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 1, .max_rd_atomic = 16,
			      .max_dest_rd_atomic = 16, .access = RT_ACC_ALL, .sq_psn = 0x123, .rq_psn = 0x5000 });
		r = rt_sge(t.mr[1], 0, 64);
		tb_post_recv(t.qp[1], &r, 1);
		s = rt_sge(t.mr[0], 0, 40);
		w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
		t.cap.n = 0;
		tb_post_send(t.qp[0], &w);
		CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS && c.opcode == HCA_WC_OP_SEND &&
		      c.wqe_index == 0, "d=%u: the new WQE in slot 0 completes as a SEND (status %u opcode %u)", d,
		      c.status, c.opcode);
		CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS && c.byte_len == 40,
		      "d=%u: received 40 bytes (%u)", d, c.byte_len);
		for (unsigned int i = 0; i < t.cap.n; i++)
			if (t.cap.src[i] == 0 && t.cap.pkt[i].opcode != HCA_BTH_OP_RC_ACKNOWLEDGE)
				sends += t.cap.pkt[i].opcode == HCA_BTH_OP_RC_SEND_ONLY && t.cap.pkt[i].psn == 0x5000;
		CHECK(sends == 1, "d=%u: one SEND_ONLY at PSN 0x5000 after the reset (%u)", d, sends);
		finish(&t, "QP reused after reset");
	}
	engine = saved;
}

/*
 * A WQE fetched again from a send queue the driver has unmapped since the
 * first fetch (run on the RTL alone: the model keeps each WQE from its one
 * fetch, model/req.c start_wqe, and never reads it again).  WRITEs 0 and 1
 * go out from a send queue at SQ_AT (bits 35 and 33 set, bit 22 clear) to a
 * peer in RESET (no ACK); the queue is unmapped; the ACK timeout resends
 * from WQE 0, and the RTL fetches WQE 0 again (its fetch buffer holds WQE 1:
 * hca_req REQST_CHECK_OUTS), which faults: WQE 0 fails
 * LOC_PROT_ERR/DMA_FAULT, WQE 1 is flushed, and DMA_FAULT_LO/HI hold the IOVA
 * of WQE 0's slot (docs/reference.md: the first DMA fault's IOVA).
 */
static void refetch_fault(void)
{
	const uint64_t sq_at = 0x0000000a10000000ull;
	const char *saved = engine;
	struct rt t;
	struct tb_qp_attr a;
	struct tb_sge s;
	struct tb_send_wr w;
	struct hca_cqe c;
	struct tb_qp *q;

	engine = "rtl";
	setup_objs(&t, 10);
	for (int i = 0; i < 2; i++)
		t.qp[i] = tb_qp_create(t.n[i], HCA_QPT_RC, t.pd[i], t.scq[i], t.rcq[i], NULL, NULL);
	q = t.qp[0];
	CHECK(hostmem_map(t.n[0]->hm, sq_at, q->sq, (size_t)1 << (q->qpc.log_sq_size + q->qpc.log_sq_stride),
			  HOSTMEM_RW) == 0, "refetch fault: SQ mapped at 0x%llx", (unsigned long long)sq_at);
	q->qpc.sq_base = sq_at;
	tb_qp_attr_default(&a);
	a.timeout = 8;		/* 2^18 cycles */
	tb_connect_pair(t.qp[0], t.qp[1], &a);
	tb_qp_modify(t.qp[1], HCA_QPS_RESET, 0);
	s = rt_sge(t.mr[0], 0, 64);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				 .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
	tb_post_send(q, &w);
	tb_post_send(q, &w);
	tb_run_for(t.tb, 50000);
	CHECK(t.cap.n == 2 && tb_stat(t.n[0], HCA_STAT_DMA_FAULT) == 0,
	      "refetch fault: both WRITEs sent from the mapped queue (%u frames)", t.cap.n);
	CHECK(hostmem_unmap(t.n[0]->hm, sq_at) == 0, "refetch fault: SQ unmapped");
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_LOC_PROT_ERR && c.vendor_err == HCA_VENDOR_ERR_DMA_FAULT &&
	      c.wqe_index == 0, "refetch fault: WQE 0 fails LOC_PROT_ERR/DMA_FAULT (status %u vendor %u index %u)",
	      c.status, c.vendor_err, c.wqe_index);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_WR_FLUSH_ERR && c.wqe_index == 1,
	      "refetch fault: WQE 1 flushed (status %u)", c.status);
	CHECK_EQ(tb_stat(t.n[0], HCA_STAT_DMA_FAULT), 1, "refetch fault: one DMA_FAULT");
	CHECK_EQ(tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_INFO),
		 HCA_MGMT_DMA_FAULT_INFO_VALID_MASK | HCA_FIELD_PREP(HCA_MGMT_DMA_FAULT_INFO_CLIENT, HCA_DMA_CLIENT_WQE),
		 "refetch fault: a WQE read");
	CHECK(tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_LO) == (uint32_t)sq_at &&
	      tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_HI) == (uint32_t)(sq_at >> 32),
	      "refetch fault: DMA_FAULT_HI/LO 0x%08x%08x = WQE 0's slot 0x%llx", tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_HI),
	      tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_LO), (unsigned long long)sq_at);
	finish(&t, "WQE refetch from an unmapped send queue");
	engine = saved;
}

/* ---------------------------------------------------------------- context commands */

/*
 * Firmware rewrites a QP while the engine is working on it.  The RTL
 * serialises the command after the engine's item (docs/rtl.md "Context
 * writes while the engine works on a QP"): the PSN loads, resets and
 * attribute changes of the command must survive the item's write-back.
 * Node 0's QP is brought up by hand (a receive posted in INIT; INIT -> RTR
 * and RTR -> RTS land `e` = 0..11 cycles after the previous command, while
 * the engine steps the QP for it), then a 4-packet WRITE is posted and an
 * attribute change (RTS -> RTS, retry_cnt 6) lands at a cycle of the plan
 * below: every cycle of the first 100 after the doorbell (the step that
 * fetches the WQE, the first packets' steps), every 7th up to 40 cycles
 * past the last request frame (the later steps: they repeat a period of 3
 * cycles, so every state of it is hit), and every cycle from 4 before to
 * 32 after the WRITE's ACK reaches node 0 (the ACK item and the step after
 * it).  Checks: the WRITE completes with its data and PSNs, the attribute
 * is kept, a SEND back lands at the loaded ePSN; on lockstep devices also
 * everything compared with the model.
 * Run first on "lockstep" devices, then on plain "rtl" ones: lockstep lets
 * the DUT catch up with the reference before a context write (sim/lockstep.c
 * catch_up), so there the attribute change lands only once the DUT has sent
 * what the model sent at the doorbell (all 4 packets) -- measured with
 * HCASIM_RTL_DEBUG=1 and the landing lines below (counted by
 * sim/rtl/tests/landing_census.py): of the 151 landings at 512
 * bits, 111 in the last step's REQST_END and the rest in cycles with no job
 * or idle; at 64 bits 219 of 251 idle.  On plain "rtl" devices the writes
 * land where the plan puts them: at 512 bits 97 of 151 in a job's state
 * (20 different: the steps' DISPST_STEP_CLR_BUSY/LOAD, REQST_FETCH_WQE ..
 * REQST_END, MRST_READ_MRC, and each cycle of the ACK item,
 * RECVST_CHECK_FRAME, DISPST_LOAD_FRAME_QP, CQST_READ_CQC, CQST_RESERVE,
 * COMPST_ACK_WQE, RECVST_END), 33 in cycles with no job in a state (the
 * items' write-back cycles, waits) and 21 idle; at 64 bits 166, 74 and 11
 * of 251, the same 20 states.
 */

/* HCASIM_RTL_DEBUG set: a line naming node 0's RTL engine after each context
 * write, so that the RTL's state lines (the last one of that engine before
 * it) show the state the write landed in */
static void landing_mark(struct rt *t, const char *what, unsigned int d)
{
	struct hca_engine *e = t->n[0]->eng;

	if (!getenv("HCASIM_RTL_DEBUG"))
		return;
	if (lockstep_is(e))
		e = lockstep_dut(e, NULL);
	fprintf(stderr, "[landing %p %s d=%u end @%llu]\n", (void *)e, what, d, (unsigned long long)tb_now(t->tb));
}

enum { MOD_CAL = -1, MOD_DB, MOD_ACK };

/* One run: the QP brought up with `e` cycles before each command, the
 * WRITE posted, the attribute change `at` cycles after its doorbell (MOD_DB)
 * or after its ACK's arrival (MOD_ACK, `at` - 4), none for MOD_CAL, which
 * returns in *last and *ack the cycles from the doorbell to the last request
 * frame and to the ACK's arrival. */
static void modify_run(unsigned int e, int kind, unsigned int at, unsigned int *last, unsigned int *ack)
{
	struct tb_qp_attr a;
	struct rt t;
	struct tb_config cfg = { .engine = engine, .nodes = 2, .engine_config = ls_config };
	struct tb_qp *q;
	struct tb_node *pn;
	struct hca_cqe c;
	struct tb_sge s, r;
	struct tb_send_wr w;
	unsigned int first = 0, found = 0, d = kind == MOD_ACK ? 10000 + at : at;
	uint64_t t0;

	tb_qp_attr_default(&a);
	a.sq_psn = 0x5000;
	a.rq_psn = 0x5000;	/* both directions start at 0x5000 (as tb_connect_pair) */
	memset(&t, 0, sizeof(t));
	t.tb = rt_tb_create(&cfg);
	tb_set_filter(t.tb, rt_cap_filter, &t.cap);
	for (int i = 0; i < 2; i++) {
		t.n[i] = tb_node(t.tb, (unsigned int)i);
		t.pd[i] = tb_pd_alloc(t.n[i]);
		t.scq[i] = tb_cq_create(t.n[i], 8, NULL);
		t.rcq[i] = tb_cq_create(t.n[i], 8, NULL);
		t.qp[i] = tb_qp_create(t.n[i], HCA_QPT_RC, t.pd[i], t.scq[i], t.rcq[i], NULL, NULL);
		t.mr[i] = tb_mr_reg(t.n[i], t.pd[i], 1 << 16, RT_ACC_ALL);
	}
	tb_qp_connect(t.qp[1], t.qp[0], &a);
	/* node 0's QP by hand, with a receive posted in INIT (the engine
	 * steps the QP on every doorbell and every context write) */
	q = t.qp[0];
	pn = t.n[1];
	tb_qp_modify(q, HCA_QPS_RESET, HCA_QPC_FLAGS_RESET_STATE_MASK);
	q->qpc.access_flags = a.access;
	tb_qp_modify(q, HCA_QPS_INIT, HCA_QPC_FLAGS_RESET_STATE_MASK);
	r = rt_sge(t.mr[0], 0, 256);
	tb_post_recv(q, &r, 1);
	tb_run_for(t.tb, e);
	q->qpc.path_mtu = a.path_mtu;
	q->qpc.dest_qpn = t.qp[1]->qpn;
	q->qpc.rq_psn = a.rq_psn;
	q->qpc.max_dest_rd_atomic = a.max_dest_rd_atomic;
	q->qpc.min_rnr_timer = a.min_rnr_timer;
	q->qpc.sgid_index = TB_SGID_INDEX;
	q->qpc.hop_limit = 64;
	memcpy(q->qpc.dmac, pn->mac, 6);
	tb_ipv4_gid(pn->ip, q->qpc.dgid);
	tb_qp_modify(q, HCA_QPS_RTR, HCA_QPC_FLAGS_LOAD_RQ_PSN_MASK);
	landing_mark(&t, "rtr", e);
	tb_run_for(t.tb, e);
	q->qpc.sq_psn = a.sq_psn;
	q->qpc.timeout = a.timeout;
	q->qpc.retry_cnt = a.retry_cnt;
	q->qpc.rnr_retry = a.rnr_retry;
	q->qpc.max_rd_atomic = a.max_rd_atomic;
	tb_qp_modify(q, HCA_QPS_RTS, HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK);
	landing_mark(&t, "rts", e);

	/* a 4-packet WRITE; the attribute change (RTS -> RTS) lands while the
	 * engine works on it */
	rt_fill(t.mr[0]->buf, 4096, (int)(at + e));
	s = rt_sge(t.mr[0], 0, 4096);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s,
				 .num_sge = 1, .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
	t0 = tb_now(t.tb);
	tb_post_send(q, &w);
	if (kind == MOD_DB)
		tb_run_for(t.tb, at);
	else if (kind == MOD_ACK) {
		for (unsigned int g = 0; g < 100000 && !found; g++) {
			for (unsigned int i = 0; i < t.cap.n && !found; i++)
				if (t.cap.src[i] == 1 && t.cap.pkt[i].opcode == HCA_BTH_OP_RC_ACKNOWLEDGE) {
					uint64_t to = t.cap.when[i] + 250 + at - 4;	/* the wire: 250 cycles */

					found = 1;
					CHECK(tb_now(t.tb) <= to, "d=%u: the ACK seen in time (%llu > %llu)", d,
					      (unsigned long long)tb_now(t.tb), (unsigned long long)to);
					if (tb_now(t.tb) < to)
						tb_run_for(t.tb, to - tb_now(t.tb));
				}
			if (!found)
				tb_run_for(t.tb, 2);
		}
		CHECK(found, "d=%u: the WRITE's ACK", d);
		found = 0;
	}
	if (kind != MOD_CAL) {
		q->qpc.retry_cnt = 6;
		tb_qp_modify(q, HCA_QPS_RTS, 0);
		landing_mark(&t, "attr", d);
	}
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS, "d=%u e=%u: WRITE completes (status %u)", d, e,
	      c.status);
	CHECK(!memcmp(t.mr[1]->buf, t.mr[0]->buf, 4096), "d=%u e=%u: WRITE data", d, e);
	for (unsigned int i = 0; i < t.cap.n; i++) {
		if (t.cap.src[i] == 0 && t.cap.pkt[i].opcode != HCA_BTH_OP_RC_ACKNOWLEDGE) {
			if (!found++)
				first = i;
			CHECK(t.cap.pkt[i].psn == ((a.sq_psn + found - 1) & 0xffffff),
			      "d=%u e=%u: request %u carries PSN 0x%x, want 0x%x", d, e, found - 1, t.cap.pkt[i].psn,
			      (a.sq_psn + found - 1) & 0xffffff);
			if (last)
				*last = (unsigned int)(t.cap.when[i] - t0);
		}
		if (t.cap.src[i] == 1 && t.cap.pkt[i].opcode == HCA_BTH_OP_RC_ACKNOWLEDGE && ack && !*ack)
			*ack = (unsigned int)(t.cap.when[i] + 250 - t0);
	}
	CHECK(found == 4 && t.cap.pkt[first].opcode == HCA_BTH_OP_RC_RDMA_WRITE_FIRST,
	      "d=%u e=%u: exactly 4 request packets (%u)", d, e, found);
	if (kind != MOD_CAL)
		CHECK(tb_qp_query(q).retry_cnt == 6, "d=%u e=%u: attribute change kept", d, e);
	/* node 1 -> node 0: the receive posted in INIT, at the loaded ePSN */
	s = rt_sge(t.mr[1], 0, 100);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[1], &w);
	CHECK(wait_cqe(t.rcq[0], &c) && c.status == HCA_WC_SUCCESS && c.byte_len == 100,
	      "d=%u e=%u: receive at the loaded ePSN", d, e);
	CHECK(wait_cqe(t.scq[1], &c) && c.status == HCA_WC_SUCCESS, "d=%u e=%u: peer's SEND acknowledged", d, e);
	finish(&t, "context write during an item");
}

static void modify_during_item(void)
{
	/* lockstep (the model compares everything), then plain rtl (the
	 * writes land where the plan puts them): rt_ls_passes */
	const char *saved = engine;

	for (unsigned int k = 0; k < rt_ls_passes(); k++) {
		unsigned int last = 0, ack = 0, n = 0;

		rt_ls_pass(k);
		modify_run(0, MOD_CAL, 0, &last, &ack);
		printf("modify_during_item on %s: last request frame %u, ACK at node 0 %u cycles after the doorbell\n",
		       engine, last, ack);
		for (unsigned int c = 0; c < last + 40; c += c < 100 ? 1 : 7)
			modify_run(n++ % 12, MOD_DB, c, NULL, NULL);
		for (unsigned int c = 0; c < 36; c++)
			modify_run(n++ % 12, MOD_ACK, c, NULL, NULL);
	}
	engine = saved;
}

int main(int argc, char **argv)
{
	rt_ls_start(argc, argv);
	if (rt_ls_want("remote_access"))
		remote_access();
	if (rt_ls_want("recv_too_short"))
		recv_too_short();
	if (rt_ls_want("recv_bad_key"))
		recv_bad_key();
	if (rt_ls_want("local_errors"))
		local_errors();
	if (rt_ls_want("gather_fault"))
		gather_fault();
	if (rt_ls_want("gather_fault_ahead"))
		gather_fault_ahead(0);
	if (rt_ls_want("gather_fault_ahead"))
		gather_fault_ahead(1);
	if (rt_ls_want("ahead_fault_timer"))
		ahead_fault_timer();
	if (rt_ls_want("ahead_fault_reset"))
		ahead_fault_reset();
	if (rt_ls_want("ahead_faults_two_qps"))
		ahead_faults_two_qps();
	if (rt_ls_want("cq_overflow"))
		cq_overflow();
	if (rt_ls_want("flush_by_firmware"))
		flush_by_firmware();
	if (rt_ls_want("duplicates_and_comm_est"))
		duplicates_and_comm_est();
	if (rt_ls_want("duplicate_requests"))
		duplicate_requests();
	if (rt_ls_want("arming"))
		arming();
	if (rt_ls_want("uc"))
		uc();
	if (rt_ls_want("ud"))
		ud();
	if (rt_ls_want("srq"))
		srq();
	if (rt_ls_want("modify_during_item"))
		modify_during_item();
	if (rt_ls_want("doorbell_storm"))
		doorbell_storm();
	if (rt_ls_want("qp_reuse_after_reset"))
		qp_reuse_after_reset();
	if (rt_ls_want("refetch_fault"))
		refetch_fault();
	return check_done();
}
