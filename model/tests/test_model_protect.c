// SPDX-License-Identifier: MIT
/*
 * Protection (docs/programming.md 3 and 5.3, IB Vol 1 10.6 / 9.7.5):
 * rkey, PD, access and bounds violations at the responder and lkey
 * violations at the requester never touch memory (canaries), and give the
 * IB-defined NAK, completion status, vendor_err, QP state and async event;
 * DMA outside the IOMMU mappings (or writes to read-only mappings) is never
 * performed and is reported as programming.md section 3 says, per client:
 * send WQE fetch, local gather, remote scatter, READ source, receive
 * scatter, CQE write.
 */
#include "mt.h"

static struct mt_cap cap;
static struct mt t;

#define CANARY 0xA5

static void setup(const struct tb_qp_attr *a)
{
	mt_setup(&t, HCA_QPT_RC, a, NULL);
	mt_cap_start(&t, &cap);
	memset(t.mr[1]->buf, CANARY, 1 << 20);
	memset(t.mr[0]->buf + (1 << 19), CANARY, 1 << 19);
	mt_fill(t.mr[0]->buf, 1 << 19, 1);
}

static bool canary_ok(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != CANARY)
			return false;
	return true;
}

static void post(uint8_t op, struct tb_sge *s, uint64_t raddr, uint32_t rkey)
{
	struct tb_send_wr wr = { .opcode = op, .flags = HCA_SEND_SIGNALED, .sge = s, .num_sge = 1,
				 .raddr = raddr, .rkey = rkey, .compare_add = 1, .swap = 2 };

	tb_post_send(t.qp[0], &wr);
}

static void expect(struct tb_cq *cq, uint8_t status, uint8_t verr, const char *what)
{
	struct hca_cqe c;

	CHECK(tb_cq_wait(cq, &c, MT_WAIT), "%s: completion", what);
	CHECK(c.status == status, "%s: status %s, want %s", what, hca_wc_status_name(c.status), hca_wc_status_name(status));
	CHECK_EQ(c.vendor_err, verr, what);
}

/* A remote-access violation: NAK on the wire, REM_ACCESS_ERR, QP_ACCESS_ERR, QPs in ERR, canaries. */
static void remote_violation(uint8_t op, uint64_t raddr, uint32_t rkey, uint32_t len, const char *what)
{
	struct tb_sge s = mt_sge(t.mr[0], op == HCA_WR_RDMA_READ ? (1 << 19) : 0, len);

	post(op, &s, raddr, rkey);
	expect(t.scq[0], HCA_WC_REM_ACCESS_ERR, HCA_VENDOR_ERR_NAK_REM_ACCESS, what);
	tb_run(t.tb, MT_WAIT);
	CHECK_EQ(mt_cap_count(&cap, 1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_NAK_SYN(HCA_AETH_NAK_REMOTE_ACCESS_ERR)), 1, what);
	CHECK(tb_evt_find(t.n[1], HCA_EVENT_QP_ACCESS_ERR, t.qp[1]->qpn), "%s: QP_ACCESS_ERR", what);
	CHECK_EQ(tb_qp_query(t.qp[1]).cur_state, HCA_QPS_ERR, what);
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, what);
	CHECK(canary_ok(t.mr[1]->buf, 1 << 20), "%s: responder memory untouched", what);
	CHECK(canary_ok(t.mr[0]->buf + (1 << 19), 1 << 19), "%s: requester buffer untouched", what);
	CHECK_EQ(mt_cap_count(&cap, 1, HCA_BTH_OP_RC_RDMA_READ_RESPONSE_ONLY, -1) +
		 mt_cap_count(&cap, 1, HCA_BTH_OP_RC_RDMA_READ_RESPONSE_FIRST, -1) +
		 mt_cap_count(&cap, 1, HCA_BTH_OP_RC_ATOMIC_ACKNOWLEDGE, -1), 0, "no data returned");
}

