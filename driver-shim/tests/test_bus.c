// SPDX-License-Identifier: MIT
/*
 * The shim's VFIO-style bus, against a scripted fake device: region access,
 * the IOMMU (a device access outside a mapping is reported and transfers
 * nothing), per-vector interrupt eventfds and handler, frames both ways,
 * stepping and progress.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus.h"
#include "check.h"
#include "hcasim/backend.h"
#include "hostmem.h"

/* ---- a fake device: registers start one operation, done in advance() ---------- */

enum { R_IOVA_LO = 0x0, R_IOVA_HI = 0x4, R_LEN = 0x8, R_OP = 0xc, R_RESULT = 0x10,
       R_RXCNT = 0x14, R_SUM = 0x18 };
enum { OP_NONE, OP_DMA_WRITE, OP_DMA_READ, OP_IRQ, OP_TX };

struct hca_dev {
	const struct hca_host_ops *host;
	void *hctx;
	uint32_t reg[8];
	uint64_t now;
	int pending;
	uint32_t rx_count;
	size_t rx_len;
};

static int fake_create(const struct hca_dev_config *cfg, const struct hca_host_ops *host,
		       void *host_ctx, struct hca_dev **out)
{
	struct hca_dev *d = calloc(1, sizeof(*d));

	(void)cfg;
	if (!d)
		return -ENOMEM;
	d->host = host;
	d->hctx = host_ctx;
	*out = d;
	return 0;
}

static void fake_destroy(struct hca_dev *d)
{
	free(d);
}

static uint32_t fake_read(struct hca_dev *d, uint32_t off)
{
	if (off == R_RXCNT)
		return d->rx_count;
	return off < sizeof(d->reg) ? d->reg[off / 4] : 0;
}

static void fake_write(struct hca_dev *d, uint32_t off, uint32_t v)
{
	if (off >= sizeof(d->reg))
		return;
	d->reg[off / 4] = v;
	if (off == R_OP)
		d->pending = 1;
}

static void fake_rx(struct hca_dev *d, const uint8_t *f, size_t len)
{
	(void)f;
	d->rx_count++;
	d->rx_len = len;
}

static void fake_advance(struct hca_dev *d, uint64_t cycles)
{
	uint64_t iova = (uint64_t)d->reg[R_IOVA_HI / 4] << 32 | d->reg[R_IOVA_LO / 4];
	uint32_t len = d->reg[R_LEN / 4];
	uint8_t buf[256];
	int ret = 0;

	d->now += cycles;
	if (!d->pending)
		return;
	d->pending = 0;
	if (len > sizeof(buf))
		len = sizeof(buf);
	switch (d->reg[R_OP / 4]) {
	case OP_DMA_WRITE:
		for (uint32_t i = 0; i < len; i++)
			buf[i] = (uint8_t)(0xA0 + i);
		ret = d->host->dma_write(d->hctx, iova, buf, len);
		break;
	case OP_DMA_READ: {
		uint32_t sum = 0;

		memset(buf, 0, sizeof(buf));
		ret = d->host->dma_read(d->hctx, iova, buf, len);
		for (uint32_t i = 0; i < len; i++)
			sum += buf[i];
		d->reg[R_SUM / 4] = sum;
		break;
	}
	case OP_IRQ:
		d->host->interrupt(d->hctx, (unsigned int)iova);
		break;
	case OP_TX:
		for (uint32_t i = 0; i < len; i++)
			buf[i] = (uint8_t)i;
		d->host->tx_frame(d->hctx, buf, len);
		break;
	}
	d->reg[R_RESULT / 4] = (uint32_t)ret;
}

static uint64_t fake_now(struct hca_dev *d)
{
	return d->now;
}

static uint64_t fake_next_event(struct hca_dev *d)
{
	return d->pending ? d->now : UINT64_MAX;
}

static const char *fake_last_error(struct hca_dev *d)
{
	(void)d;
	return "";
}

static const struct hca_backend fake_backend = {
	.name = "fakedev",
	.create = fake_create,
	.destroy = fake_destroy,
	.mmio_read = fake_read,
	.mmio_write = fake_write,
	.rx_frame = fake_rx,
	.advance = fake_advance,
	.now = fake_now,
	.next_event = fake_next_event,
	.last_error = fake_last_error,
};

