// SPDX-License-Identifier: MIT
/*
 * Acceptance test of the device = firmware + the model engine, as a backend
 * ("model"): bring-up from reset over BAR0, every object kind created and
 * destroyed through real commands on the real command queue, each checked
 * in the engine's context tables through the management port; CMD_DONE EQEs
 * in a host EQ ring with MSI-X; async events end to end (a link flap ->
 * PORT_ERR/PORT_ACTIVE EQEs; SRQ limit crossed by a real UD loopback send ->
 * SRQ_LIMIT_REACHED with the SRQN); CONTEXT.FREE and reset leave the engine
 * with no valid context.
 *
 * HCASIM_TB_ENGINE=NAME runs the same device on another engine (the
 * coverage variant: lockstep, i.e. the firmware over lockstep(model, rtl)).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../firmware/fw.h"
#include "../../firmware/tests/fw_test.h"
#include "../../model/model.h"

static struct fwt T;

/* Cycles for an EQE and its interrupt to come out (the RTL takes some; the model none). */
#define SETTLE 1000

/* The engine under the firmware: the model, or HCASIM_TB_ENGINE (as sim/tb). */
static const char *engine(void)
{
	const char *e = getenv("HCASIM_TB_ENGINE");

	return e && *e ? e : "model";
}

static int ctx_read(unsigned int type, uint32_t index, void *buf, size_t len)
{
	return hca_device_ctx_read(T.dev, type, index, buf, len);
}

static uint32_t rd(uint32_t off)
{
	return T.be.mmio_read(T.dev, off);
}

static void wr(uint32_t off, uint32_t v)
{
	T.be.mmio_write(T.dev, off, v);
}

/* EQE n of a ring of 2^log entries, if the device wrote it (owner bit). */
static const struct hca_eqe *eqe_at(const struct hca_eqe *ring, unsigned int log, uint32_t n)
{
	const struct hca_eqe *e = &ring[n & ((1u << log) - 1)];
	uint8_t owner = (uint8_t)(((n >> log) & 1) ^ 1);

	return (e->owner & 1) == owner ? e : NULL;
}

static void bringup(void)
{
	uint32_t st;

	CHECK(fwt_create(&T, engine(), NULL) == 0, "device on the %s engine", engine());
	CHECK(hca_backend_find(engine()) != NULL, "backend \"%s\" registered", engine());
	CHECK_EQ(HCA_FIELD_GET(rd(HCA_INIT_STATUS), HCA_INIT_STATUS_STATE), HCA_DEV_STATE_RESET,
		 "state before the firmware ran");
	CHECK_EQ(hca_devctl_reset(T.dc), 0, "reset -> READY");
	st = rd(HCA_INIT_STATUS);
	CHECK((st & HCA_INIT_STATUS_FW_READY_MASK) &&
	      HCA_FIELD_GET(st, HCA_INIT_STATUS_STATE) == HCA_DEV_STATE_READY, "READY: 0x%x", st);
	CHECK_EQ(rd(HCA_INIT_FW_VER), HCA_FW_VERSION, "FW_VER");
	CHECK(rd(HCA_INIT_ENGINE_STATUS) & HCA_INIT_ENGINE_STATUS_PORT_ACTIVE_MASK, "port up after boot");
	CHECK_EQ(hca_device_mgmt_read(T.dev, HCA_MGMT_PORT_MAC_LO), 0x43000001u, "MAC programmed");
	CHECK_EQ(hca_devctl_enable(T.dc, 4), 0, "enable the command queue");
	st = rd(HCA_INIT_STATUS);
	CHECK((st & HCA_INIT_STATUS_CMDQ_READY_MASK) &&
	      HCA_FIELD_GET(st, HCA_INIT_STATUS_STATE) == HCA_DEV_STATE_RUNNING, "RUNNING: 0x%x", st);
}

