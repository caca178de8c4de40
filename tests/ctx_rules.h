/* SPDX-License-Identifier: MIT */
/*
 * Context-table rules of docs/programming.md 7 that both engines keep,
 * checked through the management port only, so the model's test
 * (model_mgmt) and the RTL's (rtl_regs) run the same checks:
 *   a QPC write of state RESET without RESET_STATE forgets the QP's dynamic
 *   state; rewriting a valid EQC keeps its status words (pi, armed) and
 *   destroying it (valid = 0) forgets them; an MR context reads back byte
 *   for byte as written, reserved bytes included; the CTX_DATA words past a
 *   context's size read 0 after a read, a refused command leaves them as
 *   written, ENGINE_CTRL.RESET clears them.
 */
#ifndef HCASIM_TESTS_CTX_RULES_H
#define HCASIM_TESTS_CTX_RULES_H

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tb.h"

#define CTX_RULES_RUN 100000	/* cycles an EQE injection is given */

static inline void ctx_rules_inject(struct tb_node *n, uint32_t eqn, uint32_t element)
{
	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_EQN, eqn);
	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_TYPE, HCA_EQE_TYPE_COMP);
	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_ELEMENT, element);
	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_DATA, 0);
	tb_mgmt_write(n, HCA_MGMT_EQE_INJ_GO, 1);
}

/* QPN `qpn` (unused by the caller): state = RESET alone makes the engine forget the QP. */
static inline void ctx_rules_qpc_reset(struct tb_node *n, uint32_t qpn)
{
	struct hca_qpc q, b;

	memset(&q, 0, sizeof(q));
	q.state = HCA_QPS_INIT;
	q.qp_type = HCA_QPT_RC;
	q.flags = HCA_QPC_FLAGS_RESET_STATE_MASK | HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK | HCA_QPC_FLAGS_LOAD_RQ_PSN_MASK;
	q.sq_psn = 0xabcdef;
	q.rq_psn = 0x123456;
	tb_ctx_write(n, HCA_CTX_TYPE_QPC, qpn, &q, sizeof(q));
	tb_ctx_read(n, HCA_CTX_TYPE_QPC, qpn, &b, sizeof(b));
	CHECK(b.sq_psn_next == 0xabcdef && b.rq_psn_expected == 0x123456, "QPC in INIT with its PSNs loaded");
	q.state = HCA_QPS_RESET;
	q.flags = 0;
	CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_QPC, qpn, &q, sizeof(q)), HCA_MGMT_STATUS_OK, "QPC state RESET, no flags");
	tb_ctx_read(n, HCA_CTX_TYPE_QPC, qpn, &b, sizeof(b));
	CHECK_EQ(b.cur_state, HCA_QPS_RESET, "RESET without RESET_STATE: cur_state RESET");
	CHECK(b.sq_psn_next == 0 && b.rq_psn_expected == 0,
	      "RESET without RESET_STATE: the QP's PSN state is forgotten (sq_psn_next 0x%x, rq_psn_expected 0x%x)",
	      b.sq_psn_next, b.rq_psn_expected);
}

/*
 * Rewriting a valid EQ's context replaces its configuration only: the
 * status words are the engine's, so the next EQE goes to the next slot and
 * a disarmed EQ stays disarmed.  valid = 0 forgets the EQ: status reads 0.
 */
static inline void ctx_rules_eq_rewrite(struct tb *tb, struct tb_node *n, unsigned int vector)
{
	struct tb_eq *eq = tb_eq_create(n, 2, vector);
	struct hca_eqc c, back;
	struct hca_eqe e;
	uint64_t irq0 = n->irq[vector];

	ctx_rules_inject(n, eq->eqn, 500);	/* fires the armed EQ, which disarms */
	ctx_rules_inject(n, eq->eqn, 501);
	tb_run(tb, CTX_RULES_RUN);
	CHECK_EQ(n->irq[vector], irq0 + 1, "one interrupt: the EQ disarmed after the first EQE");
	tb_ctx_read(n, HCA_CTX_TYPE_EQC, eq->eqn, &c, sizeof(c));
	CHECK(c.valid == 1 && c.pi == 2 && c.armed == 0, "EQ status before the rewrite: pi %u armed %u", c.pi, c.armed);
	c.pi = 0;		/* status words written are ignored */
	c.armed = 1;
	CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_EQC, eq->eqn, &c, sizeof(c)), HCA_MGMT_STATUS_OK, "valid EQC rewritten");
	tb_ctx_read(n, HCA_CTX_TYPE_EQC, eq->eqn, &back, sizeof(back));
	CHECK(back.pi == 2 && back.armed == 0, "rewrite keeps the status: pi %u armed %u", back.pi, back.armed);
	ctx_rules_inject(n, eq->eqn, 502);
	tb_run(tb, CTX_RULES_RUN);
	CHECK_EQ(n->irq[vector], irq0 + 1, "still disarmed: no interrupt for the third EQE");
	for (uint32_t i = 0; i < 3; i++)
		CHECK(tb_eq_poll(eq, &e) && e.element == 500 + i, "EQE %u in slot %u", i, i);
	c.valid = 0;
	tb_ctx_write(n, HCA_CTX_TYPE_EQC, eq->eqn, &c, sizeof(c));
	tb_ctx_read(n, HCA_CTX_TYPE_EQC, eq->eqn, &back, sizeof(back));
	CHECK(back.valid == 0 && back.pi == 0 && back.ci == 0 && back.armed == 0,
	      "destroyed EQ: status forgotten (pi %u ci %u armed %u)", back.pi, back.ci, back.armed);
	free(eq);
}

