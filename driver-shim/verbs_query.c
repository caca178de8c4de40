// SPDX-License-Identifier: MIT
/*
 * Queries: ibv_query_device(_ex), ibv_query_port, ibv_query_gid(_ex/_table),
 * ibv_query_gid_type, ibv_query_pkey, ibv_get_pkey_index, and the sysfs
 * reader libibverbs exports (answering for the devices hcasim simulates).
 *
 * Everything comes from firmware commands (DEVICE.QUERY, QUERY_PORT,
 * QUERY_GID); return values follow libibverbs 44: the int-returning verbs
 * give 0 or an errno value, except ibv_query_gid/ibv_query_pkey, which give
 * -1 on failure, and ibv_query_gid, which reports an empty entry as a zero
 * GID with success (rdma-core keeps that API behaviour).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hw.h"
#include "ops.h"
#include "shim.h"

#undef ibv_query_port	/* the macro of <infiniband/verbs.h>; we define the symbol */

static int dev_query(struct shim_context *c, struct hca_device_attr *a)
{
	struct hca_cmd cmd;

	hca_cmd_init(&cmd, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_QUERY, c->handle);
	hca_cmd_out(&cmd, HCA_ATTR_DEVICE_QUERY_RESP, a, sizeof(*a));
	return shim_cmd_exec(c->dev, &cmd);
}

static void to_ibv_device_attr(const struct hca_device_attr *a, struct ibv_device_attr *o)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->fw_ver, sizeof(o->fw_ver), "%u.%u.%u", a->fw_ver >> 16, (a->fw_ver >> 8) & 0xff,
		 a->fw_ver & 0xff);
	o->node_guid = a->node_guid;
	o->sys_image_guid = a->sys_image_guid;
	o->max_mr_size = a->max_mr_size;
	o->page_size_cap = a->page_size_cap;
	o->vendor_id = a->vendor_id;
	o->vendor_part_id = a->vendor_part_id;
	o->hw_ver = a->hw_ver;
	o->max_qp = (int)a->max_qp;
	o->max_qp_wr = (int)a->max_qp_wr;
	o->device_cap_flags = a->device_cap_flags;
	o->max_sge = (int)a->max_sge;
	o->max_sge_rd = (int)a->max_sge;
	o->max_cq = (int)a->max_cq;
	o->max_cqe = (int)a->max_cqe;
	o->max_mr = (int)a->max_mr;
	o->max_pd = (int)a->max_pd;
	o->max_qp_rd_atom = (int)a->max_qp_rd_atom;
	o->max_qp_init_rd_atom = (int)a->max_qp_init_rd_atom;
	o->max_res_rd_atom = (int)a->max_res_rd_atom;
	o->atomic_cap = (enum ibv_atomic_cap)a->atomic_cap;
	o->max_ah = 1 << 16;	/* address handles are host software */
	o->max_srq = (int)a->max_srq;
	o->max_srq_wr = (int)a->max_srq_wr;
	o->max_srq_sge = (int)a->max_srq_sge;
	o->max_pkeys = a->max_pkeys;
	o->local_ca_ack_delay = a->local_ca_ack_delay;
	o->phys_port_cnt = a->phys_port_cnt;
}

int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr)
{
	struct hca_device_attr a;
	int ret;

	if (!device_attr)
		return shim_errno(EINVAL);
	ret = dev_query(to_sctx(context), &a);
	if (ret)
		return shim_errno(ret);
	to_ibv_device_attr(&a, device_attr);
	return 0;
}

int shim_query_device_ex(struct ibv_context *ctx, const struct ibv_query_device_ex_input *in,
			 struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ibv_device_attr_ex full;
	struct hca_device_attr a;
	int ret;

	if (in && in->comp_mask)
		return shim_errno(EINVAL);
	if (attr_size < sizeof(attr->orig_attr))
		return shim_errno(EINVAL);
	ret = dev_query(to_sctx(ctx), &a);
	if (ret)
		return shim_errno(ret);
	memset(&full, 0, sizeof(full));
	to_ibv_device_attr(&a, &full.orig_attr);
	full.hca_core_clock = HCA_CLK_HZ / 1000;	/* kHz */
	full.phys_port_cnt_ex = a.phys_port_cnt;
	full.device_cap_flags_ex = a.device_cap_flags;
	memcpy(attr, &full, attr_size < sizeof(full) ? attr_size : sizeof(full));
	if (attr_size > sizeof(full))
		memset((uint8_t *)attr + sizeof(full), 0, attr_size - sizeof(full));
	return 0;
}

