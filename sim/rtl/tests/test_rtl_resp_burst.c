// SPDX-License-Identifier: MIT
/*
 * The RC responder fed back to back (docs/rtl.md "Performance", "The
 * responder alone"): 64 B RDMA WRITEs round robin over eight QPs, as the
 * bench's 8-QP row, but the requester's frames are held at the wire (a
 * transmit filter keeps them) until all of them are sent, and then handed to
 * the wire in one cycle: they reach the responder together and queue at its
 * MAC, so the requester's pace does not bound what is measured.  The
 * responder's cycles per message are the spacing of its ACKs (one per
 * message: each WRITE is an ONLY packet with AckReq, and an owed ACK leaves
 * after its write's response) once the first RAMP are past, printed as
 * "responder: N cyc/msg".  Checked on two "lockstep" devices: every WQE
 * SUCCESS and its data placed, one ACK per message, nothing NAKed or resent,
 * and the model's frames, writes and CQEs.  With the write response after 8
 * cycles (the harness's default) and after 40 (several writes in flight),
 * and with write data taken slowly (wr_gap 3: writes queue in hca_dma_wr
 * while frames arrive into the slots the held frames left), and with the
 * responder's transmit paced to 25 GbE (mac 25g: at 512 bits its ACKs leave
 * slower than its items end, so the owed ACKs fill hca_ack_send's queue and
 * an item's owed ACK call waits: docs/rtl.md "The responder's frame
 * period"), and with write data taken very slowly (wr_gap 32: a posted
 * write waits in hca_dma_wr's queue when the next item would start one; the
 * item must not end before its write is taken).
 *
 *   rtl_resp_burst [--width 64|512] [--engine rtl|lockstep] [--options K=V,...]
 */
#include "rtl_ls.h"

#define NQ 8			/* QP pairs */
#define NW 16			/* WRITEs per QP */
#define NM (NQ * NW)
#define LEN 64
#define RAMP 16			/* ACKs not measured */

struct burst {
	struct rt *t;
	unsigned int held;		/* node 0's WRITE frames kept */
	uint8_t *frame[NM];
	size_t len[NM];
	bool released;
};

/* Node 0's WRITE requests are kept (captured first) until the NM-th, then
 * all go on the wire in that cycle, in their order. */
static int burst_filter(void *ctx, unsigned int src, uint8_t *frame, size_t *len, uint64_t now)
{
	struct burst *b = ctx;
	struct roce_pkt p;

	rt_cap_filter(&b->t->cap, src, frame, len, now);
	if (src != 0 || b->released || roce_parse(frame, *len, &p) != ROCE_OK ||
	    p.opcode != HCA_BTH_OP_RC_RDMA_WRITE_ONLY)
		return TB_PASS;
	b->frame[b->held] = malloc(*len);
	if (!b->frame[b->held])
		return TB_PASS;
	memcpy(b->frame[b->held], frame, *len);
	b->len[b->held++] = *len;
	if (b->held == NM) {
		b->released = true;
		for (unsigned int i = 0; i < NM; i++) {
			wire_send(tb_wire(b->t->tb), (unsigned int)b->t->n[0]->port, b->frame[i], b->len[i], now);
			free(b->frame[i]);
		}
	}
	return TB_DROP;
}

/* wr_lat: the write response's latency (0: the harness's 8); wr_gap: write
 * data taken with a random 0..wr_gap idle cycles between beats (writes then
 * queue in hca_dma_wr while later frames arrive: a held slot must not be
 * freed before its payload is read); mac: the MAC's transmit pacing (NULL:
 * the harness's default) */
