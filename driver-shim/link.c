// SPDX-License-Identifier: MIT
/* Switch link and in-process segments: see link.h and swproto.h. */
#include "link.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "bus.h"
#include "log.h"
#include "shmring.h"
#include "swproto.h"
#include "wire.h"

#define LINK_SOCKBUF (4 << 20)
#define LINK_ANSWERS 16
/*
 * A socket message, not a byte, is what a frame costs here.  Frames
 * transmitted during a device step are packed into txbuf and leave when the
 * step ends (shim_link_flush): as FRAMES messages of up to HCASW_MAX_MSG
 * bytes when the switch's WELCOME said it takes them, else one FRAME
 * message each; either way up to LINK_BATCH messages per sendmmsg().  The receive
 * side takes up to LINK_RX_MSGS messages per recvmmsg() and hands their
 * frames to the bus only as far as its queue has room: the rest stays in
 * rxbuf (and in the socket, whose filling is the switch's congestion) until
 * the device has taken what it got.  A poll reads once: the device steps
 * between reads, on a working set of at most LINK_RX_MSGS messages.
 */
#define LINK_BATCH 32
#define LINK_RX_MSGS 8
#define LINK_MSG_MAX (sizeof(struct hcasw_hdr) + HCASW_MAX_MSG)
#define LINK_TXBUF (256 << 10)	/* bytes of messages held before sending */
#define LINK_RX_CHUNK 64	/* frames handed to the bus at once */
#define LINK_WELCOME_MS 5000	/* the switch answers a HELLO at once; this is for a hung one */
/*
 * Shared memory (shmring.h): frames go through the rings instead; the socket
 * is read when poll() said it is readable, when waiting for an answer, and
 * every LINK_SOCK_EVERY polls otherwise (its end of file: the switch left).
 */
#define LINK_SOCK_EVERY 64
#define LINK_FULL_WAIT_NS 20000	/* a full ring to the switch: look again after this */

struct link_answer {
	uint32_t ipv4;
	int state;		/* 0 free, 1 waiting, 2 answered */
	int found;
	uint8_t mac[6];
};

struct shim_link {
	int fd;
	int dead;
	int welcome;		/* 0 waiting for WELCOME, 1 accepted, -errno refused */
	int eof;		/* 1: the switch closed the connection, 2: said so */
	char refusal[128];	/* the switch's reason */
	struct shim_bus *bus;
	pthread_mutex_t send_lock;	/* the socket's send side, txbuf */
	pthread_mutex_t rx_lock;	/* the socket's receive side, rxbuf */
	pthread_mutex_t lock;		/* answers */
	pthread_cond_t cond;
	struct link_answer ans[LINK_ANSWERS];
	/* counters (relaxed atomics: a lock per frame cost more than the frame's copy) */
	_Atomic uint64_t tx, rx;		/* frames */
	_Atomic uint64_t tx_calls, rx_calls;	/* sendmmsg/recvmmsg calls that moved frames */
	uint8_t *rxbuf;			/* LINK_RX_MSGS messages of LINK_MSG_MAX */
	/* hand-over of the messages in rxbuf (under rx_lock) */
	unsigned int rx_n, rx_i;	/* messages read, the next one to hand over */
	size_t rx_off;			/* in message rx_i: the next FRAMES record; 1: FRAME taken */
	size_t rx_len[LINK_RX_MSGS];
	atomic_int rx_more;		/* messages not handed over, or the last read filled rxbuf */
	int batch;			/* 0: one FRAME per message, sent at once (HCASIM_LINK_BATCH=0) */
	atomic_int peer_frames;		/* the switch takes FRAMES (its WELCOME said so) */
	/* messages waiting for the flush (under send_lock) */
	uint8_t *txbuf;
	size_t tx_used;
	unsigned int tx_n;
	struct iovec tx_iov[LINK_BATCH];
	unsigned int tx_frames[LINK_BATCH];	/* frames in each */
	/* the shared-memory wire, offered in the HELLO (seg != NULL), used once accepted (shm) */
	atomic_int shm;
	struct shmring_seg *seg;
	int efd_sw, efd_hca;		/* eventfds: wakes the switch, wakes us */
	struct shmring tx_ring;		/* to the switch (under send_lock) */
	struct shmring rx_ring;		/* from the switch (under rx_lock) */
	unsigned int sock_tick;		/* polls since the socket was read (under rx_lock) */
	atomic_int sock_ready;		/* poll() said the socket is readable */
};

