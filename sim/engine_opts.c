// SPDX-License-Identifier: MIT
/* Engine options checked against a per-engine table: see engine_opts.h. */
#include "engine_opts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPT_ITEM_MAX 256

static void put_uint(void *dst, const struct hca_engine_opt *o, uint64_t v)
{
	uint8_t *p = (uint8_t *)dst + o->off;

	switch (o->size) {
	case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
}

/* What a key takes, e.g. "0..1000000", "0|1", "fast|slow", "TEXT". */
static void what(const struct hca_engine_opt *o, char *buf, size_t len)
{
	size_t n = 0;

	switch (o->type) {
	case HCA_OPT_T_UINT:
		snprintf(buf, len, "%llu..%llu", (unsigned long long)o->min, (unsigned long long)o->max);
		return;
	case HCA_OPT_T_BOOL:
		snprintf(buf, len, "0|1");
		return;
	case HCA_OPT_T_ENUM:
		buf[0] = '\0';
		for (size_t i = 0; o->names[i] && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "|" : "", o->names[i]);
		return;
	case HCA_OPT_T_STR:
		snprintf(buf, len, "TEXT");
		return;
	case HCA_OPT_T_PASS:
		snprintf(buf, len, "V");
		return;
	}
}

void hca_engine_opts_describe(const struct hca_engine_opt *table, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (const struct hca_engine_opt *o = table; o->key && n < len; o++) {
		char w[200];

		what(o, w, sizeof(w));
		n += (size_t)snprintf(buf + n, len - n, "%s%s%s=%s", n ? ", " : "", o->key,
				      o->type == HCA_OPT_T_PASS ? ".K" : "", w);
	}
}

/* Strict unsigned integer: digits (or 0x hex) only, no sign, no overflow. */
static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

static int bad(const char *engine, const struct hca_engine_opt *o, const char *item, const char *why)
{
	char w[200];

	what(o, w, sizeof(w));
	fprintf(stderr, "%s: option %s: %s %s (%s)\n", engine, item, why, w, o->help);
	return -EINVAL;
}

static int set(const char *engine, const struct hca_engine_opt *o, const char *item, const char *val,
	       void *dst)
{
	uint8_t *field = (uint8_t *)dst + o->off;
	uint64_t v;

	switch (o->type) {
	case HCA_OPT_T_UINT:
		if (parse_u64(val, &v) || v < o->min || v > o->max)
			return bad(engine, o, item, "wants an integer");
		put_uint(dst, o, v);
		return 0;
	case HCA_OPT_T_BOOL:
		if (strcmp(val, "0") && strcmp(val, "1"))
			return bad(engine, o, item, "wants");
		put_uint(dst, o, val[0] == '1');
		return 0;
	case HCA_OPT_T_ENUM:
		for (size_t i = 0; o->names[i]; i++)
			if (!strcmp(val, o->names[i])) {
				put_uint(dst, o, i);
				return 0;
			}
		return bad(engine, o, item, "wants one of");
	case HCA_OPT_T_STR:
		if (strlen(val) >= o->size) {
			fprintf(stderr, "%s: option %s: longer than %zu bytes (%s)\n", engine, item,
				o->size - 1, o->help);
			return -EINVAL;
		}
		memcpy(field, val, strlen(val) + 1);
		return 0;
	case HCA_OPT_T_PASS: {
		size_t have = strlen((char *)field), add = strlen(val);

		if (have + !!have + add >= o->size) {
			fprintf(stderr, "%s: option %s: the %s.* options exceed %zu bytes\n", engine,
				item, o->key, o->size - 1);
			return -EINVAL;
		}
		if (have)
			field[have++] = ',';
		memcpy(field + have, val, add + 1);
		return 0;
	}
	}
	return -EINVAL;
}

int hca_engine_opts_parse(const char *engine, const struct hca_engine_opt *table, const char *opts,
			  void *dst)
{
	const char *p = opts;

	while (p && *p) {
		size_t len = strcspn(p, ",");
		char item[OPT_ITEM_MAX], known[1024];
		const struct hca_engine_opt *o;
		char *eq, *val;

		if (len == 0 || len >= sizeof(item)) {
			fprintf(stderr, "%s: option list \"%s\": %s\n", engine, opts,
				len ? "an item is too long" : "empty item");
			return -EINVAL;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		p += len + (p[len] == ',');
		eq = strchr(item, '=');
		for (o = table; o->key; o++) {
			size_t kl = strlen(o->key);

			if (o->type == HCA_OPT_T_PASS ? !strncmp(item, o->key, kl) && item[kl] == '.'
						      : eq && (size_t)(eq - item) == kl &&
								!strncmp(item, o->key, kl))
				break;
		}
		if (!o->key || !eq) {
			hca_engine_opts_describe(table, known, sizeof(known));
			fprintf(stderr, "%s: %s option \"%s\" (options: %s)\n", engine,
				eq ? "unknown" : "no value in", item, known);
			return -EINVAL;
		}
		val = o->type == HCA_OPT_T_PASS ? item + strlen(o->key) + 1 : eq + 1;
		if (set(engine, o, item, val, dst))
			return -EINVAL;
	}
	return 0;
}
