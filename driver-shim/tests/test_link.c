// SPDX-License-Identifier: MIT
/*
 * The HCA's switch link (driver-shim/link.c) against a switch played by this
 * test over a real Unix socket, with a fake device behind the bus:
 *
 *   - HELLO announces that the HCA takes FRAMES; the connect waits for the
 *     switch's WELCOME (a frame sent before it reaches the device);
 *   - when the WELCOME does not say the switch takes FRAMES, every frame a
 *     device step transmits leaves as its own FRAME message, in order, at
 *     the end of the step;
 *   - when it does, they leave as FRAMES messages of at most HCASW_MAX_MSG
 *     body bytes, records decoded here by the layout swproto.h documents
 *     (not by its helpers), frames byte for byte and in order;
 *   - FRAME and FRAMES messages from the switch (hundreds of records, more
 *     than one hand-over to the bus) reach the device in order; a FRAMES
 *     message with a record running past its end delivers the records
 *     before it and nothing after; frame and message counters agree;
 *   - more frames than the bus queue holds (5000 in 5 FRAMES messages):
 *     a poll hands over what fits and keeps the rest (shim_link_rx_more),
 *     the next poll after a step hands over the rest; none lost, in order;
 *   - HCASIM_LINK_BATCH=0: no FRAMES in HELLO, one FRAME per message even
 *     when the WELCOME offers FRAMES;
 *   - a WELCOME refusing the HCA (EADDRINUSE, with a reason) fails the
 *     connect with errno EADDRINUSE and the reason in the message; a switch
 *     that closes the connection instead of answering fails it too;
 *   - the record helpers refuse what does not fit;
 *   - shared memory (shmring.h), the rings read and written here by the
 *     layout it documents: the HELLO offers it with three descriptors (a
 *     memfd sealed against shrinking, with the header; two eventfds); once
 *     the WELCOME accepts it, the frames of a device step appear in the ring
 *     toward the switch byte for byte and in order (wrap marks followed) and
 *     none on the socket, a switch that announced it sleeps is woken through
 *     its eventfd (once per step); frames the switch puts in the other ring
 *     reach the device in order, more than the bus queue holds handed over
 *     as room frees; the HCA announcing sleep is told when frames wait; an
 *     oversized record kills the link (no crash, nothing delivered after
 *     it); HCASIM_LINK_SHM=0 offers nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "bus.h"
#include "check.h"
#include "hcasim/backend.h"
#include "link.h"
#include "shmring.h"
#include "swproto.h"

#define MAX_FRAMES 6000

/* ---- a fake device: transmits the scripted frames on its next step, logs what it receives --- */

struct frame_log {
	unsigned int n;
	size_t len[MAX_FRAMES];
	uint32_t sum[MAX_FRAMES];
};

static struct frame_log rx_log;
static unsigned int tx_count;	/* frames the next step transmits */
static size_t tx_len[MAX_FRAMES];

static uint32_t frame_sum(const uint8_t *f, size_t len)
{
	uint32_t s = 2166136261u;

	for (size_t i = 0; i < len; i++)
		s = (s ^ f[i]) * 16777619u;
	return s;
}

/* Frame i of length len: bytes that differ from frame to frame and along the frame. */
static void frame_fill(uint8_t *f, unsigned int i, size_t len)
{
	for (size_t k = 0; k < len; k++)
		f[k] = (uint8_t)(i * 31 + k * 7 + (k >> 8));
}

struct hca_dev {
	const struct hca_host_ops *host;
	void *hctx;
	uint64_t now;
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
	(void)d;
	(void)off;
	return 0;
}

static void fake_write(struct hca_dev *d, uint32_t off, uint32_t v)
{
	(void)d;
	(void)off;
	(void)v;
}

static void fake_rx(struct hca_dev *d, const uint8_t *f, size_t len)
{
	(void)d;
	if (rx_log.n < MAX_FRAMES) {
		rx_log.len[rx_log.n] = len;
		rx_log.sum[rx_log.n] = frame_sum(f, len);
	}
	rx_log.n++;
}

