#!/usr/bin/env bash
# Long differential fuzzing (make regress-rxfuzz): FRAMES frames split into
# JOBS shards (rxfuzz --shard i/N: own seed, FRAMES/N frames), run by GNU
# parallel, half at each width; one result file per job in OUT.
#   sim/fuzz/rxfuzz_parallel.sh RXFUZZ FRAMES JOBS OUT [parallel options, e.g. --sshlogin ...]
set -u
fz=$1 frames=$2 jobs=$3 out=$4; shift 4
shards=$((jobs * 4))
mkdir -p "$out"; rm -f "$out"/shard-*.txt
seq 0 $((shards - 1)) | parallel -j "$jobs" "$@" --joblog "$out/joblog" \
  "$fz --frames $frames --shard {}/$shards --seed 1 --width \$(( {} % 2 ? 512 : 64 )) --result $out/shard-{}.txt > $out/shard-{}.log 2>&1"
pass=$(grep -l " PASS" "$out"/shard-*.txt 2>/dev/null | wc -l)
total=$(awk '{s += $5} END {print s + 0}' "$out"/shard-*.txt 2>/dev/null)
grep -h " FAIL" "$out"/shard-*.txt 2>/dev/null | sed 's/^/  /'
echo "rxfuzz: $total frames in $shards jobs"
echo "$pass passed, $((shards - pass)) failed"
[ "$pass" -eq "$shards" ]
