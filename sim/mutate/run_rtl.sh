#!/usr/bin/env bash
# RTL mutation judge (make mutate-rtl, and the sample in make test).
#   sim/mutate/run_rtl.sh DIR short|full JOBS [SHARD i/N] [SAMPLE]
# DIR holds the mutant build (tools/mutate_rtl.py, sim/coverage.mk): cosim and
# the RTL directed tests linked against the one Verilated model whose mutated
# modules hold every mutant.
# The judge is a list of programs (DIR/programs-MODE.txt, "name command"):
# every width-64 line of the make sim plan without a planted bug, each as its
# own one-line plan (short: only the quick directed lines, SHORT_PLAN), and
# the RTL directed tests at width 64.
# 1. baseline: every program runs once with no mutant selected (GNU parallel,
#    -j JOBS); each must pass, and its activation probes say which mutants it
#    reaches (DIR/base-MODE/NAME.act), its time orders the programs;
# 2. selective judging, as MCY and coverage-driven mutation tools do it: a
#    mutant runs only the programs that activate it, fastest first, stopping
#    at the first that fails (sim/mutate/judge_rtl.sh).  Exact, not an
#    estimate: in a program where the mutation's mux never produced a
#    different value, the mutant's run is the design's run.  A mutant that no
#    program activates is "not covered" and is not run;
# 3. tools/mutate_rtl.py report: killed / survived / not covered.
# Mutants are judged by GNU parallel, -j JOBS, one result file per mutant in
# DIR/results/ ("ID killed|survived|pending reason"); a result already there
# is kept (a stopped run resumes; rm -rf DIR/results to judge again).
# MUT_MAX_MS=T judges breadth first: only programs whose baseline took at
# most T ms run, the rest is left "pending" for a run without MUT_MAX_MS.
# SHARD i/N judges only the ids with id % N == i (one job of a Slurm array;
# run the baseline first: SHARD "base" runs it alone);
# SAMPLE judges that many activated mutants (seeded pick; the make test sample).
set -u
SHORT_PLAN=${MUT_SHORT_PLAN:-multi_qp imm_se uc ud atomics sge16}
dir=$1 mode=$2 jobs=$3 shard=${4:-} sample=${5:-0}
dir=$(cd "$dir" && pwd)
base=$dir/base-$mode
progs=$dir/programs-$mode.txt
mkdir -p "$base" "$dir/plans" "$dir/results"
export ASAN_OPTIONS=detect_leaks=0

# The judge's programs.
if [ ! -s "$base/done" ]; then
  rm -f "$progs" "$base"/*
  k=0
  grep -E '^[a-z_0-9]+[[:space:]]+64[[:space:]]' sim/regress/sim.plan | grep -v -E 'expect=|bug=' | while read -r line; do
    k=$((k + 1))
    t=$(echo "$line" | awk '{print $1 "-s" $3}')
    [ "$mode" = short ] && ! echo " $SHORT_PLAN " | grep -q " ${t%%-*} " && continue
    echo "$line" > "$dir/plans/$k.plan"
    echo "plan$k-$t $dir/cosim --plan $dir/plans/$k.plan --out $dir/sim/$k" >> "$progs"
  done
  for t in rtl_regs rtl_doorbell rtl_states rtl_read rtl_retry rtl_rc rtl_errors rtl_sgl rtl_mgmt rtl_bounds rtl_ctx_rewrite rtl_scatter_long rtl_resp_state rtl_req_comp rtl_comp_corners; do
    [ -x "$dir/$t" ] && echo "$t $dir/$t --width 64" >> "$progs"
  done
  # Baseline: no mutant; NAME.act the probes that fired, NAME.sec the time.
  export base
  export base progs
  cut -d' ' -f1 "$progs" | parallel -j "$jobs" \
    'c=$(grep "^{} " $progs | cut -d" " -f2-); t0=$(date +%s%N);
     if HCASIM_RTL_MUTANT=0 HCASIM_RTL_MUTANT_ACT=$base/{}.raw bash -c "$c" > $base/{}.log 2>&1; then
       echo $(( ($(date +%s%N) - t0) / 1000000 )) > $base/{}.ms; else echo {} >> $base/failed; fi;
     touch $base/{}.raw; sort -n -u $base/{}.raw > $base/{}.act; rm -f $base/{}.raw'
  if [ -s "$base/failed" ]; then
    echo "mutate-rtl: the judge fails on the design as written: $(tr '\n' ' ' < "$base/failed")(logs in $base)"
    echo "0 passed, 1 failed"; exit 1
  fi
  # programs ordered fastest first: "ms name command"
  while read -r n c; do echo "$(cat "$base/$n.ms") $n $c"; done < "$progs" | sort -n > "$base/order.txt"
  cat "$base"/*.act | sort -n -u > "$base/activated.txt"
  cp "$dir/list.txt" "$base/list.txt"  # the measured sample (sim/mutate/rejudge_rtl.sh checks it)
  echo ok > "$base/done"
fi
[ "$shard" = base ] && { echo "mutate-rtl: baseline of $(wc -l < "$base/order.txt") programs in $base"; exit 0; }
cp "$base/activated.txt" "$dir/activated.txt"
n=$(wc -l < "$dir/list.txt")
ids=$(seq 1 "$n")
if [ -n "$shard" ]; then i=${shard%/*} N=${shard#*/}; ids=$(for k in $ids; do [ $((k % N)) -eq "$i" ] && echo "$k"; done); fi
todo=$(echo "$ids" | grep -x -F -f "$base/activated.txt")
if [ "$sample" -gt 0 ]; then todo=$(echo "$todo" | shuf -n "$sample" --random-source=<(yes)); echo "$todo" > "$dir/sample-todo.txt"; fi
for k in $(echo "$ids" | grep -v -x -F -f "$base/activated.txt"); do
  echo "$k survived not activated" > "$dir/results/$k.txt"
done
echo "$todo" | grep . | parallel -j "$jobs" --joblog "$dir/joblog-$mode" \
  "grep -qs -E ' (killed|survived) ' $dir/results/{}.txt || sim/mutate/judge_rtl.sh $dir $mode {}"
res=results
if [ "$sample" -gt 0 ]; then  # the sample only: report on the judged ones
  res=sample
  mkdir -p "$dir/sample"; rm -f "$dir/sample/"*.txt
  for k in $todo; do [ -s "$dir/results/$k.txt" ] && cp "$dir/results/$k.txt" "$dir/sample/"; done
fi
/usr/bin/python3 tools/mutate_rtl.py report --out "$dir" --results "$res" --answers sim/mutate/answers_rtl.txt
