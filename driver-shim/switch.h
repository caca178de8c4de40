/* SPDX-License-Identifier: MIT */
/*
 * Inside `hcasim switch` (switch.c): the switch core and its port kinds.
 *
 * A port is one connected peer: a file descriptor the core polls, a way to
 * send it an Ethernet frame, and the MAC and IPv4 address it registered (if
 * its protocol says who it is).  The core owns the ports, the wire (sim/wire:
 * MAC learning, latency, faults, capture) and the address table; a port kind
 * owns a protocol:
 *
 *   switch_hcasim.c   `hcasim run` HCAs: Unix SOCK_SEQPACKET, swproto.h
 *
 * A new kind (e.g. QEMU's socket netdev) needs: a listening fd registered
 * with sw_listen() whose callback accepts and calls sw_port_open() with the
 * kind's ops; an input() that reads what the peer sent, passes frames to
 * sw_port_frame_in() (and registrations to sw_port_register(), if the
 * protocol has them) and calls sw_port_close() at end of file; an output()
 * that sends one frame without blocking -- or queues it, if the kind batches
 * frames per socket message, and then a flush() that the core calls after
 * each poll round.
 *
 * Lifetime rules (docs/shim.md): a closed port takes everything with it --
 * the MACs learned on it, its registration, the frames in flight toward it
 * (counted as lost to departed ports, never as delivered) -- and its slot
 * and wire port are reused.  An address or MAC registered by a live port
 * cannot be registered by another one.
 */
#ifndef HCASIM_SHIM_SWITCH_H
#define HCASIM_SHIM_SWITCH_H

#include <stddef.h>
#include <stdint.h>

#define SW_MAX_PORTS 64		/* connected at the same time */

struct sw_port;

struct sw_port_ops {
	const char *kind;	/* for messages */
	/* fd is readable or hung up: take everything the peer sent (never block);
	 * call sw_port_close() at end of file or on an error. */
	void (*input)(struct sw_port *p);
	/* Send one Ethernet frame to the peer without blocking (or queue it for
	 * flush): 0, or -1 (lost). */
	int (*output)(struct sw_port *p, const uint8_t *frame, size_t len);
	/* Optional: send what output() queued, without blocking; the frames it
	 * cannot send move from p->tx_frames to p->tx_lost.  Called after every
	 * poll round's deliveries and at exit. */
	void (*flush)(struct sw_port *p);
	/*
	 * Optional, for a kind whose frames come through shared memory (the
	 * HCA kind's rings, shmring.h) and whose peer pokes p->wake_fd when
	 * the switch sleeps: rings() takes the frames there (every poll round;
	 * woken: wake_fd was readable); sleep(p, 1) announces the switch goes
	 * to sleep and returns 1 when frames are already waiting, sleep(p, 0)
	 * that it is awake; closing() releases the kind's per-port resources
	 * before the port closes.
	 */
	void (*rings)(struct sw_port *p, int woken);
	int (*sleep)(struct sw_port *p, int sleeping);
	/* Optional: frames are waiting for rings() (a look at memory, no system call). */
	int (*pending)(struct sw_port *p);
	void (*closing)(struct sw_port *p);
};

struct sw_port {
	const struct sw_port_ops *ops;	/* NULL: free slot */
	int fd;
	int wake_fd;			/* -1, or polled too (input through rings()) */
	int id;				/* its wire port: the number messages show */
	int registered;			/* mac, ipv4 and name below are its registration */
	uint8_t mac[6];
	uint32_t ipv4;			/* host order */
	char name[33];
	uint64_t rx_frames, tx_frames, tx_lost;
};

/* Messages about connections (stderr) unless --quiet. */
extern int sw_quiet;
/* --no-shm: HCA ports use their sockets for frames, never shared memory. */
extern int sw_no_shm;

/* Poll fd; accept(fd) runs when it is readable.  0 or -ENOSPC. */
int sw_listen(int fd, void (*accept)(int fd));
/* A new peer on fd: the port, or NULL when all SW_MAX_PORTS are in use (fd closed). */
struct sw_port *sw_port_open(int fd, const struct sw_port_ops *ops);
/* The peer left or is sent away: forget its MACs and registration, close fd. */
void sw_port_close(struct sw_port *p);
/* A frame the peer sent, into the switch (faults, learning, forwarding). */
void sw_port_frame_in(struct sw_port *p, const uint8_t *frame, size_t len);
/*
 * The peer says who it is: 0, or -EADDRINUSE when another live port has
 * registered that IPv4 address or MAC (why: a sentence naming the address and
 * its owner; the switch has printed it).  A port may register again.
 */
int sw_port_register(struct sw_port *p, const uint8_t mac[6], uint32_t ipv4, const char *name,
		     char *why, size_t whylen);
/* The live port that registered ipv4 (host order), or NULL. */
const struct sw_port *sw_port_by_ipv4(uint32_t ipv4);

/* Port kinds: listen on their socket (0, or 1 after a message). */
int sw_hcasim_listen(const char *path);
void sw_hcasim_unlisten(void);

#endif /* HCASIM_SHIM_SWITCH_H */
