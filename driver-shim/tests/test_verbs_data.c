// SPDX-License-Identifier: MIT
/*
 * Data path through the verbs API on two simulated HCAs in one process
 * (cooperative mode, in-process segment): discovery and queries, then RC
 * SEND/RECV, RDMA WRITE (with immediate), RDMA READ and atomics over a size
 * sweep, UC SEND and UD SEND, each checked against the bytes that were sent
 * and against the completion fields verbs defines.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <string.h>

#include "shim_test.h"

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

static int post_recv(struct t_end *e, uint64_t wr_id, size_t off, uint32_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf + off, .length = len, .lkey = e->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(e->qp, &wr, &bad);
}

static int post_send(struct t_end *e, enum ibv_wr_opcode op, uint64_t wr_id, size_t off,
		     uint32_t len, uint64_t raddr, uint32_t rkey, unsigned int flags)
{
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf + off, .length = len, .lkey = e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = len ? 1 : 0,
				  .opcode = op, .send_flags = IBV_SEND_SIGNALED | flags }, *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM)
		wr.imm_data = htonl(0x12345678);
	return ibv_post_send(e->qp, &wr, &bad);
}

static void test_discovery(void)
{
	struct ibv_device **list;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	union ibv_gid gid;
	struct ibv_context *ctx;
	int n;

	list = ibv_get_device_list(&n);
	CHECK(list != NULL, "device list");
	CHECK_EQ(n, 2, "two devices configured");
	if (!list || n != 2)
		return;
	CHECK(!strcmp(ibv_get_device_name(list[0]), "hcasim0"), "name of device 0");
	CHECK(!strcmp(ibv_get_device_name(list[1]), "hcasim1"), "name of device 1");
	CHECK(list[2] == NULL, "list is NULL-terminated");
	CHECK_EQ(list[0]->node_type, IBV_NODE_CA, "node type CA");
	ctx = ibv_open_device(list[0]);
	CHECK(ctx != NULL, "open hcasim0");
	if (!ctx) {
		ibv_free_device_list(list);
		return;
	}
	CHECK_EQ(ibv_query_device(ctx, &da), 0, "query device");
	CHECK_EQ(da.vendor_id, 0x4843, "vendor id");
	CHECK_EQ(da.phys_port_cnt, 1, "one port");
	CHECK(da.max_qp > 0 && da.max_cqe > 0 && da.max_mr_size > 0, "limits reported");
	CHECK_EQ(da.node_guid, ibv_get_device_guid(list[0]), "node GUID = ibv_get_device_guid");
	CHECK_EQ(ibv_query_port(ctx, 1, &pa), 0, "query port 1");
	CHECK_EQ(pa.state, IBV_PORT_ACTIVE, "port active");
	CHECK_EQ(pa.link_layer, IBV_LINK_LAYER_ETHERNET, "link layer Ethernet");
	CHECK(pa.gid_tbl_len >= 2, "GID table holds the two GIDs");
	CHECK(ibv_query_port(ctx, 2, &pa) != 0, "port 2 does not exist");
	CHECK_EQ(ibv_query_gid(ctx, 1, 0, &gid), 0, "GID 0");
	CHECK(gid.raw[0] == 0xfe && gid.raw[1] == 0x80 && gid.raw[11] == 0xff && gid.raw[12] == 0xfe,
	      "GID 0 is the link-local EUI-64 address");
	CHECK_EQ(ibv_query_gid(ctx, 1, 1, &gid), 0, "GID 1");
	CHECK(gid.raw[10] == 0xff && gid.raw[11] == 0xff && gid.raw[12] == 10 && gid.raw[15] == 1,
	      "GID 1 is ::ffff:10.0.0.1");
	CHECK_EQ(ibv_close_device(ctx), 0, "close");
	ibv_free_device_list(list);
}

static void test_rc(void)
{
	static const uint32_t sizes[] = { 1, 2, 63, 64, 1023, 1024, 1025, 4096, 4097, 65536 };
	struct t_end a, b;
	struct ibv_wc wc[4];
	const size_t half = 128 * 1024;

	if (t_end_open(&a, 0, 2 * half, 64, NULL) || t_end_open(&b, 1, 2 * half, 64, NULL) ||
	    t_qp_create(&a, IBV_QPT_RC, NULL) || t_qp_create(&b, IBV_QPT_RC, NULL)) {
		CHECK(0, "RC setup failed: %s", strerror(errno));
		return;
	}
	CHECK_EQ(t_connect(&a, &b), 0, "connect RC QPs");

	for (unsigned int i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t len = sizes[i];

		/* SEND a[0..len) -> b[half..] */
		fill(a.buf, len, i);
		memset(b.buf + half, 0, len + 1);
		CHECK_EQ(post_recv(&b, 100 + i, half, len + 16), 0, "post recv");
		CHECK_EQ(post_send(&a, IBV_WR_SEND_WITH_IMM, 200 + i, 0, len, 0, 0, 0), 0, "post send");
		T_EQ(t_poll(a.cq, wc, 1), 1, "send completion (%u B)", len);
		CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].wr_id == 200 + i &&
		      wc[0].opcode == IBV_WC_SEND, "send wc: status %s wr_id %lu opcode %d",
		      ibv_wc_status_str(wc[0].status), (unsigned long)wc[0].wr_id, wc[0].opcode);
		T_EQ(t_poll(b.cq, wc, 1), 1, "recv completion (%u B)", len);
		CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].wr_id == 100 + i &&
		      wc[0].opcode == IBV_WC_RECV && wc[0].byte_len == len &&
		      (wc[0].wc_flags & IBV_WC_WITH_IMM) && wc[0].imm_data == htonl(0x12345678) &&
		      wc[0].qp_num == b.qp->qp_num,
		      "recv wc: status %s wr_id %lu opcode %d len %u flags %x imm %x",
		      ibv_wc_status_str(wc[0].status), (unsigned long)wc[0].wr_id, wc[0].opcode,
		      wc[0].byte_len, wc[0].wc_flags, wc[0].imm_data);
		CHECK(!memcmp(a.buf, b.buf + half, len) && b.buf[half + len] == 0,
		      "SEND of %u bytes arrived intact", len);

		/* RDMA WRITE a[0..len) -> b[0..len) */
		fill(a.buf, len, i + 50);
		memset(b.buf, 0, len + 1);
		CHECK_EQ(post_send(&a, IBV_WR_RDMA_WRITE, 300 + i, 0, len, (uintptr_t)b.buf,
				   b.mr->rkey, 0), 0, "post write");
		CHECK_EQ(t_poll(a.cq, wc, 1), 1, "write completion");
		CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == IBV_WC_RDMA_WRITE,
		      "write wc: %s", ibv_wc_status_str(wc[0].status));
		CHECK(!memcmp(a.buf, b.buf, len) && b.buf[len] == 0, "WRITE of %u bytes landed", len);

		/* RDMA READ b[0..len) -> a[half..) */
		fill(b.buf, len, i + 90);
		memset(a.buf + half, 0, len + 1);
		CHECK_EQ(post_send(&a, IBV_WR_RDMA_READ, 400 + i, half, len, (uintptr_t)b.buf,
				   b.mr->rkey, 0), 0, "post read");
		CHECK_EQ(t_poll(a.cq, wc, 1), 1, "read completion");
		CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == IBV_WC_RDMA_READ,
		      "read wc: %s", ibv_wc_status_str(wc[0].status));
		CHECK(!memcmp(b.buf, a.buf + half, len) && a.buf[half + len] == 0,
		      "READ of %u bytes fetched", len);
	}

	/* RDMA WRITE with immediate consumes a receive and reports the length. */
	CHECK_EQ(post_recv(&b, 77, half, 0), 0, "post recv for write-imm");
	fill(a.buf, 100, 7);
	CHECK_EQ(post_send(&a, IBV_WR_RDMA_WRITE_WITH_IMM, 78, 0, 100, (uintptr_t)b.buf + 1000,
			   b.mr->rkey, 0), 0, "post write with imm");
	CHECK_EQ(t_poll(a.cq, wc, 1), 1, "write-imm send completion");
	CHECK_EQ(t_poll(b.cq, wc, 1), 1, "write-imm receive completion");
	CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
	      wc[0].wr_id == 77 && wc[0].byte_len == 100 && wc[0].imm_data == htonl(0x12345678),
	      "write-imm wc: opcode %d len %u", wc[0].opcode, wc[0].byte_len);
	CHECK(!memcmp(a.buf, b.buf + 1000, 100), "write-imm data");

	/* Atomics on b[0..8): little-endian 64-bit operands, original value returned. */
	{
		uint64_t v = 1000, got;
		struct ibv_sge sge = { .addr = (uintptr_t)a.buf + 64, .length = 8, .lkey = a.mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 9, .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;

		memcpy(b.buf, &v, 8);
		wr.wr.atomic.remote_addr = (uintptr_t)b.buf;
		wr.wr.atomic.rkey = b.mr->rkey;
		wr.wr.atomic.compare_add = 5;
		CHECK_EQ(ibv_post_send(a.qp, &wr, &bad), 0, "post fetch-add");
		CHECK_EQ(t_poll(a.cq, wc, 1), 1, "fetch-add completion");
		CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == IBV_WC_FETCH_ADD,
		      "fetch-add wc %s", ibv_wc_status_str(wc[0].status));
		memcpy(&got, a.buf + 64, 8);
		CHECK_EQ(got, 1000, "fetch-add returned the original");
		memcpy(&got, b.buf, 8);
		CHECK_EQ(got, 1005, "fetch-add added");
		wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
		wr.wr.atomic.compare_add = 1005;
		wr.wr.atomic.swap = 42;
		CHECK_EQ(ibv_post_send(a.qp, &wr, &bad), 0, "post cmp-swap");
		CHECK_EQ(t_poll(a.cq, wc, 1), 1, "cmp-swap completion");
		memcpy(&got, b.buf, 8);
		CHECK_EQ(got, 42, "cmp-swap swapped");
	}

	/* Inline send and unsignaled WQEs retire with the next signaled one. */
	{
		struct ibv_sge sge = { .addr = (uintptr_t)a.buf, .length = 40, .lkey = 0 };
		struct ibv_send_wr wr[3], *bad;

		memset(wr, 0, sizeof(wr));
		for (int i = 0; i < 3; i++) {
			wr[i].wr_id = 500 + (unsigned)i;
			wr[i].sg_list = &sge;
			wr[i].num_sge = 1;
			wr[i].opcode = IBV_WR_SEND;
			wr[i].send_flags = IBV_SEND_INLINE | (i == 2 ? IBV_SEND_SIGNALED : 0);
			wr[i].next = i < 2 ? &wr[i + 1] : NULL;
			CHECK_EQ(post_recv(&b, 600 + (unsigned)i, half + 64 * (unsigned)i, 64), 0,
				 "post recv");
		}
		fill(a.buf, 40, 33);
		CHECK_EQ(ibv_post_send(a.qp, wr, &bad), 0, "post 3 inline sends");
		CHECK_EQ(t_poll(a.cq, wc, 1), 1, "one send completion for three WQEs");
		CHECK_EQ(wc[0].wr_id, 502, "the signaled one");
		CHECK_EQ(t_poll(b.cq, wc, 3), 3, "three receives");
		CHECK(wc[0].wr_id == 600 && wc[1].wr_id == 601 && wc[2].wr_id == 602,
		      "receives complete in order");
		CHECK(!memcmp(a.buf, b.buf + half + 128, 40), "inline payload");
	}
	t_end_close(&a);
	t_end_close(&b);
}

