// SPDX-License-Identifier: MIT
/*
 * Frame coverage for the independent oracles: drives two model engines
 * through every opcode the engine emits (RC requests, READ responses, ACK,
 * every NAK kind, atomic ACK, UC, UD, SE) and captures the wire into a pcap
 * (argv[1]).  model.mk then runs tests/oracle/check_pcap.py --wire-rules on
 * it: scapy recomputes every ICRC, tshark decodes every frame without
 * warnings, and docs/wire.md's transmit rules hold.  This program checks
 * that every opcode appeared and the per-frame rules the oracle does not
 * know (UDP source port = 0xC000 | sender's QPN; responses from the
 * responder's QPN; addresses of responses swapped).
 */
#include "mt.h"

static struct mt_cap cap;
static int drop_next_psn = -1;

static bool drop_once(struct mt_cap *c, unsigned int src, const struct roce_pkt *p)
{
	(void)c;
	if (src == 0 && (int)p->psn == drop_next_psn) {
		drop_next_psn = -1;
		return true;
	}
	return false;
}

static void post(struct tb_qp *qp, uint8_t op, uint8_t flags, struct tb_sge *s, struct tb_mr *rmr,
		 struct tb_qp *ud_dest)
{
	struct tb_send_wr wr = { .opcode = op, .flags = HCA_SEND_SIGNALED | flags, .sge = s, .num_sge = 1,
				 .raddr = rmr ? rmr->va : 0, .rkey = rmr ? rmr->rkey : 0, .imm = 0x11223344,
				 .compare_add = 0, .swap = 9, .ud_dest = ud_dest, .ud_qkey = 0x11111111 };

	tb_post_send(qp, &wr);
}

