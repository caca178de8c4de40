// SPDX-License-Identifier: MIT
/*
 * Firmware + engine = device backend (docs/backend.md, docs/firmware.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cov.h"
#include "device.h"
#include "../firmware/fw.h"

/* Functional coverage (sim/cov.h) when the program links libhcacov and HCASIM_COV=DIR is set. */
extern int cov_wrap_config(const char *engine, const char *opts, const char *prefix, char *eng_out,
			   size_t eng_n, char *opts_out, size_t opts_n) __attribute__((weak));
extern void hca_cov_engine_register(void) __attribute__((weak));
extern bool cov_env_prefix(const char *what, char *buf, size_t n) __attribute__((weak));
extern struct cov *cov_of(struct hca_engine *e) __attribute__((weak));
extern void cov_fw_dma_read(struct cov *c, uint64_t iova, const void *buf, size_t len, int rc)
	__attribute__((weak));
extern void cov_dma_write(struct cov *c, uint64_t iova, const void *buf, size_t len, int rc)
	__attribute__((weak));
extern struct cov *cov_new(unsigned int data_w) __attribute__((weak));
extern int cov_write(const struct cov *c, const char *path) __attribute__((weak));
extern void cov_free(struct cov *c) __attribute__((weak));
extern void cov_bar0_write(struct cov *c, uint32_t off, uint32_t value) __attribute__((weak));

#define DEVICE_MAGIC 0x48434144u	/* "HCAD" */
/* Firmware runs per step boundary before the engine must move on: a
 * firmware that cannot clear its interrupt must not stall time. */
#define FW_RUNS_PER_STEP 4

struct hca_dev {
	uint32_t magic;
	const struct hca_engine_ops *eops;
	struct hca_engine *eng;
	struct hca_host_ops host;
	void *host_ctx;
	struct hca_fw *fw;
	uint64_t fw_runs;
	int fw_log;
	struct cov *cov;	/* functional coverage of the engine and the firmware commands */
	struct cov *own_cov;	/* HCASIM_COV_ENGINE=0: firmware commands only, engine not wrapped */
	char own_cov_path[560];
	char err[160];
};

/* ---- firmware HAL over the engine and the host ---- */

static uint32_t hal_mgmt_read(void *ctx, uint32_t addr)
{
	struct hca_dev *d = ctx;
	return d->eops->mgmt_read(d->eng, addr);
}

static void hal_mgmt_write(void *ctx, uint32_t addr, uint32_t value)
{
	struct hca_dev *d = ctx;
	d->eops->mgmt_write(d->eng, addr, value);
}

static int hal_dma_read(void *ctx, uint64_t iova, void *buf, size_t len)
{
	struct hca_dev *d = ctx;
	int rc = d->host.dma_read ? d->host.dma_read(d->host_ctx, iova, buf, len) : -EFAULT;

	if (d->cov)
		cov_fw_dma_read(d->cov, iova, buf, len, rc);
	return rc;
}

static int hal_dma_write(void *ctx, uint64_t iova, const void *buf, size_t len)
{
	struct hca_dev *d = ctx;
	int rc = d->host.dma_write ? d->host.dma_write(d->host_ctx, iova, buf, len) : -EFAULT;

	if (d->cov)
		cov_dma_write(d->cov, iova, buf, len, rc);
	return rc;
}

static uint64_t hal_now(void *ctx)
{
	struct hca_dev *d = ctx;
	return d->eops->now(d->eng);
}

static void hal_log(void *ctx, const char *msg, uint32_t a, uint32_t b)
{
	struct hca_dev *d = ctx;

	snprintf(d->err, sizeof(d->err), "firmware: %s: 0x%x 0x%x", msg, a, b);
	if (d->fw_log)
		fprintf(stderr, "[%llu] %s\n", (unsigned long long)hal_now(d), d->err);
}

/* ---- backend operations ---- */

