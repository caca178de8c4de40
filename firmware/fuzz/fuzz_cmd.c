// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the firmware's command parser, validator and handlers,
 * on the fake engine, with host memory = the fuzz input.
 *
 * Input (little-endian):
 *   u8  ncmds-1 (low 3 bits)        u8 nevents (low 3 bits)
 *   nevents x { u8 type, u32 element }   engine events queued before the commands
 *   ncmds   x { u16 off, u16 len }       command buffers at IOVA MEM_IOVA + off
 *   ... the rest: anything the commands point to
 * The whole input is host memory at MEM_IOVA (read-write, 64 KiB; beyond it
 * the IOMMU refuses).  Before the commands a fixed prologue creates one of
 * each object, so inputs can name live handles (PROLOGUE_* below; the
 * checked-in corpus, firmware/fuzz/mkcorpus.py, uses them).
 *
 * Oracles: hca_fw_check() after every command (reference counts, handle
 * tables, ownership), status/syndrome consistency, and after a device reset
 * nothing may be left; ASan/UBSan for memory safety.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw.h"
#include "fake_engine.h"

#define MEM_IOVA 0x10000ull
#define MEM_SIZE 0x10000u
/* The prologue's command buffers live here, outside the input's window. */
#define PRO_IOVA 0x100000ull
#define PRO_SIZE 0x4000u

/* Handles the prologue creates (deterministic: slots in order, one
 * generation counter starting at 1). */
#define PROLOGUE_CTX 0x00010000u
#define PROLOGUE_PD  0x00020000u
#define PROLOGUE_EQ  0x00030001u
#define PROLOGUE_CQ  0x00040002u
#define PROLOGUE_SRQ 0x00050003u
#define PROLOGUE_QP  0x00060004u
#define PROLOGUE_MR  0x00070005u

struct harness {
	struct hca_engine *eng;
	uint64_t now;
	uint8_t mem[MEM_SIZE];
	uint8_t pro[PRO_SIZE];
};

static struct harness H;
static struct hca_fw *FW;

static uint32_t h_mgmt_read(void *ctx, uint32_t addr)
{
	(void)ctx;
	return fake_engine_ops.mgmt_read(H.eng, addr);
}

static void h_mgmt_write(void *ctx, uint32_t addr, uint32_t v)
{
	(void)ctx;
	fake_engine_ops.mgmt_write(H.eng, addr, v);
}

static uint8_t *window(uint64_t iova, size_t len)
{
	if (iova >= MEM_IOVA && iova - MEM_IOVA <= MEM_SIZE && len <= MEM_SIZE - (iova - MEM_IOVA))
		return H.mem + (iova - MEM_IOVA);
	if (iova >= PRO_IOVA && iova - PRO_IOVA <= PRO_SIZE && len <= PRO_SIZE - (iova - PRO_IOVA))
		return H.pro + (iova - PRO_IOVA);
	return NULL;
}

static int h_dma_read(void *ctx, uint64_t iova, void *buf, size_t len)
{
	uint8_t *p = window(iova, len);

	(void)ctx;
	if (!p)
		return -HCA_EFAULT;
	memcpy(buf, p, len);
	return 0;
}

static int h_dma_write(void *ctx, uint64_t iova, const void *buf, size_t len)
{
	uint8_t *p = window(iova, len);

	(void)ctx;
	if (!p)
		return -HCA_EFAULT;
	memcpy(p, buf, len);
	return 0;
}

static uint64_t h_now(void *ctx)
{
	(void)ctx;
	return H.now;
}

/* ---- a tiny command writer for the prologue ---- */
struct cw {
	uint8_t *base;
	uint64_t iova;
	struct hca_cmd_hdr *hdr;
	struct hca_cmd_attr *a;
	uint32_t payload;	/* offset of the next payload */
};

static void cw_init(struct cw *w, uint32_t off, uint16_t obj, uint16_t method, uint32_t ctx)
{
	w->base = H.pro + off;
	w->iova = PRO_IOVA + off;
	memset(w->base, 0, 1024);
	w->hdr = (struct hca_cmd_hdr *)w->base;
	w->hdr->object_id = obj;
	w->hdr->method_id = method;
	w->hdr->context = ctx;
	w->a = (struct hca_cmd_attr *)(w->base + sizeof(*w->hdr));
	w->payload = 512;
}

static void cw_attr(struct cw *w, uint16_t id, uint16_t len, uint64_t data)
{
	struct hca_cmd_attr *a = &w->a[w->hdr->num_attrs++];

	a->attr_id = id;
	a->len = len;
	a->flags = HCA_ATTR_F_MANDATORY;
	a->data = data;
	w->hdr->length = (uint16_t)(sizeof(*w->hdr) + sizeof(*a) * w->hdr->num_attrs);
}

