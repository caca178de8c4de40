// SPDX-License-Identifier: MIT
/*
 * hcasim replay [options] --setup FILE CAPTURE: the command line (docs/replay.md).
 * Exit status: 0 the replay ran (dropped frames are a result, not a failure);
 * 1 lockstep saw the RTL and the model diverge, or an output could not be
 * written; 2 bad input (options, setup file, capture, objects the firmware
 * refused).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hcasim replay [--backend model|rtl|lockstep] [--width 64|512] --setup FILE\n"
		"                     [--out ANSWERS.pcap] [--json FILE] [--dump-mrs DIR]\n"
		"                     [--timing spacing|capture] [--spacing CYCLES] [--tail CYCLES]\n"
		"                     [--options K=V,...] [--seed N] [--quiet]\n"
		"                     [--trace FILE.fst [--trace-from CYCLE] [--trace-to CYCLE]] CAPTURE.pcap\n"
		"Feeds each frame of CAPTURE into one simulated device set up as FILE says and\n"
		"reports what the device did with it.  See docs/replay.md.\n");
}

static int parse_cycles(const char *opt, const char *v, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(v, &end, 0);
	if (errno || *end || !*v || *v == '-' || *out > (1ull << 40)) {
		fprintf(stderr, "hcasim replay: --%s wants a number of cycles 0..2^40, got \"%s\"\n", opt, v);
		return -1;
	}
	return 0;
}

int hcasim_replay_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "width", required_argument, NULL, 'w' },
		{ "setup", required_argument, NULL, 's' },
		{ "out", required_argument, NULL, 'o' },
		{ "json", required_argument, NULL, 'j' },
		{ "dump-mrs", required_argument, NULL, 'd' },
		{ "timing", required_argument, NULL, 'T' },
		{ "spacing", required_argument, NULL, 'S' },
		{ "tail", required_argument, NULL, 't' },
		{ "options", required_argument, NULL, 'O' },
		{ "seed", required_argument, NULL, 'e' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "trace", required_argument, NULL, 'F' },
		{ "trace-from", required_argument, NULL, 'f' },
		{ "trace-to", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct rp_dev_opts dopt = { .backend = "model", .seed = 1 };
	struct rp_run_opts ropt = { .spacing = 10000 };
	const char *setup_path = NULL, *json_path = NULL;
	bool have_tail = false;
	static struct rp_setup setup;
	struct rp_totals tot;
	struct rp_dev dev;
	char err[512];
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			dopt.backend = optarg;
			break;
		case 'w':
			if (strcmp(optarg, "64") && strcmp(optarg, "512")) {
				fprintf(stderr, "hcasim replay: --width is 64 or 512, not %s\n", optarg);
				return 2;
			}
			dopt.width = (unsigned int)atoi(optarg);
			break;
		case 's':
			setup_path = optarg;
			break;
		case 'o':
			ropt.out = optarg;
			break;
		case 'j':
			json_path = optarg;
			break;
		case 'd':
			ropt.dump_dir = optarg;
			break;
		case 'T':
			if (!strcmp(optarg, "capture"))
				ropt.capture_timing = true;
			else if (strcmp(optarg, "spacing")) {
				fprintf(stderr, "hcasim replay: --timing is spacing or capture, not %s\n", optarg);
				return 2;
			}
			break;
		case 'S':
			if (parse_cycles("spacing", optarg, &ropt.spacing))
				return 2;
			break;
		case 't':
			if (parse_cycles("tail", optarg, &ropt.tail))
				return 2;
			have_tail = true;
			break;
		case 'O':
			dopt.options = optarg;
			break;
		case 'e':
			if (parse_cycles("seed", optarg, &dopt.seed))
				return 2;
			break;
		case 'q':
			ropt.quiet = true;
			break;
		case 'F':
			dopt.trace = optarg;
			break;
		case 'f':
			if (parse_cycles("trace-from", optarg, &dopt.trace_from))
				return 2;
			break;
		case 'u':
			if (parse_cycles("trace-to", optarg, &dopt.trace_to))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || !setup_path) {
		fprintf(stderr, "hcasim replay: %s\n", !setup_path ? "no --setup FILE given"
					: optind >= argc ? "no capture given" : "more than one capture given");
		usage(stderr);
		return 2;
	}
	if (strcmp(dopt.backend, "model") && strcmp(dopt.backend, "rtl") && strcmp(dopt.backend, "lockstep")) {
		fprintf(stderr, "hcasim replay: --backend is model, rtl or lockstep, not %s\n", dopt.backend);
		return 2;
	}
	if (!have_tail)
		ropt.tail = ropt.spacing;
	rc = rp_setup_load(&setup, setup_path, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "hcasim replay: %s\n", err);
		rp_setup_free(&setup);
		return 2;
	}
	if (json_path) {
		ropt.json = fopen(json_path, "w");
		if (!ropt.json) {
			fprintf(stderr, "hcasim replay: %s: %s\n", json_path, strerror(errno));
			rp_setup_free(&setup);
			return 2;
		}
	}
	printf("hcasim replay: %s into a %s device%s%s, setup %s\n", argv[optind], dopt.backend,
	       dopt.width ? " of width " : "", dopt.width ? (dopt.width == 64 ? "64" : "512") : "", setup_path);
	rc = rp_dev_open(&dev, &dopt, &setup, ropt.quiet ? NULL : stdout);
	if (rc) {
		fprintf(stderr, "hcasim replay: %s\n", dev.err);
		rc = 2;
	} else {
		rc = rp_run(&dev, &setup, argv[optind], &ropt, &tot, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "hcasim replay: %s\n", err);
			rc = rc == -EIO ? 1 : 2;
		} else {
			printf("replay: %lu frames: %lu accepted, %lu dropped, %lu other (duplicate, "
			       "out-of-sequence, NAK, ignored); %lu answer frames%s%s, %lu CQEs\n",
			       tot.frames, tot.accepted, tot.dropped, tot.frames - tot.accepted - tot.dropped,
			       tot.answers, ropt.out ? " into " : "", ropt.out ? ropt.out : "", tot.cqes);
			rc = tot.diverged ? 1 : 0;
		}
	}
	rp_dev_close(&dev);
	rp_setup_free(&setup);
	if (ropt.json && fclose(ropt.json) && !rc) {
		fprintf(stderr, "hcasim replay: %s: write error\n", json_path);
		rc = 1;
	}
	return rc;
}
