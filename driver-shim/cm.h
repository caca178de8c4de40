/* SPDX-License-Identifier: MIT */
/*
 * The connection manager of the shim: librdmacm's API (rdmacm*.c) on top of
 * an IB CM that speaks CM MADs on QP1 of each simulated HCA, as RoCE
 * hardware and the kernel's ib_cm/rdma_cm do (docs/shim.md, "Connection
 * manager").
 *
 *   rdmacm.c        the rdma_* API: event channels, ids, bind/resolve/listen,
 *                   connect/accept/reject/disconnect, events, sync ids (ep)
 *   rdmacm_qp.c     rdma_create_qp & co, rdma_init_qp_attr, QP transitions
 *   rdmacm_addr.c   rdma_getaddrinfo, addresses and ports
 *   cm_proto.c      the CM protocol: REQ/REP/RTU/REJ/MRA/DREQ/DREP, SIDR,
 *                   retransmission timers
 *   cm_agent.c      per device: the rdma_cm context, QP1 (GSI), MAD send and
 *                   receive, the CM thread (threaded mode) or cm_progress
 *   cm_mad.[ch]     the MAD formats
 *
 * Locking: one process-wide lock, cm_lock, guards every id, listener and
 * agent; it is taken by API calls and by the CM thread, and never held
 * while blocking on an event channel.  Verbs calls made under it (QP
 * transitions, posting on QP1) wait only for the device, never for cm_lock.
 */
#ifndef HCASIM_SHIM_CM_H
#define HCASIM_SHIM_CM_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <stdint.h>

#include "cm_mad.h"
#include "shim.h"

