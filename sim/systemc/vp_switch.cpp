// SPDX-License-Identifier: MIT
// The example platform's learning switch: see vp_switch.h.
#include "vp_switch.h"

#include <cstring>

namespace hcasim {
namespace vp {

Switch::Switch(sc_core::sc_module_name name, sc_core::sc_time latency)
	: sc_module(name), rx("rx"), tx("tx"), latency_(latency)
{
	rx.register_b_transport(this, &Switch::b_transport);
}

void Switch::send(int port, tlm::tlm_generic_payload &in, const sc_core::sc_time &delay)
{
	tlm::tlm_generic_payload gp;
	sc_core::sc_time d = delay + latency_;

	gp.set_command(tlm::TLM_WRITE_COMMAND);
	gp.set_address(0);
	gp.set_data_ptr(in.get_data_ptr());
	gp.set_data_length(in.get_data_length());
	gp.set_streaming_width(in.get_data_length());
	gp.set_byte_enable_ptr(nullptr);
	gp.set_dmi_allowed(false);
	gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
	tx[port]->b_transport(gp, d);
}

void Switch::b_transport(int port, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
	std::array<uint8_t, 6> src, dst;
	const uint8_t *f = gp.get_data_ptr();

	if (!gp.is_write() || gp.get_data_length() < 14 || gp.get_byte_enable_ptr() ||
	    gp.get_streaming_width() < gp.get_data_length()) {
		gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
		return;
	}
	gp.set_response_status(tlm::TLM_OK_RESPONSE);
	memcpy(dst.data(), f, 6);
	memcpy(src.data(), f + 6, 6);
	if (!(src[0] & 1))
		table_[src] = port;
	auto it = table_.find(dst);
	if (!(dst[0] & 1) && it != table_.end()) {
		if (it->second == port) {
			dropped_++;
			return;
		}
		forwarded_++;
		send(it->second, gp, delay);
		return;
	}
	flooded_++;
	for (int p = 0; p < (int)tx.size(); p++)
		if (p != port)
			send(p, gp, delay);
}

}  // namespace vp
}  // namespace hcasim