static void fake_advance(struct hca_dev *d, uint64_t cycles)
{
	static uint8_t f[HCASW_MAX_FRAME];

	d->now += cycles;
	for (unsigned int i = 0; i < tx_count; i++) {
		frame_fill(f, i, tx_len[i]);
		d->host->tx_frame(d->hctx, f, tx_len[i]);
	}
	tx_count = 0;
}

static uint64_t fake_now(struct hca_dev *d)
{
	return d->now;
}

static uint64_t fake_next_event(struct hca_dev *d)
{
	return tx_count ? d->now : UINT64_MAX;
}

static const char *fake_last_error(struct hca_dev *d)
{
	(void)d;
	return "";
}

static const struct hca_backend fake_backend = {
	.name = "linkdev",
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

/* The shim's transmit path in miniature (device.c: dev_tx, dev_tx_flush). */
static void on_tx(void *arg, const uint8_t *f, size_t len)
{
	shim_link_send(arg, f, len);
}

static void on_flush(void *arg)
{
	shim_link_flush(arg);
}

/* ---- the switch side -------------------------------------------------------------- */

static uint8_t msg[sizeof(struct hcasw_hdr) + HCASW_MAX_MSG + 64];

/* One message from the HCA (waits up to 2 s): its length, or -1. */
static ssize_t sw_recv(int fd, struct hcasw_hdr *h)
{
	struct timeval tv = { .tv_sec = 2 };
	ssize_t n;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	n = recv(fd, msg, sizeof(msg), 0);
	if (n >= (ssize_t)sizeof(*h))
		memcpy(h, msg, sizeof(*h));
	return n;
}

static int sw_send(int fd, uint16_t type, const void *body, size_t len)
{
	static uint8_t out[sizeof(struct hcasw_hdr) + HCASW_MAX_MSG];
	struct hcasw_hdr h = { .type = type, .len = (uint32_t)len };

	memcpy(out, &h, sizeof(h));
	memcpy(out + sizeof(h), body, len);
	return send(fd, out, sizeof(h) + len, 0) == (ssize_t)(sizeof(h) + len) ? 0 : -1;
}

/*
 * The switch's side of a connect, on a thread (shim_link_connect waits for
 * the WELCOME): accept, read the HELLO, optionally send a FRAME of 80 bytes
 * first, then the WELCOME (or close the connection when hangup is set).
 */
struct greeter {
	int lfd;
	struct hcasw_welcome welcome;
	int frame_first, hangup;
	/* out */
	int fd;
	int hello_ok;
	struct hcasw_hello hello;
	int fds[3];		/* descriptors that came with the HELLO */
	unsigned int nfds;
};

/* Receive the HELLO with its descriptors (recvmsg), as the switch does. */
static ssize_t sw_recv_fds(int fd, struct hcasw_hdr *h, int *fds, unsigned int *nfds)
{
	struct iovec iov = { msg, sizeof(msg) };
	union {
		struct cmsghdr c;
		uint8_t b[CMSG_SPACE(8 * sizeof(int))];
	} c;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.b,
			    .msg_controllen = sizeof(c.b) };
	ssize_t n = recvmsg(fd, &m, 0);
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	*nfds = 0;
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
		*nfds = (unsigned int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		memcpy(fds, CMSG_DATA(cm), (*nfds > 3 ? 3 : *nfds) * sizeof(int));
	}
	if (n >= (ssize_t)sizeof(*h))
		memcpy(h, msg, sizeof(*h));
	return n;
}

