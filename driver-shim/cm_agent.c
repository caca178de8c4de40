// SPDX-License-Identifier: MIT
/*
 * The CM agent of each simulated HCA: the verbs context librdmacm's ids use
 * (id->verbs), its default PD, and QP1 -- the GSI QP, a UD QP that firmware
 * places at QPN 1 (docs/programming.md 4.5) -- with a CQ, receive buffers
 * (GRH + 256-byte MAD) and send buffers.  MADs go out as UD SENDs to QP1 of
 * the peer with Q_Key 0x80010000 and P_Key 0xffff, addressed by GID.
 *
 * Who runs the protocol: in threaded mode one CM thread for the process
 * sleeps in poll() on the CQs' completion channels and a wake-up eventfd,
 * with the next retransmission deadline as timeout (like the kernel's CM
 * work queue).  In cooperative mode nothing runs behind the caller's back:
 * waiting for a CM event steps the simulation and calls cm_progress().
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "cm.h"
#include "gid.h"
#include "log.h"
#include "ops.h"

#define GRH_LEN 40
#define RECV_SLOT (GRH_LEN + CM_MAD_SIZE)
#define AGENT_BUF (CM_RECV_SLOTS * RECV_SLOT + CM_SEND_SLOTS * CM_MAD_SIZE)

pthread_mutex_t cm_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cm_cond = PTHREAD_COND_INITIALIZER;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static int init_done, init_err;
static struct cm_dev *devs[SHIM_MAX_DEVICES];
static unsigned int ndevs;
static int coop;
static int wake_fd = -1;
static pthread_t thread;
static int thread_running;
static atomic_int stop;

unsigned int cm_ndevs(void)
{
	return ndevs;
}

struct cm_dev *cm_dev_get(unsigned int i)
{
	return i < ndevs ? devs[i] : NULL;
}

struct cm_dev *cm_dev_by_ip(uint32_t ip)
{
	for (unsigned int i = 0; i < ndevs; i++)
		if (devs[i]->ip == ip)
			return devs[i];
	return NULL;
}

struct cm_dev *cm_dev_by_ctx(const struct ibv_context *ctx)
{
	for (unsigned int i = 0; i < ndevs; i++)
		if (devs[i]->ctx == ctx)
			return devs[i];
	return NULL;
}

uint64_t cm_now_ms(void)
{
	struct timespec t;

	if (coop)
		return shim_coop_now() / 250000u + 1;	/* 4 ns cycles; never 0 */
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u + 1;
}

void cm_kick(void)
{
	uint64_t one = 1;

	if (wake_fd >= 0 && write(wake_fd, &one, sizeof(one)) != sizeof(one))
		shim_dbg(1, "cm: cannot wake the CM thread");
}

/* ---- QP1 ------------------------------------------------------------------------------- */

static uint8_t *recv_slot(struct cm_dev *d, unsigned int i)
{
	return d->buf + (size_t)i * RECV_SLOT;
}

static uint8_t *send_slot(struct cm_dev *d, unsigned int i)
{
	return d->buf + (size_t)CM_RECV_SLOTS * RECV_SLOT + (size_t)i * CM_MAD_SIZE;
}

static int post_recv(struct cm_dev *d, unsigned int i)
{
	struct ibv_sge sge = { .addr = (uintptr_t)recv_slot(d, i), .length = RECV_SLOT, .lkey = d->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(d->qp1, &wr, &bad);
}

static struct ibv_ah *ah_for(struct cm_dev *d, const uint8_t gid[16])
{
	struct ibv_ah_attr a;
	struct ibv_ah *ah;
	unsigned int slot;

	for (unsigned int i = 0; i < CM_AH_CACHE; i++)
		if (d->ah[i].ah && !memcmp(d->ah[i].gid, gid, 16))
			return d->ah[i].ah;
	memset(&a, 0, sizeof(a));
	a.is_global = 1;
	a.port_num = 1;
	a.grh.sgid_index = 1;
	a.grh.hop_limit = CM_HOP_LIMIT;
	memcpy(a.grh.dgid.raw, gid, 16);
	ah = ibv_create_ah(d->pd, &a);
	if (!ah)
		return NULL;
	slot = d->ah_next++ % CM_AH_CACHE;
	if (d->ah[slot].ah)
		ibv_destroy_ah(d->ah[slot].ah);
	d->ah[slot].ah = ah;
	memcpy(d->ah[slot].gid, gid, 16);
	return ah;
}

int cm_agent_send(struct cm_dev *d, const uint8_t dgid[16], const uint8_t mad[CM_MAD_SIZE])
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_ah *ah = ah_for(d, dgid);
	unsigned int i;

	if (!ah)
		return errno ? errno : EHOSTUNREACH;
	for (i = 0; i < CM_SEND_SLOTS && d->send_busy[i]; i++)
		;
	if (i == CM_SEND_SLOTS)
		return EAGAIN;
	memcpy(send_slot(d, i), mad, CM_MAD_SIZE);
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)send_slot(d, i);
	sge.length = CM_MAD_SIZE;
	sge.lkey = d->mr->lkey;
	wr.wr_id = CM_RECV_SLOTS + i;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = HCA_QPN_GSI;
	wr.wr.ud.remote_qkey = HCA_GSI_QKEY;
	if (ibv_post_send(d->qp1, &wr, &bad))
		return errno ? errno : EIO;
	d->send_busy[i] = 1;
	return 0;
}

