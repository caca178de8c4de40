// SPDX-License-Identifier: MIT
/*
 * `hcasim switch [options] PATH`: a learning Ethernet switch joining the
 * HCAs of several `hcasim run` processes (and any other port kind, switch.h),
 * with seeded fault injection (sim/wire) and pcap capture of the frames it
 * forwards (sim/pcap).  Runs until SIGINT/SIGTERM, then prints its counters.
 * This file is the core: ports, the address table, the fault window, the
 * poll loop and the command line.  Behaviour: docs/shim.md.
 */
#include "switch.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "hcasim/hca_spec.h"
#include "hcasim_cmd.h"
#include "sw_qemu.h"
#include "cpu_relax.h"
#include "wire.h"

#define SW_MAX_LISTEN 4
#define SW_NS_PER_CYCLE (1000000000u / HCA_CLK_HZ)
#define SW_MAX_SLEEP_NS 100000000u	/* 100 ms: the longest sleep in poll() */
#define SW_TIMER_SLACK_NS 1000		/* wake-ups for deliveries due within microseconds */
/*
 * A delivery due this soon is waited for on the CPU, watching the rings, not
 * in ppoll(): going to sleep and being woken by the timer costs more CPU (two
 * context switches) than the wait itself, and on a busy machine the wake-up
 * can come much later than the deadline.  The default latency (250 cycles, 1
 * us) is always waited for this way.
 */
#define SW_SPIN_NS 20000u

int sw_quiet;
int sw_no_shm;

static struct sw_port ports[SW_MAX_PORTS];
static struct {
	int fd;
	void (*accept)(int fd);
} listeners[SW_MAX_LISTEN];
static unsigned int nlisteners;
static struct wire *wire;
static uint64_t lost_departed;	/* tx_lost of ports that have closed */
/* Fault window (--fault-frames): the rates apply to input frames FIRST..LAST. */
static struct wire_faults sw_faults;
static uint64_t sw_fault_first, sw_fault_last = UINT64_MAX, sw_frames_in;
static volatile sig_atomic_t stop;
static struct timespec t0;
/* The cycle of this poll round's input: the frames a round takes arrived together. */
static uint64_t round_now;

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

/* ---- ports --------------------------------------------------------------------------- */

int sw_listen(int fd, void (*accept)(int fd))
{
	if (nlisteners >= SW_MAX_LISTEN)
		return -ENOSPC;
	listeners[nlisteners].fd = fd;
	listeners[nlisteners].accept = accept;
	nlisteners++;
	return 0;
}

/* The wire delivers a copy to port p. */
static void wire_rx(void *ctx, unsigned int port, const uint8_t *frame, size_t len, uint64_t now)
{
	struct sw_port *p = ctx;

	(void)port;
	(void)now;
	if (!p->ops->output(p, frame, len))
		p->tx_frames++;
	else
		p->tx_lost++;
}

struct sw_port *sw_port_open(int fd, const struct sw_port_ops *ops)
{
	for (unsigned int i = 0; i < SW_MAX_PORTS; i++) {
		struct sw_port *p = &ports[i];
		int id;

		if (p->ops)
			continue;
		id = wire_attach(wire, wire_rx, p);
		if (id < 0)
			break;
		*p = (struct sw_port){ .ops = ops, .fd = fd, .wake_fd = -1, .id = id };
		return p;
	}
	fprintf(stderr, "hcasim switch: all %d ports in use, refusing a %s peer\n", SW_MAX_PORTS,
		ops->kind);
	close(fd);
	return NULL;
}

void sw_port_close(struct sw_port *p)
{
	if (!p->ops)
		return;
	if (!sw_quiet)
		fprintf(stderr, "hcasim switch: port %d (%s) disconnected\n", p->id,
			p->name[0] ? p->name : p->ops->kind);
	if (p->ops->closing)
		p->ops->closing(p);
	wire_detach(wire, (unsigned int)p->id);
	lost_departed += p->tx_lost;
	close(p->fd);
	memset(p, 0, sizeof(*p));
	p->fd = -1;
	p->wake_fd = -1;
}

static void fault_window(void)
{
	if (sw_frames_in == sw_fault_first && sw_fault_first > 0)
		wire_set_faults(wire, &sw_faults);
	/* LAST = UINT64_MAX (the default) has no frame after it. */
	if (sw_fault_last != UINT64_MAX && sw_frames_in == sw_fault_last + 1) {
		struct wire_faults none = { 0 };

		wire_set_faults(wire, &none);
	}
}

void sw_port_frame_in(struct sw_port *p, const uint8_t *frame, size_t len)
{
	fault_window();
	sw_frames_in++;
	p->rx_frames++;
	wire_send(wire, (unsigned int)p->id, frame, len, round_now);
}

