// SPDX-License-Identifier: MIT
/*
 * The replay setup file (docs/replay.md has the reference): the style of the
 * shim's config (driver-shim/config.c) -- `key = value` lines, `#` comments,
 * global keys first, then one section per object:
 *
 *     mac = 02:00:0a:00:00:02        # device port MAC (default 02:00:<ip>)
 *     ip  = 10.0.0.2                 # device IPv4 address (GID index 1)
 *     [pd pd0]
 *     [mr buf]   pd, addr, length, access, rkey, fill, data
 *     [cq cq0]   entries
 *     [qp qp0]   type, pd, send_cq, recv_cq, qpn, state, remote_mac,
 *                remote_ip, dest_qpn, rq_psn, sq_psn, path_mtu, access,
 *                qkey, max_dest_rd_atomic, max_rd_atomic, min_rnr_timer,
 *                timeout, retry_cnt, rnr_retry, hop_limit, traffic_class,
 *                max_send_wr, max_recv_wr, max_recv_sge,
 *                recv = MR ADDR LEN [MR ADDR LEN ...]   (one receive WQE)
 *
 * An object refers to others by name, defined above it.  Every error names
 * the file and line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../driver-shim/config.h"
#include "replay.h"

enum sect { S_GLOBAL, S_PD, S_MR, S_CQ, S_QP };

struct parser {
	struct rp_setup *s;
	const char *origin;
	unsigned int line;
	enum sect sect;
	char *err;
	size_t errlen;
};

static int fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parser *p, const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->line)
		snprintf(p->err, p->errlen, "%s:%u: %s", p->origin, p->line, msg);
	else
		snprintf(p->err, p->errlen, "%s: %s", p->origin, msg);
	return -EINVAL;
}

/* An unsigned number no larger than max, or an error naming the key. */
static int num(struct parser *p, const char *k, const char *v, uint64_t max, uint64_t *out)
{
	if (shim_parse_u64(v, out) || *out > max)
		return fail(p, "%s wants a number 0..%llu, got \"%s\"", k, (unsigned long long)max, v);
	return 0;
}

static int num32(struct parser *p, const char *k, const char *v, uint64_t max, uint32_t *out)
{
	uint64_t x;
	int rc = num(p, k, v, max, &x);

	*out = (uint32_t)x;
	return rc;
}

static const struct {
	const char *name;
	uint32_t bit;
} access_names[] = {
	{ "local_write", HCA_ACCESS_LOCAL_WRITE },
	{ "remote_write", HCA_ACCESS_REMOTE_WRITE },
	{ "remote_read", HCA_ACCESS_REMOTE_READ },
	{ "remote_atomic", HCA_ACCESS_REMOTE_ATOMIC },
};

const char *rp_access_str(uint32_t access, char *buf, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(access_names) / sizeof(access_names[0]); i++)
		if (access & access_names[i].bit)
			used += (size_t)snprintf(buf + used, used < n ? n - used : 0, "%s%s", used ? "," : "",
						 access_names[i].name);
	if (!buf[0])
		snprintf(buf, n, "none");
	return buf;
}

/* "local_write,remote_write" (also '|' or spaces between names), "none" or a number. */
static int parse_access(struct parser *p, const char *v, uint32_t *out)
{
	char tmp[128], *save = NULL, *tok;
	uint64_t x;

	if (!shim_parse_u64(v, &x)) {
		if (x & ~(uint64_t)0xf)
			return fail(p, "access bits beyond 0xf: \"%s\"", v);
		*out = (uint32_t)x;
		return 0;
	}
	if (strlen(v) >= sizeof(tmp))
		return fail(p, "access list too long");
	strcpy(tmp, v);
	*out = 0;
	for (tok = strtok_r(tmp, ",| \t", &save); tok; tok = strtok_r(NULL, ",| \t", &save)) {
		size_t i, n = sizeof(access_names) / sizeof(access_names[0]);

		if (!strcmp(tok, "none"))
			continue;
		for (i = 0; i < n && strcmp(tok, access_names[i].name); i++)
			;
		if (i == n)
			return fail(p, "unknown access flag \"%s\" (local_write, remote_write, remote_read, "
				       "remote_atomic, none)", tok);
		*out |= access_names[i].bit;
	}
	return 0;
}

