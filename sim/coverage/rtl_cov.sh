#!/usr/bin/env bash
# RTL code coverage (make coverage-rtl): the make sim plan (both widths) and
# the RTL directed tests against the --coverage build, through GNU parallel;
# each Verilated model writes its counts (HCASIM_RTL_COVERAGE=DIR); then
# verilator_coverage merges them, writes the per-module summary and the
# annotated sources.
#   sim/coverage/rtl_cov.sh RTLCOV_BUILD SIM_PLAN OUT JOBS
# State machines: Verilator's user cover points need `cover property` in the
# RTL, which it has none of; the states are covered through the toggle and
# line coverage of the state registers (every bit of every state register in
# the per-module table) -- docs/sim.md "RTL code coverage".
set -u
b=$1 plan=$2 out=$3 jobs=$4
rm -rf "$out"; mkdir -p "$out/dat" "$out/annotated"
dat=$(cd "$out/dat" && pwd)
{
  for ((i = 0; i < jobs; i++)); do echo "$b/cosim --plan $plan --shard $i/$jobs --out $out/sim"; done
  for w in 64 512; do
    echo "$b/rtl_errors --width $w --engine lockstep"; echo "$b/rtl_doorbell --width $w"; echo "$b/rtl_states --width $w"; echo "$b/rtl_read --width $w"
  done
} | HCASIM_RTL_COVERAGE=$dat ASAN_OPTIONS=detect_leaks=0 parallel -j "$jobs" --joblog "$out/joblog" > "$out/jobs.log" 2>&1
verilator_coverage --write "$out/merged.dat" "$dat"/*.dat > /dev/null
verilator_coverage --annotate "$out/annotated" --annotate-min 1 "$out/merged.dat" > "$out/annotate.log" 2>&1
/usr/bin/python3 tools/rtlcov_report.py "$out/merged.dat" | tee "$out/summary.txt"