static void queries(void)
{
	struct hca_cmd c;
	struct hca_device_attr da;
	struct hca_port_attr pa;
	uint32_t cap0 = rd(HCA_INIT_CAP0), cap1 = rd(HCA_INIT_CAP1);

	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_QUERY, 0);
	hca_cmd_out(&c, HCA_ATTR_DEVICE_QUERY_RESP, &da, sizeof(da));
	CHECK_EQ(hca_devctl_exec(T.dc, &c), 0, "DEVICE.QUERY");
	/* Against the engine's own capability words. */
	CHECK_EQ(da.max_qp, (1u << HCA_FIELD_GET(cap0, HCA_INIT_CAP0_LOG_MAX_QP)) - 2, "max_qp from CAP0");
	CHECK_EQ(da.max_mr, (1u << HCA_FIELD_GET(cap0, HCA_INIT_CAP0_LOG_MAX_MR)) - 1, "max_mr from CAP0");
	CHECK_EQ(da.max_sge, HCA_FIELD_GET(cap1, HCA_INIT_CAP1_MAX_SGE), "max_sge from CAP1");
	CHECK_EQ(da.max_cqe, 1u << HCA_FIELD_GET(cap1, HCA_INIT_CAP1_LOG_MAX_CQE), "max_cqe from CAP1");
	CHECK_EQ(da.fw_ver, HCA_FW_VERSION, "fw_ver");
	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_QUERY_PORT, 0);
	hca_cmd_in_u32(&c, HCA_ATTR_DEVICE_QUERY_PORT_PORT_NUM, 1);
	hca_cmd_out(&c, HCA_ATTR_DEVICE_QUERY_PORT_RESP, &pa, sizeof(pa));
	CHECK_EQ(hca_devctl_exec(T.dc, &c), 0, "QUERY_PORT");
	CHECK_EQ(pa.state, HCA_PORT_ACTIVE, "port ACTIVE");
}

