/* SPDX-License-Identifier: MIT */
/*
 * Method handlers.  The core ones are declared from the spec's X-macros:
 * every method of spec/hca.toml needs fw_h_<OBJ>_<METHOD>, so a method added
 * to the spec without a handler fails to link.
 */
#ifndef HCASIM_FW_HANDLERS_H
#define HCASIM_FW_HANDLERS_H

#include "fw_priv.h"

#define FW_HANDLER_DECL(OBJ, METH, ID) int fw_h_##OBJ##_##METH(struct hca_fw *fw, struct fw_bundle *b);
#define FW_HANDLER_DECLS(OBJ, ID) HCA_UAPI_METHODS_##OBJ(FW_HANDLER_DECL)
HCA_UAPI_OBJECTS(FW_HANDLER_DECLS)
#undef FW_HANDLER_DECLS
#undef FW_HANDLER_DECL

/* Driver-specific (HCA_DRIVER_ID_HCASIM) handlers. */
int fw_h_hcasim_DEVICE_QUERY_FW(struct hca_fw *fw, struct fw_bundle *b);

/* Ring geometry rules shared by QPs and SRQs (docs/programming.md 5). */
int fw_rq_stride_ok(uint8_t log_stride, uint32_t max_sge);
int fw_sq_stride_ok(uint8_t log_stride, uint32_t max_sge, uint32_t max_inline);
/* ibv_port_attr.active_mtu of port 1: the wire carries IB's largest MTU. */
#define FW_PORT_MTU HCA_MTU_4096

/* Reserved-field checks of the struct PTR_IN payloads (1 = all zero). */
int fw_rsvd_ok_cq_init_attr(const void *p);
int fw_rsvd_ok_qp_init_attr(const void *p);
int fw_rsvd_ok_qp_attr(const void *p);
int fw_rsvd_ok_srq_init_attr(const void *p);
int fw_rsvd_ok_srq_attr(const void *p);
int fw_rsvd_ok_eq_init_attr(const void *p);

#endif /* HCASIM_FW_HANDLERS_H */
