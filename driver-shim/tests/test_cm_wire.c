// SPDX-License-Identifier: MIT
/*
 * The connection manager's messages on the wire against the IB spec, the
 * fields where hcasim's CM and Linux's ib_cm once disagreed (docs/interop.md,
 * "Connection manager: hcasim's CM and the kernel's"); part of shim_cm_api.
 * Two HCAs in cooperative mode, each capturing what it sends; the MADs are
 * read from the captures at the byte offsets of the spec's tables (written
 * out here, not taken from cm_mad.c):
 *
 *   - Starting PSN (IB spec 12.6.5 REQ, 12.6.8 REP): the PSN the *receiver*
 *     of the message starts sending with; the sender expects it on its
 *     receive queue.  The first RC SEND of each side carries the PSN the
 *     other side announced, and each QP's rq_psn the PSN its own side did.
 *   - Local ACK Timeout (9.7.6.1.3; REQ Primary Local ACK Timeout, REP
 *     Target ACK Delay): the passive side's QP takes the REQ's value; the
 *     active side's covers the REP's Target ACK Delay, which is the
 *     responder's local CA ACK delay (Query HCA); RDMA_OPTION_ID_ACK_TIMEOUT
 *     overrides both and travels in the REQ.
 *   - The REP's resend timer is the REQ's Local CM Response Timeout (how long
 *     the active side takes to answer): a REQ made here announcing 537 ms
 *     (17), which nobody answers with an RTU, gets its REP resent every
 *     537 ms (give or take the CM's 1 ms tick), not every 134 ms (the
 *     timeout hcasim's own REQs announce).
 *   - A REQ resend that crossed the passive side's REJ (the application
 *     rejected and destroyed the request before the REJ reached the active
 *     side): answered with the REJ again, not taken for a new connection
 *     request (shim_cm_api's "server, requester gone" failed now and then
 *     on a loaded machine, where the first REQ's resend came after the
 *     rejection: a phantom CONNECT_REQUEST).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <rdma/rdma_cma.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cm_mad.h"
#include "pcap.h"
#include "shim_test.h"

#define CFG                                                                  \
	"mode = cooperative\n"                                               \
	"[hcasim0]\nip = 10.0.0.1\nwire = lan\npcap = %s/server.pcap\n"      \
	"[hcasim1]\nip = 10.0.0.2\nwire = lan\npcap = %s/client.pcap\n"

/* Offsets in a frame: Ethernet 14 + IPv4 20 + UDP 8 = BTH at 42; UD: DETH, MAD at 62. */
#define BTH 42
#define MAD 62
#define MSG (MAD + 24)	/* the CM message after the MAD header (IB spec 13.4.3) */