/*
 * An MR context is configuration only (no status words): a read returns the
 * 64 bytes as written, the reserved bytes 0x20..0x3f included -- zeros, and
 * a pattern -- with dma_addr bits that differ between the two writes.
 */
static inline void ctx_rules_mrc_bytes(struct tb_node *n, uint32_t idx)
{
	static const uint64_t dma[] = { 0x76000ull, 0x123456789000ull };
	struct hca_mrc m, back;

	for (unsigned int k = 0; k < 2 * sizeof(dma) / sizeof(dma[0]); k++) {
		memset(&m, 0, sizeof(m));
		m.valid = 1;
		m.key = (uint8_t)(0x10 + k);
		m.access = HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ;
		m.pdn = 7;
		m.va = 0x7f0000001000ull;
		m.length = 0x3000;
		m.dma_addr = dma[k % 2];
		if (k >= 2)
			for (unsigned int i = 0; i < sizeof(m.rsvd_20); i++)
				m.rsvd_20[i] = (uint8_t)(0x5a ^ (i * 37));
		CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_MRC, idx, &m, sizeof(m)), HCA_MGMT_STATUS_OK, "MRC write");
		memset(&back, 0xee, sizeof(back));
		CHECK_EQ(tb_ctx_read(n, HCA_CTX_TYPE_MRC, idx, &back, sizeof(back)), HCA_MGMT_STATUS_OK, "MRC read");
		CHECK(memcmp(&m, &back, sizeof(m)) == 0, "MRC %u read back byte for byte (dma_addr 0x%llx, reserved %s)",
		      idx, (unsigned long long)m.dma_addr, k >= 2 ? "a pattern" : "zero");
	}
}

static inline unsigned int ctx_rules_words_not(struct tb_node *n, unsigned int from, uint32_t base, bool indexed)
{
	unsigned int bad = 0;

	for (unsigned int i = from; i < HCA_MGMT_CTX_DATA_WORDS; i++)
		bad += tb_mgmt_read(n, HCA_MGMT_CTX_DATA + 4 * i) != (indexed ? base | i : base);
	return bad;
}

static inline void ctx_rules_fill(struct tb_node *n, uint32_t base)
{
	for (unsigned int i = 0; i < HCA_MGMT_CTX_DATA_WORDS; i++)
		tb_mgmt_write(n, HCA_MGMT_CTX_DATA + 4 * i, base | i);
}

/* CTX_DATA: a read replaces all 64 words; refused: unchanged; ENGINE_CTRL.RESET: 0.  Resets the engine. */
static inline void ctx_rules_data_words(struct tb_node *n)
{
	static const struct {
		unsigned int type, idx, size;
	} rd[] = {
		{ HCA_CTX_TYPE_CQC, 1, HCA_CQC_SIZE }, { HCA_CTX_TYPE_SRQC, 1, HCA_SRQC_SIZE },
		{ HCA_CTX_TYPE_EQC, 0, HCA_EQC_SIZE }, { HCA_CTX_TYPE_MRC, 1, HCA_MRC_SIZE },
		{ HCA_CTX_TYPE_GIDC, 0, HCA_GIDC_SIZE },
	};
	unsigned int bad;

	for (unsigned int k = 0; k < sizeof(rd) / sizeof(rd[0]); k++) {
		ctx_rules_fill(n, 0xa5a5a500u);
		tb_mgmt_write(n, HCA_MGMT_CTX_CMD, HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_OP, HCA_CTX_OP_READ) |
						   HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_TYPE, rd[k].type) |
						   HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_INDEX, rd[k].idx));
		CHECK(tb_mgmt_read(n, HCA_MGMT_CTX_STATUS) == HCA_MGMT_STATUS_OK, "context type %u read", rd[k].type);
		bad = ctx_rules_words_not(n, rd[k].size / 4, 0, false);
		CHECK(bad == 0, "type %u: the words past its %u bytes read 0 (%u do not)", rd[k].type, rd[k].size, bad);
	}
	ctx_rules_fill(n, 0x5a5a5a00u);
	tb_mgmt_write(n, HCA_MGMT_CTX_CMD, HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_OP, HCA_CTX_OP_READ) |
					   HCA_FIELD_PREP(HCA_MGMT_CTX_CMD_TYPE, HCA_CTX_TYPE_QPC));	/* QPN 0 */
	CHECK_EQ(tb_mgmt_read(n, HCA_MGMT_CTX_STATUS), HCA_MGMT_STATUS_BAD_INDEX, "read of QPN 0 refused");
	CHECK_EQ(ctx_rules_words_not(n, 0, 0x5a5a5a00u, true), 0, "a refused read leaves the staging words as written");
	tb_mgmt_write(n, HCA_MGMT_ENGINE_CTRL, HCA_MGMT_ENGINE_CTRL_RESET_MASK | HCA_MGMT_ENGINE_CTRL_ENABLE_MASK);
	CHECK_EQ(ctx_rules_words_not(n, 0, 0, false), 0, "ENGINE_CTRL.RESET clears the staging words");
}

#endif /* HCASIM_TESTS_CTX_RULES_H */
