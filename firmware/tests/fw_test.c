// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fw_test.h"

static int host_dma_read(void *ctx, uint64_t iova, void *buf, size_t len)
{
	struct fwt *t = ctx;
	return hostmem_dma_read(t->hm, iova, buf, len);
}

static int host_dma_write(void *ctx, uint64_t iova, const void *buf, size_t len)
{
	struct fwt *t = ctx;
	return hostmem_dma_write(t->hm, iova, buf, len);
}

static void host_tx(void *ctx, const uint8_t *frame, size_t len)
{
	struct fwt *t = ctx;

	t->tx_frames++;
	if (t->txq_len < sizeof(t->txq) / sizeof(t->txq[0])) {
		t->txq[t->txq_len].buf = malloc(len);
		if (t->txq[t->txq_len].buf) {
			memcpy(t->txq[t->txq_len].buf, frame, len);
			t->txq[t->txq_len++].len = len;
		}
	}
}

static void host_irq(void *ctx, unsigned int vector)
{
	struct fwt *t = ctx;
	t->irqs++;
	t->last_vector = vector;
}

static const struct hca_host_ops host_ops = {
	.dma_read = host_dma_read,
	.dma_write = host_dma_write,
	.tx_frame = host_tx,
	.interrupt = host_irq,
};

int fwt_create(struct fwt *t, const char *engine, const char *options)
{
	struct hca_dev_config cfg;
	const struct hca_backend *be;
	struct hca_devctl_bus bus;
	int rc;

	memset(t, 0, sizeof(*t));
	t->hm = hostmem_create();
	if (!t->hm)
		return -ENOMEM;
	rc = hca_device_register(engine);
	if (rc)
		return rc;
	be = hca_backend_find(engine);
	if (!be)
		return -ENOENT;
	t->be = *be;
	memset(&cfg, 0, sizeof(cfg));
	memcpy(cfg.mac, (const uint8_t[]){ 0x02, 0x48, 0x43, 0x00, 0x00, 0x01 }, 6);
	memcpy(t->mac, cfg.mac, 6);
	cfg.seed = 1;
	cfg.options = options;
	rc = t->be.create(&cfg, &host_ops, t, &t->dev);
	if (rc)
		return rc;
	t->eng = hca_device_engine(t->dev);
	t->fw = hca_device_fw(t->dev);
	t->sim.be = &t->be;
	t->sim.dev = t->dev;
	t->sim.hm = t->hm;
	hca_devctl_sim_bus(&t->sim, &bus);
	return hca_devctl_open(&bus, &t->dc);
}

int fwt_open(struct fwt *t, const char *engine, const char *options)
{
	int rc = fwt_create(t, engine, options);

	return rc ? rc : hca_devctl_bringup(t->dc, 0);
}

unsigned int fwt_loopback(struct fwt *t)
{
	unsigned int n = t->txq_len;

	for (unsigned int i = 0; i < n; i++) {
		t->be.rx_frame(t->dev, t->txq[i].buf, t->txq[i].len);
		free(t->txq[i].buf);
	}
	t->txq_len = 0;
	return n;
}

void fwt_close(struct fwt *t)
{
	for (unsigned int i = 0; i < t->txq_len; i++)
		free(t->txq[i].buf);
	hca_devctl_close(t->dc);
	if (t->dev)
		t->be.destroy(t->dev);
	if (t->hm)
		hostmem_destroy(t->hm);
	memset(t, 0, sizeof(*t));
}

void fwt_step(struct fwt *t, uint64_t cycles)
{
	t->be.advance(t->dev, cycles);
}

void *fwt_mem(struct fwt *t, size_t len, uint64_t *iova)
{
	return hostmem_alloc(t->hm, len, iova);
}

int fwt_ctx_alloc(struct fwt *t, uint32_t *ctx, uint32_t *uar)
{
	struct hca_cmd c;
	uint32_t u = 0;

	hca_cmd_init(&c, HCA_OBJ_CONTEXT, HCA_METHOD_CONTEXT_ALLOC, 0);
	hca_cmd_idr_new(&c, HCA_ATTR_CONTEXT_ALLOC_HANDLE, ctx);
	hca_cmd_out(&c, HCA_ATTR_CONTEXT_ALLOC_UAR_INDEX, uar ? uar : &u, 4);
	return hca_devctl_exec(t->dc, &c);
}

int fwt_ctx_free(struct fwt *t, uint32_t ctx)
{
	return fwt_destroy(t, ctx, HCA_OBJ_CONTEXT, HCA_METHOD_CONTEXT_FREE, ctx);
}