/* One message, with nfds file descriptors (SCM_RIGHTS) when nfds > 0. */
static int send_msg_fds(struct shim_link *l, uint16_t type, const void *p, size_t len,
			const int *fds, unsigned int nfds)
{
	struct hcasw_hdr h = { .type = type, .len = (uint32_t)len };
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)(uintptr_t)p, len } };
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };
	union {
		struct cmsghdr c;
		uint8_t b[CMSG_SPACE(3 * sizeof(int))];
	} ctl;
	ssize_t n;

	if (nfds) {
		struct cmsghdr *c = &ctl.c;

		m.msg_control = ctl.b;
		m.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}

	if (l->dead)
		return -EPIPE;
	pthread_mutex_lock(&l->send_lock);
	do
		n = sendmsg(l->fd, &m, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	pthread_mutex_unlock(&l->send_lock);
	if (n < 0) {
		int err = errno;

		if (!l->dead && (err == EPIPE || err == ECONNRESET)) {
			shim_err("switch connection lost: %s", strerror(err));
			l->dead = 1;
		}
		return -err;
	}
	return 0;
}

static int send_msg(struct shim_link *l, uint16_t type, const void *p, size_t len)
{
	return send_msg_fds(l, type, p, len, NULL, 0);
}

static int link_poll(struct shim_link *l, int read_socket);

/* The shared-memory wire offered in the HELLO: its descriptors (memfd, the two eventfds). */
static int shm_offer(struct shim_link *l, int fds[3])
{
	char err[160];
	const char *e = getenv("HCASIM_LINK_SHM");

	l->efd_sw = l->efd_hca = -1;
	if (!l->batch || (e && !strcmp(e, "0")))
		return -1;
	fds[0] = shmring_create(SHMRING_BYTES, &l->seg, err, sizeof(err));
	if (fds[0] < 0) {
		shim_dbg(1, "switch link: no shared memory (%s): the socket carries the frames", err);
		return -1;
	}
	l->efd_sw = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	l->efd_hca = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (l->efd_sw < 0 || l->efd_hca < 0) {
		shim_dbg(1, "switch link: no eventfd (%s): the socket carries the frames",
			 strerror(errno));
		close(fds[0]);
		return -1;
	}
	shmring_init(&l->tx_ring, l->seg, SHMRING_BYTES, SHMRING_TO_SWITCH, l->efd_sw);
	shmring_init(&l->rx_ring, l->seg, SHMRING_BYTES, SHMRING_TO_HCA, l->efd_hca);
	fds[1] = l->efd_sw;
	fds[2] = l->efd_hca;
	return 0;
}

/* The shared memory is not (or no longer) used: give it back. */
static void shm_drop(struct shim_link *l)
{
	atomic_store(&l->shm, 0);
	shmring_unmap(l->seg, SHMRING_BYTES);
	l->seg = NULL;
	if (l->efd_sw >= 0)
		close(l->efd_sw);
	if (l->efd_hca >= 0)
		close(l->efd_hca);
	l->efd_sw = l->efd_hca = -1;
}

/* The switch's verdict on our HELLO (frames before it go to the bus): 0 if accepted. */
static int wait_welcome(struct shim_link *l)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!l->welcome && !l->dead) {
		struct pollfd p = { .fd = l->fd, .events = POLLIN };

		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >= LINK_WELCOME_MS)
			break;
		if (poll(&p, 1, 10) > 0)
			link_poll(l, 1);
	}
	return l->welcome == 1 ? 0 : -1;
}

