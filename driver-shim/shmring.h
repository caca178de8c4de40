/* SPDX-License-Identifier: MIT */
/*
 * The shared-memory wire between an HCA process and `hcasim switch`
 * (swproto.h, HELLO/WELCOME flag SHM): one memfd segment per port holding
 * two single-producer/single-consumer rings of Ethernet frames, one per
 * direction, and two eventfds for the wake-ups.  The HCA creates all three
 * and hands them to the switch with its HELLO (SCM_RIGHTS); the socket
 * stays for everything else (WELCOME, RESOLVE/ANSWER, and its end of file
 * is how each side learns that the other has gone).
 *
 * Segment layout (all fields host order; both ends are on one machine):
 *
 *   0      struct shmring_seg: magic, version, ring_bytes, then
 *          ctl[SHMRING_TO_SWITCH], ctl[SHMRING_TO_HCA]: tail (producer),
 *          head (consumer), sleeping (consumer), each on its own cache line
 *   4096   ring SHMRING_TO_SWITCH data, ring_bytes (a power of two)
 *   4096 + ring_bytes   ring SHMRING_TO_HCA data
 *
 * tail and head count bytes from the start (they never wrap; the data
 * offset is the count modulo ring_bytes).  A record is a uint32_t frame
 * length, a uint32_t zero, the frame, zeros to a multiple of 8 bytes; a
 * record never runs past the end of the data area: a length of
 * SHMRING_WRAP there says "the rest of the area is empty, go on at offset
 * 0".  The producer writes records beyond tail and then publishes them by
 * storing tail (release); the consumer reads up to tail (acquire) and frees
 * the space by storing head (release).
 *
 * Wake-ups cost a system call, so they happen only for a sleeper: a
 * consumer about to sleep sets `sleeping`, looks at tail once more, and
 * sleeps in poll() on its eventfd; a producer that publishes and finds
 * `sleeping` set clears it and writes the eventfd.  (Both sides use
 * sequentially consistent accesses for that pair, so a wake-up is never
 * lost.)
 *
 * Both ends map the segment populated (MAP_POPULATE): a ring's pages are
 * allocated and mapped at connect time, not faulted in one by one on both
 * sides during the first lap (two page faults per 4 KiB, which cost more
 * than the frames in them at 64 B).
 *
 * Nothing in the segment is trusted: a consumer that finds a length beyond
 * HCASW_MAX_FRAME, a record running past tail or past the data area, or a
 * tail more than ring_bytes ahead of its head reports it (shmring_error)
 * and stops reading the ring; it never reads outside the segment.
 */
#ifndef HCASIM_SHIM_SHMRING_H
#define HCASIM_SHIM_SHMRING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define SHMRING_MAGIC 0x52534348u	/* "HCSR" */
#define SHMRING_VERSION 1
#define SHMRING_DATA_OFF 4096
#ifndef SHMRING_BYTES
#define SHMRING_BYTES (4u << 20)	/* per direction, as the sockets' buffers */
#endif
#define SHMRING_WRAP 0xffffffffu
#define SHMRING_TO_SWITCH 0
#define SHMRING_TO_HCA 1

struct shmring_ctl {
	_Atomic uint64_t tail;
	uint8_t pad0[56];
	_Atomic uint64_t head;
	uint8_t pad1[56];
	_Atomic uint32_t sleeping;
	uint8_t pad2[60];
};

struct shmring_seg {
	uint32_t magic;
	uint32_t version;
	uint64_t ring_bytes;
	uint8_t pad[48];
	struct shmring_ctl ctl[2];
};

/* One end of one ring, in the process's own memory. */
struct shmring {
	struct shmring_ctl *ctl;
	uint8_t *data;
	uint64_t size;		/* ring_bytes */
	uint64_t pos;		/* producer: written (tail once published); consumer: read */
	uint64_t tail;		/* consumer: the tail last seen */
	int wake_fd;		/* producer: the consumer's eventfd; consumer: its own */
	char error[120];	/* consumer: what was wrong with the ring (then it stays stopped) */
};

/* The segment's size for rings of ring_bytes. */
size_t shmring_seg_size(uint64_t ring_bytes);
/*
 * A new segment: a sealed memfd (it can no longer shrink or grow) with the
 * header for rings of ring_bytes, mapped.  The fd (and *seg), or -1 with the
 * reason in err.
 */
int shmring_create(uint64_t ring_bytes, struct shmring_seg **seg, char *err, size_t errlen);
/*
 * The peer's segment fd, checked (sealed against shrinking, header and size
 * consistent) and mapped: the mapping, its ring size in *ring_bytes (never
 * read from the segment again), or NULL with the reason in err.
 */
struct shmring_seg *shmring_attach(int fd, uint64_t *ring_bytes, char *err, size_t errlen);
void shmring_unmap(struct shmring_seg *seg, uint64_t ring_bytes);
/* The end `which` (SHMRING_TO_*) of the segment's rings, waking through wake_fd. */
void shmring_init(struct shmring *r, struct shmring_seg *seg, uint64_t ring_bytes, int which,
		  int wake_fd);

/* Producer: append one frame (not visible until published).  0, or -1 when full. */
int shmring_put(struct shmring *r, const uint8_t *frame, size_t len);
/* Producer: make the appended frames visible; wake the consumer if it sleeps (1: woke it). */
int shmring_publish(struct shmring *r);

/*
 * Consumer: the next frame (its length in *len), valid until shmring_release;
 * NULL when the ring is empty or broken (r->error set, with a sentence).
 */
const uint8_t *shmring_next(struct shmring *r, size_t *len);
/* Consumer: give the space of the frames read so far back to the producer. */
void shmring_release(struct shmring *r);
/* Consumer: something published and not read yet (no error). */
int shmring_pending(struct shmring *r);
/*
 * Consumer about to sleep on wake_fd (1) or awake (0).  Announcing sleep
 * returns 1 when frames came meanwhile (then do not sleep: it is announced
 * awake again).
 */
int shmring_sleep(struct shmring *r, int sleeping);
/* Consumer: empty its eventfd after a wake-up. */
void shmring_clear_wake(struct shmring *r);

#endif /* HCASIM_SHIM_SHMRING_H */
