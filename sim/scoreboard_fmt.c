// SPDX-License-Identifier: MIT
/*
 * Report formatting for the scoreboard: transaction one-liners and
 * field-by-field diffs (sim/scoreboard_fmt.h).
 *
 * Frames are decoded here from the raw bytes at the header offsets of
 * RFC 894 / RFC 791 / RFC 768 and IB spec vol. 1 chapter 9 (BTH and the
 * extension headers in the order of table 38), not by the model's codec:
 * a frame the codec refuses (bad ICRC, bad length) still gets its fields
 * shown.  The codec's verdict (roce_parse_ex) and a recomputed ICRC are
 * shown next to them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcasim/hca_spec.h"
#include "../model/roce_hdr.h"
#include "scoreboard_fmt.h"

/* String ------------------------------------------------------------------ */

void sbs_printf(struct sb_str *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = o->cap - o->len;

		va_start(ap, fmt);
		n = vsnprintf(o->s ? o->s + o->len : NULL, o->s ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (o->s && (size_t)n < room) {
			o->len += (size_t)n;
			return;
		}
		size_t ncap = o->cap ? o->cap * 2 : 1024;

		while (ncap < o->len + (size_t)n + 1)
			ncap *= 2;
		char *ns = realloc(o->s, ncap);

		if (!ns)
			return;
		o->s = ns;
		o->cap = ncap;
	}
}

void sbs_free(struct sb_str *o)
{
	free(o->s);
	o->s = NULL;
	o->len = o->cap = 0;
}

const char *sbs_cstr(const struct sb_str *o)
{
	return o->s ? o->s : "";
}

/* Names ------------------------------------------------------------------- */

const char *sbf_eqe_type(unsigned int t)
{
	switch (t) {
	case HCA_EQE_TYPE_COMP: return "COMP";
	case HCA_EQE_TYPE_ASYNC: return "ASYNC";
	case HCA_EQE_TYPE_CMD_DONE: return "CMD_DONE";
	default: return "?";
	}
}

const char *sbf_opcode_name(uint8_t op, char *buf, size_t n)
{
	const struct roce_opcode_info *oi = roce_opcode(op);

	if (oi)
		return oi->name;
	snprintf(buf, n, "opcode 0x%02x", op);
	return buf;
}

/* Frame decoding ------------------------------------------------------------ */

enum ffmt { FF_HEX, FF_DEC, FF_MAC, FF_IP, FF_OPC, FF_BIT };

/* Canonical fields, in wire order. */
enum {
	F_ETH_DST, F_ETH_SRC, F_ETH_TYPE,
	F_IP_VIHL, F_IP_TOS, F_IP_LEN, F_IP_ID, F_IP_FRAG, F_IP_TTL, F_IP_PROTO, F_IP_CSUM,
	F_IP_SRC, F_IP_DST,
	F_UDP_SPORT, F_UDP_DPORT, F_UDP_LEN, F_UDP_CSUM,
	F_BTH_OPC, F_BTH_SE, F_BTH_M, F_BTH_PAD, F_BTH_TVER, F_BTH_PKEY, F_BTH_FB, F_BTH_DQPN,
	F_BTH_A, F_BTH_RSV7, F_BTH_PSN,
	F_DETH_QKEY, F_DETH_RSV, F_DETH_SRC,
	F_RETH_VA, F_RETH_RKEY, F_RETH_LEN,
	F_ATM_VA, F_ATM_RKEY, F_ATM_SWAP, F_ATM_CMP,
	F_AETH_SYN, F_AETH_MSN,
	F_ATMACK, F_IMM,
	F_PAYLEN, F_PAYLOAD, F_PADBYTES, F_ICRC, F_ETHPAD, F_FLEN,
	F_NR
};

