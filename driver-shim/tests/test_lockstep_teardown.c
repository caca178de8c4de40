// SPDX-License-Identifier: MIT
/*
 * A QP destroyed while the last SEND to it is still on its way through the
 * DUT (docs/sim.md section 1, "Context writes"): the lockstep backend must
 * not report the untimed reference's answer to that SEND as "missing".
 *
 * Cooperative mode, two HCAs: hcasim0 on the model sends one 4 KiB SEND
 * (four packets) to hcasim1, which runs lockstep(model, model-mutant) with
 * its DUT `lag` cycles late (received frames and doorbells reach it that
 * much later: a slow DUT, as the RTL is).  As soon as the wire has
 * delivered the four packets -- the reference has answered them, the DUT
 * has not even started -- hcasim1 destroys its QP, as ibv_srq_pingpong's
 * last iteration does (shim_rtl_pingpong's divergence of 26 Nov).  The
 * context write that resets the QP must first let the DUT catch up, so:
 *  - no divergence is reported (the report file stays absent);
 *  - the sender's SEND completes successfully: the DUT's ACK left before the
 *    QP was gone, as the model alone would have sent it;
 *  - the message is in the receiver's buffer (its completion went with the
 *    QP: a destroyed QP's CQEs are purged from the CQ, as providers do).
 * And the catch-up hides no bug: with the DUT's ACK planted missing
 * (dut.bug=drop_ack) the same teardown reports the ACK missing in stream tx.
 *
 * --dut rtl (shim_lockstep_teardown_rtl, linked with the RTL): the same
 * against lockstep(model, rtl), with the RTL's own drop_ack bug.  In
 * cooperative mode the destroy's wait for the device (shim_device_quiesce)
 * lets the RTL finish first, so this variant passes with or without the
 * catch-up; it checks the RTL's side of the teardown and the planted bug.
 * Then hcasim1 on the plain rtl backend, host memory at its default latency
 * and slow (a payload write answered after 900 cycles): the destroy's wait
 * must see a device waiting for host memory as busy, though the RTL skips
 * those quiet cycles and reports the response's cycle as its next event
 * (driver-shim/device.c dev_busy(); before, the wait ended there, the QP was
 * reset before its ACK left and the SEND failed with RETRY_EXC_ERR).
 *
 *   shim_lockstep_teardown [-v] [--dut NAME]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim_test.h"

#define MSG 4096

static int verbose;

static int file_has(const char *path, const char *text)
{
	char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	if (verbose)
		fputs(buf, stdout);
	return strstr(buf, text) != NULL;
}

/* Step until the wire has delivered `n` frames in all (or nothing is left to do). */
static int wait_delivered(uint64_t n)
{
	uint64_t sent = 0, delivered = 0, dropped = 0;

	for (unsigned int k = 0; k < 1000000; k++) {
		if (hcasim_shim_wire_counters("lan", &sent, &delivered, &dropped) || delivered >= n)
			break;
		if (hcasim_shim_step() == 0)
			break;
	}
	return delivered >= n;
}

/* hcasim1 on `backend`: "lockstep" (options: the DUT's, the reference is the
 * model) or "rtl" alone (options: the RTL's). */
