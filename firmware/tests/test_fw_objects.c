// SPDX-License-Identifier: MIT
/*
 * Objects through real commands on the fake engine: what each create writes
 * into the engine's context tables, EBUSY on referenced objects,
 * transactional creation (injected failures, engine write failures, output
 * faults), CONTEXT.FREE in dependency order, table exhaustion, async events,
 * GIDs, DEVICE/port queries, SRQ limit, QP/CQ/EQ parameter checks.
 */
#include <string.h>

#include "check.h"
#include "fake_engine.h"
#include "fw.h"
#include "fw_test.h"

static struct fwt T;

#define ENG(type, idx) fake_engine_ctx(T.eng, HCA_CTX_TYPE_##type, (idx))

static unsigned int ctx_handles(uint32_t ctx)
{
	return T.fw->s.ctx[ctx & 0xffff].ht.used;
}

static void creates_program_the_engine(void)
{
	uint32_t ctx, uar, pd, pdn, eq, eqn, cq, cqn, mr, lkey, mr2, lkey2, srq, srqn, qp, qpn;
	const struct hca_eqc *eqc;
	const struct hca_cqc *cqc;
	const struct hca_mrc *mrc;
	const struct hca_srqc *srqc;
	const struct hca_qpc *qpc;
	struct hca_qp_init_attr ia;

	CHECK_EQ(fwt_ctx_alloc(&T, &ctx, &uar), 0, "context");
	CHECK(uar >= 1 && uar < HCA_CAP_MAX_UAR, "UAR index %u", uar);
	CHECK_EQ(fwt_pd_alloc(&T, ctx, &pd, &pdn), 0, "PD");
	CHECK(pdn >= 1, "PDN %u", pdn);

	CHECK_EQ(fwt_eq_create(&T, ctx, 5, 3, HCA_EQ_MASK_ASYNC, &eq, &eqn), 0, "EQ");
	eqc = (const struct hca_eqc *)ENG(EQC, eqn);
	CHECK(eqn >= 1 && eqc && eqc->valid == 1 && eqc->log_size == 5 && eqc->vector == 3 && eqc->uar == uar,
	      "EQC programmed");

	CHECK_EQ(fwt_cq_create(&T, ctx, eq, 4, &cq, &cqn), 0, "CQ");
	cqc = (const struct hca_cqc *)ENG(CQC, cqn);
	CHECK(cqc && cqc->valid && cqc->log_size == 4 && cqc->eqn == eqn && cqc->uar == uar && cqc->base,
	      "CQC programmed");

	CHECK_EQ(fwt_mr_reg(&T, ctx, pd, 0x7000, 0x3000, 0x10000000, HCA_ACCESS_LOCAL_WRITE |
			    HCA_ACCESS_REMOTE_READ, &mr, &lkey), 0, "MR");
	mrc = (const struct hca_mrc *)ENG(MRC, lkey >> 8);
	CHECK(mrc && mrc->valid && mrc->key == (lkey & 0xff) && mrc->pdn == pdn && mrc->va == 0x7000 &&
	      mrc->length == 0x3000 && mrc->dma_addr == 0x10000000 &&
	      mrc->access == (HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ), "MRC programmed");
	/* Reusing the index gives another key: the old lkey goes stale. */
	CHECK_EQ(fwt_destroy(&T, ctx, HCA_OBJ_MR, HCA_METHOD_MR_DEREG, mr), 0, "dereg");
	CHECK_EQ(((const struct hca_mrc *)ENG(MRC, lkey >> 8))->valid, 0, "MRC invalid after dereg");
	CHECK_EQ(fwt_mr_reg(&T, ctx, pd, 0x7000, 0x3000, 0x10000000, 0, &mr2, &lkey2), 0, "MR again");
	CHECK(lkey2 >> 8 == lkey >> 8 && lkey2 != lkey, "same index, new key: 0x%x 0x%x", lkey, lkey2);
	CHECK_EQ(fwt_destroy(&T, ctx, HCA_OBJ_MR, HCA_METHOD_MR_DEREG, mr2), 0, "dereg 2");
	/* Verbs access rules. */
	CHECK_EQ(fwt_mr_reg(&T, ctx, pd, 0x7000, 0x1000, 0x1000, HCA_ACCESS_REMOTE_WRITE, &mr, NULL),
		 HCA_EINVAL, "remote write without local write");
	CHECK_EQ(fwt_mr_reg(&T, ctx, pd, 0x7000, 0x1000, 0x1000, HCA_ACCESS_REMOTE_ATOMIC, &mr, NULL),
		 HCA_EINVAL, "remote atomic without local write");
	CHECK_EQ(fwt_mr_reg(&T, ctx, pd, 0x7000, 0, 0x1000, 0, &mr, NULL), HCA_EINVAL, "length 0");
	CHECK_EQ(fwt_mr_reg(&T, ctx, pd, ~0ull - 10, 0x1000, 0x1000, 0, &mr, NULL), HCA_EINVAL,
		 "addr + length wraps");

	CHECK_EQ(fwt_srq_create(&T, ctx, pd, 30, 2, &srq, &srqn), 0, "SRQ");
	srqc = (const struct hca_srqc *)ENG(SRQC, srqn);
	CHECK(srqc && srqc->valid && srqc->pdn == pdn && srqc->log_size == 5 && srqc->log_stride == 6 &&
	      srqc->uar == uar && srqc->limit == 0 && !srqc->armed, "SRQC programmed, not armed");

	fwt_qp_init(&T, &ia, HCA_QPT_RC, 1);
	ia.sq_sig_all = 1;
	CHECK_EQ(fwt_qp_create(&T, ctx, pd, cq, cq, srq, &ia, &qp, &qpn), 0, "QP with SRQ");
	qpc = (const struct hca_qpc *)ENG(QPC, qpn);
	CHECK(qpn >= 2 && qpc && qpc->state == HCA_QPS_RESET && qpc->qp_type == HCA_QPT_RC &&
	      qpc->pdn == pdn && qpc->send_cqn == cqn && qpc->recv_cqn == cqn && qpc->srqn == srqn &&
	      qpc->uar == uar && qpc->log_sq_size == 4 && qpc->log_sq_stride == 7 && qpc->sq_base == ia.sq_base &&
	      qpc->rq_base == 0 && qpc->port_num == 1, "QPC programmed");
	CHECK_EQ(qpc->flags, HCA_QPC_FLAGS_SQ_SIG_ALL_MASK | HCA_QPC_FLAGS_USE_SRQ_MASK, "QPC stored flags");
	CHECK(fake_engine_qpc_flags(T.eng, qpn) & HCA_QPC_FLAGS_RESET_STATE_MASK, "RESET_STATE on create");

	/* EBUSY on everything referenced, and the objects stay. */
	CHECK_EQ(fwt_destroy(&T, ctx, HCA_OBJ_PD, HCA_METHOD_PD_FREE, pd), HCA_EBUSY, "PD with QP+SRQ");
	CHECK_EQ(fwt_destroy(&T, ctx, HCA_OBJ_CQ, HCA_METHOD_CQ_DESTROY, cq), HCA_EBUSY, "CQ with QP");
	CHECK_EQ(fwt_destroy(&T, ctx, HCA_OBJ_SRQ, HCA_METHOD_SRQ_DESTROY, srq), HCA_EBUSY, "SRQ with QP");
	CHECK_EQ(fwt_destroy(&T, ctx, HCA_OBJ_EQ, HCA_METHOD_EQ_DESTROY, eq), HCA_EBUSY, "EQ with CQ");
	CHECK(((const struct hca_cqc *)ENG(CQC, cqn))->valid && ((const struct hca_eqc *)ENG(EQC, eqn))->valid &&
	      ((const struct hca_srqc *)ENG(SRQC, srqn))->valid, "busy objects still in the engine");
	CHECK_EQ(fwt_destroy(&T, ctx, HCA_OBJ_QP, HCA_METHOD_QP_DESTROY, qp), 0, "QP destroy");
	CHECK_EQ(((const struct hca_qpc *)ENG(QPC, qpn))->qp_type, 0, "QPC cleared");
	CHECK_EQ(fwt_destroy(&T, ctx, HCA_OBJ_SRQ, HCA_METHOD_SRQ_DESTROY, srq), 0, "SRQ destroy");
	CHECK_EQ(fwt_destroy(&T, ctx, HCA_OBJ_CQ, HCA_METHOD_CQ_DESTROY, cq), 0, "CQ destroy");
	CHECK_EQ(fwt_destroy(&T, ctx, HCA_OBJ_EQ, HCA_METHOD_EQ_DESTROY, eq), 0, "EQ destroy");
	CHECK_EQ(fwt_destroy(&T, ctx, HCA_OBJ_PD, HCA_METHOD_PD_FREE, pd), 0, "PD free");
	CHECK(!((const struct hca_cqc *)ENG(CQC, cqn))->valid && !((const struct hca_eqc *)ENG(EQC, eqn))->valid &&
	      !((const struct hca_srqc *)ENG(SRQC, srqn))->valid, "engine contexts invalid");
	CHECK_EQ(ctx_handles(ctx), 0, "no handle left");
	CHECK_EQ(fwt_ctx_free(&T, ctx), 0, "context free");
	CHECK_EQ(hca_fw_check(T.fw), 0, "bookkeeping");
}

