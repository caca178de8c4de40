#!/bin/bash
# SPDX-License-Identifier: MIT
# sim_quiet: quiet-cycle skipping changes nothing (docs/sim.md "Skipping
# quiet cycles").  Runs a cosim plan (default: the make sim plan, both widths,
# lockstep model vs rtl, the planted-bug runs included) twice: every busy
# cycle clocked (HCASIM_RTL_QUIET=0) and with skipping (the default).  Both
# runs log every transaction of every rtl engine at its host interface with
# its device cycle (HCASIM_RTL_TXLOG: each DMA read, DMA write with a hash of
# its bytes -- CQEs, EQEs, payload --, frame with a hash, interrupt) and
# print the plan's table (messages, cycles, frames, DMA KiB, interrupts,
# mismatches, verdict).  The logs must be identical file by file and line by
# line, but for the count of cycles clocked at the end; the tables must be
# identical but for the wall-clock column; and the skipping run must have
# skipped cycles and stepped in parallel (else the check proves nothing).
# make regress-threads (threads_check.sh) isolates the parallel step.
# Usage: sim/regress/quiet_check.sh COSIM [PLAN [OUT_DIR]]
set -uo pipefail
# the plan's runs are material of this check, not cases of their own
unset HCASIM_RESULTS HCASIM_TB_THREADS
cosim=$1 plan=${2:-sim/regress/sim.plan} out=${3:-build/sim/quiet}
. "$(dirname "$0")/check_lib.sh"

rm -rf "$out"
mkdir -p "$out/every" "$out/quiet"
for mode in every quiet; do
	q=1 th=2
	[ "$mode" = every ] && q=0 th=1
	HCASIM_RTL_QUIET=$q HCASIM_TB_PAR_BACKOFF_MAX=64 HCASIM_TB_STATS=1 HCASIM_RTL_TXLOG="$out/$mode/tx" \
		"$cosim" --plan "$plan" --threads $th --out "$out/$mode/sim" > "$out/$mode/stdout" 2>&1
	echo "$mode: exit $?, $(tail -1 "$out/$mode/stdout")"
	table "$out/$mode/stdout" > "$out/$mode/table"
	# the end line's count of cycles clocked is what skipping changes
	cat "$out/$mode"/tx.* | awk '$2 == "end:" { c += $3; q += $6 } END { print c + 0, q + 0 }' > "$out/$mode/clocked"
	for f in "$out/$mode"/tx.*; do
		sed -i 's/^\([0-9]*\) end: [0-9]* cycles clocked, [0-9]* quiet skipped$/\1 end/' "$f"
	done
done
# (cosim exits 1 when a run fails: compared, not judged here -- sim_cosim judges the plan)
n=$(table "$out/every/stdout" | wc -l)
ok "the plan ran ($n runs, the same in both modes)" '[ "$n" -gt 0 ] && cmp -s "$out/every/table" "$out/quiet/table"'
ne=$(ls "$out/every" | grep -c '^tx\.') nq=$(ls "$out/quiet" | grep -c '^tx\.')
ok "one transaction log per rtl engine ($ne, $nq)" '[ "$ne" -gt 0 ] && [ "$ne" = "$nq" ]'
lines=$(cat "$out/every"/tx.* | wc -l)
diffs=$(txlog_diffs "$out/every" "$out/quiet")
ok "the transaction logs are identical ($lines transactions with their cycles, $diffs files differ)" '[ $diffs = 0 ]'
read -r ce qe < "$out/every/clocked"
read -r cq qq < "$out/quiet/clocked"
ok "skipping skips (every cycle: $ce clocked; skipping: $cq clocked, $qq quiet cycles jumped)" \
	'[ "$qe" = 0 ] && [ "$qq" -gt 0 ] && [ $((cq + qq)) = "$ce" ]'
pe=$(par_steps "$out/every/stdout")
pq=$(par_steps "$out/quiet/stdout")
ok "the skipping run stepped in two threads (every cycle: $pe parallel steps; skipping: $pq)" \
	'[ "$pe" = 0 ] && [ "$pq" -gt 0 ]'
summary
