// SPDX-License-Identifier: MIT
// The example platform's CPU: see vp_cpu.h.
#include "vp_cpu.h"

#include "hostmem.h"

namespace hcasim {
namespace vp {

Cpu::Cpu(sc_core::sc_module_name name, sc_core::sc_time period, std::function<void(Cpu &)> body)
	: sc_module(name), bus("bus"), period_(period), body_(std::move(body))
{
	SC_HAS_PROCESS(Cpu);
	SC_THREAD(thread);
}

void Cpu::thread()
{
	qk_.reset();
	body_(*this);
}

tlm::tlm_response_status Cpu::access(tlm::tlm_command cmd, uint64_t addr, void *p, unsigned int len,
				     const unsigned char *be, unsigned int be_len)
{
	tlm::tlm_generic_payload gp;

	gp.set_command(cmd);
	gp.set_address(addr);
	gp.set_data_ptr(static_cast<unsigned char *>(p));
	gp.set_data_length(len);
	gp.set_streaming_width(len);
	gp.set_byte_enable_ptr(const_cast<unsigned char *>(be));
	gp.set_byte_enable_length(be_len);
	gp.set_dmi_allowed(false);
	gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
	return transport(gp);
}

tlm::tlm_response_status Cpu::transport(tlm::tlm_generic_payload &gp)
{
	sc_core::sc_time delay = qk_.get_local_time();

	bus->b_transport(gp, delay);
	qk_.set(delay);
	if (qk_.need_sync())
		qk_.sync();
	if (gp.is_response_error())
		bus_errors_++;
	return gp.get_response_status();
}

uint32_t Cpu::read32(uint64_t addr)
{
	uint32_t v = 0;

	if (access(tlm::TLM_READ_COMMAND, addr, &v, 4) != tlm::TLM_OK_RESPONSE)
		return 0xffffffffu;
	return v;
}

void Cpu::write32(uint64_t addr, uint32_t v)
{
	access(tlm::TLM_WRITE_COMMAND, addr, &v, 4);
}

void Cpu::wait_cycles(uint64_t n)
{
	qk_.inc(sc_core::sc_time::from_value(period_.value() * n));
	if (qk_.need_sync())
		qk_.sync();
}

bool Cpu::wait_msi(MsiSink &sink, uint32_t data, uint64_t max_cycles)
{
	sc_core::sc_time end;

	qk_.sync();
	end = sc_core::sc_time_stamp() + sc_core::sc_time::from_value(period_.value() * max_cycles);
	for (;;) {
		if (sink.take(data, sc_core::sc_time_stamp()))
			return true;
		if (sc_core::sc_time_stamp() >= end)
			return false;
		wait(end - sc_core::sc_time_stamp(), sink.arrived());
		qk_.reset();
	}
}

// ---- vp_host_ops ---------------------------------------------------------------------------

static uint32_t port_read32(void *ctx, uint32_t off)
{
	auto *p = static_cast<Cpu::HostPort *>(ctx);
	return p->cpu->read32(p->bar0 + off);
}

static void port_write32(void *ctx, uint32_t off, uint32_t v)
{
	auto *p = static_cast<Cpu::HostPort *>(ctx);
	p->cpu->write32(p->bar0 + off, v);
}

static void port_wait(void *ctx, uint64_t cycles)
{
	static_cast<Cpu::HostPort *>(ctx)->cpu->wait_cycles(cycles);
}

static int port_wait_msi(void *ctx, uint32_t data, uint64_t max_cycles)
{
	auto *p = static_cast<Cpu::HostPort *>(ctx);
	return p->cpu->wait_msi(*p->sink, data, max_cycles);
}

static void *port_alloc(void *ctx, size_t len, uint64_t *iova)
{
	return hostmem_alloc(static_cast<Cpu::HostPort *>(ctx)->hm, len, iova);
}

static void port_free(void *ctx, void *va, uint64_t iova, size_t len)
{
	(void)va;
	(void)len;
	hostmem_unmap(static_cast<Cpu::HostPort *>(ctx)->hm, iova);
}

struct vp_host_ops Cpu::host_ops(HostPort *port)
{
	return { { port, port_read32, port_write32, port_wait, port_alloc, port_free }, port_wait_msi };
}

}  // namespace vp
}  // namespace hcasim
