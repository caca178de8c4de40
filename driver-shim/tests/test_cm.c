// SPDX-License-Identifier: MIT
/*
 * The connection manager through the librdmacm API, two simulated HCAs in
 * one process (threaded mode, in-process segment), and the CM MAD codec:
 *
 *   - MAD layout against the IB spec's message tables (offsets written out
 *     here from chapter 12, not taken from cm_mad.c), round trips, refusals;
 *   - event channel fd: EAGAIN when O_NONBLOCK and empty, poll() readiness,
 *     one event per read, blocking get;
 *   - RC: resolve/route/connect/accept with private data both ways, data
 *     through the rdma_verbs.h helpers (their own CQs and channels),
 *     DREQ/DREP with DISCONNECTED on both sides;
 *   - an accept 2.5 s late, longer than the REQ's whole resend budget
 *     (16 x 134 ms): the passive side's MRAs keep the connection alive;
 *   - rdma_reject with private data (REJECTED 28), a requester giving up
 *     (REJECTED 1 on the passive side), no listener (REJECTED 8), an
 *     unknown address (ADDR_ERROR);
 *   - UD (SIDR): the peer's QPN and Q_Key in ESTABLISHED;
 *   - rdma_create_ep/rdma_get_request (synchronous ids), rdma_migrate_id,
 *     rdma_destroy_id waiting for the acknowledgement of its events;
 *   - cooperative mode on a wire losing 30 % of the frames: connect and
 *     disconnect still complete (resends on device time), and two runs with
 *     the same seed take the same cycles;
 *   - test_cm_wire.c: Starting PSNs, ACK timeouts and the REP timer on the
 *     wire, against the IB spec (where Linux's CM and ours once differed).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cm_mad.h"
#include "shim_test.h"

#define CONFIG                                   \
	"[hcasim0]\nip = 10.0.0.1\nwire = lan\n" \
	"[hcasim1]\nip = 10.0.0.2\nwire = lan\n"

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static struct sockaddr_in sin_of(const char *ip, uint16_t port)
{
	struct sockaddr_in s = { .sin_family = AF_INET, .sin_port = htons(port) };

	inet_pton(AF_INET, ip, &s.sin_addr);
	return s;
}

/* ---- the MAD codec ------------------------------------------------------------------------ */

