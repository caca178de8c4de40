#!/usr/bin/env bash
# RTL mutation judge (make mutate-rtl, and the short sample in make test).
#   sim/mutate/run_rtl.sh DIR short|full JOBS [SHARD i/N] [SAMPLE]
# DIR holds the mutant build (tools/mutate_rtl.py, sim/coverage.mk): cosim,
# rtl_doorbell, rtl_errors, rtl_states linked against the one Verilated model
# whose mutated modules hold every mutant.
# 1. the judge runs once with no mutant selected: it must pass, and the
#    activation probes say which mutants it reaches (DIR/activated.txt);
# 2. every activated mutant (HCASIM_RTL_MUTANT=id) is judged by GNU parallel,
#    -j JOBS, one result file per mutant in DIR/results/; a mutant the judge
#    fails (or that hangs past the time limit) is killed;
# 3. tools/mutate_rtl.py report: killed / survived / not covered.
# SHARD i/N judges only the ids with id % N == i (one job of a Slurm array);
# SAMPLE judges that many activated mutants (seeded pick; the make test sample).
# The judge: the width-64 lines of the make sim plan without planted bugs
# (short: multi_qp, imm_se, uc, ud), rtl_doorbell, rtl_states, and
# (full) rtl_errors.
set -u
dir=$1 mode=$2 jobs=$3 shard=${4:-} sample=${5:-0}
dir=$(cd "$dir" && pwd)
plan=$dir/judge-$mode.plan
if [ "$mode" = short ]; then
  grep -E '^(multi_qp|imm_se|uc|ud)[[:space:]]+64[[:space:]]' sim/regress/sim.plan | grep -v 'expect=' > "$plan"
else
  grep -E '^[a-z_0-9]+[[:space:]]+64[[:space:]]' sim/regress/sim.plan | grep -v 'expect=' > "$plan"
fi
limit=${MUT_TIMEOUT:-150}
judge="timeout $limit $dir/cosim --plan $plan --out $dir/sim && timeout $limit $dir/rtl_doorbell --width 64"
judge="$judge && timeout $limit $dir/rtl_states --width 64"
[ "$mode" = full ] && judge="$judge && timeout $limit $dir/rtl_errors --width 64 --engine lockstep"
echo "$judge" > "$dir/judge-$mode.cmd"
mkdir -p "$dir/results"
if [ ! -s "$dir/activated-$mode.txt" ]; then
  rm -f "$dir/act-raw.txt"
  if ! HCASIM_RTL_MUTANT=0 HCASIM_RTL_MUTANT_ACT=$dir/act-raw.txt bash -c "$judge" > "$dir/baseline-$mode.log" 2>&1; then
    echo "mutate-rtl: the judge fails on the design as written ($dir/baseline-$mode.log)"; echo "0 passed, 1 failed"; exit 1
  fi
  sort -n -u "$dir/act-raw.txt" > "$dir/activated-$mode.txt"
fi
cp "$dir/activated-$mode.txt" "$dir/activated.txt"
n=$(wc -l < "$dir/list.txt")
ids=$(seq 1 "$n")
if [ -n "$shard" ]; then i=${shard%/*} N=${shard#*/}; ids=$(for k in $ids; do [ $((k % N)) -eq "$i" ] && echo "$k"; done); fi
todo=$(for k in $ids; do grep -qx "$k" "$dir/activated.txt" && echo "$k"; done)
if [ "$sample" -gt 0 ]; then todo=$(echo "$todo" | shuf -n "$sample" --random-source=<(yes)); fi
for k in $ids; do grep -qx "$k" "$dir/activated.txt" || echo "$k survived not activated" > "$dir/results/$k.txt"; done
export dir judge
echo "$todo" | grep . | parallel -j "$jobs" --joblog "$dir/joblog-$mode" \
  'if HCASIM_RTL_MUTANT={} bash -c "$judge" > $dir/results/{}.log 2>&1; then echo "{} survived judge passed" > $dir/results/{}.txt;
   else echo "{} killed $(grep -m1 -E "FAIL|failed|diverge" $dir/results/{}.log | cut -c1-150)" > $dir/results/{}.txt; fi'
if [ "$sample" -gt 0 ]; then  # the sample only: report on the judged ones
  keep=$(echo "$todo" | tr '\n' ' ')
  mkdir -p "$dir/sample"; rm -f "$dir/sample/"*.txt
  for k in $keep; do cp "$dir/results/$k.txt" "$dir/sample/"; done
fi
res=results; [ "$sample" -gt 0 ] && res=sample
/usr/bin/python3 tools/mutate_rtl.py report --out "$dir" --results "$res" --answers sim/mutate/answers_rtl.txt
