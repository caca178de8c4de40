// SPDX-License-Identifier: MIT
/*
 * Values near the top of their fields and tables, on two "lockstep" devices
 * (reference: the C model, DUT: the RTL; any difference is a divergence)
 * and checked against the spec on their own:
 *   msg_too_long   -- a send WQE whose SGE lengths sum past
 *                     HCA_CAP_MAX_MSG_SZ (2^31) completes with LOC_LEN_ERR
 *                     and sends nothing (docs/wire.md 4.2 check 2; one SGE,
 *                     two SGEs, a WRITE); a sum of exactly 2^31 is not too
 *                     long: the lkey check refuses it (LOC_PROT_ERR);
 *   write_2mib     -- the first two packets of a 2 MiB RDMA WRITE (DMA
 *                     length 0x200000, bit 21 of the responder's WR_LEN)
 *                     are accepted and placed;
 *   udp_csum_off   -- a WRITE whose non-zero UDP checksum is off by 0x4000
 *                     is dropped; with its right checksum it is placed;
 *   icrc_odd_end   -- a frame whose ICRC region ends at an odd offset (7
 *                     payload bytes), its ICRC right: malformed, not ICRC;
 *   uc_rwqe_kept   -- UC: a SEND abandoned by a WRITE, then a SEND into the
 *                     kept receive WQE of a receive queue at IOVA bit 63;
 *   write_after_recv -- a two-packet WRITE, a receive posted between its
 *                     packets, after a SEND into a receive WQE of 0x180
 *                     bytes (the responder's words keep that WQE's total:
 *                     bit 7 set), is accepted;
 *   rq_above_16g   -- a receive queue at an IOVA with bit 34 set: the
 *                     receive WQE is fetched (and refetched) from there;
 *   srq_high_number -- SRQ 45 (of 64) stays armed while SRQ 1 reaches its
 *                     limit (one SRQ_LIMIT_REACHED, for SRQ 1 only);
 *   cq_events_apart -- CQs 8, 12 and 186 on one armed EQ: arming CQ 8 with a
 *                     CQE unpolled raises its event and disarms CQ 8 only
 *                     (CQ 12 stays armed), and no event for CQ 186;
 *   sq_fetch_fault -- a send queue at an unmapped IOVA: the WQE fetch
 *                     faults, one QP_FATAL, the QP in ERR;
 *   gather_fault_tag -- eight payload reads outstanding at once (read tags
 *                     0..7), the one of entry 4..7 faults: DMA_FAULT_LO/HI
 *                     is that entry's IOVA, at two read latencies.
 * These are the corners the mutation analysis found no test for
 * (sim/mutate/answers_rtl.txt, docs/sim.md 11.3).
 *
 *   rtl_bounds [--width 64|512] [--engine rtl|lockstep|model] [--options K=V,...]
 */
#include "rtl_ls.h"
#include "hostmem.h"

static unsigned int requests_from(struct rt *t, unsigned int src)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < t->cap.n; i++)
		k += t->cap.src[i] == src && t->cap.pkt[i].opcode != HCA_BTH_OP_RC_ACKNOWLEDGE;
	return k;
}

/* One WQE on a fresh RC pair: its completion status and vendor error; nothing may go on the wire. */
static void one_wqe(uint8_t opcode, const uint32_t *len, unsigned int nsge, uint8_t status, uint8_t verr,
		    const char *what)
{
	struct rt t;
	struct tb_sge s[2];
	struct hca_cqe c;
	struct tb_send_wr w;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	for (unsigned int i = 0; i < nsge; i++)
		s[i] = rt_sge(t.mr[0], 0, len[i]);
	w = (struct tb_send_wr){ .opcode = opcode, .flags = HCA_SEND_SIGNALED, .sge = s, .num_sge = nsge,
				 .raddr = t.mr[1]->va, .rkey = t.mr[1]->rkey };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == status && c.vendor_err == verr,
	      "%s: status %s vendor 0x%x (want %s 0x%x)", what, hca_wc_status_name(c.status), c.vendor_err,
	      hca_wc_status_name(status), verr);
	CHECK_EQ(c.wqe_index, 0, what);
	tb_run(t.tb, RT_WAIT);
	CHECK(requests_from(&t, 0) == 0, "%s: no request on the wire", what);
	CHECK(tb_qp_query(t.qp[0]).cur_state == HCA_QPS_ERR, "%s: QP in ERR", what);
	finish(&t, what);
}