static void remote_cases(void)
{
	struct tb_mr *other;

	setup(NULL);
	remote_violation(HCA_WR_RDMA_WRITE, t.mr[1]->va, (999u << 8) | 1, 100, "WRITE rkey index unused");
	mt_teardown(&t);
	setup(NULL);
	remote_violation(HCA_WR_RDMA_WRITE, t.mr[1]->va, (1u << (HCA_CAP_LOG_MAX_MR + 8)) | 1, 100,
			 "WRITE rkey index beyond the table");
	mt_teardown(&t);
	setup(NULL);
	remote_violation(HCA_WR_RDMA_WRITE, t.mr[1]->va, t.mr[1]->rkey + 1, 100, "WRITE stale rkey (key byte)");
	mt_teardown(&t);
	setup(NULL);
	remote_violation(HCA_WR_RDMA_WRITE, t.mr[1]->va + (1 << 20) - 50, t.mr[1]->rkey, 51,
			 "WRITE one byte past the MR");
	mt_teardown(&t);
	setup(NULL);
	remote_violation(HCA_WR_RDMA_WRITE, t.mr[1]->va - 1, t.mr[1]->rkey, 10, "WRITE starting before the MR");
	mt_teardown(&t);
	setup(NULL);
	remote_violation(HCA_WR_RDMA_READ, t.mr[1]->va + (1 << 20) - 100, t.mr[1]->rkey, 4000, "READ past the MR");
	mt_teardown(&t);

	/* MR of another PD */
	setup(NULL);
	other = tb_mr_reg(t.n[1], tb_pd_alloc(t.n[1]), 4096, MT_ACC_ALL);
	memset(other->buf, CANARY, 4096);
	remote_violation(HCA_WR_RDMA_WRITE, other->va, other->rkey, 64, "WRITE to an MR of another PD");
	CHECK(canary_ok(other->buf, 4096), "other-PD MR untouched");
	free(other);
	mt_teardown(&t);

	/* MR without the remote right */
	setup(NULL);
	other = tb_mr_reg(t.n[1], t.pd[1], 4096, HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ);
	memset(other->buf, CANARY, 4096);
	remote_violation(HCA_WR_RDMA_WRITE, other->va, other->rkey, 64, "WRITE to an MR without REMOTE_WRITE");
	CHECK(canary_ok(other->buf, 4096), "read-only MR untouched");
	free(other);
	mt_teardown(&t);
	setup(NULL);
	other = tb_mr_reg(t.n[1], t.pd[1], 4096, HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE);
	memset(other->buf, CANARY, 4096);
	remote_violation(HCA_WR_RDMA_READ, other->va, other->rkey, 64, "READ from an MR without REMOTE_READ");
	free(other);
	mt_teardown(&t);
	setup(NULL);
	other = tb_mr_reg(t.n[1], t.pd[1], 4096, HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_READ);
	memset(other->buf, CANARY, 4096);
	remote_violation(HCA_WR_ATOMIC_FETCH_AND_ADD, other->va, other->rkey, 8, "atomic on an MR without REMOTE_ATOMIC");
	CHECK(canary_ok(other->buf, 4096), "atomic target untouched");
	free(other);
	mt_teardown(&t);

	/* MR after deregistration */
	setup(NULL);
	tb_mr_dereg(t.mr[1]);
	remote_violation(HCA_WR_RDMA_WRITE, t.mr[1]->va, t.mr[1]->rkey, 64, "WRITE to a deregistered MR");
	mt_teardown(&t);
}

