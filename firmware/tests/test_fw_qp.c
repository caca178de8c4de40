// SPDX-License-Identifier: MIT
/*
 * QP.MODIFY against the transition table of docs/programming.md 4.6, which
 * this test carries as text (its own oracle, parsed here): every (from, to)
 * pair of every QP type; for each legal one the required attributes alone
 * succeed, dropping any required one fails, each optional one may be added,
 * anything else fails -- EINVAL as ibv_modify_qp returns, with nothing
 * written to the engine.  Plus attribute values, the one-shot QPC flags,
 * what lands in the QPC, and the GSI QP (QPN 1).
 */
#include <string.h>

#include "check.h"
#include "fake_engine.h"
#include "fw.h"
#include "fw_test.h"

static struct fwt T;
static uint32_t CTX, PD, CQ;

/* docs/programming.md 4.6; "->RESET" and "->ERR" from every state are added below. */
static const char *const table[] = {
	"RESET INIT RC R:PKEY_INDEX,PORT,ACCESS_FLAGS",
	"RESET INIT UC R:PKEY_INDEX,PORT,ACCESS_FLAGS",
	"RESET INIT UD R:PKEY_INDEX,PORT,QKEY",
	"INIT INIT RC O:PKEY_INDEX,PORT,ACCESS_FLAGS",
	"INIT INIT UC O:PKEY_INDEX,PORT,ACCESS_FLAGS",
	"INIT INIT UD O:PKEY_INDEX,PORT,QKEY",
	"INIT RTR RC R:AV,PATH_MTU,DEST_QPN,RQ_PSN,MAX_DEST_RD_ATOMIC,MIN_RNR_TIMER O:PKEY_INDEX,ACCESS_FLAGS",
	"INIT RTR UC R:AV,PATH_MTU,DEST_QPN,RQ_PSN O:PKEY_INDEX,ACCESS_FLAGS",
	"INIT RTR UD O:PKEY_INDEX,QKEY",
	"RTR RTS RC R:SQ_PSN,TIMEOUT,RETRY_CNT,RNR_RETRY,MAX_QP_RD_ATOMIC O:ACCESS_FLAGS,MIN_RNR_TIMER",
	"RTR RTS UC R:SQ_PSN O:ACCESS_FLAGS",
	"RTR RTS UD R:SQ_PSN O:QKEY",
	"RTS RTS RC O:ACCESS_FLAGS,MIN_RNR_TIMER",
	"RTS RTS UC O:ACCESS_FLAGS",
	"RTS RTS UD O:QKEY",
	"RTS SQD RC O:EN_SQD_ASYNC_NOTIFY",
	"RTS SQD UC O:EN_SQD_ASYNC_NOTIFY",
	"RTS SQD UD O:EN_SQD_ASYNC_NOTIFY",
	"SQD SQD RC O:ACCESS_FLAGS,MIN_RNR_TIMER,TIMEOUT,RETRY_CNT,RNR_RETRY,MAX_QP_RD_ATOMIC,"
		"MAX_DEST_RD_ATOMIC,PATH_MTU,AV",
	"SQD SQD UC O:ACCESS_FLAGS,AV,PATH_MTU",
	"SQD SQD UD O:QKEY",
	"SQD RTS RC O:ACCESS_FLAGS,MIN_RNR_TIMER",
	"SQD RTS UC O:ACCESS_FLAGS",
	"SQD RTS UD O:QKEY",
	"SQE RTS UC O:ACCESS_FLAGS",
	"SQE RTS UD O:QKEY",
};

