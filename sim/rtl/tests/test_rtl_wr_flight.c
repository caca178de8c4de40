// SPDX-License-Identifier: MIT
/*
 * Several payload writes in flight at the RC responder (docs/rtl.md
 * "Several payload writes in flight"): while the posted write of one QP's
 * WRITE packet awaits its response, the next packet, a WRITE of another QP,
 * has its payload written too.  Each scenario runs on two "lockstep"
 * devices (reference: the C model, DUT: the RTL), so any difference from the
 * model -- a frame, a DMA write, a CQE, an event, a counter -- is a
 * divergence; the rules are also checked on their own:
 *   - good WRITEs of 64 B round robin over four QPs: every WQE SUCCESS, the
 *     data placed, every ACK at least the write latency after its request
 *     (the ACK says the data is placed), and, with responses 300 cycles late,
 *     ACKs of two QPs closer together than that (their writes were in
 *     flight together);
 *   - a write fault among them (one QP's third WRITE into an unmapped page):
 *     that QP's NAK (remote access error, its PSN), its responder QP in ERR
 *     with QP_ACCESS_ERR, one DMA_FAULT, none of its later WRITEs placed, its
 *     requester's WQEs REM_ACCESS_ERR then flushed; the other QPs' WRITEs,
 *     the ones in flight with it included, all SUCCESS and placed;
 *   - two faults back to back (two QPs' WRITEs into the unmapped page, one
 *     in flight behind the other): both QPs NAKed and in ERR, two DMA_FAULTs,
 *     the others untouched;
 *   - a fault with two QPs only (QP 1's WRITE, or QP 0's) and with one QP
 *     alone (its packets back to back: none of them may be written behind
 *     the faulting one, whose write is still in flight when they arrive);
 * each with the write response after 8 and after 300 cycles (dut.wr_lat).
 *
 *   rtl_wr_flight [--width 64|512] [--engine rtl|lockstep]
 */
#include "rtl_ls.h"

#define NQ 4			/* QP pairs */
#define NW 8			/* WRITEs per QP */
#define LEN 64

/* Node 1's MR 901 with remote write, its first page mapped (rt_part_mapped_mr). */
static uint8_t *fault_mr(struct rt *t)
{
	uint8_t *p = rt_part_mapped_mr(t, HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE);

	memset(p, 0, 4096);
	return p;
}

struct fl {
	struct rt t;
	struct tb_qp *q[2][NQ];
	struct tb_mr *m[NQ];		/* node 1: QP k writes into m[k] (a stream of its own) */
	struct tb_cq *cq[NQ];		/* node 0: QP k's send CQ */
	uint32_t psn0[NQ];
	uint8_t *dst;
};

/* NQ connected RC pairs (the first is t.qp[]), each with a send CQ of its
 * own on node 0 (a CQ's final state, its sol_pi, depends on the order of the
 * QPs' completions, which is free); DMA write responses after wr_lat cycles
 * (0: default). */
static void fl_setup(struct fl *f, unsigned int wr_lat)
{
	static char opt[32];
	const char *saved = rt_options;

	snprintf(opt, sizeof(opt), "%swr_lat=%u", strcmp(engine, "lockstep") ? "" : "dut.", wr_lat);
	if (wr_lat)
		rt_options = opt;
	setup_objs(&f->t, 10);
	rt_options = saved;
	for (int k = 0; k < NQ; k++) {
		f->cq[k] = tb_cq_create(f->t.n[0], 6, NULL);
		for (int i = 0; i < 2; i++)
			f->q[i][k] = tb_qp_create(f->t.n[i], HCA_QPT_RC, f->t.pd[i], i ? f->t.scq[i] : f->cq[k],
						  f->t.rcq[i], NULL, NULL);
		tb_connect_pair(f->q[0][k], f->q[1][k], NULL);
		f->psn0[k] = tb_qp_query(f->q[0][k]).sq_psn;
	}
	f->t.qp[0] = f->q[0][0];
	f->t.qp[1] = f->q[1][0];
	for (int k = 0; k < NQ; k++) {
		f->m[k] = tb_mr_reg(f->t.n[1], f->t.pd[1], NW * LEN, RT_ACC_ALL);
		memset(f->m[k]->buf, 0, NW * LEN);
	}
	f->dst = fault_mr(&f->t);
	rt_fill(f->t.mr[0]->buf, NQ * NW * LEN, 21);
	tb_evt_clear(f->t.n[1]);
}

static void fl_finish(struct fl *f, const char *what)
{
	for (int k = 0; k < NQ; k++) {
		if (k) {
			free(f->q[0][k]);
			free(f->q[1][k]);
		}
		free(f->m[k]);
	}
	for (int k = 0; k < NQ; k++)
		free(f->cq[k]);
	finish(&f->t, what);
}

