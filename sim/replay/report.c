// SPDX-License-Identifier: MIT
/*
 * What the device did with one frame, as text (one block per frame) and as a
 * JSON object per line (--json).  The verdict comes from the engine's own
 * counters (HCA_STAT_*) and answers; the frames are decoded with the model's
 * codec (model/roce_hdr.h) only to describe them.
 */
#include <string.h>

#include "../../model/roce_hdr.h"
#include "replay.h"

static const char *const stat_names[] = {
	"TX_FRAMES", "TX_BYTES", "RX_FRAMES", "RX_BYTES", "RX_DROP_PORT_DOWN", "RX_DROP_MALFORMED",
	"RX_DROP_ICRC", "RX_DROP_NO_QP", "RX_DROP_ADDR", "RX_DROP_QKEY", "RX_DUP", "RX_SEQ_ERR",
	"TX_ACK", "TX_NAK", "RETRANSMIT", "DB_ERR", "DMA_FAULT", "CQ_OVERFLOW", "EQ_OVERFLOW",
};
_Static_assert(sizeof(stat_names) / sizeof(stat_names[0]) == HCA_STAT_COUNT, "a name per counter");
_Static_assert(HCA_STAT_RX_DROP_QKEY == 9 && HCA_STAT_EQ_OVERFLOW == 18, "stat_names order");

/* ---- decoding ---- */

/* The BTH fields at their fixed offsets (Ethernet/IPv4 without options/UDP 4791), if present. */
struct bth_peek {
	bool udp;		/* IPv4/UDP to port 4791 */
	bool ok;		/* and a whole BTH */
	uint8_t opcode;
	uint32_t dqpn, psn;
	bool ackreq;
};

static struct bth_peek peek(const uint8_t *f, size_t len)
{
	struct bth_peek b = { 0 };

	if (len < 38 || f[12] != 0x08 || f[13] != 0x00 || f[14] != 0x45 || f[23] != 17 ||
	    ((f[36] << 8) | f[37]) != 4791)
		return b;
	b.udp = true;
	if (len < 54)
		return b;
	b.ok = true;
	b.opcode = f[42];
	b.dqpn = (uint32_t)f[47] << 16 | (uint32_t)f[48] << 8 | f[49];
	b.ackreq = f[50] >> 7;
	b.psn = (uint32_t)f[51] << 16 | (uint32_t)f[52] << 8 | f[53];
	return b;
}

/* IB spec vol. 1 9.7.5.2 (AETH syndrome): "ACK", "RNR NAK", "NAK ..." */
static const char *aeth_str(uint8_t syn, char *buf, size_t n)
{
	static const char *const naks[] = { "PSN sequence error", "invalid request", "remote access error",
					     "remote operational error", "invalid RD request" };

	switch (syn >> 5) {
	case HCA_AETH_TYPE_ACK:
		snprintf(buf, n, "ACK (credits %u)", syn & 0x1f);
		break;
	case HCA_AETH_TYPE_RNR_NAK:
		snprintf(buf, n, "RNR NAK (timer %u)", syn & 0x1f);
		break;
	case HCA_AETH_TYPE_NAK:
		snprintf(buf, n, "NAK %s", (syn & 0x1f) < 5 ? naks[syn & 0x1f] : "(reserved code)");
		break;
	default:
		snprintf(buf, n, "reserved syndrome");
	}
	return buf;
}

static bool answer_nak(const struct rp_frame *f, uint8_t *syn)
{
	struct roce_pkt p;
	const struct roce_opcode_info *info;

	if (roce_parse(f->data, f->len, &p) != ROCE_OK || !(info = roce_opcode(p.opcode)) ||
	    !(info->hdrs & ROCE_AETH) || !(p.aeth.syndrome >> 5))
		return false;
	*syn = p.aeth.syndrome;
	return true;
}

/* The reason a drop counter gives, most specific first (wire.md 1, "Receive"). */
static const char *drop_reason(const struct rp_obs *o, char *why, size_t n)
{
	struct roce_pkt p;
	enum roce_drop_reason r = ROCE_DROP_NONE;

	if (o->stat[HCA_STAT_RX_DROP_PORT_DOWN])
		return "port down";
	if (o->stat[HCA_STAT_RX_DROP_MALFORMED]) {
		roce_parse_ex(o->in, o->in_len, &p, &r);
		snprintf(why, n, "malformed%s%s%s", r != ROCE_DROP_NONE ? " (" : "",
			 r != ROCE_DROP_NONE ? roce_drop_reason_str(r) : "", r != ROCE_DROP_NONE ? ")" : "");
		return why;
	}
	if (o->stat[HCA_STAT_RX_DROP_ADDR])
		return "not addressed to this device (destination MAC or IP)";
	if (o->stat[HCA_STAT_RX_DROP_ICRC])
		return "bad ICRC";
	if (o->stat[HCA_STAT_RX_DROP_NO_QP])
		return "no such QP, QP of another type, or QP not ready to receive (RESET, INIT, ERR)";
	if (o->stat[HCA_STAT_RX_DROP_QKEY])
		return "Q_Key mismatch";
	return NULL;
}

