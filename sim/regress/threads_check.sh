#!/bin/bash
# SPDX-License-Identifier: MIT
# sim_threads: the parallel step changes nothing (docs/sim.md 9.6).  Runs a
# cosim plan (default: the make sim plan, both widths, lockstep model vs
# rtl, the planted-bug runs included) twice: --threads 1 (the nodes due at a
# step advance one after another) and --threads 2 (in two threads).  Both
# runs record
#   - every transaction of every rtl engine at its host interface with its
#     device cycle (HCASIM_RTL_TXLOG: DMA reads, DMA writes with a hash of
#     their bytes -- CQEs, EQEs, payload --, frames with a hash, interrupts),
#   - every frame the engines sent, in the order the testbench handed them
#     to the wire, with its cycle as the timestamp (HCASIM_TB_CAPTURE_DIR:
#     one pcap per run),
#   - the plan's table (messages, cycles, frames, DMA KiB, interrupts,
#     mismatches, verdict) and every file cosim writes under --out
#     (divergence reports of the planted-bug runs).
# Everything must be identical byte for byte (the table but for its
# wall-clock column), and the two-thread run must have stepped in parallel.
# Usage: sim/regress/threads_check.sh COSIM [PLAN [OUT_DIR]]
set -uo pipefail
unset HCASIM_RESULTS HCASIM_TB_THREADS
cosim=$1 plan=${2:-sim/regress/sim.plan} out=${3:-build/sim/threads}
. "$(dirname "$0")/check_lib.sh"
# files of a directory tree that differ from the other tree's, or exist in one only
differs() { diff -rq "$1" "$2" | wc -l; }

rm -rf "$out"
for th in 1 2; do
	d=$out/t$th
	mkdir -p "$d/tx" "$d/pcap" "$d/sim"
	# HCASIM_TB_PAR_BACKOFF_MAX: on a busy machine the testbench falls back
	# to sequential steps for up to 65536 steps at a time; here at most 64,
	# so that a share of the steps runs in parallel whatever the load
	HCASIM_TB_PAR_BACKOFF_MAX=64 HCASIM_TB_STATS=1 HCASIM_RTL_TXLOG="$d/tx/tx" HCASIM_TB_CAPTURE_DIR="$d/pcap" \
		"$cosim" --plan "$plan" --threads "$th" --out "$d/sim" > "$d/stdout" 2> "$d/stderr"
	echo "threads $th: exit $?, $(tail -1 "$d/stdout")"
	table "$d/stdout" > "$d/table"
	# capture files are named PROGRAM-PID-N.pcap: keep N (the run's order)
	for f in "$d/pcap"/*.pcap; do
		[ -e "$f" ] && mv "$f" "$d/pcap/run-$(basename "$f" .pcap | sed 's/.*-//').pcap"
	done
done
a=$out/t1 b=$out/t2
n=$(wc -l < "$a/table")
ok "the plan ran ($n runs, the same rows in both)" '[ "$n" -gt 0 ] && cmp -s "$a/table" "$b/table"'
nt=$(ls "$a/tx" | wc -l) lines=$(cat "$a/tx"/* | wc -l)
ok "rtl transaction logs identical ($nt logs, $lines transactions with their cycles)" \
	'[ "$nt" -gt 0 ] && [ "$(differs "$a/tx" "$b/tx")" = 0 ]'
np=$(ls "$a/pcap" | wc -l) bytes=$(cat "$a/pcap"/* | wc -c)
ok "frames handed to the wire identical ($np captures, $bytes bytes with cycle stamps)" \
	'[ "$np" -gt 0 ] && [ "$(differs "$a/pcap" "$b/pcap")" = 0 ]'
nr=$(find "$a/sim" -type f | wc -l)
ok "cosim's output files identical ($nr files)" '[ "$(differs "$a/sim" "$b/sim")" = 0 ]'
p1=$(par_steps "$a/stderr")
p2=$(par_steps "$b/stderr")
ok "two threads stepped in parallel (threads 1: $p1 parallel steps, threads 2: $p2)" '[ "$p1" = 0 ] && [ "$p2" -gt 0 ]'
summary