struct shim_link *shim_link_connect(const char *path, const uint8_t mac[6], uint32_t ipv4,
				    const char *name, struct shim_bus *bus, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct hcasw_hello hello = { 0 };
	struct shim_link *l;
	int sz = LINK_SOCKBUF, fds[3], shm;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, errlen, "switch path too long: %s", path);
		return NULL;
	}
	strcpy(sa.sun_path, path);
	l = calloc(1, sizeof(*l));
	if (!l || !(l->rxbuf = malloc(LINK_RX_MSGS * LINK_MSG_MAX)) || !(l->txbuf = malloc(LINK_TXBUF))) {
		snprintf(err, errlen, "out of memory");
		if (l)
			free(l->rxbuf);
		free(l);
		return NULL;
	}
	l->bus = bus;
	l->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (l->fd < 0 || connect(l->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		snprintf(err, errlen, "cannot connect to switch %s: %s (is `hcasim switch %s` running?)",
			 path, strerror(errno), path);
		if (l->fd >= 0)
			close(l->fd);
		free(l->rxbuf);
		free(l->txbuf);
		free(l);
		return NULL;
	}
	setsockopt(l->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(l->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	pthread_mutex_init(&l->send_lock, NULL);
	pthread_mutex_init(&l->rx_lock, NULL);
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->cond, NULL);
	memcpy(hello.mac, mac, 6);
	/* HCASIM_LINK_BATCH=0: the per-frame behaviour (a measurement knob, make bench-shim) */
	l->batch = !getenv("HCASIM_LINK_BATCH") || strcmp(getenv("HCASIM_LINK_BATCH"), "0");
	shm = !shm_offer(l, fds);
	hello.flags = (l->batch ? HCASW_HELLO_FRAMES : 0) | (shm ? HCASW_HELLO_SHM : 0);
	hello.ipv4[0] = (uint8_t)(ipv4 >> 24);
	hello.ipv4[1] = (uint8_t)(ipv4 >> 16);
	hello.ipv4[2] = (uint8_t)(ipv4 >> 8);
	hello.ipv4[3] = (uint8_t)ipv4;
	snprintf(hello.name, sizeof(hello.name), "%s", name);
	if (send_msg_fds(l, HCASW_HELLO, &hello, sizeof(hello), fds, shm ? 3 : 0)) {
		snprintf(err, errlen, "switch %s refused the connection", path);
		if (shm)
			close(fds[0]);
		shim_link_close(l);
		return NULL;
	}
	if (shm)
		close(fds[0]);	/* (the mapping stays; the switch has its own descriptor) */
	if (wait_welcome(l)) {
		int e = l->welcome < 0 ? -l->welcome : ETIMEDOUT;

		if (l->welcome < 0)
			snprintf(err, errlen, "switch %s refused this HCA: %s", path, l->refusal);
		else
			snprintf(err, errlen, "switch %s did not answer (%s)", path,
				 l->dead ? "it closed the connection" : "no WELCOME in 5 s");
		shim_link_close(l);
		errno = e;
		return NULL;
	}
	if (!atomic_load(&l->shm))
		shm_drop(l);
	shim_dbg(1, "switch link: frames travel %s", atomic_load(&l->shm) ? "in shared memory" :
		 "over the socket");
	return l;
}

void shim_link_close(struct shim_link *l)
{
	if (!l)
		return;
	shim_link_flush(l);
	close(l->fd);
	shm_drop(l);
	pthread_mutex_destroy(&l->send_lock);
	pthread_mutex_destroy(&l->rx_lock);
	pthread_mutex_destroy(&l->lock);
	pthread_cond_destroy(&l->cond);
	free(l->rxbuf);
	free(l->txbuf);
	free(l);
}

int shim_link_fd(const struct shim_link *l)
{
	return l->dead ? -1 : l->fd;	/* (poll() skips a negative fd: no spinning on a hang-up) */
}

void shim_link_readable(struct shim_link *l)
{
	atomic_store(&l->sock_ready, 1);
}

int shim_link_wake_fd(const struct shim_link *l)
{
	return atomic_load(&l->shm) && !l->dead ? l->efd_hca : -1;
}

int shim_link_sleep(struct shim_link *l, int sleeping)
{
	int ret;

	if (!atomic_load(&l->shm))
		return 0;
	pthread_mutex_lock(&l->rx_lock);
	ret = shmring_sleep(&l->rx_ring, sleeping);
	pthread_mutex_unlock(&l->rx_lock);
	return ret;
}

void shim_link_woken(struct shim_link *l)
{
	if (atomic_load(&l->shm))
		shmring_clear_wake(&l->rx_ring);
}

/* Send the messages in txbuf (send_lock held): 0 or a negative errno (the link is dead). */
static int flush_locked(struct shim_link *l)
{
	struct mmsghdr m[LINK_BATCH];
	unsigned int done = 0, n = l->tx_n;
	uint64_t calls = 0, frames = 0;
	int err = 0;

	for (unsigned int i = 0; i < n; i++)
		m[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &l->tx_iov[i], .msg_iovlen = 1 } };
	while (done < n && !l->dead) {
		int k = sendmmsg(l->fd, m + done, n - done, MSG_NOSIGNAL);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			if (err == EPIPE || err == ECONNRESET) {
				shim_err("switch connection lost: %s", strerror(err));
				l->dead = 1;
			}
			break;
		}
		done += (unsigned int)k;
		calls++;
	}
	for (unsigned int i = 0; i < done; i++)
		frames += l->tx_frames[i];
	l->tx_n = 0;
	l->tx_used = 0;
	atomic_fetch_add_explicit(&l->tx, frames, memory_order_relaxed);
	atomic_fetch_add_explicit(&l->tx_calls, calls, memory_order_relaxed);
	return l->dead ? -EPIPE : -err;
}

