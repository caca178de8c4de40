#!/usr/bin/env bash
# The mutate_equiv_sample test (make test): soundness checks of the formal
# equivalence filter tools/mutate_equiv.py (docs/sim.md 11.3.1).
#   (b) a hand-made mutation known to be equivalent -- an AND input bit of
#       hca_crc32_blk forced to 1 where its constant mask bit is 0 -- is proved;
#   (c) the same AND's input bit inverted where the mask bit is 1 (a different
#       CRC) is differs; the same pair on a small sequential module (a register
#       fed through a masked AND, asynchronous reset: proved only by induction);
#   context mode (--context auto: the design flattened up to hca_top, the
#   mutation's structural cone of influence; hand-made mutations of hca_ctx's
#   QPC RAM engine-port read register b_rdata, offsets from hca_spec.vh):
#   (b) a bit of the QPC's FLOW_LABEL, which no rtl/*.sv reads, is proved;
#   (c) a bit of DEST_QPN, read into every request header, is not proved;
#   the same on a toy (CTX_TOY in the tool): a byte picked at offset 2 or 4
#   (a bit of byte 3 proved, of byte 2 not) and a memory written in bits
#   3:0 only (data bit 6 proved, bit 2 not); the soft-reset select of a
#   register that only ever holds its reset value 0 (proved) and of one
#   that loads data (not proved);
#   (a) no mutant the judge killed in the make-test sample
#       (mutate_rtl_sample, SAMPLE/sample/<id>.txt, when newer than its
#       list.txt) is proved.  Without such results (run mutate_rtl_sample
#       first: make test runs it just before) that check says so and is skipped;
#       the same in context mode.
#   sim/mutate/test_equiv_sample.sh DIR SAMPLE
# DIR: a mutant build netlisting hca_crc32_blk (prepped.il); SAMPLE: the
# make-test sample's build (build/mutate/rtl-sample).
set -u
dir=$1 sample=$2
py=${PYTHON:-/usr/bin/python3}
p=0 f=0
ok() { p=$((p + 1)); echo "ok   $*"; }
fail() { f=$((f + 1)); echo "FAIL $*"; }
out=$("$py" tools/mutate_equiv.py --selftest --dir "$dir" --timeout 60 2>&1)
echo "$out"
for t in "-mode const1 -module hca_crc32_blk.*: proved|(b) a CRC mask bit forced where the mask is 0: proved" \
         "-mode inv -module hca_crc32_blk.*: differs|(c) a CRC input bit inverted where the mask is 1: differs" \
         "-module seq_toy.*portbit 3: proved|(b) a masked bit into a register (sequential, async reset): proved by induction" \
         "-module seq_toy.*portbit 2: differs|(c) an unmasked bit into the register: differs"; do
  v=${t%%|*}; v=${v##*: }
  if echo "$out" | grep -q "^ok .*${t%%|*} (want $v"; then ok "${t#*|}"
  else fail "not so: ${t#*|}"; fi
done
out=$("$py" tools/mutate_equiv.py --selftest --context auto --dir "$dir" --timeout 60 2>&1)
echo "$out"
for t in "WR_DATA -portbit 6: proved|a memory data bit whose write enable is constant 0: proved" \
         "WR_DATA -portbit 2: unknown|a written memory data bit: not proved" \
         "-port A -portbit 25: proved|a bit of a byte a two-valued variable shift never picks: proved" \
         "-port A -portbit 17: unknown|a bit of a byte it picks: not proved" \
         "-port S -portbit 0: proved|the soft-reset select of a register only ever loaded with its reset value 0: proved" \
         "-port S -portbit 0: unknown|the soft-reset select of a register that loads data: not proved"; do
  if echo "$out" | grep -q "^ok .*-module ctx_toy__d0 .*${t%%|*} (want"; then ok "(b/c) context toy: ${t#*|}"
  else fail "(b/c) context toy: ${t#*|}"; fi
done
if grep -q HCA_QPC_FLOW_LABEL rtl/*.sv; then
  fail "(b) premise: some rtl/*.sv reads HCA_QPC_FLOW_LABEL now; pick another unread QPC bit"
elif echo "$out" | grep -q "^ok .*hca_ram_tdp .*-port Q -portbit [0-9]*: proved (want proved"; then
  ok "(b) context: an unread QPC bit (FLOW_LABEL) of the engine read register: proved"
else fail "(b) context: the unread QPC FLOW_LABEL bit is not proved"; fi
if echo "$out" | grep -q "^ok .*hca_ram_tdp .*-port Q -portbit [0-9]*: unknown (want unknown.*reaches .*m_axis_tx_tdata"; then
  ok "(c) context: a DEST_QPN bit of the same register reaches the transmit port: not proved"
else fail "(c) context: the DEST_QPN bit is not found to reach m_axis_tx_tdata"; fi
killed=""
if [ -f "$sample/list.txt" ] && [ -d "$sample/sample" ]; then
  for r in "$sample"/sample/*.txt; do
    [ "$r" -nt "$sample/list.txt" ] || continue
    read -r id v _ < "$r"; [ "$v" = killed ] && killed="$killed,$id"
  done
fi
if [ -n "$killed" ]; then
  "$py" tools/mutate_equiv.py --dir "$sample" --results sample --ids "${killed#,}" --timeout 20 \
    --out "$sample/equiv-killed.txt" || true
  n=$(grep -c . "$sample/equiv-killed.txt")
  pr=$(grep -c " proved " "$sample/equiv-killed.txt")
  d=$(grep -c " differs " "$sample/equiv-killed.txt")
  if [ "$pr" -eq 0 ] && [ "$n" -gt 0 ]; then ok "(a) none of the $n killed mutants of the sample is proved ($d differs, the rest unknown)"
  else fail "(a) $pr killed mutants proved equivalent: the tool is unsound"; fi
  "$py" tools/mutate_equiv.py --dir "$sample" --results sample --ids "${killed#,}" --context auto \
    --out "$sample/equiv-ctx-killed.txt" || true
  n=$(grep -c . "$sample/equiv-ctx-killed.txt")
  pr=$(grep -c " proved " "$sample/equiv-ctx-killed.txt")
  if [ "$pr" -eq 0 ] && [ "$n" -gt 0 ]; then ok "(a) context: none of the $n killed mutants of the sample is proved"
  else fail "(a) context: $pr killed mutants proved equivalent: the context mode is unsound"; fi
else
  echo "     (a) skipped: no judge results of mutate_rtl_sample newer than $sample/list.txt"
fi
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
