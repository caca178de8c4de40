// SPDX-License-Identifier: MIT
/*
 * The responder's per-QP state words (RXS: receive WQE in progress,
 * expected PSN, responder resources) and the atomic ACK's original value, at
 * values and moments no other test reaches, on two "lockstep" devices
 * (reference: the C model, DUT: the RTL; any difference is a divergence) and
 * checked against the spec on their own:
 *   rq_bit43       -- a receive queue at an IOVA with bit 43 set (nothing
 *                     mapped without it): two-packet SENDs refetch the
 *                     receive WQE from there;
 *   read_dups      -- max_dest_rd_atomic 8, five READs: the duplicate of
 *                     each (resources 0..4) is replayed (IB 9.7.5.1.3);
 *   read_fault_res -- sixteen responder resources, twelve READs, the
 *                     thirteenth (resource 12) faults at the responder: NAK
 *                     remote operational error, the resource freed; after a
 *                     QPC write back to RTS (the engine keeps the responder's
 *                     status words, programming.md 7) the faulted READ's
 *                     duplicate is dropped, READ 11's is replayed;
 *   recv_held      -- two-packet SENDs into receive WQEs whose wqe_index has
 *                     bit 13 set (0x2000 + n: the index is the driver's and
 *                     is echoed in the CQE, docs/reference.md), the
 *                     responder's PSNs crossing bit 6, each with a
 *                     management read on the responder (it holds the engine
 *                     for its clocks) 0..RECV_HELD_D cycles after the send
 *                     doorbell: every CQE names its WQE, every PSN is taken;
 *   atomic_held    -- FETCH_ADD 0 on a value with bits 7, 10 and 18 set, each
 *                     with a management read on the responder
 *                     0..ATOMIC_HELD_D cycles after the doorbell: the atomic
 *                     ACK returns the value unchanged (IB 9.4.5).
 * These are the corners the mutation analysis found no test for
 * (sim/mutate/answers_rtl.txt, docs/sim.md 11.3).
 *
 *   rtl_resp_state [--width 64|512] [--engine rtl|lockstep|model] [--options K=V,...]
 */
#include "rtl_ls.h"
#include "hostmem.h"

#define RECV_HELD_D 160u
#define ATOMIC_HELD_D 160u

static struct tb_send_wr rs_read(struct tb_sge *l, uint64_t raddr, uint32_t rkey)
{
	return (struct tb_send_wr){ .opcode = HCA_WR_RDMA_READ, .flags = HCA_SEND_SIGNALED, .sge = l, .num_sge = 1,
				    .raddr = raddr, .rkey = rkey };
}

/* The last frame node `src` put on the wire with `opcode`, as a template. */
static struct roce_pkt last_frame(const struct rt *t, unsigned int src, uint8_t opcode)
{
	struct roce_pkt p;
	int k = -1;

	for (unsigned int i = 0; i < t->cap.n; i++)
		if (t->cap.src[i] == src && t->cap.pkt[i].opcode == opcode)
			k = (int)i;
	memset(&p, 0, sizeof(p));
	CHECK(k >= 0, "a frame 0x%02x from node %u captured", opcode, src);
	if (k >= 0)
		p = t->cap.pkt[k];
	return p;
}

/* A crafted request (no payload) into node 1's receive path; the sim runs idle after. */
static void inject_req(struct rt *t, struct roce_pkt p)
{
	uint8_t frame[512];
	size_t n = roce_build(&p, NULL, 0, frame, sizeof(frame));

	CHECK(n > 0, "crafted frame 0x%02x built", p.opcode);
	if (n)
		t->n[1]->ops->rx_frame(t->n[1]->eng, frame, n);
	tb_run(t->tb, RT_WAIT);
}

/* READ responses node 1 sent at PSN `psn` from capture index `from` on; *len: the last one's payload. */
static unsigned int responses_at(const struct rt *t, unsigned int from, uint32_t psn, uint32_t *len)
{
	unsigned int k = 0;

	for (unsigned int i = from; i < t->cap.n; i++)
		if (t->cap.src[i] == 1 && t->cap.pkt[i].opcode == HCA_BTH_OP_RC_RDMA_READ_RESPONSE_ONLY &&
		    t->cap.pkt[i].psn == psn) {
			k++;
			*len = t->cap.pkt[i].paylen;
		}
	return k;
}