/* The destination of QP k's WRITE j: its MR m[k] at j * LEN (the source:
 * node 0's MR at (j * NQ + k) * LEN), or, when bad[k] <= j, the fault MR
 * (its unmapped page for j == bad[k], its mapped page after that: bytes the
 * model never writes, the QP being in ERR).  One MR per QP: the lockstep
 * compares an MR's writes as one stream, and the order of two QPs' packets
 * on the wire is free (docs/sim.md "Streams"). */
static void post_all(struct fl *f, unsigned int nq, const unsigned int bad[NQ], struct tb_sge s[NQ][NW])
{
	for (unsigned int j = 0; j < NW; j++)
		for (unsigned int k = 0; k < nq; k++) {
			struct tb_send_wr w;
			unsigned int off = (j * NQ + k) * LEN;

			s[k][j] = rt_sge(f->t.mr[0], off, LEN);
			w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED,
						 .sge = &s[k][j], .num_sge = 1, .raddr = f->m[k]->va + j * LEN,
						 .rkey = f->m[k]->rkey };
			if (j == bad[k]) {
				w.raddr = RT_PM_VA + 8192 + k * LEN;
				w.rkey = RT_PM_RKEY;
			} else if (j > bad[k]) {
				w.raddr = RT_PM_VA + (k * NW + j) * LEN;
				w.rkey = RT_PM_RKEY;
			}
			tb_post_send(f->q[0][k], &w);
		}
}

/* Run the WRITEs of the first nq QPs, those of `bad` (NW: none) faulting at
 * that WRITE. */
