// SPDX-License-Identifier: MIT
/*
 * Context tables and their status bits around rewrites, resets, doorbells
 * and interrupts, on two "lockstep" devices (reference: the C model, DUT:
 * the RTL; any difference is a divergence) and checked against the spec
 * (docs/programming.md 2.2, 4.4, 7; docs/reference.md) on their own:
 *   mr_reset_forgotten -- MR 76 written valid, then ENGINE_CTRL.RESET: the
 *                     MRC reads 0 (contexts are invalid after a reset);
 *   cq24_valid     -- CQ 24 takes the send completions of a QP while MR
 *                     contexts are written between them: every CQE lands,
 *                     no CQ error (a context write of another object leaves
 *                     a CQ's valid bit alone);
 *   cq_rewrite     -- a valid CQC rewritten keeps its status words (pi, ci,
 *                     arm): read back, and the next CQE goes to the next slot;
 *   eq_inject_log8 -- EQE injection into EQs of 2^8 and 2^12 entries holding
 *                     unconsumed EQEs: status OK, no EQ_OVERFLOW;
 *   qpc_mid_item   -- RTS -> RTS QPC writes landing d cycles after an SQ
 *                     doorbell (d = 0..DMAX), the SQ producer index at 4..7
 *                     mod 8: every WQE sent once, nothing more;
 *   msix_masked    -- vector 2 masked, an EQ on vector 13 fires while 13 is
 *                     masked: no message, PBA bit 13 set; the unmask
 *                     delivers it and clears the bit;
 *   eq23_armed     -- EQ 23 armed stays armed across doorbells of other
 *                     objects (EQC read back, and its EQE interrupts);
 *   srq_limit_once -- an SRQ below its limit raises SRQ_LIMIT_REACHED once
 *                     and disarms: the next receive below the limit raises
 *                     none (programming.md 4.3);
 *   msix31_addr    -- vector 31's message address reads back as written at
 *                     four successive cycles.
 * These are the corners the mutation analysis found no test for
 * (sim/mutate/answers_rtl.txt, docs/sim.md 11.3; b5a3724 g1 #2, #7, #24,
 * #32, #34, #38, #45, g2 #5, #12).
 *
 *   rtl_ctx_rewrite [--width 64|512] [--engine rtl|lockstep|model] [--options K=V,...] [CASE...]
 */
#include "rtl_ls.h"
#include "ctx_rules.h"

static void send_wr(struct tb_qp *qp, const struct tb_sge *s)
{
	struct tb_send_wr w = { .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = s, .num_sge = 1 };

	tb_post_send(qp, &w);
}

/* One SEND from node 0's QP into a receive posted on node 1: both CQEs SUCCESS. */
static bool one_send(struct rt *t, struct tb_cq *scq, uint32_t off)
{
	struct tb_sge s = rt_sge(t->mr[0], off, 64), r = rt_sge(t->mr[1], off, 64);
	struct hca_cqe c, rc;

	tb_post_recv(t->qp[1], &r, 1);
	send_wr(t->qp[0], &s);
	return wait_cqe(scq, &c) && c.status == HCA_WC_SUCCESS && wait_cqe(t->rcq[1], &rc) &&
	       rc.status == HCA_WC_SUCCESS;
}

static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/*
 * ENGINE_CTRL.RESET makes every context invalid (docs/reference.md
 * ENGINE_CTRL, programming.md 7): MR 76, written valid before, reads 0.
 */
static void mr_reset_forgotten(void)
{
	struct rt t;
	struct hca_mrc m, back;
	struct tb_node *n;

	setup_objs(&t, 6);
	n = t.n[0];
	memset(&m, 0, sizeof(m));
	m.valid = 1;
	m.key = 0x76;
	m.access = HCA_ACCESS_LOCAL_WRITE;
	m.pdn = t.pd[0];
	m.va = 0x7600000;
	m.length = 0x1000;
	m.dma_addr = t.mr[0]->iova;
	CHECK_EQ(tb_ctx_write(n, HCA_CTX_TYPE_MRC, 76, &m, sizeof(m)), HCA_MGMT_STATUS_OK, "MRC 76 written");
	tb_ctx_read(n, HCA_CTX_TYPE_MRC, 76, &back, sizeof(back));
	CHECK(memcmp(&m, &back, sizeof(m)) == 0, "MRC 76 reads back as written");
	tb_mgmt_write(n, HCA_MGMT_ENGINE_CTRL, HCA_MGMT_ENGINE_CTRL_RESET_MASK);
	memset(&back, 0xee, sizeof(back));
	CHECK_EQ(tb_ctx_read(n, HCA_CTX_TYPE_MRC, 76, &back, sizeof(back)), HCA_MGMT_STATUS_OK, "MRC 76 read");
	CHECK(all_zero(&back, sizeof(back)), "after ENGINE_CTRL.RESET MRC 76 reads 0 (valid %u key 0x%x pdn %u)",
	      back.valid, back.key, back.pdn);
	finish(&t, "MR 76 forgotten by ENGINE_CTRL.RESET");
}