/* Publish the frames written into the ring to the switch (send_lock held). */
static void shm_publish_locked(struct shim_link *l)
{
	if (shmring_publish(&l->tx_ring))
		atomic_fetch_add_explicit(&l->tx_calls, 1, memory_order_relaxed);
}

void shim_link_flush(struct shim_link *l)
{
	pthread_mutex_lock(&l->send_lock);
	if (atomic_load(&l->shm))
		shm_publish_locked(l);
	else if (l->tx_n)
		flush_locked(l);
	pthread_mutex_unlock(&l->send_lock);
}

/*
 * One frame into the ring to the switch (send_lock held).  A full ring
 * waits for the switch to take frames, as a full socket would block; the
 * switch never blocks, so only its death ends the wait (the frame is lost).
 */
static int shm_send_locked(struct shim_link *l, const uint8_t *frame, size_t len)
{
	while (shmring_put(&l->tx_ring, frame, len)) {
		struct pollfd p = { .fd = l->fd, .events = 0 };
		struct timespec ts = { 0, LINK_FULL_WAIT_NS };

		shm_publish_locked(l);
		if (poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR))) {
			if (!l->dead)
				shim_err("switch connection lost: it hung up");
			l->dead = 1;
			return -EPIPE;
		}
		nanosleep(&ts, NULL);
	}
	atomic_fetch_add_explicit(&l->tx, 1, memory_order_relaxed);
	return 0;
}

/* Start a message of type at the end of txbuf (flushing first if it is full): its iovec. */
static struct iovec *tx_open(struct shim_link *l, uint16_t type, size_t need, int *err)
{
	struct hcasw_hdr h = { .type = type };
	size_t at = (l->tx_used + 7) & ~(size_t)7;	/* headers 8-byte aligned */
	uint8_t *p;

	if (l->tx_n == LINK_BATCH || at + sizeof(h) + need > LINK_TXBUF) {
		*err = flush_locked(l);
		if (*err)
			return NULL;
		at = 0;
	}
	p = l->txbuf + at;
	memcpy(p, &h, sizeof(h));
	l->tx_used = at + sizeof(h);
	l->tx_frames[l->tx_n] = 0;
	l->tx_iov[l->tx_n] = (struct iovec){ .iov_base = p, .iov_len = sizeof(h) };
	return &l->tx_iov[l->tx_n++];
}

int shim_link_send(struct shim_link *l, const uint8_t *frame, size_t len)
{
	struct iovec *v = NULL;
	struct hcasw_hdr h;
	size_t body, add;
	int ret = 0;

	if (len > HCASW_MAX_FRAME)
		return -EMSGSIZE;
	if (l->dead)
		return -EPIPE;
	pthread_mutex_lock(&l->send_lock);
	if (atomic_load(&l->shm)) {
		ret = shm_send_locked(l, frame, len);
	} else if (atomic_load(&l->peer_frames)) {
		/* a record in the open FRAMES message, or in a new one */
		add = hcasw_rec_size(len);
		if (l->tx_n) {
			v = &l->tx_iov[l->tx_n - 1];
			if (v->iov_len - sizeof(h) + add > HCASW_MAX_MSG ||
			    l->tx_used + add > LINK_TXBUF)
				v = NULL;
		}
		if (!v)
			v = tx_open(l, HCASW_FRAMES, add, &ret);
		if (v) {
			body = v->iov_len - sizeof(h);
			hcasw_frames_put((uint8_t *)v->iov_base + sizeof(h), &body, HCASW_MAX_MSG,
					 frame, len);
		}
	} else {
		add = len;
		v = tx_open(l, HCASW_FRAME, add, &ret);
		if (v) {
			memcpy((uint8_t *)v->iov_base + sizeof(h), frame, len);
			body = len;
		}
	}
	if (v) {
		memcpy(&h, v->iov_base, sizeof(h));
		h.len = (uint32_t)body;
		memcpy(v->iov_base, &h, sizeof(h));
		v->iov_len = sizeof(h) + body;
		l->tx_used += add;
		l->tx_frames[l->tx_n - 1]++;
		if (!l->batch)
			ret = flush_locked(l);
	}
	pthread_mutex_unlock(&l->send_lock);
	return ret;
}