/* enum ibv_qp_attr_mask, written out from verbs.h. */
static const struct { const char *name; uint32_t bit; } attr_bits[] = {
	{ "STATE", 1u << 0 }, { "CUR_STATE", 1u << 1 }, { "EN_SQD_ASYNC_NOTIFY", 1u << 2 },
	{ "ACCESS_FLAGS", 1u << 3 }, { "PKEY_INDEX", 1u << 4 }, { "PORT", 1u << 5 }, { "QKEY", 1u << 6 },
	{ "AV", 1u << 7 }, { "PATH_MTU", 1u << 8 }, { "TIMEOUT", 1u << 9 }, { "RETRY_CNT", 1u << 10 },
	{ "RNR_RETRY", 1u << 11 }, { "RQ_PSN", 1u << 12 }, { "MAX_QP_RD_ATOMIC", 1u << 13 },
	{ "ALT_PATH", 1u << 14 }, { "MIN_RNR_TIMER", 1u << 15 }, { "SQ_PSN", 1u << 16 },
	{ "MAX_DEST_RD_ATOMIC", 1u << 17 }, { "PATH_MIG_STATE", 1u << 18 }, { "CAP", 1u << 19 },
	{ "DEST_QPN", 1u << 20 },
};
#define NBITS 21
static const char *const state_names[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };
static const char *const type_names[] = { "RC", "UC", "UD" };
static const uint8_t types[] = { HCA_QPT_RC, HCA_QPT_UC, HCA_QPT_UD };

static int state_of(const char *s, size_t n)
{
	for (int i = 0; i < 7; i++)
		if (strlen(state_names[i]) == n && !strncmp(s, state_names[i], n))
			return i;
	return -1;
}

static uint32_t parse_list(const char *p)
{
	uint32_t m = 0;

	while (*p && *p != ' ') {
		size_t n = strcspn(p, ", ");
		int found = 0;
		for (unsigned int i = 0; i < NBITS; i++)
			if (strlen(attr_bits[i].name) == n && !strncmp(p, attr_bits[i].name, n)) {
				m |= attr_bits[i].bit;
				found = 1;
			}
		CHECK(found, "oracle table: unknown attribute '%.*s'", (int)n, p);
		p += n;
		if (*p == ',')
			p++;
	}
	return m;
}

/* The oracle: is from -> to legal for type t, and with which R/O masks? */
static int oracle(int t, int from, int to, uint32_t *req, uint32_t *opt)
{
	*req = *opt = 0;
	if (to == HCA_QPS_RESET || to == HCA_QPS_ERR)
		return 1;
	for (unsigned int i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const char *p = table[i];
		size_t n1 = strcspn(p, " ");
		const char *q = p + n1 + 1;
		size_t n2 = strcspn(q, " ");
		const char *ty = q + n2 + 1;
		const char *r;

		if (state_of(p, n1) != from || state_of(q, n2) != to || strncmp(ty, type_names[t], 2))
			continue;
		r = strstr(ty, "R:");
		if (r)
			*req = parse_list(r + 2);
		r = strstr(ty, "O:");
		if (r)
			*opt = parse_list(r + 2);
		return 1;
	}
	return 0;
}

static uint32_t QP[3], QPN[3];

static struct hca_qpc *qpc(int t)
{
	return (struct hca_qpc *)fake_engine_ctx(T.eng, HCA_CTX_TYPE_QPC, QPN[t]);
}

/* Put the QP in a state the way the engine would report it. */
static void force_state(int t, int s)
{
	qpc(t)->cur_state = (uint8_t)s;
}

static int modify(int t, int to, uint32_t mask)
{
	struct hca_qp_attr a;

	fwt_qp_attr_valid(&a);
	a.qp_state = (uint8_t)to;
	a.cur_qp_state = qpc(t)->cur_state;
	return fwt_qp_modify(&T, CTX, QP[t], &a, mask);
}