const char *rp_verdict(const struct rp_obs *o, char *why, size_t n)
{
	const char *r;
	uint8_t syn = 0;
	char tmp[64];
	bool nak = false;

	why[0] = '\0';
	for (size_t i = 0; i < o->ntx && !nak; i++)
		nak = answer_nak(&o->tx[i], &syn);
	if (!o->stat[HCA_STAT_RX_FRAMES]) {
		snprintf(why, n, "not received: RX_FRAMES did not move (an empty frame, or one longer "
				 "than the port takes)");
		return "dropped";
	}
	r = drop_reason(o, why, n);
	if (r) {
		if (r != why)
			snprintf(why, n, "%s", r);
		return "dropped";
	}
	if (o->stat[HCA_STAT_RX_DUP]) {
		snprintf(why, n, "PSN behind the expected PSN: not executed again, %s",
			 o->ntx ? "answered" : "no answer");
		return "duplicate";
	}
	if (o->stat[HCA_STAT_RX_SEQ_ERR]) {
		snprintf(why, n, "PSN ahead of the expected PSN: %s",
			 nak ? aeth_str(syn, tmp, sizeof(tmp)) : "dropped silently (NAK already sent)");
		return "out-of-sequence";
	}
	if (nak) {
		snprintf(why, n, "%s", aeth_str(syn, tmp, sizeof(tmp)));
		return "nak";
	}
	if (!o->ntx && !o->ndma && !o->ncqe && !o->neqe && !o->nstate) {
		snprintf(why, n, "no counter moved and the device did nothing visible");
		return "ignored";
	}
	return "accepted";
}

const char *rp_region(const struct rp_setup *s, const struct rp_dev *d, uint64_t iova, char *buf, size_t n)
{
	for (unsigned int i = 0; i < s->nmr; i++) {
		const struct rp_mr *m = &s->mr[i];

		if (iova >= m->iova && iova - m->iova < m->length) {
			snprintf(buf, n, "mr %s va 0x%llx", m->name, (unsigned long long)(m->addr + (iova - m->iova)));
			return buf;
		}
	}
	for (unsigned int i = 0; i < s->ncq; i++)
		if (iova >= s->cq[i].iova && iova - s->cq[i].iova < ((uint64_t)HCA_CQE_SIZE << s->cq[i].log_size)) {
			snprintf(buf, n, "cq %s ring", s->cq[i].name);
			return buf;
		}
	if (iova >= d->eq_iova && iova - d->eq_iova < ((uint64_t)HCA_EQE_SIZE << d->eq_log))
		return "eq ring";
	return "host memory";
}

static const char *qp_name(const struct rp_setup *s, uint32_t qpn)
{
	for (unsigned int i = 0; i < s->nqp; i++)
		if (s->qp[i].qpn == qpn)
			return s->qp[i].name;
	return NULL;
}

/* ---- text ---- */

static void frame_text(FILE *f, const uint8_t *d, size_t len)
{
	struct bth_peek b = peek(d, len);
	struct roce_pkt p;
	const struct roce_opcode_info *info;
	enum roce_drop_reason r;
	char a[64];

	if (!b.ok) {
		fprintf(f, "%s, %zu bytes", b.udp ? "RoCEv2 cut short (no whole BTH)" : "not RoCEv2 (no IPv4/UDP 4791 header)",
			len);
		return;
	}
	fprintf(f, "%s qpn 0x%x psn 0x%x%s", hca_bth_opcode_name(b.opcode), b.dqpn, b.psn, b.ackreq ? " A" : "");
	if (roce_parse_ex(d, len, &p, &r) == ROCE_OK && (info = roce_opcode(p.opcode)) != NULL) {
		if (info->hdrs & ROCE_RETH)
			fprintf(f, " rkey 0x%x va 0x%llx dlen %u", p.reth.rkey, (unsigned long long)p.reth.va,
				p.reth.len);
		if (info->hdrs & ROCE_AETH)
			fprintf(f, " AETH %s (0x%02x) msn %u", aeth_str(p.aeth.syndrome, a, sizeof(a)),
				p.aeth.syndrome, p.aeth.msn);
		if (info->hdrs & ROCE_DETH)
			fprintf(f, " qkey 0x%x src_qp 0x%x", p.deth.qkey, p.deth.src_qp);
		if (info->hdrs & ROCE_PAYLOAD)
			fprintf(f, " payload %u", p.paylen);
	} else {
		fprintf(f, " (codec: %s)", roce_drop_reason_str(r));
	}
	fprintf(f, ", %zu bytes", len);
}

