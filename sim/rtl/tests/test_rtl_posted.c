// SPDX-License-Identifier: MIT
/*
 * Posted payload writes at the RC responder (docs/rtl.md "Posted payload
 * writes"): an RDMA WRITE packet without immediate has its payload written
 * without waiting for the write's response, the next frame is taken while
 * that response is outstanding, and the ACK owed on a packet with AckReq
 * (ONLY, LAST) leaves once the response is back.  Each scenario runs on two
 * "lockstep" devices (reference: the C model, DUT: the RTL), so any
 * difference from the model -- a frame, a DMA write, a CQE, an event, a
 * counter -- is a divergence, and each is also checked against the rules of
 * docs/wire.md on its own:
 *   - a DMA write fault on a posted packet (FIRST, MIDDLE) while the next
 *     packets are already at the responder, on the LAST packet behind posted
 *     ones and on an ONLY packet (both with AckReq: a NAK, not the ACK owed
 *     on them): the NAK (remote access error) carries the
 *     PSN of the first packet that touches the unmapped page (wire.md 4.2
 *     check 5), the requester's WQE fails REM_ACCESS_ERR, the responder QP is
 *     in ERR with QP_ACCESS_ERR, its expected PSN is the NAKed packet's, one
 *     DMA_FAULT, nothing is ACKed, the bytes before the page are placed;
 *     with the write response after 8 and after 600 cycles (dut.wr_lat);
 *   - a fault on an ONLY packet between good ones: the ACK of the one before
 *     it, its NAK, and nothing for the WRITE and the READ behind it (their
 *     WQEs flushed, their bytes not written, no READ response);
 *   - a READ, a FETCH_ADD and a CMP_SWP right behind a multi-packet WRITE
 *     and behind a one-packet (ONLY) WRITE on the same QP and the same bytes:
 *     they see the written data;
 *   - an ACK only after the write responses of the data it acknowledges:
 *     with the responses 3000 cycles late, every ACK leaves at least 3000
 *     cycles after the request it acknowledges (wire.md 4.3: the ACK says
 *     the data is placed), for a multi-packet WRITE and for ONLY packets.
 *
 *   rtl_posted [--width 64|512] [--engine rtl|lockstep]
 */
#include "rtl_ls.h"

/* Node 1's MR 901 with remote write/read/atomic, its first page mapped (rt_part_mapped_mr). */
static uint8_t *posted_mr(struct rt *t)
{
	return rt_part_mapped_mr(t, HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_READ);
}

/* setup() with PMTU `mtu` and, if wr_lat, the RTL's DMA write responses
 * after wr_lat cycles (the option holds for this testbench only). */
static int setup_wr_lat(struct rt *t, uint8_t mtu, unsigned int wr_lat)
{
	static char opt[32];
	const char *saved = rt_options;
	struct tb_qp_attr a;
	int r;

	tb_qp_attr_default(&a);
	a.path_mtu = mtu;
	snprintf(opt, sizeof(opt), "%swr_lat=%u", strcmp(engine, "lockstep") ? "" : "dut.", wr_lat);
	if (wr_lat)
		rt_options = opt;
	r = setup(t, HCA_QPT_RC, &a, NULL, 10);
	rt_options = saved;
	return r;
}

static unsigned int mtu_bytes(uint8_t mtu)
{
	return 256u << (mtu - HCA_MTU_256);
}

/*
 * A WRITE of `len` bytes to posted_mr() at offset `off`: the first packet
 * whose bytes reach past the mapped page faults.  `what` names the case.
 */
