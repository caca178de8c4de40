// SPDX-License-Identifier: MIT
/*
 * A "CPU" of the example platform: an SC_THREAD that runs a body (the C
 * driver of vp_host.h, or a test) with loosely-timed bus accesses through
 * its initiator socket (tlm_quantumkeeper: each access carries the CPU's
 * local time offset; the thread yields once a quantum is used up).
 * Memory is reached directly (the CPU's view of the hostmem), the device
 * only through the bus.
 */
#ifndef HCASIM_SYSTEMC_VP_CPU_H
#define HCASIM_SYSTEMC_VP_CPU_H

#include <cstdint>
#include <functional>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "vp_bus.h"
#include "vp_host.h"

namespace hcasim {
namespace vp {

class Cpu : public sc_core::sc_module {
public:
	tlm_utils::simple_initiator_socket<Cpu> bus;

	// `period`: the device clock period (devctl waits count device cycles).
	Cpu(sc_core::sc_module_name name, sc_core::sc_time period, std::function<void(Cpu &)> body);

	// One bus transaction; returns its response status (data in/out at p).
	tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, void *p, unsigned int len,
					const unsigned char *byte_enables = nullptr, unsigned int be_len = 0);
	// A transaction as built by the caller, sent with the CPU's local time.
	tlm::tlm_response_status transport(tlm::tlm_generic_payload &gp);
	uint32_t read32(uint64_t addr);		// 0xffffffff on an error response
	void write32(uint64_t addr, uint32_t v);
	void wait_cycles(uint64_t n);
	// Wait for an MSI message `data` at `sink`: true, or false after max_cycles.
	bool wait_msi(MsiSink &sink, uint32_t data, uint64_t max_cycles);
	void sync() { qk_.sync(); }
	uint64_t bus_errors() const { return bus_errors_; }

	// vp_host_ops over this CPU: BAR0 at `bar0`, MSI delivered to `sink`,
	// device-visible memory allocated in `hm`.
	struct HostPort {
		Cpu *cpu;
		uint64_t bar0;
		MsiSink *sink;
		struct hostmem *hm;
	};
	static struct vp_host_ops host_ops(HostPort *port);

private:
	void thread();

	sc_core::sc_time period_;
	std::function<void(Cpu &)> body_;
	tlm_utils::tlm_quantumkeeper qk_;
	uint64_t bus_errors_ = 0;
};

}  // namespace vp
}  // namespace hcasim

#endif
