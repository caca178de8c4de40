// SPDX-License-Identifier: MIT
/*
 * The transmit slots' depth (docs/rtl.md "Transmit slots and read ahead",
 * Performance "The transmit slot's wait"; hca_top TX_SLOTS: 8 at 512 bits,
 * 4 at 64).  A request packet's payload read goes into a transmit slot and
 * the slot lives until its frame's last word is read: a payload read's
 * latency plus the frame.  At 512 bits a 64 B WRITE's frame is 3 beats and
 * the requester's period about 9 cycles, so 4 slots made every other step
 * wait for one (REQST_WAIT_TX) and gather late; 8 cover the read.  On two
 * lockstep devices (model vs RTL), both widths:
 *
 *   depth: 8 RC QPs post two 64 B WRITEs each at once, every RTL read slow
 *   (dut.rd_lat): the QPs' steps read their payload ahead into the slots,
 *   so as many payload reads are in flight at once as there are slots (the
 *   host-interface observer, payload tags 0..7): 8 at 512 bits, 4 at 64;
 *   every WRITE completes in order with its data;
 *   fault_in_slot: the same with the first WRITE of QP k (k = 0..7) reading
 *   a page that is not mapped: its packet sits in slot k among the others
 *   when its read faults; as the model: that WRITE fails
 *   LOC_PROT_ERR/DMA_FAULT and the QP's second one is flushed, one
 *   DMA_FAULT, DMA_FAULT_LO/HI the faulting read's IOVA (client PAYLOAD),
 *   every other QP's WRITEs complete with their data;
 *   depth_big: the same with 1 KiB WRITEs: at most 4 payload reads of 1 KiB
 *   or more in flight (hca_tx_slots BIG_MAX: more only delay the oldest
 *   frame when the host returns them out of order), at both widths;
 *   faults_at_once: the same as fault_in_slot with QPs 1, 4, 6 and 7 faulting: four faults
 *   wait in the fault table (hca_tx_faults, TX_SLOTS entries) at once;
 *   stream: bench_rtl's 8-QP row on two plain rtl devices (lockstep clocks
 *   the DUT differently): 64 B WRITEs round robin over 8 QPs, 16 outstanding
 *   on each, one send CQ, the next posted per completion; the requester's
 *   period is the spacing of its payload reads (one a message), over
 *   messages 96..224: at most 8.7 cycles at 512 bits (8.3 now; 8.9 when the
 *   key check's result cycle does not also commit the packet, hca_req_next
 *   v_commit; 10.7 with 4 transmit slots), at most 20.5 at 64 (19.4, the
 *   MAC's and the read channel's 18 beats a message); every WRITE in order
 *   with its data;
 *   stream_fault: the same stream with message m (8 values of m, one run
 *   each, QP m % 8) reading an unmapped page: that WRITE completes
 *   LOC_PROT_ERR, its QP's later ones WR_FLUSH_ERR, every other one SUCCESS.
 *   The slot's QP tag comes from hca_req with its registered go (tag_qn):
 *   tagged with the item's QP in that cycle (hca_transport's qn, often the
 *   next item's by then), the fault failed another QP's WRITE (e.g. m = 131:
 *   QP 7's WQE 16 LOC_PROT_ERR; so tagged: all 8 runs fail at 64 bits,
 *   5 of 8 at 512).
 *
 *   rtl_txahead [--width 64|512] [--engine rtl|lockstep] [--options K=V,...] [CASE...]
 *   CASE: depth, depth_big, fault_in_slot, faults_at_once, stream, stream_fault
 */
#include "rtl_ls.h"

#define NQP 8
#define PER_QP 2
#define MSG 64u
#define PAY_TAGS 8		/* hca_top RD_TAGS: tags 0..7 are payload reads */
#define RD_LAT 400u

#define STREAM_N 256

/* stream_fault's faulting messages: where a fault tagged with the item's qn
 * at the go fails another QP's WRITE (of messages 64..249: 7 at 512 bits,
 * these among them; most at 64) */
static const unsigned int fault_at[] = { 84, 126, 131, 132, 136, 176, 190, 202 };

struct obs {
	unsigned int out, most, reqs;
	uint8_t busy[PAY_TAGS];
	uint64_t at[STREAM_N];		/* the payload reads' cycles */
};

static void observe(void *ctx, const struct rtl_event *ev)
{
	struct obs *o = ctx;

	if (ev->tag >= PAY_TAGS)
		return;
	if (ev->kind == RTL_EV_DMA_RD_REQ) {
		if (o->reqs < STREAM_N)
			o->at[o->reqs] = ev->cycle;
		o->reqs++;
		o->busy[ev->tag] = 1;
		if (++o->out > o->most)
			o->most = o->out;
	} else if (ev->kind == RTL_EV_DMA_RD_CPL && o->busy[ev->tag]) {
		o->busy[ev->tag] = 0;
		o->out--;
	}
}