static void msg_too_long(void)
{
	static const uint32_t one[] = { 0x80000001u }, two[] = { 0x40000000u, 0x40000001u },
			      cap[] = { 0x40000000u, 0x40000000u };

	one_wqe(HCA_WR_SEND, one, 1, HCA_WC_LOC_LEN_ERR, HCA_VENDOR_ERR_LENGTH, "SEND of 2^31 + 1 bytes, one SGE");
	one_wqe(HCA_WR_SEND, two, 2, HCA_WC_LOC_LEN_ERR, HCA_VENDOR_ERR_LENGTH, "SEND of 2^31 + 1 bytes, two SGEs");
	one_wqe(HCA_WR_RDMA_WRITE, two, 2, HCA_WC_LOC_LEN_ERR, HCA_VENDOR_ERR_LENGTH, "WRITE of 2^31 + 1 bytes");
	one_wqe(HCA_WR_SEND, cap, 2, HCA_WC_LOC_PROT_ERR, HCA_VENDOR_ERR_BOUNDS,
		"SEND of exactly 2^31 bytes (past the 1 MiB MR)");
}

/* A request frame from node 0's address to node 1's QP into buf: its length. */
static size_t build(struct rt *t, uint8_t opcode, uint32_t psn, bool ackreq, uint32_t reth_len,
		    const uint8_t *payload, uint32_t paylen, uint8_t *buf, size_t cap)
{
	struct roce_pkt p;
	size_t n;

	roce_pkt_init(&p, opcode);
	p.dqpn = t->qp[1]->qpn;
	p.psn = psn;
	p.ackreq = ackreq;
	p.reth.va = t->mr[1]->va;
	p.reth.rkey = t->mr[1]->rkey;
	p.reth.len = reth_len;
	memcpy(p.dmac, t->n[1]->mac, 6);
	memcpy(p.smac, t->n[0]->mac, 6);
	p.sip = t->n[0]->ip;
	p.dip = t->n[1]->ip;
	p.sport = 0xC000;
	n = roce_build(&p, payload, paylen, buf, cap);
	CHECK(n > 0, "frame 0x%02x built", opcode);
	return n;
}

/* That frame, straight into node 1's receive path. */
static void inject(struct rt *t, uint8_t opcode, uint32_t psn, bool ackreq, uint32_t reth_len,
		   const uint8_t *payload, uint32_t paylen)
{
	static uint8_t buf[8192];
	size_t n = build(t, opcode, psn, ackreq, reth_len, payload, paylen, buf, sizeof(buf));

	t->n[1]->ops->rx_frame(t->n[1]->eng, buf, n);
}

/* The AETH syndrome of node 1's last ACK/NAK for `psn`, or -1. */
static int ack_for(struct rt *t, uint32_t psn)
{
	int syn = -1;

	for (unsigned int i = 0; i < t->cap.n; i++)
		if (t->cap.src[i] == 1 && t->cap.pkt[i].opcode == HCA_BTH_OP_RC_ACKNOWLEDGE && t->cap.pkt[i].psn == psn)
			syn = t->cap.pkt[i].aeth.syndrome;
	return syn;
}

/* RFC 1071: the ones' complement sum of the big-endian 16-bit words of p[0..n), added to s. */
static uint32_t sum16(uint32_t s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i += 2)
		s += (uint32_t)p[i] << 8 | (i + 1 < n ? p[i + 1] : 0u);
	return s;
}

