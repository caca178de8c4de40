/* SPDX-License-Identifier: MIT */
/*
 * Engine-level testbench: N packet engines (any engine by name: "model",
 * "rtl", ...), each with its own host memory behind an IOMMU (sim/hostmem.h),
 * joined by the simulated wire (sim/wire.h, point-to-point pairs or a
 * switch), and a stepping loop that skips idle time with next_event.
 *
 * The helpers play the firmware's part through the MANAGEMENT PORT only
 * (contexts via CTX_DATA/CTX_CMD, port, GIDs, events, counters) and the
 * driver's part through BAR0 and host memory (WQEs in rings, doorbells,
 * CQE/EQE polling).  They check nothing themselves: tests assert.
 * docs/model.md "Writing an engine-level test" shows the usual shape.
 */
#ifndef HCASIM_SIM_TB_H
#define HCASIM_SIM_TB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hcasim/engine.h"
#include "hcasim/hca_spec.h"
#include "hostmem.h"
#include "wire.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TB_MAX_NODES 8
#define TB_UAR 1		/* doorbell page every tb object uses */
#define TB_SGID_INDEX 1		/* GID 0: IPv6 link-local, GID 1: IPv4 (as Linux) */
#define TB_VA_OFFSET 0x100000000000ull	/* MR va = iova + this (keys and IOVAs differ) */

struct tb;

/*
 * Frame filter on transmit (before the wire): may modify the frame in place
 * (len may shrink).  Return TB_PASS or TB_DROP.  src = node index.
 */
enum { TB_PASS = 0, TB_DROP = 1 };
typedef int (*tb_filter_fn)(void *ctx, unsigned int src, uint8_t *frame, size_t *len, uint64_t now);

struct tb_config {
	const char *engine;		/* engine name; NULL = "model" */
	unsigned int nodes;		/* 0 = 2; nodes 0-1, 2-3 ... are cable pairs unless switched */
	bool switched;			/* learning switch instead of point-to-point pairs */
	uint64_t latency;		/* wire latency in cycles; 0 = 250 (1 us) */
	uint64_t seed;			/* wire fault stream */
	struct wire_faults faults;	/* from the start (wire_set_faults changes them later) */
	const char *pcap;		/* capture every frame sent, or NULL */
	uint64_t max_steps_same_cycle;	/* livelock guard; 0 = 10,000,000 */
	/*
	 * Optional: adjust node `node`'s engine configuration just before the
	 * engine is created (options, data_w, waveform trace window).  `ec`
	 * arrives zeroed except seed.  Used by the lockstep regression
	 * (sim/regress/); NULL = defaults.
	 */
	void (*engine_config)(void *ctx, unsigned int node, struct hca_engine_config *ec);
	void *engine_config_ctx;
	/*
	 * 1: the nodes due at a step advance one after another; 2: in two
	 * threads (docs/sim.md 9.6: the same results, frames sent to the wire
	 * in the same order with the same cycles).  0 = the environment's
	 * HCASIM_TB_THREADS, else 1.  Coverage runs stay at 1.
	 */
	unsigned int threads;
};

struct tb_node {
	struct tb *tb;
	unsigned int id;
	const struct hca_engine_ops *ops;
	struct hca_engine *eng;
	struct hostmem *hm;
	int port;			/* wire port */
	uint8_t mac[6];			/* 02:00:00:00:00:<id+1> */
	uint32_t ip;			/* 10.0.0.<id+1> (host order) */
	uint32_t next_qpn, next_cqn, next_srqn, next_eqn, next_mr, next_pdn;
	uint64_t irq[HCA_CAP_NUM_MSIX];	/* MSI-X interrupts delivered, per vector */
	uint64_t irq_total;
};

struct tb_sge {
	uint64_t addr;			/* key address space (tb_mr.va + offset) */
	uint32_t len;
	uint32_t lkey;
};

struct tb_mr {
	struct tb_node *n;
	uint32_t index, lkey, rkey, pdn, access;
	uint64_t va, len, iova;
	uint8_t *buf;			/* host view of [va, va+len) */
};

struct tb_eq {
	struct tb_node *n;
	uint32_t eqn;
	unsigned int log_size, vector;
	struct hca_eqe *ring;
	uint64_t iova;
	uint32_t ci;
};

