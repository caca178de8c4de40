#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shared-memory wire between `hcasim run` and `hcasim switch` (swproto.h
# HELLO/WELCOME flag SHM, driver-shim/shmring.h):
#   * it is what an HCA uses by default (the switch says "frames in shared
#     memory" for both ports); ibv_rc_pingpong -c (every byte checked) and
#     ib_write_bw run over it, and the switch's capture holds exactly the
#     packets the IB rules imply (check_pingpong_wire: tshark, check_pcap);
#   * with faults (--drop/--dup/--reorder/--corrupt) RC pingpong still
#     completes with its data checked, the switch having injected them;
#   * HCASIM_LINK_SHM=0 and `switch --no-shm` fall back to the socket, and
#     programs still run;
#   * fault decisions and captures do not depend on the path: a raw peer
#     (SHM_PEER, shm_peer.c, which writes the rings by the documented layout,
#     not with shmring.c) sends the same 600 frames once through shared
#     memory and once through the socket to a receiving peer on a switch with
#     the same seed and drop/dup/corrupt rates: the receiver gets the same
#     frames, byte for byte, in the same order, and the switch's delivered-copy
#     captures (--pcap-out, read by tests/oracle/pcapfile.py) are identical
#     frame for frame;
#   * bad input: an oversized record, a truncated one, a wrap mark at the
#     ring's start make the switch close that port with a sentence naming
#     the problem; an unsealed or wrongly sized segment, or pipes instead of
#     eventfds, are refused with a sentence and the port goes on with its
#     socket; a peer killed in the
#     middle of ib_write_bw is a departed port.  The switch survives all of
#     it and carries a pingpong afterwards.
cd "$(dirname "$0")/../.." || exit 1
. driver-shim/tests/lib.sh

PEER=${SHM_PEER:-build/tests/shm_peer}
MTU=1024
T_TIMEOUT=60

# pingpong WHAT ARGS...: ibv_rc_pingpong -c on the running switch.
pingpong() {
  local what=$1 port; shift
  port=$(free_port)
  run_pair "$port" ibv_rc_pingpong -g 1 -c -p "$port" "$@" -- \
    ibv_rc_pingpong -g 1 -c -p "$port" "$@" 127.0.0.1
  ok "$SRV_RC" "$what: server exit $SRV_RC"
  ok "$CLI_RC" "$what: client exit $CLI_RC"
  [ "$SRV_RC$CLI_RC" = 00 ] || show_logs
}

# ---- programs over shared memory --------------------------------------------------------
start_switch || { ok 1 "switch"; finish; }
pingpong "pingpong over shared memory" -s 4097 -n 50
grep -q "^$((4097 * 50 * 2)) bytes in " "$CLI_LOG"; ok $? "pingpong: all bytes moved and checked"
stop_switch
n=$(grep -c "frames in shared memory" "$SW_LOG")
[ "$n" -eq 2 ]; ok $? "both HCAs' frames went through shared memory ($n ports said so)"
check_pingpong_wire "$SW_PCAP" 4097 50 "pingpong over shared memory"

SW_NO_PCAP=1 start_switch || { ok 1 "switch"; finish; }
port=$(free_port)
run_pair "$port" ib_write_bw -F -x 1 -p "$port" -s 65536 -n 300 -- \
  ib_write_bw -F -x 1 -p "$port" -s 65536 -n 300 127.0.0.1
stop_switch
ok "$SRV_RC" "ib_write_bw 64 KiB over shared memory: server exit $SRV_RC"
ok "$CLI_RC" "ib_write_bw 64 KiB over shared memory: client exit $CLI_RC"
grep -qE "^ +65536 +300 " "$CLI_LOG"; ok $? "ib_write_bw printed its result line"
grep -q " 0 lost to full ports" "$SW_LOG"; ok $? "no frame lost to a full ring"

# ---- with faults ---------------------------------------------------------------------------
start_switch --seed 3 --drop 0.05 --dup 0.02 --reorder 0.02 --corrupt 0.02 --fault-frames 10:200 ||
  { ok 1 "switch"; finish; }
