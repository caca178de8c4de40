/* SPDX-License-Identifier: MIT */
/*
 * `hcasim replay`: feed a capture into one simulated device (firmware + an
 * engine: model, rtl or lockstep) and report what the device did with each
 * frame.  docs/replay.md is the user's guide; the pieces:
 *
 *   setup.c   the setup file (device address, PDs, MRs, CQs, QPs, receive
 *             WQEs) parsed into struct rp_setup; errors name file and line
 *   build.c   the device brought up and the setup created in it through the
 *             firmware's command queue (sim/devctl), as a driver would
 *   run.c     the frames delivered one by one, and what each one caused
 *             observed: counters, frames sent, CQEs, DMA writes, events,
 *             QP state changes
 *   report.c  the observations as text (stdout) and JSON lines (--json)
 *   main.c    the command line
 */
#ifndef HCASIM_SIM_REPLAY_H
#define HCASIM_SIM_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hcasim/backend.h"
#include "hcasim/hca_spec.h"
#include "devctl.h"

#define RP_NAME_MAX 32
#define RP_MAX_PD 16
#define RP_MAX_MR 64
#define RP_MAX_CQ 16
#define RP_MAX_QP 64
#define RP_MAX_RECV 1024	/* receive WQEs in one setup */
#define RP_MAX_SGE 4		/* scatter entries of one receive WQE */
#define RP_MAX_DATA 65536	/* bytes of an MR's `data` */

/* ---- the setup file (setup.c) ----------------------------------------------------------- */

struct rp_pd {
	char name[RP_NAME_MAX];
	unsigned int line;
	uint32_t handle, pdn;		/* built */
};

struct rp_mr {
	char name[RP_NAME_MAX];
	unsigned int line;
	int pd;				/* index in rp_setup.pd */
	uint64_t addr, length;		/* key address space (verbs addr/iova) */
	uint32_t access;		/* HCA_ACCESS_* */
	bool have_rkey;
	uint32_t rkey;			/* the key the capture uses (lkey = rkey) */
	int fill;			/* initial byte of the whole region (-1: zero) */
	uint8_t *data;			/* initial bytes at the start, or NULL */
	size_t data_len;
	/* built */
	uint32_t handle, key;
	uint64_t iova;
	uint8_t *buf;
};

struct rp_cq {
	char name[RP_NAME_MAX];
	unsigned int line;
	uint32_t entries;
	/* built */
	uint32_t handle, cqn;
	unsigned int log_size;
	struct hca_cqe *ring;
	uint64_t iova;
	uint32_t ci;
};

struct rp_sge {
	int mr;				/* index in rp_setup.mr */
	uint64_t addr;			/* key address space */
	uint32_t len;
};

struct rp_recv {
	int qp;				/* index in rp_setup.qp */
	unsigned int line;
	unsigned int num_sge;
	struct rp_sge sge[RP_MAX_SGE];
};

struct rp_qp {
	char name[RP_NAME_MAX];
	unsigned int line;
	uint8_t type;			/* HCA_QPT_RC, UC, UD */
	uint8_t state;			/* target: HCA_QPS_INIT, RTR, RTS */
	int pd, send_cq, recv_cq;	/* indices */
	bool have_qpn;
	uint32_t want_qpn;		/* the QPN the capture uses */
	struct hca_qp_attr attr;	/* modify attributes (AV from remote_mac/remote_ip) */
	bool have_remote_ip, have_remote_mac, have_dest_qpn;
	uint32_t max_send_wr, max_recv_wr, max_recv_sge;
	/* built */
	uint32_t handle, qpn;
	uint8_t *rq;
	uint64_t rq_iova;
	unsigned int log_rq_size, log_rq_stride;
	uint16_t rq_pi;
	uint8_t last_state;		/* engine cur_state last seen */
};

struct rp_setup {
	char path[256];
	uint8_t mac[6];
	bool have_mac;
	uint32_t ip;			/* host order; GID index 1 = ::ffff:ip */
	unsigned int npd, nmr, ncq, nqp, nrecv;
	struct rp_pd pd[RP_MAX_PD];
	struct rp_mr mr[RP_MAX_MR];
	struct rp_cq cq[RP_MAX_CQ];
	struct rp_qp qp[RP_MAX_QP];
	struct rp_recv recv[RP_MAX_RECV];
};

/* Parse setup text; origin names it in errors ("FILE:LINE: ..."). 0 or -EINVAL. */
int rp_setup_parse(struct rp_setup *s, const char *text, const char *origin, char *err, size_t errlen);
/* Read and parse a file. 0, -EINVAL (bad content) or -errno (unreadable). */
int rp_setup_load(struct rp_setup *s, const char *path, char *err, size_t errlen);
void rp_setup_free(struct rp_setup *s);
/* "local_write,remote_write,..." of HCA_ACCESS_* bits, into buf. */
const char *rp_access_str(uint32_t access, char *buf, size_t n);

