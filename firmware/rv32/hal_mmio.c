// SPDX-License-Identifier: MIT
/* The firmware HAL on the soft core: MMIO management port, DMA mailbox, UART log. */
#include <stddef.h>
#include <stdint.h>

#include "fw.h"
#include "soc.h"
#include "hal_mmio.h"

static inline volatile uint32_t *reg(uint32_t base, uint32_t off)
{
	return (volatile uint32_t *)(uintptr_t)(base + off);
}

static uint32_t mgmt_read(void *ctx, uint32_t addr)
{
	(void)ctx;
	if (addr >= HCA_MGMT_SIZE || (addr & 3))
		return 0;
	return *reg(SOC_MGMT_BASE, addr);
}

static void mgmt_write(void *ctx, uint32_t addr, uint32_t value)
{
	(void)ctx;
	if (addr >= HCA_MGMT_SIZE || (addr & 3))
		return;
	*reg(SOC_MGMT_BASE, addr) = value;
}

/* One mailbox transfer of at most a window: 0 or -HCA_EFAULT. */
static int mailbox(uint32_t cmd, uint64_t iova, uint32_t len)
{
	*reg(SOC_DMA_BASE, SOC_DMA_IOVA_LO) = (uint32_t)iova;
	*reg(SOC_DMA_BASE, SOC_DMA_IOVA_HI) = (uint32_t)(iova >> 32);
	*reg(SOC_DMA_BASE, SOC_DMA_LEN) = len;
	*reg(SOC_DMA_BASE, SOC_DMA_CMD) = cmd;
	return *reg(SOC_DMA_BASE, SOC_DMA_STATUS) ? -HCA_EFAULT : 0;
}

static int dma_read(void *ctx, uint64_t iova, void *buf, size_t len)
{
	volatile const uint8_t *win = (volatile const uint8_t *)(uintptr_t)(SOC_DMA_BASE + SOC_DMA_WINDOW);
	uint8_t *p = buf;

	(void)ctx;
	while (len) {
		uint32_t n = len < SOC_DMA_WINDOW_SIZE ? (uint32_t)len : SOC_DMA_WINDOW_SIZE;
		if (mailbox(SOC_DMA_CMD_READ, iova, n))
			return -HCA_EFAULT;
		for (uint32_t i = 0; i < n; i++)
			p[i] = win[i];
		p += n;
		iova += n;
		len -= n;
	}
	return 0;
}

static int dma_write(void *ctx, uint64_t iova, const void *buf, size_t len)
{
	volatile uint8_t *win = (volatile uint8_t *)(uintptr_t)(SOC_DMA_BASE + SOC_DMA_WINDOW);
	const uint8_t *p = buf;

	(void)ctx;
	while (len) {
		uint32_t n = len < SOC_DMA_WINDOW_SIZE ? (uint32_t)len : SOC_DMA_WINDOW_SIZE;
		for (uint32_t i = 0; i < n; i++)
			win[i] = p[i];
		if (mailbox(SOC_DMA_CMD_WRITE, iova, n))
			return -HCA_EFAULT;
		p += n;
		iova += n;
		len -= n;
	}
	return 0;
}

static uint64_t now(void *ctx)
{
	uint32_t hi, lo;

	(void)ctx;
	do {
		hi = *reg(SOC_MGMT_BASE, HCA_MGMT_CLOCK_HI);
		lo = *reg(SOC_MGMT_BASE, HCA_MGMT_CLOCK_LO);
	} while (hi != *reg(SOC_MGMT_BASE, HCA_MGMT_CLOCK_HI));
	return (uint64_t)hi << 32 | lo;
}

static void uart_puts(const char *s)
{
	while (*s)
		*(volatile uint8_t *)(uintptr_t)(SOC_UART_BASE + SOC_UART_TX) = (uint8_t)*s++;
}

static void uart_hex(uint32_t v)
{
	static const char digits[] = "0123456789abcdef";
	char b[11] = "0x";

	for (int i = 0; i < 8; i++)
		b[2 + i] = digits[(v >> (28 - 4 * i)) & 15];
	b[10] = 0;
	uart_puts(b);
}

static void log_msg(void *ctx, const char *msg, uint32_t a, uint32_t b)
{
	(void)ctx;
	uart_puts("fw: ");
	uart_puts(msg);
	uart_puts(" ");
	uart_hex(a);
	uart_puts(" ");
	uart_hex(b);
	uart_puts("\n");
}

void soc_hal(struct hca_fw_hal *hal, struct hca_fw_board *board)
{
	uint32_t hi = *reg(SOC_BOARD_BASE, SOC_BOARD_MAC_HI), lo = *reg(SOC_BOARD_BASE, SOC_BOARD_MAC_LO);

	hal->ctx = NULL;
	hal->mgmt_read = mgmt_read;
	hal->mgmt_write = mgmt_write;
	hal->dma_read = dma_read;
	hal->dma_write = dma_write;
	hal->now = now;
	hal->log = log_msg;
	board->mac[0] = (uint8_t)(hi >> 8);
	board->mac[1] = (uint8_t)hi;
	board->mac[2] = (uint8_t)(lo >> 24);
	board->mac[3] = (uint8_t)(lo >> 16);
	board->mac[4] = (uint8_t)(lo >> 8);
	board->mac[5] = (uint8_t)lo;
}

int soc_fw_irq(void)
{
	return *reg(SOC_MGMT_BASE, HCA_MGMT_FW_EVENT) != 0;
}