pingpong "pingpong over shared memory, lossy switch" -s 1 -n 50
grep -q "^100 bytes in " "$CLI_LOG"; ok $? "lossy: all bytes moved and checked"
stop_switch
dropped=$(sed -nE 's/.* ([0-9]+) dropped.*/\1/p' "$SW_LOG")
[ "${dropped:-0}" -gt 0 ]; ok $? "lossy: the switch dropped frames (${dropped:-0})"
grep -q "frames in shared memory" "$SW_LOG"; ok $? "lossy: over shared memory"

# ---- the socket fallbacks ----------------------------------------------------------------
start_switch --no-shm || { ok 1 "switch"; finish; }
pingpong "pingpong, switch --no-shm" -s 64 -n 20
stop_switch
! grep -q "shared memory" "$SW_LOG"; ok $? "--no-shm: no port in shared memory"

start_switch || { ok 1 "switch"; finish; }
export HCASIM_LINK_SHM=0
pingpong "pingpong, HCASIM_LINK_SHM=0" -s 64 -n 20
unset HCASIM_LINK_SHM
stop_switch
! grep -q "shared memory" "$SW_LOG"; ok $? "HCASIM_LINK_SHM=0: no port in shared memory"

# ---- the same fault decisions and captures on both paths ---------------------------------
# peer_run MODE(shm|socket): a sender and a receiver peer through a faulty switch.
peer_run() {
  local mode=$1 flag=() rpid
  [ "$mode" = socket ] && flag=(--socket)
  start_switch --seed 7 --drop 0.1 --dup 0.05 --corrupt 0.05 --pcap-out "$T_DIR/out-$mode.pcap" ||
    return 1
  "$PEER" "$SW_SOCK" recv 2000 02:00:00:00:00:ff "${flag[@]}" >"$T_DIR/recv-$mode.txt" 2>"$T_DIR/recv-$mode.err" &
  rpid=$!
  T_PIDS+=("$rpid")
  sleep 0.3
  "$PEER" "$SW_SOCK" send 600 02:00:00:00:00:01 "${flag[@]}" >"$T_DIR/send-$mode.txt" 2>&1
  ok $? "$mode peer: sent 600 frames"
  wait "$rpid"
  ok $? "$mode peer: receiver ran"
  stop_switch
  cp "$SW_LOG" "$T_DIR/sw-$mode.log"
  head -1 "$T_DIR/recv-$mode.txt" | grep -qx "$mode"; ok $? "$mode peer: the frames travelled by $mode"
}
peer_run shm
peer_run socket

# ---- frames published just before the HCA's process exits -----------------------------
# (an ACK published as the program exits): the switch sees them and the hang-up
# in one poll round and must forward them before it closes the port.
start_switch || { ok 1 "switch"; finish; }
"$PEER" "$SW_SOCK" recv 40 02:00:00:00:00:ff >"$T_DIR/recv-exit.txt" 2>"$T_DIR/recv-exit.err" &
rpid=$!
T_PIDS+=("$rpid")
sleep 0.3
"$PEER" "$SW_SOCK" exit 40 02:00:00:00:00:01 >"$T_DIR/send-exit.txt" 2>&1
ok $? "exiting peer: 40 frames published, no wake-up, exit"
wait "$rpid"
n=$(grep -c '^frame' "$T_DIR/recv-exit.txt")
[ "$n" -eq 40 ]; ok $? "the 40 frames an exiting peer left in its ring were forwarded ($n arrived)"
stop_switch
grep '^frame' "$T_DIR/recv-shm.txt" >"$T_DIR/f-shm.txt"
grep '^frame' "$T_DIR/recv-socket.txt" >"$T_DIR/f-socket.txt"
n=$(wc -l <"$T_DIR/f-shm.txt")
[ "$n" -gt 500 ] && [ "$n" -lt 700 ] && [ "$n" -ne 600 ]
ok $? "faults changed what arrived ($n of 600 sent, with drops and duplicates)"
cmp -s "$T_DIR/f-shm.txt" "$T_DIR/f-socket.txt"
ok $? "the receiver got the same frames in the same order over shared memory and over the socket"
for m in shm socket; do
  for k in dropped duplicated corrupted; do
    sed -nE "s/.* ([0-9]+) $k.*/$k \\1/p" "$T_DIR/sw-$m.log"
  done >"$T_DIR/counts-$m.txt"