static int parse_hex(struct parser *p, const char *v, uint8_t **out, size_t *len)
{
	size_t n = 0, cap = strlen(v) / 2 + 1;
	uint8_t *b = malloc(cap);

	if (!b)
		return fail(p, "out of memory");
	while (*v) {
		unsigned int x;

		if (isspace((unsigned char)*v) || *v == ':') {
			v++;
			continue;
		}
		if (!isxdigit((unsigned char)v[0]) || !isxdigit((unsigned char)v[1]) || sscanf(v, "%2x", &x) != 1) {
			free(b);
			return fail(p, "data wants hex bytes (\"0011aabb\"), got \"%.20s\"", v);
		}
		b[n++] = (uint8_t)x;
		v += 2;
	}
	if (n > RP_MAX_DATA) {
		free(b);
		return fail(p, "data longer than %d bytes", RP_MAX_DATA);
	}
	free(*out);
	*out = b;
	*len = n;
	return 0;
}

/* Index of the object called `name` in an array of n objects whose first member is their
 * name (struct rp_pd, rp_mr, rp_cq, rp_qp), or -1. */
static int find(const void *arr, size_t stride, unsigned int n, const char *name)
{
	for (unsigned int i = 0; i < n; i++)
		if (!strcmp((const char *)arr + i * stride, name))
			return (int)i;
	return -1;
}
#define FIND(arr, n, nm) find((arr), sizeof((arr)[0]), (n), (nm))

static int ref(struct parser *p, const char *kind, int idx, const char *name, int *out)
{
	if (idx < 0)
		return fail(p, "%s \"%s\" is not defined above", kind, name);
	*out = idx;
	return 0;
}

static int global_key(struct parser *p, const char *k, const char *v)
{
	struct rp_setup *s = p->s;

	if (!strcmp(k, "mac")) {
		if (shim_parse_mac(v, s->mac) || (s->mac[0] & 1))
			return fail(p, "mac wants a unicast aa:bb:cc:dd:ee:ff, got \"%s\"", v);
		s->have_mac = true;
		return 0;
	}
	if (!strcmp(k, "ip")) {
		if (shim_parse_ipv4(v, &s->ip) || !s->ip)
			return fail(p, "ip wants an IPv4 address, got \"%s\"", v);
		return 0;
	}
	return fail(p, "unknown key \"%s\" before the first [section] (mac, ip)", k);
}

static int mr_key(struct parser *p, struct rp_mr *m, const char *k, const char *v)
{
	struct rp_setup *s = p->s;
	uint64_t x;

	if (!strcmp(k, "pd"))
		return ref(p, "pd", FIND(s->pd, s->npd, v), v, &m->pd);
	if (!strcmp(k, "addr"))
		return num(p, k, v, UINT64_MAX, &m->addr);
	if (!strcmp(k, "length")) {
		if (num(p, k, v, 1ull << 30, &m->length) || !m->length)
			return fail(p, "length wants 1..%llu bytes, got \"%s\"", 1ull << 30, v);
		return 0;
	}
	if (!strcmp(k, "access"))
		return parse_access(p, v, &m->access);
	if (!strcmp(k, "rkey") || !strcmp(k, "lkey")) {
		m->have_rkey = true;
		return num32(p, k, v, UINT32_MAX, &m->rkey);
	}
	if (!strcmp(k, "fill")) {
		if (num(p, k, v, 255, &x))
			return -EINVAL;
		m->fill = (int)x;
		return 0;
	}
	if (!strcmp(k, "data"))
		return parse_hex(p, v, &m->data, &m->data_len);
	return fail(p, "unknown key \"%s\" in [mr %s] (pd, addr, length, access, rkey, fill, data)", k,
		    m->name);
}

static int mtu_code(struct parser *p, const char *v, uint8_t *out)
{
	static const unsigned int sizes[] = { 256, 512, 1024, 2048, 4096 };
	uint64_t x;

	if (!shim_parse_u64(v, &x))
		for (unsigned int i = 0; i < 5; i++)
			if (x == sizes[i]) {
				*out = (uint8_t)(HCA_MTU_256 + i);
				return 0;
			}
	return fail(p, "path_mtu wants 256, 512, 1024, 2048 or 4096, got \"%s\"", v);
}

