/* SPDX-License-Identifier: MIT */
/*
 * A fake packet engine for firmware tests: the management port as a
 * register file that stores contexts and records what firmware did, plus
 * just enough BAR0 (the init segment) for devctl to bring the device up.
 * No data path.  Registered as engine "fake" by fake_engine_register().
 *
 * Options (hca_engine_config.options, "k=v,k=v"): log_max_qp, log_max_cq,
 * log_max_srq, log_max_eq, log_max_mr, log_max_pd (CAP0 fields), max_uar,
 * gid_tbl_len, num_msix -- to make tables small enough to exhaust.
 */
#ifndef HCASIM_FW_TESTS_FAKE_ENGINE_H
#define HCASIM_FW_TESTS_FAKE_ENGINE_H

#include <stdint.h>

#include "hcasim/engine.h"
#include "hcasim/hca_spec.h"

#define FAKE_MAX_EQES 4096

struct fake_eqe {
	uint32_t eqn;
	uint8_t type, subtype;
	uint32_t element, data;
};

struct fake_engine;

void fake_engine_register(void);
extern const struct hca_engine_ops fake_engine_ops;

/* Queue an engine event (as the engine's event FIFO would). */
void fake_engine_event(struct hca_engine *e, uint8_t type, uint32_t element);
/* Context bytes as the engine holds them (config + status); NULL if out of range. */
uint8_t *fake_engine_ctx(struct hca_engine *e, unsigned int type, uint32_t index);
/* Last flags byte written to a QPC (one-shot bits included). */
uint8_t fake_engine_qpc_flags(struct hca_engine *e, uint32_t qpn);
/* Context writes per type since creation. */
uint32_t fake_engine_ctx_writes(struct hca_engine *e, unsigned int type);
/* Log of context writes: i-th write (0 = first); type 0 past the end. */
#define FAKE_CTX_LOG 8192
struct fake_ctx_write {
	uint8_t type;
	uint8_t first;		/* byte 0 of the context written (valid / QP state) */
	uint32_t index;
};
unsigned int fake_engine_ctx_log_len(struct hca_engine *e);
struct fake_ctx_write fake_engine_ctx_log(struct hca_engine *e, unsigned int i);
/* Make every context write of `type` fail (BAD_STATE) from now on (0 = none). */
void fake_engine_fail_ctx_type(struct hca_engine *e, unsigned int type);
/* EQEs injected so far (the fake does not write EQ rings). */
unsigned int fake_engine_num_eqes(struct hca_engine *e);
const struct fake_eqe *fake_engine_eqe(struct hca_engine *e, unsigned int i);
/* Refuse injections into this EQ with OVERFLOW (0 = none). */
void fake_engine_eq_full(struct hca_engine *e, uint32_t eqn);
uint32_t fake_engine_mgmt(struct hca_engine *e, uint32_t addr);

#endif
