// SPDX-License-Identifier: MIT
/*
 * QEMU ports of `hcasim switch`: QEMU's stream netdev <-> swproto.h
 * (sw_qemu.h has the design; docs/interop.md the use).
 */
#include "sw_qemu.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "swproto.h"

#define SQ_MAX_RECORD (4 + 65536 + 4096)	/* QEMU's largest frame (NET_BUFSIZE) + length */
#define SQ_ARP_PENDING 8
#define SQ_SOCKBUF (4 << 20)

#define ETH_HLEN 14
#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_ARP 0x0806
#define ARP_LEN 28		/* Ethernet/IPv4 ARP packet */
#define ARP_REQUEST 1
#define ARP_REPLY 2
#define ETH_MIN_FRAME 60

struct sq_arp {			/* a proxied ARP request waiting for its ANSWER */
	uint8_t target[4];	/* the address asked for */
	uint8_t mac[6], ipv4[4];	/* who asked */
	int used;
};

struct sq_guest {
	int qfd;		/* QEMU's stream connection, -1 = slot free */
	int sfd;		/* our port on the switch (SOCK_SEQPACKET) */
	unsigned int id;
	uint8_t rx[SQ_MAX_RECORD];	/* stream bytes from QEMU not yet a whole record */
	size_t rx_len;
	uint8_t tx[4 + HCASW_MAX_FRAME];	/* the record being written to QEMU */
	size_t tx_len, tx_off;
	uint8_t mac[6], ipv4[4];	/* learned (announced in HELLO) */
	int learned;
	struct sq_arp arp[SQ_ARP_PENDING];
	unsigned int arp_next;
	uint64_t from_guest, to_guest, arp_answered, lost;
};

struct sq_polled {		/* one descriptor handed to the caller's poll() */
	int guest;		/* index in sq.g, -1 = the listener */
	int fd;
};

static struct {
	int lfd;
	char qemu_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char switch_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int quiet;
	unsigned int connections;
	struct sq_guest *g[SW_QEMU_MAX_GUESTS];
	/* what sw_qemu_pollfds() handed out, in order: guest index and which fd */
	struct sq_polled polled[SW_QEMU_POLLFDS];
	unsigned int npolled;
} sq = { .lfd = -1 };

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static int unix_addr(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa->sun_path, path);
	return 0;
}

int sw_qemu_open(const char *qemu_path, const char *switch_path, int quiet)
{
	struct sockaddr_un sa;

	if (unix_addr(&sa, qemu_path) || strlen(switch_path) >= sizeof(sq.switch_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sq.switch_path, switch_path);
	strcpy(sq.qemu_path, qemu_path);
	sq.quiet = quiet;
	sq.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sq.lfd < 0)
		return -1;
	unlink(qemu_path);
	if (bind(sq.lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(sq.lfd, 4)) {
		int e = errno;

		close(sq.lfd);
		sq.lfd = -1;
		errno = e;
		return -1;
	}
	return 0;
}

/* ---- toward the switch ------------------------------------------------------------------ */

static int to_switch(struct sq_guest *g, uint16_t type, const void *data, size_t len)
{
	uint8_t buf[sizeof(struct hcasw_hdr) + HCASW_MAX_FRAME];
	struct hcasw_hdr h = { .type = type, .len = (uint32_t)len };

	if (len > HCASW_MAX_FRAME)
		return -1;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), data, len);
	return send(g->sfd, buf, sizeof(h) + len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 ? -1 : 0;
}

/* The guest's address: from its ARP packets (sender) and IPv4 packets (source). */
static void learn(struct sq_guest *g, const uint8_t *f, size_t len)
{
	const uint8_t *mac = NULL, *ip = NULL;
	uint16_t type = get16(f + 12);
	static const uint8_t zero[4];
	struct hcasw_hello hello = { 0 };

	if (type == ETHERTYPE_ARP && len >= ETH_HLEN + ARP_LEN && get16(f + 14) == 1 &&
	    get16(f + 16) == ETHERTYPE_IPV4 && f[18] == 6 && f[19] == 4) {
		mac = f + 22;
		ip = f + 28;
	} else if (type == ETHERTYPE_IPV4 && len >= ETH_HLEN + 20 && (f[14] >> 4) == 4) {
		mac = f + 6;
		ip = f + 26;
	}
	if (!mac || (mac[0] & 1) || !memcmp(ip, zero, 4))
		return;
	if (g->learned && !memcmp(g->mac, mac, 6) && !memcmp(g->ipv4, ip, 4))
		return;
	memcpy(g->mac, mac, 6);
	memcpy(g->ipv4, ip, 4);
	g->learned = 1;
	memcpy(hello.mac, mac, 6);
	memcpy(hello.ipv4, ip, 4);
	snprintf(hello.name, sizeof(hello.name), "qemu%u", g->id);
	to_switch(g, HCASW_HELLO, &hello, sizeof(hello));
}

