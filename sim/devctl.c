// SPDX-License-Identifier: MIT
/* Host-side bring-up and command submission (sim/devctl.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "devctl.h"
#include "hostmem.h"

#define HDR_SIZE ((uint32_t)sizeof(struct hca_cmd_hdr))
#define ATTR_SIZE ((uint32_t)sizeof(struct hca_cmd_attr))
#define ENTRY_SIZE ((uint32_t)sizeof(struct hca_cmdq_entry))
/* Arena layout: command buffer, then payloads. */
#define ARENA_PAYLOAD_OFF 1024u
#define ARENA_SIZE (ARENA_PAYLOAD_OFF + HCA_CMD_PAYLOAD_MAX)
_Static_assert(HDR_SIZE + ATTR_SIZE * (HCA_CMD_MAX_ATTRS + 1) <= ARENA_PAYLOAD_OFF, "arena");

enum { P_NONE, P_IN, P_OUT, P_NEW };

struct hca_devctl {
	struct hca_devctl_bus bus;
	uint8_t *ring;
	uint64_t ring_iova;
	size_t ring_len;
	unsigned int log_size;
	uint8_t *arena;
	uint64_t arena_iova;
	uint32_t pi;
	uint32_t token;
	int enabled;
	uint64_t timeout;
};

int hca_devctl_open(const struct hca_devctl_bus *bus, struct hca_devctl **out)
{
	struct hca_devctl *dc;

	*out = NULL;
	if (!bus || !bus->read32 || !bus->write32 || !bus->wait || !bus->dma_alloc)
		return -EINVAL;
	dc = calloc(1, sizeof(*dc));
	if (!dc)
		return -ENOMEM;
	dc->bus = *bus;
	dc->timeout = HCA_DEVCTL_TIMEOUT;
	dc->arena = bus->dma_alloc(bus->ctx, ARENA_SIZE, &dc->arena_iova);
	if (!dc->arena) {
		free(dc);
		return -ENOMEM;
	}
	*out = dc;
	return 0;
}

static void free_ring(struct hca_devctl *dc)
{
	if (dc->ring && dc->bus.dma_free)
		dc->bus.dma_free(dc->bus.ctx, dc->ring, dc->ring_iova, dc->ring_len);
	dc->ring = NULL;
}

void hca_devctl_close(struct hca_devctl *dc)
{
	if (!dc)
		return;
	free_ring(dc);
	if (dc->bus.dma_free)
		dc->bus.dma_free(dc->bus.ctx, dc->arena, dc->arena_iova, ARENA_SIZE);
	free(dc);
}

void hca_devctl_set_timeout(struct hca_devctl *dc, uint64_t cycles)
{
	dc->timeout = cycles ? cycles : HCA_DEVCTL_TIMEOUT;
}

static uint32_t rd(struct hca_devctl *dc, uint32_t off)
{
	return dc->bus.read32(dc->bus.ctx, off);
}

static void wr(struct hca_devctl *dc, uint32_t off, uint32_t v)
{
	dc->bus.write32(dc->bus.ctx, off, v);
}

uint32_t hca_devctl_syndrome(struct hca_devctl *dc)
{
	return rd(dc, HCA_INIT_SYNDROME);
}

uint32_t hca_devctl_status(struct hca_devctl *dc)
{
	return rd(dc, HCA_INIT_STATUS);
}

/* Poll with a step that grows from 1 cycle to 1024. */
struct poll {
	uint64_t waited, step;
};

static int poll_wait(struct hca_devctl *dc, struct poll *p)
{
	if (p->waited >= dc->timeout)
		return -ETIMEDOUT;
	dc->bus.wait(dc->bus.ctx, p->step);
	p->waited += p->step;
	if (p->step < 1024)
		p->step *= 2;
	return 0;
}

