// SPDX-License-Identifier: MIT
/*
 * sim/engine_opts: every kind of key against a table, the edges of integer
 * ranges (negative numbers, 2^32 and 2^64 that strtoul would wrap or
 * truncate), and every refusal (unknown key, no value, empty item, bad
 * name, text too long, pass-through overflow).  A refused string returns
 * -EINVAL; what stderr says is checked by driver-shim/tests/options.sh.
 */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "engine_opts.h"

struct o {
	unsigned int lat;
	uint64_t big;
	uint8_t small;
	unsigned int on, mode;
	char tag[8];
	char sub[16];
};

static const char *const modes[] = { "fast", "slow", NULL };

static const struct hca_engine_opt table[] = {
	HCA_OPT_UINT(struct o, lat, 0, 1000, "latency"),
	HCA_OPT_UINT(struct o, big, 5, UINT64_MAX, "a big one"),
	HCA_OPT_UINT(struct o, small, 0, 255, "a byte"),
	HCA_OPT_BOOL(struct o, on, "a switch"),
	HCA_OPT_ENUM(struct o, mode, modes, "a mode"),
	HCA_OPT_STR(struct o, tag, "a label"),
	HCA_OPT_PASS("sub", struct o, sub, "options of another engine"),
	{ 0 },
};

static int parse(const char *s, struct o *o)
{
	memset(o, 0, sizeof(*o));
	o->lat = 24;
	return hca_engine_opts_parse("test", table, s, o);
}

int main(void)
{
	struct o o;
	char buf[512];

	CHECK_EQ(parse(NULL, &o), 0, "NULL: nothing");
	CHECK_EQ(parse("", &o), 0, "empty: nothing");
	CHECK_EQ(o.lat, 24, "defaults kept");
	CHECK_EQ(parse("lat=1000,big=18446744073709551615,small=255,on=1,mode=slow,tag=abcdefg", &o), 0,
		 "every type at its upper edge");
	CHECK(o.lat == 1000 && o.big == UINT64_MAX && o.small == 255 && o.on == 1 && o.mode == 1 &&
	      !strcmp(o.tag, "abcdefg"), "values stored");
	CHECK_EQ(parse("lat=0x10,lat=7", &o), 0, "hex; a key twice");
	CHECK_EQ(o.lat, 7, "the last value wins");
	CHECK_EQ(parse("lat=0,big=5,on=0,mode=fast", &o), 0, "lower edges");
	CHECK(o.lat == 0 && o.big == 5 && o.on == 0 && o.mode == 0, "lower values stored");

	CHECK_EQ(parse("lat=-1", &o), -EINVAL, "negative (strtoul would make it 4294967295)");
	CHECK_EQ(parse("lat=1001", &o), -EINVAL, "above the range");
	CHECK_EQ(parse("lat=4294967296", &o), -EINVAL, "2^32 (would truncate to 0)");
	CHECK_EQ(parse("big=18446744073709551616", &o), -EINVAL, "2^64 (overflow)");
	CHECK_EQ(parse("big=4", &o), -EINVAL, "below the range");
	CHECK_EQ(parse("small=256", &o), -EINVAL, "byte field above 255");
	CHECK_EQ(parse("lat=+5", &o), -EINVAL, "a sign");
	CHECK_EQ(parse("lat= 5", &o), -EINVAL, "a space");
	CHECK_EQ(parse("lat=5x", &o), -EINVAL, "trailing garbage");
	CHECK_EQ(parse("lat=", &o), -EINVAL, "empty number");
	CHECK_EQ(parse("on=2", &o), -EINVAL, "boolean 2");
	CHECK_EQ(parse("on=yes", &o), -EINVAL, "boolean word");
	CHECK_EQ(parse("mode=medium", &o), -EINVAL, "a name not in the list");
	CHECK_EQ(parse("tag=abcdefgh", &o), -EINVAL, "text one byte too long");
	CHECK_EQ(parse("nosuch=1", &o), -EINVAL, "unknown key");
	CHECK_EQ(parse("la=1", &o), -EINVAL, "a prefix of a key");
	CHECK_EQ(parse("latx=1", &o), -EINVAL, "a key with a known prefix");
	CHECK_EQ(parse("lat", &o), -EINVAL, "no value");
	CHECK_EQ(parse("lat=1,,on=1", &o), -EINVAL, "empty item");
	CHECK_EQ(parse("lat=1,on=1,", &o), 0, "a trailing comma");

	CHECK_EQ(parse("sub.x=1,lat=3,sub.y=abc", &o), 0, "pass-through");
	CHECK(!strcmp(o.sub, "x=1,y=abc") && o.lat == 3, "pass-through collected in order");
	CHECK_EQ(parse("sub.x=1234567890,sub.y=1234", &o), -EINVAL, "pass-through beyond its field");
	CHECK_EQ(parse("sub=1", &o), -EINVAL, "the pass prefix alone is no key");
	CHECK_EQ(parse("sub.x", &o), -EINVAL, "pass-through without a value");

	hca_engine_opts_describe(table, buf, sizeof(buf));
	CHECK(!strcmp(buf, "lat=0..1000, big=5..18446744073709551615, small=0..255, on=0|1, "
			   "mode=fast|slow, tag=TEXT, sub.K=V"), "describe: %s", buf);
	return check_done();
}