/* One create method of each kind, set up to succeed. */
enum { C_CTX, C_PD, C_MR, C_CQ, C_EQ, C_CMD_EQ, C_SRQ, C_QP, C_NUM };
static const char *const cname[C_NUM] = { "CONTEXT.ALLOC", "PD.ALLOC", "MR.REG", "CQ.CREATE",
					  "EQ.CREATE", "EQ.CREATE(CMD_DONE)", "SRQ.CREATE", "QP.CREATE" };
static const uint16_t cobj[C_NUM] = { HCA_OBJ_CONTEXT, HCA_OBJ_PD, HCA_OBJ_MR, HCA_OBJ_CQ,
				      HCA_OBJ_EQ, HCA_OBJ_EQ, HCA_OBJ_SRQ, HCA_OBJ_QP };
static const uint16_t cmeth[C_NUM] = { HCA_METHOD_CONTEXT_ALLOC, HCA_METHOD_PD_ALLOC, HCA_METHOD_MR_REG,
				       HCA_METHOD_CQ_CREATE, HCA_METHOD_EQ_CREATE, HCA_METHOD_EQ_CREATE,
				       HCA_METHOD_SRQ_CREATE, HCA_METHOD_QP_CREATE };

static int do_create(int k, uint32_t ctx, uint32_t pd, uint32_t cq, uint32_t *h, uint32_t *num)
{
	struct hca_qp_init_attr ia;

	switch (k) {
	case C_CTX: return fwt_ctx_alloc(&T, h, num);
	case C_PD: return fwt_pd_alloc(&T, ctx, h, num);
	case C_MR: return fwt_mr_reg(&T, ctx, pd, 0x1000, 0x1000, 0x2000, 0, h, num);
	case C_CQ: return fwt_cq_create(&T, ctx, 0, 3, h, num);
	case C_EQ: return fwt_eq_create(&T, ctx, 3, 0, HCA_EQ_MASK_ASYNC, h, num);
	case C_CMD_EQ: return fwt_eq_create(&T, ctx, 3, 0, HCA_EQ_MASK_CMD_DONE, h, num);
	case C_SRQ: return fwt_srq_create(&T, ctx, pd, 8, 1, h, num);
	default:
		fwt_qp_init(&T, &ia, HCA_QPT_UD, 0);
		return fwt_qp_create(&T, ctx, pd, cq, cq, 0, &ia, h, num);
	}
}

static uint32_t count_of(int k)
{
	return hca_fw_count(T.fw, k == C_CTX ? HCA_OBJ_CONTEXT : cobj[k]);
}

