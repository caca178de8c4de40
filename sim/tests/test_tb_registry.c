// SPDX-License-Identifier: MIT
/* sim/registry.c: backend and engine name lookup. */
#include <string.h>

#include "check.h"
#include "hcasim/backend.h"
#include "hcasim/engine.h"

static const struct hca_backend be_a = { .name = "alpha" };
static const struct hca_backend be_b = { .name = "beta" };
static const struct hca_backend be_a2 = { .name = "alpha" };
static const struct hca_engine_ops en_x = { .name = "x" };
static const struct hca_engine_ops en_x2 = { .name = "x" };

int main(void)
{
	CHECK(hca_backend_find("alpha") == NULL, "empty registry");
	CHECK(strcmp(hca_backend_names(), "") == 0, "no names yet");
	hca_backend_register(&be_a);
	hca_backend_register(&be_b);
	hca_backend_register(&be_a2);	/* duplicate name: first one stays */
	hca_backend_register(NULL);
	CHECK(hca_backend_find("alpha") == &be_a, "alpha");
	CHECK(hca_backend_find("beta") == &be_b, "beta");
	CHECK(hca_backend_find("gamma") == NULL, "unknown");
	CHECK(hca_backend_find(NULL) == NULL, "NULL name");
	CHECK(strcmp(hca_backend_names(), "alpha,beta") == 0, "names: %s", hca_backend_names());

	CHECK(hca_engine_find("x") == NULL, "no engines");
	hca_engine_register(&en_x);
	hca_engine_register(&en_x2);
	CHECK(hca_engine_find("x") == &en_x, "engine x");
	CHECK(hca_engine_find("model") == NULL, "model not linked");
	return check_done();
}
