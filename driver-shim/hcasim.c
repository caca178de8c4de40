// SPDX-License-Identifier: MIT
/*
 * hcasim: run verbs programs on simulated HCAs, and connect them.
 *
 *   hcasim run [options] -- PROGRAM [ARGS...]
 *       Run PROGRAM with the driver shim preloaded over libibverbs, on one
 *       simulated HCA described by the options (docs/shim.md).
 *
 *   hcasim switch [options] PATH
 *       A learning Ethernet switch on the Unix socket PATH joining the HCAs
 *       of several `hcasim run` processes, with seeded fault injection
 *       (sim/wire) and pcap capture of the frames it forwards (sim/pcap).
 *       Runs until SIGINT/SIGTERM, then prints its counters.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "hcasim/hca_spec.h"
#include "swproto.h"
#include "wire.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hcasim run [--ip ADDR] [--mac MAC] [--backend NAME] [--switch PATH]\n"
		"                  [--name DEV] [--seed N] [--config FILE] [--debug[=LEVEL]]\n"
		"                  [--coop] [--pcap FILE] [--options K=V,...] [--width 64|512]\n"
		"                  [--trace FILE.fst [--trace-from CYCLE] [--trace-to CYCLE]] [--slowdown N]\n"
		"                  -- PROGRAM [ARGS...]\n"
		"       hcasim switch [--seed N] [--drop P] [--dup P] [--reorder P] [--corrupt P]\n"
		"                     [--jitter P] [--latency CYCLES] [--fault-frames FIRST:LAST]\n"
		"                     [--pcap FILE] [--pcap-out FILE] [--quiet] PATH\n"
		"       (--quiet: no per-connection messages; the final counters are always printed)\n"
		"       hcasim help\n"
		"See docs/shim.md.\n");
}

/* ---- run ----------------------------------------------------------------------------- */

static int find_shim(char *out, size_t len)
{
	const char *env = getenv("HCASIM_LIB");
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return access(out, R_OK) ? -1 : 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	/* build/bin/hcasim -> build/lib/libhcasim-verbs.so */
	if (strlen(exe) + sizeof("/../lib/libhcasim-verbs.so") > len)
		return -1;
	strcpy(out, exe);
	strcat(out, "/../lib/libhcasim-verbs.so");
	return access(out, R_OK) ? -1 : 0;
}

