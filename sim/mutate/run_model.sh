#!/usr/bin/env bash
# Model mutation analysis (make mutate-model; a sample in make test).
#   sim/mutate/run_model.sh OUT COUNT SEED short|full JOBS [SHARD i/N]
# tools/mutate_c.py prep samples COUNT mutants of model/*.c; GNU parallel
# runs `tools/mutate_c.py one ID` for each (one result file per mutant in
# OUT/results/); SHARD i/N keeps the ids with id % N == i (one job of a
# Slurm array or of parallel --sshlogin); then the report.
set -u
out=$1 count=$2 seed=$3 mode=$4 jobs=$5 shard=${6:-}
py=/usr/bin/python3
[ -z "$shard" ] && rm -rf "$out/results"
$py tools/mutate_c.py prep --out "$out" --count "$count" --seed "$seed" --build "${BUILD:-build}" || exit 1
ids=$(seq 1 "$(wc -l < "$out/list.txt")")
if [ -n "$shard" ]; then i=${shard%/*} N=${shard#*/}; ids=$(for k in $ids; do [ $((k % N)) -eq "$i" ] && echo "$k"; done); fi
echo "$ids" | parallel -j "$jobs" --joblog "$out/joblog" "$py tools/mutate_c.py one --out $out --mode $mode {}"
$py tools/mutate_c.py report --out "$out" --answers sim/mutate/answers_model.txt
