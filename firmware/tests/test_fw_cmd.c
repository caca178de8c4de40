// SPDX-License-Identifier: MIT
/*
 * Command validation, one rule of docs/programming.md 4.3 at a time (the
 * kernel's ioctl semantics), plus the order between rules, output write-back
 * and the driver-specific (HCA_DRIVER_ID_HCASIM) namespace.  Each case is a
 * real command on the ring of a device on the fake engine; expectations come
 * from the spec table, not from the firmware.
 */
#include <string.h>

#include "check.h"
#include "fake_engine.h"
#include "fw.h"
#include "fw_test.h"

static struct fwt T;
static uint32_t CTX, CTX2, PD, PD2, CQ;

/* Run c; check status, syndrome reason and attribute index (-1: don't care). */
static void expect(struct hca_cmd *c, uint32_t status, uint32_t reason, int attr, const char *what)
{
	int rc = hca_devctl_exec(T.dc, c);

	CHECK(rc >= 0, "%s: transport error %d", what, rc);
	CHECK(c->status == status, "%s: status %u, want %u (syndrome 0x%x)", what, c->status, status,
	      c->syndrome);
	CHECK(FWT_REASON(c->syndrome) == reason, "%s: reason %u, want %u", what,
	      FWT_REASON(c->syndrome), reason);
	if (attr >= 0)
		CHECK(FWT_ATTR(c->syndrome) == (uint32_t)attr, "%s: attr %u, want %d", what,
		      FWT_ATTR(c->syndrome), attr);
	CHECK_EQ(hca_fw_check(T.fw), 0, "bookkeeping consistent");
}

/* A well-formed PD.ALLOC to start from. */
static void pd_alloc_cmd(struct hca_cmd *c, uint32_t *pd, uint32_t *pdn)
{
	hca_cmd_init(c, HCA_OBJ_PD, HCA_METHOD_PD_ALLOC, CTX);
	hca_cmd_idr_new(c, HCA_ATTR_PD_ALLOC_HANDLE, pd);
	hca_cmd_out(c, HCA_ATTR_PD_ALLOC_PDN, pdn, 4);
}

static void cq_create_cmd(struct hca_cmd *c, struct hca_cq_init_attr *ia, uint32_t *cq,
			  struct hca_cq_create_resp *resp)
{
	memset(ia, 0, sizeof(*ia));
	ia->log_size = 4;
	ia->cqe = 16;
	fwt_mem(&T, 32 << 4, &ia->base);
	hca_cmd_init(c, HCA_OBJ_CQ, HCA_METHOD_CQ_CREATE, CTX);
	hca_cmd_idr_new(c, HCA_ATTR_CQ_CREATE_HANDLE, cq);
	hca_cmd_in(c, HCA_ATTR_CQ_CREATE_INIT_ATTR, ia, sizeof(*ia));
	hca_cmd_out(c, HCA_ATTR_CQ_CREATE_RESP, resp, sizeof(*resp));
}

static void header_rules(void)
{
	struct hca_cmd c;
	uint32_t pd, pdn;
	unsigned int pds = hca_fw_count(T.fw, HCA_OBJ_PD);

	pd_alloc_cmd(&c, &pd, &pdn);
	c.keep_hdr = 1;
	c.hdr.num_attrs = 2;
	c.hdr.length = 24 + 16 * 2 + 8;
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_HEADER, 0, "length != 24 + 16 * num_attrs");

	pd_alloc_cmd(&c, &pd, &pdn);
	c.keep_hdr = 1;
	c.hdr.num_attrs = HCA_CAP_MAX_CMD_ATTRS + 1;
	c.hdr.length = 24 + 16 * (HCA_CAP_MAX_CMD_ATTRS + 1);
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_HEADER, 0, "num_attrs above MAX_CMD_ATTRS");

	pd_alloc_cmd(&c, &pd, &pdn);
	c.in_len = 24 + 16 * 2 + 16;
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_HEADER, 0, "in_len != length");

	pd_alloc_cmd(&c, &pd, &pdn);
	c.in_len = 16;
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_HEADER, 0, "in_len shorter than a header");

	pd_alloc_cmd(&c, &pd, &pdn);
	c.hdr.reserved = 1ull << 40;
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_HEADER, 0, "reserved != 0");

	pd_alloc_cmd(&c, &pd, &pdn);
	c.hdr.driver_id = 77;
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_HEADER, 0, "unknown driver_id");

	hca_cmd_init(&c, 99, 0, CTX);
	expect(&c, HCA_EPROTONOSUPPORT, HCA_CMD_SYND_UNKNOWN_OBJECT, 0, "unknown object");
	hca_cmd_init(&c, HCA_OBJ_PD, 9, CTX);
	expect(&c, HCA_EPROTONOSUPPORT, HCA_CMD_SYND_UNKNOWN_METHOD, 0, "unknown method");
	/* Header rules come before object lookup. */
	hca_cmd_init(&c, 99, 0, CTX);
	c.hdr.reserved = 1;
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_HEADER, 0, "bad header before unknown object");
	CHECK_EQ(hca_fw_count(T.fw, HCA_OBJ_PD), pds, "no PD from rejected commands");
}

