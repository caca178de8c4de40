#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/bench_summary.py reads what the bench programs print: run each of
# them briefly (bench_rtl on 64 B and 4 KiB with a short stream, the
# bench-sim run with a few messages, bench-shim with small iteration counts)
# and check that the summary finds every figure of the table in their real
# output -- a bench whose output format drifted from the parser fails here,
# not silently in make bench.  Their CSV tables go to the scratch directory
# too (build/bench/ keeps make bench's).
#   tests/bench/summary.sh BENCH_RTL COSIM HCASIM SOCKFLOOR
set -u
bench_rtl=$1 cosim=$2 hcasim=$3 sockfloor=$4
PYTHON=${PYTHON:-/usr/bin/python3}
d=$(mktemp -d "${TMPDIR:-/tmp}/hcasim-bsum.XXXXXX")
p=0 f=0
check() { if [ "$1" -eq 0 ]; then p=$((p + 1)); else f=$((f + 1)); echo "FAIL: $2"; fi; }

"$bench_rtl" --sizes 64,4096 --messages 12 --depth 4 --no-model > "$d/rtl.log" 2>&1
check $? "bench_rtl on 64 B and 4 KiB"
BENCH_SIM_CSV=$d/sim.csv sim/regress/bench.sh "$cosim" 40 4 > "$d/sim.log" 2>&1
check $? "bench-sim run with 40/4 messages"
BENCH_SHIM_SPECS="64 300,65536 40" BENCH_SHIM_CSV=$d/shim.csv SOCKFLOOR=$sockfloor HCASIM=$hcasim \
  bash driver-shim/tests/bench.sh > "$d/shim.log" 2>&1
check $? "bench-shim run with small iteration counts"
"$PYTHON" tools/bench_summary.py "$d" > "$d/summary.txt"
check $? "bench_summary.py runs"
rows=$("$PYTHON" -c 'import csv, sys; print(len(list(csv.DictReader(open(sys.argv[1])))))' "$d/summary.csv" 2>/dev/null)
[ "${rows:-0}" -eq 17 ]; check $? "17 rows in summary.csv (got ${rows:-none})"
missing=$("$PYTHON" -c 'import csv, sys
print(" ".join(r["id"] for r in csv.DictReader(open(sys.argv[1])) if r["value"] == "-"))' "$d/summary.csv" 2>/dev/null)
[ -z "$missing" ]; check $? "every figure found in the bench outputs (missing: $missing)"
grep -q "PASS\|MISS" "$d/summary.txt"; check $? "verdicts printed"
grep -q "socket floor" "$d/summary.txt"; check $? "the socket floor found and used"
if [ "$f" -ne 0 ]; then cat "$d/summary.txt"; tail -n 5 "$d"/*.log; else rm -rf "$d"; fi
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