static uint16_t fold16(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/*
 * A WRITE ONLY whose UDP checksum is non-zero and wrong by 0x4000: the
 * receiver's sum over the pseudo header and the datagram (RFC 768) folds to
 * 0xBFFF, not 0xFFFF, and the frame is dropped (docs/packet.md: a non-zero UDP
 * checksum is verified; counted RX_DROP_MALFORMED, nothing placed, no ACK).
 * The same frame with its right checksum is then accepted: placed and
 * acknowledged.
 */
static void udp_csum_off(void)
{
	static uint8_t pay[64], buf[512];
	struct rt t;
	uint32_t psn, sum;
	uint16_t ulen, good, bad;
	uint64_t drop0;
	size_t n;
	int syn;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	psn = tb_qp_query(t.qp[1]).rq_psn_expected;
	rt_fill(pay, sizeof(pay), 41);
	n = build(&t, HCA_BTH_OP_RC_RDMA_WRITE_ONLY, psn, true, sizeof(pay), pay, sizeof(pay), buf, sizeof(buf));
	/* Ethernet 14 bytes, IPv4 20 (addresses at 26..33), UDP at 34 (length 38, checksum 40) */
	ulen = (uint16_t)(buf[38] << 8 | buf[39]);
	buf[40] = buf[41] = 0;
	sum = sum16(sum16(0, buf + 26, 8) + 17u + ulen, buf + 34, ulen);
	good = (uint16_t)~fold16(sum);
	if (!good)
		good = 0xffff;
	bad = fold16((uint32_t)good + 0xbfffu);	/* good - 0x4000, ones' complement */
	CHECK(n >= 34u + ulen && bad != 0 && fold16(sum + bad) == 0xbfff && fold16(sum + good) == 0xffff,
	      "UDP checksum 0x%04x sums to 0xBFFF, 0x%04x to 0xFFFF", bad, good);
	drop0 = tb_stat(t.n[1], HCA_STAT_RX_DROP_MALFORMED);
	buf[40] = (uint8_t)(bad >> 8);
	buf[41] = (uint8_t)bad;
	t.n[1]->ops->rx_frame(t.n[1]->eng, buf, n);
	tb_run(t.tb, RT_WAIT);
	CHECK(tb_stat(t.n[1], HCA_STAT_RX_DROP_MALFORMED) == drop0 + 1 && ack_for(&t, psn) < 0 &&
	      !rt_check(t.mr[1]->buf, sizeof(pay), 41), "UDP checksum off by 0x4000: dropped, nothing placed, no ACK");
	buf[40] = (uint8_t)(good >> 8);
	buf[41] = (uint8_t)good;
	t.n[1]->ops->rx_frame(t.n[1]->eng, buf, n);
	tb_run(t.tb, RT_WAIT);
	syn = ack_for(&t, psn);
	CHECK(syn >= 0 && (syn & 0x60) == 0 && rt_check(t.mr[1]->buf, sizeof(pay), 41) &&
	      tb_stat(t.n[1], HCA_STAT_RX_DROP_MALFORMED) == drop0 + 1,
	      "the right UDP checksum 0x%04x: placed and acknowledged (syndrome 0x%x)", good, syn);
	finish(&t, "UDP checksum off by 0x4000");
}

/*
 * A frame whose ICRC region ends at an odd offset: a SEND ONLY of 8 bytes
 * cut to 7 (IPv4 total length 51, UDP length 31, PadCnt 0), its IP header
 * checksum and ICRC recomputed (docs/wire.md "ICRC"; roce_icrc, which
 * model_codec checks against scapy).  The ICRC verifies, so the frame is
 * refused for what follows it: a payload that is not a multiple of 4 bytes
 * (docs/packet.md, checked after the ICRC), counted RX_DROP_MALFORMED, not
 * RX_DROP_ICRC; nothing received, no ACK.  At both widths the last beat of
 * the ICRC region holds an odd number of bytes (61 = 7 * 8 + 5 = 61 * 1):
 * the RTL's 1-byte CRC stage (hca_crc32) takes the last byte; run with that
 * byte as the pattern makes it (bit 7 clear) and with bit 7 set.
 */
static void icrc_odd_end(uint8_t last_or)
{
	static uint8_t pay[8], buf[512];
	struct rt t;
	struct tb_sge r;
	uint64_t mal0, icrc0;
	uint32_t psn, icrc;
	uint16_t ip_len, ip_sum;
	size_t n;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	r = rt_sge(t.mr[1], 0, 64);
	tb_post_recv(t.qp[1], &r, 1);
	psn = tb_qp_query(t.qp[1]).rq_psn_expected;
	rt_fill(pay, sizeof(pay), 43);
	pay[6] |= last_or;		/* the last byte kept: the one the 1-byte stage takes */
	n = build(&t, HCA_BTH_OP_RC_SEND_ONLY, psn, true, 0, pay, sizeof(pay), buf, sizeof(buf)) - 1;
	ip_len = (uint16_t)(n - 14);	/* Ethernet header 14 bytes; IPv4 at 14, UDP at 34 */
	buf[16] = (uint8_t)(ip_len >> 8);
	buf[17] = (uint8_t)ip_len;
	buf[24] = buf[25] = 0;
	ip_sum = (uint16_t)~fold16(sum16(0, buf + 14, 20));
	buf[24] = (uint8_t)(ip_sum >> 8);
	buf[25] = (uint8_t)ip_sum;
	buf[38] = (uint8_t)((ip_len - 20) >> 8);
	buf[39] = (uint8_t)(ip_len - 20);
	icrc = roce_icrc(buf, n - 4);
	for (int i = 0; i < 4; i++)
		buf[n - 4 + (size_t)i] = (uint8_t)(icrc >> (8 * i));	/* least significant byte first */
	CHECK(n == 65 && ip_len == 51 && fold16(sum16(0, buf + 14, 20)) == 0xffff,
	      "odd ICRC end: a 65-byte frame, IPv4 total length %u", ip_len);
	mal0 = tb_stat(t.n[1], HCA_STAT_RX_DROP_MALFORMED);
	icrc0 = tb_stat(t.n[1], HCA_STAT_RX_DROP_ICRC);
	t.n[1]->ops->rx_frame(t.n[1]->eng, buf, n);
	tb_run(t.tb, RT_WAIT);
	CHECK(tb_stat(t.n[1], HCA_STAT_RX_DROP_MALFORMED) == mal0 + 1 && tb_stat(t.n[1], HCA_STAT_RX_DROP_ICRC) == icrc0,
	      "odd ICRC end: the ICRC verifies, the 7-byte payload is malformed (malformed +%llu, ICRC +%llu)",
	      (unsigned long long)(tb_stat(t.n[1], HCA_STAT_RX_DROP_MALFORMED) - mal0),
	      (unsigned long long)(tb_stat(t.n[1], HCA_STAT_RX_DROP_ICRC) - icrc0));
	CHECK(ack_for(&t, psn) < 0 && !tb_cq_poll(t.rcq[1], &(struct hca_cqe){ 0 }), "odd ICRC end: no ACK, no CQE");
	finish(&t, "ICRC region ending at an odd offset");
}

/*
 * UC keeps the receive WQE of an abandoned SEND for the next message
 * (model/resp.c uc_abort, docs/wire.md): a UC SEND FIRST takes receive WQE 0 from
 * a receive queue at IOVA RQ_AT (bit 63 set; nothing mapped without it),
 * a WRITE ONLY (a new message) abandons the SEND and is placed, then a SEND
 * ONLY lands in WQE 0 from its start: one CQE (SUCCESS, 100 bytes, index 0),
 * the data, and no DMA fault (the WQE's address survives the WRITE).
 */
static void uc_rwqe_kept(void)
{
	static uint8_t pay[1024];
	const uint64_t rq_at = 0x8000000000100000ull;
	struct rt t;
	struct tb_sge r;
	struct hca_cqe c;
	struct tb_qp *q;
	uint32_t psn;

	setup_objs(&t, 10);
	for (int i = 0; i < 2; i++)
		t.qp[i] = tb_qp_create(t.n[i], HCA_QPT_UC, t.pd[i], t.scq[i], t.rcq[i], NULL, NULL);
	q = t.qp[1];
	CHECK(hostmem_map(t.n[1]->hm, rq_at, q->rq, (size_t)1 << (q->qpc.log_rq_size + q->qpc.log_rq_stride),
			  HOSTMEM_RW) == 0 && !hostmem_ptr(t.n[1]->hm, rq_at & ~(1ull << 63), 1),
	      "UC: RQ mapped at 0x%llx only", (unsigned long long)rq_at);
	q->qpc.rq_base = rq_at;
	tb_connect_pair(t.qp[0], t.qp[1], NULL);
	r = rt_sge(t.mr[1], 0x1000, 0x800);
	tb_post_recv(q, &r, 1);
	psn = tb_qp_query(q).rq_psn_expected;
	rt_fill(pay, sizeof(pay), 45);
	inject(&t, HCA_BTH_OP_UC_SEND_FIRST, psn, false, 0, pay, 1024);
	tb_run(t.tb, RT_WAIT);
	inject(&t, HCA_BTH_OP_UC_RDMA_WRITE_ONLY, (psn + 1) & 0xffffff, false, 64, pay, 64);
	tb_run(t.tb, RT_WAIT);
	CHECK(rt_check(t.mr[1]->buf, 64, 45) && !tb_cq_poll(t.rcq[1], &(struct hca_cqe){ 0 }),
	      "UC: the WRITE placed, the abandoned SEND not completed");
	rt_fill(pay, sizeof(pay), 46);
	inject(&t, HCA_BTH_OP_UC_SEND_ONLY, (psn + 2) & 0xffffff, false, 0, pay, 100);
	CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS && c.byte_len == 100 && c.wqe_index == 0,
	      "UC: the next SEND completes in the kept WQE 0 (%s, %u bytes, index %u)", hca_wc_status_name(c.status),
	      c.byte_len, c.wqe_index);
	CHECK(rt_check(t.mr[1]->buf + 0x1000, 100, 46), "UC: its data from the WQE's start");
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_DMA_FAULT), 0, "UC: no DMA fault");
	finish(&t, "UC receive WQE kept across an abandoned SEND and a WRITE");
}