static void transition_matrix(void)
{
	unsigned int legal = 0, illegal = 0;

	for (int t = 0; t < 3; t++) {
		for (int from = 0; from < 7; from++) {
			for (int to = 0; to < 7; to++) {
				uint32_t req, opt, w0, flags;
				char what[96];
				int ok = oracle(t, from, to, &req, &opt), rc;

				snprintf(what, sizeof(what), "%s %s->%s", type_names[t], state_names[from], state_names[to]);
				force_state(t, from);
				w0 = fake_engine_ctx_writes(T.eng, HCA_CTX_TYPE_QPC);
				rc = modify(t, to, HCA_QP_ATTR_STATE | req);
				if (!ok) {
					illegal++;
					CHECK(rc == HCA_EINVAL, "%s: illegal transition gave %d", what, rc);
					/* Even with every attribute some type needs. */
					force_state(t, from);
					rc = modify(t, to, HCA_QP_ATTR_STATE | HCA_QP_ATTR_PKEY_INDEX | HCA_QP_ATTR_PORT |
						    HCA_QP_ATTR_QKEY);
					CHECK(rc == HCA_EINVAL, "%s: illegal transition with attributes gave %d", what, rc);
					CHECK(fake_engine_ctx_writes(T.eng, HCA_CTX_TYPE_QPC) == w0 &&
					      qpc(t)->cur_state == from, "%s: engine written on failure", what);
					continue;
				}
				legal++;
				CHECK(rc == 0, "%s with its required attributes gave %d", what, rc);
				CHECK(qpc(t)->state == to && qpc(t)->cur_state == to, "%s: QPC state", what);
				flags = fake_engine_qpc_flags(T.eng, QPN[t]);
				CHECK(!!(flags & HCA_QPC_FLAGS_RESET_STATE_MASK) ==
				      (to == HCA_QPS_RESET || (from == HCA_QPS_RESET && to == HCA_QPS_INIT)),
				      "%s: RESET_STATE one-shot", what);
				CHECK(!!(flags & HCA_QPC_FLAGS_LOAD_RQ_PSN_MASK) == !!(req & HCA_QP_ATTR_RQ_PSN),
				      "%s: LOAD_RQ_PSN", what);
				CHECK(!!(flags & HCA_QPC_FLAGS_LOAD_SQ_PSN_MASK) == !!(req & HCA_QP_ATTR_SQ_PSN),
				      "%s: LOAD_SQ_PSN", what);
				/* With IBV_QP_CUR_STATE (right and wrong). */
				force_state(t, from);
				CHECK_EQ(modify(t, to, HCA_QP_ATTR_STATE | HCA_QP_ATTR_CUR_STATE | req), 0, what);
				force_state(t, from);
				{
					struct hca_qp_attr a;
					fwt_qp_attr_valid(&a);
					a.qp_state = (uint8_t)to;
					a.cur_qp_state = (uint8_t)((from + 1) % 7);
					CHECK(fwt_qp_modify(&T, CTX, QP[t], &a, HCA_QP_ATTR_STATE | HCA_QP_ATTR_CUR_STATE |
							    req) == HCA_EINVAL, "%s: wrong CUR_STATE accepted", what);
				}
				/* Missing STATE: EINVAL (programming.md: always required). */
				force_state(t, from);
				CHECK(modify(t, to, req) == HCA_EINVAL || (!req && modify(t, to, 0) == HCA_EINVAL),
				      "%s: without IBV_QP_STATE accepted", what);
				for (unsigned int b = 0; b < NBITS; b++) {
					uint32_t bit = attr_bits[b].bit;
					if (bit == HCA_QP_ATTR_STATE || bit == HCA_QP_ATTR_CUR_STATE)
						continue;
					force_state(t, from);
					w0 = fake_engine_ctx_writes(T.eng, HCA_CTX_TYPE_QPC);
					if (req & bit) {
						rc = modify(t, to, (HCA_QP_ATTR_STATE | req) & ~bit);
						CHECK(rc == HCA_EINVAL, "%s without required %s gave %d", what,
						      attr_bits[b].name, rc);
						CHECK(fake_engine_ctx_writes(T.eng, HCA_CTX_TYPE_QPC) == w0,
						      "%s: engine written on failure", what);
					} else if (opt & bit) {
						rc = modify(t, to, HCA_QP_ATTR_STATE | req | bit);
						CHECK(rc == 0, "%s with optional %s gave %d", what, attr_bits[b].name, rc);
					} else {
						rc = modify(t, to, HCA_QP_ATTR_STATE | req | bit);
						CHECK(rc == HCA_EINVAL, "%s with foreign %s gave %d", what,
						      attr_bits[b].name, rc);
						CHECK(fake_engine_ctx_writes(T.eng, HCA_CTX_TYPE_QPC) == w0,
						      "%s: engine written on failure", what);
					}
				}
			}
		}
	}
	/* 3 types x 7 states x 2 (RESET, ERR) + the table's rows. */
	CHECK_EQ(legal, 3 * 7 * 2 + sizeof(table) / sizeof(table[0]) - 0, "legal transitions exercised");
	CHECK_EQ(legal + illegal, 3 * 49, "all pairs");
}