static void run(unsigned int wr_lat, unsigned int wr_gap, const char *mac)
{
	static char opt[96];
	const char *saved = rt_options;
	struct rt t;
	struct burst b = { .t = &t };
	struct tb_qp *q[2][NQ];
	struct tb_mr *m[NQ];
	struct tb_cq *cq;
	struct tb_sge s[NM];
	struct hca_cqe c;
	uint64_t first = 0, last = 0;
	unsigned int acks = 0, naks = 0, measured = 0, lat = wr_lat ? wr_lat : 8;
	char what[80];

	snprintf(what, sizeof(what), "64 B WRITEs over %u QPs, queued at the responder (wr_lat %u, wr_gap %u%s%s)",
		 NQ, lat, wr_gap, mac ? ", mac " : "", mac ? mac : "");
	snprintf(opt, sizeof(opt), "%swr_lat=%u,%swr_gap=%u%s%s%s", strcmp(engine, "lockstep") ? "" : "dut.", lat,
		 strcmp(engine, "lockstep") ? "" : "dut.", wr_gap, mac ? "," : "",
		 mac ? (strcmp(engine, "lockstep") ? "mac=" : "dut.mac=") : "", mac ? mac : "");
	if (strcmp(engine, "model"))
		rt_options = opt;
	setup_objs(&t, 10);
	rt_options = saved;
	tb_set_filter(t.tb, burst_filter, &b);
	cq = tb_cq_create(t.n[0], 8, NULL);
	for (int k = 0; k < NQ; k++) {
		for (int i = 0; i < 2; i++)
			q[i][k] = tb_qp_create(t.n[i], HCA_QPT_RC, t.pd[i], i ? t.scq[i] : cq, t.rcq[i], NULL, NULL);
		tb_connect_pair(q[0][k], q[1][k], NULL);
		m[k] = tb_mr_reg(t.n[1], t.pd[1], NW * LEN, RT_ACC_ALL);
		memset(m[k]->buf, 0, NW * LEN);
	}
	t.qp[0] = q[0][0];
	t.qp[1] = q[1][0];
	rt_fill(t.mr[0]->buf, NM * LEN, 33);
	for (unsigned int i = 0; i < NM; i++) {
		unsigned int k = i % NQ, j = i / NQ;
		struct tb_send_wr w;

		s[i] = rt_sge(t.mr[0], i * LEN, LEN);
		w = (struct tb_send_wr){ .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s[i],
					 .num_sge = 1, .raddr = m[k]->va + j * LEN, .rkey = m[k]->rkey };
		CHECK(tb_post_send(q[0][k], &w) == (int)j, "%s: post %u", what, i);
	}
	for (unsigned int i = 0; i < NM; i++) {
		if (!wait_cqe(cq, &c)) {
			CHECK(0, "%s: CQE %u of %u", what, i, NM);
			break;
		}
		CHECK(c.status == HCA_WC_SUCCESS, "%s: CQE %u status %u", what, i, c.status);
	}
	tb_run(t.tb, 20000);
	CHECK(b.released && b.held == NM, "%s: %u WRITE frames held and sent together (%u)", what, NM, b.held);
	for (unsigned int i = 0; i < t.cap.n; i++) {
		const struct roce_pkt *p = &t.cap.pkt[i];

		if (t.cap.src[i] != 1 || p->opcode != HCA_BTH_OP_RC_ACKNOWLEDGE)
			continue;
		if ((p->aeth.syndrome >> 5) != HCA_AETH_TYPE_ACK) {
			naks++;
			continue;
		}
		if (acks++ == RAMP)
			first = t.cap.when[i];
		last = t.cap.when[i];
	}
	measured = acks > RAMP + 1 ? acks - RAMP - 1 : 0;
	CHECK(acks == NM && naks == 0, "%s: %u ACKs, no NAK (%u, %u)", what, NM, acks, naks);
	CHECK(t.cap.n == acks + NM, "%s: no other frame (%u captured)", what, t.cap.n);
	for (unsigned int i = 0; i < NM; i++)
		CHECK(!memcmp(m[i % NQ]->buf + (i / NQ) * LEN, t.mr[0]->buf + i * LEN, LEN), "%s: WRITE %u placed",
		      what, i);
	if (measured)
		printf("responder: %.1f cyc/msg, %s, DATA_W %u (ACKs %u..%u, cycles %llu..%llu)\n",
		       (double)(last - first) / measured, what, rt_width, RAMP, acks - 1,
		       (unsigned long long)first, (unsigned long long)last);
	for (int k = 0; k < NQ; k++) {
		if (k) {
			free(q[0][k]);
			free(q[1][k]);
		}
		free(m[k]);
	}
	free(cq);
	finish(&t, what);
}

int main(int argc, char **argv)
{
	rt_ls_start(argc, argv);
	run(0, 0, NULL);
	run(40, 0, NULL);
	run(0, 8, NULL);
	run(0, 0, "25g");
	run(0, 32, NULL);
	return check_done();
}