static uint32_t be(const uint8_t *p, int n)
{
	uint32_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static struct sockaddr_in sin_of(const char *ip, uint16_t port)
{
	struct sockaddr_in s = { .sin_family = AF_INET, .sin_port = htons(port) };

	inet_pton(AF_INET, ip, &s.sin_addr);
	return s;
}

/* What a capture holds of the CM and the first RC SEND. */
struct seen {
	int req, rep, send;		/* found */
	uint32_t req_psn, rep_psn, send_psn;
	uint8_t req_ack_timeout, rep_ack_delay;
	int reps;			/* REP MADs */
	uint64_t rep_ns[32];		/* their timestamps */
	int rejs;			/* REJ MADs */
	uint32_t rej_remote_id;		/* the first one's Remote Communication ID, Reason */
	uint16_t rej_reason;
};

static void scan(const char *path, struct seen *s)
{
	struct pcap_reader *r = pcap_reader_open(path);
	struct pcap_frame f;

	memset(s, 0, sizeof(*s));
	CHECK(r != NULL, "capture %s readable", path);
	if (!r)
		return;
	while (pcap_read(r, &f) == 1) {
		const uint8_t *b = f.data;

		if (f.len < BTH + 12)
			continue;
		if (b[BTH] == 4 && !s->send) {		/* RC SEND ONLY: BTH PSN at byte 9 */
			s->send = 1;
			s->send_psn = be(b + BTH + 9, 3);
		} else if (f.len >= MSG + 232 && b[BTH] == 0x64 && be(b + BTH + 5, 3) == 1 && b[MAD + 1] == 0x07) {
			uint32_t attr = be(b + MAD + 16, 2);

			if (attr == 0x0010 && !s->req) {	/* REQ: PSN at 44, ACK timeout 95 */
				s->req = 1;
				s->req_psn = be(b + MSG + 44, 3);
				s->req_ack_timeout = b[MSG + 95] >> 3;
			} else if (attr == 0x0013) {		/* REP: PSN at 20, Target ACK Delay 26 */
				if (!s->rep) {
					s->rep_psn = be(b + MSG + 20, 3);
					s->rep_ack_delay = b[MSG + 26] >> 3;
				}
				s->rep = 1;
				if (s->reps < 32)
					s->rep_ns[s->reps] = f.ns;
				s->reps++;
			} else if (attr == 0x0012) {		/* REJ: Remote Comm ID at 4, Reason 10 */
				if (!s->rejs) {
					s->rej_remote_id = be(b + MSG + 4, 4);
					s->rej_reason = (uint16_t)be(b + MSG + 10, 2);
				}
				s->rejs++;
			}
		}
	}
	pcap_reader_close(r);
}

/* Blocking get (steps the simulation in cooperative mode); acknowledged unless keep. */
static struct rdma_cm_event *get(struct rdma_event_channel *ch, enum rdma_cm_event_type type, const char *what,
				 int keep)
{
	struct rdma_cm_event *e;

	if (rdma_get_cm_event(ch, &e)) {
		CHECK(0, "%s: %s, got error %d", what, rdma_event_str(type), errno);
		return NULL;
	}
	CHECK(e->event == type, "%s: %s, got %s", what, rdma_event_str(type), rdma_event_str(e->event));
	if (!keep || e->event != type) {
		rdma_ack_cm_event(e);
		return NULL;
	}
	return e;
}

/* Poll cq until one completion (an empty poll steps the simulation). */
static int one_wc(struct ibv_cq *cq)
{
	struct ibv_wc wc;

	for (int i = 0; i < 1000000; i++) {
		int n = ibv_poll_cq(cq, 1, &wc);

		if (n)
			return n == 1 && wc.status == IBV_WC_SUCCESS;
	}
	return 0;
}

struct qpv {
	uint32_t rq_psn, sq_psn;
	uint8_t timeout;
};

static struct qpv query(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	struct qpv v = { 0 };

	if (!ibv_query_qp(qp, &a, IBV_QP_RQ_PSN | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT, &ia)) {
		v.rq_psn = a.rq_psn;
		v.sq_psn = a.sq_psn;
		v.timeout = a.timeout;
	}
	return v;
}

/*
 * Connect 10.0.0.2 -> 10.0.0.1:port (the client setting its ACK timeout to
 * ack_opt unless 0), one SEND each way, disconnect; QP attributes, the
 * devices' ACK delays, the captures.
 */
static void run(const char *dir, uint16_t port, uint8_t ack_opt, struct qpv *cli, struct qpv *srv,
		struct seen *cs, struct seen *ss, uint8_t delay[2])
{
	char cfg[512], path[256];
	struct sockaddr_in dst = sin_of("10.0.0.1", port), src = sin_of("10.0.0.2", 0);
	struct rdma_event_channel *sch, *cch;
	struct rdma_cm_id *lid, *cid, *sid = NULL;
	/* (rdma_create_qp writes the CQs it makes into its argument: one each) */
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC, .sq_sig_all = 1,
				       .cap = { .max_send_wr = 2, .max_recv_wr = 2, .max_send_sge = 1,
						.max_recv_sge = 1 } }, qb = qa;
	struct rdma_cm_event *e;
	struct ibv_device_attr da;
	char cbuf[64] = "to the server", sbuf[64] = "to the client", cin[64], sin[64];
	struct ibv_mr *cmr = NULL, *smr = NULL, *cmi = NULL, *smi = NULL;

	snprintf(cfg, sizeof(cfg), CFG, dir, dir);
	CHECK_EQ(hcasim_shim_configure(cfg), 0, "configure (cooperative, captures)");
	sch = rdma_create_event_channel();
	cch = rdma_create_event_channel();
	if (!sch || !cch)
		return;
	CHECK(!rdma_create_id(sch, &lid, NULL, RDMA_PS_TCP) && !rdma_bind_addr(lid, (struct sockaddr *)&dst) &&
	      !rdma_listen(lid, 1), "listen on 10.0.0.1:%u", port);
	CHECK(!rdma_create_id(cch, &cid, NULL, RDMA_PS_TCP) &&
	      !rdma_resolve_addr(cid, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000), "resolve");
	get(cch, RDMA_CM_EVENT_ADDR_RESOLVED, "client", 0);
	rdma_resolve_route(cid, 2000);
	get(cch, RDMA_CM_EVENT_ROUTE_RESOLVED, "client", 0);
	if (ack_opt)
		CHECK(!rdma_set_option(cid, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &ack_opt, 1),
		      "RDMA_OPTION_ID_ACK_TIMEOUT %u", ack_opt);
	CHECK(!rdma_create_qp(cid, NULL, &qa), "client QP");
	CHECK(!rdma_connect(cid, NULL), "connect");
	e = get(sch, RDMA_CM_EVENT_CONNECT_REQUEST, "server", 1);
	if (e) {
		sid = e->id;
		rdma_ack_cm_event(e);
	}
	CHECK(sid && !rdma_create_qp(sid, NULL, &qb), "server QP");
	if (sid && sid->qp) {
		smi = ibv_reg_mr(sid->pd, sin, sizeof(sin), IBV_ACCESS_LOCAL_WRITE);
		cmi = ibv_reg_mr(cid->pd, cin, sizeof(cin), IBV_ACCESS_LOCAL_WRITE);
		smr = ibv_reg_mr(sid->pd, sbuf, sizeof(sbuf), 0);
		cmr = ibv_reg_mr(cid->pd, cbuf, sizeof(cbuf), 0);
		CHECK(smi && cmi && smr && cmr, "memory registered");
		if (smi && cmi && smr && cmr) {
			struct ibv_sge s1 = { (uintptr_t)sin, sizeof(sin), smi->lkey },
				       s2 = { (uintptr_t)cin, sizeof(cin), cmi->lkey },
				       s3 = { (uintptr_t)cbuf, sizeof(cbuf), cmr->lkey },
				       s4 = { (uintptr_t)sbuf, sizeof(sbuf), smr->lkey };
			struct ibv_recv_wr r1 = { .sg_list = &s1, .num_sge = 1 }, r2 = { .sg_list = &s2, .num_sge = 1 },
					   *br;
			struct ibv_send_wr w1 = { .sg_list = &s3, .num_sge = 1, .opcode = IBV_WR_SEND },
					   w2 = { .sg_list = &s4, .num_sge = 1, .opcode = IBV_WR_SEND }, *bw;

			CHECK(!ibv_post_recv(sid->qp, &r1, &br) && !ibv_post_recv(cid->qp, &r2, &br), "receives");
			CHECK(!rdma_accept(sid, NULL), "accept");
			get(cch, RDMA_CM_EVENT_ESTABLISHED, "client", 0);
			get(sch, RDMA_CM_EVENT_ESTABLISHED, "server", 0);
			*cli = query(cid->qp);	/* before any packet moves the PSNs on */
			*srv = query(sid->qp);
			CHECK(!ibv_post_send(cid->qp, &w1, &bw) && one_wc(cid->send_cq) && one_wc(sid->recv_cq) &&
			      !strcmp(sin, cbuf), "a SEND client -> server");
			CHECK(!ibv_post_send(sid->qp, &w2, &bw) && one_wc(sid->send_cq) && one_wc(cid->recv_cq) &&
			      !strcmp(cin, sbuf), "a SEND server -> client");
			CHECK(!ibv_query_device(sid->verbs, &da), "server: query device");
			delay[0] = da.local_ca_ack_delay;
			CHECK(!ibv_query_device(cid->verbs, &da), "client: query device");
			delay[1] = da.local_ca_ack_delay;
			CHECK(!rdma_disconnect(cid), "disconnect");
			get(sch, RDMA_CM_EVENT_DISCONNECTED, "server", 0);
			rdma_disconnect(sid);
			get(cch, RDMA_CM_EVENT_DISCONNECTED, "client", 0);
		}
		ibv_dereg_mr(smi);
		ibv_dereg_mr(cmi);
		ibv_dereg_mr(smr);
		ibv_dereg_mr(cmr);
		rdma_destroy_qp(sid);
	}
	rdma_destroy_qp(cid);
	if (sid)
		rdma_destroy_id(sid);
	rdma_destroy_id(cid);
	rdma_destroy_id(lid);
	rdma_destroy_event_channel(sch);
	rdma_destroy_event_channel(cch);
	hcasim_shim_shutdown();	/* closes the captures */
	snprintf(path, sizeof(path), "%s/client.pcap", dir);
	scan(path, cs);
	snprintf(path, sizeof(path), "%s/server.pcap", dir);
	scan(path, ss);
}

