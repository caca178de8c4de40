// SPDX-License-Identifier: MIT
/*
 * The switch's port kind for `hcasim run` HCAs: a Unix SOCK_SEQPACKET socket
 * at the switch's PATH, one message per HELLO/WELCOME/FRAME/RESOLVE/ANSWER
 * (swproto.h).  The core is switch.c (switch.h).
 *
 * An HCA whose HELLO says it takes FRAMES gets, at the end of each poll
 * round (flush), the frames delivered to it in that round as FRAMES
 * messages of up to HCASW_MAX_MSG body bytes; its WELCOME says the switch
 * takes FRAMES too.  Other peers (older HCAs, sw_qemu.c) get one FRAME per
 * message.  A FRAMES message from a peer is handled record by record, each
 * as if it had come in its own FRAME message.
 *
 * An HCA whose HELLO brings a shared-memory wire (shmring.h) and is accepted
 * (not --no-shm, the segment checks out) exchanges every frame through its
 * rings instead: output() appends to the ring toward the HCA (a full ring
 * loses the frame, as a full socket does), flush() publishes and wakes the
 * HCA if it sleeps, rings() takes the HCA's frames each poll round, each as
 * if it had come in its own FRAME message.  A broken ring (a bad record)
 * closes the port with the reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "shmring.h"
#include "swproto.h"
#include "switch.h"

#define SW_SOCKBUF (4 << 20)

static int listen_fd = -1;
static char listen_path[108];

/* Per port (by wire port, < SW_MAX_PORTS): the FRAMES message being filled. */
static struct hcasim_out {
	int frames;		/* the peer takes FRAMES (its HELLO said so) */
	uint8_t *msg;		/* header + records, allocated on first use */
	size_t used;		/* body bytes */
	unsigned int n;		/* frames in it */
	/* the shared-memory wire (seg != NULL) */
	struct shmring_seg *seg;
	uint64_t ring_bytes;
	struct shmring tx;	/* to the HCA; wakes it through its eventfd */
	struct shmring rx;	/* from the HCA; p->wake_fd is its eventfd */
} out[SW_MAX_PORTS];

static int msg_send(struct sw_port *p, uint16_t type, const void *data, size_t len)
{
	uint8_t buf[sizeof(struct hcasw_hdr) + HCASW_MAX_FRAME];
	struct hcasw_hdr h = { .type = type, .len = (uint32_t)len };

	if (len > HCASW_MAX_FRAME)
		return -1;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), data, len);
	/* Never block: a port that cannot take the frame loses it, like a full egress queue. */
	return send(p->fd, buf, sizeof(h) + len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 ? -1 : 0;
}

