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
 *       Runs until SIGINT/SIGTERM, then prints its counters (switch.c).
 *
 *   hcasim replay [options] --setup FILE CAPTURE
 *       Feed a capture into one simulated device (sim/replay/, docs/replay.md).
 *
 * Each subcommand lives in its own file (hcasim_cmd.h lists them).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "hcasim_cmd.h"

void hcasim_usage(FILE *f)
{
	fprintf(f,
		"usage: hcasim run [--ip ADDR] [--mac MAC] [--backend NAME] [--switch PATH]\n"
		"                  [--name DEV] [--seed N] [--config FILE] [--debug[=LEVEL]]\n"
		"                  [--coop] [--pcap FILE] [--options K=V,...] [--width 64|512]\n"
		"                  [--trace FILE.fst [--trace-from CYCLE] [--trace-to CYCLE]] [--slowdown N]\n"
		"                  -- PROGRAM [ARGS...]\n"
		"       hcasim switch [--seed N] [--drop P] [--dup P] [--reorder P] [--corrupt P]\n"
		"                     [--jitter P] [--latency CYCLES] [--fault-frames FIRST:LAST]\n"
		"                     [--pcap FILE] [--pcap-out FILE] [--quiet] [--no-shm] [--idle-spin US]\n"
		"                     [--qemu QPATH] PATH\n"
		"       (--quiet: no per-connection messages; the final counters are always printed;\n"
		"        --no-shm: HCAs' frames over the socket, not in shared-memory rings;\n"
		"        --idle-spin: after frames, watch the rings this long before sleeping (100; 0: never);\n"
		"        --qemu: QEMU guests join with -netdev stream,addr.type=unix,addr.path=QPATH)\n"
		"       hcasim replay [--backend NAME] [--width 64|512] --setup FILE [--out FILE] CAPTURE.pcap\n"
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
			hcasim_usage(stdout);
			return 0;
		default:
			hcasim_usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "hcasim run: no program given\n");
		hcasim_usage(stderr);
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

int main(int argc, char **argv)
{
	if (argc < 2) {
		hcasim_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "switch"))
		return hcasim_switch_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "replay"))
		return hcasim_replay_main(argc - 1, argv + 1);	/* sim/replay/ */
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		hcasim_usage(stdout);
		return 0;
	}
	fprintf(stderr, "hcasim: unknown command %s\n", argv[1]);
	hcasim_usage(stderr);
	return 2;
}