static void psn_and_ack_timeouts(const char *dir)
{
	struct qpv cli = { 0 }, srv = { 0 };
	struct seen cs, ss;
	uint8_t delay[2] = { 0 };

	run(dir, 7490, 0, &cli, &srv, &cs, &ss, delay);
	CHECK(cs.req && ss.rep && cs.send && ss.send, "captured: the client's REQ and SEND, the server's REP and SEND");
	T_EQ(ss.send_psn, cs.req_psn, "the server's first SEND carries the Starting PSN of the client's REQ");
	T_EQ(cs.send_psn, ss.rep_psn, "the client's first SEND carries the Starting PSN of the server's REP");
	T_EQ(cli.rq_psn, cs.req_psn, "client QP: rq_psn = its REQ's Starting PSN");
	T_EQ(cli.sq_psn, ss.rep_psn, "client QP: sq_psn = the REP's Starting PSN");
	T_EQ(srv.rq_psn, ss.rep_psn, "server QP: rq_psn = its REP's Starting PSN");
	T_EQ(srv.sq_psn, cs.req_psn, "server QP: sq_psn = the REQ's Starting PSN");
	T_EQ(srv.timeout, cs.req_ack_timeout, "server QP: local ACK timeout = the REQ's Primary Local ACK Timeout");
	T_EQ(ss.rep_ack_delay, delay[0], "REP Target ACK Delay = the server device's local CA ACK delay");
	CHECK(cli.timeout > ss.rep_ack_delay, "client QP: local ACK timeout %u covers the REP's Target ACK Delay %u",
	      cli.timeout, ss.rep_ack_delay);
	CHECK(cs.req_ack_timeout > delay[1], "REQ Primary Local ACK Timeout %u covers the client's ACK delay %u",
	      cs.req_ack_timeout, delay[1]);

	run(dir, 7491, 18, &cli, &srv, &cs, &ss, delay);
	T_EQ(cs.req_ack_timeout, 18, "RDMA_OPTION_ID_ACK_TIMEOUT 18 travels in the REQ");
	T_EQ(cli.timeout, 18, "... and sets the client's QP");
	T_EQ(srv.timeout, 18, "... and, through the REQ, the server's QP");
}

