// SPDX-License-Identifier: MIT
/*
 * The replay loop.  Frame i arrives at cycle t_i (fixed spacing, or the
 * capture's own time offsets) and owns the window [t_i, t_i+1): everything
 * the device does in that window -- counters that move, frames it sends,
 * DMA writes, CQEs, async events, QP state changes -- is reported as that
 * frame's outcome.  The last frame's window is `tail` cycles.  Same inputs,
 * same report: the backends are deterministic.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "device.h"
#include "lockstep.h"
#include "pcap.h"
#include "replay.h"

/* ---- observation lists ---- */

/* Room for element n of an array grown to 4, 8, 16, ... elements. */
static int grow(void **arr, size_t n, size_t elem)
{
	void *p;

	if (n && (n < 4 || (n & (n - 1))))
		return 0;
	p = realloc(*arr, (n ? 2 * n : 4) * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	return 0;
}

void rp_obs_reset(struct rp_obs *o)
{
	for (size_t i = 0; i < o->ntx; i++)
		free(o->tx[i].data);
	o->ntx = o->ndma = o->ncqe = o->neqe = o->nstate = 0;
	o->dma_reads = o->dma_read_bytes = o->dma_read_faults = 0;
	o->busy_at_end = false;
	o->divergence = NULL;
	memset(o->stat, 0, sizeof(o->stat));
}

void rp_obs_free(struct rp_obs *o)
{
	rp_obs_reset(o);
	free(o->tx);
	free(o->dma);
	free(o->cqe);
	free(o->eqe);
	free(o->state);
	memset(o, 0, sizeof(*o));
}

int rp_obs_add_tx(struct rp_obs *o, uint64_t cycle, const uint8_t *f, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);

	if (!copy || grow((void **)&o->tx, o->ntx, sizeof(*o->tx))) {
		free(copy);
		return -ENOMEM;
	}
	memcpy(copy, f, len);
	o->tx[o->ntx++] = (struct rp_frame){ .cycle = cycle, .data = copy, .len = len };
	return 0;
}

int rp_obs_add_dma(struct rp_obs *o, uint64_t iova, size_t len, bool fault)
{
	if (grow((void **)&o->dma, o->ndma, sizeof(*o->dma)))
		return -ENOMEM;
	o->dma[o->ndma++] = (struct rp_dma){ .iova = iova, .len = len, .fault = fault };
	return 0;
}

/* ---- the device's rings, read as a driver reads them ---- */

static void doorbell(struct rp_dev *d, uint32_t reg, uint32_t num, uint32_t idx)
{
	d->be->mmio_write(d->dev, HCA_BAR0_DB_BASE + d->uar * HCA_BAR0_DB_PAGE_SIZE + reg,
			  (idx & 0xffff) << 16 | (num & 0xffff));
}

static void poll_cqs(struct rp_dev *d, struct rp_setup *s, struct rp_obs *o)
{
	for (unsigned int i = 0; i < s->ncq; i++) {
		struct rp_cq *q = &s->cq[i];

		for (;;) {
			const struct hca_cqe *e = &q->ring[q->ci & ((1u << q->log_size) - 1)];

			if ((e->owner & 1) != (((q->ci >> q->log_size) & 1) ^ 1))
				break;
			if (o && !grow((void **)&o->cqe, o->ncqe, sizeof(*o->cqe)))
				o->cqe[o->ncqe++] = (struct rp_cqe){ .cq = (int)i, .cqe = *e };
			q->ci++;
			doorbell(d, HCA_DB_CQ_CI, q->cqn, q->ci);
		}
	}
}

static void poll_eq(struct rp_dev *d, struct rp_obs *o, FILE *log)
{
	for (;;) {
		const struct hca_eqe *e = &d->eq_ring[d->eq_ci & ((1u << d->eq_log) - 1)];

		if ((e->owner & 1) != (((d->eq_ci >> d->eq_log) & 1) ^ 1))
			break;
		if (o && !grow((void **)&o->eqe, o->neqe, sizeof(*o->eqe)))
			o->eqe[o->neqe++] = *e;
		else if (!o && log && e->type == HCA_EQE_TYPE_ASYNC)
			fprintf(log, "setup event: %s element %u\n", hca_event_type_name(e->subtype), e->element);
		d->eq_ci++;
		doorbell(d, HCA_DB_EQ_CI, d->eqn, d->eq_ci);
	}
}