/* An ARP request of the guest: ask the switch's address service too. */
static void proxy_arp_request(struct sq_guest *g, const uint8_t *f, size_t len)
{
	struct hcasw_resolve q = { 0 };
	struct sq_arp *a;

	if (get16(f + 12) != ETHERTYPE_ARP || len < ETH_HLEN + ARP_LEN || get16(f + 14) != 1 ||
	    get16(f + 16) != ETHERTYPE_IPV4 || f[18] != 6 || f[19] != 4 ||
	    get16(f + 20) != ARP_REQUEST || !memcmp(f + 28, f + 38, 4))
		return;		/* not a request, or a gratuitous one */
	a = &g->arp[g->arp_next++ % SQ_ARP_PENDING];
	memcpy(a->target, f + 38, 4);
	memcpy(a->mac, f + 22, 6);
	memcpy(a->ipv4, f + 28, 4);
	a->used = 1;
	memcpy(q.ipv4, a->target, 4);
	to_switch(g, HCASW_RESOLVE, &q, sizeof(q));
}

static void from_guest(struct sq_guest *g, const uint8_t *f, size_t len)
{
	if (len < ETH_HLEN || len > HCASW_MAX_FRAME) {
		g->lost++;
		return;
	}
	learn(g, f, len);
	proxy_arp_request(g, f, len);
	if (to_switch(g, HCASW_FRAME, f, len))
		g->lost++;
	else
		g->from_guest++;
}

/* Read what QEMU sent; split the stream into records.  -1: connection over. */
static int guest_input(struct sq_guest *g)
{
	for (;;) {
		ssize_t n = recv(g->qfd, g->rx + g->rx_len, sizeof(g->rx) - g->rx_len, MSG_DONTWAIT);
		size_t off = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return -1;
		g->rx_len += (size_t)n;
		while (g->rx_len - off >= 4) {
			uint32_t flen = (uint32_t)get16(g->rx + off) << 16 | get16(g->rx + off + 2);

			if (flen > sizeof(g->rx) - 4) {
				fprintf(stderr, "hcasim switch: qemu%u: frame length %u, not QEMU's "
						"stream protocol; closing\n", g->id, flen);
				return -1;
			}
			if (g->rx_len - off < 4 + flen)
				break;
			from_guest(g, g->rx + off + 4, flen);
			off += 4 + flen;
		}
		memmove(g->rx, g->rx + off, g->rx_len - off);
		g->rx_len -= off;
	}
}

/* ---- toward the guest ------------------------------------------------------------------- */

