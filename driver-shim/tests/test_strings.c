// SPDX-License-Identifier: MIT
/*
 * The shim's string and rate helpers against the real libibverbs (loaded
 * with dlopen, so the two implementations sit side by side): every value of
 * every enum, and values beyond, must give the same answer.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include <infiniband/verbs.h>

int main(void)
{
	void *h = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
	const char *(*wc_str)(enum ibv_wc_status);
	const char *(*ev_str)(enum ibv_event_type);
	const char *(*node_str)(enum ibv_node_type);
	const char *(*port_str)(enum ibv_port_state);
	int (*to_mult)(enum ibv_rate), (*to_mbps)(enum ibv_rate);
	enum ibv_rate (*from_mult)(int), (*from_mbps)(int);

	CHECK(h != NULL, "dlopen libibverbs.so.1: %s", dlerror());
	if (!h)
		return check_done();
	wc_str = (const char *(*)(enum ibv_wc_status))dlsym(h, "ibv_wc_status_str");
	ev_str = (const char *(*)(enum ibv_event_type))dlsym(h, "ibv_event_type_str");
	node_str = (const char *(*)(enum ibv_node_type))dlsym(h, "ibv_node_type_str");
	port_str = (const char *(*)(enum ibv_port_state))dlsym(h, "ibv_port_state_str");
	to_mult = (int (*)(enum ibv_rate))dlsym(h, "ibv_rate_to_mult");
	to_mbps = (int (*)(enum ibv_rate))dlsym(h, "ibv_rate_to_mbps");
	from_mult = (enum ibv_rate (*)(int))dlsym(h, "mult_to_ibv_rate");
	from_mbps = (enum ibv_rate (*)(int))dlsym(h, "mbps_to_ibv_rate");
	CHECK(wc_str && ev_str && node_str && port_str && to_mult && to_mbps && from_mult && from_mbps,
	      "all helpers found in libibverbs");
	if (!(wc_str && ev_str && node_str && port_str && to_mult && to_mbps && from_mult && from_mbps))
		return check_done();
	CHECK(wc_str != ibv_wc_status_str, "comparing two different implementations");

	for (int i = -1; i < 40; i++) {
		CHECK(!strcmp(wc_str(i), ibv_wc_status_str(i)), "wc status %d: \"%s\" vs \"%s\"", i,
		      wc_str(i), ibv_wc_status_str(i));
		CHECK(!strcmp(ev_str(i), ibv_event_type_str(i)), "event %d: \"%s\" vs \"%s\"", i,
		      ev_str(i), ibv_event_type_str(i));
		CHECK(!strcmp(node_str(i), ibv_node_type_str(i)), "node type %d: \"%s\" vs \"%s\"", i,
		      node_str(i), ibv_node_type_str(i));
		CHECK(!strcmp(port_str(i), ibv_port_state_str(i)), "port state %d: \"%s\" vs \"%s\"", i,
		      port_str(i), ibv_port_state_str(i));
		CHECK(to_mult(i) == ibv_rate_to_mult(i), "rate %d to mult", i);
		CHECK(to_mbps(i) == ibv_rate_to_mbps(i), "rate %d to mbps", i);
	}
	for (int m = -1; m <= 300; m++)
		CHECK(from_mult(m) == mult_to_ibv_rate(m), "mult %d to rate", m);
	for (int i = 0; i < 40; i++) {
		int mbps = to_mbps(i);

		CHECK(from_mbps(mbps) == mbps_to_ibv_rate(mbps), "mbps %d to rate", mbps);
		CHECK(from_mbps(mbps + 1) == mbps_to_ibv_rate(mbps + 1), "mbps %d to rate", mbps + 1);
	}
	dlclose(h);
	return check_done();
}