int main(int argc, char **argv)
{
	struct tb_config cfg = { .pcap = argc > 1 ? argv[1] : NULL };
	struct tb_qp_attr a;
	struct mt t;
	struct tb_sge s600, s200, s10, s8, r;
	struct tb_qp *uc0, *uc1, *ud0, *ud1, *bad0, *bad1;
	unsigned int seen[256] = { 0 };
	static const uint8_t want[] = {
		0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
		0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28,
		0x29, 0x2a, 0x2b, 0x64, 0x65,
	};

	tb_qp_attr_default(&a);
	a.path_mtu = HCA_MTU_256;
	a.min_rnr_timer = 1;
	a.timeout = 10;
	CHECK(mt_setup(&t, HCA_QPT_RC, &a, &cfg) == 0, "setup");
	mt_cap_start(&t, &cap);
	cap.drop = drop_once;
	s600 = mt_sge(t.mr[0], 0, 600);
	s10 = mt_sge(t.mr[0], 0, 10);
	s200 = mt_sge(t.mr[0], 0, 200);
	s8 = mt_sge(t.mr[0], 1000, 8);
	mt_fill(t.mr[0]->buf, 4096, 3);
	r = mt_sge(t.mr[1], 0, 4096);

	/* RC: RNR NAK first (no receive posted), then the receives */
	post(t.qp[0], HCA_WR_SEND, 0, &s10, NULL, NULL);
	tb_run(t.tb, 3000);
	for (int i = 0; i < 8; i++)
		tb_post_recv(t.qp[1], &r, 1);
	post(t.qp[0], HCA_WR_SEND, HCA_SEND_SOLICITED, &s600, NULL, NULL);
	post(t.qp[0], HCA_WR_SEND_WITH_IMM, 0, &s600, NULL, NULL);
	post(t.qp[0], HCA_WR_SEND_WITH_IMM, 0, &s10, NULL, NULL);
	post(t.qp[0], HCA_WR_RDMA_WRITE, 0, &s10, t.mr[1], NULL);
	post(t.qp[0], HCA_WR_RDMA_WRITE, 0, &s600, t.mr[1], NULL);
	post(t.qp[0], HCA_WR_RDMA_WRITE_WITH_IMM, 0, &s600, t.mr[1], NULL);
	post(t.qp[0], HCA_WR_RDMA_WRITE_WITH_IMM, HCA_SEND_SOLICITED, &s10, t.mr[1], NULL);
	post(t.qp[0], HCA_WR_RDMA_READ, 0, &s10, t.mr[1], NULL);
	post(t.qp[0], HCA_WR_RDMA_READ, 0, &s600, t.mr[1], NULL);
	post(t.qp[0], HCA_WR_ATOMIC_CMP_AND_SWP, 0, &s8, t.mr[1], NULL);
	post(t.qp[0], HCA_WR_ATOMIC_FETCH_AND_ADD, 0, &s8, t.mr[1], NULL);
	tb_run(t.tb, 10000000);
	/* a lost packet: PSN sequence NAK and go-back-N */
	drop_next_psn = (int)tb_qp_query(t.qp[0]).sq_psn_next + 1;
	post(t.qp[0], HCA_WR_RDMA_WRITE, 0, &s600, t.mr[1], NULL);
	tb_run(t.tb, 10000000);
	/* NAK remote access error (bad rkey) on a second pair */
	bad0 = tb_qp_create(t.n[0], HCA_QPT_RC, t.pd[0], t.scq[0], t.rcq[0], NULL, NULL);
	bad1 = tb_qp_create(t.n[1], HCA_QPT_RC, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
	tb_connect_pair(bad0, bad1, &a);
	{
		struct tb_send_wr wr = { .opcode = HCA_WR_RDMA_WRITE, .sge = &s10, .num_sge = 1,
					 .raddr = t.mr[1]->va, .rkey = 0xffff00 };

		tb_post_send(bad0, &wr);
	}
	/* UC and UD */
	uc0 = tb_qp_create(t.n[0], HCA_QPT_UC, t.pd[0], t.scq[0], t.rcq[0], NULL, NULL);
	uc1 = tb_qp_create(t.n[1], HCA_QPT_UC, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
	tb_connect_pair(uc0, uc1, &a);
	ud0 = tb_qp_create(t.n[0], HCA_QPT_UD, t.pd[0], t.scq[0], t.rcq[0], NULL, NULL);
	ud1 = tb_qp_create(t.n[1], HCA_QPT_UD, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
	tb_qp_ud_ready(ud0, &a);
	tb_qp_ud_ready(ud1, &a);
	for (int i = 0; i < 4; i++) {
		tb_post_recv(uc1, &r, 1);
		tb_post_recv(ud1, &r, 1);
	}
	post(uc0, HCA_WR_SEND, 0, &s600, NULL, NULL);
	post(uc0, HCA_WR_SEND, 0, &s10, NULL, NULL);
	post(uc0, HCA_WR_SEND_WITH_IMM, 0, &s600, NULL, NULL);
	post(uc0, HCA_WR_SEND_WITH_IMM, 0, &s10, NULL, NULL);
	post(uc0, HCA_WR_RDMA_WRITE, 0, &s600, t.mr[1], NULL);
	post(uc0, HCA_WR_RDMA_WRITE, 0, &s10, t.mr[1], NULL);
	post(uc0, HCA_WR_RDMA_WRITE_WITH_IMM, 0, &s600, t.mr[1], NULL);
	post(uc0, HCA_WR_RDMA_WRITE_WITH_IMM, 0, &s10, t.mr[1], NULL);
	post(ud0, HCA_WR_SEND, 0, &s200, NULL, ud1);
	post(ud0, HCA_WR_SEND_WITH_IMM, HCA_SEND_SOLICITED, &s10, NULL, ud1);
	tb_run(t.tb, 10000000);

	CHECK_EQ(cap.bad, 0, "every frame parses");
	for (unsigned int i = 0; i < cap.n; i++) {
		const struct roce_pkt *p = &cap.pkt[i];
		const struct roce_opcode_info *info = roce_opcode(p->opcode);
		struct tb_node *me = t.n[cap.src[i]], *peer = t.n[1 - cap.src[i]];

		seen[p->opcode]++;
		CHECK(memcmp(p->smac, me->mac, 6) == 0 && memcmp(p->dmac, peer->mac, 6) == 0, "frame %u MACs", i);
		CHECK(p->sip == me->ip && p->dip == peer->ip, "frame %u IPs", i);
		CHECK(p->ttl == 64, "frame %u TTL", i);
		if (info && (info->flags & ROCE_OP_RESP)) {
			/* a response comes from the responder QP, to the requester QP */
			uint32_t from = cap.src[i] == 1 ? (p->dqpn == t.qp[0]->qpn ? t.qp[1]->qpn : bad1->qpn) : 0;

			if (cap.src[i] == 1)
				CHECK_EQ(p->sport, 0xC000 | from, "response source port = responder QPN");
		}
		if (p->opcode == HCA_BTH_OP_RC_ACKNOWLEDGE)
			CHECK_EQ(p->paylen, 0, "ACK has no payload");
	}
	for (unsigned int i = 0; i < sizeof(want); i++)
		CHECK(seen[want[i]] > 0, "opcode 0x%02x emitted", want[i]);
	CHECK(mt_cap_count(&cap, 1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_RNR_SYN(1)) >= 1, "RNR NAK emitted");
	CHECK(mt_cap_count(&cap, 1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_NAK_SYN(0)) >= 1, "PSN sequence NAK emitted");
	CHECK(mt_cap_count(&cap, 1, HCA_BTH_OP_RC_ACKNOWLEDGE, AETH_NAK_SYN(2)) >= 1, "remote access NAK emitted");
	printf("%u frames captured%s%s\n", cap.n, cfg.pcap ? " to " : "", cfg.pcap ? cfg.pcap : "");
	free(uc0);
	free(uc1);
	free(ud0);
	free(ud1);
	free(bad0);
	free(bad1);
	mt_teardown(&t);
	return check_done();
}