/* The remote MR is backed by IOVAs outside the IOMMU map or by a read-only mapping. */
static void remote_dma(void)
{
	struct hca_mrc c;
	uint8_t *ro = aligned_alloc(4096, 8192);

	setup(NULL);
	memset(&c, 0, sizeof(c));
	c.valid = 1;
	c.key = 3;
	c.access = MT_ACC_ALL;
	c.pdn = t.pd[1];
	c.va = 0x10000;
	c.length = 65536;
	c.dma_addr = 0x5500000000ull;	/* nothing mapped there */
	tb_ctx_write(t.n[1], HCA_CTX_TYPE_MRC, 500, &c, sizeof(c));
	remote_violation(HCA_WR_RDMA_WRITE, 0x10000, 500u << 8 | 3, 3000, "WRITE into unmapped IOVAs");
	CHECK_EQ(hostmem_fault_count(t.n[1]->hm), 1, "one IOMMU fault, the first packet");
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_DMA_FAULT), 1, "engine counted it");
	CHECK_EQ(HCA_FIELD_GET(tb_mgmt_read(t.n[1], HCA_MGMT_DMA_FAULT_INFO), HCA_MGMT_DMA_FAULT_INFO_CLIENT),
		 HCA_DMA_CLIENT_PAYLOAD, "client PAYLOAD");
	mt_teardown(&t);

	/* a read-only mapping: the device may read it but never write it */
	setup(NULL);
	memset(ro, CANARY, 8192);
	CHECK(hostmem_map(t.n[1]->hm, 0x6600000000ull, ro, 8192, HOSTMEM_READ) == 0, "map read-only");
	c.dma_addr = 0x6600000000ull;
	c.length = 8192;
	tb_ctx_write(t.n[1], HCA_CTX_TYPE_MRC, 500, &c, sizeof(c));
	remote_violation(HCA_WR_RDMA_WRITE, 0x10000, 500u << 8 | 3, 100, "WRITE into a read-only mapping");
	CHECK(canary_ok(ro, 8192), "read-only memory unchanged");
	mt_teardown(&t);
	/* ... but READ from it works */
	setup(NULL);
	CHECK(hostmem_map(t.n[1]->hm, 0x6600000000ull, ro, 8192, HOSTMEM_READ) == 0, "map read-only");
	tb_ctx_write(t.n[1], HCA_CTX_TYPE_MRC, 500, &c, sizeof(c));
	{
		struct tb_sge s = mt_sge(t.mr[0], 1 << 19, 8192);

		post(HCA_WR_RDMA_READ, &s, 0x10000, 500u << 8 | 3);
		expect(t.scq[0], HCA_WC_SUCCESS, 0, "READ from a read-only mapping");
		CHECK(canary_ok(t.mr[0]->buf + (1 << 19), 8192), "READ data (all canary bytes)");
	}
	mt_teardown(&t);
	free(ro);
}

/* Local (requester) key checks: nothing goes on the wire, LOC_PROT_ERR with the reason. */
static void local_cases(void)
{
	static const struct {
		const char *what;
		uint8_t op;
		uint8_t verr;
	} cases[] = {
		{ "SEND with an unknown lkey", HCA_WR_SEND, HCA_VENDOR_ERR_LKEY },
		{ "SEND with an lkey of another PD", HCA_WR_SEND, HCA_VENDOR_ERR_PD },
		{ "READ into an MR without LOCAL_WRITE", HCA_WR_RDMA_READ, HCA_VENDOR_ERR_ACCESS },
		{ "WRITE gathering past the MR end", HCA_WR_RDMA_WRITE, HCA_VENDOR_ERR_BOUNDS },
		{ "SEND gathering from unmapped IOVAs", HCA_WR_SEND, HCA_VENDOR_ERR_DMA_FAULT },
	};

	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tb_sge s;
		struct tb_mr *mr = NULL;

		setup(NULL);
		switch (i) {
		case 0:
			s = (struct tb_sge){ .addr = t.mr[0]->va, .len = 10, .lkey = 0x7700 };
			break;
		case 1:
			mr = tb_mr_reg(t.n[0], tb_pd_alloc(t.n[0]), 4096, MT_ACC_ALL);
			s = mt_sge(mr, 0, 10);
			break;
		case 2:
			mr = tb_mr_reg(t.n[0], t.pd[0], 4096, HCA_ACCESS_REMOTE_READ);
			memset(mr->buf, CANARY, 4096);
			s = mt_sge(mr, 0, 10);
			break;
		case 3:
			s = mt_sge(t.mr[0], (1 << 20) - 5, 6);
			break;
		default: {
			struct hca_mrc c;

			memset(&c, 0, sizeof(c));
			c.valid = 1;
			c.key = 1;
			c.access = MT_ACC_ALL;
			c.pdn = t.pd[0];
			c.va = 0x9000;
			c.length = 4096;
			c.dma_addr = 0x4400000000ull;
			tb_ctx_write(t.n[0], HCA_CTX_TYPE_MRC, 600, &c, sizeof(c));
			s = (struct tb_sge){ .addr = 0x9000, .len = 100, .lkey = 600u << 8 | 1 };
			break;
		}
		}
		post(cases[i].op, &s, t.mr[1]->va, t.mr[1]->rkey);
		s = mt_sge(t.mr[0], 0, 10);
		post(HCA_WR_SEND, &s, 0, 0);
		expect(t.scq[0], HCA_WC_LOC_PROT_ERR, cases[i].verr, cases[i].what);
		expect(t.scq[0], HCA_WC_WR_FLUSH_ERR, HCA_VENDOR_ERR_FLUSH, cases[i].what);
		tb_run(t.tb, MT_WAIT);
		CHECK_EQ(mt_cap_count(&cap, 0, -1, -1), 0, cases[i].what);
		CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, cases[i].what);
		CHECK_EQ(tb_mgmt_read(t.n[0], HCA_MGMT_EVT_COUNT), 0, cases[i].what);
		CHECK(canary_ok(t.mr[1]->buf, 1 << 20), "%s: remote untouched", cases[i].what);
		if (i == 2)
			CHECK(canary_ok(mr->buf, 4096), "%s: local MR untouched", cases[i].what);
		if (i == 4)
			CHECK_EQ(tb_stat(t.n[0], HCA_STAT_DMA_FAULT), 1, cases[i].what);
		free(mr);
		mt_teardown(&t);
	}
}

