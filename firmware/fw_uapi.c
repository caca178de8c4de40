// SPDX-License-Identifier: MIT
/* Merging uapi definitions into the dispatcher tree, and looking things up. */
#include <string.h>

#include "fw_uapi.h"

void fw_uapi_clear(struct fw_uapi *u)
{
	memset(u, 0, sizeof(*u));
}

static const struct fw_attr_ext *find_ext(const struct fw_uapi_def *def, uint16_t obj,
					  uint16_t method, uint16_t attr)
{
	for (unsigned int i = 0; i < def->num_ext; i++) {
		const struct fw_attr_ext *x = &def->ext[i];
		if (x->obj == obj && x->method == method && x->attr == attr)
			return x;
	}
	return NULL;
}

static int ns_ok(uint16_t id, int is_driver)
{
	return !!(id & HCA_ID_DRIVER_NS) == !!is_driver;
}

/* Is the attribute spec itself well-formed? */
static int spec_ok(const struct fw_attr_spec *s, const struct fw_attr_ext *x)
{
	switch (s->kind) {
	case HCA_ATTR_KIND_PTR_IN:
	case HCA_ATTR_KIND_PTR_OUT:
		if (s->len == 0 || s->len > FW_ATTR_BUF || s->min_len > s->len || s->access)
			return 0;
		/* A struct input needs its reserved-field check. */
		if (s->kind == HCA_ATTR_KIND_PTR_IN && s->zero_trailing && (!x || !x->rsvd_ok))
			return 0;
		return 1;
	case HCA_ATTR_KIND_IDR:
		return s->access >= HCA_IDR_ACCESS_NEW && s->access <= HCA_IDR_ACCESS_DESTROY &&
		       s->len == 0;
	case HCA_ATTR_KIND_ENUM:
		if (!x || !x->num_elems || !x->elems || s->access)
			return 0;
		for (unsigned int i = 0; i < x->num_elems; i++) {
			if (x->elems[i].len > FW_ATTR_BUF)
				return 0;
			for (unsigned int j = 0; j < i; j++)
				if (x->elems[j].id == x->elems[i].id)
					return 0;
		}
		return 1;
	default:
		return 0;
	}
}

static int merge_attrs(struct fw_uapi_method *me, uint16_t obj, const struct fw_method_def *md,
		       const struct fw_uapi_def *def, int is_driver)
{
	for (unsigned int i = 0; i < md->num_attrs; i++) {
		const struct fw_attr_spec *s = &md->attrs[i];
		const struct fw_attr_ext *x = find_ext(def, obj, md->id, s->id);
		/* A driver adding to a core method must stay in its namespace. */
		if ((is_driver && !me->driver && !ns_ok(s->id, 1)) || (!is_driver && !ns_ok(s->id, 0)))
			return -HCA_EINVAL;
		if (!spec_ok(s, x))
			return -HCA_EINVAL;
		for (unsigned int j = 0; j < me->num_attrs; j++) {
			const struct fw_attr_spec *o = me->attrs[j].spec;
			if (o->id == s->id)
				return -HCA_EEXIST;
			/* One NEW and one DESTROY handle per method, as uverbs. */
			if (s->kind == HCA_ATTR_KIND_IDR && o->kind == HCA_ATTR_KIND_IDR &&
			    (s->access == HCA_IDR_ACCESS_NEW || s->access == HCA_IDR_ACCESS_DESTROY) &&
			    o->access == s->access)
				return -HCA_EINVAL;
		}
		if (me->num_attrs >= FW_UAPI_MAX_ATTRS)
			return -HCA_ENOSPC;
		me->attrs[me->num_attrs].spec = s;
		me->attrs[me->num_attrs].ext = x;
		me->attrs[me->num_attrs].driver = (uint8_t)is_driver;
		me->num_attrs++;
	}
	return 0;
}

static struct fw_uapi_object *obj_slot(struct fw_uapi *u, uint16_t id)
{
	for (unsigned int i = 0; i < u->num_objects; i++)
		if (u->objects[i].id == id)
			return &u->objects[i];
	return NULL;
}

int fw_uapi_merge(struct fw_uapi *u, const struct fw_uapi_def *def)
{
	int is_driver = def->driver_id != HCA_DRIVER_ID_NONE;

	if (is_driver && u->driver_id != HCA_DRIVER_ID_NONE && u->driver_id != def->driver_id)
		return -HCA_EEXIST;	/* one driver table per device */
	for (unsigned int oi = 0; oi < def->num_objects; oi++) {
		const struct fw_object_def *od = &def->objects[oi];
		struct fw_uapi_object *o = obj_slot(u, od->id);

		if (!o) {
			if (!ns_ok(od->id, is_driver))
				return -HCA_EINVAL;
			if (u->num_objects >= FW_UAPI_MAX_OBJECTS)
				return -HCA_ENOSPC;
			o = &u->objects[u->num_objects++];
			memset(o, 0, sizeof(*o));
			o->id = od->id;
			o->driver = (uint8_t)is_driver;
		} else if (!is_driver) {
			return -HCA_EEXIST;
		}
		for (unsigned int mi = 0; mi < od->num_methods; mi++) {
			const struct fw_method_def *md = &od->methods[mi];
			struct fw_uapi_method *me = NULL;
			int rc;

			for (unsigned int k = 0; k < o->num_methods; k++)
				if (o->methods[k].id == md->id)
					me = &o->methods[k];
			if (me) {
				/* Existing method: a driver may only add attributes. */
				if (!is_driver || md->handler)
					return -HCA_EEXIST;
			} else {
				if (!md->handler || md->ctx_mode > FW_CTX_REQUIRED)
					return -HCA_EINVAL;
				if (!o->driver && !ns_ok(md->id, is_driver))
					return -HCA_EINVAL;
				if (o->num_methods >= FW_UAPI_MAX_METHODS)
					return -HCA_ENOSPC;
				me = &o->methods[o->num_methods++];
				memset(me, 0, sizeof(*me));
				me->id = md->id;
				me->driver = (uint8_t)is_driver;
				me->ctx_mode = md->ctx_mode;
				me->handler = md->handler;
			}
			rc = merge_attrs(me, od->id, md, def, is_driver);
			if (rc)
				return rc;
		}
	}
	if (is_driver)
		u->driver_id = def->driver_id;
	return 0;
}

const struct fw_uapi_object *fw_uapi_object(const struct fw_uapi *u, uint16_t obj, int with_driver)
{
	for (unsigned int i = 0; i < u->num_objects; i++) {
		const struct fw_uapi_object *o = &u->objects[i];
		if (o->id == obj && (with_driver || !o->driver))
			return o;
	}
	return NULL;
}

const struct fw_uapi_method *fw_uapi_method(const struct fw_uapi_object *o, uint16_t method,
					    int with_driver)
{
	for (unsigned int i = 0; i < o->num_methods; i++) {
		const struct fw_uapi_method *m = &o->methods[i];
		if (m->id == method && (with_driver || !m->driver))
			return m;
	}
	return NULL;
}

int fw_uapi_attr(const struct fw_uapi_method *m, uint16_t attr, int with_driver)
{
	for (unsigned int i = 0; i < m->num_attrs; i++) {
		const struct fw_uapi_attr *a = &m->attrs[i];
		if (a->spec->id == attr && (with_driver || !a->driver))
			return (int)i;
	}
	return -1;
}