static void context_rules(void)
{
	struct hca_cmd c;
	struct hca_device_attr da;
	uint32_t pd, pdn, dead;

	pd_alloc_cmd(&c, &pd, &pdn);
	c.hdr.context = 0;
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_CONTEXT, 0, "PD.ALLOC without a context");
	pd_alloc_cmd(&c, &pd, &pdn);
	c.hdr.context = 0x12345;
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_CONTEXT, 0, "made-up context handle");
	CHECK_EQ(fwt_ctx_alloc(&T, &dead, NULL), 0, "context to free");
	CHECK_EQ(fwt_ctx_free(&T, dead), 0, "free it");
	pd_alloc_cmd(&c, &pd, &pdn);
	c.hdr.context = dead;
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_CONTEXT, 0, "stale context handle");
	/* DEVICE methods: context 0 or a live one; a dead one is refused. */
	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_QUERY, 0);
	hca_cmd_out(&c, HCA_ATTR_DEVICE_QUERY_RESP, &da, sizeof(da));
	expect(&c, 0, 0, 0, "DEVICE.QUERY with context 0");
	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_QUERY, CTX);
	hca_cmd_out(&c, HCA_ATTR_DEVICE_QUERY_RESP, &da, sizeof(da));
	expect(&c, 0, 0, 0, "DEVICE.QUERY with a live context");
	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_QUERY, dead);
	hca_cmd_out(&c, HCA_ATTR_DEVICE_QUERY_RESP, &da, sizeof(da));
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_CONTEXT, 0, "DEVICE.QUERY with a dead context");
	/* Context checks come before attributes. */
	hca_cmd_init(&c, HCA_OBJ_PD, HCA_METHOD_PD_ALLOC, 0);
	hca_cmd_raw(&c, 77, 4, HCA_ATTR_F_MANDATORY, 0, 0);
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_CONTEXT, 0, "context before unknown attribute");
}

