// SPDX-License-Identifier: MIT
/*
 * Cooperative mode is deterministic (ARCHITECTURE contract 6): the same
 * configuration and the same verbs calls give the same completions at the
 * same device cycles and the same frames on the wire, byte for byte.  The
 * scenario (RC SENDs, WRITEs and READs of assorted sizes, a UD exchange, an
 * error, events) runs twice in one process, with every HCA re-created in
 * between; each run records every completion with its cycle, and each HCA
 * captures what it transmits (config `pcap`).  The two runs must agree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shim_test.h"

#define MAX_REC 512

struct rec {
	uint64_t cycle, wr_id;
	uint32_t status, opcode, byte_len, qp_num;
};

struct run {
	struct rec r[MAX_REC];
	unsigned int n;
	uint64_t end_cycle[2];
	uint64_t sent, delivered, dropped;
};

static void record(struct run *run, struct t_end *e, struct ibv_wc *wc, int n)
{
	for (int i = 0; i < n && run->n < MAX_REC; i++)
		run->r[run->n++] = (struct rec){ hcasim_shim_now(e->ctx), wc[i].wr_id, wc[i].status,
						 wc[i].opcode, wc[i].byte_len, wc[i].qp_num };
}

static int scenario(const char *dir, struct run *run, const char *faults)
{
	char cfg[1024];
	struct t_end a, b;
	struct ibv_wc wc[16];
	struct ibv_mr *tmr;
	int n;

	snprintf(cfg, sizeof(cfg),
		 "mode = cooperative\n%s"
		 "[hcasim0]\nip = 10.0.0.1\nwire = det\npcap = %s/a.pcap\n"
		 "[hcasim1]\nip = 10.0.0.2\nwire = det\npcap = %s/b.pcap\n", faults, dir, dir);
	memset(run, 0, sizeof(*run));
	if (hcasim_shim_configure(cfg))
		return -1;
	if (t_end_open(&a, 0, 256 * 1024, 128, NULL) || t_end_open(&b, 1, 256 * 1024, 128, NULL) ||
	    t_qp_create(&a, IBV_QPT_RC, NULL) || t_qp_create(&b, IBV_QPT_RC, NULL) || t_connect(&a, &b))
		return -1;
	/* RDMA targets go by a fixed IOVA: heap addresses differ between runs and
	 * would show up in the RETH. */
	tmr = ibv_reg_mr_iova(b.pd, b.buf + 65536, 65536, 0x4000000,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!tmr)
		return -1;
	for (unsigned int i = 0; i < 40; i++) {
		uint32_t len = 1 + (i * 7919) % 20000;
		struct ibv_sge rs = { .addr = (uintptr_t)b.buf, .length = 64 * 1024, .lkey = b.mr->lkey };
		struct ibv_recv_wr rw = { .wr_id = 1000 + i, .sg_list = &rs, .num_sge = 1 }, *rbad;
		struct ibv_sge ss = { .addr = (uintptr_t)a.buf, .length = len, .lkey = a.mr->lkey };
		struct ibv_send_wr sw = { .wr_id = i, .sg_list = &ss, .num_sge = 1,
					  .send_flags = IBV_SEND_SIGNALED }, *sbad;

		memset(a.buf, (int)i, len);
		switch (i % 3) {
		case 0:
			sw.opcode = IBV_WR_SEND;
			if (ibv_post_recv(b.qp, &rw, &rbad))
				return -1;
			break;
		case 1:
			sw.opcode = IBV_WR_RDMA_WRITE;
			sw.wr.rdma.remote_addr = 0x4000000;
			sw.wr.rdma.rkey = tmr->rkey;
			break;
		default:
			sw.opcode = IBV_WR_RDMA_READ;
			sw.wr.rdma.remote_addr = 0x4000000;
			sw.wr.rdma.rkey = tmr->rkey;
			break;
		}
		if (ibv_post_send(a.qp, &sw, &sbad))
			return -1;
		/* Interleave stepping with posting, differently for each message. */
		for (unsigned int k = 0; k < i % 5; k++)
			hcasim_shim_step();
		n = ibv_poll_cq(a.cq, 16, wc);
		record(run, &a, wc, n);
		n = ibv_poll_cq(b.cq, 16, wc);
		record(run, &b, wc, n);
	}
	/* A bad rkey to end with: error completion, flush, async event. */
	{
		struct ibv_sge ss = { .addr = (uintptr_t)a.buf, .length = 8, .lkey = a.mr->lkey };
		struct ibv_send_wr sw = { .wr_id = 99, .sg_list = &ss, .num_sge = 1,
					  .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED },
				   *sbad;

		sw.wr.rdma.remote_addr = 0x4000000;
		sw.wr.rdma.rkey = 0xdead00;
		if (ibv_post_send(a.qp, &sw, &sbad))
			return -1;
	}
	/* Everything completes (with faults: after retransmissions; an ACK
	 * timeout is 2^24 cycles) - give it up to 2^31 cycles. */
	{
		uint64_t t0 = hcasim_shim_now(a.ctx);

		while (run->n < 55 && hcasim_shim_now(a.ctx) - t0 < (1ull << 31)) {
			n = ibv_poll_cq(a.cq, 16, wc);
			record(run, &a, wc, n);
			n = ibv_poll_cq(b.cq, 16, wc);
			record(run, &b, wc, n);
		}
		hcasim_shim_run(0);
	}
	run->end_cycle[0] = hcasim_shim_now(a.ctx);
	run->end_cycle[1] = hcasim_shim_now(b.ctx);
	hcasim_shim_wire_counters("det", &run->sent, &run->delivered, &run->dropped);
	ibv_dereg_mr(tmr);
	t_end_close(&a);
	t_end_close(&b);
	hcasim_shim_shutdown();
	return 0;
}

