// SPDX-License-Identifier: MIT
// hca_hdr_gen and hca_rx_parse against scapy-built RoCEv2 frames.
//   tb_hdr <vectors>
// G lines: the generator must emit exactly scapy's header bytes for the
// fields, and the parser must accept the frame and return the fields.
// P lines: the parser must report the expected first drop reason.
#include "Vtb_hdr_top.h"
#include "tb_util.h"

static Vtb_hdr_top *top;

static const char *reason_name[] = {"NONE", "SHORT", "ETHERTYPE", "IP_VERSION", "IP_OPTIONS",
				    "IP_CSUM", "IP_LEN", "IP_FRAG", "IP_PROTO", "UDP_PORT",
				    "UDP_LEN", "UDP_CSUM", "ICRC", "OPCODE", "TVER", "HDR_LEN",
				    "PAD", "TOO_LONG"};

// Feed a frame to the parser as hca_rx_frame would: first 96 bytes, length,
// UDP datagram sum and ICRC verdict (from the reference ICRC).
static void parse(const std::vector<uint8_t> &f)
{
	uint8_t cap[96] = {0};
	memcpy(cap, f.data(), std::min<std::size_t>(96, f.size()));
	set_bytes(top->p_hdr, cap, 96);
	top->p_frame_len = (uint16_t)f.size();
	uint32_t sum = 0;
	bool icrc_ok = false;
	if (f.size() >= 34) {
		std::size_t iplen = f[16] << 8 | f[17];
		std::size_t end = std::min<std::size_t>(14 + iplen, f.size());
		for (std::size_t i = 34; i < end; i += 2)
			sum += (uint32_t)f[i] << 8 | (i + 1 < end ? f[i + 1] : 0);
		if (iplen >= 44 && 14 + iplen <= f.size()) {
			std::size_t e = 14 + iplen - 4;
			uint32_t wire = f[e] | f[e + 1] << 8 | f[e + 2] << 16 | (uint32_t)f[e + 3] << 24;
			icrc_ok = ref_icrc(f.data(), e) == wire;
		}
	}
	top->p_udp_sum = sum;
	top->p_icrc_ok = icrc_ok;
	top->eval();
}

