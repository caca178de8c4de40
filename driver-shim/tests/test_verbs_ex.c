// SPDX-License-Identifier: MIT
/*
 * The extended verbs reached through the inline wrappers of
 * <infiniband/verbs.h> (struct verbs_context): ibv_create_qp_ex with send
 * ops and the ibv_wr_* work-request API, ibv_create_cq_ex with
 * start/next/end_poll, ibv_create_srq_ex and ibv_get_srq_num, and memory
 * registered at an IOVA other than its address (ibv_reg_mr_iova2): remote
 * addresses are IOVAs, local bytes land where the buffer is.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "shim_test.h"

static void test_qp_ex(void)
{
	struct t_end a, b;
	struct ibv_qp_init_attr_ex ia = { 0 };
	struct ibv_qp_ex *qx;
	struct ibv_wc wc[4];
	struct ibv_mr *rmr;
	const uint64_t iova = 0x7000000000ull;

	if (t_end_open(&a, 0, 16384, 32, NULL) || t_end_open(&b, 1, 16384, 32, NULL) ||
	    t_qp_create(&b, IBV_QPT_RC, NULL)) {
		CHECK(0, "setup");
		return;
	}
	ia.qp_type = IBV_QPT_RC;
	ia.send_cq = ia.recv_cq = a.cq;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 16;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = 32;
	/* With only a PD, the header's wrapper goes to ibv_create_qp. */
	ia.comp_mask = IBV_QP_INIT_ATTR_PD;
	ia.pd = a.pd;
	a.qp = ibv_create_qp_ex(a.ctx, &ia);
	CHECK(a.qp != NULL && a.qp->qp_type == IBV_QPT_RC && ia.cap.max_send_wr >= 16,
	      "ibv_create_qp_ex with only a PD");
	CHECK(a.qp && ibv_qp_to_qp_ex(a.qp) == NULL, "no send ops asked: no qp_ex");
	if (a.qp)
		CHECK_EQ(ibv_destroy_qp(a.qp), 0, "destroy it");
	ia.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ia.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ;
	a.qp = ibv_create_qp_ex(a.ctx, &ia);
	CHECK(a.qp != NULL, "ibv_create_qp_ex with send ops: %s", strerror(errno));
	if (!a.qp)
		return;
	qx = ibv_qp_to_qp_ex(a.qp);
	CHECK(qx != NULL && &qx->qp_base == a.qp, "ibv_qp_to_qp_ex");
	CHECK_EQ(t_connect(&a, &b), 0, "connect");

	/* b's buffer at an IOVA far from its address (reg_mr_iova2, as the
	 * ibv_reg_mr macro calls it for optional access flags). */
	rmr = ibv_reg_mr_iova2(b.pd, b.buf + 8192, 8192, iova,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	CHECK(rmr != NULL, "ibv_reg_mr_iova2");
	if (!rmr)
		return;

	/* One batch: WRITE (two SGEs) to iova+100, inline SEND, READ back. */
	for (int i = 0; i < 256; i++)
		a.buf[i] = (uint8_t)(i ^ 0x5a);
	memset(b.buf, 0, 16384);
	{
		struct ibv_sge rs = { .addr = (uintptr_t)b.buf, .length = 64, .lkey = b.mr->lkey };
		struct ibv_recv_wr rw = { .wr_id = 50, .sg_list = &rs, .num_sge = 1 }, *rbad;
		struct ibv_sge sg[2] = { { (uintptr_t)a.buf, 100, a.mr->lkey },
					 { (uintptr_t)a.buf + 100, 28, a.mr->lkey } };

		CHECK_EQ(ibv_post_recv(b.qp, &rw, &rbad), 0, "post recv");
		ibv_wr_start(qx);
		qx->wr_id = 1;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(qx, rmr->rkey, iova + 100);
		ibv_wr_set_sge_list(qx, 2, sg);
		qx->wr_id = 2;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(qx);
		ibv_wr_set_inline_data(qx, a.buf + 200, 20);
		qx->wr_id = 3;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_read(qx, rmr->rkey, iova + 100);
		ibv_wr_set_sge(qx, a.mr->lkey, (uintptr_t)a.buf + 4096, 128);
		CHECK_EQ(ibv_wr_complete(qx), 0, "ibv_wr_complete");
	}
	CHECK_EQ(t_poll(a.cq, wc, 3), 3, "three completions");
	CHECK(wc[0].wr_id == 1 && wc[1].wr_id == 2 && wc[2].wr_id == 3 &&
	      wc[0].status == IBV_WC_SUCCESS && wc[1].status == IBV_WC_SUCCESS &&
	      wc[2].status == IBV_WC_SUCCESS, "in order, successful");
	CHECK(!memcmp(b.buf + 8192 + 100, a.buf, 128), "WRITE landed at buffer + (iova offset)");
	CHECK(b.buf[8192 + 99] == 0 && b.buf[8192 + 228] == 0, "and nowhere else");
	CHECK(!memcmp(a.buf + 4096, a.buf, 128), "READ of the same IOVA brought it back");
	CHECK_EQ(t_poll(b.cq, wc, 1), 1, "inline SEND received");
	CHECK(wc[0].byte_len == 20 && !memcmp(b.buf, a.buf + 200, 20), "inline payload");

	/* A bad request poisons the batch: nothing of it is posted. */
	ibv_wr_start(qx);
	qx->wr_id = 10;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qx, rmr->rkey, iova);
	ibv_wr_set_sge(qx, a.mr->lkey, (uintptr_t)a.buf, 8);
	qx->wr_id = 11;
	ibv_wr_send(qx);
	ibv_wr_set_inline_data(qx, a.buf, 1000);	/* > max_inline_data */
	CHECK_EQ(ibv_wr_complete(qx), EINVAL, "batch with an oversized inline: EINVAL");
	CHECK_EQ(t_poll(a.cq, wc, 1), 0, "nothing of the batch was posted");
	ibv_wr_start(qx);
	qx->wr_id = 12;
	ibv_wr_rdma_write(qx, rmr->rkey, iova);
	ibv_wr_abort(qx);
	CHECK_EQ(t_poll(a.cq, wc, 1), 0, "aborted batch posts nothing");
	/* the queue still works */
	ibv_wr_start(qx);
	qx->wr_id = 13;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qx, rmr->rkey, iova);
	ibv_wr_set_sge(qx, a.mr->lkey, (uintptr_t)a.buf, 8);
	CHECK_EQ(ibv_wr_complete(qx), 0, "next batch");
	CHECK_EQ(t_poll(a.cq, wc, 1), 1, "completes");
	CHECK_EQ(wc[0].wr_id, 13, "with its own wr_id");
	ibv_dereg_mr(rmr);
	t_end_close(&a);
	t_end_close(&b);
}