static void cw_ptr(struct cw *w, uint16_t id, const void *p, uint16_t len)
{
	memcpy(w->base + w->payload, p, len);
	cw_attr(w, id, len, w->iova + w->payload);
	w->payload += (len + 7u) & ~7u;
}

static void cw_out(struct cw *w, uint16_t id, uint16_t len)
{
	cw_attr(w, id, len, w->iova + w->payload);
	w->payload += (len + 7u) & ~7u;
}

static uint32_t cw_run(struct cw *w)
{
	uint32_t synd;

	return fw_cmd_execute(FW, w->iova, w->hdr->length, &synd);
}

static void prologue(void)
{
	struct cw w;
	struct hca_eq_init_attr eq = { .log_size = 4, .event_mask = HCA_EQ_MASK_ASYNC, .base = 0x200000 };
	struct hca_cq_init_attr cq = { .log_size = 4, .cqe = 16, .base = 0x210000 };
	struct hca_srq_init_attr srq = { .max_wr = 8, .max_sge = 1, .log_size = 3, .log_stride = 5,
					 .base = 0x220000 };
	struct hca_qp_init_attr qp = { .qp_type = HCA_QPT_RC, .log_sq_size = 3, .log_sq_stride = 7,
				       .max_send_wr = 8, .max_send_sge = 1, .sq_base = 0x230000 };
	uint32_t rc = 0;

	cw_init(&w, 0, HCA_OBJ_CONTEXT, HCA_METHOD_CONTEXT_ALLOC, 0);
	cw_attr(&w, HCA_ATTR_CONTEXT_ALLOC_HANDLE, 0, 0);
	cw_out(&w, HCA_ATTR_CONTEXT_ALLOC_UAR_INDEX, 4);
	rc |= cw_run(&w);
	cw_init(&w, 1024, HCA_OBJ_PD, HCA_METHOD_PD_ALLOC, PROLOGUE_CTX);
	cw_attr(&w, HCA_ATTR_PD_ALLOC_HANDLE, 0, 0);
	cw_out(&w, HCA_ATTR_PD_ALLOC_PDN, 4);
	rc |= cw_run(&w);
	cw_init(&w, 2048, HCA_OBJ_EQ, HCA_METHOD_EQ_CREATE, PROLOGUE_CTX);
	cw_attr(&w, HCA_ATTR_EQ_CREATE_HANDLE, 0, 0);
	cw_ptr(&w, HCA_ATTR_EQ_CREATE_INIT_ATTR, &eq, sizeof(eq));
	cw_out(&w, HCA_ATTR_EQ_CREATE_RESP, 8);
	rc |= cw_run(&w);
	cw_init(&w, 3072, HCA_OBJ_CQ, HCA_METHOD_CQ_CREATE, PROLOGUE_CTX);
	cw_attr(&w, HCA_ATTR_CQ_CREATE_HANDLE, 0, 0);
	cw_ptr(&w, HCA_ATTR_CQ_CREATE_INIT_ATTR, &cq, sizeof(cq));
	cw_attr(&w, HCA_ATTR_CQ_CREATE_EQ, 0, PROLOGUE_EQ);
	cw_out(&w, HCA_ATTR_CQ_CREATE_RESP, 8);
	rc |= cw_run(&w);
	cw_init(&w, 4096, HCA_OBJ_SRQ, HCA_METHOD_SRQ_CREATE, PROLOGUE_CTX);
	cw_attr(&w, HCA_ATTR_SRQ_CREATE_HANDLE, 0, 0);
	cw_attr(&w, HCA_ATTR_SRQ_CREATE_PD, 0, PROLOGUE_PD);
	cw_ptr(&w, HCA_ATTR_SRQ_CREATE_INIT_ATTR, &srq, sizeof(srq));
	cw_out(&w, HCA_ATTR_SRQ_CREATE_RESP, 8);
	rc |= cw_run(&w);
	cw_init(&w, 5120, HCA_OBJ_QP, HCA_METHOD_QP_CREATE, PROLOGUE_CTX);
	cw_attr(&w, HCA_ATTR_QP_CREATE_HANDLE, 0, 0);
	cw_attr(&w, HCA_ATTR_QP_CREATE_PD, 0, PROLOGUE_PD);
	cw_attr(&w, HCA_ATTR_QP_CREATE_SEND_CQ, 0, PROLOGUE_CQ);
	cw_attr(&w, HCA_ATTR_QP_CREATE_RECV_CQ, 0, PROLOGUE_CQ);
	cw_attr(&w, HCA_ATTR_QP_CREATE_SRQ, 0, PROLOGUE_SRQ);
	cw_ptr(&w, HCA_ATTR_QP_CREATE_INIT_ATTR, &qp, sizeof(qp));
	cw_out(&w, HCA_ATTR_QP_CREATE_RESP, 8);
	rc |= cw_run(&w);
	cw_init(&w, 6144, HCA_OBJ_MR, HCA_METHOD_MR_REG, PROLOGUE_CTX);
	cw_attr(&w, HCA_ATTR_MR_REG_HANDLE, 0, 0);
	cw_attr(&w, HCA_ATTR_MR_REG_PD, 0, PROLOGUE_PD);
	cw_attr(&w, HCA_ATTR_MR_REG_ADDR, 8, 0x1000);
	cw_attr(&w, HCA_ATTR_MR_REG_LENGTH, 8, 0x1000);
	cw_attr(&w, HCA_ATTR_MR_REG_DMA_ADDR, 8, 0x1000);
	cw_attr(&w, HCA_ATTR_MR_REG_ACCESS, 4, HCA_ACCESS_LOCAL_WRITE);
	cw_out(&w, HCA_ATTR_MR_REG_LKEY, 4);
	cw_out(&w, HCA_ATTR_MR_REG_RKEY, 4);
	rc |= cw_run(&w);
	/* The corpus depends on these handles: they must be what we say. */
	{
		const struct hca_cmd_attr *qp_new = (const struct hca_cmd_attr *)(H.pro + 5120 + 24);
		const struct hca_cmd_attr *mr_new = (const struct hca_cmd_attr *)(H.pro + 6144 + 24);
		if (rc || hca_fw_check(FW) || (uint32_t)qp_new->data != PROLOGUE_QP ||
		    (uint32_t)mr_new->data != PROLOGUE_MR)
			abort();
	}
}

