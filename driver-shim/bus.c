// SPDX-License-Identifier: MIT
/* The VFIO-style bus in front of an in-process device: see bus.h. */
#include "bus.h"

#include <errno.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "hcasim/hca_spec.h"
#include "hostmem.h"
#include "log.h"

#define BUS_PAGE 4096ull
#define BUS_IOVA_BASE 0x100000000ull	/* first IOVA handed out: 4 GiB */
#define BUS_RXQ_MAX 4096		/* frames queued for the device before dropping */
#define BUS_FAULT_REPORT_MAX 16		/* faults printed individually */
/* Delivered frames' buffers are kept for reuse (no malloc/free per frame):
 * up to BUS_RX_SPARE of them, each at least BUS_RX_BUF bytes (a PMTU-4096
 * frame with every header). */
#define BUS_RX_SPARE 256
#define BUS_RX_BUF 4352

struct rx_frame {
	struct rx_frame *next;
	size_t len;
	size_t cap;
	uint8_t data[];
};

struct shim_bus {
	char name[64];
	char last_error[256];
	const struct hca_backend *be;
	struct hca_dev *dev;
	struct hostmem *hm;
	pthread_mutex_t step_lock;	/* one stepper at a time; held across the irq handler */
	pthread_mutex_t lock;		/* device, hostmem, IOVA allocator */
	uint64_t next_iova;

	/* interrupts */
	int irq_fd[HCA_CAP_NUM_MSIX];
	uint64_t irq_pending;		/* vectors fired during the current step */
	shim_bus_irq_fn irq_fn;
	void *irq_arg;

	/* frames */
	shim_bus_tx_fn tx_fn;
	shim_bus_tx_flush_fn tx_flush;
	void *tx_arg;
	int tx_pending;			/* frames went to tx_fn during this step */
	pthread_mutex_t rx_lock;
	struct rx_frame *rx_head, *rx_tail;
	unsigned int rx_count;
	uint64_t rx_dropped;
	struct rx_frame *rx_spare;	/* free buffers */
	unsigned int rx_nspare;

	/* device-thread wake-up and progress */
	int wake_fd;
	atomic_int sleeping;		/* the device thread is (about to be) asleep */
	pthread_mutex_t prog_lock;
	pthread_cond_t prog_cond;
	uint64_t prog_gen;

	uint64_t faults_reported;
};

/* ---- host callbacks (called by the device inside advance) ---------------- */

static void report_fault(struct shim_bus *bus, uint64_t iova, size_t len, int write)
{
	if (bus->faults_reported < BUS_FAULT_REPORT_MAX)
		shim_err("%s: DMA fault: device %s of %zu bytes at IOVA 0x%" PRIx64
			 " refused by the IOMMU (unmapped or read-only); not performed", bus->name,
			 write ? "write" : "read", len, iova);
	else if (bus->faults_reported == BUS_FAULT_REPORT_MAX)
		shim_err("%s: further DMA faults are counted, not printed", bus->name);
	bus->faults_reported++;
}

static int host_dma_read(void *host, uint64_t iova, void *buf, size_t len)
{
	struct shim_bus *bus = host;
	int ret = hostmem_dma_read(bus->hm, iova, buf, len);

	if (ret)
		report_fault(bus, iova, len, 0);
	return ret;
}

static int host_dma_write(void *host, uint64_t iova, const void *buf, size_t len)
{
	struct shim_bus *bus = host;
	int ret = hostmem_dma_write(bus->hm, iova, buf, len);

	if (ret)
		report_fault(bus, iova, len, 1);
	return ret;
}

static void host_tx_frame(void *host, const uint8_t *frame, size_t len)
{
	struct shim_bus *bus = host;

	if (bus->tx_fn) {
		bus->tx_fn(bus->tx_arg, frame, len);
		bus->tx_pending = 1;
	}
}

static void host_interrupt(void *host, unsigned int vector)
{
	struct shim_bus *bus = host;
	uint64_t one = 1;

	if (vector >= HCA_CAP_NUM_MSIX)
		return;
	bus->irq_pending |= 1ull << vector;
	if (write(bus->irq_fd[vector], &one, sizeof(one)) != sizeof(one))
		shim_err("%s: cannot signal interrupt eventfd of vector %u", bus->name, vector);
}

static const struct hca_host_ops bus_host_ops = {
	.dma_read = host_dma_read,
	.dma_write = host_dma_write,
	.tx_frame = host_tx_frame,
	.interrupt = host_interrupt,
};

