/* SPDX-License-Identifier: MIT */
/*
 * The shim's implementations behind struct ibv_context_ops and struct
 * verbs_context (what the inline wrappers of <infiniband/verbs.h> call).
 */
#ifndef HCASIM_SHIM_OPS_H
#define HCASIM_SHIM_OPS_H

#include <infiniband/verbs.h>

/* verbs_query.c */
int shim_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr,
		    size_t attr_len);
int shim_query_device_ex(struct ibv_context *ctx, const struct ibv_query_device_ex_input *in,
			 struct ibv_device_attr_ex *attr, size_t attr_size);

/* verbs_cq.c */
int shim_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int shim_req_notify_cq(struct ibv_cq *cq, int solicited_only);
struct ibv_cq_ex *shim_create_cq_ex(struct ibv_context *ctx, struct ibv_cq_init_attr_ex *attr);

/* verbs_post.c */
int shim_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
int shim_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int shim_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);

/* verbs_qp.c */
struct ibv_qp *shim_create_qp_ex(struct ibv_context *ctx, struct ibv_qp_init_attr_ex *attr);
/* The GSI QP (QPN 1) of the device behind pd: a UD QP to the caller (cm_agent.c). */
struct ibv_qp *shim_create_gsi_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr);

/* verbs_srq.c */
int shim_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num);
struct ibv_srq *shim_create_srq_ex(struct ibv_context *ctx, struct ibv_srq_init_attr_ex *attr);

/* verbs_qpex.c: install the ibv_qp_ex work-request callbacks. */
struct shim_qp;
void shim_qpex_init(struct shim_qp *qp, uint64_t send_ops_flags);

#endif /* HCASIM_SHIM_OPS_H */