static void setup(void)
{
	struct hca_engine_config ec = { .options = "log_max_qp=4,log_max_cq=4,log_max_srq=3,log_max_eq=3,"
						   "log_max_mr=5,log_max_pd=4,max_uar=8" };
	struct hca_fw_hal hal = { .mgmt_read = h_mgmt_read, .mgmt_write = h_mgmt_write,
				  .dma_read = h_dma_read, .dma_write = h_dma_write, .now = h_now };
	struct hca_fw_board board = { .mac = { 2, 0, 0, 0, 0, 1 } };

	if (H.eng)
		fake_engine_ops.destroy(H.eng);
	H.eng = NULL;
	if (fake_engine_ops.create(&ec, NULL, NULL, &H.eng))
		abort();
	if (!FW)
		FW = malloc(sizeof(*FW));
	if (!FW || hca_fw_init(FW, &hal, &board))
		abort();
	H.now = 0;
	hca_fw_run(FW);		/* boot */
	fake_engine_ops.bar0_write(H.eng, HCA_INIT_CMDQ_LOG_SIZE, 0);
	prologue();
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int ncmds, nevents;
	size_t pos = 2;

	static int verbose = -1;

	if (verbose < 0)
		verbose = getenv("FW_FUZZ_VERBOSE") != NULL;
	if (size < 2 || size > MEM_SIZE)
		return 0;
	setup();
	memset(H.mem, 0, sizeof(H.mem));
	memcpy(H.mem, data, size);
	ncmds = (data[0] & 7) + 1;
	nevents = data[1] & 7;
	for (unsigned int i = 0; i < nevents && pos + 5 <= size; i++, pos += 5) {
		uint32_t el;
		memcpy(&el, data + pos + 1, 4);
		fake_engine_event(H.eng, data[pos], el);
	}
	if (nevents) {
		H.now++;
		hca_fw_run(FW);
		if (hca_fw_check(FW))
			abort();
	}
	for (unsigned int i = 0; i < ncmds && pos + 4 <= size; i++, pos += 4) {
		uint32_t synd, st;

		st = fw_cmd_execute(FW, MEM_IOVA + le16(data + pos), le16(data + pos + 2), &synd);
		if (verbose)
			fprintf(stderr, "cmd %u: status %u syndrome 0x%x\n", i, st, synd);
		/* Status and syndrome agree: failures say why, successes say nothing. */
		if ((st == 0) != (synd == 0))
			abort();
		if (st && !HCA_FIELD_GET(synd, HCA_CMDQ_ENTRY_SYNDROME_REASON))
			abort();
		if (hca_fw_check(FW))
			abort();
	}
	/* A device reset leaves nothing behind, whatever happened. */
	fake_engine_ops.bar0_write(H.eng, HCA_INIT_CTRL, HCA_INIT_CTRL_RESET_MASK);
	hca_fw_run(FW);
	if (hca_fw_check(FW) || hca_fw_count(FW, HCA_OBJ_CONTEXT) || hca_fw_count(FW, HCA_OBJ_QP) ||
	    hca_fw_count(FW, HCA_OBJ_PD) || hca_fw_count(FW, HCA_OBJ_MR))
		abort();
	return 0;
}
