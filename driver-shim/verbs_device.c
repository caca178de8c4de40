// SPDX-License-Identifier: MIT
/*
 * Device discovery and open/close: ibv_get_device_list, ibv_free_device_list,
 * ibv_get_device_name/guid/index, ibv_open_device, ibv_close_device.
 *
 * Devices come from the configuration (docs/shim.md), not from sysfs: like a
 * VFIO-mode device, a simulated HCA has no kernel device.  Listing does not
 * create anything; the first ibv_open_device of a device creates the
 * simulated HCA behind it and brings it up (reset, firmware, command queue,
 * GIDs).  Each ibv_context is one firmware CONTEXT with its own doorbell
 * page and its own event queue (completion and async events).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gid.h"
#include "hostmem.h"
#include "hw.h"
#include "log.h"
#include "ops.h"
#include "shim.h"

#define CTX_LOG_EQ 10	/* 1024 EQEs per context */

struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct ibv_device **list;
	unsigned int n;
	int ret = shim_init();

	if (num_devices)
		*num_devices = 0;
	if (ret)
		return shim_null(ret);
	n = shim_ndevices();
	list = calloc(n + 1, sizeof(*list));
	if (!list)
		return shim_null(ENOMEM);
	for (unsigned int i = 0; i < n; i++)
		list[i] = &shim_device(i)->ibdev;
	if (num_devices)
		*num_devices = (int)n;
	return list;
}

void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *ibv_get_device_name(struct ibv_device *device)
{
	return device->name;
}

__be64 ibv_get_device_guid(struct ibv_device *device)
{
	struct shim_device *d = shim_device_by_ibdev(device);

	return d ? shim_node_guid(d->cfg.mac) : 0;
}

int ibv_get_device_index(struct ibv_device *device)
{
	struct shim_device *d = shim_device_by_ibdev(device);

	return d ? (int)d->index : -1;
}

/* ---- contexts ------------------------------------------------------------------ */

static void msix_unmask(struct shim_device *d, unsigned int vector)
{
	uint32_t base = HCA_BAR0_MSIX_TABLE + vector * 16u /* MSI-X entry: 16 bytes (HCA_MSIX_*) */;

	/* The message address/data are the host's bookkeeping; the bus delivers
	 * the vector number.  Unmask last. */
	shim_bus_write32(d->bus, base + HCA_MSIX_MSG_ADDR_LO, 0xfee00000u);
	shim_bus_write32(d->bus, base + HCA_MSIX_MSG_ADDR_HI, 0);
	shim_bus_write32(d->bus, base + HCA_MSIX_MSG_DATA, vector);
	shim_bus_write32(d->bus, base + HCA_MSIX_VECTOR_CTRL, 0);
}

static int eq_create(struct shim_context *c)
{
	struct shim_device *d = c->dev;
	struct hca_eq_init_attr ia = { 0 };
	struct hca_eq_create_resp resp = { 0 };
	struct shim_dma_buf ring;
	struct hca_cmd cmd;
	int ret;

	ret = shim_dma_alloc(d, sizeof(struct hca_eqe) << CTX_LOG_EQ, HOSTMEM_RW, &ring);
	if (ret)
		return ret;
	ia.log_size = CTX_LOG_EQ;
	ia.vector = (uint8_t)c->eq.vector;
	ia.event_mask = HCA_EQ_MASK_ASYNC;
	ia.base = ring.iova;
	hca_cmd_init(&cmd, HCA_OBJ_EQ, HCA_METHOD_EQ_CREATE, c->handle);
	hca_cmd_idr_new(&cmd, HCA_ATTR_EQ_CREATE_HANDLE, &c->eq.handle);
	hca_cmd_in(&cmd, HCA_ATTR_EQ_CREATE_INIT_ATTR, &ia, sizeof(ia));
	hca_cmd_out(&cmd, HCA_ATTR_EQ_CREATE_RESP, &resp, sizeof(resp));
	ret = shim_cmd_exec(d, &cmd);
	if (ret) {
		shim_dma_free(d, &ring);
		return ret;
	}
	c->eq.ring = ring.va;
	c->eq.iova = ring.iova;
	c->eq.log_size = CTX_LOG_EQ;
	c->eq.eqn = resp.eqn;
	c->eq.ci = 0;
	return 0;
}

static int context_free_cmd(struct shim_context *c)
{
	struct hca_cmd cmd;

	hca_cmd_init(&cmd, HCA_OBJ_CONTEXT, HCA_METHOD_CONTEXT_FREE, c->handle);	/* a context frees itself */
	hca_cmd_idr(&cmd, HCA_ATTR_CONTEXT_FREE_HANDLE, c->handle);
	return shim_cmd_exec(c->dev, &cmd);
}