static void attribute_rules(void)
{
	struct hca_cmd c;
	struct hca_cq_init_attr ia;
	struct hca_cq_create_resp resp;
	uint32_t pd, pdn, cq, v;
	int i;

	/* Unknown attribute: fatal only with MANDATORY. */
	pd_alloc_cmd(&c, &pd, &pdn);
	i = hca_cmd_raw(&c, 77, 4, HCA_ATTR_F_MANDATORY, 0, 0);
	expect(&c, HCA_EPROTONOSUPPORT, HCA_CMD_SYND_UNKNOWN_ATTR, i + 1, "unknown mandatory attribute");
	pd_alloc_cmd(&c, &pd, &pdn);
	hca_cmd_raw(&c, 77, 3, 0, 0xffff, 0xdead);	/* even garbage is ignored */
	expect(&c, 0, 0, 0, "unknown optional attribute ignored");
	CHECK_EQ(fwt_destroy(&T, CTX, HCA_OBJ_PD, HCA_METHOD_PD_FREE, pd), 0, "free it");

	/* Duplicates. */
	pd_alloc_cmd(&c, &pd, &pdn);
	i = hca_cmd_out(&c, HCA_ATTR_PD_ALLOC_PDN, &v, 4);
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_DUP_ATTR, i + 1, "attribute given twice");
	/* ... of an unknown optional id: both ignored. */
	pd_alloc_cmd(&c, &pd, &pdn);
	hca_cmd_raw(&c, 78, 4, 0, 0, 0);
	hca_cmd_raw(&c, 78, 4, 0, 0, 0);
	expect(&c, 0, 0, 0, "duplicate unknown optional attribute ignored");
	CHECK_EQ(fwt_destroy(&T, CTX, HCA_OBJ_PD, HCA_METHOD_PD_FREE, pd), 0, "free it");

	/* Flags and reserved bits. */
	pd_alloc_cmd(&c, &pd, &pdn);
	c.attrs[1].flags |= 0x8;
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_NONZERO_RESERVED, 2, "unknown flag bit");
	pd_alloc_cmd(&c, &pd, &pdn);
	c.attrs[1].flags |= HCA_ATTR_F_VALID_OUTPUT;
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_NONZERO_RESERVED, 2, "VALID_OUTPUT on input");
	pd_alloc_cmd(&c, &pd, &pdn);
	c.attrs[1].attr_data = 1;
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_NONZERO_RESERVED, 2, "attr_data on a PTR_OUT");
	pd_alloc_cmd(&c, &pd, &pdn);
	c.attrs[0].attr_data = 0x100;
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_NONZERO_RESERVED, 1, "attr_data on an IDR");
	hca_cmd_init(&c, HCA_OBJ_PD, HCA_METHOD_PD_FREE, CTX);
	hca_cmd_idr(&c, HCA_ATTR_PD_FREE_HANDLE, PD);
	c.attrs[0].data |= 1ull << 32;
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_NONZERO_RESERVED, 1, "upper handle bits");
	{
		uint8_t ip[4] = { 10, 0, 0, 1 };
		hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_SET_GID, 0);
		hca_cmd_in_u32(&c, HCA_ATTR_DEVICE_SET_GID_PORT_NUM, 1);
		hca_cmd_in_u32(&c, HCA_ATTR_DEVICE_SET_GID_INDEX, 1);
		i = hca_cmd_enum(&c, HCA_ATTR_DEVICE_SET_GID_ADDR, HCA_ATTR_DEVICE_SET_GID_ADDR_IPV4, ip, 4);
		c.attrs[i].attr_data |= 0x200;
		expect(&c, HCA_EINVAL, HCA_CMD_SYND_NONZERO_RESERVED, i + 1, "ENUM attr_data[15:8]");
	}

	/* Lengths. */
	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_QUERY_PORT, 0);
	i = hca_cmd_raw(&c, HCA_ATTR_DEVICE_QUERY_PORT_PORT_NUM, 2, HCA_ATTR_F_MANDATORY, 0, 1);
	{
		struct hca_port_attr pa;
		hca_cmd_out(&c, HCA_ATTR_DEVICE_QUERY_PORT_RESP, &pa, sizeof(pa));
	}
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_LEN, i + 1, "u32 below min_len");
	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_QUERY_PORT, 0);
	i = hca_cmd_raw(&c, HCA_ATTR_DEVICE_QUERY_PORT_PORT_NUM, 5, HCA_ATTR_F_MANDATORY, 0, 1);
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_LEN, i + 1, "u32 longer, not zero-trailing");
	pd_alloc_cmd(&c, &pd, &pdn);
	c.attrs[0].len = 4;
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_LEN, 1, "IDR with a length");
	pd_alloc_cmd(&c, &pd, &pdn);
	c.attrs[1].len = 2;
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_LEN, 2, "PTR_OUT too short");

	/* Zero-trailing: a longer struct whose extra bytes are zero is fine... */
	{
		uint8_t big[HCA_CQ_INIT_ATTR_SIZE + 8];
		cq_create_cmd(&c, &ia, &cq, &resp);
		memset(big, 0, sizeof(big));
		memcpy(big, &ia, sizeof(ia));
		hca_cmd_init(&c, HCA_OBJ_CQ, HCA_METHOD_CQ_CREATE, CTX);
		hca_cmd_idr_new(&c, HCA_ATTR_CQ_CREATE_HANDLE, &cq);
		hca_cmd_in(&c, HCA_ATTR_CQ_CREATE_INIT_ATTR, big, sizeof(big));
		hca_cmd_out(&c, HCA_ATTR_CQ_CREATE_RESP, &resp, sizeof(resp));
		expect(&c, 0, 0, 0, "longer struct, zero tail");
		CHECK_EQ(fwt_destroy(&T, CTX, HCA_OBJ_CQ, HCA_METHOD_CQ_DESTROY, cq), 0, "destroy");
		/* ... a non-zero byte in the tail is not. */
		big[sizeof(big) - 1] = 1;
		hca_cmd_init(&c, HCA_OBJ_CQ, HCA_METHOD_CQ_CREATE, CTX);
		hca_cmd_idr_new(&c, HCA_ATTR_CQ_CREATE_HANDLE, &cq);
		i = hca_cmd_in(&c, HCA_ATTR_CQ_CREATE_INIT_ATTR, big, sizeof(big));
		hca_cmd_out(&c, HCA_ATTR_CQ_CREATE_RESP, &resp, sizeof(resp));
		expect(&c, HCA_EINVAL, HCA_CMD_SYND_NONZERO_TRAILING, i + 1, "non-zero tail");
	}
	/* A longer PTR_OUT (zero-trailing) is zeroed beyond what firmware knows. */
	{
		uint8_t out[HCA_DEVICE_ATTR_SIZE + 16];
		memset(out, 0xaa, sizeof(out));
		hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_QUERY, 0);
		i = hca_cmd_out(&c, HCA_ATTR_DEVICE_QUERY_RESP, out, sizeof(out));
		/* devctl zeroes its staging, so pre-fill through the arena instead: */
		expect(&c, 0, 0, 0, "longer PTR_OUT");
		CHECK(c.attrs[i].flags & HCA_ATTR_F_VALID_OUTPUT, "VALID_OUTPUT on the long output");
		{
			int zero = 1;
			for (unsigned int k = HCA_DEVICE_ATTR_SIZE; k < sizeof(out); k++)
				zero &= out[k] == 0;
			CHECK(zero, "tail of a long PTR_OUT zeroed");
		}
	}

	/* ENUM elements. */
	{
		uint8_t ip[16] = { 0 };
		hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_SET_GID, 0);
		hca_cmd_in_u32(&c, HCA_ATTR_DEVICE_SET_GID_PORT_NUM, 1);
		hca_cmd_in_u32(&c, HCA_ATTR_DEVICE_SET_GID_INDEX, 1);
		i = hca_cmd_enum(&c, HCA_ATTR_DEVICE_SET_GID_ADDR, 5, ip, 4);
		expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_ENUM, i + 1, "unknown ENUM element");
		hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_METHOD_DEVICE_SET_GID, 0);
		hca_cmd_in_u32(&c, HCA_ATTR_DEVICE_SET_GID_PORT_NUM, 1);
		hca_cmd_in_u32(&c, HCA_ATTR_DEVICE_SET_GID_INDEX, 1);
		i = hca_cmd_enum(&c, HCA_ATTR_DEVICE_SET_GID_ADDR, HCA_ATTR_DEVICE_SET_GID_ADDR_IPV4, ip, 16);
		expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_ENUM, i + 1, "ENUM element with a wrong length");
	}

	/* Handles. */
	hca_cmd_init(&c, HCA_OBJ_PD, HCA_METHOD_PD_FREE, CTX);
	hca_cmd_idr(&c, HCA_ATTR_PD_FREE_HANDLE, 0);
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_HANDLE, 1, "handle 0");
	hca_cmd_init(&c, HCA_OBJ_PD, HCA_METHOD_PD_FREE, CTX);
	hca_cmd_idr(&c, HCA_ATTR_PD_FREE_HANDLE, 0x10000 | 3000);
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_HANDLE, 1, "unknown slot");
	hca_cmd_init(&c, HCA_OBJ_PD, HCA_METHOD_PD_FREE, CTX);
	hca_cmd_idr(&c, HCA_ATTR_PD_FREE_HANDLE, CQ);
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_HANDLE, 1, "CQ handle as PD");
	hca_cmd_init(&c, HCA_OBJ_PD, HCA_METHOD_PD_FREE, CTX);
	hca_cmd_idr(&c, HCA_ATTR_PD_FREE_HANDLE, PD2);
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_HANDLE, 1, "other context's PD");
	CHECK_EQ(fwt_pd_alloc(&T, CTX, &pd, NULL), 0, "PD");
	CHECK_EQ(fwt_destroy(&T, CTX, HCA_OBJ_PD, HCA_METHOD_PD_FREE, pd), 0, "free");
	hca_cmd_init(&c, HCA_OBJ_PD, HCA_METHOD_PD_FREE, CTX);
	hca_cmd_idr(&c, HCA_ATTR_PD_FREE_HANDLE, pd);
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_HANDLE, 1, "stale PD handle");
	CHECK_EQ(fwt_pd_alloc(&T, CTX, &v, NULL), 0, "PD reusing the slot");
	CHECK_EQ(v & 0xffff, pd & 0xffff, "same slot");
	CHECK(v != pd, "new generation");
	hca_cmd_init(&c, HCA_OBJ_PD, HCA_METHOD_PD_FREE, CTX);
	hca_cmd_idr(&c, HCA_ATTR_PD_FREE_HANDLE, pd);
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_HANDLE, 1, "stale handle of a reused slot");
	CHECK_EQ(fwt_destroy(&T, CTX, HCA_OBJ_PD, HCA_METHOD_PD_FREE, v), 0, "free");
	hca_cmd_init(&c, HCA_OBJ_CONTEXT, HCA_METHOD_CONTEXT_FREE, CTX);
	hca_cmd_idr(&c, HCA_ATTR_CONTEXT_FREE_HANDLE, CTX2);
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_BAD_HANDLE, 1, "freeing another context");

	/* Missing mandatory attribute: reported after all attributes, attr 0. */
	hca_cmd_init(&c, HCA_OBJ_PD, HCA_METHOD_PD_ALLOC, CTX);
	hca_cmd_idr_new(&c, HCA_ATTR_PD_ALLOC_HANDLE, &pd);
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_MISSING_ATTR, 0, "PDN missing");
	/* An optional spec attribute may be absent (CQ.CREATE without EQ). */
	cq_create_cmd(&c, &ia, &cq, &resp);
	expect(&c, 0, 0, 0, "optional attribute absent");
	CHECK_EQ(fwt_destroy(&T, CTX, HCA_OBJ_CQ, HCA_METHOD_CQ_DESTROY, cq), 0, "destroy");

	/* Reserved fields inside a struct. */
	cq_create_cmd(&c, &ia, &cq, &resp);
	ia.rsvd_01[1] = 4;
	c.payload_used = 0;
	c.num_attrs = 0;
	hca_cmd_idr_new(&c, HCA_ATTR_CQ_CREATE_HANDLE, &cq);
	i = hca_cmd_in(&c, HCA_ATTR_CQ_CREATE_INIT_ATTR, &ia, sizeof(ia));
	hca_cmd_out(&c, HCA_ATTR_CQ_CREATE_RESP, &resp, sizeof(resp));
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_NONZERO_RESERVED, i + 1, "reserved struct bytes");

	/* DMA faults on attributes. */
	hca_cmd_init(&c, HCA_OBJ_CQ, HCA_METHOD_CQ_CREATE, CTX);
	hca_cmd_idr_new(&c, HCA_ATTR_CQ_CREATE_HANDLE, &cq);
	i = hca_cmd_raw(&c, HCA_ATTR_CQ_CREATE_INIT_ATTR, sizeof(ia), HCA_ATTR_F_MANDATORY, 0, 0xbad00000ull);
	hca_cmd_out(&c, HCA_ATTR_CQ_CREATE_RESP, &resp, sizeof(resp));
	expect(&c, HCA_EFAULT, HCA_CMD_SYND_DMA_FAULT, i + 1, "PTR_IN at an unmapped IOVA");
	CHECK_EQ(T.be.mmio_read(T.dev, HCA_INIT_SYNDROME), HCA_SYND_CMD_DMA_FAULT, "SYNDROME register");
	{
		unsigned int cqs = hca_fw_count(T.fw, HCA_OBJ_CQ);
		uint32_t cq_writes = fake_engine_ctx_writes(T.eng, HCA_CTX_TYPE_CQC);

		cq_create_cmd(&c, &ia, &cq, &resp);
		c.num_attrs = 2;	/* drop RESP and add it at an unmapped IOVA */
		i = hca_cmd_raw(&c, HCA_ATTR_CQ_CREATE_RESP, sizeof(resp), HCA_ATTR_F_MANDATORY, 0, 0xbad00000ull);
		expect(&c, HCA_EFAULT, HCA_CMD_SYND_DMA_FAULT, i + 1, "PTR_OUT at an unmapped IOVA");
		/* The CQ was made and unmade: nothing left, engine context invalid. */
		CHECK_EQ(hca_fw_count(T.fw, HCA_OBJ_CQ), cqs, "CQ rolled back");
		CHECK_EQ(fake_engine_ctx_writes(T.eng, HCA_CTX_TYPE_CQC), cq_writes + 2, "create + undo writes");
		CHECK_EQ(fake_engine_ctx_log(T.eng, fake_engine_ctx_log_len(T.eng) - 1).first, 0,
			 "last CQC write invalidates");
	}

	/* Handler errors carry the handler's errno. */
	CHECK_EQ(fwt_mr_reg(&T, CTX, PD, 0x1000, 0x1000, 0x10000000, 0x100, &v, NULL), HCA_EINVAL,
		 "MR access bit outside verbs");
}

