/* SPDX-License-Identifier: MIT */
/*
 * Firmware state and internal interfaces.  Everything the firmware knows
 * lives in one caller-allocated struct hca_fw; several devices can run in one
 * process and the RV32 image keeps it in .bss.
 */
#ifndef HCASIM_FW_PRIV_H
#define HCASIM_FW_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "hcasim/hca_spec.h"
#include "fw_config.h"
#include "fw_handle.h"
#include "fw_uapi.h"
#include "hal.h"

#define FW_NO_CTX 0xffffu

/* Common header of every object in a pool (index = engine number). */
struct fw_obj_hdr {
	uint8_t live;
	uint8_t rsvd;
	uint16_t ctx;		/* owning context slot */
	uint32_t handle;	/* handle in the owner's table */
	uint32_t refcnt;	/* objects that name this one */
};

struct fw_pd {
	struct fw_obj_hdr h;
};

struct fw_mr {
	struct fw_obj_hdr h;
	uint16_t pd;
	uint16_t access;
	uint64_t addr, length, dma_addr;
};

struct fw_eq {
	struct fw_obj_hdr h;
	uint8_t log_size, vector;
	uint32_t event_mask;
	uint64_t base;
};

struct fw_cq {
	struct fw_obj_hdr h;
	uint16_t eq;		/* EQN or 0 */
	uint8_t log_size;
	uint32_t cqe;
	uint64_t base;
};

struct fw_srq {
	struct fw_obj_hdr h;
	uint16_t pd;
	uint8_t log_size, log_stride;
	uint32_t max_wr, max_sge;
	uint32_t limit;		/* last limit written */
	uint64_t base;
};

struct fw_qp {
	struct fw_obj_hdr h;
	uint16_t pd, scq, rcq, srq;	/* srq 0 = none */
	uint8_t en_sqd_async_notify;
	struct hca_qp_init_attr init;	/* as created */
	struct hca_qp_attr attr;	/* attributes set by MODIFY (QUERY view) */
};

struct fw_ctx {
	uint8_t live;
	uint16_t uar;
	uint32_t handle;
	struct fw_htable ht;
	struct fw_hslot slots[FW_MAX_HANDLES];
};

struct fw_gid {
	uint8_t gid[16];
	uint8_t valid;
};

/* Capabilities in use: min(engine CAP words, build size). */
struct fw_caps {
	uint32_t n_qp, n_cq, n_srq, n_eq, n_mr, n_pd, n_uar;
	uint8_t log_max_qp, log_max_cq, log_max_srq, log_max_eq, log_max_mr, log_max_pd;
	uint8_t log_max_wqe, log_max_cqe, log_max_eqe;
	uint32_t max_sge, max_rd_atomic, max_inline, num_msix, gid_tbl_len, data_w;
	uint32_t hw_rev;
};

struct hca_fw_stats {
	uint32_t cmds;		/* commands completed */
	uint32_t cmd_errors;	/* ... with status != 0 */
	uint32_t events;	/* engine events taken from the FIFO */
	uint32_t events_dropped;/* no live object / no async EQ / unknown type */
	uint32_t events_lost;	/* engine FIFO overflowed */
	uint32_t eqes;		/* EQEs injected */
	uint32_t eqe_drops;	/* EQE injection refused (EQ full or invalid) */
	uint32_t resets;
};

/* One attribute of the command being executed, by merged-spec index. */
struct fw_battr {
	uint8_t present;
	uint8_t cmd_idx;	/* index in the command's attribute array */
	uint8_t faulted;	/* payload read faulted (reported after MISSING) */
	uint8_t elem;		/* ENUM element */
	uint16_t len;		/* attribute length as given */
	uint16_t out_len;	/* PTR_OUT bytes staged by the handler */
	uint8_t out_valid;
	uint16_t index;		/* IDR: resolved pool index / context slot */
	uint32_t handle;
	_Alignas(8) uint8_t buf[FW_ATTR_BUF];	/* PTR_IN/ENUM payload, zero-padded; PTR_OUT staging */
};

