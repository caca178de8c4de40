/* SPDX-License-Identifier: MIT */
/*
 * Shared set-up of the RTL engine tests that run each scenario on two
 * "lockstep" devices (reference: the C model, DUT: the RTL; --engine
 * rtl|model|lockstep), so that any difference from the golden model is a
 * divergence: setup_objs() builds per node a PD, a send and a receive CQ and
 * a 1 MiB MR; setup() adds an RC/UC/UD QP pair; every frame is decoded into
 * t->cap; finish() lets both sides go idle and requires lockstep_finish() to
 * be clean.  Used by rtl_errors, rtl_read, rtl_states (and rtl_retry).
 */
#ifndef HCASIM_SIM_RTL_TESTS_RTL_LS_H
#define HCASIM_SIM_RTL_TESTS_RTL_LS_H

#include "hostmem.h"
#include "rtl_t.h"
#include "lockstep.h"

extern void hca_model_engine_register(void);

static const char *engine = "lockstep";

/*
 * rt_options (--options K=V,..., or a scenario's own) for the engine the
 * scenario runs on: lockstep takes them as they are (dut.K=V reach the RTL,
 * ref.K=V the model); a plain "rtl" engine takes dut.K=V as K=V and drops
 * ref.K=V, the "model" engine the other way round (so one --options serves
 * a test whose scenarios run on lockstep and then on plain rtl).  NULL when
 * nothing is left.
 */
static const char *ls_options_for(const char *eng, const char *opts, char *buf, size_t n)
{
	const char *mine = !strcmp(eng, "model") ? "ref." : "dut.", *other = !strcmp(eng, "model") ? "dut." : "ref.";
	size_t used = 0;

	if (!opts || !strcmp(eng, "lockstep"))
		return opts;
	buf[0] = 0;
	for (const char *p = opts; *p;) {
		size_t len = strcspn(p, ",");

		if (len && strncmp(p, other, 4)) {
			const char *k = strncmp(p, mine, 4) ? p : p + 4;
			size_t kl = len - (size_t)(k - p);

			if (used + kl + 2 < n) {
				used += (size_t)snprintf(buf + used, n - used, "%s%.*s", used ? "," : "", (int)kl, k);
			}
		}
		p += len + (p[len] == ',');
	}
	return buf[0] ? buf : NULL;
}

/* lockstep's options; --options K=V,... are added (ls_options_for) */
static void ls_config(void *ctx, unsigned int node, struct hca_engine_config *ec)
{
	static char opts[512], mapped[512];

	rt_engine_config(ctx, node, ec);
	if (!strcmp(engine, "lockstep")) {
		snprintf(opts, sizeof(opts), "quiet=1%s%s", rt_options ? "," : "", rt_options ? rt_options : "");
		ec->options = opts;
	} else
		ec->options = ls_options_for(engine, rt_options, mapped, sizeof(mapped));
}

/* tb_create for a test's scenario; a testbench that cannot be created
 * leaves nothing to go on with (a bad --options, most likely: the engine's
 * message above): the test stops with the count so far and a failed check. */
static struct tb *rt_tb_create(const struct tb_config *c)
{
	struct tb *tb = tb_create(c);

	if (!tb) {
		CHECK(0, "the %s testbench could not be created (options \"%s\")", engine,
		      rt_options ? rt_options : "");
		exit(check_done());
	}
	return tb;
}

/* The testbench with a wire of `latency` cycles (0: the testbench's
 * default), and per node a PD, two CQs of 2^cq_log entries, a 1 MiB MR; no QP. */
