/* SPDX-License-Identifier: MIT */
/*
 * Wire endpoints of a simulated HCA.
 *
 * Switch link: a SOCK_SEQPACKET connection to `hcasim switch` (protocol in
 * swproto.h).  On connect the HCA announces its MAC, IPv4 address and name;
 * frames travel in shared-memory rings (shmring.h) when the switch accepts
 * them, else batched in socket messages; the switch also answers address
 * queries.
 *
 * Segment: an in-process Ethernet segment joining the HCAs of one process
 * that name the same `wire` (cooperative tests): a frame goes to every other
 * HCA whose MAC is its destination (or to all, for group addresses).
 */
#ifndef HCASIM_SHIM_LINK_H
#define HCASIM_SHIM_LINK_H

#include <stddef.h>
#include <stdint.h>

struct shim_bus;
struct shim_link;
struct shim_segment;
struct wire_config;

/*
 * Connect and announce the HCA (HELLO), then wait for the switch's verdict.
 * NULL on failure, with the reason in err and errno EADDRINUSE when the
 * switch refused the HCA (another connected HCA has its address or MAC).
 */
struct shim_link *shim_link_connect(const char *path, const uint8_t mac[6], uint32_t ipv4,
				    const char *name, struct shim_bus *bus, char *err, size_t errlen);
void shim_link_close(struct shim_link *l);
int shim_link_fd(const struct shim_link *l);
/*
 * Queue one frame for the switch; it leaves at the next shim_link_flush()
 * (or when the batch is full).  Sending blocks while the socket is full: the
 * switch never blocks, so this cannot deadlock.
 */
int shim_link_send(struct shim_link *l, const uint8_t *frame, size_t len);
/* Send the queued frames (one system call per LINK_BATCH frames). */
void shim_link_flush(struct shim_link *l);
/*
 * Read what the switch sent (one batch of messages): frames go to the bus as
 * far as its queue has room, answers are kept.  The frames handed over.
 */
int shim_link_poll(struct shim_link *l);
/* The last poll left messages to hand over, or read a full batch: poll again. */
int shim_link_rx_more(struct shim_link *l);
/*
 * The shared-memory wire (swproto.h, shmring.h; HCASIM_LINK_SHM=0 refuses
 * it): the eventfd the switch pokes when frames come while we sleep (-1 when
 * the frames travel over the socket); announce sleeping (1: returns 1 when
 * frames came meanwhile, do not sleep) or awake (0); empty the eventfd after
 * a wake-up.  shim_link_readable: poll() said the socket is readable (in
 * shared-memory mode it is otherwise read only now and then).
 */
int shim_link_wake_fd(const struct shim_link *l);
int shim_link_sleep(struct shim_link *l, int sleeping);
void shim_link_woken(struct shim_link *l);
void shim_link_readable(struct shim_link *l);
/* Ask the switch for the MAC of ipv4 (host order): 0, -ENOENT (unknown), -ETIMEDOUT, -EIO. */
int shim_link_resolve(struct shim_link *l, uint32_t ipv4, uint8_t mac[6], unsigned int timeout_ms);
/* Frames sent and received over the link. */
void shim_link_counters(const struct shim_link *l, uint64_t *tx, uint64_t *rx);
/* The system calls that carried them (sendmmsg, recvmmsg). */
void shim_link_calls(const struct shim_link *l, uint64_t *tx_calls, uint64_t *rx_calls);

/*
 * Join the in-process segment `name` (created on first use).  wc: run the
 * segment through sim/wire with this configuration (cooperative mode), or
 * NULL for immediate delivery (threaded mode); only the creator's counts.
 */
struct shim_segment *shim_segment_join(const char *name, const uint8_t mac[6], uint32_t ipv4,
				       struct shim_bus *bus, const struct wire_config *wc);
void shim_segment_leave(struct shim_segment *s, struct shim_bus *bus);
/* A frame transmitted by `from` at its device cycle `now`. */
void shim_segment_send(struct shim_segment *s, struct shim_bus *from, const uint8_t *frame,
		       size_t len, uint64_t now);
/* Cooperative segments: deliver everything due at `now`; the next due cycle. */
unsigned int shim_segments_deliver(uint64_t now);
uint64_t shim_segments_next_event(void);
/* Frames in flight on cooperative segments. */
size_t shim_segments_pending(void);
/* Counters of a cooperative segment: 0 or -ENOENT. */
struct wire_stats;
int shim_segment_stats(const char *name, struct wire_stats *st);
/* MAC of the HCA with ipv4 on any segment of this process: 0 or -ENOENT. */
int shim_segment_resolve(uint32_t ipv4, uint8_t mac[6]);

#endif /* HCASIM_SHIM_LINK_H */