/*
 * WRITE FIRST (DMA length 2 MiB) and one WRITE MIDDLE, crafted, to a QP
 * whose MR covers 2 MiB + 4 KiB: both are in order and within the length,
 * so the MIDDLE is acknowledged and both payloads land (the rest of the
 * message never comes; the QP stays in RTS).
 */
static void write_2mib(void)
{
	static uint8_t pay[1024];
	struct rt t;
	struct tb_qp_attr a;
	uint32_t psn;
	int syn;

	tb_qp_attr_default(&a);	/* PMTU 1024 */
	setup_objs(&t, 10);
	free(t.mr[1]);
	t.mr[1] = tb_mr_reg(t.n[1], t.pd[1], (2u << 20) + 4096, RT_ACC_ALL);
	for (int i = 0; i < 2; i++)
		t.qp[i] = tb_qp_create(t.n[i], HCA_QPT_RC, t.pd[i], t.scq[i], t.rcq[i], NULL, NULL);
	tb_connect_pair(t.qp[0], t.qp[1], &a);
	psn = tb_qp_query(t.qp[1]).rq_psn_expected;
	rt_fill(pay, sizeof(pay), 21);
	inject(&t, HCA_BTH_OP_RC_RDMA_WRITE_FIRST, psn, false, 2u << 20, pay, 1024);
	tb_run(t.tb, RT_WAIT);
	inject(&t, HCA_BTH_OP_RC_RDMA_WRITE_MIDDLE, (psn + 1) & 0xffffff, true, 0, pay, 1024);
	tb_run(t.tb, RT_WAIT);
	syn = ack_for(&t, (psn + 1) & 0xffffff);
	CHECK(syn >= 0 && (syn & 0x60) == 0, "2 MiB WRITE: its MIDDLE is acknowledged (syndrome 0x%x)", syn);
	CHECK(rt_check(t.mr[1]->buf, 1024, 21) && rt_check(t.mr[1]->buf + 1024, 1024, 21),
	      "2 MiB WRITE: FIRST and MIDDLE payloads placed");
	CHECK_EQ(tb_qp_query(t.qp[1]).cur_state, HCA_QPS_RTS, "2 MiB WRITE: responder still RTS");
	finish(&t, "first packets of a 2 MiB WRITE");
}

