// SPDX-License-Identifier: MIT
/*
 * The dispatcher tree: the core definition holds exactly the spec's
 * objects, methods and attribute specs (checked against the X-macros of
 * hca_spec.h, independently of how fw_uapi_core.c builds it), and the merge
 * rules for driver-specific definitions (fw_uapi.h).
 */
#include <string.h>

#include "check.h"
#include "fw_handlers.h"
#include "fw_uapi.h"

static int dummy_handler(struct hca_fw *fw, struct fw_bundle *b)
{
	(void)fw;
	(void)b;
	return 0;
}

static struct fw_uapi u;

/* Every spec attribute must be in the merged core tree with the spec's values. */
static void check_spec_attr(uint16_t obj, uint16_t method, uint16_t id, uint8_t kind, uint8_t acc,
			    uint16_t iobj, uint8_t mand, uint16_t len, uint16_t min_len, uint8_t zt,
			    const char *name)
{
	const struct fw_uapi_object *o = fw_uapi_object(&u, obj, 0);
	const struct fw_uapi_method *m = o ? fw_uapi_method(o, method, 0) : NULL;
	int k = m ? fw_uapi_attr(m, id, 0) : -1;
	const struct fw_attr_spec *s;

	CHECK(k >= 0, "%s missing from the core tree", name);
	if (k < 0)
		return;
	s = m->attrs[k].spec;
	CHECK(s->kind == kind && s->access == acc && s->obj == iobj && s->mandatory == mand &&
	      s->len == len && s->min_len == min_len && s->zero_trailing == zt,
	      "%s differs from the spec", name);
	CHECK(!m->attrs[k].driver, "%s marked driver-specific", name);
}

