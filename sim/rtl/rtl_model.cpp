// SPDX-License-Identifier: MIT
/*
 * Thin C++ shim: one Verilated hca_top (width RTL_W, prefix RTL_PREFIX; the
 * harness top rtl/tb/hca_sim.sv: hca_top plus the planted-bug input dbg_bug)
 * behind the C interface of rtl_model.h.  Compiled once per width.  All the
 * harness logic is C (rtl_engine.c); this file only copies ports.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <unistd.h>

#include "verilated.h"
#include "verilated_fst_c.h"
#include "rtl_model.h"

#define STR2(x) #x
#define STR(x) STR2(x)
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#include STR(RTL_PREFIX.h)
#include STR(CAT(RTL_PREFIX, ___024root).h)

typedef RTL_PREFIX Top;
typedef CAT(RTL_PREFIX, ___024root) Root;

// Quiet-cycle checks compare the whole Verilated state (the root module:
// every flop, memory and net) with a copy; not in the mutant netlist (other
// names; its activation record must see every cycle) nor with coverage on
// (its counters must see every cycle).
#if !defined(RTL_MUTANT) && !VM_COVERAGE
#define RTL_QUIET_CHECK 1
#else
#define RTL_QUIET_CHECK 0
#endif

namespace {

const int WB = RTL_W / 8;

struct impl {
	VerilatedContext *ctx;
	Top *top;
	VerilatedFstC *fst;
	int tracing;
	uint64_t ticks;		/* half cycles, the waveform time base */
	unsigned char *snap;	/* remember(): the root module's bytes */
};

#ifdef RTL_MUTANT
// Mutation analysis (sim/coverage.mk, tools/mutate_rtl.py): the mutated
// modules are Yosys netlists with every sampled mutation behind
// `mutsel == id`; they ask the simulator for mutsel at time 0
// (HCASIM_RTL_MUTANT=ID, 0 = the design as written) and report a mutation
// whose cell would change its output at a rising clock edge.  Collected with
// no mutant selected: the activated set (HCASIM_RTL_MUTANT_ACT=FILE).
bool mut_act[1024];
}	// namespace

extern "C" int hca_rtl_mutsel()
{
	return getenv("HCASIM_RTL_MUTANT") ? atoi(getenv("HCASIM_RTL_MUTANT")) : 0;
}

extern "C" void hca_rtl_mut_act(int id)
{
	if (id > 0 && id < 1024)
		mut_act[id] = true;
}

