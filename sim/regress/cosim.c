// SPDX-License-Identifier: MIT
/*
 * cosim: the cosimulation regression driver (`make sim`, docs/sim.md).
 *
 * Two devices on sim/tb, each a "lockstep" engine (reference: the C model;
 * DUT: the RTL, or the test-only model-mutant until the RTL engine is
 * linked), run a directed test or seeded random traffic at one datapath
 * width.  A run passes when the end-to-end checks of sim/regress/traffic.c
 * pass and neither lockstep engine diverged -- or, for a run that plants a
 * bug (--expect-fail STREAM), when the first divergence is in STREAM.
 * One summary line per run, then "N passed, M failed".
 *
 *   cosim --test random --width 64 --seed 3 --messages 300
 *   cosim --plan sim/regress/sim.plan
 *   cosim --help
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../../model/model.h"
#include "cov.h"
#include "directed.h"
#include "faultshape.h"
#include "lockstep.h"
#include "lockstep_mutant.h"
#include "progress.h"
#include "tb.h"
#include "traffic.h"

/* The RTL engine registers itself under this name when its library is linked in. */
extern void hca_rtl_engine_register(void) __attribute__((weak));
/* Defined in the test-only mutant build of the rtl engine (sim/rtl/rtl_model.cpp),
 * whose activation flags are process-wide: it runs with one thread. */
extern int hca_rtl_mutsel(void) __attribute__((weak));

struct spec {
	char test[32];
	unsigned int width;
	uint64_t seed;
	unsigned int messages;
	char ref[32], dut[32];
	char engine[32];	/* "" = lockstep(ref, dut); else this engine alone (speed runs) */
	char dut_opts[256];	/* both nodes */
	char ls_opts[256];	/* lockstep's own options (both nodes), e.g. tx_order=port */
	char bug[256];		/* node 0 only */
	char mutant[128];	/* mutant-bug=NAME[,at=N]: node 0's DUT wrapped in model-mutant with that bug */
	char expect[32];	/* "" = must pass clean */
	char ops[128];
	char qpts[64];		/* qp-types=rc,uc,ud: QP type of each pair, in turn */
	unsigned int pairs, outstanding, max_sge;
	uint32_t max_len;
	bool no_events;
	/* wire faults and the retry paths (docs/sim.md "Faults") */
	char faults[128];	/* drop:P,dup:P,reorder:P,corrupt:P,last:N */
	unsigned int timeout, rnr_timer, late_recv;
	/* waveform replay */
	char trace[256];
	int trace_node;
	uint64_t trace_from, trace_to;
	unsigned int threads;		/* the testbench's (tb_config.threads, docs/sim.md 9.6) */
};

struct outcome {
	bool pass;
	bool diverged;
	int node;		/* first diverging node, -1 */
	struct sb_divergence div;
	char report[16384];
	struct tr_result tr;
	struct wire_stats wire;
	uint64_t shape_dropped;	/* by the directed fault shape (faultshape.h) */
	uint64_t frames, dma_bytes, irqs;
	double wall;
	char why[512];
};

static const char *out_dir = "build/sim";
static const char *cov_dir;	/* --cov DIR: functional coverage of every engine (sim/cov.h) */
static unsigned int shard_i, shard_n;	/* --shard i/N: plan lines i, i+N, ... (0 <= i < N) */
static FILE *result_f;		/* --result FILE: one line per run, then the totals */
static int verbose;
static const char *default_dut;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void mkdirs(const char *path)
{
	char tmp[512];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0777);
			*p = '/';
		}
	mkdir(tmp, 0777);
}

static void run_dir(const struct spec *s, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%s-w%u-s%" PRIu64, out_dir, s->test, s->width, s->seed);
}

/* "a=1,b=2" -> ",dut.a=1,dut.b=2" appended to out */
static void prefix_opts(char *out, size_t n, const char *opts)
{
	const char *p = opts;

	while (p && *p) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		size_t used = strlen(out);

		if (l)
			snprintf(out + used, n - used, ",dut.%.*s", (int)l, p);
		p = e ? e + 1 : NULL;
	}
}