/* Send WQE fetch fault: QP_FATAL, ERR, the WQE flushed, nothing sent. */
static void wqe_fetch_fault(void)
{
	struct tb_sge s;

	setup(NULL);
	t.qp[0]->qpc.sq_base = 0x3300000000ull;
	tb_qp_modify(t.qp[0], HCA_QPS_RTS, 0);
	s = mt_sge(t.mr[0], 0, 10);
	post(HCA_WR_SEND, &s, 0, 0);
	post(HCA_WR_SEND, &s, 0, 0);
	expect(t.scq[0], HCA_WC_WR_FLUSH_ERR, HCA_VENDOR_ERR_FLUSH, "WQE fetch fault: flushed");
	expect(t.scq[0], HCA_WC_WR_FLUSH_ERR, HCA_VENDOR_ERR_FLUSH, "WQE fetch fault: next flushed");
	tb_run(t.tb, MT_WAIT);
	CHECK(tb_evt_find(t.n[0], HCA_EVENT_QP_FATAL, t.qp[0]->qpn), "QP_FATAL");
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "ERR");
	CHECK_EQ(mt_cap_count(&cap, 0, -1, -1), 0, "nothing sent");
	CHECK_EQ(HCA_FIELD_GET(tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_INFO), HCA_MGMT_DMA_FAULT_INFO_CLIENT),
		 HCA_DMA_CLIENT_WQE, "client WQE");
	CHECK_EQ(tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_HI), 0x33, "fault IOVA");
	mt_teardown(&t);
}

