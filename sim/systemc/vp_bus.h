// SPDX-License-Identifier: MIT
/*
 * Platform parts of the example virtual platform (vp_main.cpp) and the
 * tests: the memory behind an IOMMU, an address router, the MSI target of
 * a CPU's interrupt controller.  Small on purpose; a real platform brings
 * its own.
 */
#ifndef HCASIM_SYSTEMC_VP_BUS_H
#define HCASIM_SYSTEMC_VP_BUS_H

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_target_socket.h>

struct hostmem;

namespace hcasim {
namespace vp {

// Memory addressed by IOVA through sim/hostmem (the IOMMU and the host
// buffers in one): an access touching any unmapped byte, or writing a
// read-only mapping, is answered TLM_ADDRESS_ERROR_RESPONSE and moves no
// byte; hostmem's fault log records it.  Byte enables are refused
// (TLM_BYTE_ENABLE_ERROR_RESPONSE), streaming is refused
// (TLM_BURST_ERROR_RESPONSE).  Each access adds `latency` to the delay,
// or, with `wait_in_transport`, waits for the delay plus latency inside
// b_transport (the other loosely-timed style a platform may use).
class Memory : public sc_core::sc_module {
public:
	tlm_utils::simple_target_socket<Memory> socket;

	Memory(sc_core::sc_module_name name, struct hostmem *hm, sc_core::sc_time latency,
	       bool wait_in_transport = false);
	struct hostmem *hostmem() const { return hm_; }

private:
	void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
	struct hostmem *hm_;
	sc_core::sc_time latency_;
	bool wait_;
};

// Address decoder: map() binds a target and gives it [base, base+size);
// the target sees addresses relative to base.  An address in no region, or
// an access running past the end of its region: TLM_ADDRESS_ERROR_RESPONSE.
class Router : public sc_core::sc_module {
public:
	tlm_utils::multi_passthrough_target_socket<Router> in;
	tlm_utils::multi_passthrough_initiator_socket<Router> out;

	explicit Router(sc_core::sc_module_name name);
	void map(uint64_t base, uint64_t size, tlm::tlm_target_socket<> &target);

private:
	struct Region {
		uint64_t base, size;
		unsigned int port;
	};
	void b_transport(int id, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
	std::vector<Region> map_;
};

// The MSI doorbell of one CPU's interrupt controller: takes 4-byte writes
// (the message data); anything else is answered with an error.  A message
// is visible from its annotated time on.
class MsiSink : public sc_core::sc_module {
public:
	struct Msg {
		sc_core::sc_time at;
		uint64_t addr;
		uint32_t data;
	};
	tlm_utils::simple_target_socket<MsiSink> socket;

	explicit MsiSink(sc_core::sc_module_name name);
	// Remove and return true for the oldest message with `data` arrived by `now`.
	bool take(uint32_t data, const sc_core::sc_time &now);
	const sc_core::sc_event &arrived() const { return evq_.default_event(); }
	const std::vector<Msg> &log() const { return log_; }	// every message, in order
	uint64_t refused() const { return refused_; }

private:
	void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
	std::vector<Msg> pending_, log_;
	sc_core::sc_event_queue evq_;
	uint64_t refused_ = 0;
};

}  // namespace vp
}  // namespace hcasim

#endif
