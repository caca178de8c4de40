// SPDX-License-Identifier: MIT
/*
 * The librdmacm API (Debian's librdmacm 44, symbol versions in
 * librdmacm.map): event channels, rdma_cm_ids, address and route
 * resolution, listen/connect/accept/reject/disconnect, events, and the
 * synchronous ids of rdma_create_ep.  The protocol is cm_proto.c's.
 *
 * Return values follow librdmacm: 0, or -1 with errno.  An event channel
 * is an eventfd with a queue behind it (struct shim_evq, as completion
 * channels): one event per read, pollable, EAGAIN when O_NONBLOCK and
 * empty.  An id made without a channel (and every id of rdma_create_ep) is
 * synchronous: it has a private channel, and rdma_resolve_addr/route,
 * rdma_connect, rdma_accept, rdma_disconnect and rdma_get_request wait for
 * their outcome on it, as librdmacm's do.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "cm.h"
#include "gid.h"
#include "log.h"
#include "resolve.h"

struct cm_id *cm_ids;

static int err(int e)
{
	errno = e;
	return -1;
}

/* ---- events --------------------------------------------------------------------------- */

struct cm_event *cm_event_new(struct cm_id *owner, enum rdma_cm_event_type type, int status)
{
	struct cm_event *e = calloc(1, sizeof(*e));

	if (!e) {
		shim_err("cm: out of memory: %s event lost", rdma_event_str(type));
		return NULL;
	}
	e->ev.id = &owner->id;
	e->ev.event = type;
	e->ev.status = status;
	e->owner = owner;
	return e;
}

void cm_event_queue(struct cm_event *e)
{
	e->owner->events_out++;
	if (shim_evq_push(&e->owner->chan->q, &e)) {
		shim_err("cm: out of memory: %s event lost", rdma_event_str(e->ev.event));
		e->owner->events_out--;
		free(e);
	}
}

static void event_done(struct cm_event *e)
{
	e->owner->events_out--;
	pthread_cond_broadcast(&cm_cond);
	free(e);
}

/* Events taken out of a channel queue by take_events(). */
struct taken {
	const struct cm_id *owner;
	struct cm_event **ev;
	size_t n, cap;
};

static int take_match(const void *item, const void *arg)
{
	struct cm_event *e = *(struct cm_event *const *)item;
	struct taken *t = (struct taken *)arg;

	if (e->owner != t->owner)
		return 0;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8;
		struct cm_event **n = realloc(t->ev, cap * sizeof(*n));

		if (!n)
			return 0;	/* stays queued */
		t->ev = n;
		t->cap = cap;
	}
	t->ev[t->n++] = e;
	return 1;
}

/* Take the queued (not yet handed out) events owned by owner off channel ch. */
static void take_events(struct cm_channel *ch, const struct cm_id *owner, struct taken *t)
{
	memset(t, 0, sizeof(*t));
	t->owner = owner;
	shim_evq_remove(&ch->q, take_match, t);
}

int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	struct cm_channel *ch = (struct cm_channel *)channel;
	struct cm_event *e;

	if (!channel || !event)
		return err(EINVAL);
	if (!(fcntl(channel->fd, F_GETFL) & O_NONBLOCK))
		__atomic_store_n(&ch->blocking_reader, 1, __ATOMIC_RELAXED);
	if (cm_coop_wait(channel->fd) || shim_evq_pop(&ch->q, &e))
		return -1;
	*event = &e->ev;
	return 0;
}

int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	if (!event)
		return err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	event_done((struct cm_event *)event);
	pthread_mutex_unlock(&cm_lock);
	return 0;
}