static int setup_objs_latency(struct rt *t, unsigned int cq_log, uint64_t latency)
{
	struct tb_config c = { .engine = engine, .nodes = 2, .engine_config = ls_config, .latency = latency };

	memset(t, 0, sizeof(*t));
	t->tb = rt_tb_create(&c);
	tb_set_filter(t->tb, rt_cap_filter, &t->cap);
	for (int i = 0; i < 2; i++) {
		t->n[i] = tb_node(t->tb, (unsigned int)i);
		t->pd[i] = tb_pd_alloc(t->n[i]);
		t->scq[i] = tb_cq_create(t->n[i], cq_log, NULL);
		t->rcq[i] = tb_cq_create(t->n[i], cq_log, NULL);
		t->mr[i] = tb_mr_reg(t->n[i], t->pd[i], 1 << 20, RT_ACC_ALL);
	}
	return 0;
}

static int setup_objs(struct rt *t, unsigned int cq_log)
{
	return setup_objs_latency(t, cq_log, 0);
}

static int setup(struct rt *t, uint8_t type, const struct tb_qp_attr *attr, const struct tb_qp_cap *cap,
		 unsigned int cq_log)
{
	if (setup_objs(t, cq_log))
		return -1;
	for (int i = 0; i < 2; i++)
		t->qp[i] = tb_qp_create(t->n[i], type, t->pd[i], t->scq[i], t->rcq[i], NULL, cap);
	if (type == HCA_QPT_UD)
		return tb_qp_ud_ready(t->qp[0], attr) | tb_qp_ud_ready(t->qp[1], attr);
	return tb_connect_pair(t->qp[0], t->qp[1], attr);
}

/* An RC pair whose node-1 QP receives from the SRQ q (the caller's, on node
 * 1), four receives of 256 B at MR 1's start posted to q, node 1's events
 * cleared (rtl_errors, rtl_bounds, rtl_ctx_rewrite: SRQ limit events). */
static inline void srq_pair_posted(struct rt *t, struct tb_srq *q)
{
	struct tb_sge r = rt_sge(t->mr[1], 0, 256);

	t->qp[0] = tb_qp_create(t->n[0], HCA_QPT_RC, t->pd[0], t->scq[0], t->rcq[0], NULL, NULL);
	t->qp[1] = tb_qp_create(t->n[1], HCA_QPT_RC, t->pd[1], t->scq[1], t->rcq[1], q, NULL);
	tb_connect_pair(t->qp[0], t->qp[1], NULL);
	tb_evt_clear(t->n[1]);
	for (int i = 0; i < 4; i++)
		tb_srq_post(q, &r, 1);
}

/* End of a scenario: run idle, the lockstep engines must finish clean. */
static void finish(struct rt *t, const char *what)
{
	tb_run(t->tb, RT_WAIT);
	for (int i = 0; i < 2; i++) {
		struct hca_engine *e = t->n[i]->eng;

		if (lockstep_is(e)) {
			const struct sb_divergence *d;

			CHECK(lockstep_finish(e, what), "%s: node %d matches the model", what, i);
			d = lockstep_divergence(e);
			if (d)
				printf("---- %s, node %d:\n%s\n", what, i, d->report);
		}
	}
	for (int i = 0; i < 2; i++) {
		free(t->scq[i]);
		free(t->rcq[i]);
		free(t->qp[i]);
		free(t->mr[i]);
	}
	tb_destroy(t->tb);
}

/* setup() of an RC pair (CQs of 2^10, QP capabilities `cap` or the
 * defaults) with one option of the RTL's harness, `opt` (e.g. "rd_lat=2000":
 * the rtl engine's option, dut.<opt> under lockstep; none for the model,
 * which has no such options and would refuse them); the option holds for
 * this testbench only, in place of --options. */
static inline int setup_harness_opt(struct rt *t, const struct tb_qp_attr *attr, const struct tb_qp_cap *cap,
				    const char *opt)
{
	static char o[64];
	const char *saved = rt_options;
	int r;

	if (strcmp(engine, "model")) {
		snprintf(o, sizeof(o), "%s%s", strcmp(engine, "lockstep") ? "" : "dut.", opt);
		rt_options = o;
	}
	r = setup(t, HCA_QPT_RC, attr, cap, 10);
	rt_options = saved;
	return r;
}

