// SPDX-License-Identifier: MIT
/*
 * Completion channels and the async fd, with the kernel's semantics that
 * event loops rely on: the fds are pollable with epoll/poll, a read takes
 * one event, an empty non-blocking fd gives EAGAIN, an armed CQ gives one
 * event per arming, solicited-only arming ignores unsolicited completions.
 * Async events carry the right element: SRQ limit reached (the SRQ),
 * remote access error (the responder's QP), CQ overflow (the CQ).
 * Cooperative mode: the test steps the simulation; results are exact.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <unistd.h>

#include "shim_test.h"

static int set_nonblock(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);

	return fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

static int epoll_ready(int ep)
{
	struct epoll_event ev[4];

	return epoll_wait(ep, ev, 4, 0);
}

static int post_recv(struct t_end *e, uint64_t id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf + 4096, .length = 256, .lkey = e->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(e->qp, &wr, &bad);
}

static int post_send(struct t_end *e, uint64_t id, unsigned int flags)
{
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf, .length = 32, .lkey = e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED | flags }, *bad;

	return ibv_post_send(e->qp, &wr, &bad);
}

static void drain(struct ibv_cq *cq)
{
	struct ibv_wc wc[8];

	while (ibv_poll_cq(cq, 8, wc) > 0)
		;
}

static void test_channel(void)
{
	struct ibv_comp_channel *ch;
	struct t_end a, b;
	struct ibv_cq *cq;
	void *cq_ctx;
	struct epoll_event ev = { .events = EPOLLIN };
	struct ibv_wc wc;
	int ep;

	if (t_end_open(&a, 0, 8192, 16, NULL) || t_end_open(&b, 1, 8192, 16, &ch) ||
	    t_qp_create(&a, IBV_QPT_RC, NULL) || t_qp_create(&b, IBV_QPT_RC, NULL) ||
	    t_connect(&a, &b)) {
		CHECK(0, "setup: %s", strerror(errno));
		return;
	}
	CHECK_EQ(ch->fd >= 0, 1, "channel has an fd");
	CHECK_EQ(b.cq->channel == ch, 1, "CQ bound to the channel");
	CHECK_EQ(ibv_destroy_comp_channel(ch), EBUSY, "channel in use cannot be destroyed");

	CHECK_EQ(set_nonblock(ch->fd, 1), 0, "O_NONBLOCK on the channel fd");
	ep = epoll_create1(EPOLL_CLOEXEC);
	ev.data.fd = ch->fd;
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, ch->fd, &ev), 0, "epoll on the channel fd");

	/* Empty: EAGAIN, nothing to epoll. */
	errno = 0;
	CHECK_EQ(ibv_get_cq_event(ch, &cq, &cq_ctx), -1, "get on an empty non-blocking channel");
	CHECK_EQ(errno, EAGAIN, "errno EAGAIN");
	CHECK_EQ(epoll_ready(ep), 0, "epoll: nothing ready");

	/* Armed: one event for the first completion. */
	CHECK_EQ(ibv_req_notify_cq(b.cq, 0), 0, "arm");
	CHECK_EQ(post_recv(&b, 1), 0, "post recv");
	CHECK_EQ(post_recv(&b, 2), 0, "post recv");
	CHECK_EQ(post_send(&a, 10, 0), 0, "send");
	hcasim_shim_run(0);
	CHECK_EQ(epoll_ready(ep), 1, "epoll: channel readable after the completion");
	CHECK_EQ(ibv_get_cq_event(ch, &cq, &cq_ctx), 0, "get the event");
	CHECK(cq == b.cq && cq_ctx == &b, "event names the CQ and its context");
	CHECK_EQ(ibv_get_cq_event(ch, &cq, &cq_ctx), -1, "one event per arming");
	CHECK_EQ(errno, EAGAIN, "then EAGAIN");
	CHECK_EQ(epoll_ready(ep), 0, "epoll: drained");
	ibv_ack_cq_events(b.cq, 1);
	CHECK_EQ(ibv_poll_cq(b.cq, 1, &wc), 1, "the completion is in the CQ");
	CHECK_EQ(wc.wr_id, 1, "first receive");
	drain(a.cq);

	/* Not re-armed: a completion, no event. */
	CHECK_EQ(post_send(&a, 11, 0), 0, "send");
	hcasim_shim_run(0);
	CHECK_EQ(epoll_ready(ep), 0, "no event without arming");
	CHECK_EQ(ibv_poll_cq(b.cq, 1, &wc), 1, "completion present");
	drain(a.cq);

	/* Solicited only: an unsolicited SEND does not fire, a solicited one does. */
	CHECK_EQ(post_recv(&b, 3), 0, "post recv");
	CHECK_EQ(post_recv(&b, 4), 0, "post recv");
	CHECK_EQ(ibv_req_notify_cq(b.cq, 1), 0, "arm solicited-only");
	CHECK_EQ(post_send(&a, 12, 0), 0, "unsolicited send");
	hcasim_shim_run(0);
	CHECK_EQ(epoll_ready(ep), 0, "no event for an unsolicited completion");
	CHECK_EQ(post_send(&a, 13, IBV_SEND_SOLICITED), 0, "solicited send");
	hcasim_shim_run(0);
	CHECK_EQ(epoll_ready(ep), 1, "event for the solicited completion");
	{
		struct pollfd p = { .fd = ch->fd, .events = POLLIN };
		fd_set rs;
		struct timeval tv = { 0, 0 };

		CHECK_EQ(poll(&p, 1, 0), 1, "poll(2) sees it too");
		FD_ZERO(&rs);
		FD_SET(ch->fd, &rs);
		CHECK_EQ(select(ch->fd + 1, &rs, NULL, NULL, &tv), 1, "select(2) sees it too");
	}
	CHECK_EQ(ibv_get_cq_event(ch, &cq, &cq_ctx), 0, "get the solicited event");
	ibv_ack_cq_events(cq, 1);
	drain(b.cq);
	drain(a.cq);

	/* Two armings, two events queued; reads take them one at a time. */
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(post_recv(&b, 20 + (unsigned)i), 0, "post recv");
		CHECK_EQ(ibv_req_notify_cq(b.cq, 0), 0, "arm");
		CHECK_EQ(post_send(&a, 30 + (unsigned)i, 0), 0, "send");
		hcasim_shim_run(0);
		drain(b.cq);
	}
	CHECK_EQ(ibv_get_cq_event(ch, &cq, &cq_ctx), 0, "first of two events");
	CHECK_EQ(ibv_get_cq_event(ch, &cq, &cq_ctx), 0, "second of two events");
	CHECK_EQ(ibv_get_cq_event(ch, &cq, &cq_ctx), -1, "no third");
	ibv_ack_cq_events(cq, 2);
	drain(a.cq);

	/* Blocking get in cooperative mode runs the simulation until the event. */
	CHECK_EQ(set_nonblock(ch->fd, 0), 0, "blocking again");
	CHECK_EQ(post_recv(&b, 40), 0, "post recv");
	CHECK_EQ(ibv_req_notify_cq(b.cq, 0), 0, "arm");
	CHECK_EQ(post_send(&a, 41, 0), 0, "send");
	CHECK_EQ(ibv_get_cq_event(ch, &cq, &cq_ctx), 0, "blocking get returns the event");
	ibv_ack_cq_events(cq, 1);
	errno = 0;
	CHECK_EQ(ibv_get_cq_event(ch, &cq, &cq_ctx), -1, "blocking get with nothing left to simulate");
	CHECK_EQ(errno, EDEADLK, "fails with EDEADLK instead of hanging");
	drain(b.cq);
	drain(a.cq);

	close(ep);
	t_end_close(&a);
	t_end_close(&b);
	CHECK_EQ(ibv_destroy_comp_channel(ch), 0, "destroy the channel after its CQ");
}

