// SPDX-License-Identifier: MIT
/*
 * One command: read the buffer, validate it against the merged uapi tree
 * (docs/programming.md 4.3, the kernel's ioctl rules), run the handler, and
 * write outputs, new handles and flags back -- or roll everything back.
 */
#include <string.h>

#include "fw_priv.h"

#define HDR_SIZE ((uint32_t)sizeof(struct hca_cmd_hdr))
#define ATTR_SIZE ((uint32_t)sizeof(struct hca_cmd_attr))

static int fail_at(struct fw_bundle *b, unsigned int cmd_idx, uint8_t reason, int err)
{
	b->reason = reason;
	b->attr = (uint8_t)(cmd_idx + 1);
	return err;
}

static int fail(struct fw_bundle *b, uint8_t reason, int err)
{
	b->reason = reason;
	b->attr = 0;
	return err;
}

/* Merged index of a visible attribute id, or -1. */
static int attr_index(struct fw_bundle *b, uint16_t attr_id)
{
	return fw_uapi_attr(b->m, attr_id, b->hdr.driver_id != HCA_DRIVER_ID_NONE);
}

int fw_fail(struct fw_bundle *b, uint16_t attr_id, uint8_t reason, int err)
{
	int k = attr_index(b, attr_id);

	b->reason = reason;
	b->attr = (k >= 0 && b->a[k].present) ? (uint8_t)(b->a[k].cmd_idx + 1) : 0;
	return err;
}

const void *fw_in(struct fw_bundle *b, uint16_t attr_id)
{
	int k = attr_index(b, attr_id);

	return (k >= 0 && b->a[k].present) ? b->a[k].buf : NULL;
}

int fw_in_present(struct fw_bundle *b, uint16_t attr_id)
{
	int k = attr_index(b, attr_id);

	return k >= 0 && b->a[k].present;
}