/* A duplicate of `rq` into node 1: the number of READ responses it got (and their payload length). */
static unsigned int replayed(struct rt *t, const struct roce_pkt *rq, uint32_t *len)
{
	unsigned int n0 = t->cap.n;

	inject_req(t, *rq);
	return responses_at(t, n0, rq->psn, len);
}

/* Node 1's receive queue at an IOVA with bit 43 set. */
static void rq_bit43(void)
{
	recv_at_rq_iova(0x807e0000000ull, 1ull << 43, 70, "receive queue at IOVA bit 43");
}

/*
 * Eight responder resources, five READs of 100 bytes (one response each):
 * they take resources 0..4 (model/resp.c res_alloc), so a duplicate of any
 * of them is replayed: one READ RESPONSE ONLY of 100 bytes at its PSN.
 */
static void read_dups(void)
{
	struct tb_qp_attr a;
	struct rt t;
	struct tb_sge l;
	struct tb_send_wr w;
	struct hca_cqe c;
	struct roce_pkt rq[5];
	uint32_t len = 0;

	tb_qp_attr_default(&a);
	a.max_dest_rd_atomic = 8;
	setup(&t, HCA_QPT_RC, &a, NULL, 10);
	rt_fill(t.mr[1]->buf, 500, 71);
	for (unsigned int i = 0; i < 5; i++) {
		l = rt_sge(t.mr[0], 100 * i, 100);
		w = rs_read(&l, t.mr[1]->va + 100 * i, t.mr[1]->rkey);
		tb_post_send(t.qp[0], &w);
		CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS, "READ %u of five (%s)", i,
		      hca_wc_status_name(c.status));
		rq[i] = last_frame(&t, 0, HCA_BTH_OP_RC_RDMA_READ_REQUEST);
	}
	CHECK(rt_check(t.mr[0]->buf, 500, 71), "the five READs' data");
	for (unsigned int i = 0; i < 5; i++) {
		unsigned int k = replayed(&t, &rq[i], &len);

		CHECK(k == 1 && len == 100, "the duplicate of READ %u (resource %u) is replayed (%u responses)", i, i, k);
	}
	CHECK_EQ(tb_qp_query(t.qp[1]).cur_state, HCA_QPS_RTS, "responder still in RTS");
	finish(&t, "duplicates of five READs, eight resources");
}

/*
 * Node 1's MR 901 (key 0x42, REMOTE_READ, 16 KiB at va 0x6000000): only its
 * first page mapped in the IOMMU, so a READ of its second page faults.
 */
#define FAULT_MR_VA 0x6000000ull
#define FAULT_MR_KEY (901u << 8 | 0x42)

static void fault_mr(struct rt *t)
{
	half_mapped_mr_on(t, 1, 901, FAULT_MR_VA, HCA_ACCESS_REMOTE_READ);
}

/*
 * Sixteen responder resources (the default max_dest_rd_atomic); twelve
 * READs take resources 0..11; the thirteenth (resource 12) reads an
 * unmapped page at the responder: NAK remote operational error (the
 * requester completes it REM_OP_ERR), both QPs in ERR, and the resource is
 * freed (model/resp.c rc_read: RES_NONE).  The responder QP is then written
 * back to RTS without RESET_STATE: the engine keeps its status words
 * (programming.md 7; firmware itself only leaves ERR through RESET), so the
 * resources are as the fault left them: a duplicate of the faulted READ
 * (now at a mapped address) is dropped, one of READ 11 is replayed.
 */
