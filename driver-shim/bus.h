/* SPDX-License-Identifier: MIT */
/*
 * The shim's only way to the device: a VFIO-style bus (ARCHITECTURE contract 7).
 *
 *   region 0 (BAR0)   shim_bus_read32 / shim_bus_write32
 *   DMA (IOMMU)       shim_bus_dma_map / shim_bus_dma_unmap: the device reaches
 *                     host memory only through IOVAs mapped here; an access to
 *                     any byte outside a mapping (or a write to a read-only
 *                     mapping) is a fault, logged and reported, never performed
 *   interrupts        one eventfd per MSI-X vector (shim_bus_irq_fd), plus an
 *                     optional in-process handler run after the device stepped
 *
 * Behind the bus sits an in-process device (firmware + engine) whose backend
 * is chosen by name through hca_backend_find() ("model", "rtl", "lockstep").
 * The bus owns the device and serialises every call into it with one mutex,
 * so the application's threads and the device thread can share it.
 *
 * Time: the bus does not decide how time moves; the caller steps it
 * (shim_bus_step, used by the device thread in threaded mode and by the
 * cooperative stepper in cooperative mode).
 */
#ifndef HCASIM_SHIM_BUS_H
#define HCASIM_SHIM_BUS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "hcasim/backend.h"

struct shim_bus;
struct hostmem_fault;

/* Frames the device transmits (called with the bus lock held, inside a step). */
typedef void (*shim_bus_tx_fn)(void *arg, const uint8_t *frame, size_t len);
/* After each step that transmitted (bus lock released, step lock held): a
 * transmitter that batches frames sends them now. */
typedef void (*shim_bus_tx_flush_fn)(void *arg);
/* Interrupt handler for a vector (called after the step, without the bus lock,
 * while no other thread can step the device). */
typedef void (*shim_bus_irq_fn)(void *arg, unsigned int vector);

/*
 * Create the device of backend `backend` behind a new bus.  0 or a negative
 * errno: -ENOENT when no backend of that name is linked in (the message in
 * shim_bus_last_error() lists the ones that are), the backend's error
 * otherwise.  `name` is used in log messages.
 */
int shim_bus_open(const char *name, const char *backend, const struct hca_dev_config *cfg,
		  struct shim_bus **out);
void shim_bus_close(struct shim_bus *bus);
/*
 * Process exit: destroy the backend (a waveform file is completed) and keep
 * the bus locked from then on, so that a thread still inside a verb blocks
 * until the process is gone instead of touching a destroyed device.  0, or
 * -1 (nothing done) when the bus stays taken for 200 ms.
 */
int shim_bus_finish(struct shim_bus *bus);
const char *shim_bus_name(const struct shim_bus *bus);
const char *shim_bus_last_error(const struct shim_bus *bus);

/* Region 0 (BAR0): aligned 32-bit accesses. */
uint32_t shim_bus_read32(struct shim_bus *bus, uint32_t off);
void shim_bus_write32(struct shim_bus *bus, uint32_t off, uint32_t val);

/*
 * Map [vaddr, vaddr+len) for the device at a fresh IOVA (never reused; the
 * IOVA keeps vaddr's offset within its page).  perm: HOSTMEM_READ/WRITE/RW.
 * 0 or -EINVAL / -ENOMEM.
 */
int shim_bus_dma_map(struct shim_bus *bus, void *vaddr, size_t len, unsigned int perm,
		     uint64_t *iova);
/* Remove the mapping that starts at iova: 0 or -ENOENT. */
int shim_bus_dma_unmap(struct shim_bus *bus, uint64_t iova);

/* Device DMA faults since open, and the i-th most recent (NULL beyond the log). */
uint64_t shim_bus_dma_faults(struct shim_bus *bus);
int shim_bus_dma_fault(struct shim_bus *bus, unsigned int i, struct hostmem_fault *out);
/* Bytes the device moved through the IOMMU (reads, writes). */
void shim_bus_dma_bytes(struct shim_bus *bus, uint64_t *rd, uint64_t *wr);