/* Which rule wins when several are broken: the table's order. */
static void rule_order(void)
{
	struct hca_cmd c;
	uint32_t pd, pdn;
	struct hca_cq_init_attr ia;
	struct hca_cq_create_resp resp;
	uint32_t cq;
	int i;

	/* An unknown mandatory attribute and a missing one: UNKNOWN first. */
	hca_cmd_init(&c, HCA_OBJ_PD, HCA_METHOD_PD_ALLOC, CTX);
	hca_cmd_idr_new(&c, HCA_ATTR_PD_ALLOC_HANDLE, &pd);
	hca_cmd_raw(&c, 77, 4, HCA_ATTR_F_MANDATORY, 0, 0);
	expect(&c, HCA_EPROTONOSUPPORT, HCA_CMD_SYND_UNKNOWN_ATTR, 2, "unknown before missing");
	/* Attributes are checked in command order: the first bad one wins. */
	pd_alloc_cmd(&c, &pd, &pdn);
	c.attrs[1].len = 2;			/* BAD_LEN on attribute 2 */
	c.attrs[0].attr_data = 1;		/* NONZERO_RESERVED on attribute 1 */
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_NONZERO_RESERVED, 1, "first bad attribute wins");
	/* Missing before reserved struct bytes before DMA faults. */
	cq_create_cmd(&c, &ia, &cq, &resp);
	ia.rsvd_01[0] = 1;
	c.payload_used = 0;
	c.num_attrs = 0;
	hca_cmd_idr_new(&c, HCA_ATTR_CQ_CREATE_HANDLE, &cq);
	hca_cmd_in(&c, HCA_ATTR_CQ_CREATE_INIT_ATTR, &ia, sizeof(ia));
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_MISSING_ATTR, 0, "missing before reserved");
	i = hca_cmd_raw(&c, HCA_ATTR_CQ_CREATE_RESP, sizeof(resp), HCA_ATTR_F_MANDATORY, 0, 0xbad00000ull);
	(void)i;
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_NONZERO_RESERVED, 2, "reserved before output fault");
	hca_cmd_init(&c, HCA_OBJ_CQ, HCA_METHOD_CQ_CREATE, CTX);
	hca_cmd_idr_new(&c, HCA_ATTR_CQ_CREATE_HANDLE, &cq);
	hca_cmd_raw(&c, HCA_ATTR_CQ_CREATE_INIT_ATTR, sizeof(ia), HCA_ATTR_F_MANDATORY, 0, 0xbad00000ull);
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_MISSING_ATTR, 0, "missing before input fault");
}