/* fe80::aff:fe00:1, the link-local GID of MAC 02:00:0a:00:00:01 (RFC 4291 modified EUI-64). */
static const uint8_t LINK_LOCAL[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0x0a, 0xff, 0xfe, 0, 0, 1 };

#define RC_INIT_MASK (HCA_QP_ATTR_STATE | HCA_QP_ATTR_PKEY_INDEX | HCA_QP_ATTR_PORT | HCA_QP_ATTR_ACCESS_FLAGS)
#define RC_RTR_MASK (HCA_QP_ATTR_STATE | HCA_QP_ATTR_AV | HCA_QP_ATTR_PATH_MTU | HCA_QP_ATTR_DEST_QPN | \
		     HCA_QP_ATTR_RQ_PSN | HCA_QP_ATTR_MAX_DEST_RD_ATOMIC | HCA_QP_ATTR_MIN_RNR_TIMER)
#define RC_RTS_MASK (HCA_QP_ATTR_STATE | HCA_QP_ATTR_SQ_PSN | HCA_QP_ATTR_TIMEOUT | HCA_QP_ATTR_RETRY_CNT | \
		     HCA_QP_ATTR_RNR_RETRY | HCA_QP_ATTR_MAX_QP_RD_ATOMIC)

static void bad_value(int from, int to, uint32_t mask, struct hca_qp_attr *a, const char *what)
{
	uint8_t before[HCA_QPC_SIZE];
	struct hca_qp_attr q0, q1;

	force_state(0, from);
	memcpy(before, qpc(0), sizeof(before));
	CHECK_EQ(fwt_qp_query(&T, CTX, QP[0], &q0, NULL), 0, "query before");
	a->qp_state = (uint8_t)to;
	CHECK(fwt_qp_modify(&T, CTX, QP[0], a, mask) == HCA_EINVAL, "%s accepted", what);
	CHECK(!memcmp(before, qpc(0), sizeof(before)), "%s: QPC changed", what);
	CHECK_EQ(fwt_qp_query(&T, CTX, QP[0], &q1, NULL), 0, "query after");
	CHECK(!memcmp(&q0, &q1, sizeof(q0)), "%s: attributes changed", what);
}

#define TRY(from, to, mask, field_expr, what)                 \
	do {                                                  \
		struct hca_qp_attr a_;                         \
		fwt_qp_attr_valid(&a_);                        \
		{ struct hca_qp_attr *a = &a_; field_expr; }  \
		bad_value(from, to, mask, &a_, what);          \
	} while (0)