/* ---- the device (build.c) ---------------------------------------------------------------- */

struct rp_obs;

struct rp_dev {
	const struct hca_backend *be;
	struct hca_dev *dev;
	struct hostmem *hm;
	struct hca_devctl_sim sim;
	struct hca_devctl *dc;
	uint32_t ctx, uar;
	/* the async-event EQ */
	uint32_t eq, eqn;
	unsigned int eq_log;
	struct hca_eqe *eq_ring;
	uint64_t eq_iova;
	uint32_t eq_ci;
	/* where the host callbacks record (NULL: not recording, setup phase) */
	struct rp_obs *obs;
	uint64_t irqs;
	char err[512];
};

struct rp_dev_opts {
	const char *backend;		/* "model", "rtl", "lockstep" */
	unsigned int width;		/* RTL datapath: 0 (default), 64, 512 */
	const char *options;		/* backend options or NULL */
	uint64_t seed;
	const char *trace;		/* rtl/lockstep: FST waveform of the RTL, or NULL */
	uint64_t trace_from, trace_to;	/* traced cycles (trace_to 0 = to the end) */
};

/* Create the device, bring it up, create everything the setup names.  Progress
 * lines go to `log` (may be NULL).  0, or -errno with d->err set. */
int rp_dev_open(struct rp_dev *d, const struct rp_dev_opts *o, struct rp_setup *s, FILE *log);
void rp_dev_close(struct rp_dev *d);
/* Register every backend this program has (model, rtl, lockstep). */
void rp_register_backends(void);

/* ---- observations (run.c, report.c) ------------------------------------------------------- */

struct rp_frame {
	uint64_t cycle;
	uint8_t *data;
	size_t len;
};

struct rp_dma {
	uint64_t iova;
	size_t len;
	bool fault;			/* refused by the IOMMU: nothing written */
};

struct rp_cqe {
	int cq;				/* index in rp_setup.cq */
	struct hca_cqe cqe;
};

struct rp_state_change {
	int qp;
	uint8_t from, to;
};

/* What the device did between a frame's arrival and the next frame's. */
struct rp_obs {
	unsigned long index;		/* 1-based frame number in the capture */
	uint64_t cycle;			/* delivery cycle */
	const uint8_t *in;		/* the frame delivered */
	size_t in_len, orig_len;
	uint32_t stat[HCA_STAT_COUNT];	/* counter deltas */
	size_t ntx, ndma, ncqe, neqe, nstate;
	struct rp_frame *tx;
	struct rp_dma *dma;
	struct rp_cqe *cqe;
	struct hca_eqe *eqe;
	struct rp_state_change *state;
	uint64_t dma_reads, dma_read_bytes, dma_read_faults;
	bool busy_at_end;		/* the engine still had work when the window closed */
	const char *divergence;		/* lockstep: first divergence seen in this window */
};

void rp_obs_reset(struct rp_obs *o);
void rp_obs_free(struct rp_obs *o);
int rp_obs_add_tx(struct rp_obs *o, uint64_t cycle, const uint8_t *f, size_t len);
int rp_obs_add_dma(struct rp_obs *o, uint64_t iova, size_t len, bool fault);

/* ---- the replay (run.c) ----------------------------------------------------------------- */

struct rp_run_opts {
	bool capture_timing;		/* frame times from the capture, else fixed spacing */
	uint64_t spacing;		/* cycles between frames (fixed spacing) */
	uint64_t tail;			/* cycles after the last frame */
	const char *out;		/* answers pcap or NULL */
	FILE *json;			/* JSON lines or NULL */
	const char *dump_dir;		/* final MR contents, DIR/<mr>.bin, or NULL */
	bool quiet;			/* no per-frame text */
};

struct rp_totals {
	unsigned long frames, accepted, dropped, answers, cqes;
	bool diverged;
};

/* Replay `capture`; 0 (ran; see totals), or -errno with err set (bad capture, I/O). */
int rp_run(struct rp_dev *d, struct rp_setup *s, const char *capture, const struct rp_run_opts *o,
	   struct rp_totals *t, char *err, size_t errlen);

/* ---- the report (report.c) ---------------------------------------------------------------- */

/* The verdict on the frame: "accepted", "dropped", "duplicate", "out-of-sequence", "nak". */
const char *rp_verdict(const struct rp_obs *o, char *why, size_t n);
void rp_report_text(FILE *f, const struct rp_setup *s, const struct rp_dev *d, const struct rp_obs *o);
void rp_report_json(FILE *f, const struct rp_setup *s, const struct rp_dev *d, const struct rp_obs *o);
/* Where an IOVA lies: "mr NAME va 0x.." / "cq NAME" / "eq" / "host". */
const char *rp_region(const struct rp_setup *s, const struct rp_dev *d, uint64_t iova, char *buf,
		      size_t n);
/* The command (main.c). */
int hcasim_replay_main(int argc, char **argv);

#endif /* HCASIM_SIM_REPLAY_H */
