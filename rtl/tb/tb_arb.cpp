// SPDX-License-Identifier: MIT
// hca_call_arb (the grant arbiter of a callee shared by several callers):
// four callers modelled as the engine's jobs are (a level request and its
// arguments held until `done`, dropped in the `done` cycle itself, the next
// call possibly raised in the following cycle), one callee modelled as the
// engine's callees are (starts in the cycle a request reaches it while
// idle, also in its own `done` cycle; `done` a register, 1..4 cycles after
// the call's first cycle), clock enable dropped at random.  Checked: the
// callee gets the arguments of the caller it serves and keeps them for the
// whole call; `done` goes to that caller only; a lone request is served in
// the cycle it is raised; a free grant goes to the lowest-numbered
// requester; every call is served exactly once; a soft reset drops the
// grant.  Runs both with callers that overlap all the time (contention)
// and with one caller at a time (the engine's single lane).
//   tb_arb [seed]
#include "Vtb_arb_top.h"
#include "tb_util.h"

static Vtb_arb_top *top;
static uint64_t rng = 1;
static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

struct caller {
	bool wait = false;     // request raised
	uint8_t tag = 0;       // the call's argument
	unsigned seq = 0;      // calls made
	unsigned doneN = 0;    // calls done
};

static void tick()
{
	top->clk = 0;
	top->eval();
	top->clk = 1;
	top->eval();
}

// The callers' requests and arguments as they hold them, the callee's done.
static void drive(const caller c[4], bool done_q)
{
	unsigned r = 0, a = 0;
	for (int i = 0; i < 4; i++)
		if (c[i].wait) {
			r |= 1u << i;
			a |= (unsigned)c[i].tag << (8 * i);
		}
	top->req = r;
	top->arg = a;
	top->done = done_q;
	top->eval();
}