static void qp_states(struct rp_dev *d, struct rp_setup *s, struct rp_obs *o)
{
	for (unsigned int i = 0; i < s->nqp; i++) {
		struct rp_qp *q = &s->qp[i];
		struct hca_qpc c;

		if (hca_device_ctx_read(d->dev, HCA_CTX_TYPE_QPC, q->qpn, &c, sizeof(c)))
			continue;
		if (c.cur_state != q->last_state) {
			if (o && !grow((void **)&o->state, o->nstate, sizeof(*o->state)))
				o->state[o->nstate++] = (struct rp_state_change){ (int)i, q->last_state, c.cur_state };
			q->last_state = c.cur_state;
		}
	}
}

static void read_stats(struct rp_dev *d, uint32_t st[HCA_STAT_COUNT])
{
	for (unsigned int k = 0; k < HCA_STAT_COUNT; k++)
		st[k] = hca_device_mgmt_read(d->dev, HCA_MGMT_STAT_BASE + 4 * k);
}

/* ---- the capture, read whole before anything runs (a bad file changes nothing) ---- */

struct capture {
	size_t n;
	struct rp_frame *f;	/* cycle = offset from the first frame's time, in cycles */
	uint32_t *orig_len;
};

static void capture_free(struct capture *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->f[i].data);
	free(c->f);
	free(c->orig_len);
}

static int capture_read(const char *path, struct capture *c, char *err, size_t errlen)
{
	struct pcap_reader *r = pcap_reader_open(path);
	struct pcap_frame pf;
	uint64_t ns0 = 0;
	int rc;

	memset(c, 0, sizeof(*c));
	if (!r) {
		rc = errno ? -errno : -EINVAL;
		snprintf(err, errlen, "%s: %s", path, pcap_reader_error(NULL));
		return rc;
	}
	while ((rc = pcap_read(r, &pf)) == 1) {
		if (grow((void **)&c->f, c->n, sizeof(*c->f)) ||
		    grow((void **)&c->orig_len, c->n, sizeof(*c->orig_len))) {
			rc = -ENOMEM;
			break;
		}
		if (!c->n)
			ns0 = pf.ns;
		c->f[c->n].data = malloc(pf.len ? pf.len : 1);
		if (!c->f[c->n].data) {
			rc = -ENOMEM;
			break;
		}
		memcpy(c->f[c->n].data, pf.data, pf.len);
		c->f[c->n].len = pf.len;
		/* capture time as an offset; a clock that steps back counts as no time */
		c->f[c->n].cycle = pf.ns > ns0 ? pcap_ns_to_cycles(pf.ns - ns0) : 0;
		c->orig_len[c->n] = pf.orig_len;
		c->n++;
	}
	if (rc < 0)
		snprintf(err, errlen, "%s: frame %zu: %s", path, c->n + 1,
			 rc == -ENOMEM ? "out of memory" : pcap_reader_error(r));
	pcap_reader_close(r);
	if (rc < 0)
		capture_free(c);
	return rc < 0 ? rc : 0;
}

/* ---- final MR contents ---- */

static int dump_mrs(const struct rp_setup *s, const char *dir, char *err, size_t errlen)
{
	if (mkdir(dir, 0777) && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	for (unsigned int i = 0; i < s->nmr; i++) {
		char path[600];
		FILE *f;
		size_t w;

		snprintf(path, sizeof(path), "%s/%s.bin", dir, s->mr[i].name);
		f = fopen(path, "wb");
		if (!f) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -EIO;
		}
		w = fwrite(s->mr[i].buf, 1, (size_t)s->mr[i].length, f);
		if (fclose(f) || w != s->mr[i].length) {
			snprintf(err, errlen, "%s: write error", path);
			return -EIO;
		}
	}
	return 0;
}

static void tally(struct rp_totals *t, const struct rp_obs *o)
{
	char why[256];
	const char *v = rp_verdict(o, why, sizeof(why));

	t->frames++;
	if (!strcmp(v, "accepted"))
		t->accepted++;
	else if (!strcmp(v, "dropped"))
		t->dropped++;
	t->answers += o->ntx;
	t->cqes += o->ncqe;
}