static void every_object(void)
{
	uint32_t ctx, uar, pd, pdn, eq, eqn, cq, cqn, mr, lkey, srq, srqn, qp[3], qpn[3];
	uint8_t ip[4] = { 10, 0, 0, 1 };
	struct hca_qp_init_attr ia;
	struct hca_qp_attr a, q;
	struct hca_eqc eqc;
	struct hca_cqc cqc;
	struct hca_mrc mrc;
	struct hca_srqc srqc;
	struct hca_qpc qpc;
	struct hca_gidc gidc;
	static const uint8_t types[3] = { HCA_QPT_RC, HCA_QPT_UC, HCA_QPT_UD };

	CHECK_EQ(fwt_set_gid(&T, 1, 0, ip), 0, "SET_GID");
	CHECK_EQ(ctx_read(HCA_CTX_TYPE_GIDC, 1, &gidc, sizeof(gidc)), 0, "read GIDC");
	CHECK(gidc.valid && gidc.gid[10] == 0xff && gidc.gid[11] == 0xff && gidc.gid[12] == 10 && gidc.gid[15] == 1,
	      "engine GID 1 = ::ffff:10.0.0.1");

	CHECK_EQ(fwt_ctx_alloc(&T, &ctx, &uar), 0, "CONTEXT.ALLOC");
	CHECK_EQ(fwt_pd_alloc(&T, ctx, &pd, &pdn), 0, "PD.ALLOC");
	CHECK_EQ(fwt_eq_create(&T, ctx, 4, 2, HCA_EQ_MASK_ASYNC, &eq, &eqn), 0, "EQ.CREATE");
	CHECK_EQ(ctx_read(HCA_CTX_TYPE_EQC, eqn, &eqc, sizeof(eqc)), 0, "read EQC");
	CHECK(eqc.valid && eqc.log_size == 4 && eqc.vector == 2 && eqc.uar == uar && eqc.base == T.last_ring &&
	      eqc.armed, "engine EQC (created armed)");
	CHECK_EQ(fwt_cq_create(&T, ctx, eq, 5, &cq, &cqn), 0, "CQ.CREATE");
	CHECK_EQ(ctx_read(HCA_CTX_TYPE_CQC, cqn, &cqc, sizeof(cqc)), 0, "read CQC");
	CHECK(cqc.valid && cqc.log_size == 5 && cqc.eqn == eqn && cqc.uar == uar && cqc.base == T.last_ring,
	      "engine CQC");
	CHECK_EQ(fwt_mr_reg(&T, ctx, pd, 0x400000, 0x10000, 0x20000000, HCA_ACCESS_LOCAL_WRITE |
			    HCA_ACCESS_REMOTE_WRITE, &mr, &lkey), 0, "MR.REG");
	CHECK_EQ(ctx_read(HCA_CTX_TYPE_MRC, lkey >> 8, &mrc, sizeof(mrc)), 0, "read MRC");
	CHECK(mrc.valid && mrc.key == (lkey & 0xff) && mrc.pdn == pdn && mrc.va == 0x400000 &&
	      mrc.length == 0x10000 && mrc.dma_addr == 0x20000000, "engine MRC");
	CHECK_EQ(fwt_srq_create(&T, ctx, pd, 16, 2, &srq, &srqn), 0, "SRQ.CREATE");
	CHECK_EQ(ctx_read(HCA_CTX_TYPE_SRQC, srqn, &srqc, sizeof(srqc)), 0, "read SRQC");
	CHECK(srqc.valid && srqc.pdn == pdn && srqc.log_size == 4 && srqc.uar == uar, "engine SRQC");
	CHECK_EQ(fwt_srq_modify(&T, ctx, srq, 3, HCA_SRQ_ATTR_LIMIT), 0, "SRQ.MODIFY limit");
	CHECK_EQ(ctx_read(HCA_CTX_TYPE_SRQC, srqn, &srqc, sizeof(srqc)), 0, "read SRQC");
	CHECK(srqc.limit == 3 && srqc.armed, "engine SRQ limit armed");

	for (int t = 0; t < 3; t++) {
		fwt_qp_init(&T, &ia, types[t], t == 2);
		CHECK_EQ(fwt_qp_create(&T, ctx, pd, cq, cq, t == 2 ? srq : 0, &ia, &qp[t], &qpn[t]), 0, "QP.CREATE");
		CHECK_EQ(ctx_read(HCA_CTX_TYPE_QPC, qpn[t], &qpc, sizeof(qpc)), 0, "read QPC");
		CHECK(qpc.qp_type == types[t] && qpc.cur_state == HCA_QPS_RESET && qpc.pdn == pdn &&
		      qpc.send_cqn == cqn && qpc.uar == uar && qpc.sq_base == ia.sq_base &&
		      (t == 2 ? qpc.srqn == srqn : qpc.rq_base == ia.rq_base), "engine QPC after create");
	}
	/* RC through RESET -> INIT -> RTR -> RTS on the engine. */
	fwt_qp_attr_valid(&a);
	a.sgid_index = 1;
	a.qp_state = HCA_QPS_INIT;
	CHECK_EQ(fwt_qp_modify(&T, ctx, qp[0], &a, HCA_QP_ATTR_STATE | HCA_QP_ATTR_PKEY_INDEX |
			       HCA_QP_ATTR_PORT | HCA_QP_ATTR_ACCESS_FLAGS), 0, "RC to INIT");
	a.qp_state = HCA_QPS_RTR;
	CHECK_EQ(fwt_qp_modify(&T, ctx, qp[0], &a, HCA_QP_ATTR_STATE | HCA_QP_ATTR_AV | HCA_QP_ATTR_PATH_MTU |
			       HCA_QP_ATTR_DEST_QPN | HCA_QP_ATTR_RQ_PSN | HCA_QP_ATTR_MAX_DEST_RD_ATOMIC |
			       HCA_QP_ATTR_MIN_RNR_TIMER), 0, "RC to RTR");
	a.qp_state = HCA_QPS_RTS;
	CHECK_EQ(fwt_qp_modify(&T, ctx, qp[0], &a, HCA_QP_ATTR_STATE | HCA_QP_ATTR_SQ_PSN | HCA_QP_ATTR_TIMEOUT |
			       HCA_QP_ATTR_RETRY_CNT | HCA_QP_ATTR_RNR_RETRY | HCA_QP_ATTR_MAX_QP_RD_ATOMIC), 0,
		 "RC to RTS");
	CHECK_EQ(ctx_read(HCA_CTX_TYPE_QPC, qpn[0], &qpc, sizeof(qpc)), 0, "read QPC");
	CHECK(qpc.cur_state == HCA_QPS_RTS && qpc.sq_psn_next == a.sq_psn &&
	      qpc.rq_psn_expected == a.rq_psn && qpc.dest_qpn == a.dest_qp_num && qpc.path_mtu == a.path_mtu,
	      "engine RC QP in RTS with loaded PSNs");
	CHECK_EQ(fwt_qp_query(&T, ctx, qp[0], &q, NULL), 0, "QP.QUERY");
	CHECK(q.qp_state == HCA_QPS_RTS && q.sq_psn == a.sq_psn && q.rq_psn == a.rq_psn, "QUERY = engine state");
	/* To ERR: the engine takes it there (and flushes). */
	a.qp_state = HCA_QPS_ERR;
	CHECK_EQ(fwt_qp_modify(&T, ctx, qp[0], &a, HCA_QP_ATTR_STATE), 0, "RC to ERR");
	CHECK_EQ(ctx_read(HCA_CTX_TYPE_QPC, qpn[0], &qpc, sizeof(qpc)), 0, "read QPC");
	CHECK_EQ(qpc.cur_state, HCA_QPS_ERR, "engine QP in ERR");
	/* And back to RTS is illegal from ERR, as verbs. */
	a.qp_state = HCA_QPS_RTS;
	CHECK_EQ(fwt_qp_modify(&T, ctx, qp[0], &a, HCA_QP_ATTR_STATE), HCA_EINVAL, "ERR -> RTS");

	/* EBUSY, then destroy everything in order, checking the engine each time. */
	CHECK_EQ(fwt_destroy(&T, ctx, HCA_OBJ_PD, HCA_METHOD_PD_FREE, pd), HCA_EBUSY, "PD busy");
	CHECK_EQ(fwt_destroy(&T, ctx, HCA_OBJ_EQ, HCA_METHOD_EQ_DESTROY, eq), HCA_EBUSY, "EQ busy");
	for (int t = 0; t < 3; t++) {
		CHECK_EQ(fwt_destroy(&T, ctx, HCA_OBJ_QP, HCA_METHOD_QP_DESTROY, qp[t]), 0, "QP.DESTROY");
		CHECK_EQ(ctx_read(HCA_CTX_TYPE_QPC, qpn[t], &qpc, sizeof(qpc)), 0, "read QPC");
		CHECK(qpc.cur_state == HCA_QPS_RESET && qpc.qp_type == 0, "engine QPC cleared");
	}
	CHECK_EQ(fwt_destroy(&T, ctx, HCA_OBJ_SRQ, HCA_METHOD_SRQ_DESTROY, srq), 0, "SRQ.DESTROY");
	CHECK_EQ(ctx_read(HCA_CTX_TYPE_SRQC, srqn, &srqc, sizeof(srqc)), 0, "read SRQC");
	CHECK_EQ(srqc.valid, 0, "engine SRQC invalid");
	CHECK_EQ(fwt_destroy(&T, ctx, HCA_OBJ_MR, HCA_METHOD_MR_DEREG, mr), 0, "MR.DEREG");
	CHECK_EQ(ctx_read(HCA_CTX_TYPE_MRC, lkey >> 8, &mrc, sizeof(mrc)), 0, "read MRC");
	CHECK_EQ(mrc.valid, 0, "engine MRC invalid");
	CHECK_EQ(fwt_destroy(&T, ctx, HCA_OBJ_CQ, HCA_METHOD_CQ_DESTROY, cq), 0, "CQ.DESTROY");
	CHECK_EQ(ctx_read(HCA_CTX_TYPE_CQC, cqn, &cqc, sizeof(cqc)), 0, "read CQC");
	CHECK_EQ(cqc.valid, 0, "engine CQC invalid");
	CHECK_EQ(fwt_destroy(&T, ctx, HCA_OBJ_EQ, HCA_METHOD_EQ_DESTROY, eq), 0, "EQ.DESTROY");
	CHECK_EQ(ctx_read(HCA_CTX_TYPE_EQC, eqn, &eqc, sizeof(eqc)), 0, "read EQC");
	CHECK_EQ(eqc.valid, 0, "engine EQC invalid");
	CHECK_EQ(fwt_destroy(&T, ctx, HCA_OBJ_PD, HCA_METHOD_PD_FREE, pd), 0, "PD.FREE");
	CHECK_EQ(fwt_ctx_free(&T, ctx), 0, "CONTEXT.FREE");
	CHECK_EQ(hca_fw_check(T.fw), 0, "bookkeeping");
}