static int dev_create(const char *engine_name, const struct hca_dev_config *cfg,
		      const struct hca_host_ops *host, void *host_ctx, struct hca_dev **out)
{
	const struct hca_engine_ops *eops = hca_engine_find(engine_name);
	struct hca_engine_config ec;
	struct hca_fw_board board;
	struct hca_fw_hal hal;
	struct hca_dev *d;
	char cov_prefix[512], cov_eng[32], cov_opts[2048];
	const char *env;
	int rc;

	*out = NULL;
	if (!eops)
		return -ENODEV;
	if (!cfg || !host)
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->fw = calloc(1, sizeof(*d->fw));
	if (!d->fw) {
		free(d);
		return -ENOMEM;
	}
	d->magic = DEVICE_MAGIC;
	d->eops = eops;
	d->host = *host;
	d->host_ctx = host_ctx;
	env = getenv("HCASIM_FW_LOG");
	d->fw_log = env && *env && strcmp(env, "0") != 0;

	memset(&ec, 0, sizeof(ec));
	ec.data_w = cfg->data_w;
	ec.seed = cfg->seed;
	ec.trace = cfg->trace;
	ec.trace_from = cfg->trace_from;
	ec.trace_to = cfg->trace_to;
	ec.options = cfg->options;
	env = getenv("HCASIM_COV_ENGINE");
	if (cov_new && env && !strcmp(env, "0") && cov_env_prefix("dev", cov_prefix, sizeof(cov_prefix))) {
		/* a test that reaches into its (fake) engine: count the firmware commands only */
		d->own_cov = cov_new(cfg->data_w ? cfg->data_w : 64);
		snprintf(d->own_cov_path, sizeof(d->own_cov_path), "%s.%s.cov", cov_prefix, engine_name);
	} else if (cov_wrap_config && cov_env_prefix("dev", cov_prefix, sizeof(cov_prefix))) {
		hca_cov_engine_register();
		if (!cov_wrap_config(engine_name, cfg->options, cov_prefix, cov_eng, sizeof(cov_eng), cov_opts,
				     sizeof(cov_opts))) {
			ec.options = cov_opts;
			d->eops = eops = hca_engine_find(cov_eng);
		}
	}
	/* The engine's DMA goes straight to the host, like the firmware's. */
	rc = eops->create(&ec, host, host_ctx, &d->eng);
	if (rc) {
		if (d->own_cov)
			cov_free(d->own_cov);
		free(d->fw);
		free(d);
		return rc;
	}
	d->cov = d->own_cov ? d->own_cov : cov_of ? cov_of(d->eng) : NULL;

	memset(&hal, 0, sizeof(hal));
	hal.ctx = d;
	hal.mgmt_read = hal_mgmt_read;
	hal.mgmt_write = hal_mgmt_write;
	hal.dma_read = hal_dma_read;
	hal.dma_write = hal_dma_write;
	hal.now = hal_now;
	hal.log = hal_log;
	memcpy(board.mac, cfg->mac, sizeof(board.mac));
	rc = hca_fw_init(d->fw, &hal, &board);
	if (rc) {
		eops->destroy(d->eng);
		if (d->own_cov)
			cov_free(d->own_cov);
		free(d->fw);
		free(d);
		return rc < 0 ? rc : -rc;
	}
	*out = d;
	return 0;
}

static void dev_destroy(struct hca_dev *d)
{
	if (!d)
		return;
	d->eops->destroy(d->eng);
	if (d->own_cov) {
		cov_write(d->own_cov, d->own_cov_path);
		cov_free(d->own_cov);
	}
	free(d->fw);
	d->magic = 0;
	free(d);
}

static uint32_t dev_mmio_read(struct hca_dev *d, uint32_t off)
{
	return d->eops->bar0_read(d->eng, off);
}

static void dev_mmio_write(struct hca_dev *d, uint32_t off, uint32_t v)
{
	if (d->own_cov)
		cov_bar0_write(d->own_cov, off, v);
	d->eops->bar0_write(d->eng, off, v);
}

static void dev_rx_frame(struct hca_dev *d, const uint8_t *frame, size_t len)
{
	d->eops->rx_frame(d->eng, frame, len);
}

static uint64_t dev_now(struct hca_dev *d)
{
	return d->eops->now(d->eng);
}

/* Run the firmware if its interrupt is up or its deadline has come. */
static void service_fw(struct hca_dev *d)
{
	for (int i = 0; i < FW_RUNS_PER_STEP; i++) {
		if (!d->eops->fw_irq(d->eng) && dev_now(d) < hca_fw_next_deadline(d->fw))
			return;
		hca_fw_run(d->fw);
		d->fw_runs++;
	}
}

static void dev_advance(struct hca_dev *d, uint64_t cycles)
{
	uint64_t now = dev_now(d);
	uint64_t end = now + cycles < now ? UINT64_MAX : now + cycles;

	for (;;) {
		uint64_t t = end, ne, fd;

		service_fw(d);
		now = dev_now(d);
		if (now >= end)
			break;
		ne = d->eops->next_event(d->eng);
		fd = hca_fw_next_deadline(d->fw);
		if (ne < t)
			t = ne;
		if (fd < t)
			t = fd;
		if (t <= now)
			t = now + 1;
		d->eops->advance(d->eng, t - now);
		if (dev_now(d) <= now) {
			snprintf(d->err, sizeof(d->err), "engine %s did not advance at cycle %llu",
				 d->eops->name, (unsigned long long)now);
			break;
		}
	}
}

static uint64_t dev_next_event(struct hca_dev *d)
{
	uint64_t now = dev_now(d), t = d->eops->next_event(d->eng), fd;

	if (d->eops->fw_irq(d->eng))
		return now;
	fd = hca_fw_next_deadline(d->fw);
	if (fd < t)
		t = fd;
	return t < now ? now : t;
}

