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
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
