#!/usr/bin/env bash
# mutate_model_sample (make test): 30 model mutants under the short judge.
# Passes when the mutants were judged and the judge killed some (the score
# is reported, not gated; make mutate runs the full sample and judge).
set -u
out=$1
sim/mutate/run_model.sh "$out" 30 7 short "$(nproc)" | tee "$out.report.txt"
judged=$(grep -hE " (killed|survived) " "$out"/results/*.txt 2>/dev/null | wc -l)
killed=$(grep -h " killed " "$out"/results/*.txt 2>/dev/null | wc -l)
p=0 f=0
if [ "$judged" -ge 20 ]; then p=$((p + 1)); else f=$((f + 1)); echo "FAIL only $judged mutants judged"; fi
if [ "$killed" -gt 0 ]; then p=$((p + 1)); else f=$((f + 1)); echo "FAIL the judge killed no mutant"; fi
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
