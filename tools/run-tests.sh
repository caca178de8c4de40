#!/usr/bin/env bash
# Run the test programs listed in LIST ("name<TAB>command" per line), keep
# each one's output in LOGDIR/name.log, and total their final
# "P passed, F failed" lines.  A program that exits non-zero, times out or
# does not end with that line counts one extra failure.
#   tools/run-tests.sh LIST LOGDIR [JUNIT.xml]
# With JUNIT.xml, also writes JUnit XML there (tools/junit.py): one suite per
# program, a case for the program and one per named check it reports.
#   HCASIM_TEST_JOBS      programs run at once (default: the number of cores)
#   HCASIM_TEST_TIMEOUT   per-program limit in seconds (default 1200)
#   HCASIM_TESTS          space-separated names: run only these
#   HCASIM_TEST_RESULT_LINE=optional   a program without the result line
#                         counts "1 passed" or "1 failed" by its exit status
#                         (make regress: its targets are make targets)
# A line "@after<TAB>NAME<TAB>FIRST..." (the Makefile writes one per
# TEST_AFTER_NAME) holds NAME back until the programs FIRST have ended (NAME
# reads what they wrote).
# Each program gets HCASIM_RESULTS=LOGDIR/name.results: a file where it may
# record its named checks, one "pass|fail<TAB>name<TAB>seconds<TAB>message"
# line each (cosim and the shell tests' ok() do).
# With more than one job, the longest programs start first (their durations
# from the previous run, LOGDIR/.durations, else tests/durations.txt, else
# the mean); the per-program lines still come in the list's order, each as
# soon as it and every program before it have ended.  On a terminal, a
# progress line shows programs done of total, elapsed and estimated
# remaining time and the programs running.
set -uo pipefail
list=$1 logdir=$2 junit=${3:-}
here=$(dirname "$0")
# shellcheck source=tools/progress.sh
. "$here/progress.sh"
limit=${HCASIM_TEST_TIMEOUT:-1200}
jobs=${HCASIM_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in '' | *[!0-9]* | 0) echo "run-tests.sh: HCASIM_TEST_JOBS=$jobs: want a number >= 1" >&2; exit 2 ;; esac
mkdir -p "$logdir"
logdir=$(cd "$logdir" && pwd)	# absolute: programs may change directory
records=$logdir/.records durations=$logdir/.durations run=$logdir/.run
: >"$records"
rm -rf "$run"; mkdir -p "$run"
declare -A prev=() idx=() after=()
for f in "$here/../tests/durations.txt" "$durations"; do
  [ -f "$f" ] || continue
  while IFS=$'\t' read -r n s; do [[ $s =~ ^[0-9]+$ ]] && prev[$n]=$s; done <"$f"
