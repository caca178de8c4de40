#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make bench (driver shim): perftest ib_write_bw between two simulated HCAs
# on the model backend, each in its own process under `hcasim run`, through
# `hcasim switch`, for 64 B and 64 KiB messages.  Prints the bandwidth and
# message rate perftest reports (wall-clock: how fast the simulation moves
# data, not a claim about silicon).
# Also writes build/bench/shim.csv (BENCH_SHIM_CSV); progress on a terminal.
cd "$(dirname "$0")/../.." || exit 1
. driver-shim/tests/lib.sh
. tools/progress.sh

backend=${BENCH_BACKEND:-model}
csv=${BENCH_SHIM_CSV:-build/bench/shim.csv}
mkdir -p "$(dirname "$csv")"
echo "backend,size,iters,mb_per_s_avg,gb_per_s,mpps,mb_per_s_peak" > "$csv"
specs=("64 20000" "65536 2000")
progress_init ${#specs[@]}
step=0
for spec in "${specs[@]}"; do
  read -r size iters <<<"$spec"
  progress_show "$step" "ib_write_bw $size B x $iters on $backend"
  step=$((step + 1))
  start_switch --quiet || exit 1
  port=$(free_port)
  export HCASIM_BACKEND=$backend
  run_pair "$port" ib_write_bw -F -x 1 -p "$port" -s "$size" -n "$iters" -- \
    ib_write_bw -F -x 1 -p "$port" -s "$size" -n "$iters" 127.0.0.1
  stop_switch
  progress_clear
  line=$(grep -E "^ +$size +$iters " "$CLI_LOG")
  if [ "$SRV_RC$CLI_RC" != 00 ] || [ -z "$line" ]; then
    ok 1 "ib_write_bw $size B did not complete"
    show_logs
    continue
  fi
  ok 0 ""
  read -r _ _ peak avg rate <<<"$line"
  frames=$(sed -nE 's/.*: ([0-9]+) frames in,.*/\1/p' "$SW_LOG")
  printf 'bench shim: ib_write_bw %6s B x %5s on %s: %9.2f MB/s average (%7.2f Gb/s), %.4f Mpps, peak %.2f MB/s, %s frames\n' \
    "$size" "$iters" "$backend" "$avg" "$(awk -v a="$avg" 'BEGIN { print a * 8 / 1000 }')" "$rate" "$peak" "${frames:-?}"
  printf '%s,%s,%s,%s,%s,%s,%s\n' "$backend" "$size" "$iters" "$avg" "$(awk -v a="$avg" 'BEGIN { print a * 8 / 1000 }')" \
    "$rate" "$peak" >> "$csv"
done
finish