/* ---- CM MADs from a controlled sender -------------------------------------------------------------- */

/* A REQ from 10.0.0.2 (local comm ID 0x0badcafe, QPN 0xabc) to 10.0.0.1:port, announcing
 * response timeouts of cm_timeout (CM encoding). */
static void fake_req(struct cm_msg *m, uint16_t port, uint8_t cm_timeout)
{
	memset(m, 0, sizeof(*m));
	m->attr = CM_ATTR_REQ;
	m->tid = 0x5eed;
	m->local_id = 0x0badcafe;
	m->service_id = cm_service_id(RDMA_PS_TCP, port);
	m->qpn = 0x000abc;
	m->psn = 0x123456;
	m->resp_res = m->init_depth = 1;
	m->remote_cm_timeout = cm_timeout;
	m->local_cm_timeout = cm_timeout;
	m->retry_count = m->rnr_retry = 7;
	m->max_cm_retries = 15;
	m->mtu = IBV_MTU_1024;
	m->pkey = 0xffff;
	m->local_gid[10] = m->local_gid[11] = m->remote_gid[10] = m->remote_gid[11] = 0xff;
	m->local_gid[12] = m->remote_gid[12] = 10;
	m->local_gid[15] = 2;
	m->remote_gid[15] = 1;
	m->hop_limit = 64;
	m->local_ack_timeout = 16;
	cm_ip_hdr_pack(m->pdata, 0x0a000002, 40000, 0x0a000001);
}

/* A UD QP on 10.0.0.2 with QP1's Q_Key, and an address handle to 10.0.0.1 (a controlled
 * sender of CM MADs: a WR cannot name QP1 itself, whose CM would answer). */
