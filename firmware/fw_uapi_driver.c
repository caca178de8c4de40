// SPDX-License-Identifier: MIT
/*
 * hcasim's driver-specific uapi definition (HCA_DRIVER_ID_HCASIM), merged
 * into the core tree at firmware init.  It shows both ways a driver extends
 * the core ABI without touching it:
 *   - a new method on a core object: DEVICE.HCASIM_QUERY_FW;
 *   - a new attribute on a core method: QP.QUERY gets the optional PTR_OUT
 *     HCASIM_QP_QUERY_ENGINE (the core QP.QUERY handler fills it when the
 *     caller asked for it).
 */
#include "fw_handlers.h"

static const struct fw_attr_spec query_fw_attrs[] = {
	{ .id = HCA_HCASIM_ATTR_DEVICE_QUERY_FW_RESP, .kind = HCA_ATTR_KIND_PTR_OUT,
	  .len = HCA_FW_INFO_SIZE, .min_len = HCA_FW_INFO_SIZE, .mandatory = 1, .zero_trailing = 1 },
};

static const struct fw_attr_spec qp_query_attrs[] = {
	{ .id = HCA_HCASIM_ATTR_QP_QUERY_ENGINE, .kind = HCA_ATTR_KIND_PTR_OUT,
	  .len = HCA_QP_ENGINE_STATE_SIZE, .min_len = HCA_QP_ENGINE_STATE_SIZE, .mandatory = 0,
	  .zero_trailing = 1 },
};

static const struct fw_method_def device_methods[] = {
	{ .id = HCA_HCASIM_METHOD_DEVICE_QUERY_FW, .ctx_mode = FW_CTX_OPTIONAL,
	  .num_attrs = (uint8_t)FW_ARRAY_SIZE(query_fw_attrs), .handler = fw_h_hcasim_DEVICE_QUERY_FW,
	  .attrs = query_fw_attrs },
};

static const struct fw_method_def qp_methods[] = {
	/* No handler: attributes added to the core method. */
	{ .id = HCA_METHOD_QP_QUERY, .num_attrs = (uint8_t)FW_ARRAY_SIZE(qp_query_attrs),
	  .attrs = qp_query_attrs },
};

static const struct fw_object_def objects[] = {
	{ .id = HCA_OBJ_DEVICE, .num_methods = (uint8_t)FW_ARRAY_SIZE(device_methods), .methods = device_methods },
	{ .id = HCA_OBJ_QP, .num_methods = (uint8_t)FW_ARRAY_SIZE(qp_methods), .methods = qp_methods },
};

const struct fw_uapi_def fw_uapi_hcasim = {
	.driver_id = HCA_DRIVER_ID_HCASIM,
	.num_objects = (uint8_t)FW_ARRAY_SIZE(objects),
	.objects = objects,
};
