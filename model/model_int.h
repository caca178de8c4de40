/* SPDX-License-Identifier: MIT */
/*
 * Internal state and cross-file interfaces of the reference model engine.
 * Split by job like Linux rxe:
 *
 *   engine.c  engine ops, scheduler (advance/next_event), timers
 *   bar0.c    init segment, MSI-X table/PBA, doorbell pages
 *   mgmt.c    management port registers, event FIFO, EQE injection, reset
 *   ctx.c     context tables: CTX_CMD read/write, QP state changes
 *   dma.c     DMA through the host with fault accounting; MR key checks;
 *             SGE gather/scatter
 *   cq.c      CQE writes, overflow, arming
 *   eq.c      EQE writes, MSI-X delivery
 *   rq.c      receive WQE fetch from RQ and SRQ, SRQ limit
 *   qp.c      engine-initiated state changes, flush, SQD drain
 *   net.c     frame transmit (header fields from QP/AV, counters)
 *   recv.c    frame receive: parse, address/QP checks, dispatch
 *   req.c     requester: WQE fetch/validation, packetisation
 *   resp.c    responder: PSN/opcode/length/key checks, execution, ACK/NAK
 *   comp.c    completer: ACK/NAK/response processing, retry, timers
 */
#ifndef HCASIM_MODEL_MODEL_INT_H
#define HCASIM_MODEL_MODEL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hcasim/engine.h"
#include "hcasim/hca_spec.h"
#include "roce_hdr.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the model reads little-endian host structures directly: little-endian hosts only"
#endif

#define MODEL_NUM_QP (1u << HCA_CAP_LOG_MAX_QP)
#define MODEL_NUM_CQ (1u << HCA_CAP_LOG_MAX_CQ)
#define MODEL_NUM_SRQ (1u << HCA_CAP_LOG_MAX_SRQ)
#define MODEL_NUM_EQ (1u << HCA_CAP_LOG_MAX_EQ)
#define MODEL_NUM_MR (1u << HCA_CAP_LOG_MAX_MR)
#define MODEL_NUM_GID HCA_CAP_GID_TBL_LEN
#define MODEL_NUM_MSIX HCA_CAP_NUM_MSIX

/* Send WQEs the requester tracks between retirement and fetch (>= window + 1). */
#define MODEL_SWQ_RING 256u
#define MODEL_NO_DEADLINE UINT64_MAX
#define MODEL_FRAME_MAX (14 + 20 + 8 + 12 + 28 + 4096 + 4 + 4 + 64)
#define PSN_MASK HCA_WIRE_PSN_MASK

static inline uint32_t psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & PSN_MASK;
}

/* A local scatter/gather element, translated at check time. */
struct model_sge {
	uint64_t addr;		/* key address space */
	uint32_t len;
	uint32_t lkey;
	uint64_t iova;		/* valid once checked */
	bool checked;
};

enum swqe_state {
	SWQE_ACTIVE = 1,	/* PSNs assigned; packets being sent or awaiting acknowledgement */
	SWQE_ERROR,		/* failed locally before/while sending; completes with `status` when oldest */
};

/* A send WQE the requester has fetched (cached: hardware keeps this in its SQ cache). */
struct model_swqe {
	uint16_t index;		/* engine's count == the driver's wqe_index */
	uint8_t opcode;		/* HCA_WR_* */
	uint8_t flags;		/* HCA_SEND_* */
	uint8_t state;		/* enum swqe_state */
	uint8_t status;		/* HCA_WC_* for SWQE_ERROR */
	uint8_t vendor_err;
	uint8_t num_sge;
	bool is_inline;
	uint32_t imm;		/* network order as posted */
	uint32_t len;		/* message length */
	uint64_t raddr;
	uint32_t rkey;
	uint64_t cmp_add, swap;
	struct hca_wqe_ud_seg ud;
	uint32_t first_psn;
	uint32_t npsn;		/* PSNs used: packets (SEND/WRITE), responses (READ), 1 (atomic) */
	uint32_t rcvd;		/* READ: response packets received and written */
	struct model_sge sge[HCA_CAP_MAX_SGE];
	uint8_t inline_data[HCA_CAP_MAX_INLINE_DATA];
};

/* A receive WQE being filled by the responder. */
struct model_rwqe {
	bool valid;
	bool from_srq;
	uint16_t wqe_index;
	uint8_t num_sge;
	uint32_t total;		/* sum of SGE lengths */
	uint32_t off;		/* bytes placed so far */
	struct model_sge sge[HCA_CAP_MAX_SGE];
};

