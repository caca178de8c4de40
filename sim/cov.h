/* SPDX-License-Identifier: MIT */
/*
 * Functional coverage of the transport, collected at the transaction level
 * (docs/sim.md "Functional coverage").  One collector watches one engine
 * through what crosses the engine interface -- doorbells, context writes,
 * received and sent frames (parsed with the model's codec), DMA reads of
 * WQEs, DMA writes of CQEs/EQEs (decoded with the spec layouts), interrupts
 * -- and, at device level, the firmware commands and their returns.  The
 * same collector runs for the model and for the RTL: it never looks inside
 * an engine.
 *
 * A collector only counts named keys ("op.tx.RC_SEND_FIRST.w64"); which keys
 * are bins, and which features the RTL implements, is said once in
 * sim/coverage/bins.txt, read by tools/covreport.py.  Counts are written as
 * "key count" lines to a .cov file.
 *
 * Use it through the "cov" engine (cov_engine.c), which wraps any engine,
 * or through HCASIM_COV=DIR, which makes sim/tb and sim/device wrap theirs.
 */
#ifndef HCASIM_SIM_COV_H
#define HCASIM_SIM_COV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hcasim/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cov;

/* data_w: the engine's datapath width (crossed with opcodes). */
struct cov *cov_new(unsigned int data_w);
void cov_free(struct cov *c);
/* Count one hit of the key printf(fmt, ...). */
void cov_hit(struct cov *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hits of a key so far (0 if never hit). */
uint64_t cov_count(const struct cov *c, const char *key);
/* Write "key count" lines (sorted) to path; 0 or -errno. */
int cov_write(const struct cov *c, const char *path);

/* Observers: what crosses the engine interface. */
void cov_bar0_write(struct cov *c, uint32_t off, uint32_t value);
/* After forwarding a management write to (ops, e): context writes are read back. */
void cov_mgmt_write(struct cov *c, const struct hca_engine_ops *ops, struct hca_engine *e, uint32_t addr,
		    uint32_t value);
void cov_rx_frame(struct cov *c, const uint8_t *frame, size_t len);
void cov_tx_frame(struct cov *c, const uint8_t *frame, size_t len);
/* rc: the host's answer (0 or -EFAULT); buf holds the data read when rc == 0. */
void cov_dma_read(struct cov *c, uint64_t iova, const void *buf, size_t len, int rc);
void cov_dma_write(struct cov *c, uint64_t iova, const void *buf, size_t len, int rc);
void cov_interrupt(struct cov *c, unsigned int vector);
/* An engine event the host pops from the management port's event FIFO (HCA_EVENT_*, element). */
void cov_engine_event(struct cov *c, unsigned int type, uint32_t element);
/* Firmware DMA reads (sim/device.c): command entries and command headers. */
void cov_fw_dma_read(struct cov *c, uint64_t iova, const void *buf, size_t len, int rc);
/* Firmware command: object, method, CMDQ entry status and syndrome reason. */
void cov_fw_cmd(struct cov *c, unsigned int object, unsigned int method, uint32_t status, unsigned int reason);

/* ---- the "cov" engine (cov_engine.c) ---------------------------------- */
/*
 * Options: inner=NAME (engine wrapped, default "model"), out=PATH (counts
 * written there when the engine is destroyed), in.K=V (K=V for the inner
 * engine, e.g. in.inner=rtl); every other option is passed to the inner
 * engine unchanged.
 */
extern const struct hca_engine_ops hca_cov_engine_ops;
void hca_cov_engine_register(void);
/* The collector of a "cov" engine (NULL if e is not one). */
struct cov *cov_of(struct hca_engine *e);

/*
 * Rewrite an engine choice so that it is collected: engine X becomes "cov"
 * with inner=X; "lockstep" keeps its name and gets a "cov" reference and
 * DUT (ref.inner/dut.inner = what was asked), so lockstep's own API still
 * works.  Counts go to "<prefix>.<engine>.cov" (lockstep: "<prefix>.ref.<engine>.cov"
 * and "<prefix>.dut.<engine>.cov"): tools/covreport.py tells the engines apart by it.
 * Returns 0, or -1 when the result does not fit.
 */
int cov_wrap_config(const char *engine, const char *opts, const char *prefix, char *eng_out, size_t eng_n,
		    char *opts_out, size_t opts_n);
/* HCASIM_COV=DIR set: the next file prefix "DIR/<program>-<pid>-<seq>" in buf; false if unset. */
bool cov_env_prefix(const char *what, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* HCASIM_SIM_COV_H */