int rp_run(struct rp_dev *d, struct rp_setup *s, const char *capture, const struct rp_run_opts *o,
	   struct rp_totals *t, char *err, size_t errlen)
{
	struct hca_engine *eng = hca_device_engine(d->dev);
	const struct hca_engine_ops *eops = hca_engine_find(d->be->name);
	struct pcap_writer *w = NULL;
	struct capture cap;
	struct rp_obs obs;
	uint64_t start;
	uint32_t before[HCA_STAT_COUNT], after[HCA_STAT_COUNT];
	const struct sb_divergence *seen = NULL;
	int rc;

	memset(t, 0, sizeof(*t));
	rc = capture_read(capture, &cap, err, errlen);
	if (rc)
		return rc;
	if (o->out) {
		w = pcap_writer_open(o->out, 0);
		if (!w) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", o->out, strerror(errno));
			capture_free(&cap);
			return rc;
		}
	}
	/* Let the setup settle (receive WQE doorbells, port events), unrecorded. */
	d->be->advance(d->dev, o->spacing);
	poll_cqs(d, s, NULL);
	poll_eq(d, NULL, o->quiet ? NULL : stdout);
	qp_states(d, s, NULL);
	start = d->be->now(d->dev);
	memset(&obs, 0, sizeof(obs));
	for (size_t i = 0; i < cap.n; i++) {
		uint64_t at = start + (o->capture_timing ? cap.f[i].cycle : i * o->spacing);
		uint64_t until = i + 1 < cap.n ? start + (o->capture_timing ? cap.f[i + 1].cycle : (i + 1) * o->spacing)
					       : at + o->tail;

		rp_obs_reset(&obs);
		obs.index = (unsigned long)i + 1;
		obs.in = cap.f[i].data;
		obs.in_len = cap.f[i].len;
		obs.orig_len = cap.orig_len[i];
		d->obs = &obs;
		if (d->be->now(d->dev) < at)
			d->be->advance(d->dev, at - d->be->now(d->dev));
		obs.cycle = d->be->now(d->dev);
		read_stats(d, before);
		d->be->rx_frame(d->dev, cap.f[i].data, cap.f[i].len);
		if (d->be->now(d->dev) < until)
			d->be->advance(d->dev, until - d->be->now(d->dev));
		poll_cqs(d, s, &obs);
		poll_eq(d, &obs, NULL);
		qp_states(d, s, &obs);
		read_stats(d, after);
		d->obs = NULL;
		for (unsigned int k = 0; k < HCA_STAT_COUNT; k++)
			obs.stat[k] = after[k] - before[k];
		obs.busy_at_end = eops && eng && eops->next_event(eng) <= d->be->now(d->dev);
		if (!seen && eng && (seen = lockstep_divergence(eng)) != NULL)
			obs.divergence = seen->summary;
		for (size_t k = 0; w && k < obs.ntx; k++)
			if (pcap_write(w, obs.tx[k].cycle, obs.tx[k].data, obs.tx[k].len) && !rc) {
				rc = -EIO;
				snprintf(err, errlen, "%s: write error", o->out);
			}
		if (!o->quiet)
			rp_report_text(stdout, s, d, &obs);
		if (o->json)
			rp_report_json(o->json, s, d, &obs);
		tally(t, &obs);
	}
	rp_obs_free(&obs);
	capture_free(&cap);
	if (eng && lockstep_is(eng)) {
		lockstep_finish(eng, "end of the replay");
		seen = lockstep_divergence(eng);
		if (seen) {
			t->diverged = true;
			printf("lockstep: the RTL and the model diverged: %s\n%s", seen->summary,
			       seen->report ? seen->report : "");
		} else {
			printf("lockstep: the RTL and the model agreed on every transaction\n");
		}
	}
	if (pcap_writer_close(w) && !rc) {
		rc = -EIO;
		snprintf(err, errlen, "%s: write error", o->out);
	}
	if (!rc && o->dump_dir)
		rc = dump_mrs(s, o->dump_dir, err, errlen);
	return rc;
}