/* ... whose RTL reads host memory after rd_lat cycles (the harness's rd_lat). */
static inline int setup_rd_lat_cap(struct rt *t, const struct tb_qp_attr *attr, const struct tb_qp_cap *cap,
				   unsigned int rd_lat)
{
	char opt[32];

	snprintf(opt, sizeof(opt), "rd_lat=%u", rd_lat);
	return setup_harness_opt(t, attr, cap, opt);
}

static inline int setup_rd_lat(struct rt *t, const struct tb_qp_attr *attr, unsigned int rd_lat)
{
	return setup_rd_lat_cap(t, attr, NULL, rd_lat);
}

/* Writes node `i`'s MRC `idx`: `valid`, key byte `key`, `access`, PD
 * `pdn`, `length` bytes at `va` translated from IOVA `dma` on. */
static inline void mrc_write_pd_on(struct rt *t, int i, uint32_t idx, uint8_t key, uint32_t access, uint32_t pdn,
				   uint64_t va, uint64_t length, uint64_t dma, bool valid)
{
	struct hca_mrc m;

	memset(&m, 0, sizeof(m));
	m.valid = valid;
	m.key = key;
	m.access = access;
	m.pdn = pdn;
	m.va = va;
	m.length = length;
	m.dma_addr = dma;
	tb_ctx_write(t->n[i], HCA_CTX_TYPE_MRC, idx, &m, sizeof(m));
}

/* The same, valid, in node i's PD. */
static inline void mrc_write_on(struct rt *t, int i, uint32_t idx, uint8_t key, uint32_t access, uint64_t va,
				uint64_t length, uint64_t dma)
{
	mrc_write_pd_on(t, i, idx, key, access, t->pd[i], va, length, dma, true);
}

/* Node `i`'s MR `idx` (key idx << 8 | 0x42, at `va`, 16 KiB, `access`)
 * whose first page is mapped in the IOMMU and the rest not: a DMA past
 * va + 0x1000 faults, at IOVA (the return value) + 0x1000. */
static inline uint64_t half_mapped_mr_on(struct rt *t, int i, uint32_t idx, uint64_t va, uint32_t access)
{
	uint64_t iova;

	tb_alloc(t->n[i], 4096, &iova);
	mrc_write_on(t, i, idx, 0x42, access, va, 16384, iova);
	return iova;
}

/* The same on node 0, LOCAL_WRITE (the requester's gather faults). */
static inline uint64_t half_mapped_mr_at(struct rt *t, uint32_t idx, uint64_t va)
{
	return half_mapped_mr_on(t, 0, idx, va, HCA_ACCESS_LOCAL_WRITE);
}

/* MR 900 at va 0x5000000, the one most fault tests use. */
static inline uint64_t half_mapped_mr(struct rt *t)
{
	return half_mapped_mr_at(t, 900, 0x5000000);
}

static inline int wait_cqe(struct tb_cq *cq, struct hca_cqe *c)
{
	memset(c, 0, sizeof(*c));
	return tb_cq_wait(cq, c, RT_WAIT);
}

/* Node 1's receive queue moved to `iova` (mapped there, and at no address
 * that differs from it in one of the bits of `alias_bits`), then three
 * two-packet SENDs (PMTU 1024) into three posted receives: CQEs, data and
 * no DMA fault, payload bytes seeded from `seed`. */