static uint32_t be(const uint8_t *p, int n)
{
	uint32_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static void mad_layout(void)
{
	struct cm_msg m, r;
	uint8_t mad[CM_MAD_SIZE];
	const uint8_t *b = mad + 24;	/* the message follows the 24-byte MAD header */
	const uint16_t attrs[] = { CM_ATTR_REQ, CM_ATTR_MRA, CM_ATTR_REJ, CM_ATTR_REP, CM_ATTR_RTU,
				   CM_ATTR_DREQ, CM_ATTR_DREP, CM_ATTR_SIDR_REQ, CM_ATTR_SIDR_REP };
	/* private data offset and size per message (IB spec tables 99-118) */
	const int pd_off[] = { 140, 10, 84, 36, 8, 12, 8, 16, 96 };
	const int pd_len[] = { 92, 222, 148, 196, 224, 220, 224, 216, 136 };

	memset(&m, 0, sizeof(m));
	m.attr = CM_ATTR_REQ;
	m.tid = 0x0102030405060708ull;
	m.local_id = 0xa1a2a3a4;
	m.service_id = 0x0000000001061c06ull;
	m.qpn = 0x123456;
	m.psn = 0xabcdef;
	m.resp_res = 3;
	m.init_depth = 4;
	m.remote_cm_timeout = 15;
	m.local_cm_timeout = 16;
	m.retry_count = 7;
	m.rnr_retry = 6;
	m.max_cm_retries = 15;
	m.mtu = IBV_MTU_4096;
	m.pkey = 0xffff;
	m.local_gid[15] = 0x11;
	m.remote_gid[15] = 0x22;
	m.hop_limit = 64;
	m.local_ack_timeout = 14;
	m.flow_control = 1;
	for (int i = 0; i < CM_REQ_PDATA; i++)
		m.pdata[i] = (uint8_t)(i + 1);
	CHECK_EQ(cm_mad_pack(&m, mad), 0, "pack REQ");
	CHECK(mad[0] == 1 && mad[1] == 0x07 && mad[2] == 2 && mad[3] == 0x03,
	      "MAD header: base version 1, class CM, class version 2, Send");
	CHECK(be(mad + 8, 4) == 0x01020304 && be(mad + 12, 4) == 0x05060708, "TransactionID at byte 8");
	CHECK_EQ(be(mad + 16, 2), 0x0010, "AttributeID REQ at byte 16");
	CHECK_EQ(be(b + 0, 4), 0xa1a2a3a4, "REQ: Local Communication ID at 0");
	CHECK(be(b + 8, 4) == 0x00000000 && be(b + 12, 4) == 0x01061c06, "REQ: ServiceID at 8");
	CHECK_EQ(be(b + 32, 3), 0x123456, "REQ: Local QPN at 32");
	CHECK_EQ(b[35], 3, "REQ: Responder Resources at 35");
	CHECK_EQ(b[39], 4, "REQ: Initiator Depth at 39");
	CHECK_EQ(b[43], 15 << 3 | 1, "REQ: Remote CM Response Timeout, transport RC, E2E flow control at 43");
	CHECK_EQ(be(b + 44, 3), 0xabcdef, "REQ: Starting PSN at 44");
	CHECK_EQ(b[47], 16 << 3 | 7, "REQ: Local CM Response Timeout, Retry Count at 47");
	CHECK_EQ(be(b + 48, 2), 0xffff, "REQ: P_Key at 48");
	CHECK_EQ(b[50], IBV_MTU_4096 << 4 | 6, "REQ: Path MTU, RNR Retry Count at 50");
	CHECK_EQ(b[51], 15 << 4, "REQ: Max CM Retries at 51");
	CHECK(b[56 + 15] == 0x11 && b[72 + 15] == 0x22, "REQ: primary local/remote port GID at 56/72");
	CHECK_EQ(b[93], 64, "REQ: primary hop limit at 93");
	CHECK_EQ(b[95], 14 << 3, "REQ: primary local ACK timeout at 95");
	CHECK(b[140] == 1 && b[231] == 92, "REQ: 92 bytes of private data at 140");

	for (unsigned int i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		memset(&m, 0, sizeof(m));
		m.attr = attrs[i];
		m.tid = 77 + i;
		m.local_id = 0x1000 + i;
		m.remote_id = attrs[i] == CM_ATTR_REQ || attrs[i] >= CM_ATTR_SIDR_REQ ? 0 : 0x2000 + i;
		m.reason = attrs[i] == CM_ATTR_REJ ? CM_REJ_CONSUMER : 0;
		m.qpn = attrs[i] == CM_ATTR_RTU || attrs[i] == CM_ATTR_DREP || attrs[i] == CM_ATTR_MRA ||
				attrs[i] == CM_ATTR_REJ || attrs[i] == CM_ATTR_SIDR_REQ ? 0 : 0x3000 + i;
		CHECK_EQ(cm_pdata_len(attrs[i]), pd_len[i], "private data size");
		for (int k = 0; k < pd_len[i]; k++)
			m.pdata[k] = (uint8_t)(0xa0 + k);
		CHECK_EQ(cm_mad_pack(&m, mad), 0, "pack");
		CHECK(b[pd_off[i]] == 0xa0 && b[pd_off[i] + pd_len[i] - 1] == (uint8_t)(0xa0 + pd_len[i] - 1) &&
		      pd_off[i] + pd_len[i] <= 232, "%s: private data at %d", cm_attr_name(attrs[i]), pd_off[i]);
		CHECK_EQ(cm_mad_parse(mad, sizeof(mad), &r), 0, "parse");
		CHECK(!memcmp(&r, &m, sizeof(m)), "%s: parse(pack(m)) == m", cm_attr_name(attrs[i]));
	}
	CHECK_EQ(be(mad + 24 + 8, 3), 0x3008, "SIDR_REP: QPN at 8");
	m.attr = CM_ATTR_REJ;
	m.reason = 8;
	cm_mad_pack(&m, mad);
	CHECK_EQ(be(b + 10, 2), 8, "REJ: Reason at 10");
	m.attr = CM_ATTR_REP;
	m.psn = 0x445566;
	m.resp_res = 9;
	cm_mad_pack(&m, mad);
	CHECK(be(b + 12, 3) == m.qpn && be(b + 20, 3) == 0x445566 && b[24] == 9, "REP: QPN 12, PSN 20, resources 24");

	cm_mad_pack(&m, mad);
	CHECK_EQ(cm_mad_parse(mad, CM_MAD_SIZE - 1, &r), -EINVAL, "short MAD refused");
	mad[1] = 0x04;
	CHECK_EQ(cm_mad_parse(mad, CM_MAD_SIZE, &r), -EINVAL, "other management class refused");
	mad[1] = 0x07;
	mad[2] = 1;
	CHECK_EQ(cm_mad_parse(mad, CM_MAD_SIZE, &r), -EINVAL, "class version 1 refused");
	mad[2] = 2;
	mad[17] = 0x19;	/* LAP: not spoken here */
	CHECK_EQ(cm_mad_parse(mad, CM_MAD_SIZE, &r), -EINVAL, "unknown attribute refused");
	m.attr = 0x0019;
	CHECK_EQ(cm_mad_pack(&m, mad), -EINVAL, "unknown attribute not packed");

	{
		uint8_t h[CM_IP_HDR_LEN];
		uint32_t s, d;
		uint16_t p;

		cm_ip_hdr_pack(h, 0x0a000002, 40000, 0x0a000001);
		CHECK(h[0] == 0 && h[1] == 0x40 && be(h + 2, 2) == 40000 && be(h + 16, 4) == 0x0a000002 &&
		      be(h + 32, 4) == 0x0a000001, "IP CM header: version, IPv4, port, addresses (Annex A11)");
		CHECK(!cm_ip_hdr_parse(h, &s, &p, &d) && s == 0x0a000002 && p == 40000 && d == 0x0a000001,
		      "IP CM header parsed back");
		h[1] = 0x60;
		CHECK(cm_ip_hdr_parse(h, &s, &p, &d) == -EINVAL, "IPv6 header refused");
	}
	CHECK(cm_timeout_ms(15) == 134 && cm_timeout_ms(18) == 1073 && cm_timeout_ms(0) == 1,
	      "4.096 us * 2^t in ms");
	CHECK(cm_ack_timeout(14, 15) == 16 && cm_ack_timeout(14, 14) == 15 && cm_ack_timeout(16, 3) == 17 &&
	      cm_ack_timeout(31, 31) == 31, "ACK timeout: smallest 2^t >= round trip + ACK delay");
}

/* ---- events -------------------------------------------------------------------------------- */

/*
 * How long a check waits for an event that must come: the wait ends when it
 * is there, so only a failing run waits it out.  Generous: on a loaded
 * machine (make test on 2 cores with other work, or a run at nice 19) the
 * threaded devices and the CM thread were seen 36 times slower than idle,
 * and an ESTABLISHED 5 s late failed a run that was only slow.
 */
#define EVENT_WAIT_MS 60000

/* The next event on ch within ms (blocking or not, as the fd is), or NULL. */
static struct rdma_cm_event *next_event(struct rdma_event_channel *ch, int ms)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *e;

	if (poll(&p, 1, ms) != 1)
		return NULL;
	return rdma_get_cm_event(ch, &e) ? NULL : e;
}