static void cmd_done_and_msix(void)
{
	uint32_t ctx, eq, eqn, pd, n0;
	const struct hca_eqe *ring;
	const struct hca_eqe *e;
	unsigned int irqs;

	CHECK_EQ(fwt_ctx_alloc(&T, &ctx, NULL), 0, "context");
	wr(HCA_BAR0_MSIX_TABLE + 16 * 5 + HCA_MSIX_VECTOR_CTRL, 0);	/* unmask vector 5 */
	CHECK_EQ(fwt_eq_create(&T, ctx, 3, 5, HCA_EQ_MASK_CMD_DONE, &eq, &eqn), 0, "command EQ");
	ring = hostmem_ptr(T.hm, T.last_ring, HCA_EQE_SIZE << 3);
	fwt_step(&T, SETTLE);
	e = eqe_at(ring, 3, 0);
	CHECK(e && e->type == HCA_EQE_TYPE_CMD_DONE, "CMD_DONE of EQ.CREATE in the ring");
	n0 = e ? e->data : 0;
	irqs = T.irqs;
	CHECK(irqs >= 1 && T.last_vector == 5, "MSI-X vector 5 fired (%u, %u)", irqs, T.last_vector);
	CHECK_EQ(fwt_pd_alloc(&T, ctx, &pd, NULL), 0, "PD");
	fwt_step(&T, SETTLE);
	e = eqe_at(ring, 3, 1);
	CHECK(e && e->type == HCA_EQE_TYPE_CMD_DONE && e->data == n0 + 1, "CMD_DONE of PD.ALLOC, next index");
	CHECK_EQ(T.irqs, irqs, "EQ disarmed after the first EQE: no interrupt without EQ_ARM");
	CHECK_EQ(fwt_ctx_free(&T, ctx), 0, "free (takes the command EQ)");
	CHECK_EQ(hca_fw_check(T.fw), 0, "bookkeeping");
}

