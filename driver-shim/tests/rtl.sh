#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Debian's unmodified ibv_rc_pingpong on the RTL: two processes under
# `hcasim run`, through `hcasim switch`, each HCA's engine the Verilated
# rtl/hca_top (issue 6: "ibv_rc_pingpong passes under --backend rtl and
# --backend lockstep").  Checked:
#   * --backend rtl at --width 64 and 512 (-c: every byte of every message
#     checked by the receiver; busy polling), and with completion events (-e)
#     at 64: both ends exit 0 and report size * iterations * 2 bytes; no
#     driver/device error on stderr; the switch's capture holds exactly the
#     SEND packets and ACKs the IB rules imply (as shim_pingpong) and passes
#     tests/oracle/check_pcap.py --wire-rules;
#   * --backend lockstep with its defaults (reference "model", DUT "rtl"):
#     the same, and no divergence reported; also at --width 512 with -e
#     (CQ/EQ arming, COMP EQEs and MSI-X compared);
#   * negatives: rtl options reach the engine (--width 512 --options
#     bug=hdr_bit: the server's requests carry BTH MigReq 0, the client's 1);
#     lockstep with a planted RTL bug (dut.bug=hdr_bit) reports the first
#     divergence in the tx stream naming BTH MigReq (ref 1, dut 0);
#   * --trace writes a waveform that fst2vcd reads; --width is checked;
#   * through a lossy switch (`hcasim switch --drop 0.05`): RC pingpong with
#     -c on --backend rtl completes (go-back-N and the ACK timer resend what
#     the switch dropped), every byte checked, and the switch did drop frames.
# The model runs the same pingpong first; the summary line compares speeds.
# RTL_PP_SIZE / RTL_PP_ITERS change the message size and count.
cd "$(dirname "$0")/../.." || exit 1
. driver-shim/tests/lib.sh

# Bound every run well below the default (a broken RTL hangs more often than
# it fails).
T_TIMEOUT=${RTL_PP_TIMEOUT:-40}
SIZE=${RTL_PP_SIZE:-4097}
ITERS=${RTL_PP_ITERS:-50}
MTU=1024	# ibv_rc_pingpong's default path MTU
declare -A USEC

# pp WHAT "SERVER OPTS" "CLIENT OPTS" PINGPONG_ARGS...: one pingpong through a fresh switch
pp() {
  local what=$1 srv=$2 cli=$3 port
  shift 3
  PP_WHAT=$what
  start_switch --quiet || { ok 1 "$what: switch"; return 1; }
  port=$(free_port)
  SRV_OPTS=$srv CLI_OPTS=$cli run_pair "$port" ibv_rc_pingpong -g 1 -p "$port" "$@" -- \
    ibv_rc_pingpong -g 1 -p "$port" "$@" 127.0.0.1
  stop_switch
}

# passed SIZE ITERS: the run just made completed cleanly
passed() {
  local size=$1 iters=$2 bytes=$(($1 * $2 * 2)) what=$PP_WHAT
  ok "$SRV_RC" "$what: server exit $SRV_RC"
  ok "$CLI_RC" "$what: client exit $CLI_RC"
  grep -q "^$bytes bytes in " "$SRV_LOG"; ok $? "$what: server moved $bytes bytes"
  grep -q "^$bytes bytes in " "$CLI_LOG"; ok $? "$what: client moved $bytes bytes"
  grep -q "^$iters iters in " "$CLI_LOG"; ok $? "$what: client reports $iters iterations"
  ! grep -q "DIVERGENCE" "$SRV_LOG" "$CLI_LOG"; ok $? "$what: no divergence reported"
  ! grep -q "^hcasim: " "$SRV_LOG" "$CLI_LOG"; ok $? "$what: no driver or device error"
  [ "$SRV_RC$CLI_RC" = 00 ] && ! grep -q "^hcasim: \|DIVERGENCE" "$SRV_LOG" "$CLI_LOG" || show_logs
  USEC[$what]=$(sed -nE 's/^[0-9]+ iters in [0-9.]+ seconds = ([0-9.]+) usec\/iter/\1/p' "$CLI_LOG")
}

# wire SIZE ITERS: packet counts and frame checks of the switch's capture
wire() { check_pingpong_wire "$SW_PCAP" "$1" "$2" "$PP_WHAT"; }

ARGS=(-c -s "$SIZE" -n "$ITERS")
pp "model" "--backend model" "--backend model" "${ARGS[@]}"
passed "$SIZE" "$ITERS"
for w in 64 512; do
  pp "rtl, width $w" "--backend rtl --width $w" "--backend rtl --width $w" "${ARGS[@]}"
  passed "$SIZE" "$ITERS"
  wire "$SIZE" "$ITERS"
done
EV_ITERS=$(( ITERS < 20 ? ITERS : 20 ))
pp "rtl, width 64, events (-e)" "--backend rtl" "--backend rtl" -e -c -s "$SIZE" -n "$EV_ITERS"
passed "$SIZE" "$EV_ITERS"
# Lockstep: its defaults are ref=model, dut=rtl.
pp "lockstep (model, rtl)" "--backend lockstep" "--backend lockstep" "${ARGS[@]}"
passed "$SIZE" "$ITERS"
wire "$SIZE" "$ITERS"
# ... with completion events (CQ/EQ arming, COMP EQEs, MSI-X compared) at 512
pp "lockstep (model, rtl/512), events (-e)" "--backend lockstep --width 512" "--backend lockstep --width 512" \
  -e -c -s "$SIZE" -n "$EV_ITERS"
