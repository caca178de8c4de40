// SPDX-License-Identifier: MIT
/* Command queue bring-up and command execution: see hw.h. */
#include "hw.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hostmem.h"
#include "log.h"
#include "shim.h"

#define CMDQ_LOG_SIZE 4
#define CMD_BUF_SIZE 8192
#define HW_TIMEOUT_MS 20000	/* firmware that does not answer in this time is hung */

struct shim_hw {
	pthread_mutex_t lock;	/* one command at a time */
	struct shim_dma_buf ring;
	struct shim_dma_buf buf;
	uint32_t pi;
	uint32_t token;
};

void shim_cmd_init(struct shim_cmd *c, uint16_t obj, uint16_t method, uint32_t context)
{
	memset(c, 0, sizeof(*c));
	c->obj = obj;
	c->method = method;
	c->context = context;
}

static struct shim_cmd_attr *add(struct shim_cmd *c, uint16_t id, uint8_t kind)
{
	struct shim_cmd_attr *a;

	if (c->n >= SHIM_CMD_MAX_ATTRS) {
		shim_err("command %u/%u: too many attributes", c->obj, c->method);
		c->n = SHIM_CMD_MAX_ATTRS + 1;	/* poisoned: exec fails */
		return NULL;
	}
	a = &c->a[c->n++];
	a->id = id;
	a->kind = kind;
	return a;
}

void shim_cmd_in(struct shim_cmd *c, uint16_t id, const void *p, uint16_t len)
{
	struct shim_cmd_attr *a = add(c, id, HCA_ATTR_KIND_PTR_IN);

	if (a) {
		a->in = p;
		a->len = len;
	}
}

void shim_cmd_out(struct shim_cmd *c, uint16_t id, void *p, uint16_t len)
{
	struct shim_cmd_attr *a = add(c, id, HCA_ATTR_KIND_PTR_OUT);

	if (a) {
		a->out = p;
		a->len = len;
	}
}

void shim_cmd_handle(struct shim_cmd *c, uint16_t id, uint32_t handle)
{
	struct shim_cmd_attr *a = add(c, id, HCA_ATTR_KIND_IDR);

	if (a)
		a->handle = handle;
}

void shim_cmd_new_handle(struct shim_cmd *c, uint16_t id, uint32_t *out)
{
	struct shim_cmd_attr *a = add(c, id, HCA_ATTR_KIND_IDR);

	if (a)
		a->new_handle = out;
}

void shim_cmd_enum(struct shim_cmd *c, uint16_t id, uint8_t elem, const void *p, uint16_t len)
{
	struct shim_cmd_attr *a = add(c, id, HCA_ATTR_KIND_ENUM);

	if (a) {
		a->elem = elem;
		a->in = p;
		a->len = len;
	}
}

static uint64_t ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)(t.tv_sec - t0->tv_sec) * 1000 +
	       (uint64_t)((t.tv_nsec - t0->tv_nsec) / 1000000);
}

/*
 * Wait until done(d, arg) holds, letting the device run.  0, ETIMEDOUT
 * (threaded: wall-clock limit), or EIO (cooperative: the simulation went
 * idle without it happening).
 */
static int hw_wait(struct shim_device *d, int (*done)(struct shim_device *, void *), void *arg)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		uint64_t seen = shim_bus_progress(d->bus);

		if (done(d, arg))
			return 0;
		if (!shim_wait(d, seen, 50) && d->mode == SHIM_MODE_COOP) {
			if (done(d, arg))
				return 0;
			return EIO;
		}
		if (ms_since(&t0) > HW_TIMEOUT_MS)
			return done(d, arg) ? 0 : ETIMEDOUT;
	}
}

static int entry_done(struct shim_device *d, void *arg)
{
	volatile struct hca_cmdq_entry *e = arg;
	int owned;

	shim_bus_lock(d->bus);	/* the device writes the entry under the bus lock */
	owned = e->ctrl & HCA_CMDQ_ENTRY_CTRL_OWNER_MASK;
	shim_bus_unlock(d->bus);
	if (!owned)
		return 1;
	/* A stopped queue never completes the entry. */
	return (shim_bus_read32(d->bus, HCA_INIT_CMDQ_STATUS) & HCA_INIT_CMDQ_STATUS_ERROR_MASK) != 0;
}