const char *rdma_event_str(enum rdma_cm_event_type event)
{
	switch (event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED: return "RDMA_CM_EVENT_ADDR_RESOLVED";
	case RDMA_CM_EVENT_ADDR_ERROR: return "RDMA_CM_EVENT_ADDR_ERROR";
	case RDMA_CM_EVENT_ROUTE_RESOLVED: return "RDMA_CM_EVENT_ROUTE_RESOLVED";
	case RDMA_CM_EVENT_ROUTE_ERROR: return "RDMA_CM_EVENT_ROUTE_ERROR";
	case RDMA_CM_EVENT_CONNECT_REQUEST: return "RDMA_CM_EVENT_CONNECT_REQUEST";
	case RDMA_CM_EVENT_CONNECT_RESPONSE: return "RDMA_CM_EVENT_CONNECT_RESPONSE";
	case RDMA_CM_EVENT_CONNECT_ERROR: return "RDMA_CM_EVENT_CONNECT_ERROR";
	case RDMA_CM_EVENT_UNREACHABLE: return "RDMA_CM_EVENT_UNREACHABLE";
	case RDMA_CM_EVENT_REJECTED: return "RDMA_CM_EVENT_REJECTED";
	case RDMA_CM_EVENT_ESTABLISHED: return "RDMA_CM_EVENT_ESTABLISHED";
	case RDMA_CM_EVENT_DISCONNECTED: return "RDMA_CM_EVENT_DISCONNECTED";
	case RDMA_CM_EVENT_DEVICE_REMOVAL: return "RDMA_CM_EVENT_DEVICE_REMOVAL";
	case RDMA_CM_EVENT_MULTICAST_JOIN: return "RDMA_CM_EVENT_MULTICAST_JOIN";
	case RDMA_CM_EVENT_MULTICAST_ERROR: return "RDMA_CM_EVENT_MULTICAST_ERROR";
	case RDMA_CM_EVENT_ADDR_CHANGE: return "RDMA_CM_EVENT_ADDR_CHANGE";
	case RDMA_CM_EVENT_TIMEWAIT_EXIT: return "RDMA_CM_EVENT_TIMEWAIT_EXIT";
	default: return "UNKNOWN EVENT";
	}
}

/* ---- channels ------------------------------------------------------------------------- */

static struct cm_channel *channel_new(void)
{
	struct cm_channel *ch = calloc(1, sizeof(*ch));
	int ret;

	if (!ch) {
		errno = ENOMEM;
		return NULL;
	}
	ret = shim_evq_init(&ch->q, sizeof(struct cm_event *));
	if (ret) {
		free(ch);
		errno = -ret;
		return NULL;
	}
	ch->ch.fd = ch->q.fd;
	return ch;
}

static void channel_free(struct cm_channel *ch)
{
	shim_evq_destroy(&ch->q);
	free(ch);
}

struct rdma_event_channel *rdma_create_event_channel(void)
{
	struct cm_channel *ch;
	int ret = cm_init();

	if (ret) {
		errno = ret;
		return NULL;
	}
	ch = channel_new();
	return ch ? &ch->ch : NULL;
}

/*
 * Channels destroyed while a thread may still be on its way into
 * rdma_get_cm_event (rping's cm_thread loops back into it after acking the
 * DISCONNECTED event while main destroys the channel).  librdmacm closes the
 * fd and such a late reader fails with EBADF (or reads freed memory); the
 * kernel's read only protects a reader already blocked in it, and the shim's
 * wait takes longer to get there.  A channel that ever had a blocking reader
 * is therefore kept, its eventfd open and never signalled again, so a late
 * reader blocks as it would in the kernel until the process ends: one
 * eventfd per such channel, reachable from here.
 */
static struct cm_channel *retired_channels;

void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	struct cm_channel *ch = (struct cm_channel *)channel;

	if (!ch)
		return;
	if (!__atomic_load_n(&ch->blocking_reader, __ATOMIC_RELAXED)) {
		channel_free(ch);
		return;
	}
	pthread_mutex_lock(&cm_lock);
	ch->retired_next = retired_channels;
	retired_channels = ch;
	pthread_mutex_unlock(&cm_lock);
}

/* ---- ids ----------------------------------------------------------------------------------- */

struct cm_id *cm_id_alloc(struct cm_channel *chan, void *context, enum rdma_port_space ps)
{
	struct cm_id *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->chan = chan;
	c->id.channel = &chan->ch;
	c->id.context = context;
	c->id.ps = ps;
	c->id.qp_type = ps == RDMA_PS_UDP || ps == RDMA_PS_IPOIB ? IBV_QPT_UD : IBV_QPT_RC;
	c->qp_timeout = CM_QP_TIMEOUT;
	c->resp_timeout = CM_RESPONSE_TIMEOUT;
	c->next = cm_ids;
	cm_ids = c;
	return c;
}