uint32_t fw_in_u32(struct fw_bundle *b, uint16_t attr_id)
{
	const uint8_t *p = (const uint8_t *)fw_in(b, attr_id);

	if (!p)
		return 0;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t fw_in_u64(struct fw_bundle *b, uint16_t attr_id)
{
	const uint8_t *p = (const uint8_t *)fw_in(b, attr_id);
	uint64_t v = 0;

	if (!p)
		return 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int fw_in_elem(struct fw_bundle *b, uint16_t attr_id)
{
	int k = attr_index(b, attr_id);

	return (k >= 0 && b->a[k].present) ? b->a[k].elem : -1;
}

int fw_idr(struct fw_bundle *b, uint16_t attr_id)
{
	int k = attr_index(b, attr_id);

	return (k >= 0 && b->a[k].present) ? b->a[k].index : -1;
}

void fw_out(struct fw_bundle *b, uint16_t attr_id, const void *data, uint16_t len)
{
	int k = attr_index(b, attr_id);
	struct fw_battr *ba;

	if (k < 0 || !b->a[k].present || b->m->attrs[k].spec->kind != HCA_ATTR_KIND_PTR_OUT)
		return;
	ba = &b->a[k];
	if (len > FW_ATTR_BUF)
		len = FW_ATTR_BUF;
	memcpy(ba->buf, data, len);
	ba->out_len = len;
	ba->out_valid = 1;
}

void fw_set_new(struct fw_bundle *b, uint16_t index)
{
	b->new_index = index;
	b->new_set = 1;
}

/* Inline payload: the little-endian bytes of `data`. */
static void inline_bytes(uint64_t data, uint8_t *out, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		out[i] = (uint8_t)(data >> (8 * i));
}

/*
 * Read a PTR_IN/ENUM payload of `len` bytes, keeping the first `keep`
 * (<= FW_ATTR_BUF).  Bytes beyond `keep` must be zero.
 * 0, -HCA_EFAULT, or 1 when a trailing byte is not zero.
 */
static int read_payload(struct hca_fw *fw, const struct hca_cmd_attr *ca, uint8_t *buf,
			uint16_t keep)
{
	uint16_t len = ca->len;

	if (len <= 8) {
		uint8_t tmp[8] = { 0 };
		inline_bytes(ca->data, tmp, len);
		memcpy(buf, tmp, keep < len ? keep : len);
		return keep < len && !fw_is_zero(tmp + keep, (size_t)(len - keep)) ? 1 : 0;
	}
	if (fw_dma_read(fw, ca->data, buf, keep < len ? keep : len))
		return -HCA_EFAULT;
	for (uint32_t off = keep; off < len;) {
		uint8_t chunk[64];
		uint32_t n = len - off < sizeof(chunk) ? len - off : (uint32_t)sizeof(chunk);
		if (fw_dma_read(fw, ca->data + off, chunk, n))
			return -HCA_EFAULT;
		if (!fw_is_zero(chunk, n))
			return 1;
		off += n;
	}
	return 0;
}

static const struct fw_enum_elem *enum_elem(const struct fw_attr_ext *x, uint8_t id)
{
	for (unsigned int i = 0; x && i < x->num_elems; i++)
		if (x->elems[i].id == id)
			return &x->elems[i];
	return NULL;
}

/* Validate one command attribute against its spec (everything but MISSING). */
static int process_attr(struct hca_fw *fw, struct fw_bundle *b, unsigned int i, int with_driver)
{
	const struct hca_cmd_attr *ca = &b->cattr[i];
	int k = fw_uapi_attr(b->m, ca->attr_id, with_driver);
	const struct fw_attr_spec *s;
	const struct fw_attr_ext *x;
	struct fw_battr *ba;
	int rc;

	if (k < 0) {
		/* Unknown to this firmware: fatal only if the caller says so. */
		if (ca->flags & HCA_ATTR_F_MANDATORY)
			return fail_at(b, i, HCA_CMD_SYND_UNKNOWN_ATTR, HCA_EPROTONOSUPPORT);
		return 0;
	}
	s = b->m->attrs[k].spec;
	x = b->m->attrs[k].ext;
	ba = &b->a[k];
	if (ba->present)
		return fail_at(b, i, HCA_CMD_SYND_DUP_ATTR, HCA_EINVAL);
	ba->present = 1;
	ba->cmd_idx = (uint8_t)i;
	ba->len = ca->len;

	/* Flags: only MANDATORY may come in; VALID_OUTPUT is the firmware's. */
	if (ca->flags & ~HCA_ATTR_F_MANDATORY)
		return fail_at(b, i, HCA_CMD_SYND_NONZERO_RESERVED, HCA_EINVAL);
	if (s->kind == HCA_ATTR_KIND_ENUM) {
		if (ca->attr_data & HCA_CMD_ATTR_ATTR_DATA_RESERVED_MASK)
			return fail_at(b, i, HCA_CMD_SYND_NONZERO_RESERVED, HCA_EINVAL);
	} else if (ca->attr_data) {
		return fail_at(b, i, HCA_CMD_SYND_NONZERO_RESERVED, HCA_EINVAL);
	}

	switch (s->kind) {
	case HCA_ATTR_KIND_PTR_IN:
	case HCA_ATTR_KIND_PTR_OUT:
		if (ca->len < s->min_len || (ca->len > s->len && !s->zero_trailing))
			return fail_at(b, i, HCA_CMD_SYND_BAD_LEN, HCA_EINVAL);
		if (s->kind == HCA_ATTR_KIND_PTR_OUT)
			return 0;
		rc = read_payload(fw, ca, ba->buf, s->len);
		if (rc < 0)
			ba->faulted = 1;	/* reported after the MISSING check */
		else if (rc > 0)
			return fail_at(b, i, HCA_CMD_SYND_NONZERO_TRAILING, HCA_EINVAL);
		return 0;

	case HCA_ATTR_KIND_ENUM: {
		const struct fw_enum_elem *e = enum_elem(x, (uint8_t)(ca->attr_data & 0xff));
		if (!e || e->len != ca->len)
			return fail_at(b, i, HCA_CMD_SYND_BAD_ENUM, HCA_EINVAL);
		ba->elem = e->id;
		if (read_payload(fw, ca, ba->buf, ca->len) < 0)
			ba->faulted = 1;
		return 0;
	}

	case HCA_ATTR_KIND_IDR: {
		uint32_t h = (uint32_t)ca->data;
		uint16_t index;

		if (s->access == HCA_IDR_ACCESS_NEW) {
			/* The value is the firmware's to write; whatever came in is ignored. */
			if (ca->len)
				return fail_at(b, i, HCA_CMD_SYND_BAD_LEN, HCA_EINVAL);
			b->new_attr = (int8_t)k;
			b->new_type = s->obj;
			return 0;
		}
		if (ca->data >> 32)
			return fail_at(b, i, HCA_CMD_SYND_NONZERO_RESERVED, HCA_EINVAL);
		if (ca->len)
			return fail_at(b, i, HCA_CMD_SYND_BAD_LEN, HCA_EINVAL);
		ba->handle = h;
		if (s->obj == HCA_OBJ_CONTEXT) {
			/* Context handles are device-wide, but a context may name only itself. */
			int slot = fw_ctx_lookup(fw, h);
			if (slot < 0 || (uint16_t)slot != b->ctx)
				return fail_at(b, i, HCA_CMD_SYND_BAD_HANDLE, HCA_EINVAL);
			ba->index = (uint16_t)slot;
		} else {
			if (b->ctx == FW_NO_CTX ||
			    fw_handle_lookup(&fw_ctx_of(fw, b->ctx)->ht, h, s->obj, &index))
				return fail_at(b, i, HCA_CMD_SYND_BAD_HANDLE, HCA_EINVAL);
			ba->index = index;
		}
		if (s->access == HCA_IDR_ACCESS_DESTROY)
			b->destroy_attr = (int8_t)k;
		return 0;
	}
	default:
		return fail_at(b, i, HCA_CMD_SYND_UNKNOWN_ATTR, HCA_EPROTONOSUPPORT);
	}
}

/* Validate the whole command; on success b->m and the attributes are set. */
static int validate(struct hca_fw *fw, struct fw_bundle *b, uint32_t in_len)
{
	const struct fw_uapi_object *o;
	int with_driver;
	unsigned int n;

	if (in_len < HDR_SIZE)
		return fail(b, HCA_CMD_SYND_BAD_HEADER, HCA_EINVAL);
	if (fw_dma_read(fw, b->in_addr, &b->hdr, HDR_SIZE))
		return fail(b, HCA_CMD_SYND_DMA_FAULT, HCA_EFAULT);
	n = b->hdr.num_attrs;
	if (n > HCA_CAP_MAX_CMD_ATTRS || b->hdr.length != HDR_SIZE + ATTR_SIZE * n ||
	    in_len != b->hdr.length || b->hdr.reserved)
		return fail(b, HCA_CMD_SYND_BAD_HEADER, HCA_EINVAL);
	/* As the kernel: a driver id other than the device's own is invalid. */
	if (b->hdr.driver_id != HCA_DRIVER_ID_NONE && b->hdr.driver_id != fw->uapi.driver_id)
		return fail(b, HCA_CMD_SYND_BAD_HEADER, HCA_EINVAL);
	with_driver = b->hdr.driver_id != HCA_DRIVER_ID_NONE;
	if (fw_dma_read(fw, b->in_addr + HDR_SIZE, b->cattr, ATTR_SIZE * n))
		return fail(b, HCA_CMD_SYND_DMA_FAULT, HCA_EFAULT);

	o = fw_uapi_object(&fw->uapi, b->hdr.object_id, with_driver);
	if (!o)
		return fail(b, HCA_CMD_SYND_UNKNOWN_OBJECT, HCA_EPROTONOSUPPORT);
	b->m = fw_uapi_method(o, b->hdr.method_id, with_driver);
	if (!b->m)
		return fail(b, HCA_CMD_SYND_UNKNOWN_METHOD, HCA_EPROTONOSUPPORT);

	if (b->hdr.context) {
		int slot = fw_ctx_lookup(fw, b->hdr.context);
		if (slot < 0)
			return fail(b, HCA_CMD_SYND_BAD_CONTEXT, HCA_EINVAL);
		b->ctx = (uint16_t)slot;
	} else if (b->m->ctx_mode == FW_CTX_REQUIRED) {
		return fail(b, HCA_CMD_SYND_BAD_CONTEXT, HCA_EINVAL);
	}

	for (unsigned int i = 0; i < n; i++) {
		int rc = process_attr(fw, b, i, with_driver);
		if (rc)
			return rc;
	}
	for (unsigned int k = 0; k < b->m->num_attrs; k++) {
		const struct fw_uapi_attr *a = &b->m->attrs[k];
		if (a->spec->mandatory && !b->a[k].present && (with_driver || !a->driver))
			return fail(b, HCA_CMD_SYND_MISSING_ATTR, HCA_EINVAL);
	}
	for (unsigned int k = 0; k < b->m->num_attrs; k++) {
		const struct fw_uapi_attr *a = &b->m->attrs[k];
		if (b->a[k].present && !b->a[k].faulted && a->spec->kind == HCA_ATTR_KIND_PTR_IN &&
		    a->ext && a->ext->rsvd_ok && !a->ext->rsvd_ok(b->a[k].buf))
			return fail_at(b, b->a[k].cmd_idx, HCA_CMD_SYND_NONZERO_RESERVED, HCA_EINVAL);
	}
	for (unsigned int k = 0; k < b->m->num_attrs; k++)
		if (b->a[k].present && b->a[k].faulted)
			return fail_at(b, b->a[k].cmd_idx, HCA_CMD_SYND_DMA_FAULT, HCA_EFAULT);
	return 0;
}

static struct fw_htable *new_table(struct hca_fw *fw, struct fw_bundle *b)
{
	if (b->new_type == HCA_OBJ_CONTEXT)
		return &fw->s.ctx_ht;
	return &fw_ctx_of(fw, b->ctx)->ht;
}

/* Undo a creation whose handler succeeded. */
static void rollback_new(struct hca_fw *fw, struct fw_bundle *b)
{
	if (b->new_type == HCA_OBJ_CONTEXT) {
		fw_ctx_teardown(fw, b->new_index);	/* releases its own handle */
		return;
	}
	fw_obj_destroy(fw, b->new_type, b->new_index, 1);
	fw_handle_release(new_table(fw, b), b->new_handle);
}

static int zero_fill(struct hca_fw *fw, uint64_t iova, uint32_t len)
{
	static const uint8_t zeros[64];

	while (len) {
		uint32_t n = len < sizeof(zeros) ? len : (uint32_t)sizeof(zeros);
		if (fw_dma_write(fw, iova, zeros, n))
			return -HCA_EFAULT;
		iova += n;
		len -= n;
	}
	return 0;
}

/* PTR_OUT payloads, then the changed attribute entries of the buffer. */
static int write_back(struct hca_fw *fw, struct fw_bundle *b)
{
	for (unsigned int k = 0; k < b->m->num_attrs; k++) {
		struct fw_battr *ba = &b->a[k];
		const struct fw_attr_spec *s = b->m->attrs[k].spec;
		struct hca_cmd_attr *ca;
		uint16_t n;

		if (!ba->present || !ba->out_valid)
			continue;
		ca = &b->cattr[ba->cmd_idx];
		n = ba->len < ba->out_len ? ba->len : ba->out_len;
		if (fw_dma_write(fw, ca->data, ba->buf, n))
			return fail_at(b, ba->cmd_idx, HCA_CMD_SYND_DMA_FAULT, HCA_EFAULT);
		/* A longer (newer) output buffer gets zeros beyond what we know. */
		if (ba->len > n && s->zero_trailing &&
		    zero_fill(fw, ca->data + n, (uint32_t)(ba->len - n)))
			return fail_at(b, ba->cmd_idx, HCA_CMD_SYND_DMA_FAULT, HCA_EFAULT);
		ca->flags |= HCA_ATTR_F_VALID_OUTPUT;
		b->cattr_dirty[ba->cmd_idx] = 1;
	}
	if (b->new_attr >= 0) {
		unsigned int i = b->a[b->new_attr].cmd_idx;
		b->cattr[i].data = b->new_handle;
		b->cattr_dirty[i] = 1;
	}
	for (unsigned int i = 0; i < b->hdr.num_attrs; i++) {
		if (!b->cattr_dirty[i])
			continue;
		if (fw_dma_write(fw, b->in_addr + HDR_SIZE + ATTR_SIZE * i, &b->cattr[i], ATTR_SIZE))
			return fail_at(b, i, HCA_CMD_SYND_DMA_FAULT, HCA_EFAULT);
	}
	return 0;
}

static int injected(struct hca_fw *fw, struct fw_bundle *b)
{
	struct fw_inject *in = &fw->inject;

	if (!in->err || in->obj != b->hdr.object_id || in->method != b->hdr.method_id)
		return 0;
	if (in->skip) {
		in->skip--;
		return 0;
	}
	return in->err;
}

static int run(struct hca_fw *fw, struct fw_bundle *b, uint32_t in_len)
{
	int rc = validate(fw, b, in_len);

	if (rc)
		return rc;

	if (b->new_attr >= 0) {
		if (b->new_type != HCA_OBJ_CONTEXT && b->ctx == FW_NO_CTX)
			return fail(b, HCA_CMD_SYND_BAD_CONTEXT, HCA_EINVAL);
		if (fw_handle_reserve(new_table(fw, b), b->new_type, &b->new_handle))
			return fail(b, HCA_CMD_SYND_HANDLER, HCA_ENOMEM);
	}
	if (b->destroy_attr >= 0) {
		const struct fw_attr_spec *s = b->m->attrs[b->destroy_attr].spec;
		struct fw_battr *ba = &b->a[b->destroy_attr];

		/* As uverbs: the object goes first, then the method's handler runs. */
		if (s->obj == HCA_OBJ_CONTEXT) {
			fw_ctx_teardown(fw, ba->index);
			b->ctx = FW_NO_CTX;
		} else {
			rc = fw_obj_destroy(fw, s->obj, ba->index, 0);
			if (rc)
				return fail_at(b, ba->cmd_idx, HCA_CMD_SYND_HANDLER, rc);
			fw_handle_release(&fw_ctx_of(fw, b->ctx)->ht, ba->handle);
		}
	}

	rc = b->m->handler(fw, b);
	if (rc) {
		if (b->new_attr >= 0)
			fw_handle_release(new_table(fw, b), b->new_handle);
		if (!b->reason)
			fail(b, HCA_CMD_SYND_HANDLER, rc);
		return rc;
	}
	if (b->new_attr >= 0 && !b->new_set) {
		/* A handler bug; fail rather than leave a dangling handle. */
		fw_handle_release(new_table(fw, b), b->new_handle);
		return fail(b, HCA_CMD_SYND_HANDLER, HCA_EIO);
	}
	rc = injected(fw, b);
	if (!rc)
		rc = write_back(fw, b);
	else
		fail(b, HCA_CMD_SYND_HANDLER, rc);
	if (rc) {
		if (b->new_attr >= 0)
			rollback_new(fw, b);
		return rc;
	}
	if (b->new_attr >= 0) {
		struct fw_obj_hdr *h;

		fw_handle_commit(new_table(fw, b), b->new_handle, b->new_index);
		if (b->new_type == HCA_OBJ_CONTEXT) {
			fw_ctx_of(fw, b->new_index)->handle = b->new_handle;
		} else {
			h = fw_obj(fw, b->new_type, b->new_index);
			if (h) {
				h->ctx = b->ctx;
				h->handle = b->new_handle;
			}
		}
	}
	return 0;
}

uint32_t fw_cmd_execute(struct hca_fw *fw, uint64_t in_addr, uint32_t in_len, uint32_t *syndrome)
{
	struct fw_bundle *b = &fw->b;
	int rc;

	memset(b, 0, sizeof(*b));
	b->in_addr = in_addr;
	b->ctx = FW_NO_CTX;
	b->new_attr = -1;
	b->destroy_attr = -1;
	rc = run(fw, b, in_len);
	fw->stats.cmds++;
	if (rc) {
		fw->stats.cmd_errors++;
		if (rc == HCA_EFAULT)
			fw_init_wr(fw, HCA_INIT_SYNDROME, HCA_SYND_CMD_DMA_FAULT);
		*syndrome = HCA_FIELD_PREP(HCA_CMDQ_ENTRY_SYNDROME_REASON, b->reason) |
			    HCA_FIELD_PREP(HCA_CMDQ_ENTRY_SYNDROME_ATTR, b->attr);
		return (uint32_t)rc;
	}
	*syndrome = 0;
	return 0;
}