static int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ip", required_argument, NULL, 'i' },
		{ "mac", required_argument, NULL, 'm' },
		{ "backend", required_argument, NULL, 'b' },
		{ "switch", required_argument, NULL, 's' },
		{ "name", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 'S' },
		{ "config", required_argument, NULL, 'c' },
		{ "debug", optional_argument, NULL, 'd' },
		{ "coop", no_argument, NULL, 'C' },
		{ "pcap", required_argument, NULL, 'P' },
		{ "options", required_argument, NULL, 'o' },
		{ "width", required_argument, NULL, 'w' },
		{ "trace", required_argument, NULL, 't' },
		{ "trace-from", required_argument, NULL, 'F' },
		{ "trace-to", required_argument, NULL, 'T' },
		{ "slowdown", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	char lib[PATH_MAX], preload[2 * PATH_MAX];
	const char *old;
	uint32_t ip;
	uint8_t mac[6];
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (shim_parse_ipv4(optarg, &ip)) {
				fprintf(stderr, "hcasim run: bad --ip %s\n", optarg);
				return 2;
			}
			setenv("HCASIM_IP", optarg, 1);
			break;
		case 'm':
			if (shim_parse_mac(optarg, mac)) {
				fprintf(stderr, "hcasim run: bad --mac %s\n", optarg);
				return 2;
			}
			setenv("HCASIM_MAC", optarg, 1);
			break;
		case 'b':
			setenv("HCASIM_BACKEND", optarg, 1);
			break;
		case 's':
			setenv("HCASIM_SWITCH", optarg, 1);
			break;
		case 'n':
			setenv("HCASIM_DEVICE", optarg, 1);
			break;
		case 'S':
			setenv("HCASIM_SEED", optarg, 1);
			break;
		case 'c':
			setenv("HCASIM_CONFIG", optarg, 1);
			break;
		case 'd':
			setenv("HCASIM_DEBUG", optarg ? optarg : "1", 1);
			break;
		case 'C':
			setenv("HCASIM_MODE", "cooperative", 1);
			break;
		case 'P':
			setenv("HCASIM_PCAP", optarg, 1);
			break;
		case 'o':
			setenv("HCASIM_OPTIONS", optarg, 1);
			break;
		case 'w':
			if (strcmp(optarg, "64") && strcmp(optarg, "512")) {
				fprintf(stderr, "hcasim run: --width is 64 or 512, not %s\n", optarg);
				return 2;
			}
			setenv("HCASIM_WIDTH", optarg, 1);
			break;
		case 't':
			setenv("HCASIM_TRACE", optarg, 1);
			break;
		case 'F':
			setenv("HCASIM_TRACE_FROM", optarg, 1);
			break;
		case 'T':
			setenv("HCASIM_TRACE_TO", optarg, 1);
			break;
		case 'D':
			setenv("HCASIM_SLOWDOWN", optarg, 1);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "hcasim run: no program given\n");
		usage(stderr);
		return 2;
	}
	if (find_shim(lib, sizeof(lib))) {
		fprintf(stderr, "hcasim run: cannot find libhcasim-verbs.so (build it with `make`, "
				"or set HCASIM_LIB)\n");
		return 1;
	}
	old = getenv("LD_PRELOAD");
	snprintf(preload, sizeof(preload), "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
	setenv("LD_PRELOAD", preload, 1);
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "hcasim run: cannot run %s: %s\n", argv[optind], strerror(errno));
	return 127;
}

/* ---- switch ------------------------------------------------------------------------------ */

#define SW_MAX_PORTS 64
#define SW_SOCKBUF (4 << 20)

struct sw_port {
	int fd;			/* -1 once disconnected */
	int wire_port;
	int hello;
	int frames;		/* the HCA takes FRAMES messages (HELLO flags) */
	uint8_t mac[6];
	uint8_t ipv4[4];
	char name[33];
	uint64_t rx_frames, tx_frames, tx_lost;
	/* FRAMES message being filled for this port: header + records */
	uint8_t *out;
	size_t out_used;	/* body bytes */
	unsigned int out_n;	/* frames in it */
};

static struct sw_port ports[SW_MAX_PORTS];
/* Fault window (--fault-frames): the rates apply to input frames FIRST..LAST. */
static struct wire_faults sw_faults;
static uint64_t sw_fault_first, sw_fault_last = UINT64_MAX, sw_frames_in;
static unsigned int nports;
static volatile sig_atomic_t stop;
static struct timespec t0;
static int quiet;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_cycles(void)
{
	struct timespec t;
	uint64_t ns;

	clock_gettime(CLOCK_MONOTONIC, &t);
	ns = (uint64_t)(t.tv_sec - t0.tv_sec) * 1000000000ull + (uint64_t)t.tv_nsec -
	     (uint64_t)t0.tv_nsec;
	return ns / (1000000000ull / HCA_CLK_HZ);
}

static int sw_send(struct sw_port *p, uint16_t type, const void *data, size_t len)
{
	uint8_t buf[sizeof(struct hcasw_hdr) + HCASW_MAX_FRAME];
	struct hcasw_hdr h = { .type = type, .len = (uint32_t)len };

	if (p->fd < 0 || len > HCASW_MAX_FRAME)
		return -1;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), data, len);
	/* Never block: a port that cannot take the frame loses it, like a full egress queue. */
	if (send(p->fd, buf, sizeof(h) + len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		p->tx_lost++;
		return -1;
	}
	return 0;
}

