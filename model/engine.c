// SPDX-License-Identifier: MIT
/*
 * The "model" engine: struct hca_engine_ops, the scheduler and timers.
 *
 * Scheduling (docs/model.md "Time and scheduling"): the model is untimed.
 * advance(n) performs, at the current cycle, all work available, then fires
 * each timer whose deadline falls inside the window at that deadline (and
 * again performs all work then), and finally sets now += n.  "All work" is,
 * in this order:
 *   1. injected EQEs (EQE_INJ_GO), in the order they were posted;
 *   2. EQ re-arm interrupts (EQ_ARM found EQEs) by EQN, then MSI-X vectors
 *      unmasked with their PBA bit set, by vector;
 *   3. received frames, one at a time in arrival order, each processed to the
 *      end (responses, completions, events);
 *   4. QP passes: QPs in ascending QPN, each QP with work takes one step
 *      (transmit one packet, or retire/flush its completions); passes repeat
 *      until no QP has work.
 * Steps 3-4 repeat until neither has anything to do.  Timers due at the same
 * cycle fire in ascending QPN order (RNR wait end before ACK timeout).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_opts.h"
#include "model.h"
#include "model_int.h"

#define to_model(e) ((struct model *)(void *)(e))

void model_trace(struct model *m, const char *fmt, ...)
{
	va_list ap;

	if (!m->trace)
		return;
	fprintf(stderr, "[model %p @%llu] ", (void *)m, (unsigned long long)m->now);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

bool model_enabled(const struct model *m)
{
	return m->engine_ctrl & HCA_MGMT_ENGINE_CTRL_ENABLE_MASK;
}

void model_qp_kick(struct model *m, struct model_qp *qp)
{
	unsigned int i = (unsigned int)(qp - m->qp);

	qp->busy = true;
	if (i >= m->qp_hi)
		m->qp_hi = i + 1;
}

/* A consumed frame's buffer: kept for the next frame, or freed. */
static void rx_buf_put(struct model *m, struct model_rxf *f)
{
	if (m->rx_nspare < MODEL_RX_SPARE)
		m->rx_spare[m->rx_nspare++] = *f;
	else
		free(f->data);
}

static void free_rx(struct model *m)
{
	for (unsigned int i = 0; i < m->rxq_count; i++)
		free(m->rxq[(m->rxq_head + i) % m->rxq_cap].data);
	m->rxq_head = m->rxq_count = 0;
}

/* ENGINE_CTRL.RESET / host CTRL.RESET: back to power-on state (MAC kept). */
void model_reset_engine(struct model *m)
{
	for (unsigned int i = 0; i < MODEL_NUM_QP; i++) {
		free(m->qp[i].swq);
		memset(&m->qp[i], 0, sizeof(m->qp[i]));
		m->qp[i].qpn = i;
		model_qp_reset_state(&m->qp[i]);
	}
	m->qp_hi = 0;
	memset(m->cq, 0, sizeof(m->cq));
	memset(m->srq, 0, sizeof(m->srq));
	memset(m->eq, 0, sizeof(m->eq));
	memset(m->mr, 0, sizeof(m->mr));
	memset(m->gid, 0, sizeof(m->gid));
	free_rx(m);
	m->inj_count = 0;
	m->evt_head = m->evt_count = 0;
	m->evt_overflow = false;
	memset(m->stats, 0, sizeof(m->stats));
	memset(m->msix, 0, sizeof(m->msix));
	for (unsigned int v = 0; v < MODEL_NUM_MSIX; v++)
		m->msix[v][3] = HCA_MSIX_VECTOR_CTRL_MASKED_MASK;
	m->pba = 0;
	m->dma_fault_sticky = false;
	m->dma_fault_lo = m->dma_fault_hi = m->dma_fault_info = 0;
	m->engine_ctrl = 0;
	m->port_ctrl = 0;
	m->fw_event = 0;
	m->inj_eqn = m->inj_type = m->inj_element = m->inj_data = m->inj_status = 0;
	m->ctx_status = 0;
	memset(m->ctx_data, 0, sizeof(m->ctx_data));
}

/* Options (hca_engine_config.options), checked by sim/engine_opts. */
struct model_opts {
	unsigned int trace;
};