/* Timing and limits of the CM (docs/shim.md explains the choice). */
#define CM_RESPONSE_TIMEOUT 15	/* 4.096 us * 2^15 = 134 ms: our CM answers within it; the active
				 * side resends REQ/DREQ/SIDR_REQ after it (the passive side
				 * resends its REP/DREQ after the REQ's Local CM Response Timeout) */
#define CM_MAX_RETRIES 15	/* resends before giving up (Linux: CMA_MAX_CM_RETRIES) */
#define CM_MRA_TIMEOUT 18	/* service timeout of our MRAs: 1.07 s more */
#define CM_QP_TIMEOUT 14	/* a round trip on the path (2 x packet life time): 67 ms; a QP's
				 * local ACK timeout adds the responder's ACK delay (cm_ack_timeout) */
#define CM_MIN_RNR_TIMER 12	/* 0.64 ms */
#define CM_HOP_LIMIT 64		/* IPv4 TTL of the connection's packets */
#define CM_UDP_QKEY 0x01234567u	/* RDMA_UDP_QKEY: the Q_Key of rdma_cm UD QPs */

extern pthread_mutex_t cm_lock;
extern pthread_cond_t cm_cond;	/* an event was acknowledged */

/* ---- agents (cm_agent.c) ----------------------------------------------------------- */

#define CM_RECV_SLOTS 64
#define CM_SEND_SLOTS 64
#define CM_AH_CACHE 16

struct cm_dev {
	struct shim_device *sd;
	struct ibv_context *ctx;	/* what rdma_cm ids of this device expose as id->verbs */
	struct ibv_pd *pd;		/* default PD (rdma_create_qp/ep with pd NULL) and QP1's */
	struct ibv_comp_channel *cch;
	struct ibv_cq *cq;
	struct ibv_qp *qp1;		/* the GSI QP: QPN 1 */
	struct ibv_mr *mr;
	uint8_t *buf;			/* receive slots (GRH + MAD), then send slots (MAD) */
	uint8_t send_busy[CM_SEND_SLOTS];
	struct { uint8_t gid[16]; struct ibv_ah *ah; } ah[CM_AH_CACHE];
	unsigned int ah_next;
	uint32_t ip;			/* the port's IPv4 address (GID index 1) */
	uint8_t gid[16];
	uint64_t guid;			/* node GUID, as verbs keeps it */
	enum ibv_mtu mtu;		/* active MTU of the port */
	uint8_t max_rd_atom, max_init_rd_atom;
	uint8_t ack_delay;		/* local CA ACK delay (ibv_query_device): REP Target ACK Delay */
};

/* Open every device and start its agent (idempotent, like librdmacm's init). 0 or errno. */
int cm_init(void);
unsigned int cm_ndevs(void);
struct cm_dev *cm_dev_get(unsigned int i);
struct cm_dev *cm_dev_by_ip(uint32_t ip);
struct cm_dev *cm_dev_by_ctx(const struct ibv_context *ctx);
/* Send one MAD to the QP1 of the port with GID dgid (cm_lock held). 0 or errno. */
int cm_agent_send(struct cm_dev *d, const uint8_t dgid[16], const uint8_t mad[CM_MAD_SIZE]);
/* Milliseconds of the CM's clock: wall clock (threaded), device time (cooperative). */
uint64_t cm_now_ms(void);
/* A timer was armed: let the CM thread recompute its sleep. */
void cm_kick(void);
/* Cooperative mode: receive what arrived on QP1 and run the timers. */
void cm_progress(void);
/* Cooperative mode: wait for fd to become readable, stepping the simulation. 0 or -1/errno. */
int cm_coop_wait(int fd);

/* ---- channels, ids, events (rdmacm.c) ---------------------------------------------- */

struct cm_channel {
	struct rdma_event_channel ch;	/* first: what the application holds */
	struct shim_evq q;		/* struct cm_event * items */
	int blocking_reader;		/* a thread has waited in rdma_get_cm_event on it */
	struct cm_channel *retired_next;	/* destroyed but kept: see rdma_destroy_event_channel */
};

enum cm_state {
	CM_IDLE,		/* created; maybe bound, address and route resolved */
	CM_LISTEN,
	CM_REQ_SENT,		/* active: REQ sent, waiting for REP (an MRA extends the wait) */
	CM_REP_RCVD,		/* active without a QP: CONNECT_RESPONSE given, waiting for rdma_establish */
	CM_REQ_RCVD,		/* passive: CONNECT_REQUEST given, waiting for accept/reject */
	CM_REP_SENT,		/* passive: REP sent, waiting for RTU */
	CM_ESTABLISHED,
	CM_DREQ_SENT,
	CM_DREQ_RCVD,		/* DISCONNECTED given, DREP not yet sent */
	CM_TIMEWAIT,		/* disconnected */
	CM_SIDR_REQ_SENT,	/* active UD: SIDR_REQ sent */
	CM_SIDR_REQ_RCVD,	/* passive UD: CONNECT_REQUEST given */
	CM_SIDR_DONE,		/* passive UD: SIDR_REP sent (kept for duplicates) */
};

#define CM_F_BOUND 1u		/* has a local address and port */
#define CM_F_ADDR 2u		/* destination address resolved */
#define CM_F_ROUTE 4u		/* route resolved */
#define CM_F_CONN 8u		/* the connection parameters of a peer are known */
#define CM_F_CHILD 16u		/* made by a request to a listener: shares its port */

struct cm_id {
	struct rdma_cm_id id;		/* first: what the application holds */
	struct cm_id *next;		/* every id of the process */
	struct cm_channel *chan;	/* == id.channel */
	int sync;			/* private channel: operations wait for their outcome */
	struct cm_dev *dev;		/* bound device; NULL unbound or wildcard listener */
	enum cm_state state;
	unsigned int flags;		/* CM_F_* */
	uint32_t lip, rip;		/* host order; lip 0: wildcard */
	uint16_t lport, rport;		/* host order */
	uint8_t tos;
	uint8_t qp_timeout;		/* the RC QP's local ACK timeout: RDMA_OPTION_ID_ACK_TIMEOUT, else
					 * from the REQ (passive) or the REP's Target ACK Delay (active) */
	uint8_t qp_timeout_set;		/* the application set it (RDMA_OPTION_ID_ACK_TIMEOUT) */
	uint8_t resp_timeout;		/* how long the peer's CM takes to answer (CM encoding):
					 * our requests are resent after it */
	uint64_t req_resend_ms;		/* passive: how long the active side may go on resending
					 * its REQ (a REJ for it is remembered that long) */
	struct ibv_sa_path_rec path;
	/* the connection */
	uint32_t local_id, remote_id;	/* communication IDs (SIDR: request ID in both) */
	uint64_t tid;			/* transaction of the exchange in progress */
	uint8_t rgid[16];		/* the peer's port GID: where our MADs go */
	uint32_t qpn;			/* our QPN as announced (id->qp or conn_param.qp_num) */
	uint32_t rqpn, rqkey;
	/* Starting PSNs (REQ/REP): the one we announce is our receive queue's
	 * first expected PSN, the peer's our send queue's first PSN (IB spec
	 * 12.6.5/12.6.8, as Linux ib_cm: rq_psn = own message's, sq_psn = the peer's). */
	uint32_t lpsn, rpsn;
	uint8_t resp_res, init_depth;	/* our QP's max_dest_rd_atomic, max_rd_atomic */
	uint8_t retry_count, rnr_retry;	/* for our QP's RTS */
	uint8_t peer_resp_res, peer_init_depth;	/* what the REQ offered (accept defaults) */
	uint8_t mtu;			/* enum ibv_mtu of the path */
	uint8_t flow_control, srq;
	/* retransmission of the last request (REQ, REP, DREQ, SIDR_REQ) or answer kept for duplicates */
	uint8_t mad[CM_MAD_SIZE];
	uint64_t deadline;		/* cm_now_ms() of the next resend; 0: no timer */
	unsigned int retries;		/* resends left */
	/* events */
	unsigned int events_out;	/* queued or handed out, not acknowledged */
	struct cm_id *listener;		/* passive: the listener while its CONNECT_REQUEST is queued */
	/* rdma_create_ep on a passive id: the QP every rdma_get_request gets */
	struct ibv_qp_init_attr *ep_attr;
	/* CQs rdma_create_qp made because the caller gave none */
	int own_send_cq, own_recv_cq;
};

static inline struct cm_id *to_cmid(struct rdma_cm_id *id)
{
	return (struct cm_id *)id;
}

struct cm_event {
	struct rdma_cm_event ev;	/* first: what the application holds */
	struct cm_id *owner;		/* whose destroy waits for the acknowledgement */
	uint8_t pdata[CM_MAX_PDATA];
};

extern struct cm_id *cm_ids;		/* every id (cm_lock) */

/*
 * Events (cm_lock held): cm_event_new makes an event about owner, counted
 * against owner (its destroy waits for the acknowledgement); the caller
 * fills the parameters and queues it on owner's channel with
 * cm_event_queue.  A CONNECT_REQUEST is owned by the listener and names the
 * new id in ev.id.  NULL if out of memory (the event is lost, logged).
 */
struct cm_event *cm_event_new(struct cm_id *owner, enum rdma_cm_event_type type, int status);
void cm_event_queue(struct cm_event *e);
/* A new id like rdma_create_id's, on chan (cm_lock held). NULL if out of memory. */
struct cm_id *cm_id_alloc(struct cm_channel *chan, void *context, enum rdma_port_space ps);
/* Unlink and free an id nobody holds (cm_lock held). */
void cm_id_free(struct cm_id *cid);
/* The address of id's end in route.addr (src) and of the peer (dst). */
void cm_set_addrs(struct cm_id *cid);
/* The id's device: route GIDs, verbs context, port. */
void cm_bind_dev(struct cm_id *cid, struct cm_dev *d);

/* ---- protocol (cm_proto.c); all with cm_lock held ---------------------------------- */

/* Active side: REQ (connected port spaces) or SIDR_REQ (UD). 0 or errno. */
int cm_connect(struct cm_id *cid, const struct rdma_conn_param *p);
/* Passive side: REP or SIDR_REP after the QP is ready. 0 or errno. */
int cm_accept(struct cm_id *cid, const struct rdma_conn_param *p);
int cm_reject(struct cm_id *cid, uint16_t reason, const void *pdata, uint8_t len);
/* rdma_establish: RTU after CONNECT_RESPONSE. 0 or errno. */
int cm_establish(struct cm_id *cid);
/* DREQ, or the DREP of a received DREQ. 0 or errno. */
int cm_disconnect(struct cm_id *cid);
/* What destroying an id tells the peer (REJ, DREQ, DREP) and forgets. */
void cm_abandon(struct cm_id *cid);
/* A MAD received on QP1 of d. */
void cm_recv(struct cm_dev *d, const uint8_t *mad, size_t len, const struct ibv_wc *wc,
	     const struct ibv_grh *grh);
/* Resend or give up what is due; the next deadline (0: none). */
uint64_t cm_timers(uint64_t now);
/* Forget the REQs rejected so far (their devices are going away: cm_shutdown). */
void cm_forget_rejected(void);

/* ---- QPs (rdmacm_qp.c), cm_lock held ---------------------------------------------- */

/* Move the id's QP through RTR and RTS with the connection's parameters. 0 or errno. */
int cm_qp_ready(struct cm_id *cid);
/* Move the id's QP to ERR (disconnect, reject). */
void cm_qp_error(struct cm_id *cid);
/* The attributes of rdma_init_qp_attr. 0 or errno. */
int cm_qp_attr(struct cm_id *cid, struct ibv_qp_attr *a, int *mask);

/* ---- addresses (rdmacm_addr.c) ----------------------------------------------------- */

/* IPv4 address and port of a sockaddr (AF_INET, or AF_INET6 :: / ::ffff:a.b.c.d). 0 or errno. */
int cm_sockaddr_ipv4(const struct sockaddr *sa, uint32_t *ip, uint16_t *port);
/* Bind cid to ip:port (0: wildcard / ephemeral), cm_lock held. 0 or errno. */
int cm_bind(struct cm_id *cid, uint32_t ip, uint16_t port);
void cm_fill_path(struct cm_id *cid);

#endif /* HCASIM_SHIM_CM_H */
