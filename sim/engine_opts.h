/* SPDX-License-Identifier: MIT */
/*
 * Engine options (hca_engine_config.options, "key=value,..."), checked one
 * way for every engine: each engine declares a table of its keys with their
 * type and allowed values, and hca_engine_opts_parse() fills the engine's
 * option struct from it or refuses the whole string.
 *
 * Refused, with one line on stderr naming the engine, the key and what it
 * allows ("rtl: option rd_lat=-1: wants an integer 0..1000000"):
 *   - a key the table does not have (the line lists the known ones);
 *   - an item without '=' or an empty item (",,");
 *   - an integer that is negative, not a number, out of range, or beyond
 *     64 bits (decimal or 0x hex; strtoul's wrap-around of "-1" is caught);
 *   - a boolean other than 0 or 1; a name not in the list; a text too long.
 *
 *     struct my_opts { unsigned int lat; unsigned int mode; char tag[16]; };
 *     static const char *const modes[] = { "fast", "slow", NULL };
 *     static const struct hca_engine_opt my_table[] = {
 *         HCA_OPT_UINT(struct my_opts, lat, 0, 1000, "latency, cycles"),
 *         HCA_OPT_ENUM(struct my_opts, mode, modes, "which mode"),
 *         HCA_OPT_STR(struct my_opts, tag, "a label"),
 *         { 0 },
 *     };
 *     struct my_opts o = { .lat = 24 };       // defaults
 *     if (hca_engine_opts_parse("mine", my_table, cfg->options, &o))
 *         return -EINVAL;
 *
 * Keys are the field names; a key given twice takes the last value.  HCA_OPT_PASS collects "PREFIX.K=V" items
 * (lockstep's "ref." and "dut.") as "K=V,..." text for another engine,
 * which checks them itself.
 */
#ifndef HCASIM_SIM_ENGINE_OPTS_H
#define HCASIM_SIM_ENGINE_OPTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum hca_opt_type {
	HCA_OPT_T_UINT,		/* integer min..max, into an unsigned field of 1, 2, 4 or 8 bytes */
	HCA_OPT_T_BOOL,		/* 0 or 1, into an unsigned/bool field */
	HCA_OPT_T_ENUM,		/* one of names[], its index into an unsigned/enum field */
	HCA_OPT_T_STR,		/* text, into a char[size] field */
	HCA_OPT_T_PASS,		/* "KEY.rest": "rest" appended to a char[size] field (',' between) */
};

struct hca_engine_opt {
	const char *key;
	enum hca_opt_type type;
	size_t off, size;		/* the field in the option struct */
	uint64_t min, max;		/* UINT */
	const char *const *names;	/* ENUM: NULL-terminated */
	const char *help;
};

#define HCA_OPT_FIELD_(st, f) offsetof(st, f), sizeof(((st *)0)->f)
#define HCA_OPT_UINT(st, f, lo, hi, h) { #f, HCA_OPT_T_UINT, HCA_OPT_FIELD_(st, f), lo, hi, NULL, h }
#define HCA_OPT_BOOL(st, f, h) { #f, HCA_OPT_T_BOOL, HCA_OPT_FIELD_(st, f), 0, 1, NULL, h }
#define HCA_OPT_ENUM(st, f, names, h) { #f, HCA_OPT_T_ENUM, HCA_OPT_FIELD_(st, f), 0, 0, names, h }
#define HCA_OPT_STR(st, f, h) { #f, HCA_OPT_T_STR, HCA_OPT_FIELD_(st, f), 0, 0, NULL, h }
/* key: the prefix without its dot ("dut" for "dut.K=V"). */
#define HCA_OPT_PASS(key, st, f, h) { key, HCA_OPT_T_PASS, HCA_OPT_FIELD_(st, f), 0, 0, NULL, h }

/*
 * Parse opts (NULL or "" = nothing) against table (ended by a { 0 } entry)
 * into dst, which holds the defaults.  0, or -EINVAL after one line on
 * stderr ("<engine>: ..."); dst may then be partly written.
 */
int hca_engine_opts_parse(const char *engine, const struct hca_engine_opt *table, const char *opts,
			  void *dst);

/* "key=what,key=what,..." of a table (what each key takes), for messages and docs. */
void hca_engine_opts_describe(const struct hca_engine_opt *table, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* HCASIM_SIM_ENGINE_OPTS_H */