static const struct hca_engine_opt model_opt_table[] = {
	HCA_OPT_BOOL(struct model_opts, trace, "1: trace the engine's steps on stderr "
					       "(as HCASIM_MODEL_TRACE)"),
	{ 0 },
};

static int model_create(const struct hca_engine_config *cfg, const struct hca_host_ops *host,
			void *host_ctx, struct hca_engine **out)
{
	struct model_opts o = { 0 };
	struct model *m;

	if (!host || !out || !host->dma_read || !host->dma_write || !host->tx_frame || !host->interrupt)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->host = *host;
	m->host_ctx = host_ctx;
	if (hca_engine_opts_parse("model", model_opt_table, cfg ? cfg->options : NULL, &o)) {
		free(m);
		return -EINVAL;
	}
	m->trace = getenv("HCASIM_MODEL_TRACE") != NULL || o.trace;
	model_reset_engine(m);
	*out = (struct hca_engine *)(void *)m;
	return 0;
}

static void model_destroy(struct hca_engine *e)
{
	struct model *m = to_model(e);

	if (!m)
		return;
	for (unsigned int i = 0; i < MODEL_NUM_QP; i++)
		free(m->qp[i].swq);
	free_rx(m);
	while (m->rx_nspare)
		free(m->rx_spare[--m->rx_nspare].data);
	free(m->rxq);
	free(m->inj);
	free(m);
}

static uint32_t model_e_bar0_read(struct hca_engine *e, uint32_t off)
{
	return model_bar0_read(to_model(e), off);
}

static void model_e_bar0_write(struct hca_engine *e, uint32_t off, uint32_t val)
{
	model_bar0_write(to_model(e), off, val);
}

static uint32_t model_e_mgmt_read(struct hca_engine *e, uint32_t addr)
{
	return model_mgmt_read(to_model(e), addr);
}

static void model_e_mgmt_write(struct hca_engine *e, uint32_t addr, uint32_t val)
{
	model_mgmt_write(to_model(e), addr, val);
}

static void model_e_rx_frame(struct hca_engine *e, const uint8_t *frame, size_t len)
{
	struct model *m = to_model(e);
	struct model_rxf *f;

	if (!frame || len == 0 || len > 65536)
		return;
	if (m->rxq_count == m->rxq_cap) {
		unsigned int ncap = m->rxq_cap ? m->rxq_cap * 2 : 64;
		struct model_rxf *n = malloc(ncap * sizeof(*n));

		if (!n) {
			snprintf(m->err, sizeof(m->err), "rx queue: out of memory");
			return;
		}
		for (unsigned int i = 0; i < m->rxq_count; i++)
			n[i] = m->rxq[(m->rxq_head + i) % m->rxq_cap];
		free(m->rxq);
		m->rxq = n;
		m->rxq_cap = ncap;
		m->rxq_head = 0;
	}
	f = &m->rxq[(m->rxq_head + m->rxq_count) % m->rxq_cap];
	if (m->rx_nspare && m->rx_spare[m->rx_nspare - 1].cap >= len) {
		*f = m->rx_spare[--m->rx_nspare];
	} else {
		f->cap = len > MODEL_RX_BUF ? len : MODEL_RX_BUF;
		f->data = malloc(f->cap);
		if (!f->data) {
			snprintf(m->err, sizeof(m->err), "rx frame: out of memory");
			return;
		}
	}
	memcpy(f->data, frame, len);
	f->len = len;
	m->rxq_count++;
}

/* One QP step: retire/flush/drain, or transmit one packet. */
static bool qp_step(struct model *m, struct model_qp *qp)
{
	return model_requester(m, qp);
}