/*
 * CQ 24 (node 0's send CQ): SENDs complete into it with an MR context
 * written between each two; a context write of another object must not
 * touch CQ 24 (every CQE lands, CQ_ERR never raised, the CQC valid).
 */
static void cq24_valid(void)
{
	struct rt t;
	struct tb_cq *cq24;
	struct hca_cqc cc;
	struct tb_mr *mr[4];
	uint8_t ty;
	uint32_t el;
	int ok = 0, cq_err = 0;

	setup_objs(&t, 10);
	t.n[0]->next_cqn = 24;
	cq24 = tb_cq_create(t.n[0], 6, NULL);
	t.qp[0] = tb_qp_create(t.n[0], HCA_QPT_RC, t.pd[0], cq24, t.rcq[0], NULL, NULL);
	t.qp[1] = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
	CHECK(cq24 && cq24->cqn == 24 && tb_connect_pair(t.qp[0], t.qp[1], NULL) == 0, "CQ 24, a QP pair");
	tb_evt_clear(t.n[0]);
	for (int i = 0; i < 4; i++) {
		ok += one_send(&t, cq24, 0x100 * (uint32_t)i);
		mr[i] = tb_mr_reg(t.n[0], t.pd[0], 4096, RT_ACC_ALL);	/* one MRC write */
	}
	ok += one_send(&t, cq24, 0x400);
	CHECK_EQ(ok, 5, "five SENDs complete into CQ 24, an MR context written between each two");
	tb_ctx_read(t.n[0], HCA_CTX_TYPE_CQC, 24, &cc, sizeof(cc));
	CHECK(cc.valid == 1 && cc.error == 0 && cc.pi == 5, "CQC 24: valid %u error %u pi %u", cc.valid, cc.error,
	      cc.pi);
	while (tb_evt_pop(t.n[0], &ty, &el))
		cq_err += ty == HCA_EVENT_CQ_ERR;
	CHECK_EQ(cq_err, 0, "no CQ_ERR event");
	for (int i = 0; i < 4; i++)
		free(mr[i]);
	free(cq24);
	finish(&t, "CQ 24 across MR context writes");
}

/*
 * A valid CQC rewritten (programming.md 7: writes replace the configuration
 * part, status words are the engine's): pi, ci and arm read back as before
 * the write, whatever the written status words say, and the next CQE goes
 * to the next slot.
 */
static void cq_rewrite(void)
{
	struct rt t;
	struct hca_cqc c, back;
	struct tb_cq *cq;
	int ok = 0;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	cq = t.scq[0];
	ok += one_send(&t, cq, 0);
	ok += one_send(&t, cq, 0x100);
	CHECK_EQ(ok, 2, "two SENDs complete");
	tb_cq_arm(cq, false);
	tb_run(t.tb, RT_WAIT);
	tb_ctx_read(t.n[0], HCA_CTX_TYPE_CQC, cq->cqn, &c, sizeof(c));
	CHECK(c.valid == 1 && c.pi == 2 && c.ci == 2 && c.arm == HCA_CQ_ARM_NEXT,
	      "CQ before the rewrite: pi %u ci %u arm %u", c.pi, c.ci, c.arm);
	c.pi = 0;		/* status words written are ignored */
	c.ci = 0;
	c.arm = 0;
	CHECK_EQ(tb_ctx_write(t.n[0], HCA_CTX_TYPE_CQC, cq->cqn, &c, sizeof(c)), HCA_MGMT_STATUS_OK,
		 "valid CQC rewritten");
	tb_ctx_read(t.n[0], HCA_CTX_TYPE_CQC, cq->cqn, &back, sizeof(back));
	CHECK(back.valid == 1 && back.pi == 2 && back.ci == 2 && back.arm == HCA_CQ_ARM_NEXT,
	      "rewrite keeps the status: pi %u ci %u arm %u", back.pi, back.ci, back.arm);
	CHECK(one_send(&t, cq, 0x200), "the next CQE in slot 2 (the tb polls slot 2)");
	tb_ctx_read(t.n[0], HCA_CTX_TYPE_CQC, cq->cqn, &back, sizeof(back));
	CHECK(back.pi == 3 && back.ci == 3, "CQ after the third CQE: pi %u ci %u", back.pi, back.ci);
	finish(&t, "valid CQC rewritten");
}

