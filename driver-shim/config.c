// SPDX-License-Identifier: MIT
/* Device configuration from text, a file or the environment: see config.h. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int shim_parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;

	if (!s || sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4],
			 &b[5], &tail) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

int shim_parse_ipv4(const char *s, uint32_t *ip)
{
	unsigned int b[4];
	char tail;

	if (!s || sscanf(s, "%3u.%3u.%3u.%3u%c", &b[0], &b[1], &b[2], &b[3], &tail) != 4)
		return -1;
	for (int i = 0; i < 4; i++)
		if (b[i] > 255)
			return -1;
	*ip = b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3];
	return 0;
}

void shim_mac_from_ipv4(uint32_t ip, uint8_t mac[6])
{
	mac[0] = 0x02;
	mac[1] = 0x00;
	mac[2] = (uint8_t)(ip >> 24);
	mac[3] = (uint8_t)(ip >> 16);
	mac[4] = (uint8_t)(ip >> 8);
	mac[5] = (uint8_t)ip;
}

static int fail(struct shim_config *cfg, const char *origin, unsigned int line, const char *fmt,
		...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(cfg->err, sizeof(cfg->err), "%s:%u: %s", origin, line, msg);
	else
		snprintf(cfg->err, sizeof(cfg->err), "%s: %s", origin, msg);
	return -EINVAL;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int copy_str(char *dst, size_t n, const char *v)
{
	if (strlen(v) >= n)
		return -1;
	strcpy(dst, v);
	return 0;
}

static void dev_defaults(struct shim_devcfg *d, const char *name)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	strcpy(d->backend, "model");
	strcpy(d->wire, "local");
	d->seed = 1;
}

/* Fill what the user left out; reject what cannot work. */
static int finish(struct shim_config *cfg, const char *origin)
{
	for (unsigned int i = 0; i < cfg->ndev; i++) {
		struct shim_devcfg *d = &cfg->dev[i];

		if (!d->ipv4)
			return fail(cfg, origin, 0, "device %s has no ip", d->name);
		if (!d->have_mac) {
			shim_mac_from_ipv4(d->ipv4, d->mac);
			d->have_mac = 1;
		}
		if (d->mac[0] & 1)
			return fail(cfg, origin, 0, "device %s: mac is a multicast address", d->name);
		for (unsigned int j = 0; j < i; j++) {
			if (!strcmp(cfg->dev[j].name, d->name))
				return fail(cfg, origin, 0, "device %s defined twice", d->name);
			if (cfg->dev[j].ipv4 == d->ipv4)
				return fail(cfg, origin, 0, "devices %s and %s have the same ip",
					    cfg->dev[j].name, d->name);
			if (!memcmp(cfg->dev[j].mac, d->mac, 6))
				return fail(cfg, origin, 0, "devices %s and %s have the same mac",
					    cfg->dev[j].name, d->name);
		}
	}
	return 0;
}

static int parse_prob(const char *v, double *out)
{
	char *end;
	double x = strtod(v, &end);

	if (!*v || *end || !(x >= 0.0 && x <= 1.0))
		return -1;
	*out = x;
	return 0;
}

static int parse_u64(const char *v, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(v, &end, 0);
	return (errno || *end || !*v || *v == '-' || *v == '+' || *v == ' ') ? -1 : 0;
}

/* An integer key: lo..hi, else an error naming the key and its range. */
static int set_u64(struct shim_config *cfg, const char *origin, unsigned int line, const char *k,
		   const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
	uint64_t x;

	if (parse_u64(v, &x) || x < lo || x > hi)
		return fail(cfg, origin, line, "%s wants an integer %llu..%llu, got \"%s\"", k,
			    (unsigned long long)lo, (unsigned long long)hi, v);
	*out = x;
	return 0;
}

static int set_wire_key(struct shim_config *cfg, const char *k, const char *v, const char *origin,
			unsigned int line)
{
	struct shim_wirecfg *w = &cfg->wire;
	double *prob = !strcmp(k, "wire_drop")	    ? &w->drop
		       : !strcmp(k, "wire_dup")	    ? &w->dup
		       : !strcmp(k, "wire_reorder") ? &w->reorder
		       : !strcmp(k, "wire_corrupt") ? &w->corrupt
						    : NULL;

	if (prob) {
		if (parse_prob(v, prob))
			return fail(cfg, origin, line, "%s wants a probability 0..1, got \"%s\"", k, v);
		return 0;
	}
	if (!strcmp(k, "wire_latency"))
		return set_u64(cfg, origin, line, k, v, 0, SHIM_MAX_CYCLES, &w->latency);
	if (!strcmp(k, "wire_seed"))
		return set_u64(cfg, origin, line, k, v, 0, UINT64_MAX, &w->seed);
	if (!strcmp(k, "wire_pcap")) {
		if (copy_str(w->pcap, sizeof(w->pcap), v))
			return fail(cfg, origin, line, "wire_pcap path too long");
		return 0;
	}
	return 1;	/* not a wire key */
}

