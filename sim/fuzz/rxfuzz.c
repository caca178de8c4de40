// SPDX-License-Identifier: MIT
/*
 * rxfuzz: differential fuzzing of the receive path (docs/sim.md "Differential
 * fuzzing").  Two lockstep devices (reference: the model; DUT: the RTL) on
 * sim/tb.  Seeds: the frames node 1 sends node 0 in a short run of RC, UC
 * and UD traffic (SEND, SEND_WITH_IMM, WRITE, WRITE_WITH_IMM, 0..3000 bytes),
 * plus any pcap given with --corpus (the scapy corpus of tests/oracle).
 * Each fuzz frame is a seed with 1..4 mutations -- a header byte, the
 * opcode, the PSN (in order, duplicate, ahead, far), the destination QP,
 * the rkey, the RETH address/length, the payload length, the pad count, the
 * Q_Key, the IP/UDP length fields -- with the IP checksum and the ICRC
 * usually recomputed so that the frame reaches the transport checks.  It
 * goes straight into node 0 (both engines in lockstep).
 *
 * A divergence between model and RTL fails the run, and so does a DMA write
 * by either engine that lands outside every CQ/EQ ring and registered MR
 * (counted by the "cov" collector wrapped around each engine).  QPs driven
 * to ERR are reset and reconnected, CQs drained, every --batch frames.
 *
 *   rxfuzz --frames 10000 --seed 1 --width 64
 *   rxfuzz --frames 2000 --dut model-mutant --bug rx_rkey --expect-fail   (planted RX bug: must fail)
 *   rxfuzz --frames 1000000 --shard 3/8     (seed + shard; one result line per job with --result)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../model/model.h"
#include "../../model/roce_hdr.h"
#include "cov.h"
#include "lockstep.h"
#include "lockstep_mutant.h"
#include "pcap.h"
#include "tb.h"

extern void hca_rtl_engine_register(void) __attribute__((weak));

#define MAX_SEEDS 4096
#define MAX_FRAME 9000
#define NQP 3		/* RC, UC, UD on each node */

struct seedf {
	uint16_t len;
	uint8_t b[MAX_FRAME];
};

static struct {
	unsigned int width;
	uint64_t seed, frames;
	unsigned int batch;
	const char *dut, *bug, *corpus, *cov_dir;
	bool expect_fail, verbose;
	unsigned int shard_i, shard_n;
	FILE *result;
} opt = { 64, 1, 10000, 64, "rtl", NULL, NULL, NULL, false, false, 0, 0, NULL };

static struct seedf *seeds;
static unsigned int nseeds;
static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned int rn(unsigned int n)
{
	return n ? (unsigned int)(rnd() % n) : 0;
}

struct fz {
	struct tb *tb;
	struct tb_node *n[2];
	struct tb_cq *cq[2];
	struct tb_qp *qp[2][NQP];
	struct tb_mr *mr[2], *mr_local[2];
	uint32_t pd[2];
	char opts[2][2048];
	bool capture;
};

static void eng_config(void *ctx, unsigned int node, struct hca_engine_config *ec)
{
	struct fz *f = ctx;

	ec->data_w = opt.width;
	ec->options = f->opts[node];
}

/* Seed capture: frames node 1 sends node 0. */
static int capture(void *ctx, unsigned int src, uint8_t *frame, size_t *len, uint64_t now)
{
	struct fz *f = ctx;

	(void)now;
	if (f->capture && src == 1 && nseeds < MAX_SEEDS && *len <= MAX_FRAME) {
		seeds[nseeds].len = (uint16_t)*len;
		memcpy(seeds[nseeds].b, frame, *len);
		nseeds++;
	}
	return TB_PASS;
}

static void post_recvs(struct fz *f, unsigned int node, unsigned int qi, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct tb_sge s = { f->mr_local[node]->va + 4096u * qi + 64u * (i % 16), 8192, f->mr_local[node]->lkey };

		if (tb_post_recv(f->qp[node][qi], &s, 1) < 0)
			break;
	}
}

