/* SPDX-License-Identifier: MIT */
/*
 * Inside the coverage collector: the counters (cov.c) and the state the
 * decoders keep (cov_decode.c).  Nothing outside sim/cov*.c includes this.
 */
#ifndef HCASIM_SIM_COV_INT_H
#define HCASIM_SIM_COV_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "hcasim/hca_spec.h"

#define COV_NQP (1u << HCA_CAP_LOG_MAX_QP)
#define COV_NCQ (1u << HCA_CAP_LOG_MAX_CQ)
#define COV_NEQ (1u << HCA_CAP_LOG_MAX_EQ)
#define COV_NSRQ (1u << HCA_CAP_LOG_MAX_SRQ)
#define COV_NMR (1u << HCA_CAP_LOG_MAX_MR)
#define COV_CMDQ_SLOTS (1u << HCA_CMDQ_LOG_MAX_SIZE)

struct cov_qp {
	bool known;
	uint8_t type, state;
	uint32_t send_cqn, recv_cqn, srqn;
	bool use_srq;
	uint16_t uar;
	uint64_t sq_base, rq_base;
	uint8_t log_sq_size, log_sq_stride, log_rq_size, log_rq_stride;
	/* requester: PSNs sent, ACKs seen */
	bool tx_seen, in_retry, acked_valid;
	uint32_t tx_max, tx_last, acked;
	int last_nak;		/* AETH type/code of the last NAK received, -1 none */
	/* responder */
	bool rx_init, rx_seen;
	uint32_t rx_epsn, rx_last;
};

struct cov_ring {
	bool valid;
	uint64_t base;
	uint8_t log_size;
	uint16_t uar;
	uint32_t eqn;		/* CQ: its EQ */
	bool posted;		/* CQ: a WQE was posted to a QP on it since its last CQE */
	/* one entry being assembled */
	uint64_t part_addr;
	uint32_t part_mask;
	uint8_t part[HCA_CQE_SIZE];
};

struct cov_cmd {
	uint64_t in_addr;
	bool have_hdr;
	uint16_t obj, method;
};

struct cov_state {
	struct cov_qp qp[COV_NQP];
	struct cov_ring cq[COV_NCQ], eq[COV_NEQ];
	struct { bool valid; uint64_t base; uint8_t log_size, log_stride; uint16_t uar; } srq[COV_NSRQ];
	struct { bool valid; uint64_t base, len; } mr[COV_NMR];	/* MRC dma_addr, length */
	uint64_t cmdq_base;
	uint8_t cmdq_log_size;
	struct cov_cmd cmd[COV_CMDQ_SLOTS];
};

struct cov_slot;
struct cov {
	unsigned int data_w;
	struct cov_slot *slot;
	size_t cap, used;
	struct cov_state *st;	/* decoder state, allocated on first use */
};

void cov_state_free(struct cov *c);

#endif /* HCASIM_SIM_COV_INT_H */