static void rollback(void)
{
	uint32_t ctx, pd, cq, h, num, num2;

	CHECK_EQ(fwt_ctx_alloc(&T, &ctx, NULL), 0, "context");
	CHECK_EQ(fwt_pd_alloc(&T, ctx, &pd, NULL), 0, "PD");
	CHECK_EQ(fwt_cq_create(&T, ctx, 0, 3, &cq, NULL), 0, "CQ");
	for (int k = 0; k < C_NUM; k++) {
		uint32_t before = count_of(k), handles = ctx_handles(ctx), refs = T.fw->s.pd[1].h.refcnt;
		uint32_t cq_refs = T.fw->s.cq[1].h.refcnt, log0 = fake_engine_ctx_log_len(T.eng);
		unsigned int ctxs = hca_fw_count(T.fw, HCA_OBJ_CONTEXT);

		/* The handler succeeds, then the injected failure undoes it. */
		hca_fw_inject_failure(T.fw, cobj[k], cmeth[k], HCA_EIO, 0);
		CHECK_EQ(do_create(k, ctx, pd, cq, &h, &num), HCA_EIO, cname[k]);
		hca_fw_inject_failure(T.fw, 0, 0, 0, 0);
		CHECK_EQ(count_of(k), before, "no object left");
		CHECK_EQ(ctx_handles(ctx), handles, "no handle left");
		CHECK_EQ(hca_fw_count(T.fw, HCA_OBJ_CONTEXT), ctxs, "no context left");
		CHECK_EQ(T.fw->s.pd[1].h.refcnt, refs, "PD references unchanged");
		CHECK_EQ(T.fw->s.cq[1].h.refcnt, cq_refs, "CQ references unchanged");
		CHECK_EQ(T.fw->s.cmd_eq, 0, "no command EQ left");
		CHECK_EQ(hca_fw_check(T.fw), 0, "bookkeeping after rollback");
		/* Whatever the create wrote, its last engine write invalidated it. */
		if (fake_engine_ctx_log_len(T.eng) > log0) {
			struct fake_ctx_write w = fake_engine_ctx_log(T.eng, fake_engine_ctx_log_len(T.eng) - 1);
			CHECK(w.first == 0, "%s: engine context left valid (type %u index %u)", cname[k], w.type,
			      w.index);
		}
		/* The same create now succeeds, with the number the failure gave back. */
		hca_fw_inject_failure(T.fw, cobj[k], cmeth[k], HCA_EIO, 1);	/* fail the 2nd only */
		CHECK_EQ(do_create(k, ctx, pd, cq, &h, &num2), 0, "create after rollback");
		hca_fw_inject_failure(T.fw, 0, 0, 0, 0);
		CHECK_EQ(count_of(k), before + 1, "one object");
		if (k == C_CTX)
			CHECK_EQ(fwt_ctx_free(&T, h), 0, "free");
		else
			CHECK_EQ(fwt_destroy(&T, ctx, cobj[k], k == C_PD ? HCA_METHOD_PD_FREE :
					     k == C_MR ? HCA_METHOD_MR_DEREG : k == C_QP ? HCA_METHOD_QP_DESTROY :
					     k == C_SRQ ? HCA_METHOD_SRQ_DESTROY : k == C_CQ ?
					     HCA_METHOD_CQ_DESTROY : HCA_METHOD_EQ_DESTROY, h), 0, "destroy");
	}
	/* The engine refusing the context write: EIO, nothing left. */
	{
		uint32_t before = hca_fw_count(T.fw, HCA_OBJ_CQ), handles = ctx_handles(ctx);
		fake_engine_fail_ctx_type(T.eng, HCA_CTX_TYPE_CQC);
		CHECK_EQ(fwt_cq_create(&T, ctx, 0, 3, &h, &num), HCA_EIO, "CQC write refused");
		fake_engine_fail_ctx_type(T.eng, 0);
		CHECK_EQ(hca_fw_count(T.fw, HCA_OBJ_CQ), before, "no CQ");
		CHECK_EQ(ctx_handles(ctx), handles, "no handle");
	}
	CHECK_EQ(fwt_ctx_free(&T, ctx), 0, "free");
}

static void context_free_order(void)
{
	uint32_t c1, c2, u1, u3, c3, pd[2], mr, eq[2], cq[2], srq, qp[2], pdb, cqb, qpb, qpbn;
	struct hca_qp_init_attr ia;
	struct hca_qp_attr qa;
	unsigned int log0, rank[8] = { 0 };
	int order_ok = 1, last = 0;

	CHECK_EQ(fwt_ctx_alloc(&T, &c1, &u1), 0, "context 1");
	CHECK_EQ(fwt_ctx_alloc(&T, &c2, NULL), 0, "context 2");
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(fwt_pd_alloc(&T, c1, &pd[i], NULL), 0, "PD");
		CHECK_EQ(fwt_eq_create(&T, c1, 3, 0, i ? HCA_EQ_MASK_CMD_DONE : HCA_EQ_MASK_ASYNC, &eq[i], NULL), 0, "EQ");
		CHECK_EQ(fwt_cq_create(&T, c1, eq[i], 3, &cq[i], NULL), 0, "CQ");
	}
	CHECK_EQ(fwt_mr_reg(&T, c1, pd[0], 0x1000, 0x1000, 0x1000, 0, &mr, NULL), 0, "MR");
	CHECK_EQ(fwt_srq_create(&T, c1, pd[1], 8, 1, &srq, NULL), 0, "SRQ");
	fwt_qp_init(&T, &ia, HCA_QPT_RC, 0);
	CHECK_EQ(fwt_qp_create(&T, c1, pd[0], cq[0], cq[1], 0, &ia, &qp[0], NULL), 0, "QP 1");
	fwt_qp_init(&T, &ia, HCA_QPT_UD, 1);
	CHECK_EQ(fwt_qp_create(&T, c1, pd[1], cq[1], cq[1], srq, &ia, &qp[1], NULL), 0, "QP 2");
	/* Context 2 has its own, which must survive. */
	CHECK_EQ(fwt_pd_alloc(&T, c2, &pdb, NULL), 0, "PD c2");
	CHECK_EQ(fwt_cq_create(&T, c2, 0, 3, &cqb, NULL), 0, "CQ c2");
	fwt_qp_init(&T, &ia, HCA_QPT_UC, 0);
	CHECK_EQ(fwt_qp_create(&T, c2, pdb, cqb, cqb, 0, &ia, &qpb, &qpbn), 0, "QP c2");

	log0 = fake_engine_ctx_log_len(T.eng);
	CHECK_EQ(fwt_ctx_free(&T, c1), 0, "CONTEXT.FREE with everything in it");
	/* Dependency order: QPs, SRQs, CQs, MRs, EQs (PDs have no engine context). */
	rank[HCA_CTX_TYPE_QPC] = 1;
	rank[HCA_CTX_TYPE_SRQC] = 2;
	rank[HCA_CTX_TYPE_CQC] = 3;
	rank[HCA_CTX_TYPE_MRC] = 4;
	rank[HCA_CTX_TYPE_EQC] = 5;
	for (unsigned int i = log0; i < fake_engine_ctx_log_len(T.eng); i++) {
		struct fake_ctx_write w = fake_engine_ctx_log(T.eng, i);
		int r = (int)rank[w.type];
		order_ok &= r >= last;
		last = r;
		if (w.type != HCA_CTX_TYPE_QPC)
			CHECK_EQ(w.first, 0, "teardown write invalidates");
	}
	CHECK(order_ok, "teardown in dependency order");
	CHECK_EQ(fake_engine_ctx_log_len(T.eng) - log0, 2 * 2 + 1 + 2 + 1 + 2, "one write per object (two per QP)");
	CHECK_EQ(T.fw->s.cmd_eq, 0, "command EQ gone with its context");
	CHECK_EQ(hca_fw_count(T.fw, HCA_OBJ_QP), 1, "only context 2's QP left");
	CHECK_EQ(hca_fw_count(T.fw, HCA_OBJ_PD), 1, "only context 2's PD left");
	CHECK_EQ(fwt_pd_alloc(&T, c1, &pdb, NULL), HCA_EINVAL, "freed context is dead");
	CHECK_EQ(fwt_qp_query(&T, c2, qpb, &qa, NULL), 0, "context 2 untouched");
	CHECK_EQ(((const struct hca_qpc *)ENG(QPC, qpbn))->qp_type, HCA_QPT_UC, "its engine context intact");
	/* The doorbell page went back. */
	CHECK_EQ(fwt_ctx_alloc(&T, &c3, &u3), 0, "context 3");
	CHECK_EQ(u3, u1, "doorbell page reused");
	CHECK_EQ(hca_fw_check(T.fw), 0, "bookkeeping");
	CHECK_EQ(fwt_ctx_free(&T, c3), 0, "free 3");
	CHECK_EQ(fwt_ctx_free(&T, c2), 0, "free 2");
	CHECK_EQ(hca_fw_count(T.fw, HCA_OBJ_QP) + hca_fw_count(T.fw, HCA_OBJ_PD) +
		 hca_fw_count(T.fw, HCA_OBJ_CQ) + hca_fw_count(T.fw, HCA_OBJ_CONTEXT), 0, "all gone");
}