done
cmp -s "$T_DIR/counts-shm.txt" "$T_DIR/counts-socket.txt"
ok $? "the switch injected the same faults on both paths ($(tr '\n' ' ' <"$T_DIR/counts-shm.txt"))"
PYTHONPATH=tests/oracle "$PYTHON" - "$T_DIR/out-shm.pcap" "$T_DIR/out-socket.pcap" <<'EOF'
import sys
import pcapfile
a, b = ([f for _ns, f in pcapfile.read(p)] for p in sys.argv[1:3])
sys.exit(0 if a == b and len(a) > 500 else 1)
EOF
ok $? "the switch's delivered-copy captures are identical frame for frame (tests/oracle/pcapfile.py)"

# ---- bad input ---------------------------------------------------------------------------------
start_switch || { ok 1 "switch"; finish; }
for what in oversized truncated wrap0; do
  out=$(timeout 20 "$PEER" "$SW_SOCK" bad "$what" 02:00:00:00:00:0$((RANDOM % 9 + 1)) 2>&1)
  grep -q closed <<<"$out"; ok $? "bad ring ($what): the switch closed the port"
done
grep -q "shared-memory ring broken: oversized frame" "$SW_LOG"; ok $? "the switch says: oversized frame"
grep -q "shared-memory ring broken: truncated frame" "$SW_LOG"; ok $? "the switch says: truncated frame"
grep -q "shared-memory ring broken: wrap mark at the start" "$SW_LOG"; ok $? "the switch says: wrap mark"
for what in unsealed small pipe; do
  out=$(timeout 20 "$PEER" "$SW_SOCK" bad "$what" 02:00:00:00:00:3$((RANDOM % 9 + 1)) 2>&1)
  grep -q "welcome without shm" <<<"$out"; ok $? "bad segment ($what): accepted on the socket only"
done
grep -q "shared memory refused: the shared segment is not a memfd sealed" "$SW_LOG"
ok $? "the switch says why it refused the unsealed segment"
grep -q "shared memory refused: bad shared segment" "$SW_LOG"
ok $? "the switch says why it refused the wrongly sized segment"
grep -q "shared memory refused: the wake-up descriptors are not eventfds" "$SW_LOG"
ok $? "the switch says why it refused pipes for eventfds"

# a peer that dies in the middle of ib_write_bw
port=$(free_port)
"$HCASIM" run --ip 10.0.0.1 --switch "$SW_SOCK" -- ib_write_bw -F -x 1 -p "$port" -s 65536 -n 100000 \
  >"$T_DIR/die-srv.log" 2>&1 &
srv=$!
T_PIDS+=("$srv")
wait_listen "$port" "$srv"
"$HCASIM" run --ip 10.0.0.2 --switch "$SW_SOCK" -- ib_write_bw -F -x 1 -p "$port" -s 65536 -n 100000 127.0.0.1 \
  >"$T_DIR/die-cli.log" 2>&1 &
cli=$!
T_PIDS+=("$cli")
sleep 2
kill -KILL "$cli" "$srv" 2>/dev/null
wait "$cli" "$srv" 2>/dev/null
sleep 0.3
kill -0 "$SW_PID"; ok $? "the switch survives peers killed in the middle of a transfer"
pingpong "pingpong after the bad peers" -s 64 -n 20
stop_switch
grep -q "frames in, " "$SW_LOG"; ok $? "the switch printed its counters at the end"
finish
