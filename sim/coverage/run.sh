#!/usr/bin/env bash
# make coverage (functional part): every job that collects counts, run by
# GNU parallel (-j = cores).  Counts go to OUT/func/*.cov, logs to OUT/logs/.
#   sim/coverage/run.sh COSIM OUT JOBS BINDIR SIM_PLAN
# A job that fails is listed (its coverage still counts: a failing test
# exercised what it exercised); the report is tools/covreport.py's.
set -u
cosim=$1 out=$2 jobs=$3 bin=$4 plan=$5
rm -rf "$out/func" "$out/logs"
mkdir -p "$out/func" "$out/logs"
func=$(cd "$out/func" && pwd)
list="$out/logs/jobs.txt"
{
  # make sim's plan: RTL as DUT against the model, both widths, sharded.
  for ((i = 0; i < jobs; i++)); do
    echo "$cosim --plan $plan --shard $i/$jobs --cov $func --out $out/sim --result $out/logs/sim-$i.txt"
  done
  echo "$cosim --plan sim/coverage/model.plan --cov $func --out $out/sim --result $out/logs/model-plan.txt"
  # engine tests: on the model, and the model's tests also on lockstep(model, rtl)
  for t in model_rc model_nak model_retry model_protect model_queues model_ud_uc; do
    echo "HCASIM_COV=$func $bin/$t"
    echo "HCASIM_COV=$func HCASIM_TB_ENGINE=lockstep $bin/$t"
  done
  for w in 64 512; do
    echo "HCASIM_COV=$func $bin/rtl_errors --width $w"
    echo "HCASIM_COV=$func $bin/rtl_doorbell --width $w"
    echo "HCASIM_COV=$func $bin/rtl_states --width $w"
    echo "HCASIM_COV=$func $bin/rtl_read --width $w"
    echo "$(dirname "$cosim")/rxfuzz --frames 3000 --seed 5 --width $w --cov $func"
  done
  # firmware commands (device level; the fw_* tests use a fake engine that
  # must not be wrapped, so they are not coverage jobs), on the model and on
  # lockstep(model, rtl): EQE injection, async events through the firmware
  for t in fw_boot fw_cmd fw_objects fw_qp; do
    echo "HCASIM_COV=$func HCASIM_COV_ENGINE=0 $bin/$t"
  done
  echo "HCASIM_COV=$func $bin/sim_device"
  echo "HCASIM_COV=$func HCASIM_TB_ENGINE=lockstep $bin/sim_device"
} > "$list"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=0
parallel -j "$jobs" --joblog "$out/logs/joblog" --results "$out/logs/out" < "$list" > /dev/null 2>&1
awk 'NR > 1 && $7 != 0 { n++; sub(/^([^\t]*\t){8}/, ""); print "  job failed (exit " $7 "): " $0 }
     END { if (n) print "coverage: " n " job(s) failed; logs in '"$out"'/logs/out"; }' FS='\t' "$out/logs/joblog"
echo "coverage: $(wc -l < "$list") jobs, $(ls "$func" | wc -l) count files"