void rp_report_text(FILE *f, const struct rp_setup *s, const struct rp_dev *d, const struct rp_obs *o)
{
	char why[256], reg[96];
	const char *v = rp_verdict(o, why, sizeof(why));

	fprintf(f, "frame %lu at cycle %llu: ", o->index, (unsigned long long)o->cycle);
	frame_text(f, o->in, o->in_len);
	if (o->orig_len > o->in_len)
		fprintf(f, " (captured %zu of %zu)", o->in_len, o->orig_len);
	fprintf(f, "\n  verdict: %s%s%s\n", v, why[0] ? ": " : "", why);
	for (size_t i = 0; i < o->ntx; i++) {
		fprintf(f, "  answer at cycle %llu: ", (unsigned long long)o->tx[i].cycle);
		frame_text(f, o->tx[i].data, o->tx[i].len);
		fputc('\n', f);
	}
	for (size_t i = 0; i < o->ndma; i++)
		fprintf(f, "  dma write: iova 0x%llx, %zu bytes (%s)%s\n", (unsigned long long)o->dma[i].iova,
			o->dma[i].len, rp_region(s, d, o->dma[i].iova, reg, sizeof(reg)),
			o->dma[i].fault ? " REFUSED by the IOMMU" : "");
	for (size_t i = 0; i < o->ncqe; i++) {
		const struct hca_cqe *c = &o->cqe[i].cqe;
		const char *qn = qp_name(s, c->qpn);

		fprintf(f, "  cqe: cq %s: %s %s byte_len %u qpn 0x%x%s%s%s wqe_index %u", s->cq[o->cqe[i].cq].name,
			hca_wc_opcode_name(c->opcode), hca_wc_status_name(c->status), c->byte_len, c->qpn,
			qn ? " (" : "", qn ? qn : "", qn ? ")" : "", c->wqe_index);
		if (c->vendor_err)
			fprintf(f, " vendor_err %u", c->vendor_err);
		if (c->wc_flags & HCA_WC_FLAG_WITH_IMM)
			fprintf(f, " imm 0x%08x", __builtin_bswap32(c->imm_data));
		fputc('\n', f);
	}
	for (size_t i = 0; i < o->neqe; i++)
		fprintf(f, "  event: %s element 0x%x\n",
			o->eqe[i].type == HCA_EQE_TYPE_ASYNC ? hca_event_type_name(o->eqe[i].subtype) : "EQE",
			o->eqe[i].element);
	for (size_t i = 0; i < o->nstate; i++)
		fprintf(f, "  qp %s (0x%x): %s -> %s\n", s->qp[o->state[i].qp].name, s->qp[o->state[i].qp].qpn,
			hca_qp_state_name(o->state[i].from), hca_qp_state_name(o->state[i].to));
	fprintf(f, "  counters:");
	for (unsigned int k = 0; k < HCA_STAT_COUNT; k++)
		if (o->stat[k] && k != HCA_STAT_RX_BYTES && k != HCA_STAT_TX_BYTES)
			fprintf(f, " %s +%u", stat_names[k], o->stat[k]);
	if (o->dma_reads)
		fprintf(f, "; dma reads %llu (%llu bytes%s)", (unsigned long long)o->dma_reads,
			(unsigned long long)o->dma_read_bytes, o->dma_read_faults ? ", some REFUSED" : "");
	fputc('\n', f);
	if (o->busy_at_end)
		fprintf(f, "  note: the engine was still busy when the next frame came; later effects show "
			   "under the next frame (use a larger --spacing)\n");
	if (o->divergence)
		fprintf(f, "  lockstep: DIVERGENCE %s\n", o->divergence);
}