/* node 0's RTL engine (the DUT of a lockstep device), or NULL (model) */
static struct hca_engine *rtl_of(struct tb_node *n)
{
	if (lockstep_is(n->eng))
		return lockstep_dut(n->eng, NULL);
	return strcmp(engine, "rtl") ? NULL : n->eng;
}

/*
 * NQP QPs on node 0 (each with its own send CQ), PER_QP WRITEs of MSG bytes
 * each posted at once; the first WRITE of QP k reads the unmapped second
 * page of MR 900 when bit k of `bad` is set.  Completions and data checked
 * as the model gives them; returns the most payload reads in flight at once.
 */
static unsigned int run(uint32_t bad, uint32_t len, const char *what)
{
	static struct obs o;
	struct rt t;
	struct tb_qp *q[NQP], *p[NQP];
	struct tb_cq *cq[NQP];
	struct tb_qp_attr a;
	struct hca_cqe c;
	struct hca_engine *dut;
	uint64_t at = 0;
	unsigned int faults = 0, last_bad = 0;

	memset(&o, 0, sizeof(o));
	tb_qp_attr_default(&a);
	setup_rd_lat(&t, &a, RD_LAT);
	if (bad)
		at = half_mapped_mr(&t) + 4096;
	dut = rtl_of(t.n[0]);
	if (dut)
		rtl_engine_set_observer(dut, observe, &o);
	q[0] = t.qp[0];
	p[0] = t.qp[1];
	cq[0] = t.scq[0];
	for (int i = 1; i < NQP; i++) {
		cq[i] = tb_cq_create(t.n[0], 10, NULL);
		q[i] = tb_qp_create(t.n[0], HCA_QPT_RC, t.pd[0], cq[i], t.rcq[0], NULL, NULL);
		p[i] = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
		tb_connect_pair(q[i], p[i], &a);
	}
	rt_fill(t.mr[0]->buf, NQP * PER_QP * len, 91);
	memset(t.mr[1]->buf, 0, NQP * PER_QP * len);
	for (int j = 0; j < PER_QP; j++)
		for (int i = 0; i < NQP; i++) {
			unsigned int m = (unsigned int)(j * NQP + i);
			struct tb_sge s = rt_sge(t.mr[0], (uint64_t)m * len, len);
			struct tb_send_wr w = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s,
						.num_sge = 1, .raddr = t.mr[1]->va + (uint64_t)m * len,
						.rkey = t.mr[1]->rkey };

			if (j == 0 && (bad >> i & 1))
				s = (struct tb_sge){ .addr = 0x5000000 + 4096 + 256u * (unsigned int)i, .len = MSG,
						     .lkey = 900u << 8 | 0x42 };
			tb_post_send(q[i], &w);
		}
	for (int i = 0; i < NQP; i++) {
		bool b = bad >> i & 1;

		for (int j = 0; j < PER_QP; j++) {
			unsigned int m = (unsigned int)(j * NQP + i);
			uint8_t want = !b ? HCA_WC_SUCCESS : j == 0 ? HCA_WC_LOC_PROT_ERR : HCA_WC_WR_FLUSH_ERR;
			bool got = wait_cqe(cq[i], &c);

			CHECK(got && c.wqe_index == j && c.status == want &&
			      (want != HCA_WC_LOC_PROT_ERR || c.vendor_err == HCA_VENDOR_ERR_DMA_FAULT),
			      "%s: QP %d WQE %d completes %s (got %u/%u, index %u)", what, i, j,
			      hca_wc_status_name(want), c.status, c.vendor_err, c.wqe_index);
			if (!b)
				CHECK(!memcmp(t.mr[1]->buf + m * len, t.mr[0]->buf + m * len, len),
				      "%s: QP %d WQE %d: target data", what, i, j);
		}
		if (b) {
			faults++;
			last_bad = (unsigned int)i;
		}
	}
	CHECK(tb_stat(t.n[0], HCA_STAT_DMA_FAULT) == faults, "%s: %u DMA_FAULTs counted (got %llu)", what, faults,
	      (unsigned long long)tb_stat(t.n[0], HCA_STAT_DMA_FAULT));
	if (faults == 1) {
		uint64_t f = at + 256u * last_bad;

		CHECK(tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_LO) == (uint32_t)f &&
		      tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_HI) == (uint32_t)(f >> 32) &&
		      HCA_FIELD_GET(tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_INFO), HCA_MGMT_DMA_FAULT_INFO_CLIENT) ==
			      HCA_DMA_CLIENT_PAYLOAD,
		      "%s: DMA_FAULT_HI/LO 0x%08x%08x = the payload read's IOVA 0x%llx", what,
		      tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_HI), tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_LO),
		      (unsigned long long)f);
	}
	if (dut)
		rtl_engine_set_observer(dut, NULL, NULL);
	finish(&t, what);
	for (int i = 1; i < NQP; i++) {
		free(q[i]);
		free(p[i]);
		free(cq[i]);
	}
	return o.most;
}