static void exhaustion(void)
{
	struct fwt save = T;
	uint32_t ctx, h[8], n;
	struct hca_qp_init_attr ia;
	unsigned int handles;

	CHECK_EQ(fwt_open(&T, "fake", "log_max_pd=2,log_max_qp=2,max_uar=3,log_max_eq=1"), 0, "small device");
	CHECK_EQ(fwt_ctx_alloc(&T, &ctx, NULL), 0, "context 1");
	CHECK_EQ(fwt_ctx_alloc(&T, &h[0], NULL), 0, "context 2");
	CHECK_EQ(fwt_ctx_alloc(&T, &h[1], NULL), HCA_ENOMEM, "no doorbell page left");
	CHECK_EQ(hca_fw_count(T.fw, HCA_OBJ_CONTEXT), 2, "two contexts");
	handles = ctx_handles(ctx);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(fwt_pd_alloc(&T, ctx, &h[i], &n), 0, "PD");
	CHECK_EQ(n, 3, "PDN 3 is the last of 2^2");
	CHECK_EQ(fwt_pd_alloc(&T, ctx, &h[3], NULL), HCA_ENOMEM, "PD table full");
	CHECK_EQ(ctx_handles(ctx), handles + 3, "no handle from the failure");
	CHECK_EQ(fwt_eq_create(&T, ctx, 2, 0, 0, &h[4], &n), 0, "EQ");
	CHECK_EQ(n, 1, "EQN 1 (0 is never handed out)");
	CHECK_EQ(fwt_eq_create(&T, ctx, 2, 0, 0, &h[4], NULL), HCA_ENOMEM, "EQ table full");
	CHECK_EQ(fwt_cq_create(&T, ctx, 0, 2, &h[5], NULL), 0, "CQ");
	fwt_qp_init(&T, &ia, HCA_QPT_RC, 0);
	CHECK_EQ(fwt_qp_create(&T, ctx, h[0], h[5], h[5], 0, &ia, &h[6], &n), 0, "QP");
	CHECK_EQ(n, 2, "first QPN is 2");
	CHECK_EQ(fwt_qp_create(&T, ctx, h[0], h[5], h[5], 0, &ia, &h[7], &n), 0, "QP");
	CHECK_EQ(fwt_qp_create(&T, ctx, h[0], h[5], h[5], 0, &ia, &h[7], NULL), HCA_ENOMEM, "QP table full");
	{
		struct hca_cmd c;
		struct hca_device_attr da;
		hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_QUERY, 0);
		hca_cmd_out(&c, HCA_ATTR_DEVICE_QUERY_RESP, &da, sizeof(da));
		CHECK_EQ(hca_devctl_exec(T.dc, &c), 0, "DEVICE.QUERY");
		CHECK(da.max_qp == 2 && da.max_pd == 3 && da.max_eq == 1, "usable counts of a small build: %u %u %u",
		      da.max_qp, da.max_pd, da.max_eq);
	}
	CHECK_EQ(hca_fw_check(T.fw), 0, "bookkeeping");
	fwt_close(&T);
	T = save;
}

/* The EQEs injected since index `from` into `eqn`, as (subtype, element) pairs. */
static unsigned int eqes_to(unsigned int from, uint32_t eqn, uint8_t subtype, uint32_t element)
{
	unsigned int n = 0;

	for (unsigned int i = from; i < fake_engine_num_eqes(T.eng); i++) {
		const struct fake_eqe *e = fake_engine_eqe(T.eng, i);
		n += e->eqn == eqn && e->type == HCA_EQE_TYPE_ASYNC && e->subtype == subtype &&
		     e->element == element;
	}
	return n;
}

