// SPDX-License-Identifier: MIT
/*
 * The example virtual platform (docs/systemc.md): two hcasim::Hca, one
 * memory behind an IOMMU, an address router, a learning switch, and one
 * CPU thread per host that brings its HCA up and runs RC SEND, RDMA WRITE
 * and RDMA READ to the other host through the C driver of vp_host.h,
 * taking every completion by MSI-X interrupt and checking every byte.  A
 * protocol checker (TlmCheck) sits on each of the ten links of the HCAs.
 *
 *   vp [--engine model|rtl|lockstep] [--width 64|512] [--seed N]
 *      [--read auto|yes|no] [--options K=V,...] [--quantum-ns N] [--rounds N] [--memory-wait] [-v]
 *
 * --memory-wait: the memory waits inside b_transport instead of annotating
 * its latency (the device then waits for its own DMA, see hca.cpp).
 * --read auto runs the READ phase and reports an engine that refuses the
 * READ WQE (LOC_QP_OP_ERR, vendor_err BAD_WQE) as "READ not implemented";
 * --read yes makes that a failure.  Ends with "N passed, N failed".
 */
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include <systemc>
#include <tlm>

#include "device.h"
#include "hca.h"
#include "hostmem.h"
#include "lockstep.h"
#include "scoreboard.h"
#include "tlm_check.h"
#include "vp_bus.h"
#include "vp_cpu.h"
#include "vp_switch.h"
#include "vp_traffic.h"

using namespace hcasim;
using sc_core::sc_time;

namespace {

// Address map of the platform.
constexpr uint64_t kMemSize = 0xe0000000ull;	// IOVAs below this are memory
constexpr uint64_t kBar0Base = 0xe0000000ull;	// + i * 1 MiB
constexpr uint64_t kMgmtBase = 0xe8000000ull;	// + i * 16 KiB
constexpr uint64_t kMsiBase = 0xfee00000ull;	// + i * 4 KiB: CPU i's MSI doorbell
constexpr unsigned int kVector = 1;
constexpr int kHosts = 2;
const char *const kLinkNames[] = { "dma", "eth_tx", "bar0", "mgmt", "eth_rx" };

struct Options {
	std::string engine = "model";
	unsigned int width = 0;
	uint64_t seed = 1;
	std::string read = "auto";
	std::string options;
	unsigned int quantum_ns = 1000;
	unsigned int rounds = 1;
	bool memory_wait = false;
	bool verbose = false;
};

struct Checks {
	unsigned int passed = 0, failed = 0;
	void check(bool ok, const std::string &what)
	{
		if (ok) {
			passed++;
			return;
		}
		failed++;
		printf("FAIL %s\n", what.c_str());
	}
};

// Both CPUs meet here; `abort` ends the run for both when one failed.
struct Barrier {
	int waiting = 0;
	unsigned int generation = 0;
	bool abort = false;
	sc_core::sc_event ev;
	void arrive(vp::Cpu &cpu)
	{
		unsigned int g = generation;

		cpu.sync();
		if (++waiting == kHosts) {
			waiting = 0;
			generation++;
			ev.notify();
			return;
		}
		while (generation == g)
			sc_core::wait(ev);
	}
};

struct Platform {
	Options o;
	Checks c;
	struct hostmem *hm = nullptr;
	std::unique_ptr<vp::Memory> mem;
	std::unique_ptr<vp::Router> router;
	std::unique_ptr<vp::Switch> sw;
	std::unique_ptr<Hca> hca[kHosts];
	std::unique_ptr<TlmCheck> link[kHosts][5];
	std::unique_ptr<vp::MsiSink> sink[kHosts];
	std::unique_ptr<vp::Cpu> cpu[kHosts];
	struct vp_host host[kHosts];
	struct vp_traffic traffic[kHosts] = {};
	bool up[kHosts] = {};
	Barrier barrier;
	bool read_refused_seen = false;
	bool diverged[kHosts] = {};
	int finished = 0;
	std::string lockstep_note;