static void test_cq_ex_srq_ex(void)
{
	struct t_end a, b;
	struct ibv_cq_init_attr_ex cx = { .cqe = 16,
					  .wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM |
						      IBV_WC_EX_WITH_IMM };
	struct ibv_srq_init_attr_ex sx = { .attr = { .max_wr = 8, .max_sge = 1 },
					   .comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE,
					   .srq_type = IBV_SRQT_BASIC };
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_cq_ex *cq;
	struct ibv_srq *srq;
	uint32_t srqn = 0;
	int n = 0, ret;

	if (t_end_open(&a, 0, 8192, 16, NULL) || t_end_open(&b, 1, 8192, 16, NULL)) {
		CHECK(0, "setup");
		return;
	}
	cq = ibv_create_cq_ex(b.ctx, &cx);
	CHECK(cq != NULL, "ibv_create_cq_ex");
	sx.pd = b.pd;
	srq = ibv_create_srq_ex(b.ctx, &sx);
	CHECK(srq != NULL, "ibv_create_srq_ex (basic)");
	if (!cq || !srq)
		return;
	CHECK_EQ(ibv_get_srq_num(srq, &srqn), 0, "ibv_get_srq_num");
	CHECK(srqn > 0, "SRQ number");
	/* b's QP: receives from the SRQ into the extended CQ */
	ibv_destroy_cq(b.cq);
	b.cq = ibv_cq_ex_to_cq(cq);
	if (t_qp_create(&a, IBV_QPT_RC, NULL) || t_qp_create(&b, IBV_QPT_RC, srq) ||
	    t_connect(&a, &b)) {
		CHECK(0, "QPs");
		return;
	}
	for (unsigned int i = 0; i < 3; i++) {
		struct ibv_sge rs = { .addr = (uintptr_t)b.buf + 1024 * i, .length = 1024,
				      .lkey = b.mr->lkey };
		struct ibv_recv_wr rw = { .wr_id = 70 + i, .sg_list = &rs, .num_sge = 1 }, *rbad;
		struct ibv_sge ss = { .addr = (uintptr_t)a.buf, .length = 10 + i, .lkey = a.mr->lkey };
		struct ibv_send_wr sw = { .wr_id = i, .sg_list = &ss, .num_sge = 1,
					  .opcode = IBV_WR_SEND_WITH_IMM, .imm_data = htonl(i + 1) },
				   *sbad;

		CHECK_EQ(ibv_post_srq_recv(srq, &rw, &rbad), 0, "post SRQ recv");
		CHECK_EQ(ibv_post_send(a.qp, &sw, &sbad), 0, "send");
	}
	hcasim_shim_run(0);
	ret = ibv_start_poll(cq, &pa);
	CHECK_EQ(ret, 0, "start_poll finds a completion");
	while (!ret) {
		CHECK(cq->status == IBV_WC_SUCCESS && cq->wr_id == 70u + (unsigned)n,
		      "completion %d: wr_id %lu", n, (unsigned long)cq->wr_id);
		CHECK_EQ(ibv_wc_read_opcode(cq), IBV_WC_RECV, "opcode");
		T_EQ(ibv_wc_read_byte_len(cq), 10 + n, "byte_len of completion %d", n);
		T_EQ(ibv_wc_read_imm_data(cq), htonl((uint32_t)n + 1), "imm of completion %d", n);
		CHECK_EQ(ibv_wc_read_qp_num(cq), b.qp->qp_num, "qp_num");
		CHECK(ibv_wc_read_wc_flags(cq) & IBV_WC_WITH_IMM, "WITH_IMM flag");
		n++;
		ret = ibv_next_poll(cq);
	}
	ibv_end_poll(cq);
	CHECK_EQ(ret, ENOENT, "next_poll ends with ENOENT");
	CHECK_EQ(n, 3, "three completions read");
	CHECK_EQ(ibv_start_poll(cq, &pa), ENOENT, "empty CQ: start_poll ENOENT");
	ibv_destroy_qp(b.qp);
	b.qp = NULL;
	CHECK_EQ(ibv_destroy_srq(srq), 0, "destroy SRQ");
	t_end_close(&a);
	t_end_close(&b);
}

int main(void)
{
	CHECK_EQ(hcasim_shim_configure(T_CONFIG_TWO), 0, "configure");
	test_qp_ex();
	test_cq_ex_srq_ex();
	hcasim_shim_shutdown();
	return check_done();
}
