#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The other pingpong examples of ibverbs-utils, each once, server and client
# under `hcasim run` through `hcasim switch`: ibv_uc_pingpong (UC),
# ibv_ud_pingpong (UD: address handles, GRH), ibv_srq_pingpong (SRQ shared by
# several QPs).  Both ends exit 0 and report size * iterations * 2 bytes;
# the captures are valid RoCEv2 (check_pcap.py) and carry the transport the
# program uses (tshark: UC or UD SEND opcodes).  Last, RC with MACs that the
# default rule cannot guess: the destination MAC must come from the switch's
# table (docs/shim.md, address resolution), checked on the wire with tshark.
# PP_BACKENDS="rtl lockstep" runs the three programs on those backends
# instead (at --width $PP_WIDTH, default 64; shim_rtl_pingpong), also
# checking that nothing reports a driver/device error or a lockstep
# divergence; the MAC check runs on the model only.
cd "$(dirname "$0")/../.." || exit 1
. driver-shim/tests/lib.sh

ITERS=${PINGPONG_ITERS:-20}
BACKENDS=${PP_BACKENDS:-model}
WIDTH=${PP_WIDTH:-64}
run() {
  local prog=$1 size=$2 ops=$3; shift 3
  local what="${PP_WHAT:+$PP_WHAT: }$prog -s $size $*"
  start_switch --quiet || { ok 1 "$what: switch"; return; }
  port=$(free_port)
  run_pair "$port" "$prog" -g 1 -p "$port" -s "$size" -n "$ITERS" "$@" -- \
    "$prog" -g 1 -p "$port" -s "$size" -n "$ITERS" "$@" 127.0.0.1
  stop_switch
  ok "$SRV_RC" "$what: server exit $SRV_RC"
  ok "$CLI_RC" "$what: client exit $CLI_RC"
  grep -q "^$((size * ITERS * 2)) bytes in " "$CLI_LOG"; ok $? "$what: client moved the bytes"
  ! grep -q "DIVERGENCE\|^hcasim: " "$SRV_LOG" "$CLI_LOG"; ok $? "$what: no device error or divergence"
  [ "$SRV_RC$CLI_RC" = 00 ] || show_logs
  n=$(tshark -r "$SW_PCAP" -T fields -e infiniband.bth.opcode 2>/dev/null |
      awk -v ops=" $ops " 'index(ops, " " $1 " ") { n++ } END { print n + 0 }')
  [ "$n" -ge "$((2 * ITERS))" ]; ok $? "$what: $n packets of the transport's SEND opcodes"
  "$PYTHON" tests/oracle/check_pcap.py "$SW_PCAP" --wire-rules --every 5 >"$T_DIR/check$T_RUN.log" 2>&1
  ok $? "$what: capture passes check_pcap.py"
}
for backend in $BACKENDS; do
  opts="--backend $backend"
  [ "$backend" = model ] || opts="$opts --width $WIDTH"
  export SRV_OPTS=$opts CLI_OPTS=$opts PP_WHAT="${backend#model}${PP_BACKENDS:+/$WIDTH}"
  run ibv_uc_pingpong 4096 "32 33 34 36" -c	# UC SEND first/middle/last/only
  run ibv_ud_pingpong 1024 "100"		# UD SEND only
  run ibv_srq_pingpong 4096 "0 1 2 4" -q 4	# RC SEND over 4 QPs sharing an SRQ
done
unset SRV_OPTS CLI_OPTS PP_WHAT
[ -n "${PP_BACKENDS:-}" ] && finish

own=$T_DIR/client-own.pcap
SRV_OPTS="--mac 0a:bc:00:00:00:01" CLI_OPTS="--mac 0a:bc:00:00:00:02 --pcap $own" run ibv_rc_pingpong 64 "4" -c
dst=$(tshark -r "$SW_PCAP" -T fields -e eth.dst -e ip.dst 2>/dev/null | sort -u | tr '\t' ' ' | paste -sd ';')
[ "$dst" = "0a:bc:00:00:00:01 10.0.0.1;0a:bc:00:00:00:02 10.0.0.2" ]
ok $? "frames carry the MACs the switch announced for each address ($dst)"
# The client's own capture (hcasim run --pcap, closed at exit) holds exactly
# the frames the switch saw coming from it.
mine=$(tshark -r "$own" 2>/dev/null | wc -l)
seen=$(tshark -r "$SW_PCAP" -Y "ip.src == 10.0.0.2" 2>/dev/null | wc -l)
[ "$mine" -gt 0 ] && [ "$mine" -eq "$seen" ]; ok $? "client capture: $mine frames, switch saw $seen from it"
finish
