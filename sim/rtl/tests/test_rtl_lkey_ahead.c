// SPDX-License-Identifier: MIT
/*
 * A prefetched WQE's lkey checked ahead of its step (docs/rtl.md "The
 * step's lkey check ahead"; hca_wqe_lkey_ahead, hca_req_lkey_ahead).  The
 * RTL checks SGE 0's lkey of a WQE it reads ahead when the read completes
 * and keeps the result with the prefetch entry; the model checks it when it
 * starts the WQE (model/req.c start_wqe).  An MRC write in between must
 * make the RTL check again, on the new context.  In lockstep, both widths:
 *
 *   WQE 0 is a 129-packet WRITE (PMTU 256): the RC window (128 PSNs) stops
 *   it at its last packet, so the model has not started WQE 1 when the test
 *   rewrites the MR (the wire is 6000 cycles long: no ACK is back by then),
 *   while the RTL read WQE 1 ahead when it started WQE 0 and checked its
 *   lkey.  WQE 1 is a 64-byte WRITE from MR 900 (node 0, key 0x42, 4 KiB
 *   at va 0x5000000, DMA buffer A).  Between the two, the MR is
 *     deregistered (LKEY: LOC_PROT_ERR), re-registered shorter (BOUNDS),
 *     with another key byte (LKEY), with another PD (PD), with access 0
 *     (a WRITE's gather needs none: SUCCESS), with its DMA address moved to
 *     buffer B (SUCCESS, B's bytes on the wire), or MR 901 is written
 *     (nothing changes: SUCCESS, A's bytes);
 *   and, no write in between, MR 900 of another PD from the start (the PD
 *   verdict made at the step from the MR's PD kept with the result).
 *
 *   rtl_lkey_ahead [--width 64|512] [--engine rtl|lockstep] [--options K=V,...]
 */
#include "rtl_ls.h"

#define MR_IDX 900u
#define MR_KEY 0x42u
#define MR_VA 0x5000000ull
#define WQE0_PKTS 129u

enum mr_change { MR_NONE, MR_DEREG, MR_SHORT, MR_KEY2, MR_PD2, MR_ACC0, MR_MOVED, MR_OTHER, MR_PD2_BEFORE };

/* Node 0's MRC `idx` at MR_VA (rtl_ls.h). */
static void mrc_write_pd(struct rt *t, uint32_t idx, uint8_t key, uint32_t access, uint32_t pdn, uint64_t length,
			 uint64_t dma, bool valid)
{
	mrc_write_pd_on(t, 0, idx, key, access, pdn, MR_VA, length, dma, valid);
}