enum res_type { RES_NONE = 0, RES_READ, RES_ATOMIC };

/* Responder resource (IB 9.7.5.1.x): replays duplicate READ/ATOMIC requests. */
struct model_res {
	uint8_t type;
	uint32_t first_psn, last_psn;
	uint64_t orig;		/* atomic: original value */
	uint32_t msn;		/* atomic: MSN of the saved ACK */
};

enum resp_msg { RESP_MSG_NONE = 0, RESP_MSG_SEND, RESP_MSG_WRITE };

struct model_qp {
	uint32_t qpn;
	struct hca_qpc cfg;	/* configuration bytes 0x00..0x7F as written (one-shot flags cleared) */
	uint8_t cur_state;	/* HCA_QPS_* */
	bool sq_draining;
	bool busy;		/* may have work: the scheduler steps it */
	bool comm_est;		/* COMM_EST already raised since RESET_STATE */

	/* send queue */
	uint16_t sq_pi;		/* last doorbell */
	uint16_t sq_ci;		/* retired (completed or flushed) */
	uint16_t sq_head;	/* started; [sq_ci, sq_head) are in swq */
	bool head_fetched;	/* swq slot of sq_head holds the next WQE, fetched, waiting to start */
	struct model_swqe *swq;	/* MODEL_SWQ_RING entries, allocated on first use */

	/* requester */
	uint16_t tx_wqe;	/* WQE (count) whose packets are being (re)sent; == sq_head when none */
	uint32_t tx_pkt;	/* next packet index within tx_wqe */
	uint32_t psn_next;	/* next PSN to assign to a new WQE (status sq_psn_next) */
	uint32_t una_psn;	/* oldest unacknowledged PSN */
	unsigned int rd_atomic_out;	/* READ/atomic WQEs started, not completed */
	uint8_t retry_left;
	uint8_t rnr_left;
	uint64_t ack_deadline;
	uint64_t rnr_deadline;	/* != NO_DEADLINE: RNR wait, nothing is sent */
	bool nak_retry_valid;	/* a NAK/implicit-NAK retry from nak_retry_psn started, no progress since */
	uint32_t nak_retry_psn;

	/* receive queue */
	uint16_t rq_pi;
	uint16_t rq_ci;

	/* responder */
	uint32_t epsn;
	uint32_t msn;
	bool seq_nak_sent;
	uint8_t resp_msg;	/* enum resp_msg: message in progress */
	bool uc_drop;		/* UC: dropping the rest of the current message */
	struct model_rwqe rwqe;	/* receive WQE of the SEND / WRITE-with-imm in progress */
	uint32_t msg_len;	/* bytes received in the current message */
	uint64_t wr_va;		/* RDMA WRITE in progress */
	uint32_t wr_len;
	uint64_t wr_iova;
	struct model_res res[HCA_CAP_MAX_RD_ATOMIC];
	unsigned int res_next;
};

struct model_cq {
	struct hca_cqc c;	/* config + status words (pi, ci, arm, error) */
};

struct model_srq {
	struct hca_srqc c;
};

struct model_eq {
	struct hca_eqc c;
	bool failed;		/* an EQE write faulted: no further EQEs */
	bool fire_pending;	/* EQ_ARM found EQEs: fire the vector at the next advance */
};

struct model_evt {
	uint8_t type;
	uint32_t element;
};

struct model_inj {
	uint32_t eqn;
	struct hca_eqe eqe;
};

struct model_rxf {
	uint8_t *data;
	size_t len;
	size_t cap;		/* bytes allocated at data */
};

/* Buffers of consumed frames kept for the next ones (no malloc/free churn
 * per frame): up to MODEL_RX_SPARE, each at least MODEL_RX_BUF bytes. */
#define MODEL_RX_SPARE 512
#define MODEL_RX_BUF 4352

struct model {
	struct hca_host_ops host;
	void *host_ctx;
	uint64_t now;
	char err[160];
	bool in_advance;
	bool trace;		/* HCASIM_MODEL_TRACE set: protocol events to stderr */

	/* init segment (host view BAR0 0x000..0xFFF), stored registers */
	uint32_t init[HCA_BAR0_INIT_SEG_SIZE / 4];
	uint32_t clock_hi_latch;
	bool host_reset_pending;

