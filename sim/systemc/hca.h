// SPDX-License-Identifier: MIT
/*
 * hcasim::Hca -- the simulated HCA as a SystemC TLM-2.0 component
 * (docs/systemc.md).  A thin shell over the device backend of
 * include/hcasim/backend.h (firmware + the engine picked by name: "model",
 * "rtl", "lockstep"); everything the device does is the existing C code.
 *
 *   bar0     target, BAR0 (1 MiB): 4- and 8-byte reads and writes
 *   mgmt     target, the engine's management port (16 KiB), same rules;
 *            behind the firmware's back: for inspection and test
 *   dma      initiator: the device's DMA (IOVAs) and MSI-X message writes
 *   eth_tx   initiator: one transmitted Ethernet frame per WRITE (no FCS)
 *   eth_rx   target: one received frame per WRITE
 *   irq[v]   optional (HcaConfig::irq_lines): a one-clock pulse per MSI-X
 *            message of vector v
 *
 * Time: device cycle c is SystemC time c * clock_period.  Loosely timed:
 * the module's thread runs the engine up to the end of the current global
 * quantum and then waits for SystemC to catch up (tlm_quantumkeeper); a
 * transaction arriving at time T (sc_time_stamp() + its delay) first brings
 * the engine up to T.  Transactions the device initiates carry the delay of
 * the device cycle they happen in.  Register and frame errors come back as
 * TLM response statuses, never as a crash.
 */
#ifndef HCASIM_SYSTEMC_HCA_H
#define HCASIM_SYSTEMC_HCA_H

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "hcasim/backend.h"

namespace hcasim {

struct HcaConfig {
	std::string engine = "model";	// "model", "rtl", "lockstep", or any registered engine
	unsigned int data_w = 0;	// rtl datapath width (64, 512); 0 = the engine's default
	sc_core::sc_time clock_period = sc_core::sc_time(4, sc_core::SC_NS);	// 250 MHz
	uint64_t seed = 1;
	uint8_t mac[6] = { 0x02, 0x48, 0x43, 0x00, 0x00, 0x01 };
	std::string options;		// engine options "key=value,..." (docs/sim.md, docs/rtl.md)
	std::string trace;		// rtl/lockstep: FST waveform file
	bool irq_lines = false;		// create irq[0..HCA_CAP_NUM_MSIX-1]
};

// What crossed the module's sockets (for reports and tests).
struct HcaStats {
	uint64_t bar0_reads, bar0_writes, mgmt_reads, mgmt_writes, reg_errors;
	uint64_t dma_reads, dma_writes, dma_read_bytes, dma_write_bytes, dma_faults;
	uint64_t msix_writes, msix_errors;
	uint64_t frames_tx, frames_rx, frames_rx_deferred, frame_errors;
};

class Hca : public sc_core::sc_module {
public:
	tlm_utils::simple_target_socket<Hca> bar0;
	tlm_utils::simple_target_socket<Hca> mgmt;
	tlm_utils::simple_initiator_socket<Hca> dma;
	tlm_utils::simple_initiator_socket<Hca> eth_tx;
	tlm_utils::simple_target_socket<Hca> eth_rx;
	sc_core::sc_vector<sc_core::sc_out<bool>> irq;

	static constexpr uint64_t kBar0Size = 0x100000;	// HCA_BAR0_SIZE
	static constexpr uint64_t kMgmtSize = 0x4000;	// HCA_MGMT_SIZE
	static constexpr size_t kMaxFrame = 16384;

	Hca(sc_core::sc_module_name name, const HcaConfig &cfg);
	~Hca() override;

	// The device (tests, reports): backend ops and handle, current cycle.
	const struct hca_backend *backend() const { return be_; }
	struct hca_dev *device() const { return dev_; }
	uint64_t cycle() const;
	const HcaStats &stats() const { return st_; }
	const HcaConfig &config() const { return cfg_; }

private:
	struct PendingIrq {
		unsigned int vector;
		uint64_t cycle;
	};
	struct PendingFrame {
		std::vector<uint8_t> data;
	};

	void bar0_b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
	void mgmt_b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
	void rx_b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
	void reg_access(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay, bool is_bar0);
	void run();
	void irq_lines_update();

	sc_core::sc_time time_of(uint64_t cycle) const;
	uint64_t cycle_at(const sc_core::sc_time &t) const;	// the cycle that contains t
	sc_core::sc_time lead() const;		// engine time - sc_time_stamp(), >= 0
	void advance_to(uint64_t cycle);
	void catch_up(const sc_core::sc_time &t);
	void after_advance();
	void send_msix(const PendingIrq &p);

	// host callbacks (include/hcasim/backend.h), called only inside advance()
	static int cb_dma_read(void *host, uint64_t iova, void *buf, size_t len);
	static int cb_dma_write(void *host, uint64_t iova, const void *buf, size_t len);
	static void cb_tx_frame(void *host, const uint8_t *frame, size_t len);
	static void cb_interrupt(void *host, unsigned int vector);
	int dma_access(tlm::tlm_command cmd, uint64_t iova, uint8_t *buf, size_t len);

	// The quantum keeper, with the sync point visible and a fallback
	// quantum when the platform sets no global quantum.
	struct Keeper : tlm_utils::tlm_quantumkeeper {
		sc_core::sc_time fallback;
		sc_core::sc_time sync_point() const { return m_next_sync_point; }

	protected:
		sc_core::sc_time compute_local_quantum() override;
	};

	HcaConfig cfg_;
	const struct hca_backend *be_ = nullptr;
	struct hca_dev *dev_ = nullptr;
	bool in_advance_ = false;
	sc_core::sc_process_handle advancing_;	// the process inside advance()
	sc_core::sc_event advance_done_;
	bool reentrant() const;			// called from the device's own callback
	void wait_for_device();			// another process is inside advance()
	std::vector<PendingIrq> irqs_;
	std::vector<PendingFrame> rx_deferred_;
	sc_core::sc_event kick_;
	Keeper qk_;
	// irq line pulses: (time, vector, level), applied by irq_lines_update
	struct LineEdge {
		sc_core::sc_time at;
		unsigned int vector;
		bool level;
	};
	std::vector<LineEdge> edges_;
	sc_core::sc_event_queue edge_evq_;
	HcaStats st_{};
};

// Register the engines linked into this program ("model", "lockstep", and
// "rtl" when its library is linked) and a device backend for each.
// Idempotent; Hca's constructor calls it.
void register_engines();

}  // namespace hcasim

#endif