static void write_fault(uint8_t mtu, uint32_t off, uint32_t len, unsigned int wr_lat, const char *what)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s;
	struct tb_send_wr w;
	struct hca_qpc q;
	unsigned int pmtu = mtu_bytes(mtu), bad = (4096 - off) / pmtu, naks = 0, acks = 0;
	uint32_t psn0, nak_psn = 0;
	uint8_t *dst;

	setup_wr_lat(&t, mtu, wr_lat);
	dst = posted_mr(&t);
	memset(dst, 0, 4096);
	rt_fill(t.mr[0]->buf, len, 11);
	psn0 = tb_qp_query(t.qp[0]).sq_psn;
	tb_evt_clear(t.n[1]);
	s = rt_sge(t.mr[0], 0, len);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1,
				 .raddr = RT_PM_VA + off, .rkey = RT_PM_RKEY };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_REM_ACCESS_ERR &&
	      c.vendor_err == HCA_VENDOR_ERR_NAK_REM_ACCESS, "%s: REM_ACCESS_ERR (status %u)", what, c.status);
	tb_run(t.tb, 20000);
	for (unsigned int i = 0; i < t.cap.n; i++)
		if (t.cap.src[i] == 1 && t.cap.pkt[i].opcode == HCA_BTH_OP_RC_ACKNOWLEDGE) {
			if ((t.cap.pkt[i].aeth.syndrome >> 5) == HCA_AETH_TYPE_NAK) {
				naks++;
				nak_psn = t.cap.pkt[i].psn;
				CHECK((t.cap.pkt[i].aeth.syndrome & 0x1f) == HCA_AETH_NAK_REMOTE_ACCESS_ERR,
				      "%s: NAK remote access error", what);
			} else {
				acks++;
			}
		}
	CHECK(naks == 1 && acks == 0, "%s: one NAK, no ACK (%u NAKs, %u ACKs)", what, naks, acks);
	CHECK(nak_psn == ((psn0 + bad) & 0xffffff), "%s: NAK PSN 0x%x is packet %u's (0x%x)", what, nak_psn, bad,
	      (psn0 + bad) & 0xffffff);
	q = tb_qp_query(t.qp[1]);
	CHECK(q.cur_state == HCA_QPS_ERR, "%s: responder QP in ERR", what);
	CHECK(q.rq_psn_expected == nak_psn, "%s: responder's expected PSN 0x%x is the NAKed packet's", what,
	      q.rq_psn_expected);
	CHECK(count_evt(t.n[1], HCA_EVENT_QP_ACCESS_ERR, t.qp[1]->qpn) == 1, "%s: QP_ACCESS_ERR", what);
	CHECK(tb_stat(t.n[1], HCA_STAT_DMA_FAULT) == 1, "%s: one DMA_FAULT at the responder", what);
	CHECK(!memcmp(dst + off, t.mr[0]->buf, (size_t)bad * pmtu), "%s: the %u packets before the fault placed",
	      what, bad);
	finish(&t, what);
}

/*
 * Four WQEs at PMTU 4096, each one packet: WRITE A (2 KiB at offset 0,
 * good), WRITE B (2 KiB at 3072: into the unmapped page, faults), WRITE C
 * (1 KiB at offset 0, other data) and READ D (1 KiB at 0) behind it.  Node 1
 * ACKs A, NAKs B, and does nothing for C and D (QP in ERR: dropped).
 */
static void only_fault_behind(unsigned int wr_lat)
{
	static const uint32_t src_off[3] = { 0, 8192, 16384 }, dst_off[3] = { 0, 3072, 0 }, len[3] = { 2048, 2048, 1024 };
	static const uint8_t want[4] = { HCA_WC_SUCCESS, HCA_WC_REM_ACCESS_ERR, HCA_WC_WR_FLUSH_ERR, HCA_WC_WR_FLUSH_ERR };
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s[4];
	struct tb_send_wr w;
	struct hca_qpc q;
	unsigned int acks = 0, naks = 0, other = 0, ack_at = 0, nak_at = 0;
	uint32_t psn0, ack_psn = 0, nak_psn = 0;
	uint8_t *dst;
	char what[80];

	snprintf(what, sizeof(what), "fault on an ONLY packet between good ones (wr_lat %u)", wr_lat ? wr_lat : 8);
	setup_wr_lat(&t, HCA_MTU_4096, wr_lat);
	dst = posted_mr(&t);
	memset(dst, 0, 4096);
	rt_fill(t.mr[0]->buf, 32768, 13);
	memset(t.mr[0]->buf + 32768, 0xee, 1024);
	psn0 = tb_qp_query(t.qp[0]).sq_psn;
	tb_evt_clear(t.n[1]);
	for (int i = 0; i < 3; i++) {
		s[i] = rt_sge(t.mr[0], src_off[i], len[i]);
		w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s[i],
					 .num_sge = 1, .raddr = RT_PM_VA + dst_off[i], .rkey = RT_PM_RKEY };
		tb_post_send(t.qp[0], &w);
	}
	s[3] = rt_sge(t.mr[0], 32768, 1024);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = &s[3], .num_sge = 1,
				 .raddr = RT_PM_VA, .rkey = RT_PM_RKEY };
	tb_post_send(t.qp[0], &w);
	for (unsigned int i = 0; i < 4; i++)
		CHECK(wait_cqe(t.scq[0], &c) && c.wqe_index == i && c.status == want[i],
		      "%s: WQE %u status %u (want %u)", what, i, c.status, want[i]);
	tb_run(t.tb, 20000);
	for (unsigned int i = 0; i < t.cap.n; i++) {
		if (t.cap.src[i] != 1)
			continue;
		if (t.cap.pkt[i].opcode != HCA_BTH_OP_RC_ACKNOWLEDGE) {
			other++;
		} else if ((t.cap.pkt[i].aeth.syndrome >> 5) == HCA_AETH_TYPE_NAK) {
			naks++;
			nak_psn = t.cap.pkt[i].psn;
			nak_at = i;
			CHECK((t.cap.pkt[i].aeth.syndrome & 0x1f) == HCA_AETH_NAK_REMOTE_ACCESS_ERR,
			      "%s: NAK remote access error", what);
		} else {
			acks++;
			ack_psn = t.cap.pkt[i].psn;
			ack_at = i;
		}
	}
	CHECK(acks == 1 && naks == 1 && other == 0, "%s: one ACK, one NAK, nothing else (%u, %u, %u)", what, acks,
	      naks, other);
	CHECK(ack_psn == psn0 && nak_psn == ((psn0 + 1) & 0xffffff) && ack_at < nak_at,
	      "%s: ACK of A (PSN 0x%x), then NAK of B (PSN 0x%x)", what, ack_psn, nak_psn);
	q = tb_qp_query(t.qp[1]);
	CHECK(q.cur_state == HCA_QPS_ERR && q.rq_psn_expected == ((psn0 + 1) & 0xffffff),
	      "%s: responder QP in ERR expecting B's PSN (state %u, PSN 0x%x)", what, q.cur_state, q.rq_psn_expected);
	CHECK(count_evt(t.n[1], HCA_EVENT_QP_ACCESS_ERR, t.qp[1]->qpn) == 1, "%s: QP_ACCESS_ERR", what);
	CHECK(tb_stat(t.n[1], HCA_STAT_DMA_FAULT) == 1, "%s: one DMA_FAULT at the responder", what);
	CHECK(!memcmp(dst, t.mr[0]->buf, 2048), "%s: A placed, C not", what);
	for (unsigned int i = 0; i < 1024; i++)
		if (t.mr[0]->buf[32768 + i] != 0xee) {
			CHECK(0, "%s: no READ data for D (byte %u written)", what, i);
			break;
		}
	finish(&t, what);
}

