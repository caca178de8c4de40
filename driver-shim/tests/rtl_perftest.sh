#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Debian's unmodified perftest RDMA READ and atomic programs on the RTL:
# ib_read_bw, ib_read_lat and ib_atomic_bw (FETCH_AND_ADD and CMP_AND_SWAP),
# server and client each under `hcasim run` through `hcasim switch`, RoCE
# GID index 1, with --backend rtl and --backend lockstep (reference the C
# model, DUT the RTL) at --width $RTL_PERF_WIDTH (64 in make test, 512 in
# make regress).  Checked: both ends exit 0; the client prints its result
# line for the size and iteration count (message rate > 0, or the
# latency table); nothing reports an error or a lockstep divergence; the capture
# holds, as tshark's RoCE dissector decodes it, at least one request per
# iteration and exactly the responses they imply (READ: ceil(size / 4096)
# response packets per request; atomics: one atomic ACK per request),
# nothing else but ACKs, and passes tests/oracle/check_pcap.py --wire-rules.
cd "$(dirname "$0")/../.." || exit 1
. driver-shim/tests/lib.sh

WIDTH=${RTL_PERF_WIDTH:-64}
ITERS=${RTL_PERF_ITERS:-20}
MTU=4096	# perftest uses the port's active MTU
T_TIMEOUT=${RTL_PERF_TIMEOUT:-120}

# run BACKEND PROG ARGS...: one server/client pair through a fresh switch
run() {
  local backend=$1 prog=$2 port
  shift 2
  start_switch --quiet || { ok 1 "$backend $prog: switch"; return 1; }
  port=$(free_port)
  SRV_OPTS="--backend $backend --width $WIDTH" CLI_OPTS="--backend $backend --width $WIDTH" \
    run_pair "$port" "$prog" -F -x 1 -p "$port" "$@" -- "$prog" -F -x 1 -p "$port" "$@" 127.0.0.1
  stop_switch
}

# check WHAT SIZE KIND: exit codes, result line, errors, and the capture (KIND read|atomic)
check() {
  local what=$1 size=$2 kind=$3 counts req resp other want_resp line
  ok "$SRV_RC" "$what: server exit $SRV_RC"
  ok "$CLI_RC" "$what: client exit $CLI_RC"
  line=$(grep -E "^ +$size +$ITERS +[0-9.]+ +[0-9.]+" "$CLI_LOG")
  [ -n "$line" ]; ok $? "$what: result line for $size B x $ITERS"
  if [[ $what == *_bw* ]]; then
    # the message rate: at simulation speed, 8-byte atomics round to 0.00 MB/s
    awk -v r="$(awk '{print $5}' <<<"$line")" 'BEGIN { exit !(r > 0) }'; ok $? "$what: message rate > 0"
  fi
  ! grep -qiE "error|failed|unable|couldn't|DIVERGENCE" "$SRV_LOG" "$CLI_LOG"; ok $? "$what: no errors reported"
  ! grep -q "^hcasim: " "$SRV_LOG" "$CLI_LOG"; ok $? "$what: no driver or device error"
  counts=$(tshark -r "$SW_PCAP" -T fields -e infiniband.bth.opcode 2>/dev/null | sort -n | uniq -c)
  if [ "$kind" = read ]; then
    req=$(awk '$2 == 12 { n += $1 } END { print n + 0 }' <<<"$counts")
    resp=$(awk '$2 >= 13 && $2 <= 16 { n += $1 } END { print n + 0 }' <<<"$counts")
    want_resp=$((req * ((size + MTU - 1) / MTU)))
  else
    req=$(awk '$2 == 19 || $2 == 20 { n += $1 } END { print n + 0 }' <<<"$counts")
    resp=$(awk '$2 == 18 { n += $1 } END { print n + 0 }' <<<"$counts")
    want_resp=$req
  fi
  other=$(awk '!($2 >= 12 && $2 <= 20) { n += $1 } END { print n + 0 }' <<<"$counts")
  [ "$req" -ge "$ITERS" ]; ok $? "$what: $req requests on the wire, want >= $ITERS"
  [ "$resp" -eq "$want_resp" ]; ok $? "$what: $resp responses on the wire, want $want_resp"
  [ "$other" -eq 0 ]; ok $? "$what: no other opcodes ($other)"
  "$PYTHON" tests/oracle/check_pcap.py "$SW_PCAP" --wire-rules >"$T_DIR/check$T_RUN.log" 2>&1
  ok $? "$what: capture passes check_pcap.py"
  [ "$SRV_RC$CLI_RC" = 00 ] && [ -n "$line" ] || show_logs
}

for backend in rtl lockstep; do
  for size in 64 6000; do
    run "$backend" ib_read_bw -s "$size" -n "$ITERS"
    check "$backend/$WIDTH ib_read_bw -s $size" "$size" read
  done
  run "$backend" ib_read_lat -s 4096 -n "$ITERS"
  check "$backend/$WIDTH ib_read_lat -s 4096" 4096 read
  for op in FETCH_AND_ADD CMP_AND_SWAP; do
    run "$backend" ib_atomic_bw -A "$op" -n "$ITERS"
    check "$backend/$WIDTH ib_atomic_bw -A $op" 8 atomic
  done
done
finish
