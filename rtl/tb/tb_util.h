// SPDX-License-Identifier: MIT
// Helpers for the RTL unit testbenches (thin C++ around Verilated models).
#ifndef HCASIM_RTL_TB_UTIL_H
#define HCASIM_RTL_TB_UTIL_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "verilated.h"
#include "check.h"

// Byte i of a port is bits [8i+7:8i] (frame byte order, as on AXI-Stream).
static inline void set_bytes(CData &d, const uint8_t *b, int n) { d = n > 0 ? b[0] : 0; }
static inline void set_bytes(SData &d, const uint8_t *b, int n)
{
	d = 0;
	for (int i = 0; i < n && i < 2; i++) d |= (SData)b[i] << (8 * i);
}
static inline void set_bytes(IData &d, const uint8_t *b, int n)
{
	d = 0;
	for (int i = 0; i < n && i < 4; i++) d |= (IData)b[i] << (8 * i);
}
static inline void set_bytes(QData &d, const uint8_t *b, int n)
{
	d = 0;
	for (int i = 0; i < n && i < 8; i++) d |= (QData)b[i] << (8 * i);
}
template <std::size_t N> static inline void set_bytes(VlWide<N> &d, const uint8_t *b, int n)
{
	for (std::size_t w = 0; w < N; w++) d[w] = 0;
	for (int i = 0; i < n && (std::size_t)i < 4 * N; i++) d[i / 4] |= (EData)b[i] << (8 * (i % 4));
}
static inline uint8_t get_byte(QData d, int i) { return (uint8_t)(d >> (8 * i)); }
template <std::size_t N> static inline uint8_t get_byte(const VlWide<N> &d, int i)
{
	return (uint8_t)(d[i / 4] >> (8 * (i % 4)));
}

static inline std::vector<uint8_t> unhex(const std::string &s)
{
	std::vector<uint8_t> v;
	for (std::size_t i = 0; i + 1 < s.size(); i += 2) v.push_back((uint8_t)strtoul(s.substr(i, 2).c_str(), nullptr, 16));
	return v;
}

static inline std::vector<std::string> split(const std::string &line)
{
	std::vector<std::string> out;
	std::size_t i = 0;
	while (i < line.size()) {
		while (i < line.size() && (line[i] == ' ' || line[i] == '\n' || line[i] == '\r')) i++;
		std::size_t j = i;
		while (j < line.size() && line[j] != ' ' && line[j] != '\n') j++;
		if (j > i) out.push_back(line.substr(i, j - i));
		i = j;
	}
	return out;
}

static inline std::vector<std::string> read_lines(const char *path)
{
	std::vector<std::string> lines;
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		exit(2);
	}
	char buf[1 << 16];
	while (fgets(buf, sizeof buf, f)) lines.push_back(buf);
	fclose(f);
	return lines;
}

// Bit-serial reference CRC-32 register update (reflected, no inversion).
static inline uint32_t ref_crc32(uint32_t c, const uint8_t *p, std::size_t n)
{
	for (std::size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++) c = (c >> 1) ^ ((c & 1) ? 0xEDB88320u : 0);
	}
	return c;
}

// Reference ICRC per docs/wire.md: CRC over FF*8 | masked IPv4 | masked UDP |
// BTH with byte 4 = FF | rest, up to frame offset `end`.
static inline uint32_t ref_icrc(const uint8_t *f, std::size_t end)
{
	std::vector<uint8_t> b(8, 0xFF);
	for (std::size_t i = 14; i < end; i++) {
		uint8_t x = f[i];
		if (i == 15 || i == 22 || i == 24 || i == 25 || i == 40 || i == 41 || i == 46) x = 0xFF;
		b.push_back(x);
	}
	return ~ref_crc32(0xFFFFFFFFu, b.data(), b.size());
}

#endif