	void build();
	void host_main(int i, vp::Cpu &cpu);
	void run_host(int i, vp::Cpu &cpu, const struct vp_host_ops *ops);
	void check_lockstep(const char *after);
	bool meet(vp::Cpu &cpu, bool ok);
	void finish();
};

void barrier_cb(void *ctx)
{
	auto *p = static_cast<std::pair<Platform *, vp::Cpu *> *>(ctx);
	p->first->barrier.arrive(*p->second);
}

void Platform::build()
{
	hm = hostmem_create();
	mem.reset(new vp::Memory("memory", hm, sc_time(20, sc_core::SC_NS), o.memory_wait));
	router.reset(new vp::Router("router"));
	sw.reset(new vp::Switch("switch", sc_time(1, sc_core::SC_US)));
	router->map(0, kMemSize, mem->socket);
	for (int i = 0; i < kHosts; i++) {
		HcaConfig hc;
		std::string n = "hca" + std::to_string(i);

		hc.engine = o.engine;
		hc.data_w = o.width;
		hc.seed = o.seed + (uint64_t)i;
		hc.mac[5] = (uint8_t)(i + 1);
		hc.options = o.options;
		if (o.engine == "lockstep" && o.options.empty())
			hc.options = "quiet=1,label=" + n;	// divergences are reported by check_lockstep
		hca[i].reset(new Hca(n.c_str(), hc));
		for (int l = 0; l < 5; l++)
			link[i][l].reset(new TlmCheck((n + "_" + kLinkNames[l]).c_str(), l < 2));
		sink[i].reset(new vp::MsiSink(("msi" + std::to_string(i)).c_str()));
		cpu[i].reset(new vp::Cpu(("cpu" + std::to_string(i)).c_str(), hc.clock_period,
					 [this, i](vp::Cpu &c) { host_main(i, c); }));
		cpu[i]->bus.bind(router->in);
		hca[i]->dma.bind(link[i][0]->in);
		link[i][0]->out.bind(router->in);
		hca[i]->eth_tx.bind(link[i][1]->in);
		link[i][1]->out.bind(sw->rx);
		router->map(kBar0Base + (uint64_t)i * Hca::kBar0Size, Hca::kBar0Size, link[i][2]->in);
		link[i][2]->out.bind(hca[i]->bar0);
		router->map(kMgmtBase + (uint64_t)i * Hca::kMgmtSize, Hca::kMgmtSize, link[i][3]->in);
		link[i][3]->out.bind(hca[i]->mgmt);
		router->map(kMsiBase + (uint64_t)i * 0x1000, 0x1000, sink[i]->socket);
	}
	for (int i = 0; i < kHosts; i++) {	// switch port i = host i
		sw->tx.bind(link[i][4]->in);
		link[i][4]->out.bind(hca[i]->eth_rx);
	}
}

// After a phase: a lockstep engine must not have diverged.
void Platform::check_lockstep(const char *after)
{
	for (int i = 0; i < kHosts; i++) {
		struct hca_engine *e = hca_device_engine(hca[i]->device());
		const struct sb_divergence *d = e ? lockstep_divergence(e) : nullptr;

		if (!e || !lockstep_is(e))
			continue;
		if (read_refused_seen) {
			if (d && lockstep_note.empty())
				lockstep_note = std::string("hca") + std::to_string(i) +
						" diverged at the refused READ, as expected: " + d->summary;
			continue;
		}
		if (diverged[i])
			continue;	// reported once
		diverged[i] = d != nullptr;
		c.check(d == nullptr, "hca" + std::to_string(i) + ": lockstep diverged after " + after + ": " +
					      (d ? std::string(d->summary) + "\n" + d->report : std::string()));
	}
}

bool Platform::meet(vp::Cpu &cpu, bool ok)
{
	if (!ok)
		barrier.abort = true;
	barrier.arrive(cpu);
	return !barrier.abort;
}

// The last CPU to finish (or to give up) ends the simulation.
void Platform::finish()
{
	if (++finished == kHosts)
		sc_core::sc_stop();
}

// CPU i: the driver and the traffic, then the end of the run.
void Platform::host_main(int i, vp::Cpu &cpu)
{
	vp::Cpu::HostPort port = { &cpu, kBar0Base + (uint64_t)i * Hca::kBar0Size, sink[i].get(), hm };
	struct vp_host_ops ops = vp::Cpu::host_ops(&port);

	run_host(i, cpu, &ops);
	vp_host_close(&host[i]);
	meet(cpu, true);
	finish();
}

void Platform::run_host(int i, vp::Cpu &cpu, const struct vp_host_ops *ops)
{
	std::pair<Platform *, vp::Cpu *> bctx(this, &cpu);
	struct vp_traffic_ops tops = { &bctx, barrier_cb };
	struct vp_host_cfg cfg;
	struct vp_host *h = &host[i], *peer = &host[1 - i];
	int rc;

	memset(&cfg, 0, sizeof(cfg));
	cfg.id = (unsigned int)i;
	memcpy(cfg.mac, hca[i]->config().mac, 6);
	cfg.ip = 0x0a000001u + (uint32_t)i;
	cfg.msi_addr = kMsiBase + (uint64_t)i * 0x1000;
	cfg.msi_data = 0x4300u + (uint32_t)i;
	cfg.vector = kVector;
	cfg.buf_len = VP_MR_LEN;
	rc = vp_host_open(h, &cfg, ops, hm);
	c.check(rc == 0, std::string("bring-up and objects: ") + h->err);
	if (o.verbose && !rc)
		printf("host %d: up at %s: QPN %u, CQN %u, EQN %u, lkey 0x%x\n", i,
		       sc_core::sc_time_stamp().to_string().c_str(), h->qpn, h->cqn, h->eqn, h->lkey);
	if (!meet(cpu, rc == 0))
		return;
	rc = vp_host_connect(h, peer);
	c.check(rc == 0, std::string("connect: ") + h->err);
	if (!meet(cpu, rc == 0))
		return;
	up[i] = true;
	auto phase = [&](enum vp_phase ph, const char *name) {
		vp_traffic_phase(h, peer, ph, &tops, &traffic[i]);
		if (traffic[i].read == VP_READ_REFUSED)
			read_refused_seen = true;
		if (i == 0)
			check_lockstep(name);
		if (o.verbose)
			printf("host %d: %s done at %s\n", i, name, sc_core::sc_time_stamp().to_string().c_str());
	};
	// SEND and WRITE `rounds` times, then READ (last: an engine that
	// refuses it moves the QP to the error state).
	for (unsigned int r = 0; r < o.rounds; r++) {
		phase(VP_PHASE_SEND, "SEND");
		phase(VP_PHASE_WRITE, "WRITE");
	}
	if (o.read != "no")
		phase(VP_PHASE_READ, "READ");
}

bool parse(int argc, char **argv, Options &o)
{
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : nullptr;

		if (a == "-v" || a == "--memory-wait") {
			(a == "-v" ? o.verbose : o.memory_wait) = true;
			continue;
		}
		if (!v)
			return false;
		if (a == "--engine")
			o.engine = v;
		else if (a == "--width")
			o.width = (unsigned int)strtoul(v, nullptr, 0);
		else if (a == "--seed")
			o.seed = strtoull(v, nullptr, 0);
		else if (a == "--read" && (!strcmp(v, "auto") || !strcmp(v, "yes") || !strcmp(v, "no")))
			o.read = v;
		else if (a == "--options")
			o.options = v;
		else if (a == "--quantum-ns")
			o.quantum_ns = (unsigned int)strtoul(v, nullptr, 0);
		else if (a == "--rounds")
			o.rounds = (unsigned int)strtoul(v, nullptr, 0);
		else
			return false;
		i++;
	}
	return o.quantum_ns > 0 && o.rounds > 0 && o.rounds <= 1000;
}