/* Expect an event of type on ch (acknowledged unless keep). */
static struct rdma_cm_event *expect(struct rdma_event_channel *ch, enum rdma_cm_event_type type,
				    const char *what, int keep)
{
	struct rdma_cm_event *e = next_event(ch, EVENT_WAIT_MS);

	CHECK(e && e->event == type, "%s: %s, got %s", what, rdma_event_str(type),
	      e ? rdma_event_str(e->event) : "nothing");
	if (e && !keep) {
		rdma_ack_cm_event(e);
		return NULL;
	}
	return e;
}

static struct rdma_event_channel *sch, *cch;	/* server, client */

static void channel_semantics(void)
{
	struct rdma_cm_event *e;
	struct rdma_cm_id *id;
	struct sockaddr_in dst = sin_of("10.0.0.1", 1), src = sin_of("10.0.0.2", 0);
	struct pollfd p = { .fd = cch->fd, .events = POLLIN };
	int fl = fcntl(cch->fd, F_GETFL);

	CHECK(fcntl(cch->fd, F_SETFL, fl | O_NONBLOCK) == 0, "channel fd: O_NONBLOCK");
	errno = 0;
	CHECK(rdma_get_cm_event(cch, &e) == -1 && errno == EAGAIN, "empty non-blocking channel: EAGAIN (%d)", errno);
	CHECK(poll(&p, 1, 0) == 0, "empty channel: not readable");
	CHECK(!rdma_create_id(cch, &id, NULL, RDMA_PS_TCP), "create id");
	CHECK(!rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000), "resolve addr");
	CHECK(poll(&p, 1, EVENT_WAIT_MS) == 1 && (p.revents & POLLIN), "an event makes the channel readable");
	CHECK(id->verbs && !strcmp(ibv_get_device_name(id->verbs->device), "hcasim1"),
	      "bound to the device of the source address");
	CHECK(!rdma_resolve_route(id, 2000), "resolve route");
	e = next_event(cch, EVENT_WAIT_MS);
	CHECK(e && e->event == RDMA_CM_EVENT_ADDR_RESOLVED && e->id == id, "first event: ADDR_RESOLVED");
	rdma_ack_cm_event(e);
	e = next_event(cch, EVENT_WAIT_MS);
	CHECK(e && e->event == RDMA_CM_EVENT_ROUTE_RESOLVED, "second read, second event: ROUTE_RESOLVED");
	rdma_ack_cm_event(e);
	errno = 0;
	CHECK(rdma_get_cm_event(cch, &e) == -1 && errno == EAGAIN, "one event per read: nothing more");
	CHECK(id->route.num_paths == 1 && id->route.path_rec &&
	      id->route.addr.addr.ibaddr.dgid.raw[15] == 1 && id->route.addr.addr.ibaddr.dgid.raw[10] == 0xff,
	      "route: one path, destination GID ::ffff:10.0.0.1");
	CHECK(rdma_get_src_port(id) != 0 && ntohs(rdma_get_dst_port(id)) == 1, "ports: ephemeral source, dst 1");
	CHECK(!rdma_destroy_id(id), "destroy id");
	fcntl(cch->fd, F_SETFL, fl);	/* blocking again */
}

