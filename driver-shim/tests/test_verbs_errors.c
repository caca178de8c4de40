// SPDX-License-Identifier: MIT
/*
 * Bad input gets the answer libibverbs gives, and loses nothing:
 *   - invalid arguments: the errno values the verbs man pages and the
 *     kernel's uverbs checks define (EINVAL, EOPNOTSUPP, EBUSY, ENOMEM),
 *     NULL + errno for constructors, *bad_wr on the failing request;
 *   - QP state transitions outside the IB table (IB spec 10.3.1, 11.2.4.2;
 *     docs/programming.md 4.6) fail with EINVAL and leave the QP as it was;
 *   - memory protection: wrong lkey/PD, missing remote access rights;
 *   - a device DMA outside the IOMMU mappings is reported (fault log, error
 *     completion) and not performed (memory unchanged).
 */
#include <errno.h>
#include <endian.h>
#include <string.h>

#include "hcasim/hca_spec.h"

#include "shim_test.h"

static enum ibv_qp_state qstate(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return (enum ibv_qp_state)-1;
	return a.qp_state;
}

static void init_attr(struct ibv_qp_attr *a, enum ibv_qp_state s)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = s;
	a->port_num = 1;
	a->qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	a->path_mtu = IBV_MTU_1024;
	a->dest_qp_num = 2;
	a->ah_attr.is_global = 1;
	a->ah_attr.port_num = 1;
	a->ah_attr.grh.sgid_index = 1;
	a->ah_attr.grh.dgid.raw[10] = a->ah_attr.grh.dgid.raw[11] = 0xff;
	a->ah_attr.grh.dgid.raw[12] = 10;
	a->ah_attr.grh.dgid.raw[15] = 2;
	a->max_dest_rd_atomic = 1;
	a->min_rnr_timer = 1;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->max_rd_atomic = 1;
	a->qkey = 0x11111111;
}

#define M_INIT (IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)
#define M_RTR (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | \
	       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define M_RTS (IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
	       IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC)

/* Expect modify to fail with EINVAL and leave the QP in `stay`. */
static void bad_modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask, enum ibv_qp_state stay,
		       const char *what)
{
	int ret = ibv_modify_qp(qp, a, mask);

	T_EQ(ret, EINVAL, "%s: EINVAL", what);
	T_EQ(qp->state, stay, "%s: ibv_qp.state unchanged", what);
	T_EQ(qstate(qp), stay, "%s: device state unchanged", what);
}