	/* MSI-X */
	uint32_t msix[MODEL_NUM_MSIX][4];
	uint32_t pba;

	/* management port */
	uint32_t fw_event;	/* CMDQ_PI, HOST_CTRL latched bits (ENGINE_EVENT is computed) */
	uint32_t engine_ctrl;
	uint32_t port_ctrl;
	uint32_t mac_lo, mac_hi;
	struct model_evt evt[HCA_MGMT_EVT_DEPTH];
	unsigned int evt_head, evt_count;
	bool evt_overflow;
	uint32_t inj_eqn, inj_type, inj_element, inj_data, inj_status;
	uint32_t ctx_data[HCA_MGMT_CTX_DATA_WORDS];
	uint32_t ctx_status;
	uint32_t stats[HCA_STAT_COUNT];
	bool dma_fault_sticky;
	uint32_t dma_fault_lo, dma_fault_hi, dma_fault_info;

	/* context tables */
	struct model_qp qp[MODEL_NUM_QP];
	/* QPs from qp_hi up were never kicked (no context written, no doorbell,
	 * no frame) since the last reset: idle, no timers.  The per-step scans
	 * (work, deadlines) stop there instead of visiting all MODEL_NUM_QP. */
	unsigned int qp_hi;
	struct model_cq cq[MODEL_NUM_CQ];
	struct model_srq srq[MODEL_NUM_SRQ];
	struct model_eq eq[MODEL_NUM_EQ];
	struct hca_mrc mr[MODEL_NUM_MR];
	struct hca_gidc gid[MODEL_NUM_GID];

	/* pending work outside QPs */
	struct model_inj *inj;	/* injected EQEs to write, in order */
	unsigned int inj_count, inj_cap;
	struct model_rxf *rxq;	/* received frames, in arrival order */
	unsigned int rxq_head, rxq_count, rxq_cap;
	struct model_rxf rx_spare[MODEL_RX_SPARE];
	unsigned int rx_nspare;

	uint8_t txbuf[MODEL_FRAME_MAX];
};

