/* SPDX-License-Identifier: MIT */
/*
 * Per-stream transaction scoreboard: the comparison core of the lockstep
 * engine (sim/lockstep.h, docs/sim.md).
 *
 * Two sides, the reference (SB_REF, the C model) and the design under test
 * (SB_DUT, the RTL), push the transactions they produce into named streams.
 * Inside a stream the ORDER must match exactly; timing may differ.  Streams
 * come in two kinds:
 *
 *   SB_MSG  whole transactions compared as units (frames, interrupt vectors,
 *           engine events): transaction i of one side against transaction i
 *           of the other, length and bytes.
 *   SB_DMA  an ordered byte stream with addresses (DMA writes to one queue or
 *           memory region): byte k of one side must have the same address
 *           and value as byte k of the other, so the same bytes written in
 *           different bursts match, while a different byte, address or order
 *           does not.
 *
 * The FIRST divergence is recorded (stream, cycle, both transactions, a
 * field-by-field diff; see struct sb_divergence); after it the scoreboard
 * accepts pushes but compares nothing more.  With `ref_leads` set (the
 * lockstep engine's mode: the untimed reference always runs ahead of the
 * DUT), a DUT transaction for which the reference has produced nothing is a
 * divergence at once; otherwise it waits for the reference.  sb_check_end()
 * turns transactions one side produced and the other never did into a
 * divergence.
 */
#ifndef HCASIM_SIM_SCOREBOARD_H
#define HCASIM_SIM_SCOREBOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum sb_side { SB_REF = 0, SB_DUT = 1 };

enum sb_kind {
	SB_MSG = 0,	/* transactions compared whole */
	SB_DMA = 1,	/* addressed byte stream */
	SB_ENTRY = 2,	/* ring of CQEs/EQEs (fmt SB_FMT_CQE/EQE), see sb_push_entries */
};

/* How transactions are decoded in reports. */
enum sb_fmt {
	SB_FMT_RAW = 0,		/* hex bytes */
	SB_FMT_FRAME,		/* Ethernet/IPv4/UDP/BTH/ext headers/payload/ICRC */
	SB_FMT_IRQ,		/* uint32_t MSI-X vector */
	SB_FMT_EVENT,		/* uint32_t type, uint32_t element (engine event FIFO) */
	SB_FMT_CQE,		/* DMA: hca_cqe entries at base + i * HCA_CQE_SIZE */
	SB_FMT_EQE,		/* DMA: hca_eqe entries at base + i * HCA_EQE_SIZE */
	SB_FMT_MEM,		/* DMA: memory region, offsets from base */
};

struct sb;

struct sb_divergence {
	char stream[32];	/* stream name: "tx", "irq", "evt", "cq3", "eq0", "mr2", "dma-other", "mgmt-read", ... */
	char field[48];		/* first differing field: "bth.se", "byte_len", "addr", "vector",
				 * "missing" (ref produced, DUT never did), "extra" (DUT only), a register name, ... */
	uint64_t cycle;		/* DUT cycle at which the divergence was seen */
	uint64_t ref_cycle;	/* cycle at which the reference produced its side (UINT64_MAX: none) */
	uint64_t dut_cycle;	/* cycle at which the DUT produced its side (UINT64_MAX: none) */
	uint64_t index;		/* transaction index in the stream (DMA: write index of the DUT side) */
	char summary[320];	/* one line */
	const char *report;	/* the full multi-line report */
};

struct sb_stream_stats {
	const char *name;
	enum sb_kind kind;
	uint64_t matched;	/* transactions (SB_MSG) or bytes (SB_DMA, SB_ENTRY) that matched */
	uint64_t pushed[2];	/* transactions pushed per side */
	uint64_t pending[2];	/* transactions (MSG) or bytes (DMA) waiting per side */
};

/* `label` names the device in reports ("node 1", ...); copied. NULL on ENOMEM. */
struct sb *sb_create(const char *label);
void sb_destroy(struct sb *sb);
void sb_set_label(struct sb *sb, const char *label);
/* See the header comment. Default false. */
void sb_set_ref_leads(struct sb *sb, bool on);

/*
 * The stream called `name` (created on first use; kind and fmt are taken
 * from the first call).  `what` is a human description for reports
 * ("frames sent on port 1"), may be NULL.  Returns its id, or -1 (ENOMEM,
 * name too long).
 */
int sb_stream(struct sb *sb, const char *name, enum sb_kind kind, enum sb_fmt fmt, const char *what);

/*
 * Push one transaction.  Returns false once the scoreboard has diverged
 * (this push or earlier).  For SB_DMA, `addr` is the first byte's address
 * and `base` the start of the ring or region it belongs to (for entry
 * decoding and offsets); SB_MSG ignores both.  Zero-length pushes are
 * ignored.
 */