static void test_transitions(struct t_end *e)
{
	struct ibv_qp_attr a;

	CHECK_EQ(qstate(e->qp), IBV_QPS_RESET, "new QP in RESET");
	init_attr(&a, IBV_QPS_RTR);
	bad_modify(e->qp, &a, M_RTR, IBV_QPS_RESET, "RESET->RTR (not in the table)");
	init_attr(&a, IBV_QPS_RTS);
	bad_modify(e->qp, &a, M_RTS, IBV_QPS_RESET, "RESET->RTS");
	init_attr(&a, IBV_QPS_INIT);
	bad_modify(e->qp, &a, M_INIT & ~IBV_QP_ACCESS_FLAGS, IBV_QPS_RESET,
		   "RESET->INIT without the required ACCESS_FLAGS");
	bad_modify(e->qp, &a, M_INIT | IBV_QP_QKEY, IBV_QPS_RESET,
		   "RESET->INIT with QKEY (not allowed for RC)");
	a.port_num = 2;
	bad_modify(e->qp, &a, M_INIT, IBV_QPS_RESET, "RESET->INIT to port 2");
	init_attr(&a, IBV_QPS_INIT);
	a.pkey_index = 1;
	bad_modify(e->qp, &a, M_INIT, IBV_QPS_RESET, "RESET->INIT with pkey index 1");
	init_attr(&a, IBV_QPS_INIT);
	bad_modify(e->qp, &a, M_INIT | (1 << 25), IBV_QPS_RESET, "unknown attribute mask bit");
	a.cur_qp_state = IBV_QPS_RTS;
	bad_modify(e->qp, &a, M_INIT | IBV_QP_CUR_STATE, IBV_QPS_RESET, "CUR_STATE that is not current");
	init_attr(&a, IBV_QPS_INIT);
	CHECK_EQ(ibv_modify_qp(e->qp, &a, M_INIT), 0, "RESET->INIT");
	CHECK_EQ(e->qp->state, IBV_QPS_INIT, "now INIT");

	init_attr(&a, IBV_QPS_RTR);
	bad_modify(e->qp, &a, M_RTR & ~IBV_QP_AV, IBV_QPS_INIT, "INIT->RTR without AV");
	bad_modify(e->qp, &a, M_RTR & ~IBV_QP_DEST_QPN, IBV_QPS_INIT, "INIT->RTR without DEST_QPN");
	bad_modify(e->qp, &a, M_RTR | IBV_QP_SQ_PSN, IBV_QPS_INIT, "INIT->RTR with SQ_PSN");
	a.path_mtu = (enum ibv_mtu)6;
	bad_modify(e->qp, &a, M_RTR, IBV_QPS_INIT, "INIT->RTR with path MTU 6");
	init_attr(&a, IBV_QPS_RTR);
	a.ah_attr.is_global = 0;
	bad_modify(e->qp, &a, M_RTR, IBV_QPS_INIT, "INIT->RTR without a GRH (RoCE needs one)");
	init_attr(&a, IBV_QPS_RTR);
	a.ah_attr.grh.sgid_index = 9;
	bad_modify(e->qp, &a, M_RTR, IBV_QPS_INIT, "INIT->RTR from an empty GID index");
	/* RoCEv2 over IPv6 does not exist yet: GID index 0 (fe80::...) and IPv6 dgids are refused. */
	init_attr(&a, IBV_QPS_RTR);
	a.ah_attr.grh.sgid_index = 0;
	bad_modify(e->qp, &a, M_RTR, IBV_QPS_INIT, "INIT->RTR from GID index 0 (IPv6 link-local)");
	init_attr(&a, IBV_QPS_RTR);
	memset(a.ah_attr.grh.dgid.raw, 0, 16);
	a.ah_attr.grh.dgid.raw[0] = 0xfe;
	a.ah_attr.grh.dgid.raw[1] = 0x80;
	a.ah_attr.grh.dgid.raw[11] = 0xff;
	a.ah_attr.grh.dgid.raw[12] = 0xfe;
	a.ah_attr.grh.dgid.raw[15] = 2;
	bad_modify(e->qp, &a, M_RTR, IBV_QPS_INIT, "INIT->RTR to an IPv6 destination GID");
	init_attr(&a, IBV_QPS_RTR);
	a.max_dest_rd_atomic = 200;
	bad_modify(e->qp, &a, M_RTR, IBV_QPS_INIT, "INIT->RTR with max_dest_rd_atomic 200");
	init_attr(&a, IBV_QPS_RTR);
	CHECK_EQ(ibv_modify_qp(e->qp, &a, M_RTR), 0, "INIT->RTR");

	init_attr(&a, IBV_QPS_RTS);
	bad_modify(e->qp, &a, M_RTS & ~IBV_QP_TIMEOUT, IBV_QPS_RTR, "RTR->RTS without TIMEOUT");
	a.retry_cnt = 8;
	bad_modify(e->qp, &a, M_RTS, IBV_QPS_RTR, "RTR->RTS with retry_cnt 8");
	init_attr(&a, IBV_QPS_RTS);
	a.timeout = 32;
	bad_modify(e->qp, &a, M_RTS, IBV_QPS_RTR, "RTR->RTS with timeout 32");
	init_attr(&a, IBV_QPS_RTS);
	CHECK_EQ(ibv_modify_qp(e->qp, &a, M_RTS), 0, "RTR->RTS");
	init_attr(&a, IBV_QPS_INIT);
	bad_modify(e->qp, &a, IBV_QP_STATE, IBV_QPS_RTS, "RTS->INIT (not in the table)");

	init_attr(&a, IBV_QPS_ERR);
	CHECK_EQ(ibv_modify_qp(e->qp, &a, IBV_QP_STATE), 0, "RTS->ERR");
	CHECK_EQ(qstate(e->qp), IBV_QPS_ERR, "in ERR");
	init_attr(&a, IBV_QPS_RTS);
	bad_modify(e->qp, &a, IBV_QP_STATE, IBV_QPS_ERR, "ERR->RTS (not in the table)");
	init_attr(&a, IBV_QPS_RESET);
	CHECK_EQ(ibv_modify_qp(e->qp, &a, IBV_QP_STATE), 0, "ERR->RESET");
	CHECK_EQ(qstate(e->qp), IBV_QPS_RESET, "back in RESET");
	bad_modify(e->qp, &a, 0, IBV_QPS_RESET, "empty attribute mask");
}

