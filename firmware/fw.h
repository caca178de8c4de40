/* SPDX-License-Identifier: MIT */
/*
 * hcasim device firmware: public interface.
 *
 * The caller allocates struct hca_fw (zeroed or not; hca_fw_init clears it),
 * fills a HAL (hal.h) and calls
 *   hca_fw_init()            once, at power-on (touches nothing but memory);
 *   hca_fw_run()             whenever the firmware interrupt (the engine's
 *                            FW_EVENT != 0) is seen, or the cycle counter
 *                            reached hca_fw_next_deadline();
 * The struct must not be moved or copied after init (it points into itself).
 * See docs/firmware.md.
 */
#ifndef HCASIM_FW_H
#define HCASIM_FW_H

#include <stdint.h>

#include "hal.h"
#include "fw_priv.h"

/* 0, or -HCA_EINVAL (HAL incomplete) / a uapi merge error (a firmware bug). */
int hca_fw_init(struct hca_fw *fw, const struct hca_fw_hal *hal, const struct hca_fw_board *board);

/* Serve pending work: boot, host CTRL writes, command doorbells, engine
 * events, the health timer.  Takes no device time (docs/firmware.md). */
void hca_fw_run(struct hca_fw *fw);

/* Earliest cycle at which the firmware wants to run without an interrupt
 * (boot pending: 0; else the next health tick). */
uint64_t hca_fw_next_deadline(const struct hca_fw *fw);

/* Counters since power-on. */
const struct hca_fw_stats *hca_fw_stats(const struct hca_fw *fw);

/*
 * Test hook: make the handler of (object, method) fail with `err` after it
 * succeeded, `skip` matching commands from now; err 0 disarms.  The command
 * then rolls back exactly as for any handler failure.
 */
void hca_fw_inject_failure(struct hca_fw *fw, uint16_t obj, uint16_t method, int err,
			   uint32_t skip);

/*
 * Consistency check of the firmware's own bookkeeping (reference counts,
 * handle tables, object ownership).  0 when consistent, else a number that
 * names the first broken rule (docs/firmware.md); used by tests and the
 * fuzzer as an oracle.
 */
int hca_fw_check(const struct hca_fw *fw);

/* Live objects of a type (HCA_OBJ_*; CONTEXT counts contexts). */
unsigned int hca_fw_count(const struct hca_fw *fw, uint16_t type);

#endif /* HCASIM_FW_H */