static int parse_recv(struct parser *p, int qp, const char *v)
{
	struct rp_setup *s = p->s;
	struct rp_recv *r;
	char tmp[512], *save = NULL, *tok[3 * RP_MAX_SGE + 1];
	unsigned int n = 0;

	if (s->nrecv >= RP_MAX_RECV)
		return fail(p, "more than %d receive WQEs", RP_MAX_RECV);
	if (strlen(v) >= sizeof(tmp))
		return fail(p, "recv line too long");
	strcpy(tmp, v);
	for (char *t = strtok_r(tmp, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
		if (n == 3 * RP_MAX_SGE)
			return fail(p, "recv takes at most %d scatter entries", RP_MAX_SGE);
		tok[n++] = t;
	}
	if (!n || n % 3)
		return fail(p, "recv wants \"MR ADDR LEN\" per scatter entry, got \"%s\"", v);
	r = &s->recv[s->nrecv];
	memset(r, 0, sizeof(*r));
	r->qp = qp;
	r->line = p->line;
	for (unsigned int i = 0; i < n / 3; i++) {
		struct rp_sge *g = &r->sge[i];

		if (ref(p, "mr", FIND(s->mr, s->nmr, tok[3 * i]), tok[3 * i], &g->mr) ||
		    num(p, "recv address", tok[3 * i + 1], UINT64_MAX, &g->addr) ||
		    num32(p, "recv length", tok[3 * i + 2], UINT32_MAX, &g->len))
			return -EINVAL;
	}
	r->num_sge = n / 3;
	s->nrecv++;
	return 0;
}

/* The numeric ibv_modify_qp attributes a [qp] section may set, with their IB ranges. */
#define QP_NUM(name, max) { #name, offsetof(struct hca_qp_attr, name), sizeof(((struct hca_qp_attr *)0)->name), max }
static const struct {
	const char *key;
	size_t off;
	uint8_t size;
	uint64_t max;
} qp_nums[] = {
	QP_NUM(rq_psn, 0xffffff),	  QP_NUM(sq_psn, 0xffffff),	QP_NUM(qkey, UINT32_MAX),
	QP_NUM(max_dest_rd_atomic, 255), QP_NUM(max_rd_atomic, 255),	QP_NUM(min_rnr_timer, 31),
	QP_NUM(timeout, 31),		  QP_NUM(retry_cnt, 7),		QP_NUM(rnr_retry, 7),
	QP_NUM(hop_limit, 255),		  QP_NUM(traffic_class, 255),
};
#undef QP_NUM

static int qp_key(struct parser *p, struct rp_qp *q, const char *k, const char *v)
{
	struct rp_setup *s = p->s;
	struct hca_qp_attr *a = &q->attr;
	uint32_t ip;

	if (!strcmp(k, "type")) {
		if (!strcmp(v, "rc") || !strcmp(v, "RC"))
			q->type = HCA_QPT_RC;
		else if (!strcmp(v, "uc") || !strcmp(v, "UC"))
			q->type = HCA_QPT_UC;
		else if (!strcmp(v, "ud") || !strcmp(v, "UD"))
			q->type = HCA_QPT_UD;
		else
			return fail(p, "type wants rc, uc or ud, got \"%s\"", v);
		return 0;
	}
	if (!strcmp(k, "state")) {
		if (!strcasecmp(v, "init"))
			q->state = HCA_QPS_INIT;
		else if (!strcasecmp(v, "rtr"))
			q->state = HCA_QPS_RTR;
		else if (!strcasecmp(v, "rts"))
			q->state = HCA_QPS_RTS;
		else
			return fail(p, "state wants init, rtr or rts, got \"%s\"", v);
		return 0;
	}
	if (!strcmp(k, "pd"))
		return ref(p, "pd", FIND(s->pd, s->npd, v), v, &q->pd);
	if (!strcmp(k, "send_cq"))
		return ref(p, "cq", FIND(s->cq, s->ncq, v), v, &q->send_cq);
	if (!strcmp(k, "recv_cq"))
		return ref(p, "cq", FIND(s->cq, s->ncq, v), v, &q->recv_cq);
	if (!strcmp(k, "qpn")) {
		q->have_qpn = true;
		return num32(p, k, v, 0xffffff, &q->want_qpn);
	}
	if (!strcmp(k, "remote_mac")) {
		if (shim_parse_mac(v, a->dmac))
			return fail(p, "remote_mac wants aa:bb:cc:dd:ee:ff, got \"%s\"", v);
		q->have_remote_mac = true;
		return 0;
	}
	if (!strcmp(k, "remote_ip")) {
		if (shim_parse_ipv4(v, &ip))
			return fail(p, "remote_ip wants an IPv4 address, got \"%s\"", v);
		memset(a->dgid, 0, sizeof(a->dgid));
		a->dgid[10] = a->dgid[11] = 0xff;
		a->dgid[12] = (uint8_t)(ip >> 24);
		a->dgid[13] = (uint8_t)(ip >> 16);
		a->dgid[14] = (uint8_t)(ip >> 8);
		a->dgid[15] = (uint8_t)ip;
		q->have_remote_ip = true;
		return 0;
	}
	if (!strcmp(k, "dest_qpn")) {
		q->have_dest_qpn = true;
		return num32(p, k, v, 0xffffff, &a->dest_qp_num);
	}
	if (!strcmp(k, "path_mtu"))
		return mtu_code(p, v, &a->path_mtu);
	if (!strcmp(k, "access"))
		return parse_access(p, v, &a->qp_access_flags);
	for (size_t i = 0; i < sizeof(qp_nums) / sizeof(qp_nums[0]); i++) {
		uint64_t x;

		if (strcmp(k, qp_nums[i].key))
			continue;
		if (num(p, k, v, qp_nums[i].max, &x))
			return -EINVAL;
		if (qp_nums[i].size == 4)
			*(uint32_t *)((uint8_t *)a + qp_nums[i].off) = (uint32_t)x;
		else
			*((uint8_t *)a + qp_nums[i].off) = (uint8_t)x;
		return 0;
	}
	if (!strcmp(k, "max_send_wr"))
		return num32(p, k, v, 1u << 16, &q->max_send_wr);
	if (!strcmp(k, "max_recv_wr"))
		return num32(p, k, v, 1u << 16, &q->max_recv_wr);
	if (!strcmp(k, "max_recv_sge")) {
		if (num32(p, k, v, RP_MAX_SGE, &q->max_recv_sge) || !q->max_recv_sge)
			return fail(p, "max_recv_sge wants 1..%d, got \"%s\"", RP_MAX_SGE, v);
		return 0;
	}
	if (!strcmp(k, "recv"))
		return parse_recv(p, (int)(q - s->qp), v);
	return fail(p, "unknown key \"%s\" in [qp %s]", k, q->name);
}

static int section(struct parser *p, char *hdr)
{
	struct rp_setup *s = p->s;
	char *kind = hdr, *name, *c;

	name = kind;
	while (*name && !isspace((unsigned char)*name))
		name++;
	if (*name)
		*name++ = '\0';
	name = shim_trim(name);
	if (!*name)
		return fail(p, "section [%s] needs a name: [%s NAME]", kind, kind);
	if (strlen(name) >= RP_NAME_MAX)
		return fail(p, "name \"%s\" longer than %d characters", name, RP_NAME_MAX - 1);
	for (c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
			return fail(p, "bad name \"%s\" (letters, digits, _ and -)", name);
#define NEW(arr, n, max, what)                                                                         \
	do {                                                                                           \
		if (FIND(arr, n, name) >= 0)                                                           \
			return fail(p, what " \"%s\" defined twice", name);                            \
		if ((n) >= (max))                                                                      \
			return fail(p, "more than %d " what " sections", (max));                      \
		memset(&(arr)[n], 0, sizeof((arr)[n]));                                                \
		snprintf((arr)[n].name, RP_NAME_MAX, "%s", name);                                      \
		(arr)[n].line = p->line;                                                               \
		(n)++;                                                                                 \
	} while (0)
	if (!strcmp(kind, "pd")) {
		NEW(s->pd, s->npd, RP_MAX_PD, "pd");
		p->sect = S_PD;
	} else if (!strcmp(kind, "mr")) {
		NEW(s->mr, s->nmr, RP_MAX_MR, "mr");
		s->mr[s->nmr - 1].pd = -1;
		s->mr[s->nmr - 1].fill = -1;
		s->mr[s->nmr - 1].access = HCA_ACCESS_LOCAL_WRITE;
		p->sect = S_MR;
	} else if (!strcmp(kind, "cq")) {
		NEW(s->cq, s->ncq, RP_MAX_CQ, "cq");
		s->cq[s->ncq - 1].entries = 256;
		p->sect = S_CQ;
	} else if (!strcmp(kind, "qp")) {
		struct rp_qp *q;

		NEW(s->qp, s->nqp, RP_MAX_QP, "qp");
		q = &s->qp[s->nqp - 1];
		q->type = HCA_QPT_RC;
		q->state = HCA_QPS_RTS;
		q->pd = q->send_cq = q->recv_cq = -1;
		q->max_send_wr = 16;
		q->max_recv_wr = 64;
		q->max_recv_sge = 1;
		/* ibv_modify_qp values a two-sided test would use; docs/replay.md lists them */
		q->attr.path_mtu = HCA_MTU_1024;
		q->attr.qkey = 0x11111111;
		q->attr.qp_access_flags = HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_READ |
					  HCA_ACCESS_REMOTE_ATOMIC;
		q->attr.max_dest_rd_atomic = 4;
		q->attr.max_rd_atomic = 4;
		q->attr.min_rnr_timer = 12;
		q->attr.timeout = 14;
		q->attr.retry_cnt = 7;
		q->attr.rnr_retry = 7;
		q->attr.hop_limit = 64;
		p->sect = S_QP;
	} else {
		return fail(p, "unknown section [%s] (pd, mr, cq, qp)", kind);
	}
#undef NEW
	return 0;
}

static int key(struct parser *p, const char *k, const char *v)
{
	struct rp_setup *s = p->s;

	switch (p->sect) {
	case S_GLOBAL:
		return global_key(p, k, v);
	case S_PD:
		return fail(p, "[pd %s] takes no keys", s->pd[s->npd - 1].name);
	case S_MR:
		return mr_key(p, &s->mr[s->nmr - 1], k, v);
	case S_CQ:
		if (!strcmp(k, "entries")) {
			uint32_t *e = &s->cq[s->ncq - 1].entries;

			if (num32(p, k, v, 1u << HCA_CAP_LOG_MAX_CQE, e) || !*e)
				return fail(p, "entries wants 1..%u, got \"%s\"", 1u << HCA_CAP_LOG_MAX_CQE, v);
			return 0;
		}
		return fail(p, "unknown key \"%s\" in [cq %s] (entries)", k, s->cq[s->ncq - 1].name);
	case S_QP:
		return qp_key(p, &s->qp[s->nqp - 1], k, v);
	}
	return -EINVAL;
}

/* A pd or cq an object left out: the only one there is, or one made for it. */
static int implicit(struct parser *p, int *idx, bool cq, const char *who, unsigned int line)
{
	struct rp_setup *s = p->s;
	unsigned int *n = cq ? &s->ncq : &s->npd;

	if (*idx >= 0)
		return 0;
	if (*n > 1) {
		p->line = line;
		return fail(p, "%s: which %s? there are %u (add %s = NAME)", who, cq ? "cq" : "pd", *n,
			    cq ? "send_cq/recv_cq" : "pd");
	}
	if (!*n) {
		if (cq) {
			memset(&s->cq[0], 0, sizeof(s->cq[0]));
			strcpy(s->cq[0].name, "cq0");
			s->cq[0].entries = 256;
		} else {
			memset(&s->pd[0], 0, sizeof(s->pd[0]));
			strcpy(s->pd[0].name, "pd0");
		}
		*n = 1;
	}
	*idx = 0;
	return 0;
}

static int finish(struct parser *p)
{
	struct rp_setup *s = p->s;

	p->line = 0;
	if (!s->ip)
		return fail(p, "no device address: add \"ip = A.B.C.D\" before the first section");
	if (!s->have_mac)
		shim_mac_from_ipv4(s->ip, s->mac);
	for (unsigned int i = 0; i < s->nmr; i++) {
		struct rp_mr *m = &s->mr[i];

		p->line = m->line;
		if (!m->length)
			return fail(p, "[mr %s] needs a length", m->name);
		if (m->addr + m->length < m->addr)
			return fail(p, "[mr %s] addr + length wraps around", m->name);
		if (m->data_len > m->length)
			return fail(p, "[mr %s] data (%zu bytes) longer than the region", m->name, m->data_len);
		if ((m->access & (HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_ATOMIC)) &&
		    !(m->access & HCA_ACCESS_LOCAL_WRITE))
			return fail(p, "[mr %s] remote_write/remote_atomic need local_write (as verbs)", m->name);
		if (implicit(p, &m->pd, false, m->name, m->line))
			return -EINVAL;
	}
	for (unsigned int i = 0; i < s->nqp; i++) {
		struct rp_qp *q = &s->qp[i];

		p->line = q->line;
		if (implicit(p, &q->pd, false, q->name, q->line) ||
		    implicit(p, &q->send_cq, true, q->name, q->line) ||
		    implicit(p, &q->recv_cq, true, q->name, q->line))
			return -EINVAL;
		p->line = q->line;
		if (q->type != HCA_QPT_UD && q->state >= HCA_QPS_RTR) {
			if (!q->have_remote_ip)
				return fail(p, "[qp %s] %s in %s needs remote_ip", q->name,
					    hca_qp_type_name(q->type), hca_qp_state_name(q->state));
			if (!q->have_dest_qpn)
				return fail(p, "[qp %s] %s in %s needs dest_qpn", q->name,
					    hca_qp_type_name(q->type), hca_qp_state_name(q->state));
			if (!q->have_remote_mac) {
				uint32_t ip = (uint32_t)q->attr.dgid[12] << 24 | (uint32_t)q->attr.dgid[13] << 16 |
					      (uint32_t)q->attr.dgid[14] << 8 | q->attr.dgid[15];

				shim_mac_from_ipv4(ip, q->attr.dmac);
			}
		}
	}
	for (unsigned int i = 0; i < s->nrecv; i++) {
		const struct rp_recv *r = &s->recv[i];

		p->line = r->line;
		if (r->num_sge > s->qp[r->qp].max_recv_sge)
			return fail(p, "recv has %u scatter entries, [qp %s] max_recv_sge is %u (set it above)",
				    r->num_sge, s->qp[r->qp].name, s->qp[r->qp].max_recv_sge);
	}
	return 0;
}

int rp_setup_parse(struct rp_setup *s, const char *text, const char *origin, char *err, size_t errlen)
{
	struct parser p = { .s = s, .origin = origin ? origin : "setup", .err = err, .errlen = errlen };
	const char *t = text;

	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s", p.origin);
	while (t && *t) {
		const char *nl = strchr(t, '\n');
		size_t n = nl ? (size_t)(nl - t) : strlen(t);
		char buf[1024], *line, *eq, *hash;
		int rc;

		p.line++;
		if (n >= sizeof(buf))
			return fail(&p, "line longer than %zu characters", sizeof(buf) - 1);
		memcpy(buf, t, n);
		buf[n] = '\0';
		t = nl ? nl + 1 : NULL;
		if (memchr(buf, '\0', n))
			return fail(&p, "NUL byte (not a text file?)");
		hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		line = shim_trim(buf);
		if (!*line)
			continue;
		if (*line == '[') {
			char *e = strchr(line, ']');

			if (!e || *shim_trim(e + 1))
				return fail(&p, "bad section header (want [KIND NAME])");
			*e = '\0';
			rc = section(&p, shim_trim(line + 1));
		} else {
			eq = strchr(line, '=');
			if (!eq)
				return fail(&p, "expected key = value");
			*eq = '\0';
			if (!*shim_trim(line))
				return fail(&p, "empty key");
			rc = key(&p, shim_trim(line), shim_trim(eq + 1));
		}
		if (rc)
			return rc;
	}
	return finish(&p);
}

int rp_setup_load(struct rp_setup *s, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *text;
	long len;
	int rc;

	memset(s, 0, sizeof(*s));
	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		fclose(f);
		return rc;
	}
	if (len > (1l << 24)) {
		fclose(f);
		snprintf(err, errlen, "%s: larger than 16 MiB, not a setup file", path);
		return -EINVAL;
	}
	text = malloc((size_t)len + 1);
	if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) {
		free(text);
		fclose(f);
		snprintf(err, errlen, "%s: read error", path);
		return -EIO;
	}
	fclose(f);
	text[len] = '\0';
	if (strlen(text) != (size_t)len) {
		free(text);
		snprintf(err, errlen, "%s: NUL byte (not a text file?)", path);
		return -EINVAL;
	}
	rc = rp_setup_parse(s, text, path, err, errlen);
	free(text);
	return rc;
}

void rp_setup_free(struct rp_setup *s)
{
	for (unsigned int i = 0; i < s->nmr; i++) {
		free(s->mr[i].data);
		s->mr[i].data = NULL;
	}
}