static void outputs(void)
{
	struct hca_cmd c;
	uint32_t pd = 0, pdn = 0;
	int rc;

	pd_alloc_cmd(&c, &pd, &pdn);
	rc = hca_devctl_exec(T.dc, &c);
	CHECK_EQ(rc, 0, "PD.ALLOC");
	CHECK(c.attrs[1].flags & HCA_ATTR_F_VALID_OUTPUT, "VALID_OUTPUT set on PDN");
	CHECK(!(c.attrs[0].flags & HCA_ATTR_F_VALID_OUTPUT), "VALID_OUTPUT only on PTR_OUT");
	CHECK_EQ(c.attrs[0].data, pd, "new handle written into the command buffer");
	CHECK(pd != 0 && pdn != 0, "handle and PDN");
	/* A failing command writes nothing back. */
	pd_alloc_cmd(&c, &pd, &pdn);
	c.attrs[0].attr_data = 1;
	rc = hca_devctl_exec(T.dc, &c);
	CHECK_EQ(rc, HCA_EINVAL, "bad PD.ALLOC");
	CHECK(!(c.attrs[1].flags & HCA_ATTR_F_VALID_OUTPUT), "no VALID_OUTPUT on failure");
	CHECK_EQ(c.attrs[0].data, 0, "no handle on failure");
}