static void fill_ops(struct shim_context *c)
{
	struct verbs_context *v = &c->vctx;
	struct ibv_context *ctx = &v->context;

	v->sz = sizeof(*v);
	v->query_port = shim_query_port;
	v->query_device_ex = shim_query_device_ex;
	v->create_qp_ex = shim_create_qp_ex;
	v->create_cq_ex = shim_create_cq_ex;
	v->get_srq_num = shim_get_srq_num;
	v->create_srq_ex = shim_create_srq_ex;
	ctx->ops.poll_cq = shim_poll_cq;
	ctx->ops.req_notify_cq = shim_req_notify_cq;
	ctx->ops.post_send = shim_post_send;
	ctx->ops.post_recv = shim_post_recv;
	ctx->ops.post_srq_recv = shim_post_srq_recv;
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
}

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct shim_device *d = shim_device_by_ibdev(device);
	struct shim_context *c;
	struct hca_cmd cmd;
	int ret;

	if (!d)
		return shim_null(ENODEV);
	ret = shim_device_up(d);
	if (ret)
		return shim_null(ret);
	c = calloc(1, sizeof(*c));
	if (!c)
		return shim_null(ENOMEM);
	c->dev = d;
	pthread_mutex_init(&c->lock, NULL);
	ret = shim_evq_init(&c->async_q, sizeof(struct ibv_async_event));
	if (ret) {
		ret = -ret;
		goto free_ctx;
	}

	hca_cmd_init(&cmd, HCA_OBJ_CONTEXT, HCA_METHOD_CONTEXT_ALLOC, 0);
	hca_cmd_idr_new(&cmd, HCA_ATTR_CONTEXT_ALLOC_HANDLE, &c->handle);
	hca_cmd_out(&cmd, HCA_ATTR_CONTEXT_ALLOC_UAR_INDEX, &c->uar, sizeof(c->uar));
	ret = shim_cmd_exec(d, &cmd);
	if (ret)
		goto free_evq;

	pthread_mutex_lock(&d->lock);
	c->eq.vector = d->next_vector++ % HCA_CAP_NUM_MSIX;
	pthread_mutex_unlock(&d->lock);
	msix_unmask(d, c->eq.vector);
	ret = eq_create(c);
	if (ret)
		goto free_fw_ctx;

	fill_ops(c);
	c->vctx.context.device = device;
	c->vctx.context.cmd_fd = -1;
	c->vctx.context.async_fd = c->async_q.fd;
	c->vctx.context.num_comp_vectors = 1;
	pthread_mutex_init(&c->vctx.context.mutex, NULL);

	/* Visible to the interrupt handler from here on. */
	pthread_mutex_lock(&d->ctx_lock);
	c->next = d->contexts;
	d->contexts = c;
	pthread_mutex_unlock(&d->ctx_lock);
	/* An EQE written before the handler could see this context left the EQ
	 * disarmed: re-arming at index 0 fires the vector again if one is there. */
	shim_ring(c, HCA_DB_EQ_ARM, c->eq.eqn, 0);
	shim_dbg(1, "%s: context %#x open: doorbell page %u, EQ %u on vector %u", d->cfg.name,
		 c->handle, c->uar, c->eq.eqn, c->eq.vector);
	return &c->vctx.context;

free_fw_ctx:
	context_free_cmd(c);
free_evq:
	shim_evq_destroy(&c->async_q);
free_ctx:
	pthread_mutex_destroy(&c->lock);
	free(c);
	return shim_null(ret);
}

int ibv_close_device(struct ibv_context *context)
{
	struct shim_context *c = to_sctx(context);
	struct shim_device *d = c->dev;
	struct shim_context **pp;
	struct shim_dma_buf ring = { .va = c->eq.ring, .iova = c->eq.iova };
	int ret;

	pthread_mutex_lock(&d->ctx_lock);
	for (pp = &d->contexts; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	pthread_mutex_unlock(&d->ctx_lock);
	/* CONTEXT.FREE destroys whatever the application left behind (and the EQ),
	 * like the kernel when a uverbs file is closed. */
	ret = context_free_cmd(c);
	if (ret)
		shim_err("%s: CONTEXT.FREE failed: %s", d->cfg.name, strerror(ret));
	shim_dma_free(d, &ring);
	shim_evq_destroy(&c->async_q);
	pthread_mutex_destroy(&c->vctx.context.mutex);
	pthread_mutex_destroy(&c->lock);
	free(c);
	return 0;
}