/* Link flap injected at the engine's port control: PORT_ERR then PORT_ACTIVE. */
static void port_events(void)
{
	uint32_t c1, c2, e1, e2;
	const struct hca_eqe *r1, *r2, *x;

	CHECK_EQ(fwt_ctx_alloc(&T, &c1, NULL), 0, "context 1");
	CHECK_EQ(fwt_ctx_alloc(&T, &c2, NULL), 0, "context 2");
	CHECK_EQ(fwt_eq_create(&T, c1, 3, 0, HCA_EQ_MASK_ASYNC, &e1, NULL), 0, "async EQ 1");
	r1 = hostmem_ptr(T.hm, T.last_ring, HCA_EQE_SIZE << 3);
	CHECK_EQ(fwt_eq_create(&T, c2, 3, 1, HCA_EQ_MASK_ASYNC, &e2, NULL), 0, "async EQ 2");
	r2 = hostmem_ptr(T.hm, T.last_ring, HCA_EQE_SIZE << 3);
	hca_device_mgmt_write(T.dev, HCA_MGMT_PORT_CTRL, 0);
	hca_device_mgmt_write(T.dev, HCA_MGMT_PORT_CTRL, HCA_MGMT_PORT_CTRL_UP_MASK);
	fwt_step(&T, SETTLE);
	for (int i = 0; i < 2; i++) {
		const struct hca_eqe *r = i ? r2 : r1;
		x = eqe_at(r, 3, 0);
		CHECK(x && x->type == HCA_EQE_TYPE_ASYNC && x->subtype == HCA_EVENT_PORT_ERR && x->element == 1,
		      "PORT_ERR EQE in context %d's EQ", i + 1);
		x = eqe_at(r, 3, 1);
		CHECK(x && x->type == HCA_EQE_TYPE_ASYNC && x->subtype == HCA_EVENT_PORT_ACTIVE && x->element == 1,
		      "PORT_ACTIVE EQE in context %d's EQ", i + 1);
		CHECK(!eqe_at(r, 3, 2), "nothing more in context %d's EQ", i + 1);
	}
	CHECK_EQ(fwt_ctx_free(&T, c1), 0, "free 1");
	CHECK_EQ(fwt_ctx_free(&T, c2), 0, "free 2");
}

/*
 * SRQ limit crossed by real traffic: a UD QP sends to itself (frames looped
 * back into the port); the receive consumes an SRQ WQE and the count drops
 * below the armed limit.
 */
