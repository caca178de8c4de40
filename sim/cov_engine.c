// SPDX-License-Identifier: MIT
/*
 * The "cov" engine: wraps any engine and feeds everything that crosses its
 * interface to a coverage collector (sim/cov.h).  It changes nothing: same
 * calls, same results, same timing as the engine it wraps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cov.h"
#include "hcasim/hca_spec.h"

#define COV_MAGIC 0x434f5645u	/* "COVE" */

struct cov_engine {
	uint32_t magic;
	const struct hca_engine_ops *iops;
	struct hca_engine *in;
	struct hca_host_ops host;
	void *host_ctx;
	struct cov *cov;
	char out[512];
};

#define to_ce(e) ((struct cov_engine *)(void *)(e))

static int c_dma_read(void *h, uint64_t iova, void *buf, size_t len)
{
	struct cov_engine *ce = h;
	int rc = ce->host.dma_read(ce->host_ctx, iova, buf, len);

	cov_dma_read(ce->cov, iova, buf, len, rc);
	return rc;
}

static int c_dma_write(void *h, uint64_t iova, const void *buf, size_t len)
{
	struct cov_engine *ce = h;
	int rc = ce->host.dma_write(ce->host_ctx, iova, buf, len);

	cov_dma_write(ce->cov, iova, buf, len, rc);
	return rc;
}

static void c_tx_frame(void *h, const uint8_t *frame, size_t len)
{
	struct cov_engine *ce = h;

	cov_tx_frame(ce->cov, frame, len);
	ce->host.tx_frame(ce->host_ctx, frame, len);
}

static void c_interrupt(void *h, unsigned int vector)
{
	struct cov_engine *ce = h;

	cov_interrupt(ce->cov, vector);
	ce->host.interrupt(ce->host_ctx, vector);
}

static const struct hca_host_ops cov_host = { c_dma_read, c_dma_write, c_tx_frame, c_interrupt };

/* Split our options (inner=, out=) from the inner engine's. */
static int parse(struct cov_engine *ce, const char *opts, char *inner, size_t in_n, char *rest, size_t rest_n)
{
	const char *p = opts;

	snprintf(inner, in_n, "model");
	rest[0] = '\0';
	while (p && *p) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (l > 6 && !strncmp(p, "inner=", 6))
			snprintf(inner, in_n, "%.*s", (int)(l - 6), p + 6);
		else if (l > 4 && !strncmp(p, "out=", 4))
			snprintf(ce->out, sizeof(ce->out), "%.*s", (int)(l - 4), p + 4);
		else if (l > 3 && !strncmp(p, "in.", 3)) {	/* in.K=V: K=V for the inner engine */
			p += 3;
			l -= 3;
			goto pass;
		} else if (l) {
pass:;
			size_t u = strlen(rest);

			if (u + l + 2 > rest_n)
				return -EINVAL;
			snprintf(rest + u, rest_n - u, "%s%.*s", u ? "," : "", (int)l, p);
		}
		p = e ? e + 1 : NULL;
	}
	return 0;
}

static int ce_create(const struct hca_engine_config *cfg, const struct hca_host_ops *host, void *host_ctx,
		     struct hca_engine **out)
{
	struct hca_engine_config ic;
	struct cov_engine *ce;
	char inner[64], rest[1024];
	int r;

	if (!host || !out)
		return -EINVAL;
	ce = calloc(1, sizeof(*ce));
	if (!ce)
		return -ENOMEM;
	ce->magic = COV_MAGIC;
	ce->host = *host;
	ce->host_ctx = host_ctx;
	if (parse(ce, cfg ? cfg->options : NULL, inner, sizeof(inner), rest, sizeof(rest)) ||
	    !strcmp(inner, "cov") || !(ce->iops = hca_engine_find(inner))) {
		fprintf(stderr, "cov: bad options or unknown inner engine '%s'\n", inner);
		free(ce);
		return -EINVAL;
	}
	if (cfg)
		ic = *cfg;
	else
		memset(&ic, 0, sizeof(ic));
	ic.options = rest[0] ? rest : NULL;
	ce->cov = cov_new(ic.data_w);
	r = ce->cov ? ce->iops->create(&ic, &cov_host, ce, &ce->in) : -ENOMEM;
	if (r) {
		cov_free(ce->cov);
		free(ce);
		return r;
	}
	*out = (struct hca_engine *)ce;
	return 0;
}

static void ce_destroy(struct hca_engine *e)
{
	struct cov_engine *ce = to_ce(e);

	if (!ce)
		return;
	ce->iops->destroy(ce->in);
	if (ce->out[0] && cov_write(ce->cov, ce->out))
		fprintf(stderr, "cov: cannot write %s\n", ce->out);
	cov_free(ce->cov);
	ce->magic = 0;
	free(ce);
}

static uint32_t ce_bar0_read(struct hca_engine *e, uint32_t off)
{
	return to_ce(e)->iops->bar0_read(to_ce(e)->in, off);
}

static void ce_bar0_write(struct hca_engine *e, uint32_t off, uint32_t v)
{
	struct cov_engine *ce = to_ce(e);

	ce->iops->bar0_write(ce->in, off, v);
	cov_bar0_write(ce->cov, off, v);
}

static uint32_t ce_mgmt_read(struct hca_engine *e, uint32_t a)
{
	return to_ce(e)->iops->mgmt_read(to_ce(e)->in, a);
}