struct tb_cq {
	struct tb_node *n;
	uint32_t cqn;
	unsigned int log_size;
	struct hca_cqe *ring;
	uint64_t iova;
	uint32_t ci;
	struct tb_eq *eq;
};

struct tb_srq {
	struct tb_node *n;
	uint32_t srqn, pdn;
	unsigned int log_size, log_stride, max_sge;
	uint8_t *ring;
	uint64_t iova;
	uint16_t pi;
	struct hca_srqc ctx;		/* configuration as last written */
};

struct tb_qp_cap {
	unsigned int max_send_wr, max_recv_wr;	/* 0 = 64 */
	unsigned int max_send_sge, max_recv_sge;	/* 0 = 4 */
	unsigned int max_inline;
	bool sq_sig_all;
};

struct tb_qp {
	struct tb_node *n;
	uint32_t qpn;
	uint8_t type;
	struct hca_qpc qpc;		/* configuration as last written; tests edit then tb_qp_modify */
	uint8_t *sq, *rq;
	uint64_t sq_iova, rq_iova;
	uint16_t sq_pi, rq_pi;
	struct tb_cq *scq, *rcq;
	struct tb_srq *srq;
};

/* Connection attributes (ibv_modify_qp values). */
struct tb_qp_attr {
	uint8_t path_mtu;		/* HCA_MTU_*; default 1024 */
	uint8_t timeout;		/* default 14 */
	uint8_t retry_cnt;		/* default 7 */
	uint8_t rnr_retry;		/* default 7 */
	uint8_t min_rnr_timer;		/* default 1 (10 us) */
	uint8_t max_rd_atomic;		/* default 16 */
	uint8_t max_dest_rd_atomic;	/* default 16 */
	uint16_t access;		/* default REMOTE_WRITE|READ|ATOMIC (+LOCAL_WRITE) */
	uint32_t sq_psn, rq_psn;	/* defaults 0x100 / peer's */
	uint32_t qkey;			/* UD, default 0x11111111 */
	bool sqd_notify;
};

struct tb_send_wr {
	uint8_t opcode;			/* HCA_WR_* */
	uint8_t flags;			/* HCA_SEND_* (INLINE set by inline_data) */
	uint32_t imm;			/* network order, as ibv_send_wr.imm_data */
	const struct tb_sge *sge;
	unsigned int num_sge;
	const void *inline_data;	/* non-NULL: inline payload */
	uint32_t inline_len;
	uint64_t raddr;
	uint32_t rkey;
	uint64_t compare_add, swap;
	struct tb_qp *ud_dest;		/* UD destination QP (its node gives MAC/GID) */
	uint32_t ud_qkey;
};

/* Testbench ------------------------------------------------------------- */
struct tb *tb_create(const struct tb_config *cfg);	/* NULL (message on stderr) on failure */
void tb_destroy(struct tb *tb);
struct tb_node *tb_node(struct tb *tb, unsigned int i);
struct wire *tb_wire(struct tb *tb);
uint64_t tb_now(const struct tb *tb);
void tb_set_filter(struct tb *tb, tb_filter_fn fn, void *ctx);
uint64_t tb_frames_sent(const struct tb *tb);	/* frames engines transmitted (before filter) */

/* Time: one event; false when nothing happens before `limit`. */
bool tb_step(struct tb *tb, uint64_t limit);
/* Run until every engine and the wire are idle (true) or `max_cycles` passed (false). */
bool tb_run(struct tb *tb, uint64_t max_cycles);
/* Process events for exactly `cycles` cycles. */
void tb_run_for(struct tb *tb, uint64_t cycles);