namespace {
// HCASIM_RTL_MUTANT_ACT=FILE: append the ids of the mutations activated.
void mut_report()
{
	const char *path = getenv("HCASIM_RTL_MUTANT_ACT");
	FILE *f = path && *path ? fopen(path, "a") : nullptr;
	if (!f) return;
	for (int i = 1; i < 1024; i++)
		if (mut_act[i]) fprintf(f, "%d\n", i);
	fclose(f);
}
#endif

// Byte-lane copies between C arrays and Verilator port types.  Byte i of a
// port is bits [8i+7:8i]: in a QData or a VlWide's 32-bit words (word 0
// first) on a little-endian host that is byte i in memory, so the copy is
// one memcpy (a 512-bit port: 64 byte shifts and stores otherwise, about 2 %
// of the CPU at DATA_W 512 in sample(); docs/sim.md 9.1).
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static_assert(sizeof(EData) == 4 && sizeof(QData) == 8, "Verilator word sizes");
inline void put(QData &d, const uint8_t *b)
{
	std::memcpy(&d, b, sizeof d);
}
template <std::size_t N> inline void put(VlWide<N> &d, const uint8_t *b)
{
	static_assert(sizeof(VlWide<N>) == 4 * N, "VlWide is its words");
	std::memcpy(d.data(), b, 4 * N);
}
inline void get(const QData &d, uint8_t *b)
{
	std::memcpy(b, &d, sizeof d);
}
template <std::size_t N> inline void get(const VlWide<N> &d, uint8_t *b)
{
	std::memcpy(b, d.data(), 4 * N);
}
#else
inline void put(QData &d, const uint8_t *b)
{
	d = 0;
	for (int i = 0; i < 8; i++) d |= (QData)b[i] << (8 * i);
}
template <std::size_t N> inline void put(VlWide<N> &d, const uint8_t *b)
{
	for (std::size_t w = 0; w < N; w++)
		d[w] = (EData)b[4 * w] | (EData)b[4 * w + 1] << 8 | (EData)b[4 * w + 2] << 16 |
		       (EData)b[4 * w + 3] << 24;
}
inline void get(const QData &d, uint8_t *b)
{
	for (int i = 0; i < 8; i++) b[i] = (uint8_t)(d >> (8 * i));
}
template <std::size_t N> inline void get(const VlWide<N> &d, uint8_t *b)
{
	for (std::size_t w = 0; w < N; w++)
		for (int k = 0; k < 4; k++) b[4 * w + k] = (uint8_t)(d[w] >> (8 * k));
}
#endif

void drive(Top *t, const rtl_io *io)
{
	t->rst_n = io->rst_n;
	t->eng_hold = io->eng_hold;
	t->time_warp = io->time_warp;
	t->time_warp_cycles = io->time_warp_cycles;
	t->dbg_bug = io->dbg_bug;
	t->s_bar0_awvalid = io->b_awvalid; t->s_bar0_awaddr = io->b_awaddr;
	t->s_bar0_wvalid = io->b_wvalid; t->s_bar0_wdata = io->b_wdata; t->s_bar0_wstrb = io->b_wstrb;
	t->s_bar0_bready = io->b_bready; t->s_bar0_arvalid = io->b_arvalid; t->s_bar0_araddr = io->b_araddr;
	t->s_bar0_rready = io->b_rready;
	t->s_mgmt_awvalid = io->m_awvalid; t->s_mgmt_awaddr = io->m_awaddr;
	t->s_mgmt_wvalid = io->m_wvalid; t->s_mgmt_wdata = io->m_wdata; t->s_mgmt_wstrb = io->m_wstrb;
	t->s_mgmt_bready = io->m_bready; t->s_mgmt_arvalid = io->m_arvalid; t->s_mgmt_araddr = io->m_araddr;
	t->s_mgmt_rready = io->m_rready;
	t->dma_rd_req_ready = io->rd_req_ready;
	t->dma_rd_cpl_valid = io->rd_cpl_valid;
	t->dma_rd_cpl_tag = io->rd_cpl_tag;
	t->dma_rd_cpl_last = io->rd_cpl_last;
	t->dma_rd_cpl_err = io->rd_cpl_err;
	put(t->dma_rd_cpl_data, io->rd_cpl_data);
	t->dma_wr_req_ready = io->wr_req_ready;
	t->dma_wr_dat_ready = io->wr_dat_ready;
	t->dma_wr_rsp_valid = io->wr_rsp_valid;
	t->dma_wr_rsp_tag = 0;
	t->dma_wr_rsp_err = io->wr_rsp_err;
	t->m_axis_tx_tready = io->tx_tready;
	t->s_axis_rx_tvalid = io->rx_tvalid;
	t->s_axis_rx_tlast = io->rx_tlast;
	t->s_axis_rx_tkeep = io->rx_tkeep;
	put(t->s_axis_rx_tdata, io->rx_tdata);
}

void sample(const Top *t, rtl_io *io)
{
	io->b_awready = t->s_bar0_awready; io->b_wready = t->s_bar0_wready; io->b_bvalid = t->s_bar0_bvalid;
	io->b_arready = t->s_bar0_arready; io->b_rvalid = t->s_bar0_rvalid; io->b_rdata = t->s_bar0_rdata;
	io->m_awready = t->s_mgmt_awready; io->m_wready = t->s_mgmt_wready; io->m_bvalid = t->s_mgmt_bvalid;
	io->m_arready = t->s_mgmt_arready; io->m_rvalid = t->s_mgmt_rvalid; io->m_rdata = t->s_mgmt_rdata;
	io->rd_req_valid = t->dma_rd_req_valid;
	io->rd_req_addr = t->dma_rd_req_addr;
	io->rd_req_len = t->dma_rd_req_len;
	io->rd_req_tag = t->dma_rd_req_tag;
	io->rd_cpl_ready = t->dma_rd_cpl_ready;
	io->wr_req_valid = t->dma_wr_req_valid;
	io->wr_req_addr = t->dma_wr_req_addr;
	io->wr_req_len = t->dma_wr_req_len;
	io->wr_dat_valid = t->dma_wr_dat_valid;
	io->wr_dat_last = t->dma_wr_dat_last;
	io->wr_dat_strb = t->dma_wr_dat_strb;
	get(t->dma_wr_dat_data, io->wr_dat_data);
	io->tx_tvalid = t->m_axis_tx_tvalid;
	io->tx_tlast = t->m_axis_tx_tlast;
	io->tx_tkeep = t->m_axis_tx_tkeep;
	get(t->m_axis_tx_tdata, io->tx_tdata);
	io->rx_tready = t->s_axis_rx_tready;
	io->msix_valid = t->msix_valid;
	io->msix_vector = t->msix_vector;
	io->fw_irq = t->fw_irq;
	io->busy = t->busy;
	io->soft_reset = t->soft_reset;
	io->dbg = t->dbg;
	io->cycle = t->cycle;
	io->next_timer = t->next_timer;
}

void m_settle(rtl_model *m, rtl_io *io)
{
	impl *p = (impl *)m->impl;
	drive(p->top, io);
	p->top->eval();
	sample(p->top, io);
}

// Rising edge.  The harness always settles with these inputs first, so the
// pre-edge evaluation is skipped; the falling edge is evaluated only for the
// waveform (the next settle() sees clk low either way).
void m_clock(rtl_model *m, rtl_io *io)
{
	impl *p = (impl *)m->impl;
	// The design takes eng_hold through a flop on its edges (rtl/tb/hca_sim.sv,
	// docs/sim.md 9.9): a new value must reach it before the clock edge, as
	// an input would, so it gets an evaluation of its own (the power-on
	// reset and held_clock() change it without settling).
	bool hold_moved = p->top->eng_hold != io->eng_hold;
	drive(p->top, io);
	if (hold_moved)
		p->top->eval();
	p->top->clk = 1;
	p->top->eval();
#if VM_TRACE
	if (p->tracing && p->fst) p->fst->dump(p->ticks);
#endif
	p->ticks++;
	p->top->clk = 0;
#if VM_TRACE
	if (p->tracing && p->fst) {
		p->top->eval();
		p->fst->dump(p->ticks);
	}
#endif
	p->ticks++;
	sample(p->top, io);
}

int m_trace_open(rtl_model *m, const char *path)
{
#if VM_TRACE
	impl *p = (impl *)m->impl;
	if (p->fst) return 0;
	p->fst = new VerilatedFstC;
	p->top->trace(p->fst, 99);
	p->fst->open(path);
	return p->fst->isOpen() ? 0 : -1;
#else
	// Builds without tracing (coverage, mutation analysis): no waveform.
	(void)m;
	(void)path;
	return -1;
#endif
}

void m_trace_close(rtl_model *m)
{
#if VM_TRACE
	impl *p = (impl *)m->impl;
	if (!p->fst) return;
	p->fst->close();
	delete p->fst;
	p->fst = nullptr;
#else
	(void)m;
#endif
}

void m_set_trace(rtl_model *m, int on)
{
	((impl *)m->impl)->tracing = on;
}


#if RTL_QUIET_CHECK
// The bytes unchanged(m, 0) compares: the scalars (Verilator lays the root
// module out by size: scalars, wide words, then arrays and memories).
const size_t QUIET_HEAD = sizeof(Root) < 16384 ? sizeof(Root) : 16384;

void m_remember(rtl_model *m, int full)
{
	impl *p = (impl *)m->impl;
	if (!p->snap) p->snap = new unsigned char[sizeof(Root)];
	std::memcpy(p->snap, (const void *)p->top->rootp, full ? sizeof(Root) : QUIET_HEAD);
}

// The fields that may differ between two cycles of a design that does
// nothing: the clock input and its edge detector, the device cycle counter
// (hca_regs' clk_cnt and the `cycle` port; nothing in the engine reads it:
// docs/sim.md), the nets that are functions of it alone and of compared
// state (hca_top's cycle_nx; hca_timers' deadline-to-be `dl`, stored only
// when a timer is armed, a state change of its own) and the scheduler's
// iteration counters.  They are copied from the live state into the copy
// before the byte comparison.
#define RTL_TIME_FIELDS(X) X(clk) X(__Vtrigrprev__TOP__clk) X(cycle) \
	X(hca_sim__DOT__hca_top__DOT__u_regs__DOT__clk_cnt) X(hca_sim__DOT__hca_top__DOT__cycle_nx) \
	X(hca_sim__DOT__hca_top__DOT__u_tp__DOT__u_timers__DOT__dl) X(__VicoIterCount) X(__VactIterCount) \
	X(__VactContinue) X(__Vm_traceActivity)

int m_unchanged(rtl_model *m, int full)
{
	impl *p = (impl *)m->impl;
	const unsigned char *live = (const unsigned char *)(const void *)p->top->rootp;
	Root *r = p->top->rootp;
	if (!p->snap) return 0;
	size_t n = full ? sizeof(Root) : QUIET_HEAD;
#define RTL_COPY_FIELD(f) { size_t o = (size_t)((const unsigned char *)(const void *)&r->f - live); \
	if (o < n) std::memcpy(p->snap + o, live + o, sizeof(r->f)); }
	RTL_TIME_FIELDS(RTL_COPY_FIELD)
	return std::memcmp(p->snap, live, n) == 0;
}
#endif