void report(Platform &P, double wall_s)
{
	uint64_t cycles = P.hca[0]->cycle(), total = 0, violations = 0;
	double sim_s = sc_core::sc_time_stamp().to_seconds();

	printf("%-12s %10s %10s %10s %10s %12s\n", "link", "transact", "reads", "writes", "errors", "bytes");
	for (int i = 0; i < kHosts; i++) {
		for (int l = 0; l < 5; l++) {
			const TlmCheck &k = *P.link[i][l];

			printf("%-12s %10llu %10llu %10llu %10llu %12llu\n", k.name(), (unsigned long long)k.transactions(),
			       (unsigned long long)k.reads(), (unsigned long long)k.writes(),
			       (unsigned long long)k.errors(), (unsigned long long)k.bytes());
			total += k.transactions();
			violations += k.violations();
			for (const std::string &m : k.messages())
				printf("  %s\n", m.c_str());
			P.c.check(k.violations() == 0, std::string(k.name()) + ": TLM protocol violations");
		}
		const HcaStats &s = P.hca[i]->stats();
		printf("hca%d: %llu MSI-X writes, %llu DMA faults, %llu frames sent, %llu received, cycle %llu\n", i,
		       (unsigned long long)s.msix_writes, (unsigned long long)s.dma_faults,
		       (unsigned long long)s.frames_tx, (unsigned long long)s.frames_rx,
		       (unsigned long long)P.hca[i]->cycle());
		P.c.check(s.msix_errors == 0 && s.dma_faults == 0 && s.frame_errors == 0,
			  "hca" + std::to_string(i) + ": MSI-X, DMA or frame errors");
		P.c.check(P.cpu[i]->bus_errors() == 0, "cpu" + std::to_string(i) + ": bus errors");
		P.c.check(P.traffic[i].completions >= 3 * P.o.rounds || !P.up[i], "host " + std::to_string(i) + ": completions");
		printf("host %d: %u completions by %llu interrupts, %llu payload bytes checked\n", i,
		       P.traffic[i].completions, (unsigned long long)P.host[i].irqs,
		       (unsigned long long)P.traffic[i].payload_bytes);
	}
	printf("switch: %llu forwarded, %llu flooded; memory: %llu faults\n", (unsigned long long)P.sw->forwarded(),
	       (unsigned long long)P.sw->flooded(), (unsigned long long)hostmem_fault_count(P.hm));
	printf("protocol check: %llu transactions on 10 links, %llu violations\n", (unsigned long long)total,
	       (unsigned long long)violations);
	printf("simulated %.6f s (%llu device cycles) in %.3f s wall: simulated/wall %.3g\n", sim_s,
	       (unsigned long long)cycles, wall_s, wall_s > 0 ? sim_s / wall_s : 0.0);
}

}  // namespace

