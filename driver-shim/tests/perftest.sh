#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Debian's perftest (ib_write_bw, ib_read_bw, ib_send_bw), server and client
# each under `hcasim run` through `hcasim switch`, RoCE GID index 1, for
# message sizes from 2 B to 64 KiB.  Checked: both ends exit 0, the client
# prints a result line for the size with the requested iteration count and a
# non-zero bandwidth, nothing reports an error, and the capture holds the
# packets the operation implies (RDMA WRITE / READ request+response / SEND
# opcodes, tshark's dissector) and passes check_pcap.py.
# PERFTEST_SIZES / PERFTEST_ITERS / PERFTEST_PROGS override (make regress).
cd "$(dirname "$0")/../.." || exit 1
. driver-shim/tests/lib.sh

SIZES=${PERFTEST_SIZES:-"2 64 4096 65536"}
ITERS=${PERFTEST_ITERS:-50}
PROGS=${PERFTEST_PROGS:-"ib_write_bw ib_read_bw ib_send_bw"}
MTU=4096	# perftest uses the port's active MTU

for prog in $PROGS; do
  case $prog in
    ib_write_bw) ops="6 7 8 10" ;;		# RDMA WRITE first/middle/last/only
    ib_read_bw) ops="12" ;;			# RDMA READ request
    ib_send_bw) ops="0 1 2 4" ;;		# SEND first/middle/last/only
  esac
  for size in $SIZES; do
    what="$prog -s $size -n $ITERS"
    start_switch --quiet || { ok 1 "$what: switch"; continue; }
    port=$(free_port)
    run_pair "$port" "$prog" -F -x 1 -p "$port" -s "$size" -n "$ITERS" -- \
      "$prog" -F -x 1 -p "$port" -s "$size" -n "$ITERS" 127.0.0.1
    stop_switch
    ok "$SRV_RC" "$what: server exit $SRV_RC"
    ok "$CLI_RC" "$what: client exit $CLI_RC"
    line=$(grep -E "^ +$size +$ITERS +[0-9.]+ +[0-9.]+ " "$CLI_LOG")
    [ -n "$line" ]; ok $? "$what: result line for $size B x $ITERS"
    bw=$(awk '{print $4}' <<<"$line")
    awk -v b="${bw:-0}" 'BEGIN { exit !(b > 0) }'; ok $? "$what: bandwidth $bw MB/s > 0"
    ! grep -qiE "error|failed|unable|couldn't" "$SRV_LOG" "$CLI_LOG"; ok $? "$what: no errors reported"
    [ "$SRV_RC$CLI_RC" = 00 ] && [ -n "$line" ] || show_logs

    # The operation's request packets, as tshark decodes them.
    pkts=$(( (size + MTU - 1) / MTU ))
    n=$(tshark -r "$SW_PCAP" -T fields -e infiniband.bth.opcode 2>/dev/null |
        awk -v ops=" $ops " 'index(ops, " " $1 " ") { n++ } END { print n + 0 }')
    if [ "$prog" = ib_read_bw ]; then want=$ITERS; else want=$((ITERS * pkts)); fi
    # perftest may run a few extra warm-up iterations; never fewer.
    [ "$n" -ge "$want" ]; ok $? "$what: $n request packets on the wire, want >= $want"
    "$PYTHON" tests/oracle/check_pcap.py "$SW_PCAP" --wire-rules --every 25 >"$T_DIR/check$T_RUN.log" 2>&1
    ok $? "$what: capture passes check_pcap.py (sampled)"
  done
done
finish
