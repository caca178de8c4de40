// SPDX-License-Identifier: MIT
/*
 * Process-wide state of the shim: the configured HCAs, their creation and
 * bring-up, the device threads (threaded mode) and the cooperative stepper.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gid.h"
#include "hcasim_shim.h"
#include "hostmem.h"
#include "hw.h"
#include "link.h"
#include "log.h"
#include "pcap.h"
#include "wire.h"
#include "shim.h"

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static int init_done, init_err;
static char *config_text;		/* from hcasim_shim_configure */
static struct shim_config config;
static struct shim_device *devices[SHIM_MAX_DEVICES];
static unsigned int ndevices;

/* Backends linked into the shim register here (backends.c). */
void shim_register_backends(void);

int hcasim_shim_configure(const char *text)
{
	int ret = 0;

	pthread_mutex_lock(&init_lock);
	if (init_done) {
		ret = EBUSY;
	} else {
		free(config_text);
		config_text = text ? strdup(text) : NULL;
		if (text && !config_text)
			ret = ENOMEM;
	}
	pthread_mutex_unlock(&init_lock);
	return ret;
}

static void fill_ibdev(struct shim_device *d)
{
	struct ibv_device *ib = &d->ibdev;

	ib->node_type = IBV_NODE_CA;
	ib->transport_type = IBV_TRANSPORT_IB;	/* RoCE devices report IB transport */
	snprintf(ib->name, sizeof(ib->name), "%s", d->cfg.name);
	snprintf(ib->dev_name, sizeof(ib->dev_name), "uverbs%u", d->index);
	snprintf(ib->dev_path, sizeof(ib->dev_path), "%s/uverbs%u", SHIM_SYSFS_VERBS, d->index);
	snprintf(ib->ibdev_path, sizeof(ib->ibdev_path), "%s/%s", SHIM_SYSFS_IB, d->cfg.name);
}

/* Where the device thread's time went (HCASIM_DEBUG=1; make bench-shim reads it). */
static void print_thread_stats(const struct shim_device *d)
{
	uint64_t tx = 0, rx = 0, txc = 0, rxc = 0;

	if (d->link) {
		shim_link_counters(d->link, &tx, &rx);
		shim_link_calls(d->link, &txc, &rxc);
	}
	shim_dbg(1, "%s: device thread: cpu %.3f s, %llu loops, %llu steps, %llu sleeps; "
		 "link: %llu frames out in %llu sends, %llu in over %llu receives",
		 d->cfg.name, (double)d->thr_cpu_ns / 1e9, (unsigned long long)d->thr_loops,
		 (unsigned long long)d->thr_steps, (unsigned long long)d->thr_sleeps,
		 (unsigned long long)tx, (unsigned long long)txc, (unsigned long long)rx,
		 (unsigned long long)rxc);
}

/*
 * Process exit with HCAs still up (the usual case under LD_PRELOAD): let them
 * finish the work in hand (shim_device_quiesce), stop the device threads so
 * they do not run on during exit, and close the captures so no frame is
 * lost.  A device with a waveform is destroyed (that closes the file), its
 * bus left locked for the rest of the exit.  A thread that does not stop in
 * time (its process is exiting from inside a verb) is left alone.
 */
static void shim_atexit(void)
{
	for (unsigned int i = 0; i < ndevices; i++) {
		struct shim_device *d = devices[i];
		struct timespec t;

		if (!d || !d->up)
			continue;
		if (d->thread_running) {
			/* frames the device is still building go out first */
			shim_device_quiesce(d, 200);
			atomic_store(&d->stop, 1);
			shim_bus_set_sleeping(d->bus, 1);
			shim_bus_poke(d->bus);
			clock_gettime(CLOCK_REALTIME, &t);
			t.tv_nsec += 200000000L;
			if (t.tv_nsec >= 1000000000L) {
				t.tv_sec++;
				t.tv_nsec -= 1000000000L;
			}
			if (pthread_timedjoin_np(d->thread, NULL, &t))
				continue;
			d->thread_running = 0;
			print_thread_stats(d);
		}
		if (d->pcap) {
			pcap_writer_close(d->pcap);
			d->pcap = NULL;
		}
		if (d->cfg.trace[0] && shim_bus_finish(d->bus))
			shim_err("%s: device busy at exit: waveform %s not closed", d->cfg.name, d->cfg.trace);
	}
}