static void async_events(void)
{
	uint32_t c1, c2, c3, pd1, pd2, e1, e1n, e2, e2n, ecmd, ecmdn, cq1, cq2, cq2n, srq, srqn, qp, qpn;
	struct hca_qp_init_attr ia;
	struct hca_qp_attr a;
	unsigned int n0, dropped;

	CHECK_EQ(fwt_ctx_alloc(&T, &c1, NULL), 0, "c1");
	CHECK_EQ(fwt_ctx_alloc(&T, &c2, NULL), 0, "c2");
	CHECK_EQ(fwt_ctx_alloc(&T, &c3, NULL), 0, "c3 (no EQ)");
	CHECK_EQ(fwt_pd_alloc(&T, c1, &pd1, NULL), 0, "pd1");
	CHECK_EQ(fwt_pd_alloc(&T, c2, &pd2, NULL), 0, "pd2");
	CHECK_EQ(fwt_eq_create(&T, c1, 4, 0, HCA_EQ_MASK_ASYNC, &e1, &e1n), 0, "async EQ c1");
	CHECK_EQ(fwt_eq_create(&T, c2, 4, 1, HCA_EQ_MASK_ASYNC, &e2, &e2n), 0, "async EQ c2");
	CHECK_EQ(fwt_eq_create(&T, c2, 4, 2, HCA_EQ_MASK_CMD_DONE, &ecmd, &ecmdn), 0, "command EQ c2");
	CHECK_EQ(fwt_cq_create(&T, c1, 0, 3, &cq1, NULL), 0, "cq1");
	CHECK_EQ(fwt_cq_create(&T, c2, 0, 3, &cq2, &cq2n), 0, "cq2");
	CHECK_EQ(fwt_srq_create(&T, c1, pd1, 16, 1, &srq, &srqn), 0, "srq");
	fwt_qp_init(&T, &ia, HCA_QPT_RC, 0);
	CHECK_EQ(fwt_qp_create(&T, c1, pd1, cq1, cq1, 0, &ia, &qp, &qpn), 0, "qp");

	n0 = fake_engine_num_eqes(T.eng);
	fake_engine_event(T.eng, HCA_EVENT_QP_FATAL, qpn);
	fake_engine_event(T.eng, HCA_EVENT_COMM_EST, qpn);
	fake_engine_event(T.eng, HCA_EVENT_QP_ACCESS_ERR, qpn);
	fake_engine_event(T.eng, HCA_EVENT_QP_LAST_WQE_REACHED, qpn);
	fake_engine_event(T.eng, HCA_EVENT_CQ_ERR, cq2n);
	fake_engine_event(T.eng, HCA_EVENT_SRQ_LIMIT_REACHED, srqn);
	fake_engine_event(T.eng, HCA_EVENT_PORT_ERR, 1);
	fwt_step(&T, 1);
	CHECK_EQ(eqes_to(n0, e1n, HCA_EVENT_QP_FATAL, qpn), 1, "QP_FATAL to the owner's async EQ");
	CHECK_EQ(eqes_to(n0, e2n, HCA_EVENT_QP_FATAL, qpn), 0, "QP_FATAL not to another context");
	CHECK_EQ(eqes_to(n0, e1n, HCA_EVENT_COMM_EST, qpn), 1, "COMM_EST");
	CHECK_EQ(eqes_to(n0, e1n, HCA_EVENT_QP_ACCESS_ERR, qpn), 1, "QP_ACCESS_ERR");
	CHECK_EQ(eqes_to(n0, e1n, HCA_EVENT_QP_LAST_WQE_REACHED, qpn), 1, "LAST_WQE_REACHED");
	CHECK_EQ(eqes_to(n0, e2n, HCA_EVENT_CQ_ERR, cq2n), 1, "CQ_ERR to context 2");
	CHECK_EQ(eqes_to(n0, e1n, HCA_EVENT_SRQ_LIMIT_REACHED, srqn), 1, "SRQ_LIMIT with the SRQN");
	CHECK_EQ(eqes_to(n0, e1n, HCA_EVENT_PORT_ERR, 1) + eqes_to(n0, e2n, HCA_EVENT_PORT_ERR, 1), 2,
		 "port event to every async EQ");
	CHECK_EQ(eqes_to(n0, ecmdn, HCA_EVENT_PORT_ERR, 1), 0, "not to a CMD_DONE-only EQ");
	CHECK_EQ(fake_engine_num_eqes(T.eng) - n0, 8, "nothing else");

	/* Gone objects, unknown types, unasked SQ_DRAINED: dropped and counted. */
	dropped = hca_fw_stats(T.fw)->events_dropped;
	n0 = fake_engine_num_eqes(T.eng);
	fake_engine_event(T.eng, HCA_EVENT_QP_FATAL, 200);
	fake_engine_event(T.eng, HCA_EVENT_SQ_DRAINED, qpn);
	fake_engine_event(T.eng, 77, 1);
	fwt_step(&T, 1);
	CHECK_EQ(fake_engine_num_eqes(T.eng), n0, "nothing delivered");
	CHECK_EQ(hca_fw_stats(T.fw)->events_dropped - dropped, 2, "dropped QPN 200 and type 77");
	/* SQ_DRAINED when asked for (RTS -> SQD with EN_SQD_ASYNC_NOTIFY). */
	fwt_qp_attr_valid(&a);
	{
		uint8_t ip[4] = { 10, 0, 0, 1 };	/* IPv4-mapped: the only GIDs an AV may use */
		CHECK_EQ(fwt_set_gid(&T, 0, 0, ip), 0, "GID 0");
	}
	a.qp_state = HCA_QPS_INIT;
	CHECK_EQ(fwt_qp_modify(&T, c1, qp, &a, HCA_QP_ATTR_STATE | HCA_QP_ATTR_PKEY_INDEX | HCA_QP_ATTR_PORT |
			       HCA_QP_ATTR_ACCESS_FLAGS), 0, "INIT");
	a.qp_state = HCA_QPS_RTR;
	CHECK_EQ(fwt_qp_modify(&T, c1, qp, &a, HCA_QP_ATTR_STATE | HCA_QP_ATTR_AV | HCA_QP_ATTR_PATH_MTU |
			       HCA_QP_ATTR_DEST_QPN | HCA_QP_ATTR_RQ_PSN | HCA_QP_ATTR_MAX_DEST_RD_ATOMIC |
			       HCA_QP_ATTR_MIN_RNR_TIMER), 0, "RTR");
	a.qp_state = HCA_QPS_RTS;
	CHECK_EQ(fwt_qp_modify(&T, c1, qp, &a, HCA_QP_ATTR_STATE | HCA_QP_ATTR_SQ_PSN | HCA_QP_ATTR_TIMEOUT |
			       HCA_QP_ATTR_RETRY_CNT | HCA_QP_ATTR_RNR_RETRY | HCA_QP_ATTR_MAX_QP_RD_ATOMIC), 0, "RTS");
	a.qp_state = HCA_QPS_SQD;
	a.en_sqd_async_notify = 1;
	CHECK_EQ(fwt_qp_modify(&T, c1, qp, &a, HCA_QP_ATTR_STATE | HCA_QP_ATTR_EN_SQD_ASYNC_NOTIFY), 0, "SQD");
	CHECK(((const struct hca_qpc *)ENG(QPC, qpn))->flags & HCA_QPC_FLAGS_SQD_NOTIFY_MASK, "SQD_NOTIFY in the QPC");
	n0 = fake_engine_num_eqes(T.eng);
	fake_engine_event(T.eng, HCA_EVENT_SQ_DRAINED, qpn);
	fwt_step(&T, 1);
	CHECK_EQ(eqes_to(n0, e1n, HCA_EVENT_SQ_DRAINED, qpn), 1, "SQ_DRAINED when asked");
	a.qp_state = HCA_QPS_RTS;
	CHECK_EQ(fwt_qp_modify(&T, c1, qp, &a, HCA_QP_ATTR_STATE), 0, "back to RTS");
	CHECK(!(((const struct hca_qpc *)ENG(QPC, qpn))->flags & HCA_QPC_FLAGS_SQD_NOTIFY_MASK), "SQD_NOTIFY off in RTS");

	/* A full EQ drops the EQE and the firmware counts it. */
	dropped = hca_fw_stats(T.fw)->eqe_drops;
	fake_engine_eq_full(T.eng, e1n);
	fake_engine_event(T.eng, HCA_EVENT_QP_FATAL, qpn);
	fwt_step(&T, 1);
	fake_engine_eq_full(T.eng, 0);
	CHECK_EQ(hca_fw_stats(T.fw)->eqe_drops - dropped, 1, "EQE to a full EQ counted");

	/* Engine fatal: device FATAL, DEVICE_FATAL to every context. */
	n0 = fake_engine_num_eqes(T.eng);
	fake_engine_event(T.eng, HCA_EVENT_DEVICE_FATAL, 0);
	fwt_step(&T, 1);
	CHECK(T.be.mmio_read(T.dev, HCA_INIT_STATUS) & HCA_INIT_STATUS_FATAL_MASK, "STATUS.FATAL");
	CHECK_EQ(T.be.mmio_read(T.dev, HCA_INIT_SYNDROME), HCA_SYND_ENGINE_FATAL, "SYNDROME ENGINE_FATAL");
	CHECK_EQ(eqes_to(n0, e1n, HCA_EVENT_DEVICE_FATAL, 0) + eqes_to(n0, e2n, HCA_EVENT_DEVICE_FATAL, 0), 2,
		 "DEVICE_FATAL to every async EQ");
	CHECK_EQ(hca_devctl_bringup(T.dc, 0), 0, "reset after fatal");
}

