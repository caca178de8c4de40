/* SPDX-License-Identifier: MIT */
/*
 * Firmware test harness: a device (firmware + an engine, through
 * sim/device.c) in host memory, brought up by sim/devctl, and one helper per
 * command.  Engine-agnostic: the firmware tests use the fake engine, the
 * acceptance test (sim/tests/test_device.c) the model.
 */
#ifndef HCASIM_FW_TESTS_FW_TEST_H
#define HCASIM_FW_TESTS_FW_TEST_H

#include <stdint.h>

#include "hcasim/backend.h"
#include "hcasim/hca_spec.h"
#include "devctl.h"
#include "device.h"
#include "hostmem.h"

struct fwt {
	struct hostmem *hm;
	struct hca_backend be;		/* the device's ops (found by name) */
	struct hca_dev *dev;
	struct hca_engine *eng;
	struct hca_fw *fw;
	struct hca_devctl_sim sim;
	struct hca_devctl *dc;
	unsigned int irqs;
	unsigned int last_vector;
	unsigned int tx_frames;
	uint8_t mac[6];
	/* Frames the device sent, kept for fwt_loopback(). */
	unsigned int txq_len;
	struct { uint8_t *buf; size_t len; } txq[64];
	/* IOVA of the ring the last fwt_*_create made (EQ, CQ, SRQ). */
	uint64_t last_ring;
};

/* Create the device on `engine` (registered), bring it up. 0 or -errno. */
int fwt_open(struct fwt *t, const char *engine, const char *options);
/* Create only (no bring-up). */
int fwt_create(struct fwt *t, const char *engine, const char *options);
void fwt_close(struct fwt *t);
void fwt_step(struct fwt *t, uint64_t cycles);
/* Feed the frames the device sent back into its port; returns how many. */
unsigned int fwt_loopback(struct fwt *t);
/* Zeroed device-visible memory. */
void *fwt_mem(struct fwt *t, size_t len, uint64_t *iova);

/* One command each; return 0, the status errno, or -errno (see hca_devctl_exec). */
int fwt_ctx_alloc(struct fwt *t, uint32_t *ctx, uint32_t *uar);
int fwt_ctx_free(struct fwt *t, uint32_t ctx);
int fwt_destroy(struct fwt *t, uint32_t ctx, uint16_t obj, uint16_t method, uint32_t handle);
int fwt_pd_alloc(struct fwt *t, uint32_t ctx, uint32_t *pd, uint32_t *pdn);
int fwt_mr_reg(struct fwt *t, uint32_t ctx, uint32_t pd, uint64_t addr, uint64_t len, uint64_t dma,
	       uint32_t access, uint32_t *mr, uint32_t *lkey);
int fwt_eq_create(struct fwt *t, uint32_t ctx, uint8_t log_size, uint8_t vector, uint32_t mask,
		  uint32_t *eq, uint32_t *eqn);
int fwt_cq_create(struct fwt *t, uint32_t ctx, uint32_t eq, uint8_t log_size, uint32_t *cq,
		  uint32_t *cqn);
int fwt_srq_create(struct fwt *t, uint32_t ctx, uint32_t pd, uint32_t max_wr, uint32_t max_sge,
		   uint32_t *srq, uint32_t *srqn);
int fwt_srq_modify(struct fwt *t, uint32_t ctx, uint32_t srq, uint32_t limit, uint32_t mask);
int fwt_srq_query(struct fwt *t, uint32_t ctx, uint32_t srq, struct hca_srq_attr *out);
/* A valid init attr for a QP of `type` (rings allocated), without RQ when srq. */
void fwt_qp_init(struct fwt *t, struct hca_qp_init_attr *ia, uint8_t type, int with_srq);
int fwt_qp_create(struct fwt *t, uint32_t ctx, uint32_t pd, uint32_t scq, uint32_t rcq, uint32_t srq,
		  const struct hca_qp_init_attr *ia, uint32_t *qp, uint32_t *qpn);
int fwt_qp_modify(struct fwt *t, uint32_t ctx, uint32_t qp, const struct hca_qp_attr *a, uint32_t mask);
int fwt_qp_query(struct fwt *t, uint32_t ctx, uint32_t qp, struct hca_qp_attr *a,
		 struct hca_qp_init_attr *ia);
int fwt_set_gid(struct fwt *t, uint32_t index, int ipv6, const uint8_t *addr);

/* Fill the attributes a QP needs for a transition, with valid values. */
void fwt_qp_attr_valid(struct hca_qp_attr *a);

/* Syndrome fields of the last command. */
#define FWT_REASON(s) HCA_FIELD_GET((s), HCA_CMDQ_ENTRY_SYNDROME_REASON)
#define FWT_ATTR(s) HCA_FIELD_GET((s), HCA_CMDQ_ENTRY_SYNDROME_ATTR)

#endif