struct fw_bundle {
	uint64_t in_addr;
	struct hca_cmd_hdr hdr;
	struct hca_cmd_attr cattr[HCA_CAP_MAX_CMD_ATTRS];
	uint8_t cattr_dirty[HCA_CAP_MAX_CMD_ATTRS];
	const struct fw_uapi_method *m;
	uint16_t ctx;		/* header context slot or FW_NO_CTX */
	int8_t new_attr;	/* merged index of the NEW attribute, -1 */
	int8_t destroy_attr;
	uint16_t new_type;
	uint32_t new_handle;
	uint16_t new_index;	/* pool index the handler created */
	uint8_t new_set;
	uint8_t reason;		/* HCA_CMD_SYND_* of a failure */
	uint8_t attr;		/* index + 1 of the failing attribute */
	struct fw_battr a[FW_UAPI_MAX_ATTRS];
};

struct fw_inject {
	uint16_t obj, method;
	int err;		/* positive errno; 0 = disarmed */
	uint32_t skip;		/* matching commands to let through first */
};

/* Everything reset by CTRL.RESET. */
struct fw_state {
	uint8_t dev_state;	/* HCA_DEV_STATE_* */
	uint8_t cmdq_running;
	uint8_t cmdq_error;
	uint8_t cmdq_log_size;
	uint64_t cmdq_base;
	uint32_t cmdq_ci;
	uint32_t health;
	uint64_t next_health;
	uint16_t cmd_eq;	/* EQN of the CMD_DONE EQ, 0 = none */
	struct fw_caps caps;
	struct fw_gid gid[FW_MAX_GID];
	uint8_t uar_used[FW_MAX_UAR];
	uint8_t mr_key[FW_MAX_MR];
	struct fw_pd pd[FW_MAX_PD];
	struct fw_mr mr[FW_MAX_MR];
	struct fw_eq eq[FW_MAX_EQ];
	struct fw_cq cq[FW_MAX_CQ];
	struct fw_srq srq[FW_MAX_SRQ];
	struct fw_qp qp[FW_MAX_QP];
	struct fw_htable ctx_ht;
	struct fw_hslot ctx_slots[FW_MAX_CTX];
	struct fw_ctx ctx[FW_MAX_CTX];
};

struct hca_fw {
	struct hca_fw_hal hal;
	struct hca_fw_board board;
	uint8_t boot_pending;
	/* Generation counter of all handle tables; survives resets, so no handle
	 * from before a reset is ever valid after it (until the counter wraps). */
	uint16_t handle_gen;
	struct fw_uapi uapi;
	struct fw_inject inject;
	struct hca_fw_stats stats;
	struct fw_bundle b;	/* scratch of the command being executed */
	struct fw_state s;
};

/* ---- fw_engine.c: management port ---- */
uint32_t fw_mgmt_rd(struct hca_fw *fw, uint32_t addr);
void fw_mgmt_wr(struct hca_fw *fw, uint32_t addr, uint32_t v);
uint32_t fw_init_rd(struct hca_fw *fw, uint32_t reg);
void fw_init_wr(struct hca_fw *fw, uint32_t reg, uint32_t v);
/* Context access: 0 or -HCA_EIO (CTX_STATUS not OK). len <= 256, multiple of 4. */
int fw_ctx_write(struct hca_fw *fw, unsigned int type, uint32_t index, const void *buf, size_t len);
int fw_ctx_read(struct hca_fw *fw, unsigned int type, uint32_t index, void *buf, size_t len);
/* EQE injection: HCA_MGMT_STATUS_*. */
uint32_t fw_eqe_inject(struct hca_fw *fw, uint32_t eqn, uint8_t type, uint8_t subtype,
		       uint32_t element, uint32_t data);
uint64_t fw_now(struct hca_fw *fw);
void fw_log(struct hca_fw *fw, const char *msg, uint32_t a, uint32_t b);
int fw_dma_read(struct hca_fw *fw, uint64_t iova, void *buf, size_t len);
int fw_dma_write(struct hca_fw *fw, uint64_t iova, const void *buf, size_t len);

/* ---- fw_boot.c ---- */
void fw_status_set(struct hca_fw *fw);
void fw_fatal(struct hca_fw *fw, uint32_t synd);

/* ---- fw_cmd.c: one command ---- */
/* Execute the command buffer at in_addr; returns the status (errno), fills *syndrome. */
uint32_t fw_cmd_execute(struct hca_fw *fw, uint64_t in_addr, uint32_t in_len, uint32_t *syndrome);