static int set_key(struct shim_config *cfg, struct shim_devcfg *d, const char *k, const char *v,
		   const char *origin, unsigned int line)
{
	if (!d) {
		int ret = set_wire_key(cfg, k, v, origin, line);

		if (ret <= 0)
			return ret;
		if (!strcmp(k, "mode")) {
			if (!strcmp(v, "threaded"))
				cfg->mode = SHIM_MODE_THREADED;
			else if (!strcmp(v, "cooperative") || !strcmp(v, "coop"))
				cfg->mode = SHIM_MODE_COOP;
			else
				return fail(cfg, origin, line, "mode must be threaded or cooperative");
			return 0;
		}
		if (!strcmp(k, "neigh")) {
			char ip[32], mac[32];
			struct shim_neigh *n;

			if (cfg->nneigh >= SHIM_MAX_NEIGH)
				return fail(cfg, origin, line, "more than %d neigh entries",
					    SHIM_MAX_NEIGH);
			n = &cfg->neigh[cfg->nneigh];
			if (sscanf(v, "%31s %31s", ip, mac) != 2 || shim_parse_ipv4(ip, &n->ipv4) ||
			    shim_parse_mac(mac, n->mac))
				return fail(cfg, origin, line, "neigh wants \"IPV4 MAC\", got \"%s\"", v);
			cfg->nneigh++;
			return 0;
		}
		return fail(cfg, origin, line, "unknown global key \"%s\" (before any [device])", k);
	}
	if (!strcmp(k, "ip")) {
		if (shim_parse_ipv4(v, &d->ipv4) || !d->ipv4)
			return fail(cfg, origin, line, "bad ip \"%s\"", v);
	} else if (!strcmp(k, "mac")) {
		if (shim_parse_mac(v, d->mac))
			return fail(cfg, origin, line, "bad mac \"%s\"", v);
		d->have_mac = 1;
	} else if (!strcmp(k, "backend")) {
		if (copy_str(d->backend, sizeof(d->backend), v) || !*v)
			return fail(cfg, origin, line, "bad backend \"%s\"", v);
	} else if (!strcmp(k, "switch")) {
		if (copy_str(d->switch_path, sizeof(d->switch_path), v))
			return fail(cfg, origin, line, "switch path too long");
	} else if (!strcmp(k, "wire")) {
		if (copy_str(d->wire, sizeof(d->wire), v) || !*v)
			return fail(cfg, origin, line, "bad wire name \"%s\"", v);
	} else if (!strcmp(k, "seed")) {
		return set_u64(cfg, origin, line, k, v, 0, UINT64_MAX, &d->seed);
	} else if (!strcmp(k, "pcap")) {
		if (copy_str(d->pcap, sizeof(d->pcap), v))
			return fail(cfg, origin, line, "pcap path too long");
	} else if (!strcmp(k, "options")) {
		if (copy_str(d->options, sizeof(d->options), v))
			return fail(cfg, origin, line, "options too long");
	} else if (!strcmp(k, "width")) {
		uint64_t w;

		if (parse_u64(v, &w) || (w != 64 && w != 512))
			return fail(cfg, origin, line, "width must be 64 or 512, got \"%s\"", v);
		d->width = (unsigned int)w;
	} else if (!strcmp(k, "slowdown")) {
		uint64_t x = 0;

		if (set_u64(cfg, origin, line, k, v, 1, 1000000, &x))
			return -EINVAL;
		d->slowdown = (unsigned int)x;
	} else if (!strcmp(k, "trace")) {
		if (copy_str(d->trace, sizeof(d->trace), v))
			return fail(cfg, origin, line, "trace path too long");
	} else if (!strcmp(k, "trace_from")) {
		return set_u64(cfg, origin, line, k, v, 0, UINT64_MAX, &d->trace_from);
	} else if (!strcmp(k, "trace_to")) {
		return set_u64(cfg, origin, line, k, v, 0, UINT64_MAX, &d->trace_to);
	} else {
		return fail(cfg, origin, line, "unknown key \"%s\" in [%s]", k, d->name);
	}
	return 0;
}