struct hook {
	const struct spec *s;
	char opts[2][1024];
	char engine[32];
};

static void engine_config(void *ctx, unsigned int node, struct hca_engine_config *ec)
{
	struct hook *h = ctx;

	ec->data_w = h->s->width;
	ec->options = h->opts[node];
	if (h->s->trace[0] && (int)node == h->s->trace_node) {
		ec->trace = h->s->trace;
		ec->trace_from = h->s->trace_from;
		ec->trace_to = h->s->trace_to;
	}
}

static int build_cfg(const struct spec *s, struct tr_cfg *c, struct tr_msg *list, char *err, size_t en)
{
	const struct directed *d = NULL;

	tr_cfg_default(c);
	c->seed = s->seed;
	c->messages = s->messages;
	c->verbose = verbose > 1;
	if (strcmp(s->test, "random") != 0) {
		d = directed_find(s->test);
		if (!d) {
			snprintf(err, en, "unknown test '%s' (--list)", s->test);
			return -1;
		}
		c->nlist = d->build(c, list, DIRECTED_MAX_MSGS);
		c->list = list;
	}
	if (s->ops[0] && tr_parse_ops(c, s->ops)) {
		snprintf(err, en, "bad --ops '%s'", s->ops);
		return -1;
	}
	if (s->qpts[0] && tr_parse_qpts(c, s->qpts)) {
		snprintf(err, en, "bad --qp-types '%s' (rc, uc, ud separated by commas)", s->qpts);
		return -1;
	}
	if (s->pairs)
		c->pairs = s->pairs;
	if (s->outstanding)
		c->outstanding = s->outstanding;
	if (s->max_sge)
		c->max_sge = s->max_sge;
	if (s->max_len)
		c->max_len = s->max_len;
	if (s->no_events)
		c->events = false;
	c->timeout = (uint8_t)s->timeout;
	c->min_rnr_timer = (uint8_t)s->rnr_timer;
	c->late_recv = s->late_recv;
	c->spread_slots = s->faults[0] || s->late_recv;
	return 0;
}

/* "drop:0.02,dup:0.01,reorder:0.02,corrupt:0.01,last:5" -> wire faults and
 * the directed shape (faultshape.h); 0 or -1 */
static int parse_faults(const char *str, struct wire_faults *f, struct fault_shape *shape)
{
	char buf[128], *tok, *save = NULL;

	memset(f, 0, sizeof(*f));
	memset(shape, 0, sizeof(*shape));
	snprintf(buf, sizeof(buf), "%s", str);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':'), *end;
		double v;
		int r;

		if (!colon)
			return -1;
		*colon++ = '\0';
		r = fs_parse(shape, tok, colon);
		if (r < 0)
			return -1;
		if (r > 0)
			continue;
		v = strtod(colon, &end);
		if (*end || v < 0 || v > 1)
			return -1;
		if (!strcmp(tok, "drop"))
			f->drop = v;
		else if (!strcmp(tok, "dup"))
			f->dup = v;
		else if (!strcmp(tok, "reorder"))
			f->reorder = v;
		else if (!strcmp(tok, "corrupt"))
			f->corrupt = v;
		else
			return -1;
	}
	return 0;
}