/* engine.c */
void model_trace(struct model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void model_qp_kick(struct model *m, struct model_qp *qp);
bool model_enabled(const struct model *m);
void model_reset_engine(struct model *m);

/* bar0.c */
uint32_t model_bar0_read(struct model *m, uint32_t off);
void model_bar0_write(struct model *m, uint32_t off, uint32_t val);
uint32_t model_init_read(struct model *m, uint32_t off, bool host);
void model_init_write(struct model *m, uint32_t off, uint32_t val, bool host);
void model_msix_fire(struct model *m, unsigned int vector);
void model_msix_deliver(struct model *m);

/* mgmt.c */
uint32_t model_mgmt_read(struct model *m, uint32_t addr);
void model_mgmt_write(struct model *m, uint32_t addr, uint32_t val);
void model_event(struct model *m, uint8_t type, uint32_t element);
static inline void model_stat(struct model *m, unsigned int idx, uint32_t n)
{
	m->stats[idx] += n;
}

/* ctx.c */
void model_ctx_cmd(struct model *m, uint32_t cmd);
void model_qp_reset_state(struct model_qp *qp);
struct model_qp *model_qp_get(struct model *m, uint32_t qpn);	/* NULL unless state != RESET */
struct model_cq *model_cq_get(struct model *m, uint32_t cqn);	/* NULL unless valid */
struct model_srq *model_srq_get(struct model *m, uint32_t srqn);
struct model_eq *model_eq_get(struct model *m, uint32_t eqn);

/* dma.c */
int model_dma_read(struct model *m, unsigned int client, uint64_t iova, void *buf, size_t len);
int model_dma_write(struct model *m, unsigned int client, uint64_t iova, const void *buf, size_t len);
/*
 * Key check (programming.md 5.3).  access: HCA_ACCESS_* bits the operation
 * needs in the MR.  Returns 0 (and *iova) or HCA_VENDOR_ERR_{LKEY,PD,ACCESS,BOUNDS}.
 */
int model_mr_check(struct model *m, uint32_t key, uint32_t pdn, uint32_t access,
		   uint64_t va, uint64_t len, uint64_t *iova);
/* Check (if needed) and translate every SGE; 0 or a vendor error. */
int model_sge_check(struct model *m, struct model_sge *sge, uint32_t pdn, uint32_t access);
/*
 * Copy between the SGE list (from byte `off`) and buf.  to_sge: write into the
 * SGEs.  Every SGE touched must have been checked.  0 or -EFAULT.
 */
int model_sge_copy(struct model *m, struct model_sge *sge, unsigned int n, uint32_t off,
		   void *buf, uint32_t len, bool to_sge);

/* A doorbell's 16-bit consumer index extended against the producer: ci lies in (pi - 2^16, pi]. */
static inline uint32_t ring_ext_ci(uint32_t pi, uint16_t idx)
{
	return pi - (uint16_t)((uint16_t)pi - idx);
}

/* cq.c */
/* Write a CQE (owner bit set here). 0, or -1 if the completion was lost (CQ error/overflow/fault). */
int model_cq_post(struct model *m, uint32_t cqn, struct hca_cqe *cqe, bool solicited);
void model_cq_doorbell(struct model *m, struct model_cq *cq, uint16_t idx, uint8_t arm);

/* eq.c */
/* Write an EQE now. HCA_MGMT_STATUS_*. */
int model_eq_post(struct model *m, uint32_t eqn, const struct hca_eqe *eqe);
void model_eq_doorbell(struct model *m, struct model_eq *eq, uint16_t idx, bool arm);
void model_eq_fire_pending(struct model *m);

/* rq.c */
/*
 * Take the next receive WQE for qp into qp->rwqe.  1 = got one, 0 = none
 * posted (RNR), -1 = fetch failed (fault or malformed; *vendor_err says which,
 * the WQE is consumed for a malformed one).
 */
int model_rq_take(struct model *m, struct model_qp *qp, uint8_t *vendor_err);
void model_srq_doorbell(struct model *m, struct model_srq *srq, uint16_t idx);

/* qp.c */
/* Engine-initiated error: cur_state -> ERR (event type or -1 for none). */
void model_qp_to_err(struct model *m, struct model_qp *qp, int event);
void model_qp_to_sqe(struct model *m, struct model_qp *qp);
bool model_qp_flush(struct model *m, struct model_qp *qp);
void model_qp_complete_send(struct model *m, struct model_qp *qp, struct model_swqe *w,
			    uint8_t status, uint8_t vendor_err, bool force);
void model_qp_complete_recv(struct model *m, struct model_qp *qp, struct hca_cqe *cqe, bool solicited);
bool model_qp_check_drain(struct model *m, struct model_qp *qp);
uint32_t model_pmtu(const struct model_qp *qp);

/* net.c */
/* Fill Ethernet/IP/UDP fields from the QP context (requests). */
void model_net_req_hdr(struct model *m, struct model_qp *qp, struct roce_pkt *p, uint8_t opcode);
/* Fill them for a response to `req` (addresses swapped). */
void model_net_resp_hdr(struct model *m, struct model_qp *qp, const struct roce_pkt *req,
			struct roce_pkt *p, uint8_t opcode);
void model_net_xmit(struct model *m, struct roce_pkt *p, const void *payload, uint32_t len);
/* Where the payload of a packet of opcode goes in the frame being built:
 * DMA it there and pass it to model_net_xmit, and it is copied once. */
uint8_t *model_net_payload_buf(struct model *m, uint8_t opcode);
uint32_t model_gid_ipv4(const uint8_t gid[16]);

/* recv.c */
void model_rx_frame(struct model *m, const uint8_t *frame, size_t len);

/* req.c */
bool model_requester(struct model *m, struct model_qp *qp);

/* resp.c */
void model_responder(struct model *m, struct model_qp *qp, const struct roce_pkt *pkt);

/* comp.c */
void model_completer(struct model *m, struct model_qp *qp, const struct roce_pkt *pkt);
void model_comp_timers(struct model *m, struct model_qp *qp);
void model_comp_progress(struct model_qp *qp, uint64_t now);
bool model_comp_retire(struct model *m, struct model_qp *qp);
void model_comp_arm_timer(struct model *m, struct model_qp *qp);
uint64_t model_qp_deadline(const struct model_qp *qp);

static inline struct model_swqe *swq_at(struct model_qp *qp, uint16_t idx)
{
	return &qp->swq[idx & (MODEL_SWQ_RING - 1)];
}

static inline bool qp_is_rc(const struct model_qp *qp)
{
	return qp->cfg.qp_type == HCA_QPT_RC;
}

#endif /* HCASIM_MODEL_MODEL_INT_H */