static uint64_t hx(const std::string &s) { return strtoull(s.c_str(), nullptr, 16); }
static bool has(const std::string &h, char c) { return h.find(c) != std::string::npos; }

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	if (argc < 2) {
		fprintf(stderr, "usage: %s vectors\n", argv[0]);
		return 2;
	}
	top = new Vtb_hdr_top;
	int ng = 0, np = 0;
	for (auto &line : read_lines(argv[1])) {
		auto t = split(line);
		if (t.empty()) continue;
		if (t[0] == "G") {
			if (t.size() != 27) {
				CHECK(0, "bad G line");
				continue;
			}
			uint64_t v[24];
			for (int i = 0; i < 24; i++) v[i] = hx(t[1 + i]);
			std::string hdrs = t[25];
			auto f = unhex(t[26]);
			top->g_opcode = v[0]; top->g_se = v[1]; top->g_ackreq = v[2]; top->g_psn = v[3];
			top->g_dqpn = v[4]; top->g_pay_len = v[5]; top->g_dmac = v[6]; top->g_smac = v[7];
			top->g_tclass = v[8]; top->g_hop_limit = v[9]; top->g_sip = v[10]; top->g_dip = v[11];
			top->g_sport = v[12]; top->g_reth_va = v[13]; top->g_reth_rkey = v[14];
			top->g_reth_len = v[15]; top->g_imm = v[16]; top->g_aeth_syn = v[17];
			top->g_aeth_msn = v[18]; top->g_deth_qkey = v[19]; top->g_deth_sqp = v[20];
			top->g_atm_swap_add = v[21]; top->g_atm_compare = v[22]; top->g_atmack_orig = v[23];
			top->eval();
			unsigned pay = v[5], pad = (4 - pay % 4) % 4;
			unsigned iplen = f[16] << 8 | f[17];
			unsigned hlen = 14 + iplen - pay - pad - 4;
			char what[64];
			snprintf(what, sizeof what, "opcode 0x%02x hdr_len", (unsigned)v[0]);
			CHECK_EQ(top->g_hdr_len, hlen, what);
			CHECK_EQ(top->g_ip_len, iplen, "ip_len");
			CHECK_EQ(top->g_padcnt, pad, "padcnt");
			CHECK_EQ(top->g_valid, 1, "valid");
			int bad = -1;
			for (unsigned i = 0; i < 96; i++) {
				uint8_t want = i < hlen ? f[i] : 0;
				if (get_byte(top->g_hdr, i) != want) { bad = (int)i; break; }
			}
			CHECK(bad < 0, "opcode 0x%02x: header byte %d = %02x, scapy %02x", (unsigned)v[0], bad,
			      bad < 0 ? 0 : get_byte(top->g_hdr, bad), bad < 0 ? 0 : f[bad]);

			parse(f);
			CHECK(top->p_reason == 0, "opcode 0x%02x: good frame refused: %s", (unsigned)v[0],
			      reason_name[top->p_reason < 18 ? top->p_reason : 0]);
			CHECK_EQ(top->p_dmac, v[6], "dmac"); CHECK_EQ(top->p_smac, v[7], "smac");
			CHECK_EQ(top->p_tclass, v[8], "tclass"); CHECK_EQ(top->p_ttl, v[9] ? v[9] : 64, "ttl");
			CHECK_EQ(top->p_sip, v[10], "sip"); CHECK_EQ(top->p_dip, v[11], "dip");
			CHECK_EQ(top->p_ip_len, iplen, "ip_len"); CHECK_EQ(top->p_sport, v[12], "sport");
			CHECK_EQ(top->p_opcode, v[0], "opcode"); CHECK_EQ(top->p_se, v[1], "se");
			CHECK_EQ(top->p_migreq, 1, "migreq"); CHECK_EQ(top->p_padcnt, pad, "padcnt");
			CHECK_EQ(top->p_pkey, 0xFFFF, "pkey"); CHECK_EQ(top->p_dqpn, v[4], "dqpn");
			CHECK_EQ(top->p_ackreq, v[2], "ackreq"); CHECK_EQ(top->p_psn, v[3], "psn");
			CHECK_EQ(top->p_pay_off, hlen, "pay_off"); CHECK_EQ(top->p_pay_len, pay, "pay_len");
			// header presence (IB table 38) and values
			CHECK_EQ((top->p_info >> 21) & 1, has(hdrs, 'D'), "info DETH");
			CHECK_EQ((top->p_info >> 16) & 1, has(hdrs, 'R'), "info RETH");
			CHECK_EQ((top->p_info >> 19) & 1, has(hdrs, 'T'), "info AtomicETH");
			CHECK_EQ((top->p_info >> 17) & 1, has(hdrs, 'A'), "info AETH");
			CHECK_EQ((top->p_info >> 20) & 1, has(hdrs, 'K'), "info AtomicAckETH");
			CHECK_EQ((top->p_info >> 18) & 1, has(hdrs, 'I'), "info ImmDt");
			CHECK_EQ((top->p_info >> 22) & 1, has(hdrs, 'P'), "info payload");
			if (has(hdrs, 'R') || has(hdrs, 'T')) {
				CHECK_EQ(top->p_reth_va, v[13], "va");
				CHECK_EQ(top->p_reth_rkey, v[14], "rkey");
			}
			if (has(hdrs, 'R')) CHECK_EQ(top->p_reth_len, v[15], "dma len");
			if (has(hdrs, 'I')) CHECK_EQ(top->p_imm, v[16], "imm");
			if (has(hdrs, 'A')) {
				CHECK_EQ(top->p_aeth_syn, v[17], "aeth syndrome");
				CHECK_EQ(top->p_aeth_msn, v[18], "aeth msn");
			}
			if (has(hdrs, 'D')) {
				CHECK_EQ(top->p_deth_qkey, v[19], "qkey");
				CHECK_EQ(top->p_deth_sqp, v[20], "src qp");
			}
			if (has(hdrs, 'T')) {
				CHECK_EQ(top->p_atm_swap_add, v[21], "swap/add");
				CHECK_EQ(top->p_atm_compare, v[22], "compare");
			}
			if (has(hdrs, 'K')) CHECK_EQ(top->p_atmack_orig, v[23], "orig");
			ng++;
		} else if (t[0] == "P") {
			unsigned want = (unsigned)hx(t[1]);
			auto f = t.size() > 2 ? unhex(t[2]) : std::vector<uint8_t>();
			parse(f);
			CHECK(top->p_reason == want, "frame of %zu bytes (opcode 0x%02x): reason %s, want %s",
			      f.size(), f.size() > 42 ? f[42] : 0, reason_name[top->p_reason < 18 ? top->p_reason : 0],
			      reason_name[want < 18 ? want : 0]);
			np++;
		}
	}
	CHECK(ng >= 100 && np >= 1000, "too few vectors: %d G, %d P", ng, np);
	printf("%d generator/parser frames, %d defect frames\n", ng, np);
	top->final();
	delete top;
	return check_done();
}