int shim_init(void)
{
	static int atexit_done;
	int ret = 0;

	pthread_mutex_lock(&init_lock);
	if (init_done) {
		ret = init_err;
		goto out;
	}
	init_done = 1;
	if (!atexit_done) {
		atexit(shim_atexit);
		atexit_done = 1;
	}
	shim_register_backends();
	ret = config_text ? shim_config_parse(&config, config_text, "hcasim_shim_configure")
			  : shim_config_from_env(&config);
	if (ret) {
		shim_err("configuration: %s", config.err);
		init_err = ret = -ret;
		goto out;
	}
	for (unsigned int i = 0; i < config.ndev; i++) {
		struct shim_device *d = calloc(1, sizeof(*d));

		if (!d) {
			init_err = ret = ENOMEM;
			goto out;
		}
		d->cfg = config.dev[i];
		d->mode = config.mode;
		d->index = i;
		pthread_mutex_init(&d->lock, NULL);
		pthread_mutex_init(&d->ctx_lock, NULL);
		fill_ibdev(d);
		devices[ndevices++] = d;
	}
out:
	pthread_mutex_unlock(&init_lock);
	return ret;
}

unsigned int shim_ndevices(void)
{
	return ndevices;
}

struct shim_device *shim_device(unsigned int i)
{
	return i < ndevices ? devices[i] : NULL;
}

struct shim_device *shim_device_by_ibdev(struct ibv_device *ibdev)
{
	for (unsigned int i = 0; i < ndevices; i++)
		if (&devices[i]->ibdev == ibdev)
			return devices[i];
	return NULL;
}

const struct shim_config *shim_config(void)
{
	return &config;
}

/* ---- DMA-able host memory ------------------------------------------------------ */

int shim_dma_alloc(struct shim_device *d, size_t len, unsigned int perm, struct shim_dma_buf *b)
{
	size_t rounded = (len + 4095) & ~(size_t)4095;
	int ret;

	memset(b, 0, sizeof(*b));
	if (!len || rounded < len)
		return EINVAL;
	if (posix_memalign(&b->va, 4096, rounded))
		return ENOMEM;
	memset(b->va, 0, rounded);
	b->len = rounded;
	ret = shim_bus_dma_map(d->bus, b->va, rounded, perm, &b->iova);
	if (ret) {
		free(b->va);
		b->va = NULL;
		return -ret;
	}
	return 0;
}

void shim_dma_free(struct shim_device *d, struct shim_dma_buf *b)
{
	if (!b->va)
		return;
	shim_bus_dma_unmap(d->bus, b->iova);
	free(b->va);
	b->va = NULL;
}

/* ---- wire ---------------------------------------------------------------------------- */

static void dev_tx(void *arg, const uint8_t *frame, size_t len)
{
	struct shim_device *d = arg;

	if (d->pcap)
		pcap_write(d->pcap, shim_bus_now_locked(d->bus), frame, len);
	if (d->link)
		shim_link_send(d->link, frame, len);
	else if (d->segment)
		shim_segment_send(d->segment, d->bus, frame, len, shim_bus_now_locked(d->bus));
}

/* Frames dev_tx queued on the switch link during a step leave together. */
static void dev_tx_flush(void *arg)
{
	struct shim_device *d = arg;

	if (d->link)
		shim_link_flush(d->link);
}

/* ---- threaded mode: the device thread ------------------------------------------- */

#define CYCLES_PER_MS (HCA_CLK_HZ / 1000)
/*
 * An application that polled an empty CQ this recently is busy-polling: its
 * polls do the device's work (shim_device_poll_help), so the device thread
 * leaves that to them -- no wake-up per doorbell, no race for the socket --
 * and only looks every POLLER_NAP_MS for work nobody took (an application
 * that stopped polling and waits on a file descriptor instead).
 */
#define POLLER_WINDOW_NS 100000ull
#define POLLER_NAP_MS 1
/* Cycles a busy timed engine is clocked per step of the device thread. */
#define SHIM_BUSY_BATCH 16

static uint64_t wall_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/*
 * How many times slower than the wall clock idle device time runs.  The C
 * model simulates far faster than real time: 1.  The RTL backends simulate
 * about a thousand times slower than real time, so a peer on the RTL takes
 * milliseconds of wall time for what its hardware does in microseconds; at
 * wall-clock speed the idle side's transport timers (ACK timeout: 67 ms for
 * ibv_rc_pingpong) would fire while the peer is still computing the answer
 * -- spurious retransmissions, which the lockstep reference (the model has
 * timers, the RTL does not yet) reports as a divergence.
 */
