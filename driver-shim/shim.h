/* SPDX-License-Identifier: MIT */
/*
 * Internal object model of the driver shim (the libibverbs provider side).
 *
 * Every verbs object the application sees is embedded at the start of a shim
 * object, the way rdma-core providers embed verbs_* structures:
 *
 *   struct ibv_device   in  struct shim_device   (one per configured HCA)
 *   struct ibv_context  in  struct shim_context  (verbs_context; one firmware CONTEXT)
 *   struct ibv_pd/mr/cq/qp/srq/ah/comp_channel  in  struct shim_pd/... below
 *
 * Locking, outermost first: shim_device.lock (open/close/bring-up) ->
 * shim_context.lock (object tables) -> per-queue locks -> the bus lock.
 * The interrupt handler runs with the bus lock held and takes only
 * shim_context.lock and event-queue locks, never a queue lock.
 */
#ifndef HCASIM_SHIM_H
#define HCASIM_SHIM_H

#include <errno.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "bus.h"
#include "config.h"
#include "hcasim/hca_spec.h"

struct shim_link;
struct shim_segment;
struct pcap_writer;

/* Where the fake sysfs of hcasim devices lives (served by ibv_read_sysfs_file). */
#define SHIM_SYSFS_VERBS "/sys/class/infiniband_verbs/hcasim"
#define SHIM_SYSFS_IB "/sys/class/infiniband/hcasim"


/* ---- event queues behind file descriptors (channels, async fd) ------------ */

/*
 * A queue of fixed-size items plus an eventfd in semaphore mode counting
 * them: each read() of the fd takes one event (the kernel's one event per
 * read), poll/epoll see POLLIN while events are queued, and a non-blocking
 * fd gives EAGAIN when none is.  The fd is what the application polls.
 */
struct shim_evq {
	int fd;
	pthread_mutex_t lock;
	size_t item_size;
	uint8_t *items;
	size_t head, count, cap;
	uint64_t phantom;	/* counts whose item was removed (object destroyed) */
};

int shim_evq_init(struct shim_evq *q, size_t item_size);
void shim_evq_destroy(struct shim_evq *q);
/* Queue an item and make the fd readable.  0 or -ENOMEM. */
int shim_evq_push(struct shim_evq *q, const void *item);
/*
 * Take one event: read the fd (blocking unless the fd is O_NONBLOCK), then
 * the item.  0, or -1 with errno (EAGAIN when non-blocking and empty).
 */
int shim_evq_pop(struct shim_evq *q, void *item);
/* Drop queued items for which match() is true (object being destroyed). */
void shim_evq_remove(struct shim_evq *q, int (*match)(const void *item, const void *arg),
		     const void *arg);

/* ---- device ---------------------------------------------------------------- */

struct shim_device {
	struct ibv_device ibdev;	/* first: the application holds &ibdev */
	struct shim_devcfg cfg;
	enum shim_mode mode;
	unsigned int index;

	pthread_mutex_t lock;		/* bring-up, open/close, the context list */
	int up;				/* device created and brought up */
	int failed;			/* bring-up failed once: do not retry */
	struct shim_bus *bus;
	struct shim_link *link;		/* switch connection (or NULL) */
	struct shim_segment *segment;	/* in-process wire (or NULL) */
	struct pcap_writer *pcap;	/* capture of transmitted frames (or NULL) */
	struct shim_hw *hw;		/* command interface */
	struct hca_device_attr attr;	/* DEVICE.QUERY at bring-up */
	pthread_mutex_t ctx_lock;	/* contexts list; never held while waiting for the device */
	struct shim_context *contexts;	/* open contexts (interrupt dispatch) */
	unsigned int next_vector;

	/* threaded mode */
	pthread_t thread;
	int thread_running;
	atomic_int stop;
	/* wall-clock ns of the last shim_device_poll_help(): an application busy-polling */
	_Atomic uint64_t polled_ns;
	/* what the device thread did (HCASIM_DEBUG: printed at exit) */
	uint64_t thr_loops, thr_steps, thr_sleeps;
	uint64_t thr_cpu_ns;		/* its CPU time, when it stopped */
};

/* ---- context ----------------------------------------------------------------- */

#define SHIM_MAX_QPN (1u << HCA_CAP_LOG_MAX_QP)
#define SHIM_MAX_CQN (1u << HCA_CAP_LOG_MAX_CQ)
#define SHIM_MAX_SRQN (1u << HCA_CAP_LOG_MAX_SRQ)