/* The command-line arguments that repeat this run (make wave uses them). */
static void spec_args(const struct spec *s, char *b, size_t n)
{
	size_t u;

	snprintf(b, n, "--test %s --width %u --seed %" PRIu64 " --messages %u --ref %s --dut %s", s->test, s->width,
		 s->seed, s->messages, s->ref, s->dut);
#define ADD(...) (u = strlen(b), snprintf(b + u, n - u, __VA_ARGS__))
	if (s->engine[0])
		ADD(" --engine %s", s->engine);
	if (s->dut_opts[0])
		ADD(" --dut-opts %s", s->dut_opts);
	if (s->ls_opts[0])
		ADD(" --ls-opts %s", s->ls_opts);
	if (s->bug[0])
		ADD(" --bug %s", s->bug);
	if (s->mutant[0])
		ADD(" --mutant-bug %s", s->mutant);
	if (s->expect[0])
		ADD(" --expect-fail %s", s->expect);
	if (s->ops[0])
		ADD(" --ops %s", s->ops);
	if (s->qpts[0])
		ADD(" --qp-types %s", s->qpts);
	if (s->pairs)
		ADD(" --pairs %u", s->pairs);
	if (s->outstanding)
		ADD(" --outstanding %u", s->outstanding);
	if (s->max_sge)
		ADD(" --max-sge %u", s->max_sge);
	if (s->max_len)
		ADD(" --max-len %u", s->max_len);
	if (s->faults[0])
		ADD(" --faults %s", s->faults);
	if (s->timeout)
		ADD(" --timeout %u", s->timeout);
	if (s->rnr_timer)
		ADD(" --rnr-timer %u", s->rnr_timer);
	if (s->late_recv)
		ADD(" --late-recv %u", s->late_recv);
	if (s->no_events)
		ADD(" --no-events");
#undef ADD
}

static void write_run_file(const struct spec *s, const struct outcome *o)
{
	char args[1024];

	char dir[400], path[512];
	FILE *f;

	run_dir(s, dir, sizeof(dir));
	mkdirs(dir);
	snprintf(path, sizeof(path), "%s/run.txt", dir);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "test=%s\nwidth=%u\nseed=%" PRIu64 "\nmessages=%u\nref=%s\ndut=%s\ndut_opts=%s\nbug=%s\nops=%s\n",
		s->test, s->width, s->seed, s->messages, s->ref, s->dut, s->dut_opts, s->bug, s->ops);
	spec_args(s, args, sizeof(args));
	fprintf(f, "args=%s\n", args);
	fprintf(f, "pass=%d\ndiverged=%d\n", o->pass, o->diverged);
	if (o->diverged)
		fprintf(f, "node=%d\nstream=%s\nfield=%s\ncycle=%" PRIu64 "\n", o->node, o->div.stream, o->div.field,
			o->div.cycle);
	if (o->tr.errors)
		fprintf(f, "traffic_error=%s\n", o->tr.first_error);
	fclose(f);
	if (o->diverged) {
		snprintf(path, sizeof(path), "%s/report.txt", dir);
		f = fopen(path, "w");
		if (f) {
			fputs(o->report, f);
			fclose(f);
		}
	}
}

/* A `bug` without a value plants the default bug of the run's DUT (COSIM_BUG overrides). */
#define BUG_DEFAULT "@default"
static void resolve_bug(struct spec *s)
{
	if (strcmp(s->bug, BUG_DEFAULT))
		return;
	snprintf(s->bug, sizeof(s->bug), "%s",
		 getenv("COSIM_BUG") ? getenv("COSIM_BUG") : !strcmp(s->dut, "rtl") ? "bug=hdr_bit" : "bug=hdr_se,at=3");
}