static void fmt_mac(char *s, const uint8_t m[6])
{
	sprintf(s, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

static void fmt_ipv4(char *s, uint32_t ip)
{
	sprintf(s, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xff, (ip >> 8) & 0xff, ip & 0xff);
}

/* Is the owner still there?  A peer that just hung up is closed first. */
static int alive(struct sw_port *q)
{
	struct pollfd pf = { .fd = q->fd, .events = POLLIN };

	if (poll(&pf, 1, 0) > 0 && (pf.revents & (POLLHUP | POLLERR)))
		q->ops->input(q);	/* takes what it sent, then closes it */
	return q->ops != NULL;
}

int sw_port_register(struct sw_port *p, const uint8_t mac[6], uint32_t ipv4, const char *name,
		     char *why, size_t whylen)
{
	char m[18], ip[16], om[18], oip[16];

	fmt_mac(m, mac);
	fmt_ipv4(ip, ipv4);
	for (unsigned int i = 0; i < SW_MAX_PORTS; i++) {
		struct sw_port *q = &ports[i];
		int same_ip, same_mac;

		if (q == p || !q->ops || !q->registered)
			continue;
		same_ip = ipv4 && q->ipv4 == ipv4;
		same_mac = !memcmp(q->mac, mac, 6);
		if ((!same_ip && !same_mac) || !alive(q))
			continue;
		fmt_mac(om, q->mac);
		fmt_ipv4(oip, q->ipv4);
		if (same_ip)
			snprintf(why, whylen, "address %s is in use by port %d (%s, MAC %s)", ip, q->id,
				 q->name, om);
		else
			snprintf(why, whylen, "MAC %s is in use by port %d (%s, address %s)", m, q->id,
				 q->name, oip);
		fprintf(stderr, "hcasim switch: port %d: refused %s (%s %s): %s\n", p->id, name, m, ip,
			why);
		return -EADDRINUSE;
	}
	memcpy(p->mac, mac, 6);
	p->ipv4 = ipv4;
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->registered = 1;
	if (!sw_quiet)
		fprintf(stderr, "hcasim switch: port %d: %s %s %s\n", p->id, p->name, m, ip);
	return 0;
}

const struct sw_port *sw_port_by_ipv4(uint32_t ipv4)
{
	for (unsigned int i = 0; i < SW_MAX_PORTS; i++)
		if (ports[i].ops && ports[i].registered && ports[i].ipv4 == ipv4)
			return &ports[i];
	return NULL;
}

/* ---- the loop ---------------------------------------------------------------------- */

/* Deliver what is due and send what the port kinds queued for it. */
static void deliver(uint64_t now)
{
	wire_deliver(wire, now);
	for (unsigned int i = 0; i < SW_MAX_PORTS; i++)
		if (ports[i].ops && ports[i].ops->flush)
			ports[i].ops->flush(&ports[i]);
}

/* Announce sleeping (1) or awake (0) to the ports with rings: 1 if one has frames already. */
static int ports_sleep(int sleeping)
{
	int ready = 0;

	for (unsigned int i = 0; i < SW_MAX_PORTS; i++)
		if (ports[i].ops && ports[i].ops->sleep)
			ready |= ports[i].ops->sleep(&ports[i], sleeping);
	return ready;
}

/* Frames wait in some port's rings (no system call). */
static int ports_pending(void)
{
	for (unsigned int i = 0; i < SW_MAX_PORTS; i++)
		if (ports[i].ops && ports[i].ops->pending && ports[i].ops->pending(&ports[i]))
			return 1;
	return 0;
}

/* Wait on the CPU until cycle `due` or until frames come into a ring (SW_SPIN_NS). */
static void spin_until(uint64_t due)
{
	while (!stop && now_cycles() < due && !ports_pending())
		cpu_relax();
}

/*
 * Idle: frames came in less than --idle-spin microseconds ago (default
 * SW_IDLE_SPIN_US).  Wait for the next ones on the CPU, yielding it to any
 * other thread that wants it, until `due` or until frames come into a ring.
 * Traffic between two HCAs comes in bursts: a batch of requests, then its
 * batch of responses some 30-60 us later (the peer's device thread at work).
 * Sleeping between them costs the switch two context switches and each HCA
 * an eventfd write per batch, and on a busy machine the woken switch waits
 * for a CPU; a switch that watches the rings takes the batch at once.  The
 * yield keeps that from starving the HCAs' threads on a small machine.
 */
#define SW_IDLE_SPIN_US 100u
static uint64_t sw_idle_spin_us = SW_IDLE_SPIN_US;
static uint64_t spin_cpu_ns;	/* CPU time spent in spin_until and idle_spin_until */

static uint64_t cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void idle_spin_until(uint64_t due)
{
	while (!stop && now_cycles() < due && !ports_pending()) {
		/* a yield is a context switch when another thread wants the CPU:
		 * one every few microseconds, not one per look at the rings */
		for (int i = 0; i < 32 && !ports_pending(); i++)
			cpu_relax();
		sched_yield();
	}
}

static void serve(void)
{
	uint64_t last_in = 0, idle_spin = sw_idle_spin_us * (HCA_CLK_HZ / 1000000u);

	while (!stop) {
		struct pollfd pfd[SW_MAX_LISTEN + 2 * SW_MAX_PORTS + SW_QEMU_POLLFDS];
		struct sw_port *who[SW_MAX_LISTEN + 2 * SW_MAX_PORTS];
		uint8_t woken[SW_MAX_PORTS] = { 0 };
		unsigned int n = 0, nq;
		uint64_t ne, now, timeout = SW_MAX_SLEEP_NS;
		struct timespec ts;

		for (unsigned int i = 0; i < nlisteners; i++) {
			pfd[n] = (struct pollfd){ .fd = listeners[i].fd, .events = POLLIN };
			who[n++] = NULL;
		}
		for (unsigned int i = 0; i < SW_MAX_PORTS; i++)
			if (ports[i].ops) {
				pfd[n] = (struct pollfd){ .fd = ports[i].fd, .events = POLLIN };
				who[n++] = &ports[i];
				if (ports[i].wake_fd < 0)
					continue;
				pfd[n] = (struct pollfd){ .fd = ports[i].wake_fd, .events = POLLIN };
				who[n++] = &ports[i];
			}
		now = now_cycles();
		ne = wire_next_event(wire);
		if (ne != UINT64_MAX && ne > now && (ne - now) * SW_NS_PER_CYCLE <= SW_SPIN_NS) {
			uint64_t c = cpu_ns();

			spin_until(ne);
			spin_cpu_ns += cpu_ns() - c;
			now = now_cycles();
		} else if (last_in + idle_spin > now && !ports_pending()) {
			uint64_t until = last_in + idle_spin, c = cpu_ns();

			idle_spin_until(ne < until ? ne : until);
			spin_cpu_ns += cpu_ns() - c;
			now = now_cycles();
		}
		/* until the next delivery is due (not rounded up to milliseconds) */
		if (ne != UINT64_MAX && (ne <= now || ne - now < SW_MAX_SLEEP_NS / SW_NS_PER_CYCLE))
			timeout = ne <= now ? 0 : (ne - now) * SW_NS_PER_CYCLE;
		if (timeout && ports_sleep(1))
			timeout = 0;	/* frames came into a ring: no sleep */
		ts = (struct timespec){ .tv_sec = (time_t)(timeout / 1000000000u),
					.tv_nsec = (long)(timeout % 1000000000u) };
		nq = sw_qemu_pollfds(pfd + n, SW_QEMU_POLLFDS);	/* QEMU guests (sw_qemu.c) */
		if (ppoll(pfd, n + nq, &ts, NULL) < 0 && errno != EINTR)
			break;
		ports_sleep(0);
		round_now = now_cycles();
		sw_qemu_service(pfd + n, nq);
		for (unsigned int k = 0; k < n; k++) {
			if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (k < nlisteners)
				listeners[k].accept(pfd[k].fd);
			else if (who[k]->ops && who[k]->fd == pfd[k].fd)
				who[k]->ops->input(who[k]);	/* (not closed meanwhile) */
			else if (who[k]->ops && who[k]->wake_fd == pfd[k].fd)
				woken[who[k] - ports] = 1;
		}
		{
			uint64_t before = sw_frames_in;

			for (unsigned int i = 0; i < SW_MAX_PORTS; i++)
				if (ports[i].ops && ports[i].ops->rings)
					ports[i].ops->rings(&ports[i], woken[i]);
			if (sw_frames_in != before)
				last_in = round_now;
		}
		deliver(now_cycles());
	}
}

static void report(const char *pcap)
{
	struct wire_stats st;
	uint64_t lost = lost_departed;

	wire_get_stats(wire, &st);
	for (unsigned int i = 0; i < SW_MAX_PORTS; i++)
		lost += ports[i].tx_lost;
	fprintf(stderr,
		"hcasim switch: %llu frames in, %llu copies, %llu delivered, %llu dropped, "
		"%llu duplicated, %llu reordered, %llu corrupted, %llu flooded, "
		"%llu lost to full ports, %llu lost to departed ports\n",
		(unsigned long long)st.sent, (unsigned long long)st.copies,
		(unsigned long long)st.delivered, (unsigned long long)st.dropped,
		(unsigned long long)st.duplicated, (unsigned long long)st.reordered,
		(unsigned long long)st.corrupted, (unsigned long long)st.flooded,
		(unsigned long long)lost, (unsigned long long)st.orphaned);
	fprintf(stderr, "hcasim switch: cpu %.3f s, of which %.3f s waiting on the CPU for frames "
			"(deliveries due within %u us, --idle-spin %llu us)\n",
		(double)cpu_ns() / 1e9, (double)spin_cpu_ns / 1e9, SW_SPIN_NS / 1000,
		(unsigned long long)sw_idle_spin_us);
	if (pcap)
		fprintf(stderr, "hcasim switch: %llu frames captured in %s\n",
			(unsigned long long)st.sent, pcap);
}

/* ---- command line ------------------------------------------------------------------ */

static int parse_prob(const char *opt, const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (!*s || *end || !(v >= 0.0 && v <= 1.0)) {
		fprintf(stderr, "hcasim switch: --%s wants a probability 0..1, got %s\n", opt, s);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_u64(const char *opt, const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 0);
	if (!*s || *end || errno || *s == '-') {
		fprintf(stderr, "hcasim switch: --%s wants a number 0..%llu, got %s\n", opt,
			(unsigned long long)UINT64_MAX, s);
		return -1;
	}
	return 0;
}

int hcasim_switch_main(int argc, char **argv)
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
		{ "qemu", required_argument, NULL, 'Q' },
		{ "no-shm", no_argument, NULL, 'M' },
		{ "idle-spin", required_argument, NULL, 'I' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct wire_config wc = { .mode = WIRE_SWITCH, .max_ports = SW_MAX_PORTS, .latency = 250,
				  .seed = 1 };
	struct sigaction sig = { .sa_handler = on_signal };
	const char *qemu_path = NULL;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'S':
			if (parse_u64("seed", optarg, &wc.seed))
				return 2;
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
			if (parse_u64("latency", optarg, &wc.latency))
				return 2;
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

			if (strchr(optarg, '-') ||
			    sscanf(optarg, "%llu:%llu%c", &a, &b, &tail) != 2 || a > b) {
				fprintf(stderr, "hcasim switch: --fault-frames wants FIRST:LAST\n");
				return 2;
			}
			sw_fault_first = a;
			sw_fault_last = b;
			break;
		}
		case 'q':
			sw_quiet = 1;
			break;
		case 'Q':
			qemu_path = optarg;
			break;
		case 'M':
			sw_no_shm = 1;
			break;
		case 'I':
			if (parse_u64("idle-spin", optarg, &sw_idle_spin_us) ||
			    sw_idle_spin_us > 1000000u) {
				if (sw_idle_spin_us > 1000000u)
					fprintf(stderr, "hcasim switch: --idle-spin wants at most 1000000 us\n");
				return 2;
			}
			break;
		case 'h':
			hcasim_usage(stdout);
			return 0;
		default:
			hcasim_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		hcasim_usage(stderr);
		return 2;
	}
	/* Faults apply to the input frames FIRST..LAST (counting from 0) only. */
	sw_faults = wc.faults;
	if (sw_fault_first > 0)
		wc.faults = (struct wire_faults){ 0 };

	wire = wire_create(&wc);
	if (!wire) {
		fprintf(stderr, "hcasim switch: cannot create the wire: %s\n", strerror(errno));
		return 1;
	}
	for (unsigned int i = 0; i < SW_MAX_PORTS; i++)
		ports[i].fd = ports[i].wake_fd = -1;
	if (sw_hcasim_listen(argv[optind])) {
		wire_destroy(wire);
		return 1;
	}
	sigaction(SIGINT, &sig, NULL);
	sigaction(SIGTERM, &sig, NULL);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_TIMERSLACK, SW_TIMER_SLACK_NS);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!sw_quiet)
		fprintf(stderr, "hcasim switch: listening on %s (seed %llu, drop %g, dup %g, reorder %g, "
				"corrupt %g)%s%s\n", argv[optind], (unsigned long long)wc.seed,
			sw_faults.drop, sw_faults.dup, sw_faults.reorder, sw_faults.corrupt,
			wc.pcap_tx ? ", capturing to " : "", wc.pcap_tx ? wc.pcap_tx : "");
	if (qemu_path && sw_qemu_open(qemu_path, argv[optind], sw_quiet)) {
		fprintf(stderr, "hcasim switch: cannot listen on %s: %s\n", qemu_path, strerror(errno));
		wire_destroy(wire);
		sw_hcasim_unlisten();
		return 1;
	}
	serve();

	/* Deliver what is still in flight, then report. */
	deliver(UINT64_MAX - 1);
	report(wc.pcap_tx);
	sw_qemu_close(stderr);
	for (unsigned int i = 0; i < SW_MAX_PORTS; i++)
		if (ports[i].ops) {
			if (ports[i].ops->closing)
				ports[i].ops->closing(&ports[i]);
			close(ports[i].fd);
		}
	wire_destroy(wire);
	sw_hcasim_unlisten();
	return 0;
}
