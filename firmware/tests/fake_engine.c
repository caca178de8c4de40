// SPDX-License-Identifier: MIT
/* The fake engine of firmware tests (fake_engine.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake_engine.h"

#define NTYPES 7

struct fake_engine {
	uint64_t now;
	uint32_t init[HCA_BAR0_INIT_SEG_SIZE / 4];
	uint32_t fw_event;
	uint32_t engine_ctrl, port_ctrl, mac_lo, mac_hi;
	struct { uint8_t type; uint32_t element; } evt[HCA_MGMT_EVT_DEPTH];
	unsigned int evt_head, evt_count;
	int evt_overflow;
	uint32_t inj_eqn, inj_type, inj_element, inj_data, inj_status;
	uint32_t ctx_data[HCA_MGMT_CTX_DATA_WORDS];
	uint32_t ctx_status;
	uint32_t caps[4];
	/* contexts */
	uint32_t n[NTYPES];
	uint32_t size[NTYPES];
	uint8_t *ctx[NTYPES];
	uint8_t *qpc_flags;
	uint32_t writes[NTYPES];
	unsigned int fail_type;
	uint32_t full_eqn;
	struct fake_eqe eqes[FAKE_MAX_EQES];
	struct fake_ctx_write log[FAKE_CTX_LOG];
	unsigned int log_len;
	unsigned int num_eqes;
};

static struct fake_engine *F(struct hca_engine *e)
{
	return (struct fake_engine *)e;
}