/*
 * A SEND into a receive WQE of 0x180 bytes (the responder's words keep
 * that WQE's total after it completes), then a two-packet WRITE, crafted:
 * its FIRST (DMA length 2048), a receive WQE posted on the responder (the
 * doorbell steps the QP between the two packets), its LAST.  The LAST
 * completes the DMA length exactly: acknowledged, both payloads placed.
 */
static void write_after_recv(void)
{
	static uint8_t pay[1024];
	struct rt t;
	struct tb_sge s, r;
	struct tb_send_wr w;
	struct hca_cqe c;
	uint32_t psn;
	int syn;

	setup(&t, HCA_QPT_RC, NULL, NULL, 10);
	r = rt_sge(t.mr[1], 0x10000, 0x180);
	tb_post_recv(t.qp[1], &r, 1);
	s = rt_sge(t.mr[0], 0, 0x100);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS && c.byte_len == 0x100,
	      "SEND into a 0x180-byte receive WQE");
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_SUCCESS, "SEND acknowledged");
	tb_run(t.tb, RT_WAIT);
	psn = tb_qp_query(t.qp[1]).rq_psn_expected;
	rt_fill(pay, sizeof(pay), 31);
	inject(&t, HCA_BTH_OP_RC_RDMA_WRITE_FIRST, psn, false, 2048, pay, 1024);
	tb_run(t.tb, RT_WAIT);
	r = rt_sge(t.mr[1], 0x20000, 0x100);
	tb_post_recv(t.qp[1], &r, 1);
	tb_run(t.tb, RT_WAIT);
	inject(&t, HCA_BTH_OP_RC_RDMA_WRITE_LAST, (psn + 1) & 0xffffff, true, 0, pay, 1024);
	tb_run(t.tb, RT_WAIT);
	syn = ack_for(&t, (psn + 1) & 0xffffff);
	CHECK(syn >= 0 && (syn & 0x60) == 0, "WRITE LAST after a receive was posted: acknowledged (syndrome 0x%x)", syn);
	CHECK(rt_check(t.mr[1]->buf, 1024, 31) && rt_check(t.mr[1]->buf + 1024, 1024, 31), "both payloads placed");
	CHECK_EQ(tb_qp_query(t.qp[1]).cur_state, HCA_QPS_RTS, "responder still RTS");
	finish(&t, "WRITE around a receive post, after a SEND into a 0x180-byte receive WQE");
}

