/* SPDX-License-Identifier: MIT */
/*
 * Which simulated HCAs a process has, and how they are wired.
 *
 * Sources, first match wins:
 *   1. hcasim_shim_configure(text)      (tests linking the shim directly)
 *   2. HCASIM_CONFIG=<file>             (config file, format below)
 *   3. HCASIM_* environment variables   (one device; what `hcasim run` sets)
 *
 * Config text (docs/shim.md has the full reference):
 *
 *     # global keys, before the first section
 *     mode  = threaded | cooperative
 *     neigh = 10.0.0.2 02:00:0a:00:00:02        # static neighbour entry, repeatable
 *     wire_latency = 250                         # cooperative in-process wire (sim/wire):
 *     wire_seed = 1                              #   latency in cycles, fault seed and
 *     wire_drop = 0.01                           #   probabilities (wire_dup, wire_reorder,
 *     wire_pcap = /tmp/wire.pcap                 #   wire_corrupt), capture
 *     [hcasim0]                                  # one section per device (its name)
 *     ip      = 10.0.0.1                         # IPv4 address (GID index 1)
 *     mac     = 02:00:0a:00:00:01                # default: 02:00:<ip bytes>
 *     backend = model                            # model | rtl | lockstep
 *     width   = 64                               # rtl/lockstep: RTL datapath, 64 or 512 bits
 *     switch  = /tmp/hcasim.sock                 # hcasim switch socket, or
 *     wire    = lan0                             # in-process segment (default "local")
 *     seed    = 1
 *     options = key=value,...                    # passed to the backend
 *     pcap    = /tmp/hca0.pcap                   # capture what this HCA transmits
 *     trace   = /tmp/hca0.fst                    # rtl/lockstep: FST waveform of the RTL,
 *     trace_from = 0                             #   cycles trace_from..trace_to (0 = end)
 *     trace_to   = 0
 *     slowdown = 1000                            # threaded: idle time follows the wall clock
 *                                                #   this many times slower (default: 1 on
 *                                                #   "model", 1000 on the RTL backends)
 */
#ifndef HCASIM_SHIM_CONFIG_H
#define HCASIM_SHIM_CONFIG_H

#include <stdint.h>

#define SHIM_MAX_DEVICES 8
#define SHIM_MAX_NEIGH 64
#define SHIM_NAME_MAX 64
#define SHIM_MAX_CYCLES 1000000000ull	/* wire_latency at most (4 s of device time) */

enum shim_mode {
	SHIM_MODE_THREADED = 0,		/* a device thread per HCA (real applications) */
	SHIM_MODE_COOP = 1,		/* the caller steps the simulation (tests) */
};

struct shim_devcfg {
	char name[SHIM_NAME_MAX];
	uint8_t mac[6];
	int have_mac;
	uint32_t ipv4;			/* host byte order; 0 = none */
	char backend[32];
	char switch_path[108];		/* "" = not connected to a switch */
	char wire[32];			/* in-process segment name */
	uint64_t seed;
	unsigned int width;		/* RTL datapath width (64, 512); 0 = backend default */
	char options[256];
	char pcap[256];			/* capture of the frames this HCA transmits, or "" */
	char trace[256];		/* FST waveform of the RTL (rtl, lockstep), or "" */
	uint64_t trace_from, trace_to;	/* traced cycles (trace_to 0 = to the end) */
	unsigned int slowdown;		/* idle device time = wall clock / slowdown (0: by backend) */
};

struct shim_neigh {
	uint32_t ipv4;			/* host byte order */
	uint8_t mac[6];
};

/* The in-process wire of cooperative mode (sim/wire: a learning switch). */
struct shim_wirecfg {
	uint64_t latency;		/* cycles from send to delivery (default 250 = 1 us) */
	uint64_t seed;
	double drop, dup, reorder, corrupt;	/* fault probabilities per delivered copy */
	char pcap[256];			/* capture of every frame sent on it, or "" */
};

struct shim_config {
	enum shim_mode mode;
	struct shim_wirecfg wire;
	unsigned int ndev;
	struct shim_devcfg dev[SHIM_MAX_DEVICES];
	unsigned int nneigh;
	struct shim_neigh neigh[SHIM_MAX_NEIGH];
	char err[256];			/* why parsing failed */
};

/* Parse config text into cfg (cleared first).  0, or -EINVAL with cfg->err set. */
int shim_config_parse(struct shim_config *cfg, const char *text, const char *origin);
/* Read HCASIM_CONFIG or the HCASIM_* variables.  0 or -EINVAL/-errno with cfg->err. */
int shim_config_from_env(struct shim_config *cfg);

/* "aa:bb:cc:dd:ee:ff" -> 0, else -1. */
int shim_parse_mac(const char *s, uint8_t mac[6]);
/* Dotted quad -> host-order address: 0, else -1. */
int shim_parse_ipv4(const char *s, uint32_t *ip);
/* The default MAC of an address: 02:00:a:b:c:d (locally administered). */
void shim_mac_from_ipv4(uint32_t ip, uint8_t mac[6]);
/* Text helpers of this parser, shared with sim/replay/setup.c: s without
 * leading/trailing white space (in place); a whole unsigned number (0x... too). */
char *shim_trim(char *s);
int shim_parse_u64(const char *v, uint64_t *out);

#endif /* HCASIM_SHIM_CONFIG_H */
