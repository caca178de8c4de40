#!/bin/bash
# SPDX-License-Identifier: MIT
# Two cosim binaries simulate the same cycles (docs/sim.md 9.9): a change
# made for simulation speed only (the harness, the Verilated build, the
# simulation top rtl/tb/hca_sim.sv, an RTL restructuring meant to keep every
# cycle) must leave every transaction of every rtl engine where it was.
# Runs a cosim plan (default: the make sim plan, both widths, lockstep model
# vs rtl, the planted-bug runs included) with each binary, one thread, with
# HCASIM_RTL_TXLOG (each DMA read, DMA write with a hash of its bytes, frame
# with a hash, interrupt, with its device cycle; the end line with the cycles
# clocked and skipped).  The logs must be identical file by file and line by
# line, the end lines included, and the plan's tables identical but for the
# wall-clock column.  sim_quiet (quiet_check.sh) is the same comparison
# between every-cycle and skipping runs of one binary.
# Usage: sim/regress/same_check.sh COSIM_BEFORE COSIM_AFTER [PLAN [OUT_DIR]]
set -uo pipefail
unset HCASIM_RESULTS HCASIM_TB_THREADS
a=$1 b=$2 plan=${3:-sim/regress/sim.plan} out=${4:-build/sim/same}
. "$(dirname "$0")/check_lib.sh"

rm -rf "$out"
mkdir -p "$out/before" "$out/after"
for side in before after; do
	cosim=$a
	[ "$side" = after ] && cosim=$b
	SECONDS=0
	HCASIM_RTL_TXLOG="$out/$side/tx" "$cosim" --plan "$plan" --threads 1 --out "$out/$side/sim" \
		> "$out/$side/stdout" 2>&1
	echo "$side: exit $?, $(tail -1 "$out/$side/stdout"), ${SECONDS} s"
	table "$out/$side/stdout" > "$out/$side/table"
done
n=$(wc -l < "$out/before/table")
ok "the plan ran ($n runs, the same table with both binaries)" \
	'[ "$n" -gt 0 ] && cmp -s "$out/before/table" "$out/after/table"'
nb=$(ls "$out/before" | grep -c '^tx\.') na=$(ls "$out/after" | grep -c '^tx\.')
ok "one transaction log per rtl engine ($nb, $na)" '[ "$nb" -gt 0 ] && [ "$nb" = "$na" ]'
lines=$(cat "$out/before"/tx.* | wc -l)
diffs=$(txlog_diffs "$out/before" "$out/after")
ok "the transaction logs are identical ($lines lines with their cycles, $diffs files differ)" '[ $diffs = 0 ]'
summary
