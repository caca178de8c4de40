#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# RC over a lossy switch: ibv_rc_pingpong through `hcasim switch` with seeded
# drop, duplicate, reorder and corruption (ICRC) injection still completes with every byte
# validated (-c), because the simulated HCAs retransmit (go-back-N on PSN
# sequence NAKs and ACK timeouts, duplicates re-ACKed).  The switch's own
# counters show the faults really happened.  Faults hit the middle of the
# run only (--fault-frames): a lost final ACK after the peer process exited
# would fail the sender on any RC fabric.  FAULT_SEEDS sets the seeds.
cd "$(dirname "$0")/../.." || exit 1
. driver-shim/tests/lib.sh

SEEDS=${FAULT_SEEDS:-"1 2"}
ITERS=${PINGPONG_ITERS:-50}
for seed in $SEEDS; do
  for size in 1 8192; do
    what="seed $seed size $size"
    frames=$((2 * ITERS * ((size + 1023) / 1024 + 1)))	# data + ACKs of the run
    start_switch --seed "$seed" --drop 0.05 --dup 0.02 --reorder 0.02 --corrupt 0.02 \
      --fault-frames "10:$((frames * 3 / 4))" || { ok 1 "$what: switch"; continue; }
    port=$(free_port)
    run_pair "$port" ibv_rc_pingpong -g 1 -c -p "$port" -s "$size" -n "$ITERS" -- \
      ibv_rc_pingpong -g 1 -c -p "$port" -s "$size" -n "$ITERS" 127.0.0.1
    stop_switch
    ok "$SRV_RC" "$what: server exit $SRV_RC"
    ok "$CLI_RC" "$what: client exit $CLI_RC"
    grep -q "^$((size * ITERS * 2)) bytes in " "$CLI_LOG"; ok $? "$what: all bytes moved"
    [ "$SRV_RC$CLI_RC" = 00 ] || show_logs
    dropped=$(sed -nE 's/.* ([0-9]+) dropped.*/\1/p' "$SW_LOG")
    [ "${dropped:-0}" -gt 0 ]; ok $? "$what: the switch dropped frames (${dropped:-0})"
  done
done
finish