/* The 8 QP pairs of the stream runs: the set-up's pair and 7 more on the
 * same PD and CQs. */
static void stream_qps(struct rt *t, struct tb_qp **q, struct tb_qp **p)
{
	q[0] = t->qp[0];
	p[0] = t->qp[1];
	for (int i = 1; i < NQP; i++) {
		q[i] = tb_qp_create(t->n[0], HCA_QPT_RC, t->pd[0], t->scq[0], t->rcq[0], NULL, NULL);
		p[i] = tb_qp_create(t->n[1], HCA_QPT_RC, t->pd[1], t->scq[1], t->rcq[1], NULL, NULL);
		tb_connect_pair(q[i], p[i], NULL);
	}
}

static void stream_qps_free(struct tb_qp **q, struct tb_qp **p)
{
	for (int i = 1; i < NQP; i++) {
		free(q[i]);
		free(p[i]);
	}
}

/* Post MSG-byte WRITEs round robin over the QPs, at most 16 outstanding on
 * each (bench_rtl's multi_run), message m from offset m * MSG; message `bad`
 * reads an unmapped page (`bad` >= STREAM_N: none). */
static void stream_post(struct rt *t, struct tb_qp **q, unsigned int *posted, unsigned int *out, unsigned int bad)
{
	unsigned int k;

	while (*posted < STREAM_N && out[k = *posted % NQP] < 16) {
		struct tb_sge s = rt_sge(t->mr[0], (uint64_t)*posted * MSG, MSG);
		struct tb_send_wr w = { .opcode = HCA_WR_RDMA_WRITE, .flags = HCA_SEND_SIGNALED, .sge = &s,
					.num_sge = 1, .raddr = t->mr[1]->va + (uint64_t)*posted * MSG,
					.rkey = t->mr[1]->rkey };

		if (*posted == bad)
			s = (struct tb_sge){ .addr = 0x5000000 + 4096, .len = MSG, .lkey = 900u << 8 | 0x42 };
		tb_post_send(q[k], &w);
		out[k]++;
		(*posted)++;
	}
}

/* bench_rtl's 8-QP row (sim/rtl/bench_rtl.c multi_run) on plain rtl devices:
 * the requester's cycles a message between payload reads 96 and 224. */
static double stream(void)
{
	static struct obs o;
	const char *saved = engine;
	struct rt t;
	struct tb_qp *q[NQP], *p[NQP];
	unsigned int posted = 0, done = 0, out[NQP] = { 0 }, next[NQP] = { 0 };
	uint64_t limit;
	bool order = true;
	double per = 0;

	engine = "rtl";
	memset(&o, 0, sizeof(o));
	setup(&t, HCA_QPT_RC, NULL, NULL, 12);
	rtl_engine_set_observer(t.n[0]->eng, observe, &o);
	stream_qps(&t, q, p);
	rt_fill(t.mr[0]->buf, STREAM_N * MSG, 93);
	memset(t.mr[1]->buf, 0, STREAM_N * MSG);
	limit = tb_now(t.tb) + RT_WAIT;
	while (done < STREAM_N) {
		struct hca_cqe c;
		unsigned int k;

		stream_post(&t, q, &posted, out, STREAM_N);
		if (tb_cq_poll(t.scq[0], &c)) {
			for (k = 0; k < NQP && c.qpn != q[k]->qpn; k++)
				;
			if (k == NQP || c.status != HCA_WC_SUCCESS || c.wqe_index != (next[k] & 0xffff))
				order = false;
			if (k < NQP) {
				next[k]++;
				out[k]--;
			}
			done++;
			continue;
		}
		if (!tb_step(t.tb, limit))
			break;
	}
	CHECK(done == STREAM_N && order, "stream: %u WRITEs over %u QPs complete in order per QP (%u)", STREAM_N, NQP,
	      done);
	CHECK(!memcmp(t.mr[1]->buf, t.mr[0]->buf, STREAM_N * MSG), "stream: target data");
	CHECK(o.reqs == STREAM_N, "stream: one payload read a message (%u)", o.reqs);
	if (o.reqs >= 224)
		per = (double)(o.at[223] - o.at[95]) / 128;
	rtl_engine_set_observer(t.n[0]->eng, NULL, NULL);
	finish(&t, "stream");
	stream_qps_free(q, p);
	engine = saved;
	return per;
}