static void got_answer(struct shim_link *l, const struct hcasw_resolve *r)
{
	uint32_t ip = (uint32_t)r->ipv4[0] << 24 | (uint32_t)r->ipv4[1] << 16 |
		      (uint32_t)r->ipv4[2] << 8 | r->ipv4[3];

	pthread_mutex_lock(&l->lock);
	for (int i = 0; i < LINK_ANSWERS; i++) {
		struct link_answer *a = &l->ans[i];

		if (a->state == 1 && a->ipv4 == ip) {
			a->state = 2;
			a->found = r->found;
			memcpy(a->mac, r->mac, 6);
		}
	}
	pthread_cond_broadcast(&l->cond);
	pthread_mutex_unlock(&l->lock);
}

/*
 * Hand over the messages in rxbuf from where the last hand-over stopped:
 * frames to the bus while its queue has room, LINK_RX_CHUNK per call,
 * answers and the WELCOME as they come.  The frames handed over; *blocked
 * when the queue filled before the end (the position is kept: the next poll
 * resumes there).
 */
static unsigned int hand_over(struct shim_link *l, int *blocked)
{
	struct iovec f[LINK_RX_CHUNK];
	unsigned int n = 0, total = 0, room = shim_bus_rx_room(l->bus);

	*blocked = 0;
	while (l->rx_i < l->rx_n && !*blocked) {
		const uint8_t *msg = l->rxbuf + (size_t)l->rx_i * LINK_MSG_MAX;
		const uint8_t *body = msg + sizeof(struct hcasw_hdr);
		size_t got = l->rx_len[l->rx_i];
		struct hcasw_hdr h = { 0 };

		if (got >= sizeof(h))
			memcpy(&h, msg, sizeof(h));
		if (got < sizeof(h) || h.len != got - sizeof(h)) {
			/* truncated or malformed: ignored */
		} else if (h.type == HCASW_FRAME || h.type == HCASW_FRAMES) {
			for (;;) {
				const uint8_t *fr = body;
				size_t off = l->rx_off, flen = h.len;

				if (h.type == HCASW_FRAME) {
					if (off || h.len > HCASW_MAX_FRAME)
						break;
					off = 1;
				} else if (!(fr = hcasw_frames_next(body, h.len, &off, &flen))) {
					break;
				}
				if (n == LINK_RX_CHUNK || n == room) {
					if (n)
						total += shim_bus_rx_batch(l->bus, f, n);
					n = 0;
					room = shim_bus_rx_room(l->bus);
					if (!room) {
						*blocked = 1;
						break;
					}
				}
				f[n++] = (struct iovec){ .iov_base = (void *)(uintptr_t)fr, .iov_len = flen };
				l->rx_off = off;
			}
		} else if (h.type == HCASW_WELCOME && h.len == sizeof(struct hcasw_welcome)) {
			struct hcasw_welcome w;

			memcpy(&w, body, sizeof(w));
			w.reason[sizeof(w.reason) - 1] = '\0';
			snprintf(l->refusal, sizeof(l->refusal), "%s", w.reason);
			atomic_store(&l->peer_frames,
				     !w.status && l->batch && (w.flags & HCASW_WELCOME_FRAMES));
			atomic_store(&l->shm, !w.status && l->seg && (w.flags & HCASW_WELCOME_SHM));
			l->welcome = w.status ? -(w.status > 0 ? w.status : EPROTO) : 1;
		} else if (h.type == HCASW_ANSWER && h.len == sizeof(struct hcasw_resolve)) {
			struct hcasw_resolve r;

			memcpy(&r, body, sizeof(r));
			got_answer(l, &r);
		}
		if (!*blocked) {
			l->rx_i++;
			l->rx_off = 0;
		}
	}
	/* (the frames point into rxbuf: handed over before it is read into again) */
	if (n)
		total += shim_bus_rx_batch(l->bus, f, n);
	return total;
}