/* Register access (firmware's and driver's views) ------------------------ */
uint32_t tb_mgmt_read(struct tb_node *n, uint32_t addr);
void tb_mgmt_write(struct tb_node *n, uint32_t addr, uint32_t val);
uint32_t tb_bar0_read(struct tb_node *n, uint32_t off);
void tb_bar0_write(struct tb_node *n, uint32_t off, uint32_t val);
void tb_doorbell(struct tb_node *n, uint32_t reg, uint32_t num, uint16_t idx);	/* on page TB_UAR */
/* Context through the staging buffer; returns CTX_STATUS. */
uint32_t tb_ctx_write(struct tb_node *n, unsigned int type, uint32_t index, const void *ctx, size_t len);
uint32_t tb_ctx_read(struct tb_node *n, unsigned int type, uint32_t index, void *ctx, size_t len);
uint32_t tb_stat(struct tb_node *n, unsigned int idx);
/* Pop one engine event: 1 (type, element filled) or 0 when the FIFO is empty. */
int tb_evt_pop(struct tb_node *n, uint8_t *type, uint32_t *element);
/* Pop events until one of `type` for `element` is found: 1, or 0 (others discarded). */
int tb_evt_find(struct tb_node *n, uint8_t type, uint32_t element);
void tb_evt_clear(struct tb_node *n);
/* Bring the node's engine up: ENABLE, MAC, GIDs 0/1, port up (events drained). */
void tb_node_up(struct tb_node *n);

/* Objects (firmware's context writes) ------------------------------------ */
void *tb_alloc(struct tb_node *n, size_t len, uint64_t *iova);
uint32_t tb_pd_alloc(struct tb_node *n);
struct tb_mr *tb_mr_reg(struct tb_node *n, uint32_t pdn, size_t len, uint32_t access);
void tb_mr_dereg(struct tb_mr *mr);
struct tb_eq *tb_eq_create(struct tb_node *n, unsigned int log_size, unsigned int vector);
struct tb_cq *tb_cq_create(struct tb_node *n, unsigned int log_size, struct tb_eq *eq);
struct tb_srq *tb_srq_create(struct tb_node *n, uint32_t pdn, unsigned int log_size,
			     unsigned int max_sge, uint32_t limit);
void tb_srq_set_limit(struct tb_srq *srq, uint32_t limit);
struct tb_qp *tb_qp_create(struct tb_node *n, uint8_t type, uint32_t pdn, struct tb_cq *scq,
			   struct tb_cq *rcq, struct tb_srq *srq, const struct tb_qp_cap *cap);
/* Write qp->qpc with `state` and one-shot `flags`; returns CTX_STATUS. */
uint32_t tb_qp_modify(struct tb_qp *qp, uint8_t state, uint8_t flags);
/* Engine's view of the QP (cur_state, PSNs, indices). */
struct hca_qpc tb_qp_query(struct tb_qp *qp);
void tb_qp_attr_default(struct tb_qp_attr *a);
/* RESET -> INIT -> RTR -> RTS towards `peer` (RC/UC) with the rules of programming.md 4.6. */
/* The IPv4-mapped GID ::ffff:a.b.c.d of `ip` (host order), as the nodes' GID 1. */
void tb_ipv4_gid(uint32_t ip, uint8_t gid[16]);
int tb_qp_connect(struct tb_qp *qp, struct tb_qp *peer, const struct tb_qp_attr *a);
/* Both directions with the same attributes (a NULL = defaults). */
int tb_connect_pair(struct tb_qp *a, struct tb_qp *b, const struct tb_qp_attr *attr);
/* UD: RESET -> INIT -> RTR -> RTS. */
int tb_qp_ud_ready(struct tb_qp *qp, const struct tb_qp_attr *a);

/* Work requests (driver's part) ------------------------------------------ */
/* Write the WQE at sq_pi and ring SQ_PI; returns its wqe_index. */
int tb_post_send(struct tb_qp *qp, const struct tb_send_wr *wr);
/* Write raw bytes as the next send WQE (wqe_index field left as given) and ring. */
int tb_post_send_raw(struct tb_qp *qp, const void *wqe, size_t len);
int tb_post_recv(struct tb_qp *qp, const struct tb_sge *sge, unsigned int n);
int tb_srq_post(struct tb_srq *srq, const struct tb_sge *sge, unsigned int n);
/* Poll one CQE (1) or none (0); consuming it rings CQ_CI. */
int tb_cq_poll(struct tb_cq *cq, struct hca_cqe *out);
void tb_cq_arm(struct tb_cq *cq, bool solicited);
/* Run until a CQE arrives (1) or max_cycles pass (0). */
int tb_cq_wait(struct tb_cq *cq, struct hca_cqe *out, uint64_t max_cycles);
int tb_eq_poll(struct tb_eq *eq, struct hca_eqe *out);
void tb_eq_arm(struct tb_eq *eq);

#ifdef __cplusplus
}
#endif

#endif /* HCASIM_SIM_TB_H */