static const struct {
	const char *name;
	enum ffmt fmt;
} fnames[F_NR] = {
	[F_ETH_DST] = { "eth.dst", FF_MAC }, [F_ETH_SRC] = { "eth.src", FF_MAC },
	[F_ETH_TYPE] = { "eth.type", FF_HEX },
	[F_IP_VIHL] = { "ip.version_ihl", FF_HEX }, [F_IP_TOS] = { "ip.tos", FF_HEX },
	[F_IP_LEN] = { "ip.total_length", FF_DEC }, [F_IP_ID] = { "ip.id", FF_HEX },
	[F_IP_FRAG] = { "ip.flags_fragment", FF_HEX }, [F_IP_TTL] = { "ip.ttl", FF_DEC },
	[F_IP_PROTO] = { "ip.protocol", FF_DEC }, [F_IP_CSUM] = { "ip.checksum", FF_HEX },
	[F_IP_SRC] = { "ip.src", FF_IP }, [F_IP_DST] = { "ip.dst", FF_IP },
	[F_UDP_SPORT] = { "udp.sport", FF_HEX }, [F_UDP_DPORT] = { "udp.dport", FF_DEC },
	[F_UDP_LEN] = { "udp.length", FF_DEC }, [F_UDP_CSUM] = { "udp.checksum", FF_HEX },
	[F_BTH_OPC] = { "bth.opcode", FF_OPC }, [F_BTH_SE] = { "bth.se", FF_BIT },
	[F_BTH_M] = { "bth.m", FF_BIT }, [F_BTH_PAD] = { "bth.padcnt", FF_DEC },
	[F_BTH_TVER] = { "bth.tver", FF_DEC }, [F_BTH_PKEY] = { "bth.pkey", FF_HEX },
	[F_BTH_FB] = { "bth.fecn_becn_resv6", FF_HEX }, [F_BTH_DQPN] = { "bth.dqpn", FF_HEX },
	[F_BTH_A] = { "bth.ackreq", FF_BIT }, [F_BTH_RSV7] = { "bth.resv7", FF_HEX },
	[F_BTH_PSN] = { "bth.psn", FF_HEX },
	[F_DETH_QKEY] = { "deth.qkey", FF_HEX }, [F_DETH_RSV] = { "deth.resv", FF_HEX },
	[F_DETH_SRC] = { "deth.src_qp", FF_HEX },
	[F_RETH_VA] = { "reth.va", FF_HEX }, [F_RETH_RKEY] = { "reth.rkey", FF_HEX },
	[F_RETH_LEN] = { "reth.dma_len", FF_DEC },
	[F_ATM_VA] = { "atmeth.va", FF_HEX }, [F_ATM_RKEY] = { "atmeth.rkey", FF_HEX },
	[F_ATM_SWAP] = { "atmeth.swap_add", FF_HEX }, [F_ATM_CMP] = { "atmeth.compare", FF_HEX },
	[F_AETH_SYN] = { "aeth.syndrome", FF_HEX }, [F_AETH_MSN] = { "aeth.msn", FF_HEX },
	[F_ATMACK] = { "atmack.orig", FF_HEX }, [F_IMM] = { "immdt", FF_HEX },
	[F_PAYLEN] = { "payload.length", FF_DEC }, [F_PAYLOAD] = { "payload", FF_HEX },
	[F_PADBYTES] = { "pad.bytes", FF_HEX }, [F_ICRC] = { "icrc", FF_HEX },
	[F_ETHPAD] = { "eth.padding", FF_HEX }, [F_FLEN] = { "frame.length", FF_DEC },
};

struct frame_dec {
	bool has[F_NR];
	uint64_t v[F_NR];
	size_t pay_off, pay_len;	/* payload bytes in the frame */
	size_t icrc_off;		/* 0: none */
	bool icrc_ok;			/* recomputed ICRC equals the carried one */
	uint32_t icrc_calc;
	enum roce_drop_reason why;	/* codec verdict */
};

static uint64_t be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static void put(struct frame_dec *d, int f, uint64_t v)
{
	d->has[f] = true;
	d->v[f] = v;
}

