// SPDX-License-Identifier: MIT
/*
 * A raw peer of `hcasim switch` for driver-shim/tests/shm.sh: speaks
 * swproto.h and writes/reads the shared-memory rings by the layout
 * shmring.h documents (its own code, not shmring.c), so the test checks the
 * switch against the documented protocol, and can hand it bad input.
 *
 *   shm_peer PATH send N MAC   [--socket]   HELLO as MAC, then N frames to the
 *                                           broadcast-free address 02:..:ff,
 *                                           ethertype 0x88b5, frame i = len
 *                                           60 + i % 300, bytes from i
 *   shm_peer PATH recv N MAC   [--socket]   HELLO as MAC; print "frame LEN HASH"
 *                                           per frame received until N came or
 *                                           2 s passed without one
 *   shm_peer PATH exit N MAC                HELLO as MAC, wait 0.3 s (the switch
 *                                           asleep), then N frames as `send` into
 *                                           the ring, published without waking the
 *                                           switch, and exit at once: the switch
 *                                           learns of them and of the hang-up in
 *                                           one poll round
 *   shm_peer PATH bad WHAT MAC              WHAT: oversized | truncated | wrap0
 *                                           (a bad record in the ring, then
 *                                           print "closed" when the switch
 *                                           closes the connection), unsealed |
 *                                           small | pipe (a bad segment, or a
 *                                           pipe for the eventfds: print
 *                                           "welcome without shm")
 *
 * --socket: no shared memory offered, one FRAME per message.  Prints
 * "shm" or "socket" once the WELCOME came (what the frames travel on).
 * Exit status 0 when the session went as described, 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "shmring.h"
#include "swproto.h"

#define RING (1u << 20)

static int sock = -1;
static uint8_t *seg;
static int efd_sw = -1, efd_me = -1;
static uint64_t rx_pos;

static struct shmring_ctl *ctl(int which)
{
	return &((struct shmring_seg *)(void *)seg)->ctl[which];
}

static uint8_t *data(int which)
{
	return seg + 4096 + (size_t)which * RING;
}

/* Create the segment (sealed unless `unsealed`), with ring_bytes as given. */
static int make_seg(int sealed, uint64_t ring_bytes)
{
	int fd = memfd_create("shm-peer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	uint32_t magic = SHMRING_MAGIC, version = SHMRING_VERSION;

	if (fd < 0 || ftruncate(fd, 4096 + 2 * RING))
		return -1;
	if (sealed && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW))
		return -1;
	seg = mmap(NULL, 4096 + 2 * RING, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (seg == MAP_FAILED)
		return -1;
	memcpy(seg, &magic, 4);
	memcpy(seg + 4, &version, 4);
	memcpy(seg + 8, &ring_bytes, 8);
	return fd;
}

static int hello(const uint8_t mac[6], int fds[3], unsigned int nfds, int frames)
{
	struct {
		struct hcasw_hdr h;
		struct hcasw_hello b;
	} m = { .h = { .type = HCASW_HELLO, .len = sizeof(struct hcasw_hello) } };
	struct iovec iov = { &m, sizeof(m) };
	union {
		struct cmsghdr c;
		uint8_t b[CMSG_SPACE(3 * sizeof(int))];
	} c;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	memcpy(m.b.mac, mac, 6);
	m.b.flags = (frames ? HCASW_HELLO_FRAMES : 0) | (nfds ? HCASW_HELLO_SHM : 0);
	m.b.ipv4[0] = 10;
	m.b.ipv4[3] = mac[5];
	snprintf(m.b.name, sizeof(m.b.name), "shm_peer");
	if (nfds) {
		mh.msg_control = c.b;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c.c.cmsg_level = SOL_SOCKET;
		c.c.cmsg_type = SCM_RIGHTS;
		c.c.cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(&c.c), fds, nfds * sizeof(int));
	}
	return sendmsg(sock, &mh, 0) < 0 ? -1 : 0;
}

/* The WELCOME's flags, or -1 (refused, closed, nothing in 5 s). */
static int welcome(void)
{
	uint8_t buf[sizeof(struct hcasw_hdr) + HCASW_MAX_FRAME];
	struct pollfd p = { .fd = sock, .events = POLLIN };

	while (poll(&p, 1, 5000) > 0) {
		struct hcasw_hdr h;
		struct hcasw_welcome w;
		ssize_t n = recv(sock, buf, sizeof(buf), 0);

		if (n <= 0)
			return -1;
		memcpy(&h, buf, sizeof(h));
		if (h.type != HCASW_WELCOME || (size_t)n != sizeof(h) + sizeof(w))
			continue;
		memcpy(&w, buf + sizeof(h), sizeof(w));
		return w.status ? -1 : (int)w.flags;
	}
	return -1;
}

