// SPDX-License-Identifier: MIT
/*
 * hcasim::Hca's error paths and its TLM-2.0 protocol behaviour, on one HCA
 * in a small platform (memory behind the IOMMU, router, MSI target, a CPU
 * thread, a protocol checker on each of the HCA's five links):
 *
 *  - BAR0 and management port: 4- and 8-byte accesses against the spec's
 *    identity values; outside the region, across its end and unaligned ->
 *    TLM_ADDRESS_ERROR_RESPONSE; lengths other than 4 and 8 and a short
 *    streaming width -> TLM_BURST_ERROR_RESPONSE; partial byte enables ->
 *    TLM_BYTE_ENABLE_ERROR_RESPONSE; a refused write changes nothing;
 *    TLM_IGNORE_COMMAND; the Ethernet port's refusals.
 *  - An interrupt delivered as an MSI-X write: exactly the table's address
 *    and data, one 4-byte write, an irq line pulse; masked -> PBA bit, no
 *    write; unmasked -> the write; an MSI-X address nothing answers -> the
 *    error is counted and the device carries on.
 *  - A DMA fault answered by the platform memory: a SEND gathering from an
 *    MR whose IOVA is not mapped completes LOC_PROT_ERR / DMA_FAULT, the
 *    memory logs the IOVA, the device latches it (read through the mgmt
 *    socket) and counts it.
 *  - The protocol checker itself: each planted violation is counted once.
 *
 *   sc_hca [--engine model|rtl|lockstep] [--width N]
 */
#include <cstring>
#include <string>

#include <systemc>
#include <tlm>

#include "check.h"
#include "hca.h"
#include "hostmem.h"
#include "tlm_check.h"
#include "vp_bus.h"
#include "vp_cpu.h"

using namespace hcasim;
using sc_core::sc_time;
using tlm::tlm_response_status;

namespace {

constexpr uint64_t kMemSize = 0xe0000000ull;
constexpr uint64_t kBar0 = 0xe0000000ull;	// region = 2 x BAR0: the HCA sees offsets past BAR0
constexpr uint64_t kMgmt = 0xe8000000ull;	// region = 2 x the management port
constexpr uint64_t kEth = 0xf0000000ull;	// the HCA's eth_rx, for frames from the CPU
constexpr uint64_t kBad = 0xf1000000ull;	// a broken target behind a checker
constexpr uint64_t kMsi = 0xfee00000ull;
constexpr uint64_t kUnmapped = 0x80000000ull;	// memory region, no IOMMU mapping

// A target that breaks the base protocol on purpose.
struct BadTarget : sc_core::sc_module {
	enum Mode { GOOD, LEAVE_INCOMPLETE, CHANGE_ADDRESS } mode = GOOD;
	tlm_utils::simple_target_socket<BadTarget> socket;
	explicit BadTarget(sc_core::sc_module_name n) : sc_module(n), socket("socket")
	{
		socket.register_b_transport(this, &BadTarget::b_transport);
	}
	void b_transport(tlm::tlm_generic_payload &gp, sc_time &)
	{
		if (mode == LEAVE_INCOMPLETE)
			return;
		if (mode == CHANGE_ADDRESS)
			gp.set_address(gp.get_address() + 4);
		gp.set_response_status(tlm::TLM_OK_RESPONSE);
	}
};

// Takes the frames the HCA sends.
struct FrameSink : sc_core::sc_module {
	tlm_utils::simple_target_socket<FrameSink> socket;
	uint64_t frames = 0;
	explicit FrameSink(sc_core::sc_module_name n) : sc_module(n), socket("socket")
	{
		socket.register_b_transport(this, &FrameSink::b_transport);
	}
	void b_transport(tlm::tlm_generic_payload &gp, sc_time &)
	{
		frames++;
		gp.set_response_status(tlm::TLM_OK_RESPONSE);
	}
};

// Counts rising edges of the HCA's irq lines.
struct IrqMonitor : sc_core::sc_module {
	sc_core::sc_vector<sc_core::sc_in<bool>> in;
	unsigned int rises[HCA_CAP_NUM_MSIX] = {};
	bool last[HCA_CAP_NUM_MSIX] = {};
	explicit IrqMonitor(sc_core::sc_module_name n) : sc_module(n), in("in", HCA_CAP_NUM_MSIX)
	{
		SC_HAS_PROCESS(IrqMonitor);
		SC_METHOD(update);
		for (auto &p : in)
			sensitive << p;
		dont_initialize();
	}
	void update()
	{
		for (unsigned int v = 0; v < HCA_CAP_NUM_MSIX; v++) {
			if (in[v].read() && !last[v])
				rises[v]++;
			last[v] = in[v].read();
		}
	}
};

struct Bench {
	struct hostmem *hm;
	vp::Memory mem;
	vp::Router router;
	Hca hca;
	TlmCheck dma, eth_tx, bar0, mgmt, eth_rx, bad_link;
	vp::MsiSink msi;
	FrameSink wire;
	BadTarget bad;
	IrqMonitor mon;
	sc_core::sc_vector<sc_core::sc_signal<bool>> irq;
	vp::Cpu cpu;
	bool finished = false;