/*
 * EQE injection (docs/reference.md EQE_INJ_*) refuses with OVERFLOW only an
 * EQ that is full: into an EQ of 2^log entries holding k < 2^log
 * unconsumed EQEs it succeeds.
 */
static void eq_inject_log(struct rt *t, unsigned int log, unsigned int k)
{
	struct tb_node *n = t->n[0];
	struct tb_eq *eq = tb_eq_create(n, log, 3);
	struct hca_eqe e;
	uint32_t ovf0 = tb_stat(n, HCA_STAT_EQ_OVERFLOW);
	unsigned int bad = 0, got = 0;

	for (unsigned int i = 0; i < k; i++) {
		ctx_rules_inject(n, eq->eqn, 700 + i);
		bad += tb_mgmt_read(n, HCA_MGMT_EQE_INJ_STATUS) != HCA_MGMT_STATUS_OK;
		if (i == 0)
			tb_run(t->tb, RT_WAIT);	/* the first one written to the ring */
	}
	tb_run(t->tb, RT_WAIT);
	CHECK(bad == 0 && tb_stat(n, HCA_STAT_EQ_OVERFLOW) == ovf0,
	      "EQ of 2^%u entries: %u injections OK (%u refused, EQ_OVERFLOW +%u)", log, k, bad,
	      tb_stat(n, HCA_STAT_EQ_OVERFLOW) - ovf0);
	while (tb_eq_poll(eq, &e))
		got += e.element == 700 + got;
	CHECK_EQ(got, k, "EQEs in order");
	free(eq);
}

static void eq_inject_log8(void)
{
	struct rt t;

	setup_objs(&t, 6);
	eq_inject_log(&t, 8, 2);
	eq_inject_log(&t, 12, 20);
	finish(&t, "EQE injection into EQs of 2^8 and 2^12 entries");
}

/*
 * QPC writes taken by the engine in the middle of its item on the QP
 * (docs/rtl.md: the item sees the QP as before the command): a SEND posted
 * with the SQ producer index at 4..7 mod 8, an RTS -> RTS write (nothing
 * changed) d cycles after the doorbell, for every d up to DMAX; each SEND
 * goes out once and completes, and no WQE that was not posted is sent.
 */
#define QPC_MID_DMAX 240

static void qpc_mid_item(void)
{
	struct rt t;
	struct tb_sge s, r;
	struct hca_cqe c;
	unsigned int posted = 0, bad = 0, first_bad = 0, sends = 0;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	r = rt_sge(t.mr[1], 0, 64);
	s = rt_sge(t.mr[0], 0, 64);
	for (unsigned int d = 0; d <= QPC_MID_DMAX && !bad; d++) {
		while (!((posted + 1) & 4)) {	/* the producer index after the post must have bit 2 set */
			tb_post_recv(t.qp[1], &r, 1);
			send_wr(t.qp[0], &s);
			posted++;
			if (!wait_cqe(t.scq[0], &c) || c.status != HCA_WC_SUCCESS || !wait_cqe(t.rcq[1], &c))
				bad++;
		}
		tb_post_recv(t.qp[1], &r, 1);
		send_wr(t.qp[0], &s);
		posted++;
		tb_run_for(t.tb, d);
		if (tb_qp_modify(t.qp[0], HCA_QPS_RTS, 0) != HCA_MGMT_STATUS_OK)
			bad++;
		if (!wait_cqe(t.scq[0], &c) || c.status != HCA_WC_SUCCESS || c.wqe_index != (posted - 1) % 65536 ||
		    !wait_cqe(t.rcq[1], &c) || c.status != HCA_WC_SUCCESS) {
			printf("  d = %u: CQE status %s index %u (posted %u)\n", d, hca_wc_status_name(c.status), c.wqe_index, posted);
			bad++;
		}
		if (!tb_run(t.tb, RT_WAIT))
			bad++;
		if (bad && !first_bad)
			first_bad = d + 1;
	}
	for (unsigned int i = 0; i < t.cap.n; i++)
		sends += t.cap.src[i] == 0 && t.cap.pkt[i].opcode == HCA_BTH_OP_RC_SEND_ONLY;
	CHECK(bad == 0, "QPC writes d = 0..%u cycles after an SQ doorbell (PI 4..7 mod 8): every SEND completes%s",
	      QPC_MID_DMAX, first_bad ? " -- not at d listed next" : "");
	if (first_bad)
		printf("  first failure at d = %u\n", first_bad - 1);
	CHECK(sends == posted && !tb_cq_poll(t.scq[0], &c) && !tb_cq_poll(t.rcq[1], &c),
	      "each of the %u SENDs on the wire once (%u), no completion more", posted, sends);
	CHECK_EQ(tb_qp_query(t.qp[0]).sq_ci, posted % 65536, "SQ_CI = the producer index");
	finish(&t, "QPC writes in the middle of an item");
}