/* ---- RC connection --------------------------------------------------------------------------- */

struct conn {
	struct rdma_cm_id *listen, *srv, *cli;
};

static void listen_on(struct conn *k, enum rdma_port_space ps, uint16_t port)
{
	struct sockaddr_in a = sin_of("10.0.0.1", port);

	CHECK(!rdma_create_id(sch, &k->listen, NULL, ps), "listen id");
	CHECK(!rdma_bind_addr(k->listen, (struct sockaddr *)&a), "bind 10.0.0.1:%u", port);
	CHECK(!rdma_listen(k->listen, 4), "listen");
}

static int client_to(struct conn *k, enum rdma_port_space ps, uint16_t port)
{
	struct sockaddr_in dst = sin_of("10.0.0.1", port), src = sin_of("10.0.0.2", 0);

	if (rdma_create_id(cch, &k->cli, NULL, ps) ||
	    rdma_resolve_addr(k->cli, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000))
		return -1;
	expect(cch, RDMA_CM_EVENT_ADDR_RESOLVED, "client", 0);
	if (rdma_resolve_route(k->cli, 2000))
		return -1;
	expect(cch, RDMA_CM_EVENT_ROUTE_RESOLVED, "client", 0);
	return 0;
}

static void qp_attr(struct ibv_qp_init_attr *a, enum ibv_qp_type t)
{
	memset(a, 0, sizeof(*a));
	a->qp_type = t;
	a->cap.max_send_wr = a->cap.max_recv_wr = 4;
	a->cap.max_send_sge = a->cap.max_recv_sge = 1;
	a->cap.max_inline_data = 16;
	a->sq_sig_all = 1;
}

static void *late_ack(void *arg)
{
	usleep(300000);
	rdma_ack_cm_event(arg);
	return NULL;
}