static void srq_limit_event(void)
{
	uint32_t ctx, uar, pd, eq, eqn, cq, cqn, mr, lkey, srq, srqn, qp, qpn;
	uint8_t ip[4] = { 10, 0, 0, 1 };
	struct hca_qp_init_attr ia;
	struct hca_qp_attr a;
	struct hca_srq_attr sa;
	const struct hca_eqe *ring, *x;
	const struct hca_cqe *cqes;
	uint8_t *buf, *sq, *srqring;
	uint64_t buf_iova, srq_iova, cq_iova;
	uint32_t db = HCA_BAR0_DB_BASE;
	int found = 0;

	CHECK_EQ(fwt_set_gid(&T, 0, 0, ip), 0, "GID 0 = our IPv4");
	CHECK_EQ(fwt_ctx_alloc(&T, &ctx, &uar), 0, "context");
	db += uar * HCA_BAR0_DB_PAGE_SIZE;
	CHECK_EQ(fwt_pd_alloc(&T, ctx, &pd, NULL), 0, "PD");
	CHECK_EQ(fwt_eq_create(&T, ctx, 3, 0, HCA_EQ_MASK_ASYNC, &eq, &eqn), 0, "async EQ");
	ring = hostmem_ptr(T.hm, T.last_ring, HCA_EQE_SIZE << 3);
	CHECK_EQ(fwt_cq_create(&T, ctx, 0, 4, &cq, &cqn), 0, "CQ");
	cq_iova = T.last_ring;
	cqes = hostmem_ptr(T.hm, cq_iova, HCA_CQE_SIZE << 4);
	buf = fwt_mem(&T, 8192, &buf_iova);
	CHECK_EQ(fwt_mr_reg(&T, ctx, pd, buf_iova, 8192, buf_iova, HCA_ACCESS_LOCAL_WRITE, &mr, &lkey), 0, "MR");
	CHECK_EQ(fwt_srq_create(&T, ctx, pd, 8, 1, &srq, &srqn), 0, "SRQ of 8");
	srq_iova = T.last_ring;
	srqring = hostmem_ptr(T.hm, srq_iova, 8 * 32);
	/* Post 4 receive WQEs (stride 32: header + one SGE of 1 KiB each). */
	for (int i = 0; i < 4; i++) {
		struct hca_recv_wqe_hdr h = { .num_sge = 1, .wqe_index = (uint16_t)i };
		struct hca_wqe_data_seg d = { .byte_count = 1024, .lkey = lkey,
					      .addr = buf_iova + 4096 + 1024 * (uint64_t)i };
		memcpy(srqring + 32 * i, &h, sizeof(h));
		memcpy(srqring + 32 * i + 16, &d, sizeof(d));
	}
	wr(db + HCA_DB_SRQ_PI, (4u << 16) | srqn);
	CHECK_EQ(fwt_srq_modify(&T, ctx, srq, 4, HCA_SRQ_ATTR_LIMIT), 0, "arm limit 4 (4 posted: not below)");

	fwt_qp_init(&T, &ia, HCA_QPT_UD, 1);
	CHECK_EQ(fwt_qp_create(&T, ctx, pd, cq, cq, srq, &ia, &qp, &qpn), 0, "UD QP on the SRQ");
	sq = hostmem_ptr(T.hm, ia.sq_base, 128 * 16);
	fwt_qp_attr_valid(&a);
	a.qp_state = HCA_QPS_INIT;
	CHECK_EQ(fwt_qp_modify(&T, ctx, qp, &a, HCA_QP_ATTR_STATE | HCA_QP_ATTR_PKEY_INDEX | HCA_QP_ATTR_PORT |
			       HCA_QP_ATTR_QKEY), 0, "UD INIT");
	a.qp_state = HCA_QPS_RTR;
	CHECK_EQ(fwt_qp_modify(&T, ctx, qp, &a, HCA_QP_ATTR_STATE), 0, "UD RTR");
	a.qp_state = HCA_QPS_RTS;
	CHECK_EQ(fwt_qp_modify(&T, ctx, qp, &a, HCA_QP_ATTR_STATE | HCA_QP_ATTR_SQ_PSN), 0, "UD RTS");

	/* One SEND of 100 bytes to ourselves. */
	{
		struct hca_wqe_ctrl_seg c = { .opcode = HCA_WR_SEND, .send_flags = HCA_SEND_SIGNALED,
					      .num_sge = 1, .wqe_index = 0 };
		struct hca_wqe_ud_seg u;
		struct hca_wqe_data_seg d = { .byte_count = 100, .lkey = lkey, .addr = buf_iova };

		memset(&u, 0, sizeof(u));
		u.remote_qpn = qpn;
		u.remote_qkey = a.qkey;
		memcpy(u.dmac, T.mac, 6);
		u.sgid_index = 0;
		u.hop_limit = 64;
		u.dgid[10] = 0xff;
		u.dgid[11] = 0xff;
		memcpy(u.dgid + 12, ip, 4);
		for (int i = 0; i < 100; i++)
			buf[i] = (uint8_t)(i * 7);
		memcpy(sq, &c, sizeof(c));
		memcpy(sq + HCA_WQE_UD_OFF, &u, sizeof(u));
		memcpy(sq + HCA_WQE_DATA_OFF, &d, sizeof(d));
	}
	wr(db + HCA_DB_SQ_PI, (1u << 16) | qpn);
	for (int round = 0; round < 20; round++) {
		fwt_step(&T, 10 * SETTLE);
		fwt_loopback(&T);
	}
	CHECK(T.tx_frames >= 1, "the SEND left the port");
	/* Receive completion: 40-byte GRH area + 100 bytes, from the SRQ. */
	for (int i = 0; i < 2; i++) {
		const struct hca_cqe *cqe = &cqes[i];
		if ((cqe->owner & 1) == 1 && cqe->opcode == HCA_WC_OP_RECV) {
			found = 1;
			CHECK(cqe->status == HCA_WC_SUCCESS && cqe->byte_len == 140 && cqe->is_srq && cqe->src_qp == qpn,
			      "receive CQE: status %u len %u srq %u", cqe->status, cqe->byte_len, cqe->is_srq);
		}
	}
	CHECK(found, "receive completion in the CQ");
	CHECK(!memcmp(buf + 4096 + 40, buf, 100), "payload landed after the GRH area");
	x = eqe_at(ring, 3, 0);
	CHECK(x && x->type == HCA_EQE_TYPE_ASYNC && x->subtype == HCA_EVENT_SRQ_LIMIT_REACHED &&
	      x->element == srqn, "SRQ_LIMIT_REACHED EQE with the SRQN");
	CHECK_EQ(fwt_srq_query(&T, ctx, srq, &sa), 0, "SRQ.QUERY");
	CHECK_EQ(sa.srq_limit, 0, "limit reads 0 once fired");
	CHECK_EQ(fwt_ctx_free(&T, ctx), 0, "CONTEXT.FREE with everything in it");
	{
		struct hca_qpc qpc;
		struct hca_srqc srqc;
		struct hca_cqc cqc;
		CHECK_EQ(ctx_read(HCA_CTX_TYPE_QPC, qpn, &qpc, sizeof(qpc)), 0, "read QPC");
		CHECK_EQ(ctx_read(HCA_CTX_TYPE_SRQC, srqn, &srqc, sizeof(srqc)), 0, "read SRQC");
		CHECK_EQ(ctx_read(HCA_CTX_TYPE_CQC, cqn, &cqc, sizeof(cqc)), 0, "read CQC");
		CHECK(qpc.cur_state == HCA_QPS_RESET && !srqc.valid && !cqc.valid, "engine contexts gone");
	}
}

