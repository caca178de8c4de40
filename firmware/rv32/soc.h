/* SPDX-License-Identifier: MIT */
/*
 * Memory map of the firmware soft core (RV32IMC), as the RTL will wire it
 * (docs/firmware.md, "RV32 image").
 *
 *   0x0000_0000  ROM   256 KiB  code and read-only data (reset vector at 0)
 *   0x1000_0000  RAM   256 KiB  .data, .bss (struct hca_fw), stack at the top
 *   0x4000_0000  MGMT   16 KiB  the engine's management port, byte address =
 *                               HCA_MGMT_* offset; 32-bit accesses only
 *   0x4001_0000  DMA mailbox    registers below, then a 4 KiB data window
 *   0x4002_0000  UART           TX data register (byte writes), for the log
 *   0x4003_0000  BOARD          straps: MAC_HI (mac[0]<<8 | mac[1]), MAC_LO
 */
#ifndef HCASIM_FW_RV32_SOC_H
#define HCASIM_FW_RV32_SOC_H

#define SOC_ROM_BASE   0x00000000u
#define SOC_RAM_BASE   0x10000000u
#define SOC_MGMT_BASE  0x40000000u
#define SOC_DMA_BASE   0x40010000u
#define SOC_UART_BASE  0x40020000u
#define SOC_BOARD_BASE 0x40030000u

/*
 * DMA mailbox: firmware writes IOVA_LO/HI and LEN (1..4096), then CMD; the
 * transfer between host memory and the data window completes before the next
 * access to the mailbox; STATUS is then 0 or 14 (EFAULT: the IOMMU refused
 * some byte and nothing was transferred).
 */
#define SOC_DMA_IOVA_LO 0x00u
#define SOC_DMA_IOVA_HI 0x04u
#define SOC_DMA_LEN     0x08u
#define SOC_DMA_CMD     0x0Cu	/* 1 = host -> window (read), 2 = window -> host (write) */
#define SOC_DMA_STATUS  0x10u
#define SOC_DMA_WINDOW  0x1000u
#define SOC_DMA_WINDOW_SIZE 4096u
#define SOC_DMA_CMD_READ  1u
#define SOC_DMA_CMD_WRITE 2u

#define SOC_UART_TX    0x00u
#define SOC_BOARD_MAC_HI 0x00u
#define SOC_BOARD_MAC_LO 0x04u

#endif