/*
 * MSI-X (PCI MSI-X, docs/reference.md MSIX_TABLE/PBA): with vector 2
 * masked, an armed EQ on vector 13 takes an EQE while vector 13 is masked:
 * no message, PBA bit 13 set and kept; unmasking 13 sends the message and
 * clears the bit.
 */
#define MSIX_CTRL(v) (HCA_BAR0_MSIX_TABLE + 16 * (v) + HCA_MSIX_VECTOR_CTRL)

static void msix_masked(void)
{
	struct rt t;
	struct tb_node *n;
	struct tb_eq *eq;
	struct hca_eqe e;
	uint64_t irq0;

	setup_objs(&t, 6);
	n = t.n[0];
	eq = tb_eq_create(n, 4, 13);
	tb_bar0_write(n, MSIX_CTRL(2), HCA_MSIX_VECTOR_CTRL_MASKED_MASK);
	tb_bar0_write(n, MSIX_CTRL(13), HCA_MSIX_VECTOR_CTRL_MASKED_MASK);
	irq0 = n->irq[13];
	ctx_rules_inject(n, eq->eqn, 800);
	tb_run(t.tb, RT_WAIT);
	CHECK(tb_eq_poll(eq, &e) && e.element == 800, "EQE on EQ %u (vector 13)", eq->eqn);
	tb_run_for(t.tb, 1000);
	CHECK(n->irq[13] == irq0 && (tb_bar0_read(n, HCA_BAR0_MSIX_PBA) & 1u << 13),
	      "vector 13 masked: no message (%llu), PBA 0x%x has bit 13", (unsigned long long)(n->irq[13] - irq0),
	      tb_bar0_read(n, HCA_BAR0_MSIX_PBA));
	tb_bar0_write(n, MSIX_CTRL(13), 0);
	tb_run(t.tb, RT_WAIT);
	CHECK(n->irq[13] == irq0 + 1 && !(tb_bar0_read(n, HCA_BAR0_MSIX_PBA) & 1u << 13),
	      "unmasked: one message (%llu), PBA 0x%x", (unsigned long long)(n->irq[13] - irq0),
	      tb_bar0_read(n, HCA_BAR0_MSIX_PBA));
	free(eq);
	finish(&t, "MSI-X vector 13 masked beside vector 2");
}

/*
 * EQ 23 armed at creation stays armed across doorbells of other objects (a
 * doorbell changes only its own object, programming.md 2.2): the EQC reads
 * ARMED after a CQ arm and a CQ_CI doorbell, and its first EQE interrupts.
 */
static void eq23_armed(void)
{
	struct rt t;
	struct tb_node *n;
	struct tb_eq *eq;
	struct hca_eqc c;
	struct hca_eqe e;
	uint64_t irq0;

	setup_objs(&t, 6);
	n = t.n[0];
	n->next_eqn = 23;
	eq = tb_eq_create(n, 2, 5);
	CHECK_EQ(eq->eqn, 23, "EQ 23");
	tb_ctx_read(n, HCA_CTX_TYPE_EQC, 23, &c, sizeof(c));
	CHECK(c.valid == 1 && c.armed == 1, "EQ 23 created armed (valid %u armed %u)", c.valid, c.armed);
	tb_cq_arm(t.scq[0], false);
	tb_run(t.tb, RT_WAIT);
	tb_ctx_read(n, HCA_CTX_TYPE_EQC, 23, &c, sizeof(c));
	CHECK_EQ(c.armed, 1, "EQ 23 armed after a CQ arm doorbell of CQ 1");
	tb_doorbell(n, HCA_DB_CQ_CI, t.rcq[0]->cqn, 0);
	tb_run(t.tb, RT_WAIT);
	tb_ctx_read(n, HCA_CTX_TYPE_EQC, 23, &c, sizeof(c));
	CHECK_EQ(c.armed, 1, "EQ 23 armed after a CQ_CI doorbell of CQ 2");
	tb_cq_arm(t.rcq[0], false);
	tb_run(t.tb, RT_WAIT);
	irq0 = n->irq[5];
	ctx_rules_inject(n, 23, 900);
	tb_run(t.tb, RT_WAIT);
	CHECK(tb_eq_poll(eq, &e) && e.element == 900, "EQE in EQ 23");
	CHECK_EQ(n->irq[5] - irq0, 1, "EQ 23 armed after three doorbells: its EQE interrupts");
	tb_ctx_read(n, HCA_CTX_TYPE_EQC, 23, &c, sizeof(c));
	CHECK(c.armed == 0 && c.pi == 1, "the interrupt disarmed EQ 23 (armed %u pi %u)", c.armed, c.pi);
	free(eq);
	finish(&t, "EQ 23 armed across other doorbells");
}