static void reset_with_objects(void)
{
	uint32_t ctx, pd, cq, cqn, qp, qpn;
	struct hca_qp_init_attr ia;
	struct hca_cqc cqc;

	CHECK_EQ(fwt_ctx_alloc(&T, &ctx, NULL), 0, "context");
	CHECK_EQ(fwt_pd_alloc(&T, ctx, &pd, NULL), 0, "PD");
	CHECK_EQ(fwt_cq_create(&T, ctx, 0, 3, &cq, &cqn), 0, "CQ");
	fwt_qp_init(&T, &ia, HCA_QPT_RC, 0);
	CHECK_EQ(fwt_qp_create(&T, ctx, pd, cq, cq, 0, &ia, &qp, &qpn), 0, "QP");
	CHECK_EQ(hca_devctl_bringup(T.dc, 0), 0, "reset and bring-up with objects alive");
	CHECK_EQ(ctx_read(HCA_CTX_TYPE_CQC, cqn, &cqc, sizeof(cqc)), 0, "read CQC");
	CHECK_EQ(cqc.valid, 0, "engine forgot the CQ");
	CHECK_EQ(hca_fw_count(T.fw, HCA_OBJ_QP) + hca_fw_count(T.fw, HCA_OBJ_CONTEXT), 0, "firmware forgot all");
	CHECK_EQ(fwt_pd_alloc(&T, ctx, &pd, NULL), HCA_EINVAL, "pre-reset context handle refused");
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	hca_model_engine_register();
	bringup();
	queries();
	every_object();
	cmd_done_and_msix();
	port_events();
	srq_limit_event();
	reset_with_objects();
	printf("firmware runs: %llu, cycles: %llu\n", (unsigned long long)hca_device_fw_runs(T.dev),
	       (unsigned long long)T.be.now(T.dev));
	fwt_close(&T);
	return check_done();
}