static int async_get(struct ibv_context *ctx, struct ibv_async_event *e)
{
	hcasim_shim_run(0);
	return ibv_get_async_event(ctx, e);
}

static void test_async(void)
{
	struct t_end a, b;
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq_attr sa = { .srq_limit = 4 };
	struct ibv_async_event e;
	struct ibv_srq *srq;
	struct ibv_wc wc[8];
	struct epoll_event ev = { .events = EPOLLIN };
	int ep;

	if (t_end_open(&a, 0, 8192, 64, NULL) || t_end_open(&b, 1, 8192, 64, NULL)) {
		CHECK(0, "setup");
		return;
	}
	srq = ibv_create_srq(b.pd, &sia);
	CHECK(srq != NULL, "create SRQ");
	if (!srq)
		return;
	if (t_qp_create(&a, IBV_QPT_RC, NULL) || t_qp_create(&b, IBV_QPT_RC, srq) || t_connect(&a, &b)) {
		CHECK(0, "QPs");
		return;
	}
	CHECK_EQ(set_nonblock(b.ctx->async_fd, 1), 0, "O_NONBLOCK on async_fd");
	ep = epoll_create1(EPOLL_CLOEXEC);
	CHECK_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, b.ctx->async_fd, &ev), 0, "epoll on async_fd");
	CHECK_EQ(ibv_get_async_event(b.ctx, &e), -1, "no async event yet");
	CHECK_EQ(errno, EAGAIN, "EAGAIN");

	/* SRQ limit: 8 posted, limit 4, 5 consumed -> 3 left < 4 -> one event. */
	for (unsigned int i = 0; i < 8; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)b.buf + 256 * i, .length = 256,
				       .lkey = b.mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = 100 + i, .sg_list = &sge, .num_sge = 1 }, *bad;

		CHECK_EQ(ibv_post_srq_recv(srq, &wr, &bad), 0, "post SRQ recv");
	}
	CHECK_EQ(ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT), 0, "arm SRQ limit 4");
	for (unsigned int i = 0; i < 4; i++)
		CHECK_EQ(post_send(&a, 200 + i, 0), 0, "send");
	hcasim_shim_run(0);
	CHECK_EQ(epoll_ready(ep), 0, "4 left: limit not crossed");
	CHECK_EQ(post_send(&a, 204, 0), 0, "fifth send");
	hcasim_shim_run(0);
	CHECK_EQ(epoll_ready(ep), 1, "async_fd readable");
	CHECK_EQ(ibv_get_async_event(b.ctx, &e), 0, "get async event");
	CHECK_EQ(e.event_type, IBV_EVENT_SRQ_LIMIT_REACHED, "SRQ limit reached");
	CHECK(e.element.srq == srq, "element is the SRQ");
	ibv_ack_async_event(&e);
	CHECK_EQ(ibv_get_async_event(b.ctx, &e), -1, "only one (the limit disarms)");
	{
		int n = t_poll(b.cq, wc, 5);

		CHECK_EQ(n, 5, "five SRQ receives completed");
		for (int i = 0; i < n; i++)
			CHECK(wc[i].status == IBV_WC_SUCCESS && wc[i].wr_id == 100u + (unsigned)i &&
			      wc[i].qp_num == b.qp->qp_num, "SRQ receive %d: wr_id %lu", i,
			      (unsigned long)wc[i].wr_id);
	}
	drain(a.cq);

	/* Remote access error: WRITE with a bad rkey. The requester completes with
	 * REM_ACCESS_ERR, the responder QP reports QP_ACCESS_ERR. */
	{
		struct ibv_sge sge = { .addr = (uintptr_t)a.buf, .length = 64, .lkey = a.mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 300, .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED },
				   *bad;

		wr.wr.rdma.remote_addr = (uintptr_t)b.buf;
		wr.wr.rdma.rkey = b.mr->rkey ^ 0x5500;	/* another index: not a key of b */
		memset(b.buf, 0x77, 64);
		CHECK_EQ(ibv_post_send(a.qp, &wr, &bad), 0, "post WRITE with a bad rkey");
		wr.wr_id = 301;
		wr.wr.rdma.rkey = b.mr->rkey;
		CHECK_EQ(ibv_post_send(a.qp, &wr, &bad), 0, "post a second WRITE behind it");
		CHECK_EQ(t_poll(a.cq, wc, 2), 2, "two completions at the requester");
		CHECK(wc[0].wr_id == 300 && wc[0].status == IBV_WC_REM_ACCESS_ERR,
		      "first: remote access error (got %s)", ibv_wc_status_str(wc[0].status));
		CHECK(wc[1].wr_id == 301 && wc[1].status == IBV_WC_WR_FLUSH_ERR,
		      "second: flushed (got %s)", ibv_wc_status_str(wc[1].status));
		CHECK(b.buf[0] == 0x77 && b.buf[63] == 0x77, "target memory untouched");
		CHECK_EQ(async_get(b.ctx, &e), 0, "responder async event");
		CHECK_EQ(e.event_type, IBV_EVENT_QP_ACCESS_ERR, "QP access error");
		CHECK(e.element.qp == b.qp, "element is the responder QP");
		ibv_ack_async_event(&e);
		{
			struct ibv_qp_attr qa;
			struct ibv_qp_init_attr qia;

			CHECK_EQ(ibv_query_qp(b.qp, &qa, IBV_QP_STATE, &qia), 0, "query responder QP");
			CHECK_EQ(qa.qp_state, IBV_QPS_ERR, "responder QP in ERR");
			CHECK_EQ(ibv_query_qp(a.qp, &qa, IBV_QP_STATE, &qia), 0, "query requester QP");
			CHECK_EQ(qa.qp_state, IBV_QPS_ERR, "requester QP in ERR");
		}
	}
	/* A QP on an SRQ that entered ERR: last WQE reached. */
	{
		int last = 0;

		while (async_get(b.ctx, &e) == 0) {
			if (e.event_type == IBV_EVENT_QP_LAST_WQE_REACHED && e.element.qp == b.qp)
				last = 1;
			ibv_ack_async_event(&e);
		}
		CHECK(last, "QP_LAST_WQE_REACHED for the SRQ's QP in ERR");
	}
	close(ep);
	CHECK_EQ(ibv_destroy_qp(b.qp), 0, "destroy responder QP (events acked)");
	b.qp = NULL;
	CHECK_EQ(ibv_destroy_srq(srq), 0, "destroy SRQ (events acked)");
	t_end_close(&a);
	t_end_close(&b);
}