void cm_id_free(struct cm_id *c)
{
	for (struct cm_id **pp = &cm_ids; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	free(c->ep_attr);
	free(c);
}

void cm_bind_dev(struct cm_id *c, struct cm_dev *d)
{
	c->dev = d;
	c->id.verbs = d->ctx;
	c->id.port_num = 1;
	memcpy(c->id.route.addr.addr.ibaddr.sgid.raw, d->gid, 16);
	c->id.route.addr.addr.ibaddr.pkey = htons(0xffff);
}

static void sin_set(struct sockaddr_in *s, uint32_t ip, uint16_t port)
{
	memset(s, 0, sizeof(*s));
	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	s->sin_addr.s_addr = htonl(ip);
}

void cm_set_addrs(struct cm_id *c)
{
	sin_set(&c->id.route.addr.src_sin, c->lip, c->lport);
	if (c->rip) {
		sin_set(&c->id.route.addr.dst_sin, c->rip, c->rport);
		memcpy(c->id.route.addr.addr.ibaddr.dgid.raw, c->rgid, 16);
	}
}

int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context,
		   enum rdma_port_space ps)
{
	struct cm_channel *ch;
	struct cm_id *c;
	int ret;

	if (!id)
		return err(EINVAL);
	ret = cm_init();
	if (ret)
		return err(ret);
	if (ps != RDMA_PS_TCP && ps != RDMA_PS_UDP && ps != RDMA_PS_IB && ps != RDMA_PS_IPOIB)
		return err(EPROTONOSUPPORT);
	ch = channel ? (struct cm_channel *)channel : channel_new();
	if (!ch)
		return -1;
	pthread_mutex_lock(&cm_lock);
	c = cm_id_alloc(ch, context, ps);
	if (c)
		c->sync = !channel;
	pthread_mutex_unlock(&cm_lock);
	if (!c) {
		if (!channel)
			channel_free(ch);
		return err(ENOMEM);
	}
	*id = &c->id;
	return 0;
}

/* Forget an id nobody else holds: tell the peer, drop its queued events (cm_lock held). */
static void id_drop(struct cm_id *c)
{
	struct taken t;

	cm_abandon(c);
	take_events(c->chan, c, &t);
	for (size_t i = 0; i < t.n; i++) {
		struct cm_event *e = t.ev[i];

		/* a connection request the application never saw: its id goes too */
		if (e->ev.event == RDMA_CM_EVENT_CONNECT_REQUEST && e->ev.id != &c->id) {
			struct cm_id *child = to_cmid(e->ev.id);

			cm_abandon(child);
			cm_id_free(child);
		}
		event_done(e);
	}
	free(t.ev);
	for (struct cm_id *o = cm_ids; o; o = o->next)
		if (o->listener == c)
			o->listener = NULL;
}

int rdma_destroy_id(struct rdma_cm_id *id)
{
	struct cm_id *c = to_cmid(id);
	struct cm_channel *priv;

	if (!id)
		return err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	priv = c->sync ? c->chan : NULL;
	id_drop(c);
	if (id->event) {
		event_done((struct cm_event *)id->event);
		id->event = NULL;
	}
	/* librdmacm: destroying an id waits for the acknowledgement of its events */
	while (c->events_out)
		pthread_cond_wait(&cm_cond, &cm_lock);
	cm_id_free(c);
	pthread_mutex_unlock(&cm_lock);
	if (priv)
		channel_free(priv);
	return 0;
}

/* Synchronous ids: wait for the outcome of the operation (librdmacm's ucma_complete). */
static int sync_wait(struct cm_id *c)
{
	struct rdma_cm_event *e;

	if (!c->sync)
		return 0;
	if (c->id.event) {
		rdma_ack_cm_event(c->id.event);
		c->id.event = NULL;
	}
	if (rdma_get_cm_event(&c->chan->ch, &e))
		return -1;
	c->id.event = e;
	if (!e->status)
		return 0;
	if (e->event == RDMA_CM_EVENT_REJECTED)
		return err(ECONNREFUSED);
	return err(e->status < 0 ? -e->status : e->status);
}

