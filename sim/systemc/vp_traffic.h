/* SPDX-License-Identifier: MIT */
/*
 * The example platform's RC traffic between two hosts (vp_host), run by
 * each host's CPU with rendezvous points between them.  Every phase posts
 * in both directions at once and checks, independently of the device:
 * every completion (status, opcode, QPN, WQE index, byte_len) and every
 * payload byte against a pattern of (sender, phase, offset), plus the
 * poison bytes after it up to the end of the target area.
 *
 *   SEND   a receive WQE each, then a SEND each (5000 / 5123 bytes)
 *   WRITE  an RDMA WRITE each into the peer's MR (9000 / 9123 bytes)
 *   READ   an RDMA READ each from the peer's MR (6000 / 6123 bytes); an
 *          engine that does not implement READ completes the WQE with
 *          LOC_QP_OP_ERR, vendor_err BAD_WQE: reported as "refused"
 */
#ifndef HCASIM_SYSTEMC_VP_TRAFFIC_H
#define HCASIM_SYSTEMC_VP_TRAFFIC_H

#include "vp_host.h"

#ifdef __cplusplus
extern "C" {
#endif

enum vp_phase { VP_PHASE_SEND, VP_PHASE_WRITE, VP_PHASE_READ };

enum vp_read_result { VP_READ_NOT_RUN, VP_READ_DONE, VP_READ_REFUSED };

#define VP_MR_LEN 0x10000u	/* the MR each host registers */

struct vp_traffic_ops {
	void *ctx;
	void (*barrier)(void *ctx);	/* both hosts meet here */
};

struct vp_traffic {
	unsigned int passed, failed;
	unsigned int completions;
	uint64_t payload_bytes;		/* payload bytes checked */
	enum vp_read_result read;
};

/* Run one phase on host h (the peer runs the same phase on its CPU). */
void vp_traffic_phase(struct vp_host *h, const struct vp_host *peer, enum vp_phase phase,
		      const struct vp_traffic_ops *ops, struct vp_traffic *res);

#ifdef __cplusplus
}
#endif

#endif