int shim_config_parse(struct shim_config *cfg, const char *text, const char *origin)
{
	struct shim_devcfg *cur = NULL;
	unsigned int line = 0;
	const char *p = text;
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	cfg->wire.latency = 250;
	cfg->wire.seed = 1;
	if (!origin)
		origin = "config";
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char buf[512], *s, *eq, *hash;

		line++;
		if (n >= sizeof(buf))
			return fail(cfg, origin, line, "line too long");
		memcpy(buf, p, n);
		buf[n] = '\0';
		p = nl ? nl + 1 : NULL;
		hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		s = trim(buf);
		if (!*s)
			continue;
		if (*s == '[') {
			char *e = strchr(s, ']');

			if (!e || e[1])
				return fail(cfg, origin, line, "bad section header");
			*e = '\0';
			s = trim(s + 1);
			if (!*s || strlen(s) >= SHIM_NAME_MAX)
				return fail(cfg, origin, line, "bad device name");
			for (const char *c = s; *c; c++)
				if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-')
					return fail(cfg, origin, line, "bad device name \"%s\"", s);
			if (cfg->ndev >= SHIM_MAX_DEVICES)
				return fail(cfg, origin, line, "more than %d devices",
					    SHIM_MAX_DEVICES);
			cur = &cfg->dev[cfg->ndev++];
			dev_defaults(cur, s);
			continue;
		}
		eq = strchr(s, '=');
		if (!eq)
			return fail(cfg, origin, line, "expected key = value");
		*eq = '\0';
		ret = set_key(cfg, cur, trim(s), trim(eq + 1), origin, line);
		if (ret)
			return ret;
	}
	if (!cfg->ndev)
		return fail(cfg, origin, 0, "no [device] section");
	return finish(cfg, origin);
}

static int from_file(struct shim_config *cfg, const char *path)
{
	FILE *f = fopen(path, "r");
	char *text;
	long len;
	int ret;

	if (!f) {
		ret = -errno;
		snprintf(cfg->err, sizeof(cfg->err), "HCASIM_CONFIG=%s: %s", path, strerror(errno));
		return ret;
	}
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || len > (1 << 20) ||
	    fseek(f, 0, SEEK_SET)) {
		fclose(f);
		snprintf(cfg->err, sizeof(cfg->err), "HCASIM_CONFIG=%s: unreadable or too big", path);
		return -EINVAL;
	}
	text = malloc((size_t)len + 1);
	if (!text) {
		fclose(f);
		return -ENOMEM;
	}
	len = (long)fread(text, 1, (size_t)len, f);
	text[len] = '\0';
	fclose(f);
	ret = shim_config_parse(cfg, text, path);
	free(text);
	return ret;
}

int shim_config_from_env(struct shim_config *cfg)
{
	const char *path = getenv("HCASIM_CONFIG");
	char text[2048];
	size_t n = 0;
	const struct {
		const char *env, *key;
	} keys[] = {
		{ "HCASIM_IP", "ip" },	       { "HCASIM_MAC", "mac" },
		{ "HCASIM_BACKEND", "backend" }, { "HCASIM_SWITCH", "switch" },
		{ "HCASIM_WIRE", "wire" },       { "HCASIM_SEED", "seed" },
		{ "HCASIM_OPTIONS", "options" }, { "HCASIM_PCAP", "pcap" },
		{ "HCASIM_WIDTH", "width" },     { "HCASIM_TRACE", "trace" },
		{ "HCASIM_TRACE_FROM", "trace_from" }, { "HCASIM_TRACE_TO", "trace_to" },
		{ "HCASIM_SLOWDOWN", "slowdown" },
	};
	const char *v;

	if (path && *path)
		return from_file(cfg, path);
	/* Build the equivalent config text, so both paths share one parser. */
	v = getenv("HCASIM_MODE");
	if (v && *v)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "mode = %s\n", v);
	v = getenv("HCASIM_NEIGH");	/* "ip=mac,ip=mac" */
	if (v && *v) {
		char buf[1024], *save = NULL, *tok;

		snprintf(buf, sizeof(buf), "%s", v);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			char *eq = strchr(tok, '=');

			if (!eq) {
				snprintf(cfg->err, sizeof(cfg->err),
					 "HCASIM_NEIGH: entries are IP=MAC, got \"%s\"", tok);
				return -EINVAL;
			}
			*eq = ' ';
			n += (size_t)snprintf(text + n, sizeof(text) - n, "neigh = %s\n", tok);
			if (n >= sizeof(text))
				break;
		}
	}
	v = getenv("HCASIM_DEVICE");
	n += (size_t)snprintf(text + n, sizeof(text) - n, "[%s]\n", v && *v ? v : "hcasim0");
	if (!getenv("HCASIM_IP"))
		n += (size_t)snprintf(text + n, sizeof(text) - n, "ip = 10.0.0.1\n");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]) && n < sizeof(text); i++) {
		v = getenv(keys[i].env);
		if (v && *v)
			n += (size_t)snprintf(text + n, sizeof(text) - n, "%s = %s\n", keys[i].key, v);
	}
	if (n >= sizeof(text)) {
		snprintf(cfg->err, sizeof(cfg->err), "HCASIM_* variables too long");
		return -EINVAL;
	}
	return shim_config_parse(cfg, text, "environment");
}

char *shim_trim(char *s)
{
	return trim(s);
}

int shim_parse_u64(const char *v, uint64_t *out)
{
	return parse_u64(v, out);
}