struct shim_eq {
	struct hca_eqe *ring;
	uint64_t iova;
	unsigned int log_size;
	uint32_t ci;
	uint32_t eqn;
	uint32_t handle;
	unsigned int vector;
};

struct shim_context {
	struct verbs_context vctx;	/* first: vctx.context is what the application sees */
	struct shim_device *dev;
	struct shim_context *next;	/* in dev->contexts */
	uint32_t handle;		/* firmware CONTEXT handle */
	uint32_t uar;			/* doorbell page index */
	struct shim_eq eq;		/* completion + async events of this context */
	struct shim_evq async_q;	/* struct ibv_async_event items; fd = async_fd */

	pthread_mutex_t lock;		/* tables below */
	struct shim_cq *cq_by_num[SHIM_MAX_CQN];
	struct shim_qp *qp_by_num[SHIM_MAX_QPN];
	struct shim_srq *srq_by_num[SHIM_MAX_SRQN];
};

static inline struct shim_context *to_sctx(struct ibv_context *ctx)
{
	return (struct shim_context *)((uint8_t *)ctx - offsetof(struct shim_context, vctx.context));
}

/* Doorbell register address of this context. */
static inline uint32_t shim_db(const struct shim_context *c, uint32_t reg)
{
	return HCA_BAR0_DB_BASE + c->uar * HCA_BAR0_DB_PAGE_SIZE + reg;
}

static inline void shim_ring(struct shim_context *c, uint32_t reg, uint32_t num, uint32_t idx)
{
	shim_bus_write32(c->dev->bus, shim_db(c, reg), (idx & 0xffff) << 16 | (num & 0xffff));
}

/* ---- objects ----------------------------------------------------------------- */

/* Host memory the device reaches: page-aligned, zeroed, mapped in the IOMMU. */
struct shim_dma_buf {
	void *va;
	size_t len;
	uint64_t iova;
};

int shim_dma_alloc(struct shim_device *d, size_t len, unsigned int perm, struct shim_dma_buf *b);
void shim_dma_free(struct shim_device *d, struct shim_dma_buf *b);

struct shim_pd {
	struct ibv_pd pd;
	uint32_t pdn;
};

struct shim_mr {
	struct ibv_mr mr;
	uint64_t dma_iova;		/* IOMMU mapping of [addr, addr+length) */
	int mapped;
};

struct shim_channel {
	struct ibv_comp_channel ch;
	struct shim_evq q;		/* struct shim_cq * items */
};

struct shim_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
	struct shim_context *ctx;
	uint32_t cqn;
	unsigned int log_size;
	struct shim_dma_buf ring;
	pthread_mutex_t poll_lock;
	uint32_t ci;			/* free-running consumer index */
	uint32_t comp_events;		/* events handed out by ibv_get_cq_event */
	uint32_t async_events;		/* async events naming this CQ handed out */
	int is_ex;
	struct hca_cqe cur;		/* ibv_cq_ex: the CQE being read */
	uint64_t cur_wr_id;
	int polling;			/* between start_poll and end_poll */
};

struct shim_wq {			/* one work queue ring (SQ, RQ or SRQ) */
	struct shim_dma_buf ring;
	unsigned int log_size, log_stride;
	uint32_t pi;			/* free-running producer index */
	atomic_uint ci;			/* free-running: WQEs known retired */
	uint64_t *wrid;			/* per slot */
	pthread_mutex_t lock;
};

void shim_wq_free(struct shim_device *d, struct shim_wq *wq);

static inline void *shim_wqe(struct shim_wq *wq, uint32_t idx)
{
	return (uint8_t *)wq->ring.va + ((size_t)(idx & ((1u << wq->log_size) - 1)) << wq->log_stride);
}

struct shim_srq {
	struct ibv_srq srq;
	uint32_t srqn;
	struct shim_wq wq;
	uint8_t *busy;			/* per slot: posted and not completed */
	uint32_t max_wr, max_sge, limit;
	uint32_t async_events;
};