/* Read up to LINK_RX_MSGS messages into rxbuf (everything before was handed over). */
static int read_batch(struct shim_link *l)
{
	struct mmsghdr m[LINK_RX_MSGS];
	struct iovec iov[LINK_RX_MSGS];
	int got;

	for (unsigned int i = 0; i < LINK_RX_MSGS; i++) {
		iov[i] = (struct iovec){ .iov_base = l->rxbuf + i * LINK_MSG_MAX, .iov_len = LINK_MSG_MAX };
		m[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
	}
	do
		got = recvmmsg(l->fd, m, LINK_RX_MSGS, MSG_DONTWAIT, NULL);
	while (got < 0 && errno == EINTR);
	l->rx_n = l->rx_i = 0;
	l->rx_off = 0;
	atomic_store(&l->rx_more, got == LINK_RX_MSGS);
	if (got < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			shim_err("switch connection: %s", strerror(errno));
			l->dead = 1;
		}
		return 0;
	}
	for (int i = 0; i < got; i++) {
		if (m[i].msg_len == 0)	/* end of file */
			break;
		l->rx_len[l->rx_n++] = m[i].msg_len;
	}
	if (l->rx_n < (unsigned int)got || got == 0) {
		l->dead = 1;
		l->eof = 1;	/* said after the hand-over: a refusal (WELCOME) comes first */
	}
	return (int)l->rx_n;
}

/*
 * Hand the frames in the ring from the switch to the bus, as far as its queue
 * has room (rx_lock held): the frames handed over; *blocked when the queue
 * filled first.  A broken ring kills the link, with the reason.
 */
static unsigned int shm_hand_over(struct shim_link *l, int *blocked)
{
	struct iovec f[LINK_RX_CHUNK];
	unsigned int n, total = 0, room;

	*blocked = 0;
	do {
		const uint8_t *fr = NULL;
		size_t flen;

		room = shim_bus_rx_room(l->bus);
		for (n = 0; n < LINK_RX_CHUNK && n < room && (fr = shmring_next(&l->rx_ring, &flen)); n++)
			f[n] = (struct iovec){ .iov_base = (void *)(uintptr_t)fr, .iov_len = flen };
		if (n) {
			total += shim_bus_rx_batch(l->bus, f, n);
			shmring_release(&l->rx_ring);
		}
		*blocked = n == room && shmring_pending(&l->rx_ring);
	} while (n == LINK_RX_CHUNK && !*blocked);
	if (l->rx_ring.error[0] && !l->dead) {
		shim_err("shared-memory wire from the switch is broken: %s; link closed",
			 l->rx_ring.error);
		l->dead = 1;
	}
	return total;
}

int shim_link_poll(struct shim_link *l)
{
	return link_poll(l, 0);
}

static int link_poll(struct shim_link *l, int read_socket)
{
	unsigned int total = 0;
	uint64_t calls = 0;
	int blocked = 0, shm = atomic_load(&l->shm);

	pthread_mutex_lock(&l->rx_lock);
	if (shm) {
		total = shm_hand_over(l, &blocked);
		atomic_store(&l->rx_more, blocked);
		read_socket |= atomic_exchange(&l->sock_ready, 0) || ++l->sock_tick >= LINK_SOCK_EVERY;
		if (read_socket)
			l->sock_tick = 0;
		blocked = 0;
	} else {
		read_socket = 1;
	}
	/* first what an earlier poll could not hand over, then one read */
	if (read_socket)
		total += hand_over(l, &blocked);
	if (read_socket && !blocked && !l->dead && read_batch(l)) {
		calls++;
		total += hand_over(l, &blocked);
	}
	if (l->rx_i < l->rx_n || (shm && shmring_pending(&l->rx_ring)))
		atomic_store(&l->rx_more, 1);
	if (l->eof == 1) {
		if (l->welcome >= 0)	/* (a refusal is reported by shim_link_connect) */
			shim_err("switch closed the connection");
		l->eof = 2;
	}
	pthread_mutex_unlock(&l->rx_lock);
	if (total)
		atomic_fetch_add_explicit(&l->rx, total, memory_order_relaxed);
	if (calls)
		atomic_fetch_add_explicit(&l->rx_calls, calls, memory_order_relaxed);
	return (int)total;
}

int shim_link_rx_more(struct shim_link *l)
{
	return atomic_load(&l->rx_more);
}