bool sb_push(struct sb *sb, int stream, enum sb_side side, uint64_t cycle, const void *data,
	     size_t len);
bool sb_push_dma(struct sb *sb, int stream, enum sb_side side, uint64_t cycle, uint64_t addr,
		 uint64_t base, const void *data, size_t len);
/*
 * SB_ENTRY (a CQ or EQ ring at `base`): DMA writes are assembled per ring
 * slot, however they are split; a slot whose entry is complete becomes one
 * transaction.  Entries are matched per key -- CQE: (QPN, send or receive),
 * EQE: (type, async subtype, element) -- because the specification orders
 * completions per work queue and events per object, not across them (two
 * engine pipelines may finish a send and a receive in either order).  The
 * k-th entry each side completes must also be in the same slot with the same
 * owner bit (ring order and phase).
 */
bool sb_push_entries(struct sb *sb, int stream, enum sb_side side, uint64_t cycle, uint64_t addr,
		     uint64_t base, const void *data, size_t len);
/*
 * SB_MSG with a key: order is kept among the transactions of one key only
 * (a new transaction is matched with the oldest waiting one of the same key
 * on the other side); sb_push() is key 0.  When the reference leads and has
 * nothing waiting with the DUT transaction's key, the DUT transaction is
 * compared with the reference's oldest waiting one of any key (a corrupted
 * key still gets a field diff).
 */
bool sb_push_key(struct sb *sb, int stream, enum sb_side side, uint64_t cycle, uint64_t key,
		 const void *data, size_t len);

/*
 * Compare two values read at the same moment (register reads): a mismatch
 * is a divergence in `stream` with field `what`.  `detail` (may be NULL)
 * is added to the report.  Returns false once diverged.
 */
bool sb_compare_value(struct sb *sb, const char *stream, uint64_t cycle, const char *what,
		      uint64_t ref, uint64_t dut, const char *detail);

/* Record a divergence of any other kind (first one wins); printf-style report body. */
void sb_fail(struct sb *sb, const char *stream, const char *field, uint64_t cycle,
	     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/*
 * The same with a report body of any length (lines "  name  : ...", e.g. a
 * frame diff from sim/scoreboard_fmt.h), the cycles at which each side
 * produced its transaction (UINT64_MAX: none) and the values of the first
 * differing field ("ref 0x126, dut 0x127") for the summary and the
 * report's "first" line.
 */
void sb_fail_report(struct sb *sb, const char *stream, const char *field, uint64_t cycle, uint64_t ref_cycle,
		    uint64_t dut_cycle, const char *body, const char *values);

/*
 * Transactions still waiting on either side become a divergence ("missing"
 * when the reference produced something the DUT never did, "extra" for the
 * reverse), reported for the stream whose oldest waiting transaction is
 * oldest.  `why` says when the check ran ("end of test", "DUT idle").
 * Returns true when everything matched.  Only SB_REF leftovers are checked
 * when `ref_only` is set.
 */
bool sb_check_end(struct sb *sb, uint64_t cycle, const char *why, bool ref_only);
/*
 * Drop every waiting transaction of both sides (an engine reset: work in
 * flight is discarded by the DUT and was already done by the reference).
 * Returns how many were dropped.
 */
uint64_t sb_flush(struct sb *sb);
/* True when no stream has transactions waiting on `side`. */
bool sb_drained(const struct sb *sb, enum sb_side side);

bool sb_failed(const struct sb *sb);
/* NULL while no divergence was recorded. */
const struct sb_divergence *sb_divergence(const struct sb *sb);

/*
 * Apply the reference's DMA writes that the DUT has not yet matched to
 * `buf`, which holds host memory [addr, addr+len): the reference's view of
 * memory it wrote itself (its writes are recorded, not performed).  Writes
 * are applied oldest first.
 */
void sb_overlay(const struct sb *sb, uint64_t addr, void *buf, size_t len);

unsigned int sb_num_streams(const struct sb *sb);
int sb_stream_stats(const struct sb *sb, unsigned int i, struct sb_stream_stats *st);
/* Sum of matched transactions over SB_MSG streams whose name starts with `prefix`
 * (NULL: all), or of matched bytes over SB_DMA streams. */
uint64_t sb_matched(const struct sb *sb, enum sb_kind kind, const char *prefix);
/* Register reads compared so far. */
uint64_t sb_values_compared(const struct sb *sb);

#ifdef __cplusplus
}
#endif

#endif /* HCASIM_SIM_SCOREBOARD_H */
