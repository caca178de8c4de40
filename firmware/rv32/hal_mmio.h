/* SPDX-License-Identifier: MIT */
#ifndef HCASIM_FW_RV32_HAL_MMIO_H
#define HCASIM_FW_RV32_HAL_MMIO_H

#include "hal.h"

/* The soft core's HAL and board configuration (soc.h). */
void soc_hal(struct hca_fw_hal *hal, struct hca_fw_board *board);
/* The firmware interrupt level: FW_EVENT != 0. */
int soc_fw_irq(void);

#endif
