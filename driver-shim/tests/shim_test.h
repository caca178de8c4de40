/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the shim's C tests: two simulated HCAs in one process, in
 * cooperative mode on an in-process segment, and a connected pair of QPs.
 */
#ifndef HCASIM_SHIM_TEST_H
#define HCASIM_SHIM_TEST_H

#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "hcasim_shim.h"

#define T_CONFIG_TWO                              \
	"mode = cooperative\n"                    \
	"[hcasim0]\nip = 10.0.0.1\nwire = lan\n"  \
	"[hcasim1]\nip = 10.0.0.2\nwire = lan\n"

struct t_end {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t len;
};

/* Open device `idx`, allocate PD, CQ (cqe entries, optional channel), MR over len bytes. */
int t_end_open(struct t_end *e, int idx, size_t len, int cqe, struct ibv_comp_channel **ch);
/* Create a QP of type on e (shares e->cq for both directions; srq may be NULL). */
int t_qp_create(struct t_end *e, enum ibv_qp_type type, struct ibv_srq *srq);
/* Move a, b through INIT/RTR/RTS connected to each other (gid index 1, MTU 1024). */
int t_connect(struct t_end *a, struct t_end *b);
/* Move one QP to RTS towards remote_qpn at remote_ip (RC/UC) or for UD. */
int t_qp_to_rts(struct t_end *e, uint32_t remote_qpn, uint32_t remote_ip);
/* Poll cq until n completions arrived or the simulation went idle; returns how many. */
int t_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n);
void t_end_close(struct t_end *e);



/* CHECK_EQ with a printf-style description. */
#define T_EQ(a, b, ...)                                                                \
	do {                                                                           \
		uint64_t ta_ = (uint64_t)(a), tb_ = (uint64_t)(b);                      \
		CHECK(ta_ == tb_, __VA_ARGS__);                                        \
		if (ta_ != tb_)                                                        \
			printf("    got %llu (0x%llx), want %llu (0x%llx)\n",          \
			       (unsigned long long)ta_, (unsigned long long)ta_,       \
			       (unsigned long long)tb_, (unsigned long long)tb_);      \
	} while (0)
#endif /* HCASIM_SHIM_TEST_H */