static void frame_decode(const uint8_t *f, size_t len, struct frame_dec *d)
{
	const struct roce_opcode_info *oi;
	struct roce_pkt pkt;
	size_t ip_end, o;
	unsigned int pad;

	memset(d, 0, sizeof(*d));
	put(d, F_FLEN, len);
	roce_parse_ex(f, len, &pkt, &d->why);
	if (len < 14)
		return;
	put(d, F_ETH_DST, be(f, 6));
	put(d, F_ETH_SRC, be(f + 6, 6));
	put(d, F_ETH_TYPE, be(f + 12, 2));
	if (be(f + 12, 2) != 0x0800 || len < 34)
		return;
	put(d, F_IP_VIHL, f[14]);
	put(d, F_IP_TOS, f[15]);
	put(d, F_IP_LEN, be(f + 16, 2));
	put(d, F_IP_ID, be(f + 18, 2));
	put(d, F_IP_FRAG, be(f + 20, 2));
	put(d, F_IP_TTL, f[22]);
	put(d, F_IP_PROTO, f[23]);
	put(d, F_IP_CSUM, be(f + 24, 2));
	put(d, F_IP_SRC, be(f + 26, 4));
	put(d, F_IP_DST, be(f + 30, 4));
	ip_end = 14 + (size_t)be(f + 16, 2);
	if (ip_end > len)
		ip_end = len;
	if (ip_end < len)
		put(d, F_ETHPAD, be(f + ip_end, len - ip_end < 8 ? (unsigned int)(len - ip_end) : 8));
	if (f[23] != 17 || len < 42)
		return;
	put(d, F_UDP_SPORT, be(f + 34, 2));
	put(d, F_UDP_DPORT, be(f + 36, 2));
	put(d, F_UDP_LEN, be(f + 38, 2));
	put(d, F_UDP_CSUM, be(f + 40, 2));
	if (be(f + 36, 2) != HCA_WIRE_UDP_DPORT || len < 54)
		return;
	put(d, F_BTH_OPC, f[42]);
	put(d, F_BTH_SE, f[43] >> 7 & 1);
	put(d, F_BTH_M, f[43] >> 6 & 1);
	put(d, F_BTH_PAD, f[43] >> 4 & 3);
	put(d, F_BTH_TVER, f[43] & 15);
	put(d, F_BTH_PKEY, be(f + 44, 2));
	put(d, F_BTH_FB, f[46]);
	put(d, F_BTH_DQPN, be(f + 47, 3));
	put(d, F_BTH_A, f[50] >> 7 & 1);
	put(d, F_BTH_RSV7, f[50] & 0x7f);
	put(d, F_BTH_PSN, be(f + 51, 3));
	if (ip_end >= 54 + 4) {
		d->icrc_off = ip_end - 4;
		put(d, F_ICRC, (uint64_t)f[d->icrc_off] | (uint64_t)f[d->icrc_off + 1] << 8 |
				       (uint64_t)f[d->icrc_off + 2] << 16 | (uint64_t)f[d->icrc_off + 3] << 24);
		d->icrc_calc = roce_icrc(f, d->icrc_off);
		d->icrc_ok = d->icrc_calc == (uint32_t)d->v[F_ICRC];
	}
	oi = roce_opcode(f[42]);
	if (!oi || !d->icrc_off)
		return;
	o = 54;
#define NEED(n) do { if (o + (n) > d->icrc_off) return; } while (0)
	if (oi->hdrs & ROCE_DETH) {
		NEED(8);
		put(d, F_DETH_QKEY, be(f + o, 4));
		put(d, F_DETH_RSV, f[o + 4]);
		put(d, F_DETH_SRC, be(f + o + 5, 3));
		o += 8;
	}
	if (oi->hdrs & ROCE_RETH) {
		NEED(16);
		put(d, F_RETH_VA, be(f + o, 8));
		put(d, F_RETH_RKEY, be(f + o + 8, 4));
		put(d, F_RETH_LEN, be(f + o + 12, 4));
		o += 16;
	}
	if (oi->hdrs & ROCE_ATMETH) {
		NEED(28);
		put(d, F_ATM_VA, be(f + o, 8));
		put(d, F_ATM_RKEY, be(f + o + 8, 4));
		put(d, F_ATM_SWAP, be(f + o + 12, 8));
		put(d, F_ATM_CMP, be(f + o + 20, 8));
		o += 28;
	}
	if (oi->hdrs & ROCE_AETH) {
		NEED(4);
		put(d, F_AETH_SYN, f[o]);
		put(d, F_AETH_MSN, be(f + o + 1, 3));
		o += 4;
	}
	if (oi->hdrs & ROCE_ATMACK) {
		NEED(8);
		put(d, F_ATMACK, be(f + o, 8));
		o += 8;
	}
	if (oi->hdrs & ROCE_IMMDT) {
		NEED(4);
		put(d, F_IMM, be(f + o, 4));
		o += 4;
	}
#undef NEED
	pad = f[43] >> 4 & 3;
	if (o + pad > d->icrc_off)
		return;
	d->pay_off = o;
	d->pay_len = d->icrc_off - pad - o;
	put(d, F_PAYLEN, d->pay_len);
	put(d, F_PAYLOAD, 0);	/* compared bytewise */
	if (pad)
		put(d, F_PADBYTES, be(f + d->icrc_off - pad, pad));
}