static void test_ud_transitions(struct t_end *e)
{
	struct ibv_qp_attr a;

	init_attr(&a, IBV_QPS_INIT);
	bad_modify(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT, IBV_QPS_RESET,
		   "UD RESET->INIT without QKEY");
	bad_modify(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY |
				      IBV_QP_ACCESS_FLAGS, IBV_QPS_RESET,
		   "UD RESET->INIT with ACCESS_FLAGS");
	CHECK_EQ(ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY),
		 0, "UD RESET->INIT");
	init_attr(&a, IBV_QPS_RTR);
	bad_modify(e->qp, &a, IBV_QP_STATE | IBV_QP_AV, IBV_QPS_INIT, "UD INIT->RTR with AV");
}

static void test_post_errors(struct t_end *a, struct t_end *b)
{
	struct ibv_sge sge[20];
	struct ibv_send_wr wr[2], *bad = NULL;
	struct ibv_recv_wr rwr, *rbad = NULL;
	struct ibv_qp_cap cap;
	int n;

	memset(sge, 0, sizeof(sge));
	for (int i = 0; i < 20; i++) {
		sge[i].addr = (uintptr_t)a->buf;
		sge[i].length = 8;
		sge[i].lkey = a->mr->lkey;
	}
	memset(wr, 0, sizeof(wr));
	wr[0].sg_list = sge;
	wr[0].num_sge = 1;
	wr[0].opcode = IBV_WR_RDMA_WRITE;
	wr[0].send_flags = IBV_SEND_SIGNALED;
	wr[0].wr.rdma.remote_addr = (uintptr_t)b->buf;
	wr[0].wr.rdma.rkey = b->mr->rkey;

	/* a's QP is in RESET here */
	CHECK_EQ(ibv_post_send(a->qp, wr, &bad), EINVAL, "post_send in RESET: EINVAL");
	CHECK(bad == wr, "bad_wr is the first request");
	if (t_connect(a, b)) {
		CHECK(0, "connect");
		return;
	}
	{
		struct ibv_qp_attr qa;
		struct ibv_qp_init_attr qia;

		ibv_query_qp(a->qp, &qa, IBV_QP_CAP, &qia);
		cap = qia.cap;
	}
	CHECK(cap.max_send_sge >= 4 && cap.max_inline_data >= 64, "caps at least as requested");
	/* too many SGEs in the second WR: the first is posted, the second named */
	wr[0].next = &wr[1];
	wr[1] = wr[0];
	wr[1].next = NULL;
	wr[1].num_sge = (int)cap.max_send_sge + 1;
	wr[1].sg_list = sge;
	bad = NULL;
	CHECK_EQ(ibv_post_send(a->qp, wr, &bad), EINVAL, "post_send with too many SGEs: EINVAL");
	CHECK(bad == &wr[1], "bad_wr names the second request");
	wr[0].next = NULL;
	{
		struct ibv_wc wc;

		CHECK_EQ(t_poll(a->cq, &wc, 1), 1, "the first request was posted and completes");
		CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 0, "it succeeded");
	}
	/* inline data longer than the QP's max_inline_data */
	{
		struct ibv_sge big = { .addr = (uintptr_t)a->buf, .length = cap.max_inline_data + 1 };
		struct ibv_send_wr w = { .sg_list = &big, .num_sge = 1, .opcode = IBV_WR_SEND,
					 .send_flags = IBV_SEND_INLINE };

		CHECK_EQ(ibv_post_send(a->qp, &w, &bad), EINVAL, "inline longer than max_inline_data");
		w.opcode = IBV_WR_RDMA_READ;
		big.length = 8;
		CHECK_EQ(ibv_post_send(a->qp, &w, &bad), EINVAL, "inline RDMA READ");
		w.send_flags = 0;
		w.opcode = (enum ibv_wr_opcode)IBV_WR_BIND_MW;
		CHECK_EQ(ibv_post_send(a->qp, &w, &bad), EINVAL, "opcode the device does not have");
	}
	/* queue full: max_send_wr outstanding, the next one ENOMEM */
	{
		struct ibv_wc wc[64];
		unsigned int posted = 0;
		int ret = 0;

		for (unsigned int i = 0; i <= cap.max_send_wr && !ret; i++) {
			struct ibv_send_wr w = { .wr_id = i, .sg_list = sge, .num_sge = 1,
						 .opcode = IBV_WR_RDMA_WRITE,
						 .send_flags = IBV_SEND_SIGNALED };

			w.wr.rdma.remote_addr = (uintptr_t)b->buf;
			w.wr.rdma.rkey = b->mr->rkey;
			ret = ibv_post_send(a->qp, &w, &bad);
			if (!ret)
				posted++;
		}
		CHECK_EQ(ret, ENOMEM, "post beyond max_send_wr: ENOMEM");
		T_EQ(posted, cap.max_send_wr, "max_send_wr (%u) requests fit", cap.max_send_wr);
		n = t_poll(a->cq, wc, (int)posted);
		T_EQ(n, posted, "all %u complete", posted);
		for (int i = 0; i < n; i++)
			if (wc[i].status != IBV_WC_SUCCESS)
				CHECK(0, "write %d: %s", i, ibv_wc_status_str(wc[i].status));
	}
	/* receives */
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = sge;
	rwr.num_sge = 17;
	CHECK_EQ(ibv_post_recv(b->qp, &rwr, &rbad), EINVAL, "post_recv with too many SGEs");
	CHECK(rbad == &rwr, "bad_wr set");

	/* a UD QP refuses RDMA */
	{
		struct t_end u = *a;
		struct ibv_qp_init_attr ia = { .send_cq = a->cq, .recv_cq = a->cq,
					       .cap = { .max_send_wr = 4, .max_recv_wr = 4,
							.max_send_sge = 1, .max_recv_sge = 1 },
					       .qp_type = IBV_QPT_UD };
		struct ibv_send_wr w = { .sg_list = sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE };

		u.qp = ibv_create_qp(a->pd, &ia);
		CHECK(u.qp != NULL, "UD QP");
		if (u.qp) {
			test_ud_transitions(&u);
			CHECK_EQ(ibv_post_send(u.qp, &w, &bad), EINVAL, "RDMA WRITE on a UD QP: EINVAL");
			CHECK_EQ(ibv_destroy_qp(u.qp), 0, "destroy UD QP");
		}
	}
}