static struct ibv_ah *fake_peer(struct t_end *peer)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1, .grh = { .sgid_index = 1, .hop_limit = 64 } };

	CHECK(!t_end_open(peer, 1, CM_MAD_SIZE, 8, NULL) && !t_qp_create(peer, IBV_QPT_UD, NULL) &&
	      !t_qp_to_rts(peer, 0, 0) &&
	      !ibv_modify_qp(peer->qp, &(struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS, .qkey = 0x80010000 },
			     IBV_QP_STATE | IBV_QP_QKEY),
	      "a UD QP on 10.0.0.2 with QP1's Q_Key (a controlled one: the WR cannot name it)");
	if (!peer->qp)
		return NULL;
	aa.grh.dgid.raw[10] = aa.grh.dgid.raw[11] = 0xff;
	aa.grh.dgid.raw[12] = 10;
	aa.grh.dgid.raw[15] = 1;
	return ibv_create_ah(peer->pd, &aa);
}

/* Send the MAD of m from the fake peer to QP1 of 10.0.0.1; 1 when it left. */
static int fake_send(struct t_end *peer, struct ibv_ah *ah, const struct cm_msg *m)
{
	struct ibv_sge sg = { (uintptr_t)peer->buf, CM_MAD_SIZE, peer->mr->lkey };
	struct ibv_send_wr w = { .sg_list = &sg, .num_sge = 1, .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED }, *bw;

	if (!ah || cm_mad_pack(m, peer->buf))
		return 0;
	w.wr.ud.ah = ah;
	w.wr.ud.remote_qpn = 1;
	w.wr.ud.remote_qkey = 0x80010000;
	return !ibv_post_send(peer->qp, &w, &bw) && one_wc(peer->cq);
}

/* A listener on 10.0.0.1:port in a freshly configured shim, for a fake
 * peer's REQs: its event channel (NULL if none), the listening id in *lid. */
static struct rdma_event_channel *fake_listen(const char *dir, uint16_t port, struct rdma_cm_id **lid)
{
	char cfg[512];
	struct sockaddr_in dst = sin_of("10.0.0.1", port);
	struct rdma_event_channel *sch;

	snprintf(cfg, sizeof(cfg), CFG, dir, dir);
	CHECK_EQ(hcasim_shim_configure(cfg), 0, "configure");
	sch = rdma_create_event_channel();
	if (!sch)
		return NULL;
	CHECK(!rdma_create_id(sch, lid, NULL, RDMA_PS_TCP) && !rdma_bind_addr(*lid, (struct sockaddr *)&dst) &&
	      !rdma_listen(*lid, 1), "listen on 10.0.0.1:%u", port);
	return sch;
}

/* Undoes fake_listen and fake_peer, shuts the shim down and scans the
 * server's capture into *ss. */
static void fake_close(const char *dir, struct rdma_event_channel *sch, struct rdma_cm_id *lid,
		       struct t_end *peer, struct ibv_ah *ah, struct seen *ss)
{
	char path[256];

	if (ah)
		ibv_destroy_ah(ah);
	t_end_close(peer);
	rdma_destroy_id(lid);
	rdma_destroy_event_channel(sch);
	hcasim_shim_shutdown();
	snprintf(path, sizeof(path), "%s/server.pcap", dir);
	scan(path, ss);
}

/* ---- a REQ resend that crossed the REJ ------------------------------------------------------------ */

static void req_after_rej(const char *dir)
{
	struct rdma_event_channel *sch;
	struct rdma_cm_id *lid;
	struct rdma_cm_event *e;
	struct t_end peer = { 0 };
	struct ibv_ah *ah;
	struct cm_msg m;
	struct seen ss;

	sch = fake_listen(dir, 7493, &lid);
	if (!sch)
		return;
	ah = fake_peer(&peer);
	fake_req(&m, 7493, 15);	/* 134 ms, as our own REQs */
	CHECK(fake_send(&peer, ah, &m), "REQ sent to QP1 of 10.0.0.1");
	e = get(sch, RDMA_CM_EVENT_CONNECT_REQUEST, "server", 1);
	if (e) {
		struct rdma_cm_id *sid = e->id;

		rdma_ack_cm_event(e);
		CHECK(!rdma_reject(sid, NULL, 0), "rdma_reject (REJ 28)");
		CHECK(!rdma_destroy_id(sid), "the request's id destroyed");
	}
	/* the active side's resend of the same REQ, sent before our REJ reached it; then a new
	 * request (another communication ID and QPN): the next event must be that one's */
	CHECK(fake_send(&peer, ah, &m), "the same REQ again (its resend, crossing the REJ)");
	m.local_id = 0x0badcaff;
	m.qpn = 0x000abd;
	CHECK(fake_send(&peer, ah, &m), "a new REQ");
	e = get(sch, RDMA_CM_EVENT_CONNECT_REQUEST, "server", 1);
	if (e) {
		struct rdma_cm_id *sid = e->id;

		T_EQ(e->param.conn.qp_num, 0xabd,
		     "the next CONNECT_REQUEST is the new request's, not the rejected one's again");
		rdma_ack_cm_event(e);
		CHECK(!rdma_reject(sid, NULL, 0) && !rdma_destroy_id(sid), "the new request rejected");
	}
	fake_close(dir, sch, lid, &peer, ah, &ss);
	T_EQ(ss.rejs, 3, "three REJs: the rejection, the same again for the resent REQ, the new request's");
	T_EQ(ss.rej_remote_id, 0x0badcafe, "REJ: Remote Communication ID = the REQ's Local Communication ID");
	T_EQ(ss.rej_reason, 28, "REJ: reason 28 (consumer)");
}