static int connect_all(struct fz *f)
{
	int r = tb_connect_pair(f->qp[0][0], f->qp[1][0], NULL) | tb_connect_pair(f->qp[0][1], f->qp[1][1], NULL) |
		tb_qp_ud_ready(f->qp[0][2], NULL) | tb_qp_ud_ready(f->qp[1][2], NULL);

	for (unsigned int q = 0; q < NQP; q++)
		post_recvs(f, 0, q, 48);
	return r;
}

static int setup(struct fz *f)
{
	struct tb_config c = { .engine = "lockstep", .nodes = 2, .engine_config = eng_config };
	struct tb_qp_cap cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 2, .max_recv_sge = 2 };

	c.engine_config_ctx = f;
	f->tb = tb_create(&c);
	if (!f->tb)
		return -1;
	tb_set_filter(f->tb, capture, f);
	for (unsigned int i = 0; i < 2; i++) {
		f->n[i] = tb_node(f->tb, i);
		f->pd[i] = tb_pd_alloc(f->n[i]);
		f->cq[i] = tb_cq_create(f->n[i], 12, NULL);
		for (unsigned int q = 0; q < NQP; q++)
			f->qp[i][q] = tb_qp_create(f->n[i], q == 0 ? HCA_QPT_RC : q == 1 ? HCA_QPT_UC : HCA_QPT_UD,
						   f->pd[i], f->cq[i], f->cq[i], NULL, &cap);
		f->mr[i] = tb_mr_reg(f->n[i], f->pd[i], 1 << 16,
				     HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_READ);
		f->mr_local[i] = tb_mr_reg(f->n[i], f->pd[i], 1 << 16, HCA_ACCESS_LOCAL_WRITE);
		if (!f->cq[i] || !f->qp[i][0] || !f->qp[i][1] || !f->qp[i][2] || !f->mr[i] || !f->mr_local[i])
			return -1;
	}
	return connect_all(f);
}

static void drain(struct fz *f)
{
	struct hca_cqe e;

	for (unsigned int i = 0; i < 2; i++)
		while (tb_cq_poll(f->cq[i], &e) == 1)
			;
}

/* Seed traffic: node 1 -> node 0 on every QP type and opcode. */
static void seed_traffic(struct fz *f)
{
	static const uint8_t ops[] = { HCA_WR_SEND, HCA_WR_SEND_WITH_IMM, HCA_WR_RDMA_WRITE, HCA_WR_RDMA_WRITE_WITH_IMM };
	static const uint32_t lens[] = { 0, 1, 4, 200, 1024, 1500, 3000 };

	f->capture = true;
	for (unsigned int q = 0; q < NQP; q++)
		for (unsigned int o = 0; o < 4; o++)
			for (unsigned int l = 0; l < 7; l++) {
				struct tb_sge s = { f->mr[1]->va + 64u * l, lens[l], f->mr[1]->lkey };
				struct tb_send_wr wr = { .opcode = ops[o], .flags = HCA_SEND_SIGNALED, .sge = &s,
							 .num_sge = 1, .imm = 0x12345678u };

				if (q == 2 && (o >= 2 || lens[l] > 1024))
					continue;	/* UD: SENDs within the PMTU */
				wr.raddr = f->mr[0]->va + 512u * l;
				wr.rkey = f->mr[0]->rkey;
				wr.ud_dest = f->qp[0][2];
				wr.ud_qkey = 0x11111111u;
				if (tb_post_send(f->qp[1][q], &wr) < 0)
					continue;
				tb_run(f->tb, 2000000);
				drain(f);
			}
	for (unsigned int q = 0; q < NQP; q++)
		post_recvs(f, 0, q, 64);
	f->capture = false;
}

/* Add the frames of a pcap (the scapy corpus) to the seeds. */
static void load_corpus(const char *path)
{
	struct pcap_reader *r = pcap_reader_open(path);
	struct pcap_frame fr;

	if (!r) {
		fprintf(stderr, "rxfuzz: cannot read %s\n", path);
		return;
	}
	while (nseeds < MAX_SEEDS && pcap_read(r, &fr) == 1)
		if (fr.len <= MAX_FRAME && fr.len >= 58) {
			seeds[nseeds].len = (uint16_t)fr.len;
			memcpy(seeds[nseeds].b, fr.data, fr.len);
			nseeds++;
		}
	pcap_reader_close(r);
}