	Bench(const HcaConfig &hc, struct hostmem *m)
		: hm(m), mem("memory", m, sc_time(20, sc_core::SC_NS)), router("router"), hca("hca", hc),
		  dma("dma", true), eth_tx("eth_tx", true), bar0("bar0", false), mgmt("mgmt", false),
		  eth_rx("eth_rx", false), bad_link("bad_link", true), msi("msi"), wire("wire"), bad("bad"),
		  mon("mon"), irq("irq", HCA_CAP_NUM_MSIX),
		  cpu("cpu", hc.clock_period, [this](vp::Cpu &c) { body(c); })
	{
		cpu.bus.bind(router.in);
		hca.dma.bind(dma.in);
		dma.out.bind(router.in);
		hca.eth_tx.bind(eth_tx.in);
		eth_tx.out.bind(wire.socket);
		router.map(0, kMemSize, mem.socket);
		router.map(kBar0, 2 * Hca::kBar0Size, bar0.in);
		bar0.out.bind(hca.bar0);
		router.map(kMgmt, 2 * Hca::kMgmtSize, mgmt.in);
		mgmt.out.bind(hca.mgmt);
		router.map(kEth, 0x10000, eth_rx.in);
		eth_rx.out.bind(hca.eth_rx);
		router.map(kBad, 0x1000, bad_link.in);
		bad_link.out.bind(bad.socket);
		router.map(kMsi, 0x1000, msi.socket);
		hca.irq.bind(irq);
		mon.in.bind(irq);
	}