static void read_fault_res(void)
{
	struct rt t;
	struct tb_sge l;
	struct tb_send_wr w;
	struct hca_cqe c;
	struct roce_pkt r11, r12;
	unsigned int k;
	uint32_t len = 0;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	fault_mr(&t);
	rt_fill(t.mr[1]->buf, 1200, 72);
	for (unsigned int i = 0; i < 12; i++) {
		l = rt_sge(t.mr[0], 100 * i, 100);
		w = rs_read(&l, t.mr[1]->va + 100 * i, t.mr[1]->rkey);
		tb_post_send(t.qp[0], &w);
		CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS, "READ %u of twelve (%s)", i,
		      hca_wc_status_name(c.status));
	}
	r11 = last_frame(&t, 0, HCA_BTH_OP_RC_RDMA_READ_REQUEST);
	l = rt_sge(t.mr[0], 0x1000, 64);
	w = rs_read(&l, FAULT_MR_VA + 0x1000, FAULT_MR_KEY);
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_REM_OP_ERR, "READ 12 (resource 12) faults: %s",
	      hca_wc_status_name(c.status));
	tb_run(t.tb, RT_WAIT);
	r12 = last_frame(&t, 0, HCA_BTH_OP_RC_RDMA_READ_REQUEST);
	CHECK(tb_stat(t.n[1], HCA_STAT_DMA_FAULT) == 1 && tb_qp_query(t.qp[1]).cur_state == HCA_QPS_ERR,
	      "responder: one DMA fault, QP in ERR");
	tb_qp_modify(t.qp[1], HCA_QPS_RTS, 0);
	tb_run(t.tb, RT_WAIT);
	r12.reth.va = t.mr[1]->va;
	r12.reth.rkey = t.mr[1]->rkey;
	k = replayed(&t, &r12, &len);
	CHECK(k == 0, "the faulted READ's resource was freed: its duplicate is dropped (%u responses)", k);
	k = replayed(&t, &r11, &len);
	CHECK(k == 1 && len == 100, "READ 11's duplicate is replayed (%u responses)", k);
	finish(&t, "a READ faulting on responder resource 12");
}

/*
 * Waits for a CQE in `cq` while node 1's engine is held by a management read
 * (the harness holds the engine for a register access's clocks) `first`
 * cycles from now and then every `every` cycles: 1 and the CQE, or 0 after
 * HELD_WAIT cycles (a message takes a few thousand; a bound well below
 * RT_WAIT keeps a failing run short).
 */
#define HELD_WAIT 200000u

static int wait_cqe_held(struct rt *t, struct tb_cq *cq, struct hca_cqe *c, unsigned int first, unsigned int every)
{
	uint64_t limit = tb_now(t->tb) + HELD_WAIT;

	memset(c, 0, sizeof(*c));
	if (first)
		tb_run_for(t->tb, first);
	while (tb_now(t->tb) < limit) {
		(void)tb_mgmt_read(t->n[1], HCA_MGMT_DMA_FAULT_INFO);
		if (tb_cq_poll(cq, c))
			return 1;
		tb_run_for(t->tb, every);
	}
	return 0;
}

/* A receive WQE of one entry at node `q`'s producer index, its wqe_index `index`, and the doorbell. */
static void post_recv_index(struct tb_qp *q, const struct tb_sge *s, uint16_t index)
{
	uint8_t *w = q->rq + ((size_t)(q->rq_pi & ((1u << q->qpc.log_rq_size) - 1)) << q->qpc.log_rq_stride);
	struct hca_recv_wqe_hdr h;
	struct hca_wqe_data_seg d = { .byte_count = s->len, .lkey = s->lkey, .addr = s->addr };

	memset(&h, 0, sizeof(h));
	h.num_sge = 1;
	h.wqe_index = index;
	memcpy(w, &h, sizeof(h));
	memcpy(w + HCA_WQE_RECV_HDR_SIZE, &d, sizeof(d));
	q->rq_pi++;
	tb_doorbell(q->n, HCA_DB_RQ_PI, q->qpn, q->rq_pi);
}

/*
 * Responder PSNs from 0x1c0 (bit 6 set for the first 64), two-packet SENDs
 * (PMTU 1024) into receive WQEs whose wqe_index is 0x2000 + n; after send n's
 * doorbell the sim runs n cycles and a management read holds node 1's
 * engine: each receive completes SUCCESS with its own wqe_index, its data,
 * and the next SEND is taken in order (no NAK, no retry).
 */