int hca_devctl_reset(struct hca_devctl *dc)
{
	struct poll p = { 0, 1 };

	dc->enabled = 0;
	wr(dc, HCA_INIT_CTRL, HCA_INIT_CTRL_RESET_MASK);
	for (;;) {
		uint32_t st = rd(dc, HCA_INIT_STATUS);
		int rc;

		if (!(rd(dc, HCA_INIT_CTRL) & HCA_INIT_CTRL_RESET_MASK)) {
			if (st & HCA_INIT_STATUS_FATAL_MASK)
				return -EIO;
			if ((st & HCA_INIT_STATUS_FW_READY_MASK) &&
			    HCA_FIELD_GET(st, HCA_INIT_STATUS_STATE) == HCA_DEV_STATE_READY)
				return 0;
		}
		rc = poll_wait(dc, &p);
		if (rc)
			return rc;
	}
}

int hca_devctl_enable(struct hca_devctl *dc, unsigned int log_size)
{
	struct poll p = { 0, 1 };
	size_t len;

	if (!log_size)
		log_size = HCA_DEVCTL_LOG_CMDQ;
	if (log_size > HCA_CMDQ_LOG_MAX_SIZE)
		return -EINVAL;
	len = (size_t)ENTRY_SIZE << log_size;
	if (!dc->ring || dc->ring_len != len) {
		free_ring(dc);
		dc->ring = dc->bus.dma_alloc(dc->bus.ctx, len, &dc->ring_iova);
		if (!dc->ring)
			return -ENOMEM;
		dc->ring_len = len;
	}
	memset(dc->ring, 0, len);
	dc->log_size = log_size;
	wr(dc, HCA_INIT_CMDQ_BASE_LO, (uint32_t)dc->ring_iova);
	wr(dc, HCA_INIT_CMDQ_BASE_HI, (uint32_t)(dc->ring_iova >> 32));
	wr(dc, HCA_INIT_CMDQ_LOG_SIZE, log_size);
	dc->pi = rd(dc, HCA_INIT_CMDQ_PI);
	wr(dc, HCA_INIT_CTRL, HCA_INIT_CTRL_ENABLE_MASK);
	for (;;) {
		uint32_t st = rd(dc, HCA_INIT_STATUS);
		int rc;

		if (st & HCA_INIT_STATUS_FATAL_MASK)
			return -EIO;
		if (st & HCA_INIT_STATUS_CMDQ_READY_MASK) {
			dc->enabled = 1;
			return 0;
		}
		rc = poll_wait(dc, &p);
		if (rc)
			return rc;
	}
}

int hca_devctl_bringup(struct hca_devctl *dc, unsigned int log_size)
{
	int rc = hca_devctl_reset(dc);

	return rc ? rc : hca_devctl_enable(dc, log_size);
}

uint64_t hca_devctl_cmd_iova(const struct hca_devctl *dc)
{
	return dc->arena_iova;
}

/* ---- command builder ---- */

void hca_cmd_init(struct hca_cmd *c, uint16_t object_id, uint16_t method_id, uint32_t context)
{
	memset(c, 0, offsetof(struct hca_cmd, payload));
	c->hdr.object_id = object_id;
	c->hdr.method_id = method_id;
	c->hdr.context = context;
	c->hdr.driver_id = HCA_DRIVER_ID_NONE;
	/* Driver-namespace ids need the driver's table. */
	if ((object_id | method_id) & HCA_ID_DRIVER_NS)
		c->hdr.driver_id = HCA_DRIVER_ID_HCASIM;
}

static int add(struct hca_cmd *c, uint16_t attr_id, uint16_t len, uint64_t data)
{
	struct hca_cmd_attr *a;

	if (c->num_attrs >= HCA_CMD_MAX_ATTRS + 1)
		return -ENOSPC;
	a = &c->attrs[c->num_attrs];
	memset(a, 0, sizeof(*a));
	memset(&c->p[c->num_attrs], 0, sizeof(c->p[0]));
	a->attr_id = attr_id;
	a->len = len;
	a->flags = HCA_ATTR_F_MANDATORY;
	a->data = data;
	if (attr_id & HCA_ID_DRIVER_NS)
		c->hdr.driver_id = HCA_DRIVER_ID_HCASIM;
	return (int)c->num_attrs++;
}