	void body(vp::Cpu &c);
	void registers(vp::Cpu &c);
	void frames(vp::Cpu &c);
	void checker(vp::Cpu &c);
	void msix(vp::Cpu &c, struct vp_host *h);
	void dma_fault(vp::Cpu &c, struct vp_host *h);
};

tlm_response_status raw(vp::Cpu &c, tlm::tlm_command cmd, uint64_t addr, void *p, unsigned int len,
			unsigned int sw = 0, const unsigned char *be = nullptr, unsigned int be_len = 0)
{
	tlm::tlm_generic_payload gp;

	gp.set_command(cmd);
	gp.set_address(addr);
	gp.set_data_ptr(static_cast<unsigned char *>(p));
	gp.set_data_length(len);
	gp.set_streaming_width(sw ? sw : len);
	gp.set_byte_enable_ptr(const_cast<unsigned char *>(be));
	gp.set_byte_enable_length(be_len);
	gp.set_dmi_allowed(false);
	gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
	return c.transport(gp);
}

#define CHECK_RS(got, want, what) \
	CHECK((got) == (want), "%s: %s, want %s", what, rs_name(got), rs_name(want))

const char *rs_name(tlm_response_status s)
{
	switch (s) {
	case tlm::TLM_OK_RESPONSE: return "OK";
	case tlm::TLM_INCOMPLETE_RESPONSE: return "INCOMPLETE";
	case tlm::TLM_GENERIC_ERROR_RESPONSE: return "GENERIC_ERROR";
	case tlm::TLM_ADDRESS_ERROR_RESPONSE: return "ADDRESS_ERROR";
	case tlm::TLM_COMMAND_ERROR_RESPONSE: return "COMMAND_ERROR";
	case tlm::TLM_BURST_ERROR_RESPONSE: return "BURST_ERROR";
	case tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE: return "BYTE_ENABLE_ERROR";
	}
	return "?";
}

void Bench::registers(vp::Cpu &c)
{
	const uint64_t scratch = kBar0 + HCA_BAR0_MSIX_TABLE + 16 * 7 + HCA_MSIX_MSG_DATA;
	uint32_t v = 0, w[2] = { 0, 0 }, id = c.read32(kBar0 + HCA_INIT_HCA_ID);
	uint64_t q = 0;
	static const unsigned char partial[4] = { 0xff, 0x00, 0xff, 0xff };
	static const unsigned char all[4] = { 0xff, 0xff, 0xff, 0xff };

	CHECK_EQ(HCA_FIELD_GET(id, HCA_INIT_HCA_ID_VENDOR_ID), HCA_VENDOR_ID, "BAR0 HCA_ID vendor");
	CHECK_RS(raw(c, tlm::TLM_READ_COMMAND, kBar0 + HCA_INIT_HCA_ID, &q, 8), tlm::TLM_OK_RESPONSE, "8-byte read");
	CHECK_EQ(q, (uint64_t)c.read32(kBar0 + HCA_INIT_HW_REV) << 32 | id, "8-byte read = HCA_ID, HW_REV");
	CHECK_RS(raw(c, tlm::TLM_READ_COMMAND, kMgmt + HCA_MGMT_ID, &v, 4), tlm::TLM_OK_RESPONSE, "mgmt read");
	CHECK_EQ(v, HCA_MGMT_ID_VALUE, "management port ID");

	// outside the region, across its end, unaligned
	CHECK_RS(raw(c, tlm::TLM_READ_COMMAND, kBar0 + Hca::kBar0Size, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE,
		 "read just past BAR0");
	CHECK_RS(raw(c, tlm::TLM_WRITE_COMMAND, kBar0 + Hca::kBar0Size + 0x1000, &v, 4),
		 tlm::TLM_ADDRESS_ERROR_RESPONSE, "write past BAR0");
	CHECK_RS(raw(c, tlm::TLM_READ_COMMAND, kBar0 + Hca::kBar0Size - 4, &q, 8), tlm::TLM_ADDRESS_ERROR_RESPONSE,
		 "8 bytes across the end of BAR0");
	CHECK_RS(raw(c, tlm::TLM_READ_COMMAND, kBar0 + 2, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE, "unaligned read");
	CHECK_RS(raw(c, tlm::TLM_READ_COMMAND, kMgmt + Hca::kMgmtSize, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE,
		 "read past the management port");
	CHECK_RS(raw(c, tlm::TLM_IGNORE_COMMAND, kBar0 + Hca::kBar0Size, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE,
		 "IGNORE past BAR0");
	CHECK_RS(raw(c, tlm::TLM_IGNORE_COMMAND, kBar0, &v, 4), tlm::TLM_OK_RESPONSE, "IGNORE inside BAR0");

	// unsupported lengths; a refused write changes nothing
	c.write32(scratch, 0x11223344);
	for (unsigned int len : { 1u, 2u, 3u, 12u, 16u }) {
		uint8_t b[16];

		memset(b, 0xee, sizeof(b));
		CHECK_RS(raw(c, tlm::TLM_WRITE_COMMAND, scratch, b, len), tlm::TLM_BURST_ERROR_RESPONSE,
			 ("BAR0 write of " + std::to_string(len) + " bytes").c_str());
		CHECK_RS(raw(c, tlm::TLM_READ_COMMAND, kMgmt + HCA_MGMT_ID, b, len), tlm::TLM_BURST_ERROR_RESPONSE,
			 ("mgmt read of " + std::to_string(len) + " bytes").c_str());
	}
	CHECK_RS(raw(c, tlm::TLM_WRITE_COMMAND, scratch, &v, 4, 2), tlm::TLM_BURST_ERROR_RESPONSE,
		 "streaming width 2");
	CHECK_EQ(c.read32(scratch), 0x11223344, "refused writes left the register alone");

	// byte enables: all enabled is a normal access, anything else is refused
	v = 0xaabbccdd;
	CHECK_RS(raw(c, tlm::TLM_WRITE_COMMAND, scratch, &v, 4, 0, partial, 4),
		 tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE, "partial byte enables");
	CHECK_EQ(c.read32(scratch), 0x11223344, "refused byte-enabled write changed nothing");
	CHECK_RS(raw(c, tlm::TLM_WRITE_COMMAND, scratch, &v, 4, 0, all, 4), tlm::TLM_OK_RESPONSE,
		 "all bytes enabled");
	CHECK_EQ(c.read32(scratch), 0xaabbccdd, "byte-enabled write honoured");
	w[0] = 0x01020304;
	w[1] = 0x05060708;
	CHECK_RS(raw(c, tlm::TLM_WRITE_COMMAND, scratch - 4, w, 8, 0, all, 4), tlm::TLM_OK_RESPONSE,
		 "8-byte write, byte-enable pattern of 4 repeated");
	CHECK_EQ(c.read32(scratch - 4), 0x01020304, "8-byte write: low word at the low address");
	CHECK_EQ(c.read32(scratch), 0x05060708, "8-byte write: high word");
}

void Bench::frames(vp::Cpu &c)
{
	static uint8_t big[Hca::kMaxFrame + 1];
	static const unsigned char be[1] = { 0xff };
	uint8_t f[64] = {};

	CHECK_RS(raw(c, tlm::TLM_READ_COMMAND, kEth, f, sizeof(f)), tlm::TLM_COMMAND_ERROR_RESPONSE, "frame READ");
	CHECK_RS(raw(c, tlm::TLM_WRITE_COMMAND, kEth, big, sizeof(big)), tlm::TLM_BURST_ERROR_RESPONSE,
		 "frame over 16 KiB");
	CHECK_RS(raw(c, tlm::TLM_WRITE_COMMAND, kEth, f, sizeof(f), 0, be, 1), tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE,
		 "frame with byte enables");
	CHECK_RS(raw(c, tlm::TLM_WRITE_COMMAND, kEth, f, sizeof(f)), tlm::TLM_OK_RESPONSE, "a (junk) frame");
	CHECK_EQ(hca.stats().frames_rx, 1, "frames taken");
}

// Each planted violation is counted once, a legal transaction not at all.
void Bench::checker(vp::Cpu &c)
{
	static const unsigned char be[4] = { 0xff, 0xff, 0xff, 0xff };
	uint32_t v = 0;
	uint64_t n = bad_link.violations();
	tlm::tlm_generic_payload gp;

	bad.mode = BadTarget::GOOD;
	raw(c, tlm::TLM_READ_COMMAND, kBad, &v, 4);
	CHECK_EQ(bad_link.violations() - n, 0, "checker: legal transaction");
	bad.mode = BadTarget::LEAVE_INCOMPLETE;
	raw(c, tlm::TLM_READ_COMMAND, kBad, &v, 4);
	CHECK_EQ(bad_link.violations() - n, 1, "checker: left TLM_INCOMPLETE_RESPONSE");
	bad.mode = BadTarget::CHANGE_ADDRESS;
	raw(c, tlm::TLM_READ_COMMAND, kBad, &v, 4);
	CHECK_EQ(bad_link.violations() - n, 2, "checker: target changed the address");
	bad.mode = BadTarget::GOOD;
	raw(c, tlm::TLM_WRITE_COMMAND, kBad, &v, 4, 2);
	CHECK_EQ(bad_link.violations() - n, 3, "checker (strict): streaming width != length");
	raw(c, tlm::TLM_WRITE_COMMAND, kBad, &v, 4, 0, be, 4);
	CHECK_EQ(bad_link.violations() - n, 4, "checker (strict): byte enables");
	gp.set_command(tlm::TLM_WRITE_COMMAND);
	gp.set_address(kBad);
	gp.set_data_ptr(reinterpret_cast<unsigned char *>(&v));
	gp.set_data_length(4);
	gp.set_streaming_width(4);
	gp.set_response_status(tlm::TLM_OK_RESPONSE);
	c.transport(gp);
	CHECK_EQ(bad_link.violations() - n, 5, "checker: sent with a response status already set");
	CHECK(bad_link.messages().size() == 5, "checker kept the messages");
}

void Bench::msix(vp::Cpu &c, struct vp_host *h)
{
	const unsigned int vec = 3;
	const uint32_t data = 0xcafe0003;
	const uint64_t entry = kBar0 + HCA_BAR0_MSIX_TABLE + 16 * vec;
	uint32_t eq = 0, eqn = 0, pd, pdn, ci = 0;
	struct hca_eqe *ring;
	size_t n0;
	unsigned int r0;

	auto drain_and_arm = [&]() {
		while ((ring[ci & 15].owner & 1) == (((ci >> 4) & 1) ^ 1))
			ci++;
		c.write32(kBar0 + HCA_BAR0_DB_BASE + h->uar * HCA_BAR0_DB_PAGE_SIZE + HCA_DB_EQ_ARM,
			  (ci & 0xffff) << 16 | eqn);
	};
	c.write32(entry + HCA_MSIX_MSG_ADDR_LO, (uint32_t)(kMsi + 0x40));
	c.write32(entry + HCA_MSIX_MSG_ADDR_HI, (uint32_t)((kMsi + 0x40) >> 32));
	c.write32(entry + HCA_MSIX_MSG_DATA, data);
	c.write32(entry + HCA_MSIX_VECTOR_CTRL, 0);
	CHECK_EQ(fwt_eq_create(&h->t, h->ctx, 4, vec, HCA_EQ_MASK_CMD_DONE, &eq, &eqn), 0, "command-done EQ");
	ring = static_cast<struct hca_eqe *>(hostmem_ptr(hm, h->t.last_ring, HCA_EQE_SIZE << 4));
	c.wait_cycles(5000);
	while (msi.take(data, sc_core::sc_time_stamp()))
		;
	drain_and_arm();
	n0 = msi.log().size();
	r0 = mon.rises[vec];
	CHECK_EQ(fwt_pd_alloc(&h->t, h->ctx, &pd, &pdn), 0, "a command");
	CHECK(c.wait_msi(msi, data, 100000), "command-done interrupt arrives as an MSI write");
	CHECK_EQ(msi.log().size(), n0 + 1, "exactly one MSI write");
	if (msi.log().size() == n0 + 1) {
		CHECK_EQ(msi.log().back().addr, 0x40, "MSI write at the table's address");
		CHECK_EQ(msi.log().back().data, data, "MSI write carries the table's data");
	}
	c.wait_cycles(10);
	c.sync();	// let SystemC time pass the pulse
	CHECK_EQ(mon.rises[vec] - r0, 1, "irq line pulsed once");

	// masked: pending bit, no write; unmasked: the write
	drain_and_arm();
	c.write32(entry + HCA_MSIX_VECTOR_CTRL, HCA_MSIX_VECTOR_CTRL_MASKED_MASK);
	CHECK_EQ(fwt_pd_alloc(&h->t, h->ctx, &pd, &pdn), 0, "a command while masked");
	c.wait_cycles(20000);
	CHECK_EQ(msi.log().size(), n0 + 1, "no MSI write while masked");
	CHECK(c.read32(kBar0 + HCA_BAR0_MSIX_PBA) & (1u << vec), "PBA bit set while masked");
	c.write32(entry + HCA_MSIX_VECTOR_CTRL, 0);
	CHECK(c.wait_msi(msi, data, 100000), "unmasking delivers the pending interrupt");
	CHECK(!(c.read32(kBar0 + HCA_BAR0_MSIX_PBA) & (1u << vec)), "PBA bit clear after delivery");

	// an MSI-X address nothing answers: counted, and the device carries on
	drain_and_arm();
	c.write32(entry + HCA_MSIX_MSG_ADDR_HI, 0x100);
	uint64_t errs = dma.errors();
	CHECK_EQ(fwt_pd_alloc(&h->t, h->ctx, &pd, &pdn), 0, "a command, MSI address unanswered");
	c.wait_cycles(20000);
	CHECK_EQ(hca.stats().msix_errors, 1, "MSI write error counted");
	CHECK_EQ(dma.errors() - errs, 1, "the error response crossed the DMA link");
	CHECK_EQ(fwt_pd_alloc(&h->t, h->ctx, &pd, &pdn), 0, "the next command works");
	c.write32(entry + HCA_MSIX_VECTOR_CTRL, HCA_MSIX_VECTOR_CTRL_MASKED_MASK);
}

void Bench::dma_fault(vp::Cpu &c, struct vp_host *h)
{
	struct vp_host peer;
	struct hca_cqe e;
	uint32_t mr2 = 0, lkey2 = 0, info;
	const uint64_t va2 = 0x5000000000ull;
	uint64_t faults = hostmem_fault_count(hm), errs = dma.errors();

	memset(&peer, 0, sizeof(peer));	// a peer that does not exist: the SEND never leaves
	peer.qpn = 0x55;
	peer.sq_psn = 0x2000;
	peer.cfg.ip = 0x0a000063;
	memcpy(peer.cfg.mac, (const uint8_t[]){ 0x02, 0, 0, 0, 0, 0x63 }, 6);
	CHECK_EQ(vp_host_connect(h, &peer), 0, h->err);
	CHECK_EQ(fwt_mr_reg(&h->t, h->ctx, h->pd, va2, 4096, kUnmapped, HCA_ACCESS_LOCAL_WRITE, &mr2, &lkey2), 0,
		 "MR over an unmapped IOVA");
	vp_host_post_send_sge(h, HCA_WR_SEND, va2 + 16, 100, lkey2, 0, 0);
	CHECK_EQ(vp_host_wait_cqe(h, &e), 0, h->err);
	CHECK_EQ(e.status, HCA_WC_LOC_PROT_ERR, "gather fault: completion status");
	CHECK_EQ(e.vendor_err, HCA_VENDOR_ERR_DMA_FAULT, "gather fault: vendor_err");
	CHECK(hostmem_fault_count(hm) > faults, "the memory refused the access");
	CHECK(hostmem_fault(hm, 0) && hostmem_fault(hm, 0)->iova == kUnmapped + 16 && !hostmem_fault(hm, 0)->write,
	      "memory's fault log: a read at the unmapped IOVA");
	CHECK(dma.errors() > errs, "an error response on the DMA link");
	CHECK(hca.stats().dma_faults >= 1, "the module turned it into a DMA fault");
	CHECK_EQ((uint64_t)c.read32(kMgmt + HCA_MGMT_DMA_FAULT_HI) << 32 | c.read32(kMgmt + HCA_MGMT_DMA_FAULT_LO),
		 kUnmapped + 16, "the device latched the faulting IOVA");
	info = c.read32(kMgmt + HCA_MGMT_DMA_FAULT_INFO);
	CHECK(HCA_FIELD_GET(info, HCA_MGMT_DMA_FAULT_INFO_VALID) &&
		      HCA_FIELD_GET(info, HCA_MGMT_DMA_FAULT_INFO_CLIENT) == HCA_DMA_CLIENT_PAYLOAD &&
		      !HCA_FIELD_GET(info, HCA_MGMT_DMA_FAULT_INFO_WRITE),
	      "fault info: valid, payload read (0x%x)", info);
	CHECK(c.read32(kMgmt + HCA_MGMT_STAT_BASE + 4 * HCA_STAT_DMA_FAULT) >= 1, "STAT_DMA_FAULT counted");
}

void Bench::body(vp::Cpu &c)
{
	vp::Cpu::HostPort port = { &c, kBar0, &msi, hm };
	struct vp_host_ops ops = vp::Cpu::host_ops(&port);
	struct vp_host_cfg cfg;
	struct vp_host h;
	int rc;

	registers(c);
	frames(c);
	checker(c);
	memset(&cfg, 0, sizeof(cfg));
	memcpy(cfg.mac, hca.config().mac, 6);
	cfg.ip = 0x0a000001;
	cfg.msi_addr = kMsi;
	cfg.msi_data = 0x4300;
	cfg.vector = 1;
	cfg.buf_len = 0x10000;
	rc = vp_host_open(&h, &cfg, &ops, hm);
	CHECK_EQ(rc, 0, h.err);
	if (!rc) {
		msix(c, &h);
		dma_fault(c, &h);
	}
	vp_host_close(&h);
	finished = true;
	sc_core::sc_stop();
}

}  // namespace

int sc_main(int argc, char **argv)
{
	HcaConfig hc;
	struct hostmem *hm = hostmem_create();

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--engine"))
			hc.engine = argv[i + 1];
		else if (!strcmp(argv[i], "--width"))
			hc.data_w = (unsigned int)strtoul(argv[i + 1], nullptr, 0);
	}
	hc.irq_lines = true;
	tlm::tlm_global_quantum::instance().set(sc_time(1, sc_core::SC_US));
	{
		Bench b(hc, hm);

		sc_core::sc_start(sc_time(1, sc_core::SC_SEC));
		CHECK(b.finished, "the test thread ran to the end");
		for (TlmCheck *k : { &b.dma, &b.eth_tx, &b.bar0, &b.mgmt, &b.eth_rx }) {
			CHECK_EQ(k->violations(), 0, k->name());
			for (const std::string &m : k->messages())
				printf("  %s\n", m.c_str());
		}
		CHECK(b.bar0.errors() >= 10, "BAR0 error responses crossed the checker");
		CHECK_EQ(b.wire.frames, 0, "no frame left for the phantom peer");
	}
	hostmem_destroy(hm);
	return check_done();
}