static void fmt_val(char *buf, size_t n, enum ffmt fmt, uint64_t v)
{
	char tmp[32];

	switch (fmt) {
	case FF_DEC:
	case FF_BIT:
		snprintf(buf, n, "%llu", (unsigned long long)v);
		break;
	case FF_MAC:
		snprintf(buf, n, "%02x:%02x:%02x:%02x:%02x:%02x", (unsigned int)(v >> 40 & 0xff),
			 (unsigned int)(v >> 32 & 0xff), (unsigned int)(v >> 24 & 0xff),
			 (unsigned int)(v >> 16 & 0xff), (unsigned int)(v >> 8 & 0xff), (unsigned int)(v & 0xff));
		break;
	case FF_IP:
		snprintf(buf, n, "%u.%u.%u.%u", (unsigned int)(v >> 24 & 0xff), (unsigned int)(v >> 16 & 0xff),
			 (unsigned int)(v >> 8 & 0xff), (unsigned int)(v & 0xff));
		break;
	case FF_OPC:
		snprintf(buf, n, "0x%02x %s", (unsigned int)v, sbf_opcode_name((uint8_t)v, tmp, sizeof(tmp)));
		break;
	default:
		snprintf(buf, n, "0x%llx", (unsigned long long)v);
		break;
	}
}

void sbf_hex_pair_mask(struct sb_str *o, uint64_t addr, const uint8_t *ref, const bool *rhave,
		       const uint8_t *dut, const bool *dhave, size_t len, size_t mark)
{
	size_t start = mark & ~(size_t)15;
	size_t first = start >= 16 ? start - 16 : 0;
	size_t last = start + 32;

	if (last > len)
		last = len;
	for (size_t line = first; line < last; line += 16) {
		for (int side = 0; side < 2; side++) {
			const uint8_t *p = side ? dut : ref;
			const bool *h = side ? dhave : rhave;

			sbs_printf(o, "      %s %#12llx:", side ? "dut" : "ref", (unsigned long long)(addr + line));
			for (size_t i = line; i < line + 16 && i < len; i++) {
				if (h[i])
					sbs_printf(o, " %02x", p[i]);
				else
					sbs_printf(o, " --");
			}
			sbs_printf(o, "\n");
		}
		if (mark >= line && mark < line + 16) {
			sbs_printf(o, "      %*s", 17, "");
			for (size_t i = line; i < mark; i++)
				sbs_printf(o, "   ");
			sbs_printf(o, " ^^\n");
		}
	}
}

void sbf_hex_pair(struct sb_str *o, uint64_t addr, const uint8_t *ref, size_t rlen,
		  const uint8_t *dut, size_t dlen, size_t mark)
{
	size_t len = rlen > dlen ? rlen : dlen;
	uint8_t *a = calloc(len + 1, 1), *b = calloc(len + 1, 1);
	bool *ha = calloc(len + 1, sizeof(bool)), *hb = calloc(len + 1, sizeof(bool));

	if (a && b && ha && hb) {
		memcpy(a, ref, rlen);
		memcpy(b, dut, dlen);
		for (size_t i = 0; i < len; i++) {
			ha[i] = i < rlen;
			hb[i] = i < dlen;
		}
		sbf_hex_pair_mask(o, addr, a, ha, b, hb, len, mark);
	}
	free(a);
	free(b);
	free(ha);
	free(hb);
}