static void run_one(const struct spec *s, struct outcome *o)
{
	static struct tr_msg list[DIRECTED_MAX_MSGS];
	static struct fault_shape shape;	/* the tb filter's state while tr_run runs */
	struct tr_cfg cfg;
	struct tb_config tc;
	struct hook h;
	struct tb *tb;
	double t0 = now_s();

	memset(o, 0, sizeof(*o));
	o->node = -1;
	if (build_cfg(s, &cfg, list, o->why, sizeof(o->why)))
		return;
	memset(&h, 0, sizeof(h));
	h.s = s;
	for (int i = 0; i < 2; i++) {
		if (s->engine[0]) {	/* the engine alone: its own options, no comparison */
			snprintf(h.opts[i], sizeof(h.opts[i]), "%s", s->dut_opts);
			continue;
		}
		bool wrap = i == 0 && s->mutant[0];

		snprintf(h.opts[i], sizeof(h.opts[i]), "ref=%s,dut=%s,label=node%d,quiet=1", s->ref,
			 wrap ? "model-mutant" : s->dut, i);
		prefix_opts(h.opts[i], sizeof(h.opts[i]), s->dut_opts);
		if (s->ls_opts[0])
			snprintf(h.opts[i] + strlen(h.opts[i]), sizeof(h.opts[i]) - strlen(h.opts[i]), ",%s", s->ls_opts);
		if (i == 0)
			prefix_opts(h.opts[i], sizeof(h.opts[i]), s->bug);
		if (wrap) {	/* a host-interface bug of model-mutant around the run's DUT (the RTL) */
			char mo[200];

			snprintf(mo, sizeof(mo), "%s%s,bug=%s", strcmp(s->dut, "model-mutant") ? "inner=" : "",
				 strcmp(s->dut, "model-mutant") ? s->dut : "", s->mutant);
			prefix_opts(h.opts[i], sizeof(h.opts[i]), mo[0] == ',' ? mo + 1 : mo);
		}
	}
	memset(&tc, 0, sizeof(tc));
	tc.engine = s->engine[0] ? s->engine : "lockstep";
	if (cov_dir) {
		for (int i = 0; i < 2; i++) {
			char prefix[512], eng[32], opts[1024];

			snprintf(prefix, sizeof(prefix), "%s/%s-w%u-s%" PRIu64 "-%s-node%d", cov_dir, s->test, s->width,
				 s->seed, s->engine[0] ? s->engine : s->dut, i);
			if (cov_wrap_config(tc.engine, h.opts[i], prefix, eng, sizeof(eng), opts, sizeof(opts))) {
				snprintf(o->why, sizeof(o->why), "--cov: options too long");
				return;
			}
			snprintf(h.opts[i], sizeof(h.opts[i]), "%s", opts);
			snprintf(h.engine, sizeof(h.engine), "%s", eng);
		}
		tc.engine = h.engine;
	}
	tc.seed = s->seed;
	memset(&shape, 0, sizeof(shape));
	if (s->faults[0] && parse_faults(s->faults, &tc.faults, &shape)) {
		snprintf(o->why, sizeof(o->why), "bad faults '%s' (drop:P,dup:P,reorder:P,corrupt:P,last:N)", s->faults);
		return;
	}
	tc.engine_config = engine_config;
	tc.engine_config_ctx = &h;
	tc.threads = cov_dir ? 1 : s->threads;
	tb = tb_create(&tc);
	if (!tb) {
		snprintf(o->why, sizeof(o->why), "cannot create the testbench (engines: ref %s, dut %s)", s->ref, s->dut);
		return;
	}
	fs_attach(tb, &shape);
	tr_run(tb, &cfg, &o->tr);
	wire_get_stats(tb_wire(tb), &o->wire);
	o->shape_dropped = shape.dropped;
	for (unsigned int i = 0; i < 2 && !s->engine[0]; i++) {
		struct hca_engine *e = tb_node(tb, i)->eng;
		const struct sb_divergence *d;
		struct lockstep_stats st;

		lockstep_finish(e, "end of test");
		d = lockstep_divergence(e);
		if (d && (!o->diverged || d->cycle < o->div.cycle)) {
			o->diverged = true;
			o->node = (int)i;
			o->div = *d;
			snprintf(o->report, sizeof(o->report), "%s", d->report);
			o->div.report = o->report;
		}
		lockstep_get_stats(e, &st);
		o->frames += st.frames;
		o->dma_bytes += st.dma_bytes;
		o->irqs += st.irqs;
	}
	tb_destroy(tb);
	o->wall = now_s() - t0;
	if (s->expect[0]) {
		o->pass = o->diverged && strncmp(o->div.stream, s->expect, strlen(s->expect)) == 0;
		if (!o->diverged)
			snprintf(o->why, sizeof(o->why), "expected a divergence in %s; none seen (the checker missed the bug)",
				 s->expect);
		else if (!o->pass)
			snprintf(o->why, sizeof(o->why), "expected a divergence in %s; first was in %s", s->expect,
				 o->div.stream);
		else
			snprintf(o->why, sizeof(o->why), "caught as expected: %s", o->div.summary);
	} else {
		o->pass = !o->diverged && o->tr.errors == 0;
		if (o->diverged)
			snprintf(o->why, sizeof(o->why), "%s", o->div.summary);
		else if (o->tr.errors)
			snprintf(o->why, sizeof(o->why), "traffic: %s", o->tr.first_error);
	}
	write_run_file(s, o);
}