int sc_main(int argc, char **argv)
{
	Platform P;

	if (!parse(argc, argv, P.o)) {
		fprintf(stderr, "usage: %s [--engine NAME] [--width 64|512] [--seed N] [--read auto|yes|no] "
				"[--options K=V,...] [--quantum-ns N] [--rounds N] [--memory-wait] [-v]\n",
			argv[0]);
		return 2;
	}
	tlm::tlm_global_quantum::instance().set(sc_time(P.o.quantum_ns, sc_core::SC_NS));
	P.build();
	printf("vp: engine %s, width %u, seed %llu, quantum %u ns, SEND and WRITE rounds %u, READ %s\n",
	       P.o.engine.c_str(), P.o.width, (unsigned long long)P.o.seed, P.o.quantum_ns, P.o.rounds,
	       P.o.read.c_str());
	auto t0 = std::chrono::steady_clock::now();
	sc_core::sc_start(sc_time(1, sc_core::SC_SEC));	// a bound: the run takes microseconds
	double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

	for (int i = 0; i < kHosts; i++) {
		P.c.passed += P.traffic[i].passed;
		P.c.failed += P.traffic[i].failed;
	}
	P.c.check(P.finished == kHosts, "both CPUs ran to the end within 1 s of simulated time");
	if (P.o.read != "no") {
		bool refused = P.traffic[0].read == VP_READ_REFUSED || P.traffic[1].read == VP_READ_REFUSED;
		bool done = P.traffic[0].read == VP_READ_DONE && P.traffic[1].read == VP_READ_DONE;

		if (refused && P.o.read == "auto")
			printf("READ: engine %s refused the RDMA READ WQE (LOC_QP_OP_ERR, vendor_err BAD_WQE): "
			       "this engine does not implement READ; the READ phase is skipped\n",
			       P.o.engine.c_str());
		else
			P.c.check(done, "RDMA READ completed on both hosts");
		if (!P.lockstep_note.empty())
			printf("lockstep: %s\n", P.lockstep_note.c_str());
	}
	for (int i = 0; i < kHosts && !P.read_refused_seen; i++) {
		struct hca_engine *e = hca_device_engine(P.hca[i]->device());

		if (e && lockstep_is(e))
			P.c.check(lockstep_finish(e, "end of the VP run"),
				  "hca" + std::to_string(i) + ": lockstep end-of-run comparison");
	}
	report(P, wall);
	for (int i = 0; i < kHosts; i++) {
		P.hca[i].reset();
		P.cpu[i].reset();
	}
	hostmem_destroy(P.hm);
	printf("%u passed, %u failed\n", P.c.passed, P.c.failed);
	return P.c.failed ? 1 : 0;
}