int shim_link_resolve(struct shim_link *l, uint32_t ipv4, uint8_t mac[6], unsigned int timeout_ms)
{
	struct hcasw_resolve q = { .ipv4 = { (uint8_t)(ipv4 >> 24), (uint8_t)(ipv4 >> 16),
					     (uint8_t)(ipv4 >> 8), (uint8_t)ipv4 } };
	struct link_answer *a = NULL;
	struct timespec t0, t;
	int ret;

	pthread_mutex_lock(&l->lock);
	for (int i = 0; i < LINK_ANSWERS && !a; i++)
		if (!l->ans[i].state)
			a = &l->ans[i];
	if (!a) {
		pthread_mutex_unlock(&l->lock);
		return -EAGAIN;
	}
	a->state = 1;
	a->ipv4 = ipv4;
	pthread_mutex_unlock(&l->lock);

	ret = send_msg(l, HCASW_RESOLVE, &q, sizeof(q));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!ret) {
		struct pollfd p = { .fd = l->fd, .events = POLLIN };
		long ms;

		pthread_mutex_lock(&l->lock);
		if (a->state == 2) {
			ret = a->found ? 0 : -ENOENT;
			if (a->found)
				memcpy(mac, a->mac, 6);
			pthread_mutex_unlock(&l->lock);
			break;
		}
		pthread_mutex_unlock(&l->lock);
		clock_gettime(CLOCK_MONOTONIC, &t);
		ms = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
		if (ms >= (long)timeout_ms || l->dead) {
			ret = l->dead ? -EIO : -ETIMEDOUT;
			break;
		}
		/* Whoever reads first handles the message: us or the device thread. */
		if (poll(&p, 1, 5) > 0)
			link_poll(l, 1);
	}
	pthread_mutex_lock(&l->lock);
	a->state = 0;
	pthread_mutex_unlock(&l->lock);
	return ret;
}

void shim_link_counters(const struct shim_link *l, uint64_t *tx, uint64_t *rx)
{
	*tx = atomic_load_explicit(&l->tx, memory_order_relaxed);
	*rx = atomic_load_explicit(&l->rx, memory_order_relaxed);
}

void shim_link_calls(const struct shim_link *l, uint64_t *tx_calls, uint64_t *rx_calls)
{
	*tx_calls = atomic_load_explicit(&l->tx_calls, memory_order_relaxed);
	*rx_calls = atomic_load_explicit(&l->rx_calls, memory_order_relaxed);
}

/* ---- in-process segments ------------------------------------------------------ */

/*
 * Cooperative segments run through sim/wire (a learning switch with the
 * configured latency, seeded faults and capture), driven by the cooperative
 * stepper: deterministic.  Threaded segments deliver at once (the device
 * threads have no common clock to schedule deliveries on).
 */
#define SEG_MAX_PORTS 8		/* attaches over the segment's lifetime */

struct seg_port {
	struct shim_bus *bus;	/* NULL once the HCA left */
	uint8_t mac[6];
	uint32_t ipv4;
	int wport;		/* sim/wire port, or -1 */
};

struct shim_segment {
	struct shim_segment *next;
	char name[32];
	unsigned int nports, nlive;
	struct seg_port port[SEG_MAX_PORTS];
	struct wire *w;		/* cooperative segments */
};

static pthread_mutex_t seg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shim_segment *segments;

static void seg_rx(void *ctx, unsigned int port, const uint8_t *frame, size_t len, uint64_t now)
{
	struct seg_port *p = ctx;

	(void)port;
	(void)now;
	if (p->bus)
		shim_bus_rx(p->bus, frame, len);
}

struct shim_segment *shim_segment_join(const char *name, const uint8_t mac[6], uint32_t ipv4,
				       struct shim_bus *bus, const struct wire_config *wc)
{
	struct shim_segment *s;
	struct seg_port *p;

	pthread_mutex_lock(&seg_lock);
	for (s = segments; s; s = s->next)
		if (!strcmp(s->name, name))
			break;
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			goto out;
		snprintf(s->name, sizeof(s->name), "%s", name);
		if (wc) {
			s->w = wire_create(wc);
			if (!s->w) {
				shim_err("in-process wire %s: %s", name, strerror(errno));
				free(s);
				s = NULL;
				goto out;
			}
		}
		s->next = segments;
		segments = s;
	}
	if (s->nports >= SEG_MAX_PORTS) {
		shim_err("in-process wire %s: more than %d HCAs joined it", name, SEG_MAX_PORTS);
		s = NULL;
		goto out;
	}
	p = &s->port[s->nports];
	p->bus = bus;
	memcpy(p->mac, mac, 6);
	p->ipv4 = ipv4;
	p->wport = s->w ? wire_attach(s->w, seg_rx, p) : -1;
	s->nports++;
	s->nlive++;