// One run of `cycles` cycles; `solo`: a caller raises a request only while no
// other one is raised (the single lane).
static void run(unsigned cycles, bool solo, unsigned &calls)
{
	caller c[4];
	bool busy = false, done_q = false;   // the callee
	unsigned left = 0, owner = 0;
	uint8_t tag = 0;
	top->rst_n = 0;
	top->ce = 1;
	top->srst = 0;
	top->req = 0;
	top->done = 0;
	tick();
	top->rst_n = 1;
	for (uint64_t t = 0; t < cycles; t++) {
		bool ce = rnd(8) != 0;
		top->ce = ce;
		// requests and arguments as the callers hold them
		bool any = false;
		for (int i = 0; i < 4; i++) any |= c[i].wait;
		for (int i = 0; i < 4; i++)
			if (ce && !c[i].wait && (!solo || !any) && rnd(solo ? 6 : 3) == 0) {
				c[i].wait = true;
				c[i].tag = (uint8_t)(i << 6 | (c[i].seq++ & 63));
				any = true;
			}
		drive(c, done_q);
		// done: to the caller of the call that ends, only
		unsigned want = done_q ? 1u << owner : 0;
		CHECK(top->c_done == want, "cycle %llu: c_done 0x%x, want 0x%x", (unsigned long long)t, top->c_done, want);
		for (int i = 0; i < 4 && ce; i++)   // a held engine acts on nothing
			if (top->c_done >> i & 1) {
				CHECK(c[i].wait && c[i].tag == tag, "cycle %llu: done to caller %d, which did not make call 0x%02x",
				      (unsigned long long)t, i, tag);
				c[i].wait = false;   // the request drops in the done cycle
				c[i].doneN++;
				calls++;
			}
		drive(c, done_q);
		// still to that caller once it has dropped its request (done must
		// not follow the grant, which moves on in this cycle)
		CHECK(top->c_done == want, "cycle %llu: after the drop c_done 0x%x, want 0x%x", (unsigned long long)t,
		      top->c_done, want);
		unsigned r = top->req;
		CHECK(top->c_req == (r != 0), "cycle %llu: c_req %d with requests 0x%x", (unsigned long long)t, top->c_req, r);
		unsigned g = top->gnt;
		CHECK((g & (g - 1)) == 0 && (g & ~r) == 0 && (g != 0) == (r != 0),
		      "cycle %llu: grant 0x%x for requests 0x%x", (unsigned long long)t, g, r);
		int gi = g ? __builtin_ctz(g) : -1;
		if (busy) {
			// the call in progress keeps its caller and arguments
			CHECK(gi == (int)owner && top->c_arg == tag, "cycle %llu: mid-call grant %d arg 0x%02x, want %u 0x%02x",
			      (unsigned long long)t, gi, top->c_arg, owner, tag);
		} else if (r && ce) {
			// a free callee: the lowest requester unless the one served in
			// the previous cycle still holds its request (none: it was done)
			CHECK(gi == __builtin_ctz(r), "cycle %llu: free grant to %d, requests 0x%x", (unsigned long long)t, gi, r);
			CHECK(top->c_arg == c[gi].tag, "cycle %llu: arg 0x%02x, caller %d's 0x%02x", (unsigned long long)t,
			      top->c_arg, gi, c[gi].tag);
		} else if (!r) {
			CHECK(top->c_arg == 0, "cycle %llu: arg 0x%02x while idle", (unsigned long long)t, top->c_arg);
		}
		// the callee: starts a call when idle (also in its done cycle)
		bool start = !busy && r != 0;
		if (ce) {
			if (start) {
				busy = true;
				owner = (unsigned)gi;
				tag = top->c_arg;
				left = 1 + rnd(4);
			}
			done_q = false;
			if (busy && --left == 0) {
				done_q = true;
				busy = false;
			}
		}
		tick();
	}
	// drain: finish what is in flight with the clock enabled
	for (int k = 0; k < 64; k++) {
		top->ce = 1;
		drive(c, done_q);
		for (int i = 0; i < 4; i++)
			if (top->c_done >> i & 1) {
				c[i].wait = false;
				c[i].doneN++;
				calls++;
			}
		top->req = 0;
		for (int i = 0; i < 4; i++) top->req |= c[i].wait ? 1u << i : 0;
		top->eval();
		if (!busy && top->c_req) {
			busy = true;
			owner = (unsigned)__builtin_ctz(top->gnt);
			tag = top->c_arg;
			left = 1;
		}
		done_q = false;
		if (busy && --left == 0) {
			done_q = true;
			busy = false;
		}
		tick();
	}
	for (int i = 0; i < 4; i++)
		CHECK(!c[i].wait && c[i].doneN == c[i].seq, "%s: caller %d made %u calls, %u done, %s",
		      solo ? "solo" : "contended", i, c[i].seq, c[i].doneN, c[i].wait ? "one waiting" : "none waiting");
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	rng = argc > 1 ? strtoull(argv[1], nullptr, 0) : 0x2545F4914F6CDD1DULL;
	if (!rng) rng = 1;
	top = new Vtb_arb_top;
	unsigned contended = 0, solo = 0;
	run(20000, false, contended);
	run(20000, true, solo);
	// a soft reset mid-call: the grant is dropped, the next request is
	// served as a free one
	top->ce = 1;
	top->srst = 0;
	top->req = 0x8;
	top->arg = 0x55u << 24;
	top->done = 0;
	top->eval();
	tick();
	top->req = 0x9;
	top->arg = 0x55u << 24 | 0x11;
	top->eval();
	CHECK(top->gnt == 0x8 && top->c_arg == 0x55, "held grant: 0x%x arg 0x%02x", top->gnt, top->c_arg);
	top->srst = 1;
	tick();
	top->srst = 0;
	top->eval();
	CHECK(top->gnt == 0x1 && top->c_arg == 0x11, "after a soft reset: grant 0x%x arg 0x%02x", top->gnt, top->c_arg);
	CHECK(contended > 3000 && solo > 1000, "too few calls: %u contended, %u solo", contended, solo);
	printf("%u contended calls, %u solo calls\n", contended, solo);
	top->final();
	delete top;
	return check_done();
}