void m_destroy(rtl_model *m)
{
	impl *p = (impl *)m->impl;
	m_trace_close(m);
	delete[] p->snap;
#ifdef RTL_MUTANT
	mut_report();
#endif
#if VM_COVERAGE
	// HCASIM_RTL_COVERAGE=DIR: Verilator coverage of this model (sim/coverage.mk).
	const char *dir = getenv("HCASIM_RTL_COVERAGE");
	if (dir && *dir) {
		static unsigned int seq;
		char path[512];
		snprintf(path, sizeof(path), "%s/w%d-%ld-%u.dat", dir, RTL_W, (long)getpid(), seq++);
		p->ctx->coveragep()->write(path);
	}
#endif
	p->top->final();
	delete p->top;
	delete p->ctx;
	delete p;
	delete m;
}

} // namespace

extern "C" rtl_model *CAT(rtl_model_new_, RTL_W)(void)
{
	impl *p = new impl;
	p->ctx = new VerilatedContext;
	p->ctx->traceEverOn(true);
	p->top = new Top(p->ctx, "hca");
	p->fst = nullptr;
	p->tracing = 0;
	p->ticks = 0;
	p->snap = nullptr;
	p->top->clk = 0;
	rtl_model *m = new rtl_model;
	m->data_w = RTL_W;
	m->impl = p;
	m->settle = m_settle;
	m->clock = m_clock;
	m->trace_open = m_trace_open;
	m->trace_close = m_trace_close;
	m->set_trace = m_set_trace;
#if RTL_QUIET_CHECK
	m->remember = m_remember;
	m->unchanged = m_unchanged;
#else
	m->remember = nullptr;
	m->unchanged = nullptr;
#endif
	m->destroy = m_destroy;
	(void)WB;
	return m;
}
