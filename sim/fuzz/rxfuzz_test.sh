#!/usr/bin/env bash
# sim_rxfuzz (make test): FRAMES fuzzed frames at each datapath width into
# lockstep(model, rtl) with 0 divergences and no write outside an MR, and
# the planted receive-path bugs (model-mutant around the RTL: rkey check
# skipped, ICRC check skipped) caught.  With GNU parallel, one job per run.
#   sim/fuzz/rxfuzz_test.sh RXFUZZ FRAMES OUTDIR
set -u
fz=$1 frames=$2 out=$3
mkdir -p "$out"
corpus=()
[ -f "$out/../oracle/frames.pcap" ] && corpus=(--corpus "$out/../oracle/frames.pcap")
jobs=(
  "$fz --frames $frames --seed 1 --width 64 ${corpus[*]} --result $out/w64.txt"
  "$fz --frames $frames --seed 2 --width 512 ${corpus[*]} --result $out/w512.txt"
  "$fz --frames 3000 --seed 3 --width 64 --bug rx_rkey --expect-fail --result $out/bug-rkey.txt"
  "$fz --frames 3000 --seed 4 --width 512 --bug rx_icrc --expect-fail --result $out/bug-icrc.txt"
)
printf '%s\n' "${jobs[@]}" | parallel -j "$(nproc)" -k > "$out/log.txt" 2>&1
pass=0 fail=0
for r in w64 w512 bug-rkey bug-icrc; do
  line=$(cat "$out/$r.txt" 2>/dev/null)
  case "$line" in
    *" PASS"*) pass=$((pass + 1)); echo "ok   $r: $line" ;;
    *) fail=$((fail + 1)); echo "FAIL $r: ${line:-no result} (log: $out/log.txt)" ;;
  esac
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