void sbf_describe(struct sb_str *o, enum sb_fmt fmt, const uint8_t *d, size_t len, uint64_t addr,
		  uint64_t base)
{
	char opn[24];

	switch (fmt) {
	case SB_FMT_FRAME: {
		struct frame_dec fd;

		frame_decode(d, len, &fd);
		if (!fd.has[F_BTH_OPC]) {
			sbs_printf(o, "non-RoCE frame, %zu bytes", len);
			return;
		}
		sbs_printf(o, "%-26s qp 0x%04llx -> dqpn 0x%06llx psn 0x%06llx%s%s",
			   sbf_opcode_name((uint8_t)fd.v[F_BTH_OPC], opn, sizeof(opn)),
			   (unsigned long long)(fd.v[F_UDP_SPORT] & HCA_WIRE_UDP_SPORT_MASK),
			   (unsigned long long)fd.v[F_BTH_DQPN], (unsigned long long)fd.v[F_BTH_PSN],
			   fd.v[F_BTH_A] ? " A" : "", fd.v[F_BTH_SE] ? " SE" : "");
		if (fd.has[F_AETH_SYN])
			sbs_printf(o, " aeth 0x%02llx/msn %llu", (unsigned long long)fd.v[F_AETH_SYN],
				   (unsigned long long)fd.v[F_AETH_MSN]);
		if (fd.has[F_RETH_VA])
			sbs_printf(o, " reth va 0x%llx len %llu", (unsigned long long)fd.v[F_RETH_VA],
				   (unsigned long long)fd.v[F_RETH_LEN]);
		if (fd.has[F_IMM])
			sbs_printf(o, " imm 0x%08llx", (unsigned long long)fd.v[F_IMM]);
		sbs_printf(o, " payload %zu, frame %zu B%s", fd.pay_len, len,
			   fd.why != ROCE_DROP_NONE ? " (codec refuses it)" : "");
		return;
	}
	case SB_FMT_IRQ: {
		uint32_t v = 0;

		memcpy(&v, d, len < 4 ? len : 4);
		sbs_printf(o, "MSI-X vector %u", v);
		return;
	}
	case SB_FMT_EVENT: {
		uint32_t v[2] = { 0, 0 };

		memcpy(v, d, len < 8 ? len : 8);
		sbs_printf(o, "event %s (%u) element 0x%x", hca_event_type_name(v[0]), v[0], v[1]);
		return;
	}
	case SB_FMT_CQE:
	case SB_FMT_EQE: {
		size_t es = fmt == SB_FMT_CQE ? HCA_CQE_SIZE : HCA_EQE_SIZE;

		sbs_printf(o, "write %#llx +%zu (entry %llu%s)", (unsigned long long)addr, len,
			   (unsigned long long)((addr - base) / es), (addr - base) % es ? ", unaligned" : "");
		if (len == es && (addr - base) % es == 0) {
			if (fmt == SB_FMT_CQE) {
				struct hca_cqe c;

				memcpy(&c, d, sizeof(c));
				sbs_printf(o, ": qpn 0x%x wqe_index %u %s %s byte_len %u%s owner %u", c.qpn,
					   c.wqe_index, hca_wc_opcode_name(c.opcode), hca_wc_status_name(c.status), c.byte_len,
					   c.wc_flags & HCA_WC_FLAG_WITH_IMM ? " imm" : "", c.owner & 1);
			} else {
				struct hca_eqe e;

				memcpy(&e, d, sizeof(e));
				sbs_printf(o, ": %s", sbf_eqe_type(e.type));
				if (e.type == HCA_EQE_TYPE_ASYNC)
					sbs_printf(o, " %s", hca_event_type_name(e.subtype));
				sbs_printf(o, " element 0x%x data 0x%x owner %u", e.element, e.data, e.owner & 1);
			}
		}
		return;
	}
	case SB_FMT_MEM:
		sbs_printf(o, "write %#llx +%zu (region offset 0x%llx)", (unsigned long long)addr, len,
			   (unsigned long long)(addr - base));
		return;
	default:
		sbs_printf(o, "%zu bytes", len);
		if (addr)
			sbs_printf(o, " at %#llx", (unsigned long long)addr);
		return;
	}
}