/* eventfd signalled (counter += 1) each time the device fires `vector`; -1 if out of range. */
int shim_bus_irq_fd(struct shim_bus *bus, unsigned int vector);
void shim_bus_set_irq_handler(struct shim_bus *bus, shim_bus_irq_fn fn, void *arg);
void shim_bus_set_tx(struct shim_bus *bus, shim_bus_tx_fn fn, void *arg);
/* flush (or NULL) runs with the tx function's arg. */
void shim_bus_set_tx_flush(struct shim_bus *bus, shim_bus_tx_flush_fn flush);

/* Queue a received frame for the device (any thread; delivered at the next step). */
int shim_bus_rx(struct shim_bus *bus, const uint8_t *frame, size_t len);
/* The same for n frames at once (one lock round trip, one wake-up): how many
 * were queued (the rest dropped: queue full or out of memory, counted). */
unsigned int shim_bus_rx_batch(struct shim_bus *bus, const struct iovec *frames, unsigned int n);
/* Frames queued and not yet delivered; room left in the queue. */
unsigned int shim_bus_rx_pending(struct shim_bus *bus);
unsigned int shim_bus_rx_room(struct shim_bus *bus);

/*
 * One step: deliver queued frames, advance the device by `cycles` (0 = do
 * the work in hand at the current cycle only, i.e. advance by 1 if the
 * device has work now, else nothing), then run the interrupt handler for
 * every vector that fired.  Returns 1 if frames were delivered, time moved
 * or an interrupt fired, else 0.
 */
int shim_bus_step(struct shim_bus *bus, uint64_t cycles);
/* shim_bus_step() unless another thread is stepping the device (-1). */
int shim_bus_try_step(struct shim_bus *bus, uint64_t cycles);
uint64_t shim_bus_now(struct shim_bus *bus);
/* The same, for the tx and DMA callbacks, which run with the bus lock held. */
uint64_t shim_bus_now_locked(struct shim_bus *bus);
/* Earliest cycle the device acts without input (UINT64_MAX = idle). */
uint64_t shim_bus_next_event(struct shim_bus *bus);

/*
 * The bus lock, for callers that must see device-written memory complete
 * (e.g. reading a CQE whose owner bit just flipped): the device writes host
 * memory only while the lock is held.
 */
void shim_bus_lock(struct shim_bus *bus);
void shim_bus_unlock(struct shim_bus *bus);

/* Wake-up: a file descriptor that becomes readable when the bus was poked
 * (MMIO write, queued frame); the device thread sleeps on it. */
int shim_bus_wake_fd(struct shim_bus *bus);
void shim_bus_clear_wake(struct shim_bus *bus);
void shim_bus_poke(struct shim_bus *bus);
/* The device thread announces it is going to sleep (1) or awake (0); pokes
 * only write the wake fd while it sleeps.  After announcing sleep it must
 * check for work once more before blocking. */
void shim_bus_set_sleeping(struct shim_bus *bus, int sleeping);

/*
 * Progress notification for threads waiting on the device (commands in
 * threaded mode): read the generation, check the condition, and if it does
 * not hold wait until the generation moves past `seen` (or timeout_ms).
 * The stepper bumps the generation after every step that did something.
 */
uint64_t shim_bus_progress(struct shim_bus *bus);
void shim_bus_wait_progress(struct shim_bus *bus, uint64_t seen, unsigned int timeout_ms);
void shim_bus_notify_progress(struct shim_bus *bus);

/* Test hook: the backend and device (for tests that fake a device). */
const struct hca_backend *shim_bus_backend(struct shim_bus *bus);
struct hca_dev *shim_bus_dev(struct shim_bus *bus);

#endif /* HCASIM_SHIM_BUS_H */
