// SPDX-License-Identifier: MIT
/*
 * hcasim::TlmCheck -- a pass-through that checks the TLM-2.0 base protocol
 * of every blocking transaction on one link (docs/systemc.md, "Protocol
 * check").  Put it between an initiator and a target:
 *
 *   initiator.socket -> check.in ... check.out -> target.socket
 *
 * Before forwarding (the initiator's duties): a command, a data pointer, a
 * length and a streaming width that are not zero, a byte-enable length when
 * there is a byte-enable pointer, the response status set to
 * TLM_INCOMPLETE_RESPONSE and the DMI hint false.  With `strict` (a link the
 * HCA initiates): READ or WRITE only, no byte enables, streaming width equal
 * to the length.  After it returns (the target's duties): a response status
 * other than TLM_INCOMPLETE_RESPONSE, and command, address, data pointer,
 * length, byte enables and streaming width as they were sent.
 *
 * Violations are counted and the first few kept as text; a test asserts
 * violations() == 0.  The link's transactions are counted by command and
 * response (the VP's report).
 */
#ifndef HCASIM_SYSTEMC_TLM_CHECK_H
#define HCASIM_SYSTEMC_TLM_CHECK_H

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

namespace hcasim {

class TlmCheck : public sc_core::sc_module {
public:
	tlm_utils::simple_target_socket<TlmCheck> in;
	tlm_utils::simple_initiator_socket<TlmCheck> out;

	TlmCheck(sc_core::sc_module_name name, bool strict);

	uint64_t transactions() const { return n_; }
	uint64_t reads() const { return reads_; }
	uint64_t writes() const { return writes_; }
	uint64_t bytes() const { return bytes_; }
	uint64_t errors() const { return errors_; }	// answered with an error status
	uint64_t violations() const { return violations_; }
	const std::vector<std::string> &messages() const { return msgs_; }

private:
	void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
	void violation(const tlm::tlm_generic_payload &gp, const char *what);

	bool strict_;
	uint64_t n_ = 0, reads_ = 0, writes_ = 0, bytes_ = 0, errors_ = 0, violations_ = 0;
	std::vector<std::string> msgs_;
};

}  // namespace hcasim

#endif