static uint64_t dev_slowdown(const struct shim_device *d)
{
	if (d->cfg.slowdown)
		return d->cfg.slowdown;
	return strcmp(d->cfg.backend, "model") ? 1000 : 1;
}

/*
 * Device time follows the wall clock (slowed down by dev_slowdown()) while
 * the device is idle (so transport timers fire after real time, and two
 * processes' devices stay roughly in step) and runs as fast as it can while
 * the device has work in hand.  Frames that arrived are always delivered
 * before time moves.
 */
static void *device_thread(void *arg)
{
	struct shim_device *d = arg;
	uint64_t w0 = wall_ns(), c0 = shim_bus_now(d->bus);
	uint64_t slow = dev_slowdown(d), ns_per_cycle = (1000000000ull / HCA_CLK_HZ) * slow;
	unsigned int busy = 0;
	int read_link = 1;
	const uint64_t batch = SHIM_BUSY_BATCH;

	struct timespec cpu;

	while (!atomic_load(&d->stop)) {
		uint64_t now, ne, wall;
		struct pollfd p[3];
		int np = 0, ms, ring = 0;

		d->thr_loops++;
		/* The socket is read when poll() said so (again while a read leaves
		 * more: one batch per step), and every 16 busy steps. */
		if (d->link && (read_link || (++busy & 15) == 0)) {
			shim_link_poll(d->link);
			read_link = shim_link_rx_more(d->link);
		}
		now = shim_bus_now(d->bus);
		ne = shim_bus_next_event(d->bus);
		if (ne <= now || shim_bus_rx_pending(d->bus)) {
			shim_bus_step(d->bus, 0);
			d->thr_steps++;
			continue;
		}
		if (ne == now + 1) {
			/* A timed engine (the RTL) is busy: it acts on its next clock
			 * edge.  Clock it a few cycles per step (fewer lock round trips;
			 * frames and doorbells wait at most that long). */
			shim_bus_step(d->bus, batch);
			d->thr_steps++;
			continue;
		}
		wall = c0 + (wall_ns() - w0) / ns_per_cycle;
		if (wall > now) {
			shim_bus_step(d->bus, (ne < wall ? ne : wall) - now);
			if (ne <= wall)
				continue;
		}
		/* Frames that came while we were busy wake poll() at once (the
		 * socket is readable); those read but not handed over yet do not. */
		if (read_link)
			continue;
		if (wall_ns() - atomic_load(&d->polled_ns) < POLLER_WINDOW_NS) {
			/* the application's polls do the work; nap (see POLLER_WINDOW_NS) */
			poll(NULL, 0, POLLER_NAP_MS);
			d->thr_sleeps++;
			read_link = d->link != NULL;
			continue;
		}
		/* Idle until the next deadline (at least 1 ms: coarse, cheap) or a poke. */
		if (ne == UINT64_MAX)
			ms = 100;
		else {
			uint64_t c = ne - now;

			c = c > 100 * CYCLES_PER_MS ? 100 * CYCLES_PER_MS : c;
			c = c * slow / CYCLES_PER_MS;
			ms = c >= 100 ? 100 : (int)c + 1;
		}
		p[np++] = (struct pollfd){ .fd = shim_bus_wake_fd(d->bus), .events = POLLIN };
		if (d->link) {
			p[np++] = (struct pollfd){ .fd = shim_link_fd(d->link), .events = POLLIN };
			/* shared-memory wire: the switch pokes this when we sleep */
			p[np++] = (struct pollfd){ .fd = shim_link_wake_fd(d->link), .events = POLLIN };
			ring = p[2].fd >= 0;
		}
		shim_bus_set_sleeping(d->bus, 1);
		/* Work that came in before the announcement did not poke: look again. */
		if (!shim_bus_rx_pending(d->bus) && !(ring && shim_link_sleep(d->link, 1)) &&
		    shim_bus_next_event(d->bus) > shim_bus_now(d->bus) && !atomic_load(&d->stop)) {
			poll(p, (nfds_t)np, ms);
			d->thr_sleeps++;
		}
		shim_bus_set_sleeping(d->bus, 0);
		if (ring)
			shim_link_sleep(d->link, 0);
		if (p[0].revents)
			shim_bus_clear_wake(d->bus);
		if (np > 1 && p[1].revents) {
			shim_link_readable(d->link);
			read_link = 1;
		}
		if (ring && p[2].revents)
			shim_link_woken(d->link);
		read_link |= ring;
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
	d->thr_cpu_ns = (uint64_t)cpu.tv_sec * 1000000000ull + (uint64_t)cpu.tv_nsec;
	return NULL;
}

/* ---- cooperative mode ------------------------------------------------------------ */

/*
 * One step of every cooperative device.  If any device has work at its
 * current cycle (or frames waiting), those devices do it (advance by one
 * cycle) and the step returns SHIM_STEP_WORK.  Otherwise time jumps: every
 * device moves to the earliest deadline of any of them (a transport timer,
 * the firmware's health tick) and the step returns SHIM_STEP_TIME.  Nothing
 * scheduled anywhere: SHIM_STEP_IDLE.  Deterministic: the same calls give
 * the same steps.
 */
int shim_coop_step(void)
{
	uint64_t t, ne[SHIM_MAX_DEVICES], now[SHIM_MAX_DEVICES];
	int work = shim_segments_deliver(shim_coop_now()) > 0;

	t = shim_segments_next_event();	/* frames in flight on the wire */

	for (unsigned int i = 0; i < ndevices; i++) {
		struct shim_device *d = devices[i];

		ne[i] = UINT64_MAX;
		if (!d->up || d->mode != SHIM_MODE_COOP)
			continue;
		if (d->link)
			shim_link_poll(d->link);
		now[i] = shim_bus_now(d->bus);
		ne[i] = shim_bus_rx_pending(d->bus) ? now[i] : shim_bus_next_event(d->bus);
		if (ne[i] <= now[i])
			work = 1;
		if (ne[i] < t)
			t = ne[i];
	}
	if (t == UINT64_MAX && !work)
		return SHIM_STEP_IDLE;
	for (unsigned int i = 0; i < ndevices; i++) {
		struct shim_device *d = devices[i];

		if (!d->up || d->mode != SHIM_MODE_COOP)
			continue;
		if (work) {
			if (ne[i] <= now[i])
				shim_bus_step(d->bus, 0);
		} else if (t > now[i]) {
			shim_bus_step(d->bus, t - now[i]);
		}
	}
	if (!work)
		shim_segments_deliver(t);	/* a jump may land on a delivery */
	return work ? SHIM_STEP_WORK : SHIM_STEP_TIME;
}

/* Work at the current cycle only (no time jump): 1 if some device had work. */
static int shim_coop_step_work_only(void)
{
	int work = shim_segments_deliver(shim_coop_now()) > 0;

	for (unsigned int i = 0; i < ndevices; i++) {
		struct shim_device *d = devices[i];

		if (!d->up || d->mode != SHIM_MODE_COOP)
			continue;
		if (d->link)
			shim_link_poll(d->link);
		if (shim_bus_rx_pending(d->bus) || shim_bus_next_event(d->bus) <= shim_bus_now(d->bus)) {
			shim_bus_step(d->bus, 0);
			work = 1;
		}
	}
	return work;
}

int shim_wait(struct shim_device *d, uint64_t seen, unsigned int timeout_ms)
{
	if (d->mode == SHIM_MODE_COOP) {
		/* Bring-up runs before the device counts as up: step it alone. */
		if (!d->up) {
			uint64_t ne = shim_bus_next_event(d->bus), now = shim_bus_now(d->bus);

			if (ne == UINT64_MAX)
				return shim_bus_step(d->bus, 0);
			return shim_bus_step(d->bus, ne > now ? ne - now : 0);
		}
		return shim_coop_step() != SHIM_STEP_IDLE;
	}
	shim_bus_wait_progress(d->bus, seen, timeout_ms);
	return shim_bus_progress(d->bus) != seen;
}

/*
 * d has work in hand: a received frame not yet taken, or the device's next
 * own action within SHIM_QUIESCE_HORIZON cycles.  next_event() is the next
 * cycle the device acts without input (backend.h): now() for the untimed
 * model, now + 1 for the RTL stepping through work, but an RTL waiting for
 * host memory skips its quiet cycles and reports the cycle the DMA response
 * is due (docs/sim.md 9.2) -- work in hand all the same (an ACK owed until a
 * payload write is answered, say).
 * Transport timers are further away: the shortest, an ACK timeout of 2^11
 * cycles (IB timeout 1) or an RNR wait of 2500 (0.01 ms), lie beyond the
 * horizon, so a device whose only pending action is a timer is idle here.
 */
#define SHIM_QUIESCE_HORIZON 1024u
_Static_assert(SHIM_QUIESCE_HORIZON < (2u << HCA_TIMER_ACK_SHIFT) && SHIM_QUIESCE_HORIZON < HCA_RNR_CYCLES_1,
	       "the quiesce horizon must end before the shortest transport timer");

static int dev_busy(struct shim_device *d)
{
	return shim_bus_rx_pending(d->bus) ||
	       shim_bus_next_event(d->bus) <= shim_bus_now(d->bus) + SHIM_QUIESCE_HORIZON;
}

/*
 * Why: an engine with real timing (the RTL) writes the receive CQE of a
 * request some cycles before it transmits the ACK for it (the model's order,
 * docs/rtl.md), and simulated cycles are wall-clock microseconds.  A program
 * that polls that CQE and tears its QP down at once (ibv_rc_pingpong's last
 * message) would destroy the QP -- or exit -- while the ACK is still being
 * built, and the peer would wait for it forever.  Real hardware gets the ACK
 * out long before the teardown commands reach firmware; waiting for the
 * device to go idle first gives the simulation the same outcome.  Costs
 * nothing on the untimed model (idle between steps).
 */
void shim_device_quiesce(struct shim_device *d, unsigned int max_ms)
{
	uint64_t end, t0;

	if (!d || !d->up)
		return;
	if (d->mode == SHIM_MODE_COOP) {
		for (unsigned int n = 0; n < (1u << 20) && dev_busy(d); n++)
			if (shim_coop_step() == SHIM_STEP_IDLE)
				break;
		return;
	}
	if (!d->thread_running)
		return;
	if (!dev_busy(d))
		return;
	t0 = wall_ns();
	end = t0 + (uint64_t)max_ms * 1000000ull;
	while (dev_busy(d) && wall_ns() < end) {
		uint64_t seen = shim_bus_progress(d->bus);

		if (!dev_busy(d))
			break;
		shim_bus_wait_progress(d->bus, seen, 5);
	}
	shim_dbg(2, "%s: waited %llu us for the device to finish its work%s", d->cfg.name,
		 (unsigned long long)((wall_ns() - t0) / 1000), dev_busy(d) ? " (still busy)" : "");
}

int shim_device_poll_help(struct shim_device *d)
{
	static int off = -1;
	uint64_t now, ne;

	if (off < 0)
		off = getenv("HCASIM_POLL_HELP") && !strcmp(getenv("HCASIM_POLL_HELP"), "0");
	if (off || !d->up || !d->thread_running)
		return 0;
	atomic_store(&d->polled_ns, wall_ns());
	if (d->link)
		shim_link_poll(d->link);
	now = shim_bus_now(d->bus);
	ne = shim_bus_next_event(d->bus);
	if (ne <= now || shim_bus_rx_pending(d->bus))
		return shim_bus_try_step(d->bus, 0) > 0;
	if (ne == now + 1)	/* a busy timed engine: clocked as the device thread would */
		return shim_bus_try_step(d->bus, SHIM_BUSY_BATCH) > 0;
	return 0;
}

/* Some cooperative device has work at its current cycle. */
static int coop_work_now(void)
{
	for (unsigned int i = 0; i < ndevices; i++) {
		struct shim_device *d = devices[i];

		if (!d->up || d->mode != SHIM_MODE_COOP)
			continue;
		if (shim_bus_rx_pending(d->bus) || shim_bus_next_event(d->bus) <= shim_bus_now(d->bus))
			return 1;
	}
	return 0;
}

uint64_t hcasim_shim_run(uint64_t max_steps)
{
	uint64_t n = 0;

	/* Until every device is out of work and no frame is on its way. */
	while ((!max_steps || n < max_steps) && (coop_work_now() || shim_segments_pending())) {
		if (shim_coop_step() == SHIM_STEP_IDLE)
			break;
		n++;
	}
	return n;
}

int hcasim_shim_step(void)
{
	return shim_coop_step();
}

/* The latest clock of the cooperative devices (they move together). */
uint64_t shim_coop_now(void)
{
	uint64_t t = 0;

	for (unsigned int i = 0; i < ndevices; i++)
		if (devices[i]->up && devices[i]->mode == SHIM_MODE_COOP) {
			uint64_t n = shim_bus_now(devices[i]->bus);

			if (n > t)
				t = n;
		}
	return t;
}

uint64_t hcasim_shim_advance(uint64_t cycles)
{
	uint64_t start = shim_coop_now(), target = start + cycles;

	for (;;) {
		uint64_t t;
		int work = 0;

		/* Work at the current cycle first, then jump at most to the target. */
		while (shim_coop_step_work_only())
			;
		t = shim_segments_next_event();
		for (unsigned int i = 0; i < ndevices; i++) {
			struct shim_device *d = devices[i];
			uint64_t ne;

			if (!d->up || d->mode != SHIM_MODE_COOP)
				continue;
			ne = shim_bus_next_event(d->bus);
			if (ne < t)
				t = ne;
		}
		if (t > target)
			t = target;
		for (unsigned int i = 0; i < ndevices; i++) {
			struct shim_device *d = devices[i];
			uint64_t now;

			if (!d->up || d->mode != SHIM_MODE_COOP)
				continue;
			now = shim_bus_now(d->bus);
			if (t > now)
				work |= shim_bus_step(d->bus, t - now);
		}
		shim_segments_deliver(t);
		if (t >= target || (!work && t == UINT64_MAX))
			break;
	}
	while (shim_coop_step_work_only())
		;
	return shim_coop_now() - start;
}

/* ---- bring-up ----------------------------------------------------------------------- */

static int set_gid(struct shim_device *d, uint32_t index, uint8_t elem, const void *addr,
		   uint16_t len)
{
	struct hca_cmd c;
	uint32_t port = 1;

	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_SET_GID, 0);
	hca_cmd_in(&c, HCA_ATTR_DEVICE_SET_GID_PORT_NUM, &port, sizeof(port));
	hca_cmd_in(&c, HCA_ATTR_DEVICE_SET_GID_INDEX, &index, sizeof(index));
	hca_cmd_enum(&c, HCA_ATTR_DEVICE_SET_GID_ADDR, elem, addr, len);
	return shim_cmd_exec(d, &c);
}