/*
 * Node 1's receive queue mapped at an IOVA with bit 34 set (and nothing
 * mapped at the same IOVA without it): SENDs land in the posted buffers.
 */
#define RQ_HIGH_IOVA 0x7f0000000ull

static void rq_above_16g(void)
{
	recv_at_rq_iova(RQ_HIGH_IOVA, 1ull << 34, 40, "receive queue above 16 GiB");
}

/*
 * SRQ 45 armed (limit 1, nothing posted) beside SRQ 1 (limit 2) that a QP
 * draws from: SRQ 1 reaches its limit and disarms; SRQ 45 is untouched.
 */
static void srq_high_number(void)
{
	struct rt t;
	struct hca_cqe c;
	struct hca_srqc sc;
	struct tb_sge s;
	struct tb_send_wr w;
	struct tb_srq *q, *hi;
	unsigned int k[3] = { 0, 0, 0 };
	uint8_t ty;
	uint32_t el;

	setup_objs(&t, 6);
	q = tb_srq_create(t.n[1], t.pd[1], 4, 2, 2);
	t.n[1]->next_srqn = 45;
	hi = tb_srq_create(t.n[1], t.pd[1], 4, 2, 1);
	CHECK_EQ(hi->srqn, 45, "SRQ number 45");
	srq_pair_posted(&t, q);
	s = rt_sge(t.mr[0], 0, 100);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	for (int i = 0; i < 3; i++)
		tb_post_send(t.qp[0], &w);
	for (int i = 0; i < 3; i++)
		CHECK(wait_cqe(t.rcq[1], &c) && c.status == HCA_WC_SUCCESS && c.is_srq == 1 && c.wqe_index == i,
		      "SRQ 1 receive %d", i);
	tb_run(t.tb, RT_WAIT);
	tb_ctx_read(t.n[1], HCA_CTX_TYPE_SRQC, q->srqn, &sc, sizeof(sc));
	CHECK_EQ(sc.armed, 0, "SRQ 1 disarmed by its limit");
	tb_ctx_read(t.n[1], HCA_CTX_TYPE_SRQC, 45, &sc, sizeof(sc));
	CHECK(sc.valid == 1 && sc.armed == 1, "SRQ 45 still armed (valid %u armed %u)", sc.valid, sc.armed);
	while (tb_evt_pop(t.n[1], &ty, &el))
		if (ty == HCA_EVENT_SRQ_LIMIT_REACHED)
			k[el == q->srqn ? 0 : el == 45 ? 1 : 2]++;
	CHECK(k[0] == 1 && k[1] == 0 && k[2] == 0, "SRQ_LIMIT_REACHED once, for SRQ 1 (%u, SRQ 45 %u, other %u)",
	      k[0], k[1], k[2]);
	free(q);
	free(hi);
	finish(&t, "SRQ 45 beside SRQ 1");
}

/*
 * A SEND of eight 64-byte entries read with rd_lat cycles of host latency, so
 * that all eight payload reads are outstanding at once and take read tags
 * 0..7 in order (hca_dma_rd: the lowest free tag); entry `bad` lies in the
 * unmapped page of a half-mapped MR: the send fails LOC_PROT_ERR/DMA_FAULT
 * and DMA_FAULT_INFO/LO/HI name a payload read at that entry's IOVA
 * (docs/reference.md DMA_FAULT_*), whichever tag carried it.
 */
