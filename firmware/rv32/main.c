// SPDX-License-Identifier: MIT
/*
 * Main loop of the firmware soft core: the same core as the simulator's
 * (firmware/fw_*.c) on the MMIO HAL.  The firmware interrupt is polled: run
 * whenever FW_EVENT is non-zero or the firmware's deadline has come.
 */
#include "fw.h"
#include "hal_mmio.h"

static struct hca_fw fw;	/* all firmware state, in .bss */

int main(void)
{
	struct hca_fw_hal hal;
	struct hca_fw_board board;

	soc_hal(&hal, &board);
	if (hca_fw_init(&fw, &hal, &board))
		for (;;)
			__asm__ volatile("wfi");
	for (;;) {
		if (soc_fw_irq() || hal.now(hal.ctx) >= hca_fw_next_deadline(&fw))
			hca_fw_run(&fw);
	}
}
