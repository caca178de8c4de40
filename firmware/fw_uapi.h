/* SPDX-License-Identifier: MIT */
/*
 * The command dispatcher, declared as data (after the kernel's uverbs uapi
 * tree, seeds 000/004).
 *
 * A definition (struct fw_uapi_def) lists objects; an object lists methods;
 * a method lists attribute specs and names its handler.  The core definition
 * is generated from the X-macros of spec/hca.toml (fw_uapi_core.c); the
 * hcasim driver-specific definition (fw_uapi_driver.c) adds methods and
 * attributes in the HCA_ID_DRIVER_NS namespace.  At init both are merged
 * into one tree (struct fw_uapi) that the command parser walks; entries that
 * came from a driver definition are visible only to commands whose header
 * names that driver (hca_cmd_hdr.driver_id).
 *
 * Merge rules (fw_uapi_merge):
 *  - the core definition may not use HCA_ID_DRIVER_NS ids; a driver
 *    definition must use them for every object, method or attribute it adds;
 *  - a driver may add objects, add methods to any object, and add attributes
 *    to any method (then it names no handler: the method keeps its own);
 *  - nothing is replaced: an id that exists already fails with -HCA_EEXIST;
 *  - every ENUM attribute needs an element table and every struct PTR_IN a
 *    reserved-field check (struct fw_attr_ext), else -HCA_EINVAL;
 *  - at most one NEW and one DESTROY handle per method (as uverbs).
 */
#ifndef HCASIM_FW_UAPI_H
#define HCASIM_FW_UAPI_H

#include <stdint.h>

#include "fw_config.h"

struct hca_fw;
struct fw_bundle;

typedef int (*fw_handler_fn)(struct hca_fw *fw, struct fw_bundle *b);

/* Which header context a method takes. */
enum {
	FW_CTX_OPTIONAL = 0,	/* 0 or any live context (DEVICE methods, CONTEXT.ALLOC) */
	FW_CTX_REQUIRED = 1,	/* a live context */
};

struct fw_attr_spec {
	uint16_t id;
	uint8_t kind;		/* HCA_ATTR_KIND_* */
	uint8_t access;		/* HCA_IDR_ACCESS_* (IDR) */
	uint16_t obj;		/* HCA_OBJ_* (IDR) */
	uint16_t len;		/* PTR_*: the spec length */
	uint16_t min_len;	/* PTR_*: shortest accepted */
	uint8_t mandatory;
	uint8_t zero_trailing;	/* longer is accepted if the extra bytes are zero */
};

struct fw_enum_elem {
	uint8_t id;
	uint16_t len;
};

/*
 * Per-attribute extras keyed by (object, method, attribute): the element
 * table of an ENUM and the reserved-field check of a struct PTR_IN
 * (returns 1 when every reserved byte of the payload is zero).
 */
struct fw_attr_ext {
	uint16_t obj, method, attr;
	uint8_t num_elems;
	const struct fw_enum_elem *elems;
	int (*rsvd_ok)(const void *payload);
};

struct fw_method_def {
	uint16_t id;
	uint8_t ctx_mode;	/* FW_CTX_* */
	uint8_t num_attrs;
	fw_handler_fn handler;	/* NULL: a driver adding attributes only */
	const struct fw_attr_spec *attrs;
};

struct fw_object_def {
	uint16_t id;
	uint8_t num_methods;
	const struct fw_method_def *methods;
};

struct fw_uapi_def {
	uint32_t driver_id;	/* HCA_DRIVER_ID_NONE for the core definition */
	uint8_t num_objects;
	uint8_t num_ext;
	const struct fw_object_def *objects;
	const struct fw_attr_ext *ext;
};

/* The merged tree. */
struct fw_uapi_attr {
	const struct fw_attr_spec *spec;
	const struct fw_attr_ext *ext;	/* may be NULL */
	uint8_t driver;			/* came from the driver definition */
};

struct fw_uapi_method {
	uint16_t id;
	uint8_t driver;
	uint8_t ctx_mode;
	uint8_t num_attrs;
	fw_handler_fn handler;
	struct fw_uapi_attr attrs[FW_UAPI_MAX_ATTRS];
};

struct fw_uapi_object {
	uint16_t id;
	uint8_t driver;
	uint8_t num_methods;
	struct fw_uapi_method methods[FW_UAPI_MAX_METHODS];
};

struct fw_uapi {
	uint32_t driver_id;	/* driver definition merged, or HCA_DRIVER_ID_NONE */
	uint8_t num_objects;
	struct fw_uapi_object objects[FW_UAPI_MAX_OBJECTS];
};

void fw_uapi_clear(struct fw_uapi *u);
/* 0, -HCA_EINVAL (ill-formed definition), -HCA_EEXIST, -HCA_ENOSPC. */
int fw_uapi_merge(struct fw_uapi *u, const struct fw_uapi_def *def);

/* Lookups; with_driver = 0 hides every driver-specific entry. */
const struct fw_uapi_object *fw_uapi_object(const struct fw_uapi *u, uint16_t obj, int with_driver);
const struct fw_uapi_method *fw_uapi_method(const struct fw_uapi_object *o, uint16_t method,
					    int with_driver);
/* Index of the attribute within the method, or -1. */
int fw_uapi_attr(const struct fw_uapi_method *m, uint16_t attr, int with_driver);

extern const struct fw_uapi_def fw_uapi_core;
extern const struct fw_uapi_def fw_uapi_hcasim;

#endif /* HCASIM_FW_UAPI_H */
