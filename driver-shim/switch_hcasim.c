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
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

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

/* 0, or -1 when the port was refused (and closed). */
static int hello(struct sw_port *p, const struct hcasw_hello *h)
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

static void hcasim_input(struct sw_port *p)
{
	uint8_t buf[sizeof(struct hcasw_hdr) + HCASW_MAX_MSG];

	for (;;) {
		ssize_t n = recv(p->fd, buf, sizeof(buf), MSG_DONTWAIT);
		const uint8_t *body = buf + sizeof(struct hcasw_hdr);
		struct hcasw_hdr h;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			sw_port_close(p);
			return;
		}
		if ((size_t)n < sizeof(h))
			continue;
		memcpy(&h, buf, sizeof(h));
		if (h.len != (size_t)n - sizeof(h))
			continue;	/* truncated or malformed: ignored */
		if (h.type == HCASW_HELLO && h.len == sizeof(struct hcasw_hello)) {
			struct hcasw_hello hl;

			memcpy(&hl, body, sizeof(hl));
			if (hello(p, &hl))
				return;
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

static const struct sw_port_ops hcasim_ops = {
	.kind = "hcasim",
	.input = hcasim_input,
	.output = hcasim_output,
	.flush = hcasim_flush,
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