static void rc_connection(int accept_delay_ms)
{
	struct conn k = { 0 };
	struct ibv_qp_init_attr qa;
	struct rdma_conn_param p = { .responder_resources = 1, .initiator_depth = 1, .retry_count = 7,
				     .rnr_retry_count = 7 };
	struct rdma_cm_event *e;
	struct ibv_wc wc;
	struct ibv_mr *smr, *cmr;
	char sbuf[16] = "", cbuf[16] = "ping";
	uint64_t t0;
	int sent;

	listen_on(&k, RDMA_PS_TCP, 7471);
	CHECK(!client_to(&k, RDMA_PS_TCP, 7471), "client resolved");
	qp_attr(&qa, IBV_QPT_RC);
	CHECK(!rdma_create_qp(k.cli, NULL, &qa), "client QP (default PD, own CQs)");
	CHECK(k.cli->qp && k.cli->send_cq && k.cli->recv_cq && k.cli->send_cq_channel && k.cli->pd,
	      "rdma_create_qp made CQs and channels");
	p.private_data = "hello";
	p.private_data_len = 6;
	CHECK(!rdma_connect(k.cli, &p), "connect");
	e = expect(sch, RDMA_CM_EVENT_CONNECT_REQUEST, "server", 1);
	if (!e)
		return;
	k.srv = e->id;
	CHECK(e->listen_id == k.listen && e->param.conn.private_data_len == 56 &&
	      !strcmp(e->param.conn.private_data, "hello") && e->param.conn.initiator_depth == 1 &&
	      e->param.conn.qp_num == k.cli->qp->qp_num,
	      "CONNECT_REQUEST: listener, the client's private data (56 bytes), depth, QPN");
	CHECK(ntohl(k.srv->route.addr.dst_sin.sin_addr.s_addr) == 0x0a000002 &&
	      k.srv->route.addr.dst_sin.sin_port == rdma_get_src_port(k.cli),
	      "new id: the client's address and port");
	rdma_ack_cm_event(e);
	t0 = now_ms();
	if (accept_delay_ms)
		usleep((useconds_t)accept_delay_ms * 1000);
	qp_attr(&qa, IBV_QPT_RC);
	CHECK(!rdma_create_qp(k.srv, NULL, &qa), "server QP");
	smr = rdma_reg_msgs(k.srv, sbuf, sizeof(sbuf));
	CHECK(smr && !rdma_post_recv(k.srv, NULL, sbuf, sizeof(sbuf), smr), "server receive posted");
	p.private_data = "world";
	CHECK(!rdma_accept(k.srv, &p), "accept");
	e = expect(cch, RDMA_CM_EVENT_ESTABLISHED, "client", 1);
	if (e) {
		CHECK(!strcmp(e->param.conn.private_data, "world") && e->param.conn.private_data_len == 196 &&
		      e->param.conn.qp_num == k.srv->qp->qp_num, "ESTABLISHED: the server's private data, QPN");
		rdma_ack_cm_event(e);
	}
	expect(sch, RDMA_CM_EVENT_ESTABLISHED, "server", 0);
	if (accept_delay_ms)
		CHECK(now_ms() - t0 >= (uint64_t)accept_delay_ms, "connected after the late accept (%llu ms)",
		      (unsigned long long)(now_ms() - t0));

	cmr = rdma_reg_msgs(k.cli, cbuf, sizeof(cbuf));
	sent = cmr && !rdma_post_send(k.cli, NULL, cbuf, sizeof(cbuf), cmr, 0);
	CHECK(sent, "client send");
	/* (a failed connection fails the checks rather than waiting for completions that never come) */
	sent = sent && rdma_get_send_comp(k.cli, &wc) == 1 && wc.status == IBV_WC_SUCCESS;
	CHECK(sent, "send completion (own CQ)");
	CHECK(sent && rdma_get_recv_comp(k.srv, &wc) == 1 && wc.status == IBV_WC_SUCCESS && wc.byte_len == 16 &&
	      !strcmp(sbuf, "ping"), "received over the connection");

	CHECK(!rdma_disconnect(k.cli), "client disconnects");
	expect(sch, RDMA_CM_EVENT_DISCONNECTED, "server (DREQ)", 0);
	CHECK(!rdma_disconnect(k.srv), "server answers");
	expect(cch, RDMA_CM_EVENT_DISCONNECTED, "client (DREP)", 0);
	{
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr ia;

		CHECK(k.cli->qp && !ibv_query_qp(k.cli->qp, &a, IBV_QP_STATE, &ia) && a.qp_state == IBV_QPS_ERR,
		      "disconnect moved the QP to ERR");
	}
	rdma_dereg_mr(smr);
	rdma_dereg_mr(cmr);
	rdma_destroy_qp(k.cli);
	rdma_destroy_qp(k.srv);
	CHECK(!rdma_destroy_id(k.srv) && !rdma_destroy_id(k.cli), "destroy ids");

	/* destroying an id waits until its events are acknowledged */
	{
		pthread_t t;

		CHECK(!client_to(&k, RDMA_PS_TCP, 7471), "again");
		CHECK(!rdma_connect(k.cli, &(struct rdma_conn_param){ .qp_num = 0x77 }), "connect (no QP)");
		e = expect(sch, RDMA_CM_EVENT_CONNECT_REQUEST, "server", 1);
		if (e) {
			k.srv = e->id;
			t0 = now_ms();
			pthread_create(&t, NULL, late_ack, e);
			CHECK(!rdma_destroy_id(k.listen), "listener destroyed");
			CHECK(now_ms() - t0 >= 250, "... after its event was acknowledged (%llu ms)",
			      (unsigned long long)(now_ms() - t0));
			pthread_join(t, NULL);
			rdma_destroy_id(k.srv);	/* unanswered: REJ */
			e = expect(cch, RDMA_CM_EVENT_REJECTED, "client of a destroyed request", 1);
			if (e) {
				CHECK_EQ(e->status, 28, "consumer reject");
				rdma_ack_cm_event(e);
			}
		}
		rdma_destroy_id(k.cli);
	}
}