static int stage(struct hca_cmd *c, int i, uint8_t kind, const void *src, uint16_t len, void *dst)
{
	uint16_t off = (uint16_t)((c->payload_used + 7u) & ~7u);

	if (i < 0)
		return i;
	if ((uint32_t)off + len > HCA_CMD_PAYLOAD_MAX) {
		c->num_attrs--;
		return -ENOSPC;
	}
	if (src)
		memcpy(c->payload + off, src, len);
	c->p[i].kind = kind;
	c->p[i].off = off;
	c->p[i].len = len;
	c->p[i].dst = dst;
	c->payload_used = (uint16_t)(off + len);
	return i;
}

static uint64_t inline_value(const void *data, uint16_t len)
{
	const uint8_t *b = data;
	uint64_t v = 0;

	for (int i = (int)len - 1; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

int hca_cmd_in(struct hca_cmd *c, uint16_t attr_id, const void *data, uint16_t len)
{
	if (len <= 8)
		return add(c, attr_id, len, inline_value(data, len));
	return stage(c, add(c, attr_id, len, 0), P_IN, data, len, NULL);
}

int hca_cmd_in_u32(struct hca_cmd *c, uint16_t attr_id, uint32_t v)
{
	return add(c, attr_id, 4, v);
}

int hca_cmd_in_u64(struct hca_cmd *c, uint16_t attr_id, uint64_t v)
{
	return add(c, attr_id, 8, v);
}

int hca_cmd_out(struct hca_cmd *c, uint16_t attr_id, void *buf, uint16_t len)
{
	return stage(c, add(c, attr_id, len, 0), P_OUT, NULL, len, buf);
}

int hca_cmd_idr(struct hca_cmd *c, uint16_t attr_id, uint32_t handle)
{
	return add(c, attr_id, 0, handle);
}

int hca_cmd_idr_new(struct hca_cmd *c, uint16_t attr_id, uint32_t *handle)
{
	int i = add(c, attr_id, 0, 0);

	if (i >= 0) {
		c->p[i].kind = P_NEW;
		c->p[i].dst = handle;
	}
	return i;
}

int hca_cmd_enum(struct hca_cmd *c, uint16_t attr_id, uint8_t elem, const void *data, uint16_t len)
{
	int i = hca_cmd_in(c, attr_id, data, len);

	if (i >= 0)
		c->attrs[i].attr_data = elem;
	return i;
}

int hca_cmd_raw(struct hca_cmd *c, uint16_t attr_id, uint16_t len, uint16_t flags,
		uint16_t attr_data, uint64_t data)
{
	int i = add(c, attr_id, len, data);

	if (i >= 0) {
		c->attrs[i].flags = flags;
		c->attrs[i].attr_data = attr_data;
	}
	return i;
}

/* ---- execution ---- */

static struct hca_cmdq_entry *entry(struct hca_devctl *dc, uint32_t idx)
{
	return (struct hca_cmdq_entry *)(dc->ring + (size_t)(idx & ((1u << dc->log_size) - 1)) * ENTRY_SIZE);
}

int hca_devctl_exec(struct hca_devctl *dc, struct hca_cmd *c)
{
	struct hca_cmd_attr *attrs = (struct hca_cmd_attr *)(dc->arena + HDR_SIZE);
	struct hca_cmdq_entry *e;
	struct poll p = { 0, 1 };
	uint32_t idx;

	if (!dc->enabled)
		return -ENODEV;
	if (c->payload_used > HCA_CMD_PAYLOAD_MAX || c->num_attrs > HCA_CMD_MAX_ATTRS + 1)
		return -ENOSPC;
	if (!c->keep_hdr) {
		c->hdr.num_attrs = (uint16_t)c->num_attrs;
		c->hdr.length = (uint16_t)(HDR_SIZE + ATTR_SIZE * c->num_attrs);
	}
	/* Buffer: header, attributes (payload IOVAs patched in), payloads. */
	memset(dc->arena, 0, ARENA_SIZE);
	for (unsigned int i = 0; i < c->num_attrs; i++) {
		attrs[i] = c->attrs[i];
		if (c->p[i].kind == P_IN || c->p[i].kind == P_OUT)
			attrs[i].data = dc->arena_iova + ARENA_PAYLOAD_OFF + c->p[i].off;
	}
	memcpy(dc->arena + ARENA_PAYLOAD_OFF, c->payload, c->payload_used);
	memcpy(dc->arena, &c->hdr, HDR_SIZE);

	idx = dc->pi;
	e = entry(dc, idx);
	memset(e, 0, ENTRY_SIZE);
	e->in_addr = dc->arena_iova;
	e->in_len = c->in_len ? c->in_len : c->hdr.length;
	e->token = c->token = ++dc->token;
	/* Everything before the ownership bit, the bit before the doorbell. */
	__atomic_store_n(&e->ctrl, (uint8_t)HCA_CMDQ_ENTRY_CTRL_OWNER_MASK, __ATOMIC_RELEASE);
	dc->pi = idx + 1;
	wr(dc, HCA_INIT_CMDQ_PI, dc->pi);

	while (__atomic_load_n(&e->ctrl, __ATOMIC_ACQUIRE) & HCA_CMDQ_ENTRY_CTRL_OWNER_MASK) {
		int rc;

		if (rd(dc, HCA_INIT_CMDQ_STATUS) & HCA_INIT_CMDQ_STATUS_ERROR_MASK)
			return -EIO;
		rc = poll_wait(dc, &p);
		if (rc)
			return rc;
	}
	c->status = e->status;
	c->syndrome = e->syndrome;
	/* The command buffer as firmware left it: flags and new handles. */
	for (unsigned int i = 0; i < c->num_attrs; i++)
		c->attrs[i] = attrs[i];
	if (c->status)
		return (int)c->status;
	for (unsigned int i = 0; i < c->num_attrs; i++) {
		if (c->p[i].kind == P_OUT && c->p[i].dst)
			memcpy(c->p[i].dst, dc->arena + ARENA_PAYLOAD_OFF + c->p[i].off, c->p[i].len);
		else if (c->p[i].kind == P_NEW && c->p[i].dst)
			*(uint32_t *)c->p[i].dst = (uint32_t)attrs[i].data;
	}
	return 0;
}

/* ---- in-process bus ---- */

static uint32_t sim_read32(void *ctx, uint32_t off)
{
	struct hca_devctl_sim *s = ctx;
	return s->be->mmio_read(s->dev, off);
}

static void sim_write32(void *ctx, uint32_t off, uint32_t v)
{
	struct hca_devctl_sim *s = ctx;
	s->be->mmio_write(s->dev, off, v);
}

static void sim_wait(void *ctx, uint64_t cycles)
{
	struct hca_devctl_sim *s = ctx;
	s->be->advance(s->dev, cycles);
}

static void *sim_dma_alloc(void *ctx, size_t len, uint64_t *iova)
{
	struct hca_devctl_sim *s = ctx;
	return hostmem_alloc(s->hm, len, iova);
}

static void sim_dma_free(void *ctx, void *va, uint64_t iova, size_t len)
{
	struct hca_devctl_sim *s = ctx;
	(void)va;
	(void)len;
	hostmem_unmap(s->hm, iova);
}

void hca_devctl_sim_bus(struct hca_devctl_sim *s, struct hca_devctl_bus *bus)
{
	memset(bus, 0, sizeof(*bus));
	bus->ctx = s;
	bus->read32 = sim_read32;
	bus->write32 = sim_write32;
	bus->wait = sim_wait;
	bus->dma_alloc = sim_dma_alloc;
	bus->dma_free = sim_dma_free;
}
