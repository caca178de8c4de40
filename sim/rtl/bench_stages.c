// SPDX-License-Identifier: MIT
/* make bench-rtl: the doorbell -> wire stage breakdown; see bench_stages.h. */
#include "bench_stages.h"

#include <stdio.h>

void bench_stages_arm(struct bench_stages *s, uint64_t db, uint64_t sq_base, uint64_t sq_len, uint64_t pay_base,
		      uint64_t pay_len)
{
	*s = (struct bench_stages){ .db = db, .wqe_req = STAGE_NONE, .wqe_cpl = STAGE_NONE, .pay_req = STAGE_NONE,
				    .pay_cpl = STAGE_NONE, .tx_first = STAGE_NONE, .tx_last = STAGE_NONE,
				    .on = true, .sq_base = sq_base, .sq_len = sq_len, .pay_base = pay_base,
				    .pay_len = pay_len };
}

static bool in_range(uint64_t a, uint64_t base, uint64_t len)
{
	return a >= base && a - base < len;
}

void bench_stages_event(void *ctx, const struct rtl_event *ev)
{
	struct bench_stages *s = ctx;

	if (!s->on)
		return;
	switch (ev->kind) {
	case RTL_EV_DMA_RD_REQ:
		if (s->wqe_req == STAGE_NONE && in_range(ev->addr, s->sq_base, s->sq_len)) {
			s->wqe_req = ev->cycle;
			s->wqe_tag = ev->tag;
		} else if (s->pay_req == STAGE_NONE && in_range(ev->addr, s->pay_base, s->pay_len)) {
			s->pay_req = ev->cycle;
			s->pay_tag = ev->tag;
		}
		break;
	case RTL_EV_DMA_RD_CPL:
		if (s->wqe_req != STAGE_NONE && s->wqe_cpl == STAGE_NONE && ev->tag == s->wqe_tag)
			s->wqe_cpl = ev->cycle;
		else if (s->pay_req != STAGE_NONE && s->pay_cpl == STAGE_NONE && ev->tag == s->pay_tag)
			s->pay_cpl = ev->cycle;
		break;
	case RTL_EV_TX_FIRST:
		if (s->tx_first == STAGE_NONE)
			s->tx_first = ev->cycle;
		break;
	case RTL_EV_TX_LAST:
		if (s->tx_first != STAGE_NONE && s->tx_last == STAGE_NONE)
			s->tx_last = ev->cycle;
		break;
	}
}

bool bench_stages_complete(const struct bench_stages *s)
{
	return s->wqe_req != STAGE_NONE && s->wqe_cpl != STAGE_NONE && s->pay_req != STAGE_NONE &&
	       s->pay_cpl != STAGE_NONE && s->tx_first != STAGE_NONE && s->tx_last != STAGE_NONE &&
	       s->wqe_req >= s->db && s->wqe_cpl > s->wqe_req && s->pay_req > s->wqe_cpl && s->pay_cpl > s->pay_req &&
	       s->tx_last >= s->tx_first;
}

/* b - a as signed text, "-" when either was not seen. */
static const char *span(char *buf, size_t cap, uint64_t a, uint64_t b)
{
	if (a == STAGE_NONE || b == STAGE_NONE)
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%lld", (long long)(b - a));
	return buf;
}

/*
 * Columns: doorbell -> WQE read request, the WQE read, -> the first payload
 * read request, that read, -> the first beat; db->wire; "engine": db->wire
 * without the two reads (issue 12's "+ 12"); "frame": the first frame's
 * beats, first to last inclusive.
 */
void bench_stages_header(void)
{
	printf("  doorbell -> first wire byte, by stage (cycles between events at the harness boundary):\n");
	printf("  %-7s : %7s %7s %8s %7s %7s | %8s %7s | %5s\n", "size", "db->WQE", "WQE rd", "->pay rd", "pay rd",
	       "->beat", "db->wire", "engine", "frame");
}

void bench_stages_row(const char *label, const struct bench_stages *s)
{
	char c[8][24];
	uint64_t reads = STAGE_NONE;

	if (s->wqe_cpl != STAGE_NONE && s->pay_cpl != STAGE_NONE)
		reads = (s->wqe_cpl - s->wqe_req) + (s->pay_cpl - s->pay_req);
	printf("  %-7s : %7s %7s %8s %7s %7s | %8s %7s | %5s\n", label, span(c[0], sizeof(c[0]), s->db, s->wqe_req),
	       span(c[1], sizeof(c[1]), s->wqe_req, s->wqe_cpl), span(c[2], sizeof(c[2]), s->wqe_cpl, s->pay_req),
	       span(c[3], sizeof(c[3]), s->pay_req, s->pay_cpl), span(c[4], sizeof(c[4]), s->pay_cpl, s->tx_first),
	       span(c[5], sizeof(c[5]), s->db, s->tx_first),
	       reads == STAGE_NONE || s->tx_first == STAGE_NONE ? "-"
								 : span(c[6], sizeof(c[6]), reads, s->tx_first - s->db),
	       s->tx_last == STAGE_NONE ? "-" : span(c[7], sizeof(c[7]), s->tx_first, s->tx_last + 1));
}