/* A READ, a FETCH_ADD and a CMP_SWP right behind a WRITE of `len` bytes
 * over the same bytes: 16 KiB at PMTU 1024 (16 packets, all posted, the LAST
 * with AckReq) or 1 KiB (one ONLY packet with AckReq, posted). */
static void read_after_write(unsigned int wr_lat, uint32_t len)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s[4];
	struct tb_send_wr w;
	uint64_t v, orig;
	char what[80];

	snprintf(what, sizeof(what), "READ/atomics after a posted %u-byte WRITE (wr_lat %u)", len, wr_lat ? wr_lat : 8);
	setup_wr_lat(&t, HCA_MTU_1024, wr_lat);
	rt_fill(t.mr[0]->buf, len, 5);
	memset(t.mr[1]->buf, 0, len);
	s[0] = rt_sge(t.mr[0], 0, len);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s[0], .num_sge = 1,
				 .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
	tb_post_send(t.qp[0], &w);
	s[1] = rt_sge(t.mr[0], 65536, len);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = &s[1], .num_sge = 1,
				 .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
	tb_post_send(t.qp[0], &w);
	s[2] = rt_sge(t.mr[0], 131072, 8);
	w = (struct tb_send_wr){ .opcode = HCA_WR_ATOMIC_FETCH_AND_ADD, .flags = HCA_SEND_SIGNALED, .sge = &s[2],
				 .num_sge = 1, .raddr = t.mr[1]->va + len - 8, .rkey = t.mr[1]->rkey, .compare_add = 1 };
	tb_post_send(t.qp[0], &w);
	memcpy(&orig, t.mr[0]->buf + len / 2, 8);
	s[3] = rt_sge(t.mr[0], 131080, 8);
	w = (struct tb_send_wr){ .opcode = HCA_WR_ATOMIC_CMP_AND_SWP, .flags = HCA_SEND_SIGNALED, .sge = &s[3],
				 .num_sge = 1, .raddr = t.mr[1]->va + len / 2, .rkey = t.mr[1]->rkey,
				 .compare_add = orig, .swap = 77 };
	tb_post_send(t.qp[0], &w);
	for (int i = 0; i < 4; i++)
		CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS && c.wqe_index == i,
		      "%s: WQE %d SUCCESS (status %u, index %u)", what, i, c.status, c.wqe_index);
	CHECK(!memcmp(t.mr[0]->buf + 65536, t.mr[0]->buf, len), "%s: the READ returns the written data", what);
	memcpy(&v, t.mr[0]->buf + 131072, 8);
	memcpy(&orig, t.mr[0]->buf + len - 8, 8);
	CHECK(v == orig, "%s: FETCH_ADD returns the written word", what);
	memcpy(&v, t.mr[1]->buf + len - 8, 8);
	CHECK(v == orig + 1, "%s: FETCH_ADD added to it", what);
	memcpy(&v, t.mr[1]->buf + len / 2, 8);
	CHECK(v == 77, "%s: CMP_SWP compared against the written word and swapped", what);
	finish(&t, what);
}