/*
 * The SRQ limit event is one-shot (programming.md 4.3: the engine raises
 * SRQ_LIMIT_REACHED and disarms the limit until it is set again): SRQ of
 * limit 2 with four receives posted, four SENDs; the third takes it below
 * the limit (one event), the fourth, still below, raises none.
 */
static void srq_limit_once(void)
{
	struct rt t;
	struct hca_cqe c;
	struct hca_srqc sc;
	struct tb_sge s;
	struct tb_srq *q;
	unsigned int k = 0, other = 0, ok = 0;
	uint8_t ty;
	uint32_t el;

	setup_objs(&t, 6);
	q = tb_srq_create(t.n[1], t.pd[1], 4, 2, 2);
	srq_pair_posted(&t, q);
	s = rt_sge(t.mr[0], 0, 100);
	for (int i = 0; i < 4; i++)
		send_wr(t.qp[0], &s);
	for (int i = 0; i < 4; i++)
		ok += wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS && c.is_srq == 1 && c.wqe_index == i;
	CHECK_EQ(ok, 4, "four receives from the SRQ");
	tb_run(t.tb, RT_WAIT);
	tb_ctx_read(t.n[1], HCA_CTX_TYPE_SRQC, q->srqn, &sc, sizeof(sc));
	CHECK(sc.armed == 0 && sc.ci == 4, "SRQ disarmed by its limit (armed %u ci %u)", sc.armed, sc.ci);
	while (tb_evt_pop(t.n[1], &ty, &el)) {
		if (ty == HCA_EVENT_SRQ_LIMIT_REACHED && el == q->srqn)
			k++;
		else
			other++;
	}
	CHECK(k == 1 && other == 0, "SRQ_LIMIT_REACHED once (%u, %u other events)", k, other);
	free(q);
	finish(&t, "SRQ limit event once");
}

/*
 * MSI-X table (PCI MSI-X, docs/reference.md): vector 31's message address
 * reads back as written, with bit 23 of the high word set and clear, read
 * 0..3 cycles after the write and again after those cycles.
 */
static void msix31_addr(void)
{
	static const uint32_t hi[] = { 0x00800000u, 0xfe7fffffu, 0x12c45678u };
	struct rt t;
	struct tb_node *n;
	uint32_t reg = HCA_BAR0_MSIX_TABLE + 16 * 31 + HCA_MSIX_MSG_ADDR_HI;
	unsigned int bad = 0;

	setup_objs(&t, 6);
	n = t.n[0];
	for (unsigned int i = 0; i < sizeof(hi) / sizeof(hi[0]); i++) {
		for (unsigned int k = 0; k < 4; k++) {
			uint32_t got;

			tb_bar0_write(n, reg, hi[i]);
			tb_run_for(t.tb, k);
			got = tb_bar0_read(n, reg);
			if (got != hi[i] && bad++ < 4)
				printf("  vector 31 ADDR_HI 0x%08x read %u cycles later: 0x%08x\n", hi[i], k, got);
			got = tb_bar0_read(n, reg);
			if (got != hi[i] && bad++ < 4)
				printf("  vector 31 ADDR_HI 0x%08x read again: 0x%08x\n", hi[i], got);
		}
	}
	CHECK_EQ(bad, 0, "vector 31's ADDR_HI reads back as written at every cycle offset");
	finish(&t, "MSI-X vector 31 message address");
}

int main(int argc, char **argv)
{
	rt_ls_start(argc, argv);
	if (rt_ls_want("mr_reset_forgotten"))
		mr_reset_forgotten();
	if (rt_ls_want("cq24_valid"))
		cq24_valid();
	if (rt_ls_want("cq_rewrite"))
		cq_rewrite();
	if (rt_ls_want("eq_inject_log8"))
		eq_inject_log8();
	if (rt_ls_want("qpc_mid_item"))
		qpc_mid_item();
	if (rt_ls_want("msix_masked"))
		msix_masked();
	if (rt_ls_want("eq23_armed"))
		eq23_armed();
	if (rt_ls_want("srq_limit_once"))
		srq_limit_once();
	if (rt_ls_want("msix31_addr"))
		msix31_addr();
	return check_done();
}