/* ---- mutation ---------------------------------------------------------- */

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void fix_lengths(uint8_t *b, size_t len)
{
	uint32_t ip = (uint32_t)(len - 14), sum = 0;

	b[16] = (uint8_t)(ip >> 8);
	b[17] = (uint8_t)ip;
	b[38] = (uint8_t)((ip - 20) >> 8);
	b[39] = (uint8_t)(ip - 20);
	b[24] = b[25] = 0;
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)b[14 + i] << 8 | b[15 + i];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	b[24] = (uint8_t)(~sum >> 8);
	b[25] = (uint8_t)~sum;
}

static void fix_icrc(uint8_t *b, size_t len)
{
	uint32_t c;

	if (len < 58)
		return;
	c = roce_icrc(b, len - 4);
	b[len - 4] = (uint8_t)c;
	b[len - 3] = (uint8_t)(c >> 8);
	b[len - 2] = (uint8_t)(c >> 16);
	b[len - 1] = (uint8_t)(c >> 24);
}

static size_t mutate(struct fz *f, uint8_t *b, size_t len)
{
	unsigned int n = 1 + rn(4);
	bool lengths = true, icrc = rn(10) != 0;

	for (unsigned int k = 0; k < n && len >= 58; k++) {
		switch (rn(12)) {
		case 0:		/* any byte of the headers */
			b[rn(len < 96 ? (unsigned int)len : 96)] ^= (uint8_t)(1u << rn(8));
			lengths = rn(2);
			break;
		case 1:		/* opcode */
			b[42] = rn(3) ? (uint8_t)rn(128) : (uint8_t)(rn(2) ? 100 + rn(2) : rn(256));
			break;
		case 2: {	/* PSN: in order, duplicate, ahead, far, wrap */
			uint32_t psn = get32(b + 50) & 0xffffff;
			static const int32_t d[] = { 0, -1, 1, 2, -100, 100, 0x7fffff, -0x800000 };

			psn = (psn + (uint32_t)d[rn(8)]) & 0xffffff;
			if (!rn(8))
				psn = 0xffffff - rn(3);
			put32(b + 50, (get32(b + 50) & 0xff000000u) | psn);
			break;
		}
		case 3: {	/* destination QP */
			uint32_t q = rn(4) ? f->qp[0][rn(NQP)]->qpn : rn(2) ? rn(300) : (uint32_t)rnd() & 0xffffff;

			put32(b + 46, (get32(b + 46) & 0xff000000u) | q);
			break;
		}
		case 4:		/* rkey of a RETH */
			put32(b + 62, rn(2) ? get32(b + 62) ^ (1u << rn(32)) :
				      rn(2) ? f->mr_local[0]->rkey : f->mr[0]->rkey + (uint32_t)rn(3) - 1);
			break;
		case 5:		/* RETH va / length */
			if (rn(2))
				put32(b + 58, get32(b + 58) + (uint32_t)(rn(2) ? rn(0x20000) : rnd()));
			else
				put32(b + 66, rn(2) ? rn(0x20000) : (uint32_t)rnd());
			break;
		case 6:		/* payload length */
			if (rn(2) && len > 62)
				len -= 1 + rn((unsigned int)(len - 62 < 64 ? len - 62 : 64));
			else if (len + 64 <= MAX_FRAME)
				len += 1 + rn(64);
			break;
		case 7:		/* pad count, TVer, M, SE, AckReq bits */
			b[43] ^= (uint8_t)(1u << rn(8));
			b[50] ^= rn(2) ? 0x80 : 0;
			break;
		case 8:		/* Q_Key of a DETH */
			put32(b + 54, rn(2) ? 0x11111111u : (uint32_t)rnd());
			break;
		case 9:		/* IP/UDP length fields left inconsistent */
			lengths = false;
			b[17 + 22 * rn(2)] ^= (uint8_t)(1u << rn(8));
			break;
		case 10:	/* dest IP / MAC */
			b[rn(2) ? 33 : 5] ^= (uint8_t)(1u << rn(8));
			break;
		default:	/* a payload byte */
			b[54 + rn((unsigned int)(len - 58))] ^= 0xff;
			break;
		}
	}
	if (lengths)
		fix_lengths(b, len);
	if (icrc)
		fix_icrc(b, len);
	return len;
}

