/* SPDX-License-Identifier: MIT */
/*
 * Report formatting for the scoreboard (sim/scoreboard.h): a growable
 * string, one-line transaction descriptions and field-by-field diffs of
 * frames (decoded from the raw bytes at the offsets of IB spec / RFC 791 /
 * RFC 768, plus the model codec's verdict, roce_parse_ex), CQEs and EQEs
 * (fields by name at the offsets of include/hcasim/hca_spec.h), register
 * values, and raw bytes.  Internal to sim/scoreboard*.c and sim/lockstep*.c.
 */
#ifndef HCASIM_SIM_SCOREBOARD_FMT_H
#define HCASIM_SIM_SCOREBOARD_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scoreboard.h"

struct sb_str {
	char *s;
	size_t len, cap;
};

void sbs_printf(struct sb_str *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbs_free(struct sb_str *o);
/* The text (never NULL). */
const char *sbs_cstr(const struct sb_str *o);

/* IB spec name of a BTH opcode ("RC_SEND_FIRST"), or "opcode 0xNN". */
const char *sbf_opcode_name(uint8_t op, char *buf, size_t n);

/*
 * One line describing a transaction: for frames the opcode, QPN, PSN,
 * flags, payload and frame length; for CQE/EQE streams the decoded entry
 * (when `len` covers one whole entry at an entry boundary); otherwise the
 * address, region offset and length.
 */
void sbf_describe(struct sb_str *o, enum sb_fmt fmt, const uint8_t *d, size_t len, uint64_t addr,
		  uint64_t base);

/* The first differing field of a diff: its name and "ref-value -> dut-value". */
struct sbf_first {
	char field[48];
	char values[160];
};

/*
 * Field-by-field diff table of two frames.  Fills *first with the first
 * differing field in wire order (field "" when the frames are equal).
 */
void sbf_diff_frame(struct sb_str *o, const uint8_t *ref, size_t rlen, const uint8_t *dut,
		    size_t dlen, struct sbf_first *first);

/*
 * Diff table of one CQE (32 bytes) or EQE (16 bytes); rhave/dhave say which
 * bytes each side has written so far (NULL: all).  Fields not wholly
 * written on both sides are shown but not compared.
 */
void sbf_diff_entry(struct sb_str *o, enum sb_fmt fmt, const uint8_t *ref, const bool *rhave,
		    const uint8_t *dut, const bool *dhave, struct sbf_first *first);

/* Hex lines of both sides around byte `mark` (an index into both buffers), `^^` under it. */
void sbf_hex_pair(struct sb_str *o, uint64_t addr, const uint8_t *ref, size_t rlen,
		  const uint8_t *dut, size_t dlen, size_t mark);
/* The same with per-byte availability (bytes not held by a side print as "--"). */
void sbf_hex_pair_mask(struct sb_str *o, uint64_t addr, const uint8_t *ref, const bool *rhave,
		       const uint8_t *dut, const bool *dhave, size_t len, size_t mark);

/* Name of an EQE type (the spec has value names for enums: hca_*_name()). */
const char *sbf_eqe_type(unsigned int v);

#endif /* HCASIM_SIM_SCOREBOARD_FMT_H */