/* Handler helpers. */
const void *fw_in(struct fw_bundle *b, uint16_t attr_id);
uint32_t fw_in_u32(struct fw_bundle *b, uint16_t attr_id);
uint64_t fw_in_u64(struct fw_bundle *b, uint16_t attr_id);
int fw_in_present(struct fw_bundle *b, uint16_t attr_id);
/* ENUM element of a present ENUM attribute. */
int fw_in_elem(struct fw_bundle *b, uint16_t attr_id);
/* Pool index of a resolved IDR attribute, or -1 when absent. */
int fw_idr(struct fw_bundle *b, uint16_t attr_id);
/* Stage a PTR_OUT (written only if the whole command succeeds). */
void fw_out(struct fw_bundle *b, uint16_t attr_id, const void *data, uint16_t len);
/* The handler of a NEW method names the pool index of what it created. */
void fw_set_new(struct fw_bundle *b, uint16_t index);
/* Fail the command at attribute attr_id with a syndrome reason; returns err. */
int fw_fail(struct fw_bundle *b, uint16_t attr_id, uint8_t reason, int err);

/* ---- fw_objects.c: generic object plumbing ---- */
/* Slots of an object type's pool in this build (0 for types without a pool). */
uint32_t fw_pool_size(const struct fw_caps *c, uint16_t type);
struct fw_obj_hdr *fw_obj(struct hca_fw *fw, uint16_t type, uint32_t index);
/* Lowest free pool index of a type (>= first usable), or -1. */
int fw_obj_alloc(struct hca_fw *fw, uint16_t type);
/* Destroy an object: 0 or errno (EBUSY when referenced and !force). */
int fw_obj_destroy(struct hca_fw *fw, uint16_t type, uint16_t index, int force);
struct fw_ctx *fw_ctx_of(struct hca_fw *fw, uint16_t slot);
/* Resolve a context handle: slot or -1. */
int fw_ctx_lookup(struct hca_fw *fw, uint32_t handle);
/* Tear down a context and everything it owns (CONTEXT.FREE). */
void fw_ctx_teardown(struct hca_fw *fw, uint16_t slot);

/* Per-type destroy (no refcount check when force). */
int fw_pd_destroy(struct hca_fw *fw, uint16_t pdn, int force);
int fw_mr_destroy(struct hca_fw *fw, uint16_t idx, int force);
int fw_cq_destroy(struct hca_fw *fw, uint16_t cqn, int force);
int fw_eq_destroy(struct hca_fw *fw, uint16_t eqn, int force);
int fw_srq_destroy(struct hca_fw *fw, uint16_t srqn, int force);
int fw_qp_destroy(struct hca_fw *fw, uint16_t qpn, int force);

/* ---- fw_event.c ---- */
void fw_events_drain(struct hca_fw *fw);
/* Post an ASYNC EQE to every async EQ of a context (slot) or of all (FW_NO_CTX). */
void fw_async_post(struct hca_fw *fw, uint16_t ctx, uint8_t event, uint32_t element);

/* ---- fw_cmdq.c ---- */
void fw_cmdq_enable(struct hca_fw *fw);
void fw_cmdq_process(struct hca_fw *fw);

/* ---- fw_qp_modify.c ---- */
/* The transition table of docs/programming.md 4.6: 0 and the allowed masks, or -1. */
int fw_qp_transition(uint8_t qp_type, uint8_t cur, uint8_t next, uint32_t *required,
		     uint32_t *optional);
int fw_qp_write_ctx(struct hca_fw *fw, uint16_t qpn, uint8_t state, uint8_t oneshot);

/* Little helpers. */
static inline int fw_is_zero(const void *p, size_t n)
{
	const uint8_t *b = (const uint8_t *)p;
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

/* A handler's new object: live, owned by the calling context, unreferenced. */
static inline void fw_obj_init(struct fw_obj_hdr *h, const struct fw_bundle *b)
{
	h->live = 1;
	h->ctx = b->ctx;
	h->handle = 0;
	h->refcnt = 0;
}

#define FW_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* HCASIM_FW_PRIV_H */