static void test_ud_uc(void)
{
	struct t_end a, b;
	struct ibv_wc wc[2];
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_ah *ah;

	/* UD */
	if (t_end_open(&a, 0, 8192, 16, NULL) || t_end_open(&b, 1, 8192, 16, NULL) ||
	    t_qp_create(&a, IBV_QPT_UD, NULL) || t_qp_create(&b, IBV_QPT_UD, NULL) ||
	    t_qp_to_rts(&a, 0, 0) || t_qp_to_rts(&b, 0, 0)) {
		CHECK(0, "UD setup failed: %s", strerror(errno));
		return;
	}
	aa.grh.sgid_index = 1;
	aa.grh.hop_limit = 64;
	aa.grh.dgid.raw[10] = aa.grh.dgid.raw[11] = 0xff;
	aa.grh.dgid.raw[12] = 10;
	aa.grh.dgid.raw[15] = 2;
	ah = ibv_create_ah(a.pd, &aa);
	CHECK(ah != NULL, "create AH");
	{
		struct ibv_sge rs = { .addr = (uintptr_t)b.buf, .length = 40 + 512, .lkey = b.mr->lkey };
		struct ibv_recv_wr rw = { .wr_id = 1, .sg_list = &rs, .num_sge = 1 }, *rbad;
		struct ibv_sge ss = { .addr = (uintptr_t)a.buf, .length = 512, .lkey = a.mr->lkey };
		struct ibv_send_wr sw = { .wr_id = 2, .sg_list = &ss, .num_sge = 1,
					  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *sbad;

		sw.wr.ud.ah = ah;
		sw.wr.ud.remote_qpn = b.qp->qp_num;
		sw.wr.ud.remote_qkey = 0x11111111;
		fill(a.buf, 512, 3);
		CHECK_EQ(ibv_post_recv(b.qp, &rw, &rbad), 0, "UD post recv");
		CHECK_EQ(ibv_post_send(a.qp, &sw, &sbad), 0, "UD post send");
		CHECK_EQ(t_poll(a.cq, wc, 1), 1, "UD send completion");
		CHECK_EQ(t_poll(b.cq, wc, 1), 1, "UD recv completion");
		CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].byte_len == 40 + 512 &&
		      (wc[0].wc_flags & IBV_WC_GRH) && wc[0].src_qp == a.qp->qp_num,
		      "UD wc: %s len %u flags %x src_qp %u", ibv_wc_status_str(wc[0].status),
		      wc[0].byte_len, wc[0].wc_flags, wc[0].src_qp);
		CHECK(!memcmp(a.buf, b.buf + 40, 512), "UD payload after the 40-byte GRH area");
		CHECK(b.buf[20] == 0x45 && b.buf[20 + 12] == 10 && b.buf[20 + 15] == 1,
		      "GRH area holds the IPv4 header from 10.0.0.1");
	}
	ibv_destroy_ah(ah);
	t_end_close(&a);
	t_end_close(&b);

	/* UC */
	if (t_end_open(&a, 0, 8192, 16, NULL) || t_end_open(&b, 1, 8192, 16, NULL) ||
	    t_qp_create(&a, IBV_QPT_UC, NULL) || t_qp_create(&b, IBV_QPT_UC, NULL)) {
		CHECK(0, "UC setup failed");
		return;
	}
	CHECK_EQ(t_connect(&a, &b), 0, "connect UC");
	fill(a.buf, 3000, 4);
	CHECK_EQ(post_recv(&b, 1, 4096, 4000), 0, "UC post recv");
	CHECK_EQ(post_send(&a, IBV_WR_SEND, 2, 0, 3000, 0, 0, 0), 0, "UC post send");
	CHECK_EQ(t_poll(a.cq, wc, 1), 1, "UC send completion");
	CHECK_EQ(t_poll(b.cq, wc, 1), 1, "UC recv completion");
	CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].byte_len == 3000, "UC wc");
	CHECK(!memcmp(a.buf, b.buf + 4096, 3000), "UC payload (3 packets)");
	t_end_close(&a);
	t_end_close(&b);
}

int main(void)
{
	CHECK_EQ(hcasim_shim_configure(T_CONFIG_TWO), 0, "configure");
	test_discovery();
	test_rc();
	test_ud_uc();
	hcasim_shim_shutdown();
	return check_done();
}