int fwt_destroy(struct fwt *t, uint32_t ctx, uint16_t obj, uint16_t method, uint32_t handle)
{
	struct hca_cmd c;

	hca_cmd_init(&c, obj, method, ctx);
	hca_cmd_idr(&c, 0, handle);	/* HANDLE is attribute 0 of every destroy method */
	return hca_devctl_exec(t->dc, &c);
}

int fwt_pd_alloc(struct fwt *t, uint32_t ctx, uint32_t *pd, uint32_t *pdn)
{
	struct hca_cmd c;
	uint32_t n;

	hca_cmd_init(&c, HCA_OBJ_PD, HCA_METHOD_PD_ALLOC, ctx);
	hca_cmd_idr_new(&c, HCA_ATTR_PD_ALLOC_HANDLE, pd);
	hca_cmd_out(&c, HCA_ATTR_PD_ALLOC_PDN, pdn ? pdn : &n, 4);
	return hca_devctl_exec(t->dc, &c);
}

int fwt_mr_reg(struct fwt *t, uint32_t ctx, uint32_t pd, uint64_t addr, uint64_t len, uint64_t dma,
	       uint32_t access, uint32_t *mr, uint32_t *lkey)
{
	struct hca_cmd c;
	uint32_t l, r;

	hca_cmd_init(&c, HCA_OBJ_MR, HCA_METHOD_MR_REG, ctx);
	hca_cmd_idr_new(&c, HCA_ATTR_MR_REG_HANDLE, mr);
	hca_cmd_idr(&c, HCA_ATTR_MR_REG_PD, pd);
	hca_cmd_in_u64(&c, HCA_ATTR_MR_REG_ADDR, addr);
	hca_cmd_in_u64(&c, HCA_ATTR_MR_REG_LENGTH, len);
	hca_cmd_in_u64(&c, HCA_ATTR_MR_REG_DMA_ADDR, dma);
	hca_cmd_in_u32(&c, HCA_ATTR_MR_REG_ACCESS, access);
	hca_cmd_out(&c, HCA_ATTR_MR_REG_LKEY, lkey ? lkey : &l, 4);
	hca_cmd_out(&c, HCA_ATTR_MR_REG_RKEY, &r, 4);
	return hca_devctl_exec(t->dc, &c);
}

int fwt_eq_create(struct fwt *t, uint32_t ctx, uint8_t log_size, uint8_t vector, uint32_t mask,
		  uint32_t *eq, uint32_t *eqn)
{
	struct hca_eq_init_attr ia;
	struct hca_eq_create_resp resp;
	struct hca_cmd c;
	int rc;

	memset(&ia, 0, sizeof(ia));
	ia.log_size = log_size;
	ia.vector = vector;
	ia.event_mask = mask;
	if (!fwt_mem(t, (size_t)HCA_EQE_SIZE << log_size, &ia.base))
		return -ENOMEM;
	t->last_ring = ia.base;
	hca_cmd_init(&c, HCA_OBJ_EQ, HCA_METHOD_EQ_CREATE, ctx);
	hca_cmd_idr_new(&c, HCA_ATTR_EQ_CREATE_HANDLE, eq);
	hca_cmd_in(&c, HCA_ATTR_EQ_CREATE_INIT_ATTR, &ia, sizeof(ia));
	hca_cmd_out(&c, HCA_ATTR_EQ_CREATE_RESP, &resp, sizeof(resp));
	rc = hca_devctl_exec(t->dc, &c);
	if (!rc && eqn)
		*eqn = resp.eqn;
	return rc;
}

int fwt_cq_create(struct fwt *t, uint32_t ctx, uint32_t eq, uint8_t log_size, uint32_t *cq,
		  uint32_t *cqn)
{
	struct hca_cq_init_attr ia;
	struct hca_cq_create_resp resp;
	struct hca_cmd c;
	int rc;

	memset(&ia, 0, sizeof(ia));
	ia.log_size = log_size;
	ia.cqe = 1u << log_size;
	if (!fwt_mem(t, (size_t)HCA_CQE_SIZE << log_size, &ia.base))
		return -ENOMEM;
	t->last_ring = ia.base;
	hca_cmd_init(&c, HCA_OBJ_CQ, HCA_METHOD_CQ_CREATE, ctx);
	hca_cmd_idr_new(&c, HCA_ATTR_CQ_CREATE_HANDLE, cq);
	hca_cmd_in(&c, HCA_ATTR_CQ_CREATE_INIT_ATTR, &ia, sizeof(ia));
	if (eq)
		hca_cmd_idr(&c, HCA_ATTR_CQ_CREATE_EQ, eq);
	hca_cmd_out(&c, HCA_ATTR_CQ_CREATE_RESP, &resp, sizeof(resp));
	rc = hca_devctl_exec(t->dc, &c);
	if (!rc && cqn)
		*cqn = resp.cqn;
	return rc;
}