static void print_header(void)
{
	printf("%-10s %5s %6s %6s %11s %7s %9s %5s %8s %-6s %7s\n", "test", "width", "seed", "msgs", "cycles",
	       "frames", "dma-KiB", "irqs", "mismatch", "result", "wall-s");
}

static void print_row(const struct spec *s, const struct outcome *o)
{
	char dir[400];

	printf("%-10s %5u %6" PRIu64 " %6u %11" PRIu64 " %7" PRIu64 " %9" PRIu64 " %5" PRIu64 " %8d %-6s %7.2f\n",
	       s->test, s->width, s->seed, o->tr.completed, o->tr.cycles, o->frames, o->dma_bytes / 1024, o->irqs,
	       o->diverged ? 1 : 0, o->pass ? (s->expect[0] ? "CAUGHT" : "PASS") : "FAIL", o->wall);
	if (o->why[0] && (!o->pass || verbose))
		printf("    %s\n", o->why);
	if (s->faults[0] && verbose)
		printf("    wire: %" PRIu64 " dropped, %" PRIu64 " duplicated, %" PRIu64 " reordered, %" PRIu64
		       " corrupted of %" PRIu64 "\n", o->wire.dropped, o->wire.duplicated, o->wire.reordered,
		       o->wire.corrupted, o->wire.copies);
	if (o->shape_dropped && verbose)
		printf("    directed: %" PRIu64 " message-ending request packets lost (faults last:N)\n", o->shape_dropped);
	if (!o->pass || verbose > 1) {
		if (o->diverged && (!s->expect[0] || verbose > 1))
			printf("%s", o->report);
		if (!o->pass) {
			run_dir(s, dir, sizeof(dir));
			char args[1024];

			spec_args(s, args, sizeof(args));
			printf("    reproduce: build/sim/cosim %s\n", args);
			if (o->diverged)
				printf("    waveform : make wave TEST=%s SEED=%" PRIu64 " WIDTH=%u   (report: %s/report.txt)\n",
				       s->test, s->seed, s->width, dir);
		}
	}
	fflush(stdout);
}

/* --result FILE: "test width seed result cycles wall-s why" per run (one file per job). */
static void result_row(const struct spec *s, const struct outcome *o)
{
	if (!result_f)
		return;
	fprintf(result_f, "%s %u %" PRIu64 " %s %" PRIu64 " %.2f %s\n", s->test, s->width, s->seed,
		o->pass ? (s->expect[0] ? "CAUGHT" : "PASS") : "FAIL", o->tr.cycles, o->wall, o->pass ? "" : o->why);
	fflush(result_f);
}

/* One line per run in $HCASIM_RESULTS, when set (tools/run-tests.sh, make sim):
 * "pass|fail<TAB>name<TAB>seconds<TAB>why", the runs' cases in the JUnit report. */
static void record_result(const struct spec *s, const struct outcome *o)
{
	const char *path = getenv("HCASIM_RESULTS");
	char why[sizeof(o->why)], tag[300];
	FILE *f;

	if (!path || !path[0] || !(f = fopen(path, "a")))
		return;
	snprintf(why, sizeof(why), "%s", o->why);
	for (char *c = why; *c; c++)
		if (*c == '\t' || *c == '\n')
			*c = ' ';
	/* a planted bug is named: "bug=nak_code" -> "-bug-nak_code" */
	snprintf(tag, sizeof(tag), "%s%s", s->bug[0] ? "-bug" : "",
		 s->bug[0] && strchr(s->bug, '=') && !strchr(s->bug, ',') ? strchr(s->bug, '=') : "");
	if (tag[4] == '=')
		tag[4] = '-';
	fprintf(f, "%s\t%s-w%u-s%" PRIu64 "%s%s%s\t%.2f\t%s\n", o->pass ? "pass" : "fail", s->test, s->width, s->seed,
		s->engine[0] ? "-" : "", s->engine[0] ? s->engine : tag, s->faults[0] ? "-faults" : "", o->wall, why);
	fclose(f);
}