static void rejects(void)
{
	struct conn k = { 0 };
	struct rdma_cm_event *e;
	struct rdma_conn_param p = { .qp_num = 0x99 };
	struct sockaddr_in dst = sin_of("10.0.0.99", 1), src = sin_of("10.0.0.2", 0);
	struct rdma_cm_id *id;

	listen_on(&k, RDMA_PS_TCP, 7472);
	CHECK(!client_to(&k, RDMA_PS_TCP, 7472), "client");
	CHECK(!rdma_connect(k.cli, &p), "connect");
	e = expect(sch, RDMA_CM_EVENT_CONNECT_REQUEST, "server", 1);
	if (e) {
		CHECK(!rdma_reject(e->id, "no", 3), "reject with private data");
		rdma_destroy_id(e->id);
		rdma_ack_cm_event(e);
	}
	e = expect(cch, RDMA_CM_EVENT_REJECTED, "client", 1);
	if (e) {
		CHECK(e->status == 28 && !strcmp(e->param.conn.private_data, "no") &&
		      e->param.conn.private_data_len == 148, "REJECTED: consumer reject 28, its private data");
		rdma_ack_cm_event(e);
	}
	rdma_destroy_id(k.cli);

	/* the active side gives up before the answer: the passive side hears of it */
	CHECK(!client_to(&k, RDMA_PS_TCP, 7472), "client");
	CHECK(!rdma_connect(k.cli, &p), "connect");
	e = expect(sch, RDMA_CM_EVENT_CONNECT_REQUEST, "server", 1);
	rdma_destroy_id(k.cli);
	if (e) {
		struct rdma_cm_id *child = e->id;

		rdma_ack_cm_event(e);
		e = expect(sch, RDMA_CM_EVENT_REJECTED, "server, requester gone", 1);
		if (e) {
			CHECK(e->id == child && e->status == 1, "REJECTED on the new id, reason 1 (timeout)");
			rdma_ack_cm_event(e);
		}
		rdma_destroy_id(child);
	}

	CHECK(!client_to(&k, RDMA_PS_TCP, 7473), "client to a port nobody listens on");
	CHECK(!rdma_connect(k.cli, &p), "connect");
	e = expect(cch, RDMA_CM_EVENT_REJECTED, "no listener", 1);
	if (e) {
		CHECK_EQ(e->status, 8, "REJECTED: invalid service ID");
		rdma_ack_cm_event(e);
	}
	rdma_destroy_id(k.cli);
	rdma_destroy_id(k.listen);

	CHECK(!rdma_create_id(cch, &id, NULL, RDMA_PS_TCP), "id");
	CHECK(!rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000), "resolve 10.0.0.99");
	e = expect(cch, RDMA_CM_EVENT_ADDR_ERROR, "nobody has 10.0.0.99", 1);
	if (e) {
		CHECK(e->status < 0, "ADDR_ERROR with a negative errno (%d)", e->status);
		rdma_ack_cm_event(e);
	}
	CHECK(rdma_resolve_route(id, 2000) == -1 && errno == EINVAL, "no route without an address");
	rdma_destroy_id(id);
}

/* ---- UD (SIDR) ---------------------------------------------------------------------------------- */

static void ud(void)
{
	struct conn k = { 0 };
	struct ibv_qp_init_attr qa;
	struct rdma_cm_event *e;
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	listen_on(&k, RDMA_PS_UDP, 7474);
	CHECK(!client_to(&k, RDMA_PS_UDP, 7474), "UD client");
	CHECK(!rdma_connect(k.cli, &(struct rdma_conn_param){ .private_data = "sidr", .private_data_len = 5 }),
	      "SIDR_REQ");
	e = expect(sch, RDMA_CM_EVENT_CONNECT_REQUEST, "server", 1);
	if (!e)
		return;
	k.srv = e->id;
	CHECK(!strcmp(e->param.ud.private_data, "sidr") && e->param.ud.private_data_len == 180,
	      "UD CONNECT_REQUEST: private data after the IP CM header");
	rdma_ack_cm_event(e);
	qp_attr(&qa, IBV_QPT_UD);
	CHECK(!rdma_create_qp(k.srv, NULL, &qa), "UD QP");
	CHECK(k.srv->qp && !ibv_query_qp(k.srv->qp, &a, IBV_QP_STATE | IBV_QP_QKEY, &ia) && a.qp_state == IBV_QPS_RTS &&
	      a.qkey == 0x01234567, "rdma_create_qp made the UD QP ready (RTS, RDMA_UDP_QKEY)");
	CHECK(!rdma_accept(k.srv, NULL), "accept: SIDR_REP");
	e = expect(cch, RDMA_CM_EVENT_ESTABLISHED, "UD client", 1);
	if (e) {
		CHECK(e->param.ud.qp_num == k.srv->qp->qp_num && e->param.ud.qkey == 0x01234567 &&
		      e->param.ud.ah_attr.is_global && e->param.ud.ah_attr.grh.dgid.raw[15] == 1,
		      "ESTABLISHED: the server's QPN, Q_Key and address");
		rdma_ack_cm_event(e);
	}
	rdma_destroy_qp(k.srv);
	rdma_destroy_id(k.srv);
	rdma_destroy_id(k.cli);

	CHECK(!client_to(&k, RDMA_PS_UDP, 7475), "UD client to nobody");
	CHECK(!rdma_connect(k.cli, NULL), "SIDR_REQ");
	e = expect(cch, RDMA_CM_EVENT_UNREACHABLE, "SIDR to a port nobody listens on", 1);
	if (e) {
		CHECK_EQ(e->status, 1, "SIDR_REP status: service ID not supported");
		rdma_ack_cm_event(e);
	}
	rdma_destroy_id(k.cli);
	rdma_destroy_id(k.listen);
}

