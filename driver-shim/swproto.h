/* SPDX-License-Identifier: MIT */
/*
 * The protocol between simulated HCAs and `hcasim switch`.
 *
 * Transport: a Unix-domain SOCK_SEQPACKET socket at the switch's PATH; one
 * message = one struct hcasw_hdr followed by `len` payload bytes.  All
 * multi-byte fields are in host byte order (both ends are on one machine),
 * except addresses, which are kept as on the wire.
 *
 *   HCA -> switch  HELLO    struct hcasw_hello: announce MAC, IPv4, name (first message)
 *   switch -> HCA  WELCOME  struct hcasw_welcome: the HELLO's verdict
 *   both ways      FRAME    an Ethernet frame without FCS
 *   HCA -> switch  RESOLVE  struct hcasw_resolve: who has this IPv4 address?
 *   switch -> HCA  ANSWER   struct hcasw_resolve with found/mac filled
 *   both ways      FRAMES   several Ethernet frames (records, below), to a peer that
 *                           said it takes them (HELLO flags, WELCOME flags)
 *
 * FRAMES exists because a socket message, not a byte, is what costs here:
 * the frames an HCA transmits in one device step, and those the switch has
 * for one port at the end of a poll round, travel as one message.  A peer
 * that does not announce it gets one FRAME per message, as before; an HCA
 * sends FRAMES only when the switch's WELCOME said it may.  The records are
 * frames in order; the switch handles each exactly as if it had come in its
 * own FRAME message (numbering, faults, capture, learning).  A FRAMES
 * message the switch cannot send loses all of its frames (each counted).
 *
 * The HCA waits for WELCOME after its HELLO (frames may arrive before it).
 * A HELLO announcing an IPv4 address or a MAC that another connected HCA
 * announced is refused: WELCOME with status EADDRINUSE and a sentence naming
 * the address and its owner, then the switch closes the connection.  What a
 * port announced, and the MACs the switch learned on it, are forgotten when
 * it disconnects; RESOLVE is answered from connected ports only.
 *
 * Shared memory (shmring.h): an HCA whose HELLO has HCASW_HELLO_SHM sends
 * three file descriptors with it (SCM_RIGHTS, in this order): a sealed
 * memfd holding two frame rings, the eventfd that wakes the switch, the
 * eventfd that wakes the HCA.  A switch that maps the segment answers with
 * HCASW_WELCOME_SHM, and from then on every frame either way travels
 * through the rings, none in FRAME/FRAMES messages; the socket carries the
 * rest (RESOLVE/ANSWER) and its end of file still says the peer has gone.
 * A switch that cannot or will not (`--no-shm`) closes the descriptors and
 * answers without the flag: the HCA then uses the socket as above.
 *
 * The switch forwards a FRAME to the port where it learned the destination
 * MAC (from source addresses), floods group addresses and unknown
 * destinations to every other port, and never blocks: a port whose socket is
 * full loses the frame (counted), as a congested switch port would.
 */
#ifndef HCASIM_SHIM_SWPROTO_H
#define HCASIM_SHIM_SWPROTO_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HCASW_HELLO 1
#define HCASW_FRAME 2
#define HCASW_RESOLVE 3
#define HCASW_ANSWER 4
#define HCASW_WELCOME 5
#define HCASW_FRAMES 16		/* (numbered apart from the one-frame messages) */

#define HCASW_MAX_FRAME 16384	/* largest frame carried (jumbo-safe) */
#define HCASW_MAX_MSG (64 << 10)	/* largest message body (a FRAMES batch) */

#define HCASW_HELLO_FRAMES 0x01	/* hello.flags: this HCA takes FRAMES */
#define HCASW_HELLO_SHM 0x02	/* hello.flags: the HELLO carries a shared-memory wire (below) */
#define HCASW_WELCOME_FRAMES 0x01	/* welcome.flags: the switch takes FRAMES */
#define HCASW_WELCOME_SHM 0x02	/* welcome.flags: frames travel in the shared memory from now on */

struct hcasw_hdr {
	uint16_t type;
	uint16_t rsvd;
	uint32_t len;		/* payload bytes after the header */
};

struct hcasw_hello {
	uint8_t mac[6];
	uint8_t flags;		/* HCASW_HELLO_* */
	uint8_t rsvd;
	uint8_t ipv4[4];	/* network order */
	char name[32];
};

struct hcasw_welcome {
	int32_t status;		/* 0: accepted; else an errno value (EADDRINUSE) */
	uint32_t flags;		/* HCASW_WELCOME_* (accepted) */
	char reason[120];	/* refused: why, NUL-terminated */
};

struct hcasw_resolve {
	uint8_t ipv4[4];	/* network order */
	uint8_t found;		/* ANSWER: 1 if known */
	uint8_t rsvd;
	uint8_t mac[6];		/* ANSWER: the MAC */
};

/*
 * FRAMES body: records, each a uint32_t frame length (host order) followed
 * by the frame, padded with zeros to a multiple of 4 bytes.
 */
static inline size_t hcasw_rec_size(size_t len)
{
	return 4 + ((len + 3) & ~(size_t)3);
}

/* Append a record at body + *used (capacity cap): 0, or -1 when it does not fit. */
static inline int hcasw_frames_put(uint8_t *body, size_t *used, size_t cap, const uint8_t *frame,
				   size_t len)
{
	uint32_t l = (uint32_t)len;
	size_t r = hcasw_rec_size(len);

	if (len > HCASW_MAX_FRAME || r > cap - *used || *used > cap)
		return -1;
	memcpy(body + *used, &l, 4);
	memcpy(body + *used + 4, frame, len);
	memset(body + *used + 4 + len, 0, r - 4 - len);
	*used += r;
	return 0;
}

/*
 * The record at *off of a FRAMES body of len bytes: the frame (its length in
 * *flen), *off moved past it; NULL at the end or at a malformed record (a
 * length beyond the body or HCASW_MAX_FRAME), which ends the walk.
 */
static inline const uint8_t *hcasw_frames_next(const uint8_t *body, size_t len, size_t *off,
					       size_t *flen)
{
	uint32_t l;

	if (*off + 4 > len)
		return NULL;
	memcpy(&l, body + *off, 4);
	if (l > HCASW_MAX_FRAME || hcasw_rec_size(l) > len - *off)
		return NULL;
	*flen = l;
	*off += hcasw_rec_size(l);
	return body + *off - hcasw_rec_size(l) + 4;
}

#endif /* HCASIM_SHIM_SWPROTO_H */