/* Count methods and attributes per object independently of the firmware. */
#define COUNT_METHOD(OBJ, METH, ID) nmethods[HCA_OBJ_##OBJ]++;
#define COUNT_METHODS(OBJ, ID) HCA_UAPI_METHODS_##OBJ(COUNT_METHOD)
#define CHECK_ATTRS_OF(OBJ, METH, ID) { unsigned int n = 0; \
	HCA_UAPI_ATTRS_##OBJ##_##METH(COUNT_ONE) \
	const struct fw_uapi_method *m = fw_uapi_method(fw_uapi_object(&u, HCA_OBJ_##OBJ, 0), ID, 0); \
	CHECK(m && m->num_attrs == n, #OBJ "." #METH ": attribute count"); \
	HCA_UAPI_ATTRS_##OBJ##_##METH(CHECK_ONE) }
#define COUNT_ONE(OBJ, METH, ATTR, ...) n++;
#define CHECK_ONE(OBJ, METH, ATTR, ID, KIND, ACC, IOBJ, MAND, LEN, MINLEN, ZT) \
	check_spec_attr(HCA_OBJ_##OBJ, HCA_METHOD_##OBJ##_##METH, ID, KIND, ACC, IOBJ, MAND, LEN, \
			MINLEN, ZT, #OBJ "." #METH "." #ATTR);
#define CHECK_OBJ(OBJ, ID) HCA_UAPI_METHODS_##OBJ(CHECK_ATTRS_OF)

static void core_matches_spec(void)
{
	unsigned int nmethods[16] = { 0 }, nobj = 0;

	fw_uapi_clear(&u);
	CHECK_EQ(fw_uapi_merge(&u, &fw_uapi_core), 0, "core merge");
	HCA_UAPI_OBJECTS(COUNT_METHODS)
#define COUNT_OBJ(OBJ, ID) nobj++;
	HCA_UAPI_OBJECTS(COUNT_OBJ)
	CHECK_EQ(u.num_objects, nobj, "objects in the core tree");
	for (unsigned int i = 0; i < u.num_objects; i++)
		CHECK_EQ(u.objects[i].num_methods, nmethods[u.objects[i].id], "methods per object");
	HCA_UAPI_OBJECTS(CHECK_OBJ)
	/* Nothing driver-specific without a driver definition. */
	CHECK(!fw_uapi_method(fw_uapi_object(&u, HCA_OBJ_DEVICE, 1), HCA_HCASIM_METHOD_DEVICE_QUERY_FW, 1),
	      "driver method present without merge");
	/* Merging the core twice is refused. */
	CHECK_EQ(fw_uapi_merge(&u, &fw_uapi_core), -HCA_EEXIST, "core merged twice");
}

static void hcasim_driver_merge(void)
{
	const struct fw_uapi_object *dev, *qp;
	const struct fw_uapi_method *m;

	fw_uapi_clear(&u);
	CHECK_EQ(fw_uapi_merge(&u, &fw_uapi_core), 0, "core");
	CHECK_EQ(fw_uapi_merge(&u, &fw_uapi_hcasim), 0, "hcasim driver table");
	CHECK_EQ(u.driver_id, HCA_DRIVER_ID_HCASIM, "driver id recorded");
	dev = fw_uapi_object(&u, HCA_OBJ_DEVICE, 1);
	m = fw_uapi_method(dev, HCA_HCASIM_METHOD_DEVICE_QUERY_FW, 1);
	CHECK(m && m->driver, "QUERY_FW merged into DEVICE");
	CHECK(!fw_uapi_method(dev, HCA_HCASIM_METHOD_DEVICE_QUERY_FW, 0), "QUERY_FW visible to core callers");
	CHECK(fw_uapi_method(dev, HCA_METHOD_DEVICE_QUERY, 0), "core DEVICE.QUERY lost");
	qp = fw_uapi_object(&u, HCA_OBJ_QP, 1);
	m = fw_uapi_method(qp, HCA_METHOD_QP_QUERY, 1);
	CHECK(m && !m->driver, "QP.QUERY stays a core method");
	CHECK(m && fw_uapi_attr(m, HCA_HCASIM_ATTR_QP_QUERY_ENGINE, 1) >= 0, "ENGINE attr added to QP.QUERY");
	CHECK(m && fw_uapi_attr(m, HCA_HCASIM_ATTR_QP_QUERY_ENGINE, 0) < 0, "ENGINE attr visible to core callers");
	CHECK(m && m->handler == fw_h_QP_QUERY, "QP.QUERY handler replaced");
	CHECK(m && fw_uapi_attr(m, HCA_ATTR_QP_QUERY_ATTR, 0) >= 0, "core attribute lost");
}

/* Synthetic driver tables exercising each merge rule. */
static const struct fw_attr_spec a_out4[] = {
	{ .id = HCA_ID_DRIVER_NS | 1, .kind = HCA_ATTR_KIND_PTR_OUT, .len = 4, .min_len = 4 },
};
static const struct fw_attr_spec a_core_id[] = {	/* not in the driver namespace */
	{ .id = 9, .kind = HCA_ATTR_KIND_PTR_OUT, .len = 4, .min_len = 4 },
};
static const struct fw_attr_spec a_enum[] = {
	{ .id = HCA_ID_DRIVER_NS | 2, .kind = HCA_ATTR_KIND_ENUM },
};
static const struct fw_attr_spec a_big[] = {
	{ .id = HCA_ID_DRIVER_NS | 3, .kind = HCA_ATTR_KIND_PTR_IN, .len = FW_ATTR_BUF + 1, .min_len = 1 },
};
static const struct fw_attr_spec a_struct_in[] = {
	{ .id = HCA_ID_DRIVER_NS | 4, .kind = HCA_ATTR_KIND_PTR_IN, .len = 16, .min_len = 16, .zero_trailing = 1 },
};
static const struct fw_attr_spec a_two_new[] = {
	{ .id = 0, .kind = HCA_ATTR_KIND_IDR, .access = HCA_IDR_ACCESS_NEW, .obj = HCA_OBJ_PD },
	{ .id = 1, .kind = HCA_ATTR_KIND_IDR, .access = HCA_IDR_ACCESS_NEW, .obj = HCA_OBJ_PD },
};
static const struct fw_attr_spec a_dup_drv[] = {	/* id the hcasim table already added */
	{ .id = HCA_HCASIM_ATTR_QP_QUERY_ENGINE, .kind = HCA_ATTR_KIND_PTR_OUT, .len = 4, .min_len = 4 },
};

#define ONE_METHOD(name, obj_id, meth_id, handler_, attrs_)                                      \
	static const struct fw_method_def name##_m[] = { { .id = meth_id, .num_attrs =             \
		(uint8_t)FW_ARRAY_SIZE(attrs_), .handler = handler_, .attrs = attrs_ } };           \
	static const struct fw_object_def name##_o[] = { { .id = obj_id, .num_methods = 1,           \
		.methods = name##_m } };                                                           \
	static const struct fw_uapi_def name = { .driver_id = HCA_DRIVER_ID_HCASIM, .num_objects = 1, \
		.objects = name##_o };

/* A new object with one method: allowed. */
ONE_METHOD(d_new_obj, HCA_ID_DRIVER_NS | 5, 0, dummy_handler, a_out4)
/* A new object outside the namespace: refused. */
ONE_METHOD(d_obj_no_ns, 12, 0, dummy_handler, a_out4)
/* A new method on a core object outside the namespace: refused. */
ONE_METHOD(d_meth_no_ns, HCA_OBJ_PD, 7, dummy_handler, a_out4)
/* A new method without handler: refused. */
ONE_METHOD(d_meth_no_handler, HCA_OBJ_PD, HCA_ID_DRIVER_NS | 1, NULL, a_out4)
/* An attribute added to a core method outside the namespace: refused. */
ONE_METHOD(d_attr_no_ns, HCA_OBJ_QP, HCA_METHOD_QP_QUERY, NULL, a_core_id)
/* Replacing a core method's handler: refused. */
ONE_METHOD(d_replace_handler, HCA_OBJ_QP, HCA_METHOD_QP_QUERY, dummy_handler, a_out4)
/* ENUM without an element table: refused. */
ONE_METHOD(d_enum_no_table, HCA_OBJ_QP, HCA_METHOD_QP_QUERY, NULL, a_enum)
/* Payload larger than the dispatcher buffers: refused. */
ONE_METHOD(d_big, HCA_OBJ_QP, HCA_METHOD_QP_QUERY, NULL, a_big)
/* Struct PTR_IN without a reserved-field check: refused. */
ONE_METHOD(d_struct_no_rsvd, HCA_OBJ_QP, HCA_METHOD_QP_QUERY, NULL, a_struct_in)
/* Two NEW handles in one method: refused. */
ONE_METHOD(d_two_new, HCA_ID_DRIVER_NS | 6, 0, dummy_handler, a_two_new)
/* An attribute id that exists: refused. */
ONE_METHOD(d_dup_attr, HCA_OBJ_QP, HCA_METHOD_QP_QUERY, NULL, a_dup_drv)

static const struct fw_enum_elem elems[] = { { 0, 4 }, { 1, 16 } };
static const struct fw_attr_ext enum_ext[] = {
	{ HCA_OBJ_QP, HCA_METHOD_QP_QUERY, HCA_ID_DRIVER_NS | 2, 2, elems, NULL },
};
static const struct fw_method_def d_enum_ok_m[] = { { .id = HCA_METHOD_QP_QUERY, .num_attrs = 1,
						      .attrs = a_enum } };
static const struct fw_object_def d_enum_ok_o[] = { { .id = HCA_OBJ_QP, .num_methods = 1,
						      .methods = d_enum_ok_m } };
static const struct fw_uapi_def d_enum_ok = { .driver_id = HCA_DRIVER_ID_HCASIM, .num_objects = 1,
					      .objects = d_enum_ok_o, .num_ext = 1, .ext = enum_ext };

static int merge_fresh(const struct fw_uapi_def *d)
{
	fw_uapi_clear(&u);
	if (fw_uapi_merge(&u, &fw_uapi_core))
		return 1000;
	return fw_uapi_merge(&u, d);
}

static void merge_rules(void)
{
	const struct fw_uapi_object *o;

	CHECK_EQ(merge_fresh(&d_new_obj), 0, "driver object");
	o = fw_uapi_object(&u, HCA_ID_DRIVER_NS | 5, 1);
	CHECK(o && o->driver && o->num_methods == 1, "driver object merged");
	CHECK(!fw_uapi_object(&u, HCA_ID_DRIVER_NS | 5, 0), "driver object visible to core callers");
	CHECK_EQ(merge_fresh(&d_obj_no_ns), -HCA_EINVAL, "object id outside namespace");
	CHECK_EQ(merge_fresh(&d_meth_no_ns), -HCA_EINVAL, "method id outside namespace");
	CHECK_EQ(merge_fresh(&d_meth_no_handler), -HCA_EINVAL, "method without handler");
	CHECK_EQ(merge_fresh(&d_attr_no_ns), -HCA_EINVAL, "attribute id outside namespace");
	CHECK_EQ(merge_fresh(&d_replace_handler), -HCA_EEXIST, "core handler replaced");
	CHECK_EQ(merge_fresh(&d_enum_no_table), -HCA_EINVAL, "ENUM without elements");
	CHECK_EQ(merge_fresh(&d_big), -HCA_EINVAL, "oversized payload");
	CHECK_EQ(merge_fresh(&d_struct_no_rsvd), -HCA_EINVAL, "struct PTR_IN without reserved check");
	CHECK_EQ(merge_fresh(&d_two_new), -HCA_EINVAL, "two NEW handles");
	/* An attribute id that exists (added by a first merge of the same driver). */
	fw_uapi_clear(&u);
	fw_uapi_merge(&u, &fw_uapi_core);
	CHECK_EQ(fw_uapi_merge(&u, &fw_uapi_hcasim), 0, "hcasim");
	CHECK_EQ(fw_uapi_merge(&u, &d_dup_attr), -HCA_EEXIST, "duplicate attribute id");
	CHECK_EQ(merge_fresh(&d_enum_ok), 0, "ENUM with its element table");
	/* Merging the same driver table twice: its ids exist now. */
	CHECK_EQ(fw_uapi_merge(&u, &d_enum_ok), -HCA_EEXIST, "driver table merged twice");
	/* A second, different driver on the same device is refused. */
	{
		struct fw_uapi_def other = d_new_obj;
		other.driver_id = 7;
		CHECK_EQ(merge_fresh(&d_new_obj), 0, "first driver");
		CHECK_EQ(fw_uapi_merge(&u, &other), -HCA_EEXIST, "second driver id");
	}
}

int main(void)
{
	core_matches_spec();
	hcasim_driver_merge();
	merge_rules();
	return check_done();
}
