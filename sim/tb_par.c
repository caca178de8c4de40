// SPDX-License-Identifier: MIT
/*
 * The testbench's worker thread (sim/tb_par.h).  Two sequence numbers: `go`
 * (jobs handed over) and `done` (jobs finished).  A waiter spins up to
 * SPIN_NS nanoseconds, then announces itself in `sleepers` and sleeps on the
 * futex of the word it waits for; the other side wakes it only when it
 * announced itself (sequentially consistent store then load on both sides,
 * so a wake-up is never lost: the futex returns at once if the word moved).
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpu_relax.h"
#include "tb_par.h"

/* How long a waiter spins before it sleeps, measured in time, not in pause
 * instructions (3-150 ns each, by processor).  Between two parallel steps
 * the worker waits for the other thread's half of a step and the wire's
 * work (2-5 us of a busy RTL step); a wake-up from the futex costs about as
 * much again, and a step that needed one counts as not run at once (tb.c's
 * back-off).  64 pauses, about 2 us, were too short for that: on an idle
 * 2-core machine none of make bench-sim's steps ran in two threads
 * (docs/sim.md 9.6).  On a machine busy with other work the back-off stops
 * the parallel steps, and the worker then spins once per pause. */
#ifndef SPIN_NS
#define SPIN_NS 50000
#endif
#define SPIN_CHECK 16	/* pauses between two looks at the clock */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct tb_par {
	pthread_t th;
	_Atomic uint32_t go, done;
	_Atomic uint32_t go_sleeper, done_sleeper;
	void (*fn)(void *);
	void *arg;
	bool quit;
};

static void futex_wait(_Atomic uint32_t *w, uint32_t val)
{
	syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *w)
{
	syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Wait until *w differs from `old`; *slept tells whether it had to sleep. */
static uint32_t wait_change(_Atomic uint32_t *w, _Atomic uint32_t *sleeper, uint32_t old, bool *slept)
{
	uint32_t v;

	uint64_t end = 0;

	for (unsigned int i = 1;; i++) {
		v = atomic_load_explicit(w, memory_order_acquire);
		if (v != old)
			return v;
		cpu_relax();
		if (i % SPIN_CHECK)
			continue;
		if (!end)
			end = mono_ns() + SPIN_NS;
		else if (mono_ns() >= end)
			break;
	}
	*slept = true;
	for (;;) {
		atomic_store(sleeper, 1);
		v = atomic_load(w);
		if (v != old)
			break;
		futex_wait(w, old);
	}
	atomic_store_explicit(sleeper, 0, memory_order_relaxed);
	return v;
}

/* Store v; true when the other side was asleep (woken). */
static bool publish(_Atomic uint32_t *w, _Atomic uint32_t *sleeper, uint32_t v)
{
	atomic_store(w, v);
	if (!atomic_load(sleeper))
		return false;
	futex_wake(w);
	return true;
}

static void *worker(void *arg)
{
	struct tb_par *p = arg;
	uint32_t seen = 0;
	bool slept;

	for (;;) {
		seen = wait_change(&p->go, &p->go_sleeper, seen, &slept);
		if (p->quit)
			return NULL;
		p->fn(p->arg);
		publish(&p->done, &p->done_sleeper, seen);
	}
}

struct tb_par *tb_par_create(void)
{
	struct tb_par *p = calloc(1, sizeof(*p));
	int r;

	if (!p)
		return NULL;
	r = pthread_create(&p->th, NULL, worker, p);
	if (r) {
		free(p);
		errno = r;
		return NULL;
	}
	return p;
}

bool tb_par_start(struct tb_par *p, void (*fn)(void *), void *arg)
{
	p->fn = fn;
	p->arg = arg;
	return publish(&p->go, &p->go_sleeper, atomic_load_explicit(&p->go, memory_order_relaxed) + 1);
}

bool tb_par_wait(struct tb_par *p)
{
	uint32_t want = atomic_load_explicit(&p->go, memory_order_relaxed);
	uint32_t d = atomic_load_explicit(&p->done, memory_order_acquire);
	bool slept = false;

	while (d != want)
		d = wait_change(&p->done, &p->done_sleeper, d, &slept);
	return slept;
}

void tb_par_destroy(struct tb_par *p)
{
	if (!p)
		return;
	p->quit = true;
	publish(&p->go, &p->go_sleeper, atomic_load_explicit(&p->go, memory_order_relaxed) + 1);
	pthread_join(p->th, NULL);
	free(p);
}