static void recv_held(void)
{
	struct tb_qp_attr a;
	struct rt t;
	struct tb_sge s, r;
	struct tb_send_wr w;
	struct hca_cqe c;
	int ok = 1;

	tb_qp_attr_default(&a);
	a.sq_psn = a.rq_psn = 0x1c0;
	setup(&t, HCA_QPT_RC, &a, NULL, 10);
	for (unsigned int d = 0; d < RECV_HELD_D && ok; d++) {
		uint64_t off = 0x1000 * (d % 16);
		uint16_t idx = (uint16_t)(0x2000 + d);

		r = rt_sge(t.mr[1], off, 0x800);
		post_recv_index(t.qp[1], &r, idx);
		rt_fill(t.mr[0]->buf + off, 0x600, 80 + d);
		s = rt_sge(t.mr[0], off, 0x600);
		w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
		tb_post_send(t.qp[0], &w);
		ok &= wait_cqe_held(&t, t.rcq[1], &c, d, 9 + d % 8) && c.status == HCA_WC_SUCCESS && c.byte_len == 0x600 &&
		      c.wqe_index == idx;
		CHECK(ok, "receive %u, holds from %u cycles after the doorbell every %u: %s, %u bytes, wqe_index 0x%x (want 0x%x)",
		      d, d, 9 + d % 8, hca_wc_status_name(c.status), c.byte_len, c.wqe_index, idx);
		ok &= rt_check(t.mr[1]->buf + off, 0x600, 80 + d);
		CHECK(ok, "receive %u: data", d);
		ok &= wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS;
		CHECK(ok, "send %u completes (%s)", d, hca_wc_status_name(c.status));
	}
	CHECK(tb_stat(t.n[1], HCA_STAT_RX_SEQ_ERR) == 0 && tb_stat(t.n[1], HCA_STAT_RX_DUP) == 0,
	      "responder: no sequence error, no duplicate");
	finish(&t, "receives with engine holds");
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/*
 * FETCH_ADD of 0 on a value with bits 7, 10 and 18 set (so nothing is
 * written back); after atomic n's doorbell the sim runs n cycles and a
 * management read holds node 1's engine: every atomic ACK carries the value
 * (the requester's 8 bytes), which stays as it was.
 */
#define ATOMIC_ORIG 0x0123456700040480ull

static void atomic_held(void)
{
	struct rt t;
	struct tb_sge l;
	struct tb_send_wr w;
	struct hca_cqe c;
	int ok = 1;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	put64(t.mr[1]->buf + 64, ATOMIC_ORIG);
	for (unsigned int d = 0; d < ATOMIC_HELD_D && ok; d++) {
		uint64_t got;

		put64(t.mr[0]->buf + 8 * (d % 64), 0);
		l = rt_sge(t.mr[0], 8 * (d % 64), 8);
		w = (struct tb_send_wr){ .opcode = HCA_WR_ATOMIC_FETCH_AND_ADD, .flags = HCA_SEND_SIGNALED, .sge = &l,
					 .num_sge = 1, .raddr = t.mr[1]->va + 64, .rkey = t.mr[1]->rkey,
					 .compare_add = 0 };
		tb_post_send(t.qp[0], &w);
		ok &= wait_cqe_held(&t, t.scq[0], &c, d, 9 + d % 8) && c.status == HCA_WC_SUCCESS;
		got = get64(t.mr[0]->buf + 8 * (d % 64));
		ok &= got == ATOMIC_ORIG;
		CHECK(ok, "atomic %u, holds from %u cycles after the doorbell every %u: %s, original value 0x%llx", d, d,
		      9 + d % 8, hca_wc_status_name(c.status), (unsigned long long)got);
	}
	CHECK_EQ(get64(t.mr[1]->buf + 64), ATOMIC_ORIG, "the target unchanged");
	finish(&t, "atomics with engine holds");
}

int main(int argc, char **argv)
{
	rt_ls_start(argc, argv);
	rq_bit43();
	read_dups();
	read_fault_res();
	recv_held();
	atomic_held();
	return check_done();
}
