// SPDX-License-Identifier: MIT
// hcasim::Hca: see hca.h and docs/systemc.md.
#include "hca.h"

#include <cerrno>
#include <cstring>

#include "device.h"
#include "hcasim/hca_spec.h"
#include "lockstep.h"
#include "model.h"

extern "C" void hca_rtl_engine_register(void) __attribute__((weak));

namespace hcasim {

using sc_core::sc_time;
using tlm::tlm_generic_payload;

void register_engines()
{
	hca_model_engine_register();
	if (hca_rtl_engine_register)
		hca_rtl_engine_register();
	hca_lockstep_engine_register();
	hca_device_register_all();
}

sc_time Hca::Keeper::compute_local_quantum()
{
	sc_time q = tlm_utils::tlm_quantumkeeper::compute_local_quantum();

	return q == sc_core::SC_ZERO_TIME ? fallback : q;
}

Hca::Hca(sc_core::sc_module_name name, const HcaConfig &cfg)
	: sc_module(name), bar0("bar0"), mgmt("mgmt"), dma("dma"), eth_tx("eth_tx"), eth_rx("eth_rx"),
	  irq("irq"), cfg_(cfg)
{
	struct hca_dev_config dc;
	int rc;

	register_engines();
	be_ = hca_backend_find(cfg_.engine.c_str());
	if (!be_) {
		std::string m = "no engine \"" + cfg_.engine + "\" linked in (have: " + hca_backend_names() + ")";
		SC_REPORT_ERROR(name, m.c_str());
		return;
	}
	if (cfg_.clock_period == sc_core::SC_ZERO_TIME)
		SC_REPORT_ERROR(name, "clock_period must not be zero");
	memset(&dc, 0, sizeof(dc));
	memcpy(dc.mac, cfg_.mac, sizeof(dc.mac));
	dc.data_w = cfg_.data_w;
	dc.seed = cfg_.seed;
	dc.trace = cfg_.trace.empty() ? nullptr : cfg_.trace.c_str();
	dc.options = cfg_.options.empty() ? nullptr : cfg_.options.c_str();
	static const struct hca_host_ops ops = { cb_dma_read, cb_dma_write, cb_tx_frame, cb_interrupt };
	rc = be_->create(&dc, &ops, this, &dev_);
	if (rc || !dev_) {
		std::string m = "engine \"" + cfg_.engine + "\": create failed (" + strerror(rc < 0 ? -rc : rc) + ")";
		SC_REPORT_ERROR(name, m.c_str());
		dev_ = nullptr;
		return;
	}
	if (cfg_.irq_lines)
		irq.init(HCA_CAP_NUM_MSIX);
	bar0.register_b_transport(this, &Hca::bar0_b_transport);
	mgmt.register_b_transport(this, &Hca::mgmt_b_transport);
	eth_rx.register_b_transport(this, &Hca::rx_b_transport);
	// Without a global quantum the engine runs 256 cycles ahead at most.
	qk_.fallback = cfg_.clock_period * 256;
	SC_HAS_PROCESS(Hca);
	SC_THREAD(run);
	SC_METHOD(irq_lines_update);
	sensitive << edge_evq_;
	dont_initialize();
}

Hca::~Hca()
{
	if (dev_)
		be_->destroy(dev_);
}

uint64_t Hca::cycle() const
{
	return dev_ ? be_->now(dev_) : 0;
}

sc_time Hca::time_of(uint64_t c) const
{
	return sc_time::from_value(cfg_.clock_period.value() * c);
}

uint64_t Hca::cycle_at(const sc_time &t) const
{
	return t.value() / cfg_.clock_period.value();
}

sc_time Hca::lead() const
{
	sc_time e = time_of(be_->now(dev_)), s = sc_core::sc_time_stamp();

	return e > s ? e - s : sc_core::SC_ZERO_TIME;
}

bool Hca::reentrant() const
{
	return in_advance_ && sc_core::sc_get_current_process_handle() == advancing_;
}

// A target of the device's DMA may wait() inside b_transport; another
// process reaching the device meanwhile waits until advance() returns.
void Hca::wait_for_device()
{
	while (in_advance_ && !reentrant())
		wait(advance_done_);
}

void Hca::advance_to(uint64_t c)
{
	uint64_t now;

	wait_for_device();
	now = be_->now(dev_);
	if (c <= now || in_advance_)
		return;
	in_advance_ = true;
	advancing_ = sc_core::sc_get_current_process_handle();
	be_->advance(dev_, c - now);
	in_advance_ = false;
	advance_done_.notify();
	after_advance();
}

// A transaction at time t: the engine first runs up to t (never further).
void Hca::catch_up(const sc_time &t)
{
	advance_to(cycle_at(t));
}

// What the device did inside advance() that needs the device itself:
// frames that arrived from its own callbacks, MSI-X messages (the table is
// read through BAR0, which a callback must not do).
void Hca::after_advance()
{
	std::vector<PendingFrame> frames;
	std::vector<PendingIrq> irqs;

	frames.swap(rx_deferred_);
	irqs.swap(irqs_);
	for (const PendingFrame &f : frames)
		be_->rx_frame(dev_, f.data.data(), f.data.size());
	for (const PendingIrq &p : irqs)
		send_msix(p);
	if (!frames.empty())
		kick_.notify();
}

void Hca::send_msix(const PendingIrq &p)
{
	uint32_t base = HCA_BAR0_MSIX_TABLE + 16 * p.vector;
	uint64_t addr = be_->mmio_read(dev_, base + HCA_MSIX_MSG_ADDR_LO) |
			(uint64_t)be_->mmio_read(dev_, base + HCA_MSIX_MSG_ADDR_HI) << 32;
	uint32_t data = be_->mmio_read(dev_, base + HCA_MSIX_MSG_DATA);
	sc_time at = time_of(p.cycle), s = sc_core::sc_time_stamp();
	sc_time delay = at > s ? at - s : sc_core::SC_ZERO_TIME;
	uint8_t buf[4];
	tlm_generic_payload gp;

	memcpy(buf, &data, 4);	// little-endian host, as PCIe
	gp.set_command(tlm::TLM_WRITE_COMMAND);
	gp.set_address(addr);
	gp.set_data_ptr(buf);
	gp.set_data_length(4);
	gp.set_streaming_width(4);
	gp.set_byte_enable_ptr(nullptr);
	gp.set_dmi_allowed(false);
	gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
	st_.msix_writes++;
	dma->b_transport(gp, delay);
	if (gp.is_response_error())
		st_.msix_errors++;
	if (cfg_.irq_lines && p.vector < irq.size()) {
		sc_time d = at > s ? at - s : sc_core::SC_ZERO_TIME;

		edges_.push_back({ s + d, p.vector, true });
		edges_.push_back({ s + d + cfg_.clock_period, p.vector, false });
		edge_evq_.notify(d);
		edge_evq_.notify(d + cfg_.clock_period);
	}
}

void Hca::irq_lines_update()
{
	sc_time s = sc_core::sc_time_stamp();

	for (size_t i = 0; i < edges_.size();) {
		if (edges_[i].at <= s) {
			irq[edges_[i].vector].write(edges_[i].level);
			edges_.erase(edges_.begin() + (long)i);
		} else {
			i++;
		}
	}
}

// The engine runs up to the quantum keeper's next sync point, then waits
// for SystemC time to get there; idle, it waits for a transaction or for
// its next event (a timer, firmware's deadline).
void Hca::run()
{
	if (!dev_)
		return;
	qk_.reset();
	for (;;) {
		uint64_t now, ne, end;

		qk_.set(lead());
		if (qk_.need_sync()) {
			qk_.sync();
			continue;
		}
		now = be_->now(dev_);
		ne = be_->next_event(dev_);
		if (ne == UINT64_MAX) {
			wait(kick_);
			qk_.reset();
			continue;
		}
		end = cycle_at(qk_.sync_point());
		if (end <= now)
			end = now + 1;
		if (ne > end) {
			wait(time_of(ne) - sc_core::sc_time_stamp(), kick_);
			qk_.reset();
			continue;
		}
		advance_to(end);
	}
}

// ---- target sockets ---------------------------------------------------------------------

// 4 or 8 bytes, 4-byte aligned, inside the region, every byte enabled.
static tlm::tlm_response_status check_reg(const tlm_generic_payload &gp, uint64_t size)
{
	uint64_t a = gp.get_address();
	unsigned int len = gp.get_data_length();
	const unsigned char *be = gp.get_byte_enable_ptr();

	if (len != 4 && len != 8)
		return tlm::TLM_BURST_ERROR_RESPONSE;
	if (gp.get_streaming_width() < len)
		return tlm::TLM_BURST_ERROR_RESPONSE;
	if (a >= size || size - a < len || (a & 3))
		return tlm::TLM_ADDRESS_ERROR_RESPONSE;
	if (be) {
		unsigned int bl = gp.get_byte_enable_length();

		if (!bl)
			return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
		for (unsigned int i = 0; i < len; i++)
			if (be[i % bl] != TLM_BYTE_ENABLED)
				return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
	}
	if (!gp.get_data_ptr() && gp.get_command() != tlm::TLM_IGNORE_COMMAND)
		return tlm::TLM_GENERIC_ERROR_RESPONSE;
	return tlm::TLM_OK_RESPONSE;
}

void Hca::reg_access(tlm_generic_payload &gp, sc_time &delay, bool is_bar0)
{
	tlm::tlm_response_status rs = check_reg(gp, is_bar0 ? kBar0Size : kMgmtSize);
	uint32_t a = (uint32_t)gp.get_address();
	unsigned char *p = gp.get_data_ptr();

	// A device callback must not call back into the same device (backend.h).
	if (rs == tlm::TLM_OK_RESPONSE && (reentrant() || !dev_))
		rs = tlm::TLM_GENERIC_ERROR_RESPONSE;
	if (rs != tlm::TLM_OK_RESPONSE) {
		st_.reg_errors++;
		gp.set_response_status(rs);
		return;
	}
	wait_for_device();
	catch_up(sc_core::sc_time_stamp() + delay);
	for (unsigned int off = 0; off < gp.get_data_length() && gp.get_command() != tlm::TLM_IGNORE_COMMAND;
	     off += 4) {
		uint32_t v;

		if (gp.is_read()) {
			v = is_bar0 ? be_->mmio_read(dev_, a + off) : hca_device_mgmt_read(dev_, a + off);
			memcpy(p + off, &v, 4);
		} else {
			memcpy(&v, p + off, 4);
			if (is_bar0)
				be_->mmio_write(dev_, a + off, v);
			else
				hca_device_mgmt_write(dev_, a + off, v);
		}
	}
	if (gp.is_read())
		(is_bar0 ? st_.bar0_reads : st_.mgmt_reads)++;
	else if (gp.is_write())
		(is_bar0 ? st_.bar0_writes : st_.mgmt_writes)++;
	delay += cfg_.clock_period;
	gp.set_response_status(tlm::TLM_OK_RESPONSE);
	if (gp.is_write())
		kick_.notify();
}

void Hca::bar0_b_transport(tlm_generic_payload &gp, sc_time &delay)
{
	reg_access(gp, delay, true);
}

void Hca::mgmt_b_transport(tlm_generic_payload &gp, sc_time &delay)
{
	reg_access(gp, delay, false);
}

// One frame per WRITE.  A frame that arrives while the device is inside
// advance() (its own callbacks: a loopback; or another process, suspended
// in a DMA target's wait) is delivered when advance() returns: waiting
// for it here could wait for ourselves.
void Hca::rx_b_transport(tlm_generic_payload &gp, sc_time &delay)
{
	unsigned int len = gp.get_data_length();
	const uint8_t *p = gp.get_data_ptr();

	if (!gp.is_write()) {
		gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
	} else if (!len || len > kMaxFrame || gp.get_streaming_width() < len || !p) {
		gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
	} else if (gp.get_byte_enable_ptr()) {
		gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
	} else if (!dev_) {
		gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
	} else {
		gp.set_response_status(tlm::TLM_OK_RESPONSE);
		st_.frames_rx++;
		if (in_advance_) {	// from its own callbacks, or while another process runs it
			rx_deferred_.push_back({ std::vector<uint8_t>(p, p + len) });
			st_.frames_rx_deferred++;
			return;
		}
		catch_up(sc_core::sc_time_stamp() + delay);
		be_->rx_frame(dev_, p, len);
		kick_.notify();
		return;
	}
	st_.frame_errors++;
}

// ---- host callbacks: the device's DMA, frames and interrupts ------------------------------

int Hca::dma_access(tlm::tlm_command cmd, uint64_t iova, uint8_t *buf, size_t len)
{
	tlm_generic_payload gp;
	sc_time delay = lead();

	if (!len)
		return 0;
	gp.set_command(cmd);
	gp.set_address(iova);
	gp.set_data_ptr(buf);
	gp.set_data_length((unsigned int)len);
	gp.set_streaming_width((unsigned int)len);
	gp.set_byte_enable_ptr(nullptr);
	gp.set_dmi_allowed(false);
	gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
	dma->b_transport(gp, delay);
	if (gp.is_response_error()) {
		st_.dma_faults++;
		return -EFAULT;
	}
	if (cmd == tlm::TLM_READ_COMMAND) {
		st_.dma_reads++;
		st_.dma_read_bytes += len;
	} else {
		st_.dma_writes++;
		st_.dma_write_bytes += len;
	}
	return 0;
}

int Hca::cb_dma_read(void *host, uint64_t iova, void *buf, size_t len)
{
	return static_cast<Hca *>(host)->dma_access(tlm::TLM_READ_COMMAND, iova, static_cast<uint8_t *>(buf), len);
}

int Hca::cb_dma_write(void *host, uint64_t iova, const void *buf, size_t len)
{
	// TLM data pointers are not const; the write's target only reads them.
	return static_cast<Hca *>(host)->dma_access(tlm::TLM_WRITE_COMMAND, iova,
						    static_cast<uint8_t *>(const_cast<void *>(buf)), len);
}

void Hca::cb_tx_frame(void *host, const uint8_t *frame, size_t len)
{
	Hca *h = static_cast<Hca *>(host);
	tlm_generic_payload gp;
	sc_time delay = h->lead();

	gp.set_command(tlm::TLM_WRITE_COMMAND);
	gp.set_address(0);
	gp.set_data_ptr(const_cast<uint8_t *>(frame));
	gp.set_data_length((unsigned int)len);
	gp.set_streaming_width((unsigned int)len);
	gp.set_byte_enable_ptr(nullptr);
	gp.set_dmi_allowed(false);
	gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
	h->st_.frames_tx++;
	h->eth_tx->b_transport(gp, delay);
	if (gp.is_response_error())
		h->st_.frame_errors++;
}

void Hca::cb_interrupt(void *host, unsigned int vector)
{
	Hca *h = static_cast<Hca *>(host);

	h->irqs_.push_back({ vector, h->be_->now(h->dev_) });
}

}  // namespace hcasim