/* ---- helpers ---------------------------------------------------------------------- */

static int device_op(struct shim_bus *bus, int op, uint64_t iova, uint32_t len)
{
	shim_bus_write32(bus, R_IOVA_LO, (uint32_t)iova);
	shim_bus_write32(bus, R_IOVA_HI, (uint32_t)(iova >> 32));
	shim_bus_write32(bus, R_LEN, len);
	shim_bus_write32(bus, R_OP, (uint32_t)op);
	shim_bus_step(bus, 0);
	return (int)shim_bus_read32(bus, R_RESULT);
}

static unsigned int irq_calls, irq_vector;
static void on_irq(void *arg, unsigned int v)
{
	(void)arg;
	irq_calls++;
	irq_vector = v;
}

static uint8_t tx_buf[256];
static size_t tx_len;
static unsigned int tx_calls;
static void on_tx(void *arg, const uint8_t *f, size_t len)
{
	(void)arg;
	memcpy(tx_buf, f, len < sizeof(tx_buf) ? len : sizeof(tx_buf));
	tx_len = len;
	tx_calls++;
}

int main(void)
{
	struct hca_dev_config cfg = { .seed = 1 };
	struct shim_bus *bus = NULL;
	struct hostmem_fault f;
	uint8_t *buf, *ro, expect[4096];
	uint64_t iova, iova_ro, iova2, gen, cnt;
	struct pollfd p;
	int ret;

	hca_backend_register(&fake_backend);

	ret = shim_bus_open("t", "no-such-backend", &cfg, &bus);
	CHECK_EQ(ret, -ENOENT, "open with an unknown backend fails with -ENOENT");
	CHECK(bus == NULL, "no bus on failure");

	ret = shim_bus_open("t", "fakedev", &cfg, &bus);
	CHECK_EQ(ret, 0, "open fakedev");
	if (ret)
		return check_done();

	/* IOMMU mappings */
	buf = aligned_alloc(4096, 4096);
	ro = aligned_alloc(4096, 4096);
	memset(buf, 0x11, 4096);
	memset(ro, 0x01, 4096);
	CHECK_EQ(shim_bus_dma_map(bus, buf, 0, HOSTMEM_RW, &iova), -EINVAL, "map of length 0");
	CHECK_EQ(shim_bus_dma_map(bus, buf, 16, 0, &iova), -EINVAL, "map without permission");
	CHECK_EQ(shim_bus_dma_map(bus, buf, 4096, HOSTMEM_RW, &iova), 0, "map buffer RW");
	CHECK_EQ(shim_bus_dma_map(bus, ro + 100, 3000, HOSTMEM_READ, &iova_ro), 0, "map read-only");
	CHECK_EQ(iova_ro & 4095, 100, "IOVA keeps the page offset of the buffer");
	CHECK(iova_ro >= iova + 4096 + 4096, "an unmapped guard page separates mappings");

	/* device write inside the mapping */
	CHECK_EQ(device_op(bus, OP_DMA_WRITE, iova + 64, 32), 0, "DMA write inside a mapping");
	CHECK(buf[64] == 0xA0 && buf[95] == 0xBF && buf[63] == 0x11 && buf[96] == 0x11,
	      "exactly the 32 bytes were written");
	CHECK_EQ(shim_bus_dma_faults(bus), 0, "no fault yet");

	/* device write running past the end: reported, nothing transferred */
	memcpy(expect, buf, 4096);
	CHECK_EQ(device_op(bus, OP_DMA_WRITE, iova + 4090, 16), -EFAULT,
		 "DMA write past the end of a mapping faults");
	CHECK(!memcmp(expect, buf, 4096), "no byte of the faulting write reached memory");
	CHECK_EQ(shim_bus_dma_faults(bus), 1, "fault counted");
	CHECK_EQ(shim_bus_dma_fault(bus, 0, &f), 0, "fault logged");
	CHECK_EQ(f.iova, iova + 4090, "fault IOVA");
	CHECK_EQ(f.len, 16, "fault length");
	CHECK_EQ(f.write, 1, "fault direction");

	/* read-only mapping */
	CHECK_EQ(device_op(bus, OP_DMA_WRITE, iova_ro, 8), -EFAULT,
		 "DMA write to a read-only mapping faults");
	CHECK(ro[100] == 0x01, "read-only memory untouched");
	CHECK_EQ(device_op(bus, OP_DMA_READ, iova_ro, 200), 0, "DMA read of a read-only mapping");
	CHECK_EQ(shim_bus_read32(bus, R_SUM), 200, "device read the right bytes");

	/* access to no mapping at all, then after unmap */
	CHECK_EQ(device_op(bus, OP_DMA_READ, 0x1000, 4), -EFAULT, "DMA read of IOVA 0x1000");
	CHECK_EQ(shim_bus_dma_unmap(bus, iova_ro), 0, "unmap");
	CHECK_EQ(shim_bus_dma_unmap(bus, iova_ro), -ENOENT, "unmap twice");
	CHECK_EQ(device_op(bus, OP_DMA_READ, iova_ro, 4), -EFAULT,
		 "DMA read after unmap faults");
	CHECK_EQ(shim_bus_dma_faults(bus), 4, "four faults in all");
	CHECK_EQ(shim_bus_dma_map(bus, ro, 4096, HOSTMEM_READ, &iova2), 0, "remap");
	CHECK(iova2 > iova_ro, "IOVAs are not reused");

	/* interrupts: eventfd without handler */
	device_op(bus, OP_IRQ, 5, 0);
	p = (struct pollfd){ .fd = shim_bus_irq_fd(bus, 5), .events = POLLIN };
	CHECK_EQ(poll(&p, 1, 0), 1, "vector 5 eventfd readable after the interrupt");
	CHECK_EQ(read(p.fd, &cnt, sizeof(cnt)), sizeof(cnt), "read the eventfd");
	CHECK_EQ(cnt, 1, "one interrupt");
	p.fd = shim_bus_irq_fd(bus, 6);
	CHECK_EQ(poll(&p, 1, 0), 0, "vector 6 did not fire");
	CHECK_EQ(shim_bus_irq_fd(bus, 32), -1, "no vector 32");

	/* interrupts: handler */
	shim_bus_set_irq_handler(bus, on_irq, NULL);
	device_op(bus, OP_IRQ, 9, 0);
	CHECK_EQ(irq_calls, 1, "handler called once");
	CHECK_EQ(irq_vector, 9, "handler got vector 9");
	p.fd = shim_bus_irq_fd(bus, 9);
	CHECK_EQ(poll(&p, 1, 0), 0, "the handler consumed the eventfd");

	/* frames */
	shim_bus_set_tx(bus, on_tx, NULL);
	device_op(bus, OP_TX, 0, 60);
	CHECK_EQ(tx_calls, 1, "one frame transmitted");
	CHECK_EQ(tx_len, 60, "frame length");
	CHECK(tx_buf[0] == 0 && tx_buf[59] == 59, "frame bytes");
	{
		uint8_t frame[100] = { 0 };

		CHECK_EQ(shim_bus_rx(bus, frame, sizeof(frame)), 0, "queue a frame");
		CHECK_EQ(shim_bus_rx_pending(bus), 1, "one frame pending");
		CHECK_EQ(shim_bus_read32(bus, R_RXCNT), 0, "not delivered before a step");
		gen = shim_bus_progress(bus);
		CHECK_EQ(shim_bus_step(bus, 0), 1, "step delivers");
		CHECK_EQ(shim_bus_read32(bus, R_RXCNT), 1, "delivered");
		CHECK(shim_bus_progress(bus) != gen, "progress generation moved");
	}

	/* idle device: a step with nothing to do reports nothing */
	gen = shim_bus_progress(bus);
	CHECK_EQ(shim_bus_step(bus, 0), 0, "idle step does nothing");
	CHECK_EQ(shim_bus_progress(bus), gen, "no progress when idle");
	CHECK_EQ(shim_bus_next_event(bus), UINT64_MAX, "idle device has no next event");
	{
		uint64_t t = shim_bus_now(bus);

		CHECK_EQ(shim_bus_step(bus, 1000), 1, "time step");
		CHECK_EQ(shim_bus_now(bus), t + 1000, "time advanced by 1000 cycles");
	}

	shim_bus_close(bus);
	free(buf);
	free(ro);
	return check_done();
}