/* ---- addresses ------------------------------------------------------------------------------ */

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct cm_id *c = to_cmid(id);
	uint32_t ip;
	uint16_t port;
	int ret;

	if (!id || !addr)
		return err(EINVAL);
	ret = cm_sockaddr_ipv4(addr, &ip, &port);
	if (ret)
		return err(ret);
	pthread_mutex_lock(&cm_lock);
	ret = (c->flags & CM_F_BOUND) ? EINVAL : cm_bind(c, ip, port);
	pthread_mutex_unlock(&cm_lock);
	return ret ? err(ret) : 0;
}

int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr, struct sockaddr *dst_addr,
		      int timeout_ms)
{
	struct cm_id *c = to_cmid(id);
	uint32_t sip = 0, dip;
	uint16_t sport = 0, dport;
	struct cm_event *e;
	struct cm_dev *d;
	uint8_t mac[6];
	int ret;

	(void)timeout_ms;
	if (!id || !dst_addr)
		return err(EINVAL);
	ret = cm_sockaddr_ipv4(dst_addr, &dip, &dport);
	if (!ret && src_addr)
		ret = cm_sockaddr_ipv4(src_addr, &sip, &sport);
	if (ret)
		return err(ret);
	pthread_mutex_lock(&cm_lock);
	if (c->state != CM_IDLE || (c->flags & CM_F_CONN))
		ret = EINVAL;
	else if (!(c->flags & CM_F_BOUND))
		ret = cm_bind(c, sip, sport);
	if (ret) {
		pthread_mutex_unlock(&cm_lock);
		return err(ret);
	}
	/* The device: the bound one, the destination itself (loopback), or the first. */
	d = c->dev ? c->dev : cm_dev_by_ip(dip) ? cm_dev_by_ip(dip) : cm_dev_get(0);
	if (!c->dev)
		cm_bind_dev(c, d);
	if (!c->lip)
		c->lip = d->ip;
	c->rip = dip;
	c->rport = dport;
	shim_gid_from_ipv4(dip, c->rgid);
	cm_set_addrs(c);
	pthread_mutex_unlock(&cm_lock);

	/* The address service of the switch answers for every HCA attached to it (resolve.h). */
	ret = shim_resolve_ipv4(d->sd, dip, mac);
	pthread_mutex_lock(&cm_lock);
	if (ret)
		shim_dbg(1, "%s: cm: %u.%u.%u.%u is unknown: ADDR_ERROR", d->sd->cfg.name, dip >> 24,
			 (dip >> 16) & 0xff, (dip >> 8) & 0xff, dip & 0xff);
	else
		c->flags |= CM_F_ADDR;
	e = cm_event_new(c, ret ? RDMA_CM_EVENT_ADDR_ERROR : RDMA_CM_EVENT_ADDR_RESOLVED,
			 ret ? -EHOSTUNREACH : 0);
	if (e)
		cm_event_queue(e);
	pthread_mutex_unlock(&cm_lock);
	return sync_wait(c);
}

int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	struct cm_id *c = to_cmid(id);
	struct cm_event *e;

	(void)timeout_ms;
	if (!id)
		return err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	if (!(c->flags & CM_F_ADDR)) {
		pthread_mutex_unlock(&cm_lock);
		return err(EINVAL);
	}
	/* RoCE: the route is the resolved address; nothing goes on the wire. */
	c->flags |= CM_F_ROUTE;
	cm_fill_path(c);
	e = cm_event_new(c, RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
	if (e)
		cm_event_queue(e);
	pthread_mutex_unlock(&cm_lock);
	return sync_wait(c);
}

__be16 rdma_get_src_port(struct rdma_cm_id *id)
{
	return id->route.addr.src_sin.sin_port;
}

__be16 rdma_get_dst_port(struct rdma_cm_id *id)
{
	return id->route.addr.dst_sin.sin_port;
}

