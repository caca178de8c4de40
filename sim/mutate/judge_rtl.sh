#!/usr/bin/env bash
# One RTL mutant under the selective judge (sim/mutate/run_rtl.sh):
#   sim/mutate/judge_rtl.sh DIR MODE ID
# runs, fastest first (DIR/base-MODE/order.txt), only the judge programs whose
# baseline run activated mutant ID (DIR/base-MODE/NAME.act), each with the
# mutant selected (HCASIM_RTL_MUTANT=ID) and a time limit of MUT_TIMEOUT
# seconds (default 20) plus 10 times the program's baseline time (a hang is a
# kill); stops at the first failure.  Writes DIR/results/ID.txt:
#   ID killed PROGRAM: first failure line
#   ID survived judge passed (N programs)
#   ID pending N programs passed, M slower ones not run yet
# The last with MUT_MAX_MS=T: programs whose baseline took over T ms are
# left for a later pass (breadth first: every mutant meets the fast programs
# before any meets the slow ones).  Programs passed are kept in
# DIR/results/ID.passed and not run again.
set -u
dir=$1 mode=$2 id=$3
base=$dir/base-$mode
log=$dir/results/$id.log passed=$dir/results/$id.passed
touch "$passed"
ran=0 left=0
export ASAN_OPTIONS=detect_leaks=0
while read -r ms name cmd; do
  grep -qx "$id" "$base/$name.act" || continue
  grep -qx "$name" "$passed" && { ran=$((ran + 1)); continue; }
  if [ -n "${MUT_MAX_MS:-}" ] && [ "$ms" -gt "$MUT_MAX_MS" ]; then left=$((left + 1)); continue; fi
  limit=$(( ${MUT_TIMEOUT:-20} + 10 * ms / 1000 ))
  echo "== $name (limit ${limit}s): $cmd" >> "$log"
  HCASIM_RTL_MUTANT=$id timeout "$limit" bash -c "$cmd" > "$log.prog" 2>&1
  rc=$?
  cat "$log.prog" >> "$log"
  if [ "$rc" -ne 0 ]; then
    why=$(grep -m1 -E "FAIL|[Dd]iverge|[1-9][0-9]* failed|ERROR|Assert" "$log.prog" | tr -s ' ' | cut -c1-150)
    [ "$rc" -eq 124 ] && why="hang: over ${limit}s"
    rm -f "$log.prog"
    echo "$id killed $name: ${why:-exit $rc}" > "$dir/results/$id.txt"
    exit 0
  fi
  echo "$name" >> "$passed"
  ran=$((ran + 1))
done < "$base/order.txt"
rm -f "$log.prog"
if [ "$left" -gt 0 ]; then
  echo "$id pending $ran programs passed, $left slower ones not run yet" > "$dir/results/$id.txt"
else
  echo "$id survived judge passed ($ran programs)" > "$dir/results/$id.txt"
fi