static void teardown_case(const char *what, const char *backend, const char *opts, int expect_clean)
{
	int ls = strcmp(backend, "lockstep") == 0;
	char cfg[1024], report[256], o[512];
	struct t_end a, b;
	struct ibv_sge sge;
	struct ibv_recv_wr rwr = { 0 }, *rbad;
	struct ibv_send_wr swr = { 0 }, *sbad;
	struct ibv_wc wc;
	uint64_t sent0 = 0, delivered0 = 0, dropped0 = 0;
	int n;

	snprintf(report, sizeof(report), "%s/hcasim-teardown-%d.txt", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		 (int)getpid());
	unlink(report);
	if (ls)
		snprintf(o, sizeof(o), "ref=model,%s,quiet=1,report=%s", opts, report);
	else
		snprintf(o, sizeof(o), "%s", opts);
	snprintf(cfg, sizeof(cfg),
		 "mode = cooperative\n"
		 "[hcasim0]\nip = 10.0.0.1\nwire = lan\n"
		 "[hcasim1]\nip = 10.0.0.2\nwire = lan\nbackend = %s\noptions = %s\n",
		 backend, o);
	CHECK(hcasim_shim_configure(cfg) == 0, "%s: configuration", what);
	if (t_end_open(&a, 0, 2 * MSG, 16, NULL) || t_end_open(&b, 1, 2 * MSG, 16, NULL) ||
	    t_qp_create(&a, IBV_QPT_RC, NULL) || t_qp_create(&b, IBV_QPT_RC, NULL) || t_connect(&a, &b)) {
		CHECK(0, "%s: set up two connected RC QPs", what);
		hcasim_shim_shutdown();
		return;
	}
	hcasim_shim_run(1u << 20);	/* connection set-up settled */
	hcasim_shim_wire_counters("lan", &sent0, &delivered0, &dropped0);

	for (int i = 0; i < MSG; i++)
		a.buf[i] = (uint8_t)(i * 7 + 3);
	sge = (struct ibv_sge){ (uintptr_t)b.buf, MSG, b.mr->lkey };
	rwr.wr_id = 2;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	CHECK(ibv_post_recv(b.qp, &rwr, &rbad) == 0, "%s: receive posted", what);
	hcasim_shim_run(1u << 20);
	sge = (struct ibv_sge){ (uintptr_t)a.buf, MSG, a.mr->lkey };
	swr.wr_id = 1;
	swr.sg_list = &sge;
	swr.num_sge = 1;
	swr.opcode = IBV_WR_SEND;
	swr.send_flags = IBV_SEND_SIGNALED;
	CHECK(ibv_post_send(a.qp, &swr, &sbad) == 0, "%s: SEND posted", what);
	CHECK(wait_delivered(delivered0 + MSG / 1024), "%s: the four packets reached hcasim1", what);

	/* Now: the reference has answered, the DUT is still `lag` cycles away. */
	CHECK(ibv_destroy_qp(b.qp) == 0, "%s: receiver's QP destroyed", what);
	b.qp = NULL;

	n = t_poll(a.cq, &wc, 1);
	if (expect_clean) {
		T_EQ(n, 1, "%s: the sender's SEND completed", what);
		if (n == 1)
			T_EQ(wc.status, IBV_WC_SUCCESS, "%s: ... successfully (%s)", what, ibv_wc_status_str(wc.status));
		CHECK(memcmp(b.buf, a.buf, MSG) == 0, "%s: the receiver's buffer holds the message", what);
		if (ls)
			CHECK(access(report, F_OK) != 0, "%s: no lockstep divergence reported", what);
	} else {
		hcasim_shim_run(1u << 20);
		CHECK(access(report, F_OK) == 0, "%s: a lockstep divergence is reported", what);
		CHECK(file_has(report, "stream tx") && file_has(report, "RC_ACKNOWLEDGE"),
		      "%s: ... the ACK, missing in stream tx", what);
	}
	unlink(report);
	t_end_close(&a);
	t_end_close(&b);
	hcasim_shim_shutdown();
}

int main(int argc, char **argv)
{
	const char *dut = "model-mutant";
	char o[128];

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "-v") == 0)
			verbose = 1;
		else if (strcmp(argv[i], "--dut") == 0 && i + 1 < argc)
			dut = argv[++i];
	if (strcmp(dut, "model-mutant") == 0) {
		teardown_case("DUT on time", "lockstep", "dut=model-mutant,dut.lag=0", 1);
		teardown_case("DUT 3000 cycles late", "lockstep", "dut=model-mutant,dut.lag=3000", 1);
		teardown_case("DUT 3000 cycles late, its ACK dropped", "lockstep",
			      "dut=model-mutant,dut.lag=3000,dut.bug=drop_ack,dut.at=1", 0);
	} else {
		snprintf(o, sizeof(o), "dut=%s", dut);
		teardown_case(dut, "lockstep", o, 1);
		snprintf(o, sizeof(o), "dut=%s,dut.bug=drop_ack", dut);
		teardown_case("its ACK dropped", "lockstep", o, 0);
		teardown_case("plain rtl", "rtl", "", 1);
		teardown_case("plain rtl, slow host memory", "rtl", "wr_lat=900,rd_lat=300", 1);
	}
	return check_done();
}
