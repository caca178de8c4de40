#!/usr/bin/env bash
# Run the test programs listed in LIST ("name<TAB>command" per line), keep
# each one's output in LOGDIR/name.log, and total their final
# "P passed, F failed" lines.  A program that exits non-zero, times out or
# does not end with that line counts one extra failure.
#   tools/run-tests.sh LIST LOGDIR [JUNIT.xml]
# With JUNIT.xml, also writes JUnit XML there (tools/junit.py): one suite per
# program, a case for the program and one per named check it reports.
#   HCASIM_TEST_TIMEOUT   per-program limit in seconds (default 1200)
#   HCASIM_TESTS          space-separated names: run only these
#   HCASIM_TEST_RESULT_LINE=optional   a program without the result line
#                         counts "1 passed" or "1 failed" by its exit status
#                         (make regress: its targets are make targets)
# Each program gets HCASIM_RESULTS=LOGDIR/name.results: a file where it may
# record its named checks, one "pass|fail<TAB>name<TAB>seconds<TAB>message"
# line each (cosim and the shell tests' ok() do).  On a terminal, a progress
# line shows programs done of total, elapsed and estimated remaining time
# (from the previous run's durations, LOGDIR/.durations).
set -uo pipefail
list=$1 logdir=$2 junit=${3:-}
here=$(dirname "$0")
# shellcheck source=tools/progress.sh
. "$here/progress.sh"
limit=${HCASIM_TEST_TIMEOUT:-1200}
mkdir -p "$logdir"
logdir=$(cd "$logdir" && pwd)	# absolute: programs may change directory
records=$logdir/.records durations=$logdir/.durations
: >"$records"
declare -A prev=()
if [ -f "$durations" ]; then
  while IFS=$'\t' read -r n s; do prev[$n]=$s; done <"$durations"
fi
names=()
while IFS=$'\t' read -r name _; do
  [ -n "$name" ] || continue
  if [ -n "${HCASIM_TESTS:-}" ] && [[ " $HCASIM_TESTS " != *" $name "* ]]; then continue; fi
  names+=("$name")
done <"$list"
progress_init "${#names[@]}"

# Estimated seconds left before program $1 (index) starts: the previous
# durations of it and the ones after it, the mean so far for unknown ones.
left_from() {
  local i=$1 s=0 k mean=$2
  for ((k = i; k < ${#names[@]}; k++)); do s=$((s + ${prev[${names[k]}]:-$mean})); done
  echo "$s"
}

tp=0 tf=0 n=0
: >"$durations.new"
start=$(date +%s)
while IFS=$'\t' read -r name cmd; do
  [ -n "$name" ] || continue
  if [ -n "${HCASIM_TESTS:-}" ] && [[ " $HCASIM_TESTS " != *" $name "* ]]; then continue; fi
  el=$(( $(date +%s) - start ))
  mean=$(( n > 0 ? el / n : 60 ))
  progress_show "$n" "$name" "$(left_from "$n" "$mean")"
  n=$((n + 1))
  t0=$(date +%s)
  res=$logdir/$name.results
  rm -f "$res"
  HCASIM_RESULTS=$res timeout --kill-after=10 "$limit" bash -c "$cmd" >"$logdir/$name.log" 2>&1 </dev/null
  rc=$?
  dt=$(( $(date +%s) - t0 ))
  last=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$logdir/$name.log" | tail -n 1)
  optional=0
  if [ -n "$last" ]; then
    p=${last%% passed*}; f=${last#*, }; f=${f%% failed}
  elif [ "${HCASIM_TEST_RESULT_LINE:-}" = optional ] && [ $rc -ne 124 ]; then
    optional=1
    if [ $rc -eq 0 ]; then p=1 f=0; else p=0 f=1; fi
  else
    p=0 f=0
  fi
  note=""
  if [ $optional -eq 0 ] && { [ $rc -ne 0 ] || [ -z "$last" ]; }; then
    f=$((f + 1))
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then note="timed out after ${limit}s"
    elif [ -z "$last" ]; then note="no result line; exit $rc"
    else note="exit $rc"; fi
  elif [ $optional -eq 1 ] && [ $rc -ne 0 ]; then note="exit $rc"
  fi
  tp=$((tp + p)); tf=$((tf + f))
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$p" "$f" "$rc" "$dt" "$note" "$logdir/$name.log" "$res" >>"$records"
  printf '%s\t%s\n' "$name" "$dt" >>"$durations.new"
  progress_clear
  printf '%-28s %6d passed, %4d failed  %4ds%s\n' "$name" "$p" "$f" "$dt" "${note:+ ($note)}"
  if [ "$f" -ne 0 ]; then
    echo "---- $logdir/$name.log (last 30 lines) ----"
    tail -n 30 "$logdir/$name.log"
    echo "----"
  fi
done <"$list"
# keep the durations of programs not run this time (HCASIM_TESTS subsets)
for k in "${!prev[@]}"; do grep -q "^$k	" "$durations.new" || printf '%s\t%s\n' "$k" "${prev[$k]}" >>"$durations.new"; done
mv "$durations.new" "$durations"
echo "ran $n test programs in $(( $(date +%s) - start ))s; logs in $logdir"
if [ -n "$junit" ]; then
  if ! "${PYTHON:-/usr/bin/python3}" "$here/junit.py" --records "$records" --out "$junit" --name "$(basename "$junit" .xml)" \
      --expect "$tp $tf"; then
    echo "FAIL: could not write the JUnit XML $junit"
    tf=$((tf + 1))
  fi
fi
echo "$tp passed, $tf failed"
[ "$tf" -eq 0 ]