static void mr_between(enum mr_change ch, uint8_t status, const char *what)
{
	struct tb_qp_attr a;
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s0, s1;
	struct tb_send_wr w;
	uint64_t da, db;
	uint8_t *ba, *bb;
	uint32_t pd2, len0 = WQE0_PKTS * 256;

	tb_qp_attr_default(&a);
	a.path_mtu = HCA_MTU_256;
	setup_objs_latency(&t, 10, 6000);
	for (int i = 0; i < 2; i++)
		t.qp[i] = tb_qp_create(t.n[i], HCA_QPT_RC, t.pd[i], t.scq[i], t.rcq[i], NULL, NULL);
	tb_connect_pair(t.qp[0], t.qp[1], &a);
	pd2 = tb_pd_alloc(t.n[0]);
	ba = tb_alloc(t.n[0], 4096, &da);
	bb = tb_alloc(t.n[0], 4096, &db);
	rt_fill(ba, 4096, 31);
	rt_fill(bb, 4096, 32);
	mrc_write_pd(&t, MR_IDX, MR_KEY, HCA_ACCESS_LOCAL_WRITE, ch == MR_PD2_BEFORE ? pd2 : t.pd[0], 4096, da, true);
	rt_fill(t.mr[0]->buf, len0, 30);

	s0 = rt_sge(t.mr[0], 0, len0);
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s0, .num_sge = 1,
				 .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
	tb_post_send(t.qp[0], &w);
	s1 = (struct tb_sge){ .addr = MR_VA + 64, .len = 64, .lkey = MR_IDX << 8 | MR_KEY };
	w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s1, .num_sge = 1,
				 .raddr = t.mr[1]->va + 0x80000, .rkey = t.mr[1]->rkey };
	tb_post_send(t.qp[0], &w);

	/* the MR rewritten while WQE 0 waits for the window: 3000 cycles on
	 * (the RTL has sent WQE 0's 128 packets, read WQE 1 ahead and checked
	 * its lkey; no ACK is back) */
	tb_run_for(t.tb, 3000);
	switch (ch) {
	case MR_DEREG:
		mrc_write_pd(&t, MR_IDX, MR_KEY, HCA_ACCESS_LOCAL_WRITE, t.pd[0], 4096, da, false);
		break;
	case MR_SHORT:
		mrc_write_pd(&t, MR_IDX, MR_KEY, HCA_ACCESS_LOCAL_WRITE, t.pd[0], 100, da, true);
		break;
	case MR_KEY2:
		mrc_write_pd(&t, MR_IDX, MR_KEY + 1, HCA_ACCESS_LOCAL_WRITE, t.pd[0], 4096, da, true);
		break;
	case MR_PD2:
		mrc_write_pd(&t, MR_IDX, MR_KEY, HCA_ACCESS_LOCAL_WRITE, pd2, 4096, da, true);
		break;
	case MR_ACC0:
		mrc_write_pd(&t, MR_IDX, MR_KEY, 0, t.pd[0], 4096, da, true);
		break;
	case MR_MOVED:
		mrc_write_pd(&t, MR_IDX, MR_KEY, HCA_ACCESS_LOCAL_WRITE, t.pd[0], 4096, db, true);
		break;
	case MR_OTHER:
		mrc_write_pd(&t, MR_IDX + 1, MR_KEY, HCA_ACCESS_LOCAL_WRITE, t.pd[0], 4096, db, true);
		break;
	default:
		break;
	}

	CHECK(wait_cqe(t.scq[0], &c) && c.wqe_index == 0 && c.status == HCA_WC_SUCCESS,
	      "%s: WQE 0 completes (status %s)", what, hca_wc_status_name(c.status));
	CHECK(wait_cqe(t.scq[0], &c) && c.wqe_index == 1 && c.status == status,
	      "%s: WQE 1 %s (status %s)", what, hca_wc_status_name(status), hca_wc_status_name(c.status));
	tb_run(t.tb, RT_WAIT);
	CHECK(!memcmp(t.mr[1]->buf, t.mr[0]->buf, len0), "%s: WQE 0's data", what);
	if (status == HCA_WC_SUCCESS)
		CHECK(!memcmp(t.mr[1]->buf + 0x80000, (ch == MR_MOVED ? bb : ba) + 64, 64), "%s: WQE 1's data, from %s",
		      what, ch == MR_MOVED ? "the new DMA address" : "the MR's buffer");
	finish(&t, what);
}

int main(int argc, char **argv)
{
	rt_ls_start(argc, argv);
	mr_between(MR_NONE, HCA_WC_SUCCESS, "no MR write");
	mr_between(MR_DEREG, HCA_WC_LOC_PROT_ERR, "MR deregistered");
	mr_between(MR_SHORT, HCA_WC_LOC_PROT_ERR, "MR re-registered shorter");
	mr_between(MR_KEY2, HCA_WC_LOC_PROT_ERR, "MR re-registered with another key");
	mr_between(MR_PD2, HCA_WC_LOC_PROT_ERR, "MR re-registered in another PD");
	mr_between(MR_ACC0, HCA_WC_SUCCESS, "MR re-registered with access 0");
	mr_between(MR_MOVED, HCA_WC_SUCCESS, "MR re-registered at another DMA address");
	mr_between(MR_OTHER, HCA_WC_SUCCESS, "another MR written");
	mr_between(MR_PD2_BEFORE, HCA_WC_LOC_PROT_ERR, "MR of another PD from the start");
	return check_done();
}