/* Receive side: a bad receive SGE lkey, a receive buffer in a read-only mapping. */
static void receive_scatter(void)
{
	for (int k = 0; k < 2; k++) {
		struct tb_sge s, r;
		struct hca_cqe c;
		uint8_t *ro = NULL;

		setup(NULL);
		s = mt_sge(t.mr[0], 0, 300);
		if (k == 0) {
			r = (struct tb_sge){ .addr = t.mr[1]->va, .len = 1000, .lkey = t.mr[1]->lkey ^ 0x80 };
		} else {
			struct hca_mrc m;

			ro = aligned_alloc(4096, 4096);
			memset(ro, CANARY, 4096);
			hostmem_map(t.n[1]->hm, 0x7100000000ull, ro, 4096, HOSTMEM_READ);
			memset(&m, 0, sizeof(m));
			m.valid = 1;
			m.key = 2;
			m.access = MT_ACC_ALL;
			m.pdn = t.pd[1];
			m.va = 0x1000;
			m.length = 4096;
			m.dma_addr = 0x7100000000ull;
			tb_ctx_write(t.n[1], HCA_CTX_TYPE_MRC, 700, &m, sizeof(m));
			r = (struct tb_sge){ .addr = 0x1000, .len = 1000, .lkey = 700u << 8 | 2 };
		}
		tb_post_recv(t.qp[1], &r, 1);
		post(HCA_WR_SEND, &s, 0, 0);
		expect(t.scq[0], HCA_WC_REM_ACCESS_ERR, HCA_VENDOR_ERR_NAK_REM_ACCESS,
		       k ? "SEND into a read-only receive buffer" : "SEND into a bad receive lkey");
		CHECK(tb_cq_wait(t.rcq[1], &c, MT_WAIT), "receive completion");
		CHECK(c.status == HCA_WC_LOC_PROT_ERR, "receive LOC_PROT_ERR (%s)", hca_wc_status_name(c.status));
		CHECK_EQ(c.vendor_err, k ? HCA_VENDOR_ERR_DMA_FAULT : HCA_VENDOR_ERR_LKEY, "receive vendor_err");
		tb_run(t.tb, MT_WAIT);
		CHECK(tb_evt_find(t.n[1], HCA_EVENT_QP_ACCESS_ERR, t.qp[1]->qpn), "QP_ACCESS_ERR");
		CHECK(canary_ok(t.mr[1]->buf, 1 << 20), "responder MR untouched");
		if (ro)
			CHECK(canary_ok(ro, 4096), "read-only buffer untouched");
		mt_teardown(&t);
		free(ro);
	}
}

/* CQE write fault: CQ error + CQ_ERR; the QP whose completion was lost goes to ERR with QP_FATAL. */
static void cqe_fault(void)
{
	struct hca_cqc c;
	struct tb_sge s;

	setup(NULL);
	memset(&c, 0, sizeof(c));
	c.valid = 1;
	c.log_size = 4;
	c.uar = TB_UAR;
	c.eqn = 0xffffffff;
	c.base = 0x2200000000ull;
	tb_ctx_write(t.n[0], HCA_CTX_TYPE_CQC, t.scq[0]->cqn, &c, sizeof(c));
	s = mt_sge(t.mr[0], 0, 10);
	{
		struct tb_sge r = mt_sge(t.mr[1], 0, 100);

		tb_post_recv(t.qp[1], &r, 1);
	}
	post(HCA_WR_SEND, &s, 0, 0);
	tb_run(t.tb, MT_WAIT);
	{
		uint8_t ty[2] = { 0xff, 0xff };
		uint32_t el[2];

		tb_evt_pop(t.n[0], &ty[0], &el[0]);
		tb_evt_pop(t.n[0], &ty[1], &el[1]);
		CHECK(ty[0] == HCA_EVENT_CQ_ERR && el[0] == t.scq[0]->cqn, "CQ_ERR first");
		CHECK(ty[1] == HCA_EVENT_QP_FATAL && el[1] == t.qp[0]->qpn, "then QP_FATAL");
	}
	CHECK(tb_cq_poll(t.rcq[1], NULL), "the peer received the SEND");
	tb_ctx_read(t.n[0], HCA_CTX_TYPE_CQC, t.scq[0]->cqn, &c, sizeof(c));
	CHECK_EQ(c.error, 1, "CQ in error");
	CHECK_EQ(c.pi, 0, "no CQE counted");
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "QP lost a completion: ERR");
	CHECK_EQ(HCA_FIELD_GET(tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_INFO), HCA_MGMT_DMA_FAULT_INFO_CLIENT),
		 HCA_DMA_CLIENT_CQE, "client CQE");
	CHECK_EQ(hostmem_fault_count(t.n[0]->hm), 1, "one fault: no further CQE writes tried");
	mt_teardown(&t);
}

int main(void)
{
	hca_model_engine_register();
	remote_cases();
	remote_dma();
	local_cases();
	wqe_fetch_fault();
	receive_scatter();
	cqe_fault();
	return check_done();
}