/* ---- connections ------------------------------------------------------------------------------ */

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct cm_id *c = to_cmid(id);
	int ret = 0;

	(void)backlog;
	if (!id)
		return err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	if (!(c->flags & CM_F_BOUND))
		ret = cm_bind(c, 0, 0);
	if (!ret && c->state != CM_IDLE)
		ret = EINVAL;
	if (!ret) {
		c->state = CM_LISTEN;
		shim_dbg(1, "cm: listening on %u.%u.%u.%u:%u (port space %#x)", c->lip >> 24,
			 (c->lip >> 16) & 0xff, (c->lip >> 8) & 0xff, c->lip & 0xff, c->lport, id->ps);
	}
	pthread_mutex_unlock(&cm_lock);
	return ret ? err(ret) : 0;
}

int rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id)
{
	struct cm_id *l = to_cmid(listen), *c;
	struct rdma_cm_event *ev;
	struct cm_channel *ch;
	int ret = 0;

	if (!listen || !id || !l->sync)
		return err(EINVAL);
	if (listen->event) {
		rdma_ack_cm_event(listen->event);
		listen->event = NULL;
	}
	if (rdma_get_cm_event(listen->channel, &ev))
		return -1;
	if (ev->event == RDMA_CM_EVENT_REJECTED)
		ret = ECONNREFUSED;
	else if (ev->status)
		ret = ev->status < 0 ? -ev->status : ev->status;
	else if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		ret = EINVAL;
	ch = ret ? NULL : channel_new();
	if (!ret && !ch)
		ret = errno;
	if (ret) {
		rdma_ack_cm_event(ev);
		return err(ret);
	}
	c = to_cmid(ev->id);
	pthread_mutex_lock(&cm_lock);
	/* The new id is synchronous too, with its own channel, and holds the event. */
	((struct cm_event *)ev)->owner = c;
	l->events_out--;
	c->events_out++;
	pthread_cond_broadcast(&cm_cond);
	c->chan = ch;
	c->id.channel = &ch->ch;
	c->sync = 1;
	c->listener = NULL;
	pthread_mutex_unlock(&cm_lock);
	c->id.event = ev;
	if (l->ep_attr) {
		struct ibv_qp_init_attr attr = *l->ep_attr;

		if (rdma_create_qp(&c->id, listen->pd, &attr)) {
			ret = errno;
			rdma_reject(&c->id, NULL, 0);
			rdma_destroy_id(&c->id);
			return err(ret);
		}
	}
	*id = &c->id;
	return 0;
}

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct cm_id *c = to_cmid(id);
	int ret;

	if (!id)
		return err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	ret = (c->flags & CM_F_ROUTE) && c->state == CM_IDLE ? cm_connect(c, conn_param) : EINVAL;
	pthread_mutex_unlock(&cm_lock);
	return ret ? err(ret) : sync_wait(c);
}

int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct cm_id *c = to_cmid(id);
	int ret;

	if (!id)
		return err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	ret = cm_accept(c, conn_param);
	pthread_mutex_unlock(&cm_lock);
	if (ret)
		return err(ret);
	/* UD: the SIDR_REP is all; nothing more happens on the passive side */
	return c->state == CM_SIDR_DONE ? 0 : sync_wait(c);
}

int rdma_reject(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	struct cm_id *c = to_cmid(id);
	int ret;

	if (!id)
		return err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	ret = cm_reject(c, CM_REJ_CONSUMER, private_data, private_data_len);
	pthread_mutex_unlock(&cm_lock);
	return ret ? err(ret) : 0;
}

int rdma_reject_ece(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	return rdma_reject(id, private_data, private_data_len);
}

int rdma_establish(struct rdma_cm_id *id)
{
	struct cm_id *c = to_cmid(id);
	int ret;

	if (!id)
		return err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	ret = id->qp ? EINVAL : cm_establish(c);
	pthread_mutex_unlock(&cm_lock);
	return ret ? err(ret) : 0;
}

int rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	struct cm_id *c = to_cmid(id);

	if (!id)
		return err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	/* Data arrived before the RTU: the connection is established (IB spec 12.9.7.2). */
	if (event == IBV_EVENT_COMM_EST && c->state == CM_REP_SENT) {
		struct cm_event *e = cm_event_new(c, RDMA_CM_EVENT_ESTABLISHED, 0);

		c->state = CM_ESTABLISHED;
		c->deadline = 0;
		if (e)
			cm_event_queue(e);
	}
	pthread_mutex_unlock(&cm_lock);
	return 0;
}

