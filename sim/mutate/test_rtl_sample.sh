#!/usr/bin/env bash
# make mutate-rtl-sample: the short RTL mutation run -- SAMPLE (>= 20)
# activated mutants of the sample mutant build judged by the short judge
# (sim/mutate/run_rtl.sh short).  Passes when the judge passes on the design
# as written, at least 20 mutants were judged, and the judge kills some of
# them (a judge that kills nothing checks nothing).  The score is reported,
# not gated: make mutate runs the full judge on every mutant.
set -u
dir=$1 sample=${2:-24}
rm -rf "$dir/results" "$dir/sample"
sim/mutate/run_rtl.sh "$dir" short "$(nproc)" "" "$sample" | tee "$dir/sample-report.txt"
judged=$(ls "$dir/sample"/*.txt 2>/dev/null | wc -l)
killed=$(grep -l " killed" "$dir/sample"/*.txt 2>/dev/null | wc -l)
p=0 f=0
if [ "$judged" -ge 20 ]; then p=$((p + 1)); echo "ok   $judged mutants judged"; else f=$((f + 1)); echo "FAIL only $judged mutants judged (want >= 20)"; fi
if [ "$killed" -gt 0 ]; then p=$((p + 1)); echo "ok   $killed killed"; else f=$((f + 1)); echo "FAIL the judge killed no mutant"; fi
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
