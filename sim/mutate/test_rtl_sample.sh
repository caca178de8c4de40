#!/usr/bin/env bash
# The mutate_rtl_sample test (make test) and make mutate-rtl-sample: SAMPLE
# (>= 20) activated mutants of the sample mutant build (a few small modules,
# sim/coverage.mk MUT_SAMPLE_MODULES) under the short selective judge
# (sim/mutate/run_rtl.sh short: the directed lines of the make sim plan and
# the RTL directed tests, each mutant judged only by the programs that
# activate it).  Fails when the judge fails on the design as written, when
# fewer than 20 mutants were picked or a picked mutant has no result, or when
# the judge kills none of them (a judge that kills nothing checks nothing).
# The score is reported, not gated: 20 mutants are too few for a score;
# make mutate judges every mutant.
#   sim/mutate/test_rtl_sample.sh DIR [SAMPLE]
set -u
dir=$1 sample=${2:-24}
rm -rf "$dir/results" "$dir/sample" "$dir/base-short" "$dir/sample-todo.txt"
p=0 f=0
ok() { p=$((p + 1)); echo "ok   $*"; }
fail() { f=$((f + 1)); echo "FAIL $*"; }
if sim/mutate/run_rtl.sh "$dir" short "$(nproc)" "" "$sample" > "$dir/sample-report.txt" 2>&1; then
  ok "the judge passes on the design as written ($(wc -l < "$dir/base-short/order.txt") programs)"
else
  fail "the judge run failed: $(grep -m1 mutate-rtl "$dir/sample-report.txt")"
fi
cat "$dir/sample-report.txt"
picked=$(grep -c . "$dir/sample-todo.txt" 2>/dev/null); picked=${picked:-0}
missing=0
for k in $(cat "$dir/sample-todo.txt" 2>/dev/null); do
  [ -s "$dir/sample/$k.txt" ] || { missing=$((missing + 1)); echo "     mutant $k: no result"; }
done
if [ "$picked" -ge 20 ]; then ok "$picked mutants picked"; else fail "only $picked mutants picked (want >= 20)"; fi
if [ "$picked" -gt 0 ] && [ "$missing" -eq 0 ]; then ok "every picked mutant has a result"; else fail "$missing mutants without a result"; fi
killed=$(grep -l " killed" "$dir/sample"/*.txt 2>/dev/null | wc -l)
if [ "$killed" -gt 0 ]; then ok "$killed killed"; else fail "the judge killed no mutant"; fi
# The re-judge (sim/mutate/rejudge_rtl.sh): a killed mutant made a survivor
# that passed every program but the one that killed it comes out killed by
# that program alone, the other results stay as they were, and a build whose
# sample changed is refused.
kf=$(grep -l " killed " "$dir/sample"/*.txt 2>/dev/null | head -1)
if [ -n "$kf" ]; then
  read -r id _ prog _ < "$kf"; prog=${prog%:}
  others=$(cat "$dir"/results/*.txt | grep -v "^$id " | sort | md5sum)
  echo "$id survived judge passed (made a survivor by the test)" > "$dir/results/$id.txt"
  cut -d' ' -f2 "$dir/base-short/order.txt" | grep -v -x "$prog" > "$dir/results/$id.passed"
  MUT_MODE=short sim/mutate/rejudge_rtl.sh "$dir" "$(nproc)" "$prog" > "$dir/rejudge.txt" 2>&1
  if grep -q "^$id killed $prog:" "$dir/results/$id.txt"; then ok "re-judge: mutant $id killed again by $prog alone"
  else fail "re-judge: mutant $id not killed by $prog: $(cat "$dir/results/$id.txt"; tail -3 "$dir/rejudge.txt")"; fi
  if [ "$others" = "$(cat "$dir"/results/*.txt | grep -v "^$id " | sort | md5sum)" ]; then ok "re-judge: the other results unchanged"
  else fail "re-judge: other results changed"; fi
  cp "$dir/list.txt" "$dir/list.keep"; echo "changed" >> "$dir/list.txt"
  if MUT_MODE=short sim/mutate/rejudge_rtl.sh "$dir" 1 "$prog" 2>&1 | grep -q "differs from the measured one"; then
    ok "re-judge refuses a changed sample"; else fail "re-judge ran on a changed sample"; fi
  mv "$dir/list.keep" "$dir/list.txt"
else
  fail "re-judge: no killed mutant to check it with"
fi
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
