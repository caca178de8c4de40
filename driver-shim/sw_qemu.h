/* SPDX-License-Identifier: MIT */
/*
 * QEMU ports of `hcasim switch` (`--qemu QPATH`): virtual machines plug a
 * NIC into the switch with QEMU's stream netdev,
 *
 *     -netdev stream,id=hs,server=off,addr.type=unix,addr.path=QPATH
 *
 * which carries each Ethernet frame (no FCS) as a 4-byte big-endian length
 * followed by the frame, on a Unix stream socket.
 *
 * Each QEMU connection is translated into an ordinary switch port: the
 * translator connects to the switch's own socket like an HCA and speaks
 * swproto.h there, so the switch core (forwarding, faults, capture,
 * address service) treats a guest NIC exactly as an HCA.  It also stands
 * in for the HCAs' missing host network stack on the guest's side:
 *
 *  - address learning: the sender of the guest's ARP packets and the source
 *    of its IPv4 packets become the port's HELLO (MAC, IPv4), so the switch
 *    answers RESOLVE for the guest's address (the shim's ARP);
 *  - proxy ARP: an ARP request from the guest becomes a RESOLVE, and a
 *    positive answer an ARP reply to the guest (the request is also
 *    forwarded, so another guest can answer for itself).
 *
 * Never blocks: a frame that does not fit the guest's socket waits in a
 * one-frame buffer, and while it waits nothing more is read for that guest
 * (the switch then counts frames lost to a full port).
 */
#ifndef HCASIM_SHIM_SW_QEMU_H
#define HCASIM_SHIM_SW_QEMU_H

#include <poll.h>
#include <stdio.h>

/* Listen on qemu_path; guests are joined to the switch listening on switch_path. */
int sw_qemu_open(const char *qemu_path, const char *switch_path, int quiet);
/* The descriptors to poll now (at most max): returns how many were filled. */
#define SW_QEMU_MAX_GUESTS 8
#define SW_QEMU_POLLFDS (1 + 2 * SW_QEMU_MAX_GUESTS)	/* the most it fills */
unsigned int sw_qemu_pollfds(struct pollfd *pfd, unsigned int max);
/* Handle the revents of the n descriptors sw_qemu_pollfds() gave. */
void sw_qemu_service(const struct pollfd *pfd, unsigned int n);
/* Close everything; each guest still connected reports its counters (as at disconnect). */
void sw_qemu_close(FILE *report);

#endif /* HCASIM_SHIM_SW_QEMU_H */
