// SPDX-License-Identifier: MIT
/*
 * A small learning Ethernet switch for the example platform: port i is the
 * i-th binding of `rx` (frames from device i) and of `tx` (frames to device
 * i).  One frame per TLM WRITE, as hcasim::Hca's Ethernet port.  Source MACs
 * are learnt; a frame to a known MAC goes to its port (dropped if that is
 * the port it came from), broadcast, multicast and unknown destinations are
 * flooded to every other port.  Each hop adds `latency` to the delay.
 */
#ifndef HCASIM_SYSTEMC_VP_SWITCH_H
#define HCASIM_SYSTEMC_VP_SWITCH_H

#include <array>
#include <cstdint>
#include <map>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

namespace hcasim {
namespace vp {

class Switch : public sc_core::sc_module {
public:
	tlm_utils::multi_passthrough_target_socket<Switch> rx;
	tlm_utils::multi_passthrough_initiator_socket<Switch> tx;

	Switch(sc_core::sc_module_name name, sc_core::sc_time latency);
	uint64_t forwarded() const { return forwarded_; }
	uint64_t flooded() const { return flooded_; }
	uint64_t dropped() const { return dropped_; }

private:
	void b_transport(int port, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
	void send(int port, tlm::tlm_generic_payload &in, const sc_core::sc_time &delay);

	sc_core::sc_time latency_;
	std::map<std::array<uint8_t, 6>, int> table_;
	uint64_t forwarded_ = 0, flooded_ = 0, dropped_ = 0;
};

}  // namespace vp
}  // namespace hcasim

#endif