done
names=() cmds=()
while IFS=$'\t' read -r name cmd; do
  [ -n "$name" ] || continue
  if [ "$name" = @after ]; then
    a=${cmd%%$'\t'*}; after[$a]="${after[$a]:-} ${cmd#*$'\t'}"; continue
  fi
  if [ -n "${HCASIM_TESTS:-}" ] && [[ " $HCASIM_TESTS " != *" $name "* ]]; then continue; fi
  idx[$name]=${#names[@]}
  names+=("$name"); cmds+=("$cmd")
done <"$list"
total=${#names[@]}
progress_init "$total"

# Known durations' mean for the unknown ones (60 s with none known).
sum=0 cnt=0
for n in "${names[@]}"; do [ -n "${prev[$n]:-}" ] && { sum=$((sum + prev[$n])); cnt=$((cnt + 1)); }; done
mean=$(( cnt > 0 ? sum / cnt : 60 ))
dur() { echo "${prev[$1]:-$mean}"; }

# The order programs start in: the list's with one job, else longest first
# (a stable sort: equal durations keep the list's order).
order=()
if [ "$jobs" -gt 1 ]; then
  while IFS=$'\t' read -r _ _ i; do order+=("$i"); done < <(
    for ((i = 0; i < total; i++)); do printf '%s\t%s\t%s\n' "$(dur "${names[i]}")" "$i" "$i"; done | sort -t$'\t' -k1,1nr -k2,2n)
else
  for ((i = 0; i < total; i++)); do order+=("$i"); done
fi

# state[i]: "" waiting, r running, d done; t0[i] start (s); pid[i]
declare -a state=() t0=() pid=()
for ((i = 0; i < total; i++)); do state[i]=""; done
start=$(date +%s)

# Program i may start: every program it runs after (in this run) has ended.
ready() {
  local a j
  for a in ${after[${names[$1]}]:-}; do
    j=${idx[$a]:-}
    [ -n "$j" ] && [ "${state[j]}" != d ] && return 1
  done
  return 0
}

launch() {
  local i=$1 name=${names[$1]} res
  res=$logdir/$name.results
  rm -f "$res" "$run/$i.done"
  t0[i]=$(date +%s)
  # In the background SIGINT and SIGQUIT are ignored (no job control): the
  # program gets them back as a program run in the foreground has them
  # (env --default-signal); timeout's pid is kept for stop_all.
  (
    s=$(date +%s)
    HCASIM_RESULTS=$res timeout --kill-after=10 "$limit" env --default-signal=INT,QUIT bash -c "${cmds[i]}" \
      >"$logdir/$name.log" 2>&1 </dev/null &
    echo $! >"$run/$i.pid"
    wait $!
    rc=$?
    printf '%s %s\n' "$rc" "$(( $(date +%s) - s ))" >"$run/$i.done.tmp" && mv "$run/$i.done.tmp" "$run/$i.done"
  ) &
  pid[i]=$!
  state[i]=r
}

# Estimated seconds left: the running programs' remaining previous durations
# and the waiting ones' laid onto the jobs in start order (the earliest free
# job takes the next).
left_est() {
  local now i k best slot=() mk=0
  now=$(date +%s)
  for ((k = 0; k < jobs; k++)); do slot[k]=0; done
  k=0
  for ((i = 0; i < total; i++)); do
    [ "${state[i]}" = r ] || continue
    local r=$(( $(dur "${names[i]}") - (now - t0[i]) ))
    slot[k]=$(( r > 1 ? r : 1 )); k=$(( (k + 1) % jobs ))
  done
  for i in "${order[@]}"; do
    [ -z "${state[i]}" ] || continue
    best=0
    for ((k = 1; k < jobs; k++)); do [ "${slot[k]}" -lt "${slot[best]}" ] && best=$k; done
    slot[best]=$(( slot[best] + $(dur "${names[i]}") ))
  done
  for ((k = 0; k < jobs; k++)); do [ "${slot[k]}" -gt "$mk" ] && mk=${slot[k]}; done
  echo "$mk"
}

show() {
  [ "${PG_ON:-0}" = 1 ] || return 0
  local i what=""
  for ((i = 0; i < total; i++)); do [ "${state[i]}" = r ] && what+="${what:+ }${names[i]}"; done
  progress_show "$done" "$what" "$(left_est)"
}

tp=0 tf=0 done=0 running=0 shown=0 said=$(date +%s)
: >"$durations.new"

# The per-program line of program i (ended), its record and duration.
report() {
  local i=$1 name=${names[$1]} rc dt last p f optional=0 note=""
  read -r rc dt <"$run/$i.done"
  last=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$logdir/$name.log" | tail -n 1)
  if [ -n "$last" ]; then
    p=${last%% passed*}; f=${last#*, }; f=${f%% failed}
  elif [ "${HCASIM_TEST_RESULT_LINE:-}" = optional ] && [ "$rc" -ne 124 ]; then
    optional=1
    if [ "$rc" -eq 0 ]; then p=1 f=0; else p=0 f=1; fi
  else
    p=0 f=0
  fi
  if [ $optional -eq 0 ] && { [ "$rc" -ne 0 ] || [ -z "$last" ]; }; then
    f=$((f + 1))
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then note="timed out after ${limit}s"
    elif [ -z "$last" ]; then note="no result line; exit $rc"
    else note="exit $rc"; fi
  elif [ $optional -eq 1 ] && [ "$rc" -ne 0 ]; then note="exit $rc"
  fi
  tp=$((tp + p)); tf=$((tf + f))
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$p" "$f" "$rc" "$dt" "$note" "$logdir/$name.log" \
    "$logdir/$name.results" >>"$records"
  printf '%s\t%s\n' "$name" "$dt" >>"$durations.new"
  printf '%-28s %6d passed, %4d failed  %4ds%s\n' "$name" "$p" "$f" "$dt" "${note:+ ($note)}"
  if [ "$f" -ne 0 ]; then
    echo "---- $logdir/$name.log (last 30 lines) ----"
    tail -n 30 "$logdir/$name.log"
    echo "----"
  fi
}

# Ctrl-C / TERM: stop the running programs (timeout, its pid in .run/N.pid,
# passes the signal on to the program's process group) before leaving.
stop_all() {
  local i t
  for ((i = 0; i < total; i++)); do
    [ "${state[i]}" = r ] || continue
    t=$(cat "$run/$i.pid" 2>/dev/null) && [ -n "$t" ] && kill -TERM "$t" 2>/dev/null
  done
  wait
  progress_clear
  echo "run-tests.sh: interrupted"
  exit 130
}
trap stop_all INT TERM

while [ "$done" -lt "$total" ]; do
  # start what may start, longest first
  for i in "${order[@]}"; do
    [ "$running" -lt "$jobs" ] || break
    [ -z "${state[i]}" ] && ready "$i" && { launch "$i"; running=$((running + 1)); }
  done
  if [ "$running" -eq 0 ]; then	# only programs waiting for one another: a cycle
    for i in "${order[@]}"; do [ -z "${state[i]}" ] && { launch "$i"; running=1; break; }; done
  fi
  show
  wait -n
  for ((i = 0; i < total; i++)); do
    if [ "${state[i]}" = r ] && [ -f "$run/$i.done" ]; then
      wait "${pid[i]}" 2>/dev/null
      state[i]=d; running=$((running - 1)); done=$((done + 1))
    fi
  done
  # the lines of the programs ended, in the list's order
  if [ "$shown" -lt "$total" ] && [ "${state[shown]}" = d ]; then
    progress_clear
    while [ "$shown" -lt "$total" ] && [ "${state[shown]}" = d ]; do report "$shown"; shown=$((shown + 1)); done
    said=$(date +%s)
  fi
  # a log (no progress line): while the lines wait for the list's head,
  # say what has ended at most once a minute, so the log is never silent
  if [ "${PG_ON:-0}" != 1 ] && [ "$done" -lt "$total" ] && [ $(( $(date +%s) - said )) -ge 60 ]; then
    echo "run-tests.sh: $done of $total programs ended, $(( $(date +%s) - start ))s"
    said=$(date +%s)
  fi
done
trap - INT TERM
progress_clear
rm -rf "$run"
# keep the durations of programs not run this time (HCASIM_TESTS subsets)
if [ -f "$durations" ]; then
  while IFS=$'\t' read -r k s; do
    [ -n "$k" ] && [ -z "${idx[$k]:-}" ] && printf '%s\t%s\n' "$k" "$s" >>"$durations.new"
  done <"$durations"
fi
mv "$durations.new" "$durations"
echo "ran $total test programs in $(( $(date +%s) - start ))s ($jobs at once); logs in $logdir"
if [ -n "$junit" ]; then
  if ! "${PYTHON:-/usr/bin/python3}" "$here/junit.py" --records "$records" --out "$junit" --name "$(basename "$junit" .xml)" \
      --expect "$tp $tf"; then
    echo "FAIL: could not write the JUnit XML $junit"
    tf=$((tf + 1))
  fi
fi
echo "$tp passed, $tf failed"
[ "$tf" -eq 0 ]
