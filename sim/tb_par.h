/* SPDX-License-Identifier: MIT */
/*
 * One worker thread for the testbench's parallel step (sim/tb.c, docs/sim.md
 * 9.6): the main thread hands it a job, runs its own part, then waits for
 * the job's end.  Hand-over and wait spin up to 50 us (longer than the
 * other thread's half of a busy step and its wire work), then sleep on a
 * futex.  The job's writes are visible to
 * the main thread after tb_par_wait (release/acquire).
 */
#ifndef HCASIM_SIM_TB_PAR_H
#define HCASIM_SIM_TB_PAR_H

#include <stdbool.h>

struct tb_par;

struct tb_par *tb_par_create(void);	/* NULL (errno) when the thread cannot start */
void tb_par_destroy(struct tb_par *p);
/* Run fn(arg) on the worker; one job at a time (tb_par_wait before the next).
 * true when the worker was asleep and had to be woken. */
bool tb_par_start(struct tb_par *p, void (*fn)(void *), void *arg);
/* Wait for the job's end; true when this thread had to sleep for it. */
bool tb_par_wait(struct tb_par *p);

#endif /* HCASIM_SIM_TB_PAR_H */
