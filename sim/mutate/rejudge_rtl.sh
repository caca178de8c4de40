#!/usr/bin/env bash
# Re-judge a measured RTL mutant build after judge programs changed
# (make mutate-rtl-rejudge; docs/sim.md 11.3 "Re-judging the survivors"):
#   sim/mutate/rejudge_rtl.sh DIR JOBS PROGRAM...
# DIR is a build measured by sim/mutate/run_rtl.sh (mode MUT_MODE, default
# full: DIR/base-full, DIR/results), its bins rebuilt since (make mutate-rtl-bins with the same
# MUT_BUILD, MUT_COUNT, MUT_MODULES, MUT_SEED) from the SAME RTL: the mutants
# are the measured ones only if DIR/list.txt did not change (checked against
# the copy the baseline kept).  PROGRAM: the judge programs whose binary or
# plan changed or that are new (a test program of MUT_JUDGE_TESTS by name,
# e.g. rtl_bounds; a plan line by its name in DIR/programs-MODE.txt).
# 1. the PROGRAMs' baseline again (no mutant): each must pass; their
#    activation probes and times replace the old ones (a new program joins
#    DIR/programs-full.txt), DIR/activated.txt is recomputed;
# 2. every survivor runs only the PROGRAMs that activate it.  Exact, not an
#    estimate: the judge is deterministic, and a survivor passed every other
#    program before (its DIR/results/ID.passed), which did not change;
# 3. a mutant the old judge never activated and a PROGRAM now activates is
#    judged by every program that activates it (it was never judged);
# 4. killed mutants keep their result; then tools/mutate_rtl.py report.
set -u
dir=$1 jobs=$2; shift 2
[ $# -gt 0 ] || { echo "usage: $0 DIR JOBS PROGRAM..."; exit 2; }
dir=$(cd "$dir" && pwd)
mode=${MUT_MODE:-full}
base=$dir/base-$mode progs=$dir/programs-$mode.txt
[ -s "$base/done" ] || { echo "rejudge: $dir has no measured baseline ($base/done)"; exit 2; }
if [ -f "$base/list.txt" ] && ! cmp -s "$base/list.txt" "$dir/list.txt"; then
  echo "rejudge: $dir/list.txt differs from the measured one: the RTL or the sample changed, measure again"
  exit 2
fi
export ASAN_OPTIONS=detect_leaks=0
for p in "$@"; do
  if ! grep -q "^$p " "$progs"; then
    [ -x "$dir/$p" ] || { echo "rejudge: no judge program $p (not in $progs, no $dir/$p)"; exit 2; }
    echo "$p $dir/$p --width 64" >> "$progs"
  fi
  c=$(grep "^$p " "$progs" | cut -d' ' -f2-)
  t0=$(date +%s%N)
  if ! HCASIM_RTL_MUTANT=0 HCASIM_RTL_MUTANT_ACT=$base/$p.raw bash -c "$c" > "$base/$p.log" 2>&1; then
    echo "rejudge: $p fails on the design as written (log $base/$p.log)"; echo "0 passed, 1 failed"; exit 1
  fi
  echo $(( ($(date +%s%N) - t0) / 1000000 )) > "$base/$p.ms"
  touch "$base/$p.raw"; sort -n -u "$base/$p.raw" > "$base/$p.act"; rm -f "$base/$p.raw"
done
while read -r n c; do echo "$(cat "$base/$n.ms") $n $c"; done < "$progs" | sort -n > "$base/order.txt"
cat "$base"/*.act | sort -n -u > "$base/activated.txt"
cp "$base/activated.txt" "$dir/activated.txt"
# Which mutants to judge again: survivors (their changed programs leave
# .passed) and never-judged mutants that are activated now.
todo=
for r in "$dir"/results/*.txt; do
  read -r id st why < "$r"
  [ "$st" = survived ] || continue
  grep -qx "$id" "$dir/activated.txt" || continue
  if [ "$why" = "not activated" ]; then rm -f "$dir/results/$id.passed"
  else
    for p in "$@"; do sed -i "/^$p\$/d" "$dir/results/$id.passed" 2>/dev/null; done
  fi
  rm -f "$r"; todo="$todo $id"
done
echo "rejudge: $(echo $todo | wc -w) mutants against $*"
echo $todo | tr ' ' '\n' | grep . | parallel -j "$jobs" --joblog "$dir/joblog-rejudge" \
  "sim/mutate/judge_rtl.sh $dir $mode {}"
/usr/bin/python3 tools/mutate_rtl.py report --out "$dir" --answers sim/mutate/answers_rtl.txt