static long read_file(const char *path, uint8_t **out)
{
	FILE *f = fopen(path, "rb");
	long len;

	*out = NULL;
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	*out = malloc((size_t)len + 1);
	if (!*out || fread(*out, 1, (size_t)len, f) != (size_t)len)
		len = -1;
	fclose(f);
	return len;
}

/* Run the scenario twice in d1 and d2 and check both runs agree. */
static void twice(const char *what, const char *d1, const char *d2, const char *faults,
		  struct run *r1, struct run *r2)
{
	char p1[96], p2[96];
	uint8_t *f1, *f2;
	long l1, l2;
	int errs = 0, faulty = *faults != 0;

	mkdir(d1, 0700);
	mkdir(d2, 0700);
	T_EQ(scenario(d1, r1, faults), 0, "%s: first run", what);
	T_EQ(scenario(d2, r2, faults), 0, "%s: second run (HCAs re-created)", what);
	/* 40 requests + 14 receives (every third request is a SEND) + the bad WRITE */
	CHECK(r1->n == 55, "%s: every work request completed (%u completions)", what, r1->n);
	T_EQ(r1->n, r2->n, "%s: same number of completions", what);
	CHECK(!memcmp(r1->r, r2->r, sizeof(r1->r)), "%s: same completions at the same cycles", what);
	T_EQ(r1->end_cycle[0], r2->end_cycle[0], "%s: same final cycle on HCA 0", what);
	T_EQ(r1->end_cycle[1], r2->end_cycle[1], "%s: same final cycle on HCA 1", what);
	T_EQ(r1->dropped, r2->dropped, "%s: same drops", what);
	/*
	 * Exactly one error has a cause; everything else that fails is flushed
	 * behind it (only with faults).  The cause is the bad WRITE's remote
	 * access error -- unless, on the lossy wire, an earlier READ lost its
	 * response: the NAK then is an implicit NAK for that READ (IB 9.7.5.1,
	 * as rxe), the READ is retried against a responder that went to ERR
	 * with its NAK, and it ends in RETRY_EXC_ERR.
	 */
	for (unsigned int i = 0; i < r1->n; i++) {
		const struct rec *c = &r1->r[i];
		int lost_read = faulty && c->wr_id < 40 && c->wr_id % 3 == 2 &&
				c->status == IBV_WC_RETRY_EXC_ERR;

		if (c->status == IBV_WC_SUCCESS)
			continue;
		if ((c->wr_id == 99 && c->status == IBV_WC_REM_ACCESS_ERR) || lost_read)
			errs++;
		else if (c->status != IBV_WC_WR_FLUSH_ERR || !faulty || !errs)
			CHECK(0, "%s: completion %u (wr_id %llu): %s", what, i,
			      (unsigned long long)c->wr_id, ibv_wc_status_str(c->status));
	}
	T_EQ(errs, 1, "%s: one cause: the bad rkey's remote access error (or a READ whose response was lost, retried)", what);
	for (int h = 0; h < 2; h++) {
		snprintf(p1, sizeof(p1), "%s/%c.pcap", d1, h ? 'b' : 'a');
		snprintf(p2, sizeof(p2), "%s/%c.pcap", d2, h ? 'b' : 'a');
		l1 = read_file(p1, &f1);
		l2 = read_file(p2, &f2);
		CHECK(l1 > 24 + 16 * 50, "%s: HCA %d captured its frames (%ld bytes)", what, h, l1);
		CHECK(l1 == l2 && l1 > 0 && !memcmp(f1, f2, (size_t)l1),
		      "%s: HCA %d: both runs put the same bytes on the wire at the same cycles", what, h);
		free(f1);
		free(f2);
		unlink(p1);
		unlink(p2);
	}
	rmdir(d1);
	rmdir(d2);
}

int main(void)
{
	char tmpl[] = "/tmp/hcasim-det.XXXXXX", d1[64], d2[64];
	char *dir = mkdtemp(tmpl);
	static struct run r1, r2, f1, f2;

	CHECK(dir != NULL, "scratch directory");
	if (!dir)
		return check_done();
	snprintf(d1, sizeof(d1), "%s/1", dir);
	snprintf(d2, sizeof(d2), "%s/2", dir);
	twice("clean wire", d1, d2, "", &r1, &r2);
	CHECK_EQ(r1.dropped, 0, "clean wire: nothing dropped");
	/* Seeded faults on the in-process wire: RC recovers, and identically. */
	twice("lossy wire", d1, d2,
	      "wire_seed = 7\nwire_drop = 0.05\nwire_dup = 0.02\nwire_reorder = 0.03\n", &f1, &f2);
	CHECK(f1.dropped > 0, "lossy wire: frames were dropped (%llu)", (unsigned long long)f1.dropped);
	CHECK(f1.sent > r1.sent, "lossy wire: retransmissions (%llu frames vs %llu)",
	      (unsigned long long)f1.sent, (unsigned long long)r1.sent);
	rmdir(dir);
	return check_done();
}
