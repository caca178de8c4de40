// SPDX-License-Identifier: MIT
// hca_crc32 and hca_icrc_beat against a bit-serial reference, the CRC-32
// check value, and scapy-built RoCEv2 frames (ICRC computed by scapy); their
// function forms (crc32_f, icrc_beat_f in hca_crc32_fn.vh) against them.
//   tb_crc <vectors> [iterations]
#include "Vtb_crc_top.h"
#include "tb_util.h"

static Vtb_crc_top *top;
static int beat_bytes()
{
	return (int)(sizeof(top->data));
}

// CRC register after feeding n bytes through the RTL, one beat at a time.
static uint32_t rtl_crc(uint32_t c, const uint8_t *p, std::size_t n)
{
	int wb = beat_bytes();
	for (std::size_t off = 0; off < n; off += wb) {
		int k = (int)std::min<std::size_t>(wb, n - off);
		set_bytes(top->data, p + off, k);
		top->nbytes = k;
		top->crc_in = c;
		top->eval();
		c = top->crc_out;
		if (top->crc_f_out != c)
			CHECK_EQ(top->crc_f_out, c, "crc32_f vs hca_crc32");
	}
	return c;
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	if (argc < 2) {
		fprintf(stderr, "usage: %s vectors [iterations]\n", argv[0]);
		return 2;
	}
	int iters = argc > 2 ? atoi(argv[2]) : 3000;
	top = new Vtb_crc_top;
	int wb = beat_bytes();
	printf("DATA_W=%d\n", wb * 8);

	// 1. The CRC-32 check value: CRC of "123456789" is 0xCBF43926.
	const char *cv = "123456789";
	CHECK_EQ(~rtl_crc(0xFFFFFFFFu, (const uint8_t *)cv, 9), 0xCBF43926u, "CRC-32 check value");

	// 2. Random beats with every byte count 0..WB against the bit-serial reference.
	srand(12345);
	for (int it = 0; it < iters; it++) {
		uint8_t d[64];
		for (int i = 0; i < wb; i++) d[i] = (uint8_t)rand();
		uint32_t c = (uint32_t)rand() << 16 ^ (uint32_t)rand();
		int n = it % (wb + 1);
		set_bytes(top->data, d, wb);	// bytes beyond n are garbage the RTL must ignore
		top->nbytes = n;
		top->crc_in = c;
		top->eval();
		uint32_t want = ref_crc32(c, d, n);
		if (top->crc_f_out != want) {
			CHECK_EQ(top->crc_f_out, want, "crc32_f random beat");
			printf("   n=%d crc_in=%08x\n", n, c);
		}
		if (top->crc_out != want) {
			CHECK_EQ(top->crc_out, want, "hca_crc32 random beat");
			printf("   n=%d crc_in=%08x\n", n, c);
		} else {
			CHECK(1, "");
		}
	}

	// 3. ICRC of scapy frames: correct for good frames; the wire value must
	//    match exactly when scapy computed it (G lines), and corrupted frames
	//    (P lines with reason ICRC) must mismatch.
	auto lines = read_lines(argv[1]);
	int nframes = 0;
	for (auto &line : lines) {
		auto t = split(line);
		if (t.empty()) continue;
		bool good = t[0] == "G";
		if (!good && !(t[0] == "P" && (t[1] == "c" || t[1] == "0"))) continue;
		auto f = unhex(t.back());
		if (f.size() < 60) continue;
		unsigned iplen = f[16] << 8 | f[17];
		std::size_t end = 14 + iplen - 4;
		if (end + 4 > f.size()) continue;
		uint32_t crc = 0;
		std::size_t nbeats = (f.size() + wb - 1) / wb;
		for (std::size_t b = 0; b < nbeats; b++) {
			std::size_t k = std::min<std::size_t>(wb, f.size() - b * wb);
			set_bytes(top->data, f.data() + b * wb, (int)k);
			top->icrc_in = crc;
			top->beat_off = (uint16_t)(b * wb);
			top->crc_end = (uint16_t)end;
			top->eval();
			crc = top->icrc_out;
			if (top->icrc_f_out != crc)
				CHECK_EQ(top->icrc_f_out, crc, "icrc_beat_f vs hca_icrc_beat, a frame beat");
		}
		uint32_t icrc = ~crc;
		uint32_t wire = f[end] | f[end + 1] << 8 | f[end + 2] << 16 | (uint32_t)f[end + 3] << 24;
		if (good || t[1] == "0") {
			CHECK_EQ(icrc, wire, "ICRC of a well-formed frame");
			CHECK_EQ(icrc, ref_icrc(f.data(), end), "ICRC vs reference");
		} else {
			CHECK(icrc != wire, "corrupted frame must fail the ICRC (icrc %08x)", icrc);
		}
		nframes++;
	}
	CHECK(nframes > 100, "too few frames in %s: %d", argv[1], nframes);
	printf("%d frames checked\n", nframes);

	// 4. icrc_beat_f against hca_icrc_beat on random beats: offsets near the
	//    region's start and its replaced bytes, anywhere, and where lane
	//    offsets wrap past 65535; region ends before, in and after the beat.
	int diff = 0;
	for (int it = 0; it < iters; it++) {
		uint8_t d[64];
		for (int i = 0; i < wb; i++) d[i] = (uint8_t)rand();
		set_bytes(top->data, d, wb);
		uint16_t off;
		switch (it % 4) {
		case 0: off = (uint16_t)((rand() % 8) * wb); break;
		case 1: off = (uint16_t)(rand() & 0xFFFF); break;
		case 2: off = (uint16_t)(0x10000 - (rand() % 4) * wb); break;
		default: off = (uint16_t)(0x10000 - wb + rand() % wb); break;
		}
		top->beat_off = off;
		if (it % 4 >= 2 && off < 0xFFFF)	// lane offsets wrap: a region end above the beat's
			top->crc_end = (uint16_t)(off + 1 + rand() % (0xFFFF - off));
		else
			top->crc_end = (uint16_t)(it % 3 ? off + rand() % (wb + 8) - 4 : rand() & 0xFFFF);
		top->icrc_in = (uint32_t)rand() << 16 ^ (uint32_t)rand();
		top->eval();
		if (top->icrc_f_out != top->icrc_out && diff++ < 5)
			printf("   beat_off=%u crc_end=%u: icrc_beat_f %08x, hca_icrc_beat %08x\n", off,
			       (unsigned)top->crc_end, (unsigned)top->icrc_f_out, (unsigned)top->icrc_out);
	}
	CHECK(diff == 0, "icrc_beat_f differs from hca_icrc_beat on %d of %d random beats", diff, iters);
	top->final();
	delete top;
	return check_done();
}