/* ---- the REP timer follows the REQ's Local CM Response Timeout ---------------------------------- */

#define SLOW_CM 17	/* 4.096 us * 2^17 = 537 ms */

static void rep_timer(const char *dir)
{
	struct rdma_event_channel *sch;
	struct rdma_cm_id *lid;
	struct rdma_cm_event *e;
	struct t_end peer = { 0 };
	struct ibv_ah *ah;
	struct cm_msg m;
	struct seen ss;
	uint64_t t0 = 0, t1 = 0;

	sch = fake_listen(dir, 7492, &lid);
	if (!sch)
		return;
	/* a REQ from a plain UD QP of 10.0.0.2 (whose own QP1 ignores the REPs) */
	ah = fake_peer(&peer);
	fake_req(&m, 7492, SLOW_CM);
	if (fake_send(&peer, ah, &m)) {
		CHECK(1, "REQ sent to QP1 of 10.0.0.1");
		e = get(sch, RDMA_CM_EVENT_CONNECT_REQUEST, "server", 1);
		if (e) {
			struct rdma_cm_id *sid = e->id;

			rdma_ack_cm_event(e);
			t0 = hcasim_shim_now(sid->verbs);
			CHECK(!rdma_accept(sid, &(struct rdma_conn_param){ .qp_num = 0x77 }), "accept (REP)");
			get(sch, RDMA_CM_EVENT_UNREACHABLE, "server, no RTU ever", 0);
			t1 = hcasim_shim_now(sid->verbs);
			rdma_destroy_id(sid);
		}
	} else {
		CHECK(0, "REQ sent to QP1 of 10.0.0.1");
	}
	fake_close(dir, sch, lid, &peer, ah, &ss);
	T_EQ(ss.reps, 16, "the REP and 15 resends (Max CM Retries 15)");
	{
		uint64_t min_gap = UINT64_MAX;

		for (int i = 1; i < ss.reps && i < 32; i++)
			if (ss.rep_ns[i] - ss.rep_ns[i - 1] < min_gap)
				min_gap = ss.rep_ns[i] - ss.rep_ns[i - 1];
		/* (the CM's timers count whole milliseconds: 536 ms, give or take one) */
		CHECK(ss.reps > 1 && min_gap >= 530000000ull,
		      "REPs resent %llu ms apart, the REQ's 537 ms (not our own REQs' 134 ms)",
		      (unsigned long long)(min_gap / 1000000));
	}
	CHECK(t1 - t0 >= 16ull * 530000000 / 4, "UNREACHABLE after 16 x 537 ms of device time (%llu ms)",
	      (unsigned long long)((t1 - t0) * 4 / 1000000));
}

/* Runs the checks above; adds their counts to *passed and *failed (check.h
 * counts per file). */
void cm_wire_tests(unsigned long *passed, unsigned long *failed)
{
	char dir[] = "/tmp/hcasim-cmwire.XXXXXX";
	char path[64];

	if (!mkdtemp(dir)) {
		CHECK(0, "scratch directory");
		return;
	}
	psn_and_ack_timeouts(dir);
	rep_timer(dir);
	req_after_rej(dir);
	snprintf(path, sizeof(path), "%s/server.pcap", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/client.pcap", dir);
	unlink(path);
	rmdir(dir);
	*passed += check_passed_;
	*failed += check_failed_;
}