static uint8_t log2_ceil(uint32_t v)
{
	uint8_t l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

int fwt_srq_create(struct fwt *t, uint32_t ctx, uint32_t pd, uint32_t max_wr, uint32_t max_sge,
		   uint32_t *srq, uint32_t *srqn)
{
	struct hca_srq_init_attr ia;
	struct hca_srq_create_resp resp;
	struct hca_cmd c;
	int rc;

	memset(&ia, 0, sizeof(ia));
	ia.max_wr = max_wr;
	ia.max_sge = max_sge;
	ia.log_size = log2_ceil(max_wr);
	ia.log_stride = log2_ceil(HCA_WQE_RECV_HDR_SIZE + HCA_WQE_DATA_SEG_SIZE * max_sge);
	if (ia.log_stride < HCA_WQE_LOG_MIN_RQ_STRIDE)
		ia.log_stride = HCA_WQE_LOG_MIN_RQ_STRIDE;
	if (!fwt_mem(t, (size_t)1 << (ia.log_size + ia.log_stride), &ia.base))
		return -ENOMEM;
	t->last_ring = ia.base;
	hca_cmd_init(&c, HCA_OBJ_SRQ, HCA_METHOD_SRQ_CREATE, ctx);
	hca_cmd_idr_new(&c, HCA_ATTR_SRQ_CREATE_HANDLE, srq);
	hca_cmd_idr(&c, HCA_ATTR_SRQ_CREATE_PD, pd);
	hca_cmd_in(&c, HCA_ATTR_SRQ_CREATE_INIT_ATTR, &ia, sizeof(ia));
	hca_cmd_out(&c, HCA_ATTR_SRQ_CREATE_RESP, &resp, sizeof(resp));
	rc = hca_devctl_exec(t->dc, &c);
	if (!rc && srqn)
		*srqn = resp.srqn;
	return rc;
}

int fwt_srq_modify(struct fwt *t, uint32_t ctx, uint32_t srq, uint32_t limit, uint32_t mask)
{
	struct hca_srq_attr a;
	struct hca_cmd c;

	memset(&a, 0, sizeof(a));
	a.srq_limit = limit;
	hca_cmd_init(&c, HCA_OBJ_SRQ, HCA_METHOD_SRQ_MODIFY, ctx);
	hca_cmd_idr(&c, HCA_ATTR_SRQ_MODIFY_HANDLE, srq);
	hca_cmd_in(&c, HCA_ATTR_SRQ_MODIFY_ATTR, &a, sizeof(a));
	hca_cmd_in_u32(&c, HCA_ATTR_SRQ_MODIFY_ATTR_MASK, mask);
	return hca_devctl_exec(t->dc, &c);
}

int fwt_srq_query(struct fwt *t, uint32_t ctx, uint32_t srq, struct hca_srq_attr *out)
{
	struct hca_cmd c;

	hca_cmd_init(&c, HCA_OBJ_SRQ, HCA_METHOD_SRQ_QUERY, ctx);
	hca_cmd_idr(&c, HCA_ATTR_SRQ_QUERY_HANDLE, srq);
	hca_cmd_out(&c, HCA_ATTR_SRQ_QUERY_ATTR, out, sizeof(*out));
	return hca_devctl_exec(t->dc, &c);
}

void fwt_qp_init(struct fwt *t, struct hca_qp_init_attr *ia, uint8_t type, int with_srq)
{
	memset(ia, 0, sizeof(*ia));
	ia->qp_type = type;
	ia->max_send_wr = 16;
	ia->max_send_sge = 2;
	ia->max_inline_data = 64;
	ia->log_sq_size = 4;
	ia->log_sq_stride = 7;	/* 64 + 16 * max(2, 4) = 128 */
	fwt_mem(t, (size_t)1 << (4 + 7), &ia->sq_base);
	if (!with_srq) {
		ia->max_recv_wr = 16;
		ia->max_recv_sge = 1;
		ia->log_rq_size = 4;
		ia->log_rq_stride = 5;	/* 16 + 16 * 1 = 32 */
		fwt_mem(t, (size_t)1 << (4 + 5), &ia->rq_base);
	}
}

int fwt_qp_create(struct fwt *t, uint32_t ctx, uint32_t pd, uint32_t scq, uint32_t rcq, uint32_t srq,
		  const struct hca_qp_init_attr *ia, uint32_t *qp, uint32_t *qpn)
{
	struct hca_qp_create_resp resp;
	struct hca_cmd c;
	int rc;

	hca_cmd_init(&c, HCA_OBJ_QP, HCA_METHOD_QP_CREATE, ctx);
	hca_cmd_idr_new(&c, HCA_ATTR_QP_CREATE_HANDLE, qp);
	hca_cmd_idr(&c, HCA_ATTR_QP_CREATE_PD, pd);
	hca_cmd_idr(&c, HCA_ATTR_QP_CREATE_SEND_CQ, scq);
	hca_cmd_idr(&c, HCA_ATTR_QP_CREATE_RECV_CQ, rcq);
	if (srq)
		hca_cmd_idr(&c, HCA_ATTR_QP_CREATE_SRQ, srq);
	hca_cmd_in(&c, HCA_ATTR_QP_CREATE_INIT_ATTR, ia, sizeof(*ia));
	hca_cmd_out(&c, HCA_ATTR_QP_CREATE_RESP, &resp, sizeof(resp));
	rc = hca_devctl_exec(t->dc, &c);
	if (!rc && qpn)
		*qpn = resp.qpn;
	return rc;
}

int fwt_qp_modify(struct fwt *t, uint32_t ctx, uint32_t qp, const struct hca_qp_attr *a, uint32_t mask)
{
	struct hca_cmd c;

	hca_cmd_init(&c, HCA_OBJ_QP, HCA_METHOD_QP_MODIFY, ctx);
	hca_cmd_idr(&c, HCA_ATTR_QP_MODIFY_HANDLE, qp);
	hca_cmd_in(&c, HCA_ATTR_QP_MODIFY_ATTR, a, sizeof(*a));
	hca_cmd_in_u32(&c, HCA_ATTR_QP_MODIFY_ATTR_MASK, mask);
	return hca_devctl_exec(t->dc, &c);
}

int fwt_qp_query(struct fwt *t, uint32_t ctx, uint32_t qp, struct hca_qp_attr *a,
		 struct hca_qp_init_attr *ia)
{
	struct hca_cmd c;

	hca_cmd_init(&c, HCA_OBJ_QP, HCA_METHOD_QP_QUERY, ctx);
	hca_cmd_idr(&c, HCA_ATTR_QP_QUERY_HANDLE, qp);
	hca_cmd_out(&c, HCA_ATTR_QP_QUERY_ATTR, a, sizeof(*a));
	if (ia)
		hca_cmd_out(&c, HCA_ATTR_QP_QUERY_INIT_ATTR, ia, sizeof(*ia));
	return hca_devctl_exec(t->dc, &c);
}

int fwt_set_gid(struct fwt *t, uint32_t index, int ipv6, const uint8_t *addr)
{
	struct hca_cmd c;

	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_SET_GID, 0);
	hca_cmd_in_u32(&c, HCA_ATTR_DEVICE_SET_GID_PORT_NUM, 1);
	hca_cmd_in_u32(&c, HCA_ATTR_DEVICE_SET_GID_INDEX, index);
	if (ipv6)
		hca_cmd_enum(&c, HCA_ATTR_DEVICE_SET_GID_ADDR, HCA_ATTR_DEVICE_SET_GID_ADDR_IPV6, addr, 16);
	else
		hca_cmd_enum(&c, HCA_ATTR_DEVICE_SET_GID_ADDR, HCA_ATTR_DEVICE_SET_GID_ADDR_IPV4, addr, 4);
	return hca_devctl_exec(t->dc, &c);
}

void fwt_qp_attr_valid(struct hca_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->port_num = 1;
	a->pkey_index = 0;
	a->qkey = 0x11111111;
	a->qp_access_flags = HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_READ;
	a->path_mtu = HCA_MTU_1024;
	a->dest_qp_num = 0x12;
	a->rq_psn = 0x100;
	a->sq_psn = 0x200;
	a->max_dest_rd_atomic = 4;
	a->max_rd_atomic = 4;
	a->min_rnr_timer = 12;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->is_global = 1;
	a->sgid_index = 0;
	a->hop_limit = 64;
	a->dgid[10] = 0xff;
	a->dgid[11] = 0xff;
	a->dgid[12] = 10;
	a->dgid[15] = 2;
	a->dmac[0] = 0x02;
	a->dmac[5] = 0x02;
}