static void gather_fault_tag(unsigned int bad, unsigned int rd_lat)
{
	struct rt t;
	struct hca_cqe c;
	struct tb_sge s[8];
	struct tb_send_wr w;
	struct tb_qp_cap cap = { .max_send_sge = 8 };
	uint64_t iova, at = 0;
	char what[64];

	setup_rd_lat_cap(&t, NULL, &cap, rd_lat);
	/* MR 905 of node 0: 16 KiB at va 0x7200000, only its first page mapped */
	iova = half_mapped_mr_at(&t, 905, 0x7200000);
	for (unsigned int i = 0; i < 8; i++) {
		uint64_t off = i == bad ? 4096 + 0x230 : 0x80 * i;

		s[i] = (struct tb_sge){ .addr = 0x7200000 + off, .len = 64, .lkey = 905u << 8 | 0x42 };
		if (i == bad)
			at = iova + off;
	}
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = s, .num_sge = 8 };
	tb_post_send(t.qp[0], &w);
	snprintf(what, sizeof(what), "gather fault in entry %u, rd_lat %u", bad, rd_lat);
	CHECK(wait_cqe(t.scq[0], &c) && c.status == HCA_WC_LOC_PROT_ERR && c.vendor_err == HCA_VENDOR_ERR_DMA_FAULT,
	      "%s: LOC_PROT_ERR/DMA_FAULT (status %u vendor %u)", what, c.status, c.vendor_err);
	tb_run(t.tb, RT_WAIT);
	CHECK_EQ(tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_INFO),
		 HCA_MGMT_DMA_FAULT_INFO_VALID_MASK |
		 HCA_FIELD_PREP(HCA_MGMT_DMA_FAULT_INFO_CLIENT, HCA_DMA_CLIENT_PAYLOAD), "fault: a payload read");
	CHECK(tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_LO) == (uint32_t)at &&
	      tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_HI) == (uint32_t)(at >> 32),
	      "%s: DMA_FAULT_HI/LO 0x%08x%08x = the entry's IOVA 0x%llx", what,
	      tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_HI), tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_LO),
	      (unsigned long long)at);
	finish(&t, what);
}

/*
 * Completion events of CQs numbered apart (programming.md 4.4): on node 0,
 * CQ 8 (the QP's send CQ), CQ 12 (its receive CQ) and CQ 186 (no traffic)
 * on one armed EQ.  CQ 12 is armed; a SEND completes into CQ 8 unarmed (no
 * event); arming CQ 8 with that CQE unpolled raises its event at once and
 * disarms CQ 8 only; a SEND from node 1 then completes into CQ 12, which is
 * still armed: its event.  Exactly two COMP EQEs, for CQs 8 and 12; CQ 186
 * none.
 */
static void cq_events_apart(void)
{
	struct rt t;
	struct tb_node *n;
	struct tb_eq *eq;
	struct tb_cq *cq8, *cq12, *cq186;
	struct tb_qp *qp, *peer;
	struct tb_sge s, r;
	struct tb_send_wr w;
	struct hca_cqe c;
	struct hca_eqe e;
	unsigned int eqes = 0, for8 = 0, for12 = 0, other = 0;

	setup_objs(&t, 10);
	n = t.n[0];
	eq = tb_eq_create(n, 4, 0);
	tb_eq_arm(eq);
	n->next_cqn = 8;
	cq8 = tb_cq_create(n, 4, eq);
	n->next_cqn = 12;
	cq12 = tb_cq_create(n, 4, eq);
	n->next_cqn = 186;
	cq186 = tb_cq_create(n, 4, eq);
	qp = tb_qp_create(n, HCA_QPT_RC, t.pd[0], cq8, cq12, NULL, NULL);
	peer = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
	t.qp[0] = qp;
	t.qp[1] = peer;
	CHECK(cq8 && cq12 && cq186 && cq8->cqn == 8 && cq12->cqn == 12 && cq186->cqn == 186 && qp && peer &&
	      tb_connect_pair(qp, peer, NULL) == 0, "CQs 8, 12, 186 on an armed EQ, a QP pair");
	tb_cq_arm(cq12, false);
	/* a SEND from node 0: its CQE in CQ 8, not armed */
	r = rt_sge(t.mr[1], 0, 64);
	tb_post_recv(peer, &r, 1);
	s = rt_sge(t.mr[0], 0, 64);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(qp, &w);
	tb_run(t.tb, RT_WAIT);
	CHECK(!tb_eq_poll(eq, &e), "no event for the unarmed CQ 8");
	/* arm CQ 8 with its CQE unpolled: the event at once */
	tb_cq_arm(cq8, false);
	tb_run(t.tb, RT_WAIT);
	/* a SEND from node 1 into CQ 12, armed */
	r = rt_sge(t.mr[0], 0x1000, 64);
	tb_post_recv(qp, &r, 1);
	s = rt_sge(t.mr[1], 0x1000, 64);
	tb_post_send(peer, &w);
	tb_run(t.tb, RT_WAIT);
	while (tb_eq_poll(eq, &e)) {
		eqes++;
		if (e.type != HCA_EQE_TYPE_COMP)
			other++;
		else if (e.element == 8)
			for8++;
		else if (e.element == 12)
			for12++;
		else
			other++;
	}
	CHECK(eqes == 2 && for8 == 1 && for12 == 1 && other == 0,
	      "CQ events: one for CQ 8 (armed late), one for CQ 12 (armed first), none other (%u EQEs: %u, %u, %u other)",
	      eqes, for8, for12, other);
	CHECK(tb_cq_poll(cq8, &c) == 1 && c.status == HCA_WC_SUCCESS, "CQ 8: the send completion");
	CHECK(tb_cq_poll(cq12, &c) == 1 && c.status == HCA_WC_SUCCESS && c.opcode == HCA_WC_OP_RECV,
	      "CQ 12: the receive completion");
	free(eq);
	free(cq8);
	free(cq12);
	free(cq186);
	finish(&t, "completion events of CQs 8, 12, 186");
}