static void value_checks(void)
{
	TRY(0, 1, RC_INIT_MASK, a->port_num = 2, "port 2");
	TRY(0, 1, RC_INIT_MASK, a->port_num = 0, "port 0");
	TRY(0, 1, RC_INIT_MASK, a->pkey_index = 1, "pkey_index 1");
	TRY(0, 1, RC_INIT_MASK, a->qp_access_flags = 0x10, "access flag 0x10");
	TRY(1, 2, RC_RTR_MASK, a->path_mtu = 0, "path_mtu 0");
	TRY(1, 2, RC_RTR_MASK, a->path_mtu = 6, "path_mtu 6");
	TRY(1, 2, RC_RTR_MASK, a->is_global = 0, "AV without GRH");
	TRY(1, 2, RC_RTR_MASK, a->sgid_index = HCA_CAP_GID_TBL_LEN, "sgid_index beyond the table");
	TRY(1, 2, RC_RTR_MASK, a->sgid_index = 5, "sgid_index of an empty entry");
	/* RoCEv2 over IPv6 does not exist yet: the engine would make IPv4 addresses of the GIDs. */
	TRY(1, 2, RC_RTR_MASK, a->sgid_index = 1, "IPv6 source GID");
	TRY(1, 2, RC_RTR_MASK, memcpy(a->dgid, LINK_LOCAL, 16), "IPv6 destination GID");
	TRY(1, 2, RC_RTR_MASK, a->dgid[10] = 0, "destination GID ::a00:2 (not IPv4-mapped)");
	TRY(1, 2, RC_RTR_MASK, a->dest_qp_num = 1u << 24, "dest_qpn 2^24");
	TRY(1, 2, RC_RTR_MASK, a->rq_psn = 1u << 24, "rq_psn 2^24");
	TRY(1, 2, RC_RTR_MASK, a->max_dest_rd_atomic = HCA_CAP_MAX_RD_ATOMIC + 1, "max_dest_rd_atomic");
	TRY(1, 2, RC_RTR_MASK, a->min_rnr_timer = 32, "min_rnr_timer 32");
	TRY(2, 3, RC_RTS_MASK, a->timeout = 32, "timeout 32");
	TRY(2, 3, RC_RTS_MASK, a->retry_cnt = 8, "retry_cnt 8");
	TRY(2, 3, RC_RTS_MASK, a->rnr_retry = 8, "rnr_retry 8");
	TRY(2, 3, RC_RTS_MASK, a->max_rd_atomic = HCA_CAP_MAX_RD_ATOMIC + 1, "max_rd_atomic");
	TRY(2, 3, RC_RTS_MASK, a->sq_psn = 1u << 24, "sq_psn 2^24");
	TRY(3, 4, HCA_QP_ATTR_STATE | HCA_QP_ATTR_EN_SQD_ASYNC_NOTIFY, a->en_sqd_async_notify = 2,
	    "en_sqd_async_notify 2");
	TRY(0, 1, RC_INIT_MASK | (1u << 21), (void)a, "unknown mask bit 21");
	TRY(0, 7, RC_INIT_MASK, (void)a, "target state 7");
	/* Limits are inclusive. */
	{
		struct hca_qp_attr a;
		fwt_qp_attr_valid(&a);
		a.timeout = 31;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = HCA_CAP_MAX_RD_ATOMIC;
		a.sq_psn = 0xffffff;
		a.qp_state = HCA_QPS_RTS;
		force_state(0, HCA_QPS_RTR);
		CHECK_EQ(fwt_qp_modify(&T, CTX, QP[0], &a, RC_RTS_MASK), 0, "limit values accepted");
	}
}