static unsigned int opt(const char *options, const char *key, unsigned int def)
{
	size_t kl = strlen(key);

	for (const char *p = options; p && *p;) {
		if (!strncmp(p, key, kl) && p[kl] == '=')
			return (unsigned int)strtoul(p + kl + 1, NULL, 0);
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return def;
}

static void reset_engine(struct fake_engine *f)
{
	for (int t = 1; t < NTYPES; t++)
		memset(f->ctx[t], 0, (size_t)f->n[t] * f->size[t]);
	f->evt_head = f->evt_count = 0;
	f->evt_overflow = 0;
	f->port_ctrl = 0;
	f->engine_ctrl = 0;
}

static int fake_create(const struct hca_engine_config *cfg, const struct hca_host_ops *host,
		       void *host_ctx, struct hca_engine **out)
{
	struct fake_engine *f = calloc(1, sizeof(*f));
	const char *o = cfg ? cfg->options : NULL;
	unsigned int lq = opt(o, "log_max_qp", HCA_CAP_LOG_MAX_QP), lc = opt(o, "log_max_cq", HCA_CAP_LOG_MAX_CQ);
	unsigned int ls = opt(o, "log_max_srq", HCA_CAP_LOG_MAX_SRQ), le = opt(o, "log_max_eq", HCA_CAP_LOG_MAX_EQ);
	unsigned int lm = opt(o, "log_max_mr", HCA_CAP_LOG_MAX_MR), lp = opt(o, "log_max_pd", HCA_CAP_LOG_MAX_PD);
	unsigned int gids = opt(o, "gid_tbl_len", HCA_CAP_GID_TBL_LEN);

	(void)host;
	(void)host_ctx;
	if (!f)
		return -ENOMEM;
	f->caps[0] = HCA_FIELD_PREP(HCA_INIT_CAP0_LOG_MAX_QP, lq) | HCA_FIELD_PREP(HCA_INIT_CAP0_LOG_MAX_CQ, lc) |
		     HCA_FIELD_PREP(HCA_INIT_CAP0_LOG_MAX_SRQ, ls) | HCA_FIELD_PREP(HCA_INIT_CAP0_LOG_MAX_EQ, le) |
		     HCA_FIELD_PREP(HCA_INIT_CAP0_LOG_MAX_MR, lm) | HCA_FIELD_PREP(HCA_INIT_CAP0_LOG_MAX_PD, lp);
	f->caps[1] = HCA_FIELD_PREP(HCA_INIT_CAP1_LOG_MAX_WQE, HCA_CAP_LOG_MAX_WQE) |
		     HCA_FIELD_PREP(HCA_INIT_CAP1_LOG_MAX_CQE, HCA_CAP_LOG_MAX_CQE) |
		     HCA_FIELD_PREP(HCA_INIT_CAP1_LOG_MAX_EQE, HCA_CAP_LOG_MAX_EQE) |
		     HCA_FIELD_PREP(HCA_INIT_CAP1_MAX_SGE, HCA_CAP_MAX_SGE) |
		     HCA_FIELD_PREP(HCA_INIT_CAP1_MAX_RD_ATOMIC, HCA_CAP_MAX_RD_ATOMIC);
	f->caps[2] = HCA_FIELD_PREP(HCA_INIT_CAP2_MAX_INLINE_DATA, HCA_CAP_MAX_INLINE_DATA) |
		     HCA_FIELD_PREP(HCA_INIT_CAP2_NUM_MSIX, opt(o, "num_msix", HCA_CAP_NUM_MSIX)) |
		     HCA_FIELD_PREP(HCA_INIT_CAP2_GID_TBL_LEN, gids);
	f->caps[3] = HCA_FIELD_PREP(HCA_INIT_CAP3_DATA_W, 64) |
		     HCA_FIELD_PREP(HCA_INIT_CAP3_MAX_UAR, opt(o, "max_uar", HCA_CAP_MAX_UAR));
	f->n[HCA_CTX_TYPE_QPC] = 1u << lq;
	f->n[HCA_CTX_TYPE_CQC] = 1u << lc;
	f->n[HCA_CTX_TYPE_SRQC] = 1u << ls;
	f->n[HCA_CTX_TYPE_EQC] = 1u << le;
	f->n[HCA_CTX_TYPE_MRC] = 1u << lm;
	f->n[HCA_CTX_TYPE_GIDC] = gids;
	f->size[HCA_CTX_TYPE_QPC] = HCA_QPC_SIZE;
	f->size[HCA_CTX_TYPE_CQC] = HCA_CQC_SIZE;
	f->size[HCA_CTX_TYPE_SRQC] = HCA_SRQC_SIZE;
	f->size[HCA_CTX_TYPE_EQC] = HCA_EQC_SIZE;
	f->size[HCA_CTX_TYPE_MRC] = HCA_MRC_SIZE;
	f->size[HCA_CTX_TYPE_GIDC] = HCA_GIDC_SIZE;
	for (int t = 1; t < NTYPES; t++) {
		f->ctx[t] = calloc(f->n[t] ? f->n[t] : 1, f->size[t]);
		if (!f->ctx[t])
			return -ENOMEM;	/* test helper: leaks on this path are fine */
	}
	f->qpc_flags = calloc(f->n[HCA_CTX_TYPE_QPC], 1);
	if (!f->qpc_flags)
		return -ENOMEM;
	*out = (struct hca_engine *)f;
	return 0;
}

static void fake_destroy(struct hca_engine *e)
{
	struct fake_engine *f = F(e);

	if (!f)
		return;
	for (int t = 1; t < NTYPES; t++)
		free(f->ctx[t]);
	free(f->qpc_flags);
	free(f);
}

/* Registers firmware writes; the host's subset. */
static int fw_stored(uint32_t off)
{
	switch (off) {
	case HCA_INIT_FW_VER: case HCA_INIT_CTRL: case HCA_INIT_STATUS: case HCA_INIT_HEALTH:
	case HCA_INIT_SYNDROME: case HCA_INIT_CMDQ_BASE_LO: case HCA_INIT_CMDQ_BASE_HI:
	case HCA_INIT_CMDQ_LOG_SIZE: case HCA_INIT_CMDQ_PI: case HCA_INIT_CMDQ_CI:
	case HCA_INIT_CMDQ_STATUS:
		return 1;
	default:
		return 0;
	}
}

static uint32_t init_read(struct fake_engine *f, uint32_t off)
{
	switch (off) {
	case HCA_INIT_HCA_ID:
		return HCA_FIELD_PREP(HCA_INIT_HCA_ID_VENDOR_ID, HCA_VENDOR_ID) |
		       HCA_FIELD_PREP(HCA_INIT_HCA_ID_DEVICE_ID, HCA_DEVICE_ID);
	case HCA_INIT_HW_REV: return HCA_HW_REV;
	case HCA_INIT_INTERFACE_REV: return HCA_INTERFACE_REV;
	case HCA_INIT_CAP0: return f->caps[0];
	case HCA_INIT_CAP1: return f->caps[1];
	case HCA_INIT_CAP2: return f->caps[2];
	case HCA_INIT_CAP3: return f->caps[3];
	case HCA_INIT_CLOCK_LO: return (uint32_t)f->now;
	case HCA_INIT_CLOCK_HI: return (uint32_t)(f->now >> 32);
	default:
		return off < HCA_BAR0_INIT_SEG_SIZE && fw_stored(off) ? f->init[off / 4] : 0;
	}
}

static uint32_t fake_bar0_read(struct hca_engine *e, uint32_t off)
{
	if (off & 3 || off >= HCA_BAR0_INIT_SEG_SIZE)
		return 0;
	return init_read(F(e), off);
}

static void fake_bar0_write(struct hca_engine *e, uint32_t off, uint32_t v)
{
	struct fake_engine *f = F(e);

	if (off & 3)
		return;
	switch (off) {
	case HCA_INIT_CTRL:
		v &= HCA_INIT_CTRL_RESET_MASK | HCA_INIT_CTRL_ENABLE_MASK;
		if (v & HCA_INIT_CTRL_RESET_MASK) {
			reset_engine(f);
			for (uint32_t o = 0; o < HCA_BAR0_INIT_SEG_SIZE; o += 4)
				if (fw_stored(o))
					f->init[o / 4] = 0;
		}
		f->init[off / 4] = (f->init[off / 4] & HCA_INIT_CTRL_RESET_MASK) | v;
		f->fw_event |= HCA_MGMT_FW_EVENT_HOST_CTRL_MASK;
		break;
	case HCA_INIT_CMDQ_BASE_LO: case HCA_INIT_CMDQ_BASE_HI: case HCA_INIT_CMDQ_LOG_SIZE:
		f->init[off / 4] = v;
		break;
	case HCA_INIT_CMDQ_PI:
		f->init[off / 4] = v;
		f->fw_event |= HCA_MGMT_FW_EVENT_CMDQ_PI_MASK;
		break;
	default:
		break;
	}
}

static uint8_t *ctx_at(struct fake_engine *f, unsigned int type, uint32_t index)
{
	if (type < 1 || type >= NTYPES || index >= f->n[type])
		return NULL;
	return f->ctx[type] + (size_t)index * f->size[type];
}

static int reserved_index(unsigned int type, uint32_t index)
{
	switch (type) {
	case HCA_CTX_TYPE_QPC: return index < HCA_QPN_GSI;
	case HCA_CTX_TYPE_CQC: case HCA_CTX_TYPE_SRQC: case HCA_CTX_TYPE_MRC: return index == 0;
	default: return 0;
	}
}

static void ctx_cmd(struct fake_engine *f, uint32_t v)
{
	unsigned int op = HCA_FIELD_GET(v, HCA_MGMT_CTX_CMD_OP);
	unsigned int type = HCA_FIELD_GET(v, HCA_MGMT_CTX_CMD_TYPE);
	uint32_t index = HCA_FIELD_GET(v, HCA_MGMT_CTX_CMD_INDEX);
	uint8_t *c = ctx_at(f, type, index);
	uint8_t *stage = (uint8_t *)f->ctx_data;

	if ((op != HCA_CTX_OP_READ && op != HCA_CTX_OP_WRITE) || type < 1 || type >= NTYPES) {
		f->ctx_status = HCA_MGMT_STATUS_BAD_TYPE;
		return;
	}
	if (!c || reserved_index(type, index)) {
		f->ctx_status = HCA_MGMT_STATUS_BAD_INDEX;
		return;
	}
	if (op == HCA_CTX_OP_READ) {
		memcpy(stage, c, f->size[type]);
		f->ctx_status = HCA_MGMT_STATUS_OK;
		return;
	}
	if (f->fail_type == type) {
		f->ctx_status = HCA_MGMT_STATUS_BAD_STATE;
		return;
	}
	f->writes[type]++;
	if (f->log_len < FAKE_CTX_LOG) {
		f->log[f->log_len].type = (uint8_t)type;
		f->log[f->log_len].first = stage[0];
		f->log[f->log_len].index = index;
		f->log_len++;
	}
	if (type == HCA_CTX_TYPE_QPC) {
		struct hca_qpc *q = (struct hca_qpc *)c;
		uint8_t flags = stage[HCA_QPC_FLAGS_OFF];

		memcpy(c, stage, 0x80);
		f->qpc_flags[index] = flags;
		q->flags = flags & (uint8_t)~(HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK | HCA_QPC_FLAGS_LOAD_RQ_PSN_MASK |
					      HCA_QPC_FLAGS_RESET_STATE_MASK);
		if (flags & HCA_QPC_FLAGS_RESET_STATE_MASK)
			memset(c + 0x80, 0, HCA_QPC_SIZE - 0x80);
		if (flags & HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK)
			q->sq_psn_next = q->sq_psn;
		if (flags & HCA_QPC_FLAGS_LOAD_RQ_PSN_MASK)
			q->rq_psn_expected = q->rq_psn;
		q->cur_state = q->state;
	} else if (type == HCA_CTX_TYPE_GIDC) {
		memcpy(c, stage, HCA_GIDC_SIZE);
	} else {
		memcpy(c, stage, 0x20);
		if (type == HCA_CTX_TYPE_SRQC)
			((struct hca_srqc *)c)->armed = ((struct hca_srqc *)c)->limit != 0;
		if (type == HCA_CTX_TYPE_EQC) {
			struct hca_eqc *q = (struct hca_eqc *)c;
			q->armed = q->valid;
			q->pi = q->ci = 0;
		}
	}
	f->ctx_status = HCA_MGMT_STATUS_OK;
}

static void eqe_inject(struct fake_engine *f)
{
	const struct hca_eqc *q = (const struct hca_eqc *)ctx_at(f, HCA_CTX_TYPE_EQC, f->inj_eqn);
	struct fake_eqe *r;

	if (!q || !q->valid) {
		f->inj_status = HCA_MGMT_STATUS_BAD_STATE;
		return;
	}
	if (f->full_eqn && f->full_eqn == f->inj_eqn) {
		f->inj_status = HCA_MGMT_STATUS_OVERFLOW;
		return;
	}
	if (f->num_eqes >= FAKE_MAX_EQES) {
		f->inj_status = HCA_MGMT_STATUS_OVERFLOW;
		return;
	}
	r = &f->eqes[f->num_eqes++];
	r->eqn = f->inj_eqn;
	r->type = (uint8_t)HCA_FIELD_GET(f->inj_type, HCA_MGMT_EQE_INJ_TYPE_TYPE);
	r->subtype = (uint8_t)HCA_FIELD_GET(f->inj_type, HCA_MGMT_EQE_INJ_TYPE_SUBTYPE);
	r->element = f->inj_element;
	r->data = f->inj_data;
	f->inj_status = HCA_MGMT_STATUS_OK;
}

static uint32_t fake_mgmt_read(struct hca_engine *e, uint32_t a)
{
	struct fake_engine *f = F(e);

	if (a & 3 || a >= HCA_MGMT_SIZE)
		return 0;
	if (a >= HCA_MGMT_CTX_DATA && a < HCA_MGMT_CTX_DATA + 4 * HCA_MGMT_CTX_DATA_WORDS)
		return f->ctx_data[(a - HCA_MGMT_CTX_DATA) / 4];
	if (a >= HCA_MGMT_INIT_WINDOW && a < HCA_MGMT_INIT_WINDOW + HCA_BAR0_INIT_SEG_SIZE)
		return init_read(f, a - HCA_MGMT_INIT_WINDOW);
	switch (a) {
	case HCA_MGMT_ID: return HCA_MGMT_ID_VALUE;
	case HCA_MGMT_ENGINE_REV: return HCA_INTERFACE_REV;
	case HCA_MGMT_FW_EVENT:
		return f->fw_event | (f->evt_count ? HCA_MGMT_FW_EVENT_ENGINE_EVENT_MASK : 0);
	case HCA_MGMT_ENGINE_CTRL: return f->engine_ctrl;
	case HCA_MGMT_PORT_CTRL: return f->port_ctrl;
	case HCA_MGMT_PORT_STATE: return f->port_ctrl & 1 ? HCA_PORT_ACTIVE : HCA_PORT_DOWN;
	case HCA_MGMT_PORT_MAC_LO: return f->mac_lo;
	case HCA_MGMT_PORT_MAC_HI: return f->mac_hi;
	case HCA_MGMT_EVT_COUNT: return f->evt_count;
	case HCA_MGMT_EVT_TYPE:
		return (f->evt_count ? f->evt[f->evt_head].type : 0) |
		       (f->evt_overflow ? HCA_MGMT_EVT_TYPE_OVERFLOW_MASK : 0);
	case HCA_MGMT_EVT_ELEMENT: return f->evt_count ? f->evt[f->evt_head].element : 0;
	case HCA_MGMT_EQE_INJ_STATUS: return f->inj_status;
	case HCA_MGMT_CTX_STATUS: return f->ctx_status;
	case HCA_MGMT_CLOCK_LO: return (uint32_t)f->now;
	case HCA_MGMT_CLOCK_HI: return (uint32_t)(f->now >> 32);
	default: return 0;
	}
}

static void fake_mgmt_write(struct hca_engine *e, uint32_t a, uint32_t v)
{
	struct fake_engine *f = F(e);

	if (a & 3 || a >= HCA_MGMT_SIZE)
		return;
	if (a >= HCA_MGMT_CTX_DATA && a < HCA_MGMT_CTX_DATA + 4 * HCA_MGMT_CTX_DATA_WORDS) {
		f->ctx_data[(a - HCA_MGMT_CTX_DATA) / 4] = v;
		return;
	}
	if (a >= HCA_MGMT_INIT_WINDOW && a < HCA_MGMT_INIT_WINDOW + HCA_BAR0_INIT_SEG_SIZE) {
		uint32_t off = a - HCA_MGMT_INIT_WINDOW;
		if (fw_stored(off))
			f->init[off / 4] = v;
		return;
	}
	switch (a) {
	case HCA_MGMT_FW_EVENT: f->fw_event &= ~v; break;
	case HCA_MGMT_ENGINE_CTRL:
		if (v & HCA_MGMT_ENGINE_CTRL_RESET_MASK)
			reset_engine(f);
		f->engine_ctrl = v & HCA_MGMT_ENGINE_CTRL_ENABLE_MASK;
		break;
	case HCA_MGMT_PORT_CTRL:
		if ((v & 1) != (f->port_ctrl & 1))
			fake_engine_event(e, (v & 1) ? HCA_EVENT_PORT_ACTIVE : HCA_EVENT_PORT_ERR, 1);
		f->port_ctrl = v & 1;
		break;
	case HCA_MGMT_PORT_MAC_LO: f->mac_lo = v; break;
	case HCA_MGMT_PORT_MAC_HI: f->mac_hi = v & 0xffff; break;
	case HCA_MGMT_EVT_POP:
		if (f->evt_count) {
			f->evt_head = (f->evt_head + 1) % HCA_MGMT_EVT_DEPTH;
			f->evt_count--;
		}
		f->evt_overflow = 0;
		break;
	case HCA_MGMT_EQE_INJ_EQN: f->inj_eqn = v; break;
	case HCA_MGMT_EQE_INJ_TYPE: f->inj_type = v; break;
	case HCA_MGMT_EQE_INJ_ELEMENT: f->inj_element = v; break;
	case HCA_MGMT_EQE_INJ_DATA: f->inj_data = v; break;
	case HCA_MGMT_EQE_INJ_GO: eqe_inject(f); break;
	case HCA_MGMT_CTX_CMD: ctx_cmd(f, v); break;
	default: break;
	}
}

static void fake_rx_frame(struct hca_engine *e, const uint8_t *frame, size_t len)
{
	(void)e;
	(void)frame;
	(void)len;
}

static void fake_advance(struct hca_engine *e, uint64_t cycles)
{
	F(e)->now += cycles;
}

static uint64_t fake_now(struct hca_engine *e)
{
	return F(e)->now;
}

static uint64_t fake_next_event(struct hca_engine *e)
{
	(void)e;
	return UINT64_MAX;
}

static int fake_fw_irq(struct hca_engine *e)
{
	struct fake_engine *f = F(e);
	return f->fw_event || f->evt_count;
}

static const char *fake_last_error(struct hca_engine *e)
{
	(void)e;
	return "";
}

const struct hca_engine_ops fake_engine_ops = {
	.name = "fake",
	.create = fake_create,
	.destroy = fake_destroy,
	.bar0_read = fake_bar0_read,
	.bar0_write = fake_bar0_write,
	.mgmt_read = fake_mgmt_read,
	.mgmt_write = fake_mgmt_write,
	.rx_frame = fake_rx_frame,
	.advance = fake_advance,
	.now = fake_now,
	.next_event = fake_next_event,
	.fw_irq = fake_fw_irq,
	.last_error = fake_last_error,
};

void fake_engine_register(void)
{
	hca_engine_register(&fake_engine_ops);
}

void fake_engine_event(struct hca_engine *e, uint8_t type, uint32_t element)
{
	struct fake_engine *f = F(e);

	if (f->evt_count == HCA_MGMT_EVT_DEPTH) {
		f->evt_overflow = 1;
		return;
	}
	f->evt[(f->evt_head + f->evt_count) % HCA_MGMT_EVT_DEPTH].type = type;
	f->evt[(f->evt_head + f->evt_count) % HCA_MGMT_EVT_DEPTH].element = element;
	f->evt_count++;
}

uint8_t *fake_engine_ctx(struct hca_engine *e, unsigned int type, uint32_t index)
{
	return ctx_at(F(e), type, index);
}

uint8_t fake_engine_qpc_flags(struct hca_engine *e, uint32_t qpn)
{
	struct fake_engine *f = F(e);
	return qpn < f->n[HCA_CTX_TYPE_QPC] ? f->qpc_flags[qpn] : 0;
}

uint32_t fake_engine_ctx_writes(struct hca_engine *e, unsigned int type)
{
	return type < NTYPES ? F(e)->writes[type] : 0;
}

void fake_engine_fail_ctx_type(struct hca_engine *e, unsigned int type)
{
	F(e)->fail_type = type;
}

unsigned int fake_engine_num_eqes(struct hca_engine *e)
{
	return F(e)->num_eqes;
}

const struct fake_eqe *fake_engine_eqe(struct hca_engine *e, unsigned int i)
{
	struct fake_engine *f = F(e);
	return i < f->num_eqes ? &f->eqes[i] : NULL;
}

void fake_engine_eq_full(struct hca_engine *e, uint32_t eqn)
{
	F(e)->full_eqn = eqn;
}

uint32_t fake_engine_mgmt(struct hca_engine *e, uint32_t addr)
{
	return fake_mgmt_read(e, addr);
}

unsigned int fake_engine_ctx_log_len(struct hca_engine *e)
{
	return F(e)->log_len;
}

struct fake_ctx_write fake_engine_ctx_log(struct hca_engine *e, unsigned int i)
{
	struct fake_engine *f = F(e);
	struct fake_ctx_write none = { 0, 0, 0 };

	return i < f->log_len ? f->log[i] : none;
}