/* Runs a plan file holds (lines with a test, --only applied). */
static unsigned int plan_runs(FILE *f, const char *only)
{
	char line[1024], *tok, *save;
	unsigned int n = 0;

	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '#'))
			*strchr(line, '#') = '\0';
		tok = strtok_r(line, " \t\r\n", &save);
		if (tok && (!only || !strcmp(only, tok)))
			n++;
	}
	rewind(f);
	return n;
}

static void spec_default(struct spec *s)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->test, sizeof(s->test), "random");
	s->width = 64;
	s->seed = 1;
	s->messages = 200;
	snprintf(s->ref, sizeof(s->ref), "model");
	snprintf(s->dut, sizeof(s->dut), "%s", default_dut);
	s->trace_node = -1;
	s->threads = hca_rtl_mutsel ? 1 : 2;
}

/* key=value (or a bare flag) of a plan line or the command line; 0 or -1 */
static int set_key(struct spec *s, const char *k, const char *v)
{
#define SETS(f) snprintf(s->f, sizeof(s->f), "%s", v ? v : "")
	if (!strcmp(k, "test")) SETS(test);
	else if (!strcmp(k, "width")) s->width = (unsigned int)strtoul(v, NULL, 0);
	else if (!strcmp(k, "seed")) s->seed = strtoull(v, NULL, 0);
	else if (!strcmp(k, "messages")) s->messages = (unsigned int)strtoul(v, NULL, 0);
	else if (!strcmp(k, "ref")) SETS(ref);
	else if (!strcmp(k, "dut")) SETS(dut);
	else if (!strcmp(k, "engine")) SETS(engine);
	else if (!strcmp(k, "dut-opts")) SETS(dut_opts);
	else if (!strcmp(k, "ls-opts")) SETS(ls_opts);
	else if (!strcmp(k, "bug")) snprintf(s->bug, sizeof(s->bug), "%s", v ? v : BUG_DEFAULT);
	else if (!strcmp(k, "mutant-bug")) SETS(mutant);
	else if (!strcmp(k, "expect") || !strcmp(k, "expect-fail")) SETS(expect);
	else if (!strcmp(k, "ops")) SETS(ops);
	else if (!strcmp(k, "qp-types")) SETS(qpts);
	else if (!strcmp(k, "pairs")) s->pairs = (unsigned int)strtoul(v, NULL, 0);
	else if (!strcmp(k, "outstanding")) s->outstanding = (unsigned int)strtoul(v, NULL, 0);
	else if (!strcmp(k, "max-sge")) s->max_sge = (unsigned int)strtoul(v, NULL, 0);
	else if (!strcmp(k, "max-len")) s->max_len = (uint32_t)strtoul(v, NULL, 0);
	else if (!strcmp(k, "no-events")) s->no_events = true;
	else if (!strcmp(k, "faults")) SETS(faults);
	else if (!strcmp(k, "timeout")) s->timeout = (unsigned int)strtoul(v, NULL, 0);
	else if (!strcmp(k, "rnr-timer")) s->rnr_timer = (unsigned int)strtoul(v, NULL, 0);
	else if (!strcmp(k, "late-recv")) s->late_recv = (unsigned int)strtoul(v, NULL, 0);
	else if (!strcmp(k, "trace")) SETS(trace);
	else if (!strcmp(k, "trace-node")) s->trace_node = atoi(v);
	else if (!strcmp(k, "trace-from")) s->trace_from = strtoull(v, NULL, 0);
	else if (!strcmp(k, "trace-to")) s->trace_to = strtoull(v, NULL, 0);
	else if (!strcmp(k, "threads")) s->threads = (unsigned int)strtoul(v, NULL, 0);
	else return -1;
#undef SETS
	return 0;
}