static void *greet(void *arg)
{
	struct greeter *g = arg;
	struct hcasw_hdr h;
	int sz = 4 << 20;	/* as the switch's: room for the 5 x 64 KiB below */

	g->fd = accept(g->lfd, NULL, NULL);
	if (g->fd < 0)
		return NULL;
	setsockopt(g->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	g->hello_ok = sw_recv_fds(g->fd, &h, g->fds, &g->nfds) == sizeof(h) + sizeof(g->hello) &&
		      h.type == HCASW_HELLO;
	memcpy(&g->hello, msg + sizeof(h), sizeof(g->hello));
	if (g->hangup) {
		close(g->fd);
		g->fd = -1;
		return NULL;
	}
	if (g->frame_first) {
		uint8_t f[80];

		frame_fill(f, 77, sizeof(f));
		sw_send(g->fd, HCASW_FRAME, f, sizeof(f));
	}
	sw_send(g->fd, HCASW_WELCOME, &g->welcome, sizeof(g->welcome));
	return NULL;
}

/* Connect a link on a new bus while greet() plays the switch: the link or NULL (err). */
static struct shim_link *connect_link(const char *path, const char *name, struct greeter *g,
				      struct shim_bus **bus, char *err, size_t errlen)
{
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 9 };
	struct hca_dev_config cfg = { .seed = 1 };
	struct shim_link *l = NULL;
	pthread_t t;

	g->fd = -1;
	*bus = NULL;
	snprintf(err, errlen, "set-up");
	if (shim_bus_open(name, "linkdev", &cfg, bus) || pthread_create(&t, NULL, greet, g))
		return NULL;
	l = shim_link_connect(path, mac, 0x0a000009, name, *bus, err, errlen);
	pthread_join(t, NULL);
	if (l) {
		shim_bus_set_tx(*bus, on_tx, l);
		shim_bus_set_tx_flush(*bus, on_flush);
	}
	return l;
}

/* Record layout of swproto.h, written out here: u32 length, frame, zeros to a multiple of 4. */
static size_t put_record(uint8_t *body, size_t at, const uint8_t *f, uint32_t len)
{
	memcpy(body + at, &len, 4);
	memcpy(body + at + 4, f, len);
	memset(body + at + 4 + len, 0, (4 - len % 4) % 4);
	return at + 4 + len + (4 - len % 4) % 4;
}

/* Step the device so that it transmits n frames of the given lengths; read them back as
 * the switch.  frames: 1 to expect FRAMES messages, 0 for one FRAME per message. */
static void transmit_and_check(struct shim_bus *bus, int fd, const size_t *lens, unsigned int n,
			       int frames, const char *what)
{
	static uint8_t want[HCASW_MAX_FRAME];
	unsigned int got = 0, msgs = 0, bad_type = 0, bad_frame = 0, too_big = 0, bad_pad = 0;

	memcpy(tx_len, lens, n * sizeof(*lens));
	tx_count = n;
	shim_bus_step(bus, 0);
	while (got < n) {
		struct hcasw_hdr h;
		ssize_t r = sw_recv(fd, &h);

		if (r < (ssize_t)sizeof(h) || h.len != (size_t)r - sizeof(h))
			break;
		msgs++;
		if (h.type != (frames ? HCASW_FRAMES : HCASW_FRAME)) {
			bad_type++;
			continue;
		}
		too_big += h.len > HCASW_MAX_MSG;
		if (!frames) {
			frame_fill(want, got, lens[got]);
			bad_frame += h.len != lens[got] || memcmp(msg + sizeof(h), want, h.len);
			got++;
			continue;
		}
		for (size_t off = 0; off < h.len && got < n;) {
			uint8_t *rec = msg + sizeof(h) + off;
			uint32_t len;

			memcpy(&len, rec, 4);
			frame_fill(want, got, lens[got]);
			bad_frame += len != lens[got] || off + 4 + len > h.len ||
				     memcmp(rec + 4, want, lens[got]);
			for (uint32_t k = len; k % 4 && off + 4 + k < h.len; k++)
				bad_pad += rec[4 + k] != 0;
			off += 4 + len + (4 - len % 4) % 4;
			got++;
		}
	}
	CHECK(got == n, "%s: the switch got %u of %u frames", what, got, n);
	CHECK(bad_type == 0, "%s: %u messages of the wrong type", what, bad_type);
	CHECK(bad_frame == 0, "%s: %u frames differ from what the device sent", what, bad_frame);
	CHECK(too_big == 0, "%s: %u messages over HCASW_MAX_MSG", what, too_big);
	CHECK(bad_pad == 0, "%s: %u non-zero pad bytes", what, bad_pad);
	if (frames)
		CHECK(msgs < n, "%s: %u frames in %u messages (batched)", what, n, msgs);
	else
		CHECK(msgs == n, "%s: %u frames in %u messages (one each)", what, n, msgs);
}

