// SPDX-License-Identifier: MIT
/*
 * Receive-path bugs of model-mutant (sim/lockstep_mutant_rx.h).
 */
#include <string.h>

#include "lockstep_mutant_rx.h"
#include "hcasim/hca_spec.h"
#include "../model/roce_hdr.h"

void mrx_snoop(struct mrx *t, const struct hca_engine_ops *ops, struct hca_engine *e, uint32_t addr,
	       uint32_t value)
{
	uint32_t w[HCA_MGMT_CTX_DATA_WORDS], idx;
	struct hca_mrc c;

	if (addr == HCA_MGMT_ENGINE_CTRL && (value & HCA_MGMT_ENGINE_CTRL_RESET_MASK)) {
		memset(t, 0, sizeof(*t));
		return;
	}
	if (addr != HCA_MGMT_CTX_CMD || HCA_FIELD_GET(value, HCA_MGMT_CTX_CMD_OP) != HCA_CTX_OP_WRITE ||
	    HCA_FIELD_GET(value, HCA_MGMT_CTX_CMD_TYPE) != HCA_CTX_TYPE_MRC ||
	    ops->mgmt_read(e, HCA_MGMT_CTX_STATUS) != HCA_MGMT_STATUS_OK)
		return;
	idx = (uint32_t)HCA_FIELD_GET(value, HCA_MGMT_CTX_CMD_INDEX);
	if (idx >= MRX_NUM_MR)
		return;
	for (unsigned int i = 0; i < HCA_MGMT_CTX_DATA_WORDS; i++)
		w[i] = ops->mgmt_read(e, HCA_MGMT_CTX_DATA + 4 * i);
	memcpy(&c, w, sizeof(c));
	t->mr[idx].valid = c.valid;
	t->mr[idx].key = c.key;
	t->mr[idx].access = c.access;
	t->mr[idx].va = c.va;
	t->mr[idx].len = c.length;
}

static bool fix_icrc(uint8_t *f, size_t len)
{
	size_t end;
	uint32_t c, old;

	if (len < 58 || f[12] != 0x08 || f[13] != 0x00 || f[23] != 17 ||
	    ((unsigned int)f[36] << 8 | f[37]) != HCA_WIRE_UDP_DPORT)
		return false;
	end = 14 + ((size_t)f[16] << 8 | f[17]) - 4;
	if (end + 4 > len || end < 54)
		return false;
	c = roce_icrc(f, end);
	old = (uint32_t)f[end] | (uint32_t)f[end + 1] << 8 | (uint32_t)f[end + 2] << 16 | (uint32_t)f[end + 3] << 24;
	f[end] = (uint8_t)c;
	f[end + 1] = (uint8_t)(c >> 8);
	f[end + 2] = (uint8_t)(c >> 16);
	f[end + 3] = (uint8_t)(c >> 24);
	return old != c;
}

bool mrx_skip_icrc_check(uint8_t *f, size_t len)
{
	return fix_icrc(f, len);
}

bool mrx_skip_rkey_check(const struct mrx *t, uint8_t *f, size_t len)
{
	const struct roce_opcode_info *oi;
	struct roce_pkt p;
	uint32_t rkey, idx;
	uint64_t va, n;
	size_t off = 54;	/* RETH / AtomicETH right after the BTH (RC, UC) */

	if (roce_parse(f, len, &p) != ROCE_OK || !(oi = roce_opcode(p.opcode)) ||
	    !(oi->hdrs & (ROCE_RETH | ROCE_ATMETH)))
		return false;
	rkey = oi->hdrs & ROCE_RETH ? p.reth.rkey : p.atmeth.rkey;
	va = oi->hdrs & ROCE_RETH ? p.reth.va : p.atmeth.va;
	n = oi->hdrs & ROCE_RETH ? p.reth.len : 8;
	idx = rkey >> 8;
	if (idx < MRX_NUM_MR && t->mr[idx].valid && t->mr[idx].key == (rkey & 0xff))
		return false;	/* a valid key: nothing to skip */
	for (uint32_t i = 1; i < MRX_NUM_MR; i++) {
		const struct mrx_mr *m = &t->mr[i];

		if (!m->valid || !(m->access & HCA_ACCESS_REMOTE_WRITE) || va < m->va || va - m->va > m->len ||
		    n > m->len - (va - m->va))
			continue;
		rkey = i << 8 | m->key;
		f[off + 8] = (uint8_t)(rkey >> 24);
		f[off + 9] = (uint8_t)(rkey >> 16);
		f[off + 10] = (uint8_t)(rkey >> 8);
		f[off + 11] = (uint8_t)rkey;
		fix_icrc(f, len);
		return true;
	}
	return false;
}
