#!/usr/bin/env bash
# Run the test programs listed in LIST ("name<TAB>command" per line), keep
# each one's output in LOGDIR/name.log, and total their final
# "P passed, F failed" lines.  A program that exits non-zero, times out or
# does not end with that line counts one extra failure.
#   HCASIM_TEST_TIMEOUT   per-program limit in seconds (default 1200)
#   HCASIM_TESTS          space-separated names: run only these
set -uo pipefail
list=$1 logdir=$2
limit=${HCASIM_TEST_TIMEOUT:-1200}
mkdir -p "$logdir"
tp=0 tf=0 n=0
start=$(date +%s)
while IFS=$'\t' read -r name cmd; do
  [ -n "$name" ] || continue
  if [ -n "${HCASIM_TESTS:-}" ] && [[ " $HCASIM_TESTS " != *" $name "* ]]; then continue; fi
  n=$((n + 1))
  t0=$(date +%s)
  timeout --kill-after=10 "$limit" bash -c "$cmd" >"$logdir/$name.log" 2>&1 </dev/null
  rc=$?
  last=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$logdir/$name.log" | tail -n 1)
  if [ -n "$last" ]; then
    p=${last%% passed*}; f=${last#*, }; f=${f%% failed}
  else
    p=0 f=0
  fi
  note=""
  if [ $rc -ne 0 ] || [ -z "$last" ]; then
    f=$((f + 1))
    if [ $rc -eq 124 ]; then note=" (timed out after ${limit}s)"
    elif [ -z "$last" ]; then note=" (no result line; exit $rc)"
    else note=" (exit $rc)"; fi
  fi
  tp=$((tp + p)); tf=$((tf + f))
  printf '%-28s %6d passed, %4d failed  %4ds%s\n' "$name" "$p" "$f" $(( $(date +%s) - t0 )) "$note"
  if [ "$f" -ne 0 ]; then
    echo "---- $logdir/$name.log (last 30 lines) ----"
    tail -n 30 "$logdir/$name.log"
    echo "----"
  fi
done <"$list"
echo "ran $n test programs in $(( $(date +%s) - start ))s; logs in $logdir"
echo "$tp passed, $tf failed"
[ "$tf" -eq 0 ]