int shim_cmd_exec(struct shim_device *d, struct shim_cmd *c)
{
	struct shim_hw *hw = d->hw;
	struct hca_cmd_hdr *h;
	struct hca_cmd_attr *ca;
	struct hca_cmdq_entry *e;
	size_t off, len = sizeof(*h) + c->n * sizeof(*ca);
	size_t pos[SHIM_CMD_MAX_ATTRS];
	uint32_t status, qstat;
	int ret;

	if (!hw)
		return EIO;
	if (c->n > SHIM_CMD_MAX_ATTRS)
		return EINVAL;
	pthread_mutex_lock(&hw->lock);
	memset(hw->buf.va, 0, CMD_BUF_SIZE);
	h = hw->buf.va;
	ca = (struct hca_cmd_attr *)(h + 1);
	h->length = (uint16_t)len;
	h->object_id = c->obj;
	h->method_id = c->method;
	h->num_attrs = (uint16_t)c->n;
	h->context = c->context;
	h->driver_id = HCA_DRIVER_ID_NONE;
	off = (len + 7) & ~(size_t)7;
	for (unsigned int i = 0; i < c->n; i++) {
		struct shim_cmd_attr *a = &c->a[i];

		ca[i].attr_id = a->id;
		ca[i].len = a->len;
		ca[i].flags = HCA_ATTR_F_MANDATORY;
		pos[i] = 0;
		if (a->kind == HCA_ATTR_KIND_IDR) {
			ca[i].len = 0;
			ca[i].data = a->handle;
			continue;
		}
		if (a->kind == HCA_ATTR_KIND_ENUM)
			ca[i].attr_data = a->elem;
		/* PTR_IN and ENUM payloads of up to 8 bytes travel inline. */
		if (a->kind != HCA_ATTR_KIND_PTR_OUT && a->len <= 8) {
			memcpy(&ca[i].data, a->in, a->len);
			continue;
		}
		if (off + a->len > CMD_BUF_SIZE) {
			pthread_mutex_unlock(&hw->lock);
			return EINVAL;
		}
		pos[i] = off;
		if (a->kind != HCA_ATTR_KIND_PTR_OUT)
			memcpy((uint8_t *)hw->buf.va + off, a->in, a->len);
		ca[i].data = hw->buf.iova + off;
		off = (off + a->len + 7) & ~(size_t)7;
	}

	e = (struct hca_cmdq_entry *)hw->ring.va + (hw->pi & ((1u << CMDQ_LOG_SIZE) - 1));
	shim_bus_lock(d->bus);
	memset(e, 0, sizeof(*e));
	e->in_addr = hw->buf.iova;
	e->in_len = (uint32_t)len;
	e->token = ++hw->token;
	atomic_thread_fence(memory_order_release);
	e->ctrl = HCA_CMDQ_ENTRY_CTRL_OWNER_MASK;	/* last */
	shim_bus_unlock(d->bus);
	hw->pi++;
	shim_dbg(2, "%s: command obj %u method %u (%u attrs)", d->cfg.name, c->obj, c->method, c->n);
	shim_bus_write32(d->bus, HCA_INIT_CMDQ_PI, hw->pi);

	ret = hw_wait(d, entry_done, e);
	shim_bus_lock(d->bus);
	status = e->status;
	c->syndrome = e->syndrome;
	ret = ret ? ret : (e->ctrl & HCA_CMDQ_ENTRY_CTRL_OWNER_MASK) ? EIO : 0;
	shim_bus_unlock(d->bus);
	if (ret) {
		qstat = shim_bus_read32(d->bus, HCA_INIT_CMDQ_STATUS);
		shim_err("%s: command obj %u method %u got no answer (%s; CMDQ_STATUS 0x%x, "
			 "SYNDROME 0x%x)", d->cfg.name, c->obj, c->method,
			 ret == ETIMEDOUT ? "timed out" : "queue stopped or device idle", qstat,
			 shim_bus_read32(d->bus, HCA_INIT_SYNDROME));
		pthread_mutex_unlock(&hw->lock);
		return ret == ETIMEDOUT ? ETIMEDOUT : EIO;
	}
	if (status) {
		shim_dbg(1, "%s: command obj %u method %u failed: status %u (%s), syndrome reason %u attr %u",
			 d->cfg.name, c->obj, c->method, status, strerror((int)status),
			 (c->syndrome & HCA_CMDQ_ENTRY_SYNDROME_REASON_MASK) >>
				 HCA_CMDQ_ENTRY_SYNDROME_REASON_SHIFT,
			 c->syndrome & HCA_CMDQ_ENTRY_SYNDROME_ATTR_MASK);
		pthread_mutex_unlock(&hw->lock);
		return (int)status;
	}
	for (unsigned int i = 0; i < c->n; i++) {
		struct shim_cmd_attr *a = &c->a[i];

		if (a->kind == HCA_ATTR_KIND_PTR_OUT && a->out)
			memcpy(a->out, (uint8_t *)hw->buf.va + pos[i], a->len);
		if (a->kind == HCA_ATTR_KIND_IDR && a->new_handle)
			*a->new_handle = (uint32_t)ca[i].data;
	}
	pthread_mutex_unlock(&hw->lock);
	return 0;
}

/* ---- bring-up -------------------------------------------------------------------- */

struct reg_wait {
	uint32_t reg, mask, value;
};