static void gids_and_queries(void)
{
	struct hca_cmd c;
	struct hca_gid_entry ge;
	struct hca_device_attr da;
	struct hca_port_attr pa;
	const struct hca_gidc *g;
	uint8_t v4[4] = { 10, 1, 2, 3 };
	uint8_t v6[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x48, 0x43, 0xff, 0xfe, 0x00, 0x00, 0x01 };
	static const uint8_t mapped[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 1, 2, 3 };

	CHECK_EQ(fwt_set_gid(&T, 1, 0, v4), 0, "SET_GID IPv4");
	g = (const struct hca_gidc *)ENG(GIDC, 1);
	CHECK(g && !memcmp(g->gid, mapped, 16) && g->valid == 1 && g->gid_type == HCA_GID_TYPE_ROCE_V2,
	      "GIDC 1 = ::ffff:10.1.2.3, RoCEv2, valid");
	CHECK_EQ(fwt_set_gid(&T, 0, 1, v6), 0, "SET_GID IPv6");
	g = (const struct hca_gidc *)ENG(GIDC, 0);
	CHECK(g && !memcmp(g->gid, v6, 16) && g->valid, "GIDC 0 = the IPv6 address");
	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_QUERY_GID, 0);
	hca_cmd_in_u32(&c, HCA_ATTR_DEVICE_QUERY_GID_PORT_NUM, 1);
	hca_cmd_in_u32(&c, HCA_ATTR_DEVICE_QUERY_GID_INDEX, 1);
	hca_cmd_out(&c, HCA_ATTR_DEVICE_QUERY_GID_RESP, &ge, sizeof(ge));
	CHECK_EQ(hca_devctl_exec(T.dc, &c), 0, "QUERY_GID");
	CHECK(!memcmp(ge.gid, mapped, 16) && ge.valid && ge.gid_type == HCA_GID_TYPE_ROCE_V2, "QUERY_GID result");
	CHECK_EQ(fwt_set_gid(&T, HCA_CAP_GID_TBL_LEN, 0, v4), HCA_EINVAL, "index beyond the table");
	{
		uint8_t zero[16] = { 0 };
		CHECK_EQ(fwt_set_gid(&T, 2, 1, zero), HCA_EINVAL, "IPv6 unspecified address");
	}
	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_SET_GID, 0);
	hca_cmd_in_u32(&c, HCA_ATTR_DEVICE_SET_GID_PORT_NUM, 2);
	hca_cmd_in_u32(&c, HCA_ATTR_DEVICE_SET_GID_INDEX, 3);
	hca_cmd_enum(&c, HCA_ATTR_DEVICE_SET_GID_ADDR, HCA_ATTR_DEVICE_SET_GID_ADDR_IPV4, v4, 4);
	CHECK_EQ(hca_devctl_exec(T.dc, &c), HCA_EINVAL, "port 2");
	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_DEL_GID, 0);
	hca_cmd_in_u32(&c, HCA_ATTR_DEVICE_DEL_GID_PORT_NUM, 1);
	hca_cmd_in_u32(&c, HCA_ATTR_DEVICE_DEL_GID_INDEX, 1);
	CHECK_EQ(hca_devctl_exec(T.dc, &c), 0, "DEL_GID");
	CHECK_EQ(((const struct hca_gidc *)ENG(GIDC, 1))->valid, 0, "GIDC 1 invalid");

	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_QUERY, 0);
	hca_cmd_out(&c, HCA_ATTR_DEVICE_QUERY_RESP, &da, sizeof(da));
	CHECK_EQ(hca_devctl_exec(T.dc, &c), 0, "DEVICE.QUERY");
	{
		/* EUI-64 of 02:48:43:00:00:01: U/L bit flipped, ff:fe in the middle. */
		static const uint8_t guid[8] = { 0x00, 0x48, 0x43, 0xff, 0xfe, 0x00, 0x00, 0x01 };
		CHECK(!memcmp(&da.node_guid, guid, 8), "node_guid from the MAC");
		CHECK(da.sys_image_guid == da.node_guid, "sys_image_guid");
	}
	CHECK(da.fw_ver == HCA_FW_VERSION && da.vendor_id == HCA_VENDOR_ID && da.vendor_part_id == HCA_DEVICE_ID &&
	      da.hw_ver == HCA_HW_REV, "identity");
	CHECK(da.max_qp == (1u << HCA_CAP_LOG_MAX_QP) - 2 && da.max_cq == (1u << HCA_CAP_LOG_MAX_CQ) - 1 &&
	      da.max_srq == (1u << HCA_CAP_LOG_MAX_SRQ) - 1 && da.max_mr == (1u << HCA_CAP_LOG_MAX_MR) - 1 &&
	      da.max_pd == (1u << HCA_CAP_LOG_MAX_PD) - 1 && da.max_eq == (1u << HCA_CAP_LOG_MAX_EQ) - 1,
	      "table sizes");
	CHECK(da.max_qp_wr == 1u << HCA_CAP_LOG_MAX_WQE && da.max_cqe == 1u << HCA_CAP_LOG_MAX_CQE &&
	      da.max_sge == HCA_CAP_MAX_SGE && da.max_srq_sge == HCA_CAP_MAX_SGE &&
	      da.max_qp_rd_atom == HCA_CAP_MAX_RD_ATOMIC && da.max_inline_data == HCA_CAP_MAX_INLINE_DATA &&
	      da.num_comp_vectors == HCA_CAP_NUM_MSIX && da.phys_port_cnt == 1 && da.max_pkeys == 1 &&
	      da.max_msg_sz == HCA_CAP_MAX_MSG_SZ && da.atomic_cap == 1, "limits");

	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_QUERY_PORT, 0);
	hca_cmd_in_u32(&c, HCA_ATTR_DEVICE_QUERY_PORT_PORT_NUM, 1);
	hca_cmd_out(&c, HCA_ATTR_DEVICE_QUERY_PORT_RESP, &pa, sizeof(pa));
	CHECK_EQ(hca_devctl_exec(T.dc, &c), 0, "QUERY_PORT");
	CHECK(pa.state == HCA_PORT_ACTIVE && pa.link_layer == 2 && pa.gid_tbl_len == HCA_CAP_GID_TBL_LEN &&
	      pa.max_mtu == HCA_MTU_4096 && pa.active_mtu == HCA_MTU_4096 && pa.pkey_tbl_len == 1 &&
	      !memcmp(pa.mac, T.mac, 6) && pa.phys_state == 5, "port attributes");
	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_QUERY_PORT, 0);
	hca_cmd_in_u32(&c, HCA_ATTR_DEVICE_QUERY_PORT_PORT_NUM, 0);
	hca_cmd_out(&c, HCA_ATTR_DEVICE_QUERY_PORT_RESP, &pa, sizeof(pa));
	CHECK_EQ(hca_devctl_exec(T.dc, &c), HCA_EINVAL, "port 0");
}

