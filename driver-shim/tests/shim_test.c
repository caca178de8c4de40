// SPDX-License-Identifier: MIT
/* Helpers for the shim's C tests: see shim_test.h. */
#include "shim_test.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int t_end_open(struct t_end *e, int idx, size_t len, int cqe, struct ibv_comp_channel **ch)
{
	struct ibv_device **list;
	int n;

	memset(e, 0, sizeof(*e));
	list = ibv_get_device_list(&n);
	if (!list || idx >= n)
		return -1;
	e->ctx = ibv_open_device(list[idx]);
	ibv_free_device_list(list);
	if (!e->ctx)
		return -1;
	e->pd = ibv_alloc_pd(e->ctx);
	if (!e->pd)
		return -1;
	if (ch) {
		*ch = ibv_create_comp_channel(e->ctx);
		if (!*ch)
			return -1;
	}
	e->cq = ibv_create_cq(e->ctx, cqe, e, ch ? *ch : NULL, 0);
	if (!e->cq)
		return -1;
	e->len = len;
	e->buf = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
	if (!e->buf)
		return -1;
	memset(e->buf, 0, len);
	e->mr = ibv_reg_mr(e->pd, e->buf, len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC);
	return e->mr ? 0 : -1;
}

int t_qp_create(struct t_end *e, enum ibv_qp_type type, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = e->cq,
		.recv_cq = e->cq,
		.srq = srq,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 4, .max_recv_sge = 4,
			 .max_inline_data = 64 },
		.qp_type = type,
	};

	e->qp = ibv_create_qp(e->pd, &ia);
	return e->qp ? 0 : -1;
}

int t_qp_to_rts(struct t_end *e, uint32_t remote_qpn, uint32_t remote_ip)
{
	struct ibv_qp_attr a;
	enum ibv_qp_type type = e->qp->qp_type;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	if (type == IBV_QPT_UD) {
		a.qkey = 0x11111111;
		ret = ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
	} else {
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;
		ret = ibv_modify_qp(e->qp, &a,
				    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	}
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (type == IBV_QPT_UD) {
		ret = ibv_modify_qp(e->qp, &a, IBV_QP_STATE);
	} else {
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = remote_qpn;
		a.rq_psn = 0x100;
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = 1;
		a.ah_attr.grh.sgid_index = 1;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.grh.dgid.raw[10] = 0xff;
		a.ah_attr.grh.dgid.raw[11] = 0xff;
		a.ah_attr.grh.dgid.raw[12] = (uint8_t)(remote_ip >> 24);
		a.ah_attr.grh.dgid.raw[13] = (uint8_t)(remote_ip >> 16);
		a.ah_attr.grh.dgid.raw[14] = (uint8_t)(remote_ip >> 8);
		a.ah_attr.grh.dgid.raw[15] = (uint8_t)remote_ip;
		if (type == IBV_QPT_RC) {
			a.max_dest_rd_atomic = 4;
			a.min_rnr_timer = 1;
			ret = ibv_modify_qp(e->qp, &a,
					    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
						    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
						    IBV_QP_MIN_RNR_TIMER);
		} else {
			ret = ibv_modify_qp(e->qp, &a,
					    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
						    IBV_QP_RQ_PSN);
		}
	}
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x100;
	if (type == IBV_QPT_RC) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 4;
		return ibv_modify_qp(e->qp, &a,
				     IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
					     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	}
	return ibv_modify_qp(e->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

static uint32_t t_ip(struct t_end *e)
{
	union ibv_gid g;

	if (ibv_query_gid(e->ctx, 1, 1, &g))
		return 0;
	return (uint32_t)g.raw[12] << 24 | (uint32_t)g.raw[13] << 16 | (uint32_t)g.raw[14] << 8 |
	       g.raw[15];
}

int t_connect(struct t_end *a, struct t_end *b)
{
	int ret = t_qp_to_rts(a, b->qp->qp_num, t_ip(b));

	return ret ? ret : t_qp_to_rts(b, a->qp->qp_num, t_ip(a));
}

int t_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	uint64_t start = hcasim_shim_now(cq->context);
	int got = 0;

	/* An empty poll steps the simulation; give up after ~0.5 s of device time. */
	while (got < n && hcasim_shim_now(cq->context) - start < (1ull << 27)) {
		int k = ibv_poll_cq(cq, n - got, wc + got);

		if (k < 0)
			return k;
		got += k;
	}
	return got;
}

void t_end_close(struct t_end *e)
{
	if (e->qp)
		ibv_destroy_qp(e->qp);
	if (e->mr)
		ibv_dereg_mr(e->mr);
	if (e->cq)
		ibv_destroy_cq(e->cq);
	if (e->pd)
		ibv_dealloc_pd(e->pd);
	if (e->ctx)
		ibv_close_device(e->ctx);
	free(e->buf);
	memset(e, 0, sizeof(*e));
}
