// SPDX-License-Identifier: MIT
// hcasim::TlmCheck: see tlm_check.h.
#include "tlm_check.h"

#include <cstdio>

namespace hcasim {

TlmCheck::TlmCheck(sc_core::sc_module_name name, bool strict) : sc_module(name), in("in"), out("out"), strict_(strict)
{
	in.register_b_transport(this, &TlmCheck::b_transport);
}

void TlmCheck::violation(const tlm::tlm_generic_payload &gp, const char *what)
{
	char m[256];

	violations_++;
	if (msgs_.size() >= 16)
		return;
	snprintf(m, sizeof(m), "%s: %s (command %d, address 0x%llx, length %u, streaming width %u, status %s)", name(),
		 what, (int)gp.get_command(), (unsigned long long)gp.get_address(), gp.get_data_length(),
		 gp.get_streaming_width(), gp.get_response_string().c_str());
	msgs_.push_back(m);
}

void TlmCheck::b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
	const tlm::tlm_command cmd = gp.get_command();
	const uint64_t addr = gp.get_address();
	unsigned char *const data = gp.get_data_ptr();
	const unsigned int len = gp.get_data_length(), sw = gp.get_streaming_width();
	unsigned char *const be = gp.get_byte_enable_ptr();
	const unsigned int be_len = gp.get_byte_enable_length();

	n_++;
	if (cmd != tlm::TLM_READ_COMMAND && cmd != tlm::TLM_WRITE_COMMAND && cmd != tlm::TLM_IGNORE_COMMAND)
		violation(gp, "unknown command");
	if (!data)
		violation(gp, "no data pointer");
	if (!len)
		violation(gp, "zero data length");
	if (!sw)
		violation(gp, "zero streaming width");
	if (be && !be_len)
		violation(gp, "byte-enable pointer with zero byte-enable length");
	if (gp.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
		violation(gp, "sent with a response status other than TLM_INCOMPLETE_RESPONSE");
	if (gp.is_dmi_allowed())
		violation(gp, "sent with the DMI hint set");
	if (strict_) {
		if (cmd == tlm::TLM_IGNORE_COMMAND)
			violation(gp, "HCA initiated TLM_IGNORE_COMMAND");
		if (be)
			violation(gp, "HCA initiated a transaction with byte enables");
		if (sw != len)
			violation(gp, "HCA initiated a streaming width other than the length");
	}
	if (cmd == tlm::TLM_READ_COMMAND)
		reads_++;
	else if (cmd == tlm::TLM_WRITE_COMMAND)
		writes_++;
	bytes_ += len;
	out->b_transport(gp, delay);
	if (gp.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
		violation(gp, "returned with TLM_INCOMPLETE_RESPONSE");
	else if (gp.is_response_error())
		errors_++;
	if (gp.get_command() != cmd || gp.get_address() != addr || gp.get_data_ptr() != data ||
	    gp.get_data_length() != len || gp.get_streaming_width() != sw || gp.get_byte_enable_ptr() != be ||
	    gp.get_byte_enable_length() != be_len)
		violation(gp, "target changed an attribute it must not change");
}

}  // namespace hcasim