/* ---- synchronous endpoints, migration -------------------------------------------------------------- */

static struct rdma_cm_id *ep_listen;
static int ep_server_ok;

static void *ep_server(void *arg)
{
	struct rdma_cm_id *id;

	(void)arg;
	if (rdma_get_request(ep_listen, &id))
		return NULL;
	ep_server_ok = id->qp && !rdma_accept(id, NULL) && !rdma_disconnect(id);
	rdma_destroy_ep(id);
	return NULL;
}

static void endpoints(void)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP }, *res;
	struct ibv_qp_init_attr qa;
	struct rdma_cm_id *id;
	pthread_t t;

	qp_attr(&qa, 0);
	CHECK(!rdma_getaddrinfo("10.0.0.1", "7476", &hints, &res), "getaddrinfo passive");
	CHECK(res->ai_src_addr && res->ai_qp_type == IBV_QPT_RC, "passive: source address, RC");
	CHECK(!rdma_create_ep(&ep_listen, res, NULL, &qa), "create_ep passive");
	rdma_freeaddrinfo(res);
	CHECK(!rdma_listen(ep_listen, 1), "listen");
	pthread_create(&t, NULL, ep_server, NULL);
	hints.ai_flags = 0;
	CHECK(!rdma_getaddrinfo("10.0.0.1", "7476", &hints, &res), "getaddrinfo active");
	{
		struct sockaddr_in src = sin_of("10.0.0.2", 0);

		res->ai_src_addr = malloc(sizeof(src));
		memcpy(res->ai_src_addr, &src, sizeof(src));
		res->ai_src_len = sizeof(src);
	}
	qp_attr(&qa, 0);
	CHECK(!rdma_create_ep(&id, res, NULL, &qa), "create_ep active (resolves synchronously)");
	rdma_freeaddrinfo(res);
	CHECK(id->qp && id->qp->qp_type == IBV_QPT_RC, "the endpoint has its RC QP");
	CHECK(!rdma_connect(id, NULL), "synchronous connect");
	CHECK(!rdma_disconnect(id), "synchronous disconnect");
	pthread_join(t, NULL);
	CHECK(ep_server_ok, "server: get_request (with QP), accept, disconnect");
	rdma_destroy_ep(id);
	rdma_destroy_ep(ep_listen);

	/* migrate: a queued event moves with the id */
	{
		struct rdma_event_channel *ch2 = rdma_create_event_channel();
		struct sockaddr_in dst = sin_of("10.0.0.1", 9), src = sin_of("10.0.0.2", 0);
		struct rdma_cm_event *e;

		CHECK(!rdma_create_id(cch, &id, NULL, RDMA_PS_TCP), "id");
		CHECK(!rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000), "resolve");
		CHECK(!rdma_migrate_id(id, ch2) && id->channel == ch2, "migrated");
		e = next_event(ch2, EVENT_WAIT_MS);
		CHECK(e && e->event == RDMA_CM_EVENT_ADDR_RESOLVED && e->id == id, "its event on the new channel");
		if (e)
			rdma_ack_cm_event(e);
		rdma_destroy_id(id);
		rdma_destroy_event_channel(ch2);
	}
}

/* ---- cooperative mode on a lossy wire: deterministic ---------------------------------------------- */

#define COOP_CONFIG                                                         \
	"mode = cooperative\nwire_drop = 0.3\nwire_seed = %u\n"          \
	"[hcasim0]\nip = 10.0.0.1\nwire = lan\n"                         \
	"[hcasim1]\nip = 10.0.0.2\nwire = lan\n"

/* Blocking get: in cooperative mode it steps the simulation (and the CM's timers). */
static int coop_expect(struct rdma_event_channel *ch, enum rdma_cm_event_type type, const char *what)
{
	struct rdma_cm_event *e;
	int ok;

	if (rdma_get_cm_event(ch, &e)) {
		CHECK(0, "%s: %s, got error %d", what, rdma_event_str(type), errno);
		return 0;
	}
	ok = e->event == type;
	CHECK(ok, "%s: %s, got %s", what, rdma_event_str(type), rdma_event_str(e->event));
	rdma_ack_cm_event(e);
	return ok;
}

