// SPDX-License-Identifier: MIT
/*
 * Directed fault shapes of the cosimulation regression (sim/regress/faultshape.h).
 */
#include "faultshape.h"

#include <stdlib.h>
#include <string.h>

#include "../../model/roce_hdr.h"

int fs_parse(struct fault_shape *s, const char *key, const char *val)
{
	char *end;
	unsigned long v;

	if (strcmp(key, "last") != 0)
		return 0;
	v = strtoul(val, &end, 10);
	if (!*val || *end || v < 1 || v > 1000000)
		return -1;
	s->last_every = (unsigned int)v;
	return 1;
}

bool fs_active(const struct fault_shape *s)
{
	return s->last_every != 0;
}

static struct fs_flow *flow_of(struct fault_shape *s, unsigned int node, uint32_t dqpn)
{
	for (unsigned int i = 0; i < s->nflow; i++)
		if (s->flow[i].node == node && s->flow[i].dqpn == dqpn)
			return &s->flow[i];
	return NULL;
}

static int filter(void *ctx, unsigned int src, uint8_t *frame, size_t *len, uint64_t now)
{
	struct fault_shape *s = ctx;
	const struct roce_opcode_info *oi;
	struct roce_pkt p;
	struct fs_flow *f;
	bool first;

	(void)now;
	if (roce_parse(frame, *len, &p) != ROCE_OK)
		return TB_PASS;
	oi = roce_opcode(p.opcode);
	if (!oi || (oi->flags & (ROCE_OP_RC | ROCE_OP_REQ)) != (ROCE_OP_RC | ROCE_OP_REQ))
		return TB_PASS;
	f = flow_of(s, src, p.dqpn);
	if (!f) {
		if (s->nflow == FS_MAX_QPS) {
			s->untracked++;
			return TB_PASS;
		}
		f = &s->flow[s->nflow++];
		f->node = src;
		f->dqpn = p.dqpn;
		first = true;
	} else {
		first = roce_psn_cmp(p.psn, f->hi) > 0;
	}
	if (!first)
		return TB_PASS;		/* a resend (go-back-N or the timer's) */
	f->hi = p.psn;
	if (!(oi->flags & ROCE_OP_END) || src >= TB_MAX_NODES || ++s->last_seen[src] % s->last_every)
		return TB_PASS;
	s->dropped++;
	return TB_DROP;
}

void fs_attach(struct tb *tb, struct fault_shape *s)
{
	memset(s->last_seen, 0, sizeof(s->last_seen));
	s->dropped = 0;
	s->nflow = 0;
	s->untracked = 0;
	if (fs_active(s))
		tb_set_filter(tb, filter, s);
}