static inline void recv_at_rq_iova(uint64_t iova, uint64_t alias_bits, uint32_t seed, const char *what)
{
	struct rt t;
	struct tb_sge s, r;
	struct tb_send_wr w;
	struct hca_cqe c;
	struct tb_qp *q;
	size_t len;
	int alias = 0;

	setup_objs(&t, 10);
	for (int i = 0; i < 2; i++)
		t.qp[i] = tb_qp_create(t.n[i], HCA_QPT_RC, t.pd[i], t.scq[i], t.rcq[i], NULL, NULL);
	q = t.qp[1];
	len = (size_t)1 << (q->qpc.log_rq_size + q->qpc.log_rq_stride);
	CHECK(hostmem_map(t.n[1]->hm, iova, q->rq, len, HOSTMEM_RW) == 0, "RQ mapped at 0x%llx",
	      (unsigned long long)iova);
	for (unsigned int b = 0; b < 64; b++)
		if (alias_bits >> b & 1)
			alias |= hostmem_ptr(t.n[1]->hm, iova & ~(1ull << b), 1) != NULL;
	CHECK(!alias, "nothing mapped at 0x%llx without one of the bits 0x%llx", (unsigned long long)iova,
	      (unsigned long long)alias_bits);
	q->qpc.rq_base = iova;
	tb_connect_pair(t.qp[0], t.qp[1], NULL);
	for (unsigned int i = 0; i < 3; i++) {
		r = rt_sge(t.mr[1], 0x1000 * i, 0x800);
		tb_post_recv(q, &r, 1);
	}
	for (unsigned int i = 0; i < 3; i++) {
		rt_fill(t.mr[0]->buf + 0x1000 * i, 0x600, seed + i);
		s = rt_sge(t.mr[0], 0x1000 * i, 0x600);	/* two packets at PMTU 1024 */
		w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
		tb_post_send(t.qp[0], &w);
	}
	for (unsigned int i = 0; i < 3; i++) {
		CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS && c.byte_len == 0x600 && c.wqe_index == i,
		      "receive %u from the RQ at 0x%llx (%s)", i, (unsigned long long)iova,
		      hca_wc_status_name(c.status));
		CHECK(rt_check(t.mr[1]->buf + 0x1000 * i, 0x600, seed + i), "receive %u: data", i);
	}
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_DMA_FAULT), 0, "no DMA fault");
	finish(&t, what);
}

/* The command line, for rt_ls_want. */
static int rt_ls_argc;
static char **rt_ls_argv;

/* A test's start: `--engine NAME` (default lockstep) and rt_args' options,
 * the model and lockstep engines registered, the engine printed. */
static inline void rt_ls_start(int argc, char **argv)
{
	rt_ls_argc = argc;
	rt_ls_argv = argv;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--engine") && i + 1 < argc)
			engine = argv[++i];
	rt_args(argc, argv);
	hca_model_engine_register();
	hca_lockstep_engine_register();
	printf("engine %s\n", engine);
}

/* The engines a race test runs on in turn: "lockstep" first (every frame,
 * CQE and event compared with the model), then plain "rtl" (lockstep lets
 * the DUT catch up with the reference before a context write, sim/lockstep.c
 * catch_up, so only there does a write land at the cycle the test asks for;
 * the test's own checks then); only the engine `--engine` names when one is
 * given.  After rt_ls_start: rt_ls_passes() runs, rt_ls_pass(k) sets the
 * k-th's engine. */
static inline unsigned int rt_ls_passes(void)
{
	for (int i = 1; i < rt_ls_argc; i++)
		if (!strcmp(rt_ls_argv[i], "--engine"))
			return 1;
	return 2;
}

static inline void rt_ls_pass(unsigned int k)
{
	static const char *const engines[] = { "lockstep", "rtl" };

	if (rt_ls_passes() > 1)
		engine = engines[k];
}

/* Case `name` selected (tests run by case name): no CASE arguments (the
 * words that are not an option or its value), or one of them. */
static inline bool rt_ls_want(const char *name)
{
	bool any = false;

	for (int i = 1; i < rt_ls_argc; i++) {
		if (rt_ls_argv[i][0] == '-') {
			i++;
			continue;
		}
		any = true;
		if (!strcmp(rt_ls_argv[i], name))
			return true;
	}
	return !any;
}

#endif