passed "$SIZE" "$EV_ITERS"

# Engine options reach the RTL: a planted bug at width 512 shows on the wire;
# the server's RTL also records a waveform (closed at exit).
pp "rtl, width 512, bug=hdr_bit" \
  "--backend rtl --width 512 --options bug=hdr_bit --trace $T_DIR/srv.fst --trace-to 100000" \
  "--backend rtl --width 512" -s 1024 -n 5
ok "$SRV_RC" "$PP_WHAT: server exit $SRV_RC"
ok "$CLI_RC" "$PP_WHAT: client exit $CLI_RC"
migreq=$(tshark -r "$SW_PCAP" -Y 'infiniband.bth.opcode <= 4' -T fields -e ip.src -e infiniband.bth.m 2>/dev/null |
  sort | uniq -c | awk '{ printf "%s:%s=%s ", $2, $3, $1 }')
[ "$migreq" = "10.0.0.1:0=5 10.0.0.2:1=5 " ]
ok $? "$PP_WHAT: requests' MigReq by sender: $migreq(want 10.0.0.1:0=5 10.0.0.2:1=5)"
if command -v fst2vcd >/dev/null; then	# gtkwave's; an unfinished FST does not open
  steps=$(fst2vcd "$T_DIR/srv.fst" 2>/dev/null | grep -c '^#')
  [ "${steps:-0}" -gt 1000 ]; ok $? "$PP_WHAT: --trace wrote a complete waveform ($steps time steps)"
else	# an FST that was never closed holds its header only (a few hundred bytes)
  size=$(stat -c %s "$T_DIR/srv.fst" 2>/dev/null || echo 0)
  [ "$size" -gt 4096 ]; ok $? "$PP_WHAT: --trace wrote a waveform ($size bytes)"
fi

# Lockstep catches a planted RTL bug: first divergence in the tx stream, BTH MigReq.
pp "lockstep, dut.bug=hdr_bit" "--backend lockstep --options dut.bug=hdr_bit" "--backend rtl" -s 1024 -n 5
grep -q "FIRST DIVERGENCE" "$SRV_LOG"; ok $? "$PP_WHAT: divergence reported"
grep -q "(ref model, dut rtl), stream tx " "$SRV_LOG"; ok $? "$PP_WHAT: model vs rtl, in the tx stream"
grep -qE '^ +\* bth\.m +1 +0 +<-- first difference' "$SRV_LOG"
ok $? "$PP_WHAT: first difference is BTH MigReq (ref 1, dut 0)"
grep -q "first : bth.m: ref 1, dut 0" "$SRV_LOG"; ok $? "$PP_WHAT: verdict line names bth.m"
! grep -q "DIVERGENCE" "$CLI_LOG"; ok $? "$PP_WHAT: nothing reported on the clean side"
[ "$T_FAIL" -eq 0 ] || show_logs

# A lossy switch: frames dropped (about 5 %) are resent by the RTL's go-back-N
# after its ACK timeout (ibv_rc_pingpong: timeout 14, 2^24 cycles = 67 ms of
# device time); --slowdown 20 lets idle device time run 20 times slower than
# the wall clock instead of 1000 (docs/shim.md), so a timeout takes 1.3 s.
LOSSY_ITERS=${RTL_LOSSY_ITERS:-30}
T_TIMEOUT=${RTL_LOSSY_TIMEOUT:-90}
start_switch --seed "${RTL_LOSSY_SEED:-3}" --drop 0.05 || ok 1 "lossy switch"
port=$(free_port)
SRV_OPTS="--backend rtl --slowdown 20" CLI_OPTS="--backend rtl --slowdown 20" run_pair "$port" \
  ibv_rc_pingpong -g 1 -c -p "$port" -s 1 -n "$LOSSY_ITERS" -- ibv_rc_pingpong -g 1 -c -p "$port" -s 1 -n "$LOSSY_ITERS" 127.0.0.1
stop_switch
PP_WHAT="rtl through a switch dropping 5 %"
passed 1 "$LOSSY_ITERS"
dropped=$(sed -nE 's/.* ([0-9]+) dropped,.*/\1/p' "$SW_LOG")
[ "${dropped:-0}" -gt 0 ]; ok $? "$PP_WHAT: the switch dropped ${dropped:-0} frames"
T_TIMEOUT=${RTL_PP_TIMEOUT:-40}

# The width is checked.
"$HCASIM" run --width 128 -- true 2>"$T_DIR/width.log"
[ $? -eq 2 ] && grep -q "width is 64 or 512" "$T_DIR/width.log"; ok $? "hcasim run --width 128 refused"
HCASIM_BACKEND=rtl HCASIM_WIDTH=100 LD_PRELOAD=$(dirname "$HCASIM")/../lib/libhcasim-verbs.so ibv_devices \
  >"$T_DIR/width2.log" 2>&1
grep -q "width must be 64 or 512" "$T_DIR/width2.log"; ok $? "HCASIM_WIDTH=100: configuration error"

printf 'usec per round trip (-s %s): model %s, rtl/64 %s, rtl/512 %s, lockstep %s\n' "$SIZE" \
  "${USEC[model]:-?}" "${USEC[rtl, width 64]:-?}" "${USEC[rtl, width 512]:-?}" "${USEC[lockstep (model, rtl)]:-?}"
finish