/* Send the port's FRAMES message (never blocking: a full port loses all of it). */
static void hcasim_flush(struct sw_port *p)
{
	struct hcasim_out *o = &out[p->id];
	struct hcasw_hdr h = { .type = HCASW_FRAMES, .len = (uint32_t)o->used };

	if (o->seg) {
		shmring_publish(&o->tx);
		return;
	}
	if (!o->n)
		return;
	memcpy(o->msg, &h, sizeof(h));
	if (send(p->fd, o->msg, sizeof(h) + o->used, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		p->tx_frames -= o->n;	/* counted when queued */
		p->tx_lost += o->n;
	}
	o->used = 0;
	o->n = 0;
}

static int hcasim_output(struct sw_port *p, const uint8_t *frame, size_t len)
{
	struct hcasim_out *o = &out[p->id];
	uint8_t *body;

	if (o->seg)	/* a full ring loses the frame, like a full egress queue */
		return shmring_put(&o->tx, frame, len);
	if (!o->frames || (!o->msg && !(o->msg = malloc(sizeof(struct hcasw_hdr) + HCASW_MAX_MSG))))
		return msg_send(p, HCASW_FRAME, frame, len);
	body = o->msg + sizeof(struct hcasw_hdr);
	if (hcasw_frames_put(body, &o->used, HCASW_MAX_MSG, frame, len)) {
		hcasim_flush(p);
		if (hcasw_frames_put(body, &o->used, HCASW_MAX_MSG, frame, len))
			return -1;
	}
	o->n++;
	return 0;
}

static uint32_t ipv4_of(const uint8_t b[4])
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static void close_fds(int *fds, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* Release the port's shared memory (the port is closing or the HELLO is refused). */
static void shm_release(struct sw_port *p)
{
	struct hcasim_out *o = &out[p->id];

	if (!o->seg)
		return;
	shmring_unmap(o->seg, o->ring_bytes);
	o->seg = NULL;
	close(o->tx.wake_fd);
	close(p->wake_fd);
	p->wake_fd = -1;
}

/* fd is an eventfd (a pipe or a socket instead could block the switch's wake-up writes). */
static int is_eventfd(int fd)
{
	char link[64], path[40];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return 0;
	link[n] = '\0';
	return !strcmp(link, "anon_inode:[eventfd]");
}

/*
 * The shared-memory wire of a HELLO (fds: memfd, eventfd waking us, eventfd
 * waking the HCA): 1 when taken (the descriptors are kept), else 0 (closed;
 * the reason printed unless the switch runs with --no-shm).
 */
static int shm_accept(struct sw_port *p, const char *name, int *fds, unsigned int nfds)
{
	struct hcasim_out *o = &out[p->id];
	char err[160] = "";
	uint64_t rb;

	if (sw_no_shm) {
		close_fds(fds, nfds);
		return 0;
	}
	if (nfds != 3)
		snprintf(err, sizeof(err), "%u file descriptors with the HELLO, want 3", nfds);
	else if (!is_eventfd(fds[1]) || !is_eventfd(fds[2]))
		snprintf(err, sizeof(err), "the wake-up descriptors are not eventfds");
	else if (fcntl(fds[1], F_SETFL, O_NONBLOCK) || fcntl(fds[2], F_SETFL, O_NONBLOCK))
		snprintf(err, sizeof(err), "cannot make the eventfds non-blocking: %s", strerror(errno));
	else
		o->seg = shmring_attach(fds[0], &rb, err, sizeof(err));
	if (!o->seg) {
		fprintf(stderr, "hcasim switch: port %d (%s): shared memory refused: %s; frames use "
				"the socket\n", p->id, name, err);
		close_fds(fds, nfds);
		return 0;
	}
	o->ring_bytes = rb;
	close(fds[0]);		/* (the mapping stays) */
	shmring_init(&o->rx, o->seg, rb, SHMRING_TO_SWITCH, fds[1]);
	shmring_init(&o->tx, o->seg, rb, SHMRING_TO_HCA, fds[2]);
	p->wake_fd = fds[1];
	return 1;
}

/* 0, or -1 when the port was refused (and closed). */
static int hello(struct sw_port *p, const struct hcasw_hello *h, int *fds, unsigned int nfds)
{
	struct hcasw_welcome w = { 0 };
	char name[sizeof(h->name) + 1];

	memcpy(name, h->name, sizeof(h->name));
	name[sizeof(h->name)] = '\0';
	if (sw_port_register(p, h->mac, ipv4_of(h->ipv4), name, w.reason, sizeof(w.reason)))
		w.status = EADDRINUSE;
	else
		w.flags = HCASW_WELCOME_FRAMES;
	out[p->id].frames = !w.status && (h->flags & HCASW_HELLO_FRAMES);
	shm_release(p);		/* (a second HELLO) */
	if (!w.status && (h->flags & HCASW_HELLO_SHM)) {
		if (shm_accept(p, name, fds, nfds))
			w.flags |= HCASW_WELCOME_SHM;
	} else {
		close_fds(fds, nfds);
	}
	if (!sw_quiet && (w.flags & HCASW_WELCOME_SHM))
		fprintf(stderr, "hcasim switch: port %d: frames in shared memory (2 x %llu KiB)\n",
			p->id, (unsigned long long)(out[p->id].ring_bytes >> 10));
	msg_send(p, HCASW_WELCOME, &w, sizeof(w));
	if (!w.status)
		return 0;
	sw_port_close(p);
	return -1;
}

static void resolve(struct sw_port *p, const struct hcasw_resolve *q)
{
	struct hcasw_resolve a = *q;
	const struct sw_port *o = sw_port_by_ipv4(ipv4_of(q->ipv4));

	a.found = o != NULL;
	if (o)
		memcpy(a.mac, o->mac, 6);
	msg_send(p, HCASW_ANSWER, &a, sizeof(a));
}

/* Receive one message and the descriptors it carries (at most 3; *nfds of them). */
static ssize_t recv_fds(int fd, uint8_t *buf, size_t len, int *fds, unsigned int *nfds)
{
	struct iovec iov = { buf, len };
	union {
		struct cmsghdr c;
		uint8_t b[CMSG_SPACE(3 * sizeof(int))];
	} ctl;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b,
			    .msg_controllen = sizeof(ctl.b) };
	ssize_t n = recvmsg(fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

	*nfds = 0;
	if (n < 0)
		return n;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		unsigned int k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (unsigned int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (unsigned int i = 0; i < k; i++) {
			int f;

			memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*nfds < 3)
				fds[(*nfds)++] = f;
			else
				close(f);
		}
	}
	return n;
}

static void hcasim_rings(struct sw_port *p, int woken);

static void hcasim_input(struct sw_port *p)
{
	uint8_t buf[sizeof(struct hcasw_hdr) + HCASW_MAX_MSG];

	for (;;) {
		int fds[3];
		unsigned int nfds;
		ssize_t n = recv_fds(p->fd, buf, sizeof(buf), fds, &nfds);
		const uint8_t *body = buf + sizeof(struct hcasw_hdr);
		struct hcasw_hdr h = { 0 };

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			close_fds(fds, nfds);
			/* The HCA's last frames may still be in its ring (an ACK it
			 * published just before its process exited, when the switch
			 * sees the wake-up and the hang-up in one round): into the
			 * switch first, then close. */
			hcasim_rings(p, 0);
			if (p->ops)
				sw_port_close(p);
			return;
		}
		memcpy(&h, buf, (size_t)n < sizeof(h) ? 0 : sizeof(h));
		if ((size_t)n < sizeof(h) || h.len != (size_t)n - sizeof(h) ||
		    (nfds && h.type != HCASW_HELLO)) {
			close_fds(fds, nfds);
			continue;	/* truncated or malformed: ignored */
		}
		if (h.type == HCASW_HELLO && h.len == sizeof(struct hcasw_hello)) {
			struct hcasw_hello hl;

			memcpy(&hl, body, sizeof(hl));
			if (hello(p, &hl, fds, nfds))
				return;
		} else if (h.type == HCASW_HELLO) {
			close_fds(fds, nfds);
		} else if (h.type == HCASW_FRAME) {
			sw_port_frame_in(p, body, h.len);
		} else if (h.type == HCASW_FRAMES) {
			const uint8_t *f;
			size_t off = 0, flen;

			while ((f = hcasw_frames_next(body, h.len, &off, &flen)))
				sw_port_frame_in(p, f, flen);
		} else if (h.type == HCASW_RESOLVE && h.len == sizeof(struct hcasw_resolve)) {
			struct hcasw_resolve q;

			memcpy(&q, body, sizeof(q));
			resolve(p, &q);
		}
	}
}