static void test_constructors(struct t_end *e)
{
	struct ibv_device_attr da;
	struct ibv_qp_init_attr ia;
	struct ibv_port_attr pa;
	union ibv_gid gid;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_ah_attr aa;
	char buf[64];

	CHECK_EQ(ibv_query_device(e->ctx, &da), 0, "query device");
	/* a QP that was never created (a failed rdma_create_qp leaves id->qp NULL) */
	{
		struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT };

		CHECK_EQ(ibv_query_qp(NULL, &qa, IBV_QP_STATE, &ia), EINVAL, "query_qp(NULL): EINVAL");
		CHECK_EQ(ibv_modify_qp(NULL, &qa, IBV_QP_STATE), EINVAL, "modify_qp(NULL): EINVAL");
		CHECK_EQ(ibv_destroy_qp(NULL), EINVAL, "destroy_qp(NULL): EINVAL");
	}
	/* CQs: man ibv_create_cq */
	errno = 0;
	CHECK(ibv_create_cq(e->ctx, 0, NULL, NULL, 0) == NULL && errno == EINVAL, "CQ of 0 entries");
	errno = 0;
	CHECK(ibv_create_cq(e->ctx, da.max_cqe + 1, NULL, NULL, 0) == NULL && errno == EINVAL,
	      "CQ above max_cqe");
	errno = 0;
	CHECK(ibv_create_cq(e->ctx, 4, NULL, NULL, e->ctx->num_comp_vectors) == NULL &&
	      errno == EINVAL, "CQ on a completion vector that does not exist");
	cq = ibv_create_cq(e->ctx, 5, NULL, NULL, 0);
	CHECK(cq && cq->cqe >= 5, "CQ has at least the entries asked for");
	if (cq)
		CHECK_EQ(ibv_destroy_cq(cq), 0, "destroy unused CQ");
	{
		struct ibv_cq_init_attr_ex cx = { .cqe = 4, .wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP };

		errno = 0;
		CHECK(ibv_create_cq_ex(e->ctx, &cx) == NULL && errno == EOPNOTSUPP,
		      "CQ with completion timestamps: EOPNOTSUPP");
	}
	/* QPs: man ibv_create_qp */
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = e->cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = (uint32_t)da.max_qp_wr + 1;
	ia.cap.max_recv_wr = 1;
	errno = 0;
	CHECK(ibv_create_qp(e->pd, &ia) == NULL && errno == EINVAL, "QP above max_qp_wr");
	ia.cap.max_send_wr = 1;
	ia.cap.max_send_sge = (uint32_t)da.max_sge + 1;
	errno = 0;
	CHECK(ibv_create_qp(e->pd, &ia) == NULL && errno == EINVAL, "QP above max_sge");
	ia.cap.max_send_sge = 1;
	ia.send_cq = NULL;
	errno = 0;
	CHECK(ibv_create_qp(e->pd, &ia) == NULL && errno == EINVAL, "QP without a send CQ");
	ia.send_cq = e->cq;
	ia.qp_type = IBV_QPT_XRC_SEND;
	errno = 0;
	CHECK(ibv_create_qp(e->pd, &ia) == NULL && errno == EOPNOTSUPP, "XRC QP: EOPNOTSUPP");
	ia.qp_type = IBV_QPT_RC;
	{
		struct ibv_qp *qp = ibv_create_qp(e->pd, &ia);

		CHECK(qp != NULL, "small RC QP");
		if (qp) {
			CHECK(ibv_qp_to_qp_ex(qp) == NULL, "no qp_ex for a QP created without send ops");
			CHECK_EQ(ibv_destroy_cq(e->cq), EBUSY, "destroy a CQ a QP uses: EBUSY");
			CHECK_EQ(ibv_destroy_qp(qp), 0, "destroy it");
		}
	}
	/* MRs: man ibv_reg_mr */
	errno = 0;
	CHECK(ibv_reg_mr(e->pd, buf, sizeof(buf), IBV_ACCESS_REMOTE_WRITE) == NULL && errno == EINVAL,
	      "REMOTE_WRITE without LOCAL_WRITE");
	errno = 0;
	CHECK(ibv_reg_mr(e->pd, buf, sizeof(buf), IBV_ACCESS_REMOTE_ATOMIC) == NULL && errno == EINVAL,
	      "REMOTE_ATOMIC without LOCAL_WRITE");
	errno = 0;
	CHECK(ibv_reg_mr(e->pd, buf, 0, IBV_ACCESS_LOCAL_WRITE) == NULL && errno == EINVAL,
	      "MR of length 0");
	mr = ibv_reg_mr(e->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING);
	CHECK(mr != NULL, "optional access flags (relaxed ordering) are dropped, not refused");
	if (mr) {
		CHECK_EQ(ibv_dealloc_pd(e->pd), EBUSY, "dealloc a PD with an MR: EBUSY");
		CHECK_EQ(ibv_dereg_mr(mr), 0, "dereg");
	}
	mr = ibv_reg_mr_iova(e->pd, buf, sizeof(buf), 0x1000000, IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr != NULL && mr->addr == buf && mr->length == sizeof(buf), "reg_mr_iova");
	if (mr)
		ibv_dereg_mr(mr);
	errno = 0;
	CHECK(ibv_alloc_mw(e->pd, IBV_MW_TYPE_1) == NULL && errno == EOPNOTSUPP,
	      "memory windows: EOPNOTSUPP");
	/* ports, GIDs, AHs */
	CHECK_EQ(ibv_query_port(e->ctx, 0, &pa), EINVAL, "query port 0: EINVAL");
	CHECK_EQ(ibv_query_port(e->ctx, 2, &pa), EINVAL, "query port 2: EINVAL");
	CHECK_EQ(ibv_query_gid(e->ctx, 1, 5, &gid), 0, "query an empty GID entry: success");
	{
		static const uint8_t zero[16];

		CHECK(!memcmp(gid.raw, zero, 16), "empty entry reads as the zero GID");
	}
	CHECK_EQ(ibv_query_gid(e->ctx, 1, 1000, &gid), -1, "GID index beyond the table: -1");
	{
		struct ibv_gid_entry ge;

		CHECK_EQ(ibv_query_gid_ex(e->ctx, 1, 5, &ge, 0), ENODATA, "query_gid_ex of an empty entry");
		CHECK_EQ(ibv_query_gid_ex(e->ctx, 1, 1, &ge, 0), 0, "query_gid_ex of GID 1");
		CHECK_EQ(ge.gid_type, IBV_GID_TYPE_ROCE_V2, "GID 1 is RoCE v2");
		CHECK_EQ(ibv_query_gid_table(e->ctx, NULL, 0, 0), -EINVAL, "gid table into 0 entries");
	}
	{
		struct ibv_query_device_ex_input in = { .comp_mask = 1 };
		struct ibv_device_attr_ex dx;

		CHECK_EQ(ibv_query_device_ex(e->ctx, &in, &dx), EINVAL, "query_device_ex with comp_mask");
		CHECK_EQ(ibv_query_device_ex(e->ctx, NULL, &dx), 0, "query_device_ex");
		CHECK_EQ(dx.orig_attr.max_qp, da.max_qp, "extended attributes hold the basic ones");
	}
	memset(&aa, 0, sizeof(aa));
	aa.port_num = 1;
	errno = 0;
	CHECK(ibv_create_ah(e->pd, &aa) == NULL && errno == EINVAL, "AH without a GRH on RoCE");
	aa.is_global = 1;
	aa.grh.dgid.raw[10] = aa.grh.dgid.raw[11] = 0xff;
	aa.grh.dgid.raw[12] = 10;
	aa.grh.dgid.raw[15] = 2;
	errno = 0;
	CHECK(ibv_create_ah(e->pd, &aa) == NULL && errno == EINVAL, "AH from GID index 0 (IPv6)");
	aa.grh.sgid_index = 1;
	memcpy(aa.grh.dgid.raw, "\xfe\x80\0\0\0\0\0\0\0\0\x0a\xff\xfe\0\0\x02", 16);
	errno = 0;
	CHECK(ibv_create_ah(e->pd, &aa) == NULL && errno == EINVAL, "AH to an IPv6 destination GID");
	memcpy(aa.grh.dgid.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff\x0a\0\0\x02", 16);
	{
		struct ibv_ah *ah = ibv_create_ah(e->pd, &aa);

		CHECK(ah != NULL, "AH from GID index 1 to an IPv4-mapped GID");
		if (ah)
			ibv_destroy_ah(ah);
	}
	{
		__be16 pkey;

		CHECK_EQ(ibv_query_pkey(e->ctx, 1, 0, &pkey), 0, "pkey 0");
		CHECK_EQ(pkey, htobe16(0xffff), "default pkey");
		CHECK_EQ(ibv_query_pkey(e->ctx, 1, 1, &pkey), -1, "pkey 1 does not exist");
	}
	/* SRQs */
	{
		struct ibv_srq_init_attr si = { .attr = { .max_wr = 8, .max_sge = 1, .srq_limit = 8 } };
		struct ibv_srq_attr sa = { .max_wr = 64 };
		struct ibv_srq *srq;

		errno = 0;
		CHECK(ibv_create_srq(e->pd, &si) == NULL && errno == EINVAL, "SRQ limit >= max_wr");
		si.attr.srq_limit = 0;
		si.attr.max_wr = (uint32_t)da.max_srq_wr + 1;
		errno = 0;
		CHECK(ibv_create_srq(e->pd, &si) == NULL && errno == EINVAL, "SRQ above max_srq_wr");
		si.attr.max_wr = 8;
		srq = ibv_create_srq(e->pd, &si);
		CHECK(srq != NULL && si.attr.max_wr >= 8, "SRQ");
		if (srq) {
			CHECK(ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR) != 0, "SRQ resize is refused");
			sa.srq_limit = 3;
			CHECK_EQ(ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT), 0, "SRQ limit");
			CHECK_EQ(ibv_query_srq(srq, &sa), 0, "query SRQ");
			CHECK_EQ(sa.srq_limit, 3, "limit reads back");
			CHECK_EQ(ibv_destroy_srq(srq), 0, "destroy SRQ");
		}
	}
}

