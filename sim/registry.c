// SPDX-License-Identifier: MIT
/*
 * Name -> implementation registries for device backends (backend.h) and
 * packet engines (engine.h).
 *
 * Implementations register themselves, either from a constructor or from an
 * explicit call such as hca_model_engine_register() (model/model.h); a
 * program that wants "model" must link the model library and reference it.
 * Registering the same name twice keeps the first registration (so an
 * explicit call after a constructor is harmless).  Lookups are by exact name.
 */
#include <stddef.h>
#include <string.h>

#include "hcasim/backend.h"
#include "hcasim/engine.h"

#define REGISTRY_MAX 16

static const struct hca_backend *backends[REGISTRY_MAX];
static unsigned int nr_backends;
static const struct hca_engine_ops *engines[REGISTRY_MAX];
static unsigned int nr_engines;

void hca_backend_register(const struct hca_backend *be)
{
	if (!be || !be->name || hca_backend_find(be->name) || nr_backends >= REGISTRY_MAX)
		return;
	backends[nr_backends++] = be;
}

const struct hca_backend *hca_backend_find(const char *name)
{
	if (!name)
		return NULL;
	for (unsigned int i = 0; i < nr_backends; i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}

const char *hca_backend_names(void)
{
	static char buf[REGISTRY_MAX * 32];
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < nr_backends; i++) {
		size_t l = strlen(backends[i]->name);

		if (n + l + 2 > sizeof(buf))
			break;
		if (n)
			buf[n++] = ',';
		memcpy(buf + n, backends[i]->name, l);
		n += l;
		buf[n] = '\0';
	}
	return buf;
}

void hca_engine_register(const struct hca_engine_ops *ops)
{
	if (!ops || !ops->name || hca_engine_find(ops->name) || nr_engines >= REGISTRY_MAX)
		return;
	engines[nr_engines++] = ops;
}

const struct hca_engine_ops *hca_engine_find(const char *name)
{
	if (!name)
		return NULL;
	for (unsigned int i = 0; i < nr_engines; i++)
		if (strcmp(engines[i]->name, name) == 0)
			return engines[i];
	return NULL;
}