/* Connect, exchange, disconnect with 30 % of the frames lost; the device cycle at each step. */
static void coop_run(unsigned int seed, uint64_t cycles[4], uint64_t *dropped)
{
	char cfg[256];
	struct conn k = { 0 };
	struct sockaddr_in dst = sin_of("10.0.0.1", 7480), src = sin_of("10.0.0.2", 0);
	struct ibv_qp_init_attr qa;
	struct rdma_cm_event *e;
	struct rdma_event_channel *s, *c;
	uint64_t sent, delivered;

	snprintf(cfg, sizeof(cfg), COOP_CONFIG, seed);
	CHECK_EQ(hcasim_shim_configure(cfg), 0, "configure cooperative");
	s = rdma_create_event_channel();
	c = rdma_create_event_channel();
	if (!s || !c)
		return;
	CHECK(!rdma_create_id(s, &k.listen, NULL, RDMA_PS_TCP) && !rdma_bind_addr(k.listen, (struct sockaddr *)&dst) &&
	      !rdma_listen(k.listen, 1), "listen");
	CHECK(!rdma_create_id(c, &k.cli, NULL, RDMA_PS_TCP) &&
	      !rdma_resolve_addr(k.cli, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000), "resolve");
	coop_expect(c, RDMA_CM_EVENT_ADDR_RESOLVED, "coop client");
	rdma_resolve_route(k.cli, 2000);
	coop_expect(c, RDMA_CM_EVENT_ROUTE_RESOLVED, "coop client");
	qp_attr(&qa, IBV_QPT_RC);
	CHECK(!rdma_create_qp(k.cli, NULL, &qa), "coop client QP");
	CHECK(!rdma_connect(k.cli, NULL), "coop connect");
	if (!rdma_get_cm_event(s, &e)) {
		CHECK(e->event == RDMA_CM_EVENT_CONNECT_REQUEST, "coop server: CONNECT_REQUEST");
		k.srv = e->id;
		rdma_ack_cm_event(e);
	}
	cycles[0] = hcasim_shim_now(k.cli->verbs);
	if (!k.srv)
		return;
	qp_attr(&qa, IBV_QPT_RC);
	CHECK(!rdma_create_qp(k.srv, NULL, &qa) && !rdma_accept(k.srv, NULL), "coop accept");
	coop_expect(c, RDMA_CM_EVENT_ESTABLISHED, "coop client");
	coop_expect(s, RDMA_CM_EVENT_ESTABLISHED, "coop server");
	cycles[1] = hcasim_shim_now(k.cli->verbs);
	CHECK(!rdma_disconnect(k.cli), "coop disconnect");
	coop_expect(s, RDMA_CM_EVENT_DISCONNECTED, "coop server");
	cycles[2] = hcasim_shim_now(k.cli->verbs);
	CHECK(!rdma_disconnect(k.srv), "coop DREP");
	coop_expect(c, RDMA_CM_EVENT_DISCONNECTED, "coop client");
	cycles[3] = hcasim_shim_now(k.cli->verbs);
	CHECK_EQ(hcasim_shim_wire_counters("lan", &sent, &delivered, dropped), 0, "wire counters");
	rdma_destroy_qp(k.cli);
	rdma_destroy_qp(k.srv);
	rdma_destroy_id(k.srv);
	rdma_destroy_id(k.cli);
	rdma_destroy_id(k.listen);
	rdma_destroy_event_channel(s);
	rdma_destroy_event_channel(c);
	hcasim_shim_shutdown();
}

static void coop_lossy(void)
{
	uint64_t a[4] = { 0 }, b[4] = { 0 }, da = 0, db = 0;

	coop_run(11, a, &da);
	coop_run(11, b, &db);
	CHECK(da > 0, "the wire dropped frames (%llu)", (unsigned long long)da);
	CHECK(!memcmp(a, b, sizeof(a)) && da == db, "same seed, same run: cycles %llu %llu %llu %llu",
	      (unsigned long long)a[0], (unsigned long long)a[1], (unsigned long long)a[2],
	      (unsigned long long)a[3]);
	CHECK(a[1] > a[0] && a[3] > a[2], "time moved on");
}

void cm_wire_tests(unsigned long *passed, unsigned long *failed);	/* test_cm_wire.c */

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	mad_layout();
	CHECK_EQ(hcasim_shim_configure(CONFIG), 0, "configure");
	sch = rdma_create_event_channel();
	cch = rdma_create_event_channel();
	CHECK(sch && cch, "event channels");
	if (!sch || !cch)
		return check_done();
	channel_semantics();
	rc_connection(0);
	rc_connection(2500);
	rejects();
	ud();
	endpoints();
	rdma_destroy_event_channel(sch);
	rdma_destroy_event_channel(cch);
	hcasim_shim_shutdown();
	coop_lossy();
	cm_wire_tests(&check_passed_, &check_failed_);
	return check_done();
}
