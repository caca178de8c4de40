// SPDX-License-Identifier: MIT
/*
 * The core uapi definition, generated at compile time from the X-macros of
 * include/hcasim/hca_spec.h (spec/hca.toml): objects -> methods -> attribute
 * specs.  Only what the spec cannot say is written here: which methods run
 * without a context, the ENUM element tables and the reserved-field checks.
 */
#include "fw_handlers.h"

/* DEVICE methods and CONTEXT.ALLOC take context 0 (or any live context). */
#define FW_CTX_MODE(obj, method)                                                        \
	(((obj) == HCA_OBJ_DEVICE || ((obj) == HCA_OBJ_CONTEXT && (method) == HCA_METHOD_CONTEXT_ALLOC)) \
		 ? FW_CTX_OPTIONAL : FW_CTX_REQUIRED)

#define FW_ATTR(OBJ, METH, ATTR, ID, KIND, ACC, IOBJ, MAND, LEN, MINLEN, ZT) \
	{ .id = ID, .kind = KIND, .access = ACC, .obj = IOBJ, .len = LEN, .min_len = MINLEN, \
	  .mandatory = MAND, .zero_trailing = ZT },
#define FW_ATTRS_OF(OBJ, METH, ID) \
	static const struct fw_attr_spec fw_attrs_##OBJ##_##METH[] = { HCA_UAPI_ATTRS_##OBJ##_##METH(FW_ATTR) };
#define FW_OBJ_ATTRS(OBJ, ID) HCA_UAPI_METHODS_##OBJ(FW_ATTRS_OF)
HCA_UAPI_OBJECTS(FW_OBJ_ATTRS)

#define FW_METHOD(OBJ, METH, ID) \
	{ .id = ID, .ctx_mode = FW_CTX_MODE(HCA_OBJ_##OBJ, ID), \
	  .num_attrs = (uint8_t)FW_ARRAY_SIZE(fw_attrs_##OBJ##_##METH), \
	  .handler = fw_h_##OBJ##_##METH, .attrs = fw_attrs_##OBJ##_##METH },
#define FW_METHODS_OF(OBJ, ID) \
	static const struct fw_method_def fw_methods_##OBJ[] = { HCA_UAPI_METHODS_##OBJ(FW_METHOD) };
HCA_UAPI_OBJECTS(FW_METHODS_OF)

#define FW_OBJECT(OBJ, ID) \
	{ .id = ID, .num_methods = (uint8_t)FW_ARRAY_SIZE(fw_methods_##OBJ), .methods = fw_methods_##OBJ },
static const struct fw_object_def fw_objects_core[] = { HCA_UAPI_OBJECTS(FW_OBJECT) };

#define FW_ENUM_ELEM(E, ID, LEN) { .id = ID, .len = LEN },
static const struct fw_enum_elem set_gid_addr[] = { HCA_UAPI_ENUM_DEVICE_SET_GID_ADDR(FW_ENUM_ELEM) };

static const struct fw_attr_ext fw_ext_core[] = {
	{ HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_SET_GID, HCA_ATTR_DEVICE_SET_GID_ADDR,
	  (uint8_t)FW_ARRAY_SIZE(set_gid_addr), set_gid_addr, 0 },
	{ HCA_OBJ_CQ, HCA_METHOD_CQ_CREATE, HCA_ATTR_CQ_CREATE_INIT_ATTR, 0, 0, fw_rsvd_ok_cq_init_attr },
	{ HCA_OBJ_QP, HCA_METHOD_QP_CREATE, HCA_ATTR_QP_CREATE_INIT_ATTR, 0, 0, fw_rsvd_ok_qp_init_attr },
	{ HCA_OBJ_QP, HCA_METHOD_QP_MODIFY, HCA_ATTR_QP_MODIFY_ATTR, 0, 0, fw_rsvd_ok_qp_attr },
	{ HCA_OBJ_SRQ, HCA_METHOD_SRQ_CREATE, HCA_ATTR_SRQ_CREATE_INIT_ATTR, 0, 0, fw_rsvd_ok_srq_init_attr },
	{ HCA_OBJ_SRQ, HCA_METHOD_SRQ_MODIFY, HCA_ATTR_SRQ_MODIFY_ATTR, 0, 0, fw_rsvd_ok_srq_attr },
	{ HCA_OBJ_EQ, HCA_METHOD_EQ_CREATE, HCA_ATTR_EQ_CREATE_INIT_ATTR, 0, 0, fw_rsvd_ok_eq_init_attr },
};

const struct fw_uapi_def fw_uapi_core = {
	.driver_id = HCA_DRIVER_ID_NONE,
	.num_objects = (uint8_t)FW_ARRAY_SIZE(fw_objects_core),
	.num_ext = (uint8_t)FW_ARRAY_SIZE(fw_ext_core),
	.objects = fw_objects_core,
	.ext = fw_ext_core,
};

/* Reserved bytes are the generator's rsvd_* members of each struct. */
#define RSVD(s, f) fw_is_zero((s)->f, sizeof((s)->f))

int fw_rsvd_ok_cq_init_attr(const void *p)
{
	const struct hca_cq_init_attr *s = p;
	return RSVD(s, rsvd_01);
}

int fw_rsvd_ok_qp_init_attr(const void *p)
{
	const struct hca_qp_init_attr *s = p;
	return RSVD(s, rsvd_06) && RSVD(s, rsvd_1c) && RSVD(s, rsvd_30);
}

int fw_rsvd_ok_qp_attr(const void *p)
{
	const struct hca_qp_attr *s = p;
	return RSVD(s, rsvd_43);
}

int fw_rsvd_ok_srq_init_attr(const void *p)
{
	const struct hca_srq_init_attr *s = p;
	return RSVD(s, rsvd_0e) && RSVD(s, rsvd_18);
}

int fw_rsvd_ok_srq_attr(const void *p)
{
	const struct hca_srq_attr *s = p;
	return RSVD(s, rsvd_0c);
}

int fw_rsvd_ok_eq_init_attr(const void *p)
{
	const struct hca_eq_init_attr *s = p;
	return RSVD(s, rsvd_02);
}
