/* SPDX-License-Identifier: MIT */
/*
 * cpu_relax(): the pause a spin-wait loop takes between looks (x86 PAUSE,
 * arm64 YIELD; nothing elsewhere), shared by the testbench's parallel step
 * hand-over (tb_par.c) and the switch's ring watch (driver-shim/switch.c).
 */
#ifndef HCASIM_CPU_RELAX_H
#define HCASIM_CPU_RELAX_H

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

#endif
