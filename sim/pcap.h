/* SPDX-License-Identifier: MIT */
/*
 * pcap files of simulated (and real) Ethernet traffic.
 *
 * Writer: classic libpcap format, nanosecond timestamps (magic 0xa1b23c4d),
 * LINKTYPE_ETHERNET, always little-endian so that the same simulation gives
 * byte-identical files on every host.  Timestamps are simulation time: device
 * cycle c is written as c * 4 ns (HCA_CLK_HZ = 250 MHz) after the epoch.
 *
 * Reader: classic pcap in either byte order with micro- or nanosecond
 * timestamps, and pcapng (Section Header, Interface Description, Enhanced
 * and Simple Packet blocks; if_tsresol honoured) -- what tcpdump, dumpcap and
 * Wireshark write -- so captures from real hardware can be replayed into a
 * simulated device (sim/wire.h: wire_replay_pcap).  Only Ethernet link types
 * are accepted.  Malformed files give an error, never a crash.
 *
 * Functions returning int give 0 (or 1, see pcap_read) on success and a
 * negative errno on failure; pcap_reader_error() has the details.
 */
#ifndef HCASIM_SIM_PCAP_H
#define HCASIM_SIM_PCAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PCAP_MAGIC_NSEC 0xa1b23c4du
#define PCAP_MAGIC_USEC 0xa1b2c3d4u
#define PCAP_LINKTYPE_ETHERNET 1
#define PCAP_SNAPLEN_DEFAULT 65535u
#define PCAP_MAX_FRAME 262144u	/* larger records are refused as corrupt */

/* Device cycles <-> nanoseconds at HCA_CLK_HZ (exact, no overflow before 2^64 ns). */
uint64_t pcap_cycles_to_ns(uint64_t cycles);
uint64_t pcap_ns_to_cycles(uint64_t ns);

struct pcap_writer;

/*
 * Create (truncate) path and write the file header.  snaplen 0 means
 * PCAP_SNAPLEN_DEFAULT; longer frames are truncated to it (orig_len keeps the
 * full length).  NULL on failure with errno set.
 */
struct pcap_writer *pcap_writer_open(const char *path, uint32_t snaplen);
/* One frame at device cycle `cycle`. */
int pcap_write(struct pcap_writer *w, uint64_t cycle, const void *frame, size_t len);
/* One frame at `ns` nanoseconds (for tools that have real timestamps). */
int pcap_write_ns(struct pcap_writer *w, uint64_t ns, const void *frame, size_t len);
uint64_t pcap_writer_count(const struct pcap_writer *w);
/* Flush and close; returns the first write error seen, if any.  NULL is a no-op. */
int pcap_writer_close(struct pcap_writer *w);

struct pcap_frame {
	uint64_t ns;		/* timestamp in ns since the epoch */
	const uint8_t *data;	/* captured bytes; valid until the next pcap_read/close */
	uint32_t len;		/* captured length */
	uint32_t orig_len;	/* length on the wire (> len when the capture was truncated) */
};

struct pcap_reader;

/* NULL on failure with errno set (ENOENT, EINVAL for a bad header, ...). */
struct pcap_reader *pcap_reader_open(const char *path);
/*
 * Next frame: 1 and *f filled, 0 at the end of the file, or a negative errno
 * (-EINVAL: corrupt or truncated record, unsupported link type; -EIO).
 * After an error every further call returns the same error.
 */
int pcap_read(struct pcap_reader *r, struct pcap_frame *f);
/* Human-readable reason for the last error (or for a failed open: pass NULL). */
const char *pcap_reader_error(const struct pcap_reader *r);
void pcap_reader_close(struct pcap_reader *r);

#ifdef __cplusplus
}
#endif

#endif /* HCASIM_SIM_PCAP_H */