/* The 8-QP stream on plain rtl devices with message `bad` reading an
 * unmapped page (read ahead, its fault in the slot's QP tag): that WRITE
 * fails LOC_PROT_ERR/DMA_FAULT, its QP's later ones are flushed, every
 * other WRITE completes; returns the number of wrong completions. */
static unsigned int stream_fault(unsigned int bad)
{
	const char *saved = engine;
	struct rt t;
	struct tb_qp *q[NQP], *p[NQP];
	unsigned int posted = 0, done = 0, out[NQP] = { 0 }, next[NQP] = { 0 }, wrong = 0, bk = bad % NQP;
	uint64_t limit;

	engine = "rtl";
	setup(&t, HCA_QPT_RC, NULL, NULL, 12);
	half_mapped_mr(&t);
	stream_qps(&t, q, p);
	rt_fill(t.mr[0]->buf, STREAM_N * MSG, 95);
	limit = tb_now(t.tb) + RT_WAIT;
	while (done < STREAM_N) {
		struct hca_cqe c;
		unsigned int k;

		stream_post(&t, q, &posted, out, bad);
		if (tb_cq_poll(t.scq[0], &c)) {
			unsigned int m;
			uint8_t want;

			for (k = 0; k < NQP && c.qpn != q[k]->qpn; k++)
				;
			if (k == NQP) {
				wrong++;
				done++;
				continue;
			}
			m = next[k] * NQP + k;
			want = k != bk || m < bad ? HCA_WC_SUCCESS : m == bad ? HCA_WC_LOC_PROT_ERR : HCA_WC_WR_FLUSH_ERR;
			if (c.wqe_index != (next[k] & 0xffff) || c.status != want) {
				if (wrong < 3)
					printf("  stream fault %u: QP %u WQE %u completes %u (want %s, index %u)\n", bad, k,
					       c.wqe_index, c.status, hca_wc_status_name(want), next[k]);
				wrong++;
			}
			next[k]++;
			out[k]--;
			done++;
			continue;
		}
		if (!tb_step(t.tb, limit))
			break;
	}
	CHECK(done == STREAM_N, "stream fault %u: %u completions of %u", bad, done, STREAM_N);
	finish(&t, "stream fault");
	stream_qps_free(q, p);
	engine = saved;
	return wrong;
}

int main(int argc, char **argv)
{
	unsigned int slots;

	rt_ls_start(argc, argv);
	slots = rt_width >= 512 ? 8 : 4;
	if (rt_ls_want("depth")) {
		unsigned int most = run(0, MSG, "depth");

		if (strcmp(engine, "model")) {
			printf("  depth: %u payload reads in flight at once\n", most);
			CHECK(most == slots, "depth: %u payload reads in flight at once, one per transmit slot (%u)", most,
			      slots);
		}
	}
	if (rt_ls_want("depth_big")) {
		unsigned int most = run(0, 1024, "depth, 1 KiB WRITEs");

		if (strcmp(engine, "model")) {
			printf("  depth_big: %u payload reads of 1 KiB in flight at once\n", most);
			CHECK(most == 4, "depth_big: %u payload reads of 1 KiB in flight at once (4)", most);
		}
	}
	if (rt_ls_want("fault_in_slot"))
		for (int k = 0; k < NQP; k++) {
			char what[64];

			snprintf(what, sizeof(what), "fault in QP %d's packet", k);
			run(1u << k, MSG, what);
		}
	if (rt_ls_want("faults_at_once"))
		run(1u << 1 | 1u << 4 | 1u << 6 | 1u << 7, MSG, "four faults at once");
	if (rt_ls_want("stream")) {
		double per = stream(), most = rt_width >= 512 ? 8.7 : 20.5;

		printf("  stream: %.2f cycles a message between payload reads\n", per);
		CHECK(per > 0 && per <= most, "stream: %.2f cycles a message, at most %.1f", per, most);
	}
	if (rt_ls_want("stream_fault"))
		for (unsigned int i = 0; i < sizeof(fault_at) / sizeof(fault_at[0]); i++) {
			unsigned int b = fault_at[i], w = stream_fault(b);

			CHECK(w == 0, "stream fault %u: every completion as the model's (%u wrong)", b, w);
		}
	return check_done();
}
