#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `hcasim switch` behaves as a switch over its lifetime (docs/shim.md):
#   * one running switch carries several program pairs one after the other
#     (ibv_ud_pingpong twice, then ibv_rc_pingpong, all with the same
#     addresses): a port that disconnects takes its learned MACs and its
#     address registration with it, so every pair completes;
#   * a HELLO claiming an address (IPv4) or a MAC that a live port owns is
#     refused: the refused `hcasim run` fails with a message naming the
#     address and saying it is in use, the switch says so too, and the owner's
#     traffic is undisturbed;
#   * a process that registered an address with another MAC and left (the
#     "spoofer") does not poison the address: the next pair completes, and
#     the frames to 10.0.0.1 carry the real owner's MAC (tshark);
#   * `--drop P` alone (no --fault-frames) drops about P of the copies:
#     within 4.5 standard deviations of the binomial mean, counted by the
#     switch, while RC pingpong still completes on the model (retransmission).
#     The seed is one whose drops spare the run's last frames (a lost final
#     ACK after the peer exited fails any RC sender; faults.sh explains).
cd "$(dirname "$0")/../.." || exit 1
. driver-shim/tests/lib.sh

# pair PROG WHAT EXTRA_ARGS...: one pingpong pair on the running switch.
pair() {
  local prog=$1 what=$2; shift 2
  local port size=64
  port=$(free_port)
  run_pair "$port" "$prog" -g 1 -p "$port" -s "$size" -n 10 "$@" -- \
    "$prog" -g 1 -p "$port" -s "$size" -n 10 "$@" 127.0.0.1
  ok "$SRV_RC" "$what: server exit $SRV_RC"
  ok "$CLI_RC" "$what: client exit $CLI_RC"
  grep -q "^$((size * 10 * 2)) bytes in " "$CLI_LOG"; ok $? "$what: client moved the bytes"
  [ "$SRV_RC$CLI_RC" = 00 ] || show_logs
}

# ---- several pairs on one switch -------------------------------------------------------
T_TIMEOUT=20
start_switch || { ok 1 "switch"; finish; }
pair ibv_ud_pingpong "first UD pair"
pair ibv_ud_pingpong "second UD pair on the same switch"
pair ibv_rc_pingpong "RC pair after them" -c

# ---- an address a live port owns is refused ----------------------------------------------
port=$(free_port)
holder_log=$T_DIR/holder.log
timeout 60 "$HCASIM" run --ip 10.0.0.1 --switch "$SW_SOCK" -- \
  ibv_rc_pingpong -g 1 -p "$port" -n 5 >"$holder_log" 2>&1 &
holder=$!
T_PIDS+=("$holder")
wait_listen "$port" "$holder"; ok $? "holder of 10.0.0.1 is up"

out=$T_DIR/spoof-ip.log
timeout 20 "$HCASIM" run --ip 10.0.0.1 --mac 0a:00:00:00:00:99 --switch "$SW_SOCK" -- ibv_devinfo >"$out" 2>&1
rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; ok $? "a second claim of 10.0.0.1 fails (exit $rc)"
grep -q "10\.0\.0\.1.*in use" "$out"; ok $? "the refused process names 10.0.0.1 as in use"
grep -q "refus.*10\.0\.0\.1.*in use" "$SW_LOG"; ok $? "the switch reports the refusal"

out=$T_DIR/spoof-mac.log
timeout 20 "$HCASIM" run --ip 10.0.0.77 --mac 02:00:0a:00:00:01 --switch "$SW_SOCK" -- ibv_devinfo >"$out" 2>&1
rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; ok $? "a second claim of MAC 02:00:0a:00:00:01 fails (exit $rc)"
grep -q "02:00:0a:00:00:01.*in use" "$out"; ok $? "the refused process names the MAC as in use"
[ "$T_FAIL" -eq 0 ] || { cat "$out"; tail -5 "$SW_LOG"; }

# The holder still works: it is the server of the next pair.
timeout 60 "$HCASIM" run --ip 10.0.0.2 --switch "$SW_SOCK" -- \
  ibv_rc_pingpong -g 1 -p "$port" -n 5 127.0.0.1 >"$T_DIR/holder-peer.log" 2>&1
ok $? "the holder's pair completes after the refused claims"
wait "$holder"; ok $? "holder exit"

# ---- an address whose owner left can be taken ---------------------------------------------
# The spoofer registers 10.0.0.1 with a MAC nobody else has, and leaves.
timeout 20 "$HCASIM" run --ip 10.0.0.1 --mac 0a:00:00:00:00:99 --switch "$SW_SOCK" -- ibv_devinfo \
  >"$T_DIR/spoofer.log" 2>&1
ok $? "10.0.0.1 with another MAC is accepted once its owner left"
stop_switch
start_switch || { ok 1 "switch"; finish; }
timeout 20 "$HCASIM" run --ip 10.0.0.1 --mac 0a:00:00:00:00:99 --switch "$SW_SOCK" -- ibv_devinfo \
  >"$T_DIR/spoofer2.log" 2>&1
ok $? "spoofer on a fresh switch"
pair ibv_rc_pingpong "RC pair after the spoofer left" -c
stop_switch
macs=$(tshark -r "$SW_PCAP" -Y "ip.dst == 10.0.0.1" -T fields -e eth.dst 2>/dev/null | sort -u | paste -sd ' ')
[ "$macs" = "02:00:0a:00:00:01" ]; ok $? "frames to 10.0.0.1 go to its live owner's MAC ($macs)"

# ---- --drop alone ----------------------------------------------------------------------
P=0.05
T_TIMEOUT=60
start_switch --seed "${DROP_SEED:-3}" --drop "$P" || { ok 1 "switch"; finish; }
port=$(free_port)
run_pair "$port" ibv_rc_pingpong -g 1 -c -p "$port" -s 1 -n 200 -- \
  ibv_rc_pingpong -g 1 -c -p "$port" -s 1 -n 200 127.0.0.1
stop_switch
ok "$SRV_RC" "--drop $P alone: server exit $SRV_RC"
ok "$CLI_RC" "--drop $P alone: client exit $CLI_RC"
grep -q "^400 bytes in " "$CLI_LOG"; ok $? "--drop $P alone: all bytes moved"
[ "$SRV_RC$CLI_RC" = 00 ] || show_logs
# Copies scheduled toward ports (each frame makes one here: two ports).
n=$(sed -nE 's/.* ([0-9]+) copies,.*/\1/p' "$SW_LOG")
[ -n "$n" ] || n=$(sed -nE 's/.*: ([0-9]+) frames in,.*/\1/p' "$SW_LOG")
dropped=$(sed -nE 's/.* ([0-9]+) dropped,.*/\1/p' "$SW_LOG")
"$PYTHON" - "${n:-0}" "${dropped:-0}" "$P" <<'EOF'
import math, sys
n, d, p = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
sd = math.sqrt(n * p * (1 - p))
print(f"--drop {p}: {d} of {n} copies dropped, expected {n * p:.1f} +- {4.5 * sd:.1f}")
sys.exit(0 if n >= 500 and abs(d - n * p) <= 4.5 * sd else 1)
EOF
ok $? "--drop $P alone drops about $P of the copies (${dropped:-?} of ${n:-?})"
[ "$T_FAIL" -eq 0 ] || tail -3 "$SW_LOG"
finish