static int port_query(struct shim_context *c, uint8_t port, struct ibv_port_attr *o)
{
	struct hca_port_attr p;
	struct hca_cmd cmd;
	uint32_t pn = port;
	int ret;

	hca_cmd_init(&cmd, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_QUERY_PORT, c->handle);
	hca_cmd_in(&cmd, HCA_ATTR_DEVICE_QUERY_PORT_PORT_NUM, &pn, sizeof(pn));
	hca_cmd_out(&cmd, HCA_ATTR_DEVICE_QUERY_PORT_RESP, &p, sizeof(p));
	ret = shim_cmd_exec(c->dev, &cmd);
	if (ret)
		return ret;
	memset(o, 0, sizeof(*o));
	o->state = (enum ibv_port_state)p.state;
	o->max_mtu = (enum ibv_mtu)p.max_mtu;
	o->active_mtu = (enum ibv_mtu)p.active_mtu;
	o->gid_tbl_len = (int)p.gid_tbl_len;
	o->port_cap_flags = p.port_cap_flags;
	o->max_msg_sz = p.max_msg_sz;
	o->pkey_tbl_len = p.pkey_tbl_len;
	o->max_vl_num = 1;
	o->active_width = p.active_width;
	o->active_speed = p.active_speed;
	o->phys_state = p.phys_state;
	o->link_layer = p.link_layer;
	return 0;
}

int shim_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr,
		    size_t attr_len)
{
	struct ibv_port_attr full;
	int ret;

	if (!attr)
		return shim_errno(EINVAL);
	ret = port_query(to_sctx(ctx), port, &full);
	if (ret)
		return shim_errno(ret);
	memcpy(attr, &full, attr_len < sizeof(full) ? attr_len : sizeof(full));
	return 0;
}

/* The exported symbol: reached only by binaries built before verbs_context.query_port. */
struct _compat_ibv_port_attr;
int ibv_query_port(struct ibv_context *context, uint8_t port_num,
		   struct _compat_ibv_port_attr *port_attr)
{
	return shim_query_port(context, port_num, (struct ibv_port_attr *)port_attr,
			       offsetof(struct ibv_port_attr, flags));
}

/* 0, ENODATA for an empty entry, or EINVAL (port, index) / the command's error. */
static int gid_query(struct ibv_context *context, uint32_t port, uint32_t index,
		     struct hca_gid_entry *e)
{
	struct shim_context *c = to_sctx(context);
	struct hca_cmd cmd;
	int ret;

	hca_cmd_init(&cmd, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_QUERY_GID, c->handle);
	hca_cmd_in(&cmd, HCA_ATTR_DEVICE_QUERY_GID_PORT_NUM, &port, sizeof(port));
	hca_cmd_in(&cmd, HCA_ATTR_DEVICE_QUERY_GID_INDEX, &index, sizeof(index));
	hca_cmd_out(&cmd, HCA_ATTR_DEVICE_QUERY_GID_RESP, e, sizeof(*e));
	ret = shim_cmd_exec(c->dev, &cmd);
	if (ret)
		return ret;
	return e->valid ? 0 : ENODATA;
}

int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
	struct hca_gid_entry e;
	int ret;

	if (index < 0) {
		errno = EINVAL;
		return -1;
	}
	ret = gid_query(context, port_num, (uint32_t)index, &e);
	if (ret == ENODATA) {
		memset(gid, 0, sizeof(*gid));
		return 0;
	}
	if (ret) {
		errno = ret;
		return -1;
	}
	memcpy(gid->raw, e.gid, sizeof(gid->raw));
	return 0;
}