out:
	pthread_mutex_unlock(&seg_lock);
	return s;
}

void shim_segment_leave(struct shim_segment *s, struct shim_bus *bus)
{
	pthread_mutex_lock(&seg_lock);
	for (unsigned int i = 0; i < s->nports; i++)
		if (s->port[i].bus == bus) {
			s->port[i].bus = NULL;
			s->nlive--;
			break;
		}
	if (!s->nlive) {
		struct shim_segment **pp;

		for (pp = &segments; *pp; pp = &(*pp)->next)
			if (*pp == s) {
				*pp = s->next;
				break;
			}
		wire_destroy(s->w);
		free(s);
	}
	pthread_mutex_unlock(&seg_lock);
}

void shim_segment_send(struct shim_segment *s, struct shim_bus *from, const uint8_t *frame,
		       size_t len, uint64_t now)
{
	struct seg_port *src = NULL;

	if (len < 14)
		return;
	pthread_mutex_lock(&seg_lock);
	for (unsigned int i = 0; i < s->nports; i++)
		if (s->port[i].bus == from)
			src = &s->port[i];
	/* A frame to our own MAC loops back inside the HCA (QPs of one HCA). */
	if (src && !(frame[0] & 1) && !memcmp(frame, src->mac, 6)) {
		shim_bus_rx(from, frame, len);
	} else if (s->w && src) {
		wire_send(s->w, (unsigned int)src->wport, frame, len, now);
	} else {
		for (unsigned int i = 0; i < s->nports; i++) {
			struct seg_port *p = &s->port[i];

			if (p->bus && p != src && ((frame[0] & 1) || !memcmp(frame, p->mac, 6)))
				shim_bus_rx(p->bus, frame, len);
		}
	}
	pthread_mutex_unlock(&seg_lock);
}

unsigned int shim_segments_deliver(uint64_t now)
{
	unsigned int n = 0;

	pthread_mutex_lock(&seg_lock);
	for (struct shim_segment *s = segments; s; s = s->next)
		if (s->w)
			n += wire_deliver(s->w, now);
	pthread_mutex_unlock(&seg_lock);
	return n;
}

uint64_t shim_segments_next_event(void)
{
	uint64_t t = UINT64_MAX;

	pthread_mutex_lock(&seg_lock);
	for (struct shim_segment *s = segments; s; s = s->next)
		if (s->w) {
			uint64_t ne = wire_next_event(s->w);

			if (ne < t)
				t = ne;
		}
	pthread_mutex_unlock(&seg_lock);
	return t;
}

size_t shim_segments_pending(void)
{
	size_t n = 0;

	pthread_mutex_lock(&seg_lock);
	for (struct shim_segment *s = segments; s; s = s->next)
		if (s->w)
			n += wire_pending(s->w);
	pthread_mutex_unlock(&seg_lock);
	return n;
}

int hcasim_shim_wire_counters(const char *name, uint64_t *sent, uint64_t *delivered,
			      uint64_t *dropped);
int hcasim_shim_wire_counters(const char *name, uint64_t *sent, uint64_t *delivered,
			      uint64_t *dropped)
{
	struct wire_stats st;
	int ret = shim_segment_stats(name, &st);

	if (ret)
		return -ret;
	*sent = st.sent;
	*delivered = st.delivered;
	*dropped = st.dropped;
	return 0;
}

int shim_segment_stats(const char *name, struct wire_stats *st)
{
	int ret = -ENOENT;

	pthread_mutex_lock(&seg_lock);
	for (struct shim_segment *s = segments; s; s = s->next)
		if (!strcmp(s->name, name) && s->w) {
			wire_get_stats(s->w, st);
			ret = 0;
		}
	pthread_mutex_unlock(&seg_lock);
	return ret;
}

int shim_segment_resolve(uint32_t ipv4, uint8_t mac[6])
{
	int ret = -ENOENT;

	pthread_mutex_lock(&seg_lock);
	for (struct shim_segment *s = segments; s && ret; s = s->next)
		for (unsigned int i = 0; i < s->nports; i++)
			if (s->port[i].bus && s->port[i].ipv4 == ipv4) {
				memcpy(mac, s->port[i].mac, 6);
				ret = 0;
				break;
			}
	pthread_mutex_unlock(&seg_lock);
	return ret;
}
