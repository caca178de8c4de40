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
 *
 * The HCA waits for WELCOME after its HELLO (frames may arrive before it).
 * A HELLO announcing an IPv4 address or a MAC that another connected HCA
 * announced is refused: WELCOME with status EADDRINUSE and a sentence naming
 * the address and its owner, then the switch closes the connection.  What a
 * port announced, and the MACs the switch learned on it, are forgotten when
 * it disconnects; RESOLVE is answered from connected ports only.
 *
 * The switch forwards a FRAME to the port where it learned the destination
 * MAC (from source addresses), floods group addresses and unknown
 * destinations to every other port, and never blocks: a port whose socket is
 * full loses the frame (counted), as a congested switch port would.
 */
#ifndef HCASIM_SHIM_SWPROTO_H
#define HCASIM_SHIM_SWPROTO_H

#include <stdint.h>

#define HCASW_HELLO 1
#define HCASW_FRAME 2
#define HCASW_RESOLVE 3
#define HCASW_ANSWER 4
#define HCASW_WELCOME 5

#define HCASW_MAX_FRAME 16384	/* largest frame carried (jumbo-safe) */

struct hcasw_hdr {
	uint16_t type;
	uint16_t rsvd;
	uint32_t len;		/* payload bytes after the header */
};

struct hcasw_hello {
	uint8_t mac[6];
	uint8_t rsvd[2];
	uint8_t ipv4[4];	/* network order */
	char name[32];
};

struct hcasw_welcome {
	int32_t status;		/* 0: accepted; else an errno value (EADDRINUSE) */
	char reason[124];	/* refused: why, NUL-terminated */
};

struct hcasw_resolve {
	uint8_t ipv4[4];	/* network order */
	uint8_t found;		/* ANSWER: 1 if known */
	uint8_t rsvd;
	uint8_t mac[6];		/* ANSWER: the MAC */
};

#endif /* HCASIM_SHIM_SWPROTO_H */