struct shim_qp {
	union {				/* as rdma-core's verbs_qp */
		struct ibv_qp qp;
		struct ibv_qp_ex qpx;
	};
	int is_ex;			/* created with send_ops_flags: ibv_qp_to_qp_ex works */
	struct shim_context *ctx;
	uint8_t type;
	uint8_t sq_sig_all;
	struct ibv_qp_cap cap;		/* what the QP really has */
	struct shim_wq sq, rq;
	struct shim_srq *srq;
	uint32_t qkey;			/* for ibv_wr_set_ud_addr with bit 31 */
	uint32_t async_events;
	/* ibv_qp_ex work request building (under sq.lock between wr_start and wr_complete) */
	uint32_t wr_first_pi;
	int wr_err;
	void *wr_cur;			/* WQE being built */
	unsigned int wr_cur_sges;
};

struct shim_ah {
	struct ibv_ah ah;
	struct hca_wqe_ud_seg ud;	/* remote_qpn/qkey filled per WR */
};

static inline struct shim_pd *to_spd(struct ibv_pd *p) { return (struct shim_pd *)p; }
static inline struct shim_mr *to_smr(struct ibv_mr *m) { return (struct shim_mr *)m; }
static inline struct shim_cq *to_scq(struct ibv_cq *c) { return (struct shim_cq *)c; }
static inline struct shim_qp *to_sqp(struct ibv_qp *q) { return (struct shim_qp *)q; }
static inline struct shim_srq *to_ssrq(struct ibv_srq *s) { return (struct shim_srq *)s; }
static inline struct shim_ah *to_sah(struct ibv_ah *a) { return (struct shim_ah *)a; }
static inline struct shim_channel *to_sch(struct ibv_comp_channel *c)
{
	return (struct shim_channel *)c;
}

/* ---- process-wide state (device.c) ----------------------------------------- */

/* Load the configuration and create the device objects (not the devices). */
int shim_init(void);
unsigned int shim_ndevices(void);
struct shim_device *shim_device(unsigned int i);
struct shim_device *shim_device_by_ibdev(struct ibv_device *ibdev);
const struct shim_config *shim_config(void);
/* Create and bring up the simulated HCA behind d (idempotent). 0 or errno. */
int shim_device_up(struct shim_device *d);
/* Stop the device thread and destroy the device (tests, process exit). */
void shim_device_down(struct shim_device *d);

/*
 * Let the device make progress while the caller waits for something:
 * cooperative mode steps the whole in-process fabric once; threaded mode
 * waits (up to timeout_ms) for the device thread to make progress past
 * `seen` (from shim_bus_progress()).  Returns 1 if something happened, 0 if
 * the simulation is idle (cooperative) or the wait timed out.
 */
int shim_wait(struct shim_device *d, uint64_t seen, unsigned int timeout_ms);
/*
 * Let the device finish the work it has in hand (nothing new is started by
 * the caller meanwhile): before a QP is destroyed and at process exit.
 * Threaded mode gives up after max_ms of wall time (a device kept busy by
 * other traffic); cooperative mode steps the work of the current cycle.
 */
void shim_device_quiesce(struct shim_device *d, unsigned int max_ms);
/*
 * Threaded mode, a caller with nothing to do (an empty ibv_poll_cq): lend its
 * thread to the device -- take what the switch sent, do the work the device
 * has at its current cycle -- unless the device thread is at it.  1 if it
 * did something (else the caller should yield).
 */
int shim_device_poll_help(struct shim_device *d);
/* Cooperative mode: one step of every device of the process (see device.c). */
enum { SHIM_STEP_IDLE = 0, SHIM_STEP_TIME = 1, SHIM_STEP_WORK = 2 };
int shim_coop_step(void);
uint64_t shim_coop_now(void);
/* Cooperative mode: let `cycles` of device time pass (work included); the cycles taken. */
uint64_t hcasim_shim_advance(uint64_t cycles);

/* Stop the connection manager and close its contexts (cm_agent.c; before the devices go). */
void cm_shutdown(void);

/* Interrupt handler of a device (events.c). */
void shim_irq(void *arg, unsigned int vector);

/* ---- errors ----------------------------------------------------------------------- */

/* Set errno and return NULL, for the pointer-returning verbs. */
static inline void *shim_null(int err)
{
	errno = err;
	return NULL;
}

/* Set errno and return err, for int-returning verbs (libibverbs returns the errno value). */
static inline int shim_errno(int err)
{
	errno = err;
	return err;
}

#endif /* HCASIM_SHIM_H */