/* Every ACK of node 1 leaves at least wr_lat cycles after the request it
 * acknowledges (the data's write responses come wr_lat cycles after the
 * data): `n` WRITEs of `len` bytes each at PMTU 1024, one after the other in
 * the MR; `want` ACKs.  40 KiB: AckReq on packets 31 and 39, two ACKs; 1 KiB:
 * one ONLY packet with AckReq each, one ACK each. */
static void ack_after_responses(unsigned int n, uint32_t len, unsigned int want)
{
	const unsigned int wr_lat = 3000;
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s[8];
	struct tb_send_wr w;
	unsigned int acks = 0;

	setup_wr_lat(&t, HCA_MTU_1024, wr_lat);
	rt_fill(t.mr[0]->buf, n * len, 9);
	for (unsigned int k = 0; k < n && k < 8; k++) {
		s[k] = rt_sge(t.mr[0], k * len, len);
		w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s[k],
					 .num_sge = 1, .raddr = t.mr[1]->va + k * len, .rkey = t.mr[1]->rkey };
		tb_post_send(t.qp[0], &w);
	}
	for (unsigned int k = 0; k < n && k < 8; k++)
		CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS && c.wqe_index == k,
		      "ACK after the responses: WQE %u SUCCESS (%u)", k, c.status);
	CHECK(!memcmp(t.mr[1]->buf, t.mr[0]->buf, n * len), "ACK after the responses: data placed");
	for (unsigned int i = 0; i < t.cap.n; i++) {
		if (t.cap.src[i] != 1 || t.cap.pkt[i].opcode != HCA_BTH_OP_RC_ACKNOWLEDGE)
			continue;
		acks++;
		for (unsigned int j = 0; j < i; j++)
			if (t.cap.src[j] == 0 && t.cap.pkt[j].psn == t.cap.pkt[i].psn &&
			    t.cap.pkt[j].opcode != HCA_BTH_OP_RC_ACKNOWLEDGE)
				CHECK(t.cap.when[i] >= t.cap.when[j] + wr_lat,
				      "ACK of PSN 0x%x at cycle %llu, its request at %llu: not before the response",
				      t.cap.pkt[i].psn, (unsigned long long)t.cap.when[i],
				      (unsigned long long)t.cap.when[j]);
	}
	CHECK(acks == want, "ACK after the responses: %u ACKs (got %u)", want, acks);
	finish(&t, "ACK after the write responses");
}

int main(int argc, char **argv)
{
	rt_ls_start(argc, argv);
	for (unsigned int k = 0; k < 2; k++) {
		unsigned int lat = k ? 600 : 0;
		char what[80];

		snprintf(what, sizeof(what), "fault on a MIDDLE packet, PMTU 1024 (wr_lat %u)", lat ? lat : 8);
		write_fault(HCA_MTU_1024, 0, 12288, lat, what);
		snprintf(what, sizeof(what), "fault on a MIDDLE packet, PMTU 4096 (wr_lat %u)", lat ? lat : 8);
		write_fault(HCA_MTU_4096, 0, 12288, lat, what);
		snprintf(what, sizeof(what), "fault on the FIRST packet (wr_lat %u)", lat ? lat : 8);
		write_fault(HCA_MTU_4096, 3072, 9000, lat, what);
		snprintf(what, sizeof(what), "fault on the LAST packet behind posted ones (wr_lat %u)", lat ? lat : 8);
		write_fault(HCA_MTU_1024, 0, 4096 + 512, lat, what);
		snprintf(what, sizeof(what), "fault on an ONLY packet with AckReq (wr_lat %u)", lat ? lat : 8);
		write_fault(HCA_MTU_4096, 3072, 2048, lat, what);
		only_fault_behind(lat);
		read_after_write(lat, 16384);
		read_after_write(lat, 1024);
	}
	ack_after_responses(1, 40960, 2);
	ack_after_responses(8, 1024, 8);
	return check_done();
}