static void srq_limit(void)
{
	uint32_t ctx, pd, srq, srqn;
	struct hca_srq_attr a;
	struct hca_srqc *s;

	CHECK_EQ(fwt_ctx_alloc(&T, &ctx, NULL), 0, "context");
	CHECK_EQ(fwt_pd_alloc(&T, ctx, &pd, NULL), 0, "PD");
	CHECK_EQ(fwt_srq_create(&T, ctx, pd, 100, 3, &srq, &srqn), 0, "SRQ");
	CHECK_EQ(fwt_srq_query(&T, ctx, srq, &a), 0, "query");
	CHECK(a.max_wr == 100 && a.max_sge == 3 && a.srq_limit == 0, "created: %u %u %u", a.max_wr, a.max_sge,
	      a.srq_limit);
	CHECK_EQ(fwt_srq_modify(&T, ctx, srq, 10, HCA_SRQ_ATTR_LIMIT), 0, "arm limit 10");
	s = (struct hca_srqc *)ENG(SRQC, srqn);
	CHECK(s->limit == 10 && s->armed, "SRQC limit armed");
	CHECK_EQ(fwt_srq_query(&T, ctx, srq, &a), 0, "query");
	CHECK_EQ(a.srq_limit, 10, "limit while armed");
	s->armed = 0;	/* the engine fired the event */
	CHECK_EQ(fwt_srq_query(&T, ctx, srq, &a), 0, "query");
	CHECK_EQ(a.srq_limit, 0, "limit after the event");
	CHECK_EQ(fwt_srq_modify(&T, ctx, srq, 10, HCA_SRQ_ATTR_MAX_WR), HCA_EOPNOTSUPP, "resize");
	CHECK_EQ(fwt_srq_modify(&T, ctx, srq, 10, HCA_SRQ_ATTR_MAX_WR | HCA_SRQ_ATTR_LIMIT), HCA_EOPNOTSUPP,
		 "resize + limit");
	CHECK_EQ(fwt_srq_modify(&T, ctx, srq, 100, HCA_SRQ_ATTR_LIMIT), HCA_EINVAL, "limit >= max_wr");
	CHECK_EQ(fwt_srq_modify(&T, ctx, srq, 1, 4), HCA_EINVAL, "unknown mask bit");
	CHECK_EQ(fwt_srq_modify(&T, ctx, srq, 0, HCA_SRQ_ATTR_LIMIT), 0, "disarm");
	CHECK(!((struct hca_srqc *)ENG(SRQC, srqn))->armed, "disarmed");
	CHECK_EQ(fwt_srq_create(&T, ctx, pd, 0, 1, &srq, NULL), HCA_EINVAL, "max_wr 0");
	CHECK_EQ(fwt_srq_create(&T, ctx, pd, 8, HCA_CAP_MAX_SGE + 1, &srq, NULL), HCA_EINVAL, "max_sge");
	CHECK_EQ(fwt_ctx_free(&T, ctx), 0, "free");
}

static int qp_create_with(uint32_t ctx, uint32_t pd, uint32_t cq, uint32_t srq, struct hca_qp_init_attr *ia)
{
	uint32_t qp;
	int rc = fwt_qp_create(&T, ctx, pd, cq, cq, srq, ia, &qp, NULL);

	if (!rc)
		fwt_destroy(&T, ctx, HCA_OBJ_QP, HCA_METHOD_QP_DESTROY, qp);
	return rc;
}