/* A walk RESET -> INIT -> RTR -> RTS: what lands in the QPC, what QUERY says. */
static void walk(void)
{
	struct hca_qp_attr a, q;
	const struct hca_qpc *c = qpc(0);

	force_state(0, HCA_QPS_RESET);
	fwt_qp_attr_valid(&a);
	a.qp_state = HCA_QPS_INIT;
	a.qp_access_flags = HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_LOCAL_WRITE;
	CHECK_EQ(fwt_qp_modify(&T, CTX, QP[0], &a, RC_INIT_MASK), 0, "INIT");
	CHECK(c->access_flags == (HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_LOCAL_WRITE) && c->port_num == 1,
	      "INIT fields");
	a.qp_state = HCA_QPS_RTR;
	a.dest_qp_num = 0xabcdef;
	a.rq_psn = 0x123456;
	a.path_mtu = HCA_MTU_2048;
	a.hop_limit = 7;
	a.traffic_class = 0x28;
	a.flow_label = 0x12345;
	a.max_dest_rd_atomic = 3;
	a.min_rnr_timer = 9;
	a.dmac[1] = 0x77;
	CHECK_EQ(fwt_qp_modify(&T, CTX, QP[0], &a, RC_RTR_MASK), 0, "RTR");
	CHECK(c->dest_qpn == 0xabcdef && c->rq_psn == 0x123456 && c->path_mtu == HCA_MTU_2048 &&
	      c->hop_limit == 7 && c->traffic_class == 0x28 && c->flow_label == 0x12345 &&
	      c->max_dest_rd_atomic == 3 && c->min_rnr_timer == 9 && !memcmp(c->dgid, a.dgid, 16) &&
	      !memcmp(c->dmac, a.dmac, 6) && c->sgid_index == 0, "RTR fields in the QPC");
	CHECK_EQ(c->rq_psn_expected, 0x123456, "engine loaded the RQ PSN");
	a.qp_state = HCA_QPS_RTS;
	a.sq_psn = 0x654321;
	a.timeout = 17;
	a.retry_cnt = 5;
	a.rnr_retry = 6;
	a.max_rd_atomic = 2;
	CHECK_EQ(fwt_qp_modify(&T, CTX, QP[0], &a, RC_RTS_MASK), 0, "RTS");
	CHECK(c->sq_psn == 0x654321 && c->timeout == 17 && c->retry_cnt == 5 && c->rnr_retry == 6 &&
	      c->max_rd_atomic == 2 && c->dest_qpn == 0xabcdef, "RTS fields, RTR fields kept");
	((struct hca_qpc *)c)->sq_psn_next = 0x654399;	/* the engine sent some packets */
	CHECK_EQ(fwt_qp_query(&T, CTX, QP[0], &q, NULL), 0, "query");
	CHECK(q.qp_state == HCA_QPS_RTS && q.sq_psn == 0x654399 && q.rq_psn == 0x123456 &&
	      q.dest_qp_num == 0xabcdef && q.path_mtu == HCA_MTU_2048 && q.timeout == 17 &&
	      q.max_rd_atomic == 2 && q.max_dest_rd_atomic == 3 && q.is_global == 1 &&
	      q.qp_access_flags == (HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_LOCAL_WRITE), "QUERY after the walk");
	/* To RESET: RESET_STATE, the engine forgets; back to INIT works. */
	a.qp_state = HCA_QPS_RESET;
	CHECK_EQ(fwt_qp_modify(&T, CTX, QP[0], &a, HCA_QP_ATTR_STATE), 0, "RESET");
	CHECK(fake_engine_qpc_flags(T.eng, QPN[0]) & HCA_QPC_FLAGS_RESET_STATE_MASK, "RESET_STATE");
}

/*
 * The GSI QP (QP1, IB spec 13.4.6.1): QP.CREATE of type GSI places it at
 * QPN 1, once per device; the engine gets a UD context; its Q_Key can only
 * be the well-known 0x80010000; ordinary QPs never get QPN 1.
 */
#define UD_INIT_MASK (HCA_QP_ATTR_STATE | HCA_QP_ATTR_PKEY_INDEX | HCA_QP_ATTR_PORT | HCA_QP_ATTR_QKEY)

