// SPDX-License-Identifier: MIT
/*
 * Events: completion channels, ibv_get_cq_event/ibv_ack_cq_events, the async
 * fd with ibv_get_async_event/ibv_ack_async_event, and the interrupt handler
 * that turns EQEs into both.
 *
 * Path of a completion event: the application arms a CQ (CQ_ARM doorbell);
 * the engine writes a CQE, disarms the CQ and writes a COMP EQE to the
 * context's EQ, then fires the EQ's MSI-X vector; the bus signals the vector
 * and runs shim_irq(), which reads the EQEs, queues the CQ on its channel
 * (making the channel fd readable) and re-arms the EQ.  Async events follow
 * the same path to the context's async queue (async_fd).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <stdlib.h>

#include "hw.h"
#include "log.h"
#include "shim.h"

/* ---- completion channels ---------------------------------------------------------- */

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	struct shim_channel *ch = calloc(1, sizeof(*ch));
	int ret;

	if (!ch)
		return shim_null(ENOMEM);
	ret = shim_evq_init(&ch->q, sizeof(struct shim_cq *));
	if (ret) {
		free(ch);
		return shim_null(-ret);
	}
	ch->ch.context = context;
	ch->ch.fd = ch->q.fd;
	ch->ch.refcnt = 0;
	return &ch->ch;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct shim_channel *ch = to_sch(channel);
	int busy;

	pthread_mutex_lock(&channel->context->mutex);
	busy = channel->refcnt != 0;
	pthread_mutex_unlock(&channel->context->mutex);
	if (busy)
		return shim_errno(EBUSY);
	shim_evq_destroy(&ch->q);
	free(ch);
	return 0;
}

static int fd_nonblocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl >= 0 && (fl & O_NONBLOCK);
}

static int fd_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/*
 * Cooperative mode has no device thread: a blocking wait for an event steps
 * the simulation until the event is there.  If nothing is scheduled, or a
 * whole simulated second passes with only timers firing, the event is not
 * coming: fail with EDEADLK rather than hang.
 */
#define COOP_WAIT_LIMIT (1ull << 28)	/* cycles: about 1 s of device time */

static int coop_wait_event(struct shim_device *d, int fd)
{
	uint64_t start;

	if (d->mode != SHIM_MODE_COOP || fd_nonblocking(fd))
		return 0;
	start = shim_coop_now();
	while (!fd_readable(fd)) {
		if (shim_coop_step() == SHIM_STEP_IDLE || shim_coop_now() - start > COOP_WAIT_LIMIT) {
			if (fd_readable(fd))
				break;
			errno = EDEADLK;
			return -1;
		}
	}
	return 0;
}

int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	struct shim_channel *ch = to_sch(channel);
	struct shim_cq *scq;

	if (coop_wait_event(to_sctx(channel->context)->dev, channel->fd))
		return -1;
	if (shim_evq_pop(&ch->q, &scq))
		return -1;
	pthread_mutex_lock(&scq->cq.mutex);
	scq->comp_events++;
	pthread_mutex_unlock(&scq->cq.mutex);
	*cq = &scq->cq;
	*cq_context = scq->cq.cq_context;
	return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

/* ---- async events ------------------------------------------------------------------------ */

int ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	struct shim_context *c = to_sctx(context);

	if (coop_wait_event(c->dev, context->async_fd))
		return -1;
	if (shim_evq_pop(&c->async_q, event))
		return -1;
	/* Count what was handed out: destroying the object waits for the acks. */
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR: {
		struct shim_cq *cq = to_scq(event->element.cq);

		pthread_mutex_lock(&cq->cq.mutex);
		cq->async_events++;
		pthread_mutex_unlock(&cq->cq.mutex);
		break;
	}
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED: {
		struct shim_qp *qp = to_sqp(event->element.qp);

		pthread_mutex_lock(&qp->qp.mutex);
		qp->async_events++;
		pthread_mutex_unlock(&qp->qp.mutex);
		break;
	}
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED: {
		struct shim_srq *srq = to_ssrq(event->element.srq);

		pthread_mutex_lock(&srq->srq.mutex);
		srq->async_events++;
		pthread_mutex_unlock(&srq->srq.mutex);
		break;
	}
	default:
		break;
	}
	return 0;
}

