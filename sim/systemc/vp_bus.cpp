// SPDX-License-Identifier: MIT
// Memory, router and MSI target of the example platform: see vp_bus.h.
#include "vp_bus.h"

#include <cstring>

#include "hostmem.h"

namespace hcasim {
namespace vp {

Memory::Memory(sc_core::sc_module_name name, struct hostmem *hm, sc_core::sc_time latency, bool wait_in_transport)
	: sc_module(name), socket("socket"), hm_(hm), latency_(latency), wait_(wait_in_transport)
{
	socket.register_b_transport(this, &Memory::b_transport);
}

void Memory::b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
	unsigned int len = gp.get_data_length();
	int rc = 0;

	delay += latency_;
	if (wait_) {
		wait(delay);
		delay = sc_core::SC_ZERO_TIME;
	}
	if (gp.get_byte_enable_ptr()) {
		gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
		return;
	}
	if (gp.get_streaming_width() < len) {
		gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
		return;
	}
	if (gp.is_read())
		rc = hostmem_dma_read(hm_, gp.get_address(), gp.get_data_ptr(), len);
	else if (gp.is_write())
		rc = hostmem_dma_write(hm_, gp.get_address(), gp.get_data_ptr(), len);
	else if (!hostmem_ptr(hm_, gp.get_address(), len))
		rc = -1;
	gp.set_response_status(rc ? tlm::TLM_ADDRESS_ERROR_RESPONSE : tlm::TLM_OK_RESPONSE);
}

Router::Router(sc_core::sc_module_name name) : sc_module(name), in("in"), out("out")
{
	in.register_b_transport(this, &Router::b_transport);
}

void Router::map(uint64_t base, uint64_t size, tlm::tlm_target_socket<> &target)
{
	map_.push_back({ base, size, (unsigned int)map_.size() });
	out.bind(target);
}

void Router::b_transport(int id, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
	uint64_t a = gp.get_address(), len = gp.get_data_length();

	(void)id;
	for (const Region &r : map_) {
		if (a < r.base || a - r.base >= r.size)
			continue;
		if (r.size - (a - r.base) < len)
			break;
		gp.set_address(a - r.base);
		out[(int)r.port]->b_transport(gp, delay);
		gp.set_address(a);
		return;
	}
	gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

MsiSink::MsiSink(sc_core::sc_module_name name) : sc_module(name), socket("socket"), evq_("evq")
{
	socket.register_b_transport(this, &MsiSink::b_transport);
}

void MsiSink::b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
	Msg m;

	if (!gp.is_write()) {
		refused_++;
		gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
		return;
	}
	if (gp.get_data_length() != 4 || gp.get_streaming_width() != 4 || gp.get_byte_enable_ptr()) {
		refused_++;
		gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
		return;
	}
	m.at = sc_core::sc_time_stamp() + delay;
	m.addr = gp.get_address();
	memcpy(&m.data, gp.get_data_ptr(), 4);
	pending_.push_back(m);
	log_.push_back(m);
	evq_.notify(delay);
	gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

bool MsiSink::take(uint32_t data, const sc_core::sc_time &now)
{
	for (size_t i = 0; i < pending_.size(); i++) {
		if (pending_[i].data == data && pending_[i].at <= now) {
			pending_.erase(pending_.begin() + (long)i);
			return true;
		}
	}
	return false;
}

}  // namespace vp
}  // namespace hcasim