/* The frames the HCA put in its ring, each into the switch as if in its own FRAME message. */
static void hcasim_rings(struct sw_port *p, int woken)
{
	struct hcasim_out *o = &out[p->id];
	const uint8_t *f;
	size_t len;
	unsigned int n = 0;

	if (!o->seg)
		return;
	if (woken)
		shmring_clear_wake(&o->rx);
	while ((f = shmring_next(&o->rx, &len))) {
		sw_port_frame_in(p, f, len);	/* (sim/wire copies it) */
		if (++n % 256 == 0)	/* (room for the HCA while we work) */
			shmring_release(&o->rx);
	}
	if (n)
		shmring_release(&o->rx);
	if (o->rx.error[0]) {
		fprintf(stderr, "hcasim switch: port %d (%s): shared-memory ring broken: %s; "
				"closing the port\n", p->id, p->name[0] ? p->name : "hcasim", o->rx.error);
		sw_port_close(p);
	}
}

static int hcasim_sleep(struct sw_port *p, int sleeping)
{
	struct hcasim_out *o = &out[p->id];

	return o->seg ? shmring_sleep(&o->rx, sleeping) : 0;
}

static int hcasim_pending(struct sw_port *p)
{
	struct hcasim_out *o = &out[p->id];

	return o->seg && shmring_pending(&o->rx);
}

static const struct sw_port_ops hcasim_ops = {
	.kind = "hcasim",
	.input = hcasim_input,
	.output = hcasim_output,
	.flush = hcasim_flush,
	.rings = hcasim_rings,
	.sleep = hcasim_sleep,
	.pending = hcasim_pending,
	.closing = shm_release,
};

static void hcasim_accept(int lfd)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	int sz = SW_SOCKBUF;
	struct sw_port *p;

	if (fd < 0)
		return;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	p = sw_port_open(fd, &hcasim_ops);
	if (p) {	/* one FRAME per message until its HELLO says otherwise */
		out[p->id].frames = 0;
		out[p->id].used = 0;
		out[p->id].n = 0;
	}
}

int sw_hcasim_listen(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "hcasim switch: socket path too long\n");
		return 1;
	}
	strcpy(sa.sun_path, path);
	listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	unlink(path);
	if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(listen_fd, 16) || sw_listen(listen_fd, hcasim_accept)) {
		fprintf(stderr, "hcasim switch: cannot listen on %s: %s\n", path, strerror(errno));
		if (listen_fd >= 0)
			close(listen_fd);
		listen_fd = -1;
		return 1;
	}
	strcpy(listen_path, path);
	return 0;
}

void sw_hcasim_unlisten(void)
{
	if (listen_fd < 0)
		return;
	close(listen_fd);
	unlink(listen_path);
	listen_fd = -1;
	for (unsigned int i = 0; i < SW_MAX_PORTS; i++) {
		free(out[i].msg);
		out[i] = (struct hcasim_out){ 0 };
	}
}