static int reg_is(struct shim_device *d, void *arg)
{
	struct reg_wait *w = arg;

	return (shim_bus_read32(d->bus, w->reg) & w->mask) == w->value;
}

static int fw_settled(struct shim_device *d, void *arg)
{
	uint32_t st = shim_bus_read32(d->bus, HCA_INIT_STATUS);

	(void)arg;
	if (st & HCA_INIT_STATUS_FATAL_MASK)
		return 1;
	return (st & HCA_INIT_STATUS_FW_READY_MASK) &&
	       HCA_FIELD_GET(st, HCA_INIT_STATUS_STATE) == HCA_DEV_STATE_READY;
}

static int cmdq_settled(struct shim_device *d, void *arg)
{
	uint32_t st = shim_bus_read32(d->bus, HCA_INIT_STATUS);

	(void)arg;
	return (st & (HCA_INIT_STATUS_FATAL_MASK | HCA_INIT_STATUS_CMDQ_READY_MASK)) != 0;
}

static int fatal(struct shim_device *d, const char *what)
{
	shim_err("%s: bring-up failed: %s (STATUS 0x%x, SYNDROME 0x%x)", d->cfg.name, what,
		 shim_bus_read32(d->bus, HCA_INIT_STATUS), shim_bus_read32(d->bus, HCA_INIT_SYNDROME));
	return EIO;
}

int shim_hw_open(struct shim_device *d)
{
	struct reg_wait reset_done = { HCA_INIT_CTRL, HCA_INIT_CTRL_RESET_MASK, 0 };
	struct shim_hw *hw;
	uint32_t st;
	int ret;

	hw = calloc(1, sizeof(*hw));
	if (!hw)
		return ENOMEM;
	pthread_mutex_init(&hw->lock, NULL);

	/* 1. reset */
	shim_bus_write32(d->bus, HCA_INIT_CTRL, HCA_INIT_CTRL_RESET_MASK);
	if (hw_wait(d, reg_is, &reset_done)) {
		ret = fatal(d, "CTRL.RESET did not complete");
		goto fail;
	}
	/* 2. firmware ready */
	if (hw_wait(d, fw_settled, NULL) ||
	    (shim_bus_read32(d->bus, HCA_INIT_STATUS) & HCA_INIT_STATUS_FATAL_MASK)) {
		ret = fatal(d, "firmware did not become ready");
		goto fail;
	}
	/* 3. command queue */
	ret = shim_dma_alloc(d, sizeof(struct hca_cmdq_entry) << CMDQ_LOG_SIZE, HOSTMEM_RW, &hw->ring);
	if (!ret)
		ret = shim_dma_alloc(d, CMD_BUF_SIZE, HOSTMEM_RW, &hw->buf);
	if (ret)
		goto fail;
	shim_bus_write32(d->bus, HCA_INIT_CMDQ_BASE_LO, (uint32_t)hw->ring.iova);
	shim_bus_write32(d->bus, HCA_INIT_CMDQ_BASE_HI, (uint32_t)(hw->ring.iova >> 32));
	shim_bus_write32(d->bus, HCA_INIT_CMDQ_LOG_SIZE, CMDQ_LOG_SIZE);
	hw->pi = shim_bus_read32(d->bus, HCA_INIT_CMDQ_CI);
	shim_bus_write32(d->bus, HCA_INIT_CTRL, HCA_INIT_CTRL_ENABLE_MASK);
	d->hw = hw;
	if (hw_wait(d, cmdq_settled, NULL)) {
		d->hw = NULL;
		ret = fatal(d, "command queue did not become ready");
		goto fail;
	}
	st = shim_bus_read32(d->bus, HCA_INIT_STATUS);
	if (st & HCA_INIT_STATUS_FATAL_MASK) {
		d->hw = NULL;
		ret = fatal(d, "firmware refused the command queue");
		goto fail;
	}
	shim_dbg(1, "%s: firmware %u.%u.%u up, command queue running", d->cfg.name,
		 shim_bus_read32(d->bus, HCA_INIT_FW_VER) >> 16,
		 (shim_bus_read32(d->bus, HCA_INIT_FW_VER) >> 8) & 0xff,
		 shim_bus_read32(d->bus, HCA_INIT_FW_VER) & 0xff);
	return 0;
fail:
	if (hw->ring.va)
		shim_dma_free(d, &hw->ring);
	if (hw->buf.va)
		shim_dma_free(d, &hw->buf);
	pthread_mutex_destroy(&hw->lock);
	free(hw);
	return ret;
}

void shim_hw_close(struct shim_device *d)
{
	struct shim_hw *hw = d->hw;

	if (!hw)
		return;
	d->hw = NULL;
	shim_dma_free(d, &hw->ring);
	shim_dma_free(d, &hw->buf);
	pthread_mutex_destroy(&hw->lock);
	free(hw);
}
