// SPDX-License-Identifier: MIT
/*
 * Coverage counters: a hash table of named keys (sim/cov.h).  The decoders
 * that turn transactions into keys are in cov_decode.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cov.h"
#include "cov_int.h"

#define COV_KEY_MAX 80

struct cov_slot {
	char key[COV_KEY_MAX];
	uint64_t n;
};

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static struct cov_slot *find(const struct cov *c, const char *key)
{
	uint32_t i = hash(key) & (c->cap - 1);

	while (c->slot[i].key[0] && strcmp(c->slot[i].key, key))
		i = (i + 1) & (c->cap - 1);
	return &c->slot[i];
}

static int grow(struct cov *c)
{
	struct cov cn = *c;

	cn.cap = c->cap ? c->cap * 2 : 256;
	cn.slot = calloc(cn.cap, sizeof(*cn.slot));
	if (!cn.slot)
		return -ENOMEM;
	cn.used = 0;
	for (size_t i = 0; i < c->cap; i++)
		if (c->slot[i].key[0]) {
			*find(&cn, c->slot[i].key) = c->slot[i];
			cn.used++;
		}
	free(c->slot);
	c->slot = cn.slot;
	c->cap = cn.cap;
	return 0;
}

struct cov *cov_new(unsigned int data_w)
{
	struct cov *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->data_w = data_w ? data_w : 64;
	if (grow(c)) {
		free(c);
		return NULL;
	}
	return c;
}

void cov_free(struct cov *c)
{
	if (!c)
		return;
	cov_state_free(c);
	free(c->slot);
	free(c);
}

void cov_hit(struct cov *c, const char *fmt, ...)
{
	char key[COV_KEY_MAX];
	struct cov_slot *s;
	va_list ap;

	if (!c)
		return;
	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	if (!key[0])
		return;
	if ((c->used + 1) * 2 > c->cap && grow(c))
		return;
	s = find(c, key);
	if (!s->key[0]) {
		snprintf(s->key, sizeof(s->key), "%s", key);
		c->used++;
	}
	s->n++;
}

uint64_t cov_count(const struct cov *c, const char *key)
{
	const struct cov_slot *s = c ? find(c, key) : NULL;

	return s && s->key[0] ? s->n : 0;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct cov_slot *)a)->key, ((const struct cov_slot *)b)->key);
}

int cov_write(const struct cov *c, const char *path)
{
	struct cov_slot *v;
	size_t n = 0;
	FILE *f;

	v = calloc(c->used ? c->used : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < c->cap; i++)
		if (c->slot[i].key[0])
			v[n++] = c->slot[i];
	qsort(v, n, sizeof(*v), by_key);
	f = fopen(path, "w");
	if (!f) {
		free(v);
		return -errno;
	}
	fprintf(f, "# hcasim functional coverage counts (tools/covreport.py reads them): key count\n");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s %llu\n", v[i].key, (unsigned long long)v[i].n);
	free(v);
	return fclose(f) ? -errno : 0;
}