static void create_checks(void)
{
	uint32_t ctx, pd, cq, srq, eq;
	struct hca_qp_init_attr ia;
	struct hca_qp_attr qa;
	struct hca_qp_init_attr qi;
	uint32_t qp, qpn;

	CHECK_EQ(fwt_ctx_alloc(&T, &ctx, NULL), 0, "context");
	CHECK_EQ(fwt_pd_alloc(&T, ctx, &pd, NULL), 0, "PD");
	CHECK_EQ(fwt_cq_create(&T, ctx, 0, 4, &cq, NULL), 0, "CQ");
	CHECK_EQ(fwt_srq_create(&T, ctx, pd, 8, 1, &srq, NULL), 0, "SRQ");

	fwt_qp_init(&T, &ia, 8, 0);
	CHECK_EQ(qp_create_with(ctx, pd, cq, 0, &ia), HCA_EOPNOTSUPP, "QP type 8 (RAW_PACKET/unsupported)");
	fwt_qp_init(&T, &ia, 0, 0);
	CHECK_EQ(qp_create_with(ctx, pd, cq, 0, &ia), HCA_EOPNOTSUPP, "QP type 0 (SMI/unsupported)");
	fwt_qp_init(&T, &ia, HCA_QPT_RC, 0);
	ia.max_send_wr = 17;
	CHECK_EQ(qp_create_with(ctx, pd, cq, 0, &ia), HCA_EINVAL, "max_send_wr > 2^log_sq_size");
	fwt_qp_init(&T, &ia, HCA_QPT_RC, 0);
	ia.log_sq_stride = 6;
	CHECK_EQ(qp_create_with(ctx, pd, cq, 0, &ia), HCA_EINVAL, "SQ stride too small for inline 64");
	fwt_qp_init(&T, &ia, HCA_QPT_RC, 0);
	ia.max_inline_data = HCA_CAP_MAX_INLINE_DATA + 1;
	ia.log_sq_stride = 9;
	CHECK_EQ(qp_create_with(ctx, pd, cq, 0, &ia), HCA_EINVAL, "inline above the cap");
	fwt_qp_init(&T, &ia, HCA_QPT_RC, 0);
	ia.max_send_sge = HCA_CAP_MAX_SGE + 1;
	ia.log_sq_stride = 9;
	CHECK_EQ(qp_create_with(ctx, pd, cq, 0, &ia), HCA_EINVAL, "max_send_sge above the cap");
	fwt_qp_init(&T, &ia, HCA_QPT_RC, 0);
	ia.log_sq_size = HCA_CAP_LOG_MAX_WQE + 1;
	CHECK_EQ(qp_create_with(ctx, pd, cq, 0, &ia), HCA_EINVAL, "log_sq_size above LOG_MAX_WQE");
	fwt_qp_init(&T, &ia, HCA_QPT_RC, 0);
	ia.sq_base += 64;
	CHECK_EQ(qp_create_with(ctx, pd, cq, 0, &ia), HCA_EINVAL, "SQ base not stride-aligned");
	fwt_qp_init(&T, &ia, HCA_QPT_RC, 0);
	ia.max_recv_sge = 2;
	CHECK_EQ(qp_create_with(ctx, pd, cq, 0, &ia), HCA_EINVAL, "RQ stride too small for 2 SGEs");
	fwt_qp_init(&T, &ia, HCA_QPT_RC, 0);
	CHECK_EQ(qp_create_with(ctx, pd, cq, srq, &ia), HCA_EINVAL, "RQ parameters with an SRQ");
	fwt_qp_init(&T, &ia, HCA_QPT_RC, 0);
	ia.sq_sig_all = 2;
	CHECK_EQ(qp_create_with(ctx, pd, cq, 0, &ia), HCA_EINVAL, "sq_sig_all 2");
	fwt_qp_init(&T, &ia, HCA_QPT_UC, 1);
	CHECK_EQ(qp_create_with(ctx, pd, cq, srq, &ia), 0, "UC with SRQ");
	fwt_qp_init(&T, &ia, HCA_QPT_RC, 0);
	ia.log_sq_stride = 8;	/* larger than the minimum is fine */
	CHECK_EQ(qp_create_with(ctx, pd, cq, 0, &ia), 0, "larger stride");

	/* QUERY: attributes, the init attributes as created, the engine's state. */
	fwt_qp_init(&T, &ia, HCA_QPT_UD, 0);
	CHECK_EQ(fwt_qp_create(&T, ctx, pd, cq, cq, 0, &ia, &qp, &qpn), 0, "UD QP");
	CHECK_EQ(fwt_qp_query(&T, ctx, qp, &qa, &qi), 0, "query");
	CHECK(!memcmp(&qi, &ia, sizeof(ia)), "init attributes as created");
	CHECK(qa.qp_state == HCA_QPS_RESET && qa.path_mtu == HCA_MTU_4096 && qa.port_num == 1, "UD defaults");
	((struct hca_qpc *)ENG(QPC, qpn))->cur_state = HCA_QPS_ERR;
	CHECK_EQ(fwt_qp_query(&T, ctx, qp, &qa, NULL), 0, "query");
	CHECK(qa.qp_state == HCA_QPS_ERR && qa.cur_qp_state == HCA_QPS_ERR, "state as the engine reports it");

	/* CQ and EQ parameters. */
	{
		struct hca_cmd c;
		struct hca_cq_init_attr ci;
		struct hca_cq_create_resp cr;
		uint32_t h;
		uint64_t base;

		fwt_mem(&T, 4096, &base);
		struct { uint8_t log; uint32_t cqe; uint64_t base; const char *what; } bad[] = {
			{ HCA_CAP_LOG_MAX_CQE + 1, 1, base, "CQ log_size above the cap" },
			{ 3, 0, base, "cqe 0" },
			{ 3, 9, base, "cqe > 2^log_size" },
			{ 3, 8, base + 16, "CQ base not 32-byte aligned" },
		};
		for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			memset(&ci, 0, sizeof(ci));
			ci.log_size = bad[i].log;
			ci.cqe = bad[i].cqe;
			ci.base = bad[i].base;
			hca_cmd_init(&c, HCA_OBJ_CQ, HCA_METHOD_CQ_CREATE, ctx);
			hca_cmd_idr_new(&c, HCA_ATTR_CQ_CREATE_HANDLE, &h);
			hca_cmd_in(&c, HCA_ATTR_CQ_CREATE_INIT_ATTR, &ci, sizeof(ci));
			hca_cmd_out(&c, HCA_ATTR_CQ_CREATE_RESP, &cr, sizeof(cr));
			CHECK_EQ(hca_devctl_exec(T.dc, &c), HCA_EINVAL, bad[i].what);
		}
	}
	CHECK_EQ(fwt_eq_create(&T, ctx, 3, HCA_CAP_NUM_MSIX, HCA_EQ_MASK_ASYNC, &eq, NULL), HCA_EINVAL, "vector");
	CHECK_EQ(fwt_eq_create(&T, ctx, 3, 0, 4, &eq, NULL), HCA_EINVAL, "unknown event mask bit");
	CHECK_EQ(fwt_eq_create(&T, ctx, HCA_CAP_LOG_MAX_EQE + 1, 0, 0, &eq, NULL), HCA_EINVAL, "EQ log_size");
	CHECK_EQ(fwt_ctx_free(&T, ctx), 0, "free");
	CHECK_EQ(hca_fw_check(T.fw), 0, "bookkeeping");
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	fake_engine_register();
	CHECK_EQ(fwt_open(&T, "fake", NULL), 0, "open");
	creates_program_the_engine();
	rollback();
	context_free_order();
	exhaustion();
	async_events();
	gids_and_queries();
	srq_limit();
	create_checks();
	fwt_close(&T);
	return check_done();
}