static void gsi(void)
{
	struct hca_qp_init_attr ia;
	struct hca_qp_attr a, q;
	const struct hca_qpc *c;
	uint32_t gsi, gsin = 0, again, againn, ud, udn = 0;

	for (int t = 0; t < 3; t++)
		CHECK(QPN[t] != 1, "%s QP did not get QPN 1", type_names[t]);
	fwt_qp_init(&T, &ia, HCA_QPT_GSI, 0);
	CHECK_EQ(fwt_qp_create(&T, CTX, PD, CQ, CQ, 0, &ia, &gsi, &gsin), 0, "GSI QP created");
	CHECK_EQ(gsin, 1, "GSI QP is QPN 1");
	fwt_qp_init(&T, &ia, HCA_QPT_GSI, 0);
	CHECK_EQ(fwt_qp_create(&T, CTX, PD, CQ, CQ, 0, &ia, &again, &againn), HCA_EBUSY, "second GSI QP");
	fwt_qp_init(&T, &ia, HCA_QPT_UD, 0);
	CHECK_EQ(fwt_qp_create(&T, CTX, PD, CQ, CQ, 0, &ia, &ud, &udn), 0, "UD QP next to it");
	CHECK(udn > 1, "UD QP is not QPN 1 (%u)", udn);
	c = (const struct hca_qpc *)fake_engine_ctx(T.eng, HCA_CTX_TYPE_QPC, 1);
	CHECK(c && c->qp_type == HCA_QPT_UD, "engine sees QP1 as UD");
	fwt_qp_attr_valid(&a);
	a.qp_state = HCA_QPS_INIT;
	a.qkey = 0x11111111;
	CHECK_EQ(fwt_qp_modify(&T, CTX, gsi, &a, UD_INIT_MASK), HCA_EINVAL, "QP1 with another Q_Key");
	a.qkey = HCA_GSI_QKEY;
	CHECK_EQ(fwt_qp_modify(&T, CTX, gsi, &a, UD_INIT_MASK), 0, "QP1 to INIT (UD rules)");
	CHECK(c->qkey == HCA_GSI_QKEY && c->state == HCA_QPS_INIT, "QP1 context: Q_Key and state");
	a.qp_state = HCA_QPS_RTR;
	CHECK_EQ(fwt_qp_modify(&T, CTX, gsi, &a, HCA_QP_ATTR_STATE), 0, "QP1 to RTR");
	a.qp_state = HCA_QPS_RTS;
	CHECK_EQ(fwt_qp_modify(&T, CTX, gsi, &a, HCA_QP_ATTR_STATE | HCA_QP_ATTR_SQ_PSN), 0, "QP1 to RTS");
	CHECK_EQ(fwt_qp_query(&T, CTX, gsi, &q, &ia), 0, "QP1 query");
	CHECK(q.qkey == HCA_GSI_QKEY && ia.qp_type == HCA_QPT_GSI, "QP1 query: Q_Key, type GSI");
	CHECK_EQ(fwt_destroy(&T, CTX, HCA_OBJ_QP, HCA_METHOD_QP_DESTROY, gsi), 0, "QP1 destroyed");
	fwt_qp_init(&T, &ia, HCA_QPT_GSI, 0);
	CHECK_EQ(fwt_qp_create(&T, CTX, PD, CQ, CQ, 0, &ia, &gsi, &gsin), 0, "GSI QP again");
	CHECK_EQ(gsin, 1, "QPN 1 again");
	CHECK_EQ(hca_fw_check(T.fw), 0, "bookkeeping with QP1");
	CHECK_EQ(fwt_destroy(&T, CTX, HCA_OBJ_QP, HCA_METHOD_QP_DESTROY, gsi), 0, "QP1 destroyed");
	CHECK_EQ(fwt_destroy(&T, CTX, HCA_OBJ_QP, HCA_METHOD_QP_DESTROY, ud), 0, "UD QP destroyed");
}

int main(void)
{
	struct hca_qp_init_attr ia;
	uint8_t gid[4] = { 10, 0, 0, 1 };

	setvbuf(stdout, NULL, _IONBF, 0);
	fake_engine_register();
	CHECK_EQ(fwt_open(&T, "fake", NULL), 0, "open");
	CHECK_EQ(fwt_ctx_alloc(&T, &CTX, NULL), 0, "context");
	CHECK_EQ(fwt_pd_alloc(&T, CTX, &PD, NULL), 0, "PD");
	CHECK_EQ(fwt_cq_create(&T, CTX, 0, 6, &CQ, NULL), 0, "CQ");
	CHECK_EQ(fwt_set_gid(&T, 0, 0, gid), 0, "GID 0");
	CHECK_EQ(fwt_set_gid(&T, 1, 1, LINK_LOCAL), 0, "GID 1: IPv6 link-local");
	for (int t = 0; t < 3; t++) {
		fwt_qp_init(&T, &ia, types[t], 0);
		CHECK_EQ(fwt_qp_create(&T, CTX, PD, CQ, CQ, 0, &ia, &QP[t], &QPN[t]), 0, "QP");
	}
	transition_matrix();
	value_checks();
	walk();
	gsi();
	CHECK_EQ(hca_fw_check(T.fw), 0, "bookkeeping");
	fwt_close(&T);
	return check_done();
}