/*
 * A send queue at an IOVA nothing is mapped at: the requester's WQE fetch
 * faults, the QP goes to ERR and raises one QP_FATAL for it (programming.md
 * 4.5, docs/model.md: a fault on a QP's own queue is fatal to the QP), the
 * fault latch names a WQE read at the SQ's base.
 */
static void sq_fetch_fault(void)
{
	struct rt t;
	struct tb_sge s;
	struct tb_send_wr w;
	uint8_t ty;
	uint32_t el;
	int fatal = 0, other = 0;
	const uint64_t sq_iova = 0x7e0000000ull;

	setup_objs(&t, 10);
	for (int i = 0; i < 2; i++)
		t.qp[i] = tb_qp_create(t.n[i], HCA_QPT_RC, t.pd[i], t.scq[i], t.rcq[i], NULL, NULL);
	CHECK(!hostmem_ptr(t.n[0]->hm, sq_iova, 1), "nothing mapped at 0x%llx", (unsigned long long)sq_iova);
	t.qp[0]->qpc.sq_base = sq_iova;
	tb_connect_pair(t.qp[0], t.qp[1], NULL);
	tb_evt_clear(t.n[0]);
	s = rt_sge(t.mr[0], 0, 64);
	w = (struct tb_send_wr){ .opcode = HCA_WR_SEND, .flags = HCA_SEND_SIGNALED, .sge = &s, .num_sge = 1 };
	tb_post_send(t.qp[0], &w);
	tb_run(t.tb, RT_WAIT);
	CHECK_EQ(tb_qp_query(t.qp[0]).cur_state, HCA_QPS_ERR, "SQ fetch fault: the QP in ERR");
	while (tb_evt_pop(t.n[0], &ty, &el)) {
		if (ty == HCA_EVENT_QP_FATAL && el == t.qp[0]->qpn)
			fatal++;
		else
			other++;
	}
	CHECK(fatal == 1 && other == 0, "SQ fetch fault: one QP_FATAL for QP %u (%d, %d other events)", t.qp[0]->qpn,
	      fatal, other);
	CHECK_EQ(tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_INFO),
		 HCA_MGMT_DMA_FAULT_INFO_VALID_MASK |
		 HCA_FIELD_PREP(HCA_MGMT_DMA_FAULT_INFO_CLIENT, HCA_DMA_CLIENT_WQE), "fault: a WQE read");
	CHECK_EQ(tb_mgmt_read(t.n[0], HCA_MGMT_DMA_FAULT_LO), (uint32_t)sq_iova, "fault IOVA: the SQ's first WQE");
	finish(&t, "send queue at an unmapped IOVA");
}

int main(int argc, char **argv)
{
	rt_ls_start(argc, argv);
	msg_too_long();
	write_2mib();
	udp_csum_off();
	icrc_odd_end(0);
	icrc_odd_end(0x80);
	uc_rwqe_kept();
	write_after_recv();
	rq_above_16g();
	srq_high_number();
	cq_events_apart();
	sq_fetch_fault();
	for (unsigned int lat = 300; lat <= 301; lat++)
		for (unsigned int bad = 4; bad < 8; bad++)
			gather_fault_tag(bad, lat);
	return check_done();
}