static void driver_namespace(void)
{
	struct hca_cmd c;
	struct hca_fw_info fi;
	struct hca_qp_attr qa;
	struct hca_qp_engine_state es;
	struct hca_qp_init_attr qia;
	uint32_t qp, qpn, cmds;
	int i;

	/* DEVICE.HCASIM_QUERY_FW with the driver's id. */
	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_HCASIM_METHOD_DEVICE_QUERY_FW, 0);
	CHECK_EQ(c.hdr.driver_id, HCA_DRIVER_ID_HCASIM, "builder picks the driver id");
	hca_cmd_out(&c, HCA_HCASIM_ATTR_DEVICE_QUERY_FW_RESP, &fi, sizeof(fi));
	expect(&c, 0, 0, 0, "QUERY_FW");
	CHECK_EQ(fi.fw_ver, HCA_FW_VERSION, "fw_ver");
	CHECK_EQ(fi.interface_rev, HCA_INTERFACE_REV, "interface_rev");
	CHECK_EQ(fi.max_handles, HCA_CAP_MAX_HANDLES, "max_handles");
	CHECK_EQ(fi.num_ctx, 2, "contexts");
	CHECK(fi.cmds > 10 && fi.cmd_errors > 10, "counters: %u cmds, %u errors", fi.cmds, fi.cmd_errors);
	cmds = fi.cmds;
	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_HCASIM_METHOD_DEVICE_QUERY_FW, 0);
	hca_cmd_out(&c, HCA_HCASIM_ATTR_DEVICE_QUERY_FW_RESP, &fi, sizeof(fi));
	expect(&c, 0, 0, 0, "QUERY_FW again");
	CHECK_EQ(fi.cmds, cmds + 1, "command counter moves");
	/* Without the driver id the method does not exist. */
	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_HCASIM_METHOD_DEVICE_QUERY_FW, 0);
	hca_cmd_out(&c, HCA_HCASIM_ATTR_DEVICE_QUERY_FW_RESP, &fi, sizeof(fi));
	c.hdr.driver_id = HCA_DRIVER_ID_NONE;
	expect(&c, HCA_EPROTONOSUPPORT, HCA_CMD_SYND_UNKNOWN_METHOD, 0, "QUERY_FW without driver id");
	/* ... nor its mandatory output. */
	hca_cmd_init(&c, HCA_OBJ_DEVICE, HCA_HCASIM_METHOD_DEVICE_QUERY_FW, 0);
	expect(&c, HCA_EINVAL, HCA_CMD_SYND_MISSING_ATTR, 0, "QUERY_FW without RESP");

	/* QP.QUERY + the driver attribute. */
	fwt_qp_init(&T, &qia, HCA_QPT_RC, 0);
	CHECK_EQ(fwt_qp_create(&T, CTX, PD, CQ, CQ, 0, &qia, &qp, &qpn), 0, "QP");
	hca_cmd_init(&c, HCA_OBJ_QP, HCA_METHOD_QP_QUERY, CTX);
	hca_cmd_idr(&c, HCA_ATTR_QP_QUERY_HANDLE, qp);
	hca_cmd_out(&c, HCA_ATTR_QP_QUERY_ATTR, &qa, sizeof(qa));
	i = hca_cmd_out(&c, HCA_HCASIM_ATTR_QP_QUERY_ENGINE, &es, sizeof(es));
	memset(&es, 0x5a, sizeof(es));
	{
		uint8_t *q = fake_engine_ctx(T.eng, HCA_CTX_TYPE_QPC, qpn);
		((struct hca_qpc *)q)->msn = 0x123456;	/* engine status the query must report */
		((struct hca_qpc *)q)->sq_pi = 7;
	}
	expect(&c, 0, 0, 0, "QP.QUERY with ENGINE");
	CHECK(c.attrs[i].flags & HCA_ATTR_F_VALID_OUTPUT, "ENGINE written");
	CHECK(es.msn == 0x123456 && es.sq_pi == 7 && es.cur_state == HCA_QPS_RESET, "engine state reported");
	/* The same attribute without the driver id: unknown; fatal only if MANDATORY. */
	hca_cmd_init(&c, HCA_OBJ_QP, HCA_METHOD_QP_QUERY, CTX);
	hca_cmd_idr(&c, HCA_ATTR_QP_QUERY_HANDLE, qp);
	hca_cmd_out(&c, HCA_ATTR_QP_QUERY_ATTR, &qa, sizeof(qa));
	i = hca_cmd_out(&c, HCA_HCASIM_ATTR_QP_QUERY_ENGINE, &es, sizeof(es));
	c.hdr.driver_id = HCA_DRIVER_ID_NONE;
	expect(&c, HCA_EPROTONOSUPPORT, HCA_CMD_SYND_UNKNOWN_ATTR, i + 1, "driver attr, core caller, mandatory");
	c.attrs[i].flags = 0;
	hca_cmd_init(&c, HCA_OBJ_QP, HCA_METHOD_QP_QUERY, CTX);
	hca_cmd_idr(&c, HCA_ATTR_QP_QUERY_HANDLE, qp);
	hca_cmd_out(&c, HCA_ATTR_QP_QUERY_ATTR, &qa, sizeof(qa));
	i = hca_cmd_out(&c, HCA_HCASIM_ATTR_QP_QUERY_ENGINE, &es, sizeof(es));
	c.attrs[i].flags = 0;
	c.hdr.driver_id = HCA_DRIVER_ID_NONE;
	expect(&c, 0, 0, 0, "driver attr, core caller, optional");
	CHECK(!(c.attrs[i].flags & HCA_ATTR_F_VALID_OUTPUT), "ignored attribute not written");
	CHECK_EQ(fwt_destroy(&T, CTX, HCA_OBJ_QP, HCA_METHOD_QP_DESTROY, qp), 0, "destroy QP");
}

int main(void)
{
	uint32_t cqn;

	setvbuf(stdout, NULL, _IONBF, 0);
	fake_engine_register();
	CHECK_EQ(fwt_open(&T, "fake", NULL), 0, "open");
	CHECK_EQ(fwt_ctx_alloc(&T, &CTX, NULL), 0, "context");
	CHECK_EQ(fwt_ctx_alloc(&T, &CTX2, NULL), 0, "context 2");
	CHECK_EQ(fwt_pd_alloc(&T, CTX, &PD, NULL), 0, "PD");
	CHECK_EQ(fwt_pd_alloc(&T, CTX2, &PD2, NULL), 0, "PD in context 2");
	CHECK_EQ(fwt_cq_create(&T, CTX, 0, 4, &CQ, &cqn), 0, "CQ");
	header_rules();
	context_rules();
	attribute_rules();
	rule_order();
	outputs();
	driver_namespace();
	fwt_close(&T);
	return check_done();
}
