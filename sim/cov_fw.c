// SPDX-License-Identifier: MIT
/*
 * Coverage of firmware commands: object x method, success or error, and
 * the syndrome reason of every error return (sim/cov.h).  Names come from
 * the spec's ids; an id missing here is counted as "obj<N>.m<M>" so that it
 * shows up in the report as a key outside the bin table.
 */
#include "cov.h"
#include "cov_int.h"

static const struct {
	unsigned int obj, method;
	const char *name;
} fw_cmds[] = {
	{ HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_QUERY, "DEVICE.QUERY" },
	{ HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_QUERY_PORT, "DEVICE.QUERY_PORT" },
	{ HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_QUERY_GID, "DEVICE.QUERY_GID" },
	{ HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_SET_GID, "DEVICE.SET_GID" },
	{ HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_DEL_GID, "DEVICE.DEL_GID" },
	{ HCA_OBJ_DEVICE, HCA_HCASIM_METHOD_DEVICE_QUERY_FW, "DEVICE.QUERY_FW" },
	{ HCA_OBJ_CONTEXT, HCA_METHOD_CONTEXT_ALLOC, "CONTEXT.ALLOC" },
	{ HCA_OBJ_CONTEXT, HCA_METHOD_CONTEXT_FREE, "CONTEXT.FREE" },
	{ HCA_OBJ_PD, HCA_METHOD_PD_ALLOC, "PD.ALLOC" },
	{ HCA_OBJ_PD, HCA_METHOD_PD_FREE, "PD.FREE" },
	{ HCA_OBJ_MR, HCA_METHOD_MR_REG, "MR.REG" },
	{ HCA_OBJ_MR, HCA_METHOD_MR_DEREG, "MR.DEREG" },
	{ HCA_OBJ_CQ, HCA_METHOD_CQ_CREATE, "CQ.CREATE" },
	{ HCA_OBJ_CQ, HCA_METHOD_CQ_DESTROY, "CQ.DESTROY" },
	{ HCA_OBJ_QP, HCA_METHOD_QP_CREATE, "QP.CREATE" },
	{ HCA_OBJ_QP, HCA_METHOD_QP_MODIFY, "QP.MODIFY" },
	{ HCA_OBJ_QP, HCA_METHOD_QP_QUERY, "QP.QUERY" },
	{ HCA_OBJ_QP, HCA_METHOD_QP_DESTROY, "QP.DESTROY" },
	{ HCA_OBJ_SRQ, HCA_METHOD_SRQ_CREATE, "SRQ.CREATE" },
	{ HCA_OBJ_SRQ, HCA_METHOD_SRQ_MODIFY, "SRQ.MODIFY" },
	{ HCA_OBJ_SRQ, HCA_METHOD_SRQ_QUERY, "SRQ.QUERY" },
	{ HCA_OBJ_SRQ, HCA_METHOD_SRQ_DESTROY, "SRQ.DESTROY" },
	{ HCA_OBJ_EQ, HCA_METHOD_EQ_CREATE, "EQ.CREATE" },
	{ HCA_OBJ_EQ, HCA_METHOD_EQ_DESTROY, "EQ.DESTROY" },
};

static const char *const synd_names[] = {
	[HCA_CMD_SYND_NONE] = "NONE", [HCA_CMD_SYND_BAD_HEADER] = "BAD_HEADER",
	[HCA_CMD_SYND_UNKNOWN_OBJECT] = "UNKNOWN_OBJECT", [HCA_CMD_SYND_UNKNOWN_METHOD] = "UNKNOWN_METHOD",
	[HCA_CMD_SYND_UNKNOWN_ATTR] = "UNKNOWN_ATTR", [HCA_CMD_SYND_DUP_ATTR] = "DUP_ATTR",
	[HCA_CMD_SYND_MISSING_ATTR] = "MISSING_ATTR", [HCA_CMD_SYND_BAD_LEN] = "BAD_LEN",
	[HCA_CMD_SYND_NONZERO_TRAILING] = "NONZERO_TRAILING", [HCA_CMD_SYND_NONZERO_RESERVED] = "NONZERO_RESERVED",
	[HCA_CMD_SYND_BAD_HANDLE] = "BAD_HANDLE", [HCA_CMD_SYND_BAD_ENUM] = "BAD_ENUM",
	[HCA_CMD_SYND_BAD_CONTEXT] = "BAD_CONTEXT", [HCA_CMD_SYND_DMA_FAULT] = "DMA_FAULT",
	[HCA_CMD_SYND_HANDLER] = "HANDLER",
};

void cov_fw_cmd(struct cov *c, unsigned int object, unsigned int method, uint32_t status, unsigned int reason)
{
	const char *name = NULL;

	for (unsigned int i = 0; i < sizeof(fw_cmds) / sizeof(fw_cmds[0]); i++)
		if (fw_cmds[i].obj == object && fw_cmds[i].method == method)
			name = fw_cmds[i].name;
	if (name) {
		cov_hit(c, "fw.cmd.%s", name);
		cov_hit(c, "fw.cmd.%s.%s", name, status ? "err" : "ok");
	} else {
		cov_hit(c, "fw.cmd.obj%u.m%u", object, method);
	}
	if (status)
		cov_hit(c, "fw.synd.%s", reason < sizeof(synd_names) / sizeof(synd_names[0]) && synd_names[reason] ?
						 synd_names[reason] : "other");
}