void ibv_ack_async_event(struct ibv_async_event *event)
{
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR: {
		struct ibv_cq *cq = event->element.cq;

		pthread_mutex_lock(&cq->mutex);
		cq->async_events_completed++;
		pthread_cond_signal(&cq->cond);
		pthread_mutex_unlock(&cq->mutex);
		return;
	}
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED: {
		struct ibv_qp *qp = event->element.qp;

		pthread_mutex_lock(&qp->mutex);
		qp->events_completed++;
		pthread_cond_signal(&qp->cond);
		pthread_mutex_unlock(&qp->mutex);
		return;
	}
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED: {
		struct ibv_srq *srq = event->element.srq;

		pthread_mutex_lock(&srq->mutex);
		srq->events_completed++;
		pthread_cond_signal(&srq->cond);
		pthread_mutex_unlock(&srq->mutex);
		return;
	}
	default:
		return;
	}
}

/* ---- interrupt handler ---------------------------------------------------------------- */

/* Build the verbs event of an ASYNC EQE; 0 if its object is gone. */
static int to_async_event(struct shim_context *c, const struct hca_eqe *e,
			  struct ibv_async_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->event_type = (enum ibv_event_type)e->subtype;
	switch (ev->event_type) {
	case IBV_EVENT_CQ_ERR:
		if (e->element >= SHIM_MAX_CQN || !c->cq_by_num[e->element])
			return 0;
		ev->element.cq = &c->cq_by_num[e->element]->cq;
		return 1;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		if (e->element >= SHIM_MAX_QPN || !c->qp_by_num[e->element])
			return 0;
		ev->element.qp = &c->qp_by_num[e->element]->qp;
		return 1;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		if (e->element >= SHIM_MAX_SRQN || !c->srq_by_num[e->element])
			return 0;
		ev->element.srq = &c->srq_by_num[e->element]->srq;
		return 1;
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		ev->element.port_num = (int)e->element;
		return 1;
	case IBV_EVENT_DEVICE_FATAL:
		return 1;
	default:
		return 0;
	}
}

static void eq_service(struct shim_context *c)
{
	struct shim_eq *eq = &c->eq;
	uint32_t n = 0;

	for (;;) {
		struct hca_eqe *e = &eq->ring[eq->ci & ((1u << eq->log_size) - 1)];
		uint8_t own = __atomic_load_n(&e->owner, __ATOMIC_ACQUIRE);
		struct ibv_async_event ev;

		if ((own & HCA_EQE_OWNER_OWNER_MASK) != (((eq->ci >> eq->log_size) & 1) ^ 1))
			break;
		pthread_mutex_lock(&c->lock);
		if (e->type == HCA_EQE_TYPE_COMP) {
			struct shim_cq *cq = e->element < SHIM_MAX_CQN ? c->cq_by_num[e->element] : NULL;

			if (cq && cq->cq.channel)
				shim_evq_push(&to_sch(cq->cq.channel)->q, &cq);
		} else if (e->type == HCA_EQE_TYPE_ASYNC) {
			if (to_async_event(c, e, &ev))
				shim_evq_push(&c->async_q, &ev);
			shim_dbg(1, "%s: async event %s on %u", c->dev->cfg.name,
				 ibv_event_type_str((enum ibv_event_type)e->subtype), e->element);
		}
		pthread_mutex_unlock(&c->lock);
		eq->ci++;
		n++;
	}
	/* Consumed: re-arm; the vector fires again at once if more EQEs came meanwhile. */
	shim_ring(c, HCA_DB_EQ_ARM, eq->eqn, eq->ci);
	(void)n;
}

void shim_irq(void *arg, unsigned int vector)
{
	struct shim_device *d = arg;

	pthread_mutex_lock(&d->ctx_lock);
	for (struct shim_context *c = d->contexts; c; c = c->next)
		if (c->eq.vector == vector)
			eq_service(c);
	pthread_mutex_unlock(&d->ctx_lock);
}