/* Wait for the switch to close the connection (up to 5 s): 0 when it did. */
static int wait_closed(void)
{
	uint8_t buf[256];
	struct pollfd p = { .fd = sock, .events = POLLIN };

	while (poll(&p, 1, 5000) > 0)
		if (recv(sock, buf, sizeof(buf), 0) <= 0)
			return 0;
	return -1;
}

static int no_wake;	/* `exit`: publish without waking the switch */

/* Append a record (len, raw bytes) at byte pos of ring 0; publish; wake a sleeping switch. */
static void ring_put(uint64_t *pos, uint32_t len, const uint8_t *f, size_t flen)
{
	uint32_t z = 0;
	uint64_t one = 1, need = 8 + ((flen + 7) & ~(size_t)7);

	while (*pos + need - atomic_load(&ctl(0)->head) > RING)
		usleep(100);
	memcpy(data(0) + (*pos % RING), &len, 4);
	memcpy(data(0) + (*pos % RING) + 4, &z, 4);
	memcpy(data(0) + (*pos % RING) + 8, f, flen);
	*pos += need;
	atomic_store(&ctl(0)->tail, *pos);
	if (!no_wake && atomic_exchange(&ctl(0)->sleeping, 0))
		(void)!write(efd_sw, &one, 8);
}

static void frame_of(uint8_t *f, unsigned int i, size_t len, const uint8_t src[6])
{
	static const uint8_t dst[6] = { 2, 0, 0, 0, 0, 0xff };

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x88;
	f[13] = 0xb5;
	for (size_t k = 14; k < len; k++)
		f[k] = (uint8_t)(i * 7 + k);
	memcpy(f + 14, &i, 4);
}

static int do_send(unsigned int n, const uint8_t mac[6], int shm)
{
	uint8_t f[400];
	uint64_t pos = 0;

	for (unsigned int i = 0; i < n; i++) {
		size_t len = 60 + i % 300;

		frame_of(f, i, len, mac);
		if (shm) {
			/* a record that would run past the end: the wrap mark, then offset 0 */
			uint64_t need = 8 + ((len + 7) & ~(size_t)7), off = pos % RING;

			if (need > RING - off) {
				uint32_t wrap = SHMRING_WRAP;

				while (pos + (RING - off) + need - atomic_load(&ctl(0)->head) > RING)
					usleep(100);
				memcpy(data(0) + off, &wrap, 4);
				pos += RING - off;
			}
			ring_put(&pos, (uint32_t)len, f, len);
		} else {
			struct hcasw_hdr h = { .type = HCASW_FRAME, .len = (uint32_t)len };
			uint8_t m[sizeof(h) + sizeof(f)];

			memcpy(m, &h, sizeof(h));
			memcpy(m + sizeof(h), f, len);
			if (send(sock, m, sizeof(h) + len, 0) < 0)
				return 1;
		}
		if (i % 50 == 49 && !no_wake)
			usleep(2000);	/* (the receiver's queue is not the subject) */
	}
	if (!no_wake)
		usleep(200000);	/* let the switch take everything before we leave */
	return 0;
}