/* Take what QP1's CQ holds: MADs to the protocol, send slots back (cm_lock held). */
static void agent_poll(struct cm_dev *d)
{
	struct ibv_wc wc[8];
	int n;

	while ((n = ibv_poll_cq(d->cq, 8, wc)) > 0)
		for (int k = 0; k < n; k++) {
			uint64_t id = wc[k].wr_id;

			if (id >= CM_RECV_SLOTS) {
				if (id < CM_RECV_SLOTS + CM_SEND_SLOTS)
					d->send_busy[id - CM_RECV_SLOTS] = 0;
				continue;
			}
			if (wc[k].status == IBV_WC_SUCCESS && wc[k].byte_len >= RECV_SLOT)
				cm_recv(d, recv_slot(d, (unsigned int)id) + GRH_LEN, wc[k].byte_len - GRH_LEN,
					&wc[k], (const struct ibv_grh *)recv_slot(d, (unsigned int)id));
			if (wc[k].status != IBV_WC_WR_FLUSH_ERR && post_recv(d, (unsigned int)id))
				shim_err("%s: cm: cannot repost a QP1 receive", d->sd->cfg.name);
		}
}

static int qp1_ready(struct cm_dev *d)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qkey = HCA_GSI_QKEY;
	if (ibv_modify_qp(d->qp1, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
		return errno;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(d->qp1, &a, IBV_QP_STATE))
		return errno;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(d->qp1, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return errno;
	return 0;
}

static int agent_open(struct cm_dev *d, struct shim_device *sd)
{
	struct ibv_qp_init_attr ia;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;

	d->sd = sd;
	d->ip = sd->cfg.ipv4;
	shim_gid_from_ipv4(d->ip, d->gid);
	d->guid = shim_node_guid(sd->cfg.mac);
	d->ctx = ibv_open_device(&sd->ibdev);
	if (!d->ctx)
		return errno;
	if (ibv_query_port(d->ctx, 1, &pa) || ibv_query_device(d->ctx, &da))
		return errno ? errno : EIO;
	d->mtu = pa.active_mtu;
	d->max_rd_atom = (uint8_t)(da.max_qp_rd_atom > 255 ? 255 : da.max_qp_rd_atom);
	d->max_init_rd_atom = (uint8_t)(da.max_qp_init_rd_atom > 255 ? 255 : da.max_qp_init_rd_atom);
	d->ack_delay = da.local_ca_ack_delay > 31 ? 31 : da.local_ca_ack_delay;
	d->pd = ibv_alloc_pd(d->ctx);
	d->cch = d->pd ? ibv_create_comp_channel(d->ctx) : NULL;
	if (!d->cch)
		return errno;
	fcntl(d->cch->fd, F_SETFL, fcntl(d->cch->fd, F_GETFL) | O_NONBLOCK);
	d->cq = ibv_create_cq(d->ctx, CM_RECV_SLOTS + CM_SEND_SLOTS, d, d->cch, 0);
	if (!d->cq || posix_memalign((void **)&d->buf, 4096, AGENT_BUF))
		return d->cq ? ENOMEM : errno;
	memset(d->buf, 0, AGENT_BUF);
	d->mr = ibv_reg_mr(d->pd, d->buf, AGENT_BUF, IBV_ACCESS_LOCAL_WRITE);
	if (!d->mr)
		return errno;
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = d->cq;
	ia.recv_cq = d->cq;
	ia.qp_type = IBV_QPT_UD;
	ia.cap.max_send_wr = CM_SEND_SLOTS;
	ia.cap.max_recv_wr = CM_RECV_SLOTS;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	d->qp1 = shim_create_gsi_qp(d->pd, &ia);
	if (!d->qp1)
		return errno;
	if (qp1_ready(d))
		return errno;
	for (unsigned int i = 0; i < CM_RECV_SLOTS; i++)
		if (post_recv(d, i))
			return errno;
	if (ibv_req_notify_cq(d->cq, 0))
		return errno;
	shim_dbg(1, "%s: cm: QP1 up (GSI, Q_Key %#x)", sd->cfg.name, HCA_GSI_QKEY);
	return 0;
}

/* ---- the CM thread -------------------------------------------------------------------------- */

static void *cm_thread(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		struct pollfd p[1 + SHIM_MAX_DEVICES];
		uint64_t next, now;
		int timeout;

		pthread_mutex_lock(&cm_lock);
		for (unsigned int i = 0; i < ndevs; i++)
			agent_poll(devs[i]);
		now = cm_now_ms();
		next = cm_timers(now);
		pthread_mutex_unlock(&cm_lock);
		timeout = !next ? 1000 : next <= now ? 0 : next - now > 1000 ? 1000 : (int)(next - now);
		p[0].fd = wake_fd;
		p[0].events = POLLIN;
		for (unsigned int i = 0; i < ndevs; i++) {
			p[1 + i].fd = devs[i]->cch->fd;
			p[1 + i].events = POLLIN;
		}
		if (poll(p, 1 + ndevs, timeout) <= 0)
			continue;
		if (p[0].revents & POLLIN) {
			uint64_t v;

			if (read(wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
				shim_dbg(1, "cm: wake-up fd: %s", strerror(errno));
		}
		for (unsigned int i = 0; i < ndevs; i++) {
			struct ibv_cq *cq;
			void *ctx;

			if (!(p[1 + i].revents & POLLIN))
				continue;
			while (!ibv_get_cq_event(devs[i]->cch, &cq, &ctx))
				ibv_ack_cq_events(cq, 1);
			/* re-arm before polling: a CQE after the poll raises a new event */
			ibv_req_notify_cq(devs[i]->cq, 0);
		}
	}
	return NULL;
}

static void cm_atexit(void)
{
	if (!thread_running)
		return;
	atomic_store(&stop, 1);
	cm_kick();
	pthread_join(thread, NULL);
	thread_running = 0;
}

void cm_progress(void)
{
	pthread_mutex_lock(&cm_lock);
	for (unsigned int i = 0; i < ndevs; i++)
		agent_poll(devs[i]);
	cm_timers(cm_now_ms());
	pthread_mutex_unlock(&cm_lock);
}

static int fd_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/*
 * Cooperative mode: step the simulation until fd is readable.  When nothing
 * is scheduled in the devices, time jumps to the next CM retransmission; with
 * no timer either, or after a simulated minute, the event is not coming.
 */
#define COOP_CM_LIMIT_MS 60000u

int cm_coop_wait(int fd)
{
	uint64_t start = cm_now_ms();

	if (!coop || (fcntl(fd, F_GETFL) & O_NONBLOCK))
		return 0;
	for (;;) {
		uint64_t next, now;

		cm_progress();
		if (fd_readable(fd))
			return 0;
		if (shim_coop_step() != SHIM_STEP_IDLE)
			continue;
		pthread_mutex_lock(&cm_lock);
		now = cm_now_ms();
		next = cm_timers(now);
		pthread_mutex_unlock(&cm_lock);
		if (!next || now - start > COOP_CM_LIMIT_MS) {
			cm_progress();
			if (fd_readable(fd))
				return 0;
			errno = EDEADLK;
			return -1;
		}
		if (next > now)
			hcasim_shim_advance((next - now) * 250000u);
	}
}

/* ---- initialisation ----------------------------------------------------------------------- */

static void agent_close(struct cm_dev *d)
{
	if (d->qp1)
		ibv_destroy_qp(d->qp1);
	for (unsigned int i = 0; i < CM_AH_CACHE; i++)
		if (d->ah[i].ah)
			ibv_destroy_ah(d->ah[i].ah);
	if (d->mr)
		ibv_dereg_mr(d->mr);
	free(d->buf);
	if (d->cq)
		ibv_destroy_cq(d->cq);
	if (d->cch)
		ibv_destroy_comp_channel(d->cch);
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	/* CONTEXT.FREE takes whatever the application left on it */
	if (d->ctx)
		ibv_close_device(d->ctx);
	free(d);
}

void cm_shutdown(void)
{
	cm_atexit();
	pthread_mutex_lock(&init_lock);
	for (unsigned int i = 0; i < ndevs; i++)
		agent_close(devs[i]);
	ndevs = 0;
	pthread_mutex_lock(&cm_lock);
	cm_forget_rejected();
	pthread_mutex_unlock(&cm_lock);
	if (wake_fd >= 0)
		close(wake_fd);
	wake_fd = -1;
	atomic_store(&stop, 0);
	init_done = 0;
	init_err = 0;
	pthread_mutex_unlock(&init_lock);
}

int cm_init(void)
{
	int ret;

	pthread_mutex_lock(&init_lock);
	if (init_done) {
		ret = init_err;
		goto out;
	}
	init_done = 1;
	ret = shim_init();
	if (!ret && !shim_ndevices())
		ret = ENODEV;
	for (unsigned int i = 0; !ret && i < shim_ndevices(); i++) {
		struct cm_dev *d = calloc(1, sizeof(*d));

		if (!d) {
			ret = ENOMEM;
			break;
		}
		devs[ndevs++] = d;
		ret = agent_open(d, shim_device(i));
		if (ret)
			shim_err("%s: connection manager: cannot set up QP1: %s", shim_device(i)->cfg.name,
				 strerror(ret));
	}
	coop = shim_config()->mode == SHIM_MODE_COOP;
	if (!ret && !coop) {
		wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (wake_fd < 0 || pthread_create(&thread, NULL, cm_thread, NULL)) {
			ret = wake_fd < 0 ? errno : EAGAIN;
		} else {
			thread_running = 1;
			atexit(cm_atexit);
		}
	}
	init_err = ret;
out:
	pthread_mutex_unlock(&init_lock);
	return ret;
}