/* ---- checks ----------------------------------------------------------------- */

static struct cov *side_cov(struct hca_engine *ls, bool dut)
{
	const struct hca_engine_ops *o;

	return cov_of(dut ? lockstep_dut(ls, &o) : lockstep_ref(ls, &o));
}

static int diverged(struct fz *f, char *why, size_t n)
{
	for (unsigned int i = 0; i < 2; i++) {
		const struct sb_divergence *d = lockstep_divergence(f->n[i]->eng);

		if (d) {
			snprintf(why, n, "node %u: %s", i, d->summary);
			if (opt.verbose)
				fputs(d->report, stdout);
			return 1;
		}
	}
	for (unsigned int i = 0; i < 2; i++)
		for (int s = 0; s < 2; s++)
			if (cov_count(side_cov(f->n[i]->eng, s), "dma.write.outside")) {
				snprintf(why, n, "node %u: the %s wrote outside every MR and ring", i, s ? "DUT" : "reference");
				return 1;
			}
	return 0;
}

static void reset_qps(struct fz *f)
{
	for (unsigned int q = 0; q < NQP; q++)
		for (unsigned int i = 0; i < 2; i++)
			tb_qp_modify(f->qp[i][q], HCA_QPS_RESET, 0);
	tb_run(f->tb, 100000);
	for (unsigned int q = 0; q < NQP; q++)
		for (unsigned int i = 0; i < 2; i++) {
			f->qp[i][q]->sq_pi = f->qp[i][q]->rq_pi = 0;
		}
	connect_all(f);
}