static int bring_up(struct shim_device *d)
{
	struct hca_cmd c;
	uint8_t ll[16], v4[4];
	int ret;

	ret = shim_hw_open(d);
	if (ret)
		return ret;
	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_QUERY, 0);
	hca_cmd_out(&c, HCA_ATTR_DEVICE_QUERY_RESP, &d->attr, sizeof(d->attr));
	ret = shim_cmd_exec(d, &c);
	if (ret) {
		shim_err("%s: DEVICE.QUERY failed: %s", d->cfg.name, strerror(ret));
		return ret;
	}
	/* GID 0: IPv6 link-local from the MAC; GID 1: the IPv4 address (as Linux orders them). */
	shim_gid_link_local(d->cfg.mac, ll);
	ret = set_gid(d, 0, HCA_ATTR_DEVICE_SET_GID_ADDR_IPV6, ll, sizeof(ll));
	if (!ret) {
		v4[0] = (uint8_t)(d->cfg.ipv4 >> 24);
		v4[1] = (uint8_t)(d->cfg.ipv4 >> 16);
		v4[2] = (uint8_t)(d->cfg.ipv4 >> 8);
		v4[3] = (uint8_t)d->cfg.ipv4;
		ret = set_gid(d, 1, HCA_ATTR_DEVICE_SET_GID_ADDR_IPV4, v4, sizeof(v4));
	}
	if (ret)
		shim_err("%s: installing GIDs failed: %s", d->cfg.name, strerror(ret));
	return ret;
}