void sbf_diff_frame(struct sb_str *o, const uint8_t *ref, size_t rlen, const uint8_t *dut,
		    size_t dlen, struct sbf_first *first)
{
	struct frame_dec a, b;
	char va[64], vb[64];
	bool first_done = false;
	size_t pay_diff = SIZE_MAX;

	frame_decode(ref, rlen, &a);
	frame_decode(dut, dlen, &b);
	memset(first, 0, sizeof(*first));
	if (a.has[F_PAYLOAD] && b.has[F_PAYLOAD]) {
		size_t n = a.pay_len < b.pay_len ? a.pay_len : b.pay_len;

		for (size_t i = 0; i < n; i++)
			if (ref[a.pay_off + i] != dut[b.pay_off + i]) {
				pay_diff = i;
				break;
			}
		if (pay_diff == SIZE_MAX && a.pay_len != b.pay_len)
			pay_diff = n;
	}
	sbs_printf(o, "    %-22s %-28s %-28s\n", "field", "ref", "dut");
	for (int f = 0; f < F_NR; f++) {
		bool differs, key;

		if (!a.has[f] && !b.has[f])
			continue;
		if (f == F_PAYLOAD)
			differs = (a.has[f] != b.has[f]) || pay_diff != SIZE_MAX;
		else
			differs = a.has[f] != b.has[f] || a.v[f] != b.v[f];
		key = f == F_BTH_OPC || f == F_BTH_DQPN || f == F_BTH_PSN;
		if (!differs && !key)
			continue;
		if (f == F_PAYLOAD) {
			snprintf(va, sizeof(va), "%s", a.has[f] ? "(bytes)" : "-");
			snprintf(vb, sizeof(vb), "%s", b.has[f] ? "(bytes)" : "-");
			if (pay_diff != SIZE_MAX)
				snprintf(vb + strlen(vb), sizeof(vb) - strlen(vb), " differ at +%zu", pay_diff);
		} else {
			if (a.has[f])
				fmt_val(va, sizeof(va), fnames[f].fmt, a.v[f]);
			else
				snprintf(va, sizeof(va), "-");
			if (b.has[f])
				fmt_val(vb, sizeof(vb), fnames[f].fmt, b.v[f]);
			else
				snprintf(vb, sizeof(vb), "-");
			if (f == F_ICRC) {
				if (a.has[f])
					snprintf(va + strlen(va), sizeof(va) - strlen(va), a.icrc_ok ? " (ok)" : " (BAD, want 0x%x)", a.icrc_calc);
				if (b.has[f])
					snprintf(vb + strlen(vb), sizeof(vb) - strlen(vb), b.icrc_ok ? " (ok)" : " (BAD, want 0x%x)", b.icrc_calc);
			}
		}
		sbs_printf(o, "  %s %-22s %-28s %-28s%s\n", differs ? "*" : " ", fnames[f].name, va, vb,
			   differs && !first_done ? "  <-- first difference" : "");
		if (differs && !first_done) {
			first_done = true;
			snprintf(first->field, sizeof(first->field), "%s", fnames[f].name);
			snprintf(first->values, sizeof(first->values), "ref %s, dut %s", va, vb);
		}
	}
	if (!first_done) {
		/* no decoded field differs: some byte the decoder does not name */
		size_t n = rlen < dlen ? rlen : dlen;

		for (size_t i = 0; i < n; i++)
			if (ref[i] != dut[i]) {
				snprintf(first->field, sizeof(first->field), "byte %zu", i);
				snprintf(first->values, sizeof(first->values), "ref 0x%02x, dut 0x%02x", ref[i], dut[i]);
				break;
			}
	}
	sbs_printf(o, "    codec (roce_parse_ex): ref %s, dut %s\n",
		   a.why == ROCE_DROP_NONE ? "accepted" : roce_drop_reason_str(a.why),
		   b.why == ROCE_DROP_NONE ? "accepted" : roce_drop_reason_str(b.why));
	if (pay_diff != SIZE_MAX && a.pay_len && b.pay_len) {
		size_t ra = a.pay_len, rb = b.pay_len;

		sbs_printf(o, "    payload (ref %zu bytes, dut %zu bytes), offsets from the payload start:\n", ra, rb);
		sbf_hex_pair(o, 0, ref + a.pay_off, ra, dut + b.pay_off, rb, pay_diff);
	} else {
		size_t n = rlen < dlen ? rlen : dlen, i;

		for (i = 0; i < n && ref[i] == dut[i]; i++)
			;
		if (i < n || rlen != dlen) {
			sbs_printf(o, "    frame bytes, offsets from the Ethernet header:\n");
			sbf_hex_pair(o, 0, ref, rlen, dut, dlen, i);
		}
	}
}

/* CQE / EQE --------------------------------------------------------------- */

enum efmt { EF_DEC, EF_HEX, EF_STATUS, EF_WCOP, EF_EQTYPE, EF_EVENT };

struct efield {
	const char *name;
	unsigned int off, len;
	enum efmt fmt;
};