static bool needs_value(const char *k)
{
	return strcmp(k, "no-events") != 0 && strcmp(k, "bug") != 0;
}

static void usage(void)
{
	printf("usage: cosim [--test NAME] [--width 64|512] [--seed S] [--messages N] [--dut NAME] [--ref NAME]\n"
	       "             [--dut-opts K=V,...] [--ls-opts K=V,...] [--bug [K=V,...]] [--mutant-bug NAME[,at=N]] [--expect-fail STREAM] [--ops MIX]\n"
	       "             [--qp-types rc,uc,ud] [--pairs N] [--outstanding N] [--max-sge N] [--max-len N] [--no-events]\n"
	       "             [--faults drop:P,dup:P,reorder:P,corrupt:P,last:N] [--timeout T] [--rnr-timer C] [--late-recv PCT]\n"
	       "             [--trace FILE --trace-node N --trace-from C --trace-to C] [--out DIR] [--threads 1|2]\n"
	       "             [--plan FILE [--only TEST] [--shard i/N]] [--engine NAME (alone, no lockstep)] [--list] [-v]\n"
	       "             [--cov DIR (functional coverage counts)] [--result FILE (one line per run)]\n"
	       "default DUT: %s; default --bug (planted in node 0's DUT): %s\n", default_dut,
	       getenv("COSIM_BUG") ? getenv("COSIM_BUG") : "bug=hdr_bit with the rtl DUT, bug=hdr_se,at=3 otherwise");
}