static void test_protection(struct t_end *a, struct t_end *b)
{
	struct ibv_wc wc[2];
	struct ibv_pd *pd2 = ibv_alloc_pd(a->ctx);
	struct ibv_mr *mr2 = pd2 ? ibv_reg_mr(pd2, a->buf, 4096, IBV_ACCESS_LOCAL_WRITE) : NULL;
	struct ibv_sge sge = { .addr = (uintptr_t)a->buf, .length = 64, .lkey = mr2 ? mr2->lkey : 0 };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED }, *bad;

	CHECK(mr2 != NULL, "MR in another PD");
	wr.wr.rdma.remote_addr = (uintptr_t)b->buf;
	wr.wr.rdma.rkey = b->mr->rkey;
	CHECK_EQ(ibv_post_send(a->qp, &wr, &bad), 0, "post WRITE gathering with another PD's lkey");
	CHECK_EQ(t_poll(a->cq, wc, 1), 1, "completion");
	T_EQ(wc[0].status, IBV_WC_LOC_PROT_ERR, "local protection error (got %s)",
	     ibv_wc_status_str(wc[0].status));
	if (mr2)
		ibv_dereg_mr(mr2);
	if (pd2)
		ibv_dealloc_pd(pd2);
}

/* The device touching memory the driver never mapped (the driver "forgot"). */
static void test_dma_fault(void)
{
	struct t_end a, b;
	struct hcasim_dma_fault f;
	struct ibv_wc wc[2];
	uint64_t n0;
	int n;

	if (t_end_open(&a, 0, 8192, 16, NULL) || t_end_open(&b, 1, 8192, 16, NULL) ||
	    t_qp_create(&a, IBV_QPT_RC, NULL) || t_qp_create(&b, IBV_QPT_RC, NULL) ||
	    t_connect(&a, &b)) {
		CHECK(0, "setup");
		return;
	}
	/* gather side: a's send buffer unmapped */
	n0 = hcasim_shim_dma_faults(a.ctx, NULL);
	CHECK_EQ(hcasim_shim_unmap_mr(a.mr), 0, "unmap a's MR behind the driver");
	{
		struct ibv_sge sge = { .addr = (uintptr_t)a.buf + 100, .length = 200, .lkey = a.mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED },
				   *bad;

		wr.wr.rdma.remote_addr = (uintptr_t)b.buf;
		wr.wr.rdma.rkey = b.mr->rkey;
		memset(b.buf, 0x5a, 8192);
		CHECK_EQ(ibv_post_send(a.qp, &wr, &bad), 0, "post WRITE from the unmapped buffer");
		n = t_poll(a.cq, wc, 1);
		CHECK_EQ(n, 1, "completion");
		T_EQ(wc[0].status, IBV_WC_LOC_PROT_ERR, "local protection error (got %s)",
		     ibv_wc_status_str(wc[0].status));
		T_EQ(wc[0].vendor_err, HCA_VENDOR_ERR_DMA_FAULT, "vendor_err DMA_FAULT");
		T_EQ(hcasim_shim_dma_faults(a.ctx, &f), n0 + 1, "one DMA fault reported");
		CHECK(f.write == 0 && f.len > 0 && f.len <= 200, "a device read of at most 200 bytes");
		CHECK(b.buf[0] == 0x5a && b.buf[199] == 0x5a, "nothing reached the target");
	}
	/* scatter side: b's receive buffer unmapped */
	n0 = hcasim_shim_dma_faults(b.ctx, NULL);
	{
		struct t_end c, d;

		if (t_end_open(&c, 0, 8192, 16, NULL) || t_end_open(&d, 1, 8192, 16, NULL) ||
		    t_qp_create(&c, IBV_QPT_RC, NULL) || t_qp_create(&d, IBV_QPT_RC, NULL) ||
		    t_connect(&c, &d)) {
			CHECK(0, "second pair");
		} else {
			struct ibv_sge rs = { .addr = (uintptr_t)d.buf, .length = 4096, .lkey = d.mr->lkey };
			struct ibv_recv_wr rw = { .wr_id = 8, .sg_list = &rs, .num_sge = 1 }, *rbad;
			struct ibv_sge ss = { .addr = (uintptr_t)c.buf, .length = 300, .lkey = c.mr->lkey };
			struct ibv_send_wr sw = { .wr_id = 9, .sg_list = &ss, .num_sge = 1,
						  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED },
					   *sbad;

			memset(d.buf, 0x3c, 8192);
			memset(c.buf, 0x11, 300);
			CHECK_EQ(ibv_post_recv(d.qp, &rw, &rbad), 0, "post recv");
			CHECK_EQ(hcasim_shim_unmap_mr(d.mr), 0, "unmap the receiver's MR");
			CHECK_EQ(hcasim_shim_unmap_mr(d.mr), ENOENT, "unmap twice: ENOENT");
			CHECK_EQ(ibv_post_send(c.qp, &sw, &sbad), 0, "send into it");
			CHECK_EQ(t_poll(c.cq, wc, 1), 1, "sender completion");
			T_EQ(wc[0].status, IBV_WC_REM_ACCESS_ERR, "sender: remote access error (got %s)",
			     ibv_wc_status_str(wc[0].status));
			CHECK_EQ(t_poll(d.cq, wc, 1), 1, "receiver completion");
			T_EQ(wc[0].status, IBV_WC_LOC_PROT_ERR, "receiver: local protection error (got %s)",
			     ibv_wc_status_str(wc[0].status));
			CHECK(hcasim_shim_dma_faults(d.ctx, &f) > n0, "receiver's IOMMU reported the fault");
			CHECK_EQ(f.write, 1, "a device write");
			CHECK(d.buf[0] == 0x3c && d.buf[299] == 0x3c && d.buf[4095] == 0x3c,
			      "no byte of the faulting write reached memory");
		}
		t_end_close(&c);
		t_end_close(&d);
	}
	t_end_close(&a);
	t_end_close(&b);
}

int main(void)
{
	struct t_end a, b;

	CHECK_EQ(hcasim_shim_configure(T_CONFIG_TWO), 0, "configure");
	CHECK_EQ(hcasim_shim_configure(T_CONFIG_TWO), 0, "configure again before first use");
	if (t_end_open(&a, 0, 64 * 1024, 256, NULL) || t_end_open(&b, 1, 64 * 1024, 256, NULL) ||
	    t_qp_create(&a, IBV_QPT_RC, NULL) || t_qp_create(&b, IBV_QPT_RC, NULL)) {
		CHECK(0, "setup: %s", strerror(errno));
		return check_done();
	}
	CHECK_EQ(hcasim_shim_configure(T_CONFIG_TWO), EBUSY, "configure after first use: EBUSY");
	test_transitions(&a);
	test_constructors(&a);
	test_post_errors(&a, &b);
	test_protection(&a, &b);
	t_end_close(&a);
	t_end_close(&b);
	test_dma_fault();
	hcasim_shim_shutdown();
	return check_done();
}
