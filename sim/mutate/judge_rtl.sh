#!/usr/bin/env bash
# One RTL mutant under the selective judge (sim/mutate/run_rtl.sh):
#   sim/mutate/judge_rtl.sh DIR MODE ID
# runs, fastest first (DIR/base-MODE/order.txt), only the judge programs whose
# baseline run activated mutant ID (DIR/base-MODE/NAME.act), each with the
# mutant selected (HCASIM_RTL_MUTANT=ID) and a time limit of MUT_TIMEOUT
# seconds (default 60) plus 5 times the program's baseline time (a hang is a
# kill); stops at the first failure.  Writes DIR/results/ID.txt:
#   ID killed PROGRAM: first failure line    or    ID survived judge passed (N programs)
set -u
dir=$1 mode=$2 id=$3
base=$dir/base-$mode
log=$dir/results/$id.log
: > "$log"
ran=0
export ASAN_OPTIONS=detect_leaks=0
while read -r ms name cmd; do
  grep -qx "$id" "$base/$name.act" || continue
  ran=$((ran + 1))
  limit=$(( ${MUT_TIMEOUT:-60} + 5 * ms / 1000 ))
  echo "== $name (limit ${limit}s): $cmd" >> "$log"
  HCASIM_RTL_MUTANT=$id timeout "$limit" bash -c "$cmd" > "$log.prog" 2>&1
  rc=$?
  cat "$log.prog" >> "$log"
  if [ "$rc" -ne 0 ]; then
    why=$(grep -m1 -E "FAIL|failed|diverge|mismatch" "$log.prog" | cut -c1-150)
    [ "$rc" -eq 124 ] && why="hang: over ${limit}s"
    rm -f "$log.prog"
    echo "$id killed $name: ${why:-exit $rc}" > "$dir/results/$id.txt"
    exit 0
  fi
done < "$base/order.txt"
rm -f "$log.prog"
echo "$id survived judge passed ($ran programs)" > "$dir/results/$id.txt"
