/* SPDX-License-Identifier: MIT */
/* Reset entry of the firmware soft core: stack, gp, .data, .bss, main. */
	.section .text.init, "ax"
	.globl _start
_start:
	.option push
	.option norelax
	la	gp, __global_pointer$
	.option pop
	la	sp, __stack_top
	/* .data: load image in ROM -> RAM */
	la	a0, __data_load
	la	a1, __data_start
	la	a2, __data_end
1:	bgeu	a1, a2, 2f
	lw	t0, 0(a0)
	sw	t0, 0(a1)
	addi	a0, a0, 4
	addi	a1, a1, 4
	j	1b
	/* .bss: zero */
2:	la	a1, __bss_start
	la	a2, __bss_end
3:	bgeu	a1, a2, 4f
	sw	zero, 0(a1)
	addi	a1, a1, 4
	j	3b
4:	call	main
5:	wfi
	j	5b