static void test_helpers(void)
{
	uint8_t body[64], f[40] = { 1, 2, 3 };
	const uint8_t *p;
	size_t used = 0, off = 0, flen = 0;

	CHECK_EQ(hcasw_rec_size(0), 4, "empty record");
	CHECK_EQ(hcasw_rec_size(5), 12, "5-byte frame: 4 + 8");
	CHECK_EQ(hcasw_frames_put(body, &used, sizeof(body), f, 40), 0, "40-byte frame fits");
	CHECK_EQ(hcasw_frames_put(body, &used, sizeof(body), f, 40), -1, "a second does not");
	CHECK_EQ(used, 44, "used after the refusal");
	CHECK_EQ(hcasw_frames_put(body, &used, sizeof(body), f, HCASW_MAX_FRAME + 1), -1,
		 "over HCASW_MAX_FRAME refused");
	p = hcasw_frames_next(body, used, &off, &flen);
	CHECK(p == body + 4 && flen == 40 && off == 44, "walk: the record");
	CHECK(hcasw_frames_next(body, used, &off, &flen) == NULL, "walk: the end");
	off = 0;
	CHECK(hcasw_frames_next(body, 43, &off, &flen) == NULL, "a record past the body's end ends the walk");
	off = 0;
	CHECK(hcasw_frames_next(body, 3, &off, &flen) == NULL, "a body shorter than a length");
}

/* ---- shared memory, by the layout shmring.h documents ----------------------------------- */

struct seg_view {
	uint8_t *base;
	size_t size;
	uint64_t ring;		/* ring_bytes */
	uint64_t rx, tx;	/* our positions: read in ring 0, written in ring 1 */
};

static struct shmring_ctl *ctl_of(struct seg_view *v, int which)
{
	return &((struct shmring_seg *)(void *)v->base)->ctl[which];
}

/* The next record of the ring toward the switch (ring 0): the frame and its length, or NULL. */
static const uint8_t *view_next(struct seg_view *v, uint32_t *len)
{
	uint64_t tail = atomic_load(&ctl_of(v, 0)->tail);
	const uint8_t *d = v->base + 4096;

	for (;;) {
		if (v->rx >= tail)
			return NULL;
		memcpy(len, d + v->rx % v->ring, 4);
		if (*len != 0xffffffffu)
			break;
		v->rx += v->ring - v->rx % v->ring;	/* wrap mark: on at offset 0 */
	}
	v->rx += 8 + ((*len + 7) & ~7u);
	return d + (v->rx - 8 - ((*len + 7) & ~7u)) % v->ring + 8;
}

/* Append a record to the ring toward the HCA (ring 1) with length field len; publish. */
static void view_put(struct seg_view *v, uint32_t len, const uint8_t *f, size_t flen)
{
	uint8_t *d = v->base + 4096 + v->ring;
	uint64_t need = 8 + ((flen + 7) & ~(size_t)7);
	uint32_t z = 0;

	if (v->ring - v->tx % v->ring < need) {
		uint32_t wrap = 0xffffffffu;

		memcpy(d + v->tx % v->ring, &wrap, 4);
		v->tx += v->ring - v->tx % v->ring;
	}
	memcpy(d + v->tx % v->ring, &len, 4);
	memcpy(d + v->tx % v->ring + 4, &z, 4);
	memcpy(d + v->tx % v->ring + 8, f, flen);
	v->tx += need;
	atomic_store(&ctl_of(v, 1)->tail, v->tx);
}