/* Write the pending record; 0 when it is all out (or nothing was pending). */
static int flush(struct sq_guest *g)
{
	while (g->tx_off < g->tx_len) {
		ssize_t n = send(g->qfd, g->tx + g->tx_off, g->tx_len - g->tx_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return (errno == EAGAIN || errno == EWOULDBLOCK) ? 1 : -1;
		g->tx_off += (size_t)n;
	}
	g->tx_len = g->tx_off = 0;
	return 0;
}

static void to_guest(struct sq_guest *g, const uint8_t *f, size_t len)
{
	g->tx[0] = (uint8_t)(len >> 24);
	g->tx[1] = (uint8_t)(len >> 16);
	put16(g->tx + 2, (uint16_t)len);
	memcpy(g->tx + 4, f, len);
	g->tx_len = 4 + len;
	g->tx_off = 0;
	g->to_guest++;
}

/* The switch knows the address a proxied ARP request asked for: reply to the guest. */
static void arp_answer(struct sq_guest *g, const struct hcasw_resolve *a)
{
	uint8_t f[ETH_MIN_FRAME] = { 0 };

	if (!a->found)
		return;
	for (unsigned int i = 0; i < SQ_ARP_PENDING; i++) {
		struct sq_arp *r = &g->arp[i];

		if (!r->used || memcmp(r->target, a->ipv4, 4))
			continue;
		r->used = 0;
		memcpy(f, r->mac, 6);
		memcpy(f + 6, a->mac, 6);
		put16(f + 12, ETHERTYPE_ARP);
		put16(f + 14, 1);		/* hardware: Ethernet */
		put16(f + 16, ETHERTYPE_IPV4);
		f[18] = 6;
		f[19] = 4;
		put16(f + 20, ARP_REPLY);
		memcpy(f + 22, a->mac, 6);	/* sender: the owner of the address */
		memcpy(f + 28, a->ipv4, 4);
		memcpy(f + 32, r->mac, 6);	/* target: who asked */
		memcpy(f + 38, r->ipv4, 4);
		to_guest(g, f, sizeof(f));
		g->arp_answered++;
		return;
	}
}

/* Messages from the switch, while the guest's socket takes them.  -1: switch gone. */
static int switch_input(struct sq_guest *g)
{
	uint8_t buf[sizeof(struct hcasw_hdr) + HCASW_MAX_FRAME];

	while (g->tx_len == 0) {
		ssize_t n = recv(g->sfd, buf, sizeof(buf), MSG_DONTWAIT);
		struct hcasw_hdr h;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return -1;
		if ((size_t)n < sizeof(h))
			continue;
		memcpy(&h, buf, sizeof(h));
		if (h.len != (size_t)n - sizeof(h))
			continue;
		if (h.type == HCASW_FRAME) {
			to_guest(g, buf + sizeof(h), h.len);
		} else if (h.type == HCASW_ANSWER && h.len == sizeof(struct hcasw_resolve)) {
			struct hcasw_resolve a;

			memcpy(&a, buf + sizeof(h), sizeof(a));
			arp_answer(g, &a);
		}
		if (flush(g) < 0)
			return -1;
	}
	return 0;
}

/* ---- connections ------------------------------------------------------------------------ */

static void guest_report(const struct sq_guest *g, FILE *f)
{
	fprintf(f, "hcasim switch: qemu%u: %llu frames from the guest, %llu to it, "
		   "%llu ARP requests answered, %llu lost\n", g->id,
		(unsigned long long)g->from_guest, (unsigned long long)g->to_guest,
		(unsigned long long)g->arp_answered, (unsigned long long)g->lost);
}

static void guest_close(int i, FILE *report)
{
	struct sq_guest *g = sq.g[i];

	guest_report(g, report);
	close(g->qfd);
	close(g->sfd);
	free(g);
	sq.g[i] = NULL;
}

static void guest_accept(void)
{
	int qfd = accept4(sq.lfd, NULL, NULL, SOCK_CLOEXEC), sz = SQ_SOCKBUF, slot = -1;
	struct sockaddr_un sa;
	struct sq_guest *g;

	if (qfd < 0)
		return;
	for (int i = 0; i < SW_QEMU_MAX_GUESTS; i++)
		if (!sq.g[i]) {
			slot = i;
			break;
		}
	g = slot < 0 ? NULL : calloc(1, sizeof(*g));
	if (!g) {
		fprintf(stderr, "hcasim switch: qemu: %s, refusing a guest\n",
			slot < 0 ? "all QEMU ports used" : "out of memory");
		close(qfd);
		return;
	}
	g->qfd = qfd;
	g->id = sq.connections++;
	unix_addr(&sa, sq.switch_path);
	g->sfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (g->sfd >= 0) {
		setsockopt(g->sfd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
		setsockopt(g->sfd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	}
	setsockopt(qfd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(qfd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (g->sfd < 0 || connect(g->sfd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "hcasim switch: qemu%u: cannot join the switch: %s\n", g->id,
			strerror(errno));
		if (g->sfd >= 0)
			close(g->sfd);
		close(qfd);
		free(g);
		return;
	}
	sq.g[slot] = g;
	if (!sq.quiet)
		fprintf(stderr, "hcasim switch: qemu%u: guest connected\n", g->id);
}

unsigned int sw_qemu_pollfds(struct pollfd *pfd, unsigned int max)
{
	unsigned int n = 0;

	sq.npolled = 0;
	if (sq.lfd < 0 || max < SW_QEMU_POLLFDS)
		return 0;
	pfd[n] = (struct pollfd){ .fd = sq.lfd, .events = POLLIN };
	sq.polled[n++] = (struct sq_polled){ -1, sq.lfd };
	for (int i = 0; i < SW_QEMU_MAX_GUESTS; i++) {
		struct sq_guest *g = sq.g[i];

		if (!g)
			continue;
		pfd[n] = (struct pollfd){ .fd = g->qfd,
					  .events = (short)(POLLIN | (g->tx_len ? POLLOUT : 0)) };
		sq.polled[n++] = (struct sq_polled){ i, g->qfd };
		/* nothing from the switch while a record to the guest waits */
		pfd[n] = (struct pollfd){ .fd = g->sfd, .events = g->tx_len ? 0 : POLLIN };
		sq.polled[n++] = (struct sq_polled){ i, g->sfd };
	}
	sq.npolled = n;
	return n;
}

void sw_qemu_service(const struct pollfd *pfd, unsigned int n)
{
	if (n > sq.npolled)
		n = sq.npolled;
	for (unsigned int k = 0; k < n; k++) {
		int i = sq.polled[k].guest;
		struct sq_guest *g = i < 0 ? NULL : sq.g[i];
		int rc = 0;

		if (!(pfd[k].revents & (POLLIN | POLLOUT | POLLHUP | POLLERR)))
			continue;
		if (i < 0) {
			guest_accept();
			continue;
		}
		if (!g || pfd[k].fd != sq.polled[k].fd)
			continue;	/* closed while handling an earlier entry */
		if (pfd[k].fd == g->qfd) {
			if (pfd[k].revents & POLLOUT)
				rc = flush(g) < 0 ? -1 : 0;
			if (!rc && (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
				rc = guest_input(g);
		}
		if (!rc && (pfd[k].fd == g->sfd || !g->tx_len))
			rc = switch_input(g);
		if (rc) {
			if (!sq.quiet)
				fprintf(stderr, "hcasim switch: qemu%u: guest disconnected\n", g->id);
			guest_close(i, stderr);
		}
	}
}

void sw_qemu_close(FILE *report)
{
	for (int i = 0; i < SW_QEMU_MAX_GUESTS; i++)
		if (sq.g[i])
			guest_close(i, report);
	if (sq.lfd >= 0) {
		close(sq.lfd);
		unlink(sq.qemu_path);
	}
	sq.lfd = -1;
}