static void run(unsigned int wr_lat, unsigned int nq, const unsigned int bad[NQ], const char *name)
{
	struct fl f;
	struct hca_cqe c;
	struct tb_sge s[NQ][NW];
	unsigned int naks[NQ] = { 0 }, evts[NQ] = { 0 }, acks = 0, faults = 0, close = 0;
	uint64_t last_ack = 0;
	unsigned int lat = wr_lat ? wr_lat : 8;
	char what[120];

	snprintf(what, sizeof(what), "%s (wr_lat %u)", name, lat);
	fl_setup(&f, wr_lat);
	post_all(&f, nq, bad, s);
	for (unsigned int k = 0; k < nq; k++)
		for (unsigned int j = 0; j < NW; j++) {
			uint8_t want = j < bad[k] ? HCA_WC_SUCCESS : j == bad[k] ? HCA_WC_REM_ACCESS_ERR
										 : HCA_WC_WR_FLUSH_ERR;

			if (!wait_cqe(f.cq[k], &c)) {
				CHECK(0, "%s: QP %u CQE %u", what, k, j);
				break;
			}
			CHECK(c.qpn == f.q[0][k]->qpn && c.wqe_index == j && c.status == want,
			      "%s: QP %u WQE %u status %u (want %u, index %u)", what, k, j, c.status, want, c.wqe_index);
		}
	tb_run(f.t.tb, 20000);
	for (unsigned int i = 0; i < f.t.cap.n; i++) {
		const struct roce_pkt *p = &f.t.cap.pkt[i];
		unsigned int k;

		if (f.t.cap.src[i] != 1 || p->opcode != HCA_BTH_OP_RC_ACKNOWLEDGE)
			continue;
		for (k = 0; k < NQ && p->dqpn != f.q[0][k]->qpn; k++)
			;
		if (k == NQ)
			continue;
		if ((p->aeth.syndrome >> 5) == HCA_AETH_TYPE_NAK) {
			naks[k]++;
			CHECK((p->aeth.syndrome & 0x1f) == HCA_AETH_NAK_REMOTE_ACCESS_ERR &&
			      p->psn == ((f.psn0[k] + bad[k]) & 0xffffff),
			      "%s: QP %u NAK remote access error at PSN 0x%x (syndrome 0x%x, PSN 0x%x)", what, k,
			      (f.psn0[k] + bad[k]) & 0xffffff, p->aeth.syndrome, p->psn);
			continue;
		}
		acks++;
		/* the ACK after the response of the write it acknowledges */
		for (unsigned int j = 0; j < i; j++)
			if (f.t.cap.src[j] == 0 && f.t.cap.pkt[j].psn == p->psn &&
			    f.t.cap.pkt[j].dqpn == f.q[1][k]->qpn && f.t.cap.pkt[j].opcode != HCA_BTH_OP_RC_ACKNOWLEDGE)
				CHECK(f.t.cap.when[i] >= f.t.cap.when[j] + lat,
				      "%s: ACK of QP %u PSN 0x%x at cycle %llu, its request at %llu: before the response",
				      what, k, p->psn, (unsigned long long)f.t.cap.when[i],
				      (unsigned long long)f.t.cap.when[j]);
		if (last_ack && f.t.cap.when[i] < last_ack + lat / 2)
			close++;
		last_ack = f.t.cap.when[i];
	}
	{
		uint8_t ty;
		uint32_t el;

		while (tb_evt_pop(f.t.n[1], &ty, &el))
			for (unsigned int k = 0; k < NQ; k++)
				evts[k] += ty == HCA_EVENT_QP_ACCESS_ERR && el == f.q[1][k]->qpn;
	}
	for (unsigned int k = 0; k < nq; k++) {
		struct hca_qpc q = tb_qp_query(f.q[1][k]);

		if (bad[k] < NW) {
			faults++;
			CHECK(naks[k] == 1, "%s: QP %u one NAK (%u)", what, k, naks[k]);
			CHECK(q.cur_state == HCA_QPS_ERR && q.rq_psn_expected == ((f.psn0[k] + bad[k]) & 0xffffff),
			      "%s: QP %u responder in ERR expecting the NAKed PSN (state %u, PSN 0x%x)", what, k,
			      q.cur_state, q.rq_psn_expected);
			CHECK(evts[k] == 1, "%s: QP %u QP_ACCESS_ERR (%u)", what, k, evts[k]);
		} else {
			CHECK(naks[k] == 0 && q.cur_state == HCA_QPS_RTS, "%s: QP %u no NAK, in RTS (%u NAKs, state %u)",
			      what, k, naks[k], q.cur_state);
		}
		for (unsigned int j = 0; j < NW; j++) {
			unsigned int off = (j * NQ + k) * LEN;

			if (j < bad[k])
				CHECK(!memcmp(f.m[k]->buf + j * LEN, f.t.mr[0]->buf + off, LEN),
				      "%s: QP %u WRITE %u placed", what, k, j);
			else if (j > bad[k])
				for (unsigned int b = 0; b < LEN; b++)
					if (f.dst[(k * NW + j) * LEN + b]) {
						CHECK(0, "%s: QP %u WRITE %u after the fault landed", what, k, j);
						break;
					}
		}
	}
	CHECK(tb_stat(f.t.n[1], HCA_STAT_DMA_FAULT) == faults, "%s: %u DMA_FAULTs at the responder (%llu)", what,
	      faults, (unsigned long long)tb_stat(f.t.n[1], HCA_STAT_DMA_FAULT));
	{
		/* the host saw one faulting write per fault, as the model made
		 * (a write is never issued again, docs/rtl.md "Several payload
		 * writes in flight") */
		struct hca_engine *e = f.t.n[1]->eng;
		struct rtl_engine_stats st;

		if (lockstep_is(e))
			e = lockstep_dut(e, NULL);
		if (rtl_engine_stats(e, &st) == 0)
			CHECK(st.dma_write_faults == faults, "%s: %u faulting DMA writes at the responder (%llu)", what,
			      faults, (unsigned long long)st.dma_write_faults);
	}
	if (faults) {
		/* the fault latch holds the first fault in the model's order: the
		 * address (page offset k * LEN of its unmapped page) of a QP whose
		 * faulting WRITE is the earliest by index.  Which of two such QPs
		 * came first is the wire's order, free between QPs (docs/sim.md
		 * "Streams": the requester's round robin skips a QP whose CQE is
		 * pending); lockstep compares the register with the model's, the
		 * engines idle, which pins it. */
		unsigned int first = NW, hit = 0;
		uint32_t lo = tb_mgmt_read(f.t.n[1], HCA_MGMT_DMA_FAULT_LO);

		for (unsigned int k = 0; k < nq; k++)
			if (bad[k] < first)
				first = bad[k];
		for (unsigned int k = 0; k < nq; k++)
			if (bad[k] == first && (lo & 0xfff) == k * LEN)
				hit = 1;
		CHECK(hit, "%s: DMA_FAULT_LO 0x%x: the write of a QP faulting at WRITE %u (page offset QP x 0x%x)",
		      what, lo, first, LEN);
	}
	if (!faults)
		CHECK(acks == nq * NW, "%s: %u ACKs (%u)", what, nq * NW, acks);
	/* with slow responses, writes of two QPs in flight together show as
	 * ACKs closer together than the response latency */
	if (wr_lat >= 100 && nq == NQ && !strcmp(engine, "lockstep"))
		CHECK(close >= acks / 4, "%s: ACKs of writes in flight together (%u ACKs within %u cycles)", what,
		      close, lat / 2);
	fl_finish(&f, what);
}

int main(int argc, char **argv)
{
	static const unsigned int none[NQ] = { NW, NW, NW, NW }, one[NQ] = { NW, 2, NW, NW },
				  two[NQ] = { NW, 2, 2, NW }, one1[NQ] = { 2, NW, NW, NW };

	rt_ls_start(argc, argv);
	for (unsigned int k = 0; k < 2; k++) {
		unsigned int lat = k ? 300 : 0;

		run(lat, NQ, none, "64 B WRITEs over four QPs");
		run(lat, NQ, one, "a write fault among writes in flight");
		run(lat, NQ, two, "two write faults back to back");
		run(lat, 2, one, "a write fault, one QP's WRITEs back to back");
		run(lat, 2, one1, "a write fault, the QP before it idle");
		run(lat, 1, one1, "a write fault, one QP alone");
	}
	return check_done();
}