static void test_shm(const char *path, int lfd)
{
	static uint8_t f[HCASW_MAX_FRAME];
	static size_t lens[MAX_FRAMES];
	struct seg_view v = { 0 };
	struct shim_bus *bus = NULL;
	struct shim_link *l;
	struct greeter g;
	struct stat st;
	char err[256];
	uint32_t hdr[2];
	uint64_t seed = 11, tx, rx;
	unsigned int n, bad = 0, got = 0;
	int seals;

	g = (struct greeter){ .lfd = lfd, .welcome = { .flags = HCASW_WELCOME_FRAMES | HCASW_WELCOME_SHM } };
	l = connect_link(path, "s0", &g, &bus, err, sizeof(err));
	CHECK(l && g.fd >= 0, "shared memory: link connects: %s", l ? "" : err);
	CHECK(g.hello.flags & HCASW_HELLO_SHM, "the HELLO offers shared memory");
	CHECK_EQ(g.nfds, 3, "the HELLO carries three descriptors");
	if (!l || g.fd < 0 || g.nfds != 3)
		goto out;
	seals = fcntl(g.fds[0], F_GET_SEALS);
	CHECK(seals >= 0 && (seals & F_SEAL_SHRINK), "the segment is sealed against shrinking");
	CHECK(!fstat(g.fds[0], &st) && st.st_size > 4096, "the segment has a size");
	v.size = (size_t)st.st_size;
	v.base = mmap(NULL, v.size, PROT_READ | PROT_WRITE, MAP_SHARED, g.fds[0], 0);
	CHECK(v.base != MAP_FAILED, "the segment maps");
	if (v.base == MAP_FAILED)
		goto out;
	memcpy(hdr, v.base, 8);
	memcpy(&v.ring, v.base + 8, 8);
	CHECK(hdr[0] == 0x52534348u && hdr[1] == 1, "header: magic HCSR, version 1");
	CHECK(v.ring >= 4096 && !(v.ring & (v.ring - 1)) && v.size == 4096 + 2 * v.ring,
	      "header: two rings of %llu bytes after 4096 bytes", (unsigned long long)v.ring);

	/* HCA -> switch: a sleeping switch is woken; frames in order, byte for byte, over the wrap. */
	for (unsigned int round = 0; round < 4; round++) {
		struct pollfd p = { .fd = g.fds[1], .events = POLLIN };
		uint64_t wakes = 0;

		for (n = 0; n < 600; n++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			lens[n] = 60 + (seed >> 33) % 4200;
		}
		lens[3] = HCASW_MAX_FRAME;
		atomic_store(&ctl_of(&v, 0)->sleeping, 1);
		memcpy(tx_len, lens, n * sizeof(*lens));
		tx_count = n;
		shim_bus_step(bus, 0);
		CHECK(poll(&p, 1, 0) == 1 && read(g.fds[1], &wakes, 8) == 8 && wakes == 1,
		      "round %u: the sleeping switch was woken once (%llu)", round, (unsigned long long)wakes);
		CHECK(atomic_load(&ctl_of(&v, 0)->sleeping) == 0, "round %u: and its flag cleared", round);
		bad = got = 0;
		for (const uint8_t *fr; (fr = view_next(&v, &hdr[0]));) {
			if (got < n) {
				frame_fill(f, got, lens[got]);
				bad += hdr[0] != lens[got] || memcmp(fr, f, lens[got]);
			}
			got++;
		}
		atomic_store(&ctl_of(&v, 0)->head, v.rx);
		CHECK(got == n && bad == 0, "round %u: %u of %u frames in the ring, %u differ", round, got,
		      n, bad);
	}
	CHECK(v.rx > v.ring, "the records went round the ring (%llu bytes)", (unsigned long long)v.rx);
	{
		struct pollfd p = { .fd = g.fd, .events = POLLIN };

		CHECK(poll(&p, 1, 0) == 0, "no frame came over the socket");
	}

	/* switch -> HCA: 5000 frames, more than the bus queue holds; the HCA's sleep sees them. */
	CHECK_EQ(shim_link_sleep(l, 1), 0, "an empty ring: the HCA may sleep");
	CHECK_EQ(atomic_load(&ctl_of(&v, 1)->sleeping), 1, "the HCA's sleep is announced in the ring");
	shim_link_sleep(l, 0);
	for (n = 0; n < 5000; n++) {
		frame_fill(f, n, 60 + n % 50);
		view_put(&v, 60 + n % 50, f, 60 + n % 50);
	}
	CHECK_EQ(shim_link_sleep(l, 1), 1, "frames waiting: the HCA must not sleep");
	shim_link_sleep(l, 0);
	rx_log.n = 0;
	got = 0;
	for (unsigned int polls = 0; polls < 40 && got < 5000; polls++) {
		got += (unsigned int)shim_link_poll(l);
		shim_bus_step(bus, 0);
	}
	CHECK_EQ(got, 5000, "every frame handed over");
	CHECK_EQ(rx_log.n, 5000, "the device got all 5000");
	bad = 0;
	for (unsigned int i = 0; i < 5000 && i < rx_log.n; i++) {
		frame_fill(f, i, 60 + i % 50);
		bad += rx_log.len[i] != 60 + i % 50 || rx_log.sum[i] != frame_sum(f, 60 + i % 50);
	}
	CHECK_EQ(bad, 0, "in order, byte for byte");
	CHECK_EQ(atomic_load(&ctl_of(&v, 1)->head), v.tx, "the HCA gave all the space back");
	shim_link_counters(l, &tx, &rx);
	CHECK_EQ(rx, 5000, "frames counted in");

	/* An oversized record: the link dies, nothing after it is delivered. */
	frame_fill(f, 0, 64);
	view_put(&v, HCASW_MAX_FRAME + 1, f, 64);
	view_put(&v, 64, f, 64);
	rx_log.n = 0;
	CHECK_EQ(shim_link_poll(l), 0, "an oversized record: nothing handed over");
	CHECK_EQ(shim_link_fd(l), -1, "and the link is dead");
	CHECK_EQ(shim_link_send(l, f, 64), -EPIPE, "sending on it fails with EPIPE");
	munmap(v.base, v.size);
out:
	shim_link_close(l);
	shim_bus_close(bus);
	for (unsigned int i = 0; i < g.nfds && i < 3; i++)
		close(g.fds[i]);
	if (g.fd >= 0)
		close(g.fd);

	/* HCASIM_LINK_SHM=0: nothing offered. */
	setenv("HCASIM_LINK_SHM", "0", 1);
	g = (struct greeter){ .lfd = lfd, .welcome = { .flags = HCASW_WELCOME_FRAMES | HCASW_WELCOME_SHM } };
	l = connect_link(path, "s1", &g, &bus, err, sizeof(err));
	CHECK(l && !(g.hello.flags & HCASW_HELLO_SHM) && g.nfds == 0,
	      "HCASIM_LINK_SHM=0: no shared memory offered");
	if (l && g.fd >= 0) {
		for (n = 0; n < 10; n++)
			lens[n] = 60 + n;
		transmit_and_check(bus, g.fd, lens, n, 1, "HCASIM_LINK_SHM=0, WELCOME with SHM");
	}
	unsetenv("HCASIM_LINK_SHM");
	shim_link_close(l);
	shim_bus_close(bus);
	if (g.fd >= 0)
		close(g.fd);
}