/* ---- JSON ---- */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void frame_json(FILE *f, const uint8_t *d, size_t len, uint64_t cycle)
{
	struct bth_peek b = peek(d, len);
	struct roce_pkt p;
	const struct roce_opcode_info *info;
	enum roce_drop_reason r;

	fprintf(f, "{\"cycle\":%llu,\"len\":%zu", (unsigned long long)cycle, len);
	if (b.ok) {
		fprintf(f, ",\"opcode\":%u,\"opcode_name\":", b.opcode);
		json_str(f, hca_bth_opcode_name(b.opcode));
		fprintf(f, ",\"dqpn\":%u,\"psn\":%u,\"ackreq\":%d", b.dqpn, b.psn, b.ackreq);
	}
	if (roce_parse_ex(d, len, &p, &r) == ROCE_OK && (info = roce_opcode(p.opcode)) != NULL) {
		if (info->hdrs & ROCE_RETH)
			fprintf(f, ",\"rkey\":%u,\"va\":%llu,\"dlen\":%u", p.reth.rkey, (unsigned long long)p.reth.va,
				p.reth.len);
		if (info->hdrs & ROCE_AETH)
			fprintf(f, ",\"syndrome\":%u,\"msn\":%u", p.aeth.syndrome, p.aeth.msn);
		fprintf(f, ",\"paylen\":%u", p.paylen);
	} else {
		fprintf(f, ",\"codec_error\":");
		json_str(f, roce_drop_reason_str(r));
	}
	fputc('}', f);
}

void rp_report_json(FILE *f, const struct rp_setup *s, const struct rp_dev *d, const struct rp_obs *o)
{
	char why[256], reg[96];
	const char *v = rp_verdict(o, why, sizeof(why));
	bool first = true;

	fprintf(f, "{\"frame\":%lu,\"in\":", o->index);
	frame_json(f, o->in, o->in_len, o->cycle);
	fprintf(f, ",\"verdict\":");
	json_str(f, v);
	fprintf(f, ",\"why\":");
	json_str(f, why);
	fprintf(f, ",\"counters\":{");
	for (unsigned int k = 0; k < HCA_STAT_COUNT; k++)
		if (o->stat[k]) {
			fprintf(f, "%s\"%s\":%u", first ? "" : ",", stat_names[k], o->stat[k]);
			first = false;
		}
	fprintf(f, "},\"answers\":[");
	for (size_t i = 0; i < o->ntx; i++) {
		if (i)
			fputc(',', f);
		frame_json(f, o->tx[i].data, o->tx[i].len, o->tx[i].cycle);
	}
	fprintf(f, "],\"dma_writes\":[");
	for (size_t i = 0; i < o->ndma; i++) {
		fprintf(f, "%s{\"iova\":%llu,\"len\":%zu,\"fault\":%s,\"region\":", i ? "," : "",
			(unsigned long long)o->dma[i].iova, o->dma[i].len, o->dma[i].fault ? "true" : "false");
		json_str(f, rp_region(s, d, o->dma[i].iova, reg, sizeof(reg)));
		fputc('}', f);
	}
	fprintf(f, "],\"dma_reads\":%llu,\"cqes\":[", (unsigned long long)o->dma_reads);
	for (size_t i = 0; i < o->ncqe; i++) {
		const struct hca_cqe *c = &o->cqe[i].cqe;

		fprintf(f, "%s{\"cq\":", i ? "," : "");
		json_str(f, s->cq[o->cqe[i].cq].name);
		fprintf(f, ",\"status\":%u,\"status_name\":", c->status);
		json_str(f, hca_wc_status_name(c->status));
		fprintf(f, ",\"opcode\":%u,\"opcode_name\":", c->opcode);
		json_str(f, hca_wc_opcode_name(c->opcode));
		fprintf(f, ",\"byte_len\":%u,\"qpn\":%u,\"src_qp\":%u,\"wqe_index\":%u,\"vendor_err\":%u,"
			   "\"wc_flags\":%u,\"imm_data\":%u}",
			c->byte_len, c->qpn, c->src_qp, c->wqe_index, c->vendor_err, c->wc_flags, c->imm_data);
	}
	fprintf(f, "],\"events\":[");
	for (size_t i = 0; i < o->neqe; i++) {
		fprintf(f, "%s{\"type\":%u,\"name\":", i ? "," : "", o->eqe[i].type);
		json_str(f, o->eqe[i].type == HCA_EQE_TYPE_ASYNC ? hca_event_type_name(o->eqe[i].subtype) : "EQE");
		fprintf(f, ",\"element\":%u}", o->eqe[i].element);
	}
	fprintf(f, "],\"qp_states\":[");
	for (size_t i = 0; i < o->nstate; i++) {
		fprintf(f, "%s{\"qp\":", i ? "," : "");
		json_str(f, s->qp[o->state[i].qp].name);
		fprintf(f, ",\"from\":");
		json_str(f, hca_qp_state_name(o->state[i].from));
		fprintf(f, ",\"to\":");
		json_str(f, hca_qp_state_name(o->state[i].to));
		fputc('}', f);
	}
	fprintf(f, "],\"busy_at_end\":%s", o->busy_at_end ? "true" : "false");
	if (o->divergence) {
		fprintf(f, ",\"divergence\":");
		json_str(f, o->divergence);
	}
	fprintf(f, "}\n");
}