static int usage(void)
{
	fprintf(stderr, "usage: rxfuzz [--frames N] [--seed S] [--width 64|512] [--batch N] [--dut rtl|model|model-mutant]\n"
			"              [--bug NAME (model-mutant around the RTL, e.g. rx_rkey)] [--expect-fail]\n"
			"              [--corpus FILE.pcap] [--cov DIR] [--shard i/N] [--result FILE] [-v]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct fz f;
	char why[512] = "", prefix[300];
	uint64_t done = 0;
	int bad = 0;
	double t0;
	struct timespec ts;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-v")) opt.verbose = true;
		else if (!strcmp(a, "--expect-fail")) opt.expect_fail = true;
		else if (!v) return usage();
		else if (!strcmp(a, "--frames")) opt.frames = strtoull(v, NULL, 0), i++;
		else if (!strcmp(a, "--seed")) opt.seed = strtoull(v, NULL, 0), i++;
		else if (!strcmp(a, "--width")) opt.width = (unsigned int)atoi(v), i++;
		else if (!strcmp(a, "--batch")) opt.batch = (unsigned int)atoi(v), i++;
		else if (!strcmp(a, "--dut")) opt.dut = v, i++;
		else if (!strcmp(a, "--bug")) opt.bug = v, i++;
		else if (!strcmp(a, "--corpus")) opt.corpus = v, i++;
		else if (!strcmp(a, "--cov")) opt.cov_dir = v, i++;
		else if (!strcmp(a, "--result")) opt.result = fopen(v, "w"), i++;
		else if (!strcmp(a, "--shard")) {
			if (sscanf(v, "%u/%u", &opt.shard_i, &opt.shard_n) != 2 || opt.shard_i >= opt.shard_n)
				return usage();
			i++;
		} else return usage();
	}
	if (opt.shard_n)	/* one job of N: its own seed, its share of the frames */
		opt.seed = opt.seed * 1000003u + opt.shard_i, opt.frames = (opt.frames + opt.shard_n - 1) / opt.shard_n;
	if (!opt.batch)
		opt.batch = 64;
	rng = opt.seed * 0x9E3779B97F4A7C15ull + 1;
	hca_model_engine_register();
	hca_lockstep_engine_register();
	hca_mutant_engine_register();
	hca_cov_engine_register();
	if (hca_rtl_engine_register)
		hca_rtl_engine_register();
	seeds = calloc(MAX_SEEDS, sizeof(*seeds));
	memset(&f, 0, sizeof(f));
	for (unsigned int i = 0; i < 2; i++) {
		const char *dut = opt.bug && i == 0 ? "model-mutant" : opt.dut;

		snprintf(prefix, sizeof(prefix), "%s/rxfuzz-w%u-s%" PRIu64 "-node%u", opt.cov_dir ? opt.cov_dir : "",
			 opt.width, opt.seed, i);
		snprintf(f.opts[i], sizeof(f.opts[i]),
			 "ref=cov,ref.inner=model%s%s%s,dut=cov,dut.inner=%s%s%s%s%s%s,label=node%u,quiet=1",
			 opt.cov_dir ? ",ref.out=" : "", opt.cov_dir ? prefix : "", opt.cov_dir ? ".ref.model.cov" : "",
			 dut, opt.cov_dir ? ",dut.out=" : "", opt.cov_dir ? prefix : "",
			 opt.cov_dir ? (strcmp(opt.dut, "rtl") ? ".dut.other.cov" : ".dut.rtl.cov") : "",
			 opt.bug && i == 0 ? ",dut.in.inner=rtl,dut.bug=" : "", opt.bug && i == 0 ? opt.bug : "", i);
	}
	if (!seeds || setup(&f)) {
		fprintf(stderr, "rxfuzz: set-up failed (engines linked: DUT %s)\n", opt.dut);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = (double)ts.tv_sec + ts.tv_nsec * 1e-9;
	seed_traffic(&f);
	if (opt.corpus)
		load_corpus(opt.corpus);
	printf("rxfuzz: width %u, seed %" PRIu64 ", DUT %s%s%s, %u seed frames, %" PRIu64 " frames\n", opt.width,
	       opt.seed, opt.dut, opt.bug ? ", planted " : "", opt.bug ? opt.bug : "", nseeds, opt.frames);
	bad = diverged(&f, why, sizeof(why));
	while (!bad && done < opt.frames && nseeds) {
		const struct hca_engine_ops *ops = f.n[0]->ops;

		for (unsigned int k = 0; k < opt.batch && done < opt.frames; k++, done++) {
			uint8_t b[MAX_FRAME + 64];
			const struct seedf *s = &seeds[rn(nseeds)];
			size_t len;

			memcpy(b, s->b, s->len);
			len = mutate(&f, b, s->len);
			ops->rx_frame(f.n[0]->eng, b, len);
			if (rn(4) == 0)
				tb_run(f.tb, 200);
		}
		tb_run(f.tb, 4000000);
		drain(&f);
		bad = diverged(&f, why, sizeof(why));
		if (!bad && (done / opt.batch) % 8 == 0)
			reset_qps(&f);
	}
	for (unsigned int i = 0; i < 2 && !bad; i++)
		if (!lockstep_finish(f.n[i]->eng, "end of fuzzing"))
			bad = diverged(&f, why, sizeof(why)) ? 1 : (snprintf(why, sizeof(why), "node %u: final state", i), 1);
	if (!bad)
		bad = diverged(&f, why, sizeof(why));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("rxfuzz: %" PRIu64 " frames in %.1f s, %s%s%s\n", done, (double)ts.tv_sec + ts.tv_nsec * 1e-9 - t0,
	       bad ? "FAILED: " : "no divergence, no write outside an MR", bad ? why : "", "");
	tb_destroy(f.tb);
	free(seeds);
	bad = opt.expect_fail ? !bad : bad;
	if (opt.expect_fail)
		printf("rxfuzz: planted bug %s %s\n", opt.bug ? opt.bug : "", bad ? "NOT caught" : "caught");
	if (opt.result)
		fprintf(opt.result, "rxfuzz w%u s%" PRIu64 " frames %" PRIu64 " %s %s\n", opt.width, opt.seed, done,
			bad ? "FAIL" : "PASS", why);
	printf("%d passed, %d failed\n", bad ? 0 : 1, bad ? 1 : 0);
	return bad;
}