/* ---- lifetime ------------------------------------------------------------ */

int shim_bus_open(const char *name, const char *backend, const struct hca_dev_config *cfg,
		  struct shim_bus **out)
{
	struct shim_bus *bus;
	int ret;

	*out = NULL;
	bus = calloc(1, sizeof(*bus));
	if (!bus)
		return -ENOMEM;
	snprintf(bus->name, sizeof(bus->name), "%s", name ? name : "hca");
	pthread_mutex_init(&bus->step_lock, NULL);
	pthread_mutex_init(&bus->lock, NULL);
	pthread_mutex_init(&bus->rx_lock, NULL);
	pthread_mutex_init(&bus->prog_lock, NULL);
	pthread_cond_init(&bus->prog_cond, NULL);
	bus->next_iova = BUS_IOVA_BASE;
	bus->wake_fd = -1;
	for (unsigned int v = 0; v < HCA_CAP_NUM_MSIX; v++)
		bus->irq_fd[v] = -1;

	bus->be = hca_backend_find(backend);
	if (!bus->be) {
		shim_err("%s: no device backend named \"%s\" (linked in: %s)", bus->name,
			 backend ? backend : "(null)", hca_backend_names());
		ret = -ENOENT;
		goto fail;
	}
	bus->hm = hostmem_create();
	bus->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (!bus->hm || bus->wake_fd < 0) {
		ret = -ENOMEM;
		goto fail;
	}
	for (unsigned int v = 0; v < HCA_CAP_NUM_MSIX; v++) {
		bus->irq_fd[v] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (bus->irq_fd[v] < 0) {
			ret = -errno;
			goto fail;
		}
	}
	ret = bus->be->create(cfg, &bus_host_ops, bus, &bus->dev);
	if (ret) {
		shim_err("%s: backend \"%s\" failed to create the device: %s", bus->name,
			 backend, strerror(-ret));
		bus->dev = NULL;
		goto fail;
	}
	*out = bus;
	return 0;
fail:
	shim_bus_close(bus);
	return ret;
}

int shim_bus_finish(struct shim_bus *bus)
{
	struct timespec t;

	if (!bus)
		return 0;
	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_nsec += 200000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	if (pthread_mutex_timedlock(&bus->step_lock, &t))
		return -1;
	if (pthread_mutex_timedlock(&bus->lock, &t)) {
		pthread_mutex_unlock(&bus->step_lock);
		return -1;
	}
	if (bus->dev)
		bus->be->destroy(bus->dev);
	bus->dev = NULL;
	return 0;	/* both locks stay held */
}

void shim_bus_close(struct shim_bus *bus)
{
	struct rx_frame *f;

	if (!bus)
		return;
	if (bus->dev)
		bus->be->destroy(bus->dev);
	if (bus->hm)
		hostmem_destroy(bus->hm);
	for (unsigned int v = 0; v < HCA_CAP_NUM_MSIX; v++)
		if (bus->irq_fd[v] >= 0)
			close(bus->irq_fd[v]);
	if (bus->wake_fd >= 0)
		close(bus->wake_fd);
	while ((f = bus->rx_head)) {
		bus->rx_head = f->next;
		free(f);
	}
	while ((f = bus->rx_spare)) {
		bus->rx_spare = f->next;
		free(f);
	}
	pthread_mutex_destroy(&bus->step_lock);
	pthread_mutex_destroy(&bus->lock);
	pthread_mutex_destroy(&bus->rx_lock);
	pthread_mutex_destroy(&bus->prog_lock);
	pthread_cond_destroy(&bus->prog_cond);
	free(bus);
}

const char *shim_bus_name(const struct shim_bus *bus)
{
	return bus->name;
}

const char *shim_bus_last_error(const struct shim_bus *bus)
{
	if (bus->dev && bus->be->last_error)
		return bus->be->last_error(bus->dev);
	return bus->last_error;
}

void shim_bus_lock(struct shim_bus *bus)
{
	pthread_mutex_lock(&bus->lock);
}

void shim_bus_unlock(struct shim_bus *bus)
{
	pthread_mutex_unlock(&bus->lock);
}