int shim_device_up(struct shim_device *d)
{
	struct hca_dev_config dc = { 0 };
	char err[256];
	int ret;

	pthread_mutex_lock(&d->lock);
	if (d->up || d->failed) {
		ret = d->up ? 0 : ENODEV;
		goto out;
	}
	memcpy(dc.mac, d->cfg.mac, 6);
	dc.seed = d->cfg.seed;
	dc.data_w = d->cfg.width;
	dc.options = d->cfg.options[0] ? d->cfg.options : NULL;
	dc.trace = d->cfg.trace[0] ? d->cfg.trace : NULL;
	dc.trace_from = d->cfg.trace_from;
	dc.trace_to = d->cfg.trace_to;
	ret = shim_bus_open(d->cfg.name, d->cfg.backend, &dc, &d->bus);
	if (ret) {
		ret = ret == -ENOENT ? ENODEV : -ret;
		goto fail;
	}
	if (d->cfg.switch_path[0]) {
		d->link = shim_link_connect(d->cfg.switch_path, d->cfg.mac, d->cfg.ipv4, d->cfg.name,
					    d->bus, err, sizeof(err));
		if (!d->link) {
			ret = errno == EADDRINUSE ? EADDRINUSE : ENODEV;
			shim_err("%s: %s", d->cfg.name, err);
			goto fail;
		}
	} else {
		const struct shim_wirecfg *w = &config.wire;
		struct wire_config wc = {
			.mode = WIRE_SWITCH,
			.latency = w->latency,
			.seed = w->seed,
			.faults = { .drop = w->drop, .dup = w->dup, .reorder = w->reorder,
				    .corrupt = w->corrupt },
			.pcap_tx = w->pcap[0] ? w->pcap : NULL,
		};

		d->segment = shim_segment_join(d->cfg.wire, d->cfg.mac, d->cfg.ipv4, d->bus,
					       d->mode == SHIM_MODE_COOP ? &wc : NULL);
		if (!d->segment) {
			ret = ENODEV;
			goto fail;
		}
	}
	if (d->cfg.pcap[0]) {
		d->pcap = pcap_writer_open(d->cfg.pcap, 0);
		if (!d->pcap) {
			shim_err("%s: cannot write capture %s: %s", d->cfg.name, d->cfg.pcap,
				 strerror(errno));
			ret = EINVAL;
			goto fail;
		}
	}
	shim_bus_set_tx(d->bus, dev_tx, d);
	shim_bus_set_tx_flush(d->bus, dev_tx_flush);
	shim_bus_set_irq_handler(d->bus, shim_irq, d);
	if (d->mode == SHIM_MODE_THREADED) {
		atomic_store(&d->stop, 0);
		if (pthread_create(&d->thread, NULL, device_thread, d)) {
			ret = EAGAIN;
			goto fail;
		}
		d->thread_running = 1;
	}
	ret = bring_up(d);
	if (ret)
		goto fail;
	d->up = 1;
	shim_dbg(1, "%s: up (backend %s, %s mode, %s)", d->cfg.name, d->cfg.backend,
		 d->mode == SHIM_MODE_COOP ? "cooperative" : "threaded",
		 d->link ? d->cfg.switch_path : d->cfg.wire);
	goto out;
fail:
	shim_err("%s: cannot bring up the simulated HCA (backend %s): %s", d->cfg.name,
		 d->cfg.backend, strerror(ret));
	d->failed = 1;
	pthread_mutex_unlock(&d->lock);
	shim_device_down(d);
	return ret;
out:
	pthread_mutex_unlock(&d->lock);
	return ret;
}