int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
		      struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
	struct ibv_gid_entry full = { 0 };
	struct hca_gid_entry e;
	int ret;

	if (flags || entry_size < offsetof(struct ibv_gid_entry, ndev_ifindex))
		return shim_errno(EINVAL);
	ret = gid_query(context, port_num, gid_index, &e);
	if (ret)
		return shim_errno(ret);
	memcpy(full.gid.raw, e.gid, sizeof(full.gid.raw));
	full.gid_index = gid_index;
	full.port_num = port_num;
	full.gid_type = e.gid_type;
	full.ndev_ifindex = 0;	/* no netdev behind a simulated port */
	memcpy(entry, &full, entry_size < sizeof(full) ? entry_size : sizeof(full));
	return 0;
}

ssize_t _ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries,
			     size_t max_entries, uint32_t flags, size_t entry_size)
{
	struct ibv_port_attr pa;
	ssize_t n = 0;
	int ret;

	if (flags || entry_size < offsetof(struct ibv_gid_entry, ndev_ifindex))
		return -EINVAL;
	ret = port_query(to_sctx(context), 1, &pa);
	if (ret)
		return -ret;
	for (int i = 0; i < pa.gid_tbl_len; i++) {
		struct ibv_gid_entry e;

		ret = _ibv_query_gid_ex(context, 1, (uint32_t)i, &e, 0, sizeof(e));
		if (ret == ENODATA)
			continue;
		if (ret)
			return -ret;
		if ((size_t)n >= max_entries)
			return -EINVAL;
		memcpy((uint8_t *)entries + (size_t)n * entry_size, &e,
		       entry_size < sizeof(e) ? entry_size : sizeof(e));
		n++;
	}
	return n;
}

/* Private libibverbs symbol (IBVERBS_PRIVATE_34) used by ibv_devinfo:
 * 0 = IB/RoCE v1, 1 = RoCE v2 (enum ibv_gid_type_sysfs). */
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index,
		       int *type)
{
	struct hca_gid_entry e;
	int ret = gid_query(context, port_num, index, &e);

	if (ret) {
		errno = ret;
		return -1;
	}
	*type = e.gid_type == IBV_GID_TYPE_ROCE_V2 ? 1 : 0;
	return 0;
}

int ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index, __be16 *pkey)
{
	struct ibv_port_attr pa;
	int ret = port_query(to_sctx(context), port_num, &pa);

	if (ret || index < 0 || index >= pa.pkey_tbl_len) {
		errno = ret ? ret : EINVAL;
		return -1;
	}
	*pkey = htobe16(HCA_WIRE_PKEY_DEFAULT);
	return 0;
}

int ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num, __be16 pkey)
{
	__be16 p;

	if (ibv_query_pkey(context, port_num, 0, &p))
		return -1;
	if (p == pkey)
		return 0;
	errno = ENOENT;
	return -1;
}

/* ---- sysfs ------------------------------------------------------------------------ */

/*
 * libibverbs' sysfs reader.  Paths under the fake sysfs directories of hcasim
 * devices are answered from the device; anything else is read from the real
 * file system, as libibverbs would.  Returns the bytes read (without a
 * trailing newline) or -1.
 */
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
	char path[512];
	ssize_t len;
	int fd;

	if (!dir || !file || !buf || !size)
		return -1;
	if (!strncmp(dir, SHIM_SYSFS_IB "/", strlen(SHIM_SYSFS_IB "/"))) {
		const char *name = dir + strlen(SHIM_SYSFS_IB "/");
		const char *val = NULL;
		char tmp[64];

		for (unsigned int i = 0; i < shim_ndevices(); i++) {
			struct shim_device *d = shim_device(i);

			if (strcmp(d->cfg.name, name))
				continue;
			if (!strcmp(file, "board_id"))
				val = "HCASIM-0001";
			else if (!strcmp(file, "node_type"))
				val = "1: CA";
			else if (!strcmp(file, "hca_type")) {
				snprintf(tmp, sizeof(tmp), "hcasim-%s", d->cfg.backend);
				val = tmp;
			}
		}
		if (!val) {
			errno = ENOENT;
			return -1;
		}
		snprintf(buf, size, "%s", val);
		return (int)strlen(buf);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, size);
	close(fd);
	if (len > 0 && (size_t)len < size && buf[len - 1] == '\n')
		buf[--len] = '\0';
	else if (len > 0 && (size_t)len < size)
		buf[len] = '\0';
	return (int)len;
}

const char *ibv_get_sysfs_path(void)
{
	return "/sys";
}