int rdma_disconnect(struct rdma_cm_id *id)
{
	struct cm_id *c = to_cmid(id);
	enum cm_state was;
	int ret;

	if (!id)
		return err(EINVAL);
	pthread_mutex_lock(&cm_lock);
	was = c->state;
	if (id->qp_type != IBV_QPT_UD)
		cm_qp_error(c);	/* librdmacm moves the QP to ERR first */
	ret = cm_disconnect(c);
	pthread_mutex_unlock(&cm_lock);
	if (ret)
		return err(ret);
	/* a synchronous id waits for DISCONNECTED: the DREP, or the DREQ it answers */
	if (was == CM_ESTABLISHED || was == CM_REP_SENT || was == CM_DREQ_RCVD)
		return sync_wait(c);
	return 0;
}

int rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	struct cm_id *c = to_cmid(id);
	struct cm_channel *ch, *old = NULL;
	struct taken t;

	if (!id)
		return err(EINVAL);
	ch = channel ? (struct cm_channel *)channel : channel_new();
	if (!ch)
		return -1;
	pthread_mutex_lock(&cm_lock);
	/* queued events move with the id, in order */
	take_events(c->chan, c, &t);
	for (size_t i = 0; i < t.n; i++)
		if (shim_evq_push(&ch->q, &t.ev[i]))
			event_done(t.ev[i]);
	free(t.ev);
	if (c->sync)
		old = c->chan;
	c->chan = ch;
	id->channel = &ch->ch;
	c->sync = !channel;
	pthread_mutex_unlock(&cm_lock);
	if (old)
		channel_free(old);
	return 0;
}

int rdma_set_option(struct rdma_cm_id *id, int level, int optname, void *optval, size_t optlen)
{
	struct cm_id *c = to_cmid(id);

	if (!id || !optval)
		return err(EINVAL);
	if (level != RDMA_OPTION_ID)
		return err(ENOSYS);
	switch (optname) {
	case RDMA_OPTION_ID_TOS:
		if (optlen != sizeof(uint8_t))
			return err(EINVAL);
		c->tos = *(uint8_t *)optval;
		return 0;
	case RDMA_OPTION_ID_REUSEADDR:
	case RDMA_OPTION_ID_AFONLY:
		return optlen == sizeof(int) ? 0 : err(EINVAL);
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		if (optlen != sizeof(uint8_t) || *(uint8_t *)optval > 31)
			return err(EINVAL);
		c->qp_timeout = *(uint8_t *)optval;
		c->qp_timeout_set = 1;
		return 0;
	default:
		return err(ENOSYS);
	}
}

/* ---- devices ---------------------------------------------------------------------------------- */

struct ibv_context **rdma_get_devices(int *num_devices)
{
	struct ibv_context **list;
	int ret = cm_init();

	if (num_devices)
		*num_devices = 0;
	if (ret) {
		errno = ret;
		return NULL;
	}
	list = calloc(cm_ndevs() + 1, sizeof(*list));
	if (!list) {
		errno = ENOMEM;
		return NULL;
	}
	for (unsigned int i = 0; i < cm_ndevs(); i++)
		list[i] = cm_dev_get(i)->ctx;
	if (num_devices)
		*num_devices = (int)cm_ndevs();
	return list;
}

void rdma_free_devices(struct ibv_context **list)
{
	free(list);
}

/* ---- what this connection manager does not do ---------------------------------------------------- */

int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr, void *context)
{
	(void)id;
	(void)addr;
	(void)context;
	return err(ENOSYS);
}

int rdma_join_multicast_ex(struct rdma_cm_id *id, struct rdma_cm_join_mc_attr_ex *mc_join_attr,
			   void *context)
{
	(void)id;
	(void)mc_join_attr;
	(void)context;
	return err(ENOSYS);
}

int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	(void)id;
	(void)addr;
	return err(ENOSYS);
}

int rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	(void)id;
	(void)ece;
	return err(EOPNOTSUPP);
}

int rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	(void)id;
	(void)ece;
	return err(EOPNOTSUPP);
}
