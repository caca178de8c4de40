/* SPDX-License-Identifier: MIT */
/*
 * The C reference (golden) model of the hcasim packet engine: the
 * `struct hca_engine_ops` named "model" (include/hcasim/engine.h).
 *
 * Link build/lib/libhcamodel.a (and libhcaroce.a, the codec) and call
 * hca_model_engine_register() once; hca_engine_find("model") then returns
 * the ops.  (The model also registers itself from a constructor when its
 * object file is linked in; the explicit call is what pulls it in from the
 * static library.)  See docs/model.md.
 */
#ifndef HCASIM_MODEL_MODEL_H
#define HCASIM_MODEL_MODEL_H

#include "hcasim/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const struct hca_engine_ops hca_model_engine_ops;

/* Register "model" with hca_engine_register(); idempotent. */
void hca_model_engine_register(void);

#ifdef __cplusplus
}
#endif

#endif /* HCASIM_MODEL_MODEL_H */
