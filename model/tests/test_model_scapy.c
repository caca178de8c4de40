// SPDX-License-Identifier: MIT
/*
 * Frames built by scapy (tests/oracle/gen_frames.py, an implementation
 * independent of the model's codec) are accepted by the model engine and
 * do what the IB spec says: an RDMA WRITE lands in memory, a two-packet
 * SEND with immediate consumes a receive WQE, a FETCH_ADD adds and returns
 * the original value, a READ request is answered with the right data, a UD
 * SEND delivers GRH + payload, a duplicate is re-ACKed with ePSN - 1.
 *
 *   test_model_scapy PYTHON GEN_FRAMES.PY WORKDIR
 */
#include <stdio.h>

#include "mt.h"
#include "pcap.h"

static struct mt_cap cap;

static void hex(FILE *f, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
}

int main(int argc, char **argv)
{
	char json[512], pcapf[512], cmd[2048];
	struct tb_qp *ud1;
	struct pcap_reader *rd;
	struct pcap_frame fr;
	struct hca_cqe c;
	struct mt t;
	uint8_t pay[1124];
	uint64_t v;
	FILE *f;
	int frames = 0, i;

	if (argc != 4) {
		fprintf(stderr, "usage: %s PYTHON GEN_FRAMES.PY WORKDIR\n", argv[0]);
		return 2;
	}
	snprintf(json, sizeof(json), "%s/model_scapy.json", argv[3]);
	snprintf(pcapf, sizeof(pcapf), "%s/model_scapy.pcap", argv[3]);
	CHECK(mt_setup(&t, HCA_QPT_RC, NULL, NULL) == 0, "setup");
	ud1 = tb_qp_create(t.n[1], HCA_QPT_UD, t.pd[1], t.scq[1], t.rcq[1], NULL, NULL);
	tb_qp_ud_ready(ud1, NULL);
	mt_cap_start(&t, &cap);
	mt_fill(pay, sizeof(pay), 99);
	mt_fill(t.mr[1]->buf + 8192, 2000, 98);
	memset(t.mr[1]->buf, 0, 4096);
	v = 40;
	memcpy(t.mr[1]->buf + 4096, &v, 8);
	{
		struct tb_sge r = mt_sge(t.mr[1], 20000, 2048);

		tb_post_recv(t.qp[1], &r, 1);
		r = mt_sge(t.mr[1], 30000, 256);
		tb_post_recv(ud1, &r, 1);
	}

	f = fopen(json, "w");
	if (!f) {
		CHECK(0, "cannot write %s", json);
		return check_done();
	}
	fprintf(f, "{\"defaults\": {\"dmac\": \"02:00:00:00:00:02\", \"smac\": \"02:00:00:00:00:01\", "
		   "\"sip\": \"10.0.0.1\", \"dip\": \"10.0.0.2\", \"dqpn\": %u},\n \"frames\": [\n", t.qp[1]->qpn);
	fprintf(f, "  {\"opcode\": \"RC_RDMA_WRITE_ONLY\", \"psn\": 291, \"ackreq\": 1, \"reth_va\": %llu, "
		   "\"reth_rkey\": %u, \"reth_len\": 37, \"payload\": \"",
		(unsigned long long)(t.mr[1]->va + 100), t.mr[1]->rkey);
	hex(f, pay, 37);
	fprintf(f, "\"},\n  {\"opcode\": \"RC_SEND_FIRST\", \"psn\": 292, \"payload\": \"");
	hex(f, pay, 1024);
	fprintf(f, "\"},\n  {\"opcode\": \"RC_SEND_LAST_WITH_IMMEDIATE\", \"psn\": 293, \"ackreq\": 1, "
		   "\"se\": 1, \"imm\": 3735928559, \"payload\": \"");
	hex(f, pay + 1024, 100);
	fprintf(f, "\"},\n  {\"opcode\": \"RC_FETCH_ADD\", \"psn\": 294, \"ackreq\": 1, \"atmeth_va\": %llu, "
		   "\"atmeth_rkey\": %u, \"atmeth_swap_add\": 5},\n",
		(unsigned long long)(t.mr[1]->va + 4096), t.mr[1]->rkey);
	fprintf(f, "  {\"opcode\": \"RC_RDMA_READ_REQUEST\", \"psn\": 295, \"ackreq\": 1, \"reth_va\": %llu, "
		   "\"reth_rkey\": %u, \"reth_len\": 2000},\n", (unsigned long long)(t.mr[1]->va + 8192), t.mr[1]->rkey);
	fprintf(f, "  {\"opcode\": \"RC_RDMA_WRITE_ONLY\", \"psn\": 291, \"ackreq\": 1, \"reth_va\": %llu, "
		   "\"reth_rkey\": %u, \"reth_len\": 4, \"payload\": \"ffffffff\"},\n",
		(unsigned long long)(t.mr[1]->va + 100), t.mr[1]->rkey);
	fprintf(f, "  {\"opcode\": \"UD_SEND_ONLY\", \"dqpn\": %u, \"deth_qkey\": %u, \"deth_src_qp\": 85, "
		   "\"payload\": \"", ud1->qpn, ud1->qpc.qkey);
	hex(f, pay, 20);
	fprintf(f, "\"}\n]}\n");
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s %s -o %s --json %s", argv[1], argv[2], pcapf, json);
	CHECK(system(cmd) == 0, "gen_frames.py: %s", cmd);

	rd = pcap_reader_open(pcapf);
	CHECK(rd != NULL, "open %s", pcapf);
	while (rd && pcap_read(rd, &fr) == 1) {
		t.n[1]->ops->rx_frame(t.n[1]->eng, fr.data, fr.len);
		frames++;
		tb_run(t.tb, 1000000);
	}
	pcap_reader_close(rd);
	CHECK_EQ(frames, 7, "scapy frames replayed");
	for (i = HCA_STAT_RX_DROP_PORT_DOWN; i <= HCA_STAT_RX_DROP_QKEY; i++)
		CHECK_EQ(tb_stat(t.n[1], (unsigned int)i), 0, "no frame dropped");

	CHECK(memcmp(t.mr[1]->buf + 100, pay, 37) == 0, "scapy RDMA WRITE landed in memory");
	CHECK(t.mr[1]->buf[99] == 0 && t.mr[1]->buf[137] == 0, "and nowhere else");
	CHECK(tb_cq_poll(t.rcq[1], &c), "scapy SEND consumed a receive WQE");
	CHECK_EQ(c.status, HCA_WC_SUCCESS, "status");
	CHECK_EQ(c.byte_len, 1124, "byte_len");
	CHECK_EQ(c.imm_data, __builtin_bswap32(0xdeadbeef), "imm in network order");
	CHECK(memcmp(t.mr[1]->buf + 20000, pay, 1124) == 0, "SEND payload");
	memcpy(&v, t.mr[1]->buf + 4096, 8);
	CHECK_EQ(v, 45, "FETCH_ADD applied (little-endian operand)");
	i = mt_cap_find(&cap, 1, HCA_BTH_OP_RC_ATOMIC_ACKNOWLEDGE, -1);
	CHECK(i >= 0 && cap.pkt[i].atmack_orig == 40 && cap.pkt[i].psn == 294, "atomic ACK carries the original");
	CHECK_EQ(mt_cap_count(&cap, 1, HCA_BTH_OP_RC_RDMA_READ_RESPONSE_FIRST, -1), 1, "READ FIRST");
	i = mt_cap_find(&cap, 1, HCA_BTH_OP_RC_RDMA_READ_RESPONSE_LAST, -1);
	CHECK(i >= 0 && cap.pkt[i].psn == 296 && cap.pkt[i].paylen == 2000 - 1024, "READ LAST");
	CHECK(memcmp(t.mr[1]->buf + 100, pay, 4) == 0, "the duplicate WRITE was not executed again");
	i = -1;
	for (unsigned int k = 0; k < cap.n; k++)
		if (cap.src[k] == 1 && cap.pkt[k].opcode == HCA_BTH_OP_RC_ACKNOWLEDGE)
			i = (int)k;
	CHECK(i >= 0 && cap.pkt[i].psn == 296 && cap.pkt[i].aeth.syndrome == AETH_ACK_SYN && cap.pkt[i].aeth.msn == 4,
	      "duplicate answered with ACK ePSN-1, MSN 4");
	CHECK_EQ(tb_stat(t.n[1], HCA_STAT_RX_DUP), 1, "duplicate counted");
	CHECK(tb_cq_poll(t.rcq[1], &c), "scapy UD SEND received");
	CHECK(c.qpn == ud1->qpn && c.byte_len == 60 && c.src_qp == 85, "UD completion");
	CHECK(memcmp(t.mr[1]->buf + 30000 + 40, pay, 20) == 0, "UD payload after the GRH area");
	free(ud1);
	mt_teardown(&t);
	return check_done();
}