void shim_device_down(struct shim_device *d)
{
	pthread_mutex_lock(&d->lock);
	if (d->thread_running) {
		atomic_store(&d->stop, 1);
		shim_bus_set_sleeping(d->bus, 1);	/* force the wake-up write */
		shim_bus_poke(d->bus);
		pthread_join(d->thread, NULL);
		d->thread_running = 0;
		print_thread_stats(d);
	}
	if (d->bus)
		shim_hw_close(d);
	if (d->segment)
		shim_segment_leave(d->segment, d->bus);
	d->segment = NULL;
	shim_link_close(d->link);
	d->link = NULL;
	shim_bus_close(d->bus);
	d->bus = NULL;
	pcap_writer_close(d->pcap);
	d->pcap = NULL;
	d->up = 0;
	pthread_mutex_unlock(&d->lock);
}

void hcasim_shim_shutdown(void)
{
	cm_shutdown();
	pthread_mutex_lock(&init_lock);
	for (unsigned int i = 0; i < ndevices; i++) {
		shim_device_down(devices[i]);
		pthread_mutex_destroy(&devices[i]->lock);
		pthread_mutex_destroy(&devices[i]->ctx_lock);
		free(devices[i]);
		devices[i] = NULL;
	}
	ndevices = 0;
	free(config_text);
	config_text = NULL;
	init_done = 0;
	init_err = 0;
	pthread_mutex_unlock(&init_lock);
}