static void test_cq_overflow(void)
{
	struct t_end a, b;
	struct ibv_async_event e;
	int cq_err = 0, qp_fatal = 0;

	/* a's CQ has 2 entries: the third completion overflows it. */
	if (t_end_open(&a, 0, 8192, 2, NULL) || t_end_open(&b, 1, 8192, 64, NULL) ||
	    t_qp_create(&a, IBV_QPT_RC, NULL) || t_qp_create(&b, IBV_QPT_RC, NULL) ||
	    t_connect(&a, &b)) {
		CHECK(0, "setup");
		return;
	}
	CHECK_EQ(a.cq->cqe, 2, "CQ of 2 entries");
	for (unsigned int i = 0; i < 3; i++) {
		CHECK_EQ(post_recv(&b, i), 0, "post recv");
		CHECK_EQ(post_send(&a, i, 0), 0, "send");
	}
	hcasim_shim_run(0);
	CHECK_EQ(set_nonblock(a.ctx->async_fd, 1), 0, "non-blocking async fd");
	while (ibv_get_async_event(a.ctx, &e) == 0) {
		if (e.event_type == IBV_EVENT_CQ_ERR && e.element.cq == a.cq)
			cq_err = 1;
		if (e.event_type == IBV_EVENT_QP_FATAL && e.element.qp == a.qp)
			qp_fatal = 1;
		ibv_ack_async_event(&e);
	}
	CHECK(cq_err, "IBV_EVENT_CQ_ERR naming the overflowed CQ");
	CHECK(qp_fatal, "IBV_EVENT_QP_FATAL naming the QP whose completion was lost");
	t_end_close(&a);
	t_end_close(&b);
}

int main(void)
{
	CHECK_EQ(hcasim_shim_configure(T_CONFIG_TWO), 0, "configure");
	test_channel();
	test_async();
	test_cq_overflow();
	hcasim_shim_shutdown();
	return check_done();
}