static void ce_mgmt_write(struct hca_engine *e, uint32_t a, uint32_t v)
{
	struct cov_engine *ce = to_ce(e);

	/* the event at the head of the FIFO, before the host pops it (reads have no side effect) */
	if (a == HCA_MGMT_EVT_POP && ce->iops->mgmt_read(ce->in, HCA_MGMT_EVT_COUNT))
		cov_engine_event(ce->cov,
				 (unsigned int)HCA_FIELD_GET(ce->iops->mgmt_read(ce->in, HCA_MGMT_EVT_TYPE),
							     HCA_MGMT_EVT_TYPE_TYPE),
				 ce->iops->mgmt_read(ce->in, HCA_MGMT_EVT_ELEMENT));
	ce->iops->mgmt_write(ce->in, a, v);
	cov_mgmt_write(ce->cov, ce->iops, ce->in, a, v);
}

static void ce_rx_frame(struct hca_engine *e, const uint8_t *f, size_t len)
{
	struct cov_engine *ce = to_ce(e);

	cov_rx_frame(ce->cov, f, len);
	ce->iops->rx_frame(ce->in, f, len);
}

static void ce_advance(struct hca_engine *e, uint64_t n)
{
	to_ce(e)->iops->advance(to_ce(e)->in, n);
}

static uint64_t ce_now(struct hca_engine *e)
{
	return to_ce(e)->iops->now(to_ce(e)->in);
}

static uint64_t ce_next_event(struct hca_engine *e)
{
	return to_ce(e)->iops->next_event(to_ce(e)->in);
}

static int ce_fw_irq(struct hca_engine *e)
{
	return to_ce(e)->iops->fw_irq(to_ce(e)->in);
}

static const char *ce_last_error(struct hca_engine *e)
{
	return to_ce(e)->iops->last_error(to_ce(e)->in);
}

const struct hca_engine_ops hca_cov_engine_ops = {
	.name = "cov",
	.create = ce_create,
	.destroy = ce_destroy,
	.bar0_read = ce_bar0_read,
	.bar0_write = ce_bar0_write,
	.mgmt_read = ce_mgmt_read,
	.mgmt_write = ce_mgmt_write,
	.rx_frame = ce_rx_frame,
	.advance = ce_advance,
	.now = ce_now,
	.next_event = ce_next_event,
	.fw_irq = ce_fw_irq,
	.last_error = ce_last_error,
};

void hca_cov_engine_register(void)
{
	if (!hca_engine_find("cov"))
		hca_engine_register(&hca_cov_engine_ops);
}

struct cov *cov_of(struct hca_engine *e)
{
	return e && to_ce(e)->magic == COV_MAGIC ? to_ce(e)->cov : NULL;
}

/*
 * opts without its "ref="/"dut=" entries (lockstep) -- the values found go to
 * ref/dut -- each remaining entry prefixed by ",".  The cov engine takes the
 * place of the engine it wraps and owns `inner=`: the wrapped engine's own
 * `inner=` (model-mutant around the RTL) is passed on as `in.inner=`.
 */
static int strip_ls(const char *opts, bool ls, char *ref, char *dut, size_t vn, char *rest, size_t rn)
{
	const char *p = opts;

	rest[0] = '\0';
	while (p && *p) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p), u = strlen(rest), side = 0;

		if (ls && l > 4 && !strncmp(p, "ref=", 4))
			snprintf(ref, vn, "%.*s", (int)(l - 4), p + 4);
		else if (ls && l > 4 && !strncmp(p, "dut=", 4))
			snprintf(dut, vn, "%.*s", (int)(l - 4), p + 4);
		else if (l) {
			if (ls && l > 4 && (!strncmp(p, "ref.", 4) || !strncmp(p, "dut.", 4)))
				side = 4;
			if (u + l + 5 > rn)
				return -1;
			if (!strncmp(p + side, "inner=", 6))
				snprintf(rest + u, rn - u, ",%.*sin.%.*s", (int)side, p, (int)(l - side), p + side);
			else
				snprintf(rest + u, rn - u, ",%.*s", (int)l, p);
		}
		p = e ? e + 1 : NULL;
	}
	return 0;
}

int cov_wrap_config(const char *engine, const char *opts, const char *prefix, char *eng_out, size_t eng_n,
		    char *opts_out, size_t opts_n)
{
	char ref[64] = "model", dut[64] = "rtl", rest[1024];
	int n;

	if (!engine)
		engine = "model";
	if (strcmp(engine, "lockstep") != 0) {
		if (strip_ls(opts, false, ref, dut, sizeof(ref), rest, sizeof(rest)))
			return -1;
		n = snprintf(opts_out, opts_n, "inner=%s,out=%s.%s.cov%s", engine, prefix, engine, rest);
		snprintf(eng_out, eng_n, "cov");
		return n < 0 || (size_t)n >= opts_n ? -1 : 0;
	}
	if (strip_ls(opts, true, ref, dut, sizeof(ref), rest, sizeof(rest)))
		return -1;
	n = snprintf(opts_out, opts_n, "ref=cov,ref.inner=%s,ref.out=%s.ref.%s.cov,dut=cov,dut.inner=%s,dut.out=%s.dut.%s.cov%s",
		     ref, prefix, ref, dut, prefix, dut, rest);
	snprintf(eng_out, eng_n, "lockstep");
	return n < 0 || (size_t)n >= opts_n ? -1 : 0;
}

bool cov_env_prefix(const char *what, char *buf, size_t n)
{
	static unsigned int seq;
	const char *dir = getenv("HCASIM_COV");
	char prog[64] = "prog";
	FILE *f;

	if (!dir || !*dir)
		return false;
	f = fopen("/proc/self/comm", "r");
	if (f) {
		if (fgets(prog, sizeof(prog), f))
			prog[strcspn(prog, "\n")] = '\0';
		fclose(f);
	}
	snprintf(buf, n, "%s/%s-%s-%ld-%u", dir, prog, what, (long)getpid(), seq++);
	return true;
}