static int run_plan(const char *path, const struct spec *base, const char *only)
{
	FILE *f = fopen(path, "r");
	char line[1024], what[128];
	unsigned int pass = 0, failn = 0, lineno = 0, runs_seen = 0;
	struct progress pg;
	uint64_t cycles = 0;
	double wall = 0;

	if (!f) {
		fprintf(stderr, "cosim: %s: %s\n", path, strerror(errno));
		return 2;
	}
	printf("cosim plan %s: reference %s, DUT %s\n", path, base->ref, base->dut);
	print_header();
	progress_init(&pg, (plan_runs(f, only) + (shard_n ? shard_n - 1 - shard_i : 0)) / (shard_n ? shard_n : 1),
		      stdout);
	while (fgets(line, sizeof(line), f)) {
		struct spec s = *base;
		struct outcome *o;
		char *tok, *save = NULL;
		int field = 0;
		bool bad = false;

		lineno++;
		if (strchr(line, '#'))
			*strchr(line, '#') = '\0';
		for (tok = strtok_r(line, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save), field++) {
			char *eq = strchr(tok, '=');

			if (field == 0)
				snprintf(s.test, sizeof(s.test), "%s", tok);
			else if (field == 1)
				s.width = (unsigned int)strtoul(tok, NULL, 0);
			else if (field == 2)
				s.seed = strtoull(tok, NULL, 0);
			else if (field == 3)
				s.messages = (unsigned int)strtoul(tok, NULL, 0);
			else {
				if (eq)
					*eq++ = '\0';
				if (set_key(&s, tok, eq)) {
					fprintf(stderr, "cosim: %s:%u: unknown key '%s'\n", path, lineno, tok);
					bad = true;
				}
			}
		}
		if (field == 0)
			continue;
		if (only && strcmp(only, s.test) != 0)
			continue;
		if (shard_n && runs_seen++ % shard_n != shard_i)
			continue;
		if (s.bug[0] && s.expect[0] && getenv("COSIM_BUG_STREAM"))
			snprintf(s.expect, sizeof(s.expect), "%s", getenv("COSIM_BUG_STREAM"));
		o = calloc(1, sizeof(*o));
		if (!o || bad) {
			failn++;
			free(o);
			progress_step(&pg);
			continue;
		}
		resolve_bug(&s);
		snprintf(what, sizeof(what), "%s w%u s%" PRIu64 "%s", s.test, s.width, s.seed, s.bug[0] ? " bug" : "");
		progress_show(&pg, what);
		run_one(&s, o);
		progress_clear(&pg);
		print_row(&s, o);
		result_row(&s, o);
		record_result(&s, o);
		progress_step(&pg);
		cycles += o->tr.cycles;
		wall += o->wall;
		if (o->pass)
			pass++;
		else
			failn++;
		free(o);
	}
	fclose(f);
	printf("cosim: %u runs, %" PRIu64 " simulated cycles in %.1f s (%.0f cycles/s per device pair)\n", pass + failn,
	       cycles, wall, wall > 0 ? cycles / wall : 0.0);
	printf("%u passed, %u failed\n", pass, failn);
	if (result_f)
		fprintf(result_f, "%u passed, %u failed\n", pass, failn);
	return failn ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct spec s;
	const char *plan = NULL, *only = NULL;
	struct outcome *o;
	int rc;

	hca_model_engine_register();
	hca_lockstep_engine_register();
	hca_mutant_engine_register();
	if (hca_rtl_engine_register)
		hca_rtl_engine_register();
	/* the DUT is the RTL as soon as its engine is linked in */
	default_dut = hca_engine_find("rtl") ? "rtl" : "model-mutant";
	spec_default(&s);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-v")) {
			verbose++;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage();
			return 0;
		} else if (!strcmp(a, "--list")) {
			printf("random     seeded random traffic (--messages, --ops)\n");
			for (const struct directed *d = directed_tests; d->name; d++)
				printf("%-10s %s\n", d->name, d->what);
			return 0;
		} else if (!strcmp(a, "--plan") && i + 1 < argc) {
			plan = argv[++i];
		} else if (!strcmp(a, "--only") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(a, "--out") && i + 1 < argc) {
			out_dir = argv[++i];
		} else if (!strcmp(a, "--cov") && i + 1 < argc) {
			cov_dir = argv[++i];
			mkdirs(cov_dir);
			hca_cov_engine_register();
		} else if (!strcmp(a, "--shard") && i + 1 < argc) {
			if (sscanf(argv[++i], "%u/%u", &shard_i, &shard_n) != 2 || shard_n == 0 || shard_i >= shard_n) {
				fprintf(stderr, "cosim: --shard i/N with 0 <= i < N\n");
				return 2;
			}
		} else if (!strcmp(a, "--result") && i + 1 < argc) {
			result_f = fopen(argv[++i], "w");
			if (!result_f) {
				fprintf(stderr, "cosim: %s: %s\n", argv[i], strerror(errno));
				return 2;
			}
		} else if (!strncmp(a, "--", 2)) {
			const char *k = a + 2, *v = NULL;

			if (needs_value(k)) {
				if (i + 1 >= argc) {
					usage();
					return 2;
				}
				v = argv[++i];
			} else if (!strcmp(k, "bug") && i + 1 < argc && strchr(argv[i + 1], '=')) {
				v = argv[++i];
			}
			if (set_key(&s, k, v)) {
				fprintf(stderr, "cosim: unknown option %s\n", a);
				usage();
				return 2;
			}
		} else {
			usage();
			return 2;
		}
	}
	if (s.engine[0] && !hca_engine_find(s.engine)) {
		fprintf(stderr, "cosim: engine '%s' is not linked into this program\n", s.engine);
		return 2;
	}
	if (!hca_engine_find(s.dut)) {
		fprintf(stderr, "cosim: DUT engine '%s' is not linked into this program\n", s.dut);
		return 2;
	}
	if (plan)
		return run_plan(plan, &s, only);
	o = calloc(1, sizeof(*o));
	if (!o)
		return 2;
	if (s.engine[0])
		printf("cosim: engine %s alone (no lockstep comparison)\n", s.engine);
	else
		printf("cosim: reference %s, DUT %s%s%s\n", s.ref, s.dut, s.bug[0] ? ", planted in node 0: " : "", s.bug);
	print_header();
	resolve_bug(&s);
	run_one(&s, o);
	print_row(&s, o);
	result_row(&s, o);
	record_result(&s, o);
	rc = o->pass ? 0 : 1;
	printf("%u passed, %u failed\n", o->pass ? 1u : 0u, o->pass ? 0u : 1u);
	free(o);
	return rc;
}
