/* SPDX-License-Identifier: MIT */
/*
 * Build-time table sizes of the firmware.
 *
 * The defaults are the architectural maxima of spec/hca.toml (HCA_CAP_*).
 * A smaller build (the RV32 image, the fuzzer) overrides them with -D; at
 * boot the firmware uses min(engine capability, build size) for every table
 * and reports that in DEVICE.QUERY, so the host never sees more than exists.
 */
#ifndef HCASIM_FW_CONFIG_H
#define HCASIM_FW_CONFIG_H

#include "hcasim/hca_spec.h"

#ifndef FW_CFG_LOG_MAX_QP
#define FW_CFG_LOG_MAX_QP HCA_CAP_LOG_MAX_QP
#endif
#ifndef FW_CFG_LOG_MAX_CQ
#define FW_CFG_LOG_MAX_CQ HCA_CAP_LOG_MAX_CQ
#endif
#ifndef FW_CFG_LOG_MAX_SRQ
#define FW_CFG_LOG_MAX_SRQ HCA_CAP_LOG_MAX_SRQ
#endif
#ifndef FW_CFG_LOG_MAX_EQ
#define FW_CFG_LOG_MAX_EQ HCA_CAP_LOG_MAX_EQ
#endif
#ifndef FW_CFG_LOG_MAX_MR
#define FW_CFG_LOG_MAX_MR HCA_CAP_LOG_MAX_MR
#endif
#ifndef FW_CFG_LOG_MAX_PD
#define FW_CFG_LOG_MAX_PD HCA_CAP_LOG_MAX_PD
#endif
#ifndef FW_CFG_MAX_CTX
#define FW_CFG_MAX_CTX HCA_CAP_MAX_CTX
#endif
#ifndef FW_CFG_MAX_HANDLES
#define FW_CFG_MAX_HANDLES HCA_CAP_MAX_HANDLES
#endif

#define FW_MAX_QP  (1u << FW_CFG_LOG_MAX_QP)
#define FW_MAX_CQ  (1u << FW_CFG_LOG_MAX_CQ)
#define FW_MAX_SRQ (1u << FW_CFG_LOG_MAX_SRQ)
#define FW_MAX_EQ  (1u << FW_CFG_LOG_MAX_EQ)
#define FW_MAX_MR  (1u << FW_CFG_LOG_MAX_MR)
#define FW_MAX_PD  (1u << FW_CFG_LOG_MAX_PD)
#define FW_MAX_CTX FW_CFG_MAX_CTX
#define FW_MAX_HANDLES FW_CFG_MAX_HANDLES
#define FW_MAX_UAR HCA_CAP_MAX_UAR
#define FW_MAX_GID HCA_CAP_GID_TBL_LEN

_Static_assert(FW_CFG_LOG_MAX_QP <= HCA_CAP_LOG_MAX_QP && FW_CFG_LOG_MAX_QP >= 2, "QP table");
_Static_assert(FW_CFG_LOG_MAX_CQ <= HCA_CAP_LOG_MAX_CQ && FW_CFG_LOG_MAX_CQ >= 1, "CQ table");
_Static_assert(FW_CFG_LOG_MAX_SRQ <= HCA_CAP_LOG_MAX_SRQ && FW_CFG_LOG_MAX_SRQ >= 1, "SRQ table");
_Static_assert(FW_CFG_LOG_MAX_EQ <= HCA_CAP_LOG_MAX_EQ && FW_CFG_LOG_MAX_EQ >= 1, "EQ table");
_Static_assert(FW_CFG_LOG_MAX_MR <= HCA_CAP_LOG_MAX_MR && FW_CFG_LOG_MAX_MR >= 1, "MR table");
_Static_assert(FW_CFG_LOG_MAX_PD <= HCA_CAP_LOG_MAX_PD && FW_CFG_LOG_MAX_PD >= 1, "PD table");
_Static_assert(FW_MAX_CTX >= 1 && FW_MAX_CTX <= HCA_CAP_MAX_CTX, "context table");
_Static_assert(FW_MAX_HANDLES >= 8 && FW_MAX_HANDLES <= HCA_CAP_MAX_HANDLES, "handle table");

/* Dispatcher capacity: merged objects, methods per object, attributes per method. */
#define FW_UAPI_MAX_OBJECTS 12
#define FW_UAPI_MAX_METHODS 8
#define FW_UAPI_MAX_ATTRS 12
/* Largest PTR_IN/PTR_OUT/ENUM payload the dispatcher buffers (the spec length). */
#define FW_ATTR_BUF 128

#endif /* HCASIM_FW_CONFIG_H */