int main(void)
{
	static uint8_t body[HCASW_MAX_MSG], f[HCASW_MAX_FRAME];
	static size_t lens[MAX_FRAMES];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct shim_bus *bus = NULL;
	struct shim_link *l;
	struct greeter g;
	char dir[] = "/tmp/hcasim-link.XXXXXX", err[256];
	uint64_t tx = 0, rx = 0, seed = 7;
	unsigned int n, sent_frames = 0;
	int lfd, fd;

	test_helpers();
	hca_backend_register(&fake_backend);
	if (!mkdtemp(dir)) {
		CHECK(0, "set-up: temporary directory");
		return check_done();
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sw", dir);
	lfd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	CHECK(lfd >= 0 && !bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) && !listen(lfd, 4),
	      "switch socket listens");

	/* A switch whose WELCOME does not offer FRAMES gets one FRAME per message. */
	g = (struct greeter){ .lfd = lfd, .frame_first = 1 };
	rx_log.n = 0;
	l = connect_link(sa.sun_path, "t0", &g, &bus, err, sizeof(err));
	CHECK(l != NULL, "link connects: %s", l ? "" : err);
	CHECK(g.hello_ok, "HELLO first");
	CHECK(g.hello.flags & HCASW_HELLO_FRAMES, "HELLO says the HCA takes FRAMES");
	CHECK(!memcmp(g.hello.mac, (uint8_t[6]){ 2, 0, 0, 0, 0, 9 }, 6), "HELLO carries the MAC");
	if (l && g.fd >= 0) {
		shim_bus_step(bus, 0);
		CHECK(rx_log.n == 1 && rx_log.len[0] == 80, "the frame sent before WELCOME reached the device");
		for (n = 0; n < 40; n++)
			lens[n] = 60 + (n * 397) % 1500;
		lens[5] = HCASW_MAX_FRAME;
		transmit_and_check(bus, g.fd, lens, n, 0, "WELCOME without FRAMES");
		shim_link_counters(l, &tx, &rx);
		CHECK_EQ(tx, n, "frames counted out (one per message)");
	}
	shim_link_close(l);
	shim_bus_close(bus);
	if (g.fd >= 0)
		close(g.fd);

	/* WELCOME with FRAMES: from the first frame on, several per message, never over HCASW_MAX_MSG. */
	g = (struct greeter){ .lfd = lfd, .welcome = { .flags = HCASW_WELCOME_FRAMES } };
	l = connect_link(sa.sun_path, "t1", &g, &bus, err, sizeof(err));
	fd = g.fd;
	CHECK(l != NULL && fd >= 0, "second link connects: %s", l ? "" : err);
	if (!l || fd < 0)
		return check_done();
	for (n = 0; n < 300; n++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		lens[n] = 60 + (seed >> 33) % 4200;
	}
	lens[7] = HCASW_MAX_FRAME;
	lens[8] = 61;
	transmit_and_check(bus, fd, lens, n, 1, "WELCOME with FRAMES, 60 B-16 KiB");
	sent_frames += n;
	for (n = 0; n < 1000; n++)
		lens[n] = 60;
	transmit_and_check(bus, fd, lens, n, 1, "WELCOME with FRAMES, 1000 x 60 B");
	sent_frames += n;
	shim_link_counters(l, &tx, &rx);
	CHECK_EQ(tx, sent_frames, "frames counted out");

	/* From the switch: FRAME, FRAMES with 700 records (several hand-overs), FRAME. */
	{
		size_t used = 0;
		unsigned int want = 0, bad = 0;

		frame_fill(f, 0, 100);
		sw_send(fd, HCASW_FRAME, f, 100);
		for (n = 1; n <= 700; n++) {
			frame_fill(f, n, 60 + n % 13);
			used = put_record(body, used, f, 60 + n % 13);
		}
		sw_send(fd, HCASW_FRAMES, body, used);
		frame_fill(f, 701, 3000);
		sw_send(fd, HCASW_FRAME, f, 3000);
		usleep(10000);
		rx_log.n = 0;
		CHECK_EQ(shim_link_poll(l), 702, "poll takes 702 frames");
		shim_bus_step(bus, 0);
		CHECK_EQ(rx_log.n, 702, "the device got 702 frames");
		for (unsigned int i = 0; i < 702 && i < rx_log.n; i++) {
			size_t len = i == 0 ? 100 : i == 701 ? 3000 : 60 + i % 13;

			frame_fill(f, i, len);
			bad += rx_log.len[i] != len || rx_log.sum[i] != frame_sum(f, len);
			want++;
		}
		CHECK(want == 702 && bad == 0, "%u of %u frames differ or are out of order", bad, want);
	}

	/* A record running past the end: the ones before it arrive, nothing after. */
	{
		size_t used = 0;
		uint32_t bogus = 5000;

		for (n = 0; n < 3; n++) {
			frame_fill(f, n, 64);
			used = put_record(body, used, f, 64);
		}
		memcpy(body + used, &bogus, 4);
		used += 4 + 100;
		frame_fill(f, 9, 64);
		used = put_record(body, used, f, 64);
		sw_send(fd, HCASW_FRAMES, body, used);
		usleep(10000);
		rx_log.n = 0;
		CHECK_EQ(shim_link_poll(l), 3, "a malformed record ends the message");
		shim_bus_step(bus, 0);
		CHECK_EQ(rx_log.n, 3, "three frames delivered");
	}
	shim_link_counters(l, &tx, &rx);
	CHECK_EQ(rx, 702 + 3, "frames counted in");

	/* More than the bus queue holds: handed over as room frees, nothing lost. */
	{
		unsigned int first, total = 0, polls = 0, bad = 0;

		for (unsigned int m = 0; m < 5; m++) {
			size_t used = 0;

			for (unsigned int i = 0; i < 1000; i++) {
				frame_fill(f, m * 1000 + i, 60);
				used = put_record(body, used, f, 60);
			}
			sw_send(fd, HCASW_FRAMES, body, used);
		}
		usleep(10000);
		rx_log.n = 0;
		first = (unsigned int)shim_link_poll(l);
		CHECK(first < 5000 && first > 0, "a full bus queue stops the hand-over (%u of 5000)", first);
		CHECK(shim_link_rx_more(l), "the link says there is more");
		total = first;
		while (shim_link_rx_more(l) && polls++ < 20) {
			shim_bus_step(bus, 0);
			total += (unsigned int)shim_link_poll(l);
		}
		shim_bus_step(bus, 0);
		CHECK_EQ(total, 5000, "every frame handed over in the end");
		CHECK_EQ(rx_log.n, 5000, "the device got all 5000");
		for (unsigned int i = 0; i < 5000 && i < rx_log.n; i++) {
			frame_fill(f, i, 60);
			bad += rx_log.len[i] != 60 || rx_log.sum[i] != frame_sum(f, 60);
		}
		CHECK_EQ(bad, 0, "in order, byte for byte");
		CHECK(!shim_link_rx_more(l), "nothing left over");
	}

	shim_link_close(l);
	shim_bus_close(bus);
	close(fd);

	/* HCASIM_LINK_BATCH=0: no FRAMES announced, and one FRAME per message even when offered. */
	setenv("HCASIM_LINK_BATCH", "0", 1);
	g = (struct greeter){ .lfd = lfd, .welcome = { .flags = HCASW_WELCOME_FRAMES } };
	l = connect_link(sa.sun_path, "t2", &g, &bus, err, sizeof(err));
	CHECK(l && g.fd >= 0, "third link connects: %s", l ? "" : err);
	CHECK(g.hello_ok && !(g.hello.flags & HCASW_HELLO_FRAMES), "HCASIM_LINK_BATCH=0: HELLO without FRAMES");
	if (l && g.fd >= 0) {
		for (n = 0; n < 20; n++)
			lens[n] = 60 + n;
		transmit_and_check(bus, g.fd, lens, n, 0, "HCASIM_LINK_BATCH=0, WELCOME with FRAMES");
	}
	unsetenv("HCASIM_LINK_BATCH");
	shim_link_close(l);
	shim_bus_close(bus);
	if (g.fd >= 0)
		close(g.fd);

	test_shm(sa.sun_path, lfd);

	/* Refused: EADDRINUSE and the switch's reason. */
	g = (struct greeter){ .lfd = lfd, .welcome = { .status = EADDRINUSE } };
	snprintf(g.welcome.reason, sizeof(g.welcome.reason), "address 10.0.0.9 is in use by port 3 (x)");
	errno = 0;
	l = connect_link(sa.sun_path, "t3", &g, &bus, err, sizeof(err));
	CHECK(l == NULL && errno == EADDRINUSE, "a refused HCA fails with EADDRINUSE (errno %d)", errno);
	CHECK(l == NULL && strstr(err, "in use by port 3 (x)"), "the refusal names the reason: %s", err);
	shim_link_close(l);
	shim_bus_close(bus);
	if (g.fd >= 0)
		close(g.fd);

	/* A switch that hangs up instead of answering. */
	g = (struct greeter){ .lfd = lfd, .hangup = 1 };
	l = connect_link(sa.sun_path, "t4", &g, &bus, err, sizeof(err));
	CHECK(l == NULL && strstr(err, "closed the connection"), "no WELCOME, connection closed: %s",
	      l ? "connected" : err);
	shim_link_close(l);
	shim_bus_close(bus);

	close(lfd);
	unlink(sa.sun_path);
	rmdir(dir);
	return check_done();
}