/* Send the port's FRAMES message (never blocking: a full port loses all of it). */
static void out_flush(struct sw_port *p)
{
	struct hcasw_hdr h = { .type = HCASW_FRAMES, .len = (uint32_t)p->out_used };

	if (!p->out_n)
		return;
	memcpy(p->out, &h, sizeof(h));
	if (p->fd >= 0 && send(p->fd, p->out, sizeof(h) + p->out_used, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
		p->tx_frames += p->out_n;
	else
		p->tx_lost += p->out_n;
	p->out_used = 0;
	p->out_n = 0;
}

static void wire_rx(void *ctx, unsigned int port, const uint8_t *frame, size_t len, uint64_t now)
{
	struct sw_port *p = ctx;
	uint8_t *body;

	(void)port;
	(void)now;
	/* An HCA that takes FRAMES gets what a poll round has for it in one message. */
	if (p->frames && (p->out || (p->out = malloc(sizeof(struct hcasw_hdr) + HCASW_MAX_MSG)))) {
		body = p->out + sizeof(struct hcasw_hdr);
		if (hcasw_frames_put(body, &p->out_used, HCASW_MAX_MSG, frame, len)) {
			out_flush(p);
			if (hcasw_frames_put(body, &p->out_used, HCASW_MAX_MSG, frame, len)) {
				p->tx_lost++;
				return;
			}
		}
		p->out_n++;
		return;
	}
	if (!sw_send(p, HCASW_FRAME, frame, len))
		p->tx_frames++;
}

static void answer(struct sw_port *from, const struct hcasw_resolve *q)
{
	struct hcasw_resolve a = *q;

	a.found = 0;
	for (unsigned int i = 0; i < nports; i++)
		if (ports[i].hello && !memcmp(ports[i].ipv4, q->ipv4, 4)) {
			a.found = 1;
			memcpy(a.mac, ports[i].mac, 6);
			break;
		}
	sw_send(from, HCASW_ANSWER, &a, sizeof(a));
}

/* One frame from port p into the wire (in a FRAME message or a FRAMES record). */
static void frame_in(struct wire *w, struct sw_port *p, const uint8_t *frame, size_t len)
{
	if (sw_frames_in == sw_fault_first && sw_fault_first > 0)
		wire_set_faults(w, &sw_faults);
	if (sw_frames_in == sw_fault_last + 1) {
		struct wire_faults none = { 0 };

		wire_set_faults(w, &none);
	}
	sw_frames_in++;
	p->rx_frames++;
	wire_send(w, (unsigned int)p->wire_port, frame, len, now_cycles());
}

static void port_input(struct wire *w, struct sw_port *p)
{
	static uint8_t buf[sizeof(struct hcasw_hdr) + HCASW_MAX_MSG];

	for (;;) {
		ssize_t n = recv(p->fd, buf, sizeof(buf), MSG_DONTWAIT);
		struct hcasw_hdr h;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			if (!quiet)
				fprintf(stderr, "hcasim switch: port %d (%s) disconnected\n",
					p->wire_port, p->name[0] ? p->name : "?");
			close(p->fd);
			p->fd = -1;
			return;
		}
		if ((size_t)n < sizeof(h))
			continue;
		memcpy(&h, buf, sizeof(h));
		if (h.len != (size_t)n - sizeof(h))
			continue;
		switch (h.type) {
		case HCASW_HELLO: {
			struct hcasw_hello hello;

			if (h.len != sizeof(hello))
				break;
			memcpy(&hello, buf + sizeof(h), sizeof(hello));
			memcpy(p->mac, hello.mac, 6);
			memcpy(p->ipv4, hello.ipv4, 4);
			memcpy(p->name, hello.name, sizeof(hello.name));
			p->name[32] = '\0';
			p->hello = 1;
			p->frames = !!(hello.flags & HCASW_HELLO_FRAMES);
			{
				struct hcasw_caps caps = { .flags = HCASW_CAPS_FRAMES };

				sw_send(p, HCASW_CAPS, &caps, sizeof(caps));
			}
			if (!quiet)
				fprintf(stderr,
					"hcasim switch: port %d: %s %02x:%02x:%02x:%02x:%02x:%02x %u.%u.%u.%u\n",
					p->wire_port, p->name, p->mac[0], p->mac[1], p->mac[2], p->mac[3],
					p->mac[4], p->mac[5], p->ipv4[0], p->ipv4[1], p->ipv4[2], p->ipv4[3]);
			break;
		}
		case HCASW_FRAME:
			if (h.len <= HCASW_MAX_FRAME)
				frame_in(w, p, buf + sizeof(h), h.len);
			break;
		case HCASW_FRAMES: {
			const uint8_t *f;
			size_t off = 0, flen;

			while ((f = hcasw_frames_next(buf + sizeof(h), h.len, &off, &flen)))
				frame_in(w, p, f, flen);
			break;
		}
		case HCASW_RESOLVE:
			if (h.len == sizeof(struct hcasw_resolve)) {
				struct hcasw_resolve q;

				memcpy(&q, buf + sizeof(h), sizeof(q));
				answer(p, &q);
			}
			break;
		}
	}
}

static int parse_prob(const char *opt, const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (*end || v < 0.0 || v > 1.0) {
		fprintf(stderr, "hcasim switch: --%s wants a probability 0..1, got %s\n", opt, s);
		return -1;
	}
	*out = v;
	return 0;
}

static int cmd_switch(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 'S' },
		{ "drop", required_argument, NULL, 'D' },
		{ "dup", required_argument, NULL, 'U' },
		{ "reorder", required_argument, NULL, 'R' },
		{ "corrupt", required_argument, NULL, 'X' },
		{ "jitter", required_argument, NULL, 'J' },
		{ "latency", required_argument, NULL, 'L' },
		{ "pcap", required_argument, NULL, 'p' },
		{ "pcap-out", required_argument, NULL, 'o' },
		{ "fault-frames", required_argument, NULL, 'F' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t fault_first = 0, fault_last = UINT64_MAX, frames_in = 0;
	struct wire_faults faults, none = { 0 };
	struct wire_config wc = { .mode = WIRE_SWITCH, .max_ports = SW_MAX_PORTS, .latency = 250,
				  .seed = 1 };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct wire_stats st;
	struct sigaction sig = { .sa_handler = on_signal };
	const char *path;
	struct wire *w;
	int lfd, c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'S':
			wc.seed = strtoull(optarg, NULL, 0);
			break;
		case 'D':
			if (parse_prob("drop", optarg, &wc.faults.drop))
				return 2;
			break;
		case 'U':
			if (parse_prob("dup", optarg, &wc.faults.dup))
				return 2;
			break;
		case 'R':
			if (parse_prob("reorder", optarg, &wc.faults.reorder))
				return 2;
			break;
		case 'X':
			if (parse_prob("corrupt", optarg, &wc.faults.corrupt))
				return 2;
			break;
		case 'J':
			if (parse_prob("jitter", optarg, &wc.faults.jitter))
				return 2;
			break;
		case 'L':
			wc.latency = strtoull(optarg, NULL, 0);
			break;
		case 'p':
			wc.pcap_tx = optarg;
			break;
		case 'o':
			wc.pcap_rx = optarg;
			break;
		case 'F': {
			unsigned long long a, b;
			char tail;

			if (sscanf(optarg, "%llu:%llu%c", &a, &b, &tail) != 2 || a > b) {
				fprintf(stderr, "hcasim switch: --fault-frames wants FIRST:LAST\n");
				return 2;
			}
			fault_first = a;
			fault_last = b;
			break;
		}
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	/* Faults apply to the frames numbered FIRST..LAST (counting from 0) only. */
	faults = wc.faults;
	if (fault_first > 0)
		wc.faults = none;
	sw_faults = faults;
	sw_fault_first = fault_first;
	sw_fault_last = fault_last;
	(void)frames_in;
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	path = argv[optind];
	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "hcasim switch: socket path too long\n");
		return 2;
	}
	strcpy(sa.sun_path, path);

	w = wire_create(&wc);
	if (!w) {
		fprintf(stderr, "hcasim switch: cannot create the wire: %s\n", strerror(errno));
		return 1;
	}
	lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	unlink(path);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 16)) {
		fprintf(stderr, "hcasim switch: cannot listen on %s: %s\n", path, strerror(errno));
		wire_destroy(w);
		return 1;
	}
	sigaction(SIGINT, &sig, NULL);
	sigaction(SIGTERM, &sig, NULL);
	signal(SIGPIPE, SIG_IGN);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!quiet)
		fprintf(stderr, "hcasim switch: listening on %s (seed %llu, drop %g, dup %g, reorder %g, "
				"corrupt %g)%s%s\n", path, (unsigned long long)wc.seed, wc.faults.drop,
			wc.faults.dup, wc.faults.reorder, wc.faults.corrupt,
			wc.pcap_tx ? ", capturing to " : "", wc.pcap_tx ? wc.pcap_tx : "");

	while (!stop) {
		struct pollfd pfd[SW_MAX_PORTS + 1];
		unsigned int idx[SW_MAX_PORTS + 1], n = 0;
		uint64_t ne, now;
		int timeout = 100;

		pfd[n] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		idx[n++] = UINT32_MAX;
		for (unsigned int i = 0; i < nports; i++)
			if (ports[i].fd >= 0) {
				pfd[n] = (struct pollfd){ .fd = ports[i].fd, .events = POLLIN };
				idx[n++] = i;
			}
		now = now_cycles();
		ne = wire_next_event(w);
		if (ne != UINT64_MAX)
			timeout = ne <= now ? 0 : (int)((ne - now) / (HCA_CLK_HZ / 1000)) + 1;
		if (timeout > 100)
			timeout = 100;
		if (poll(pfd, n, timeout) < 0 && errno != EINTR)
			break;
		for (unsigned int k = 0; k < n; k++) {
			if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (idx[k] == UINT32_MAX) {
				int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
				int sz = SW_SOCKBUF, wp;

				if (fd < 0)
					continue;
				if (nports >= SW_MAX_PORTS ||
				    (wp = wire_attach(w, wire_rx, &ports[nports])) < 0) {
					fprintf(stderr, "hcasim switch: all %d ports used, refusing\n",
						SW_MAX_PORTS);
					close(fd);
					continue;
				}
				setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
				setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
				ports[nports] = (struct sw_port){ .fd = fd, .wire_port = wp };
				nports++;
			} else {
				port_input(w, &ports[idx[k]]);
			}
		}
		wire_deliver(w, now_cycles());
		for (unsigned int i = 0; i < nports; i++)
			out_flush(&ports[i]);
	}

	/* Deliver what is still in flight, then report. */
	wire_deliver(w, UINT64_MAX - 1);
	for (unsigned int i = 0; i < nports; i++) {
		out_flush(&ports[i]);
		free(ports[i].out);
	}
	wire_get_stats(w, &st);
	{
		uint64_t lost = 0;

		for (unsigned int i = 0; i < nports; i++)
			lost += ports[i].tx_lost;
		fprintf(stderr,
			"hcasim switch: %llu frames in, %llu delivered, %llu dropped, %llu duplicated, "
			"%llu reordered, %llu corrupted, %llu flooded, %llu lost to full ports\n",
			(unsigned long long)st.sent, (unsigned long long)st.delivered,
			(unsigned long long)st.dropped, (unsigned long long)st.duplicated,
			(unsigned long long)st.reordered, (unsigned long long)st.corrupted,
			(unsigned long long)st.flooded, (unsigned long long)lost);
		if (wc.pcap_tx)
			fprintf(stderr, "hcasim switch: %llu frames captured in %s\n",
				(unsigned long long)st.sent, wc.pcap_tx);
	}
	wire_destroy(w);
	for (unsigned int i = 0; i < nports; i++)
		if (ports[i].fd >= 0)
			close(ports[i].fd);
	close(lfd);
	unlink(path);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "switch"))
		return cmd_switch(argc - 1, argv + 1);
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "hcasim: unknown command %s\n", argv[1]);
	usage(stderr);
	return 2;
}
