// SPDX-License-Identifier: MIT
/*
 * Lockstep under the firmware (sim/device.c): the device backend
 * "lockstep" = firmware + lockstep(model, model-mutant).  Bring-up, the
 * command queue and object creation run through the firmware's management
 * port accesses, which lockstep forwards to both engines and compares (the
 * firmware polls FW_EVENT, pops events, injects CMD_DONE EQEs, reads and
 * writes contexts).  With a slow DUT (lag) nothing may diverge; with a
 * planted CTX_STATUS bug the firmware's own read is the first divergence.
 *
 *   test_lockstep_device [-v]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/model.h"
#include "check.h"
#include "devctl.h"
#include "device.h"
#include "hostmem.h"
#include "lockstep.h"
#include "lockstep_mutant.h"

static int verbose;

struct host {
	struct hostmem *hm;
	unsigned int irqs;
};

static int h_rd(void *c, uint64_t iova, void *b, size_t l)
{
	return hostmem_dma_read(((struct host *)c)->hm, iova, b, l);
}

static int h_wr(void *c, uint64_t iova, const void *b, size_t l)
{
	return hostmem_dma_write(((struct host *)c)->hm, iova, b, l);
}

static void h_tx(void *c, const uint8_t *f, size_t l)
{
	(void)c;
	(void)f;
	(void)l;
}

static void h_irq(void *c, unsigned int v)
{
	(void)v;
	((struct host *)c)->irqs++;
}

static const struct hca_host_ops hops = { h_rd, h_wr, h_tx, h_irq };

static int exec(struct hca_devctl *dc, struct hca_cmd *c)
{
	int rc = hca_devctl_exec(dc, c);

	if (rc && verbose)
		printf("command %u.%u: %d (syndrome 0x%x)\n", c->hdr.object_id, c->hdr.method_id, rc, c->syndrome);
	return rc == 0;
}

/* Bring up, create objects; returns the number of commands that succeeded. */
static int run(const char *options, const char *what, bool expect_clean, const char *expect_stream)
{
	const struct hca_backend *be;
	struct hca_dev_config cfg;
	struct hca_devctl_sim s;
	struct hca_devctl_bus bus;
	struct hca_devctl *dc = NULL;
	struct hca_dev *dev = NULL;
	struct host h = { 0 };
	struct hca_engine *eng;
	const struct sb_divergence *d;
	struct lockstep_stats st;
	int ok = 0;

	h.hm = hostmem_create();
	be = hca_backend_find("lockstep");
	CHECK(be != NULL, "backend lockstep registered");
	if (!be || !h.hm)
		return 0;
	memset(&cfg, 0, sizeof(cfg));
	memcpy(cfg.mac, (const uint8_t[]){ 0x02, 0x48, 0x43, 0, 0, 7 }, 6);
	cfg.seed = 3;
	cfg.options = options;
	CHECK_EQ(be->create(&cfg, &hops, &h, &dev), 0, what);
	if (!dev)
		return 0;
	eng = hca_device_engine(dev);
	CHECK(lockstep_is(eng), "%s: the device's engine is lockstep", what);
	s.be = be;
	s.dev = dev;
	s.hm = h.hm;
	hca_devctl_sim_bus(&s, &bus);
	CHECK_EQ(hca_devctl_open(&bus, &dc), 0, what);
	if (dc && hca_devctl_bringup(dc, 4) == 0) {
		struct hca_cmd c;
		uint32_t ctx = 0, uar = 0, pd = 0, pdn = 0, eq = 0, cq = 0, mr = 0, lkey = 0;
		struct hca_eq_init_attr ea;
		struct hca_eq_create_resp er;
		struct hca_cq_init_attr ca;
		struct hca_cq_create_resp cr;
		uint64_t buf;
		struct hca_eqe *eqring;
		uint32_t eq_ci = 0;

		ok++;
		hca_cmd_init(&c, HCA_OBJ_CONTEXT, HCA_METHOD_CONTEXT_ALLOC, 0);
		hca_cmd_idr_new(&c, HCA_ATTR_CONTEXT_ALLOC_HANDLE, &ctx);
		hca_cmd_out(&c, HCA_ATTR_CONTEXT_ALLOC_UAR_INDEX, &uar, 4);
		ok += exec(dc, &c);
		/* the command-done EQ: every later command posts a CMD_DONE EQE and an interrupt */
		memset(&ea, 0, sizeof(ea));
		ea.log_size = 5;
		ea.vector = 2;
		ea.event_mask = HCA_EQ_MASK_CMD_DONE | HCA_EQ_MASK_ASYNC;
		eqring = hostmem_alloc(h.hm, HCA_EQE_SIZE << 5, &ea.base);
		be->mmio_write(dev, HCA_BAR0_MSIX_TABLE + 16 * 2 + HCA_MSIX_VECTOR_CTRL, 0);
		hca_cmd_init(&c, HCA_OBJ_EQ, HCA_METHOD_EQ_CREATE, ctx);
		hca_cmd_idr_new(&c, HCA_ATTR_EQ_CREATE_HANDLE, &eq);
		hca_cmd_in(&c, HCA_ATTR_EQ_CREATE_INIT_ATTR, &ea, sizeof(ea));
		hca_cmd_out(&c, HCA_ATTR_EQ_CREATE_RESP, &er, sizeof(er));
		ok += exec(dc, &c);
		for (int i = 0; i < 4; i++) {
			hca_cmd_init(&c, HCA_OBJ_PD, HCA_METHOD_PD_ALLOC, ctx);
			hca_cmd_idr_new(&c, HCA_ATTR_PD_ALLOC_HANDLE, &pd);
			hca_cmd_out(&c, HCA_ATTR_PD_ALLOC_PDN, &pdn, 4);
			ok += exec(dc, &c);
			memset(&ca, 0, sizeof(ca));
			ca.log_size = 6;
			ca.cqe = 64;
			hostmem_alloc(h.hm, HCA_CQE_SIZE << 6, &ca.base);
			hca_cmd_init(&c, HCA_OBJ_CQ, HCA_METHOD_CQ_CREATE, ctx);
			hca_cmd_idr_new(&c, HCA_ATTR_CQ_CREATE_HANDLE, &cq);
			hca_cmd_in(&c, HCA_ATTR_CQ_CREATE_INIT_ATTR, &ca, sizeof(ca));
			hca_cmd_idr(&c, HCA_ATTR_CQ_CREATE_EQ, eq);
			hca_cmd_out(&c, HCA_ATTR_CQ_CREATE_RESP, &cr, sizeof(cr));
			ok += exec(dc, &c);
			hostmem_alloc(h.hm, 65536, &buf);
			hca_cmd_init(&c, HCA_OBJ_MR, HCA_METHOD_MR_REG, ctx);
			hca_cmd_idr_new(&c, HCA_ATTR_MR_REG_HANDLE, &mr);
			hca_cmd_idr(&c, HCA_ATTR_MR_REG_PD, pd);
			hca_cmd_in_u64(&c, HCA_ATTR_MR_REG_ADDR, buf + 0x1000);
			hca_cmd_in_u64(&c, HCA_ATTR_MR_REG_LENGTH, 65536);
			hca_cmd_in_u64(&c, HCA_ATTR_MR_REG_DMA_ADDR, buf);
			hca_cmd_in_u32(&c, HCA_ATTR_MR_REG_ACCESS, HCA_ACCESS_LOCAL_WRITE);
			hca_cmd_out(&c, HCA_ATTR_MR_REG_LKEY, &lkey, 4);
			hca_cmd_out(&c, HCA_ATTR_MR_REG_RKEY, &lkey, 4);
			ok += exec(dc, &c);
			/* consume the CMD_DONE EQEs and re-arm the EQ (one interrupt per round) */
			while ((eqring[eq_ci & 31].owner & 1) == (((eq_ci >> 5) & 1) ^ 1))
				eq_ci++;
			be->mmio_write(dev, HCA_BAR0_DB_BASE + uar * HCA_BAR0_DB_PAGE_SIZE + HCA_DB_EQ_ARM,
				       (eq_ci & 0xffff) << 16 | er.eqn);
		}
		/* the last round's CMD_DONE EQE interrupt, as a driver waits for it */
		for (unsigned int n = h.irqs, k = 0; h.irqs == n && k < 1000; k++)
			be->advance(dev, 10);
		hca_cmd_init(&c, HCA_OBJ_CONTEXT, HCA_METHOD_CONTEXT_FREE, ctx);
		hca_cmd_idr(&c, 0, ctx);
		ok += exec(dc, &c);
		be->advance(dev, 100000);
	}
	lockstep_finish(eng, "end of test");
	d = lockstep_divergence(eng);
	lockstep_get_stats(eng, &st);
	if (expect_clean) {
		CHECK(d == NULL, "%s: no divergence (%s)", what, d ? d->summary : "");
		CHECK_EQ(ok, 1 + 2 + 4 * 3 + 1, "commands succeeded");
		CHECK(st.eqe_bytes >= 13 * 16, "%s: CMD_DONE EQEs compared: %llu bytes", what,
		      (unsigned long long)st.eqe_bytes);
		CHECK(st.irqs >= 4 && h.irqs >= 4, "%s: interrupts compared", what);
		CHECK(st.reads_compared > 100, "%s: firmware reads compared: %llu", what,
		      (unsigned long long)st.reads_compared);
	} else {
		CHECK(d != NULL && strcmp(d->stream, expect_stream) == 0, "%s: diverges in %s (%s)", what,
		      expect_stream, d ? d->stream : "none");
	}
	if (verbose)
		printf("%s: %d commands ok, eqe bytes %llu, irqs %llu, reads %llu (skipped %llu)%s%s\n", what, ok,
		       (unsigned long long)st.eqe_bytes, (unsigned long long)st.irqs,
		       (unsigned long long)st.reads_compared, (unsigned long long)st.reads_skipped,
		       d ? "\n" : "", d ? d->report : "");
	hca_devctl_close(dc);
	be->destroy(dev);
	hostmem_destroy(h.hm);
	return ok;
}

int main(int argc, char **argv)
{
	char o[256];

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "-v") == 0)
			verbose = 1;
	hca_model_engine_register();
	hca_lockstep_engine_register();
	hca_mutant_engine_register();
	CHECK_EQ(hca_device_register("lockstep"), 0, "device backend on the lockstep engine");
	snprintf(o, sizeof(o), "ref=model,dut=model-mutant,quiet=%d", !verbose);
	run(o, "firmware on lockstep", true, NULL);
	snprintf(o, sizeof(o), "ref=model,dut=model-mutant,dut.lag=120,quiet=%d", !verbose);
	run(o, "firmware on lockstep, DUT 120 cycles late", true, NULL);
	snprintf(o, sizeof(o), "ref=model,dut=model-mutant,dut.bug=ctx_status,dut.at=9,quiet=%d", !verbose);
	run(o, "firmware on lockstep, bad CTX_STATUS", false, "mgmt-read");
	/* the firmware pops PORT_ACTIVE at boot: its element read is the event stream */
	snprintf(o, sizeof(o), "ref=model,dut=model-mutant,dut.bug=evt_element,dut.at=1,quiet=%d", !verbose);
	run(o, "firmware on lockstep, wrong event element", false, "evt");
	return check_done();
}