static void run_work(struct model *m)
{
	/* 1. injected EQEs */
	for (unsigned int i = 0; i < m->inj_count; i++)
		model_eq_post(m, m->inj[i].eqn, &m->inj[i].eqe);
	m->inj_count = 0;
	/* 2. interrupts */
	model_eq_fire_pending(m);
	model_msix_deliver(m);

	for (;;) {
		bool did = false;

		/* 3. received frames */
		while (m->rxq_count) {
			struct model_rxf f = m->rxq[m->rxq_head];

			m->rxq_head = (m->rxq_head + 1) % m->rxq_cap;
			m->rxq_count--;
			model_rx_frame(m, f.data, f.len);
			rx_buf_put(m, &f);
			did = true;
		}
		/* 4. QP passes (a disabled engine does no QP work) */
		while (model_enabled(m)) {
			bool pass = false;

			for (unsigned int i = 0; i < m->qp_hi; i++) {
				struct model_qp *qp = &m->qp[i];

				if (!qp->busy)
					continue;
				if (qp_step(m, qp))
					pass = true;
				else
					qp->busy = false;
			}
			if (!pass)
				break;
			did = true;
		}
		if (!did && !m->rxq_count)
			break;
	}
	/* completions written during the passes may have armed interrupts */
	model_eq_fire_pending(m);
	model_msix_deliver(m);
}

static uint64_t next_deadline(const struct model *m)
{
	uint64_t t = MODEL_NO_DEADLINE;

	for (unsigned int i = 0; i < m->qp_hi; i++) {
		uint64_t d = model_qp_deadline(&m->qp[i]);

		if (d < t)
			t = d;
	}
	return t;
}

static void fire_timers(struct model *m)
{
	for (unsigned int i = 0; i < m->qp_hi; i++) {
		struct model_qp *qp = &m->qp[i];

		if (model_qp_deadline(qp) <= m->now)
			model_comp_timers(m, qp);
	}
}

static void model_advance(struct hca_engine *e, uint64_t cycles)
{
	struct model *m = to_model(e);
	uint64_t end = m->now + cycles;

	if (end < m->now)
		end = UINT64_MAX;
	m->in_advance = true;
	run_work(m);
	if (model_enabled(m)) {
		for (;;) {
			uint64_t t = next_deadline(m);

			if (t == MODEL_NO_DEADLINE || t > end)
				break;
			if (t > m->now)
				m->now = t;
			fire_timers(m);
			run_work(m);
		}
	}
	m->now = end;
	m->in_advance = false;
}

static uint64_t model_now(struct hca_engine *e)
{
	return to_model(e)->now;
}

static bool has_work(const struct model *m)
{
	if (m->inj_count || m->rxq_count)
		return true;
	for (unsigned int v = 0; v < MODEL_NUM_MSIX; v++)
		if ((m->pba >> v & 1) && !(m->msix[v][3] & HCA_MSIX_VECTOR_CTRL_MASKED_MASK))
			return true;
	for (unsigned int i = 0; i < MODEL_NUM_EQ; i++)
		if (m->eq[i].fire_pending)
			return true;
	if (model_enabled(m))
		for (unsigned int i = 0; i < m->qp_hi; i++)
			if (m->qp[i].busy)
				return true;
	return false;
}

static uint64_t model_next_event(struct hca_engine *e)
{
	struct model *m = to_model(e);
	uint64_t t;

	if (has_work(m))
		return m->now;
	if (!model_enabled(m))
		return UINT64_MAX;
	t = next_deadline(m);
	if (t == MODEL_NO_DEADLINE)
		return UINT64_MAX;
	return t < m->now ? m->now : t;
}

static int model_fw_irq(struct hca_engine *e)
{
	return model_mgmt_read(to_model(e), HCA_MGMT_FW_EVENT) != 0;
}

static const char *model_last_error(struct hca_engine *e)
{
	return to_model(e)->err;
}

const struct hca_engine_ops hca_model_engine_ops = {
	.name = "model",
	.create = model_create,
	.destroy = model_destroy,
	.bar0_read = model_e_bar0_read,
	.bar0_write = model_e_bar0_write,
	.mgmt_read = model_e_mgmt_read,
	.mgmt_write = model_e_mgmt_write,
	.rx_frame = model_e_rx_frame,
	.advance = model_advance,
	.now = model_now,
	.next_event = model_next_event,
	.fw_irq = model_fw_irq,
	.last_error = model_last_error,
};

void hca_model_engine_register(void)
{
	hca_engine_register(&hca_model_engine_ops);
}

__attribute__((constructor)) static void model_ctor(void)
{
	hca_model_engine_register();
}