#define CQF(n, N, f) { #n, HCA_CQE_##N##_OFF, HCA_CQE_##N##_LEN, f }
static const struct efield cqe_fields[] = {
	CQF(byte_len, BYTE_LEN, EF_DEC), CQF(imm_data, IMM_DATA, EF_HEX), CQF(qpn, QPN, EF_HEX),
	CQF(src_qp, SRC_QP, EF_HEX), CQF(wqe_index, WQE_INDEX, EF_DEC), CQF(status, STATUS, EF_STATUS),
	CQF(opcode, OPCODE, EF_WCOP), CQF(wc_flags, WC_FLAGS, EF_HEX), CQF(vendor_err, VENDOR_ERR, EF_HEX),
	CQF(pkey_index, PKEY_INDEX, EF_DEC), CQF(is_srq, IS_SRQ, EF_DEC),
	{ "reserved", HCA_CQE_IS_SRQ_OFF + 1, HCA_CQE_OWNER_OFF - HCA_CQE_IS_SRQ_OFF - 1, EF_HEX },
	CQF(owner, OWNER, EF_HEX),
};
#define EQF(n, N, f) { #n, HCA_EQE_##N##_OFF, HCA_EQE_##N##_LEN, f }
static const struct efield eqe_fields[] = {
	EQF(type, TYPE, EF_EQTYPE), EQF(subtype, SUBTYPE, EF_EVENT),
	{ "reserved", HCA_EQE_SUBTYPE_OFF + 1, HCA_EQE_ELEMENT_OFF - HCA_EQE_SUBTYPE_OFF - 1, EF_HEX },
	EQF(element, ELEMENT, EF_HEX), EQF(data, DATA, EF_HEX),
	{ "reserved", HCA_EQE_DATA_OFF + 4, HCA_EQE_OWNER_OFF - HCA_EQE_DATA_OFF - 4, EF_HEX },
	EQF(owner, OWNER, EF_HEX),
};

static uint64_t le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static void efmt_val(char *buf, size_t n, const struct efield *f, const uint8_t *e)
{
	uint64_t v = le(e + f->off, f->len > 8 ? 8 : f->len);

	switch (f->fmt) {
	case EF_DEC: snprintf(buf, n, "%llu", (unsigned long long)v); break;
	case EF_STATUS: snprintf(buf, n, "%llu %s", (unsigned long long)v, hca_wc_status_name((unsigned int)v)); break;
	case EF_WCOP: snprintf(buf, n, "%llu %s", (unsigned long long)v, hca_wc_opcode_name((unsigned int)v)); break;
	case EF_EQTYPE: snprintf(buf, n, "%llu %s", (unsigned long long)v, sbf_eqe_type((unsigned int)v)); break;
	case EF_EVENT: snprintf(buf, n, "%llu %s", (unsigned long long)v, hca_event_type_name((unsigned int)v)); break;
	default: snprintf(buf, n, "0x%llx", (unsigned long long)v); break;
	}
}

static bool all_have(const bool *h, unsigned int off, unsigned int len)
{
	if (!h)
		return true;
	for (unsigned int i = off; i < off + len; i++)
		if (!h[i])
			return false;
	return true;
}

void sbf_diff_entry(struct sb_str *o, enum sb_fmt fmt, const uint8_t *ref, const bool *rhave,
		    const uint8_t *dut, const bool *dhave, struct sbf_first *first)
{
	const struct efield *t = fmt == SB_FMT_CQE ? cqe_fields : eqe_fields;
	size_t nt = fmt == SB_FMT_CQE ? sizeof(cqe_fields) / sizeof(cqe_fields[0])
				      : sizeof(eqe_fields) / sizeof(eqe_fields[0]);
	bool first_done = false;
	char va[48], vb[48];

	memset(first, 0, sizeof(*first));
	sbs_printf(o, "    %-14s %-28s %-28s\n", fmt == SB_FMT_CQE ? "CQE field" : "EQE field", "ref", "dut");
	for (size_t i = 0; i < nt; i++) {
		bool ha = all_have(rhave, t[i].off, t[i].len), hb = all_have(dhave, t[i].off, t[i].len);
		bool differs = ha && hb && memcmp(ref + t[i].off, dut + t[i].off, t[i].len) != 0;

		if (ha)
			efmt_val(va, sizeof(va), &t[i], ref);
		else
			snprintf(va, sizeof(va), "(not written yet)");
		if (hb)
			efmt_val(vb, sizeof(vb), &t[i], dut);
		else
			snprintf(vb, sizeof(vb), "(not written yet)");
		sbs_printf(o, "  %s %-14s %-28s %-28s%s\n", differs ? "*" : " ", t[i].name, va, vb,
			   differs && !first_done ? "  <-- first difference" : "");
		if (differs && !first_done) {
			first_done = true;
			snprintf(first->field, sizeof(first->field), "%s", t[i].name);
			snprintf(first->values, sizeof(first->values), "ref %s, dut %s", va, vb);
		}
	}
}
