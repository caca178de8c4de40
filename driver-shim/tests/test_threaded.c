// SPDX-License-Identifier: MIT
/*
 * Threaded mode in one process: two simulated HCAs, each with its device
 * thread (as under LD_PRELOAD), on an in-process segment.  A receiver thread
 * sleeps in blocking ibv_get_cq_event / epoll_wait with a timeout while the
 * main thread sends; every message is checked byte for byte.  Async events
 * wake a blocking ibv_get_async_event.  An application that busy-polled and
 * then sleeps still gets its work done (by the device thread).  Run under
 * ASan like every C test,
 * so the device threads' memory accesses are checked too.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "shim_test.h"

#define MSGS 200
#define MSG_LEN 3000

static struct t_end a, b;
static struct ibv_comp_channel *ch;
static int rx_ok, rx_bad, rx_events;

static int post_recv(unsigned int i)
{
	struct ibv_sge sge = { .addr = (uintptr_t)b.buf + (i % 16) * 4096, .length = 4096,
			       .lkey = b.mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(b.qp, &wr, &bad);
}

/* Poll until empty, checking and re-posting; returns -1 on a bad completion. */
static unsigned int drain(struct ibv_cq *cq, unsigned int got)
{
	struct ibv_wc wc[8];
	int n;

	while ((n = ibv_poll_cq(cq, 8, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			const uint8_t *p = b.buf + (wc[i].wr_id % 16) * 4096;
			int good = wc[i].status == IBV_WC_SUCCESS && wc[i].byte_len == MSG_LEN &&
				   wc[i].wr_id == got;

			for (unsigned int k = 0; good && k < MSG_LEN; k++)
				good = p[k] == (uint8_t)(got * 13 + k);
			good ? rx_ok++ : rx_bad++;
			got++;
			if (got + 15 < MSGS + 16 && post_recv(got + 15))
				rx_bad++;
		}
	}
	return got;
}

static void *receiver(void *arg)
{
	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned int got = 0;

	(void)arg;
	epoll_ctl(ep, EPOLL_CTL_ADD, ch->fd, &ev);
	/* The verbs pattern: arm, then poll (completions that came before the arm
	 * raise no event), then sleep until the event. */
	ibv_req_notify_cq(b.cq, 0);
	got = drain(b.cq, got);
	while (got < MSGS) {
		struct ibv_cq *cq;
		void *ctx;

		/* Odd rounds: epoll with a timeout first; even rounds: a plain blocking read. */
		if (got % 2 && epoll_wait(ep, &ev, 1, 10000) != 1) {
			printf("receiver: no event for 10 s after %u messages\n", got);
			hcasim_shim_dump(a.ctx, stdout);
			hcasim_shim_dump(b.ctx, stdout);
			break;
		}
		if (ibv_get_cq_event(ch, &cq, &ctx)) {
			printf("receiver: ibv_get_cq_event: %s\n", strerror(errno));
			break;
		}
		rx_events++;
		ibv_ack_cq_events(cq, 1);
		if (ibv_req_notify_cq(cq, 0))
			break;
		got = drain(cq, got);
	}
	close(ep);
	return NULL;
}

int main(void)
{
	pthread_t th;
	struct ibv_wc wc[4];
	unsigned int sent = 0, done = 0;
	time_t last = time(NULL);

	setvbuf(stdout, NULL, _IOLBF, 0);

	CHECK_EQ(hcasim_shim_configure("mode = threaded\n"
				       "[hcasim0]\nip = 10.0.0.1\nwire = t\n"
				       "[hcasim1]\nip = 10.0.0.2\nwire = t\n"), 0, "configure");
	if (t_end_open(&a, 0, 64 * 1024, 64, NULL) || t_end_open(&b, 1, 64 * 1024, 64, &ch) ||
	    t_qp_create(&a, IBV_QPT_RC, NULL) || t_qp_create(&b, IBV_QPT_RC, NULL) ||
	    t_connect(&a, &b)) {
		CHECK(0, "setup: %s", strerror(errno));
		return check_done();
	}
	for (unsigned int i = 0; i < 16; i++)
		CHECK_EQ(post_recv(i), 0, "pre-post receive");
	CHECK_EQ(pthread_create(&th, NULL, receiver, NULL), 0, "receiver thread");

	/* Sender: at most 8 in flight, busy-polling its CQ (the device thread runs meanwhile). */
	while (done < MSGS) {
		int n;

		while (sent < MSGS && sent - done < 8) {
			struct ibv_sge sge = { .addr = (uintptr_t)a.buf + (sent % 8) * 4096,
					       .length = MSG_LEN, .lkey = a.mr->lkey };
			struct ibv_send_wr wr = { .wr_id = sent, .sg_list = &sge, .num_sge = 1,
						  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED },
					   *bad;

			for (unsigned int k = 0; k < MSG_LEN; k++)
				a.buf[(sent % 8) * 4096 + k] = (uint8_t)(sent * 13 + k);
			if (ibv_post_send(a.qp, &wr, &bad))
				break;
			sent++;
		}
		n = ibv_poll_cq(a.cq, 4, wc);
		for (int i = 0; i < n; i++)
			if (wc[i].status != IBV_WC_SUCCESS || wc[i].wr_id != done++)
				CHECK(0, "send completion %u: %s", done, ibv_wc_status_str(wc[i].status));
		if (n < 0)
			break;
		if (n > 0)
			last = time(NULL);
		else if (time(NULL) - last > 10) {
			printf("sender: no completion for 10 s after %u of %u sent\n", done, sent);
			hcasim_shim_dump(a.ctx, stdout);
			hcasim_shim_dump(b.ctx, stdout);
			break;
		}
	}
	pthread_join(th, NULL);
	CHECK_EQ(done, MSGS, "every send completed");
	CHECK_EQ(rx_ok, MSGS, "every message arrived intact and in order");
	CHECK_EQ(rx_bad, 0, "no bad message");
	CHECK(rx_events >= 1 && rx_events <= MSGS, "completion events woke the receiver (%d)", rx_events);

	/* An application that busy-polled (its polls do the device's work) and then stops
	 * polling: the device thread takes over (it naps at most 1 ms while the polls run). */
	{
		struct ibv_sge sge = { .addr = (uintptr_t)a.buf, .length = 64, .lkey = a.mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 9, .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED },
				   *bad;
		struct timespec nap = { .tv_nsec = 10 * 1000000L };
		int empty = 0, naps = 0;

		for (int i = 0; i < 1000; i++)
			empty += ibv_poll_cq(a.cq, 1, wc) == 0;
		CHECK_EQ(empty, 1000, "busy polling an empty CQ");
		memset(a.buf, 0x5c, 64);
		memset(b.buf + 8192, 0, 64);
		wr.wr.rdma.remote_addr = (uintptr_t)b.buf + 8192;
		wr.wr.rdma.rkey = b.mr->rkey;
		CHECK_EQ(ibv_post_send(a.qp, &wr, &bad), 0, "WRITE right after the polls");
		/* no poll meanwhile: wait for the data to land (up to 60 s: make test
		 * runs other programs beside this one on a loaded machine) */
		while (naps++ < 6000 && !(b.buf[8192 + 63] == 0x5c && b.buf[8192] == 0x5c))
			nanosleep(&nap, NULL);
		CHECK(b.buf[8192] == 0x5c && b.buf[8192 + 63] == 0x5c,
		      "the WRITE was carried out while the application slept (%d ms)", naps * 10);
		for (naps = 0; naps < 6000 && ibv_poll_cq(a.cq, 1, wc) == 0; naps++)
			nanosleep(&nap, NULL);
		CHECK(naps < 6000, "its completion came");
		CHECK(wc[0].status == IBV_WC_SUCCESS && wc[0].wr_id == 9, "a successful one");
	}

	/* A blocking async-event read wakes on a remote access error. */
	{
		struct ibv_sge sge = { .addr = (uintptr_t)a.buf, .length = 8, .lkey = a.mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED },
				   *bad;
		struct ibv_async_event e;

		wr.wr.rdma.remote_addr = (uintptr_t)b.buf;
		wr.wr.rdma.rkey = 0xbad00;
		CHECK_EQ(ibv_post_send(a.qp, &wr, &bad), 0, "WRITE with a bad rkey");
		CHECK_EQ(ibv_get_async_event(b.ctx, &e), 0, "blocking async read returns");
		CHECK_EQ(e.event_type, IBV_EVENT_QP_ACCESS_ERR, "remote access error");
		CHECK(e.element.qp == b.qp, "on the responder QP");
		ibv_ack_async_event(&e);
		while (ibv_poll_cq(a.cq, 1, wc) == 0)
			;
		CHECK_EQ(wc[0].status, IBV_WC_REM_ACCESS_ERR, "requester sees the NAK");
	}
	t_end_close(&a);
	t_end_close(&b);
	CHECK_EQ(ibv_destroy_comp_channel(ch), 0, "destroy channel");
	hcasim_shim_shutdown();
	return check_done();
}