static uint64_t fnv(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/* The next frame from the ring toward us, by the documented layout; NULL if none. */
static const uint8_t *ring_next(size_t *len)
{
	uint64_t tail = atomic_load(&ctl(1)->tail);
	uint32_t l;

	for (;;) {
		if (rx_pos == tail)
			return NULL;
		memcpy(&l, data(1) + rx_pos % RING, 4);
		if (l != SHMRING_WRAP)
			break;
		rx_pos += RING - rx_pos % RING;
	}
	*len = l;
	rx_pos += 8 + ((l + 7) & ~(uint64_t)7);
	return data(1) + (rx_pos - 8 - ((l + 7) & ~(uint64_t)7)) % RING + 8;
}

static int do_recv(unsigned int n, int shm)
{
	uint8_t buf[sizeof(struct hcasw_hdr) + HCASW_MAX_FRAME];
	unsigned int got = 0;

	while (got < n) {
		struct pollfd p = { .fd = shm ? efd_me : sock, .events = POLLIN };
		const uint8_t *f;
		size_t len;

		if (shm) {
			while (got < n && (f = ring_next(&len))) {
				printf("frame %zu %016llx\n", len, (unsigned long long)fnv(f, len));
				got++;
			}
			atomic_store(&ctl(1)->head, rx_pos);
			if (got == n)
				break;
			atomic_store(&ctl(1)->sleeping, 1);
			if (rx_pos != atomic_load(&ctl(1)->tail))
				continue;
		}
		if (poll(&p, 1, 2000) <= 0)
			break;
		if (shm) {
			uint64_t v;

			(void)!read(efd_me, &v, 8);
		} else {
			struct hcasw_hdr h;
			ssize_t r = recv(sock, buf, sizeof(buf), 0);

			if (r <= 0)
				break;
			memcpy(&h, buf, sizeof(h));
			if (h.type != HCASW_FRAME || (size_t)r != sizeof(h) + h.len)
				continue;
			printf("frame %u %016llx\n", h.len,
			       (unsigned long long)fnv(buf + sizeof(h), h.len));
			got++;
		}
	}
	fprintf(stderr, "shm_peer: %u frames received\n", got);
	return 0;
}

static int do_bad(const char *what)
{
	uint8_t f[64] = { 2, 0, 0, 0, 0, 0xff };
	uint64_t pos = 0;

	if (!strcmp(what, "oversized")) {
		ring_put(&pos, HCASW_MAX_FRAME + 1, f, 64);
	} else if (!strcmp(what, "truncated")) {
		/* a record of 1000 bytes announced, 64 published */
		ring_put(&pos, 1000, f, 64);
	} else if (!strcmp(what, "wrap0")) {
		ring_put(&pos, SHMRING_WRAP, f, 0);
	} else {
		return 1;
	}
	if (wait_closed())
		return 1;
	printf("closed\n");
	return 0;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int m[6];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)m[i];
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int socket_only = argc > 5 && !strcmp(argv[5], "--socket");
	int fds[3], nfds = 0, flags, bad_seg;
	uint8_t mac[6];

	if (argc < 5 || strlen(argv[1]) >= sizeof(sa.sun_path) || parse_mac(argv[4], mac)) {
		fprintf(stderr, "usage: shm_peer PATH send|recv N MAC [--socket] | PATH bad WHAT MAC\n");
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	sock = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (sock < 0 || connect(sock, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("shm_peer: connect");
		return 1;
	}
	bad_seg = !strcmp(argv[2], "bad") && (!strcmp(argv[3], "unsealed") || !strcmp(argv[3], "small") ||
					       !strcmp(argv[3], "pipe"));
	if (!socket_only) {
		fds[0] = make_seg(strcmp(argv[3], "unsealed"), strcmp(argv[3], "small") ? RING : 1024);
		efd_sw = eventfd(0, EFD_NONBLOCK);
		efd_me = eventfd(0, EFD_NONBLOCK);
		fds[1] = efd_sw;
		fds[2] = efd_me;
		if (!strcmp(argv[3], "pipe") && pipe(fds + 1))
			return 1;
		nfds = fds[0] >= 0 && efd_sw >= 0 && efd_me >= 0 ? 3 : 0;
	}
	if (hello(mac, fds, (unsigned int)nfds, 0) || (flags = welcome()) < 0) {
		fprintf(stderr, "shm_peer: no WELCOME\n");
		return 1;
	}
	printf("%s\n", flags & HCASW_WELCOME_SHM ? "shm" : "socket");
	fflush(stdout);
	if (bad_seg) {
		if (flags & HCASW_WELCOME_SHM)
			return 1;
		printf("welcome without shm\n");
		return 0;
	}
	if (!strcmp(argv[2], "send"))
		return do_send((unsigned int)atoi(argv[3]), mac, flags & HCASW_WELCOME_SHM);
	if (!strcmp(argv[2], "recv"))
		return do_recv((unsigned int)atoi(argv[3]), flags & HCASW_WELCOME_SHM);
	if (!strcmp(argv[2], "exit")) {
		if (!(flags & HCASW_WELCOME_SHM))
			return 1;
		usleep(300000);
		no_wake = 1;
		return do_send((unsigned int)atoi(argv[3]), mac, 1);	/* (and exit: the hang-up) */
	}
	if (!strcmp(argv[2], "bad"))
		return (flags & HCASW_WELCOME_SHM) ? do_bad(argv[3]) : 1;
	return 2;
}