void shim_bus_poke(struct shim_bus *bus)
{
	uint64_t one = 1;

	/* Only a sleeping thread needs the syscall (it re-checks for work after
	 * announcing that it sleeps, so no wake-up is lost). */
	if (!atomic_load(&bus->sleeping))
		return;

	/* The counter saturating (EAGAIN) still leaves it readable: fine. */
	if (write(bus->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		shim_err("%s: cannot wake the device thread", bus->name);
}

void shim_bus_set_sleeping(struct shim_bus *bus, int sleeping)
{
	atomic_store(&bus->sleeping, sleeping);
}

int shim_bus_wake_fd(struct shim_bus *bus)
{
	return bus->wake_fd;
}

void shim_bus_clear_wake(struct shim_bus *bus)
{
	uint64_t v;

	while (read(bus->wake_fd, &v, sizeof(v)) == sizeof(v))
		;
}

/* ---- region 0 ------------------------------------------------------------ */

uint32_t shim_bus_read32(struct shim_bus *bus, uint32_t off)
{
	uint32_t v;

	pthread_mutex_lock(&bus->lock);
	v = bus->be->mmio_read(bus->dev, off);
	pthread_mutex_unlock(&bus->lock);
	return v;
}

void shim_bus_write32(struct shim_bus *bus, uint32_t off, uint32_t val)
{
	pthread_mutex_lock(&bus->lock);
	bus->be->mmio_write(bus->dev, off, val);
	pthread_mutex_unlock(&bus->lock);
	shim_bus_poke(bus);
}

/* ---- IOMMU --------------------------------------------------------------- */

int shim_bus_dma_map(struct shim_bus *bus, void *vaddr, size_t len, unsigned int perm,
		     uint64_t *iova)
{
	uint64_t off = (uintptr_t)vaddr & (BUS_PAGE - 1), base, span;
	int ret;

	if (!vaddr || !len || !perm || (perm & ~(unsigned int)HOSTMEM_RW))
		return -EINVAL;
	span = (off + len + BUS_PAGE - 1) & ~(BUS_PAGE - 1);
	if (span < len)
		return -EINVAL;
	pthread_mutex_lock(&bus->lock);
	base = bus->next_iova;
	ret = hostmem_map(bus->hm, base + off, vaddr, len, perm);
	if (!ret) {
		bus->next_iova = base + span + BUS_PAGE;	/* unmapped guard page */
		*iova = base + off;
	}
	pthread_mutex_unlock(&bus->lock);
	return ret;
}

int shim_bus_dma_unmap(struct shim_bus *bus, uint64_t iova)
{
	int ret;

	pthread_mutex_lock(&bus->lock);
	ret = hostmem_unmap(bus->hm, iova);
	pthread_mutex_unlock(&bus->lock);
	return ret;
}

uint64_t shim_bus_dma_faults(struct shim_bus *bus)
{
	uint64_t n;

	pthread_mutex_lock(&bus->lock);
	n = hostmem_fault_count(bus->hm);
	pthread_mutex_unlock(&bus->lock);
	return n;
}

int shim_bus_dma_fault(struct shim_bus *bus, unsigned int i, struct hostmem_fault *out)
{
	const struct hostmem_fault *f;

	pthread_mutex_lock(&bus->lock);
	f = hostmem_fault(bus->hm, i);
	if (f)
		*out = *f;
	pthread_mutex_unlock(&bus->lock);
	return f ? 0 : -ENOENT;
}

void shim_bus_dma_bytes(struct shim_bus *bus, uint64_t *rd, uint64_t *wr)
{
	pthread_mutex_lock(&bus->lock);
	*rd = hostmem_bytes_read(bus->hm);
	*wr = hostmem_bytes_written(bus->hm);
	pthread_mutex_unlock(&bus->lock);
}

/* ---- interrupts and frames ----------------------------------------------- */

int shim_bus_irq_fd(struct shim_bus *bus, unsigned int vector)
{
	return vector < HCA_CAP_NUM_MSIX ? bus->irq_fd[vector] : -1;
}

void shim_bus_set_irq_handler(struct shim_bus *bus, shim_bus_irq_fn fn, void *arg)
{
	pthread_mutex_lock(&bus->lock);
	bus->irq_fn = fn;
	bus->irq_arg = arg;
	pthread_mutex_unlock(&bus->lock);
}

void shim_bus_set_tx(struct shim_bus *bus, shim_bus_tx_fn fn, void *arg)
{
	pthread_mutex_lock(&bus->lock);
	bus->tx_fn = fn;
	bus->tx_arg = arg;
	pthread_mutex_unlock(&bus->lock);
}

void shim_bus_set_tx_flush(struct shim_bus *bus, shim_bus_tx_flush_fn flush)
{
	pthread_mutex_lock(&bus->lock);
	bus->tx_flush = flush;
	pthread_mutex_unlock(&bus->lock);
}

/* Queue frames[0..n): how many were queued; *full says the queue had no room. */
static unsigned int rx_queue(struct shim_bus *bus, const struct iovec *frames, unsigned int n,
			     int *full)
{
	struct rx_frame *head = NULL, **tail = &head, *last = NULL, *spare = NULL;
	unsigned int room, k = 0;

	pthread_mutex_lock(&bus->rx_lock);
	room = bus->rx_count >= BUS_RXQ_MAX ? 0 : BUS_RXQ_MAX - bus->rx_count;
	/* take the spare buffers these frames need */
	for (unsigned int i = 0; i < n && i < room && bus->rx_spare; i++) {
		struct rx_frame *f = bus->rx_spare;

		bus->rx_spare = f->next;
		bus->rx_nspare--;
		f->next = spare;
		spare = f;
	}
	pthread_mutex_unlock(&bus->rx_lock);
	*full = room < n;
	/* The copies are made outside the lock: the stepper is not held up by them. */
	for (; k < n && k < room; k++) {
		size_t len = frames[k].iov_len;
		struct rx_frame *f = spare;

		if (f && f->cap >= len) {
			spare = f->next;
		} else {
			size_t cap = len > BUS_RX_BUF ? len : BUS_RX_BUF;

			f = malloc(sizeof(*f) + cap);
			if (!f)
				break;
			f->cap = cap;
		}
		f->next = NULL;
		f->len = len;
		memcpy(f->data, frames[k].iov_base, len);
		*tail = last = f;
		tail = &f->next;
	}
	while (spare) {		/* not needed after all */
		struct rx_frame *f = spare;

		spare = f->next;
		free(f);
	}
	pthread_mutex_lock(&bus->rx_lock);
	bus->rx_dropped += n - k;
	if (head) {
		if (bus->rx_tail)
			bus->rx_tail->next = head;
		else
			bus->rx_head = head;
		bus->rx_tail = last;
		bus->rx_count += k;
	}
	pthread_mutex_unlock(&bus->rx_lock);
	if (k)
		shim_bus_poke(bus);
	return k;
}

unsigned int shim_bus_rx_batch(struct shim_bus *bus, const struct iovec *frames, unsigned int n)
{
	int full;

	return rx_queue(bus, frames, n, &full);
}

int shim_bus_rx(struct shim_bus *bus, const uint8_t *frame, size_t len)
{
	struct iovec v = { .iov_base = (void *)(uintptr_t)frame, .iov_len = len };
	int full;

	if (rx_queue(bus, &v, 1, &full))
		return 0;
	return full ? -ENOBUFS : -ENOMEM;
}

unsigned int shim_bus_rx_room(struct shim_bus *bus)
{
	unsigned int n;

	pthread_mutex_lock(&bus->rx_lock);
	n = bus->rx_count >= BUS_RXQ_MAX ? 0 : BUS_RXQ_MAX - bus->rx_count;
	pthread_mutex_unlock(&bus->rx_lock);
	return n;
}

unsigned int shim_bus_rx_pending(struct shim_bus *bus)
{
	unsigned int n;

	pthread_mutex_lock(&bus->rx_lock);
	n = bus->rx_count;
	pthread_mutex_unlock(&bus->rx_lock);
	return n;
}

/* ---- stepping -------------------------------------------------------------- */

static int deliver_rx(struct shim_bus *bus)
{
	struct rx_frame *list, *f, *keep = NULL, *keep_tail = NULL;
	unsigned int nkeep = 0;
	int n = 0;

	pthread_mutex_lock(&bus->rx_lock);
	list = bus->rx_head;
	bus->rx_head = bus->rx_tail = NULL;
	bus->rx_count = 0;
	pthread_mutex_unlock(&bus->rx_lock);
	if (!list)
		return 0;
	while ((f = list)) {
		list = f->next;
		bus->be->rx_frame(bus->dev, f->data, f->len);
		n++;
		if (f->cap <= BUS_RX_BUF && nkeep < BUS_RX_SPARE) {
			f->next = keep;
			keep = f;
			keep_tail = keep_tail ? keep_tail : f;
			nkeep++;
		} else {
			free(f);
		}
	}
	if (keep) {
		pthread_mutex_lock(&bus->rx_lock);
		if (bus->rx_nspare < BUS_RX_SPARE) {
			keep_tail->next = bus->rx_spare;
			bus->rx_spare = keep;
			bus->rx_nspare += nkeep;
			keep = NULL;
		}
		pthread_mutex_unlock(&bus->rx_lock);
		while ((f = keep)) {
			keep = f->next;
			free(f);
		}
	}
	return n;
}

/* shim_bus_step with the step lock held (released on return). */
static int step_locked(struct shim_bus *bus, uint64_t cycles)
{
	shim_bus_tx_flush_fn flush;
	shim_bus_irq_fn fn;
	uint64_t fired;
	void *arg, *tx_arg;
	int did;

	pthread_mutex_lock(&bus->lock);
	did = deliver_rx(bus) > 0;
	if (!cycles && (did || bus->be->next_event(bus->dev) <= bus->be->now(bus->dev)))
		cycles = 1;
	if (cycles) {
		bus->be->advance(bus->dev, cycles);
		did = 1;
	}
	fired = bus->irq_pending;
	bus->irq_pending = 0;
	fn = bus->irq_fn;
	arg = bus->irq_arg;
	flush = bus->tx_pending ? bus->tx_flush : NULL;
	tx_arg = bus->tx_arg;
	bus->tx_pending = 0;
	pthread_mutex_unlock(&bus->lock);

	/* Frames transmitted during the step leave now, before the handler runs. */
	if (flush)
		flush(tx_arg);

	/* The handler runs without the bus lock (it rings doorbells) but under the
	 * step lock: the device does not run meanwhile, so what it wrote is stable. */
	for (unsigned int v = 0; fired && v < HCA_CAP_NUM_MSIX; v++) {
		uint64_t cnt;

		if (!(fired & (1ull << v)))
			continue;
		fired &= ~(1ull << v);
		did = 1;
		if (fn) {
			/* The handler consumes the interrupt: reset the eventfd. */
			if (read(bus->irq_fd[v], &cnt, sizeof(cnt)) < 0 && errno != EAGAIN)
				shim_err("%s: cannot read interrupt eventfd %u", bus->name, v);
			fn(arg, v);
		}
	}
	pthread_mutex_unlock(&bus->step_lock);
	if (did)
		shim_bus_notify_progress(bus);
	return did;
}

int shim_bus_step(struct shim_bus *bus, uint64_t cycles)
{
	pthread_mutex_lock(&bus->step_lock);
	return step_locked(bus, cycles);
}

int shim_bus_try_step(struct shim_bus *bus, uint64_t cycles)
{
	if (pthread_mutex_trylock(&bus->step_lock))
		return -1;
	return step_locked(bus, cycles);
}

uint64_t shim_bus_now(struct shim_bus *bus)
{
	uint64_t t;

	pthread_mutex_lock(&bus->lock);
	t = bus->be->now(bus->dev);
	pthread_mutex_unlock(&bus->lock);
	return t;
}

uint64_t shim_bus_now_locked(struct shim_bus *bus)
{
	return bus->be->now(bus->dev);
}

uint64_t shim_bus_next_event(struct shim_bus *bus)
{
	uint64_t t;

	pthread_mutex_lock(&bus->lock);
	t = bus->be->next_event(bus->dev);
	pthread_mutex_unlock(&bus->lock);
	return t;
}

/* ---- progress ------------------------------------------------------------ */

uint64_t shim_bus_progress(struct shim_bus *bus)
{
	uint64_t g;

	pthread_mutex_lock(&bus->prog_lock);
	g = bus->prog_gen;
	pthread_mutex_unlock(&bus->prog_lock);
	return g;
}

void shim_bus_notify_progress(struct shim_bus *bus)
{
	pthread_mutex_lock(&bus->prog_lock);
	bus->prog_gen++;
	pthread_cond_broadcast(&bus->prog_cond);
	pthread_mutex_unlock(&bus->prog_lock);
}

void shim_bus_wait_progress(struct shim_bus *bus, uint64_t seen, unsigned int timeout_ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += timeout_ms / 1000;
	ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&bus->prog_lock);
	while (bus->prog_gen == seen)
		if (pthread_cond_timedwait(&bus->prog_cond, &bus->prog_lock, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&bus->prog_lock);
}

const struct hca_backend *shim_bus_backend(struct shim_bus *bus)
{
	return bus->be;
}

struct hca_dev *shim_bus_dev(struct shim_bus *bus)
{
	return bus->dev;
}
