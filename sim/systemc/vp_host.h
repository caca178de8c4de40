/* SPDX-License-Identifier: MIT */
/*
 * The driver one "CPU" of the example virtual platform runs (C, over the
 * existing host side: sim/devctl for bring-up and the command queue, the
 * per-command helpers of firmware/tests/fw_test.h, the WQE/CQE/EQE layouts
 * of hca_spec.h).  The platform gives it BAR0 accesses, time and MSI
 * delivery (struct vp_host_ops: a sim/devctl bus plus MSI waits) and the
 * memory it shares with the device (a hostmem: the CPU reads and writes
 * host buffers directly, the device through its DMA port and the IOMMU;
 * the bus's dma_alloc must allocate in that hostmem).
 *
 *   vp_host_open     reset + bring-up, GID, context, MSI-X vector, EQ, CQ,
 *                    PD, one MR over a host buffer, one RC QP
 *   vp_host_connect  RESET -> INIT -> RTR -> RTS towards the peer's QP
 *   vp_host_post_*   a receive WQE / a signaled send WQE + doorbell
 *   vp_host_wait_cqe the next completion, taken by interrupt: arm the CQ,
 *                    wait for the MSI-X message, drain the EQ, poll the CQ
 */
#ifndef HCASIM_SYSTEMC_VP_HOST_H
#define HCASIM_SYSTEMC_VP_HOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "fw_test.h"	/* a C header without C++ guards */

/* The platform's side: the devctl bus (BAR0, wait, device-visible memory)
 * and MSI delivery. */
struct vp_host_ops {
	struct hca_devctl_bus bus;
	/* Wait for an MSI message with this data: 1, or 0 after max_cycles. */
	int (*wait_msi)(void *bus_ctx, uint32_t data, uint64_t max_cycles);
};

struct vp_host_cfg {
	unsigned int id;
	uint8_t mac[6];		/* the device's MAC (HcaConfig::mac) */
	uint32_t ip;		/* host order; installed as GID 1 (::ffff:a.b.c.d) */
	uint64_t msi_addr;	/* MSI-X message address of the completion vector */
	uint32_t msi_data;	/* and its data */
	unsigned int vector;	/* completion vector */
	size_t buf_len;		/* the MR's host buffer */
};

#define VP_KEY_OFFSET 0x100000000000ull	/* MR key address = IOVA + this */
#define VP_WAIT_CYCLES 20000000ull	/* 80 ms of device time per wait */

struct vp_host {
	struct vp_host_cfg cfg;
	struct vp_host_ops ops;
	struct fwt t;		/* fw_test's command helpers: only t.hm and t.dc are used */
	uint32_t ctx, uar, pd, pdn, eq, eqn, cq, cqn, qp, qpn, mr, lkey, sq_psn;
	struct hca_eqe *eq_ring;
	uint32_t eq_ci;
	struct hca_cqe *cq_ring;
	uint32_t cq_ci;
	struct hca_qp_init_attr qia;
	uint8_t *sq, *rq;
	uint16_t sq_pi, rq_pi;
	uint8_t *buf;		/* host view of the MR */
	uint64_t buf_iova, buf_va;
	uint64_t irqs, eqes;
	char err[200];
};

/* 0, or -errno / a command status (> 0) with h->err saying which step. */
int vp_host_open(struct vp_host *h, const struct vp_host_cfg *cfg, const struct vp_host_ops *ops,
		 struct hostmem *hm);
void vp_host_close(struct vp_host *h);
int vp_host_connect(struct vp_host *h, const struct vp_host *peer);
/* One SGE at buf + off; send WQEs are SIGNALED.  Return the WQE index. */
int vp_host_post_recv(struct vp_host *h, uint64_t off, uint32_t len);
int vp_host_post_send(struct vp_host *h, uint8_t opcode, uint64_t off, uint32_t len, uint64_t raddr,
		      uint32_t rkey);
/* The same with the SGE given as key address and lkey. */
int vp_host_post_send_sge(struct vp_host *h, uint8_t opcode, uint64_t addr, uint32_t len, uint32_t lkey,
			  uint64_t raddr, uint32_t rkey);
/* The next CQE: 0, or -ETIMEDOUT (h->err). */
int vp_host_wait_cqe(struct vp_host *h, struct hca_cqe *out);

#ifdef __cplusplus
}
#endif

#endif