static const char *dev_last_error(struct hca_dev *d)
{
	const char *e = d->eops->last_error ? d->eops->last_error(d->eng) : NULL;

	return e && *e ? e : d->err;
}

/* ---- registration: one backend per engine name ---- */

#define MAX_BACKENDS 8

struct dev_backend {
	char name[32];
	struct hca_backend be;
};

static struct dev_backend backends[MAX_BACKENDS];
static unsigned int nr_backends;

#define TRAMPOLINE(i)                                                                      \
	static int create_##i(const struct hca_dev_config *cfg, const struct hca_host_ops *host, \
			      void *host_ctx, struct hca_dev **out)                        \
	{                                                                                  \
		return dev_create(backends[i].name, cfg, host, host_ctx, out);             \
	}
TRAMPOLINE(0) TRAMPOLINE(1) TRAMPOLINE(2) TRAMPOLINE(3)
TRAMPOLINE(4) TRAMPOLINE(5) TRAMPOLINE(6) TRAMPOLINE(7)

static int (*const creates[MAX_BACKENDS])(const struct hca_dev_config *, const struct hca_host_ops *,
					  void *, struct hca_dev **) = {
	create_0, create_1, create_2, create_3, create_4, create_5, create_6, create_7,
};

int hca_device_register(const char *engine_name)
{
	struct dev_backend *b;

	if (!engine_name || !hca_engine_find(engine_name))
		return -ENOENT;
	for (unsigned int i = 0; i < nr_backends; i++)
		if (strcmp(backends[i].name, engine_name) == 0)
			return 0;
	if (nr_backends >= MAX_BACKENDS || strlen(engine_name) >= sizeof(b->name))
		return -ENOSPC;
	b = &backends[nr_backends];
	strcpy(b->name, engine_name);
	b->be.name = b->name;
	b->be.create = creates[nr_backends];
	b->be.destroy = dev_destroy;
	b->be.mmio_read = dev_mmio_read;
	b->be.mmio_write = dev_mmio_write;
	b->be.rx_frame = dev_rx_frame;
	b->be.advance = dev_advance;
	b->be.now = dev_now;
	b->be.next_event = dev_next_event;
	b->be.last_error = dev_last_error;
	nr_backends++;
	hca_backend_register(&b->be);
	return 0;
}

void hca_device_register_all(void)
{
	static const char *const names[] = { "model", "rtl", "lockstep" };

	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		hca_device_register(names[i]);
}

int hca_device_create(const char *engine_name, const struct hca_dev_config *cfg,
		      const struct hca_host_ops *host, void *host_ctx, struct hca_dev **out)
{
	return dev_create(engine_name, cfg, host, host_ctx, out);
}

/* ---- test and debug access ---- */

int hca_device_is_ours(const struct hca_dev *dev)
{
	return dev && dev->magic == DEVICE_MAGIC;
}

struct hca_fw *hca_device_fw(struct hca_dev *dev)
{
	return hca_device_is_ours(dev) ? dev->fw : NULL;
}

struct hca_engine *hca_device_engine(struct hca_dev *dev)
{
	return hca_device_is_ours(dev) ? dev->eng : NULL;
}

uint32_t hca_device_mgmt_read(struct hca_dev *dev, uint32_t addr)
{
	return hca_device_is_ours(dev) ? dev->eops->mgmt_read(dev->eng, addr) : 0;
}

void hca_device_mgmt_write(struct hca_dev *dev, uint32_t addr, uint32_t value)
{
	if (hca_device_is_ours(dev))
		dev->eops->mgmt_write(dev->eng, addr, value);
}

int hca_device_ctx_read(struct hca_dev *dev, unsigned int type, uint32_t index, void *buf,
			size_t len)
{
	uint8_t *p = buf;

	if (!hca_device_is_ours(dev) || len > 4u * HCA_MGMT_CTX_DATA_WORDS)
		return -EINVAL;
	dev->eops->mgmt_write(dev->eng, HCA_MGMT_CTX_CMD,
			      HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_OP, HCA_CTX_OP_READ) |
			      HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_TYPE, type) |
			      HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_INDEX, index));
	if (dev->eops->mgmt_read(dev->eng, HCA_MGMT_CTX_STATUS) != HCA_MGMT_STATUS_OK)
		return -EIO;
	for (size_t i = 0; i < len; i++) {
		uint32_t w = dev->eops->mgmt_read(dev->eng, HCA_MGMT_CTX_DATA + 4 * (uint32_t)(i / 4));
		p[i] = (uint8_t)(w >> (8 * (i % 4)));
	}
	return 0;
}

uint64_t hca_device_fw_runs(const struct hca_dev *dev)
{
	return hca_device_is_ours(dev) ? dev->fw_runs : 0;
}
